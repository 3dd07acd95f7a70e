//! The load levels of `tpsim analyze` and `tpsim compare`: the options that
//! make them (`--by`, `--cluster`, `--window`, ...), a measured table read
//! by its load index, and the refusals of levels that cannot give what was
//! asked for.
//!
//! Any load column a probe writes may be the index. That choice can go
//! wrong in ways that used to pass in silence: a table without the column,
//! a comparison whose two sides meet at no level (a host's process count
//! takes in every process of the machine, a model's only its own), or
//! charts whose curves would be single points. Each is refused here with
//! exit status 2, naming the file and the column, before anything is
//! written.

use crate::{Failure, check_level};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use tpsim_probe::analysis::{Grouping, Index, Observations, Options, Sample};
use tpsim_probe::report::count;

/// How observations are grouped into load levels.
#[derive(Debug, clap::Args)]
pub(crate) struct LevelArgs {
    /// The load index to group observations by: a load column of the
    /// table. A model's probe notes users, processes and runnable; a
    /// machine's (`tpsim probe`) the ramp's workers and the load averages
    /// too, a load average at its nearest whole number.
    #[arg(long, value_name = "COLUMN", default_value = "users", value_parser = index())]
    pub(crate) by: Index,
    /// Merge neighbouring levels until each has at least MIN observations.
    #[arg(long, value_name = "MIN", conflicts_with = "window", value_parser = crate::args::cluster)]
    cluster: Option<usize>,
    /// Compute level i from the observations at levels i-W to i+W.
    #[arg(long, value_name = "W", value_parser = crate::args::window)]
    window: Option<u32>,
    /// The confidence level of the intervals.
    #[arg(long, default_value_t = 0.95)]
    level: f64,
    /// Count the observations that started during the warm-up too.
    #[arg(long)]
    include_warmup: bool,
}

/// Reads `--by`: one of the load indices, by its column's name.
fn index() -> impl TypedValueParser<Value = Index> {
    PossibleValuesParser::new(Index::ALL.map(|i| PossibleValue::new(i.name()).help(i.label())))
        .map(|name| Index::from_name(&name).expect("one of the indices' names"))
}

impl LevelArgs {
    /// The analysis options these give, with `precision`.
    pub(crate) fn options(&self, precision: f64) -> Result<Options, Failure> {
        let input = |message: String| Failure::Input(anyhow::anyhow!(message));
        check_level(self.level).map_err(input)?;
        if !(precision > 0.0 && precision < 1.0) {
            return Err(input(format!(
                "--precision: must be a fraction between 0 and 1 (such as 0.05), got {}",
                tpsim_models::units::Figure(precision)
            )));
        }
        Ok(Options {
            index: self.by,
            grouping: match (self.cluster, self.window) {
                (Some(min), _) => Grouping::Cluster { min },
                (None, Some(half_width)) => Grouping::Window { half_width },
                (None, None) => Grouping::Levels,
            },
            level: self.level,
            precision,
            include_warmup: self.include_warmup,
        })
    }
}

/// The observations of a measured table (a probe.csv, or any table with
/// its columns) at their levels of `index`, leaving out runs whose status
/// is not ok, which a note counts; a table with none left, or without the
/// index's column, is refused.
pub(crate) fn observations(
    path: &Path,
    index: Index,
    stderr: &mut dyn Write,
) -> Result<Observations, Failure> {
    use tpsim_probe::analysis::{COLUMNS, TableError};
    let name = path.display();
    let input = |message: String| Failure::Input(anyhow::anyhow!("{name}: {message}"));
    let text = crate::read_table(path, "observation table")?;
    let read = tpsim_probe::analysis::read_observations(&text, index).map_err(|e| match e {
        TableError::MissingColumn {
            column, ref found, ..
        } if column == index.name() && !COLUMNS.contains(&column) => {
            let has: Vec<Index> = Index::ALL
                .into_iter()
                .filter(|i| found.iter().any(|c| c == i.name()))
                .collect();
            input(format!(
                "--by {column}: {e}; choose another --by: the table has {}",
                names(&has)
            ))
        }
        e => input(e.to_string()),
    })?;
    if read.samples.is_empty() {
        return Err(input(if read.left_out == 0 {
            "no observations: the table has its header and no rows".to_string()
        } else {
            format!(
                "no observations: every run's status is not ok ({} failed, timed out or interrupted)",
                read.left_out
            )
        }));
    }
    if read.left_out > 0 {
        let _ = writeln!(
            stderr,
            "tpsim: note: {name}: {} runs whose status is not ok (failed, timed out or interrupted) are left out",
            read.left_out
        );
    }
    Ok(read)
}

/// Indices' names as a list: `users, processes and runnable`.
pub(crate) fn names(indices: &[Index]) -> String {
    let names: Vec<&str> = indices.iter().map(|i| i.name()).collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// The levels of `samples` that the analysis counts, ascending.
pub(crate) fn levels(samples: &[Sample], options: &Options) -> BTreeSet<u32> {
    samples
        .iter()
        .filter(|s| s.measured || options.include_warmup)
        .map(|s| s.level)
        .collect()
}

/// The most runs of neighbouring levels a message lists.
const SHOWN_RUNS: usize = 8;

/// `levels` as a person writes them: each run of neighbours as a range,
/// `0-3, 7, 90-106`; "none" for none.
pub(crate) fn ranges(levels: &BTreeSet<u32>) -> String {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for &l in levels {
        match runs.last_mut() {
            Some((_, high)) if l == *high + 1 => *high = l,
            _ => runs.push((l, l)),
        }
    }
    if runs.is_empty() {
        return "none".to_string();
    }
    let mut shown: Vec<String> = runs
        .iter()
        .take(SHOWN_RUNS)
        .map(|&(low, high)| {
            if low == high {
                low.to_string()
            } else {
                format!("{low}-{high}")
            }
        })
        .collect();
    if runs.len() > SHOWN_RUNS {
        shown.push(format!("... {}", count(levels.len(), "level", "levels")));
    }
    shown.join(", ")
}

/// Refuses charts whose curves would be single points: with `--out`, when
/// no benchmark has two levels or more. `what` names the input or inputs,
/// `rows` are each row's benchmark and level, and `raw` the levels of the
/// observations before any grouping.
pub(crate) fn check_curves<'a>(
    what: &str,
    rows: impl IntoIterator<Item = (&'a str, f64)> + Clone,
    raw: &BTreeSet<u32>,
    options: &Options,
) -> Result<(), Failure> {
    let mut seen: Vec<&str> = Vec::new();
    for (benchmark, _) in rows.clone() {
        if seen.contains(&benchmark) {
            return Ok(());
        }
        seen.push(benchmark);
    }
    let mut at: Vec<f64> = rows.into_iter().map(|(_, level)| level).collect();
    at.sort_by(f64::total_cmp);
    at.dedup();
    let at: Vec<String> = at
        .iter()
        .map(|&l| tpsim_models::units::Figure(l).to_string())
        .collect();
    let index = options.index.name();
    let (merged, instead) = match options.grouping {
        Grouping::Cluster { min } if raw.len() > 1 => (
            format!(" once --cluster {min} has merged them"),
            "a smaller --cluster or another --by",
        ),
        _ => (String::new(), "another --by"),
    };
    Err(Failure::Input(anyhow::anyhow!(
        "{what}: every benchmark is at one level of {index} only ({}){merged}, and a chart's curve needs two or more: choose {instead}, or leave out --out to have the table alone",
        at.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_listed_as_runs_of_neighbours() {
        let set = |l: &[u32]| l.iter().copied().collect::<BTreeSet<u32>>();
        assert_eq!(ranges(&set(&[])), "none");
        assert_eq!(ranges(&set(&[0])), "0");
        assert_eq!(ranges(&set(&[0, 1, 2, 3])), "0-3");
        assert_eq!(
            ranges(&set(&[0, 1, 2, 3, 7, 90, 91, 106])),
            "0-3, 7, 90-91, 106"
        );
        let gaps: Vec<u32> = (0..40).map(|i| i * 2).collect();
        assert_eq!(
            ranges(&set(&gaps)),
            "0, 2, 4, 6, 8, 10, 12, 14, ... 40 levels"
        );
    }
}
