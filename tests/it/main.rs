//! Workspace integration tests, built as one binary.
//!
//! - `validation`: every shipped queueing scenario against its exact
//!   queueing-theory result, with confidence intervals from independent
//!   replications.
//! - `batch`: batches of replications and sweeps: intervals over
//!   replications that cover what they claim, a sweep on exact MVA.
//! - `cli`: `tpsim` as a user drives it: tables, JSON, output files, and
//!   bad input.
//! - `edges`: the hard edges a new user found: options at their limits,
//!   output directories holding a command's inputs, output that cannot be
//!   written.
//! - `disks`: disks with an arm: seeks from request to request, areas,
//!   and when sorting the queue by cylinder pays off.
//! - `files`: the buffer cache in the model: exec reading programs'
//!   files block by block through it, exactly in deterministic cases.
//! - `frames`: memory as frames under the 3BSD clock, faults from the
//!   phase model of references, and the thrashing knee they show.
//! - `golden`: every shipped time-sharing scenario, shortened, at three
//!   seeds gives the summary it gave before, byte for byte.
//! - `host_probe`: `tpsim probe` on the test machine: benchmarks timed,
//!   load indices noted, the rows `tpsim analyze` reads, bad flags.
//! - `probe`: the terminal probe inside the model: its observations, its
//!   window and resolution, the load it adds.
//! - `reproducibility`: the same scenario and seed give the same bytes.
//! - `robustness`: generated scenarios, valid or not, never panic or hang.
//! - `scenarios`: every shipped scenario loads and runs.
//! - `scheduling`: UNIX priorities against round robin, `nice`, and
//!   interactive against compute-bound commands at heavy load.
//! - `timesharing`: the time-sharing model against exact MVA and Erlang's
//!   loss formula, and the effects it exists to show (thrashing knees,
//!   load control, images too big to swap).

mod batch;
mod cli;
mod disks;
mod edges;
mod files;
mod frames;
mod golden;
mod host_probe;
mod probe;
mod reproducibility;
mod robustness;
mod scenarios;
mod scheduling;
mod timesharing;
mod validation;

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};
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

/// A drive's published seek figures (in seconds) over its cylinders, as a
/// scenario's `arm` gives them.
pub struct SeekFigures {
    pub cylinders: u32,
    pub track: f64,
    pub average: f64,
    pub full: f64,
}

/// The arm the disk tests give their drives (`arm = { cylinders = 400,
/// track = "4ms", average = "25ms", full = "45ms" }`).
pub const ARM_FIGURES: SeekFigures = SeekFigures {
    cylinders: 400,
    track: 0.004,
    average: 0.025,
    full: 0.045,
};

/// The mean seek of an arm between two cylinders of `area` drawn
/// independently and uniformly (distance 0 included), worked out here
/// from the drive's figures and not by the simulator's seek curve: the
/// curve t(d) = track + a sqrt(d - 1) + b (d - 1) (docs/scenario-format.md)
/// whose full stroke, d = cylinders - 1, takes `full`, and whose mean over
/// every ordered pair of different cylinders, summed pair by pair, is
/// `average`; a and b by Cramer's rule.
pub fn mean_seek(drive: &SeekFigures, area: std::ops::Range<u32>) -> f64 {
    let c = drive.cylinders;
    let (mut root_sum, mut linear_sum, mut pairs) = (0.0, 0.0, 0.0);
    for x in 0..c {
        for y in (0..c).filter(|&y| y != x) {
            let moved = f64::from(x.abs_diff(y) - 1);
            root_sum += moved.sqrt();
            linear_sum += moved;
            pairs += 1.0;
        }
    }
    // a * root_mean + b * linear_mean = average - track
    // a * sqrt(stroke) + b * stroke = full - track
    let (root_mean, linear_mean) = (root_sum / pairs, linear_sum / pairs);
    let stroke = f64::from(c - 2);
    let (p, q) = (drive.average - drive.track, drive.full - drive.track);
    let det = root_mean * stroke - linear_mean * stroke.sqrt();
    let a = (p * stroke - linear_mean * q) / det;
    let b = (root_mean * q - stroke.sqrt() * p) / det;
    let seek = |d: u32| {
        if d == 0 {
            0.0
        } else {
            drive.track + a * f64::from(d - 1).sqrt() + b * f64::from(d - 1)
        }
    };
    let total: f64 = area
        .clone()
        .flat_map(|x| area.clone().map(move |y| seek(x.abs_diff(y))))
        .sum();
    total / f64::from(area.len() as u32).powi(2)
}

/// A shipped time-sharing scenario, validated.
pub fn system(name: &str) -> tpsim::models::System {
    let path = scenario_path(name);
    let text = std::fs::read_to_string(&path).unwrap();
    tpsim::models::load_system(&path.display().to_string(), &text).unwrap()
}

/// A time-sharing scenario given as text, validated.
pub fn inline_system(text: &str) -> tpsim::models::System {
    tpsim::models::load_system("inline.toml", text).unwrap()
}

/// One replication of a time-sharing system under its seed moved by the
/// seed offset.
pub fn run_system(sys: &tpsim::models::System, replication: u64) -> Summary {
    tpsim::models::system::simulate(sys, seed(sys.settings.seed), replication).summary
}

/// A scenario given as text, validated.
pub fn inline(text: &str) -> Network {
    tpsim::models::load_network("inline.toml", text).unwrap()
}

/// The suite's false-alarm budget: the largest probability that a correct
/// model fails any of the suite's interval checks. It is split evenly over
/// at most [`INTERVAL_CHECKS`] checks (Bonferroni), so each check's
/// interval has confidence 1 - SUITE_FALSE_ALARM / INTERVAL_CHECKS.
pub const SUITE_FALSE_ALARM: f64 = 0.005;

/// The most interval checks one run of the suite makes, the heavy
/// (ignored) tests included; `scripts/seed-offsets.sh` counts them and
/// fails if there are more.
pub const INTERVAL_CHECKS: u32 = 125;

/// The confidence level of every interval check.
pub fn check_level() -> f64 {
    1.0 - SUITE_FALSE_ALARM / f64::from(INTERVAL_CHECKS)
}

/// The offset added to every statistical test's seeds, from the
/// environment variable `TPSIM_TEST_SEED_OFFSET` (0 when unset), so that
/// the whole suite can be run under other seeds.
pub fn seed_offset() -> u64 {
    std::env::var("TPSIM_TEST_SEED_OFFSET")
        .ok()
        .map(|v| v.parse().expect("TPSIM_TEST_SEED_OFFSET is a whole number"))
        .unwrap_or(0)
}

/// A statistical test's master seed: `base`, moved by the seed offset.
pub fn seed(base: u64) -> u64 {
    base.wrapping_add(seed_offset().wrapping_mul(1_000_003))
}

/// `replications` independent replications of `net`, each run to `end` [s],
/// under the scenario's seed moved by the seed offset.
pub fn replicate(net: &Network, replications: u64, end: f64) -> Vec<Summary> {
    let mut net = net.clone();
    net.settings.end_time = SimTime::from_secs_f64(end);
    (0..replications)
        .map(|r| tpsim::models::simulate(&net, seed(net.settings.seed), r).summary)
        .collect()
}

/// Notes one statistical check in the file named by `TPSIM_CHECK_LOG`, if
/// set, so that a script can count the checks a run of the suite makes.
pub fn note_check(what: &str) {
    if let Ok(log) = std::env::var("TPSIM_CHECK_LOG") {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .expect("the check log can be written");
        writeln!(file, "{what}").expect("the check log can be written");
    }
}

/// The interval of the mean of `samples` at the suite's per-check level:
/// Student's t over independent replications, worked out here (with
/// statrs's t quantile) rather than by the kernel's own interval.
pub fn interval(what: &str, samples: &[f64]) -> ConfidenceInterval {
    note_check(what);
    let n = samples.len();
    assert!(n >= 2, "an interval needs at least two replications");
    let mean = samples.iter().sum::<f64>() / n as f64;
    let variance = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let t = StudentsT::new(0.0, 1.0, (n - 1) as f64)
        .expect("at least one degree of freedom")
        .inverse_cdf(0.5 + check_level() / 2.0);
    ConfidenceInterval {
        mean,
        half_width: t * (variance / n as f64).sqrt(),
        shift: 0.0,
        level: check_level(),
        samples: n,
    }
}

/// Asserts that `successes` in `trials` independent trials agree with a
/// success probability `p`: the observed share lies within the normal
/// approximation's interval at the suite's per-check level (for trials
/// many enough that the approximation holds).
pub fn assert_proportion(what: &str, successes: u64, trials: u64, p: f64) {
    note_check(what);
    let z = Normal::new(0.0, 1.0)
        .expect("the standard normal")
        .inverse_cdf(0.5 + check_level() / 2.0);
    let (successes, trials) = (successes as f64, trials as f64);
    let share = successes / trials;
    let se = (p * (1.0 - p) / trials).sqrt();
    assert!(
        (share - p).abs() < z * se,
        "{what}: {successes} in {trials} is a share of {share:.5}, more than {z:.2} standard errors from {p}"
    );
}

/// Asserts that the interval of `samples` covers `exact` and is narrower
/// than `max_relative` of it, so that the check has the power to fail when
/// the model is wrong.
pub fn assert_covers(what: &str, samples: &[f64], exact: f64, max_relative: f64) {
    let ci = interval(what, samples);
    assert!(
        ci.contains(exact),
        "{what}: exact {exact} lies outside the {} interval {:.5} ± {:.5}",
        ci.level,
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

/// Asserts that the interval of `samples` (typically paired differences,
/// replication by replication, between two configurations run on common
/// random numbers) lies wholly above `bound`.
pub fn assert_above(what: &str, samples: &[f64], bound: f64) {
    let ci = interval(what, samples);
    assert!(
        ci.low() > bound,
        "{what}: the {} interval {:.5} ± {:.5} does not lie above {bound}; samples {samples:?}",
        ci.level,
        ci.mean,
        ci.half_width
    );
}
