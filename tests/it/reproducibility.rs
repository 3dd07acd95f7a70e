//! The same scenario and seed give byte-identical results.

use crate::{inline, scenario};

#[test]
fn same_seed_same_summary_bytes() {
    let net = scenario("central-server");
    let mut short = net.clone();
    short.settings.end_time = tpsim::core::SimTime::from_secs(20_000);
    let a = serde_json::to_string(&tpsim::models::simulate(&short, 7, 0).summary).unwrap();
    let b = serde_json::to_string(&tpsim::models::simulate(&short, 7, 0).summary).unwrap();
    assert_eq!(a, b);
    let c = tpsim::models::simulate(&short, 8, 0).summary;
    assert_ne!(
        a,
        serde_json::to_string(&c).unwrap(),
        "a different seed must give different results"
    );
    assert_eq!(c.seed, 8, "the summary names the seed the run used");
    assert_ne!(short.settings.seed, 8);
}

#[test]
fn adding_a_class_leaves_the_other_streams_alone() {
    // Named streams: a second, independent class changes nothing about the
    // arrivals of the first, so the first class's completion count over the
    // same horizon is the same with or without it (common random numbers).
    let base = std::fs::read_to_string(crate::scenario_path("mm1"))
        .unwrap()
        .replace("200000s", "5000s");
    let with_other = format!(
        "{base}\n[[class]]\nname = \"other\"\narrivals = {{ exp = {{ rate = \"0.05/s\" }} }}\nstart = \"side\"\n\
         [[station]]\nname = \"side\"\ndiscipline = \"delay\"\nservice = {{ exp = {{ mean = \"1s\" }} }}\nto = \"exit\"\n"
    );
    let a = tpsim::models::simulate(&inline(&base), 1, 0).summary;
    let b = tpsim::models::simulate(&inline(&with_other), 1, 0).summary;
    assert_eq!(a.stations[0], b.stations[0]);
    assert_eq!(a.classes[0], b.classes[0]);
}

#[test]
fn pausing_for_progress_reports_changes_nothing() {
    let mut net = scenario("repairman");
    net.settings.end_time = tpsim::core::SimTime::from_secs(10_000);
    let mut reports = Vec::new();
    let paused = tpsim::models::simulate_with_progress(&net, 3, 0, |t| {
        reports.push(t);
        true
    })
    .summary;
    let mut whole = tpsim::core::Simulation::new(tpsim::models::simulate::NetworkModel::new(
        &net,
        &tpsim::core::Streams::new(3, 0),
    ));
    let (model, ctx) = whole.parts_mut();
    model.start(ctx);
    whole.run_until(net.settings.end_time, None);
    let whole = whole.model().summary(whole.now(), whole.events(), 0);
    assert_eq!(paused, whole);
    assert_eq!(reports.len(), 1000);
    assert!(reports.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(reports.last(), Some(&net.settings.end_time));
}

#[test]
fn a_time_sharing_run_is_reproducible_byte_for_byte() {
    let path = crate::scenario_path("purdue-1980-paged");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut sys = tpsim::models::load_system("purdue.toml", &text).unwrap();
    sys.settings.end_time = tpsim::core::SimTime::from_secs(6 * 3600);
    let run = |seed| tpsim::models::system::simulate(&sys, seed, 0);
    let (a, b) = (run(5), run(5));
    assert_eq!(
        serde_json::to_string(&a.summary).unwrap(),
        serde_json::to_string(&b.summary).unwrap()
    );
    assert_eq!(a.load, b.load);
    assert_ne!(
        a.summary,
        run(6).summary,
        "a different seed must give different results"
    );
}

#[test]
fn the_memory_policy_leaves_the_logins_alone() {
    // Logins and sessions have their own streams, and each user its own, so
    // changing the memory policy changes no one's arrival or stay: the
    // refused logins are the same and the users logged in differ only by
    // those finishing a last command.
    let path = crate::scenario_path("purdue-1980-swapped");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("end_time = \"24h\"", "end_time = \"12h\"")
        .replace("terminals = 56 ", "terminals = 20 ");
    let swapped = tpsim::models::load_system("swapped.toml", &text).unwrap();
    // (Less the swapping keys, exec's clearing and the process limit:
    // paging zero-fills, and holds no image whole.)
    let paged_text: String = text
        .replace("policy = \"swapping\"", "policy = \"paging\"")
        .lines()
        .filter(|l| !l.starts_with("clear_cpu") && !l.starts_with("process_limit"))
        .map(|l| format!("{l}\n"))
        .collect();
    let paged = tpsim::models::load_system("paged.toml", &paged_text).unwrap();
    let a = tpsim::models::system::simulate(&swapped, 1, 0).summary;
    let b = tpsim::models::system::simulate(&paged, 1, 0).summary;
    let (la, lb) = (a.load.as_ref().unwrap(), b.load.as_ref().unwrap());
    assert!(la.logins_refused > 0, "{la:?}");
    assert_eq!(la.logins_refused, lb.logins_refused);
    assert!(
        (la.mean_users - lb.mean_users).abs() < 0.01 * la.mean_users,
        "{la:?} {lb:?}"
    );
    assert_ne!(
        a.classes[0].mean_response.unwrap(),
        b.classes[0].mean_response.unwrap()
    );
}
