//! The buffer cache of UNIX V7 and 4BSD: a fixed number of buffers of one
//! block each, kept by the block they hold (V7 `dev/bio.c`).
//!
//! A buffer is found by its block through a hash table (with the Fx hash
//! of `rustc-hash`: the keys are the model's own, not an adversary's), so
//! a lookup costs O(1) whatever the number of buffers. Buffers not in use are on a free
//! list in the order they were last released: a block not in the cache
//! takes the buffer at the head, the one released longest ago (`getblk`),
//! which makes the cache LRU. A read of a block found in the cache costs
//! no I/O (`bread` finding `B_DONE`); one being read already waits for that
//! read; any other is read from disk into the buffer taken. With read-ahead
//! the next block of a sequential read is read too, without waiting for it
//! (`breada`). A write of part of a block is delayed (`bdwrite`): the
//! buffer is marked and released, and written only when `getblk` takes it
//! for another block (then asynchronously, and the next buffer is taken) or
//! when `update` flushes every delayed write, every 30 s (`bflush` from
//! `sync`). A buffer written asynchronously goes back to the head of the
//! free list when its write is done (`B_AGE`), its block still valid.
//!
//! The cache knows blocks, not devices or processes: it says what to read
//! and write, and its user issues the requests, makes the processes wait
//! and tells it when a transfer is done.
//!
//! ```
//! use tpsim_models::system::buffer_cache::{Access, Block, BufferCache};
//! let mut cache = BufferCache::new(2);
//! let inode = Block { file: 0, index: 0 };
//! assert_eq!(cache.read(inode), Access::Miss { write_back: vec![] });
//! assert_eq!(cache.read(inode), Access::InTransit);
//! cache.transfer_done(inode);
//! assert_eq!(cache.read(inode), Access::Hit);
//! ```

use super::free_list::{FreeList, Linked, Links};
use rustc_hash::FxHashMap;

/// A block of a file: the file's number and the block's index in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block {
    /// The file's number.
    pub file: u32,
    /// The block's index in the file.
    pub index: u32,
}

/// What a buffer is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Use {
    /// On the free list, holding nothing.
    Empty,
    /// On the free list, holding its block (`B_DONE`); `delayed` if it
    /// must be written before it holds another (`B_DELWRI`).
    Valid { delayed: bool },
    /// Off the free list: its block is being read in.
    Reading,
    /// Off the free list: its block is being written out; `aged` if it was
    /// a delayed write pushed out (`B_AGE`: back at the head of the free
    /// list when done), not a process's own write (at the tail).
    Writing { aged: bool },
}

/// One buffer: the block it holds and its links on the free list.
#[derive(Clone, Copy, Debug)]
struct Buffer {
    block: Option<Block>,
    use_: Use,
    links: Links,
}

impl Linked for Buffer {
    fn links(&self) -> Links {
        self.links
    }
    fn links_mut(&mut self) -> &mut Links {
        &mut self.links
    }
}

/// What a read (or a write) of a block asks of the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Access {
    /// The block is in the cache: a copy, no I/O.
    Hit,
    /// The block is being read or written already: wait for that.
    InTransit,
    /// The block is to be read from disk into a buffer taken for it (for
    /// a write of a whole block, nothing is read); first the delayed
    /// writes of the buffers passed over, oldest first, are started (not
    /// waited for).
    Miss {
        /// The delayed writes to start.
        write_back: Vec<Block>,
    },
    /// Every buffer is being read or written (some, passed over, just
    /// now: their delayed writes are started): wait for one.
    NoBuffer {
        /// The delayed writes to start.
        write_back: Vec<Block>,
    },
}

/// What the cache has counted since it was made or its counts were reset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheCounts {
    /// Reads found in the cache.
    pub hits: u64,
    /// Reads that waited for a transfer of their block under way.
    pub in_transit: u64,
    /// Reads from disk that a process waited for.
    pub misses: u64,
    /// Reads ahead started.
    pub read_aheads: u64,
    /// Writes to disk: delayed writes pushed out and whole blocks written.
    pub writes: u64,
}

impl CacheCounts {
    /// What was counted after `earlier`, a copy of these counts taken
    /// before.
    pub fn since(&self, earlier: &CacheCounts) -> CacheCounts {
        CacheCounts {
            hits: self.hits - earlier.hits,
            in_transit: self.in_transit - earlier.in_transit,
            misses: self.misses - earlier.misses,
            read_aheads: self.read_aheads - earlier.read_aheads,
            writes: self.writes - earlier.writes,
        }
    }
}

/// The buffers, the table finding them by block, and the free list.
#[derive(Debug)]
pub struct BufferCache {
    buffers: Vec<Buffer>,
    by_block: FxHashMap<Block, u32>,
    free: FreeList,
    counts: CacheCounts,
}

impl BufferCache {
    /// A cache of `nbuf` empty buffers, all on the free list.
    ///
    /// # Panics
    /// If `nbuf` is 0 or at least 2^32.
    pub fn new(nbuf: usize) -> BufferCache {
        let nbuf = u32::try_from(nbuf).expect("fewer than 2^32 buffers");
        assert!(nbuf > 0, "a cache has a buffer");
        let mut cache = BufferCache {
            buffers: vec![
                Buffer {
                    block: None,
                    use_: Use::Empty,
                    links: Links::NONE,
                };
                nbuf as usize
            ],
            by_block: FxHashMap::with_capacity_and_hasher(nbuf as usize, Default::default()),
            free: FreeList::new(),
            counts: CacheCounts::default(),
        };
        for b in 0..nbuf {
            cache.free.push_back(&mut cache.buffers, b);
        }
        cache
    }

    /// What the cache has counted.
    pub fn counts(&self) -> CacheCounts {
        self.counts
    }

    /// Whether `block` is in the cache, valid or in transit (`incore`).
    pub fn holds(&self, block: Block) -> bool {
        self.by_block.contains_key(&block)
    }

    /// A process reads `block` (`bread`): a hit moves its buffer to the
    /// tail of the free list, as released just now; a miss takes a buffer,
    /// and the caller reads the block and calls `transfer_done`.
    pub fn read(&mut self, block: Block) -> Access {
        let access = self.access(block, Use::Reading);
        match access {
            Access::Hit => self.counts.hits += 1,
            Access::InTransit => self.counts.in_transit += 1,
            Access::Miss { .. } => self.counts.misses += 1,
            Access::NoBuffer { .. } => {}
        }
        access
    }

    /// The read ahead of `block` (`breada`'s second block), if it is not in
    /// the cache: a `Miss` to read, nobody waiting for it, or `NoBuffer`
    /// when no buffer is free (V7 would wait for one; the read ahead is
    /// dropped). `None` when the block is in the cache.
    pub fn read_ahead(&mut self, block: Block) -> Option<Access> {
        if self.holds(block) {
            return None;
        }
        let access = self.access(block, Use::Reading);
        match access {
            Access::Miss { .. } => self.counts.read_aheads += 1,
            Access::NoBuffer { .. } => {}
            Access::Hit | Access::InTransit => unreachable!("the block is not in the cache"),
        }
        Some(access)
    }

    /// A process writes the whole of `block` at once (`bawrite`): it takes
    /// the block's buffer, or another, and the caller writes it and calls
    /// `transfer_done`; nobody waits for the write. `aged`: the buffer goes
    /// back at the head of the free list when the write is done (4BSD's
    /// `writei` sets `B_AGE`), else at the tail.
    pub fn write_whole(&mut self, block: Block, aged: bool) -> Access {
        let access = self.access(block, Use::Writing { aged });
        if matches!(access, Access::Hit | Access::Miss { .. }) {
            self.counts.writes += 1;
        }
        access
    }

    /// A process writes the whole of `block`, to go out later (V7's
    /// `writei`: `getblk` then `bdwrite`): it takes the block's buffer, or
    /// another, without reading it, marks it to be written and releases it
    /// at the tail of the free list. No transfer now; a `Miss` only passes
    /// its delayed writes on.
    pub fn write_delayed(&mut self, block: Block) -> Access {
        let access = self.access(block, Use::Valid { delayed: true });
        match access {
            Access::Hit => {
                let b = self.by_block[&block];
                self.buffers[b as usize].use_ = Use::Valid { delayed: true };
            }
            Access::Miss { .. } => {
                let b = self.by_block[&block];
                self.free.push_back(&mut self.buffers, b);
            }
            Access::InTransit | Access::NoBuffer { .. } => {}
        }
        access
    }

    /// A process is done with `block`, which it read to its end: its
    /// buffer goes to the head of the free list, to be taken first (4BSD's
    /// `readi` sets `B_AGE`). Nothing if the block is not on the free
    /// list.
    pub fn age(&mut self, block: Block) {
        let Some(&b) = self.by_block.get(&block) else {
            return;
        };
        if let Use::Valid { .. } = self.buffers[b as usize].use_ {
            self.free.unlink(&mut self.buffers, b);
            self.free.push_front(&mut self.buffers, b);
        }
    }

    /// A process writes part of `block` (`bdwrite` after reading it): the
    /// block must be in the cache and valid; its buffer is marked to be
    /// written later and released.
    pub fn write_part(&mut self, block: Block) {
        let b = self.by_block[&block];
        let buffer = &mut self.buffers[b as usize];
        assert!(
            matches!(buffer.use_, Use::Valid { .. }),
            "a block written in part was read first"
        );
        buffer.use_ = Use::Valid { delayed: true };
        self.free.unlink(&mut self.buffers, b);
        self.free.push_back(&mut self.buffers, b);
    }

    /// The read or write of `block` is done: its buffer holds it, valid,
    /// on the free list: at the tail after a read or a process's own write,
    /// as released just now; at the head after a delayed write pushed out
    /// (V7 `bwrite` sets `B_AGE` only for those).
    pub fn transfer_done(&mut self, block: Block) {
        let b = self.by_block[&block];
        let buffer = &mut self.buffers[b as usize];
        let was = buffer.use_;
        buffer.use_ = Use::Valid { delayed: false };
        match was {
            Use::Reading | Use::Writing { aged: false } => {
                self.free.push_back(&mut self.buffers, b)
            }
            Use::Writing { aged: true } => self.free.push_front(&mut self.buffers, b),
            Use::Empty | Use::Valid { .. } => unreachable!("a transfer of {block:?} was under way"),
        }
    }

    /// `update`'s flush (`bflush`): every delayed write is started, in
    /// free-list order; the caller writes each block and calls
    /// `transfer_done`.
    pub fn flush(&mut self) -> Vec<Block> {
        let mut delayed = Vec::new();
        let mut on = self.free.head();
        while let Some(b) = on {
            let next = FreeList::after(&self.buffers, b);
            if self.buffers[b as usize].use_ == (Use::Valid { delayed: true }) {
                self.start_write(b);
                delayed.push(
                    self.buffers[b as usize]
                        .block
                        .expect("a delayed write has a block"),
                );
            }
            on = next;
        }
        self.counts.writes += delayed.len() as u64;
        delayed
    }

    /// Finds or takes a buffer for `block`, to be put to `transfer` on a
    /// miss (`getblk`).
    fn access(&mut self, block: Block, transfer: Use) -> Access {
        if let Some(&b) = self.by_block.get(&block) {
            return match self.buffers[b as usize].use_ {
                Use::Valid { delayed } => {
                    self.free.unlink(&mut self.buffers, b);
                    if let Use::Writing { .. } = transfer {
                        // A whole block written over a cached one.
                        self.buffers[b as usize].use_ = transfer;
                    } else {
                        self.buffers[b as usize].use_ = Use::Valid { delayed };
                        self.free.push_back(&mut self.buffers, b);
                    }
                    Access::Hit
                }
                Use::Reading | Use::Writing { .. } => Access::InTransit,
                Use::Empty => unreachable!("an empty buffer is not found by a block"),
            };
        }
        let mut write_back = Vec::new();
        loop {
            let Some(b) = self.free.head() else {
                // The caller waits for a buffer, as V7 sleeps on the free
                // list.
                self.counts.writes += write_back.len() as u64;
                return Access::NoBuffer { write_back };
            };
            if self.buffers[b as usize].use_ == (Use::Valid { delayed: true }) {
                self.start_write(b);
                write_back.push(
                    self.buffers[b as usize]
                        .block
                        .expect("a delayed write has a block"),
                );
                continue;
            }
            self.free.unlink(&mut self.buffers, b);
            if let Some(old) = self.buffers[b as usize].block.take() {
                self.by_block.remove(&old);
            }
            let buffer = &mut self.buffers[b as usize];
            buffer.block = Some(block);
            buffer.use_ = transfer;
            self.by_block.insert(block, b);
            self.counts.writes += write_back.len() as u64;
            return Access::Miss { write_back };
        }
    }

    /// Takes buffer `b`, holding a delayed write, off the free list to be
    /// written.
    fn start_write(&mut self, b: u32) {
        self.free.unlink(&mut self.buffers, b);
        self.buffers[b as usize].use_ = Use::Writing { aged: true };
    }

    /// Checks the table against the buffers and the free list against
    /// their uses (debug builds).
    ///
    /// # Panics
    /// If they disagree: a bug in the cache.
    #[cfg(debug_assertions)]
    pub fn check(&self) {
        let on_list = self.free.members(&self.buffers);
        for (b, buffer) in self.buffers.iter().enumerate() {
            let free = matches!(buffer.use_, Use::Empty | Use::Valid { .. });
            assert_eq!(on_list[b], free, "buffer {b} is free or in transit");
            match buffer.block {
                Some(block) => assert_eq!(self.by_block.get(&block), Some(&(b as u32))),
                None => assert_eq!(buffer.use_, Use::Empty, "a buffer in use holds a block"),
            }
        }
        assert_eq!(
            self.by_block.len(),
            self.buffers.iter().filter(|b| b.block.is_some()).count(),
            "the table holds the buffers' blocks and no others"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;
    use tpsim_core::Streams;

    fn block(index: u32) -> Block {
        Block { file: 0, index }
    }

    /// Reads `index`, completing a miss's read at once.
    fn read_now(cache: &mut BufferCache, index: u32) -> bool {
        match cache.read(block(index)) {
            Access::Hit => true,
            Access::Miss { write_back } => {
                for written in write_back {
                    cache.transfer_done(written);
                }
                cache.transfer_done(block(index));
                false
            }
            other => panic!("nothing is in transit here: {other:?}"),
        }
    }

    /// The exact hit ratio of an LRU cache of `size` blocks under the
    /// independent reference model with probabilities `p` (King, 1971):
    /// the stack's states are the ordered `size`-tuples of distinct
    /// blocks, a state's stationary probability the product of each
    /// block's probability over what the blocks before it leave, and a
    /// reference hits if its block is in the stack.
    fn lru_hit_ratio(p: &[f64], size: usize) -> f64 {
        fn walk(p: &[f64], size: usize, stack: &mut Vec<usize>, weight: f64) -> f64 {
            if stack.len() == size {
                return weight * stack.iter().map(|&i| p[i]).sum::<f64>();
            }
            let above: f64 = stack.iter().map(|&i| p[i]).sum();
            let mut total = 0.0;
            for i in 0..p.len() {
                if stack.contains(&i) {
                    continue;
                }
                stack.push(i);
                total += walk(p, size, stack, weight * p[i] / (1.0 - above));
                stack.pop();
            }
            total
        }
        walk(p, size, &mut Vec::new(), 1.0)
    }

    #[test]
    fn king_s_formula_gives_the_known_cases() {
        // Equal probabilities: a cache of k of n blocks hits k / n.
        assert!((lru_hit_ratio(&[0.25; 4], 2) - 0.5).abs() < 1e-12);
        // One block: the stack holds the last block referenced.
        let p = [0.5, 0.3, 0.2];
        let squares: f64 = p.iter().map(|x| x * x).sum();
        assert!((lru_hit_ratio(&p, 1) - squares).abs() < 1e-12);
    }

    #[test]
    fn the_hit_ratio_under_independent_references_is_king_s_lru_ratio() {
        // Six blocks with geometric probabilities, a cache of three.
        let weights = [32.0, 16.0, 8.0, 4.0, 2.0, 1.0];
        let total: f64 = weights.iter().sum();
        let p: Vec<f64> = weights.iter().map(|w| w / total).collect();
        let exact = lru_hit_ratio(&p, 3);
        // 30 independent replications of 20,000 references each, after
        // 100 to fill the cache; a 99.9% interval on the mean ratio.
        let streams = Streams::new(11, 0);
        let ratios: Vec<f64> = (0..30)
            .map(|r| {
                let mut rng = streams.stream(&format!("references/{r}"));
                let mut cache = BufferCache::new(3);
                let mut draw = || {
                    let u: f64 = rng.random();
                    let mut acc = 0.0;
                    p.iter()
                        .position(|&q| {
                            acc += q;
                            u < acc
                        })
                        .unwrap_or(p.len() - 1) as u32
                };
                for _ in 0..100 {
                    read_now(&mut cache, draw());
                }
                let hits = (0..20_000).filter(|_| read_now(&mut cache, draw())).count();
                cache.check();
                hits as f64 / 20_000.0
            })
            .collect();
        let n = ratios.len() as f64;
        let mean = ratios.iter().sum::<f64>() / n;
        let sd = (ratios.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        // Student's t with 29 degrees of freedom, two-sided 99.9%.
        let half = 3.659 * sd / n.sqrt();
        assert!(
            (mean - exact).abs() < half,
            "mean hit ratio {mean} +- {half}, exact {exact}"
        );
    }

    #[test]
    fn a_miss_takes_the_buffer_released_longest_ago() {
        let mut cache = BufferCache::new(3);
        for i in [0, 1, 2] {
            assert!(!read_now(&mut cache, i));
        }
        // Block 0 read again: block 1 is now released longest ago.
        assert!(read_now(&mut cache, 0));
        assert!(!read_now(&mut cache, 3));
        assert!(!cache.holds(block(1)));
        assert!(cache.holds(block(0)) && cache.holds(block(2)));
        cache.check();
    }

    #[test]
    fn a_block_being_read_is_waited_for_not_read_again() {
        let mut cache = BufferCache::new(2);
        assert_eq!(cache.read(block(5)), Access::Miss { write_back: vec![] });
        assert_eq!(cache.read(block(5)), Access::InTransit);
        cache.transfer_done(block(5));
        assert_eq!(cache.read(block(5)), Access::Hit);
        assert_eq!(
            cache.counts(),
            CacheCounts {
                hits: 1,
                in_transit: 1,
                misses: 1,
                ..CacheCounts::default()
            }
        );
        cache.check();
    }

    #[test]
    fn with_read_ahead_a_sequential_scan_waits_for_its_first_block_only() {
        // A 16-block file read in order by a reader that takes each block
        // after the read ahead of it is done: without read-ahead, every
        // block is a miss; with it, the first only, the others read ahead.
        for ahead in [false, true] {
            let mut cache = BufferCache::new(8);
            let mut waited = 0;
            for i in 0..16 {
                if !read_now(&mut cache, i) {
                    waited += 1;
                }
                if ahead && let Some(access) = cache.read_ahead(block(i + 1)) {
                    assert_eq!(access, Access::Miss { write_back: vec![] });
                    cache.transfer_done(block(i + 1));
                }
            }
            let counts = cache.counts();
            match ahead {
                false => assert_eq!((waited, counts.read_aheads), (16, 0)),
                true => assert_eq!((waited, counts.read_aheads), (1, 16)),
            }
            cache.check();
        }
    }

    #[test]
    fn a_delayed_write_goes_out_when_its_buffer_is_taken_or_at_the_flush() {
        let mut cache = BufferCache::new(2);
        assert!(!read_now(&mut cache, 0));
        cache.write_part(block(0));
        assert!(!read_now(&mut cache, 1));
        // Block 2 passes over block 0's buffer, written first, and takes
        // block 1's.
        assert_eq!(
            cache.read(block(2)),
            Access::Miss {
                write_back: vec![block(0)]
            }
        );
        assert!(!cache.holds(block(1)));
        cache.transfer_done(block(2));
        // While it is written, block 0 is in transit; once written it is
        // still valid, at the head of the free list, taken next.
        assert_eq!(cache.read(block(0)), Access::InTransit);
        cache.transfer_done(block(0));
        assert!(read_now(&mut cache, 0));
        cache.write_part(block(0));
        assert_eq!(cache.flush(), vec![block(0)]);
        assert_eq!(cache.flush(), vec![], "a block is flushed once");
        cache.transfer_done(block(0));
        assert_eq!(cache.counts().writes, 2);
        cache.check();
    }

    #[test]
    fn a_process_s_own_write_is_released_last_and_a_pushed_out_one_first() {
        // Two buffers: block 0 written whole by a process, then block 1
        // read. Block 0's buffer went back at the tail when its write was
        // done, so block 2 takes block 1's buffer (released before it).
        let mut cache = BufferCache::new(2);
        assert!(!read_now(&mut cache, 1));
        assert_eq!(
            cache.write_whole(block(0), false),
            Access::Miss { write_back: vec![] }
        );
        cache.transfer_done(block(0));
        assert_eq!(cache.read(block(2)), Access::Miss { write_back: vec![] });
        assert!(cache.holds(block(0)) && !cache.holds(block(1)));
        cache.transfer_done(block(2));
        // Block 0 written in part is delayed at the tail; block 3 takes
        // block 2's buffer, and block 4 passes over block 0 (pushed out)
        // to take block 3's.
        cache.write_part(block(0));
        assert!(!read_now(&mut cache, 3));
        assert_eq!(
            cache.read(block(4)),
            Access::Miss {
                write_back: vec![block(0)]
            }
        );
        cache.transfer_done(block(4));
        // The pushed-out write is done after block 4 was released, but goes
        // back at the head (`B_AGE`): the next miss takes block 0's buffer.
        cache.transfer_done(block(0));
        assert!(!read_now(&mut cache, 5));
        assert!(!cache.holds(block(0)) && cache.holds(block(4)));
        cache.check();
    }

    #[test]
    fn a_delayed_whole_block_write_costs_no_transfer_until_flushed() {
        // V7: block 0 written whole is valid at once, marked, at the tail;
        // read back it is a hit; the flush starts its write.
        let mut cache = BufferCache::new(2);
        assert_eq!(
            cache.write_delayed(block(0)),
            Access::Miss { write_back: vec![] }
        );
        assert_eq!(cache.read(block(0)), Access::Hit);
        assert_eq!(cache.write_delayed(block(0)), Access::Hit);
        assert_eq!(cache.counts().writes, 0);
        assert_eq!(cache.flush(), vec![block(0)]);
        assert_eq!(cache.counts().writes, 1);
        cache.transfer_done(block(0));
        cache.check();
    }

    #[test]
    fn a_block_aged_is_taken_first() {
        // 4BSD's readi: blocks read to their end go to the head.
        let mut cache = BufferCache::new(2);
        assert!(!read_now(&mut cache, 0));
        assert!(!read_now(&mut cache, 1));
        cache.age(block(1));
        assert!(!read_now(&mut cache, 2));
        assert!(cache.holds(block(0)) && !cache.holds(block(1)));
        cache.age(block(9));
        cache.check();
    }

    #[test]
    fn with_every_buffer_in_transit_a_read_waits_for_a_buffer() {
        let mut cache = BufferCache::new(1);
        assert_eq!(cache.read(block(0)), Access::Miss { write_back: vec![] });
        let none = Access::NoBuffer { write_back: vec![] };
        assert_eq!(cache.read(block(1)), none);
        assert_eq!(cache.read_ahead(block(1)), Some(none));
        cache.transfer_done(block(0));
        // A buffer passed over for its delayed write is written, and the
        // read still finds none free.
        cache.write_part(block(0));
        let written = Access::NoBuffer {
            write_back: vec![block(0)],
        };
        assert_eq!(cache.read(block(1)), written);
        cache.check();
    }
}
