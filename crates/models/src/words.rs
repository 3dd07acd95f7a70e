//! Errors of reading a TOML file, told in the user's words.
//!
//! Serde describes a value that does not fit in its own vocabulary: the
//! Rust type (`u32`, `f64`, `struct RunSpec`, `untagged enum MipsFile`),
//! its data model (`map`, `sequence`) and numbers printed whole
//! (`floating point `1000…0.0``). [`from_toml`] reads a file with the key
//! path of the value that does not fit ([`serde_path_to_error`]), and
//! [`plain`] rewrites serde's sentence as a user reads it: what the key
//! takes ("a whole number from 0 to 4294967295", "a number", "text in
//! quotes", "a table", "a list") and what it was given, numbers as a person
//! writes them ([`Figure`]).

use serde::de::DeserializeOwned;
use std::ops::Range;
use tpsim_core::Figure;

/// Why a TOML file could not be read into its mirror.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TomlError {
    /// The key of the value that does not fit, such as
    /// `class[edit].size`; `None` for an error of the TOML itself.
    pub key: Option<String>,
    /// What is wrong, in the user's words.
    pub message: String,
    /// Where in the text.
    pub span: Option<Range<usize>>,
}

impl TomlError {
    /// The error on one line, its key first and its line in `text` last:
    /// `users.terminals: must be ... (line 12)`.
    pub fn located(&self, text: &str) -> String {
        let line = self
            .span
            .as_ref()
            .filter(|s| s.start <= text.len() && text.is_char_boundary(s.start))
            .map(|s| format!(" (line {})", text[..s.start].matches('\n').count() + 1))
            .unwrap_or_default();
        match &self.key {
            Some(key) => format!("{key}: {}{line}", self.message),
            None => format!("{}{line}", self.message),
        }
    }
}

/// Reads `text` as a `T`, naming the key of a value that does not fit.
pub fn from_toml<T: DeserializeOwned>(text: &str) -> Result<T, TomlError> {
    let document = toml::de::Deserializer::parse(text).map_err(|e| TomlError {
        key: None,
        message: e.message().trim_end().to_string(),
        span: e.span(),
    })?;
    serde_path_to_error::deserialize(document).map_err(|e| {
        let raw: Option<toml::Value> = toml::from_str::<toml::Table>(text)
            .ok()
            .map(toml::Value::Table);
        let key = key_of(e.path(), raw.as_ref());
        let inner = e.into_inner();
        let (key, message) = keyed(key, inner.message());
        TomlError {
            key,
            message,
            span: inner.span(),
        }
    })
}

/// The key a path names, an element of an array of tables by its `name`
/// where it has a plain one (`class[edit].size`), else by its position
/// (`class[2].size`).
fn key_of(path: &serde_path_to_error::Path, raw: Option<&toml::Value>) -> String {
    use serde_path_to_error::Segment;
    let mut key = String::new();
    let mut at = raw;
    for segment in path {
        match segment {
            Segment::Map { key: k } | Segment::Enum { variant: k } => {
                if !key.is_empty() {
                    key.push('.');
                }
                key.push_str(k);
                at = at.and_then(|v| v.get(k.as_str()));
            }
            Segment::Seq { index } => {
                at = at.and_then(|v| v.get(*index));
                match at.and_then(|v| v.get("name")).and_then(|n| n.as_str()) {
                    Some(name) if crate::names::check(name).is_ok() && !name.contains(']') => {
                        key.push_str(&format!("[{name}]"));
                    }
                    _ => key.push_str(&format!("[{index}]")),
                }
            }
            Segment::Unknown => {}
        }
    }
    key
}

/// The key and the plain message of serde's `message` raised at `key`
/// (empty: the file as a whole). A message that names its own key deeper
/// down (`memory.lotsfree: ...`, from a table read in layers) keeps it; a
/// missing key is named by its own path.
fn keyed(key: String, message: &str) -> (Option<String>, String) {
    let (key, message) = match message.split_once(": ") {
        Some((own, rest))
            if !key.is_empty()
                && (own == key || own.starts_with(&format!("{key}.")))
                && !own.contains(' ') =>
        {
            (own.to_string(), rest)
        }
        _ => (key, message),
    };
    let message = message.trim_end();
    if let Some(field) = message
        .strip_prefix("missing field `")
        .and_then(|m| m.strip_suffix('`'))
    {
        let key = if key.is_empty() {
            field.to_string()
        } else {
            format!("{key}.{field}")
        };
        return (Some(key), "is required".to_string());
    }
    let message = plain(message, key.rsplit('.').next().unwrap_or(""));
    ((!key.is_empty()).then_some(key), message)
}

/// Serde's sentence `message` about a value at a key whose last part is
/// `last`, in the user's words.
pub fn plain(message: &str, last: &str) -> String {
    let message = message.trim_end();
    for (prefix, _) in [("invalid type: ", ()), ("invalid value: ", ())] {
        if let Some(rest) = message.strip_prefix(prefix)
            && let Some((given, wanted)) = rest.rsplit_once(", expected ")
        {
            return format!(
                "must be {}, not {}",
                expected(wanted, last),
                given_as(given)
            );
        }
    }
    if let Some(rest) = message.strip_prefix("invalid length ")
        && let Some((n, wanted)) = rest.split_once(", expected ")
    {
        return format!("must be {}, not a list of {n}", expected(wanted, last));
    }
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let (_, keys) = rest.split_once('`').unwrap_or((rest, ""));
        let keys = names(keys);
        return if keys.is_empty() {
            "is not a key here: this table takes no keys".to_string()
        } else {
            format!("is not a key here; the keys here are {keys}")
        };
    }
    if let Some(rest) = message.strip_prefix("unknown variant `") {
        let (name, names_given) = rest.split_once('`').unwrap_or((rest, ""));
        return format!(
            "\"{}\" is not one of {}",
            shown_text(name),
            names(names_given)
        );
    }
    if let Some(rest) = message.strip_prefix("duplicate field `") {
        return format!("\"{}\" is given twice", rest.trim_end_matches('`'));
    }
    if let Some(name) = message.strip_prefix("data did not match any variant of untagged enum ") {
        return format!("must be {}", kind(name).unwrap_or("another kind of value"));
    }
    if message == "integer number overflowed" {
        return "is a whole number too large to hold".to_string();
    }
    message.to_string()
}

/// The names in serde's `, expected one of `a`, `b``, as `a, b`.
fn names(text: &str) -> String {
    text.split('`')
        .skip(1)
        .step_by(2)
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a key takes, from serde's "expected" part.
fn expected(wanted: &str, last: &str) -> String {
    let whole = |most: &str| format!("a whole number from 0 to {most}, written in digits");
    match wanted {
        "u8" => whole("255"),
        "u16" => whole("65535"),
        "u32" => whole("4294967295"),
        "u64" | "usize" => whole("18446744073709551615"),
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number, written in digits".into(),
        "f32" | "f64" => "a number".into(),
        "a string" | "a borrowed string" | "string" | "a character" | "char" => {
            "text in quotes".into()
        }
        "a boolean" => "true or false".into(),
        "a sequence" => "a list".into(),
        "a map" => "a table".into(),
        "any valid TOML value" => {
            "a value TOML holds (whole numbers from -9223372036854775808 to 9223372036854775807)"
                .into()
        }
        w if w.starts_with("struct variant ")
            || w.starts_with("newtype variant ")
            || w.starts_with("tuple variant ") =>
        {
            format!("{{ {last} = ... }}, a table with its settings")
        }
        w if w.starts_with("struct ") || w.starts_with("tuple struct ") => "a table".into(),
        w if w.starts_with("enum ") => kind(&w["enum ".len()..])
            .unwrap_or("one of the forms docs/scenario-format.md gives for this key")
            .into(),
        other => other.to_string(),
    }
}

/// What the mirror's enums take, by their Rust names.
fn kind(name: &str) -> Option<&'static str> {
    Some(match name {
        "DistSpec" => "a distribution such as { exp = { mean = \"1s\" } }",
        "MipsFile" => {
            "a number of MIPS, or a calibration such as { cached = 1.2, uncached = 0.5, hit_ratio = 0.9 }"
        }
        "DeviceNames" => "a device's name, or a list of devices' names",
        "SchedulerName" => "one of \"round-robin\", \"unix\", \"multics\"",
        "LocalityFile" => "a locality such as { cfl = { b = \"10ms\", c = 20 } }, or \"sweep\"",
        "PatternFile" => "\"uniform\" or { zipf = EXPONENT }",
        "FileAccessFile" => "{ read = \"NAME\" } or { write = \"NAME\" }",
        "LayoutFile" => "\"scattered\" or \"contiguous\"",
        "RulesFile" => "\"v7\" or \"4bsd\"",
        "Pageout" => "\"daemon\" or \"fault\"",
        "ReferenceBits" => "\"hardware\" or \"simulated\"",
        "Discipline" => "one of the disciplines, such as \"fcfs\"",
        _ => return None,
    })
}

/// What a key was given, from serde's description of it.
fn given_as(given: &str) -> String {
    if let Some(x) = given
        .strip_prefix("floating point `")
        .and_then(|g| g.strip_suffix('`'))
    {
        return x.parse::<f64>().map_or_else(|_| x.to_string(), float);
    }
    if let Some(x) = given.strip_prefix("integer `").and_then(|g| {
        g.strip_suffix("` as i128")
            .or_else(|| g.strip_suffix("` as u128"))
    }) {
        return x
            .parse::<f64>()
            .map_or_else(|_| x.to_string(), |x| Figure(x).to_string());
    }
    if let Some(x) = given
        .strip_prefix("integer `")
        .and_then(|g| g.strip_suffix('`'))
    {
        return x.to_string();
    }
    if let Some(x) = given
        .strip_prefix("boolean `")
        .and_then(|g| g.strip_suffix('`'))
    {
        return x.to_string();
    }
    if let Some(s) = given.strip_prefix("string ") {
        // Serde quotes it as Rust's Debug does.
        let inner = s
            .strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .unwrap_or(s);
        return format!("the text \"{}\"", shown_text(inner));
    }
    match given {
        "sequence" => "a list".into(),
        "map" => "a table".into(),
        "unit value" | "Option value" => "nothing".into(),
        "unit variant" => "a bare name".into(),
        "newtype variant" | "tuple variant" | "struct variant" | "enum" => "a table".into(),
        other => other.to_string(),
    }
}

/// What kind of value a TOML value is, in the user's words.
pub fn kind_of(value: &toml::Value) -> &'static str {
    match value {
        toml::Value::String(_) => "text",
        toml::Value::Integer(_) => "a whole number",
        toml::Value::Float(_) => "a number",
        toml::Value::Boolean(_) => "true or false",
        toml::Value::Datetime(_) => "a date or time",
        toml::Value::Array(_) => "a list",
        toml::Value::Table(_) => "a table",
    }
}

/// A float as written, with a point when it is whole (`5.0`, not `5`, so
/// that "must be a whole number, not 5.0" reads right).
fn float(x: f64) -> String {
    let shown = Figure(x).to_string();
    if x.is_finite() && !shown.contains(['.', 'e']) {
        format!("{shown}.0")
    } else {
        shown
    }
}

/// The most characters of a text a message shows.
pub const SHOWN_CHARS: usize = 40;

/// Text in a message: at most [`SHOWN_CHARS`] characters, `…` marking what
/// is left out.
pub fn shown_text(text: &str) -> String {
    let mut shown: String = text.chars().take(SHOWN_CHARS).collect();
    if text.chars().nth(SHOWN_CHARS).is_some() {
        shown.push('…');
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_sentences_in_the_users_words() {
        for (message, last, words) in [
            (
                "invalid type: floating point `1000000000000000000000000000000000000000000000000000000000000000000000.0`, expected u32",
                "terminals",
                "must be a whole number from 0 to 4294967295, written in digits, not 1e69",
            ),
            (
                "invalid type: floating point `0.000000000000000000000000000001`, expected u64",
                "max_events",
                "must be a whole number from 0 to 18446744073709551615, written in digits, not 1e-30",
            ),
            (
                "invalid type: floating point `5.0`, expected u32",
                "cpus",
                "must be a whole number from 0 to 4294967295, written in digits, not 5.0",
            ),
            (
                "invalid value: integer `-1`, expected u32",
                "cpus",
                "must be a whole number from 0 to 4294967295, written in digits, not -1",
            ),
            (
                "invalid type: integer `18446744073709551616` as i128, expected any valid TOML value",
                "max_events",
                "must be a value TOML holds (whole numbers from -9223372036854775808 to 9223372036854775807), not 1.84467e19",
            ),
            (
                "invalid type: string \"x\", expected f64",
                "scv",
                "must be a number, not the text \"x\"",
            ),
            (
                "invalid type: map, expected a duration such as \"100ms\" or a number of seconds",
                "end_time",
                "must be a duration such as \"100ms\" or a number of seconds, not a table",
            ),
            (
                "invalid type: sequence, expected struct RunSpec",
                "run",
                "must be a table, not a list",
            ),
            (
                "data did not match any variant of untagged enum MipsFile",
                "mips",
                "must be a number of MIPS, or a calibration such as { cached = 1.2, uncached = 0.5, hit_ratio = 0.9 }",
            ),
            (
                "unknown field `speed`, expected one of `name`, `discipline`",
                "speed",
                "is not a key here; the keys here are name, discipline",
            ),
            (
                "unknown variant `lottery`, expected one of `round-robin`, `unix`, `multics`",
                "scheduler",
                "\"lottery\" is not one of round-robin, unix, multics",
            ),
        ] {
            let said = plain(message, last);
            assert_eq!(said, words, "{message}");
            for serde_word in [
                "u32", "u64", "f64", "i128", "untagged", "map", "sequence", "struct",
            ] {
                assert!(!said.contains(serde_word), "{said}");
            }
        }
    }

    #[test]
    fn a_missing_key_and_a_key_named_deeper_are_the_key() {
        assert_eq!(
            keyed("memory".into(), "missing field `size`"),
            (Some("memory.size".into()), "is required".into())
        );
        assert_eq!(
            keyed(String::new(), "missing field `run`"),
            (Some("run".into()), "is required".into())
        );
        assert_eq!(
            keyed(
                "memory".into(),
                "memory.lotsfree: invalid type: floating point `5.0`, expected a size"
            ),
            (
                Some("memory.lotsfree".into()),
                "must be a size, not 5.0".into()
            )
        );
    }
}
