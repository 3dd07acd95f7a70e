//! The time-sharing part of scenario reading: the TOML mirror of a
//! scenario with a `[system]` table, and its validation into a
//! [`System`]. Every problem is reported with its key, as for networks.
//!
//! One file per table, each holding its mirror beside its validation:
//! [`cpu`] (`[system]`), [`memory`], [`devices`], [`users`] (with
//! `[[background]]`), [`classes`], [`probe`] and [`files`]; this file holds the
//! scenario as a whole, `[run]`, and the checks that span tables.

mod classes;
mod cpu;
mod devices;
mod files;
mod memory;
mod probe;
#[cfg(test)]
mod tests;
mod users;

use super::{DistSpec, RunSpec, ScenarioError, Validator};
use crate::RunSettings;
use crate::system::{
    CommandClass, Cpu, Lifetime, Locality, Policy, Population, Probe, System, Users,
};
use crate::units::{Bytes, Figure, Seconds};
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use std::fmt;
use std::marker::PhantomData;
use tpsim_core::{Dist, SimTime};

use classes::{ClassContext, CommandClassFile, class};
use cpu::{CpuFile, cpu, processor_speed};
use devices::{DeviceFile, device};
use files::{DataFileFile, FilesFile};
use memory::{MemoryFile, memory, wanted_locality};
use probe::{ProbeFile, probe};
use users::{BackgroundFile, UsersFile, background, users};

/// A duration that is either fixed (`"30ms"`) or drawn from a distribution
/// (`{ uniform = { low = "10ms", high = "50ms" } }`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum DurationSpec {
    /// Always this long.
    Fixed(Seconds),
    /// Drawn from a distribution.
    Drawn(DistSpec),
}

impl DurationSpec {
    fn build(&self, v: &mut Validator, key: &str) -> Option<Dist> {
        match self {
            DurationSpec::Fixed(s) => v.dist(&DistSpec::Det { value: *s }, key),
            DurationSpec::Drawn(spec) => v.dist(spec, key),
        }
    }
}

impl<'de> Deserialize<'de> for DurationSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct DurationVisitor;
        impl<'de> Visitor<'de> for DurationVisitor {
            type Value = DurationSpec;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a duration such as \"30ms\", or a distribution such as { exp = { mean = \"30ms\" } }")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<DurationSpec, E> {
                crate::units::parse_duration(v)
                    .map(DurationSpec::Fixed)
                    .map_err(E::custom)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<DurationSpec, E> {
                Ok(DurationSpec::Fixed(Seconds(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<DurationSpec, E> {
                Ok(DurationSpec::Fixed(Seconds(v as f64)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<DurationSpec, E> {
                Ok(DurationSpec::Fixed(Seconds(v as f64)))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<DurationSpec, A::Error> {
                DistSpec::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(DurationSpec::Drawn)
            }
        }
        d.deserialize_any(DurationVisitor)
    }
}

/// One table or a list of them.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct OneOrMany<T>(pub Vec<T>);

impl<T> Default for OneOrMany<T> {
    fn default() -> Self {
        OneOrMany(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ListVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for ListVisitor<T> {
            type Value = OneOrMany<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a table or a list of tables")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<OneOrMany<T>, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|one| OneOrMany(vec![one]))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<OneOrMany<T>, A::Error> {
                Vec::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(OneOrMany)
            }
        }
        d.deserialize_any(ListVisitor(PhantomData))
    }
}

/// `[run]` of a time-sharing scenario.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct SystemRunFile {
    /// Simulated time at which the run ends.
    pub end_time: Seconds,
    /// Simulated time at which statistics are reset (default 0).
    #[serde(default)]
    pub warmup: Option<Seconds>,
    /// Stop after this many events.
    #[serde(default)]
    pub max_events: Option<u64>,
    /// Interval between samples of the load indices (default 60 s).
    #[serde(default)]
    pub load_interval: Option<Seconds>,
}

/// A time-sharing scenario, as written.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct SystemFile {
    /// The scenario's name.
    pub name: String,
    /// The master seed (default 1).
    #[serde(default)]
    pub seed: Option<u64>,
    /// Run length.
    pub run: SystemRunFile,
    /// Processors.
    pub system: CpuFile,
    /// Memory.
    pub memory: MemoryFile,
    /// Devices.
    #[serde(rename = "device")]
    pub devices: Vec<DeviceFile>,
    /// Users.
    pub users: UsersFile,
    /// Command classes.
    #[serde(rename = "class")]
    pub classes: Vec<CommandClassFile>,
    /// Background processes.
    #[serde(default, rename = "background")]
    pub background: Vec<BackgroundFile>,
    /// The terminal probe.
    #[serde(default)]
    pub probe: Option<ProbeFile>,
    /// The file system's buffer cache.
    #[serde(default)]
    pub files: Option<FilesFile>,
    /// Data files.
    #[serde(default, rename = "file")]
    pub data_files: Vec<DataFileFile>,
}

/// The most samples of the load indices a run may ask for.
const MOST_LOAD_SAMPLES: f64 = 1e6;

impl SystemFile {
    /// Parses the text of `file`.
    pub fn parse(file: &str, text: &str) -> Result<SystemFile, ScenarioError> {
        crate::scenario::read(file, text)
    }

    /// Checks everything and builds the system, reporting every problem.
    pub fn validate(&self, file: &str) -> Result<System, ScenarioError> {
        let mut v = Validator::default();
        let system = build(&mut v, self);
        match system {
            Some(system) if v.problems.is_empty() => Ok(system),
            _ => Err(ScenarioError::Invalid {
                file: file.to_string(),
                problems: v.problems,
            }),
        }
    }
}

/// `[run]` of a time-sharing scenario: the run's settings and the
/// interval of the load samples.
fn run(v: &mut Validator, f: &SystemFile) -> (Option<RunSettings>, Option<SimTime>) {
    let settings = v.settings(
        &f.name,
        f.seed,
        &RunSpec {
            end_time: f.run.end_time,
            warmup: f.run.warmup,
            max_events: f.run.max_events,
        },
    );
    let load_interval = v.time(
        f.run.load_interval.unwrap_or(Seconds(60.0)),
        "run.load_interval",
        false,
    );
    if let (Some(settings), Some(interval)) = (&settings, load_interval)
        && settings.end_time.as_secs_f64() / interval.as_secs_f64() > MOST_LOAD_SAMPLES
    {
        v.report(
            "run.load_interval",
            format!(
                "would take more than {MOST_LOAD_SAMPLES} samples over run.end_time; make it longer"
            ),
        );
    }
    (settings, load_interval)
}

/// Whether the devices, classes, background entries and data files have
/// names of their own, and there is a device and a class.
fn named(v: &mut Validator, f: &SystemFile) -> bool {
    let named = v.problems.len();
    v.unique_names("device", f.devices.iter().map(|d| d.name.as_str()));
    v.unique_names("class", f.classes.iter().map(|c| c.name.as_str()));
    v.unique_names("background", f.background.iter().map(|b| b.name.as_str()));
    v.unique_names("file", f.data_files.iter().map(|f| f.name.as_str()));
    if v.problems.len() > named {
        // Keys name elements by their names: with a name refused, they
        // would show it again, or point at the wrong element.
        return false;
    }
    if f.devices.is_empty() {
        v.report(
            "device",
            "a time-sharing scenario needs at least one [[device]]",
        );
    }
    if f.classes.is_empty() {
        v.report(
            "class",
            "a time-sharing scenario needs at least one [[class]]",
        );
    }
    true
}

/// Checks that a probe's ramp has workers that take processor time.
fn ramp_takes_time(
    v: &mut Validator,
    probe: Option<&Option<Probe>>,
    classes: &[Option<CommandClass>],
) {
    if let Some(Some(Probe {
        ramp: Some(ramp), ..
    })) = probe
        && let Some(Some(class)) = classes.get(ramp.class)
        && class.mean_demand() <= 0.0
    {
        v.report(
            "probe.ramp.class",
            format!(
                "class {} takes no processor time: a worker would loop without end at one instant",
                class.name
            ),
        );
    }
}

/// The processors' speed in MIPS: given, required when a class gives
/// instructions, else a nominal 1.
fn speed(v: &mut Validator, f: &SystemFile) -> Option<f64> {
    let uses_instructions = f.classes.iter().any(|c| c.instructions.is_some());
    match &f.system.mips {
        Some(m) => processor_speed(v, m),
        None if uses_instructions => {
            v.report(
                "system.mips",
                "is required when a class gives its demand in `instructions`",
            );
            None
        }
        None => Some(1.0),
    }
}

pub(super) fn build(v: &mut Validator, f: &SystemFile) -> Option<System> {
    let (settings, load_interval) = run(v, f);
    if !named(v, f) {
        return None;
    }
    let cpu = cpu(v, &f.system);
    let devices: Vec<_> = f.devices.iter().map(|d| device(v, d)).collect();
    let memory = memory(v, &f.memory, &f.devices);
    // Page counts of the classes' localities need the page size; a bad one
    // is reported under memory.page.
    let page = memory.as_ref().map(|m| m.page);
    let mips = speed(v, f);
    let mut run_lists = Vec::new();
    let classes: Vec<_> = f
        .classes
        .iter()
        .map(|c| {
            let data = ClassContext {
                devices: &f.devices,
                classes: &f.classes,
                files: &f.data_files,
                cache: f.files.is_some(),
                // As written: a [memory] that fails on its sizes still
                // says which policy it is.
                swapping: matches!(f.memory.policy, memory::PolicyFile::Swapping(_)),
            };
            class(
                v,
                c,
                mips,
                wanted_locality(&f.memory),
                page,
                &data,
                &mut run_lists,
            )
        })
        .collect();
    let users = users(v, &f.users, &f.classes);
    let background: Vec<_> = f
        .background
        .iter()
        .map(|b| background(v, b, &f.classes))
        .collect();
    let day_start = match &users {
        Some(Users {
            population: Population::Sessions(s),
            ..
        }) => SimTime::from_secs_f64(s.start_hour * 3600.0),
        _ => SimTime::ZERO,
    };
    let probe = f.probe.as_ref().map(|p| {
        probe(
            v,
            p,
            &f.classes,
            f.system.mips.as_ref().and(mips),
            day_start,
            &mut run_lists,
        )
    });
    ramp_takes_time(v, probe.as_ref(), &classes);
    let files = f
        .files
        .as_ref()
        .map(|files| files::files(v, files, memory.as_ref(), &f.data_files, &f.devices));
    if f.files.is_none() && !f.data_files.is_empty() {
        v.report(
            "file",
            "data files are read through the buffer cache: give a [files] table",
        );
    }
    if !v.problems.is_empty() {
        return None;
    }
    let system = System {
        settings: settings?,
        load_interval: load_interval?,
        cpu: Cpu {
            // Instructions-free scenarios run at a nominal 1 MIPS that is
            // not a speed of theirs.
            mips: f.system.mips.as_ref().and(mips),
            ..cpu?
        },
        memory: memory?,
        devices: devices.into_iter().collect::<Option<_>>()?,
        users: users?,
        classes: classes.into_iter().collect::<Option<_>>()?,
        run_lists,
        background: background.into_iter().collect::<Option<_>>()?,
        probe: probe.map_or(Some(None), |p| p.map(Some))?,
        files: files.map_or(Some(None), |f| f.map(Some))?,
    };
    cycles_take_time(v, &system);
    transfers_fit(v, &system);
    images_fit(v, &system);
    classes::scripts_end(v, &system);
    sweeps_fit(v, &system);
    files::programs_fit(v, &system);
    v.problems.is_empty().then_some(system)
}

/// Refuses a device so slow that it could not move one page within the
/// run: every process that needs it would wait for the whole run, and
/// the run would measure nothing.
fn transfers_fit(v: &mut Validator, sys: &System) {
    let end = sys.settings.end_time.as_secs_f64();
    let page = sys.memory.page as f64;
    for d in &sys.devices {
        let transfer = page / d.rate;
        if transfer > end {
            v.report(
                format!("device[{}].rate", d.name),
                format!(
                    "moves a page of {} bytes in {} s, longer than the run (run.end_time {} s): nothing could ever be read from it",
                    sys.memory.page,
                    Figure(transfer),
                    Figure(end)
                ),
            );
        }
    }
}

/// Under swapping, a process runs only with its whole image in memory:
/// refuses a shell, a benchmark, the probe script's shell or `time`, or a
/// program a script runs whose image is larger than user memory (or the
/// process limit). A user
/// whose shell could never run would never run a command; the probe or a
/// script would wait for ever. (A command typed that cannot fit is
/// counted as rejected instead.)
fn images_fit(v: &mut Validator, sys: &System) {
    if !matches!(sys.memory.policy, Policy::Swapping { .. }) {
        return;
    }
    let (largest, of) = sys.memory.largest_image();
    let mut check = |key: String, class: usize| {
        let size = sys.classes[class].size;
        if size > largest {
            v.report(
                key,
                format!(
                    "the image of {} ({size} bytes) is larger than {of} ({largest} bytes): under swapping it could never run",
                    sys.classes[class].name
                ),
            );
        }
    };
    if let Some(shell) = sys.users.shell {
        check("users.shell".into(), shell);
    }
    if let Some(probe) = &sys.probe {
        for b in &probe.benchmarks {
            check("probe.benchmarks".into(), b.class);
        }
        if let Some(script) = probe.script {
            check("probe.script.shell".into(), script.shell);
            check("probe.script.time".into(), script.time);
        }
    }
    for c in &sys.classes {
        for run in &c.runs {
            check(format!("class[{}].runs", c.name), run.class);
        }
    }
    // A program given with runs of its own, wherever it was given.
    for run in sys.run_lists.iter().flatten() {
        check(
            format!("class[{}].size", sys.classes[run.class].name),
            run.class,
        );
    }
}

/// Refuses a program that touches every page of its image at once
/// (`locality = "sweep"`, the working-set probe's) when its image cannot
/// all be in user memory: it would fault for ever and never finish a pass.
fn sweeps_fit(v: &mut Validator, sys: &System) {
    let frames = sys.memory.user_frames();
    for c in &sys.classes {
        let pages = sys.memory.pages_of(c.size);
        if matches!(c.locality, Some(Locality::Lifetime(Lifetime::Sweep))) && pages > frames {
            v.report(
                format!("class[{}].size", c.name),
                format!(
                    "a program with locality = \"sweep\" touches all its pages at once: its {pages} pages must fit in user memory ({frames} pages), or it could never finish a pass"
                ),
            );
        }
    }
}

/// Refuses a user or background cycle that takes no simulated time at all:
/// a run of it would never move its clock on.
fn cycles_take_time(v: &mut Validator, sys: &System) {
    let switch = sys.cpu.context_switch > tpsim_core::SimTime::ZERO;
    let free = |class: usize| {
        let c = &sys.classes[class];
        !switch && c.mean_demand() == 0.0 && c.mean_io() == 0.0
    };
    let mix = &sys.users.mix;
    if sys.users.think.mean() == 0.0 && mix.iter().filter(|m| m.weight > 0.0).all(|m| free(m.class))
    {
        v.report(
            "users.think",
            "think time, processor demand and I/O of every command are all zero: a user's cycle would take no time",
        );
    }
    for b in &sys.background {
        if b.sleep.mean() == 0.0 && free(b.class) {
            v.report(
                format!("background[{}].sleep", b.name),
                format!(
                    "the sleep and the processor demand and I/O of class {} are all zero: a cycle would take no time",
                    sys.classes[b.class].name
                ),
            );
        }
    }
}

/// A size in whole bytes, reported under `key` unless it is positive (or
/// zero, where allowed).
pub(super) fn size(v: &mut Validator, b: Bytes, key: &str, allow_zero: bool) -> Option<u64> {
    let ok = b.0.is_finite() && (b.0 > 0.0 || (allow_zero && b.0 == 0.0)) && b.0 < 1e18;
    if ok && b.0 > 0.0 && b.0.round() == 0.0 {
        v.report(
            key,
            format!(
                "{} bytes rounds to 0: sizes are counted in whole bytes",
                Figure(b.0)
            ),
        );
        None
    } else if ok {
        Some(b.0.round() as u64)
    } else {
        let bound = if allow_zero { ">= 0" } else { "> 0" };
        v.report(
            key,
            format!("must be a size {bound}, got {} bytes", Figure(b.0)),
        );
        None
    }
}

/// A fraction in [0, 1] (default 0), reported under `key` otherwise.
pub(super) fn fraction(v: &mut Validator, value: Option<f64>, key: &str) -> Option<f64> {
    let value = value.unwrap_or(0.0);
    if (0.0..=1.0).contains(&value) {
        Some(value)
    } else {
        v.report(
            key,
            format!("must be a fraction in [0, 1], got {}", Figure(value)),
        );
        None
    }
}
