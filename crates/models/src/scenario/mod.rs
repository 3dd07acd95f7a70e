//! Scenario files: the TOML mirror and its validation.
//!
//! Reading a scenario ([`load`], [`load_network`], [`load_system`]) takes
//! two steps. A mirror of the TOML, private to this crate, reads the file
//! exactly (`deny_unknown_fields`, so a misspelt key is an error, not a
//! silent default); validation then checks every value and
//! cross-reference, collects *all* problems with the key each belongs to,
//! and builds the validated [`Network`] or [`System`] that the simulator
//! runs. The mirror types are not part of the API: the format is, and it
//! is documented key by key in `docs/scenario-format.md`.
//!
//! This module holds what both kinds share: errors, distributions,
//! `[run]`, the validator's common checks and the entry points;
//! `network` reads queueing networks and `system` time-sharing systems.

mod network;
mod system;

use crate::network::Network;
use crate::run::{Run, RunSettings};
use crate::system::System;
use crate::units::{Figure, PerSecond, Seconds};
use network::NetworkFile;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use system::SystemFile;
use thiserror::Error;
use tpsim_core::{Dist, SimTime};

/// One problem in a scenario, with the key it belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The key path, such as `station[cpu].service.exp.mean`.
    pub key: String,
    /// What is wrong.
    pub message: String,
}

/// Why a scenario could not be used.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ScenarioError {
    /// The file is not valid TOML, or does not have the expected shape
    /// (unknown key, wrong type, missing key).
    #[error("{file}: {message}")]
    Syntax {
        /// The scenario file.
        file: String,
        /// The parser's message, naming the line and key.
        message: String,
    },
    /// The values are well-formed but inconsistent.
    #[error("{}", render_problems(.file, .problems))]
    Invalid {
        /// The scenario file.
        file: String,
        /// Every problem found.
        problems: Vec<Problem>,
    },
}

fn render_problems(file: &str, problems: &[Problem]) -> String {
    let lines: Vec<String> = problems
        .iter()
        .map(|p| format!("{file}: {}: {}", p.key, p.message))
        .collect();
    lines.join("\n")
}

/// A distribution of durations as written in a scenario, such as
/// `{ exp = { mean = "1s" } }`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
#[allow(missing_docs)]
pub(crate) enum DistSpec {
    /// Exponential, by `mean` or by `rate`.
    Exp {
        #[serde(default)]
        mean: Option<Seconds>,
        #[serde(default)]
        rate: Option<PerSecond>,
    },
    /// Always the same `value`.
    Det { value: Seconds },
    /// Uniform between `low` and `high`.
    Uniform { low: Seconds, high: Seconds },
    /// Erlang with `k` phases.
    Erlang { k: u32, mean: Seconds },
    /// Two-phase hyperexponential, balanced means.
    Hyperexp { mean: Seconds, scv: f64 },
    /// Lognormal by mean and squared coefficient of variation.
    Lognormal { mean: Seconds, scv: f64 },
    /// A discrete table of values and weights.
    Empirical {
        values: Vec<Seconds>,
        weights: Vec<f64>,
    },
}

impl DistSpec {
    /// Builds the distribution; a problem names `key`.
    pub fn build(&self, key: &str) -> Result<Dist, Problem> {
        let problem = |sub: &str, e: tpsim_core::DistError| Problem {
            key: format!("{key}.{sub}"),
            message: e.to_string(),
        };
        match self {
            DistSpec::Exp {
                mean: Some(m),
                rate: None,
            } => Dist::exponential(m.0).map_err(|e| problem("exp", e)),
            DistSpec::Exp {
                mean: None,
                rate: Some(r),
            } => {
                if r.0.is_finite() && r.0 > 0.0 && !(1.0 / r.0).is_finite() {
                    Err(Problem {
                        key: format!("{key}.exp.rate"),
                        message: format!(
                            "{} a second is too small a rate: its mean, 1/rate, is larger than any number",
                            Figure(r.0)
                        ),
                    })
                } else if r.0.is_finite() && r.0 > 0.0 {
                    Dist::exponential(1.0 / r.0).map_err(|e| problem("exp", e))
                } else {
                    Err(Problem {
                        key: format!("{key}.exp.rate"),
                        message: format!("rate must be a finite number > 0, got {}", Figure(r.0)),
                    })
                }
            }
            DistSpec::Exp { .. } => Err(Problem {
                key: format!("{key}.exp"),
                message: "give exactly one of `mean` and `rate`".into(),
            }),
            DistSpec::Det { value } => Dist::deterministic(value.0).map_err(|e| problem("det", e)),
            DistSpec::Uniform { low, high } => {
                Dist::uniform(low.0, high.0).map_err(|e| problem("uniform", e))
            }
            DistSpec::Erlang { k, mean } => {
                Dist::erlang(*k, mean.0).map_err(|e| problem("erlang", e))
            }
            DistSpec::Hyperexp { mean, scv } => {
                Dist::hyperexponential(mean.0, *scv).map_err(|e| problem("hyperexp", e))
            }
            DistSpec::Lognormal { mean, scv } => {
                Dist::lognormal(mean.0, *scv).map_err(|e| problem("lognormal", e))
            }
            DistSpec::Empirical { values, weights } => {
                Dist::empirical(values.iter().map(|v| v.0).collect(), weights.clone())
                    .map_err(|e| problem("empirical", e))
            }
        }
    }
}

/// `[run]`: how long to simulate.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct RunSpec {
    /// Simulated time at which the run ends.
    pub end_time: Seconds,
    /// Simulated time at which statistics are reset (default 0).
    #[serde(default)]
    pub warmup: Option<Seconds>,
    /// Stop after this many events, if the end time is not reached first.
    #[serde(default)]
    pub max_events: Option<u64>,
}

/// A validated scenario of either kind.
#[derive(Clone, Debug)]
pub enum Scenario {
    /// A queueing network: `[[class]]` and `[[station]]` tables.
    Network(Network),
    /// A time-sharing system: a scenario with a `[system]` table.
    System(Box<System>),
}

impl Scenario {
    /// Its name, seed and run length.
    pub fn settings(&self) -> &RunSettings {
        match self {
            Scenario::Network(n) => &n.settings,
            Scenario::System(s) => &s.settings,
        }
    }

    /// Its name, seed and run length, to change.
    pub fn settings_mut(&mut self) -> &mut RunSettings {
        match self {
            Scenario::Network(n) => &mut n.settings,
            Scenario::System(s) => &mut s.settings,
        }
    }

    /// Runs replication `replication` under the scenario's seed, calling
    /// `progress` as [`crate::simulate_with_progress`] does.
    pub fn run(&self, replication: u64, progress: impl FnMut(SimTime) -> bool) -> Run {
        match self {
            Scenario::Network(n) => {
                crate::simulate_with_progress(n, n.settings.seed, replication, progress)
            }
            Scenario::System(s) => {
                crate::system::simulate_with_progress(s, s.settings.seed, replication, progress)
            }
        }
    }
}

/// Reads, parses and validates a scenario of either kind from its text: a
/// time-sharing system if it has a `[system]` table, otherwise a queueing
/// network.
pub fn load(file: &str, text: &str) -> Result<Scenario, ScenarioError> {
    let table: toml::Table = read(file, text)?;
    if table.contains_key("system") {
        SystemFile::parse(file, text)?
            .validate(file)
            .map(|s| Scenario::System(Box::new(s)))
    } else {
        load_network(file, text).map(Scenario::Network)
    }
}

/// Reads, parses and validates a queueing-network scenario.
pub fn load_network(file: &str, text: &str) -> Result<Network, ScenarioError> {
    NetworkFile::parse(file, text)?.validate(file)
}

/// Reads, parses and validates a time-sharing scenario.
pub fn load_system(file: &str, text: &str) -> Result<System, ScenarioError> {
    SystemFile::parse(file, text)?.validate(file)
}

/// The keys that hold one table: `[run]`, not `[[run]]`. Serde would take
/// a list of tables for one (as the table's values in order) and say that
/// its first table is not a duration.
const ONE_TABLE: [&str; 9] = [
    "run",
    "system",
    "system.multics",
    "system.unix",
    "memory",
    "users",
    "users.login",
    "files",
    "probe",
];

/// Reads the text of `file` as `T`, every error with its key in the
/// user's words.
pub(crate) fn read<T: serde::de::DeserializeOwned>(
    file: &str,
    text: &str,
) -> Result<T, ScenarioError> {
    let table: toml::Table = crate::words::from_toml(text).map_err(|e| syntax(file, text, e))?;
    for key in ONE_TABLE {
        let mut at = Some(&table);
        let mut value = None;
        for part in key.split('.') {
            value = at.and_then(|t| t.get(part));
            at = value.and_then(toml::Value::as_table);
        }
        if let Some(toml::Value::Array(_)) = value {
            return Err(ScenarioError::Syntax {
                file: file.to_string(),
                message: format!(
                    "{key}: must be one table, [{key}], not a list of tables ([[{key}]])"
                ),
            });
        }
    }
    crate::words::from_toml(text).map_err(|e| syntax(file, text, e))
}

/// A scenario error from an error of reading its text: the key and what
/// is wrong with it, then where it is in the text.
pub(crate) fn syntax(file: &str, text: &str, e: crate::words::TomlError) -> ScenarioError {
    let place = |header: &str| match &e.span {
        Some(span) if span.start <= text.len() && text.is_char_boundary(span.start) => {
            Some(excerpt(text, span.clone(), header))
        }
        _ => None,
    };
    let message = match (&e.key, place("")) {
        (Some(key), Some(place)) => format!(
            "{key}: {}
{place}",
            e.message
        ),
        (Some(key), None) => format!("{key}: {}", e.message),
        (None, _) => match place("TOML parse error ") {
            Some(place) => format!("{place}\n{}", e.message),
            None => e.message.clone(),
        },
    };
    ScenarioError::Syntax {
        file: file.to_string(),
        message,
    }
}

/// The widest part of a line an error message shows \[characters\]: a
/// file that is one long line is not echoed whole.
const EXCERPT_WIDTH: usize = 120;

/// Where an error is, as TOML's own messages show it (the line and a
/// caret under the place), with a line longer than [`EXCERPT_WIDTH`] cut
/// to that width around the place, `…` marking what is left out.
fn excerpt(text: &str, span: std::ops::Range<usize>, header: &str) -> String {
    let line_start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[span.start..]
        .find('\n')
        .map_or(text.len(), |i| span.start + i);
    let line_no = text[..span.start].matches('\n').count() + 1;
    let line: Vec<char> = text[line_start..line_end]
        .trim_end_matches('\r')
        .chars()
        .collect();
    let at = text[line_start..span.start].chars().count();
    let (from, to) = if line.len() <= EXCERPT_WIDTH {
        (0, line.len())
    } else {
        let from = at
            .saturating_sub(EXCERPT_WIDTH / 2)
            .min(line.len() - EXCERPT_WIDTH);
        (from, from + EXCERPT_WIDTH)
    };
    let mut shown = String::new();
    if from > 0 {
        shown.push('…');
    }
    shown.extend(&line[from..to]);
    if to < line.len() {
        shown.push('…');
    }
    let spanned = text
        .get(span.clone())
        .map_or(1, |s| s.chars().take_while(|&c| c != '\n').count());
    let carets = spanned.clamp(1, to.saturating_sub(at).max(1));
    let pad = at.saturating_sub(from) + usize::from(from > 0);
    let gutter = " ".repeat(line_no.to_string().len());
    format!(
        "{header}at line {line_no}, column {}\n{gutter} |\n{line_no} | {shown}\n{gutter} | {}{}",
        at + 1,
        " ".repeat(pad),
        "^".repeat(carets),
    )
}

/// The longest run time or duration setting a scenario may give \[s\].
pub(crate) const LONGEST_RUN: f64 = 10.0 * tpsim_core::LONGEST_SAMPLE;

/// The clock's tick \[s\].
const TICK: f64 = 1e-9;

/// The largest probability of a sample beyond the longest sample, and the
/// largest share of the second moment from such samples, accepted.
const TAIL_TOLERANCE: f64 = 1e-12;

/// The most jobs (terminals of closed classes) a network may hold.
pub(crate) const MOST_JOBS: u64 = 10_000_000;

#[derive(Default)]
pub(crate) struct Validator {
    pub(crate) problems: Vec<Problem>,
}

impl Validator {
    pub(crate) fn report(&mut self, key: impl fmt::Display, message: impl Into<String>) {
        self.problems.push(Problem {
            key: key.to_string(),
            message: message.into(),
        });
    }

    /// Whether a problem was reported under `key`: a check whose premise
    /// is that key's value is left out (an error would follow from the
    /// first, not from a fault of its own).
    pub(crate) fn has_problem(&self, key: &str) -> bool {
        self.problems.iter().any(|p| p.key == key)
    }

    /// Builds a distribution of durations, refusing one the clock cannot
    /// follow: a positive mean below its 1-ns tick (every sample would be 0)
    /// or a tail reaching past the longest sample (samples would be cut, so
    /// the run would draw from another distribution).
    pub(crate) fn dist(&mut self, spec: &DistSpec, key: &str) -> Option<Dist> {
        let dist = spec.build(key).map_err(|p| self.problems.push(p)).ok()?;
        let mean = dist.mean();
        if mean > 0.0 && mean < TICK {
            self.report(
                key,
                format!(
                    "a mean of {} ns is below the clock's tick of 1 ns: every sample would be 0",
                    Figure(mean * 1e9)
                ),
            );
            return None;
        }
        let bound = tpsim_core::LONGEST_SAMPLE;
        if dist.exceed_probability(bound) > TAIL_TOLERANCE
            || dist.tail_share(bound) > TAIL_TOLERANCE
        {
            self.report(
                key,
                format!(
                    "samples beyond {} s (about 31.7 years) would be cut short, so the run would not draw from {dist}: give a distribution with a lighter tail",
                    tpsim_core::LONGEST_SAMPLE
                ),
            );
            return None;
        }
        Some(dist)
    }

    /// Checks that `name` can name something in reports and keys
    /// ([`crate::names::check`]); `false` if it cannot.
    pub(crate) fn printable_name(&mut self, key: &str, name: &str) -> bool {
        match crate::names::check(name) {
            Ok(()) => true,
            Err(why) => {
                self.report(key, why);
                false
            }
        }
    }

    /// Checks that `count` things of which there are `what` fit in memory.
    pub(crate) fn population(&mut self, key: &str, count: u64, most: u64, what: &str) {
        if count > most {
            self.report(
                key,
                format!("{count} {what} is more than tpsim can hold in memory (at most {most})"),
            );
        }
    }

    /// A duration the scenario gives: a whole number of nanoseconds, the
    /// clock's tick (a part of a tick is refused, not rounded), from 0
    /// (where `allow_zero`) or 1 ns up to [`LONGEST_RUN`].
    pub(crate) fn time(&mut self, value: Seconds, key: &str, allow_zero: bool) -> Option<SimTime> {
        let ns = value.0 * 1e9;
        let whole = (ns - ns.round()).abs() <= 1e-6_f64.max(ns.abs() * 1e-12);
        if value.0.is_finite() && value.0 > 0.0 && value.0 <= LONGEST_RUN && !whole {
            let why = if ns < 1.0 {
                "is below the clock's tick of 1 ns"
            } else {
                "is not a whole number of nanoseconds, the clock's tick"
            };
            self.report(key, format!("{} ns {why}", Figure(ns)));
            return None;
        }
        self.computed_time(value, key, allow_zero)
    }

    /// A duration computed from the scenario's values (a block's copy at
    /// a rate, instructions at a speed): rounded to the clock's tick, and
    /// refused where it would round to 0.
    pub(crate) fn computed_time(
        &mut self,
        value: Seconds,
        key: &str,
        allow_zero: bool,
    ) -> Option<SimTime> {
        let ok = value.0.is_finite() && (value.0 > 0.0 || (allow_zero && value.0 == 0.0));
        if ok && value.0 > 0.0 && SimTime::from_secs_f64(value.0.min(LONGEST_RUN)) == SimTime::ZERO
        {
            self.report(
                key,
                format!(
                    "{} ns is below the clock's tick of 1 ns and would be 0",
                    Figure(value.0 * 1e9)
                ),
            );
            None
        } else if ok && value.0 <= LONGEST_RUN {
            Some(SimTime::from_secs_f64(value.0))
        } else {
            let bound = if allow_zero { ">= 0" } else { "> 0" };
            self.report(
                key,
                format!(
                    "must be a duration {bound} and at most {LONGEST_RUN} s (about 317 years), got {} s",
                    Figure(value.0)
                ),
            );
            None
        }
    }

    pub(crate) fn unique_names<'a>(&mut self, what: &str, names: impl Iterator<Item = &'a str>) {
        let mut seen = BTreeMap::new();
        for (i, name) in names.enumerate() {
            if !self.printable_name(&format!("{what}[{i}].name"), name) {
                continue;
            }
            if name == "exit" {
                self.report(
                    format!("{what}[{i}].name"),
                    format!("\"{name}\" cannot name a {what}"),
                );
            } else if let Some(first) = seen.insert(name, i) {
                self.report(
                    format!("{what}[{name}].name"),
                    format!("duplicate {what} name \"{name}\" (entries {first} and {i})"),
                );
            }
        }
    }

    pub(crate) fn settings(
        &mut self,
        name: &str,
        seed: Option<u64>,
        run: &RunSpec,
    ) -> Option<RunSettings> {
        let _ = self.printable_name("name", name);
        let end_time = self.time(run.end_time, "run.end_time", false);
        let warmup = match run.warmup {
            Some(w) => self.time(w, "run.warmup", true),
            None => Some(SimTime::ZERO),
        };
        if let (Some(end), Some(warm)) = (end_time, warmup)
            && warm >= end
        {
            self.report(
                "run.warmup",
                format!(
                    "must be shorter than run.end_time ({} s >= {} s)",
                    Figure(warm.as_secs_f64()),
                    Figure(end.as_secs_f64())
                ),
            );
        }
        if run.max_events == Some(0) {
            self.report(
                "run.max_events",
                "must be at least 1 (leave it out for no limit)",
            );
        }
        Some(RunSettings {
            name: name.to_string(),
            seed: seed.unwrap_or(1),
            end_time: end_time?,
            warmup: warmup?,
            max_events: run.max_events,
        })
    }
}
