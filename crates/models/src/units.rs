//! Quantities with units, as written in scenario files.
//!
//! A duration is a number followed by a unit (`"1.25s"`, `"100ms"`,
//! `"90min"`) or a bare number of seconds; a rate is a number per unit of
//! time (`"0.8/s"`, `"48/min"`) or a bare number per second. Parsing checks
//! only the syntax; the range of a value (positive, at least zero) is
//! checked by validation, which knows the key it belongs to.
//!
//! A size is a number and a unit: bytes (`B`), binary multiples (`KiB`,
//! `MiB`, `GiB`), decimal ones (`KB`, `MB`, `GB`), or 36-bit words of the
//! Honeywell 6180 (`w`, `Kw` = 1024 words, `Mw` = 1024² words; a word is
//! 4.5 bytes). A transfer rate is a size per unit of time (`"800KB/s"`).

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use std::fmt;

/// Numbers in messages are printed as a person writes them.
pub use tpsim_core::{Figure, Fixed};

/// Seconds per unit, for every unit a duration may carry.
const TIME_UNITS: [(&str, f64); 7] = [
    ("ns", 1e-9),
    ("us", 1e-6),
    ("µs", 1e-6),
    ("ms", 1e-3),
    ("s", 1.0),
    ("min", 60.0),
    ("h", 3600.0),
];

/// Bytes per unit, for every unit a size may carry.
const SIZE_UNITS: [(&str, f64); 10] = [
    ("B", 1.0),
    ("KiB", 1024.0),
    ("MiB", 1024.0 * 1024.0),
    ("GiB", 1024.0 * 1024.0 * 1024.0),
    ("KB", 1e3),
    ("MB", 1e6),
    ("GB", 1e9),
    ("w", WORD_BYTES),
    ("Kw", 1024.0 * WORD_BYTES),
    ("Mw", 1024.0 * 1024.0 * WORD_BYTES),
];

/// A 36-bit word, in bytes.
const WORD_BYTES: f64 = 4.5;

/// A size in bytes, from a scenario.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bytes(pub f64);

/// A transfer rate in bytes per second, from a scenario.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BytesPerSecond(pub f64);

/// A duration in seconds, from a scenario.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Seconds(pub f64);

/// A rate in events per second, from a scenario.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PerSecond(pub f64);

fn split_number(text: &str) -> Option<(f64, &str)> {
    let text = text.trim();
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E')))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(end);
    let number: f64 = number.parse().ok()?;
    Some((number, unit.trim()))
}

fn seconds_per(unit: &str) -> Option<f64> {
    TIME_UNITS
        .iter()
        .find(|(name, _)| *name == unit)
        .map(|&(_, s)| s)
}

/// Parses `"1.25s"`, `"100 ms"`, `"3"` (seconds).
pub fn parse_duration(text: &str) -> Result<Seconds, String> {
    let bad = || {
        format!(
            "invalid duration \"{text}\": expected a number and a unit (ns, us, ms, s, min, h), such as \"100ms\""
        )
    };
    let (number, unit) = split_number(text).ok_or_else(bad)?;
    let scale = if unit.is_empty() {
        1.0
    } else {
        seconds_per(unit).ok_or_else(bad)?
    };
    Ok(Seconds(number * scale))
}

/// Parses `"0.8/s"`, `"48 / min"`, `"2"` (per second).
pub fn parse_rate(text: &str) -> Result<PerSecond, String> {
    let bad = || {
        format!(
            "invalid rate \"{text}\": expected a number per unit of time, such as \"0.8/s\" or \"48/min\""
        )
    };
    let (number, rest) = text.split_once('/').unwrap_or((text, "s"));
    let (number, unit) = split_number(number).ok_or_else(bad)?;
    if !unit.is_empty() {
        return Err(bad());
    }
    let scale = seconds_per(rest.trim()).ok_or_else(bad)?;
    Ok(PerSecond(number / scale))
}

fn bytes_per(unit: &str) -> Option<f64> {
    SIZE_UNITS
        .iter()
        .find(|(name, _)| *name == unit)
        .map(|&(_, b)| b)
}

/// Parses `"512KiB"`, `"3 MB"`, `"1Kw"`; a size needs its unit.
pub fn parse_size(text: &str) -> Result<Bytes, String> {
    let bad = || {
        format!(
            "invalid size \"{text}\": expected a number and a unit (B, KiB, MiB, GiB, KB, MB, GB, w, Kw, Mw), such as \"512KiB\""
        )
    };
    let (number, unit) = split_number(text).ok_or_else(bad)?;
    Ok(Bytes(number * bytes_per(unit).ok_or_else(bad)?))
}

/// Parses `"800KB/s"`, `"1.2 MB / s"`.
pub fn parse_transfer_rate(text: &str) -> Result<BytesPerSecond, String> {
    let bad = || {
        format!(
            "invalid transfer rate \"{text}\": expected a size per unit of time, such as \"800KB/s\""
        )
    };
    let (size, per) = text.split_once('/').ok_or_else(bad)?;
    let size = parse_size(size).map_err(|_| bad())?;
    let seconds = seconds_per(per.trim()).ok_or_else(bad)?;
    Ok(BytesPerSecond(size.0 / seconds))
}

struct QuantityVisitor {
    expecting: &'static str,
    parse: fn(&str) -> Result<f64, String>,
    /// Whether a bare number is accepted (in the base unit).
    bare: bool,
}

impl Visitor<'_> for QuantityVisitor {
    type Value = f64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
        (self.parse)(v).map_err(E::custom)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
        if self.bare {
            Ok(v)
        } else {
            Err(E::invalid_type(de::Unexpected::Float(v), &self))
        }
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
        self.visit_f64(v as f64)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
        self.visit_f64(v as f64)
    }
}

/// Implements `Deserialize` for a quantity: a string parsed by `$parse`,
/// or, where `$bare`, a bare number in the base unit.
macro_rules! quantity {
    ($ty:ident, $expecting:literal, $parse:ident, bare: $bare:literal) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any(QuantityVisitor {
                    expecting: $expecting,
                    parse: |s| $parse(s).map(|q| q.0),
                    bare: $bare,
                })
                .map($ty)
            }
        }
    };
}

quantity!(Seconds, "a duration such as \"100ms\" or a number of seconds", parse_duration, bare: true);
quantity!(PerSecond, "a rate such as \"0.8/s\" or a number per second", parse_rate, bare: true);
quantity!(Bytes, "a size such as \"512KiB\"", parse_size, bare: false);
quantity!(BytesPerSecond, "a transfer rate such as \"800KB/s\"", parse_transfer_rate, bare: false);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_with_units() {
        assert_eq!(parse_duration("1.25s"), Ok(Seconds(1.25)));
        assert_eq!(parse_duration("100 ms"), Ok(Seconds(0.1)));
        assert_eq!(parse_duration("90min"), Ok(Seconds(5400.0)));
        assert_eq!(parse_duration("2h"), Ok(Seconds(7200.0)));
        assert_eq!(parse_duration("3"), Ok(Seconds(3.0)));
        assert_eq!(parse_duration("-1s"), Ok(Seconds(-1.0)));
        assert!((parse_duration("2.5us").unwrap().0 - 2.5e-6).abs() < 1e-18);
        assert!(
            parse_duration("1 parsec")
                .unwrap_err()
                .contains("\"1 parsec\"")
        );
        assert!(parse_duration("s").is_err());
    }

    #[test]
    fn rates_per_unit_of_time() {
        assert_eq!(parse_rate("0.8/s"), Ok(PerSecond(0.8)));
        assert_eq!(parse_rate("48/min"), Ok(PerSecond(0.8)));
        assert_eq!(parse_rate("2"), Ok(PerSecond(2.0)));
        assert!(parse_rate("2/fortnight").is_err());
        assert!(parse_rate("2ms/s").is_err());
    }

    #[test]
    fn sizes_and_transfer_rates() {
        assert_eq!(parse_size("512KiB"), Ok(Bytes(524_288.0)));
        assert_eq!(parse_size("3 MB"), Ok(Bytes(3e6)));
        assert_eq!(parse_size("1Kw"), Ok(Bytes(4608.0)));
        assert_eq!(parse_size("1Mw"), Ok(Bytes(4_718_592.0)));
        assert!(parse_size("512").unwrap_err().contains("\"512\""));
        assert!(parse_size("2 furlongs").is_err());
        assert_eq!(parse_transfer_rate("800KB/s"), Ok(BytesPerSecond(8e5)));
        assert_eq!(parse_transfer_rate("60MB/min"), Ok(BytesPerSecond(1e6)));
        assert!(parse_transfer_rate("800KB").is_err());
    }
}
