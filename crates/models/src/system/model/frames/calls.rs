//! The model's calls for memory as frames: they pick what the frames
//! cannot see (the process to fault, the victim by when it ran), call the
//! `Frames` part, then issue the device requests, refile processes and
//! wake whoever waits for a frame.

use super::{
    Context, Counts, Event, FrameOwner, Frames, Freeing, Governor, LONGEST_SAMPLE, Manager,
    MemoryEvent, Missing, NIL, PAGEOUT_PERIOD, PageIn, Pageout, Pages, Paging, Phases, Processes,
    Pte, Purpose, SimTime, Source, SystemModel, Transfer, bulk_capacity, phases_of_class,
};
use rand::RngExt;

impl<'a> SystemModel<'a> {
    /// A new process's page table: nothing touched, its first phase begun.
    pub(in crate::system::model) fn map_pages(&mut self, pid: usize) {
        let pages = self.procs[pid].pages as usize;
        let table = &mut self.memory.frames.tables[pid];
        table.entries = vec![Pte::Untouched; pages];
        table.slot_of = vec![NIL; pages];
        self.new_phase(pid);
    }

    /// The phase model of `pid`'s class.
    pub(super) fn phases_of(&self, pid: usize) -> &Phases {
        self.phases_of_class(self.procs[pid].class)
    }

    /// The phase model of `class`.
    pub(super) fn phases_of_class(&self, class: usize) -> &'a Phases {
        phases_of_class(self.sys, class)
    }

    /// Processor time to `pid`'s next fault, or to the end of its phase if
    /// that comes first (the burst then ends there, and `clock_fault`
    /// moves the process to its next phase).
    pub(in crate::system::model) fn phase_fault_gap(&mut self, pid: usize) -> SimTime {
        let missing = self.set_missing(pid);
        self.memory.frames.tables[pid].drawn_missing = missing;
        let p = &self.procs[pid];
        let pt = &self.memory.frames.tables[pid];
        let mean = pt.mean_time_between_faults(self.phases_of(pid), missing);
        let to_phase_end = pt.phase_end.saturating_sub(p.cpu_user);
        if !mean.is_finite() {
            return to_phase_end;
        }
        let rng = &mut self.owners[p.owner].rngs.faults;
        let e: f64 = rand_distr::Distribution::sample(&rand_distr::Exp1, rng);
        SimTime::from_secs_f64((mean * e).min(LONGEST_SAMPLE)).min(to_phase_end)
    }

    /// The resident pages of `pid`'s current locality set.
    #[cfg(test)]
    pub(super) fn set_resident(&self, pid: usize) -> u64 {
        self.phases_of(pid).set - self.set_missing(pid)
    }

    /// `pid`'s burst ended at its next fault or at the end of its phase:
    /// a new phase, and the process runs on; or a page of its set to bring
    /// in, from the free list (a reclaim), as a cleared frame, or by a read.
    /// A fault drawn when more of the set's shared text was missing than
    /// now stands with probability missing now / missing then (thinning);
    /// otherwise the process runs on.
    pub(in crate::system::model) fn clock_fault(
        &mut self,
        cpu: usize,
        pid: usize,
        ctx: &mut Context<Event>,
    ) {
        let now = ctx.now();
        let p = &self.procs[pid];
        let pt = &self.memory.frames.tables[pid];
        if p.cpu_user >= pt.phase_end {
            self.new_phase(pid);
            self.dispatch(cpu, pid, false, ctx);
            return;
        }
        let missing = self.set_missing(pid);
        if !self.fault_stands(pid, missing) {
            self.dispatch(cpu, pid, false, ctx);
            return;
        }
        let class = self.procs[pid].class;
        if now >= self.stats.measured_from {
            let resident = self.resident_set(pid);
            self.stats.lifetimes[class].bin(resident).1 += 1;
        }
        let p = &self.procs[pid];
        let pt = &self.memory.frames.tables[pid];
        let rng = &mut self.owners[p.owner].rngs.faults;
        let text = self.memory.frames.text(class);
        let drawn = pt.draw_missing(missing, text, rng);
        // The page is missing, so what page-fault frequency frees is not it.
        let freed = self.fault_frequency(pid, ctx);
        let (page, source, in_text, from_file) = match drawn {
            Missing::Private(page) => {
                let (source, from_file) = self.private_fault(pid, page);
                (page, source, false, from_file)
            }
            Missing::Text(page) => {
                let (source, from_file) = self.text_fault(pid, page, now);
                (page, source, true, from_file)
            }
        };
        self.memory.frames.tables[pid].faulting = page;
        self.fault_path(cpu, pid, source, in_text, from_file, ctx);
        // Processes waiting for frames get those freed now that the
        // processor is in the fault path, where none of them can take it.
        if freed {
            self.serve_frame_waiters(ctx);
        }
    }

    /// The fault of `pid` is on `page`, its own: where the page is, and
    /// whether it comes from the program's file; a reclaim and a
    /// revalidation are done at once.
    pub(super) fn private_fault(&mut self, pid: usize, page: u32) -> (Source, bool) {
        let class = self.procs[pid].class;
        let entry = self.memory.frames.tables[pid].entries[page as usize];
        let sys = self.sys;
        let paging = self.paging();
        let zero_fill = sys.classes[class].zero_fill;
        let (source, from_file) = match entry {
            Pte::Free(f) => {
                self.stats.counters.reclaims += 1;
                let vt = self.procs[pid].cpu_user;
                let (frames, mut counts) = self.memory.frames_and_counts();
                frames.reclaim(pid, page, f, vt, &mut counts);
                (Source::Reclaim, false)
            }
            Pte::Untouched if self.memory.streams.placement.random::<f64>() < zero_fill => {
                (Source::ZeroFill, true)
            }
            Pte::Untouched => (Source::Read(self.memory.program_device(self.sys)), true),
            Pte::Out => (Source::Read(self.memory.swap_device()), false),
            Pte::Bulk(_) => {
                // The page leaves the bulk store as it is read; until its
                // frame is taken it counts as on the drives, where the
                // bulk store's overflow cannot take it.
                let bulk = paging.bulk_store.as_ref().expect("a bulk store");
                self.memory.frames.bulk.used -= 1;
                self.memory.frames.tables[pid].entries[page as usize] = Pte::Out;
                (Source::Read(bulk.device), false)
            }
            Pte::Resident(f) => {
                // Only an invalidated page is resident and missing.
                self.stats.counters.reclaims += 1;
                self.memory.frames.revalidate(pid, page, f);
                (Source::Reclaim, false)
            }
            Pte::Reading(_) => unreachable!("a process waiting for a page does not run"),
        };
        (source, from_file)
    }

    /// Whether the fault of `pid`, drawn with more of its set missing than
    /// the `missing` pages now, stands: with probability missing now /
    /// missing then.
    pub(super) fn fault_stands(&mut self, pid: usize, missing: u64) -> bool {
        let p = &self.procs[pid];
        let pt = &self.memory.frames.tables[pid];
        let drawn = pt.drawn_missing;
        assert!(
            missing <= drawn,
            "a set's missing pages only fall in a burst"
        );
        missing == drawn || self.owners[p.owner].rngs.faults.random_range(0..drawn) < missing
    }

    /// Page-fault frequency: at a fault more than the critical interval of
    /// processor time after the previous one, the resident pages not
    /// referenced since that fault are freed (a page brought in by it
    /// counts as referenced then). Says whether it freed any.
    pub(super) fn fault_frequency(&mut self, pid: usize, ctx: &mut Context<Event>) -> bool {
        let Manager::Frames {
            governor: Governor::PageFaultFrequency { interval },
            ..
        } = self.memory.manager
        else {
            return false;
        };
        let now = self.procs[pid].cpu_user;
        let previous = std::mem::replace(&mut self.memory.frames.tables[pid].last_fault, now);
        now - previous > interval && self.free_unreferenced_since(pid, previous, ctx)
    }

    /// Takes a frame from the head of the free list for `pid`'s faulted
    /// page, waking the daemon when free memory falls below `desfree` (or,
    /// with the hand moved by faults, moving it below `lotsfree`); false if
    /// none is free.
    pub(in crate::system::model) fn clock_take_frame(
        &mut self,
        pid: usize,
        ctx: &mut Context<Event>,
    ) -> bool {
        let Manager::Frames { daemon: clock, .. } = self.memory.manager else {
            unreachable!("under the clock");
        };
        // The daemon is woken below desfree; the fault handler moves the
        // hand itself below lotsfree.
        let wake_below = match clock.pageout {
            Pageout::Daemon => clock.desfree,
            Pageout::Fault => clock.lotsfree,
        };
        let Some(f) = self.memory.frames.pop_front() else {
            self.scan(ctx);
            return false;
        };
        let owner = match self.memory.of[pid].fault_in_text {
            true => FrameOwner::text(self.procs[pid].class),
            false => FrameOwner::process(pid),
        };
        let page = self.memory.frames.tables[pid].faulting;
        let (frames, mut counts) = self.memory.frames_and_counts();
        frames.take_free_frame(f, &mut counts);
        frames.read_into(f, owner, page);
        if self.memory.pool.frames < wake_below {
            self.scan(ctx);
        }
        true
    }

    /// The page read for `pid` is in its frame: resident, referenced; and
    /// the pages klustered with it, resident but not referenced (for the
    /// working set, brought in now). A page of shared text is the text's.
    pub(in crate::system::model) fn clock_place_page(&mut self, pid: usize, now: SimTime) {
        let p = &self.procs[pid];
        let m = &self.memory.of[pid];
        let pt = &self.memory.frames.tables[pid];
        let page = pt.faulting;
        if m.fault_in_text {
            let class = p.class;
            let Pte::Reading(f) = self.memory.frames.texts[class].entries[page as usize] else {
                unreachable!("a text page is read into the frame taken for it");
            };
            self.fill_text_frame(class, page, f, now);
            return;
        }
        let Pte::Reading(f) = self.memory.frames.tables[pid].entries[page as usize] else {
            unreachable!("a page is read into the frame taken for it");
        };
        self.fill_frame(pid, page, f, true);
        for (page, f) in std::mem::take(&mut self.memory.frames.tables[pid].klustered) {
            self.fill_frame(pid, page, f, false);
        }
    }

    /// Makes `page` of `pid` resident in frame `f`, modified with its
    /// class's probability.
    pub(super) fn fill_frame(&mut self, pid: usize, page: u32, f: u32, referenced: bool) {
        let dirty = self.sys.classes[self.procs[pid].class].dirty;
        let modified =
            dirty >= 1.0 || (dirty > 0.0 && self.memory.streams.dirty.random::<f64>() < dirty);
        let vt = self.procs[pid].cpu_user;
        let (frames, mut counts) = self.memory.frames_and_counts();
        let page_in = PageIn {
            referenced,
            modified,
            at: vt,
        };
        frames.fill(pid, page, f, page_in, &mut counts);
    }

    /// Klustering: takes free frames for the other pages of the faulted
    /// page's aligned cluster that are in the swap area too, when the page
    /// is read from there, and says how many; they come in with it.
    pub(in crate::system::model) fn kluster(&mut self, pid: usize) -> u64 {
        let paging = self.paging();
        let p = &self.procs[pid];
        let m = &self.memory.of[pid];
        let from_bulk = paging
            .bulk_store
            .as_ref()
            .is_some_and(|b| m.fault_source == Source::Read(b.device));
        if paging.kluster <= 1 || m.fault_from_file || m.fault_in_text || from_bulk {
            return 0;
        }
        let (k, pages) = (paging.kluster as u32, p.pages as u32);
        let (frames, mut counts) = self.memory.frames_and_counts();
        let extra = frames.kluster(pid, k, pages, &mut counts);
        self.stats.counters.klustered += extra;
        extra
    }

    /// The daemon's once-a-second start (3BSD's `vmmeter`, called from the
    /// clock): its budget of frames for the coming second, then a scan.
    pub(in crate::system::model) fn pageout(&mut self, ctx: &mut Context<Event>) {
        let Manager::Frames {
            daemon, governor, ..
        } = self.memory.manager
        else {
            unreachable!("under the clock");
        };
        if let Governor::Clock {
            swapper: Some(settings),
        } = governor
        {
            self.vmmeter(settings);
        }
        self.memory.frames.budget = daemon.scan_budget(
            self.memory.pool.frames,
            self.memory.swap.vm.deficit,
            self.sys.memory.user_frames(),
        );
        self.scan(ctx);
        let _ = ctx.schedule_in(PAGEOUT_PERIOD, Event::Memory(MemoryEvent::Pageout));
        // The swapper looks at least once a second (3BSD wakes it with
        // `runin` from the clock).
        self.swapper(ctx);
    }

    /// The hand goes round (`Frames::hand`); what it freed is written and
    /// given to processes waiting for frames.
    pub(super) fn scan(&mut self, ctx: &mut Context<Event>) {
        let Manager::Frames { daemon, .. } = self.memory.manager else {
            unreachable!("under the clock");
        };
        let freed = self.free_frames(|frames, processes, counts, freeing| {
            frames.hand(daemon, processes, counts, freeing);
        });
        if self.write_freed(freed, ctx) {
            self.serve_frame_waiters(ctx);
        }
    }

    /// Working set: frees the resident pages of `pid` not referenced within
    /// the last `tau` of its processor time, deciding their references up
    /// to now; run when it is dispatched, as its working set only changes
    /// while it runs. Says whether it freed any: the caller gives them to
    /// processes waiting for frames once the processor is taken, so that
    /// none of them is dispatched onto it meanwhile.
    pub(in crate::system::model) fn trim_working_set(
        &mut self,
        pid: usize,
        ctx: &mut Context<Event>,
    ) -> bool {
        let Manager::Frames {
            governor: Governor::WorkingSet { tau },
            ..
        } = self.memory.manager
        else {
            return false;
        };
        let now = self.procs[pid].cpu_user;
        now >= tau && self.free_unreferenced_since(pid, now - tau, ctx)
    }

    /// Frees the resident pages of `pid` last referenced before `since` of
    /// its processor time, and writes them; says whether it freed any.
    pub(super) fn free_unreferenced_since(
        &mut self,
        pid: usize,
        since: SimTime,
        ctx: &mut Context<Event>,
    ) -> bool {
        let freed = self.free_frames(|frames, processes, counts, freeing| {
            frames.free_unreferenced_since(pid, since, processes, counts, freeing);
        });
        self.write_freed(freed, ctx)
    }

    /// Runs `free`, a way of freeing frames, on the frames with the views
    /// it needs; the pages it took and the writes it made.
    pub(super) fn free_frames(
        &mut self,
        free: impl FnOnce(&mut Frames, &Processes, &mut Counts, &mut Freeing),
    ) -> (u64, Vec<usize>) {
        let processes = Processes::of(&self.procs, self.sys, &self.cpus.running);
        let (frames, mut counts, mut freeing) = self.memory.frames_counts_and_freeing();
        free(frames, &processes, &mut counts, &mut freeing);
        freeing.done()
    }

    /// Frees the page in frame `f` (`Frames::free_frame`) and writes it.
    #[cfg(test)]
    pub(super) fn free_frame(&mut self, f: u32, ctx: &mut Context<Event>) {
        let freed = self.free_frames(|frames, processes, counts, freeing| {
            frames.free_frame(f, processes, counts, freeing);
        });
        self.write_freed(freed, ctx);
    }

    /// Counts the pages freeing took and issues its page writes, in the
    /// order it made them, metered for the swapper; says whether it freed
    /// any.
    pub(super) fn write_freed(
        &mut self,
        freed: (u64, Vec<usize>),
        ctx: &mut Context<Event>,
    ) -> bool {
        let stolen = freed.0;
        self.memory.swap.vm.transfers += freed.1.len() as u64;
        self.write_pages(freed, ctx);
        stolen > 0
    }

    /// Counts the pages freeing took and issues its page writes, in the
    /// order it made them; the buffer goes back for the next freeing.
    pub(in crate::system::model) fn write_pages(
        &mut self,
        (stolen, mut writes): (u64, Vec<usize>),
        ctx: &mut Context<Event>,
    ) {
        self.stats.counters.pages_stolen += stolen;
        self.stats.counters.page_writes += writes.len() as u64;
        let bytes = self.sys.memory.page as f64;
        for &device in &writes {
            self.request(device, Purpose::Memory(Transfer::PageWrite), bytes, ctx);
        }
        writes.clear();
        self.memory.writes = writes;
    }

    /// Accounts for frame `f`, just taken off the free list
    /// (`Frames::take_free_frame`).
    #[cfg(test)]
    pub(super) fn take_free_frame(&mut self, f: u32) {
        let (frames, mut counts) = self.memory.frames_and_counts();
        frames.take_free_frame(f, &mut counts);
    }

    /// Decides whether the page in frame `f` was referenced since it was
    /// last decided (`Frames::decide_references`).
    #[cfg(test)]
    pub(super) fn decide_references(&mut self, f: u32) {
        let processes = Processes::of(&self.procs, self.sys, &self.cpus.running);
        self.memory.frames.decide_references(f, &processes);
    }

    /// Whether a hand may take the page in frame `f`.
    #[cfg(test)]
    pub(super) fn open_at_hand(&self, f: u32) -> bool {
        let processes = Processes::of(&self.procs, self.sys, &self.cpus.running);
        self.memory.frames.open_at_hand(f, &processes)
    }

    /// Takes the page out of frame `f` (`Frames::unmap_frame`).
    #[cfg(test)]
    pub(super) fn unmap_frame(&mut self, f: u32) -> bool {
        let reclaim = self.paging().reclaim;
        let (frames, mut counts) = self.memory.frames_and_counts();
        frames.unmap_frame(f, reclaim, &mut counts)
    }

    /// The swapper behind the clock takes `pid` out: its resident pages go
    /// to the tail of the free list, reclaimable if the system reclaims,
    /// and the bytes to write are its modified pages with its user area
    /// and page tables (3BSD `swapout`, `vsswap`).
    pub(in crate::system::model) fn push_out_pages(
        &mut self,
        pid: usize,
        ctx: &mut Context<Event>,
    ) -> u64 {
        self.memory.swap.of[pid].swapped_rss = self.memory.of[pid].held.resident;
        let reclaim = self.paging().reclaim;
        let (frames, mut counts) = self.memory.frames_and_counts();
        let modified = frames.unmap_process(pid, reclaim, &mut counts);
        self.serve_frame_waiters(ctx);
        modified * self.sys.memory.page + self.user_area_bytes(pid)
    }

    /// What swapping `pid` in or out moves besides its pages: its user
    /// area of 6 pages of 512 bytes and its page tables, a 512-byte page
    /// of 4-byte entries per 128 pages of 512 bytes (3BSD `h/param.h`
    /// `UPAGES`, `h/vm.h` `NBPG`, `NPTEPG`).
    pub(in crate::system::model) fn user_area_bytes(&self, pid: usize) -> u64 {
        let image = self.sys.classes[self.procs[pid].class].size;
        6 * 512 + image.div_ceil(128 * 512) * 512
    }

    /// The paging settings (memory as frames, or klustering's look under
    /// any paging).
    pub(super) fn paging(&self) -> &'a Paging {
        self.memory.manager.paging().expect("under paging")
    }

    /// `pid` moves to its next phase (`Frames::new_phase`).
    pub(super) fn new_phase(&mut self, pid: usize) {
        let processes = Processes::of(&self.procs, self.sys, &self.cpus.running);
        let rng = &mut self.owners[self.procs[pid].owner].rngs.faults;
        self.memory.frames.new_phase(pid, &processes, rng);
    }

    /// Adds `work` of processor time at `pid`'s resident set size to its
    /// class's lifetime meter.
    pub(in crate::system::model) fn meter_lifetime(&mut self, pid: usize, work: f64) {
        let resident = self.resident_set(pid);
        self.stats.lifetimes[self.procs[pid].class].bin(resident).0 += work;
    }

    /// Rechecks memory as frames (debug builds).
    #[cfg(debug_assertions)]
    pub(in crate::system::model) fn check_frames(&self) {
        let processes: Vec<(usize, Pages)> = self
            .procs
            .iter()
            .map(|(pid, _)| (pid, self.memory.of[pid].held))
            .collect();
        let texts: Vec<Pages> = self.memory.texts.iter().map(|t| t.held).collect();
        self.memory.frames.check(
            self.memory.pool.frames,
            &processes,
            &texts,
            bulk_capacity(self.paging()).map(|(_, capacity)| capacity),
            |pid| self.memory.of[pid].fault_source == Source::InTransit,
        );
    }
}
