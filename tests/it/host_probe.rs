//! `tpsim probe` on the test machine: real benchmarks timed, the load
//! indices noted, the rows `tpsim analyze` reads; and every bad flag
//! refused before anything is written.

use crate::cli::tpsim;
use std::path::Path;

/// Runs `tpsim probe` with `args` and `--out DIR`; its status and stderr.
fn probe(dir: &Path, args: &[&str]) -> (i32, String) {
    let mut argv = vec!["probe", "--out", dir.to_str().unwrap()];
    argv.extend_from_slice(args);
    let out = tpsim(&argv);
    (out.status, out.stderr)
}

/// The rows of a probe.csv, each a map from column to field.
fn rows(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            header
                .iter()
                .zip(r.iter())
                .map(|(h, f)| (h.to_string(), f.to_string()))
                .collect()
        })
        .collect()
}

#[test]
fn a_short_probe_times_its_benchmarks_and_analyze_reads_what_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("host");
    let (status, stderr) = probe(
        &out,
        &[
            "--bench",
            "true=true",
            "--bench",
            "loop=i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done",
            "--bench",
            "missing=no-such-command-anywhere",
            "--sleep",
            "100ms",
            "--duration",
            // Two cycles of about 100 ms of work each, with room for a
            // machine busy with other tests.
            "1500ms",
            "--min-uid",
            "0",
        ],
    );
    assert_eq!(status, 0, "{stderr}");
    assert!(stderr.contains("tpsim: probe: "), "{stderr}");
    let rows = rows(&out.join("probe.csv"));
    // At least two cycles of three benchmarks, in order, none dropped.
    assert!(
        rows.len() >= 6 && rows.len().is_multiple_of(3),
        "{}",
        rows.len()
    );
    for (i, row) in rows.iter().enumerate() {
        let name = ["true", "loop", "missing"][i % 3];
        assert_eq!(row["benchmark"], name);
        assert_eq!(row["phase"], "measured");
        let expected = if name == "missing" { "exit 127" } else { "ok" };
        assert_eq!(row["status"], expected, "{row:?}");
        let number = |c: &str| row[c].parse::<f64>().unwrap();
        assert!(
            number("elapsed_s") > 0.0 && number("elapsed_s") < 5.0,
            "{row:?}"
        );
        assert!(number("user_s") >= 0.0 && number("system_s") >= 0.0);
        // The probe counts itself out, but with uid 0 counted the test
        // runner's own processes are there.
        assert!(
            number("processes") >= 1.0 && number("runnable") >= 1.0,
            "{row:?}"
        );
        assert!(number("free_memory_bytes") > 0.0);
        assert!(number("load_1min") >= 0.0);
        assert_eq!(row["ramp_workers"], "0");
        assert!(["utmp", "owners"].contains(&row["users_from"].as_str()));
        assert!(number("start_s") > 1.5e9, "seconds since the epoch");
    }
    // The loop does work the benchmark's clock and `getrusage` see: tens
    // of milliseconds of processor time against `true`'s one or so, more
    // than other work on the machine can blur when summed over the cycles.
    let total = |name: &str, column: &str| -> f64 {
        rows.iter()
            .filter(|r| r["benchmark"] == name)
            .map(|r| r[column].parse::<f64>().unwrap())
            .sum()
    };
    let cpu = |name: &str| total(name, "user_s") + total(name, "system_s");
    assert!(
        total("loop", "elapsed_s") > 3.0 * total("true", "elapsed_s"),
        "loop slower than true: {rows:?}"
    );
    assert!(
        cpu("loop") > 3.0 * cpu("true"),
        "loop busier than true: {rows:?}"
    );
    let analyzed = tpsim(&[
        "analyze",
        out.join("probe.csv").to_str().unwrap(),
        "--by",
        "processes",
        "--json",
    ]);
    assert_eq!(analyzed.status, 0, "{}", analyzed.stderr);
    assert!(
        analyzed.stderr.contains("runs whose status is not ok"),
        "{}",
        analyzed.stderr
    );
    let json: serde_json::Value = serde_json::from_str(&analyzed.stdout).unwrap();
    let benchmarks: std::collections::BTreeSet<&str> = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["benchmark"].as_str().unwrap())
        .collect();
    assert_eq!(
        benchmarks.into_iter().collect::<Vec<_>>(),
        ["loop", "true"],
        "the failed benchmark is left out"
    );
    // Every load column the probe writes may be the index.
    for by in [
        "users",
        "runnable",
        "ramp_workers",
        "load_1min",
        "load_5min",
        "load_15min",
    ] {
        let analyzed = tpsim(&[
            "analyze",
            out.join("probe.csv").to_str().unwrap(),
            "--by",
            by,
            "--json",
        ]);
        assert_eq!(analyzed.status, 0, "{by}: {}", analyzed.stderr);
        let json: serde_json::Value = serde_json::from_str(&analyzed.stdout).unwrap();
        assert_eq!(json["index"], by);
    }
}

#[test]
fn a_benchmark_past_its_timeout_is_killed_and_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let (status, stderr) = probe(
        dir.path(),
        &[
            "--bench",
            "slow=sleep 30",
            "--sleep",
            "10ms",
            "--duration",
            "10ms",
            "--timeout",
            "200ms",
        ],
    );
    assert_eq!(status, 0, "{stderr}");
    let rows = rows(&dir.path().join("probe.csv"));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["status"], "timeout");
    let elapsed: f64 = rows[0]["elapsed_s"].parse().unwrap();
    assert!((0.2..5.0).contains(&elapsed), "{elapsed}");
    assert!(stderr.contains("1 timed out"), "{stderr}");
}

#[test]
fn append_adds_rows_and_resolution_truncates_the_times() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--bench",
        "true=true",
        "--sleep",
        "10ms",
        "--duration",
        "10ms",
        "--resolution",
        "1s",
    ];
    assert_eq!(probe(dir.path(), &args).0, 0);
    // Again without --append: refused, the file untouched.
    let before = std::fs::read_to_string(dir.path().join("probe.csv")).unwrap();
    let (status, stderr) = probe(dir.path(), &args);
    assert_eq!(status, 2);
    assert!(stderr.contains("pass --append"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("probe.csv")).unwrap(),
        before
    );
    let mut appended = args.to_vec();
    appended.push("--append");
    assert_eq!(probe(dir.path(), &appended).0, 0);
    let rows = rows(&dir.path().join("probe.csv"));
    assert_eq!(rows.len(), 2);
    for row in &rows {
        // `true` takes milliseconds: whole seconds truncate it to 0,
        // written to the second.
        assert_eq!(row["elapsed_s"], "0");
        assert_eq!(row["user_s"], "0");
    }
    // A file that is not the probe's is not appended to.
    std::fs::write(dir.path().join("probe.csv"), "a,b\n1,2\n").unwrap();
    let (status, stderr) = probe(dir.path(), &appended);
    assert_eq!(status, 2);
    assert!(stderr.contains("its header differs"), "{stderr}");
}

#[test]
fn bad_flags_are_refused_by_name_with_status_2_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let good = ["--bench", "t=true", "--sleep", "1s", "--duration", "1s"];
    let with = |flag: &str, value: &str| -> Vec<String> {
        let mut args: Vec<String> = good.iter().map(ToString::to_string).collect();
        match args.iter().position(|a| a == flag) {
            Some(i) => args[i + 1] = value.to_string(),
            None => args.extend([flag.to_string(), value.to_string()]),
        }
        args
    };
    let cases = [
        (with("--bench", "no-equals-sign"), "--bench", "has no `=`"),
        (with("--bench", "t=  "), "--bench", "empty command"),
        (with("--bench", "=true"), "--bench", "needs a name"),
        (with("--sleep", "0s"), "--sleep", "> 0"),
        (with("--duration", "-5s"), "--duration", "> 0"),
        (with("--duration", "soon"), "--duration", ""),
        (with("--timeout", "0s"), "--timeout", "> 0"),
        (
            with("--ramp", "disk:0,2@1s"),
            "--ramp",
            "unknown worker kind",
        ),
        (with("--ramp", "cpu:0,2"), "--ramp", "KIND:N1,N2"),
        (with("--ramp", "cpu:0,x@1s"), "--ramp", "KIND:N1,N2"),
        (with("--nice", "40"), "--nice", "-20 to 19"),
        // Issue 44, item 4: numbers as a person writes them.
        (with("--duration", "1e300s"), "--duration", "got 1e300 s"),
        (with("--sleep", "1e300s"), "--sleep", "got 1e300 s"),
        (with("--timeout", "1e300s"), "--timeout", "got 1e300 s"),
        (with("--ramp", "cpu:0,2@1e300s"), "--ramp", "got 1e300 s"),
        // Issue 44, item 8: a name that cannot be shown.
        (with("--bench", "a\u{202E}b=true"), "--bench", "U+202E"),
    ];
    for (args, flag, words) in cases {
        let out = dir.path().join("never");
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (status, stderr) = probe(&out, &args);
        assert_eq!(status, 2, "{args:?}: {stderr}");
        assert!(
            stderr.contains(flag) && stderr.contains(words),
            "{args:?}: {stderr}"
        );
        assert!(!out.exists(), "{args:?}: nothing written");
    }
    // No benchmark at all, and an output directory under a file.
    let (status, stderr) = probe(
        &dir.path().join("never"),
        &["--sleep", "1s", "--duration", "1s"],
    );
    assert_eq!(status, 2);
    assert!(stderr.contains("--bench"), "{stderr}");
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let (status, stderr) = probe(&file.join("out"), &good);
    assert_eq!(status, 2);
    assert!(stderr.contains("--out: cannot create"), "{stderr}");
}

#[test]
fn a_config_file_gives_the_settings_and_its_mistakes_name_its_keys() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("probe.toml");
    std::fs::write(
        &config,
        "benchmarks = [{ name = \"t\", command = \"true\" }]\nsleep = \"10ms\"\nduration = \"10ms\"\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let (status, stderr) = probe(&out, &["--config", config.to_str().unwrap()]);
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(rows(&out.join("probe.csv")).len(), 1);
    for (text, words) in [
        (
            "sleep = \"0s\"\nduration = \"1s\"\nbenchmarks = [{ name = \"t\", command = \"true\" }]\n",
            "probe.toml: sleep",
        ),
        (
            "sleep = \"1s\"\nduration = \"1s\"\nbenchmarks = [{ name = \"t\", command = \"\" }]\n",
            "benchmarks[0]",
        ),
        (
            "sleep = \"1s\"\nduration = \"1s\"\nbenchmarks = [{ name = \"t\", command = \"true\" }]\nramp = { kind = \"gpu\", workers = [1], hold = \"1s\" }\n",
            "ramp.kind",
        ),
        ("slep = \"1s\"\n", "slep"),
        (
            "nice = 1.5\n",
            "probe.toml: nice: must be a whole number, written in digits, not 1.5 (line 1)",
        ),
    ] {
        std::fs::write(&config, text).unwrap();
        let out = dir.path().join("never");
        let (status, stderr) = probe(&out, &["--config", config.to_str().unwrap()]);
        assert_eq!(status, 2, "{text}: {stderr}");
        assert!(stderr.contains(words), "{text}: {stderr}");
        assert!(!out.exists());
    }
}

/// A model whose probe runs a 2 s and a 1 s benchmark alone on the
/// machine (one user who never stops thinking): each takes its demand and
/// a 1 ms switch (the probe tests' `TIMED`, run for 200 s).
fn modelled() -> String {
    crate::probe::TIMED
        .replace("name = \"timed\"", "name = \"modelled\"")
        .replace("end_time = \"100s\"", "end_time = \"200s\"")
}

#[test]
fn a_measured_table_is_compared_with_a_model_or_another_table() {
    // Measured at one user: `long` 2.5 s four times and once 9 s but
    // failed (left out), `short` 1.0 s, beside the model's 2.001 s and
    // 1.001 s.
    let dir = tempfile::tempdir().unwrap();
    let measured = dir.path().join("probe.csv");
    let mut table = String::from("benchmark,phase,users,processes,elapsed_s,status\n");
    for _ in 0..4 {
        table.push_str("long,measured,1,0,2.5,ok\nshort,measured,1,0,1.0,ok\n");
    }
    table.push_str("long,measured,1,0,9,timeout\n");
    std::fs::write(&measured, table).unwrap();
    let model = dir.path().join("model.toml");
    std::fs::write(&model, modelled()).unwrap();
    let (measured, model) = (measured.to_str().unwrap(), model.to_str().unwrap());
    let out = tpsim(&["compare", measured, model, "--json"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("1 runs whose status is not ok"),
        "{}",
        out.stderr
    );
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(json["method"], "bootstrap");
    assert_eq!(json["installations"][1], "modelled");
    let rows = json["rows"].as_array().unwrap();
    let row = |name: &str| rows.iter().find(|r| r["benchmark"] == name).unwrap();
    let p75 = |name: &str, side: &str| row(name)[side].as_f64().unwrap();
    assert_eq!(p75("long", "a_p75"), 2.5);
    // (Each exec reads 10 KiB at 1000 GB/s: 10 ns.)
    assert!(
        (p75("long", "b_p75") - 2.00100001).abs() < 1e-12,
        "{}",
        row("long")
    );
    assert!(
        (p75("short", "b_p75") - 1.00100001).abs() < 1e-12,
        "{}",
        row("short")
    );
    assert_eq!(row("long")["a_count"], 4);
    // Replications of the model are pooled beside a measurement: still a
    // bootstrap, with as many runs' observations.
    let out = tpsim(&["compare", measured, model, "--replications", "3", "--json"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let json3: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(json3["method"], "bootstrap");
    let count = |j: &serde_json::Value| {
        j["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["benchmark"] == "long")
            .unwrap()["b_count"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(count(&json3), 3 * count(&json));
    // Two measured tables: no model run at all.
    let out = tpsim(&["compare", measured, measured, "--json"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(json["seed"], serde_json::Value::Null);
    let long = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["benchmark"] == "long")
        .unwrap();
    assert_eq!(long["difference"], 0.0);
    // A table that is not an observation table is refused by name.
    std::fs::write(dir.path().join("bad.csv"), "a,b\n1,2\n").unwrap();
    let bad = dir.path().join("bad.csv");
    let out = tpsim(&["compare", bad.to_str().unwrap(), model]);
    assert_eq!(out.status, 2);
    assert!(
        out.stderr.contains("bad.csv") && out.stderr.contains("benchmark"),
        "{}",
        out.stderr
    );
}

/// A measurement of `long` and `short` on a machine: `long` 2.5 s and
/// `short` 1.0 s, four times each, at 1 user and 90 to 106 processes
/// (every process of the machine), with 0 or 2 workers of a load ramp.
fn busy_machine() -> String {
    let mut table = String::from(
        "benchmark,phase,users,processes,runnable,elapsed_s,status,load_1min,ramp_workers\n",
    );
    for (i, processes) in [90, 95, 100, 106].iter().enumerate() {
        let workers = if i < 2 { 0 } else { 2 };
        table.push_str(&format!(
            "long,measured,1,{processes},0,2.5,ok,0.5,{workers}\nshort,measured,1,{processes},0,1.0,ok,0.5,{workers}\n"
        ));
    }
    table
}

/// The busy machine's table and the model of it, written in `dir`: their
/// paths.
fn busy_and_modelled(dir: &std::path::Path) -> (String, String) {
    let measured = dir.join("probe.csv");
    std::fs::write(&measured, busy_machine()).unwrap();
    let model = dir.join("model.toml");
    std::fs::write(&model, modelled()).unwrap();
    let path = |p: std::path::PathBuf| p.to_str().unwrap().to_string();
    (path(measured), path(model))
}

#[test]
fn a_comparison_that_meets_at_no_level_is_refused_saying_each_sides_levels() {
    let dir = tempfile::tempdir().unwrap();
    let (measured, model) = busy_and_modelled(dir.path());
    let (measured, model) = (measured.as_str(), model.as_str());
    let out_dir = dir.path().join("out");
    let out_arg = out_dir.to_str().unwrap();
    let refused = |args: &[&str]| {
        let out = tpsim(args);
        assert_eq!(out.status, 2, "{args:?}: {}", out.stdout);
        assert!(out.stdout.is_empty() && !out_dir.exists(), "{args:?}");
        out.stderr
    };
    // The model counts its own processes (none), the machine all of its.
    let apart = refused(&[
        "compare",
        measured,
        model,
        "--by",
        "processes",
        "--out",
        out_arg,
    ]);
    assert!(
        apart.contains(&format!(
            "{measured}: the measurement's levels of processes are 90, 95, 100, 106; {model}: the model's are 0; no level in common: choose another --by (both have users and runnable)"
        )),
        "{apart}"
    );
    // By users they meet at 1.
    let out = tpsim(&["compare", measured, model, "--json"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    // A model's probe notes no load average, and the ramp's workers only
    // with `probe.ramp`.
    for by in ["ramp_workers", "load_1min"] {
        let lacking = refused(&["compare", measured, model, "--by", by]);
        assert!(
            lacking.contains(&format!(
                "{model}: --by {by}: this model's probe notes users, processes and runnable, not {by}"
            )),
            "{lacking}"
        );
    }
    // Two measurements by the ramp's workers: levels in common; and a
    // table without the column, named.
    let out = tpsim(&[
        "compare",
        measured,
        measured,
        "--by",
        "ramp_workers",
        "--json",
    ]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(json["index"], "ramp_workers");
    let levels: Vec<f64> = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["level"].as_f64().unwrap())
        .collect();
    assert_eq!(levels, [0.0, 2.0, 0.0, 2.0]);
    let plain = dir.path().join("plain.csv");
    std::fs::write(
        &plain,
        "benchmark,phase,users,processes,elapsed_s\nlong,measured,1,0,2.5\n",
    )
    .unwrap();
    let plain = plain.to_str().unwrap();
    let missing = refused(&["compare", measured, plain, "--by", "ramp_workers"]);
    assert!(
        missing.contains(&format!(
            "{plain}: --by ramp_workers: no column `ramp_workers` in the header"
        )),
        "{missing}"
    );
    // Two measurements, each at its own levels; then one level only,
    // where a chart's curve needs two.
    let low = dir.path().join("low.csv");
    std::fs::write(&low, busy_machine().replace(",0.5,", ",3.0,")).unwrap();
    let low = low.to_str().unwrap();
    let apart = refused(&["compare", measured, low, "--by", "load_1min"]);
    assert!(
        apart.contains(&format!(
            "{measured}: the first measurement's levels of load_1min are 1; {low}: the second measurement's are 3; no level in common: choose another --by (both have users, processes, runnable and ramp_workers)"
        )),
        "{apart}"
    );
    let flat = refused(&["compare", measured, model, "--out", out_arg]);
    assert!(
        flat.contains(&format!(
            "{measured} and {model}: every benchmark is at one level of users only (1)"
        )),
        "{flat}"
    );
    // No benchmark in common.
    let other = dir.path().join("other.csv");
    std::fs::write(
        &other,
        busy_machine().replace("long", "ls").replace("short", "cc"),
    )
    .unwrap();
    let other = other.to_str().unwrap();
    let none = refused(&["compare", other, model]);
    assert!(
        none.contains(&format!(
            "{other}: the measurement's benchmarks are ls, cc; {model}: the model's are long, short; no benchmark in common: nothing to compare"
        )),
        "{none}"
    );
}

/// The row of the benchmark `long` in a comparison's JSON.
fn long_row(json: &str) -> serde_json::Value {
    let json: serde_json::Value = serde_json::from_str(json).unwrap();
    json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["benchmark"] == "long")
        .unwrap()
        .clone()
}

#[test]
fn compare_sets_keys_of_each_side_that_is_a_scenario() {
    let dir = tempfile::tempdir().unwrap();
    let (measured, model) = busy_and_modelled(dir.path());
    let (measured, model) = (measured.as_str(), model.as_str());
    // `long` given 3 s of demand in both models: 3 s and its 1 ms switch.
    let long = "class[long].cpu={ det = { value = \"3s\" } }";
    let out = tpsim(&["compare", model, model, "--set", long, "--json"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let row = long_row(&out.stdout);
    for side in ["a_p75", "b_p75"] {
        assert!(
            (row[side].as_f64().unwrap() - 3.00100001).abs() < 1e-12,
            "{row}"
        );
    }
    // Beside a measurement, the model alone takes it.
    let out = tpsim(&["compare", measured, model, "--set", long, "--json"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let row = long_row(&out.stdout);
    assert_eq!(row["a_p75"], 2.5);
    assert!((row["b_p75"].as_f64().unwrap() - 3.00100001).abs() < 1e-12);
    // Refused: a key the model lacks, naming it and the file; settings
    // with no scenario to take them; two seeds.
    for (args, expected) in [
        (
            vec!["compare", measured, model, "--set", "probe.slept=1s"],
            format!("--set probe.slept=1s: {model}: probe.slept: is not a key here"),
        ),
        (
            vec!["compare", measured, measured, "--set", "seed=2"],
            format!(
                "--set: {measured} and {measured} are both measured tables, and --set applies to a scenario"
            ),
        ),
        (
            vec!["compare", model, model, "--seed", "1", "--set", "seed=2"],
            "--seed and --set seed=... both set the master seed".to_string(),
        ),
    ] {
        let out = tpsim(&args);
        assert_eq!(out.status, 2, "{args:?}");
        assert!(out.stderr.contains(&expected), "{args:?}: {}", out.stderr);
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn a_probe_only_scenario_says_once_that_its_users_typed_nothing() {
    // host-2cpu's user never types: the probe's benchmarks are all that is
    // measured, which is said once and is no alarm.
    let out = tpsim(&[
        "run",
        "scenarios/host-2cpu.toml",
        "--set",
        "run.end_time=40s",
    ]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert_eq!(
        out.stderr.trim(),
        "tpsim: note: scenarios/host-2cpu.toml: the users completed no command after the warm-up: only the probe's benchmarks were measured"
    );
    // Without its probe the same users are a run that measured nothing.
    let bare = tpsim(&[
        "run",
        "scenarios/host-2cpu.toml",
        "--set",
        "run.end_time=40s",
        "--no-probe",
    ]);
    assert!(bare.stderr.contains("likely cause"), "{}", bare.stderr);
}

/// A probe table measured by `tpsim probe` on a two-processor machine: a
/// processor-bound loop and `/bin/true`, a ramp of 0, 1 and 2 processor
/// loops held 10 s each (`--ramp cpu:0,1,2@10s`).
const RAMP_TABLE: &str = "tests/it/fixtures/host-ramp.csv";

/// Each benchmark's mean user + system time at `workers` in `table`'s
/// rows whose status is ok.
fn mean_demands(
    rows: &[std::collections::HashMap<String, String>],
    workers: &str,
) -> Vec<(String, f64)> {
    let mut sums: Vec<(String, f64, usize)> = Vec::new();
    for r in rows
        .iter()
        .filter(|r| r["ramp_workers"] == workers && r["status"] == "ok")
    {
        let cpu: f64 = r["user_s"].parse::<f64>().unwrap() + r["system_s"].parse::<f64>().unwrap();
        match sums.iter_mut().find(|s| s.0 == r["benchmark"]) {
            Some(s) => {
                s.1 += cpu;
                s.2 += 1;
            }
            None => sums.push((r["benchmark"].clone(), cpu, 1)),
        }
    }
    sums.into_iter()
        .map(|(b, sum, n)| (b, sum / n as f64))
        .collect()
}

/// The demand the scenario `text` gives class `class` \[s\].
fn demand_of(text: &str, class: &str) -> f64 {
    let at = text.find(&format!("name = \"{class}\"")).unwrap();
    let line = text[at..].lines().nth(1).unwrap();
    let value = line.split('"').nth(1).unwrap();
    let ms = value.strip_suffix("ms").unwrap();
    ms.parse::<f64>().unwrap() / 1e3
}

#[test]
fn model_writes_a_host_s_scenario_that_compare_puts_beside_its_table() {
    let dir = tempfile::tempdir().unwrap();
    let host = dir.path().join("host.toml");
    let host = host.to_str().unwrap();
    let out = tpsim(&["model", RAMP_TABLE, "--out", host, "--cpus", "2"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("2 benchmarks, 2 processors, a ramp of 3 steps"),
        "{}",
        out.stdout
    );
    assert_eq!(tpsim(&["check", host]).status, 0);
    let text = std::fs::read_to_string(host).unwrap();
    // The values the table gives, each with its origin.
    for (benchmark, demand) in mean_demands(&rows(Path::new(RAMP_TABLE)), "0") {
        let written = demand_of(&text, &benchmark);
        assert!(
            (written - demand).abs() < 1e-9,
            "{benchmark}: {written} against {demand}"
        );
    }
    assert!(
        text.contains("cpus = 2                      # given: --cpus"),
        "{text}"
    );
    assert!(text.contains("workers = [0, 1, 2], hold = \"10."), "{text}");
    // One command: the measurement and its model, step by step.
    let compared = tpsim(&[
        "compare",
        RAMP_TABLE,
        host,
        "--by",
        "ramp_workers",
        "--json",
    ]);
    assert_eq!(compared.status, 0, "{}", compared.stderr);
    let json: serde_json::Value = serde_json::from_str(&compared.stdout).unwrap();
    let levels: std::collections::BTreeSet<u64> = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["level"].as_f64().unwrap() as u64)
        .collect();
    assert_eq!(levels.into_iter().collect::<Vec<_>>(), [0, 1, 2]);

    // Without the ramp's column: no ramp, and the model's probe notes no
    // workers to compare by.
    let table = std::fs::read_to_string(RAMP_TABLE).unwrap();
    let drop_column = |text: &str, column: usize| -> String {
        text.lines()
            .map(|l| {
                let mut f: Vec<&str> = l.split(',').collect();
                f.remove(column);
                f.join(",") + "\n"
            })
            .collect()
    };
    let workers = table
        .lines()
        .next()
        .unwrap()
        .split(',')
        .position(|c| c == "ramp_workers")
        .unwrap();
    let plain = dir.path().join("plain.csv");
    let first_step: String = table
        .lines()
        .filter(|l| l.starts_with("benchmark") || l.split(',').nth(workers) == Some("0"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&plain, drop_column(&first_step, workers)).unwrap();
    let quiet = dir.path().join("quiet.toml");
    let out = tpsim(&[
        "model",
        plain.to_str().unwrap(),
        "--out",
        quiet.to_str().unwrap(),
        "--cpus",
        "2",
    ]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let text = std::fs::read_to_string(&quiet).unwrap();
    assert!(!text.contains("ramp ="), "{text}");
    let refused = tpsim(&[
        "compare",
        plain.to_str().unwrap(),
        quiet.to_str().unwrap(),
        "--by",
        "ramp_workers",
    ]);
    assert_eq!(refused.status, 2, "{}", refused.stderr);

    // Failed runs are left out, and said to be.
    let failing = table.replacen(",0,ok,", ",0,timeout,", 3);
    let failed = dir.path().join("failed.csv");
    std::fs::write(&failed, &failing).unwrap();
    let some = dir.path().join("some.toml");
    let out = tpsim(&[
        "model",
        failed.to_str().unwrap(),
        "--out",
        some.to_str().unwrap(),
        "--cpus",
        "2",
    ]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let text = std::fs::read_to_string(&some).unwrap();
    assert!(text.contains("(3 left out by their status)"), "{text}");
    let rows_left = rows(&failed);
    for (benchmark, demand) in mean_demands(&rows_left, "0") {
        assert!(
            (demand_of(&text, &benchmark) - demand).abs() < 1e-9,
            "{benchmark}"
        );
    }
}

#[test]
fn model_refuses_what_cannot_make_a_model_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("host.toml");
    let out = out.to_str().unwrap();
    let lacking = dir.path().join("lacking.csv");
    std::fs::write(&lacking, "benchmark,start_s\ntrue,1\n").unwrap();
    let lacking = lacking.to_str().unwrap();
    for (args, says) in [
        (
            vec!["model", lacking, "--out", out],
            format!("{lacking}: no column elapsed_s"),
        ),
        (
            vec!["model", RAMP_TABLE, "--out", out, "--cpus", "0"],
            "--cpus: must be at least 1".to_string(),
        ),
        (
            vec!["model", RAMP_TABLE, "--out", dir.path().to_str().unwrap()],
            "a directory; give the scenario file to write".to_string(),
        ),
        (
            vec!["model", RAMP_TABLE, "--out", out, "--name", "a\tb"],
            "--name \"a".to_string(),
        ),
        (
            vec!["model", "no-such.csv", "--out", out],
            "no-such.csv".to_string(),
        ),
    ] {
        let o = tpsim(&args);
        assert_eq!(o.status, 2, "{args:?}: {}", o.stderr);
        assert!(o.stderr.contains(&says), "{args:?}: {}", o.stderr);
        assert!(!Path::new(out).exists(), "{args:?} wrote {out}");
    }
}

#[test]
fn a_real_probe_with_a_two_step_ramp_is_modelled_and_compared_step_by_step() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("measured");
    let (status, stderr) = probe(
        &out,
        &[
            "--bench",
            "loop=i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done",
            "--sleep",
            "100ms",
            "--duration",
            "4s",
            "--ramp",
            "cpu:0,1@2s",
            "--min-uid",
            "0",
        ],
    );
    assert_eq!(status, 0, "{stderr}");
    let table = out.join("probe.csv");
    let host = dir.path().join("host.toml");
    let (table, host) = (table.to_str().unwrap(), host.to_str().unwrap());
    let modelled = tpsim(&["model", table, "--out", host]);
    assert_eq!(modelled.status, 0, "{}", modelled.stderr);
    let text = std::fs::read_to_string(host).unwrap();
    assert!(text.contains("workers = [0, 1]"), "{text}");
    let compared = tpsim(&[
        "compare",
        table,
        host,
        "--by",
        "ramp_workers",
        "--out",
        dir.path().join("compared").to_str().unwrap(),
    ]);
    assert_eq!(compared.status, 0, "{}", compared.stderr);
    // Both steps in common, in a table and a chart.
    assert!(compared.stdout.contains("| 0 "), "{}", compared.stdout);
    assert!(compared.stdout.contains("| 1 "), "{}", compared.stdout);
    let files: Vec<String> = std::fs::read_dir(dir.path().join("compared"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(files.iter().any(|f| f.ends_with(".svg")), "{files:?}");
}

/// A model of the fixture's host with an outside load of two loops each
/// busy five sixths of the time, written into `dir`; its path.
fn host_with_outside_load(dir: &Path) -> String {
    let host = dir.join("host.toml");
    let out = tpsim(&[
        "model",
        RAMP_TABLE,
        "--out",
        host.to_str().unwrap(),
        "--cpus",
        "2",
    ]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let mut text = std::fs::read_to_string(&host).unwrap();
    text.push_str(
        r#"
[[class]]
name = "outside-work"
cpu = { det = { value = "10ms" } }
size = "64KiB"

[[background]]
name = "outside"
class = "outside-work"
count = 2
sleep = { exp = { mean = "2ms" } }
"#,
    );
    std::fs::write(&host, text).unwrap();
    host.to_str().unwrap().to_string()
}

const LONGER: [&str; 4] = [
    "--set",
    "run.end_time=400s",
    "--set",
    "system.scheduler=round-robin",
];

#[test]
fn calibration_fits_back_the_granularity_and_outside_load_a_table_was_made_with() {
    let dir = tempfile::tempdir().unwrap();
    let host = host_with_outside_load(dir.path());
    // The "measurement": the model itself under round robin at a 20 ms
    // quantum and two outside loops, on seed 7. The values tried lie a
    // decade apart, where a quantum changes how long a short benchmark
    // waits; the fit finds the truth under other seed pairs too (3/51,
    // 11/77, 23/5, 31/8, 2/64 were tried).
    let measured = dir.path().join("measured");
    let mut args = vec!["run", &host, "--seed", "7", "--set", "system.quantum=20ms"];
    args.extend(LONGER);
    args.extend(["--out", measured.to_str().unwrap()]);
    let out = tpsim(&args);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let table = measured.join("probe.csv");
    // Fitted on other random numbers, over values on both sides of each.
    let fitted = dir.path().join("fitted");
    let mut args = vec![
        "calibrate",
        table.to_str().unwrap(),
        &host,
        "--by",
        "ramp_workers",
        "--seed",
        "99",
        "--replications",
        "4",
        "--fit",
        "system.quantum=2ms,20ms,200ms",
        "--fit",
        "background[outside].count=1..3",
        "--json",
        "--out",
        fitted.to_str().unwrap(),
    ];
    args.extend(LONGER);
    let out = tpsim(&args);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let estimates = json["estimates"].as_array().unwrap();
    let (quantum, count) = (&estimates[0], &estimates[1]);
    assert_eq!(quantum["best"], "20ms", "{quantum}");
    assert_eq!(count["best"], "2", "{count}");
    for (estimate, truth) in [(quantum, "20ms"), (count, "2")] {
        let as_good: Vec<&str> = estimate["as_good"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert!(as_good.contains(&truth), "{estimate}");
    }
    assert_eq!(json["refused"].as_array().unwrap().len(), 0);
    // 3 x 3 points, 4 replications each; the levels at the best point.
    let losses = std::fs::read_to_string(fitted.join("losses.csv")).unwrap();
    assert_eq!(losses.lines().count(), 1 + 9 * 4);
    assert!(fitted.join("levels.csv").exists());
}

#[test]
fn calibration_refuses_keys_the_data_cannot_tell_apart_and_bad_fits() {
    let dir = tempfile::tempdir().unwrap();
    let host = host_with_outside_load(dir.path());
    let fitted = dir.path().join("fitted");
    let calibrate = |fit: &str| {
        let mut args = vec![
            "calibrate",
            RAMP_TABLE,
            &host,
            "--by",
            "ramp_workers",
            "--replications",
            "3",
            "--fit",
            fit,
            "--out",
            fitted.to_str().unwrap(),
        ];
        args.extend(LONGER);
        tpsim(&args)
    };
    // Memory that is never short: its size changes nothing, and every
    // value fits as well as the best.
    let out = calibrate("memory.kernel=64MiB,128MiB,256MiB");
    assert_eq!(out.status, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("memory.kernel: the data cannot tell its values apart"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("as good as the best"), "{}", out.stdout);
    assert!(!fitted.exists());
    // One replication cannot tell points apart.
    let out = tpsim(&[
        "calibrate",
        RAMP_TABLE,
        &host,
        "--replications",
        "1",
        "--fit",
        "system.quantum=2ms,8ms",
    ]);
    assert_eq!(out.status, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("--replications: a fit needs at least 2"),
        "{}",
        out.stderr
    );
    // A key the scenario does not have, a value it refuses, no `=`.
    for (fit, says) in [
        ("system.granularity=1ms,2ms", "system.granularity"),
        ("system.quantum=fast,slow", "system.quantum"),
        ("system.quantum", "expected KEY=VALUES"),
    ] {
        let out = calibrate(fit);
        assert_eq!(out.status, 2, "{fit}: {}", out.stderr);
        assert!(out.stderr.contains(says), "{fit}: {}", out.stderr);
        assert!(!fitted.exists(), "{fit}");
    }
}
