//! The queueing-network simulator.
//!
//! [`NetworkModel`] is a [`Model`] over a validated [`Network`]. Jobs live in
//! a table of reused slots; each station keeps its waiting line and busy servers; processor
//! sharing is simulated exactly with a virtual clock (the attained service
//! of every job in a PS station grows at the same rate, so a job leaves when
//! the virtual clock reaches its arrival reading plus its demand).
//!
//! A job's service demand at a station is drawn when it arrives there, from
//! the station's own random stream; routing, arrivals, think times and
//! starts each have their own streams too, named after their owner.

use crate::measure::{Responses, StationMeter};
use crate::network::{ClassKind, Discipline, Network, StationSpec, Target};
use crate::run::{Run, Runnable, Setup, drive, event_index};
use crate::summary::{self, Summary};
use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, VecDeque};
use std::ops::{Index, IndexMut};
use tpsim_core::{Context, EventKey, LONGEST_SAMPLE, Model, SimTime, Stream, Streams};

/// The events of a network. Indices are `u32`, so that an event takes 12
/// bytes: the run loop moves every event out of the calendar and into the
/// handler, and a small one moves faster (the M/M/1 benchmark ran 7%
/// faster than with `usize` indices).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The next job of an open class arrives.
    Arrival {
        /// The class.
        class: u32,
    },
    /// A terminal's think time ends and it submits a job.
    ThinkEnd {
        /// The job (the terminal's command).
        job: u32,
    },
    /// A service (FCFS, delay) or a slice of service (round robin) ends.
    ServiceEnd {
        /// The station.
        station: u32,
        /// The job served.
        job: u32,
    },
    /// The processor-sharing station's next departure.
    PsDeparture {
        /// The station.
        station: u32,
    },
    /// The warm-up ends: statistics are reset.
    WarmupEnd,
}

#[derive(Clone, Copy, Debug)]
struct Job {
    class: usize,
    /// When the job entered the network or left its terminal.
    cycle_start: SimTime,
    /// When it arrived at its current station.
    station_arrival: SimTime,
    /// Service still owed at the current station.
    remaining: SimTime,
    /// The length of the round-robin slice it is receiving.
    slice: SimTime,
    /// In line at its station and not yet served at this visit.
    awaiting_service: bool,
}

/// The jobs in the network, each in a slot whose index stands for it in
/// events and waiting lines; the slot last freed is the first reused, as
/// in a slab. Unlike a slab's, a slot does not record whether it holds a
/// job, so that reading a job costs the bounds check alone: a job's index
/// is held by one event or one waiting line while the job lives, and by
/// nothing after. Debug builds keep the record, and check every read.
#[derive(Debug, Default)]
struct JobTable {
    slots: Vec<Job>,
    free: Vec<usize>,
    /// Whether each slot holds a job (debug builds).
    #[cfg(debug_assertions)]
    live: Vec<bool>,
}

impl JobTable {
    /// Puts `job` in a free slot, and returns the slot.
    #[inline]
    fn insert(&mut self, job: Job) -> usize {
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot] = job;
                slot
            }
            None => {
                self.slots.push(job);
                self.slots.len() - 1
            }
        };
        self.note_live(slot, true);
        slot
    }

    /// Frees `slot`, and returns the job it held.
    #[inline]
    fn remove(&mut self, slot: usize) -> Job {
        let job = self[slot];
        self.note_live(slot, false);
        self.free.push(slot);
        job
    }

    /// Records, in debug builds, whether `slot` holds a job.
    #[inline]
    fn note_live(&mut self, slot: usize, live: bool) {
        #[cfg(debug_assertions)]
        {
            self.live.resize(self.slots.len(), false);
            self.live[slot] = live;
        }
        let _ = (slot, live);
    }

    /// Checks, in debug builds, that `slot` holds a job.
    #[inline]
    fn check_live(&self, slot: usize) {
        #[cfg(debug_assertions)]
        assert!(
            self.live.get(slot) == Some(&true),
            "job {slot} read after it left"
        );
        let _ = slot;
    }
}

impl Index<usize> for JobTable {
    type Output = Job;

    #[inline]
    fn index(&self, slot: usize) -> &Job {
        self.check_live(slot);
        &self.slots[slot]
    }
}

impl IndexMut<usize> for JobTable {
    #[inline]
    fn index_mut(&mut self, slot: usize) -> &mut Job {
        self.check_live(slot);
        &mut self.slots[slot]
    }
}

/// A job in a processor-sharing station, ordered by virtual finish time.
#[derive(Debug)]
struct PsEntry {
    finish: f64,
    seq: u64,
    job: usize,
}

impl PartialEq for PsEntry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for PsEntry {}
impl PartialOrd for PsEntry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for PsEntry {
    fn cmp(&self, other: &Self) -> Ordering {
        self.finish
            .total_cmp(&other.finish)
            .then(self.seq.cmp(&other.seq))
    }
}

#[derive(Debug, Default)]
struct PsState {
    /// Attained service of every job present since the station began \[s\].
    virtual_time: f64,
    updated: SimTime,
    jobs: BinaryHeap<Reverse<PsEntry>>,
    next_seq: u64,
    departure: Option<EventKey>,
}

#[derive(Debug)]
struct StationState {
    waiting: VecDeque<usize>,
    busy: u32,
    ps: PsState,
    service_rng: Stream,
    routing_rng: Stream,
    meter: StationMeter,
}

#[derive(Debug)]
struct ClassState {
    arrival_rng: Stream,
    start_rng: Stream,
    responses: Responses,
}

/// A queueing network in simulation.
#[derive(Debug)]
pub struct NetworkModel<'a> {
    net: &'a Network,
    jobs: JobTable,
    stations: Vec<StationState>,
    classes: Vec<ClassState>,
    measured_from: SimTime,
    /// The master seed of the streams it runs with.
    seed: u64,
}

impl<'a> NetworkModel<'a> {
    /// The model of `net` with the streams of one replication.
    pub fn new(net: &'a Network, streams: &Streams) -> NetworkModel<'a> {
        let stations = net
            .stations
            .iter()
            .map(|s| StationState {
                waiting: VecDeque::new(),
                busy: 0,
                ps: PsState::default(),
                service_rng: streams.stream(&format!("service/{}", s.name)),
                routing_rng: streams.stream(&format!("routing/{}", s.name)),
                meter: StationMeter::new(),
            })
            .collect();
        let classes = net
            .classes
            .iter()
            .map(|c| ClassState {
                arrival_rng: streams.stream(&format!("arrivals/{}", c.name)),
                start_rng: streams.stream(&format!("start/{}", c.name)),
                responses: Responses::new(),
            })
            .collect();
        NetworkModel {
            net,
            jobs: JobTable::default(),
            stations,
            classes,
            measured_from: SimTime::ZERO,
            seed: streams.master_seed(),
        }
    }

    /// Schedules what starts a run: each open class's first arrival, each
    /// terminal's first think time, and the end of the warm-up.
    pub fn start(&mut self, ctx: &mut Context<Event>) {
        let started = self.start_heeding(ctx, &mut Setup::new(&mut || true));
        debug_assert!(started, "a start that is never told to stop completes");
    }

    /// [`start`](Self::start), asking `setup` whether to go on every so
    /// many terminals; false if told to stop before it was done.
    fn start_heeding(&mut self, ctx: &mut Context<Event>, setup: &mut Setup<'_>) -> bool {
        for (c, class) in self.net.classes.iter().enumerate() {
            match &class.kind {
                ClassKind::Open { interarrival } => {
                    let gap = interarrival.sample_time(&mut self.classes[c].arrival_rng);
                    let _ = ctx.schedule_in(
                        gap,
                        Event::Arrival {
                            class: event_index(c),
                        },
                    );
                }
                ClassKind::Closed { terminals, .. } => {
                    for _ in 0..*terminals {
                        if !setup.go_on() {
                            return false;
                        }
                        let job = self.new_job(c, SimTime::ZERO);
                        self.think(job, c, ctx);
                    }
                }
            }
        }
        let warmup = self.net.settings.warmup;
        if warmup > SimTime::ZERO {
            let _ = ctx.schedule_at(warmup, Event::WarmupEnd);
        }
        true
    }

    fn new_job(&mut self, class: usize, now: SimTime) -> usize {
        self.jobs.insert(Job {
            class,
            cycle_start: now,
            station_arrival: now,
            remaining: SimTime::ZERO,
            slice: SimTime::ZERO,
            awaiting_service: false,
        })
    }

    /// The terminal of `job`, of closed class `class`, thinks.
    fn think(&mut self, job: usize, class: usize, ctx: &mut Context<Event>) {
        let ClassKind::Closed { think, .. } = &self.net.classes[class].kind else {
            unreachable!("only closed classes think");
        };
        // Think times come from the class's arrival stream: they play the
        // role that interarrival times play for an open class.
        let z = think.sample_time(&mut self.classes[class].arrival_rng);
        let _ = ctx.schedule_in(
            z,
            Event::ThinkEnd {
                job: event_index(job),
            },
        );
    }

    /// Sends `job`, of class `class`, to `target`. The class is passed
    /// along with the job, here and below, so that the job is looked up
    /// once where it is read.
    #[inline(always)]
    fn move_to(&mut self, job: usize, class: usize, target: Target, ctx: &mut Context<Event>) {
        match target {
            Target::Station(k) => self.arrive(k, job, class, ctx),
            Target::Exit => self.leave(job, class, ctx),
        }
    }

    /// `job`, of class `class`, leaves the network: its response is
    /// recorded; an open class's job is done, a closed class's terminal
    /// thinks.
    #[inline(always)]
    fn leave(&mut self, job: usize, class: usize, ctx: &mut Context<Event>) {
        let now = ctx.now();
        let responses = &mut self.classes[class].responses;
        match self.net.classes[class].kind {
            ClassKind::Open { .. } => {
                responses.record(now - self.jobs.remove(job).cycle_start);
            }
            ClassKind::Closed { .. } => {
                responses.record(now - self.jobs[job].cycle_start);
                self.think(job, class, ctx);
            }
        }
    }

    #[inline(always)]
    fn arrive(&mut self, k: usize, job: usize, class: usize, ctx: &mut Context<Event>) {
        let now = ctx.now();
        let spec = &self.net.stations[k];
        let st = &mut self.stations[k];
        let j = &mut self.jobs[job];
        let service = spec.service[class]
            .as_ref()
            .expect("validation: visited stations serve the class");
        j.remaining = service.sample_time(&mut st.service_rng);
        j.station_arrival = now;
        st.meter.present.add(now, 1.0);
        match spec.discipline {
            Discipline::Fcfs | Discipline::RoundRobin { .. } => {
                if st.busy < spec.servers {
                    st.busy += 1;
                    st.meter.busy.add(now, 1.0);
                    st.meter.start_service(now, now);
                    Self::dispatch(spec, k, job, j, true, ctx);
                } else {
                    j.awaiting_service = true;
                    st.waiting.push_back(job);
                }
            }
            Discipline::Delay => {
                st.meter.busy.add(now, 1.0);
                let _ = ctx.schedule_in(
                    j.remaining,
                    Event::ServiceEnd {
                        station: event_index(k),
                        job: event_index(job),
                    },
                );
            }
            Discipline::Ps => {
                self.advance_ps(k, now);
                let st = &mut self.stations[k];
                let finish = st.ps.virtual_time + self.jobs[job].remaining.as_secs_f64();
                let seq = st.ps.next_seq;
                st.ps.next_seq += 1;
                st.ps.jobs.push(Reverse(PsEntry { finish, seq, job }));
                self.reschedule_ps(k, ctx);
            }
        }
    }

    /// Puts `job`, whose state is `j`, on a server of the FCFS or
    /// round-robin station `k`, specified by `spec`.
    #[inline(always)]
    fn dispatch(
        spec: &StationSpec,
        k: usize,
        job: usize,
        j: &mut Job,
        switch: bool,
        ctx: &mut Context<Event>,
    ) {
        let delay = match spec.discipline {
            Discipline::RoundRobin {
                quantum,
                context_switch,
            } => {
                j.slice = j.remaining.min(quantum);
                j.slice
                    + if switch {
                        context_switch
                    } else {
                        SimTime::ZERO
                    }
            }
            _ => j.remaining,
        };
        let event = Event::ServiceEnd {
            station: event_index(k),
            job: event_index(job),
        };
        let _ = ctx.schedule_in(delay, event);
    }

    #[inline(always)]
    fn service_end(&mut self, k: usize, job: usize, ctx: &mut Context<Event>) {
        let now = ctx.now();
        let spec = &self.net.stations[k];
        match spec.discipline {
            Discipline::Delay => {
                self.stations[k].meter.busy.add(now, -1.0);
                self.depart(k, job, ctx);
            }
            Discipline::Fcfs => {
                self.depart(k, job, ctx);
                self.next_from_queue(k, ctx);
            }
            Discipline::RoundRobin { .. } => {
                let j = &mut self.jobs[job];
                j.remaining = j.remaining - j.slice;
                if j.remaining == SimTime::ZERO {
                    self.depart(k, job, ctx);
                    self.next_from_queue(k, ctx);
                } else if self.stations[k].waiting.is_empty() {
                    Self::dispatch(spec, k, job, j, false, ctx);
                } else {
                    self.stations[k].waiting.push_back(job);
                    self.next_from_queue(k, ctx);
                }
            }
            Discipline::Ps => unreachable!("PS stations use PsDeparture"),
        }
    }

    /// A server of station `k` has come free: serve the next waiting job.
    #[inline(always)]
    fn next_from_queue(&mut self, k: usize, ctx: &mut Context<Event>) {
        let st = &mut self.stations[k];
        match st.waiting.pop_front() {
            Some(next) => {
                let j = &mut self.jobs[next];
                if std::mem::take(&mut j.awaiting_service) {
                    st.meter.start_service(j.station_arrival, ctx.now());
                }
                Self::dispatch(&self.net.stations[k], k, next, j, true, ctx)
            }
            None => {
                st.busy -= 1;
                st.meter.busy.add(ctx.now(), -1.0);
            }
        }
    }

    fn ps_departure(&mut self, k: usize, ctx: &mut Context<Event>) {
        let now = ctx.now();
        self.advance_ps(k, now);
        let st = &mut self.stations[k];
        st.ps.departure = None;
        let Reverse(first) = st.ps.jobs.peek().expect("a PS departure needs a job");
        // Allow for the departure time's rounding to a tick.
        if first.finish - st.ps.virtual_time > 1e-6 {
            self.reschedule_ps(k, ctx);
            return;
        }
        let Reverse(entry) = st.ps.jobs.pop().expect("a PS departure needs a job");
        // The departure time was rounded to a tick; the job is done now.
        st.ps.virtual_time = st.ps.virtual_time.max(entry.finish);
        self.depart(k, entry.job, ctx);
        self.reschedule_ps(k, ctx);
    }

    /// Brings the PS station's virtual clock up to `now`.
    fn advance_ps(&mut self, k: usize, now: SimTime) {
        let servers = f64::from(self.net.stations[k].servers);
        let ps = &mut self.stations[k].ps;
        let n = ps.jobs.len() as f64;
        if n > 0.0 {
            ps.virtual_time += (now - ps.updated).as_secs_f64() * (servers / n).min(1.0);
        }
        ps.updated = now;
    }

    fn reschedule_ps(&mut self, k: usize, ctx: &mut Context<Event>) {
        let servers = self.net.stations[k].servers;
        let st = &mut self.stations[k];
        if let Some(key) = st.ps.departure.take() {
            ctx.cancel(key);
        }
        let n = st.ps.jobs.len();
        st.meter.busy.set(ctx.now(), n.min(servers as usize) as f64);
        if let Some(Reverse(first)) = st.ps.jobs.peek() {
            let rate = (f64::from(servers) / n as f64).min(1.0);
            // A departure further off than the longest sample is revisited
            // then rather than scheduled (see ps_departure).
            let wait = ((first.finish - st.ps.virtual_time) / rate).clamp(0.0, LONGEST_SAMPLE);
            st.ps.departure = Some(ctx.schedule_in(
                SimTime::from_secs_f64(wait),
                Event::PsDeparture {
                    station: event_index(k),
                },
            ));
        }
    }

    #[inline(always)]
    fn depart(&mut self, k: usize, job: usize, ctx: &mut Context<Event>) {
        let now = ctx.now();
        let j = &self.jobs[job];
        let class = j.class;
        let st = &mut self.stations[k];
        st.meter.depart(j.station_arrival, now);
        let route = self.net.stations[k].routes[class]
            .as_ref()
            .expect("validation: visited stations route the class");
        let target = route.choose(&mut st.routing_rng);
        self.move_to(job, class, target, ctx);
    }

    fn reset_statistics(&mut self, now: SimTime) {
        self.measured_from = now;
        for st in &mut self.stations {
            st.meter.reset(now);
        }
        for c in &mut self.classes {
            c.responses.reset();
        }
    }

    /// The results measured from the end of the warm-up to `now`.
    pub fn summary(&self, now: SimTime, events: u64, replication: u64) -> Summary {
        let span = (now - self.measured_from).as_secs_f64();
        let stations = self
            .net
            .stations
            .iter()
            .zip(&self.stations)
            .map(|(spec, st)| {
                let queues = matches!(
                    spec.discipline,
                    Discipline::Fcfs | Discipline::RoundRobin { .. }
                );
                st.meter.summary(
                    &spec.name,
                    spec.discipline.reported(),
                    spec.servers,
                    queues,
                    now,
                    span,
                )
            })
            .collect();
        let classes = self
            .net
            .classes
            .iter()
            .zip(&self.classes)
            .map(|(spec, c)| {
                let kind = match spec.kind {
                    ClassKind::Open { .. } => summary::ClassKind::Open,
                    ClassKind::Closed { .. } => summary::ClassKind::Closed,
                };
                c.responses.summary(&spec.name, kind, span, true)
            })
            .collect();
        Summary {
            scenario: self.net.settings.name.clone(),
            seed: self.seed,
            replication,
            sim_time: now.as_secs_f64(),
            // Statistics run from their last reset: the end of the warm-up,
            // or the start if the run ended before it.
            warmup: self.measured_from.as_secs_f64(),
            events,
            stations,
            classes,
            ..Summary::default()
        }
    }
}

impl Runnable for NetworkModel<'_> {
    fn start(&mut self, ctx: &mut Context<Event>, setup: &mut Setup<'_>) -> bool {
        self.start_heeding(ctx, setup)
    }

    fn finish(&mut self, now: SimTime, events: u64, replication: u64) -> Run {
        Run {
            summary: self.summary(now, events, replication),
            load: Vec::new(),
            observations: Vec::new(),
            lifetime: Vec::new(),
            set_sizes: Vec::new(),
            trace: Vec::new(),
        }
    }

    fn responses_so_far(&self) -> (u64, f64) {
        self.classes
            .iter()
            .map(|c| c.responses.total())
            .fold((0, 0.0), |(n, s), (m, t)| (n + m, s + t))
    }
}

impl Model for NetworkModel<'_> {
    type Event = Event;

    fn handle(&mut self, event: Event, ctx: &mut Context<Event>) {
        match event {
            Event::Arrival { class } => {
                let class = class as usize;
                let now = ctx.now();
                let spec = &self.net.classes[class];
                let ClassKind::Open { interarrival } = &spec.kind else {
                    unreachable!("only open classes have arrivals");
                };
                let state = &mut self.classes[class];
                let gap = interarrival.sample_time(&mut state.arrival_rng);
                let _ = ctx.schedule_in(
                    gap,
                    Event::Arrival {
                        class: event_index(class),
                    },
                );
                let target = spec.start.choose(&mut state.start_rng);
                let job = self.new_job(class, now);
                self.move_to(job, class, target, ctx);
            }
            Event::ThinkEnd { job } => {
                let job = job as usize;
                let j = &mut self.jobs[job];
                j.cycle_start = ctx.now();
                let class = j.class;
                let target = self.net.classes[class]
                    .start
                    .choose(&mut self.classes[class].start_rng);
                self.move_to(job, class, target, ctx);
            }
            Event::ServiceEnd { station, job } => {
                self.service_end(station as usize, job as usize, ctx)
            }
            Event::PsDeparture { station } => self.ps_departure(station as usize, ctx),
            Event::WarmupEnd => self.reset_statistics(ctx.now()),
        }
    }
}

const _: () = assert!(
    std::mem::size_of::<Event>() == 12,
    "a network event is 12 bytes"
);

/// Runs replication `replication` of `net` under the master seed `seed`.
pub fn simulate(net: &Network, seed: u64, replication: u64) -> Run {
    simulate_with_progress(net, seed, replication, |_| true)
}

/// [`simulate`], calling `progress` with the simulated time reached, a
/// thousand times over the run; `progress` returns whether to go on. The
/// results are the same as `simulate`'s: the run is only paused, never
/// changed, between reports. A run stopped by `progress` reports what it
/// measured up to then, with [`crate::summary::StoppedBy::Interrupted`].
pub fn simulate_with_progress(
    net: &Network,
    seed: u64,
    replication: u64,
    progress: impl FnMut(SimTime) -> bool,
) -> Run {
    let streams = Streams::new(seed, replication);
    drive(
        NetworkModel::new(net, &streams),
        &streams,
        &net.settings,
        progress,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(class: usize) -> Job {
        Job {
            class,
            cycle_start: SimTime::ZERO,
            station_arrival: SimTime::ZERO,
            remaining: SimTime::ZERO,
            slice: SimTime::ZERO,
            awaiting_service: false,
        }
    }

    #[test]
    fn the_job_table_reuses_the_slot_last_freed() {
        let mut jobs = JobTable::default();
        let slots: Vec<usize> = (0..4).map(|c| jobs.insert(job(c))).collect();
        assert_eq!(slots, [0, 1, 2, 3]);
        assert_eq!(jobs.remove(1).class, 1);
        assert_eq!(jobs.remove(3).class, 3);
        assert_eq!(jobs.insert(job(7)), 3);
        assert_eq!(jobs.insert(job(8)), 1);
        assert_eq!(jobs.insert(job(9)), 4);
        let classes: Vec<usize> = (0..5).map(|slot| jobs[slot].class).collect();
        assert_eq!(classes, [0, 8, 2, 7, 9]);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "job 1 read after it left")]
    fn debug_builds_refuse_a_job_read_after_it_left() {
        let mut jobs = JobTable::default();
        let _ = (jobs.insert(job(0)), jobs.insert(job(1)));
        let _ = jobs.remove(1);
        let _ = jobs[1].class;
    }
}
