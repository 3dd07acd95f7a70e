//! Simulated time as integer nanosecond ticks.
//!
//! Time is an integer so that it never drifts, is totally ordered, and so
//! that two events scheduled for the same instant really tie (and are then
//! ordered by the calendar's insertion sequence). One tick is one
//! nanosecond; a `u64` spans about 584 years of simulated time.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant or a span of simulated time, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(u64);

/// Nanosecond ticks per second.
pub const TICKS_PER_SECOND: u64 = 1_000_000_000;

impl SimTime {
    /// The start of every simulation.
    pub const ZERO: SimTime = SimTime(0);
    /// The largest representable time; used as "never".
    pub const MAX: SimTime = SimTime(u64::MAX);

    /// A time of `ticks` nanoseconds.
    pub const fn from_nanos(ticks: u64) -> SimTime {
        SimTime(ticks)
    }

    /// A time of `secs` whole seconds.
    ///
    /// # Panics
    /// If `secs` seconds do not fit in [`SimTime`] (about 584 years), in
    /// release builds as in debug ones.
    pub const fn from_secs(secs: u64) -> SimTime {
        match secs.checked_mul(TICKS_PER_SECOND) {
            Some(ticks) => SimTime(ticks),
            None => panic!("simulated time overflows u64 nanoseconds"),
        }
    }

    /// The nearest tick to `secs` seconds.
    ///
    /// # Panics
    /// If `secs` is negative, not finite, or beyond [`SimTime::MAX`]: callers
    /// validate user input before it reaches the kernel, so such a value is a
    /// bug in the model.
    #[inline]
    pub fn from_secs_f64(secs: f64) -> SimTime {
        let ticks = secs * TICKS_PER_SECOND as f64;
        // One test for every bad value: NaN fails the first comparison,
        // infinity the second.
        if !(secs >= 0.0 && ticks < u64::MAX as f64) {
            out_of_range(secs);
        }
        // Rounds half away from zero, as `f64::round`, without its call
        // into the maths library: `ticks - whole` is exact in floating point.
        // Below 2^63 ticks (292 years: every sampled duration) through a
        // signed integer, a few instructions where the unsigned conversion
        // takes a dozen, and the same value.
        if ticks < SIGNED as f64 {
            let whole = ticks as i64;
            SimTime((whole + i64::from(ticks - whole as f64 >= 0.5)) as u64)
        } else {
            let whole = ticks as u64;
            SimTime(whole + u64::from(ticks - whole as f64 >= 0.5))
        }
    }

    /// The number of nanosecond ticks.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }

    /// This time in seconds.
    #[inline]
    pub fn as_secs_f64(self) -> f64 {
        // Below 2^63 ticks through a signed integer, as in `from_secs_f64`;
        // out of line above, so that the compiler does not merge the two
        // back into the unsigned conversion.
        let ticks = if self.0 < SIGNED {
            self.0 as i64 as f64
        } else {
            wide_as_f64(self.0)
        };
        ticks / TICKS_PER_SECOND as f64
    }

    /// `self - earlier`, or zero if `earlier` is later.
    pub fn saturating_sub(self, earlier: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(earlier.0))
    }
}

/// Ticks from which a time no longer fits a signed 64-bit integer.
const SIGNED: u64 = 1 << 63;

/// `ticks` as a float, for times past [`SIGNED`].
#[cold]
#[inline(never)]
fn wide_as_f64(ticks: u64) -> f64 {
    ticks as f64
}

/// The refusal of `secs` seconds as a [`SimTime`].
#[cold]
#[inline(never)]
fn out_of_range(secs: f64) -> ! {
    assert!(
        secs.is_finite() && secs >= 0.0,
        "simulated time must be finite and non-negative, got {secs} s"
    );
    panic!("simulated time {secs} s overflows");
}

impl Add for SimTime {
    type Output = SimTime;
    fn add(self, rhs: SimTime) -> SimTime {
        SimTime(
            self.0
                .checked_add(rhs.0)
                .expect("simulated time overflowed u64 nanoseconds"),
        )
    }
}

impl AddAssign for SimTime {
    fn add_assign(&mut self, rhs: SimTime) {
        *self = *self + rhs;
    }
}

impl Sub for SimTime {
    type Output = SimTime;
    fn sub(self, rhs: SimTime) -> SimTime {
        SimTime(
            self.0
                .checked_sub(rhs.0)
                .expect("simulated time went negative"),
        )
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}s", self.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_round_trip_to_the_tick() {
        assert_eq!(SimTime::from_secs_f64(1.25).as_nanos(), 1_250_000_000);
        assert_eq!(SimTime::from_secs(3).as_secs_f64(), 3.0);
        assert_eq!(SimTime::from_secs_f64(1e-9).as_nanos(), 1);
        assert_eq!(SimTime::from_secs_f64(0.4e-9).as_nanos(), 0);
    }

    proptest::proptest! {
        #[test]
        fn seconds_round_to_the_nearest_tick_as_f64_round_does(
            secs in proptest::prop_oneof![0.0f64..1e-6, 0.0f64..1e6, 0.0f64..1.8e10]
        ) {
            let ticks = (secs * TICKS_PER_SECOND as f64).round() as u64;
            proptest::prop_assert_eq!(SimTime::from_secs_f64(secs).as_nanos(), ticks);
        }
    }

    proptest::proptest! {
        // Through a signed integer below 2^63 ticks, as the unsigned
        // conversion gives it, at every magnitude.
        #[test]
        fn seconds_are_the_ticks_over_a_billion(
            ticks in proptest::prelude::any::<u64>(),
            bits in 0u32..64,
        ) {
            for ticks in [ticks, ticks >> bits, u64::MAX, 1 << 63, (1 << 63) - 1] {
                proptest::prop_assert_eq!(
                    SimTime::from_nanos(ticks).as_secs_f64().to_bits(),
                    (ticks as f64 / 1e9).to_bits()
                );
            }
        }
    }

    #[test]
    fn halves_round_away_from_zero() {
        for ticks in [
            0.5,
            1.5,
            2.5,
            1e15 + 0.5,
            0.49999999999999994,
            4503599627370495.5,
        ] {
            assert_eq!(
                SimTime::from_secs_f64(ticks / 1e9).as_nanos(),
                (ticks / 1e9 * 1e9).round() as u64,
                "{ticks} ticks"
            );
        }
    }

    #[test]
    fn times_add_up_and_print_in_seconds() {
        let mut t = SimTime::from_secs(2);
        t += SimTime::from_nanos(500_000_000);
        assert_eq!(t, SimTime::from_nanos(2_500_000_000));
        assert_eq!(t.to_string(), "2.5s");
    }

    #[test]
    fn arithmetic_is_checked() {
        let a = SimTime::from_secs(2);
        let b = SimTime::from_secs(1);
        assert_eq!(a - b, b);
        assert_eq!(b.saturating_sub(a), SimTime::ZERO);
        assert!(std::panic::catch_unwind(|| b - a).is_err());
        for bad in [-1.0, f64::NAN, f64::INFINITY, 1.9e10] {
            assert!(std::panic::catch_unwind(|| SimTime::from_secs_f64(bad)).is_err());
        }
        assert!(std::panic::catch_unwind(|| SimTime::from_secs(u64::MAX / 1_000)).is_err());
        assert_eq!(
            SimTime::from_secs(18_446_744_073).as_nanos(),
            18_446_744_073_000_000_000
        );
    }
}
