//! Whole-simulator speed on queueing networks: the shipped M/M/1 (rho =
//! 0.8), machine-repairman and central-server scenarios, reported as events
//! per second, kernel, model and statistics included, beside their
//! baselines measured in the same run: M/M/1 as a bare event loop
//! (`bare.rs`), as the same loop keeping every figure tpsim's M/M/1 reports
//! by hand (`bare_with_statistics.rs`, the like-for-like baseline), and as
//! the same loop keeping them with tpsim's statistics types
//! (`bare_with_tpsim_statistics.rs`).

mod bare;
mod bare_with_statistics;
mod bare_with_tpsim_statistics;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use tpsim::core::SimTime;

fn network(c: &mut Criterion) {
    let mut group = c.benchmark_group("network");
    group.sample_size(20);
    for name in ["mm1", "repairman", "central-server"] {
        let path = format!("{}/../scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).expect("the scenario is shipped");
        let mut net =
            tpsim::models::load_network(&path, &text).expect("the shipped scenario is valid");
        net.settings.end_time = SimTime::from_secs(bare::END);
        let events = tpsim::models::simulate(&net, 1, 0).summary.events;
        group.throughput(Throughput::Elements(events));
        group.bench_function(name, |b| {
            b.iter(|| black_box(tpsim::models::simulate(black_box(&net), 1, 0).summary))
        });
    }
    bare::bench(&mut group);
    bare_with_statistics::bench(&mut group);
    bare_with_tpsim_statistics::bench(&mut group);
    group.finish();
}

criterion_group!(benches, network);
criterion_main!(benches);
