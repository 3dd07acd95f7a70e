//! What the workload's parts - the users, the shell scripts and the
//! probe - leave the core to do: start a program, put a process to sleep
//! or wake it, let one exit, have the swapper look, count a login or a
//! refusal, note the load, keep an observation, schedule or cancel an
//! event; and where a finished cycle goes.
//!
//! A part decides a whole step at once (which programs to fork, who
//! waits, who wakes) from what it keeps and what the core shows it, and
//! pushes [`Step`]s in the order the kernel would do them; the core then
//! does them in that order (`SystemModel::run_steps`), so every random
//! draw and every calendar rank falls where it would if the part did
//! them itself. A program started is handed back to the part that asked
//! for it ([`Started`]).

use super::memory::Processes;
use super::probe::{Noted, Observation, Probe, Role, Used};
use super::scheduler::AFTER_TERMINAL;
use super::users::{UserEvent, Users};
use super::{
    BurstKind, Change, Context, Countdowns, Event, EventKey, Owner, OwnerKind, Program, SimTime,
    State, SystemModel, event_index,
};

/// One thing a workload part leaves the core to do.
#[derive(Clone, Debug)]
pub(super) enum Step {
    /// Fork and exec `program` for `owner`: a new process of its class,
    /// counted in "user processes" or not, started at its user priority (a
    /// forked child has not slept) or, for a command `typed` at a
    /// terminal, from the typing at the terminal's; then handed to
    /// `then`.
    Start {
        owner: usize,
        program: Program,
        counted: bool,
        typed: Option<SimTime>,
        then: Started,
    },
    /// `pid` sleeps: in `wait`, or between cycles.
    Sleep { pid: usize },
    /// `pid` wakes at the kernel priority `after` with the work `cycle`.
    Wake { pid: usize, after: u8, cycle: Cycle },
    /// `pid` exits.
    Exit { pid: usize },
    /// `pid`, the shell of a user who has logged out, exits if it is
    /// asleep and settled in or out of memory as this step is done.
    Retire { pid: usize },
    /// Worker number `index` of the probe's load ramp starts `program`,
    /// for an owner of its own.
    StartWorker { index: u64, program: Program },
    /// `pid` runs another cycle of its class at once (a ramp's worker
    /// looping).
    Loop { pid: usize },
    /// The ramp's worker `pid` is killed, at once if it is running its own
    /// work or ready for a processor; otherwise it exits at the end of its
    /// cycle.
    Kill { pid: usize },
    /// The swapper looks (a process has gone to sleep).
    Swapper,
    /// The user `owner` thinks for `after`.
    Think { owner: usize, after: SimTime },
    /// A pending event is cancelled.
    Cancel(EventKey),
    /// The owner `owner` is gone: a user, a shell, a command left running.
    Forget { owner: usize },
    /// So many users are logged in now.
    LoggedIn(u32),
    /// Every terminal was taken: a login refused.
    LoginRefused,
    /// A command of `class` refused, its image too large for memory.
    Rejected { class: usize, detached: bool },
    /// The probe notes the load indices now.
    NoteLoad,
    /// The probe has timed a benchmark.
    Observed(Box<Observation>),
    /// `event` comes at `at`.
    Schedule { at: SimTime, event: Event },
}

/// Who is told of a program started, and as what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Started {
    /// No one: a command typed.
    Nobody,
    /// A user's login shell.
    Shell { user: usize },
    /// The probe: its benchmark, shell or `time`.
    Probe(Role),
    /// A shell script: the program it forked and waits for.
    Child { script: usize },
}

/// The work a process wakes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cycle {
    /// A new cycle of its class, its demand drawn.
    New,
    /// A script returning from `wait`: a new cycle of its class within
    /// the same command, which keeps its start and its faults so far.
    Resumed { started: SimTime, faults: u64 },
    /// No processor time at all: `time` reading the clock after its wait.
    Empty,
}

impl<'a> SystemModel<'a> {
    /// Does the steps the parts have pushed, in order.
    pub(super) fn run_steps(&mut self, ctx: &mut Context<Event>) {
        let mut steps = std::mem::take(&mut self.steps);
        for step in steps.drain(..) {
            self.step(step, ctx);
        }
        self.steps = steps;
    }

    /// A command (or background or shell cycle) has had all its processor
    /// time: a script's step, or its response is recorded and its owner
    /// (the probe, or a user, a shell, a background process) moves on.
    pub(super) fn cycle_done(&mut self, pid: usize, ctx: &mut Context<Event>) {
        let processes = Processes::of(&self.procs, self.sys, &self.cpus);
        if self.scripts.step(&processes, pid, &mut self.steps) {
            self.release_eligibility(pid, ctx);
            self.run_steps(ctx);
            return;
        }
        let now = ctx.now();
        let p = &self.procs[pid];
        let (class, owner, started, faults) = (p.class, p.owner, p.started, p.faults);
        let stats = match self.owners[owner].kind {
            OwnerKind::User { .. } => Some(&mut self.stats.classes[class]),
            OwnerKind::Background { entry } => Some(&mut self.stats.background[entry]),
            OwnerKind::Detached => Some(&mut self.stats.detached[class]),
            OwnerKind::Shell { .. } | OwnerKind::Probe | OwnerKind::RampWorker => None,
        };
        if let Some(stats) = stats {
            stats.responses.record(now - started);
            stats.faults.add(faults as f64);
        }
        self.release_eligibility(pid, ctx);
        match (&self.owners[owner].kind, &mut self.probe) {
            (OwnerKind::RampWorker, Some(probe)) => probe.worker_done(pid, owner, &mut self.steps),
            (OwnerKind::Probe, Some(probe)) => {
                let (children_user, children_system) = self.scripts.children_cpu(pid);
                let p = &self.procs[pid];
                let used = Used {
                    started: p.started,
                    user: self.procs.cpu_user(pid) + children_user,
                    system: p.cpu_system + children_system,
                };
                probe.done(pid, used, now, &mut self.steps);
            }
            _ => self
                .users
                .cycle_done(&mut self.owners, &self.procs, pid, now, &mut self.steps),
        }
        self.run_steps(ctx);
    }

    /// Kills `pid`, a ramp's worker, if it is running its own work (taken
    /// off its processor) or queued for one; a worker in any other state
    /// is left to exit at the end of its cycle.
    fn kill(&mut self, pid: usize, ctx: &mut Context<Event>) {
        let now = ctx.now();
        match self.procs.state(pid) {
            State::Running => {
                let on = self.cpus.running.iter().position(|b| {
                    b.is_some_and(|b| b.pid == pid && matches!(b.kind, BurstKind::User(_)))
                });
                let Some(cpu) = on else {
                    return;
                };
                self.preempt(cpu, ctx);
            }
            State::Runnable if self.cpus.scheduler.queued(pid) => self.cpus.dequeue(pid, now),
            _ => return,
        }
        let owner = self.procs[pid].owner;
        self.release_eligibility(pid, ctx);
        self.exit(pid, ctx);
        self.owners.remove(owner);
        self.probe_part().killed(pid);
        self.dispatch_idle(ctx);
    }

    /// The probe, which the scenario has if it pushed a step for it.
    fn probe_part(&mut self) -> &mut Probe<'a> {
        self.probe.as_mut().expect("a probe")
    }

    /// `pid` wakes at the kernel priority `after` to the work `cycle`.
    fn wake(&mut self, pid: usize, after: u8, cycle: Cycle, ctx: &mut Context<Event>) {
        let now = ctx.now();
        match cycle {
            Cycle::New => self.new_cycle(pid, now),
            Cycle::Resumed { started, faults } => {
                self.new_cycle(pid, now);
                let p = &mut self.procs[pid];
                p.started = started;
                p.faults = faults;
            }
            Cycle::Empty => {
                let p = &mut self.procs[pid];
                p.remaining = SimTime::ZERO;
                p.due = Countdowns::NONE;
            }
        }
        self.cpus.scheduler.woken_at(pid, after);
        self.admit(pid, ctx);
    }

    /// Does one step.
    fn step(&mut self, step: Step, ctx: &mut Context<Event>) {
        let now = ctx.now();
        match step {
            Step::Start {
                owner,
                program,
                counted,
                typed,
                then,
            } => {
                let pid = self.spawn(program.class, owner, counted, now);
                self.scripts.runs(pid, program.runs);
                if let Some(demand) = program.demand {
                    self.fix_demand(pid, demand);
                }
                if let Some(at) = typed {
                    self.procs[pid].started = at;
                    self.cpus.scheduler.woken_at(pid, AFTER_TERMINAL);
                }
                self.stats
                    .processes
                    .set(now, f64::from(self.user_processes));
                self.admit(pid, ctx);
                match then {
                    Started::Nobody => {}
                    Started::Shell { user } => Users::shell_started(&mut self.owners, user, pid),
                    Started::Probe(role) => self.probe_part().started(role, pid),
                    Started::Child { script } => {
                        self.scripts.forked(script, pid);
                        self.files.join_script(pid, script);
                    }
                }
            }
            Step::Sleep { pid } => self.recount(pid, now, Change::State(State::Sleeping)),
            Step::Wake { pid, after, cycle } => self.wake(pid, after, cycle, ctx),
            Step::Exit { pid } => self.exit(pid, ctx),
            Step::Retire { pid } => {
                Users::retire_shell(&self.owners, &self.procs, pid, &mut self.steps);
                self.run_steps(ctx);
            }
            Step::StartWorker { index, program } => {
                let owner = self.owners.insert(Owner::new(
                    OwnerKind::RampWorker,
                    &self.streams,
                    &format!("probe/ramp/{index}"),
                ));
                let start = Step::Start {
                    owner,
                    program,
                    counted: true,
                    typed: None,
                    then: Started::Probe(Role::Worker),
                };
                self.step(start, ctx);
            }
            Step::Loop { pid } => {
                self.new_cycle(pid, now);
                self.admit(pid, ctx);
            }
            Step::Kill { pid } => self.kill(pid, ctx),
            Step::Swapper => self.swapper(ctx),
            Step::Think { owner, after } => {
                let key = ctx.schedule_in(
                    after,
                    Event::Users(UserEvent::ThinkEnd {
                        owner: event_index(owner),
                    }),
                );
                Users::thinking(&mut self.owners, owner, key);
            }
            Step::Cancel(key) => {
                ctx.cancel(key);
            }
            Step::Forget { owner } => {
                self.owners.remove(owner);
            }
            Step::LoggedIn(users) => self.stats.users.set(now, f64::from(users)),
            Step::LoginRefused => self.stats.counters.logins_refused += 1,
            Step::Rejected { class, detached } => self.stats.reject(class, detached),
            Step::NoteLoad => {
                // The load indices now, as the probe notes them.
                let load = Noted {
                    users: self.users.logged_in,
                    processes: self.user_processes,
                    runnable: self.cpus.runnable(),
                    free_memory: self.memory.free_memory(self.sys),
                };
                self.probe_part().note(load);
            }
            Step::Observed(observation) => self.stats.observations.push(*observation),
            Step::Schedule { at, event } => {
                let _ = ctx.schedule_at(at, event);
            }
        }
    }
}

/// Steps as their debug text, to compare in tests.
#[cfg(test)]
pub(super) fn shown(steps: &[Step]) -> Vec<String> {
    steps.iter().map(|s| format!("{s:?}")).collect()
}

/// The start of a test's scenario: a swapped system named `name` run to
/// `end`, with the `quantum` and `memory` given, one 1 MB/s disk.
#[cfg(test)]
pub(super) fn swapped_system(name: &str, end: &str, quantum: &str, memory: &str) -> String {
    format!(
        "name = \"{name}\"\n[run]\nend_time = \"{end}\"\n[system]\nquantum = \"{quantum}\"\n\
         [memory]\npolicy = \"swapping\"\nsize = \"{memory}\"\npage = \"1KiB\"\ndevice = \"disk\"\n\
         [[device]]\nname = \"disk\"\nrate = \"1MB/s\"\n"
    )
}
