//! `tpsim` driven as a user drives it, in-process.

use crate::scenario_path;
use std::path::Path;

pub(crate) struct Output {
    pub(crate) status: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

pub(crate) fn tpsim(args: &[&str]) -> Output {
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let argv = std::iter::once("tpsim").chain(args.iter().copied());
    let status = tpsim::cli::run(argv, &mut stdout, &mut stderr);
    Output {
        status,
        stdout: String::from_utf8(stdout).unwrap(),
        stderr: String::from_utf8(stderr).unwrap(),
    }
}

pub(crate) fn short_mm1(dir: &Path) -> String {
    let text = std::fs::read_to_string(scenario_path("mm1"))
        .unwrap()
        .replace("200000s", "20000s");
    let path = dir.join("mm1.toml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn run_prints_station_and_class_tables() {
    let dir = tempfile::tempdir().unwrap();
    let out = tpsim(&["run", &short_mm1(dir.path())]);
    assert_eq!(out.status, 0, "stderr: {}", out.stderr);
    assert!(
        out.stdout
            .starts_with("mm1: seed 1, 19000 s simulated after a 1000 s warm-up"),
        "got:\n{}",
        out.stdout
    );
    for expected in [
        "Stations",
        "| server  |       fcfs |",
        "Classes",
        "| jobs  | open |",
        "p99 [s]",
    ] {
        assert!(
            out.stdout.contains(expected),
            "expected {expected:?} in:\n{}",
            out.stdout
        );
    }
}

#[test]
fn json_output_has_the_documented_fields() {
    let dir = tempfile::tempdir().unwrap();
    let out = tpsim(&["run", &short_mm1(dir.path()), "--json", "--seed", "9"]);
    assert_eq!(out.status, 0, "stderr: {}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    for key in [
        "scenario",
        "seed",
        "sim_time",
        "events",
        "wall_seconds",
        "stations",
        "classes",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["seed"], 9);
    assert_eq!(v["scenario"], "mm1");
    assert_eq!(v["stations"][0]["name"], "server");
    for key in [
        "utilization",
        "throughput",
        "mean_queue_length",
        "mean_response",
    ] {
        assert!(
            v["stations"][0][key].is_number(),
            "missing stations[0].{key}"
        );
    }
    assert_eq!(v["classes"][0]["name"], "jobs");
    for key in [
        "throughput",
        "mean_response",
        "response_p50",
        "response_p75",
        "response_p90",
        "response_p99",
    ] {
        assert!(v["classes"][0][key].is_number(), "missing classes[0].{key}");
    }
}

#[test]
fn out_writes_summary_and_csv_reproducibly() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = short_mm1(dir.path());
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    for out_dir in [&a, &b] {
        let out = tpsim(&["run", &scenario, "--out", out_dir.to_str().unwrap()]);
        assert_eq!(out.status, 0, "stderr: {}", out.stderr);
    }
    for file in ["stations.csv", "classes.csv"] {
        let (x, y) = (
            std::fs::read(a.join(file)).unwrap(),
            std::fs::read(b.join(file)).unwrap(),
        );
        assert_eq!(x, y, "{file} differs between two runs with the same seed");
    }
    let csv = std::fs::read_to_string(a.join("classes.csv")).unwrap();
    assert!(
        csv.starts_with("class,kind,throughput_per_s,mean_response_s,"),
        "{csv}"
    );
    // summary.json: identical except for the wall-clock time.
    let strip = |p: &Path| {
        let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
        v["wall_seconds"] = serde_json::Value::Null;
        serde_json::to_string(&v).unwrap()
    };
    assert_eq!(
        strip(&a.join("summary.json")),
        strip(&b.join("summary.json"))
    );
}

fn bad_scenario(dir: &Path, from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(scenario_path("central-server")).unwrap();
    assert!(text.contains(from), "test set-up: {from:?} not in scenario");
    let path = dir.join("bad.toml");
    std::fs::write(&path, text.replace(from, to)).unwrap();
    path.display().to_string()
}

/// Runs a bad scenario with --out and checks the error: status 2, the file
/// and the key named, nothing written.
fn assert_rejected(from: &str, to: &str, expected: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let path = bad_scenario(dir.path(), from, to);
    let out_dir = dir.path().join("out");
    let out = tpsim(&["run", &path, "--out", out_dir.to_str().unwrap()]);
    assert_eq!(out.status, 2, "stderr: {}", out.stderr);
    assert!(out.stdout.is_empty(), "stdout: {}", out.stdout);
    assert!(out.stderr.starts_with("tpsim: "), "stderr: {}", out.stderr);
    assert!(
        out.stderr.contains(&path),
        "the file is not named in: {}",
        out.stderr
    );
    for e in expected {
        assert!(out.stderr.contains(e), "expected {e:?} in: {}", out.stderr);
    }
    assert!(!out_dir.exists(), "output written for a bad scenario");
}

#[test]
fn unknown_key_is_named() {
    assert_rejected(
        "discipline = \"ps\"",
        "discipline = \"ps\"\nspeed = 2",
        &[
            "station[cpu].speed: is not a key here; the keys here are name, discipline,",
            "line",
        ],
    );
}

#[test]
fn negative_rate_is_named() {
    assert_rejected(
        "mean = \"15s\"",
        "mean = \"-15s\"",
        &["class[terminals].think.exp: mean must be a finite number > 0, got -15"],
    );
}

#[test]
fn probabilities_not_adding_to_one_are_named() {
    assert_rejected(
        "p = 0.4",
        "p = 0.3",
        &["station[cpu].to: branch probabilities must add up to 1, got 0.9"],
    );
}

#[test]
fn unstable_open_station_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(scenario_path("mm1"))
        .unwrap()
        .replace("0.8/s", "1.25/s");
    let path = dir.path().join("unstable.toml");
    std::fs::write(&path, text).unwrap();
    let out = tpsim(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status, 2);
    assert!(
        out.stderr.contains(
            "station[server]: unstable: the open classes alone load it to rho = 1.2500 >= 1"
        ),
        "{}",
        out.stderr
    );
}

#[test]
fn malformed_toml_and_missing_files_are_input_errors() {
    assert_rejected("[run]", "[run", &["line"]);
    let out = tpsim(&["run", "no/such/scenario.toml"]);
    assert_eq!(out.status, 2);
    assert!(
        out.stderr
            .contains("cannot read scenario no/such/scenario.toml"),
        "{}",
        out.stderr
    );
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    assert_eq!(tpsim(&["frobnicate"]).status, 2);
    assert_eq!(tpsim(&["run"]).status, 2);
    let help = tpsim(&["--help"]);
    assert_eq!(help.status, 0);
}

#[test]
fn check_validates_without_running() {
    let out = tpsim(&["check", scenario_path("central-server").to_str().unwrap()]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(
        out.stdout.ends_with("ok: 1 class, 3 stations\n"),
        "{}",
        out.stdout
    );
}

#[test]
fn every_shipped_scenario_is_valid() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let out = tpsim(&["check", path.to_str().unwrap()]);
            assert_eq!(out.status, 0, "{}: {}", path.display(), out.stderr);
            n += 1;
        }
    }
    assert!(n >= 6, "only {n} scenarios found");
}

use std::path::PathBuf;

#[test]
fn mva_solves_the_central_server_scenario() {
    let path = scenario_path("central-server");
    let out = tpsim(&["mva", path.to_str().unwrap()]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    // QSP's interactive example at N = 3 and N = 20.
    assert!(
        out.stdout
            .contains("| 3  |           0.1515 |       4.7998 |"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("| 20 |           0.4745 |      27.1"),
        "{}",
        out.stdout
    );
    let json = tpsim(&["mva", path.to_str().unwrap(), "--json", "--population", "3"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["points"].as_array().unwrap().len(), 3);
    assert!((v["points"][2]["response"].as_f64().unwrap() - 4.80).abs() < 0.005);
}

#[test]
fn mva_refuses_an_open_network_with_exit_2() {
    let out = tpsim(&["mva", scenario_path("mm1").to_str().unwrap()]);
    assert_eq!(out.status, 2);
    assert!(
        out.stderr
            .contains("exact MVA cannot solve this network: class \"jobs\" is open"),
        "{}",
        out.stderr
    );
}

#[test]
fn extreme_but_valid_values_run_to_the_end() {
    // Huge demands and think times, far beyond the run: nothing overflows,
    // the run ends at its end time.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(scenario_path("central-server"))
        .unwrap()
        .replace("end_time = \"200000s\"", "end_time = \"10000000000s\"")
        .replace("mean = \"15s\"", "mean = \"1e7s\"")
        .replace(
            "{ exp = { mean = \"60.5ms\" } }",
            "{ hyperexp = { mean = \"1e5s\", scv = 100 } }",
        );
    let path = dir.path().join("extreme.toml");
    std::fs::write(&path, text).unwrap();
    let out = tpsim(&["run", path.to_str().unwrap(), "--json"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["sim_time"], 1e10);
    let too_long = std::fs::read_to_string(&path)
        .unwrap()
        .replace("10000000000s", "20000000000s");
    std::fs::write(&path, too_long).unwrap();
    let out = tpsim(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status, 2);
    assert!(
        out.stderr
            .contains("run.end_time: must be a duration > 0 and at most"),
        "{}",
        out.stderr
    );
}

/// A shipped scenario shortened to `end_time`, written into `dir`.
fn shortened(dir: &Path, name: &str, end_time: &str) -> String {
    let text = std::fs::read_to_string(scenario_path(name)).unwrap();
    let text = text
        .lines()
        .map(|line| {
            if line.starts_with("end_time") {
                format!("end_time = \"{end_time}\"")
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn a_time_sharing_run_reports_processor_memory_and_load() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = shortened(dir.path(), "berkeley-1979-paged", "3h");
    let out_dir = dir.path().join("out");
    let out = tpsim(&["run", &scenario, "--out", &out_dir.display().to_string()]);
    assert_eq!(out.status, 0, "stderr: {}", out.stderr);
    for expected in [
        "| cpu     |       unix |",
        "| rp06-0  |   disksort |",
        "| cpu: fault handling",
        "| cpu: idle",
        "| page faults [1/s]",
        "| mean multiprogramming level",
        "| mean user processes",
        "Commands",
        "| macsyma   | command |",
    ] {
        assert!(
            out.stdout.contains(expected),
            "expected {expected:?} in:\n{}",
            out.stdout
        );
    }
    let load = std::fs::read_to_string(out_dir.join("load.csv")).unwrap();
    let mut lines = load.lines();
    assert_eq!(
        lines.next(),
        Some("time_s,phase,users,processes,multiprogramming,runnable,memory_occupancy")
    );
    // One sample every 5 minutes over 3 hours.
    assert_eq!(lines.count(), 36);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("summary.json")).unwrap())
            .unwrap();
    for key in ["user", "fault_handling", "context_switch", "idle"] {
        assert!(summary["cpu"][key].is_f64(), "cpu.{key}");
    }
    assert!(summary["paging"]["faults"].as_u64().unwrap() > 0);
    assert!(summary["memory"]["mean_multiprogramming"].is_f64());
    assert!(summary["load"]["mean_users"].is_f64());
    assert!(
        summary.get("swapping").is_none(),
        "a paged system has no swapping section"
    );
    let classes = std::fs::read_to_string(out_dir.join("classes.csv")).unwrap();
    assert!(
        classes
            .lines()
            .next()
            .unwrap()
            .ends_with(",rejected,faults_per_command")
    );
    // The terminal probe: its observations, and its own load.
    let probe = std::fs::read_to_string(out_dir.join("probe.csv")).unwrap();
    let mut lines = probe.lines();
    assert_eq!(
        lines.next(),
        Some(
            "benchmark,start_s,phase,users,processes,runnable,free_memory_bytes,elapsed_s,user_s,system_s,ramp_workers"
        )
    );
    let first: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!((first[0], first[2]), ("man", "warmup"));
    assert!(out.stdout.contains("| probe: share of processor capacity"));
    assert!(summary["probe"]["cpu_share"].as_f64().unwrap() > 0.0);
    // Without the probe: no observations, no probe section.
    let quiet_dir = dir.path().join("quiet");
    let quiet = tpsim(&[
        "run",
        &scenario,
        "--no-probe",
        "--out",
        &quiet_dir.display().to_string(),
    ]);
    assert_eq!(quiet.status, 0, "stderr: {}", quiet.stderr);
    assert!(!quiet_dir.join("probe.csv").exists());
    assert!(!quiet.stdout.contains("probe:"));
    // Memory counted: no lifetime meter.
    assert!(!out_dir.join("lifetime.csv").exists());
}

#[test]
fn memory_as_frames_writes_its_measured_lifetime_and_its_chart() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(crate::scenario_path("thrashing-clock"))
        .unwrap()
        .replace("end_time = \"20000s\"", "end_time = \"600s\"")
        .replace("warmup = \"2000s\"", "warmup = \"100s\"");
    let scenario = dir.path().join("clock.toml");
    std::fs::write(&scenario, text).unwrap();
    let out_dir = dir.path().join("out");
    let out = tpsim(&[
        "run",
        &scenario.display().to_string(),
        "--out",
        &out_dir.display().to_string(),
    ]);
    assert_eq!(out.status, 0, "stderr: {}", out.stderr);
    let lifetime = std::fs::read_to_string(out_dir.join("lifetime.csv")).unwrap();
    let mut lines = lifetime.lines();
    assert_eq!(
        lines.next(),
        Some("class,resident_pages,cpu_s,faults,mean_time_between_faults_s")
    );
    let sizes: Vec<u64> = lines
        .map(|l| l.split(',').nth(1).unwrap().parse().unwrap())
        .collect();
    assert!(
        sizes.windows(2).all(|w| w[0] < w[1]) && sizes.len() > 10,
        "{sizes:?}"
    );
    let svg = std::fs::read_to_string(out_dir.join("lifetime.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("resident set [pages]"));
    assert!(out_dir.join("lifetime.png").exists());
}

#[test]
fn a_swapped_system_says_which_commands_could_not_run() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = shortened(dir.path(), "berkeley-1979-swapped", "12h");
    let out = tpsim(&["run", &scenario, "--json"]);
    assert_eq!(out.status, 0, "stderr: {}", out.stderr);
    assert!(
        out.stderr.starts_with("tpsim: note: ")
            && out.stderr.contains("of class macsyma could not run"),
        "got: {}",
        out.stderr
    );
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert!(v["swapping"]["swap_ins"].as_u64().unwrap() > 0);
    let macsyma = v["classes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "macsyma")
        .unwrap();
    assert!(macsyma["rejected"].as_u64().unwrap() > 0);
    assert_eq!(macsyma["completions"], 0);
}

#[test]
fn inconsistent_memory_is_refused_with_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(scenario_path("purdue-1980-paged"))
        .unwrap()
        .replace("kernel = \"256KiB\"", "kernel = \"4MiB\"")
        .replace("size = \"16KiB\"", "size = \"0KiB\"")
        .replace("page = \"1KiB\" ", "page = \"0KiB\" ");
    let path = dir.path().join("bad.toml");
    std::fs::write(&path, text).unwrap();
    let out = tpsim(&["check", &path.display().to_string()]);
    assert_eq!(out.status, 2);
    let file = path.display().to_string();
    for expected in [
        format!("tpsim: {file}: memory.page: must be a size > 0, got 0 bytes"),
        format!("tpsim: {file}: class[small].size: must be a size > 0, got 0 bytes"),
    ] {
        assert!(
            out.stderr.contains(&expected),
            "expected {expected:?} in:\n{}",
            out.stderr
        );
    }
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("page = \"0KiB\" ", "page = \"1KiB\" ");
    std::fs::write(&path, text).unwrap();
    let out = tpsim(&["run", &path.display().to_string()]);
    assert_eq!(out.status, 2);
    assert!(
        out.stderr.contains(&format!(
            "tpsim: {file}: memory.kernel: the kernel (4194304 bytes) must be smaller than memory.size (3145728 bytes)"
        )),
        "got:\n{}",
        out.stderr
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn check_and_mva_understand_time_sharing_scenarios() {
    let path = scenario_path("timesharing-central-server")
        .display()
        .to_string();
    let out = tpsim(&["check", &path]);
    assert_eq!(out.status, 0, "stderr: {}", out.stderr);
    assert!(
        out.stdout
            .contains("ok: time-sharing system, swapping memory, 1 command class, 3 devices")
    );
    assert_eq!(
        out.stderr, "",
        "no notes for a system whose commands all fit"
    );
    // MACSYMA's image is larger than the swapped Berkeley system's user
    // memory: check says so before any run.
    let berkeley = scenario_path("berkeley-1979-swapped").display().to_string();
    let out = tpsim(&["check", &berkeley]);
    assert_eq!(out.status, 0, "stderr: {}", out.stderr);
    assert!(
        out.stderr.contains("note: ")
            && out.stderr.contains("class macsyma: its image")
            && out
                .stderr
                .contains("under swapping its commands will be rejected"),
        "{}",
        out.stderr
    );
    let out = tpsim(&["mva", &path]);
    assert_eq!(out.status, 0, "stderr: {}", out.stderr);
    assert!(
        out.stdout
            .contains("| 20 |           0.4745 |      27.1482 |"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("note: memory is taken to be never short")
    );
    let out = tpsim(&[
        "mva",
        &scenario_path("purdue-1980-paged").display().to_string(),
    ]);
    assert_eq!(out.status, 2);
    assert!(
        out.stderr.contains("users log in and out"),
        "{}",
        out.stderr
    );
}

/// Writes `text` as a scenario, runs it with `--out`, and checks the error:
/// status 2, the file and every expected message named, nothing written.
pub(crate) fn assert_text_rejected(text: &str, expected: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    std::fs::write(&path, text).unwrap();
    let file = path.display().to_string();
    let out_dir = dir.path().join("out");
    let out = tpsim(&["run", &file, "--out", out_dir.to_str().unwrap()]);
    assert_eq!(out.status, 2, "stderr: {}", out.stderr);
    assert!(out.stdout.is_empty(), "stdout: {}", out.stdout);
    for e in expected {
        assert!(
            out.stderr.contains(&format!("tpsim: {file}: {e}")),
            "expected {e:?} in: {}",
            out.stderr
        );
    }
    assert!(!out_dir.exists(), "output written for a bad scenario");
}

pub(crate) fn shipped(name: &str) -> String {
    std::fs::read_to_string(scenario_path(name)).unwrap()
}

#[test]
fn sizes_that_round_to_zero_bytes_are_refused() {
    let text = shipped("timesharing-central-server");
    assert!(text.contains("page = \"1KiB\""));
    assert_text_rejected(
        &text.replace("page = \"1KiB\"", "page = \"0.4B\""),
        &["memory.page: 0.4 bytes rounds to 0"],
    );
    assert_text_rejected(
        &text.replace("page = \"1KiB\"", "page = \"0.1w\""),
        &["memory.page: 0.45 bytes rounds to 0"],
    );
}

#[test]
fn durations_below_the_clock_tick_are_refused() {
    assert_text_rejected(
        &shipped("mm1").replace(
            "discipline = \"fcfs\"",
            "discipline = \"rr\"\nquantum = \"0.1ns\"",
        ),
        &["station[server].quantum: 0.1 ns is below the clock's tick of 1 ns"],
    );
    assert_text_rejected(
        &shipped("timesharing-central-server").replace("quantum = \"10ms\"", "quantum = \"0.4ns\""),
        &["system.quantum: 0.4 ns is below the clock's tick"],
    );
    assert_text_rejected(
        &shipped("mm1").replace(
            "{ exp = { rate = \"0.8/s\" } }",
            "{ det = { value = \"0.1ns\" } }",
        ),
        &["class[jobs].arrivals: a mean of 0.1 ns is below the clock's tick of 1 ns"],
    );
    assert_text_rejected(
        &shipped("mm1").replace("end_time = \"200000s\"", "end_time = \"0.4ns\""),
        &["run.end_time: 0.4 ns is below the clock's tick"],
    );
}

/// Issue 44, item 4 and 5: a value of the wrong type is refused by its
/// key, saying what the key takes in the user's words, with numbers as a
/// person writes them.
#[test]
fn values_of_the_wrong_type_are_refused_in_the_users_words() {
    let ts = shipped("timesharing-central-server");
    assert!(ts.contains("terminals = 20"));
    for (value, shown) in [("1e300", "1e300"), ("1e-30", "1e-30"), ("2.0", "2.0")] {
        assert_text_rejected(
            &ts.replace("terminals = 20", &format!("terminals = {value}")),
            &[&format!(
                "users.terminals: must be a whole number from 0 to 4294967295, written in digits, not {shown}"
            )],
        );
    }
    let mm1 = shipped("mm1");
    assert_text_rejected(
        &mm1.replace(
            "warmup = \"1000s\"",
            "warmup = \"1000s\"\nmax_events = 1e20",
        ),
        &[
            "run.max_events: must be a whole number from 0 to 18446744073709551615, written in digits, not 1e20",
        ],
    );
    assert_text_rejected(
        &mm1.replace("[run]", "[[run]]"),
        &["run: must be one table, [run], not a list of tables ([[run]])"],
    );
    assert_text_rejected(
        &mm1.replace("seed = 1", "seed = 99999999999999999999"),
        &["seed: must be a value TOML holds"],
    );
    assert_text_rejected(
        &mm1.replace(
            "discipline = \"fcfs\"",
            "discipline = \"fcfs\"\nservers = \"two\"",
        ),
        &[
            "station[server].servers: must be a whole number from 0 to 4294967295, written in digits, not the text \"two\"",
        ],
    );
    assert_text_rejected(
        &mm1.replace("to = \"exit\"", "to = \"exit\"\nspeed = 2"),
        &["station[server].speed: is not a key here; the keys here are name, discipline,"],
    );
    let paged = shipped("berkeley-1979-paged");
    assert_text_rejected(
        &paged.replace("mips = 0.5", "mips = \"fast\""),
        &[
            "system.mips: must be a number of MIPS, or a calibration such as { cached = 1.2, uncached = 0.5, hit_ratio = 0.9 }",
        ],
    );
    assert_text_rejected(
        &paged.replace("device = \"rp06-0\"", "device = 7"),
        &["memory.device: must be a device's name, or a list of devices' names"],
    );
    let out = check_text(&ts.replace("terminals = 20", "terminals = 1e300"));
    for serde_word in ["u32", "floating point", "invalid type", "expected"] {
        assert!(!out.contains(serde_word), "{out}");
    }
}

/// `tpsim check` on a scenario's text: its standard error.
fn check_text(text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    std::fs::write(&path, text).unwrap();
    let out = tpsim(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status, 2, "stderr: {}", out.stderr);
    out.stderr
}

/// Issue 44, item 6: an error in [memory] is reported alone, without the
/// errors of the checks that need [memory] to be valid.
#[test]
fn an_error_in_memory_brings_no_errors_that_depend_on_it() {
    let paged = shipped("berkeley-1979-paged");
    let bad = paged.replace("page = \"1KiB\"", "page = \"0.4B\"");
    assert_ne!(bad, paged);
    assert_text_rejected(&bad, &["memory.page: 0.4 bytes rounds to 0"]);
    let out = check_text(&bad);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(!out.contains("file["), "{out}");
}

/// Issue 44, item 7: the diagnosis names the real fault.
#[test]
fn the_diagnosis_names_the_real_fault() {
    let mm1 = shipped("mm1");
    let arrivals = "arrivals = { exp = { rate = \"0.8/s\" } }";
    let table = |weights: &str| {
        mm1.replace(
            arrivals,
            &format!("arrivals = {{ empirical = {{ values = [1, 2], weights = {weights} }} }}"),
        )
    };
    assert_text_rejected(
        &table("[1e308, 1e308]"),
        &[
            "class[jobs].arrivals.empirical: empirical weights add up to more than the largest number",
        ],
    );
    assert_text_rejected(
        &table("[inf, 1]"),
        &["class[jobs].arrivals.empirical: empirical weights must be finite numbers >= 0, got inf"],
    );
    assert_text_rejected(
        &table("[0, 0]"),
        &["class[jobs].arrivals.empirical: empirical weights are all zero"],
    );
    assert_text_rejected(
        &mm1.replace(arrivals, "arrivals = { exp = { rate = \"5e-324/s\" } }"),
        &["class[jobs].arrivals.exp.rate: 5e-324 a second is too small a rate"],
    );
    // One rule for a duration that is not a whole number of ticks.
    for (end, shown) in [
        ("0.5ns", "0.5 ns is below"),
        ("1.5ns", "1.5 ns is not a whole number of nanoseconds"),
    ] {
        assert_text_rejected(
            &mm1.replace("end_time = \"200000s\"", &format!("end_time = \"{end}\"")),
            &[&format!("run.end_time: {shown}")],
        );
    }
    let paged = shipped("berkeley-1979-paged");
    assert_text_rejected(
        &paged.replace(
            "session = { exp = { mean = \"90min\" } }",
            "session = { det = { value = 0 } }",
        ),
        &["users.login.session: every session would have length 0"],
    );
    let out = check_text(&paged.replace("mips = 0.5", "mips = 1e300"));
    assert!(
        out.contains("system.mips: must be at most 1000000 MIPS") && out.lines().count() == 1,
        "{out}"
    );
}

/// Issue 44, item 8: a name that cannot be shown is refused by its key.
#[test]
fn names_that_cannot_be_shown_are_refused() {
    let mm1 = shipped("mm1");
    let long = "x".repeat(1 << 20);
    for (name, why) in [
        ("", "a name cannot be empty"),
        ("   ", "a name cannot be only spaces"),
        ("..", "\"..\" cannot be a name"),
        (
            "ab\u{202E}cd",
            "has the character U+202E, which does not print",
        ),
        (
            "ab\u{2028}cd",
            "has the character U+2028, which does not print",
        ),
        (
            "ab\u{200B}cd",
            "has the character U+200B, which does not print",
        ),
        (
            long.as_str(),
            "has 1048576 characters; a name has at most 64",
        ),
    ] {
        let text = mm1.replace("name = \"jobs\"", &format!("name = \"{name}\""));
        assert_text_rejected(&text, &["class[0].name: "]);
        let out = check_text(&text);
        assert!(out.contains(why), "{name:?}: {out}");
        assert!(out.len() < 1000, "{}", out.len());
        assert!(
            !out.contains('\u{202E}') && !out.contains('\u{2028}'),
            "{out}"
        );
    }
    let ts = shipped("timesharing-central-server");
    let text = ts.replacen("name = \"", "name = \"\u{200D}", 2);
    let out = check_text(&text);
    assert!(out.contains("U+200D"), "{out}");
}

#[test]
fn a_cycle_that_takes_no_time_is_refused() {
    let text = r#"
        name = "spin"
        [run]
        end_time = "10s"
        [system]
        quantum = "100ms"
        [memory]
        policy = "swapping"
        size = "64KiB"
        page = "1KiB"
        device = "disk"
        [[device]]
        name = "disk"
        rate = "1MB/s"
        [users]
        terminals = 2
        think = { det = { value = "0s" } }
        commands = [{ class = "nothing", weight = 1 }]
        [[class]]
        name = "nothing"
        cpu = { det = { value = "0s" } }
        size = "4KiB"
        [[background]]
        name = "idler"
        class = "nothing"
        sleep = { det = { value = "0s" } }
    "#;
    assert_text_rejected(
        text,
        &[
            "users.think: think time, processor demand and I/O of every command are all zero",
            "background[idler].sleep: the sleep and the processor demand and I/O of class nothing are all zero",
        ],
    );
    // Any time at all in the cycle, such as a context switch, is enough.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("switch.toml");
    std::fs::write(
        &path,
        text.replace(
            "quantum = \"100ms\"",
            "quantum = \"100ms\"\ncontext_switch = \"1ms\"",
        ),
    )
    .unwrap();
    assert_eq!(tpsim(&["check", path.to_str().unwrap()]).status, 0);
}

#[test]
fn populations_too_large_to_hold_are_refused() {
    assert_text_rejected(
        &shipped("central-server").replace("terminals = 20", "terminals = 1000000000"),
        &["class: 1000000000 terminals in all is more than tpsim can hold in memory"],
    );
    assert_text_rejected(
        &shipped("timesharing-central-server").replace("terminals = 20", "terminals = 1000000000"),
        &["users.terminals: 1000000000 terminals is more than tpsim can hold in memory"],
    );
    let out = tpsim(&[
        "mva",
        scenario_path("central-server").to_str().unwrap(),
        "--population",
        "1000000000",
    ]);
    assert_eq!(out.status, 2);
    assert!(
        out.stderr.contains("--population: must be between 1 and"),
        "{}",
        out.stderr
    );
    let out = tpsim(&[
        "mva",
        scenario_path("central-server").to_str().unwrap(),
        "--population",
        "0",
    ]);
    assert_eq!(out.status, 2, "{}", out.stderr);
    assert!(out.stdout.is_empty());
}

#[test]
fn a_distribution_the_clock_would_cut_is_refused() {
    assert_text_rejected(
        &shipped("mh21").replace("scv = 4", "scv = 1e300"),
        &[
            "station[server].service: samples beyond 1000000000 s (about 31.7 years) would be cut short",
        ],
    );
}

#[test]
fn names_that_would_break_the_tables_are_handled() {
    assert_text_rejected(
        &shipped("mm1").replace("name = \"server\"", "name = \"serv\\ner\""),
        &["station[0].name: \"serv\\u{a}er\" has the character U+000A, which does not print"],
    );
    // A | is kept, and escaped in the Markdown tables.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pipe.toml");
    std::fs::write(
        &path,
        shipped("mm1")
            .replace("\"server\"", "\"a|b\"")
            .replace("200000s", "2000s"),
    )
    .unwrap();
    let out = tpsim(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(out.stdout.contains("| a\\|b "), "{}", out.stdout);
}

/// Issue 44, item 8: a name a spreadsheet would run as a formula is
/// written to CSV as text, with a leading `'`; numbers are not touched.
#[test]
fn names_that_look_like_formulas_are_quoted_in_csv() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("formula.toml");
    std::fs::write(
        &path,
        shipped("mm1")
            .replace("\"server\"", "\"=HYPERLINK(1)\"")
            .replace("\"jobs\"", "\"-2+3\"")
            .replace("200000s", "2000s"),
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    let out = tpsim(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let stations = std::fs::read_to_string(out_dir.join("stations.csv")).unwrap();
    let classes = std::fs::read_to_string(out_dir.join("classes.csv")).unwrap();
    assert!(stations.contains("\n'=HYPERLINK(1),"), "{stations}");
    assert!(classes.contains("\n'-2+3,"), "{classes}");
    // A number in the same files is as it was.
    assert!(
        !stations.contains("'0") && !stations.contains("'-"),
        "{stations}"
    );
}

#[test]
fn memory_that_is_not_whole_pages_is_refused() {
    assert_text_rejected(
        &shipped("timesharing-central-server").replace("page = \"1KiB\"", "page = \"3KiB\""),
        &["memory.size: "],
    );
}

#[test]
fn a_scenario_file_is_read_only_so_far() {
    let out = tpsim(&["check", "/dev/zero"]);
    assert_eq!(out.status, 2);
    assert!(
        out.stderr.contains("a scenario file may be at most 4 MiB"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_run_cut_short_by_its_event_limit_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("short.toml");
    std::fs::write(
        &path,
        shipped("mm1").replace("[run]", "[run]\nmax_events = 100"),
    )
    .unwrap();
    let out = tpsim(&["run", path.to_str().unwrap(), "--json"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["stopped_by"], "event_limit");
    assert_eq!(v["warmup"], 0.0, "statistics were never reset");
    assert!(
        out.stderr
            .contains("it never reached the end of the warm-up"),
        "{}",
        out.stderr
    );
}

#[test]
fn help_and_version_go_to_standard_output_without_colour() {
    for flag in ["--help", "--version"] {
        let out = tpsim(&[flag]);
        assert_eq!(out.status, 0);
        assert!(!out.stdout.is_empty() && out.stderr.is_empty(), "{flag}");
        assert!(!out.stdout.contains('\u{1b}'), "{flag}: colour codes");
    }
}

#[test]
fn a_bad_output_directory_is_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let out = tpsim(&[
        "run",
        scenario_path("mm1").to_str().unwrap(),
        "--out",
        file.join("sub").to_str().unwrap(),
    ]);
    assert_eq!(out.status, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("cannot create output directory"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty(), "the run went ahead");
}

/// An observation table: `man` at 2 users (3 runs) and 3 users (2 runs),
/// one run in the warm-up.
const OBSERVATIONS: &str = "benchmark,start_s,phase,users,processes,elapsed_s\n\
    man,10,warmup,2,3,99\n\
    man,100,measured,2,3,6\n\
    man,200,measured,2,4,8\n\
    man,300,measured,2,4,7\n\
    man,400,measured,3,5,9\n\
    man,500,measured,3,5,11\n";

#[test]
fn analyze_reports_percentiles_per_load_level() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("probe.csv");
    std::fs::write(&table, OBSERVATIONS).unwrap();
    let table = table.display().to_string();
    let out_dir = dir.path().join("out");
    let out = tpsim(&["analyze", &table, "--out", &out_dir.display().to_string()]);
    assert_eq!(out.status, 0, "stderr: {}", out.stderr);
    // Level 2: 6, 7, 8 (the warm-up's 99 left out): median 7, p75 7.5.
    assert!(
        out.stdout
            .contains("| 2     | 3 |  7.0000 |  7.0000 |  7.5000 |"),
        "{}",
        out.stdout
    );
    let csv = std::fs::read_to_string(out_dir.join("analysis.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("benchmark,level,count,median_s,mean_s,p75_s,p75_low_s,p75_high_s,p90_s,needed")
    );
    assert_eq!(lines.next(), Some("man,2.0,3,7.0,7.0,7.5,,,7.8,"));
    // The study's chart of four curves, per benchmark.
    let svg = std::fs::read_to_string(out_dir.join("man-by-users.svg")).unwrap();
    assert!(svg.contains("75th percentile"), "{svg:.300}");
    let png = std::fs::read(out_dir.join("man-by-users.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    // By user processes, merged to at least 3: levels 3 and 4 (mean 3.5)
    // make the first group, 5 the short last one joins it.
    let out = tpsim(&[
        "analyze",
        &table,
        "--by",
        "processes",
        "--cluster",
        "3",
        "--json",
    ]);
    assert_eq!(out.status, 0, "stderr: {}", out.stderr);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["level"], 4.0);
    assert_eq!(rows[0]["count"], 5);
}

#[test]
fn analyze_names_what_is_wrong_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("bad.csv");
    std::fs::write(
        &table,
        "benchmark,phase,users,procs,elapsed_s\nman,measured,1,2,3\n",
    )
    .unwrap();
    let table = table.display().to_string();
    let out_dir = dir.path().join("out");
    let out = tpsim(&["analyze", &table, "--out", &out_dir.display().to_string()]);
    assert_eq!(out.status, 2);
    assert!(
        out.stderr
            .contains("bad.csv: no column `processes` in the header"),
        "{}",
        out.stderr
    );
    assert!(!out_dir.exists(), "nothing written");
    let good = dir.path().join("good.csv");
    std::fs::write(&good, OBSERVATIONS).unwrap();
    let good = good.display().to_string();
    for (args, expected) in [
        (
            vec!["--cluster", "0"],
            "invalid value '0' for '--cluster <MIN>': must be a whole number from 1",
        ),
        (vec!["--level", "1.5"], "--level: must lie between 0 and 1"),
        (
            vec!["--precision", "0"],
            "--precision: must be a fraction between 0 and 1",
        ),
        (
            vec!["--cluster", "3", "--window", "1"],
            "cannot be used with",
        ),
        (vec!["--by", "load"], "invalid value 'load'"),
    ] {
        let mut argv = vec!["analyze", good.as_str()];
        argv.extend(args.iter().copied());
        let out = tpsim(&argv);
        assert_eq!(out.status, 2, "{args:?}");
        assert!(out.stderr.contains(expected), "{args:?}: {}", out.stderr);
    }
    let missing = tpsim(&["analyze", "/no/such/probe.csv"]);
    assert_eq!(missing.status, 2);
    assert!(missing.stderr.contains("cannot read observation table"));
    // Tables with nothing to analyse: a header alone, runs that all
    // failed, observations all taken in the warm-up.
    let header = OBSERVATIONS.lines().next().unwrap();
    for (name, text, expected) in [
        (
            "empty.csv",
            format!("{header}\n"),
            "empty.csv: no observations: the table has its header and no rows",
        ),
        (
            "failed.csv",
            format!("{header},status\nman,1,measured,2,3,6,exit 1\nman,2,measured,2,3,6,timeout\n"),
            "failed.csv: no observations: every run's status is not ok (2 failed, timed out or interrupted)",
        ),
        (
            "warmup.csv",
            format!("{header}\nman,10,warmup,2,3,99\n"),
            "warmup.csv: every observation started during the warm-up; pass --include-warmup to count them",
        ),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = tpsim(&["analyze", &path.display().to_string()]);
        assert_eq!(out.status, 2, "{name}: {}", out.stderr);
        assert!(out.stderr.contains(expected), "{name}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{name}: {}", out.stdout);
    }
}

/// A machine's probe.csv, in part: `man` under a ramp of 0, 2 and 4
/// workers, two runs a step, with the machine's own load columns.
const MACHINE: &str = "benchmark,phase,users,processes,runnable,elapsed_s,status,load_1min,ramp_workers\n\
    man,measured,1,97,1,1.0,ok,0.2,0\n\
    man,measured,1,97,2,1.2,ok,0.49,0\n\
    man,measured,1,99,3,2.0,ok,1.5,2\n\
    man,measured,1,99,3,2.4,ok,2.1,2\n\
    man,measured,1,101,5,3.0,ok,3.6,4\n\
    man,measured,1,101,5,3.6,ok,4.2,4\n";

#[test]
fn analyze_groups_by_any_load_column_of_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("probe.csv");
    std::fs::write(&table, MACHINE).unwrap();
    let table = table.display().to_string();
    let levels = |by: &str| -> Vec<(f64, u64)> {
        let out = tpsim(&["analyze", &table, "--by", by, "--json"]);
        assert_eq!(out.status, 0, "{by}: {}", out.stderr);
        let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(json["index"], by);
        json["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["level"].as_f64().unwrap(), r["count"].as_u64().unwrap()))
            .collect()
    };
    assert_eq!(levels("ramp_workers"), [(0.0, 2), (2.0, 2), (4.0, 2)]);
    assert_eq!(levels("runnable"), [(1.0, 1), (2.0, 1), (3.0, 2), (5.0, 2)]);
    // A load average at its nearest whole number: 0.2 and 0.49 at 0, 1.5
    // and 2.1 at 2, 3.6 and 4.2 at 4.
    assert_eq!(levels("load_1min"), [(0.0, 2), (2.0, 2), (4.0, 2)]);
    // The study's indices as before.
    assert_eq!(levels("processes"), [(97.0, 2), (99.0, 2), (101.0, 2)]);
    let out_dir = dir.path().join("out");
    let out = tpsim(&[
        "analyze",
        &table,
        "--by",
        "ramp_workers",
        "--out",
        &out_dir.display().to_string(),
    ]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("Elapsed time [s] by ramp_workers")
            && out.stdout.contains("| ramp_workers | n |"),
        "{}",
        out.stdout
    );
    let svg = std::fs::read_to_string(out_dir.join("man-by-ramp_workers.svg")).unwrap();
    assert!(svg.contains("workers of the load ramp"), "{svg:.300}");
}

#[test]
fn analyze_refuses_a_column_the_table_lacks_and_curves_of_one_level() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("probe.csv");
    std::fs::write(&table, MACHINE).unwrap();
    let table = table.display().to_string();
    let out_dir = dir.path().join("out");
    let out_arg = out_dir.display().to_string();
    let out = tpsim(&["analyze", &table, "--by", "load_5min", "--out", &out_arg]);
    assert_eq!(out.status, 2);
    assert!(
        out.stderr.contains(&format!(
            "{table}: --by load_5min: no column `load_5min` in the header"
        )) && out.stderr.contains(
            "choose another --by: the table has users, processes, runnable, ramp_workers and load_1min"
        ),
        "{}",
        out.stderr
    );
    assert!(!out_dir.exists(), "nothing written");
    // One level of users only: a table, but no curve to draw.
    let out = tpsim(&["analyze", &table, "--out", &out_arg]);
    assert_eq!(out.status, 2);
    assert!(
        out.stderr.contains(&format!(
            "{table}: every benchmark is at one level of users only (1), and a chart's curve needs two or more: choose another --by, or leave out --out to have the table alone"
        )),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty() && !out_dir.exists());
    assert_eq!(tpsim(&["analyze", &table]).status, 0);
    // Levels enough, merged into one by clustering.
    let out = tpsim(&[
        "analyze",
        &table,
        "--by",
        "ramp_workers",
        "--cluster",
        "100",
        "--out",
        &out_arg,
    ]);
    assert_eq!(out.status, 2);
    assert!(
        out.stderr.contains(
            "every benchmark is at one level of ramp_workers only (2) once --cluster 100 has merged them"
        ) && out.stderr.contains("choose a smaller --cluster or another --by"),
        "{}",
        out.stderr
    );
    assert!(!out_dir.exists());
    // A field of the index's column that is not what it holds.
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, MACHINE.replace("3.6,ok,4.2", "3.6,ok,high")).unwrap();
    let out = tpsim(&["analyze", bad.to_str().unwrap(), "--by", "load_1min"]);
    assert_eq!(out.status, 2);
    assert!(
        out.stderr
            .contains("bad.csv: line 7, column `load_1min`: \"high\" is not a load average"),
        "{}",
        out.stderr
    );
}

/// The short M/M/1 of these tests with its run's keys edited in, as a
/// user would without `--set`.
fn edited_mm1(dir: &Path) -> String {
    let text = std::fs::read_to_string(short_mm1(dir))
        .unwrap()
        .replace("20000s", "3000s")
        .replace("seed = 1", "seed = 7");
    let path = dir.join("edited.toml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn set_gives_run_check_and_batch_what_editing_the_file_gives() {
    let dir = tempfile::tempdir().unwrap();
    let (mm1, edited) = (short_mm1(dir.path()), edited_mm1(dir.path()));
    let sets = ["--set", "run.end_time=3000s", "--set", "seed=7"];
    let with = |command: &[&str], file: &str, sets: &[&str]| {
        let mut argv = command.to_vec();
        argv.push(file);
        argv.extend_from_slice(sets);
        let out = tpsim(&argv);
        assert_eq!(out.status, 0, "{argv:?}: {}", out.stderr);
        out.stdout
    };
    for command in [&["run"][..], &["batch", "--replications", "2"]] {
        let set = with(command, &mm1, &sets);
        assert_eq!(set, with(command, &edited, &[]), "{command:?}");
        assert!(set.starts_with("mm1"), "{set}");
    }
    assert!(with(&["run"], &mm1, &sets).starts_with("mm1: seed 7, 2000 s simulated"));
    assert_eq!(
        with(&["check"], &mm1, &sets),
        format!("{mm1} --set run.end_time=3000s --set seed=7: ok: 1 class, 1 station\n")
    );
    // Shards of batches with other settings are not one batch.
    let record = |sets: &[&str]| {
        let out_dir = dir.path().join(format!("shard{}", sets.len()));
        let mut argv = vec![
            "batch",
            mm1.as_str(),
            "--replications",
            "2",
            "--shard",
            "1/2",
        ];
        argv.extend_from_slice(&["--out", out_dir.to_str().unwrap()]);
        argv.extend_from_slice(sets);
        assert_eq!(tpsim(&argv).status, 0);
        let json = std::fs::read_to_string(out_dir.join("shard.json")).unwrap();
        serde_json::from_str::<serde_json::Value>(&json).unwrap()["batch"]["fingerprint"].clone()
    };
    assert_ne!(record(&[]), record(&["--set", "run.end_time=3000s"]));
}

#[test]
fn set_refuses_a_key_the_scenario_lacks_and_a_second_seed() {
    let dir = tempfile::tempdir().unwrap();
    let mm1 = short_mm1(dir.path());
    let out_dir = dir.path().join("out");
    let out_arg = out_dir.display().to_string();
    for command in [
        &["run", "--out", &out_arg][..],
        &["check"],
        &["batch", "--replications", "2", "--out", &out_arg],
    ] {
        let refused = |sets: &[&str]| {
            let mut argv = command.to_vec();
            argv.push(&mm1);
            argv.extend_from_slice(sets);
            let out = tpsim(&argv);
            assert_eq!(out.status, 2, "{argv:?}");
            assert!(out.stdout.is_empty() && !out_dir.exists(), "{argv:?}");
            out.stderr
        };
        let unknown = refused(&["--set", "run.end_tim=50s"]);
        assert!(
            unknown.contains(&format!(
                "--set run.end_tim=50s: {mm1}: run.end_tim: is not a key here; the keys here are end_time"
            )),
            "{command:?}: {unknown}"
        );
        let element = refused(&["--set", "station[disk].servers=2"]);
        assert!(
            element.contains(&format!(
                "{mm1}: `station[disk]`: none is named disk; the names are server"
            )),
            "{command:?}: {element}"
        );
        let several = refused(&["--set", "run.end_time=3000s,4000s"]);
        assert!(
            several.contains(&format!(
                "--set run.end_time=...: {mm1}: 2 values, and a key takes one here"
            )),
            "{command:?}: {several}"
        );
        let bare = refused(&["--set", "users"]);
        assert!(
            bare.contains("--set users: expected KEY=VALUE, such as users.terminals=12"),
            "{command:?}: {bare}"
        );
        if command[0] != "check" {
            let seeds = refused(&["--seed", "3", "--set", "seed=4"]);
            assert!(
                seeds.contains("--seed and --set seed=... both set the master seed"),
                "{command:?}: {seeds}"
            );
        }
    }
}

#[test]
fn compare_runs_two_installations_and_marks_significant_differences() {
    let dir = tempfile::tempdir().unwrap();
    let swapped = shortened(dir.path(), "berkeley-1979-swapped", "4h");
    let paged = shortened(dir.path(), "berkeley-1979-paged", "4h");
    let out_dir = dir.path().join("out");
    let out = tpsim(&[
        "compare",
        &swapped,
        &paged,
        "--replications",
        "2",
        "--cluster",
        "5",
        "--out",
        &out_dir.display().to_string(),
    ]);
    assert_eq!(out.status, 0, "stderr: {}", out.stderr);
    assert!(
        out.stdout
            .contains("berkeley-1979-swapped against berkeley-1979-paged")
            && out.stdout.contains("Student t over paired replications"),
        "{}",
        out.stdout
    );
    // Each benchmark's whole curve is tested at once beside its levels.
    assert_eq!(
        out.stdout.matches("whole curve, over the ").count(),
        3,
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("expected by chance"), "{}", out.stdout);
    let csv = std::fs::read_to_string(out_dir.join("comparison.csv")).unwrap();
    assert_eq!(
        csv.lines().next(),
        Some(
            "benchmark,level,a_count,a_p75_s,b_count,b_p75_s,difference_s,difference_low_s,difference_high_s,significant"
        )
    );
    for name in ["man", "cpu-bound", "cc"] {
        assert!(
            out_dir.join(format!("{name}-p75-by-users.svg")).exists(),
            "{name}"
        );
        assert!(
            out_dir.join(format!("{name}-p75-by-users.png")).exists(),
            "{name}"
        );
    }
    // The replications run on a pool of threads: the same results on one.
    let one_dir = dir.path().join("one");
    let one = tpsim(&[
        "compare",
        &swapped,
        &paged,
        "--replications",
        "2",
        "--cluster",
        "5",
        "--jobs",
        "1",
        "--out",
        &one_dir.display().to_string(),
    ]);
    assert_eq!(one.stdout, out.stdout);
    assert_eq!(
        std::fs::read(one_dir.join("comparison.csv")).unwrap(),
        csv.as_bytes()
    );
    // One run each: a bootstrap.
    let out = tpsim(&["compare", &swapped, &paged, "--json"]);
    assert_eq!(out.status, 0, "stderr: {}", out.stderr);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(json["method"], "bootstrap");
    assert!(!json["rows"].as_array().unwrap().is_empty());
}

#[test]
fn compare_needs_two_probed_systems_and_a_replication() {
    let dir = tempfile::tempdir().unwrap();
    let paged = shortened(dir.path(), "berkeley-1979-paged", "2h");
    let mm1 = short_mm1(dir.path());
    let out = tpsim(&["compare", &paged, &mm1]);
    assert_eq!(out.status, 2);
    assert!(
        out.stderr
            .contains("mm1.toml: not a time-sharing scenario with a [probe]"),
        "{}",
        out.stderr
    );
    let out = tpsim(&["compare", &paged, &paged, "--replications", "0"]);
    assert_eq!(out.status, 2);
    assert!(
        out.stderr
            .contains("invalid value '0' for '--replications <R>': must be a whole number from 1"),
        "{}",
        out.stderr
    );
}

pub(crate) fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn batch_and_sweep_give_the_same_files_on_any_number_of_threads() {
    let dir = tempfile::tempdir().unwrap();
    let mm1 = short_mm1(dir.path());
    let (one, two) = (dir.path().join("one"), dir.path().join("two"));
    let sweep = |jobs: &str, out: &Path| {
        tpsim(&[
            "sweep",
            &mm1,
            "--set",
            "class[jobs].arrivals.exp.rate=0.3/s,0.6/s",
            "--set",
            "run.end_time=2000s..4000s:2000s",
            "--x",
            "run.end_time",
            "--replications",
            "3",
            "--jobs",
            jobs,
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let out = sweep("1", &one);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert_eq!(sweep("2", &two).status, 0);
    // The curves against the key named, run.end_time, one per rate; the
    // one class's throughput is the system's, drawn once.
    assert_eq!(
        files_in(&one),
        [
            "batch.json",
            "classes.jobs.mean_response.png",
            "classes.jobs.mean_response.svg",
            "estimates.csv",
            "knees.csv",
            "replications.csv",
            "throughput.png",
            "throughput.svg"
        ]
    );
    for file in files_in(&one) {
        assert_eq!(
            std::fs::read(one.join(&file)).unwrap(),
            std::fs::read(two.join(&file)).unwrap(),
            "{file}"
        );
    }
    // Four points, three replications each, the last key varying fastest.
    let rows = std::fs::read_to_string(one.join("replications.csv")).unwrap();
    let lines: Vec<&str> = rows.lines().collect();
    assert_eq!(lines.len(), 1 + 4 * 3);
    assert!(lines[0].starts_with("class[jobs].arrivals.exp.rate,run.end_time,replication,stopped_by,classes.jobs.completions,"), "{}", lines[0]);
    assert!(
        lines[4].starts_with("0.3/s,4000s,0,end_time,"),
        "{}",
        lines[4]
    );
    for expected in [
        "| 0.6/s ",
        "| classes.jobs.mean_response ",
        "±95%",
        "Every point: 3 replications, stopped by count",
    ] {
        assert!(
            out.stdout.contains(expected),
            "{expected:?} in\n{}",
            out.stdout
        );
    }
    // A batch is the sweep of no keys; its estimates are those of the
    // replications written beside them.
    let json = tpsim(&[
        "batch",
        &mm1,
        "--replications",
        "4",
        "--json",
        "--measure",
        "stations.*.utilization",
    ]);
    assert_eq!(json.status, 0, "{}", json.stderr);
    let value: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(value["points"][0]["replications"], 4);
    assert_eq!(value["partial"], false);
    let estimates = value["points"][0]["estimates"].as_array().unwrap();
    let utilization = estimates
        .iter()
        .find(|e| e["measure"] == "stations.server.utilization")
        .unwrap();
    assert_eq!(utilization["n"], 4);
    assert!(
        (utilization["mean"].as_f64().unwrap() - 0.8).abs() < 0.02,
        "{utilization}"
    );
}

#[test]
fn a_sweep_draws_against_the_key_that_varies_and_refuses_to_guess() {
    let dir = tempfile::tempdir().unwrap();
    let mm1 = short_mm1(dir.path());
    let out_dir = dir.path().join("out");
    let rate = "class[jobs].arrivals.exp.rate=0.3/s,0.6/s";
    // A constant given after the swept key is not the axis.
    let out = tpsim(&[
        "sweep",
        &mm1,
        "--set",
        rate,
        "--set",
        "run.end_time=2000s",
        "--replications",
        "2",
        "--json",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let value: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(value["axis"], "class[jobs].arrivals.exp.rate", "{value}");
    assert!(files_in(&out_dir).contains(&"throughput.svg".to_string()));
    // Two keys of several numbers and no population to choose by: refused
    // before anything runs, naming both, with the way out.
    let refused = dir.path().join("refused");
    let out = tpsim(&[
        "sweep",
        &mm1,
        "--set",
        rate,
        "--set",
        "run.end_time=2000s,3000s",
        "--out",
        refused.to_str().unwrap(),
    ]);
    assert_eq!(out.status, 2, "{}", out.stderr);
    assert_eq!(
        out.stderr.trim(),
        "tpsim: the sweep has several keys its curves could be drawn against: class[jobs].arrivals.exp.rate, run.end_time; name one with --x KEY, and the others' values make a curve each"
    );
    assert!(!refused.exists());
    // Naming the constant as the axis is refused too.
    let out = tpsim(&[
        "sweep",
        &mm1,
        "--set",
        rate,
        "--set",
        "run.end_time=2000s",
        "--x",
        "run.end_time",
    ]);
    assert_eq!(out.status, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("--x run.end_time: it takes one value in this sweep"),
        "{}",
        out.stderr
    );
    // The help says where the charts come from.
    let help = tpsim(&["sweep", "--help"]);
    assert!(help.stdout.contains("charts"), "{}", help.stdout);
}

#[test]
fn a_batch_can_run_until_its_measures_are_precise() {
    let dir = tempfile::tempdir().unwrap();
    let mm1 = short_mm1(dir.path());
    let out = tpsim(&[
        "batch",
        &mm1,
        "--precision",
        "0.03",
        "--measure",
        "classes.jobs.mean_response",
        "--replications",
        "4",
        "--max-replications",
        "200",
        "--json",
    ]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let value: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let point = &value["points"][0];
    assert_eq!(point["stopped_by"], "precision");
    let response = point["estimates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["measure"] == "classes.jobs.mean_response")
        .unwrap();
    let (mean, half) = (
        response["mean"].as_f64().unwrap(),
        response["half_width"].as_f64().unwrap(),
    );
    assert!(half <= 0.03 * mean, "{response}");
    assert!(point["replications"].as_u64().unwrap() > 4);
    let capped = tpsim(&[
        "batch",
        &mm1,
        "--precision",
        "0.0001",
        "--replications",
        "2",
        "--max-replications",
        "3",
    ]);
    assert_eq!(capped.status, 0, "{}", capped.stderr);
    assert!(
        capped
            .stdout
            .contains("3 replications, stopped by max_replications"),
        "{}",
        capped.stdout
    );
}

#[test]
fn bad_batches_and_sweeps_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mm1 = short_mm1(dir.path());
    let out_dir = dir.path().join("out");
    let out = out_dir.to_str().unwrap();
    for (args, expected) in [
        (
            vec!["sweep", &mm1, "--set", "run.end_time=5..1"],
            "--set run.end_time=5..1: the range from 5 to 1 is empty",
        ),
        (
            vec!["sweep", &mm1, "--set", "run.end_time=1..5:0"],
            "step must be greater than 0",
        ),
        (
            vec!["sweep", &mm1, "--set", "run.end_tme=100s"],
            "at run.end_tme=100s: ",
        ),
        (
            vec!["sweep", &mm1, "--set", "run.end_tme=100s"],
            "run.end_tme: is not a key here; the keys here are end_time, warmup, max_events",
        ),
        (
            vec!["sweep", &mm1, "--set", "run.end_time=5000s,500s"],
            "at run.end_time=500s: ",
        ),
        (
            vec!["sweep", &mm1, "--set", "station[disk].service.exp.mean=1s"],
            "none is named disk; the names are server",
        ),
        (vec!["sweep", &mm1, "--set", "users"], "expected KEY=VALUES"),
        (
            vec!["batch", &mm1, "--level", "1.5"],
            "--level: must lie between 0 and 1",
        ),
        (
            vec!["batch", &mm1, "--replications", "0"],
            "invalid value '0' for '--replications <R>': must be a whole number from 1",
        ),
        (
            vec!["batch", &mm1, "--precision", "0"],
            "--precision: must be a fraction between 0 and 1",
        ),
        (
            vec!["batch", &mm1, "--precision", "1e300"],
            "--precision: must be a fraction between 0 and 1 (such as 0.05), got 1e300",
        ),
        (
            vec!["batch", &mm1, "--level", "1e300"],
            "--level: must lie between 0 and 1, got 1e300",
        ),
        (
            vec!["batch", &mm1, "--precision", "0.1", "--replications", "1"],
            "needs at least 2",
        ),
        (
            vec![
                "batch",
                &mm1,
                "--precision",
                "0.1",
                "--max-replications",
                "5",
            ],
            "--max-replications: must be at least --replications (10)",
        ),
        (
            vec!["batch", &mm1, "--measure", "classes.*.latency"],
            "--measure classes.*.latency: no measure",
        ),
        (
            vec!["batch", &mm1, "--shard", "4/3"],
            "shard 4 of 3 is out of range: shards are numbered 1 to 3",
        ),
        (
            vec!["batch", &mm1, "--shard", "0/3"],
            "shard 0 of 3 is out of range",
        ),
        (
            vec!["batch", &mm1, "--shard", "2"],
            "`2` is not a shard: write it I/N",
        ),
        (vec!["merge", &mm1], "not a shard record"),
    ] {
        let mut args = args;
        args.extend(["--out", out]);
        let result = tpsim(&args);
        assert_eq!(result.status, 2, "{args:?}: {}", result.stderr);
        assert!(
            result.stderr.contains(expected),
            "{args:?}: expected {expected:?} in {}",
            result.stderr
        );
        assert!(
            files_in(&out_dir).is_empty(),
            "{args:?} wrote {:?}",
            files_in(&out_dir)
        );
    }
    let missing = tpsim(&["sweep", &mm1]);
    assert_eq!(missing.status, 2);
    assert!(missing.stderr.contains("--set"), "{}", missing.stderr);
    let day = tpsim(&[
        "batch",
        &scenario_path("berkeley-1979-paged").display().to_string(),
        "--warmup",
        "mser5",
        "--out",
        out,
    ]);
    assert_eq!(day.status, 2);
    assert!(
        day.stderr
            .contains("log in and out over the day, so it has no steady state"),
        "{}",
        day.stderr
    );
    assert!(files_in(&out_dir).is_empty());
    let nowhere = tpsim(&["batch", &mm1, "--shard", "1/2"]);
    assert_eq!(nowhere.status, 2);
    assert!(nowhere.stderr.contains("--out"), "{}", nowhere.stderr);
}

/// Runs `tpsim ARGS... --shard I/N --out DIR/I` for every shard, and
/// returns the shards' directories.
fn run_shards(args: &[&str], n: u64, dir: &Path) -> Vec<String> {
    (1..=n)
        .map(|i| {
            let out = dir.join(i.to_string()).display().to_string();
            let shard = format!("{i}/{n}");
            let mut argv = args.to_vec();
            argv.extend(["--shard", &shard, "--out", &out]);
            let result = tpsim(&argv);
            assert_eq!(result.status, 0, "{argv:?}: {}", result.stderr);
            assert!(
                result.stdout.contains(&format!("shard {shard}: ")),
                "{}",
                result.stdout
            );
            assert_eq!(files_in(Path::new(&out)), ["shard.json"]);
            out
        })
        .collect()
}

#[test]
fn merged_shards_give_the_whole_sweep_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let mm1 = short_mm1(dir.path());
    let rate = "class[jobs].arrivals.exp.rate=0.3/s,0.6/s";
    let count = ["sweep", &mm1, "--set", rate, "--replications", "3"];
    let precise = [
        "sweep",
        &mm1,
        "--set",
        rate,
        "--precision",
        "0.05",
        "--replications",
        "3",
        "--max-replications",
        "40",
    ];
    for (name, args, n) in [("count", &count[..], 4), ("precision", &precise[..], 3)] {
        let here = dir.path().join(name);
        let whole = here.join("whole").display().to_string();
        let mut argv = args.to_vec();
        argv.extend(["--out", &whole]);
        let single = tpsim(&argv);
        assert_eq!(single.status, 0, "{}", single.stderr);
        let shards = run_shards(args, n, &here.join("shards"));
        let merged_dir = here.join("merged").display().to_string();
        // In any order, as directories or as the records in them.
        let mut argv = vec!["merge", "--out", &merged_dir];
        let record = format!("{}/shard.json", shards[0]);
        argv.push(&record);
        argv.extend(shards[1..].iter().rev().map(String::as_str));
        let merged = tpsim(&argv);
        assert_eq!(merged.status, 0, "{}", merged.stderr);
        assert_eq!(merged.stdout, single.stdout, "{name}");
        let whole = Path::new(&whole);
        assert_eq!(files_in(whole).len(), 8, "{:?}", files_in(whole));
        assert_eq!(files_in(whole), files_in(Path::new(&merged_dir)));
        for file in files_in(whole) {
            assert!(
                std::fs::read(whole.join(&file)).unwrap()
                    == std::fs::read(Path::new(&merged_dir).join(&file)).unwrap(),
                "{name}: {file} differs"
            );
        }
        // A set with a shard left out, or with one of another seed, is
        // refused, and nothing is written.
        let refused_dir = here.join("refused");
        let refused = refused_dir.to_str().unwrap();
        let gap = tpsim(&["merge", "--out", refused, &shards[0], &shards[1]]);
        assert_eq!(gap.status, 2);
        assert!(
            gap.stderr.contains("of the batch") && gap.stderr.contains("missing"),
            "{}",
            gap.stderr
        );
        let mut argv = args.to_vec();
        let other = here.join("other").display().to_string();
        argv.extend(["--seed", "99", "--shard", "2/2", "--out", &other]);
        assert_eq!(tpsim(&argv).status, 0);
        let mixed = tpsim(&["merge", "--out", refused, &shards[0], &other]);
        assert_eq!(mixed.status, 2);
        assert!(
            mixed
                .stderr
                .contains("shards of different batches: their seeds differ (99 against 1)"),
            "{}",
            mixed.stderr
        );
        assert!(files_in(&refused_dir).is_empty());
    }
}

#[test]
fn fault_times_solves_the_reports_readings_and_flags_the_ill_conditioned_pair() {
    let readings = crate::scenario_path("multics-rfc103-fault-times")
        .with_extension("csv")
        .display()
        .to_string();
    let out = tpsim(&["fault-times", &readings]);
    assert_eq!(out.status, 0, "stderr: {}", out.stderr);
    for expected in [
        "| USL#1 + USL#2 |       - |",
        "| USL#1 + MIT#1 |   7.050 |   1.673 |",
        "| MIT#1 + MIT#2 |   9.086 |   1.545 |      27.5 | ill-conditioned",
        "Least squares over all: td = 6.408 ms, tb = 1.805 ms",
    ] {
        assert!(
            out.stdout.contains(expected),
            "expected {expected:?} in:\n{}",
            out.stdout
        );
    }
    let json = tpsim(&["fault-times", &readings, "--json"]);
    let value: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(value["pairs"].as_array().unwrap().len(), 6);
    assert_eq!(value["pairs"][5]["ill_conditioned"], true);
    // Typed in: the same pair, alone.
    let typed = tpsim(&[
        "fault-times",
        "--reading",
        "MIT#1:1.99ms:0.059",
        "--reading",
        "MIT#2:2.45ms:0.12",
    ]);
    assert_eq!(typed.status, 0, "stderr: {}", typed.stderr);
    assert!(typed.stdout.contains("| MIT#1 + MIT#2 |   9.086 |"));
}

#[test]
fn the_reports_algebra_reads_a_runs_summary() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = shortened(dir.path(), "multics-mit-1975", "40min");
    let out_dir = dir.path().join("mit");
    let run = tpsim(&["run", &scenario, "--out", &out_dir.display().to_string()]);
    assert_eq!(run.status, 0, "stderr: {}", run.stderr);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("summary.json")).unwrap())
            .unwrap();
    let (tav, f) = (
        summary["paging"]["tav"].as_f64().unwrap(),
        summary["paging"]["disk_fraction"].as_f64().unwrap(),
    );
    let set_sizes = std::fs::read_to_string(out_dir.join("set_sizes.csv")).unwrap();
    assert_eq!(
        set_sizes.lines().next(),
        Some("class,pages,resident_samples,working_set_samples")
    );
    assert!(set_sizes.lines().count() > 1);
    // Tav is processor time per fault, between the bulk store's 1.8 ms and
    // the disk's 7.1 ms (less where soft faults at 0.5 ms pull it down),
    // far below the elapsed time of a fault.
    assert!(tav > 0.0005 && tav < 0.0071, "{tav}");
    assert!(summary["paging"]["mean_fault_elapsed"].as_f64().unwrap() > tav);
    let out = tpsim(&[
        "fault-times",
        &out_dir.display().to_string(),
        "--reading",
        "USL#1:7.05ms:1.0",
        "--json",
    ]);
    assert_eq!(out.status, 0, "stderr: {}", out.stderr);
    let value: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(value["readings"][0]["name"], "multics-mit-1975 #0");
    assert_eq!(value["readings"][0]["tav"].as_f64().unwrap(), tav);
    assert_eq!(value["readings"][0]["f"].as_f64().unwrap(), f);
    // Delivered capacity: the run's speed (the scenario's calibration),
    // user work as a share of the time not idle for light load, and
    // processors, beside the report's two installations.
    let cpu = &summary["cpu"];
    let mips = cpu["mips"].as_f64().unwrap();
    assert!((mips - 1.0 / (0.75 / 0.92 + 0.25 / 0.73)).abs() < 1e-12);
    let useful = cpu["user"].as_f64().unwrap() / (1.0 - cpu["other_idle"].as_f64().unwrap());
    assert_eq!(cpu["useful_of_non_idle"].as_f64().unwrap(), useful);
    let delivered = mips * useful * 2.0;
    assert_eq!(cpu["delivered_mips"].as_f64().unwrap(), delivered);
    let table = crate::scenario_path("multics-rfc103-capacity")
        .with_extension("csv")
        .display()
        .to_string();
    let out = tpsim(&["capacity", &table, &out_dir.display().to_string(), "--json"]);
    assert_eq!(out.status, 0, "stderr: {}", out.stderr);
    let value: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let rows = value["installations"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert!((rows[1]["delivered_mips"].as_f64().unwrap() - 0.86 * 0.53 * 2.0).abs() < 1e-12);
    assert_eq!(rows[2]["delivered_mips"].as_f64().unwrap(), delivered);
    // The run's breakdown shared out between its disk and bulk store.
    let out = tpsim(&[
        "attribute",
        &out_dir.display().to_string(),
        "--td",
        "7.1ms",
        "--tb",
        "1.8ms",
        "--json",
    ]);
    assert_eq!(out.status, 0, "stderr: {}", out.stderr);
    let value: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(value["f"].as_f64().unwrap(), f);
    let a = &value["attribution"];
    let split = a["disk_page_faults"].as_f64().unwrap() + a["bulk_page_faults"].as_f64().unwrap();
    assert!((split - cpu["fault_handling"].as_f64().unwrap()).abs() < 1e-12);
    let out = tpsim(&["capacity", &table]);
    assert!(out.stdout.contains("| M.I.T.       |       0.8600 | 0.5300 |          2 |           0.9116 |             1.6279 |"), "{}", out.stdout);
}

#[test]
fn attribute_prints_the_reports_tables_and_refuses_bad_breakdowns() {
    let report = "page_faults=0.28,getwork=0.03,interrupts=0.06,segment_faults=0.03,mp_idle=0.02,other_idle=0.13,useful=0.45";
    let times = ["--td", "7.1ms", "--tb", "1.8ms"];
    let mut args = vec!["attribute", "--breakdown", report, "--f", "0.12"];
    args.extend(times);
    let out = tpsim(&args);
    assert_eq!(out.status, 0, "stderr: {}", out.stderr);
    for expected in [
        "| disk: f x td/Tav           |  9.8% |",
        "| bulk store paging |         21.2% |            24.4% |",
        "| useful                        |            68.4% |",
        "Useful work would rise by 32.2% of itself.",
    ] {
        assert!(
            out.stdout.contains(expected),
            "expected {expected:?} in:\n{}",
            out.stdout
        );
    }
    for (extra, expected) in [
        (
            vec!["--breakdown", "useful=0.5", "--f", "0.1"],
            "the breakdown adds up to 0.5000",
        ),
        (
            vec!["--breakdown", "work=1", "--f", "0.1"],
            "unknown part \"work\"",
        ),
        (
            vec!["--breakdown", report, "--f", "1.5"],
            "f must be a fraction",
        ),
        (vec!["--breakdown", report], "--f is required"),
        (vec![], "give a run"),
    ] {
        let mut argv = vec!["attribute"];
        argv.extend(extra.iter().copied());
        argv.extend(times);
        let out = tpsim(&argv);
        assert_eq!(out.status, 2, "{argv:?}: {}", out.stderr);
        assert!(
            out.stderr.contains(expected),
            "{argv:?}: expected {expected:?} in {}",
            out.stderr
        );
        assert!(out.stdout.is_empty());
    }
    let out = tpsim(&[
        "attribute",
        "--breakdown",
        report,
        "--f",
        "0.12",
        "--td",
        "fast",
        "--tb",
        "1ms",
    ]);
    assert_eq!(out.status, 2);
    assert!(
        out.stderr.contains("--td: invalid duration"),
        "{}",
        out.stderr
    );
}

#[test]
fn capacity_refuses_bad_installations_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("installations.csv");
    std::fs::write(&table, "installation,mips,useful,processors\nx,0.8,1.2,1\n").unwrap();
    let empty = dir.path().join("empty.csv");
    std::fs::write(&empty, "installation,mips,useful,processors\n").unwrap();
    let mm1_dir = dir.path().join("mm1");
    let mm1 = short_mm1(dir.path());
    assert_eq!(
        tpsim(&["run", &mm1, "--out", &mm1_dir.display().to_string()]).status,
        0
    );
    for (arg, expected) in [
        (
            table.display().to_string(),
            "installation x: useful must be a fraction in [0, 1]",
        ),
        (empty.display().to_string(), "no installations"),
        (mm1_dir.display().to_string(), "no cpu.mips"),
    ] {
        let out = tpsim(&["capacity", &arg]);
        assert_eq!(out.status, 2, "{arg}: {}", out.stderr);
        assert!(
            out.stderr.contains(expected),
            "{arg}: expected {expected:?} in {}",
            out.stderr
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn fault_times_refuses_bad_readings_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("readings.csv");
    std::fs::write(&table, "reading,tav,f\nx,2ms,1\ny,3ms,1\n").unwrap();
    let table = table.display().to_string();
    let mm1_dir = dir.path().join("mm1");
    let mm1 = short_mm1(dir.path());
    assert_eq!(
        tpsim(&["run", &mm1, "--out", &mm1_dir.display().to_string()]).status,
        0
    );
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "reading,tav,f\nx,fast,1\n").unwrap();
    let bad = bad.display().to_string();
    for (args, expected) in [
        (vec![table.as_str()], "every reading has f = 1"),
        (
            vec!["--reading", "x:2ms:1.5", "--reading", "y:1ms:0"],
            "reading x: f",
        ),
        (
            vec!["--reading", "x:-2ms:1", "--reading", "y:1ms:0"],
            "reading x: tav",
        ),
        (
            vec!["--reading", "x:2ms"],
            "--reading x:2ms: not three fields",
        ),
        (vec!["--reading", "x:2ms:1"], "1 reading(s)"),
        (vec![bad.as_str()], "line 2, column `tav`"),
        (
            vec!["no-such-file.csv"],
            "cannot read table of readings no-such-file.csv",
        ),
    ] {
        let mut argv = vec!["fault-times"];
        argv.extend(args.iter().copied());
        let out = tpsim(&argv);
        assert_eq!(out.status, 2, "{argv:?}: {}", out.stderr);
        assert!(
            out.stderr.contains(expected),
            "{argv:?}: expected {expected:?} in {}",
            out.stderr
        );
        assert!(out.stdout.is_empty());
    }
    let out = tpsim(&["fault-times", &mm1_dir.display().to_string(), &table]);
    assert_eq!(out.status, 2);
    assert!(out.stderr.contains("no paging.tav"), "{}", out.stderr);
}

/// Whether `text` holds a run of more than 20 digits: a number printed
/// whole rather than as a person writes it.
fn long_number(text: &str) -> bool {
    text.split(|c: char| !c.is_ascii_digit())
        .any(|digits| digits.len() > 20)
}

/// Issue 44, item 4: extreme times in `attribute` and `fault-times` are
/// printed as a person writes them.
#[test]
fn extreme_fault_times_print_as_a_person_writes_them() {
    let report = "page_faults=0.28,getwork=0.03,interrupts=0.06,segment_faults=0.03,mp_idle=0.02,other_idle=0.13,useful=0.45";
    let out = tpsim(&[
        "attribute",
        "--breakdown",
        report,
        "--f",
        "0.12",
        "--td",
        "1e300s",
        "--tb",
        "1.8ms",
    ]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(out.stdout.contains("td = 1e303 ms"), "{}", out.stdout);
    assert!(!long_number(&out.stdout), "{}", out.stdout);
    let out = tpsim(&[
        "fault-times",
        "--reading",
        "a:1e300ms:0.1",
        "--reading",
        "b:2ms:0.5",
    ]);
    assert!(
        !long_number(&out.stdout) && !long_number(&out.stderr),
        "{}{}",
        out.stdout,
        out.stderr
    );
    let out = tpsim(&[
        "fault-times",
        "--reading",
        "a:1e300ms:1e300",
        "--reading",
        "b:2ms:0.5",
    ]);
    assert_eq!(out.status, 2);
    assert!(out.stderr.contains("got 1e300"), "{}", out.stderr);
}
