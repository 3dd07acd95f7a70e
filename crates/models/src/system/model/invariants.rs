//! The core's invariants, rechecked after events in debug builds: what
//! the model keeps incrementally against a recount from the processes'
//! states.
//!
//! A recount reads every process and costs several times an event: after
//! every event it made the debug build's long runs (the statistical tests'
//! replications) some eight times slower than now. So a run is rechecked
//! after each of its first `EVERY_EVENT_UNTIL` events (a short run's every
//! event), and then after every `STRIDE`-th: a count that drifts stays
//! wrong, and is found within `STRIDE` events unless the run ends first;
//! a fault lasting one event is caught about once in `STRIDE` times. The
//! stride is prime, so that it does not keep step with a cycle of events.

use super::memory::Processes;
use super::{Residence, State, SystemModel, indicators};

/// The events after a run's start that are each followed by a recheck.
const EVERY_EVENT_UNTIL: u64 = 1 << 16;

/// Past them, a recheck follows every this many events.
const STRIDE: u64 = 17;

/// Whether the `n`-th event of a run (from 1) is followed by a recheck.
pub(super) fn due(n: u64) -> bool {
    n <= EVERY_EVENT_UNTIL || n.is_multiple_of(STRIDE)
}

impl SystemModel<'_> {
    /// Recounts what the model keeps incrementally: memory held, the
    /// multiprogramming and waiting counts, the bulk store's pages.
    pub(super) fn check_invariants(&self) {
        assert_eq!(
            self.stats.occupancy.value(),
            self.memory.occupancy(self.sys),
            "the occupancy meter follows free memory"
        );
        assert!(
            self.effects.is_empty(),
            "what calls into memory left to do is done by the end of an event"
        );
        let processes = Processes::of(&self.procs, self.sys, &self.cpus);
        let outside = |pid: usize| (self.files.of[pid].exec.pending, self.eligibility.holds(pid));
        self.memory.check(&processes, outside);
        self.check_counts();
        self.files.check(|pid| self.procs.state(pid) == State::Io);
        self.files
            .check_owing(self.procs.iter().map(|(pid, _)| pid));
        let mut of_class = vec![0; self.sys.classes.len()];
        self.procs.iter().for_each(|(_, p)| of_class[p.class] += 1);
        self.files.check_texts(&of_class);
    }

    /// The multiprogramming and waiting meters, the candidate sets, the
    /// ready queue, eligibility and the processors count what the
    /// processes' states say.
    fn check_counts(&self) {
        let states = || self.procs.iter().map(|(pid, p)| (self.procs.state(pid), p));
        let (mpl, waiting) = self
            .procs
            .iter()
            .map(|(pid, p)| indicators(self.procs.state(pid), p, self.memory.of[pid].waiting_frame))
            .fold((0, 0), |(m, w), (a, b)| {
                (m + u32::from(a), w + u32::from(b))
            });
        assert_eq!(
            (self.stats.mpl.value(), self.stats.waiting.value()),
            (f64::from(mpl), f64::from(waiting))
        );
        for (pid, p) in self.procs.iter() {
            let queued = self.procs.state(pid) == State::Runnable && p.residence == Residence::In;
            assert_eq!(
                self.cpus.scheduler.queued(pid),
                queued,
                "queued when ready in memory"
            );
        }
        assert_eq!(
            (self.eligibility.eligible(), self.eligibility.waiting()),
            (
                self.procs
                    .iter()
                    .filter(|&(pid, _)| self.eligibility.holds(pid))
                    .count() as u32,
                states()
                    .filter(|&(state, _)| state == State::WaitEligible)
                    .count()
            ),
            "eligibility counts its processes"
        );
        assert_eq!(
            self.cpus.idle.len(),
            self.cpus.running.iter().filter(|b| b.is_none()).count()
        );
        self.cpus.check_classes(|pid| self.procs[pid].class);
        self.cpus
            .scheduler
            .check(self.procs.iter().map(|(pid, _)| pid));
        assert_eq!(
            self.cpus.scheduler.len(),
            states()
                .filter(|&(state, p)| state == State::Runnable && p.residence == Residence::In)
                .count(),
            "the ready queue holds exactly the runnable resident processes"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::{EVERY_EVENT_UNTIL, STRIDE, due};

    #[test]
    fn every_event_is_rechecked_at_the_start_and_then_one_in_each_stride() {
        assert!((1..=EVERY_EVENT_UNTIL).all(due));
        for start in [EVERY_EVENT_UNTIL + 1, 1 << 20, u64::MAX - STRIDE] {
            let checked = (start..start + STRIDE).filter(|&n| due(n)).count();
            assert_eq!(checked, 1, "one recheck in the stride from {start}");
        }
    }
}
