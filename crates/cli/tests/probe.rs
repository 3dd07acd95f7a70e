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

/// A process's state and parent from `/proc/PID/stat`; `None` once it is
/// gone.
fn state_and_parent(pid: u32) -> Option<(char, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid ...`: the command may hold spaces and
    // brackets, so the fields are read after its last bracket.
    let mut fields = stat[stat.rfind(')')? + 1..].split_whitespace();
    let state = fields.next()?.chars().next()?;
    Some((state, fields.next()?.parse().ok()?))
}

/// The processes whose parent is `parent`.
fn children_of(parent: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| state_and_parent(pid).is_some_and(|(_, p)| p == parent))
        .collect()
}

#[test]
fn the_probe_s_workers_and_benchmark_die_with_it_even_by_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let mut probe = Command::new(env!("CARGO_BIN_EXE_tpsim"))
        .args(["probe", "--bench", "slp=sleep 30", "--sleep", "1s"])
        .args(["--duration", "1h", "--min-uid", "0", "--ramp", "cpu:1@1h"])
        .arg("--out")
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The worker and the benchmark's shell (or the `sleep` it became).
    let started = std::time::Instant::now();
    let children = loop {
        let children = children_of(probe.id());
        if children.len() == 2 {
            break children;
        }
        assert!(started.elapsed().as_secs_f64() < 10.0, "{children:?}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    probe.kill().unwrap();
    probe.wait().unwrap();
    let killed = std::time::Instant::now();
    for pid in children {
        // Gone, or dead and not yet reaped by whoever inherited it.
        while state_and_parent(pid).is_some_and(|(state, _)| state != 'Z') {
            assert!(
                killed.elapsed().as_secs_f64() < PROMPT_END,
                "process {pid} outlived the probe"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

#[test]
fn an_empty_probe_csv_is_taken_as_none_and_times_come_at_their_clocks_resolution() {
    // What a probe that could not write its header left, in older
    // versions: an empty file, which neither a new probe nor --append
    // refuses.
    for (append, resolution, places) in [(false, None, (9, 6)), (true, Some("10ms"), (2, 2))] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("probe.csv"), "").unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_tpsim"));
        command
            .args(["probe", "--bench", "t=true", "--sleep", "10ms"])
            .args(["--duration", "50ms", "--out"])
            .arg(dir.path());
        if append {
            command.arg("--append");
        }
        if let Some(r) = resolution {
            command.args(["--resolution", r]);
        }
        let out = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        let (header, rows) = probe_rows(&dir.path().join("probe.csv"));
        assert!(!rows.is_empty());
        let decimals = |name: &str| {
            let at = header.iter().position(|h| h == name).unwrap();
            rows.iter()
                .map(|r| r[at].split_once('.').map_or(0, |(_, d)| d.len()))
                .collect::<Vec<usize>>()
        };
        for row in 0..rows.len() {
            assert_eq!(decimals("elapsed_s")[row], places.0, "{rows:?}");
            assert_eq!(decimals("user_s")[row], places.1, "{rows:?}");
            assert_eq!(decimals("system_s")[row], places.1, "{rows:?}");
            assert_eq!(decimals("start_s")[row], 6, "{rows:?}");
        }
    }
}

#[test]
fn a_probe_that_cannot_write_its_header_leaves_no_file_behind() {
    // A file size limit of 0 makes every write fail, as a full disk
    // would (with SIGXFSZ ignored, as the shell leaves it for the probe).
    let dir = tempfile::tempdir().unwrap();
    let script = format!(
        "trap '' XFSZ; ulimit -f 0; exec '{}' probe --bench t=true --sleep 10ms --duration 50ms --out '{}'",
        env!("CARGO_BIN_EXE_tpsim"),
        dir.path().display()
    );
    let out = Command::new("/bin/sh")
        .args(["-c", &script])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot write"), "{stderr}");
    assert!(!dir.path().join("probe.csv").exists(), "{stderr}");
}
