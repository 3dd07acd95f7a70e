//! The time-sharing system in simulation.
//!
//! Processes live in a slab. A process has a logical state (what it waits
//! for) and, under swapping, a residence (whether its image is in memory);
//! under paging it holds `resident` pages instead. A burst on a processor
//! is decided when it is dispatched - it ends at the first of the end of
//! its time slice, the next I/O request, the next page fault and the end of
//! the demand - so each dispatch is one event, unless a process of better
//! rank becomes ready and preempts it (UNIX and Multics schedulers).
//!
//! This module holds the processes and the devices and routes events to
//! the parts; `processors` the processors and their bursts, `users` the
//! terminals and background work, `scripts` shell scripts, `probe` the
//! terminal probe (these three push `work`'s steps for the core to do),
//! `eligibility` who may compete for
//! memory and processors, `scheduler` the ready queue, `memory` the
//! calls the rest makes into memory management (with the managers' own
//! calls, the only code that reads which policy runs once the model is
//! built), `paging`, `frames` and
//! `swapping` the memory managers, `files` programs' files and exec,
//! `devices` the disks, and `report` the statistics and the summary. A
//! process's state is split the same way: `Process` holds what every
//! process has, and the scheduler, eligibility, memory and the file
//! system each keep their own in a table indexed by the process's slot
//! (`per_process`).
//!
//! Draws that describe the workload (think times, the command mix, demands,
//! the spacing of I/O requests) come from the streams of the user or
//! background process that owns the work, so two configurations run with
//! the same seed see the same workload; page faults, placement, dirty pages
//! and device timings have streams of their own.

use super::{
    CommandClass, Locality, Mix, Phases, Placement, Population, ProcessCount, Program, Region,
    Scheduler, System,
};
use crate::measure::StationMeter;
use crate::run::{Run, Runnable, Setup, drive, event_index};
use crate::summary::{ClassSummary, CpuSplit, LoadSummary, MemorySummary, ProbeSummary, Summary};
use rand::RngExt;
use serde::Serialize;
use slab::Slab;
use std::collections::VecDeque;
use tpsim_core::{
    Context, Dist, EventKey, LONGEST_SAMPLE, Model, SimTime, Stream, Streams, Tally, TimeWeighted,
};

mod candidates;
mod devices;
mod eligibility;
mod fair;
mod files;
mod frames;
#[cfg(debug_assertions)]
mod invariants;
mod memory;
mod ordered;
mod paged_swapper;
mod paging;
mod per_process;
mod process_table;
use process_table::ProcessTable;
mod probe;
mod processors;
mod report;
mod scheduler;
mod scripts;
mod swapping;
mod users;
mod work;

use devices::DeviceState;
use eligibility::Eligibility;
use eligibility::{eligibility_rule, levels};
use files::{FileTransfer, Files, ProcessFiles};
use memory::{Manager, MemoryEvent, MemoryState, Transfer};
use ordered::SlotHeap;
use paging::{Pages, Source};
use per_process::PerProcess;
pub use probe::Observation;
use probe::Probe;
use processors::{Burst, BurstKind, Countdowns, Outcome, Processors};
use report::Statistics;
use report::{Counters, add_burst};
pub use report::{LifetimePoint, LoadSample, SetSizePoint};
use scheduler::{Dispatcher, SliceEnd};
use scripts::Scripts;
use users::{UserEvent, Users};

/// The events of the time-sharing model, each for the part that handles
/// it (8 bytes, its indices `u32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A processor's burst ends.
    BurstEnd {
        /// The processor.
        cpu: u32,
    },
    /// A device finishes its request.
    DeviceDone {
        /// The device.
        device: u32,
    },
    /// A background process wakes from its sleep.
    Wake {
        /// The process.
        pid: u32,
    },
    /// The users' events: logins, think times, logouts.
    Users(UserEvent),
    /// Memory management's events.
    Memory(MemoryEvent),
    /// The terminal probe starts a cycle of its benchmarks.
    ProbeCycle,
    /// `update` sends the buffer cache's delayed writes.
    Update,
    /// The load indices are sampled.
    LoadSample,
    /// The warm-up ends.
    WarmupEnd,
}

const _: () = assert!(std::mem::size_of::<Event>() == 8, "an event takes 8 bytes");

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Waiting for eligibility.
    WaitEligible,
    /// Ready for a processor (or for the swapper, if its image is out).
    Runnable,
    /// On a processor.
    Running,
    /// Waiting for its I/O request.
    Io,
    /// Waiting for a page (or a frame to read it into).
    Fault,
    /// A background process between cycles.
    Sleeping,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Residence {
    In,
    Out,
    MovingIn,
    MovingOut,
}

#[derive(Debug)]
struct Rngs {
    think: Stream,
    work: Stream,
    faults: Stream,
}

impl Rngs {
    fn new(streams: &Streams, prefix: &str) -> Rngs {
        Rngs {
            think: streams.stream(&format!("{prefix}/think")),
            work: streams.stream(&format!("{prefix}/work")),
            faults: streams.stream(&format!("{prefix}/faults")),
        }
    }
}

#[derive(Debug)]
enum OwnerKind {
    User {
        /// The user's number, which names its streams.
        index: u64,
        /// Commands it has run in the background so far.
        detached: u64,
        /// The pending end of its think time, while it thinks.
        thinking: Option<EventKey>,
        /// Its session is over: it leaves when its command completes.
        leaving: bool,
        /// Its shell process, if the users have shells.
        shell: Option<usize>,
        /// A command typed, for the shell to fork and exec.
        typed: Option<users::Typed>,
    },
    /// A command a user runs in the background (`cmd &`); it has streams
    /// of its own, so that it may outlive the user's session.
    Detached,
    /// A user's shell.
    Shell {
        /// The user (an owner slot).
        user: usize,
        /// The user has logged out: the shell exits as soon as it can.
        retiring: bool,
    },
    Background {
        entry: usize,
    },
    /// The terminal probe (its state is the probe part's).
    Probe,
    /// A worker of the probe's load ramp, with streams of its own.
    RampWorker,
}

#[derive(Debug)]
struct Owner {
    kind: OwnerKind,
    rngs: Rngs,
    /// The working-set estimate its next process starts with \[pages\]
    /// (Multics: a user's process outlives its commands, and so does the
    /// estimate).
    /// `None` before its first process gave up eligibility.
    working_set: Option<f64>,
}

impl Owner {
    fn new(kind: OwnerKind, streams: &Streams, prefix: &str) -> Owner {
        Owner {
            kind,
            rngs: Rngs::new(streams, prefix),
            working_set: None,
        }
    }
}

#[derive(Debug)]
struct Process {
    class: usize,
    owner: usize,
    residence: Residence,
    /// When the current command (or background cycle) began.
    started: SimTime,
    /// Processor demand still owed.
    remaining: SimTime,
    /// Processor time to its next I/O request, segment fault and block of
    /// a data file.
    due: Countdowns,
    /// Pages in the address space.
    pages: u64,
    /// When it last left a processor (global replacement takes pages from
    /// the process that ran least recently).
    last_run: SimTime,
    /// Processor time used on its behalf in the kernel: switches to it and
    /// its fault paths.
    cpu_system: SimTime,
    /// Faults taken in the current command.
    faults: u64,
    /// Whether the "user processes" index counts it.
    counted: bool,
    /// Distinguishes processes that reuse a slab slot.
    generation: u64,
}

/// Why a device request was made, by the part that made it: its
/// completion goes back to that part.
#[derive(Clone, Copy, Debug)]
enum Purpose {
    /// A process's own I/O request.
    Io { pid: usize },
    /// Memory management's transfers: pages and images.
    Memory(Transfer),
    /// The file system's transfers: blocks, exec's reads and texts.
    Files(FileTransfer),
}

impl Purpose {
    /// The process a request is made for (none for a page written back,
    /// a block or a text written out).
    fn pid(self) -> Option<usize> {
        match self {
            Purpose::Io { pid } => Some(pid),
            Purpose::Memory(transfer) => transfer.pid(),
            Purpose::Files(transfer) => transfer.pid(),
        }
    }

    /// Where on a disk the request falls: file I/O and pages read from a
    /// program's file in the file system, the rest in the swap area.
    fn region(self, memory: &MemoryState) -> Region {
        match self {
            Purpose::Io { .. } => Region::Files,
            Purpose::Memory(transfer) => memory.transfer_region(transfer),
            Purpose::Files(transfer) => transfer.region(),
        }
    }
}

/// A time-sharing system in simulation.
#[derive(Debug)]
pub struct SystemModel<'a> {
    sys: &'a System,
    streams: Streams,
    owners: Slab<Owner>,
    procs: ProcessTable,
    next_generation: u64,
    /// The users at their terminals.
    users: Users<'a>,
    /// The terminal probe, if the scenario has one.
    probe: Option<Probe<'a>>,
    user_processes: u32,
    /// Each process's place in a script.
    scripts: Scripts,
    cpus: Processors,
    eligibility: Eligibility,
    /// Memory management's state.
    memory: MemoryState<'a>,
    /// The file system.
    files: Files,
    // Devices.
    devices: Vec<DeviceState<Purpose>>,
    stats: Statistics,
    /// What the calls into memory under way leave to do, innermost last
    /// (`with_memory`).
    effects: Vec<memory::Effect>,
    /// What the workload's parts leave the core to do (`run_steps`).
    steps: Vec<work::Step>,
    /// Events handled, which decides when debug builds recheck the
    /// invariants (`invariants::due`).
    #[cfg(debug_assertions)]
    events_handled: u64,
}

impl<'a> SystemModel<'a> {
    /// The model of `sys` with the streams of one replication.
    pub fn new(sys: &'a System, streams: &Streams) -> SystemModel<'a> {
        let manager = Manager::of(sys);
        let memory = MemoryState::new(sys, manager, streams);
        SystemModel {
            sys,
            streams: *streams,
            owners: Slab::new(),
            procs: ProcessTable::default(),
            next_generation: 0,
            users: Users::new(sys, streams, |image| memory.never_fits(sys, image)),
            probe: None,
            user_processes: 0,
            scripts: Scripts::default(),
            cpus: Processors::new(
                sys.cpu.count as usize,
                sys.classes.len(),
                Dispatcher::new(sys.cpu.scheduler, sys.cpu.quantum, sys.cpu.count),
            ),
            eligibility: Eligibility::new(eligibility_rule(sys, manager), levels(sys)),
            files: Files::new(
                sys.files.as_ref(),
                sys.devices.len(),
                // V7's text table, with a cache under swapping.
                (sys.files.is_some() && manager.moves_images()).then_some(sys.classes.len()),
                sys.files
                    .as_ref()
                    .map_or(0, |_| streams.stream("files/layout").random()),
                memory.programs_device(sys),
            ),
            memory,
            devices: sys
                .devices
                .iter()
                .map(|d| DeviceState::new(d, streams.stream(&format!("device/{}", d.name))))
                .collect(),
            stats: Statistics::new(sys),
            effects: Vec::new(),
            steps: Vec::new(),
            #[cfg(debug_assertions)]
            events_handled: 0,
        }
    }

    /// Schedules what starts a run: the users, the background processes,
    /// the samples of the load indices and the end of the warm-up; asks
    /// `setup` whether to go on at each user and process, and returns
    /// false if told to stop before it was done.
    fn start_heeding(&mut self, ctx: &mut Context<Event>, setup: &mut Setup<'_>) -> bool {
        match &self.sys.users.population {
            Population::Fixed(n) => {
                for i in 0..*n {
                    if !setup.go_on() {
                        return false;
                    }
                    self.users
                        .log_in(&mut self.owners, i as u64, None, &mut self.steps);
                    self.run_steps(ctx);
                }
            }
            Population::Sessions(_) => {
                let _ = ctx.schedule_at(
                    SimTime::ZERO,
                    Event::Users(UserEvent::Login { arrives: false }),
                );
            }
        }
        for (entry, b) in self.sys.background.iter().enumerate() {
            for i in 0..b.count {
                if !setup.go_on() {
                    return false;
                }
                let owner = self.owners.insert(Owner::new(
                    OwnerKind::Background { entry },
                    &self.streams,
                    &format!("background/{}/{i}", b.name),
                ));
                let image = self.sys.classes[b.class].size;
                if self.memory.never_fits(self.sys, image) {
                    self.stats.background[entry].rejected += 1;
                    continue;
                }
                let counted = self.sys.users.processes == ProcessCount::All;
                let pid = self.spawn(b.class, owner, counted, ctx.now());
                self.admit(pid, ctx);
            }
        }
        self.stats
            .processes
            .set(ctx.now(), f64::from(self.user_processes));
        if self.sys.probe.is_some() {
            let owner = self
                .owners
                .insert(Owner::new(OwnerKind::Probe, &self.streams, "probe"));
            let probe = Probe::new(self.sys, owner, &self.streams);
            if let Some(first) = probe.as_ref().map(|p| p.first_cycle(ctx.now())) {
                let _ = ctx.schedule_at(first, Event::ProbeCycle);
            }
            self.probe = probe;
        }
        let _ = ctx.schedule_in(self.sys.load_interval, Event::LoadSample);
        if let Some((after, event)) = self.memory.first_event() {
            let _ = ctx.schedule_in(after, Event::Memory(event));
        }
        if self.sys.files.is_some() {
            let _ = ctx.schedule_in(files::UPDATE, Event::Update);
        }
        let warmup = self.sys.settings.warmup;
        if warmup > SimTime::ZERO {
            let _ = ctx.schedule_at(warmup, Event::WarmupEnd);
        }
        true
    }

    /// A new process of `class` for `owner`, not yet admitted; `counted`
    /// says whether the "user processes" index counts it.
    fn spawn(&mut self, class: usize, owner: usize, counted: bool, now: SimTime) -> usize {
        let size = self.sys.classes[class].size;
        self.next_generation += 1;
        // Inserted in a state no count includes; `recount` moves it on.
        let pid = self.procs.insert(
            Process {
                class,
                owner,
                residence: Residence::Out,
                started: now,
                remaining: SimTime::ZERO,
                due: Countdowns::NONE,
                pages: self.sys.memory.pages_of(size),
                last_run: now,
                cpu_system: SimTime::ZERO,
                faults: 0,
                counted,
                generation: self.next_generation,
            },
            State::Sleeping,
        );
        if counted {
            self.user_processes += 1;
        }
        self.memory.enter(pid, now);
        let nice = self.sys.classes[class].nice;
        self.cpus.scheduler.enter(pid, nice, now);
        self.scripts.enter(pid);
        self.eligibility.enter(pid);
        let files = ProcessFiles::new(self.memory.exec_reads_image());
        self.files.enter(pid, files);
        self.files.attach_text(class);
        self.new_cycle(pid, now);
        self.let_in(pid, now);
        pid
    }

    /// Draws the demand of a new command (or background cycle).
    fn new_cycle(&mut self, pid: usize, now: SimTime) {
        let p = &mut self.procs[pid];
        let spec = &self.sys.classes[p.class];
        let rng = &mut self.owners[p.owner].rngs.work;
        let demand = spec.demand.sample(rng) * spec.demand_scale;
        p.remaining = SimTime::from_secs_f64(demand.min(LONGEST_SAMPLE));
        p.started = now;
        p.faults = 0;
        // A new command, or work after a sleep, starts at the top level.
        self.cpus.scheduler.restart(pid);
        p.due.io = next_io(spec.mean_io(), spec.mean_demand(), rng);
        p.due.segment = next_segment_fault(spec, spec.mean_demand(), rng);
        p.due.file = self.files.start_accesses(self.sys, spec, pid, p.remaining);
    }

    /// Gives `pid`'s new command the processor demand `demand` in place of
    /// the one drawn from its class, its I/O requests spaced as the class's
    /// are over its demand.
    fn fix_demand(&mut self, pid: usize, demand: SimTime) {
        let p = &mut self.procs[pid];
        let spec = &self.sys.classes[p.class];
        let rng = &mut self.owners[p.owner].rngs.work;
        p.remaining = demand;
        p.due.io = next_io(spec.mean_io(), demand.as_secs_f64(), rng);
        p.due.segment = next_segment_fault(spec, demand.as_secs_f64(), rng);
        p.due.file = self.files.start_accesses(self.sys, spec, pid, demand);
    }

    /// Puts `pid` through eligibility control: it waits at its level with
    /// its working-set estimate, and runs at once if it is awarded
    /// eligibility.
    fn admit(&mut self, pid: usize, ctx: &mut Context<Event>) {
        self.wait_eligible(pid);
        self.award_eligibility(ctx);
        if !self.eligibility.holds(pid) {
            self.recount(pid, ctx.now(), Change::State(State::WaitEligible));
        }
    }

    /// Queues `pid` for eligibility at its level with its working-set
    /// estimate.
    fn wait_eligible(&mut self, pid: usize) {
        let p = &self.procs[pid];
        let remembered = self.owners[p.owner].working_set;
        let estimate = self.memory.working_set_estimate(p, remembered);
        let level = self.cpus.scheduler.level(pid);
        self.eligibility.wait(pid, level, estimate);
    }

    /// Awards eligibility while the rule lets the next waiting process in:
    /// it is made eligible, with its quantum under Multics, and runs.
    fn award_eligibility(&mut self, ctx: &mut Context<Event>) {
        while let Some(award) = self.eligibility.award() {
            self.cpus.scheduler.grant(award.pid, award.order);
            self.become_runnable(award.pid, None, ctx);
        }
    }

    /// `pid` gives up eligibility (its command is done, or it sleeps), and
    /// others may be let in.
    fn release_eligibility(&mut self, pid: usize, ctx: &mut Context<Event>) {
        if self.give_up_eligibility(pid) {
            self.award_eligibility(ctx);
        }
    }

    /// Takes `pid`'s eligibility away, if it has it, leaving its resident
    /// set as its owner's working-set estimate; says whether it had it.
    fn give_up_eligibility(&mut self, pid: usize) -> bool {
        if !self.eligibility.holds(pid) {
            return false;
        }
        let p = &self.procs[pid];
        if let Some(resident) = self.memory.resident_set_left(p.class, pid) {
            self.owners[p.owner].working_set = Some(resident);
        }
        self.eligibility.release(pid);
        true
    }

    /// Multics: `pid`, off its processor, has used up its quantum. It loses
    /// eligibility and waits for it again at the back of the next level
    /// down, where the quantum is twice as long.
    fn lose_eligibility(&mut self, pid: usize, ctx: &mut Context<Event>) {
        self.cpus.scheduler.demote(pid);
        assert!(
            self.give_up_eligibility(pid),
            "a process with a quantum is eligible"
        );
        self.wait_eligible(pid);
        self.recount(pid, ctx.now(), Change::State(State::WaitEligible));
        self.award_eligibility(ctx);
    }

    /// `pid` is ready to run, woken in the kernel at the priority `woken`
    /// if it slept there: it joins the ready queue if it is in memory (or
    /// starts its exec, if it has one to do), else the swapper looks.
    fn become_runnable(&mut self, pid: usize, woken: Option<u8>, ctx: &mut Context<Event>) {
        if let Some(priority) = woken {
            self.cpus.scheduler.woken_at(pid, priority);
        }
        let now = ctx.now();
        self.recount(pid, now, Change::State(State::Runnable));
        match self.procs[pid].residence {
            // Only an exec that reads the image (swapping) is ever pending:
            // under paging a wake-up need not read the process's files.
            Residence::In if self.memory.exec_reads_image() && self.files.of[pid].exec.pending => {
                self.start_exec(pid, ctx)
            }
            Residence::In => {
                self.cpus.enqueue(pid, now);
                self.dispatch_idle(ctx);
                // It takes the processor of a process it outranks, if the
                // scheduler says so.
                if let Some(cpu) = self.cpus.preemption_for(pid, now) {
                    let preempted = self.cpus.running[cpu].expect("busy").pid;
                    self.preempt(cpu, ctx);
                    self.cpus.enqueue(preempted, now);
                    let best = self.cpus.take_best(now);
                    self.dispatch(cpu, best, true, ctx);
                }
            }
            Residence::Out => self.swapper(ctx),
            Residence::MovingIn | Residence::MovingOut => {}
        }
    }

    /// Gives the ready processes the idle processors, lowest-numbered
    /// first.
    fn dispatch_idle(&mut self, ctx: &mut Context<Event>) {
        while !self.cpus.scheduler.is_empty() {
            let Some(((), cpu)) = self.cpus.idle.first() else {
                return;
            };
            let pid = self.cpus.take_best(ctx.now());
            self.dispatch(cpu, pid, true, ctx);
        }
    }

    /// Takes the process on `cpu` off it before its burst ends, keeping
    /// what it ran; it stays runnable but is not queued.
    fn preempt(&mut self, cpu: usize, ctx: &mut Context<Event>) {
        let now = ctx.now();
        let burst = self.cpus.running[cpu].expect("a busy processor");
        assert!(
            matches!(burst.kind, BurstKind::User(_)),
            "only a process's own work is preempted"
        );
        let key = self.cpus.burst_keys[cpu]
            .take()
            .expect("a busy processor has a burst end");
        assert!(ctx.cancel(key), "the burst end is pending");
        // Interrupts the burst had not run yet go back to wait.
        self.cpus.pending_interrupts += burst.interrupt_end.saturating_sub(now);
        let cut = Burst {
            interrupt_end: burst.interrupt_end.min(now),
            switch_end: burst.switch_end.min(now),
            end: now,
            ..burst
        };
        self.account(&cut, now);
        self.charge(burst.pid, now.saturating_sub(burst.switch_end));
        self.leave_cpu(cpu, burst.pid, now);
        self.recount(burst.pid, now, Change::State(State::Runnable));
    }

    /// Takes processor time `ran` off what `pid` still owes: its demand,
    /// the time to its next I/O request and what is left of its quantum.
    #[inline]
    fn charge(&mut self, pid: usize, ran: SimTime) {
        let p = &mut self.procs[pid];
        p.remaining = p.remaining - ran;
        p.due.charge(ran);
        self.cpus.scheduler.charge(pid, ran);
    }

    /// Starts a burst of `pid` on `cpu`, with a context switch first if
    /// `switch`.
    fn dispatch(&mut self, cpu: usize, pid: usize, switch: bool, ctx: &mut Context<Event>) {
        let now = ctx.now();
        let switch = if switch {
            self.sys.cpu.context_switch
        } else {
            SimTime::ZERO
        };
        let trimmed = self.memory.trims_working_sets()
            && self.with_memory(ctx, |m, view, fx| m.trim_working_set(view, pid, fx));
        let interrupts = std::mem::take(&mut self.cpus.pending_interrupts);
        let switch_end = now + interrupts + switch;
        let (memory, mut view) = self.memory_and_view(now);
        let fault_gap = memory.fault_gap(&mut view, pid);
        let slice = self.cpus.scheduler.run(pid, now, switch_end);
        let (run, kind) = if let Some(owed) = self.files.take_exec_work(pid) {
            // Exec's clearing and copies first, in the kernel.
            owed
        } else {
            let p = &self.procs[pid];
            let candidates = [
                (p.remaining, Outcome::Done),
                (p.due.io, Outcome::Io),
                (fault_gap, Outcome::Fault),
                (p.due.segment, Outcome::SegmentFault),
                (p.due.file, Outcome::File),
                (slice, Outcome::Quantum),
            ];
            // The first to come wins; on a tie, the earlier in the list.
            let (run, outcome) = candidates
                .into_iter()
                .reduce(|best, c| if c.0 < best.0 { c } else { best })
                .expect("six candidates");
            (run, BurstKind::User(outcome))
        };
        let burst = Burst {
            pid,
            kind,
            start: now,
            interrupt_end: now + interrupts,
            switch_end,
            end: switch_end + run,
        };
        if self.cpus.running[cpu].is_none() {
            self.cpus.meter.busy.add(now, 1.0);
            self.stats.meter_idle(now, self.cpus.idle_count());
            self.cpus.take(cpu, self.procs[pid].class);
        }
        self.cpus.start(cpu, burst, ctx);
        self.recount(pid, now, Change::State(State::Running));
        if trimmed {
            self.serve_frame_waiters(ctx);
        }
    }

    /// Adds the parts of `burst` up to `upto` that fall after the warm-up
    /// to the processor-time counters.
    fn account(&mut self, burst: &Burst, upto: SimTime) {
        let work = upto.max(burst.switch_end) - burst.switch_end;
        // The interrupts are the devices', not the process's.
        self.procs[burst.pid].cpu_system += upto
            .min(burst.switch_end)
            .saturating_sub(burst.interrupt_end);
        match burst.kind {
            BurstKind::User(_) => self.procs.add_cpu_user(burst.pid, work),
            BurstKind::Fault | BurstKind::SegmentFault | BurstKind::Copy | BurstKind::Clear => {
                self.procs[burst.pid].cpu_system += work
            }
        }
        if let BurstKind::User(_) = burst.kind {
            let (memory, mut view) = self.memory_and_view(upto);
            memory.user_work_done(&mut view, burst, upto);
        }
        let probe = self.is_probe(burst.pid);
        add_burst(
            &mut self.stats.counters,
            burst,
            probe,
            self.stats.measured_from,
            upto,
        );
    }

    fn burst_end(&mut self, cpu: usize, ctx: &mut Context<Event>) {
        let now = ctx.now();
        let burst = self.cpus.running[cpu].expect("a burst ends on a busy processor");
        self.cpus.burst_keys[cpu] = None;
        self.account(&burst, now);
        let pid = burst.pid;
        let outcome = match burst.kind {
            BurstKind::Fault => {
                self.fault_path_done(cpu, pid, ctx);
                return;
            }
            BurstKind::SegmentFault | BurstKind::Copy | BurstKind::Clear => {
                // The segment is active, or the image copied in or
                // cleared: the process runs on.
                self.dispatch(cpu, pid, false, ctx);
                return;
            }
            BurstKind::User(outcome) => outcome,
        };
        self.charge(pid, burst.end - burst.switch_end);
        match outcome {
            Outcome::Done => {
                self.leave_cpu(cpu, pid, now);
                self.cycle_done(pid, ctx);
                self.dispatch_idle(ctx);
            }
            Outcome::Io => {
                self.leave_cpu(cpu, pid, now);
                self.start_io(pid, ctx);
                self.dispatch_idle(ctx);
            }
            Outcome::Fault => {
                self.with_memory(ctx, |m, view, fx| m.fault(view, cpu, pid, fx));
            }
            Outcome::SegmentFault => {
                // The kernel's handling runs on the processor, then the
                // process runs on.
                let p = &mut self.procs[pid];
                let spec = &self.sys.classes[p.class];
                let sf = spec
                    .segment_faults
                    .expect("a segment fault in a class that has them");
                let rng = &mut self.owners[p.owner].rngs.work;
                p.due.segment = next_segment_fault(spec, spec.mean_demand(), rng);
                self.cpus
                    .start_kernel(cpu, pid, BurstKind::SegmentFault, sf.cpu, ctx);
            }
            Outcome::File => self.data_access(cpu, pid, ctx),
            Outcome::Quantum => match self.cpus.scheduler.slice_end(pid, now) {
                SliceEnd::LoseEligibility => {
                    self.leave_cpu(cpu, pid, now);
                    self.lose_eligibility(pid, ctx);
                    self.dispatch_idle(ctx);
                }
                SliceEnd::RunOn => {
                    // Nobody else wants the processor: carry on, unswitched.
                    self.procs[pid].last_run = now;
                    self.dispatch(cpu, pid, false, ctx);
                }
                SliceEnd::Requeue => {
                    self.leave_cpu(cpu, pid, now);
                    self.recount(pid, now, Change::State(State::Runnable));
                    self.cpus.enqueue(pid, now);
                    self.dispatch_idle(ctx);
                }
            },
        }
    }

    fn leave_cpu(&mut self, cpu: usize, pid: usize, now: SimTime) {
        let class = self.procs[pid].class;
        self.cpus.leave(cpu, pid, class, now);
        self.stats.meter_idle(now, self.cpus.idle_count());
        self.procs[pid].last_run = now;
        self.memory.left_processor(class, now);
    }

    fn start_io(&mut self, pid: usize, ctx: &mut Context<Event>) {
        let now = ctx.now();
        let p = &mut self.procs[pid];
        let spec = &self.sys.classes[p.class];
        let rng = &mut self.owners[p.owner].rngs.work;
        let io = if spec.io.len() == 1 {
            &spec.io[0]
        } else {
            let mut u = rng.random::<f64>() * spec.mean_io();
            spec.io
                .iter()
                .find(|io| {
                    let hit = u < io.count;
                    u -= io.count;
                    hit
                })
                .unwrap_or_else(|| spec.io.iter().rfind(|io| io.count > 0.0).expect("an I/O"))
        };
        let (device, bytes) = (io.device, io.size);
        p.due.io = next_io(spec.mean_io(), spec.mean_demand(), rng);
        self.recount(pid, now, Change::State(State::Io));
        self.request(device, Purpose::Io { pid }, bytes, ctx);
    }
}

impl SystemModel<'_> {
    /// Queues a request at a device, starting it if the device is idle.
    fn request(&mut self, device: usize, purpose: Purpose, bytes: f64, ctx: &mut Context<Event>) {
        let now = ctx.now();
        self.stats.counters.requests += 1;
        if purpose.pid().is_some_and(|pid| self.is_probe(pid)) {
            self.stats.counters.probe_requests += 1;
        }
        let region = purpose.region(&self.memory);
        let at = self.files.block_place(self.sys, device, purpose);
        let spec = &self.sys.devices[device];
        let d = &mut self.devices[device];
        let request = d.request(spec, purpose, bytes, region, at, now);
        if let Some(service) = d.arrive(spec, request, now) {
            let _ = ctx.schedule_in(
                service,
                Event::DeviceDone {
                    device: event_index(device),
                },
            );
        }
    }

    fn device_done(&mut self, device: usize, ctx: &mut Context<Event>) {
        let now = ctx.now();
        let (done, next) = self.devices[device].finish(&self.sys.devices[device], now);
        self.cpus.pending_interrupts += self.sys.devices[device].interrupt_cpu;
        if let Some(service) = next {
            let _ = ctx.schedule_in(
                service,
                Event::DeviceDone {
                    device: event_index(device),
                },
            );
        }
        match done.purpose {
            Purpose::Io { pid } => self.become_runnable(pid, Some(scheduler::AFTER_DISK), ctx),
            Purpose::Memory(transfer) => self.transfer_done(transfer, done.bytes, ctx),
            Purpose::Files(transfer) => self.file_transfer_done(transfer, ctx),
        }
    }

    /// A command's process ends, giving back its memory.
    fn exit(&mut self, pid: usize, ctx: &mut Context<Event>) {
        let now = ctx.now();
        let residence = self.procs[pid].residence;
        // Out of every count before it goes.
        self.recount(pid, now, Change::State(State::Sleeping));
        self.recount(pid, now, Change::Residence(Residence::Out));
        self.memory.unfile(pid);
        let p = self.procs.remove(pid);
        if p.counted {
            self.user_processes -= 1;
            self.stats
                .processes
                .set(now, f64::from(self.user_processes));
        }
        self.files
            .detach_text(p.class, self.sys.classes[p.class].sticky);
        self.release_memory(pid, p.class, residence, ctx);
    }

    /// Makes `change` to `pid`, keeping up to date what follows its state:
    /// the counts of processes in the multiprogramming set, waiting for
    /// memory and in memory, and where memory files it for replacement
    /// and the swapper.
    fn recount(&mut self, pid: usize, now: SimTime, change: Change) {
        let waiting_frame = |model: &Self| model.memory.of[pid].waiting_frame;
        let before = indicators(self.procs.state(pid), &self.procs[pid], waiting_frame(self));
        let was_in = self.procs[pid].residence == Residence::In;
        match change {
            Change::State(state) => self.procs.set_state(pid, state),
            Change::Residence(residence) => self.procs[pid].residence = residence,
            Change::WaitingFrame(waiting) => self.memory.of[pid].waiting_frame = waiting,
        }
        let after = indicators(self.procs.state(pid), &self.procs[pid], waiting_frame(self));
        let is_in = self.procs[pid].residence == Residence::In;
        if was_in != is_in {
            self.memory.swap.count_loaded(is_in);
        }
        if before.0 != after.0 {
            let delta = f64::from(u8::from(after.0)) - f64::from(u8::from(before.0));
            self.stats.mpl.add(now, delta);
        }
        if before.1 != after.1 {
            let delta = f64::from(u8::from(after.1)) - f64::from(u8::from(before.1));
            self.stats.waiting.add(now, delta);
            self.stats.meter_idle(now, self.cpus.idle_count());
        }
        self.reindex(pid);
    }
}

/// A change to a process that the counts follow.
#[derive(Clone, Copy, Debug)]
enum Change {
    State(State),
    Residence(Residence),
    /// Waiting for a free frame, or no longer.
    WaitingFrame(bool),
}

/// Whether a process is in the multiprogramming set (in memory and not
/// asleep), and whether it waits for memory or eligibility.
fn indicators(state: State, p: &Process, waiting_frame: bool) -> (bool, bool) {
    let active = matches!(
        state,
        State::Runnable | State::Running | State::Io | State::Fault
    );
    let in_memory = p.residence == Residence::In;
    let waiting = state == State::WaitEligible
        || waiting_frame
        || (state == State::Runnable
            && matches!(p.residence, Residence::Out | Residence::MovingIn));
    (active && in_memory && !waiting_frame, waiting)
}

impl Model for SystemModel<'_> {
    type Event = Event;

    fn handle(&mut self, event: Event, ctx: &mut Context<Event>) {
        match event {
            Event::BurstEnd { cpu } => self.burst_end(cpu as usize, ctx),
            Event::DeviceDone { device } => self.device_done(device as usize, ctx),
            Event::Wake { pid } => {
                self.steps.push(users::wake(pid as usize));
                self.run_steps(ctx);
            }
            Event::Users(event) => {
                let now = ctx.now();
                let (owners, procs) = (&mut self.owners, &self.procs);
                self.users.event(event, owners, procs, now, &mut self.steps);
                self.run_steps(ctx);
            }
            Event::Memory(event) => self.memory_event(event, ctx),
            Event::ProbeCycle => {
                if let Some(probe) = &mut self.probe {
                    probe.cycle(ctx.now(), &mut self.steps);
                }
                self.run_steps(ctx);
            }
            Event::Update => {
                // `update`: every 30 s the delayed writes are sent (V7's
                // `update` calls `sync` every 30 s; `bflush`).
                self.files.flush(self.sys);
                self.file_requests(ctx);
                let _ = ctx.schedule_in(files::UPDATE, Event::Update);
            }
            Event::LoadSample => self.sample_load(ctx),
            Event::WarmupEnd => {
                // What is measured starts again: the statistics, the file
                // system's, the processors' and the devices'.
                let now = ctx.now();
                self.stats.reset(now);
                self.files.reset_counts();
                self.cpus.meter.reset(now);
                for d in &mut self.devices {
                    d.meter.reset(now);
                }
            }
        }
        let free = self.memory.free_units(self.sys);
        let occupancy = || self.memory.occupancy(self.sys);
        self.stats.meter_occupancy(ctx.now(), free, occupancy);
        #[cfg(debug_assertions)]
        {
            self.events_handled += 1;
            if invariants::due(self.events_handled) {
                self.check_invariants();
            }
        }
    }
}

/// Runs replication `replication` of `sys` under the master seed `seed`.
pub fn simulate(sys: &System, seed: u64, replication: u64) -> Run {
    simulate_with_progress(sys, seed, replication, |_| true)
}

/// [`simulate`], calling `progress` with the simulated time reached a
/// thousand times over the run; `progress` returns whether to go on. The
/// results are the same; a run stopped by `progress` reports what it
/// measured up to then.
pub fn simulate_with_progress(
    sys: &System,
    seed: u64,
    replication: u64,
    progress: impl FnMut(SimTime) -> bool,
) -> Run {
    let streams = Streams::new(seed, replication);
    drive(
        SystemModel::new(sys, &streams),
        &streams,
        &sys.settings,
        progress,
    )
}

impl Runnable for SystemModel<'_> {
    fn start(&mut self, ctx: &mut Context<Event>, setup: &mut Setup<'_>) -> bool {
        self.start_heeding(ctx, setup)
    }

    fn finish(&mut self, now: SimTime, events: u64, replication: u64) -> Run {
        Run {
            summary: self.summary(now, events, replication),
            load: std::mem::take(&mut self.stats.load),
            observations: std::mem::take(&mut self.stats.observations),
            lifetime: self.stats.lifetime_points(self.sys),
            set_sizes: self.stats.set_size_points(self.sys),
            trace: Vec::new(),
        }
    }

    fn responses_so_far(&self) -> (u64, f64) {
        self.stats
            .classes
            .iter()
            .map(|c| c.responses.total())
            .fold((0, 0.0), |(n, s), (m, t)| (n + m, s + t))
    }
}

/// Processor time to the next segment fault of a command of `spec` whose
/// demand is `demand` seconds; no draw for a class without them.
fn next_segment_fault(spec: &CommandClass, demand: f64, rng: &mut Stream) -> SimTime {
    spec.segment_faults
        .map_or(SimTime::MAX, |sf| next_io(sf.per_command, demand, rng))
}

/// Processor time to the next I/O request: exponential with mean
/// `demand / count`, so that a command of mean demand makes `count` requests
/// on average; never, without I/O.
fn next_io(count: f64, demand: f64, rng: &mut Stream) -> SimTime {
    if count <= 0.0 || demand <= 0.0 {
        return SimTime::MAX;
    }
    let e: f64 = rand_distr::Distribution::sample(&rand_distr::Exp1, rng);
    SimTime::from_secs_f64((demand / count * e).min(LONGEST_SAMPLE))
}

#[cfg(test)]
mod tests {
    use super::frames::tests::{TEN_PAGE_SETS, make_eligible, with_process_at};
    use super::*;

    #[test]
    fn a_finished_request_goes_back_to_the_part_that_asked() {
        with_process_at(TEN_PAGE_SETS, SimTime::ZERO, |model, ctx, pid| {
            make_eligible(model, pid);
            model.recount(pid, ctx.now(), Change::State(State::Io));
            // Memory's page write: the device is free again, and nobody
            // wakes.
            let write = Purpose::Memory(Transfer::PageWrite);
            model.request(0, write, 1024.0, ctx);
            assert_eq!(model.devices[0].meter.present.value(), 1.0);
            model.device_done(0, ctx);
            assert_eq!(model.devices[0].meter.present.value(), 0.0);
            assert_eq!(model.procs.state(pid), State::Io);
            // The process's own request: it is ready again and, a
            // processor being idle, runs.
            model.request(0, Purpose::Io { pid }, 1024.0, ctx);
            model.device_done(0, ctx);
            assert_eq!(model.procs.state(pid), State::Running);
            assert_eq!(model.cpus.running[0].map(|b| b.pid), Some(pid));
        });
    }

    #[test]
    fn each_event_is_handled_by_its_part() {
        with_process_at(TEN_PAGE_SETS, SimTime::ZERO, |model, ctx, _| {
            // The load sample is the statistics': one more sample, and the
            // next one scheduled.
            let samples = model.stats.load.len();
            model.handle(Event::LoadSample, ctx);
            assert_eq!(model.stats.load.len(), samples + 1);
            // The pageout daemon's turn is memory's: its next turn comes a
            // period later, and nothing is left on the effects' stack.
            model.handle(Event::Memory(MemoryEvent::Pageout), ctx);
            assert!(model.effects.is_empty() && model.memory.writes.is_empty());
            // The end of the warm-up resets what is measured from now.
            model.handle(Event::WarmupEnd, ctx);
            assert_eq!(model.stats.measured_from, ctx.now());
        });
    }
}
