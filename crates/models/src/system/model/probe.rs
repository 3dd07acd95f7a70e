//! The terminal probe: a script run in the background, at the priority of
//! any user process, that loops over the scenario's benchmarks - for each,
//! note the load, run it under `time` - and then sleeps (Karush's terminal
//! probe; the 1981 study's script, \[S1\] section 3).
//!
//! Each benchmark is a fresh process of its class, forked and exec'd as a
//! user's command is, so it competes for the processor, memory and disks
//! like any other and loads them in turn. Its observation is the load
//! indices just before it starts (users logged in, user processes,
//! processes ready or running, free user memory) and, when it exits, its
//! elapsed time as `time` reports it and the processor time it used in
//! user and in system mode. Only the observations are kept.

//!
//! The probe is a part: [`Probe`] keeps where it is in its cycle, and
//! each of its moves pushes the [`Step`]s the core does for it (start a
//! program, sleep, wake, exit, note the load, keep an observation).

use super::scheduler::AFTER_WAIT;
use super::work::{Cycle, Started, Step};
use super::{Event, ProcessCount, Program, Serialize, SimTime, Stream, Streams, System};
use crate::system::Probe as Settings;

/// One run of a benchmark by the probe.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Observation {
    /// The benchmark's command class.
    pub benchmark: String,
    /// When it started \[s\].
    pub start: f64,
    /// Whether it started before the end of the warm-up.
    pub warmup: bool,
    /// Users logged in when it started.
    pub users: u32,
    /// The "user processes" index when it started (the benchmark itself
    /// not yet included).
    pub processes: u32,
    /// Processes ready for a processor or running when it started.
    pub runnable: u32,
    /// Free user memory when it started \[bytes\].
    pub free_memory: u64,
    /// Its elapsed time, as `time` reports it (truncated to the probe's
    /// resolution) \[s\].
    pub elapsed: f64,
    /// Processor time in user mode \[s\].
    pub user: f64,
    /// Processor time in the kernel on its behalf: context switches to it
    /// and its page faults \[s\].
    pub system: f64,
}

/// The load indices the probe notes when a benchmark starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Noted {
    /// Users logged in.
    pub(super) users: u32,
    /// The "user processes" index.
    pub(super) processes: u32,
    /// Processes ready for a processor or running.
    pub(super) runnable: u32,
    /// Free user memory \[bytes\].
    pub(super) free_memory: u64,
}

/// The processor time a benchmark used, with its programs' (`time`
/// reports a command's children's times with its own), and when its
/// command began.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Used {
    /// When its command began.
    pub(super) started: SimTime,
    /// In user mode.
    pub(super) user: SimTime,
    /// In the kernel on its behalf.
    pub(super) system: SimTime,
}

/// What a process the probe forked is to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    /// The benchmark timed.
    Benchmark,
    /// The probe's shell, under the script.
    Shell,
    /// `time`, under the script.
    Time,
}

/// The probe run as a shell script: its shell and `time` processes.
#[derive(Debug, Default)]
struct ScriptRun {
    /// The probe's shell, from its first cycle on.
    shell: Option<usize>,
    /// `time`, while it runs.
    time: Option<usize>,
    /// When `time` forked the benchmark.
    before: SimTime,
    /// The benchmark's observation, its elapsed time taken when `time`
    /// reads the clock after its wait.
    timed: Option<Observation>,
}

/// The terminal probe: where it is in its cycle, and its processes.
#[derive(Debug)]
pub(super) struct Probe<'a> {
    settings: &'a Settings,
    sys: &'a System,
    /// The owner its processes run for (and draw their work from).
    owner: usize,
    /// The benchmark it runs next, or is running.
    next: usize,
    /// The load noted when its benchmark started.
    noted: Option<Noted>,
    /// Its benchmark's process, while one runs.
    running: Option<usize>,
    /// Its shell and `time`, when it runs as a script.
    script: Option<ScriptRun>,
    /// Its sleeps between cycles (its owner's think stream).
    sleep: Stream,
}

impl<'a> Probe<'a> {
    /// The probe of `sys`, if it has one, its processes run for `owner`
    /// (whose streams are named `probe/..`).
    pub(super) fn new(sys: &'a System, owner: usize, streams: &Streams) -> Option<Probe<'a>> {
        let settings = sys.probe.as_ref()?;
        Some(Probe {
            settings,
            sys,
            owner,
            next: 0,
            noted: None,
            running: None,
            script: settings.script.map(|_| ScriptRun::default()),
            sleep: streams.stream("probe/think"),
        })
    }

    /// When its first cycle starts, the run starting at `now`.
    pub(super) fn first_cycle(&self, now: SimTime) -> SimTime {
        self.settings.next_start(now)
    }

    /// Its benchmark's process, while one runs.
    pub(super) fn running(&self) -> Option<usize> {
        self.running
    }

    /// A cycle starts with its first benchmark (under the script, with
    /// its shell reading the first line).
    pub(super) fn cycle(&mut self, steps: &mut Vec<Step>) {
        self.next = 0;
        if self.script.is_some() {
            self.shell_line(steps);
        } else {
            self.run_benchmark(steps);
        }
    }

    /// The load noted as its benchmark starts.
    pub(super) fn note(&mut self, load: Noted) {
        self.noted = Some(load);
    }

    /// A process it asked for has started.
    pub(super) fn started(&mut self, role: Role, pid: usize) {
        match role {
            Role::Benchmark => self.running = Some(pid),
            Role::Shell => self.script_run().shell = Some(pid),
            Role::Time => self.script_run().time = Some(pid),
        }
    }

    /// One of its processes has had its cycle's processor time, having
    /// used `used`: its benchmark, or under the script its shell or
    /// `time`.
    pub(super) fn done(&mut self, pid: usize, used: Used, now: SimTime, steps: &mut Vec<Step>) {
        let Some(script) = &self.script else {
            let observation = self.observe(used.started, now, used);
            steps.push(Step::Observed(Box::new(observation)));
            steps.push(Step::Exit { pid });
            self.next_benchmark(now, steps);
            return;
        };
        if script.shell == Some(pid) {
            self.shell_done(pid, now, steps);
        } else if script.time == Some(pid) {
            self.time_done(pid, now, steps);
        } else {
            assert_eq!(
                self.running,
                Some(pid),
                "the probe's third process is its benchmark"
            );
            let observation = self.observe(script.before, now, used);
            let script = self.script_run();
            script.timed = Some(observation);
            let time = script.time.expect("`time` waits for the benchmark");
            steps.push(Step::Exit { pid });
            // `time` returns from its wait and reads the clock as soon as
            // it runs: a cycle without work.
            steps.push(Step::Wake {
                pid: time,
                after: AFTER_WAIT,
                cycle: Cycle::Empty,
            });
        }
    }

    /// The probe run as a script's shell and `time`.
    fn script_run(&mut self) -> &mut ScriptRun {
        self.script.as_mut().expect("a probe run as a script")
    }

    fn benchmarks(&self) -> usize {
        self.settings.benchmarks.len()
    }

    /// Starts its next benchmark, the load noted first.
    fn run_benchmark(&mut self, steps: &mut Vec<Step>) {
        steps.push(Step::NoteLoad);
        self.start(self.settings.benchmarks[self.next], Role::Benchmark, steps);
    }

    /// Forks and execs `program` as `role`.
    fn start(&self, program: Program, role: Role, steps: &mut Vec<Step>) {
        let counted = match role {
            Role::Benchmark | Role::Time => true,
            Role::Shell => self.sys.users.processes == ProcessCount::All,
        };
        steps.push(Step::Start {
            owner: self.owner,
            program,
            counted,
            then: Started::Probe(role),
        });
    }

    /// The observation of its benchmark, timed from `start` to `end`; the
    /// benchmark is over.
    fn observe(&mut self, start: SimTime, end: SimTime, used: Used) -> Observation {
        self.running = None;
        let noted = self.noted.take().expect("the load was noted at the start");
        let class = self.settings.benchmarks[self.next].class;
        Observation {
            benchmark: self.sys.classes[class].name.clone(),
            start: start.as_secs_f64(),
            warmup: start < self.sys.settings.warmup,
            users: noted.users,
            processes: noted.processes,
            runnable: noted.runnable,
            free_memory: noted.free_memory,
            elapsed: self.settings.reported(end - start).as_secs_f64(),
            user: used.user.as_secs_f64(),
            system: used.system.as_secs_f64(),
        }
    }

    /// Moves to the next benchmark, or sleeps to the next cycle after the
    /// last.
    fn next_benchmark(&mut self, now: SimTime, steps: &mut Vec<Step>) {
        self.next += 1;
        if self.script.is_some() {
            // The shell returns from `wait` for its next line.
            self.shell_line(steps);
        } else if self.next < self.benchmarks() {
            self.run_benchmark(steps);
        } else {
            self.sleeps(now, steps);
        }
    }

    /// Sleeps to the next cycle.
    fn sleeps(&mut self, now: SimTime, steps: &mut Vec<Step>) {
        let sleep = self.settings.sleep.sample_time(&mut self.sleep);
        steps.push(Step::Schedule {
            at: self.settings.next_start(now + sleep),
            event: Event::ProbeCycle,
        });
    }

    /// The shell runs its next line: noting the load and forking `time`
    /// for the next benchmark, or after the last one forking `sleep`. At
    /// the first cycle it is exec'd.
    fn shell_line(&mut self, steps: &mut Vec<Step>) {
        if self.next < self.benchmarks() {
            steps.push(Step::NoteLoad);
        }
        match self.script_run().shell {
            Some(shell) => steps.push(Step::Wake {
                pid: shell,
                after: AFTER_WAIT,
                cycle: Cycle::New,
            }),
            None => {
                let class = self.settings.script.expect("a script").shell;
                let shell = Program {
                    class,
                    demand: None,
                };
                self.start(shell, Role::Shell, steps);
            }
        }
    }

    /// The shell has read its line: it forks `time` for the next
    /// benchmark and waits, or sleeps to the next cycle after the last.
    fn shell_done(&mut self, shell: usize, now: SimTime, steps: &mut Vec<Step>) {
        steps.push(Step::Sleep { pid: shell });
        if self.next < self.benchmarks() {
            let time = Program {
                class: self.settings.script.expect("a script").time,
                demand: None,
            };
            self.start(time, Role::Time, steps);
        } else {
            self.sleeps(now, steps);
        }
        steps.push(Step::Swapper);
    }

    /// `time` has run: before its wait, it notes the time and forks the
    /// benchmark; after it, it reads the clock and the benchmark's
    /// observation is complete.
    fn time_done(&mut self, time: usize, now: SimTime, steps: &mut Vec<Step>) {
        let settings = self.settings;
        let script = self.script_run();
        match script.timed.take() {
            None => {
                script.before = now;
                steps.push(Step::Sleep { pid: time });
                self.start(settings.benchmarks[self.next], Role::Benchmark, steps);
                steps.push(Step::Swapper);
            }
            Some(mut observation) => {
                observation.elapsed = settings.reported(now - script.before).as_secs_f64();
                script.time = None;
                steps.push(Step::Observed(Box::new(observation)));
                steps.push(Step::Exit { pid: time });
                self.next_benchmark(now, steps);
            }
        }
    }
}
