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

use super::{
    Context, Countdowns, Event, Owner, OwnerKind, ProbeScript, ProcessCount, Program, Serialize,
    SimTime, State, SystemModel, event_index, scheduler,
};

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

/// What the probe noted when its current benchmark started.
#[derive(Clone, Copy, Debug)]
pub(super) struct Noted {
    users: u32,
    processes: u32,
    runnable: u32,
    free_memory: u64,
}

/// The probe's state, borrowed from its owner.
struct ProbeState<'a> {
    /// The benchmark it runs next, or is running.
    next: &'a mut usize,
    /// The load noted when its benchmark started.
    noted: &'a mut Option<Noted>,
    /// Its benchmark's process, while one runs.
    running: &'a mut Option<usize>,
    /// Its shell and `time`, when it runs as a script.
    script: Option<&'a mut ScriptRun>,
}

/// The probe run as a shell script: its shell and `time` processes.
#[derive(Debug, Default)]
pub(super) struct ScriptRun {
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

impl SystemModel<'_> {
    /// Creates the probe's owner and schedules its first cycle.
    pub(super) fn start_probe(&mut self, ctx: &mut Context<Event>) {
        let Some(probe) = &self.sys.probe else {
            return;
        };
        let owner = self.owners.insert(Owner::new(
            OwnerKind::Probe {
                next: 0,
                noted: None,
                running: None,
                script: probe.script.map(|_| Box::default()),
            },
            &self.streams,
            "probe",
        ));
        self.probe = Some(owner);
        let first = probe.next_start(ctx.now());
        let _ = ctx.schedule_at(
            first,
            Event::ProbeCycle {
                owner: event_index(owner),
            },
        );
    }

    /// A cycle of the probe starts with its first benchmark.
    pub(super) fn probe_cycle(&mut self, owner: usize, ctx: &mut Context<Event>) {
        if let OwnerKind::Probe { next, .. } = &mut self.owners[owner].kind {
            *next = 0;
        }
        if self.probe_script().is_some() {
            self.shell_line(owner, ctx);
        } else {
            self.run_benchmark(owner, ctx);
        }
    }

    fn probe_script(&self) -> Option<ProbeScript> {
        self.sys.probe.as_ref().and_then(|p| p.script)
    }

    /// The probe's state.
    fn probe_state(&mut self, owner: usize) -> ProbeState<'_> {
        let OwnerKind::Probe {
            next,
            noted,
            running,
            script,
        } = &mut self.owners[owner].kind
        else {
            unreachable!("only the probe runs benchmarks");
        };
        ProbeState {
            next,
            noted,
            running,
            script: script.as_deref_mut(),
        }
    }

    /// The probe run as a script's shell and `time`.
    fn script_run(&mut self, owner: usize) -> &mut ScriptRun {
        self.probe_state(owner)
            .script
            .expect("a probe run as a script")
    }

    /// The load indices now.
    fn note_load(&self) -> Noted {
        Noted {
            users: self.terminals.logged_in,
            processes: self.user_processes,
            runnable: self.runnable(),
            free_memory: self.memory.free_memory(self.sys),
        }
    }

    /// Notes the load and starts the probe's next benchmark.
    fn run_benchmark(&mut self, owner: usize, ctx: &mut Context<Event>) {
        let noted = self.note_load();
        let state = self.probe_state(owner);
        let next = *state.next;
        *state.noted = Some(noted);
        let probe = self.sys.probe.as_ref().expect("a probe owner has a probe");
        let benchmark = probe.benchmarks[next];
        let pid = self.start_program(owner, benchmark, true, ctx);
        *self.probe_state(owner).running = Some(pid);
    }

    /// One of the probe's processes has had its cycle's processor time:
    /// its benchmark, or under the script its shell or `time`.
    pub(super) fn benchmark_done(&mut self, pid: usize, owner: usize, ctx: &mut Context<Event>) {
        let state = self.probe_state(owner);
        let running = *state.running;
        let Some(script) = state.script else {
            let observation = self.observe(pid, owner, self.procs[pid].started, ctx.now());
            self.stats.observations.push(observation);
            self.exit(pid, ctx);
            self.next_benchmark(owner, ctx);
            return;
        };
        if script.shell == Some(pid) {
            self.shell_done(owner, pid, ctx);
        } else if script.time == Some(pid) {
            self.time_done(owner, pid, ctx);
        } else {
            assert_eq!(
                running,
                Some(pid),
                "the probe's third process is its benchmark"
            );
            let before = script.before;
            let observation = self.observe(pid, owner, before, ctx.now());
            let script = self.script_run(owner);
            script.timed = Some(observation);
            let time = script.time;
            self.exit(pid, ctx);
            // `time` returns from its wait and reads the clock as soon as
            // it runs: a cycle without work.
            let time = time.expect("`time` waits for the benchmark");
            let p = &mut self.procs[time];
            p.remaining = SimTime::ZERO;
            p.due = Countdowns::NONE;
            self.sched[time].woken = Some(scheduler::AFTER_WAIT);
            self.admit(time, ctx);
        }
    }

    /// The observation of the benchmark `pid`, timed from `start` to `end`
    /// (the benchmark not yet gone); the probe's benchmark is over.
    fn observe(&mut self, pid: usize, owner: usize, start: SimTime, end: SimTime) -> Observation {
        let p = &self.procs[pid];
        let benchmark = self.sys.classes[p.class].name.clone();
        let (children_user, children_system) = self.scripts[pid].children_cpu;
        let user = (p.cpu_user + children_user).as_secs_f64();
        let system = (p.cpu_system + children_system).as_secs_f64();
        let state = self.probe_state(owner);
        *state.running = None;
        let noted = state.noted.take().expect("the load was noted at the start");
        let probe = self.sys.probe.as_ref().expect("a probe owner has a probe");
        Observation {
            benchmark,
            start: start.as_secs_f64(),
            warmup: start < self.sys.settings.warmup,
            users: noted.users,
            processes: noted.processes,
            runnable: noted.runnable,
            free_memory: noted.free_memory,
            elapsed: probe.reported(end - start).as_secs_f64(),
            user,
            system,
        }
    }

    /// The probe moves to its next benchmark, or sleeps to its next cycle
    /// after the last.
    fn next_benchmark(&mut self, owner: usize, ctx: &mut Context<Event>) {
        let state = self.probe_state(owner);
        *state.next += 1;
        let next = *state.next;
        let script = state.script.is_some();
        let probe = self.sys.probe.as_ref().expect("a probe owner has a probe");
        if script {
            // The shell returns from `wait` for its next line.
            self.shell_line(owner, ctx);
        } else if next < probe.benchmarks.len() {
            self.run_benchmark(owner, ctx);
        } else {
            self.probe_sleeps(owner, ctx);
        }
    }

    /// The probe sleeps to its next cycle.
    fn probe_sleeps(&mut self, owner: usize, ctx: &mut Context<Event>) {
        let probe = self.sys.probe.as_ref().expect("a probe owner has a probe");
        let sleep = probe.sleep.sample_time(&mut self.owners[owner].rngs.think);
        let at = probe.next_start(ctx.now() + sleep);
        let _ = ctx.schedule_at(
            at,
            Event::ProbeCycle {
                owner: event_index(owner),
            },
        );
    }

    /// The probe's shell runs its next line: noting the load and forking
    /// `time` for the next benchmark, or after the last one forking
    /// `sleep`. At the first cycle it is exec'd.
    fn shell_line(&mut self, owner: usize, ctx: &mut Context<Event>) {
        let now = ctx.now();
        let noted = self.note_load();
        let benchmarks = self.sys.probe.as_ref().map_or(0, |p| p.benchmarks.len());
        let shell_class = self.probe_script().expect("a script").shell;
        let state = self.probe_state(owner);
        if *state.next < benchmarks {
            *state.noted = Some(noted);
        }
        match state.script.expect("a probe run as a script").shell {
            Some(shell) => {
                self.new_cycle(shell, now);
                self.sched[shell].woken = Some(scheduler::AFTER_WAIT);
                self.admit(shell, ctx);
            }
            None => {
                let shell = self.spawn(shell_class, owner, now);
                self.script_run(owner).shell = Some(shell);
                self.count(shell, self.sys.users.processes == ProcessCount::All);
                self.stats
                    .processes
                    .set(now, f64::from(self.user_processes));
                self.admit(shell, ctx);
            }
        }
    }

    /// The probe's shell has read its line: it forks `time` for the next
    /// benchmark and waits, or sleeps to the next cycle after the last.
    fn shell_done(&mut self, owner: usize, shell: usize, ctx: &mut Context<Event>) {
        self.recount(shell, ctx.now(), |p| p.state = State::Sleeping);
        let benchmarks = self.sys.probe.as_ref().map_or(0, |p| p.benchmarks.len());
        if *self.probe_state(owner).next < benchmarks {
            let class = self.probe_script().expect("a script").time;
            let time = self.start_program(
                owner,
                Program {
                    class,
                    demand: None,
                },
                true,
                ctx,
            );
            self.script_run(owner).time = Some(time);
        } else {
            self.probe_sleeps(owner, ctx);
        }
        self.swapper(ctx);
    }

    /// `time` has run: before its wait, it notes the time and forks the
    /// benchmark; after it, it reads the clock and the benchmark's
    /// observation is complete.
    fn time_done(&mut self, owner: usize, time: usize, ctx: &mut Context<Event>) {
        let now = ctx.now();
        let probe = self.sys.probe.as_ref().expect("a probe owner has a probe");
        let script = self.script_run(owner);
        match script.timed.take() {
            None => {
                script.before = now;
                self.recount(time, now, |p| p.state = State::Sleeping);
                let next = *self.probe_state(owner).next;
                let benchmark = probe.benchmarks[next];
                let pid = self.start_program(owner, benchmark, true, ctx);
                *self.probe_state(owner).running = Some(pid);
                self.swapper(ctx);
            }
            Some(mut observation) => {
                let elapsed = probe.reported(now - script.before);
                observation.elapsed = elapsed.as_secs_f64();
                script.time = None;
                self.stats.observations.push(observation);
                self.exit(time, ctx);
                self.next_benchmark(owner, ctx);
            }
        }
    }

    /// Whether `pid` is one of the probe's benchmarks.
    pub(super) fn is_probe(&self, pid: usize) -> bool {
        matches!(
            self.owners[self.procs[pid].owner].kind,
            OwnerKind::Probe { .. }
        )
    }

    /// Processes ready for a processor or running.
    pub(super) fn runnable(&self) -> u32 {
        let running = self.cpus.running.iter().filter(|b| b.is_some()).count();
        (self.ready.len() + running) as u32
    }

    /// The private memory of the probe's benchmark now \[bytes\]: its
    /// resident pages, or its image in memory less the shared text.
    pub(super) fn probe_memory(&self) -> u64 {
        let Some(owner) = self.probe else {
            return 0;
        };
        let OwnerKind::Probe {
            running: Some(pid), ..
        } = self.owners[owner].kind
        else {
            return 0;
        };
        self.memory.private_memory(self.sys, pid, &self.procs[pid])
    }
}
