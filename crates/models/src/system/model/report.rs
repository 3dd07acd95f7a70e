//! What a run reports: the load-index samples and the summary, with the
//! statistics reset at the end of the warm-up.

use super::processors::{Burst, BurstKind};
use super::{
    ClassSummary, Context, CpuSplit, Event, LoadSummary, MemorySummary, Observation, OwnerKind,
    Population, ProbeSummary, Scheduler, SimTime, Summary, System, SystemModel, Tally,
    TimeWeighted, indicators,
};
use crate::measure::{Responses, fraction};
use crate::summary::{ClassKind, StationDiscipline, StoppedBy};
use crate::system::Policy;
use serde::Serialize;

/// One sample of the load indices.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoadSample {
    /// Simulated time \[s\].
    pub time: f64,
    /// Whether it was taken before the end of the warm-up.
    pub warmup: bool,
    /// Users logged in.
    pub users: u32,
    /// User processes: the processes of commands in progress (with
    /// `users.processes = "all"`, shells and background processes too).
    pub processes: u32,
    /// Processes in memory and not asleep.
    pub multiprogramming: u32,
    /// Processes ready for a processor, running or not.
    pub runnable: u32,
    /// Fraction of user memory held by processes.
    pub memory_occupancy: f64,
}

/// The measured lifetime function: processor time and faults at one
/// resident set size, for one class (replacement by the clock).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LifetimePoint {
    /// The class.
    pub class: String,
    /// Pages the process held in memory.
    pub resident_pages: u64,
    /// Processor time its processes ran holding that many pages \[s\].
    pub cpu_seconds: f64,
    /// Faults they took holding that many pages.
    pub faults: u64,
}

/// How often, over the load samples after the warm-up, a process of a
/// class in the multiprogramming set held a number of pages: its resident
/// set (paging), and under the Multics scheduler the working-set estimate
/// it was made eligible with.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SetSizePoint {
    /// The class.
    pub class: String,
    /// The number of pages.
    pub pages: u64,
    /// Samples of a process holding that many pages resident.
    pub resident_samples: u64,
    /// Samples of a process with that working-set estimate (Multics).
    pub working_set_samples: u64,
}

#[derive(Debug)]
pub(super) struct ClassStats {
    pub(super) responses: Responses,
    pub(super) faults: Tally,
    pub(super) rejected: u64,
}

impl ClassStats {
    pub(super) fn new() -> ClassStats {
        ClassStats {
            responses: Responses::new(),
            faults: Tally::new(),
            rejected: 0,
        }
    }
}

/// Counters reset at the end of the warm-up.
#[derive(Clone, Debug, Default)]
pub(super) struct Counters {
    pub(super) cpu_user: f64,
    pub(super) cpu_fault: f64,
    /// Processor time in device interrupts \[s\].
    pub(super) cpu_interrupts: f64,
    /// Processor time handling segment faults \[s\].
    pub(super) cpu_segment_faults: f64,
    /// Processor time copying blocks out of the buffer cache \[s\].
    pub(super) cpu_copy: f64,
    /// Processor time clearing new images' empty pages at exec \[s\].
    pub(super) cpu_clear: f64,
    pub(super) cpu_switch: f64,
    pub(super) faults: u64,
    pub(super) reclaims: u64,
    pub(super) zero_fills: u64,
    pub(super) bulk_reads: u64,
    pub(super) disk_reads: u64,
    pub(super) page_writes: u64,
    pub(super) pages_stolen: u64,
    /// Pages read in with a faulted page (klustering).
    pub(super) klustered: u64,
    pub(super) swap_ins: u64,
    pub(super) swap_outs: u64,
    pub(super) swapped_bytes: f64,
    pub(super) logins_refused: u64,
    /// Device requests.
    pub(super) requests: u64,
    /// Processor time of the probe's benchmarks \[s\].
    pub(super) probe_cpu: f64,
    /// Device requests on behalf of the probe's benchmarks.
    pub(super) probe_requests: u64,
}

/// Adds the switch and work of `burst` that fall between `from` and `upto`
/// to the processor-time counters.
pub(super) fn add_burst(
    counters: &mut Counters,
    burst: &Burst,
    probe: bool,
    from: SimTime,
    upto: SimTime,
) {
    let clip = |a: SimTime, b: SimTime| {
        let (a, b) = (a.max(from), b.min(upto));
        if b > a { (b - a).as_secs_f64() } else { 0.0 }
    };
    let interrupts = clip(burst.start, burst.interrupt_end);
    counters.cpu_interrupts += interrupts;
    let switch = clip(burst.interrupt_end, burst.switch_end);
    counters.cpu_switch += switch;
    let work = clip(burst.switch_end, burst.end);
    match burst.kind {
        BurstKind::User(_) => counters.cpu_user += work,
        BurstKind::Fault => counters.cpu_fault += work,
        BurstKind::SegmentFault => counters.cpu_segment_faults += work,
        BurstKind::Copy => counters.cpu_copy += work,
        BurstKind::Clear => counters.cpu_clear += work,
    }
    if probe {
        counters.probe_cpu += switch + work;
    }
}

/// Faults and processor time by resident set size, for one class: the
/// measured lifetime function.
#[derive(Clone, Debug, Default)]
pub(super) struct LifetimeMeter {
    /// Per resident set size: processor time at that size \[s\] and the
    /// faults taken at it.
    pub(super) by_size: Vec<(f64, u64)>,
}

impl LifetimeMeter {
    pub(super) fn bin(&mut self, resident: u64) -> &mut (f64, u64) {
        let at = resident as usize;
        if self.by_size.len() <= at {
            self.by_size.resize(at + 1, (0.0, 0));
        }
        &mut self.by_size[at]
    }
}

/// What a run measures: counters and meters reset at the end of the
/// warm-up, and the load samples.
#[derive(Debug)]
pub(super) struct Statistics {
    /// When the statistics were last reset.
    pub(super) measured_from: SimTime,
    pub(super) counters: Counters,
    /// Per class, its commands waited for.
    pub(super) classes: Vec<ClassStats>,
    /// Per class, its commands run in the background.
    pub(super) detached: Vec<ClassStats>,
    /// Per background entry, its cycles.
    pub(super) background: Vec<ClassStats>,
    /// Fault to ready again \[s\].
    pub(super) fault_time: Tally,
    /// Users logged in.
    pub(super) users: TimeWeighted,
    /// The "user processes" index.
    pub(super) processes: TimeWeighted,
    /// Processes in memory and not asleep.
    pub(super) mpl: TimeWeighted,
    /// Processes waiting for memory or eligibility.
    pub(super) waiting: TimeWeighted,
    /// Idle processors while a process is held back by a limit on
    /// eligibility or memory (Multics's multiprogramming idle), and while
    /// none is (light load: Multics's NMP and zero idle).
    pub(super) idle_held_back: TimeWeighted,
    pub(super) idle_other: TimeWeighted,
    /// The fraction of user memory held.
    pub(super) occupancy: TimeWeighted,
    /// The free memory (frames or bytes) `occupancy` was last brought up
    /// to date for.
    pub(super) occupancy_free: u64,
    /// The load indices, every `load_interval`.
    pub(super) load: Vec<LoadSample>,
    /// The probe's observations, warm-up included (each says whether it
    /// started in it).
    pub(super) observations: Vec<Observation>,
    /// The fraction of user memory the probe's benchmark held, summed over
    /// the load samples after the warm-up, and their number.
    pub(super) probe_memory: (f64, u64),
    /// Per class, processor time and faults by resident set size
    /// (replacement by the clock).
    pub(super) lifetimes: Vec<LifetimeMeter>,
    /// Per class, samples by number of pages: resident, and working-set
    /// estimate.
    pub(super) set_sizes: Vec<Vec<(u64, u64)>>,
}

impl Statistics {
    /// Brings the occupancy meter up to date at `now`, with `free` units
    /// of memory free and `occupancy` what memory holds. Occupancy changes
    /// only with free memory, so the divisions are done only then, not
    /// after every event.
    #[inline]
    pub(super) fn meter_occupancy(&mut self, now: SimTime, free: u64, occupancy: impl Fn() -> f64) {
        if free != self.occupancy_free {
            self.occupancy_free = free;
            let occupancy = occupancy();
            if occupancy != self.occupancy.value() {
                self.occupancy.set(now, occupancy);
            }
        }
    }

    /// Resets what is measured at `now`, the end of the warm-up.
    pub(super) fn reset(&mut self, now: SimTime) {
        self.measured_from = now;
        self.counters = Counters::default();
        for c in self
            .classes
            .iter_mut()
            .chain(&mut self.detached)
            .chain(&mut self.background)
        {
            c.responses.reset();
            c.faults = Tally::new();
        }
        // A background process too big for memory is refused when the run
        // starts, before any warm-up ends: that count stands.
        for c in self.classes.iter_mut().chain(&mut self.detached) {
            c.rejected = 0;
        }
        self.fault_time = Tally::new();
        self.probe_memory = (0.0, 0);
        for l in &mut self.lifetimes {
            *l = LifetimeMeter::default();
        }
        for s in &mut self.set_sizes {
            s.clear();
        }
        for m in [
            &mut self.users,
            &mut self.processes,
            &mut self.mpl,
            &mut self.waiting,
            &mut self.occupancy,
            &mut self.idle_held_back,
            &mut self.idle_other,
        ] {
            m.reset(now);
        }
    }

    /// Files the resident set (and under Multics the working-set estimate)
    /// of each process in the multiprogramming set, given as its class,
    /// resident pages and estimate, under its class.
    pub(super) fn sample_set_sizes(
        &mut self,
        multics: bool,
        sets: impl Iterator<Item = (usize, u64, f64)>,
    ) {
        for (class, resident, estimate) in sets {
            let bins = &mut self.set_sizes[class];
            let mut bump = |pages: u64, which: usize| {
                let at = pages as usize;
                if bins.len() <= at {
                    bins.resize(at + 1, (0, 0));
                }
                if which == 0 {
                    bins[at].0 += 1;
                } else {
                    bins[at].1 += 1;
                }
            };
            bump(resident, 0);
            if multics {
                bump(estimate.round() as u64, 1);
            }
        }
    }

    /// The classes users of `sys` type, those they run in the background
    /// (`NAME&`) and the background processes', over `span` seconds
    /// measured.
    fn class_summaries(&self, sys: &System, span: f64) -> Vec<ClassSummary> {
        // Logins that follow the hour of the day make the load change over
        // the run: there is no steady state for batch means to estimate.
        let stationary = matches!(sys.users.population, Population::Fixed(_));
        let class_summary = |name: &str, kind: ClassKind, stats: &ClassStats| ClassSummary {
            rejected: Some(stats.rejected),
            // None when no command completed, as for the response time.
            faults_per_command: (stats.faults.count() > 0).then(|| stats.faults.mean()),
            ..stats.responses.summary(name, kind, span, stationary)
        };
        let mut classes: Vec<ClassSummary> = sys
            .classes
            .iter()
            .zip(&self.classes)
            .enumerate()
            // The classes users type; not the shell's class or a class only
            // background processes run, unless users type it too.
            .filter(|&(c, _)| sys.users.mix.iter().any(|m| m.class == c))
            .map(|(_, (spec, stats))| class_summary(&spec.name, ClassKind::Command, stats))
            .collect();
        // Commands run in the background are listed as `NAME&`, for the
        // classes the mix runs that way.
        classes.extend(
            sys.classes
                .iter()
                .zip(&self.detached)
                .enumerate()
                .filter(|&(c, _)| {
                    sys.users
                        .mix
                        .iter()
                        .any(|m| m.class == c && m.detached > 0.0)
                })
                .map(|(_, (spec, stats))| {
                    class_summary(&format!("{}&", spec.name), ClassKind::Background, stats)
                }),
        );
        classes.extend(
            sys.background
                .iter()
                .zip(&self.background)
                .map(|(spec, stats)| class_summary(&spec.name, ClassKind::Background, stats)),
        );
        classes
    }

    /// Where `sys`'s processors' time went up to `now`, of `capacity`
    /// processor-seconds, `busy` the mean of the processors busy.
    fn cpu_split(
        &self,
        sys: &System,
        counters: &Counters,
        (capacity, busy): (f64, f64),
        now: SimTime,
    ) -> CpuSplit {
        let cpus = f64::from(sys.cpu.count);
        let user = share(counters.cpu_user / capacity);
        let other_idle = share(self.idle_other.mean(now) / cpus);
        let useful_of_non_idle = if other_idle < 1.0 {
            share(user / (1.0 - other_idle))
        } else {
            0.0
        };
        CpuSplit {
            cpus: sys.cpu.count,
            user,
            fault_handling: share(counters.cpu_fault / capacity),
            context_switch: share(counters.cpu_switch / capacity),
            interrupts: share(counters.cpu_interrupts / capacity),
            segment_faults: share(counters.cpu_segment_faults / capacity),
            buffer_copies: sys
                .files
                .as_ref()
                .map(|_| share(counters.cpu_copy / capacity)),
            page_clears:
                matches!(sys.memory.policy, Policy::Swapping { clear, .. } if clear > SimTime::ZERO)
                    .then(|| share(counters.cpu_clear / capacity)),
            // From the processors' own busy meter, not as what the other
            // fractions leave: the four then add up to 1 only if every
            // busy moment went to exactly one kind of work.
            idle: share(1.0 - busy / cpus),
            multiprogramming_idle: share(self.idle_held_back.mean(now) / cpus),
            other_idle,
            useful_of_non_idle,
            mips: sys.cpu.mips,
            delivered_mips: sys.cpu.mips.map(|mips| mips * useful_of_non_idle * cpus),
        }
    }

    /// The probe's share of the processors (of `capacity`
    /// processor-seconds), of the device requests and of memory.
    fn probe_summary(&self, counters: &Counters, capacity: f64) -> ProbeSummary {
        let (memory, samples) = self.probe_memory;
        ProbeSummary {
            observations: self.observations.iter().filter(|o| !o.warmup).count() as u64,
            cpu_share: counters.probe_cpu / capacity,
            io_share: fraction(counters.probe_requests, counters.requests),
            memory_share: if samples > 0 {
                memory / samples as f64
            } else {
                0.0
            },
        }
    }

    /// A command of `class` (run in the background if `detached`) is
    /// refused: its image can never be in memory.
    pub(super) fn reject(&mut self, class: usize, detached: bool) {
        let stats = if detached {
            &mut self.detached[class]
        } else {
            &mut self.classes[class]
        };
        stats.rejected += 1;
    }

    /// Files the idle processors (`idle` of them) under multiprogramming
    /// idle if a process waits for eligibility or memory, else under other
    /// idle; called whenever either changes. Multics's
    /// `total_time_meters` draws the line there: idle while processes
    /// contend for eligibility and not all are eligible is MP idle, the
    /// cost of a limit; idle with every contender admitted is light load
    /// \[MX\].
    pub(super) fn meter_idle(&mut self, now: SimTime, idle: f64) {
        let held_back = self.waiting.value() > 0.0;
        self.idle_held_back
            .set(now, if held_back { idle } else { 0.0 });
        self.idle_other.set(now, if held_back { 0.0 } else { idle });
    }

    /// The measured lifetime function of each class: every resident set
    /// size at which its processes ran.
    pub(super) fn lifetime_points(&self, sys: &System) -> Vec<LifetimePoint> {
        let mut points = Vec::new();
        for (class, meter) in sys.classes.iter().zip(&self.lifetimes) {
            for (resident, &(cpu, faults)) in meter.by_size.iter().enumerate() {
                if cpu > 0.0 || faults > 0 {
                    points.push(LifetimePoint {
                        class: class.name.clone(),
                        resident_pages: resident as u64,
                        cpu_seconds: cpu,
                        faults,
                    });
                }
            }
        }
        points
    }

    /// The set-size distributions of the classes: every page count at
    /// which a process was sampled.
    pub(super) fn set_size_points(&self, sys: &System) -> Vec<SetSizePoint> {
        let mut points = Vec::new();
        for (class, bins) in sys.classes.iter().zip(&self.set_sizes) {
            for (pages, &(resident, working_set)) in bins.iter().enumerate() {
                if resident > 0 || working_set > 0 {
                    points.push(SetSizePoint {
                        class: class.name.clone(),
                        pages: pages as u64,
                        resident_samples: resident,
                        working_set_samples: working_set,
                    });
                }
            }
        }
        points
    }

    pub(super) fn new(sys: &System) -> Statistics {
        let zero = || TimeWeighted::new(SimTime::ZERO, 0.0);
        Statistics {
            measured_from: SimTime::ZERO,
            counters: Counters::default(),
            classes: sys.classes.iter().map(|_| ClassStats::new()).collect(),
            detached: sys.classes.iter().map(|_| ClassStats::new()).collect(),
            background: sys.background.iter().map(|_| ClassStats::new()).collect(),
            fault_time: Tally::new(),
            users: zero(),
            processes: zero(),
            mpl: zero(),
            waiting: zero(),
            idle_held_back: zero(),
            idle_other: TimeWeighted::new(SimTime::ZERO, f64::from(sys.cpu.count)),
            occupancy: zero(),
            occupancy_free: u64::MAX,
            load: Vec::new(),
            observations: Vec::new(),
            probe_memory: (0.0, 0),
            lifetimes: vec![LifetimeMeter::default(); sys.classes.len()],
            set_sizes: vec![Vec::new(); sys.classes.len()],
        }
    }
}

impl SystemModel<'_> {
    /// Whether `pid` is one of the probe's processes.
    pub(super) fn is_probe(&self, pid: usize) -> bool {
        matches!(self.owners[self.procs[pid].owner].kind, OwnerKind::Probe)
    }

    pub(super) fn sample_load(&mut self, ctx: &mut Context<Event>) {
        let runnable = self.cpus.runnable();
        if self.memory.samples_set_sizes(self.sys, ctx.now()) {
            // A look at every process, once per load sample.
            let sets = self.procs.iter().filter_map(|(pid, p)| {
                let memory = &self.memory.of[pid];
                indicators(self.procs.state(pid), p, memory.waiting_frame)
                    .0
                    .then(|| {
                        (
                            p.class,
                            memory.held.resident,
                            self.eligibility.estimate(pid),
                        )
                    })
            });
            let multics = matches!(self.sys.cpu.scheduler, Scheduler::Multics(_));
            self.stats.sample_set_sizes(multics, sets);
        }
        if let Some(probe) = &self.probe
            && ctx.now() >= self.sys.settings.warmup
        {
            // The private memory of the probe's benchmark now: its resident
            // pages, or its image in memory less the shared text.
            let held = probe.running().map_or(0, |pid| {
                self.memory.private_memory(self.sys, pid, &self.procs[pid])
            });
            self.stats.probe_memory.0 += held as f64 / self.sys.memory.user_bytes() as f64;
            self.stats.probe_memory.1 += 1;
        }
        self.stats.load.push(LoadSample {
            time: ctx.now().as_secs_f64(),
            warmup: ctx.now() < self.sys.settings.warmup,
            users: self.users.logged_in,
            processes: self.user_processes,
            multiprogramming: self.stats.mpl.value() as u32,
            runnable,
            memory_occupancy: self.memory.occupancy(self.sys),
        });
        let _ = ctx.schedule_in(self.sys.load_interval, Event::LoadSample);
    }

    /// The results measured from the end of the warm-up to `now`.
    pub fn summary(&self, now: SimTime, events: u64, replication: u64) -> Summary {
        let sys = self.sys;
        let span = (now - self.stats.measured_from).as_secs_f64();
        let cpus = f64::from(sys.cpu.count);
        let mut counters = self.stats.counters.clone();
        // Bursts still under way count up to now.
        for burst in self.cpus.running.iter().flatten() {
            let probe = self.is_probe(burst.pid);
            add_burst(&mut counters, burst, probe, self.stats.measured_from, now);
        }
        let capacity = if span > 0.0 { span * cpus } else { 1.0 };
        let mut stations = vec![self.cpus.meter.summary(
            "cpu",
            cpu_discipline(sys.cpu.scheduler),
            sys.cpu.count,
            true,
            now,
            span,
        )];
        stations.extend(sys.devices.iter().zip(&self.devices).map(|(spec, d)| {
            d.meter
                .summary(&spec.name, discipline(spec), 1, true, now, span)
        }));
        let (paging, swapping) = self.memory.memory_summaries(&self.stats, &counters, span);
        let mut occupancy = self.stats.occupancy.clone();
        occupancy.set(now, self.memory.occupancy(self.sys));
        Summary {
            scenario: sys.settings.name.clone(),
            seed: self.streams.master_seed(),
            replication,
            sim_time: now.as_secs_f64(),
            // Statistics run from their last reset: the end of the warm-up,
            // or the start if the run ended before it.
            warmup: self.stats.measured_from.as_secs_f64(),
            events,
            wall_seconds: 0.0,
            stopped_by: StoppedBy::EndTime,
            stalled_on: None,
            stations,
            classes: self.stats.class_summaries(sys, span),
            cpu: Some(self.stats.cpu_split(
                sys,
                &counters,
                (capacity, self.cpus.meter.busy.mean(now)),
                now,
            )),
            paging,
            swapping,
            memory: Some(MemorySummary {
                user_bytes: sys.memory.user_bytes(),
                mean_occupancy: occupancy.mean(now),
                mean_multiprogramming: self.stats.mpl.mean(now),
                mean_waiting_for_memory: self.stats.waiting.mean(now),
            }),
            load: Some(LoadSummary {
                mean_users: self.stats.users.mean(now),
                mean_processes: self.stats.processes.mean(now),
                logins_refused: counters.logins_refused,
            }),
            probe: self
                .probe
                .as_ref()
                .map(|_| self.stats.probe_summary(&counters, capacity)),
            files: self.files.summary(
                sys,
                self.memory
                    .exec_reads_image()
                    .then(|| self.memory.programs_device(sys))
                    .flatten(),
            ),
        }
    }
}

/// A fraction of processor time made of sums of meters: rounding in those
/// sums can leave it a few ulps outside [0, 1] (an idle fraction of
/// -1.8e-10 when the processors never rest); more than that is a fault of
/// the meters.
fn share(x: f64) -> f64 {
    debug_assert!(
        (-1e-9..=1.0 + 1e-9).contains(&x),
        "a fraction of processor time of {x}"
    );
    x.clamp(0.0, 1.0)
}

/// The order a device serves its queue in.
fn discipline(device: &super::super::Device) -> StationDiscipline {
    match device.arm.as_ref().map(|a| a.order) {
        Some(super::super::Order::Disksort) => StationDiscipline::Disksort,
        _ => StationDiscipline::Fcfs,
    }
}

/// How the processors choose what to run.
fn cpu_discipline(scheduler: Scheduler) -> StationDiscipline {
    match scheduler {
        Scheduler::RoundRobin => StationDiscipline::Rr,
        Scheduler::Unix(_) => StationDiscipline::Unix,
        Scheduler::Multics(_) => StationDiscipline::Multics,
        Scheduler::Fair(_) => StationDiscipline::Fair,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::model::frames::tests::{TEN_PAGE_SETS, with_process_at};
    use crate::system::model::{Change, State};

    #[test]
    fn idle_turns_to_multiprogramming_idle_when_a_process_is_held_back_during_it() {
        // Nobody comes to the terminal; at 2 s a process starts waiting for
        // eligibility while the processor stays idle: from then on the idle
        // time is multiprogramming idle.
        let text = TEN_PAGE_SETS.replace(
            "think = { exp = { mean = \"1s\" } }",
            "think = { det = { value = \"1000s\" } }",
        );
        let two = SimTime::from_secs(2);
        with_process_at(&text, two, |model, _, pid| {
            model.recount(pid, two, Change::State(State::WaitEligible));
            let five = SimTime::from_secs(5);
            assert!((model.stats.idle_held_back.mean(five) - 0.6).abs() < 1e-12);
            assert!((model.stats.idle_other.mean(five) - 0.4).abs() < 1e-12);
        });
    }
}
