//! Batches: independent replications of a scenario, or of every point of
//! a sweep, and the Student-t interval of every measure over them.
//!
//! Every number a run reports is a *measure*, named by its place in
//! `summary.json`: `stations.cpu.utilization`,
//! `classes.edit.mean_response`, `cpu.fault_handling`,
//! `paging.faults_per_second`. Arrays of named rows (stations, classes,
//! devices) take the row's name as a step of the path. Left out are the
//! run's identity and settings (scenario, seed, replication, simulated
//! time, warm-up, wall-clock time, what stopped it), the names, and the
//! per-run batch-means half-widths (a batch's interval comes from the
//! replications). A value a run could not measure (the mean response of a
//! class with no completions) is missing from that run, not 0.
//!
//! Replication `r` of every point runs on the streams of `r` under the
//! scenario's seed, so the points of a sweep share their random numbers
//! (common random numbers: differences between points are measured more
//! precisely than the points themselves), and the results are the same
//! whatever the number of threads.

use crate::analytic::{ClosedModel, Reference};
use crate::summary::{StoppedBy, Summary};
use crate::sweep::Point;
use serde::{Deserialize, Serialize};
use tpsim_core::replicate::{Estimate, Precision, Rule, Runner, Shard, Stop};

/// The measures of one run: the sections of `summary.json` and the fields
/// of each row in alphabetical order, the rows of an array in order.
pub fn measures(summary: &Summary) -> Vec<(String, f64)> {
    let value = serde_json::to_value(summary).expect("a summary always serialises");
    let mut found = Vec::new();
    if let serde_json::Value::Object(fields) = value {
        for (key, value) in fields {
            if !RUN_FIELDS.contains(&key.as_str()) {
                flatten(&key, &value, &mut found);
            }
        }
    }
    found
}

/// The summary's fields that say which run it was and how it was set up,
/// not what it measured.
const RUN_FIELDS: [&str; 8] = [
    "scenario",
    "seed",
    "replication",
    "sim_time",
    "warmup",
    "wall_seconds",
    "stopped_by",
    "stalled_on",
];

/// Fields of a row that restate the scenario (a station's servers, the
/// processors, the size of user memory), not something measured.
const SETTINGS: [&str; 4] = ["name", "servers", "cpus", "user_bytes"];

fn flatten(path: &str, value: &serde_json::Value, found: &mut Vec<(String, f64)>) {
    use serde_json::Value;
    match value {
        Value::Number(n) => found.push((path.to_string(), n.as_f64().unwrap_or(f64::NAN))),
        Value::Null => found.push((path.to_string(), f64::NAN)),
        Value::Object(fields) => {
            for (key, value) in fields {
                let per_run_interval = ["_ci95", "_ci95_low", "_ci95_high", "_ci95_note"]
                    .iter()
                    .any(|end| key.ends_with(end));
                if !per_run_interval && !SETTINGS.contains(&key.as_str()) {
                    flatten(&format!("{path}.{key}"), value, found);
                }
            }
        }
        Value::Array(rows) => {
            for (i, row) in rows.iter().enumerate() {
                let step = match row.get("name").and_then(Value::as_str) {
                    Some(name) => name.to_string(),
                    None => i.to_string(),
                };
                flatten(&format!("{path}.{step}"), row, found);
            }
        }
        Value::String(_) | Value::Bool(_) => {}
    }
}

/// Whether the measure `name` matches `pattern`, in which `*` stands for
/// any run of characters (`classes.*.mean_response`).
pub fn matches(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// The names of the measures a run of `point` reports: they depend on the
/// scenario's shape (its stations, classes and sections), not on what
/// happens in the run, so a run of a single event tells them.
pub fn measure_names(point: &Point) -> Vec<String> {
    let mut scenario = point.scenario.clone();
    scenario.settings_mut().max_events = Some(1);
    measures(&scenario.run(0, |_| true).summary)
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}

/// The measures a batch shows and aims its precision at when none are
/// chosen: each class's throughput and mean response.
pub const DEFAULT_MEASURES: [&str; 2] = ["classes.*.throughput", "classes.*.mean_response"];

/// Where a batch's warm-ups came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum WarmupRule {
    /// The scenario's own `run.warmup`.
    Scenario,
    /// Chosen by MSER-5 at each point from this many pilot runs (see
    /// [`crate::warmup`]).
    Mser5 {
        /// The pilot runs per point.
        pilots: u64,
    },
}

/// `rule` with `warmup` as a sentence, for headings.
pub fn rule_sentence(rule: &Rule, warmup: WarmupRule) -> String {
    let replications = match *rule {
        Rule::Count(n) => format!("{n} replications at each point"),
        Rule::Precision {
            initial,
            precision:
                Precision {
                    relative_half_width,
                    max_replications,
                    ..
                },
        } => format!(
            "replications at each point ({initial} first) until every chosen measure's interval is within {}% of its mean, at most {max_replications}",
            crate::units::Figure(relative_half_width * 100.0)
        ),
    };
    match warmup {
        WarmupRule::Scenario => replications,
        WarmupRule::Mser5 { pilots } => {
            format!("{replications}, after a warm-up chosen by MSER-5 from {pilots} pilot runs")
        }
    }
}

/// One replication's results.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Replication {
    /// Its index.
    pub replication: u64,
    /// What ended the run.
    pub stopped_by: StoppedBy,
    /// Each measure's value (NaN where the run did not measure it), in
    /// the order of the point's measure names.
    pub values: Vec<f64>,
}

/// One point's replications.
#[derive(Clone, Debug, PartialEq)]
pub struct PointRuns {
    /// Each swept key's value here (empty for a plain batch).
    pub values: Vec<(String, String)>,
    /// The measures' names.
    pub measures: Vec<String>,
    /// The replications that finished, in order.
    pub replications: Vec<Replication>,
    /// What ended this point's replications (in a shard,
    /// [`Stop::OtherShard`] where it is wholly other shards' work).
    pub stopped_by: Stop,
    /// The warm-up of its replications \[s\]: the scenario's, or one
    /// chosen from the data (see [`crate::warmup`]).
    pub warmup: f64,
    /// The asymptotic bounds and MVA's solution at this point, where the
    /// scenario is a closed model MVA solves (a time-sharing system as if
    /// its memory were never short).
    pub reference: Option<Reference>,
}

/// The interval of one measure at one point.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeasureEstimate {
    /// The measure.
    pub measure: String,
    /// The replications that measured it.
    pub n: usize,
    /// The mean over them (`null` with none).
    pub mean: Option<f64>,
    /// Their standard deviation (`null` with fewer than two).
    pub sd: Option<f64>,
    /// Half the width of the Student-t interval (`null` with fewer than
    /// two).
    pub half_width: Option<f64>,
}

impl PointRuns {
    /// Every measure's estimate at confidence `level`.
    pub fn estimates(&self, level: f64) -> Vec<MeasureEstimate> {
        self.measures
            .iter()
            .enumerate()
            .map(|(m, name)| {
                let values: Vec<f64> = self
                    .replications
                    .iter()
                    .map(|r| r.values[m])
                    .filter(|x| !x.is_nan())
                    .collect();
                let e = Estimate::of(&values, level);
                MeasureEstimate {
                    measure: name.clone(),
                    n: e.n,
                    mean: (e.n > 0).then_some(e.mean),
                    sd: e.sd,
                    half_width: e.half_width,
                }
            })
            .collect()
    }
}

/// Runs `rule`'s replications of every point on `runner`, those of
/// `shard` only ([`Shard::WHOLE`] for all; a point that is wholly another
/// shard's work comes back with no replications, stopped by
/// `other_shard`). `chosen` are the patterns of the measures a precision
/// rule aims at; `done` is called after each replication; `going` is asked
/// during runs whether to go on (a run it stops is dropped, and the batch
/// ends, marked interrupted).
pub fn run(
    points: &[Point],
    rule: &Rule,
    shard: Shard,
    runner: &Runner,
    chosen: &[String],
    done: impl Fn() + Sync + Send,
    going: impl Fn() -> bool + Sync + Send,
) -> Vec<PointRuns> {
    let seed = points.first().map_or(0, |p| p.scenario.settings().seed);
    let replicate = |point: &Point, streams: tpsim_core::Streams| {
        // Once stopped, the replications still queued end without starting.
        if !going() {
            return None;
        }
        let run = point.scenario.run(streams.replication(), |_| going());
        done();
        (run.summary.stopped_by != StoppedBy::Interrupted).then(|| Finished {
            replication: streams.replication(),
            stopped_by: run.summary.stopped_by,
            found: measures(&run.summary),
        })
    };
    let aimed_at = |run: &Finished| {
        run.found
            .iter()
            .filter(|(name, _)| chosen.iter().any(|p| matches(p, name)))
            .map(|&(_, x)| x)
            .collect()
    };
    let batches = runner.replicate_shard(seed, points, rule, shard, replicate, aimed_at);
    points
        .iter()
        .zip(batches)
        .map(|(point, batch)| {
            let measures = batch
                .runs
                .first()
                .map(|run| run.found.iter().map(|(n, _)| n.clone()).collect())
                .unwrap_or_default();
            let replications = batch
                .runs
                .into_iter()
                .map(|run| Replication {
                    replication: run.replication,
                    stopped_by: run.stopped_by,
                    values: run.found.into_iter().map(|(_, x)| x).collect(),
                })
                .collect();
            PointRuns {
                values: point.values.clone(),
                measures,
                replications,
                stopped_by: batch.stopped_by,
                warmup: point.scenario.settings().warmup.as_secs_f64(),
                reference: ClosedModel::of_scenario(&point.scenario)
                    .ok()
                    .map(|m| m.reference()),
            }
        })
        .collect()
}

/// A replication that ran to its end, with its measures by name.
struct Finished {
    replication: u64,
    stopped_by: StoppedBy,
    found: Vec<(String, f64)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::tests::MM1;
    use crate::sweep::{Setting, points};
    use tpsim_core::replicate::Precision;

    fn sweep(args: &[&str]) -> Vec<Point> {
        let settings: Vec<Setting> = args.iter().map(|a| Setting::parse(a).unwrap()).collect();
        points("mm1.toml", MM1, &settings).unwrap()
    }

    #[test]
    fn every_number_a_run_measures_is_a_measure_and_nothing_else_is() {
        let run = sweep(&[])[0].scenario.run(0, |_| true);
        let found = measures(&run.summary);
        let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
        for expected in [
            "events",
            "stations.server.utilization",
            "stations.server.mean_wait",
            "stations.server.completions",
            "classes.jobs.mean_response",
            "classes.jobs.response_p75",
        ] {
            assert!(
                names.contains(&expected),
                "{expected} missing from {names:?}"
            );
        }
        for left_out in [
            "seed",
            "replication",
            "wall_seconds",
            "sim_time",
            "warmup",
            "classes.jobs.mean_response_ci95",
            "classes.jobs.name",
            "stations.server.discipline",
        ] {
            assert!(
                !names.iter().any(|n| n.starts_with(left_out)),
                "{left_out} in {names:?}"
            );
        }
        let value = |name: &str| found.iter().find(|(n, _)| n == name).unwrap().1;
        assert_eq!(
            value("stations.server.utilization"),
            run.summary.stations[0].utilization
        );
        assert_eq!(value("events"), run.summary.events as f64);
        // A null is a missing value.
        let mut empty = run.summary.clone();
        empty.classes[0].mean_response = None;
        let missing = measures(&empty);
        assert!(
            missing
                .iter()
                .find(|(n, _)| n == "classes.jobs.mean_response")
                .unwrap()
                .1
                .is_nan()
        );
        assert_eq!(missing.len(), found.len());
    }

    #[test]
    fn patterns_match_any_run_of_characters_at_a_star() {
        assert!(matches(
            "classes.*.mean_response",
            "classes.edit.mean_response"
        ));
        assert!(matches(
            "classes.*.mean_response",
            "classes.a.b.mean_response"
        ));
        assert!(!matches(
            "classes.*.mean_response",
            "classes.edit.mean_response_ci95"
        ));
        assert!(!matches(
            "classes.*.mean_response",
            "stations.edit.mean_response"
        ));
        assert!(matches("*", "anything"));
        assert!(matches("events", "events"));
        assert!(!matches("events", "events2"));
        assert!(matches("*.utilization", "stations.cpu.utilization"));
        assert!(matches("stations.*.*", "stations.cpu.x"));
        assert!(!matches("stations.*.*x", "stations.cpu.y"));
        assert!(matches("*cpu*", "stations.cpu.y"));
        assert!(!matches("a*b*c", "ab"));
    }

    #[test]
    fn a_batch_is_the_same_on_any_number_of_threads_and_replicates_every_point() {
        let points = sweep(&["class[jobs].arrivals.exp.rate=0.3/s,0.6/s"]);
        let chosen = vec!["classes.*.mean_response".to_string()];
        let batch = |threads, rule: &Rule| {
            let runner = Runner::new(threads).unwrap();
            let counted = std::sync::atomic::AtomicU64::new(0);
            let runs = run(
                &points,
                rule,
                Shard::WHOLE,
                &runner,
                &chosen,
                || {
                    counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                },
                || true,
            );
            (runs, counted.into_inner())
        };
        let (one, ran) = batch(1, &Rule::Count(4));
        let (two, _) = batch(2, &Rule::Count(4));
        assert_eq!(one, two);
        assert_eq!(ran, 8);
        assert_eq!(
            one[1].values,
            vec![(
                "class[jobs].arrivals.exp.rate".to_string(),
                "0.6/s".to_string()
            )]
        );
        assert!(
            one.iter()
                .all(|p| p.stopped_by == Stop::Count && p.replications.len() == 4)
        );
        assert_eq!(
            one[0]
                .replications
                .iter()
                .map(|r| r.replication)
                .collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
        // Replication 2 of the second point is that point's run on the streams of 2.
        let alone = measures(&points[1].scenario.run(2, |_| true).summary);
        assert_eq!(
            one[1].replications[2].values,
            alone.iter().map(|(_, x)| x).copied().collect::<Vec<_>>()
        );
        let estimates = one[1].estimates(0.95);
        let response = estimates
            .iter()
            .find(|e| e.measure == "classes.jobs.mean_response")
            .unwrap();
        let values: Vec<f64> = one[1]
            .replications
            .iter()
            .map(|r| {
                r.values[one[1]
                    .measures
                    .iter()
                    .position(|m| m == "classes.jobs.mean_response")
                    .unwrap()]
            })
            .collect();
        let e = Estimate::of(&values, 0.95);
        assert_eq!(
            (response.n, response.mean, response.half_width),
            (4, Some(e.mean), e.half_width)
        );
        // The heavier point needs more replications for the same precision.
        let precise = Rule::Precision {
            initial: 4,
            precision: Precision {
                relative_half_width: 0.03,
                level: 0.95,
                max_replications: 200,
            },
        };
        let (sequential, _) = batch(2, &precise);
        assert!(sequential.iter().all(|p| p.stopped_by == Stop::Precision));
        assert!(sequential[1].replications.len() > sequential[0].replications.len());
        // Interrupted: nothing finishes, and the batch says so.
        let runner = Runner::new(2).unwrap();
        let stopped = run(
            &points,
            &Rule::Count(3),
            Shard::WHOLE,
            &runner,
            &chosen,
            || {},
            || false,
        );
        assert!(stopped.iter().all(|p| p.stopped_by == Stop::Interrupted
            && p.replications.is_empty()
            && p.measures.is_empty()));
    }
}
