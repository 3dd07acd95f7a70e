//! Shards: one batch or sweep cut into slices that run on several machines
//! (the tasks of a Slurm job array, the jobs of GNU parallel) and merged
//! back into exactly the batch one machine would have run.
//!
//! A shard runs the jobs its [`Shard`] owns (see
//! [`tpsim_core::replicate::Shard`]: under a fixed count, every `n`th
//! replication of the batch; under a precision rule, every `n`th point) and
//! writes a [`Record`]: its replications, every value at full precision,
//! under the [`Identity`] of the batch (scenario, seed, a fingerprint of the
//! scenario's text, swept keys, rule, level and chosen measures). [`merge`]
//! checks that a set of records are the shards of one batch, each exactly
//! once, and puts their replications back in order. Each replication ran on
//! the streams it would have had in the whole batch, so the merged values
//! are the whole batch's, bit for bit, and so are the estimates and files
//! made from them.

use crate::analytic::Reference;
use crate::batch::{PointRuns, Replication, WarmupRule, rule_sentence};
use crate::summary::StoppedBy;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use thiserror::Error;
use tpsim_core::replicate::{Rule, Shard, Stop};

/// The `format` of the records this version writes and reads (2: the rule
/// and the warm-up recorded as fields, no longer as a sentence).
pub const FORMAT: &str = "tpsim-shard-2";

/// What makes two shards parts of the same batch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Identity {
    /// The scenario's name.
    pub scenario: String,
    /// The master seed.
    pub seed: u64,
    /// The [`fingerprint`] of the scenario's text, as the batch read it.
    pub fingerprint: String,
    /// The swept keys (none for a plain batch).
    pub keys: Vec<String>,
    /// The replication rule.
    pub rule: Rule,
    /// Where the warm-ups came from.
    pub warmup: WarmupRule,
    /// The confidence level of the intervals.
    pub level: f64,
    /// The patterns of the chosen measures.
    pub measures: Vec<String>,
    /// How many points the whole batch has.
    pub points: usize,
}

/// What one shard ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// [`FORMAT`].
    pub format: String,
    /// Which shard (`I/N` in the file).
    pub shard: Shard,
    /// The batch it is part of.
    pub batch: Identity,
    /// The points it ran replications of, in order.
    pub points: Vec<RecordPoint>,
}

/// One point's replications in one shard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordPoint {
    /// The point's place in the sweep, from 0.
    pub point: usize,
    /// Each swept key's value there.
    pub values: Vec<(String, String)>,
    /// The measures' names (empty when no replication finished here).
    pub measures: Vec<String>,
    /// What ended its replications in this shard.
    pub stopped_by: Stop,
    /// The warm-up of its replications \[s\].
    pub warmup: f64,
    /// The closed model's bounds and MVA solution there, if it has one.
    pub reference: Option<Reference>,
    /// The replications this shard ran.
    pub replications: Vec<RecordReplication>,
}

/// One replication, every measure's value exact (`null` where the run did
/// not measure it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordReplication {
    /// Its index.
    pub replication: u64,
    /// What ended the run.
    pub stopped_by: StoppedBy,
    /// The measures' values, in the order of the point's names.
    pub values: Vec<Option<f64>>,
}

impl Identity {
    /// The replication rule and the warm-ups' source as a sentence, for
    /// headings.
    pub fn rule_sentence(&self) -> String {
        rule_sentence(&self.rule, self.warmup)
    }
}

impl Record {
    /// The record in `text`, read from `file`: its format is checked
    /// before anything else, so that a record of another version is told
    /// so rather than which field it lacks.
    pub fn read(file: &str, text: &str) -> Result<Record, MergeError> {
        #[derive(Deserialize)]
        struct Format {
            format: String,
        }
        let unreadable = |e: serde_json::Error| MergeError::Unreadable {
            file: file.to_string(),
            message: e.to_string(),
        };
        let found = serde_json::from_str::<Format>(text)
            .map_err(unreadable)?
            .format;
        if found != FORMAT {
            return Err(MergeError::Format {
                file: file.to_string(),
                found,
            });
        }
        serde_json::from_str(text).map_err(unreadable)
    }

    /// The record of `shard`, whose run of the batch `batch` gave
    /// `results` (the points that are wholly other shards' work are left
    /// out).
    pub fn new(shard: Shard, batch: Identity, results: &[PointRuns]) -> Record {
        let points = results
            .iter()
            .enumerate()
            .filter(|(_, p)| p.stopped_by != Stop::OtherShard)
            .map(|(point, p)| RecordPoint {
                point,
                values: p.values.clone(),
                measures: p.measures.clone(),
                stopped_by: p.stopped_by,
                warmup: p.warmup,
                reference: p.reference.clone(),
                replications: p
                    .replications
                    .iter()
                    .map(|r| RecordReplication {
                        replication: r.replication,
                        stopped_by: r.stopped_by,
                        values: r
                            .values
                            .iter()
                            .map(|&x| (!x.is_nan()).then_some(x))
                            .collect(),
                    })
                    .collect(),
            })
            .collect();
        Record {
            format: FORMAT.to_string(),
            shard,
            batch,
            points,
        }
    }
}

/// A 64-bit FNV-1a hash of `text`, in hex: the same text gives the same
/// fingerprint on every machine and in every version of tpsim.
pub fn fingerprint(text: &str) -> String {
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{hash:016x}")
}

/// Why a set of records is not one whole batch.
#[derive(Debug, Error, PartialEq)]
pub enum MergeError {
    /// No records at all.
    #[error("no shards to merge")]
    Nothing,
    /// A record of another format or version.
    #[error(
        "{file}: not a shard record of this version of tpsim (format `{found}`, expected `{FORMAT}`)"
    )]
    Format {
        /// The record's file.
        file: String,
        /// Its format.
        found: String,
    },
    /// A file that is not a shard record.
    #[error("{file}: not a shard record: {message}")]
    Unreadable {
        /// The file.
        file: String,
        /// Why it cannot be read as one.
        message: String,
    },
    /// Records of different batches.
    #[error(
        "{file} and {first} are shards of different batches: their {what} differ ({this} against {that})"
    )]
    Different {
        /// A record's file.
        file: String,
        /// The first record's file.
        first: String,
        /// What differs.
        what: &'static str,
        /// It in `file`.
        this: String,
        /// It in `first`.
        that: String,
    },
    /// The same shard twice.
    #[error("{file} and {other} are both shard {shard}")]
    Twice {
        /// A record's file.
        file: String,
        /// The other's.
        other: String,
        /// The shard.
        shard: String,
    },
    /// Shards that were not given.
    #[error("shard{} {} of the batch {} missing", if .0.len() > 1 { "s" } else { "" }, .0.join(", "), if .0.len() > 1 { "are" } else { "is" })]
    Missing(Vec<String>),
    /// A record that contradicts itself or the others.
    #[error("{file}: {message}")]
    Damaged {
        /// The record's file.
        file: String,
        /// What is wrong.
        message: String,
    },
}

/// The whole batch the shards were cut from.
#[derive(Clone, Debug, PartialEq)]
pub struct Merged {
    /// The batch.
    pub batch: Identity,
    /// Every point's replications, as one machine would have run them.
    pub points: Vec<PointRuns>,
}

/// Merges `records` (each with the name of its file, for messages) into
/// the whole batch, or says why they are not all the shards of one batch.
pub fn merge(records: &[(String, Record)]) -> Result<Merged, MergeError> {
    let (first_file, first) = records.first().ok_or(MergeError::Nothing)?;
    let mut shards: BTreeMap<u64, &str> = BTreeMap::new();
    let mut count = None;
    for (file, record) in records {
        if record.format != FORMAT {
            return Err(MergeError::Format {
                file: file.clone(),
                found: record.format.clone(),
            });
        }
        let shard = record.shard;
        same_batch(file, &record.batch, first_file, &first.batch)?;
        let (n, n_file) = *count.get_or_insert((shard.count(), file));
        if shard.count() != n {
            return Err(MergeError::Different {
                file: file.clone(),
                first: n_file.clone(),
                what: "numbers of shards",
                this: shard.count().to_string(),
                that: n.to_string(),
            });
        }
        if let Some(other) = shards.insert(shard.index(), file) {
            return Err(MergeError::Twice {
                file: file.clone(),
                other: other.to_string(),
                shard: record.shard.to_string(),
            });
        }
    }
    let n = count.map_or(1, |(n, _)| n);
    let missing: Vec<String> = (1..=n)
        .filter(|i| !shards.contains_key(i))
        .map(|i| format!("{i}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(MergeError::Missing(missing));
    }
    let mut parts: Vec<Vec<(&str, &RecordPoint)>> = vec![Vec::new(); first.batch.points];
    for (file, record) in records {
        for p in &record.points {
            let damaged = |message: String| MergeError::Damaged {
                file: file.clone(),
                message,
            };
            let slot = parts.get_mut(p.point).ok_or_else(|| {
                damaged(format!(
                    "point {} is outside the batch's {} points",
                    p.point, first.batch.points
                ))
            })?;
            slot.push((file, p));
        }
    }
    let points = parts
        .into_iter()
        .enumerate()
        .map(|(point, parts)| merge_point(point, &parts, first_file))
        .collect::<Result<_, _>>()?;
    Ok(Merged {
        batch: first.batch.clone(),
        points,
    })
}

/// Checks that `batch` (of `file`) is `first` (of `first_file`).
fn same_batch(
    file: &str,
    batch: &Identity,
    first_file: &str,
    first: &Identity,
) -> Result<(), MergeError> {
    let differ = |what: &'static str, this: String, that: String| {
        Err(MergeError::Different {
            file: file.to_string(),
            first: first_file.to_string(),
            what,
            this,
            that,
        })
    };
    let list = |l: &[String]| format!("[{}]", l.join(", "));
    if batch.scenario != first.scenario {
        return differ("scenarios", batch.scenario.clone(), first.scenario.clone());
    }
    if batch.seed != first.seed {
        return differ("seeds", batch.seed.to_string(), first.seed.to_string());
    }
    if batch.keys != first.keys {
        return differ("swept keys", list(&batch.keys), list(&first.keys));
    }
    if batch.points != first.points {
        return differ(
            "numbers of points",
            batch.points.to_string(),
            first.points.to_string(),
        );
    }
    if (batch.rule, batch.warmup) != (first.rule, first.warmup) {
        return differ("rules", batch.rule_sentence(), first.rule_sentence());
    }
    if batch.level != first.level {
        return differ(
            "confidence levels",
            batch.level.to_string(),
            first.level.to_string(),
        );
    }
    if batch.measures != first.measures {
        return differ(
            "chosen measures",
            list(&batch.measures),
            list(&first.measures),
        );
    }
    if batch.fingerprint != first.fingerprint {
        return differ(
            "scenario files (fingerprints)",
            batch.fingerprint.clone(),
            first.fingerprint.clone(),
        );
    }
    Ok(())
}

/// One point's replications from every shard that ran some.
fn merge_point(
    point: usize,
    parts: &[(&str, &RecordPoint)],
    first_file: &str,
) -> Result<PointRuns, MergeError> {
    let Some(&(_, model)) = parts.first() else {
        return Err(MergeError::Damaged {
            file: first_file.to_string(),
            message: format!("no shard ran point {point}"),
        });
    };
    let mut replications = Vec::new();
    let mut measures: Option<&Vec<String>> = None;
    let mut stopped_by = None;
    for &(file, p) in parts {
        let damaged = |message: String| MergeError::Damaged {
            file: file.to_string(),
            message: format!("point {point}: {message}"),
        };
        if (&p.values, &p.reference, p.warmup) != (&model.values, &model.reference, model.warmup) {
            return Err(damaged(
                "its swept values, warm-up or reference differ from another shard's".into(),
            ));
        }
        let stop = p.stopped_by;
        if stop == Stop::OtherShard {
            return Err(damaged(format!(
                "`{}` cannot end a point's replications",
                stop.name()
            )));
        }
        stopped_by = match (stopped_by, stop) {
            (Some(Stop::Interrupted), _) | (_, Stop::Interrupted) => Some(Stop::Interrupted),
            (_, stop) => Some(stop),
        };
        // Every shard that ran a replication here names the same measures.
        if !p.replications.is_empty() {
            if measures.is_some_and(|m| *m != p.measures) {
                return Err(damaged("its measures differ from another shard's".into()));
            }
            measures = Some(&p.measures);
        }
        for r in &p.replications {
            if r.values.len() != p.measures.len() {
                return Err(damaged(format!(
                    "replication {} has {} values for {} measures",
                    r.replication,
                    r.values.len(),
                    p.measures.len()
                )));
            }
            replications.push(Replication {
                replication: r.replication,
                stopped_by: r.stopped_by,
                values: r.values.iter().map(|x| x.unwrap_or(f64::NAN)).collect(),
            });
        }
    }
    replications.sort_by_key(|r| r.replication);
    if let Some(w) = replications
        .windows(2)
        .find(|w| w[0].replication == w[1].replication)
    {
        return Err(MergeError::Damaged {
            file: first_file.to_string(),
            message: format!(
                "point {point}: replication {} was run by two shards",
                w[0].replication
            ),
        });
    }
    Ok(PointRuns {
        values: model.values.clone(),
        measures: measures.cloned().unwrap_or_default(),
        replications,
        stopped_by: stopped_by.unwrap_or(Stop::Count),
        warmup: model.warmup,
        reference: model.reference.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::run;
    use crate::sweep::tests::MM1;
    use crate::sweep::{Setting, points};
    use tpsim_core::replicate::{Precision, Rule, Runner};

    fn identity(points: usize) -> Identity {
        Identity {
            scenario: "M/M/1".into(),
            seed: 1,
            fingerprint: fingerprint(MM1),
            keys: vec!["class[jobs].arrivals.exp.rate".into()],
            rule: Rule::Count(3),
            warmup: WarmupRule::Scenario,
            level: 0.95,
            measures: vec!["classes.*.mean_response".into()],
            points,
        }
    }

    /// The whole batch and its `n` shards' records, under `rule`.
    fn batch(rule: &Rule, n: u64) -> (Vec<PointRuns>, Vec<(String, Record)>) {
        let setting = Setting::parse("class[jobs].arrivals.exp.rate=0.3/s,0.5/s,0.6/s").unwrap();
        let points = points("mm1.toml", MM1, &[setting]).unwrap();
        let runner = Runner::new(2).unwrap();
        let chosen = identity(0).measures;
        let go = |shard| run(&points, rule, shard, &runner, &chosen, || {}, || true);
        let records = (1..=n)
            .map(|i| {
                let shard = Shard::new(i, n).unwrap();
                let record = Record::new(shard, identity(points.len()), &go(shard));
                (format!("shard-{i}.json"), record)
            })
            .collect();
        (go(Shard::WHOLE), records)
    }

    #[test]
    fn merged_shards_are_the_whole_batch_through_their_files() {
        let sequential = Rule::Precision {
            initial: 3,
            precision: Precision {
                relative_half_width: 0.2,
                level: 0.95,
                max_replications: 12,
            },
        };
        for (rule, n) in [(Rule::Count(3), 4), (Rule::Count(2), 9), (sequential, 2)] {
            let (whole, records) = batch(&rule, n);
            // Through JSON and back, as the files carry them.
            let read: Vec<(String, Record)> = records
                .iter()
                .rev()
                .map(|(f, r)| {
                    let text = serde_json::to_string(r).unwrap();
                    (f.clone(), Record::read(f, &text).unwrap())
                })
                .collect();
            let merged = merge(&read).unwrap();
            assert_eq!(merged.points.len(), whole.len());
            for (m, w) in merged.points.iter().zip(&whole) {
                assert_eq!(
                    (&m.values, &m.measures, m.stopped_by, &m.reference, m.warmup),
                    (&w.values, &w.measures, w.stopped_by, &w.reference, w.warmup)
                );
                assert_eq!(m.replications.len(), w.replications.len(), "{rule:?}");
                for (a, b) in m.replications.iter().zip(&w.replications) {
                    assert_eq!((a.replication, a.stopped_by), (b.replication, b.stopped_by));
                    let bits =
                        |r: &Replication| r.values.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(a), bits(b), "{rule:?}, replication {}", a.replication);
                }
            }
        }
    }

    type Records = Vec<(String, Record)>;

    #[test]
    fn shards_of_different_batches_or_a_set_with_gaps_are_refused() {
        let (_, records) = batch(&Rule::Count(2), 3);
        let refused = |change: &dyn Fn(&mut Records)| {
            let mut r = records.clone();
            change(&mut r);
            merge(&r).unwrap_err().to_string()
        };
        assert_eq!(
            refused(&|r| r[1].1.batch.seed = 2),
            "shard-2.json and shard-1.json are shards of different batches: their seeds differ (2 against 1)"
        );
        assert!(
            refused(&|r| r[2].1.batch.warmup = WarmupRule::Mser5 { pilots: 10 })
                .contains("after a warm-up chosen by MSER-5 from 10 pilot runs against")
        );
        assert!(
            refused(&|r| r[2].1.batch.fingerprint = fingerprint("other"))
                .contains("scenario files")
        );
        assert!(
            refused(&|r| r[2].1.batch.rule = Rule::Count(5))
                .contains("their rules differ (5 replications at each point against 3")
        );
        assert!(
            refused(&|r| r[1].1.batch.keys.clear()).contains("their swept keys differ ([] against")
        );
        assert!(refused(&|r| r[1].1.batch.level = 0.9).contains("confidence levels"));
        assert!(refused(&|r| r[1].1.batch.measures.clear()).contains("chosen measures"));
        assert!(refused(&|r| r[1].1.batch.scenario = "M/M/2".into()).contains("scenarios"));
        assert_eq!(
            refused(&|r| r[1].1.shard = Shard::new(2, 4).unwrap()),
            "shard-2.json and shard-1.json are shards of different batches: their numbers of shards differ (4 against 3)"
        );
        assert_eq!(
            refused(&|r| r[2].1.shard = Shard::new(1, 3).unwrap()),
            "shard-3.json and shard-1.json are both shard 1/3"
        );
        assert_eq!(
            refused(&|r| {
                r.remove(1);
            }),
            "shard 2/3 of the batch is missing"
        );
        assert_eq!(
            refused(&|r| {
                r.truncate(1);
            }),
            "shards 2/3, 3/3 of the batch are missing"
        );
        assert!(
            refused(&|r| r[0].1.format = "tpsim-shard-0".into())
                .contains("not a shard record of this version")
        );
        assert!(
            refused(&|r| r[1].1.points[0].point = 7)
                .contains("point 7 is outside the batch's 3 points")
        );
        assert!(
            refused(&|r| r[1].1.points[0].replications[0].replication = 0)
                .contains("replication 0 was run by two shards")
        );
        assert!(
            refused(&|r| r[1].1.points[0].replications[0]
                .values
                .pop()
                .map_or((), drop))
            .contains("values for")
        );
        assert!(
            refused(&|r| r[1].1.points[0].stopped_by = Stop::OtherShard).contains("cannot end")
        );
        assert!(
            refused(&|r| r[1].1.points[0].values[0].1 = "9/s".into())
                .contains("swept values, warm-up or reference differ")
        );
        assert!(
            refused(&|r| r[1].1.points[0].measures[0] = "events".into())
                .contains("its measures differ from another shard's")
        );
        assert_eq!(merge(&[]).unwrap_err(), MergeError::Nothing);
    }

    #[test]
    fn a_record_is_read_format_first_and_its_shard_checked() {
        let (_, records) = batch(&Rule::Count(2), 3);
        let text = serde_json::to_string(&records[0].1).unwrap();
        assert_eq!(Record::read("s.json", &text).unwrap(), records[0].1);
        let read = |text: &str| Record::read("s.json", text).unwrap_err().to_string();
        assert!(
            read(&text.replace("\"shard\":\"1/3\"", "\"shard\":\"0/3\"")).starts_with(
                "s.json: not a shard record: shard `0/3`: shard 0 of 3 is out of range"
            )
        );
        // A record of the first format says so, not which field it lacks.
        let old = text.replace(FORMAT, "tpsim-shard-1").replace(
            "\"rule\":{\"count\":3}",
            "\"rule\":\"3 replications at each point\"",
        );
        assert_eq!(
            read(&old),
            "s.json: not a shard record of this version of tpsim (format `tpsim-shard-1`, expected `tpsim-shard-2`)"
        );
        assert!(read("[1, 2]").starts_with("s.json: not a shard record: "));
    }

    #[test]
    fn a_fingerprint_is_fnv_1a() {
        // The published test vectors of 64-bit FNV-1a.
        assert_eq!(fingerprint(""), "cbf29ce484222325");
        assert_eq!(fingerprint("a"), "af63dc4c8601ec8c");
        assert_eq!(fingerprint("foobar"), "85944171f73967e8");
    }
}
