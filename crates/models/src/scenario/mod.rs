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
                if r.0.is_finite() && r.0 > 0.0 {
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
    let table: toml::Table = toml::from_str(text).map_err(|e| syntax(file, text, &e))?;
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

pub(crate) fn syntax(file: &str, text: &str, e: &toml::de::Error) -> ScenarioError {
    let message = match e.span() {
        Some(span) if span.start <= text.len() && text.is_char_boundary(span.start) => {
            excerpt(text, span, e.message())
        }
        _ => e.message().trim_end().to_string(),
    };
    ScenarioError::Syntax {
        file: file.to_string(),
        message,
    }
}

/// The widest part of a line an error message shows \[characters\]: a
/// file that is one long line is not echoed whole.
const EXCERPT_WIDTH: usize = 120;

/// Where a syntax error is, as TOML's own messages show it (the line and
/// a caret under the place), with a line longer than [`EXCERPT_WIDTH`]
/// cut to that width around the place, `…` marking what is left out.
fn excerpt(text: &str, span: std::ops::Range<usize>, message: &str) -> String {
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
        "TOML parse error at line {line_no}, column {}\n{gutter} |\n{line_no} | {shown}\n{gutter} | {}{}\n{}",
        at + 1,
        " ".repeat(pad),
        "^".repeat(carets),
        message.trim_end()
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

    /// Checks that `name` can name something in reports: no control
    /// characters (a newline would break the tables and the CSV rows).
    pub(crate) fn printable_name(&mut self, key: &str, name: &str) {
        if name.chars().any(char::is_control) {
            self.report(
                key,
                format!("{name:?} has a control character (a newline, a tab): names must print on one line"),
            );
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

    pub(crate) fn time(&mut self, value: Seconds, key: &str, allow_zero: bool) -> Option<SimTime> {
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
            self.printable_name(&format!("{what}[{i}].name"), name);
            if name.is_empty() || name == "exit" {
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
        self.printable_name("name", name);
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
