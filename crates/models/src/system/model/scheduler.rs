//! Choosing the next process to run: one first-come-first-served queue
//! (round robin), UNIX's priorities, or Multics's eligible queue.
//!
//! Under the UNIX scheduler (V7 `slp.c` and `clock.c`; 3BSD keeps the
//! same rules) the process chosen is the ready one of best (numerically
//! lowest) priority:
//! - a process woken from a sleep in the kernel keeps the priority it
//!   slept at until it runs: 20 (`PRIBIO`) after a disk wait, 28
//!   (`TTIPRI`) for a command typed at a terminal, 40 (`PSLEP`) after a
//!   timed sleep;
//! - any other process has the user priority
//!   `PUSER + p_cpu / 16 + nice` (50 and up, capped at 127), where `p_cpu`
//!   counts the clock ticks (60 a second) it ran, decayed by a factor each
//!   second (0.8 in V7 and 3BSD, 0.9 in 4.0BSD: `system.unix.decay`) and
//!   capped at 255.
//!
//! tpsim follows `p_cpu` in continuous time: it grows at 60 a second while
//! the process runs and decays as d^t, so that a process's `p_cpu` at any
//! instant follows from its value when it last started or stopped running
//! and the ready queue never needs the once-a-second pass over every
//! process that V7 makes. Processes of equal priority are served in order
//! of arrival (V7's run queue happens to favour the latest).
//!
//! Under the Multics scheduler only eligible processes are ever ready
//! (`eligibility.rs`); the one chosen is of the best queue level, and
//! within a level the one made eligible first (the eligible queue's order,
//! with interactive work at its head).
use super::super::{Scheduler, Unix};
use super::fair::{FairQueue, scaled_slice};
use super::ordered::SlotHeap;
use super::per_process::PerProcess;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use tpsim_core::SimTime;

/// Clock ticks a second: `p_cpu` grows by one each tick a process runs.
const HZ: f64 = 60.0;
/// The largest `p_cpu` (a byte in V7).
const MOST_TICKS: f64 = 255.0;
/// The best user priority (`PUSER`).
const USER: f64 = 50.0;
/// The worst priority.
const WORST: f64 = 127.0;
/// The priority of a process woken from a disk wait (`PRIBIO`).
pub(super) const AFTER_DISK: u8 = 20;
/// The priority of a command typed at a terminal: its shell slept for
/// terminal input (`TTIPRI`, V7 `tty.h`) and forked it.
pub(super) const AFTER_TERMINAL: u8 = 28;
/// The priority of a script woken in `wait` by its program's exit
/// (`PWAIT`, \[3BSD\] `param.h`, `sys1.c`).
pub(super) const AFTER_WAIT: u8 = 30;
/// The priority of a process woken from a timed sleep (`PSLEP`).
pub(super) const AFTER_SLEEP: u8 = 40;

/// How `p_cpu` decays: by `factor` each second, at `rate` \[1/s\].
#[derive(Clone, Copy, Debug, PartialEq)]
struct Decay {
    factor: f64,
    rate: f64,
}

impl Decay {
    /// The decay of the UNIX scheduler `unix`.
    pub(super) fn of(unix: Unix) -> Decay {
        Decay {
            factor: unix.decay,
            rate: -unix.decay.ln(),
        }
    }
}

/// A process's recent processor use (V7's `p_cpu`), in clock ticks.
#[derive(Clone, Copy, Debug)]
struct Usage {
    ticks: f64,
    since: SimTime,
    running: bool,
}

impl Usage {
    /// No use yet (V7's `newproc` clears `p_cpu`).
    pub(super) fn new(now: SimTime) -> Usage {
        Usage {
            ticks: 0.0,
            since: now,
            running: false,
        }
    }

    /// `p_cpu` at `now`: decaying, and growing by `HZ` a second while the
    /// process runs (dp/dt = HZ − λp), never above 255.
    pub(super) fn at(&self, now: SimTime, decay: Decay) -> f64 {
        let fade = decay.factor.powf((now - self.since).as_secs_f64());
        if self.running {
            let limit = HZ / decay.rate;
            (limit + (self.ticks - limit) * fade).min(MOST_TICKS)
        } else {
            self.ticks * fade
        }
    }

    /// The process starts running.
    pub(super) fn start(&mut self, now: SimTime, decay: Decay) {
        if !self.running {
            *self = Usage {
                ticks: self.at(now, decay),
                since: now,
                running: true,
            };
        }
    }

    /// The process stops running.
    pub(super) fn stop(&mut self, now: SimTime, decay: Decay) {
        if self.running {
            *self = Usage {
                ticks: self.at(now, decay),
                since: now,
                running: false,
            };
        }
    }

    /// The user priority at `now` with `nice`.
    pub(super) fn priority(&self, now: SimTime, nice: i32, decay: Decay) -> f64 {
        user_priority(self.at(now, decay), nice)
    }

    /// A key that orders processes not running by their `p_cpu`, whenever
    /// compared: p(t) = exp(key − λt).
    fn key(&self, decay: Decay) -> Key {
        debug_assert!(!self.running, "queued processes do not run");
        Key(self.ticks.ln() + decay.rate * self.since.as_secs_f64())
    }
}

fn user_priority(ticks: f64, nice: i32) -> f64 {
    (USER + ticks / 16.0 + f64::from(nice)).min(WORST)
}

/// The best user priority a process of `nice` can have, with no recent
/// processor use: no `p_cpu` makes it better.
fn best_user_priority(nice: i32) -> f64 {
    user_priority(0.0, nice)
}

/// An `f64` ordered totally (−∞ for no use at all).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Key(pub(super) f64);

impl Key {
    /// The `p_cpu` at `now` of a process filed under this key.
    fn ticks(self, now: SimTime, decay: Decay) -> f64 {
        (self.0 - decay.rate * now.as_secs_f64()).exp()
    }
}

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// How urgently a process wants a processor, smaller first: its UNIX
/// priority, or its Multics level and place in the eligible queue.
#[derive(Clone, Copy, Debug)]
struct Rank(f64, u64);

impl Rank {
    /// The rank of a process of UNIX priority `priority`.
    pub(super) fn unix(priority: f64) -> Rank {
        Rank(priority, 0)
    }

    /// The rank of an eligible process at `level`, awarded eligibility
    /// `order`-th.
    pub(super) fn multics(level: u8, order: u64) -> Rank {
        Rank(f64::from(level), order)
    }
}

impl PartialEq for Rank {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Rank {}

impl PartialOrd for Rank {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Rank {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

/// What the scheduler keeps of each process.
#[derive(Clone, Debug)]
struct Scheduling {
    /// Its place in the ready queue.
    place: Place,
    /// Its recent processor use (UNIX scheduler).
    usage: Usage,
    /// The kernel priority it was woken at, until it runs (UNIX
    /// scheduler).
    woken: Option<u8>,
    /// Its queue level (Multics scheduler).
    level: u8,
    /// Processor time left of its quantum while eligible (Multics).
    allowance: SimTime,
    /// Its class's `nice` (UNIX).
    nice: i32,
    /// Its place in the order of eligibility awards (Multics).
    order: u64,
    /// When it last joined the ready queue (made: when it was made).
    arrival: SimTime,
}

impl Scheduling {
    /// The rank at `now` of the process, running (UNIX and Multics
    /// schedulers).
    fn running_rank(&self, scheduler: Scheduler, now: SimTime) -> Rank {
        match scheduler {
            Scheduler::Multics(_) => Rank::multics(self.level, self.order),
            Scheduler::Unix(unix) => {
                Rank::unix(self.usage.priority(now, self.nice, Decay::of(unix)))
            }
            // Round robin follows no processor use.
            Scheduler::RoundRobin | Scheduler::Fair(_) => Rank::unix(best_user_priority(self.nice)),
        }
    }

    /// The best rank the process, running, could have at any time: under
    /// UNIX its user priority with no recent processor use; under Multics
    /// its rank.
    fn best_rank(&self, scheduler: Scheduler) -> Rank {
        match scheduler {
            Scheduler::Multics(_) => Rank::multics(self.level, self.order),
            _ => Rank::unix(best_user_priority(self.nice)),
        }
    }

    /// Where the ready queue files the process.
    fn standing(&self) -> Standing<'_> {
        Standing {
            woken: self.woken,
            usage: &self.usage,
            nice: self.nice,
            level: self.level,
            order: self.order,
        }
    }

    /// A new process's of `nice`, at `now`: not queued, no recent use, at
    /// the top level.
    fn new(now: SimTime, nice: i32) -> Scheduling {
        Scheduling {
            place: Place::None,
            usage: Usage::new(now),
            woken: None,
            level: 0,
            allowance: SimTime::ZERO,
            nice,
            order: 0,
            arrival: now,
        }
    }
}

/// What becomes of a process whose time slice is used up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SliceEnd {
    /// No one else is to run first: it carries on, unswitched.
    RunOn,
    /// It goes back to the ready queue and the best ready process runs.
    Requeue,
    /// Multics: its quantum is used up; it loses eligibility and waits for
    /// it again a level down.
    LoseEligibility,
}

/// The processors' scheduler: the processes ready to run, in the order the
/// policy serves them, and what the policy keeps of each process. The core
/// asks it which process runs next, for how long, whether a process just
/// made ready preempts one running, and what a used-up slice means; the
/// policy is asked nowhere else.
#[derive(Debug)]
pub(super) struct Dispatcher {
    policy: Scheduler,
    quantum: SimTime,
    queue: Queue,
    of: PerProcess<Scheduling>,
}

/// The processes ready: ranked (round robin, UNIX, Multics) or by the
/// fair scheduler's deadlines.
#[derive(Debug)]
enum Queue {
    Ranked(ReadyQueue),
    Fair(FairQueue),
}

impl Dispatcher {
    /// The scheduler `policy` of `cpus` processors with its `quantum`, no
    /// process yet.
    pub(super) fn new(policy: Scheduler, quantum: SimTime, cpus: u32) -> Dispatcher {
        let queue = match policy {
            Scheduler::Fair(fair) => {
                Queue::Fair(FairQueue::new(scaled_slice(fair.base_slice, cpus), quantum))
            }
            _ => Queue::Ranked(ReadyQueue::new(policy)),
        };
        Dispatcher {
            policy,
            quantum,
            queue,
            of: PerProcess::default(),
        }
    }

    /// `pid` is a new process of `nice`, created at `now`.
    pub(super) fn enter(&mut self, pid: usize, nice: i32, now: SimTime) {
        self.of.insert(pid, Scheduling::new(now, nice));
        if let Queue::Fair(fair) = &mut self.queue {
            fair.enter(pid, nice);
        }
    }

    /// `pid` was woken in the kernel at `priority`, which it keeps until it
    /// runs (UNIX).
    pub(super) fn woken_at(&mut self, pid: usize, priority: u8) {
        self.of[pid].woken = Some(priority);
    }

    /// `pid` starts a new command, or work after a sleep: at the top level.
    pub(super) fn restart(&mut self, pid: usize) {
        self.of[pid].level = 0;
    }

    /// `pid`'s queue level (Multics).
    pub(super) fn level(&self, pid: usize) -> u8 {
        self.of[pid].level
    }

    /// `pid` is awarded eligibility `order`th: under Multics it is given its
    /// level's quantum, doubled at each level down.
    pub(super) fn grant(&mut self, pid: usize, order: u64) {
        let s = &mut self.of[pid];
        s.order = order;
        if let Scheduler::Multics(_) = self.policy {
            let nanos = self.quantum.as_nanos();
            s.allowance = SimTime::from_nanos(nanos.saturating_mul(1 << s.level));
        }
    }

    /// Multics: `pid` used up its quantum and goes a level down, where the
    /// quantum is twice as long.
    pub(super) fn demote(&mut self, pid: usize) {
        let Scheduler::Multics(multics) = self.policy else {
            unreachable!("only Multics takes eligibility away");
        };
        let s = &mut self.of[pid];
        s.level = (s.level + 1).min(multics.levels - 1);
    }

    /// Queues `pid`, ready at `now`.
    pub(super) fn push(&mut self, pid: usize, now: SimTime) {
        self.of[pid].arrival = now;
        match &mut self.queue {
            Queue::Ranked(ready) => self.of[pid].place = ready.push(pid, self.of[pid].standing()),
            Queue::Fair(fair) => fair.push(pid, now),
        }
    }

    /// When `pid` last joined the ready queue.
    pub(super) fn arrival(&self, pid: usize) -> SimTime {
        self.of[pid].arrival
    }

    /// Whether `pid` is in the ready queue.
    pub(super) fn queued(&self, pid: usize) -> bool {
        match &self.queue {
            Queue::Ranked(_) => self.of[pid].place != Place::None,
            Queue::Fair(fair) => fair.queued(pid),
        }
    }

    /// Takes `pid` out of the ready queue at `now`.
    pub(super) fn remove(&mut self, pid: usize, now: SimTime) {
        match &mut self.queue {
            Queue::Ranked(ready) => {
                let place = std::mem::replace(&mut self.of[pid].place, Place::None);
                ready.remove(place, pid);
            }
            Queue::Fair(fair) => fair.remove(pid, now),
        }
    }

    /// Takes the process to run next at `now` out of the ready queue.
    pub(super) fn pop(&mut self, now: SimTime) -> Option<usize> {
        match &mut self.queue {
            Queue::Ranked(ready) => {
                let pid = ready.pop(now)?;
                self.of[pid].place = Place::None;
                Some(pid)
            }
            Queue::Fair(fair) => fair.pop(now),
        }
    }

    /// Whether no process is ready.
    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of processes ready.
    pub(super) fn len(&self) -> usize {
        match &self.queue {
            Queue::Ranked(ready) => ready.len(),
            Queue::Fair(fair) => fair.len(),
        }
    }

    /// The processor time a burst of `pid` starting at `start` may run
    /// before the scheduler looks again: the quantum under round robin;
    /// under UNIX, up to the next rescheduling check, every quantum of the
    /// clock; under Multics, what is left of the process's quantum (the
    /// fair scheduler's turns are its queue's).
    #[inline]
    pub(super) fn slice(&self, pid: usize, start: SimTime) -> SimTime {
        match self.policy {
            Scheduler::RoundRobin => self.quantum,
            Scheduler::Fair(_) => unreachable!("the fair scheduler's turns are its queue's"),
            Scheduler::Unix(_) => {
                let q = self.quantum.as_nanos();
                SimTime::from_nanos((start.as_nanos() / q + 1) * q) - start
            }
            Scheduler::Multics(_) => self.of[pid].allowance,
        }
    }

    /// `pid` goes onto a processor at `now`, its own work starting at
    /// `start`: returns its time slice. A kernel priority it was woken at
    /// is spent; under UNIX its recent use grows while it runs.
    #[inline]
    pub(super) fn run(&mut self, pid: usize, now: SimTime, start: SimTime) -> SimTime {
        if let Queue::Fair(fair) = &mut self.queue {
            return fair.run(pid, now, start);
        }
        let slice = self.slice(pid, start);
        let s = &mut self.of[pid];
        s.woken = None;
        if let Scheduler::Unix(unix) = self.policy {
            // Only the UNIX scheduler follows recent processor use.
            s.usage.start(now, Decay::of(unix));
        }
        slice
    }

    /// `pid` leaves its processor at `now`.
    pub(super) fn stop(&mut self, pid: usize, now: SimTime) {
        match (&mut self.queue, self.policy) {
            (Queue::Fair(fair), _) => fair.stop(pid, now),
            (_, Scheduler::Unix(unix)) => self.of[pid].usage.stop(now, Decay::of(unix)),
            _ => {}
        }
    }

    /// `pid` ran `ran` of its own work: off what is left of its quantum.
    #[inline]
    pub(super) fn charge(&mut self, pid: usize, ran: SimTime) {
        let s = &mut self.of[pid];
        s.allowance = s.allowance.saturating_sub(ran);
    }

    /// UNIX and Multics: `pid` has just become ready at `now`; if its rank
    /// is better than that of a process running at user level (`running`
    /// lists them with their processors), the processor of the worst of
    /// those, on a tie the lowest-numbered.
    /// V7's `setrun` sets `runrun` and the switch comes at the next return
    /// to user mode, at most a clock tick later; Multics checks every
    /// `pre_empt_sample_time` (40 ms in MR12); here the switch is at once.
    /// Only a process becoming ready preempts: under UNIX one just given a
    /// processor keeps it until the next rescheduling check, as V7's `trap`
    /// recomputes the priority on the way back to user mode without asking
    /// for a switch.
    pub(super) fn preempts<I>(
        &self,
        pid: usize,
        now: SimTime,
        running: impl Fn() -> I,
    ) -> Option<usize>
    where
        I: Iterator<Item = (usize, usize)>,
    {
        let ready = match &self.queue {
            Queue::Fair(fair) => return fair.preempts(pid, now, running()),
            Queue::Ranked(ready) => ready,
        };
        let place = self.of[pid].place;
        if self.policy == Scheduler::RoundRobin || place == Place::None {
            return None;
        }
        let rank = ready.rank(place, now);
        match (running().next(), running().nth(1)) {
            // One process to weigh, and outranked whatever its recent
            // use: its priority (a power of the decay) need not be worked
            // out, as it need not for a process woken in the kernel.
            (Some((running, cpu)), None) if rank < self.of[running].best_rank(self.policy) => {
                Some(cpu)
            }
            _ => running()
                .map(|(running, cpu)| (self.of[running].running_rank(self.policy, now), cpu))
                .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
                .filter(|(running, _)| rank < *running)
                .map(|(_, cpu)| cpu),
        }
    }

    /// What `pid`, running, does at `now` when its slice is used up: under
    /// round robin it runs on if no one is ready; V7 puts the process back
    /// and takes the best, so it runs on unless another is strictly
    /// better; under Multics it loses eligibility; under the fair
    /// scheduler it runs on if a pick would choose it.
    pub(super) fn slice_end(&mut self, pid: usize, now: SimTime) -> SliceEnd {
        let run_on = match (&mut self.queue, self.policy) {
            (_, Scheduler::Multics(_)) => return SliceEnd::LoseEligibility,
            (Queue::Fair(fair), _) => fair.runs_on(pid, now),
            (Queue::Ranked(ready), Scheduler::Unix(_)) => ready
                .best(now)
                .is_none_or(|(best, _, _)| best >= self.of[pid].running_rank(self.policy, now)),
            (Queue::Ranked(ready), _) => ready.is_empty(),
        };
        if run_on {
            SliceEnd::RunOn
        } else {
            SliceEnd::Requeue
        }
    }

    /// Checks the fair scheduler's sums against `pids`, the processes
    /// (debug builds).
    #[cfg(debug_assertions)]
    pub(super) fn check(&self, pids: impl Iterator<Item = usize>) {
        if let Queue::Fair(fair) = &self.queue {
            fair.check(pids);
        }
    }

    /// Where `pid` waits in the ready queue.
    #[cfg(test)]
    pub(super) fn place(&self, pid: usize) -> Place {
        self.of[pid].place
    }
}

/// What places a process in the ready queue.
#[derive(Clone, Copy, Debug)]
struct Standing<'a> {
    /// The kernel priority it was woken at, if any (UNIX).
    pub woken: Option<u8>,
    /// Its recent processor use (UNIX).
    pub usage: &'a Usage,
    /// Its class's `nice` (UNIX).
    pub nice: i32,
    /// Its queue level (Multics).
    pub level: u8,
    /// Its place in the order of eligibility awards (Multics).
    pub order: u64,
}

/// Where a process waits in the ready queue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Place {
    /// Not queued.
    None,
    /// In the round-robin queue.
    Fifo(u64),
    /// In the eligible queue, at its level and order (Multics).
    Eligible(u8, u64),
    /// At a kernel priority.
    Kernel(u8, u64),
    /// At user priority, among the processes of its `nice`.
    User(i32, Key, u64),
}

/// The processes ready for a processor.
#[derive(Debug)]
struct ReadyQueue {
    scheduler: Scheduler,
    /// How `p_cpu` decays (UNIX).
    decay: Decay,
    fifo: SlotHeap<u64>,
    eligible: SlotHeap<(u8, u64)>,
    kernel: SlotHeap<(u8, u64)>,
    /// By `nice`, then `p_cpu`: within one `nice`, decay keeps the order.
    /// A group stays once made (there are a few `nice` values at most).
    user: BTreeMap<i32, SlotHeap<(Key, u64)>>,
    next_ticket: u64,
    len: usize,
}

impl ReadyQueue {
    pub(super) fn new(scheduler: Scheduler) -> ReadyQueue {
        let unix = match scheduler {
            Scheduler::Unix(unix) => unix,
            Scheduler::RoundRobin | Scheduler::Multics(_) | Scheduler::Fair(_) => Unix::default(),
        };
        ReadyQueue {
            scheduler,
            decay: Decay::of(unix),
            fifo: SlotHeap::default(),
            eligible: SlotHeap::default(),
            kernel: SlotHeap::default(),
            user: BTreeMap::new(),
            next_ticket: 0,
            len: 0,
        }
    }

    /// Queues `pid`: at the back under round robin; under UNIX at its
    /// `woken` priority if it was woken from a sleep, else at its user
    /// priority; under Multics by its level and order.
    pub(super) fn push(&mut self, pid: usize, standing: Standing) -> Place {
        let ticket = self.next_ticket;
        self.next_ticket += 1;
        self.len += 1;
        match (self.scheduler, standing.woken) {
            (Scheduler::RoundRobin, _) => {
                self.fifo.insert(pid, ticket);
                Place::Fifo(ticket)
            }
            (Scheduler::Multics(_), _) => {
                let key = (standing.level, standing.order);
                self.eligible.insert(pid, key);
                Place::Eligible(key.0, key.1)
            }
            (Scheduler::Unix(_), Some(priority)) => {
                self.kernel.insert(pid, (priority, ticket));
                Place::Kernel(priority, ticket)
            }
            (Scheduler::Fair(_), _) => unreachable!("the fair scheduler has a queue of its own"),
            (Scheduler::Unix(_), None) => {
                let key = standing.usage.key(self.decay);
                self.user
                    .entry(standing.nice)
                    .or_default()
                    .insert(pid, (key, ticket));
                Place::User(standing.nice, key, ticket)
            }
        }
    }

    /// Takes `pid`, queued at `place`, out.
    pub(super) fn remove(&mut self, place: Place, pid: usize) {
        let queued_where_it_says = match place {
            Place::None => false,
            Place::Fifo(ticket) => self.fifo.remove(pid) == Some(ticket),
            Place::Eligible(level, order) => self.eligible.remove(pid) == Some((level, order)),
            Place::Kernel(priority, ticket) => self.kernel.remove(pid) == Some((priority, ticket)),
            Place::User(nice, key, ticket) => self
                .user
                .get_mut(&nice)
                .is_some_and(|group| group.remove(pid) == Some((key, ticket))),
        };
        assert!(queued_where_it_says, "a process is queued where it says");
        self.len -= 1;
    }

    /// The process to run next and its rank at `now` (all equal under
    /// round robin), without taking it out.
    pub(super) fn best(&self, now: SimTime) -> Option<(Rank, Place, usize)> {
        if let Some((ticket, pid)) = self.fifo.first() {
            return Some((Rank(0.0, 0), Place::Fifo(ticket), pid));
        }
        if let Some(((level, order), pid)) = self.eligible.first() {
            return Some((
                Rank::multics(level, order),
                Place::Eligible(level, order),
                pid,
            ));
        }
        let kernel = self
            .kernel
            .first()
            .map(|((p, ticket), pid)| (f64::from(p), Place::Kernel(p, ticket), pid));
        let user = self.user.iter().filter_map(|(&nice, group)| {
            let ((key, ticket), pid) = group.first()?;
            Some((
                user_priority(key.ticks(now, self.decay), nice),
                Place::User(nice, key, ticket),
                pid,
            ))
        });
        kernel
            .into_iter()
            .chain(user)
            .min_by(|a, b| {
                a.0.total_cmp(&b.0)
                    .then_with(|| ticket(a.1).cmp(&ticket(b.1)))
            })
            .map(|(priority, place, pid)| (Rank::unix(priority), place, pid))
    }

    /// The rank at `now` of the process queued at `place`.
    pub(super) fn rank(&self, place: Place, now: SimTime) -> Rank {
        match place {
            Place::None => panic!("not queued"),
            Place::Fifo(_) => Rank(0.0, 0),
            Place::Eligible(level, order) => Rank::multics(level, order),
            Place::Kernel(priority, _) => Rank::unix(f64::from(priority)),
            Place::User(nice, key, _) => {
                Rank::unix(user_priority(key.ticks(now, self.decay), nice))
            }
        }
    }

    /// Takes the process to run next out.
    pub(super) fn pop(&mut self, now: SimTime) -> Option<usize> {
        let (_, place, pid) = self.best(now)?;
        self.remove(place, pid);
        Some(pid)
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }
}

fn ticket(place: Place) -> u64 {
    match place {
        Place::None => u64::MAX,
        Place::Fifo(t) | Place::Eligible(_, t) | Place::Kernel(_, t) | Place::User(_, _, t) => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::Multics;

    fn secs(s: f64) -> SimTime {
        SimTime::from_secs_f64(s)
    }

    /// V7's decay, 8/10 a second.
    fn v7() -> Decay {
        Decay::of(Unix::default())
    }

    fn standing(woken: Option<u8>, usage: &Usage, nice: i32) -> Standing<'_> {
        Standing {
            woken,
            usage,
            nice,
            level: 0,
            order: 0,
        }
    }

    #[test]
    fn round_robin_is_first_in_first_out_with_removal() {
        let mut q = ReadyQueue::new(Scheduler::RoundRobin);
        let u = Usage::new(SimTime::ZERO);
        let places: Vec<Place> = (10..15)
            .map(|pid| q.push(pid, standing(Some(20), &u, 0)))
            .collect();
        q.remove(places[2], 12);
        assert_eq!(q.pop(SimTime::ZERO), Some(10));
        let _ = q.push(10, standing(None, &u, 0));
        let order: Vec<usize> = std::iter::from_fn(|| q.pop(SimTime::ZERO)).collect();
        assert_eq!(order, [11, 13, 14, 10]);
        assert!(q.is_empty());
    }

    #[test]
    fn p_cpu_grows_by_the_tick_and_decays_by_a_fifth_a_second() {
        let mut u = Usage::new(SimTime::ZERO);
        u.start(SimTime::ZERO, v7());
        // Over a short burst p_cpu grows by nearly 60 a second.
        assert!(
            (u.at(secs(0.1), v7()) - 6.0).abs() < 0.1,
            "{}",
            u.at(secs(0.1), v7())
        );
        // Run long, it stays at 255.
        assert_eq!(u.at(secs(100.0), v7()), 255.0);
        u.stop(secs(100.0), v7());
        assert!((u.at(secs(101.0), v7()) - 204.0).abs() < 1e-9);
        assert!((u.at(secs(103.0), v7()) - 255.0 * 0.512).abs() < 1e-9);
        // User priority: 50 + p_cpu / 16 + nice, at most 127.
        assert!((u.priority(secs(101.0), 0, v7()) - (50.0 + 204.0 / 16.0)).abs() < 1e-9);
        assert_eq!(
            u.priority(secs(100.0), 19, v7()),
            50.0 + 255.0 / 16.0 + 19.0
        );
    }

    #[test]
    fn under_4_0bsd_p_cpu_decays_by_a_tenth_a_second() {
        // 4.0BSD's clock.c (11/9/80): SCHMAG 9/10.
        let bsd_clock = Unix {
            decay: 0.9,
            ..Unix::default()
        };
        let bsd = Decay::of(bsd_clock);
        let mut u = Usage::new(SimTime::ZERO);
        u.start(SimTime::ZERO, bsd);
        u.stop(secs(100.0), bsd);
        assert_eq!(u.at(secs(100.0), bsd), 255.0);
        assert!((u.at(secs(101.0), bsd) - 255.0 * 0.9).abs() < 1e-9);
        assert!((u.at(secs(103.0), bsd) - 255.0 * 0.729).abs() < 1e-9);
        // While it runs, p_cpu tends to 60 / ln(10/9), 569.5 uncapped: a
        // second's burst from nothing brings it to (1 - 0.9) * 569.5.
        let mut fresh = Usage::new(SimTime::ZERO);
        fresh.start(SimTime::ZERO, bsd);
        let limit = 60.0 / -(0.9f64.ln());
        assert!((fresh.at(secs(1.0), bsd) - 0.1 * limit).abs() < 1e-9);
        // A queued process's key gives its p_cpu whenever compared.
        let mut q = ReadyQueue::new(Scheduler::Unix(bsd_clock));
        let place = q.push(1, standing(None, &u, 0));
        let expected = 50.0 + 255.0 * 0.729 / 16.0;
        let Rank(priority, _) = q.rank(place, secs(103.0));
        assert!((priority - expected).abs() < 1e-9, "{priority}");
    }

    #[test]
    fn no_recent_use_gives_the_best_user_priority_a_process_can_have() {
        // The bound a preemption check may decide by without the decay.
        for nice in [-20, 0, 19] {
            let best = best_user_priority(nice);
            let idle = Usage::new(secs(3.0));
            assert_eq!(idle.priority(secs(7.0), nice, v7()), best, "nice {nice}");
            let mut busy = Usage::new(SimTime::ZERO);
            busy.start(secs(1.0), v7());
            for t in [1.0, 1.001, 2.0, 30.0] {
                assert!(busy.priority(secs(t), nice, v7()) >= best, "running, {t} s");
            }
            busy.stop(secs(30.0), v7());
            for t in [30.0, 31.0, 1e4] {
                assert!(busy.priority(secs(t), nice, v7()) >= best, "stopped, {t} s");
            }
            assert!(busy.priority(secs(30.0), nice, v7()) > best);
        }
    }

    #[test]
    fn woken_processes_first_then_the_least_recent_users_of_the_processor() {
        let mut q = ReadyQueue::new(Scheduler::Unix(Unix::default()));
        let now = secs(10.0);
        let used = |ran: f64, stopped: f64| {
            let mut u = Usage::new(SimTime::ZERO);
            u.start(secs(stopped - ran), v7());
            u.stop(secs(stopped), v7());
            u
        };
        let idle = Usage::new(SimTime::ZERO);
        // A compute-bound process that ran 2 s until 9 s (p_cpu 77 at
        // 10 s: priority 54.8); one that ran 0.5 s until 5 s (p_cpu 9.3:
        // 50.6); one never run (50); a nice one never run (60); a process
        // woken from a disk wait (20) and a command just typed (28).
        let _ = q.push(1, standing(None, &used(2.0, 9.0), 0));
        let _ = q.push(2, standing(None, &used(0.5, 5.0), 0));
        let _ = q.push(3, standing(None, &idle, 0));
        let _ = q.push(4, standing(None, &idle, 10));
        let _ = q.push(5, standing(Some(AFTER_TERMINAL), &idle, 0));
        let _ = q.push(6, standing(Some(AFTER_DISK), &used(2.0, 9.0), 0));
        let order: Vec<usize> = std::iter::from_fn(|| q.pop(now)).collect();
        assert_eq!(order, [6, 5, 3, 2, 1, 4]);
        // Decay reorders users of different nice: process 4 (nice 10, no
        // use) against process 7 (nice 0, p_cpu 255 at 10 s): 60 against
        // 65.9 now, 60 against 51.7 ten seconds later.
        let mut hog = Usage::new(SimTime::ZERO);
        hog.start(SimTime::ZERO, v7());
        hog.stop(now, v7());
        let _ = q.push(4, standing(None, &idle, 10));
        let _ = q.push(7, standing(None, &hog, 0));
        assert_eq!(q.best(now).unwrap().2, 4);
        assert_eq!(q.best(secs(20.0)).unwrap().2, 7);
        assert_eq!(q.len(), 2);
    }

    #[test]
    fn equal_priorities_in_different_queues_go_first_come_first_served() {
        // A process of nice -10 never run stands at 50 - 10 = 40, the
        // priority of a process woken from a sleep: whichever was queued
        // first runs first, in either order of queueing.
        let idle = Usage::new(SimTime::ZERO);
        let now = secs(1.0);
        for (first, second) in [
            (
                standing(None, &idle, -10),
                standing(Some(AFTER_SLEEP), &idle, 0),
            ),
            (
                standing(Some(AFTER_SLEEP), &idle, 0),
                standing(None, &idle, -10),
            ),
        ] {
            let mut q = ReadyQueue::new(Scheduler::Unix(Unix::default()));
            let _ = q.push(1, first);
            let _ = q.push(2, second);
            assert_eq!(q.rank(q.best(now).unwrap().1, now), Rank::unix(40.0));
            let order: Vec<usize> = std::iter::from_fn(|| q.pop(now)).collect();
            assert_eq!(order, [1, 2]);
        }
    }

    #[test]
    fn multics_runs_the_best_level_first_then_the_earliest_eligible() {
        let mut q = ReadyQueue::new(Scheduler::Multics(Default::default()));
        let u = Usage::new(SimTime::ZERO);
        let at = |level, order| Standing {
            woken: Some(AFTER_DISK),
            usage: &u,
            nice: 0,
            level,
            order,
        };
        let _ = q.push(1, at(2, 1));
        let _ = q.push(2, at(0, 5));
        let _ = q.push(3, at(0, 4));
        let later = q.push(4, at(1, 2));
        assert!(q.rank(later, SimTime::ZERO) < Rank::multics(1, 3));
        assert!(q.rank(later, SimTime::ZERO) > Rank::multics(0, 9));
        let order: Vec<usize> = std::iter::from_fn(|| q.pop(SimTime::ZERO)).collect();
        assert_eq!(order, [3, 2, 4, 1]);
    }

    /// A dispatcher under `policy` with a 100 ms quantum and processes 0
    /// to 3 of nice 0 entered at 0 s.
    fn dispatcher(policy: Scheduler) -> Dispatcher {
        let mut d = Dispatcher::new(policy, secs(0.1), 1);
        (0..4).for_each(|pid| d.enter(pid, 0, SimTime::ZERO));
        d
    }

    #[test]
    fn a_process_made_ready_takes_the_processor_of_the_worst_user_it_outranks() {
        let mut d = dispatcher(Scheduler::Unix(Unix::default()));
        // 0 has run since 0 s on processor 0, 1 since 0.5 s on processor 1:
        // at 1 s, 0 has used more and ranks worse.
        let _ = d.run(0, SimTime::ZERO, SimTime::ZERO);
        let _ = d.run(1, secs(0.5), secs(0.5));
        let running = || [(0, 0), (1, 1)].into_iter();
        let now = secs(1.0);
        // Not queued: it preempts nobody.
        assert_eq!(d.preempts(2, now, running), None);
        d.push(2, now);
        assert_eq!(d.preempts(2, now, running), Some(0));
        // Woken from a disk wait it outranks any user, and the worst goes.
        d.remove(2, now);
        d.woken_at(3, AFTER_DISK);
        d.push(3, now);
        assert_eq!(d.preempts(3, now, running), Some(0));
        // One running process with no use to speak of is not outranked by
        // a process at user priority with none either.
        let mut d = dispatcher(Scheduler::Unix(Unix::default()));
        let _ = d.run(0, now, now);
        d.push(1, now);
        assert_eq!(d.preempts(1, now, || [(0, 1)].into_iter()), None);
        // Round robin never preempts.
        let mut d = dispatcher(Scheduler::RoundRobin);
        d.push(2, now);
        assert_eq!(d.preempts(2, now, running), None);
    }

    #[test]
    fn a_used_up_slice_runs_on_unless_another_is_to_run_first() {
        let now = secs(1.0);
        let mut d = dispatcher(Scheduler::RoundRobin);
        assert_eq!(d.slice_end(0, now), SliceEnd::RunOn);
        d.push(1, now);
        assert_eq!(d.slice_end(0, now), SliceEnd::Requeue);
        // UNIX: back in the queue, the running process stays unless one
        // waiting is strictly better.
        let mut d = dispatcher(Scheduler::Unix(Unix::default()));
        let _ = d.run(0, SimTime::ZERO, SimTime::ZERO);
        assert_eq!(d.slice_end(0, now), SliceEnd::RunOn);
        let _ = d.run(1, SimTime::ZERO, SimTime::ZERO);
        d.stop(1, secs(0.5));
        d.push(1, now);
        // 1 used less: it goes first.
        assert_eq!(d.slice_end(0, now), SliceEnd::Requeue);
        let mut d = dispatcher(Scheduler::Multics(Multics::default()));
        assert_eq!(d.slice_end(0, now), SliceEnd::LoseEligibility);
    }

    #[test]
    fn multics_doubles_the_quantum_at_each_level_down_to_the_last() {
        let multics = Multics {
            levels: 3,
            ..Multics::default()
        };
        let mut d = dispatcher(Scheduler::Multics(multics));
        let mut quanta = Vec::new();
        for order in 1..=4 {
            d.grant(0, order);
            quanta.push(d.slice(0, SimTime::ZERO).as_secs_f64());
            d.demote(0);
        }
        assert_eq!(quanta, [0.1, 0.2, 0.4, 0.4]);
        d.charge(0, secs(0.15));
        assert_eq!(d.slice(0, SimTime::ZERO), secs(0.25));
        // A new command starts at the top level again.
        d.restart(0);
        d.grant(0, 5);
        assert_eq!((d.level(0), d.slice(0, SimTime::ZERO)), (0, secs(0.1)));
        // The eligible run in the order they were awarded eligibility.
        d.grant(1, 6);
        d.push(1, SimTime::ZERO);
        d.push(0, SimTime::ZERO);
        assert_eq!(d.pop(SimTime::ZERO), Some(0));
        assert!(!d.queued(0) && d.queued(1));
    }
}
