//! Page-level memory: frames scanned by the 3BSD clock, faults from the
//! phase model of references. Checked against the fault rate the model
//! implies at each resident set size, and against the effect it exists to
//! show: a thrashing knee that moves with memory.

use crate::{assert_covers, seed};
use tpsim::models::System;
use tpsim::models::system::{LifetimePoint, simulate};

/// One phase that outlasts the run, over the whole 100-page image, one
/// reference a millisecond: at `x` resident pages a process faults at the
/// rate (100 - x) / 100 per millisecond of processor time, whatever pages
/// the clock took.
const ONE_PHASE: &str = r#"
name = "one-phase"
seed = 11
[run]
end_time = "400s"
[system]
cpus = 1
quantum = "100ms"
context_switch = "0s"
[memory]
policy = "paging"
replacement = "clock"
size = "60KiB"
page = "1KiB"
device = "disk"
lotsfree = "4KiB"
desfree = "2KiB"
slowscan = "20ms"
fastscan = "10ms"
reclaim = true
[[device]]
name = "disk"
seek = { exp = { mean = "1ms" } }
rate = "4MB/s"
fault_cpu = "0s"
[users]
terminals = 2
think = { exp = { mean = "1s" } }
commands = [{ class = "job", weight = 1 }]
[[class]]
name = "job"
cpu = { exp = { mean = "2s" } }
size = "100KiB"
dirty = 0.5
locality = { phases = { set = 100, phase = { det = { value = "100000s" } }, reference = "1ms" } }
"#;

fn inline_system(text: &str) -> System {
    tpsim::models::load_system("inline.toml", text).unwrap()
}

/// Faults observed over faults expected at the rate the model implies,
/// over the resident set sizes `sizes` of one run's lifetime meter.
fn observed_over_expected(points: &[LifetimePoint], sizes: std::ops::Range<u64>) -> f64 {
    let (mut observed, mut expected) = (0.0, 0.0);
    for p in points.iter().filter(|p| sizes.contains(&p.resident_pages)) {
        observed += p.faults as f64;
        expected += p.cpu_seconds * (100 - p.resident_pages) as f64 / 100.0 / 1e-3;
    }
    observed / expected
}

#[test]
fn a_single_phase_faults_at_the_rate_its_resident_set_implies() {
    let sys = inline_system(ONE_PHASE);
    let runs: Vec<Vec<LifetimePoint>> = (0..10)
        .map(|r| simulate(&sys, seed(sys.settings.seed), r).lifetime)
        .collect();
    // The clock keeps the resident sets moving over a wide range.
    let sizes: Vec<u64> = runs[0].iter().map(|p| p.resident_pages).collect();
    assert!(sizes.contains(&5) && sizes.contains(&50), "{sizes:?}");
    for (what, range) in [
        ("faults at fewer than 28 resident pages", 0..28),
        ("faults at 28 resident pages or more", 28..101),
    ] {
        let ratios: Vec<f64> = runs
            .iter()
            .map(|points| observed_over_expected(points, range.clone()))
            .collect();
        assert_covers(what, &ratios, 1.0, 0.02);
    }
}
