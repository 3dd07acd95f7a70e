//! A custom model on tpsim's kernel: N machines that break down and c
//! repairmen who mend them (the machine-repairman model with several
//! repairmen), run with a warm-up and as many independent replications as
//! it takes for the mean number of machines down to be known within 1%.
//!
//!     cargo run --release --example repairmen
//!
//! The exact answer comes from the model's birth-death chain: with k
//! machines down, breakdowns come at (N - k)·λ and repairs at min(k, c)·μ
//! (L. Kleinrock, *Queueing Systems* vol. 1, Wiley 1975, section 3.9).

use tpsim::core::replicate::{Estimate, Precision, Rule, Runner};
use tpsim::core::{Context, Dist, Model, SimTime, Simulation, Stream, Streams, TimeWeighted};

/// The shop's parameters.
#[derive(Clone, Copy, Debug)]
pub struct Shop {
    /// Machines.
    pub machines: u32,
    /// Repairmen.
    pub repairmen: u32,
    /// Mean time a machine runs between breakdowns \[s\].
    pub mean_up: f64,
    /// Mean time of a repair \[s\].
    pub mean_repair: f64,
}

impl Shop {
    /// The exact mean number of machines down, from the birth-death
    /// chain's stationary distribution.
    pub fn exact_mean_down(&self) -> f64 {
        let (n, c) = (self.machines, self.repairmen);
        let (lambda, mu) = (1.0 / self.mean_up, 1.0 / self.mean_repair);
        let mut p = vec![1.0];
        for k in 1..=n {
            let up = f64::from(n - k + 1) * lambda;
            let down = f64::from(k.min(c)) * mu;
            p.push(p[k as usize - 1] * up / down);
        }
        let total: f64 = p.iter().sum();
        p.iter()
            .enumerate()
            .map(|(k, pk)| k as f64 * pk / total)
            .sum()
    }
}

/// The events of the shop.
#[derive(Debug)]
pub enum Event {
    /// A machine breaks down.
    Breakdown,
    /// A repair ends.
    Repaired,
    /// The warm-up ends.
    WarmupEnd,
}

struct Repairmen {
    shop: Shop,
    up_time: Dist,
    repair_time: Dist,
    breakdowns: Stream,
    repairs: Stream,
    down: TimeWeighted,
}

impl Repairmen {
    fn down(&self) -> u32 {
        self.down.value() as u32
    }

    fn repair(&mut self, ctx: &mut Context<Event>) {
        let time = self.repair_time.sample_time(&mut self.repairs);
        let _ = ctx.schedule_in(time, Event::Repaired);
    }

    fn run_machine(&mut self, ctx: &mut Context<Event>) {
        let time = self.up_time.sample_time(&mut self.breakdowns);
        let _ = ctx.schedule_in(time, Event::Breakdown);
    }
}

impl Model for Repairmen {
    type Event = Event;

    fn handle(&mut self, event: Event, ctx: &mut Context<Event>) {
        let down = self.down();
        match event {
            Event::Breakdown => {
                self.down.set(ctx.now(), f64::from(down + 1));
                if down < self.shop.repairmen {
                    self.repair(ctx);
                }
            }
            Event::Repaired => {
                self.down.set(ctx.now(), f64::from(down - 1));
                self.run_machine(ctx);
                if down > self.shop.repairmen {
                    self.repair(ctx);
                }
            }
            Event::WarmupEnd => self.down.reset(ctx.now()),
        }
    }
}

/// One replication: the time-average number of machines down between
/// `warmup` and `end` seconds.
pub fn mean_down(shop: &Shop, streams: Streams, warmup: f64, end: f64) -> f64 {
    let model = Repairmen {
        shop: *shop,
        up_time: Dist::exponential(shop.mean_up).expect("a positive mean"),
        repair_time: Dist::exponential(shop.mean_repair).expect("a positive mean"),
        breakdowns: streams.stream("breakdowns"),
        repairs: streams.stream("repairs"),
        down: TimeWeighted::new(SimTime::ZERO, 0.0),
    };
    let mut sim = Simulation::new(model);
    for _ in 0..shop.machines {
        let (model, ctx) = sim.parts_mut();
        model.run_machine(ctx);
    }
    let _ = sim.schedule_at(SimTime::from_secs_f64(warmup), Event::WarmupEnd);
    let end = SimTime::from_secs_f64(end);
    sim.run_until(end, None);
    sim.model().down.mean(end)
}

fn main() {
    let shop = Shop {
        machines: 20,
        repairmen: 3,
        mean_up: 100.0,
        mean_repair: 10.0,
    };
    let runner = Runner::new(0).expect("a thread pool");
    let rule = Rule::Precision {
        initial: 20,
        precision: Precision {
            relative_half_width: 0.01,
            level: 0.95,
            max_replications: 500,
        },
    };
    let run = |shop: &Shop, streams: Streams| Some(mean_down(shop, streams, 1_000.0, 20_000.0));
    let batch = runner
        .replicate_each(7, &[shop], &rule, run, |&down| vec![down])
        .remove(0);
    let estimate = Estimate::of(&batch.runs, 0.95);
    println!(
        "{} machines, {} repairmen: mean down {:.3} ± {:.3} after {} replications (stopped by {}); exact {:.3}",
        shop.machines,
        shop.repairmen,
        estimate.mean,
        estimate.half_width.expect("at least 20 replications"),
        estimate.n,
        batch.stopped_by.name(),
        shop.exact_mean_down()
    );
}
