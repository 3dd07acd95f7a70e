//! The calendar's keys: while they are few, a short run kept in order;
//! when they are many, a 4-ary min-heap laid out by cache line.
//!
//! A few keys (a queue's two or three pending events, a terminal room's
//! dozen) are cheapest kept sorted, latest first: the earliest is taken
//! from the end, and a new key moves in from the end past the keys earlier
//! than it. A heap costs more there, in its levels and its bookkeeping;
//! past [`FEW`] keys it costs less, and the keys move to one, back to the
//! run when they fall below half as many (so that a count hovering at the
//! threshold does not move them back and forth).
//!
//! A 4-ary heap is half as deep as a binary one; taking the front costs
//! three comparisons per level instead of one, but the four children of a
//! node are read together. The keys are 16 bytes and stored four to a
//! 64-byte line, shifted by three places so that the children of every
//! node fill exactly one line: going down a level costs one cache miss at
//! most, where a plain array would straddle two lines at three nodes in
//! four. That is what keeps a million pending events fast.

/// The most keys kept as a sorted run: beyond, a heap costs fewer
/// instructions a hold (docs/PERFORMANCE.md).
const FEW: usize = 32;

/// Distinct `u128` keys, the least first out.
///
/// At most one of the two holds keys: `few` while there are at most
/// [`FEW`] of them (since they last fell below `FEW / 2`), else `many`.
#[derive(Debug, Default)]
pub(super) struct KeyHeap {
    few: Run,
    many: LineHeap,
}

impl KeyHeap {
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
    /// few instructions, the heap's a call.
    #[inline(always)]
    pub(super) fn push(&mut self, key: u128) {
        if self.many.len == 0 {
            if self.few.len < FEW {
                return self.few.insert(key);
            }
            self.move_to_heap();
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

    /// Moves the keys from the run to the heap: reversed, the run is
    /// sorted least first, and so a heap as it is.
    #[cold]
    #[inline(never)]
    fn move_to_heap(&mut self) {
        let keys: Vec<u128> = self.few.keys().iter().rev().copied().collect();
        self.few.len = 0;
        self.many.rebuild(keys);
    }

    /// Moves the keys from the heap to the run.
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

    /// These keys, in the order given if they are sorted least first,
    /// reordered if not.
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
    /// heap a heap, and only one of them holding keys.
    #[cfg(test)]
    pub(super) fn is_heap(&self) -> bool {
        self.few.keys().windows(2).all(|pair| pair[0] > pair[1])
            && self.many.is_heap()
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

/// Children per node.
const ARITY: usize = 4;

/// Keys before the root, so that the children of node `i`, at
/// `ARITY * i + 1 ..= ARITY * i + ARITY`, are stored from a line's start.
const SHIFT: usize = ARITY - 1;

/// Four keys, aligned to a cache line.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Line([u128; ARITY]);

/// A min-heap of distinct `u128` keys, four to a cache line.
///
/// Every place in the allocated lines past the last key holds `u128::MAX`,
/// so a node's children can always be compared as a full line: a missing
/// child never wins (and a key equal to `u128::MAX` would still win its
/// tie, being earlier in the line). Small heaps, such as a single queue's
/// two or three pending events, then take the same branch-light path as
/// large ones.
#[derive(Debug, Default)]
struct LineHeap {
    lines: Vec<Line>,
    len: usize,
}

impl LineHeap {
    /// The least key.
    #[inline]
    fn first(&self) -> Option<u128> {
        (self.len > 0).then(|| self.get(0))
    }

    #[inline]
    fn get(&self, node: usize) -> u128 {
        let at = node + SHIFT;
        self.lines[at / ARITY].0[at % ARITY]
    }

    #[inline]
    fn set(&mut self, node: usize, key: u128) {
        let at = node + SHIFT;
        self.lines[at / ARITY].0[at % ARITY] = key;
    }

    /// Adds a key: a hole moves up from the end until the key fits.
    #[inline]
    fn push(&mut self, key: u128) {
        let hole = self.append();
        self.sift_up(hole, key);
    }

    /// Makes room for one more key at the end and returns its node.
    #[inline]
    fn append(&mut self) -> usize {
        let node = self.len;
        if (node + SHIFT) / ARITY == self.lines.len() {
            self.add_line();
        }
        self.len += 1;
        node
    }

    /// One more line of places, every one holding `u128::MAX`: once every
    /// four keys at most, so out of the way of `push`.
    #[cold]
    #[inline(never)]
    fn add_line(&mut self) {
        self.lines.push(Line([u128::MAX; ARITY]));
    }

    /// Removes the least key. The hole it leaves goes down to a leaf by
    /// the least child, and the last key fills it from there, moving up as
    /// far as it must (it rarely moves: it came from the bottom). This
    /// costs fewer comparisons than sifting the last key down from the top.
    #[inline(never)]
    fn pop_front(&mut self) {
        if self.len == 0 {
            return;
        }
        self.len -= 1;
        let last = self.get(self.len);
        self.set(self.len, u128::MAX);
        if self.len == 0 {
            return;
        }
        let mut hole = 0;
        while let Some((least, key)) = self.least_child(hole) {
            self.set(hole, key);
            hole = least;
        }
        self.sift_up(hole, last);
    }

    /// Puts `key` at `hole` or above it, where it fits.
    #[inline]
    fn sift_up(&mut self, mut hole: usize, key: u128) {
        while hole > 0 {
            let parent = (hole - 1) / ARITY;
            let above = self.get(parent);
            if above <= key {
                break;
            }
            self.set(hole, above);
            hole = parent;
        }
        self.set(hole, key);
    }

    /// The least child of `node` and its key, if it has one: one line,
    /// and a tournament of three comparisons without a loop (missing
    /// children read as `u128::MAX` and lose).
    #[inline]
    fn least_child(&self, node: usize) -> Option<(usize, u128)> {
        let first = node * ARITY + 1;
        if first >= self.len {
            return None;
        }
        let Line([a, b, c, d]) = self.lines[node + 1];
        let (ab, at_ab) = if b < a { (b, 1) } else { (a, 0) };
        let (cd, at_cd) = if d < c { (d, 3) } else { (c, 2) };
        Some(if cd < ab {
            (first + at_cd, cd)
        } else {
            (first + at_ab, ab)
        })
    }

    /// Keeps only the keys for which `keep` holds, and orders them anew.
    fn retain(&mut self, mut keep: impl FnMut(u128) -> bool) {
        let keys: Vec<u128> = self.keys().filter(|&key| keep(key)).collect();
        self.rebuild(keys);
    }

    /// Every key, least first, as one vector; the heap is left empty.
    fn drain_sorted(&mut self) -> Vec<u128> {
        let mut keys: Vec<u128> = self.keys().collect();
        keys.sort_unstable();
        self.lines.clear();
        self.len = 0;
        keys
    }

    /// A heap of `keys`, in the order given if they are sorted (a sorted
    /// array is a heap), reordered as a heap if not.
    fn rebuild(&mut self, keys: Vec<u128>) {
        self.lines.clear();
        self.len = 0;
        for key in keys {
            // Appends in place: sifting is done below, all at once.
            let node = self.append();
            self.set(node, key);
        }
        for node in (0..self.len.div_ceil(ARITY)).rev() {
            let key = self.get(node);
            let mut hole = node;
            while let Some((least, child)) = self.least_child(hole) {
                if key <= child {
                    break;
                }
                self.set(hole, child);
                hole = least;
            }
            self.set(hole, key);
        }
    }

    fn keys(&self) -> impl Iterator<Item = u128> + '_ {
        (0..self.len).map(|node| self.get(node))
    }

    /// Whether every key is at least its parent (the heap property) and
    /// every place past the last key holds `u128::MAX`.
    #[cfg(test)]
    fn is_heap(&self) -> bool {
        let places = (self.lines.len() * ARITY).saturating_sub(SHIFT);
        (1..self.len).all(|node| self.get((node - 1) / ARITY) <= self.get(node))
            && (self.len..places).all(|node| self.get(node) == u128::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distinct pseudo-random keys (a multiplicative hash of 0, 1, ...).
    fn keys(n: u64) -> Vec<u128> {
        (0..n)
            .map(|i| u128::from(i.wrapping_mul(0x9E37_79B9_7F4A_7C15)) << 20 | u128::from(i))
            .collect()
    }

    #[test]
    fn pops_every_key_in_order() {
        let mut heap = KeyHeap::default();
        let mut sorted = keys(10_000);
        sorted.iter().for_each(|&key| heap.push(key));
        assert!(heap.is_heap());
        sorted.sort_unstable();
        for &key in &sorted {
            assert_eq!(heap.first(), Some(key));
            heap.pop_front();
        }
        assert_eq!(heap.first(), None);
    }

    /// The operations the two tests below drive.
    trait Keys: Default {
        fn push(&mut self, key: u128);
        fn first(&self) -> Option<u128>;
        fn pop_front(&mut self);
        fn is_heap(&self) -> bool;
    }

    impl Keys for KeyHeap {
        fn push(&mut self, key: u128) {
            KeyHeap::push(self, key)
        }
        fn first(&self) -> Option<u128> {
            KeyHeap::first(self)
        }
        fn pop_front(&mut self) {
            KeyHeap::pop_front(self)
        }
        fn is_heap(&self) -> bool {
            KeyHeap::is_heap(self)
        }
    }

    impl Keys for LineHeap {
        fn push(&mut self, key: u128) {
            LineHeap::push(self, key)
        }
        fn first(&self) -> Option<u128> {
            LineHeap::first(self)
        }
        fn pop_front(&mut self) {
            LineHeap::pop_front(self)
        }
        fn is_heap(&self) -> bool {
            LineHeap::is_heap(self)
        }
    }

    /// Grows `K` from empty to `top` keys and shrinks it back, again and
    /// again, checking it against a shadow set after every operation.
    fn keys_come_and_go<K: Keys>(top: usize) {
        let mut heap = K::default();
        let mut shadow = std::collections::BTreeSet::new();
        for (i, key) in keys(40 * top as u64).into_iter().enumerate() {
            heap.push(key);
            shadow.insert(key);
            let pops = if (i / top) % 2 == 1 { 2 } else { 0 };
            for _ in 0..pops.min(shadow.len()) {
                assert_eq!(heap.first(), shadow.pop_first());
                heap.pop_front();
                assert!(heap.is_heap());
            }
            assert!(heap.is_heap());
            assert_eq!(heap.first(), shadow.first().copied());
        }
    }

    #[test]
    fn a_small_heap_stays_a_heap_as_keys_come_and_go() {
        // From empty to 20 keys and back: nodes with fewer than four
        // children, and the places past the last key read as children.
        keys_come_and_go::<LineHeap>(20);
    }

    #[test]
    fn keys_move_between_the_run_and_the_heap_in_order() {
        // From empty to three times as many keys as the run holds and
        // back: into the heap past `FEW`, back to the run below half.
        keys_come_and_go::<KeyHeap>(3 * FEW);
    }

    #[test]
    fn rebuilds_a_heap_from_keys_in_any_order() {
        for n in [0, 1, 2, 4, 5, 17, FEW as u64, FEW as u64 + 1, 1_000] {
            let mut heap = KeyHeap::default();
            heap.rebuild(keys(n));
            assert!(heap.is_heap(), "{n} keys");
            let mut expected = keys(n);
            expected.sort_unstable();
            assert_eq!(heap.drain_sorted(), expected);
            assert_eq!(heap.len(), 0);
        }
    }

    #[test]
    fn retain_keeps_a_heap_of_the_kept_keys() {
        let mut heap = KeyHeap::default();
        keys(1_000).into_iter().for_each(|key| heap.push(key));
        heap.retain(|key| key % 3 == 0);
        assert!(heap.is_heap());
        assert_eq!(
            heap.len(),
            keys(1_000).iter().filter(|&&key| key % 3 == 0).count()
        );
        // Few enough kept to go back to the run.
        heap.retain(|key| key % 100 == 0);
        assert!(heap.is_heap() && heap.many.len == 0);
        let mut kept: Vec<u128> = keys(1_000)
            .into_iter()
            .filter(|key| key % 300 == 0)
            .collect();
        kept.sort_unstable();
        assert_eq!(heap.drain_sorted(), kept);
    }
}
