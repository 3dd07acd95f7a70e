//! Golden summaries: every shipped time-sharing scenario, shortened, at
//! three seeds, gives the summary it gave when `golden-summaries.txt` was
//! written, byte for byte (`run --json`'s summary, `wall_seconds` aside,
//! by its SHA-256). So a change of the model's dynamics, however small,
//! fails `cargo test`, and a refactor that keeps them passes. Each run's
//! summary is checked to add up and show work done as well.
//!
//! A deliberate change writes the file anew, in the same commit and with
//! its reason there:
//!
//! ```sh
//! TPSIM_BLESS_GOLDEN=1 cargo test -p tpsim --test it golden
//! ```
//!
//! `scripts/same-dynamics.sh` shows what changed, field by field, between
//! two binaries over the full-length scenarios. Each line also holds the
//! run's event count, which a change of reporting alone leaves as it was.
//! The digests are of this platform's floating point (the logarithms of
//! the standard library's distributions among it): a machine of another
//! kind may need the file written anew, after `same-dynamics.sh` shows
//! the same results there.

use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use tpsim::models::Scenario;

/// The seeds each scenario runs at.
const SEEDS: [u64; 3] = [1, 2, 3];

/// Each shipped time-sharing scenario with the warm-up and end it runs to
/// here: from 8,000 to 600,000 events a run, most near 100,000 (a day of
/// the 1981 installations costs 3 to 5 million), so that the whole check
/// costs under a minute of a debug build's processor time. Purdue's day
/// of logins runs to the morning's first logins, past the quiet night.
const SHORTENED: [(&str, &str, &str); 14] = [
    ("berkeley-1979-clock", "15min", "5h"),
    ("berkeley-1979-paged", "15min", "2h"),
    ("berkeley-1979-swapped", "15min", "2h"),
    ("host-2cpu", "10s", "2000s"),
    ("multics-mit-1975-clock", "20s", "100s"),
    ("multics-mit-1975", "20s", "100s"),
    ("multics-usl-1975-clock", "3min", "15min"),
    ("multics-usl-1975", "3min", "12min"),
    ("purdue-1980-paged", "480min", "500min"),
    ("purdue-1980-swapped", "480min", "500min"),
    ("swapping-buffer-cache", "5min", "45min"),
    ("thrashing-clock", "100s", "800s"),
    ("thrashing", "100s", "700s"),
    ("timesharing-central-server", "300s", "2700s"),
];

/// The file of expected digests, one line per scenario and seed.
fn golden_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/golden-summaries.txt")
}

/// `name` shortened as [`SHORTENED`] says and run at `seed`: the line the
/// golden file holds for it (name, seed, events, digest).
fn line(name: &str, warmup: &str, end: &str, seed: u64) -> String {
    let path = crate::scenario_path(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut table: toml::Table = toml::from_str(&text).unwrap();
    let run = table["run"].as_table_mut().unwrap();
    run.insert("warmup".into(), warmup.into());
    run.insert("end_time".into(), end.into());
    table.insert("seed".into(), toml::Value::Integer(seed as i64));
    let text = toml::to_string(&table).unwrap();
    let scenario = tpsim::models::load(&path.display().to_string(), &text).unwrap();
    assert!(matches!(scenario, Scenario::System(_)), "{name}");
    let mut summary = scenario.run(0, |_| true).summary;
    crate::scenarios::does_work(name, &summary);
    summary.wall_seconds = 0.0;
    let json = serde_json::to_string_pretty(&summary).unwrap();
    let digest = Sha256::digest(json.as_bytes())
        .iter()
        .fold(String::new(), |mut hex, b| {
            let _ = write!(hex, "{b:02x}");
            hex
        });
    format!("{name} {seed} {} {digest}", summary.events)
}

#[test]
fn every_shipped_time_sharing_scenario_gives_its_golden_summary() {
    // Every shipped scenario with a [system] table is in the list.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut shipped: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .filter(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .lines()
                .any(|l| l.trim() == "[system]")
        })
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    shipped.sort();
    let mut listed: Vec<String> = SHORTENED.iter().map(|(n, _, _)| n.to_string()).collect();
    listed.sort();
    assert_eq!(
        shipped, listed,
        "a shipped time-sharing scenario not listed"
    );

    let lines: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> = SHORTENED
            .iter()
            .flat_map(|&(name, warmup, end)| {
                SEEDS
                    .iter()
                    .map(move |&seed| scope.spawn(move || line(name, warmup, end, seed)))
            })
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    let now = lines.join("\n") + "\n";
    if std::env::var_os("TPSIM_BLESS_GOLDEN").is_some() {
        std::fs::write(golden_path(), &now).unwrap();
        return;
    }
    let golden = std::fs::read_to_string(golden_path()).unwrap();
    let differ: Vec<String> = golden
        .lines()
        .zip(now.lines())
        .filter(|(g, n)| g != n)
        .map(|(g, n)| format!("  was: {g}\n  now: {n}"))
        .collect();
    assert!(
        differ.is_empty() && golden.lines().count() == now.lines().count(),
        "the dynamics changed:\n{}\n(scripts/same-dynamics.sh shows how; if the change is meant, \
         TPSIM_BLESS_GOLDEN=1 cargo test -p tpsim --test it golden, and say why in the commit)",
        differ.join("\n")
    );
}
