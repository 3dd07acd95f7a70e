//! Swapping: the UNIX V7 swapper moving whole images in and out.
//!
//! A class's shared text is in memory while any process of the class is (V7
//! counts them in `x_ccount`): a swap-in reads the text only if no process
//! of the class is in memory already, and a swap-out writes only the
//! private part, text being read-only.
//!
//! The swapper's look is one method of the model for both swappers
//! (`SystemModel::swapper`): `MemoryState::swapper_step` asks the one the
//! policy has (V7's `Swapper::v7_step` here, 3BSD's `bsd_step` in
//! `paged_swapper`) what to do, and the model does it.

use super::candidates::Candidates;
use super::frames::user_area_bytes;
use super::memory::{Governor, Manager, MemoryEvent, MemoryState, Transfer};
use super::paged_swapper::VmMeter;
use super::users::Users;
use super::{
    Change, Context, Event, FileTransfer, PerProcess, Purpose, Residence, SimTime, State,
    SystemModel,
};
use crate::system::System;

/// V7 swapper: a process must have been out this long before the swapper
/// pushes a runnable process out for it.
const SWAP_OUT_WAIT: SimTime = SimTime::from_secs(3);
/// V7 swapper: a runnable victim must have been in memory this long.
const SWAP_IN_STAY: SimTime = SimTime::from_secs(2);
/// V7 swapper: ages stop counting here (`p_time` is a byte capped at 127).
pub(super) const AGE_CAP: SimTime = SimTime::from_secs(127);
/// V7 swapper: how often it looks again when it could not act.
const SWAPPER_RETRY: SimTime = SimTime::from_secs(1);

/// Free memory under swapping, and the swapper's state.
#[derive(Debug)]
pub(super) struct Swapper {
    /// User memory not held by an image or a text \[bytes\].
    pub(super) free_bytes: u64,
    /// A swap is under way: the swapper does one at a time.
    pub(super) busy: bool,
    /// The swapper will look again (`SWAPPER_RETRY`) when it could not act.
    pub(super) retry: bool,
    /// Processes in memory (3BSD `multprog`).
    pub(super) loaded: u32,
    /// Under the clock: the meters its swapper decides by.
    pub(super) vm: VmMeter,
    /// Each process's swap times, by its slot.
    pub(super) of: PerProcess<SwapTimes>,
}

/// What a swapper decides at one look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// Nothing to do: a swap is under way, or no one wants in, or memory
    /// allows no move now.
    Idle,
    /// A new command, created while memory was short, gets its memory and
    /// reads its image by exec; look again at once.
    Exec(usize),
    /// The process comes in.
    In(usize),
    /// The process goes out.
    Out(usize),
    /// Someone wants in but no one may go out yet: look again later.
    LookLater,
}

/// What the swappers keep of each process.
#[derive(Clone, Copy, Debug)]
pub(super) struct SwapTimes {
    /// When its image last moved in or out (created: when it was made).
    pub(super) last_swap: SimTime,
    /// The swapper behind the clock: its resident pages when it was last
    /// swapped out (3BSD `p_swrss`).
    pub(super) swapped_rss: u64,
    /// Under swapping: the bytes of memory taken as its image last came
    /// in (its text too, if no other process of its class had it), which
    /// exec reads from the program's file.
    pub(super) loaded: u64,
}

impl Swapper {
    /// `pid` is a new process, created at `now`.
    pub(super) fn enter(&mut self, pid: usize, now: SimTime) {
        let times = SwapTimes {
            last_swap: now,
            swapped_rss: 0,
            loaded: 0,
        };
        self.of.insert(pid, times);
    }

    /// How long `pid`'s image has been where it is at `now`, capped at
    /// `AGE_CAP` (V7's `p_time` is a byte).
    pub(super) fn age(&self, pid: usize, now: SimTime) -> SimTime {
        (now - self.of[pid].last_swap).min(AGE_CAP)
    }

    /// The V7 swapper's look at `now` (V7 `sched`): the runnable process
    /// out longest comes in if its image fits (`load`: the bytes it needs
    /// and whether exec has still to read it); otherwise a sleeper in
    /// memory goes out, the largest first, or once the one wanting in has
    /// been out `SWAP_OUT_WAIT`, the process in longest if it has been in
    /// `SWAP_IN_STAY` and `may_take` it.
    pub(super) fn v7_step(
        &self,
        candidates: &mut Candidates,
        now: SimTime,
        load: impl FnOnce(usize) -> (u64, bool),
        may_take: impl Fn(usize) -> bool,
    ) -> Step {
        if self.busy {
            return Step::Idle;
        }
        let Some(pid) = candidates.longest_out() else {
            return Step::Idle;
        };
        let out_for = self.age(pid, now);
        match load(pid) {
            (image, true) if self.free_bytes >= image => return Step::Exec(pid),
            (image, false) if self.free_bytes >= image => return Step::In(pid),
            _ => {}
        }
        let victim = candidates.largest_sleeper().or_else(|| {
            if out_for < SWAP_OUT_WAIT {
                return None;
            }
            candidates
                .longest_in(now)
                .filter(|&q| self.age(q, now) >= SWAP_IN_STAY && may_take(q))
        });
        victim.map_or(Step::LookLater, Step::Out)
    }

    /// A process came into memory (`is_in`) or left it.
    pub(super) fn count_loaded(&mut self, is_in: bool) {
        self.loaded = if is_in {
            self.loaded + 1
        } else {
            self.loaded - 1
        };
    }

    /// Checks free memory against `used`, the bytes the images and texts
    /// in memory take, of `user_bytes` (debug builds).
    #[cfg(debug_assertions)]
    pub(super) fn check(&self, user_bytes: u64, used: u64) {
        assert_eq!(
            self.free_bytes + used,
            user_bytes,
            "user memory is free or holds an image or a text"
        );
    }

    /// A swap in or out starts: the swapper waits for it.
    pub(super) fn started(&mut self) {
        self.busy = true;
    }

    /// The swap of `pid` is done at `now`: the swapper is free, and `now`
    /// is `pid`'s last swap.
    pub(super) fn finished(&mut self, pid: usize, now: SimTime) {
        self.busy = false;
        self.of[pid].last_swap = now;
    }

    /// The swapper could not act and looks again later: whether that look
    /// is to be scheduled (one pending at a time, not one per failed look).
    pub(super) fn look_later(&mut self) -> bool {
        !std::mem::replace(&mut self.retry, true)
    }

    /// The look later is due.
    pub(super) fn look_again(&mut self) {
        assert!(
            std::mem::take(&mut self.retry),
            "a swapper look fired that was not pending"
        );
    }

    /// The swapper of `bytes` of free user memory in `frames` frames.
    pub(super) fn new(bytes: u64, frames: u64) -> Swapper {
        Swapper {
            free_bytes: bytes,
            busy: false,
            retry: false,
            loaded: 0,
            vm: VmMeter::new(frames),
            of: PerProcess::default(),
        }
    }
}

impl SystemModel<'_> {
    /// The swapper looks (V7's under swapping, 3BSD's behind the clock
    /// unless switched off, none under the other policies), and does what
    /// it decided: a new command's exec, after which it looks again at
    /// once; a swap in or out; or a look again later.
    pub(super) fn swapper(&mut self, ctx: &mut Context<Event>) {
        loop {
            let now = ctx.now();
            let (procs, files, cpus) = (&self.procs, &self.files, &self.cpus);
            let step = self.memory.swapper_step(
                self.sys,
                now,
                |pid| (procs[pid].class, files.of[pid].exec.pending),
                |pid| !cpus.in_kernel_path(pid),
            );
            match step {
                Step::Idle => {}
                Step::Exec(pid) => {
                    // Its image is read from the program's file by exec,
                    // while the swapper looks again.
                    self.memory.load(self.sys, pid, self.procs[pid].class);
                    self.recount(pid, now, Change::Residence(Residence::In));
                    self.start_exec(pid, ctx);
                    continue;
                }
                Step::In(pid) => {
                    let bytes = self.memory.bring_in(self.sys, pid, self.procs[pid].class);
                    self.swap_in(pid, bytes, ctx);
                }
                Step::Out(victim) => self.swap_out(victim, ctx),
                Step::LookLater => {
                    if self.memory.swap.look_later() {
                        let retry = Event::Memory(MemoryEvent::SwapperRetry);
                        let _ = ctx.schedule_in(SWAPPER_RETRY, retry);
                    }
                }
            }
            return;
        }
    }

    /// A swap of `bytes` is done: swapped in, a process is in memory and
    /// runs if it is ready; swapped out, under swapping its image's memory
    /// goes back (under paging its pages were freed as it went out), and a
    /// retiring shell goes. The swapper then looks again.
    pub(super) fn swap_done(&mut self, transfer: Transfer, bytes: f64, ctx: &mut Context<Event>) {
        let now = ctx.now();
        let (inward, pid) = match transfer {
            Transfer::SwapIn { pid } => (true, pid),
            Transfer::SwapOut { pid } => (false, pid),
            Transfer::PageRead { .. } | Transfer::PageWrite => unreachable!("a swap"),
        };
        self.memory.swap.finished(pid, now);
        self.stats.counters.swapped_bytes += bytes;
        if inward {
            self.stats.counters.swap_ins += 1;
            self.recount(pid, now, Change::Residence(Residence::In));
            if self.procs.state(pid) == State::Runnable {
                self.cpus.enqueue(pid, now);
                self.dispatch_idle(ctx);
            }
        } else {
            self.stats.counters.swap_outs += 1;
            self.unload(self.procs[pid].class, ctx);
            self.recount(pid, now, Change::Residence(Residence::Out));
            Users::retire_shell(&self.owners, &self.procs, pid, &mut self.steps);
            self.run_steps(ctx);
        }
        self.swapper(ctx);
    }

    /// Gives back the memory of a process of `class`, and its class's text
    /// if no other process of the class is in memory; with the text table
    /// a text that leaves may be written to the swap area (`xccdec` with
    /// `XWRIT`), without anyone waiting.
    pub(super) fn unload(&mut self, class: usize, ctx: &mut Context<Event>) {
        let Some(text) = self.memory.unload(self.sys, class) else {
            return;
        };
        if self
            .files
            .text_out(class, text, self.sys.classes[class].sticky)
        {
            let device = self.memory.swap_device();
            let purpose = Purpose::Files(FileTransfer::TextOut);
            self.request(device, purpose, text as f64, ctx);
        }
    }

    /// Starts reading `bytes` of `pid` back in.
    pub(super) fn swap_in(&mut self, pid: usize, bytes: u64, ctx: &mut Context<Event>) {
        self.memory.swap.started();
        self.recount(pid, ctx.now(), Change::Residence(Residence::MovingIn));
        let device = self.memory.swap_device();
        self.request(
            device,
            Purpose::Memory(Transfer::SwapIn { pid }),
            bytes as f64,
            ctx,
        );
    }

    /// Takes `pid` out of memory: its private part is written (swapping),
    /// or its pages are freed and the modified ones written with its user
    /// area and page tables (the swapper behind the clock).
    pub(super) fn swap_out(&mut self, pid: usize, ctx: &mut Context<Event>) {
        let now = ctx.now();
        if self.procs.state(pid) == State::Running {
            // The swapper runs at high priority: the victim is taken off
            // its processor first.
            let cpu = self
                .cpus
                .running
                .iter()
                .position(|b| b.is_some_and(|b| b.pid == pid))
                .expect("a running process is on a processor");
            self.preempt(cpu, ctx);
        } else if self.procs.state(pid) == State::Runnable {
            self.cpus.dequeue(pid, now);
        }
        self.memory.swap.started();
        self.recount(pid, now, Change::Residence(Residence::MovingOut));
        let bytes = self.with_memory(ctx, |m, view, fx| m.push_out(view, pid, fx));
        let device = self.memory.swap_device();
        self.request(
            device,
            Purpose::Memory(Transfer::SwapOut { pid }),
            bytes as f64,
            ctx,
        );
        self.dispatch_idle(ctx);
    }
}

impl MemoryState<'_> {
    /// What the swapper decides at `now` (V7's under swapping, 3BSD's
    /// behind the clock unless switched off; `Idle` under the other
    /// policies). `of` gives a process's class and whether its exec is
    /// still to do; `may_take` whether a swapper may take it out.
    pub(super) fn swapper_step(
        &mut self,
        sys: &System,
        now: SimTime,
        of: impl Fn(usize) -> (usize, bool),
        may_take: impl Fn(usize) -> bool,
    ) -> Step {
        match self.manager {
            Manager::Swapping { .. } => {
                let texts = &self.texts;
                let load = |pid| {
                    let (class, exec) = of(pid);
                    (texts[class].to_load(sys.classes[class].size), exec)
                };
                self.swap.v7_step(&mut self.candidates, now, load, may_take)
            }
            Manager::Frames {
                daemon,
                governor:
                    Governor::Clock {
                        swapper: Some(settings),
                    },
                ..
            } => {
                let step = self.swap.bsd_step(
                    &mut self.candidates,
                    (now, self.pool.frames),
                    (daemon, settings),
                    may_take,
                );
                debug_assert!(
                    matches!(step, Step::Idle | Step::In(_) | Step::Out(_)),
                    "3BSD's swapper neither execs nor looks later: {step:?}"
                );
                step
            }
            Manager::Counted(_) | Manager::Frames { .. } => Step::Idle,
        }
    }

    /// Takes the memory `pid`, of `class`, needs to come back in, and says
    /// how many bytes its swap-in reads: under swapping its image (its
    /// text too unless in memory already), behind the clock its user area
    /// and page tables (its pages return by faults).
    pub(super) fn bring_in(&mut self, sys: &System, pid: usize, class: usize) -> u64 {
        match self.manager {
            Manager::Swapping { .. } => self.load(sys, pid, class),
            Manager::Counted(_) | Manager::Frames { .. } => user_area_bytes(sys, class),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::candidates::Keys;
    use super::*;

    #[test]
    fn the_swapper_waits_for_one_swap_at_a_time_and_looks_later_once() {
        let mut swap = Swapper::new(1_000, 2);
        swap.enter(0, SimTime::ZERO);
        swap.started();
        assert!(swap.busy);
        swap.finished(0, SimTime::from_secs(7));
        assert!(!swap.busy);
        assert_eq!(swap.of[0].last_swap, SimTime::from_secs(7));
        // A look that cannot act schedules one look later; more failed
        // looks before it is due schedule none.
        assert!(swap.look_later());
        assert!(!swap.look_later());
        swap.look_again();
        assert!(swap.look_later());
    }

    #[test]
    #[should_panic(expected = "not pending")]
    fn a_look_later_that_was_not_asked_for_is_a_bug() {
        Swapper::new(1_000, 2).look_again();
    }

    #[test]
    fn the_swapper_keeps_each_process_s_time_and_caps_its_age() {
        let mut swap = Swapper::new(1_000, 2);
        swap.enter(0, SimTime::from_secs(10));
        swap.enter(1, SimTime::from_secs(20));
        let now = SimTime::from_secs(100);
        assert_eq!(swap.age(0, now), SimTime::from_secs(90));
        swap.of[0].last_swap = SimTime::from_secs(95);
        assert_eq!(swap.age(0, now), SimTime::from_secs(5));
        // A slot reused by a new process starts afresh.
        swap.enter(1, now);
        assert_eq!(swap.age(1, now), SimTime::ZERO);
        assert_eq!(swap.age(1, now + SimTime::from_secs(500)), AGE_CAP);
    }

    /// A swapper with 1,000 bytes free and processes 0 to 3 entered at
    /// 0 s, with candidate sets where 0 wants in since 10 s, 1 is in memory
    /// since 12 s and `sleeper` (if any) sleeps in memory.
    fn one_wanting_in(sleeper: Option<usize>) -> (Swapper, Candidates) {
        let mut swap = Swapper::new(1_000, 2);
        let mut c = Candidates::default();
        for pid in 0..4 {
            swap.enter(pid, SimTime::ZERO);
            c.enter(pid);
        }
        swap.of[0].last_swap = SimTime::from_secs(10);
        swap.of[1].last_swap = SimTime::from_secs(12);
        c.refile(0, Keys::swapping(Some(SimTime::from_secs(10)), None, None));
        c.refile(1, Keys::swapping(None, None, Some(SimTime::from_secs(12))));
        if let Some(pid) = sleeper {
            c.refile(pid, Keys::swapping(None, Some(500), None));
        }
        (swap, c)
    }

    #[test]
    fn the_v7_swapper_lets_in_what_fits_else_pushes_out_by_the_age_rules() {
        let secs = SimTime::from_secs;
        let look = |sleeper, at, (image, exec), may_take: bool| {
            let (swap, mut c) = one_wanting_in(sleeper);
            swap.v7_step(&mut c, secs(at), |_| (image, exec), |_| may_take)
        };
        assert_eq!(look(None, 30, (1_000, false), true), Step::In(0));
        assert_eq!(look(None, 30, (1_000, true), true), Step::Exec(0));
        // It does not fit: a sleeper goes out at once, whatever the ages.
        assert_eq!(look(Some(2), 11, (1_001, false), true), Step::Out(2));
        // Otherwise the one in longest, once the one wanting in has been
        // out 3 s and the one in has been in 2 s, and if it may be taken.
        assert_eq!(look(None, 12, (1_001, false), true), Step::LookLater);
        assert_eq!(look(None, 13, (1_001, false), true), Step::LookLater);
        assert_eq!(look(None, 14, (1_001, false), true), Step::Out(1));
        assert_eq!(look(None, 14, (1_001, false), false), Step::LookLater);
        let (mut swap, mut c) = one_wanting_in(None);
        swap.busy = true;
        assert_eq!(
            swap.v7_step(&mut c, secs(30), |_| (0, false), |_| true),
            Step::Idle
        );
        let (swap, mut c) = one_wanting_in(None);
        c.refile(0, Keys::default());
        assert_eq!(
            swap.v7_step(&mut c, secs(30), |_| (0, false), |_| true),
            Step::Idle
        );
    }

    #[test]
    #[cfg(debug_assertions)]
    fn free_memory_is_checked_against_what_is_loaded() {
        let mut swap = Swapper::new(1_000, 2);
        swap.free_bytes -= 300;
        swap.check(1_000, 300);
        assert!(std::panic::catch_unwind(|| swap.check(1_000, 200)).is_err());
    }

    #[test]
    fn a_process_brought_in_takes_its_image_and_keeps_what_exec_reads() {
        use crate::system::model::frames::tests::{TEN_PAGE_SETS, with_process_at};
        use crate::system::model::work::swapped_system;
        // An 8 KiB program, half of it shared text.
        let text = swapped_system("in", "10s", "100ms", "256KiB")
            + r#"
            [users]
            terminals = 1
            think = { exp = { mean = "100h" } }
            commands = [{ class = "prog", weight = 1 }]
            [[class]]
            name = "prog"
            cpu = { exp = { mean = "1s" } }
            size = "8KiB"
            text = "4KiB"
            "#;
        with_process_at(&text, SimTime::ZERO, |model, _, pid| {
            // Let in at once, as by fork: text and private part.
            assert_eq!(model.memory.swap.of[pid].loaded, 8192);
            let free = model.memory.swap.free_bytes;
            // Another process of the class: the text is in memory already.
            let other = pid + 1;
            model.memory.enter(other, SimTime::ZERO);
            assert_eq!(model.memory.bring_in(model.sys, other, 0), 4096);
            assert_eq!(model.memory.swap.of[other].loaded, 4096);
            assert_eq!(model.memory.swap.free_bytes, free - 4096);
        });
        // Behind the clock a swap-in reads the user area and page tables
        // back, and takes no memory: the pages come back by faults.
        with_process_at(TEN_PAGE_SETS, SimTime::ZERO, |model, ctx, pid| {
            let free = model.memory.pool.frames;
            let class = model.procs[pid].class;
            let bytes = model.memory.bring_in(model.sys, pid, class);
            assert_eq!(bytes, user_area_bytes(model.sys, class));
            assert_eq!(model.memory.pool.frames, free);
            // One process in memory, none wanting in, memory not short:
            // the swapper behind the clock has nothing to do.
            let step = model
                .memory
                .swapper_step(model.sys, ctx.now(), |_| (0, false), |_| true);
            assert_eq!(step, Step::Idle);
        });
    }
}
