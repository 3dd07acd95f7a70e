//! The like-for-like baseline for tpsim's M/M/1: the bare loop of `bare.rs`
//! keeping every figure a run of `scenarios/mm1.toml` reports, each kept by
//! hand with the least work that gives it, as a performance engineer would
//! write it for this one model. The bare loop keeps none of the figures,
//! so the ratio to it mixes the statistics' cost with the simulator's; the
//! ratio to this one is what tpsim costs over a program that does the same
//! measuring by hand. Measured beside tpsim's M/M/1 as
//! `network/bare_loop_with_statistics`.
//!
//! What the run reports, and how each figure is kept here:
//!
//! - the class's mean, least and greatest response: a Welford tally;
//! - its percentiles: an HDR histogram of the responses in nanoseconds
//!   with three significant digits, as tpsim's;
//! - the confidence interval of its mean: batch sums, at most 2,560 kept,
//!   neighbours added pairwise when that many are full (as tpsim's batch
//!   means are kept);
//! - the station's mean number present and utilisation: the integral of
//!   the number present over time, and the total length of busy periods;
//! - its mean time per visit and mean wait before service: sums of
//!   nanoseconds, and how many waited;
//! - throughputs and completions: counts.

use crate::bare::{ARRIVAL, DEPARTURE, END, nanos, start};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Throughput};
use rand_distr::{Distribution, Exp1};
use std::cmp::Reverse;
use std::collections::VecDeque;
use std::hint::black_box;

/// Counts of durations [ns] in buckets of three significant digits, laid
/// out as the `hdrhistogram` crate lays them out: a bucket per nanosecond
/// below 2,048, then 1,024 buckets for each further power of two.
struct Histogram {
    counts: Vec<u64>,
}

impl Histogram {
    fn record(&mut self, nanos: u64) {
        let shift = 53 - (nanos | 2047).leading_zeros();
        let bucket = ((shift as usize) << 10) + (nanos >> shift) as usize;
        if bucket >= self.counts.len() {
            self.counts.resize(bucket + 1, 0);
        }
        self.counts[bucket] += 1;
    }

    /// The durations [ns] bucket `bucket` spans, from and below.
    fn span(bucket: usize) -> (u64, u64) {
        let shift = (bucket >> 10).saturating_sub(1);
        let first = (bucket - (shift << 10)) as u64;
        (first << shift, (first + 1) << shift)
    }

    /// The `q`-quantile [s] of `n` durations, read inside its bucket.
    fn quantile(&self, q: f64, n: u64) -> f64 {
        let rank = q * n as f64;
        let mut below = 0;
        for (bucket, &count) in self.counts.iter().enumerate() {
            if count > 0 && (below + count) as f64 >= rank {
                let (low, high) = Self::span(bucket);
                let within = (rank - below as f64) / count as f64;
                return (low as f64 + within * (high - low) as f64) * 1e-9;
            }
            below += count;
        }
        0.0
    }
}

/// Kept batch sums at most, as tpsim keeps batch means.
const KEPT: usize = 2_560;

/// The bare loop keeping every figure tpsim's M/M/1 run reports, by hand.
/// Returns the events handled and the mean response, so that nothing is
/// optimised away.
pub fn bare_mm1_with_statistics(seed: u64) -> (u64, f64) {
    let (mut arrivals, mut services, mut heap) = start(seed);
    let end = END * 1_000_000_000;
    let mut queue: VecDeque<u64> = VecDeque::new();
    let mut events = 0u64;
    // The class: a Welford tally, the histogram and batch sums.
    let (mut done, mut mean, mut m2) = (0u64, 0.0f64, 0.0f64);
    let (mut least, mut most) = (f64::INFINITY, 0.0f64);
    let mut histogram = Histogram { counts: Vec::new() };
    let (mut batch, mut filled, mut sum) = (1u64, 0u64, 0.0f64);
    let mut sums: Vec<f64> = Vec::with_capacity(KEPT);
    // The station: integrals over time and sums over visits [ns].
    let (mut last, mut area, mut busy_from, mut busy) = (0u64, 0.0f64, 0u64, 0u64);
    let (mut visits, mut waits, mut started, mut waited) = (0u64, 0u64, 0u64, 0u64);
    while let Some(Reverse((now, kind))) = heap.pop() {
        if now > end {
            break;
        }
        events += 1;
        area += queue.len() as f64 * (now - last) as f64;
        last = now;
        if kind == ARRIVAL {
            let gap: f64 = Exp1.sample(&mut arrivals);
            heap.push(Reverse((now + nanos(gap / 0.8), ARRIVAL)));
            queue.push_back(now);
            if queue.len() == 1 {
                started += 1;
                busy_from = now;
                let service: f64 = Exp1.sample(&mut services);
                heap.push(Reverse((now + nanos(service), DEPARTURE)));
            }
        } else {
            let arrived = queue.pop_front().expect("a job in service");
            let response = now - arrived;
            visits += response;
            histogram.record(response);
            let secs = response as f64 * 1e-9;
            done += 1;
            let delta = secs - mean;
            mean += delta / done as f64;
            m2 += delta * (secs - mean);
            least = least.min(secs);
            most = most.max(secs);
            sum += secs;
            filled += 1;
            if filled == batch {
                sums.push(sum);
                (sum, filled) = (0.0, 0);
                if sums.len() == KEPT {
                    for i in 0..KEPT / 2 {
                        sums[i] = sums[2 * i] + sums[2 * i + 1];
                    }
                    sums.truncate(KEPT / 2);
                    batch *= 2;
                }
            }
            match queue.front() {
                Some(&next) => {
                    started += 1;
                    waits += now - next;
                    waited += u64::from(now > next);
                    let service: f64 = Exp1.sample(&mut services);
                    heap.push(Reverse((now + nanos(service), DEPARTURE)));
                }
                None => busy += now - busy_from,
            }
        }
    }
    if !queue.is_empty() {
        busy += end - busy_from;
    }
    area += queue.len() as f64 * (end - last) as f64;
    let span = end as f64;
    black_box((area / span, busy as f64 / span, done as f64 / span * 1e9));
    black_box((
        visits as f64 * 1e-9 / done as f64,
        waits as f64 * 1e-9 / started as f64,
        waited as f64 / started as f64,
    ));
    black_box((least, most, m2 / (done - 1) as f64));
    for q in [0.5, 0.75, 0.9, 0.99] {
        black_box(histogram.quantile(q, done));
    }
    // A batch-means interval of the mean response (normal, at 95%).
    let k = sums.len() as f64;
    let (s, ss) = sums.iter().fold((0.0, 0.0), |(s, ss), &x| {
        let m = x / batch as f64;
        (s + m, ss + m * m)
    });
    black_box(1.96 * ((ss - s * s / k) / (k - 1.0) / k).sqrt());
    (events, mean)
}

/// Adds the bare loop with statistics to `group` as
/// `bare_loop_with_statistics`, with its events as the throughput.
pub fn bench(group: &mut BenchmarkGroup<'_, WallTime>) {
    let (events, response) = bare_mm1_with_statistics(1);
    assert!(
        (response - 5.0).abs() < 1.0,
        "the loop is an M/M/1 with mean response 5 s: {response}"
    );
    group.throughput(Throughput::Elements(events));
    group.bench_function("bare_loop_with_statistics", |b| {
        b.iter(|| black_box(bare_mm1_with_statistics(black_box(1))))
    });
}
