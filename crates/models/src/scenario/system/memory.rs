//! `[memory]`: the memory policy (swapping or paging), the replacement
//! rule and its daemon or swapper, mirrored and validated.

use crate::scenario::Validator;
use crate::system::{
    BulkStore, ClockDaemon, Memory, Pageout, Paging, PagingSwapper, Placement, Policy,
    ReferenceBits, Replacement,
};
use crate::units::{Bytes, Figure, Seconds};
use serde::Deserialize;
use serde::de::{self, DeserializeOwned, Deserializer};
use serde_aux::serde_introspection::serde_introspect;

use super::devices::{DeviceFile, device_index};
use super::size;

/// `[memory]`: the keys every policy has, then those of its policy and
/// replacement. It is read in layers: each layer takes the keys its type
/// declares, and a key no layer of the policy and replacement given takes
/// is refused with the keys that do apply (and where the refused key
/// would), so which keys apply where is written once, in the types.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MemoryFile {
    pub common: CommonKeys,
    pub policy: PolicyFile,
}

/// The keys of `[memory]` under every policy.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub(crate) struct CommonKeys {
    /// Physical memory.
    pub size: Bytes,
    /// The most of it the kernel uses (default: all of it).
    #[serde(default)]
    pub usable: Option<Bytes>,
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
}

/// `memory.policy` and the keys that go with it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum PolicyFile {
    Swapping(SwappingKeys),
    Paging {
        keys: PagingKeys,
        replacement: Box<ReplacementFile>,
    },
}

/// The keys of swapping.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub(crate) struct SwappingKeys {
    /// Processor time to clear one page of a new image's bss and stack at
    /// exec (default 0).
    #[serde(default)]
    pub clear_cpu: Option<Seconds>,
    /// The most memory one process may have (32V's `MAXUMEM`; default:
    /// user memory).
    #[serde(default)]
    pub process_limit: Option<Bytes>,
}

/// The keys of paging under every replacement.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub(crate) struct PagingKeys {
    /// A bulk store in front of the paging device.
    #[serde(default)]
    pub bulk_store: Option<String>,
    /// The bulk store's capacity.
    #[serde(default)]
    pub bulk_store_size: Option<Bytes>,
    /// Whether taken pages stay reclaimable in the free pool (default
    /// false).
    #[serde(default)]
    pub reclaim: Option<bool>,
    /// Processor time of a fault without I/O (default 0).
    #[serde(default)]
    pub soft_fault_cpu: Option<Seconds>,
}

/// `memory.replacement` and the keys that go with it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ReplacementFile {
    ProcessLru(ProcessLruKeys),
    Clock(FramesKeys, ClockKeys),
    WorkingSet(FramesKeys, WorkingSetKeys),
    PageFaultFrequency(FramesKeys, FaultFrequencyKeys),
}

/// Replacement by process (`process-lru`).
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub(crate) struct ProcessLruKeys {
    /// The fraction of page reads that go to the disk, if given rather than
    /// following from the bulk store's capacity.
    #[serde(default)]
    pub disk_fraction: Option<f64>,
    /// Free memory the page daemon keeps (default ⅛ of user memory).
    #[serde(default)]
    pub free_target: Option<Bytes>,
}

/// Memory as frames (`clock`, `working-set`, `page-fault-frequency`):
/// the pageout daemon and the frames.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub(crate) struct FramesKeys {
    /// The daemon scans while less memory than this is free (default ⅛
    /// of user memory).
    #[serde(default)]
    pub lotsfree: Option<Bytes>,
    /// A fault leaving less memory than this free wakes the daemon at
    /// once (default 64 pages, at most `lotsfree`).
    #[serde(default)]
    pub desfree: Option<Bytes>,
    /// The swapper swaps a process out when the average free memory falls
    /// below this (default 32 pages, at most `desfree`).
    #[serde(default)]
    pub minfree: Option<Bytes>,
    /// A revolution of the hand at `lotsfree` free (default 30 s).
    #[serde(default)]
    pub slowscan: Option<Seconds>,
    /// A revolution of the hand at none free (default 20 s).
    #[serde(default)]
    pub fastscan: Option<Seconds>,
    /// Two hands this far apart (default: one hand).
    #[serde(default)]
    pub handspread: Option<Bytes>,
    /// Who moves the hand, `daemon` (default) or `fault`.
    #[serde(default)]
    pub pageout: Option<Pageout>,
    /// `hardware` (default) or `simulated` reference bits.
    #[serde(default)]
    pub reference_bits: Option<ReferenceBits>,
    /// Pages per cluster read from the swap area (default 1: no
    /// klustering).
    #[serde(default)]
    pub kluster: Option<u64>,
}

/// The clock's own keys: the 3BSD swapper behind it.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub(crate) struct ClockKeys {
    /// Whether the 3BSD swapper is the load control behind it (default
    /// true).
    #[serde(default)]
    pub swapper: Option<bool>,
    /// Page transfers a second above which paging cannot keep up (default
    /// 40).
    #[serde(default)]
    pub maxpgio: Option<f64>,
    /// A process asleep longer than this is swapped out when memory is
    /// short (default 20 s).
    #[serde(default)]
    pub maxslp: Option<Seconds>,
}

/// The working set's own key.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub(crate) struct WorkingSetKeys {
    /// Its window of processor time.
    #[serde(default)]
    pub tau: Option<Seconds>,
}

/// Page-fault frequency's own key.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub(crate) struct FaultFrequencyKeys {
    /// The critical interval of processor time between faults.
    #[serde(default)]
    pub fault_interval: Option<Seconds>,
}

/// The policies and replacements, as `memory.policy` and
/// `memory.replacement` name them.
const POLICIES: [&str; 2] = ["swapping", "paging"];
const REPLACEMENTS: [&str; 4] = [
    "process-lru",
    "clock",
    "working-set",
    "page-fault-frequency",
];

/// The keys of a layer, as serde names them.
fn keys_of<T: DeserializeOwned>() -> &'static [&'static str] {
    serde_introspect::<T>()
}

/// The keys that apply under `policy` and `replacement` (known names).
fn keys_under(policy: &str, replacement: &str) -> Vec<&'static str> {
    let mut keys = vec!["policy"];
    if policy == "paging" {
        keys.push("replacement");
    }
    keys.extend(keys_of::<CommonKeys>());
    if policy == "swapping" {
        keys.extend(keys_of::<SwappingKeys>());
    }
    if policy == "paging" {
        keys.extend(keys_of::<PagingKeys>());
        let frames = keys_of::<FramesKeys>();
        keys.extend(match replacement {
            "process-lru" => keys_of::<ProcessLruKeys>().to_vec(),
            "clock" => [frames, keys_of::<ClockKeys>()].concat(),
            "working-set" => [frames, keys_of::<WorkingSetKeys>()].concat(),
            _ => [frames, keys_of::<FaultFrequencyKeys>()].concat(),
        });
    }
    keys
}

/// Takes out of `table` the keys `T` declares, and reads them.
fn take<T: DeserializeOwned>(table: &mut toml::Table) -> Result<T, String> {
    let mine: toml::Table = keys_of::<T>()
        .iter()
        .filter_map(|key| table.remove_entry(*key))
        .collect();
    serde_path_to_error::deserialize(toml::Value::Table(mine)).map_err(|e| {
        // A missing key is an error of the table, whose path is `.`.
        match e.path().iter().next() {
            Some(_) => format!("memory.{}: {}", e.path(), e.inner().message()),
            None => format!("memory: {}", e.inner().message()),
        }
    })
}

/// Takes a string-valued key out of `table`, if it is there.
fn take_name(table: &mut toml::Table, key: &str) -> Result<Option<String>, String> {
    match table.remove(key) {
        None => Ok(None),
        Some(toml::Value::String(name)) => Ok(Some(name)),
        Some(other) => Err(format!(
            "memory.{key}: must be text in quotes, not {}",
            crate::words::kind_of(&other)
        )),
    }
}

/// One of `names`, or what is wrong with `name`.
fn known(name: &str, names: &[&str], key: &str) -> Result<(), String> {
    if names.contains(&name) {
        return Ok(());
    }
    Err(format!(
        "memory.{key}: unknown {key} \"{name}\": expected {}",
        names.join(", ")
    ))
}

impl MemoryFile {
    /// Reads `[memory]` from `table`, layer by layer.
    fn read(mut table: toml::Table) -> Result<MemoryFile, String> {
        let policy = take_name(&mut table, "policy")?
            .ok_or("memory.policy: missing: \"swapping\" or \"paging\"")?;
        known(&policy, &POLICIES, "policy")?;
        let replacement = if policy == "paging" {
            let name = take_name(&mut table, "replacement")?;
            let name = name.unwrap_or_else(|| "process-lru".to_string());
            known(&name, &REPLACEMENTS, "replacement")?;
            name
        } else {
            String::new()
        };
        let common = take(&mut table)?;
        let policy_file = if policy == "paging" {
            let keys = take(&mut table)?;
            let replacement = match replacement.as_str() {
                "process-lru" => ReplacementFile::ProcessLru(take(&mut table)?),
                "clock" => ReplacementFile::Clock(take(&mut table)?, take(&mut table)?),
                "working-set" => ReplacementFile::WorkingSet(take(&mut table)?, take(&mut table)?),
                _ => ReplacementFile::PageFaultFrequency(take(&mut table)?, take(&mut table)?),
            };
            PolicyFile::Paging {
                keys,
                replacement: Box::new(replacement),
            }
        } else {
            PolicyFile::Swapping(take(&mut table)?)
        };
        if let Some(key) = table.keys().next() {
            return Err(not_here(key, &policy, &replacement));
        }
        Ok(MemoryFile {
            common,
            policy: policy_file,
        })
    }
}

/// Why `key` is refused under `policy` (and `replacement`, under paging):
/// where it does apply, if anywhere, and the keys that apply here.
fn not_here(key: &str, policy: &str, replacement: &str) -> String {
    let here = if policy == "paging" {
        format!("memory.policy = \"paging\" with memory.replacement = \"{replacement}\"")
    } else {
        format!("memory.policy = \"{policy}\"")
    };
    let mut places: Vec<String> = Vec::new();
    for p in POLICIES {
        let replacements: &[&str] = if p == "paging" { &REPLACEMENTS } else { &[""] };
        let under: Vec<&str> = replacements
            .iter()
            .copied()
            .filter(|&r| keys_under(p, r).contains(&key))
            .collect();
        match (p, under.len()) {
            (_, 0) => {}
            ("paging", n) if n == REPLACEMENTS.len() => places.push("policy \"paging\"".into()),
            ("paging", _) => places.push(format!(
                "memory.replacement = {}",
                under
                    .iter()
                    .map(|r| format!("\"{r}\""))
                    .collect::<Vec<_>>()
                    .join(" or ")
            )),
            _ => places.push(format!("policy \"{p}\"")),
        }
    }
    let applies = if places.is_empty() {
        "is not a key of [memory]".to_string()
    } else {
        format!("applies only under {}", places.join(" and under "))
    };
    format!(
        "memory.{key}: {applies}; under {here} the keys are {}",
        keys_under(policy, replacement).join(", ")
    )
}

impl<'de> Deserialize<'de> for MemoryFile {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<MemoryFile, D::Error> {
        let table = toml::Table::deserialize(deserializer)?;
        MemoryFile::read(table).map_err(de::Error::custom)
    }
}

/// `memory.device`: one device's name, or several.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub(crate) enum DeviceNames {
    One(String),
    Many(Vec<String>),
}

pub(super) fn memory(v: &mut Validator, f: &MemoryFile, devices: &[DeviceFile]) -> Option<Memory> {
    let c = &f.common;
    let installed = size(v, c.size, "memory.size", false);
    let usable = c
        .usable
        .map(|u| size(v, u, "memory.usable", false))
        .unwrap_or(installed);
    // The memory the kernel manages: the machine's, or less.
    let total = installed.zip(usable).map(|(i, u)| i.min(u));
    let kernel = size(v, c.kernel.unwrap_or(Bytes(0.0)), "memory.kernel", true);
    let page = size(v, c.page, "memory.page", false);
    let drives = drives(v, f, devices);
    let (Some(total), Some(kernel), Some(page)) = (total, kernel, page) else {
        return None;
    };
    // The key that gives the memory the kernel manages.
    let of = if c.usable.is_some_and(|_| total < installed.unwrap_or(0)) {
        "memory.usable"
    } else {
        "memory.size"
    };
    if kernel >= total {
        v.report(
            "memory.kernel",
            format!("the kernel ({kernel} bytes) must be smaller than {of} ({total} bytes)"),
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
    // 32V's MAXUMEM, under swapping: None without one, Some(None) bad.
    let limit = match &f.policy {
        PolicyFile::Swapping(keys) => keys
            .process_limit
            .map(|l| size(v, l, "memory.process_limit", false)),
        PolicyFile::Paging { .. } => None,
    };
    let mut whole = vec![("memory.size", installed?), ("memory.kernel", kernel)];
    if let Some(usable) = usable.filter(|_| c.usable.is_some()) {
        whole.push(("memory.usable", usable));
    }
    if let Some(Some(limit)) = limit {
        whole.push(("memory.process_limit", limit));
    }
    for (key, bytes) in whole {
        if bytes % page != 0 {
            v.report(
                key,
                format!(
                    "{bytes} bytes is not a whole number of pages of {page} bytes (memory.page)"
                ),
            );
        }
    }
    let policy = match &f.policy {
        PolicyFile::Swapping(keys) => match drives.as_deref()? {
            [device] => {
                let clear = keys.clear_cpu.unwrap_or(Seconds(0.0));
                let clear = v.time(clear, "memory.clear_cpu", true);
                match (clear, limit) {
                    (Some(clear), None) => Some(Policy::Swapping {
                        device: *device,
                        clear,
                        process_limit: None,
                    }),
                    (Some(clear), Some(Some(limit))) => Some(Policy::Swapping {
                        device: *device,
                        clear,
                        process_limit: Some(limit),
                    }),
                    _ => None,
                }
            }
            _ => {
                v.report(
                    "memory.device",
                    "one swap device: a list of drives applies only to policy \"paging\"",
                );
                None
            }
        },
        PolicyFile::Paging { keys, replacement } => {
            let frames = Frames {
                page,
                user_frames,
                key: of,
            };
            paging(v, keys, replacement, devices, drives.clone(), frames)
        }
    };
    let programs = match (&c.programs, drives.as_deref()) {
        (Some(name), _) => device_index(v, devices, name, "memory.programs").map(Some),
        (None, Some([one])) => Some(Some(*one)),
        (None, drives) => drives.map(|_| None),
    };
    Some(Memory {
        size: total,
        installed: installed?,
        kernel,
        page,
        programs: programs?,
        policy: policy?,
    })
}

/// The most frames memory as frames holds: a page's entry keeps its
/// frame's number in 29 bits.
const MOST_FRAMES: u64 = 1 << 29;

/// The bulk store under memory as frames holds fewer pages than this, so
/// that its pages' writes, numbered anew from 0 when their serials run
/// out, fit in the 29 bits a page's entry holds (`BulkQueue::serial`).
const MOST_BULK_PAGES: u64 = 1 << 27;

/// The page size and the frames of user memory, which sizes in bytes are
/// read against.
#[derive(Clone, Copy, Debug)]
struct Frames {
    page: u64,
    user_frames: u64,
    /// The key that gives the memory: `memory.size`, or `memory.usable`
    /// where that is the smaller.
    key: &'static str,
}

/// The devices `memory.device` names: one, or several distinct drives.
pub(super) fn drives(
    v: &mut Validator,
    f: &MemoryFile,
    devices: &[DeviceFile],
) -> Option<Vec<usize>> {
    let names = match &f.common.device {
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
    keys: &PagingKeys,
    replacement: &ReplacementFile,
    devices: &[DeviceFile],
    drives: Option<Vec<usize>>,
    frames: Frames,
) -> Option<Policy> {
    let Frames {
        page,
        user_frames,
        key,
    } = frames;
    let lru = match replacement {
        ReplacementFile::ProcessLru(lru) => Some(lru),
        _ => None,
    };
    if lru.is_none() && user_frames > MOST_FRAMES {
        v.report(
            key,
            format!(
                "{user_frames} frames of {page} bytes: memory as frames holds at most 2^29 ({MOST_FRAMES}); give larger pages (memory.page) or less memory"
            ),
        );
    }
    let disk_fraction = lru.and_then(|l| l.disk_fraction);
    let bulk_store = match &keys.bulk_store {
        None => {
            refuse_present(
                v,
                [
                    ("bulk_store_size", keys.bulk_store_size.is_some()),
                    ("disk_fraction", disk_fraction.is_some()),
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
            let placement = match (keys.bulk_store_size, disk_fraction) {
                (Some(b), None) => size(v, b, "memory.bulk_store_size", false)
                    .map(|b| b / page)
                    .filter(|&pages| {
                        let fits = lru.is_some() || pages < MOST_BULK_PAGES;
                        if !fits {
                            v.report(
                                "memory.bulk_store_size",
                                format!(
                                    "{pages} pages of {page} bytes: under memory as frames a bulk store holds fewer than 2^27 ({MOST_BULK_PAGES})"
                                ),
                            );
                        }
                        fits
                    })
                    .map(Placement::Capacity),
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
                _ if lru.is_some() => {
                    v.report(
                        "memory.bulk_store",
                        "give exactly one of memory.bulk_store_size and memory.disk_fraction",
                    );
                    None
                }
                _ => {
                    v.report(
                        "memory.bulk_store",
                        "give its size with memory.bulk_store_size: under memory as frames pages go to the bulk store as they leave memory",
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
    let replacement = self::replacement(v, keys, replacement, frames);
    let kluster = replacement.as_ref().map(|r| r.1);
    let free_target = match lru.and_then(|l| l.free_target) {
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
        keys.soft_fault_cpu.unwrap_or(Seconds(0.0)),
        "memory.soft_fault_cpu",
        true,
    );
    Some(Policy::Paging(Paging {
        drives: drives?,
        bulk_store: bulk_store?,
        replacement: replacement?.0,
        kluster: kluster?,
        free_target: free_target?,
        reclaim: keys.reclaim.unwrap_or(false),
        soft_fault_cpu: soft_fault_cpu?,
    }))
}

/// Which locality a class needs: none under swapping, a lifetime function
/// under replacement by process, the phase model under the clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Wanted {
    None,
    Lifetime,
    Phases,
}

pub(super) fn wanted_locality(f: &MemoryFile) -> Wanted {
    match &f.policy {
        PolicyFile::Swapping(_) => Wanted::None,
        PolicyFile::Paging { replacement, .. } => match **replacement {
            ReplacementFile::ProcessLru(_) => Wanted::Lifetime,
            _ => Wanted::Phases,
        },
    }
}

/// The replacement policy and its settings, with the pages per cluster
/// read from the swap area (1 under replacement by process).
fn replacement(
    v: &mut Validator,
    keys: &PagingKeys,
    replacement: &ReplacementFile,
    frames: Frames,
) -> Option<(Replacement, u64)> {
    let (f, name, clock) = match replacement {
        ReplacementFile::ProcessLru(_) => return Some((Replacement::ProcessLru, 1)),
        ReplacementFile::Clock(f, clock) => (f, "clock", Some(clock)),
        ReplacementFile::WorkingSet(f, _) => (f, "working-set", None),
        ReplacementFile::PageFaultFrequency(f, _) => (f, "page-fault-frequency", None),
    };
    if keys.bulk_store.is_some() {
        if keys.reclaim == Some(true) {
            v.report(
                "memory.reclaim",
                "cannot be true with a bulk store under memory as frames: a page leaving memory goes to the bulk store",
            );
        }
        if clock.is_some_and(|c| c.swapper != Some(false)) {
            v.report(
                "memory.swapper",
                "must be false with a bulk store: the 3BSD swapper writes to the swap area, and the clock in front of a bulk store (Multics) runs alone",
            );
        }
    }
    let kluster = match f.kluster {
        None => Some(1),
        Some(k) if (1..=64).contains(&k) => Some(k),
        Some(k) => {
            v.report(
                "memory.kluster",
                format!("must be a whole number of pages from 1 to 64, got {k}"),
            );
            None
        }
    };
    let daemon = daemon(v, f, clock, frames);
    if clock.is_none() && daemon.is_some_and(|d| d.reference_bits == ReferenceBits::Simulated) {
        v.report(
            "memory.reference_bits",
            format!("\"simulated\" works with memory.replacement = \"clock\" only: {name} needs the time of each page's last reference"),
        );
    }
    let window = |v: &mut Validator, value: Option<Seconds>, key: &str, what: &str| match value {
        Some(value) => v.time(value, key, false),
        None => {
            v.report(
                key,
                format!(
                    "is required under memory.replacement = \"{name}\": {what}, such as \"500ms\""
                ),
            );
            None
        }
    };
    let replacement = match replacement {
        ReplacementFile::ProcessLru(_) => unreachable!("returned above"),
        ReplacementFile::Clock(..) => Replacement::Clock(daemon?),
        ReplacementFile::WorkingSet(_, ws) => Replacement::WorkingSet {
            tau: window(v, ws.tau, "memory.tau", "the window of processor time")?,
            daemon: daemon?,
        },
        ReplacementFile::PageFaultFrequency(_, pff) => Replacement::PageFaultFrequency {
            interval: window(
                v,
                pff.fault_interval,
                "memory.fault_interval",
                "the critical interval of processor time between faults",
            )?,
            daemon: daemon?,
        },
    };
    Some((replacement, kluster?))
}

/// The pageout daemon's settings, with 3BSD's defaults (`h/vm.h`):
/// `lotsfree` ⅛ of user memory, `desfree` 64 pages but not above
/// `lotsfree`, a revolution in 30 s at `lotsfree` and 20 s at none free,
/// one hand.
fn daemon(
    v: &mut Validator,
    f: &FramesKeys,
    clock: Option<&ClockKeys>,
    frames: Frames,
) -> Option<ClockDaemon> {
    let (lotsfree, desfree, minfree) = thresholds(v, f, frames);
    let swapper = match clock {
        Some(clock) => paging_swapper(v, clock),
        // The working set and page-fault frequency have their own load
        // control.
        None => Some(None),
    };
    let hand = hand(v, f, frames);
    let (slowscan, fastscan, handspread, pageout) = hand?;
    Some(ClockDaemon {
        lotsfree: lotsfree?,
        desfree: desfree?,
        slowscan,
        fastscan,
        handspread,
        reference_bits: f.reference_bits.unwrap_or(ReferenceBits::Hardware),
        pageout,
        minfree: minfree?,
        swapper: swapper?,
    })
}

/// The daemon's free-memory thresholds in frames, each where valid:
/// `lotsfree` ⅛ of user memory, `desfree` 64 pages but not above it,
/// `minfree` 32 pages but not above `desfree`.
fn thresholds(
    v: &mut Validator,
    f: &FramesKeys,
    Frames {
        page, user_frames, ..
    }: Frames,
) -> (Option<u64>, Option<u64>, Option<u64>) {
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
    (lotsfree, desfree, minfree)
}

/// How the hand moves: its revolution times at `lotsfree` and at none
/// free \[s\] (30 s and 20 s), the frames between two hands (one hand),
/// and who moves it.
fn hand(
    v: &mut Validator,
    f: &FramesKeys,
    Frames {
        page, user_frames, ..
    }: Frames,
) -> Option<(f64, f64, Option<u64>, Pageout)> {
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
    let pageout = f.pageout.unwrap_or(Pageout::Daemon);
    if pageout == Pageout::Fault {
        refuse_present(
            v,
            [
                ("slowscan", f.slowscan.is_some()),
                ("fastscan", f.fastscan.is_some()),
            ],
            "applies only to memory.pageout = \"daemon\": the fault handler moves the hand without a budget",
        );
    }
    Some((slowscan?, fastscan?, handspread?, pageout))
}

/// Reports each memory key of `fields` that is present (`true`) as one
/// that does not apply with the values given beside it (a bulk store's
/// size without a bulk store, the swapper's settings with it switched
/// off, scan times when faults move the hand), saying `why`.
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
/// swapper (switched off).
fn paging_swapper(v: &mut Validator, f: &ClockKeys) -> Option<Option<PagingSwapper>> {
    if f.swapper == Some(false) {
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
