//! The classic hold model on the event calendar alone: pop the earliest
//! event and push one at its time + Exp(1), with the pending set held at
//! 10, 1,000 and 100,000 events. Reported as hold operations per second.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand_distr::{Distribution, Exp1};
use std::hint::black_box;
use tpsim::core::{Calendar, SimTime, Streams};

fn hold(c: &mut Criterion) {
    let mut group = c.benchmark_group("calendar_hold");
    group.throughput(Throughput::Elements(1));
    for size in [10u64, 1_000, 100_000] {
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
}

criterion_group!(benches, hold);
criterion_main!(benches);
