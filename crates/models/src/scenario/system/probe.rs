//! `[probe]`: the terminal probe and its benchmarks, mirrored and
//! validated.

use crate::scenario::Validator;
use crate::system::{DAY, MOST_WORKERS, Probe, ProbeScript, Program, Ramp};
use crate::units::{Figure, Seconds};
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use std::fmt;
use tpsim_core::SimTime;

use super::DurationSpec;
use super::classes::{CommandClassFile, class_index};

/// A program run as a command (a benchmark of the probe, or a program a
/// script runs): a class's name, or a table naming the class and fixing
/// the program's processor demand or the programs it runs.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ProgramFile {
    pub class: String,
    /// Processor time, in place of a draw from the class.
    pub cpu: Option<Seconds>,
    /// Millions of instructions, in place of a draw from the class.
    pub instructions: Option<f64>,
    /// The programs it runs in turn, in place of its class's `runs`.
    pub runs: Option<Vec<ProgramFile>>,
    /// What a benchmark's observations are called, if not its class's
    /// name.
    pub name: Option<String>,
}

/// `{ class = "...", cpu = "5s" }`, `{ class = "...", instructions = 2.5 }`
/// or `{ class = "...", runs = [...] }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProgramTable {
    class: String,
    #[serde(default)]
    cpu: Option<Seconds>,
    #[serde(default)]
    instructions: Option<f64>,
    #[serde(default)]
    runs: Option<Vec<ProgramFile>>,
    #[serde(default)]
    name: Option<String>,
}

impl<'de> Deserialize<'de> for ProgramFile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ProgramVisitor;
        impl<'de> Visitor<'de> for ProgramVisitor {
            type Value = ProgramFile;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a class's name, or a table such as { class = \"man\", instructions = 2.5 }",
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ProgramFile, E> {
                Ok(ProgramFile {
                    class: v.to_string(),
                    cpu: None,
                    instructions: None,
                    runs: None,
                    name: None,
                })
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<ProgramFile, A::Error> {
                let t = ProgramTable::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(ProgramFile {
                    class: t.class,
                    cpu: t.cpu,
                    instructions: t.instructions,
                    runs: t.runs,
                    name: t.name,
                })
            }
        }
        d.deserialize_any(ProgramVisitor)
    }
}

/// `[probe]`: the terminal probe.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProbeFile {
    /// The benchmarks, command classes run in turn.
    pub benchmarks: Vec<ProgramFile>,
    /// The sleep between cycles.
    pub sleep: DurationSpec,
    /// The part of the day in which cycles start (default all day).
    #[serde(default)]
    pub window: Option<WindowFile>,
    /// The `time` command's resolution (default exact).
    #[serde(default)]
    pub resolution: Option<Seconds>,
    /// Run as the study's shell script (default: each benchmark run
    /// directly).
    #[serde(default)]
    pub script: Option<ProbeScriptFile>,
    /// A load ramp, as `tpsim probe --ramp` runs one (default none).
    #[serde(default)]
    pub ramp: Option<RampFile>,
}

/// `probe.ramp = { class, workers, hold }`: workers of a class started
/// and stopped in steps, as `tpsim probe --ramp` does on a host.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct RampFile {
    pub class: String,
    pub workers: Vec<u32>,
    pub hold: Seconds,
}

/// `probe.script = { shell, time }`: the classes of the probe's shell and
/// of `time`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProbeScriptFile {
    pub shell: String,
    pub time: String,
}

/// `probe.window`: times of day.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct WindowFile {
    pub from: Seconds,
    pub to: Seconds,
}

/// What programs are read against: the classes, the speed instructions
/// are turned into time at, and the lists of programs that programs run
/// (`System::run_lists`), gathered as they are read.
pub(super) struct Programs<'a> {
    pub classes: &'a [CommandClassFile],
    pub mips: Option<f64>,
    pub lists: &'a mut Vec<Vec<Program>>,
}

/// A program: its class, and the fixed demand or the programs it may
/// give, these added to the run lists. `key` names it in messages,
/// `list` the list it is in.
pub(super) fn program(
    v: &mut Validator,
    f: &ProgramFile,
    list: &str,
    cx: &mut Programs<'_>,
) -> Option<Program> {
    let (classes, mips) = (cx.classes, cx.mips);
    let key = format!("{list}[{}]", f.class);
    let class = class_index(v, classes, &f.class, list);
    let runs = match &f.runs {
        None => Some(None),
        Some(programs) => {
            let runs_key = format!("{key}.runs");
            if programs.is_empty() {
                v.report(
                    &runs_key,
                    "an empty list: name the programs it runs, or leave `runs` out for its class's",
                );
            }
            if let Some(c) = class
                && !classes[c].files.is_empty()
            {
                v.report(
                    &runs_key,
                    format!(
                        "class {} reads and writes files: a script does so through its programs, so give the files to the classes it runs",
                        f.class
                    ),
                );
            }
            let programs: Vec<_> = programs
                .iter()
                .map(|p| unnamed(v, p, &runs_key, cx))
                .collect();
            programs
                .into_iter()
                .collect::<Option<Vec<_>>>()
                .filter(|p| !p.is_empty())
                .map(|p| {
                    cx.lists.push(p);
                    Some(cx.lists.len() - 1)
                })
        }
    };
    let demand = match (f.cpu, f.instructions) {
        (None, None) => Some(None),
        (Some(cpu), None) => v.time(cpu, &format!("{key}.cpu"), true).map(Some),
        (None, Some(i)) if i.is_finite() && i >= 0.0 => match mips {
            Some(mips) => v
                .computed_time(Seconds(i / mips), &format!("{key}.instructions"), true)
                .map(Some),
            // A speed given but refused is reported under its own key.
            None if v.has_problem("system.mips") => None,
            None => {
                v.report(
                    format!("{key}.instructions"),
                    "needs system.mips to turn instructions into time",
                );
                None
            }
        },
        (None, Some(i)) => {
            v.report(
                format!("{key}.instructions"),
                format!("must be a number >= 0, got {}", Figure(i)),
            );
            None
        }
        (Some(_), Some(_)) => {
            v.report(
                &key,
                "give at most one of `cpu` (time) and `instructions` (millions)",
            );
            None
        }
    };
    if let (Some(class), Some(Some(_))) = (class, demand)
        && (!classes[class].runs.is_empty() || f.runs.is_some())
    {
        v.report(
            &key,
            format!(
                "class {} is a script (it has `runs`): its time is its programs', so fix their demands in its `runs` instead",
                f.class
            ),
        );
        return None;
    }
    Some(Program {
        class: class?,
        demand: demand?,
        runs: runs?,
    })
}

/// A program of a script's `runs`: refused a `name`, which only a
/// benchmark's observations go by.
pub(super) fn unnamed(
    v: &mut Validator,
    f: &ProgramFile,
    list: &str,
    cx: &mut Programs<'_>,
) -> Option<Program> {
    if f.name.is_some() {
        v.report(
            format!("{list}[{}].name", f.class),
            "names a benchmark's observations: a program a script runs is not observed, so give it no name",
        );
    }
    program(v, f, list, cx)
}

pub(super) fn probe(
    v: &mut Validator,
    f: &ProbeFile,
    classes: &[CommandClassFile],
    mips: Option<f64>,
    day_start: SimTime,
    lists: &mut Vec<Vec<Program>>,
) -> Option<Probe> {
    if f.benchmarks.is_empty() {
        v.report("probe.benchmarks", "must name at least one [[class]]");
    }
    let benchmarks: Vec<Option<Program>> = f
        .benchmarks
        .iter()
        .map(|b| {
            let mut cx = Programs {
                classes,
                mips,
                lists: &mut *lists,
            };
            program(v, b, "probe.benchmarks", &mut cx)
        })
        .collect();
    let names: Vec<String> = f
        .benchmarks
        .iter()
        .map(|b| b.name.clone().unwrap_or_else(|| b.class.clone()))
        .collect();
    for (b, name) in f.benchmarks.iter().zip(&names) {
        if let Err(why) = crate::names::check(name) {
            v.report(format!("probe.benchmarks[{}].name", b.class), why);
        }
    }
    let script = f.script.as_ref().map(|s| {
        let shell = class_index(v, classes, &s.shell, "probe.script.shell");
        let time = class_index(v, classes, &s.time, "probe.script.time");
        Some(ProbeScript {
            shell: shell?,
            time: time?,
        })
    });
    let sleep = f.sleep.build(v, "probe.sleep");
    if let Some(s) = &sleep
        && s.mean() <= 0.0
    {
        v.report(
            "probe.sleep",
            "must have a mean above 0: the probe would measure without pause",
        );
    }
    let window = match &f.window {
        None => Some(None),
        Some(w) => {
            let from = v.time(w.from, "probe.window.from", true);
            let to = v.time(w.to, "probe.window.to", false);
            match (from, to) {
                (Some(from), Some(to)) if from < to && to <= DAY => Some(Some((from, to))),
                (Some(from), Some(to)) => {
                    let (from, to) = (Figure(from.as_secs_f64()), Figure(to.as_secs_f64()));
                    let (key, problem) = if to.0 > DAY.as_secs_f64() {
                        (
                            "probe.window.to",
                            format!("must be within the day, at most 86400 s (24h), got {to} s"),
                        )
                    } else {
                        (
                            "probe.window",
                            format!(
                                "must end after it starts: from {from} s is not before to {to} s"
                            ),
                        )
                    };
                    v.report(key, problem);
                    None
                }
                _ => None,
            }
        }
    };
    let resolution = match f.resolution {
        None => Some(None),
        Some(r) => v.time(r, "probe.resolution", false).map(Some),
    };
    let ramp = match &f.ramp {
        None => Some(None),
        Some(r) => ramp(v, r, classes).map(Some),
    };
    if !v.problems.is_empty() {
        return None;
    }
    Some(Probe {
        benchmarks: benchmarks.into_iter().collect::<Option<_>>()?,
        names,
        script: script.map_or(Some(None), |s| s.map(Some))?,
        sleep: sleep?,
        window: window?,
        resolution: resolution?,
        ramp: ramp?,
        day_start,
    })
}

/// `probe.ramp`: its workers' class (a script is refused: a worker is one
/// process), its steps and how long each is held.
fn ramp(v: &mut Validator, f: &RampFile, classes: &[CommandClassFile]) -> Option<Ramp> {
    let class = class_index(v, classes, &f.class, "probe.ramp.class");
    if let Some(c) = class
        && !classes[c].runs.is_empty()
    {
        v.report(
            "probe.ramp.class",
            format!(
                "class {} is a script (it has `runs`): a worker is one process looping",
                f.class
            ),
        );
    }
    if f.workers.is_empty() {
        v.report(
            "probe.ramp.workers",
            "must give at least one step, such as [0, 2, 4]",
        );
    }
    if let Some(n) = f.workers.iter().find(|&&n| n > MOST_WORKERS) {
        v.report(
            "probe.ramp.workers",
            format!("{n} workers in a step; at most {MOST_WORKERS}"),
        );
    }
    let hold = v.time(f.hold, "probe.ramp.hold", false);
    if v.has_problem("probe.ramp.class")
        || v.has_problem("probe.ramp.workers")
        || v.has_problem("probe.ramp.hold")
    {
        return None;
    }
    Some(Ramp {
        class: class?,
        workers: f.workers.clone(),
        hold: hold?,
    })
}
