//! The 3BSD swapper behind the clock: the load control of a global policy.
//! When paging cannot keep up it swaps whole processes out, freeing their
//! pages, and it brings them back when memory allows (3BSD `vmsched.c`
//! `sched` and `vmmeter`, `vmswap.c`, `vmdrum.c` `vsswap`).
//!
//! Once a second the clock averages free memory and the rate of page
//! transfers over 5 s (3BSD's `ave`: `x = (4x + now) / 5`), lets the memory
//! promised to processes just swapped in (`deficit`) decay by a tenth or by
//! `maxpgio / 2` frames, whichever is more, and the swapper looks. It also
//! looks when a swapped-out process becomes runnable and when a swap ends;
//! it does one swap at a time. In 3BSD's order:
//!
//! 1. Paging cannot keep up (*desperate*): more than one process in memory,
//!    average free memory below `desfree`, and either more than `maxpgio`
//!    page transfers a second or average free memory below `minfree`. Go to
//!    4 and swap a process out, whatever wants in.
//! 2. While free memory is below `desfree`, a process asleep in memory for
//!    longer than `maxslp` is swapped out.
//! 3. The runnable process that has been out longest comes in if free
//!    memory exceeds what is promised to others (at most `lotsfree`) plus
//!    half its resident set when it went out (at most `2 maxpgio`), or if
//!    that resident set was under `2 maxpgio` frames and free memory is
//!    above `desfree`. Otherwise go to 4.
//! 4. Swap out the process asleep longest, if asleep beyond `maxslp`; else
//!    the process in memory longest, if it has been in at least 5 s and,
//!    unless desperate, the process wanting in has been out at least 5 s.
//!    Otherwise wait for the next look.
//!
//! Swapping out frees the process's resident pages to the free list, where
//! they stay reclaimable, and writes its modified pages with its user area
//! and page tables in one transfer; swapping in reads the user area and
//! page tables back, and the pages return by faults (3BSD's `swapin` sets
//! the resident set size to 0).
//!
//! Where tpsim is simpler than 3BSD: 3BSD ranks who comes in by time out
//! less a size penalty and `nice`, and who goes out by time in with a size
//! bonus; tpsim takes the longest out and the longest in (times capped at
//! 127 s as 3BSD's byte counters are). 3BSD's paging rate is the faults of
//! the processes in memory; tpsim's counts the page reads and writes.

use super::SimTime;
use super::candidates::Candidates;
use super::swapping::{Step, Swapper};
use crate::system::{ClockDaemon, PagingSwapper};

/// 3BSD swaps a process out for one wanting in only once each has been
/// where it is this long (`outpri >= 5 && inpri >= 5`, in seconds).
const HARD_SWAP_AGE: SimTime = SimTime::from_secs(5);

/// The meters the swapper behind the clock decides by (3BSD `vmmeter`,
/// updated once a second).
#[derive(Debug)]
pub(super) struct VmMeter {
    /// Free frames, averaged over 5 s (3BSD `avefree`).
    pub(super) avefree: f64,
    /// Page transfers this second (3BSD `v_pgin + v_pgout`) ...
    pub(super) transfers: u64,
    /// ... and their rate averaged over 5 s.
    pub(super) transfer_rate: f64,
    /// Frames promised to processes just swapped in, decaying (3BSD
    /// `deficit`).
    pub(super) deficit: u64,
}

impl VmMeter {
    /// The meters of `frames` free frames, before anything ran.
    pub(super) fn new(frames: u64) -> VmMeter {
        VmMeter {
            avefree: frames as f64,
            transfers: 0,
            transfer_rate: 0.0,
            deficit: 0,
        }
    }

    /// The once-a-second update with `free` frames free: the averages
    /// take a fifth of the new second, the deficit decays by a tenth or
    /// by `maxpgio / 2` frames, whichever is more.
    pub(super) fn tick(&mut self, free: u64, maxpgio: f64) {
        let decay = (self.deficit / 10).max((maxpgio / 2.0) as u64);
        self.deficit -= self.deficit.min(decay);
        self.avefree = (4.0 * self.avefree + free as f64) / 5.0;
        self.transfer_rate = (4.0 * self.transfer_rate + self.transfers as f64) / 5.0;
        self.transfers = 0;
    }
}

impl Swapper {
    /// The 3BSD swapper's look at `now` with `free` frames free, under
    /// `clock` and its swapper's `settings` (module docs); `may_take` a
    /// process in memory. A process let in is promised its resident set
    /// when it went out (`deficit`).
    pub(super) fn bsd_step(
        &mut self,
        candidates: &mut Candidates,
        (now, free): (SimTime, u64),
        (clock, settings): (&ClockDaemon, PagingSwapper),
        may_take: impl Fn(usize) -> bool,
    ) -> Step {
        if self.busy {
            return Step::Idle;
        }
        let vm = &self.vm;
        let desperate = self.loaded > 1
            && vm.avefree < clock.desfree as f64
            && (vm.transfer_rate > settings.maxpgio || vm.avefree < clock.minfree as f64);
        let long_asleep = candidates
            .longest_asleep()
            .filter(|&(since, _)| now - since > settings.maxslp)
            .map(|(_, pid)| pid);
        let mut wanting = None;
        if !desperate {
            if free < clock.desfree
                && let Some(pid) = long_asleep
            {
                return Step::Out(pid);
            }
            let Some(pid) = candidates.longest_out() else {
                return Step::Idle;
            };
            let rss = self.of[pid].swapped_rss;
            let burst = (2.0 * settings.maxpgio) as u64;
            let promised = self.vm.deficit.min(clock.lotsfree);
            if free > promised + (rss / 2).min(burst) || (rss < burst && free > clock.desfree) {
                self.vm.deficit += rss;
                return Step::In(pid);
            }
            wanting = Some(pid);
        }
        let waited = desperate || wanting.is_some_and(|pid| self.age(pid, now) >= HARD_SWAP_AGE);
        // A process in a kernel path is left for the next look.
        let victim = long_asleep.or_else(|| {
            candidates
                .longest_in(now)
                .filter(|&pid| waited && self.age(pid, now) >= HARD_SWAP_AGE && may_take(pid))
        });
        victim.map_or(Step::Idle, Step::Out)
    }
}

#[cfg(test)]
mod tests {
    use super::super::frames::tests::{
        FrameCalls, device, give, hundred_page_images, modify, with_process_at,
    };
    use super::*;
    use crate::system::model::memory::{Governor, Manager, Transfer};
    use crate::system::model::{
        Burst, BurstKind, Change, Context, Event, Outcome, Owner, OwnerKind, Purpose, Residence,
        State, SystemModel,
    };

    /// 64 frames, 100-page processes, pages reclaimable; `lotsfree` and
    /// `desfree` 8 pages, `minfree` 4, the swapper's defaults otherwise.
    fn clocked() -> String {
        hundred_page_images("reclaim = true\nminfree = \"4KiB\"")
    }

    fn settings(model: &SystemModel) -> PagingSwapper {
        match model.memory.manager {
            Manager::Frames {
                governor: Governor::Clock { swapper },
                ..
            } => swapper.expect("on by default"),
            _ => unreachable!("memory as frames under the clock"),
        }
    }

    fn secs(s: u64) -> SimTime {
        SimTime::from_secs(s)
    }

    /// A second process, spawned at the clock's time, off a processor.
    fn another(model: &mut SystemModel, ctx: &Context<Event>) -> usize {
        let owner = model
            .owners
            .insert(Owner::new(OwnerKind::Detached, &model.streams, "other"));
        model.spawn(0, owner, true, ctx.now())
    }

    #[test]
    fn a_process_asleep_beyond_maxslp_goes_out_only_while_memory_is_short() {
        // (asleep since, pages resident of 64, swapped out?): maxslp is
        // 20 s, desfree 8 pages.
        for (asleep_since, pages, out) in [
            (0, 60, true),
            (15, 60, false),
            (10, 60, false), // asleep exactly maxslp
            (0, 56, false),  // exactly desfree free
            (0, 50, false),
        ] {
            with_process_at(&clocked(), secs(30), |model, ctx, pid| {
                for page in 0..pages {
                    let f = give(model, pid, page);
                    if page < 5 {
                        modify(model, f);
                    }
                }
                model.procs[pid].last_run = secs(asleep_since);
                model.reindex(pid);
                model.swapper(ctx);
                let what = format!("asleep since {asleep_since} s, {pages} pages resident");
                assert_eq!(
                    model.procs[pid].residence == Residence::MovingOut,
                    out,
                    "{what}"
                );
                if out {
                    // Its pages are free and reclaimable; the five modified
                    // are written with its user area and page tables.
                    assert_eq!(model.memory.pool.frames, 64, "{what}");
                    let p = &model.memory.of[pid];
                    assert_eq!((p.held.resident, p.held.reclaimable), (0, 60));
                    assert_eq!(model.memory.swap.of[pid].swapped_rss, 60);
                    assert_eq!(model.user_area_bytes(pid), 6 * 512 + 2 * 512);
                    let disk = &model.devices[device(model, "disk")];
                    let write = disk.in_service().expect("the swap-out is written");
                    assert!(
                        matches!(write.purpose, Purpose::Memory(Transfer::SwapOut { pid: out }) if out == pid)
                    );
                    assert_eq!(write.bytes, (5 * 1024 + 6 * 512 + 2 * 512) as f64);
                    model.check_frames();
                }
            });
        }
    }

    #[test]
    fn when_paging_cannot_keep_up_the_process_in_longest_goes_out() {
        // (transfers a second, average free, seconds the first has been
        // in, swapped out?)
        for (rate, avefree, in_for, out) in [
            (41.0, 7.0, 10, true),
            (40.0, 7.0, 10, false), // exactly maxpgio
            (39.0, 7.0, 10, false),
            (0.0, 3.9, 10, true), // below minfree
            (0.0, 4.0, 10, false),
            (41.0, 8.0, 10, false),
            (41.0, 7.0, 4, false),
        ] {
            with_process_at(&clocked(), secs(30), |model, ctx, first| {
                let second = another(model, ctx);
                model.memory.swap.of[first].last_swap = secs(30 - in_for);
                model.reindex(first);
                for page in 0..30 {
                    give(model, first, page);
                    give(model, second, page);
                }
                (
                    model.memory.swap.vm.transfer_rate,
                    model.memory.swap.vm.avefree,
                ) = (rate, avefree);
                model.swapper(ctx);
                let what = format!("{rate}/s, {avefree} free on average, in {in_for} s");
                assert_eq!(
                    model.procs[first].residence == Residence::MovingOut,
                    out,
                    "{what}"
                );
                assert_eq!(model.procs[second].residence, Residence::In, "{what}");
            });
        }
    }

    #[test]
    fn the_only_process_in_memory_is_not_swapped_out_for_paging() {
        with_process_at(&clocked(), secs(30), |model, ctx, pid| {
            model.memory.swap.of[pid].last_swap = secs(20);
            model.reindex(pid);
            for page in 0..60 {
                give(model, pid, page);
            }
            (
                model.memory.swap.vm.transfer_rate,
                model.memory.swap.vm.avefree,
            ) = (41.0, 1.0);
            model.swapper(ctx);
            assert_eq!(model.procs[pid].residence, Residence::In);
        });
    }

    #[test]
    fn a_process_comes_back_in_when_memory_covers_part_of_what_it_held() {
        // `lotsfree` and `desfree` 8, `2 maxpgio` 80: (frames free, resident
        // pages when it went out, frames promised to others, comes in?).
        for (free, rss, deficit, comes_in) in [
            (40, 60, 0, true),    // 40 > 0 + 30
            (30, 60, 0, true),    // not 30 > 30, but 60 < 80 and 30 > 8
            (30, 100, 0, false),  // not 30 > 50, and 100 pages is many
            (55, 100, 0, true),   // 55 > 0 + 50
            (55, 100, 8, false),  // not 55 > 8 + 50
            (59, 100, 100, true), // 59 > 8 + 50: promises count up to lotsfree
            (50, 100, 0, false),  // not 50 > 50
            (30, 80, 0, false),   // not 30 > 40, and 80 pages is not under 80
            (8, 10, 8, false),    // not 8 > 8 + 5, and not more than desfree free
        ] {
            with_process_at(&clocked(), secs(30), |model, ctx, pid| {
                let other = another(model, ctx);
                for page in 0..64 - free {
                    give(model, other, page);
                }
                model.memory.swap.of[pid].swapped_rss = rss;
                model.recount(pid, ctx.now(), Change::Residence(Residence::Out));
                model.recount(pid, ctx.now(), Change::State(State::Runnable));
                model.memory.swap.vm.deficit = deficit;
                model.swapper(ctx);
                let what = format!("{free} free, {rss} pages held, {deficit} promised");
                assert_eq!(
                    model.procs[pid].residence == Residence::MovingIn,
                    comes_in,
                    "{what}"
                );
                let deficit_after = if comes_in { deficit + rss } else { deficit };
                assert_eq!(model.memory.swap.vm.deficit, deficit_after, "{what}");
                // Out for less than 5 s, it pushes nobody out.
                assert_eq!(model.procs[other].residence, Residence::In, "{what}");
            });
        }
    }

    #[test]
    fn one_out_for_5_s_that_cannot_come_in_pushes_out_the_one_in_longest() {
        // (seconds the one wanting in has been out, swapped out?)
        for (out_for, pushed) in [(5, true), (4, false)] {
            with_process_at(&clocked(), secs(30), |model, ctx, wanting| {
                let other = another(model, ctx);
                model.memory.swap.of[other].last_swap = secs(20);
                model.reindex(other);
                for page in 0..60 {
                    give(model, other, page);
                }
                let t = &mut model.memory.swap.of[wanting];
                (t.swapped_rss, t.last_swap) = (100, secs(30 - out_for));
                model.recount(wanting, ctx.now(), Change::Residence(Residence::Out));
                model.recount(wanting, ctx.now(), Change::State(State::Runnable));
                model.swapper(ctx);
                let what = format!("out for {out_for} s");
                assert_eq!(
                    model.procs[other].residence == Residence::MovingOut,
                    pushed,
                    "{what}"
                );
                assert_eq!(model.procs[wanting].residence, Residence::Out, "{what}");
            });
        }
    }

    #[test]
    fn a_process_in_a_kernel_path_is_seen_there() {
        with_process_at(&clocked(), secs(30), |model, ctx, pid| {
            let other = another(model, ctx);
            let burst = |pid, kind| Burst {
                pid,
                kind,
                start: secs(30),
                interrupt_end: secs(30),
                switch_end: secs(30),
                end: secs(31),
            };
            for kind in [BurstKind::Fault, BurstKind::SegmentFault] {
                model.cpus.running[0] = Some(burst(pid, kind));
                assert!(model.cpus.in_kernel_path(pid));
                assert!(!model.cpus.in_kernel_path(other));
            }
            model.cpus.running[0] = Some(burst(pid, BurstKind::User(Outcome::Done)));
            assert!(!model.cpus.in_kernel_path(pid));
        });
    }

    #[test]
    fn a_second_of_the_meters_weighs_a_fifth_and_the_deficit_decays_by_a_tenth_or_more() {
        let mut vm = VmMeter::new(100);
        (vm.transfers, vm.deficit) = (50, 1_000);
        vm.tick(0, 40.0);
        assert_eq!(
            (vm.avefree, vm.transfer_rate, vm.transfers),
            (80.0, 10.0, 0)
        );
        assert_eq!(vm.deficit, 900, "a tenth of 1,000 is more than maxpgio / 2");
        vm.tick(100, 40.0);
        assert_eq!((vm.avefree, vm.transfer_rate), (84.0, 8.0));
        assert_eq!(vm.deficit, 810);
        vm.deficit = 30;
        vm.tick(100, 40.0);
        assert_eq!(
            vm.deficit, 10,
            "maxpgio / 2 = 20 frames is more than a tenth"
        );
        vm.tick(100, 40.0);
        assert_eq!(vm.deficit, 0, "never below nothing");
    }

    #[test]
    fn the_meters_average_over_five_seconds_and_the_deficit_decays() {
        with_process_at(&clocked(), secs(30), |model, _, _| {
            let maxpgio = settings(model);
            model.memory.swap.vm.avefree = 0.0;
            model.memory.swap.vm.transfers = 50;
            model.memory.swap.vm.deficit = 100;
            model
                .memory
                .swap
                .vm
                .tick(model.memory.pool.frames, maxpgio.maxpgio);
            assert_eq!(model.memory.swap.vm.avefree, 64.0 / 5.0);
            assert_eq!(model.memory.swap.vm.transfer_rate, 10.0);
            assert_eq!(model.memory.swap.vm.transfers, 0);
            // A tenth, or maxpgio / 2 = 20 frames, whichever is more.
            assert_eq!(model.memory.swap.vm.deficit, 80);
            model.memory.swap.vm.deficit = 300;
            model
                .memory
                .swap
                .vm
                .tick(model.memory.pool.frames, maxpgio.maxpgio);
            assert_eq!(model.memory.swap.vm.deficit, 270);
        });
    }
}
