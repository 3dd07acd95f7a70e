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

//!
//! The scripts are a part: [`Scripts`] keeps each process's place in its
//! script, and a script's move pushes the [`Step`]s the core does for it.

use super::SimTime;
use super::memory::Processes;
use super::per_process::PerProcess;
use super::scheduler::AFTER_WAIT;
use super::work::{Cycle, Started, Step};

/// A process's place in a script, kept in the scripts' own table: the
/// script that forked it and waits for it, how many of its own class's
/// programs it has forked, and the processor time they ran.
#[derive(Clone, Copy, Debug, Default)]
struct ScriptLink {
    /// The script that forked it and waits for it, if it is one of a
    /// script's programs.
    parent: Option<usize>,
    /// The programs of its class's `runs` it has forked so far.
    step: usize,
    /// Processor time its programs (and theirs) used, in user mode and in
    /// the kernel, added as each exits (`time` reports a command's
    /// children's times).
    children_cpu: (SimTime, SimTime),
}

/// Each process's place in a script.
#[derive(Debug, Default)]
pub(super) struct Scripts {
    links: PerProcess<ScriptLink>,
}

impl Scripts {
    /// A new process, in no script yet.
    pub(super) fn enter(&mut self, pid: usize) {
        self.links.insert(pid, ScriptLink::default());
    }

    /// `script` has forked `child`, and waits for it.
    pub(super) fn forked(&mut self, script: usize, child: usize) {
        self.links[child].parent = Some(script);
    }

    /// The processor time `pid`'s programs have used, in user mode and in
    /// the kernel.
    pub(super) fn children_cpu(&self, pid: usize) -> (SimTime, SimTime) {
        self.links[pid].children_cpu
    }

    /// Moves a script on when `pid` has had its cycle's processor time:
    /// a script with programs left forks the next and waits; a script's
    /// program exits and wakes its script. Returns false (and pushes
    /// nothing) when `pid` is neither, or a script that has run all its
    /// programs.
    pub(super) fn step(
        &mut self,
        processes: &Processes,
        pid: usize,
        steps: &mut Vec<Step>,
    ) -> bool {
        let p = processes.get(pid).expect("a live process");
        let link = &mut self.links[pid];
        let runs = &processes.sys().classes[p.class].runs;
        if let Some(&program) = runs.get(link.step) {
            link.step += 1;
            steps.push(Step::Sleep { pid });
            steps.push(Step::Start {
                owner: p.owner,
                program,
                counted: p.counted,
                then: Started::Child { script: pid },
            });
            // Asleep in `wait`, the script is the swapper's to push out.
            steps.push(Step::Swapper);
            return true;
        }
        let Some(parent) = link.parent else {
            return false;
        };
        let (user, system) = link.children_cpu;
        let children = &mut self.links[parent].children_cpu;
        children.0 += user + p.cpu_user;
        children.1 += system + p.cpu_system;
        let script = processes
            .get(parent)
            .expect("a script waits for its program");
        steps.push(Step::Exit { pid });
        // The script returns from `wait`: a new cycle of its own, within
        // the same command.
        steps.push(Step::Wake {
            pid: parent,
            after: AFTER_WAIT,
            cycle: Cycle::Resumed {
                started: script.started,
                faults: script.faults + p.faults,
            },
        });
        true
    }
}
