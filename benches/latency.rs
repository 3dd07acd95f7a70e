//! The machine's memory latency by the size of what a program reads at
//! random: a chase of dependent loads round a random cycle of 64-byte
//! lines spread over 16 KiB to 256 MiB. Each load waits for the one before,
//! so its time is the latency of the level the lines live in (first- and
//! second-level cache, the third level, memory) with the address
//! translation's misses added. Not a tpsim benchmark: it is the yardstick
//! the cost of an event at scale is read against (docs/PERFORMANCE.md,
//! "The scale against the machine's memory").

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand_distr::{Distribution, Uniform};
use std::hint::black_box;
use tpsim::core::Streams;

/// The sizes measured, in KiB.
const SIZES_KIB: [usize; 10] = [
    16, 256, 1_024, 2_048, 4_096, 8_192, 16_384, 32_768, 65_536, 262_144,
];

/// Loads per iteration.
const LOADS: u64 = 1_024;

/// A table of `lines` lines of 64 bytes whose first words link them into
/// one random cycle (Sattolo's shuffle), with the index of a line's first
/// word as the link.
fn random_cycle(lines: usize) -> Vec<usize> {
    let mut rng = Streams::new(1, 0).stream("bench/latency");
    let mut order: Vec<usize> = (0..lines).collect();
    for i in (1..lines).rev() {
        let j = Uniform::new(0, i).expect("a range").sample(&mut rng);
        order.swap(i, j);
    }
    let mut table = vec![0; lines * 8];
    for k in 0..lines {
        table[order[k] * 8] = order[(k + 1) % lines] * 8;
    }
    table
}

fn latency(c: &mut Criterion) {
    let mut group = c.benchmark_group("memory-latency");
    group.throughput(Throughput::Elements(LOADS));
    for kib in SIZES_KIB {
        let table = random_cycle(kib * 1_024 / 64);
        let mut at = 0;
        group.bench_function(BenchmarkId::from_parameter(format!("{kib}KiB")), |b| {
            b.iter(|| {
                for _ in 0..LOADS {
                    at = table[at];
                }
                black_box(at)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, latency);
criterion_main!(benches);
