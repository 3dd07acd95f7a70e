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

/// TIMED run as the study's shell script: a shell whose every line costs
/// 20 ms, a `time` that runs 5 ms before it forks, images read in exactly
/// 10 ns.
fn scripted() -> String {
    let text = TIMED
        .replace("rate = \"1000GB/s\"", "rate = \"1024GB/s\"")
        .replace(
            "sleep = \"10s\"",
            "sleep = \"10s\"\nscript = { shell = \"sh\", time = \"time\" }",
        )
        + r#"
    [[class]]
    name = "sh"
    cpu = { det = { value = "20ms" } }
    size = "10KiB"
    [[class]]
    name = "time"
    cpu = { det = { value = "5ms" } }
    size = "10KiB"
"#;
    assert_eq!(text.matches("1024GB/s").count(), 1);
    assert_eq!(text.matches("script = ").count(), 1);
    text
}

#[test]
fn the_probe_as_a_script_times_exec_and_time_s_return_to_the_nanosecond() {
    let (obs, _) = observations(&scripted());
    let ns = |x: f64| (x * 1e9).round() as i64;
    // A line of the shell: a 1 ms switch and 20 ms; `time`: its image
    // (10 ns), a switch and 5 ms; then it notes the time and forks the
    // benchmark: its image (10 ns), a switch and its demand; then `time`
    // returns from its wait and reads the clock as soon as it runs: one
    // more switch.
    let line = 0.021;
    let time = 10e-9 + 0.006;
    let long = 10e-9 + 0.001 + 2.0 + 0.001;
    let short = 10e-9 + 0.001 + 1.0 + 0.001;
    // The first cycle also execs the shell (10 ns); later ones find it
    // asleep after its `sleep`.
    let cycle = |first: bool| {
        let exec = if first { 10e-9 } else { 0.0 };
        let long_start = exec + line + time;
        let short_start = long_start + long + line + time;
        let end = short_start + short + line;
        (long_start, short_start, end)
    };
    let (long_start, short_start, first_end) = cycle(true);
    let (o1, o2) = (&obs[0], &obs[1]);
    assert_eq!(
        (o1.benchmark.as_str(), o2.benchmark.as_str()),
        ("long", "short")
    );
    assert_eq!(ns(o1.start), ns(long_start), "{o1:?}");
    assert_eq!(ns(o1.elapsed), ns(long), "{o1:?}");
    assert_eq!(ns(o2.start), ns(short_start), "{o2:?}");
    assert_eq!(ns(o2.elapsed), ns(short), "{o2:?}");
    // `time` reports the benchmark's own processor time: its demand in
    // user mode, its one switch in the kernel.
    assert_eq!((ns(o1.user), ns(o1.system)), (ns(2.0), ns(0.001)));
    // The second cycle starts 10 s after the first's last line.
    let (long_start, _, _) = cycle(false);
    assert_eq!(
        ns(obs[2].start),
        ns(first_end + 10.0 + long_start),
        "{:?}",
        obs[2]
    );
    assert_eq!(ns(obs[2].elapsed), ns(long));
}

/// The scripted probe timing one benchmark, `man`, a script of 10 ms
/// lines whose `runs` are `runs`, with `extra` classes beside `echo`
/// (3 ms) and `nroff`; the first observation.
fn man_script(runs: &str, extra: &str) -> Observation {
    let text = scripted().replace(
        "benchmarks = [\"long\", \"short\"]",
        "benchmarks = [\"man\"]",
    ) + &format!(
        r#"
    [[class]]
    name = "man"
    cpu = {{ det = {{ value = "10ms" }} }}
    size = "10KiB"
    runs = {runs}
    [[class]]
    name = "echo"
    cpu = {{ det = {{ value = "3ms" }} }}
    size = "10KiB"
    [[class]]
    name = "nroff"
    cpu = {{ det = {{ value = "7s" }} }}
    size = "10KiB"
{extra}"#
    );
    let (obs, _) = observations(&text);
    assert_eq!(obs[0].benchmark, "man");
    obs[0].clone()
}

#[test]
fn a_script_benchmark_runs_its_programs_in_turn_and_time_adds_their_times() {
    // `man` is a script: a 10 ms line before `echo`, one before `nroff`
    // (fixed at 1 s), one after; `echo` 3 ms. Run under the scripted
    // probe, in place of TIMED's two benchmarks.
    let o = man_script(r#"["echo", { class = "nroff", cpu = "1s" }]"#, "");
    let ns = |x: f64| (x * 1e9).round() as i64;
    // Each of the three processes: its image (10 ns) and a switch before
    // it first runs; `man` is switched to again after each wait; `time`
    // reads the clock after one more switch.
    let exec = 10e-9 + 0.001;
    let man = exec + 0.010 + (0.001 + 0.010) * 2.0;
    let echo = exec + 0.003;
    let nroff = exec + 1.0;
    assert_eq!(ns(o.elapsed), ns(man + echo + nroff + 0.001), "{o:?}");
    // `time` reports the script's times with its children's.
    assert_eq!(ns(o.user), ns(0.030 + 0.003 + 1.0), "{o:?}");
    assert_eq!(ns(o.system), ns(0.003 + 0.001 + 0.001), "{o:?}");
}

#[test]
fn time_adds_the_times_of_a_scripts_scripts_down_to_the_last_program() {
    // As V7's `man`, a script that runs a script: `man` runs `echo` and
    // then `sub`, a script of two 10 ms lines around `nroff` (1 s).
    let sub = r#"
    [[class]]
    name = "sub"
    cpu = { det = { value = "10ms" } }
    size = "10KiB"
    runs = [{ class = "nroff", cpu = "1s" }]
"#;
    let o = man_script(r#"["echo", "sub"]"#, sub);
    let ns = |x: f64| (x * 1e9).round() as i64;
    // User time: man's three lines, echo, sub's two lines and nroff,
    // whose time reaches `time` through `sub` and then `man`. System
    // time: a switch for each line of each script and for each program.
    assert_eq!(ns(o.user), ns(0.030 + 0.003 + 0.020 + 1.0), "{o:?}");
    assert_eq!(ns(o.system), ns(0.003 + 0.001 + 0.002 + 0.001), "{o:?}");
}

/// One user who types one `job` at 1 s: a script that runs `big` (1 s)
/// and waits for it. Images load from a device of their own at 1 KiB a
/// nanosecond; the swap area moves 1 KiB a millisecond.
const SCRIPT_USER: &str = r#"
    name = "script-user"
    [run]
    end_time = "30s"
    [system]
    quantum = "10s"
    context_switch = "1ms"
    [memory]
    policy = "swapping"
    size = "1MiB"
    page = "1KiB"
    device = "swap"
    programs = "programs"
    [[device]]
    name = "programs"
    rate = "1024GB/s"
    [[device]]
    name = "swap"
    rate = "1024KB/s"
    [users]
    terminals = 1
    think = { det = { value = "1s" } }
    commands = [{ class = "job", weight = 1 }]
    [[class]]
    name = "job"
    cpu = { det = { value = "10ms" } }
    size = "400KiB"
    runs = ["big"]
    [[class]]
    name = "big"
    cpu = { det = { value = "1s" } }
    size = "400KiB"
"#;

#[test]
fn a_script_asleep_in_wait_is_swapped_out_when_its_program_needs_the_room() {
    let response = |text: &str| {
        let s = crate::run_system(&crate::inline_system(text), 0);
        let job = s.classes.iter().find(|c| c.name == "job").unwrap();
        // A script's program is not a command of its own.
        assert!(
            s.classes
                .iter()
                .all(|c| c.name != "big" || c.completions == 0)
        );
        assert!(job.completions > 0);
        (
            (job.mean_response.unwrap(), job.response_max.unwrap()),
            job.completions,
        )
    };
    // Room for both: the script's two lines (each a switch and 10 ms,
    // the first after its image, 400 ns) and `big`'s image, switch and
    // second: every response the same.
    // (Every response at most the maximum, and the mean as large: all
    // equal.)
    let ((mean, max), _) = response(SCRIPT_USER);
    let spare = 400e-9 + 0.011 + (400e-9 + 0.001 + 1.0) + 0.011;
    assert!(
        (mean - spare).abs() < 1e-9 && (max - spare).abs() < 1e-9,
        "{mean} {max}"
    );
    // Room for one: `big` waits for the script's 400 KiB to be written to
    // the swap area (0.4 s), and the script for them to be read back when
    // `big` exits (0.4 s).
    let tight = SCRIPT_USER.replace("size = \"1MiB\"", "size = \"600KiB\"");
    let ((mean, max), _) = response(&tight);
    let swapped = spare + 0.4 + 0.4;
    assert!(
        (mean - swapped).abs() < 1e-9 && (max - swapped).abs() < 1e-9,
        "{mean} {max}"
    );
}

#[test]
fn a_benchmark_given_a_name_is_observed_under_it() {
    // The shell's program run as the benchmark script, as `time` runs a
    // script: its observations go by the name given, not by `sh`.
    let text = SCRIPT_USER.replace(
        "commands = [{ class = \"job\", weight = 1 }]",
        "commands = [{ class = \"job\", weight = 1 }]\n    [probe]\n    benchmarks = [{ name = \"bench\", class = \"sh\", runs = [\"big\"] }]\n    sleep = \"10s\"",
    ) + "    [[class]]\n    name = \"sh\"\n    cpu = { det = { value = \"10ms\" } }\n    size = \"8KiB\"\n";
    let (observed, _) = observations(&text);
    assert!(!observed.is_empty());
    assert!(
        observed.iter().all(|o| o.benchmark == "bench"),
        "{observed:?}"
    );
}

#[test]
fn bad_scripts_are_refused_by_key_with_status_2_and_nothing_written() {
    let loop_ = SCRIPT_USER.replace("name = \"big\"\n", "name = \"big\"\n    runs = [\"job\"]\n");
    let unknown = SCRIPT_USER.replace("runs = [\"big\"]", "runs = [\"nroff\"]");
    let fixed_script = SCRIPT_USER.replace(
        "commands = [{ class = \"job\", weight = 1 }]",
        "commands = [{ class = \"job\", weight = 1 }]\n    [probe]\n    benchmarks = [{ class = \"job\", cpu = \"1s\" }]\n    sleep = \"10s\"",
    );
    let too_big = SCRIPT_USER.replace(
        "cpu = { det = { value = \"1s\" } }\n    size = \"400KiB\"",
        "cpu = { det = { value = \"1s\" } }\n    size = \"2MiB\"",
    );
    let own_loop = SCRIPT_USER.replace(
        "runs = [\"big\"]",
        "runs = [{ class = \"big\", runs = [\"job\"] }]",
    );
    let own_fixed = SCRIPT_USER.replace(
        "runs = [\"big\"]",
        "runs = [{ class = \"big\", cpu = \"1s\", runs = [\"big\"] }]",
    );
    let own_empty = SCRIPT_USER.replace(
        "runs = [\"big\"]",
        "runs = [{ class = \"big\", runs = [] }]",
    );
    let own_too_big = too_big.replace(
        "runs = [\"big\"]",
        "runs = [{ class = \"job\", runs = [\"big\"] }]",
    );
    // A class run as a script of other programs is no loop, even a script
    // running its own program so (a shell's `sh -c`).
    let in_itself = SCRIPT_USER.replace(
        "runs = [\"big\"]",
        "runs = [{ class = \"job\", runs = [\"big\"] }]",
    );
    assert!(tpsim::models::load_system("in-itself.toml", &in_itself).is_ok());
    let no_shell = fixed_script.replace("cpu = \"1s\" }", "}").replace(
        "sleep = \"10s\"",
        "sleep = \"10s\"\n    script = { shell = \"sh\", time = \"big\" }",
    );
    for (text, expected) in [
        (
            loop_,
            &[
                "class[job].runs: runs itself (job -> big -> job)",
                "class[big].runs: runs itself (big -> job -> big)",
            ][..],
        ),
        (unknown, &["class[job].runs: no [[class]] named \"nroff\""]),
        (
            fixed_script,
            &["probe.benchmarks[job]: class job is a script (it has `runs`)"],
        ),
        (
            too_big,
            &["class[job].runs: the image of big (2097152 bytes) is larger than user memory"],
        ),
        (no_shell, &["probe.script.shell: no [[class]] named \"sh\""]),
        (
            own_loop,
            &["class[job].runs: runs itself (job -> big -> job)"],
        ),
        (
            own_fixed,
            &["class[job].runs[big]: class big is a script (it has `runs`)"],
        ),
        (own_empty, &["class[job].runs[big].runs: an empty list"]),
        (
            SCRIPT_USER.replace(
                "runs = [\"big\"]",
                "runs = [{ class = \"big\", name = \"b\" }]",
            ),
            &["class[job].runs[big].name: names a benchmark's observations"],
        ),
        (
            own_too_big,
            &["class[big].size: the image of big (2097152 bytes) is larger than user memory"],
        ),
    ] {
        assert!(text != SCRIPT_USER, "{expected:?}: the edit took");
        crate::cli::assert_text_rejected(&text, expected);
    }
}
