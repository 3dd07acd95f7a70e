//! A ladder queue (Tang, Goh and Thng, "Ladder queue: an O(1) priority
//! queue structure for large-scale discrete event simulation", ACM TOMACS
//! 15(3), 2005) of distinct `u128` keys whose top 64 bits are a time.
//!
//! Far keys wait unsorted in the top. When the near ones run out, the top
//! is spread over a rung of as many buckets as it has keys, by time; a
//! bucket of more than [`SPLIT`] keys is spread in turn over a finer rung
//! of its own, and a bucket of fewer is sorted into the bottom, from which
//! keys are taken. Each key is moved a few times in all, whatever the
//! number pending, where a heap moves it up and down its levels, more of
//! them the more keys it holds (docs/PERFORMANCE.md, "A ladder past the
//! run").
//!
//! Where each key is, as an invariant ([`Ladder::is_ordered`] checks it
//! in tests): every key in the top has a time at least `top_start`, every
//! other key a time below it (bounds reckoned in 128 bits, so that the
//! last instant of time, `u64::MAX`, has a bound above it); a key on a
//! rung is in a bucket at or past the rung's current one, and below the
//! current bucket of every coarser rung; every key in the bottom is below the current bucket of every
//! rung. So the bottom's first key is the least, and the bottom is never
//! empty while keys are held.
//!
//! Keys come in any order: one earlier than every key held, or than the
//! last taken, goes to the bottom, in its place. A bottom grown past
//! [`BOTTOM`] keys by such arrivals is spread over a rung again, so that
//! placing a key in it stays cheap; with [`SPREAD_RUNGS`] such rungs held
//! the whole ladder is spread again instead, so that a long run of such
//! arrivals leaves neither a long bottom nor a ladder of many rungs for
//! `push` to pass (the paper caps its rungs at 8).

use std::collections::VecDeque;

/// No node.
const NIL: u32 = u32::MAX;

/// A bucket of more keys than this becomes a rung of its own (the paper's
/// threshold).
const SPLIT: u32 = 50;

/// A bottom of more keys than this, of more than one time, is spread over
/// a rung again.
const BOTTOM: usize = 4 * SPLIT as usize;

/// A bottom spread while this many rungs made by spreading the bottom
/// are held spreads the whole ladder anew (over a first rung, split as
/// its buckets need), rather than adding a rung. Rungs made by splitting
/// buckets are bounded apart from this: each is at least [`SPLIT`] times
/// finer than the one it came from, down to buckets of one nanosecond.
const SPREAD_RUNGS: usize = 8;

/// The time of a key.
#[inline]
fn time(key: u128) -> u64 {
    (key >> 64) as u64
}

/// A key in a bucket's list: 24 bytes, where a `u128` would align the
/// node to 32.
#[derive(Clone, Copy, Debug)]
struct Node {
    high: u64,
    low: u64,
    next: u32,
}

const _: () = assert!(std::mem::size_of::<Node>() == 24);

impl Node {
    fn key(self) -> u128 {
        u128::from(self.high) << 64 | u128::from(self.low)
    }
}

/// A bucket's list of keys and their number, side by side: filing a key
/// reads and writes one place.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    head: u32,
    count: u32,
}

/// No keys.
const EMPTY: Bucket = Bucket {
    head: NIL,
    count: 0,
};

/// Buckets of `width` nanoseconds from `start`: the keys of bucket `b`
/// have times in `start + b * width .. start + (b + 1) * width`.
#[derive(Debug, Default)]
struct Rung {
    start: u64,
    width: u64,
    /// The next bucket to take; those before it are empty.
    current: usize,
    buckets: Vec<Bucket>,
    /// Made by spreading a swollen bottom (`Ladder::spread_bottom`).
    spread: bool,
}

impl Rung {
    /// The least time this rung takes a key at: the start of its current
    /// bucket, in 128 bits (past the last bucket it may exceed every
    /// time).
    #[inline]
    fn least_time(&self) -> u128 {
        u128::from(self.start) + self.current as u128 * u128::from(self.width)
    }
}

/// A ladder queue of distinct keys, the least first out.
#[derive(Debug, Default)]
pub(super) struct Ladder {
    /// The number of keys.
    pub(super) len: usize,
    /// The keys on the rungs, in lists by bucket; `free` are unused.
    nodes: Vec<Node>,
    free: Vec<u32>,
    /// Keys at `top_start` or later, unsorted, with their least and
    /// greatest times.
    top: Vec<u128>,
    top_min: u64,
    top_max: u64,
    top_start: u128,
    /// Coarsest first.
    rungs: Vec<Rung>,
    /// Rungs used up, kept for their buckets' allocation.
    spare: Vec<Rung>,
    /// The least keys, least first.
    bottom: VecDeque<u128>,
    /// A bucket's keys on their way to the bottom.
    scratch: Vec<u128>,
    /// How many times the whole ladder was spread anew (tests).
    #[cfg(test)]
    spread_anew: usize,
}

impl Ladder {
    /// The least key.
    #[inline]
    pub(super) fn first(&self) -> Option<u128> {
        self.bottom.front().copied()
    }

    /// Adds a key.
    #[inline]
    pub(super) fn push(&mut self, key: u128) {
        self.len += 1;
        let t = time(key);
        if u128::from(t) >= self.top_start {
            if self.top.is_empty() {
                (self.top_min, self.top_max) = (t, t);
            } else {
                self.top_min = self.top_min.min(t);
                self.top_max = self.top_max.max(t);
            }
            self.top.push(key);
        } else if let Some(r) = self
            .rungs
            .iter()
            .position(|rung| u128::from(t) >= rung.least_time())
        {
            self.file(r, key);
        } else {
            self.place_in_bottom(key);
            return;
        }
        if self.bottom.is_empty() {
            self.refill();
        }
    }

    /// Puts `key` in the bottom, in its place.
    #[inline]
    fn place_in_bottom(&mut self, key: u128) {
        match self.bottom.back() {
            Some(&last) if last > key => {
                let at = self.bottom.partition_point(|&k| k < key);
                self.bottom.insert(at, key);
                if self.bottom.len() > BOTTOM {
                    self.spread_bottom();
                }
            }
            _ => self.bottom.push_back(key),
        }
    }

    /// Files `key` in its bucket of rung `r`.
    #[inline]
    fn file(&mut self, r: usize, key: u128) {
        let node = match self.free.pop() {
            Some(node) => node,
            None => {
                let node = u32::try_from(self.nodes.len()).expect("fewer than 2^32 keys");
                self.nodes.push(Node {
                    high: 0,
                    low: 0,
                    next: NIL,
                });
                node
            }
        };
        let rung = &mut self.rungs[r];
        let bucket = &mut rung.buckets[((time(key) - rung.start) / rung.width) as usize];
        self.nodes[node as usize] = Node {
            high: (key >> 64) as u64,
            low: key as u64,
            next: bucket.head,
        };
        bucket.head = node;
        bucket.count += 1;
    }

    /// Removes the least key.
    #[inline]
    pub(super) fn pop_front(&mut self) {
        if self.bottom.pop_front().is_some() {
            self.len -= 1;
            if self.bottom.is_empty() && self.len > 0 {
                self.refill();
            }
        }
    }

    /// Adds, as the finest, a rung of `buckets` buckets of `width` from
    /// `start`, returning its index.
    fn add_rung(&mut self, start: u64, width: u64, buckets: usize) -> usize {
        let mut rung = self.spare.pop().unwrap_or_default();
        rung.start = start;
        rung.width = width;
        rung.current = 0;
        rung.spread = false;
        rung.buckets.clear();
        rung.buckets.resize(buckets, EMPTY);
        self.rungs.push(rung);
        self.rungs.len() - 1
    }

    /// The width of `buckets` buckets that cover the times `min..=max`
    /// (reckoned wide: the span of all 2^64 times overflows a `u64`).
    /// One bucket is only ever asked to cover one time.
    fn width(min: u64, max: u64, buckets: usize) -> u64 {
        let span = u128::from(max - min) + 1;
        u64::try_from(span.div_ceil(buckets as u128)).expect("one bucket spans one time")
    }

    /// Fills the empty bottom from the finest rung with keys, spreading
    /// the top over a first rung when there is none, and a large bucket
    /// over a rung of its own.
    #[cold]
    #[inline(never)]
    fn refill(&mut self) {
        loop {
            let Some(rung) = self.rungs.last_mut() else {
                if self.top.is_empty() {
                    return;
                }
                self.spread_top();
                continue;
            };
            while rung.current < rung.buckets.len() && rung.buckets[rung.current].head == NIL {
                rung.current += 1;
            }
            if rung.current == rung.buckets.len() {
                let done = self.rungs.pop().expect("a rung");
                self.spare.push(done);
                continue;
            }
            let b = rung.current;
            rung.current += 1;
            let Bucket { head, count } = std::mem::replace(&mut rung.buckets[b], EMPTY);
            let (start, width) = (rung.start + b as u64 * rung.width, rung.width);
            if count > SPLIT && width > 1 {
                let buckets = count as usize;
                let r = self.add_rung(start, width.div_ceil(buckets as u64), buckets);
                self.refile(head, r);
                continue;
            }
            let mut keys = std::mem::take(&mut self.scratch);
            let mut node = head;
            while node != NIL {
                let n = self.nodes[node as usize];
                keys.push(n.key());
                self.free.push(node);
                node = n.next;
            }
            keys.sort_unstable();
            self.bottom.extend(keys.drain(..));
            self.scratch = keys;
            return;
        }
    }

    /// Moves the keys of the list from `head` to their buckets of rung `r`.
    fn refile(&mut self, head: u32, r: usize) {
        let mut node = head;
        while node != NIL {
            let n = self.nodes[node as usize];
            self.free.push(node);
            self.file(r, n.key());
            node = n.next;
        }
    }

    /// Spreads the top over a first rung of as many buckets as keys; the
    /// top starts anew past its greatest time.
    fn spread_top(&mut self) {
        let mut keys = std::mem::take(&mut self.top);
        let width = Self::width(self.top_min, self.top_max, keys.len());
        let r = self.add_rung(self.top_min, width, keys.len());
        self.top_start = u128::from(self.top_min) + u128::from(width) * keys.len() as u128;
        for &key in &keys {
            self.file(r, key);
        }
        keys.clear();
        self.top = keys;
    }

    /// Spreads a bottom of many keys over a rung of its own, finer than
    /// the others, and fills the bottom from it; unless its keys are all
    /// of one time. The rung takes what the bottom took: every time from
    /// its least key up to the current bucket of every other rung (and
    /// the top's start).
    #[cold]
    #[inline(never)]
    fn spread_bottom(&mut self) {
        let (min, max) = (
            time(*self.bottom.front().expect("keys")),
            time(*self.bottom.back().expect("keys")),
        );
        if min == max {
            return;
        }
        if self.spread_rungs() >= SPREAD_RUNGS {
            self.spread_anew();
            return;
        }
        let below = self
            .rungs
            .iter()
            .map(Rung::least_time)
            .fold(self.top_start, u128::min);
        debug_assert!(u128::from(max) < below, "the bottom is below every rung");
        let last = u64::try_from(below - 1).unwrap_or(u64::MAX);
        let buckets = self.bottom.len();
        let r = self.add_rung(min, Self::width(min, last, buckets), buckets);
        self.rungs[r].spread = true;
        let keys = std::mem::take(&mut self.bottom);
        for &key in &keys {
            self.file(r, key);
        }
        self.bottom = keys;
        self.bottom.clear();
        self.refill();
    }

    /// The rungs held that spreading the bottom made.
    fn spread_rungs(&self) -> usize {
        self.rungs.iter().filter(|rung| rung.spread).count()
    }

    /// Takes every key into the top and spreads it over a first rung:
    /// the ladder as its keys would make it had they come in together.
    #[cold]
    #[inline(never)]
    fn spread_anew(&mut self) {
        #[cfg(test)]
        {
            self.spread_anew += 1;
        }
        let keys = self.take_all();
        self.len = keys.len();
        self.top_min = keys.iter().map(|&k| time(k)).min().expect("keys");
        self.top_max = keys.iter().map(|&k| time(k)).max().expect("keys");
        self.top = keys;
        self.refill();
    }

    /// Every key, in no order; the ladder is left empty.
    fn take_all(&mut self) -> Vec<u128> {
        let mut keys: Vec<u128> = self.bottom.drain(..).collect();
        keys.append(&mut self.top);
        for rung in self.rungs.drain(..) {
            for bucket in &rung.buckets {
                let mut node = bucket.head;
                while node != NIL {
                    let n = self.nodes[node as usize];
                    keys.push(n.key());
                    node = n.next;
                }
            }
            self.spare.push(rung);
        }
        self.nodes.clear();
        self.free.clear();
        self.len = 0;
        self.top_start = 0;
        keys
    }

    /// Keeps only the keys for which `keep` holds.
    pub(super) fn retain(&mut self, mut keep: impl FnMut(u128) -> bool) {
        for key in self.take_all() {
            if keep(key) {
                self.push(key);
            }
        }
    }

    /// Every key, least first, as one vector; the ladder is left empty.
    pub(super) fn drain_sorted(&mut self) -> Vec<u128> {
        let mut keys = self.take_all();
        keys.sort_unstable();
        keys
    }

    /// A ladder of these keys, given in any order.
    pub(super) fn rebuild(&mut self, keys: Vec<u128>) {
        self.take_all();
        for key in keys {
            self.push(key);
        }
    }

    /// Whether every key is where the invariant says, and counted.
    #[cfg(test)]
    pub(super) fn is_ordered(&self) -> bool {
        let mut ok = self
            .top
            .iter()
            .all(|&k| u128::from(time(k)) >= self.top_start);
        let mut counted = self.bottom.len() + self.top.len();
        let mut below = self.top_start;
        for rung in &self.rungs {
            for (b, bucket) in rung.buckets.iter().enumerate() {
                let lo = u128::from(rung.start) + b as u128 * u128::from(rung.width);
                let mut node = bucket.head;
                let mut n = 0;
                while node != NIL {
                    let t = time(self.nodes[node as usize].key());
                    let wide = u128::from(t);
                    ok &= b >= rung.current && wide >= lo && wide - lo < u128::from(rung.width);
                    ok &= wide < below;
                    n += 1;
                    node = self.nodes[node as usize].next;
                }
                ok &= n == bucket.count;
                counted += n as usize;
            }
            below = below.min(rung.least_time());
        }
        let sorted = self
            .bottom
            .iter()
            .zip(self.bottom.iter().skip(1))
            .all(|(a, b)| a < b);
        ok && sorted
            && self
                .bottom
                .back()
                .is_none_or(|&k| u128::from(time(k)) < below)
            && self
                .top
                .iter()
                .all(|&k| (self.top_min..=self.top_max).contains(&time(k)))
            && counted == self.len
            && (self.len == 0 || !self.bottom.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::super::keys::tests::{Ordered, keys, keys_come_and_go};
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    impl Ordered for Ladder {
        fn push(&mut self, key: u128) {
            Ladder::push(self, key)
        }
        fn first(&self) -> Option<u128> {
            Ladder::first(self)
        }
        fn pop_front(&mut self) {
            Ladder::pop_front(self)
        }
        fn is_ordered(&self) -> bool {
            Ladder::is_ordered(self)
        }
    }

    /// A key of time `t` and number `n`.
    fn key(t: u64, n: u64) -> u128 {
        u128::from(t) << 64 | u128::from(n)
    }

    #[test]
    fn keys_come_and_go_in_order_at_every_size() {
        for top in [1, 20, 60, 2_000] {
            keys_come_and_go::<Ladder>(top);
        }
    }

    #[test]
    fn keys_of_one_time_come_out_in_their_order() {
        // More than a bucket holds, all at one instant, between two keys
        // far apart: spread over a rung with them, the instant's bucket
        // splits into finer rungs down to buckets of one nanosecond, and
        // reaches the bottom whole; new keys of the instant join it.
        let mut ladder = Ladder::default();
        ladder.push(key(0, 0));
        ladder.push(key(1 << 40, 0));
        for n in 0..1_000 {
            ladder.push(key(7, n));
        }
        assert_eq!(ladder.first(), Some(key(0, 0)));
        ladder.pop_front();
        assert!(ladder.is_ordered());
        for n in 0..1_000 {
            assert_eq!(ladder.first(), Some(key(7, n)));
            ladder.pop_front();
            ladder.push(key(7, 1_000 + n));
            assert!(ladder.is_ordered());
        }
    }

    #[test]
    fn keys_earlier_than_the_pending_ones_come_out_first() {
        // A hold, with now and then a key earlier than every one held and
        // than the last taken: it goes to the bottom in its place.
        let mut ladder = Ladder::default();
        let mut shadow = BTreeSet::new();
        for (n, k) in keys(5_000).into_iter().enumerate() {
            let k = k + (1 << 100);
            ladder.push(k);
            shadow.insert(k);
            if n % 7 == 0 {
                let early = key(1_000 - (n as u64 / 7) % 1_000, n as u64);
                ladder.push(early);
                shadow.insert(early);
            }
            if n % 3 == 0 {
                assert_eq!(ladder.first(), shadow.pop_first());
                ladder.pop_front();
            }
            assert!(ladder.is_ordered());
            assert_eq!(ladder.first(), shadow.first().copied());
        }
    }

    /// The rungs made by spreading the bottom, counted here rather than by
    /// `Ladder::spread_rungs`, whose count the cap uses.
    fn spread_rungs(ladder: &Ladder) -> usize {
        ladder.rungs.iter().filter(|rung| rung.spread).count()
    }

    #[test]
    fn a_bottom_grown_by_early_keys_is_spread_again() {
        // Keys arriving in falling order, each earlier than every key
        // held: without a rung for them the bottom would hold them all,
        // each placed at its front; with a rung for every 200 of them the
        // ladder would grow a rung for `push` to pass each time.
        let mut ladder = Ladder::default();
        let mut shadow = BTreeSet::new();
        for k in keys(1_000).into_iter().map(|k| k + (1 << 100)) {
            ladder.push(k);
            shadow.insert(k);
        }
        for n in 0..3_000u64 {
            ladder.push(key(1_000_000 - 10 * n, n));
            shadow.insert(key(1_000_000 - 10 * n, n));
            assert!(
                ladder.bottom.len() <= BOTTOM,
                "{} in the bottom",
                ladder.bottom.len()
            );
            assert!(
                spread_rungs(&ladder) <= SPREAD_RUNGS,
                "{} spread rungs",
                spread_rungs(&ladder)
            );
            assert!(ladder.is_ordered());
        }
        assert!(ladder.is_ordered());
        while let Some(k) = shadow.pop_first() {
            assert_eq!(ladder.first(), Some(k));
            ladder.pop_front();
        }
        assert!(ladder.is_ordered() && ladder.first().is_none());
    }

    #[test]
    fn rungs_made_by_splitting_do_not_spread_the_ladder_anew() {
        // Keys over the whole range of times, and before them a crowd of
        // sixty at one instant: taken first, the crowd's bucket is split
        // rung by rung, each sixty times finer, about nine deep. Keys in
        // falling order, each earlier than every one held, then swell the
        // bottom again and again; only the rungs made for them count
        // towards spreading the whole ladder anew.
        let mut ladder = Ladder::default();
        let mut shadow = BTreeSet::new();
        let add = |ladder: &mut Ladder, shadow: &mut BTreeSet<u128>, k: u128| {
            ladder.push(k);
            shadow.insert(k);
        };
        // A first key, taken once the others wait in the top: they are
        // spread over the first rung together.
        ladder.push(key(0, 0));
        for n in 0..1_000 {
            add(&mut ladder, &mut shadow, key(u64::MAX / 1_000 * (n + 1), n));
        }
        for n in 0..60 {
            add(&mut ladder, &mut shadow, key(1_000_000, 10_000 + n));
        }
        ladder.pop_front();
        assert!(
            ladder.rungs.len() >= SPREAD_RUNGS,
            "{} rungs",
            ladder.rungs.len()
        );
        for n in 0..4_000u64 {
            add(&mut ladder, &mut shadow, key(999_999 - n, 100_000 + n));
            assert!(spread_rungs(&ladder) <= SPREAD_RUNGS);
        }
        assert!(ladder.is_ordered());
        // 4,000 early keys swell the bottom twenty times: two spreads
        // anew, where counting the rungs split for the crowd too (each
        // spread anew splits its bucket again) makes eight.
        assert!(
            ladder.spread_anew == 2,
            "{} spreads anew",
            ladder.spread_anew
        );
        while let Some(k) = shadow.pop_first() {
            assert_eq!(ladder.first(), Some(k));
            ladder.pop_front();
        }
    }

    #[test]
    fn times_at_the_ends_of_the_range_are_kept_apart() {
        let mut ladder = Ladder::default();
        let times = [0, 1, u64::MAX, u64::MAX - 1, 1 << 63, 2, u64::MAX / 3];
        let mut shadow = BTreeSet::new();
        for round in 0..200 {
            for (i, &t) in times.iter().enumerate() {
                let k = key(t, (round * times.len() + i) as u64);
                ladder.push(k);
                shadow.insert(k);
            }
        }
        assert!(ladder.is_ordered());
        let mut taken = 0;
        while let Some(k) = shadow.pop_first() {
            assert_eq!(ladder.first(), Some(k));
            ladder.pop_front();
            assert!(ladder.is_ordered());
            taken += 1;
            if taken % 100 == 0 {
                // A key of the last instant, earlier in its order than
                // most of those held there (their numbers are 2 past a
                // multiple of 7, its a multiple): it comes out in its
                // place among them.
                let last = key(u64::MAX, 7 * (taken / 100));
                ladder.push(last);
                shadow.insert(last);
                assert!(ladder.is_ordered());
            }
        }
        assert_eq!(ladder.first(), None);
    }

    #[test]
    fn keys_of_the_last_instant_come_out_in_their_order() {
        // Keys at `u64::MAX`, pushed out of their order, with a bottom
        // grown below them past its bound.
        let mut ladder = Ladder::default();
        let mut shadow = BTreeSet::new();
        for n in [5, 3, 9, 1] {
            ladder.push(key(u64::MAX, n));
            shadow.insert(key(u64::MAX, n));
            assert!(ladder.is_ordered());
        }
        for n in 0..500 {
            ladder.push(key(u64::MAX - 1 - n, n));
            shadow.insert(key(u64::MAX - 1 - n, n));
            ladder.push(key(u64::MAX, 1_000 - n));
            shadow.insert(key(u64::MAX, 1_000 - n));
            assert!(ladder.is_ordered());
        }
        while let Some(k) = shadow.pop_first() {
            assert_eq!(ladder.first(), Some(k));
            ladder.pop_front();
            assert!(ladder.is_ordered());
        }
    }

    #[test]
    fn retain_and_rebuild_keep_the_order() {
        let mut ladder = Ladder::default();
        keys(3_000).into_iter().for_each(|k| ladder.push(k));
        for _ in 0..500 {
            ladder.pop_front();
        }
        ladder.retain(|k| k % 5 != 0);
        assert!(ladder.is_ordered());
        let kept = ladder.drain_sorted();
        assert_eq!(ladder.len, 0);
        assert!(kept.windows(2).all(|pair| pair[0] < pair[1]));
        assert!(kept.iter().all(|k| k % 5 != 0));
        let mut expected: Vec<u128> = keys(3_000);
        expected.sort_unstable();
        let expected: Vec<u128> = expected[500..]
            .iter()
            .copied()
            .filter(|k| k % 5 != 0)
            .collect();
        assert_eq!(kept, expected);
        ladder.rebuild(kept.iter().rev().copied().collect());
        assert!(ladder.is_ordered());
        assert_eq!(ladder.drain_sorted(), kept);
    }

    /// An operation on the ladder: add a key of this time (from a narrow
    /// range, any, or the last instants) and number, or take the least.
    #[derive(Clone, Debug)]
    enum Op {
        Push(u64, u64),
        Pop,
    }

    fn op() -> impl Strategy<Value = Op> {
        let number = 0u64..1_000;
        prop_oneof![
            4 => (0u64..200, number.clone()).prop_map(|(t, n)| Op::Push(t, n)),
            2 => (any::<u64>(), number.clone()).prop_map(|(t, n)| Op::Push(t, n)),
            1 => (u64::MAX - 200..=u64::MAX, number).prop_map(|(t, n)| Op::Push(t, n)),
            3 => Just(Op::Pop),
        ]
    }

    proptest! {
        // The ladder agrees with an ordered set, operation by operation,
        // its invariant holding throughout.
        #[test]
        fn agrees_with_an_ordered_set(ops in prop::collection::vec(op(), 0..2_000)) {
            let mut ladder = Ladder::default();
            let mut shadow = BTreeSet::new();
            for op in ops {
                match op {
                    // Keys are distinct: one already held is not pushed.
                    Op::Push(t, n) => {
                        if shadow.insert(key(t, n)) {
                            ladder.push(key(t, n));
                        }
                    }
                    Op::Pop => {
                        prop_assert_eq!(ladder.first(), shadow.pop_first());
                        ladder.pop_front();
                    }
                }
                prop_assert!(ladder.is_ordered());
                prop_assert_eq!(ladder.first(), shadow.first().copied());
                prop_assert_eq!(ladder.len, shadow.len());
            }
        }
    }
}
