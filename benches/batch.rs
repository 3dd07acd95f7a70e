//! Replications on one thread and on two: the speed-up of `tpsim batch`.
//! Eight replications of the shipped M/M/1 scenario, 200,000 s each, run
//! through the same `Runner` on a pool of one thread and of two; criterion
//! reports replications per second for each, side by side in one run.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use tpsim::core::SimTime;
use tpsim::core::replicate::Runner;

const REPLICATIONS: u64 = 8;

fn batch(c: &mut Criterion) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenarios/mm1.toml");
    let text = std::fs::read_to_string(path).expect("scenarios/mm1.toml is shipped");
    let mut net = tpsim::models::load_network(path, &text).expect("the shipped scenario is valid");
    net.settings.end_time = SimTime::from_secs(200_000);
    let mut group = c.benchmark_group("batch");
    group.throughput(Throughput::Elements(REPLICATIONS));
    group.sample_size(10);
    for threads in [1, 2] {
        let runner = Runner::new(threads).expect("a thread pool");
        group.bench_function(format!("threads-{threads}"), |b| {
            b.iter(|| {
                black_box(runner.replicate(1, 0..REPLICATIONS, |s| {
                    tpsim::models::simulate(&net, s.master_seed(), s.replication())
                        .summary
                        .events
                }))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, batch);
criterion_main!(benches);
