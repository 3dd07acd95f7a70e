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

/// Checks that a command a signal ended at once says so, with status 130.
fn ended_at_once(out: &std::process::Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("tpsim: interrupted: stopped at once; nothing more is written"),
        "{stderr}"
    );
}

#[test]
fn a_signal_ends_a_command_that_does_not_stop_to_check_for_one_at_once() {
    // About half a minute of Mean Value Analysis, which reports nothing
    // until it is done: a signal ends it there and then.
    let out = terminated(
        &[
            "mva",
            &scenario("central-server"),
            "--population",
            "1000000",
        ],
        0.5,
    );
    ended_at_once(&out);
    assert!(out.stdout.is_empty());
}

#[test]
fn a_signal_ends_a_command_blocked_reading_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("scenario.toml");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for command in ["check", "run"] {
        ended_at_once(&terminated(&[command, fifo.to_str().unwrap()], 0.3));
    }
}

#[test]
fn a_signal_ends_a_command_whose_standard_error_nobody_reads() {
    // Three thousand bad stations: a quarter of a megabyte of messages,
    // more than a pipe holds, so the command blocks writing them while
    // it holds standard error; `terminated` reads nothing until the end.
    let dir = tempfile::tempdir().unwrap();
    let mut text = std::fs::read_to_string(scenario("mm1")).unwrap();
    for i in 0..3000 {
        text.push_str(&format!(
            "[[station]]\nname = \"s{i}\"\ndiscipline = \"fcfs\"\nservice = {{ exp = {{ rate = \"-1/s\" }} }}\nto = \"exit\"\n"
        ));
    }
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, text).unwrap();
    let out = terminated(&["check", bad.to_str().unwrap()], 1.0);
    assert_eq!(out.status.code(), Some(130));
}

#[test]
fn a_second_signal_ends_a_run_blocked_on_its_output_at_once() {
    // Standard output is a pipe kept full: the interrupted run blocks
    // printing its tables, and only a second signal can end it.
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let (reader, mut writer) = std::io::pipe().unwrap();
    let filler = writer.try_clone().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tpsim"))
        .args(["run", &crawling_mm1(dir.path()), "--out"])
        .arg(&out_dir)
        .stdout(filler)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Kept full from here on: writes block once the pipe is, in a thread
    // that ends when the reader is dropped. The first signal waits until
    // the thread has put in a default pipe's 64 KiB (or 5 s, for a
    // smaller pipe, full sooner), so that a loaded machine slow to run
    // the thread cannot leave the run room to print.
    let written = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let keep_full = std::thread::spawn({
        let written = written.clone();
        move || {
            use std::io::Write;
            while writer.write_all(&[b'x'; 4096]).is_ok() {
                written.fetch_add(4096, std::sync::atomic::Ordering::SeqCst);
            }
        }
    });
    let started = std::time::Instant::now();
    while !out_dir.join(".tpsim.lock").exists()
        || (written.load(std::sync::atomic::Ordering::SeqCst) < 64 * 1024
            && started.elapsed().as_secs_f64() < 5.0)
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let pid = child.id().to_string();
    let signal = |name: &str| {
        let sent = Command::new("kill").args([name, &pid]).status().unwrap();
        assert!(sent.success());
    };
    signal("-INT");
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(child.try_wait().unwrap().is_none(), "blocked on its output");
    signal("-INT");
    let sent = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(
            sent.elapsed().as_secs_f64() < common::PROMPT_END,
            "still running after a second signal"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    drop(reader);
    keep_full.join().unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("tpsim: a second signal"), "{stderr}");
}

#[test]
fn a_closed_standard_output_loses_no_files_and_is_no_success() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    // `tpsim run ... | true`: nobody reads the tables.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_tpsim"))
        .args(["run", &scenario("mm1"), "--out"])
        .arg(&out_dir)
        .stdout(writer)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // As a shell reports a command that SIGPIPE ended: 128 + 13.
    assert_eq!(out.status.code(), Some(141), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    let summary = std::fs::read_to_string(out_dir.join("summary.json")).unwrap();
    assert!(
        summary.contains("\"stopped_by\": \"end_time\""),
        "{summary}"
    );
    assert!(out_dir.join(".tpsim-files").exists());

    // A full disk under standard output says so, whatever the command.
    for args in [&["run", &scenario("mm1")][..], &["--help"], &["--version"]] {
        let full = std::fs::File::create("/dev/full").unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_tpsim"))
            .args(args)
            .stdout(full)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("tpsim: cannot write to standard output: "),
            "{args:?}: {stderr}"
        );
    }
}
