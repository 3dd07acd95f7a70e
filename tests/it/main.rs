//! Workspace integration tests, built as one binary.
//!
//! - `validation`: every shipped queueing scenario against its exact
//!   queueing-theory result, with confidence intervals from independent
//!   replications.
//! - `cli`: `tpsim` as a user drives it: tables, JSON, output files, and
//!   bad input.
//! - `reproducibility`: the same scenario and seed give the same bytes.
//! - `scenarios`: every shipped scenario loads and runs.
//! - `timesharing`: the time-sharing model against exact MVA and Erlang's
//!   loss formula, and the effects it exists to show (thrashing knees,
//!   load control, images too big to swap).

mod cli;
mod reproducibility;
mod scenarios;
mod timesharing;
mod validation;

use std::path::PathBuf;
use tpsim::core::{ConfidenceInterval, SimTime};
use tpsim::models::{Network, Summary};

/// The path of a shipped scenario.
pub fn scenario_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(format!("{name}.toml"))
}

/// A shipped scenario, validated.
pub fn scenario(name: &str) -> Network {
    let path = scenario_path(name);
    let text = std::fs::read_to_string(&path).unwrap();
    tpsim::models::load_network(&path.display().to_string(), &text).unwrap()
}

/// A scenario given as text, validated.
pub fn inline(text: &str) -> Network {
    tpsim::models::load_network("inline.toml", text).unwrap()
}

/// `replications` independent replications of `net`, each run to `end` [s].
pub fn replicate(net: &Network, replications: u64, end: f64) -> Vec<Summary> {
    let mut net = net.clone();
    net.end_time = SimTime::from_secs_f64(end);
    (0..replications)
        .map(|r| tpsim::models::simulate(&net, net.seed, r))
        .collect()
}

/// Asserts that the 99% confidence interval of `samples` covers `exact` and
/// is narrower than `max_relative` of it, so that the check has the power to
/// fail when the model is wrong.
pub fn assert_covers(what: &str, samples: &[f64], exact: f64, max_relative: f64) {
    let ci = ConfidenceInterval::from_samples(samples, 0.99).unwrap();
    assert!(
        ci.contains(exact),
        "{what}: exact {exact} lies outside the 99% interval {:.5} ± {:.5}",
        ci.mean,
        ci.half_width
    );
    assert!(
        ci.half_width <= max_relative * exact.abs(),
        "{what}: interval ± {:.5} is wider than {}% of {exact}: too loose to test anything",
        ci.half_width,
        max_relative * 100.0
    );
}
