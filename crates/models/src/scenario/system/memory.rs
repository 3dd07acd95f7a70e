//! `[memory]`: the memory policy (swapping or paging), the replacement
//! rule and its daemon or swapper, mirrored and validated.

use crate::scenario::Validator;
use crate::system::{
    BulkStore, ClockDaemon, Memory, Pageout, Paging, PagingSwapper, Placement, Policy,
    ReferenceBits, Replacement,
};
use crate::units::{Bytes, Figure, Seconds};
use serde::Deserialize;

use super::devices::{DeviceFile, device_index};
use super::size;

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

pub(super) fn memory(v: &mut Validator, f: &MemoryFile, devices: &[DeviceFile]) -> Option<Memory> {
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
pub(super) fn drives(
    v: &mut Validator,
    f: &MemoryFile,
    devices: &[DeviceFile],
) -> Option<Vec<usize>> {
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

pub(super) fn paging(
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
pub(super) enum Wanted {
    None,
    Lifetime,
    Phases,
}

pub(super) fn wanted_locality(f: &MemoryFile) -> Wanted {
    match (f.policy.as_str(), f.replacement.as_deref()) {
        ("paging", Some("clock" | "working-set" | "page-fault-frequency")) => Wanted::Phases,
        ("paging", _) => Wanted::Lifetime,
        _ => Wanted::None,
    }
}

/// The replacement policy and its settings.
pub(super) fn replacement(
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
pub(super) fn daemon(
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
