//! Calibration by search: which of the values tried for a model's keys
//! bring its probe's 75th percentiles closest to a measurement's.
//!
//! Each point of the search (one value for each key) is run for the same
//! replications, on common random numbers. A replication's loss at a
//! point is the mean, over the benchmarks and load levels both sides
//! observed, of the squared log ratio of the model's 75th percentile to
//! the measured one: a model 10% slow and one 10% fast weigh the same,
//! whatever the benchmark's size. The search is exhaustive over the points
//! given: a simulated percentile moves in steps as a key changes, which
//! misleads a search that follows slopes, and a grid shows the loss's
//! whole shape for the refusals below.
//!
//! What the fit reports:
//! - the point of least mean loss;
//! - each replication's own best point, so that a key's fitted value has
//!   an interval over the replications (a Student-t interval where the
//!   values are numbers of one unit);
//! - the points the data cannot tell from the best: those whose loss,
//!   paired replication by replication with the best's, is not
//!   significantly higher at 95% (a failure to reject, one test a point,
//!   not corrected for their number).
//!
//! A fit is refused, with its reason, when the data cannot tell a key's
//! values apart (every value of it is among the points as good as the
//! best) or when a key's best value is the first or the last of the values
//! given (the best may lie beyond them; with two values it always is).

use crate::analysis::LevelRow;
use crate::report::{csv_record, new_table, significant};
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};
use std::collections::BTreeMap;

/// The loss of a model's figures against the measured ones: the mean
/// squared log ratio of their 75th percentiles over the benchmarks and
/// levels both have, and how many those are; `None` if they have none in
/// common.
pub fn loss(measured: &[LevelRow], model: &[LevelRow]) -> Option<(f64, usize)> {
    let measured: BTreeMap<(&str, u64), f64> = measured
        .iter()
        .map(|r| ((r.benchmark.as_str(), r.level.to_bits()), r.p75))
        .collect();
    let ratios: Vec<f64> = model
        .iter()
        .filter_map(|r| {
            let m = measured.get(&(r.benchmark.as_str(), r.level.to_bits()))?;
            (*m > 0.0 && r.p75 > 0.0).then(|| (r.p75 / m).ln())
        })
        .collect();
    if ratios.is_empty() {
        return None;
    }
    let n = ratios.len();
    Some((ratios.iter().map(|x| x * x).sum::<f64>() / n as f64, n))
}

/// A search's results: the keys, the points tried and each replication's
/// loss at each.
#[derive(Clone, Debug, Serialize)]
pub struct Fit {
    /// The keys fitted.
    pub keys: Vec<String>,
    /// Each point: one value per key, as given.
    pub points: Vec<Vec<String>>,
    /// Each point's loss in each replication.
    pub losses: Vec<Vec<f64>>,
    /// The point of least mean loss.
    pub best: usize,
    /// Each replication's point of least loss.
    pub per_replication: Vec<usize>,
    /// Each point: whether the data cannot tell it from the best.
    pub as_good: Vec<bool>,
}

/// A key's fitted value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// The key.
    pub key: String,
    /// Its value at the point of least mean loss.
    pub best: String,
    /// Its value at each replication's best point.
    pub per_replication: Vec<String>,
    /// The mean of those and the half-width of its 95% interval, with
    /// their unit, where they are numbers of one unit.
    pub interval: Option<(f64, f64, String)>,
    /// The values the data cannot tell from the best, in the order tried.
    pub as_good: Vec<String>,
}

impl Fit {
    /// The fit of the losses `losses[point][replication]` at `points` of
    /// `keys`.
    ///
    /// # Panics
    /// With no point, or points of unequal replications.
    pub fn new(keys: Vec<String>, points: Vec<Vec<String>>, losses: Vec<Vec<f64>>) -> Fit {
        assert!(!losses.is_empty() && losses.len() == points.len());
        let replications = losses[0].len();
        assert!(losses.iter().all(|l| l.len() == replications));
        let mean = |l: &[f64]| l.iter().sum::<f64>() / l.len() as f64;
        let least = |key: &dyn Fn(usize) -> f64| {
            (0..losses.len())
                .min_by(|&a, &b| key(a).total_cmp(&key(b)))
                .expect("a point")
        };
        let best = least(&|p| mean(&losses[p]));
        let per_replication = (0..replications)
            .map(|r| least(&|p| losses[p][r]))
            .collect();
        let as_good = losses
            .iter()
            .map(|l| {
                let worse: Vec<f64> = l.iter().zip(&losses[best]).map(|(a, b)| a - b).collect();
                !significantly_above_zero(&worse)
            })
            .collect();
        Fit {
            keys,
            points,
            losses,
            best,
            per_replication,
            as_good,
        }
    }

    /// Each key's fitted value.
    pub fn estimates(&self) -> Vec<Estimate> {
        (0..self.keys.len())
            .map(|k| {
                let value = |p: usize| self.points[p][k].clone();
                let per_replication: Vec<String> =
                    self.per_replication.iter().map(|&p| value(p)).collect();
                let mut as_good: Vec<String> = Vec::new();
                for p in (0..self.points.len()).filter(|&p| self.as_good[p]) {
                    if !as_good.contains(&value(p)) {
                        as_good.push(value(p));
                    }
                }
                Estimate {
                    key: self.keys[k].clone(),
                    best: value(self.best),
                    interval: interval(&per_replication),
                    per_replication,
                    as_good,
                }
            })
            .collect()
    }

    /// Why the fit cannot be trusted, if it cannot: for each key whose
    /// values the data cannot tell apart, or whose best value is at an end
    /// of the values tried, the reason.
    pub fn refusals(&self) -> Vec<String> {
        let mut reasons = Vec::new();
        for (k, estimate) in self.estimates().iter().enumerate() {
            let mut tried: Vec<&str> = Vec::new();
            for point in &self.points {
                if !tried.contains(&point[k].as_str()) {
                    tried.push(&point[k]);
                }
            }
            let key = &estimate.key;
            if tried.len() > 1 && estimate.as_good.len() == tried.len() {
                reasons.push(format!(
                    "{key}: the data cannot tell its values apart: every value tried, {} to {}, fits as well as the best within the replications' spread (measure longer, or fit fewer keys)",
                    tried[0],
                    tried[tried.len() - 1]
                ));
            } else if tried.len() > 1
                && (estimate.best == tried[0] || estimate.best == tried[tried.len() - 1])
            {
                reasons.push(format!(
                    "{key}: the best value, {}, is the first or the last of the values given ({} to {}): the best may lie beyond them; give a wider range, in order",
                    estimate.best,
                    tried[0],
                    tried[tried.len() - 1]
                ));
            }
        }
        reasons
    }
}

/// One benchmark at one load level at the fitted point.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LevelFit {
    /// The benchmark.
    pub benchmark: String,
    /// The load level.
    pub level: f64,
    /// The measured 75th percentile \[s\].
    pub measured_p75: f64,
    /// The model's, over all its replications at the fitted point \[s\].
    pub model_p75: f64,
}

/// The measured and the model's 75th percentiles at each benchmark and
/// level both have.
pub fn level_fits(measured: &[LevelRow], model: &[LevelRow]) -> Vec<LevelFit> {
    measured
        .iter()
        .filter_map(|m| {
            let r = model
                .iter()
                .find(|r| r.benchmark == m.benchmark && r.level == m.level)?;
            Some(LevelFit {
                benchmark: m.benchmark.clone(),
                level: m.level,
                measured_p75: m.p75,
                model_p75: r.p75,
            })
        })
        .collect()
}

/// The fit as text for a terminal: each key's fitted value, then the
/// measured and fitted 75th percentiles by benchmark and level of `index`.
pub fn fit_table(fit: &Fit, levels: &[LevelFit], index: &str) -> String {
    let replications = fit.per_replication.len();
    let mut keys = new_table(&[
        "key",
        "best",
        "each replication's best",
        "mean ± 95%",
        "as good as the best",
    ]);
    for e in fit.estimates() {
        let interval = e
            .interval
            .as_ref()
            .map_or("-".to_string(), |(mean, half, unit)| {
                format!(
                    "{}{unit} ± {}{unit}",
                    significant(*mean),
                    significant(*half)
                )
            });
        keys.add_row(vec![
            e.key.clone(),
            e.best.clone(),
            e.per_replication.join(", "),
            interval,
            e.as_good.join(", "),
        ]);
    }
    let mut rows = new_table(&[
        "benchmark",
        index,
        "measured p75 [s]",
        "fitted p75 [s]",
        "fitted / measured",
    ]);
    for l in levels {
        rows.add_row(vec![
            l.benchmark.clone(),
            format!("{}", l.level),
            format!("{:.4}", l.measured_p75),
            format!("{:.4}", l.model_p75),
            format!("{:.3}", l.model_p75 / l.measured_p75),
        ]);
    }
    let refused = if fit.refusals().is_empty() {
        ""
    } else {
        "REFUSED (the reasons follow on standard error). "
    };
    format!(
        "{refused}Fitted by search over {} points × {replications} replications on common random numbers; \
         loss: the mean squared log ratio of the model's 75th percentile to the measured, over \
         the benchmarks and levels both have\n\n{keys}\n\nAt the best point:\n{rows}\n",
        fit.points.len()
    )
}

/// Every point's loss in every replication as CSV: a column per key, then
/// the replication and the loss.
pub fn losses_csv(fit: &Fit) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = fit.keys.clone();
    header.extend(["replication".to_string(), "loss".to_string()]);
    writer
        .write_record(csv_record(header))
        .expect("writing to memory cannot fail");
    for (point, losses) in fit.points.iter().zip(&fit.losses) {
        for (r, loss) in losses.iter().enumerate() {
            let mut record = point.clone();
            record.extend([r.to_string(), loss.to_string()]);
            writer
                .write_record(csv_record(record))
                .expect("writing to memory cannot fail");
        }
    }
    String::from_utf8(writer.into_inner().expect("flushing memory cannot fail"))
        .expect("CSV of UTF-8 fields is UTF-8")
}

/// The per-level figures at the fitted point as CSV.
pub fn levels_csv(levels: &[LevelFit]) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer
        .write_record(["benchmark", "level", "measured_p75", "model_p75"])
        .expect("writing to memory cannot fail");
    for l in levels {
        let record = [
            l.benchmark.clone(),
            l.level.to_string(),
            l.measured_p75.to_string(),
            l.model_p75.to_string(),
        ];
        writer
            .write_record(csv_record(record))
            .expect("writing to memory cannot fail");
    }
    String::from_utf8(writer.into_inner().expect("flushing memory cannot fail"))
        .expect("CSV of UTF-8 fields is UTF-8")
}

/// Whether the mean of the paired differences `d` is above zero at 95%
/// (one-sided); with fewer than two, or none differing, it is not.
fn significantly_above_zero(d: &[f64]) -> bool {
    let n = d.len() as f64;
    if d.len() < 2 {
        return false;
    }
    let mean = d.iter().sum::<f64>() / n;
    let variance = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    if variance == 0.0 {
        return mean > 0.0;
    }
    let t = StudentsT::new(0.0, 1.0, n - 1.0)
        .expect("degrees of freedom >= 1")
        .inverse_cdf(0.95);
    mean > t * (variance / n).sqrt()
}

/// The mean of `values` and its 95% half-width, with their unit, where
/// all are numbers of one unit (`8ms`, `0.5`) and there are two or more.
fn interval(values: &[String]) -> Option<(f64, f64, String)> {
    let parsed: Vec<(f64, &str)> = values.iter().map(|v| number(v)).collect::<Option<_>>()?;
    let unit = parsed.first()?.1;
    if values.len() < 2 || parsed.iter().any(|(_, u)| *u != unit) {
        return None;
    }
    let n = parsed.len() as f64;
    let mean = parsed.iter().map(|(x, _)| x).sum::<f64>() / n;
    let variance = parsed.iter().map(|(x, _)| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let t = StudentsT::new(0.0, 1.0, n - 1.0)
        .expect("degrees of freedom >= 1")
        .inverse_cdf(0.975);
    Some((mean, t * (variance / n).sqrt(), unit.to_string()))
}

/// A value as a number and the unit after it: `8ms` is 8 and `ms`.
fn number(value: &str) -> Option<(f64, &str)> {
    let split = value
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e')))
        .unwrap_or(value.len());
    let (digits, unit) = value.split_at(split);
    let x: f64 = digits.parse().ok().filter(|x: &f64| x.is_finite())?;
    Some((x, unit.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(benchmark: &str, level: f64, p75: f64) -> LevelRow {
        LevelRow {
            benchmark: benchmark.into(),
            level,
            count: 10,
            median: p75,
            mean: p75,
            p75,
            p75_interval: None,
            p90: p75,
            needed: None,
        }
    }

    #[test]
    fn the_loss_is_the_mean_squared_log_ratio_over_what_both_have() {
        let measured = [row("a", 0.0, 1.0), row("a", 1.0, 2.0), row("b", 0.0, 4.0)];
        let model = [
            row("a", 0.0, 1.1),
            row("a", 1.0, 2.0 / 1.1),
            row("c", 0.0, 9.0),
        ];
        let (loss, n) = loss(&measured, &model).unwrap();
        assert_eq!(n, 2);
        assert!((loss - 1.1f64.ln().powi(2)).abs() < 1e-12);
        assert_eq!(super::loss(&measured, &[row("c", 0.0, 1.0)]), None);
    }

    /// A fit of one key over `values`, its losses a bowl about `centre`
    /// (in the values' order) plus each replication's `noise`.
    fn bowl(values: &[&str], centre: f64, depth: f64, noise: &[f64]) -> Fit {
        let points = values.iter().map(|v| vec![v.to_string()]).collect();
        let losses = (0..values.len())
            .map(|p| {
                let d = p as f64 - centre;
                noise.iter().map(|e| depth * d * d + e).collect()
            })
            .collect();
        Fit::new(vec!["system.quantum".into()], points, losses)
    }

    const QUANTA: [&str; 5] = ["1ms", "2ms", "4ms", "8ms", "16ms"];

    #[test]
    fn a_clear_minimum_is_fitted_with_its_interval() {
        let noise = [0.0, 0.01, -0.01, 0.02, 0.0];
        let fit = bowl(&QUANTA, 2.0, 1.0, &noise);
        let estimate = &fit.estimates()[0];
        assert_eq!(estimate.best, "4ms");
        assert_eq!(estimate.per_replication, ["4ms"; 5]);
        assert_eq!(estimate.interval, Some((4.0, 0.0, "ms".into())));
        assert_eq!(estimate.as_good, ["4ms"]);
        assert!(fit.refusals().is_empty());
    }

    #[test]
    fn a_flat_loss_or_a_best_at_an_end_is_refused() {
        // Losses that scatter from replication to replication more than
        // they differ from point to point: every value fits as well.
        let flat = Fit::new(
            vec!["system.quantum".into()],
            QUANTA.iter().map(|v| vec![v.to_string()]).collect(),
            (0..5)
                .map(|p| {
                    (0..5)
                        .map(|r| ((7 * p + 13 * r) % 10) as f64 / 10.0)
                        .collect()
                })
                .collect(),
        );
        assert_eq!(flat.estimates()[0].best, "8ms");
        let reasons = flat.refusals();
        assert_eq!(reasons.len(), 1, "{reasons:?}");
        assert!(
            reasons[0].contains("cannot tell its values apart"),
            "{reasons:?}"
        );
        // A clear minimum at the last value tried.
        let edge = bowl(&QUANTA, 4.0, 1.0, &[0.0, 0.01, 0.02]);
        let reasons = edge.refusals();
        assert!(
            reasons[0].contains("the first or the last of the values given"),
            "{reasons:?}"
        );
    }

    #[test]
    fn intervals_are_shown_to_three_significant_digits() {
        let shown: Vec<String> = [5.6, 4.080_52, 0.012_345, 1_234.4, 0.0]
            .map(significant)
            .into();
        assert_eq!(shown, ["5.6", "4.08", "0.0123", "1234", "0"]);
    }

    #[test]
    fn values_are_read_as_numbers_with_their_unit() {
        assert_eq!(number("8ms"), Some((8.0, "ms")));
        assert_eq!(number("0.5"), Some((0.5, "")));
        assert_eq!(number("fair"), None);
        assert_eq!(interval(&["1ms".into(), "2s".into()]), None);
        let (mean, half, unit) = interval(&["2ms".into(), "4ms".into(), "6ms".into()]).unwrap();
        assert_eq!((mean, unit.as_str()), (4.0, "ms"));
        // t(0.975, 2) = 4.303, s = 2, n = 3.
        assert!(
            (half - 4.302_652_7 * 2.0 / 3f64.sqrt()).abs() < 1e-6,
            "{half}"
        );
    }
}
