//! Memory management: its state, how the core calls into it, and what
//! the calls leave the core to do.
//!
//! The scenario's policy is read once, into [`Manager`]: one variant a
//! policy (swapping, replacement by process, memory as frames under the
//! clock with what governs resident sets), each holding the settings its
//! mechanisms read, so that a swapper beside the working set cannot even
//! be written down. [`MemoryState`] holds what each manager keeps and
//! each process's part, and memory's own random streams
//! ([`MemoryStreams`]: where a faulted page is, whether a page read in is
//! modified, which paging drive; a drive is drawn in `swap_device` alone).
//!
//! Memory's calls are methods of `MemoryState` (here, and in `paging`,
//! `frames` and `frames/calls`): the next fault of a burst and the fault,
//! taking and placing a frame, the daemon's turn, a working set's trim,
//! pushing a process's pages out, the filing keys, what the load samples
//! and the summary report. Each is given a [`View`] of the rest for that
//! call (the processes, read only, through [`Processes`]; the owners'
//! fault streams; the statistics; the time) and pushes what the core must
//! then do as [`Effect`]s, in the order it decided them.
//! `SystemModel::with_memory` makes such a call and does its effects in
//! that order before it returns, so every random draw and every calendar
//! rank falls where it would if memory did them itself.
//!
//! The model's methods here are what still spans parts: letting a new
//! process in, a transfer done, a process's memory given back at its
//! exit, and its filing in the candidate sets as its state changes. The
//! rest of the model reads the `Manager` only when it is built
//! (eligibility's rule under load control, the text table's cache under
//! swapping); after that it asks memory, whose calls match it.

use super::State;
use super::candidates::{Candidates, Filing, Keys, Managed};
use super::frames::{Frames, Freeing, PAGEOUT_PERIOD};
use super::paging::{Counted, Counts, FreePool, Pages, Source, Text};
use super::per_process::PerProcess;
use super::processors::Processors;
use super::report::Statistics;
use super::swapping::Swapper;
use super::{
    Burst, BurstKind, Change, Context, Counters, Event, Owner, Process, ProcessTable, Purpose,
    Region, Residence, SimTime, Slab, Stream, Streams, SystemModel,
};
use crate::measure::{fraction, per_second};
use crate::summary::{PagingSummary, SwappingSummary};
use crate::system::{ClockDaemon, Paging, PagingSwapper, Phases, Policy, Replacement, System};

/// Memory management's state: what each manager keeps, and each
/// process's part.
#[derive(Debug)]
pub(super) struct MemoryState<'a> {
    /// The policy every call below dispatches on.
    pub(super) manager: Manager<'a>,
    /// Each process's memory state, by its slot.
    pub(super) of: PerProcess<ProcessMemory>,
    /// Paging: the free pool of frames.
    pub(super) pool: FreePool,
    /// Replacement by process: the bulk store, and the pages each process
    /// has touched.
    pub(super) counted: Counted,
    /// Memory as frames: the frames and the hand.
    pub(super) frames: Frames,
    /// Swapping: free memory and the swapper (and the swapper behind the
    /// clock).
    pub(super) swap: Swapper,
    /// Each class's shared text.
    pub(super) texts: Vec<Text>,
    /// The processes replacement and the swapper choose from.
    pub(super) candidates: Candidates,
    /// The page writes of the calls under way still to issue, by device
    /// (`Effect::PageWrites`): a buffer empty between events, so that
    /// freeing allocates nothing.
    pub(super) writes: Vec<usize>,
    /// Memory management's random streams.
    pub(super) streams: MemoryStreams,
}

/// Memory management's random streams: where a faulted page is found
/// (`placement`), whether a page read in is modified (`dirty`), and which
/// paging drive a transfer goes to (drawn in `swap_device` alone).
#[derive(Debug)]
pub(super) struct MemoryStreams {
    pub(super) placement: Stream,
    pub(super) dirty: Stream,
    drives: Stream,
}

impl MemoryStreams {
    /// The streams of one replication.
    fn new(streams: &Streams) -> MemoryStreams {
        MemoryStreams {
            placement: streams.stream("paging/placement"),
            dirty: streams.stream("paging/dirty"),
            drives: streams.stream("paging/drives"),
        }
    }

    /// The device a page or an image goes to in the swap area under
    /// `manager`: the swap device under swapping, else a paging drive,
    /// drawn if there are several.
    #[inline]
    pub(super) fn swap_device(&mut self, manager: Manager) -> usize {
        match manager {
            Manager::Swapping { device, .. } => device,
            Manager::Counted(paging) | Manager::Frames { paging, .. } => {
                paging.drive(&mut self.drives)
            }
        }
    }
}

/// What memory management is given of the rest of the model for one
/// call: the processes, the classes and the bursts on the processors, read
/// only; the owners' fault streams; the statistics it counts into; the
/// time.
pub(super) struct View<'m> {
    pub(super) processes: Processes<'m>,
    owners: &'m mut Slab<Owner>,
    pub(super) stats: &'m mut Statistics,
    pub(super) now: SimTime,
}

impl<'m> View<'m> {
    /// The view of one call at `now`.
    #[inline]
    pub(super) fn new(
        processes: Processes<'m>,
        owners: &'m mut Slab<Owner>,
        stats: &'m mut Statistics,
        now: SimTime,
    ) -> View<'m> {
        View {
            processes,
            owners,
            stats,
            now,
        }
    }

    /// The system simulated.
    pub(super) fn sys(&self) -> &'m System {
        self.processes.sys()
    }

    /// The live process in slot `pid`.
    #[inline]
    pub(super) fn process(&self, pid: usize) -> &'m Process {
        self.processes.get(pid).expect("a live process")
    }

    /// The stream `pid`'s faults are drawn from (its owner's).
    #[inline]
    pub(super) fn faults(&mut self, pid: usize) -> &mut Stream {
        let owner = self.process(pid).owner;
        &mut self.owners[owner].rngs.faults
    }
}

/// What memory management reads of the processes: each process (its
/// processor time, state and class), the classes' phase models, the
/// bursts on the processors and whether a process of a class is on one.
#[derive(Clone, Copy)]
pub(super) struct Processes<'m> {
    pub(super) procs: &'m ProcessTable,
    sys: &'m System,
    cpus: &'m Processors,
}

impl<'m> Processes<'m> {
    /// The process in slot `pid`, if it lives.
    pub(super) fn get(&self, pid: usize) -> Option<&'m Process> {
        self.procs.get(pid)
    }

    /// The processor time `pid` has used in user mode.
    #[inline]
    pub(super) fn cpu_user(&self, pid: usize) -> SimTime {
        self.procs.cpu_user(pid)
    }

    /// The state of `pid`.
    #[inline]
    pub(super) fn state(&self, pid: usize) -> State {
        self.procs.state(pid)
    }

    /// The live processes, by slot.
    pub(super) fn slots(&self) -> impl Iterator<Item = usize> + 'm {
        self.procs.iter().map(|(pid, _)| pid)
    }

    pub(super) fn of(
        procs: &'m ProcessTable,
        sys: &'m System,
        cpus: &'m Processors,
    ) -> Processes<'m> {
        Processes { procs, sys, cpus }
    }

    /// The system simulated.
    pub(super) fn sys(&self) -> &'m System {
        self.sys
    }

    /// The bursts on the processors, by processor.
    pub(super) fn running(&self) -> &'m [Option<Burst>] {
        &self.cpus.running
    }

    /// Whether a process of `class` is on a processor.
    pub(super) fn class_on_processor(&self, class: usize) -> bool {
        self.cpus.runs_class(class)
    }

    /// The phase model of `class`.
    pub(super) fn phases_of_class(&self, class: usize) -> &'m Phases {
        super::frames::phases_of_class(self.sys, class)
    }
}

/// What a call into memory management leaves the core to do, in the
/// order memory decided it.
#[derive(Clone, Copy, Debug)]
pub(super) enum Effect {
    /// Ask the devices for the page writes still to issue at `from..to`
    /// (`MemoryState::writes`), in that order.
    PageWrites { from: u32, to: u32 },
    /// `pid` carries on running on `cpu`, without a switch.
    RunOn { cpu: usize, pid: usize },
    /// The kernel's fault path for `pid` runs on `cpu` for `cost`.
    FaultPath {
        cpu: usize,
        pid: usize,
        cost: SimTime,
    },
    /// Frames were freed: the processes waiting for one get them.
    ServeFrameWaiters,
    /// The swapper looks.
    Swapper,
    /// Memory's `event` comes after `after`.
    Schedule { after: SimTime, event: MemoryEvent },
}

/// Memory management's events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryEvent {
    /// The V7 swapper looks again.
    SwapperRetry,
    /// The pageout daemon's once-a-second start (memory as frames).
    Pageout,
}

/// A transfer memory management asked a device for.
#[derive(Clone, Copy, Debug)]
pub(super) enum Transfer {
    /// A faulted page read in.
    PageRead { pid: usize },
    /// A page written back.
    PageWrite,
    /// An image (or under paging the pages of one) swapped in ...
    SwapIn { pid: usize },
    /// ... or out.
    SwapOut { pid: usize },
}

impl Transfer {
    /// The process a transfer is made for (none for a page written back).
    pub(super) fn pid(self) -> Option<usize> {
        match self {
            Transfer::PageRead { pid } | Transfer::SwapIn { pid } | Transfer::SwapOut { pid } => {
                Some(pid)
            }
            Transfer::PageWrite => None,
        }
    }
}

/// How a run manages memory, built once from the scenario's policy: what
/// memory's calls dispatch on, each variant with the settings its
/// mechanisms read.
#[derive(Clone, Copy, Debug)]
pub(super) enum Manager<'a> {
    /// Whole images, moved by the swapper (V7) to and from `device`.
    Swapping {
        /// The swap device.
        device: usize,
        /// Processor time clearing a page of a new image takes.
        clear: SimTime,
    },
    /// Replacement by process over counted pages.
    Counted(&'a Paging),
    /// Memory as frames, scanned by the pageout daemon's clock, resident
    /// sets governed by `governor`.
    Frames {
        paging: &'a Paging,
        daemon: &'a ClockDaemon,
        governor: Governor,
    },
}

/// What governs resident sets under memory as frames besides the clock.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Governor {
    /// The clock alone, with the swapper behind it unless switched off.
    Clock { swapper: Option<PagingSwapper> },
    /// Each resident set trimmed to its working set over `tau` of
    /// processor time, commands let in while the working sets fit.
    WorkingSet { tau: SimTime },
    /// Page-fault frequency with its critical `interval`, commands let in
    /// while the resident sets fit.
    PageFaultFrequency { interval: SimTime },
}

impl<'a> Manager<'a> {
    /// The manager of `sys`'s memory policy.
    pub(super) fn of(sys: &'a System) -> Manager<'a> {
        match &sys.memory.policy {
            Policy::Swapping { device, clear, .. } => Manager::Swapping {
                device: *device,
                clear: *clear,
            },
            Policy::Paging(paging) => match &paging.replacement {
                Replacement::ProcessLru => Manager::Counted(paging),
                Replacement::Clock(daemon) => Manager::Frames {
                    paging,
                    daemon,
                    governor: Governor::Clock {
                        swapper: daemon.swapper,
                    },
                },
                Replacement::WorkingSet { daemon, tau } => Manager::Frames {
                    paging,
                    daemon,
                    governor: Governor::WorkingSet { tau: *tau },
                },
                Replacement::PageFaultFrequency { daemon, interval } => Manager::Frames {
                    paging,
                    daemon,
                    governor: Governor::PageFaultFrequency {
                        interval: *interval,
                    },
                },
            },
        }
    }

    /// Whether a command is let in only while the resident sets fit (the
    /// working set and page-fault frequency).
    pub(super) fn load_controlled(self) -> bool {
        matches!(
            self,
            Manager::Frames {
                governor: Governor::WorkingSet { .. } | Governor::PageFaultFrequency { .. },
                ..
            }
        )
    }

    /// Whether whole images move (swapping): exec reads a command's image
    /// before it runs, and texts stay cached in the text table.
    pub(super) fn moves_images(self) -> bool {
        matches!(self, Manager::Swapping { .. })
    }

    /// The paging settings, under paging.
    pub(super) fn paging(self) -> Option<&'a Paging> {
        match self {
            Manager::Swapping { .. } => None,
            Manager::Counted(paging) | Manager::Frames { paging, .. } => Some(paging),
        }
    }

    /// How the candidate sets file processes.
    fn filing(self) -> Managed {
        match self {
            Manager::Swapping { .. } => Managed::Swapping,
            Manager::Counted(_) => Managed::ProcessLru,
            Manager::Frames { governor, .. } => Managed::Frames {
                swapper: matches!(governor, Governor::Clock { swapper: Some(_) }),
            },
        }
    }
}

impl<'a> MemoryState<'a> {
    /// `pid` is a new process, created at `now`: nothing of it is in
    /// memory yet.
    pub(super) fn enter(&mut self, pid: usize, now: SimTime) {
        let fresh = ProcessMemory {
            held: Pages::default(),
            fault_started: now,
            fault_source: Source::ZeroFill,
            fault_in_text: false,
            fault_from_file: false,
            waiting_frame: false,
        };
        self.of.insert(pid, fresh);
        self.counted.touched.insert(pid, 0);
        self.frames.enter(pid);
        self.swap.enter(pid, now);
        self.candidates.enter(pid);
    }

    /// The parts paging counts pages in: the frames, replacement by
    /// process's state, and the counts kept beside them.
    pub(super) fn counting(&mut self) -> (&mut Frames, &mut Counted, Counts<'_>) {
        let counts = Counts {
            pool: &mut self.pool,
            of: &mut self.of,
            texts: &mut self.texts,
        };
        (&mut self.frames, &mut self.counted, counts)
    }

    /// The parts a freeing of pages works on (`counting`), and the
    /// freeing, its writes added to those still to issue.
    pub(super) fn freeing(&mut self) -> (&mut Frames, &mut Counted, Counts<'_>, Freeing<'_>) {
        let freeing = Freeing::new(self.manager, &mut self.streams, &mut self.writes);
        let counts = Counts {
            pool: &mut self.pool,
            of: &mut self.of,
            texts: &mut self.texts,
        };
        (&mut self.frames, &mut self.counted, counts, freeing)
    }

    /// The device processes are swapped to: the swap device, or a paging
    /// drive.
    pub(super) fn swap_device(&mut self) -> usize {
        self.streams.swap_device(self.manager)
    }

    /// The device a program's file is read from: the programs' device of
    /// `sys`, or one of the paging drives the programs are spread over.
    pub(super) fn program_device(&mut self, sys: &System) -> usize {
        match sys.memory.programs {
            Some(device) => device,
            None => self.swap_device(),
        }
    }

    /// A process of `class` left a processor at `now` (global replacement
    /// by process takes from the text used least recently).
    pub(super) fn left_processor(&mut self, class: usize, now: SimTime) {
        self.texts[class].last_used = now;
    }

    /// The memory of `sys`, managed by `manager`, empty, with the streams
    /// of one replication.
    pub(super) fn new(sys: &System, manager: Manager<'a>, streams: &Streams) -> MemoryState<'a> {
        MemoryState {
            manager,
            of: PerProcess::default(),
            pool: FreePool::new(sys.memory.user_frames()),
            counted: Counted::default(),
            frames: frames_of(sys, manager, streams),
            swap: Swapper::new(sys.memory.user_bytes(), sys.memory.user_frames()),
            texts: sys
                .classes
                .iter()
                .map(|c| Text {
                    held: Pages::default(),
                    pages: sys.memory.pages_of(c.text),
                    bytes: c.text,
                    last_used: SimTime::ZERO,
                    in_memory: 0,
                })
                .collect(),
            candidates: Candidates::default(),
            writes: Vec::new(),
            streams: MemoryStreams::new(streams),
        }
    }
}

/// What paging keeps of each process, counted or as frames, in its own
/// table beside the process table (the swappers, replacement by process
/// and memory as frames keep the rest in theirs).
#[derive(Debug)]
#[repr(align(64))]
pub(super) struct ProcessMemory {
    /// Private pages, resident and on the bulk store.
    pub(super) held: Pages,
    /// When its pending fault began.
    pub(super) fault_started: SimTime,
    /// Where the pending faulted page comes from.
    pub(super) fault_source: Source,
    /// Whether the pending page is of the class's shared text.
    pub(super) fault_in_text: bool,
    /// Whether the pending page is read from the program's file (text, or
    /// a first touch of a page with contents), not from the swap area.
    pub(super) fault_from_file: bool,
    /// Waiting for a free frame before its page read can start.
    pub(super) waiting_frame: bool,
}

// One cache line a process: its counts and its pending fault.
const _: () = assert!(std::mem::size_of::<ProcessMemory>() == 64);

/// The frames of `sys`'s memory as frames, with their reference stream
/// (none under other policies).
fn frames_of(sys: &System, manager: Manager, streams: &Streams) -> Frames {
    let frames = matches!(manager, Manager::Frames { .. });
    Frames::new(
        if frames { sys.memory.user_frames() } else { 0 },
        sys.classes
            .iter()
            .filter(|_| frames)
            .map(|c| sys.memory.pages_of(c.text)),
        streams.stream("paging/references"),
    )
}

impl<'a> SystemModel<'a> {
    /// Memory's state, and the view of a call into it at `now`.
    #[inline]
    pub(super) fn memory_and_view(&mut self, now: SimTime) -> (&mut MemoryState<'a>, View<'_>) {
        let processes = Processes::of(&self.procs, self.sys, &self.cpus);
        let view = View::new(processes, &mut self.owners, &mut self.stats, now);
        (&mut self.memory, view)
    }

    /// Makes `call` into memory with the view of the moment, then does
    /// what it left to do, in the order it decided it.
    ///
    /// The effects of every call under way share one stack: a call's own
    /// lie above those of the calls that led to it, and are taken off
    /// once all of them are done, so that a call allocates nothing; so do
    /// the page writes they issue (`MemoryState::writes`).
    #[inline]
    pub(super) fn with_memory<R>(
        &mut self,
        ctx: &mut Context<Event>,
        call: impl FnOnce(&mut MemoryState<'a>, &mut View, &mut Vec<Effect>) -> R,
    ) -> R {
        let (start, writes) = (self.effects.len(), self.memory.writes.len());
        let processes = Processes::of(&self.procs, self.sys, &self.cpus);
        let mut view = View::new(processes, &mut self.owners, &mut self.stats, ctx.now());
        let result = call(&mut self.memory, &mut view, &mut self.effects);
        let end = self.effects.len();
        for at in start..end {
            let effect = self.effects[at];
            self.apply(effect, ctx);
            debug_assert_eq!(self.effects.len(), end, "an effect's own calls are done");
        }
        self.effects.truncate(start);
        self.memory.writes.truncate(writes);
        result
    }

    /// Does what a call into memory left to do.
    #[inline(always)]
    fn apply(&mut self, effect: Effect, ctx: &mut Context<Event>) {
        match effect {
            Effect::PageWrites { from, to } => {
                let bytes = self.sys.memory.page as f64;
                for at in from..to {
                    let device = self.memory.writes[at as usize];
                    let purpose = Purpose::Memory(Transfer::PageWrite);
                    self.request(device, purpose, bytes, ctx);
                }
            }
            Effect::RunOn { cpu, pid } => self.dispatch(cpu, pid, false, ctx),
            Effect::FaultPath { cpu, pid, cost } => {
                // The kernel's fault path, for a fault memory has noted.
                self.procs[pid].faults += 1;
                self.cpus
                    .start_kernel(cpu, pid, BurstKind::Fault, cost, ctx);
            }
            Effect::ServeFrameWaiters => self.serve_frame_waiters(ctx),
            Effect::Swapper => self.swapper(ctx),
            Effect::Schedule { after, event } => {
                let _ = ctx.schedule_in(after, Event::Memory(event));
            }
        }
    }

    /// Handles one of memory's events.
    pub(super) fn memory_event(&mut self, event: MemoryEvent, ctx: &mut Context<Event>) {
        match event {
            // The swapper's look, pending while it could not act: one look
            // at a time, not one per failed attempt.
            MemoryEvent::SwapperRetry => {
                self.memory.swap.look_again();
                self.swapper(ctx);
            }
            MemoryEvent::Pageout => self.with_memory(ctx, |m, view, fx| m.pageout(view, fx)),
        }
    }

    /// A transfer of `bytes` memory asked for is done.
    pub(super) fn transfer_done(
        &mut self,
        transfer: Transfer,
        bytes: f64,
        ctx: &mut Context<Event>,
    ) {
        match transfer {
            Transfer::PageRead { pid } => self.page_read(pid, ctx),
            Transfer::PageWrite => {}
            Transfer::SwapIn { .. } | Transfer::SwapOut { .. } => {
                self.swap_done(transfer, bytes, ctx);
            }
        }
    }

    /// Lets `pid`, a new process, into memory as far as the policy does at
    /// once: under paging it is in (its pages come by faults; under frames
    /// its page table is made); under swapping it is created in memory if
    /// there is room and nobody waits to come in, as by fork.
    pub(super) fn let_in(&mut self, pid: usize, now: SimTime) {
        match self.memory.manager {
            Manager::Frames { .. } => {
                let (memory, mut view) = self.memory_and_view(now);
                memory.map_pages(&mut view, pid);
                self.recount(pid, now, Change::Residence(Residence::In));
            }
            Manager::Counted(_) => self.recount(pid, now, Change::Residence(Residence::In)),
            Manager::Swapping { .. } => {
                let class = self.procs[pid].class;
                if self.memory.swap.free_bytes >= self.memory.bytes_to_load(self.sys, class)
                    && self.memory.candidates.longest_out().is_none()
                {
                    self.memory.load(self.sys, pid, class);
                    self.recount(pid, now, Change::Residence(Residence::In));
                }
            }
        }
    }

    /// `pid`, of `class`, has exited from `residence`: its memory goes back
    /// (its frames, its counted pages, or its image), and whoever waits
    /// for memory is served.
    pub(super) fn release_memory(
        &mut self,
        pid: usize,
        class: usize,
        residence: Residence,
        ctx: &mut Context<Event>,
    ) {
        // The entry stays in the table, unread, until the slot is reused.
        let held = self.memory.of[pid].held;
        let table = std::mem::take(&mut self.memory.frames.tables[pid]);
        match self.memory.manager {
            Manager::Frames { .. } => {
                self.memory.frames.release(&table, &mut self.memory.pool);
                self.serve_frame_waiters(ctx);
            }
            Manager::Counted(_) => {
                self.memory.pool.frames += held.resident;
                // Its reclaimable pages can be reclaimed by no one now.
                self.memory.pool.anonymous += held.resident + held.reclaimable;
                self.memory.counted.bulk.used -= held.on_bulk;
                self.serve_frame_waiters(ctx);
            }
            Manager::Swapping { .. } => {
                // A process swapped out (a sleeping shell whose user logged
                // out) has no memory to give back.
                debug_assert!(matches!(residence, Residence::In | Residence::Out));
                if residence == Residence::In {
                    self.unload(class, ctx);
                }
                self.swapper(ctx);
            }
        }
    }

    /// Files `pid` in the sets replacement and the swapper choose from
    /// under the keys its state now calls for.
    pub(super) fn reindex(&mut self, pid: usize) {
        let (files, eligibility) = (&self.files, &self.eligibility);
        let outside = |pid: usize| (files.of[pid].exec.pending, eligibility.holds(pid));
        let processes = Processes::of(&self.procs, self.sys, &self.cpus);
        if let Some(keys) = self.memory.keys(&processes, pid, outside) {
            self.memory.refile(pid, keys);
        }
    }
}

impl MemoryState<'_> {
    /// A page fault of `pid`, running on `cpu`: decides which page is
    /// missing and where it is; the kernel's fault path then runs on the
    /// same processor.
    pub(super) fn fault(
        &mut self,
        view: &mut View,
        cpu: usize,
        pid: usize,
        effects: &mut Vec<Effect>,
    ) {
        match self.manager {
            Manager::Frames { .. } => self.clock_fault(view, cpu, pid, effects),
            Manager::Counted(paging) => self.counted_fault(view, cpu, pid, paging, effects),
            Manager::Swapping { .. } => unreachable!("faults only under paging"),
        }
    }

    /// Takes `pid` out of memory and says what its swap-out writes: under
    /// swapping its private part (its memory goes back when the write is
    /// done); under paging its pages are freed, and the modified ones are
    /// written with its user area and page tables (the swapper behind the
    /// clock).
    pub(super) fn push_out(&mut self, view: &View, pid: usize, effects: &mut Vec<Effect>) -> u64 {
        if self.manager.moves_images() {
            let class = view.process(pid).class;
            view.sys().classes[class].size - self.texts[class].bytes
        } else {
            self.push_out_pages(view, pid, effects)
        }
    }

    /// `pid` waits for a free frame, behind those waiting already.
    pub(super) fn wait_for_frame(&mut self, pid: usize) {
        self.pool.waiters.push_back(pid);
    }

    /// The process waiting longest for a frame, taken off the wait, while
    /// frames are free.
    pub(super) fn frame_waiter(&mut self) -> Option<usize> {
        if self.pool.frames > 0 {
            self.pool.waiters.pop_front()
        } else {
            None
        }
    }

    /// The pages the read of `pid`'s faulted page brings in: the page and
    /// its cluster (`kluster`), counted among the paging transfers the
    /// 3BSD swapper meters.
    pub(super) fn pages_to_read(&mut self, view: &mut View, pid: usize) -> u64 {
        let pages = 1 + self.kluster(view, pid);
        self.swap.vm.transfers += pages;
        pages
    }

    /// The first event memory schedules in a run, and when: the pageout
    /// daemon's first turn, under the clock.
    pub(super) fn first_event(&self) -> Option<(SimTime, MemoryEvent)> {
        match self.manager {
            Manager::Frames { .. } => Some((PAGEOUT_PERIOD, MemoryEvent::Pageout)),
            Manager::Swapping { .. } | Manager::Counted(_) => None,
        }
    }

    /// Whether an image of `image` bytes can never be in `sys`'s memory
    /// (swapping holds images whole, each within the process limit).
    pub(super) fn never_fits(&self, sys: &System, image: u64) -> bool {
        self.manager.moves_images() && image > sys.memory.largest_image().0
    }

    /// Whether exec reads a new command's image before it runs (swapping),
    /// rather than its pages coming in by faults.
    pub(super) fn exec_reads_image(&self) -> bool {
        self.manager.moves_images()
    }

    /// Where on a disk a transfer falls: a page read from a program's
    /// file in the file system, the rest in the swap area.
    pub(super) fn transfer_region(&self, transfer: Transfer) -> Region {
        match transfer {
            Transfer::PageRead { pid } if self.of[pid].fault_from_file => Region::Files,
            Transfer::PageRead { .. }
            | Transfer::PageWrite
            | Transfer::SwapIn { .. }
            | Transfer::SwapOut { .. } => Region::Swap,
        }
    }

    /// The process of `burst` ran its own work up to `upto`: under the
    /// clock, its references are metered.
    #[inline]
    pub(super) fn user_work_done(&mut self, view: &mut View, burst: &Burst, upto: SimTime) {
        if let Manager::Frames { .. } = self.manager {
            self.meter_work(view, burst, upto);
        }
    }

    /// Whether a load sample at `now` files the set sizes of the processes
    /// in memory: under paging, after the warm-up of `sys` (a sample at its
    /// very end may come before the reset, which would drop it).
    pub(super) fn samples_set_sizes(&self, sys: &System, now: SimTime) -> bool {
        !self.manager.moves_images() && now > sys.settings.warmup
    }

    /// The bytes bringing a process of `class` into `sys`'s memory takes:
    /// its private part, and its class's text unless already in memory.
    pub(super) fn bytes_to_load(&self, sys: &System, class: usize) -> u64 {
        self.texts[class].to_load(sys.classes[class].size)
    }

    /// Takes the memory for the image of `pid`, of `class` (swapping):
    /// its private part, and its class's text if no process of the class
    /// is in memory; returns the bytes taken, which `pid` keeps for its
    /// exec (`exec_bytes`).
    pub(super) fn load(&mut self, sys: &System, pid: usize, class: usize) -> u64 {
        let bytes = self.bytes_to_load(sys, class);
        self.swap.of[pid].loaded = bytes;
        self.swap.free_bytes -= bytes;
        self.texts[class].in_memory += 1;
        bytes
    }

    /// The bytes exec reads from the program's file for `pid`, of `class`,
    /// in memory (swapping): the memory taken for it less its empty pages
    /// (the bss and the stack), which exec clears instead; so the text
    /// if it was not in memory already, and the initialised data (32V's
    /// `getxfile`).
    pub(super) fn exec_bytes(&self, sys: &System, pid: usize, class: usize) -> u64 {
        let spec = &sys.classes[class];
        self.swap.of[pid].loaded - (spec.size - spec.file_bytes(sys.memory.page))
    }

    /// The processor time exec takes clearing the empty pages of a new
    /// image of `class` (swapping; none under paging, whose empty pages
    /// are cleared as they are first touched).
    pub(super) fn exec_clearing(&self, sys: &System, class: usize) -> SimTime {
        match self.manager {
            Manager::Swapping { clear, .. } => {
                let pages = sys.classes[class].empty_pages(sys.memory.page);
                SimTime::from_nanos(clear.as_nanos() * pages)
            }
            Manager::Counted(_) | Manager::Frames { .. } => SimTime::ZERO,
        }
    }

    /// A process of `class` leaves memory: under swapping its image's
    /// memory goes back, and its class's text's if no other process of the
    /// class is in memory (then the text's bytes, the text having left
    /// memory); under paging nothing (its pages were freed as it went).
    pub(super) fn unload(&mut self, sys: &System, class: usize) -> Option<u64> {
        if !self.manager.moves_images() {
            // Under paging its pages were freed as it went out.
            return None;
        }
        let text = &mut self.texts[class];
        self.swap.free_bytes += sys.classes[class].size - text.bytes;
        text.in_memory -= 1;
        if text.in_memory > 0 {
            return None;
        }
        self.swap.free_bytes += text.bytes;
        Some(text.bytes)
    }

    /// Takes `pid`, about to exit, out of the candidate sets.
    pub(super) fn unfile(&mut self, pid: usize) {
        self.candidates.refile(pid, Keys::default());
    }

    /// The keys the process in slot `pid` is filed under in the candidate
    /// sets as its state calls for; `outside` says of a process, when
    /// swapping files by them, whether its exec is pending and whether it
    /// holds eligibility. None when the policy files no process (memory
    /// as frames with no swapper behind it), and then nothing is read.
    #[inline]
    pub(super) fn keys(
        &self,
        processes: &Processes,
        pid: usize,
        outside: impl Fn(usize) -> (bool, bool),
    ) -> Option<Keys> {
        let managed = self.manager.filing();
        if let Managed::Frames { swapper: false } = managed {
            return None;
        }
        let (sys, p) = (processes.sys(), processes.get(pid).expect("live"));
        // Only what the policy files by is read (each from a table of its
        // own).
        let filing = match managed {
            Managed::Frames { swapper: false } => unreachable!("returned above"),
            Managed::ProcessLru => Filing {
                resident_pages: self.of[pid].held.resident,
                ..Filing::default()
            },
            Managed::Frames { swapper: true } => Filing {
                last_swap: self.swap.of[pid].last_swap,
                waiting_frame: self.of[pid].waiting_frame,
                ..Filing::default()
            },
            Managed::Swapping => {
                let (exec_pending, eligible) = outside(pid);
                Filing {
                    last_swap: self.swap.of[pid].last_swap,
                    exec_pending,
                    image: sys.classes[p.class].size,
                    eligible,
                    ..Filing::default()
                }
            }
        };
        Some(Keys::of(processes.state(pid), p, filing, managed))
    }

    /// Files `pid` under `keys` in the candidate sets.
    #[inline]
    pub(super) fn refile(&mut self, pid: usize, keys: Keys) {
        // Most changes of state leave the keys as they were.
        if *self.candidates.filed_under(pid) != keys {
            self.candidates.refile(pid, keys);
        }
    }

    /// The device programs' files are on: the programs' device if the
    /// scenario names one, else under swapping the swap device.
    #[inline]
    pub(super) fn programs_device(&self, sys: &System) -> Option<usize> {
        match self.manager {
            Manager::Swapping { device, .. } => Some(sys.memory.programs.unwrap_or(device)),
            Manager::Counted(_) | Manager::Frames { .. } => sys.memory.programs,
        }
    }

    /// The working-set estimate `p` waits for eligibility with \[pages\],
    /// its owner's last resident set being `last`: under paging that, or
    /// with no history its whole image under the local policies and
    /// nothing under Multics; under swapping its whole image.
    pub(super) fn working_set_estimate(&self, p: &Process, last: Option<f64>) -> f64 {
        match self.manager {
            Manager::Swapping { .. } => p.pages as f64,
            manager => match last {
                Some(pages) => pages,
                None if manager.load_controlled() => p.pages as f64,
                None => 0.0,
            },
        }
    }

    /// `pid`, of `class`, gives up eligibility: under paging its resident
    /// set, left as its owner's working-set estimate (under frames, of a
    /// shared text only the resident pages of its locality set count);
    /// nothing under swapping.
    pub(super) fn resident_set_left(&self, class: usize, pid: usize) -> Option<f64> {
        if let Manager::Swapping { .. } = self.manager {
            return None;
        }
        let held = self.of[pid].held.resident;
        let resident = match self.frames.text(class) {
            Some(text) => held + text.resident_in(&self.frames.tables[pid]),
            None => held + self.texts[class].held.resident,
        };
        Some(resident as f64)
    }

    /// User memory as the policy counts it: free and in all, in frames
    /// under paging and bytes under swapping, with that unit's bytes.
    #[inline]
    fn memory_units(&self, sys: &System) -> (u64, u64, u64) {
        let m = &sys.memory;
        match self.manager {
            Manager::Swapping { .. } => (self.swap.free_bytes, m.user_bytes(), 1),
            Manager::Counted(_) | Manager::Frames { .. } => {
                (self.pool.frames, m.user_frames(), m.page)
            }
        }
    }

    /// Free user memory, in the unit the policy counts it in.
    #[inline]
    pub(super) fn free_units(&self, sys: &System) -> u64 {
        self.memory_units(sys).0
    }

    /// User memory free \[bytes\].
    pub(super) fn free_memory(&self, sys: &System) -> u64 {
        let (free, _, unit) = self.memory_units(sys);
        free * unit
    }

    /// The fraction of user memory in use.
    #[inline]
    pub(super) fn occupancy(&self, sys: &System) -> f64 {
        let (free, all, _) = self.memory_units(sys);
        (all - free) as f64 / all as f64
    }

    /// The private memory `pid` holds now \[bytes\]: its resident pages,
    /// or its image in memory less the shared text.
    pub(super) fn private_memory(&self, sys: &System, pid: usize, p: &Process) -> u64 {
        match self.manager {
            Manager::Counted(_) | Manager::Frames { .. } => {
                self.of[pid].held.resident * sys.memory.page
            }
            Manager::Swapping { .. } if p.residence == Residence::In => {
                sys.classes[p.class].size - self.texts[p.class].bytes
            }
            Manager::Swapping { .. } => 0,
        }
    }

    /// The summary's paging section (under paging) and swapping section
    /// (where a swapper runs: under swapping, and behind the clock unless
    /// switched off).
    pub(super) fn memory_summaries(
        &self,
        stats: &Statistics,
        counters: &Counters,
        span: f64,
    ) -> (Option<PagingSummary>, Option<SwappingSummary>) {
        let (paging, swapper) = match self.manager {
            Manager::Swapping { .. } => (false, true),
            Manager::Counted(_) => (true, false),
            Manager::Frames { governor, .. } => (
                true,
                matches!(governor, Governor::Clock { swapper: Some(_) }),
            ),
        };
        (
            paging.then(|| self.paging_summary(stats, counters, span)),
            swapper.then(|| self.swapping_summary(counters)),
        )
    }

    /// Faults, reads and writes of pages over `span` seconds (paging).
    fn paging_summary(&self, stats: &Statistics, counters: &Counters, span: f64) -> PagingSummary {
        let reads = counters.bulk_reads + counters.disk_reads;
        PagingSummary {
            faults: counters.faults,
            faults_per_second: per_second(counters.faults, span),
            reclaims: counters.reclaims,
            zero_fills: counters.zero_fills,
            tav: if counters.faults > 0 {
                counters.cpu_fault / counters.faults as f64
            } else {
                0.0
            },
            mean_fault_elapsed: stats.fault_time.mean(),
            bulk_store_reads: counters.bulk_reads,
            disk_reads: counters.disk_reads,
            disk_fraction: fraction(counters.disk_reads, reads),
            page_writes: counters.page_writes,
            pages_stolen: counters.pages_stolen,
            klustered_pages: self
                .manager
                .paging()
                .filter(|p| p.kluster > 1)
                .map(|_| counters.klustered),
        }
    }

    /// Swaps and the mean image moved.
    fn swapping_summary(&self, counters: &Counters) -> SwappingSummary {
        let moved = counters.swap_ins + counters.swap_outs;
        SwappingSummary {
            swap_ins: counters.swap_ins,
            swap_outs: counters.swap_outs,
            mean_image_bytes: if moved > 0 {
                counters.swapped_bytes / moved as f64
            } else {
                0.0
            },
        }
    }

    /// Paging: the free pool and the bulk store against what the holders
    /// count, and the frames under memory as frames.
    #[cfg(debug_assertions)]
    fn check_paged_memory(&self, processes: &Processes) {
        let held = || {
            let procs = processes.slots().map(|pid| self.of[pid].held);
            procs.chain(self.texts.iter().map(|t| t.held))
        };
        // A process waiting for a page read holds the frame it goes into.
        // Klustering reads more pages with it.
        let in_transit = processes
            .slots()
            .filter(|&pid| {
                let m = &self.of[pid];
                processes.state(pid) == State::Fault
                    && !m.waiting_frame
                    && m.fault_source != Source::InTransit
            })
            .map(|pid| 1 + self.frames.tables[pid].klustered_count())
            .sum::<u64>();
        let total = held().fold(Pages::default(), |sum, h| Pages {
            resident: sum.resident + h.resident,
            on_bulk: sum.on_bulk + h.on_bulk,
            reclaimable: sum.reclaimable + h.reclaimable,
            ..Pages::default()
        });
        self.pool
            .check(processes.sys().memory.user_frames(), total, in_transit);
        if let Manager::Frames { .. } = self.manager {
            self.check_frames(processes.slots());
        } else {
            self.counted.bulk.check(total.on_bulk);
        }
    }

    /// Rechecks memory's accounting, and that each process is filed in
    /// the candidate sets as its state says; `outside` as for `keys`.
    #[cfg(debug_assertions)]
    pub(super) fn check(&self, processes: &Processes, outside: impl Fn(usize) -> (bool, bool)) {
        assert!(
            self.writes.is_empty(),
            "the page writes calls into memory asked for are issued by the end of an event"
        );
        match self.manager {
            Manager::Swapping { .. } => self.check_swapped_memory(processes),
            Manager::Counted(_) | Manager::Frames { .. } => self.check_paged_memory(processes),
        }
        let filed = processes
            .slots()
            .map(|pid| (pid, self.keys(processes, pid, &outside).unwrap_or_default()));
        self.candidates.check(filed);
    }

    /// Swapping: the images and texts in memory against free memory and
    /// each text's count of its users.
    #[cfg(debug_assertions)]
    fn check_swapped_memory(&self, processes: &Processes) {
        let sys = processes.sys();
        let procs = || {
            processes
                .slots()
                .map(|pid| processes.get(pid).expect("live"))
        };
        let private: u64 = procs()
            .filter(|p| p.residence != Residence::Out)
            .map(|p| sys.classes[p.class].size - self.texts[p.class].bytes)
            .sum();
        let text: u64 = self
            .texts
            .iter()
            .filter(|t| t.in_memory > 0)
            .map(|t| t.bytes)
            .sum();
        self.swap.check(sys.memory.user_bytes(), private + text);
        for (class, t) in self.texts.iter().enumerate() {
            let users = procs()
                .filter(|p| p.class == class && p.residence != Residence::Out)
                .count() as u32;
            assert_eq!(t.in_memory, users, "text users of class {class}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::model::frames::tests::{
        TEN_PAGE_SETS, under_fault_frequency, under_working_set, with_memory,
    };

    /// What the manager of the scenario `text` is, with its settings, and
    /// what it says of itself: load control, whole images, the filing.
    fn managed(text: &str) -> (String, Option<Governor>, bool, bool, Managed) {
        let sys = crate::load_system("test.toml", text).unwrap();
        let manager = Manager::of(&sys);
        let (variant, governor) = match manager {
            Manager::Swapping { device, .. } => (format!("swapping to device {device}"), None),
            Manager::Counted(paging) => (format!("counted on {:?}", paging.drives), None),
            Manager::Frames {
                daemon, governor, ..
            } => (
                format!("frames, lotsfree {}", daemon.lotsfree),
                Some(governor),
            ),
        };
        (
            variant,
            governor,
            manager.load_controlled(),
            manager.moves_images(),
            manager.filing(),
        )
    }

    /// The locality of `TEN_PAGE_SETS`'s class.
    const PHASES: &str = "locality = { phases = { set = 10, phase = { det = { value = \"100s\" } }, reference = \"1ms\" } }";

    #[test]
    fn each_policy_is_one_manager_with_its_own_settings() {
        let clock = TEN_PAGE_SETS;
        assert!(clock.contains(PHASES));
        // 64 frames of 1 KiB: lotsfree is an eighth of them; 3BSD's
        // swapper behind the clock by default.
        let swapper = PagingSwapper {
            maxpgio: 40.0,
            maxslp: SimTime::from_secs(20),
        };
        let frames = "frames, lotsfree 8".to_string();
        assert_eq!(
            managed(clock),
            (
                frames.clone(),
                Some(Governor::Clock {
                    swapper: Some(swapper)
                }),
                false,
                false,
                Managed::Frames { swapper: true }
            )
        );
        assert_eq!(
            managed(&with_memory(clock, "swapper = false")),
            (
                frames.clone(),
                Some(Governor::Clock { swapper: None }),
                false,
                false,
                Managed::Frames { swapper: false }
            )
        );
        assert_eq!(
            managed(&under_working_set(clock)),
            (
                frames.clone(),
                Some(Governor::WorkingSet {
                    tau: SimTime::from_secs_f64(0.005)
                }),
                true,
                false,
                Managed::Frames { swapper: false }
            )
        );
        assert_eq!(
            managed(&under_fault_frequency(clock)),
            (
                frames,
                Some(Governor::PageFaultFrequency {
                    interval: SimTime::from_secs_f64(0.010)
                }),
                true,
                false,
                Managed::Frames { swapper: false }
            )
        );
        let counted = clock
            .replace("replacement = \"clock\"", "replacement = \"process-lru\"")
            .replace(PHASES, "locality = { cfl = { b = \"30ms\", c = 10 } }");
        assert_eq!(
            managed(&counted),
            (
                "counted on [0]".to_string(),
                None,
                false,
                false,
                Managed::ProcessLru
            )
        );
        let swapped = clock
            .replace(
                "policy = \"paging\"\n        replacement = \"clock\"",
                "policy = \"swapping\"",
            )
            .replace(PHASES, "");
        assert_eq!(
            managed(&swapped),
            (
                "swapping to device 0".to_string(),
                None,
                false,
                true,
                Managed::Swapping
            )
        );
    }
}
