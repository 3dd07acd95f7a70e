//! The results of a run, with stable field names.
//!
//! Tools and tests read these fields from `summary.json`; renaming one is a
//! breaking change.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How a station serves, as reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StationDiscipline {
    /// First come, first served.
    Fcfs,
    /// Processor sharing.
    Ps,
    /// Round robin.
    Rr,
    /// A pure delay.
    Delay,
    /// A disk serving its queue by cylinder (one-way elevator).
    Disksort,
    /// Processors under the UNIX scheduler's priorities.
    Unix,
    /// Processors under Multics traffic control.
    Multics,
    /// Processors under Linux's fair scheduler.
    Fair,
}

impl StationDiscipline {
    /// The name used in scenarios, tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            StationDiscipline::Fcfs => "fcfs",
            StationDiscipline::Ps => "ps",
            StationDiscipline::Rr => "rr",
            StationDiscipline::Delay => "delay",
            StationDiscipline::Disksort => "disksort",
            StationDiscipline::Unix => "unix",
            StationDiscipline::Multics => "multics",
            StationDiscipline::Fair => "fair",
        }
    }
}

impl fmt::Display for StationDiscipline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a row of the class table stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ClassKind {
    /// An open class of a queueing network.
    Open,
    /// A closed class of a queueing network.
    Closed,
    /// Commands typed at terminals and waited for.
    Command,
    /// Work nobody waits for: commands left running and background
    /// processes.
    Background,
}

impl ClassKind {
    /// The name used in tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            ClassKind::Open => "open",
            ClassKind::Closed => "closed",
            ClassKind::Command => "command",
            ClassKind::Background => "background",
        }
    }
}

impl fmt::Display for ClassKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What one run measured, after the warm-up.
///
/// The fields from `cpu` on belong to the time-sharing model and are left
/// out of the JSON of a queueing network.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    /// The scenario's name.
    pub scenario: String,
    /// The master seed.
    pub seed: u64,
    /// The replication index (0 for a single run).
    pub replication: u64,
    /// The simulated time at the end of the run \[s\].
    pub sim_time: f64,
    /// The simulated time at which statistics were reset \[s\].
    pub warmup: f64,
    /// The number of events dispatched.
    pub events: u64,
    /// Wall-clock time of the run \[s\]; filled in by the caller that timed
    /// it, 0 otherwise. The only field that differs between two runs of the
    /// same scenario and seed.
    pub wall_seconds: f64,
    /// What ended the run.
    pub stopped_by: StoppedBy,
    /// For a stalled run, the last event that fired while the clock stood
    /// still, as the model names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stalled_on: Option<String>,
    /// Per station.
    pub stations: Vec<StationSummary>,
    /// Per class.
    pub classes: Vec<ClassSummary>,
    /// How the processors' time was spent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<CpuSplit>,
    /// Page faults.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paging: Option<PagingSummary>,
    /// Whole-image swaps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub swapping: Option<SwappingSummary>,
    /// Memory occupancy and the multiprogramming level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemorySummary>,
    /// The time averages of the two load indices.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load: Option<LoadSummary>,
    /// The terminal probe's own load, for a scenario with a probe.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probe: Option<ProbeSummary>,
    /// The buffer cache's traffic (time-sharing scenarios with `[files]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<FilesSummary>,
}

/// The load the terminal probe adds, after the warm-up: the probe effect.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ProbeSummary {
    /// Benchmark runs that started after the warm-up and finished.
    pub observations: u64,
    /// The fraction of processor capacity its benchmarks used (user and
    /// system time).
    pub cpu_share: f64,
    /// The fraction of all device requests its benchmarks made (file I/O,
    /// exec's reads, page reads).
    pub io_share: f64,
    /// The mean fraction of user memory its benchmark held privately, over
    /// the load samples.
    pub memory_share: f64,
}

/// What ended a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StoppedBy {
    /// It reached its end time.
    #[default]
    EndTime,
    /// It reached `run.max_events` first.
    EventLimit,
    /// Its clock stood still for so many events that it could never reach
    /// its end time: some cycle of the model takes no time.
    Stalled,
    /// The user interrupted it (Ctrl-C, SIGTERM); what it measured up to
    /// then is reported.
    Interrupted,
}

impl StoppedBy {
    /// The name used in JSON and CSV.
    pub fn name(self) -> &'static str {
        match self {
            StoppedBy::EndTime => "end_time",
            StoppedBy::EventLimit => "event_limit",
            StoppedBy::Stalled => "stalled",
            StoppedBy::Interrupted => "interrupted",
        }
    }

    /// A remark for a report's heading: empty for a run that reached its
    /// end time.
    pub fn remark(self) -> &'static str {
        match self {
            StoppedBy::EndTime => "",
            StoppedBy::EventLimit => " (cut short by run.max_events)",
            StoppedBy::Stalled => " (stopped: the clock stood still)",
            StoppedBy::Interrupted => " (interrupted)",
        }
    }
}

/// The fractions of processor time spent on each kind of work; they add up
/// to 1 over all processors.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CpuSplit {
    /// The number of processors.
    pub cpus: u32,
    /// Running user processes' own work.
    pub user: f64,
    /// The kernel's path for each page fault.
    pub fault_handling: f64,
    /// Switching from one process to another.
    pub context_switch: f64,
    /// Handling the interrupts that end device requests (each device's
    /// `interrupt_cpu`), run before the next burst dispatched.
    pub interrupts: f64,
    /// Handling segment faults (each class's `segment_faults`).
    pub segment_faults: f64,
    /// Copying blocks between the buffer cache and processes' memory
    /// (scenarios with `[files]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer_copies: Option<f64>,
    /// Clearing the empty pages (bss and stack) of new images at exec
    /// (swapping with `memory.clear_cpu`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_clears: Option<f64>,
    /// Nothing to run.
    pub idle: f64,
    /// Idle while some process waits for eligibility or memory: Multics's
    /// multiprogramming idle, the processor time a limit on eligibility or
    /// memory wastes. Metered on its own, as is `other_idle`; with it, it
    /// makes up `idle`.
    pub multiprogramming_idle: f64,
    /// Idle while no process is held back: idle for light load (Multics's
    /// NMP and zero idle).
    pub other_idle: f64,
    /// Users' own work as a fraction of the processor time not idle for
    /// light load (all but `other_idle`; multiprogramming idle counts as
    /// overhead): Multics's "percent of nonidle time" of virtual processor
    /// time, the useful fraction of the 1975 report's delivered capacity.
    /// 0 if the processors were idle for light load throughout.
    pub useful_of_non_idle: f64,
    /// Each processor's speed, if the scenario gives it \[MIPS\].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mips: Option<f64>,
    /// Delivered capacity, the 1975 Multics report's measure: the speed
    /// times `useful_of_non_idle` times the processors \[MIPS\].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivered_mips: Option<f64>,
}

/// Page faults, counted after the warm-up.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PagingSummary {
    /// Faults taken.
    pub faults: u64,
    /// Faults per second.
    pub faults_per_second: f64,
    /// Processor time in the kernel's fault path per fault: the 1975
    /// Multics report's `Tav` ("AVE page fault time") \[s\].
    pub tav: f64,
    /// Elapsed time from a fault to the process being ready again, the
    /// processor path and the device's queue and transfer included: not
    /// `tav` \[s\].
    pub mean_fault_elapsed: f64,
    /// Faults on pages still in the free pool, revalidated without I/O.
    pub reclaims: u64,
    /// Faults on pages never touched, given a cleared frame without I/O.
    pub zero_fills: u64,
    /// Faults served by the bulk store (0 without one).
    pub bulk_store_reads: u64,
    /// Faults served by the paging disk.
    pub disk_reads: u64,
    /// Fraction of page reads that went to the disk.
    pub disk_fraction: f64,
    /// Pages written back (dirty pages, or every page moved to the bulk
    /// store).
    pub page_writes: u64,
    /// Pages taken from one process to give to another.
    pub pages_stolen: u64,
    /// Pages read in with a faulted page, in the same transfer (with
    /// `memory.kluster` above 1 only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub klustered_pages: Option<u64>,
}

/// The buffer cache, counted after the warm-up.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FilesSummary {
    /// Buffers in the cache.
    pub buffers: u64,
    /// The block size \[bytes\].
    pub block_bytes: u64,
    /// The traffic of each kind of file on each device.
    pub traffic: Vec<FileTraffic>,
}

/// The reads and writes of one kind of file on one device, through the
/// buffer cache.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FileTraffic {
    /// The kind of file: `"program"` (exec's reads of programs' files).
    pub kind: String,
    /// The device the files are on.
    pub device: String,
    /// Blocks read by processes: `hits + in_transit + misses`.
    pub reads: u64,
    /// Reads that found their block in the cache.
    pub hits: u64,
    /// Reads that waited for their block's transfer under way (most often
    /// a read ahead).
    pub in_transit: u64,
    /// Reads that waited for their block to be read from the disk.
    pub misses: u64,
    /// Blocks read ahead of a sequential read.
    pub read_aheads: u64,
    /// Blocks written to the disk.
    pub writes: u64,
    /// `hits / reads` (0 with no reads).
    pub hit_ratio: f64,
}

/// Whole-image swaps, counted after the warm-up.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SwappingSummary {
    /// Images read in.
    pub swap_ins: u64,
    /// Images written out.
    pub swap_outs: u64,
    /// Mean size of an image moved \[bytes\]; under the swapper behind
    /// the clock, of a transfer: user area and page tables, with the
    /// modified pages going out.
    pub mean_image_bytes: f64,
}

/// Memory use over time.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MemorySummary {
    /// Memory left for user processes after the kernel's share \[bytes\].
    pub user_bytes: u64,
    /// Time-average fraction of user memory held by processes.
    pub mean_occupancy: f64,
    /// Time-average number of processes in memory and not asleep: running,
    /// ready, or waiting for a device.
    pub mean_multiprogramming: f64,
    /// Time-average number of processes waiting for memory or eligibility.
    pub mean_waiting_for_memory: f64,
}

/// The two load indices of the terminal-probe studies, averaged over time.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LoadSummary {
    /// Users logged in.
    pub mean_users: f64,
    /// User processes: the processes of commands in progress (with
    /// `users.processes = "all"`, shells and background processes too).
    pub mean_processes: f64,
    /// Logins refused because every terminal was taken.
    pub logins_refused: u64,
}

/// What a station did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StationSummary {
    /// The station's name.
    pub name: String,
    /// Its discipline (`fcfs`, `ps`, `rr`, `delay`, `disksort`, `unix`).
    pub discipline: StationDiscipline,
    /// Its number of servers.
    pub servers: u32,
    /// Busy fraction per server, switching overhead included; for a delay
    /// station, the mean number of jobs in service.
    pub utilization: f64,
    /// Departures per second.
    pub throughput: f64,
    /// Time-average number of jobs at the station, in service or waiting.
    pub mean_queue_length: f64,
    /// Mean time of one visit, from arrival at the station to departure
    /// from it \[s\]; a job that visits several times counts each visit.
    /// `null` when no visit ended.
    pub mean_response: Option<f64>,
    /// Mean time from arrival at the station to the start of service, per
    /// visit \[s\]; `null` for stations where no one waits in line
    /// (processor sharing, delay) or when no service started.
    pub mean_wait: Option<f64>,
    /// Fraction of visits whose service did not start on arrival (Erlang
    /// C for M/M/c); `null` where `mean_wait` is.
    pub wait_probability: Option<f64>,
    /// Departures counted.
    pub completions: u64,
}

/// What the jobs of a class saw.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassSummary {
    /// The class's name.
    pub name: String,
    /// `open` or `closed` (networks), `command` or `background`
    /// (time-sharing systems).
    pub kind: ClassKind,
    /// Jobs (open) or commands (closed) completed per second.
    pub throughput: f64,
    /// Mean response time \[s\]: arrival to exit (open), or end of think time
    /// to return to the terminal (closed); `null` with no completions.
    pub mean_response: Option<f64>,
    /// How far the 95% batch-means confidence interval of
    /// `mean_response` reaches from it \[s\]: the interval leans toward
    /// long responses (it is skewness-adjusted), and this is the larger of
    /// its two sides, so that `mean_response` ± this contains it; `null`
    /// when there is none, and then `mean_response_ci95_note` says why.
    pub mean_response_ci95: Option<f64>,
    /// The lower end of that interval \[s\].
    pub mean_response_ci95_low: Option<f64>,
    /// The upper end of that interval \[s\].
    pub mean_response_ci95_high: Option<f64>,
    /// Why there is no interval: too few batches, batches still correlated
    /// at the largest grouping, or a run whose load changes (logins over a
    /// day), which has no steady state to estimate.
    pub mean_response_ci95_note: Option<String>,
    /// Median response time \[s\]; the percentiles, the minimum and the
    /// maximum are `null` with no completions.
    pub response_p50: Option<f64>,
    /// 75th percentile of response time \[s\].
    pub response_p75: Option<f64>,
    /// 90th percentile of response time \[s\].
    pub response_p90: Option<f64>,
    /// 99th percentile of response time \[s\].
    pub response_p99: Option<f64>,
    /// Shortest response time \[s\].
    pub response_min: Option<f64>,
    /// Longest response time \[s\].
    pub response_max: Option<f64>,
    /// Responses counted.
    pub completions: u64,
    /// Commands that could never run (for example an image larger than user
    /// memory under swapping); time-sharing model only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rejected: Option<u64>,
    /// Mean page faults per completed command; time-sharing model only, and
    /// left out for a class with no command completed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub faults_per_command: Option<f64>,
}
