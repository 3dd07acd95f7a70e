//! `[files]`: the file system's buffer cache, mirrored and validated.

use crate::scenario::Validator;
use crate::system::{FileSystem, Memory, Policy, System};
use crate::units::{Bytes, BytesPerSecond, Figure, Seconds};
use serde::Deserialize;

use super::size;

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
}

/// The disk's sector: a block is a whole number of them.
const SECTOR: u64 = 512;
/// The most buffers a cache may have.
const MOST_BUFFERS: u64 = 1 << 24;

/// Refuses a program file with more blocks than a block number holds.
pub(super) fn programs_fit(v: &mut Validator, system: &System) {
    let Some(files) = system.files else { return };
    for class in &system.classes {
        if class.size.div_ceil(files.block) > u64::from(u32::MAX) {
            v.report(
                format!("class[{}].size", class.name),
                format!(
                    "its program file would have more than 2^32 blocks of {} bytes (files.block)",
                    files.block
                ),
            );
        }
    }
}

/// Checks `[files]` against memory: the buffers live in the kernel's part.
pub(super) fn files(
    v: &mut Validator,
    f: &FilesFile,
    memory: Option<&Memory>,
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
        block.and_then(|b| v.time(Seconds(b as f64 / rate), "files.copy_rate", false))
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
        if let Policy::Paging(_) = m.policy {
            v.report(
                "files",
                "the buffer cache is modelled under swapping only so far (exec reading a program's file); under paging a program's pages come from its file by faults, not through the cache",
            );
        }
    }
    Some(FileSystem {
        buffers: usize::try_from(f.buffers).ok()?,
        block: block?,
        read_ahead: f.read_ahead.unwrap_or(true),
        copy: copy?,
    })
}
