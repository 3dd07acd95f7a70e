//! The bare loop of `bare.rs` keeping the statistics tpsim's M/M/1 run
//! reports with tpsim's own statistics types, where
//! `bare_with_statistics.rs` keeps them by hand: the two loops are the same
//! but for the statistics, so the ratio between them is what tpsim's
//! statistics types cost over the least work that gives the same figures.
//! It was the like-for-like baseline before the hand-written one, and is
//! kept for that ratio and for the history. Measured as
//! `network/bare_loop_with_tpsim_statistics`.

use crate::bare::{ARRIVAL, DEPARTURE, END, nanos, start};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Throughput};
use rand_distr::{Distribution, Exp1};
use std::cmp::Reverse;
use std::collections::VecDeque;
use std::hint::black_box;
use tpsim::core::{BatchMeans, Quantiles, SimTime, Tally, TimeWeighted};

/// The bare loop keeping what tpsim's M/M/1 run reports, with tpsim's own
/// statistics types: each response in a Welford tally, an HDR histogram
/// and batch means (the class), the time-weighted number present and busy
/// time, the visit and the wait before service in tallies, and how many
/// waited (the station). Returns the events handled and the mean
/// response, so that nothing is optimised away.
pub fn bare_mm1_with_tpsim_statistics(seed: u64) -> (u64, f64) {
    let (mut arrivals, mut services, mut heap) = start(seed);
    let end = END * 1_000_000_000;
    let mut queue: VecDeque<u64> = VecDeque::new();
    let (mut events, mut waited) = (0u64, 0u64);
    let (mut responses, mut visits, mut waits) = (Tally::new(), Tally::new(), Tally::new());
    let (mut quantiles, mut batches) = (Quantiles::new(), BatchMeans::new());
    let mut present = TimeWeighted::new(SimTime::ZERO, 0.0);
    let mut busy = TimeWeighted::new(SimTime::ZERO, 0.0);
    while let Some(Reverse((now, kind))) = heap.pop() {
        if now > end {
            break;
        }
        events += 1;
        let at = SimTime::from_nanos(now);
        if kind == ARRIVAL {
            let gap: f64 = Exp1.sample(&mut arrivals);
            heap.push(Reverse((now + nanos(gap / 0.8), ARRIVAL)));
            queue.push_back(now);
            present.add(at, 1.0);
            if queue.len() == 1 {
                waits.add(0.0);
                busy.add(at, 1.0);
                let service: f64 = Exp1.sample(&mut services);
                heap.push(Reverse((now + nanos(service), DEPARTURE)));
            }
        } else {
            let arrived = queue.pop_front().expect("a job in service");
            let response = SimTime::from_nanos(now - arrived);
            let secs = response.as_secs_f64();
            responses.add(secs);
            quantiles.record(response);
            batches.add(secs);
            visits.add(secs);
            present.add(at, -1.0);
            match queue.front() {
                Some(&next) => {
                    waits.add((now - next) as f64 * 1e-9);
                    waited += u64::from(now > next);
                    let service: f64 = Exp1.sample(&mut services);
                    heap.push(Reverse((now + nanos(service), DEPARTURE)));
                }
                None => busy.add(at, -1.0),
            }
        }
    }
    let end = SimTime::from_nanos(end);
    black_box((
        present.mean(end),
        busy.mean(end),
        waits.mean(),
        waited,
        visits.mean(),
    ));
    black_box((quantiles.quantile(0.5), batches.interval(0.95).ok()));
    (events, responses.mean())
}

/// Adds the bare loop with tpsim's statistics to `group` as
/// `bare_loop_with_tpsim_statistics`, with its events as the throughput.
pub fn bench(group: &mut BenchmarkGroup<'_, WallTime>) {
    let (events, response) = bare_mm1_with_tpsim_statistics(1);
    assert!(
        (response - 5.0).abs() < 1.0,
        "the loop is an M/M/1 with mean response 5 s: {response}"
    );
    group.throughput(Throughput::Elements(events));
    group.bench_function("bare_loop_with_tpsim_statistics", |b| {
        b.iter(|| black_box(bare_mm1_with_tpsim_statistics(black_box(1))))
    });
}
