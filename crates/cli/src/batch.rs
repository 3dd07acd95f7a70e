//! `tpsim batch`, `tpsim sweep` and `tpsim merge`: replications of a
//! scenario or of every point of a sweep, on all cores or cut into shards
//! for several machines, and their estimates as tables, CSV and JSON.

use crate::output::OutputDir;
use crate::{Failure, Finished, HtmlArgs, Listening, check_level, emit, open_out, settings};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::Write;
use std::path::{Path, PathBuf};
use tpsim_models::SimTime;
use tpsim_models::analytic::ClosedModel;
use tpsim_models::batch::{self, DEFAULT_MEASURES, PointRuns, WarmupRule};
use tpsim_models::replicate::{Precision, Rule, Runner, Shard, Stop};
use tpsim_models::shard::{self, Identity, Record};
use tpsim_models::sweep::{self, Point};
use tpsim_models::warmup;
use tpsim_probe::curves;

/// The name of a shard's record in its output directory.
const RECORD: &str = "shard.json";

/// How many replications, on how many threads, and what to show.
#[derive(Debug, clap::Args)]
pub(crate) struct ReplicationArgs {
    /// Independent replications of each point; with --precision, how many
    /// run first.
    #[arg(long, default_value_t = 10, value_name = "R", value_parser = crate::args::replications)]
    replications: u64,
    /// Add replications until the interval of every chosen measure is at
    /// most this fraction of its mean on either side (such as 0.05).
    #[arg(long, value_name = "FRACTION")]
    precision: Option<f64>,
    /// The most replications of a point under --precision.
    #[arg(long, default_value_t = 1000, value_name = "N", value_parser = crate::args::replications)]
    max_replications: u64,
    /// A measure to show and, with --precision, to aim at: its name in
    /// summary.json's terms, `*` standing for any run of characters
    /// (`classes.*.mean_response`, `stations.cpu.utilization`). Repeatable;
    /// by default each class's throughput and mean response.
    #[arg(long = "measure", value_name = "PATTERN")]
    measures: Vec<String>,
    /// The confidence level of the intervals.
    #[arg(long, default_value_t = 0.95)]
    level: f64,
    /// Threads to run on (default: one per core). The results do not depend
    /// on it.
    #[arg(long, short = 'j', value_name = "J", value_parser = crate::args::jobs)]
    jobs: Option<usize>,
    /// Choose each point's warm-up from the data instead of taking
    /// run.warmup: `mser5` runs 10 pilot replications from an empty start
    /// and truncates their mean response series by MSER-5.
    #[arg(long, value_name = "RULE", value_parser = ["mser5"])]
    warmup: Option<String>,
    /// Master seed; overrides the scenario's `seed`.
    #[arg(long, value_parser = crate::args::seed)]
    seed: Option<u64>,
    /// Run only shard I of N of the work (every Nth replication; under
    /// --precision, every Nth point) and write its record, shard.json, into
    /// --out; `tpsim merge` joins the N records into the whole batch.
    #[arg(long, value_name = "I/N", requires = "out", conflicts_with = "html")]
    shard: Option<Shard>,
    /// Directory to write replications.csv, estimates.csv and batch.json
    /// into (created if missing); a sweep with an axis also draws its
    /// charts there (throughput and each measure against the axis, SVG and
    /// PNG) and writes knees.csv; with --shard, shard.json alone.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) html: HtmlArgs,
    /// Print the estimates as JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// The shards to merge, and what to make of the whole batch.
#[derive(Debug, clap::Args)]
pub(crate) struct MergeArgs {
    /// The shards' records: each shard's shard.json, or the directory
    /// holding it.
    #[arg(required = true, value_name = "SHARD")]
    shards: Vec<PathBuf>,
    /// The swept key to draw the curves against (default: as `tpsim sweep`
    /// chooses it).
    #[arg(long = "x", value_name = "KEY")]
    x: Option<String>,
    /// Directory to write replications.csv, estimates.csv and batch.json
    /// into (created if missing): the files the whole batch writes.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) html: HtmlArgs,
    /// Print the estimates as JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// `tpsim batch` (its settings of one value each, `fixed`) and `tpsim
/// sweep` (its settings, `sets`, and the key `x` to draw its curves
/// against).
pub(crate) fn batch(
    path: &Path,
    fixed: &[String],
    sets: &[String],
    x: Option<&str>,
    args: &ReplicationArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<Finished, Failure> {
    let input = |message: String| Failure::Input(anyhow::anyhow!(message));
    let rule = replication_rule(args).map_err(input)?;
    let fixed = settings::parse_one_each(fixed, args.seed)?;
    let settings = settings::parse(sets, args.seed)?;
    let name = path.display().to_string();
    // With settings of one value, the scenario they make is the batch's:
    // its text, and so the fingerprint its shards record, is theirs.
    let text = settings::text(path, &fixed)?;
    let mut points = sweep::points(&name, &text, &settings).map_err(|e| input(e.to_string()))?;
    if let Some(seed) = args.seed {
        // Set on the scenarios read, not written into the file's text:
        // TOML integers stop at 2^63 - 1, seeds at 2^64 - 1.
        for point in &mut points {
            point.scenario.settings_mut().seed = seed;
        }
    }
    let chosen = chosen_measures(args, &points[0], &name).map_err(input)?;
    let keys: Vec<String> = settings.iter().map(|s| s.key.clone()).collect();
    // The axis is chosen, or refused, before anything runs.
    let at: Vec<curves::AxisPoint> = points
        .iter()
        .map(|p| curves::AxisPoint {
            values: &p.values,
            population: ClosedModel::of_scenario(&p.scenario)
                .ok()
                .map(|m| m.terminals),
        })
        .collect();
    curves::axis(&keys, x, &at).map_err(input)?;
    let runner = Runner::new(args.jobs.unwrap_or(0)).map_err(|e| Failure::Run(e.into()))?;
    let out = open_out(args.out.as_deref(), &[path])?;
    let shard = args.shard.unwrap_or(Shard::WHOLE);
    let bar = runs_bar(planned_runs(points.len() as u64, &rule, shard, args));
    let done = || {
        if bar.position() + 1 > bar.length().unwrap_or(0) {
            bar.inc_length(1);
        }
        bar.inc(1);
    };
    let listening = Listening::start();
    let going = || listening.going();
    if args.warmup.is_some() {
        let chosen = choose_warmups(&mut points, &runner, &name, done, going);
        if chosen.is_err() {
            bar.finish_and_clear();
        }
        match chosen {
            Ok(()) => {}
            Err(WarmupStop::Interrupted) => {
                let _ = writeln!(
                    stderr,
                    "tpsim: interrupted while choosing the warm-up; nothing was run"
                );
                return Ok(Finished::Interrupted);
            }
            Err(WarmupStop::Refused(message)) => return Err(input(message)),
        }
    }
    let identity = identity(&points, &text, keys, rule, args, chosen);
    let results = batch::run(
        &points,
        &rule,
        shard,
        &runner,
        &identity.measures,
        done,
        going,
    );
    bar.finish_and_clear();
    drop(listening);
    let partial = is_partial(&results);
    match (args.shard, &out) {
        (Some(shard), Some(dir)) => write_record(shard, identity, &results, dir, stdout)?,
        _ => {
            let page = (&args.html, &[path][..]);
            report(
                &identity,
                &results,
                x,
                out.as_ref(),
                page,
                args.json,
                stdout,
            )?
        }
    };
    interrupted(partial, stderr)
}

/// What makes a batch of `points` read from `text` the batch it is, as
/// its shards record it.
fn identity(
    points: &[Point],
    text: &str,
    keys: Vec<String>,
    rule: Rule,
    args: &ReplicationArgs,
    chosen: Vec<String>,
) -> Identity {
    let scenario = points[0].scenario.settings();
    Identity {
        scenario: scenario.name.clone(),
        seed: scenario.seed,
        fingerprint: shard::fingerprint(text),
        keys,
        rule,
        warmup: match args.warmup {
            Some(_) => WarmupRule::Mser5 {
                pilots: warmup::PILOTS,
            },
            None => WarmupRule::Scenario,
        },
        level: args.level,
        measures: chosen,
        points: points.len(),
    }
}

/// The runs a batch of `points` points plans at the start, for its
/// progress bar: `shard`'s replications of the first round under `rule`,
/// and the pilot runs of the warm-ups if MSER-5 chooses them.
fn planned_runs(points: u64, rule: &Rule, shard: Shard, args: &ReplicationArgs) -> u64 {
    let planned = match *rule {
        Rule::Count(n) => shard.owned_of(points * n),
        Rule::Precision { initial, .. } => shard.owned_of(points) * initial,
    };
    let pilots = if args.warmup.is_some() {
        points * warmup::PILOTS
    } else {
        0
    };
    pilots + planned
}

/// The patterns of the measures a batch shows and aims at: those asked
/// for, each matching some measure of `point` (of the scenario `name`), or
/// the defaults.
fn chosen_measures(
    args: &ReplicationArgs,
    point: &Point,
    name: &str,
) -> Result<Vec<String>, String> {
    let chosen: Vec<String> = if args.measures.is_empty() {
        DEFAULT_MEASURES.iter().map(|m| m.to_string()).collect()
    } else {
        args.measures.clone()
    };
    let names = batch::measure_names(point);
    if let Some(unmatched) = chosen
        .iter()
        .find(|p| !names.iter().any(|n| batch::matches(p, n)))
    {
        return Err(format!(
            "--measure {unmatched}: no measure of {name} matches it; the measures are {}",
            names.join(", ")
        ));
    }
    Ok(chosen)
}

/// A progress bar of `runs` runs on standard error (drawn only when it is
/// a terminal).
fn runs_bar(runs: u64) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(runs), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40} {pos}/{len} runs, {per_sec}, {elapsed} elapsed, ETA {eta}",
        )
        .expect("the template is valid"),
    );
    bar
}

/// Why the warm-ups could not all be chosen.
enum WarmupStop {
    /// A signal came.
    Interrupted,
    /// MSER-5 found none at a point: what to tell the user.
    Refused(String),
}

/// Sets each point's warm-up to the one MSER-5 chooses from pilot runs on
/// `runner` (`done` after each, `going` asked during them).
fn choose_warmups(
    points: &mut [Point],
    runner: &Runner,
    name: &str,
    done: impl Fn() + Sync + Send,
    going: impl Fn() -> bool + Sync + Send,
) -> Result<(), WarmupStop> {
    for point in points {
        let chosen = match warmup::choose(&point.scenario, runner, &done, &going) {
            Ok(chosen) => chosen,
            Err(warmup::WarmupError::Interrupted) => return Err(WarmupStop::Interrupted),
            Err(e) => {
                let at = if point.values.is_empty() {
                    String::new()
                } else {
                    format!(" at {}", point.label())
                };
                return Err(WarmupStop::Refused(format!(
                    "--warmup mser5{at}: {name}: {e}"
                )));
            }
        };
        point.scenario.settings_mut().warmup = SimTime::from_secs_f64(chosen.warmup);
    }
    Ok(())
}

/// Whether some point's replications were cut short by an interrupt.
fn is_partial(results: &[PointRuns]) -> bool {
    results.iter().any(|p| p.stopped_by == Stop::Interrupted)
}

/// Says so if the replications were cut short.
fn interrupted(partial: bool, stderr: &mut dyn Write) -> Result<Finished, Failure> {
    if !partial {
        return Ok(Finished::Whole);
    }
    let _ = writeln!(
        stderr,
        "tpsim: interrupted; the replications that finished were reported, marked partial"
    );
    Ok(Finished::Interrupted)
}

/// Writes a shard's record into its output directory, and says what it
/// holds.
fn write_record(
    shard: Shard,
    identity: Identity,
    results: &[PointRuns],
    dir: &OutputDir,
    stdout: &mut dyn Write,
) -> Result<(), Failure> {
    let record = Record::new(shard, identity, results);
    let mut json = serde_json::to_string_pretty(&record).expect("a record always serialises");
    json.push('\n');
    dir.publish(&[(RECORD.to_string(), json.into_bytes())])
        .map_err(Failure::Run)?;
    let replications: usize = record.points.iter().map(|p| p.replications.len()).sum();
    writeln!(
        stdout,
        "{} (seed {}), shard {shard}: {replications} replications at {} of its {} points, written to {}; `tpsim merge` joins the {} shards' records",
        record.batch.scenario,
        record.batch.seed,
        record.points.len(),
        record.batch.points,
        dir.path().join(RECORD).display(),
        shard.count()
    )
    .map_err(|e| Failure::Run(e.into()))
}

/// `tpsim merge`: the shards' records joined into the whole batch, shown
/// and written as the batch itself would have been.
pub(crate) fn merge(
    args: &MergeArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<Finished, Failure> {
    let input = |message: String| Failure::Input(anyhow::anyhow!(message));
    let mut records = Vec::new();
    let mut paths = Vec::new();
    for path in &args.shards {
        let path = if path.is_dir() {
            path.join(RECORD)
        } else {
            path.clone()
        };
        let name = path.display().to_string();
        crate::output::check_input(&path).map_err(input)?;
        let text = std::fs::read_to_string(&path)
            .map_err(|e| input(format!("cannot read shard record {name}: {e}")))?;
        let record = Record::read(&name, &text).map_err(|e| input(e.to_string()))?;
        records.push((name, record));
        paths.push(path);
    }
    let merged = shard::merge(&records).map_err(|e| input(e.to_string()))?;
    let at: Vec<curves::AxisPoint> = merged.points.iter().map(curves::AxisPoint::from).collect();
    curves::axis(&merged.batch.keys, args.x.as_deref(), &at).map_err(input)?;
    let inputs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let out = open_out(args.out.as_deref(), &inputs)?;
    report(
        &merged.batch,
        &merged.points,
        args.x.as_deref(),
        out.as_ref(),
        (&args.html, &[]),
        args.json,
        stdout,
    )?;
    if is_partial(&merged.points) {
        let _ = writeln!(
            stderr,
            "tpsim: some shards were interrupted; the merged batch is marked partial"
        );
    }
    Ok(Finished::Whole)
}

/// Shows a batch's estimates and writes its files; a sweep's curves
/// against the key `x` (by default the last) also get their knees and
/// charts; with `--html` (`page`, with the scenarios it read) its report
/// page.
fn report(
    batch: &Identity,
    results: &[PointRuns],
    x: Option<&str>,
    out: Option<&OutputDir>,
    page: (&HtmlArgs, &[&Path]),
    json: bool,
    stdout: &mut dyn Write,
) -> Result<(), Failure> {
    let at: Vec<curves::AxisPoint> = results.iter().map(curves::AxisPoint::from).collect();
    let axis = curves::axis(&batch.keys, x, &at).map_err(|e| Failure::Input(anyhow::anyhow!(e)))?;
    let has_throughput = results.iter().any(|p| {
        p.measures
            .iter()
            .any(|m| batch::matches(THROUGHPUT_PATTERN, m))
    });
    let knees = axis.as_ref().filter(|_| has_throughput).map(|axis| {
        curves::knees(&curves::curves(
            axis,
            results,
            curves::THROUGHPUT,
            batch.level,
        ))
    });
    let heading = tpsim_probe::batch::Heading {
        scenario: &batch.scenario,
        seed: batch.seed,
        keys: &batch.keys,
        level: batch.level,
        rule: batch.rule_sentence(),
    };
    let value = || {
        serde_json::json!({
            "scenario": batch.scenario,
            "seed": batch.seed,
            "level": batch.level,
            "rule": batch.rule_sentence(),
            "keys": batch.keys,
            "partial": is_partial(results),
            "points": results.iter().map(|p| serde_json::json!({
                "values": p.values.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>(),
                "replications": p.replications.len(),
                "stopped_by": p.stopped_by,
                "warmup": p.warmup,
                "reference": p.reference,
                "estimates": p.estimates(batch.level),
            })).collect::<Vec<_>>(),
            "axis": axis.as_ref().map(|a| &a.key),
            "knees": knees,
        })
    };
    let mut files = Vec::new();
    if out.is_some() {
        let mut json = serde_json::to_string_pretty(&value()).expect("results always serialise");
        json.push('\n');
        files = vec![
            (
                "replications.csv".to_string(),
                tpsim_probe::batch::replications_csv(&batch.keys, results).into_bytes(),
            ),
            (
                "estimates.csv".to_string(),
                tpsim_probe::batch::estimates_csv(&batch.keys, results, batch.level).into_bytes(),
            ),
            ("batch.json".to_string(), json.into_bytes()),
        ];
        if let Some(axis) = &axis {
            if let Some(knees) = &knees {
                files.push((
                    "knees.csv".to_string(),
                    curves::knees_csv(axis, knees).into_bytes(),
                ));
            }
            files.extend(charts(batch, results, axis, has_throughput).map_err(Failure::Run)?);
        }
        files = crate::with_page(files, out, page.0, page.1)?;
    }
    emit(stdout, json, value, || {
        let mut text = tpsim_probe::batch::table(&heading, results, &batch.measures);
        text.push_str(&tpsim_probe::batch::warmups(results));
        if let (Some(axis), Some(knees)) = (&axis, &knees) {
            text.push('\n');
            text.push_str(&curves::knee_table(axis, knees));
        }
        text
    })?;
    crate::publish(out, &files)
}

/// The pattern of the classes' throughputs, whose sum is the system's.
const THROUGHPUT_PATTERN: &str = "classes.*.throughput";

/// The most charts of chosen measures a sweep draws.
const MAX_CHARTS: usize = 24;

/// A sweep's charts, one per quantity: the system's throughput with MVA
/// and the bound where the model has them, and each chosen measure (a
/// one-class model's mean response with MVA and its bound; its class's
/// throughput is the system's, drawn once), each as SVG and PNG.
fn charts(
    batch: &Identity,
    results: &[PointRuns],
    axis: &curves::Axis,
    has_throughput: bool,
) -> anyhow::Result<Vec<crate::output::OutputFile>> {
    use curves::Beside;
    let names: Vec<&String> = results[0]
        .measures
        .iter()
        .filter(|m| batch.measures.iter().any(|p| batch::matches(p, m)))
        .take(MAX_CHARTS)
        .collect();
    let one_class = results[0]
        .measures
        .iter()
        .filter(|m| batch::matches(THROUGHPUT_PATTERN, m))
        .count()
        == 1;
    let mut files = Vec::new();
    let mut draw = |name: &str, beside: Beside| -> anyhow::Result<()> {
        let curves = curves::curves(axis, results, name, batch.level);
        let chart = curves::chart(axis, name, &curves, beside, batch.level);
        files.extend(crate::chart_files(&crate::file_stem(name), &chart)?);
        Ok(())
    };
    if has_throughput {
        draw(curves::THROUGHPUT, Beside::Throughput)?;
    }
    for name in names {
        let beside = if !one_class {
            Beside::Nothing
        } else if batch::matches(THROUGHPUT_PATTERN, name) {
            continue;
        } else if batch::matches("classes.*.mean_response", name) {
            Beside::Response
        } else {
            Beside::Nothing
        };
        draw(name, beside)?;
    }
    Ok(files)
}

/// The replication rule the options ask for.
fn replication_rule(args: &ReplicationArgs) -> Result<Rule, String> {
    check_level(args.level)?;
    let Some(fraction) = args.precision else {
        return Ok(Rule::Count(args.replications));
    };
    if !(fraction > 0.0 && fraction < 1.0) {
        return Err(format!(
            "--precision: must be a fraction between 0 and 1 (such as 0.05), got {}",
            tpsim_models::units::Figure(fraction)
        ));
    }
    if args.replications < 2 {
        return Err("--replications: --precision needs at least 2 first, for an interval".into());
    }
    if args.max_replications < args.replications {
        return Err(format!(
            "--max-replications: must be at least --replications ({}), got {}",
            args.replications, args.max_replications
        ));
    }
    Ok(Rule::Precision {
        initial: args.replications,
        precision: Precision {
            relative_half_width: fraction,
            level: args.level,
            max_replications: args.max_replications,
        },
    })
}
