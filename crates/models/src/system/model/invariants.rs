//! The core's invariants, rechecked after every event in debug builds:
//! what the model keeps incrementally against a recount from the
//! processes' states.

use super::memory::Processes;
use super::{Residence, State, SystemModel, indicators};

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
