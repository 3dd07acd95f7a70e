//! Output directories: checked before a run starts, written as one set.
//!
//! A run's files (`summary.json`, the CSV files) must never be a mix of two
//! runs, whatever happens: a crash, a full disk, a second `tpsim` writing
//! the same directory. So:
//!
//! - [`OutputDir::open`] creates the directory, takes an exclusive lock on
//!   its `.tpsim.lock` file (a second writer is refused until the first
//!   ends) and checks that a file can be created there, all before the
//!   simulation starts, so a long run is never lost to a bad `--out`.
//! - [`OutputDir::publish`] writes every file of the set into a staging
//!   directory beside them and flushes it to disk; a failure there (a full
//!   disk) leaves the previous set untouched. Then a journal naming the
//!   files to move in and the stale ones to remove is put in place with one
//!   atomic rename, and the moves are made. If the process dies during the
//!   moves, the next `open` of the directory finds the journal and finishes
//!   them, so readers see the old set or the new one, never a mix.
//!
//! The set's names are kept in `.tpsim-files`, so that the next set
//! removes those it does not replace (a plot of a benchmark no longer
//! there, `probe.csv` from a run that had a probe), and nothing else.
//!
//! Files are created with the usual permissions (0666 less the umask).

use anyhow::{Context as _, bail};
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The files of a run; a set lacking one removes an older copy, even one
/// written before sets were listed in `.tpsim-files`.
pub const OUTPUT_FILES: [&str; 5] = [
    "summary.json",
    "stations.csv",
    "classes.csv",
    "load.csv",
    "probe.csv",
];

const LOCK: &str = ".tpsim.lock";
const STAGING: &str = ".tpsim-staging";
const JOURNAL: &str = ".tpsim-publish";
const MANIFEST: &str = ".tpsim-files";

/// One output file: its name in the directory and its contents.
pub type OutputFile = (String, Vec<u8>);

/// An output directory, locked for one run.
#[derive(Debug)]
pub struct OutputDir {
    dir: PathBuf,
    /// Held open for the lock's sake: the lock ends when it is dropped.
    _lock: File,
}

impl OutputDir {
    /// Creates `dir` if it is missing, locks it, finishes or discards what
    /// an interrupted earlier run left, and checks that it is writable.
    pub fn open(dir: &Path) -> anyhow::Result<OutputDir> {
        let shown = dir.display();
        fs::create_dir_all(dir)
            .with_context(|| format!("cannot create output directory {shown}"))?;
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(LOCK))
            .with_context(|| format!("cannot write in output directory {shown}"))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                bail!("output directory {shown} is in use by another tpsim run")
            }
            Err(TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("cannot lock output directory {shown}"));
            }
        }
        recover(dir).with_context(|| format!("cannot tidy output directory {shown}"))?;
        // An unnamed file: it vanishes when dropped, and shows the directory
        // takes new files now, not only when the run is over.
        tempfile::tempfile_in(dir)
            .with_context(|| format!("cannot write in output directory {shown}"))?;
        Ok(OutputDir {
            dir: dir.to_path_buf(),
            _lock: lock,
        })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Replaces the directory's set of output files with `files` (name and
    /// contents), as one set.
    pub fn publish(&self, files: &[OutputFile]) -> anyhow::Result<()> {
        for (name, _) in files {
            assert!(
                !name.is_empty() && !name.contains(['/', '\\']) && !name.starts_with('.'),
                "an output file's name is a plain name: {name:?}"
            );
        }
        let previous: Vec<String> = fs::read_to_string(self.dir.join(MANIFEST))
            .map(|m| m.lines().map(str::to_string).collect())
            .unwrap_or_default();
        let manifest: String = files.iter().map(|(name, _)| format!("{name}\n")).collect();
        let mut set = files.to_vec();
        set.push((MANIFEST.to_string(), manifest.into_bytes()));
        let staging = self.dir.join(STAGING);
        let staged = stage(&staging, &set);
        if let Err(e) = staged {
            let _ = fs::remove_dir_all(&staging);
            return Err(e).with_context(|| {
                format!(
                    "cannot write the output files in {}; the previous ones are unchanged",
                    self.dir.display()
                )
            });
        }
        let mut journal = String::new();
        for (name, _) in &set {
            journal.push_str(&format!("+{name}\n"));
        }
        let stale = OUTPUT_FILES
            .iter()
            .map(|n| n.to_string())
            .chain(previous)
            .filter(|name| !set.iter().any(|(n, _)| n == name));
        for name in stale {
            journal.push_str(&format!("-{name}\n"));
        }
        let draft = staging.join(JOURNAL);
        write_synced(&draft, journal.as_bytes())
            .and_then(|()| Ok(fs::rename(&draft, self.dir.join(JOURNAL))?))
            .with_context(|| {
                format!(
                    "cannot write the output files in {}; the previous ones are unchanged",
                    self.dir.display()
                )
            })?;
        roll_forward(&self.dir)
            .with_context(|| format!("cannot move the output files into {}", self.dir.display()))
    }
}

/// Writes every file into a fresh staging directory, flushed to disk.
fn stage(staging: &Path, files: &[OutputFile]) -> anyhow::Result<()> {
    if staging.exists() {
        fs::remove_dir_all(staging)?;
    }
    fs::create_dir(staging)?;
    for (name, contents) in files {
        write_synced(&staging.join(name), contents)?;
    }
    Ok(())
}

fn write_synced(path: &Path, contents: &[u8]) -> anyhow::Result<()> {
    let mut file =
        File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    file.write_all(contents)
        .and_then(|()| file.sync_all())
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Finishes a publication whose journal is in place; drops a staging
/// directory that never got one (the old set is then still whole).
fn recover(dir: &Path) -> anyhow::Result<()> {
    if dir.join(JOURNAL).exists() {
        roll_forward(dir)
    } else {
        let staging = dir.join(STAGING);
        if staging.exists() {
            fs::remove_dir_all(staging)?;
        }
        Ok(())
    }
}

/// Makes the moves and removals the journal lists. Each step can be
/// repeated, so an interrupted roll-forward is simply run again.
fn roll_forward(dir: &Path) -> anyhow::Result<()> {
    let journal = fs::read_to_string(dir.join(JOURNAL))?;
    let staging = dir.join(STAGING);
    for line in journal.lines() {
        if let Some(name) = line.strip_prefix('+') {
            let staged = staging.join(name);
            if staged.exists() {
                fs::rename(&staged, dir.join(name))?;
            }
        } else if let Some(name) = line.strip_prefix('-') {
            match fs::remove_file(dir.join(name)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e.into()),
                _ => {}
            }
        }
    }
    File::open(dir)?.sync_all()?;
    fs::remove_file(dir.join(JOURNAL))?;
    if staging.exists() {
        fs::remove_dir_all(staging)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(files: &[(&str, &str)]) -> Vec<OutputFile> {
        files
            .iter()
            .map(|(n, c)| (n.to_string(), c.as_bytes().to_vec()))
            .collect()
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_set_replaces_the_previous_one_whole() {
        let dir = tempfile::tempdir().unwrap();
        let out = OutputDir::open(dir.path()).unwrap();
        out.publish(&set(&[("summary.json", "1"), ("load.csv", "a")]))
            .unwrap();
        out.publish(&set(&[("summary.json", "2")])).unwrap();
        assert_eq!(
            names(dir.path()),
            [".tpsim-files", ".tpsim.lock", "summary.json"]
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("summary.json")).unwrap(),
            "2"
        );
    }

    #[test]
    fn a_set_removes_what_the_last_one_wrote_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        let out = OutputDir::open(dir.path()).unwrap();
        out.publish(&set(&[
            ("analysis.csv", "a"),
            ("man-by-users.svg", "<svg/>"),
        ]))
        .unwrap();
        out.publish(&set(&[
            ("analysis.csv", "b"),
            ("cc-by-users.svg", "<svg/>"),
        ]))
        .unwrap();
        assert_eq!(
            names(dir.path()),
            [
                ".tpsim-files",
                ".tpsim.lock",
                "analysis.csv",
                "cc-by-users.svg",
                "notes.txt"
            ]
        );
    }

    #[test]
    fn a_second_writer_is_refused_until_the_first_is_done() {
        let dir = tempfile::tempdir().unwrap();
        let first = OutputDir::open(dir.path()).unwrap();
        let e = OutputDir::open(dir.path()).unwrap_err().to_string();
        assert!(e.contains("in use by another tpsim run"), "{e}");
        drop(first);
        assert!(OutputDir::open(dir.path()).is_ok());
    }

    #[test]
    fn a_publication_cut_short_is_finished_by_the_next_open() {
        let dir = tempfile::tempdir().unwrap();
        OutputDir::open(dir.path())
            .unwrap()
            .publish(&set(&[("summary.json", "old"), ("load.csv", "old")]))
            .unwrap();
        // A crash after the journal went in, before any move.
        let staging = dir.path().join(STAGING);
        fs::create_dir(&staging).unwrap();
        fs::write(staging.join("summary.json"), "new").unwrap();
        fs::write(dir.path().join(JOURNAL), "+summary.json\n-load.csv\n").unwrap();
        drop(OutputDir::open(dir.path()).unwrap());
        assert_eq!(
            names(dir.path()),
            [".tpsim-files", ".tpsim.lock", "summary.json"]
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("summary.json")).unwrap(),
            "new"
        );
        // A crash while staging, before the journal: the old set stays.
        fs::create_dir(&staging).unwrap();
        fs::write(staging.join("summary.json"), "half").unwrap();
        drop(OutputDir::open(dir.path()).unwrap());
        assert_eq!(
            names(dir.path()),
            [".tpsim-files", ".tpsim.lock", "summary.json"]
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("summary.json")).unwrap(),
            "new"
        );
    }

    #[cfg(unix)]
    #[test]
    fn files_get_the_permissions_the_umask_allows() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        OutputDir::open(dir.path())
            .unwrap()
            .publish(&set(&[("summary.json", "{}")]))
            .unwrap();
        let mode = fs::metadata(dir.path().join("summary.json"))
            .unwrap()
            .permissions()
            .mode();
        // Whatever the umask, a file made by `File::create` is readable by
        // its group or others unless the umask says no; 0600 was the fault.
        let umask = current_umask();
        assert_eq!(
            mode & 0o777,
            0o666 & !umask,
            "mode {mode:o}, umask {umask:o}"
        );
    }

    /// The process's umask, read from /proc.
    #[cfg(unix)]
    fn current_umask() -> u32 {
        let status = fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("Umask:")).unwrap();
        u32::from_str_radix(line.split_whitespace().nth(1).unwrap(), 8).unwrap()
    }
}
