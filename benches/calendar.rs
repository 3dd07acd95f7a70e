//! The classic hold model on the event calendar alone: pop the earliest
//! event and push one at its time + Exp(1), with the pending set held at
//! 10, 1,000, 100,000 and 1,000,000 events. Reported as hold operations
//! per second, beside its baseline in the same run: a bare `BinaryHeap` of
//! (time, sequence) keys fed the same random numbers.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand_distr::{Distribution, Exp1};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hint::black_box;
use tpsim::core::{Calendar, SimTime, Streams};

/// The pending-set sizes measured.
const SIZES: [u64; 4] = [10, 1_000, 100_000, 1_000_000];

fn hold(c: &mut Criterion) {
    let mut group = c.benchmark_group("calendar_hold");
    group.throughput(Throughput::Elements(1));
    for size in SIZES {
        let mut rng = Streams::new(1, 0).stream("bench/hold");
        let mut calendar = Calendar::new();
        let mut draw = move || -> SimTime {
            let e: f64 = Exp1.sample(&mut rng);
            SimTime::from_secs_f64(e)
        };
        for i in 0..size {
            let _ = calendar.schedule(draw(), i);
        }
        group.bench_function(BenchmarkId::from_parameter(size), |b| {
            b.iter(|| {
                let (now, event) = calendar.pop().expect("the pending set never empties");
                let _ = calendar.schedule(now + draw(), black_box(event));
            })
        });
    }
    group.finish();
    let mut group = c.benchmark_group("bare_heap_hold");
    group.throughput(Throughput::Elements(1));
    for size in SIZES {
        let mut rng = Streams::new(1, 0).stream("bench/hold");
        let mut heap = BinaryHeap::new();
        let mut draw = move || -> u64 {
            let e: f64 = Exp1.sample(&mut rng);
            SimTime::from_secs_f64(e).as_nanos()
        };
        for seq in 0..size {
            heap.push(Reverse((draw(), seq)));
        }
        let mut seq = size;
        group.bench_function(BenchmarkId::from_parameter(size), |b| {
            b.iter(|| {
                let Reverse((now, _)) = heap.pop().expect("the pending set never empties");
                heap.push(Reverse((now + draw(), black_box(seq))));
                seq += 1;
            })
        });
    }
    group.finish();
}

criterion_group!(benches, hold);
criterion_main!(benches);
