//! The time-sharing part of scenario reading: the TOML mirror of a
//! scenario with a `[system]` table, and its validation into a
//! [`System`]. Every problem is reported with its key, as for networks.

use super::{DistSpec, RunSpec, ScenarioError, Validator};
use crate::system::{
    Area, Arm, Background, Benchmark, BulkStore, ClockDaemon, CommandClass, Cpu, DAY, Device, Io,
    Lifetime, Locality, Memory, Mix, Multics, Order, Pageout, Paging, PagingSwapper, Pattern,
    Phases, Placement, Policy, Population, Probe, ProcessCount, ReferenceBits, Replacement,
    Scheduler, SeekCurve, SegmentFaults, Sessions, System, Users, effective_mips,
};
use crate::units::{Bytes, BytesPerSecond, Figure, Seconds};
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use std::fmt;
use std::marker::PhantomData;
use tpsim_core::{Dist, SimTime};

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

/// A benchmark of the probe: a class's name, or a table naming the class
/// and fixing the benchmark's processor demand.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BenchmarkFile {
    pub class: String,
    /// Processor time, in place of a draw from the class.
    pub cpu: Option<Seconds>,
    /// Millions of instructions, in place of a draw from the class.
    pub instructions: Option<f64>,
}

/// `{ class = "...", cpu = "5s" }` or `{ class = "...", instructions = 2.5 }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BenchmarkTable {
    class: String,
    #[serde(default)]
    cpu: Option<Seconds>,
    #[serde(default)]
    instructions: Option<f64>,
}

impl<'de> Deserialize<'de> for BenchmarkFile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct BenchmarkVisitor;
        impl<'de> Visitor<'de> for BenchmarkVisitor {
            type Value = BenchmarkFile;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a class's name, or a table such as { class = \"man\", instructions = 2.5 }",
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<BenchmarkFile, E> {
                Ok(BenchmarkFile {
                    class: v.to_string(),
                    cpu: None,
                    instructions: None,
                })
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<BenchmarkFile, A::Error> {
                let t = BenchmarkTable::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(BenchmarkFile {
                    class: t.class,
                    cpu: t.cpu,
                    instructions: t.instructions,
                })
            }
        }
        d.deserialize_any(BenchmarkVisitor)
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

/// `[system]`: the processors.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct CpuFile {
    /// Number of processors (default 1).
    #[serde(default)]
    pub cpus: Option<u32>,
    /// Millions of instructions per second, for demands in instructions:
    /// a number, or a calibration.
    #[serde(default)]
    pub mips: Option<MipsFile>,
    /// The round-robin quantum; under the UNIX scheduler, the interval
    /// between rescheduling checks.
    pub quantum: Seconds,
    /// `"round-robin"` (default), `"unix"` or `"multics"`.
    #[serde(default)]
    pub scheduler: Option<String>,
    /// The Multics scheduler's settings.
    #[serde(default)]
    pub multics: Option<MulticsFile>,
    /// The cost of a dispatch (default 0).
    #[serde(default)]
    pub context_switch: Option<Seconds>,
    /// The eligibility limit (default: none).
    #[serde(default)]
    pub max_multiprogramming: Option<u32>,
}

/// `system.multics`: the Multics scheduler's settings (defaults in
/// [`Multics::default`]).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct MulticsFile {
    #[serde(default)]
    pub levels: Option<u8>,
    #[serde(default)]
    pub min_eligible: Option<u32>,
    #[serde(default)]
    pub working_set_factor: Option<f64>,
}

/// `[memory]`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct MemoryFile {
    /// `swapping` or `paging`.
    pub policy: String,
    /// Physical memory.
    pub size: Bytes,
    /// The kernel's share (default 0).
    #[serde(default)]
    pub kernel: Option<Bytes>,
    /// The page size.
    pub page: Bytes,
    /// The swap device (swapping) or paging device (paging); under paging
    /// also a list of drives to spread pages over.
    pub device: DeviceNames,
    /// The device holding the programs' files, which exec reads (default:
    /// `device`).
    #[serde(default)]
    pub programs: Option<String>,
    /// A bulk store in front of the paging device.
    #[serde(default)]
    pub bulk_store: Option<String>,
    /// The bulk store's capacity.
    #[serde(default)]
    pub bulk_store_size: Option<Bytes>,
    /// The fraction of page reads that go to the disk, if given rather than
    /// following from the bulk store's capacity.
    #[serde(default)]
    pub disk_fraction: Option<f64>,
    /// How pages are replaced: `process-lru` (default) or `clock`.
    #[serde(default)]
    pub replacement: Option<String>,
    /// Free memory the page daemon keeps (default ⅛ of user memory).
    #[serde(default)]
    pub free_target: Option<Bytes>,
    /// Clock: the daemon scans while less memory than this is free
    /// (default ⅛ of user memory).
    #[serde(default)]
    pub lotsfree: Option<Bytes>,
    /// Clock: a fault leaving less memory than this free wakes the daemon
    /// at once (default 64 pages, at most `lotsfree`).
    #[serde(default)]
    pub desfree: Option<Bytes>,
    /// Clock: the swapper swaps a process out when the average free memory
    /// falls below this (default 32 pages, at most `desfree`).
    #[serde(default)]
    pub minfree: Option<Bytes>,
    /// Clock: whether the 3BSD swapper is the load control behind it
    /// (default true).
    #[serde(default)]
    pub swapper: Option<bool>,
    /// Clock's swapper: page transfers a second above which paging cannot
    /// keep up (default 40).
    #[serde(default)]
    pub maxpgio: Option<f64>,
    /// Clock's swapper: a process asleep longer than this is swapped out
    /// when memory is short (default 20 s).
    #[serde(default)]
    pub maxslp: Option<Seconds>,
    /// Clock: a revolution of the hand at `lotsfree` free (default 30 s).
    #[serde(default)]
    pub slowscan: Option<Seconds>,
    /// Clock: a revolution of the hand at none free (default 20 s).
    #[serde(default)]
    pub fastscan: Option<Seconds>,
    /// Clock: two hands this far apart (default: one hand).
    #[serde(default)]
    pub handspread: Option<Bytes>,
    /// Memory as frames: who moves the hand, `daemon` (default) or
    /// `fault`.
    #[serde(default)]
    pub pageout: Option<String>,
    /// Memory as frames: `hardware` (default) or `simulated` reference
    /// bits.
    #[serde(default)]
    pub reference_bits: Option<String>,
    /// Working set: its window of processor time.
    #[serde(default)]
    pub tau: Option<Seconds>,
    /// Page-fault frequency: the critical interval of processor time
    /// between faults.
    #[serde(default)]
    pub fault_interval: Option<Seconds>,
    /// Whether taken pages stay reclaimable in the free pool (default
    /// false).
    #[serde(default)]
    pub reclaim: Option<bool>,
    /// Processor time of a fault without I/O (default 0).
    #[serde(default)]
    pub soft_fault_cpu: Option<Seconds>,
    /// Memory as frames: pages per cluster read from the swap area
    /// (default 1: no klustering).
    #[serde(default)]
    pub kluster: Option<u64>,
}

impl MemoryFile {
    /// The pageout daemon's keys, each with whether it is given: refused
    /// together where there is no daemon (swapping, replacement by process).
    fn pageout_daemon_keys(&self) -> [(&'static str, bool); 6] {
        [
            ("lotsfree", self.lotsfree.is_some()),
            ("desfree", self.desfree.is_some()),
            ("slowscan", self.slowscan.is_some()),
            ("fastscan", self.fastscan.is_some()),
            ("handspread", self.handspread.is_some()),
            ("pageout", self.pageout.is_some()),
        ]
    }
}

/// `memory.device`: one device's name, or several.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub(crate) enum DeviceNames {
    One(String),
    Many(Vec<String>),
}

/// `system.mips`: a speed, or the speeds of an instruction mix with and
/// without the cache and a hit ratio.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub(crate) enum MipsFile {
    Speed(f64),
    Calibrated(CalibrationFile),
}

/// `system.mips = { cached, uncached, hit_ratio }`. Missing and unknown
/// keys are reported by the validation, by name, rather than as a table
/// that matches neither form.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub(crate) struct CalibrationFile {
    /// The mix's speed with every operand in the cache \[MIPS\].
    #[serde(default)]
    pub cached: Option<f64>,
    /// Its speed with the cache off \[MIPS\].
    #[serde(default)]
    pub uncached: Option<f64>,
    /// The fraction of references the cache serves.
    #[serde(default)]
    pub hit_ratio: Option<f64>,
    /// Any other key.
    #[serde(flatten)]
    pub unknown: std::collections::BTreeMap<String, serde::de::IgnoredAny>,
}

/// `[[device]]`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct DeviceFile {
    /// The device's name.
    pub name: String,
    /// Seek time (default 0).
    #[serde(default)]
    pub seek: Option<DurationSpec>,
    /// Revolutions per minute (default 0: no rotational latency).
    #[serde(default)]
    pub rpm: Option<f64>,
    /// Transfer rate.
    pub rate: BytesPerSecond,
    /// Processor time per page fault served by this device (default 0).
    #[serde(default)]
    pub fault_cpu: Option<Seconds>,
    /// Processor time of the interrupt at the end of each request (default
    /// 0).
    #[serde(default)]
    pub interrupt_cpu: Option<Seconds>,
    /// The disk's arm (default: none, seeks drawn from `seek`).
    #[serde(default)]
    pub arm: Option<ArmFile>,
    /// The swap area's first and last cylinders (default: the whole disk).
    #[serde(default)]
    pub swap_area: Option<[i64; 2]>,
    /// The file system's first and last cylinders (default: the whole
    /// disk).
    #[serde(default)]
    pub file_system: Option<[i64; 2]>,
}

/// `arm = { ... }` of a `[[device]]`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct ArmFile {
    /// Cylinders on the disk.
    pub cylinders: i64,
    /// Seek time over one cylinder.
    pub track: Seconds,
    /// Mean seek time over all seeks between two different cylinders.
    pub average: Seconds,
    /// Seek time across the whole disk.
    pub full: Seconds,
    /// `"fcfs"` or `"disksort"` (default `"fcfs"`).
    #[serde(default)]
    pub order: Option<String>,
}

/// One entry of the command mix.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct MixFile {
    /// The class.
    pub class: String,
    /// Its relative weight.
    pub weight: f64,
    /// The fraction run in the background (`cmd &`), default 0.
    #[serde(default)]
    pub background: Option<f64>,
}

/// `[users.login]`: logins over the day.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct LoginFile {
    /// Logins per hour, for each of the 24 hours of the day.
    pub per_hour: Vec<f64>,
    /// How long a session lasts.
    pub session: DistSpec,
    /// The time of day at simulated time zero (default "0h").
    #[serde(default)]
    pub start: Option<Seconds>,
}

/// `[users]`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct UsersFile {
    /// Terminals: the fixed number of users, or with `login` the most that
    /// can be logged in at once.
    pub terminals: u32,
    /// Think time.
    pub think: DistSpec,
    /// The command mix.
    pub commands: Vec<MixFile>,
    /// Logins over the day; without it, every terminal is in use all the
    /// time.
    #[serde(default)]
    pub login: Option<LoginFile>,
    /// The class of each user's shell (default: no shells).
    #[serde(default)]
    pub shell: Option<String>,
    /// What the "user processes" index counts: `"commands"` (default) or
    /// `"all"`.
    #[serde(default)]
    pub processes: Option<String>,
}

/// A class's I/O to one device.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct IoFile {
    /// Mean requests per command.
    pub count: f64,
    /// Bytes per request.
    pub size: Bytes,
    /// The device.
    pub device: String,
}

/// A lifetime function as written.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub(crate) enum LocalityFile {
    /// L = 2b / (1 + (c/m)²).
    Cfl {
        /// Lifetime at the knee.
        b: Seconds,
        /// The knee \[pages\].
        c: f64,
    },
    /// L = a·m^k.
    Bk {
        /// Scale.
        a: Seconds,
        /// Exponent.
        k: f64,
    },
    /// Every page touched at once (`locality = "sweep"`).
    Sweep,
    /// The phase model: references on a locality set per phase.
    Phases {
        /// Pages in a locality set.
        set: f64,
        /// Processor time per phase.
        phase: DistSpec,
        /// Mean processor time between references.
        reference: Seconds,
        /// How references fall on the set (uniformly if absent).
        #[serde(default)]
        pattern: Option<PatternFile>,
    },
}

/// How a phase's references fall on its set, as written.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub(crate) enum PatternFile {
    /// `"uniform"`.
    Uniform,
    /// `{ zipf = EXPONENT }`.
    Zipf(f64),
}

/// `[[class]]`: a command class.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct CommandClassFile {
    /// The class's name.
    pub name: String,
    /// Processor demand as time on this system.
    #[serde(default)]
    pub cpu: Option<DistSpec>,
    /// Processor demand in millions of instructions (bare numbers).
    #[serde(default)]
    pub instructions: Option<DistSpec>,
    /// I/O requests.
    #[serde(default)]
    pub io: OneOrMany<IoFile>,
    /// Image (address space) size.
    pub size: Bytes,
    /// The shared, read-only part of the image (default 0).
    #[serde(default)]
    pub text: Option<Bytes>,
    /// Lifetime function, needed under paging.
    #[serde(default)]
    pub locality: Option<LocalityFile>,
    /// Probability that a page taken away is dirty (default 0).
    #[serde(default)]
    pub dirty: Option<f64>,
    /// Fraction of the private pages that start empty (default 0).
    #[serde(default)]
    pub zero_fill: Option<f64>,
    /// UNIX `nice`, -20 to 19 (default 0): added to the priority under the
    /// UNIX scheduler.
    #[serde(default)]
    pub nice: Option<i64>,
    /// Segment faults per command and the processor time of each (default:
    /// none).
    #[serde(default)]
    pub segment_faults: Option<SegmentFaultsFile>,
}

/// `class.segment_faults = { per_command, cpu }`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct SegmentFaultsFile {
    /// The mean number per command.
    pub per_command: f64,
    /// Processor time of each.
    pub cpu: Seconds,
}

/// `[[background]]`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct BackgroundFile {
    /// The entry's name.
    pub name: String,
    /// The class of work of each cycle.
    pub class: String,
    /// How many processes (default 1).
    #[serde(default)]
    pub count: Option<u32>,
    /// Sleep between cycles.
    pub sleep: DistSpec,
}

/// `[probe]`: the terminal probe.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProbeFile {
    /// The benchmarks, command classes run in turn.
    pub benchmarks: Vec<BenchmarkFile>,
    /// The sleep between cycles.
    pub sleep: DurationSpec,
    /// The part of the day in which cycles start (default all day).
    #[serde(default)]
    pub window: Option<WindowFile>,
    /// The `time` command's resolution (default exact).
    #[serde(default)]
    pub resolution: Option<Seconds>,
}

/// `probe.window`: times of day.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct WindowFile {
    pub from: Seconds,
    pub to: Seconds,
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
}

/// The most samples of the load indices a run may ask for.
const MOST_LOAD_SAMPLES: f64 = 1e6;

impl SystemFile {
    /// Parses the text of `file`.
    pub fn parse(file: &str, text: &str) -> Result<SystemFile, ScenarioError> {
        toml::from_str(text).map_err(|e| crate::scenario::syntax(file, text, &e))
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

fn build(v: &mut Validator, f: &SystemFile) -> Option<System> {
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
    v.unique_names("device", f.devices.iter().map(|d| d.name.as_str()));
    v.unique_names("class", f.classes.iter().map(|c| c.name.as_str()));
    v.unique_names("background", f.background.iter().map(|b| b.name.as_str()));
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
    let cpu = cpu(v, &f.system);
    let devices: Vec<_> = f.devices.iter().map(|d| device(v, d)).collect();
    let memory = memory(v, &f.memory, &f.devices);
    // Page counts of the classes' localities need the page size; a bad one
    // is reported under memory.page.
    let page = memory.as_ref().map(|m| m.page);
    let uses_instructions = f.classes.iter().any(|c| c.instructions.is_some());
    let mips = match &f.system.mips {
        Some(m) => processor_speed(v, m),
        None if uses_instructions => {
            v.report(
                "system.mips",
                "is required when a class gives its demand in `instructions`",
            );
            None
        }
        None => Some(1.0),
    };
    let classes: Vec<_> = f
        .classes
        .iter()
        .map(|c| class(v, c, &f.devices, mips, wanted_locality(&f.memory), page))
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
        )
    });
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
        background: background.into_iter().collect::<Option<_>>()?,
        probe: probe.map_or(Some(None), |p| p.map(Some))?,
    };
    cycles_take_time(v, &system);
    transfers_fit(v, &system);
    shells_fit(v, &system);
    benchmarks_fit(v, &system);
    sweeps_fit(v, &system);
    v.problems.is_empty().then_some(system)
}

/// The most processors a system may have.
const MOST_CPUS: u64 = 4096;
/// The most terminals, or background processes of one entry, a system may
/// have: each holds streams and a process slot.
const MOST_PROCESSES: u64 = 1_000_000;

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

/// Under swapping, a shell must fit in user memory: a user whose shell
/// could never be in memory could never run a command.
/// Refuses a benchmark that a swapping system could never run: the probe
/// would wait for it for ever.
fn benchmarks_fit(v: &mut Validator, sys: &System) {
    let (Some(probe), Policy::Swapping { .. }) = (&sys.probe, &sys.memory.policy) else {
        return;
    };
    let user = sys.memory.user_bytes();
    for b in &probe.benchmarks {
        let class = &sys.classes[b.class];
        if class.size > user {
            v.report(
                "probe.benchmarks",
                format!(
                    "benchmark {}: its image ({} bytes) is larger than user memory ({user} bytes): under swapping it could never run",
                    class.name, class.size
                ),
            );
        }
    }
}

/// A benchmark: its class, and the fixed demand it may give.
fn benchmark(
    v: &mut Validator,
    f: &BenchmarkFile,
    classes: &[CommandClassFile],
    mips: Option<f64>,
) -> Option<Benchmark> {
    let key = format!("probe.benchmarks[{}]", f.class);
    let class = class_index(v, classes, &f.class, "probe.benchmarks");
    let demand = match (f.cpu, f.instructions) {
        (None, None) => Some(None),
        (Some(cpu), None) => v.time(cpu, &format!("{key}.cpu"), true).map(Some),
        (None, Some(i)) if i.is_finite() && i >= 0.0 => match mips {
            Some(mips) => v
                .time(Seconds(i / mips), &format!("{key}.instructions"), true)
                .map(Some),
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
    Some(Benchmark {
        class: class?,
        demand: demand?,
    })
}

fn probe(
    v: &mut Validator,
    f: &ProbeFile,
    classes: &[CommandClassFile],
    mips: Option<f64>,
    day_start: SimTime,
) -> Option<Probe> {
    if f.benchmarks.is_empty() {
        v.report("probe.benchmarks", "must name at least one [[class]]");
    }
    let benchmarks: Vec<Option<Benchmark>> = f
        .benchmarks
        .iter()
        .map(|b| benchmark(v, b, classes, mips))
        .collect();
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
    if !v.problems.is_empty() {
        return None;
    }
    Some(Probe {
        benchmarks: benchmarks.into_iter().collect::<Option<_>>()?,
        sleep: sleep?,
        window: window?,
        resolution: resolution?,
        day_start,
    })
}

fn shells_fit(v: &mut Validator, sys: &System) {
    if let (Some(shell), Policy::Swapping { .. }) = (sys.users.shell, &sys.memory.policy) {
        let size = sys.classes[shell].size;
        let user = sys.memory.user_bytes();
        if size > user {
            v.report(
                "users.shell",
                format!(
                    "the shell's image ({size} bytes) is larger than user memory ({user} bytes): under swapping it could never run"
                ),
            );
        }
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

/// The speed `system.mips` gives, checked: a number > 0, or a calibration
/// with positive speeds and a hit ratio in [0, 1].
fn processor_speed(v: &mut Validator, m: &MipsFile) -> Option<f64> {
    let positive = |x: f64| x.is_finite() && x > 0.0;
    match *m {
        MipsFile::Speed(m) if positive(m) => Some(m),
        MipsFile::Speed(m) => {
            v.report(
                "system.mips",
                format!("must be a number > 0, got {}", Figure(m)),
            );
            None
        }
        MipsFile::Calibrated(ref c) => {
            for key in c.unknown.keys() {
                v.report(
                    format!("system.mips.{key}"),
                    "unknown key: expected cached, uncached and hit_ratio",
                );
            }
            let mut given = |key: &str, x: Option<f64>| {
                if x.is_none() {
                    v.report(
                        format!("system.mips.{key}"),
                        "is required in a calibration { cached, uncached, hit_ratio }",
                    );
                }
                x
            };
            let (Some(cached), Some(uncached), Some(hit_ratio)) = (
                given("cached", c.cached),
                given("uncached", c.uncached),
                given("hit_ratio", c.hit_ratio),
            ) else {
                return None;
            };
            for (key, x) in [("cached", cached), ("uncached", uncached)] {
                if !positive(x) {
                    v.report(
                        format!("system.mips.{key}"),
                        format!("must be a speed > 0 in MIPS, got {}", Figure(x)),
                    );
                }
            }
            if !(0.0..=1.0).contains(&hit_ratio) {
                v.report(
                    "system.mips.hit_ratio",
                    format!("must be a fraction in [0, 1], got {}", Figure(hit_ratio)),
                );
            }
            (c.unknown.is_empty()
                && positive(cached)
                && positive(uncached)
                && (0.0..=1.0).contains(&hit_ratio))
            .then(|| effective_mips(cached, uncached, hit_ratio))
        }
    }
}

fn cpu(v: &mut Validator, f: &CpuFile) -> Option<Cpu> {
    let count = f.cpus.unwrap_or(1);
    if count == 0 {
        v.report("system.cpus", "must be at least 1");
    }
    v.population("system.cpus", u64::from(count), MOST_CPUS, "processors");
    let quantum = v.time(f.quantum, "system.quantum", false);
    let context_switch = v.time(
        f.context_switch.unwrap_or(Seconds(0.0)),
        "system.context_switch",
        true,
    );
    let max_multiprogramming = f.max_multiprogramming.filter(|&m| m > 0);
    let scheduler = match f.scheduler.as_deref().unwrap_or("round-robin") {
        "round-robin" => Some(Scheduler::RoundRobin),
        "unix" => Some(Scheduler::Unix),
        "multics" => multics(v, f.multics.as_ref(), max_multiprogramming).map(Scheduler::Multics),
        other => {
            v.report(
                "system.scheduler",
                format!(
                    "unknown scheduler \"{other}\": expected \"round-robin\", \"unix\" or \"multics\""
                ),
            );
            None
        }
    };
    if f.multics.is_some() && !matches!(scheduler, None | Some(Scheduler::Multics(_))) {
        v.report(
            "system.multics",
            "applies only with scheduler = \"multics\"",
        );
    }
    Some(Cpu {
        count: (count > 0).then_some(count)?,
        scheduler: scheduler?,
        quantum: quantum?,
        context_switch: context_switch?,
        max_multiprogramming,
        mips: None,
    })
}

/// The most queue levels: the quantum doubles at each, so the last is
/// 2^15 quanta.
const MOST_LEVELS: u8 = 16;

fn multics(v: &mut Validator, f: Option<&MulticsFile>, max: Option<u32>) -> Option<Multics> {
    let d = Multics::default();
    let Some(f) = f else { return Some(d) };
    let mut ok = true;
    let levels = f.levels.unwrap_or(d.levels);
    if !(1..=MOST_LEVELS).contains(&levels) {
        v.report(
            "system.multics.levels",
            format!("must be 1 to {MOST_LEVELS}, got {levels}"),
        );
        ok = false;
    }
    let min_eligible = f.min_eligible.unwrap_or(d.min_eligible);
    if min_eligible == 0 || max.is_some_and(|m| min_eligible > m) {
        v.report(
            "system.multics.min_eligible",
            format!(
                "must be at least 1 and at most system.max_multiprogramming, got {min_eligible}"
            ),
        );
        ok = false;
    }
    let working_set_factor = f.working_set_factor.unwrap_or(d.working_set_factor);
    if !(working_set_factor.is_finite() && working_set_factor >= 0.0) {
        v.report(
            "system.multics.working_set_factor",
            format!("must be a number >= 0, got {}", Figure(working_set_factor)),
        );
        ok = false;
    }
    ok.then_some(Multics {
        levels,
        min_eligible,
        working_set_factor,
    })
}

fn device(v: &mut Validator, f: &DeviceFile) -> Option<Device> {
    let key = format!("device[{}]", f.name);
    let seek = f
        .seek
        .as_ref()
        .unwrap_or(&DurationSpec::Fixed(Seconds(0.0)))
        .build(v, &format!("{key}.seek"));
    let rpm = f.rpm.unwrap_or(0.0);
    if !(rpm.is_finite() && rpm >= 0.0) {
        v.report(
            format!("{key}.rpm"),
            format!("must be a number >= 0, got {}", Figure(rpm)),
        );
    }
    let rate = f.rate.0;
    if !(rate.is_finite() && rate > 0.0) {
        v.report(
            format!("{key}.rate"),
            format!("must be a rate > 0, got {} B/s", Figure(rate)),
        );
    }
    let fault_cpu = v.time(
        f.fault_cpu.unwrap_or(Seconds(0.0)),
        &format!("{key}.fault_cpu"),
        true,
    );
    let interrupt_cpu = v.time(
        f.interrupt_cpu.unwrap_or(Seconds(0.0)),
        &format!("{key}.interrupt_cpu"),
        true,
    );
    let arm = arm(v, f, &key);
    let ok = rpm.is_finite() && rpm >= 0.0 && rate.is_finite() && rate > 0.0;
    Some(Device {
        name: f.name.clone(),
        seek: seek?,
        arm: arm?,
        revolution: if rpm > 0.0 { 60.0 / rpm } else { 0.0 },
        rate: ok.then_some(rate)?,
        fault_cpu: fault_cpu?,
        interrupt_cpu: interrupt_cpu?,
    })
}

/// UNIX `nice` values (V7 keeps `p_nice - NZERO` in this range).
const NICE_RANGE: std::ops::RangeInclusive<i64> = -20..=19;

/// The most cylinders a disk may have.
const MAX_CYLINDERS: i64 = 1_000_000;

/// The arm of device `f`, if it has one (`Some(None)` if not; `None` if
/// it is invalid).
fn arm(v: &mut Validator, f: &DeviceFile, key: &str) -> Option<Option<Arm>> {
    let Some(a) = &f.arm else {
        for (name, area) in [("swap_area", f.swap_area), ("file_system", f.file_system)] {
            if area.is_some() {
                v.report(
                    format!("{key}.{name}"),
                    "cylinder areas need an arm: give the device arm = { cylinders = ..., track = ..., average = ..., full = ... }",
                );
            }
        }
        return Some(None);
    };
    if f.seek.is_some() {
        v.report(
            format!("{key}.seek"),
            "a device with an arm takes its seek times from arm.track, arm.average and arm.full: leave seek out",
        );
    }
    let cylinders = a.cylinders;
    if !(3..=MAX_CYLINDERS).contains(&cylinders) {
        v.report(
            format!("{key}.arm.cylinders"),
            format!("must be a whole number from 3 to {MAX_CYLINDERS}, got {cylinders}"),
        );
    }
    let order = match a.order.as_deref().unwrap_or("fcfs") {
        "fcfs" => Some(Order::Fcfs),
        "disksort" => Some(Order::Disksort),
        other => {
            v.report(
                format!("{key}.arm.order"),
                format!("unknown order \"{other}\": expected \"fcfs\" or \"disksort\""),
            );
            None
        }
    };
    let times = [("track", a.track), ("average", a.average), ("full", a.full)]
        .map(|(name, t)| v.time(t, &format!("{key}.arm.{name}"), false));
    let cylinders = u32::try_from(cylinders)
        .ok()
        .filter(|c| (3..=MAX_CYLINDERS).contains(&i64::from(*c)))?;
    let area = |v: &mut Validator, name: &str, given: Option<[i64; 2]>| match given {
        None => Some(Area {
            first: 0,
            last: cylinders - 1,
        }),
        Some([first, last]) if 0 <= first && first <= last && last < i64::from(cylinders) => {
            Some(Area {
                first: first as u32,
                last: last as u32,
            })
        }
        Some([first, last]) => {
            v.report(
                format!("{key}.{name}"),
                format!(
                    "[{first}, {last}] does not fit on the disk: give [first, last] with 0 <= first <= last <= {} (cylinders are numbered from 0)",
                    cylinders - 1
                ),
            );
            None
        }
    };
    let swap_area = area(v, "swap_area", f.swap_area);
    let file_system = area(v, "file_system", f.file_system);
    let [track, average, full] = times;
    let (track, average, full) = (track?, average?, full?);
    let seek = SeekCurve::fit(
        cylinders,
        track.as_secs_f64(),
        average.as_secs_f64(),
        full.as_secs_f64(),
    )
    .map_err(|e| v.report(format!("{key}.arm"), e.to_string()))
    .ok()?;
    Some(Some(Arm {
        cylinders,
        seek,
        order: order?,
        swap_area: swap_area?,
        file_system: file_system?,
    }))
}

/// A size in whole bytes, reported under `key` unless it is positive (or
/// zero, where allowed).
fn size(v: &mut Validator, b: Bytes, key: &str, allow_zero: bool) -> Option<u64> {
    let ok = b.0.is_finite() && (b.0 > 0.0 || (allow_zero && b.0 == 0.0)) && b.0 < 1e18;
    if ok && b.0 > 0.0 && b.0.round() == 0.0 {
        v.report(
            key,
            format!(
                "{} bytes rounds to 0: sizes are counted in whole bytes",
                b.0
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

fn device_index(v: &mut Validator, devices: &[DeviceFile], name: &str, key: &str) -> Option<usize> {
    let found = devices.iter().position(|d| d.name == name);
    if found.is_none() {
        v.report(key, format!("no [[device]] named \"{name}\""));
    }
    found
}

fn memory(v: &mut Validator, f: &MemoryFile, devices: &[DeviceFile]) -> Option<Memory> {
    let total = size(v, f.size, "memory.size", false);
    let kernel = size(v, f.kernel.unwrap_or(Bytes(0.0)), "memory.kernel", true);
    let page = size(v, f.page, "memory.page", false);
    let drives = drives(v, f, devices);
    let (Some(total), Some(kernel), Some(page)) = (total, kernel, page) else {
        return None;
    };
    if kernel >= total {
        v.report(
            "memory.kernel",
            format!("the kernel ({kernel} bytes) must be smaller than memory.size ({total} bytes)"),
        );
        return None;
    }
    let user_frames = (total - kernel) / page;
    if user_frames == 0 {
        v.report(
            "memory.page",
            format!(
                "a page of {page} bytes does not fit in the {} bytes of user memory",
                total - kernel
            ),
        );
        return None;
    }
    for (key, bytes) in [("memory.size", total), ("memory.kernel", kernel)] {
        if bytes % page != 0 {
            v.report(
                key,
                format!(
                    "{bytes} bytes is not a whole number of pages of {page} bytes (memory.page)"
                ),
            );
        }
    }
    let policy = match f.policy.as_str() {
        "swapping" => {
            refuse_present(
                v,
                [
                    ("bulk_store", f.bulk_store.is_some()),
                    ("bulk_store_size", f.bulk_store_size.is_some()),
                    ("disk_fraction", f.disk_fraction.is_some()),
                    ("replacement", f.replacement.is_some()),
                    ("free_target", f.free_target.is_some()),
                ]
                .into_iter()
                .chain(f.pageout_daemon_keys())
                .chain([
                    ("tau", f.tau.is_some()),
                    ("fault_interval", f.fault_interval.is_some()),
                    ("reference_bits", f.reference_bits.is_some()),
                    ("reclaim", f.reclaim.is_some()),
                    ("soft_fault_cpu", f.soft_fault_cpu.is_some()),
                    ("kluster", f.kluster.is_some()),
                ]),
                "applies only to policy \"paging\"",
            );
            match drives.as_deref()? {
                [device] => Some(Policy::Swapping { device: *device }),
                _ => {
                    v.report(
                        "memory.device",
                        "one swap device: a list of drives applies only to policy \"paging\"",
                    );
                    None
                }
            }
        }
        "paging" => paging(v, f, devices, drives.clone(), page, user_frames),
        other => {
            v.report(
                "memory.policy",
                format!("unknown policy \"{other}\": expected swapping or paging"),
            );
            None
        }
    };
    let programs = match (&f.programs, drives.as_deref()) {
        (Some(name), _) => device_index(v, devices, name, "memory.programs").map(Some),
        (None, Some([one])) => Some(Some(*one)),
        (None, drives) => drives.map(|_| None),
    };
    Some(Memory {
        size: total,
        kernel,
        page,
        programs: programs?,
        policy: policy?,
    })
}

/// The devices `memory.device` names: one, or several distinct drives.
fn drives(v: &mut Validator, f: &MemoryFile, devices: &[DeviceFile]) -> Option<Vec<usize>> {
    let names = match &f.device {
        DeviceNames::One(name) => std::slice::from_ref(name),
        DeviceNames::Many(names) if names.is_empty() => {
            v.report("memory.device", "an empty list: name at least one device");
            return None;
        }
        DeviceNames::Many(names) => names.as_slice(),
    };
    let mut drives = Vec::with_capacity(names.len());
    for name in names {
        let drive = device_index(v, devices, name, "memory.device")?;
        if drives.contains(&drive) {
            v.report(
                "memory.device",
                format!("\"{name}\" is listed twice: each drive once"),
            );
            return None;
        }
        drives.push(drive);
    }
    Some(drives)
}

fn paging(
    v: &mut Validator,
    f: &MemoryFile,
    devices: &[DeviceFile],
    drives: Option<Vec<usize>>,
    page: u64,
    user_frames: u64,
) -> Option<Policy> {
    let bulk_store = match &f.bulk_store {
        None => {
            refuse_present(
                v,
                [
                    ("bulk_store_size", f.bulk_store_size.is_some()),
                    ("disk_fraction", f.disk_fraction.is_some()),
                ],
                "needs memory.bulk_store",
            );
            Some(None)
        }
        Some(name) => {
            let bulk = device_index(v, devices, name, "memory.bulk_store");
            if bulk.is_some_and(|b| drives.as_ref().is_some_and(|d| d.contains(&b))) {
                v.report(
                    "memory.bulk_store",
                    "must be a different device from memory.device",
                );
            }
            let placement = match (f.bulk_store_size, f.disk_fraction) {
                (Some(b), None) => size(v, b, "memory.bulk_store_size", false)
                    .map(|b| Placement::Capacity(b / page)),
                (None, Some(fraction)) if (0.0..=1.0).contains(&fraction) => {
                    Some(Placement::DiskFraction(fraction))
                }
                (None, Some(fraction)) => {
                    v.report(
                        "memory.disk_fraction",
                        format!("must be a fraction in [0, 1], got {}", Figure(fraction)),
                    );
                    None
                }
                _ => {
                    v.report(
                        "memory.bulk_store",
                        "give exactly one of memory.bulk_store_size and memory.disk_fraction",
                    );
                    None
                }
            };
            Some(Some(BulkStore {
                device: bulk?,
                placement: placement?,
            }))
        }
    };
    let replacement = replacement(v, f, page, user_frames);
    let free_target = match f.free_target {
        None => Some(user_frames / 8),
        Some(b) => size(v, b, "memory.free_target", true).and_then(|b| {
            let frames = b / page;
            if frames >= user_frames {
                v.report(
                    "memory.free_target",
                    format!("must be less than user memory ({user_frames} pages)"),
                );
                None
            } else {
                Some(frames)
            }
        }),
    };
    let soft_fault_cpu = v.time(
        f.soft_fault_cpu.unwrap_or(Seconds(0.0)),
        "memory.soft_fault_cpu",
        true,
    );
    let kluster = match (f.kluster, &replacement) {
        (None, _) => Some(1),
        (Some(k), Some(Replacement::ProcessLru)) => {
            v.report(
                "memory.kluster",
                "applies only to memory as frames (memory.replacement other than \"process-lru\")",
            );
            Some(k)
        }
        (Some(k), _) if (1..=64).contains(&k) => Some(k),
        (Some(k), _) => {
            v.report(
                "memory.kluster",
                format!("must be a whole number of pages from 1 to 64, got {k}"),
            );
            None
        }
    };
    Some(Policy::Paging(Paging {
        drives: drives?,
        bulk_store: bulk_store?,
        replacement: replacement?,
        free_target: free_target?,
        reclaim: f.reclaim.unwrap_or(false),
        soft_fault_cpu: soft_fault_cpu?,
        kluster: kluster?,
    }))
}

/// Which locality a class needs: none under swapping, a lifetime function
/// under replacement by process, the phase model under the clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wanted {
    None,
    Lifetime,
    Phases,
}

fn wanted_locality(f: &MemoryFile) -> Wanted {
    match (f.policy.as_str(), f.replacement.as_deref()) {
        ("paging", Some("clock" | "working-set" | "page-fault-frequency")) => Wanted::Phases,
        ("paging", _) => Wanted::Lifetime,
        _ => Wanted::None,
    }
}

/// The replacement policy and its settings.
fn replacement(
    v: &mut Validator,
    f: &MemoryFile,
    page: u64,
    user_frames: u64,
) -> Option<Replacement> {
    let name = f.replacement.as_deref().unwrap_or("process-lru");
    if f.tau.is_some() && name != "working-set" {
        v.report(
            "memory.tau",
            "applies only to memory.replacement = \"working-set\"",
        );
    }
    if f.fault_interval.is_some() && name != "page-fault-frequency" {
        v.report(
            "memory.fault_interval",
            "applies only to memory.replacement = \"page-fault-frequency\"",
        );
    }
    match name {
        "process-lru" => {
            refuse_present(
                v,
                f.pageout_daemon_keys().into_iter().chain([
                    ("reference_bits", f.reference_bits.is_some()),
                    ("minfree", f.minfree.is_some()),
                    ("swapper", f.swapper.is_some()),
                    ("maxpgio", f.maxpgio.is_some()),
                    ("maxslp", f.maxslp.is_some()),
                ]),
                "applies only to memory as frames: memory.replacement = \"clock\", \"working-set\" or \"page-fault-frequency\"",
            );
            Some(Replacement::ProcessLru)
        }
        "clock" | "working-set" | "page-fault-frequency" => {
            if f.bulk_store.is_some() {
                if f.disk_fraction.is_some() {
                    v.report(
                        "memory.disk_fraction",
                        format!("applies only to memory.replacement = \"process-lru\": under \"{name}\" pages go to the bulk store as they leave memory, so give it a size with memory.bulk_store_size"),
                    );
                }
                if f.reclaim == Some(true) {
                    v.report(
                        "memory.reclaim",
                        "cannot be true with a bulk store under memory as frames: a page leaving memory goes to the bulk store",
                    );
                }
                if f.swapper == Some(true) || (f.swapper.is_none() && name == "clock") {
                    v.report(
                        "memory.swapper",
                        "must be false with a bulk store: the 3BSD swapper writes to the swap area, and the clock in front of a bulk store (Multics) runs alone",
                    );
                }
            }
            if f.free_target.is_some() {
                v.report(
                "memory.free_target",
                "applies only to memory.replacement = \"process-lru\"; the pageout daemon keeps memory.lotsfree",
            );
            }
            let daemon = daemon(v, f, name, page, user_frames);
            if name != "clock"
                && daemon.is_some_and(|d| d.reference_bits == ReferenceBits::Simulated)
            {
                v.report(
                    "memory.reference_bits",
                    format!("\"simulated\" works with memory.replacement = \"clock\" only: {name} needs the time of each page's last reference"),
                );
            }
            if name == "clock" {
                return Some(Replacement::Clock(daemon?));
            }
            let (value, key, what) = if name == "working-set" {
                (f.tau, "memory.tau", "the window of processor time")
            } else {
                (
                    f.fault_interval,
                    "memory.fault_interval",
                    "the critical interval of processor time between faults",
                )
            };
            let window = match value {
                Some(value) => v.time(value, key, false),
                None => {
                    v.report(
                        key,
                        format!("is required under memory.replacement = \"{name}\": {what}, such as \"500ms\""),
                    );
                    None
                }
            };
            Some(if name == "working-set" {
                Replacement::WorkingSet {
                    daemon: daemon?,
                    tau: window?,
                }
            } else {
                Replacement::PageFaultFrequency {
                    daemon: daemon?,
                    interval: window?,
                }
            })
        }
        other => {
            v.report(
                "memory.replacement",
                format!(
                    "unknown replacement \"{other}\": expected process-lru, clock, working-set or page-fault-frequency"
                ),
            );
            None
        }
    }
}

/// The pageout daemon's settings, with 3BSD's defaults (`h/vm.h`):
/// `lotsfree` ⅛ of user memory, `desfree` 64 pages but not above
/// `lotsfree`, a revolution in 30 s at `lotsfree` and 20 s at none free,
/// one hand.
fn daemon(
    v: &mut Validator,
    f: &MemoryFile,
    name: &str,
    page: u64,
    user_frames: u64,
) -> Option<ClockDaemon> {
    let frames = |v: &mut Validator, b: Option<Bytes>, key: &str, default: u64| match b {
        None => Some(default),
        Some(b) => size(v, b, key, false).map(|b| b / page),
    };
    let lotsfree = frames(v, f.lotsfree, "memory.lotsfree", (user_frames / 8).max(1));
    let lotsfree = lotsfree.filter(|&l| {
        let ok = (1..user_frames).contains(&l);
        if !ok {
            v.report(
                "memory.lotsfree",
                format!("must be at least a page and less than user memory ({user_frames} pages), got {l} pages"),
            );
        }
        ok
    });
    let desfree = frames(
        v,
        f.desfree,
        "memory.desfree",
        64.min(lotsfree.unwrap_or(1)),
    );
    let desfree = desfree.zip(lotsfree).and_then(|(d, l)| {
        if d > l {
            v.report(
                "memory.desfree",
                format!("must not be above memory.lotsfree ({l} pages), got {d} pages"),
            );
            None
        } else {
            Some(d)
        }
    });
    let minfree = frames(v, f.minfree, "memory.minfree", 32.min(desfree.unwrap_or(0)));
    let minfree = minfree.zip(desfree).and_then(|(m, d)| {
        if m > d {
            v.report(
                "memory.minfree",
                format!("must not be above memory.desfree ({d} pages), got {m} pages"),
            );
            None
        } else {
            Some(m)
        }
    });
    let swapper = paging_swapper(v, f, name);
    let scan = |v: &mut Validator, s: Option<Seconds>, key: &str, default: f64| {
        v.time(s.unwrap_or(Seconds(default)), key, false)
            .map(|t| t.as_secs_f64())
    };
    let slowscan = scan(v, f.slowscan, "memory.slowscan", 30.0);
    let fastscan = scan(v, f.fastscan, "memory.fastscan", 20.0);
    let handspread = match f.handspread {
        None => Some(None),
        Some(b) => size(v, b, "memory.handspread", false)
            .map(|b| b / page)
            .and_then(|spread| {
                let ok = (1..user_frames).contains(&spread);
                if !ok {
                    v.report(
                        "memory.handspread",
                        format!("must be at least a page and less than user memory ({user_frames} pages), got {spread} pages"),
                    );
                }
                ok.then_some(Some(spread))
            }),
    };
    let pageout = match f.pageout.as_deref() {
        None | Some("daemon") => Some(Pageout::Daemon),
        Some("fault") => {
            refuse_present(
                v,
                [
                    ("slowscan", f.slowscan.is_some()),
                    ("fastscan", f.fastscan.is_some()),
                ],
                "applies only to memory.pageout = \"daemon\": the fault handler moves the hand without a budget",
            );
            Some(Pageout::Fault)
        }
        Some(other) => {
            v.report(
                "memory.pageout",
                format!("unknown pageout \"{other}\": expected daemon or fault"),
            );
            None
        }
    };
    let reference_bits = match f.reference_bits.as_deref() {
        None | Some("hardware") => Some(ReferenceBits::Hardware),
        Some("simulated") => Some(ReferenceBits::Simulated),
        Some(other) => {
            v.report(
                "memory.reference_bits",
                format!("unknown reference bits \"{other}\": expected hardware or simulated"),
            );
            None
        }
    };
    Some(ClockDaemon {
        lotsfree: lotsfree?,
        desfree: desfree?,
        slowscan: slowscan?,
        fastscan: fastscan?,
        handspread: handspread?,
        reference_bits: reference_bits?,
        pageout: pageout?,
        minfree: minfree?,
        swapper: swapper?,
    })
}

/// Reports each memory key of `fields` that is present (`true`) as one
/// that does not apply here, saying `why`.
fn refuse_present<'a>(
    v: &mut Validator,
    fields: impl IntoIterator<Item = (&'a str, bool)>,
    why: &str,
) {
    for (field, present) in fields {
        if present {
            v.report(format!("memory.{field}"), why);
        }
    }
}

/// The 3BSD swapper behind the clock, with 3BSD's defaults (`h/vm.h`):
/// on, `maxpgio` 40 transfers a second, `maxslp` 20 s. `Some(None)`: no
/// swapper (switched off, or a policy with its own load control).
fn paging_swapper(v: &mut Validator, f: &MemoryFile, name: &str) -> Option<Option<PagingSwapper>> {
    let on = f.swapper.unwrap_or(name == "clock");
    if on && name != "clock" {
        v.report(
            "memory.swapper",
            format!(
                "works with memory.replacement = \"clock\" only: {name} has its own load control"
            ),
        );
        return None;
    }
    if !on {
        refuse_present(
            v,
            [
                ("maxpgio", f.maxpgio.is_some()),
                ("maxslp", f.maxslp.is_some()),
            ],
            "applies only to the swapper behind the clock: memory.replacement = \"clock\" without memory.swapper = false",
        );
        return Some(None);
    }
    let maxpgio = f.maxpgio.unwrap_or(40.0);
    if !(maxpgio.is_finite() && maxpgio > 0.0) {
        v.report(
            "memory.maxpgio",
            format!(
                "must be a positive number of page transfers a second, got {}",
                Figure(maxpgio)
            ),
        );
    }
    let maxslp = v.time(f.maxslp.unwrap_or(Seconds(20.0)), "memory.maxslp", false);
    (maxpgio.is_finite() && maxpgio > 0.0)
        .then_some(())
        .and(maxslp)
        .map(|maxslp| Some(PagingSwapper { maxpgio, maxslp }))
}

fn class(
    v: &mut Validator,
    f: &CommandClassFile,
    devices: &[DeviceFile],
    mips: Option<f64>,
    wanted: Wanted,
    page: Option<u64>,
) -> Option<CommandClass> {
    let key = format!("class[{}]", f.name);
    let demand = match (&f.cpu, &f.instructions) {
        (Some(cpu), None) => v.dist(cpu, &format!("{key}.cpu")).map(|d| (d, 1.0)),
        (None, Some(instructions)) => v
            .dist(instructions, &format!("{key}.instructions"))
            .zip(mips)
            .map(|(d, mips)| (d, 1.0 / mips)),
        _ => {
            v.report(
                &key,
                "give exactly one of `cpu` (time) and `instructions` (millions)",
            );
            None
        }
    };
    let io: Vec<_> =
        f.io.0
            .iter()
            .enumerate()
            .map(|(i, io)| {
                let ikey = format!("{key}.io[{i}]");
                if !(io.count.is_finite() && io.count >= 0.0) {
                    v.report(
                        format!("{ikey}.count"),
                        format!("must be a number >= 0, got {}", Figure(io.count)),
                    );
                }
                let bytes = size(v, io.size, &format!("{ikey}.size"), false);
                let device = device_index(v, devices, &io.device, &format!("{ikey}.device"));
                let ok = io.count.is_finite() && io.count >= 0.0;
                Some(Io {
                    device: device?,
                    count: ok.then_some(io.count)?,
                    size: bytes? as f64,
                })
            })
            .collect();
    let image = size(v, f.size, &format!("{key}.size"), false);
    let text = size(
        v,
        f.text.unwrap_or(Bytes(0.0)),
        &format!("{key}.text"),
        true,
    );
    if let (Some(image), Some(text)) = (image, text)
        && text > image
    {
        v.report(
            format!("{key}.text"),
            format!("the shared text ({text} bytes) cannot be larger than the image, {key}.size ({image} bytes)"),
        );
    }
    let locality = match &f.locality {
        None => None,
        Some(LocalityFile::Cfl { b, c }) => {
            let b = v.time(*b, &format!("{key}.locality.cfl.b"), false);
            if !(c.is_finite() && *c > 0.0) {
                v.report(
                    format!("{key}.locality.cfl.c"),
                    format!("must be a number of pages > 0, got {}", Figure(*c)),
                );
            }
            b.filter(|_| c.is_finite() && *c > 0.0).map(|b| {
                Locality::Lifetime(Lifetime::Cfl {
                    b: b.as_secs_f64(),
                    c: *c,
                })
            })
        }
        Some(LocalityFile::Bk { a, k }) => {
            let a = v.time(*a, &format!("{key}.locality.bk.a"), false);
            if !(k.is_finite() && *k > 0.0) {
                v.report(
                    format!("{key}.locality.bk.k"),
                    format!("must be a number > 0, got {}", Figure(*k)),
                );
            }
            a.filter(|_| k.is_finite() && *k > 0.0).map(|a| {
                Locality::Lifetime(Lifetime::Bk {
                    a: a.as_secs_f64(),
                    k: *k,
                })
            })
        }
        Some(LocalityFile::Sweep) => Some(Locality::Lifetime(Lifetime::Sweep)),
        Some(LocalityFile::Phases {
            set,
            phase,
            reference,
            pattern,
        }) => phases(
            v,
            &key,
            *set,
            phase,
            *reference,
            pattern.as_ref(),
            image.zip(page),
        ),
    };
    let locality = match (wanted, locality) {
        (Wanted::None, _) => None,
        (Wanted::Lifetime, Some(Locality::Phases(_))) => {
            v.report(
                format!("{key}.locality.phases"),
                "needs memory.replacement = \"clock\": replacement by process follows a lifetime function (cfl or bk)",
            );
            None
        }
        (Wanted::Phases, Some(Locality::Lifetime(_))) => {
            v.report(
                format!("{key}.locality"),
                "memory.replacement = \"clock\" needs the phase model: give { phases = { set = ..., phase = ..., reference = ... } }",
            );
            None
        }
        (_, locality) => locality,
    };
    if let Some(Locality::Phases(Phases {
        pattern: Pattern::Zipf { .. },
        ..
    })) = &locality
        && text.is_some_and(|t| t > 0)
    {
        v.report(
            format!("{key}.locality.phases.pattern"),
            format!("a class with shared text ({key}.text) takes uniform references: a pattern by page is not defined over a text its processes share"),
        );
    }
    match (wanted, &f.locality) {
        (Wanted::Lifetime, None) => v.report(
            format!("{key}.locality"),
            "is required under memory.policy = \"paging\": give { cfl = { b = ..., c = ... } } or { bk = { a = ..., k = ... } }",
        ),
        (Wanted::Phases, None) => v.report(
            format!("{key}.locality"),
            "is required under memory.replacement = \"clock\": give { phases = { set = ..., phase = ..., reference = ... } }",
        ),
        _ => {}
    }
    let dirty = fraction(v, f.dirty, &format!("{key}.dirty"));
    let zero_fill = fraction(v, f.zero_fill, &format!("{key}.zero_fill"));
    let segment_faults = match &f.segment_faults {
        None => Some(None),
        Some(sf) => {
            let per_command = sf.per_command;
            if !(per_command.is_finite() && per_command >= 0.0) {
                v.report(
                    format!("{key}.segment_faults.per_command"),
                    format!("must be a number >= 0, got {}", Figure(per_command)),
                );
            }
            v.time(sf.cpu, &format!("{key}.segment_faults.cpu"), true)
                .filter(|_| per_command.is_finite() && per_command >= 0.0)
                .map(|cpu| Some(SegmentFaults { per_command, cpu }))
        }
    };
    let (demand, demand_scale) = demand?;
    let nice = f.nice.unwrap_or(0);
    if !(NICE_RANGE).contains(&nice) {
        v.report(
            format!("{key}.nice"),
            format!(
                "must be a whole number from {} to {}, got {nice}",
                NICE_RANGE.start(),
                NICE_RANGE.end()
            ),
        );
    }
    Some(CommandClass {
        name: f.name.clone(),
        nice: NICE_RANGE.contains(&nice).then_some(nice as i32)?,
        demand,
        demand_scale,
        io: io.into_iter().collect::<Option<_>>()?,
        size: image?,
        text: text.filter(|&t| t <= image.unwrap_or(0))?,
        locality,
        dirty: dirty?,
        zero_fill: zero_fill?,
        segment_faults: segment_faults?,
    })
}

/// The phase model of a class whose image and page size are `sizes`
/// (bytes), if both are valid.
fn phases(
    v: &mut Validator,
    key: &str,
    set: f64,
    phase: &DistSpec,
    reference: Seconds,
    pattern: Option<&PatternFile>,
    sizes: Option<(u64, u64)>,
) -> Option<Locality> {
    let pages = sizes.map(|(image, page)| image.div_ceil(page));
    let set_ok = set.is_finite() && set >= 1.0 && set.fract() == 0.0;
    if !set_ok {
        v.report(
            format!("{key}.locality.phases.set"),
            format!("must be a whole number of pages >= 1, got {set}"),
        );
    } else if let Some(pages) = pages
        && set as u64 > pages
    {
        v.report(
            format!("{key}.locality.phases.set"),
            format!("a locality set of {set} pages is larger than the program ({pages} pages of {key}.size)"),
        );
    }
    let phase_key = format!("{key}.locality.phases.phase");
    let phase = v.dist(phase, &phase_key).filter(|d| {
        let ok = d.mean() > 0.0;
        if !ok {
            v.report(
                &phase_key,
                "a phase must last some processor time: its mean must be > 0",
            );
        }
        ok
    });
    let reference = v.time(
        reference,
        &format!("{key}.locality.phases.reference"),
        false,
    );
    let set = (set_ok && pages.is_some_and(|p| set as u64 <= p)).then_some(set as u64);
    let pattern = match pattern {
        None | Some(PatternFile::Uniform) => Some(Pattern::Uniform),
        Some(&PatternFile::Zipf(exponent)) => {
            let ok = exponent.is_finite() && exponent > 0.0 && exponent <= 10.0;
            if !ok {
                v.report(
                    format!("{key}.locality.phases.pattern.zipf"),
                    format!(
                        "must be an exponent > 0 and at most 10, got {}",
                        Figure(exponent)
                    ),
                );
            }
            set.filter(|_| ok).map(|set| Pattern::zipf(exponent, set))
        }
    };
    Some(Locality::Phases(Phases {
        set: set?,
        phase: phase?,
        reference: reference?.as_secs_f64(),
        pattern: pattern?,
    }))
}

/// A fraction in [0, 1] (default 0), reported under `key` otherwise.
fn fraction(v: &mut Validator, value: Option<f64>, key: &str) -> Option<f64> {
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

fn class_index(
    v: &mut Validator,
    classes: &[CommandClassFile],
    name: &str,
    key: &str,
) -> Option<usize> {
    let found = classes.iter().position(|c| c.name == name);
    if found.is_none() {
        v.report(key, format!("no [[class]] named \"{name}\""));
    }
    found
}

fn users(v: &mut Validator, f: &UsersFile, classes: &[CommandClassFile]) -> Option<Users> {
    if f.terminals == 0 {
        v.report("users.terminals", "must be at least 1");
    }
    v.population(
        "users.terminals",
        u64::from(f.terminals),
        MOST_PROCESSES,
        "terminals",
    );
    let think = v.dist(&f.think, "users.think");
    if f.commands.is_empty() {
        v.report("users.commands", "needs at least one { class, weight }");
    }
    let mix: Vec<_> = f
        .commands
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let class = class_index(v, classes, &m.class, &format!("users.commands[{i}].class"));
            if !(m.weight.is_finite() && m.weight >= 0.0) {
                v.report(
                    format!("users.commands[{i}].weight"),
                    format!("must be a number >= 0, got {}", Figure(m.weight)),
                );
            }
            let detached = fraction(v, m.background, &format!("users.commands[{i}].background"));
            Some(Mix {
                class: class?,
                weight: m.weight,
                detached: detached?,
            })
        })
        .collect();
    let total: f64 = f.commands.iter().map(|m| m.weight).sum();
    if !(f.commands.is_empty() || total.is_finite() && total > 0.0) {
        v.report("users.commands", "the weights must add up to more than 0");
    }
    let population = match &f.login {
        None => Some(Population::Fixed(f.terminals)),
        Some(login) => sessions(v, login, f.terminals).map(|s| Population::Sessions(Box::new(s))),
    };
    let shell = match &f.shell {
        Some(name) => Some(class_index(v, classes, name, "users.shell")?),
        None => None,
    };
    let processes = match f.processes.as_deref().unwrap_or("commands") {
        "commands" => Some(ProcessCount::Commands),
        "all" => Some(ProcessCount::All),
        other => {
            v.report(
                "users.processes",
                format!("unknown count \"{other}\": expected \"commands\" or \"all\""),
            );
            None
        }
    };
    Some(Users {
        population: population.filter(|_| f.terminals > 0)?,
        think: think?,
        mix: mix.into_iter().collect::<Option<_>>()?,
        shell,
        processes: processes?,
    })
}

/// The most logins an hour: one a nanosecond, the clock's tick.
const MOST_LOGINS_PER_HOUR: f64 = 3600.0 * 1e9;

fn sessions(v: &mut Validator, f: &LoginFile, terminals: u32) -> Option<Sessions> {
    let session = v.dist(&f.session, "users.login.session");
    let mut per_hour = [0.0; 24];
    if f.per_hour.len() != 24 {
        v.report(
            "users.login.per_hour",
            format!(
                "needs 24 numbers, one per hour of the day, got {}",
                f.per_hour.len()
            ),
        );
        return None;
    }
    for (h, &rate) in f.per_hour.iter().enumerate() {
        if (0.0..=MOST_LOGINS_PER_HOUR).contains(&rate) {
            per_hour[h] = rate / 3600.0;
        } else if rate > MOST_LOGINS_PER_HOUR {
            // As for any arrival rate: a mean time between logins below
            // the clock's tick would make every gap 0.
            v.report(
                format!("users.login.per_hour[{h}]"),
                format!(
                    "must be at most {} logins an hour (a mean time between logins of at least the clock's tick of 1 ns), got {}",
                    Figure(MOST_LOGINS_PER_HOUR),
                    Figure(rate)
                ),
            );
        } else {
            v.report(
                format!("users.login.per_hour[{h}]"),
                format!("must be a number of logins >= 0, got {}", Figure(rate)),
            );
        }
    }
    if per_hour.iter().all(|&r| r == 0.0) {
        v.report("users.login.per_hour", "no hour has any logins");
    }
    let start = f.start.unwrap_or(Seconds(0.0)).0;
    if !(start.is_finite() && (0.0..86_400.0).contains(&start)) {
        v.report(
            "users.login.start",
            format!(
                "must be a time of day from 0h up to 24h, got {} s",
                Figure(start)
            ),
        );
        return None;
    }
    Some(Sessions {
        terminals,
        per_hour,
        start_hour: start / 3600.0,
        session: session?,
    })
}

fn background(
    v: &mut Validator,
    f: &BackgroundFile,
    classes: &[CommandClassFile],
) -> Option<Background> {
    let key = format!("background[{}]", f.name);
    let class = class_index(v, classes, &f.class, &format!("{key}.class"));
    if classes.iter().any(|c| c.name == f.name) {
        v.report(
            format!("{key}.name"),
            format!(
                "\"{}\" already names a [[class]]; results list both, so give the background entry its own name",
                f.name
            ),
        );
    }
    let sleep = v.dist(&f.sleep, &format!("{key}.sleep"));
    let count = f.count.unwrap_or(1);
    if count == 0 {
        v.report(format!("{key}.count"), "must be at least 1");
    }
    v.population(
        &format!("{key}.count"),
        u64::from(count),
        MOST_PROCESSES,
        "processes",
    );
    Some(Background {
        name: f.name.clone(),
        class: class?,
        count: (count > 0).then_some(count)?,
        sleep: sleep?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Problem;

    fn problems(text: &str) -> Vec<Problem> {
        match SystemFile::parse("t.toml", text).and_then(|f| f.validate("t.toml")) {
            Ok(_) => Vec::new(),
            Err(ScenarioError::Invalid { problems, .. }) => problems,
            Err(e) => vec![Problem {
                key: "syntax".into(),
                message: e.to_string(),
            }],
        }
    }

    const GOOD: &str = r#"
        name = "small"
        [run]
        end_time = "1000s"
        [system]
        quantum = "100ms"
        context_switch = "1ms"
        [memory]
        policy = "paging"
        size = "512KiB"
        kernel = "128KiB"
        page = "1KiB"
        device = "disk"
        [[device]]
        name = "disk"
        seek = { uniform = { low = "10ms", high = "50ms" } }
        rpm = 3600
        rate = "800KB/s"
        fault_cpu = "1ms"
        [users]
        terminals = 8
        think = { exp = { mean = "10s" } }
        commands = [{ class = "edit", weight = 1 }]
        [[class]]
        name = "edit"
        cpu = { exp = { mean = "200ms" } }
        io = { count = 4, size = "1KiB", device = "disk" }
        size = "64KiB"
        locality = { cfl = { b = "5ms", c = 20 } }
    "#;

    fn keys(text: &str) -> Vec<String> {
        problems(text).into_iter().map(|p| p.key).collect()
    }

    /// GOOD with its disk given an arm, `extra` added to the device.
    fn armed(arm: &str, extra: &str) -> String {
        GOOD.replace(
            r#"seek = { uniform = { low = "10ms", high = "50ms" } }"#,
            &format!("arm = {{ {arm} }}\n{extra}"),
        )
    }

    #[test]
    fn a_sweep_program_must_fit_in_user_memory() {
        // 384 pages of user memory: a sweep of 384 pages can finish a pass,
        // one of 385 never could.
        let sweep = |size: &str| {
            GOOD.replace("size = \"64KiB\"", &format!("size = \"{size}\""))
                .replace(
                    "locality = { cfl = { b = \"5ms\", c = 20 } }",
                    "locality = \"sweep\"",
                )
        };
        assert!(keys(&sweep("384KiB")).is_empty());
        let problems = problems(&sweep("385KiB"));
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].key, "class[edit].size");
        assert!(
            problems[0].message.contains("385 pages"),
            "{}",
            problems[0].message
        );
    }

    fn with_probe(probe: &str) -> String {
        format!("{GOOD}\n[probe]\n{probe}\n")
    }

    #[test]
    fn the_probe_validates_and_its_mistakes_are_named() {
        let text = with_probe(
            "benchmarks = [\"edit\", { class = \"edit\", cpu = \"5s\" }]\nsleep = \"10min\"\nwindow = { from = \"9h\", to = \"17h\" }\nresolution = \"1s\"",
        );
        let sys = SystemFile::parse("t.toml", &text)
            .unwrap()
            .validate("t.toml")
            .unwrap();
        let probe = sys.probe.unwrap();
        assert_eq!(probe.benchmarks[0].demand, None);
        assert_eq!(probe.benchmarks[1].demand, Some(SimTime::from_secs(5)));
        assert_eq!(
            probe.window,
            Some((SimTime::from_secs(9 * 3600), SimTime::from_secs(17 * 3600)))
        );
        let good = "sleep = \"10min\"";
        for (probe, key) in [
            (
                "benchmarks = [\"ed\"]\nsleep = \"10min\"",
                "probe.benchmarks",
            ),
            ("benchmarks = []\nsleep = \"10min\"", "probe.benchmarks"),
            ("benchmarks = [\"edit\"]\nsleep = \"0s\"", "probe.sleep"),
            (
                "benchmarks = [\"edit\"]\nsleep = { exp = { mean = \"0s\" } }",
                "probe.sleep.exp",
            ),
            (
                &format!(
                    "benchmarks = [\"edit\"]\n{good}\nwindow = {{ from = \"17h\", to = \"9h\" }}"
                ),
                "probe.window",
            ),
            (
                &format!(
                    "benchmarks = [\"edit\"]\n{good}\nwindow = {{ from = \"9h\", to = \"25h\" }}"
                ),
                "probe.window.to",
            ),
            (
                &format!(
                    "benchmarks = [\"edit\"]\n{good}\nwindow = {{ from = \"14h\", to = \"9h\" }}"
                ),
                "probe.window",
            ),
            (
                &format!("benchmarks = [\"edit\"]\n{good}\nresolution = \"0s\""),
                "probe.resolution",
            ),
            (
                &format!("benchmarks = [{{ class = \"edit\", instructions = 2 }}]\n{good}"),
                "probe.benchmarks[edit].instructions",
            ),
            (
                &format!(
                    "benchmarks = [{{ class = \"edit\", cpu = \"1s\", instructions = 2 }}]\n{good}"
                ),
                "probe.benchmarks[edit]",
            ),
        ] {
            assert_eq!(keys(&with_probe(probe)), [key], "{probe}");
        }
        // A demand in instructions too long for the clock is refused by key,
        // not left to overflow.
        let endless = with_probe(&format!(
            "benchmarks = [{{ class = \"edit\", instructions = 1e300 }}]\n{good}"
        ))
        .replace("quantum = \"100ms\"", "quantum = \"100ms\"\nmips = 0.001");
        assert_eq!(keys(&endless), ["probe.benchmarks[edit].instructions"]);
        // Under swapping a benchmark must fit in memory.
        let swapped = with_probe(&format!("benchmarks = [\"edit\"]\n{good}"))
            .replace("policy = \"paging\"", "policy = \"swapping\"")
            .replace("size = \"64KiB\"", "size = \"600KiB\"");
        assert!(
            keys(&swapped).contains(&"probe.benchmarks".to_string()),
            "{:?}",
            keys(&swapped)
        );
    }

    const ARM: &str = r#"cylinders = 815, track = "10ms", average = "30ms", full = "55ms""#;

    #[test]
    fn an_arm_and_its_areas_validate() {
        let text = armed(
            &format!(r#"{ARM}, order = "disksort""#),
            "swap_area = [38, 117]\nfile_system = [118, 814]",
        );
        let sys = SystemFile::parse("t.toml", &text)
            .unwrap()
            .validate("t.toml")
            .unwrap();
        let arm = sys.devices[0].arm.as_ref().unwrap();
        assert_eq!((arm.cylinders, arm.order), (815, Order::Disksort));
        assert_eq!((arm.swap_area.first, arm.swap_area.last), (38, 117));
        assert_eq!((arm.file_system.first, arm.file_system.last), (118, 814));
        assert!((arm.seek.time(814) - 0.055).abs() < 1e-12);
        // Without areas, both span the disk; without an order, FCFS.
        let sys = SystemFile::parse("t.toml", &armed(ARM, ""))
            .unwrap()
            .validate("t.toml")
            .unwrap();
        let arm = sys.devices[0].arm.as_ref().unwrap();
        assert_eq!(arm.order, Order::Fcfs);
        assert_eq!((arm.swap_area.first, arm.swap_area.last), (0, 814));
        assert_eq!(arm.file_system, arm.swap_area);
    }

    #[test]
    fn scheduler_and_nice_are_checked() {
        let unix = GOOD.replace(
            "quantum = \"100ms\"",
            "quantum = \"1s\"\nscheduler = \"unix\"",
        );
        let sys = SystemFile::parse("t.toml", &unix)
            .unwrap()
            .validate("t.toml")
            .unwrap();
        assert_eq!(sys.cpu.scheduler, Scheduler::Unix);
        let unknown = GOOD.replace(
            "quantum = \"100ms\"",
            "quantum = \"1s\"\nscheduler = \"lottery\"",
        );
        assert_eq!(keys(&unknown), ["system.scheduler"]);
        for nice in ["-21", "20"] {
            let text = GOOD.replace(
                "size = \"64KiB\"",
                &format!("size = \"64KiB\"\nnice = {nice}"),
            );
            assert_eq!(keys(&text), ["class[edit].nice"], "nice {nice}");
        }
        let text = GOOD.replace("size = \"64KiB\"", "size = \"64KiB\"\nnice = -20");
        assert_eq!(keys(&text), Vec::<String>::new());
    }

    #[test]
    fn the_multics_settings_are_checked() {
        let with = |settings: &str| {
            GOOD.replace(
                "quantum = \"100ms\"",
                &format!("quantum = \"100ms\"\nscheduler = \"multics\"\nmax_multiprogramming = 4\n{settings}"),
            )
        };
        let sys = SystemFile::parse("t.toml", &with(""))
            .unwrap()
            .validate("t.toml")
            .unwrap();
        assert_eq!(sys.cpu.scheduler, Scheduler::Multics(Multics::default()));
        let sys = SystemFile::parse("t.toml", &with("multics = { levels = 3 }"))
            .unwrap()
            .validate("t.toml")
            .unwrap();
        let Scheduler::Multics(m) = sys.cpu.scheduler else {
            panic!("{:?}", sys.cpu.scheduler)
        };
        assert_eq!((m.levels, m.min_eligible), (3, 2));
        for (settings, key) in [
            ("multics = { levels = 0 }", "system.multics.levels"),
            ("multics = { levels = 17 }", "system.multics.levels"),
            (
                "multics = { min_eligible = 0 }",
                "system.multics.min_eligible",
            ),
            (
                "multics = { min_eligible = 5 }",
                "system.multics.min_eligible",
            ),
            (
                "multics = { working_set_factor = -1 }",
                "system.multics.working_set_factor",
            ),
            (
                "multics = { working_set_factor = nan }",
                "system.multics.working_set_factor",
            ),
        ] {
            assert_eq!(keys(&with(settings)), [key], "{settings}");
        }
        let text = GOOD.replace(
            "quantum = \"100ms\"",
            "quantum = \"100ms\"\nscheduler = \"unix\"\nmultics = { levels = 3 }",
        );
        assert_eq!(keys(&text), ["system.multics"]);
    }

    #[test]
    fn shells_and_the_process_count_are_checked() {
        let text = GOOD.replace("[users]", "[users]\nprocesses = \"some\"");
        assert_eq!(keys(&text), ["users.processes"]);
        let text = GOOD.replace("[users]", "[users]\nshell = \"bash\"");
        assert_eq!(keys(&text), ["users.shell"]);
        let swapped = GOOD.replace("policy = \"paging\"", "policy = \"swapping\"");
        let huge = swapped
            .replace("[users]", "[users]\nshell = \"edit\"")
            .replace("size = \"64KiB\"", "size = \"600KiB\"");
        assert!(
            keys(&huge).contains(&"users.shell".to_string()),
            "{:?}",
            keys(&huge)
        );
    }

    #[test]
    fn bad_arms_name_their_keys() {
        let figures = |cylinders, track, average| {
            format!(
                r#"cylinders = {cylinders}, track = "{track}", average = "{average}", full = "55ms""#
            )
        };
        for (arm, extra, key) in [
            (
                format!(r#"{ARM}, order = "sstf""#),
                "",
                "device[disk].arm.order",
            ),
            (
                ARM.to_string(),
                "swap_area = [800, 815]",
                "device[disk].swap_area",
            ),
            (
                ARM.to_string(),
                "file_system = [200, 100]",
                "device[disk].file_system",
            ),
            // An average close to the full stroke needs a falling curve.
            (figures(815, "10ms", "54ms"), "", "device[disk].arm"),
            (figures(815, "40ms", "30ms"), "", "device[disk].arm"),
            (figures(2, "10ms", "30ms"), "", "device[disk].arm.cylinders"),
            (figures(815, "0ms", "30ms"), "", "device[disk].arm.track"),
        ] {
            assert_eq!(keys(&armed(&arm, extra)), [key], "{arm} {extra}");
        }
        let both = GOOD.replace("rpm = 3600", &format!("rpm = 3600\narm = {{ {ARM} }}"));
        assert_eq!(keys(&both), ["device[disk].seek"]);
        let areas_alone = GOOD.replace("rpm = 3600", "rpm = 3600\nswap_area = [0, 10]");
        assert_eq!(keys(&areas_alone), ["device[disk].swap_area"]);
    }

    #[test]
    fn a_good_system_validates() {
        let sys = SystemFile::parse("t.toml", GOOD)
            .unwrap()
            .validate("t.toml")
            .unwrap();
        assert_eq!(sys.memory.user_frames(), 384);
        assert_eq!(sys.memory.pages_of(sys.classes[0].size), 64);
        let Policy::Paging(p) = &sys.memory.policy else {
            panic!("paging expected")
        };
        assert_eq!(p.free_target, 48);
        assert!((sys.devices[0].revolution - 1.0 / 60.0).abs() < 1e-12);
        assert!(
            (sys.devices[0].mean_service(1000.0, crate::system::Region::Files)
                - (0.030 + 1.0 / 120.0 + 0.00125))
                .abs()
                < 1e-12
        );
    }

    #[test]
    fn inconsistent_memory_names_the_key() {
        let text = GOOD.replace("kernel = \"128KiB\"", "kernel = \"1MiB\"");
        assert_eq!(keys(&text), ["memory.kernel"]);
        let text = GOOD.replace("page = \"1KiB\"", "page = \"0B\"");
        assert_eq!(keys(&text), ["memory.page"]);
        let text = GOOD.replace("size = \"64KiB\"", "size = \"0KiB\"");
        assert_eq!(keys(&text), ["class[edit].size"]);
        let text = GOOD.replace("page = \"1KiB\"", "page = \"1MiB\"");
        assert_eq!(keys(&text), ["memory.page"]);
        let text = GOOD.replace("page = \"1KiB\"", "page = \"3KiB\"");
        assert_eq!(keys(&text), ["memory.size", "memory.kernel"]);
        let text = GOOD.replace("page = \"1KiB\"", "page = 1024");
        assert!(problems(&text)[0].message.contains("size"));
    }

    #[test]
    fn paging_needs_locality_and_known_devices() {
        let text = GOOD
            .replace("locality = { cfl = { b = \"5ms\", c = 20 } }", "")
            .replace(
                "device = \"disk\"\n        [[device]]",
                "device = \"drum\"\n        [[device]]",
            );
        assert_eq!(keys(&text), ["memory.device", "class[edit].locality"]);
        let text = GOOD
            .replace("policy = \"paging\"", "policy = \"swapping\"")
            .replace("locality = { cfl = { b = \"5ms\", c = 20 } }", "");
        assert!(keys(&text).is_empty());
        let text = GOOD.replace(
            "device = \"disk\"\n        [[device]]",
            "device = \"disk\"\n        disk_fraction = 0.5\n        [[device]]",
        );
        assert_eq!(keys(&text), ["memory.disk_fraction"]);
    }

    #[test]
    fn paging_spreads_over_a_list_of_drives_and_refuses_a_bad_list() {
        let two_drives = |device: &str| {
            GOOD.replace(
                "device = \"disk\"\n        [[device]]",
                &format!(
                    "device = {device}\n        [[device]]\n        name = \"disk2\"\n        rate = \"1MB/s\"\n        [[device]]"
                ),
            )
        };
        let sys = SystemFile::parse("t.toml", &two_drives(r#"["disk", "disk2"]"#))
            .unwrap()
            .validate("t.toml")
            .unwrap();
        let Policy::Paging(p) = &sys.memory.policy else {
            panic!("paging expected")
        };
        assert_eq!(p.drives, [1, 0]);
        // With no programs' device named, a program's pages lie on the
        // drives too; one drive named in a list is one drive.
        assert_eq!(sys.memory.programs, None);
        let one = SystemFile::parse("t.toml", &two_drives(r#"["disk"]"#))
            .unwrap()
            .validate("t.toml")
            .unwrap();
        assert_eq!(one.memory.programs, Some(1));
        for bad in [r#"[]"#, r#"["disk", "disk"]"#, r#"["disk", "drum"]"#] {
            assert_eq!(keys(&two_drives(bad)), ["memory.device"], "{bad}");
        }
        let swapped = two_drives(r#"["disk", "disk2"]"#)
            .replace("policy = \"paging\"", "policy = \"swapping\"")
            .replace("locality = { cfl = { b = \"5ms\", c = 20 } }", "");
        assert_eq!(keys(&swapped), ["memory.device"]);
        let bulk = two_drives(r#"["disk", "disk2"]"#).replace(
            "[[device]]\n        name = \"disk2\"",
            "bulk_store = \"disk2\"\n        disk_fraction = 0.5\n        [[device]]\n        name = \"disk2\"",
        );
        assert_eq!(keys(&bulk), ["memory.bulk_store"]);
    }

    /// GOOD under the clock, the phase model in `phases` and `memory`
    /// added to `[memory]`.
    fn clocked(phases: &str, memory: &str) -> String {
        GOOD.replace(
            "device = \"disk\"\n        [[device]]",
            &format!(
                "device = \"disk\"\n        replacement = \"clock\"\n{memory}\n        [[device]]"
            ),
        )
        .replace(
            "locality = { cfl = { b = \"5ms\", c = 20 } }",
            &format!("locality = {{ phases = {{ {phases} }} }}"),
        )
    }

    const PHASES: &str = r#"set = 20, phase = { exp = { mean = "500ms" } }, reference = "10us""#;

    /// A bulk store in front of the disk, for memory as frames, with its
    /// device (`DRUM`, to append).
    const BULK_STORE: &str = "bulk_store = \"drum\"\nbulk_store_size = \"64KiB\"";
    const DRUM: &str = "[[device]]\nname = \"drum\"\nrate = \"1MB/s\"\nfault_cpu = \"1ms\"\n";

    #[test]
    fn a_phase_s_references_may_follow_zipf_s_law() {
        for (pattern, zipf) in [
            ("", None),
            (", pattern = \"uniform\"", None),
            (", pattern = { zipf = 0.8 }", Some(0.8)),
        ] {
            let text = clocked(&format!("{PHASES}{pattern}"), "");
            let sys = SystemFile::parse("t.toml", &text)
                .unwrap()
                .validate("t.toml")
                .unwrap();
            let Some(Locality::Phases(phases)) = &sys.classes[0].locality else {
                panic!("phases")
            };
            match (&phases.pattern, zipf) {
                (Pattern::Uniform, None) => {}
                (Pattern::Zipf { exponent, weights }, Some(z)) => {
                    assert_eq!(*exponent, z);
                    assert_eq!(weights.len(), 20);
                    let total: u64 = weights.iter().sum();
                    assert!(total.abs_diff(1 << 40) < 20, "{total}");
                    // The 4th page is referenced (1/4)^0.8 as often as the 1st.
                    let ratio = weights[3] as f64 / weights[0] as f64;
                    assert!((ratio - 0.25f64.powf(0.8)).abs() < 1e-9, "{ratio}");
                }
                (other, _) => panic!("{pattern}: {other:?}"),
            }
        }
    }

    #[test]
    fn the_clock_takes_a_bulk_store_sized_by_capacity_without_the_swapper() {
        let text = clocked(PHASES, &format!("swapper = false\n{BULK_STORE}")) + DRUM;
        let sys = SystemFile::parse("t.toml", &text)
            .unwrap()
            .validate("t.toml")
            .unwrap();
        let Policy::Paging(paging) = &sys.memory.policy else {
            panic!("paging")
        };
        let bulk = paging.bulk_store.as_ref().expect("a bulk store");
        assert_eq!(sys.devices[bulk.device].name, "drum");
        assert_eq!(bulk.placement, Placement::Capacity(64));
    }

    #[test]
    fn the_clock_takes_3bsd_defaults_and_the_phase_model() {
        let sys = SystemFile::parse("t.toml", &clocked(PHASES, ""))
            .unwrap()
            .validate("t.toml")
            .unwrap();
        let Policy::Paging(paging) = &sys.memory.policy else {
            panic!("paging")
        };
        // 384 user frames: lotsfree is an eighth, desfree 64 pages but not
        // above it.
        assert_eq!(
            paging.replacement,
            Replacement::Clock(ClockDaemon {
                lotsfree: 48,
                desfree: 48,
                slowscan: 30.0,
                fastscan: 20.0,
                handspread: None,
                reference_bits: ReferenceBits::Hardware,
                pageout: Pageout::Daemon,
                minfree: 32,
                swapper: Some(PagingSwapper {
                    maxpgio: 40.0,
                    maxslp: SimTime::from_secs(20),
                }),
            })
        );
        let phases = sys.classes[0].locality.as_ref().unwrap().phases().unwrap();
        assert_eq!((phases.set, phases.reference), (20, 10e-6));
        let sys = SystemFile::parse(
            "t.toml",
            &clocked(
                PHASES,
                "lotsfree = \"96KiB\"\ndesfree = \"32KiB\"\nslowscan = \"10s\"\nfastscan = \"5s\"",
            ),
        )
        .unwrap()
        .validate("t.toml")
        .unwrap();
        let Policy::Paging(paging) = &sys.memory.policy else {
            panic!("paging")
        };
        let Replacement::Clock(clock) = paging.replacement else {
            panic!("clock")
        };
        assert_eq!((clock.lotsfree, clock.desfree), (96, 32));
        // 48 of 96 free: halfway between 10 s and 5 s a revolution, so
        // 384 frames / 7.5 s.
        assert_eq!(clock.scan_budget(48, 0, 384), 52);
        assert_eq!(clock.scan_budget(0, 0, 384), 77);
        assert_eq!(clock.scan_budget(96, 0, 384), 0);
        // Frames promised to processes just swapped in count as taken.
        assert_eq!(clock.scan_budget(48, 48, 384), 77);
        assert_eq!(clock.scan_budget(96, 96, 384), 0);
        let sys = SystemFile::parse(
            "t.toml",
            &clocked(PHASES, "tau = \"250ms\"").replace("\"clock\"", "\"working-set\""),
        )
        .unwrap()
        .validate("t.toml")
        .unwrap();
        let Policy::Paging(paging) = &sys.memory.policy else {
            panic!("paging")
        };
        let Replacement::WorkingSet { daemon, tau } = &paging.replacement else {
            panic!("working set")
        };
        assert_eq!((daemon.lotsfree, *tau), (48, SimTime::from_secs_f64(0.25)));
        // The working set has its own load control: no swapper.
        assert_eq!(daemon.swapper, None);
        let sys = SystemFile::parse(
            "t.toml",
            &clocked(PHASES, "minfree = \"8KiB\"\nmaxpgio = 20\nmaxslp = \"30s\""),
        )
        .unwrap()
        .validate("t.toml")
        .unwrap();
        let Policy::Paging(paging) = &sys.memory.policy else {
            panic!("paging")
        };
        let clock = paging.replacement.daemon().unwrap();
        assert_eq!(clock.minfree, 8);
        assert_eq!(
            clock.swapper,
            Some(PagingSwapper {
                maxpgio: 20.0,
                maxslp: SimTime::from_secs(30)
            })
        );
        let sys = SystemFile::parse("t.toml", &clocked(PHASES, "swapper = false"))
            .unwrap()
            .validate("t.toml")
            .unwrap();
        let Policy::Paging(paging) = &sys.memory.policy else {
            panic!("paging")
        };
        assert_eq!(paging.replacement.daemon().unwrap().swapper, None);
    }

    #[test]
    fn the_clock_and_its_phase_model_refuse_bad_values_by_key() {
        let cases = [
            (
                clocked(
                    r#"set = 65, phase = { det = { value = "1s" } }, reference = "1us""#,
                    "",
                ),
                "class[edit].locality.phases.set",
            ),
            (
                clocked(
                    r#"set = 2.5, phase = { det = { value = "1s" } }, reference = "1us""#,
                    "",
                ),
                "class[edit].locality.phases.set",
            ),
            (
                clocked(
                    r#"set = 20, phase = { det = { value = "0s" } }, reference = "1us""#,
                    "",
                ),
                "class[edit].locality.phases.phase",
            ),
            (
                clocked(
                    r#"set = 20, phase = { det = { value = "1s" } }, reference = "0.1ns""#,
                    "",
                ),
                "class[edit].locality.phases.reference",
            ),
            (
                clocked(&format!("{PHASES}, pattern = {{ zipf = 0.0 }}"), ""),
                "class[edit].locality.phases.pattern.zipf",
            ),
            (
                clocked(&format!("{PHASES}, pattern = {{ zipf = 11.0 }}"), ""),
                "class[edit].locality.phases.pattern.zipf",
            ),
            (
                clocked(&format!("{PHASES}, pattern = \"hot\""), ""),
                "syntax",
            ),
            (
                clocked(&format!("{PHASES}, pattern = {{ zipf = 1.0 }}"), "").replace(
                    "size = \"64KiB\"",
                    "size = \"64KiB\"\n        text = \"16KiB\"",
                ),
                "class[edit].locality.phases.pattern",
            ),
            (clocked(PHASES, "lotsfree = \"384KiB\""), "memory.lotsfree"),
            (
                clocked(PHASES, "lotsfree = \"16KiB\"\ndesfree = \"32KiB\""),
                "memory.desfree",
            ),
            (clocked(PHASES, "fastscan = \"0s\""), "memory.fastscan"),
            (
                clocked(PHASES, "handspread = \"512KiB\""),
                "memory.handspread",
            ),
            (clocked(PHASES, "tau = \"1s\""), "memory.tau"),
            (
                clocked(PHASES, "").replace("\"clock\"", "\"working-set\""),
                "memory.tau",
            ),
            (
                clocked(PHASES, "tau = \"0s\"").replace("\"clock\"", "\"working-set\""),
                "memory.tau",
            ),
            (
                clocked(PHASES, "").replace("\"clock\"", "\"page-fault-frequency\""),
                "memory.fault_interval",
            ),
            (
                clocked(PHASES, "fault_interval = \"1s\""),
                "memory.fault_interval",
            ),
            (clocked(PHASES, "kluster = 0"), "memory.kluster"),
            (
                clocked(PHASES, "desfree = \"16KiB\"\nminfree = \"32KiB\""),
                "memory.minfree",
            ),
            (
                clocked(PHASES, "swapper = true\ntau = \"1s\"")
                    .replace("\"clock\"", "\"working-set\""),
                "memory.swapper",
            ),
            (
                GOOD.replace(
                    "device = \"disk\"\n        [[device]]",
                    "device = \"disk\"\n        minfree = \"8KiB\"\n        [[device]]",
                ),
                "memory.minfree",
            ),
            (clocked(PHASES, "maxpgio = 0"), "memory.maxpgio"),
            (clocked(PHASES, "maxslp = \"-1s\""), "memory.maxslp"),
            (
                clocked(PHASES, "swapper = false\nmaxslp = \"10s\""),
                "memory.maxslp",
            ),
            (
                clocked(PHASES, "reference_bits = \"vax\""),
                "memory.reference_bits",
            ),
            (clocked(PHASES, "pageout = \"kernel\""), "memory.pageout"),
            (
                clocked(PHASES, "pageout = \"fault\"\nfastscan = \"1s\""),
                "memory.fastscan",
            ),
            (
                clocked(PHASES, "pageout = \"fault\"\nslowscan = \"1s\""),
                "memory.slowscan",
            ),
            (
                GOOD.replace(
                    "device = \"disk\"\n        [[device]]",
                    "device = \"disk\"\n        pageout = \"fault\"\n        [[device]]",
                ),
                "memory.pageout",
            ),
            (
                clocked(PHASES, "reference_bits = \"simulated\"\ntau = \"1s\"")
                    .replace("\"clock\"", "\"working-set\""),
                "memory.reference_bits",
            ),
            (
                GOOD.replace(
                    "device = \"disk\"\n        [[device]]",
                    "device = \"disk\"\n        kluster = 4\n        [[device]]",
                ),
                "memory.kluster",
            ),
            (
                clocked(
                    PHASES,
                    "swapper = false\nbulk_store = \"drum\"\ndisk_fraction = 0.5",
                ) + DRUM,
                "memory.disk_fraction",
            ),
            (
                clocked(
                    PHASES,
                    &format!("swapper = false\nreclaim = true\n{BULK_STORE}"),
                ) + DRUM,
                "memory.reclaim",
            ),
            (clocked(PHASES, BULK_STORE) + DRUM, "memory.swapper"),
            (
                clocked(PHASES, "free_target = \"8KiB\""),
                "memory.free_target",
            ),
            (
                clocked(PHASES, "").replace("\"clock\"", "\"fifo\""),
                "memory.replacement",
            ),
            (
                GOOD.replace(
                    "locality = { cfl = { b = \"5ms\", c = 20 } }",
                    &format!("locality = {{ phases = {{ {PHASES} }} }}"),
                ),
                "class[edit].locality.phases",
            ),
            (
                clocked(PHASES, "").replace(
                    &format!("locality = {{ phases = {{ {PHASES} }} }}"),
                    "locality = { cfl = { b = \"5ms\", c = 20 } }",
                ),
                "class[edit].locality",
            ),
            (
                GOOD.replace(
                    "device = \"disk\"\n        [[device]]",
                    "device = \"disk\"\n        lotsfree = \"8KiB\"\n        [[device]]",
                ),
                "memory.lotsfree",
            ),
        ];
        for (text, key) in cases {
            assert_eq!(keys(&text), [key], "{text}");
        }
    }

    #[test]
    fn the_pageout_daemon_s_keys_are_refused_where_there_is_no_daemon() {
        let daemon_keys = [
            "lotsfree = \"8KiB\"",
            "desfree = \"8KiB\"",
            "slowscan = \"1s\"",
            "fastscan = \"1s\"",
            "handspread = \"8KiB\"",
            "pageout = \"fault\"",
        ];
        let swapping = GOOD.replace("policy = \"paging\"", "policy = \"swapping\"");
        for line in daemon_keys {
            let key = format!("memory.{}", line.split(' ').next().unwrap());
            for (base, why) in [
                (GOOD, "memory.replacement = \"clock\""),
                (swapping.as_str(), "policy \"paging\""),
            ] {
                let text = base.replace(
                    "device = \"disk\"\n        [[device]]",
                    &format!("device = \"disk\"\n        {line}\n        [[device]]"),
                );
                let found = problems(&text);
                assert_eq!(found.len(), 1, "{text}");
                assert_eq!(found[0].key, key);
                assert!(found[0].message.contains(why), "{}", found[0].message);
            }
        }
    }

    #[test]
    fn users_and_classes_are_cross_checked() {
        let text = GOOD
            .replace(
                "class = \"edit\", weight = 1",
                "class = \"vi\", weight = -1",
            )
            .replace("terminals = 8", "terminals = 0");
        assert_eq!(
            keys(&text),
            [
                "users.terminals",
                "users.commands[0].class",
                "users.commands[0].weight",
                "users.commands"
            ]
        );
        let text = GOOD.replace(
            "cpu = { exp = { mean = \"200ms\" } }",
            "instructions = { exp = { mean = 0.2 } }",
        );
        assert_eq!(keys(&text), ["system.mips"]);
    }

    #[test]
    fn segment_faults_are_checked_by_key() {
        let with = |sf: &str| {
            GOOD.replace(
                "cpu = { exp = { mean = \"200ms\" } }",
                &format!("cpu = {{ exp = {{ mean = \"200ms\" }} }}\nsegment_faults = {sf}"),
            )
        };
        let sys = SystemFile::parse("t.toml", &with("{ per_command = 2.5, cpu = \"3ms\" }"))
            .unwrap()
            .validate("t.toml")
            .unwrap();
        assert_eq!(
            sys.classes[0].segment_faults,
            Some(SegmentFaults {
                per_command: 2.5,
                cpu: SimTime::from_nanos(3_000_000)
            })
        );
        assert_eq!(
            keys(&with("{ per_command = -1, cpu = \"-1ms\" }")),
            [
                "class[edit].segment_faults.per_command",
                "class[edit].segment_faults.cpu"
            ]
        );
    }

    #[test]
    fn a_processor_speed_may_be_a_calibration_with_a_hit_ratio() {
        let with = |mips: &str| {
            GOOD.replace(
                "quantum = \"100ms\"",
                &format!("quantum = \"100ms\"\nmips = {mips}"),
            )
        };
        let sys = SystemFile::parse(
            "t.toml",
            &with("{ cached = 0.92, uncached = 0.584, hit_ratio = 0.75 }"),
        )
        .unwrap()
        .validate("t.toml")
        .unwrap();
        // The report's USL: 0.80 MIPS at a 75% hit ratio.
        let mips = sys.cpu.mips.unwrap();
        assert!((mips - 1.0 / (0.75 / 0.92 + 0.25 / 0.584)).abs() < 1e-12);
        assert!((mips - 0.80).abs() < 0.005);
        let sys = SystemFile::parse("t.toml", &with("0.5"))
            .unwrap()
            .validate("t.toml")
            .unwrap();
        assert_eq!(sys.cpu.mips, Some(0.5));
        // Without it, no speed is claimed.
        let sys = SystemFile::parse("t.toml", GOOD)
            .unwrap()
            .validate("t.toml")
            .unwrap();
        assert_eq!(sys.cpu.mips, None);
        for (mips, expected) in [
            (
                "{ cached = 0.92, uncached = 0, hit_ratio = 1.5 }",
                vec!["system.mips.uncached", "system.mips.hit_ratio"],
            ),
            (
                "{ cached = 0.92, uncached = 0.5, hit = 0.5 }",
                vec!["system.mips.hit", "system.mips.hit_ratio"],
            ),
            ("-1", vec!["system.mips"]),
        ] {
            assert_eq!(keys(&with(mips)), expected, "{mips}");
        }
    }

    #[test]
    fn a_login_profile_needs_24_hours() {
        let text = GOOD.replace(
            "commands = [",
            "login = { per_hour = [1, 2], session = { exp = { mean = \"1h\" } } }\n        commands = [",
        );
        assert_eq!(keys(&text), ["users.login.per_hour"]);
    }
}
