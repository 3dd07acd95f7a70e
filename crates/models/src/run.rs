//! Running a scenario: one set of run settings, one driver and one result
//! type for queueing networks and time-sharing systems alike.
//!
//! Both models implement `Runnable`: they schedule what starts a run and
//! report what they measured. `drive` does the rest the same way for both:
//! the streams of a replication, the run in slices with progress reports,
//! and how the run ended.

use crate::summary::{StoppedBy, Summary};
use crate::system::{LifetimePoint, LoadSample, Observation, SetSizePoint};
use tpsim_core::sim::CHECK_EVERY;
use tpsim_core::{Context, Model, SimTime, Simulation, StopReason, Streams};

/// What every scenario says about its runs: its name, its master seed and
/// the `[run]` table.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSettings {
    /// The scenario's name.
    pub name: String,
    /// The master seed.
    pub seed: u64,
    /// When the run ends.
    pub end_time: SimTime,
    /// When statistics are reset.
    pub warmup: SimTime,
    /// An optional limit on the number of events.
    pub max_events: Option<u64>,
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct Run {
    /// The summary.
    pub summary: Summary,
    /// The load indices, sampled every `run.load_interval` (time-sharing
    /// systems; empty for a queueing network).
    pub load: Vec<LoadSample>,
    /// The terminal probe's observations, one per benchmark run (empty
    /// without a probe).
    pub observations: Vec<Observation>,
    /// The measured lifetime function of each class, by resident set size
    /// (time-sharing systems with replacement by the clock; empty
    /// otherwise).
    pub lifetime: Vec<LifetimePoint>,
    /// How often the processes of each class held each number of pages,
    /// resident and as a working-set estimate, over the load samples
    /// (time-sharing systems under paging; empty otherwise).
    pub set_sizes: Vec<SetSizePoint>,
    /// The responses completed by each of the run's progress reports, a
    /// thousand over the run, for choosing a warm-up from the data.
    pub trace: Vec<Progress>,
}

/// The responses completed by one moment of a run, counted from its
/// start or from the end of its warm-up (the classes of terminal commands,
/// or of the network, together).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// The moment \[s\].
    pub at: f64,
    /// The completions by then.
    pub completions: u64,
    /// The sum of their response times \[s\].
    pub response_sum: f64,
}

/// A model [`drive`] can run.
pub(crate) trait Runnable: Model {
    /// Schedules what starts a run, asking `setup` whether to go on as it
    /// goes; false if it was told to stop before it was done.
    fn start(&mut self, ctx: &mut Context<Self::Event>, setup: &mut Setup<'_>) -> bool;

    /// What the run measured up to `now`, after `events` events.
    fn finish(&mut self, now: SimTime, events: u64, replication: u64) -> Run;

    /// The completions so far, and the sum of their responses \[s\].
    fn responses_so_far(&self) -> (u64, f64);
}

/// The caller of a run's start, asked every [`CHECK_EVERY`] steps whether
/// to go on: setting up ten million terminals takes over a second, and a
/// signal must be heard within one.
pub(crate) struct Setup<'a> {
    steps: u64,
    keep_going: &'a mut dyn FnMut() -> bool,
}

impl<'a> Setup<'a> {
    /// A start that asks `keep_going`.
    pub(crate) fn new(keep_going: &'a mut dyn FnMut() -> bool) -> Self {
        Setup {
            steps: 0,
            keep_going,
        }
    }

    /// Counts one step of the start (a terminal, a process); false once
    /// the caller has said stop.
    pub(crate) fn go_on(&mut self) -> bool {
        self.steps += 1;
        !self.steps.is_multiple_of(CHECK_EVERY) || (self.keep_going)()
    }
}

/// How many times a run reports progress.
const PROGRESS_STEPS: u64 = 1000;

/// Runs `model`, built on `streams`, to the end `settings` give, calling
/// `progress` with the simulated time reached a thousand times over the
/// run and every [`tpsim_core::sim::CHECK_EVERY`] events between (so that
/// a signal is heard within a fraction of a second of wall time, however
/// slowly the clock moves); `progress` returns whether to go on. The results do not depend on
/// `progress`: the run is only paused between reports. A run stopped by
/// `progress` reports what it measured up to then, with
/// [`StoppedBy::Interrupted`].
pub(crate) fn drive<M: Runnable>(
    model: M,
    streams: &Streams,
    settings: &RunSettings,
    mut progress: impl FnMut(SimTime) -> bool,
) -> Run {
    let mut sim = Simulation::new(model);
    let (model, ctx) = sim.parts_mut();
    let started = model.start(ctx, &mut Setup::new(&mut || progress(SimTime::ZERO)));
    let mut trace = Vec::with_capacity(PROGRESS_STEPS as usize);
    let reason = if !started {
        StopReason::Interrupted
    } else {
        sim.run_in_slices(
            settings.end_time,
            settings.max_events,
            PROGRESS_STEPS,
            |model, now, slice_ended| {
                if slice_ended {
                    let (completions, response_sum) = model.responses_so_far();
                    trace.push(Progress {
                        at: now.as_secs_f64(),
                        completions,
                        response_sum,
                    });
                }
                progress(now)
            },
        )
    };
    let (now, events) = (sim.now(), sim.events());
    let mut run = sim.model_mut().finish(now, events, streams.replication());
    run.trace = trace;
    run.summary.stopped_by = stopped_by(reason);
    if reason == StopReason::Stalled {
        run.summary.stalled_on = Some(sim.stalled_on().to_string());
    }
    run
}

/// How a run that ended for `reason` is reported.
fn stopped_by(reason: StopReason) -> StoppedBy {
    match reason {
        StopReason::EndTime | StopReason::Exhausted | StopReason::ModelStopped => {
            StoppedBy::EndTime
        }
        StopReason::EventLimit => StoppedBy::EventLimit,
        StopReason::Stalled => StoppedBy::Stalled,
        StopReason::Interrupted => StoppedBy::Interrupted,
    }
}

/// An index (of a class, station, job, processor, device or process) as a
/// model's event carries it: `u32`, so that events stay small, and the run
/// loop, which moves every event from the calendar to its handler, fast.
pub(crate) fn event_index(i: usize) -> u32 {
    u32::try_from(i).expect("fewer than 2^32 of anything a model's events name")
}
