//! Where a file system puts a file's blocks on its disk (`files.layout`):
//! the place of each block read or written through the buffer cache, as a
//! fresh or an aged UNIX file system would have put it.
//!
//! A block's place is a pure function of the file's number, the block's
//! index in the file and a number drawn once per run from the stream
//! `files/layout` (the salt), so a block lies in the same place every time
//! it is read or written in a run, and each replication lays the files out
//! anew. Files are placed independently: two may share a place, which
//! matters for timing only.
//!
//! The interleave is mkfs's (V7 and 32V `cmd/mkfs.c`, the same in 3BSD and
//! 4.0BSD): `bflist` orders the free list so that a file written on a fresh
//! file system gets blocks `gap` apart within groups of `blocks` (m = 3,
//! n = 500 by default), and the kernel's free list is a stack, so blocks are
//! handed out in the reverse of the order mkfs freed them.

use super::disk::{Arm, Place};

/// Where the blocks of a file lie on a disk with an arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Each request for a block on a cylinder of the file system drawn
    /// afresh (and under the positional rule a sector of it): an aged file
    /// system, without a block keeping its place.
    Scattered,
    /// A file's blocks one after another from the first sector of a
    /// cylinder of its own (`arm.cylinder` says how many a cylinder holds).
    Contiguous,
    /// A fresh file system made by mkfs: a file's blocks in the order its
    /// free list hands them out, from the start of a group of its own.
    Interleaved(Interleave),
    /// An aged file system whose free list is scrambled: each block of a
    /// file at a place of the file system area of its own, drawn once per
    /// block and run.
    Aged,
}

/// mkfs's free-list interleave: its `m` and `n` (`mkfs filsys size m n`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interleave {
    /// Blocks between consecutive blocks handed out (`m`, default 3).
    pub gap: u32,
    /// Blocks in a group the free list is interleaved over (`n`, mkfs's
    /// cylinder parameter: default and at most `MAXFN`, 500).
    pub blocks: u32,
}

/// mkfs's largest group (`MAXFN`).
pub const MOST_GROUP_BLOCKS: u32 = 500;

impl Interleave {
    /// mkfs's defaults: m = 3, n = 500.
    pub const MKFS: Interleave = Interleave {
        gap: 3,
        blocks: MOST_GROUP_BLOCKS,
    };

    /// The offset in its group of the `r`-th block handed out of the group.
    ///
    /// mkfs's `bflist` fills `adr[0..n]` by stepping `i` by m modulo n from
    /// 0, moving on to the next slot when a step lands on a used one, and
    /// frees the group's blocks at `d − adr[j]` (d the group's end) for j
    /// from 0 up. The free list is a stack, so the r-th handed out is the
    /// one freed last but r: offset n − adr[n − 1 − r]. The steps go round
    /// in cycles of n / gcd(m, n) slots, the c-th starting at slot c, so
    /// `adr[j]` = (c + k·m) mod n + 1 with c = j div cycle, k = j mod cycle.
    pub fn handed_out(&self, r: u32) -> u32 {
        let (m, n) = (u64::from(self.gap), u64::from(self.blocks));
        let cycle = n / gcd(m, n);
        let j = n - 1 - u64::from(r);
        let adr = (j / cycle + (j % cycle) * m) % n + 1;
        u32::try_from(n - adr).expect("an offset in a group")
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The place of block `index` of file `file` (blocks of `block` bytes) on
/// the disk of `arm`, as `layout` puts it, `salt` drawn once per run; `None`
/// where the layout draws each request's place afresh (scattered) or the
/// disk does not say enough to place it.
///
/// - Contiguous: the file's home cylinder drawn by hashing its number,
///   and one cylinder on for each cylinder's worth (`arm.cylinder`) of blocks
///   before the block, wrapping round the area; within its cylinder (with a
///   geometry) block k of the cylinder's worth at sector k × sectors a
///   block.
/// - Interleaved: the file's group drawn by hashing its number among the
///   area's whole groups of `blocks` (from the area's first cylinder; the
///   blocks past the last whole group, and the i-list, are left out); block
///   i is the i-th handed out from the group's start, running on into the
///   next groups and round the area.
/// - Aged: each block at a block of the area drawn by hashing the file's
///   number and the block's index.
pub fn place(
    layout: Layout,
    arm: &Arm,
    block: u64,
    file: u32,
    index: u32,
    salt: u64,
) -> Option<Place> {
    let area = arm.file_system;
    let file_hash = mix(u64::from(file) ^ salt);
    match layout {
        Layout::Scattered => None,
        Layout::Contiguous => {
            let per_cylinder = (arm.cylinder_bytes? / block).max(1);
            let len = u64::from(area.len());
            let home = file_hash % len;
            let cylinder = (home + u64::from(index) / per_cylinder) % len;
            let offset = arm.geometry.map_or(0, |g| {
                u64::from(index) % per_cylinder * (block / g.sector_bytes)
            });
            Some(Place {
                cylinder: area.first + u32::try_from(cylinder).expect("within the area"),
                offset: u32::try_from(offset).expect("within the cylinder"),
            })
        }
        Layout::Interleaved(interleave) => {
            let n = u64::from(interleave.blocks);
            let whole = Some(area_blocks(arm, block)? / n * n).filter(|&w| w > 0)?;
            let start = file_hash % (whole / n) * n;
            let p = (start + u64::from(index)) % whole;
            let r = u32::try_from(p % n).expect("a place in a group");
            block_place(arm, block, p / n * n + u64::from(interleave.handed_out(r)))
        }
        Layout::Aged => {
            let blocks = area_blocks(arm, block)?;
            let at = mix(file_hash ^ u64::from(index)) % blocks;
            block_place(arm, block, at)
        }
    }
}

/// The blocks of `block` bytes the file system area of `arm` holds (with a
/// geometry).
pub fn area_blocks(arm: &Arm, block: u64) -> Option<u64> {
    let g = arm.geometry?;
    Some(u64::from(arm.file_system.len()) * u64::from(g.per_cylinder()) / (block / g.sector_bytes))
}

/// The place of block `at` of the file system area, from its first sector.
fn block_place(arm: &Arm, block: u64, at: u64) -> Option<Place> {
    let g = arm.geometry?;
    let sector = at * (block / g.sector_bytes);
    let per_cylinder = u64::from(g.per_cylinder());
    Some(Place {
        cylinder: arm.file_system.first
            + u32::try_from(sector / per_cylinder).expect("within the area"),
        offset: u32::try_from(sector % per_cylinder).expect("within the cylinder"),
    })
}

/// SplitMix64's finaliser: a number spread over 64 bits, so that
/// consecutive files (and blocks) get unrelated places.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::disk::{Area, drive};

    /// mkfs's `bflist` as the C reads, and the kernel's free list as the
    /// stack it is: the blocks of one group of `n`, in the order they are
    /// handed out (offsets in the group).
    fn mkfs_hands_out(m: usize, n: usize) -> Vec<u32> {
        let (mut flg, mut adr, mut i) = (vec![false; n], vec![0; n], 0);
        for a in adr.iter_mut() {
            while flg[i] {
                i = (i + 1) % n;
            }
            *a = i + 1;
            flg[i] = true;
            i = (i + m) % n;
        }
        // for (i = 0; i < f_n; i++) { f = d - adr[i]; bfree(f); }, d the
        // group's end; then alloc() pops what bfree pushed.
        let mut free: Vec<u32> = adr.iter().map(|a| (n - a) as u32).collect();
        let mut out = Vec::new();
        while let Some(b) = free.pop() {
            out.push(b);
        }
        out
    }

    #[test]
    fn blocks_are_handed_out_as_mkfs_s_free_list_hands_them_out() {
        for (m, n) in [
            (3, 500),
            (4, 500),
            (5, 30),
            (6, 30),
            (1, 10),
            (10, 10),
            (7, 49),
        ] {
            let interleave = Interleave {
                gap: m as u32,
                blocks: n as u32,
            };
            let closed: Vec<u32> = (0..n as u32).map(|r| interleave.handed_out(r)).collect();
            assert_eq!(closed, mkfs_hands_out(m, n), "m = {m}, n = {n}");
        }
        // The defaults: B+2, B+5, ... B+497, then B+0, B+3, ... B+498, then
        // B+1, B+4, ... B+499.
        let mkfs = Interleave::MKFS;
        let at = |r| mkfs.handed_out(r);
        assert_eq!([at(0), at(1), at(2), at(165)], [2, 5, 8, 497]);
        assert_eq!([at(166), at(167), at(332)], [0, 3, 498]);
        assert_eq!([at(333), at(334), at(499)], [1, 4, 499]);
    }

    /// An RM03's arm with its file system on cylinders 100-199 (16,000
    /// sectors).
    fn rm03() -> Arm {
        drive("rm03").unwrap().arm(
            Area { first: 0, last: 99 },
            Area {
                first: 100,
                last: 199,
            },
        )
    }

    /// The sector's number counted from the file system area's first.
    fn sector(p: Place) -> u32 {
        (p.cylinder - 100) * 160 + p.offset
    }

    #[test]
    fn a_fresh_file_s_blocks_lie_gap_blocks_apart_from_the_start_of_a_group() {
        let arm = rm03();
        let interleaved = Layout::Interleaved(Interleave::MKFS);
        for (block, per_block) in [(512, 1), (1024, 2)] {
            for file in 0..20 {
                let places: Vec<u32> = (0..100)
                    .map(|i| sector(place(interleaved, &arm, block, file, i, 7).unwrap()))
                    .collect();
                // The first block handed out of a group: B + 2.
                let group = 500 * per_block;
                assert_eq!(places[0] % group, 2 * per_block, "file {file}");
                // Each next one 3 blocks on, within the group's first run.
                for w in places.windows(2) {
                    assert_eq!(w[1] - w[0], 3 * per_block, "file {file}");
                }
            }
        }
        // 16,000 blocks of 512 bytes are 32 whole groups; 8,000 of 1 KiB
        // 16, the last one whole too. Block 166 of a file is the group's
        // block 0, and block 500 the next group's block 2, wrapping round the
        // area after the last group.
        let start = sector(place(interleaved, &arm, 512, 3, 0, 7).unwrap()) - 2;
        let at = |i| sector(place(interleaved, &arm, 512, 3, i, 7).unwrap());
        assert_eq!(at(166), start);
        assert_eq!(at(500), (start + 502) % 16_000);
    }

    #[test]
    fn a_contiguous_file_runs_on_from_the_start_of_its_home_cylinder() {
        let arm = rm03();
        for file in 0..20 {
            let home = place(Layout::Contiguous, &arm, 1024, file, 0, 9).unwrap();
            assert_eq!(home.offset, 0);
            for i in 0..200 {
                let p = place(Layout::Contiguous, &arm, 1024, file, i, 9).unwrap();
                // 80 blocks of 1 KiB to a cylinder of 160 sectors.
                let cylinder = 100 + (home.cylinder - 100 + i / 80) % 100;
                assert_eq!((p.cylinder, p.offset), (cylinder, i % 80 * 2), "{file} {i}");
            }
        }
        // Without a geometry the cylinder alone is known.
        let bare = Arm {
            geometry: None,
            ..rm03()
        };
        let p = place(Layout::Contiguous, &bare, 1024, 4, 81, 9).unwrap();
        assert_eq!(
            p.cylinder,
            place(Layout::Contiguous, &arm, 1024, 4, 81, 9)
                .unwrap()
                .cylinder
        );
        assert_eq!(p.offset, 0);
    }

    #[test]
    fn an_aged_file_s_blocks_keep_places_of_their_own_all_over_the_area() {
        let arm = rm03();
        let places: Vec<u32> = (0..2000)
            .map(|i| sector(place(Layout::Aged, &arm, 1024, 5, i, 11).unwrap()))
            .collect();
        // Whole blocks of the area, the same each time a block is placed,
        // spread over it: each tenth of the area holds 200 ± 60 of them.
        assert!(places.iter().all(|&s| s % 2 == 0 && s < 16_000));
        assert_eq!(
            sector(place(Layout::Aged, &arm, 1024, 5, 17, 11).unwrap()),
            places[17]
        );
        for tenth in 0..10 {
            let n = places.iter().filter(|&&s| s / 1600 == tenth).count();
            assert!((140..=260).contains(&n), "tenth {tenth}: {n}");
        }
        // Another run lays them out anew; the scattered layout places none.
        assert_ne!(
            sector(place(Layout::Aged, &arm, 1024, 5, 17, 12).unwrap()),
            places[17]
        );
        assert_eq!(place(Layout::Scattered, &arm, 1024, 5, 17, 11), None);
    }
}
