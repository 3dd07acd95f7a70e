//! The kernel of tpsim: simulated time, the event calendar, the run loop,
//! random streams, distributions and output statistics.
//!
//! # Lifecycle of a run
//! A model implements [`Model`]: a closed `enum` of events and a `handle`
//! method. [`Simulation::new`] wraps it with an empty [`Calendar`] at time
//! zero; initial events are scheduled; then [`Simulation::run_until`]
//! pops events one at a time, advances the clock and dispatches them, until
//! the end time, an event limit, or a stop requested by the model.
//!
//! # Ordering guarantee
//! Events fire in order of time; events at the same time fire in the order
//! they were scheduled. Time is an integer ([`SimTime`], nanoseconds), so a
//! run is a total, reproducible order of events.
//!
//! # Units
//! Times are [`SimTime`] ticks inside the kernel; distributions sample
//! seconds as `f64`; statistics report seconds.
//!
//! # Randomness
//! [`Streams`] derives an independent generator for every named component
//! from the master seed and the replication index.
//!
//! # Replications
//! [`replicate`] runs independent replications on all cores, with
//! Student-t intervals and a sequential stopping rule.
//!
//! # Example
//! A single server with exponential service, fed by Poisson arrivals
//! (M/M/1 with rho = 0.5): the mean number in the system is rho / (1 - rho) = 1.
//! ```
//! use tpsim_core::{Context, Dist, Model, SimTime, Simulation, Stream, Streams, TimeWeighted};
//!
//! #[derive(Debug)]
//! enum Event { Arrival, Departure }
//!
//! struct Mm1 { inter: Dist, service: Dist, arrivals: Stream, services: Stream,
//!              in_system: TimeWeighted }
//!
//! impl Model for Mm1 {
//!     type Event = Event;
//!     fn handle(&mut self, event: Event, ctx: &mut Context<Event>) {
//!         let n = self.in_system.value();
//!         match event {
//!             Event::Arrival => {
//!                 let _ = ctx.schedule_in(self.inter.sample_time(&mut self.arrivals), Event::Arrival);
//!                 if n == 0.0 {
//!                     let _ = ctx.schedule_in(self.service.sample_time(&mut self.services), Event::Departure);
//!                 }
//!                 self.in_system.set(ctx.now(), n + 1.0);
//!             }
//!             Event::Departure => {
//!                 if n > 1.0 {
//!                     let _ = ctx.schedule_in(self.service.sample_time(&mut self.services), Event::Departure);
//!                 }
//!                 self.in_system.set(ctx.now(), n - 1.0);
//!             }
//!         }
//!     }
//! }
//!
//! let streams = Streams::new(42, 0);
//! let model = Mm1 {
//!     inter: Dist::exponential(2.0).unwrap(),
//!     service: Dist::exponential(1.0).unwrap(),
//!     arrivals: streams.stream("arrivals"),
//!     services: streams.stream("service"),
//!     in_system: TimeWeighted::new(SimTime::ZERO, 0.0),
//! };
//! let mut sim = Simulation::new(model);
//! let _ = sim.schedule_at(SimTime::ZERO, Event::Arrival);
//! let end = SimTime::from_secs(200_000);
//! sim.run_until(end, None);
//! let l = sim.model().in_system.mean(end);
//! assert!((l - 1.0).abs() < 0.05, "mean number in system {l}");
//! ```
#![deny(missing_docs)]

pub mod calendar;
pub mod dist;
pub mod figure;
pub mod random;
pub mod replicate;
pub mod sim;
pub mod stats;
pub mod time;

pub use calendar::{Calendar, EventKey};
pub use dist::{Dist, DistError, LONGEST_SAMPLE};
pub use figure::{Figure, Fixed};
pub use random::{Stream, Streams};
pub use sim::{Context, Model, STALL_EVENTS, Simulation, StopReason};
pub use stats::{
    BatchMeans, ConfidenceInterval, NoInterval, Quantiles, RunningMean, Tally, TimeWeighted,
};
pub use time::SimTime;
