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
    match &mut scenario {
        Scenario::Network(net) => {
            // Large populations are valid but slow to set up: not what
            // this target looks for.
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
            if jobs > 10_000 {
                return;
            }
            net.max_events = Some(5_000);
            net.end_time = net.end_time.min(SimTime::from_secs(1_000_000));
            net.warmup = net.warmup.min(net.end_time);
            let _ = tpsim_models::simulate(net, net.seed, 0);
        }
        Scenario::System(sys) => {
            let users = match &sys.users.population {
                tpsim_models::system::Population::Fixed(n) => *n,
                tpsim_models::system::Population::Sessions(s) => s.terminals,
            };
            let background: u32 = sys.background.iter().map(|b| b.count).sum();
            if users > 10_000 || background > 10_000 || sys.cpu.count > 64 {
                return;
            }
            sys.max_events = Some(5_000);
            let _ = tpsim_models::system::simulate(sys, sys.seed, 0);
        }
    }
});
