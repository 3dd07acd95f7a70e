//! Demand paging: page faults from each process's lifetime function,
//! frames from a free pool that global replacement refills, and a bulk
//! store in front of the paging disk.
//!
//! Memory is counted, not mapped: each holder of pages - a process's private
//! pages, or a class's shared text - has a number of pages resident, a
//! number still valid in the free pool (reclaimable) and a number held on
//! the bulk store. A fault picks the missing page among the process's
//! missing private and text pages in proportion to their numbers, then
//! where it is, in proportion again: in the free pool (a reclaim, no I/O),
//! never touched (a zero-filled page, no I/O, or a read), on the bulk store,
//! or on disk. Replacement takes pages from the holder used least recently,
//! which is global LRU at the granularity of holders.

use super::frames::Freeing;
use super::memory::ProcessMemory;
use super::memory::{Effect, Manager, MemoryState, Processes, Transfer, View};
use super::{
    Change, Context, Event, LONGEST_SAMPLE, PerProcess, Placement, Purpose, Scheduler, SimTime,
    State, SystemModel, VecDeque, scheduler,
};
use crate::system::{Paging, System};
use rand::RngExt;

/// Who holds pages: a process (its private pages) or a class's shared
/// text, which stays in memory between commands until replacement takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Holder {
    Process { pid: usize, generation: u64 },
    Text { class: usize },
}

/// The pages of one holder.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Pages {
    /// In memory.
    pub(super) resident: u64,
    /// On the bulk store.
    pub(super) on_bulk: u64,
    /// Entries in the bulk store's age queue; more than `on_bulk` when
    /// pages were read back.
    pub(super) bulk_entries: u64,
    /// In the free pool, still valid: a fault on one is a reclaim.
    pub(super) reclaimable: u64,
    /// Entries in the free pool's age queue; more than `reclaimable` when
    /// pages were reclaimed.
    pub(super) free_entries: u64,
}

/// Where a faulted page comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Source {
    /// The free pool: the page is revalidated without I/O.
    Reclaim,
    /// A page never touched that needs no contents: a cleared frame.
    ZeroFill,
    /// A read from this device (its index, in 32 bits: a process's
    /// memory state fits one cache line).
    Read(u32),
    /// A page of shared text that another process is reading (memory as
    /// frames): the fault waits for that read.
    InTransit,
}

/// The two age queues pages sit in.
#[derive(Clone, Copy, Debug)]
enum Queue {
    Free,
    Bulk,
}

impl Source {
    /// A read from device `device`.
    pub(super) fn read(device: usize) -> Source {
        Source::Read(u32::try_from(device).expect("fewer than 2^32 devices"))
    }
}

impl Pages {
    /// The pages a queue holds for this holder, and its entries there.
    fn in_queue(&mut self, queue: Queue) -> (u64, &mut u64) {
        match queue {
            Queue::Free => (self.reclaimable, &mut self.free_entries),
            Queue::Bulk => (self.on_bulk, &mut self.bulk_entries),
        }
    }
}

/// The free pool: frames holding nothing, or a page still valid that its
/// holder may reclaim until the frame is taken.
#[derive(Debug)]
pub(super) struct FreePool {
    /// Free frames.
    pub(super) frames: u64,
    /// Free frames that hold no page anyone could reclaim; the others hold
    /// the holders' `reclaimable` pages.
    pub(super) anonymous: u64,
    /// Processes waiting for a free frame to read their page into.
    pub(super) waiters: VecDeque<usize>,
}

impl FreePool {
    /// A pool of `frames` frames holding nothing.
    pub(super) fn new(frames: u64) -> FreePool {
        FreePool {
            frames,
            anonymous: frames,
            waiters: VecDeque::new(),
        }
    }

    /// Checks the pool against `held`, the pages all holders count, and
    /// the frames being read into (debug builds): of `user_frames`, every
    /// frame is free, resident or being read into; a free frame holds
    /// nothing or a reclaimable page.
    #[cfg(debug_assertions)]
    pub(super) fn check(&self, user_frames: u64, held: Pages, being_read: u64) {
        assert_eq!(
            self.frames + held.resident + being_read,
            user_frames,
            "frames are free, resident or being read into"
        );
        assert_eq!(
            self.frames,
            self.anonymous + held.reclaimable,
            "free frames hold nothing or a reclaimable page"
        );
    }
}

/// What paging counts beside the frames: the free pool, and the pages
/// each process and each class's text holds.
pub(super) struct Counts<'m> {
    pub(super) pool: &'m mut FreePool,
    pub(super) of: &'m mut PerProcess<ProcessMemory>,
    pub(super) texts: &'m mut [Text],
}

impl Counts<'_> {
    /// The pages of `holder`, if it still exists among `processes`.
    fn held_mut(&mut self, processes: &Processes, holder: Holder) -> Option<&mut Pages> {
        held_of(self.of, self.texts, processes, holder)
    }
}

/// The pages of `holder` among those counted in `of` and `texts`, if it
/// still exists among `processes`.
fn held_of<'c>(
    of: &'c mut PerProcess<ProcessMemory>,
    texts: &'c mut [Text],
    processes: &Processes,
    holder: Holder,
) -> Option<&'c mut Pages> {
    match holder {
        Holder::Process { pid, generation } => processes
            .get(pid)
            .is_some_and(|p| p.generation == generation)
            .then(|| &mut of[pid].held),
        Holder::Text { class } => Some(&mut texts[class].held),
    }
}

/// Replacement by process's own state: the pages on the bulk store, and
/// how many of its private pages each process has touched.
#[derive(Debug, Default)]
pub(super) struct Counted {
    /// The bulk store's pages.
    pub(super) bulk: BulkPages,
    /// Each process's private pages touched so far, by its slot: the
    /// others have never been in memory.
    pub(super) touched: PerProcess<u64>,
    /// An entry per page made reclaimable in the free pool, oldest first
    /// (entries of pages reclaimed or gone since are skipped, and dropped
    /// by `compact`).
    pub(super) free_age: VecDeque<Holder>,
}

/// The pages on a bulk store sized by capacity.
#[derive(Debug, Default)]
pub(super) struct BulkPages {
    /// Pages held.
    pub(super) used: u64,
    /// An entry per page written there, oldest first (entries of pages
    /// read back since are skipped, and dropped by `compact`).
    pub(super) age: VecDeque<Holder>,
}

impl BulkPages {
    /// Checks the bulk store against `held`, the pages its holders count
    /// there (debug builds).
    #[cfg(debug_assertions)]
    pub(super) fn check(&self, held: u64) {
        assert_eq!(self.used, held, "pages on the bulk store");
        assert!(
            self.age.len() as u64 >= self.used,
            "each page on the bulk store has an entry in its age queue"
        );
    }
}

/// A class's shared text.
#[derive(Clone, Debug)]
pub(super) struct Text {
    /// Its pages, under paging.
    pub(super) held: Pages,
    /// Its size \[pages\].
    pub(super) pages: u64,
    /// Its size \[bytes\].
    pub(super) bytes: u64,
    /// When a process of the class last left a processor.
    pub(super) last_used: SimTime,
    /// Under swapping: processes of the class whose image is in memory or
    /// moving; the text is in memory while this is above 0.
    pub(super) in_memory: u32,
}

/// Whose pages replacement takes, how many, and the probability that a
/// page of theirs is dirty.
#[derive(Clone, Copy, Debug)]
struct Victim {
    holder: Holder,
    n: u64,
    dirty: f64,
}

/// Replacement by process on its own counts, told what it needs of the
/// rest: the free pool's frames handed out, pages taken from a holder,
/// the bulk store's overflow and the age queues kept bounded.
impl Counted {
    /// Takes one frame out of the free pool: one that holds nothing if
    /// there is one, else the oldest reclaimable page, which its holder
    /// loses for good.
    fn allocate(&mut self, counts: &mut Counts, processes: &Processes) {
        assert!(counts.pool.frames > 0, "a frame is free");
        counts.pool.frames -= 1;
        if counts.pool.anonymous > 0 {
            counts.pool.anonymous -= 1;
            return;
        }
        while let Some(holder) = self.free_age.pop_front() {
            if take_oldest(counts, processes, holder, Queue::Free) {
                counts
                    .held_mut(processes, holder)
                    .expect("a live holder")
                    .reclaimable -= 1;
                return;
            }
        }
        unreachable!("free frames that hold nothing, or reclaimable pages with entries");
    }

    /// Moves the victim's pages out of memory into the free pool, where
    /// they stay reclaimable if the system reclaims, writing back what must
    /// be written: with a bulk store sized by capacity, every page goes to
    /// it; otherwise a process's page is written with its class's
    /// probability of being dirty (drawn from the freeing's stream), and
    /// text is never written.
    fn evict(
        &mut self,
        victim: Victim,
        counts: &mut Counts,
        processes: &Processes,
        freeing: &mut Freeing,
    ) {
        let Victim { holder, n, dirty } = victim;
        let to_bulk = freeing.bulk.map(|(device, _)| device);
        let reclaim = freeing.paging.reclaim;
        let held = counts.held_mut(processes, holder).expect("a victim exists");
        held.resident -= n;
        if to_bulk.is_some() {
            held.on_bulk += n;
            held.bulk_entries += n;
        }
        if reclaim {
            held.reclaimable += n;
            held.free_entries += n;
            self.free_age
                .extend(std::iter::repeat_n(holder, n as usize));
        } else {
            counts.pool.anonymous += n;
        }
        counts.pool.frames += n;
        freeing.stolen += n;
        let (writes, device) = match to_bulk {
            Some(bulk) => {
                // Every page leaving memory goes to the bulk store.
                self.bulk.used += n;
                self.bulk
                    .age
                    .extend(std::iter::repeat_n(holder, n as usize));
                (n, bulk)
            }
            None => {
                let writes = match dirty {
                    d if d <= 0.0 => 0,
                    d if d >= 1.0 => n,
                    d => (0..n)
                        .filter(|_| freeing.dirty().random::<f64>() < d)
                        .count() as u64,
                };
                let device = match &freeing.paging.bulk_store {
                    Some(b) => b.device,
                    None => freeing.drive(),
                };
                (writes, device)
            }
        };
        freeing
            .writes
            .extend(std::iter::repeat_n(device, writes as usize));
        self.overflow_bulk(counts, processes, freeing);
        if self.free_age.len() as u64 > 2 * counts.pool.frames.max(1024) {
            self.compact(Queue::Free, counts, processes);
        }
    }

    /// Pushes the bulk store's oldest pages on to the drives while it
    /// holds more than its capacity.
    fn overflow_bulk(&mut self, counts: &mut Counts, processes: &Processes, freeing: &mut Freeing) {
        let Some((_, capacity)) = freeing.bulk else {
            return;
        };
        while self.bulk.used > capacity {
            let holder = self
                .bulk
                .age
                .pop_front()
                .expect("pages on the bulk store have entries in its age queue");
            if !take_oldest(counts, processes, holder, Queue::Bulk) {
                continue;
            }
            counts
                .held_mut(processes, holder)
                .expect("a live holder")
                .on_bulk -= 1;
            self.bulk.used -= 1;
            freeing.write_to_drive();
        }
        if self.bulk.age.len() as u64 > 2 * capacity.max(1024) {
            self.compact(Queue::Bulk, counts, processes);
        }
    }

    /// Drops stale entries from an age queue, so that it stays bounded:
    /// each live holder keeps only its newest entries, as many as the pages
    /// it has there.
    fn compact(&mut self, queue: Queue, counts: &mut Counts, processes: &Processes) {
        for pid in processes.slots() {
            *counts.of[pid].held.in_queue(queue).1 = 0;
        }
        for t in counts.texts.iter_mut() {
            *t.held.in_queue(queue).1 = 0;
        }
        let ages = match queue {
            Queue::Free => &mut self.free_age,
            Queue::Bulk => &mut self.bulk.age,
        };
        let entries = std::mem::take(ages);
        let mut kept = VecDeque::with_capacity(entries.len() / 2);
        for holder in entries.into_iter().rev() {
            if let Some(held) = counts.held_mut(processes, holder) {
                let (count, entries) = held.in_queue(queue);
                if *entries < count {
                    *entries += 1;
                    kept.push_front(holder);
                }
            }
        }
        *ages = kept;
    }
}

/// Consumes one entry of `holder` from an age queue; true if it stood
/// for a page still there rather than one gone already.
fn take_oldest(counts: &mut Counts, processes: &Processes, holder: Holder, queue: Queue) -> bool {
    let Some(held) = counts.held_mut(processes, holder) else {
        return false;
    };
    let (count, entries) = held.in_queue(queue);
    *entries -= 1;
    // Entries beyond the pages still held are of pages gone since.
    *entries < count
}

impl Text {
    /// Under swapping, the bytes bringing in an image of `image` bytes of
    /// this text's class takes: its private part, and the text unless it
    /// is in memory already.
    pub(super) fn to_load(&self, image: u64) -> u64 {
        let private = image - self.bytes;
        private + if self.in_memory == 0 { self.bytes } else { 0 }
    }
}

impl SystemModel<'_> {
    /// The kernel's fault path for `pid` on `cpu` is done: a reclaimed page
    /// is back and the process runs on; a zero-filled page needs a frame; a
    /// page to read needs a frame and the read.
    pub(super) fn fault_path_done(&mut self, cpu: usize, pid: usize, ctx: &mut Context<Event>) {
        let now = ctx.now();
        let source = self.memory.of[pid].fault_source;
        let soft = match source {
            Source::Reclaim => true,
            Source::InTransit if self.memory.wait_in_transit(self.procs[pid].class, pid) => true,
            Source::InTransit => {
                self.leave_cpu(cpu, pid, now);
                self.recount(pid, now, Change::State(State::Fault));
                self.dispatch_idle(ctx);
                return;
            }
            Source::ZeroFill => {
                self.with_memory(ctx, |m, view, fx| m.take_frame(view, pid, fx)) && {
                    self.with_memory(ctx, |m, view, fx| m.place_page(view, pid, fx));
                    true
                }
            }
            Source::Read(_) => false,
        };
        if soft {
            self.stats
                .fault_time
                .add((now - self.memory.of[pid].fault_started).as_secs_f64());
            self.dispatch(cpu, pid, false, ctx);
            return;
        }
        self.leave_cpu(cpu, pid, now);
        self.recount(pid, now, Change::State(State::Fault));
        self.page_in(pid, ctx);
        self.dispatch_idle(ctx);
    }

    /// Finds a frame for `pid`'s faulted page and starts the read (or, for
    /// a zero-filled page, completes the fault), or queues the process until
    /// a frame is free.
    pub(super) fn page_in(&mut self, pid: usize, ctx: &mut Context<Event>) {
        if !self.with_memory(ctx, |m, view, fx| m.take_frame(view, pid, fx)) {
            self.recount(pid, ctx.now(), Change::WaitingFrame(true));
            self.memory.wait_for_frame(pid);
            return;
        }
        match self.memory.of[pid].fault_source {
            Source::Read(device) => {
                let (memory, mut view) = self.memory_and_view(ctx.now());
                let pages = memory.pages_to_read(&mut view, pid);
                let bytes = (self.sys.memory.page * pages) as f64;
                self.request(
                    device as usize,
                    Purpose::Memory(Transfer::PageRead { pid }),
                    bytes,
                    ctx,
                );
            }
            Source::ZeroFill => self.page_read(pid, ctx),
            Source::Reclaim | Source::InTransit => unreachable!("a reclaim needs no frame"),
        }
    }

    /// The page `pid` waited for is in: the frame joins its holder and the
    /// process is ready again.
    pub(super) fn page_read(&mut self, pid: usize, ctx: &mut Context<Event>) {
        let now = ctx.now();
        self.stats
            .fault_time
            .add((now - self.memory.of[pid].fault_started).as_secs_f64());
        self.with_memory(ctx, |m, view, fx| m.place_page(view, pid, fx));
        let priority = pagein_priority(self.sys);
        self.become_runnable(pid, Some(priority), ctx);
        // Processes of the class that faulted on the page while it was
        // being read run on too.
        let class = self.procs[pid].class;
        for waiter in self.memory.transit_done(class, pid) {
            self.stats
                .fault_time
                .add((now - self.memory.of[waiter].fault_started).as_secs_f64());
            self.become_runnable(waiter, Some(priority), ctx);
        }
    }

    /// Starts the page reads of processes that waited for a frame, while
    /// frames are free.
    pub(super) fn serve_frame_waiters(&mut self, ctx: &mut Context<Event>) {
        while let Some(pid) = self.memory.frame_waiter() {
            self.recount(pid, ctx.now(), Change::WaitingFrame(false));
            self.page_in(pid, ctx);
        }
    }
}

impl MemoryState<'_> {
    /// Processor time to the next page fault of `pid` (`SimTime::MAX`
    /// under swapping, and for a class without a locality model): from its
    /// class's lifetime function at its resident set (its private pages
    /// and the resident pages of its class's text), or from its phase
    /// model.
    pub(super) fn fault_gap(&mut self, view: &mut View, pid: usize) -> SimTime {
        if let Manager::Swapping { .. } = self.manager {
            return SimTime::MAX;
        }
        let p = view.process(pid);
        let Some(locality) = view.sys().classes[p.class].locality.as_ref() else {
            return SimTime::MAX;
        };
        let Some(lifetime) = locality.lifetime() else {
            return self.phase_fault_gap(view, pid);
        };
        let resident = self.of[pid].held.resident + self.texts[p.class].held.resident;
        let mean = lifetime.mean_time_between_faults(resident, p.pages);
        if !mean.is_finite() {
            return SimTime::MAX;
        }
        let e: f64 = rand_distr::Distribution::sample(&rand_distr::Exp1, view.faults(pid));
        SimTime::from_secs_f64((mean * e).min(LONGEST_SAMPLE))
    }

    /// The pages of `holder`, if it still exists.
    fn held_mut(&mut self, view: &View, holder: Holder) -> Option<&mut Pages> {
        held_of(&mut self.of, &mut self.texts, &view.processes, holder)
    }

    /// The holder that is `pid`, as it is now.
    fn holder(view: &View, pid: usize) -> Holder {
        Holder::Process {
            pid,
            generation: view.process(pid).generation,
        }
    }

    /// A page fault under replacement by process, with `paging`'s
    /// settings: decide which page is missing and where it is, then run
    /// the kernel's fault path on the same processor.
    pub(super) fn counted_fault(
        &mut self,
        view: &mut View,
        cpu: usize,
        pid: usize,
        paging: &Paging,
        effects: &mut Vec<Effect>,
    ) {
        let p = view.process(pid);
        let text = &self.texts[p.class];
        let private = p.pages - text.pages;
        let missing_text = text.pages - text.held.resident;
        let missing_private = private - self.of[pid].held.resident;
        if missing_text + missing_private == 0 {
            // Another process of the class brought in the last missing text
            // page during this burst: nothing is missing any more.
            effects.push(Effect::RunOn { cpu, pid });
            return;
        }
        let in_text = match (missing_text, missing_private) {
            (0, _) => false,
            (_, 0) => true,
            (t, m) => {
                let u: f64 = view.faults(pid).random();
                u * ((t + m) as f64) < t as f64
            }
        };
        let (holder, missing, untouched) = if in_text {
            (Holder::Text { class: p.class }, missing_text, 0)
        } else {
            (
                Self::holder(view, pid),
                missing_private,
                private - self.counted.touched[pid],
            )
        };
        let zero_fill = if in_text {
            0.0
        } else {
            view.sys().classes[p.class].zero_fill
        };
        let held = *self
            .held_mut(view, holder)
            .expect("the faulting process exists");
        // Which of the missing pages: reclaimable, never touched, on the
        // bulk store, or on disk, in proportion to their numbers.
        let x = self.streams.placement.random::<f64>() * missing as f64;
        let reclaimable = held.reclaimable as f64;
        let first_touch = x >= reclaimable && x < reclaimable + untouched as f64;
        let source = if x < reclaimable {
            Source::Reclaim
        } else if first_touch && self.streams.placement.random::<f64>() < zero_fill {
            Source::ZeroFill
        } else {
            let bulk = paging.bulk_store.as_ref();
            let on_bulk = match bulk.map(|b| b.placement) {
                None => false,
                Some(Placement::DiskFraction(f)) => self.streams.placement.random::<f64>() >= f,
                Some(Placement::Capacity(_)) => {
                    !first_touch && x < reclaimable + (untouched + held.on_bulk) as f64
                }
            };
            match bulk {
                Some(b) if on_bulk => Source::read(b.device),
                // Pages of the program's file come from where it lies.
                _ if in_text || first_touch => Source::read(self.program_device(view.sys())),
                _ => Source::read(self.swap_device()),
            }
        };
        if first_touch {
            self.counted.touched[pid] += 1;
        }
        self.take_from_source(view, holder, source, paging);
        let cost = self.note_fault(view, pid, source, in_text, in_text || first_touch);
        effects.push(Effect::FaultPath { cpu, pid, cost });
    }

    /// The faulted page of `holder` leaves `source` under replacement by
    /// process: a reclaimed page is resident again at once; a page read
    /// from the bulk store leaves it.
    fn take_from_source(
        &mut self,
        view: &mut View,
        holder: Holder,
        source: Source,
        paging: &Paging,
    ) {
        match source {
            Source::Reclaim => {
                view.stats.counters.reclaims += 1;
                let held = self
                    .held_mut(view, holder)
                    .expect("the faulting process exists");
                held.reclaimable -= 1;
                held.resident += 1;
                self.pool.frames -= 1;
            }
            Source::Read(device)
                if paging
                    .bulk_store
                    .as_ref()
                    .is_some_and(|b| b.device == device as usize) =>
            {
                let held = self
                    .held_mut(view, holder)
                    .expect("the faulting process exists");
                if held.on_bulk > 0 {
                    held.on_bulk -= 1;
                    self.counted.bulk.used -= 1;
                }
            }
            Source::ZeroFill | Source::Read(_) => {}
            Source::InTransit => unreachable!("only under memory as frames"),
        }
    }

    /// Adds the frame taken for `pid`'s fault to the holder of the page.
    pub(super) fn place_page(&mut self, view: &mut View, pid: usize, effects: &mut Vec<Effect>) {
        if let Manager::Frames { .. } = self.manager {
            self.clock_place_page(view, pid);
            return;
        }
        let class = view.process(pid).class;
        if self.of[pid].fault_in_text {
            let text = &mut self.texts[class];
            if text.held.resident < text.pages {
                text.held.resident += 1;
            } else {
                // Another process of the class brought the same page in
                // first.
                self.pool.frames += 1;
                self.pool.anonymous += 1;
                effects.push(Effect::ServeFrameWaiters);
            }
        } else {
            self.of[pid].held.resident += 1;
        }
    }

    /// Takes a frame for `pid`: a free one, else one stolen from the holder
    /// used least recently, else one of its own.
    pub(super) fn take_frame(
        &mut self,
        view: &mut View,
        pid: usize,
        effects: &mut Vec<Effect>,
    ) -> bool {
        let paging = match self.manager {
            Manager::Frames { .. } => return self.clock_take_frame(view, pid, effects),
            Manager::Counted(paging) => paging,
            Manager::Swapping { .. } => unreachable!("frames only under paging"),
        };
        let target = paging.free_target;
        if self.pool.frames == 0 {
            self.steal(view, 1, pid, effects);
        }
        let class = view.process(pid).class;
        let got = if self.pool.frames > 0 {
            true
        } else if self.of[pid].held.resident > 0 {
            self.evict(view, Self::holder(view, pid), 1, effects);
            true
        } else if self.texts[class].held.resident > 0 {
            self.evict(view, Holder::Text { class }, 1, effects);
            true
        } else {
            false
        };
        if got {
            self.allocate(view);
        }
        // The page daemon keeps `target` frames free.
        if self.pool.frames < target {
            self.steal(view, target - self.pool.frames, pid, effects);
        }
        got
    }

    /// Takes one frame out of the free pool (`Counted::allocate`).
    fn allocate(&mut self, view: &View) {
        let (_, counted, mut counts) = self.counting();
        counted.allocate(&mut counts, &view.processes);
    }

    /// Takes up to `wanted` frames into the free pool, from the holders
    /// used least recently; never from a process on a processor, its
    /// class's text, or the process `faulting` and its text.
    fn steal(
        &mut self,
        view: &mut View,
        mut wanted: u64,
        faulting: usize,
        effects: &mut Vec<Effect>,
    ) {
        let processes = view.processes;
        let in_use = |class: usize| {
            processes.get(faulting).expect("live").class == class
                || processes.class_on_processor(class)
        };
        while wanted > 0 {
            let process = self
                .candidates
                .least_recently_run(faulting)
                .map(|(last_run, pid)| (last_run, 0, pid));
            let text = self
                .texts
                .iter()
                .enumerate()
                .filter(|&(class, t)| t.held.resident > 0 && !in_use(class))
                .map(|(class, t)| (t.last_used, 1, class))
                .min();
            let victim = match (process, text) {
                (None, None) => return,
                (Some(p), Some(t)) if t < p => Holder::Text { class: t.2 },
                (Some(p), _) => Self::holder(view, p.2),
                (None, Some(t)) => Holder::Text { class: t.2 },
            };
            let resident = self
                .held_mut(view, victim)
                .expect("a victim exists")
                .resident;
            let n = wanted.min(resident);
            self.evict(view, victim, n, effects);
            wanted -= n;
        }
    }

    /// Moves `n` of `holder`'s pages out of memory (`Counted::evict`),
    /// refiles the process, and asks for the page writes.
    fn evict(&mut self, view: &mut View, holder: Holder, n: u64, effects: &mut Vec<Effect>) {
        let dirty = match holder {
            Holder::Process { pid, .. } => view.sys().classes[view.process(pid).class].dirty,
            Holder::Text { .. } => 0.0,
        };
        let (_, counted, mut counts, mut freeing) = self.freeing();
        let victim = Victim { holder, n, dirty };
        counted.evict(victim, &mut counts, &view.processes, &mut freeing);
        let freed = freeing.done();
        if let Holder::Process { pid, .. } = holder {
            let keys = self.keys(&view.processes, pid, |_| {
                unreachable!("replacement by process files by resident pages alone")
            });
            self.refile(pid, keys.expect("replacement by process files processes"));
        }
        self.write_pages(view, freed, effects);
    }

    /// Counts a fault of `pid` whose page comes from `source` (of its
    /// class's text or not, from the program's file or not), notes it as
    /// the fault pending, and says what the kernel's fault path costs: the
    /// soft-fault cost for a fault without I/O, else the device's cost per
    /// fault.
    pub(super) fn note_fault(
        &mut self,
        view: &mut View,
        pid: usize,
        source: Source,
        in_text: bool,
        from_file: bool,
    ) -> SimTime {
        let paging = self.paging();
        let counters = &mut view.stats.counters;
        counters.faults += 1;
        let cost = match source {
            Source::Reclaim | Source::InTransit => paging.soft_fault_cpu,
            Source::ZeroFill => {
                counters.zero_fills += 1;
                paging.soft_fault_cpu
            }
            Source::Read(device) => {
                let from_bulk = paging
                    .bulk_store
                    .as_ref()
                    .is_some_and(|b| b.device == device as usize);
                if from_bulk {
                    counters.bulk_reads += 1;
                } else {
                    counters.disk_reads += 1;
                }
                view.sys().devices[device as usize].fault_cpu
            }
        };
        let m = &mut self.of[pid];
        m.fault_started = view.now;
        m.fault_source = source;
        m.fault_in_text = in_text;
        m.fault_from_file = from_file;
        cost
    }
}

/// The priority a process woken from a page read runs at: the UNIX
/// scheduler's `pagein_priority` (a process waiting for another's read of a
/// text page too); other schedulers do not read it.
fn pagein_priority(sys: &System) -> u8 {
    match sys.cpu.scheduler {
        Scheduler::Unix(unix) => unix.pagein_priority,
        Scheduler::RoundRobin | Scheduler::Multics(_) | Scheduler::Fair(_) => scheduler::AFTER_DISK,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::model::frames::tests::{make_eligible, with_memory, with_process_at};
    use crate::system::model::scheduler::Place;
    use crate::system::model::{Burst, BurstKind, Context, Event, Outcome, SystemModel};

    /// Replacement by process's calls as the tests make them: on the
    /// model, with the calendar, what they leave to do done at once.
    trait CountedCalls {
        fn holder(&self, pid: usize) -> Holder;
        fn held_mut(&mut self, holder: Holder) -> Option<&mut Pages>;
        fn evict(&mut self, holder: Holder, n: u64, ctx: &mut Context<Event>);
        fn steal(&mut self, wanted: u64, faulting: usize, ctx: &mut Context<Event>);
        fn take_frame(&mut self, pid: usize, ctx: &mut Context<Event>) -> bool;
    }

    impl CountedCalls for SystemModel<'_> {
        fn holder(&self, pid: usize) -> Holder {
            Holder::Process {
                pid,
                generation: self.procs[pid].generation,
            }
        }

        fn held_mut(&mut self, holder: Holder) -> Option<&mut Pages> {
            let processes = Processes::of(&self.procs, self.sys, &self.cpus);
            held_of(
                &mut self.memory.of,
                &mut self.memory.texts,
                &processes,
                holder,
            )
        }

        fn evict(&mut self, holder: Holder, n: u64, ctx: &mut Context<Event>) {
            self.with_memory(ctx, |m, view, fx| m.evict(view, holder, n, fx));
        }

        fn steal(&mut self, wanted: u64, faulting: usize, ctx: &mut Context<Event>) {
            self.with_memory(ctx, |m, view, fx| m.steal(view, wanted, faulting, fx));
        }

        fn take_frame(&mut self, pid: usize, ctx: &mut Context<Event>) -> bool {
            self.with_memory(ctx, |m, view, fx| m.take_frame(view, pid, fx))
        }
    }

    #[test]
    fn a_page_read_wakes_its_process_at_the_page_in_priority() {
        // With no processor free and none to preempt, the process woken
        // waits in the ready queue at the priority it slept at: PRIBIO by
        // default, 4.0BSD's PSWP when the scenario says so.
        for (settings, priority) in [("", 20), ("unix = { pagein_priority = 0 }", 0)] {
            let text = TWO_TEXTS.replace(
                "quantum = \"100ms\"",
                &format!("quantum = \"250ms\"\nscheduler = \"unix\"\n{settings}"),
            );
            with_process_at(&text, SimTime::ZERO, |model, ctx, pid| {
                model.recount(pid, ctx.now(), Change::State(State::Fault));
                model.memory.of[pid].fault_source = Source::read(0);
                model.cpus.take(0, model.procs[pid].class);
                model.page_read(pid, ctx);
                let place = model.cpus.scheduler.place(pid);
                assert!(
                    matches!(place, Place::Kernel(p, _) if p == priority),
                    "{settings}: {place:?}"
                );
            });
        }
    }

    #[test]
    fn under_4_0bsd_s_quarter_second_the_scheduler_looks_again_on_the_clock() {
        // 4.0BSD sets `runrun` every HZ/4 ticks (clock.c): with quantum =
        // "250ms" a burst may run to the next quarter second of the clock,
        // wherever it started, and no further.
        let text = TWO_TEXTS.replace(
            "quantum = \"100ms\"",
            "quantum = \"250ms\"\nscheduler = \"unix\"",
        );
        with_process_at(&text, SimTime::ZERO, |model, _, pid| {
            for (start_ms, slice_ms) in [(0, 250), (100, 150), (249, 1), (250, 250), (1_010, 240)] {
                let start = SimTime::from_nanos(start_ms * 1_000_000);
                assert_eq!(
                    model.cpus.scheduler.slice(pid, start),
                    SimTime::from_nanos(slice_ms * 1_000_000),
                    "from {start_ms} ms"
                );
            }
        });
    }

    #[test]
    #[cfg(debug_assertions)]
    fn the_free_pool_and_the_bulk_store_check_what_their_holders_count() {
        let mut pool = FreePool::new(10);
        let held = |resident, reclaimable| Pages {
            resident,
            reclaimable,
            ..Pages::default()
        };
        // 3 frames taken for pages, 2 of them freed again but reclaimable,
        // 1 being read into.
        pool.frames = 8 - 2;
        pool.anonymous = 6 - 2;
        pool.check(10, held(3, 2), 1);
        for (frames, anonymous, read) in [(6, 4, 0), (7, 4, 1), (6, 5, 1)] {
            let mut lost = FreePool::new(10);
            (lost.frames, lost.anonymous) = (frames, anonymous);
            let found = std::panic::catch_unwind(|| lost.check(10, held(3, 2), read));
            assert!(
                found.is_err(),
                "{frames} free, {anonymous} anonymous, {read} read"
            );
        }
        let mut bulk = BulkPages {
            used: 2,
            age: [Holder::Text { class: 0 }; 3].into(),
        };
        bulk.check(2);
        assert!(std::panic::catch_unwind(|| bulk.check(3)).is_err());
        bulk.age.pop_front();
        bulk.age.pop_front();
        assert!(std::panic::catch_unwind(|| bulk.check(2)).is_err());
    }

    /// Two classes, each with 10 pages of shared text in a 40-page image,
    /// under replacement by process.
    const TWO_TEXTS: &str = r#"
        name = "texts"
        [run]
        end_time = "10s"
        [system]
        quantum = "100ms"
        [memory]
        policy = "paging"
        size = "64KiB"
        page = "1KiB"
        device = "disk"
        [[device]]
        name = "disk"
        rate = "1MB/s"
        [users]
        terminals = 1
        think = { exp = { mean = "1s" } }
        commands = [{ class = "a", weight = 1 }, { class = "b", weight = 1 }]
        [[class]]
        name = "a"
        cpu = { exp = { mean = "1s" } }
        size = "40KiB"
        text = "10KiB"
        locality = { cfl = { b = "10ms", c = 10 } }
        [[class]]
        name = "b"
        cpu = { exp = { mean = "1s" } }
        size = "40KiB"
        text = "10KiB"
        locality = { cfl = { b = "10ms", c = 10 } }
    "#;

    #[test]
    fn a_working_set_estimate_counts_the_class_s_resident_text() {
        // Under replacement by process a process giving up eligibility
        // leaves as its owner's estimate its private pages and the
        // resident pages of its class's text.
        with_process_at(TWO_TEXTS, SimTime::ZERO, |model, _, pid| {
            make_eligible(model, pid);
            model.memory.of[pid].held.resident = 5;
            model.memory.texts[0].held.resident = 3;
            model.memory.texts[1].held.resident = 7;
            assert!(model.give_up_eligibility(pid));
            let owner = model.procs[pid].owner;
            assert_eq!(model.owners[owner].working_set, Some(8.0));
        });
    }

    #[test]
    fn a_holder_names_one_process_not_the_next_in_its_slot() {
        // Entries in the free pool's age queue outlive their process: one
        // left by a process that exited must not reach the process given
        // its slot next.
        with_process_at(TWO_TEXTS, SimTime::ZERO, |model, ctx, pid| {
            let holder = model.holder(pid);
            let owner = model.procs[pid].owner;
            model.exit(pid, ctx);
            let next = model.spawn(0, owner, true, SimTime::ZERO);
            assert_eq!(next, pid, "the slot is reused");
            assert!(model.held_mut(holder).is_none());
            assert!(model.held_mut(model.holder(next)).is_some());
        });
    }

    #[test]
    fn pages_taken_are_counted_and_written_back_as_often_as_the_class_dirties_them() {
        let text = TWO_TEXTS
            .replacen(
                "size = \"40KiB\"",
                "size = \"40KiB\"\n        dirty = 0.3",
                1,
            )
            .replacen(
                "size = \"40KiB\"\n        text",
                "size = \"40KiB\"\n        dirty = 1.0\n        text",
                1,
            );
        with_process_at(&text, SimTime::ZERO, |model, ctx, pid| {
            // Each of 20,000 pages taken is dirty with probability 0.3: a
            // binomial count, standard deviation 65.
            model.memory.of[pid].held.resident = 20_000;
            model.evict(model.holder(pid), 20_000, ctx);
            let writes = model.stats.counters.page_writes;
            assert!(writes.abs_diff(6_000) < 5 * 65, "{writes}");
            // Text is never written.
            model.memory.texts[0].held.resident = 100;
            model.evict(Holder::Text { class: 0 }, 100, ctx);
            assert_eq!(model.stats.counters.page_writes, writes);
            // A class whose pages are all dirty writes every one.
            let owner = model.procs[pid].owner;
            let other = model.spawn(1, owner, true, SimTime::ZERO);
            model.memory.of[other].held.resident = 10;
            model.evict(model.holder(other), 10, ctx);
            assert_eq!(model.stats.counters.page_writes, writes + 10);
            // Every page taken is counted as stolen, written or not.
            assert_eq!(model.stats.counters.pages_stolen, 20_110);
        });
    }

    #[test]
    fn a_full_bulk_store_pushes_its_oldest_pages_on_to_the_disk() {
        // TWO_TEXTS with a bulk store of 64 pages in front of the disk:
        // every page taken goes to it, and what it cannot hold, oldest
        // first, goes on to the disk.
        let text = with_memory(
            TWO_TEXTS,
            "bulk_store = \"drum\"\nbulk_store_size = \"64KiB\"\n[[device]]\nname = \"drum\"\nrate = \"4MB/s\"",
        );
        with_process_at(&text, SimTime::ZERO, |model, ctx, pid| {
            model.memory.of[pid].held.resident = 101;
            model.evict(model.holder(pid), 100, ctx);
            assert_eq!(model.memory.counted.bulk.used, 64);
            assert_eq!(model.memory.of[pid].held.on_bulk, 64);
            assert_eq!(model.stats.counters.page_writes, 100 + 36);
            model.evict(model.holder(pid), 1, ctx);
            assert_eq!(model.memory.counted.bulk.used, 64);
            assert_eq!(model.stats.counters.page_writes, 138);
            // Twenty pages read back leave stale entries in the age queue;
            // compacting it keeps as many as the pages still there.
            model.memory.of[pid].held.on_bulk -= 20;
            model.memory.counted.bulk.used -= 20;
            assert_eq!(model.memory.counted.bulk.age.len(), 64);
            let processes = Processes::of(&model.procs, model.sys, &model.cpus);
            let (_, counted, mut counts) = model.memory.counting();
            counted.compact(Queue::Bulk, &mut counts, &processes);
            assert_eq!(model.memory.counted.bulk.age.len(), 44);
            assert_eq!(model.memory.of[pid].held.bulk_entries, 44);
            // A page taken and read back 2,100 times leaves as many stale
            // entries: the queue is compacted when it outgrows twice 1,024
            // entries, not before (so compacting costs O(1) a page,
            // amortised).
            for taken in 1..=2_100 {
                model.memory.of[pid].held.resident = 1;
                model.evict(model.holder(pid), 1, ctx);
                model.memory.of[pid].held.on_bulk -= 1;
                model.memory.counted.bulk.used -= 1;
                if taken == 2_004 {
                    assert_eq!(
                        model.memory.counted.bulk.age.len(),
                        2_048,
                        "not yet compacted"
                    );
                }
            }
            // Compacting kept the 44 pages' entries and the one then taken.
            assert_eq!(model.memory.counted.bulk.age.len(), 45 + 95);
        });
    }

    #[test]
    fn the_free_pool_s_age_queue_is_compacted_past_twice_its_bound() {
        let text = with_memory(TWO_TEXTS, "reclaim = true");
        with_process_at(&text, SimTime::ZERO, |model, ctx, pid| {
            // A page taken and reclaimed 2,100 times leaves as many stale
            // entries in the free pool's age queue: it is compacted when it
            // outgrows twice 1,024 entries (the pool has 64 frames), not
            // before.
            for taken in 1..=2_100 {
                model.memory.of[pid].held.resident = 1;
                model.evict(model.holder(pid), 1, ctx);
                // Reclaimed, as a fault on it would take it back.
                model.memory.of[pid].held.reclaimable -= 1;
                model.memory.pool.frames -= 1;
                if taken == 2_048 {
                    assert_eq!(
                        model.memory.counted.free_age.len(),
                        2_048,
                        "not yet compacted"
                    );
                }
            }
            // Compacting kept the entry of the page then free.
            assert_eq!(model.memory.counted.free_age.len(), 1 + 2_100 - 2_049);
        });
    }

    #[test]
    fn replacement_takes_from_the_holder_used_least_recently() {
        with_process_at(TWO_TEXTS, SimTime::ZERO, |model, ctx, pid| {
            // Another process of class 1 last ran at 3 s, with 5 pages;
            // class 1's text was last used at 5 s: the process loses its
            // pages first, then the text.
            let owner = model.procs[pid].owner;
            let other = model.spawn(1, owner, true, SimTime::ZERO);
            model.memory.of[other].held.resident = 5;
            model.procs[other].last_run = SimTime::from_secs(3);
            model.reindex(other);
            let text = &mut model.memory.texts[1];
            text.held.resident = 10;
            text.last_used = SimTime::from_secs(5);
            model.steal(7, pid, ctx);
            assert_eq!(model.memory.of[other].held.resident, 0);
            assert_eq!(model.memory.texts[1].held.resident, 8);
            // Used before the process last ran, the text goes first.
            model.memory.of[other].held.resident = 5;
            model.reindex(other);
            model.memory.texts[1].last_used = SimTime::from_secs(2);
            model.steal(3, pid, ctx);
            assert_eq!(model.memory.of[other].held.resident, 5);
            assert_eq!(model.memory.texts[1].held.resident, 5);
        });
    }

    #[test]
    fn the_page_daemon_keeps_its_free_target_and_takes_no_more() {
        let text = with_memory(TWO_TEXTS, "free_target = \"8KiB\"");
        with_process_at(&text, SimTime::ZERO, |model, ctx, pid| {
            // Another process holds 55 pages; 9 frames are free.
            let other = model.spawn(1, model.procs[pid].owner, true, SimTime::ZERO);
            model.memory.of[other].held.resident = 55;
            model.reindex(other);
            (model.memory.pool.frames, model.memory.pool.anonymous) = (9, 9);
            // A fault that leaves the target free takes nothing.
            assert!(model.take_frame(pid, ctx));
            assert_eq!(
                (
                    model.memory.pool.frames,
                    model.memory.of[other].held.resident
                ),
                (8, 55)
            );
            // One that leaves fewer takes a page back to the target.
            assert!(model.take_frame(pid, ctx));
            assert_eq!(
                (
                    model.memory.pool.frames,
                    model.memory.of[other].held.resident
                ),
                (8, 54)
            );
        });
    }

    #[test]
    fn replacement_never_takes_the_faulting_process_s_text() {
        with_process_at(TWO_TEXTS, SimTime::ZERO, |model, ctx, pid| {
            assert_eq!(model.procs[pid].class, 0);
            // Both texts resident, class 0's used longer ago: it would be
            // the one taken, but for the process of that class faulting.
            for (class, last_used) in [(0, 1), (1, 5)] {
                let text = &mut model.memory.texts[class];
                text.held.resident = 10;
                text.last_used = SimTime::from_secs(last_used);
            }
            model.steal(2, pid, ctx);
            assert_eq!(model.memory.texts[0].held.resident, 10);
            assert_eq!(model.memory.texts[1].held.resident, 8);
            // Nor the text of a process on a processor: with class 1
            // running, neither text is taken.
            let owner = model.procs[pid].owner;
            let other = model.spawn(1, owner, true, SimTime::ZERO);
            model.cpus.take(0, model.procs[other].class);
            model.cpus.running[0] = Some(Burst {
                pid: other,
                kind: BurstKind::User(Outcome::Quantum),
                start: SimTime::ZERO,
                interrupt_end: SimTime::ZERO,
                switch_end: SimTime::ZERO,
                end: SimTime::from_secs(1),
            });
            model.steal(2, pid, ctx);
            assert_eq!(model.memory.texts[0].held.resident, 10);
            assert_eq!(model.memory.texts[1].held.resident, 8);
        });
    }
}
