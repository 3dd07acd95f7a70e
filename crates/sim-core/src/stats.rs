//! Output statistics with bounded memory.
//!
//! - [`Tally`]: count, mean and variance of observations (Welford's update),
//!   mergeable exactly across batches or replications.
//! - [`RunningMean`]: count and mean alone, the same update: what a meter
//!   that reports only a mean keeps.
//! - [`TimeWeighted`]: the time average of a piecewise-constant quantity such
//!   as a queue length or a number of busy servers.
//! - [`Quantiles`]: percentiles over any number of observations in bounded
//!   memory, from an HDR histogram with three significant digits (relative
//!   error at most 0.1%); histograms merge exactly.
//! - [`BatchMeans`]: a confidence interval for a steady-state mean from one
//!   long run, by batch means grouped until they pass a test for serial
//!   correlation, or the reason there is none.
//! - [`ConfidenceInterval`]: the Student-t interval of the mean of
//!   independent samples, such as the results of independent replications.
//!
//! - [`mser`]: where to truncate an output series so that what remains is
//!   least biased by the run's start (MSER, and MSER-5 on batches of five).
//!
//! Warm-up deletion is done by the models: they call `reset` on their
//! statistics when the warm-up period ends.

mod histogram;

use crate::time::SimTime;
use histogram::Histogram;
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};
use thiserror::Error;

/// `count` as `count as f64` gives it, for counts below 2^63 (every count
/// of observations): through a signed integer, one instruction on x86-64
/// where the unsigned conversion takes six, and the same value.
#[inline]
fn count_as_f64(count: u64) -> f64 {
    debug_assert!(count < 1 << 63, "a count of 2^63 observations");
    count as i64 as f64
}

/// Count and mean of observations, by Welford's update: a [`Tally`]
/// without the variance and the extremes, for a meter that reports only
/// its mean (and so does not pay for the rest at every observation). Its
/// mean is the same, bit for bit, as a tally's of the same observations.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunningMean {
    count: u64,
    mean: f64,
}

impl RunningMean {
    /// No observations yet.
    pub fn new() -> RunningMean {
        RunningMean::default()
    }

    /// Adds one observation.
    #[inline]
    pub fn add(&mut self, x: f64) {
        self.update(x);
    }

    /// Adds `x` and returns its distance from the mean before it.
    #[inline]
    fn update(&mut self, x: f64) -> f64 {
        self.count += 1;
        let delta = x - self.mean;
        self.mean += delta / count_as_f64(self.count);
        delta
    }

    /// The number of observations.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The mean (0 when empty).
    pub fn mean(&self) -> f64 {
        self.mean
    }
}

/// Count, mean, variance, minimum and maximum of observations.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    running: RunningMean,
    m2: f64,
    min: f64,
    max: f64,
}

impl Tally {
    /// An empty tally.
    pub fn new() -> Tally {
        Tally::default()
    }

    /// Adds one observation.
    #[inline]
    pub fn add(&mut self, x: f64) {
        let delta = self.running.update(x);
        if self.running.count == 1 {
            self.min = x;
            self.max = x;
        } else {
            self.min = self.min.min(x);
            self.max = self.max.max(x);
        }
        self.m2 += delta * (x - self.running.mean);
    }

    /// Adds every observation of `other`, as if they had been added here.
    pub fn merge(&mut self, other: &Tally) {
        if other.count() == 0 {
            return;
        }
        if self.count() == 0 {
            *self = other.clone();
            return;
        }
        let (count, other_count) = (self.count(), other.count());
        let n = (count + other_count) as f64;
        let delta = other.mean() - self.mean();
        self.m2 += other.m2 + delta * delta * count as f64 * other_count as f64 / n;
        self.running.mean += delta * other_count as f64 / n;
        self.running.count += other_count;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// The number of observations.
    pub fn count(&self) -> u64 {
        self.running.count
    }

    /// The mean (0 when empty).
    pub fn mean(&self) -> f64 {
        self.running.mean
    }

    /// The sample variance (0 with fewer than two observations).
    pub fn variance(&self) -> f64 {
        if self.count() < 2 {
            0.0
        } else {
            self.m2 / (self.count() - 1) as f64
        }
    }

    /// The smallest observation (0 when empty).
    pub fn min(&self) -> f64 {
        self.min
    }

    /// The largest observation (0 when empty).
    pub fn max(&self) -> f64 {
        self.max
    }
}

/// The time average of a piecewise-constant quantity.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeWeighted {
    value: f64,
    since: SimTime,
    start: SimTime,
    area: f64,
}

impl TimeWeighted {
    /// A quantity that is `value` from `now` on.
    pub fn new(now: SimTime, value: f64) -> TimeWeighted {
        TimeWeighted {
            value,
            since: now,
            start: now,
            area: 0.0,
        }
    }

    /// The quantity becomes `value` at `now`.
    #[inline]
    pub fn set(&mut self, now: SimTime, value: f64) {
        self.area += self.value * (now - self.since).as_secs_f64();
        self.value = value;
        self.since = now;
    }

    /// The quantity changes by `delta` at `now`.
    #[inline]
    pub fn add(&mut self, now: SimTime, delta: f64) {
        self.set(now, self.value + delta);
    }

    /// The current value.
    pub fn value(&self) -> f64 {
        self.value
    }

    /// The time average from the start (or the last reset) to `now`.
    pub fn mean(&self, now: SimTime) -> f64 {
        let span = (now - self.start).as_secs_f64();
        if span <= 0.0 {
            return self.value;
        }
        (self.area + self.value * (now - self.since).as_secs_f64()) / span
    }

    /// Forgets the history before `now`, keeping the current value.
    pub fn reset(&mut self, now: SimTime) {
        *self = TimeWeighted::new(now, self.value);
    }
}

/// Percentiles of durations in bounded memory.
///
/// The durations are counted in the buckets of a histogram with three
/// significant digits (each bucket spans at most a thousandth of its
/// values; the buckets of an HDR histogram, `stats/histogram.rs`). A
/// percentile is read inside its bucket by spreading the bucket's
/// durations evenly over it, not at the bucket's top edge, which would put
/// every percentile up to a bucket high, a bias that long runs resolve;
/// and it never leaves the smallest and largest durations recorded, which
/// are kept exactly (a run whose every response is 1.3 s has 1.3 s at
/// every percentile).
#[derive(Clone, Debug)]
pub struct Quantiles {
    histogram: Histogram,
    /// The smallest and largest durations recorded \[ns\].
    least: u64,
    most: u64,
}

impl Default for Quantiles {
    fn default() -> Self {
        Quantiles::new()
    }
}

impl Quantiles {
    /// An empty histogram with three significant digits.
    pub fn new() -> Quantiles {
        Quantiles {
            histogram: Histogram::default(),
            least: u64::MAX,
            most: 0,
        }
    }

    /// Records one duration.
    #[inline]
    pub fn record(&mut self, duration: SimTime) {
        let nanos = duration.as_nanos();
        self.histogram.record(nanos);
        self.least = self.least.min(nanos);
        self.most = self.most.max(nanos);
    }

    /// The `q`-quantile \[s\], `q` in [0, 1] (0 when empty): the duration
    /// below which a fraction `q` of the durations lie, with the durations
    /// of each bucket spread evenly over it, within the smallest and
    /// largest recorded.
    pub fn quantile(&self, q: f64) -> f64 {
        let n = self.histogram.total();
        if n == 0 {
            return 0.0;
        }
        let rank = q.clamp(0.0, 1.0) * n as f64;
        let nanos = match self.histogram.bucket_reaching(rank) {
            Some(((low, high), below, count)) => {
                let (low, high) = (low as f64, high as f64);
                let within = (rank - below as f64) / count as f64;
                low + within * (high - low)
            }
            None => self.most as f64,
        };
        nanos.clamp(self.least as f64, self.most as f64) / 1e9
    }

    /// The number of recorded durations.
    pub fn count(&self) -> u64 {
        self.histogram.total()
    }

    /// The smallest and the largest duration recorded, `None` when empty.
    pub fn range(&self) -> Option<(SimTime, SimTime)> {
        (self.count() > 0).then(|| {
            (
                SimTime::from_nanos(self.least),
                SimTime::from_nanos(self.most),
            )
        })
    }

    /// Adds every duration recorded in `other`.
    pub fn merge(&mut self, other: &Quantiles) {
        self.histogram.merge(&other.histogram);
        self.least = self.least.min(other.least);
        self.most = self.most.max(other.most);
    }

    /// Forgets every recorded duration.
    pub fn reset(&mut self) {
        self.histogram.reset();
        self.least = u64::MAX;
        self.most = 0;
    }
}

/// A confidence interval for a mean.
///
/// Student-t intervals of independent samples are symmetric about the
/// mean; a skewness-adjusted interval (such as [`BatchMeans::interval`])
/// leans toward the long tail, and `shift` says by how much.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConfidenceInterval {
    /// The point estimate.
    pub mean: f64,
    /// Half the width of the interval.
    pub half_width: f64,
    /// How far the interval's midpoint lies above `mean` (0 for a
    /// symmetric interval).
    pub shift: f64,
    /// The confidence level, such as 0.95.
    pub level: f64,
    /// The number of independent samples (or batches) behind it.
    pub samples: usize,
}

impl ConfidenceInterval {
    /// The interval of the mean of `samples`, taken as independent and
    /// identically distributed, at confidence `level`; `None` with fewer
    /// than two samples.
    pub fn from_samples(samples: &[f64], level: f64) -> Option<ConfidenceInterval> {
        assert!(
            level > 0.0 && level < 1.0,
            "confidence level must be in (0, 1), got {}",
            crate::Figure(level)
        );
        if samples.len() < 2 {
            return None;
        }
        let mut tally = Tally::new();
        samples.iter().for_each(|&x| tally.add(x));
        let n = samples.len() as f64;
        let t = StudentsT::new(0.0, 1.0, n - 1.0)
            .expect("degrees of freedom >= 1")
            .inverse_cdf(0.5 + level / 2.0);
        Some(ConfidenceInterval {
            mean: tally.mean(),
            half_width: t * (tally.variance() / n).sqrt(),
            shift: 0.0,
            level,
            samples: samples.len(),
        })
    }

    /// The lower end.
    pub fn low(&self) -> f64 {
        self.mean + self.shift - self.half_width
    }

    /// The upper end.
    pub fn high(&self) -> f64 {
        self.mean + self.shift + self.half_width
    }

    /// The larger of the distances from the mean to the two ends: the
    /// mean ± this contains the interval (and is the interval when it is
    /// symmetric).
    pub fn reach(&self) -> f64 {
        self.half_width + self.shift.abs()
    }

    /// Whether `x` lies in the interval.
    pub fn contains(&self, x: f64) -> bool {
        self.low() <= x && x <= self.high()
    }
}

/// Why [`BatchMeans::interval`] gives no interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum NoInterval {
    /// Fewer than [`BatchMeans::MIN_BATCHES`] complete batches: the run is
    /// too short for its observations to be grouped.
    #[error("too few batches")]
    TooFewBatches,
    /// The batch means never passed the test for independence, and,
    /// allowing for their correlation, they are worth fewer than
    /// [`BatchMeans::MIN_BATCHES`] independent ones: the run is too short
    /// for the correlation time of what it measures.
    #[error("correlated batches")]
    CorrelatedBatches,
}

/// Batch means for the steady-state mean of a sequence of observations.
///
/// Observations are grouped in consecutive batches. Memory is bounded: at
/// most [`BatchMeans::KEPT`] batch means are kept (20 KiB); when that many
/// are complete, neighbours are merged pairwise and the batch size
/// doubles, so that a long run keeps between 1,280 and 2,559 of them.
/// Adding an observation updates two running means.
///
/// The interval is N-Skart's (A. Tafazzoli, N. M. Steiger and J. R.
/// Wilson, "N-Skart: A nonsequential skewness- and autoregression-adjusted
/// batch-means procedure for simulation analysis", IEEE Transactions on
/// Automatic Control 56(2), 2011; the skewness and correlation
/// adjustments as in Skart, A. Tafazzoli and J. R. Wilson, IIE
/// Transactions 43(2), 2011), a procedure for a data set of fixed size,
/// here worked on the kept batch means rather than the raw observations:
///
/// 1. *Randomness test at growing batch sizes.* From 1,280 batches of one
///    observation (fewer in a shorter run), the batch size m grows by √2
///    and the batch count k shrinks by 0.9 until the first k batches pass
///    von Neumann's test for independence at level
///    [`BatchMeans::RANDOMNESS_LEVEL`], adjacent or with up to 10 batches
///    skipped between those tested (3 when the batch means are skewed,
///    |skewness| > 0.5 over their last 80%), or until the run has too few
///    observations for the next size. A batch holds a whole number of
///    kept means, so the sizes below the kept means' are tried at theirs.
/// 2. *Final batches.* The count k′ that passed (a spaced count inflated
///    back by 0.9 per size tried) and the size m both grow by f =
///    √(N / k′m), the count to at most 1,024; the batches are formed from
///    the end of the run (a remainder at its start is left out of them).
///    A run for which no size passed goes on with the last size tried.
/// 3. *Correlation adjustment.* The variance S² of the k′ batch means is
///    multiplied by A = (1 + φ)/(1 − φ), φ their lag-one correlation: the
///    variance of a mean of first-order autoregressive batch means. A run
///    for which no size passed and whose k′/A falls short of
///    [`BatchMeans::MIN_BATCHES`] gets no interval.
/// 4. *Skewness adjustment.* With the skewness B of the batch means,
///    taken k″ of them spaced as in the test, and β = B/(6√k″), the
///    interval is [Ȳ − G(t)·√(A·S²/k′), Ȳ − G(−t)·√(A·S²/k′)], t Student's
///    quantile on k″ − 1 degrees of freedom and G(t) = ((1 + 6β(t −
///    β))^⅓ − 1)/(2β) (R. Willink, "A confidence interval and test for the
///    mean of an asymmetric distribution", Communications in Statistics:
///    Theory and Methods 34(4), 2005; the real cube root where its
///    argument is negative): the interval of a right-skewed mean reaches
///    further up than down.
///
/// N-Skart's own warm-up deletion (the spacer that passed, and the
/// remainder) is left out: the models delete the scenario's warm-up, and
/// the interval is about the mean they print, Ȳ being the mean of every
/// observation since the last reset. Batch means equal to within four
/// units in the last place (a run whose every response is the same) give
/// an interval of width 0. `docs/validation.md` records the coverage this
/// gives on M/M/1 at light, heavy and very heavy load.
#[derive(Clone, Debug)]
pub struct BatchMeans {
    batch_size: u64,
    /// Observations in the batch being filled, and their mean.
    filled: u64,
    partial: f64,
    /// Every observation since the last reset.
    all: RunningMean,
    means: Vec<f64>,
}

impl Default for BatchMeans {
    fn default() -> Self {
        BatchMeans::new()
    }
}

/// N-Skart's initial batch count.
const INITIAL_BATCHES: usize = 1280;
/// The most batches the interval is formed from.
const FINAL_BATCHES: usize = 1024;

impl BatchMeans {
    /// The most batch means kept in memory.
    pub const KEPT: usize = 2560;
    /// The fewest batches an interval is formed from.
    pub const MIN_BATCHES: usize = 10;
    /// The level of von Neumann's test of the batch means for independence
    /// at each batch size (N-Skart's).
    pub const RANDOMNESS_LEVEL: f64 = 0.2;

    /// No observations yet.
    pub fn new() -> BatchMeans {
        BatchMeans {
            batch_size: 1,
            filled: 0,
            partial: 0.0,
            all: RunningMean::new(),
            means: Vec::new(),
        }
    }

    /// Adds one observation.
    #[inline]
    pub fn add(&mut self, x: f64) {
        self.all.add(x);
        // Running means, exact for equal observations.
        self.filled += 1;
        self.partial += (x - self.partial) / count_as_f64(self.filled);
        if self.filled == self.batch_size {
            self.close_batch();
        }
    }

    /// Keeps the mean of the batch just filled, and halves the kept means
    /// when there are [`BatchMeans::KEPT`] of them. Out of line: `add`
    /// is inlined wherever an observation is made, and this is done once
    /// a batch.
    #[inline(never)]
    fn close_batch(&mut self) {
        self.means.push(self.partial);
        self.partial = 0.0;
        self.filled = 0;
        if self.means.len() == Self::KEPT {
            for i in 0..Self::KEPT / 2 {
                self.means[i] = 0.5 * (self.means[2 * i] + self.means[2 * i + 1]);
            }
            self.means.truncate(Self::KEPT / 2);
            self.batch_size *= 2;
        }
    }

    /// The confidence interval of the mean at confidence `level`, or why
    /// there is none (see the type's documentation for the method).
    pub fn interval(&self, level: f64) -> Result<ConfidenceInterval, NoInterval> {
        let kept = &self.means;
        let n_kept = kept.len();
        if n_kept < Self::MIN_BATCHES {
            return Err(NoInterval::TooFewBatches);
        }
        let (least, most) = kept
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
                (lo.min(x), hi.max(x))
            });
        if most - least <= 4.0 * f64::EPSILON * least.abs().max(most.abs()) {
            // Constant batch means, but for rounding: nothing varies.
            return Ok(ConfidenceInterval {
                mean: self.all.mean(),
                half_width: 0.0,
                shift: 0.0,
                level,
                samples: n_kept,
            });
        }
        let Tested {
            group,
            count,
            spacer,
            passed,
        } = independent_size(kept, self.batch_size as f64);
        // Step 5: count and size both grow by f = sqrt(N / k'm), the count
        // to at most FINAL_BATCHES.
        let f = (n_kept as f64 / (count * group) as f64).sqrt();
        let count = ((f * count as f64).floor() as usize).clamp(Self::MIN_BATCHES, FINAL_BATCHES);
        let mut size = (n_kept / count).max(1);
        if n_kept / size > FINAL_BATCHES {
            size = n_kept.div_ceil(FINAL_BATCHES);
        }
        let count = n_kept / size;
        let batches = grouped(&kept[n_kept - count * size..], size);
        // Step 6: the correlation adjustment.
        let (mean, variance) = mean_and_variance(&batches);
        let phi = lag_one_correlation(&batches, mean);
        let adjustment = (1.0 + phi) / (1.0 - phi);
        if !passed && (count as f64) < Self::MIN_BATCHES as f64 * adjustment {
            // Never found independent, and worth fewer than MIN_BATCHES
            // independent batches: the run is too short.
            return Err(NoInterval::CorrelatedBatches);
        }
        // Step 7: the skewness adjustment, on batch means spaced as the
        // test found them independent.
        let spacer = (spacer as f64 * group as f64 / size as f64).ceil() as usize;
        let spaced = spaced(&batches, spacer);
        let beta = if spaced.len() >= 3 {
            skewness(&spaced) / (6.0 * (spaced.len() as f64).sqrt())
        } else {
            0.0
        };
        let t = StudentsT::new(0.0, 1.0, (spaced.len().max(2) - 1) as f64)
            .expect("degrees of freedom >= 1")
            .inverse_cdf(0.5 + level / 2.0);
        let willink = |z: f64| {
            if beta.abs() < 1e-12 {
                z
            } else {
                ((1.0 + 6.0 * beta * (z - beta)).cbrt() - 1.0) / (2.0 * beta)
            }
        };
        let error = (adjustment * variance / count as f64).sqrt();
        let mean = self.all.mean();
        let (low, high) = (mean - willink(t) * error, mean - willink(-t) * error);
        Ok(ConfidenceInterval {
            mean,
            half_width: 0.5 * (high - low),
            shift: 0.5 * (high + low) - mean,
            level,
            samples: count,
        })
    }

    /// The number of observations since the last reset.
    pub fn count(&self) -> u64 {
        self.all.count()
    }

    /// The mean of every observation since the last reset (0 when empty):
    /// the same, bit for bit, as a [`Tally`]'s of the same observations.
    pub fn mean(&self) -> f64 {
        self.all.mean()
    }

    /// The current batch size.
    pub fn batch_size(&self) -> u64 {
        self.batch_size
    }

    /// Forgets every observation.
    pub fn reset(&mut self) {
        *self = BatchMeans::new();
    }
}

/// The batch size N-Skart's randomness test settles on (steps 1 to 4 of
/// [`BatchMeans`]), over `kept` batch means of `unit` observations each.
struct Tested {
    /// Kept means a batch.
    group: usize,
    /// The batch count that passed, a spaced count inflated back.
    count: usize,
    /// Batches skipped between those tested.
    spacer: usize,
    /// Whether any size passed (else the last size tried).
    passed: bool,
}

/// Steps 1 to 4 of [`BatchMeans`]: the randomness test at growing batch
/// sizes, on the first k batches of m observations (m a whole number of
/// kept means, `group` of them).
fn independent_size(kept: &[f64], unit: f64) -> Tested {
    let n_kept = kept.len();
    let (mut m, mut k, mut stage) = (1.0f64, INITIAL_BATCHES.min(n_kept), 0i32);
    let mut tested_group = 0;
    let mut last = None;
    loop {
        let group = (m / unit).ceil().max(1.0) as usize;
        if k * group > n_kept || k < BatchMeans::MIN_BATCHES {
            break;
        }
        last = Some((group, k));
        if group != tested_group {
            tested_group = group;
            let batches = grouped(&kept[..k * group], group);
            if let Some((count, spacer)) = passing_spacer(&batches) {
                let count = if spacer > 0 {
                    // Step 5a: the spaced count inflated back.
                    ((count as f64 / 0.9f64.powi(stage)).ceil() as usize).min(k)
                } else {
                    count
                };
                return Tested {
                    group,
                    count,
                    spacer,
                    passed: true,
                };
            }
        }
        m = (std::f64::consts::SQRT_2 * m).ceil();
        k = (0.9 * k as f64).ceil() as usize;
        stage += 1;
    }
    // No size passed: go on with the last tried.
    let (group, count) = last.unwrap_or((1, n_kept));
    Tested {
        group,
        count,
        spacer: 0,
        passed: false,
    }
}

/// The fewest batches skipped between those tested with which `batches`
/// pass von Neumann's test, and how many are tested then; up to 10
/// skipped, 3 when the batch means are skewed (|skewness| > 0.5 over
/// their last 80%).
fn passing_spacer(batches: &[f64]) -> Option<(usize, usize)> {
    let widest = if skewness(&batches[batches.len() / 5..]).abs() > 0.5 {
        3
    } else {
        10
    };
    for spacer in 0..=widest {
        let spaced = spaced(batches, spacer);
        if spaced.len() < BatchMeans::MIN_BATCHES {
            return None;
        }
        if !serially_correlated(&spaced, BatchMeans::RANDOMNESS_LEVEL) {
            return Some((spaced.len(), spacer));
        }
    }
    None
}

/// Means of consecutive groups of `size` values (a last, short group is
/// left out).
fn grouped(values: &[f64], size: usize) -> Vec<f64> {
    values
        .chunks_exact(size)
        .map(|c| c.iter().sum::<f64>() / size as f64)
        .collect()
}

/// Every `spacer + 1`th value, from the one after the first spacer: the
/// batches left when `spacer` batches are skipped before each.
fn spaced(values: &[f64], spacer: usize) -> Vec<f64> {
    values
        .iter()
        .skip(spacer)
        .step_by(spacer + 1)
        .copied()
        .collect()
}

fn mean_and_variance(values: &[f64]) -> (f64, f64) {
    let mut t = Tally::new();
    values.iter().for_each(|&x| t.add(x));
    (t.mean(), t.variance())
}

/// The lag-one sample autocorrelation of `values` about `mean`.
fn lag_one_correlation(values: &[f64], mean: f64) -> f64 {
    let squares: f64 = values.iter().map(|x| (x - mean).powi(2)).sum();
    if squares <= 0.0 {
        return 0.0;
    }
    let products: f64 = values
        .windows(2)
        .map(|w| (w[0] - mean) * (w[1] - mean))
        .sum();
    products / squares
}

/// The sample skewness of `values`, adjusted for the sample size (G1 =
/// n/((n-1)(n-2)) · sum of the cubed standardised deviations); 0 for fewer
/// than three values or none varying.
fn skewness(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    if values.len() < 3 {
        return 0.0;
    }
    let (mean, variance) = mean_and_variance(values);
    if variance <= 0.0 {
        return 0.0;
    }
    let sd = variance.sqrt();
    let cubes: f64 = values.iter().map(|x| ((x - mean) / sd).powi(3)).sum();
    n / ((n - 1.0) * (n - 2.0)) * cubes
}

/// Von Neumann's ratio test for positive lag-one correlation: with `m`
/// values, C = 1 - sum (x[i+1] - x[i])² / (2 sum (x[i] - mean)²) is about
/// normal with mean 0 and variance (m - 2) / (m² - 1) when the values are
/// independent (J. von Neumann, "Distribution of the ratio of the mean
/// square successive difference to the variance", Annals of Mathematical
/// Statistics 12(4), 1941; the normal approximation as in G. S. Fishman,
/// "Grouping observations in digital simulation", Management Science
/// 24(5), 1978).
fn serially_correlated(values: &[f64], level: f64) -> bool {
    let m = values.len() as f64;
    let mean = values.iter().sum::<f64>() / m;
    let squares: f64 = values.iter().map(|x| (x - mean) * (x - mean)).sum();
    if squares <= 0.0 {
        // Constant values: nothing varies, so nothing is correlated.
        return false;
    }
    let successive: f64 = values.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum();
    let c = 1.0 - successive / (2.0 * squares);
    let sd = ((m - 2.0) / (m * m - 1.0)).sqrt();
    let z = Normal::new(0.0, 1.0)
        .expect("the standard normal")
        .inverse_cdf(1.0 - level);
    c / sd > z
}

/// The MSER truncation point of `series`: how many of its first values to
/// delete, in whole batches of `batch` values, so that the mean of the
/// rest has the smallest marginal standard error (K. P. White, Jr., "An
/// effective truncation heuristic for bias reduction in simulation
/// output", *Simulation* 69(6), 1997, pp. 323-334; with batches of five,
/// MSER-5: K. P. White, Jr., M. J. Cobb and S. C. Spratt, "A comparison of
/// five steady-state truncation heuristics for simulation", *Proceedings of
/// the 2000 Winter Simulation Conference*, pp. 755-760).
///
/// The series is cut into `m` batch means Z_1..Z_m (a last, incomplete
/// batch is left out); for each d the statistic is
/// sum over j > d of (Z_j - mean of Z_{d+1..m})^2 / (m - d)^2, and d* is
/// the smallest d below m/2 that minimises it. The statistic of a short
/// tail is itself unreliable, so only the first half is searched (as
/// K. Hoad, S. Robinson and R. Davies recommend, "Automating warm-up
/// length estimation", *Journal of the Operational Research Society*
/// 61(9), 2010); a minimum on the last d searched says the series is still
/// drifting there, the run too short to reach its steady state, and gives
/// `None`, as do fewer than four batches.
pub fn mser(series: &[f64], batch: usize) -> Option<usize> {
    assert!(batch > 0, "a batch holds at least one value");
    let means: Vec<f64> = series
        .chunks_exact(batch)
        .map(|c| c.iter().sum::<f64>() / batch as f64)
        .collect();
    let m = means.len();
    if m < 4 {
        return None;
    }
    // From the end backwards: sums of the batch means after each d.
    let (mut sum, mut squares) = (0.0, 0.0);
    let mut statistic = vec![0.0; m];
    for d in (0..m).rev() {
        sum += means[d];
        squares += means[d] * means[d];
        let n = (m - d) as f64;
        let deviations = (squares - sum * sum / n).max(0.0);
        statistic[d] = deviations / (n * n);
    }
    let half = m / 2;
    let best = (0..half).fold(0, |best, d| {
        if statistic[d] < statistic[best] {
            d
        } else {
            best
        }
    });
    (best + 1 < half).then_some(best * batch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn merged_tallies_equal_one_tally(
            a in prop::collection::vec(-1e3f64..1e3, 0..50),
            b in prop::collection::vec(-1e3f64..1e3, 0..50),
        ) {
            let (mut ta, mut tb, mut all) = (Tally::new(), Tally::new(), Tally::new());
            a.iter().for_each(|&x| { ta.add(x); all.add(x) });
            b.iter().for_each(|&x| { tb.add(x); all.add(x) });
            ta.merge(&tb);
            prop_assert_eq!(ta.count(), all.count());
            prop_assert!((ta.mean() - all.mean()).abs() < 1e-9);
            prop_assert!((ta.variance() - all.variance()).abs() < 1e-6 * (1.0 + all.variance()));
            prop_assert_eq!(ta.max(), all.max());
        }

        // A running mean, a tally and batch means all keep the mean of
        // Welford's update, written out here: the same bits, so that a
        // meter may keep whichever it needs without changing a result.
        #[test]
        fn every_running_mean_is_welfords_to_the_bit(
            xs in prop::collection::vec(-1e6f64..1e6, 0..3000),
        ) {
            let (mut running, mut tally, mut batches) =
                (RunningMean::new(), Tally::new(), BatchMeans::new());
            let mut welford = 0.0f64;
            for (i, &x) in xs.iter().enumerate() {
                running.add(x);
                tally.add(x);
                batches.add(x);
                welford += (x - welford) / (i + 1) as f64;
            }
            prop_assert_eq!(running.count(), xs.len() as u64);
            prop_assert_eq!(batches.count(), xs.len() as u64);
            prop_assert_eq!(running.mean().to_bits(), welford.to_bits());
            prop_assert_eq!(tally.mean().to_bits(), welford.to_bits());
            prop_assert_eq!(batches.mean().to_bits(), welford.to_bits());
        }

        #[test]
        fn quantiles_keep_the_least_and_greatest_duration(
            nanos in prop::collection::vec(0u64..1 << 50, 0..200),
        ) {
            let mut q = Quantiles::new();
            nanos.iter().for_each(|&n| q.record(SimTime::from_nanos(n)));
            let expected = nanos.iter().min().zip(nanos.iter().max());
            prop_assert_eq!(
                q.range(),
                expected.map(|(&a, &b)| (SimTime::from_nanos(a), SimTime::from_nanos(b)))
            );
        }
    }

    #[test]
    fn tally_mean_and_variance() {
        let mut t = Tally::new();
        [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]
            .iter()
            .for_each(|&x| t.add(x));
        assert_eq!(t.mean(), 5.0);
        assert!((t.variance() - 32.0 / 7.0).abs() < 1e-12);
        assert_eq!((t.min(), t.max()), (2.0, 9.0));
    }

    #[test]
    fn time_weighted_average_and_reset() {
        let s = SimTime::from_secs;
        let mut q = TimeWeighted::new(s(0), 0.0);
        q.set(s(1), 2.0); // 0 for 1 s
        q.set(s(4), 1.0); // 2 for 3 s
        assert!((q.mean(s(5)) - 7.0 / 5.0).abs() < 1e-12); // 1 for 1 s
        q.reset(s(5));
        assert_eq!(q.mean(s(7)), 1.0);
    }

    #[test]
    fn quantiles_of_evenly_spread_durations_are_read_within_a_step() {
        // 1, 2, ..., 100000 microseconds: the p-quantile is p * 0.1 s. A
        // bucket there spans 16 to 64 of the microsecond steps; read at
        // its top edge the percentiles were up to a bucket high.
        let mut q = Quantiles::new();
        for i in 1..=100_000u64 {
            q.record(SimTime::from_nanos(i * 1_000));
        }
        for p in [0.01, 0.25, 0.5, 0.75, 0.9, 0.99] {
            let exact = p * 0.1;
            assert!(
                (q.quantile(p) - exact).abs() <= 2e-6,
                "p{p}: {} against {exact}",
                q.quantile(p)
            );
        }
        assert_eq!(q.quantile(0.0), 1e-6);
        assert_eq!(q.quantile(1.0), 0.1);
        let mut other = Quantiles::new();
        other.record(SimTime::from_secs(10));
        q.merge(&other);
        assert_eq!(q.count(), 100_001);
        assert_eq!(q.quantile(1.0), 10.0);
    }

    /// The `q`-quantile \[s\] of `durations` read as [`Quantiles`] reads
    /// it, from the `hdrhistogram` crate's histogram of three significant
    /// digits (as it was read before the buckets were counted in this
    /// crate).
    fn hdr_quantile(durations: &[u64], q: f64) -> f64 {
        let mut h = hdrhistogram::Histogram::<u64>::new(3).unwrap();
        durations.iter().for_each(|&d| h.record(d).unwrap());
        let (least, most) = (
            durations.iter().min().unwrap(),
            durations.iter().max().unwrap(),
        );
        let rank = q.clamp(0.0, 1.0) * h.len() as f64;
        let mut below = 0u64;
        let mut nanos = *most as f64;
        for bucket in h.iter_recorded() {
            let count = bucket.count_at_value();
            if (below + count) as f64 >= rank {
                let top = bucket.value_iterated_to();
                let low = h.lowest_equivalent(top) as f64;
                let high = h.next_non_equivalent(top) as f64;
                nanos = low + (rank - below as f64) / count as f64 * (high - low);
                break;
            }
            below += count;
        }
        nanos.clamp(*least as f64, *most as f64) / 1e9
    }

    proptest! {
        // Every percentile is, to the bit, the one read from the
        // `hdrhistogram` crate's histogram.
        #[test]
        fn quantiles_are_those_of_the_hdr_histogram(
            durations in prop::collection::vec(0u64..100_000_000_000, 1..300),
            q in 0.0f64..=1.0,
        ) {
            let mut quantiles = Quantiles::new();
            durations.iter().for_each(|&d| quantiles.record(SimTime::from_nanos(d)));
            for q in [q, 0.0, 0.5, 0.75, 0.9, 0.99, 1.0] {
                prop_assert_eq!(
                    quantiles.quantile(q).to_bits(),
                    hdr_quantile(&durations, q).to_bits(),
                    "q = {}", q
                );
            }
        }
    }

    #[test]
    fn quantiles_never_leave_the_durations_recorded() {
        let mut q = Quantiles::new();
        for _ in 0..1000 {
            q.record(SimTime::from_nanos(1_300_000_000));
        }
        for p in [0.0, 0.5, 0.75, 0.99, 1.0] {
            assert_eq!(q.quantile(p), 1.3, "p{p}");
        }
        q.record(SimTime::from_nanos(1_300_000_001));
        assert!(q.quantile(0.999) <= 1.300_000_001);
        q.reset();
        assert_eq!(q.quantile(0.5), 0.0);
        q.record(SimTime::from_secs(2));
        assert_eq!(q.quantile(0.5), 2.0);
    }

    #[test]
    fn t_interval_matches_tables() {
        // t(0.975, 4) = 2.776: samples 1..5 have mean 3, s^2 = 2.5.
        let ci = ConfidenceInterval::from_samples(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.95).unwrap();
        assert_eq!(ci.mean, 3.0);
        assert!((ci.half_width - 2.776 * (0.5f64).sqrt()).abs() < 1e-3);
        assert!(ci.contains(1.1) && !ci.contains(0.9));
        assert!(ConfidenceInterval::from_samples(&[1.0], 0.95).is_none());
    }

    #[test]
    fn the_batch_means_interval_is_adjusted_for_correlation_and_skewness_by_hand() {
        // Twelve observations, batches of one: 4 2 1 3 7 2 4 3 5 8 6 3.
        // They pass the randomness test at once (von Neumann's C = 0.19,
        // 0.72 standard deviations, under the 0.84 of level 0.2), so the
        // twelve are the batches. Mean 4, squares about it 50, so S² =
        // 50/11; the lag-one products sum to 9, so phi = 9/50 = 0.18 and
        // A = 1.18/0.82 = 59/41; the cubes sum to 54, so the skewness is
        // 12/(11·10) · 54 / (50/11)^(3/2) = 0.60788 and beta = 0.60788 /
        // (6 sqrt 12) = 0.029247. With t(0.975, 11) = 2.2010 from the
        // printed tables, G(t) = ((1 + 6 beta (t - beta))^(1/3) - 1) /
        // (2 beta) = 1.94265 and G(-t) = -2.60781, and the standard error
        // sqrt(A S²/12) = 0.738299: the interval is [4 - 1.94265 · 0.738299,
        // 4 + 2.60781 · 0.738299] = [2.56575, 5.92535]. The normal 1.96 in
        // place of t gives [2.711, 5.683]; without the correlation
        // adjustment, [2.804, 5.605]; without the skewness adjustment,
        // [2.375, 5.625].
        let mut bm = BatchMeans::new();
        for x in [4, 2, 1, 3, 7, 2, 4, 3, 5, 8, 6, 3] {
            bm.add(f64::from(x));
        }
        let ci = bm.interval(0.95).unwrap();
        assert_eq!(ci.samples, 12);
        assert_eq!(ci.mean, 4.0);
        assert!(
            (ci.low() - 2.56575).abs() < 1e-3 && (ci.high() - 5.92535).abs() < 1e-3,
            "[{}, {}] against [2.56575, 5.92535]",
            ci.low(),
            ci.high()
        );
        // The larger side: the mean ± this contains the interval.
        assert!((ci.reach() - 1.92535).abs() < 1e-3, "{}", ci.reach());
    }

    #[test]
    fn identical_observations_give_an_interval_of_width_zero() {
        // Batch means of equal values may differ from them in the last
        // place; they still count as constant, whatever the value.
        for x in [1.3, 12.345678, 0.777, 0.3333] {
            for n in [10, 1_000, 100_000] {
                let mut bm = BatchMeans::new();
                for _ in 0..n {
                    bm.add(x);
                }
                let ci = bm.interval(0.95).unwrap();
                assert_eq!(
                    (ci.mean, ci.half_width, ci.shift),
                    (x, 0.0, 0.0),
                    "{x} x {n}"
                );
            }
        }
    }

    #[test]
    fn batch_means_keep_bounded_batches_and_cover_the_mean() {
        let mut bm = BatchMeans::new();
        for x in ar1(0.0, 10_000, 5) {
            bm.add(x);
        }
        assert!(bm.means.len() < BatchMeans::KEPT);
        let ci = bm.interval(0.95).unwrap();
        // Independent observations pass the test at once; the batches are
        // then the kept means, at most 1,024 of them.
        assert!(
            ci.samples >= BatchMeans::KEPT / 4 && ci.samples <= 1024,
            "{ci:?}"
        );
        assert!(ci.contains(0.0), "{ci:?}");
        assert!(bm.batch_size() >= 10_000 / BatchMeans::KEPT as u64);
    }

    #[test]
    fn too_few_observations_give_no_interval() {
        let mut bm = BatchMeans::new();
        for i in 0..9 {
            bm.add(f64::from(i));
        }
        assert_eq!(bm.interval(0.95), Err(NoInterval::TooFewBatches));
    }

    /// A stationary AR(1) sequence with lag-one correlation `phi`.
    fn ar1(phi: f64, n: usize, seed: u64) -> Vec<f64> {
        use rand_distr::{Distribution, StandardNormal};
        let mut rng = crate::Streams::new(seed, 0).stream("ar1");
        let mut x = 0.0;
        (0..n)
            .map(|_| {
                let e: f64 = StandardNormal.sample(&mut rng);
                x = phi * x + e;
                x
            })
            .collect()
    }

    #[test]
    fn the_von_neumann_test_tells_correlated_from_independent() {
        // Over 200 sequences of 100 values each, the test rejects
        // independent values at about its level, 10%, and AR(1) values
        // with correlation 0.5 nearly always.
        let rejected = |phi: f64| {
            (0..200)
                .filter(|&s| serially_correlated(&ar1(phi, 100, s), 0.10))
                .count()
        };
        let (independent, correlated) = (rejected(0.0), rejected(0.5));
        assert!((8..=36).contains(&independent), "{independent} of 200");
        assert!(correlated >= 190, "{correlated} of 200");
    }

    #[test]
    fn strongly_correlated_short_runs_get_no_interval() {
        // Correlation 0.999 lasts about 1,000 observations: 2,000 of them
        // cannot be grouped into 10 independent batches.
        let mut bm = BatchMeans::new();
        for x in ar1(0.999, 2_000, 3) {
            bm.add(x);
        }
        assert_eq!(bm.interval(0.95), Err(NoInterval::CorrelatedBatches));
        // The same process run long enough does get one.
        let mut bm = BatchMeans::new();
        for x in ar1(0.999, 4_000_000, 3) {
            bm.add(x);
        }
        assert!(bm.interval(0.95).is_ok());
    }

    #[test]
    fn mser_cuts_off_the_start_that_biases_the_mean() {
        // A steady series around 10 after 40 values rising from 0: MSER-5
        // deletes the ramp (whole batches of five), not the steady part.
        let mut rng = crate::random::Streams::new(3, 0).stream("mser");
        let uniform = crate::dist::Dist::uniform(0.0, 2.0).unwrap();
        let noise = |rng: &mut _| uniform.sample(rng) - 1.0;
        let series: Vec<f64> = (0..1000)
            .map(|i| (f64::from(i) / 4.0).min(10.0) + noise(&mut rng))
            .collect();
        let cut = mser(&series, 5).unwrap();
        assert!((30..=60).contains(&cut), "cut {cut}");
        assert_eq!(cut % 5, 0);
        // Stationary from the start: nothing, or next to nothing, is cut.
        let steady: Vec<f64> = (0..1000).map(|_| 10.0 + noise(&mut rng)).collect();
        assert!(mser(&steady, 5).unwrap() < 100);
        // Still rising at the end: no steady state in the run.
        let rising: Vec<f64> = (0..1000).map(f64::from).collect();
        assert_eq!(mser(&rising, 5), None);
        assert_eq!(mser(&[1.0, 2.0, 3.0], 5), None);
        // By hand: batch means 5, 1, 1, 1, 1, 1 (batches of one): d = 1
        // leaves five equal means, statistic 0.
        assert_eq!(mser(&[5.0, 1.0, 1.0, 1.0, 1.0, 1.0], 1), Some(1));
        // The minimum on the last d searched: still drifting.
        assert_eq!(mser(&[5.0, 4.0, 3.0, 1.0, 1.0, 1.0], 1), None);
        // Four batches, the fewest searched: 0.0625 at d = 0, 0.074 at 1.
        assert_eq!(mser(&[1.0, 2.0, 1.0, 2.0], 1), Some(0));
    }
}
