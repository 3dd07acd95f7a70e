//! The file system: programs' files, data files, the buffer cache, and
//! the reads and writes of exec and of commands through it.
//!
//! Under swapping a new command gets memory for its image and exec reads
//! the image from its program's file, on the programs' device (or, with
//! none named, the swap device), before the command runs: V7's and 32V's
//! `exec` read the text and the initialised data from the file with
//! `readi`, and clear the bss and the stack (`clearseg`), which costs
//! the kernel processor time per page (`memory.clear_cpu`), not a read:
//! a class's empty pages (`zero_fill` of its private pages) are cleared.
//! The clearing is run before the process's own work, with the copies
//! below. Under paging exec reads nothing at once: the image comes in by
//! faults, a page's first touch read from the program's file or, if
//! empty, cleared (see `paging` and `frames`).
//!
//! Without a buffer cache (`[files]` absent) exec reads the text and data
//! in one transfer. With one, it reads the program's file block by block
//! through the cache, as `readi` does with `bread` and `breada`: a block
//! in the cache costs no I/O, one in transit is waited for, any other is
//! read from the disk into the buffer taken for it while the process
//! waits, and from the second block on the next block is read ahead. A
//! class's program file is its image, text first: when the text is in
//! memory already (another process of the class has it: V7's text table)
//! exec starts at the block where the data begins.
//!
//! A class's `files` are read and written block by block the same way,
//! while the command runs: its blocks' accesses are spread evenly over
//! its processor demand (with B blocks in all, one every demand / (B + 1)
//! of processor time), each a kernel call at that point of its work. A
//! read finds its block, waits for it in transit, or waits for its read;
//! a write (of a private, temporary file, a whole block at a time) copies
//! into a buffer and starts the block's write without waiting (V7's
//! `bawrite` of a full block).
//!
//! Every block read or written costs the copy between its buffer and the
//! process's memory. A block found at once is copied in the kernel there
//! and then (a burst that cannot be preempted); a block waited for is
//! copied when the process next gets a processor, before its own work
//! (exec's copies all together, after its reads: a simplification that
//! leaves the disk's work unchanged and the copies' total exact).
//!
//! `Files` decides each step of exec's read and of a command's accesses
//! from its own state and the system's settings, asks for the transfers
//! they need as `Request`s, and answers what the process does next
//! (`ExecRead`, `Waited`, `DataAnswer`); the model's methods here start
//! those requests in order and run, park or wake the process as `Files`
//! answered, so the core alone touches the processors and the queues.

use super::per_process::PerProcess;
use super::scheduler::AFTER_DISK;
use super::{BurstKind, Change, Context, Event, Purpose, Region, State, SystemModel};
use crate::measure::fraction;
use crate::summary::{FileTraffic, FilesSummary};
use crate::system::buffer_cache::{Access, Block, BufferCache, CacheCounts};
use crate::system::layout;
use crate::system::{BufferRules, CommandClass, FileAccess, FileSystem, Place, System};
use rustc_hash::FxHashMap;
use tpsim_core::SimTime;

/// How often `update` sends the delayed writes.
pub(super) const UPDATE: SimTime = SimTime::from_secs(30);

/// Exec's read of one process's image.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Exec {
    /// The image has still to be read from the program's file (swapping:
    /// a new command).
    pub(super) pending: bool,
    /// With a cache: the next block of the program's file exec reads ...
    next: u32,
    /// ... and the block after the last.
    end: u32,
    /// With a cache: the first block this exec read (read-ahead starts
    /// after it).
    first: u32,
}

/// Where a command is in its class's file accesses.
#[derive(Clone, Copy, Debug, Default)]
struct DataCursor {
    /// The access under way (an index into the class's `files`).
    step: usize,
    /// The next block of its file.
    block: u32,
    /// Processor time between two block accesses.
    spacing: SimTime,
    /// The command's number, which tells its private files from other
    /// commands'.
    command: u32,
}

/// What the file system keeps of one process.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ProcessFiles {
    /// Its exec.
    pub(super) exec: Exec,
    /// Its command's data-file accesses.
    data: DataCursor,
    /// Processor time owed for copying blocks (every block exec reads,
    /// and the data blocks a read waited for), run before its own work.
    copy: SimTime,
    /// Processor time owed for clearing the empty pages of its new image
    /// (swapping), run before the copies.
    clear: SimTime,
    /// The next process waiting for the same block, if any (the waiters
    /// of a block are a list through their tables).
    next_waiter: Option<usize>,
    /// The number of the command whose private files it reads and writes,
    /// if it is a script's or one of a script's programs: every program of
    /// a script shares its script's (a compiler's passes read the
    /// temporary files the pass before wrote).
    command: Option<u32>,
}

impl ProcessFiles {
    /// A new process's: `pending` if it has an image to read.
    pub(super) fn new(pending: bool) -> ProcessFiles {
        ProcessFiles {
            exec: Exec {
                pending,
                ..Exec::default()
            },
            ..ProcessFiles::default()
        }
    }
}

/// The kinds of file the cache's traffic is reported by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FileKind {
    /// A program's file, read by exec.
    Program,
    /// A data file every command shares.
    Shared,
    /// A command's own temporary file.
    Private,
}

impl FileKind {
    pub(super) const ALL: [FileKind; 3] = [FileKind::Program, FileKind::Shared, FileKind::Private];

    /// As the summary names it.
    pub(super) fn name(self) -> &'static str {
        match self {
            FileKind::Program => "program",
            FileKind::Shared => "data",
            FileKind::Private => "temporary",
        }
    }
}

/// The buffer cache and the processes waiting on it.
#[derive(Debug)]
struct Cache {
    buffers: BufferCache,
    /// The first and last of the processes waiting for a block in
    /// transit, by block, in the order they came; the others follow
    /// through `ProcessFiles::next_waiter`.
    waiting: FxHashMap<Block, (usize, usize)>,
    /// The processes waiting for a buffer, every one being in transit.
    wanting: Vec<usize>,
    /// What was counted, by kind of file and device (`kind * devices +
    /// device`), since the end of the warm-up.
    counts: Vec<CacheCounts>,
    /// Commands with data files so far (numbering their private files).
    commands: u32,
}

/// A class's entry in the text table (swapping with a cache; V7 and
/// 32V `text.c`): how many processes use the text, and whether a copy is
/// on the swap area.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct TextEntry {
    /// Processes of the class attached to the text (`x_count`).
    users: u32,
    /// Its copy on the swap area is written (`XWRIT` cleared): the text
    /// comes back from there, not from its file.
    on_swap: bool,
}

/// What the file system keeps: each process's exec and accesses, the
/// cache and, with the cache under swapping, the text table.
#[derive(Debug, Default)]
pub(super) struct Files {
    pub(super) of: PerProcess<ProcessFiles>,
    /// Whether each process may owe processor time for exec's clearing
    /// or copies (it does not when this says no): a dense table of its
    /// own, so that a dispatch reads a byte of the process here rather
    /// than its whole `ProcessFiles`, which with thousands of processes is
    /// rarely in the cache.
    owing: PerProcess<bool>,
    cache: Option<Cache>,
    /// Each class's text entry (empty without a cache or under paging).
    texts: Vec<TextEntry>,
    /// Mixed into a file's number to place its blocks (`layout::place`):
    /// each replication lays files out anew.
    layout_salt: u64,
    /// The device programs' files are on, if they are read through the
    /// cache (under swapping).
    programs: Option<usize>,
    /// The transfers asked for and not yet issued, in the order asked
    /// (`SystemModel::file_requests` issues them).
    requests: Vec<Request>,
}

/// A transfer between a buffer (or a text) and its device that the file
/// system asks the core to start.
#[derive(Clone, Copy, Debug)]
pub(super) struct Request {
    pub(super) device: usize,
    pub(super) transfer: FileTransfer,
    pub(super) bytes: f64,
}

impl Files {
    /// The file system of a system with `fs`'s cache, or none; `devices`
    /// the number of devices, `text_table` the classes if there is a text
    /// table, `layout_salt` what lays the files out, `programs` the device
    /// programs' files are on.
    pub(super) fn new(
        fs: Option<&FileSystem>,
        devices: usize,
        text_table: Option<usize>,
        layout_salt: u64,
        programs: Option<usize>,
    ) -> Files {
        Files {
            texts: vec![TextEntry::default(); text_table.unwrap_or(0)],
            layout_salt,
            programs,
            requests: Vec::new(),
            of: PerProcess::default(),
            owing: PerProcess::default(),
            cache: fs.map(|fs| Cache {
                buffers: BufferCache::new(fs.buffers),
                waiting: FxHashMap::default(),
                wanting: Vec::new(),
                counts: vec![CacheCounts::default(); FileKind::ALL.len() * devices],
                commands: 0,
            }),
        }
    }

    /// The kernel work `pid`'s exec owes, if any, taken: the kernel runs
    /// it before the process's own work, first the clearing of its empty
    /// pages, then the copies of the blocks it read.
    #[inline]
    pub(super) fn take_exec_work(&mut self, pid: usize) -> Option<(SimTime, BurstKind)> {
        if !self.owing[pid] {
            return None;
        }
        let of = &mut self.of[pid];
        let owed = if of.clear > SimTime::ZERO {
            Some((std::mem::take(&mut of.clear), BurstKind::Clear))
        } else if of.copy > SimTime::ZERO {
            Some((std::mem::take(&mut of.copy), BurstKind::Copy))
        } else {
            None
        };
        self.owing[pid] = of.clear > SimTime::ZERO || of.copy > SimTime::ZERO;
        owed
    }

    /// Enters `pid`, a new process, with `files`, owing nothing yet.
    pub(super) fn enter(&mut self, pid: usize, files: ProcessFiles) {
        self.of.insert(pid, files);
        self.owing.insert(pid, false);
    }

    /// `pid` owes processor time for one more block exec or a read copied.
    fn owe_copy(&mut self, sys: &System, pid: usize) {
        self.of[pid].copy += file_system(sys).copy;
        self.owing[pid] = true;
    }

    /// `pid` owes `time` for clearing its new image's empty pages.
    fn owe_clearing(&mut self, pid: usize, time: SimTime) {
        self.of[pid].clear = time;
        self.owing[pid] |= time > SimTime::ZERO;
    }

    /// Starts the cache's counts afresh (the end of the warm-up).
    pub(super) fn reset_counts(&mut self) {
        if let Some(cache) = &mut self.cache {
            cache.counts.fill(CacheCounts::default());
        }
    }

    /// What the cache counted for `kind` on `device`, out of `devices`.
    pub(super) fn counts(&self, kind: FileKind, device: usize, devices: usize) -> CacheCounts {
        self.cache.as_ref().map_or_else(CacheCounts::default, |c| {
            c.counts[kind as usize * devices + device]
        })
    }

    /// Checks the cache's own bookkeeping, and that every process waiting
    /// on it is waiting for I/O (`waits`).
    #[cfg(debug_assertions)]
    pub(super) fn check(&self, waits: impl Fn(usize) -> bool) {
        let Some(cache) = &self.cache else { return };
        cache.buffers.check();
        for (block, &(first, last)) in &cache.waiting {
            assert!(
                cache.buffers.holds(*block),
                "a waited-for block is in the cache"
            );
            let mut waiter = Some(first);
            while let Some(pid) = waiter {
                assert!(waits(pid), "process {pid} waits for {block:?}");
                waiter = self.of[pid].next_waiter;
                assert!(waiter.is_some() || pid == last, "the list ends at its last");
            }
        }
        for &pid in &cache.wanting {
            assert!(waits(pid), "process {pid} waits for a buffer");
        }
    }

    /// Checks that each of the `live` processes owing exec's clearing or
    /// copies is marked as owing.
    #[cfg(debug_assertions)]
    pub(super) fn check_owing(&self, live: impl Iterator<Item = usize>) {
        for pid in live {
            let of = &self.of[pid];
            let owes = of.clear > SimTime::ZERO || of.copy > SimTime::ZERO;
            assert!(self.owing[pid] || !owes, "process {pid} owes exec's work");
        }
    }

    /// Checks that each text's users are its class's processes
    /// (`processes`, by class).
    #[cfg(debug_assertions)]
    pub(super) fn check_texts(&self, processes: &[u32]) {
        for (class, entry) in self.texts.iter().enumerate() {
            assert_eq!(
                entry.users, processes[class],
                "class {class}'s text has its processes as users"
            );
        }
    }

    fn cache(&mut self) -> &mut Cache {
        self.cache.as_mut().expect("the file system has a cache")
    }

    /// Where block `index` of file number `file` lies: program files are
    /// numbered by class, then the shared data files, then every
    /// command's private ones.
    #[inline]
    fn place(&self, sys: &System, file: u32, index: u32) -> Placed {
        let classes = sys.classes.len() as u32;
        let data = &file_system(sys).data;
        let (kind, device) = if file < classes {
            let programs = self
                .programs
                .expect("exec reads a program through the cache only under swapping");
            (FileKind::Program, programs)
        } else {
            let f = ((file - classes) % data.len() as u32) as usize;
            let kind = if data[f].private {
                FileKind::Private
            } else {
                FileKind::Shared
            };
            (kind, data[f].device)
        };
        Placed {
            block: Block { file, index },
            kind,
            device,
        }
    }

    /// Counts `access` of `at` as the cache's answer to a process, out of
    /// `devices` devices.
    fn count_access(&mut self, devices: usize, at: Placed, access: &Access) {
        let counts = &mut self.cache().counts[at.kind as usize * devices + at.device];
        match access {
            Access::Hit => counts.hits += 1,
            Access::InTransit => counts.in_transit += 1,
            Access::Miss { .. } => counts.misses += 1,
            Access::NoBuffer { .. } => {}
        }
    }

    /// `child` is a program of `script`, and reads and writes its script's
    /// private files rather than its own: the script's command's number,
    /// given to the script by its first program if it has none yet.
    pub(super) fn join_script(&mut self, child: usize, script: usize) {
        let Some(cache) = self.cache.as_mut() else {
            return;
        };
        let command = *self.of[script].command.get_or_insert_with(|| {
            cache.commands = cache.commands.wrapping_add(1);
            cache.commands
        });
        let of = &mut self.of[child];
        of.command = Some(command);
        of.data.command = command;
    }

    /// With the text table: a new process of its class is attached to the
    /// class's text.
    pub(super) fn attach_text(&mut self, class: usize) {
        if let Some(entry) = self.texts.get_mut(class) {
            entry.users += 1;
        }
    }

    /// With the text table: a process of `class` (`sticky` or not) exits.
    /// The last user of a text that is not sticky frees it, and its copy on the swap area
    /// (`xfree`).
    pub(super) fn detach_text(&mut self, class: usize, sticky: bool) {
        if let Some(entry) = self.texts.get_mut(class) {
            entry.users -= 1;
            if entry.users == 0 && !sticky {
                entry.on_swap = false;
            }
        }
    }

    /// The buffer cache's traffic, if there is a cache: per kind of file
    /// and device, those that saw any, and the programs' row on
    /// `programs`, the device exec reads images from through the cache.
    pub(super) fn summary(&self, sys: &System, programs: Option<usize>) -> Option<FilesSummary> {
        let fs = sys.files.as_ref()?;
        let devices = sys.devices.len();
        let mut traffic = Vec::new();
        for kind in FileKind::ALL {
            for (device, spec) in sys.devices.iter().enumerate() {
                let c = self.counts(kind, device, devices);
                let reads = c.hits + c.in_transit + c.misses;
                // The programs' row always where exec reads through the
                // cache (swapping); the others where there was traffic.
                let programs = kind == FileKind::Program && Some(device) == programs;
                if reads + c.read_aheads + c.writes == 0 && !programs {
                    continue;
                }
                traffic.push(FileTraffic {
                    kind: kind.name().to_string(),
                    device: spec.name.clone(),
                    reads,
                    hits: c.hits,
                    in_transit: c.in_transit,
                    misses: c.misses,
                    read_aheads: c.read_aheads,
                    writes: c.writes,
                    hit_ratio: fraction(c.hits, reads),
                });
            }
        }
        Some(FilesSummary {
            buffers: fs.buffers as u64,
            block_bytes: fs.block,
            traffic,
        })
    }

    /// With the text table: the last process of `class` (`sticky` or not)
    /// in memory has left it, its text of `bytes` with it. Says whether the
    /// text, still in the table and read from its file, is to be written to
    /// the swap area: once, until it is freed.
    pub(super) fn text_out(&mut self, class: usize, bytes: u64, sticky: bool) -> bool {
        let Some(entry) = self.texts.get_mut(class) else {
            return false;
        };
        let write = bytes > 0 && !entry.on_swap && (entry.users > 0 || sticky);
        entry.on_swap |= write;
        write
    }

    /// A process has read `block` to its end and releases its buffer: at
    /// the tail of the free list (V7, as `read` left it) or at its head
    /// (4BSD).
    fn release_read(&mut self, sys: &System, block: Block) {
        if file_system(sys).rules == BufferRules::Bsd {
            self.cache().buffers.age(block);
        }
    }

    /// Where the block a buffer transfer on `device` moves lies, as the
    /// file system's layout puts it (`layout::place`, with this run's
    /// `layout_salt`). `None` for other requests, or blocks whose place is
    /// drawn afresh, or a device without an arm.
    pub(super) fn block_place(
        &self,
        sys: &System,
        device: usize,
        purpose: Purpose,
    ) -> Option<Place> {
        let Purpose::Files(
            FileTransfer::BufferRead { block } | FileTransfer::BufferWrite { block },
        ) = purpose
        else {
            return None;
        };
        let fs = sys.files.as_ref()?;
        let arm = sys.devices[device].arm.as_ref()?;
        layout::place(
            fs.layout,
            arm,
            fs.block,
            block.file,
            block.index,
            self.layout_salt,
        )
    }

    /// `pid` waits for `block`, after those waiting already.
    fn wait_for(&mut self, block: Block, pid: usize) {
        let waiting = &mut self.cache().waiting;
        match waiting.get_mut(&block) {
            Some((_, last)) => {
                let previous = std::mem::replace(last, pid);
                self.of[previous].next_waiter = Some(pid);
            }
            None => {
                waiting.insert(block, (pid, pid));
            }
        }
    }

    /// A process reads the block `at` through the cache: counted, its
    /// read asked for on a miss with the delayed writes it pushes out,
    /// and block `ahead` of the same file read ahead if asked (with
    /// `read_ahead` set). Says what the cache answered.
    fn read_through(&mut self, sys: &System, at: Placed, ahead: Option<u32>) -> Access {
        let access = self.cache().buffers.read(at.block);
        self.count_access(sys.devices.len(), at, &access);
        match &access {
            Access::Miss { write_back } | Access::NoBuffer { write_back } => {
                self.write_blocks(sys, write_back);
            }
            Access::Hit | Access::InTransit => {}
        }
        if let Access::Miss { .. } = access {
            self.transfer(sys, at, FileTransfer::BufferRead { block: at.block });
        }
        if let Some(index) = ahead.filter(|_| file_system(sys).read_ahead) {
            let next = self.place(sys, at.block.file, index);
            match self.cache().buffers.read_ahead(next.block) {
                Some(Access::Miss { write_back }) => {
                    self.write_blocks(sys, &write_back);
                    let devices = sys.devices.len();
                    self.cache().counts[next.kind as usize * devices + next.device].read_aheads +=
                        1;
                    self.transfer(sys, next, FileTransfer::BufferRead { block: next.block });
                }
                Some(Access::NoBuffer { write_back }) => self.write_blocks(sys, &write_back),
                Some(Access::Hit | Access::InTransit) | None => {}
            }
        }
        access
    }

    /// A process writes block `at` of data file `f` through the cache:
    /// 4BSD sends a whole block at once; V7 delays every block, and 4BSD
    /// the last part of one. The writes it pushes out are asked for.
    fn write(&mut self, sys: &System, f: usize, at: Placed) -> Access {
        let fs = file_system(sys);
        let whole = u64::from(at.block.index + 1) * fs.block <= fs.data[f].size;
        let at_once = whole && fs.rules == BufferRules::Bsd;
        let cache = &mut self.cache().buffers;
        let answer = if at_once {
            cache.write_whole(at.block, true)
        } else {
            cache.write_delayed(at.block)
        };
        if let Access::Miss { write_back } | Access::NoBuffer { write_back } = &answer {
            self.write_blocks(sys, write_back);
        }
        if at_once && matches!(answer, Access::Hit | Access::Miss { .. }) {
            self.write_blocks(sys, &[at.block]);
        }
        answer
    }

    /// The delayed writes are sent (`bflush`).
    pub(super) fn flush(&mut self, sys: &System) {
        let delayed = self.cache().buffers.flush();
        self.write_blocks(sys, &delayed);
    }

    /// Asks for a block's transfer between its buffer and its device.
    fn transfer(&mut self, sys: &System, at: Placed, transfer: FileTransfer) {
        self.requests.push(Request {
            device: at.device,
            transfer,
            bytes: file_system(sys).block as f64,
        });
    }

    /// Asks for the writes of blocks pushed out of the cache (or written
    /// by a process), counted.
    fn write_blocks(&mut self, sys: &System, blocks: &[Block]) {
        let devices = sys.devices.len();
        for &block in blocks {
            let at = self.place(sys, block.file, block.index);
            self.cache().counts[at.kind as usize * devices + at.device].writes += 1;
            self.transfer(sys, at, FileTransfer::BufferWrite { block });
        }
    }

    /// A new command of `pid`, of `class` in `sys`, with processor demand
    /// `demand` starts its class's file accesses: the processor time to its
    /// first block, one spacing (none without data files).
    pub(super) fn start_accesses(
        &mut self,
        sys: &System,
        class: &CommandClass,
        pid: usize,
        demand: SimTime,
    ) -> SimTime {
        let Some(fs) = sys.files.as_ref().filter(|_| !class.files.is_empty()) else {
            return SimTime::MAX;
        };
        let blocks: u64 = class
            .files
            .iter()
            .map(|a| u64::from(fs.blocks_of(fs.data[a.file()].size)))
            .sum();
        let spacing = SimTime::from_nanos(demand.as_nanos() / (blocks + 1));
        let cache = self.cache();
        cache.commands = cache.commands.wrapping_add(1);
        let command = cache.commands;
        self.of[pid].data = DataCursor {
            step: 0,
            block: 0,
            spacing,
            command,
        };
        spacing
    }

    /// The access `pid`, of `class`, is at, and the block it is due to read
    /// or write.
    fn data_block(&self, sys: &System, class: usize, pid: usize) -> (FileAccess, Placed) {
        let cursor = self.of[pid].data;
        let access = sys.classes[class].files[cursor.step];
        let f = access.file();
        let fs = file_system(sys);
        let (classes, data) = (sys.classes.len() as u32, fs.data.len() as u32);
        let file = if fs.data[f].private {
            // Above the program and shared files, one number per command
            // and private file, wrapping around (a whole number of times
            // the data files, so that the file is `classes + f` modulo
            // them, as `place` reads it).
            let span = (u32::MAX - classes) / data * data;
            classes + cursor.command.wrapping_mul(data).wrapping_add(f as u32) % span
        } else {
            classes + f as u32
        };
        (access, self.place(sys, file, cursor.block))
    }

    /// `pid`, of `class` in `sys`, has done a block: on to the next; the
    /// processor time to it, one spacing, or none after the last.
    fn advance(&mut self, sys: &System, class: &CommandClass, pid: usize) -> SimTime {
        let fs = file_system(sys);
        let cursor = &mut self.of[pid].data;
        cursor.block += 1;
        if cursor.block == fs.blocks_of(fs.data[class.files[cursor.step].file()].size) {
            cursor.step += 1;
            cursor.block = 0;
        }
        if cursor.step == class.files.len() {
            SimTime::MAX
        } else {
            cursor.spacing
        }
    }
}

/// How exec's read of a program file stands after a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ExecRead {
    /// It has read the last block: the command may run.
    Done,
    /// It waits for a block, or for a buffer.
    Waits,
}

/// What a process that waited for a block does now it is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Waited {
    /// Exec read on, as far as it could.
    Exec(ExecRead),
    /// A command's data block: it is ready to run, with the processor time
    /// to its next access if the block was a read it now has (a write
    /// that found the block in transit tries again).
    Data(Option<SimTime>),
}

/// The cache's answer to a command's block access, as the process sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DataAnswer {
    /// Found (or, a write, given a buffer): the kernel copies the block at
    /// once, and the next access is `due` later.
    Copy { due: SimTime },
    /// The process waits: for the block, or for a buffer.
    Wait,
}

impl Files {
    /// Exec with a cache: `pid`, of `class`, whose text is `text` bytes
    /// and for whose image `loaded` bytes were brought into memory, starts
    /// reading its program file, which ends with the initialised data (the
    /// empty pages are cleared, not read). A text in memory already is
    /// attached, not read: the data begins in the block where the text
    /// ends. So is a text with a copy on the swap area, which is swapped
    /// in first (`xalloc`): true if so.
    pub(super) fn start_exec(
        &mut self,
        sys: &System,
        pid: usize,
        class: usize,
        (text, loaded): (u64, u64),
    ) -> bool {
        let fs = file_system(sys);
        let size = sys.classes[class].size;
        let exec = &mut self.of[pid].exec;
        let in_memory = loaded < size;
        let from_swap = !in_memory && text > 0 && self.texts[class].on_swap;
        let skipped = if in_memory || from_swap { text } else { 0 };
        exec.first = u32::try_from(skipped / fs.block).expect("the block numbers fit");
        exec.next = exec.first;
        exec.end = fs.blocks_of(sys.classes[class].file_bytes(sys.memory.page));
        from_swap
    }

    /// Exec reads `pid`'s program file (that of `class`) on from its next
    /// block, through the cache, until it must wait or has read the last;
    /// the transfers it needs are asked for.
    pub(super) fn exec_read(&mut self, sys: &System, pid: usize, class: usize) -> ExecRead {
        let file = u32::try_from(class).expect("class numbers fit");
        loop {
            let Exec {
                next, end, first, ..
            } = self.of[pid].exec;
            if next == end {
                return ExecRead::Done;
            }
            let at = self.place(sys, file, next);
            // `breada` from the second block on, whether this one is found
            // or not.
            let ahead = (next > first && next + 1 < end).then_some(next + 1);
            match self.read_through(sys, at, ahead) {
                Access::Hit => {
                    self.release_read(sys, at.block);
                    self.exec_block_copied(sys, pid);
                }
                Access::InTransit | Access::Miss { .. } => {
                    self.wait_for(at.block, pid);
                    return ExecRead::Waits;
                }
                Access::NoBuffer { .. } => {
                    self.cache().wanting.push(pid);
                    return ExecRead::Waits;
                }
            }
        }
    }

    /// Exec has `pid`'s next block, and owes its copy.
    fn exec_block_copied(&mut self, sys: &System, pid: usize) {
        self.of[pid].exec.next += 1;
        self.owe_copy(sys, pid);
    }

    /// A buffer's transfer of `block` is done: the first of the processes
    /// waiting for the block (the rest follow through `next_waiter`), and
    /// those that waited for a buffer, who look again.
    pub(super) fn block_done(&mut self, sys: &System, block: Block) -> (Option<usize>, Vec<usize>) {
        let cache = self.cache();
        cache.buffers.transfer_done(block);
        let waiter = cache.waiting.remove(&block).map(|(first, _)| first);
        let wanting = std::mem::take(&mut cache.wanting);
        if waiter.is_some() {
            self.release_read(sys, block);
        }
        (waiter, wanting)
    }

    /// The block `pid`, of `class`, waited for is in its buffer: exec has
    /// it and reads on; a command's read has it (and owes its copy); a
    /// write of a block that was in transit tries again.
    pub(super) fn block_waited(&mut self, sys: &System, pid: usize, class: usize) -> Waited {
        if self.of[pid].exec.pending {
            self.exec_block_copied(sys, pid);
            return Waited::Exec(self.exec_read(sys, pid, class));
        }
        let (access, _) = self.data_block(sys, class, pid);
        if let FileAccess::Read(_) = access {
            self.owe_copy(sys, pid);
            return Waited::Data(Some(self.advance(sys, &sys.classes[class], pid)));
        }
        Waited::Data(None)
    }

    /// `pid`, of `class`, makes its next block access through the cache;
    /// the transfers it needs are asked for.
    pub(super) fn data_access(&mut self, sys: &System, pid: usize, class: usize) -> DataAnswer {
        let (access, at) = self.data_block(sys, class, pid);
        let answer = match access {
            FileAccess::Read(f) => {
                let blocks = file_system(sys).blocks_of(file_system(sys).data[f].size);
                let index = at.block.index;
                let ahead = (index > 0 && index + 1 < blocks).then_some(index + 1);
                self.read_through(sys, at, ahead)
            }
            FileAccess::Write(f) => self.write(sys, f, at),
        };
        let write = matches!(access, FileAccess::Write(_));
        // Found, or (a write) a buffer taken: the copy, there and then.
        let copied = match answer {
            Access::Hit => {
                if !write {
                    self.release_read(sys, at.block);
                }
                true
            }
            Access::Miss { .. } => write,
            Access::InTransit | Access::NoBuffer { .. } => false,
        };
        if copied {
            let due = self.advance(sys, &sys.classes[class], pid);
            return DataAnswer::Copy { due };
        }
        match answer {
            Access::NoBuffer { .. } => self.cache().wanting.push(pid),
            _ => self.wait_for(at.block, pid),
        }
        DataAnswer::Wait
    }
}

/// A block's file, and how its access is reported.
#[derive(Clone, Copy, Debug)]
struct Placed {
    block: Block,
    kind: FileKind,
    device: usize,
}

/// A transfer the file system asked a device for.
#[derive(Clone, Copy, Debug)]
pub(super) enum FileTransfer {
    /// Exec reading a new command's image from its program's file.
    Exec { pid: usize },
    /// A block read into the buffer cache.
    BufferRead { block: Block },
    /// A block written from the buffer cache.
    BufferWrite { block: Block },
    /// A text swapped in from its copy on the swap area for exec.
    TextIn { pid: usize },
    /// A text written to the swap area as its last process in memory
    /// leaves.
    TextOut,
}

impl FileTransfer {
    /// The process a transfer is made for (none for a block or a text
    /// written out, or a block read ahead).
    pub(super) fn pid(self) -> Option<usize> {
        match self {
            FileTransfer::Exec { pid } | FileTransfer::TextIn { pid } => Some(pid),
            FileTransfer::BufferRead { .. }
            | FileTransfer::BufferWrite { .. }
            | FileTransfer::TextOut => None,
        }
    }

    /// Where on a disk it falls: blocks and exec's reads in the file
    /// system, texts in the swap area.
    pub(super) fn region(self) -> Region {
        match self {
            FileTransfer::Exec { .. }
            | FileTransfer::BufferRead { .. }
            | FileTransfer::BufferWrite { .. } => Region::Files,
            FileTransfer::TextIn { .. } | FileTransfer::TextOut => Region::Swap,
        }
    }
}

impl SystemModel<'_> {
    /// A transfer the file system asked for is done.
    pub(super) fn file_transfer_done(&mut self, transfer: FileTransfer, ctx: &mut Context<Event>) {
        match transfer {
            FileTransfer::Exec { pid } => self.exec_went_on(pid, ExecRead::Done, ctx),
            FileTransfer::BufferRead { block } | FileTransfer::BufferWrite { block } => {
                self.buffer_done(block, ctx)
            }
            // The text is in from the swap area: exec reads the data.
            FileTransfer::TextIn { pid } => self.exec_read(pid, ctx),
            FileTransfer::TextOut => {}
        }
    }

    /// Exec under swapping: `pid`, in memory, reads its image (its text
    /// too unless a copy is in memory already, and its initialised data)
    /// from the program's file, and runs when it is in, after the kernel
    /// has cleared its empty pages.
    pub(super) fn start_exec(&mut self, pid: usize, ctx: &mut Context<Event>) {
        self.recount(pid, ctx.now(), Change::State(State::Io));
        let class = self.procs[pid].class;
        let clearing = self.memory.exec_clearing(self.sys, class);
        self.files.owe_clearing(pid, clearing);
        if self.sys.files.is_none() {
            let bytes = self.memory.exec_bytes(self.sys, pid, class) as f64;
            let programs = self.memory.program_device(self.sys);
            self.request(
                programs,
                Purpose::Files(FileTransfer::Exec { pid }),
                bytes,
                ctx,
            );
            return;
        }
        let (text, loaded) = (
            self.memory.texts[class].bytes,
            self.memory.swap.of[pid].loaded,
        );
        if self.files.start_exec(self.sys, pid, class, (text, loaded)) {
            let device = self.memory.swap_device();
            let purpose = Purpose::Files(FileTransfer::TextIn { pid });
            self.request(device, purpose, text as f64, ctx);
        } else {
            self.exec_read(pid, ctx);
        }
    }

    /// Exec reads `pid`'s program file on through the cache; the command
    /// runs once it has read the last block.
    fn exec_read(&mut self, pid: usize, ctx: &mut Context<Event>) {
        let read = self.files.exec_read(self.sys, pid, self.procs[pid].class);
        self.exec_went_on(pid, read, ctx);
    }

    /// Exec's read for `pid` went on as `read` says: the transfers it
    /// asked for start, and if it has read the last block the command
    /// runs.
    fn exec_went_on(&mut self, pid: usize, read: ExecRead, ctx: &mut Context<Event>) {
        self.file_requests(ctx);
        if read == ExecRead::Done {
            self.files.of[pid].exec.pending = false;
            self.become_runnable(pid, Some(AFTER_DISK), ctx);
        }
    }

    /// Starts the transfers the file system asked for, in order (most
    /// reads ask for none).
    #[inline]
    pub(super) fn file_requests(&mut self, ctx: &mut Context<Event>) {
        let mut next = 0;
        while let Some(&r) = self.files.requests.get(next) {
            self.request(r.device, Purpose::Files(r.transfer), r.bytes, ctx);
            next += 1;
        }
        self.files.requests.clear();
    }

    /// A buffer's transfer of `block` is done: the processes waiting for
    /// the block have it, one after the other, and those waiting for a
    /// buffer look again.
    pub(super) fn buffer_done(&mut self, block: Block, ctx: &mut Context<Event>) {
        let (mut waiter, wanting) = self.files.block_done(self.sys, block);
        while let Some(pid) = waiter {
            waiter = self.files.of[pid].next_waiter.take();
            match self
                .files
                .block_waited(self.sys, pid, self.procs[pid].class)
            {
                Waited::Exec(read) => self.exec_went_on(pid, read, ctx),
                Waited::Data(due) => {
                    if let Some(due) = due {
                        self.procs[pid].due.file = due;
                    }
                    self.become_runnable(pid, Some(AFTER_DISK), ctx);
                }
            }
        }
        for pid in wanting {
            if self.files.of[pid].exec.pending {
                self.exec_read(pid, ctx);
            } else {
                // It tries again when it next runs: its access is due at
                // once.
                self.become_runnable(pid, Some(AFTER_DISK), ctx);
            }
        }
    }

    /// `pid`, on `cpu`, makes its next block access: the kernel copies a
    /// block found at once there and then, and the process runs on;
    /// otherwise it leaves the processor to wait.
    pub(super) fn data_access(&mut self, cpu: usize, pid: usize, ctx: &mut Context<Event>) {
        let answer = self.files.data_access(self.sys, pid, self.procs[pid].class);
        self.file_requests(ctx);
        match answer {
            DataAnswer::Copy { due } => {
                self.procs[pid].due.file = due;
                let copy = file_system(self.sys).copy;
                self.cpus.start_kernel(cpu, pid, BurstKind::Copy, copy, ctx);
            }
            DataAnswer::Wait => {
                let now = ctx.now();
                self.leave_cpu(cpu, pid, now);
                self.recount(pid, now, Change::State(State::Io));
                self.dispatch_idle(ctx);
            }
        }
    }
}

/// The file system of `sys`, which has a buffer cache.
fn file_system(sys: &System) -> &FileSystem {
    sys.files.as_ref().expect("the system has a buffer cache")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::model::Transfer;
    use crate::system::model::frames::tests::{TEN_PAGE_SETS, with_process_at};

    #[test]
    fn a_text_leaving_memory_is_written_to_the_swap_area_once_while_in_the_table() {
        // A text table of two classes, no cache.
        let mut files = Files::new(None, 1, Some(2), 0, None);
        files.attach_text(0);
        // Written the first time it leaves, not again while its copy lasts.
        assert!(files.text_out(0, 4096, false));
        assert!(!files.text_out(0, 4096, false));
        // No text to write, or no user and not sticky: nothing.
        assert!(!files.text_out(1, 0, true));
        assert!(!files.text_out(1, 4096, false));
        // Freed by its last user, its copy goes with it; sticky, it stays
        // in the table and is written once more.
        files.detach_text(0, false);
        assert!(files.text_out(1, 4096, true));
        files.attach_text(0);
        assert!(files.text_out(0, 4096, false));
        // Without a text table there is nothing to write.
        let mut none = Files::new(None, 1, None, 0, None);
        assert!(!none.text_out(0, 4096, true));
    }

    #[test]
    fn each_transfer_says_where_it_falls_and_for_whom() {
        // Where on a disk each transfer falls, and for whom it is.
        let block = Block { file: 3, index: 7 };
        let files = [
            (FileTransfer::Exec { pid: 4 }, Region::Files, Some(4)),
            (FileTransfer::BufferRead { block }, Region::Files, None),
            (FileTransfer::BufferWrite { block }, Region::Files, None),
            (FileTransfer::TextIn { pid: 5 }, Region::Swap, Some(5)),
            (FileTransfer::TextOut, Region::Swap, None),
        ];
        for (transfer, region, pid) in files {
            assert_eq!(transfer.region(), region, "{transfer:?}");
            assert_eq!(Purpose::Files(transfer).pid(), pid, "{transfer:?}");
        }
        let memory = [
            (Transfer::PageRead { pid: 1 }, Some(1)),
            (Transfer::PageWrite, None),
            (Transfer::SwapIn { pid: 2 }, Some(2)),
            (Transfer::SwapOut { pid: 3 }, Some(3)),
        ];
        for (transfer, pid) in memory {
            assert_eq!(Purpose::Memory(transfer).pid(), pid, "{transfer:?}");
        }
        assert_eq!(Purpose::Io { pid: 9 }.pid(), Some(9));
        // A page read falls in the file system when the page comes from
        // the program's file, else in the swap area.
        with_process_at(TEN_PAGE_SETS, SimTime::ZERO, |model, _, pid| {
            let read = Purpose::Memory(Transfer::PageRead { pid });
            for (from_file, region) in [(true, Region::Files), (false, Region::Swap)] {
                model.memory.of[pid].fault_from_file = from_file;
                assert_eq!(read.region(&model.memory), region);
            }
            assert_eq!(Purpose::Io { pid }.region(&model.memory), Region::Files);
        });
    }

    /// A system with a 512-byte-block cache under `rules` and a shared
    /// data file of a block and a half.
    fn with_cache(rules: &str) -> System {
        let text = format!(
            r#"
            name = "cache"
            [run]
            end_time = "10s"
            [system]
            quantum = "100ms"
            [memory]
            policy = "swapping"
            size = "256KiB"
            kernel = "64KiB"
            page = "1KiB"
            device = "disk"
            [[device]]
            name = "disk"
            rate = "1MB/s"
            [users]
            terminals = 1
            think = {{ exp = {{ mean = "1s" }} }}
            commands = [{{ class = "job", weight = 1 }}]
            [[class]]
            name = "job"
            cpu = {{ exp = {{ mean = "1s" }} }}
            size = "8KiB"
            files = [{{ read = "log" }}]
            [files]
            buffers = 4
            block = "512B"
            copy_rate = "2MB/s"
            rules = "{rules}"
            [[file]]
            name = "log"
            size = "768B"
            "#
        );
        crate::load_system("cache.toml", &text).unwrap()
    }

    #[test]
    fn a_whole_block_written_goes_at_once_under_4bsd_and_at_the_flush_under_v7() {
        let writes = |files: &Files| -> Vec<(u32, bool)> {
            files
                .requests
                .iter()
                .map(|r| match r.transfer {
                    FileTransfer::BufferWrite { block } => (block.index, r.device == 0),
                    other => panic!("only writes: {other:?}"),
                })
                .collect()
        };
        for (rules, at_once) in [("4bsd", true), ("v7", false)] {
            let sys = with_cache(rules);
            let mut files = Files::new(sys.files.as_ref(), 1, None, 0, None);
            // The data file is numbered after the one class.
            let (whole, part) = (files.place(&sys, 1, 0), files.place(&sys, 1, 1));
            assert!(matches!(files.write(&sys, 0, whole), Access::Miss { .. }));
            assert!(matches!(files.write(&sys, 0, part), Access::Miss { .. }));
            let expected: &[(u32, bool)] = if at_once { &[(0, true)] } else { &[] };
            assert_eq!(writes(&files), expected, "{rules}: written at once");
            files.requests.clear();
            // `update`'s flush sends what was delayed: the part block under
            // 4BSD, both under V7.
            files.flush(&sys);
            let expected: &[(u32, bool)] = if at_once {
                &[(1, true)]
            } else {
                &[(0, true), (1, true)]
            };
            assert_eq!(writes(&files), expected, "{rules}: flushed");
        }
    }
    /// The blocks of the reads `files` has asked for, taken.
    fn reads(files: &mut Files) -> Vec<u32> {
        files
            .requests
            .drain(..)
            .map(|r| match r.transfer {
                FileTransfer::BufferRead { block } => block.index,
                other => panic!("only reads: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn exec_reads_its_program_block_by_block_and_owes_a_copy_for_each() {
        let sys = with_cache("v7");
        let copy = file_system(&sys).copy;
        let mut files = Files::new(sys.files.as_ref(), 1, None, 0, Some(0));
        files.enter(0, ProcessFiles::new(true));
        // The whole 8 KiB image is read: 16 blocks of 512 bytes.
        assert!(
            !files.start_exec(&sys, 0, 0, (0, 8192)),
            "no text from the swap area"
        );
        assert_eq!(files.exec_read(&sys, 0, 0), ExecRead::Waits);
        let mut asked = vec![reads(&mut files)];
        let mut read = ExecRead::Waits;
        for index in 0..16 {
            let (waiter, wanting) = files.block_done(&sys, Block { file: 0, index });
            assert_eq!((waiter, wanting.len()), (Some(0), 0), "block {index}");
            assert_eq!(files.of[0].next_waiter, None);
            let Waited::Exec(went) = files.block_waited(&sys, 0, 0) else {
                panic!("exec waited");
            };
            read = went;
            asked.push(reads(&mut files));
        }
        assert_eq!(read, ExecRead::Done);
        // The first block alone; the second with the third read ahead;
        // from then on each block is in transit, read ahead a step before,
        // and the next is read ahead (`breada` reads ahead whether the
        // block is found or not), up to the last.
        let mut expected = vec![vec![0], vec![1, 2]];
        expected.extend((3..16).map(|b| vec![b]));
        expected.extend([vec![], vec![]]);
        assert_eq!(asked, expected);
        assert_eq!(files.of[0].copy, SimTime::from_nanos(copy.as_nanos() * 16));
        // A text in memory already is not read: exec starts where the data
        // begins (the first 4 KiB, 8 blocks, are text).
        assert!(!files.start_exec(&sys, 0, 0, (4096, 4096)));
        assert_eq!((files.of[0].exec.first, files.of[0].exec.end), (8, 16));
    }

    #[test]
    fn a_block_found_is_copied_at_once_and_one_missed_is_waited_for() {
        let sys = with_cache("v7");
        let second = SimTime::from_secs(1);
        let mut files = Files::new(sys.files.as_ref(), 1, None, 0, None);
        files.enter(0, ProcessFiles::new(false));
        // The log's two blocks read over 3 s: one access a second.
        let demand = SimTime::from_secs(3);
        assert_eq!(
            files.start_accesses(&sys, &sys.classes[0], 0, demand),
            second
        );
        // The read misses: the process waits, the block is asked for.
        assert_eq!(files.data_access(&sys, 0, 0), DataAnswer::Wait);
        assert_eq!(reads(&mut files), [0]);
        let (waiter, _) = files.block_done(&sys, Block { file: 1, index: 0 });
        assert_eq!(waiter, Some(0));
        // It has the block now, owes its copy, and goes on to the next.
        assert_eq!(files.block_waited(&sys, 0, 0), Waited::Data(Some(second)));
        assert_eq!(files.of[0].copy, file_system(&sys).copy);
        // The second block: missed, with nothing ahead of the last; no
        // access after it.
        assert_eq!(files.data_access(&sys, 0, 0), DataAnswer::Wait);
        assert_eq!(reads(&mut files), [1]);
        let _ = files.block_done(&sys, Block { file: 1, index: 1 });
        let last = files.block_waited(&sys, 0, 0);
        assert_eq!(last, Waited::Data(Some(SimTime::MAX)));
        // The next command finds both blocks in the cache (V7 leaves a
        // buffer read to its end at the tail of the free list): copied at
        // once, nothing asked of the disk.
        let _ = files.start_accesses(&sys, &sys.classes[0], 0, demand);
        let due = [second, SimTime::MAX];
        for due in due {
            assert_eq!(files.data_access(&sys, 0, 0), DataAnswer::Copy { due });
        }
        assert!(files.requests.is_empty());
    }
}
