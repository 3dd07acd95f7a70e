//! Disks with an arm: the seek follows the arm from request to request,
//! requests fall in their area, and sorting the queue by cylinder pays off
//! only when there is a queue.

use crate::{assert_above, assert_covers, seed};
use tpsim::core::SimTime;
use tpsim::models::System;
use tpsim::models::summary::{StationDiscipline, Summary};
use tpsim::models::system::{Order, SeekCurve, simulate};

/// Users whose commands read and write a disk with an arm (cylinders
/// 100-299 of 400 hold the file system); memory to spare, so nothing swaps
/// and every request on the disk is file I/O.
const ARMED: &str = r#"
    name = "armed"
    seed = 17
    [run]
    end_time = "3000s"
    warmup = "200s"
    [system]
    quantum = "50ms"
    context_switch = "0s"
    [memory]
    policy = "swapping"
    size = "4MiB"
    page = "1KiB"
    device = "swap"
    [[device]]
    name = "swap"
    seek = "10ms"
    rate = "1MB/s"
    [[device]]
    name = "disk"
    rpm = 3600
    rate = "1MB/s"
    arm = { cylinders = 400, track = "4ms", average = "25ms", full = "45ms", order = "fcfs" }
    file_system = [100, 299]
    [users]
    terminals = 8
    think = { exp = { mean = "3s" } }
    commands = [{ class = "io", weight = 1 }]
    [[class]]
    name = "io"
    cpu = { exp = { mean = "20ms" } }
    size = "16KiB"
    io = { count = 10, size = "4KiB", device = "disk" }
"#;

fn armed(terminals: u32, order: &str) -> System {
    let text = ARMED
        .replace("terminals = 8", &format!("terminals = {terminals}"))
        .replace(r#"order = "fcfs""#, &format!(r#"order = "{order}""#));
    tpsim::models::load_system("armed.toml", &text).unwrap()
}

fn runs(sys: &System, replications: u64) -> Vec<Summary> {
    (0..replications)
        .map(|r| simulate(sys, seed(sys.settings.seed), r).summary)
        .collect()
}

/// A station's mean service time per request: busy time over completions.
fn mean_service(s: &Summary, station: usize) -> f64 {
    s.stations[station].utilization / s.stations[station].throughput
}

#[test]
fn first_come_first_served_the_arm_takes_the_mean_seek_between_two_random_cylinders() {
    // Served in order of arrival, consecutive requests fall on independent
    // uniform cylinders of the file system, so a request's mean service is
    // the mean seek over all ordered pairs of its cylinders (distance 0
    // included) plus half a revolution and the transfer.
    let sys = armed(8, "fcfs");
    let exact = crate::mean_seek(&crate::ARM_FIGURES, 100..300) + 0.5 / 60.0 + 4096.0 / 1e6;
    let runs = runs(&sys, 20);
    for s in &runs {
        assert_eq!(s.swapping.as_ref().unwrap().swap_ins, 0, "nothing swaps");
    }
    let services: Vec<f64> = runs.iter().map(|s| mean_service(s, 2)).collect();
    assert_covers("disk: mean service, FCFS arm", &services, exact, 0.01);
}

#[test]
fn sorting_by_cylinder_pays_off_only_when_requests_queue() {
    // Saturated, the one-way elevator serves nearer requests first: shorter
    // seeks, more work done (paired on common random numbers).
    let (fcfs, sorted) = (
        runs(&armed(24, "fcfs"), 10),
        runs(&armed(24, "disksort"), 10),
    );
    let ln = |f: &dyn Fn(&Summary) -> f64| -> Vec<f64> {
        sorted
            .iter()
            .zip(&fcfs)
            .map(|(a, b)| (f(a) / f(b)).ln())
            .collect()
    };
    assert_above(
        "24 users: ln X(disksort) / X(fcfs)",
        &ln(&|s| s.classes[0].throughput),
        0.0,
    );
    assert_above(
        "24 users: ln S(fcfs) / S(disksort)",
        &ln(&|s| 1.0 / mean_service(s, 2)),
        0.0,
    );
    // One user has one request at a time: no queue, nothing to sort, the
    // very same run.
    let one = |order| simulate(&armed(1, order), seed(17), 0).summary;
    let (a, b) = (one("fcfs"), one("disksort"));
    assert_eq!(a.classes, b.classes);
    assert_eq!(a.stations[2].utilization, b.stations[2].utilization);
    assert_eq!(b.stations[2].discipline, StationDiscipline::Disksort);
}

/// The timesharing tests' deterministic system (one user and a sleeping
/// daemon sharing memory for one image) on a disk with an arm whose swap
/// area and file system are the single cylinder 10.
fn swap_at_10() -> System {
    let text = crate::timesharing::CLOCKWORK.replace(
        r#"seek = "10ms""#,
        r#"arm = { cylinders = 100, track = "2ms", average = "20ms", full = "40ms" }
    swap_area = [10, 10]
    file_system = [10, 10]"#,
    );
    tpsim::models::load_system("swap.toml", &text).unwrap()
}

#[test]
fn swap_transfers_go_to_the_swap_area_and_the_arm_stays_there() {
    // Swap area and file system are both the single cylinder 10. The
    // daemon's exec at 0 s moves the arm from cylinder 0 to 10; every
    // later transfer (the daemon's swap-out, each command's exec) finds it
    // there already.
    let sys = swap_at_10();
    let arm = sys.devices[0].arm.as_ref().unwrap();
    assert_eq!(arm.order, Order::Fcfs);
    let seek = arm.seek.time(10);
    let s = simulate(&sys, 1, 0).summary;
    let job = s.classes.iter().find(|c| c.name == "job").unwrap();
    let transfer = 61_440.0 / 1e6;
    let first = 2.0 * transfer + 0.001 + 1.0;
    assert_eq!(job.completions, 3);
    assert!(
        (job.response_max.unwrap() - first).abs() < 1e-9,
        "{} vs {first}",
        job.response_max.unwrap()
    );
    let busy = seek + 5.0 * transfer;
    assert!(
        (s.stations[1].utilization - busy / 40.0).abs() < 1e-10, // times are whole nanoseconds
        "{} vs {}",
        s.stations[1].utilization,
        busy / 40.0
    );
    assert_eq!(sys.settings.end_time, SimTime::from_secs(40));
}

#[test]
fn a_command_s_requests_go_to_its_devices_in_proportion_to_their_counts() {
    // ARMED's commands with 1, 1 and 2 requests on average to three
    // devices: each request goes to a device with probability its count's
    // share, 1/4, 1/4 and 1/2, independently (a Bernoulli trial each).
    let text = ARMED
        .replace(
            r#"io = { count = 10, size = "4KiB", device = "disk" }"#,
            r#"io = [{ count = 1, size = "1KiB", device = "a" }, { count = 1, size = "1KiB", device = "b" }, { count = 2, size = "1KiB", device = "disk" }]"#,
        )
        .replace("warmup = \"200s\"", "warmup = \"0s\"")
        + r#"
    [[device]]
    name = "a"
    rate = "1MB/s"
    [[device]]
    name = "b"
    rate = "1MB/s"
"#;
    let sys = tpsim::models::load_system("three.toml", &text).unwrap();
    let s = simulate(&sys, seed(sys.settings.seed), 0).summary;
    let requests = |name: &str| {
        let station = s.stations.iter().find(|d| d.name == name).unwrap();
        (station.throughput * s.sim_time).round() as u64
    };
    let (a, b, disk) = (requests("a"), requests("b"), requests("disk"));
    let all = a + b + disk;
    assert!(all > 10_000, "{a} {b} {disk}");
    crate::assert_proportion("requests to the second of three devices", b, all, 0.25);
    crate::assert_proportion("requests to the third of three devices", disk, all, 0.5);
}

/// One user, memory to spare, an RM03 under the positional rule: each
/// command's exec reads its image of `blocks` blocks of 512 bytes through a
/// cache of 20 buffers (reading ahead or not), from a file system on
/// cylinders `area`, laid out as `layout` says. The first command arrives
/// at 10 s; the run ends before the second.
fn rotating(blocks: u32, area: &str, layout: &str, read_ahead: bool) -> System {
    let text = crate::files::CACHED
        .replace("end_time = \"40s\"", "end_time = \"15s\"")
        .replace(
            "seek = \"10ms\"\n    rate = \"1MB/s\"",
            &format!("drive = \"rm03\"\n    rotation = \"position\"\n    file_system = {area}"),
        )
        .replace("size = \"5KiB\"", &format!("size = \"{}B\"", 512 * blocks))
        .replace(
            "copy_rate = \"1MB/s\"",
            &format!(
                "read_ahead = {read_ahead}\n    copy_rate = \"1MB/s\"\n    layout = \"{layout}\""
            ),
        );
    crate::inline_system(&text)
}

/// The RM03's sector boundaries (32 sectors, 60 revolutions a second):
/// boundary j at ⌈j · 10⁹ / 1920⌉ ns.
fn rm03_boundary(j: u64) -> u64 {
    (j * 1_000_000_000).div_ceil(1920)
}

#[test]
fn a_command_s_exec_reads_its_blocks_at_the_pace_the_geometry_and_layout_give() {
    // The command arrives at 10 s; its exec seeks from cylinder 0 to 100
    // (the RM03's curve), then reads block by block. Its response is the
    // exec, a 1 ms switch back, a copy of 0.512 ms a block and its second.
    let seek = SeekCurve::fit(823, 0.006, 0.030, 0.055).unwrap().time(100);
    let arrival = 10_000_000_000u64;
    let ready = arrival + (seek * 1e9).round() as u64;
    // The first boundary at or after the arm is on cylinder 100 at which
    // sector `s` of a track starts.
    let first = |s: u64| {
        (s..)
            .step_by(32)
            .find(|&j| rm03_boundary(j) >= ready)
            .unwrap()
    };
    let check = |sys: &System, exec_end: u64, blocks: u32| {
        let s = crate::run_system(sys, 0);
        let job = &s.classes[0];
        let exact = (exec_end - arrival) as f64 / 1e9 + 0.001 + f64::from(blocks) * 512e-6 + 1.0;
        assert_eq!(job.completions, 1);
        let mean = job.mean_response.unwrap();
        assert!(
            (mean - exact).abs() < 1e-9,
            "{blocks} blocks: {mean} vs {exact}"
        );
        assert_eq!(s.stations[1].completions, u64::from(blocks));
    };
    for read_ahead in [true, false] {
        for blocks in [10, 20] {
            // Interleaved, on a file system of four cylinders (640 blocks,
            // one whole group of mkfs's 500): the file's blocks at sectors 2,
            // 5, 8, ... of cylinder 100. The search for sector 0 (two before
            // block 0) ends at `first(0)`; block 0 ends three sectors on and
            // each next block three sectors after its predecessor: 1.5625 ms
            // a block.
            let sys = rotating(blocks, "[100, 103]", "interleaved", read_ahead);
            check(
                &sys,
                rm03_boundary(first(0) + 3 * u64::from(blocks)),
                blocks,
            );
            // Contiguous, on a file system of one cylinder: blocks at
            // sectors 0, 1, 2, ... The search for sector 30 ends at
            // `first(30)`; block 0 ends three sectors on, and each next
            // block's search sector has just passed: 33 sectors, 17.1875 ms,
            // a block.
            let sys = rotating(blocks, "[100, 100]", "contiguous", read_ahead);
            let end = rm03_boundary(first(30) + 3 + 33 * u64::from(blocks - 1));
            check(&sys, end, blocks);
        }
    }
}

#[test]
fn the_mva_says_it_takes_half_a_revolution_for_a_disk_under_the_positional_rule() {
    use tpsim::models::analytic::ClosedModel;
    let caveats = |sys: &System| ClosedModel::of_system(sys).unwrap().caveats;
    let positional = rotating(10, "[100, 103]", "interleaved", true);
    let turning = "brings each request's sector round as the platter turns";
    assert!(caveats(&positional).iter().any(|c| c.contains(turning)));
    let mut uniform = positional.clone();
    uniform.devices[0].arm.as_mut().unwrap().rotation = None;
    assert!(!caveats(&uniform).iter().any(|c| c.contains(turning)));
}

#[test]
fn bad_disk_and_layout_keys_are_refused_by_key_with_status_2_and_nothing_written() {
    // The shipped pair's swapped member with its disks under the uniform
    // rule and its files in order, each case adding one key.
    let shipped = std::fs::read_to_string(crate::scenario_path("purdue-1980-swapped")).unwrap();
    let good = shipped
        .lines()
        .filter(|l| !l.starts_with("drive = ") && !l.starts_with("rotation = "))
        .collect::<Vec<_>>()
        .join("\n")
        .replace("layout = \"interleaved\"", "layout = \"contiguous\"");
    let rm03 = "rpm = 3600                 # [RM03]";
    for (from, to, key) in [
        (rm03, "drive = \"rm02\"", "device[rm03-0].drive"),
        (
            rm03,
            "rpm = 3600\nrotation = \"position\"",
            "device[rm03-0].rotation",
        ),
        (
            rm03,
            "rpm = 3600\nsearch_lead = 2",
            "device[rm03-0].search_lead",
        ),
        (
            rm03,
            "rpm = 3600\ndrive = \"rm03\"\nrotation = \"position\"\nsearch_lead = 32",
            "device[rm03-0].search_lead",
        ),
        (
            "layout = \"contiguous\"",
            "layout = \"interleaved\"",
            "device[rm03-0].arm.sectors",
        ),
        (
            "layout = \"contiguous\"",
            "layout = \"contiguous\"\ninterleave = { gap = 3 }",
            "files.interleave",
        ),
    ] {
        assert!(good.contains(from), "{from}");
        crate::cli::assert_text_rejected(&good.replacen(from, to, 1), &[key]);
    }
}
