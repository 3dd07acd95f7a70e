//! Memory as frames' calls, made on memory's state with the view of one
//! call: they pick what the frames cannot see (the page a fault is on and
//! where it is, whether a fault stands, which pages a governor frees),
//! call the `Frames` part and count into the statistics. What the core
//! must then do they leave as effects, in the order they decided it: run
//! the process on, start the fault path, issue the page writes, serve the
//! processes waiting for a frame, and (the daemon's turn) schedule its
//! next turn and let the swapper look. The tests make the same calls on
//! the model through `FrameCalls`.

use super::{
    Burst, BurstKind, Effect, FrameOwner, Frames, Governor, LONGEST_SAMPLE, Manager, MemoryEvent,
    MemoryState, Missing, PAGEOUT_PERIOD, PageIn, Pageout, Paging, Processes, Pte, SimTime, Source,
    System, View,
};
use super::{Counts, Freed, Freeing};
#[cfg(test)]
use crate::system::model::{Context, Event, Phases, SystemModel};
use rand::RngExt;

impl<'a> MemoryState<'a> {
    /// The paging settings (memory as frames, or klustering's look under
    /// any paging).
    pub(in crate::system::model) fn paging(&self) -> &'a Paging {
        self.manager.paging().expect("under paging")
    }

    /// A new process's page table: nothing touched, its first phase begun.
    pub(in crate::system::model) fn map_pages(&mut self, view: &mut View, pid: usize) {
        let pages = view.process(pid).pages as usize;
        self.frames.tables[pid].untouched(pages);
        self.new_phase(view, pid);
    }

    /// `pid` moves to its next phase (`Frames::new_phase`).
    pub(in crate::system::model) fn new_phase(&mut self, view: &mut View, pid: usize) {
        let processes = view.processes;
        self.frames.new_phase(pid, &processes, view.faults(pid));
    }

    /// The missing pages of `pid`'s locality set, private and of its
    /// class's text.
    pub(in crate::system::model) fn set_missing(&self, class: usize, pid: usize) -> u64 {
        let t = &self.frames.tables[pid];
        t.missing()
            + self
                .frames
                .text(class)
                .map_or(0, |text| text.missing_in(&t.text_ranges))
    }

    /// `pid`'s resident set: its private pages and its class's resident
    /// text.
    pub(in crate::system::model) fn resident_set(&self, class: usize, pid: usize) -> u64 {
        self.of[pid].held.resident + self.texts[class].held.resident
    }

    /// Processor time to `pid`'s next fault, or to the end of its phase if
    /// that comes first (the burst then ends there, and `clock_fault`
    /// moves the process to its next phase).
    pub(in crate::system::model) fn phase_fault_gap(
        &mut self,
        view: &mut View,
        pid: usize,
    ) -> SimTime {
        let p = view.process(pid);
        let missing = self.set_missing(p.class, pid);
        let pt = &mut self.frames.tables[pid];
        pt.drawn_missing = u32::try_from(missing).expect("a set of fewer than 2^32 pages");
        let mean = pt.mean_time_between_faults(view.processes.phases_of_class(p.class), missing);
        let to_phase_end = pt.phase_end.saturating_sub(view.processes.cpu_user(pid));
        if !mean.is_finite() {
            return to_phase_end;
        }
        let e: f64 = rand_distr::Distribution::sample(&rand_distr::Exp1, view.faults(pid));
        SimTime::from_secs_f64((mean * e).min(LONGEST_SAMPLE)).min(to_phase_end)
    }

    /// `pid`'s burst on `cpu` ended at its next fault or at the end of its
    /// phase: a new phase, and the process runs on; or a page of its set
    /// to bring in, from the free list (a reclaim), as a cleared frame, or
    /// by a read, through the kernel's fault path. A fault drawn when more
    /// of the set's shared text was missing than now stands with
    /// probability missing now / missing then (thinning); otherwise the
    /// process runs on.
    pub(in crate::system::model) fn clock_fault(
        &mut self,
        view: &mut View,
        cpu: usize,
        pid: usize,
        effects: &mut Vec<Effect>,
    ) {
        let p = view.process(pid);
        let class = p.class;
        if view.processes.cpu_user(pid) >= self.frames.tables[pid].phase_end {
            self.new_phase(view, pid);
            effects.push(Effect::RunOn { cpu, pid });
            return;
        }
        let missing = self.set_missing(class, pid);
        if !self.fault_stands(view, pid, missing) {
            effects.push(Effect::RunOn { cpu, pid });
            return;
        }
        if view.now >= view.stats.measured_from {
            let resident = self.resident_set(class, pid);
            view.stats.lifetimes[class].bin(resident).1 += 1;
        }
        let text = self.frames.text(class);
        let drawn = self.frames.tables[pid].draw_missing(missing, text, view.faults(pid));
        // The page is missing, so what page-fault frequency frees is not it.
        let freed = self.fault_frequency(view, pid, effects);
        let (page, source, in_text, from_file) = match drawn {
            Missing::Private(page) => {
                let (source, from_file) = self.private_fault(view, pid, page);
                (page, source, false, from_file)
            }
            Missing::Text(page) => {
                let (source, from_file) = self.text_fault(view, pid, page);
                (page, source, true, from_file)
            }
        };
        self.frames.tables[pid].faulting = page;
        let cost = self.note_fault(view, pid, source, in_text, from_file);
        effects.push(Effect::FaultPath { cpu, pid, cost });
        // Processes waiting for frames get those freed now that the
        // processor is in the fault path, where none of them can take it.
        if freed {
            effects.push(Effect::ServeFrameWaiters);
        }
    }

    /// The fault of `pid` is on `page`, its own: where the page is, and
    /// whether it comes from the program's file; a reclaim and a
    /// revalidation are done at once.
    pub(in crate::system::model) fn private_fault(
        &mut self,
        view: &mut View,
        pid: usize,
        page: u32,
    ) -> (Source, bool) {
        let p = view.process(pid);
        let entry = self.frames.tables[pid].entry(page as usize);
        let paging = self.paging();
        let zero_fill = view.sys().classes[p.class].zero_fill;
        match entry {
            Pte::Free(f) => {
                view.stats.counters.reclaims += 1;
                let (frames, _, mut counts) = self.counting();
                frames.reclaim(pid, page, f, view.processes.cpu_user(pid), &mut counts);
                (Source::Reclaim, false)
            }
            Pte::Untouched if self.streams.placement.random::<f64>() < zero_fill => {
                (Source::ZeroFill, true)
            }
            Pte::Untouched => (Source::read(self.program_device(view.sys())), true),
            Pte::Out => (Source::read(self.swap_device()), false),
            Pte::Bulk(_) => {
                // The page leaves the bulk store as it is read; until its
                // frame is taken it counts as on the drives, where the
                // bulk store's overflow cannot take it.
                let bulk = paging.bulk_store.as_ref().expect("a bulk store");
                self.frames.bulk.used -= 1;
                self.frames.tables[pid].set_entry(page as usize, Pte::Out);
                (Source::read(bulk.device), false)
            }
            Pte::Resident(f) => {
                // Only an invalidated page is resident and missing.
                view.stats.counters.reclaims += 1;
                self.frames.revalidate(pid, page, f);
                (Source::Reclaim, false)
            }
            Pte::Reading(_) => unreachable!("a process waiting for a page does not run"),
        }
    }

    /// Whether the fault of `pid`, drawn with more of its set missing than
    /// the `missing` pages now, stands: with probability missing now /
    /// missing then.
    pub(in crate::system::model) fn fault_stands(
        &mut self,
        view: &mut View,
        pid: usize,
        missing: u64,
    ) -> bool {
        let drawn = u64::from(self.frames.tables[pid].drawn_missing);
        assert!(
            missing <= drawn,
            "a set's missing pages only fall in a burst"
        );
        missing == drawn || view.faults(pid).random_range(0..drawn) < missing
    }

    /// Page-fault frequency: at a fault more than the critical interval of
    /// processor time after the previous one, the resident pages not
    /// referenced since that fault are freed (a page brought in by it
    /// counts as referenced then). Says whether it freed any.
    pub(in crate::system::model) fn fault_frequency(
        &mut self,
        view: &mut View,
        pid: usize,
        effects: &mut Vec<Effect>,
    ) -> bool {
        let Manager::Frames {
            governor: Governor::PageFaultFrequency { interval },
            ..
        } = self.manager
        else {
            return false;
        };
        let now = view.processes.cpu_user(pid);
        let previous = std::mem::replace(&mut self.frames.tables[pid].last_fault, now);
        now - previous > interval && self.free_unreferenced_since(view, pid, previous, effects)
    }

    /// Takes a frame from the head of the free list for `pid`'s faulted
    /// page, waking the daemon when free memory falls below `desfree` (or,
    /// with the hand moved by faults, moving it below `lotsfree`); false if
    /// none is free.
    pub(in crate::system::model) fn clock_take_frame(
        &mut self,
        view: &mut View,
        pid: usize,
        effects: &mut Vec<Effect>,
    ) -> bool {
        let Manager::Frames { daemon: clock, .. } = self.manager else {
            unreachable!("under the clock");
        };
        // The daemon is woken below desfree; the fault handler moves the
        // hand itself below lotsfree.
        let wake_below = match clock.pageout {
            Pageout::Daemon => clock.desfree,
            Pageout::Fault => clock.lotsfree,
        };
        let Some(f) = self.frames.pop_front() else {
            self.scan(view, effects);
            return false;
        };
        let owner = match self.of[pid].fault_in_text {
            true => FrameOwner::text(view.process(pid).class),
            false => FrameOwner::process(pid),
        };
        let page = self.frames.tables[pid].faulting;
        let (frames, _, mut counts) = self.counting();
        frames.take_free_frame(f, &mut counts);
        frames.read_into(f, owner, page);
        if self.pool.frames < wake_below {
            self.scan(view, effects);
        }
        true
    }

    /// The page read for `pid` is in its frame: resident, referenced; and
    /// the pages klustered with it, resident but not referenced (for the
    /// working set, brought in now). A page of shared text is the text's.
    pub(in crate::system::model) fn clock_place_page(&mut self, view: &mut View, pid: usize) {
        let page = self.frames.tables[pid].faulting;
        if self.of[pid].fault_in_text {
            let class = view.process(pid).class;
            let Pte::Reading(f) = self.frames.texts[class].entries[page as usize] else {
                unreachable!("a text page is read into the frame taken for it");
            };
            self.fill_text_frame(view, class, page, f);
            return;
        }
        let Pte::Reading(f) = self.frames.tables[pid].entry(page as usize) else {
            unreachable!("a page is read into the frame taken for it");
        };
        self.fill_frame(view, pid, page, f, true);
        // Without klustering there are none, and the list, in the table's
        // second line, is not read.
        if self.paging().kluster > 1 {
            for (page, f) in std::mem::take(&mut self.frames.tables[pid].klustered) {
                self.fill_frame(view, pid, page, f, false);
            }
        }
    }

    /// Makes `page` of `pid` resident in frame `f`, modified with its
    /// class's probability.
    pub(in crate::system::model) fn fill_frame(
        &mut self,
        view: &View,
        pid: usize,
        page: u32,
        f: u32,
        referenced: bool,
    ) {
        let p = view.process(pid);
        let dirty = view.sys().classes[p.class].dirty;
        let modified = dirty >= 1.0 || (dirty > 0.0 && self.streams.dirty.random::<f64>() < dirty);
        let page_in = PageIn {
            referenced,
            modified,
            at: view.processes.cpu_user(pid),
        };
        let (frames, _, mut counts) = self.counting();
        frames.fill(pid, page, f, page_in, &mut counts);
    }

    /// Klustering: takes free frames for the other pages of the faulted
    /// page's aligned cluster that are in the swap area too, when the page
    /// is read from there, and says how many; they come in with it.
    pub(in crate::system::model) fn kluster(&mut self, view: &mut View, pid: usize) -> u64 {
        let paging = self.paging();
        let m = &self.of[pid];
        let from_bulk = paging
            .bulk_store
            .as_ref()
            .is_some_and(|b| m.fault_source == Source::read(b.device));
        if paging.kluster <= 1 || m.fault_from_file || m.fault_in_text || from_bulk {
            return 0;
        }
        let (k, pages) = (paging.kluster as u32, view.process(pid).pages as u32);
        let (frames, _, mut counts) = self.counting();
        let extra = frames.kluster(pid, k, pages, &mut counts);
        view.stats.counters.klustered += extra;
        extra
    }

    /// The daemon's once-a-second start (3BSD's `vmmeter`, called from the
    /// clock): the swapper's meters, the daemon's budget of frames for the
    /// coming second, then a scan; its next start, and the swapper's look.
    pub(in crate::system::model) fn pageout(&mut self, view: &mut View, effects: &mut Vec<Effect>) {
        let Manager::Frames {
            daemon, governor, ..
        } = self.manager
        else {
            unreachable!("under the clock");
        };
        if let Governor::Clock {
            swapper: Some(settings),
        } = governor
        {
            self.swap.vm.tick(self.pool.frames, settings.maxpgio);
        }
        self.frames.budget = daemon.scan_budget(
            self.pool.frames,
            self.swap.vm.deficit,
            view.sys().memory.user_frames(),
            PAGEOUT_PERIOD,
        );
        self.scan(view, effects);
        effects.push(Effect::Schedule {
            after: PAGEOUT_PERIOD,
            event: MemoryEvent::Pageout,
        });
        // The swapper looks at least once a second (3BSD wakes it with
        // `runin` from the clock).
        effects.push(Effect::Swapper);
    }

    /// The hand goes round (`Frames::hand`); what it freed is written and
    /// given to processes waiting for frames.
    pub(in crate::system::model) fn scan(&mut self, view: &mut View, effects: &mut Vec<Effect>) {
        let Manager::Frames { daemon, .. } = self.manager else {
            unreachable!("under the clock");
        };
        let freed = self.free_frames(view, |frames, processes, counts, freeing| {
            frames.hand(daemon, processes, counts, freeing);
        });
        if self.write_freed(view, freed, effects) {
            effects.push(Effect::ServeFrameWaiters);
        }
    }

    /// Whether resident sets are trimmed to their working sets as their
    /// processes are dispatched (`trim_working_set`).
    #[inline]
    pub(in crate::system::model) fn trims_working_sets(&self) -> bool {
        matches!(
            self.manager,
            Manager::Frames {
                governor: Governor::WorkingSet { .. },
                ..
            }
        )
    }

    /// Working set: frees the resident pages of `pid` not referenced within
    /// the last `tau` of its processor time, deciding their references up
    /// to now; run when it is dispatched, as its working set only changes
    /// while it runs. Says whether it freed any: the caller gives them to
    /// processes waiting for frames once the processor is taken, so that
    /// none of them is dispatched onto it meanwhile.
    pub(in crate::system::model) fn trim_working_set(
        &mut self,
        view: &mut View,
        pid: usize,
        effects: &mut Vec<Effect>,
    ) -> bool {
        let Manager::Frames {
            governor: Governor::WorkingSet { tau },
            ..
        } = self.manager
        else {
            return false;
        };
        let now = view.processes.cpu_user(pid);
        now >= tau && self.free_unreferenced_since(view, pid, now - tau, effects)
    }

    /// Frees the resident pages of `pid` last referenced before `since` of
    /// its processor time, and writes them; says whether it freed any.
    fn free_unreferenced_since(
        &mut self,
        view: &mut View,
        pid: usize,
        since: SimTime,
        effects: &mut Vec<Effect>,
    ) -> bool {
        let freed = self.free_frames(view, |frames, processes, counts, freeing| {
            frames.free_unreferenced_since(pid, since, processes, counts, freeing);
        });
        self.write_freed(view, freed, effects)
    }

    /// Runs `free`, a way of freeing frames, on the frames with the views
    /// it needs; the pages it took and the writes it made.
    pub(in crate::system::model) fn free_frames(
        &mut self,
        view: &View,
        free: impl FnOnce(&mut Frames, &Processes, &mut Counts, &mut Freeing),
    ) -> Freed {
        let (frames, _, mut counts, mut freeing) = self.freeing();
        free(frames, &view.processes, &mut counts, &mut freeing);
        freeing.done()
    }

    /// Counts the pages freeing took and asks for its page writes, in the
    /// order it made them, metered for the swapper; says whether it freed
    /// any.
    pub(in crate::system::model) fn write_freed(
        &mut self,
        view: &mut View,
        freed: Freed,
        effects: &mut Vec<Effect>,
    ) -> bool {
        self.swap.vm.transfers += u64::from(freed.to - freed.from);
        self.write_pages(view, freed, effects);
        freed.stolen > 0
    }

    /// Counts the pages freeing took and asks for its page writes, in the
    /// order it made them.
    pub(in crate::system::model) fn write_pages(
        &mut self,
        view: &mut View,
        freed: Freed,
        effects: &mut Vec<Effect>,
    ) {
        let counters = &mut view.stats.counters;
        counters.pages_stolen += freed.stolen;
        counters.page_writes += u64::from(freed.to - freed.from);
        if freed.to > freed.from {
            effects.push(Effect::PageWrites {
                from: freed.from,
                to: freed.to,
            });
        }
    }

    /// The swapper behind the clock takes `pid` out: its resident pages go
    /// to the tail of the free list, reclaimable if the system reclaims,
    /// and the bytes to write are its modified pages with its user area
    /// and page tables (3BSD `swapout`, `vsswap`).
    pub(in crate::system::model) fn push_out_pages(
        &mut self,
        view: &View,
        pid: usize,
        effects: &mut Vec<Effect>,
    ) -> u64 {
        self.swap.of[pid].swapped_rss = self.of[pid].held.resident;
        let reclaim = self.paging().reclaim;
        let (frames, _, mut counts) = self.counting();
        let modified = frames.unmap_process(pid, reclaim, &mut counts);
        effects.push(Effect::ServeFrameWaiters);
        let sys = view.sys();
        modified * sys.memory.page + user_area_bytes(sys, view.process(pid).class)
    }

    /// Meters the processor time the process of `burst` ran in it up to
    /// `upto`, past what was metered already: in its class's lifetime meter
    /// at its resident set (after the warm-up), and in the exposure of its
    /// set's text pages.
    pub(in crate::system::model) fn meter_work(
        &mut self,
        view: &mut View,
        burst: &Burst,
        upto: SimTime,
    ) {
        let pid = burst.pid;
        let class = view.process(pid).class;
        let pt = &mut self.frames.tables[pid];
        let from = burst.switch_end.max(pt.exposed_to);
        pt.exposed_to = pt.exposed_to.max(upto);
        let measured = upto.saturating_sub(from.max(view.stats.measured_from));
        let resident = self.resident_set(class, pid);
        view.stats.lifetimes[class].bin(resident).0 += measured.as_secs_f64();
        let work = upto.saturating_sub(from).as_nanos();
        let Some(text) = self.frames.texts.get_mut(class) else {
            return;
        };
        if work == 0 {
            return;
        }
        text.expose(&self.frames.tables[pid].text_ranges, work);
    }

    /// Meters the work of `class`'s processes on a processor up to now,
    /// before its text changes: a page comes in, to be decided from now on,
    /// and their resident sets grow.
    pub(in crate::system::model) fn meter_running(&mut self, view: &mut View, class: usize) {
        let (processes, now) = (view.processes, view.now);
        if !processes.class_on_processor(class) {
            return;
        }
        for burst in processes.running().iter().flatten() {
            if let BurstKind::User(_) = burst.kind
                && view.process(burst.pid).class == class
            {
                self.meter_work(view, burst, now);
            }
        }
    }
}

/// What swapping a process of `class` in or out moves besides its pages:
/// its user area of 6 pages of 512 bytes and its page tables, a 512-byte
/// page of 4-byte entries per 128 pages of 512 bytes (3BSD `h/param.h`
/// `UPAGES`, `h/vm.h` `NBPG`, `NPTEPG`).
pub(in crate::system::model) fn user_area_bytes(sys: &System, class: usize) -> u64 {
    let image = sys.classes[class].size;
    6 * 512 + image.div_ceil(128 * 512) * 512
}

/// The frames' calls as the tests make them: on the model, at a time or
/// with the calendar, what they leave to do done at once.
#[cfg(test)]
pub(in crate::system::model) trait FrameCalls {
    fn check_frames(&self);
    fn clock_fault(&mut self, cpu: usize, pid: usize, ctx: &mut Context<Event>);
    fn clock_place_page(&mut self, pid: usize, now: SimTime);
    fn clock_take_frame(&mut self, pid: usize, ctx: &mut Context<Event>) -> bool;
    fn decide_references(&mut self, f: u32);
    fn fault_frequency(&mut self, pid: usize, ctx: &mut Context<Event>) -> bool;
    fn fault_stands(&mut self, pid: usize, missing: u64) -> bool;
    fn fill_frame(&mut self, pid: usize, page: u32, f: u32, referenced: bool);
    fn fill_text_frame(&mut self, class: usize, page: u32, f: u32, now: SimTime);
    fn free_frame(&mut self, f: u32, ctx: &mut Context<Event>);
    fn kluster(&mut self, pid: usize) -> u64;
    fn meter_work(&mut self, burst: &Burst, upto: SimTime);
    fn new_phase(&mut self, pid: usize);
    fn open_at_hand(&self, f: u32) -> bool;
    fn phase_fault_gap(&mut self, pid: usize) -> SimTime;
    fn phases_of(&self, pid: usize) -> &Phases;
    fn private_fault(&mut self, pid: usize, page: u32) -> (Source, bool);
    fn resident_set(&self, pid: usize) -> u64;
    fn scan(&mut self, ctx: &mut Context<Event>);
    fn set_missing(&self, pid: usize) -> u64;
    fn set_resident(&self, pid: usize) -> u64;
    fn take_free_frame(&mut self, f: u32);
    fn text_fault(&mut self, pid: usize, page: u32, now: SimTime) -> (Source, bool);
    fn transit_done(&mut self, pid: usize) -> Vec<usize>;
    fn trim_working_set(&mut self, pid: usize, ctx: &mut Context<Event>) -> bool;
    fn unmap_frame(&mut self, f: u32) -> bool;
    fn user_area_bytes(&self, pid: usize) -> u64;
    fn wait_in_transit(&mut self, pid: usize) -> bool;
}

#[cfg(test)]
impl FrameCalls for SystemModel<'_> {
    fn check_frames(&self) {
        self.memory
            .check_frames(self.procs.iter().map(|(pid, _)| pid));
    }

    fn clock_fault(&mut self, cpu: usize, pid: usize, ctx: &mut Context<Event>) {
        self.with_memory(ctx, |m, view, fx| m.clock_fault(view, cpu, pid, fx));
    }

    fn clock_place_page(&mut self, pid: usize, now: SimTime) {
        let (memory, mut view) = self.memory_and_view(now);
        memory.clock_place_page(&mut view, pid);
    }

    fn clock_take_frame(&mut self, pid: usize, ctx: &mut Context<Event>) -> bool {
        self.with_memory(ctx, |m, view, fx| m.clock_take_frame(view, pid, fx))
    }

    fn decide_references(&mut self, f: u32) {
        let processes = Processes::of(&self.procs, self.sys, &self.cpus);
        self.memory.frames.decide_references(f, &processes);
    }

    fn fault_frequency(&mut self, pid: usize, ctx: &mut Context<Event>) -> bool {
        self.with_memory(ctx, |m, view, fx| m.fault_frequency(view, pid, fx))
    }

    fn fault_stands(&mut self, pid: usize, missing: u64) -> bool {
        let (memory, mut view) = self.memory_and_view(SimTime::ZERO);
        memory.fault_stands(&mut view, pid, missing)
    }

    fn fill_frame(&mut self, pid: usize, page: u32, f: u32, referenced: bool) {
        let (memory, view) = self.memory_and_view(SimTime::ZERO);
        memory.fill_frame(&view, pid, page, f, referenced);
    }

    fn fill_text_frame(&mut self, class: usize, page: u32, f: u32, now: SimTime) {
        let (memory, mut view) = self.memory_and_view(now);
        memory.fill_text_frame(&mut view, class, page, f);
    }

    fn free_frame(&mut self, f: u32, ctx: &mut Context<Event>) {
        self.with_memory(ctx, |m, view, fx| {
            let freed = m.free_frames(view, |frames, processes, counts, freeing| {
                frames.free_frame(f, processes, counts, freeing);
            });
            m.write_freed(view, freed, fx);
        });
    }

    fn kluster(&mut self, pid: usize) -> u64 {
        let (memory, mut view) = self.memory_and_view(SimTime::ZERO);
        memory.kluster(&mut view, pid)
    }

    fn meter_work(&mut self, burst: &Burst, upto: SimTime) {
        let (memory, mut view) = self.memory_and_view(upto);
        memory.meter_work(&mut view, burst, upto);
    }

    fn new_phase(&mut self, pid: usize) {
        let (memory, mut view) = self.memory_and_view(SimTime::ZERO);
        memory.new_phase(&mut view, pid);
    }

    fn open_at_hand(&self, f: u32) -> bool {
        let processes = Processes::of(&self.procs, self.sys, &self.cpus);
        self.memory.frames.open_at_hand(f, &processes)
    }

    fn phase_fault_gap(&mut self, pid: usize) -> SimTime {
        let (memory, mut view) = self.memory_and_view(SimTime::ZERO);
        memory.phase_fault_gap(&mut view, pid)
    }

    fn phases_of(&self, pid: usize) -> &Phases {
        super::phases_of_class(self.sys, self.procs[pid].class)
    }

    fn private_fault(&mut self, pid: usize, page: u32) -> (Source, bool) {
        let (memory, mut view) = self.memory_and_view(SimTime::ZERO);
        memory.private_fault(&mut view, pid, page)
    }

    fn resident_set(&self, pid: usize) -> u64 {
        self.memory.resident_set(self.procs[pid].class, pid)
    }

    fn scan(&mut self, ctx: &mut Context<Event>) {
        self.with_memory(ctx, |m, view, fx| m.scan(view, fx));
    }

    fn set_missing(&self, pid: usize) -> u64 {
        self.memory.set_missing(self.procs[pid].class, pid)
    }

    fn set_resident(&self, pid: usize) -> u64 {
        self.phases_of(pid).set - self.set_missing(pid)
    }

    fn take_free_frame(&mut self, f: u32) {
        let (frames, _, mut counts) = self.memory.counting();
        frames.take_free_frame(f, &mut counts);
    }

    fn text_fault(&mut self, pid: usize, page: u32, now: SimTime) -> (Source, bool) {
        let (memory, mut view) = self.memory_and_view(now);
        memory.text_fault(&mut view, pid, page)
    }

    fn transit_done(&mut self, pid: usize) -> Vec<usize> {
        self.memory.transit_done(self.procs[pid].class, pid)
    }

    fn trim_working_set(&mut self, pid: usize, ctx: &mut Context<Event>) -> bool {
        self.with_memory(ctx, |m, view, fx| m.trim_working_set(view, pid, fx))
    }

    fn unmap_frame(&mut self, f: u32) -> bool {
        let reclaim = self.memory.paging().reclaim;
        let (frames, _, mut counts) = self.memory.counting();
        frames.unmap_frame(f, reclaim, &mut counts)
    }

    fn user_area_bytes(&self, pid: usize) -> u64 {
        user_area_bytes(self.sys, self.procs[pid].class)
    }

    fn wait_in_transit(&mut self, pid: usize) -> bool {
        self.memory.wait_in_transit(self.procs[pid].class, pid)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{TEN_PAGE_SETS, give, under_fault_frequency, with_process_at};
    use super::*;

    /// A fault of `pid` on processor 0, made on memory as the core makes
    /// it, and what it leaves the core to do.
    fn fault(model: &mut SystemModel, ctx: &Context<Event>, pid: usize) -> Vec<Effect> {
        let (memory, mut view) = model.memory_and_view(ctx.now());
        let mut effects = Vec::new();
        memory.clock_fault(&mut view, 0, pid, &mut effects);
        effects
    }

    /// Under page-fault frequency, `pid` holds its 40 pages but one of
    /// its set, the first five modified, none referenced since its last
    /// fault 21 ms of processor time ago: its next fault frees them.
    fn late_fault(model: &mut SystemModel, pid: usize) {
        let ms = |n: u64| SimTime::from_nanos(n * 1_000_000);
        let missing = model.memory.frames.tables[pid].slots[0];
        for page in (0..40).filter(|&page| page != missing) {
            let f = give(model, pid, page);
            let frame = &mut model.memory.frames.frames[f as usize];
            (frame.last_ref, frame.decided, frame.modified) = (ms(1), ms(51), page < 5);
        }
        model.memory.frames.tables[pid].last_fault = ms(30);
        model.procs.set_cpu_user(pid, ms(51));
        let now_missing = model.memory.set_missing(0, pid);
        model.memory.frames.tables[pid].drawn_missing =
            u32::try_from(now_missing).expect("a small set");
    }

    #[test]
    fn a_fault_at_its_phase_end_runs_the_process_on_and_leaves_nothing_else() {
        with_process_at(TEN_PAGE_SETS, SimTime::ZERO, |model, ctx, pid| {
            let end = model.memory.frames.tables[pid].phase_end;
            model.procs.set_cpu_user(pid, end);
            let effects = fault(model, ctx, pid);
            assert!(
                matches!(effects[..], [Effect::RunOn { cpu: 0, pid: p }] if p == pid),
                "{effects:?}"
            );
            assert!(
                model.memory.frames.tables[pid].phase_end > end,
                "a new phase"
            );
            assert_eq!(model.stats.counters.faults, 0);
        });
    }

    #[test]
    fn a_fault_leaves_its_page_writes_its_fault_path_and_the_frame_waiters_in_that_order() {
        with_process_at(
            &under_fault_frequency(TEN_PAGE_SETS),
            SimTime::ZERO,
            |model, ctx, pid| {
                late_fault(model, pid);
                let effects = fault(model, ctx, pid);
                let [
                    Effect::PageWrites { from: 0, to },
                    Effect::FaultPath { cpu: 0, pid: p, .. },
                    Effect::ServeFrameWaiters,
                ] = effects[..]
                else {
                    panic!("{effects:?}")
                };
                assert_eq!(p, pid);
                // The modified pages of the 39 freed, each written once.
                assert!((4..=5).contains(&to), "{to} writes");
                assert_eq!(u64::from(to), model.stats.counters.page_writes);
                assert_eq!(model.memory.writes.len(), to as usize);
                assert_eq!(model.stats.counters.faults, 1);
            },
        );
    }

    #[test]
    fn the_core_does_what_a_call_leaves_and_nothing_stays_on_the_stack() {
        with_process_at(
            &under_fault_frequency(TEN_PAGE_SETS),
            SimTime::ZERO,
            |model, ctx, pid| {
                late_fault(model, pid);
                model.with_memory(ctx, |m, view, fx| m.clock_fault(view, 0, pid, fx));
                assert!(model.effects.is_empty() && model.memory.writes.is_empty());
                // The page writes went to the devices; the faulted page is
                // read when the fault path is done.
                let writes = model.stats.counters.page_writes;
                assert!(writes > 0);
                assert_eq!(model.stats.counters.requests, writes);
                let burst = model.cpus.running[0].expect("the fault path runs");
                assert_eq!(burst.pid, pid);
                assert!(matches!(burst.kind, BurstKind::Fault));
            },
        );
    }
}
