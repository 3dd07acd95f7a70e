//! Every shipped scenario loads and runs, and does some work: commands
//! complete, or its probe's benchmarks do (the time-sharing scenarios in
//! the golden summaries' test, which runs each of them).

use tpsim::core::SimTime;
use tpsim::models::{Scenario, Summary};

#[test]
fn every_shipped_scenario_loads_and_runs() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    names.sort();
    assert!(names.len() >= 14, "{names:?}");
    let short = SimTime::from_secs(1_000);
    for path in names {
        let text = std::fs::read_to_string(&path).unwrap();
        let file = path.display().to_string();
        let scenario = tpsim::models::load(&file, &text).unwrap_or_else(|e| panic!("{e}"));
        match scenario {
            Scenario::Network(mut net) => {
                (net.settings.end_time, net.settings.warmup) = (short, SimTime::ZERO);
                let s = tpsim::models::simulate(&net, net.settings.seed, 0).summary;
                let completions = s.classes.iter().map(|c| c.completions).sum::<u64>();
                assert!(completions > 0, "{file}: nothing completed");
            }
            // Each runs, shortened, at three seeds in the golden summaries'
            // test, which checks its summary with `does_work`.
            Scenario::System(_) => {}
        }
    }
}

/// A time-sharing run's summary adds up and shows work done: the
/// processors' time split into parts that sum to the whole, idle time
/// split by whether a process was held back, and commands completed (or
/// the probe's benchmarks, where no user types).
pub(crate) fn does_work(file: &str, s: &Summary) {
    let cpu = s.cpu.as_ref().unwrap();
    let total = cpu.user
        + cpu.fault_handling
        + cpu.context_switch
        + cpu.interrupts
        + cpu.segment_faults
        + cpu.buffer_copies.unwrap_or(0.0)
        + cpu.page_clears.unwrap_or(0.0)
        + cpu.idle;
    assert!((total - 1.0).abs() < 1e-9, "{file}: {cpu:?}");
    // Idle split by whether a process is held back by eligibility or
    // memory, each part from its own meter.
    let idle = cpu.multiprogramming_idle + cpu.other_idle;
    assert!((idle - cpu.idle).abs() < 1e-9, "{file}: {cpu:?}");
    let probed = s.probe.as_ref().map_or(0, |p| p.observations);
    let completions = s.classes.iter().map(|c| c.completions).sum::<u64>() + probed;
    assert!(completions > 0, "{file}: nothing completed");
}
