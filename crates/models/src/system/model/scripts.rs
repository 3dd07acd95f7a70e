//! Shell scripts: a command whose class `runs` programs in turn. Its
//! process runs a cycle of its own class (the shell reading a line and
//! forking), forks and execs the next program and sleeps in `wait` until
//! that program exits; after the last it runs one more cycle and exits.
//! Each program is a process of its own class, loaded as any command is,
//! and may itself be a script (V7's `man` is a script run by a script).
//!
//! A program's processor time is added to its script's children's times
//! when it exits, as `time` reports a command's (V7 `exit` adds the
//! child's times to the parent's `u_cutime`, `u_cstime`); a script's
//! response runs from its start to its own exit.

use super::{Context, Event, Program, SimTime, State, SystemModel, scheduler};

/// A process's place in a script, kept in the scripts' own table: the
/// script that forked it and waits for it, how many of its own class's
/// programs it has forked, and the processor time they ran.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ScriptLink {
    /// The script that forked it and waits for it, if it is one of a
    /// script's programs.
    parent: Option<usize>,
    /// The programs of its class's `runs` it has forked so far.
    step: usize,
    /// Processor time its programs (and theirs) used, in user mode and in
    /// the kernel, added as each exits (`time` reports a command's
    /// children's times).
    pub(super) children_cpu: (SimTime, SimTime),
}

impl SystemModel<'_> {
    /// Forks and execs `program` for `owner`: a new process of the
    /// program's class with its demand, counted in "user processes" or
    /// not, and started at its user priority (a forked child has not
    /// slept).
    pub(super) fn start_program(
        &mut self,
        owner: usize,
        program: Program,
        counted: bool,
        ctx: &mut Context<Event>,
    ) -> usize {
        let now = ctx.now();
        let pid = self.spawn(program.class, owner, now);
        if let Some(demand) = program.demand {
            self.fix_demand(pid, demand);
        }
        self.count(pid, counted);
        self.stats
            .processes
            .set(now, f64::from(self.user_processes));
        self.admit(pid, ctx);
        pid
    }

    /// Moves a script on when `pid` has had its cycle's processor time:
    /// a script with programs left forks the next and waits; a script's
    /// program exits and wakes its script. Returns false when `pid` is
    /// neither, or a script that has run all its programs.
    pub(super) fn script_step(&mut self, pid: usize, ctx: &mut Context<Event>) -> bool {
        let now = ctx.now();
        let p = &self.procs[pid];
        let link = self.scripts[pid];
        let runs = &self.sys.classes[p.class].runs;
        if let Some(&program) = runs.get(link.step) {
            self.scripts[pid].step += 1;
            self.release_eligibility(pid, ctx);
            self.recount(pid, now, |p| p.state = State::Sleeping);
            let (owner, counted) = (self.procs[pid].owner, self.procs[pid].counted);
            let child = self.start_program(owner, program, counted, ctx);
            self.scripts[child].parent = Some(pid);
            // Asleep in `wait`, the script is the swapper's to push out.
            self.swapper(ctx);
            return true;
        }
        let Some(parent) = link.parent else {
            return false;
        };
        let (user, system) = link.children_cpu;
        let (user, system, faults) = (user + p.cpu_user, system + p.cpu_system, p.faults);
        self.release_eligibility(pid, ctx);
        self.exit(pid, ctx);
        let children = &mut self.scripts[parent].children_cpu;
        children.0 += user;
        children.1 += system;
        let script = &self.procs[parent];
        let (started, faults) = (script.started, script.faults + faults);
        // The script returns from `wait`: a new cycle of its own, within
        // the same command.
        self.new_cycle(parent, now);
        let script = &mut self.procs[parent];
        script.started = started;
        script.faults = faults;
        self.sched[parent].woken = Some(scheduler::AFTER_WAIT);
        self.admit(parent, ctx);
        true
    }
}
