//! Shell scripts: a command whose class `runs` programs in turn. Its
//! process runs a cycle of its own class (the shell reading a line and
//! forking), forks and execs the next program and sleeps in `wait` until
//! that program exits; after the last it runs one more cycle and exits.
//! Each program is a process of its own class, loaded as any command is,
//! and may itself be a script (V7's `man` is a script run by a script).
//! A program may be given runs of its own, in place of its class's: the
//! class's program (its image and text) run as a script of those, as
//! `sh -c COMMAND` is the shell running the command it was given.
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
    /// The programs of its `runs` it has forked so far.
    step: usize,
    /// The programs it runs, if not its class's: a list of
    /// `System::run_lists`.
    runs: Option<usize>,
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

    /// `pid` was started as a program that runs the programs of `runs`,
    /// if given, in place of its class's.
    pub(super) fn runs(&mut self, pid: usize, runs: Option<usize>) {
        self.links[pid].runs = runs;
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
        let runs = processes.sys().runs(p.class, link.runs);
        if let Some(&program) = runs.get(link.step) {
            link.step += 1;
            steps.push(Step::Sleep { pid });
            steps.push(Step::Start {
                owner: p.owner,
                program,
                counted: p.counted,
                typed: None,
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
        children.0 += user + processes.cpu_user(pid);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::Program;
    use crate::system::model::frames::tests::with_process_at;
    use crate::system::model::work::{shown, swapped_system};

    /// A script (class 0) that runs `prog` twice, the second time for a
    /// fixed 2 s.
    fn script() -> String {
        swapped_system("scripts", "10s", "100ms", "256KiB")
            + r#"
        [users]
        terminals = 1
        think = { exp = { mean = "100h" } }
        commands = [{ class = "script", weight = 1 }]
        [[class]]
        name = "script"
        cpu = { exp = { mean = "10ms" } }
        size = "8KiB"
        runs = ["prog", { class = "prog", cpu = "2s" }]
        [[class]]
        name = "prog"
        cpu = { exp = { mean = "1s" } }
        size = "8KiB"
    "#
    }

    fn ms(n: u64) -> SimTime {
        SimTime::from_nanos(n * 1_000_000)
    }

    #[test]
    fn a_script_forks_each_program_in_turn_and_resumes_its_command_when_each_exits() {
        with_process_at(&script(), ms(100), |model, _, script| {
            let owner = model.procs[script].owner;
            let mut steps = Vec::new();
            let mut step = |model: &mut crate::system::model::SystemModel, pid: usize| {
                steps.clear();
                let processes = Processes::of(&model.procs, model.sys, &model.cpus);
                let moved = model.scripts.step(&processes, pid, &mut steps);
                (moved, shown(&steps))
            };
            let fork = |program: Program| {
                shown(&[
                    Step::Sleep { pid: script },
                    Step::Start {
                        owner,
                        program,
                        counted: true,
                        typed: None,
                        then: Started::Child { script },
                    },
                    Step::Swapper,
                ])
            };
            let first = Program {
                class: 1,
                demand: None,
                runs: None,
            };
            assert_eq!(step(model, script), (true, fork(first)));

            // Its program ran 300 ms in user mode, 20 ms in the kernel, and
            // faulted twice; it had itself a program of its own.
            let child = model.spawn(1, owner, true, ms(200));
            model.scripts.forked(script, child);
            let grandchild = model.spawn(1, owner, true, ms(250));
            model.scripts.forked(child, grandchild);
            model.procs.set_cpu_user(grandchild, ms(40));
            model.procs[grandchild].cpu_system = ms(4);
            assert!(step(model, grandchild).0);
            assert_eq!(model.scripts.children_cpu(child), (ms(40), ms(4)));
            model.procs.set_cpu_user(child, ms(300));
            model.procs[child].cpu_system = ms(20);
            model.procs[child].faults = 2;
            model.procs[script].faults = 5;
            model.procs[script].started = ms(100);
            let wake = Step::Wake {
                pid: script,
                after: AFTER_WAIT,
                cycle: Cycle::Resumed {
                    started: ms(100),
                    faults: 7,
                },
            };
            assert_eq!(
                step(model, child),
                (true, shown(&[Step::Exit { pid: child }, wake]))
            );
            // `time` would report its programs' times, theirs included.
            assert_eq!(model.scripts.children_cpu(script), (ms(340), ms(24)));

            let second = Program {
                class: 1,
                demand: Some(SimTime::from_secs(2)),
                runs: None,
            };
            assert_eq!(step(model, script), (true, fork(second)));
            // Both run: the script's last cycle ends its command, which is
            // not a script's step.
            assert_eq!(step(model, script), (false, Vec::new()));
        });
    }
}
