//! What the workload's parts - the probe and the shell scripts - leave
//! the core to do: start a program, put a process to sleep or wake it,
//! let one exit, have the swapper look, note the load, keep an
//! observation, schedule an event.
//!
//! A part decides a whole step at once (which programs to fork, who
//! waits, who wakes) from what it keeps and what the core shows it, and
//! pushes [`Step`]s in the order the kernel would do them; the core then
//! does them in that order (`SystemModel::run_steps`), so every random
//! draw and every calendar rank falls where it would if the part did
//! them itself. A program started is handed back to the part that asked
//! for it ([`Started`]).

use super::probe::{Noted, Observation, Probe, Role};
use super::{Context, Event, Program, SimTime, State, SystemModel};

/// One thing a workload part leaves the core to do.
#[derive(Clone, Debug)]
pub(super) enum Step {
    /// Fork and exec `program` for `owner`: a new process of its class,
    /// counted in "user processes" or not, started at its user priority (a
    /// forked child has not slept); then handed to `then`.
    Start {
        owner: usize,
        program: Program,
        counted: bool,
        then: Started,
    },
    /// `pid` sleeps: in `wait`, or between cycles.
    Sleep { pid: usize },
    /// `pid` wakes at the kernel priority `after` with the work `cycle`.
    Wake { pid: usize, after: u8, cycle: Cycle },
    /// `pid` exits.
    Exit { pid: usize },
    /// The swapper looks (a process has gone to sleep).
    Swapper,
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

    /// The probe, which the scenario has if it pushed a step for it.
    fn probe_part(&mut self) -> &mut Probe<'a> {
        self.probe.as_mut().expect("a probe")
    }

    /// The load indices now, as the probe notes them.
    fn load_now(&self) -> Noted {
        Noted {
            users: self.terminals.logged_in,
            processes: self.user_processes,
            runnable: self.runnable(),
            free_memory: self.memory.free_memory(self.sys),
        }
    }

    /// Does one step.
    fn step(&mut self, step: Step, ctx: &mut Context<Event>) {
        let now = ctx.now();
        match step {
            Step::Start {
                owner,
                program,
                counted,
                then,
            } => {
                let pid = self.spawn(program.class, owner, now);
                if let Some(demand) = program.demand {
                    self.fix_demand(pid, demand);
                }
                self.count(pid, counted);
                self.stats
                    .processes
                    .set(now, f64::from(self.user_processes));
                self.admit(pid, ctx);
                match then {
                    Started::Probe(role) => self.probe_part().started(role, pid),
                    Started::Child { script } => self.scripts.forked(script, pid),
                }
            }
            Step::Sleep { pid } => self.recount(pid, now, |p| p.state = State::Sleeping),
            Step::Wake { pid, after, cycle } => {
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
                        p.due = super::Countdowns::NONE;
                    }
                }
                self.sched[pid].woken = Some(after);
                self.admit(pid, ctx);
            }
            Step::Exit { pid } => self.exit(pid, ctx),
            Step::Swapper => self.swapper(ctx),
            Step::NoteLoad => {
                let load = self.load_now();
                self.probe_part().note(load);
            }
            Step::Observed(observation) => self.stats.observations.push(*observation),
            Step::Schedule { at, event } => {
                let _ = ctx.schedule_at(at, event);
            }
        }
    }
}
