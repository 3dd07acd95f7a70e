//! The baseline of the whole-simulator benchmarks: M/M/1 (rho = 0.8) as a
//! bare event loop (a `BinaryHeap` of (time, kind), Xoshiro256++, `Exp1`,
//! and only the count of jobs present), which is as fast as an event loop
//! in Rust gets without tricks. Each benchmark that compares with it
//! measures it in its own run, as `<group>/bare_loop`.

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Throughput};
use rand_distr::{Distribution, Exp1};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hint::black_box;
use tpsim::core::{Stream, Streams};

/// Simulated time of each run [s].
pub const END: u64 = 50_000;

/// The kinds of event of the loops.
pub const ARRIVAL: u8 = 0;
pub const DEPARTURE: u8 = 1;

/// A loop's calendar: (time \[ns\], kind), earliest first.
pub type Calendar = BinaryHeap<Reverse<(u64, u8)>>;

/// The start of a loop for replication `seed`: its arrival and service
/// streams, and its calendar holding the first arrival (rate 0.8).
pub fn start(seed: u64) -> (Stream, Stream, Calendar) {
    let streams = Streams::new(seed, 0);
    let (mut arrivals, services) = (streams.stream("a"), streams.stream("s"));
    let mut heap = BinaryHeap::new();
    let first: f64 = Exp1.sample(&mut arrivals);
    heap.push(Reverse((nanos(first / 0.8), ARRIVAL)));
    (arrivals, services, heap)
}

/// `x` seconds in nanoseconds, as tpsim keeps times.
pub fn nanos(x: f64) -> u64 {
    (x * 1e9) as u64
}

/// The bare loop: arrivals at rate 0.8, service at rate 1, times in
/// nanoseconds as tpsim keeps them. Returns the events handled and the
/// time-average number present, so that nothing is optimised away.
pub fn bare_mm1(seed: u64) -> (u64, f64) {
    let (mut arrivals, mut services, mut heap) = start(seed);
    let end = END * 1_000_000_000;
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

/// Adds the bare loop to `group` as `bare_loop`, with its events as the
/// throughput.
pub fn bench(group: &mut BenchmarkGroup<'_, WallTime>) {
    let (events, present) = bare_mm1(1);
    assert!(
        (present - 4.0).abs() < 1.0,
        "the bare loop is an M/M/1: L = {present}"
    );
    group.throughput(Throughput::Elements(events));
    group.bench_function("bare_loop", |b| {
        b.iter(|| black_box(bare_mm1(black_box(1))))
    });
}
