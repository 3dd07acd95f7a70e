//! Quantities with units, as written in scenario files.
//!
//! A duration is a number followed by a unit (`"1.25s"`, `"100ms"`,
//! `"90min"`) or a bare number of seconds; a rate is a number per unit of
//! time (`"0.8/s"`, `"48/min"`) or a bare number per second. Parsing checks
//! only the syntax; the range of a value (positive, at least zero) is
//! checked by validation, which knows the key it belongs to.

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use std::fmt;

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

struct QuantityVisitor {
    expecting: &'static str,
    parse: fn(&str) -> Result<f64, String>,
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
        Ok(v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
        Ok(v as f64)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
        Ok(v as f64)
    }
}

impl<'de> Deserialize<'de> for Seconds {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(QuantityVisitor {
            expecting: "a duration such as \"100ms\" or a number of seconds",
            parse: |s| parse_duration(s).map(|d| d.0),
        })
        .map(Seconds)
    }
}

impl<'de> Deserialize<'de> for PerSecond {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(QuantityVisitor {
            expecting: "a rate such as \"0.8/s\" or a number per second",
            parse: |s| parse_rate(s).map(|r| r.0),
        })
        .map(PerSecond)
    }
}

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
}
