//! Numbers in messages and descriptions, as a person writes them.

use std::fmt;

/// A number as a person writes it: at most six significant digits, and
/// powers of ten for the very large and very small (`1e300`, `-0.0018`,
/// `2.5e-7`, `86400`, `3.6e12`), where `{}` would print three hundred
/// digits or the last bits of a sum (`-0.0018000000000000002`,
/// `999999999.9999999`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Figure(pub f64);

impl fmt::Display for Figure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        if !x.is_finite() || x == 0.0 {
            return write!(f, "{x}");
        }
        // Rounded to six significant digits, then printed shortest.
        let rounded: f64 = format!("{x:.5e}")
            .parse()
            .expect("a formatted float reads back");
        if (1e-4..1e9).contains(&rounded.abs()) {
            write!(f, "{rounded}")
        } else {
            write!(f, "{rounded:e}")
        }
    }
}

/// A number to a fixed number of decimal places, as tables print
/// measures (`Fixed(0.25, 4)` is `0.2500`), except where the places would
/// follow more than fifteen digits: then as a [`Figure`] (`1e300`, not
/// three hundred digits and four places).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fixed(pub f64, pub usize);

impl fmt::Display for Fixed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Fixed(x, places) = *self;
        if x.is_finite() && x.abs() >= 1e15 {
            write!(f, "{}", Figure(x))
        } else {
            write!(f, "{x:.places$}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_print_as_a_person_writes_them() {
        for (x, shown) in [
            (1e300, "1e300"),
            (-0.0018000000000000002, "-0.0018"),
            (86_400.0, "86400"),
            (0.1 + 0.2, "0.3"),
            (2.5e-7, "2.5e-7"),
            (123_456_789.0, "123457000"),
            (999_999_999.999_999_9, "1e9"),
            (3.6e12, "3.6e12"),
            (-1.8e-10, "-1.8e-10"),
            (0.0, "0"),
            (f64::INFINITY, "inf"),
            (f64::NAN, "NaN"),
        ] {
            assert_eq!(Figure(x).to_string(), shown, "{x:?}");
        }
    }

    #[test]
    fn fixed_places_up_to_fifteen_digits() {
        assert_eq!(Fixed(0.25, 4).to_string(), "0.2500");
        assert_eq!(Fixed(123_456_789.0, 3).to_string(), "123456789.000");
        assert_eq!(Fixed(1e300, 3).to_string(), "1e300");
        assert_eq!(Fixed(-1e303, 3).to_string(), "-1e303");
        assert_eq!(Fixed(1e-300, 3).to_string(), "0.000");
        assert_eq!(Fixed(f64::NAN, 2).to_string(), "NaN");
    }
}
