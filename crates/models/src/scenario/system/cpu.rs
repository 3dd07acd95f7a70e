//! `[system]`: the processors, their speed and the scheduler (and
//! `system.multics`), mirrored and validated.

use crate::scenario::Validator;
use crate::system::{Cpu, Fair, Multics, Scheduler, Unix, effective_mips};
use crate::units::{Figure, Seconds};
use serde::Deserialize;
use tpsim_core::SimTime;

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
    /// between rescheduling checks; under the fair scheduler, the clock
    /// tick at which a used-up slice is noticed.
    pub quantum: Seconds,
    /// `"round-robin"` (default), `"unix"`, `"multics"` or `"fair"`.
    #[serde(default)]
    pub scheduler: Option<SchedulerName>,
    /// The Multics scheduler's settings.
    #[serde(default)]
    pub multics: Option<MulticsFile>,
    /// The UNIX scheduler's settings.
    #[serde(default)]
    pub unix: Option<UnixFile>,
    /// The fair scheduler's settings.
    #[serde(default)]
    pub fair: Option<FairFile>,
    /// The cost of a dispatch (default 0).
    #[serde(default)]
    pub context_switch: Option<Seconds>,
    /// The eligibility limit (default: none).
    #[serde(default)]
    pub max_multiprogramming: Option<u32>,
}

/// `system.scheduler`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum SchedulerName {
    RoundRobin,
    Unix,
    Multics,
    Fair,
}

/// `system.fair`: the fair scheduler's settings (defaults in
/// [`Fair::default`]).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct FairFile {
    #[serde(default)]
    pub base_slice: Option<Seconds>,
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

/// `system.unix`: the UNIX scheduler's settings (defaults in
/// [`Unix::default`]).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct UnixFile {
    #[serde(default)]
    pub decay: Option<f64>,
    #[serde(default)]
    pub pagein_priority: Option<u8>,
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

/// The most processors a system may have.
const MOST_CPUS: u64 = 4096;
/// The fastest processor `system.mips` may give \[MIPS\]: a million
/// million instructions a second. Far faster, demands in instructions
/// would take less than the clock's tick, and the instructions, not the
/// speed, would be blamed.
const MOST_MIPS: f64 = 1e6;

/// The speed `system.mips` gives, checked: a number > 0, or a calibration
/// with positive speeds and a hit ratio in [0, 1]; at most [`MOST_MIPS`].
pub(super) fn processor_speed(v: &mut Validator, m: &MipsFile) -> Option<f64> {
    let positive = |x: f64| x.is_finite() && x > 0.0 && x <= MOST_MIPS;
    let wrong = |x: f64| {
        if x > MOST_MIPS {
            format!(
                "must be at most {} MIPS (a million million instructions a second), got {}",
                Figure(MOST_MIPS),
                Figure(x)
            )
        } else {
            format!("must be a speed > 0 in MIPS, got {}", Figure(x))
        }
    };
    match *m {
        MipsFile::Speed(m) if positive(m) => Some(m),
        MipsFile::Speed(m) => {
            v.report("system.mips", wrong(m));
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
                    v.report(format!("system.mips.{key}"), wrong(x));
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

pub(super) fn cpu(v: &mut Validator, f: &CpuFile) -> Option<Cpu> {
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
    let scheduler = match f.scheduler.unwrap_or(SchedulerName::RoundRobin) {
        SchedulerName::RoundRobin => Some(Scheduler::RoundRobin),
        SchedulerName::Unix => unix(v, f.unix.as_ref()).map(Scheduler::Unix),
        SchedulerName::Multics => {
            multics(v, f.multics.as_ref(), max_multiprogramming).map(Scheduler::Multics)
        }
        SchedulerName::Fair => fair(v, f.fair.as_ref()).map(Scheduler::Fair),
    };
    if f.multics.is_some() && !matches!(scheduler, None | Some(Scheduler::Multics(_))) {
        v.report(
            "system.multics",
            "applies only with scheduler = \"multics\"",
        );
    }
    if f.unix.is_some() && !matches!(scheduler, None | Some(Scheduler::Unix(_))) {
        v.report("system.unix", "applies only with scheduler = \"unix\"");
    }
    if f.fair.is_some() && !matches!(scheduler, None | Some(Scheduler::Fair(_))) {
        v.report("system.fair", "applies only with scheduler = \"fair\"");
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

/// The best user priority (`PUSER`): kernel priorities are below it.
const USER_PRIORITY: u8 = 50;

/// `system.unix`, checked: a decay factor strictly between 0 and 1, a
/// kernel priority below `PUSER`.
fn unix(v: &mut Validator, f: Option<&UnixFile>) -> Option<Unix> {
    let d = Unix::default();
    let pagein_priority = f
        .and_then(|f| f.pagein_priority)
        .unwrap_or(d.pagein_priority);
    if pagein_priority >= USER_PRIORITY {
        v.report(
            "system.unix.pagein_priority",
            format!(
                "must be a kernel priority, 0 to {} (below PUSER, {USER_PRIORITY}), got \
                 {pagein_priority}",
                USER_PRIORITY - 1
            ),
        );
    }
    let decay = f.and_then(|f| f.decay).unwrap_or(d.decay);
    if !(decay > 0.0 && decay < 1.0) {
        v.report(
            "system.unix.decay",
            format!(
                "must be a factor between 0 and 1 (exclusive) that recent processor use is \
                 multiplied by each second, got {}",
                Figure(decay)
            ),
        );
        return None;
    }
    (pagein_priority < USER_PRIORITY).then_some(Unix {
        decay,
        pagein_priority,
    })
}

/// `system.fair`, checked: a base slice within the range Linux allows a
/// task's slice, 0.1 ms to 100 ms (`__setparam_fair`).
fn fair(v: &mut Validator, f: Option<&FairFile>) -> Option<Fair> {
    let d = Fair::default();
    let Some(seconds) = f.and_then(|f| f.base_slice) else {
        return Some(d);
    };
    let base_slice = v.time(seconds, "system.fair.base_slice", false)?;
    if !(SimTime::from_nanos(100_000)..=SimTime::from_nanos(100_000_000)).contains(&base_slice) {
        v.report(
            "system.fair.base_slice",
            format!(
                "must be from 0.1 ms to 100 ms, as Linux allows a slice, got {} s",
                Figure(seconds.0)
            ),
        );
        return None;
    }
    Some(Fair { base_slice })
}

/// The most queue levels: the quantum doubles at each, so the last is
/// 2^15 quanta.
const MOST_LEVELS: u8 = 16;

pub(super) fn multics(
    v: &mut Validator,
    f: Option<&MulticsFile>,
    max: Option<u32>,
) -> Option<Multics> {
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
