//! The time-sharing model against exact results and against the effects it
//! exists to show: with memory to spare it is the central-server network
//! and matches exact MVA; under paging, throughput has a thrashing knee
//! that moves with memory size; logins over a day follow Erlang's loss
//! formula; paging and swapping see the same workload.

use crate::{
    assert_above, assert_covers, assert_proportion, inline_system, run_system as run,
    scenario_path, seed, system,
};
use statrs::distribution::{ContinuousCDF, FisherSnedecor};
use tpsim::core::SimTime;
use tpsim::models::System;
use tpsim::models::analytic::ClosedModel;
use tpsim::models::summary::{ClassKind, Summary};
use tpsim::models::system::{Policy, Population, simulate};

/// A process that touches all its 20 pages at once, every second, with
/// memory to spare, beside one user's small commands.
const SWEEPER: &str = r#"
    name = "sweeper"
    seed = 5
    [run]
    end_time = "100s"
    [system]
    quantum = "100ms"
    [memory]
    policy = "paging"
    size = "64KiB"
    page = "1KiB"
    device = "disk"
    [[device]]
    name = "disk"
    seek = "10ms"
    rate = "1MB/s"
    fault_cpu = "1ms"
    [users]
    terminals = 1
    think = { exp = { mean = "2s" } }
    commands = [{ class = "job", weight = 1 }]
    [[class]]
    name = "job"
    cpu = { exp = { mean = "50ms" } }
    size = "8KiB"
    locality = "sweep"
    [[class]]
    name = "sweep"
    cpu = { det = { value = "10ms" } }
    size = "20KiB"
    locality = "sweep"
    [[background]]
    name = "probe"
    class = "sweep"
    sleep = { det = { value = "1s" } }
"#;

/// Nothing was taken, and the probe of `SWEEPER` faulted on each of its 20
/// pages once over more than 50 passes.
fn assert_probe_faults_once(s: &Summary) {
    assert_eq!(s.paging.as_ref().unwrap().pages_stolen, 0);
    let probe = s.classes.iter().find(|c| c.name == "probe").unwrap();
    let passes = probe.completions as f64;
    assert!(passes > 50.0, "{probe:?}");
    assert!(
        (probe.faults_per_command.unwrap() * passes - 20.0).abs() < 1e-9,
        "{probe:?}"
    );
}

#[test]
fn a_sweeping_process_faults_on_every_missing_page_at_once() {
    let s = run(&inline_system(SWEEPER), 0);
    // Nothing is ever taken: the probe faults its 20 pages in its first
    // pass and never again; each command faults its 8 pages.
    assert_probe_faults_once(&s);
    assert_eq!(command(&s, "job").faults_per_command, Some(8.0));
}

#[test]
fn under_frames_the_probe_faults_its_pages_once_with_memory_to_spare() {
    // The working-set probe as scripts/working-set-probe.py writes it for
    // memory as frames: one phase over all its pages for the whole run,
    // referenced every microsecond (a 10-ms pass touches each of its pages
    // hundreds of times). With memory to spare nothing is taken, and it
    // faults on each of its 20 pages once, as the sweeping probe does.
    let one_phase = |set| {
        format!(
            "locality = {{ phases = {{ set = {set}, phase = {{ det = {{ value = \"1000000s\" }} }}, reference = \"1us\" }} }}"
        )
    };
    let text = SWEEPER
        .replace(
            "policy = \"paging\"",
            "policy = \"paging\"\n    replacement = \"clock\"",
        )
        .replacen("locality = \"sweep\"", &one_phase(8), 1)
        .replacen("locality = \"sweep\"", &one_phase(20), 1);
    let s = run(&inline_system(&text), 0);
    assert_probe_faults_once(&s);
}

#[test]
fn set_sizes_sample_every_process_in_the_multiprogramming_set() {
    // Two meters of the same thing by two paths: the multiprogramming
    // level each load sample records, and the processes the set-size
    // sampler files by class, summed.
    let mut at_end = 0;
    for name in ["multics-usl-1975", "berkeley-1979-paged", "thrashing-clock"] {
        let path = scenario_path(name);
        let mut sys = tpsim::models::load_system(
            &path.display().to_string(),
            &std::fs::read_to_string(&path).unwrap(),
        )
        .unwrap();
        sys.settings.end_time = tpsim::core::SimTime::from_secs(3 * 3600);
        let run = simulate(&sys, seed(sys.settings.seed), 0);
        let warmup = sys.settings.warmup.as_secs_f64();
        let in_memory: u64 = run
            .load
            .iter()
            .filter(|l| l.time > warmup)
            .map(|l| u64::from(l.multiprogramming))
            .sum();
        let resident: u64 = run.set_sizes.iter().map(|p| p.resident_samples).sum();
        assert!(in_memory > 0, "{name}");
        assert_eq!(resident, in_memory, "{name}");
        // Only page counts something was sampled at are listed.
        assert!(
            run.set_sizes
                .iter()
                .all(|p| p.resident_samples > 0 || p.working_set_samples > 0),
            "{name}"
        );
        // Samples taken before the warm-up's end are marked so; a sample
        // at its very end (in two of the three) is not before it.
        at_end += run.load.iter().filter(|l| l.time == warmup).count();
        for l in &run.load {
            assert_eq!(l.warmup, l.time < warmup, "{name}: {l:?}");
        }
        // Working-set estimates exist under the Multics scheduler only.
        let estimates: u64 = run.set_sizes.iter().map(|p| p.working_set_samples).sum();
        assert_eq!(estimates > 0, name.starts_with("multics"), "{name}");
        if name.starts_with("multics") {
            assert_eq!(estimates, in_memory, "{name}");
        }
    }
    assert_eq!(at_end, 2);
}

fn replicate(sys: &System, replications: u64) -> Vec<Summary> {
    (0..replications).map(|r| run(sys, r)).collect()
}

fn command<'a>(s: &'a Summary, name: &str) -> &'a tpsim::models::summary::ClassSummary {
    s.classes.iter().find(|c| c.name == name).unwrap()
}

#[test]
fn with_memory_to_spare_the_system_is_the_central_server_network() {
    let mut sys = system("timesharing-central-server");
    sys.settings.end_time = SimTime::from_secs(20_000);
    let model = ClosedModel::of_system(&sys).unwrap();
    let exact = model.solve(model.terminals).pop().unwrap();
    // The QSP interactive example: X = 0.4745/s, R = 27.15 s.
    assert!((exact.throughput - 0.4745).abs() < 5e-5 && (exact.response - 27.15).abs() < 5e-3);
    let runs = replicate(&sys, 20);
    for s in &runs {
        let swaps = s.swapping.as_ref().unwrap();
        assert_eq!((swaps.swap_ins, swaps.swap_outs), (0, 0), "nothing swaps");
    }
    let field = |f: &dyn Fn(&Summary) -> f64| runs.iter().map(f).collect::<Vec<_>>();
    assert_covers(
        "throughput",
        &field(&|s| s.classes[0].throughput),
        exact.throughput,
        0.02,
    );
    assert_covers(
        "response",
        &field(&|s| s.classes[0].mean_response.unwrap()),
        exact.response,
        0.05,
    );
    for (k, center) in model.centers.iter().enumerate() {
        // Stations are reported as cpu, then the devices in order, as MVA's
        // centres are.
        assert_eq!(runs[0].stations[k].name, center.name);
        assert_covers(
            &format!("{} utilisation", center.name),
            &field(&|s| s.stations[k].utilization),
            exact.utilization[k],
            0.03,
        );
    }
    assert_covers(
        "processor time on user work",
        &field(&|s| s.cpu.as_ref().unwrap().user),
        exact.utilization[0],
        0.03,
    );
}

#[test]
fn the_mva_of_a_time_sharing_system_names_what_it_leaves_out() {
    // The scenario's own: memory never short, and exec's reads of a fixed
    // size (service of SCV 0) at the programs' device.
    let base = system("timesharing-central-server");
    let caveats = ClosedModel::of_system(&base).unwrap().caveats;
    assert_eq!(
        caveats,
        [
            "memory is taken to be never short: page faults and swaps are left out",
            "device \"programs\" is FCFS with non-exponential service (SCV 0.000): not product form",
        ]
    );
    let mut sys = base.clone();
    sys.cpu.scheduler = tpsim::models::system::Scheduler::Unix(Default::default());
    sys.cpu.context_switch = SimTime::from_nanos(1_000);
    sys.cpu.max_multiprogramming = Some(3);
    sys.users.mix[0].detached = 0.5;
    let mut expected = vec![caveats[0].as_str()];
    expected.extend([
        "commands run in the background are taken as waited for",
        "context switches are left out",
        "the processor is taken to be shared equally (round robin); the unix scheduler's priorities are left out",
        "the eligibility limit is left out",
        caveats[1].as_str(),
    ]);
    assert_eq!(ClosedModel::of_system(&sys).unwrap().caveats, expected);
}

/// The throughput of `replications` runs of `sys` with `users` users and
/// `memory_kib` KiB of memory.
fn throughputs(sys: &System, users: u32, memory_kib: u64, replications: u64) -> Vec<f64> {
    let mut sys = sys.clone();
    sys.users.population = Population::Fixed(users);
    sys.memory.size = memory_kib * 1024;
    sys.settings.warmup = SimTime::from_secs(500);
    sys.settings.end_time = SimTime::from_secs(3_500);
    (0..replications)
        .map(|r| run(&sys, r).classes[0].throughput)
        .collect()
}

/// The log of `a / b`, replication by replication: paired on common random
/// numbers, since run r of both configurations uses the same streams.
fn log_ratios(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(a, b)| (a / b).ln()).collect()
}

#[test]
fn paging_throughput_has_a_thrashing_knee_that_moves_with_memory() {
    const R: u64 = 10;
    let sys = system("thrashing");
    let small = |users| throughputs(&sys, users, 160, R);
    let large = |users| throughputs(&sys, users, 320, R);
    let (s4, s10, s24, s32) = (small(4), small(10), small(24), small(32));
    let (l4, l10, l24) = (large(4), large(10), large(24));
    // At 160 KiB throughput rises from 4 to 10 users, then collapses: 32
    // users get less than half the work of 10 done.
    assert_above("160 KiB: ln X(10) / X(4)", &log_ratios(&s10, &s4), 0.0);
    assert_above("160 KiB: ln X(10) / X(24)", &log_ratios(&s10, &s24), 0.0);
    assert_above(
        "160 KiB: ln X(10) / X(32)",
        &log_ratios(&s10, &s32),
        2f64.ln(),
    );
    // Twice the memory moves the knee beyond 24 users (throughput holds
    // within 10% of its 10-user level, where the processor saturates), and
    // at 24 users more than doubles the work done.
    assert_above(
        "320 KiB: ln X(24) / X(10)",
        &log_ratios(&l24, &l10),
        0.9f64.ln(),
    );
    assert_above(
        "24 users: ln X(320 KiB) / X(160 KiB)",
        &log_ratios(&l24, &s24),
        2f64.ln(),
    );
    // Below the knee, memory hardly matters: within 5% either way.
    let below = crate::interval("4 users: ln X(320 KiB) / X(160 KiB)", &log_ratios(&l4, &s4));
    assert!(
        below.low() > -0.05 && below.high() < 0.05,
        "memory matters below the knee: {below:?}"
    );
}

/// The variances of the paged-minus-swapped mean response over
/// `replications`, with the paged runs under `paged_seed` and the swapped
/// ones under each of `swapped_seeds`, in that order: the paged runs serve
/// every pairing.
fn variances_of_difference(
    users: u32,
    paged_seed: u64,
    swapped_seeds: [u64; 2],
    replications: u64,
) -> [f64; 2] {
    let mut paged = system("thrashing");
    paged.users.population = Population::Fixed(users);
    paged.memory.size = 320 * 1024;
    paged.settings.end_time = SimTime::from_secs(1_500);
    paged.settings.warmup = SimTime::from_secs(150);
    let mut swapped = paged.clone();
    swapped.memory.policy = Policy::Swapping {
        device: 0,
        clear: SimTime::ZERO,
        process_limit: None,
    };
    let response = |sys: &System, seed: u64, r: u64| {
        simulate(sys, seed, r).summary.classes[0]
            .mean_response
            .unwrap()
    };
    let mut differences = [tpsim::core::Tally::new(), tpsim::core::Tally::new()];
    for r in 0..replications {
        let paged = response(&paged, seed(paged_seed), r);
        for (tally, swapped_seed) in differences.iter_mut().zip(swapped_seeds) {
            tally.add(paged - response(&swapped, seed(swapped_seed), r));
        }
    }
    differences.map(|d| d.variance())
}

#[test]
fn paging_and_swapping_see_the_same_workload() {
    // The same users, commands and demands under both policies: with common
    // random numbers the difference between the policies varies far less
    // from replication to replication than with independent streams.
    // An F test of the two variances, at the suite's per-check level.
    const R: u64 = 80;
    let [common, independent] = variances_of_difference(4, 1, [1, 2], R);
    let df = (R - 1) as f64;
    let critical = FisherSnedecor::new(df, df)
        .unwrap()
        .inverse_cdf(crate::check_level());
    crate::note_check("common random numbers: F test");
    assert!(
        independent / common > critical,
        "common {common} vs independent {independent}: F = {} <= {critical}",
        independent / common
    );
}

const SESSIONS: &str = r#"
    name = "sessions"
    [run]
    end_time = "2000h"
    warmup = "10h"
    [system]
    quantum = "100ms"
    [memory]
    policy = "swapping"
    size = "4MiB"
    page = "1KiB"
    device = "disk"
    [[device]]
    name = "disk"
    seek = "30ms"
    rate = "1MB/s"
    [users]
    terminals = 8
    think = { exp = { mean = "10min" } }
    commands = [{ class = "edit", weight = 1 }]
    login = { per_hour = [6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6], session = { hyperexp = { mean = "1h", scv = 4 } } }
    [[class]]
    name = "edit"
    cpu = { exp = { mean = "50ms" } }
    size = "32KiB"
"#;

/// Erlang's loss formula B(c, a) for c servers and offered load a.
fn erlang_b(c: u32, a: f64) -> f64 {
    (1..=c).fold(1.0, |b, k| a * b / (f64::from(k) + a * b))
}

#[test]
fn logins_are_an_erlang_loss_system() {
    // Six logins an hour, sessions of an hour on average (with high
    // variance) and eight terminals: users logged in form an M/G/8/8 loss
    // system, whose blocking follows Erlang B whatever the session
    // distribution. A user whose session ends mid-command stays for the
    // rest of it, a few tens of milliseconds against an hour.
    let mut sys = inline_system(SESSIONS);
    sys.settings.end_time = SimTime::from_secs(1000 * 3600);
    let runs = replicate(&sys, 30);
    let offered = 6.0;
    let blocking = erlang_b(8, offered);
    let refused: Vec<f64> = runs
        .iter()
        .map(|s| {
            let load = s.load.as_ref().unwrap();
            let span_hours = (s.sim_time - s.warmup) / 3600.0;
            load.logins_refused as f64 / (offered * span_hours)
        })
        .collect();
    assert_covers("refused logins", &refused, blocking, 0.15);
    let users: Vec<f64> = runs
        .iter()
        .map(|s| s.load.as_ref().unwrap().mean_users)
        .collect();
    assert_covers("users logged in", &users, offered * (1.0 - blocking), 0.03);
}

#[test]
fn logins_follow_the_hour_of_the_day_from_the_start_time() {
    // Logins only between 03:00 and 04:00, 600 an hour, each session 20
    // minutes; the clock starts at 02:30. Each day users are logged in
    // only from 1,800 s to 6,600 s after the start (03:00 to 04:20) and,
    // past the first five minutes, all through the hour and the sessions
    // that outlast it: a sample there sees about 50 or more logins' worth
    // of users (the chance of none is e^-50).
    let text = SESSIONS
        .replace("end_time = \"2000h\"", "end_time = \"48h\"")
        .replace("warmup = \"10h\"", "warmup = \"0s\"")
        .replace("terminals = 8", "terminals = 1000")
        .replace(
            "per_hour = [6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6], session = { hyperexp = { mean = \"1h\", scv = 4 } }",
            "per_hour = [0, 0, 0, 600, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], session = { det = { value = \"20min\" } }, start = \"2.5h\"",
        );
    let sys = inline_system(&text);
    let load = simulate(&sys, seed(sys.settings.seed), 0).load;
    assert_eq!(load.len(), 48 * 60);
    for sample in &load {
        let of_day = sample.time % (24.0 * 3600.0);
        let logged_in = sample.users > 0;
        if (2100.0..=6000.0).contains(&of_day) {
            assert!(logged_in, "no users at {} s", sample.time);
        } else if !(1800.0..=6600.0).contains(&of_day) {
            assert!(!logged_in, "{} users at {} s", sample.users, sample.time);
        }
    }
}

#[test]
fn users_choose_among_three_commands_by_weight() {
    // Three commands alike but for their names, weighted 1, 2 and 3: each
    // completion is the middle one with probability 2/6, whatever the
    // timing, as the choice depends on nothing else.
    let text = r#"
    name = "mix"
    [run]
    end_time = "20000s"
    warmup = "100s"
    [system]
    quantum = "100ms"
    [memory]
    policy = "swapping"
    size = "4MiB"
    page = "1KiB"
    device = "disk"
    [[device]]
    name = "disk"
    seek = "10ms"
    rate = "1MB/s"
    [users]
    terminals = 4
    think = { exp = { mean = "1s" } }
    commands = [{ class = "a", weight = 1 }, { class = "b", weight = 2 }, { class = "c", weight = 3 }]
    [[class]]
    name = "a"
    cpu = { exp = { mean = "50ms" } }
    size = "8KiB"
    [[class]]
    name = "b"
    cpu = { exp = { mean = "50ms" } }
    size = "8KiB"
    [[class]]
    name = "c"
    cpu = { exp = { mean = "50ms" } }
    size = "8KiB"
"#;
    let s = run(&inline_system(text), 0);
    let done: Vec<u64> = ["a", "b", "c"]
        .iter()
        .map(|c| command(&s, c).completions)
        .collect();
    let all: u64 = done.iter().sum();
    assert!(all > 50_000, "{done:?}");
    assert_proportion("the middle of three commands", done[1], all, 2.0 / 6.0);
}

#[test]
fn a_swapped_system_rejects_images_larger_than_user_memory() {
    let text = SESSIONS
        .replace("mean = \"10min\"", "mean = \"20s\"")
        .replace(
            "commands = [{ class = \"edit\", weight = 1 }]",
            "commands = [{ class = \"edit\", weight = 1 }, { class = \"lisp\", weight = 1 }]",
        )
        + r#"
    [[class]]
    name = "lisp"
    cpu = { exp = { mean = "1s" } }
    size = "8MiB"
    locality = { cfl = { b = "5ms", c = 100 } }
"#;
    let mut sys = inline_system(&text);
    sys.settings.end_time = SimTime::from_secs(40 * 3600);
    assert_eq!(
        sys.notes(),
        [
            "class lisp: its image (8388608 bytes) is larger than user memory (4194304 bytes); under swapping its commands will be rejected"
        ]
    );
    // LISP's commands all refused, the editor's run.
    let refused = |summary: &Summary| {
        let lisp = command(summary, "lisp");
        assert!(lisp.rejected.unwrap() > 100, "{lisp:?}");
        assert_eq!(lisp.completions, 0);
        assert!(command(summary, "edit").completions > 1000);
    };
    let swapped = run(&sys, 0);
    refused(&swapped);
    // An image of exactly the 4 MiB of user memory fits, alone, and is
    // worth no note.
    let mut exact = inline_system(&text.replace("size = \"8MiB\"", "size = \"4MiB\""));
    assert!(exact.notes().is_empty(), "{:?}", exact.notes());
    exact.settings.end_time = SimTime::from_secs(40 * 3600);
    let lisp = run(&exact, 0);
    let lisp = command(&lisp, "lisp");
    assert_eq!(lisp.rejected, Some(0));
    assert!(lisp.completions > 100, "{lisp:?}");
    // Within user memory but over the most one process may have (32V's
    // MAXUMEM): refused as well, the note naming the limit.
    let mut limited = exact.clone();
    let Policy::Swapping {
        ref mut process_limit,
        ..
    } = limited.memory.policy
    else {
        unreachable!()
    };
    *process_limit = Some(2 * 1024 * 1024);
    assert_eq!(
        limited.notes(),
        [
            "class lisp: its image (4194304 bytes) is larger than memory.process_limit (2097152 bytes); under swapping its commands will be rejected"
        ]
    );
    refused(&run(&limited, 0));
    // Under paging, the same commands run.
    let Policy::Swapping { device, .. } = sys.memory.policy else {
        unreachable!()
    };
    sys.memory.policy = Policy::Paging(tpsim::models::system::Paging {
        drives: vec![device],
        bulk_store: None,
        replacement: tpsim::models::system::Replacement::ProcessLru,
        free_target: 0,
        reclaim: false,
        soft_fault_cpu: SimTime::ZERO,
        kluster: 1,
    });
    for class in &mut sys.classes {
        class
            .locality
            .get_or_insert(tpsim::models::system::Locality::Lifetime(
                tpsim::models::system::Lifetime::Cfl { b: 0.005, c: 8.0 },
            ));
    }
    let paged = run(&sys, 0);
    let lisp = command(&paged, "lisp");
    assert_eq!(lisp.rejected, Some(0));
    assert!(lisp.completions > 100, "{lisp:?}");
    assert!(lisp.faults_per_command.unwrap() > 100.0, "{lisp:?}");
}

#[test]
fn the_eligibility_limit_caps_the_multiprogramming_level() {
    let mut sys = system("thrashing");
    sys.users.population = Population::Fixed(24);
    sys.settings.warmup = SimTime::from_secs(500);
    sys.settings.end_time = SimTime::from_secs(4_000);
    let free = replicate(&sys, 6);
    sys.cpu.max_multiprogramming = Some(4);
    let capped = replicate(&sys, 6);
    let mpl = |s: &Summary| s.memory.as_ref().unwrap().mean_multiprogramming;
    for (c, f) in capped.iter().zip(&free) {
        assert!(mpl(c) <= 4.0 + 1e-9, "{}", mpl(c));
        assert!(mpl(f) > 4.0, "{}", mpl(f));
    }
    // Load control is what rescues a thrashing system: it multiplies the
    // work done by more than 2.5, replication by replication.
    let x = |runs: &[Summary]| {
        runs.iter()
            .map(|s| s.classes[0].throughput)
            .collect::<Vec<_>>()
    };
    assert_above(
        "eligibility limit: ln X(capped) / X(free)",
        &log_ratios(&x(&capped), &x(&free)),
        2.5f64.ln(),
    );
    assert_above(
        "eligibility limit: processes waiting for eligibility",
        &capped
            .iter()
            .map(|s| s.memory.as_ref().unwrap().mean_waiting_for_memory)
            .collect::<Vec<_>>(),
        10.0,
    );
}

#[test]
fn processor_time_adds_up_and_faults_are_counted_consistently() {
    let mut sys = system("thrashing");
    sys.settings.end_time = SimTime::from_secs(5_000);
    let s = run(&sys, 0);
    let cpu = s.cpu.as_ref().unwrap();
    let total = cpu.user + cpu.fault_handling + cpu.context_switch + cpu.interrupts + cpu.idle;
    // Idle time has its own meter (the processors' busy count), so the sum
    // checks that every busy moment went to exactly one kind of work.
    assert!((total - 1.0).abs() < 1e-9, "{cpu:?}");
    let paging = s.paging.as_ref().unwrap();
    // Each fault costs 1 ms of processor time.
    let span = s.sim_time - s.warmup;
    assert!(
        (cpu.fault_handling * span - paging.faults as f64 * 0.001).abs()
            < 0.01 * cpu.fault_handling * span + 0.01,
        "{cpu:?} {paging:?}"
    );
    assert_eq!(paging.disk_reads, paging.faults);
    // Tav, the processor time per fault, is that 1 ms (a fault under way
    // at the end of the warm-up counts with part of its time).
    assert!((paging.tav - 0.001).abs() < 1e-5, "{paging:?}");
    let per_command = command(&s, "job").faults_per_command.unwrap();
    let completions = command(&s, "job").completions as f64;
    assert!(
        (per_command * completions / paging.faults as f64 - 1.0).abs() < 0.05,
        "{per_command} x {completions} vs {}",
        paging.faults
    );
}

#[test]
fn background_processes_too_big_to_swap_are_rejected_and_stay_counted_after_the_warm_up() {
    // Two copies of a 200 KiB daemon in 100 KiB of user memory: both are
    // refused when the run starts, before the 1,000 s warm-up ends, and the
    // count stands in the report.
    let text = SLEEPER
        .replace(
            "cpu = { det = { value = \"50ms\" } }\n    size = \"60KiB\"",
            "cpu = { det = { value = \"50ms\" } }\n    size = \"200KiB\"",
        )
        .replace("class = \"daemon\"", "class = \"daemon\"\n    count = 2");
    let s = run(&inline_system(&text), 0);
    let daemon = command(&s, "cron");
    assert_eq!(
        (daemon.rejected, daemon.completions),
        (Some(2), 0),
        "{daemon:?}"
    );
    assert!(command(&s, "command").completions > 500);
}

const SLEEPER: &str = r#"
    name = "sleeper"
    [run]
    end_time = "20000s"
    warmup = "1000s"
    [system]
    quantum = "100ms"
    [memory]
    policy = "swapping"
    size = "100KiB"
    page = "1KiB"
    device = "disk"
    [[device]]
    name = "disk"
    seek = "10ms"
    rate = "1MB/s"
    [users]
    terminals = 1
    think = { exp = { mean = "20s" } }
    commands = [{ class = "command", weight = 1 }]
    [[class]]
    name = "command"
    cpu = { exp = { mean = "200ms" } }
    size = "60KiB"
    [[class]]
    name = "daemon"
    cpu = { det = { value = "50ms" } }
    size = "60KiB"
    [[background]]
    name = "cron"
    class = "daemon"
    sleep = { det = { value = "60s" } }
"#;

#[test]
fn background_processes_cycle_and_sleepers_are_swapped_out_first() {
    // One user and one background process whose images cannot both be in
    // memory. The sleeping background process is the swapper's first
    // choice, pushed out at once: no waiting for the 3-second age rule.
    let sys = inline_system(SLEEPER);
    let s = run(&sys, 0);
    let daemon = command(&s, "cron");
    assert_eq!(daemon.kind, ClassKind::Background);
    let span = s.sim_time - s.warmup;
    // A cycle is 60 s of sleep plus a little work, and a swap-in when it
    // was pushed out.
    assert!(
        (daemon.completions as f64 - span / 60.2).abs() < 0.03 * span / 60.0,
        "{daemon:?}"
    );
    // Each wake-up brings the daemon in; the user's next command then
    // pushes it out again.
    let user = command(&s, "command");
    let swaps = s.swapping.as_ref().unwrap();
    let cycles = daemon.completions as f64;
    assert!(
        (swaps.swap_outs as f64) > 0.8 * cycles && (swaps.swap_outs as f64) < 1.05 * cycles,
        "{swaps:?} {daemon:?}"
    );
    assert!(user.mean_response.unwrap() < 0.5, "{user:?}");
    // The study's index counts the commands only; with processes = "all"
    // the background process counts all the time.
    let commands = s.load.as_ref().unwrap().mean_processes;
    let all = inline_system(&SLEEPER.replace("[users]", "[users]\n    processes = \"all\""));
    let all = run(&all, 0).load.unwrap().mean_processes;
    assert!(commands < 0.5, "{commands}");
    assert!((all - commands - 1.0).abs() < 1e-9, "{all} vs {commands}");

    // A background process that never sleeps can only be pushed out by the
    // age rules: the command waits 3 s out, the victim must have had 2 s in.
    // The swapper looks again each second from the command's arrival, and
    // V7 acts on an age of 3 s or more, so the command goes in at 3 s, not
    // 4: its median response is 3 s, the victim's swap-out and its own
    // read (71 ms each) and the median of its processor time (139 ms).
    let busy = inline_system(&SLEEPER.replace("value = \"50ms\"", "value = \"100000s\""));
    let s = run(&busy, 0);
    let user = command(&s, "command");
    assert!(user.mean_response.unwrap() > 2.5, "{user:?}");
    let p50 = user.response_p50.unwrap();
    assert!((3.1..3.6).contains(&p50), "{user:?}");
}

#[test]
fn a_process_swapped_in_stays_two_seconds_before_the_age_rules_take_it() {
    // Three background processes that never sleep and memory for one: each
    // out in turn longer than 3 s, so the swapper's only limit is V7's
    // other age rule, that a busy process goes out only after 2 s in. A
    // cycle is then 2 s in, a swap-out and a swap-in (10 ms seek and 60 KiB
    // at 1 MB/s each), with the processor idle during the two transfers.
    let text = SLEEPER
        .replace("value = \"50ms\"", "value = \"100000s\"")
        .replace("class = \"daemon\"", "class = \"daemon\"\n    count = 3")
        .replace("mean = \"20s\"", "mean = \"1000000s\"");
    let s = run(&inline_system(&text), 0);
    // The classes reported are what users type and the background
    // processes, not the class those processes run.
    let classes: Vec<_> = s
        .classes
        .iter()
        .map(|c| (c.name.as_str(), c.kind))
        .collect();
    assert_eq!(
        classes,
        [
            ("command", ClassKind::Command),
            ("cron", ClassKind::Background)
        ]
    );
    let transfer = 0.010 + 61_440.0 / 1e6;
    let cycle = 2.0 + 2.0 * transfer;
    let span = s.sim_time - s.warmup;
    let swaps = s.swapping.as_ref().unwrap();
    let rate = swaps.swap_ins as f64 / span;
    assert!((rate * cycle - 1.0).abs() < 0.005, "{rate}/s, {swaps:?}");
    let idle = s.cpu.as_ref().unwrap().idle;
    assert!((idle - 2.0 * transfer / cycle).abs() < 0.005, "idle {idle}");
    // One 60 KiB image of the 100 KiB is held all the time: memory is
    // given back at the end of a swap-out and taken at the start of the
    // swap-in that follows it. The process in memory is counted in the
    // multiprogramming level while it runs, not while it moves.
    let memory = s.memory.as_ref().unwrap();
    assert!((memory.mean_occupancy - 0.6).abs() < 1e-9, "{memory:?}");
    assert!(
        (memory.mean_multiprogramming - 2.0 / cycle).abs() < 0.005,
        "{memory:?}"
    );
}

#[test]
fn a_system_that_does_nothing_reports_zeros_not_zero_over_zero() {
    // SLEEPER without its background process, its one user never done
    // thinking: the processor is idle throughout, with nothing held back,
    // and its useful share of the time not idle for light load is 0.
    let text = SLEEPER
        .replace(
            "    [[background]]\n    name = \"cron\"\n    class = \"daemon\"\n    sleep = { det = { value = \"60s\" } }\n",
            "",
        )
        .replace("exp = { mean = \"20s\" }", "det = { value = \"1000000s\" }");
    assert!(!text.contains("[[background]]"));
    let s = run(&inline_system(&text), 0);
    let cpu = s.cpu.as_ref().unwrap();
    assert_eq!((cpu.idle, cpu.other_idle), (1.0, 1.0), "{cpu:?}");
    assert_eq!(cpu.useful_of_non_idle, 0.0, "{cpu:?}");
}

const MULTILEVEL: &str = r#"
    name = "multilevel"
    [run]
    end_time = "6000s"
    warmup = "500s"
    [system]
    quantum = "100ms"
    [memory]
    policy = "paging"
    size = "200KiB"
    page = "1KiB"
    device = "disk"
    bulk_store = "drum"
    disk_fraction = 0.25
    free_target = "8KiB"
    [[device]]
    name = "drum"
    seek = "1ms"
    rate = "1MB/s"
    fault_cpu = "1ms"
    [[device]]
    name = "disk"
    seek = "20ms"
    rate = "1MB/s"
    fault_cpu = "4ms"
    [users]
    terminals = 12
    think = { exp = { mean = "5s" } }
    commands = [{ class = "job", weight = 1 }]
    [[class]]
    name = "job"
    cpu = { exp = { mean = "500ms" } }
    size = "60KiB"
    locality = { cfl = { b = "20ms", c = 20 } }
"#;

#[test]
fn a_given_disk_fraction_splits_page_reads_and_fault_costs() {
    let sys = inline_system(MULTILEVEL);
    let s = run(&sys, 0);
    let p = s.paging.as_ref().unwrap();
    assert!(p.faults > 10_000, "{p:?}");
    // Each page read is a Bernoulli trial.
    let reads = p.disk_reads + p.bulk_store_reads;
    crate::assert_proportion("disk fraction", p.disk_reads, reads, 0.25);
    // Each kind of fault costs its device's processor path.
    let span = s.sim_time - s.warmup;
    let expected = (p.disk_reads as f64 * 0.004 + p.bulk_store_reads as f64 * 0.001) / span;
    let cpu = s.cpu.as_ref().unwrap();
    assert!(
        (cpu.fault_handling - expected).abs() < 0.01 * expected,
        "{cpu:?} vs {expected}"
    );
}

#[test]
fn a_larger_bulk_store_sends_fewer_page_reads_to_disk() {
    // Long commands in tight memory: most faults are of pages taken away
    // earlier, which a bulk store large enough still holds.
    let capacity = |size: &str| {
        let text = MULTILEVEL
            .replace(
                "disk_fraction = 0.25",
                &format!("bulk_store_size = \"{size}\""),
            )
            .replace("size = \"200KiB\"", "size = \"100KiB\"")
            .replace("size = \"60KiB\"", "size = \"60KiB\"\n    text = \"40KiB\"")
            .replace("mean = \"500ms\"", "mean = \"5s\"");
        replicate(&inline_system(&text), 6)
            .iter()
            .map(|s| s.paging.as_ref().unwrap().disk_fraction)
            .collect::<Vec<_>>()
    };
    let (small, medium, large) = (capacity("8KiB"), capacity("64KiB"), capacity("2MiB"));
    let minus = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| a - b).collect::<Vec<_>>();
    // A tiny bulk store sends most reads to disk; each larger one sends a
    // fifth of all reads fewer, paired replication by replication.
    assert_above("bulk store of 8 KiB: disk fraction", &small, 0.8);
    assert_above(
        "disk fraction, 8 KiB less 64 KiB store",
        &minus(&small, &medium),
        0.2,
    );
    assert_above(
        "disk fraction, 64 KiB less 2 MiB store",
        &minus(&medium, &large),
        0.2,
    );
    assert_above(
        "bulk store of 2 MiB: 1 - disk fraction",
        &large.iter().map(|f| 1.0 - f).collect::<Vec<_>>(),
        0.8,
    );
}

#[test]
fn shared_text_stays_in_memory_between_commands() {
    // Plenty of memory, so nothing is ever taken away. Without shared text
    // every command faults its working set in afresh; with 40 of its 60
    // pages shared, the text faulted in by earlier commands is still there.
    let text = MULTILEVEL
        .replace("size = \"200KiB\"", "size = \"4MiB\"")
        .replace("    bulk_store = \"drum\"\n    disk_fraction = 0.25\n", "");
    let faults = |shared: &str| {
        let text = text.replace(
            "size = \"60KiB\"",
            &format!("size = \"60KiB\"\n    text = \"{shared}\""),
        );
        replicate(&inline_system(&text), 8)
            .iter()
            .map(|s| command(s, "job").faults_per_command.unwrap())
            .collect::<Vec<_>>()
    };
    let (private, shared) = (faults("0KiB"), faults("40KiB"));
    assert_above("faults per command, private text", &private, 20.0);
    // Shared text more than halves the faults per command.
    assert_above(
        "ln faults per command, private / shared text",
        &log_ratios(&private, &shared),
        2f64.ln(),
    );
}

#[test]
fn swapping_moves_shared_text_only_when_no_process_holds_it() {
    // Under swapping the text is read with the first process of its class
    // and never written back, so the images moved shrink.
    let mut sys = system("thrashing");
    sys.memory.policy = Policy::Swapping {
        device: 0,
        clear: SimTime::ZERO,
        process_limit: None,
    };
    sys.memory.size = 320 * 1024;
    sys.users.population = Population::Fixed(12);
    sys.settings.end_time = SimTime::from_secs(6_000);
    let whole = run(&sys, 0);
    sys.classes[0].text = 60 * 1024;
    let shared = run(&sys, 0);
    let image = |s: &Summary| s.swapping.as_ref().unwrap().mean_image_bytes;
    assert_eq!(image(&whole), 100.0 * 1024.0);
    // A private part of 40 KiB moves with every swap; the 60 KiB of text
    // only when no process of the class is left in memory.
    assert!(image(&shared) < 0.6 * image(&whole), "{}", image(&shared));
}

#[test]
fn a_hopelessly_thrashing_system_still_finishes() {
    // Two frames for ten users whose commands want forty pages each, on an
    // infinitely fast paging device with a free fault path: every quantum
    // is a storm of faults. It is a result, not a hang.
    let text = MULTILEVEL
        .replace("size = \"200KiB\"", "size = \"2KiB\"")
        .replace("free_target = \"8KiB\"", "free_target = \"0KiB\"")
        .replace("    bulk_store = \"drum\"\n    disk_fraction = 0.25\n", "")
        .replace("seek = \"20ms\"", "seek = \"0s\"")
        .replace(
            "rate = \"1MB/s\"\n    fault_cpu = \"4ms\"",
            "rate = \"1000GB/s\"\n    fault_cpu = \"0s\"",
        )
        .replace("end_time = \"6000s\"", "end_time = \"200s\"")
        .replace("warmup = \"500s\"", "warmup = \"10s\"");
    let s = run(&inline_system(&text), 0);
    let paging = s.paging.as_ref().unwrap();
    assert!(paging.faults > 100_000, "{paging:?}");
    assert_eq!(s.sim_time, 200.0);
}

#[test]
fn two_processors_share_text_memory_and_a_bulk_store_consistently() {
    // Debug builds recheck the model's accounting (after every event at
    // first, then after one in 17); this run exercises what only several
    // processors do: processes of one class faulting on the same text at
    // once.
    let text = MULTILEVEL
        .replace("quantum = \"100ms\"", "cpus = 2\n    quantum = \"100ms\"")
        .replace("disk_fraction = 0.25", "bulk_store_size = \"64KiB\"")
        .replace("size = \"60KiB\"", "size = \"60KiB\"\n    text = \"40KiB\"")
        .replace("end_time = \"6000s\"", "end_time = \"3000s\"")
        .replace("size = \"200KiB\"", "size = \"100KiB\"");
    let s = run(&inline_system(&text), 0);
    let cpu = s.cpu.as_ref().unwrap();
    assert_eq!(cpu.cpus, 2);
    let busy = 1.0 - cpu.idle;
    assert!((s.stations[0].utilization - busy).abs() < 1e-6, "{cpu:?}");
    let p = s.paging.as_ref().unwrap();
    assert!(p.bulk_store_reads > 0 && p.disk_reads > 0, "{p:?}");
    assert!(command(&s, "job").completions > 1000);
}

/// Four users typing a command of 1 s of processor time every 10 s or so,
/// with memory to spare, the given share of them run as `command &`.
fn typed_in_background(share: &str) -> String {
    let text = SLEEPER
        .replace("terminals = 1", "terminals = 4")
        .replace(
            "think = { exp = { mean = \"20s\" } }",
            "think = { exp = { mean = \"10s\" } }",
        )
        .replace(
            "commands = [{ class = \"command\", weight = 1 }]",
            &format!("commands = [{{ class = \"command\", weight = 1, background = {share} }}]"),
        )
        .replace("size = \"100KiB\"", "size = \"4MiB\"")
        .replace(
            "cpu = { exp = { mean = \"200ms\" } }",
            "cpu = { exp = { mean = \"1s\" } }",
        );
    text[..text.find("    [[class]]\n    name = \"daemon\"").unwrap()].to_string()
}

#[test]
fn commands_run_in_the_background_do_not_hold_up_their_users() {
    // Every `cc` is run as `cc &`: users type one every think time whatever
    // the compilations take, so commands arrive at terminals/think, and by
    // Little's law the user processes average arrival rate x response.
    let s = run(&inline_system(&typed_in_background("1.0")), 0);
    assert_eq!(command(&s, "command").completions, 0);
    let detached = command(&s, "command&");
    assert_eq!(detached.kind, ClassKind::Background);
    assert!((detached.throughput - 0.4).abs() < 0.03, "{detached:?}");
    let processes = s.load.as_ref().unwrap().mean_processes;
    let little = detached.throughput * detached.mean_response.unwrap();
    assert!(
        (processes - little).abs() < 0.03 * little,
        "{processes} vs {little}"
    );
}

#[test]
fn each_command_run_in_the_background_draws_its_own_demand() {
    // One user running every command as `command &`, 100 s apart: each
    // runs alone, so its response is its own demand (exponential, mean 1
    // s) plus a fixed read of its image. The median and the 90th
    // percentile of exponential demands lie ln 5 = 1.6 s apart; some 190
    // commands put the sample's gap within a few tenths of that.
    let text = typed_in_background("1.0")
        .replace("terminals = 4", "terminals = 1")
        .replace(
            "think = { exp = { mean = \"10s\" } }",
            "think = { det = { value = \"100s\" } }",
        );
    let s = run(&inline_system(&text), 0);
    let detached = command(&s, "command&");
    assert!(detached.completions > 150, "{detached:?}");
    let gap = detached.response_p90.unwrap() - detached.response_p50.unwrap();
    assert!(gap > 0.8, "{detached:?}");
}

#[test]
fn a_command_s_background_share_is_the_fraction_of_its_runs_detached() {
    // A quarter of the commands typed are run as `command &`: each typing
    // is a Bernoulli trial, and every command typed completes (but the few
    // running at either end of the measured span).
    let s = run(&inline_system(&typed_in_background("0.25")), 0);
    let detached = command(&s, "command&").completions;
    let typed = command(&s, "command").completions + detached;
    assert!(typed > 5000, "{typed}");
    crate::assert_proportion("background share", detached, typed, 0.25);
}

#[test]
fn empty_pages_are_zero_filled_without_a_read() {
    // Plenty of memory: every fault is a first touch. Half the private
    // pages start empty, so about half the faults read nothing.
    let text = MULTILEVEL
        .replace("size = \"200KiB\"", "size = \"4MiB\"")
        .replace("    bulk_store = \"drum\"\n    disk_fraction = 0.25\n", "")
        .replace("size = \"60KiB\"", "size = \"60KiB\"\n    zero_fill = 0.5");
    let s = run(&inline_system(&text), 0);
    let p = s.paging.as_ref().unwrap();
    assert_eq!(p.reclaims, 0);
    assert_eq!(p.zero_fills + p.disk_reads, p.faults);
    crate::assert_proportion("zero fills", p.zero_fills, p.faults, 0.5);
    let disk = s.stations.iter().find(|st| st.name == "disk").unwrap();
    // One disk request per fault that reads, give or take those under way
    // at the ends of the measurement.
    assert!(
        disk.completions.abs_diff(p.disk_reads) <= 12,
        "{} requests, {} reads",
        disk.completions,
        p.disk_reads
    );
}

#[test]
fn reclaims_save_reads_under_memory_pressure() {
    // Pages taken by replacement stay valid in the free pool until their
    // frame is reused; faulting one back costs no read.
    let mut sys = system("thrashing");
    sys.users.population = Population::Fixed(10);
    sys.settings.end_time = SimTime::from_secs(4_000);
    let set = |sys: &mut System, reclaim: bool| {
        let Policy::Paging(paging) = &mut sys.memory.policy else {
            unreachable!()
        };
        paging.reclaim = reclaim;
        paging.free_target = 64;
    };
    set(&mut sys, false);
    let plain = replicate(&sys, 10);
    set(&mut sys, true);
    let reclaiming = replicate(&sys, 10);
    for (a, b) in plain.iter().zip(&reclaiming) {
        let (a, b) = (a.paging.as_ref().unwrap(), b.paging.as_ref().unwrap());
        assert_eq!(a.reclaims, 0);
        assert!(b.reclaims > b.faults / 20, "{b:?}");
        assert_eq!(b.reclaims + b.disk_reads, b.faults);
    }
    let reads_per_command = |runs: &[Summary]| {
        runs.iter()
            .map(|s| s.paging.as_ref().unwrap().disk_reads as f64 / s.classes[0].completions as f64)
            .collect::<Vec<_>>()
    };
    // Reclaims save disk reads per command, and the work done goes up.
    assert_above(
        "reclaims: ln disk reads per command, plain / reclaiming",
        &log_ratios(&reads_per_command(&plain), &reads_per_command(&reclaiming)),
        0.0,
    );
    let x = |runs: &[Summary]| {
        runs.iter()
            .map(|s| s.classes[0].throughput)
            .collect::<Vec<_>>()
    };
    assert_above(
        "reclaims: ln X(reclaiming) / X(plain)",
        &log_ratios(&x(&reclaiming), &x(&plain)),
        0.0,
    );
}

/// One user, one background process and memory for one image at a time,
/// everything deterministic: the timeline can be worked out by hand.
pub(crate) const CLOCKWORK: &str = r#"
    name = "clockwork"
    [run]
    end_time = "40s"
    [system]
    quantum = "100ms"
    context_switch = "1ms"
    [memory]
    policy = "swapping"
    size = "100KiB"
    page = "1KiB"
    device = "disk"
    [[device]]
    name = "disk"
    seek = "10ms"
    rate = "1MB/s"
    [users]
    terminals = 1
    think = { det = { value = "10s" } }
    commands = [{ class = "job", weight = 1 }]
    [[class]]
    name = "job"
    cpu = { det = { value = "1s" } }
    size = "60KiB"
    [[class]]
    name = "work"
    cpu = { det = { value = "0.5s" } }
    size = "60KiB"
    [[background]]
    name = "daemon"
    class = "work"
    sleep = { det = { value = "1000s" } }
"#;

#[test]
fn a_deterministic_system_runs_to_the_nanosecond() {
    // At 0 the daemon (created in memory by its exec: 10 ms seek + 61,440 B
    // at 1 MB/s) runs 1 ms + 0.5 s and goes to sleep in memory. At 10 s the
    // user's first command finds 40 KiB free: the swapper pushes the
    // sleeping daemon out (10 ms + 61,440 B), the command gets the memory
    // and exec reads its image (the same), and it runs 1 ms + 1 s (its
    // quanta follow each other without a switch): a response of
    // 1.14388 s. The second and third commands (at 21.14388 s and
    // 32.21632 s) find memory free and take an exec read and 1.001 s each,
    // 1.07244 s; the fourth would start at 43.28876 s.
    let s = run(&inline_system(CLOCKWORK), 0);
    let job = command(&s, "job");
    let transfer = 0.010 + 61_440.0 / 1e6;
    let first = 2.0 * transfer + 0.001 + 1.0;
    let later = transfer + 1.001;
    assert_eq!(job.completions, 3);
    let exact = (first + 2.0 * later) / 3.0;
    assert!(
        (job.mean_response.unwrap() - exact).abs() < 1e-9,
        "{} vs {exact}",
        job.mean_response.unwrap()
    );
    assert!((job.response_max.unwrap() - first).abs() < 1e-9, "{job:?}");
    let swaps = s.swapping.as_ref().unwrap();
    assert_eq!((swaps.swap_ins, swaps.swap_outs), (0, 1));
    assert_eq!(swaps.mean_image_bytes, 61_440.0);
    let disk = &s.stations[1];
    // The daemon's exec, its swap-out and three commands' execs.
    assert!(
        (disk.utilization - 5.0 * transfer / 40.0).abs() < 1e-12,
        "{disk:?}"
    );
    let cpu = s.cpu.as_ref().unwrap();
    assert!((cpu.user - 3.5 / 40.0).abs() < 1e-12, "{cpu:?}");
    assert!((cpu.context_switch - 0.004 / 40.0).abs() < 1e-12, "{cpu:?}");
    assert!((cpu.idle - (40.0 - 3.504) / 40.0).abs() < 1e-12, "{cpu:?}");
    assert_eq!(cpu.fault_handling, 0.0);
}

#[test]
fn device_interrupts_run_before_the_next_burst_to_the_nanosecond() {
    // CLOCKWORK with 2 ms of processor time per disk completion: the
    // daemon's exec interrupt runs before its burst; the swap-out's waits
    // for the next dispatch, the first command's, which runs it with its
    // exec's (4 ms more); each later command runs its exec's (2 ms more).
    let text = CLOCKWORK.replace(
        "rate = \"1MB/s\"",
        "rate = \"1MB/s\"\n    interrupt_cpu = \"2ms\"",
    );
    let s = run(&inline_system(&text), 0);
    let job = command(&s, "job");
    let transfer = 0.010 + 61_440.0 / 1e6;
    let first = 2.0 * transfer + 0.004 + 0.001 + 1.0;
    let later = transfer + 0.002 + 1.001;
    assert_eq!(job.completions, 3);
    let exact = (first + 2.0 * later) / 3.0;
    assert!((job.mean_response.unwrap() - exact).abs() < 1e-9, "{job:?}");
    let cpu = s.cpu.as_ref().unwrap();
    assert!((cpu.interrupts - 0.010 / 40.0).abs() < 1e-12, "{cpu:?}");
    assert!((cpu.user - 3.5 / 40.0).abs() < 1e-12, "{cpu:?}");
    assert!((cpu.context_switch - 0.004 / 40.0).abs() < 1e-12, "{cpu:?}");
    assert!((cpu.idle - (40.0 - 3.514) / 40.0).abs() < 1e-12, "{cpu:?}");
}

#[test]
fn segment_faults_come_per_command_as_given_and_cost_what_they_say() {
    // CLOCKWORK's commands with 4 segment faults per command on average
    // (a Poisson stream over their 1 s of work), 5 ms of processor time
    // each: every command's response grows by 5 ms a segment fault, and
    // the processor's share in them is that time over the run.
    let text = CLOCKWORK.replace(
        "cpu = { det = { value = \"1s\" } }\n    size = \"60KiB\"\n    [[class]]",
        "cpu = { det = { value = \"1s\" } }\n    size = \"60KiB\"\n    segment_faults = { per_command = 4, cpu = \"5ms\" }\n    [[class]]",
    );
    let sys = inline_system(&text);
    let transfer = 0.010 + 61_440.0 / 1e6;
    let base = (2.0 * transfer + 0.001 + 1.0) + 2.0 * (transfer + 1.001);
    let per_command: Vec<f64> = (0..200)
        .map(|r| {
            let s = run(&sys, r);
            let job = command(&s, "job");
            assert_eq!(job.completions, 3);
            let count = s.cpu.as_ref().unwrap().segment_faults * 40.0 / 0.005;
            assert!((count - count.round()).abs() < 1e-6, "{count}");
            let extra = job.mean_response.unwrap() * 3.0 - base;
            assert!(
                (extra - 0.005 * count.round()).abs() < 1e-9,
                "{extra} for {count}"
            );
            count.round() / 3.0
        })
        .collect();
    assert_covers("segment faults per command", &per_command, 4.0, 0.1);
}

/// One user, memory to spare, pages read from a disk with a fixed service
/// time and no fault path: the processor is idle exactly while the one
/// process waits for a page, or while its user thinks.
/// Two users who never think, one processor, and commands that compute
/// and read a disk: with `max_multiprogramming = 1` one user is always
/// held back while the other is eligible.
const HELD_BACK: &str = r#"
    name = "held-back"
    seed = 3
    [run]
    end_time = "300s"
    [system]
    quantum = "100ms"
    context_switch = "0s"
    max_multiprogramming = 1
    [memory]
    policy = "paging"
    size = "1MiB"
    page = "1KiB"
    device = "disk"
    [[device]]
    name = "disk"
    seek = "10ms"
    rate = "1MB/s"
    [users]
    terminals = 2
    think = { det = { value = "0s" } }
    commands = [{ class = "job", weight = 1 }]
    [[class]]
    name = "job"
    cpu = { det = { value = "0.2s" } }
    io = { count = 3, size = "1KiB", device = "disk" }
    size = "20KiB"
    locality = { cfl = { b = "1000s", c = 1 } }
"#;

#[test]
fn multiprogramming_idle_is_the_processor_idle_while_a_process_is_held_back() {
    // With one eligible at a time, the other user always waits for
    // eligibility: every idle moment, the eligible one on the disk, is
    // multiprogramming idle (Multics's MP idle), and the disk's busy time
    // is exactly that.
    let s = run(&inline_system(HELD_BACK), 0);
    let cpu = s.cpu.as_ref().unwrap();
    let disk = s.stations.iter().find(|st| st.name == "disk").unwrap();
    assert!(disk.utilization > 0.05, "{disk:?}");
    assert!(
        (cpu.multiprogramming_idle - disk.utilization).abs() < 1e-9,
        "{cpu:?} {disk:?}"
    );
    assert_eq!(cpu.other_idle, 0.0, "{cpu:?}");
    // Let both in and no one is ever held back: the idle time, both users
    // on the disk at once, is all light load.
    let text = HELD_BACK.replace("max_multiprogramming = 1", "max_multiprogramming = 2");
    let s = run(&inline_system(&text), 0);
    let cpu = s.cpu.as_ref().unwrap();
    assert_eq!(cpu.multiprogramming_idle, 0.0, "{cpu:?}");
    assert!(cpu.other_idle > 0.001, "{cpu:?}");
    assert!((cpu.multiprogramming_idle + cpu.other_idle - cpu.idle).abs() < 1e-12);
}

#[test]
fn pages_spread_evenly_over_a_list_of_drives() {
    // ONE_USER's paging over two identical drives: every page read or
    // written goes to one drawn at random, so each drive serves a
    // binomial half of them.
    let text = ONE_USER
        .replace("device = \"rp06\"", "device = [\"rp06\", \"rp06b\"]")
        .replace(
            "[users]",
            "[[device]]\n    name = \"rp06b\"\n    seek = \"30ms\"\n    rpm = 3600\n    rate = \"676KB/s\"\n    fault_cpu = \"1ms\"\n    [users]",
        );
    let s = run(&inline_system(&text), 0);
    let visits = |name: &str| {
        let st = s.stations.iter().find(|st| st.name == name).unwrap();
        (st.throughput * s.sim_time).round()
    };
    let (a, b) = (visits("rp06"), visits("rp06b"));
    assert!(a + b > 1000.0, "{a} {b}");
    crate::assert_proportion(
        "page transfers to the first of two drives",
        a as u64,
        (a + b) as u64,
        0.5,
    );
}

/// One user with a shell, memory for the shell or the command but not
/// both; everything deterministic.
const SHELLED: &str = r#"
    name = "shelled"
    [run]
    end_time = "40s"
    [system]
    quantum = "100ms"
    context_switch = "1ms"
    [memory]
    policy = "swapping"
    size = "100KiB"
    page = "1KiB"
    device = "disk"
    [[device]]
    name = "disk"
    seek = "10ms"
    rate = "1MB/s"
    [users]
    terminals = 1
    think = { det = { value = "10s" } }
    commands = [{ class = "job", weight = 1 }]
    shell = "sh"
    [[class]]
    name = "job"
    cpu = { det = { value = "1s" } }
    size = "80KiB"
    [[class]]
    name = "sh"
    cpu = { det = { value = "10ms" } }
    size = "30KiB"
"#;

#[test]
fn the_shell_sleeps_at_the_terminal_and_is_swapped_out_for_its_command() {
    // At login the shell is exec'd (10 ms + 30,720 B at 1 MB/s) and starts
    // up (a switch and 10 ms), then sleeps at the terminal. At 10 s the
    // user types: the shell, still in memory, runs (1 ms + 10 ms) and forks
    // the 80 KiB command, which does not fit beside it: the swapper pushes
    // the shell out (40.72 ms), the command's exec reads its image
    // (10 ms + 81,920 B) and it runs (1 ms + 1 s): 1.14464 s. Each later
    // command first needs the shell swapped back in: 40.72 + 11 + 40.72 +
    // 91.92 + 1001 ms = 1.18536 s.
    let s = run(&inline_system(SHELLED), 0);
    let job = command(&s, "job");
    let shell = 0.010 + 30_720.0 / 1e6;
    let exec = 0.010 + 81_920.0 / 1e6;
    let first = 0.011 + shell + exec + 1.001;
    let later = shell + 0.011 + shell + exec + 1.001;
    assert_eq!(job.completions, 3);
    let exact = (first + 2.0 * later) / 3.0;
    assert!(
        (job.mean_response.unwrap() - exact).abs() < 1e-9,
        "{} vs {exact}",
        job.mean_response.unwrap()
    );
    assert!((job.response_max.unwrap() - later).abs() < 1e-9, "{job:?}");
    let swaps = s.swapping.as_ref().unwrap();
    assert_eq!((swaps.swap_ins, swaps.swap_outs), (2, 3));
    // The shell is no user process: the index counts the commands only.
    let load = s.load.as_ref().unwrap();
    assert!(load.mean_processes < 0.2, "{load:?}");
    assert!(
        s.classes.iter().all(|c| c.name != "sh"),
        "the shell is no command"
    );
}

#[test]
fn a_user_who_logs_out_while_the_shell_starts_lets_it_finish_then_it_exits() {
    // Logins a minute apart on average, each session 5 ms: every user
    // logs out while the shell is still reading its image (40.72 ms). The
    // shell finishes starting up (a switch and 10 ms) and only then exits,
    // so the processor's user time is ten times its switching time, login
    // by login; no command is ever typed.
    let text = SHELLED
        .replace("end_time = \"40s\"", "end_time = \"20h\"\n    warmup = \"1h\"")
        .replace(
            "terminals = 1",
            "terminals = 1\n    login = { per_hour = [60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60], session = { det = { value = \"5ms\" } } }",
        );
    let s = run(&inline_system(&text), 0);
    let cpu = s.cpu.as_ref().unwrap();
    // About 1,140 logins after the warm-up, each 11 ms of processor time.
    assert!(
        cpu.context_switch > 500.0 * 0.001 / (19.0 * 3600.0),
        "{cpu:?}"
    );
    assert!(
        (cpu.user / cpu.context_switch - 10.0).abs() < 1e-6,
        "{cpu:?}"
    );
    assert_eq!(command(&s, "job").completions, 0);
    assert!(s.load.as_ref().unwrap().mean_users < 1e-3, "{:?}", s.load);
}

/// One user and memory to spare on an RP06 without an arm model: seek a
/// fixed 30 ms (the drive's average), 3,600 rpm, 676 KB/s. The user runs
/// `man`-like commands of 4 s of processor time and a 96 KiB image, 64 KiB
/// of it shared text; 30% of the private pages start empty.
const ONE_USER: &str = r#"
    name = "one-user"
    seed = 8
    [run]
    end_time = "1520s"
    warmup = "20s"
    [system]
    quantum = "1s"
    context_switch = "0.5ms"
    [memory]
    policy = "paging"
    size = "512KiB"
    kernel = "128KiB"
    page = "1KiB"
    device = "rp06"
    soft_fault_cpu = "0.2ms"
    [[device]]
    name = "rp06"
    seek = "30ms"
    rpm = 3600
    rate = "676KB/s"
    fault_cpu = "1ms"
    [users]
    terminals = 1
    think = { det = { value = "10s" } }
    commands = [{ class = "man", weight = 1 }]
    [[class]]
    name = "man"
    cpu = { det = { value = "4s" } }
    size = "96KiB"
    text = "64KiB"
    locality = { cfl = { b = "30ms", c = 24 } }
    zero_fill = 0.3
"#;

#[test]
fn with_one_user_paging_and_swapping_differ_by_exec_and_fault_io_alone() {
    // The worked example of docs/time-sharing.md ("Exec"), from the
    // scenario's figures. A disk access: A = 30 ms + half a revolution.
    let access = 0.030 + 0.5 * 60.0 / 3600.0;
    let rate = 676e3;
    let (demand, switch) = (4.0, 0.0005);
    // Swapped: the text leaves memory with the last process of the class,
    // so each command's exec reads the text and the initialised data in
    // one transfer, all but the 10 empty pages (30% of the 32 private
    // ones, to the nearest page), then the command is dispatched once (its
    // quanta follow without a switch), the kernel clearing the empty pages
    // at 0.25 ms each before its own work.
    let swapped_exact = access + 86.0 * 1024.0 / rate + switch + 10.0 * 0.00025 + demand;
    // Paged: the text stays resident after the first command (the warm-up
    // leaves that one out); each command touches its 32 private pages, a
    // page read (fault path, access, one page, a dispatch after) for 70%
    // of them and a zero-fill for the rest, all well before its 4 s are up
    // (the lifetime function gives about 55 ms between faults).
    let read = 0.001 + access + 1024.0 / rate + switch;
    let per_page = 0.7 * read + 0.3 * 0.0002;
    let paged_exact = switch + demand + 32.0 * per_page;
    let paged = inline_system(ONE_USER);
    let swapped = inline_system(
        &ONE_USER
            .replace("policy = \"paging\"", "policy = \"swapping\"")
            .replace("soft_fault_cpu = \"0.2ms\"", "clear_cpu = \"0.25ms\""),
    );
    const R: u64 = 16;
    let response = |runs: &[Summary]| -> Vec<f64> {
        runs.iter()
            .map(|s| command(s, "man").mean_response.unwrap())
            .collect()
    };
    assert_covers(
        "one user, swapped",
        &response(&replicate(&swapped, R)),
        swapped_exact,
        0.01,
    );
    let paged_runs = replicate(&paged, R);
    assert_covers("one user, paged", &response(&paged_runs), paged_exact, 0.01);
    // A fault's elapsed time, from the fault to its page in memory: the
    // fault path and the disk's access and transfer for a read, the soft
    // fault's processor time for a zero fill.
    let elapsed: Vec<f64> = paged_runs
        .iter()
        .map(|s| s.paging.as_ref().unwrap().mean_fault_elapsed)
        .collect();
    let exact_elapsed = 0.7 * (read - switch) + 0.3 * 0.0002;
    assert_covers(
        "one user, a fault's elapsed time",
        &elapsed,
        exact_elapsed,
        0.03,
    );
    // The difference, 0.76 s, is the 22.4 page reads' accesses against
    // exec's one.
    assert!((paged_exact - swapped_exact - 0.757).abs() < 0.001);
}
