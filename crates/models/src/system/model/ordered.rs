//! Slots (processes, processors) kept in order of a key, each at most once.
//!
//! Replacement, the swapper and the ready queue each choose a process by
//! the least of some key (when it last ran, when it went out, its
//! priority and ticket) among processes that join and leave all the time,
//! from anywhere in the order; dispatching takes the lowest-numbered idle
//! processor. A binary heap that records every slot's place in it does
//! each of those in a logarithm of the number held, with a few
//! comparisons of small keys: fewer instructions than an ordered tree
//! (docs/PERFORMANCE.md). Ties between equal keys go to the lower slot, so
//! the order is total and every choice reproducible.

/// Where an absent process is recorded to be.
const ABSENT: u32 = u32::MAX;

/// Slots ordered by `(key, slot)`.
#[derive(Debug)]
pub(super) struct SlotHeap<K> {
    /// The heap: every entry's `(key, slot)` is no less than its parent's.
    entries: Vec<(K, u32)>,
    /// Each slot's index in `entries`, or `ABSENT`.
    places: Vec<u32>,
}

impl<K> Default for SlotHeap<K> {
    fn default() -> Self {
        SlotHeap {
            entries: Vec::new(),
            places: Vec::new(),
        }
    }
}

impl<K: Ord + Copy> SlotHeap<K> {
    /// Files `pid` under `key`; it must not be filed already.
    pub(super) fn insert(&mut self, pid: usize, key: K) {
        let slot = u32::try_from(pid).expect("process slots fit in 32 bits");
        assert!(slot != ABSENT, "process slots fit in 32 bits");
        if pid >= self.places.len() {
            self.places.resize(pid + 1, ABSENT);
        }
        assert_eq!(self.places[pid], ABSENT, "a process is filed once");
        self.entries.push((key, slot));
        self.sift_up(self.entries.len() - 1);
    }

    /// Takes `pid` out and returns the key it was filed under, if it was
    /// filed.
    pub(super) fn remove(&mut self, pid: usize) -> Option<K> {
        let at = *self.places.get(pid)?;
        if at == ABSENT {
            return None;
        }
        Some(self.take(at as usize).0)
    }

    /// The least `(key, slot)`.
    pub(super) fn first(&self) -> Option<(K, usize)> {
        self.entries
            .first()
            .map(|&(key, slot)| (key, slot as usize))
    }

    /// The least `(key, slot)` with a slot other than `except`: the root,
    /// or else the lesser of its children.
    pub(super) fn first_except(&self, except: usize) -> Option<(K, usize)> {
        match self.entries.first() {
            Some(&(key, slot)) if slot as usize != except => Some((key, slot as usize)),
            Some(_) => self
                .entries
                .get(1..3.min(self.entries.len()))
                .and_then(|children| children.iter().min())
                .map(|&(key, slot)| (key, slot as usize)),
            None => None,
        }
    }

    /// Takes out the least `(key, slot)`.
    pub(super) fn pop_first(&mut self) -> Option<(K, usize)> {
        if self.entries.is_empty() {
            return None;
        }
        let (key, slot) = self.take(0);
        Some((key, slot as usize))
    }

    /// How many slots are filed (for the model's checks of itself).
    #[cfg(any(debug_assertions, test))]
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Removes the entry at index `at`: the last entry takes its place and
    /// moves up or down to where it belongs.
    fn take(&mut self, at: usize) -> (K, u32) {
        let last = self.entries.len() - 1;
        self.entries.swap(at, last);
        let taken = self.entries.pop().expect("a filed process");
        self.places[taken.1 as usize] = ABSENT;
        if at < last {
            self.places[self.entries[at].1 as usize] = at as u32;
            let up = self.sift_up(at);
            if up == at {
                self.sift_down(at);
            }
        }
        taken
    }

    /// Moves the entry at `at` up to where it belongs; returns where.
    fn sift_up(&mut self, mut at: usize) -> usize {
        let entry = self.entries[at];
        while at > 0 {
            let parent = (at - 1) / 2;
            if self.entries[parent] <= entry {
                break;
            }
            self.put(at, self.entries[parent]);
            at = parent;
        }
        self.put(at, entry);
        at
    }

    /// Moves the entry at `at` down to where it belongs.
    fn sift_down(&mut self, mut at: usize) {
        let entry = self.entries[at];
        let len = self.entries.len();
        loop {
            let left = 2 * at + 1;
            if left >= len {
                break;
            }
            let right = left + 1;
            let least = if right < len && self.entries[right] < self.entries[left] {
                right
            } else {
                left
            };
            if entry <= self.entries[least] {
                break;
            }
            self.put(at, self.entries[least]);
            at = least;
        }
        self.put(at, entry);
    }

    fn put(&mut self, at: usize, entry: (K, u32)) {
        self.entries[at] = entry;
        self.places[entry.1 as usize] = at as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    #[test]
    fn ties_go_to_the_lower_slot_and_the_faulting_process_is_skipped() {
        let mut h = SlotHeap::default();
        for (pid, key) in [(7, 3), (2, 3), (5, 1), (9, 4)] {
            h.insert(pid, key);
        }
        assert_eq!(h.first(), Some((1, 5)));
        assert_eq!(h.first_except(5), Some((3, 2)));
        assert_eq!(h.first_except(2), Some((1, 5)));
        assert_eq!(h.remove(5), Some(1));
        assert_eq!(h.remove(5), None);
        assert_eq!(h.remove(40), None);
        assert_eq!(h.pop_first(), Some((3, 2)));
        assert_eq!(h.first_except(7), Some((4, 9)));
        assert_eq!(h.len(), 2);
    }

    #[derive(Clone, Debug)]
    enum Op {
        Insert(usize, u8),
        Remove(usize),
        PopFirst,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0..24usize, any::<u8>()).prop_map(|(p, k)| Op::Insert(p, k % 8)),
            (0..24usize).prop_map(Op::Remove),
            Just(Op::PopFirst),
        ]
    }

    proptest! {
        /// Every operation answers as an ordered set of `(key, slot)` does.
        #[test]
        fn a_heap_answers_as_an_ordered_set(ops in proptest::collection::vec(op(), 0..200)) {
            let mut heap = SlotHeap::default();
            let mut set = BTreeSet::new();
            let mut keys = [None; 24];
            for op in ops {
                match op {
                    Op::Insert(pid, key) if keys[pid].is_none() => {
                        heap.insert(pid, key);
                        set.insert((key, pid));
                        keys[pid] = Some(key);
                    }
                    Op::Insert(..) => {}
                    Op::Remove(pid) => {
                        let expected = keys[pid].take();
                        if let Some(key) = expected {
                            set.remove(&(key, pid));
                        }
                        prop_assert_eq!(heap.remove(pid), expected);
                    }
                    Op::PopFirst => {
                        let expected = set.pop_first();
                        if let Some((_, pid)) = expected {
                            keys[pid] = None;
                        }
                        prop_assert_eq!(heap.pop_first(), expected);
                    }
                }
                prop_assert_eq!(heap.first(), set.first().copied());
                prop_assert_eq!(heap.len(), set.len());
                for except in 0..24 {
                    let expected = set.iter().find(|&&(_, p)| p != except).copied();
                    prop_assert_eq!(heap.first_except(except), expected);
                }
            }
        }
    }
}
