//! Output directories: checked before a run starts, written as one set,
//! and checked again when tpsim reads them back.
//!
//! A run's files (`summary.json`, the CSV files, the charts) must never
//! pass for one set when they come from two runs, whatever happens: a
//! crash, a full disk, a second `tpsim` writing the same directory. So:
//!
//! - [`OutputDir::open`] creates the directory, takes an exclusive lock on
//!   its `.tpsim.lock` file (a second writer is refused until the first
//!   ends), refuses a directory that holds one of the command's own input
//!   files among the files a new set would replace, and checks that a file
//!   can be created there, all before the simulation starts, so a long run
//!   is never lost to a bad `--out`.
//! - [`OutputDir::publish`] writes every file of the set into a staging
//!   directory beside them and flushes it to disk; a failure there (a full
//!   disk) leaves the previous set untouched. Then a journal is put in
//!   place with one atomic rename, and the journal's steps are taken: the
//!   old manifest `.tpsim-files` is removed, the new files are moved in,
//!   the stale ones removed, and the new manifest moved in last.
//! - The manifest lists every file of the set with its SHA-256 digest, in
//!   the format of `sha256sum`. So at every instant the directory holds
//!   either a manifest whose every file matches it (one whole set), or a
//!   journal and no manifest (a set being written, or cut short by a
//!   crash). A reader checks with `sha256sum -c .tpsim-files` in the
//!   directory; tpsim checks with [`check_input`] before it reads any
//!   file of an output directory. The next `open` of a directory whose
//!   publication was cut short finishes it.
//! - When the `OutputDir` is dropped the lock file is removed, and so is
//!   the directory itself if `open` created it and it stayed empty (a
//!   full disk, an interrupted run with nothing to write).
//!
//! The set's names are read back from the manifest, so that the next set
//! removes those it does not replace (a chart of a benchmark no longer
//! there, `probe.csv` from a run that had a probe), and nothing else.
//!
//! Files are created with the usual permissions (0666 less the umask).

use anyhow::{Context as _, bail};
use sha2::{Digest, Sha256};
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Write};
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
/// The manifest's name: readers are told of it (docs/outputs.md).
pub const MANIFEST: &str = ".tpsim-files";

/// One output file: its name in the directory and its contents.
pub type OutputFile = (String, Vec<u8>);

/// An output directory, locked for one command.
#[derive(Debug)]
pub struct OutputDir {
    dir: PathBuf,
    /// Held open for the lock's sake: the lock ends when it is dropped.
    lock: File,
    /// Whether `open` made the directory.
    created: bool,
}

impl OutputDir {
    /// Creates `dir` if it is missing, locks it, finishes or discards what
    /// an interrupted earlier run left, and checks that it is writable and
    /// that none of `inputs` is a file a new set there would replace.
    pub fn open(dir: &Path, inputs: &[&Path]) -> anyhow::Result<OutputDir> {
        let shown = dir.display();
        let created = !dir.exists();
        fs::create_dir_all(dir)
            .with_context(|| format!("cannot create output directory {shown}"))?;
        let out = OutputDir {
            dir: dir.to_path_buf(),
            lock: lock(dir)?,
            created,
        };
        recover(dir).with_context(|| format!("cannot tidy output directory {shown}"))?;
        for input in inputs {
            if let Some(name) = out.replaces(input) {
                bail!(
                    "output directory {shown} holds {name}, one of this command's inputs, which the files written there would replace; write into another directory"
                );
            }
        }
        // An unnamed file: it vanishes when dropped, and shows the directory
        // takes new files now, not only when the run is over.
        tempfile::tempfile_in(dir)
            .with_context(|| format!("cannot write in output directory {shown}"))?;
        Ok(out)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The name of `input` if it is a file of this directory that a set
    /// written here replaces or removes: one the last set listed, or one of
    /// [`OUTPUT_FILES`].
    fn replaces(&self, input: &Path) -> Option<String> {
        let (Ok(input), Ok(dir)) = (fs::canonicalize(input), fs::canonicalize(&self.dir)) else {
            return None;
        };
        if input.parent() != Some(dir.as_path()) {
            return None;
        }
        let name = input.file_name()?.to_string_lossy().into_owned();
        let listed = listed(&self.dir).contains(&name);
        (listed || OUTPUT_FILES.contains(&name.as_str())).then_some(name)
    }

    /// Replaces the directory's set of output files with `files` (name and
    /// contents), as one set.
    pub fn publish(&self, files: &[OutputFile]) -> anyhow::Result<()> {
        self.publish_with(files, &mut |_| Ok(()))
    }

    /// [`publish`](Self::publish), calling `step` before every change it
    /// makes to the file system, with what it is about to do; an error
    /// from `step` fails the change. Tests fail or crash the publication
    /// at every step through it.
    fn publish_with(&self, files: &[OutputFile], step: &mut Step) -> anyhow::Result<()> {
        for (name, _) in files {
            assert!(
                !name.is_empty() && !name.contains(['/', '\\']) && !name.starts_with('.'),
                "an output file's name is a plain name: {name:?}"
            );
        }
        let unchanged = || {
            format!(
                "cannot write the output files in {}; the previous ones are unchanged",
                self.dir.display()
            )
        };
        let staging = self.dir.join(STAGING);
        let staged = stage(&staging, files, step);
        if let Err(e) = staged {
            let _ = fs::remove_dir_all(&staging);
            return Err(e).with_context(unchanged);
        }
        let mut journal = String::new();
        for (name, _) in files {
            journal.push_str(&format!("+{name}\n"));
        }
        let stale = OUTPUT_FILES
            .iter()
            .map(|n| n.to_string())
            .chain(listed(&self.dir))
            .filter(|name| !files.iter().any(|(n, _)| n == name));
        for name in stale {
            journal.push_str(&format!("-{name}\n"));
        }
        let draft = staging.join(JOURNAL);
        let placed = write_synced(&draft, journal.as_bytes(), step).and_then(|()| {
            step(&format!("rename {JOURNAL} into place"))?;
            fs::rename(&draft, self.dir.join(JOURNAL))?;
            Ok(())
        });
        if let Err(e) = placed {
            let _ = fs::remove_dir_all(&staging);
            return Err(e).with_context(unchanged);
        }
        roll_forward(&self.dir, step)
            .with_context(|| format!("cannot move the output files into {}", self.dir.display()))
    }
}

impl Drop for OutputDir {
    fn drop(&mut self) {
        // Removed while still locked, so no second writer holds a lock on
        // a file no longer in the directory (see `lock`).
        let _ = fs::remove_file(self.dir.join(LOCK));
        if self.created {
            // Only if empty: `remove_dir` refuses a directory with files.
            let _ = fs::remove_dir(&self.dir);
        }
        let _ = self.lock.unlock();
    }
}

/// Takes the lock of `dir`: an exclusive lock on its `.tpsim.lock` file,
/// made if missing. A writer that ends removes the file; one that locked
/// the file just before it was removed finds the directory's lock file is
/// no longer the one it holds, and tries again.
fn lock(dir: &Path) -> anyhow::Result<File> {
    let shown = dir.display();
    let path = dir.join(LOCK);
    loop {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .with_context(|| format!("cannot write in output directory {shown}"))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                bail!("output directory {shown} is in use by another tpsim run")
            }
            Err(TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("cannot lock output directory {shown}"));
            }
        }
        if same_file(&file, &path) {
            return Ok(file);
        }
    }
}

#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_: &File, path: &Path) -> bool {
    path.exists()
}

/// Called before each change to the file system, with what it is.
type Step<'a> = dyn FnMut(&str) -> io::Result<()> + 'a;

/// Writes every file, and the manifest of them all, into a fresh staging
/// directory, flushed to disk.
fn stage(staging: &Path, files: &[OutputFile], step: &mut Step) -> anyhow::Result<()> {
    if staging.exists() {
        step(&format!("remove an old {STAGING}"))?;
        fs::remove_dir_all(staging)?;
    }
    step(&format!("create {STAGING}"))?;
    fs::create_dir(staging)?;
    let mut manifest = String::new();
    for (name, contents) in files {
        write_synced(&staging.join(name), contents, step)?;
        manifest.push_str(&format!("{}  {name}\n", digest(contents)));
    }
    write_synced(&staging.join(MANIFEST), manifest.as_bytes(), step)?;
    step(&format!("flush {STAGING}"))?;
    File::open(staging)?.sync_all()?;
    Ok(())
}

/// A file's SHA-256 digest in hexadecimal, as `sha256sum` prints it.
fn digest(contents: &[u8]) -> String {
    Sha256::digest(contents)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Writes `path` and flushes it to disk, each a step of its own.
fn write_synced(path: &Path, contents: &[u8], step: &mut Step) -> anyhow::Result<()> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    step(&format!("write {name}"))
        .and_then(|()| {
            let mut file = File::create(path)?;
            file.write_all(contents)?;
            step(&format!("flush {name}"))?;
            file.sync_all()
        })
        .with_context(|| format!("cannot write {name}"))
}

/// The names the manifest of `dir` lists (none without one).
fn listed(dir: &Path) -> Vec<String> {
    fs::read_to_string(dir.join(MANIFEST))
        .map(|m| manifest_names(&m))
        .unwrap_or_default()
}

/// The names a manifest's text lists.
pub fn manifest_names(manifest: &str) -> Vec<String> {
    manifest
        .lines()
        // `digest  name`; a bare name in manifests before digests.
        .map(|l| l.split_once("  ").map_or(l, |(_, name)| name).to_string())
        .collect()
}

/// Whether `dir` holds a set being written, or cut short by a crash: its
/// journal is there.
pub fn being_written(dir: &Path) -> bool {
    dir.join(JOURNAL).exists()
}

/// Writes the single file `path` whole or not at all: into a temporary
/// file beside it, flushed to disk, then renamed over it, and the
/// directory flushed. A failure (a full disk) leaves whatever was at
/// `path` as it was, and no temporary file behind.
pub fn write_atomically(path: &Path, contents: &[u8]) -> anyhow::Result<()> {
    let shown = path.display();
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let mut builder = tempfile::Builder::new();
    builder.prefix(".").suffix(".tpsim-tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // As `File::create` makes them: 0666 less the umask.
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    // The temporary file's name means nothing to the user: the error's
    // kind alone.
    let mut file = builder
        .tempfile_in(dir)
        .map_err(|e| io::Error::from(e.kind()))
        .with_context(|| format!("cannot write {shown}"))?;
    file.write_all(contents)
        .and_then(|()| file.as_file().sync_all())
        .with_context(|| format!("cannot write {shown}"))?;
    file.persist(path).map_err(|e| e.error).with_context(|| {
        format!("cannot write {shown}: cannot rename the file written into {name}")
    })?;
    File::open(dir)
        .and_then(|d| d.sync_all())
        .with_context(|| format!("cannot write {shown}: cannot flush its directory"))
}

/// Finishes a publication whose journal is in place; drops a staging
/// directory that never got one (the old set is then still whole).
fn recover(dir: &Path) -> anyhow::Result<()> {
    if dir.join(JOURNAL).exists() {
        roll_forward(dir, &mut |_| Ok(()))
    } else {
        let staging = dir.join(STAGING);
        if staging.exists() {
            fs::remove_dir_all(staging)?;
        }
        Ok(())
    }
}

/// Takes the journal's steps: the old manifest out, the new files in, the
/// stale ones out, the new manifest in. Each step can be repeated, so an
/// interrupted roll-forward is simply run again; once the new manifest is
/// in (it has left the staging directory) only the tidying is left.
fn roll_forward(dir: &Path, step: &mut Step) -> anyhow::Result<()> {
    let journal = fs::read_to_string(dir.join(JOURNAL))?;
    let staging = dir.join(STAGING);
    let sync_dir = |step: &mut Step| -> io::Result<()> {
        step("flush the directory")?;
        File::open(dir)?.sync_all()
    };
    if staging.join(MANIFEST).exists() {
        remove(dir, MANIFEST, step)?;
        sync_dir(step)?;
        for line in journal.lines() {
            if let Some(name) = line.strip_prefix('+') {
                let staged = staging.join(name);
                if staged.exists() {
                    step(&format!("move {name} in"))?;
                    fs::rename(&staged, dir.join(name))
                        .with_context(|| format!("cannot move {name} in"))?;
                }
            } else if let Some(name) = line.strip_prefix('-') {
                remove(dir, name, step)?;
            }
        }
        sync_dir(step)?;
        step(&format!("move {MANIFEST} in"))?;
        fs::rename(staging.join(MANIFEST), dir.join(MANIFEST))?;
    }
    sync_dir(step)?;
    remove(dir, JOURNAL, step)?;
    if staging.exists() {
        step(&format!("remove {STAGING}"))?;
        fs::remove_dir_all(staging)?;
    }
    Ok(())
}

/// Removes `dir/name` if it is there.
fn remove(dir: &Path, name: &str, step: &mut Step) -> anyhow::Result<()> {
    step(&format!("remove {name}"))?;
    match fs::remove_file(dir.join(name)) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("cannot remove {name}"))
        }
        _ => Ok(()),
    }
}

/// Checks that `path`, if it lies in a tpsim output directory, belongs to
/// the whole set there: the directory is not being written, and the file
/// matches the manifest's digest for it. A file in a directory with
/// neither manifest nor journal (not written by tpsim) passes.
pub fn check_input(path: &Path) -> Result<(), String> {
    let Some(dir) = path.parent() else {
        return Ok(());
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let shown = path.display();
    let being_written = || {
        format!(
            "{shown}: its directory holds a set of output files being written, or cut short by a crash; read it when the run writing it is over, or run again there"
        )
    };
    // The manifest is there only while every file it lists matches it.
    let Ok(manifest) = fs::read_to_string(dir.join(MANIFEST)) else {
        return if dir.join(JOURNAL).exists() {
            Err(being_written())
        } else {
            Ok(())
        };
    };
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let Some(expected) = manifest.lines().find_map(|l| {
        l.split_once("  ")
            .filter(|(_, n)| *n == name)
            .map(|(d, _)| d.to_string())
    }) else {
        return Ok(());
    };
    let contents = fs::read(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    if digest(&contents) == expected {
        Ok(())
    } else if dir.join(JOURNAL).exists() {
        // A new set came in between reading the manifest and the file.
        Err(being_written())
    } else {
        Err(format!(
            "{shown}: does not match the set of output files listed in {MANIFEST} beside it (changed since tpsim wrote it)"
        ))
    }
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

    fn open(dir: &Path) -> OutputDir {
        OutputDir::open(dir, &[]).unwrap()
    }

    #[test]
    fn a_set_replaces_the_previous_one_whole() {
        let dir = tempfile::tempdir().unwrap();
        let out = open(dir.path());
        out.publish(&set(&[("summary.json", "1"), ("load.csv", "a")]))
            .unwrap();
        out.publish(&set(&[("summary.json", "2")])).unwrap();
        drop(out);
        assert_eq!(names(dir.path()), [".tpsim-files", "summary.json"]);
        assert_eq!(
            fs::read_to_string(dir.path().join("summary.json")).unwrap(),
            "2"
        );
    }

    #[test]
    fn the_manifest_is_what_sha256sum_checks() {
        let dir = tempfile::tempdir().unwrap();
        open(dir.path())
            .publish(&set(&[("summary.json", "abc")]))
            .unwrap();
        // SHA-256 of "abc" (FIPS 180-2, appendix B.1).
        assert_eq!(
            fs::read_to_string(dir.path().join(MANIFEST)).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  summary.json\n"
        );
        assert_eq!(check_input(&dir.path().join("summary.json")), Ok(()));
        fs::write(dir.path().join("summary.json"), "abd").unwrap();
        let e = check_input(&dir.path().join("summary.json")).unwrap_err();
        assert!(e.contains("does not match the set"), "{e}");
    }

    #[test]
    fn a_set_removes_what_the_last_one_wrote_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        let out = open(dir.path());
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
        drop(out);
        assert_eq!(
            names(dir.path()),
            [
                ".tpsim-files",
                "analysis.csv",
                "cc-by-users.svg",
                "notes.txt"
            ]
        );
    }

    #[test]
    fn a_second_writer_is_refused_until_the_first_is_done() {
        let dir = tempfile::tempdir().unwrap();
        let first = open(dir.path());
        let e = OutputDir::open(dir.path(), &[]).unwrap_err().to_string();
        assert!(e.contains("in use by another tpsim run"), "{e}");
        drop(first);
        assert!(!dir.path().join(LOCK).exists(), "the lock file is removed");
        assert!(OutputDir::open(dir.path(), &[]).is_ok());
    }

    #[test]
    fn a_directory_holding_an_input_the_set_would_replace_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let out = open(dir.path());
        out.publish(&set(&[("shard.json", "{}")])).unwrap();
        drop(out);
        fs::write(dir.path().join("scenario.toml"), "").unwrap();
        fs::write(dir.path().join("probe.csv"), "").unwrap();
        for (input, refused) in [
            ("shard.json", true),
            ("probe.csv", true),
            ("scenario.toml", false),
        ] {
            let path = dir.path().join(input);
            let opened = OutputDir::open(dir.path(), &[&path]);
            assert_eq!(opened.is_err(), refused, "{input}");
            if let Err(e) = opened {
                let e = e.to_string();
                assert!(e.contains(&format!("holds {input}, one of this command's inputs")));
            }
        }
        assert_eq!(
            fs::read_to_string(dir.path().join("shard.json")).unwrap(),
            "{}",
            "a refused directory is left as it was"
        );
    }

    /// What a reader finds in `dir`: `Some` set of (name, contents) when
    /// the manifest is there and every file matches it, `None` when the
    /// directory says a set is being written; panics on a mix.
    fn seen(dir: &Path) -> Option<Vec<(String, String)>> {
        let Ok(manifest) = fs::read_to_string(dir.join(MANIFEST)) else {
            assert!(
                dir.join(JOURNAL).exists(),
                "neither manifest nor journal: {:?}",
                names(dir)
            );
            return None;
        };
        let files: Vec<(String, String)> = manifest
            .lines()
            .map(|l| {
                let (_, name) = l.split_once("  ").unwrap();
                let path = dir.join(name);
                assert_eq!(check_input(&path), Ok(()), "{name} in {:?}", names(dir));
                (name.to_string(), fs::read_to_string(path).unwrap())
            })
            .collect();
        Some(files)
    }

    fn owned(files: &[(&str, &str)]) -> Vec<(String, String)> {
        files
            .iter()
            .map(|(n, c)| (n.to_string(), c.to_string()))
            .collect()
    }

    #[test]
    fn a_crash_at_any_step_leaves_one_whole_set_or_says_one_is_being_written() {
        let old = [
            ("summary.json", "old"),
            ("load.csv", "old"),
            ("x.svg", "old"),
        ];
        let new = [("summary.json", "new"), ("stations.csv", "new")];
        let mut crashed_at = 0;
        loop {
            let dir = tempfile::tempdir().unwrap();
            let out = open(dir.path());
            out.publish(&set(&old)).unwrap();
            let mut steps = Vec::new();
            let mut crash = |what: &str| {
                if steps.len() == crashed_at {
                    // A crash: no clean-up code runs, only unwinding.
                    std::panic::panic_any(format!("crash before: {what}"));
                }
                steps.push(what.to_string());
                Ok(())
            };
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                out.publish_with(&set(&new), &mut crash)
            }));
            // The process is gone: its lock with it.
            drop(out);
            if outcome.is_ok() {
                assert!(crashed_at > 10, "only {crashed_at} steps");
                // What the journal's rename makes the set must be on disk
                // before it: every staged file, the manifest and the
                // journal, and the staging directory's entries for the
                // files and the manifest (the journal's leaves it in the
                // rename, and the roll-forward flushes the directory).
                let at = |what: &str| steps.iter().position(|s| s == what);
                let renamed = at(&format!("rename {JOURNAL} into place")).unwrap();
                let staged = new.iter().map(|(name, _)| *name);
                for name in staged.chain([MANIFEST, JOURNAL, STAGING]) {
                    let flushed = at(&format!("flush {name}"));
                    assert!(
                        flushed.is_some_and(|f| f < renamed),
                        "{name} is not flushed before the journal is renamed: {steps:?}"
                    );
                }
                break;
            }
            let now = seen(dir.path());
            assert!(
                now.is_none() || now == Some(owned(&old)) || now == Some(owned(&new)),
                "after a crash at step {crashed_at}: {now:?}"
            );
            // The next open finishes or discards the publication.
            drop(OutputDir::open(dir.path(), &[]).unwrap());
            let after = seen(dir.path()).expect("whole after recovery");
            assert!(
                after == owned(&old) || after == owned(&new),
                "after recovery from step {crashed_at}: {after:?}"
            );
            if now.is_none() {
                assert_eq!(after, owned(&new), "a journal in place is rolled forward");
            }
            assert!(
                !names(dir.path())
                    .iter()
                    .any(|n| n.starts_with(".tpsim-") && n != MANIFEST)
            );
            crashed_at += 1;
        }
    }

    #[test]
    fn a_full_disk_at_any_step_names_the_file_and_leaves_a_whole_set() {
        let old = [("summary.json", "old"), ("load.csv", "old")];
        let new = [("summary.json", "new"), ("stations.csv", "new")];
        for full_at in 0.. {
            let dir = tempfile::tempdir().unwrap();
            let out = open(dir.path());
            out.publish(&set(&old)).unwrap();
            let mut steps = 0;
            let mut full = |what: &str| {
                steps += 1;
                // Writing a file or flushing it: staging, before the
                // journal is in place (after it, the next open finishes).
                let writes = what.starts_with("write")
                    || (what.starts_with("flush") && what != "flush the directory");
                if steps - 1 == full_at && writes {
                    Err(io::Error::from(io::ErrorKind::StorageFull))
                } else {
                    Ok(())
                }
            };
            let result = out.publish_with(&set(&new), &mut full);
            if steps <= full_at {
                break;
            }
            match result {
                Ok(()) => assert_eq!(seen(dir.path()), Some(owned(&new))),
                Err(e) => {
                    let e = format!("{e:#}");
                    assert!(e.contains("the previous ones are unchanged"), "{e}");
                    assert!(e.contains("cannot write "), "{e}");
                    assert_eq!(seen(dir.path()), Some(owned(&old)), "{e}");
                }
            }
        }
    }

    #[test]
    fn a_directory_made_for_nothing_is_removed() {
        let parent = tempfile::tempdir().unwrap();
        let dir = parent.path().join("out");
        drop(open(&dir));
        assert!(!dir.exists());
        let out = open(&dir);
        out.publish(&set(&[("summary.json", "1")])).unwrap();
        drop(out);
        assert_eq!(names(&dir), [".tpsim-files", "summary.json"]);
    }

    #[test]
    fn a_publication_cut_short_is_finished_by_the_next_open() {
        let dir = tempfile::tempdir().unwrap();
        open(dir.path())
            .publish(&set(&[("summary.json", "old"), ("load.csv", "old")]))
            .unwrap();
        // A crash while staging, before the journal: the old set stays.
        let staging = dir.path().join(STAGING);
        fs::create_dir(&staging).unwrap();
        fs::write(staging.join("summary.json"), "half").unwrap();
        drop(open(dir.path()));
        assert_eq!(
            seen(dir.path()),
            Some(owned(&[("summary.json", "old"), ("load.csv", "old")]))
        );
        assert_eq!(
            names(dir.path()),
            [".tpsim-files", "load.csv", "summary.json"]
        );
    }

    #[cfg(unix)]
    #[test]
    fn files_get_the_permissions_the_umask_allows() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        open(dir.path())
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
