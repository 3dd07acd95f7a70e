//! The pending-event set.
//!
//! Events are kept in a binary heap keyed by `(time, sequence)`, where the
//! sequence number counts every `schedule` call. Events at the same instant
//! therefore come out first-in first-out and the order of a run is total and
//! reproducible. Payloads live in a slab beside the heap, so the heap moves
//! only small keys, and cancellation is lazy: a cancelled event's payload is
//! removed at once and its heap key is skipped when it reaches the front.
//! Stale keys are also swept out whenever they outnumber the live ones, so
//! a model that cancels many far-future events (timeouts that rarely fire)
//! keeps a heap proportional to its pending events, not to its history.

use crate::time::SimTime;
use slab::Slab;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// Identifies one scheduled event, for [`Calendar::cancel`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[must_use = "keep the key if the event may need to be cancelled"]
pub struct EventKey {
    slot: u32,
    seq: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct HeapKey {
    time: SimTime,
    seq: u64,
    slot: u32,
}

impl Ord for HeapKey {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.time, self.seq).cmp(&(other.time, other.seq))
    }
}

impl PartialOrd for HeapKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A pending-event set ordered by time, then by scheduling order.
#[derive(Debug)]
pub struct Calendar<E> {
    heap: BinaryHeap<Reverse<HeapKey>>,
    payloads: Slab<(u64, E)>,
    next_seq: u64,
    /// Heap keys whose event was cancelled and that are still in the heap.
    stale: usize,
}

/// Stale keys are swept once there are more than this many and they
/// outnumber the live ones: amortised O(1) per cancellation. Unit tests use
/// a small threshold so that the shadow-map test sweeps often.
const SWEEP_THRESHOLD: usize = if cfg!(test) { 4 } else { 64 };

impl<E> Default for Calendar<E> {
    fn default() -> Self {
        Calendar::new()
    }
}

impl<E> Calendar<E> {
    /// An empty calendar.
    pub fn new() -> Calendar<E> {
        Calendar {
            heap: BinaryHeap::new(),
            payloads: Slab::new(),
            next_seq: 0,
            stale: 0,
        }
    }

    /// Adds `event` at `time` and returns its key.
    pub fn schedule(&mut self, time: SimTime, event: E) -> EventKey {
        let seq = self.next_seq;
        self.next_seq += 1;
        let slot = self.payloads.insert((seq, event));
        let slot = u32::try_from(slot).expect("more than 2^32 pending events");
        self.heap.push(Reverse(HeapKey { time, seq, slot }));
        EventKey { slot, seq }
    }

    /// Removes a pending event. Returns `false` if it already fired or was
    /// already cancelled, so cancelling twice is harmless.
    pub fn cancel(&mut self, key: EventKey) -> bool {
        match self.payloads.get(key.slot as usize) {
            Some(&(seq, _)) if seq == key.seq => {
                self.payloads.remove(key.slot as usize);
                self.stale += 1;
                if self.stale > SWEEP_THRESHOLD && self.stale > self.payloads.len() {
                    self.sweep();
                }
                true
            }
            _ => false,
        }
    }

    /// Whether the event with this key is still pending.
    pub fn is_pending(&self, key: EventKey) -> bool {
        matches!(self.payloads.get(key.slot as usize), Some(&(seq, _)) if seq == key.seq)
    }

    /// Removes and returns the earliest pending event.
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        loop {
            let Reverse(key) = self.heap.pop()?;
            if let Some(event) = self.take_if_live(key) {
                return Some((key.time, event));
            }
            self.stale -= 1;
        }
    }

    /// The time of the earliest pending event.
    pub fn peek_time(&mut self) -> Option<SimTime> {
        loop {
            let Reverse(key) = *self.heap.peek()?;
            if self.is_live(key) {
                return Some(key.time);
            }
            self.heap.pop();
            self.stale -= 1;
        }
    }

    /// The number of pending (not cancelled) events.
    pub fn len(&self) -> usize {
        self.payloads.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.payloads.is_empty()
    }

    /// Drops every stale key from the heap.
    fn sweep(&mut self) {
        let payloads = &self.payloads;
        self.heap.retain(
            |Reverse(key)| matches!(payloads.get(key.slot as usize), Some(&(seq, _)) if seq == key.seq),
        );
        self.stale = 0;
    }

    fn is_live(&self, key: HeapKey) -> bool {
        matches!(self.payloads.get(key.slot as usize), Some(&(seq, _)) if seq == key.seq)
    }

    fn take_if_live(&mut self, key: HeapKey) -> Option<E> {
        if self.is_live(key) {
            Some(self.payloads.remove(key.slot as usize).1)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[derive(Clone, Debug)]
    enum Op {
        Schedule(u64),
        Cancel(usize),
        Pop,
        Peek,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => (0u64..50).prop_map(Op::Schedule),
            1 => (0usize..64).prop_map(Op::Cancel),
            2 => Just(Op::Pop),
            1 => Just(Op::Peek),
        ]
    }

    proptest! {
        // The calendar must agree, operation by operation, with a BTreeMap
        // keyed the same way: (time, insertion sequence).
        #[test]
        fn agrees_with_an_ordered_map(ops in prop::collection::vec(op(), 0..300)) {
            let mut calendar = Calendar::new();
            let mut shadow: BTreeMap<(u64, u64), u64> = BTreeMap::new();
            let mut keys: Vec<(EventKey, (u64, u64))> = Vec::new();
            let mut seq = 0u64;
            for op in ops {
                match op {
                    Op::Schedule(t) => {
                        let key = calendar.schedule(SimTime::from_nanos(t), seq);
                        shadow.insert((t, seq), seq);
                        keys.push((key, (t, seq)));
                        seq += 1;
                    }
                    Op::Cancel(i) if !keys.is_empty() => {
                        let (key, shadow_key) = keys[i % keys.len()];
                        let was_pending = shadow.remove(&shadow_key).is_some();
                        prop_assert_eq!(calendar.cancel(key), was_pending);
                        prop_assert!(!calendar.is_pending(key));
                    }
                    Op::Cancel(_) => {}
                    Op::Pop => {
                        let expected = shadow.pop_first().map(|((t, _), e)| (SimTime::from_nanos(t), e));
                        prop_assert_eq!(calendar.pop(), expected);
                    }
                    // Peeking drops stale keys from the front, so it is an
                    // operation of its own: pops must meet stale keys too.
                    Op::Peek => prop_assert_eq!(
                        calendar.peek_time(),
                        shadow.first_key_value().map(|(&(t, _), _)| SimTime::from_nanos(t))
                    ),
                }
                prop_assert_eq!(calendar.len(), shadow.len());
                prop_assert_eq!(calendar.heap.len(), calendar.len() + calendar.stale);
            }
        }
    }

    #[test]
    fn empty_until_scheduled_and_after_the_last_pop() {
        let mut calendar = Calendar::new();
        assert!(calendar.is_empty());
        let key = calendar.schedule(SimTime::from_secs(1), ());
        assert!(!calendar.is_empty());
        assert!(calendar.cancel(key));
        assert!(calendar.is_empty());
        let _ = calendar.schedule(SimTime::from_secs(2), ());
        assert_eq!(calendar.pop(), Some((SimTime::from_secs(2), ())));
        assert!(calendar.is_empty());
    }

    #[test]
    fn ties_come_out_in_scheduling_order() {
        let mut calendar = Calendar::new();
        let t = SimTime::from_secs(1);
        for i in 0..10 {
            let _ = calendar.schedule(t, i);
        }
        let order: Vec<_> = std::iter::from_fn(|| calendar.pop())
            .map(|(_, e)| e)
            .collect();
        assert_eq!(order, (0..10).collect::<Vec<_>>());
    }

    #[test]
    fn cancelled_far_future_events_do_not_grow_the_heap() {
        // More live events than the sweep threshold, so that sweeping waits
        // for the stale keys to outnumber them.
        let live = 3 * SWEEP_THRESHOLD as u64;
        let mut calendar = Calendar::new();
        for i in 0..live {
            let _ = calendar.schedule(SimTime::from_secs(1 + i), 0u32);
        }
        for i in 0..100_000 {
            let timeout = calendar.schedule(SimTime::from_secs(1_000_000 + i), 1);
            assert!(calendar.cancel(timeout));
        }
        assert_eq!(calendar.len() as u64, live);
        assert!(
            calendar.heap.len() as u64 <= 2 * live + 1,
            "heap holds {} keys for {live} pending events",
            calendar.heap.len()
        );
        for i in 0..live {
            assert_eq!(calendar.pop(), Some((SimTime::from_secs(1 + i), 0)));
        }
        assert_eq!(calendar.pop(), None);
    }

    #[test]
    fn a_reused_slot_does_not_revive_a_cancelled_key() {
        let mut calendar = Calendar::new();
        let old = calendar.schedule(SimTime::from_secs(1), "old");
        assert!(calendar.cancel(old));
        let new = calendar.schedule(SimTime::from_secs(2), "new");
        assert!(
            !calendar.cancel(old),
            "stale key must not cancel the new event"
        );
        assert!(calendar.is_pending(new));
        assert_eq!(calendar.pop(), Some((SimTime::from_secs(2), "new")));
        assert_eq!(calendar.pop(), None);
    }
}
