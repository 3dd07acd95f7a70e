//! The `tpsim` command line.
//!
//! [`run`] is the whole program behind `main`: it takes the arguments and
//! the two output streams, and returns the exit status (0 success, 1 a run
//! or output failure, 2 a usage or scenario error), so the CLI can be
//! tested in-process. Only this crate touches files, the terminal and the
//! wall clock.

mod args;
mod batch;
mod calibrate;
mod compare;
mod host_model;
mod host_probe;
mod levels;
mod multics;
mod output;
mod page;
mod settings;

use anyhow::Context as _;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use output::{OutputDir, OutputFile};
use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;
use tpsim_models::summary::{ClassKind, StoppedBy};
use tpsim_models::system::{LifetimePoint, LoadSample, Observation, Policy, SetSizePoint};
use tpsim_models::{Run, Scenario, ScenarioError, Summary};
use tpsim_probe::analysis::{Index, LevelRow};
use tpsim_probe::report::count;

/// The exit status of a run stopped by SIGINT or SIGTERM (128 + SIGINT, as
/// shells report an interrupted command).
pub const EXIT_INTERRUPTED: i32 = 130;

/// The largest scenario file read \[bytes\]: a scenario is a few kilobytes,
/// and a path such as `/dev/zero` must not be read for ever.
pub const MAX_SCENARIO_BYTES: u64 = 4 << 20;

/// Set by the signal handler at the first SIGINT or SIGTERM.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// How many [`Listening`] stretches are under way.
static LISTENING: AtomicUsize = AtomicUsize::new(0);

/// The exit status when standard output is a pipe whose reader went
/// away: 128 + SIGPIPE, as a shell reports a command that signal ended.
pub const EXIT_BROKEN_PIPE: i32 = 141;

/// Makes SIGINT (Ctrl-C) and SIGTERM stop a command cleanly. Where it
/// checks for them often (a `Listening` stretch: a run, a batch or a
/// sweep, a comparison's runs, the probe) the first signal stops it at its
/// next check, and it writes what it measured, marked as interrupted;
/// anywhere else (reading its input, solving, writing) the first signal
/// ends the process at once. A second signal always ends it at once. It
/// says so on standard error without waiting for it, so a full pipe
/// there or a line held by the program cannot hold the signal up. Call
/// once, from `main`.
pub fn install_signal_handlers() -> anyhow::Result<()> {
    ctrlc::set_handler(|| {
        let first = !INTERRUPTED.swap(true, Ordering::SeqCst);
        if first && LISTENING.load(Ordering::SeqCst) > 0 {
            return;
        }
        end_at_once(if first {
            "tpsim: interrupted: stopped at once; nothing more is written\n"
        } else {
            "tpsim: a second signal: stopped at once; nothing more is written\n"
        })
    })
    .context("cannot install the handler for Ctrl-C")
}

/// Set by the first [`end_at_once`]: the process is ending.
static ENDING: AtomicBool = AtomicBool::new(false);

/// Set by the first caller of [`exit_once`].
static EXITING: AtomicBool = AtomicBool::new(false);

/// Ends the process with [`EXIT_INTERRUPTED`], saying `message` on
/// standard error if it can. The message goes straight to the file
/// descriptor, past the standard library's lock, which the command may
/// hold for as long as it runs; and only once the descriptor takes a
/// write without blocking (a pipe with a page free: a short message then
/// goes in whole at once). A watchdog ends the process a fifth of a
/// second on whatever happens to the write, since another thread may
/// fill the pipe between the poll and the write, and a reader that does
/// not read would then hold it up for ever.
fn end_at_once(message: &'static str) -> ! {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    if ENDING.swap(true, Ordering::SeqCst) {
        // Another thread is ending the process.
        loop {
            std::thread::park();
        }
    }
    const WAIT: std::time::Duration = std::time::Duration::from_millis(200);
    let _ = std::thread::Builder::new().spawn(|| {
        std::thread::sleep(WAIT);
        exit_once()
    });
    let stderr = rustix::stdio::stderr();
    let mut ready = [PollFd::from_borrowed_fd(stderr, PollFlags::OUT)];
    let wait = Timespec {
        tv_sec: 0,
        tv_nsec: WAIT.as_nanos() as i64,
    };
    if poll(&mut ready, Some(&wait)).is_ok_and(|n| n > 0)
        && ready[0].revents().contains(PollFlags::OUT)
    {
        let _ = rustix::io::write(stderr, message.as_bytes());
    }
    exit_once()
}

/// Exits with [`EXIT_INTERRUPTED`]; a second caller waits for the first's
/// exit (two threads may not run `exit` at once).
fn exit_once() -> ! {
    if EXITING.swap(true, Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
    std::process::exit(EXIT_INTERRUPTED)
}

/// A stretch of a command that checks for a signal often and reports what
/// it has when one comes: while one is held, the first SIGINT or SIGTERM
/// only asks the command to stop ([`going`](Self::going) turns false).
/// Commands check for a signal through it alone, and end the stretch as
/// soon as they stop checking. A signal that came after the stretch's
/// last check, which the command never saw, ends the process at once
/// when the stretch ends, as it would have a moment later.
pub(crate) struct Listening {
    /// Whether [`going`](Self::going) has told of a signal.
    seen: AtomicBool,
}

impl Listening {
    /// Starts listening; it ends when the value is dropped.
    pub(crate) fn start() -> Listening {
        LISTENING.fetch_add(1, Ordering::SeqCst);
        Listening {
            seen: AtomicBool::new(false),
        }
    }

    /// Whether the command may go on: no signal has come.
    pub(crate) fn going(&self) -> bool {
        let going = !INTERRUPTED.load(Ordering::SeqCst);
        if !going {
            self.seen.store(true, Ordering::SeqCst);
        }
        going
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        // Taken out first: a signal from here on ends the process in its
        // handler, and one before it is in the flag.
        LISTENING.fetch_sub(1, Ordering::SeqCst);
        if INTERRUPTED.load(Ordering::SeqCst) && !self.seen.load(Ordering::SeqCst) {
            end_at_once("tpsim: interrupted: stopped at once; nothing more is written\n");
        }
    }
}

/// Discrete-event simulation of time-sharing computer systems.
#[derive(Debug, Parser)]
#[command(
    name = "tpsim",
    version,
    about = "tpsim simulates the performance of time-sharing computer systems: terminal users with think times, processors scheduled by quanta, memory swapped or paged, disks as queues; and queueing networks checked against queueing theory.",
    long_about = "tpsim simulates the performance of time-sharing computer systems: terminal users with think times, processors scheduled by quanta, memory swapped or paged, disks as queues; and queueing networks checked against queueing theory.\n\nA scenario is a TOML file (docs/scenario-format.md). `tpsim run` simulates one and prints its tables; `batch` and `sweep` replicate it on all cores with confidence intervals; `analyze` and `compare` read a terminal probe's observations as the 1981 study did, and `probe` gathers them on this machine; `fault-times`, `capacity` and `attribute` apply the 1975 Multics report's algebra; `report` makes output sets one HTML page for a browser or paper."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Simulate a scenario and report what it measured.
    Run(RunArgs),
    /// Run independent replications of a scenario, on all cores, and put a
    /// Student-t interval on every measure.
    Batch(BatchArgs),
    /// Run a scenario over values of its keys, with replications at every
    /// point; with --out, its curves against one key as charts, with the
    /// closed model's bounds and MVA beside them, and their knees.
    Sweep(SweepArgs),
    /// Join the records of a batch's or a sweep's shards (`--shard I/N`)
    /// into the whole batch: the same table and files, byte for byte.
    Merge(batch::MergeArgs),
    /// Analyse terminal-probe observations per load level: median, mean,
    /// 75th and 90th percentiles of each benchmark's elapsed time, with an
    /// interval for the 75th.
    Analyze(AnalyzeArgs),
    /// Run two installations with their terminal probes on the same random
    /// numbers and compare their 75th percentiles per load level; either
    /// may be a probe.csv measured on a machine instead.
    Compare(CompareArgs),
    /// Split the processor time per page fault into its disk and
    /// bulk-store parts, f*td + (1-f)*tb = Tav, from readings of Tav and f
    /// (the 1975 Multics report's algebra): every pair solved, flagged when
    /// ill-conditioned, and a least-squares fit over all with residuals.
    FaultTimes(multics::FaultTimesArgs),
    /// Compare installations' delivered capacity, speed x fraction of
    /// processor time in useful work x processors (the 1975 Multics
    /// report's measure), from a table or from runs' summaries.
    Capacity(multics::CapacityArgs),
    /// Share a processor-time breakdown out between the disk and the bulk
    /// store as the 1975 Multics report does (its equations 2 to 4): page
    /// faults split by f*td and (1-f)*tb, getwork, interrupts and MP idle
    /// to the disk, segment faults to the bulk store, and the useful work
    /// projected with the bulk store replaced by memory.
    Attribute(multics::AttributeArgs),
    /// Make one self-contained HTML page of output sets (the DIR given to
    /// --out of run, batch, sweep, merge, analyze or compare): what was
    /// run, the notes, every table and every chart, for a browser or paper.
    Report(page::ReportArgs),
    /// Write a scenario of a host measured by `tpsim probe`: its
    /// benchmarks' demands, its load ramp, its other work and its probe's
    /// sleep from the probe table, every value's origin in a comment.
    Model(host_model::ModelArgs),
    /// Fit a model's keys to a measured probe table: run the model at
    /// every combination of the values given on common random numbers, and
    /// report the values whose 75th percentiles come closest, with their
    /// intervals over replications, or why the data cannot tell them.
    Calibrate(calibrate::CalibrateArgs),
    /// Run the 1981 terminal probe on this machine: before each benchmark
    /// sample the load (users logged in, user processes, processes
    /// runnable, load averages, free memory), run it through the shell and
    /// time it; then sleep. Writes the probe.csv `tpsim analyze` reads.
    Probe(host_probe::ProbeArgs),
    /// A load ramp's worker, started by `tpsim probe --ramp`: runs until it
    /// is stopped.
    #[command(hide = true)]
    ProbeWorker(host_probe::WorkerArgs),
    /// Check a scenario for errors without running it.
    Check {
        /// The scenario file (TOML).
        scenario: PathBuf,
        #[command(flatten)]
        set: settings::SetArgs,
    },
    /// Solve a closed scenario exactly by Mean Value Analysis, for every
    /// population from 1 to its number of terminals (a time-sharing system
    /// as if its memory were never short).
    Mva {
        /// The scenario file (TOML): one closed class, single-server or
        /// delay stations.
        scenario: PathBuf,
        /// Solve up to this population instead of the scenario's terminals.
        #[arg(long, value_name = "N", value_parser = crate::args::population)]
        population: Option<u32>,
        /// Print the solution as JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, clap::Args)]
struct BatchArgs {
    /// The scenario file (TOML).
    scenario: PathBuf,
    #[command(flatten)]
    set: settings::SetArgs,
    #[command(flatten)]
    replications: batch::ReplicationArgs,
}

#[derive(Debug, clap::Args)]
struct SweepArgs {
    /// The scenario file (TOML).
    scenario: PathBuf,
    /// A key by its path in the scenario and its values: a list
    /// (`memory.size=256KiB,512KiB,1MiB`) or an inclusive range
    /// (`users.terminals=1..40`, `system.quantum=50ms..200ms:50ms`);
    /// elements of arrays of tables by name or position (`class[cc].size`).
    /// Repeat for a product of keys, the last varying fastest.
    #[arg(long = "set", required = true, value_name = "KEY=VALUES")]
    sets: Vec<String>,
    /// The swept key to draw the curves against; the other keys' values
    /// make one curve each. By default the one key of several numeric
    /// values (a key of one value is a constant), or of several such keys
    /// the closed model's population; a sweep with no way to choose is
    /// refused, naming the keys.
    #[arg(long = "x", value_name = "KEY")]
    x: Option<String>,
    #[command(flatten)]
    replications: batch::ReplicationArgs,
}

#[derive(Debug, clap::Args)]
struct AnalyzeArgs {
    /// An observation table: a run's probe.csv, a machine's (`tpsim
    /// probe`), or any CSV with the columns benchmark, phase, users,
    /// processes and elapsed_s, and the --by column.
    table: PathBuf,
    #[command(flatten)]
    levels: levels::LevelArgs,
    /// The relative half-width wanted for the 75th percentile, for the
    /// observations still needed.
    #[arg(long, default_value_t = 0.1)]
    precision: f64,
    /// Directory to write analysis.csv and, per benchmark, its chart of
    /// four curves (BENCHMARK-by-INDEX.svg and .png) into (created if
    /// missing).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    html: HtmlArgs,
    /// Print the analysis as JSON instead of tables.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
struct CompareArgs {
    /// The first installation: a time-sharing scenario with a [probe], or
    /// a measured observation table (a .csv: the probe.csv of `tpsim
    /// probe`).
    a: PathBuf,
    /// The second installation, a scenario (run on the same random numbers
    /// as the first, if it is one too) or a measured table. A --set applies
    /// to each side that is a scenario.
    b: PathBuf,
    /// Independent replications of each; with two or more the intervals
    /// come from them, else from a bootstrap of one run's observations.
    #[arg(long, default_value_t = 1, value_name = "R", value_parser = crate::args::replications)]
    replications: u64,
    #[command(flatten)]
    runs: compare::ProbeRunArgs,
    /// Directory to write comparison.csv and, per benchmark, the chart of
    /// both 75th percentiles (BENCHMARK-p75-by-INDEX.svg and .png) into.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    html: HtmlArgs,
    /// Print the comparison as JSON instead of tables.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
struct RunArgs {
    /// The scenario file (TOML).
    scenario: PathBuf,
    /// Master seed; overrides the scenario's `seed`.
    #[arg(long, value_parser = crate::args::seed)]
    seed: Option<u64>,
    /// Directory to write the run's files into (created if missing):
    /// summary.json, stations.csv and classes.csv; for a time-sharing
    /// system load.csv; with a probe, probe.csv; under paging,
    /// set_sizes.csv; with memory as frames, lifetime.csv, lifetime.svg and
    /// lifetime.png. Written as one set, with its manifest .tpsim-files.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    html: HtmlArgs,
    /// Print the summary as JSON on standard output instead of tables.
    #[arg(long)]
    json: bool,
    /// Run without the scenario's terminal probe, to see its effect.
    #[arg(long)]
    no_probe: bool,
    #[command(flatten)]
    set: settings::SetArgs,
}

/// `--html` on the commands that write an output set.
#[derive(Debug, Default, clap::Args)]
pub(crate) struct HtmlArgs {
    /// Also write report.html into --out: the set as one self-contained
    /// page, with the command line, the scenario's text, every table and
    /// every chart (`tpsim report` makes one later from the files).
    #[arg(long, requires = "out")]
    pub(crate) html: bool,
    /// The command line, which the page records.
    #[arg(skip)]
    pub(crate) line: String,
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
    let mut out = StandardOutput::new(stdout);
    let status = command(args, &mut out, stderr);
    match out.finish() {
        Ok(()) => status,
        // A reader that went away (`tpsim run x | head`): as a program
        // that SIGPIPE ended, silent, but not a success.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            if status == 0 {
                EXIT_BROKEN_PIPE
            } else {
                status
            }
        }
        Err(e) => {
            let _ = writeln!(stderr, "tpsim: cannot write to standard output: {e}");
            if status == 0 { 1 } else { status }
        }
    }
}

/// Standard output as the commands write to it: the first failure is kept
/// and what follows is dropped, so that a command whose output cannot be
/// printed (a closed pipe, a full disk) still does the rest of its work,
/// such as writing its files; [`run`] reports the failure at the end.
struct StandardOutput<'a> {
    inner: &'a mut dyn Write,
    failed: Option<io::Error>,
}

impl<'a> StandardOutput<'a> {
    fn new(inner: &'a mut dyn Write) -> StandardOutput<'a> {
        StandardOutput {
            inner,
            failed: None,
        }
    }

    /// Flushes what is buffered; the first failure, if any.
    fn finish(mut self) -> io::Result<()> {
        let _ = self.flush();
        self.failed.map_or(Ok(()), Err)
    }

    /// Keeps the first failure; a write interrupted by a signal is tried
    /// again by `write_all`, so it is no failure.
    fn keep(&mut self, e: io::Error) -> io::Result<()> {
        if e.kind() == io::ErrorKind::Interrupted {
            return Err(e);
        }
        self.failed.get_or_insert(e);
        Ok(())
    }
}

impl Write for StandardOutput<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.failed.is_some() {
            return Ok(buf.len());
        }
        match self.inner.write(buf) {
            Err(e) => self.keep(e).map(|()| buf.len()),
            written => written,
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.failed.is_some() {
            return Ok(());
        }
        match self.inner.flush() {
            Err(e) => self.keep(e),
            flushed => flushed,
        }
    }
}

/// [`run`] but for what becomes of standard output.
fn command<I, T>(args: I, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let line = page::command_line(&args);
    // A negative number is taken as a value, so that the option's own
    // reader says what it allows (none takes a negative number).
    let command = Cli::command()
        .allow_negative_numbers(true)
        .mut_subcommands(|c| c.allow_negative_numbers(true));
    let parsed = command
        .try_get_matches_from(args)
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version are what was asked for: standard output.
            // Plain text, without colour codes, wherever it goes.
            let text = e.render().to_string();
            return if e.use_stderr() {
                let _ = write!(stderr, "{text}");
                2
            } else {
                let _ = write!(stdout, "{text}");
                0
            };
        }
    };
    let outcome = match cli.command {
        Command::Run(mut args) => {
            args.html.line = line;
            run_scenario(&args, stdout, stderr)
        }
        Command::Batch(mut args) => {
            args.replications.html.line = line;
            batch::batch(
                &args.scenario,
                &args.set.sets,
                &[],
                None,
                &args.replications,
                stdout,
                stderr,
            )
        }
        Command::Sweep(mut args) => {
            args.replications.html.line = line;
            batch::batch(
                &args.scenario,
                &[],
                &args.sets,
                args.x.as_deref(),
                &args.replications,
                stdout,
                stderr,
            )
        }
        Command::Merge(mut args) => {
            args.html.line = line;
            batch::merge(&args, stdout, stderr)
        }
        Command::Analyze(mut args) => {
            args.html.line = line;
            analyze(&args, stdout, stderr)
        }
        Command::Compare(mut args) => {
            args.html.line = line;
            compare::compare(&args, stdout, stderr)
        }
        Command::Report(args) => page::report(&args, stdout),
        Command::Model(args) => host_model::model(&args, stdout),
        Command::Calibrate(args) => calibrate::calibrate(&args, stdout, stderr),
        Command::FaultTimes(args) => multics::fault_times(&args, stdout),
        Command::Capacity(args) => multics::capacity(&args, stdout),
        Command::Attribute(args) => multics::attribute_time(&args, stdout),
        Command::Probe(args) => host_probe::probe(&args, stderr),
        Command::ProbeWorker(args) => host_probe::worker(&args),
        Command::Check { scenario, set } => check(&scenario, &set.sets, stdout, stderr),
        Command::Mva {
            scenario,
            population,
            json,
        } => mva(&scenario, population, json, stdout),
    };
    match outcome {
        Ok(Finished::Whole) => 0,
        Ok(Finished::Interrupted) => EXIT_INTERRUPTED,
        Err(Failure::Input(e)) => report(stderr, &e, 2),
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
        let _ = writeln!(stderr, "tpsim: {}", clipped(line));
    }
    status
}

/// The longest line of a message printed whole \[characters\]; longer
/// ones (a value echoed from a file that is one long line) are cut.
const LONGEST_MESSAGE_LINE: usize = 400;

/// `line`, cut to [`LONGEST_MESSAGE_LINE`] characters with a note of its
/// length if it is longer.
fn clipped(line: &str) -> std::borrow::Cow<'_, str> {
    let length = line.chars().count();
    if length <= LONGEST_MESSAGE_LINE {
        return line.into();
    }
    let kept: String = line.chars().take(LONGEST_MESSAGE_LINE).collect();
    format!("{kept}... ({length} characters in all)").into()
}

/// How a command that did its work ended.
enum Finished {
    /// All of it.
    Whole,
    /// A run stopped early by a signal; its partial results were reported.
    Interrupted,
}

/// Reads a scenario file, at most [`MAX_SCENARIO_BYTES`] of it.
fn read_scenario(path: &Path) -> Result<String, Failure> {
    let name = path.display();
    let file = std::fs::File::open(path)
        .with_context(|| format!("cannot read scenario {name}"))
        .map_err(Failure::Input)?;
    let mut bytes = Vec::new();
    file.take(MAX_SCENARIO_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read scenario {name}"))
        .map_err(Failure::Input)?;
    if bytes.len() as u64 > MAX_SCENARIO_BYTES {
        return Err(Failure::Input(anyhow::anyhow!(
            "{name}: a scenario file may be at most {} MiB; this one is larger",
            MAX_SCENARIO_BYTES >> 20
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        Failure::Input(anyhow::anyhow!(
            "{name}: not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Checks a `--level` option: a confidence level lies between 0 and 1.
fn check_level(level: f64) -> Result<(), String> {
    if level > 0.0 && level < 1.0 {
        Ok(())
    } else {
        Err(format!(
            "--level: must lie between 0 and 1, got {}",
            tpsim_models::units::Figure(level)
        ))
    }
}

fn check(
    path: &Path,
    sets: &[String],
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<Finished, Failure> {
    let settings = settings::parse_one_each(sets, None)?;
    let (what, notes) = match settings::load(path, &settings)? {
        Scenario::Network(net) => (
            format!(
                "{}, {}",
                count(net.classes.len(), "class", "classes"),
                count(net.stations.len(), "station", "stations")
            ),
            Vec::new(),
        ),
        Scenario::System(sys) => (
            format!(
                "time-sharing system, {} memory, {}, {}",
                match sys.memory.policy {
                    tpsim_models::system::Policy::Swapping { .. } => "swapping",
                    tpsim_models::system::Policy::Paging(_) => "paging",
                },
                count(sys.classes.len(), "command class", "command classes"),
                count(sys.devices.len(), "device", "devices")
            ),
            sys.notes(),
        ),
    };
    writeln!(stdout, "{}: ok: {what}", settings::shown(path, sets))
        .map_err(|e| Failure::Run(e.into()))?;
    for note in notes {
        let _ = writeln!(stderr, "tpsim: note: {}: {note}", path.display());
    }
    Ok(Finished::Whole)
}

/// The largest population `tpsim mva` solves for: the solution has a row
/// per population.
pub const MAX_MVA_POPULATION: u32 = 1_000_000;

fn mva(
    path: &Path,
    population: Option<u32>,
    as_json: bool,
    stdout: &mut dyn Write,
) -> Result<Finished, Failure> {
    use tpsim_models::analytic::ClosedModel;
    let scenario = settings::load(path, &[])?;
    let model = match &scenario {
        Scenario::Network(net) => ClosedModel::of(net),
        Scenario::System(sys) => ClosedModel::of_system(sys),
    }
    .with_context(|| format!("{}", path.display()))
    .map_err(Failure::Input)?;
    let population = population.unwrap_or(model.terminals);
    if !(1..=MAX_MVA_POPULATION).contains(&population) {
        return Err(Failure::Input(anyhow::anyhow!(
            "--population: must be between 1 and {MAX_MVA_POPULATION} (the solution has a row per population), got {population}"
        )));
    }
    let points = model.solve(population);
    emit(
        stdout,
        as_json,
        || serde_json::json!({ "scenario": scenario.settings().name, "model": model, "points": points }),
        || tpsim_probe::report::mva_table(&model, &points),
    )
}

fn run_scenario(
    args: &RunArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<Finished, Failure> {
    let settings = settings::parse_one_each(&args.set.sets, args.seed)?;
    let mut scenario = settings::load(&args.scenario, &settings)?;
    if let Some(seed) = args.seed {
        scenario.settings_mut().seed = seed;
    }
    if args.no_probe
        && let Scenario::System(sys) = &mut scenario
    {
        sys.probe = None;
    }
    // Checked before the run, so that a long run is never lost to it.
    let out = open_out(args.out.as_deref(), &[&args.scenario])?;
    let started = Instant::now();
    let Run {
        mut summary,
        load,
        observations,
        lifetime,
        set_sizes,
        ..
    } = run_with_progress(&scenario);
    summary.wall_seconds = started.elapsed().as_secs_f64();
    let files = match &out {
        Some(_) => {
            let outputs = Outputs {
                load: &load,
                observations: &observations,
                lifetime: &lifetime,
                set_sizes: &set_sizes,
            };
            let files = output_files(&summary, &scenario, &outputs).map_err(Failure::Run)?;
            with_page(files, out.as_ref(), &args.html, &[&args.scenario])?
        }
        None => Vec::new(),
    };
    let text = if args.json {
        json(&summary)
    } else {
        tpsim_probe::report::table(&summary)
    };
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| Failure::Run(e.into()))?;
    // After the tables, so that a full disk does not cost them.
    publish(out.as_ref(), &files)?;
    notes(&summary, &args.scenario, stderr);
    ending(&summary, scenario.settings().warmup, &args.scenario, stderr)
}

/// Runs `scenario` with a progress bar on standard error (drawn only when
/// it is a terminal), stopping when a signal comes.
fn run_with_progress(scenario: &Scenario) -> Run {
    let bar = ProgressBar::with_draw_target(
        Some(scenario.settings().end_time.as_nanos() / 1_000_000),
        ProgressDrawTarget::stderr(),
    );
    // With an event limit the run may end long before its end time: no
    // percentage or time left that the limit would make wrong.
    let template = if scenario.settings().max_events.is_some() {
        "{spinner} {pos} ms simulated (run.max_events may end the run first), {elapsed} elapsed"
    } else {
        "{bar:40} {percent:>3}% of simulated time, {elapsed} elapsed, ETA {eta}"
    };
    bar.set_style(ProgressStyle::with_template(template).expect("the template is valid"));
    let listening = Listening::start();
    let progress = |now: tpsim_models::SimTime| {
        bar.set_position(now.as_nanos() / 1_000_000);
        listening.going()
    };
    let run = scenario.run(0, progress);
    drop(listening);
    bar.finish_and_clear();
    run
}

/// The notes a completed run of `scenario` leaves on standard error:
/// commands that could not run, and a run that completed nothing.
fn notes(summary: &Summary, scenario: &Path, stderr: &mut dyn Write) {
    for c in &summary.classes {
        if let Some(rejected) = c.rejected.filter(|&r| r > 0) {
            let note = tpsim_probe::report::rejected_note(
                rejected,
                c.kind == ClassKind::Background,
                &c.name,
            );
            let _ = writeln!(stderr, "tpsim: note: {note}");
        }
    }
    // A run stopped early has its own note.
    if summary.stopped_by == StoppedBy::EndTime
        && let Some(note) = nothing_completed(summary)
    {
        let _ = writeln!(stderr, "tpsim: note: {}: {note}", scenario.display());
    }
}

/// How a run of `scenario`, with the warm-up it was configured with,
/// ended: whole, interrupted (said on standard error), or a failure.
fn ending(
    summary: &Summary,
    configured_warmup: tpsim_models::SimTime,
    scenario: &Path,
    stderr: &mut dyn Write,
) -> Result<Finished, Failure> {
    let name = scenario.display();
    let sim_time = summary.sim_time;
    match summary.stopped_by {
        StoppedBy::EndTime => Ok(Finished::Whole),
        StoppedBy::Interrupted => {
            let note = tpsim_probe::report::interrupted_note(sim_time);
            let _ = writeln!(stderr, "tpsim: {note}");
            Ok(Finished::Interrupted)
        }
        StoppedBy::EventLimit => {
            let before_warmup = sim_time < configured_warmup.as_secs_f64();
            let note = tpsim_probe::report::event_limit_note(sim_time, before_warmup);
            let _ = writeln!(stderr, "tpsim: note: {name}: {note}");
            Ok(Finished::Whole)
        }
        StoppedBy::Stalled => Err(Failure::Run(anyhow::anyhow!(
            "{name}: {}",
            tpsim_probe::report::stalled_note(
                sim_time,
                summary.stalled_on.as_deref().unwrap_or("?")
            )
        ))),
    }
}

/// Says why a run may have completed no job or command (after its
/// warm-up), if it completed none (`tpsim_probe::report::nothing_completed`).
fn nothing_completed(summary: &Summary) -> Option<String> {
    let classes: Vec<(bool, u64)> = summary
        .classes
        .iter()
        .map(|c| (c.kind == ClassKind::Background, c.completions))
        .collect();
    let stations: Vec<(&str, f64)> = summary
        .stations
        .iter()
        .map(|s| (s.name.as_str(), s.utilization))
        .collect();
    tpsim_probe::report::nothing_completed(
        &classes,
        &stations,
        summary.cpu.as_ref().map(|c| c.idle),
        summary.probe.as_ref().map_or(0, |p| p.observations),
        summary.sim_time,
    )
}

/// The largest table (observations, readings, a summary) a command reads.
pub const MAX_TABLE_BYTES: u64 = 1 << 30;

/// The text of the table at `path`, `what` naming it in errors: an input
/// failure if it cannot be read.
fn read_table(path: &Path, what: &str) -> Result<String, Failure> {
    output::check_input(path).map_err(|e| Failure::Input(anyhow::anyhow!(e)))?;
    let name = path.display();
    let file = std::fs::File::open(path)
        .with_context(|| format!("cannot read {what} {name}"))
        .map_err(Failure::Input)?;
    let mut text = String::new();
    file.take(MAX_TABLE_BYTES)
        .read_to_string(&mut text)
        .with_context(|| format!("cannot read {what} {name} as UTF-8 text"))
        .map_err(Failure::Input)?;
    Ok(text)
}

fn analyze(
    args: &AnalyzeArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<Finished, Failure> {
    let input = |message: String| Failure::Input(anyhow::anyhow!(message));
    let options = args.levels.options(args.precision)?;
    let name = args.table.display();
    let samples = levels::observations(&args.table, options.index, stderr)?.samples;
    if !options.include_warmup && samples.iter().all(|s| !s.measured) {
        return Err(input(format!(
            "{name}: every observation started during the warm-up; pass --include-warmup to count them"
        )));
    }
    let rows = tpsim_probe::analysis::analyze(&samples, &options);
    if args.out.is_some() {
        levels::check_curves(
            &name.to_string(),
            rows.iter().map(|r| (r.benchmark.as_str(), r.level)),
            &levels::levels(&samples, &options),
            &options,
        )?;
    }
    // Checked before the work, so that nothing is written for a bad one.
    let out = open_out(args.out.as_deref(), &[&args.table])?;
    let mut files = Vec::new();
    if out.is_some() {
        files.push((
            "analysis.csv".to_string(),
            tpsim_probe::report::analysis_csv(&rows).into_bytes(),
        ));
        files.extend(analysis_charts(&rows, options.index, options.level).map_err(Failure::Run)?);
        files = with_page(files, out.as_ref(), &args.html, &[])?;
    }
    let finished = emit(
        stdout,
        args.json,
        || serde_json::json!({ "table": name.to_string(), "index": options.index, "rows": rows }),
        || tpsim_probe::report::analysis_table(&rows, &options),
    )?;
    publish(out.as_ref(), &files)?;
    Ok(finished)
}

/// Opens the output directory, if one was asked for: before any work, so
/// that a bad one costs nothing and nothing is written. A directory where
/// the new files would replace one of `inputs` is refused.
fn open_out(dir: Option<&Path>, inputs: &[&Path]) -> Result<Option<OutputDir>, Failure> {
    dir.map(|dir| OutputDir::open(dir, inputs))
        .transpose()
        .map_err(Failure::Input)
}

/// `files` with the set's report page among them if `--html` asks for one
/// (with the text of the scenarios read from `scenarios`) and there is an
/// output directory.
pub(crate) fn with_page(
    mut files: Vec<OutputFile>,
    out: Option<&OutputDir>,
    html: &HtmlArgs,
    scenarios: &[&Path],
) -> Result<Vec<OutputFile>, Failure> {
    if let (Some(out), true) = (out, html.html) {
        let origin = page::origin(&html.line, scenarios)?;
        let page = page::page_file(out.path(), &files, origin).map_err(Failure::Run)?;
        files.push(page);
    }
    Ok(files)
}

/// Writes `files` into `out` as one set, if there is an output directory.
/// Called once the results are on the terminal, so that a failure here
/// (a full disk) loses nothing else.
fn publish(out: Option<&OutputDir>, files: &[OutputFile]) -> Result<(), Failure> {
    match out {
        Some(out) => out.publish(files).map_err(Failure::Run),
        None => Ok(()),
    }
}

/// Writes what a command found: `value` as JSON if `as_json`, else
/// `table`.
fn emit(
    stdout: &mut dyn Write,
    as_json: bool,
    value: impl FnOnce() -> serde_json::Value,
    table: impl FnOnce() -> String,
) -> Result<Finished, Failure> {
    let text = if as_json {
        let mut text = serde_json::to_string_pretty(&value()).expect("results always serialise");
        text.push('\n');
        text
    } else {
        table()
    };
    stdout
        .write_all(text.as_bytes())
        .map_err(|e| Failure::Run(e.into()))?;
    Ok(Finished::Whole)
}

fn json(summary: &Summary) -> String {
    let mut text = serde_json::to_string_pretty(summary).expect("a summary always serialises");
    text.push('\n');
    text
}

/// What a time-sharing run records beside its summary.
struct Outputs<'a> {
    load: &'a [LoadSample],
    observations: &'a [Observation],
    lifetime: &'a [LifetimePoint],
    set_sizes: &'a [SetSizePoint],
}

/// Every output file of a run, name and contents: a time-sharing system
/// adds its load samples, its probe's observations if it has a probe,
/// under paging its set-size distributions, and its measured lifetime
/// function (CSV and chart) with memory as frames.
fn output_files(
    summary: &Summary,
    scenario: &Scenario,
    outputs: &Outputs,
) -> anyhow::Result<Vec<OutputFile>> {
    let mut texts = vec![
        ("summary.json", json(summary)),
        ("stations.csv", tpsim_probe::report::stations_csv(summary)),
        ("classes.csv", tpsim_probe::report::classes_csv(summary)),
    ];
    let mut frames = false;
    if let Scenario::System(sys) = scenario {
        texts.push(("load.csv", tpsim_probe::report::load_csv(outputs.load)));
        if sys.probe.is_some() {
            texts.push((
                "probe.csv",
                tpsim_probe::report::probe_csv(outputs.observations),
            ));
        }
        if matches!(&sys.memory.policy, Policy::Paging(_)) {
            texts.push((
                "set_sizes.csv",
                tpsim_probe::report::set_sizes_csv(outputs.set_sizes),
            ));
        }
        frames =
            matches!(&sys.memory.policy, Policy::Paging(p) if p.replacement.daemon().is_some());
        if frames {
            texts.push((
                "lifetime.csv",
                tpsim_probe::report::lifetime_csv(outputs.lifetime),
            ));
        }
    }
    let mut files: Vec<OutputFile> = texts
        .into_iter()
        .map(|(name, text)| (name.to_string(), text.into_bytes()))
        .collect();
    if frames {
        let chart = tpsim_probe::plot::lifetime_chart(outputs.lifetime);
        files.extend(chart_files("lifetime", &chart)?);
    }
    Ok(files)
}

/// The charts of an analysis, for each benchmark its four curves against
/// the load, as SVG and PNG.
fn analysis_charts(rows: &[LevelRow], index: Index, level: f64) -> anyhow::Result<Vec<OutputFile>> {
    let mut files = Vec::new();
    let mut benchmarks: Vec<&str> = rows.iter().map(|r| r.benchmark.as_str()).collect();
    benchmarks.dedup();
    for benchmark in benchmarks {
        let chart = tpsim_probe::plot::four_curves(rows, benchmark, index, level);
        let stem = format!("{}-by-{}", file_stem(benchmark), index.name());
        files.extend(chart_files(&stem, &chart)?);
    }
    Ok(files)
}

/// A chart as `STEM.svg` and `STEM.png`.
pub(crate) fn chart_files(
    stem: &str,
    chart: &tpsim_probe::plot::Chart,
) -> anyhow::Result<Vec<OutputFile>> {
    let failed = |e: String| anyhow::anyhow!("cannot draw {stem}: {e}");
    let svg = tpsim_probe::plot::svg(chart).map_err(failed)?;
    let png = tpsim_probe::plot::png(chart).map_err(failed)?;
    Ok(vec![
        (format!("{stem}.svg"), svg.into_bytes()),
        (format!("{stem}.png"), png),
    ])
}

/// A benchmark's or a measure's name as part of a file name: letters, digits, `.`, `-`
/// and `_` kept, anything else made `_`.
pub(crate) fn file_stem(name: &str) -> String {
    let stem: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    stem.trim_start_matches('.').to_string()
}
