//! An M/M/1 queue written directly on tpsim's kernel, run as independent
//! replications on all cores, with a warm-up and a Student-t interval for
//! the mean response time, set beside the exact 1 / (mu - lambda).
//!
//!     cargo run --release --example mm1
//!
//! This is what a user who writes a model by hand (as one would with
//! SimPy) gets from `tpsim::core`: an event calendar, named random streams
//! per replication, statistics, and replications with intervals.

use std::collections::VecDeque;
use tpsim::core::replicate::{Estimate, Runner};
use tpsim::core::{Context, Dist, Model, SimTime, Simulation, Stream, Streams, Tally};

/// The events of the queue.
#[derive(Debug)]
pub enum Event {
    /// A job arrives.
    Arrival,
    /// The job in service leaves.
    Departure,
    /// The warm-up ends: statistics start again.
    WarmupEnd,
}

/// A single FCFS server with Poisson arrivals and exponential service.
pub struct Mm1 {
    interarrival: Dist,
    service: Dist,
    arrivals: Stream,
    services: Stream,
    /// The arrival times of the jobs present, the one in service first.
    present: VecDeque<SimTime>,
    /// Response times of the jobs that left since the warm-up.
    pub response: Tally,
}

impl Mm1 {
    /// The queue at `arrival_rate` and `service_rate` \[1/s\], drawing from
    /// `streams`.
    pub fn new(arrival_rate: f64, service_rate: f64, streams: &Streams) -> Mm1 {
        Mm1 {
            interarrival: Dist::exponential(1.0 / arrival_rate).expect("a positive rate"),
            service: Dist::exponential(1.0 / service_rate).expect("a positive rate"),
            arrivals: streams.stream("arrivals"),
            services: streams.stream("service"),
            present: VecDeque::new(),
            response: Tally::new(),
        }
    }

    fn start_service(&mut self, ctx: &mut Context<Event>) {
        let time = self.service.sample_time(&mut self.services);
        let _ = ctx.schedule_in(time, Event::Departure);
    }
}

impl Model for Mm1 {
    type Event = Event;

    fn handle(&mut self, event: Event, ctx: &mut Context<Event>) {
        match event {
            Event::Arrival => {
                let next = self.interarrival.sample_time(&mut self.arrivals);
                let _ = ctx.schedule_in(next, Event::Arrival);
                self.present.push_back(ctx.now());
                if self.present.len() == 1 {
                    self.start_service(ctx);
                }
            }
            Event::Departure => {
                let arrived = self.present.pop_front().expect("a job in service");
                self.response.add((ctx.now() - arrived).as_secs_f64());
                if !self.present.is_empty() {
                    self.start_service(ctx);
                }
            }
            Event::WarmupEnd => self.response = Tally::new(),
        }
    }
}

/// One replication: the mean response time after `warmup` seconds, up to
/// `end` seconds.
pub fn mean_response(
    streams: Streams,
    arrival_rate: f64,
    service_rate: f64,
    warmup: f64,
    end: f64,
) -> f64 {
    let mut sim = Simulation::new(Mm1::new(arrival_rate, service_rate, &streams));
    let _ = sim.schedule_at(SimTime::ZERO, Event::Arrival);
    let _ = sim.schedule_at(SimTime::from_secs_f64(warmup), Event::WarmupEnd);
    sim.run_until(SimTime::from_secs_f64(end), None);
    sim.model().response.mean()
}

fn main() {
    let (lambda, mu) = (0.8, 1.0);
    let runner = Runner::new(0).expect("a thread pool");
    let runs = runner.replicate(2026, 0..20, |streams| {
        mean_response(streams, lambda, mu, 1_000.0, 50_000.0)
    });
    let estimate = Estimate::of(&runs, 0.95);
    println!(
        "M/M/1, rho = {}: mean response {:.4} ± {:.4} s over {} replications on {} threads; exact {:.4} s",
        lambda / mu,
        estimate.mean,
        estimate.half_width.expect("20 replications"),
        estimate.n,
        runner.threads(),
        1.0 / (mu - lambda)
    );
}
