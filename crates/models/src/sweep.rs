//! Sweeps: a scenario run over values of its own keys.
//!
//! A [`Setting`] names a key by its path in the scenario file and the
//! values to give it, as `tpsim sweep --set KEY=VALUES` writes it:
//!
//! - a path is dotted table names, as in the file: `users.terminals`,
//!   `memory.size`, `system.quantum`, `users.think.exp.mean`; an element
//!   of an array of tables is picked by its `name` or by its position:
//!   `class[cc].size`, `device[0].rate`. A key the file leaves out (to
//!   take its default) may be set too.
//! - values are a comma-separated list (`256KiB,512KiB,1MiB`), each a TOML
//!   value (`16`, `0.5`, `true`, `{ exp = { mean = "5s" } }`) or else
//!   taken as a string (`512KiB`, `100ms`, `paging`); or an inclusive
//!   range `START..END` of integers, or `START..END:STEP`, whose bounds may
//!   carry a unit (`256KiB..1024KiB:256KiB`, `0.1..0.5:0.1`).
//!
//! [`points`] takes the settings' product (the last setting varying
//! fastest) and reads every point as a scenario of its own, so the
//! scenario's validation applies at every point, and a point it refuses is
//! reported with its values before anything runs.
//!
//! [`settle`] makes settings of one value each, as `tpsim run`, `check`,
//! `batch` and `compare` take them (`--set KEY=VALUE`): the same paths and
//! values, the same validation, one scenario. It exists so that a value
//! that differs from machine to machine or from study to study need not
//! be edited into the file.

use crate::scenario::{Scenario, ScenarioError};
use std::fmt;
use thiserror::Error;

/// The most points a sweep may have.
pub const MAX_POINTS: usize = 100_000;

/// Why a sweep could not be set up.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum SweepError {
    /// A `KEY=VALUES` argument that cannot be read.
    #[error("--set {arg}: {message}")]
    Setting {
        /// The argument as given.
        arg: String,
        /// What is wrong with it.
        message: String,
    },
    /// A scenario file that is not TOML.
    #[error("{0}")]
    Scenario(ScenarioError),
    /// A point the scenario's validation refuses.
    #[error("at {point}: {error}")]
    Point {
        /// The point's values, `key=value, ...`.
        point: String,
        /// What validation found.
        error: ScenarioError,
    },
    /// Too many points.
    #[error("the sweep has {0} points; at most {MAX_POINTS} are allowed")]
    TooManyPoints(usize),
    /// Settings of one value each (see [`settle`]) that make a scenario
    /// its validation refuses.
    #[error("--set {settings}: {error}")]
    Settled {
        /// The settings, `key=value --set key=value ...`.
        settings: String,
        /// What validation found.
        error: ScenarioError,
    },
}

/// One key of a sweep and its values.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    /// The key's path, as given.
    pub key: String,
    path: Vec<Segment>,
    /// The values, in order.
    pub values: Vec<toml::Value>,
}

/// One step of a key's path: a table key, and for an array of tables which
/// element.
#[derive(Clone, Debug, PartialEq)]
struct Segment {
    key: String,
    pick: Option<Pick>,
}

#[derive(Clone, Debug, PartialEq)]
enum Pick {
    Position(usize),
    Name(String),
}

impl Setting {
    /// Reads `KEY=VALUES`.
    pub fn parse(arg: &str) -> Result<Setting, SweepError> {
        let fail = |message: String| SweepError::Setting {
            arg: arg.to_string(),
            message,
        };
        let (key, values) = arg
            .split_once('=')
            .ok_or_else(|| fail("expected KEY=VALUES, such as users.terminals=1..40".into()))?;
        let key = key.trim();
        let path = key
            .split('.')
            .map(Segment::parse)
            .collect::<Result<Vec<_>, _>>()
            .map_err(fail)?;
        let values = parse_values(values.trim()).map_err(fail)?;
        Ok(Setting {
            key: key.to_string(),
            path,
            values,
        })
    }
}

impl Segment {
    fn parse(text: &str) -> Result<Segment, String> {
        let bad = || format!("`{text}` is not a key: expected a name, or name[element]");
        let (key, pick) = match text.split_once('[') {
            None => (text, None),
            Some((key, rest)) => {
                let inner = rest.strip_suffix(']').ok_or_else(bad)?;
                if inner.is_empty() {
                    return Err(bad());
                }
                let pick = match inner.parse::<usize>() {
                    Ok(i) => Pick::Position(i),
                    Err(_) => Pick::Name(inner.to_string()),
                };
                (key, Some(pick))
            }
        };
        let plain = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
        if key.is_empty() || !key.chars().all(plain) {
            return Err(bad());
        }
        Ok(Segment {
            key: key.to_string(),
            pick,
        })
    }
}

/// Splits `text` at the commas outside brackets, braces and quotes.
fn split_list(text: &str) -> Vec<&str> {
    let (mut depth, mut quote, mut start) = (0i32, None, 0);
    let mut items = Vec::new();
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '{') => depth += 1,
            (None, ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                items.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&text[start..]);
    items
}

fn parse_values(text: &str) -> Result<Vec<toml::Value>, String> {
    let mut values = Vec::new();
    for item in split_list(text) {
        let item = item.trim();
        if item.is_empty() {
            return Err("an empty value in the list".into());
        }
        match item.split_once("..") {
            Some((start, end)) if !item.starts_with(['"', '\'', '{', '[']) => {
                values.extend(parse_range(start.trim(), end.trim())?);
            }
            _ => values.push(parse_value(item)),
        }
        if values.len() > MAX_POINTS {
            return Err(format!("more than {MAX_POINTS} values"));
        }
    }
    Ok(values)
}

/// A value as TOML reads it on the right of `=`, else as a string.
fn parse_value(item: &str) -> toml::Value {
    toml::from_str::<toml::Table>(&format!("v = {item}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(item.to_string()))
}

/// A number as written, with the unit after it and its decimal places.
struct Bound<'a> {
    number: f64,
    unit: &'a str,
    decimals: usize,
}

impl<'a> Bound<'a> {
    fn parse(text: &'a str, what: &str) -> Result<Bound<'a>, String> {
        let split = text
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
            .unwrap_or(text.len());
        let (digits, unit) = text.split_at(split);
        let number: f64 = digits
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite())
            .ok_or_else(|| format!("the range's {what} `{text}` is not a number"))?;
        let decimals = digits.split_once('.').map_or(0, |(_, d)| d.len());
        Ok(Bound {
            number,
            unit: unit.trim(),
            decimals,
        })
    }
}

fn parse_range(start: &str, rest: &str) -> Result<Vec<toml::Value>, String> {
    let (end, step) = match rest.split_once(':') {
        Some((end, step)) => (end.trim(), Some(step.trim())),
        None => (rest, None),
    };
    let start = Bound::parse(start, "start")?;
    let end = Bound::parse(end, "end")?;
    let step = match step {
        Some(step) => Bound::parse(step, "step")?,
        None => Bound {
            number: 1.0,
            unit: start.unit,
            decimals: 0,
        },
    };
    if end.unit != start.unit || step.unit != start.unit {
        return Err(format!(
            "a range's start, end and step take one unit, got `{}`, `{}` and `{}`",
            start.unit, end.unit, step.unit
        ));
    }
    if step.number <= 0.0 {
        return Err("a range's step must be greater than 0".into());
    }
    if end.number < start.number {
        return Err(format!(
            "the range from {} to {} is empty",
            crate::units::Figure(start.number),
            crate::units::Figure(end.number)
        ));
    }
    let count = ((end.number - start.number) / step.number + 1e-9).floor() + 1.0;
    if count > MAX_POINTS as f64 {
        return Err(format!("the range has more than {MAX_POINTS} values"));
    }
    let decimals = start.decimals.max(end.decimals).max(step.decimals);
    let integers = decimals == 0 && start.unit.is_empty();
    Ok((0..count as u64)
        .map(|i| {
            let x = start.number + i as f64 * step.number;
            if integers {
                toml::Value::Integer(x.round() as i64)
            } else if start.unit.is_empty() {
                toml::Value::Float(format!("{x:.decimals$}").parse().expect("a number"))
            } else {
                toml::Value::String(format!("{x:.decimals$}{}", start.unit))
            }
        })
        .collect())
}

/// One point of a sweep: its values and the scenario they give.
#[derive(Clone, Debug)]
pub struct Point {
    /// Each setting's key and its value here, as text.
    pub values: Vec<(String, String)>,
    /// The scenario at this point, validated.
    pub scenario: Scenario,
}

impl Point {
    /// `key=value, key=value`.
    pub fn label(&self) -> String {
        label(&self.values)
    }
}

fn label(values: &[(String, String)]) -> String {
    values
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A value as a point shows it: strings without their quotes, numbers
/// as they read back exactly but with a power of ten for the very large
/// and very small (`1e300`, not three hundred digits).
pub fn show(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => s.clone(),
        toml::Value::Float(x) if x.is_finite() => format!("{x:?}"),
        other => other.to_string(),
    }
}

/// Every point of the sweep of the scenario `text` (read from `file`) over
/// `settings`, in order, each validated; with no settings, the scenario
/// itself as the one point.
pub fn points(file: &str, text: &str, settings: &[Setting]) -> Result<Vec<Point>, SweepError> {
    let table: toml::Table = crate::scenario::read(file, text).map_err(SweepError::Scenario)?;
    let total = settings
        .iter()
        .try_fold(1usize, |n, s| n.checked_mul(s.values.len()))
        .unwrap_or(usize::MAX);
    if total > MAX_POINTS {
        return Err(SweepError::TooManyPoints(total));
    }
    distinct(&table, settings)?;
    let mut points = Vec::with_capacity(total);
    for i in 0..total {
        // The last setting varies fastest.
        let mut rest = i;
        let mut chosen = vec![0; settings.len()];
        for (s, setting) in settings.iter().enumerate().rev() {
            chosen[s] = rest % setting.values.len();
            rest /= setting.values.len();
        }
        points.push(point(file, &table, settings, &chosen)?.0);
    }
    Ok(points)
}

/// A scenario with settings of one value each made in it.
#[derive(Clone, Debug)]
pub struct Settled {
    /// The scenario, validated.
    pub scenario: Scenario,
    /// Its text: the file's own without settings, else the file's table
    /// with the settings made, as TOML (the same on every machine, so a
    /// fingerprint of it tells scenarios apart).
    pub text: String,
}

/// The scenario `text` (read from `file`) with each of `settings` given
/// its one value, validated: what `--set KEY=VALUE` makes of a scenario
/// for a command that runs or checks one. Without settings, the file as
/// it is. A setting of more than one value is refused (a sweep runs
/// those), and so is a key the scenario does not have, naming the key and
/// `file`.
pub fn settle(file: &str, text: &str, settings: &[Setting]) -> Result<Settled, SweepError> {
    if settings.is_empty() {
        let scenario = crate::load(file, text).map_err(SweepError::Scenario)?;
        return Ok(Settled {
            scenario,
            text: text.to_string(),
        });
    }
    if let Some(setting) = settings.iter().find(|s| s.values.len() != 1) {
        return Err(SweepError::Setting {
            arg: format!("{}=...", setting.key),
            message: format!(
                "{file}: {} values, and a key takes one here (`tpsim sweep` runs a scenario at each of several)",
                setting.values.len()
            ),
        });
    }
    let table: toml::Table = crate::scenario::read(file, text).map_err(SweepError::Scenario)?;
    distinct(&table, settings)?;
    let (point, text) =
        point(file, &table, settings, &vec![0; settings.len()]).map_err(|e| match e {
            SweepError::Point { error, .. } => SweepError::Settled {
                settings: settings
                    .iter()
                    .map(|s| format!("{}={}", s.key, show(&s.values[0])))
                    .collect::<Vec<_>>()
                    .join(" --set "),
                error,
            },
            SweepError::Setting { arg, message } => SweepError::Setting {
                arg,
                message: format!("{file}: {message}"),
            },
            other => other,
        })?;
    Ok(Settled {
        scenario: point.scenario,
        text,
    })
}

/// Refuses two of `settings` that set one key of `table`, however each
/// names it.
fn distinct(table: &toml::Table, settings: &[Setting]) -> Result<(), SweepError> {
    let resolved: Vec<Vec<String>> = settings.iter().map(|s| resolve(table, &s.path)).collect();
    for (i, path) in resolved.iter().enumerate() {
        if let Some(j) =
            (0..i).find(|&j| path.starts_with(&resolved[j]) || resolved[j].starts_with(path))
        {
            return Err(SweepError::Setting {
                arg: format!("{}=...", settings[i].key),
                message: format!(
                    "sets the same key as --set {}=...; give each key once, with all its values",
                    settings[j].key
                ),
            });
        }
    }
    Ok(())
}

/// The point of `table` (read from `file`) where each of `settings` takes
/// its value numbered in `chosen`, validated, and its text.
fn point(
    file: &str,
    table: &toml::Table,
    settings: &[Setting],
    chosen: &[usize],
) -> Result<(Point, String), SweepError> {
    let mut at = table.clone();
    let mut values = Vec::with_capacity(settings.len());
    for (setting, &v) in settings.iter().zip(chosen) {
        let value = &setting.values[v];
        set(&mut at, &setting.path, value.clone()).map_err(|message| SweepError::Setting {
            arg: format!("{}=...", setting.key),
            message,
        })?;
        values.push((setting.key.clone(), show(value)));
    }
    let text = toml::to_string(&at).expect("a TOML table always serialises");
    let scenario = crate::load(file, &text).map_err(|error| SweepError::Point {
        point: label(&values),
        error: plain(error),
    })?;
    Ok((Point { values, scenario }, text))
}

/// A syntax error in a point's text without the excerpt of that text (it
/// is not the user's file): the key and what is wrong, such as
/// "users.terminalz: is not a key here; the keys here are terminals,
/// think, ...", on the first line, or for an error of the TOML itself the
/// parser's last line.
fn plain(error: ScenarioError) -> ScenarioError {
    match error {
        ScenarioError::Syntax { file, message } => {
            let lines: Vec<&str> = message.lines().filter(|l| !l.trim().is_empty()).collect();
            let line = match lines.first() {
                Some(first) if !first.starts_with("TOML parse error") => first,
                _ => lines.last().unwrap_or(&""),
            };
            let message = line.to_string();
            ScenarioError::Syntax { file, message }
        }
        invalid => invalid,
    }
}

/// The steps of `path` in `table` with every element named by its
/// position (`class[cc]` as `class[2]`), so that two paths to the same key
/// compare equal; an element not found keeps the name it was given.
fn resolve(table: &toml::Table, path: &[Segment]) -> Vec<String> {
    let mut here = Some(table);
    path.iter()
        .map(|segment| {
            let entry = here.and_then(|t| t.get(&segment.key));
            let (step, next) = match &segment.pick {
                None => (segment.key.clone(), entry),
                Some(pick) => {
                    let items = entry.and_then(toml::Value::as_array);
                    let position = match pick {
                        Pick::Position(i) => Some(*i),
                        Pick::Name(name) => items.and_then(|items| {
                            items.iter().position(|i| {
                                i.get("name").and_then(toml::Value::as_str) == Some(name.as_str())
                            })
                        }),
                    };
                    let step = match (position, pick) {
                        (Some(i), _) => format!("{}[{i}]", segment.key),
                        (None, Pick::Name(name)) => format!("{}[{name}]", segment.key),
                        (None, Pick::Position(i)) => format!("{}[{i}]", segment.key),
                    };
                    (
                        step,
                        items.zip(position).and_then(|(items, i)| items.get(i)),
                    )
                }
            };
            here = next.and_then(toml::Value::as_table);
            step
        })
        .collect()
}

/// Sets the key at `path` in `table` to `value`, making the tables on the
/// way that the file leaves out.
fn set(table: &mut toml::Table, path: &[Segment], value: toml::Value) -> Result<(), String> {
    let (last, ancestors) = path.split_last().expect("a path has a segment");
    let mut here = table;
    for (depth, segment) in ancestors.iter().enumerate() {
        let shown = Shown(&path[..=depth]);
        let entry = here
            .entry(segment.key.clone())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        let entry = match &segment.pick {
            None => entry,
            Some(pick) => element(entry, pick, &shown)?,
        };
        here = match entry {
            toml::Value::Table(t) => t,
            _ => return Err(format!("`{shown}` is a value, not a table")),
        };
    }
    match &last.pick {
        None => {
            if matches!(here.get(&last.key), Some(toml::Value::Table(_)))
                && !matches!(value, toml::Value::Table(_))
            {
                return Err(format!(
                    "`{}` is a table; give a key inside it, or an inline table",
                    Shown(path)
                ));
            }
            here.insert(last.key.clone(), value);
        }
        Some(pick) => {
            let entry = here
                .get_mut(&last.key)
                .ok_or_else(|| format!("the scenario has no `{}`", last.key))?;
            *element(entry, pick, &Shown(path))? = value;
        }
    }
    Ok(())
}

/// The element of the array `entry` that `pick` names.
fn element<'v>(
    entry: &'v mut toml::Value,
    pick: &Pick,
    shown: &Shown<'_>,
) -> Result<&'v mut toml::Value, String> {
    let toml::Value::Array(items) = entry else {
        return Err(format!(
            "`{shown}`: not an array of tables, so it has no elements"
        ));
    };
    let len = items.len();
    let names: Vec<String> = items
        .iter()
        .filter_map(|i| {
            i.get("name")
                .and_then(toml::Value::as_str)
                .map(str::to_string)
        })
        .collect();
    let found = match pick {
        Pick::Position(i) => items.get_mut(*i),
        Pick::Name(name) => items
            .iter_mut()
            .find(|i| i.get("name").and_then(toml::Value::as_str) == Some(name.as_str())),
    };
    found.ok_or_else(|| match pick {
        Pick::Position(i) => {
            format!("`{shown}`: there are {len} elements, numbered from 0; no {i}")
        }
        Pick::Name(name) => format!(
            "`{shown}`: none is named {name}; the names are {}",
            names.join(", ")
        ),
    })
}

/// A path as the user wrote it, for messages.
struct Shown<'a>(&'a [Segment]);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            f.write_str(&s.key)?;
            match &s.pick {
                None => {}
                Some(Pick::Position(p)) => write!(f, "[{p}]")?,
                Some(Pick::Name(n)) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use toml::Value;

    /// A short M/M/1 scenario, for the sweep's and the batch's tests.
    pub(crate) const MM1: &str = r#"
        name = "mm1"
        [run]
        end_time = "2000s"
        warmup = "100s"
        [[class]]
        name = "jobs"
        arrivals = { exp = { rate = "0.5/s" } }
        start = "server"
        [[station]]
        name = "server"
        discipline = "fcfs"
        service = { exp = { mean = "1s" } }
        to = "exit"
    "#;

    fn values(arg: &str) -> Vec<Value> {
        Setting::parse(arg).unwrap().values
    }

    fn strings(items: &[&str]) -> Vec<Value> {
        items.iter().map(|s| Value::String(s.to_string())).collect()
    }

    fn refused(arg: &str) -> String {
        Setting::parse(arg).unwrap_err().to_string()
    }

    #[test]
    fn a_key_set_twice_is_refused_however_it_is_named() {
        for (a, b) in [
            ("run.end_time=1000s,3000s", "run.end_time=2000s"),
            (
                "class[jobs].arrivals.exp.rate=0.3/s,0.6/s",
                "class[0].arrivals.exp.rate=0.4/s",
            ),
            (
                "station[server].service={ exp = { mean = \"0.5s\" } }",
                "station[0].service.exp.mean=0.8s",
            ),
        ] {
            let e = sweep(&[a, b]).unwrap_err().to_string();
            let first = a.split_once('=').unwrap().0;
            assert!(
                e.contains(&format!("sets the same key as --set {first}=...")),
                "{a} {b}: {e}"
            );
        }
        assert!(
            sweep(&[
                "class[jobs].arrivals.exp.rate=0.3/s",
                "station[0].service.exp.mean=0.8s"
            ])
            .is_ok()
        );
    }

    #[test]
    fn values_are_lists_and_ranges() {
        assert_eq!(
            values("users.terminals=1..4"),
            (1..=4).map(Value::Integer).collect::<Vec<_>>()
        );
        assert_eq!(
            values("k=2..11:3"),
            [2, 5, 8, 11].map(Value::Integer).to_vec()
        );
        assert_eq!(
            values("k=0.1..0.5:0.1"),
            [0.1, 0.2, 0.3, 0.4, 0.5].map(Value::Float).to_vec()
        );
        assert_eq!(
            values("memory.size=256KiB..1024KiB:256KiB"),
            strings(&["256KiB", "512KiB", "768KiB", "1024KiB"])
        );
        assert_eq!(values("k=256KiB, 1MiB"), strings(&["256KiB", "1MiB"]));
        assert_eq!(
            values("k=1,2.5,true,\"a,b\""),
            vec![
                Value::Integer(1),
                Value::Float(2.5),
                Value::Boolean(true),
                Value::String("a,b".into())
            ]
        );
        let inline = values("users.think={ exp = { mean = \"5s\" } },{ det = { value = \"1s\" } }");
        assert_eq!(inline.len(), 2);
        assert_eq!(inline[0]["exp"]["mean"].as_str(), Some("5s"));
        assert_eq!(values("k=3..3"), vec![Value::Integer(3)]);
    }

    #[test]
    fn bad_settings_say_what_is_wrong() {
        assert!(refused("users.terminals").contains("expected KEY=VALUES"));
        assert!(refused("k=5..1").contains("is empty"));
        assert!(refused("k=1..5:0").contains("step must be greater than 0"));
        assert!(refused("k=1..5:-1").contains("step must be greater than 0"));
        assert!(refused("k=1KiB..4MiB").contains("one unit"));
        assert!(refused("k=a..b").contains("not a number"));
        assert!(refused("k=1,,2").contains("empty value"));
        assert!(refused("k=").contains("empty value"));
        assert!(refused("users..terminals=1").contains("not a key"));
        assert!(refused("class[].size=1").contains("not a key"));
        assert!(refused("class[x.size=1").contains("not a key"));
        assert!(refused("k=1..1000000").contains("more than"));
    }

    #[test]
    fn extreme_values_are_shown_as_a_person_writes_them() {
        for (value, shown) in [("1e300", "1e300"), ("1e-300", "1e-300")] {
            let e = sweep_error(&[&format!("station[server].service.exp.rate={value}")]);
            assert!(
                e.starts_with(&format!("at station[server].service.exp.rate={shown}: ")),
                "{e}"
            );
            assert!(!e.contains("00000000000000000000"), "{e}");
        }
        let big = sweep_error(&["run.end_time=1e300"]);
        assert!(
            big.contains("run.end_time: must be a duration > 0 and at most 10000000000 s"),
            "{big}"
        );
        assert!(!big.contains("00000000000000000000"), "{big}");
    }

    fn sweep(args: &[&str]) -> Result<Vec<Point>, SweepError> {
        let settings: Vec<Setting> = args.iter().map(|a| Setting::parse(a).unwrap()).collect();
        points("mm1.toml", MM1, &settings)
    }

    fn network(point: &Point) -> &crate::Network {
        match &point.scenario {
            Scenario::Network(n) => n,
            Scenario::System(_) => panic!("a network"),
        }
    }

    #[test]
    fn points_are_the_product_with_the_last_key_fastest() {
        let points = sweep(&[
            "run.end_time=1000s,3000s",
            "station[server].service.exp.mean=0.5s..0.9s:0.2s",
        ])
        .unwrap();
        assert_eq!(points.len(), 6);
        assert_eq!(
            points[1].label(),
            "run.end_time=1000s, station[server].service.exp.mean=0.7s"
        );
        assert_eq!(
            points[3].label(),
            "run.end_time=3000s, station[server].service.exp.mean=0.5s"
        );
        assert_eq!(network(&points[4]).settings.end_time.as_secs_f64(), 3000.0);
        // The scenario's own file is the one point of an empty sweep.
        let plain = sweep(&[]).unwrap();
        assert_eq!((plain.len(), plain[0].label()), (1, String::new()));
        assert_eq!(network(&plain[0]).settings.end_time.as_secs_f64(), 2000.0);
    }

    #[test]
    fn keys_the_file_leaves_out_and_elements_by_position_can_be_set() {
        let points = sweep(&["run.max_events=10,20", "class[0].arrivals.exp.rate=0.25/s"]).unwrap();
        assert_eq!(network(&points[1]).settings.max_events, Some(20));
        let seeded = sweep(&["seed=5"]).unwrap();
        assert_eq!(network(&seeded[0]).settings.seed, 5);
    }

    fn settled(args: &[&str]) -> Result<Settled, SweepError> {
        let settings: Vec<Setting> = args.iter().map(|a| Setting::parse(a).unwrap()).collect();
        settle("mm1.toml", MM1, &settings)
    }

    #[test]
    fn settings_of_one_value_each_make_one_scenario() {
        let made = settled(&["run.end_time=500s", "class[jobs].arrivals.exp.rate=0.25/s"]).unwrap();
        let Scenario::Network(net) = &made.scenario else {
            panic!("a network")
        };
        assert_eq!(net.settings.end_time.as_secs_f64(), 500.0);
        // The text is the scenario made: read back, the same settings.
        let again = crate::load("mm1.toml", &made.text).unwrap();
        assert_eq!(again.settings().end_time, net.settings.end_time);
        // Other values, another text; no settings, the file's own.
        let other = settled(&["run.end_time=600s"]).unwrap();
        assert_ne!(other.text, made.text);
        let plain = settled(&[]).unwrap();
        assert_eq!(plain.text, MM1);
        assert_eq!(plain.scenario.settings().end_time.as_secs_f64(), 2000.0);
        let seeded = settled(&["seed=7"]).unwrap();
        assert_eq!(seeded.scenario.settings().seed, 7);
    }

    #[test]
    fn a_setting_that_cannot_be_made_names_its_key_and_the_file() {
        let error = |args: &[&str]| settled(args).unwrap_err().to_string();
        let unknown = error(&["run.end_time=500s", "run.end_tim=5s"]);
        assert!(
            unknown.starts_with(
                "--set run.end_time=500s --set run.end_tim=5s: mm1.toml: run.end_tim: is not a key here"
            ),
            "{unknown}"
        );
        let no_such = error(&["station[disk].service.exp.mean=1s"]);
        assert_eq!(
            no_such,
            "--set station[disk].service.exp.mean=...: mm1.toml: `station[disk]`: none is named disk; the names are server"
        );
        let several = error(&["run.end_time=1000s,3000s"]);
        assert!(
            several.starts_with(
                "--set run.end_time=...: mm1.toml: 2 values, and a key takes one here"
            ),
            "{several}"
        );
        let twice = error(&["seed=1", "seed=2"]);
        assert!(twice.contains("sets the same key as --set seed"), "{twice}");
        let refused = error(&["run.end_time=50s"]);
        assert!(
            refused.starts_with("--set run.end_time=50s: mm1.toml: run.warmup"),
            "{refused}"
        );
    }

    fn sweep_error(args: &[&str]) -> String {
        sweep(args).unwrap_err().to_string()
    }

    #[test]
    fn a_key_or_value_the_scenario_refuses_is_reported_with_its_point() {
        let unknown = sweep_error(&["run.end_tim=5s"]);
        assert!(
            unknown.starts_with("at run.end_tim=5s: mm1.toml: run.end_tim: is not a key here"),
            "{unknown}"
        );
        assert!(
            unknown.contains("the keys here are end_time, warmup") && !unknown.contains('|'),
            "{unknown}"
        );
        let refused = sweep_error(&["run.end_time=3000s,50s"]);
        assert!(
            refused.starts_with("at run.end_time=50s: mm1.toml: run.warmup"),
            "{refused}"
        );
        let no_such = sweep_error(&["station[disk].service.exp.mean=1s"]);
        assert!(
            no_such.contains("`station[disk]`: none is named disk; the names are server"),
            "{no_such}"
        );
        let beyond = sweep_error(&["station[3].to=exit"]);
        assert!(
            beyond.contains("there are 1 elements, numbered from 0; no 3"),
            "{beyond}"
        );
        let table = sweep_error(&["run=5"]);
        assert!(table.contains("`run` is a table"), "{table}");
        let value = sweep_error(&["name.x=5"]);
        assert!(value.contains("`name` is a value, not a table"), "{value}");
        let not_array = sweep_error(&["run[0].end_time=5s"]);
        assert!(not_array.contains("not an array of tables"), "{not_array}");
        assert!(matches!(
            points("x.toml", "a = ", &[]),
            Err(SweepError::Scenario(_))
        ));
        let many: Vec<Setting> = (0..3)
            .map(|_| Setting::parse("seed=1..100").unwrap())
            .collect();
        assert_eq!(
            points("mm1.toml", MM1, &many).unwrap_err(),
            SweepError::TooManyPoints(1_000_000)
        );
    }
}
