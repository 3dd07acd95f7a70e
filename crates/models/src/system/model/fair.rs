//! Linux's fair scheduler, EEVDF (from 6.6), as Linux 6.18 has it
//! (`kernel/sched/fair.c`; Documentation/scheduler/sched-eevdf.rst), with
//! the departures listed below.
//!
//! Each process has a weight from its `nice` (`sched_prio_to_weight`:
//! 1024 at nice 0, about 1.25 times less at each step up) and a virtual
//! run time that grows by its processor time times 1024 / weight. V is
//! the weighted mean of the virtual run times of the processes on the
//! queue, running or not; a process is eligible while its virtual run
//! time is at most V (its lag, V − v, is not negative). Each turn asks for
//! a slice (the base slice, 0.70 ms on one processor, times 1 + log2 of
//! the processors up to 8) and its virtual deadline is the virtual run
//! time plus the slice times 1024 / weight. The process chosen is the
//! eligible one of earliest virtual deadline (`__pick_eevdf`).
//!
//! - A turn ends when the process's virtual run time reaches its deadline;
//!   Linux notices it at the next clock tick (HRTICK is off by default),
//!   so a turn ends on the tick after its deadline: 4 ms at HZ = 250 for
//!   a 1.4 ms slice. The scenario's quantum is the tick. The process then
//!   gets a new deadline a slice on, and runs on only if no eligible
//!   process has an earlier one (`update_deadline`, `update_curr`).
//! - A process picked runs to its deadline unless it stops being eligible
//!   (RUN_TO_PARITY with equal slices). A process woken preempts a
//!   running one exactly when a pick at that instant would choose it
//!   (`check_preempt_wakeup_fair`).
//! - A process leaving the queue (a sleep, an I/O wait) keeps its lag,
//!   clamped to ±max(2 slices, a tick) in its virtual time
//!   (`update_entity_lag`); it comes back at V less that lag, scaled by
//!   (W + w) / W so the lag after it joins is the lag it left with
//!   (`place_entity`, PLACE_LAG). A new process starts at V with half a
//!   slice to its first deadline (PLACE_DEADLINE_INITIAL).
//!
//! Simplifications, each a difference from the kernel:
//! - One queue and one V for all processors, where Linux keeps a queue
//!   per processor and balances load between them: shares agree when the
//!   load balances, but tpsim has no affinity, migration cost or delay of
//!   balancing. With processors running processes far behind V, every
//!   queued process can be ineligible; a processor then takes the one of
//!   earliest deadline rather than stay idle.
//! - A process that sleeps while not eligible leaves at once with its
//!   negative lag, as before 6.12; DELAY_DEQUEUE keeps it queued until it
//!   is picked.
//! - V with no process queued stays where the last one left it (Linux
//!   uses `min_vruntime`).
//! - Arithmetic in floating point, not the kernel's fixed point: run times
//!   differ from the kernel's in the last nanoseconds.
//! - A process that runs on after its turn keeps the protection it was
//!   picked with (Linux sets it only when it switches to a process).

use super::per_process::PerProcess;
use super::scheduler::Key;
use std::collections::BTreeMap;
use tpsim_core::SimTime;

/// `sched_prio_to_weight` (`kernel/sched/core.c`), nice −20 to 19.
const WEIGHTS: [u32; 40] = [
    88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916, 9548, 7620, 6100, 4904,
    3906, 3121, 2501, 1991, 1586, 1277, 1024, 820, 655, 526, 423, 335, 272, 215, 172, 137, 110, 87,
    70, 56, 45, 36, 29, 23, 18, 15,
];

/// The weight of nice 0 (`NICE_0_LOAD` in user units).
const NICE_0: f64 = 1024.0;

/// The weight of a process of `nice` (−20 to 19).
pub(super) fn weight(nice: i32) -> f64 {
    let at = usize::try_from(nice + 20).expect("validation: nice from -20 to 19");
    f64::from(WEIGHTS[at])
}

/// The slice on `cpus` processors: `base` times 1 + log2 of the processors,
/// at most 8 (`get_update_sysctl_factor`, SCHED_TUNABLESCALING_LOG).
pub(super) fn scaled_slice(base: SimTime, cpus: u32) -> SimTime {
    let factor = 1 + cpus.clamp(1, 8).ilog2();
    SimTime::from_nanos(base.as_nanos() * u64::from(factor))
}

/// How far a virtual run time may lie above V and still count as eligible
/// \[virtual s\]: a nanosecond, so that a process placed at V, or alone,
/// is eligible whatever the rounding of V's sums (Linux's integer sums
/// are exact).
const ROUNDING: f64 = 1e-9;

/// Whether a process at virtual run time `v` is eligible when V is `mean`.
fn eligible(v: f64, mean: f64) -> bool {
    v <= mean + ROUNDING
}

/// What the fair scheduler keeps of a process (`struct sched_entity`).
#[derive(Clone, Copy, Debug)]
struct Entity {
    weight: f64,
    /// Virtual run time \[virtual s\].
    vruntime: f64,
    /// Virtual deadline of its turn.
    deadline: f64,
    /// It may run undisturbed while its virtual run time is below this:
    /// its deadline when it was picked (`vprot`).
    protect: f64,
    /// Its lag when it last left the queue, clamped (`vlag`).
    lag: f64,
    /// In V: queued or on a processor (`on_rq`).
    on_rq: bool,
    /// Its key in the queue, while queued.
    key: Option<(Key, u64)>,
    /// While on a processor: since when its run time was last counted.
    since: Option<SimTime>,
    /// When it last left the queue: a return at that instant is a
    /// requeue, not a wake-up, and keeps its virtual times.
    left: Option<SimTime>,
}

/// The processes on the fair scheduler's queue.
#[derive(Debug)]
pub(super) struct FairQueue {
    /// The slice each turn asks for \[s\].
    slice: f64,
    /// The clock tick \[s\].
    tick: SimTime,
    /// The processes ready and not running, by deadline, then in order of
    /// queueing.
    tree: BTreeMap<(Key, u64), usize>,
    tickets: u64,
    of: PerProcess<Entity>,
    /// Σ w·v over the processes on the queue, a running one's v as of
    /// when its run time was last counted.
    weighted: f64,
    /// Σ w over the processes on the queue.
    load: f64,
    /// The processes running, and the sum of the times their run times
    /// were last counted \[s\].
    running: u32,
    counted_from: f64,
    /// V when no process is on the queue.
    rest: f64,
}

impl FairQueue {
    /// A queue whose turns ask for `slice`, noticed at each `tick`.
    pub(super) fn new(slice: SimTime, tick: SimTime) -> FairQueue {
        FairQueue {
            slice: slice.as_secs_f64(),
            tick,
            tree: BTreeMap::new(),
            tickets: 0,
            of: PerProcess::default(),
            weighted: 0.0,
            load: 0.0,
            running: 0,
            counted_from: 0.0,
            rest: 0.0,
        }
    }

    /// `pid` is a new process of `nice`.
    pub(super) fn enter(&mut self, pid: usize, nice: i32) {
        let entity = Entity {
            weight: weight(nice),
            vruntime: 0.0,
            deadline: 0.0,
            protect: 0.0,
            lag: 0.0,
            on_rq: false,
            key: None,
            since: None,
            left: None,
        };
        self.of.insert(pid, entity);
    }

    /// V at `now`: the weighted mean virtual run time of the processes on
    /// the queue (`avg_vruntime`).
    fn mean(&self, now: SimTime) -> f64 {
        if self.load == 0.0 {
            return self.rest;
        }
        // A running process's w·v grows by 1024 a second.
        let ran = f64::from(self.running) * now.as_secs_f64() - self.counted_from;
        (self.weighted + NICE_0 * ran) / self.load
    }

    /// The virtual length of a slice for a process of `weight`.
    fn virtual_slice(&self, weight: f64) -> f64 {
        self.slice * NICE_0 / weight
    }

    /// `pid`'s virtual run time at `now`, counting a run under way.
    fn vruntime(&self, pid: usize, now: SimTime) -> f64 {
        let e = &self.of[pid];
        let ran = e.since.map_or(0.0, |since| (now - since).as_secs_f64());
        e.vruntime + ran * NICE_0 / e.weight
    }

    /// `pid`'s deadline at virtual run time `v`: a turn on once it is
    /// reached (`update_deadline`).
    fn deadline_at(&self, pid: usize, v: f64) -> f64 {
        let e = &self.of[pid];
        if v >= e.deadline {
            v + self.virtual_slice(e.weight)
        } else {
            e.deadline
        }
    }

    /// Counts `pid`'s run up to `now`, on a processor (`update_curr`).
    fn settle(&mut self, pid: usize, now: SimTime) {
        let v = self.vruntime(pid, now);
        let deadline = self.deadline_at(pid, v);
        let e = &mut self.of[pid];
        let since = e.since.expect("a running process");
        self.weighted += e.weight * (v - e.vruntime);
        self.counted_from += (now - since).as_secs_f64();
        e.vruntime = v;
        e.deadline = deadline;
        e.since = Some(now);
    }

    /// `pid` joins the queue at `now`: a requeue at the instant it left
    /// keeps its times; otherwise it is placed by its lag
    /// (`place_entity`).
    fn join(&mut self, pid: usize, now: SimTime) {
        let mean = self.mean(now);
        let load = self.load;
        let virtual_slice = self.virtual_slice(self.of[pid].weight);
        let e = &mut self.of[pid];
        if e.on_rq {
            return;
        }
        match e.left {
            Some(left) if left == now => {}
            left => {
                let lag = if load > 0.0 {
                    e.lag * (load + e.weight) / load
                } else {
                    0.0
                };
                e.vruntime = mean - lag;
                // A new process waits half a slice for its first deadline.
                let first = if left.is_none() { 0.5 } else { 1.0 };
                e.deadline = e.vruntime + first * virtual_slice;
            }
        }
        e.on_rq = true;
        self.weighted += e.weight * e.vruntime;
        self.load += e.weight;
    }

    /// `pid`, neither queued nor running, leaves the queue at `now`
    /// keeping its lag, clamped (`update_entity_lag`).
    fn leave(&mut self, pid: usize, now: SimTime) {
        let mean = self.mean(now);
        let tick = self.tick.as_secs_f64();
        let e = &mut self.of[pid];
        debug_assert!(e.on_rq && e.key.is_none() && e.since.is_none());
        let limit = (2.0 * self.slice).max(tick) * NICE_0 / e.weight;
        e.lag = (mean - e.vruntime).clamp(-limit, limit);
        e.on_rq = false;
        e.left = Some(now);
        self.load -= e.weight;
        self.weighted -= e.weight * e.vruntime;
        if self.load == 0.0 {
            // No drift from sums of products.
            self.weighted = 0.0;
            self.rest = mean;
        }
    }

    /// Queues `pid`, ready at `now`.
    pub(super) fn push(&mut self, pid: usize, now: SimTime) {
        self.join(pid, now);
        let key = (Key(self.of[pid].deadline), self.tickets);
        self.tickets += 1;
        self.tree.insert(key, pid);
        self.of[pid].key = Some(key);
    }

    /// Whether `pid` is queued.
    pub(super) fn queued(&self, pid: usize) -> bool {
        self.of[pid].key.is_some()
    }

    /// Takes `pid` out of the queue at `now`: it leaves it.
    pub(super) fn remove(&mut self, pid: usize, now: SimTime) {
        let key = self.of[pid].key.take().expect("a queued process");
        self.tree.remove(&key);
        self.leave(pid, now);
    }

    /// The eligible queued process of earliest deadline at `now`. The
    /// walk in order of deadline passes only processes not eligible.
    fn best_eligible(&self, now: SimTime) -> Option<usize> {
        let mean = self.mean(now);
        self.tree
            .values()
            .find(|&&pid| eligible(self.of[pid].vruntime, mean))
            .copied()
    }

    /// Takes the process to run next at `now` out of the queue; it stays on
    /// it, in V, and may run to its deadline undisturbed.
    pub(super) fn pop(&mut self, now: SimTime) -> Option<usize> {
        let pid = self
            .best_eligible(now)
            .or_else(|| self.tree.values().next().copied())?;
        let e = &mut self.of[pid];
        let key = e.key.take().expect("a queued process");
        e.protect = e.deadline;
        self.tree.remove(&key);
        Some(pid)
    }

    /// `pid` goes onto a processor (or carries on) at `now`, its own work
    /// starting at `start`: returns the processor time to the tick on
    /// which its turn is seen to end.
    pub(super) fn run(&mut self, pid: usize, now: SimTime, start: SimTime) -> SimTime {
        if self.of[pid].since.is_some() {
            self.settle(pid, now);
        } else {
            self.of[pid].since = Some(now);
            self.running += 1;
            self.counted_from += now.as_secs_f64();
        }
        let e = &self.of[pid];
        let to_deadline = (e.deadline - e.vruntime) * e.weight / NICE_0;
        let due = now + SimTime::from_secs_f64(to_deadline);
        let tick = self.tick.as_nanos();
        let mut ticks = due.as_nanos().div_ceil(tick);
        if ticks * tick <= start.as_nanos() {
            ticks = start.as_nanos() / tick + 1;
        }
        SimTime::from_nanos(ticks * tick) - start
    }

    /// `pid` leaves its processor at `now`: its run is counted and it
    /// leaves the queue, unless queued again at once.
    pub(super) fn stop(&mut self, pid: usize, now: SimTime) {
        self.settle(pid, now);
        let e = &mut self.of[pid];
        e.since = None;
        self.running -= 1;
        self.counted_from -= now.as_secs_f64();
        if self.running == 0 {
            // No drift from sums of times.
            self.counted_from = 0.0;
        }
        self.leave(pid, now);
    }

    /// Whether `pid`, running, carries on at `now`, the tick after its
    /// deadline: a pick with it on the queue chooses it.
    pub(super) fn runs_on(&mut self, pid: usize, now: SimTime) -> bool {
        self.settle(pid, now);
        let e = &self.of[pid];
        let eligible = eligible(e.vruntime, self.mean(now));
        let protected = e.vruntime < e.protect;
        match self.best_eligible(now) {
            Some(best) => eligible && (protected || e.deadline < self.of[best].deadline),
            // No one queued is eligible: a pick takes it if it is, or else
            // whoever has the earliest deadline, it too if no one is
            // queued (Linux does not look again with one process queued).
            None => {
                eligible
                    || self
                        .tree
                        .values()
                        .next()
                        .is_none_or(|&first| e.deadline <= self.of[first].deadline)
            }
        }
    }

    /// Whether `pid`, just queued at `now`, preempts one of the processes
    /// `running` (with their processors): it does if a pick now would
    /// choose it over one of them (`check_preempt_wakeup_fair`); the
    /// processor of the one of latest deadline, on a tie the
    /// lowest-numbered.
    pub(super) fn preempts(
        &self,
        pid: usize,
        now: SimTime,
        running: impl Iterator<Item = (usize, usize)>,
    ) -> Option<usize> {
        if self.best_eligible(now) != Some(pid) {
            return None;
        }
        let mean = self.mean(now);
        let deadline = self.of[pid].deadline;
        running
            .filter_map(|(current, cpu)| {
                let v = self.vruntime(current, now);
                let d = self.deadline_at(current, v);
                let kept = eligible(v, mean) && (v < self.of[current].protect || d < deadline);
                (!kept).then_some((Key(d), cpu))
            })
            .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
            .map(|(_, cpu)| cpu)
    }

    /// The number of processes queued.
    pub(super) fn len(&self) -> usize {
        self.tree.len()
    }

    /// Checks V's sums against the processes on the queue (debug builds).
    #[cfg(debug_assertions)]
    pub(super) fn check(&self, on_queue: impl Iterator<Item = usize>) {
        let (mut load, mut weighted, mut running, mut since) = (0.0, 0.0, 0, 0.0);
        for pid in on_queue {
            let e = &self.of[pid];
            if e.on_rq {
                load += e.weight;
                weighted += e.weight * e.vruntime;
                running += u32::from(e.since.is_some());
                since += e.since.map_or(0.0, SimTime::as_secs_f64);
            }
        }
        assert_eq!((load, running), (self.load, self.running), "V's load");
        assert!(
            (since - self.counted_from).abs() <= 1e-9 * since.abs().max(1.0),
            "the running processes' times: {since} against {}",
            self.counted_from
        );
        let scale = weighted.abs().max(self.weighted.abs()).max(1.0);
        assert!(
            (weighted - self.weighted).abs() <= 1e-9 * scale,
            "V's weighted sum drifted: {weighted} against {}",
            self.weighted
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::Fair;

    fn ms(ms: f64) -> SimTime {
        SimTime::from_secs_f64(ms / 1e3)
    }

    /// A queue on two processors' slice (1.4 ms) with HZ = 250's tick, and
    /// processes 0 to 3 of the `nices` given, queued at 0 s.
    fn queue(nices: &[i32]) -> FairQueue {
        let mut q = FairQueue::new(scaled_slice(Fair::default().base_slice, 2), ms(4.0));
        for (pid, &nice) in nices.iter().enumerate() {
            q.enter(pid, nice);
            q.push(pid, SimTime::ZERO);
        }
        q
    }

    /// Serves the queued processes, all compute-bound, on one processor
    /// from `from` to `until` as the core does: at each turn's end the one
    /// running runs on or goes back and the next is picked. Returns their
    /// processor times and the turns in order.
    fn serve(q: &mut FairQueue, from: SimTime, until: SimTime) -> (Vec<SimTime>, Vec<usize>) {
        let mut cpu = vec![SimTime::ZERO; 4];
        let mut turns = Vec::new();
        let mut now = from;
        let mut pid = q.pop(now).expect("a process queued");
        let mut slice = q.run(pid, now, now);
        while now + slice <= until {
            now += slice;
            cpu[pid] += slice;
            turns.push(pid);
            if !q.runs_on(pid, now) {
                q.stop(pid, now);
                q.push(pid, now);
                pid = q.pop(now).expect("a process queued");
            }
            slice = q.run(pid, now, now);
        }
        q.stop(pid, now);
        (cpu, turns)
    }

    #[test]
    fn the_slice_grows_with_the_log_of_the_processors_up_to_eight() {
        let base = Fair::default().base_slice;
        let slices: Vec<_> = [1, 2, 3, 4, 7, 8, 64]
            .map(|cpus| scaled_slice(base, cpus).as_nanos())
            .into();
        assert_eq!(
            slices,
            [
                700_000, 1_400_000, 1_400_000, 2_100_000, 2_100_000, 2_800_000, 2_800_000
            ]
        );
        assert_eq!(
            (weight(0), weight(5), weight(-20), weight(19)),
            (1024.0, 335.0, 88761.0, 15.0)
        );
    }

    #[test]
    fn equal_processes_share_a_processor_in_turns_of_a_tick_within_one_turn() {
        let mut q = queue(&[0, 0, 0]);
        let until = SimTime::from_secs(10);
        let (cpu, turns) = serve(&mut q, SimTime::ZERO, until);
        // A 1.4 ms slice is seen to end at the next 4 ms tick: 2,500 turns
        // of 4 ms, taken in turn.
        assert_eq!(turns.len(), 2_500);
        assert!(
            turns
                .windows(3)
                .all(|w| w[0] != w[1] && w[1] != w[2] && w[0] != w[2])
        );
        let fair = until.as_secs_f64() / 3.0;
        for &c in &cpu[..3] {
            assert!((c.as_secs_f64() - fair).abs() <= 0.004, "{cpu:?}");
        }
    }

    #[test]
    fn nice_5_gets_335_parts_to_nice_0_s_1024() {
        let mut q = queue(&[0, 5]);
        let until = SimTime::from_secs(100);
        let (cpu, _) = serve(&mut q, SimTime::ZERO, until);
        let share = cpu[0].as_secs_f64() / until.as_secs_f64();
        // 1024 / 1359 = 75.35 %, within a turn or two over 100 s.
        assert!((share - 1024.0 / 1359.0).abs() < 1e-4, "{share}");
        // Nice 5's turns are as long in real time, and three times rarer.
        assert!((cpu[0].as_secs_f64() / cpu[1].as_secs_f64() - 1024.0 / 335.0).abs() < 2e-3);
    }

    #[test]
    fn a_newcomer_starts_at_the_mean_and_gets_no_more_than_its_share() {
        // 0 runs alone for 10 s; 1 arrives then. Placed at V, with half a
        // slice to its first deadline, it runs first but only its share:
        // over the next second each has half, within a turn.
        let mut q = queue(&[0]);
        let (_, _) = serve(&mut q, SimTime::ZERO, SimTime::from_secs(10));
        q.push(0, SimTime::from_secs(10));
        q.enter(1, 0);
        q.push(1, SimTime::from_secs(10));
        assert_eq!(q.pop(SimTime::from_secs(10)), Some(1));
        q.push(1, SimTime::from_secs(10));
        let (cpu, turns) = serve(&mut q, SimTime::from_secs(10), SimTime::from_secs(11));
        assert_eq!(turns[0], 1);
        assert!((cpu[1].as_secs_f64() - 0.5).abs() <= 0.004, "{cpu:?}");
    }

    #[test]
    fn a_process_back_from_a_sleep_has_the_lag_it_left_with_clamped() {
        // 0 runs one turn while 1 waits: 1 is owed half of it. 1 sleeps
        // and wakes later: it is placed so that its lag is what it was.
        let mut q = queue(&[0, 0]);
        let t = |ms: f64| SimTime::from_secs_f64(ms / 1e3);
        assert_eq!(q.pop(SimTime::ZERO), Some(0));
        let slice = q.run(0, SimTime::ZERO, SimTime::ZERO);
        assert_eq!(slice, t(4.0));
        q.remove(1, t(4.0));
        let lag = q.of[1].lag;
        assert!((lag - 0.002).abs() < 1e-12, "{lag}");
        q.push(1, t(50.0));
        let back = q.mean(t(50.0)) - q.of[1].vruntime;
        assert!((back - lag).abs() < 1e-12, "{back} against {lag}");
        // A lag beyond max(2 slices, a tick) = 4 ms is cut to it: 3 is
        // owed a quarter of 0's 40 ms.
        let mut q = queue(&[0, 0, 0, 0]);
        assert_eq!(q.pop(SimTime::ZERO), Some(0));
        let _ = q.run(0, SimTime::ZERO, SimTime::ZERO);
        q.remove(3, t(40.0));
        assert!((q.of[3].lag - 0.004).abs() < 1e-12, "{}", q.of[3].lag);
    }

    #[test]
    fn a_waking_process_preempts_one_ahead_of_its_share_not_one_in_its_turn() {
        let t = |ms: f64| SimTime::from_secs_f64(ms / 1e3);
        // 0 is picked at 0 s; 1 leaves at once, owed nothing, and wakes at
        // 0.5 ms. 0 is eligible and within its turn: it keeps the
        // processor.
        let mut q = queue(&[0, 0]);
        assert_eq!(q.pop(SimTime::ZERO), Some(0));
        let _ = q.run(0, SimTime::ZERO, SimTime::ZERO);
        q.remove(1, SimTime::ZERO);
        q.push(1, t(0.5));
        let running = || [(0, 0)].into_iter();
        assert_eq!(q.preempts(1, t(0.5), running()), None);
        // By 3 ms 0 has had more than its share: it is no longer eligible,
        // and 1 takes its processor.
        assert_eq!(q.preempts(1, t(3.0), running()), Some(0));
        // A process that is not the pick does not preempt.
        let mut q = queue(&[0, 0, 0]);
        assert_eq!(q.pop(SimTime::ZERO), Some(0));
        let _ = q.run(0, SimTime::ZERO, SimTime::ZERO);
        q.remove(2, SimTime::ZERO);
        q.push(2, t(3.0));
        assert_eq!(q.preempts(2, t(3.0), running()), None);
    }

    #[test]
    fn a_process_ahead_of_its_share_waits_though_its_deadline_is_earliest() {
        // Nice 0 and nice 19 (a 95 ms virtual slice) queued at 0 s: nice 0
        // has the earlier deadline and runs a turn. Back in the queue it is
        // ahead of V, with its deadline (5.4 ms) still earlier than the
        // other's (47.8 ms): the other, eligible, runs.
        let mut q = queue(&[0, 19]);
        assert_eq!(q.pop(SimTime::ZERO), Some(0));
        let turn = q.run(0, SimTime::ZERO, SimTime::ZERO);
        assert!(!q.runs_on(0, turn));
        q.stop(0, turn);
        q.push(0, turn);
        assert!(q.of[0].deadline < q.of[1].deadline);
        assert_eq!(q.pop(turn), Some(1));
    }

    #[test]
    fn a_process_ahead_of_v_runs_on_when_no_one_waits() {
        // Nice 0 and nice 5 both running (two processors): nice 5's
        // virtual time runs three times as fast and it falls behind
        // eligibility, but with no one queued it runs on; a pick with the
        // other queued would not choose it.
        let mut q = queue(&[0, 5]);
        assert_eq!(
            (q.pop(SimTime::ZERO), q.pop(SimTime::ZERO)),
            (Some(0), Some(1))
        );
        let _ = q.run(0, SimTime::ZERO, SimTime::ZERO);
        let turn = q.run(1, SimTime::ZERO, SimTime::ZERO);
        assert!(q.vruntime(1, turn) > q.mean(turn));
        assert!(q.runs_on(1, turn));
        let _ = q.run(1, turn, turn);
        q.stop(0, turn);
        q.push(0, turn);
        assert!(!q.runs_on(1, turn + turn));
    }

    #[test]
    fn a_lag_owed_the_other_way_is_clamped_in_the_process_s_own_virtual_time() {
        // Nice 5 runs 40 ms while nice 0 waits: far ahead, its lag is cut
        // to max(2 slices, a tick) = 4 ms, times 1024/335 in its virtual
        // time.
        let zero = SimTime::ZERO;
        let mut q = queue(&[5]);
        assert_eq!(q.pop(zero), Some(0));
        let _ = q.run(0, zero, zero);
        q.enter(1, 0);
        q.push(1, zero);
        q.stop(0, SimTime::from_secs_f64(0.040));
        let limit = 0.004 * 1024.0 / 335.0;
        assert!((q.of[0].lag + limit).abs() < 1e-12, "{}", q.of[0].lag);
    }

    #[test]
    fn a_process_within_its_turn_is_not_preempted_by_an_earlier_deadline() {
        // 0 runs from 0 s, its turn's deadline and protection at 5 ms of
        // virtual time; 1 leaves at once owed nothing and wakes at 0.5 ms
        // with a deadline at 1.9 ms, earlier than 0's. 0 is eligible and
        // within its turn: it keeps the processor (RUN_TO_PARITY).
        let t = |ms: f64| SimTime::from_secs_f64(ms / 1e3);
        let mut q = queue(&[0, 0]);
        assert_eq!(q.pop(SimTime::ZERO), Some(0));
        let _ = q.run(0, SimTime::ZERO, SimTime::ZERO);
        (q.of[0].deadline, q.of[0].protect) = (0.005, 0.005);
        q.remove(1, SimTime::ZERO);
        q.push(1, t(0.5));
        assert!(q.of[1].deadline < q.of[0].deadline);
        let running = || [(0, 0)].into_iter();
        assert_eq!(q.preempts(1, t(0.5), running()), None);
        // Its protection spent, the earlier deadline takes the processor.
        q.of[0].protect = 0.0004;
        assert_eq!(q.preempts(1, t(0.5), running()), Some(0));
    }
}
