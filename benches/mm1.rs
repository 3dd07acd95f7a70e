//! Whole-simulator speed: the shipped M/M/1 scenario (rho = 0.8), reported
//! as events per second, kernel, model and statistics included, beside
//! its baseline measured in the same run: the same queue as a bare event
//! loop (a `BinaryHeap` of (time, kind), Xoshiro256++, `Exp1`, and only
//! the count of jobs present), which is as fast as an event loop in Rust
//! gets without tricks.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand_distr::{Distribution, Exp1};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hint::black_box;
use tpsim::core::{SimTime, Streams};

/// Simulated time of each run [s].
const END: u64 = 50_000;

/// The bare loop: arrivals at rate 0.8, service at rate 1, times in
/// nanoseconds as tpsim keeps them. Returns the events handled and the
/// time-average number present, so that nothing is optimised away.
fn bare_mm1(seed: u64) -> (u64, f64) {
    const ARRIVAL: u8 = 0;
    const DEPARTURE: u8 = 1;
    let streams = Streams::new(seed, 0);
    let (mut arrivals, mut services) = (streams.stream("a"), streams.stream("s"));
    let end = END * 1_000_000_000;
    let nanos = |x: f64| (x * 1e9) as u64;
    let mut heap = BinaryHeap::new();
    let first: f64 = Exp1.sample(&mut arrivals);
    heap.push(Reverse((nanos(first / 0.8), ARRIVAL)));
    let (mut present, mut events, mut last, mut area) = (0u64, 0u64, 0u64, 0.0);
    while let Some(Reverse((now, kind))) = heap.pop() {
        if now > end {
            break;
        }
        events += 1;
        area += present as f64 * (now - last) as f64;
        last = now;
        if kind == ARRIVAL {
            let gap: f64 = Exp1.sample(&mut arrivals);
            heap.push(Reverse((now + nanos(gap / 0.8), ARRIVAL)));
            present += 1;
            if present == 1 {
                let service: f64 = Exp1.sample(&mut services);
                heap.push(Reverse((now + nanos(service), DEPARTURE)));
            }
        } else {
            present -= 1;
            if present > 0 {
                let service: f64 = Exp1.sample(&mut services);
                heap.push(Reverse((now + nanos(service), DEPARTURE)));
            }
        }
    }
    (events, area / end as f64)
}

fn mm1(c: &mut Criterion) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenarios/mm1.toml");
    let text = std::fs::read_to_string(path).expect("scenarios/mm1.toml is shipped");
    let mut net = tpsim::models::load_network(path, &text).expect("the shipped scenario is valid");
    net.settings.end_time = SimTime::from_secs(END);
    let events = tpsim::models::simulate(&net, 1, 0).summary.events;
    let mut group = c.benchmark_group("mm1");
    group.sample_size(20);
    group.throughput(Throughput::Elements(events));
    group.bench_function("events", |b| {
        b.iter(|| black_box(tpsim::models::simulate(black_box(&net), 1, 0).summary))
    });
    let (bare_events, present) = bare_mm1(1);
    assert!((present - 4.0).abs() < 1.0, "the bare loop is an M/M/1: L = {present}");
    group.throughput(Throughput::Elements(bare_events));
    group.bench_function("bare_loop", |b| b.iter(|| black_box(bare_mm1(black_box(1)))));
    group.finish();
}

criterion_group!(benches, mm1);
criterion_main!(benches);
