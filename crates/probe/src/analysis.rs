//! The analysis of terminal-probe observations per load level, as the 1981
//! study made it (\[S1\] section 4): for each benchmark and each value of a
//! load index, the count, median, mean, 75th and 90th percentiles of
//! elapsed time, with a confidence interval for the 75th percentile and
//! the observations still needed to pin it down.
//!
//! The study's indices were users logged in and user processes. Any load
//! column a probe writes may be the index ([`Index`]): a real machine's
//! probe also notes the processes runnable, a load ramp's workers and the
//! load averages, and on a machine shared with other work the index that
//! tells its load apart may be any of these. A load average is a fraction;
//! its level is its nearest whole number, so that levels gather enough
//! observations to have percentiles and two installations can meet at
//! one.
//!
//! Thin levels are the method's weak point, and the study used two
//! remedies, both here as options: *clustering* neighbouring levels until
//! each group has a minimum number of observations (the group's level is
//! the mean of the levels merged: 19 observations at 15 users and 12 at 16
//! make 31 at 15.5), and a *window* that computes level i from the
//! observations at levels i − w to i + w (the study's Purdue figures used
//! w = 1; neighbouring values are then correlated).
//!
//! Percentiles are the linear interpolation between order statistics
//! (Hyndman and Fan's type 7, the default of R and NumPy). The interval for
//! the 75th percentile is distribution-free: the order statistics
//! X(l) ≤ X(u) chosen so that the number of observations below the true
//! percentile, binomial with parameters n and 0.75, lies in [l, u − 1] with
//! at least the confidence asked (each tail at most half the rest);
//! observations are taken as independent, which consecutive probe runs are
//! only approximately.

use serde::Serialize;
use statrs::distribution::{Binomial, DiscreteCDF};
use std::collections::BTreeMap;
use std::fmt;

/// One observation, as the analysis reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The benchmark.
    pub benchmark: String,
    /// Whether it started after the warm-up.
    pub measured: bool,
    /// Its level of the load index it was read by, when it started.
    pub level: u32,
    /// Its elapsed time \[s\].
    pub elapsed: f64,
}

impl Sample {
    /// An observation of the simulated probe as a sample at its level of
    /// `index`; `None` for an index that probe does not note
    /// ([`Index::simulated`]).
    pub fn observed(o: &tpsim_models::system::Observation, index: Index) -> Option<Sample> {
        let level = match index {
            Index::Users => o.users,
            Index::Processes => o.processes,
            Index::Runnable => o.runnable,
            Index::RampWorkers => o.ramp_workers,
            Index::Load1 | Index::Load5 | Index::Load15 => return None,
        };
        Some(Sample {
            benchmark: o.benchmark.clone(),
            measured: !o.warmup,
            level,
            elapsed: o.elapsed,
        })
    }
}

/// The load index observations are grouped by: one of the load columns of
/// a probe's table, named as the column is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Index {
    /// Users logged in (`users`).
    Users,
    /// User processes (`processes`).
    Processes,
    /// Processes running or ready to run (`runnable`).
    Runnable,
    /// A load ramp's workers running (`ramp_workers`).
    RampWorkers,
    /// The 1-minute load average (`load_1min`), at its nearest whole
    /// number.
    Load1,
    /// The 5-minute load average (`load_5min`), likewise.
    Load5,
    /// The 15-minute load average (`load_15min`), likewise.
    Load15,
}

impl Index {
    /// Every index, in the order of the probe's columns.
    pub const ALL: [Index; 7] = [
        Index::Users,
        Index::Processes,
        Index::Runnable,
        Index::RampWorkers,
        Index::Load1,
        Index::Load5,
        Index::Load15,
    ];

    /// The name used on the command line and in outputs: the column's.
    pub fn name(self) -> &'static str {
        match self {
            Index::Users => "users",
            Index::Processes => "processes",
            Index::Runnable => "runnable",
            Index::RampWorkers => "ramp_workers",
            Index::Load1 => "load_1min",
            Index::Load5 => "load_5min",
            Index::Load15 => "load_15min",
        }
    }

    /// The index whose column is `name`.
    pub fn from_name(name: &str) -> Option<Index> {
        Index::ALL.into_iter().find(|i| i.name() == name)
    }

    /// What it counts, in words: a chart's axis.
    pub fn label(self) -> &'static str {
        match self {
            Index::Users => "users logged in",
            Index::Processes => "user processes",
            Index::Runnable => "processes runnable",
            Index::RampWorkers => "workers of the load ramp",
            Index::Load1 => "1-minute load average",
            Index::Load5 => "5-minute load average",
            Index::Load15 => "15-minute load average",
        }
    }

    /// Whether the simulated probe notes it, with a load `ramp` or
    /// without: the users, processes and runnable always, the ramp's
    /// workers when it runs a ramp; the load averages are a real
    /// machine's.
    pub fn simulated(self, ramp: bool) -> bool {
        match self {
            Index::Users | Index::Processes | Index::Runnable => true,
            Index::RampWorkers => ramp,
            Index::Load1 | Index::Load5 | Index::Load15 => false,
        }
    }

    /// Whether its column holds a load average, a fraction whose level is
    /// its nearest whole number; the others hold counts.
    fn averaged(self) -> bool {
        matches!(self, Index::Load1 | Index::Load5 | Index::Load15)
    }

    /// The level a field of its column gives, or what is wrong with it.
    fn level(self, field: &str) -> Result<u32, String> {
        if !self.averaged() {
            return field
                .parse::<u32>()
                .map_err(|_| format!("\"{field}\" is not a whole number >= 0"));
        }
        field
            .parse::<f64>()
            .ok()
            .filter(|x| *x >= 0.0 && x.round() <= f64::from(u32::MAX))
            .map(|x| x.round() as u32)
            .ok_or_else(|| {
                format!(
                    "\"{field}\" is not a load average: a number from 0 to {}",
                    u32::MAX
                )
            })
    }
}

impl Serialize for Index {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// How levels with few observations are treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grouping {
    /// Every level on its own.
    Levels,
    /// Neighbouring levels merged until each group has at least `min`
    /// observations.
    Cluster {
        /// The smallest group.
        min: usize,
    },
    /// Level i from the observations at levels i − `half_width` to
    /// i + `half_width`.
    Window {
        /// How many levels on each side.
        half_width: u32,
    },
}

/// What to compute.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// The load index.
    pub index: Index,
    /// How thin levels are treated.
    pub grouping: Grouping,
    /// The confidence level of the 75th percentile's interval.
    pub level: f64,
    /// The relative half-width wanted for the 75th percentile, for the
    /// observations still needed.
    pub precision: f64,
    /// Whether observations started during the warm-up count.
    pub include_warmup: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            index: Index::Users,
            grouping: Grouping::Levels,
            level: 0.95,
            precision: 0.1,
            include_warmup: false,
        }
    }
}

/// The figures of one benchmark at one load level.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LevelRow {
    /// The benchmark.
    pub benchmark: String,
    /// The load level: an index value, or the mean of the values merged.
    pub level: f64,
    /// Observations.
    pub count: usize,
    /// Median elapsed time \[s\].
    pub median: f64,
    /// Mean elapsed time \[s\].
    pub mean: f64,
    /// 75th percentile \[s\].
    pub p75: f64,
    /// The 75th percentile's distribution-free interval \[s\], if there
    /// are enough observations for one at the level asked.
    pub p75_interval: Option<(f64, f64)>,
    /// 90th percentile \[s\].
    pub p90: f64,
    /// Observations still needed for the interval's half-width to reach
    /// the precision asked (assuming the half-width shrinks as one over the
    /// square root of the count); 0 when reached, `None` without an
    /// interval (or with a 75th percentile of 0, which no relative
    /// precision fits).
    pub needed: Option<usize>,
}

/// The `p`-quantile of `sorted` (ascending, not empty), interpolating
/// linearly between order statistics (Hyndman and Fan's type 7).
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    assert!(!sorted.is_empty() && (0.0..=1.0).contains(&p));
    let h = (sorted.len() - 1) as f64 * p;
    let below = h.floor() as usize;
    let above = (below + 1).min(sorted.len() - 1);
    sorted[below] + (h - below as f64) * (sorted[above] - sorted[below])
}

/// The probability in each tail of a two-sided interval at `level`.
pub(crate) fn tail(level: f64) -> f64 {
    (1.0 - level) / 2.0
}

/// The distribution-free interval for the `p`-quantile of `sorted` with
/// confidence at least `level`: the order statistics X(l) and X(u)
/// (1-based) with P(B < l) ≤ (1 − level)/2 and P(B ≥ u) ≤ (1 − level)/2,
/// B binomial (n, p); `None` if the sample is too small for it.
pub fn quantile_interval(sorted: &[f64], p: f64, level: f64) -> Option<(f64, f64)> {
    let n = sorted.len() as u64;
    if n == 0 {
        return None;
    }
    let tail = tail(level);
    let b = Binomial::new(p, n).expect("p in [0, 1]");
    // The largest l with P(B <= l - 1) <= tail.
    let l = (1..=n).take_while(|&l| b.cdf(l - 1) <= tail).last()?;
    // The smallest u with P(B >= u) <= tail, i.e. P(B <= u - 1) >= 1 - tail.
    let u = (1..=n).find(|&u| b.cdf(u - 1) >= 1.0 - tail)?;
    Some((sorted[l as usize - 1], sorted[u as usize - 1]))
}

/// The figures of `benchmark` over the elapsed times `times` at `level`.
fn row(benchmark: &str, level: f64, mut times: Vec<f64>, options: &Options) -> LevelRow {
    times.sort_by(f64::total_cmp);
    let p75 = quantile(&times, 0.75);
    let interval = quantile_interval(&times, 0.75, options.level);
    // A precision relative to a 75th percentile of 0 asks for nothing.
    let needed = interval.filter(|_| p75 > 0.0).map(|(low, high)| {
        let half = (high - low) / 2.0;
        let wanted = options.precision * p75;
        if half <= wanted {
            0
        } else {
            let all = (times.len() as f64 * (half / wanted).powi(2)).ceil() as usize;
            all - times.len()
        }
    });
    LevelRow {
        benchmark: benchmark.to_string(),
        level,
        count: times.len(),
        median: quantile(&times, 0.5),
        mean: times.iter().sum::<f64>() / times.len() as f64,
        p75,
        p75_interval: interval,
        p90: quantile(&times, 0.9),
        needed,
    }
}

/// The benchmarks of `samples`, in order of first appearance.
pub fn benchmarks(samples: &[Sample]) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for s in samples {
        if !names.contains(&s.benchmark.as_str()) {
            names.push(&s.benchmark);
        }
    }
    names
}

/// The elapsed times of `benchmark` by level of the index, the warm-up's
/// left out unless asked for.
pub fn by_level(samples: &[Sample], benchmark: &str, options: &Options) -> BTreeMap<u32, Vec<f64>> {
    let mut levels: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    for s in samples
        .iter()
        .filter(|s| s.benchmark == benchmark && (s.measured || options.include_warmup))
    {
        levels.entry(s.level).or_default().push(s.elapsed);
    }
    levels
}

/// The figures per benchmark (in order of first appearance) and load level
/// (ascending).
pub fn analyze(samples: &[Sample], options: &Options) -> Vec<LevelRow> {
    let mut rows = Vec::new();
    for benchmark in benchmarks(samples) {
        let levels = by_level(samples, benchmark, options);
        let count = |members: &[u32]| -> usize { members.iter().map(|l| levels[l].len()).sum() };
        let keys: Vec<u32> = levels.keys().copied().collect();
        for (level, members) in groups(&keys, options.grouping, |m| count(m)) {
            let times = members
                .iter()
                .flat_map(|l| levels[l].iter().copied())
                .collect();
            rows.push(row(benchmark, level, times, options));
        }
    }
    rows
}

/// The groups `grouping` makes of the index values `levels` (ascending),
/// each with its level and the values it takes observations from; `count`
/// gives how many observations a set of values holds (for clustering: a
/// group closes once it reaches the minimum).
pub fn groups(
    levels: &[u32],
    grouping: Grouping,
    count: impl Fn(&[u32]) -> usize,
) -> Vec<(f64, Vec<u32>)> {
    match grouping {
        Grouping::Levels => levels.iter().map(|&l| (f64::from(l), vec![l])).collect(),
        Grouping::Window { half_width } => levels
            .iter()
            .map(|&l| {
                let near = levels
                    .iter()
                    .copied()
                    .filter(|&m| m.abs_diff(l) <= half_width)
                    .collect();
                (f64::from(l), near)
            })
            .collect(),
        Grouping::Cluster { min } => {
            // Merged from the lowest level up; a last group short of the
            // minimum joins the one before it.
            let mut closed: Vec<Vec<u32>> = Vec::new();
            let mut open: Vec<u32> = Vec::new();
            for &l in levels {
                open.push(l);
                if count(&open) >= min {
                    closed.push(std::mem::take(&mut open));
                }
            }
            if !open.is_empty() {
                match closed.last_mut() {
                    Some(last) => last.extend(open),
                    None => closed.push(open),
                }
            }
            closed
                .into_iter()
                .map(|members| {
                    let level =
                        members.iter().map(|&l| f64::from(l)).sum::<f64>() / members.len() as f64;
                    (level, members)
                })
                .collect()
        }
    }
}

/// Why an observation table cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableError {
    /// A column the analysis needs is not in the header.
    MissingColumn {
        /// The column.
        column: &'static str,
        /// The columns found.
        found: Vec<String>,
        /// The columns this kind of table needs.
        needed: Vec<&'static str>,
    },
    /// A field does not hold what its column calls for.
    BadValue {
        /// The line in the file (1 is the header).
        line: u64,
        /// The column.
        column: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The text is not CSV.
    Malformed(String),
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::MissingColumn {
                column,
                found,
                needed,
            } => {
                // A header of a hundred thousand columns is not echoed.
                const SHOWN: usize = 20;
                let mut listed = found
                    .iter()
                    .take(SHOWN)
                    .map(|c| c.chars().take(40).collect::<String>())
                    .collect::<Vec<_>>()
                    .join(", ");
                if found.len() > SHOWN {
                    listed.push_str(&format!(", ... ({} columns in all)", found.len()));
                }
                write!(
                    f,
                    "no column `{column}` in the header (found: {listed}); the table needs {}",
                    needed.join(", ")
                )
            }
            TableError::BadValue {
                line,
                column,
                message,
            } => write!(f, "line {line}, column `{column}`: {message}"),
            TableError::Malformed(m) => write!(f, "not a CSV table: {m}"),
        }
    }
}

impl std::error::Error for TableError {}

/// A CSV reader over `text` and the place in each record of every one of
/// `columns`, found by the header in any order.
///
/// # Errors
/// Text that is not CSV, or a column missing from the header.
pub(crate) fn csv_columns<'t, const N: usize>(
    text: &'t str,
    columns: [&'static str; N],
) -> Result<(csv::Reader<&'t [u8]>, [usize; N]), TableError> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader
        .headers()
        .map_err(|e| TableError::Malformed(e.to_string()))?
        .clone();
    let mut at = [0; N];
    for (slot, column) in at.iter_mut().zip(columns) {
        *slot =
            header
                .iter()
                .position(|h| h == column)
                .ok_or_else(|| TableError::MissingColumn {
                    column,
                    found: header.iter().map(str::to_string).collect(),
                    needed: columns.to_vec(),
                })?;
    }
    Ok((reader, at))
}

/// The columns the analysis reads from an observation table (`probe.csv`
/// has them, and more), whatever its load index.
pub const COLUMNS: [&str; 5] = ["benchmark", "phase", "users", "processes", "elapsed_s"];

/// An observation table as read: the runs to analyse, and the runs left
/// out because they did not end well.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Observations {
    /// The runs that ended well (all of them in a table without `status`).
    pub samples: Vec<Sample>,
    /// Runs whose `status` is not `ok` (a benchmark that failed, timed out
    /// or was interrupted on a real machine), left out.
    pub left_out: u64,
    /// The load indices whose columns the table has, in [`Index::ALL`]'s
    /// order.
    pub indices: Vec<Index>,
}

/// Reads an observation table by the load index `index`: CSV with a
/// header naming at least [`COLUMNS`] and `index`'s column, in any order.
/// `phase` is `measured` or `warmup`. With a `status` column (the
/// probe.csv of `tpsim probe`), only the rows whose status is `ok` are
/// samples; the others are counted.
///
/// # Errors
/// Text that is not CSV, a column missing, or a field that does not hold
/// what its column calls for.
pub fn read_observations(text: &str, index: Index) -> Result<Observations, TableError> {
    let (mut reader, [benchmark, phase, users, processes, elapsed]) = csv_columns(text, COLUMNS)?;
    let header = reader
        .headers()
        .map_err(|e| TableError::Malformed(e.to_string()))?
        .clone();
    let status = header.iter().position(|c| c == "status");
    let level = header
        .iter()
        .position(|c| c == index.name())
        .ok_or_else(|| TableError::MissingColumn {
            column: index.name(),
            found: header.iter().map(str::to_string).collect(),
            needed: COLUMNS.into_iter().chain([index.name()]).collect(),
        })?;
    let indices = Index::ALL
        .into_iter()
        .filter(|i| header.iter().any(|c| c == i.name()))
        .collect();
    let mut samples = Vec::new();
    let mut left_out = 0;
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(|e| TableError::Malformed(e.to_string()))?;
        if status.is_some_and(|at| record.get(at) != Some("ok")) {
            left_out += 1;
            continue;
        }
        let line = i as u64 + 2;
        let bad = |column: &'static str, message: String| TableError::BadValue {
            line,
            column,
            message,
        };
        let field = |at: usize| record.get(at).unwrap_or("");
        let measured = match field(phase) {
            "measured" => true,
            "warmup" => false,
            other => {
                return Err(bad(
                    "phase",
                    format!("\"{other}\": expected \"measured\" or \"warmup\""),
                ));
            }
        };
        let time: f64 = field(elapsed)
            .parse()
            .ok()
            .filter(|t: &f64| t.is_finite() && *t >= 0.0)
            .ok_or_else(|| {
                bad(
                    "elapsed_s",
                    format!("\"{}\" is not a time >= 0", field(elapsed)),
                )
            })?;
        // The study's two indices are checked whatever the index, as
        // columns every observation table has.
        for (at, column) in [(users, "users"), (processes, "processes")] {
            Index::Users
                .level(field(at))
                .map_err(|message| bad(column, message))?;
        }
        samples.push(Sample {
            benchmark: crate::report::from_csv_cell(field(benchmark)).to_string(),
            measured,
            level: index
                .level(field(level))
                .map_err(|message| bad(index.name(), message))?,
            elapsed: time,
        });
    }
    Ok(Observations {
        samples,
        left_out,
        indices,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_interpolate_between_order_statistics() {
        // Type 7 by hand: for 1..=10, h = 9p; p75 = x(7.75) = 7.75,
        // p90 = x(9.1) = 9.1, the median 5.5.
        let x: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(quantile(&x, 0.5), 5.5);
        assert!((quantile(&x, 0.75) - 7.75).abs() < 1e-12);
        assert!((quantile(&x, 0.9) - 9.1).abs() < 1e-12);
        assert_eq!(quantile(&[3.0], 0.75), 3.0);
        assert_eq!(quantile(&[1.0, 2.0], 0.75), 1.75);
    }

    #[test]
    fn the_percentile_interval_is_made_of_order_statistics_from_the_binomial() {
        // n = 20, p = 0.75, 95%: P(B <= 10) = 0.0139 and P(B <= 11) =
        // 0.0409, so l = 11 (P(B < 11) <= 0.025); P(B <= 18) = 0.9757, so
        // u = 19 (P(B >= 19) = 0.0243). The interval is [x(11), x(19)].
        let x: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(quantile_interval(&x, 0.75, 0.95), Some((11.0, 19.0)));
        // Too few observations for 95%: with 5, even P(B <= 4) = 0.763, so
        // no upper order statistic will do.
        assert_eq!(quantile_interval(&x[..5], 0.75, 0.95), None);
    }

    fn sample(level: u32, elapsed: f64) -> Sample {
        Sample {
            benchmark: "man".into(),
            measured: true,
            level,
            elapsed,
        }
    }

    #[test]
    fn levels_clusters_and_windows_group_as_the_study_did() {
        // 19 observations at 15 users, 12 at 16, 40 at 17.
        let mut samples: Vec<Sample> = (0..19).map(|i| sample(15, f64::from(i))).collect();
        samples.extend((0..12).map(|i| sample(16, 100.0 + f64::from(i))));
        samples.extend((0..40).map(|i| sample(17, 200.0 + f64::from(i))));
        let rows = |grouping| {
            analyze(
                &samples,
                &Options {
                    grouping,
                    ..Options::default()
                },
            )
        };
        let levels = rows(Grouping::Levels);
        let got: Vec<(f64, usize)> = levels.iter().map(|r| (r.level, r.count)).collect();
        assert_eq!(got, [(15.0, 19), (16.0, 12), (17.0, 40)]);
        // Clustering at 30: 15 and 16 merge into 31 observations at 15.5.
        let clusters = rows(Grouping::Cluster { min: 30 });
        let got: Vec<(f64, usize)> = clusters.iter().map(|r| (r.level, r.count)).collect();
        assert_eq!(got, [(15.5, 31), (17.0, 40)]);
        // At 50 the three make one group; at 100 they are short of it
        // but still one group, the only one there is.
        for min in [50, 100] {
            let got: Vec<(f64, usize)> = rows(Grouping::Cluster { min })
                .iter()
                .map(|r| (r.level, r.count))
                .collect();
            assert_eq!(got, [(16.0, 71)], "min {min}");
        }
        // The window: level 16 from 15, 16 and 17.
        let window = rows(Grouping::Window { half_width: 1 });
        let got: Vec<(f64, usize)> = window.iter().map(|r| (r.level, r.count)).collect();
        assert_eq!(got, [(15.0, 31), (16.0, 71), (17.0, 52)]);
        // Level 15 alone: 0..18, median 9, mean 9, p75 13.5, p90 16.2.
        let r = &levels[0];
        assert_eq!((r.median, r.mean), (9.0, 9.0));
        assert!((r.p75 - 13.5).abs() < 1e-12 && (r.p90 - 16.2).abs() < 1e-12);
    }

    #[test]
    fn a_short_last_group_joins_the_one_before_and_benchmarks_stay_apart() {
        // 30 observations at level 1, 30 at 2, 5 at 3; a second benchmark
        // and a warm-up run that must not count.
        let mut samples: Vec<Sample> = [(1, 30), (2, 30), (3, 5)]
            .iter()
            .flat_map(|&(l, n)| (0..n).map(move |i| sample(l, f64::from(i))))
            .collect();
        samples.push(Sample {
            benchmark: "cc".into(),
            ..sample(1, 1000.0)
        });
        samples.push(Sample {
            measured: false,
            ..sample(1, 2000.0)
        });
        let rows = analyze(
            &samples,
            &Options {
                grouping: Grouping::Cluster { min: 30 },
                ..Options::default()
            },
        );
        let got: Vec<(&str, f64, usize)> = rows
            .iter()
            .map(|r| (r.benchmark.as_str(), r.level, r.count))
            .collect();
        assert_eq!(got, [("man", 1.0, 30), ("man", 2.5, 35), ("cc", 1.0, 1)]);
        assert_eq!(rows[0].mean, 14.5);
    }

    #[test]
    fn the_observations_needed_follow_the_interval_width() {
        // 40 observations 200..239 at level 17: p75 = 229.25; the 95%
        // interval is [x(24), x(36)] = [223, 235] (P(B <= 23) = 0.0116,
        // P(B <= 35) = 0.9840), half-width 6, 2.6% of p75: 10% is reached;
        // 1% needs 40 * (6 / 2.2925)^2 = 273.99 -> 274 in all, 234 more.
        let samples: Vec<Sample> = (0..40).map(|i| sample(17, 200.0 + f64::from(i))).collect();
        let at = |precision| {
            analyze(
                &samples,
                &Options {
                    precision,
                    ..Options::default()
                },
            )[0]
            .clone()
        };
        let r = at(0.1);
        assert!((r.p75 - 229.25).abs() < 1e-12);
        assert_eq!(r.p75_interval, Some((223.0, 235.0)));
        assert_eq!(r.needed, Some(0));
        assert_eq!(at(0.01).needed, Some(234));
        // Times of 0: no relative precision to reach.
        let zeros: Vec<Sample> = (0..40).map(|i| sample(17, f64::from(i / 35))).collect();
        let r = &analyze(&zeros, &Options::default())[0];
        assert_eq!((r.p75, r.needed), (0.0, None));
    }

    #[test]
    fn an_observation_of_a_run_is_a_sample_and_the_indices_have_names() {
        let o = tpsim_models::system::Observation {
            benchmark: "cc".into(),
            start: 10.0,
            warmup: true,
            users: 4,
            processes: 6,
            runnable: 2,
            free_memory: 1024,
            elapsed: 12.0,
            user: 5.0,
            system: 0.5,
            ramp_workers: 0,
        };
        let level = |index| Sample::observed(&o, index).map(|s| s.level);
        let s = Sample::observed(&o, Index::Users).unwrap();
        assert_eq!(
            (s.benchmark.as_str(), s.measured, s.level, s.elapsed),
            ("cc", false, 4, 12.0)
        );
        assert_eq!(level(Index::Processes), Some(6));
        assert_eq!(level(Index::Runnable), Some(2));
        // A model's probe notes no load average; the ramp's workers (0
        // without a ramp), which are a model's index only with a ramp.
        for index in [Index::Load1, Index::Load15] {
            assert_eq!(level(index), None, "{index:?}");
            assert!(!index.simulated(true));
        }
        assert_eq!(level(Index::RampWorkers), Some(0));
        assert!(Index::RampWorkers.simulated(true) && !Index::RampWorkers.simulated(false));
        let measured = tpsim_models::system::Observation { warmup: false, ..o };
        assert!(Sample::observed(&measured, Index::Users).unwrap().measured);
        // The names are the columns', and read back.
        let names: Vec<&str> = Index::ALL.iter().map(|i| i.name()).collect();
        assert_eq!(
            names,
            [
                "users",
                "processes",
                "runnable",
                "ramp_workers",
                "load_1min",
                "load_5min",
                "load_15min"
            ]
        );
        for index in Index::ALL {
            assert_eq!(Index::from_name(index.name()), Some(index));
        }
        assert_eq!(Index::from_name("load"), None);
    }

    /// A probe.csv of a real machine's, in part: its load columns.
    const HOST: &str = "benchmark,phase,users,processes,runnable,elapsed_s,status,load_1min,ramp_workers\n\
        man,measured,1,97,3,1.5,ok,0.49,0\n\
        man,measured,1,99,5,2.5,ok,0.5,2\n\
        man,measured,1,98,4,3.5,ok,2.51,4\n";

    #[test]
    fn any_load_column_may_be_the_index() {
        let levels = |index| -> Vec<u32> {
            read_observations(HOST, index)
                .unwrap()
                .samples
                .iter()
                .map(|s| s.level)
                .collect()
        };
        assert_eq!(levels(Index::Users), [1, 1, 1]);
        assert_eq!(levels(Index::Processes), [97, 99, 98]);
        assert_eq!(levels(Index::Runnable), [3, 5, 4]);
        assert_eq!(levels(Index::RampWorkers), [0, 2, 4]);
        // A load average at its nearest whole number (a half rounds up).
        assert_eq!(levels(Index::Load1), [0, 1, 3]);
        assert_eq!(
            read_observations(HOST, Index::Users).unwrap().indices,
            [
                Index::Users,
                Index::Processes,
                Index::Runnable,
                Index::RampWorkers,
                Index::Load1
            ]
        );
        // The levels group alike whatever their column.
        let rows = analyze(
            &read_observations(HOST, Index::RampWorkers).unwrap().samples,
            &Options {
                index: Index::RampWorkers,
                ..Options::default()
            },
        );
        let got: Vec<(f64, f64)> = rows.iter().map(|r| (r.level, r.median)).collect();
        assert_eq!(got, [(0.0, 1.5), (2.0, 2.5), (4.0, 3.5)]);
    }

    #[test]
    fn an_index_column_missing_or_unsound_is_named() {
        let missing = read_observations(HOST, Index::Load5).unwrap_err();
        assert!(
            matches!(
                &missing,
                TableError::MissingColumn {
                    column: "load_5min",
                    ..
                }
            ),
            "{missing}"
        );
        assert!(
            missing.to_string().ends_with(
                "the table needs benchmark, phase, users, processes, elapsed_s, load_5min"
            ),
            "{missing}"
        );
        for (field, index) in [
            ("-0.5", Index::Load1),
            ("NaN", Index::Load1),
            ("1e300", Index::Load1),
            ("high", Index::Load1),
            ("1.5", Index::RampWorkers),
        ] {
            let table = format!(
                "benchmark,phase,users,processes,elapsed_s,{}\nman,measured,1,2,3,{field}\n",
                index.name()
            );
            let bad = read_observations(&table, index).unwrap_err().to_string();
            assert!(
                bad.starts_with(&format!(
                    "line 2, column `{}`: \"{field}\" is not a",
                    index.name()
                )),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_table_needs_its_columns_and_sound_values() {
        let good = "benchmark,start_s,phase,users,processes,elapsed_s\nman,1.0,measured,3,4,5.5\ncc,2.0,warmup,3,5,7\n";
        let read = read_observations(good, Index::Users).unwrap();
        assert_eq!(read.left_out, 0);
        let samples = read.samples;
        assert_eq!(samples.len(), 2);
        assert_eq!(samples[0], sample(3, 5.5));
        assert!(!samples[1].measured);
        let by_processes = read_observations(good, Index::Processes).unwrap().samples;
        assert_eq!(by_processes[0], sample(4, 5.5));
        let missing =
            read_observations("benchmark,phase,users,procs,elapsed_s\n", Index::Users).unwrap_err();
        assert!(
            matches!(
                missing,
                TableError::MissingColumn {
                    column: "processes",
                    ..
                }
            ),
            "{missing}"
        );
        let bad = read_observations(
            "benchmark,phase,users,processes,elapsed_s\nman,measured,-1,2,3\n",
            Index::Processes,
        )
        .unwrap_err();
        assert_eq!(
            bad.to_string(),
            "line 2, column `users`: \"-1\" is not a whole number >= 0"
        );
        let bad = read_observations(
            "benchmark,phase,users,processes,elapsed_s\nman,during,1,2,3\n",
            Index::Users,
        )
        .unwrap_err();
        assert!(bad.to_string().contains("column `phase`"), "{bad}");
        for time in ["soon", "-3", "inf", "NaN"] {
            let bad = read_observations(
                &format!("benchmark,phase,users,processes,elapsed_s\nman,measured,1,2,{time}\n"),
                Index::Users,
            )
            .unwrap_err();
            assert!(
                bad.to_string().contains("column `elapsed_s`"),
                "{time}: {bad}"
            );
        }
    }

    #[test]
    fn runs_that_did_not_end_well_are_left_out_and_counted() {
        let table = "benchmark,phase,users,processes,elapsed_s,status\n\
            man,measured,1,2,3.5,ok\n\
            man,measured,1,2,0.01,exit 127\n\
            man,measured,1,2,60,timeout\n\
            man,measured,1,2,4.5,ok\n\
            man,measured,1,2,1,interrupted\n";
        let read = read_observations(table, Index::Users).unwrap();
        assert_eq!(read.left_out, 3);
        let kept: Vec<f64> = read.samples.iter().map(|s| s.elapsed).collect();
        assert_eq!(kept, [3.5, 4.5]);
    }
}
