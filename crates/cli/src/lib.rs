//! The `tpsim` command line.
//!
//! [`run`] is the whole program behind `main`: it takes the arguments and
//! the two output streams, and returns the exit status (0 success, 1 a run
//! or output failure, 2 a usage or scenario error), so the CLI can be
//! tested in-process. Only this crate touches files, the terminal and the
//! wall clock.

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::ffi::OsString;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;
use tpsim_models::system::LoadSample;
use tpsim_models::{Scenario, ScenarioError, Summary};

/// Discrete-event simulation of time-sharing computer systems.
#[derive(Debug, Parser)]
#[command(name = "tpsim", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Simulate a scenario and report what it measured.
    Run(RunArgs),
    /// Check a scenario for errors without running it.
    Check {
        /// The scenario file (TOML).
        scenario: PathBuf,
    },
    /// Solve a closed scenario exactly by Mean Value Analysis, for every
    /// population from 1 to its number of terminals (a time-sharing system
    /// as if its memory were never short).
    Mva {
        /// The scenario file (TOML): one closed class, single-server or
        /// delay stations.
        scenario: PathBuf,
        /// Solve up to this population instead of the scenario's terminals.
        #[arg(long, value_name = "N")]
        population: Option<u32>,
        /// Print the solution as JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, clap::Args)]
struct RunArgs {
    /// The scenario file (TOML).
    scenario: PathBuf,
    /// Master seed; overrides the scenario's `seed`.
    #[arg(long)]
    seed: Option<u64>,
    /// Directory to write summary.json, stations.csv and classes.csv into
    /// (created if missing).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print the summary as JSON on standard output instead of tables.
    #[arg(long)]
    json: bool,
}

/// A failure, and the exit status it calls for.
#[derive(Debug)]
enum Failure {
    /// Bad usage or a bad scenario: exit status 2.
    Input(anyhow::Error),
    /// Anything else, such as an unwritable output: exit status 1.
    Run(anyhow::Error),
}

impl From<ScenarioError> for Failure {
    fn from(e: ScenarioError) -> Failure {
        Failure::Input(e.into())
    }
}

/// Runs the command line `args` (program name first), writing results to
/// `stdout` and messages to `stderr`; returns the exit status.
pub fn run<I, T>(args: I, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = write!(stderr, "{}", e.render().ansi());
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    let outcome = match cli.command {
        Command::Run(args) => run_scenario(&args, stdout, stderr),
        Command::Check { scenario } => check(&scenario, stdout, stderr),
        Command::Mva {
            scenario,
            population,
            json,
        } => mva(&scenario, population, json, stdout),
    };
    match outcome {
        Ok(()) => 0,
        Err(Failure::Input(e)) => report(stderr, &e, 2),
        // A reader that went away (`tpsim run x | head`) is not a failure.
        Err(Failure::Run(e)) if is_broken_pipe(&e) => 0,
        Err(Failure::Run(e)) => report(stderr, &e, 1),
    }
}

fn report(stderr: &mut dyn Write, e: &anyhow::Error, status: i32) -> i32 {
    let mut text = String::new();
    for (i, cause) in e.chain().enumerate() {
        let cause = cause.to_string();
        if i > 0 {
            text.push_str(": ");
        }
        text.push_str(&cause);
    }
    for line in text.lines() {
        let _ = writeln!(stderr, "tpsim: {line}");
    }
    status
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain()
        .filter_map(|c| c.downcast_ref::<io::Error>())
        .any(|io| io.kind() == io::ErrorKind::BrokenPipe)
}

fn load(path: &Path) -> Result<Scenario, Failure> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read scenario {name}"))
        .map_err(Failure::Input)?;
    Ok(tpsim_models::load(&name, &text)?)
}

fn check(path: &Path, stdout: &mut dyn Write, stderr: &mut dyn Write) -> Result<(), Failure> {
    let (what, notes) = match load(path)? {
        Scenario::Network(net) => (
            format!(
                "{} classes, {} stations",
                net.classes.len(),
                net.stations.len()
            ),
            Vec::new(),
        ),
        Scenario::System(sys) => (
            format!(
                "time-sharing system, {} memory, {} command classes, {} devices",
                match sys.memory.policy {
                    tpsim_models::system::Policy::Swapping { .. } => "swapping",
                    tpsim_models::system::Policy::Paging(_) => "paging",
                },
                sys.classes.len(),
                sys.devices.len()
            ),
            sys.notes(),
        ),
    };
    writeln!(stdout, "{}: ok: {what}", path.display()).map_err(|e| Failure::Run(e.into()))?;
    for note in notes {
        let _ = writeln!(stderr, "tpsim: note: {}: {note}", path.display());
    }
    Ok(())
}

fn mva(
    path: &Path,
    population: Option<u32>,
    as_json: bool,
    stdout: &mut dyn Write,
) -> Result<(), Failure> {
    use tpsim_models::analytic::ClosedModel;
    let scenario = load(path)?;
    let model = match &scenario {
        Scenario::Network(net) => ClosedModel::of(net),
        Scenario::System(sys) => ClosedModel::of_system(sys),
    }
    .with_context(|| format!("{}", path.display()))
    .map_err(Failure::Input)?;
    let points = model.solve(population.unwrap_or(model.terminals));
    let text = if as_json {
        let value =
            serde_json::json!({ "scenario": scenario.name(), "model": model, "points": points });
        format!(
            "{}\n",
            serde_json::to_string_pretty(&value).expect("MVA results always serialise")
        )
    } else {
        tpsim_probe::report::mva_table(&model, &points)
    };
    stdout
        .write_all(text.as_bytes())
        .map_err(|e| Failure::Run(e.into()))
}

fn run_scenario(
    args: &RunArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<(), Failure> {
    let mut scenario = load(&args.scenario)?;
    if let Some(seed) = args.seed {
        scenario.set_seed(seed);
    }
    let started = Instant::now();
    let (mut summary, load) = {
        // Drawn on standard error only when it is a terminal.
        let bar = ProgressBar::with_draw_target(
            Some(scenario.end_time().as_nanos() / 1_000_000),
            ProgressDrawTarget::stderr(),
        );
        bar.set_style(
            ProgressStyle::with_template(
                "{bar:40} {percent:>3}% of simulated time, {elapsed} elapsed, ETA {eta}",
            )
            .expect("the template is valid"),
        );
        let progress = |now: tpsim_models::SimTime| bar.set_position(now.as_nanos() / 1_000_000);
        let outcome = match &scenario {
            Scenario::Network(net) => (
                tpsim_models::simulate_with_progress(net, net.seed, 0, progress),
                None,
            ),
            Scenario::System(sys) => {
                let run = tpsim_models::system::simulate_with_progress(sys, sys.seed, 0, progress);
                (run.summary, Some(run.load))
            }
        };
        bar.finish_and_clear();
        outcome
    };
    summary.wall_seconds = started.elapsed().as_secs_f64();
    if let Some(dir) = &args.out {
        write_outputs(dir, &summary, load.as_deref()).map_err(Failure::Run)?;
    }
    let text = if args.json {
        json(&summary)
    } else {
        tpsim_probe::report::table(&summary)
    };
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| Failure::Run(e.into()))?;
    for c in &summary.classes {
        if let Some(rejected) = c.rejected.filter(|&r| r > 0) {
            let _ = writeln!(
                stderr,
                "tpsim: note: {rejected} {} of class {} could not run: the image is larger than user memory, and a swapping system must hold it whole",
                if c.kind == "background" {
                    "processes"
                } else {
                    "commands"
                },
                c.name
            );
        }
    }
    Ok(())
}

fn json(summary: &Summary) -> String {
    let mut text = serde_json::to_string_pretty(summary).expect("a summary always serialises");
    text.push('\n');
    text
}

/// Writes every output file, each one whole or not at all: a file is first
/// written under a temporary name in `dir`, then renamed.
fn write_outputs(dir: &Path, summary: &Summary, load: Option<&[LoadSample]>) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create output directory {}", dir.display()))?;
    let mut files = vec![
        ("summary.json", json(summary)),
        ("stations.csv", tpsim_probe::report::stations_csv(summary)),
        ("classes.csv", tpsim_probe::report::classes_csv(summary)),
    ];
    if let Some(load) = load {
        files.push(("load.csv", tpsim_probe::report::load_csv(load)));
    }
    for (name, text) in files {
        let path = dir.join(name);
        let mut file = tempfile::NamedTempFile::new_in(dir)
            .with_context(|| format!("cannot write in {}", dir.display()))?;
        file.write_all(text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
        file.persist(&path)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}
