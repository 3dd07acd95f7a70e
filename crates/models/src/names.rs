//! Names a user gives things: a scenario, a class, a station, a device, a
//! data file, a background entry, a benchmark.
//!
//! A name is shown in tables, messages, CSV files and charts, and is the
//! way a key points at an element (`class[edit].size`), so [`check`]
//! refuses one that cannot be shown or read back: empty or blank, with a
//! character that does not print (a control character such as a newline
//! or a tab, a format character such as a bidirectional override or a
//! zero-width space, a line or paragraph separator), with a space at
//! either end, `.` or `..`, or longer than [`LONGEST_NAME`] characters.
//! The rule is stated in `docs/scenario-format.md`.

use crate::words::shown_text;

/// The most characters a name may have.
pub const LONGEST_NAME: usize = 64;

/// Whether `c` does not show as itself: a control character (Unicode
/// category Cc), a format character (Cf: bidirectional marks and
/// overrides, zero-width characters, the soft hyphen, tags), or a line or
/// paragraph separator (Zl, Zp).
pub fn invisible(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{AD}'
                | '\u{600}'..='\u{605}'
                | '\u{61C}'
                | '\u{6DD}'
                | '\u{70F}'
                | '\u{890}'..='\u{891}'
                | '\u{8E2}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{206F}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
                | '\u{110BD}'
                | '\u{110CD}'
                | '\u{13430}'..='\u{1343F}'
                | '\u{1BCA0}'..='\u{1BCA3}'
                | '\u{1D173}'..='\u{1D17A}'
                | '\u{E0001}'
                | '\u{E0020}'..='\u{E007F}'
        )
}

/// Checks a name; the refusal says why, without the name (the caller
/// names the key).
pub fn check(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("a name cannot be empty".into());
    }
    if let Some(c) = name.chars().find(|&c| invisible(c)) {
        return Err(format!(
            "{} has the character U+{:04X}, which does not print (a control or format character, or a line separator): names must show as written, on one line",
            quoted(name),
            u32::from(c)
        ));
    }
    if name.trim().is_empty() {
        return Err("a name cannot be only spaces".into());
    }
    if name.trim() != name {
        return Err(format!(
            "{} begins or ends with a space, which does not show",
            quoted(name)
        ));
    }
    if name == "." || name == ".." {
        return Err(format!("\"{name}\" cannot be a name"));
    }
    let length = name.chars().count();
    if length > LONGEST_NAME {
        return Err(format!(
            "{} has {length} characters; a name has at most {LONGEST_NAME}",
            quoted(name)
        ));
    }
    Ok(())
}

/// A name in a message: quoted, its invisible characters escaped, cut
/// short.
fn quoted(name: &str) -> String {
    let escaped: String = name
        .chars()
        .map(|c| {
            if invisible(c) {
                format!("\\u{{{:x}}}", u32::from(c))
            } else {
                c.to_string()
            }
        })
        .collect();
    format!("\"{}\"", shown_text(&escaped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_cannot_be_shown_are_refused() {
        for good in [
            "edit",
            "MIT#1",
            "cpu 2",
            "é",
            "日本",
            "-1.5",
            "=sum",
            &"x".repeat(64),
        ] {
            assert_eq!(check(good), Ok(()), "{good:?}");
        }
        for bad in [
            "",
            "   ",
            "..",
            ".",
            "a\nb",
            "tab\there",
            "abc\u{202E}def",
            "line\u{2028}sep",
            "par\u{2029}sep",
            "zero\u{200B}width",
            "joiner\u{200D}",
            "\u{FEFF}bom",
            " edit",
            "edit ",
            &"x".repeat(65),
            &"y".repeat(1 << 20),
        ] {
            let e = check(bad).unwrap_err();
            assert!(e.chars().count() < 300, "{e}");
            assert!(!e.contains('\u{202E}') && !e.contains('\n'), "{e}");
        }
    }
}
