//! Scenario parsing and validation, then a short run of whatever passes:
//! no input may panic, hang or exhaust memory.
//!
//! `cargo +nightly fuzz run scenario fuzz/corpus/scenario` from the
//! repository's root; the corpus starts from the shipped scenarios.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tpsim_models::{Scenario, SimTime};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(mut scenario) = tpsim_models::load("fuzz.toml", text) else {
        return;
    };
    // Large populations are valid but slow to set up: not what this
    // target looks for.
    let too_large = match &scenario {
        Scenario::Network(net) => {
            let jobs: u64 = net
                .classes
                .iter()
                .map(|c| match &c.kind {
                    tpsim_models::network::ClassKind::Closed { terminals, .. } => {
                        u64::from(*terminals)
                    }
                    tpsim_models::network::ClassKind::Open { .. } => 0,
                })
                .sum();
            jobs > 10_000
        }
        Scenario::System(sys) => {
            let users = match &sys.users.population {
                tpsim_models::system::Population::Fixed(n) => *n,
                tpsim_models::system::Population::Sessions(s) => s.terminals,
            };
            let background: u32 = sys.background.iter().map(|b| b.count).sum();
            users > 10_000 || background > 10_000 || sys.cpu.count > 64
        }
    };
    if too_large {
        return;
    }
    let settings = scenario.settings_mut();
    settings.max_events = Some(5_000);
    settings.end_time = settings.end_time.min(SimTime::from_secs(1_000_000));
    settings.warmup = settings.warmup.min(settings.end_time);
    let _ = scenario.run(0, |_| true);
});
