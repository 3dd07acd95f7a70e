//! `tpsim compare`: two installations, simulated or measured, level by
//! level of a load index.

use super::output::OutputFile;
use super::{
    CompareArgs, Failure, Finished, Listening, chart_files, emit, file_stem, levels, open_out,
    publish, settings, with_page,
};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use tpsim_models::summary::StoppedBy;
use tpsim_models::sweep::Setting;
use tpsim_models::{Scenario, System};
use tpsim_probe::analysis::{Index, Options, Sample, benchmarks};
use tpsim_probe::compare::ComparisonRow;

/// How a command that runs models with probes runs them: the seed, keys
/// set, threads, and how the observations are grouped into levels.
#[derive(Debug, clap::Args)]
pub(crate) struct ProbeRunArgs {
    /// Master seed; overrides the (first) scenario's `seed`.
    #[arg(long, value_parser = crate::args::seed)]
    pub(crate) seed: Option<u64>,
    #[command(flatten)]
    pub(crate) set: settings::SetArgs,
    /// Threads to run on (default: one per core). The results do not depend
    /// on it.
    #[arg(long, short = 'j', value_name = "J", value_parser = crate::args::jobs)]
    pub(crate) jobs: Option<usize>,
    #[command(flatten)]
    pub(crate) levels: levels::LevelArgs,
}

/// A time-sharing scenario with a probe, for `tpsim compare`, with
/// `settings` made.
pub(crate) fn installation(
    path: &Path,
    settings: &[Setting],
) -> Result<tpsim_models::System, Failure> {
    match settings::load(path, settings)? {
        Scenario::System(sys) if sys.probe.is_some() => Ok(*sys),
        _ => Err(Failure::Input(anyhow::anyhow!(
            "{}: not a time-sharing scenario with a [probe]: nothing to compare",
            path.display()
        ))),
    }
}

/// One side of a comparison: an installation simulated, or a probe's
/// observations measured on a machine.
enum Side {
    Model(Box<tpsim_models::System>),
    Measured {
        name: String,
        samples: Vec<Sample>,
        /// The load indices the table has.
        indices: Vec<Index>,
    },
}

/// Whether the probe of the model `sys` runs a load ramp.
fn ramps(sys: &System) -> bool {
    sys.probe.as_ref().is_some_and(|p| p.ramp.is_some())
}

/// Whether `path` is a measured table: a `.csv` file.
fn measured(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "csv")
}

impl Side {
    /// A `.csv` file is a measured observation table (the probe.csv of
    /// `tpsim probe`, or any table `tpsim analyze` reads), read by
    /// `index`; anything else a scenario with a `[probe]`, with
    /// `settings` made, whose probe must note `index`.
    fn read(
        path: &Path,
        settings: &[Setting],
        index: Index,
        stderr: &mut dyn Write,
    ) -> Result<Side, Failure> {
        if !measured(path) {
            let sys = installation(path, settings)?;
            if !index.simulated(ramps(&sys)) {
                return Err(Failure::Input(anyhow::anyhow!(
                    "{}: --by {}: this model's probe notes {}, not {} (a column of a machine's probe.csv, or of a model's with `probe.ramp`); choose one of those",
                    path.display(),
                    index.name(),
                    levels::names(&Side::model_indices(&sys)),
                    index.name()
                )));
            }
            return Ok(Side::Model(Box::new(sys)));
        }
        let read = levels::observations(path, index, stderr)?;
        Ok(Side::Measured {
            name: path.display().to_string(),
            samples: read.samples,
            indices: read.indices,
        })
    }

    fn name(&self) -> &str {
        match self {
            Side::Model(sys) => &sys.settings.name,
            Side::Measured { name, .. } => name,
        }
    }

    /// What it is, in a message.
    fn noun(&self) -> &'static str {
        match self {
            Side::Model(_) => "model",
            Side::Measured { .. } => "measurement",
        }
    }

    /// The indices the probe of the model `sys` notes.
    fn model_indices(sys: &System) -> Vec<Index> {
        let ramp = ramps(sys);
        Index::ALL
            .into_iter()
            .filter(|i| i.simulated(ramp))
            .collect()
    }

    /// The load indices it has observations by.
    fn indices(&self) -> Vec<Index> {
        match self {
            Side::Model(sys) => Side::model_indices(sys),
            Side::Measured { indices, .. } => indices.clone(),
        }
    }
}

pub(crate) fn compare(
    args: &CompareArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<Finished, Failure> {
    let runs = &args.runs;
    let options = runs.levels.options(0.1)?;
    let settings = settings::parse_one_each(&runs.set.sets, runs.seed)?;
    if !settings.is_empty() && measured(&args.a) && measured(&args.b) {
        return Err(Failure::Input(anyhow::anyhow!(
            "--set: {} and {} are both measured tables, and --set applies to a scenario",
            args.a.display(),
            args.b.display()
        )));
    }
    let read =
        |path: &Path, stderr: &mut dyn Write| Side::read(path, &settings, options.index, stderr);
    let (mut a, mut b) = (read(&args.a, stderr)?, read(&args.b, stderr)?);
    // Common random numbers: the models run under the same master seed.
    let first_seed = [&a, &b].into_iter().find_map(|side| match side {
        Side::Model(sys) => Some(sys.settings.seed),
        Side::Measured { .. } => None,
    });
    let seed = runs.seed.or(first_seed);
    for side in [&mut a, &mut b] {
        if let (Side::Model(sys), Some(seed)) = (side, seed) {
            sys.settings.seed = seed;
        }
    }
    let runner = tpsim_models::replicate::Runner::new(runs.jobs.unwrap_or(0))
        .map_err(|e| Failure::Run(e.into()))?;
    let out = open_out(args.out.as_deref(), &[&args.a, &args.b])?;
    let models: Vec<usize> = [&a, &b]
        .iter()
        .enumerate()
        .filter(|(_, side)| matches!(side, Side::Model(_)))
        .map(|(i, _)| i)
        .collect();
    let Some(mut runs) = run_models([&a, &b], &models, args, &options, &runner) else {
        let _ = writeln!(stderr, "tpsim: interrupted; nothing compared");
        return Ok(Finished::Interrupted);
    };
    let measured = models.len() < 2;
    for (runs, side) in runs.iter_mut().zip([&mut a, &mut b]) {
        match side {
            Side::Measured { samples, .. } => *runs = vec![std::mem::take(samples)],
            // Beside a measurement there are no pairs of replications: the
            // model's are pooled, and the interval is a bootstrap's.
            Side::Model(_) if measured => *runs = vec![runs.concat()],
            Side::Model(_) => {}
        }
    }
    let (method, rows, curves) = tpsim_probe::compare::compare(&runs[0], &runs[1], &options);
    let sides = [(args.a.as_path(), &a), (args.b.as_path(), &b)];
    in_common(sides, &runs, &rows, &options)?;
    if out.is_some() {
        let all: Vec<Sample> = runs.iter().flatten().flatten().cloned().collect();
        levels::check_curves(
            &format!("{} and {}", args.a.display(), args.b.display()),
            rows.iter().map(|r| (r.benchmark.as_str(), r.level)),
            &levels::levels(&all, &options),
            &options,
        )?;
    }
    let names = (a.name(), b.name());
    let files = match &out {
        Some(_) => {
            let files = comparison_files(names, &rows, &options)?;
            with_page(files, out.as_ref(), &args.html, &[&args.a, &args.b])?
        }
        None => Vec::new(),
    };
    let finished = emit(
        stdout,
        args.json,
        || {
            serde_json::json!({
                "installations": [names.0, names.1],
                "seed": seed,
                "replications": args.replications,
                "index": options.index,
                "method": method,
                "rows": rows,
                "curves": curves,
            })
        },
        || tpsim_probe::report::comparison_table(names, method, &rows, &curves, &options),
    )?;
    publish(out.as_ref(), &files)?;
    Ok(finished)
}

/// Runs the replications of the `models` among `sides` (their numbers) on
/// `runner`, with a progress bar; each side's samples by replication, or
/// `None` if interrupted.
fn run_models(
    sides: [&Side; 2],
    models: &[usize],
    args: &CompareArgs,
    options: &Options,
    runner: &tpsim_models::replicate::Runner,
) -> Option<[Vec<Vec<Sample>>; 2]> {
    let systems: Vec<&System> = models
        .iter()
        .map(|&which| match sides[which] {
            Side::Model(sys) => sys.as_ref(),
            Side::Measured { .. } => unreachable!("only models are run"),
        })
        .collect();
    let mut runs: [Vec<Vec<Sample>>; 2] = [Vec::new(), Vec::new()];
    for (&which, samples) in
        models
            .iter()
            .zip(probe_runs(&systems, args.replications, options, runner)?)
    {
        runs[which] = samples;
    }
    Some(runs)
}

/// Runs `replications` of each of `models` on `runner`, each under its own
/// seed and the same replication numbers (common random numbers where the
/// seeds agree), with a progress bar; each model's probe samples by
/// replication, or `None` if interrupted.
pub(crate) fn probe_runs(
    models: &[&System],
    replications: u64,
    options: &Options,
    runner: &tpsim_models::replicate::Runner,
) -> Option<Vec<Vec<Vec<Sample>>>> {
    let bar = ProgressBar::with_draw_target(
        Some(models.len() as u64 * replications),
        ProgressDrawTarget::stderr(),
    );
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} runs, {elapsed} elapsed, ETA {eta}")
            .expect("the template is valid"),
    );
    let listening = Listening::start();
    let going = |_: tpsim_models::SimTime| listening.going();
    let jobs: Vec<(usize, u64)> = (0..replications)
        .flat_map(|r| (0..models.len()).map(move |m| (m, r)))
        .collect();
    let finished = runner.map(&jobs, |&(m, r)| {
        let sys = models[m];
        let run = tpsim_models::system::simulate_with_progress(sys, sys.settings.seed, r, going);
        bar.inc(1);
        (run.summary.stopped_by != StoppedBy::Interrupted).then(|| {
            run.observations
                .iter()
                .filter_map(|o| Sample::observed(o, options.index))
                .collect::<Vec<Sample>>()
        })
    });
    bar.finish_and_clear();
    drop(listening);
    let mut samples: Vec<Vec<Vec<Sample>>> = vec![Vec::new(); models.len()];
    for (&(m, _), run) in jobs.iter().zip(finished) {
        samples[m].push(run?);
    }
    Some(samples)
}

/// Refuses a comparison that compares nothing: the two sides (each its
/// path and what it is, its observations in `runs`) have no benchmark in
/// common, or no level of the index at which both observed one. Says what
/// each side has, and which other indices both have.
fn in_common(
    sides: [(&Path, &Side); 2],
    runs: &[Vec<Vec<Sample>>; 2],
    rows: &[ComparisonRow],
    options: &Options,
) -> Result<(), Failure> {
    if rows.iter().any(|r| r.a_count > 0 && r.b_count > 0) {
        return Ok(());
    }
    let alike = sides[0].1.noun() == sides[1].1.noun();
    let who = |i: usize| {
        let (path, side) = sides[i];
        let ordinal = match (alike, i) {
            (false, _) => "",
            (true, 0) => "first ",
            (true, _) => "second ",
        };
        format!("{}: the {ordinal}{}'s", path.display(), side.noun())
    };
    let refuse = |message: String| Err(Failure::Input(anyhow::anyhow!(message)));
    let samples: Vec<Vec<Sample>> = runs.iter().map(|r| r.concat()).collect();
    let benchmarks: Vec<Vec<&str>> = samples.iter().map(|s| benchmarks(s)).collect();
    let common: Vec<&str> = benchmarks[0]
        .iter()
        .copied()
        .filter(|b| benchmarks[1].contains(b))
        .collect();
    if common.is_empty() {
        return refuse(format!(
            "{} benchmarks are {}; {} are {}; no benchmark in common: nothing to compare",
            who(0),
            benchmarks[0].join(", "),
            who(1),
            benchmarks[1].join(", ")
        ));
    }
    let index = options.index.name();
    let levels: Vec<BTreeSet<u32>> = samples
        .iter()
        .map(|s| {
            let counted: Vec<Sample> = s
                .iter()
                .filter(|s| common.contains(&s.benchmark.as_str()))
                .cloned()
                .collect();
            levels::levels(&counted, options)
        })
        .collect();
    let shown = |levels: &BTreeSet<u32>| {
        if levels.is_empty() {
            "none (every observation started during the warm-up; --include-warmup counts them)"
                .to_string()
        } else {
            levels::ranges(levels)
        }
    };
    // Levels both have, but never for the same benchmark.
    let apart = if levels[0].is_disjoint(&levels[1]) {
        "no level in common"
    } else {
        "no benchmark observed at one level at both"
    };
    let both: Vec<Index> = sides[0]
        .1
        .indices()
        .into_iter()
        .filter(|i| *i != options.index && sides[1].1.indices().contains(i))
        .collect();
    let instead = if both.is_empty() {
        String::new()
    } else {
        format!(" (both have {})", levels::names(&both))
    };
    refuse(format!(
        "{} levels of {index} are {}; {} are {}; {apart}: choose another --by{instead}",
        who(0),
        shown(&levels[0]),
        who(1),
        shown(&levels[1])
    ))
}

/// A comparison's output set: its table as CSV, and for each benchmark
/// the two 75th-percentile curves against the load, as SVG and PNG.
fn comparison_files(
    names: (&str, &str),
    rows: &[tpsim_probe::compare::ComparisonRow],
    options: &tpsim_probe::analysis::Options,
) -> Result<Vec<OutputFile>, Failure> {
    let mut files = vec![(
        "comparison.csv".to_string(),
        tpsim_probe::report::comparison_csv(rows).into_bytes(),
    )];
    let mut benchmarks: Vec<&str> = rows.iter().map(|r| r.benchmark.as_str()).collect();
    benchmarks.dedup();
    for benchmark in benchmarks {
        let chart =
            tpsim_probe::plot::p75_chart(names, rows, benchmark, options.index, options.level);
        let stem = format!("{}-p75-by-{}", file_stem(benchmark), options.index.name());
        files.extend(chart_files(&stem, &chart).map_err(Failure::Run)?);
    }
    Ok(files)
}
