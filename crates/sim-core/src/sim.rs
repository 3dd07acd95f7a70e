//! The run loop: a model, its calendar and the clock.
//!
//! A [`Model`] reacts to one event at a time through [`Model::handle`]; it
//! reads the clock, schedules and cancels events, and asks the run to stop,
//! only through the [`Context`] it is handed. [`Simulation::step`] pops the
//! earliest event, advances the clock to it and dispatches it;
//! [`Simulation::run_until`] is a loop over `step`.

use crate::calendar::{Calendar, EventKey};
use crate::time::SimTime;

/// A discrete-event model driven by a [`Simulation`].
pub trait Model {
    /// The model's events: a closed enum, dispatched by `match`.
    type Event;

    /// Reacts to `event`, which fires at `ctx.now()`.
    fn handle(&mut self, event: Self::Event, ctx: &mut Context<Self::Event>);
}

/// What a model sees of the simulation while it handles an event.
#[derive(Debug)]
pub struct Context<E> {
    now: SimTime,
    calendar: Calendar<E>,
    stop_requested: bool,
}

impl<E> Context<E> {
    /// The current simulated time.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedules `event` after `delay` from now.
    pub fn schedule_in(&mut self, delay: SimTime, event: E) -> EventKey {
        self.calendar.schedule(self.now + delay, event)
    }

    /// Schedules `event` at the absolute time `at`.
    ///
    /// # Panics
    /// If `at` is in the past: an event may not change history.
    pub fn schedule_at(&mut self, at: SimTime, event: E) -> EventKey {
        assert!(
            at >= self.now,
            "event scheduled in the past ({at} < {})",
            self.now
        );
        self.calendar.schedule(at, event)
    }

    /// Cancels a pending event; `false` if it already fired or was cancelled.
    pub fn cancel(&mut self, key: EventKey) -> bool {
        self.calendar.cancel(key)
    }

    /// Asks the run loop to stop after the current event.
    pub fn stop(&mut self) {
        self.stop_requested = true;
    }

    /// The number of pending events.
    pub fn pending(&self) -> usize {
        self.calendar.len()
    }
}

/// Why a call to [`Simulation::run_until`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The end time was reached; the clock now reads exactly the end time.
    EndTime,
    /// The limit on the number of events was reached.
    EventLimit,
    /// The model called [`Context::stop`].
    ModelStopped,
    /// No event was left; the clock reads the end time.
    Exhausted,
}

/// A model together with its calendar and clock.
#[derive(Debug)]
pub struct Simulation<M: Model> {
    model: M,
    ctx: Context<M::Event>,
    events: u64,
}

impl<M: Model> Simulation<M> {
    /// A simulation at time zero with an empty calendar.
    pub fn new(model: M) -> Simulation<M> {
        Simulation {
            model,
            ctx: Context {
                now: SimTime::ZERO,
                calendar: Calendar::new(),
                stop_requested: false,
            },
            events: 0,
        }
    }

    /// The model.
    pub fn model(&self) -> &M {
        &self.model
    }

    /// The model, mutably (between events).
    pub fn model_mut(&mut self) -> &mut M {
        &mut self.model
    }

    /// The model and the context together, to schedule initial events.
    pub fn parts_mut(&mut self) -> (&mut M, &mut Context<M::Event>) {
        (&mut self.model, &mut self.ctx)
    }

    /// Takes the model out, ending the simulation.
    pub fn into_model(self) -> M {
        self.model
    }

    /// The current simulated time.
    pub fn now(&self) -> SimTime {
        self.ctx.now
    }

    /// The number of events dispatched so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Schedules `event` at the absolute time `at`.
    pub fn schedule_at(&mut self, at: SimTime, event: M::Event) -> EventKey {
        self.ctx.schedule_at(at, event)
    }

    /// Dispatches the earliest pending event, if any, and returns its time.
    pub fn step(&mut self) -> Option<SimTime> {
        let (time, event) = self.ctx.calendar.pop()?;
        debug_assert!(time >= self.ctx.now, "calendar went back in time");
        self.ctx.now = time;
        self.events += 1;
        self.model.handle(event, &mut self.ctx);
        Some(time)
    }

    /// Runs every event due at or before `end`, then sets the clock to `end`;
    /// stops early once `max_events` events in all have been dispatched or
    /// when the model asks to.
    pub fn run_until(&mut self, end: SimTime, max_events: Option<u64>) -> StopReason {
        loop {
            if max_events.is_some_and(|limit| self.events >= limit) {
                return StopReason::EventLimit;
            }
            match self.ctx.calendar.peek_time() {
                Some(t) if t <= end => {
                    self.step();
                    if std::mem::take(&mut self.ctx.stop_requested) {
                        return StopReason::ModelStopped;
                    }
                }
                next => {
                    self.ctx.now = self.ctx.now.max(end);
                    return if next.is_some() {
                        StopReason::EndTime
                    } else {
                        StopReason::Exhausted
                    };
                }
            }
        }
    }

    /// [`run_until`](Self::run_until) in `slices` equal slices of simulated
    /// time, calling `progress` with the clock after each one. The run is
    /// only paused between slices, never changed: the events and results are
    /// those of one call to `run_until`, unless the model stops itself.
    pub fn run_in_slices(
        &mut self,
        end: SimTime,
        max_events: Option<u64>,
        slices: u64,
        mut progress: impl FnMut(SimTime),
    ) -> StopReason {
        let step = (end.saturating_sub(self.now()).as_nanos() / slices.max(1)).max(1);
        loop {
            let until = SimTime::from_nanos(self.now().as_nanos().saturating_add(step)).min(end);
            let reason = self.run_until(until, max_events);
            progress(self.now());
            let paused = matches!(reason, StopReason::EndTime | StopReason::Exhausted);
            if until == end || !paused {
                return reason;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ticks once a second and stops itself at the fifth tick.
    struct Ticker {
        ticks: Vec<SimTime>,
    }

    impl Model for Ticker {
        type Event = ();
        fn handle(&mut self, (): (), ctx: &mut Context<()>) {
            self.ticks.push(ctx.now());
            if self.ticks.len() == 5 {
                ctx.stop();
            }
            let _ = ctx.schedule_in(SimTime::from_secs(1), ());
        }
    }

    fn ticker() -> Simulation<Ticker> {
        let mut sim = Simulation::new(Ticker { ticks: Vec::new() });
        let _ = sim.schedule_at(SimTime::ZERO, ());
        sim
    }

    #[test]
    fn run_until_stops_at_the_end_time_and_sets_the_clock() {
        let mut sim = ticker();
        let reason = sim.run_until(SimTime::from_nanos(2_500_000_000), None);
        assert_eq!(reason, StopReason::EndTime);
        assert_eq!(sim.model().ticks.len(), 3);
        assert_eq!(sim.now(), SimTime::from_nanos(2_500_000_000));
    }

    #[test]
    fn event_limit_and_model_stop_are_honoured() {
        let mut sim = ticker();
        assert_eq!(sim.run_until(SimTime::MAX, Some(2)), StopReason::EventLimit);
        assert_eq!(sim.events(), 2);
        assert_eq!(sim.run_until(SimTime::MAX, None), StopReason::ModelStopped);
        assert_eq!(sim.model().ticks.len(), 5);
        assert_eq!(sim.now(), SimTime::from_secs(4));
    }

    #[test]
    fn slices_report_progress_without_changing_the_run() {
        let mut whole = ticker();
        let _ = whole.run_until(SimTime::from_nanos(3_500_000_000), None);
        let mut sliced = ticker();
        let mut seen = Vec::new();
        let reason = sliced.run_in_slices(SimTime::from_nanos(3_500_000_000), None, 7, |t| {
            seen.push(t)
        });
        assert_eq!(reason, StopReason::EndTime);
        assert_eq!(sliced.model().ticks, whole.model().ticks);
        assert_eq!(seen.len(), 7);
        assert_eq!(seen.last(), Some(&SimTime::from_nanos(3_500_000_000)));
    }

    #[test]
    fn an_empty_calendar_exhausts() {
        let mut sim = Simulation::new(Ticker { ticks: Vec::new() });
        assert_eq!(
            sim.run_until(SimTime::from_secs(9), None),
            StopReason::Exhausted
        );
        assert_eq!(sim.now(), SimTime::from_secs(9));
    }
}
