//! The hard edges a new user found: options at their limits, output
//! directories that hold a command's own inputs, output that cannot be
//! written, names and numbers that would garble a message. Each test
//! failed before its fix.

use crate::cli::{files_in, short_mm1, tpsim};
use std::path::Path;

#[test]
fn every_command_takes_every_64_bit_seed() {
    let dir = tempfile::tempdir().unwrap();
    let mm1 = short_mm1(dir.path());
    let top = u64::MAX.to_string();
    for argv in [
        vec!["run", &mm1, "--json", "--seed", &top],
        vec![
            "batch",
            &mm1,
            "--json",
            "--replications",
            "2",
            "--seed",
            &top,
        ],
        vec![
            "sweep",
            &mm1,
            "--json",
            "--replications",
            "2",
            "--set",
            "run.warmup=10s,20s",
            "--seed",
            &top,
        ],
    ] {
        let out = tpsim(&argv);
        assert_eq!(out.status, 0, "{argv:?}: {}", out.stderr);
        let value: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(value["seed"].as_u64(), Some(u64::MAX), "{argv:?}");
    }
    // Two ways of giving the seed at once is a mistake, not a precedence.
    let out = tpsim(&[
        "sweep",
        &mm1,
        "--seed",
        "3",
        "--set",
        "seed=1,2",
        "--replications",
        "2",
    ]);
    assert_eq!(out.status, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("--seed and --set seed=... both set the master seed"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_negative_number_gets_what_the_option_allows_not_advice_about_dashes() {
    let dir = tempfile::tempdir().unwrap();
    let mm1 = short_mm1(dir.path());
    for (argv, expected) in [
        (
            vec!["batch", &mm1, "--seed", "-5"],
            "invalid value '-5' for '--seed <SEED>': must be a whole number from 0 to 18446744073709551615",
        ),
        (
            vec!["batch", &mm1, "--precision", "-1"],
            "tpsim: --precision: must be a fraction between 0 and 1 (such as 0.05), got -1",
        ),
        (
            vec!["batch", &mm1, "--replications", "-2"],
            "invalid value '-2' for '--replications <R>': must be a whole number from 1 to 1000000",
        ),
        (
            vec!["batch", &mm1, "--jobs", "100000"],
            "invalid value '100000' for '--jobs <J>': must be a whole number from 1 to 256",
        ),
        (
            vec!["run", &mm1, "--seed", "-1"],
            "must be a whole number from 0 to 18446744073709551615",
        ),
    ] {
        let out = tpsim(&argv);
        assert_eq!(out.status, 2, "{argv:?}");
        assert!(out.stderr.contains(expected), "{argv:?}: {}", out.stderr);
        assert!(!out.stderr.contains("tip:"), "{argv:?}: {}", out.stderr);
    }
}

#[test]
fn merge_refuses_to_write_over_one_of_its_own_shards() {
    let dir = tempfile::tempdir().unwrap();
    let mm1 = short_mm1(dir.path());
    let shard_dir = |i: u32| dir.path().join(format!("m{i}"));
    for i in [1, 2] {
        let out = tpsim(&[
            "batch",
            &mm1,
            "--replications",
            "2",
            "--shard",
            &format!("{i}/2"),
            "--out",
            shard_dir(i).to_str().unwrap(),
        ]);
        assert_eq!(out.status, 0, "{}", out.stderr);
    }
    let first = shard_dir(1).join("shard.json");
    let before = std::fs::read(&first).unwrap();
    let second = shard_dir(2).join("shard.json");
    let out = tpsim(&[
        "merge",
        shard_dir(1).to_str().unwrap(),
        second.to_str().unwrap(),
        "--out",
        shard_dir(1).to_str().unwrap(),
    ]);
    assert_eq!(out.status, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("holds shard.json, one of this command's inputs"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read(&first).unwrap(), before, "the input is kept");
    assert_eq!(files_in(&shard_dir(1)), ["shard.json"]);
    // Elsewhere the merge goes through.
    let merged = dir.path().join("merged");
    let out = tpsim(&[
        "merge",
        shard_dir(1).to_str().unwrap(),
        second.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(out.status, 0, "{}", out.stderr);
}

#[test]
fn output_that_cannot_be_written_costs_neither_the_tables_nor_a_lock() {
    let dir = tempfile::tempdir().unwrap();
    let mm1 = short_mm1(dir.path());
    let out_dir = dir.path().join("out");
    // A directory with a file in it where stations.csv must go.
    std::fs::create_dir_all(out_dir.join("stations.csv")).unwrap();
    std::fs::write(out_dir.join("stations.csv").join("mine"), "x").unwrap();
    let out = tpsim(&["run", &mm1, "--out", out_dir.to_str().unwrap()]);
    assert_eq!(out.status, 1, "{}", out.stderr);
    assert!(out.stdout.contains("Stations"), "{}", out.stdout);
    assert!(out.stdout.contains("| jobs  | open |"), "{}", out.stdout);
    assert!(
        out.stderr.contains("cannot move stations.csv in"),
        "{}",
        out.stderr
    );
    assert!(!out_dir.join(".tpsim.lock").exists());
    // A reader of what is there is told it is not a whole set.
    let summary = out_dir.join("summary.json");
    let read = tpsim(&["capacity", summary.to_str().unwrap()]);
    assert_eq!(read.status, 2);
    assert!(
        read.stderr
            .contains("its directory holds a set of output files being written, or cut short"),
        "{}",
        read.stderr
    );
}

#[test]
fn a_run_directory_read_back_is_checked_against_its_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let mm1 = short_mm1(dir.path());
    let out_dir = dir.path().join("out");
    let out = tpsim(&["run", &mm1, "--out", out_dir.to_str().unwrap()]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let manifest = std::fs::read_to_string(out_dir.join(".tpsim-files")).unwrap();
    let names: Vec<&str> = manifest
        .lines()
        .map(|l| l.split_once("  ").unwrap().1)
        .collect();
    assert_eq!(names, ["summary.json", "stations.csv", "classes.csv"]);
    assert!(!Path::new(&out_dir.join(".tpsim.lock")).exists());
    // The check the docs tell readers to make, with coreutils' own tool.
    let checked = std::process::Command::new("sha256sum")
        .args(["--quiet", "-c", ".tpsim-files"])
        .current_dir(&out_dir)
        .status()
        .expect("sha256sum (GNU coreutils) runs");
    assert!(checked.success());
    let summary = out_dir.join("summary.json");
    let text = std::fs::read_to_string(&summary).unwrap();
    std::fs::write(&summary, text.replace("\"mm1\"", "\"mm2\"")).unwrap();
    let read = tpsim(&["capacity", out_dir.to_str().unwrap()]);
    assert_eq!(read.status, 2);
    assert!(
        read.stderr
            .contains("does not match the set of output files"),
        "{}",
        read.stderr
    );
}

#[test]
fn processor_fractions_stay_within_0_and_1_when_the_processors_never_rest() {
    // No think time and no demand: the processors do nothing but switch
    // and fault, and their busy meter's rounding once gave an idle
    // fraction of -3e-12.
    let text = std::fs::read_to_string(crate::scenario_path("thrashing-clock"))
        .unwrap()
        .replace(
            "think = { exp = { mean = \"5s\" } }",
            "think = { det = { value = \"0s\" } }",
        )
        .replace(
            "cpu = { exp = { mean = \"1s\" } }",
            "cpu = { det = { value = \"0s\" } }",
        )
        .replace("end_time = \"20000s\"", "end_time = \"300s\"")
        .replace("warmup = \"2000s\"", "warmup = \"100s\"");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("busy.toml");
    std::fs::write(&path, text).unwrap();
    let out = tpsim(&["run", path.to_str().unwrap(), "--json"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let summary: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let cpu = summary["cpu"].as_object().unwrap();
    assert!(cpu["context_switch"].as_f64().unwrap() > 0.99, "{cpu:?}");
    for (name, value) in cpu {
        if let Some(x) = value
            .as_f64()
            .filter(|_| name != "cpus" && !name.contains("mips"))
        {
            assert!((0.0..=1.0).contains(&x), "cpu.{name} = {x}");
        }
    }
}

#[test]
fn scenario_values_that_would_garble_a_run_are_refused_with_what_is_wrong() {
    use crate::cli::{assert_text_rejected, shipped};
    // A newline in the scenario's name would split the run's header line.
    assert_text_rejected(
        &shipped("mm1").replace("name = \"mm1\"", "name = \"a\\nb\""),
        &["name: \"a\\u{a}b\" has the character U+000A, which does not print"],
    );
    // Logins every femtosecond: as for any arrival rate, refused.
    let purdue = shipped("purdue-1980-paged");
    assert_text_rejected(
        &purdue.replace("per_hour = [3, 2,", "per_hour = [1e300, 2,"),
        &[
            "users.login.per_hour[0]: must be at most 3.6e12 logins an hour (a mean time between logins of at least the clock's tick of 1 ns), got 1e300",
        ],
    );
    // A window that ends before it starts says so, not that it leaves
    // the day.
    let windowed = |window: &str| {
        purdue.replace(
            "resolution = \"1s\"",
            &format!("resolution = \"1s\"\nwindow = {window}"),
        )
    };
    assert_text_rejected(
        &windowed("{ from = \"14h\", to = \"9h\" }"),
        &["probe.window: must end after it starts: from 50400 s is not before to 32400 s"],
    );
    assert_text_rejected(
        &windowed("{ from = \"9h\", to = \"9h\" }"),
        &["probe.window: must end after it starts: from 32400 s is not before to 32400 s"],
    );
    assert_text_rejected(
        &windowed("{ from = \"9h\", to = \"25h\" }"),
        &["probe.window.to: must be within the day, at most 86400 s (24h), got 90000 s"],
    );
    // A bulk store that could not move one page in the run.
    assert_text_rejected(
        &shipped("multics-mit-1975").replace("rate = \"4MB/s\"", "rate = \"1e-30MB/s\""),
        &["device[bulk-store].rate: moves a page of 4608 bytes in 4.608e27 s, longer than the run"],
    );
    // Numbers as a person writes them.
    assert_text_rejected(
        &shipped("mm1").replace("warmup = \"1000s\"", "warmup = \"-0.0018s\""),
        &[
            "run.warmup: must be a duration >= 0 and at most 10000000000 s (about 317 years), got -0.0018 s",
        ],
    );
}

#[test]
fn a_run_that_completes_nothing_says_so_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idle.toml");
    let text = crate::cli::shipped("mm1").replace("rate = \"0.8/s\"", "rate = \"1e-7/s\"");
    std::fs::write(&path, text).unwrap();
    let out = tpsim(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("the run completed no job after its warm-up")
            && out
                .stderr
                .contains("likely cause: everything idle throughout"),
        "{}",
        out.stderr
    );
    let mm1 = short_mm1(dir.path());
    let out = tpsim(&["run", &mm1]);
    assert!(!out.stderr.contains("completed no"), "{}", out.stderr);
}

#[test]
fn a_table_of_the_wrong_kind_is_told_the_columns_its_command_needs() {
    let table = |name: &str| {
        crate::scenario_path(name)
            .with_extension("csv")
            .display()
            .to_string()
    };
    for (argv, needs) in [
        (
            vec!["capacity".to_string(), table("multics-rfc103-fault-times")],
            "the table needs installation, mips, useful, processors",
        ),
        (
            vec!["fault-times".to_string(), table("multics-rfc103-capacity")],
            "the table needs reading, tav, f",
        ),
        (
            vec!["analyze".to_string(), table("multics-rfc103-capacity")],
            "the table needs benchmark, phase, users, processes, elapsed_s",
        ),
    ] {
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        let out = tpsim(&argv);
        assert_eq!(out.status, 2, "{argv:?}");
        assert!(out.stderr.contains(needs), "{argv:?}: {}", out.stderr);
    }
}

#[test]
fn a_file_that_is_one_long_line_is_not_echoed_whole() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("long.toml");
    std::fs::write(
        &scenario,
        format!("name = \"{}\" oops\n", "x".repeat(200_000)),
    )
    .unwrap();
    let table = dir.path().join("long.csv");
    std::fs::write(&table, format!("{}b\n", "a,".repeat(100_000))).unwrap();
    for argv in [
        ["check", scenario.to_str().unwrap()],
        ["analyze", table.to_str().unwrap()],
    ] {
        let out = tpsim(&argv);
        assert_eq!(out.status, 2, "{argv:?}");
        assert!(
            out.stderr.len() < 2_000,
            "{argv:?}: {} bytes",
            out.stderr.len()
        );
        assert!(
            out.stderr.lines().all(|l| l.chars().count() < 450),
            "{}",
            out.stderr
        );
    }
    let out = tpsim(&["check", scenario.to_str().unwrap()]);
    assert!(
        out.stderr.contains("line 1, column 200011"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("…xxxx"), "{}", out.stderr);
    let out = tpsim(&["analyze", table.to_str().unwrap()]);
    assert!(
        out.stderr.contains("(100001 columns in all)"),
        "{}",
        out.stderr
    );
}

#[test]
fn percentiles_lie_within_the_responses_a_run_measured() {
    // D/D/1: every response is exactly the 1.3 s service; the percentiles
    // were read at the top of their bucket, 1.300234 s.
    let text = crate::cli::shipped("md1")
        .replace(
            "{ exp = { rate = \"0.8/s\" } }",
            "{ det = { value = \"2s\" } }",
        )
        .replace(
            "{ det = { value = \"1s\" } }",
            "{ det = { value = \"1.3s\" } }",
        );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dd1.toml");
    std::fs::write(&path, text).unwrap();
    let out = tpsim(&["run", path.to_str().unwrap(), "--json"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let summary: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let class = &summary["classes"][0];
    let service = 1.3;
    assert_eq!(class["response_min"].as_f64(), Some(service), "{class}");
    assert_eq!(class["response_max"].as_f64(), Some(service), "{class}");
    // Identical responses: an interval of width 0 about them.
    assert_eq!(class["mean_response_ci95"].as_f64(), Some(0.0), "{class}");
    assert_eq!(
        class["mean_response_ci95_low"].as_f64(),
        Some(service),
        "{class}"
    );
    for p in ["p50", "p75", "p90", "p99"] {
        assert_eq!(
            class[format!("response_{p}")].as_f64(),
            Some(service),
            "{p}: {class}"
        );
    }
}

#[test]
fn identical_responses_have_an_interval_of_width_zero() {
    // D/D/1, every response the service time: the batch means equal it
    // but for rounding, which once made some values "correlated batches"
    // (1.3 s, 12.345678 s) and others an interval of width 0 (0.777 s,
    // 0.3333 s).
    for service in ["1.3", "12.345678", "0.777", "0.3333"] {
        let text = crate::cli::shipped("md1")
            .replace(
                "{ exp = { rate = \"0.8/s\" } }",
                "{ det = { value = \"20s\" } }",
            )
            .replace(
                "{ det = { value = \"1s\" } }",
                &format!("{{ det = {{ value = \"{service}s\" }} }}"),
            );
        let run = &crate::replicate(&crate::inline(&text), 1, 50_000.0)[0];
        let class = &run.classes[0];
        let exact: f64 = service.parse().unwrap();
        assert_eq!(class.mean_response, Some(exact), "{service}: {class:?}");
        assert_eq!(class.mean_response_ci95, Some(0.0), "{service}: {class:?}");
        assert_eq!(
            (class.mean_response_ci95_low, class.mean_response_ci95_high),
            (Some(exact), Some(exact)),
            "{service}"
        );
        assert_eq!(class.mean_response_ci95_note, None, "{service}");
        assert_eq!(
            (class.response_min, class.response_max),
            (Some(exact), Some(exact)),
            "{service}"
        );
    }
}

/// A signal is heard while a run is being set up, not only once its
/// events flow: a caller that says stop at its first chance gets an
/// interrupted run that handled no event, from a network of a million
/// terminals and from a time-sharing system of 100,000. (Before, the
/// whole population was set up first, over a second for ten million
/// terminals, and the run then handled events until its first check.)
#[test]
fn a_run_is_stoppable_while_its_terminals_are_set_up() {
    use tpsim::models::summary::StoppedBy;
    let mut net = crate::scenario("repairman");
    let tpsim::models::network::ClassKind::Closed { terminals, .. } = &mut net.classes[0].kind
    else {
        panic!("repairman.toml's class is closed");
    };
    *terminals = 1_000_000;
    let mut asked = 0;
    let run = tpsim::models::simulate_with_progress(&net, 1, 0, |_| {
        asked += 1;
        false
    });
    assert_eq!(run.summary.stopped_by, StoppedBy::Interrupted);
    assert_eq!((run.summary.events, asked), (0, 1));

    let path = crate::scenario_path("thrashing");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("terminals = 16", "terminals = 100000");
    let sys = tpsim::models::load_system("thrashing.toml", &text).unwrap();
    let mut asked = 0;
    let run = tpsim::models::system::simulate_with_progress(&sys, 1, 0, |_| {
        asked += 1;
        false
    });
    assert_eq!(run.summary.stopped_by, StoppedBy::Interrupted);
    assert_eq!((run.summary.events, asked), (0, 1));
}
