//! Time-sharing model speed: a thrashing paged system and a swapped one,
//! reported as events per second, model and statistics included.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use tpsim::core::SimTime;
use tpsim::models::System;

fn shipped(name: &str, end_time: u64) -> System {
    let path = format!("{}/../scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("the scenario is shipped");
    let mut sys = tpsim::models::load_system(&path, &text).expect("the shipped scenario is valid");
    sys.end_time = SimTime::from_secs(end_time);
    sys
}

fn timesharing(c: &mut Criterion) {
    let mut group = c.benchmark_group("timesharing");
    group.sample_size(10);
    for (name, end_time) in [("thrashing", 5_000), ("berkeley-1979-swapped", 20_000)] {
        let sys = shipped(name, end_time);
        let events = tpsim::models::system::simulate(&sys, 1, 0).summary.events;
        group.throughput(Throughput::Elements(events));
        group.bench_function(name, |b| {
            b.iter(|| black_box(tpsim::models::system::simulate(black_box(&sys), 1, 0)))
        });
    }
    group.finish();
}

criterion_group!(benches, timesharing);
criterion_main!(benches);
