//! `[files]` and `[[file]]`: the file system's buffer cache and the data
//! files commands read and write through it, mirrored and validated; and
//! the classes' `files`, checked against them.

use crate::scenario::Validator;
use crate::system::layout::{MOST_GROUP_BLOCKS, area_blocks};
use crate::system::{
    BufferRules, DataFile, FileAccess, FileSystem, Interleave, Layout, Memory, Policy, System,
};
use crate::units::{Bytes, BytesPerSecond, Figure, Seconds};
use serde::Deserialize;

use super::devices::{DeviceFile, device_index};
use super::size;

/// `[[file]]`: a data file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct DataFileFile {
    /// Its name.
    pub name: String,
    /// Its size.
    pub size: Bytes,
    /// Its device (default: `memory.programs`, else `memory.device` when it
    /// is one device).
    #[serde(default)]
    pub device: Option<String>,
    /// A copy per command (default false: one shared file).
    #[serde(default)]
    pub private: Option<bool>,
}

/// One of a class's `files`: `{ read = "NAME" }` or `{ write = "NAME" }`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub(crate) enum FileAccessFile {
    /// The whole file read.
    Read(String),
    /// The whole file written.
    Write(String),
}

/// `[files]`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct FilesFile {
    /// Buffers in the cache (`NBUF`).
    pub buffers: u64,
    /// The block size (default 512 bytes, V7's `BSIZE`).
    #[serde(default)]
    pub block: Option<Bytes>,
    /// Read-ahead on sequential reads (default on, as `breada` in V7's
    /// `readi`).
    #[serde(default)]
    pub read_ahead: Option<bool>,
    /// How fast the processor copies between a buffer and a process's
    /// memory.
    pub copy_rate: BytesPerSecond,
    /// `"v7"` (default) or `"4bsd"`: how buffers read and written are
    /// released.
    #[serde(default)]
    pub rules: Option<RulesFile>,
    /// `"scattered"` (default), `"contiguous"`, `"interleaved"` or
    /// `"aged"`: where a file's blocks lie.
    #[serde(default)]
    pub layout: Option<LayoutFile>,
    /// mkfs's interleave, with `layout = "interleaved"` (default m = 3,
    /// n = 500).
    #[serde(default)]
    pub interleave: Option<InterleaveFile>,
}

/// `files.layout`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum LayoutFile {
    /// Blocks on random cylinders, drawn per request.
    Scattered,
    /// Blocks one after another.
    Contiguous,
    /// Blocks as mkfs's free list hands them out.
    Interleaved,
    /// Blocks at places drawn once per block.
    Aged,
}

/// `files.interleave`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(crate) struct InterleaveFile {
    /// mkfs's m (default 3).
    #[serde(default)]
    pub gap: Option<i64>,
    /// mkfs's n (default 500).
    #[serde(default)]
    pub blocks: Option<i64>,
}

/// `files.rules`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
pub(crate) enum RulesFile {
    /// V7's `readi` and `writei`.
    #[serde(rename = "v7")]
    V7,
    /// 4BSD's.
    #[serde(rename = "4bsd")]
    Bsd,
}

/// The disk's sector: a block is a whole number of them.
const SECTOR: u64 = 512;
/// The most buffers a cache may have.
const MOST_BUFFERS: u64 = 1 << 24;

/// Refuses a program or data file with more blocks than a block number
/// holds; under a contiguous layout, a disk with an arm that holds files
/// but does not say how much a cylinder holds; under an interleaved or aged
/// one, such a disk without a geometry, or (interleaved) a file system area
/// smaller than a group; and blocks that are not whole sectors of the
/// disk's geometry.
pub(super) fn programs_fit(v: &mut Validator, system: &System) {
    let Some(files) = &system.files else { return };
    // The programs' device; exec reads through the cache only under
    // swapping.
    let swapping = matches!(system.memory.policy, Policy::Swapping { .. });
    let programs = match &system.memory.policy {
        Policy::Swapping { device, .. } => Some(system.memory.programs.unwrap_or(*device)),
        Policy::Paging(_) => system.memory.programs,
    };
    let mut holding: Vec<usize> = files
        .data
        .iter()
        .map(|d| d.device)
        .chain(programs.filter(|_| swapping))
        .collect();
    holding.sort_unstable();
    holding.dedup();
    for d in holding {
        let device = &system.devices[d];
        let Some(arm) = &device.arm else { continue };
        let name = &device.name;
        match (files.layout, arm.geometry) {
            (Layout::Contiguous, _) if arm.cylinder_bytes.is_none() => v.report(
                format!("device[{name}].arm.cylinder"),
                "is required by files.layout = \"contiguous\": the bytes a cylinder holds (tracks x sectors x sector size), which place a file's blocks",
            ),
            (Layout::Interleaved(_) | Layout::Aged, None) => v.report(
                format!("device[{name}].arm.sectors"),
                format!(
                    "is required by files.layout = \"{}\": the disk's geometry (drive, or arm.sectors and arm.tracks) places a file's blocks",
                    if files.layout == Layout::Aged { "aged" } else { "interleaved" }
                ),
            ),
            (_, Some(g)) if files.block % g.sector_bytes != 0 => v.report(
                "files.block",
                format!(
                    "{} bytes is not a whole number of device {name}'s sectors of {} bytes",
                    files.block, g.sector_bytes
                ),
            ),
            (Layout::Interleaved(i), Some(_)) => {
                let blocks = area_blocks(arm, files.block).unwrap_or(0);
                if blocks < u64::from(i.blocks) {
                    v.report(
                        "files.interleave.blocks",
                        format!(
                            "a group of {} blocks is more than device {name}'s file system area holds ({blocks} blocks of {} bytes)",
                            i.blocks, files.block
                        ),
                    );
                }
            }
            _ => {}
        }
    }
    // A file larger than the file system area it is on, where the disk
    // says how much a cylinder holds.
    let area_bytes = |d: usize| {
        system.devices[d]
            .arm
            .as_ref()
            .and_then(|a| Some(u64::from(a.file_system.len()) * a.cylinder_bytes?))
    };
    let too_big = |bytes: u64, area: Option<u64>| match area.filter(|&a| bytes > a) {
        Some(area) => Some(format!(
            "does not fit in its file system area ({area} bytes)"
        )),
        None => (bytes.div_ceil(files.block) > u64::from(u32::MAX)).then(|| {
            format!(
                "has more than 2^32 blocks of {} bytes (files.block)",
                files.block
            )
        }),
    };
    for file in &files.data {
        if let Some(why) = too_big(file.size, area_bytes(file.device)) {
            v.report(
                format!("file[{}].size", file.name),
                format!(
                    "the file of {} bytes on device {} {why}",
                    file.size, system.devices[file.device].name
                ),
            );
        }
    }
    for class in &system.classes {
        if let Some(why) = too_big(class.size, programs.and_then(area_bytes)) {
            v.report(
                format!("class[{}].size", class.name),
                format!("its program file of {} bytes {why}", class.size),
            );
        }
    }
}

/// The data files, checked: each with a size and a known device.
/// `programs` is where a file without a device goes: `Some(None)` nowhere
/// (paging over several drives, no `memory.programs`), `None` unknown
/// ([memory] did not validate, which is reported under its own keys).
fn data_files(
    v: &mut Validator,
    files: &[DataFileFile],
    devices: &[DeviceFile],
    programs: Option<Option<usize>>,
) -> Option<Vec<DataFile>> {
    // Their names are checked with the other names, before anything else.
    let checked: Vec<Option<DataFile>> = files
        .iter()
        .map(|f| {
            let key = format!("file[{}]", f.name);
            let bytes = size(v, f.size, &format!("{key}.size"), false);
            let device = match &f.device {
                Some(name) => device_index(v, devices, name, &format!("{key}.device")),
                None => match programs {
                    Some(None) => {
                        v.report(
                            format!("{key}.device"),
                            "is required here: memory.programs is not given and pages are spread over several drives",
                        );
                        None
                    }
                    Some(programs) => programs,
                    None => None,
                },
            };
            Some(DataFile {
                name: f.name.clone(),
                size: bytes?,
                device: device?,
                private: f.private.unwrap_or(false),
            })
        })
        .collect();
    checked.into_iter().collect()
}

/// A class's `files`, by index into `data`: every name known, and only
/// private files written (a shared file is read-only here).
pub(super) fn accesses(
    v: &mut Validator,
    class: &str,
    files: &[FileAccessFile],
    data: &[DataFileFile],
    cache: bool,
) -> Option<Vec<FileAccess>> {
    if !files.is_empty() && !cache {
        v.report(
            format!("class[{class}].files"),
            "data files are read through the buffer cache: give a [files] table",
        );
        return None;
    }
    let checked: Vec<Option<FileAccess>> = files
        .iter()
        .enumerate()
        .map(|(i, access)| {
            let key = format!("class[{class}].files[{i}]");
            let (name, write) = match access {
                FileAccessFile::Read(name) => (name, false),
                FileAccessFile::Write(name) => (name, true),
            };
            let Some(index) = data.iter().position(|d| &d.name == name) else {
                v.report(key, format!("no [[file]] named \"{name}\""));
                return None;
            };
            if write && !data[index].private.unwrap_or(false) {
                v.report(
                    key,
                    format!("file {name} is shared: only a private file (private = true, a temporary file) is written"),
                );
                return None;
            }
            Some(if write {
                FileAccess::Write(index)
            } else {
                FileAccess::Read(index)
            })
        })
        .collect();
    checked.into_iter().collect()
}

/// Checks `[files]` against memory (the buffers live in the kernel's
/// part) and reads the data files.
pub(super) fn files(
    v: &mut Validator,
    f: &FilesFile,
    memory: Option<&Memory>,
    data: &[DataFileFile],
    devices: &[DeviceFile],
) -> Option<FileSystem> {
    if f.buffers == 0 {
        v.report("files.buffers", "must be at least 1: a cache has a buffer");
    }
    v.population("files.buffers", f.buffers, MOST_BUFFERS, "buffers");
    let block = size(
        v,
        f.block.unwrap_or(Bytes(SECTOR as f64)),
        "files.block",
        false,
    );
    if let Some(b) = block
        && b % SECTOR != 0
    {
        v.report(
            "files.block",
            format!("must be a whole number of 512-byte sectors, got {b} bytes"),
        );
    }
    let rate = f.copy_rate.0;
    let copy = if rate.is_finite() && rate > 0.0 {
        block.and_then(|b| v.computed_time(Seconds(b as f64 / rate), "files.copy_rate", false))
    } else {
        v.report(
            "files.copy_rate",
            format!("must be a rate > 0, got {} bytes/s", Figure(rate)),
        );
        None
    };
    if let (Some(block), Some(m)) = (block, memory) {
        let cache = f.buffers.saturating_mul(block);
        if cache > m.kernel {
            v.report(
                "files.buffers",
                format!(
                    "the cache ({} buffers of {block} bytes, {cache} bytes) must fit in the kernel's part of memory, memory.kernel ({} bytes)",
                    f.buffers, m.kernel
                ),
            );
        }
    }
    // `None` when [memory] did not validate: where a file without a
    // device goes is then unknown, and not reported.
    let programs = memory.map(|m| match &m.policy {
        Policy::Swapping { device, .. } => Some(m.programs.unwrap_or(*device)),
        Policy::Paging(_) => m.programs,
    });
    let data = data_files(v, data, devices, programs);
    Some(FileSystem {
        buffers: usize::try_from(f.buffers).ok()?,
        block: block?,
        read_ahead: f.read_ahead.unwrap_or(true),
        copy: copy?,
        data: data?,
        rules: match f.rules.unwrap_or(RulesFile::V7) {
            RulesFile::V7 => BufferRules::V7,
            RulesFile::Bsd => BufferRules::Bsd,
        },
        layout: layout(v, f)?,
    })
}

/// `files.layout`, with `files.interleave` under `"interleaved"` only:
/// 1 <= gap <= blocks <= 500, as mkfs takes them.
fn layout(v: &mut Validator, f: &FilesFile) -> Option<Layout> {
    let layout = f.layout.unwrap_or(LayoutFile::Scattered);
    let Some(given) = f.interleave.filter(|_| layout == LayoutFile::Interleaved) else {
        if f.interleave.is_some() {
            v.report(
                "files.interleave",
                "is for layout = \"interleaved\" only: mkfs's free list interleave",
            );
            return None;
        }
        return Some(match layout {
            LayoutFile::Scattered => Layout::Scattered,
            LayoutFile::Contiguous => Layout::Contiguous,
            LayoutFile::Interleaved => Layout::Interleaved(Interleave::MKFS),
            LayoutFile::Aged => Layout::Aged,
        });
    };
    let most = i64::from(MOST_GROUP_BLOCKS);
    let blocks = given.blocks.unwrap_or(most);
    let gap = given.gap.unwrap_or(i64::from(Interleave::MKFS.gap));
    let mut ok = true;
    if !(1..=most).contains(&blocks) {
        v.report(
            "files.interleave.blocks",
            format!("must be a whole number from 1 to {most} (mkfs's MAXFN), got {blocks}"),
        );
        ok = false;
    }
    if !(1..=blocks.clamp(1, most)).contains(&gap) {
        v.report(
            "files.interleave.gap",
            format!(
                "must be a whole number from 1 to interleave.blocks ({}), got {gap}",
                blocks.clamp(1, most)
            ),
        );
        ok = false;
    }
    ok.then_some(Layout::Interleaved(Interleave {
        gap: gap as u32,
        blocks: blocks as u32,
    }))
}
