//! The file system: programs' files, the buffer cache and exec's reads.
//!
//! Under swapping a new command gets memory for its image and exec reads
//! the image from its program's file, on the programs' device (or, with
//! none named, the swap device), before the command runs: V7's `exec`
//! reads text and initialised data from the file with `readi`. Under
//! paging exec reads nothing at once: the image comes in by faults, a
//! page's first touch read from the program's file (see `paging` and
//! `frames`).
//!
//! Without a buffer cache (`[files]` absent) exec reads the image in one
//! transfer. With one, it reads the program's file block by block
//! through the cache, as `readi` does with `bread` and `breada`: a block
//! in the cache costs no I/O, one in transit is waited for, any other is
//! read from the disk into the buffer taken for it while the process
//! waits, and from the second block on the next block is read ahead. A
//! class's program file is its image, text first: when the text is in
//! memory already (another process of the class has it: V7's text table)
//! exec reads from the block where the data begins. Every block read
//! costs the copy from the buffer into the process's memory; the copies
//! are run as kernel work when the process next gets a processor, before
//! its own work (the blocks' reads do not wait for them: a simplification
//! that leaves the disk's work unchanged and the copies' total exact).

use super::per_process::PerProcess;
use super::{Context, Event, Purpose, State, SystemModel, scheduler};
use crate::system::buffer_cache::{Access, Block, BufferCache, CacheCounts};
use rustc_hash::FxHashMap;
use tpsim_core::SimTime;

/// Exec's read of one process's image.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Exec {
    /// The image has still to be read from the program's file (swapping:
    /// a new command).
    pub(super) pending: bool,
    /// The bytes brought into memory for it, which exec reads.
    pub(super) bytes: u64,
    /// With a cache: the next block of the program's file exec reads ...
    next: u32,
    /// ... and the block after the last.
    end: u32,
    /// With a cache: the first block this exec read (read-ahead starts
    /// after it).
    first: u32,
    /// Processor time owed for copying the blocks read, run before the
    /// command's own work.
    copy: SimTime,
    /// The next process waiting for the same block, if any (the waiters
    /// of a block are a list through their execs).
    next_waiter: Option<usize>,
}

impl Exec {
    /// A process's exec: `pending` if it has an image to read.
    pub(super) fn new(pending: bool) -> Exec {
        Exec {
            pending,
            ..Exec::default()
        }
    }
}

/// The buffer cache and the processes waiting on it.
#[derive(Debug)]
struct Cache {
    buffers: BufferCache,
    /// The first and last of the processes waiting for a block in
    /// transit, by block, in the order they came; the others follow
    /// through `Exec::next_waiter`.
    waiting: FxHashMap<Block, (usize, usize)>,
    /// The processes waiting for a buffer, every one being in transit.
    wanting: Vec<usize>,
    /// The cache's counts at the end of the warm-up.
    measured_from: CacheCounts,
}

/// What the file system keeps: each process's exec, and the cache.
#[derive(Debug, Default)]
pub(super) struct Files {
    pub(super) exec: PerProcess<Exec>,
    cache: Option<Cache>,
}

impl Files {
    /// The file system of a system with a cache of `buffers` buffers, or
    /// none.
    pub(super) fn new(buffers: Option<usize>) -> Files {
        Files {
            exec: PerProcess::default(),
            cache: buffers.map(|n| Cache {
                buffers: BufferCache::new(n),
                waiting: FxHashMap::default(),
                wanting: Vec::new(),
                measured_from: CacheCounts::default(),
            }),
        }
    }

    /// The processor time owed by `pid` for exec's copies, taken: the
    /// kernel runs them before its own work.
    pub(super) fn take_copy(&mut self, pid: usize) -> SimTime {
        std::mem::take(&mut self.exec[pid].copy)
    }

    /// Starts the cache's counts afresh (the end of the warm-up).
    pub(super) fn reset_counts(&mut self) {
        if let Some(cache) = &mut self.cache {
            cache.measured_from = cache.buffers.counts();
        }
    }

    /// The cache's counts since the end of the warm-up, if there is one.
    pub(super) fn counts(&self) -> Option<CacheCounts> {
        self.cache
            .as_ref()
            .map(|c| c.buffers.counts().since(&c.measured_from))
    }

    /// Checks the cache's own bookkeeping, and that every process waiting
    /// on it is in an exec (`in_exec`) that is waiting.
    #[cfg(debug_assertions)]
    pub(super) fn check(&self, in_exec: impl Fn(usize) -> bool) {
        let Some(cache) = &self.cache else { return };
        cache.buffers.check();
        for (block, &(first, last)) in &cache.waiting {
            assert!(
                cache.buffers.holds(*block),
                "a waited-for block is in the cache"
            );
            let mut waiter = Some(first);
            while let Some(pid) = waiter {
                assert!(
                    in_exec(pid),
                    "process {pid} waits for {block:?} in its exec"
                );
                assert_eq!(
                    self.exec[pid].next, block.index,
                    "the block it waits for is its next"
                );
                waiter = self.exec[pid].next_waiter;
                assert!(waiter.is_some() || pid == last, "the list ends at its last");
            }
        }
        for &pid in &cache.wanting {
            assert!(in_exec(pid), "process {pid} waits for a buffer in its exec");
        }
    }

    fn cache(&mut self) -> &mut Cache {
        self.cache.as_mut().expect("the file system has a cache")
    }
}

impl SystemModel<'_> {
    /// Exec under swapping: `pid`, in memory, reads its image (its text
    /// too unless a copy is in memory already) from the program's file,
    /// and runs when it is in.
    pub(super) fn start_exec(&mut self, pid: usize, ctx: &mut Context<Event>) {
        self.recount(pid, ctx.now(), |p| p.state = State::Io);
        let Some(fs) = self.sys.files else {
            let bytes = self.files.exec[pid].bytes as f64;
            let programs = self.program_device();
            self.request(programs, Purpose::Exec { pid }, bytes, ctx);
            return;
        };
        let size = self.sys.classes[self.procs[pid].class].size;
        let exec = &mut self.files.exec[pid];
        // The text, when in memory already, is not read: the data begins
        // in the block where the text ends.
        let text = size - exec.bytes;
        exec.first = u32::try_from(text / fs.block).expect("the block numbers fit");
        exec.next = exec.first;
        exec.end = fs.blocks_of(size);
        self.exec_read(pid, ctx);
    }

    /// Exec reads `pid`'s program file on from its next block, through
    /// the cache, until it must wait or has read the last.
    fn exec_read(&mut self, pid: usize, ctx: &mut Context<Event>) {
        let fs = self.sys.files.expect("exec reads through a cache");
        let file = u32::try_from(self.procs[pid].class).expect("class numbers fit");
        loop {
            let Exec {
                next, end, first, ..
            } = self.files.exec[pid];
            if next == end {
                self.exec_done(pid, ctx);
                return;
            }
            let block = Block { file, index: next };
            let access = self.files.cache().buffers.read(block);
            if let Access::Miss { write_back } = &access {
                self.write_blocks(write_back, ctx);
                self.read_block(block, ctx);
            }
            // `breada`: the next block is read ahead, once the reads are
            // sequential, whether this one was found or not.
            if fs.read_ahead && next > first && next + 1 < end {
                let ahead = Block {
                    file,
                    index: next + 1,
                };
                match self.files.cache().buffers.read_ahead(ahead) {
                    Some(Access::Miss { write_back }) => {
                        self.write_blocks(&write_back, ctx);
                        self.read_block(ahead, ctx);
                    }
                    Some(Access::NoBuffer { write_back }) => self.write_blocks(&write_back, ctx),
                    Some(Access::Hit | Access::InTransit) | None => {}
                }
            }
            match access {
                Access::Hit => self.block_copied(pid),
                Access::InTransit | Access::Miss { .. } => {
                    self.wait_for(block, pid);
                    return;
                }
                Access::NoBuffer { write_back } => {
                    self.write_blocks(&write_back, ctx);
                    self.files.cache().wanting.push(pid);
                    return;
                }
            }
        }
    }

    /// `pid` waits for `block`, after those waiting already.
    fn wait_for(&mut self, block: Block, pid: usize) {
        let waiting = &mut self.files.cache().waiting;
        match waiting.get_mut(&block) {
            Some((_, last)) => {
                let previous = std::mem::replace(last, pid);
                self.files.exec[previous].next_waiter = Some(pid);
            }
            None => {
                waiting.insert(block, (pid, pid));
            }
        }
    }

    /// `pid` has its next block: it owes the copy and goes on to the next.
    fn block_copied(&mut self, pid: usize) {
        let copy = self.sys.files.expect("a cache").copy;
        let exec = &mut self.files.exec[pid];
        exec.next += 1;
        exec.copy += copy;
    }

    /// Starts the read of `block` from the programs' device into its
    /// buffer.
    fn read_block(&mut self, block: Block, ctx: &mut Context<Event>) {
        let bytes = self.sys.files.expect("a cache").block as f64;
        let programs = self.program_device();
        self.request(programs, Purpose::BufferRead { block }, bytes, ctx);
    }

    /// Starts the writes of delayed blocks pushed out of the cache.
    fn write_blocks(&mut self, blocks: &[Block], ctx: &mut Context<Event>) {
        let bytes = self.sys.files.expect("a cache").block as f64;
        for &block in blocks {
            let programs = self.program_device();
            self.request(programs, Purpose::BufferWrite { block }, bytes, ctx);
        }
    }

    /// A buffer's transfer of `block` is done: the processes waiting for
    /// the block have it, and those waiting for a buffer look again.
    pub(super) fn buffer_done(&mut self, block: Block, ctx: &mut Context<Event>) {
        let cache = self.files.cache();
        cache.buffers.transfer_done(block);
        let mut waiter = cache.waiting.remove(&block).map(|(first, _)| first);
        let wanting = std::mem::take(&mut cache.wanting);
        while let Some(pid) = waiter {
            waiter = self.files.exec[pid].next_waiter.take();
            self.block_copied(pid);
            self.exec_read(pid, ctx);
        }
        for pid in wanting {
            self.exec_read(pid, ctx);
        }
    }

    /// Exec's read for `pid` is done: the command runs.
    pub(super) fn exec_done(&mut self, pid: usize, ctx: &mut Context<Event>) {
        self.files.exec[pid].pending = false;
        self.sched[pid].woken = Some(scheduler::AFTER_DISK);
        self.become_runnable(pid, ctx);
    }

    /// The device a program's file is read from: the programs' device, or
    /// one of the paging drives the programs are spread over.
    pub(super) fn program_device(&mut self) -> usize {
        match self.sys.memory.programs {
            Some(device) => device,
            None => self.swap_device(),
        }
    }
}
