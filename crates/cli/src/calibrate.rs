//! `tpsim calibrate`: the values of a model's keys that bring its probe's
//! 75th percentiles closest to a measured probe table, found by a search
//! over model runs on common random numbers (`tpsim_probe::calibrate`).

use super::compare::{ProbeRunArgs, installation, probe_runs};
use super::output::OutputFile;
use super::{Failure, Finished, emit, levels, open_out, publish, settings};
use std::io::Write;
use std::path::PathBuf;
use tpsim_models::sweep::Setting;
use tpsim_probe::analysis::{LevelRow, Sample, analyze};
use tpsim_probe::calibrate::{Fit, fit_table, level_fits, levels_csv, loss, losses_csv};

/// The most keys fitted at once: the points grow as the product of their
/// values.
const MOST_KEYS: usize = 3;
/// The most points a search runs.
const MOST_POINTS: usize = 1_000;

#[derive(Debug, clap::Args)]
pub(crate) struct CalibrateArgs {
    /// The measured observation table (a .csv: the probe.csv of `tpsim
    /// probe`).
    measured: PathBuf,
    /// The model: a time-sharing scenario with a [probe] (`tpsim model`
    /// writes one).
    scenario: PathBuf,
    /// A key of the scenario to fit and the values to try, as `tpsim
    /// sweep --set` takes them (`system.quantum=1ms,2ms,4ms,8ms`,
    /// `background[outside].count=0..4`). Repeatable, at most 3 keys; every
    /// combination of their values is a point of the search.
    #[arg(long = "fit", value_name = "KEY=VALUES", required = true)]
    fits: Vec<String>,
    /// Independent replications at each point, on the same random numbers
    /// at every point; each gives its own best point, and a fitted value's
    /// interval comes from them.
    #[arg(long, default_value_t = 5, value_name = "R", value_parser = crate::args::replications)]
    replications: u64,
    #[command(flatten)]
    runs: ProbeRunArgs,
    /// Directory to write losses.csv (every point's loss in every
    /// replication) and levels.csv (the measured and fitted 75th
    /// percentiles by benchmark and level) into; nothing is written for a
    /// fit that is refused.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print the fit as JSON instead of tables.
    #[arg(long)]
    json: bool,
}

/// The points of the search: every combination of the `fits`' values, each
/// as the settings of one value a key, the first key's values slowest.
fn points(fits: &[Setting]) -> Vec<Vec<Setting>> {
    fits.iter().fold(vec![Vec::new()], |points, fit| {
        points
            .iter()
            .flat_map(|point| {
                fit.values.iter().map(move |value| {
                    let mut one = fit.clone();
                    one.values = vec![value.clone()];
                    let mut point = point.clone();
                    point.push(one);
                    point
                })
            })
            .collect()
    })
}

pub(crate) fn calibrate(
    args: &CalibrateArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<Finished, Failure> {
    let runs = &args.runs;
    let options = runs.levels.options(0.1)?;
    let Points {
        fixed,
        fits,
        points,
    } = fit_points(args)?;
    let measured = levels::observations(&args.measured, options.index, stderr)?;
    let measured_rows = analyze(&measured.samples, &options);
    // Every point is checked before anything runs.
    let mut models = Vec::with_capacity(points.len());
    for point in &points {
        let all: Vec<Setting> = fixed.iter().chain(point).cloned().collect();
        let mut sys = installation(&args.scenario, &all)?;
        if let Some(seed) = runs.seed {
            sys.settings.seed = seed;
        }
        models.push(sys);
    }
    let out = open_out(args.out.as_deref(), &[&args.measured, &args.scenario])?;
    let runner = tpsim_models::replicate::Runner::new(runs.jobs.unwrap_or(0))
        .map_err(|e| Failure::Run(e.into()))?;
    let systems: Vec<&tpsim_models::System> = models.iter().collect();
    let Some(samples) = probe_runs(&systems, args.replications, &options, &runner) else {
        let _ = writeln!(stderr, "tpsim: interrupted; nothing fitted");
        return Ok(Finished::Interrupted);
    };
    // Every run is scored over the same benchmarks and levels: those the
    // measurement and every run of every point observed.
    let rows: Vec<Vec<Vec<LevelRow>>> = samples
        .iter()
        .map(|runs| runs.iter().map(|run| analyze(run, &options)).collect())
        .collect();
    let common: Vec<LevelRow> = measured_rows
        .iter()
        .filter(|m| {
            rows.iter().flatten().all(|run| {
                run.iter()
                    .any(|r| r.benchmark == m.benchmark && r.level == m.level)
            })
        })
        .cloned()
        .collect();
    let losses = losses(args, options.index.name(), &points, &rows, &common)?;
    let shown: Vec<Vec<String>> = points
        .iter()
        .map(|p| p.iter().map(|s| value(&s.values[0])).collect())
        .collect();
    let keys = fits.iter().map(|f| f.key.clone()).collect();
    let fit = Fit::new(keys, shown, losses);
    let pooled: Vec<Sample> = samples[fit.best].concat();
    let levels = level_fits(&common, &analyze(&pooled, &options));
    let refusals = fit.refusals();
    emit(
        stdout,
        args.json,
        || {
            serde_json::json!({
                "measured": args.measured.display().to_string(),
                "scenario": args.scenario.display().to_string(),
                "index": options.index,
                "fit": fit,
                "estimates": fit.estimates(),
                "levels": levels,
                "refused": refusals,
            })
        },
        || fit_table(&fit, &levels, options.index.name()),
    )?;
    if !refusals.is_empty() {
        return Err(Failure::Input(anyhow::anyhow!(
            "the fit is refused: {}",
            refusals.join("; ")
        )));
    }
    let files: Vec<OutputFile> = vec![
        ("losses.csv".to_string(), losses_csv(&fit).into_bytes()),
        ("levels.csv".to_string(), levels_csv(&levels).into_bytes()),
    ];
    publish(out.as_ref(), &files)?;
    Ok(Finished::Whole)
}

/// What a calibration runs: the settings every point shares (`--set`),
/// the keys fitted (`--fit`) and every point, one value of each key.
struct Points {
    fixed: Vec<Setting>,
    fits: Vec<Setting>,
    points: Vec<Vec<Setting>>,
}

/// The points a calibration runs, checked: at least 2 replications, at
/// most `MOST_KEYS` keys each given once, at most `MOST_POINTS` points.
fn fit_points(args: &CalibrateArgs) -> Result<Points, Failure> {
    let input = |message: String| Failure::Input(anyhow::anyhow!(message));
    let runs = &args.runs;
    let fixed = settings::parse_one_each(&runs.set.sets, runs.seed)?;
    let fits = settings::parse(&args.fits, runs.seed)?;
    if args.replications < 2 {
        return Err(input(
            "--replications: a fit needs at least 2, to tell the points apart by their spread over replications".to_string(),
        ));
    }
    if fits.len() > MOST_KEYS {
        return Err(input(format!(
            "--fit: {} keys, and a search fits at most {MOST_KEYS} at once",
            fits.len()
        )));
    }
    for (i, fit) in fits.iter().enumerate() {
        if fits[..i].iter().chain(&fixed).any(|f| f.key == fit.key) {
            return Err(input(format!(
                "--fit {}: the key is given twice (by --fit or --set); give it once",
                fit.key
            )));
        }
    }
    let points = points(&fits);
    if points.len() > MOST_POINTS {
        return Err(input(format!(
            "--fit: {} points (every combination of the values), more than {MOST_POINTS}: try fewer values",
            points.len()
        )));
    }
    Ok(Points {
        fixed,
        fits,
        points,
    })
}

/// Each run's loss against the measurement over the `common` rows, by
/// point; refused if a run has none of them.
fn losses(
    args: &CalibrateArgs,
    index: &str,
    points: &[Vec<Setting>],
    rows: &[Vec<Vec<LevelRow>>],
    common: &[LevelRow],
) -> Result<Vec<Vec<f64>>, Failure> {
    let mut losses = Vec::with_capacity(points.len());
    for (point, runs) in points.iter().zip(rows) {
        let mut at_point = Vec::with_capacity(runs.len());
        for run in runs {
            let Some((l, _)) = loss(common, run) else {
                return Err(Failure::Input(anyhow::anyhow!(
                    "{} at {}: no benchmark at a level of {} that {} has was observed by every run of every point: nothing to fit to",
                    args.scenario.display(),
                    label(point),
                    index,
                    args.measured.display()
                )));
            };
            at_point.push(l);
        }
        losses.push(at_point);
    }
    Ok(losses)
}

/// A point as a person reads it: `system.quantum=4ms, ...`.
fn label(point: &[Setting]) -> String {
    point
        .iter()
        .map(|s| format!("{}={}", s.key, value(&s.values[0])))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A value as given: a string without its quotes.
fn value(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
