//! Demand paging: page faults from each process's lifetime function,
//! frames from a free pool that global replacement refills, and a bulk
//! store in front of the paging disk.

use super::*;

impl SystemModel<'_> {
    /// Processor time to the next page fault of `pid` at its current
    /// resident set.
    pub(super) fn fault_gap(&mut self, pid: usize) -> SimTime {
        let p = &self.procs[pid];
        let (true, Some(lifetime)) = (self.paging(), self.sys.classes[p.class].locality) else {
            return SimTime::MAX;
        };
        let mean = lifetime.mean_time_between_faults(p.resident, p.pages);
        if !mean.is_finite() {
            return SimTime::MAX;
        }
        let rng = &mut self.owners[p.owner].rngs.faults;
        let e: f64 = rand_distr::Distribution::sample(&rand_distr::Exp1, rng);
        SimTime::from_secs_f64((mean * e).min(LONGEST_SAMPLE))
    }

    /// A page fault: decide where the page is, then run the kernel's fault
    /// path on the same processor.
    pub(super) fn fault(&mut self, cpu: usize, pid: usize, ctx: &mut Context<Event>) {
        let now = ctx.now();
        let Policy::Paging(paging) = &self.sys.memory.policy else {
            unreachable!("faults only under paging");
        };
        let p = &self.procs[pid];
        let device = match &paging.bulk_store {
            None => paging.device,
            Some(bulk) => {
                let u: f64 = self.placement_rng.random();
                let on_bulk = match bulk.placement {
                    Placement::DiskFraction(f) => u >= f,
                    Placement::Capacity(_) => {
                        let missing = p.pages - p.resident;
                        (u * missing as f64) < p.on_bulk as f64
                    }
                };
                if on_bulk { bulk.device } else { paging.device }
            }
        };
        let p = &mut self.procs[pid];
        p.faults += 1;
        p.fault_started = now;
        p.fault_device = device;
        if p.on_bulk > 0
            && paging
                .bulk_store
                .as_ref()
                .is_some_and(|b| b.device == device)
        {
            p.on_bulk -= 1;
            self.bulk_used -= 1;
        }
        self.counters.faults += 1;
        if paging
            .bulk_store
            .as_ref()
            .is_some_and(|b| b.device == device)
        {
            self.counters.bulk_reads += 1;
        } else {
            self.counters.disk_reads += 1;
        }
        let cost = self.sys.devices[device].fault_cpu;
        let burst = Burst {
            pid,
            kind: BurstKind::Fault,
            start: now,
            switch_end: now,
            end: now + cost,
        };
        self.running[cpu] = Some(burst);
        self.burst_keys[cpu] = Some(ctx.schedule_at(burst.end, Event::BurstEnd { cpu }));
    }

    /// Finds a frame for `pid`'s faulted page and starts the read, or
    /// queues the process until a frame is free.
    pub(super) fn page_in(&mut self, pid: usize, ctx: &mut Context<Event>) {
        if self.take_frame(pid, ctx) {
            let device = self.procs[pid].fault_device;
            let bytes = self.sys.memory.page as f64;
            self.request(device, Purpose::PageRead { pid }, bytes, ctx);
        } else {
            self.procs[pid].waiting_frame = true;
            self.recount(pid, ctx.now(), |_| {});
            self.frame_waiters.push_back(pid);
        }
    }

    /// Takes a frame for `pid`: a free one, else one stolen from the
    /// process that ran least recently, else one of its own.
    pub(super) fn take_frame(&mut self, pid: usize, ctx: &mut Context<Event>) -> bool {
        let Policy::Paging(paging) = &self.sys.memory.policy else {
            unreachable!("frames only under paging");
        };
        let target = paging.free_target;
        if self.free_frames == 0 {
            self.steal(1, Some(pid), ctx);
        }
        let got = if self.free_frames > 0 {
            self.free_frames -= 1;
            true
        } else if self.procs[pid].resident > 0 {
            self.evict(pid, 1, ctx);
            self.free_frames -= 1;
            true
        } else {
            false
        };
        // The page daemon keeps `target` frames free.
        if self.free_frames < target {
            self.steal(target - self.free_frames, Some(pid), ctx);
        }
        got
    }

    /// Takes up to `wanted` frames from other processes into the free pool,
    /// least recently run first; never from a running process or `spare`.
    pub(super) fn steal(
        &mut self,
        mut wanted: u64,
        spare: Option<usize>,
        ctx: &mut Context<Event>,
    ) {
        while wanted > 0 {
            let victim = self
                .procs
                .iter()
                .filter(|&(pid, p)| {
                    Some(pid) != spare && p.resident > 0 && p.state != State::Running
                })
                .min_by_key(|&(pid, p)| (p.last_run, pid))
                .map(|(pid, _)| pid);
            let Some(victim) = victim else { return };
            let n = wanted.min(self.procs[victim].resident);
            self.evict(victim, n, ctx);
            wanted -= n;
        }
    }

    /// Moves `n` of `pid`'s pages out of memory into the free pool,
    /// writing back what must be written.
    pub(super) fn evict(&mut self, pid: usize, n: u64, ctx: &mut Context<Event>) {
        let Policy::Paging(paging) = &self.sys.memory.policy else {
            unreachable!("eviction only under paging");
        };
        let p = &mut self.procs[pid];
        p.resident -= n;
        self.free_frames += n;
        self.counters.pages_stolen += n;
        let dirty = self.sys.classes[p.class].dirty;
        let page = self.sys.memory.page as f64;
        let (writes, device) = match &paging.bulk_store {
            Some(bulk) if matches!(bulk.placement, Placement::Capacity(_)) => {
                // Every page leaving memory goes to the bulk store.
                p.on_bulk += n;
                p.bulk_entries += n;
                self.bulk_used += n;
                for _ in 0..n {
                    self.bulk_age.push_back((pid, p.generation));
                }
                (n, bulk.device)
            }
            bulk => {
                let writes = match dirty {
                    d if d <= 0.0 => 0,
                    d if d >= 1.0 => n,
                    d => (0..n)
                        .filter(|_| self.dirty_rng.random::<f64>() < d)
                        .count() as u64,
                };
                (writes, bulk.as_ref().map_or(paging.device, |b| b.device))
            }
        };
        self.counters.page_writes += writes;
        for _ in 0..writes {
            self.request(device, Purpose::PageWrite, page, ctx);
        }
        self.overflow_bulk(ctx);
    }

    /// Pushes the bulk store's oldest pages on to the disk while it holds
    /// more than its capacity.
    pub(super) fn overflow_bulk(&mut self, ctx: &mut Context<Event>) {
        let Policy::Paging(paging) = &self.sys.memory.policy else {
            return;
        };
        let Some(bulk) = &paging.bulk_store else {
            return;
        };
        let Placement::Capacity(capacity) = bulk.placement else {
            return;
        };
        let page = self.sys.memory.page as f64;
        while self.bulk_used > capacity {
            let (pid, generation) = self
                .bulk_age
                .pop_front()
                .expect("pages on the bulk store have entries in its age queue");
            let Some(p) = self
                .procs
                .get_mut(pid)
                .filter(|p| p.generation == generation)
            else {
                continue;
            };
            p.bulk_entries -= 1;
            // Entries beyond the pages still held are of pages read back.
            if p.bulk_entries >= p.on_bulk {
                continue;
            }
            p.on_bulk -= 1;
            self.bulk_used -= 1;
            self.counters.page_writes += 1;
            self.request(paging.device, Purpose::PageWrite, page, ctx);
        }
        // Drop stale entries now and then, so the queue stays bounded.
        if self.bulk_age.len() as u64 > 2 * capacity.max(1024) {
            self.compact_bulk_age();
        }
    }

    /// Keeps, for each live process, only its newest `on_bulk` entries.
    pub(super) fn compact_bulk_age(&mut self) {
        let mut keep: Vec<(usize, u64)> = Vec::with_capacity(self.bulk_used as usize);
        for &(pid, generation) in self.bulk_age.iter().rev() {
            if let Some(p) = self
                .procs
                .get_mut(pid)
                .filter(|p| p.generation == generation)
                && p.bulk_entries > 0
            {
                let kept_so_far = keep.iter().filter(|e| e.0 == pid).count() as u64;
                if kept_so_far < p.on_bulk {
                    keep.push((pid, generation));
                }
            }
        }
        for p in self.procs.iter_mut().map(|(_, p)| p) {
            p.bulk_entries = 0;
        }
        for &(pid, _) in &keep {
            self.procs[pid].bulk_entries += 1;
        }
        keep.reverse();
        self.bulk_age = keep.into();
    }

    pub(super) fn serve_frame_waiters(&mut self, ctx: &mut Context<Event>) {
        while self.free_frames > 0 {
            let Some(pid) = self.frame_waiters.pop_front() else {
                return;
            };
            self.procs[pid].waiting_frame = false;
            self.recount(pid, ctx.now(), |_| {});
            self.page_in(pid, ctx);
        }
    }
}
