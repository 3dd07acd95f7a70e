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

use super::*;

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
        self.run_benchmark(owner, ctx);
    }

    /// Notes the load and starts the probe's next benchmark.
    fn run_benchmark(&mut self, owner: usize, ctx: &mut Context<Event>) {
        let now = ctx.now();
        let probe = self.sys.probe.as_ref().expect("a probe owner has a probe");
        let noted = Noted {
            users: self.terminals.logged_in,
            processes: self.user_processes,
            runnable: self.runnable(),
            free_memory: self.free_memory(),
        };
        let OwnerKind::Probe { next, .. } = self.owners[owner].kind else {
            unreachable!("only the probe runs benchmarks");
        };
        let benchmark = probe.benchmarks[next];
        let pid = self.spawn(benchmark.class, owner, now);
        if let Some(demand) = benchmark.demand {
            self.fix_demand(pid, demand);
        }
        if let OwnerKind::Probe {
            noted: n, running, ..
        } = &mut self.owners[owner].kind
        {
            *n = Some(noted);
            *running = Some(pid);
        }
        self.count(pid, true);
        self.stats
            .processes
            .set(now, f64::from(self.user_processes));
        self.admit(pid, ctx);
    }

    /// The probe's benchmark `pid` has finished: its observation is taken,
    /// and the probe runs the next benchmark or sleeps to its next cycle.
    pub(super) fn benchmark_done(&mut self, pid: usize, owner: usize, ctx: &mut Context<Event>) {
        let now = ctx.now();
        let probe = self.sys.probe.as_ref().expect("a probe owner has a probe");
        let p = &self.procs[pid];
        let OwnerKind::Probe {
            next,
            noted,
            running,
        } = &mut self.owners[owner].kind
        else {
            unreachable!("only the probe runs benchmarks");
        };
        *running = None;
        let noted = noted.take().expect("the load was noted at the start");
        self.stats.observations.push(Observation {
            benchmark: self.sys.classes[p.class].name.clone(),
            start: p.started.as_secs_f64(),
            warmup: p.started < self.sys.settings.warmup,
            users: noted.users,
            processes: noted.processes,
            runnable: noted.runnable,
            free_memory: noted.free_memory,
            elapsed: probe.reported(now - p.started).as_secs_f64(),
            user: p.cpu_user.as_secs_f64(),
            system: p.cpu_system.as_secs_f64(),
        });
        *next += 1;
        let more = *next < probe.benchmarks.len();
        self.exit(pid, ctx);
        if more {
            self.run_benchmark(owner, ctx);
        } else {
            let sleep = probe.sleep.sample_time(&mut self.owners[owner].rngs.think);
            let at = probe.next_start(now + sleep);
            let _ = ctx.schedule_at(
                at,
                Event::ProbeCycle {
                    owner: event_index(owner),
                },
            );
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
        self.private_memory(pid)
    }
}
