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
//!
//! Level by level, at 95% about one level in twenty is significant by
//! chance, and with a window or clusters neighbouring levels share their
//! observations, so a count of starred levels overstates the evidence.
//! With replications each benchmark's whole curve is tested at once too:
//! in each replication the mean, over the levels every replication of both
//! observed, of the difference of the two 75th percentiles; a Student t
//! interval and a two-sided p-value over the replications, which are
//! independent of each other (`CurveTest`).

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

/// One benchmark's whole curve, tested at once over paired replications.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CurveTest {
    /// The benchmark.
    pub benchmark: String,
    /// The levels averaged over: those every replication of both
    /// installations observed.
    pub levels: usize,
    /// The mean over the replications of each one's mean difference over
    /// those levels, first less second \[s\].
    pub difference: f64,
    /// Its Student t interval over the replications.
    pub interval: (f64, f64),
    /// The two-sided p-value of no difference.
    pub p_value: f64,
    /// The levels whose own difference is significant, of those with an
    /// interval.
    pub significant_levels: usize,
    /// The levels with an interval.
    pub tested_levels: usize,
    /// How many of those would be significant by chance with no
    /// difference at all: their number times 1 − the confidence level.
    pub expected_by_chance: f64,
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
) -> (Method, Vec<ComparisonRow>, Vec<CurveTest>) {
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
    let mut curves = Vec::new();
    for benchmark in names {
        // Per level, each replication's difference where it has one.
        let mut by_run: Vec<Vec<Option<f64>>> = Vec::new();
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
                    let per_run: Vec<Option<f64>> = runs_a
                        .iter()
                        .zip(&runs_b)
                        .map(|(ra, rb)| Some(p75(&times(ra))? - p75(&times(rb))?))
                        .collect();
                    let diffs: Vec<f64> = per_run.iter().flatten().copied().collect();
                    by_run.push(per_run);
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
        let own: Vec<&ComparisonRow> = rows.iter().filter(|r| r.benchmark == benchmark).collect();
        if let Some(curve) = curve_test(benchmark, &by_run, &own, options.level) {
            curves.push(curve);
        }
    }
    (method, rows, curves)
}

/// The whole-curve test of `benchmark` from each level's differences by
/// replication (`by_run`) and its rows: `None` without two replications
/// or a level every replication observed at both installations.
fn curve_test(
    benchmark: &str,
    by_run: &[Vec<Option<f64>>],
    rows: &[&ComparisonRow],
    level: f64,
) -> Option<CurveTest> {
    let complete: Vec<Vec<f64>> = by_run
        .iter()
        .filter_map(|runs| runs.iter().copied().collect::<Option<Vec<f64>>>())
        .collect();
    let replications = by_run.first().map_or(0, Vec::len);
    if complete.is_empty() || replications < 2 {
        return None;
    }
    let per_run: Vec<f64> = (0..replications)
        .map(|r| complete.iter().map(|l| l[r]).sum::<f64>() / complete.len() as f64)
        .collect();
    let (Some(difference), Some(interval)) = t_interval(&per_run, level) else {
        return None;
    };
    let tested = rows.iter().filter(|r| r.interval.is_some()).count();
    Some(CurveTest {
        benchmark: benchmark.to_string(),
        levels: complete.len(),
        difference,
        interval,
        p_value: p_value(&per_run),
        significant_levels: rows.iter().filter(|r| r.significant).count(),
        tested_levels: tested,
        expected_by_chance: tested as f64 * (1.0 - level),
    })
}

/// The two-sided p-value of a mean of 0 for `x` (two or more values) by
/// Student's t; values all alike give 1 at 0 and 0 elsewhere.
fn p_value(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    if var == 0.0 {
        return if mean == 0.0 { 1.0 } else { 0.0 };
    }
    let t = mean / (var / n).sqrt();
    let dist = StudentsT::new(0.0, 1.0, n - 1.0).expect("at least one degree of freedom");
    2.0 * (1.0 - dist.cdf(t.abs()))
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
        let (method, rows, _) = compare(&a, &b, &Options::default());
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
        let (method, rows, _) = compare(&a, &b, &Options::default());
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
        let (_, rows, _) = compare(&runs(&[&a]), &runs(&[&b]), &options);
        let got: Vec<(f64, usize, usize)> = rows
            .iter()
            .map(|r| (r.level, r.a_count, r.b_count))
            .collect();
        assert_eq!(got, [(1.5, 6, 2), (3.5, 6, 2)]);
    }

    /// `replications` runs of one benchmark at levels 1 to 3, 20
    /// observations a level, exponential with mean 1 s plus `shift`, from
    /// the generator seeded with `seed`.
    fn drawn(replications: usize, shift: f64, seed: u64) -> Vec<Vec<Sample>> {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        (0..replications)
            .map(|_| {
                (1..=3)
                    .flat_map(|level| (0..20).map(move |_| level))
                    .map(|level| Sample {
                        benchmark: "man".into(),
                        measured: true,
                        level,
                        elapsed: shift - rng.random::<f64>().ln(),
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn the_whole_curve_of_identical_installations_differs_by_nothing() {
        let a = drawn(5, 0.0, 1);
        let (_, rows, curves) = compare(&a, &a, &Options::default());
        let c = &curves[0];
        assert_eq!((c.levels, c.difference, c.interval), (3, 0.0, (0.0, 0.0)));
        assert_eq!(
            (c.p_value, c.significant_levels, c.tested_levels),
            (1.0, 0, 3)
        );
        assert!((c.expected_by_chance - 0.15).abs() < 1e-12);
        assert_eq!(rows.len(), 3);
        // One run of each: no whole-curve test.
        assert!(compare(&a[..1], &a[..1], &Options::default()).2.is_empty());
    }

    #[test]
    fn with_no_difference_the_whole_curve_test_rejects_one_time_in_twenty() {
        // 400 pairs of installations alike: p below 5% in about 20 of
        // them (binomial, sd 4.4), below 50% in about half.
        let (mut below_5, mut below_50) = (0, 0);
        for trial in 0..400 {
            let (a, b) = (drawn(8, 0.0, 2 * trial), drawn(8, 0.0, 2 * trial + 1));
            let p = compare(&a, &b, &Options::default()).2[0].p_value;
            below_5 += usize::from(p < 0.05);
            below_50 += usize::from(p < 0.5);
        }
        assert!((7..=33).contains(&below_5), "{below_5} of 400 below 5%");
        assert!(
            (170..=230).contains(&below_50),
            "{below_50} of 400 below 50%"
        );
    }

    #[test]
    fn a_known_shift_of_the_whole_curve_is_found() {
        // B is A's distribution half a second later: A − B = −0.5 s.
        let (a, b) = (drawn(8, 0.0, 11), drawn(8, 0.5, 12));
        let c = &compare(&a, &b, &Options::default()).2[0];
        assert!(c.p_value < 0.01, "{c:?}");
        assert!(c.interval.0 < -0.5 && -0.5 < c.interval.1, "{c:?}");
    }
}
