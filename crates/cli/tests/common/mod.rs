//! What the binary's test files share: running `tpsim` and ending it by
//! a signal.

use std::process::Command;

/// The longest a signalled command may take to end in these tests [s]: it
/// ends within a fraction of a second (docs/architecture.md), and the
/// margin is for a loaded machine.
pub const PROMPT_END: f64 = 5.0;

/// Starts `tpsim` with `args`, sends it SIGTERM `after` seconds later, and
/// returns its output; fails if it has not ended within [`PROMPT_END`] of
/// the signal.
pub fn terminated(args: &[&str], after: f64) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tpsim"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs_f64(after));
    let sent = std::time::Instant::now();
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    while child.try_wait().unwrap().is_none() {
        if sent.elapsed().as_secs_f64() > PROMPT_END {
            child.kill().unwrap();
            panic!("tpsim {args:?} still ran {PROMPT_END} s after SIGTERM");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}
