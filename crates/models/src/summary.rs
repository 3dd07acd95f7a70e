//! The results of a run, with stable field names.
//!
//! Tools and tests read these fields from `summary.json`; renaming one is a
//! breaking change.

use serde::Serialize;

/// What one run measured, after the warm-up.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// The scenario's name.
    pub scenario: String,
    /// The master seed.
    pub seed: u64,
    /// The replication index (0 for a single run).
    pub replication: u64,
    /// The simulated time at the end of the run [s].
    pub sim_time: f64,
    /// The simulated time at which statistics were reset [s].
    pub warmup: f64,
    /// The number of events dispatched.
    pub events: u64,
    /// Wall-clock time of the run [s]; filled in by the caller that timed
    /// it, 0 otherwise. The only field that differs between two runs of the
    /// same scenario and seed.
    pub wall_seconds: f64,
    /// Per station.
    pub stations: Vec<StationSummary>,
    /// Per class.
    pub classes: Vec<ClassSummary>,
}

/// What a station did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StationSummary {
    /// The station's name.
    pub name: String,
    /// Its discipline (`fcfs`, `ps`, `rr`, `delay`).
    pub discipline: String,
    /// Its number of servers.
    pub servers: u32,
    /// Busy fraction per server, switching overhead included; for a delay
    /// station, the mean number of jobs in service.
    pub utilization: f64,
    /// Departures per second.
    pub throughput: f64,
    /// Time-average number of jobs at the station, in service or waiting.
    pub mean_queue_length: f64,
    /// Mean time from arrival at the station to departure from it [s].
    pub mean_response: f64,
    /// Departures counted.
    pub completions: u64,
}

/// What the jobs of a class saw.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassSummary {
    /// The class's name.
    pub name: String,
    /// `open` or `closed`.
    pub kind: String,
    /// Jobs (open) or commands (closed) completed per second.
    pub throughput: f64,
    /// Mean response time [s]: arrival to exit (open), or end of think time
    /// to return to the terminal (closed).
    pub mean_response: f64,
    /// Half-width of the 95% batch-means confidence interval of
    /// `mean_response` [s]; `null` with too few completions.
    pub mean_response_ci95: Option<f64>,
    /// Median response time [s].
    pub response_p50: f64,
    /// 75th percentile of response time [s].
    pub response_p75: f64,
    /// 90th percentile of response time [s].
    pub response_p90: f64,
    /// 99th percentile of response time [s].
    pub response_p99: f64,
    /// Longest response time [s].
    pub response_max: f64,
    /// Responses counted.
    pub completions: u64,
}
