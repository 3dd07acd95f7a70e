//! Two installations' probes side by side: per benchmark and load level the
//! 75th percentile of elapsed time at each, their difference, and whether
//! it is significant.
//!
//! Both are grouped alike: the same levels, and with clustering a group
//! closes only when each installation has the minimum. The test of the
//! difference depends on the data:
//!
//! - **Replications** (two or more independent runs of each): at each
//!   level, the difference of the two 75th percentiles in every
//!   replication that has observations at both, and a Student t interval
//!   for its mean over those replications. Runs of the two installations
//!   with the same seed see the same users (common random numbers), so the
//!   differences are paired.
//! - **One run of each**: a percentile bootstrap of the difference,
//!   resampling each installation's observations at the level with
//!   replacement; this takes the observations as independent.
//!
//! A level's difference is *significant* when its interval leaves out 0.
//! The pooled figures (all replications together) are shown beside it.

use crate::analysis::{
    Options, Sample, benchmarks, by_level, groups, quantile, quantile_interval, tail,
};
use rand::{RngExt, SeedableRng};
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};
use std::collections::BTreeMap;

/// How a difference was tested.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// A Student t interval over paired replications.
    Replications,
    /// A percentile bootstrap over the observations.
    Bootstrap,
}

/// One benchmark at one load level, at both installations.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ComparisonRow {
    /// The benchmark.
    pub benchmark: String,
    /// The load level.
    pub level: f64,
    /// Observations at the first installation, all replications.
    pub a_count: usize,
    /// Its 75th percentile \[s\], all replications pooled.
    pub a_p75: Option<f64>,
    /// That percentile's distribution-free interval, where there is one.
    pub a_p75_interval: Option<(f64, f64)>,
    /// Observations at the second installation.
    pub b_count: usize,
    /// Its 75th percentile \[s\].
    pub b_p75: Option<f64>,
    /// That percentile's distribution-free interval, where there is one.
    pub b_p75_interval: Option<(f64, f64)>,
    /// The difference, first less second \[s\]: of the pooled percentiles
    /// for the bootstrap, the mean of the replications' for replications.
    pub difference: Option<f64>,
    /// The interval of the difference, where there are data enough.
    pub interval: Option<(f64, f64)>,
    /// Whether the interval leaves out 0.
    pub significant: bool,
}

/// The smallest number of observations at a level, at each installation,
/// for a bootstrap.
pub const BOOTSTRAP_MIN: usize = 5;

/// Bootstrap resamples per level.
pub const RESAMPLES: usize = 2000;

/// Compares installations `a` and `b`, each given as its replications'
/// observations (the same number for both).
pub fn compare(
    a: &[Vec<Sample>],
    b: &[Vec<Sample>],
    options: &Options,
) -> (Method, Vec<ComparisonRow>) {
    assert_eq!(a.len(), b.len(), "as many replications of each");
    let method = if a.len() >= 2 {
        Method::Replications
    } else {
        Method::Bootstrap
    };
    let pooled = |runs: &[Vec<Sample>]| -> Vec<Sample> { runs.iter().flatten().cloned().collect() };
    let (all_a, all_b) = (pooled(a), pooled(b));
    let mut names = benchmarks(&all_a);
    for name in benchmarks(&all_b) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let mut rows = Vec::new();
    for benchmark in names {
        let levels = |samples: &[Sample]| by_level(samples, benchmark, options);
        let (la, lb) = (levels(&all_a), levels(&all_b));
        let runs_a: Vec<_> = a.iter().map(|r| levels(r)).collect();
        let runs_b: Vec<_> = b.iter().map(|r| levels(r)).collect();
        let keys: Vec<u32> = la
            .keys()
            .chain(lb.keys())
            .copied()
            .collect::<std::collections::BTreeSet<u32>>()
            .into_iter()
            .collect();
        let count = |l: &BTreeMap<u32, Vec<f64>>, members: &[u32]| -> usize {
            members.iter().map(|m| l.get(m).map_or(0, Vec::len)).sum()
        };
        let grouped = groups(&keys, options.grouping, |m| {
            count(&la, m).min(count(&lb, m))
        });
        for (level, members) in grouped {
            let times = |l: &BTreeMap<u32, Vec<f64>>| -> Vec<f64> {
                let mut t: Vec<f64> = members
                    .iter()
                    .filter_map(|m| l.get(m))
                    .flatten()
                    .copied()
                    .collect();
                t.sort_by(f64::total_cmp);
                t
            };
            let (ta, tb) = (times(&la), times(&lb));
            let p75 = |t: &[f64]| (!t.is_empty()).then(|| quantile(t, 0.75));
            let (a_p75, b_p75) = (p75(&ta), p75(&tb));
            let (difference, interval) = match method {
                Method::Replications => {
                    let diffs: Vec<f64> = runs_a
                        .iter()
                        .zip(&runs_b)
                        .filter_map(|(ra, rb)| Some(p75(&times(ra))? - p75(&times(rb))?))
                        .collect();
                    t_interval(&diffs, options.level)
                }
                Method::Bootstrap => {
                    // Each row its own fixed stream: the same every time.
                    let seed = rows.len() as u64;
                    (
                        a_p75.zip(b_p75).map(|(x, y)| x - y),
                        bootstrap(&ta, &tb, options.level, seed),
                    )
                }
            };
            rows.push(ComparisonRow {
                benchmark: benchmark.to_string(),
                level,
                a_count: ta.len(),
                a_p75,
                a_p75_interval: quantile_interval(&ta, 0.75, options.level),
                b_count: tb.len(),
                b_p75,
                b_p75_interval: quantile_interval(&tb, 0.75, options.level),
                difference,
                interval,
                significant: interval.is_some_and(|(low, high)| low > 0.0 || high < 0.0),
            });
        }
    }
    (method, rows)
}

/// The mean of `x` and its Student t interval at `level`, given two or
/// more values.
fn t_interval(x: &[f64], level: f64) -> (Option<f64>, Option<(f64, f64)>) {
    let n = x.len();
    if n == 0 {
        return (None, None);
    }
    let mean = x.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return (Some(mean), None);
    }
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let t = StudentsT::new(0.0, 1.0, (n - 1) as f64)
        .expect("at least one degree of freedom")
        .inverse_cdf(0.5 + level / 2.0);
    let half = t * (var / n as f64).sqrt();
    (Some(mean), Some((mean - half, mean + half)))
}

/// The percentile bootstrap interval at `level` of p75(a) − p75(b), both
/// sorted; `None` with fewer than [`BOOTSTRAP_MIN`] observations at
/// either. The resamples come from a generator seeded with `seed`, so the
/// result is the same every time.
fn bootstrap(a: &[f64], b: &[f64], level: f64, seed: u64) -> Option<(f64, f64)> {
    if a.len() < BOOTSTRAP_MIN || b.len() < BOOTSTRAP_MIN {
        return None;
    }
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let resample = |x: &[f64], rng: &mut rand_xoshiro::Xoshiro256PlusPlus| {
        let mut r: Vec<f64> = (0..x.len())
            .map(|_| x[rng.random_range(0..x.len())])
            .collect();
        r.sort_by(f64::total_cmp);
        quantile(&r, 0.75)
    };
    let mut diffs: Vec<f64> = (0..RESAMPLES)
        .map(|_| resample(a, &mut rng) - resample(b, &mut rng))
        .collect();
    diffs.sort_by(f64::total_cmp);
    let tail = tail(level);
    Some((quantile(&diffs, tail), quantile(&diffs, 1.0 - tail)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Grouping;

    fn runs(level_times: &[&[(u32, f64)]]) -> Vec<Vec<Sample>> {
        level_times
            .iter()
            .map(|run| {
                run.iter()
                    .map(|&(level, elapsed)| Sample {
                        benchmark: "man".into(),
                        measured: true,
                        level,
                        elapsed,
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn replications_give_a_t_interval_of_the_paired_differences() {
        // Two replications; at level 1 the p75s at A are 3.25 and 7.25
        // (of [1, 4] and [5, 8]), at B 1.75 and 4.75 (of [1, 2] and
        // [4, 5]). Differences 1.5 and 2.5: mean 2, s = 0.7071, t(1) at
        // 95% = 12.706: 2 ± 6.353.
        let a = runs(&[&[(1, 1.0), (1, 4.0)], &[(1, 5.0), (1, 8.0)]]);
        let b = runs(&[&[(1, 1.0), (1, 2.0)], &[(1, 4.0), (1, 5.0)]]);
        let (method, rows) = compare(&a, &b, &Options::default());
        assert_eq!(method, Method::Replications);
        let r = &rows[0];
        assert_eq!((r.a_count, r.b_count), (4, 4));
        assert!((r.difference.unwrap() - 2.0).abs() < 1e-12);
        let (low, high) = r.interval.unwrap();
        assert!((low - (2.0 - 6.353)).abs() < 1e-3 && (high - (2.0 + 6.353)).abs() < 1e-3);
        assert!(!r.significant);
    }

    #[test]
    fn one_run_each_is_bootstrapped_and_a_clear_gap_is_significant() {
        let a: Vec<(u32, f64)> = (0..40).map(|i| (3, 20.0 + f64::from(i % 5))).collect();
        let b: Vec<(u32, f64)> = (0..40).map(|i| (3, 10.0 + f64::from(i % 5))).collect();
        let few: Vec<(u32, f64)> = (0..3).map(|i| (4, f64::from(i))).collect();
        let a = runs(&[&[a, few.clone()].concat()]);
        let b = runs(&[&[b, few].concat()]);
        let (method, rows) = compare(&a, &b, &Options::default());
        assert_eq!(method, Method::Bootstrap);
        assert!((rows[0].difference.unwrap() - 10.0).abs() < 1e-12);
        assert!(rows[0].significant, "{:?}", rows[0]);
        let (low, high) = rows[0].interval.unwrap();
        assert!(
            low <= 10.0 && high >= 10.0 && high - low < 3.0,
            "{low} {high}"
        );
        // Three observations are too few for a bootstrap.
        assert_eq!((rows[1].interval, rows[1].significant), (None, false));
        // The same input gives the same interval.
        assert_eq!(compare(&a, &b, &Options::default()).1, rows);
    }

    #[test]
    fn three_replications_and_the_sign_of_a_significant_difference() {
        // At A 3, 5 and 10, at B 1, 2 and 3 in the three replications
        // (one observation each): differences 2, 3 and 7, mean 4,
        // s = 2.6458, t(2) at 95% = 4.3027: 4 ± 6.5726.
        let a = runs(&[&[(1, 3.0)], &[(1, 5.0)], &[(1, 10.0)]]);
        let b = runs(&[&[(1, 1.0)], &[(1, 2.0)], &[(1, 3.0)]]);
        let r = &compare(&a, &b, &Options::default()).1[0];
        let (low, high) = r.interval.unwrap();
        assert!((r.difference.unwrap() - 4.0).abs() < 1e-12);
        assert!((high - low - 2.0 * 6.5726).abs() < 1e-3, "{low} {high}");
        // A clear gap the other way is significant too.
        let gap = |base: f64| -> Vec<(u32, f64)> {
            (0..40).map(|i| (3, base + f64::from(i % 5))).collect()
        };
        let rows = compare(
            &runs(&[&gap(10.0)]),
            &runs(&[&gap(20.0)]),
            &Options::default(),
        )
        .1;
        assert!(
            rows[0].difference.unwrap() < 0.0 && rows[0].significant,
            "{:?}",
            rows[0]
        );
        // The same constant at both: an interval of exactly 0, not
        // significant.
        let flat: Vec<(u32, f64)> = (0..20).map(|_| (3, 7.0)).collect();
        let same = compare(&runs(&[&flat]), &runs(&[&flat]), &Options::default()).1;
        assert_eq!(
            (same[0].interval, same[0].significant),
            (Some((0.0, 0.0)), false)
        );
    }

    #[test]
    fn a_bootstrap_needs_five_observations_at_each_installation() {
        let at = |n: u32| -> Vec<(u32, f64)> { (0..n).map(|i| (2, f64::from(i))).collect() };
        let interval = |na, nb| {
            compare(&runs(&[&at(na)]), &runs(&[&at(nb)]), &Options::default()).1[0].interval
        };
        assert!(interval(5, 5).is_some());
        assert_eq!(interval(4, 5), None);
        assert_eq!(interval(5, 4), None);
        assert_eq!(interval(40, 3), None);
    }

    #[test]
    fn both_installations_are_clustered_alike() {
        // A has 3 observations at each of levels 1 to 4, B 1 at each: with
        // a minimum of 2, groups close only when B has 2 too.
        let a: Vec<(u32, f64)> = (1..=4)
            .flat_map(|l| [(l, 1.0), (l, 2.0), (l, 3.0)])
            .collect();
        let b: Vec<(u32, f64)> = (1..=4).map(|l| (l, 1.0)).collect();
        let options = Options {
            grouping: Grouping::Cluster { min: 2 },
            ..Options::default()
        };
        let (_, rows) = compare(&runs(&[&a]), &runs(&[&b]), &options);
        let got: Vec<(f64, usize, usize)> = rows
            .iter()
            .map(|r| (r.level, r.a_count, r.b_count))
            .collect();
        assert_eq!(got, [(1.5, 6, 2), (3.5, 6, 2)]);
    }
}
