//! Tests of time-sharing scenario reading: every key's refusals and
//! the values a valid scenario gives.

use super::*;
use crate::scenario::Problem;
use crate::system::{
    ClockDaemon, Fair, FileAccess, Locality, Multics, Order, Pageout, PagingSwapper, Pattern,
    Placement, Policy, ReferenceBits, Replacement, Scheduler, SegmentFaults, Unix,
};
use tpsim_core::SimTime;

fn problems(text: &str) -> Vec<Problem> {
    match SystemFile::parse("t.toml", text).and_then(|f| f.validate("t.toml")) {
        Ok(_) => Vec::new(),
        Err(ScenarioError::Invalid { problems, .. }) => problems,
        Err(e) => vec![Problem {
            key: "syntax".into(),
            message: e.to_string(),
        }],
    }
}

const GOOD: &str = r#"
        name = "small"
        [run]
        end_time = "1000s"
        [system]
        quantum = "100ms"
        context_switch = "1ms"
        [memory]
        policy = "paging"
        size = "512KiB"
        kernel = "128KiB"
        page = "1KiB"
        device = "disk"
        [[device]]
        name = "disk"
        seek = { uniform = { low = "10ms", high = "50ms" } }
        rpm = 3600
        rate = "800KB/s"
        fault_cpu = "1ms"
        [users]
        terminals = 8
        think = { exp = { mean = "10s" } }
        commands = [{ class = "edit", weight = 1 }]
        [[class]]
        name = "edit"
        cpu = { exp = { mean = "200ms" } }
        io = { count = 4, size = "1KiB", device = "disk" }
        size = "64KiB"
        locality = { cfl = { b = "5ms", c = 20 } }
    "#;

fn keys(text: &str) -> Vec<String> {
    problems(text).into_iter().map(|p| p.key).collect()
}

/// GOOD with its disk given an arm, `extra` added to the device.
fn armed(arm: &str, extra: &str) -> String {
    GOOD.replace(
        r#"seek = { uniform = { low = "10ms", high = "50ms" } }"#,
        &format!("arm = {{ {arm} }}\n{extra}"),
    )
}

#[test]
fn a_sweep_program_must_fit_in_user_memory() {
    // 384 pages of user memory: a sweep of 384 pages can finish a pass,
    // one of 385 never could.
    let sweep = |size: &str| {
        GOOD.replace("size = \"64KiB\"", &format!("size = \"{size}\""))
            .replace(
                "locality = { cfl = { b = \"5ms\", c = 20 } }",
                "locality = \"sweep\"",
            )
    };
    assert!(keys(&sweep("384KiB")).is_empty());
    let problems = problems(&sweep("385KiB"));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].key, "class[edit].size");
    assert!(
        problems[0].message.contains("385 pages"),
        "{}",
        problems[0].message
    );
}

fn with_probe(probe: &str) -> String {
    format!("{GOOD}\n[probe]\n{probe}\n")
}

#[test]
fn the_probe_validates_and_its_mistakes_are_named() {
    let text = with_probe(
        "benchmarks = [\"edit\", { class = \"edit\", cpu = \"5s\" }]\nsleep = \"10min\"\nwindow = { from = \"9h\", to = \"17h\" }\nresolution = \"1s\"",
    );
    let sys = SystemFile::parse("t.toml", &text)
        .unwrap()
        .validate("t.toml")
        .unwrap();
    let probe = sys.probe.unwrap();
    assert_eq!(probe.benchmarks[0].demand, None);
    assert_eq!(probe.benchmarks[1].demand, Some(SimTime::from_secs(5)));
    assert_eq!(
        probe.window,
        Some((SimTime::from_secs(9 * 3600), SimTime::from_secs(17 * 3600)))
    );
    let good = "sleep = \"10min\"";
    for (probe, key) in [
        (
            "benchmarks = [\"ed\"]\nsleep = \"10min\"",
            "probe.benchmarks",
        ),
        ("benchmarks = []\nsleep = \"10min\"", "probe.benchmarks"),
        ("benchmarks = [\"edit\"]\nsleep = \"0s\"", "probe.sleep"),
        (
            "benchmarks = [\"edit\"]\nsleep = { exp = { mean = \"0s\" } }",
            "probe.sleep.exp",
        ),
        (
            &format!("benchmarks = [\"edit\"]\n{good}\nwindow = {{ from = \"17h\", to = \"9h\" }}"),
            "probe.window",
        ),
        (
            &format!("benchmarks = [\"edit\"]\n{good}\nwindow = {{ from = \"9h\", to = \"25h\" }}"),
            "probe.window.to",
        ),
        (
            &format!("benchmarks = [\"edit\"]\n{good}\nwindow = {{ from = \"14h\", to = \"9h\" }}"),
            "probe.window",
        ),
        (
            &format!("benchmarks = [\"edit\"]\n{good}\nresolution = \"0s\""),
            "probe.resolution",
        ),
        (
            &format!("benchmarks = [{{ class = \"edit\", instructions = 2 }}]\n{good}"),
            "probe.benchmarks[edit].instructions",
        ),
        (
            &format!(
                "benchmarks = [{{ class = \"edit\", cpu = \"1s\", instructions = 2 }}]\n{good}"
            ),
            "probe.benchmarks[edit]",
        ),
    ] {
        assert_eq!(keys(&with_probe(probe)), [key], "{probe}");
    }
    // A demand in instructions too long for the clock is refused by key,
    // not left to overflow.
    let endless = with_probe(&format!(
        "benchmarks = [{{ class = \"edit\", instructions = 1e300 }}]\n{good}"
    ))
    .replace("quantum = \"100ms\"", "quantum = \"100ms\"\nmips = 0.001");
    assert_eq!(keys(&endless), ["probe.benchmarks[edit].instructions"]);
    // Under swapping a benchmark must fit in memory.
    let swapped = with_probe(&format!("benchmarks = [\"edit\"]\n{good}"))
        .replace("policy = \"paging\"", "policy = \"swapping\"")
        .replace("size = \"64KiB\"", "size = \"600KiB\"");
    assert!(
        keys(&swapped).contains(&"probe.benchmarks".to_string()),
        "{:?}",
        keys(&swapped)
    );
}

#[test]
fn a_load_ramp_validates_and_its_mistakes_are_named() {
    let probe = "benchmarks = [\"edit\"]\nsleep = \"1s\"";
    let ramp = |r: &str| with_probe(&format!("{probe}\nramp = {r}"));
    let sys = SystemFile::parse(
        "t.toml",
        &ramp(r#"{ class = "edit", workers = [0, 2, 4], hold = "40s" }"#),
    )
    .unwrap()
    .validate("t.toml")
    .unwrap();
    let got = sys.probe.unwrap().ramp.unwrap();
    assert_eq!((got.class, got.workers.as_slice()), (0, &[0, 2, 4][..]));
    assert_eq!(got.hold, SimTime::from_secs(40));
    let at = |s: u64| got.wanted(SimTime::from_secs(s));
    assert_eq!([at(0), at(39), at(40), at(80), at(10_000)], [0, 0, 2, 4, 4]);
    for (r, key) in [
        (
            r#"{ class = "ed", workers = [1], hold = "1s" }"#,
            "probe.ramp.class",
        ),
        (
            r#"{ class = "edit", workers = [], hold = "1s" }"#,
            "probe.ramp.workers",
        ),
        (
            r#"{ class = "edit", workers = [1, 2000], hold = "1s" }"#,
            "probe.ramp.workers",
        ),
        (
            r#"{ class = "edit", workers = [1], hold = "0s" }"#,
            "probe.ramp.hold",
        ),
    ] {
        assert_eq!(keys(&ramp(r)), [key], "{r}");
    }
}

const ARM: &str = r#"cylinders = 815, track = "10ms", average = "30ms", full = "55ms""#;

#[test]
fn an_arm_and_its_areas_validate() {
    let text = armed(
        &format!(r#"{ARM}, order = "disksort""#),
        "swap_area = [38, 117]\nfile_system = [118, 814]",
    );
    let sys = SystemFile::parse("t.toml", &text)
        .unwrap()
        .validate("t.toml")
        .unwrap();
    let arm = sys.devices[0].arm.as_ref().unwrap();
    assert_eq!((arm.cylinders, arm.order), (815, Order::Disksort));
    assert_eq!((arm.swap_area.first, arm.swap_area.last), (38, 117));
    assert_eq!((arm.file_system.first, arm.file_system.last), (118, 814));
    assert!((arm.seek.time(814) - 0.055).abs() < 1e-12);
    // Without areas, both span the disk; without an order, FCFS.
    let sys = SystemFile::parse("t.toml", &armed(ARM, ""))
        .unwrap()
        .validate("t.toml")
        .unwrap();
    let arm = sys.devices[0].arm.as_ref().unwrap();
    assert_eq!(arm.order, Order::Fcfs);
    assert_eq!((arm.swap_area.first, arm.swap_area.last), (0, 814));
    assert_eq!(arm.file_system, arm.swap_area);
}

#[test]
fn scheduler_and_nice_are_checked() {
    let unix = GOOD.replace(
        "quantum = \"100ms\"",
        "quantum = \"1s\"\nscheduler = \"unix\"",
    );
    let sys = SystemFile::parse("t.toml", &unix)
        .unwrap()
        .validate("t.toml")
        .unwrap();
    assert_eq!(sys.cpu.scheduler, Scheduler::Unix(Unix::default()));
    let unknown = GOOD.replace(
        "quantum = \"100ms\"",
        "quantum = \"1s\"\nscheduler = \"lottery\"",
    );
    let message = refused_as_read(&unknown);
    assert!(
        message.contains(
            "system.scheduler: \"lottery\" is not one of round-robin, unix, multics, fair"
        ),
        "{message}"
    );
    for nice in ["-21", "20"] {
        let text = GOOD.replace(
            "size = \"64KiB\"",
            &format!("size = \"64KiB\"\nnice = {nice}"),
        );
        assert_eq!(keys(&text), ["class[edit].nice"], "nice {nice}");
    }
    let text = GOOD.replace("size = \"64KiB\"", "size = \"64KiB\"\nnice = -20");
    assert_eq!(keys(&text), Vec::<String>::new());
}

#[test]
fn the_fair_settings_are_checked() {
    let with = |scheduler: &str, settings: &str| {
        GOOD.replace(
            "quantum = \"100ms\"",
            &format!("quantum = \"4ms\"\nscheduler = \"{scheduler}\"\n{settings}"),
        )
    };
    let sys = SystemFile::parse("t.toml", &with("fair", ""))
        .unwrap()
        .validate("t.toml")
        .unwrap();
    assert_eq!(sys.cpu.scheduler, Scheduler::Fair(Fair::default()));
    let sys = SystemFile::parse(
        "t.toml",
        &with("fair", "fair = { base_slice = \"0.75ms\" }"),
    )
    .unwrap()
    .validate("t.toml")
    .unwrap();
    let Scheduler::Fair(fair) = sys.cpu.scheduler else {
        panic!("{:?}", sys.cpu.scheduler);
    };
    assert_eq!(fair.base_slice.as_nanos(), 750_000);
    for (scheduler, settings, problem) in [
        (
            "fair",
            "fair = { base_slice = \"0.05ms\" }",
            "system.fair.base_slice",
        ),
        (
            "fair",
            "fair = { base_slice = \"1s\" }",
            "system.fair.base_slice",
        ),
        ("unix", "fair = {}", "system.fair"),
    ] {
        assert_eq!(keys(&with(scheduler, settings)), [problem], "{settings}");
    }
}

#[test]
fn the_unix_settings_are_checked() {
    let with = |scheduler: &str, settings: &str| {
        GOOD.replace(
            "quantum = \"100ms\"",
            &format!("quantum = \"250ms\"\nscheduler = \"{scheduler}\"\n{settings}"),
        )
    };
    let sys = SystemFile::parse("t.toml", &with("unix", "unix = { decay = 0.9 }"))
        .unwrap()
        .validate("t.toml")
        .unwrap();
    let bsd = Unix {
        decay: 0.9,
        pagein_priority: 20,
    };
    assert_eq!(sys.cpu.scheduler, Scheduler::Unix(bsd));
    for (given, problem) in [
        ("0", None),
        ("49", None),
        ("50", Some("system.unix.pagein_priority")),
    ] {
        let text = with("unix", &format!("unix = {{ pagein_priority = {given} }}"));
        assert_eq!(
            keys(&text),
            problem.into_iter().collect::<Vec<_>>(),
            "{given}"
        );
    }
    let negative = with("unix", "unix = { pagein_priority = -1 }");
    assert!(refused_as_read(&negative).contains("pagein_priority"));
    for decay in ["0", "1", "1.5", "-0.8", "nan"] {
        let text = with("unix", &format!("unix = {{ decay = {decay} }}"));
        let found = problems(&text);
        assert_eq!(
            found.iter().map(|p| p.key.as_str()).collect::<Vec<_>>(),
            ["system.unix.decay"],
            "decay {decay}"
        );
        assert!(
            found[0].message.contains("between 0 and 1"),
            "{}",
            found[0].message
        );
    }
    let other = with("round-robin", "unix = { decay = 0.9 }");
    assert_eq!(keys(&other), ["system.unix"]);
    let unknown = with("unix", "unix = { schmag = 0.9 }");
    let message = refused_as_read(&unknown);
    assert!(
        message.contains(
            "system.unix.schmag: is not a key here; the keys here are decay, pagein_priority"
        ),
        "{message}"
    );
}

#[test]
fn the_multics_settings_are_checked() {
    let with = |settings: &str| {
        GOOD.replace(
            "quantum = \"100ms\"",
            &format!(
                "quantum = \"100ms\"\nscheduler = \"multics\"\nmax_multiprogramming = 4\n{settings}"
            ),
        )
    };
    let sys = SystemFile::parse("t.toml", &with(""))
        .unwrap()
        .validate("t.toml")
        .unwrap();
    assert_eq!(sys.cpu.scheduler, Scheduler::Multics(Multics::default()));
    let sys = SystemFile::parse("t.toml", &with("multics = { levels = 3 }"))
        .unwrap()
        .validate("t.toml")
        .unwrap();
    let Scheduler::Multics(m) = sys.cpu.scheduler else {
        panic!("{:?}", sys.cpu.scheduler)
    };
    assert_eq!((m.levels, m.min_eligible), (3, 2));
    for (settings, key) in [
        ("multics = { levels = 0 }", "system.multics.levels"),
        ("multics = { levels = 17 }", "system.multics.levels"),
        (
            "multics = { min_eligible = 0 }",
            "system.multics.min_eligible",
        ),
        (
            "multics = { min_eligible = 5 }",
            "system.multics.min_eligible",
        ),
        (
            "multics = { working_set_factor = -1 }",
            "system.multics.working_set_factor",
        ),
        (
            "multics = { working_set_factor = nan }",
            "system.multics.working_set_factor",
        ),
    ] {
        assert_eq!(keys(&with(settings)), [key], "{settings}");
    }
    let text = GOOD.replace(
        "quantum = \"100ms\"",
        "quantum = \"100ms\"\nscheduler = \"unix\"\nmultics = { levels = 3 }",
    );
    assert_eq!(keys(&text), ["system.multics"]);
}

#[test]
fn shells_and_the_process_count_are_checked() {
    let text = GOOD.replace("[users]", "[users]\nprocesses = \"some\"");
    assert_eq!(keys(&text), ["users.processes"]);
    let text = GOOD.replace("[users]", "[users]\nshell = \"bash\"");
    assert_eq!(keys(&text), ["users.shell"]);
    let swapped = GOOD.replace("policy = \"paging\"", "policy = \"swapping\"");
    let huge = swapped
        .replace("[users]", "[users]\nshell = \"edit\"")
        .replace("size = \"64KiB\"", "size = \"600KiB\"");
    assert!(
        keys(&huge).contains(&"users.shell".to_string()),
        "{:?}",
        keys(&huge)
    );
}

#[test]
fn bad_arms_name_their_keys() {
    let figures = |cylinders, track, average| {
        format!(
            r#"cylinders = {cylinders}, track = "{track}", average = "{average}", full = "55ms""#
        )
    };
    for (arm, extra, key) in [
        (
            format!(r#"{ARM}, order = "sstf""#),
            "",
            "device[disk].arm.order",
        ),
        (
            ARM.to_string(),
            "swap_area = [800, 815]",
            "device[disk].swap_area",
        ),
        (
            ARM.to_string(),
            "file_system = [200, 100]",
            "device[disk].file_system",
        ),
        // An average close to the full stroke needs a falling curve.
        (figures(815, "10ms", "54ms"), "", "device[disk].arm"),
        (figures(815, "40ms", "30ms"), "", "device[disk].arm"),
        (figures(2, "10ms", "30ms"), "", "device[disk].arm.cylinders"),
        (figures(815, "0ms", "30ms"), "", "device[disk].arm.track"),
    ] {
        assert_eq!(keys(&armed(&arm, extra)), [key], "{arm} {extra}");
    }
    let both = GOOD.replace("rpm = 3600", &format!("rpm = 3600\narm = {{ {ARM} }}"));
    assert_eq!(keys(&both), ["device[disk].seek"]);
    let areas_alone = GOOD.replace("rpm = 3600", "rpm = 3600\nswap_area = [0, 10]");
    assert_eq!(keys(&areas_alone), ["device[disk].swap_area"]);
}

#[test]
fn a_good_system_validates() {
    let sys = SystemFile::parse("t.toml", GOOD)
        .unwrap()
        .validate("t.toml")
        .unwrap();
    assert_eq!(sys.memory.user_frames(), 384);
    assert_eq!(sys.memory.pages_of(sys.classes[0].size), 64);
    let Policy::Paging(p) = &sys.memory.policy else {
        panic!("paging expected")
    };
    assert_eq!(p.free_target, 48);
    assert!((sys.devices[0].revolution - 1.0 / 60.0).abs() < 1e-12);
    assert!(
        (sys.devices[0].mean_service(1000.0, crate::system::Region::Files)
            - (0.030 + 1.0 / 120.0 + 0.00125))
            .abs()
            < 1e-12
    );
}

#[test]
fn inconsistent_memory_names_the_key() {
    let text = GOOD.replace("kernel = \"128KiB\"", "kernel = \"1MiB\"");
    assert_eq!(keys(&text), ["memory.kernel"]);
    let text = GOOD.replace("page = \"1KiB\"", "page = \"0B\"");
    assert_eq!(keys(&text), ["memory.page"]);
    let text = GOOD.replace("size = \"64KiB\"", "size = \"0KiB\"");
    assert_eq!(keys(&text), ["class[edit].size"]);
    let text = GOOD.replace("page = \"1KiB\"", "page = \"1MiB\"");
    assert_eq!(keys(&text), ["memory.page"]);
    let text = GOOD.replace("page = \"1KiB\"", "page = \"3KiB\"");
    assert_eq!(keys(&text), ["memory.size", "memory.kernel"]);
    let text = GOOD.replace("page = \"1KiB\"", "page = 1024");
    assert!(problems(&text)[0].message.contains("size"));
}

#[test]
fn paging_needs_locality_and_known_devices() {
    let text = GOOD
        .replace("locality = { cfl = { b = \"5ms\", c = 20 } }", "")
        .replace(
            "device = \"disk\"\n        [[device]]",
            "device = \"drum\"\n        [[device]]",
        );
    assert_eq!(keys(&text), ["memory.device", "class[edit].locality"]);
    let text = GOOD
        .replace("policy = \"paging\"", "policy = \"swapping\"")
        .replace("locality = { cfl = { b = \"5ms\", c = 20 } }", "");
    assert!(keys(&text).is_empty());
    let text = GOOD.replace(
        "device = \"disk\"\n        [[device]]",
        "device = \"disk\"\n        disk_fraction = 0.5\n        [[device]]",
    );
    assert_eq!(keys(&text), ["memory.disk_fraction"]);
}

#[test]
fn paging_spreads_over_a_list_of_drives_and_refuses_a_bad_list() {
    let two_drives = |device: &str| {
        GOOD.replace(
                "device = \"disk\"\n        [[device]]",
                &format!(
                    "device = {device}\n        [[device]]\n        name = \"disk2\"\n        rate = \"1MB/s\"\n        [[device]]"
                ),
            )
    };
    let sys = SystemFile::parse("t.toml", &two_drives(r#"["disk", "disk2"]"#))
        .unwrap()
        .validate("t.toml")
        .unwrap();
    let Policy::Paging(p) = &sys.memory.policy else {
        panic!("paging expected")
    };
    assert_eq!(p.drives, [1, 0]);
    // With no programs' device named, a program's pages lie on the
    // drives too; one drive named in a list is one drive.
    assert_eq!(sys.memory.programs, None);
    let one = SystemFile::parse("t.toml", &two_drives(r#"["disk"]"#))
        .unwrap()
        .validate("t.toml")
        .unwrap();
    assert_eq!(one.memory.programs, Some(1));
    for bad in [r#"[]"#, r#"["disk", "disk"]"#, r#"["disk", "drum"]"#] {
        assert_eq!(keys(&two_drives(bad)), ["memory.device"], "{bad}");
    }
    let swapped = two_drives(r#"["disk", "disk2"]"#)
        .replace("policy = \"paging\"", "policy = \"swapping\"")
        .replace("locality = { cfl = { b = \"5ms\", c = 20 } }", "");
    assert_eq!(keys(&swapped), ["memory.device"]);
    let bulk = two_drives(r#"["disk", "disk2"]"#).replace(
            "[[device]]\n        name = \"disk2\"",
            "bulk_store = \"disk2\"\n        disk_fraction = 0.5\n        [[device]]\n        name = \"disk2\"",
        );
    assert_eq!(keys(&bulk), ["memory.bulk_store"]);
}

/// GOOD under the clock, the phase model in `phases` and `memory`
/// added to `[memory]`.
fn clocked(phases: &str, memory: &str) -> String {
    GOOD.replace(
        "device = \"disk\"\n        [[device]]",
        &format!(
            "device = \"disk\"\n        replacement = \"clock\"\n{memory}\n        [[device]]"
        ),
    )
    .replace(
        "locality = { cfl = { b = \"5ms\", c = 20 } }",
        &format!("locality = {{ phases = {{ {phases} }} }}"),
    )
}

const PHASES: &str = r#"set = 20, phase = { exp = { mean = "500ms" } }, reference = "10us""#;

/// A bulk store in front of the disk, for memory as frames, with its
/// device (`DRUM`, to append).
const BULK_STORE: &str = "bulk_store = \"drum\"\nbulk_store_size = \"64KiB\"";
const DRUM: &str = "[[device]]\nname = \"drum\"\nrate = \"1MB/s\"\nfault_cpu = \"1ms\"\n";

#[test]
fn a_phase_s_references_may_follow_zipf_s_law() {
    for (pattern, zipf) in [
        ("", None),
        (", pattern = \"uniform\"", None),
        (", pattern = { zipf = 0.8 }", Some(0.8)),
    ] {
        let text = clocked(&format!("{PHASES}{pattern}"), "");
        let sys = SystemFile::parse("t.toml", &text)
            .unwrap()
            .validate("t.toml")
            .unwrap();
        let Some(Locality::Phases(phases)) = &sys.classes[0].locality else {
            panic!("phases")
        };
        match (&phases.pattern, zipf) {
            (Pattern::Uniform, None) => {}
            (Pattern::Zipf { exponent, weights }, Some(z)) => {
                assert_eq!(*exponent, z);
                assert_eq!(weights.len(), 20);
                let total: u64 = weights.iter().sum();
                assert!(total.abs_diff(1 << 40) < 20, "{total}");
                // The 4th page is referenced (1/4)^0.8 as often as the 1st.
                let ratio = weights[3] as f64 / weights[0] as f64;
                assert!((ratio - 0.25f64.powf(0.8)).abs() < 1e-9, "{ratio}");
            }
            (other, _) => panic!("{pattern}: {other:?}"),
        }
    }
}

#[test]
fn memory_as_frames_is_refused_what_a_page_s_entry_cannot_hold() {
    // A page's entry holds a frame's number, or the serial of the page's
    // write to the bulk store, in 29 bits. GOOD has 128 KiB of kernel
    // and pages of 1 KiB: 2^29 frames of user memory are taken, one more
    // is refused, under the key that gives the memory.
    let sized = |memory: &str| clocked(PHASES, "").replacen("size = \"512KiB\"", memory, 1);
    let refusal = |text: &str| {
        let found = problems(text);
        assert_eq!(found.len(), 1, "{found:?}");
        (found[0].key.clone(), found[0].message.clone())
    };
    assert!(problems(&sized("size = \"536871040KiB\"")).is_empty());
    let (key, message) = refusal(&sized("size = \"536871041KiB\""));
    assert_eq!(key, "memory.size");
    assert!(
        message.contains("536870913 frames of 1024 bytes: memory as frames holds at most 2^29"),
        "{message}"
    );
    let (key, _) = refusal(&sized("size = \"2048GiB\"\nusable = \"1024GiB\""));
    assert_eq!(key, "memory.usable");
    // Counted paging keeps no entries: the same memory is taken there.
    let counted = GOOD.replacen("size = \"512KiB\"", "size = \"1024GiB\"", 1);
    assert!(problems(&counted).is_empty());
    // A bulk store of 2^27 pages is refused, one page fewer taken.
    let store = |size: &str| {
        clocked(
            PHASES,
            &format!("swapper = false\nbulk_store = \"drum\"\nbulk_store_size = \"{size}\""),
        ) + DRUM
    };
    let (key, message) = refusal(&store("128GiB"));
    assert_eq!(key, "memory.bulk_store_size");
    assert!(
        message.contains(
            "134217728 pages of 1024 bytes: under memory as frames a bulk store holds fewer than 2^27"
        ),
        "{message}"
    );
    assert!(problems(&store("134217727KiB")).is_empty());
}

#[test]
fn the_clock_takes_a_bulk_store_sized_by_capacity_without_the_swapper() {
    let text = clocked(PHASES, &format!("swapper = false\n{BULK_STORE}")) + DRUM;
    let sys = SystemFile::parse("t.toml", &text)
        .unwrap()
        .validate("t.toml")
        .unwrap();
    let Policy::Paging(paging) = &sys.memory.policy else {
        panic!("paging")
    };
    let bulk = paging.bulk_store.as_ref().expect("a bulk store");
    assert_eq!(sys.devices[bulk.device].name, "drum");
    assert_eq!(bulk.placement, Placement::Capacity(64));
}

#[test]
fn the_clock_takes_3bsd_defaults_and_the_phase_model() {
    let sys = SystemFile::parse("t.toml", &clocked(PHASES, ""))
        .unwrap()
        .validate("t.toml")
        .unwrap();
    let Policy::Paging(paging) = &sys.memory.policy else {
        panic!("paging")
    };
    // 384 user frames: lotsfree is an eighth, desfree 64 pages but not
    // above it.
    assert_eq!(
        paging.replacement,
        Replacement::Clock(ClockDaemon {
            lotsfree: 48,
            desfree: 48,
            slowscan: 30.0,
            fastscan: 20.0,
            handspread: None,
            reference_bits: ReferenceBits::Hardware,
            pageout: Pageout::Daemon,
            minfree: 32,
            swapper: Some(PagingSwapper {
                maxpgio: 40.0,
                maxslp: SimTime::from_secs(20),
            }),
        })
    );
    let phases = sys.classes[0].locality.as_ref().unwrap().phases().unwrap();
    assert_eq!((phases.set, phases.reference), (20, 10e-6));
    let sys = SystemFile::parse(
        "t.toml",
        &clocked(
            PHASES,
            "lotsfree = \"96KiB\"\ndesfree = \"32KiB\"\nslowscan = \"10s\"\nfastscan = \"5s\"",
        ),
    )
    .unwrap()
    .validate("t.toml")
    .unwrap();
    let Policy::Paging(paging) = &sys.memory.policy else {
        panic!("paging")
    };
    let Replacement::Clock(clock) = paging.replacement else {
        panic!("clock")
    };
    assert_eq!((clock.lotsfree, clock.desfree), (96, 32));
    // 48 of 96 free: halfway between 10 s and 5 s a revolution, so
    // 384 frames / 7.5 s.
    let second = SimTime::from_secs(1);
    assert_eq!(clock.scan_budget(48, 0, 384, second), 52);
    assert_eq!(clock.scan_budget(0, 0, 384, second), 77);
    assert_eq!(clock.scan_budget(96, 0, 384, second), 0);
    // Frames promised to processes just swapped in count as taken.
    assert_eq!(clock.scan_budget(48, 48, 384, second), 77);
    assert_eq!(clock.scan_budget(96, 96, 384, second), 0);
    // A quarter of a second's worth in a quarter-second period.
    let quarter = SimTime::from_nanos(250_000_000);
    assert_eq!(clock.scan_budget(0, 0, 384, quarter), 20);
    let sys = SystemFile::parse(
        "t.toml",
        &clocked(PHASES, "tau = \"250ms\"").replace("\"clock\"", "\"working-set\""),
    )
    .unwrap()
    .validate("t.toml")
    .unwrap();
    let Policy::Paging(paging) = &sys.memory.policy else {
        panic!("paging")
    };
    let Replacement::WorkingSet { daemon, tau } = &paging.replacement else {
        panic!("working set")
    };
    assert_eq!((daemon.lotsfree, *tau), (48, SimTime::from_secs_f64(0.25)));
    // The working set has its own load control: no swapper.
    assert_eq!(daemon.swapper, None);
    let sys = SystemFile::parse(
        "t.toml",
        &clocked(PHASES, "minfree = \"8KiB\"\nmaxpgio = 20\nmaxslp = \"30s\""),
    )
    .unwrap()
    .validate("t.toml")
    .unwrap();
    let Policy::Paging(paging) = &sys.memory.policy else {
        panic!("paging")
    };
    let clock = paging.replacement.daemon().unwrap();
    assert_eq!(clock.minfree, 8);
    assert_eq!(
        clock.swapper,
        Some(PagingSwapper {
            maxpgio: 20.0,
            maxslp: SimTime::from_secs(30)
        })
    );
    let sys = SystemFile::parse("t.toml", &clocked(PHASES, "swapper = false"))
        .unwrap()
        .validate("t.toml")
        .unwrap();
    let Policy::Paging(paging) = &sys.memory.policy else {
        panic!("paging")
    };
    assert_eq!(paging.replacement.daemon().unwrap().swapper, None);
}

#[test]
fn the_clock_and_its_phase_model_refuse_bad_values_by_key() {
    let cases = [
        (
            clocked(
                r#"set = 65, phase = { det = { value = "1s" } }, reference = "1us""#,
                "",
            ),
            "class[edit].locality.phases.set",
        ),
        (
            clocked(
                r#"set = 2.5, phase = { det = { value = "1s" } }, reference = "1us""#,
                "",
            ),
            "class[edit].locality.phases.set",
        ),
        (
            clocked(
                r#"set = 20, phase = { det = { value = "0s" } }, reference = "1us""#,
                "",
            ),
            "class[edit].locality.phases.phase",
        ),
        (
            clocked(
                r#"set = 20, phase = { det = { value = "1s" } }, reference = "0.1ns""#,
                "",
            ),
            "class[edit].locality.phases.reference",
        ),
        (
            clocked(&format!("{PHASES}, pattern = {{ zipf = 0.0 }}"), ""),
            "class[edit].locality.phases.pattern.zipf",
        ),
        (
            clocked(&format!("{PHASES}, pattern = {{ zipf = 11.0 }}"), ""),
            "class[edit].locality.phases.pattern.zipf",
        ),
        (
            clocked(&format!("{PHASES}, pattern = \"hot\""), ""),
            "syntax",
        ),
        (
            clocked(&format!("{PHASES}, pattern = {{ zipf = 1.0 }}"), "").replace(
                "size = \"64KiB\"",
                "size = \"64KiB\"\n        text = \"16KiB\"",
            ),
            "class[edit].locality.phases.pattern",
        ),
        (clocked(PHASES, "lotsfree = \"384KiB\""), "memory.lotsfree"),
        (
            clocked(PHASES, "lotsfree = \"16KiB\"\ndesfree = \"32KiB\""),
            "memory.desfree",
        ),
        (clocked(PHASES, "fastscan = \"0s\""), "memory.fastscan"),
        (
            clocked(PHASES, "handspread = \"512KiB\""),
            "memory.handspread",
        ),
        (
            clocked(PHASES, "").replace("\"clock\"", "\"working-set\""),
            "memory.tau",
        ),
        (
            clocked(PHASES, "tau = \"0s\"").replace("\"clock\"", "\"working-set\""),
            "memory.tau",
        ),
        (
            clocked(PHASES, "").replace("\"clock\"", "\"page-fault-frequency\""),
            "memory.fault_interval",
        ),
        (clocked(PHASES, "kluster = 0"), "memory.kluster"),
        (
            clocked(PHASES, "desfree = \"16KiB\"\nminfree = \"32KiB\""),
            "memory.minfree",
        ),
        (clocked(PHASES, "maxpgio = 0"), "memory.maxpgio"),
        (clocked(PHASES, "maxslp = \"-1s\""), "memory.maxslp"),
        (
            clocked(PHASES, "swapper = false\nmaxslp = \"10s\""),
            "memory.maxslp",
        ),
        (
            clocked(PHASES, "pageout = \"fault\"\nfastscan = \"1s\""),
            "memory.fastscan",
        ),
        (
            clocked(PHASES, "pageout = \"fault\"\nslowscan = \"1s\""),
            "memory.slowscan",
        ),
        (
            clocked(PHASES, "reference_bits = \"simulated\"\ntau = \"1s\"")
                .replace("\"clock\"", "\"working-set\""),
            "memory.reference_bits",
        ),
        (
            clocked(
                PHASES,
                &format!("swapper = false\nreclaim = true\n{BULK_STORE}"),
            ) + DRUM,
            "memory.reclaim",
        ),
        (clocked(PHASES, BULK_STORE) + DRUM, "memory.swapper"),
        (
            GOOD.replace(
                "locality = { cfl = { b = \"5ms\", c = 20 } }",
                &format!("locality = {{ phases = {{ {PHASES} }} }}"),
            ),
            "class[edit].locality.phases",
        ),
        (
            clocked(PHASES, "").replace(
                &format!("locality = {{ phases = {{ {PHASES} }} }}"),
                "locality = { cfl = { b = \"5ms\", c = 20 } }",
            ),
            "class[edit].locality",
        ),
    ];
    for (text, key) in cases {
        assert_eq!(keys(&text), [key], "{text}");
    }
}

/// The message a scenario whose `[memory]` table is refused as it is read
/// gets: a key that does not apply under its policy and replacement.
fn refused_as_read(text: &str) -> String {
    let found = problems(text);
    assert_eq!(found.len(), 1, "{text}");
    assert_eq!(found[0].key, "syntax", "{text}");
    found[0].message.clone()
}

#[test]
fn a_memory_key_that_does_not_apply_is_told_where_it_does_and_what_applies_here() {
    let on_disk = |line: &str| {
        GOOD.replace(
            "device = \"disk\"\n        [[device]]",
            &format!("device = \"disk\"\n        {line}\n        [[device]]"),
        )
    };
    let working_set = |extra: &str| clocked(PHASES, extra).replace("\"clock\"", "\"working-set\"");
    let cases = [
        (
            clocked(PHASES, "tau = \"1s\""),
            "memory.tau: applies only under memory.replacement = \"working-set\"; under memory.policy = \"paging\" with memory.replacement = \"clock\" the keys are policy, replacement, size, usable, kernel, page, device, programs, bulk_store, bulk_store_size, reclaim, soft_fault_cpu, lotsfree, desfree, minfree, slowscan, fastscan, handspread, pageout, reference_bits, kluster, swapper, maxpgio, maxslp",
        ),
        (
            clocked(PHASES, "fault_interval = \"1s\""),
            "memory.fault_interval: applies only under memory.replacement = \"page-fault-frequency\"",
        ),
        (
            working_set("swapper = true\ntau = \"1s\""),
            "memory.swapper: applies only under memory.replacement = \"clock\"; under memory.policy = \"paging\" with memory.replacement = \"working-set\"",
        ),
        (
            on_disk("minfree = \"8KiB\""),
            "memory.minfree: applies only under memory.replacement = \"clock\" or \"working-set\" or \"page-fault-frequency\"; under memory.policy = \"paging\" with memory.replacement = \"process-lru\" the keys are policy, replacement, size, usable, kernel, page, device, programs, bulk_store, bulk_store_size, reclaim, soft_fault_cpu, disk_fraction, free_target",
        ),
        (
            on_disk("pageout = \"fault\""),
            "memory.pageout: applies only under memory.replacement = \"clock\" or",
        ),
        (
            on_disk("kluster = 4"),
            "memory.kluster: applies only under memory.replacement = \"clock\" or",
        ),
        (
            on_disk("lotsfree = \"8KiB\""),
            "memory.lotsfree: applies only under memory.replacement = \"clock\" or",
        ),
        (
            clocked(
                PHASES,
                "swapper = false\nbulk_store = \"drum\"\ndisk_fraction = 0.5",
            ) + DRUM,
            "memory.disk_fraction: applies only under memory.replacement = \"process-lru\"",
        ),
        (
            clocked(PHASES, "free_target = \"8KiB\""),
            "memory.free_target: applies only under memory.replacement = \"process-lru\"",
        ),
        (
            clocked(PHASES, "").replace("\"clock\"", "\"fifo\""),
            "memory.replacement: unknown replacement \"fifo\": expected process-lru, clock, working-set, page-fault-frequency",
        ),
        (
            GOOD.replace("policy = \"paging\"", "policy = \"swapping\"")
                .replace(
                    "device = \"disk\"\n        [[device]]",
                    "device = \"disk\"\n        replacement = \"clock\"\n        [[device]]",
                ),
            "memory.replacement: applies only under policy \"paging\"; under memory.policy = \"swapping\" the keys are policy, size, usable, kernel, page, device, programs, clear_cpu, process_limit",
        ),
        (
            on_disk("clear_cpu = \"1ms\""),
            "memory.clear_cpu: applies only under policy \"swapping\"; under memory.policy = \"paging\" with memory.replacement = \"process-lru\"",
        ),
        (
            on_disk("process_limit = \"64KiB\""),
            "memory.process_limit: applies only under policy \"swapping\"; under memory.policy = \"paging\" with memory.replacement = \"process-lru\"",
        ),
        (
            on_disk("tua = \"1s\""),
            "memory.tua: is not a key of [memory]; under memory.policy = \"paging\" with memory.replacement = \"process-lru\"",
        ),
        (
            GOOD.replace("policy = \"paging\"", "policy = \"paged\""),
            "memory.policy: unknown policy \"paged\": expected swapping, paging",
        ),
        // A value of the wrong type, and a key every policy needs, are
        // named as the layers read them.
        (
            clocked(PHASES, "lotsfree = 5"),
            "memory.lotsfree: must be a size such as \"512KiB\", not 5.0",
        ),
        (
            GOOD.replace("policy = \"paging\"", "policy = 1"),
            "memory.policy: must be text in quotes, not a whole number",
        ),
        (
            GOOD.replacen("size = \"512KiB\"\n", "", 1),
            "memory.size: is required",
        ),
        (
            clocked(PHASES, "reference_bits = \"vax\""),
            "memory.reference_bits: \"vax\" is not one of hardware, simulated",
        ),
        (
            clocked(PHASES, "pageout = \"kernel\""),
            "memory.pageout: \"kernel\" is not one of daemon, fault",
        ),
    ];
    for (text, expected) in cases {
        let message = refused_as_read(&text);
        assert!(
            message.contains(expected),
            "{message}\nshould contain\n{expected}"
        );
    }
}

#[test]
fn the_pageout_daemon_s_keys_are_refused_where_there_is_no_daemon() {
    let daemon_keys = [
        "lotsfree = \"8KiB\"",
        "desfree = \"8KiB\"",
        "slowscan = \"1s\"",
        "fastscan = \"1s\"",
        "handspread = \"8KiB\"",
        "pageout = \"fault\"",
    ];
    let swapping = GOOD.replace("policy = \"paging\"", "policy = \"swapping\"");
    for line in daemon_keys {
        let key = format!("memory.{}", line.split(' ').next().unwrap());
        for (base, why) in [
            (GOOD, "memory.replacement = \"clock\" or"),
            (swapping.as_str(), "memory.replacement = \"clock\" or"),
        ] {
            let text = base.replace(
                "device = \"disk\"\n        [[device]]",
                &format!("device = \"disk\"\n        {line}\n        [[device]]"),
            );
            let message = refused_as_read(&text);
            assert!(
                message.contains(&format!("{key}: applies only under")),
                "{message}"
            );
            assert!(message.contains(why), "{message}");
        }
    }
}

#[test]
fn users_and_classes_are_cross_checked() {
    let text = GOOD
        .replace(
            "class = \"edit\", weight = 1",
            "class = \"vi\", weight = -1",
        )
        .replace("terminals = 8", "terminals = 0");
    assert_eq!(
        keys(&text),
        [
            "users.terminals",
            "users.commands[0].class",
            "users.commands[0].weight",
            "users.commands"
        ]
    );
    let text = GOOD.replace(
        "cpu = { exp = { mean = \"200ms\" } }",
        "instructions = { exp = { mean = 0.2 } }",
    );
    assert_eq!(keys(&text), ["system.mips"]);
}

#[test]
fn segment_faults_are_checked_by_key() {
    let with = |sf: &str| {
        GOOD.replace(
            "cpu = { exp = { mean = \"200ms\" } }",
            &format!("cpu = {{ exp = {{ mean = \"200ms\" }} }}\nsegment_faults = {sf}"),
        )
    };
    let sys = SystemFile::parse("t.toml", &with("{ per_command = 2.5, cpu = \"3ms\" }"))
        .unwrap()
        .validate("t.toml")
        .unwrap();
    assert_eq!(
        sys.classes[0].segment_faults,
        Some(SegmentFaults {
            per_command: 2.5,
            cpu: SimTime::from_nanos(3_000_000)
        })
    );
    assert_eq!(
        keys(&with("{ per_command = -1, cpu = \"-1ms\" }")),
        [
            "class[edit].segment_faults.per_command",
            "class[edit].segment_faults.cpu"
        ]
    );
}

#[test]
fn a_processor_speed_may_be_a_calibration_with_a_hit_ratio() {
    let with = |mips: &str| {
        GOOD.replace(
            "quantum = \"100ms\"",
            &format!("quantum = \"100ms\"\nmips = {mips}"),
        )
    };
    let sys = SystemFile::parse(
        "t.toml",
        &with("{ cached = 0.92, uncached = 0.584, hit_ratio = 0.75 }"),
    )
    .unwrap()
    .validate("t.toml")
    .unwrap();
    // The report's USL: 0.80 MIPS at a 75% hit ratio.
    let mips = sys.cpu.mips.unwrap();
    assert!((mips - 1.0 / (0.75 / 0.92 + 0.25 / 0.584)).abs() < 1e-12);
    assert!((mips - 0.80).abs() < 0.005);
    let sys = SystemFile::parse("t.toml", &with("0.5"))
        .unwrap()
        .validate("t.toml")
        .unwrap();
    assert_eq!(sys.cpu.mips, Some(0.5));
    // Without it, no speed is claimed.
    let sys = SystemFile::parse("t.toml", GOOD)
        .unwrap()
        .validate("t.toml")
        .unwrap();
    assert_eq!(sys.cpu.mips, None);
    for (mips, expected) in [
        (
            "{ cached = 0.92, uncached = 0, hit_ratio = 1.5 }",
            vec!["system.mips.uncached", "system.mips.hit_ratio"],
        ),
        (
            "{ cached = 0.92, uncached = 0.5, hit = 0.5 }",
            vec!["system.mips.hit", "system.mips.hit_ratio"],
        ),
        ("-1", vec!["system.mips"]),
    ] {
        assert_eq!(keys(&with(mips)), expected, "{mips}");
    }
}

#[test]
fn a_login_profile_needs_24_hours() {
    let text = GOOD.replace(
            "commands = [",
            "login = { per_hour = [1, 2], session = { exp = { mean = \"1h\" } } }\n        commands = [",
        );
    assert_eq!(keys(&text), ["users.login.per_hour"]);
}

/// GOOD under swapping, with `[files]` holding `files`.
fn with_files(files: &str) -> String {
    format!(
        "{}\n[files]\n{files}\n",
        GOOD.replace("policy = \"paging\"", "policy = \"swapping\"")
            .replace("locality = { cfl = { b = \"5ms\", c = 20 } }", "")
    )
}

#[test]
fn a_kernel_that_uses_less_memory_than_the_machine_has_runs_with_what_it_uses() {
    // 512 KiB in the machine, of which the kernel uses 256 KiB (as 32V
    // uses at most PHYSPAGES pages): user memory is 256 less 128 KiB,
    // and the rest is noted as idle.
    let usable = |value: &str| {
        GOOD.replace(
            "kernel = \"128KiB\"",
            &format!("kernel = \"128KiB\"\n        usable = {value}"),
        )
    };
    let sys = system(&usable("\"256KiB\""));
    assert_eq!(
        (sys.memory.installed, sys.memory.size),
        (512 * 1024, 256 * 1024)
    );
    assert_eq!(sys.memory.user_bytes(), 128 * 1024);
    assert!(
        sys.notes()
            .iter()
            .any(|n| n.contains("the machine has 524288 bytes, of which the kernel uses 262144")),
        "{:?}",
        sys.notes()
    );
    // More than the machine has: all of it, nothing noted.
    let sys = system(&usable("\"1MiB\""));
    assert_eq!(
        (sys.memory.installed, sys.memory.size),
        (512 * 1024, 512 * 1024)
    );
    assert!(sys.notes().is_empty(), "{:?}", sys.notes());
    // Refused by key: a part of a page, or no room beside the kernel.
    assert_eq!(keys(&usable("\"300000B\"")), ["memory.usable"]);
    let problems = problems(&usable("\"128KiB\""));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].key, "memory.kernel");
    assert!(
        problems[0].message.contains("memory.usable"),
        "{problems:?}"
    );
}

#[test]
fn a_process_limit_is_whole_pages_of_memory_under_swapping() {
    let limited = |value: &str| {
        GOOD.replace("policy = \"paging\"", "policy = \"swapping\"")
            .replace(
                "kernel = \"128KiB\"",
                &format!("kernel = \"128KiB\"\n        process_limit = {value}"),
            )
    };
    let sys = system(&limited("\"64KiB\""));
    assert_eq!(
        sys.memory.largest_image(),
        (64 * 1024, "memory.process_limit")
    );
    // Above user memory it bounds nothing.
    let sys = system(&limited("\"1MiB\""));
    assert_eq!(sys.memory.largest_image(), (384 * 1024, "user memory"));
    for bad in ["\"1500B\"", "\"0B\""] {
        assert_eq!(keys(&limited(bad)), ["memory.process_limit"], "{bad}");
    }
}

#[test]
fn a_program_that_reads_files_is_not_run_as_a_script() {
    // `compile` given runs of its own, but its class reads a file: a
    // script reads and writes through its programs. Run plainly, it may.
    let text = with_files("buffers = 10\ncopy_rate = \"2MB/s\"").replace(
        "name = \"edit\"",
        "name = \"edit\"\n        runs = [{ class = \"compile\", runs = [\"compile\"] }]",
    ) + r#"
        [[class]]
        name = "compile"
        cpu = { exp = { mean = "200ms" } }
        size = "8KiB"
        files = [{ read = "src" }]
        [[file]]
        name = "src"
        size = "2KiB"
    "#;
    let found = problems(&text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].key, "class[edit].runs[compile].runs");
    assert!(
        found[0].message.contains("reads and writes files"),
        "{found:?}"
    );
}

#[test]
fn the_buffer_cache_validates_with_v7_s_defaults() {
    let text = with_files("buffers = 100\ncopy_rate = \"2MB/s\"");
    let system = SystemFile::parse("t.toml", &text)
        .and_then(|f| f.validate("t.toml"))
        .unwrap();
    let files = system.files.unwrap();
    assert_eq!(
        (files.buffers, files.block, files.read_ahead),
        (100, 512, true)
    );
    assert_eq!(files.copy, SimTime::from_nanos(256_000));
    assert_eq!(files.bytes(), 51_200);
    assert_eq!(files.blocks_of(64 * 1024), 128);
    assert_eq!(files.blocks_of(513), 2);
    let text =
        with_files("buffers = 10\nblock = \"1KiB\"\nread_ahead = false\ncopy_rate = \"2MB/s\"");
    let files = SystemFile::parse("t.toml", &text)
        .and_then(|f| f.validate("t.toml"))
        .unwrap()
        .files
        .unwrap();
    assert_eq!((files.block, files.read_ahead), (1024, false));
}

#[test]
fn the_buffer_cache_s_mistakes_are_named() {
    let cases = [
        (
            "buffers = 0\ncopy_rate = \"2MB/s\"",
            "files.buffers",
            "at least 1",
        ),
        (
            "buffers = 10\nblock = \"1000B\"\ncopy_rate = \"2MB/s\"",
            "files.block",
            "512-byte sectors",
        ),
        (
            "buffers = 10\nblock = \"0B\"\ncopy_rate = \"2MB/s\"",
            "files.block",
            "> 0",
        ),
        (
            "buffers = 10\ncopy_rate = \"0B/s\"",
            "files.copy_rate",
            "rate > 0",
        ),
        (
            // 300 buffers of 512 bytes do not fit in 128 KiB of kernel.
            "buffers = 300\ncopy_rate = \"2MB/s\"",
            "files.buffers",
            "must fit in the kernel's part of memory",
        ),
    ];
    for (files, key, words) in cases {
        let found = problems(&with_files(files));
        assert!(
            found
                .iter()
                .any(|p| p.key == key && p.message.contains(words)),
            "{files}: {found:?}"
        );
    }
    assert_eq!(
        keys(&with_files("buffers = 10")),
        ["syntax"],
        "copy_rate is required"
    );
    // Under paging the cache serves data files; one without a device
    // goes to the one paging drive, and over several drives must name its
    // own.
    let paged = format!(
        "{GOOD}\n[files]\nbuffers = 10\ncopy_rate = \"2MB/s\"\n[[file]]\nname = \"f\"\nsize = \"1KiB\"\n"
    );
    let system = SystemFile::parse("t.toml", &paged)
        .and_then(|f| f.validate("t.toml"))
        .unwrap();
    assert_eq!(system.files.unwrap().data[0].device, 0);
    let spread = paged
        .replace("device = \"disk\"\n", "device = [\"disk\", \"disk2\"]\n")
        .replace(
            "[users]",
            "[[device]]\nname = \"disk2\"\nrate = \"1MB/s\"\n[users]",
        );
    let found = problems(&spread);
    assert!(
        found
            .iter()
            .any(|p| p.key == "file[f].device" && p.message.contains("is required here")),
        "{found:?}"
    );
}

#[test]
fn data_files_validate_and_their_mistakes_are_named() {
    let cache = "buffers = 100\ncopy_rate = \"2MB/s\"";
    let files = "\n[[file]]\nname = \"macros\"\nsize = \"8KiB\"\n[[file]]\nname = \"tmp\"\nsize = \"3KiB\"\nprivate = true\ndevice = \"disk\"\n";
    let with = |accesses: &str, extra: &str| {
        with_files(cache).replace(
            "size = \"64KiB\"",
            &format!("size = \"64KiB\"\n        files = {accesses}"),
        ) + files
            + extra
    };
    let good = with(
        "[{ read = \"macros\" }, { write = \"tmp\" }, { read = \"tmp\" }]",
        "",
    );
    let system = SystemFile::parse("t.toml", &good)
        .and_then(|f| f.validate("t.toml"))
        .unwrap();
    let fs = system.files.as_ref().unwrap();
    assert_eq!(fs.data.len(), 2);
    assert_eq!((fs.data[0].size, fs.data[0].private), (8192, false));
    assert_eq!((fs.data[1].device, fs.data[1].private), (0, true));
    // Without a device, a file is on the programs' device (here the
    // swap device).
    assert_eq!(fs.data[0].device, 0);
    assert_eq!(
        system.classes[0].files,
        [
            FileAccess::Read(0),
            FileAccess::Write(1),
            FileAccess::Read(1)
        ]
    );
    let cases = [
        (
            with("[{ read = \"nothing\" }]", ""),
            "class[edit].files[0]",
            "no [[file]] named",
        ),
        (
            with("[{ write = \"macros\" }]", ""),
            "class[edit].files[0]",
            "is shared",
        ),
        (
            with("[]", "[[file]]\nname = \"macros\"\nsize = \"1KiB\"\n"),
            "file[macros].name",
            "duplicate file name",
        ),
        (
            with("[]", "[[file]]\nname = \"empty\"\nsize = \"0B\"\n"),
            "file[empty].size",
            "> 0",
        ),
        (
            with(
                "[]",
                "[[file]]\nname = \"far\"\nsize = \"1KiB\"\ndevice = \"tape\"\n",
            ),
            "file[far].device",
            "no [[device]] named",
        ),
    ];
    for (text, key, words) in cases {
        let found = problems(&text);
        assert!(
            found
                .iter()
                .any(|p| p.key == key && p.message.contains(words)),
            "{key}: {found:?}"
        );
    }
    // Data files without a cache: refused where named.
    let uncached = GOOD
        .replace("policy = \"paging\"", "policy = \"swapping\"")
        .replace("locality = { cfl = { b = \"5ms\", c = 20 } }", "")
        + files;
    assert!(
        keys(&uncached).contains(&"file".to_string()),
        "{:?}",
        keys(&uncached)
    );
    let uncached = uncached.replace(
        "size = \"64KiB\"",
        "size = \"64KiB\"\n        files = [{ read = \"macros\" }]",
    );
    assert!(
        keys(&uncached).contains(&"class[edit].files".to_string()),
        "{:?}",
        keys(&uncached)
    );
}

#[test]
fn a_sticky_text_needs_swapping_and_a_cache() {
    let sticky = |text: &str| {
        text.replace(
            "size = \"64KiB\"",
            "size = \"64KiB\"\n        sticky = true",
        )
    };
    let cached = sticky(&with_files("buffers = 10\ncopy_rate = \"2MB/s\""));
    let system = SystemFile::parse("t.toml", &cached)
        .and_then(|f| f.validate("t.toml"))
        .unwrap();
    assert!(system.classes[0].sticky);
    for text in [
        sticky(GOOD),
        sticky(&format!(
            "{GOOD}\n[files]\nbuffers = 10\ncopy_rate = \"2MB/s\"\n"
        )),
    ] {
        let found = problems(&text);
        assert!(
            found.iter().any(|p| p.key == "class[edit].sticky"),
            "{found:?}"
        );
    }
}

#[test]
fn a_region_nests_the_sets_and_its_mistakes_are_named() {
    let with = |region: &str| clocked(&format!("{PHASES}, region = {{ {region} }}"), "");
    let system = SystemFile::parse(
        "t.toml",
        &with(r#"set = 40, phase = { exp = { mean = "10s" } }"#),
    )
    .and_then(|f| f.validate("t.toml"))
    .unwrap();
    let Some(Locality::Phases(phases)) = &system.classes[0].locality else {
        panic!("the phase model");
    };
    let region = phases.region.as_ref().unwrap();
    assert_eq!(region.pages, 40);
    assert_eq!(region.phase.mean(), 10.0);
    for (region, key) in [
        (
            r#"set = 10, phase = { exp = { mean = "10s" } }"#,
            "class[edit].locality.phases.region.set",
        ),
        (
            r#"set = 65, phase = { exp = { mean = "10s" } }"#,
            "class[edit].locality.phases.region.set",
        ),
        (
            r#"set = 30.5, phase = { exp = { mean = "10s" } }"#,
            "class[edit].locality.phases.region.set",
        ),
        (
            r#"set = 40, phase = { det = { value = "0s" } }"#,
            "class[edit].locality.phases.region.phase",
        ),
    ] {
        assert!(
            keys(&with(region)).contains(&key.to_string()),
            "{region}: {:?}",
            keys(&with(region))
        );
    }
}

#[test]
fn a_contiguous_layout_needs_the_cylinder_size_of_an_arm_holding_files() {
    let armed_files = |arm_extra: &str| {
        armed(&format!("{ARM}{arm_extra}"), "")
            .replace("policy = \"paging\"", "policy = \"swapping\"")
            .replace("locality = { cfl = { b = \"5ms\", c = 20 } }", "")
            + "\n[files]\nbuffers = 10\ncopy_rate = \"2MB/s\"\nlayout = \"contiguous\"\n"
    };
    assert!(
        keys(&armed_files("")).contains(&"device[disk].arm.cylinder".to_string()),
        "{:?}",
        keys(&armed_files(""))
    );
    assert_eq!(
        keys(&armed_files(", cylinder = \"209KiB\"")),
        Vec::<String>::new()
    );
}

#[test]
fn a_file_larger_than_its_area_is_refused_by_key() {
    // An area of 3 cylinders of 4 KiB: 12 KiB. A 16 KiB data file, or a
    // 64 KiB program, does not fit.
    let text = armed(
        &format!("{ARM}, cylinder = \"4KiB\""),
        "file_system = [10, 12]\n",
    )
    .replace("policy = \"paging\"", "policy = \"swapping\"")
    .replace("locality = { cfl = { b = \"5ms\", c = 20 } }", "")
        + "\n[files]\nbuffers = 10\ncopy_rate = \"2MB/s\"\n[[file]]\nname = \"big\"\nsize = \"16KiB\"\n";
    let found = keys(&text);
    for key in ["file[big].size", "class[edit].size"] {
        assert!(found.contains(&key.to_string()), "{key}: {found:?}");
    }
}

/// GOOD's disk as the drive `drive`, with `extra` keys on the device and
/// its own seek, rpm and rate left to the drive.
fn drive(drive: &str, extra: &str) -> String {
    GOOD.replace(
        "seek = { uniform = { low = \"10ms\", high = \"50ms\" } }\n        rpm = 3600\n        rate = \"800KB/s\"",
        &format!("drive = \"{drive}\"\n{extra}"),
    )
}

fn system(text: &str) -> crate::system::System {
    SystemFile::parse("t.toml", text)
        .unwrap()
        .validate("t.toml")
        .unwrap()
}

#[test]
fn a_named_drive_fills_in_its_geometry_and_figures() {
    use crate::system::{Geometry, Rotation};
    let sys = system(&drive("rm03", ""));
    let d = &sys.devices[0];
    let arm = d.arm.as_ref().unwrap();
    assert_eq!(arm.cylinders, 823);
    let rm03 = Geometry {
        sectors: 32,
        tracks: 5,
        sector_bytes: 512,
    };
    assert_eq!(arm.geometry, Some(rm03));
    assert_eq!(arm.cylinder_bytes, Some(81_920));
    assert!((arm.seek.time(1) - 0.006).abs() < 1e-12);
    assert!((arm.seek.time(822) - 0.055).abs() < 1e-12);
    // 32 sectors of 512 bytes 60 times a second; the uniform rule.
    assert_eq!((d.rate, d.revolution), (983_040.0, 1.0 / 60.0));
    assert_eq!(arm.rotation, None);
    // The positional rule takes 32V's search lead unless told otherwise.
    let sys = system(&drive("rm03", "rotation = \"position\""));
    let arm = sys.devices[0].arm.as_ref().unwrap();
    assert_eq!(arm.rotation, Some(Rotation { rpm: 3600, lead: 2 }));
    let sys = system(&drive(
        "rm03",
        "rotation = \"position\"\nsearch_lead = 0\nrpm = 2400\narm = { cylinders = 400, order = \"disksort\" }",
    ));
    let (d, arm) = (&sys.devices[0], sys.devices[0].arm.as_ref().unwrap());
    assert_eq!(arm.rotation, Some(Rotation { rpm: 2400, lead: 0 }));
    assert_eq!(
        (arm.cylinders, arm.order, d.rate),
        (400, Order::Disksort, 655_360.0)
    );
    // An RP06 as the shipped scenarios give its rate, to three figures.
    let rp06 = drive("rp06", "rotation = \"position\"\nrate = \"676KB/s\"");
    let arm = system(&rp06).devices[0].arm.clone().unwrap();
    assert_eq!((arm.cylinders, arm.cylinder_bytes), (815, Some(214_016)));
    // An RK07's seek figures are the scenario's to give; its driver does
    // not search.
    let rk07 = drive(
        "rk07",
        "rotation = \"position\"\narm = { track = \"8ms\", average = \"25ms\", full = \"50ms\" }",
    );
    let arm = system(&rk07).devices[0].arm.clone().unwrap();
    assert_eq!(arm.rotation, Some(Rotation { rpm: 3600, lead: 0 }));
    assert_eq!(arm.geometry.unwrap().per_cylinder(), 66);
    // A geometry given key by key.
    let own = armed(
        &format!("{ARM}, sectors = 22, tracks = 19"),
        "rotation = \"position\"\nsearch_lead = 2",
    )
    .replace("rate = \"800KB/s\"", "");
    let (d, arm) = {
        let sys = system(&own);
        (sys.devices[0].clone(), sys.devices[0].arm.clone().unwrap())
    };
    assert_eq!(arm.cylinder_bytes, Some(214_016));
    assert_eq!(d.rate, 675_840.0);
}

#[test]
fn bad_drives_geometries_and_rotations_name_their_keys() {
    let position = "rotation = \"position\"";
    for (text, key) in [
        (drive("rm02", ""), "device[disk].drive"),
        (drive("rm03", "search_lead = 2"), "device[disk].search_lead"),
        (
            drive("rm03", &format!("{position}\nsearch_lead = 32")),
            "device[disk].search_lead",
        ),
        (
            drive("rm03", &format!("{position}\nsearch_lead = -1")),
            "device[disk].search_lead",
        ),
        (
            drive("rm03", &format!("{position}\nrpm = 3600.5")),
            "device[disk].rpm",
        ),
        (
            drive("rm03", &format!("{position}\nrate = \"1MB/s\"")),
            "device[disk].rate",
        ),
        (armed(ARM, position), "device[disk].rotation"),
        (
            GOOD.replace("rpm = 3600", position),
            "device[disk].rotation",
        ),
        (
            armed(&format!("{ARM}, sectors = 22, tracks = 19"), position),
            "device[disk].rate",
        ),
        (
            armed(&format!("{ARM}, sectors = 22"), ""),
            "device[disk].arm.tracks",
        ),
        (
            armed(&format!("{ARM}, sectors = 0, tracks = 19"), ""),
            "device[disk].arm.sectors",
        ),
        (
            armed(&format!("{ARM}, sector = \"1KiB\""), ""),
            "device[disk].arm.sector",
        ),
        (
            armed(
                &format!("{ARM}, sectors = 22, tracks = 19, cylinder = \"81920B\""),
                "",
            ),
            "device[disk].arm.cylinder",
        ),
        (GOOD.replace("rate = \"800KB/s\"", ""), "device[disk].rate"),
    ] {
        assert_eq!(keys(&text), [key], "{text}");
    }
    // An RK07's seek figures are not in the sources.
    assert_eq!(
        keys(&drive("rk07", "")),
        [
            "device[disk].arm.track",
            "device[disk].arm.average",
            "device[disk].arm.full"
        ]
    );
    // A rule that is not one, under its key.
    let found = problems(&drive("rm03", "rotation = \"sideways\""));
    assert_eq!(found.len(), 1);
    assert!(found[0].message.contains("rotation"), "{found:?}");
}

/// GOOD swapping, its disk `disk` (a device's keys, with `rpm` and `rate`
/// of GOOD after them), with a cache whose `[files]` has `extra`.
fn cached(disk: &str, extra: &str) -> String {
    GOOD.replace(
        "seek = { uniform = { low = \"10ms\", high = \"50ms\" } }",
        disk,
    )
    .replace("policy = \"paging\"", "policy = \"swapping\"")
    .replace("locality = { cfl = { b = \"5ms\", c = 20 } }", "")
        + &format!("\n[files]\nbuffers = 10\ncopy_rate = \"2MB/s\"\n{extra}\n")
}

#[test]
fn file_system_layouts_validate_and_bad_ones_name_their_keys() {
    use crate::system::{Interleave, Layout};
    let rm03 = "drive = \"rm03\"\nfile_system = [100, 822]";
    let layout = |disk: &str, extra: &str| system(&cached(disk, extra)).files.unwrap().layout;
    assert_eq!(
        layout(rm03, "layout = \"interleaved\""),
        Layout::Interleaved(Interleave {
            gap: 3,
            blocks: 500
        })
    );
    assert_eq!(
        layout(
            rm03,
            "layout = \"interleaved\"\ninterleave = { gap = 4, blocks = 400 }"
        ),
        Layout::Interleaved(Interleave {
            gap: 4,
            blocks: 400
        })
    );
    assert_eq!(layout(rm03, "layout = \"aged\""), Layout::Aged);
    assert_eq!(layout(rm03, ""), Layout::Scattered);
    let bare = format!("arm = {{ {ARM} }}");
    for (disk, extra, key) in [
        (
            bare.as_str(),
            "layout = \"interleaved\"",
            "device[disk].arm.sectors",
        ),
        (
            bare.as_str(),
            "layout = \"aged\"",
            "device[disk].arm.sectors",
        ),
        (rm03, "interleave = { gap = 3 }", "files.interleave"),
        (
            rm03,
            "layout = \"interleaved\"\ninterleave = { gap = 0 }",
            "files.interleave.gap",
        ),
        (
            rm03,
            "layout = \"interleaved\"\ninterleave = { gap = 11, blocks = 10 }",
            "files.interleave.gap",
        ),
        (
            rm03,
            "layout = \"interleaved\"\ninterleave = { blocks = 501 }",
            "files.interleave.blocks",
        ),
        // Three cylinders of 160 blocks: fewer than a group of 500.
        (
            "drive = \"rm03\"\nfile_system = [100, 102]",
            "layout = \"interleaved\"",
            "files.interleave.blocks",
        ),
        (
            "drive = \"rm03\"\narm = { sector = \"1KiB\", cylinder = \"160KiB\" }",
            "layout = \"aged\"",
            "files.block",
        ),
    ] {
        assert_eq!(keys(&cached(disk, extra)), [key], "{disk} {extra}");
    }
}
