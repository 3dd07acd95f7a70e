//! Independent replications: parallel runs, Student-t estimates and a
//! sequential stopping rule.
//!
//! One run of a stochastic model is one sample. The sound way to put an
//! interval on what a model measures is to run it several times on
//! independent random numbers and treat the runs' results as independent,
//! identically distributed samples (the method of independent
//! replications; A. M. Law, *Simulation Modeling and Analysis*, 5th ed.,
//! McGraw-Hill 2015, section 9.4). Replication `r` of a model under master
//! seed `s` draws every stream from [`Streams::new`]`(s, r)`, so its
//! results depend on `(s, r)` alone.
//!
//! - [`Runner`] runs jobs (replications, or replications of several
//!   configurations) on a pool of threads and returns their results in
//!   the order of the jobs: the results are the same whatever the number
//!   of threads, byte for byte.
//! - [`Estimate`] is the Student-t interval of the mean over replications.
//! - [`Precision`] is a sequential stopping rule: run more replications
//!   until the relative half-width of every chosen measure is below a
//!   target, or a cap is reached. How many to add is decided from the
//!   results alone, never from the number of threads or the timing, so a
//!   sequential batch is as reproducible as a fixed one.
//! - [`Shard`] is a deterministic slice of a batch's work, for running one
//!   batch on several machines: the shards' results together are exactly
//!   the whole batch's.
//!
//! # Example
//! The mean of an exponential sample, over 20 replications:
//! ```
//! use tpsim_core::Dist;
//! use tpsim_core::replicate::{Estimate, Runner};
//!
//! let exp = Dist::exponential(1.0).unwrap();
//! let runner = Runner::new(2).unwrap();
//! let means = runner.replicate(7, 0..20, |streams| {
//!     let mut rng = streams.stream("x");
//!     (0..1000).map(|_| exp.sample(&mut rng)).sum::<f64>() / 1000.0
//! });
//! let estimate = Estimate::of(&means, 0.95);
//! assert_eq!(estimate.n, 20);
//! assert!(estimate.contains(1.0), "{estimate:?}");
//! ```

use crate::random::Streams;
use crate::stats::{ConfidenceInterval, Tally};
use rayon::prelude::*;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::ops::Range;
use thiserror::Error;

/// Why a [`Runner`] could not be made.
#[derive(Debug, Error)]
#[error("cannot start {threads} threads: {message}")]
pub struct RunnerError {
    threads: usize,
    message: String,
}

/// Runs independent jobs on a pool of threads.
#[derive(Debug)]
pub struct Runner {
    pool: rayon::ThreadPool,
}

impl Runner {
    /// A runner on `threads` threads; 0 means one per core (or as many as
    /// the `RAYON_NUM_THREADS` environment variable says).
    pub fn new(threads: usize) -> Result<Runner, RunnerError> {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("tpsim-{i}"))
            .build()
            .map(|pool| Runner { pool })
            .map_err(|e| RunnerError {
                threads,
                message: e.to_string(),
            })
    }

    /// How many threads it runs on.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// Runs `job` on every element of `jobs`, in parallel, and returns the
    /// results in the order of `jobs`.
    pub fn map<J, T, F>(&self, jobs: &[J], job: F) -> Vec<T>
    where
        J: Sync,
        T: Send,
        F: Fn(&J) -> T + Sync + Send,
    {
        self.pool
            .install(|| jobs.par_iter().map(&job).collect::<Vec<T>>())
    }

    /// Runs replications `replications` of a model under `master_seed`:
    /// `run` gets each replication's streams. The results are in the order
    /// of the replications.
    pub fn replicate<T, F>(&self, master_seed: u64, replications: Range<u64>, run: F) -> Vec<T>
    where
        T: Send,
        F: Fn(Streams) -> T + Sync + Send,
    {
        let indices: Vec<u64> = replications.collect();
        self.map(&indices, |&r| run(Streams::new(master_seed, r)))
    }

    /// Runs replications of each configuration in `configs` under
    /// `master_seed`, as `rule` says: a fixed number of each, or rounds of
    /// replications until every measure `measures` picks out of a
    /// configuration's results is as precise as the rule asks (each
    /// configuration stops on its own), or the cap is reached. Replication
    /// `r` of every configuration runs on the same streams (common random
    /// numbers across configurations). The jobs of a round run in
    /// parallel, all configurations together. `run` returns `None` for a
    /// replication that did not finish (interrupted); the batch then ends,
    /// keeping those that did. `measures` gives the same measures in the
    /// same order for every run, NaN for one a run did not measure (such
    /// as the mean response of a class with no completions): NaN values
    /// are left out of the estimates.
    pub fn replicate_each<C, T, F, M>(
        &self,
        master_seed: u64,
        configs: &[C],
        rule: &Rule,
        run: F,
        measures: M,
    ) -> Vec<Replicated<T>>
    where
        C: Sync,
        T: Send,
        F: Fn(&C, Streams) -> Option<T> + Sync + Send,
        M: Fn(&T) -> Vec<f64>,
    {
        self.replicate_shard(master_seed, configs, rule, Shard::WHOLE, run, measures)
    }

    /// [`Runner::replicate_each`] restricted to the work of `shard`: under
    /// a fixed count, the replications the shard owns (numbering the jobs
    /// configuration by configuration, replication by replication); under
    /// a precision rule, which cannot be split, the configurations it owns,
    /// the others ending at once as [`Stop::OtherShard`] with no runs.
    /// Every replication runs exactly as it would in the whole batch, so
    /// the shards' runs together are the whole batch's.
    pub fn replicate_shard<C, T, F, M>(
        &self,
        master_seed: u64,
        configs: &[C],
        rule: &Rule,
        shard: Shard,
        run: F,
        measures: M,
    ) -> Vec<Replicated<T>>
    where
        C: Sync,
        T: Send,
        F: Fn(&C, Streams) -> Option<T> + Sync + Send,
        M: Fn(&T) -> Vec<f64>,
    {
        let mut done: Vec<Replicated<T>> = configs
            .iter()
            .map(|_| Replicated {
                runs: Vec::new(),
                stopped_by: Stop::Count,
            })
            .collect();
        // Per configuration: how many have run, and how many to run in all
        // (None once it has stopped).
        let first = rule.initial();
        let mut ran = vec![0; configs.len()];
        let mut target: Vec<Option<u64>> = vec![Some(first); configs.len()];
        if let Rule::Precision { .. } = rule {
            for (c, t) in target.iter_mut().enumerate() {
                if !shard.owns(c as u64) {
                    *t = None;
                    done[c].stopped_by = Stop::OtherShard;
                }
            }
        }
        let owned = |c: usize, r: u64| match rule {
            Rule::Count(n) => shard.owns(c as u64 * n + r),
            Rule::Precision { .. } => true,
        };
        while target.iter().any(Option::is_some) {
            let jobs: Vec<(usize, u64)> = target
                .iter()
                .enumerate()
                .filter_map(|(c, t)| t.map(|t| (c, t)))
                .flat_map(|(c, t)| (ran[c]..t).map(move |r| (c, r)))
                .filter(|&(c, r)| owned(c, r))
                .collect();
            let finished = self.map(&jobs, |&(c, r)| {
                run(&configs[c], Streams::new(master_seed, r))
            });
            let whole = finished.iter().all(Option::is_some);
            for (&(c, _), result) in jobs.iter().zip(finished) {
                done[c].runs.extend(result);
            }
            for c in 0..configs.len() {
                let Some(t) = target[c] else { continue };
                ran[c] = t;
                let next = if !whole {
                    Next::Stop(Stop::Interrupted)
                } else {
                    match rule {
                        Rule::Count(_) => Next::Stop(Stop::Count),
                        Rule::Precision { precision, .. } => {
                            precision.next(t, &estimates(&done[c].runs, &measures, precision.level))
                        }
                    }
                };
                target[c] = match next {
                    Next::Run(total) => Some(total),
                    Next::Stop(stop) => {
                        done[c].stopped_by = stop;
                        None
                    }
                };
            }
        }
        done
    }
}

/// The estimate of every measure `measures` picks out of `runs`.
fn estimates<T>(runs: &[T], measures: impl Fn(&T) -> Vec<f64>, level: f64) -> Vec<Estimate> {
    let per_run: Vec<Vec<f64>> = runs.iter().map(measures).collect();
    let width = per_run.first().map_or(0, Vec::len);
    (0..width)
        .map(|m| {
            let values: Vec<f64> = per_run
                .iter()
                .filter_map(|v| v.get(m).copied())
                .filter(|x| !x.is_nan())
                .collect();
            Estimate::of(&values, level)
        })
        .collect()
}

/// How many replications a batch runs (serialised as a shard records it:
/// `{"count": 5}`, or the precision rule's fields).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Rule {
    /// This many.
    Count(u64),
    /// `initial`, then more as `precision` asks.
    Precision {
        /// How many run first (at least 2 for an interval).
        initial: u64,
        /// The sequential rule.
        precision: Precision,
    },
}

impl Rule {
    /// How many replications the first round runs.
    fn initial(&self) -> u64 {
        match *self {
            Rule::Count(n) => n,
            Rule::Precision { initial, precision } => {
                initial.clamp(1, precision.max_replications.max(1))
            }
        }
    }
}

/// Shard `index` of `count` (counting from 1, as people do): the jobs
/// `j` with `j % count == index - 1`. Interleaving the jobs, rather than
/// cutting them into runs, spreads a sweep's slow points (the large
/// populations) over all shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    index: u64,
    count: u64,
}

/// Why a shard is not one.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ShardError {
    /// Not of the form `I/N`.
    #[error("`{0}` is not a shard: write it I/N, such as 2/8")]
    Form(String),
    /// No shards at all.
    #[error("a batch cannot be cut into 0 shards")]
    NoShards,
    /// An index outside 1 to the count.
    #[error("shard {index} of {count} is out of range: shards are numbered 1 to {count}")]
    OutOfRange {
        /// The index given.
        index: u64,
        /// The number of shards.
        count: u64,
    },
}

impl Shard {
    /// The whole batch, as one shard.
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// Shard `index` (from 1) of `count`.
    pub fn new(index: u64, count: u64) -> Result<Shard, ShardError> {
        if count == 0 {
            return Err(ShardError::NoShards);
        }
        if index == 0 || index > count {
            return Err(ShardError::OutOfRange { index, count });
        }
        Ok(Shard { index, count })
    }

    /// Its index, from 1.
    pub fn index(self) -> u64 {
        self.index
    }

    /// How many shards there are.
    pub fn count(self) -> u64 {
        self.count
    }

    /// Whether job `job` (from 0) is this shard's.
    pub fn owns(self, job: u64) -> bool {
        job % self.count == self.index - 1
    }

    /// How many of the jobs `0..jobs` are this shard's.
    pub fn owned_of(self, jobs: u64) -> u64 {
        jobs / self.count + u64::from(jobs % self.count >= self.index)
    }
}

impl std::str::FromStr for Shard {
    type Err = ShardError;

    fn from_str(text: &str) -> Result<Shard, ShardError> {
        let form = || ShardError::Form(text.to_string());
        let (index, count) = text.split_once('/').ok_or_else(form)?;
        let number = |s: &str| s.trim().parse::<u64>().map_err(|_| form());
        Shard::new(number(index)?, number(count)?)
    }
}

/// A shard serialises as `I/N`, as it is written on the command line.
impl Serialize for Shard {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Shard {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Shard, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse()
            .map_err(|e| serde::de::Error::custom(format!("shard `{text}`: {e}")))
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The results of a sequential batch, and what ended it.
#[derive(Clone, Debug, PartialEq)]
pub struct Replicated<T> {
    /// The finished replications' results, in the order of replication.
    pub runs: Vec<T>,
    /// What ended the batch.
    pub stopped_by: Stop,
}

/// What ended a batch of replications (serialised as its
/// [`name`](Stop::name)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// The fixed number of replications asked for ran.
    Count,
    /// Every chosen measure reached the precision asked for.
    Precision,
    /// The cap on replications was reached first.
    MaxReplications,
    /// A replication was interrupted; the finished ones were kept.
    Interrupted,
    /// The configuration is another shard's work.
    OtherShard,
}

impl Stop {
    /// Its name in tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Stop::Count => "count",
            Stop::Precision => "precision",
            Stop::MaxReplications => "max_replications",
            Stop::Interrupted => "interrupted",
            Stop::OtherShard => "other_shard",
        }
    }
}

/// The mean of a measure over independent replications, with its
/// Student-t interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The number of replications.
    pub n: usize,
    /// The mean over them (NaN with none).
    pub mean: f64,
    /// Their sample standard deviation (`None` with fewer than two).
    pub sd: Option<f64>,
    /// Half the width of the interval (`None` with fewer than two).
    pub half_width: Option<f64>,
    /// The confidence level, such as 0.95.
    pub level: f64,
}

impl Estimate {
    /// The estimate from one value per replication, at confidence `level`
    /// (strictly between 0 and 1).
    pub fn of(values: &[f64], level: f64) -> Estimate {
        let interval = ConfidenceInterval::from_samples(values, level);
        let mut tally = Tally::new();
        values.iter().for_each(|&x| tally.add(x));
        Estimate {
            n: values.len(),
            mean: if values.is_empty() {
                f64::NAN
            } else {
                tally.mean()
            },
            sd: (values.len() >= 2).then(|| tally.variance().sqrt()),
            half_width: interval.map(|i| i.half_width),
            level,
        }
    }

    /// The half-width relative to the mean's size: 0 for a measure that
    /// did not vary, infinite for a mean of 0 that did, `None` without an
    /// interval.
    pub fn relative_half_width(&self) -> Option<f64> {
        self.half_width
            .map(|h| if h == 0.0 { 0.0 } else { h / self.mean.abs() })
    }

    /// Whether `x` lies in the interval (never, without one).
    pub fn contains(&self, x: f64) -> bool {
        self.half_width
            .is_some_and(|h| self.mean - h <= x && x <= self.mean + h)
    }
}

/// A sequential stopping rule: replications are added until the relative
/// half-width of every chosen measure is at most `relative_half_width`,
/// or `max_replications` have run.
///
/// After `n` replications, a measure with relative half-width `w` needs
/// about `n · (w / target)²` in all (the half-width shrinks as 1/√n); the
/// next round runs up to the largest such need, at least one more and at
/// most twice as many as have run (so one noisy early estimate cannot ask
/// for far too many), and never beyond the cap. This is the relative-
/// precision procedure of Law (section 9.4.1) taken in rounds rather
/// than one replication at a time, so rounds can run in parallel.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Precision {
    /// The largest relative half-width accepted, such as 0.05.
    pub relative_half_width: f64,
    /// The confidence level of the intervals.
    pub level: f64,
    /// The most replications run.
    pub max_replications: u64,
}

/// What a [`Precision`] rule says after a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Run replications up to this many in all.
    Run(u64),
    /// Stop, for this reason.
    Stop(Stop),
}

impl Precision {
    /// What to do after `n` replications whose chosen measures give
    /// `estimates`.
    pub fn next(&self, n: u64, estimates: &[Estimate]) -> Next {
        let mut needed = n;
        // A measure with no values (missing in every run) asks for nothing.
        for estimate in estimates.iter().filter(|e| e.n > 0) {
            let want = match estimate.relative_half_width() {
                Some(w) if w <= self.relative_half_width => n,
                Some(w) if w.is_finite() => {
                    let ratio = w / self.relative_half_width;
                    (n as f64 * ratio * ratio).ceil().min(u64::MAX as f64) as u64
                }
                _ => u64::MAX,
            };
            needed = needed.max(want);
        }
        if needed <= n {
            Next::Stop(Stop::Precision)
        } else if n >= self.max_replications {
            Next::Stop(Stop::MaxReplications)
        } else {
            Next::Run(
                needed
                    .min(2 * n.max(1))
                    .min(self.max_replications)
                    .max(n + 1),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dist::Dist;

    /// The mean of `n` exponential samples of mean 1 from the streams.
    fn sample_mean(streams: Streams, n: usize) -> f64 {
        let exp = Dist::exponential(1.0).unwrap();
        let mut rng = streams.stream("x");
        (0..n).map(|_| exp.sample(&mut rng)).sum::<f64>() / n as f64
    }

    #[test]
    fn results_come_in_the_order_of_the_jobs_whatever_the_threads() {
        let jobs: Vec<u64> = (0..50).collect();
        let work = |&j: &u64| sample_mean(Streams::new(3, j), 100 + j as usize);
        let one = Runner::new(1).unwrap().map(&jobs, work);
        let three = Runner::new(3).unwrap().map(&jobs, work);
        assert_eq!(Runner::new(3).unwrap().threads(), 3);
        assert_eq!(one.len(), 50);
        assert!(
            one.iter()
                .zip(&three)
                .all(|(a, b)| a.to_bits() == b.to_bits())
        );
        assert_eq!(one[7], sample_mean(Streams::new(3, 7), 107));
    }

    #[test]
    fn replication_r_runs_on_the_streams_of_r() {
        let seen = Runner::new(2)
            .unwrap()
            .replicate(9, 4..7, |s| (s.master_seed(), s.replication()));
        assert_eq!(seen, vec![(9, 4), (9, 5), (9, 6)]);
    }

    #[test]
    fn the_estimate_is_the_student_t_interval() {
        let e = Estimate::of(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.95);
        assert_eq!((e.n, e.mean), (5, 3.0));
        assert!((e.sd.unwrap() - 2.5f64.sqrt()).abs() < 1e-12);
        // t(0.975, 4 degrees of freedom) = 2.776445 (tables); s/sqrt(n) = sqrt(0.5).
        assert!((e.half_width.unwrap() - 2.776_445 * 0.5f64.sqrt()).abs() < 1e-5);
        assert!((e.relative_half_width().unwrap() - 2.776_445 * 0.5f64.sqrt() / 3.0).abs() < 1e-5);
        assert!(e.contains(1.05) && !e.contains(1.0) && e.contains(4.95) && !e.contains(5.0));
        let one = Estimate::of(&[2.0], 0.95);
        assert_eq!(
            (one.n, one.mean, one.sd, one.half_width),
            (1, 2.0, None, None)
        );
        assert!(!one.contains(2.0));
        assert!(Estimate::of(&[], 0.95).mean.is_nan());
        assert_eq!(
            Estimate::of(&[4.0, 4.0], 0.9).relative_half_width(),
            Some(0.0)
        );
        assert_eq!(
            Estimate::of(&[-1.0, 1.0], 0.9).relative_half_width(),
            Some(f64::INFINITY)
        );
        assert!(
            (Estimate::of(&[-1.0, -3.0], 0.9)
                .relative_half_width()
                .unwrap()
                - Estimate::of(&[1.0, 3.0], 0.9)
                    .relative_half_width()
                    .unwrap())
            .abs()
                < 1e-15
        );
    }

    fn rule(target: f64, max: u64) -> Precision {
        Precision {
            relative_half_width: target,
            level: 0.95,
            max_replications: max,
        }
    }

    /// An estimate of mean 1 over `n` replications with relative half-width `w`.
    fn with_width(n: usize, w: f64) -> Estimate {
        Estimate {
            n,
            mean: 1.0,
            sd: Some(1.0),
            half_width: Some(w),
            level: 0.95,
        }
    }

    #[test]
    fn the_rule_asks_for_what_the_widest_measure_needs_within_bounds() {
        let r = rule(0.1, 100);
        // Precise: stop, whatever the cap.
        assert_eq!(
            r.next(10, &[with_width(10, 0.1), with_width(10, 0.02)]),
            Next::Stop(Stop::Precision)
        );
        assert_eq!(
            r.next(100, &[with_width(100, 0.05)]),
            Next::Stop(Stop::Precision)
        );
        // (0.12 / 0.1)^2 * 10 = 14.4: 15 in all.
        assert_eq!(
            r.next(10, &[with_width(10, 0.05), with_width(10, 0.12)]),
            Next::Run(15)
        );
        // A need of 40 is held to twice the 10 run.
        assert_eq!(r.next(10, &[with_width(10, 0.2)]), Next::Run(20));
        // Barely short: at least one more.
        assert_eq!(r.next(10, &[with_width(10, 0.100_001)]), Next::Run(11));
        // The cap.
        assert_eq!(r.next(60, &[with_width(60, 0.2)]), Next::Run(100));
        assert_eq!(
            r.next(100, &[with_width(100, 0.2)]),
            Next::Stop(Stop::MaxReplications)
        );
        // No interval yet, or a mean of 0 that varies: as many as allowed.
        let none = Estimate::of(&[1.0], 0.95);
        assert_eq!(r.next(1, &[none]), Next::Run(2));
        assert_eq!(
            r.next(10, &[Estimate::of(&[-1.0, 1.0], 0.95)]),
            Next::Run(20)
        );
        assert_eq!(r.next(10, &[]), Next::Stop(Stop::Precision));
        assert_eq!(
            r.next(10, &[Estimate::of(&[], 0.95)]),
            Next::Stop(Stop::Precision)
        );
    }

    #[test]
    fn a_sequential_batch_stops_at_the_precision_asked_for_or_the_cap_whatever_the_threads() {
        let runner = Runner::new(2).unwrap();
        // Means of 100 exponentials: sd about 0.1, so a 2% half-width
        // needs about (1.96 * 0.1 / 0.02)^2 = 96 replications.
        let run = |_: &(), s: Streams| Some(sample_mean(s, 100));
        let sequential = |max| Rule::Precision {
            initial: 10,
            precision: rule(0.02, max),
        };
        let mut batch = runner.replicate_each(5, &[()], &sequential(1000), run, |&m| vec![m]);
        let done = batch.pop().unwrap();
        assert_eq!(done.stopped_by, Stop::Precision);
        let e = Estimate::of(&done.runs, 0.95);
        assert!(e.relative_half_width().unwrap() <= 0.02, "{e:?}");
        assert!(
            (60..200).contains(&done.runs.len()),
            "{} replications",
            done.runs.len()
        );
        // The same batch on one thread, to the bit.
        let again =
            Runner::new(1)
                .unwrap()
                .replicate_each(5, &[()], &sequential(1000), run, |&m| vec![m]);
        assert_eq!(again, vec![done.clone()]);
        let capped = runner.replicate_each(5, &[()], &sequential(30), run, |&m| vec![m]);
        assert_eq!(
            (capped[0].runs.len(), capped[0].stopped_by),
            (30, Stop::MaxReplications)
        );
        assert_eq!(capped[0].runs[..], done.runs[..30]);
    }

    #[test]
    fn each_configuration_stops_on_its_own_on_common_random_numbers() {
        let runner = Runner::new(2).unwrap();
        // Sample means of 10 and of 1,000: the second needs far fewer.
        let run = |&size: &usize, s: Streams| Some(sample_mean(s, size));
        let sequential = Rule::Precision {
            initial: 5,
            precision: rule(0.05, 500),
        };
        let batch = runner.replicate_each(2, &[10, 1000], &sequential, run, |&m| vec![m]);
        assert!(batch.iter().all(|b| b.stopped_by == Stop::Precision));
        assert!(
            batch[0].runs.len() > 5 * batch[1].runs.len(),
            "{} and {}",
            batch[0].runs.len(),
            batch[1].runs.len()
        );
        let fixed = runner.replicate_each(2, &[10, 1000], &Rule::Count(4), run, |&m| vec![m]);
        assert_eq!(fixed[0].runs, batch[0].runs[..4]);
        assert_eq!(
            fixed[1].runs,
            (0..4)
                .map(|r| sample_mean(Streams::new(2, r), 1000))
                .collect::<Vec<_>>()
        );
        assert!(fixed.iter().all(|b| b.stopped_by == Stop::Count));
    }

    #[test]
    fn values_a_run_did_not_measure_are_left_out() {
        let runner = Runner::new(1).unwrap();
        let run = |_: &(), s: Streams| Some(s.replication());
        let sequential = Rule::Precision {
            initial: 6,
            precision: rule(0.01, 50),
        };
        // 1 on even replications, unmeasured on odd ones: precise at once.
        let odd_missing = |&r: &u64| vec![if r % 2 == 0 { 1.0 } else { f64::NAN }];
        let done = runner.replicate_each(1, &[()], &sequential, run, odd_missing);
        assert_eq!(
            (done[0].runs.len(), done[0].stopped_by),
            (6, Stop::Precision)
        );
    }

    #[test]
    fn an_interrupted_batch_keeps_the_replications_that_finished() {
        let runner = Runner::new(2).unwrap();
        let run = |_: &(), s: Streams| (s.replication() != 3).then(|| s.replication());
        let done = runner.replicate_each(1, &[(), ()], &Rule::Count(6), run, |&r| vec![r as f64]);
        for d in done {
            assert_eq!(d.stopped_by, Stop::Interrupted);
            assert_eq!(d.runs, vec![0, 1, 2, 4, 5]);
        }
    }

    #[test]
    fn shards_together_run_exactly_the_whole_batch() {
        let runner = Runner::new(2).unwrap();
        let run = |&size: &usize, s: Streams| Some((s.replication(), sample_mean(s, size)));
        let measure = |&(_, m): &(u64, f64)| vec![m];
        let sequential = Rule::Precision {
            initial: 5,
            precision: rule(0.05, 500),
        };
        let configs = [10, 1000, 100];
        for rule in [Rule::Count(7), sequential] {
            let whole = runner.replicate_each(4, &configs, &rule, run, measure);
            let mut joined: Vec<Vec<(u64, f64)>> = vec![Vec::new(); configs.len()];
            let mut owners = vec![0; configs.len()];
            for index in 1..=3 {
                let shard = Shard::new(index, 3).unwrap();
                let part = runner.replicate_shard(4, &configs, &rule, shard, run, measure);
                for (c, p) in part.into_iter().enumerate() {
                    if p.stopped_by != Stop::OtherShard {
                        owners[c] += 1;
                        if let Rule::Precision { .. } = rule {
                            assert_eq!(p.stopped_by, whole[c].stopped_by);
                        }
                    }
                    joined[c].extend(p.runs);
                }
            }
            for (c, runs) in joined.iter_mut().enumerate() {
                runs.sort_by_key(|r| r.0);
                assert_eq!(*runs, whole[c].runs, "{rule:?}, configuration {c}");
            }
            // A fixed count is split over every shard; a sequential rule
            // gives each configuration to one.
            let expected = if let Rule::Count(_) = rule { 3 } else { 1 };
            assert_eq!(owners, vec![expected; 3], "{rule:?}");
        }
    }

    #[test]
    fn a_fixed_count_is_dealt_out_job_by_job() {
        // Two configurations of three replications: jobs 0..6 are (0, 0),
        // (0, 1), (0, 2), (1, 0), (1, 1), (1, 2); shard 1 of 2 owns the
        // even ones.
        let runner = Runner::new(1).unwrap();
        let run = |_: &(), s: Streams| Some(s.replication());
        let first = Shard::new(1, 2).unwrap();
        let part =
            runner.replicate_shard(1, &[(), ()], &Rule::Count(3), first, run, |_| Vec::new());
        assert_eq!(part[0].runs, [0, 2]);
        assert_eq!(part[1].runs, [1]);
    }

    #[test]
    fn shards_are_written_i_of_n() {
        let shard: Shard = "2/5".parse().unwrap();
        assert_eq!((shard.index(), shard.count()), (2, 5));
        assert_eq!(shard.to_string(), "2/5");
        let owned: Vec<u64> = (0..12).filter(|&j| shard.owns(j)).collect();
        assert_eq!(owned, [1, 6, 11]);
        assert!((0..9).all(|j| Shard::WHOLE.owns(j)));
        for count in 1..6 {
            for index in 1..=count {
                let shard = Shard::new(index, count).unwrap();
                for jobs in 0..20 {
                    let by_hand = (0..jobs).filter(|&j| shard.owns(j)).count() as u64;
                    assert_eq!(shard.owned_of(jobs), by_hand, "{shard} of {jobs}");
                }
            }
        }
        assert_eq!(Shard::WHOLE.owned_of(u64::MAX), u64::MAX);
        assert_eq!(
            "0/3".parse::<Shard>(),
            Err(ShardError::OutOfRange { index: 0, count: 3 })
        );
        assert_eq!(
            "4/3".parse::<Shard>(),
            Err(ShardError::OutOfRange { index: 4, count: 3 })
        );
        assert_eq!("1/0".parse::<Shard>(), Err(ShardError::NoShards));
        for bad in ["3", "a/b", "1/2/3", "-1/2", ""] {
            assert_eq!(
                bad.parse::<Shard>(),
                Err(ShardError::Form(bad.to_string())),
                "{bad}"
            );
        }
    }

    #[test]
    fn shards_rules_and_stops_serialise_as_a_shard_record_writes_them() {
        let shard = Shard::new(2, 3).unwrap();
        let rule = Rule::Precision {
            initial: 4,
            precision: Precision {
                relative_half_width: 0.05,
                level: 0.95,
                max_replications: 200,
            },
        };
        let stops = [
            Stop::Count,
            Stop::Precision,
            Stop::MaxReplications,
            Stop::Interrupted,
            Stop::OtherShard,
        ];
        let text = serde_json::to_string(&(shard, rule, Rule::Count(5), stops)).unwrap();
        assert_eq!(
            text,
            r#"["2/3",{"precision":{"initial":4,"precision":{"relative_half_width":0.05,"level":0.95,"max_replications":200}}},{"count":5},["count","precision","max_replications","interrupted","other_shard"]]"#
        );
        for stop in stops {
            assert_eq!(
                serde_json::to_string(&stop).unwrap(),
                format!("\"{}\"", stop.name())
            );
        }
        assert_eq!(
            serde_json::from_str::<(Shard, Rule, Rule, [Stop; 5])>(&text).unwrap(),
            (shard, rule, Rule::Count(5), stops)
        );
        let refused = |json: &str| serde_json::from_str::<Shard>(json).unwrap_err().to_string();
        assert!(refused(r#""0/3""#).starts_with("shard `0/3`: shard 0 of 3 is out of range"));
        assert!(refused(r#""3""#).starts_with("shard `3`: "));
        assert!(serde_json::from_str::<Stop>(r#""done""#).is_err());
    }
}
