//! Meters shared by the models: what a class of work saw, and what a
//! server did, each reset at the end of the warm-up and turned into the
//! summary's stable fields.

use crate::summary::{ClassSummary, StationSummary};
use tpsim_core::{BatchMeans, Quantiles, SimTime, Tally, TimeWeighted};

/// The number of batches kept for a class's response-time interval.
const BATCHES: usize = 20;

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
            batches: BatchMeans::new(BATCHES),
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

    /// The class's summary over `span` seconds of measurement.
    pub(crate) fn summary(&self, name: &str, kind: &str, span: f64) -> ClassSummary {
        ClassSummary {
            name: name.to_string(),
            kind: kind.to_string(),
            throughput: per_second(self.completions, span),
            mean_response: self.tally.mean(),
            mean_response_ci95: self.batches.interval(0.95).map(|ci| ci.half_width),
            response_p50: self.quantiles.quantile(0.50),
            response_p75: self.quantiles.quantile(0.75),
            response_p90: self.quantiles.quantile(0.90),
            response_p99: self.quantiles.quantile(0.99),
            response_max: self.tally.max(),
            completions: self.completions,
            rejected: None,
            faults_per_command: None,
        }
    }
}

/// What a service centre did: its population, busy servers, departures and
/// the time each visit took.
#[derive(Clone, Debug)]
pub(crate) struct StationMeter {
    /// Jobs present, waiting or in service.
    pub(crate) present: TimeWeighted,
    /// Servers busy (including switching overhead).
    pub(crate) busy: TimeWeighted,
    completions: u64,
    visit: Tally,
}

impl StationMeter {
    pub(crate) fn new() -> StationMeter {
        StationMeter {
            present: TimeWeighted::new(SimTime::ZERO, 0.0),
            busy: TimeWeighted::new(SimTime::ZERO, 0.0),
            completions: 0,
            visit: Tally::new(),
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
    }

    /// The station's summary at `now`, measured over `span` seconds;
    /// `capacity` is the number of servers utilisation is a fraction of.
    pub(crate) fn summary(
        &self,
        name: &str,
        discipline: &str,
        servers: u32,
        capacity: f64,
        now: SimTime,
        span: f64,
    ) -> StationSummary {
        StationSummary {
            name: name.to_string(),
            discipline: discipline.to_string(),
            servers,
            utilization: self.busy.mean(now) / capacity,
            throughput: per_second(self.completions, span),
            mean_queue_length: self.present.mean(now),
            mean_response: self.visit.mean(),
            completions: self.completions,
        }
    }
}

/// `count` events over `span` seconds, as a rate (0 over no time).
pub(crate) fn per_second(count: u64, span: f64) -> f64 {
    if span > 0.0 { count as f64 / span } else { 0.0 }
}
