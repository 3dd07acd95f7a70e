//! Counts of durations in buckets of three significant digits.
//!
//! The buckets are those of an HDR histogram with three significant digits
//! and a unit of one nanosecond (G. Tene's HdrHistogram, as the
//! `hdrhistogram` crate lays it out): one bucket a nanosecond below 2,048
//! ns, then each further power of two cut into 1,024 buckets of equal
//! width, so that a bucket spans at most 1/1,024 of its values. Recording
//! a duration is a count of leading zeros, a shift and an increment; the
//! counts grow to the largest bucket recorded. The general crate does the
//! same with more bookkeeping on every record (its range, its least and
//! greatest values kept as the bucket boundaries, saturating counts),
//! which a statistic recorded once per job pays for and never reads.

/// Buckets below 2,048 ns: one a nanosecond.
const LINEAR: usize = 2_048;

/// Buckets in each further power of two, as a power of two.
const HALF_MAGNITUDE: u32 = 10;

/// The bucket of a duration of `nanos` nanoseconds.
#[inline]
fn bucket_of(nanos: u64) -> usize {
    // 0 below 2,048 ns, else how far the duration's top bit lies above
    // bit 10: the bucket's width is 2^shift.
    let shift = 53 - (nanos | (LINEAR as u64 - 1)).leading_zeros();
    ((shift as usize) << HALF_MAGNITUDE) + (nanos >> shift) as usize
}

/// The durations bucket `bucket` holds \[ns\]: from the first, below the
/// second (`u64::MAX` for the last bucket, which reaches past it).
fn span_of(bucket: usize) -> (u64, u64) {
    let shift = (bucket >> HALF_MAGNITUDE).saturating_sub(1);
    let low = ((bucket - (shift << HALF_MAGNITUDE)) as u64) << shift;
    (low, low.saturating_add(1 << shift))
}

/// Counts of durations in buckets of three significant digits.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Histogram {
    counts: Vec<u64>,
    total: u64,
}

impl Histogram {
    /// Counts one duration of `nanos` nanoseconds.
    #[inline]
    pub(super) fn record(&mut self, nanos: u64) {
        let bucket = bucket_of(nanos);
        match self.counts.get_mut(bucket) {
            Some(count) => *count += 1,
            None => self.grow_and_record(bucket),
        }
        self.total += 1;
    }

    /// Grows the counts to the end of `bucket`'s power of two, and counts
    /// one duration in it.
    #[cold]
    #[inline(never)]
    fn grow_and_record(&mut self, bucket: usize) {
        let end = ((bucket >> HALF_MAGNITUDE) + 1) << HALF_MAGNITUDE;
        self.counts.resize(end.max(LINEAR), 0);
        self.counts[bucket] += 1;
    }

    /// The number of durations counted.
    pub(super) fn total(&self) -> u64 {
        self.total
    }

    /// Every bucket holding durations, first to last: the durations it
    /// spans \[ns\], from and below, and how many it holds.
    #[cfg(test)]
    pub(super) fn buckets(&self) -> impl Iterator<Item = ((u64, u64), u64)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter(|&(_, &count)| count > 0)
            .map(|(bucket, &count)| (span_of(bucket), count))
    }

    /// The first bucket holding durations at which the count so far, this
    /// bucket's included, reaches `rank` (compared as a float): the
    /// durations it spans \[ns\], how many lie below it, and how many it
    /// holds. `None` if the whole count stays below `rank`.
    ///
    /// Runs of buckets are skipped whole by their sums (a sum of counts
    /// the compiler adds several at a time), which is exact: the float of
    /// a count never exceeds the float of a larger count.
    pub(super) fn bucket_reaching(&self, rank: f64) -> Option<((u64, u64), u64, u64)> {
        const RUN: usize = 64;
        let mut below = 0u64;
        for (run, counts) in self.counts.chunks(RUN).enumerate() {
            let sum: u64 = counts.iter().sum();
            if ((below + sum) as f64) < rank {
                below += sum;
                continue;
            }
            for (within, &count) in counts.iter().enumerate() {
                if count > 0 && (below + count) as f64 >= rank {
                    return Some((span_of(run * RUN + within), below, count));
                }
                below += count;
            }
        }
        None
    }

    /// Adds every duration counted in `other`.
    pub(super) fn merge(&mut self, other: &Histogram) {
        if self.counts.len() < other.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (count, &more) in self.counts.iter_mut().zip(&other.counts) {
            *count += more;
        }
        self.total += other.total;
    }

    /// Forgets every duration counted, keeping the memory.
    pub(super) fn reset(&mut self) {
        self.counts.fill(0);
        self.total = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The same durations in the `hdrhistogram` crate's histogram of
    /// three significant digits.
    fn reference(durations: &[u64]) -> hdrhistogram::Histogram<u64> {
        let mut h = hdrhistogram::Histogram::new(3).expect("a valid precision");
        durations
            .iter()
            .for_each(|&d| h.record(d).expect("an auto-resizing histogram"));
        h
    }

    /// The buckets of `ours`, as `hdrhistogram` reports its own.
    fn theirs(reference: &hdrhistogram::Histogram<u64>) -> Vec<((u64, u64), u64)> {
        reference
            .iter_recorded()
            .map(|bucket| {
                let top = bucket.value_iterated_to();
                let span = (
                    reference.lowest_equivalent(top),
                    reference.next_non_equivalent(top),
                );
                (span, bucket.count_at_value())
            })
            .collect()
    }

    /// Durations of every magnitude, from 0 to the largest `u64`.
    fn duration() -> impl Strategy<Value = u64> {
        (0u32..64, any::<u64>()).prop_map(|(bits, x)| x >> bits)
    }

    proptest! {
        // The buckets are the `hdrhistogram` crate's, whatever the
        // durations: same spans, same counts, same order.
        #[test]
        fn buckets_are_those_of_the_hdr_histogram(
            durations in prop::collection::vec(duration(), 0..200),
        ) {
            let mut ours = Histogram::default();
            durations.iter().for_each(|&d| ours.record(d));
            let reference = reference(&durations);
            prop_assert_eq!(ours.total(), reference.len());
            prop_assert_eq!(ours.buckets().collect::<Vec<_>>(), theirs(&reference));
        }

        #[test]
        fn merged_histograms_count_both(
            a in prop::collection::vec(duration(), 0..50),
            b in prop::collection::vec(duration(), 0..50),
        ) {
            let (mut ha, mut hb, mut both) =
                (Histogram::default(), Histogram::default(), Histogram::default());
            a.iter().for_each(|&d| { ha.record(d); both.record(d) });
            b.iter().for_each(|&d| { hb.record(d); both.record(d) });
            ha.merge(&hb);
            prop_assert_eq!(ha.total(), both.total());
            prop_assert_eq!(ha.buckets().collect::<Vec<_>>(), both.buckets().collect::<Vec<_>>());
        }
    }

    #[test]
    fn buckets_meet_at_their_edges() {
        // Linear to 2,047 ns, then 2 ns wide to 4,094, 4 ns wide from 4,096.
        assert_eq!(span_of(bucket_of(2_047)), (2_047, 2_048));
        assert_eq!(span_of(bucket_of(2_048)), (2_048, 2_050));
        assert_eq!(span_of(bucket_of(2_049)), (2_048, 2_050));
        assert_eq!(span_of(bucket_of(4_095)), (4_094, 4_096));
        assert_eq!(span_of(bucket_of(4_096)), (4_096, 4_100));
        assert_eq!(bucket_of(4_096), bucket_of(4_095) + 1);
        let mut h = Histogram::default();
        h.record(u64::MAX);
        h.record(0);
        let buckets: Vec<_> = h.buckets().collect();
        assert_eq!(buckets[0], ((0, 1), 1));
        assert_eq!(buckets[1].0, (u64::MAX - ((1 << 53) - 1), u64::MAX));
        h.reset();
        assert_eq!((h.total(), h.buckets().count()), (0, 0));
    }
}
