//! The terminal probe: a background script inside the model that runs
//! benchmarks in turn, notes the load when each starts, and times it. Its
//! observations to the nanosecond on a deterministic system, its window
//! and `time`'s resolution, its agreement with the class statistics of the
//! same commands, and the load it adds.

use crate::{assert_above, seed};
use tpsim::models::System;
use tpsim::models::summary::Summary;
use tpsim::models::system::{Observation, simulate};

fn load(text: &str) -> System {
    tpsim::models::load_system("probe.toml", text).unwrap()
}

/// One user who never stops thinking, and a probe that runs a 2 s and a
/// 1 s benchmark, then sleeps 10 s; exec reads images in nanoseconds, and
/// every dispatch costs a 1 ms switch.
pub(crate) const TIMED: &str = r#"
    name = "timed"
    [run]
    end_time = "100s"
    [system]
    quantum = "1s"
    context_switch = "1ms"
    [memory]
    policy = "swapping"
    size = "1MiB"
    page = "1KiB"
    device = "disk"
    programs = "programs"
    [[device]]
    name = "programs"
    rate = "1000GB/s"
    [[device]]
    name = "disk"
    rate = "1MB/s"
    [users]
    terminals = 1
    think = { det = { value = "100000s" } }
    commands = [{ class = "edit", weight = 1 }]
    [[class]]
    name = "edit"
    cpu = { det = { value = "0.1s" } }
    size = "10KiB"
    [[class]]
    name = "long"
    cpu = { det = { value = "2s" } }
    size = "10KiB"
    [[class]]
    name = "short"
    cpu = { det = { value = "1s" } }
    size = "10KiB"
    [probe]
    benchmarks = ["long", "short"]
    sleep = "10s"
"#;

fn observations(text: &str) -> (Vec<Observation>, Summary) {
    let run = simulate(&load(text), 1, 0);
    (run.observations, run.summary)
}

#[test]
fn the_probe_times_its_benchmarks_to_the_nanosecond() {
    // A cycle: `long` from its start to 1 ms + 2 s later, then `short`,
    // 1.001 s, then 10 s of sleep: cycles start every 13.002 s, and the
    // eighth, at 91.014 s, ends at 94.016 s, before the end of the run.
    let (obs, summary) = observations(TIMED);
    assert_eq!(obs.len(), 16);
    for (i, o) in obs.iter().enumerate() {
        let long = i % 2 == 0;
        let cycle = 13.002 * (i / 2) as f64;
        let (start, elapsed) = if long {
            (cycle, 2.001)
        } else {
            (cycle + 2.001, 1.001)
        };
        assert_eq!(o.benchmark, if long { "long" } else { "short" });
        assert!((o.start - start).abs() < 1e-6, "{o:?}");
        assert!((o.elapsed - elapsed).abs() < 1e-6, "{o:?}");
        assert!((o.user - (elapsed - 0.001)).abs() < 1e-9, "{o:?}");
        assert!((o.system - 0.001).abs() < 1e-9, "{o:?}");
        // One user logged in, thinking: no user process, nothing ready,
        // all of memory free.
        assert_eq!((o.users, o.processes, o.runnable), (1, 0, 0), "{o:?}");
        assert_eq!(o.free_memory, 1 << 20, "{o:?}");
        assert!(!o.warmup);
    }
    // The probe's own load: 3 s of every 13.002 s cycle on the processor.
    let probe = summary.probe.unwrap();
    assert_eq!(probe.observations, 16);
    let busy = 8.0 * 3.002 / 100.0;
    assert!((probe.cpu_share - busy).abs() < 1e-6, "{probe:?}");
    // Without it the processor is idle.
    let mut quiet = load(TIMED);
    quiet.probe = None;
    let run = simulate(&quiet, 1, 0);
    assert!(run.observations.is_empty() && run.summary.probe.is_none());
    assert_eq!(run.summary.cpu.unwrap().idle, 1.0);
}

#[test]
fn the_probe_s_own_load_counts_its_benchmarks_only() {
    // TIMED with its user typing one `edit` at 50 s, while the probe
    // sleeps (its fourth cycle ends at 42.008 s, the fifth starts at
    // 52.008 s): the edit's 1 ms + 0.1 s on the processor are the user's
    // load, not the probe's, and so is the read of its image.
    let text = TIMED.replace("value = \"100000s\"", "value = \"50s\"");
    assert_ne!(text, TIMED);
    let (obs, summary) = observations(&text);
    assert_eq!(obs.len(), 16);
    let probe = summary.probe.unwrap();
    assert!(
        (probe.cpu_share - 8.0 * 3.002 / 100.0).abs() < 1e-6,
        "{probe:?}"
    );
    // Each process reads its image in one request: sixteen benchmarks'
    // reads of the seventeen.
    assert_eq!(probe.io_share, 16.0 / 17.0, "{probe:?}");
    let cpu = summary.cpu.unwrap();
    let busy = (8.0 * 3.002 + 0.101) / 100.0;
    assert!(
        (cpu.user + cpu.context_switch - busy).abs() < 1e-6,
        "{cpu:?}"
    );
}

#[test]
fn time_truncates_to_its_resolution_and_the_window_holds_cycles_back() {
    let (obs, _) =
        observations(&TIMED.replace("sleep = \"10s\"", "sleep = \"10s\"\nresolution = \"1s\""));
    assert_eq!(obs.len(), 16);
    assert!(
        obs.iter()
            .all(|o| o.elapsed == if o.benchmark == "long" { 2.0 } else { 1.0 })
    );
    // Cycles start between midnight and 30 s past: at 0, 13.002 and 26.004
    // s; the fourth would start at 39.006 s, so it waits for the next day.
    let (obs, _) = observations(&TIMED.replace(
        "sleep = \"10s\"",
        "sleep = \"10s\"\nwindow = { from = \"0s\", to = \"30s\" }",
    ));
    assert_eq!(obs.len(), 6);
    // Run for a day and 100 s: the next day's window opens at 86,400 s
    // and holds the same three cycles.
    let (obs, _) = observations(
        &TIMED
            .replace("end_time = \"100s\"", "end_time = \"86500s\"")
            .replace(
                "sleep = \"10s\"",
                "sleep = \"10s\"\nwindow = { from = \"0s\", to = \"30s\" }",
            ),
    );
    assert_eq!(obs.len(), 12);
    assert!((obs[6].start - 86_400.0).abs() < 1e-9, "{:?}", obs[6]);
    // A window that opens at 50 s: cycles at 50, 63.002, ..., 89.006 s.
    let (obs, _) = observations(&TIMED.replace(
        "sleep = \"10s\"",
        "sleep = \"10s\"\nwindow = { from = \"50s\", to = \"24h\" }",
    ));
    assert_eq!(obs.len(), 8);
    assert!((obs[0].start - 50.0).abs() < 1e-9, "{:?}", obs[0]);
    // A benchmark may fix its demand: the 0.1 s edit run as a 3 s job.
    let (obs, _) = observations(&TIMED.replace(
        "benchmarks = [\"long\", \"short\"]",
        "benchmarks = [{ class = \"edit\", cpu = \"3s\" }]",
    ));
    assert_eq!(obs.len(), 8);
    assert!(
        obs.iter()
            .all(|o| (o.elapsed - 3.001).abs() < 1e-6 && o.benchmark == "edit")
    );
}

/// Eight users running one kind of job, with a probe that runs the same job
/// and sleeps as long as a user thinks: the probe is a ninth user in all
/// but name, so its benchmarks must take what the users' jobs take.
const TWIN: &str = r#"
    name = "twin"
    seed = 21
    [run]
    end_time = "40000s"
    warmup = "1000s"
    [system]
    quantum = "100ms"
    context_switch = "1ms"
    [memory]
    policy = "swapping"
    size = "4MiB"
    page = "1KiB"
    device = "disk"
    [[device]]
    name = "disk"
    seek = { uniform = { low = "10ms", high = "50ms" } }
    rpm = 3600
    rate = "1MB/s"
    [users]
    terminals = 8
    think = { exp = { mean = "10s" } }
    commands = [{ class = "job", weight = 1 }]
    [[class]]
    name = "job"
    cpu = { exp = { mean = "0.8s" } }
    io = { count = 4, size = "1KiB", device = "disk" }
    size = "20KiB"
    [probe]
    benchmarks = ["job"]
    sleep = { exp = { mean = "10s" } }
"#;

#[test]
fn the_probe_measures_what_the_users_get_and_adds_its_own_load() {
    const R: u64 = 12;
    let with = load(TWIN);
    let mut without = with.clone();
    without.probe = None;
    let run = |sys: &System, r| simulate(sys, seed(sys.settings.seed), r);
    let mut agreement = Vec::new();
    let mut effect = Vec::new();
    let mut mean_response = 0.0;
    for r in 0..R {
        let (a, b) = (run(&with, r), run(&without, r));
        let users = a.summary.classes[0].mean_response.unwrap();
        let measured: Vec<f64> = a
            .observations
            .iter()
            .filter(|o| !o.warmup)
            .map(|o| o.elapsed)
            .collect();
        let probe = measured.iter().sum::<f64>() / measured.len() as f64;
        agreement.push(probe - users);
        mean_response += users / R as f64;
        // The probe effect, on common random numbers: the same users wait
        // longer beside the probe.
        let alone = b.summary.classes[0].mean_response.unwrap();
        effect.push((users / alone).ln());
    }
    // Within 5% of the users' mean response (about 1.8 s), and covering 0.
    let ci = crate::interval("probe - users: mean response", &agreement);
    assert!(
        ci.contains(0.0) && ci.half_width < 0.05 * mean_response,
        "{:.4} ± {:.4} against {mean_response:.3}: {agreement:?}",
        ci.mean,
        ci.half_width
    );
    assert_above("ln R(with probe) / R(without)", &effect, 0.0);
}

#[test]
fn under_swapping_the_probe_holds_its_benchmark_s_private_image_and_notes_what_runs() {
    // TIMED with 4 KiB of each benchmark's 10 KiB image shared text, and
    // the user typing one `edit` at 52 s, which is on the processor (1 ms
    // + 0.1 s) when the fifth cycle starts at 52.008 s: that cycle's first
    // observation notes one user process, running, and its image's 10 KiB
    // taken from free memory. Sampled every second, the benchmark holds its
    // 6 KiB of private image for about 3 s of every 13.002 s cycle.
    let text = TIMED
        .replace("value = \"100000s\"", "value = \"52s\"")
        .replace(
            "cpu = { det = { value = \"2s\" } }\n    size = \"10KiB\"",
            "cpu = { det = { value = \"2s\" } }\n    size = \"10KiB\"\n    text = \"4KiB\"",
        )
        .replace(
            "cpu = { det = { value = \"1s\" } }\n    size = \"10KiB\"",
            "cpu = { det = { value = \"1s\" } }\n    size = \"10KiB\"\n    text = \"4KiB\"",
        )
        .replace("[run]", "[run]\nload_interval = \"1s\"");
    assert_eq!(text.matches("text = ").count(), 2);
    let (obs, summary) = observations(&text);
    let noted: Vec<(u32, u32, u32, u64)> = obs
        .iter()
        .map(|o| (o.users, o.processes, o.runnable, o.free_memory))
        .collect();
    let fifth = obs
        .iter()
        .position(|o| (o.start - 52.008).abs() < 1e-6)
        .expect("a cycle starts at 52.008 s");
    for (i, n) in noted.iter().enumerate() {
        let expected = if i == fifth {
            (1, 1, 1, (1 << 20) - 10 * 1024)
        } else {
            (1, 0, 0, 1 << 20)
        };
        assert_eq!(*n, expected, "observation {i}: {:?}", obs[i]);
    }
    let share = summary.probe.unwrap().memory_share;
    let held = 6.0 / 1024.0 * 3.0 / 13.0;
    assert!((share - held).abs() < 0.1 * held, "{share} vs {held}");
}

#[test]
fn under_paging_the_probe_notes_free_frames_and_holds_its_benchmark_s_pages() {
    // TIMED paged: each benchmark touches its ten pages at once and faults
    // them in (about 1 ms each) before it runs; at every benchmark's start
    // the other has exited and freed its frames, so all 1,024 frames are
    // free. Sampled every second, the probe's benchmark holds its ten pages
    // for about 3 s of every 13.002 s cycle.
    let text = TIMED
        .replace("policy = \"swapping\"", "policy = \"paging\"")
        .replace("size = \"10KiB\"", "size = \"10KiB\"\nlocality = \"sweep\"")
        .replace("[run]", "[run]\nload_interval = \"1s\"");
    let (obs, summary) = observations(&text);
    assert_eq!(obs.len(), 16);
    for o in &obs {
        assert_eq!(o.free_memory, 1 << 20, "{o:?}");
    }
    let share = summary.probe.unwrap().memory_share;
    let held = 10.0 / 1024.0 * 3.0 / 13.0;
    assert!((share - held).abs() < 0.1 * held, "{share} vs {held}");
}
