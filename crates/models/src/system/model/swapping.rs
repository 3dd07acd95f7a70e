//! Swapping: the UNIX V7 swapper moving whole images in and out.
//!
//! A class's shared text is in memory while any process of the class is (V7
//! counts them in `x_ccount`): a swap-in reads the text only if no process
//! of the class is in memory already, and a swap-out writes only the
//! private part, text being read-only.

use super::paged_swapper::VmMeter;
use super::*;

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

/// What the swappers keep of each process.
#[derive(Clone, Copy, Debug)]
pub(super) struct SwapTimes {
    /// When its image last moved in or out (created: when it was made).
    pub(super) last_swap: SimTime,
    /// The swapper behind the clock: its resident pages when it was last
    /// swapped out (3BSD `p_swrss`).
    pub(super) swapped_rss: u64,
}

impl Swapper {
    /// `pid` is a new process, created at `now`.
    pub(super) fn enter(&mut self, pid: usize, now: SimTime) {
        let times = SwapTimes {
            last_swap: now,
            swapped_rss: 0,
        };
        self.of.insert(pid, times);
    }

    /// How long `pid`'s image has been where it is at `now`, capped at
    /// `AGE_CAP` (V7's `p_time` is a byte).
    pub(super) fn age(&self, pid: usize, now: SimTime) -> SimTime {
        (now - self.of[pid].last_swap).min(AGE_CAP)
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
    /// The swapper looks: the V7 swapper under swapping, the 3BSD one
    /// behind the clock, none under other paging policies.
    pub(super) fn swapper(&mut self, ctx: &mut Context<Event>) {
        if !self.paging() {
            while self.swap_once(ctx) {}
        } else if let Some(settings) = self.clock().and_then(|c| c.swapper) {
            self.paged_swapper(settings, ctx);
        }
    }

    /// One step of the V7 swapper: bring in the runnable process that has
    /// been out longest, making room by pushing out sleepers first, then
    /// (with the age rules) the process that has been in longest; true if
    /// it should look again at once.
    fn swap_once(&mut self, ctx: &mut Context<Event>) -> bool {
        if self.memory.swap.busy {
            return false;
        }
        let now = ctx.now();
        let Some((pid, out_for)) = self
            .waiting_for_swap_in()
            .map(|pid| (pid, self.memory.swap.age(pid, now)))
        else {
            return false;
        };
        let image = self.bytes_to_load(pid);
        if self.memory.swap.free_bytes >= image && self.files.exec[pid].pending {
            // A new command, created when memory was short: it gets its
            // memory and reads its image from the program's file itself,
            // while the swapper looks again.
            self.load(pid);
            self.recount(pid, now, |p| p.residence = Residence::In);
            self.start_exec(pid, ctx);
            return true;
        }
        if self.memory.swap.free_bytes >= image {
            self.load(pid);
            self.swap_in(pid, image, ctx);
            return false;
        }
        // A sleeper goes out at once; a busy process only by the age rules.
        let victim = self.memory.candidates.largest_sleeper().or_else(|| {
            if out_for < SWAP_OUT_WAIT {
                return None;
            }
            self.memory.candidates.longest_in(now).filter(|&q| {
                self.memory.swap.age(q, now) >= SWAP_IN_STAY && !self.in_kernel_path(q)
            })
        });
        match victim {
            Some(victim) => self.swap_out(victim, ctx),
            None if !self.memory.swap.retry => {
                self.memory.swap.retry = true;
                let _ = ctx.schedule_in(SWAPPER_RETRY, Event::SwapperRetry);
            }
            None => {}
        }
        false
    }

    /// The swapper's look, pending while it could not act, comes: one look
    /// at a time, not one per failed attempt.
    pub(super) fn swapper_retry(&mut self, ctx: &mut Context<Event>) {
        assert!(
            self.memory.swap.retry,
            "a swapper look fired that was not pending"
        );
        self.memory.swap.retry = false;
        self.swapper(ctx);
    }

    /// A swap-in of `bytes` for `pid` is done: it is in memory, and runs
    /// if it is ready.
    pub(super) fn swap_in_done(&mut self, pid: usize, bytes: f64, ctx: &mut Context<Event>) {
        let now = ctx.now();
        self.memory.swap.busy = false;
        self.stats.counters.swap_ins += 1;
        self.stats.counters.swapped_bytes += bytes;
        self.memory.swap.of[pid].last_swap = now;
        self.recount(pid, now, |p| p.residence = Residence::In);
        if self.procs[pid].state == State::Runnable {
            self.enqueue(pid, now);
            self.dispatch_idle(ctx);
        }
        self.swapper(ctx);
    }

    /// A swap-out of `bytes` for `pid` is done: under swapping its image's
    /// memory goes back (under paging its pages were freed as it went
    /// out), and a retiring shell goes.
    pub(super) fn swap_out_done(&mut self, pid: usize, bytes: f64, ctx: &mut Context<Event>) {
        let now = ctx.now();
        self.memory.swap.busy = false;
        self.stats.counters.swap_outs += 1;
        self.stats.counters.swapped_bytes += bytes;
        if !self.paging() {
            self.unload(self.procs[pid].class);
        }
        self.memory.swap.of[pid].last_swap = now;
        self.recount(pid, now, |p| p.residence = Residence::Out);
        if self.retiring(pid) {
            self.retire_shell(pid, ctx);
        }
        self.swapper(ctx);
    }

    /// The bytes bringing `pid` into memory takes: its private part, and
    /// its class's text unless already in memory.
    pub(super) fn bytes_to_load(&self, pid: usize) -> u64 {
        let class = self.procs[pid].class;
        let text = &self.memory.texts[class];
        let private = self.sys.classes[class].size - text.bytes;
        private + if text.in_memory == 0 { text.bytes } else { 0 }
    }

    /// Takes the memory for `pid`'s image.
    pub(super) fn load(&mut self, pid: usize) {
        let bytes = self.bytes_to_load(pid);
        self.memory.swap.free_bytes -= bytes;
        self.memory.texts[self.procs[pid].class].in_memory += 1;
        self.files.exec[pid].bytes = bytes;
    }

    /// Gives back the memory of `pid`'s image, and its class's text if no
    /// other process of the class is in memory.
    pub(super) fn unload(&mut self, class: usize) {
        let text = &mut self.memory.texts[class];
        self.memory.swap.free_bytes += self.sys.classes[class].size - text.bytes;
        text.in_memory -= 1;
        if text.in_memory == 0 {
            self.memory.swap.free_bytes += text.bytes;
        }
    }

    /// Whether `pid` is on a processor in a kernel path (a page or segment
    /// fault), where the swapper does not take it.
    pub(super) fn in_kernel_path(&self, pid: usize) -> bool {
        self.cpus
            .running
            .iter()
            .flatten()
            .any(|b| b.pid == pid && !matches!(b.kind, BurstKind::User(_)))
    }

    /// The device processes are swapped to: the swap device, or a paging
    /// drive.
    pub(super) fn swap_device(&mut self) -> usize {
        match &self.sys.memory.policy {
            Policy::Swapping { device } => *device,
            Policy::Paging(paging) => paging.drive(&mut self.drive_rng),
        }
    }

    /// Starts reading `bytes` of `pid` back in.
    pub(super) fn swap_in(&mut self, pid: usize, bytes: u64, ctx: &mut Context<Event>) {
        self.memory.swap.busy = true;
        self.recount(pid, ctx.now(), |p| p.residence = Residence::MovingIn);
        let device = self.swap_device();
        self.request(device, Purpose::SwapIn { pid }, bytes as f64, ctx);
    }

    /// The runnable, swapped-out, eligible process that has been out
    /// longest (the lowest slot on a tie, as V7 scans its process table).
    pub(super) fn waiting_for_swap_in(&self) -> Option<usize> {
        self.memory.candidates.longest_out()
    }

    /// Takes `pid` out of memory: its private part is written (swapping),
    /// or its pages are freed and the modified ones written with its user
    /// area and page tables (the swapper behind the clock).
    pub(super) fn swap_out(&mut self, pid: usize, ctx: &mut Context<Event>) {
        let now = ctx.now();
        if self.procs[pid].state == State::Running {
            // The swapper runs at high priority: the victim is taken off
            // its processor first.
            let cpu = self
                .cpus
                .running
                .iter()
                .position(|b| b.is_some_and(|b| b.pid == pid))
                .expect("a running process is on a processor");
            self.preempt(cpu, ctx);
        } else if self.procs[pid].state == State::Runnable {
            self.dequeue(pid, now);
        }
        self.memory.swap.busy = true;
        self.recount(pid, now, |p| p.residence = Residence::MovingOut);
        let bytes = if self.paging() {
            self.push_out_pages(pid, ctx)
        } else {
            let class = self.procs[pid].class;
            self.sys.classes[class].size - self.memory.texts[class].bytes
        };
        let device = self.swap_device();
        self.request(device, Purpose::SwapOut { pid }, bytes as f64, ctx);
        self.dispatch_idle(ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    #[cfg(debug_assertions)]
    fn free_memory_is_checked_against_what_is_loaded() {
        let mut swap = Swapper::new(1_000, 2);
        swap.free_bytes -= 300;
        swap.check(1_000, 300);
        assert!(std::panic::catch_unwind(|| swap.check(1_000, 200)).is_err());
    }
}
