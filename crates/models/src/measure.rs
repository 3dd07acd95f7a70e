//! Meters shared by the models: what a class of work saw, and what a
//! server did, each reset at the end of the warm-up and turned into the
//! summary's stable fields.

use crate::summary::{ClassKind, ClassSummary, StationDiscipline, StationSummary};
use tpsim_core::{BatchMeans, Quantiles, RunningMean, SimTime, TimeWeighted};

/// The response times of one class: mean, batch-means interval and
/// percentiles, in bounded memory.
///
/// Each figure is kept once: the batch means keep the count and the mean
/// of every response, the histogram the least and greatest (a duration's
/// seconds grow with its nanoseconds, so the extremes converted give the
/// extremes of the seconds, bit for bit).
#[derive(Clone, Debug)]
pub(crate) struct Responses {
    quantiles: Quantiles,
    batches: BatchMeans,
}

impl Responses {
    pub(crate) fn new() -> Responses {
        Responses {
            quantiles: Quantiles::new(),
            batches: BatchMeans::new(),
        }
    }

    /// Records one response of length `response`. Always inlined: left a
    /// call, it cost the network's M/M/1 3% of its time.
    #[inline(always)]
    pub(crate) fn record(&mut self, response: SimTime) {
        self.quantiles.record(response);
        self.batches.add(response.as_secs_f64());
    }

    pub(crate) fn reset(&mut self) {
        *self = Responses::new();
    }

    /// The completions so far and the sum of their responses \[s\].
    pub(crate) fn total(&self) -> (u64, f64) {
        let completions = self.batches.count();
        if completions == 0 {
            return (0, 0.0);
        }
        (completions, self.batches.mean() * completions as f64)
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
        let completions = self.batches.count();
        let any = completions > 0;
        let range = self.quantiles.range();
        let quantile = |q: f64| any.then(|| self.quantiles.quantile(q));
        let interval = if stationary {
            self.batches.interval(0.95).map_err(|why| why.to_string())
        } else {
            Err("not stationary: the load changes over the run".to_string())
        };
        ClassSummary {
            name: name.to_string(),
            kind,
            throughput: per_second(completions, span),
            mean_response: any.then(|| self.batches.mean()),
            mean_response_ci95: interval.as_ref().ok().map(|ci| ci.reach()),
            mean_response_ci95_low: interval.as_ref().ok().map(|ci| ci.low()),
            mean_response_ci95_high: interval.as_ref().ok().map(|ci| ci.high()),
            mean_response_ci95_note: interval.err().filter(|_| any),
            response_p50: quantile(0.50),
            response_p75: quantile(0.75),
            response_p90: quantile(0.90),
            response_p99: quantile(0.99),
            response_min: range.map(|(least, _)| least.as_secs_f64()),
            response_max: range.map(|(_, most)| most.as_secs_f64()),
            completions,
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
    /// Time from arrival to departure, per visit: its count is the
    /// station's completions.
    visit: RunningMean,
    /// Time from arrival to the start of service, per visit.
    wait: RunningMean,
    /// Visits whose service did not start on arrival.
    waited: u64,
}

impl StationMeter {
    pub(crate) fn new() -> StationMeter {
        StationMeter {
            present: TimeWeighted::new(SimTime::ZERO, 0.0),
            busy: TimeWeighted::new(SimTime::ZERO, 0.0),
            visit: RunningMean::new(),
            wait: RunningMean::new(),
            waited: 0,
        }
    }

    /// A job that arrived at `arrived` starts its service at `now`.
    #[inline]
    pub(crate) fn start_service(&mut self, arrived: SimTime, now: SimTime) {
        self.wait.add((now - arrived).as_secs_f64());
        if now > arrived {
            self.waited += 1;
        }
    }

    /// A job that arrived at `arrived` leaves at `now`.
    #[inline]
    pub(crate) fn depart(&mut self, arrived: SimTime, now: SimTime) {
        self.present.add(now, -1.0);
        self.visit.add((now - arrived).as_secs_f64());
    }

    pub(crate) fn reset(&mut self, now: SimTime) {
        self.present.reset(now);
        self.busy.reset(now);
        self.visit = RunningMean::new();
        self.wait = RunningMean::new();
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
        let completions = self.visit.count();
        let waits = queues && started > 0;
        StationSummary {
            name: name.to_string(),
            discipline,
            servers,
            utilization: self.busy.mean(now) / f64::from(servers),
            throughput: per_second(completions, span),
            mean_queue_length: self.present.mean(now),
            mean_response: (completions > 0).then(|| self.visit.mean()),
            mean_wait: waits.then(|| self.wait.mean()),
            wait_probability: waits.then(|| self.waited as f64 / started as f64),
            completions,
        }
    }
}

/// `count` events over `span` seconds, as a rate (0 over no time).
pub(crate) fn per_second(count: u64, span: f64) -> f64 {
    if span > 0.0 { count as f64 / span } else { 0.0 }
}

/// `count` of `of`, as a fraction (0 of none).
pub(crate) fn fraction(count: u64, of: u64) -> f64 {
    if of > 0 {
        count as f64 / of as f64
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        // The extremes a class reports come from the histogram's
        // nanoseconds, converted: they must be the extremes of the
        // responses' seconds, bit for bit, and the mean Welford's.
        #[test]
        fn responses_report_the_extremes_and_mean_of_the_seconds(
            nanos in prop::collection::vec(0u64..1 << 50, 0..300),
        ) {
            let mut responses = Responses::new();
            nanos.iter().for_each(|&n| responses.record(SimTime::from_nanos(n)));
            let secs: Vec<f64> = nanos
                .iter()
                .map(|&n| SimTime::from_nanos(n).as_secs_f64())
                .collect();
            let least = secs.iter().copied().reduce(f64::min);
            let most = secs.iter().copied().reduce(f64::max);
            let mean = secs
                .iter()
                .enumerate()
                .fold(0.0, |m, (i, &x)| m + (x - m) / (i + 1) as f64);
            let summary = responses.summary("jobs", ClassKind::Open, 1.0, false);
            prop_assert_eq!(summary.completions, nanos.len() as u64);
            prop_assert_eq!(summary.response_min.map(f64::to_bits), least.map(f64::to_bits));
            prop_assert_eq!(summary.response_max.map(f64::to_bits), most.map(f64::to_bits));
            prop_assert_eq!(
                summary.mean_response.map(f64::to_bits),
                (!nanos.is_empty()).then_some(mean.to_bits())
            );
        }
    }
}
