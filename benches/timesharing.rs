//! Time-sharing model speed: a thrashing paged system (memory counted, and
//! memory as frames under the clock), the Berkeley paged and swapped
//! systems (the swapped one also with a buffer cache) and the M.I.T.
//! Multics,
//! reported as events per second, model and statistics included; and the
//! same two at 10 to 10,000 users, memory growing with the users, to show
//! that the cost of an event does not grow with the number of processes;
//! and the clock at 256 KiB to 64 MiB of memory at the same load, to show
//! that it does not grow with memory either. The first and last groups
//! measure their baseline, the bare M/M/1 loop, beside them.

mod bare;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use tpsim::core::SimTime;
use tpsim::models::System;
use tpsim::models::system::{
    BufferRules, FileSystem, Layout, Paging, Policy, Population, Replacement,
};

fn shipped(name: &str, end_time: u64) -> System {
    let path = format!("{}/../scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("the scenario is shipped");
    let mut sys = tpsim::models::load_system(&path, &text).expect("the shipped scenario is valid");
    sys.settings.end_time = SimTime::from_secs(end_time);
    sys
}

fn timesharing(c: &mut Criterion) {
    let mut group = c.benchmark_group("timesharing");
    group.sample_size(10);
    for (name, end_time) in [
        ("thrashing", 5_000),
        ("thrashing-clock", 5_000),
        ("berkeley-1979-paged", 20_000),
        ("berkeley-1979-swapped", 20_000),
        ("multics-mit-1975", 3_600),
    ] {
        let sys = shipped(name, end_time);
        let events = tpsim::models::system::simulate(&sys, 1, 0).summary.events;
        group.throughput(Throughput::Elements(events));
        group.bench_function(name, |b| {
            b.iter(|| black_box(tpsim::models::system::simulate(black_box(&sys), 1, 0)))
        });
    }
    // The swapped system again with a larger buffer cache (`[files]`) of
    // 1-KiB blocks: exec reads each image block by block, many more events
    // per command; the cost per event is what compares. The scenario's
    // data files stay: its commands read and write them.
    let mut cached = shipped("berkeley-1979-swapped", 20_000);
    let data = cached
        .files
        .take()
        .map_or_else(Vec::new, |files| files.data);
    cached.files = Some(FileSystem {
        buffers: 100,
        block: 1024,
        read_ahead: true,
        copy: SimTime::from_nanos(500_000),
        data,
        rules: BufferRules::V7,
        layout: Layout::Scattered,
    });
    let events = tpsim::models::system::simulate(&cached, 1, 0)
        .summary
        .events;
    group.throughput(Throughput::Elements(events));
    group.bench_function("berkeley-1979-swapped+cache", |b| {
        b.iter(|| black_box(tpsim::models::system::simulate(black_box(&cached), 1, 0)))
    });
    bare::bench(&mut group);
    group.finish();
}

/// `sys` with `users` users logged in all the time and user memory in
/// proportion (as much per user as the shipped scenario gives each of its
/// terminals), run for a fixed number of events. Under the clock,
/// `lotsfree` and `desfree` take their 3BSD defaults for that memory and
/// the hand's revolution times grow with it, so that it scans as many
/// frames a second as in the shipped scenario: at fixed revolution times,
/// the daemon's work per simulated second grows with memory by 3BSD's
/// design, while the one processor and one disk cap the events a second.
fn scaled(sys: &System, users: u32, events: u64) -> System {
    let mut sys = sys.clone();
    let shipped = match &sys.users.population {
        Population::Fixed(n) => *n,
        Population::Sessions(s) => s.terminals,
    };
    let per_user = sys.memory.user_bytes() / u64::from(shipped);
    let user_bytes = (per_user * u64::from(users)).next_multiple_of(sys.memory.page);
    sys.memory.size = sys.memory.kernel + user_bytes;
    rescale_clock(
        &mut sys,
        user_bytes as f64 / (per_user * u64::from(shipped)) as f64,
    );
    sys.users.population = Population::Fixed(users);
    for_events(&mut sys, events);
    sys
}

/// Under the clock, `lotsfree`, `desfree` and `minfree` at their 3BSD
/// defaults for `sys`'s memory and the revolution times scaled by
/// `growth`, the memory's ratio to the shipped scenario's.
fn rescale_clock(sys: &mut System, growth: f64) {
    let frames = sys.memory.user_frames();
    if let Policy::Paging(Paging {
        replacement: Replacement::Clock(clock),
        ..
    }) = &mut sys.memory.policy
    {
        clock.lotsfree = frames / 8;
        clock.desfree = clock.lotsfree.min(64);
        clock.minfree = clock.desfree.min(32);
        clock.slowscan *= growth;
        clock.fastscan *= growth;
    }
}

/// `sys` run from time 0 for `events` events.
fn for_events(sys: &mut System, events: u64) {
    sys.settings.warmup = SimTime::ZERO;
    sys.settings.end_time = SimTime::from_secs(1_000_000_000);
    sys.settings.max_events = Some(events);
}

fn timesharing_users(c: &mut Criterion) {
    let mut group = c.benchmark_group("timesharing-users");
    group.sample_size(10);
    for name in ["thrashing", "thrashing-clock", "berkeley-1979-swapped"] {
        let shipped = shipped(name, 1);
        for users in [10, 100, 1_000, 10_000] {
            // Long enough for every user to be busy: the first think times
            // and memory filling up are a small part of the run.
            let events = 100_000 + 200 * u64::from(users);
            group.throughput(Throughput::Elements(events));
            let sys = scaled(&shipped, users, events);
            group.bench_function(format!("{name}/{users}"), |b| {
                b.iter(|| black_box(tpsim::models::system::simulate(black_box(&sys), 1, 0)))
            });
        }
    }
    group.finish();
}

/// `thrashing-clock.toml` with its 16 users and user memory of `bytes`:
/// `lotsfree` and `desfree` at their 3BSD defaults for that memory and
/// the revolution times scaled with it, so that the hand may scan as many
/// frames a second as in the shipped scenario; `events` events.
fn with_memory(sys: &System, bytes: u64, events: u64) -> System {
    let mut sys = sys.clone();
    let shipped = sys.memory.user_bytes();
    sys.memory.size = sys.memory.kernel + bytes;
    rescale_clock(&mut sys, bytes as f64 / shipped as f64);
    for_events(&mut sys, events);
    sys
}

/// The cost of an event against memory size, 256 KiB to 64 MiB, at the
/// same 16 users: from deep thrashing to memory to spare.
fn timesharing_memory(c: &mut Criterion) {
    let mut group = c.benchmark_group("timesharing-memory");
    group.sample_size(10);
    let shipped = shipped("thrashing-clock", 1);
    let events = 300_000;
    group.throughput(Throughput::Elements(events));
    for kib in [256, 1_024, 4_096, 16_384, 65_536] {
        let sys = with_memory(&shipped, kib * 1024, events);
        group.bench_function(format!("thrashing-clock/{kib}KiB"), |b| {
            b.iter(|| black_box(tpsim::models::system::simulate(black_box(&sys), 1, 0)))
        });
    }
    bare::bench(&mut group);
    group.finish();
}

/// `thrashing-clock.toml` with everything multiplied by `k`: its user
/// memory, users, processors and paging drives (pages spread over them),
/// and the daemon's thresholds (20 pages each in the shipped scenario),
/// so that each part carries the same load; `events` events.
fn multiplied(k: u64, events: u64) -> System {
    let path = format!(
        "{}/../scenarios/thrashing-clock.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("the scenario is shipped");
    let (head, device) = text
        .split_once("[[device]]")
        .expect("thrashing-clock.toml has a device");
    let (device, rest) = device
        .split_once("[users]")
        .expect("its users follow its device");
    let names: Vec<String> = (0..k).map(|d| format!("\"disk{d}\"")).collect();
    let head = head
        .replace("cpus = 1\n", &format!("cpus = {k}\n"))
        .replace("size = \"160KiB\"", &format!("size = \"{}KiB\"", 160 * k))
        .replace(
            "device = \"disk\"",
            &format!(
                "device = [{}]\nlotsfree = \"{t}KiB\"\ndesfree = \"{t}KiB\"\nminfree = \"{t}KiB\"",
                names.join(", "),
                t = 20 * k
            ),
        );
    let devices: String = (0..k)
        .map(|d| {
            format!(
                "[[device]]{}",
                device.replace("\"disk\"", &format!("\"disk{d}\""))
            )
        })
        .collect();
    let rest = rest.replace("terminals = 16", &format!("terminals = {}", 16 * k));
    let text = format!("{head}{devices}[users]{rest}");
    let mut sys = tpsim::models::load_system("thrashing-clock-scaled.toml", &text)
        .expect("the multiplied scenario is valid");
    for_events(&mut sys, events);
    sys
}

/// The cost of an event as the whole system grows, every part by the same
/// factor (1, 16, 256 and 1,024 times `thrashing-clock`): what grows with
/// the size of the system, rather than with its load per part, shows here.
fn timesharing_scale(c: &mut Criterion) {
    let mut group = c.benchmark_group("timesharing-scale");
    // An iteration at x1,024 takes about a second: ten of them, not the
    // 55 of criterion's default, growing sampling.
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    for k in [1, 16, 256, 1_024] {
        // At x1 the first think times and memory filling up are a small
        // part of the run; at x1,024 it ends at 16 s of simulated time,
        // before memory is full (docs/PERFORMANCE.md, "The scale past its
        // start", measures past it).
        let events = 200_000 + 100 * 16 * k;
        let sys = multiplied(k, events);
        group.throughput(Throughput::Elements(events));
        group.bench_function(format!("thrashing-clock/x{k}"), |b| {
            b.iter(|| black_box(tpsim::models::system::simulate(black_box(&sys), 1, 0)))
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    timesharing,
    timesharing_users,
    timesharing_memory,
    timesharing_scale
);
criterion_main!(benches);
