//! Tables and CSV files of a batch of replications, or of a sweep.
//!
//! Two tidy tables: `replications.csv` has one row per point and
//! replication with every measure as a column; `estimates.csv` one row per
//! point and measure with its mean, standard deviation and Student-t
//! interval over the replications. The terminal shows the chosen measures
//! of the second.

use crate::report::{count, csv_record, maybe, new_table, num};
use std::collections::HashSet;
use tpsim_models::batch::{PointRuns, matches};
use tpsim_models::units::Figure;

/// What a batch was, for the heading and the notes.
#[derive(Clone, Debug)]
pub struct Heading<'a> {
    /// The scenario's name.
    pub scenario: &'a str,
    /// The master seed.
    pub seed: u64,
    /// The swept keys (none for a plain batch).
    pub keys: &'a [String],
    /// The confidence level.
    pub level: f64,
    /// The rule, as a sentence: "10 replications at each point".
    pub rule: String,
}

/// The chosen measures' estimates at every point, with how each point's
/// replications ended.
pub fn table(heading: &Heading<'_>, points: &[PointRuns], chosen: &[String]) -> String {
    let percent = format!("±{}%", Figure(heading.level * 100.0));
    let mut header: Vec<&str> = heading.keys.iter().map(String::as_str).collect();
    header.extend(["measure", "n", "mean", "sd", percent.as_str()]);
    let mut table = new_table(&header);
    if let Some(column) = table.column_mut(heading.keys.len()) {
        column.set_cell_alignment(comfy_table::CellAlignment::Left);
    }
    for point in points {
        for e in point.estimates(heading.level) {
            if !chosen.iter().any(|p| matches(p, &e.measure)) {
                continue;
            }
            let mut row: Vec<String> = point.values.iter().map(|(_, v)| v.clone()).collect();
            row.extend([
                e.measure.clone(),
                e.n.to_string(),
                maybe(e.mean),
                maybe(e.sd),
                maybe(e.half_width),
            ]);
            table.add_row(row);
        }
    }
    let mut text = format!(
        "{} (seed {}): {}; {}% Student-t intervals over the replications.\n\n{table}\n",
        heading.scenario,
        heading.seed,
        heading.rule,
        Figure(heading.level * 100.0)
    );
    let alike = points.windows(2).all(|w| {
        (w[0].replications.len(), w[0].stopped_by) == (w[1].replications.len(), w[1].stopped_by)
    });
    if points.len() > 1 && alike {
        let p = &points[0];
        text.push_str(&format!(
            "\nEvery point: {}, stopped by {}\n",
            count(p.replications.len(), "replication", "replications"),
            p.stopped_by.name()
        ));
        return text;
    }
    let stops: Vec<String> = points
        .iter()
        .map(|p| {
            let at = if p.values.is_empty() {
                String::new()
            } else {
                format!("at {}: ", label(p))
            };
            format!(
                "{at}{}, stopped by {}",
                count(p.replications.len(), "replication", "replications"),
                p.stopped_by.name()
            )
        })
        .collect();
    text.push('\n');
    text.push_str(&stops.join("\n"));
    text.push('\n');
    text
}

/// The points' warm-ups: one line when they are all the same, else one per
/// point.
pub fn warmups(points: &[PointRuns]) -> String {
    let seconds = |p: &PointRuns| format!("{} s", p.warmup);
    match points {
        [] => String::new(),
        [first, rest @ ..] if rest.iter().all(|p| p.warmup == first.warmup) => {
            format!("Warm-up: {}\n", seconds(first))
        }
        _ => {
            let lines: Vec<String> = points
                .iter()
                .map(|p| format!("  at {}: {}", label(p), seconds(p)))
                .collect();
            format!("Warm-up:\n{}\n", lines.join("\n"))
        }
    }
}

fn label(point: &PointRuns) -> String {
    point
        .values
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every measure's name over all points, in order of first appearance.
fn all_measures(points: &[PointRuns]) -> Vec<&str> {
    let mut seen = HashSet::new();
    let mut names = Vec::new();
    for name in points.iter().flat_map(|p| &p.measures) {
        if seen.insert(name.as_str()) {
            names.push(name.as_str());
        }
    }
    names
}

fn csv_text(header: Vec<String>, rows: Vec<Vec<String>>) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer
        .write_record(csv_record(header))
        .expect("writing to memory cannot fail");
    for row in rows {
        writer
            .write_record(csv_record(row))
            .expect("writing to memory cannot fail");
    }
    String::from_utf8(writer.into_inner().expect("flushing memory cannot fail"))
        .expect("CSV of UTF-8 fields is UTF-8")
}

/// One row per point and replication: the swept keys' values, the
/// replication, what ended its run, and every measure (empty where the run
/// did not measure it).
pub fn replications_csv(keys: &[String], points: &[PointRuns]) -> String {
    let names = all_measures(points);
    let mut header = keys.to_vec();
    header.extend(["replication".to_string(), "stopped_by".to_string()]);
    header.extend(names.iter().map(|n| n.to_string()));
    let mut rows = Vec::new();
    for point in points {
        let column: Vec<Option<usize>> = names
            .iter()
            .map(|n| point.measures.iter().position(|m| m == n))
            .collect();
        for r in &point.replications {
            let mut row: Vec<String> = point.values.iter().map(|(_, v)| v.clone()).collect();
            row.push(r.replication.to_string());
            row.push(r.stopped_by.name().to_string());
            row.extend(column.iter().map(|c| match c.map(|c| r.values[c]) {
                Some(x) if !x.is_nan() => num(x),
                _ => String::new(),
            }));
            rows.push(row);
        }
    }
    csv_text(header, rows)
}

/// One row per point and measure: the swept keys' values, the measure, the
/// replications that measured it, their mean and standard deviation, and
/// the interval's half-width, ends and level.
pub fn estimates_csv(keys: &[String], points: &[PointRuns], level: f64) -> String {
    let mut header = keys.to_vec();
    header.extend(
        [
            "measure",
            "n",
            "mean",
            "sd",
            "half_width",
            "low",
            "high",
            "level",
            "stopped_by",
        ]
        .map(String::from),
    );
    let mut rows = Vec::new();
    for point in points {
        for e in point.estimates(level) {
            let end = |sign: f64| e.mean.zip(e.half_width).map(|(m, h)| m + sign * h);
            let field = |x: Option<f64>| x.map_or_else(String::new, num);
            let mut row: Vec<String> = point.values.iter().map(|(_, v)| v.clone()).collect();
            row.extend([
                e.measure.clone(),
                e.n.to_string(),
                field(e.mean),
                field(e.sd),
                field(e.half_width),
                field(end(-1.0)),
                field(end(1.0)),
                num(level),
                point.stopped_by.name().to_string(),
            ]);
            rows.push(row);
        }
    }
    csv_text(header, rows)
}
