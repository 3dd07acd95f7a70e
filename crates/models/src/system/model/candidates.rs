//! The processes replacement and the swapper choose from, kept in order so
//! that a choice costs a logarithm of the number of processes, not a scan.
//!
//! The sets keep the keys each process is filed under ([`Keys`]); after
//! anything that may change them, the model refiles the process
//! (`SystemModel::reindex`), and in debug builds it checks after every
//! event that every process is filed under the keys its state calls for.

use super::ordered::SlotHeap;
use super::per_process::PerProcess;
use super::swapping::AGE_CAP;
use super::{Process, Residence, State};
use std::cmp::Reverse;
use tpsim_core::SimTime;

/// Where a process is filed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Keys {
    /// Paging: off a processor with pages in memory, by when it last ran.
    replaceable: Option<SimTime>,
    /// Swapping: runnable, eligible and swapped out, by when it went out.
    swap_in: Option<SimTime>,
    /// Swapping: asleep in memory, or waiting there for eligibility, by its
    /// image's size.
    sleeping: Option<u64>,
    /// Swapping: in memory and runnable, running or in I/O (and asleep,
    /// under the swapper behind the clock), by when it came in.
    resident: Option<SimTime>,
    /// The swapper behind the clock: asleep in memory, by when it fell
    /// asleep.
    asleep: Option<SimTime>,
}

/// How memory is managed, which decides the sets a process is filed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Managed {
    Swapping,
    /// Paging with replacement by process: replacement chooses from the
    /// processes off a processor with pages in memory.
    ProcessLru,
    /// Paging with memory as frames: the clock chooses frames, not
    /// processes; the swapper behind it, if there is one, chooses
    /// processes.
    Frames {
        swapper: bool,
    },
}

/// What of a process, besides `Process`, decides where it is filed (each
/// way of managing memory reads only some of it; the rest may be left at
/// its default).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Filing {
    /// Its private pages in memory (paging).
    pub(super) resident_pages: u64,
    /// When its image last moved in or out (the swappers).
    pub(super) last_swap: SimTime,
    /// Exec has still to read its image.
    pub(super) exec_pending: bool,
    /// Its image's size \[bytes\].
    pub(super) image: u64,
    /// It holds eligibility (the swapper brings in only the eligible).
    pub(super) eligible: bool,
    /// It waits for a free frame before its page read can start.
    pub(super) waiting_frame: bool,
}

impl Keys {
    /// The keys `p`, in `state`, with `f`, should be filed under when
    /// memory is managed as `memory`: never asked of a policy that files
    /// no process (`MemoryState::keys` answers none first).
    #[inline]
    pub(super) fn of(state: State, p: &Process, f: Filing, memory: Managed) -> Keys {
        match memory {
            Managed::ProcessLru => {
                return Keys {
                    replaceable: (f.resident_pages > 0 && state != State::Running)
                        .then_some(p.last_run),
                    ..Keys::default()
                };
            }
            Managed::Frames { swapper: false } => {
                unreachable!("with no swapper no process is filed (`MemoryState::keys`)")
            }
            Managed::Frames { swapper: true } => {
                let resident = p.residence == Residence::In && !f.waiting_frame;
                return Keys {
                    swap_in: (p.residence == Residence::Out && state == State::Runnable)
                        .then_some(f.last_swap),
                    // A process waiting for a page is not swapped out.
                    resident: (resident
                        && matches!(
                            state,
                            State::Runnable | State::Io | State::Running | State::Sleeping
                        ))
                    .then_some(f.last_swap),
                    asleep: (resident && state == State::Sleeping).then_some(p.last_run),
                    ..Keys::default()
                };
            }
            Managed::Swapping => {}
        }
        let resident = p.residence == Residence::In;
        Keys {
            replaceable: None,
            swap_in: (p.residence == Residence::Out && state == State::Runnable && f.eligible)
                .then_some(f.last_swap),
            sleeping: (resident && matches!(state, State::Sleeping | State::WaitEligible))
                .then_some(f.image),
            // A command still reading its image by exec is not swapped out.
            resident: (resident
                && !f.exec_pending
                && matches!(state, State::Runnable | State::Io | State::Running))
            .then_some(f.last_swap),
            asleep: None,
        }
    }
}

/// The ordered sets, and the keys each process is filed under.
#[derive(Debug, Default)]
pub(super) struct Candidates {
    /// Each process's keys, by its slot.
    keys: PerProcess<Keys>,
    replaceable: SlotHeap<SimTime>,
    swap_in: SlotHeap<SimTime>,
    sleeping: SlotHeap<Reverse<u64>>,
    /// Resident processes whose age is below the cap, by when they came in.
    aging: SlotHeap<SimTime>,
    /// Resident processes whose age has reached the cap: ages no longer
    /// differ, so they are ordered by slot.
    capped: SlotHeap<()>,
    asleep: SlotHeap<SimTime>,
}

impl Candidates {
    /// `pid` is a new process, filed nowhere yet.
    pub(super) fn enter(&mut self, pid: usize) {
        self.keys.insert(pid, Keys::default());
    }

    /// The keys `pid` is filed under.
    #[inline]
    pub(super) fn filed_under(&self, pid: usize) -> &Keys {
        &self.keys[pid]
    }

    /// Files `pid` under `new` instead of the keys it was filed under:
    /// it moves between the sets whose keys differ.
    pub(super) fn refile(&mut self, pid: usize, new: Keys) {
        let old = std::mem::replace(&mut self.keys[pid], new);
        if old.replaceable != new.replaceable {
            swap(&mut self.replaceable, pid, old.replaceable, new.replaceable);
        }
        if old.swap_in != new.swap_in {
            swap(&mut self.swap_in, pid, old.swap_in, new.swap_in);
        }
        if old.sleeping != new.sleeping {
            swap(
                &mut self.sleeping,
                pid,
                old.sleeping.map(Reverse),
                new.sleeping.map(Reverse),
            );
        }
        if old.asleep != new.asleep {
            swap(&mut self.asleep, pid, old.asleep, new.asleep);
        }
        if old.resident != new.resident {
            if let Some(t) = old.resident {
                match self.aging.remove(pid) {
                    Some(filed) => assert_eq!(filed, t, "a process is filed where its keys say"),
                    None => assert!(
                        self.capped.remove(pid).is_some(),
                        "a resident process is filed"
                    ),
                }
            }
            if let Some(t) = new.resident {
                self.aging.insert(pid, t);
            }
        }
    }

    /// The process that last ran longest ago among those with pages in
    /// memory and off a processor, other than `except`, with when it ran.
    pub(super) fn least_recently_run(&self, except: usize) -> Option<(SimTime, usize)> {
        self.replaceable.first_except(except)
    }

    /// The swapped-out runnable process that has been out longest (the
    /// lowest slot on a tie).
    pub(super) fn longest_out(&self) -> Option<usize> {
        self.swap_in.first().map(|(_, pid)| pid)
    }

    /// The largest sleeping process in memory (the lowest slot on a tie).
    pub(super) fn largest_sleeper(&self) -> Option<usize> {
        self.sleeping.first().map(|(_, pid)| pid)
    }

    /// The process asleep in memory that fell asleep first, with when.
    pub(super) fn longest_asleep(&self) -> Option<(SimTime, usize)> {
        self.asleep.first()
    }

    /// The resident busy process that has been in longest at `now`, ages
    /// capped at `AGE_CAP` (the lowest slot among the capped).
    pub(super) fn longest_in(&mut self, now: SimTime) -> Option<usize> {
        if now >= AGE_CAP {
            let cap = now - AGE_CAP;
            while let Some((t, pid)) = self.aging.first()
                && t <= cap
            {
                self.aging.pop_first();
                self.capped.insert(pid, ());
            }
        }
        self.capped
            .first()
            .map(|((), pid)| pid)
            .or_else(|| self.aging.first().map(|(_, pid)| pid))
    }

    /// Checks that each of `filed`, the live processes with the keys their
    /// state calls for, is filed under those keys, and that the sets hold
    /// no one else (debug builds).
    #[cfg(debug_assertions)]
    pub(super) fn check(&self, filed: impl Iterator<Item = (usize, Keys)>) {
        let mut count = [0; 5];
        for (pid, keys) in filed {
            assert_eq!(self.keys[pid], keys, "filed as its state says");
            for (n, f) in count.iter_mut().zip(keys.filed()) {
                *n += f;
            }
        }
        assert_eq!(self.sizes(), count, "no stale entries");
    }

    /// How many processes each set holds: replaceable, swap-in, sleeping,
    /// resident, asleep.
    #[cfg(any(debug_assertions, test))]
    fn sizes(&self) -> [usize; 5] {
        [
            self.replaceable.len(),
            self.swap_in.len(),
            self.sleeping.len(),
            self.aging.len() + self.capped.len(),
            self.asleep.len(),
        ]
    }
}

impl Keys {
    /// Which sets the keys file a process in, as `Candidates::sizes` counts.
    #[cfg(debug_assertions)]
    pub(super) fn filed(&self) -> [usize; 5] {
        [
            usize::from(self.replaceable.is_some()),
            usize::from(self.swap_in.is_some()),
            usize::from(self.sleeping.is_some()),
            usize::from(self.resident.is_some()),
            usize::from(self.asleep.is_some()),
        ]
    }
}

#[cfg(test)]
impl Keys {
    /// Keys under swapping: wanting in since, asleep in memory with an
    /// image of, or in memory since.
    pub(super) fn swapping(
        swap_in: Option<SimTime>,
        sleeping: Option<u64>,
        resident: Option<SimTime>,
    ) -> Keys {
        Keys {
            swap_in,
            sleeping,
            resident,
            ..Keys::default()
        }
    }
}

/// Refiles `pid` in `set` from under `old` to under `new`.
fn swap<K: Ord + Copy + std::fmt::Debug>(
    set: &mut SlotHeap<K>,
    pid: usize,
    old: Option<K>,
    new: Option<K>,
) {
    if old.is_some() {
        assert_eq!(
            set.remove(pid),
            old,
            "a process is filed where its keys say"
        );
    }
    if let Some(k) = new {
        set.insert(pid, k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Candidate sets with slots 0 to 9 entered, filed nowhere.
    fn ten_slots() -> Candidates {
        let mut c = Candidates::default();
        (0..10).for_each(|pid| c.enter(pid));
        c
    }

    fn resident(since: u64) -> Keys {
        Keys {
            resident: Some(SimTime::from_secs(since)),
            ..Keys::default()
        }
    }

    #[test]
    fn capped_ages_tie_and_the_lowest_slot_wins() {
        let mut c = ten_slots();
        // Slots 5, 3 and 8 came in at 10 s, 50 s and 20 s.
        for (pid, since) in [(5, 10), (3, 50), (8, 20)] {
            c.refile(pid, resident(since));
        }
        // At 100 s no age is capped: the one in longest goes first.
        assert_eq!(c.longest_in(SimTime::from_secs(100)), Some(5));
        // At 150 s slots 5 and 8 are both 127 s old or more: the lower
        // slot wins, as V7's scan of its process table finds it first.
        assert_eq!(c.longest_in(SimTime::from_secs(150)), Some(5));
        c.refile(5, Keys::default());
        assert_eq!(c.longest_in(SimTime::from_secs(150)), Some(8));
        // Slot 2 came in at 0 s, but at 200 s every age is capped.
        c.refile(2, resident(0));
        assert_eq!(c.longest_in(SimTime::from_secs(200)), Some(2));
        c.refile(2, Keys::default());
        assert_eq!(c.longest_in(SimTime::from_secs(200)), Some(3));
        assert_eq!(c.sizes(), [0, 0, 0, 2, 0]);
    }

    #[test]
    #[cfg(debug_assertions)]
    fn the_sets_check_each_process_s_keys_and_find_a_stale_entry() {
        let mut c = ten_slots();
        c.refile(4, resident(10));
        c.refile(6, resident(20));
        c.check([(4, resident(10)), (6, resident(20))].into_iter());
        // Process 6 has gone without being taken out of the sets.
        let stale = std::panic::catch_unwind(|| c.check([(4, resident(10))].into_iter()));
        assert!(stale.is_err(), "a stale entry is found");
        let moved = std::panic::catch_unwind(|| {
            c.check([(4, resident(10)), (6, resident(30))].into_iter())
        });
        assert!(moved.is_err(), "keys that changed unfiled are found");
    }

    #[test]
    fn replacement_skips_the_faulting_process() {
        let mut c = ten_slots();
        for (pid, ran) in [(1, 30), (2, 10), (3, 20)] {
            let keys = Keys {
                replaceable: Some(SimTime::from_secs(ran)),
                ..Keys::default()
            };
            c.refile(pid, keys);
        }
        assert_eq!(c.least_recently_run(9), Some((SimTime::from_secs(10), 2)));
        assert_eq!(c.least_recently_run(2), Some((SimTime::from_secs(20), 3)));
    }
}
