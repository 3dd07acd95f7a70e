//! The processors and the bursts they run.
//!
//! A burst is a stretch of one processor's time for one process: the
//! device interrupts left pending, then the context switch, then the work
//! (the process's own, or the kernel's on its behalf: a fault's path, a
//! segment fault, exec's copies). It is decided when it is dispatched, so
//! it ends at one event: `Processors::start` puts it on a processor and
//! schedules that event, the one way a burst starts. A process's
//! `Countdowns` say how much processor time it has still to run before its
//! next I/O request, segment fault and data-file block, the ends a burst
//! of its own work may have besides its quantum, its next page fault and
//! the end of its demand.
//!
//! `Processors` is the processor station as a whole: the processors, the
//! scheduler's ready queue in front of them (`Dispatcher`) and the
//! station's meter, kept together so that a process joining the queue,
//! taken from it or leaving a processor is counted where it happens.

use super::scheduler::Dispatcher;
use super::{Context, Event, EventKey, SimTime, SlotHeap, StationMeter, event_index};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Outcome {
    Done,
    Io,
    Fault,
    SegmentFault,
    /// A block of a data file is due.
    File,
    Quantum,
}

#[derive(Clone, Copy, Debug)]
pub(super) enum BurstKind {
    User(Outcome),
    /// The kernel's path for a fault served by this device.
    Fault,
    /// The kernel's handling of a segment fault.
    SegmentFault,
    /// The kernel copying the blocks exec read from the buffer cache into
    /// the process's memory.
    Copy,
    /// The kernel clearing the empty pages of a new image at exec
    /// (swapping).
    Clear,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Burst {
    pub(super) pid: usize,
    pub(super) kind: BurstKind,
    pub(super) start: SimTime,
    /// The interrupts left pending run first, up to here ...
    pub(super) interrupt_end: SimTime,
    /// ... then the context switch, up to here, then the work.
    pub(super) switch_end: SimTime,
    pub(super) end: SimTime,
}

impl Burst {
    /// The kernel's work of `kind` for `pid` from `now`, taking `cost`:
    /// no interrupts or switch before it.
    pub(super) fn kernel(pid: usize, kind: BurstKind, now: SimTime, cost: SimTime) -> Burst {
        Burst {
            pid,
            kind,
            start: now,
            interrupt_end: now,
            switch_end: now,
            end: now + cost,
        }
    }
}

/// The processors: the burst each is running, which are idle, the ready
/// queue and their meter.
#[derive(Debug)]
pub(super) struct Processors {
    /// The scheduler and its ready queue.
    pub(super) scheduler: Dispatcher,
    /// The burst on each processor.
    pub(super) running: Vec<Option<Burst>>,
    /// The processors without a burst, lowest-numbered first.
    pub(super) idle: SlotHeap<()>,
    /// The pending end of each processor's burst.
    pub(super) burst_keys: Vec<Option<EventKey>>,
    /// Busy processors and processes present, for the station table.
    pub(super) meter: StationMeter,
    /// Processor time of the device interrupts not yet handled: the next
    /// burst dispatched runs them first.
    pub(super) pending_interrupts: SimTime,
    /// How many processes of each class are on a processor: whether a
    /// class's shared text is in use is a lookup, not a pass over the
    /// processors.
    by_class: Vec<u32>,
}

impl Processors {
    /// `count` idle processors served by `scheduler`, for processes of
    /// `classes` classes.
    pub(super) fn new(count: usize, classes: usize, scheduler: Dispatcher) -> Processors {
        Processors {
            scheduler,
            running: vec![None; count],
            idle: {
                let mut idle = SlotHeap::default();
                (0..count).for_each(|cpu| idle.insert(cpu, ()));
                idle
            },
            burst_keys: vec![None; count],
            meter: StationMeter::new(),
            pending_interrupts: SimTime::ZERO,
            by_class: vec![0; classes],
        }
    }

    /// The idle processor `cpu` is taken by a process of `class`.
    pub(super) fn take(&mut self, cpu: usize, class: usize) {
        assert!(self.idle.remove(cpu).is_some(), "the processor was idle");
        self.by_class[class] += 1;
    }

    /// Checks the counts of processes on processors by class against the
    /// bursts, the class of a process being `class_of` it.
    #[cfg(debug_assertions)]
    pub(super) fn check_classes(&self, class_of: impl Fn(usize) -> usize) {
        let mut by_class = vec![0; self.by_class.len()];
        for burst in self.running.iter().flatten() {
            by_class[class_of(burst.pid)] += 1;
        }
        assert_eq!(by_class, self.by_class, "processes on processors by class");
    }

    /// Whether a process of `class` is on a processor.
    #[inline]
    pub(super) fn runs_class(&self, class: usize) -> bool {
        self.by_class[class] > 0
    }

    /// `pid` joins the ready queue at `now`.
    pub(super) fn enqueue(&mut self, pid: usize, now: SimTime) {
        self.meter.present.add(now, 1.0);
        self.scheduler.push(pid, now);
    }

    /// Takes `pid` out of the ready queue at `now`.
    pub(super) fn dequeue(&mut self, pid: usize, now: SimTime) {
        self.scheduler.remove(pid, now);
        self.meter.present.add(now, -1.0);
    }

    /// Takes the process to run next at `now` out of the ready queue; its
    /// wait there ends.
    pub(super) fn take_best(&mut self, now: SimTime) -> usize {
        let pid = self.scheduler.pop(now).expect("a ready process");
        self.meter.start_service(self.scheduler.arrival(pid), now);
        pid
    }

    /// `pid`, of `class`, leaves `cpu` at `now`, which becomes idle.
    pub(super) fn leave(&mut self, cpu: usize, pid: usize, class: usize, now: SimTime) {
        self.running[cpu] = None;
        self.idle.insert(cpu, ());
        self.by_class[class] -= 1;
        self.scheduler.stop(pid, now);
        self.meter.busy.add(now, -1.0);
        self.meter.depart(self.scheduler.arrival(pid), now);
    }

    /// The processor whose process `pid`, just made ready at `now`, is to
    /// take, if the scheduler says it preempts one running its own work.
    pub(super) fn preemption_for(&self, pid: usize, now: SimTime) -> Option<usize> {
        let users = || {
            self.running
                .iter()
                .enumerate()
                .filter_map(|(cpu, b)| match b {
                    Some(b) if matches!(b.kind, BurstKind::User(_)) => Some((b.pid, cpu)),
                    _ => None,
                })
        };
        self.scheduler.preempts(pid, now, users)
    }

    /// Puts `burst` on `cpu` and schedules its end: the one way a burst
    /// starts, a process's own work or the kernel's.
    pub(super) fn start(&mut self, cpu: usize, burst: Burst, ctx: &mut Context<Event>) {
        self.running[cpu] = Some(burst);
        self.burst_keys[cpu] = Some(ctx.schedule_at(
            burst.end,
            Event::BurstEnd {
                cpu: event_index(cpu),
            },
        ));
    }

    /// Puts the kernel's work of `kind` for `pid` on `cpu` from now, taking
    /// `cost`: the one way a kernel path starts.
    pub(super) fn start_kernel(
        &mut self,
        cpu: usize,
        pid: usize,
        kind: BurstKind,
        cost: SimTime,
        ctx: &mut Context<Event>,
    ) {
        self.start(cpu, Burst::kernel(pid, kind, ctx.now(), cost), ctx);
    }

    /// Processes ready for a processor or running.
    pub(super) fn runnable(&self) -> u32 {
        let running = self.running.iter().filter(|b| b.is_some()).count();
        (self.scheduler.len() + running) as u32
    }

    /// The processors idle now, as the busy meter counts them.
    pub(super) fn idle_count(&self) -> f64 {
        self.running.len() as f64 - self.meter.busy.value()
    }

    /// Whether `pid` is on a processor in a kernel path (a page or segment
    /// fault), where the swappers do not take it.
    pub(super) fn in_kernel_path(&self, pid: usize) -> bool {
        self.running
            .iter()
            .flatten()
            .any(|b| b.pid == pid && !matches!(b.kind, BurstKind::User(_)))
    }
}

/// Processor time a process has still to run before each of the events
/// its demand is spread with; `SimTime::MAX` for one that will not come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Countdowns {
    /// To the next I/O request.
    pub(super) io: SimTime,
    /// To the next segment fault.
    pub(super) segment: SimTime,
    /// To the next block of a data file.
    pub(super) file: SimTime,
}

impl Countdowns {
    /// None of the events will come.
    pub(super) const NONE: Countdowns = Countdowns {
        io: SimTime::MAX,
        segment: SimTime::MAX,
        file: SimTime::MAX,
    };

    /// Takes processor time `ran` off every countdown that runs.
    pub(super) fn charge(&mut self, ran: SimTime) {
        for due in [&mut self.io, &mut self.segment, &mut self.file] {
            if *due != SimTime::MAX {
                *due = *due - ran;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::StationDiscipline;
    use crate::system::Scheduler;
    use crate::system::model::frames::tests::{TEN_PAGE_SETS, with_process_at};

    #[test]
    fn a_burst_starts_on_a_processor_and_ends_at_one_event() {
        with_process_at(TEN_PAGE_SETS, SimTime::from_secs(2), |_, ctx, pid| {
            let mut cpus = Processors::new(
                2,
                1,
                Dispatcher::new(Scheduler::RoundRobin, SimTime::from_secs(1), 2),
            );
            assert!(cpus.running.iter().all(Option::is_none));
            assert_eq!(cpus.idle.len(), 2);
            let cost = SimTime::from_secs(3);
            let burst = Burst::kernel(pid, BurstKind::Fault, ctx.now(), cost);
            // The kernel's work: no interrupts or switch before it.
            assert_eq!(
                (
                    burst.start,
                    burst.interrupt_end,
                    burst.switch_end,
                    burst.end
                ),
                (ctx.now(), ctx.now(), ctx.now(), SimTime::from_secs(5))
            );
            let pending = ctx.pending();
            cpus.start(1, burst, ctx);
            assert!(cpus.running[0].is_none());
            assert_eq!(cpus.running[1].map(|b| b.pid), Some(pid));
            assert_eq!(ctx.pending(), pending + 1, "its end is scheduled");
            let key = cpus.burst_keys[1].expect("under its key");
            assert!(ctx.cancel(key));
            // In a fault's path the swappers leave it; in its own work not.
            assert!(cpus.in_kernel_path(pid) && !cpus.in_kernel_path(pid + 1));
            let own = Burst {
                kind: BurstKind::User(Outcome::Quantum),
                ..burst
            };
            cpus.start(1, own, ctx);
            assert!(!cpus.in_kernel_path(pid));
        });
    }

    #[test]
    fn the_station_counts_each_process_from_joining_the_queue_to_leaving_a_processor() {
        let secs = SimTime::from_secs;
        let queue = Dispatcher::new(Scheduler::RoundRobin, secs(1), 1);
        let mut cpus = Processors::new(1, 2, queue);
        for pid in 0..3 {
            cpus.scheduler.enter(pid, 0, SimTime::ZERO);
        }
        // Three join at 1, 2 and 3 s; the third thinks better of it at 4 s.
        for pid in 0..3 {
            cpus.enqueue(pid, secs(pid as u64 + 1));
        }
        cpus.dequeue(2, secs(4));
        assert_eq!(cpus.meter.present.value(), 2.0);
        assert_eq!(cpus.runnable(), 2);
        // Round robin takes them in order of arrival: the first waited
        // 4 s, the second 6 s; each leaves its processor 1 s later.
        for (pid, at) in [(0, 5), (1, 8)] {
            assert_eq!(cpus.take_best(secs(at)), pid);
            assert!(!cpus.runs_class(pid % 2));
            cpus.take(0, pid % 2);
            assert!(cpus.runs_class(pid % 2) && !cpus.runs_class(1 - pid % 2));
            cpus.meter.busy.add(secs(at), 1.0);
            cpus.running[0] = Some(Burst::kernel(pid, BurstKind::Copy, secs(at), secs(1)));
            assert_eq!(cpus.runnable(), 2 - pid as u32);
            cpus.leave(0, pid, pid % 2, secs(at + 1));
            assert!(cpus.running[0].is_none() && cpus.idle.len() == 1);
            assert!(!cpus.runs_class(pid % 2));
        }
        let s = cpus
            .meter
            .summary("cpu", StationDiscipline::Rr, 1, true, secs(10), 10.0);
        assert_eq!(s.completions, 2);
        // Visits of 5 s and 7 s; waits of 4 s and 6 s, both waited.
        assert_eq!(s.mean_response, Some(6.0));
        assert_eq!(s.mean_wait, Some(5.0));
        assert_eq!(s.wait_probability, Some(1.0));
        // Present: 1 from 1 s, 2 from 2 s, 3 from 3 s, 2 from 4 s to 6 s,
        // 1 to 9 s, 0 after: 13 s of jobs over 10 s.
        assert!((s.mean_queue_length - 1.3).abs() < 1e-12, "{s:?}");
        assert!((s.utilization - 0.2).abs() < 1e-12, "{s:?}");
    }
}
