//! The installed binary's exit statuses, as a shell sees them.

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
