//! Probability distributions of durations, as declared in scenarios.
//!
//! A [`Dist`] is validated when it is built and cannot fail when sampled.
//! Samples are in seconds; [`Dist::sample_time`] rounds them to ticks.
//! Every distribution knows its mean and second moment, which the analytic
//! results (Pollaczek-Khinchine, MVA) need.

use crate::figure::Figure;
use crate::time::SimTime;
use rand::Rng;
use rand_distr::weighted::WeightedAliasIndex;
use rand_distr::{Distribution, Exp1, Gamma, LogNormal, Uniform};
use statrs::distribution::ContinuousCDF;
use std::fmt;
use thiserror::Error;

/// Why a distribution's parameters were refused.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum DistError {
    /// A parameter that must be finite and positive was not.
    #[error("{what} must be a finite number > 0, got {}", Figure(*.value))]
    NotPositive {
        /// The parameter's name.
        what: &'static str,
        /// The value given.
        value: f64,
    },
    /// A parameter that must be finite and at least zero was not.
    #[error("{what} must be a finite number >= 0, got {}", Figure(*.value))]
    Negative {
        /// The parameter's name.
        what: &'static str,
        /// The value given.
        value: f64,
    },
    /// A uniform distribution whose bounds are out of order.
    #[error("uniform needs low < high, got low = {}, high = {}", Figure(*.low), Figure(*.high))]
    EmptyRange {
        /// The lower bound.
        low: f64,
        /// The upper bound.
        high: f64,
    },
    /// An Erlang distribution with no phases.
    #[error("erlang needs k >= 1 phases, got {0}")]
    NoPhases(u32),
    /// A hyperexponential distribution asked for less variability than an
    /// exponential one.
    #[error("hyperexponential needs a squared coefficient of variation >= 1, got {}", Figure(*.0))]
    ScvBelowOne(f64),
    /// A hyperexponential distribution whose variability cannot be
    /// represented.
    #[error("hyperexponential squared coefficient of variation {} is too large to represent", Figure(*.0))]
    ScvTooLarge(f64),
    /// An empirical table that is empty or whose columns differ in length.
    #[error(
        "empirical table needs as many weights as values, and at least one of each (got {values} values, {weights} weights)"
    )]
    TableShape {
        /// The number of values.
        values: usize,
        /// The number of weights.
        weights: usize,
    },
    /// An empirical table whose weights are all zero.
    #[error("empirical weights are all zero: at least one must be > 0")]
    TableWeights,
    /// An empirical table with a weight that is negative, infinite or not
    /// a number.
    #[error("empirical weights must be finite numbers >= 0, got {}", Figure(*.0))]
    TableWeight(f64),
    /// An empirical table whose weights, each finite, add up to more than
    /// a floating-point number holds.
    #[error(
        "empirical weights add up to more than the largest number (about 1.8e308): only their ratios matter, so scale them down"
    )]
    TableWeightsOverflow,
}

/// The longest duration [`Dist::sample_time`] returns, in seconds (about 31.7
/// years). Runs are limited to ten times as long, so that the clock plus any
/// sample stays far inside the range of [`SimTime`].
pub const LONGEST_SAMPLE: f64 = 1e9;

#[derive(Clone, Debug)]
enum Kind {
    Exponential {
        mean: f64,
    },
    Deterministic {
        value: f64,
    },
    Uniform {
        low: f64,
        high: f64,
        sampler: Uniform<f64>,
    },
    Erlang {
        k: u32,
        mean: f64,
        sampler: Gamma<f64>,
    },
    HyperExponential {
        p1: f64,
        /// 1 - p1, kept apart: it may be far smaller than p1's last digit.
        p2: f64,
        mean1: f64,
        mean2: f64,
    },
    LogNormal {
        mean: f64,
        scv: f64,
        sampler: LogNormal<f64>,
    },
    Empirical {
        values: Vec<f64>,
        probabilities: Vec<f64>,
        index: WeightedAliasIndex<f64>,
    },
}

/// A distribution of non-negative durations, in seconds.
#[derive(Clone, Debug)]
pub struct Dist(Kind);

fn positive(what: &'static str, value: f64) -> Result<f64, DistError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(DistError::NotPositive { what, value })
    }
}

fn non_negative(what: &'static str, value: f64) -> Result<f64, DistError> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(DistError::Negative { what, value })
    }
}

impl Dist {
    /// Exponential with the given mean \[s\].
    pub fn exponential(mean: f64) -> Result<Dist, DistError> {
        Ok(Dist(Kind::Exponential {
            mean: positive("mean", mean)?,
        }))
    }

    /// Always `value` \[s\].
    pub fn deterministic(value: f64) -> Result<Dist, DistError> {
        Ok(Dist(Kind::Deterministic {
            value: non_negative("value", value)?,
        }))
    }

    /// Uniform on `[low, high)` \[s\].
    pub fn uniform(low: f64, high: f64) -> Result<Dist, DistError> {
        non_negative("low", low)?;
        positive("high", high)?;
        let sampler = Uniform::new(low, high).map_err(|_| DistError::EmptyRange { low, high })?;
        Ok(Dist(Kind::Uniform { low, high, sampler }))
    }

    /// Erlang with `k` phases and the given mean \[s\]: squared coefficient of
    /// variation 1/k.
    pub fn erlang(k: u32, mean: f64) -> Result<Dist, DistError> {
        if k == 0 {
            return Err(DistError::NoPhases(k));
        }
        let mean = positive("mean", mean)?;
        let sampler = Gamma::new(f64::from(k), mean / f64::from(k))
            .expect("shape and scale were checked positive");
        Ok(Dist(Kind::Erlang { k, mean, sampler }))
    }

    /// Two-phase hyperexponential with the given mean \[s\] and squared
    /// coefficient of variation `scv >= 1`, with balanced means (each branch
    /// contributes half of the mean), the usual way to fit an H2 to two
    /// moments.
    pub fn hyperexponential(mean: f64, scv: f64) -> Result<Dist, DistError> {
        let mean = positive("mean", mean)?;
        if !(scv.is_finite() && scv >= 1.0) {
            return Err(DistError::ScvBelowOne(scv));
        }
        let root = ((scv - 1.0) / (scv + 1.0)).sqrt();
        let p1 = 0.5 * (1.0 + root);
        // 1 - p1, written so that it does not cancel to 0 for a large SCV.
        let p2 = 1.0 / ((scv + 1.0) * (1.0 + root));
        if !(p2 > 0.0 && (mean / (2.0 * p2)).is_finite()) {
            // So large an SCV leaves no probability on the slow branch in
            // floating point: what would be sampled is an exponential.
            return Err(DistError::ScvTooLarge(scv));
        }
        Ok(Dist(Kind::HyperExponential {
            p1,
            p2,
            mean1: mean / (2.0 * p1),
            mean2: mean / (2.0 * p2),
        }))
    }

    /// Lognormal with the given mean \[s\] and squared coefficient of variation.
    pub fn lognormal(mean: f64, scv: f64) -> Result<Dist, DistError> {
        let mean = positive("mean", mean)?;
        let scv = positive("scv", scv)?;
        let sampler = LogNormal::from_mean_cv(mean, scv.sqrt())
            .expect("mean and coefficient of variation were checked positive");
        Ok(Dist(Kind::LogNormal { mean, scv, sampler }))
    }

    /// A discrete table: `values[i]` \[s\] with probability proportional to
    /// `weights[i]`.
    pub fn empirical(values: Vec<f64>, weights: Vec<f64>) -> Result<Dist, DistError> {
        if values.is_empty() || values.len() != weights.len() {
            return Err(DistError::TableShape {
                values: values.len(),
                weights: weights.len(),
            });
        }
        for &v in &values {
            non_negative("value", v)?;
        }
        if let Some(&w) = weights.iter().find(|w| !(w.is_finite() && **w >= 0.0)) {
            return Err(DistError::TableWeight(w));
        }
        let total: f64 = weights.iter().sum();
        // The alias table multiplies each weight by their number.
        let largest = f64::MAX / weights.len() as f64;
        if total.is_infinite() || weights.iter().any(|&w| w > largest) {
            return Err(DistError::TableWeightsOverflow);
        }
        if total <= 0.0 {
            return Err(DistError::TableWeights);
        }
        let probabilities = weights.iter().map(|w| w / total).collect();
        let index =
            WeightedAliasIndex::new(weights).map_err(|_| DistError::TableWeightsOverflow)?;
        Ok(Dist(Kind::Empirical {
            values,
            probabilities,
            index,
        }))
    }

    /// One sample \[s\].
    ///
    /// The exponential, by far the most sampled, is drawn inline where the
    /// sample is taken; the others in a function of their own, so that a
    /// model's many sampling sites do not each carry every kind.
    #[inline]
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match &self.0 {
            Kind::Exponential { mean } => {
                let e: f64 = Exp1.sample(rng);
                mean * e
            }
            _ => self.sample_other(rng),
        }
    }

    /// One sample \[s\] of a kind other than the exponential.
    #[inline(never)]
    fn sample_other<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match &self.0 {
            Kind::Exponential { .. } => unreachable!("drawn inline by `sample`"),
            Kind::Deterministic { value } => *value,
            Kind::Uniform { sampler, .. } => sampler.sample(rng),
            Kind::Erlang { sampler, .. } => sampler.sample(rng),
            Kind::HyperExponential {
                p1, mean1, mean2, ..
            } => {
                let u: f64 = rand::RngExt::random(rng);
                let mean = if u < *p1 { mean1 } else { mean2 };
                let e: f64 = Exp1.sample(rng);
                mean * e
            }
            Kind::LogNormal { sampler, .. } => sampler.sample(rng),
            Kind::Empirical { values, index, .. } => values[index.sample(rng)],
        }
    }

    /// One sample, rounded to the nearest tick, and cut to
    /// [`LONGEST_SAMPLE`] seconds so that time arithmetic cannot overflow
    /// whatever the distribution's tail.
    #[inline]
    pub fn sample_time<R: Rng + ?Sized>(&self, rng: &mut R) -> SimTime {
        SimTime::from_secs_f64(self.sample(rng).min(LONGEST_SAMPLE))
    }

    /// The mean \[s\].
    pub fn mean(&self) -> f64 {
        match &self.0 {
            Kind::Exponential { mean }
            | Kind::Erlang { mean, .. }
            | Kind::LogNormal { mean, .. } => *mean,
            Kind::Deterministic { value } => *value,
            Kind::Uniform { low, high, .. } => 0.5 * (low + high),
            Kind::HyperExponential {
                p1,
                p2,
                mean1,
                mean2,
            } => p1 * mean1 + p2 * mean2,
            Kind::Empirical {
                values,
                probabilities,
                ..
            } => values.iter().zip(probabilities).map(|(v, p)| v * p).sum(),
        }
    }

    /// The second moment E\[X²\] \[s²\].
    pub fn second_moment(&self) -> f64 {
        match &self.0 {
            Kind::Exponential { mean } => 2.0 * mean * mean,
            Kind::Deterministic { value } => value * value,
            Kind::Uniform { low, high, .. } => (low * low + low * high + high * high) / 3.0,
            Kind::Erlang { k, mean, .. } => mean * mean * (1.0 + 1.0 / f64::from(*k)),
            Kind::HyperExponential {
                p1,
                p2,
                mean1,
                mean2,
            } => 2.0 * (p1 * mean1 * mean1 + p2 * mean2 * mean2),
            Kind::LogNormal { mean, scv, .. } => mean * mean * (1.0 + scv),
            Kind::Empirical {
                values,
                probabilities,
                ..
            } => values
                .iter()
                .zip(probabilities)
                .map(|(v, p)| v * v * p)
                .sum(),
        }
    }

    /// The probability that a sample exceeds `x` \[s\]: used to refuse
    /// distributions whose samples [`sample_time`](Self::sample_time) would
    /// cut at [`LONGEST_SAMPLE`].
    pub fn exceed_probability(&self, x: f64) -> f64 {
        match &self.0 {
            Kind::Exponential { mean } => (-x / mean).exp(),
            Kind::Deterministic { value } => f64::from(u8::from(*value > x)),
            Kind::Uniform { low, high, .. } => ((high - x) / (high - low)).clamp(0.0, 1.0),
            Kind::Erlang { k, mean, .. } => gamma_sf(f64::from(*k), f64::from(*k) / mean, x),
            Kind::HyperExponential {
                p1,
                p2,
                mean1,
                mean2,
            } => p1 * (-x / mean1).exp() + p2 * (-x / mean2).exp(),
            Kind::LogNormal { mean, scv, .. } => {
                let (mu, sigma2) = log_parameters(*mean, *scv);
                0.5 * statrs::function::erf::erfc((x.ln() - mu) / (2.0 * sigma2).sqrt())
            }
            Kind::Empirical {
                values,
                probabilities,
                ..
            } => values
                .iter()
                .zip(probabilities)
                .filter(|&(&v, _)| v > x)
                .map(|(_, p)| p)
                .sum(),
        }
    }

    /// The share of the second moment E\[X²\] that comes from samples
    /// beyond `x` \[s\]. Where it is not negligible at [`LONGEST_SAMPLE`],
    /// cutting samples there would make the run draw from a distribution
    /// with another variance, even if such samples are rare.
    pub fn tail_share(&self, x: f64) -> f64 {
        let exp_part = |m: f64| (-x / m).exp() * (x * x + 2.0 * x * m + 2.0 * m * m);
        let second = self.second_moment();
        if second <= 0.0 {
            return 0.0;
        }
        match &self.0 {
            Kind::Exponential { mean } => exp_part(*mean) / second,
            Kind::Deterministic { value } => f64::from(u8::from(*value > x)),
            Kind::Uniform { low, high, .. } => {
                let c = x.clamp(*low, *high);
                (high.powi(3) - c.powi(3)) / (3.0 * (high - low)) / second
            }
            // x² times the Erlang-k density is k(k+1)/rate² times the
            // Gamma(k + 2, rate) density.
            Kind::Erlang { k, mean, .. } => gamma_sf(f64::from(*k) + 2.0, f64::from(*k) / mean, x),
            Kind::HyperExponential {
                p1,
                p2,
                mean1,
                mean2,
            } => (p1 * exp_part(*mean1) + p2 * exp_part(*mean2)) / second,
            // x² times the lognormal density is E[X²] times the density of
            // a lognormal whose log has mean mu + 2 sigma².
            Kind::LogNormal { mean, scv, .. } => {
                let (mu, sigma2) = log_parameters(*mean, *scv);
                0.5 * statrs::function::erf::erfc(
                    (x.ln() - mu - 2.0 * sigma2) / (2.0 * sigma2).sqrt(),
                )
            }
            Kind::Empirical {
                values,
                probabilities,
                ..
            } => {
                values
                    .iter()
                    .zip(probabilities)
                    .filter(|&(&v, _)| v > x)
                    .map(|(v, p)| p * v * v)
                    .sum::<f64>()
                    / second
            }
        }
    }

    /// The variance \[s²\].
    pub fn variance(&self) -> f64 {
        let m = self.mean();
        (self.second_moment() - m * m).max(0.0)
    }

    /// The squared coefficient of variation, variance / mean² (0 when the
    /// mean is 0).
    pub fn scv(&self) -> f64 {
        let m = self.mean();
        if m > 0.0 {
            self.variance() / (m * m)
        } else {
            0.0
        }
    }
}

/// The mean and variance of the logarithm of a lognormal variable with the
/// given mean and squared coefficient of variation.
fn log_parameters(mean: f64, scv: f64) -> (f64, f64) {
    let sigma2 = (1.0 + scv).ln();
    (mean.ln() - 0.5 * sigma2, sigma2)
}

/// P(X > x) for X ~ Gamma(shape, rate).
fn gamma_sf(shape: f64, rate: f64, x: f64) -> f64 {
    statrs::distribution::Gamma::new(shape, rate)
        .expect("shape and rate were checked positive")
        .sf(x)
}

impl fmt::Display for Dist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = Figure;
        match &self.0 {
            Kind::Exponential { mean } => write!(f, "exp(mean {} s)", p(*mean)),
            Kind::Deterministic { value } => write!(f, "det({} s)", p(*value)),
            Kind::Uniform { low, high, .. } => write!(f, "uniform({} s, {} s)", p(*low), p(*high)),
            Kind::Erlang { k, mean, .. } => write!(f, "erlang(k {k}, mean {} s)", p(*mean)),
            Kind::HyperExponential { .. } => {
                write!(
                    f,
                    "hyperexp(mean {} s, scv {})",
                    p(self.mean()),
                    p(self.scv())
                )
            }
            Kind::LogNormal { mean, scv, .. } => {
                write!(f, "lognormal(mean {} s, scv {})", p(*mean), p(*scv))
            }
            Kind::Empirical { values, .. } => write!(f, "empirical({} values)", values.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::Streams;
    use crate::stats::Tally;

    fn all() -> Vec<Dist> {
        vec![
            Dist::exponential(2.0).unwrap(),
            Dist::deterministic(1.5).unwrap(),
            Dist::uniform(1.0, 3.0).unwrap(),
            Dist::erlang(4, 2.0).unwrap(),
            Dist::hyperexponential(2.0, 4.0).unwrap(),
            Dist::lognormal(2.0, 0.5).unwrap(),
            Dist::empirical(vec![1.0, 2.0, 5.0], vec![2.0, 1.0, 1.0]).unwrap(),
        ]
    }

    #[test]
    fn moments_match_their_definitions() {
        let [e, d, u, k, h, l, t] = all().try_into().unwrap();
        assert_eq!((e.mean(), e.scv()), (2.0, 1.0));
        assert_eq!((d.mean(), d.scv()), (1.5, 0.0));
        assert!((u.variance() - 4.0 / 12.0).abs() < 1e-12);
        assert!((k.scv() - 0.25).abs() < 1e-12);
        assert!((h.mean() - 2.0).abs() < 1e-12 && (h.scv() - 4.0).abs() < 1e-12);
        assert!((l.scv() - 0.5).abs() < 1e-12);
        assert!((t.mean() - 2.25).abs() < 1e-12);
    }

    #[test]
    fn sample_moments_agree_with_exact_moments() {
        // 200,000 samples: the sample mean is within 4 standard errors of the
        // exact mean, and the sample SCV within 10% of the exact one.
        let streams = Streams::new(7, 0);
        for (i, dist) in all().iter().enumerate() {
            let mut rng = streams.stream(&format!("dist/{i}"));
            let mut tally = Tally::new();
            for _ in 0..200_000 {
                tally.add(dist.sample(&mut rng));
            }
            let se = (dist.variance() / 200_000.0).sqrt();
            assert!(
                (tally.mean() - dist.mean()).abs() <= 4.0 * se + 1e-12,
                "{dist}: sample mean {} vs {}",
                tally.mean(),
                dist.mean()
            );
            let sample_scv = tally.variance() / (tally.mean() * tally.mean());
            assert!(
                (sample_scv - dist.scv()).abs() <= 0.1 * dist.scv() + 1e-12,
                "{dist}: sample scv {sample_scv} vs {}",
                dist.scv()
            );
        }
    }

    #[test]
    fn parameters_print_as_a_person_would_write_them() {
        let names: Vec<String> = all().iter().map(Dist::to_string).collect();
        assert_eq!(
            names,
            [
                "exp(mean 2 s)",
                "det(1.5 s)",
                "uniform(1 s, 3 s)",
                "erlang(k 4, mean 2 s)",
                "hyperexp(mean 2 s, scv 4)",
                "lognormal(mean 2 s, scv 0.5)",
                "empirical(3 values)"
            ]
        );
        let wild = Dist::lognormal(2.5e-7, 1e300).unwrap();
        assert_eq!(wild.to_string(), "lognormal(mean 2.5e-7 s, scv 1e300)");
        assert_eq!(Figure(1.234_567_89e12).to_string(), "1.23457e12");
        assert_eq!(Figure(-0.0).to_string(), "-0");
    }

    #[test]
    fn value_stability() {
        // Golden samples: if these change, seeded results change.
        let streams = Streams::new(1, 0);
        let got: Vec<String> = all()
            .iter()
            .map(|d| format!("{:.9}", d.sample(&mut streams.stream("golden"))))
            .collect();
        assert_eq!(
            got,
            [
                "0.944603629",
                "1.500000000",
                "1.867492274",
                "1.686453284",
                "0.344662489",
                "1.476976103",
                "2.000000000"
            ]
        );
    }

    #[test]
    fn tail_probabilities_match_their_formulas() {
        let [e, d, u, k, h, l, t] = all().try_into().unwrap();
        assert!((e.exceed_probability(2.0) - (-1.0f64).exp()).abs() < 1e-15);
        assert_eq!(
            (d.exceed_probability(1.0), d.exceed_probability(1.5)),
            (1.0, 0.0)
        );
        assert!((u.exceed_probability(2.5) - 0.25).abs() < 1e-15);
        // Erlang-4 with mean 2 (rate 2 per phase): P(X > 2) = e^-4 (1 + 4 + 8 + 32/3).
        let erlang = (-4.0f64).exp() * (1.0 + 4.0 + 8.0 + 32.0 / 3.0);
        assert!((k.exceed_probability(2.0) - erlang).abs() < 1e-12);
        assert!((h.exceed_probability(0.0) - 1.0).abs() < 1e-15);
        // The lognormal's median is mean / sqrt(1 + scv).
        assert!((l.exceed_probability(2.0 / 1.5f64.sqrt()) - 0.5).abs() < 1e-12);
        assert!((t.exceed_probability(1.5) - 0.5).abs() < 1e-15);
        assert!(Dist::hyperexponential(1.0, 1e308).is_err());
        // SCV 1e20 or 1e300: samples beyond the bound are rare but carry
        // nearly all of the second moment.
        for scv in [1e20, 1e300] {
            let wild = Dist::hyperexponential(1.0, scv).unwrap();
            assert!(wild.exceed_probability(LONGEST_SAMPLE) < 1e-12);
            assert!(wild.tail_share(LONGEST_SAMPLE) > 0.5, "{scv}");
            assert!((wild.mean() - 1.0).abs() < 1e-12);
        }
        for dist in all() {
            assert!(dist.tail_share(LONGEST_SAMPLE) < 1e-12, "{dist}");
            assert!((dist.tail_share(0.0) - 1.0).abs() < 1e-9, "{dist}");
        }
    }

    #[test]
    fn samples_in_ticks_are_cut_at_the_longest_sample() {
        let mut rng = Streams::new(1, 0).stream("tail");
        let huge = Dist::deterministic(1e15).unwrap();
        assert_eq!(
            huge.sample_time(&mut rng),
            SimTime::from_secs_f64(LONGEST_SAMPLE)
        );
    }

    #[test]
    fn bad_parameters_are_refused() {
        assert!(Dist::exponential(0.0).is_err());
        assert!(Dist::exponential(f64::NAN).is_err());
        assert!(Dist::deterministic(-1.0).is_err());
        assert!(Dist::uniform(3.0, 1.0).is_err());
        assert!(Dist::erlang(0, 1.0).is_err());
        assert!(Dist::hyperexponential(1.0, 0.5).is_err());
        assert!(Dist::empirical(vec![1.0], vec![]).is_err());
        assert_eq!(
            Dist::empirical(vec![1.0, 2.0], vec![0.0, 0.0]).unwrap_err(),
            DistError::TableWeights
        );
        for (weights, error) in [
            (vec![1e308, 1e308], DistError::TableWeightsOverflow),
            (vec![1e308, 1.0], DistError::TableWeightsOverflow),
            (
                vec![f64::INFINITY, 1.0],
                DistError::TableWeight(f64::INFINITY),
            ),
            (vec![-1.0, 1.0], DistError::TableWeight(-1.0)),
        ] {
            assert_eq!(
                Dist::empirical(vec![1.0, 2.0], weights.clone()).unwrap_err(),
                error,
                "{weights:?}"
            );
        }
        assert_eq!(
            DistError::NotPositive {
                what: "mean",
                value: 1e300
            }
            .to_string(),
            "mean must be a finite number > 0, got 1e300"
        );
        assert_eq!(
            Dist::exponential(-2.0).unwrap_err().to_string(),
            "mean must be a finite number > 0, got -2"
        );
    }
}
