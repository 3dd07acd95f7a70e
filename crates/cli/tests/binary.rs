//! The installed binary's exit statuses, as a shell sees them.

mod common;

use common::terminated;
use std::process::Command;

fn scenario(name: &str) -> String {
    format!("{}/../../scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn good_scenario_exits_0_and_bad_input_exits_2() {
    let ok = Command::new(env!("CARGO_BIN_EXE_tpsim"))
        .args(["check", &scenario("mm1")])
        .output()
        .unwrap();
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    let text = std::fs::read_to_string(scenario("mm1"))
        .unwrap()
        .replace("servers", "x");
    std::fs::write(
        &bad,
        text.replace(
            "discipline = \"fcfs\"",
            "discipline = \"fcfs\"\nservers = 0",
        ),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tpsim"))
        .arg("run")
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("station[server].servers: must be at least 1"),
        "{stderr}"
    );

    let usage = Command::new(env!("CARGO_BIN_EXE_tpsim"))
        .arg("--no-such-flag")
        .output()
        .unwrap();
    assert_eq!(usage.status.code(), Some(2));
}

#[test]
fn an_interrupted_run_writes_what_it_measured_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let long = dir.path().join("long.toml");
    let text = std::fs::read_to_string(scenario("mm1"))
        .unwrap()
        .replace("200000s", "1000000000s");
    std::fs::write(&long, text).unwrap();
    let out_dir = dir.path().join("out");
    let child = Command::new(env!("CARGO_BIN_EXE_tpsim"))
        .arg("run")
        .arg(&long)
        .arg("--out")
        .arg(&out_dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once the output directory is locked, the run is under way.
    while !out_dir.join(".tpsim.lock").exists() {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    let summary = interrupted_run(&out, &out_dir);
    assert!(summary["sim_time"].as_f64().unwrap() < 1e9);
    assert!(String::from_utf8_lossy(&out.stdout).contains("(interrupted)"));
}

/// Checks that a run ended by a signal says so, with status 130, and
/// returns the summary it wrote into `out_dir`, marked interrupted.
fn interrupted_run(out: &std::process::Output, out_dir: &std::path::Path) -> serde_json::Value {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("tpsim: interrupted at"), "{stderr}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["stopped_by"], "interrupted");
    summary
}

/// mm1.toml under round robin with a 1 ns quantum and an end a billion
/// seconds away: a clock that crawls through billions of events.
fn crawling_mm1(dir: &std::path::Path) -> String {
    let text = std::fs::read_to_string(scenario("mm1"))
        .unwrap()
        .replace("200000s", "1000000000s")
        .replace(
            "discipline = \"fcfs\"",
            "discipline = \"rr\"\nquantum = \"1ns\"",
        );
    let path = dir.join("crawl.toml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn a_signal_ends_a_run_whose_clock_crawls_at_once_and_keeps_what_it_measured() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let out = terminated(
        &[
            "run",
            &crawling_mm1(dir.path()),
            "--out",
            out_dir.to_str().unwrap(),
        ],
        1.0,
    );
    let summary = interrupted_run(&out, &out_dir);
    assert!(summary["events"].as_u64().unwrap() > 0);
}

#[test]
fn a_signal_ends_a_batch_of_a_million_replications_keeping_those_that_finished() {
    let dir = tempfile::tempdir().unwrap();
    let out = terminated(
        &[
            "batch",
            &crawling_mm1(dir.path()),
            "--replications",
            "1000000",
            "--jobs",
            "256",
        ],
        1.0,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("tpsim: interrupted; the replications that finished were reported"),
        "{stderr}"
    );
}
