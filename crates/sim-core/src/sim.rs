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
    type Event: std::fmt::Debug;

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
    #[inline(always)]
    pub fn schedule_in(&mut self, delay: SimTime, event: E) -> EventKey {
        self.calendar.schedule(self.now + delay, event)
    }

    /// Schedules `event` at the absolute time `at`.
    ///
    /// # Panics
    /// If `at` is in the past: an event may not change history.
    #[inline(always)]
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
    /// The clock stood still for [`STALL_EVENTS`] (or [`Simulation::set_stall_limit`]) events in a
    /// row: some cycle of the model takes no time, and the run could never
    /// reach its end time.
    Stalled,
    /// The caller of [`Simulation::run_in_slices`] asked to stop between
    /// two slices.
    Interrupted,
}

/// Events in a row at one instant after which a run is judged stalled.
pub const STALL_EVENTS: u64 = 10_000_000;

/// A model together with its calendar and clock.
#[derive(Debug)]
pub struct Simulation<M: Model> {
    model: M,
    ctx: Context<M::Event>,
    events: u64,
    /// Events dispatched since the clock last moved.
    still: u64,
    stall_limit: u64,
    /// The event that last fired, while the clock stands still.
    last_event: String,
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
            still: 0,
            stall_limit: STALL_EVENTS,
            last_event: String::new(),
        }
    }

    /// Judges the run stalled after `events` in a row at one instant
    /// (default [`STALL_EVENTS`]).
    pub fn set_stall_limit(&mut self, events: u64) {
        assert!(events > 0, "a stall limit of 0 events stops every run");
        self.stall_limit = events;
    }

    /// The last event dispatched while the clock stood still, as `Debug`
    /// prints it (empty if the clock moved with the last event): after a
    /// [`StopReason::Stalled`], it names part of the cycle that takes no
    /// time.
    pub fn stalled_on(&self) -> &str {
        &self.last_event
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
    /// A stop the model asks for while handling it concerns run loops only:
    /// a single step has nothing left to stop, so the request is dropped and
    /// does not cut short a later [`run_until`](Self::run_until).
    pub fn step(&mut self) -> Option<SimTime> {
        let time = self.dispatch_due(SimTime::MAX);
        self.ctx.stop_requested = false;
        time
    }

    /// Dispatches the earliest pending event if it is due at or before
    /// `end`, and returns its time.
    #[inline]
    fn dispatch_due(&mut self, end: SimTime) -> Option<SimTime> {
        let (time, event) = self.ctx.calendar.pop_due(end)?;
        debug_assert!(time >= self.ctx.now, "calendar went back in time");
        if time > self.ctx.now {
            self.still = 0;
        } else {
            self.still += 1;
        }
        self.ctx.now = time;
        self.events += 1;
        if self.still >= self.stall_limit {
            self.dispatch_stalled(event);
        } else {
            self.model.handle(event, &mut self.ctx);
        }
        Some(time)
    }

    /// Dispatches `event` of a run judged stalled, first noting it for
    /// [`stalled_on`](Self::stalled_on). Kept out of the usual path: an
    /// event formatted there must be kept in memory at every event, which
    /// costs the run loop about a tenth of its speed.
    #[cold]
    #[inline(never)]
    fn dispatch_stalled(&mut self, event: M::Event) {
        self.last_event = format!("{event:?}");
        self.model.handle(event, &mut self.ctx);
    }

    /// Runs every event due at or before `end`, then sets the clock to `end`;
    /// stops early once `max_events` events in all have been dispatched or
    /// when the model asks to.
    pub fn run_until(&mut self, end: SimTime, max_events: Option<u64>) -> StopReason {
        loop {
            if max_events.is_some_and(|limit| self.events >= limit) {
                return StopReason::EventLimit;
            }
            if self.dispatch_due(end).is_none() {
                self.ctx.now = self.ctx.now.max(end);
                return if self.ctx.calendar.is_empty() {
                    StopReason::Exhausted
                } else {
                    StopReason::EndTime
                };
            }
            if std::mem::take(&mut self.ctx.stop_requested) {
                return StopReason::ModelStopped;
            }
            if self.still >= self.stall_limit {
                return StopReason::Stalled;
            }
        }
    }

    /// [`run_until`](Self::run_until) in `slices` equal slices of simulated
    /// time, calling `progress` with the model, the clock and whether a
    /// slice has just ended: after each slice, to read the model's meters
    /// as the run goes, and also every [`CHECK_EVERY`] events within a
    /// slice, so that a caller hears from a run whose clock crawls (a
    /// nanosecond quantum) within a fraction of a second of wall time.
    /// `progress` returns whether to go on, and a `false` ends the run with
    /// [`StopReason::Interrupted`]. The run is only paused between calls,
    /// never changed: the events and results are those of one call to
    /// `run_until`, unless the model stops itself or the caller stops it.
    pub fn run_in_slices(
        &mut self,
        end: SimTime,
        max_events: Option<u64>,
        slices: u64,
        mut progress: impl FnMut(&M, SimTime, bool) -> bool,
    ) -> StopReason {
        let step = (end.saturating_sub(self.now()).as_nanos() / slices.max(1)).max(1);
        loop {
            let until = SimTime::from_nanos(self.now().as_nanos().saturating_add(step)).min(end);
            let reason = loop {
                let check = self.events.saturating_add(CHECK_EVERY);
                let limit = max_events.map_or(check, |limit| limit.min(check));
                let reason = self.run_until(until, Some(limit));
                let ours = reason == StopReason::EventLimit
                    && max_events.is_none_or(|limit| self.events < limit);
                if !ours {
                    break reason;
                }
                if !progress(&self.model, self.now(), false) {
                    return StopReason::Interrupted;
                }
            };
            let go_on = progress(&self.model, self.now(), true);
            let paused = matches!(reason, StopReason::EndTime | StopReason::Exhausted);
            if until == end || !paused {
                return reason;
            }
            if !go_on {
                return StopReason::Interrupted;
            }
        }
    }
}

/// How many events [`Simulation::run_in_slices`] runs at most between two
/// calls of its `progress`: a few milliseconds of wall time at the run
/// loop's usual speed, so that even a thousand runs sharing two cores all
/// hear a signal within a second; a call every few thousand events costs
/// the loop nothing measurable.
pub const CHECK_EVERY: u64 = 1 << 14;

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
        assert_eq!(
            sim.model().ticks,
            [0, 1, 2].map(SimTime::from_secs),
            "the model sees each event's own time"
        );
        assert_eq!(sim.now(), SimTime::from_nanos(2_500_000_000));
    }

    /// Schedules a timeout and, at the first tick, cancels it twice.
    struct Canceller {
        timeout: Option<EventKey>,
        answers: Vec<bool>,
        fired: bool,
    }

    impl Model for Canceller {
        type Event = bool;
        fn handle(&mut self, is_timeout: bool, ctx: &mut Context<bool>) {
            if is_timeout {
                self.fired = true;
                return;
            }
            let key = self.timeout.take().expect("one tick");
            assert_eq!(ctx.pending(), 1, "the timeout is pending");
            self.answers.push(ctx.cancel(key));
            self.answers.push(ctx.cancel(key));
            assert_eq!(ctx.pending(), 0);
        }
    }

    #[test]
    fn a_model_cancels_through_its_context_once() {
        let mut sim = Simulation::new(Canceller {
            timeout: None,
            answers: Vec::new(),
            fired: false,
        });
        let (model, ctx) = sim.parts_mut();
        model.timeout = Some(ctx.schedule_in(SimTime::from_secs(5), true));
        let _ = sim.schedule_at(SimTime::from_secs(1), false);
        assert_eq!(
            sim.run_until(SimTime::from_secs(10), None),
            StopReason::Exhausted
        );
        assert_eq!(sim.model().answers, [true, false]);
        assert!(!sim.model().fired);
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
        let reason = sliced.run_in_slices(
            SimTime::from_nanos(3_500_000_000),
            None,
            7,
            |_, t, ended| {
                assert!(ended, "a few ticks never reach the event check");
                seen.push(t);
                true
            },
        );
        assert_eq!(reason, StopReason::EndTime);
        assert_eq!(sliced.model().ticks, whole.model().ticks);
        assert_eq!(seen.len(), 7);
        assert_eq!(seen.last(), Some(&SimTime::from_nanos(3_500_000_000)));
    }

    #[test]
    fn a_stop_asked_for_in_a_single_step_does_not_cut_the_next_run_short() {
        let mut sim = ticker();
        for _ in 0..5 {
            sim.step();
        }
        assert_eq!(sim.model().ticks.len(), 5, "the fifth tick asks to stop");
        assert_eq!(
            sim.run_until(SimTime::from_nanos(7_500_000_000), None),
            StopReason::EndTime
        );
        assert_eq!(sim.model().ticks.len(), 8);
    }

    #[test]
    fn the_caller_may_stop_between_slices() {
        let mut sim = ticker();
        let reason = sim.run_in_slices(SimTime::from_secs(4), None, 4, |_, t, _| {
            t < SimTime::from_secs(2)
        });
        assert_eq!(reason, StopReason::Interrupted);
        assert_eq!(sim.now(), SimTime::from_secs(2));
    }

    /// Ticks every nanosecond: a clock that crawls.
    #[derive(Debug)]
    struct Crawler {
        ticks: u64,
    }

    impl Model for Crawler {
        type Event = ();
        fn handle(&mut self, (): (), ctx: &mut Context<()>) {
            self.ticks += 1;
            let _ = ctx.schedule_in(SimTime::from_nanos(1), ());
        }
    }

    fn crawler() -> Simulation<Crawler> {
        let mut sim = Simulation::new(Crawler { ticks: 0 });
        let _ = sim.schedule_at(SimTime::ZERO, ());
        sim
    }

    #[test]
    fn a_run_whose_clock_crawls_hears_from_its_caller_within_a_slice() {
        // One slice of ten million events: the caller is asked between
        // slices and every CHECK_EVERY events within one.
        let end = SimTime::from_nanos(10_000_000);
        let mut calls = Vec::new();
        let reason = crawler().run_in_slices(end, None, 1, |model, _, ended| {
            calls.push((model.ticks, ended));
            calls.len() < 3
        });
        assert_eq!(reason, StopReason::Interrupted);
        assert_eq!(
            calls,
            [
                (CHECK_EVERY, false),
                (2 * CHECK_EVERY, false),
                (3 * CHECK_EVERY, false)
            ]
        );
        // Asked and answered yes all the way, the run is the same as one
        // call to run_until, and its event limit still counts.
        let mut whole = crawler();
        let mut sliced = crawler();
        assert_eq!(
            whole.run_until(end, Some(5_000_000)),
            StopReason::EventLimit
        );
        assert_eq!(
            sliced.run_in_slices(end, Some(5_000_000), 3, |_, _, _| true),
            StopReason::EventLimit
        );
        assert_eq!(sliced.events(), whole.events());
        assert_eq!(sliced.now(), whole.now());
        assert_eq!(sliced.model().ticks, whole.model().ticks);
    }

    /// Schedules its next event at the same instant, for ever.
    #[derive(Debug)]
    struct Spinner;

    impl Model for Spinner {
        type Event = u32;
        fn handle(&mut self, event: u32, ctx: &mut Context<u32>) {
            let _ = ctx.schedule_in(SimTime::ZERO, event + 1);
        }
    }

    #[test]
    fn a_clock_that_stands_still_stalls_the_run() {
        let mut sim = Simulation::new(Spinner);
        sim.set_stall_limit(1_000);
        let _ = sim.schedule_at(SimTime::from_secs(1), 7);
        assert_eq!(
            sim.run_until(SimTime::from_secs(5), None),
            StopReason::Stalled
        );
        assert_eq!(sim.now(), SimTime::from_secs(1));
        assert_eq!(sim.events(), 1_001);
        // Events 7 (at 1 s, when the clock moved) to 1007: the last names
        // the stall.
        assert_eq!(sim.stalled_on(), "1007");
        // A model whose clock moves is never stalled, however long it runs.
        let mut ticking = ticker();
        ticking.set_stall_limit(2);
        assert_eq!(
            ticking.run_until(SimTime::from_secs(3), None),
            StopReason::EndTime
        );
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
