//! `tpsim probe` as a shell runs it: a load ramp's workers, and signals.
//! A test binary of its own, so that the other binary tests' busy runs do
//! not starve the probe of the processor while it gathers.

mod common;

use common::{PROMPT_END, terminated};
use std::process::Command;

/// The rows of a probe.csv: the header, then each row's fields.
fn probe_rows(path: &std::path::Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text
        .lines()
        .map(|l| l.split(',').map(String::from).collect());
    (lines.next().unwrap(), lines.collect())
}

/// A column's values as numbers.
fn column(header: &[String], rows: &[Vec<String>], name: &str) -> Vec<f64> {
    let at = header.iter().position(|h| h == name).unwrap();
    rows.iter().map(|r| r[at].parse().unwrap()).collect()
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

#[test]
fn a_probe_ramp_s_workers_raise_the_load_the_benchmarks_meet() {
    // No workers for 1.5 s, then four processor loops: the user-process
    // and runnable indices the probe notes move with them (every uid
    // counted, so other tests' processes add noise of a few; on two
    // busy cores the probe may get only a few cycles in each step).
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tpsim"))
        .args([
            "probe",
            "--bench",
            "t=true",
            "--sleep",
            "50ms",
            "--duration",
            "1.6s",
        ])
        .args(["--min-uid", "0", "--ramp", "cpu:0,4@1500ms", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let (header, rows) = probe_rows(&dir.path().join("probe.csv"));
    let workers = column(&header, &rows, "ramp_workers");
    let processes = column(&header, &rows, "processes");
    let runnable = column(&header, &rows, "runnable");
    let step = |w: f64, xs: &[f64]| -> Vec<f64> {
        xs.iter()
            .zip(&workers)
            .filter(|&(_, &k)| k == w)
            .map(|(x, _)| *x)
            .collect()
    };
    let (before, during) = (step(0.0, &processes), step(4.0, &processes));
    // Four loops on two processors leave the probe little: one cycle in
    // the second step is enough to see them.
    assert!(before.len() >= 2 && !during.is_empty(), "{workers:?}");
    assert_eq!(before.len() + during.len(), rows.len(), "{workers:?}");
    assert!(
        median(during) >= median(before) + 3.0,
        "{processes:?} with {workers:?}"
    );
    assert!(
        median(step(4.0, &runnable)) >= median(step(0.0, &runnable)) + 2.0,
        "{runnable:?} with {workers:?}"
    );
}

#[test]
fn each_kind_of_ramp_worker_runs_until_a_signal_stops_it() {
    for kind in ["cpu", "memory", "files"] {
        let out = terminated(&["probe-worker", kind, "1048576"], 0.3);
        assert_eq!(
            out.status.code(),
            Some(130),
            "{kind}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn a_signal_stops_the_probe_at_once_keeping_its_rows_and_marking_the_benchmark() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().display().to_string();
    let args = [
        "probe",
        "--bench",
        "t=true",
        "--bench",
        "slow=sleep 30",
        "--sleep",
        "1s",
        "--duration",
        "1h",
        "--out",
        &out_dir,
    ];
    let out = terminated(&args, 0.6);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("stopped by a signal"), "{stderr}");
    let (header, rows) = probe_rows(&dir.path().join("probe.csv"));
    let status = header.iter().position(|h| h == "status").unwrap();
    let statuses: Vec<&str> = rows.iter().map(|r| r[status].as_str()).collect();
    assert_eq!(statuses, ["ok", "interrupted"]);
    let elapsed = column(&header, &rows, "elapsed_s");
    assert!(elapsed[1] < PROMPT_END, "{elapsed:?}");
}

#[test]
fn nice_lowers_the_priority_the_benchmarks_run_at() {
    // The benchmark succeeds only if its own nice value (field 19 of
    // /proc/self/stat, the shell's) is the one asked for.
    let dir = tempfile::tempdir().unwrap();
    for (nice, expected) in [("7", "ok"), ("0", "exit 1")] {
        let out = Command::new(env!("CARGO_BIN_EXE_tpsim"))
            .args([
                "probe",
                "--bench",
                "niced=test \"$(cut -d' ' -f19 /proc/$$/stat)\" = 7",
            ])
            .args([
                "--sleep",
                "10ms",
                "--duration",
                "10ms",
                "--nice",
                nice,
                "--out",
            ])
            .arg(dir.path().join(nice))
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (header, rows) = probe_rows(&dir.path().join(nice).join("probe.csv"));
        let status = header.iter().position(|h| h == "status").unwrap();
        assert_eq!(rows[0][status], expected, "--nice {nice}");
    }
}
