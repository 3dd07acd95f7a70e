//! Eligibility: which processes may compete for memory and processors.
//!
//! A process with work to do is either eligible or waits for eligibility
//! in a queue of its level, first come first served within a level. When
//! eligibility can be awarded, it goes to the head of the best (lowest)
//! level that has a waiting process, if the rule lets it in:
//! - fewer than `min` processes eligible: always;
//! - `max` or more eligible: never;
//! - otherwise, under a working-set test, only if the working-set
//!   estimates of the eligible processes and its own fit in memory.
//!
//! The rule is that of Multics traffic control (MR12 `pxss.alm`, its
//! `test_award`: below `min_eligible` award, at `max_eligible` refuse,
//! else award if `ws_sum` plus the process's `ws_size` fits in the pages
//! in use). Only the head of the best level is considered: a process that
//! does not fit holds back those behind it, so a large job is not
//! overtaken for ever (tpsim's reading; MR12's work classes choose among
//! queues by credits instead). The round-robin and UNIX schedulers use one
//! level and the count alone: at most `max_multiprogramming` eligible,
//! first come first served.

use super::memory::Manager;
use super::per_process::PerProcess;
use crate::system::{Scheduler, System};
use std::collections::VecDeque;

/// When eligibility may be awarded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Rule {
    /// Below this many eligible, award whatever the working sets.
    pub min: u32,
    /// Never more eligible than this.
    pub max: Option<u32>,
    /// The pages the eligible processes' working-set estimates must fit
    /// in; `None` for no working-set test.
    pub memory: Option<f64>,
}

/// A process waiting for eligibility, with its working-set estimate.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Waiting {
    pid: usize,
    estimate: f64,
}

/// The eligible set and the queues of processes waiting to join it.
#[derive(Debug)]
pub(super) struct Eligibility {
    rule: Rule,
    /// Per level, the processes waiting, oldest first.
    waiting: Vec<VecDeque<Waiting>>,
    waiting_count: usize,
    eligible: u32,
    /// The sum of the eligible processes' estimates, as awarded.
    working_sets: f64,
    /// Awards so far: the order of the eligible queue.
    awards: u64,
    /// Each process's last award (nothing before its first).
    granted: PerProcess<Granted>,
}

/// What a process was last awarded eligibility with.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Granted {
    /// The working-set estimate it was let in with \[pages\].
    estimate: f64,
    /// Whether it holds eligibility now.
    holds: bool,
}

/// Eligibility awarded to a process.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Award {
    pub pid: usize,
    /// Its place in the order of awards (earlier is smaller).
    pub order: u64,
    /// The estimate it was let in with, to give back when it leaves.
    pub estimate: f64,
}

impl Eligibility {
    pub(super) fn new(rule: Rule, levels: u8) -> Eligibility {
        assert!(
            levels >= 1 && rule.min >= 1,
            "validation: a level and a minimum"
        );
        Eligibility {
            rule,
            waiting: (0..levels).map(|_| VecDeque::new()).collect(),
            waiting_count: 0,
            eligible: 0,
            working_sets: 0.0,
            awards: 0,
            granted: PerProcess::default(),
        }
    }

    /// `pid` is a new process, not yet eligible.
    pub(super) fn enter(&mut self, pid: usize) {
        self.granted.insert(pid, Granted::default());
    }

    /// `pid` waits for eligibility at `level` (the last level if beyond
    /// it), with a working-set `estimate` in pages.
    pub(super) fn wait(&mut self, pid: usize, level: u8, estimate: f64) {
        let last = self.waiting.len() - 1;
        self.waiting[usize::from(level).min(last)].push_back(Waiting { pid, estimate });
        self.waiting_count += 1;
    }

    /// Awards eligibility to the next waiting process if the rule lets it
    /// in.
    pub(super) fn award(&mut self) -> Option<Award> {
        let queue = self.waiting.iter_mut().find(|q| !q.is_empty())?;
        let head = *queue.front().expect("a non-empty level");
        let rule = self.rule;
        let fits = if self.eligible < rule.min {
            true
        } else if rule.max.is_some_and(|m| self.eligible >= m) {
            false
        } else {
            rule.memory
                .is_none_or(|pages| self.working_sets + head.estimate <= pages)
        };
        if !fits {
            return None;
        }
        queue.pop_front();
        self.waiting_count -= 1;
        self.eligible += 1;
        self.working_sets += head.estimate;
        self.awards += 1;
        self.granted[head.pid] = Granted {
            estimate: head.estimate,
            holds: true,
        };
        Some(Award {
            pid: head.pid,
            order: self.awards,
            estimate: head.estimate,
        })
    }

    /// `pid`, awarded eligibility, gives it up, and with it the estimate
    /// it was let in with.
    pub(super) fn release(&mut self, pid: usize) {
        assert!(
            std::mem::take(&mut self.granted[pid].holds),
            "a release follows an award"
        );
        self.eligible -= 1;
        self.working_sets -= self.granted[pid].estimate;
        if self.eligible == 0 {
            // No drift from sums of fractions.
            self.working_sets = 0.0;
        }
    }

    /// Whether `pid` holds eligibility: awarded it and not released since.
    pub(super) fn holds(&self, pid: usize) -> bool {
        self.granted[pid].holds
    }

    /// The working-set estimate `pid` was last let in with \[pages\].
    pub(super) fn estimate(&self, pid: usize) -> f64 {
        self.granted[pid].estimate
    }

    /// The number of eligible processes.
    #[cfg(debug_assertions)]
    pub(super) fn eligible(&self) -> u32 {
        self.eligible
    }

    /// The number of processes waiting.
    #[cfg(debug_assertions)]
    pub(super) fn waiting(&self) -> usize {
        self.waiting_count
    }
}

/// Who may be eligible: under Multics by the scheduler's settings and
/// working sets against user memory; under the working-set and page-fault
/// frequency policies by resident sets against user memory; otherwise at
/// most
/// `max_multiprogramming` processes, whatever their sizes.
pub(super) fn eligibility_rule(sys: &System, memory: Manager) -> Rule {
    if let Scheduler::RoundRobin | Scheduler::Unix(_) | Scheduler::Fair(_) = sys.cpu.scheduler
        && memory.load_controlled()
    {
        // The local policies' load control: a command is let in while the
        // working sets (resident sets) of those in fit in user memory, one
        // at least.
        return Rule {
            min: 1,
            max: sys.cpu.max_multiprogramming,
            memory: Some(sys.memory.user_frames() as f64),
        };
    }
    match (sys.cpu.scheduler, sys.cpu.max_multiprogramming) {
        (Scheduler::Multics(m), max) => Rule {
            min: m.min_eligible,
            max,
            memory: (m.working_set_factor > 0.0)
                .then(|| sys.memory.user_frames() as f64 / m.working_set_factor),
        },
        (_, Some(max)) => Rule {
            min: max,
            max: Some(max),
            memory: None,
        },
        (_, None) => Rule {
            min: u32::MAX,
            max: None,
            memory: None,
        },
    }
}

/// The number of queue levels eligibility is awarded from.
pub(super) fn levels(sys: &System) -> u8 {
    match sys.cpu.scheduler {
        Scheduler::Multics(m) => m.levels,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn awards(e: &mut Eligibility) -> Vec<usize> {
        std::iter::from_fn(|| e.award()).map(|a| a.pid).collect()
    }

    /// Eligibility under `rule` with `levels`, processes 0 to 9 entered.
    fn with_processes(rule: Rule, levels: u8) -> Eligibility {
        let mut e = Eligibility::new(rule, levels);
        (0..10).for_each(|pid| e.enter(pid));
        e
    }

    #[test]
    fn a_count_alone_admits_first_come_first_served() {
        let rule = Rule {
            min: 2,
            max: Some(2),
            memory: None,
        };
        let mut e = with_processes(rule, 1);
        for pid in [7, 3, 9] {
            e.wait(pid, 4, 1e9);
        }
        assert_eq!(awards(&mut e), [7, 3]);
        assert!(e.holds(7) && e.holds(3) && !e.holds(9));
        e.release(7);
        assert!(!e.holds(7));
        let next = e.award().unwrap();
        assert_eq!((next.pid, next.order), (9, 3));
        assert!(e.holds(9));
        assert_eq!(e.waiting(), 0);
    }

    #[test]
    #[should_panic(expected = "a release follows an award")]
    fn a_process_gives_up_only_what_it_holds() {
        let rule = Rule {
            min: 2,
            max: None,
            memory: None,
        };
        let mut e = with_processes(rule, 1);
        e.wait(1, 0, 1.0);
        e.wait(2, 0, 1.0);
        assert_eq!(awards(&mut e), [1, 2]);
        e.release(1);
        // Two awarded, so the count alone would let a second release of
        // the same process through.
        e.release(1);
    }

    #[test]
    fn working_sets_must_fit_above_the_minimum_and_the_best_level_goes_first() {
        let rule = Rule {
            min: 1,
            max: Some(3),
            memory: Some(100.0),
        };
        let mut e = with_processes(rule, 3);
        // A large job is let in under the minimum, whatever its size.
        e.wait(1, 2, 150.0);
        assert_eq!(awards(&mut e), [1]);
        // Beside it nothing fits, not even a small one.
        e.wait(2, 0, 10.0);
        assert_eq!(awards(&mut e), [0usize; 0]);
        e.release(1);
        // Level 0 before level 2, whatever the order of arrival; the head
        // of the best level holds back the rest when it does not fit.
        e.wait(3, 2, 5.0);
        e.wait(4, 1, 90.0);
        let orders = |e: &mut Eligibility| {
            std::iter::from_fn(|| e.award())
                .map(|a| (a.pid, a.order))
                .collect::<Vec<_>>()
        };
        assert_eq!(orders(&mut e), [(2, 2), (4, 3)]);
        assert_eq!(e.eligible(), 2);
        assert_eq!(e.estimate(2), 10.0);
        e.release(2);
        assert_eq!(awards(&mut e), [3]);
        // At the maximum, nothing more.
        e.wait(5, 0, 0.0);
        e.wait(6, 0, 0.0);
        assert_eq!(awards(&mut e), [5]);
        assert_eq!((e.eligible(), e.waiting()), (3, 1));
    }

    #[test]
    fn a_release_gives_back_its_own_working_set_only() {
        let rule = Rule {
            min: 1,
            max: None,
            memory: Some(100.0),
        };
        let mut e = with_processes(rule, 1);
        e.wait(1, 0, 60.0);
        e.wait(2, 0, 30.0);
        assert_eq!(awards(&mut e), [1, 2]);
        e.release(2);
        // 60 pages are still estimated in use: 50 more do not fit.
        e.wait(3, 0, 50.0);
        assert_eq!(awards(&mut e), [0usize; 0]);
        e.release(1);
        assert_eq!(awards(&mut e), [3]);
    }
}
