//! Whole-simulator speed: the shipped M/M/1 scenario (rho = 0.8), reported
//! as events per second, kernel, model and statistics included.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use tpsim::core::SimTime;

fn mm1(c: &mut Criterion) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenarios/mm1.toml");
    let text = std::fs::read_to_string(path).expect("scenarios/mm1.toml is shipped");
    let mut net = tpsim::models::load_network(path, &text).expect("the shipped scenario is valid");
    net.settings.end_time = SimTime::from_secs(50_000);
    let events = tpsim::models::simulate(&net, 1, 0).summary.events;
    let mut group = c.benchmark_group("mm1");
    group.throughput(Throughput::Elements(events));
    group.sample_size(20);
    group.bench_function("events", |b| {
        b.iter(|| black_box(tpsim::models::simulate(black_box(&net), 1, 0).summary))
    });
    group.finish();
}

criterion_group!(benches, mm1);
criterion_main!(benches);
