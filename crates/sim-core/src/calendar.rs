//! The pending-event set.
//!
//! Events are ordered by `(time, rank)`, where the rank counts `schedule`
//! calls: events at the same instant come out first-in first-out, and the
//! order of a run is total and reproducible.
//!
//! The layout is chosen for speed at any number of pending events
//! (docs/PERFORMANCE.md has the measurements):
//!
//! - up to 32 keys are kept sorted in a fixed array (a queue's two or three
//!   pending events cost a few instructions); beyond, the keys live in a
//!   ladder queue (`calendar/ladder.rs`), which moves each key a few times
//!   whatever the number pending (`calendar/keys.rs` chooses);
//! - a key is 16 bytes: the time, and the rank and the payload's slot packed
//!   in one word (rank in the high 32 bits, so that it decides ties and the
//!   slot never does). Ranks are renumbered, keeping their order, when the
//!   32-bit counter runs out, so a run may schedule any number of events;
//! - payloads live in a slab beside the keys, so that only keys move.
//!
//! Cancellation is lazy: a cancelled event's payload is removed at once and
//! its key is skipped when it reaches the front. Stale keys are also swept
//! out whenever they outnumber the live ones, so a model that cancels many
//! far-future events (timeouts that rarely fire) keeps keys in proportion
//! to its pending events, not to its history.

mod keys;
mod ladder;

use crate::time::SimTime;
use keys::Keys;
use slab::Slab;

/// Identifies one scheduled event, for [`Calendar::cancel`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[must_use = "keep the key if the event may need to be cancelled"]
pub struct EventKey {
    slot: u32,
    /// The event's number among all ever scheduled: unlike its rank, never
    /// renumbered, so a key stays valid for as long as its event is pending.
    id: u64,
}

/// A key, `time << 64 | rank << 32 | slot`, ordered as one 128-bit
/// integer: by time, then by rank (the slot never decides, as ranks
/// differ). One integer compares without branches.
#[derive(Clone, Copy, Debug)]
struct Key(u128);

impl Key {
    fn new(time: u64, rank: u32, slot: u32) -> Key {
        Key(u128::from(time) << 64 | u128::from(rank) << 32 | u128::from(slot))
    }

    fn time(self) -> SimTime {
        SimTime::from_nanos((self.0 >> 64) as u64)
    }

    fn rank(self) -> u32 {
        (self.0 >> 32) as u32
    }

    fn slot(self) -> usize {
        self.0 as u32 as usize
    }
}

#[derive(Debug)]
struct Pending<E> {
    id: u64,
    rank: u32,
    event: E,
}

/// A pending-event set ordered by time, then by scheduling order.
#[derive(Debug)]
pub struct Calendar<E> {
    keys: Keys,
    payloads: Slab<Pending<E>>,
    next_id: u64,
    next_rank: u64,
    /// Keys whose event was cancelled and that are still held.
    stale: usize,
}

/// Stale keys are swept once there are more than this many and they
/// outnumber the live ones: amortised O(1) per cancellation. Unit tests use
/// a small threshold so that the shadow-map test sweeps often.
const SWEEP_THRESHOLD: usize = if cfg!(test) { 4 } else { 64 };

/// Ranks are renumbered when the counter reaches this: every 2^32
/// schedules at most, amortised O(log n) per schedule. Unit tests
/// renumber often.
const RANK_LIMIT: u64 = if cfg!(test) { 40 } else { 1 << 32 };

impl<E> Default for Calendar<E> {
    fn default() -> Self {
        Calendar::new()
    }
}

impl<E> Calendar<E> {
    /// An empty calendar.
    pub fn new() -> Calendar<E> {
        Calendar {
            keys: Keys::default(),
            payloads: Slab::new(),
            next_id: 0,
            next_rank: 0,
            stale: 0,
        }
    }

    /// Adds `event` at `time` and returns its key.
    #[inline(always)]
    pub fn schedule(&mut self, time: SimTime, event: E) -> EventKey {
        if self.next_rank >= RANK_LIMIT {
            self.renumber();
        }
        let rank = self.next_rank as u32;
        self.next_rank += 1;
        let id = self.next_id;
        self.next_id += 1;
        let slot = self.payloads.insert(Pending { id, rank, event });
        let slot = u32::try_from(slot).expect("more than 2^32 pending events");
        self.keys.push(Key::new(time.as_nanos(), rank, slot).0);
        EventKey { slot, id }
    }

    /// Removes a pending event. Returns `false` if it already fired or was
    /// already cancelled, so cancelling twice is harmless.
    pub fn cancel(&mut self, key: EventKey) -> bool {
        if !self.is_pending(key) {
            return false;
        }
        self.payloads.remove(key.slot as usize);
        self.stale += 1;
        if self.stale > SWEEP_THRESHOLD && self.stale > self.payloads.len() {
            self.sweep();
        }
        true
    }

    /// Whether the event with this key is still pending.
    pub fn is_pending(&self, key: EventKey) -> bool {
        matches!(self.payloads.get(key.slot as usize), Some(p) if p.id == key.id)
    }

    /// Removes and returns the earliest pending event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        self.pop_due(SimTime::MAX)
    }

    /// Removes and returns the earliest pending event if it is due at or
    /// before `end`; `None` if none is.
    #[inline]
    pub fn pop_due(&mut self, end: SimTime) -> Option<(SimTime, E)> {
        loop {
            let key = Key(self.keys.first()?);
            // With no cancelled event's key held, every key is live.
            if self.stale == 0 || self.is_live(key) {
                if key.time() > end {
                    return None;
                }
                self.keys.pop_front();
                let event = self.payloads.remove(key.slot()).event;
                return Some((key.time(), event));
            }
            self.keys.pop_front();
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

    #[inline]
    fn is_live(&self, key: Key) -> bool {
        matches!(self.payloads.get(key.slot()), Some(p) if p.rank == key.rank())
    }

    /// Drops every stale key.
    fn sweep(&mut self) {
        let payloads = &self.payloads;
        self.keys.retain(|key| {
            let key = Key(key);
            matches!(payloads.get(key.slot()), Some(p) if p.rank == key.rank())
        });
        self.stale = 0;
    }

    /// Gives the pending events the ranks 0, 1, ... in their order: the
    /// keys stay in the same order.
    #[cold]
    fn renumber(&mut self) {
        self.sweep();
        let mut keys = self.keys.drain_sorted();
        for (rank, key) in keys.iter_mut().enumerate() {
            let old = Key(*key);
            let rank = rank as u32;
            self.payloads[old.slot()].rank = rank;
            *key = Key::new(old.time().as_nanos(), rank, old.slot() as u32).0;
        }
        self.next_rank = keys.len() as u64;
        self.keys.rebuild(keys);
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
        PopDue(u64),
    }

    /// Operations with `schedules` schedules to every three of the others
    /// (a cancellation and two pops), on average.
    fn op(schedules: u32) -> impl Strategy<Value = Op> {
        prop_oneof![
            schedules => (0u64..50).prop_map(Op::Schedule),
            1 => (0usize..64).prop_map(Op::Cancel),
            1 => Just(Op::Pop),
            1 => (0u64..50).prop_map(Op::PopDue),
        ]
    }

    proptest! {
        // The calendar must agree, operation by operation, with a BTreeMap
        // keyed the same way: (time, insertion sequence); with a few
        // events pending, and with many (the keys moving between their
        // sorted run and the ladder).
        #[test]
        fn agrees_with_an_ordered_map(ops in prop::collection::vec(op(3), 0..300)) {
            agrees_with_the_map(ops)?;
        }

        #[test]
        fn agrees_with_an_ordered_map_with_many_pending(
            ops in prop::collection::vec(op(5), 0..400),
        ) {
            agrees_with_the_map(ops)?;
        }
    }

    /// Runs `ops` on a calendar and on a shadow map, checking that they
    /// agree after every one.
    fn agrees_with_the_map(ops: Vec<Op>) -> Result<(), TestCaseError> {
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
                    let expected = shadow
                        .pop_first()
                        .map(|((t, _), e)| (SimTime::from_nanos(t), e));
                    prop_assert_eq!(calendar.pop(), expected);
                }
                // A pop that finds nothing due still drops stale keys
                // from the front, so pops must meet stale keys too.
                Op::PopDue(end) => {
                    let due = shadow
                        .first_key_value()
                        .is_some_and(|(&(t, _), _)| t <= end);
                    let expected = due
                        .then(|| shadow.pop_first())
                        .flatten()
                        .map(|((t, _), e)| (SimTime::from_nanos(t), e));
                    prop_assert_eq!(calendar.pop_due(SimTime::from_nanos(end)), expected);
                }
            }
            prop_assert_eq!(calendar.len(), shadow.len());
            prop_assert_eq!(calendar.keys.len(), calendar.len() + calendar.stale);
            prop_assert!(calendar.keys.is_ordered());
        }
        Ok(())
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
    fn cancelled_far_future_events_do_not_grow_the_keys() {
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
            calendar.keys.len() as u64 <= 2 * live + 1,
            "{} keys held for {live} pending events",
            calendar.keys.len()
        );
        for i in 0..live {
            assert_eq!(calendar.pop(), Some((SimTime::from_secs(1 + i), 0)));
        }
        assert_eq!(calendar.pop(), None);
    }

    #[test]
    fn stale_keys_are_swept_once_past_the_threshold_and_the_live_ones() {
        // With `live` events pending, a cancelled event's key stays held
        // until the stale keys number more than `SWEEP_THRESHOLD` and more
        // than the live events; then every stale key goes at once.
        for live in [2, 2 * SWEEP_THRESHOLD] {
            let mut calendar = Calendar::new();
            for i in 0..live as u64 {
                let _ = calendar.schedule(SimTime::from_secs(1 + i), ());
            }
            let sweeps_at = SWEEP_THRESHOLD.max(live) + 1;
            // Three sweeps: the count of stale keys starts again after
            // each. Fewer schedules than renumbering needs, which sweeps.
            assert!(live + 3 * sweeps_at < RANK_LIMIT as usize);
            for _ in 0..3 {
                for stale in 1..=sweeps_at {
                    let far = calendar.schedule(SimTime::from_secs(1_000), ());
                    assert!(calendar.cancel(far));
                    let held = if stale == sweeps_at {
                        live
                    } else {
                        live + stale
                    };
                    assert_eq!(calendar.keys.len(), held, "{live} live, {stale} stale");
                }
            }
        }
    }

    #[test]
    fn ranks_are_renumbered_before_they_reach_the_limit() {
        // A rank must fit the key's 32 bits: the counter is renumbered from
        // the pending events' order when it reaches `RANK_LIMIT`, with ties
        // still in scheduling order. Six events share each time, and three
        // to five are pending at every renumbering.
        let mut calendar = Calendar::new();
        let mut order = 0u64;
        for i in 0..5 * RANK_LIMIT {
            let _ = calendar.schedule(SimTime::from_secs(i / 6), i);
            assert!(
                calendar.next_rank <= RANK_LIMIT,
                "rank {}",
                calendar.next_rank
            );
            if i >= 5 && i % 3 == 2 {
                for _ in 0..3 {
                    let (_, e) = calendar.pop().expect("pending");
                    assert_eq!(e, order, "ties in scheduling order");
                    order += 1;
                }
            }
        }
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
