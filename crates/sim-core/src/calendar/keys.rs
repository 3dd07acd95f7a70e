//! The calendar's keys: while they are few, a short run kept in order;
//! when they are many, a ladder queue ([`Ladder`]).
//!
//! A few keys (a queue's two or three pending events, a terminal room's
//! dozen) are cheapest kept sorted, latest first: the earliest is taken
//! from the end, and a new key moves in from the end past the keys earlier
//! than it. Past [`FEW`] keys a heap cost fewer instructions than the run
//! (measured before the ladder, which costs less than the heap from a few
//! hundred keys on; the threshold was not measured anew); the keys move to
//! the ladder there, back to the run when they fall below half as many (so
//! that a count hovering at the threshold does not move them back and
//! forth).

use super::ladder::Ladder;

/// The most keys kept as a sorted run: beyond, a heap cost fewer
/// instructions a hold (docs/PERFORMANCE.md).
const FEW: usize = 32;

/// Distinct `u128` keys, the least first out.
///
/// At most one of the two holds keys: `few` while there are at most
/// [`FEW`] of them (since they last fell below `FEW / 2`), else `many`.
#[derive(Debug, Default)]
pub(super) struct Keys {
    few: Run,
    many: Ladder,
}

impl Keys {
    /// The number of keys.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.few.len + self.many.len
    }

    /// The least key.
    #[inline(always)]
    pub(super) fn first(&self) -> Option<u128> {
        if self.many.len > 0 {
            self.many.first()
        } else {
            self.few.last()
        }
    }

    /// Adds a key. Inline where the calendar is used: the run's path is a
    /// few instructions.
    #[inline(always)]
    pub(super) fn push(&mut self, key: u128) {
        if self.many.len == 0 {
            if self.few.len < FEW {
                return self.few.insert(key);
            }
            self.move_to_ladder();
        }
        self.many.push(key);
    }

    /// Removes the least key.
    #[inline(always)]
    pub(super) fn pop_front(&mut self) {
        if self.many.len == 0 {
            self.few.len = self.few.len.saturating_sub(1);
            return;
        }
        self.many.pop_front();
        if self.many.len < FEW / 2 {
            self.move_to_run();
        }
    }

    /// Moves the keys from the run to the ladder.
    #[cold]
    #[inline(never)]
    fn move_to_ladder(&mut self) {
        let keys: Vec<u128> = self.few.keys().iter().rev().copied().collect();
        self.few.len = 0;
        self.many.rebuild(keys);
    }

    /// Moves the keys from the ladder to the run.
    #[cold]
    #[inline(never)]
    fn move_to_run(&mut self) {
        let keys = self.many.drain_sorted();
        self.few.fill_latest_first(keys.into_iter().rev());
    }

    /// Keeps only the keys for which `keep` holds.
    pub(super) fn retain(&mut self, mut keep: impl FnMut(u128) -> bool) {
        self.few.retain(&mut keep);
        if self.many.len > 0 {
            self.many.retain(keep);
            if self.many.len < FEW / 2 {
                self.move_to_run();
            }
        }
    }

    /// Every key, least first, as one vector; the keys are left empty.
    pub(super) fn drain_sorted(&mut self) -> Vec<u128> {
        let mut keys = self.many.drain_sorted();
        keys.extend(self.few.keys().iter().rev());
        self.few.len = 0;
        keys
    }

    /// These keys, given in any order.
    pub(super) fn rebuild(&mut self, mut keys: Vec<u128>) {
        self.few.len = 0;
        if keys.len() <= FEW {
            keys.sort_unstable_by(|a, b| b.cmp(a));
            self.few.fill_latest_first(keys.into_iter());
            self.many.rebuild(Vec::new());
        } else {
            self.many.rebuild(keys);
        }
    }

    /// Whether the keys are in order: the run sorted latest first, the
    /// ladder as its invariant says, and only one of them holding keys.
    #[cfg(test)]
    pub(super) fn is_ordered(&self) -> bool {
        self.few.keys().windows(2).all(|pair| pair[0] > pair[1])
            && self.many.is_ordered()
            && (self.few.len == 0 || self.many.len == 0)
    }
}

/// At most [`FEW`] keys sorted latest first, in place: the earliest is at
/// the end.
#[derive(Debug)]
struct Run {
    keys: [u128; FEW],
    len: usize,
}

impl Default for Run {
    fn default() -> Self {
        Run {
            keys: [0; FEW],
            len: 0,
        }
    }
}

impl Run {
    /// The keys, latest first.
    fn keys(&self) -> &[u128] {
        &self.keys[..self.len]
    }

    /// The earliest key.
    #[inline(always)]
    fn last(&self) -> Option<u128> {
        self.keys().last().copied()
    }

    /// Puts `key` where it belongs, moved in from the end past every key
    /// earlier than it; there must be room.
    #[inline(always)]
    fn insert(&mut self, key: u128) {
        let mut at = self.len;
        while at > 0 && self.keys[at - 1] < key {
            self.keys[at] = self.keys[at - 1];
            at -= 1;
        }
        self.keys[at] = key;
        self.len += 1;
    }

    /// Keeps only the keys for which `keep` holds, in their order.
    fn retain(&mut self, keep: &mut impl FnMut(u128) -> bool) {
        let mut kept = 0;
        for at in 0..self.len {
            if keep(self.keys[at]) {
                self.keys[kept] = self.keys[at];
                kept += 1;
            }
        }
        self.len = kept;
    }

    /// Becomes `keys`, which come latest first and are at most [`FEW`].
    fn fill_latest_first(&mut self, keys: impl Iterator<Item = u128>) {
        self.len = 0;
        for key in keys {
            self.keys[self.len] = key;
            self.len += 1;
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Distinct pseudo-random keys (a multiplicative hash of 0, 1, ...),
    /// their times spread over about a million nanoseconds.
    pub(in crate::calendar) fn keys(n: u64) -> Vec<u128> {
        (0..n)
            .map(|i| u128::from(i.wrapping_mul(0x9E37_79B9_7F4A_7C15)) << 20 | u128::from(i))
            .collect()
    }

    #[test]
    fn pops_every_key_in_order() {
        let mut keys = Keys::default();
        let mut sorted = self::keys(10_000);
        sorted.iter().for_each(|&key| keys.push(key));
        assert!(keys.is_ordered());
        sorted.sort_unstable();
        for &key in &sorted {
            assert_eq!(keys.first(), Some(key));
            keys.pop_front();
        }
        assert_eq!(keys.first(), None);
    }

    /// The operations `keys_come_and_go` drives.
    pub(in crate::calendar) trait Ordered: Default {
        fn push(&mut self, key: u128);
        fn first(&self) -> Option<u128>;
        fn pop_front(&mut self);
        fn is_ordered(&self) -> bool;
    }

    impl Ordered for Keys {
        fn push(&mut self, key: u128) {
            Keys::push(self, key)
        }
        fn first(&self) -> Option<u128> {
            Keys::first(self)
        }
        fn pop_front(&mut self) {
            Keys::pop_front(self)
        }
        fn is_ordered(&self) -> bool {
            Keys::is_ordered(self)
        }
    }

    /// Grows `K` from empty to `top` keys and shrinks it back, again and
    /// again, checking it against a shadow set after every operation.
    pub(in crate::calendar) fn keys_come_and_go<K: Ordered>(top: usize) {
        let mut held = K::default();
        let mut shadow = std::collections::BTreeSet::new();
        for (i, key) in keys(40 * top as u64).into_iter().enumerate() {
            held.push(key);
            shadow.insert(key);
            let pops = if (i / top) % 2 == 1 { 2 } else { 0 };
            for _ in 0..pops.min(shadow.len()) {
                assert_eq!(held.first(), shadow.pop_first());
                held.pop_front();
                assert!(held.is_ordered());
            }
            assert!(held.is_ordered());
            assert_eq!(held.first(), shadow.first().copied());
        }
    }

    #[test]
    fn keys_move_between_the_run_and_the_ladder_in_order() {
        // From empty to three times as many keys as the run holds and
        // back: into the ladder past `FEW`, back to the run below half.
        keys_come_and_go::<Keys>(3 * FEW);
    }

    #[test]
    fn the_run_holds_up_to_few_keys_and_takes_them_back_below_half() {
        // Which of the two holds the keys, as `Keys` says: the run up to
        // `FEW`, the ladder past it until they fall below `FEW / 2`.
        let in_run = |keys: &Keys| keys.many.len == 0;
        let mut keys = Keys::default();
        let mut pending = std::collections::BTreeSet::new();
        for key in self::keys(FEW as u64 + 1) {
            keys.push(key);
            pending.insert(key);
            assert_eq!(
                in_run(&keys),
                pending.len() <= FEW,
                "{} keys",
                pending.len()
            );
        }
        while !pending.is_empty() {
            assert_eq!(keys.first(), pending.pop_first());
            keys.pop_front();
            let back = pending.len() < FEW / 2;
            assert_eq!(in_run(&keys), back, "{} keys", pending.len());
            assert_eq!(keys.len(), pending.len());
            assert!(keys.is_ordered());
        }
        // A retain leaving half of `FEW` keeps the ladder; one fewer, the run.
        let mut sorted = self::keys(2 * FEW as u64);
        sorted.iter().for_each(|&key| keys.push(key));
        sorted.sort_unstable();
        for kept in [FEW / 2, FEW / 2 - 1] {
            keys.retain(|key| sorted[..kept].contains(&key));
            assert_eq!((keys.len(), in_run(&keys)), (kept, kept < FEW / 2));
        }
        assert_eq!(keys.drain_sorted(), sorted[..FEW / 2 - 1]);
    }

    #[test]
    fn rebuilds_from_keys_in_any_order() {
        for n in [0, 1, 2, 4, 5, 17, FEW as u64, FEW as u64 + 1, 1_000] {
            let mut keys = Keys::default();
            keys.rebuild(self::keys(n));
            assert!(keys.is_ordered(), "{n} keys");
            let mut expected = self::keys(n);
            expected.sort_unstable();
            assert_eq!(keys.drain_sorted(), expected);
            assert_eq!(keys.len(), 0);
        }
    }

    #[test]
    fn retain_keeps_the_kept_keys_in_order() {
        let mut keys = Keys::default();
        self::keys(1_000).into_iter().for_each(|key| keys.push(key));
        keys.retain(|key| key % 3 == 0);
        assert!(keys.is_ordered());
        assert_eq!(
            keys.len(),
            self::keys(1_000)
                .iter()
                .filter(|&&key| key % 3 == 0)
                .count()
        );
        // Few enough kept to go back to the run.
        keys.retain(|key| key % 100 == 0);
        assert!(keys.is_ordered() && keys.many.len == 0);
        let mut kept: Vec<u128> = self::keys(1_000)
            .into_iter()
            .filter(|key| key % 300 == 0)
            .collect();
        kept.sort_unstable();
        assert_eq!(keys.drain_sorted(), kept);
    }
}
