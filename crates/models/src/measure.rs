//! Meters shared by the models: what a class of work saw, and what a
//! server did, each reset at the end of the warm-up and turned into the
//! summary's stable fields.

use crate::summary::{ClassKind, ClassSummary, StationDiscipline, StationSummary};
use tpsim_core::{BatchMeans, Quantiles, SimTime, Tally, TimeWeighted};

/// The response times of one class: mean, batch-means interval and
/// percentiles, in bounded memory.
#[derive(Clone, Debug)]
pub(crate) struct Responses {
    completions: u64,
    tally: Tally,
    quantiles: Quantiles,
    batches: BatchMeans,
}

impl Responses {
    pub(crate) fn new() -> Responses {
        Responses {
            completions: 0,
            tally: Tally::new(),
            quantiles: Quantiles::new(),
            batches: BatchMeans::new(),
        }
    }

    /// Records one response of length `response`.
    pub(crate) fn record(&mut self, response: SimTime) {
        let secs = response.as_secs_f64();
        self.completions += 1;
        self.tally.add(secs);
        self.quantiles.record(response);
        self.batches.add(secs);
    }

    pub(crate) fn reset(&mut self) {
        *self = Responses::new();
    }

    /// The completions so far and the sum of their responses \[s\].
    pub(crate) fn total(&self) -> (u64, f64) {
        if self.completions == 0 {
            return (0, 0.0);
        }
        (
            self.completions,
            self.tally.mean() * self.completions as f64,
        )
    }

    /// The class's summary over `span` seconds of measurement; a batch-means
    /// interval is given only for a `stationary` run.
    pub(crate) fn summary(
        &self,
        name: &str,
        kind: ClassKind,
        span: f64,
        stationary: bool,
    ) -> ClassSummary {
        let any = self.completions > 0;
        let quantile = |q: f64| any.then(|| self.quantiles.quantile(q));
        let interval = if stationary {
            self.batches.interval(0.95).map_err(|why| why.to_string())
        } else {
            Err("not stationary: the load changes over the run".to_string())
        };
        ClassSummary {
            name: name.to_string(),
            kind,
            throughput: per_second(self.completions, span),
            mean_response: any.then(|| self.tally.mean()),
            mean_response_ci95: interval.as_ref().ok().map(|ci| ci.reach()),
            mean_response_ci95_low: interval.as_ref().ok().map(|ci| ci.low()),
            mean_response_ci95_high: interval.as_ref().ok().map(|ci| ci.high()),
            mean_response_ci95_note: interval.err().filter(|_| any),
            response_p50: quantile(0.50),
            response_p75: quantile(0.75),
            response_p90: quantile(0.90),
            response_p99: quantile(0.99),
            response_min: any.then(|| self.tally.min()),
            response_max: any.then(|| self.tally.max()),
            completions: self.completions,
            rejected: None,
            faults_per_command: None,
        }
    }
}

/// What a service centre did: its population, busy servers, departures,
/// the time each visit took and, where jobs queue for a server, how long
/// they waited before their service began.
#[derive(Clone, Debug)]
pub(crate) struct StationMeter {
    /// Jobs present, waiting or in service.
    pub(crate) present: TimeWeighted,
    /// Servers busy (including switching overhead).
    pub(crate) busy: TimeWeighted,
    completions: u64,
    visit: Tally,
    /// Time from arrival to the start of service, per visit.
    wait: Tally,
    /// Visits whose service did not start on arrival.
    waited: u64,
}

impl StationMeter {
    pub(crate) fn new() -> StationMeter {
        StationMeter {
            present: TimeWeighted::new(SimTime::ZERO, 0.0),
            busy: TimeWeighted::new(SimTime::ZERO, 0.0),
            completions: 0,
            visit: Tally::new(),
            wait: Tally::new(),
            waited: 0,
        }
    }

    /// A job that arrived at `arrived` starts its service at `now`.
    pub(crate) fn start_service(&mut self, arrived: SimTime, now: SimTime) {
        self.wait.add((now - arrived).as_secs_f64());
        if now > arrived {
            self.waited += 1;
        }
    }

    /// A job that arrived at `arrived` leaves at `now`.
    pub(crate) fn depart(&mut self, arrived: SimTime, now: SimTime) {
        self.present.add(now, -1.0);
        self.completions += 1;
        self.visit.add((now - arrived).as_secs_f64());
    }

    pub(crate) fn reset(&mut self, now: SimTime) {
        self.present.reset(now);
        self.busy.reset(now);
        self.completions = 0;
        self.visit = Tally::new();
        self.wait = Tally::new();
        self.waited = 0;
    }

    /// The station's summary at `now`, measured over `span` seconds;
    /// utilisation is a fraction of `servers` (1 for a delay station, whose
    /// utilisation is then its mean number of jobs); `queues` says whether
    /// jobs wait in line for a server (waiting times are reported only
    /// then).
    pub(crate) fn summary(
        &self,
        name: &str,
        discipline: StationDiscipline,
        servers: u32,
        queues: bool,
        now: SimTime,
        span: f64,
    ) -> StationSummary {
        let started = self.wait.count();
        let waits = queues && started > 0;
        StationSummary {
            name: name.to_string(),
            discipline,
            servers,
            utilization: self.busy.mean(now) / f64::from(servers),
            throughput: per_second(self.completions, span),
            mean_queue_length: self.present.mean(now),
            mean_response: (self.completions > 0).then(|| self.visit.mean()),
            mean_wait: waits.then(|| self.wait.mean()),
            wait_probability: waits.then(|| self.waited as f64 / started as f64),
            completions: self.completions,
        }
    }
}

/// `count` events over `span` seconds, as a rate (0 over no time).
pub(crate) fn per_second(count: u64, span: f64) -> f64 {
    if span > 0.0 { count as f64 / span } else { 0.0 }
}
