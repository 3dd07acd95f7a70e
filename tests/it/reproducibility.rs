//! The same scenario and seed give byte-identical results.

use crate::{inline, scenario};

#[test]
fn same_seed_same_summary_bytes() {
    let net = scenario("central-server");
    let mut short = net.clone();
    short.end_time = tpsim::core::SimTime::from_secs(20_000);
    let a = serde_json::to_string(&tpsim::models::simulate(&short, 7, 0)).unwrap();
    let b = serde_json::to_string(&tpsim::models::simulate(&short, 7, 0)).unwrap();
    assert_eq!(a, b);
    let c = serde_json::to_string(&tpsim::models::simulate(&short, 8, 0)).unwrap();
    assert_ne!(a, c, "a different seed must give different results");
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
    let a = tpsim::models::simulate(&inline(&base), 1, 0);
    let b = tpsim::models::simulate(&inline(&with_other), 1, 0);
    assert_eq!(a.stations[0], b.stations[0]);
    assert_eq!(a.classes[0], b.classes[0]);
}

#[test]
fn pausing_for_progress_reports_changes_nothing() {
    let mut net = scenario("repairman");
    net.end_time = tpsim::core::SimTime::from_secs(10_000);
    let mut reports = Vec::new();
    let paused = tpsim::models::simulate_with_progress(&net, 3, 0, |t| reports.push(t));
    let mut whole = tpsim::core::Simulation::new(tpsim::models::simulate::NetworkModel::new(
        &net,
        &tpsim::core::Streams::new(3, 0),
    ));
    let (model, ctx) = whole.parts_mut();
    model.start(ctx);
    whole.run_until(net.end_time, None);
    let whole = whole.model().summary(whole.now(), whole.events(), 0);
    assert_eq!(paused, whole);
    assert_eq!(reports.len(), 200);
    assert!(reports.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(reports.last(), Some(&net.end_time));
}
