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
use crate::system::{Probe as Settings, Ramp};

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
    /// The load ramp's workers running when it started (0 without a
    /// ramp).
    pub ramp_workers: u32,
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
    /// A worker of the load ramp.
    Worker,
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
    /// Its load ramp, if it runs one.
    ramp: Option<RampRun<'a>>,
}

/// A load ramp under way: the workers running, and those told to stop
/// that could not be killed at once (in the kernel, waiting or out of
/// memory), which exit at the end of their cycle.
#[derive(Debug)]
struct RampRun<'a> {
    settings: &'a Ramp,
    /// When the probe's first cycle began: the ramp's steps count from it.
    began: Option<SimTime>,
    /// The workers running, first started first.
    running: Vec<usize>,
    /// The workers told to stop.
    stopping: Vec<usize>,
    /// Workers started so far (each names its owner's streams).
    started: u64,
    /// The workers running when the current benchmark started.
    noted: u32,
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
            ramp: settings.ramp.as_ref().map(|settings| RampRun {
                settings,
                began: None,
                running: Vec::new(),
                stopping: Vec::new(),
                started: 0,
                noted: 0,
            }),
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
    pub(super) fn cycle(&mut self, now: SimTime, steps: &mut Vec<Step>) {
        self.next = 0;
        if let Some(ramp) = &mut self.ramp {
            ramp.began.get_or_insert(now);
        }
        if self.script.is_some() {
            self.shell_line(now, steps);
        } else {
            self.run_benchmark(now, steps);
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
            Role::Worker => self.ramp.as_mut().expect("a ramp").running.push(pid),
        }
    }

    /// A worker of its ramp, run for `owner`, has had its cycle's processor
    /// time: it exits if told to stop, else loops.
    pub(super) fn worker_done(&mut self, pid: usize, owner: usize, steps: &mut Vec<Step>) {
        let ramp = self.ramp.as_mut().expect("a worker belongs to a ramp");
        match ramp.stopping.iter().position(|&w| w == pid) {
            Some(at) => {
                ramp.stopping.swap_remove(at);
                steps.push(Step::Exit { pid });
                steps.push(Step::Forget { owner });
            }
            None => steps.push(Step::Loop { pid }),
        }
    }

    /// The worker `pid` told to stop has been killed.
    pub(super) fn killed(&mut self, pid: usize) {
        let ramp = self.ramp.as_mut().expect("a worker belongs to a ramp");
        let at = ramp
            .stopping
            .iter()
            .position(|&w| w == pid)
            .expect("a worker killed was told to stop");
        ramp.stopping.swap_remove(at);
    }

    /// Starts or stops workers to match the ramp's step at `now`, as
    /// `tpsim probe` does before each benchmark (it kills a worker and
    /// waits for it): the last started stops first.
    fn follow_ramp(&mut self, now: SimTime, steps: &mut Vec<Step>) {
        let Some(ramp) = &mut self.ramp else {
            return;
        };
        let began = ramp.began.expect("the ramp follows from the first cycle");
        let wanted = ramp.settings.wanted(now - began) as usize;
        while ramp.running.len() > wanted {
            let worker = ramp.running.pop().expect("a worker runs");
            ramp.stopping.push(worker);
            steps.push(Step::Kill { pid: worker });
        }
        for _ in ramp.running.len()..wanted {
            steps.push(Step::StartWorker {
                index: ramp.started,
                program: Program {
                    class: ramp.settings.class,
                    demand: None,
                    runs: None,
                },
            });
            ramp.started += 1;
        }
        ramp.noted = wanted as u32;
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

    /// Starts its next benchmark, the ramp followed and the load noted
    /// first.
    fn run_benchmark(&mut self, now: SimTime, steps: &mut Vec<Step>) {
        self.follow_ramp(now, steps);
        steps.push(Step::NoteLoad);
        self.start(self.settings.benchmarks[self.next], Role::Benchmark, steps);
    }

    /// Forks and execs `program` as `role`.
    fn start(&self, program: Program, role: Role, steps: &mut Vec<Step>) {
        // The probe's shell counts as users' shells do; its other
        // processes always.
        let counted = role != Role::Shell || self.sys.users.processes == ProcessCount::All;
        steps.push(Step::Start {
            owner: self.owner,
            program,
            counted,
            typed: None,
            then: Started::Probe(role),
        });
    }

    /// The observation of its benchmark, timed from `start` to `end`; the
    /// benchmark is over.
    fn observe(&mut self, start: SimTime, end: SimTime, used: Used) -> Observation {
        self.running = None;
        let noted = self.noted.take().expect("the load was noted at the start");
        Observation {
            benchmark: self.settings.names[self.next].clone(),
            start: start.as_secs_f64(),
            warmup: start < self.sys.settings.warmup,
            users: noted.users,
            processes: noted.processes,
            runnable: noted.runnable,
            free_memory: noted.free_memory,
            elapsed: self.settings.reported(end - start).as_secs_f64(),
            user: used.user.as_secs_f64(),
            system: used.system.as_secs_f64(),
            ramp_workers: self.ramp.as_ref().map_or(0, |r| r.noted),
        }
    }

    /// Moves to the next benchmark, or sleeps to the next cycle after the
    /// last.
    fn next_benchmark(&mut self, now: SimTime, steps: &mut Vec<Step>) {
        self.next += 1;
        if self.script.is_some() {
            // The shell returns from `wait` for its next line.
            self.shell_line(now, steps);
        } else if self.next < self.benchmarks() {
            self.run_benchmark(now, steps);
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
    fn shell_line(&mut self, now: SimTime, steps: &mut Vec<Step>) {
        if self.next < self.benchmarks() {
            self.follow_ramp(now, steps);
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
                    runs: None,
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
                runs: None,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::model::work::{shown, swapped_system};

    /// A probe with two benchmarks, `time` at whole seconds, a fixed
    /// sleep; `script` adds its shell and `time`.
    fn system(script: bool) -> System {
        let script = if script {
            "script = { shell = \"sh\", time = \"time\" }"
        } else {
            ""
        };
        let text = swapped_system("probe", "1h", "100ms", "256KiB")
            + &format!(
                r#"
            [users]
            terminals = 1
            think = {{ exp = {{ mean = "10s" }} }}
            processes = "all"
            commands = [{{ class = "edit", weight = 1 }}]
            [[class]]
            name = "edit"
            cpu = {{ exp = {{ mean = "1s" }} }}
            size = "8KiB"
            [[class]]
            name = "cc"
            cpu = {{ exp = {{ mean = "2s" }} }}
            size = "8KiB"
            [[class]]
            name = "sh"
            cpu = {{ exp = {{ mean = "10ms" }} }}
            size = "8KiB"
            [[class]]
            name = "time"
            cpu = {{ exp = {{ mean = "5ms" }} }}
            size = "8KiB"
            [probe]
            benchmarks = ["edit", {{ class = "cc", cpu = "3s" }}]
            sleep = "10min"
            resolution = "1s"
            {script}
            "#
            );
        crate::load_system("probe.toml", &text).unwrap()
    }

    const OWNER: usize = 7;

    fn secs(s: f64) -> SimTime {
        SimTime::from_secs_f64(s)
    }

    fn load(users: u32) -> Noted {
        Noted {
            users,
            processes: 3,
            runnable: 2,
            free_memory: 4096,
        }
    }

    fn used(started: f64) -> Used {
        Used {
            started: secs(started),
            user: secs(0.25),
            system: secs(0.5),
        }
    }

    /// The steps `decide` pushes.
    fn steps(decide: impl FnOnce(&mut Vec<Step>)) -> Vec<Step> {
        let mut steps = Vec::new();
        decide(&mut steps);
        steps
    }

    fn start(class: usize, demand: Option<f64>, counted: bool, role: Role) -> String {
        format!(
            "{:?}",
            Step::Start {
                owner: OWNER,
                program: Program {
                    class,
                    demand: demand.map(secs),
                    runs: None,
                },
                counted,
                typed: None,
                then: Started::Probe(role),
            }
        )
    }

    #[test]
    fn run_directly_each_benchmark_is_noted_started_timed_and_the_probe_sleeps_after_the_last() {
        let sys = system(false);
        let streams = Streams::new(1, 0);
        let mut probe = Probe::new(&sys, OWNER, &streams).unwrap();
        assert_eq!(probe.first_cycle(secs(5.0)), secs(5.0), "no window");
        let first = steps(|s| probe.cycle(SimTime::ZERO, s));
        assert_eq!(
            shown(&first),
            [
                "NoteLoad".to_string(),
                start(0, None, true, Role::Benchmark)
            ]
        );
        probe.note(load(4));
        probe.started(Role::Benchmark, 11);
        assert_eq!(probe.running(), Some(11));

        let second = steps(|s| probe.done(11, used(10.0), secs(12.7), s));
        let Step::Observed(observation) = &second[0] else {
            panic!("an observation first: {second:?}");
        };
        assert_eq!(
            **observation,
            Observation {
                benchmark: "edit".into(),
                start: 10.0,
                warmup: false,
                users: 4,
                processes: 3,
                runnable: 2,
                free_memory: 4096,
                // 2.7 s as `time` reports it, in whole seconds.
                elapsed: 2.0,
                user: 0.25,
                system: 0.5,
                ramp_workers: 0,
            }
        );
        assert_eq!(
            shown(&second[1..]),
            [
                "Exit { pid: 11 }".to_string(),
                "NoteLoad".to_string(),
                start(1, Some(3.0), true, Role::Benchmark)
            ]
        );
        assert_eq!(probe.running(), None, "between benchmarks");
        probe.note(load(5));
        probe.started(Role::Benchmark, 12);

        let last = steps(|s| probe.done(12, used(20.0), secs(30.0), s));
        assert!(matches!(&last[0], Step::Observed(o) if o.benchmark == "cc" && o.users == 5));
        assert_eq!(
            shown(&last[1..]),
            [
                "Exit { pid: 12 }".to_string(),
                format!(
                    "{:?}",
                    Step::Schedule {
                        at: secs(630.0),
                        event: Event::ProbeCycle
                    }
                )
            ],
            "ten minutes' sleep after the last"
        );
    }

    #[test]
    fn run_as_a_script_the_shell_forks_time_which_forks_and_times_the_benchmark() {
        let sys = system(true);
        let streams = Streams::new(1, 0);
        let mut probe = Probe::new(&sys, OWNER, &streams).unwrap();
        let (shell, time, bench) = (1, 2, 3);
        // The first line: the load noted, the shell exec'd.
        let line = steps(|s| probe.cycle(SimTime::ZERO, s));
        assert_eq!(
            shown(&line),
            ["NoteLoad".to_string(), start(2, None, true, Role::Shell)]
        );
        probe.note(load(1));
        probe.started(Role::Shell, shell);
        // The shell forks `time` and waits.
        let forked = steps(|s| probe.done(shell, used(0.0), secs(1.0), s));
        assert_eq!(
            shown(&forked),
            [
                "Sleep { pid: 1 }".to_string(),
                start(3, None, true, Role::Time),
                "Swapper".to_string()
            ]
        );
        probe.started(Role::Time, time);
        // `time` reads the clock and forks the benchmark.
        let timed = steps(|s| probe.done(time, used(1.0), secs(2.0), s));
        assert_eq!(
            shown(&timed),
            [
                "Sleep { pid: 2 }".to_string(),
                start(0, None, true, Role::Benchmark),
                "Swapper".to_string()
            ]
        );
        probe.started(Role::Benchmark, bench);
        // The benchmark exits; `time` wakes with no work to do.
        let exits = steps(|s| probe.done(bench, used(2.0), secs(5.5), s));
        assert_eq!(
            shown(&exits),
            [
                "Exit { pid: 3 }".to_string(),
                format!(
                    "{:?}",
                    Step::Wake {
                        pid: time,
                        after: AFTER_WAIT,
                        cycle: Cycle::Empty
                    }
                )
            ]
        );
        // `time` reads the clock at 6.9 s: 4.9 s since it forked, reported
        // as 4 s; then the shell reads its next line.
        let reported = steps(|s| probe.done(time, used(1.0), secs(6.9), s));
        let Step::Observed(observation) = &reported[0] else {
            panic!("an observation first: {reported:?}");
        };
        assert_eq!(
            (observation.start, observation.elapsed, observation.users),
            (2.0, 4.0, 1)
        );
        assert_eq!(
            shown(&reported[1..]),
            [
                "Exit { pid: 2 }".to_string(),
                "NoteLoad".to_string(),
                format!(
                    "{:?}",
                    Step::Wake {
                        pid: shell,
                        after: AFTER_WAIT,
                        cycle: Cycle::New
                    }
                )
            ]
        );
    }

    /// One processor, a user who never types, a 1 ms benchmark every
    /// second, and a ramp of 10 ms loops: none for 20 s, three for 20 s,
    /// then one.
    fn ramp() -> String {
        swapped_system("ramp", "70s", "10ms", "1MiB")
            + r#"
        [users]
        terminals = 1
        think = { exp = { mean = "1000h" } }
        commands = [{ class = "bench", weight = 1 }]
        [[class]]
        name = "bench"
        cpu = { det = { value = "1ms" } }
        size = "8KiB"
        [[class]]
        name = "loop"
        cpu = { det = { value = "10ms" } }
        size = "8KiB"
        [probe]
        benchmarks = ["bench"]
        sleep = "1s"
        ramp = { class = "loop", workers = [0, 3, 1], hold = "20s" }
    "#
    }

    #[test]
    fn the_ramp_starts_workers_at_its_steps_and_kills_the_last_started_first() {
        let sys = crate::load_system("ramp.toml", &ramp()).unwrap();
        let streams = Streams::new(1, 0);
        let mut probe = Probe::new(&sys, OWNER, &streams).unwrap();
        let first = steps(|s| probe.cycle(secs(1.0), s));
        assert_eq!(shown(&first[..1]), ["NoteLoad"], "no workers at first");
        probe.note(load(1));
        probe.started(Role::Benchmark, 5);
        let slept = steps(|s| probe.done(5, used(1.0), secs(1.1), s));
        assert!(matches!(slept[2], Step::Schedule { .. }), "{slept:?}");
        // Into the second step (21 s after the first cycle): three started.
        let second = steps(|s| probe.cycle(secs(22.0), s));
        let loops = Program {
            class: 1,
            demand: None,
            runs: None,
        };
        let workers: Vec<String> = (0..3)
            .map(|index| {
                format!(
                    "{:?}",
                    Step::StartWorker {
                        index,
                        program: loops
                    }
                )
            })
            .collect();
        assert_eq!(shown(&second[..3]), workers);
        assert_eq!(shown(&second[3..4]), ["NoteLoad"]);
        for pid in [10, 11, 12] {
            probe.started(Role::Worker, pid);
        }
        probe.note(load(4));
        probe.started(Role::Benchmark, 6);
        let mut looped = Vec::new();
        probe.worker_done(11, 21, &mut looped);
        assert_eq!(shown(&looped), ["Loop { pid: 11 }"]);
        // Into the last step: the two started last are killed; one of them
        // is killed at once, the other (busy in the kernel) exits at the
        // end of its cycle.
        let timed = steps(|s| probe.done(6, used(22.0), secs(22.5), s));
        let Step::Observed(observation) = &timed[0] else {
            panic!("an observation first: {timed:?}");
        };
        assert_eq!(observation.ramp_workers, 3, "noted when it started");
        let third = steps(|s| probe.cycle(secs(41.5), s));
        assert_eq!(
            shown(&third[..3]),
            ["Kill { pid: 12 }", "Kill { pid: 11 }", "NoteLoad"]
        );
        probe.killed(12);
        let mut ended = Vec::new();
        probe.worker_done(11, 21, &mut ended);
        assert_eq!(shown(&ended), ["Exit { pid: 11 }", "Forget { owner: 21 }"]);
        probe.worker_done(10, 20, &mut ended);
        assert_eq!(shown(&ended[2..]), ["Loop { pid: 10 }"]);
    }

    #[test]
    fn in_a_run_each_benchmark_sees_the_ramp_s_workers_of_its_step_and_no_others() {
        let sys = crate::load_system("ramp.toml", &ramp()).unwrap();
        let ramp = sys.probe.as_ref().and_then(|p| p.ramp.clone()).unwrap();
        for seed in 1..=3 {
            let run = crate::system::simulate(&sys, seed, 0);
            let first = run.observations[0].start;
            assert!(run.observations.len() > 60, "a benchmark a second");
            for o in &run.observations {
                let wanted = ramp.wanted(secs(o.start - first));
                assert_eq!(o.ramp_workers, wanted, "at {} s", o.start);
                // Workers killed or started just before the benchmark: the
                // user processes are the workers of the step, exactly.
                assert_eq!(o.processes, wanted, "at {} s", o.start);
            }
            // A benchmark alone takes its 1 ms; behind three loops it
            // waits for their 10 ms turns.
            let mean = |n: u32| {
                let of: Vec<f64> = run
                    .observations
                    .iter()
                    .filter(|o| o.ramp_workers == n)
                    .map(|o| o.elapsed)
                    .collect();
                of.iter().sum::<f64>() / of.len() as f64
            };
            // Exec's read the same, then behind two queued loops' 10 ms
            // turns and what is left of the running one's.
            assert!(
                mean(3) > mean(0) + 0.015,
                "alone {} s, behind three loops {} s",
                mean(0),
                mean(3)
            );
        }
    }

    #[test]
    fn workers_out_of_memory_at_a_step_down_exit_at_their_cycle_s_end() {
        // Memory for two workers' images of 24 KiB (with the benchmark's):
        // four loops swap each other in and out, and at the step down
        // those out of memory cannot be killed at once.
        let text = ramp()
            .replace("size = \"1MiB\"", "size = \"64KiB\"")
            .replace(
                "name = \"loop\"\n        cpu = { det = { value = \"10ms\" } }\n        size = \"8KiB\"",
                "name = \"loop\"\n        cpu = { det = { value = \"10ms\" } }\n        size = \"24KiB\"",
            )
            .replace("workers = [0, 3, 1]", "workers = [0, 4, 1]");
        let sys = crate::load_system("ramp.toml", &text).unwrap();
        let ramp = sys.probe.as_ref().and_then(|p| p.ramp.clone()).unwrap();
        assert_eq!(sys.classes[1].size, 24 * 1024, "the loops are larger");
        for seed in 1..=3 {
            // Debug builds recheck every count (after every event at
            // first, then after one in 17).
            let run = crate::system::simulate(&sys, seed, 0);
            let first = run.observations[0].start;
            let mut late_kills = 0;
            for o in &run.observations {
                let wanted = ramp.wanted(secs(o.start - first));
                assert_eq!(o.ramp_workers, wanted, "at {} s", o.start);
                // A worker that could not be killed is counted until it
                // goes, and no longer than its next turn in memory.
                assert!(o.processes >= wanted, "{o:?}");
                late_kills += u32::from(o.processes > wanted);
                if o.start - first > 45.0 {
                    assert_eq!(o.processes, wanted, "gone by {} s", o.start);
                }
            }
            assert!(
                late_kills > 0,
                "seed {seed}: no worker out of memory at the step down"
            );
        }
    }
}
