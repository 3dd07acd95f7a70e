//! `tpsim probe`: the 1981 terminal probe run on the machine itself.
//!
//! Each cycle, before each benchmark, the probe samples the load indices
//! of the study from `/proc` and utmp (`tpsim_probe::host` makes the
//! indices of what is read), runs the benchmark through `/bin/sh -c` with
//! its input and output on `/dev/null`, and records its elapsed time (the
//! monotonic clock, from just before the shell is started to just after
//! it is waited for) and its user and system time: the difference of
//! `getrusage(RUSAGE_CHILDREN)` across the wait, exact because the probe
//! waits for one child at a time and reaps the ramp's workers only
//! between benchmarks. Then it sleeps until the next cycle.
//!
//! Every row goes to `probe.csv` as soon as it is made and the file is
//! flushed, so a signal (SIGINT, SIGTERM) loses nothing recorded: the
//! benchmark running is killed with its process group and recorded as
//! interrupted. A benchmark that fails, or passes its timeout (killed), is
//! recorded with its status, never dropped.
//!
//! A ramp starts background workers in steps (each step a number of them,
//! held for a time), so that the benchmarks meet a range of loads within
//! minutes. The workers are this program run as `tpsim probe-worker`,
//! processes of the user like any other, and the user-process index
//! counts them. Steps change between benchmarks only.

use crate::{Failure, Finished, Listening};
use anyhow::{Context as _, anyhow};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Deserialize;
use std::fs::{File, OpenOptions};
use std::io::{Read as _, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};
use tpsim_models::system::MOST_WORKERS;
use tpsim_models::units::{Bytes, Figure, Seconds, parse_duration};
use tpsim_probe::host::{self, HostObservation, Outcome, UsersFrom};

/// How often the probe looks for a signal or a timeout while it waits.
const LOOK: Duration = Duration::from_millis(20);

/// Where utmp is looked for, in order.
const UTMP: [&str; 2] = ["/run/utmp", "/var/run/utmp"];

/// The most benchmarks.
const MOST_BENCHMARKS: usize = 1_000;

#[derive(Debug, clap::Args)]
pub(crate) struct ProbeArgs {
    /// A benchmark: its name, `=`, and the command the shell runs
    /// (`--bench 'cc=cc -c hello.c'`). Repeat for several, run in turn in
    /// each cycle.
    #[arg(long = "bench", value_name = "NAME=COMMAND")]
    benches: Vec<String>,
    /// A TOML file of the same settings (docs/host-probe.md); a flag given
    /// as well overrides its key.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The sleep from the end of a cycle to the start of the next
    /// (`30s`, `10min`).
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true)]
    sleep: Option<String>,
    /// How long to gather: no cycle starts after this.
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true)]
    duration: Option<String>,
    /// The directory probe.csv is written into (created if missing).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// A benchmark still running after this is killed and recorded as
    /// timed out (default 10min).
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true)]
    timeout: Option<String>,
    /// Run the probe and its benchmarks at this `nice` value, -20 to 19
    /// (default: as started, an ordinary user process's priority).
    #[arg(long, value_name = "N")]
    nice: Option<i32>,
    /// The least user id counted as an ordinary user's (default 1000).
    #[arg(long, value_name = "UID")]
    min_uid: Option<u32>,
    /// Truncate elapsed, user and system times to a whole multiple of this,
    /// as `time` reported whole seconds (default: to the nanosecond).
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true)]
    resolution: Option<String>,
    /// Add to DIR/probe.csv if it exists (its header must be the probe's)
    /// instead of refusing to touch it.
    #[arg(long)]
    append: bool,
    /// A load ramp, KIND:N1,N2,...@HOLD: workers of KIND (cpu, memory or
    /// files) started and stopped so that N1 run for HOLD, then N2, and so
    /// on, the last held to the end (`cpu:0,2,4@1min`).
    #[arg(long, value_name = "RAMP")]
    ramp: Option<String>,
}

/// The `--config` file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    benchmarks: Vec<BenchFile>,
    sleep: Option<Seconds>,
    duration: Option<Seconds>,
    out: Option<PathBuf>,
    timeout: Option<Seconds>,
    nice: Option<i32>,
    min_uid: Option<u32>,
    resolution: Option<Seconds>,
    ramp: Option<RampFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BenchFile {
    name: String,
    command: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RampFile {
    kind: String,
    workers: Vec<u32>,
    hold: Seconds,
    #[serde(default)]
    size: Option<Bytes>,
}

/// A benchmark: a name and a shell command.
#[derive(Clone, Debug)]
struct Bench {
    name: String,
    command: String,
}

/// What a ramp's workers do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WorkerKind {
    /// Loop on the processor.
    Cpu,
    /// Touch a block of memory of the ramp's size, page by page, over and
    /// over.
    Memory,
    /// Read the `tpsim` program's own file over and over (from the page
    /// cache once it is there: a load of system time, not of the disk).
    Files,
}

impl WorkerKind {
    fn parse(text: &str) -> Result<WorkerKind, String> {
        match text {
            "cpu" => Ok(WorkerKind::Cpu),
            "memory" => Ok(WorkerKind::Memory),
            "files" => Ok(WorkerKind::Files),
            other => Err(format!(
                "unknown worker kind \"{other}\": expected cpu, memory or files"
            )),
        }
    }

    fn name(self) -> &'static str {
        match self {
            WorkerKind::Cpu => "cpu",
            WorkerKind::Memory => "memory",
            WorkerKind::Files => "files",
        }
    }
}

/// A load ramp: a number of workers per step, each step held for `hold`.
#[derive(Clone, Debug)]
struct Ramp {
    kind: WorkerKind,
    steps: Vec<u32>,
    hold: Duration,
    /// The memory each memory worker touches \[bytes\].
    size: u64,
}

/// The default size of a memory or files worker's block.
const WORKER_BYTES: u64 = 64 << 20;

/// A probe's settings, checked.
#[derive(Debug)]
struct Settings {
    benches: Vec<Bench>,
    sleep: Duration,
    duration: Duration,
    out: PathBuf,
    timeout: Duration,
    nice: Option<i32>,
    min_uid: u32,
    resolution: Option<Duration>,
    append: bool,
    ramp: Option<Ramp>,
}

/// A duration > 0 from a flag's or a key's text or value.
fn positive(seconds: Seconds, what: &str) -> Result<Duration, String> {
    if seconds.0.is_finite() && seconds.0 > 0.0 && seconds.0 < 1e9 {
        Ok(Duration::from_secs_f64(seconds.0))
    } else {
        Err(format!(
            "{what}: must be a duration > 0 (and under 10^9 s), got {} s",
            Figure(seconds.0)
        ))
    }
}

/// A flag's duration: parsed, then > 0.
fn flag_duration(text: &str, flag: &str) -> Result<Duration, String> {
    let seconds = parse_duration(text).map_err(|e| format!("{flag}: {e}"))?;
    positive(seconds, flag)
}

/// `NAME=COMMAND`.
fn bench(text: &str) -> Result<Bench, String> {
    let (name, command) = text
        .split_once('=')
        .ok_or_else(|| format!("--bench: \"{text}\" has no `=`: give NAME=COMMAND"))?;
    checked_bench(name, command, "--bench")
}

fn checked_bench(name: &str, command: &str, what: &str) -> Result<Bench, String> {
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("{what}: a benchmark needs a name"));
    }
    tpsim_models::names::check(name).map_err(|why| format!("{what}: {why}"))?;
    if name.contains(',') || name.contains('"') {
        return Err(format!(
            "{what}: the name \"{name}\" may not hold a comma or a quote"
        ));
    }
    if command.trim().is_empty() {
        return Err(format!("{what}: benchmark {name} has an empty command"));
    }
    Ok(Bench {
        name: name.to_string(),
        command: command.to_string(),
    })
}

/// `KIND:N1,N2,...@HOLD`.
fn ramp(text: &str) -> Result<Ramp, String> {
    let bad =
        || format!("--ramp: \"{text}\" is not KIND:N1,N2,...@HOLD (for example cpu:0,2,4@1min)");
    let (kind, rest) = text.split_once(':').ok_or_else(bad)?;
    let (steps, hold) = rest.split_once('@').ok_or_else(bad)?;
    let kind = WorkerKind::parse(kind.trim()).map_err(|e| format!("--ramp: {e}"))?;
    let steps = steps
        .split(',')
        .map(|n| n.trim().parse::<u32>().map_err(|_| bad()))
        .collect::<Result<Vec<_>, _>>()?;
    checked_ramp(
        kind,
        steps,
        flag_duration(hold.trim(), "--ramp")?,
        WORKER_BYTES,
        "--ramp",
    )
}

fn checked_ramp(
    kind: WorkerKind,
    steps: Vec<u32>,
    hold: Duration,
    size: u64,
    what: &str,
) -> Result<Ramp, String> {
    if steps.is_empty() {
        return Err(format!("{what}: a ramp needs at least one step"));
    }
    if let Some(n) = steps.iter().find(|&&n| n > MOST_WORKERS) {
        return Err(format!(
            "{what}: {n} workers in a step; at most {MOST_WORKERS}"
        ));
    }
    if size == 0 {
        return Err(format!("{what}: a worker's size must be > 0"));
    }
    Ok(Ramp {
        kind,
        steps,
        hold,
        size,
    })
}

impl Settings {
    /// The settings of the flags over those of the `--config` file.
    fn of(args: &ProbeArgs) -> Result<Settings, String> {
        let config = match &args.config {
            Some(path) => read_config(path)?,
            None => ConfigFile::default(),
        };
        let file = args
            .config
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let key = |k: &str| format!("{file}: {k}");
        let benches = if args.benches.is_empty() {
            config
                .benchmarks
                .iter()
                .enumerate()
                .map(|(i, b)| checked_bench(&b.name, &b.command, &key(&format!("benchmarks[{i}]"))))
                .collect::<Result<Vec<_>, _>>()?
        } else {
            args.benches
                .iter()
                .map(|b| bench(b))
                .collect::<Result<Vec<_>, _>>()?
        };
        if benches.is_empty() {
            return Err("--bench: give at least one benchmark (NAME=COMMAND)".to_string());
        }
        if benches.len() > MOST_BENCHMARKS {
            return Err(format!("--bench: at most {MOST_BENCHMARKS} benchmarks"));
        }
        for (i, b) in benches.iter().enumerate() {
            if benches[..i].iter().any(|other| other.name == b.name) {
                return Err(format!("--bench: two benchmarks are named {}", b.name));
            }
        }
        let duration_of =
            |flag: &Option<String>, value: Option<Seconds>, name: &str| match (flag, value) {
                (Some(text), _) => flag_duration(text, &format!("--{name}")).map(Some),
                (None, Some(v)) => positive(v, &key(name)).map(Some),
                (None, None) => Ok(None),
            };
        let sleep = duration_of(&args.sleep, config.sleep, "sleep")?
            .ok_or("--sleep: required (the time between cycles)")?;
        let duration = duration_of(&args.duration, config.duration, "duration")?
            .ok_or("--duration: required (how long to gather)")?;
        let timeout = duration_of(&args.timeout, config.timeout, "timeout")?
            .unwrap_or(Duration::from_secs(600));
        let resolution = duration_of(&args.resolution, config.resolution, "resolution")?;
        let out = args
            .out
            .clone()
            .or(config.out)
            .ok_or("--out: required (the directory probe.csv is written into)")?;
        let nice = args.nice.or(config.nice);
        if let Some(n) = nice
            && !(-20..=19).contains(&n)
        {
            return Err(format!("--nice: must be from -20 to 19, got {n}"));
        }
        let ramp = match (&args.ramp, config.ramp) {
            (Some(text), _) => Some(ramp(text)?),
            (None, Some(r)) => {
                let what = key("ramp");
                let kind = WorkerKind::parse(&r.kind).map_err(|e| format!("{what}.kind: {e}"))?;
                let hold = positive(r.hold, &format!("{what}.hold"))?;
                let size = match r.size {
                    Some(b) if b.0.is_finite() && b.0 >= 1.0 && b.0 < 1e15 => b.0 as u64,
                    Some(b) => {
                        return Err(format!(
                            "{what}.size: must be a size > 0, got {} bytes",
                            Figure(b.0)
                        ));
                    }
                    None => WORKER_BYTES,
                };
                Some(checked_ramp(kind, r.workers, hold, size, &what)?)
            }
            (None, None) => None,
        };
        Ok(Settings {
            benches,
            sleep,
            duration,
            out,
            timeout,
            nice,
            min_uid: args.min_uid.or(config.min_uid).unwrap_or(1000),
            resolution,
            append: args.append,
            ramp,
        })
    }
}

/// Reads and parses a `--config` file.
fn read_config(path: &Path) -> Result<ConfigFile, String> {
    let name = path.display();
    let mut text = String::new();
    File::open(path)
        .and_then(|f| f.take(1 << 20).read_to_string(&mut text))
        .map_err(|e| format!("--config: cannot read {name}: {e}"))?;
    tpsim_models::words::from_toml(&text).map_err(|e| format!("{name}: {}", e.located(&text)))
}

/// The probe's open output: probe.csv, its header written or checked.
struct Output {
    file: File,
    path: PathBuf,
}

impl Output {
    /// Opens DIR/probe.csv: a new file with the header, or with `append`
    /// an existing file whose header is the probe's. An existing file is
    /// refused without `append`, except an empty one, which holds no
    /// observations (a probe that could not write its header, on a full
    /// disk, leaves none behind, but an older one may have).
    fn open(dir: &Path, append: bool) -> Result<Output, String> {
        let path = dir.join("probe.csv");
        let header = tpsim_probe::report::host_probe_header();
        let empty = std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() == 0);
        if path.exists() && !empty {
            if !append {
                return Err(format!(
                    "--out: {} exists; pass --append to add to it",
                    path.display()
                ));
            }
            let mut first = String::new();
            File::open(&path)
                .and_then(|f| f.take(4096).read_to_string(&mut first))
                .map_err(|e| format!("--out: cannot read {}: {e}", path.display()))?;
            if first.lines().next() != header.lines().next() {
                return Err(format!(
                    "--append: {} is not a probe.csv of `tpsim probe` (its header differs)",
                    path.display()
                ));
            }
            let file = OpenOptions::new()
                .append(true)
                .open(&path)
                .map_err(|e| format!("--out: cannot write {}: {e}", path.display()))?;
            return Ok(Output { file, path });
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("--out: cannot create {}: {e}", dir.display()))?;
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(!empty)
            .truncate(empty)
            .open(&path)
            .map_err(|e| format!("--out: cannot write {}: {e}", path.display()))?;
        if let Err(e) = file
            .write_all(header.as_bytes())
            .and_then(|()| file.flush())
        {
            drop(file);
            let _ = std::fs::remove_file(&path);
            return Err(format!("--out: cannot write {}: {e}", path.display()));
        }
        Ok(Output { file, path })
    }

    fn record(&mut self, row: &HostObservation) -> anyhow::Result<()> {
        self.file
            .write_all(tpsim_probe::report::host_probe_row(row).as_bytes())
            .and_then(|()| self.file.flush())
            .with_context(|| format!("cannot write {}", self.path.display()))
    }
}

/// `tpsim probe`.
pub(crate) fn probe(args: &ProbeArgs, stderr: &mut dyn Write) -> Result<Finished, Failure> {
    let input = |m: String| Failure::Input(anyhow!(m));
    let settings = Settings::of(args).map_err(input)?;
    let mut output = Output::open(&settings.out, settings.append).map_err(input)?;
    if let Some(n) = settings.nice {
        // Relative to the probe's own value, which is usually 0.
        let now = rustix::process::getpriority_process(None).unwrap_or(0);
        rustix::process::nice(n - now)
            .map_err(|e| input(format!("--nice: cannot set {n}: {e}")))?;
    }
    let utmp = UTMP.iter().map(Path::new).find(|p| p.exists());
    if utmp.is_none() {
        let _ = writeln!(
            stderr,
            "tpsim: note: no utmp file ({}): users logged in are counted as the distinct owners (uid >= {}) of user processes (users_from = owners)",
            UTMP.join(", "),
            settings.min_uid
        );
    }
    let sampler = Sampler::new(settings.min_uid, utmp.map(Path::to_path_buf));
    let mut ramp = settings.ramp.clone().map(Workers::new);
    let bar = ProgressBar::with_draw_target(
        Some(settings.duration.as_secs()),
        ProgressDrawTarget::stderr(),
    );
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} s gathered, ETA {eta}: {msg}")
            .expect("the template is valid"),
    );
    let started = Instant::now();
    let mut tally = Tally::default();
    let listening = Listening::start();
    let result = (|| -> anyhow::Result<bool> {
        while started.elapsed() < settings.duration {
            tally.cycles += 1;
            for b in &settings.benches {
                if let Some(w) = &mut ramp {
                    w.follow(started.elapsed())?;
                }
                let noted = sampler.sample(ramp.as_ref().map_or(0, Workers::running))?;
                bar.set_message(format!(
                    "cycle {}, {} now: users {}, processes {}, runnable {}, load {:.2}",
                    tally.cycles,
                    b.name,
                    noted.users,
                    noted.processes,
                    noted.runnable,
                    noted.load[0]
                ));
                let (outcome, times) = run_benchmark(b, settings.timeout, &listening)?;
                let row = noted.observed(&b.name, outcome, times, settings.resolution);
                tally.count(&row.outcome);
                output.record(&row)?;
                bar.set_position(started.elapsed().as_secs().min(settings.duration.as_secs()));
                if row.outcome == Outcome::Interrupted {
                    return Ok(false);
                }
            }
            if !sleep_until(
                Instant::now() + settings.sleep,
                started + settings.duration,
                &listening,
            ) {
                return Ok(false);
            }
        }
        Ok(true)
    })();
    bar.finish_and_clear();
    if let Some(w) = &mut ramp {
        w.stop_all();
    }
    drop(listening);
    let whole = result.map_err(Failure::Run)?;
    let _ = writeln!(
        stderr,
        "tpsim: probe: {} runs in {} cycles recorded in {} ({} failed, {} timed out{})",
        tally.runs,
        tally.cycles,
        output.path.display(),
        tally.failed,
        tally.timed_out,
        if whole { "" } else { "; stopped by a signal" }
    );
    Ok(if whole {
        Finished::Whole
    } else {
        Finished::Interrupted
    })
}

/// What the probe has done, for its last line.
#[derive(Default)]
struct Tally {
    cycles: u64,
    runs: u64,
    failed: u64,
    timed_out: u64,
}

impl Tally {
    fn count(&mut self, outcome: &Outcome) {
        self.runs += 1;
        match outcome {
            Outcome::Ok | Outcome::Interrupted => {}
            Outcome::Exit(_) | Outcome::Signal(_) => self.failed += 1,
            Outcome::Timeout => self.timed_out += 1,
        }
    }
}

/// Sleeps until `until` (or `end`, if sooner), looking for a signal;
/// false if one came.
fn sleep_until(until: Instant, end: Instant, listening: &Listening) -> bool {
    let until = until.min(end);
    loop {
        if !listening.going() {
            return false;
        }
        let now = Instant::now();
        if now >= until {
            return true;
        }
        std::thread::sleep((until - now).min(LOOK));
    }
}

/// Reads the load indices.
struct Sampler {
    min_uid: u32,
    utmp: Option<PathBuf>,
    me: u32,
}

/// The indices noted before a benchmark.
struct Noted {
    start: f64,
    users: u32,
    users_from: UsersFrom,
    processes: u32,
    runnable: u32,
    free_memory: u64,
    load: [f64; 3],
    workers: u32,
}

/// A benchmark run's elapsed, user and system times \[s\].
type Times = (f64, f64, f64);

impl Noted {
    fn observed(
        &self,
        benchmark: &str,
        outcome: Outcome,
        (elapsed, user, system): Times,
        resolution: Option<Duration>,
    ) -> HostObservation {
        // In whole nanoseconds, so that 30 ms cut to 10 ms stays 30 ms
        // (0.03 / 0.01 is 2.9999999999999996 in binary fractions).
        let truncate = |t: f64| match resolution {
            Some(r) => {
                let (t, r) = ((t * 1e9).round() as u128, r.as_nanos().max(1));
                (t / r * r) as f64 / 1e9
            }
            None => t,
        };
        HostObservation {
            benchmark: benchmark.to_string(),
            start: self.start,
            users: self.users,
            users_from: self.users_from,
            processes: self.processes,
            runnable: self.runnable,
            free_memory: self.free_memory,
            load: self.load,
            workers: self.workers,
            elapsed: truncate(elapsed),
            user: truncate(user),
            system: truncate(system),
            outcome,
            resolution,
        }
    }
}

fn read(path: &str) -> anyhow::Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))
}

/// What the sampler reads of the machine before a benchmark: the texts
/// of `/proc/stat`, `/proc/loadavg` and `/proc/meminfo`, the process
/// table and the utmp file's bytes, if there is one.
struct Readings {
    stat: String,
    loadavg: String,
    meminfo: String,
    processes: Vec<(u32, Option<u32>)>,
    utmp: Option<Vec<u8>>,
}

impl Sampler {
    /// A sampler for this process, counting users from `utmp` (or, with
    /// none, from the owners of processes) and user processes from
    /// `min_uid` up.
    fn new(min_uid: u32, utmp: Option<PathBuf>) -> Sampler {
        Sampler {
            min_uid,
            utmp,
            me: std::process::id(),
        }
    }

    fn sample(&self, workers: u32) -> anyhow::Result<Noted> {
        self.noted(&self.read()?, workers)
    }

    /// Reads the machine's files.
    fn read(&self) -> anyhow::Result<Readings> {
        Ok(Readings {
            stat: read("/proc/stat")?,
            loadavg: read("/proc/loadavg")?,
            meminfo: read("/proc/meminfo")?,
            processes: self.processes()?,
            utmp: match &self.utmp {
                Some(path) => Some(
                    std::fs::read(path)
                        .with_context(|| format!("cannot read {}", path.display()))?,
                ),
                None => None,
            },
        })
    }

    /// The indices `readings` give, leaving the probe's own process out.
    fn noted(&self, readings: &Readings, workers: u32) -> anyhow::Result<Noted> {
        let processes = readings.processes.iter().copied();
        let leave_out = [self.me];
        let (users, users_from) = match &readings.utmp {
            Some(bytes) => (host::users_logged_in(bytes)?, UsersFrom::Utmp),
            None => (
                host::process_owners(processes.clone(), self.min_uid, &leave_out),
                UsersFrom::Owners,
            ),
        };
        Ok(Noted {
            start: SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64()),
            users,
            users_from,
            processes: host::user_processes(processes, self.min_uid, &leave_out),
            runnable: host::runnable(&readings.stat)?,
            free_memory: host::free_memory(&readings.meminfo)?,
            load: host::load_averages(&readings.loadavg)?,
            workers,
        })
    }

    /// Every process's pid and real user id (`None` if it went while the
    /// table was read).
    fn processes(&self) -> anyhow::Result<Vec<(u32, Option<u32>)>> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").context("cannot list /proc")? {
            let Ok(entry) = entry else { continue };
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            let uid = std::fs::read_to_string(entry.path().join("status"))
                .ok()
                .and_then(|status| host::real_uid(&status).ok());
            found.push((pid, uid));
        }
        Ok(found)
    }
}

/// Runs one benchmark, killing it at `timeout` or at a signal; its outcome
/// and times.
fn run_benchmark(
    b: &Bench,
    timeout: Duration,
    listening: &Listening,
) -> anyhow::Result<(Outcome, Times)> {
    use nix::sys::resource::{UsageWho, getrusage};
    let before = getrusage(UsageWho::RUSAGE_CHILDREN).context("getrusage")?;
    let start = Instant::now();
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(&b.command)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .dies_with_probe()
        .spawn()
        .context("cannot start /bin/sh")?;
    let pid = child.id();
    let (done, waited) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let status = child.wait();
        let _ = done.send((status, Instant::now()));
    });
    let mut killed = None;
    let (status, end) = loop {
        match waited.recv_timeout(LOOK) {
            Ok(result) => break result,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let why = if !listening.going() {
                    Some(Outcome::Interrupted)
                } else if start.elapsed() >= timeout {
                    Some(Outcome::Timeout)
                } else {
                    None
                };
                if killed.is_none()
                    && let Some(why) = why
                {
                    kill_group(pid);
                    killed = Some(why);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(anyhow!("the wait for benchmark {} was lost", b.name));
            }
        }
    };
    waiter
        .join()
        .map_err(|_| anyhow!("the wait for benchmark {} failed", b.name))?;
    let status = status.with_context(|| format!("cannot wait for benchmark {}", b.name))?;
    let after = getrusage(UsageWho::RUSAGE_CHILDREN).context("getrusage")?;
    // Whole microseconds, as the kernel counts them, subtracted before
    // they become seconds.
    let micros = |t: nix::sys::time::TimeVal| t.tv_sec() * 1_000_000 + t.tv_usec();
    let spent = |a, b| (micros(a) - micros(b)) as f64 / 1e6;
    let times = (
        (end - start).as_secs_f64(),
        spent(after.user_time(), before.user_time()),
        spent(after.system_time(), before.system_time()),
    );
    let outcome = match (killed, status.code(), status.signal()) {
        (Some(why), _, _) => why,
        (None, Some(0), _) => Outcome::Ok,
        (None, Some(code), _) => Outcome::Exit(code),
        (None, None, Some(signal)) => Outcome::Signal(signal),
        (None, None, None) => Outcome::Signal(0),
    };
    Ok((outcome, times))
}

/// A process the probe starts that must not outlive it.
trait DiesWithProbe {
    /// Has the kernel kill the child when the probe's thread that started
    /// it ends, however the probe ends (`kill -9` too); a child whose
    /// probe is gone before that is set stops before it runs.
    fn dies_with_probe(&mut self) -> &mut Self;
}

impl DiesWithProbe for Command {
    fn dies_with_probe(&mut self) -> &mut Command {
        use rustix::process::{Signal, getpid, getppid, set_parent_process_death_signal};
        let probe = getpid();
        // SAFETY: between fork and exec the child makes two system calls,
        // prctl and getppid, both async-signal-safe, and allocates nothing.
        unsafe {
            self.pre_exec(move || {
                set_parent_process_death_signal(Some(Signal::KILL))?;
                if getppid() == Some(probe) {
                    Ok(())
                } else {
                    // No such process: the probe that started it.
                    Err(rustix::io::Errno::SRCH.into())
                }
            })
        }
    }
}

/// Kills a benchmark's process group: the shell and whatever it started.
fn kill_group(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        let _ =
            nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pid), nix::sys::signal::SIGKILL);
    }
}

/// A ramp's workers, started and stopped to follow its steps.
struct Workers {
    ramp: Ramp,
    running: Vec<Child>,
    program: PathBuf,
}

impl Workers {
    fn new(ramp: Ramp) -> Workers {
        Workers {
            ramp,
            running: Vec::new(),
            program: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("tpsim")),
        }
    }

    fn running(&self) -> u32 {
        self.running.len() as u32
    }

    /// Starts or stops workers to match the step due `elapsed` into the
    /// gathering.
    fn follow(&mut self, elapsed: Duration) -> anyhow::Result<()> {
        let step = (elapsed.as_secs_f64() / self.ramp.hold.as_secs_f64()) as usize;
        let wanted = self.ramp.steps[step.min(self.ramp.steps.len() - 1)] as usize;
        while self.running.len() > wanted {
            stop(self.running.pop().expect("a worker runs"));
        }
        while self.running.len() < wanted {
            let worker = Command::new(&self.program)
                .arg("probe-worker")
                .arg(self.ramp.kind.name())
                .arg(self.ramp.size.to_string())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .process_group(0)
                .dies_with_probe()
                .spawn()
                .with_context(|| format!("cannot start a worker ({})", self.program.display()))?;
            self.running.push(worker);
        }
        Ok(())
    }

    fn stop_all(&mut self) {
        self.running.drain(..).for_each(stop);
    }
}

/// Stops a worker and reaps it.
fn stop(mut worker: Child) {
    let _ = worker.kill();
    let _ = worker.wait();
}

#[derive(Debug, clap::Args)]
pub(crate) struct WorkerArgs {
    /// cpu, memory or files.
    kind: String,
    /// The bytes a memory worker touches.
    bytes: u64,
}

/// `tpsim probe-worker KIND BYTES`: a ramp's worker, which runs until it
/// is killed.
pub(crate) fn worker(args: &WorkerArgs) -> Result<Finished, Failure> {
    let kind = WorkerKind::parse(&args.kind).map_err(|e| Failure::Input(anyhow!(e)))?;
    let bytes = usize::try_from(args.bytes.max(1)).unwrap_or(usize::MAX);
    let listening = Listening::start();
    match kind {
        WorkerKind::Cpu => {
            let mut x = 1_u64;
            while listening.going() {
                x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
            }
        }
        WorkerKind::Memory => {
            let mut block = vec![0_u8; bytes];
            let mut round = 0_u8;
            while listening.going() {
                round = round.wrapping_add(1);
                for page in block.chunks_mut(4096) {
                    page[0] = round;
                }
                std::hint::black_box(&block);
            }
        }
        WorkerKind::Files => {
            // The program's own file, over and over: from the page cache
            // once it is there.
            let path = std::env::current_exe().map_err(|e| Failure::Run(e.into()))?;
            let mut buffer = vec![0_u8; 64 << 10];
            while listening.going() {
                let mut file = File::open(&path).map_err(|e| Failure::Run(e.into()))?;
                while file.read(&mut buffer).map_err(|e| Failure::Run(e.into()))? > 0 {}
            }
        }
    }
    Ok(Finished::Interrupted)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Captured `/proc` files, as the indices' own tests use them.
    fn readings(processes: Vec<(u32, Option<u32>)>) -> Readings {
        let fixture = |name: &str| {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../probe/fixtures/host");
            std::fs::read_to_string(dir.join(name)).unwrap()
        };
        Readings {
            stat: fixture("stat"),
            loadavg: fixture("loadavg"),
            meminfo: fixture("meminfo"),
            processes,
            utmp: None,
        }
    }

    #[test]
    fn the_sampler_leaves_its_own_process_out_of_both_indices() {
        let sampler = Sampler::new(1000, None);
        let me = std::process::id();
        let other = me.wrapping_add(1);
        // The probe, one other user's process, a system process and one
        // that went while the table was read.
        let table = vec![
            (me, Some(1000)),
            (other, Some(1001)),
            (1, Some(0)),
            (other.wrapping_add(1), None),
        ];
        let noted = sampler.noted(&readings(table), 2).unwrap();
        assert_eq!(noted.processes, 1);
        assert_eq!(noted.users, 1);
        assert_eq!(noted.users_from, UsersFrom::Owners);
        assert_eq!(noted.workers, 2);
    }
}
