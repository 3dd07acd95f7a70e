//! Disks with an arm: the seek follows the arm from request to request,
//! requests fall in their area, and sorting the queue by cylinder pays off
//! only when there is a queue.

use crate::{assert_above, assert_covers, seed};
use tpsim::core::SimTime;
use tpsim::models::System;
use tpsim::models::summary::{StationDiscipline, Summary};
use tpsim::models::system::{Order, simulate};

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
