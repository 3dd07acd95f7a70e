//! A warm-up chosen from the data, by MSER-5.
//!
//! A run starts empty and idle, so its first responses are shorter than in
//! the steady state; its warm-up is the time whose measurements are thrown
//! away. Rather than guess it, [`choose`] runs pilot replications of the
//! scenario from time 0 with no warm-up, takes the mean response of the
//! responses completed in each of the run's thousand progress intervals,
//! averages that series over the pilots, and truncates it by MSER-5
//! ([`tpsim_core::stats::mser`] with batches of five intervals). The
//! warm-up is the end of the last interval deleted.
//!
//! The pilots run on replication indices of their own (from
//! [`PILOT_BASE`]), so the replications that are then measured do not
//! reuse their random numbers, and the choice is the same on any machine
//! and in any shard. A system whose users log in over a day has no steady
//! state and is refused.

use crate::Scenario;
use crate::system::Population;
use thiserror::Error;
use tpsim_core::SimTime;
use tpsim_core::replicate::Runner;
use tpsim_core::stats::mser;

/// The replication index of the first pilot run.
pub const PILOT_BASE: u64 = 1 << 40;

/// How many pilot runs choose a warm-up.
pub const PILOTS: u64 = 10;

/// The intervals of the series MSER-5 batches together.
const BATCH: usize = 5;

/// Why no warm-up could be chosen.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum WarmupError {
    /// Users log in and out: no steady state to warm up to.
    #[error(
        "its users log in and out over the day, so it has no steady state to warm up to; set run.warmup instead"
    )]
    NotStationary,
    /// Too few intervals with completions.
    #[error("its pilot runs completed too few responses to choose a warm-up from")]
    TooFewResponses,
    /// The least-biased truncation lies in the second half of the runs.
    #[error(
        "MSER-5 finds its pilot runs still drifting in their second half: they are too short to reach a steady state (run.end_time {end} s)"
    )]
    NoSteadyState {
        /// The runs' end time \[s\].
        end: f64,
    },
    /// A pilot run was interrupted.
    #[error("interrupted while choosing the warm-up")]
    Interrupted,
}

/// The warm-up MSER-5 chose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Chosen {
    /// The warm-up \[s\].
    pub warmup: f64,
    /// The progress intervals deleted, of those with completions.
    pub deleted: usize,
    /// The progress intervals with completions.
    pub intervals: usize,
}

/// Chooses the warm-up of `scenario` from [`PILOTS`] pilot runs on
/// `runner`; `done` is called after each pilot run, and `going` is asked
/// during the runs whether to go on.
pub fn choose(
    scenario: &Scenario,
    runner: &Runner,
    done: impl Fn() + Sync + Send,
    going: impl Fn() -> bool + Sync + Send,
) -> Result<Chosen, WarmupError> {
    if let Scenario::System(sys) = scenario
        && !matches!(sys.users.population, Population::Fixed(_))
    {
        return Err(WarmupError::NotStationary);
    }
    let mut pilot = scenario.clone();
    pilot.settings_mut().warmup = SimTime::ZERO;
    let indices: Vec<u64> = (PILOT_BASE..PILOT_BASE + PILOTS).collect();
    let runs = runner.map(&indices, |&r| {
        let run = pilot.run(r, |_| going());
        done();
        run
    });
    if runs
        .iter()
        .any(|r| r.summary.stopped_by == crate::summary::StoppedBy::Interrupted)
    {
        return Err(WarmupError::Interrupted);
    }
    // Per pilot, the mean response of each interval's completions.
    let per_run: Vec<Vec<f64>> = runs
        .iter()
        .map(|run| {
            let mut before = (0, 0.0);
            run.trace
                .iter()
                .map(|p| {
                    let (n, sum) = (p.completions - before.0, p.response_sum - before.1);
                    before = (p.completions, p.response_sum);
                    if n == 0 { f64::NAN } else { sum / n as f64 }
                })
                .collect()
        })
        .collect();
    let times: Vec<f64> = runs[0].trace.iter().map(|p| p.at).collect();
    // Averaged over the pilots; intervals with no completions in any
    // pilot are left out.
    let (kept, series): (Vec<usize>, Vec<f64>) = (0..times.len())
        .filter_map(|i| {
            let values: Vec<f64> = per_run
                .iter()
                .filter_map(|s| s.get(i).copied())
                .filter(|x| !x.is_nan())
                .collect();
            (!values.is_empty()).then(|| (i, values.iter().sum::<f64>() / values.len() as f64))
        })
        .unzip();
    if series.len() < 4 * BATCH {
        return Err(WarmupError::TooFewResponses);
    }
    let end = scenario.settings().end_time.as_secs_f64();
    let deleted = mser(&series, BATCH).ok_or(WarmupError::NoSteadyState { end })?;
    Ok(Chosen {
        warmup: if deleted == 0 {
            0.0
        } else {
            times[kept[deleted - 1]]
        },
        deleted,
        intervals: series.len(),
    })
}
