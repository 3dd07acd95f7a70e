//! The time-sharing system: terminal users, command classes, processors,
//! memory management and devices.
//!
//! A [`System`] is the validated form of a scenario with a `[system]`
//! table (see `docs/scenario-format.md` and `docs/time-sharing.md`);
//! [`simulate`] runs it. The model follows each user through think time and
//! commands, each command being a process that needs processor time, I/O on
//! disks and memory. Under *swapping* a process runs only with its whole
//! image in memory and a swapper moves images in and out by the UNIX V7
//! rules; under *demand paging* each process holds a resident set that grows
//! by page faults, whose rate follows the class's lifetime function, while
//! global replacement takes frames from the processes that ran least
//! recently. Thrashing is not written in anywhere: it follows from resident
//! sets being squeezed below their knees.

pub mod buffer_cache;
pub mod disk;
mod free_list;
pub mod layout;
mod model;

pub use disk::{Area, Arm, Geometry, Order, Place, Region, Rotation, SeekCurve};
pub use layout::{Interleave, Layout};
pub use model::{
    LifetimePoint, LoadSample, Observation, SetSizePoint, simulate, simulate_with_progress,
};

use crate::run::RunSettings;
use tpsim_core::{Dist, SimTime};

/// A validated time-sharing system.
#[derive(Clone, Debug)]
pub struct System {
    /// Its name, seed and run length.
    pub settings: RunSettings,
    /// How often the load indices are sampled for the time series.
    pub load_interval: SimTime,
    /// Processors and their scheduling.
    pub cpu: Cpu,
    /// Memory and how it is managed.
    pub memory: Memory,
    /// Disks and bulk stores.
    pub devices: Vec<Device>,
    /// The terminal users.
    pub users: Users,
    /// The command classes.
    pub classes: Vec<CommandClass>,
    /// Processes that run in the background for the whole run.
    pub background: Vec<Background>,
    /// The lists of programs that programs run in place of their
    /// classes' `runs` (`Program::runs`).
    pub run_lists: Vec<Vec<Program>>,
    /// The terminal probe, if the scenario has one.
    pub probe: Option<Probe>,
    /// The file system's buffer cache, if the scenario has one (`[files]`):
    /// without it every read of a file goes to the disk in one transfer.
    pub files: Option<FileSystem>,
}

impl System {
    /// The programs a process of `class` started as a program with `runs`
    /// (`Program::runs`) runs in turn: its own list, or its class's.
    pub fn runs(&self, class: usize, runs: Option<usize>) -> &[Program] {
        match runs {
            Some(list) => &self.run_lists[list],
            None => &self.classes[class].runs,
        }
    }

    /// What a user should know before running: valid settings whose
    /// consequence may surprise, such as commands that can never run.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        let m = &self.memory;
        if m.installed > m.size {
            notes.push(format!(
                "memory.size: the machine has {} bytes, of which the kernel uses {} (memory.usable); the rest is idle",
                m.installed, m.size
            ));
        }
        if let Policy::Swapping { .. } = self.memory.policy {
            let (largest, of) = self.memory.largest_image();
            for class in self.classes.iter().filter(|c| c.size > largest) {
                notes.push(format!(
                    "class {}: its image ({} bytes) is larger than {of} ({largest} bytes); under swapping its commands will be rejected",
                    class.name, class.size
                ));
            }
        }
        notes
    }
}

/// The processors.
#[derive(Clone, Debug)]
pub struct Cpu {
    /// The number of processors.
    pub count: u32,
    /// How processes are chosen to run.
    pub scheduler: Scheduler,
    /// The round-robin quantum; under the UNIX scheduler, the interval
    /// between rescheduling checks (V7: a second).
    pub quantum: SimTime,
    /// The cost of each dispatch of a different process.
    pub context_switch: SimTime,
    /// The most processes eligible at once (the Multics eligibility limit,
    /// `max_eligible`); `None` for no limit.
    pub max_multiprogramming: Option<u32>,
    /// Each processor's speed in millions of instructions a second, if the
    /// scenario gives it.
    pub mips: Option<f64>,
}

/// A processor's speed on an instruction mix as a time-weighted mean of
/// its speeds with every operand in the cache and with the cache off
/// \[MIPS\]: at hit ratio `h` an instruction takes `h / cached + (1 − h) /
/// uncached` microseconds (the 1975 Multics report, section I: USL's 0.92
/// and 0.584 MIPS give 0.80 at 75%, M.I.T.'s 0.92 and 0.73 give 0.86).
pub fn effective_mips(cached: f64, uncached: f64, hit_ratio: f64) -> f64 {
    1.0 / (hit_ratio / cached + (1.0 - hit_ratio) / uncached)
}

/// How processes are chosen to run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scheduler {
    /// One queue, first come first served, each dispatch good for a
    /// quantum; nothing preempts a burst.
    RoundRobin,
    /// UNIX V7 and 3BSD: priorities from recent processor use decayed each
    /// second and `nice`; a process woken from a sleep runs at the kernel
    /// priority it slept at and preempts a user-level process
    /// (`docs/time-sharing.md`).
    Unix(Unix),
    /// Multics traffic control: multilevel queues with a quantum that
    /// doubles from level to level, eligibility awarded by working-set
    /// estimate against memory, interactive work first
    /// (`docs/time-sharing.md`).
    Multics(Multics),
    /// Linux's fair scheduler as of 6.6 (EEVDF): weighted virtual run
    /// time, the eligible process of earliest virtual deadline first, lag
    /// kept over a sleep (`docs/time-sharing.md`).
    Fair(Fair),
}

impl Scheduler {
    /// The name a scenario gives it.
    pub fn name(self) -> &'static str {
        match self {
            Scheduler::RoundRobin => "round-robin",
            Scheduler::Unix(_) => "unix",
            Scheduler::Multics(_) => "multics",
            Scheduler::Fair(_) => "fair",
        }
    }
}

/// Linux's fair scheduler's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fair {
    /// The base slice for one processor (`normalized_sysctl_sched_base_slice`):
    /// the request each turn is for, scaled by 1 + log2 of the processors
    /// (at most 8), as Linux does by default.
    pub base_slice: SimTime,
}

impl Default for Fair {
    /// 0.70 ms: `kernel/sched/fair.c`, `sysctl_sched_base_slice =
    /// 700000ULL` since Linux 6.15 (0.75 ms from 6.6 to 6.14).
    fn default() -> Fair {
        Fair {
            base_slice: SimTime::from_nanos(700_000),
        }
    }
}

/// The UNIX scheduler's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Unix {
    /// What a process's recent processor use (`p_cpu`) is multiplied by
    /// each second: 8/10 in V7 and 3BSD, 9/10 in 4.0BSD (`SCHMAG`).
    pub decay: f64,
    /// The kernel priority a process waiting for a page read sleeps at,
    /// and runs at when woken: 4.0BSD's page transfer sleeps at `PSWP`,
    /// 0 (`vmpage.c`, `swap`).
    pub pagein_priority: u8,
}

impl Default for Unix {
    /// V7's clock (`clock.c`, `SCHMAG` 8/10; docs/sources.md), and a page
    /// read waited for at `PRIBIO` (20) as for any disk read: an
    /// assumption, V7 having no paging.
    fn default() -> Unix {
        Unix {
            decay: 0.8,
            pagein_priority: 20,
        }
    }
}

/// The Multics scheduler's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Multics {
    /// The number of queue levels: a process that uses up its quantum at
    /// level k loses eligibility and waits at level k + 1 (at most the
    /// last), with twice the quantum.
    pub levels: u8,
    /// Below this many eligible processes, eligibility is awarded whatever
    /// the working sets (`min_eligible`).
    pub min_eligible: u32,
    /// The working-set estimates of the eligible processes, times this
    /// factor, must fit in user memory; 0 leaves only the counts.
    pub working_set_factor: f64,
}

impl Default for Multics {
    /// MR12's `tc_data` defaults, `min_eligible` 2 and a
    /// `working_set_factor` of 1, and the "something like 6" queues of the
    /// first Multics scheduler (docs/sources.md, \[MX\] and \[MS\]).
    fn default() -> Multics {
        Multics {
            levels: 6,
            min_eligible: 2,
            working_set_factor: 1.0,
        }
    }
}

/// Memory and its management.
#[derive(Clone, Debug)]
pub struct Memory {
    /// Physical memory the kernel manages \[bytes\]: the machine's, or
    /// less where the kernel uses no more (32V's `PHYSPAGES`).
    pub size: u64,
    /// Physical memory in the machine \[bytes\], at least `size`.
    pub installed: u64,
    /// The kernel's share \[bytes\].
    pub kernel: u64,
    /// The page size \[bytes\].
    pub page: u64,
    /// The device holding the programs' files (an index into `devices`):
    /// exec reads a new command's image from it under swapping, and under
    /// paging the pages of a program's file come from it. `None` under
    /// paging over several drives with no device named: the programs are
    /// spread over the paging drives like the pages.
    pub programs: Option<usize>,
    /// How memory is shared out.
    pub policy: Policy,
}

impl Memory {
    /// Memory left for user processes \[bytes\].
    pub fn user_bytes(&self) -> u64 {
        self.size - self.kernel
    }

    /// The largest image a process may have in memory under swapping
    /// \[bytes\]: user memory, or less under a process limit; with
    /// which key bounds it.
    pub fn largest_image(&self) -> (u64, &'static str) {
        let user = self.user_bytes();
        match self.policy {
            Policy::Swapping {
                process_limit: Some(limit),
                ..
            } if limit < user => (limit, "memory.process_limit"),
            _ => (user, "user memory"),
        }
    }

    /// Page frames left for user processes.
    pub fn user_frames(&self) -> u64 {
        self.user_bytes() / self.page
    }

    /// The number of pages an image of `bytes` occupies.
    pub fn pages_of(&self, bytes: u64) -> u64 {
        bytes.div_ceil(self.page)
    }
}

/// The file system's buffer cache (`[files]`): exec reads a program's
/// file block by block through it, and commands read and write their
/// data files (`[[file]]`) through it.
#[derive(Clone, Debug)]
pub struct FileSystem {
    /// Buffers in the cache (V7's `NBUF`), each one block, in the kernel's
    /// part of memory.
    pub buffers: usize,
    /// The block size \[bytes\]: 512 in V7, 1,024 in 4BSD.
    pub block: u64,
    /// Whether a read of the block after the one read last in the same
    /// file starts a read of the next block too (`breada`).
    pub read_ahead: bool,
    /// Processor time to copy one block between a buffer and a process's
    /// memory, which every read through the cache costs, hit or miss.
    pub copy: SimTime,
    /// The data files commands read and write.
    pub data: Vec<DataFile>,
    /// How the file system releases the buffers it reads and writes.
    pub rules: BufferRules,
    /// Where a file's blocks lie on a disk with an arm.
    pub layout: Layout,
}

/// How `readi` and `writei` release buffers, which decides what the cache
/// keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferRules {
    /// V7 (`rdwri.c`): a block read is released at the tail of the free
    /// list; every block written is a delayed write (`bdwrite`), sent when
    /// its buffer is taken or at `update`'s flush.
    V7,
    /// 4BSD (4.1BSD's `rdwri.c` 4.6, 81/03/08): a block read to its end
    /// goes to the head of the free list (`B_AGE`), to be taken first; a
    /// whole block written is sent at once and goes to the head when done
    /// (`B_AGE`, `bawrite`); a part of a block is a delayed write.
    Bsd,
}

/// A data file (`[[file]]`).
#[derive(Clone, Debug)]
pub struct DataFile {
    /// Its name, which classes' `files` give.
    pub name: String,
    /// Its size \[bytes\].
    pub size: u64,
    /// The device it is on (an index into `devices`).
    pub device: usize,
    /// Each command that uses it has a copy of its own (a temporary file,
    /// as a compiler's passes write and read); otherwise one file serves
    /// every command (a manual page, a macro package).
    pub private: bool,
}

/// One step of a class's file accesses: the whole of a data file (an
/// index into `FileSystem::data`) read, or written, block by block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileAccess {
    /// The file read from its first block to its last.
    Read(usize),
    /// The file written from its first block to its last (a private file).
    Write(usize),
}

impl FileAccess {
    /// The file accessed.
    pub fn file(self) -> usize {
        match self {
            FileAccess::Read(f) | FileAccess::Write(f) => f,
        }
    }
}

impl FileSystem {
    /// The memory the buffers take \[bytes\].
    pub fn bytes(&self) -> u64 {
        self.buffers as u64 * self.block
    }

    /// The blocks of a file of `bytes`.
    pub fn blocks_of(&self, bytes: u64) -> u32 {
        u32::try_from(bytes.div_ceil(self.block)).expect("a file has fewer than 2^32 blocks")
    }
}

/// How memory is shared out among processes.
#[derive(Clone, Debug)]
pub enum Policy {
    /// Whole images, moved by a swapper (UNIX V7).
    Swapping {
        /// The device images are swapped to (an index into `devices`).
        device: usize,
        /// Processor time to clear one page of a new image's bss and stack
        /// at exec (32V's `clearseg`): each class's `empty_pages`.
        clear: SimTime,
        /// The most memory one process may have (32V's `MAXUMEM`), if
        /// less than user memory bounds it.
        process_limit: Option<u64>,
    },
    /// Demand paging with global replacement (Berkeley UNIX, Multics).
    Paging(Paging),
}

/// Demand paging.
#[derive(Clone, Debug)]
pub struct Paging {
    /// The drives pages are read from when not on the bulk store: one, or
    /// several that pages are spread over uniformly, each transfer going to
    /// one of them drawn at random.
    pub drives: Vec<usize>,
    /// A fast store in front of the paging device.
    pub bulk_store: Option<BulkStore>,
    /// How pages are chosen for replacement.
    pub replacement: Replacement,
    /// Free frames the page daemon keeps in reserve (`lotsfree`), under
    /// replacement by process.
    pub free_target: u64,
    /// Whether pages taken by replacement stay valid in the free pool until
    /// their frame is reused, so that a fault on one is a reclaim without
    /// I/O (Berkeley UNIX).
    pub reclaim: bool,
    /// Processor time of a fault that needs no I/O: a reclaim or a
    /// zero-filled page.
    pub soft_fault_cpu: SimTime,
    /// Memory as frames: a read from the swap area brings in, in the same
    /// transfer, the other pages of the faulted page's aligned cluster of
    /// this many pages that are also in the swap area, while frames are
    /// free (3BSD's klustering); 1 for none.
    pub kluster: u64,
}

impl Paging {
    /// The drive a page transfer goes to: the only one, or one drawn
    /// uniformly from `rng` (nothing is drawn with one drive, so a
    /// scenario's streams do not depend on the list being one long).
    pub(crate) fn drive(&self, rng: &mut impl rand::RngExt) -> usize {
        match self.drives.as_slice() {
            [one] => *one,
            many => many[rng.random_range(0..many.len())],
        }
    }
}

/// How pages are chosen for replacement.
#[derive(Clone, Debug, PartialEq)]
pub enum Replacement {
    /// Memory is counted, not mapped: pages are taken a batch at a time from
    /// the holder (process or shared text) that ran least recently, and
    /// faults follow each class's lifetime function.
    ProcessLru,
    /// Memory as frames with reference bits, scanned by the one-handed
    /// global clock of the 3BSD pageout daemon; faults follow each class's
    /// phase model of references (`docs/time-sharing.md`).
    Clock(ClockDaemon),
    /// Memory as frames, each process's resident set trimmed to its working
    /// set WS(`tau`) whenever it leaves a processor, commands admitted only
    /// while the working sets fit in memory; the clock daemon stays as the
    /// backstop below `lotsfree`.
    WorkingSet {
        /// The daemon.
        daemon: ClockDaemon,
        /// The window of processor time of the working set.
        tau: SimTime,
    },
    /// Memory as frames, each process's resident set governed by its
    /// page-fault frequency (Chu and Opderbeck): at a fault that comes more
    /// than `interval` of processor time after the process's previous one,
    /// the pages it did not reference in between are freed; commands are
    /// admitted only while the resident sets fit in memory; the clock
    /// daemon stays as the backstop below `lotsfree`.
    PageFaultFrequency {
        /// The daemon.
        daemon: ClockDaemon,
        /// The critical interval of processor time between faults.
        interval: SimTime,
    },
}

impl Replacement {
    /// The pageout daemon, under the policies with memory as frames.
    pub fn daemon(&self) -> Option<&ClockDaemon> {
        match self {
            Replacement::ProcessLru => None,
            Replacement::Clock(daemon)
            | Replacement::WorkingSet { daemon, .. }
            | Replacement::PageFaultFrequency { daemon, .. } => Some(daemon),
        }
    }
}

/// The pageout daemon of 3BSD, which runs a global clock over the frames
/// while free memory is short (3BSD `vmsched.c`, `vmpage.c`, `h/vm.h`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClockDaemon {
    /// The daemon scans while fewer frames than this are free
    /// (`lotsfree`; 3BSD: ⅛ of user memory).
    pub lotsfree: u64,
    /// A fault that leaves fewer frames than this free wakes the daemon at
    /// once, rather than at its next once-a-second start (`desfree`; 3BSD:
    /// 64 pages).
    pub desfree: u64,
    /// One revolution of the hand over user memory takes this long when
    /// free memory is at `lotsfree` (`slowscan`; 3BSD: 30 s) ...
    pub slowscan: f64,
    /// ... and this long when no memory is free (`fastscan`; 3BSD: 20 s),
    /// linearly in between \[s\].
    pub fastscan: f64,
    /// Two hands this many frames apart (4.3BSD's `handspread`): the front
    /// hand clears reference bits and the back hand frees the pages not
    /// referenced since. `None`: one hand, which frees a page not
    /// referenced since its previous pass (3BSD).
    pub handspread: Option<u64>,
    /// Whether the hardware keeps reference bits, or the kernel simulates
    /// them by invalidating pages (3BSD on the VAX).
    pub reference_bits: ReferenceBits,
    /// Who moves the hand: the daemon on its budget (3BSD), or each fault
    /// that takes a frame (Multics).
    pub pageout: Pageout,
    /// The swapper swaps a process out when the average free memory stays
    /// below `desfree` and falls below this (`minfree`; 3BSD: 32 pages).
    pub minfree: u64,
    /// The 3BSD swapper as the load control behind the clock; `None`: none
    /// (the working-set and page-fault-frequency policies have their own).
    pub swapper: Option<PagingSwapper>,
}

/// The 3BSD swapper under paging (`sched` in 3BSD `vmsched.c`): once a
/// second, and whenever a swapped-out process becomes runnable, it swaps a
/// process out when paging cannot keep up, or brings one back in when
/// memory allows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PagingSwapper {
    /// Paging is too heavy above this many page transfers a second (reads
    /// and writes, averaged over 5 s) while free memory is below `desfree`
    /// (`maxpgio`; 3BSD: 40).
    pub maxpgio: f64,
    /// A process asleep longer than this is swapped out when free memory is
    /// below `desfree` (`maxslp`; 3BSD: 20 s).
    pub maxslp: SimTime,
}

/// Who moves the clock's hand (`memory.pageout`: `"daemon"` or
/// `"fault"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pageout {
    /// The pageout daemon (3BSD): a budget of frames to examine each
    /// second, set by `slowscan` and `fastscan` from the free memory at the
    /// second's start, spent while free memory is below `lotsfree`; a fault
    /// that leaves less than `desfree` free wakes it to spend what is left.
    Daemon,
    /// The fault handler (Multics's core management, \[MX\]): every fault
    /// that leaves less than `lotsfree` free moves the hand on until
    /// `lotsfree` frames are free again, without a budget, so the hand goes
    /// round as fast as faults consume memory (at most two revolutions a
    /// fault: by then it has freed every page a hand may take).
    Fault,
}

/// Where the clock's reference bits come from (`memory.reference_bits`:
/// `"hardware"` or `"simulated"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReferenceBits {
    /// The hardware sets a page's bit at each reference, at no cost.
    Hardware,
    /// The VAX has no reference bit: the hand invalidates a page, and the
    /// next reference to it traps and revalidates it, a fault without I/O
    /// (a reclaim); a page still invalid when the hand comes back was not
    /// referenced (3BSD, \[BJ\]).
    Simulated,
}

impl ClockDaemon {
    /// The frames the daemon may look at in the coming `period` with
    /// `free` of `frames` user frames free: none at `lotsfree` or above,
    /// else a revolution per `slowscan` seconds at `lotsfree` moving
    /// linearly to one per `fastscan` at none free (3BSD `vmmeter`,
    /// `desscan`). Free memory promised to processes just swapped in
    /// (`deficit`) counts as taken for the rate.
    pub fn scan_budget(&self, free: u64, deficit: u64, frames: u64, period: SimTime) -> u64 {
        if free >= self.lotsfree {
            return 0;
        }
        let lots = self.lotsfree as f64;
        let free = free.saturating_sub(deficit) as f64;
        let seconds_per_revolution = (self.slowscan * free + self.fastscan * (lots - free)) / lots;
        (frames as f64 * period.as_secs_f64() / seconds_per_revolution).ceil() as u64
    }
}

/// A bulk store in front of the paging device.
#[derive(Clone, Debug)]
pub struct BulkStore {
    /// The device.
    pub device: usize,
    /// How page reads are shared between it and the disk.
    pub placement: Placement,
}

/// How page reads are shared between the bulk store and the disk.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Placement {
    /// Pages evicted from memory go to the bulk store, which holds this many
    /// pages and pushes its oldest on to the disk when full; the fraction
    /// of reads served by the disk follows.
    Capacity(u64),
    /// This fraction of page reads goes to the disk, the rest to the bulk
    /// store.
    DiskFraction(f64),
}

/// A disk or a bulk store: one server, whose requests wait in line.
#[derive(Clone, Debug)]
pub struct Device {
    /// The device's name.
    pub name: String,
    /// Seek time per request, drawn afresh for each (a device without an
    /// arm).
    pub seek: Dist,
    /// The disk's arm: seek times from the distance travelled, the order of
    /// the queue and the areas on the disk. `None`: the seek is drawn from
    /// `seek` and the queue is served first come first served.
    pub arm: Option<Arm>,
    /// One revolution \[s\]; the rotational latency is uniform over it
    /// unless the arm follows the positional rule (`Arm::rotation`). 0 for
    /// a device without rotation.
    pub revolution: f64,
    /// Transfer rate \[bytes/s\].
    pub rate: f64,
    /// Processor time the kernel spends on each page fault served by this
    /// device.
    pub fault_cpu: SimTime,
    /// Processor time of the interrupt that ends each of its requests.
    pub interrupt_cpu: SimTime,
}

impl Device {
    /// The mean and variance of a request's seek time when every request
    /// falls in `region` and the queue is served first come first served
    /// \[s, s²\].
    pub fn seek_moments(&self, region: Region) -> (f64, f64) {
        match &self.arm {
            Some(arm) => arm.seek.uniform_moments(arm.area(region)),
            None => (self.seek.mean(), self.seek.variance()),
        }
    }

    /// The mean time to serve a request of `bytes` in `region`, served
    /// first come first served \[s\].
    pub fn mean_service(&self, bytes: f64, region: Region) -> f64 {
        self.seek_moments(region).0 + 0.5 * self.revolution + bytes / self.rate
    }
}

/// The terminal users.
#[derive(Clone, Debug)]
pub struct Users {
    /// How many are logged in, and when.
    pub population: Population,
    /// Think time between the end of one command and the next.
    pub think: Dist,
    /// The command mix.
    pub mix: Vec<Mix>,
    /// The class of each user's shell (an index into `classes`): it sleeps
    /// at the terminal while the user thinks, and forks and execs each
    /// command typed. `None`: commands start without a shell.
    pub shell: Option<usize>,
    /// Which processes the "user processes" load index counts.
    pub processes: ProcessCount,
}

/// Which processes the "user processes" load index counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcessCount {
    /// The processes of commands typed at terminals, those left running
    /// included: "processes generated by user commands", the 1981 study's
    /// index, without system processes.
    Commands,
    /// Every process: commands, shells and background processes.
    All,
}

/// One entry of the command mix.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mix {
    /// The class (an index into `classes`).
    pub class: usize,
    /// Its relative weight.
    pub weight: f64,
    /// The fraction of these commands the user runs in the background
    /// (`cmd &`): the user does not wait for them and thinks again at once.
    pub detached: f64,
}

/// How many users are logged in.
#[derive(Clone, Debug)]
pub enum Population {
    /// This many, all the time.
    Fixed(u32),
    /// Users log in over the day and stay for a session.
    Sessions(Box<Sessions>),
}

/// Logins over a day.
#[derive(Clone, Debug)]
pub struct Sessions {
    /// The number of terminals; a login finding all taken is refused.
    pub terminals: u32,
    /// Login rate for each hour of the day \[per second\].
    pub per_hour: [f64; 24],
    /// The hour of the day at simulated time zero \[h\].
    pub start_hour: f64,
    /// How long a user stays logged in.
    pub session: Dist,
}

impl Sessions {
    /// The login rate at simulated time `t` \[per second\].
    pub fn rate_at(&self, t: SimTime) -> f64 {
        self.per_hour[self.hour_at(t)]
    }

    /// The hour of the day at simulated time `t`.
    pub fn hour_at(&self, t: SimTime) -> usize {
        let hours = self.start_hour + t.as_secs_f64() / 3600.0;
        (hours.floor() as u64 % 24) as usize
    }

    /// The start of the next hour of the day after `t`.
    pub fn next_hour(&self, t: SimTime) -> SimTime {
        let offset = self.start_hour * 3600.0;
        let elapsed = offset + t.as_secs_f64();
        let next = ((elapsed / 3600.0).floor() + 1.0) * 3600.0 - offset;
        SimTime::from_secs_f64(next).max(t + SimTime::from_nanos(1))
    }
}

/// A class of commands (or of background work).
#[derive(Clone, Debug)]
pub struct CommandClass {
    /// The class's name.
    pub name: String,
    /// UNIX `nice` (-20 to 19), added to the priority under the UNIX
    /// scheduler.
    pub nice: i32,
    /// Processor demand per command, before `demand_scale`.
    pub demand: Dist,
    /// Seconds per unit of `demand`: 1 for a demand in seconds, 1/MIPS/1e6
    /// for one in instructions.
    pub demand_scale: f64,
    /// I/O requests.
    pub io: Vec<Io>,
    /// Image size \[bytes\], shared text included.
    pub size: u64,
    /// The shared, read-only part of the image (program text) \[bytes\]:
    /// one copy serves every process of the class, and it stays in memory
    /// between commands while nothing needs the room.
    pub text: u64,
    /// Page-fault behaviour under paging.
    pub locality: Option<Locality>,
    /// The probability that a page taken from the process is dirty.
    pub dirty: f64,
    /// The fraction of the private pages that start empty (stack, bss):
    /// under paging, on first touch they get a cleared frame, without a
    /// read; under swapping exec clears them (`empty_pages`).
    pub zero_fill: f64,
    /// Segment faults (Multics): kernel work without I/O that interrupts a
    /// command's processing.
    pub segment_faults: Option<SegmentFaults>,
    /// The data files a command reads and writes, in order, through the
    /// buffer cache (empty without `[files]`).
    pub files: Vec<FileAccess>,
    /// The text stays in the text table, with a copy on the swap area,
    /// when its last process exits (V7's sticky bit, `ISVTX`): swapping
    /// with `[files]` only.
    pub sticky: bool,
    /// The programs a command of this class runs in turn, each forked,
    /// exec'd and waited for (a shell script); its own demand is drawn
    /// once before each and once after the last (the shell's work per
    /// line). Empty for a program that runs no others.
    pub runs: Vec<Program>,
}

impl CommandClass {
    /// The mean processor demand of a command \[s\].
    pub fn mean_demand(&self) -> f64 {
        self.demand.mean() * self.demand_scale
    }

    /// The mean number of I/O requests per command.
    pub fn mean_io(&self) -> f64 {
        self.io.iter().map(|io| io.count).sum()
    }

    /// The private pages of `page` bytes that start empty, the bss and the
    /// stack: `zero_fill` of the private part's pages, to the nearest
    /// page. Under swapping exec clears them and reads the rest of the
    /// private part, the initialised data, from the program's file (32V's
    /// `getxfile`).
    pub fn empty_pages(&self, page: u64) -> u64 {
        let private = (self.size - self.text).div_ceil(page);
        ((self.zero_fill * private as f64).round() as u64).min(private)
    }

    /// The bytes of the image exec reads from the program's file under
    /// swapping, with pages of `page` bytes: the text and the initialised
    /// data, all but the empty pages (`empty_pages`).
    pub fn file_bytes(&self, page: u64) -> u64 {
        self.size - (self.empty_pages(page) * page).min(self.size - self.text)
    }
}

/// A class's segment faults: a Poisson stream in its processor time, each
/// a stretch of kernel processor time (Multics activating a segment whose
/// page table is not in the active segment table; the 1975 report meters
/// their share of processor time).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SegmentFaults {
    /// The mean number per command.
    pub per_command: f64,
    /// Processor time of each.
    pub cpu: SimTime,
}

/// I/O requests of a class to one device.
#[derive(Clone, Debug)]
pub struct Io {
    /// The device.
    pub device: usize,
    /// The mean number of requests per command. Requests come at
    /// exponentially distributed intervals of processor time.
    pub count: f64,
    /// Bytes per request.
    pub size: f64,
}

/// How a class's processes reference their pages.
#[derive(Clone, Debug)]
pub enum Locality {
    /// A lifetime function gives the time between faults from the resident
    /// set's size (memory counted, replacement by process).
    Lifetime(Lifetime),
    /// References from a phase model (memory as frames).
    Phases(Phases),
}

impl Locality {
    /// The lifetime function, if the class has one.
    pub fn lifetime(&self) -> Option<Lifetime> {
        match self {
            Locality::Lifetime(l) => Some(*l),
            Locality::Phases(_) => None,
        }
    }

    /// The phase model, if the class has one.
    pub fn phases(&self) -> Option<&Phases> {
        match self {
            Locality::Phases(p) => Some(p),
            Locality::Lifetime(_) => None,
        }
    }
}

/// The phase-transition model of program behaviour (Denning and Kahn;
/// Madison and Batson's bounded locality intervals): a process runs
/// through phases; in each, its references fall on a locality set of
/// `set` pages, a run of consecutive pages at a place in its address space
/// drawn uniformly at the start of the phase (so that successive sets may
/// overlap), uniformly or by the stated `pattern`. References come as a
/// Poisson stream in the process's processor time.
#[derive(Clone, Debug)]
pub struct Phases {
    /// Pages in a locality set.
    pub set: u64,
    /// The processor time a phase lasts \[s\].
    pub phase: Dist,
    /// The mean processor time between two page references \[s\].
    pub reference: f64,
    /// How references fall on the set's pages.
    pub pattern: Pattern,
    /// Phases within phases: the region each set is drawn in, if any
    /// (boxed: most classes have none).
    pub region: Option<Box<LocalityRegion>>,
}

/// The outer phase of nested localities: a region of consecutive pages,
/// drawn uniformly over the image, within which each locality set is
/// drawn, until the region's phase ends.
#[derive(Clone, Debug)]
pub struct LocalityRegion {
    /// Pages in the region (at least the set's).
    pub pages: u64,
    /// The processor time a region lasts \[s\].
    pub phase: Dist,
}

/// How a phase's references fall on the pages of its locality set.
#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    /// Every page of the set equally often.
    Uniform,
    /// The set's pages in order from its first, the i-th (from 1) with
    /// probability proportional to 1 / i^exponent (Zipf's law), held as
    /// integer weights, one per page, summing to about 2^40 (a page's
    /// probability is rounded to a multiple of 2^-40, and is at least
    /// that): integer sums stay exact over any number of updates.
    Zipf {
        /// The exponent, > 0.
        exponent: f64,
        /// The pages' weights, the set's first page first.
        weights: std::sync::Arc<[u64]>,
    },
}

impl Pattern {
    /// The Zipf pattern with `exponent` over a set of `set` pages.
    pub fn zipf(exponent: f64, set: u64) -> Pattern {
        let raw: Vec<f64> = (1..=set).map(|i| (i as f64).powf(-exponent)).collect();
        let sum: f64 = raw.iter().sum();
        let scale = (1u64 << 40) as f64 / sum;
        let weights = raw
            .iter()
            .map(|r| ((r * scale).round() as u64).max(1))
            .collect();
        Pattern::Zipf { exponent, weights }
    }
}

impl Phases {
    /// The mean processor time between faults of a process in a phase with
    /// `resident` of the set's pages in memory, the others missing
    /// \[s\]: references land on a missing page at the rate
    /// `(set - resident) / set / reference`.
    pub fn mean_time_between_faults(&self, resident: u64) -> f64 {
        let missing = self.set.saturating_sub(resident);
        if missing == 0 {
            return f64::INFINITY;
        }
        self.reference * self.set as f64 / missing as f64
    }
}

/// A lifetime function: the mean processor time between page faults of a
/// process holding `m` pages.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lifetime {
    /// Chamberlin, Fuller and Liu: L = 2b / (1 + (c/m)²), with its knee at
    /// `m = c` \[pages\].
    Cfl {
        /// The lifetime at the knee \[s\].
        b: f64,
        /// The knee \[pages\].
        c: f64,
    },
    /// Belady and Kuehner: L = a·m^k.
    Bk {
        /// The scale \[s\].
        a: f64,
        /// The exponent.
        k: f64,
    },
    /// A program that touches every page of its image at once, as the
    /// Multics working-set probe does: L = 0 until all are resident.
    Sweep,
}

impl Lifetime {
    /// The mean processor time between faults with `m` of the process's
    /// `pages` resident \[s\]; infinite once every page is resident.
    pub fn mean_time_between_faults(&self, m: u64, pages: u64) -> f64 {
        if m >= pages {
            return f64::INFINITY;
        }
        let m = m as f64;
        match *self {
            Lifetime::Cfl { b, c } => 2.0 * b / (1.0 + (c / m).powi(2)),
            Lifetime::Bk { a, k } => a * m.powf(k),
            Lifetime::Sweep => 0.0,
        }
    }
}

/// Processes that cycle between work and sleep for the whole run.
#[derive(Clone, Debug)]
pub struct Background {
    /// The entry's name.
    pub name: String,
    /// The class of work each cycle does.
    pub class: usize,
    /// How many such processes.
    pub count: u32,
    /// The sleep between cycles.
    pub sleep: Dist,
}

/// The terminal probe: a background script that runs benchmark commands in
/// turn, notes the load when each starts and times it, then sleeps.
#[derive(Clone, Debug)]
pub struct Probe {
    /// The benchmarks, run in this order every cycle.
    pub benchmarks: Vec<Program>,
    /// What each benchmark's observations are called: the name it was
    /// given, else its class's.
    pub names: Vec<String>,
    /// Run as the study's shell script: its shell forks `time`, which forks
    /// the benchmark; `None` to run each benchmark directly.
    pub script: Option<ProbeScript>,
    /// The sleep between the end of a cycle and the start of the next.
    pub sleep: Dist,
    /// The part of each day, from and to (times of day), in which cycles
    /// start; `None` for all day.
    pub window: Option<(SimTime, SimTime)>,
    /// The `time` command's resolution: elapsed times are truncated to a
    /// whole multiple of it (`time` in V7 reports whole seconds).
    pub resolution: Option<SimTime>,
    /// A load ramp: workers started and stopped in steps, as `tpsim probe
    /// --ramp` runs them on a host; `None` for none.
    pub ramp: Option<Ramp>,
    /// The time of day at simulated time zero (the login profile's start
    /// hour; midnight without one).
    pub day_start: SimTime,
}

/// The most workers in a load ramp's step, in a scenario and on a host.
pub const MOST_WORKERS: u32 = 1_024;

/// A load ramp (`tpsim probe --ramp`): from the probe's first cycle,
/// `workers[k]` processes of `class` run during the k-th `hold`, the last
/// step held to the end. The probe starts or stops workers to match the
/// step before each benchmark, as `tpsim probe` does. A worker loops: a
/// cycle of its class after another without a sleep, counted in "user
/// processes"; one stopped exits at the end of its cycle.
#[derive(Clone, Debug, PartialEq)]
pub struct Ramp {
    /// The workers' class.
    pub class: usize,
    /// The workers running in each step.
    pub workers: Vec<u32>,
    /// How long each step is held.
    pub hold: SimTime,
}

impl Ramp {
    /// The workers wanted `elapsed` after the probe's first cycle began.
    pub fn wanted(&self, elapsed: SimTime) -> u32 {
        let step = (elapsed.as_nanos() / self.hold.as_nanos()) as usize;
        self.workers[step.min(self.workers.len() - 1)]
    }
}

/// A program run as a command: one of the probe's benchmarks, or one a
/// shell script runs in turn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Program {
    /// Its command class: image, I/O, locality.
    pub class: usize,
    /// Its processor demand, the same every run (a given job, such as
    /// `man man`); `None` to draw it from the class.
    pub demand: Option<SimTime>,
    /// The programs it runs in turn in place of its class's `runs` (an
    /// index into `System::run_lists`): the class's program run as a
    /// script of others, as `sh -c COMMAND` is the shell running the
    /// command it is given, with the shell's image and text. `None` for
    /// its class's.
    pub runs: Option<usize>,
}

impl Program {
    /// The program of `class`, its demand drawn and its runs its class's.
    pub fn of(class: usize) -> Program {
        Program {
            class,
            demand: None,
            runs: None,
        }
    }
}

/// The probe run as the 1981 study's shell script: for each benchmark its
/// shell forks and execs `time`, which forks and execs the benchmark and
/// waits for it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProbeScript {
    /// The class of the probe's shell; its demand is its work per command
    /// line (reading it, forking).
    pub shell: usize,
    /// The class of `time`; its demand is its work before it forks the
    /// benchmark. After the wait it reads the clock as soon as it runs.
    pub time: usize,
}

/// The length of a day, for the probe's window.
pub const DAY: SimTime = SimTime::from_secs(24 * 3600);

impl Probe {
    /// The first time at or after `t` at which a cycle may start.
    pub fn next_start(&self, t: SimTime) -> SimTime {
        let Some((from, to)) = self.window else {
            return t;
        };
        let day = DAY.as_nanos();
        let clock = (t + self.day_start).as_nanos();
        let of_day = SimTime::from_nanos(clock % day);
        let wait = if of_day < from {
            from - of_day
        } else if of_day < to {
            SimTime::ZERO
        } else {
            DAY - of_day + from
        };
        t + wait
    }

    /// An elapsed time as `time` reports it.
    pub fn reported(&self, elapsed: SimTime) -> SimTime {
        match self.resolution {
            Some(r) => SimTime::from_nanos(elapsed.as_nanos() / r.as_nanos() * r.as_nanos()),
            None => elapsed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_starts_its_cycles_inside_its_window_of_the_day() {
        let hour = |h: u64| SimTime::from_secs(h * 3600);
        let probe = |day_start| Probe {
            benchmarks: Vec::new(),
            names: Vec::new(),
            script: None,
            sleep: Dist::deterministic(1.0).unwrap(),
            window: Some((hour(9), hour(17))),
            resolution: Some(SimTime::from_secs(1)),
            ramp: None,
            day_start,
        };
        let p = probe(SimTime::ZERO);
        assert_eq!(p.next_start(hour(8)), hour(9));
        assert_eq!(p.next_start(hour(10)), hour(10));
        assert_eq!(p.next_start(hour(17)), hour(24 + 9));
        assert_eq!(p.next_start(hour(24 + 3)), hour(24 + 9));
        // A day that starts at 8 in the morning: simulated hour 2 is 10:00.
        let late = probe(hour(8));
        assert_eq!(late.next_start(SimTime::ZERO), hour(1));
        assert_eq!(late.next_start(hour(2)), hour(2));
        assert_eq!(late.next_start(hour(10)), hour(24 + 1));
        let all_day = Probe {
            window: None,
            resolution: None,
            ..p.clone()
        };
        assert_eq!(all_day.next_start(hour(3)), hour(3));
        assert_eq!(
            p.reported(SimTime::from_nanos(2_999_000_000)),
            SimTime::from_secs(2)
        );
        assert_eq!(
            all_day.reported(SimTime::from_nanos(2_999_000_000)),
            SimTime::from_nanos(2_999_000_000)
        );
    }

    #[test]
    fn cfl_lifetime_has_its_knee_at_c() {
        let l = Lifetime::Cfl { b: 0.004, c: 40.0 };
        assert_eq!(l.mean_time_between_faults(0, 100), 0.0);
        assert!((l.mean_time_between_faults(40, 100) - 0.004).abs() < 1e-15);
        assert_eq!(l.mean_time_between_faults(100, 100), f64::INFINITY);
        let ratio = |m: u64| l.mean_time_between_faults(m, 1000) / m as f64;
        assert!(ratio(40) > ratio(30) && ratio(40) > ratio(50));
    }

    #[test]
    fn bk_lifetime_is_a_power_law() {
        let l = Lifetime::Bk { a: 1e-6, k: 2.0 };
        assert!((l.mean_time_between_faults(10, 100) - 1e-4).abs() < 1e-18);
    }

    #[test]
    fn sessions_follow_the_hour_of_the_day() {
        let mut per_hour = [0.0; 24];
        per_hour[9] = 1.0;
        let s = Sessions {
            terminals: 4,
            per_hour,
            start_hour: 8.5,
            session: Dist::exponential(1.0).unwrap(),
        };
        assert_eq!(s.hour_at(SimTime::ZERO), 8);
        assert_eq!(s.rate_at(SimTime::from_secs(1800)), 1.0);
        assert_eq!(s.next_hour(SimTime::ZERO), SimTime::from_secs(1800));
        assert_eq!(
            s.next_hour(SimTime::from_secs(7200)),
            SimTime::from_secs(9000)
        );
        assert_eq!(s.hour_at(SimTime::from_secs(16 * 3600)), 0);
    }

    #[test]
    fn the_probe_starts_cycles_in_its_window_and_truncates_like_time() {
        let h = |x: u64| SimTime::from_secs(x * 3600);
        let probe = Probe {
            benchmarks: vec![Program::of(0)],
            names: vec!["job".into()],
            script: None,
            sleep: Dist::exponential(1.0).unwrap(),
            window: Some((h(9), h(17))),
            resolution: Some(SimTime::from_secs(1)),
            ramp: None,
            // Time zero is 08:00.
            day_start: h(8),
        };
        assert_eq!(probe.next_start(SimTime::ZERO), h(1));
        assert_eq!(probe.next_start(h(3)), h(3));
        assert_eq!(probe.next_start(h(9)), h(25));
        assert_eq!(probe.next_start(h(30)), h(30));
        assert_eq!(
            probe.reported(SimTime::from_secs_f64(5.999)),
            SimTime::from_secs(5)
        );
        let all_day = Probe {
            window: None,
            resolution: None,
            ..probe
        };
        assert_eq!(all_day.next_start(h(9)), h(9));
        assert_eq!(
            all_day.reported(SimTime::from_nanos(7)),
            SimTime::from_nanos(7)
        );
    }
}
