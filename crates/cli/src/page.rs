//! The report page (`tpsim_probe::page`) from the CLI: `tpsim report
//! DIR... --out FILE` makes one from output sets already written, and
//! `--html` on the commands that write a set (`run`, `batch`, `sweep`,
//! `merge`, `analyze`, `compare`) adds one, `report.html`, to the set it
//! writes.
//!
//! A set read back is read as `tpsim analyze` reads a run's files: only a
//! directory whose manifest is in place, each file checked against it
//! (`output::check_input`), so a page never mixes two sets. A page made
//! later knows only what the files record; a command that writes its page
//! with its set also knows its command line, its scenarios' text, its
//! version and the time, and the page says so. The page file is written
//! whole or not at all (`output::write_atomically`).

use crate::output::{self, MANIFEST, OutputFile};
use crate::{Failure, Finished, read_scenario};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;
use tpsim_probe::page::{self, Origin, Set};

/// The page's name in a set that `--html` writes it into.
pub(crate) const PAGE: &str = "report.html";

/// The program and its version, as a page names them.
fn generator() -> String {
    format!("tpsim {}", env!("CARGO_PKG_VERSION"))
}

/// `tpsim report`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct ReportArgs {
    /// Output directories of `tpsim run`, `batch`, `sweep`, `merge`,
    /// `analyze` or `compare` (the DIR given to their --out). Sets of one
    /// kind given together are laid side by side.
    #[arg(required = true, value_name = "DIR")]
    sets: Vec<PathBuf>,
    /// The HTML file to write: one self-contained page, written whole or
    /// not at all. Not inside one of the DIRs, where the next set written
    /// there would leave it behind, stale (use --html on the command).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

/// The command line as a person would type it again: each argument that
/// a shell would split or expand quoted.
pub(crate) fn command_line(args: &[OsString]) -> String {
    let words: Vec<String> = args
        .iter()
        .enumerate()
        .map(|(i, arg)| {
            let arg = arg.to_string_lossy();
            let arg = if i == 0 {
                // The program as the user named it, without its directory.
                Path::new(arg.as_ref())
                    .file_name()
                    .map_or(arg.to_string(), |n| n.to_string_lossy().into_owned())
            } else {
                arg.into_owned()
            };
            let plain = !arg.is_empty()
                && arg
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=,:+@%".contains(c));
            if plain {
                arg
            } else {
                format!("'{}'", arg.replace('\'', r"'\''"))
            }
        })
        .collect();
    words.join(" ")
}

/// A moment as a person reads it, in UTC: `2026-11-27 01:02:03 UTC`.
fn utc(moment: SystemTime) -> String {
    let seconds = moment
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, second) = (seconds / 86_400, seconds % 86_400);
    // Days since 1970-01-01 to a civil date (H. Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        second / 3600,
        second / 60 % 60,
        second % 60
    )
}

/// What a command that writes its set knows of it: its command line
/// `command`, the text of the scenario files among `scenarios` (a
/// measured table is not one), this tpsim, and now.
pub(crate) fn origin(command: &str, scenarios: &[&Path]) -> Result<Origin, Failure> {
    let mut texts = Vec::new();
    for path in scenarios {
        if path.extension().is_some_and(|e| e == "csv") {
            continue;
        }
        texts.push((path.display().to_string(), read_scenario(path)?));
    }
    Ok(Origin {
        command: Some(command.to_string()),
        scenarios: texts,
        version: Some(generator()),
        written: Some(utc(SystemTime::now())),
        written_from: None,
    })
}

/// The page of the set `files` that a command writes into `dir`, made
/// with `origin`, as a file of the set.
pub(crate) fn page_file(
    dir: &Path,
    files: &[OutputFile],
    origin: Origin,
) -> anyhow::Result<OutputFile> {
    let set = Set {
        name: dir.display().to_string(),
        files: files
            .iter()
            .filter(|(name, _)| shown(name))
            .cloned()
            .collect(),
        origin,
    };
    let made = set.origin.written.clone().unwrap_or_default();
    let html = page::render(&[set], &generator(), &made)?;
    Ok((PAGE.to_string(), html.into_bytes()))
}

/// Whether the page shows a file of that name: the tables, the JSON
/// and the SVG charts (the PNG copies of the charts and an earlier page are
/// left out).
fn shown(name: &str) -> bool {
    [".csv", ".json", ".svg"].iter().any(|e| name.ends_with(e))
}

/// `tpsim report`.
pub(crate) fn report(args: &ReportArgs, stdout: &mut dyn Write) -> Result<Finished, Failure> {
    let input = |message: String| Failure::Input(anyhow::anyhow!(message));
    let out = &args.out;
    if out.is_dir() {
        return Err(input(format!(
            "--out {}: a directory; give the HTML file to write, such as {}",
            out.display(),
            out.join(PAGE).display()
        )));
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !parent.is_dir() {
        return Err(input(format!(
            "--out {}: there is no directory {} to write it into",
            out.display(),
            parent.display()
        )));
    }
    let sets = args
        .sets
        .iter()
        .map(|dir| read_set(dir))
        .collect::<Result<Vec<_>, _>>()?;
    for dir in &args.sets {
        if same_path(dir, &parent) {
            return Err(input(format!(
                "--out {}: inside the output set {}, where the next set written there would leave the page behind, stale; write it elsewhere, or give the command that writes the set --html",
                out.display(),
                dir.display()
            )));
        }
    }
    let html = page::render(&sets, &generator(), &utc(SystemTime::now()))
        .map_err(|e| input(e.to_string()))?;
    output::write_atomically(out, html.as_bytes()).map_err(Failure::Run)?;
    writeln!(
        stdout,
        "{}: the report page of {}",
        out.display(),
        tpsim_probe::report::count(sets.len(), "output set", "output sets")
    )
    .map_err(|e| Failure::Run(e.into()))?;
    Ok(Finished::Whole)
}

/// Whether `a` and `b` are the same file or directory.
pub(crate) fn same_path(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The output set in `dir`: the files its manifest lists that a page
/// shows, each checked against the manifest.
fn read_set(dir: &Path) -> Result<Set, Failure> {
    let input = |message: String| Failure::Input(anyhow::anyhow!(message));
    let shown_dir = dir.display();
    let metadata = std::fs::metadata(dir)
        .map_err(|e| input(format!("cannot read output directory {shown_dir}: {e}")))?;
    if !metadata.is_dir() {
        return Err(input(format!(
            "{shown_dir}: not a directory; tpsim report reads output directories, the DIR given to --out of run, batch, sweep, merge, analyze or compare"
        )));
    }
    let manifest_path = dir.join(MANIFEST);
    let manifest = match std::fs::read_to_string(&manifest_path) {
        Ok(text) => text,
        Err(_) if output::being_written(dir) => {
            return Err(input(format!(
                "{shown_dir}: holds a set of output files being written, or cut short by a crash; report it when the command writing it is over, or run again there"
            )));
        }
        Err(_) => {
            return Err(input(format!(
                "{shown_dir}: not a tpsim output set: it has no {MANIFEST}, the list of files that every --out directory gets"
            )));
        }
    };
    let written = std::fs::metadata(&manifest_path)
        .and_then(|m| m.modified())
        .ok()
        .map(utc);
    let mut files = Vec::new();
    for name in output::manifest_names(&manifest) {
        if !shown(&name) {
            continue;
        }
        let path = dir.join(&name);
        output::check_input(&path).map_err(input)?;
        let bytes = std::fs::read(&path)
            .map_err(|e| input(format!("cannot read {}: {e}", path.display())))?;
        files.push((name, bytes));
    }
    Ok(Set {
        name: shown_dir.to_string(),
        files,
        origin: Origin {
            written_from: written
                .as_ref()
                .map(|_| format!("the modification time of its {MANIFEST}")),
            written,
            ..Origin::default()
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_are_dated_in_utc() {
        let at = |s: u64| utc(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(s));
        assert_eq!(at(0), "1970-01-01 00:00:00 UTC");
        // 2000-02-29 12:34:56, a leap day of a century year.
        assert_eq!(at(951_827_696), "2000-02-29 12:34:56 UTC");
        assert_eq!(at(4_102_444_799), "2099-12-31 23:59:59 UTC");
    }

    #[test]
    fn a_command_line_quotes_what_a_shell_would_split() {
        let args: Vec<OsString> = ["/usr/bin/tpsim", "run", "a b.toml", "--set", "x='1'"]
            .iter()
            .map(OsString::from)
            .collect();
        assert_eq!(
            command_line(&args),
            r"tpsim run 'a b.toml' --set 'x='\''1'\'''"
        );
    }
}
