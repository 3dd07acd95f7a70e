//! Batches of replications and sweeps: intervals over replications that
//! cover what they claim, a sweep that lies on exact MVA, and the examples
//! of the library's replications API.

use crate::{check_level, interval, note_check, seed};
use statrs::distribution::{ContinuousCDF, Normal};
use tpsim::core::Streams;
use tpsim::core::replicate::{Estimate, Rule, Runner, Shard};
use tpsim::models::analytic::ClosedModel;
use tpsim::models::batch;
use tpsim::models::sweep::{Setting, points};
use tpsim::models::warmup;
use tpsim::probe::curves;

#[allow(dead_code)]
#[path = "../../examples/mm1.rs"]
mod mm1;

#[allow(dead_code)]
#[path = "../../examples/repairmen.rs"]
mod repairmen;

#[test]
fn replication_intervals_cover_the_mean_at_their_nominal_rate() {
    // 600 batches of 5 replications of the M/M/1 example at rho = 0.5,
    // each replication 4,000 s after a 400 s warm-up: the 95% Student-t
    // interval of each batch must cover the exact mean response of 2 s in
    // a fraction of batches consistent with 95%. With 5 replications a
    // normal quantile in place of Student's t would cover about 88%.
    let (batches, per_batch) = (600u64, 5u64);
    let runner = Runner::new(0).unwrap();
    let runs = runner.replicate(seed(11), 0..batches * per_batch, |s: Streams| {
        mm1::mean_response(s, 0.5, 1.0, 400.0, 4_000.0)
    });
    let covered = runs
        .chunks(per_batch as usize)
        .filter(|b| Estimate::of(b, 0.95).contains(2.0))
        .count();
    note_check("replication-interval coverage, M/M/1 rho 0.5");
    let coverage = covered as f64 / batches as f64;
    let z = Normal::new(0.0, 1.0)
        .unwrap()
        .inverse_cdf(0.5 + check_level() / 2.0);
    let band = z * (0.95 * 0.05 / batches as f64).sqrt();
    assert!(
        (coverage - 0.95).abs() <= band,
        "coverage {coverage} of {batches} intervals, outside 0.95 ± {band}"
    );
}

#[test]
fn the_repairmen_example_matches_its_birth_death_chain() {
    let shop = repairmen::Shop {
        machines: 20,
        repairmen: 3,
        mean_up: 100.0,
        mean_repair: 10.0,
    };
    let runner = Runner::new(0).unwrap();
    let run =
        |shop: &repairmen::Shop, s: Streams| Some(repairmen::mean_down(shop, s, 1_000.0, 20_000.0));
    let batch = runner.replicate_each(seed(12), &[shop], &Rule::Count(80), run, |&d| vec![d]);
    let ci = interval("repairmen example, mean machines down", &batch[0].runs);
    let exact = shop.exact_mean_down();
    // By hand: p_k ∝ prod (N-i+1)λ / (min(i,c)μ); L = 2.126 to three places.
    assert!((exact - 2.126).abs() < 5e-4, "exact {exact}");
    assert!(ci.contains(exact), "{ci:?} against {exact}");
    assert!(ci.half_width < 0.02 * exact, "{ci:?}");
}

#[test]
fn a_sweep_of_the_central_server_model_lies_on_exact_mva() {
    // Terminals 1, 5, 12 and 20, 20 replications of 20,000 s each: the
    // throughput and the mean response at every point within the interval
    // of the exact MVA values.
    let path = crate::scenario_path("central-server");
    let text = std::fs::read_to_string(&path).unwrap();
    let text = text.replace("seed = 1", &format!("seed = {}", seed(13)));
    let settings = [
        Setting::parse("class[terminals].terminals=1,5,12,20").unwrap(),
        Setting::parse("run.end_time=20000s").unwrap(),
    ];
    let at = points("central-server.toml", &text, &settings).unwrap();
    let chosen = vec!["classes.*".to_string()];
    let runner = Runner::new(0).unwrap();
    let results = batch::run(
        &at,
        &Rule::Count(20),
        Shard::WHOLE,
        &runner,
        &chosen,
        || {},
        || true,
    );
    let model = ClosedModel::of(&crate::scenario("central-server")).unwrap();
    let exact = model.solve(20);
    for (point, result) in at.iter().zip(&results) {
        let n: u32 = point.values[0].1.parse().unwrap();
        let column = |name: &str| {
            let m = result.measures.iter().position(|x| x == name).unwrap();
            result
                .replications
                .iter()
                .map(|r| r.values[m])
                .collect::<Vec<f64>>()
        };
        let mva = &exact[n as usize - 1];
        crate::assert_covers(
            &format!("sweep, throughput at {n}"),
            &column("classes.terminals.throughput"),
            mva.throughput,
            0.06,
        );
        crate::assert_covers(
            &format!("sweep, response at {n}"),
            &column("classes.terminals.mean_response"),
            mva.response,
            0.1,
        );
    }
}

#[test]
fn the_thrashing_knee_moves_with_memory() {
    // thrashing.toml at 8, 16 and 24 terminals with 160 KiB and 320 KiB of
    // user memory, 4 replications of 6,000 s on common random numbers. With
    // the smaller memory the throughput passes its peak and falls below
    // half of it within the sweep; doubling the memory moves the knee out:
    // at 24 terminals the paired gain in throughput has an interval above
    // zero, and the larger memory's throughput, if it falls to half at all,
    // does so at more terminals.
    let text = std::fs::read_to_string(crate::scenario_path("thrashing")).unwrap();
    let text = text.replace("seed = 1", &format!("seed = {}", seed(14)));
    let settings = [
        Setting::parse("memory.size=160KiB,320KiB").unwrap(),
        Setting::parse("users.terminals=8,16,24").unwrap(),
        Setting::parse("run.end_time=6000s").unwrap(),
        Setting::parse("run.warmup=1000s").unwrap(),
    ];
    let at = points("thrashing.toml", &text, &settings).unwrap();
    let chosen = vec!["classes.*.throughput".to_string()];
    let runner = Runner::new(0).unwrap();
    let results = batch::run(
        &at,
        &Rule::Count(4),
        Shard::WHOLE,
        &runner,
        &chosen,
        || {},
        || true,
    );
    let keys: Vec<String> = settings.iter().map(|s| s.key.clone()).collect();
    let at: Vec<_> = results.iter().map(curves::AxisPoint::from).collect();
    let axis = curves::axis(&keys, None, &at).unwrap().unwrap();
    // The population N, the other key of several values making the curves
    // and the constants in no label.
    assert_eq!(axis.key, "users.terminals");
    let throughput = curves::curves(&axis, &results, curves::THROUGHPUT, 0.95);
    assert_eq!(throughput[0].label, "memory.size=160KiB");
    let knees = curves::knees(&throughput);
    let (small, large) = (&knees[0], &knees[1]);
    let small_half = small
        .half
        .unwrap_or_else(|| panic!("no thrashing at 160 KiB: {small:?}"));
    assert!(small_half <= 24.0, "{small:?}");
    assert!(
        large.half.is_none_or(|h| h > small_half),
        "{small:?} against {large:?}"
    );
    // Both are closed models MVA solves as if memory were never short: the
    // knee of the bounds is the same for both, N* = (D + Z) / D_max.
    assert_eq!(small.saturation, large.saturation);
    let at24 = |p: &batch::PointRuns| {
        let m = p
            .measures
            .iter()
            .position(|m| m == "classes.job.throughput")
            .unwrap();
        p.replications
            .iter()
            .map(|r| r.values[m])
            .collect::<Vec<f64>>()
    };
    let gain: Vec<f64> = at24(&results[5])
        .iter()
        .zip(at24(&results[2]))
        .map(|(large, small)| large - small)
        .collect();
    assert_eq!(results[5].values[1].1, "24");
    crate::assert_above(
        "thrashing, throughput gained by doubling memory at 24 terminals",
        &gain,
        0.0,
    );
}

#[test]
fn a_networks_progress_trace_counts_its_responses() {
    // The trace MSER-5 reads: by the end, every completion and the sum of
    // their responses, as the summary has them (no warm-up).
    let mut net = crate::scenario("mm1");
    net.settings.end_time = tpsim::core::SimTime::from_secs(20_000);
    net.settings.warmup = tpsim::core::SimTime::ZERO;
    let run = tpsim::models::simulate(&net, 3, 0);
    let last = run.trace.last().unwrap();
    let class = &run.summary.classes[0];
    assert_eq!(last.completions, class.completions);
    let mean = last.response_sum / last.completions as f64;
    assert!(
        (mean - class.mean_response.unwrap()).abs() < 1e-9,
        "{last:?}"
    );
}

#[test]
fn a_time_sharing_run_s_progress_trace_counts_its_responses() {
    // The same for a time-sharing system: its commands' completions and
    // responses, from the start (no warm-up).
    let mut sys = crate::system("thrashing");
    sys.settings.end_time = tpsim::core::SimTime::from_secs(2_000);
    sys.settings.warmup = tpsim::core::SimTime::ZERO;
    let run = tpsim::models::system::simulate(&sys, 3, 0);
    let last = run.trace.last().unwrap();
    let class = &run.summary.classes[0];
    assert!(class.completions > 100, "{class:?}");
    assert_eq!(last.completions, class.completions);
    let mean = last.response_sum / last.completions as f64;
    assert!(
        (mean - class.mean_response.unwrap()).abs() < 1e-9,
        "{last:?}"
    );
}

#[test]
fn a_warm_up_chosen_by_mser5_leaves_the_mean_unbiased() {
    // M/M/1 at rho 0.8 (mean response 5 s) from an empty start, runs of
    // 20,000 s: MSER-5 over 10 pilot runs finds a steady state and chooses a
    // warm-up in the first half of the run, at the end of one of its
    // thousand progress intervals; 40 replications with it cover the exact
    // mean response.
    let text = std::fs::read_to_string(crate::scenario_path("mm1"))
        .unwrap()
        .replace("seed = 1", &format!("seed = {}", seed(15)));
    let settings = [
        Setting::parse("run.end_time=20000s").unwrap(),
        Setting::parse("run.warmup=0s").unwrap(),
    ];
    let mut scenario = points("mm1.toml", &text, &settings)
        .unwrap()
        .remove(0)
        .scenario;
    let runner = Runner::new(0).unwrap();
    let chosen = warmup::choose(&scenario, &runner, || {}, || true).unwrap();
    assert!(chosen.warmup < 10000.0, "{chosen:?}");
    assert_eq!(chosen.warmup % 20.0, 0.0, "{chosen:?}");
    assert_eq!(chosen.intervals, 1000);
    scenario.settings_mut().warmup = tpsim::models::SimTime::from_secs_f64(chosen.warmup);
    let response = runner.replicate(0, 0..40, |streams| {
        scenario
            .run(streams.replication(), |_| true)
            .summary
            .classes[0]
            .mean_response
            .unwrap()
    });
    crate::assert_covers(
        "M/M/1 rho 0.8 after the MSER-5 warm-up",
        &response,
        5.0,
        0.1,
    );
}
