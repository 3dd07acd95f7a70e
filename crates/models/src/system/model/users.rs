//! Users at terminals: logins and sessions, think times, commands typed
//! (waited for or left running) and forked by each user's shell, and
//! background processes between cycles.
//!
//! With `users.shell`, every user logged in has a shell process. It runs
//! a cycle of its class at login, then sleeps at the terminal. When the
//! user types a command, the shell wakes (it must be in memory to run: the
//! swapper may have pushed it out while it slept), runs a cycle of its
//! class (reading the line, fork, exec) and forks the command, then sleeps
//! again, waiting for the command or, for one left running, at the
//! terminal. A command's response runs from the typing to its exit.

use super::memory::Processes;
use super::probe::Used;
use super::{
    Context, Dist, Event, LONGEST_SAMPLE, Mix, Owner, OwnerKind, Population, ProcessCount,
    Residence, SimTime, State, Stream, Streams, SystemModel, event_index, scheduler,
};
use rand::RngExt;

/// A command typed, for the shell to fork and exec.
#[derive(Clone, Copy, Debug)]
pub(super) struct Typed {
    class: usize,
    detached: bool,
    at: SimTime,
}

/// Logins: how many users are logged in, how many have logged in so far,
/// and the streams of the login process.
#[derive(Debug)]
pub(super) struct Terminals {
    /// Users logged in now.
    pub(super) logged_in: u32,
    /// Logins so far; the k-th login's user draws from streams `user/k/..`.
    pub(super) logins: u64,
    /// When users log in.
    pub(super) login_rng: Stream,
    /// How long sessions last.
    pub(super) session_rng: Stream,
}

impl Terminals {
    pub(super) fn new(streams: &Streams) -> Terminals {
        Terminals {
            logged_in: 0,
            logins: 0,
            login_rng: streams.stream("users/login"),
            session_rng: streams.stream("users/session"),
        }
    }
}

/// The users' events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UserEvent {
    /// A user's think time ends.
    ThinkEnd {
        /// The user (an owner slot).
        owner: u32,
    },
    /// The login process: a user logs in (`arrives`) or the hourly rate
    /// changes.
    Login {
        /// Whether a user logs in now.
        arrives: bool,
    },
    /// A user's session ends.
    Logout {
        /// The user (an owner slot).
        owner: u32,
    },
}

impl SystemModel<'_> {
    /// Handles one of the users' events.
    pub(super) fn user_event(&mut self, event: UserEvent, ctx: &mut Context<Event>) {
        match event {
            UserEvent::ThinkEnd { owner } => self.think_end(owner as usize, ctx),
            UserEvent::Login { arrives } => self.login(arrives, ctx),
            UserEvent::Logout { owner } => self.logout(owner as usize, ctx),
        }
    }

    pub(super) fn log_in(
        &mut self,
        index: u64,
        session_end: Option<SimTime>,
        ctx: &mut Context<Event>,
    ) {
        let owner = self.owners.insert(Owner::new(
            OwnerKind::User {
                index,
                detached: 0,
                thinking: None,
                leaving: false,
                shell: None,
                typed: None,
            },
            &self.streams,
            &format!("user/{index}"),
        ));
        if let Some(end) = session_end {
            let _ = ctx.schedule_at(
                end,
                Event::Users(UserEvent::Logout {
                    owner: event_index(owner),
                }),
            );
        }
        self.terminals.logged_in += 1;
        self.stats
            .users
            .set(ctx.now(), f64::from(self.terminals.logged_in));
        if let Some(class) = self.sys.users.shell {
            // The login shell: exec'd at login, it starts up and then
            // sleeps at the terminal.
            let shell_owner = self.owners.insert(Owner::new(
                OwnerKind::Shell {
                    user: owner,
                    retiring: false,
                },
                &self.streams,
                &format!("user/{index}/shell"),
            ));
            let pid = self.spawn(class, shell_owner, ctx.now());
            self.count(pid, self.sys.users.processes == ProcessCount::All);
            self.stats
                .processes
                .set(ctx.now(), f64::from(self.user_processes));
            if let OwnerKind::User { shell, .. } = &mut self.owners[owner].kind {
                *shell = Some(pid);
            }
            self.admit(pid, ctx);
        }
        self.think(owner, ctx);
    }

    fn think(&mut self, owner: usize, ctx: &mut Context<Event>) {
        let t = self
            .sys
            .users
            .think
            .sample_time(&mut self.owners[owner].rngs.think);
        let key = ctx.schedule_in(
            t,
            Event::Users(UserEvent::ThinkEnd {
                owner: event_index(owner),
            }),
        );
        if let OwnerKind::User { thinking, .. } = &mut self.owners[owner].kind {
            *thinking = Some(key);
        }
    }

    /// A session ends: a thinking user leaves at once, one waiting for a
    /// command when it completes.
    pub(super) fn logout(&mut self, owner: usize, ctx: &mut Context<Event>) {
        let OwnerKind::User {
            thinking, leaving, ..
        } = &mut self.owners[owner].kind
        else {
            unreachable!("only users log out");
        };
        match thinking.take() {
            Some(key) => {
                ctx.cancel(key);
                self.leave(owner, ctx);
            }
            None => *leaving = true,
        }
    }

    fn leave(&mut self, owner: usize, ctx: &mut Context<Event>) {
        let OwnerKind::User { shell, .. } = self.owners.remove(owner).kind else {
            unreachable!("only users leave");
        };
        self.terminals.logged_in -= 1;
        self.stats
            .users
            .set(ctx.now(), f64::from(self.terminals.logged_in));
        if let Some(shell) = shell {
            let shell_owner = self.procs[shell].owner;
            if let OwnerKind::Shell { retiring, .. } = &mut self.owners[shell_owner].kind {
                *retiring = true;
            }
            self.retire_shell(shell, ctx);
        }
    }

    /// Whether `pid` is the shell of a user who has logged out.
    pub(super) fn retiring(&self, pid: usize) -> bool {
        matches!(
            self.owners[self.procs[pid].owner].kind,
            OwnerKind::Shell { retiring: true, .. }
        )
    }

    /// The shell `pid` of a user who has logged out exits if it is asleep
    /// in memory or swapped out; otherwise it exits when its cycle ends or
    /// its swap-out completes.
    pub(super) fn retire_shell(&mut self, pid: usize, ctx: &mut Context<Event>) {
        let p = &self.procs[pid];
        let settled = matches!(p.residence, Residence::In | Residence::Out);
        if p.state == State::Sleeping && settled {
            let owner = p.owner;
            self.exit(pid, ctx);
            self.owners.remove(owner);
        }
    }

    pub(super) fn login(&mut self, arrives: bool, ctx: &mut Context<Event>) {
        let Population::Sessions(sessions) = &self.sys.users.population else {
            unreachable!("logins only with a login profile");
        };
        let now = ctx.now();
        if arrives {
            if self.terminals.logged_in < sessions.terminals {
                let length = sessions
                    .session
                    .sample_time(&mut self.terminals.session_rng);
                self.terminals.logins += 1;
                self.log_in(self.terminals.logins, Some(now + length), ctx);
            } else {
                self.stats.counters.logins_refused += 1;
            }
        }
        let rate = sessions.rate_at(now);
        let next_hour = sessions.next_hour(now);
        if rate > 0.0 {
            let gap: f64 = Dist::exponential(1.0 / rate)
                .expect("a positive rate")
                .sample(&mut self.terminals.login_rng);
            let at = now + SimTime::from_secs_f64(gap.min(LONGEST_SAMPLE));
            if at < next_hour {
                let _ = ctx.schedule_at(at, Event::Users(UserEvent::Login { arrives: true }));
                return;
            }
        }
        // No login before the rate changes: by memorylessness, draw again
        // at the start of the next hour.
        let _ = ctx.schedule_at(next_hour, Event::Users(UserEvent::Login { arrives: false }));
    }

    pub(super) fn think_end(&mut self, owner: usize, ctx: &mut Context<Event>) {
        let now = ctx.now();
        let OwnerKind::User { thinking, .. } = &mut self.owners[owner].kind else {
            unreachable!("only users think");
        };
        *thinking = None;
        let command = self.choose_command(owner);
        let class = command.class;
        let rng = &mut self.owners[owner].rngs.work;
        let detached = match command.detached {
            d if d <= 0.0 => false,
            d if d >= 1.0 => true,
            d => rng.random::<f64>() < d,
        };
        if self
            .memory
            .never_fits(self.sys, self.sys.classes[class].size)
        {
            let stats = if detached {
                &mut self.stats.detached[class]
            } else {
                &mut self.stats.classes[class]
            };
            stats.rejected += 1;
            self.think(owner, ctx);
            return;
        }
        let typed = Typed {
            class,
            detached,
            at: now,
        };
        let OwnerKind::User {
            shell, typed: t, ..
        } = &mut self.owners[owner].kind
        else {
            unreachable!("only users type commands");
        };
        match *shell {
            Some(shell) => {
                *t = Some(typed);
                // A shell still starting up forks the command when done.
                if self.procs[shell].state == State::Sleeping {
                    self.new_cycle(shell, now);
                    self.sched[shell].woken = Some(scheduler::AFTER_TERMINAL);
                    self.admit(shell, ctx);
                }
            }
            None => self.fork_exec(owner, typed, ctx),
        }
    }

    /// Forks and execs the command `typed` by the user `owner`.
    fn fork_exec(&mut self, owner: usize, typed: Typed, ctx: &mut Context<Event>) {
        let now = ctx.now();
        let runner = if typed.detached {
            let OwnerKind::User {
                index, detached: n, ..
            } = &mut self.owners[owner].kind
            else {
                unreachable!("only users type commands");
            };
            *n += 1;
            let prefix = format!("user/{index}/detached/{n}");
            self.owners
                .insert(Owner::new(OwnerKind::Detached, &self.streams, &prefix))
        } else {
            owner
        };
        let pid = self.spawn(typed.class, runner, now);
        self.procs[pid].started = typed.at;
        self.sched[pid].woken = Some(scheduler::AFTER_TERMINAL);
        self.count(pid, true);
        self.stats
            .processes
            .set(now, f64::from(self.user_processes));
        self.admit(pid, ctx);
        if typed.detached {
            self.think(owner, ctx);
        }
    }

    fn choose_command(&mut self, owner: usize) -> Mix {
        let mix = &self.sys.users.mix;
        if mix.len() == 1 {
            return mix[0];
        }
        let total: f64 = mix.iter().map(|m| m.weight).sum();
        let mut u = self.owners[owner].rngs.work.random::<f64>() * total;
        for m in mix {
            if u < m.weight {
                return *m;
            }
            u -= m.weight;
        }
        *mix.iter()
            .rev()
            .find(|m| m.weight > 0.0)
            .expect("validation: a weight > 0")
    }

    /// A command (or background or shell cycle) has had all its processor
    /// time.
    pub(super) fn cycle_done(&mut self, pid: usize, ctx: &mut Context<Event>) {
        let processes = Processes::of(&self.procs, self.sys, &self.cpus.running);
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
            OwnerKind::Shell { .. } | OwnerKind::Probe => None,
        };
        if let Some(stats) = stats {
            stats.responses.record(now - started);
            stats.faults.add(faults as f64);
        }
        self.release_eligibility(pid, ctx);
        match self.owners[owner].kind {
            OwnerKind::Probe => {
                let (children_user, children_system) = self.scripts.children_cpu(pid);
                let p = &self.procs[pid];
                let used = Used {
                    started: p.started,
                    user: p.cpu_user + children_user,
                    system: p.cpu_system + children_system,
                };
                if let Some(probe) = &mut self.probe {
                    probe.done(pid, used, now, &mut self.steps);
                }
                self.run_steps(ctx);
            }
            OwnerKind::User { leaving, .. } => {
                self.exit(pid, ctx);
                if leaving {
                    self.leave(owner, ctx);
                } else {
                    self.think(owner, ctx);
                }
            }
            OwnerKind::Detached => {
                self.exit(pid, ctx);
                self.owners.remove(owner);
            }
            OwnerKind::Background { entry } => {
                self.recount(pid, now, |p| p.state = State::Sleeping);
                let sleep = self.sys.background[entry]
                    .sleep
                    .sample_time(&mut self.owners[owner].rngs.think);
                let _ = ctx.schedule_in(
                    sleep,
                    Event::Wake {
                        pid: event_index(pid),
                    },
                );
                // A sleeper is the swapper's first choice to push out.
                self.swapper(ctx);
            }
            OwnerKind::Shell { user, retiring } => {
                // The shell sleeps: waiting for the command it forks, or at
                // the terminal.
                self.recount(pid, now, |p| p.state = State::Sleeping);
                if retiring {
                    self.retire_shell(pid, ctx);
                    return;
                }
                let OwnerKind::User { typed, .. } = &mut self.owners[user].kind else {
                    unreachable!("a shell belongs to a user");
                };
                if let Some(typed) = typed.take() {
                    self.fork_exec(user, typed, ctx);
                }
                self.swapper(ctx);
            }
        }
    }

    pub(super) fn wake(&mut self, pid: usize, ctx: &mut Context<Event>) {
        self.new_cycle(pid, ctx.now());
        self.sched[pid].woken = Some(scheduler::AFTER_SLEEP);
        self.admit(pid, ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::model::frames::tests::with_process_at;

    /// Logins all day; the scenario's other settings hardly matter.
    const LOGINS: &str = r#"
        name = "logins"
        [run]
        end_time = "10s"
        [system]
        quantum = "100ms"
        [memory]
        policy = "swapping"
        size = "64KiB"
        page = "1KiB"
        device = "disk"
        [[device]]
        name = "disk"
        rate = "1MB/s"
        [users]
        terminals = 4
        think = { exp = { mean = "1s" } }
        commands = [{ class = "job", weight = 1 }]
        login = { per_hour = [60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60], session = { exp = { mean = "1h" } } }
        [[class]]
        name = "job"
        cpu = { exp = { mean = "1s" } }
        size = "8KiB"
    "#;

    #[test]
    fn each_login_draws_from_streams_of_its_own() {
        with_process_at(LOGINS, SimTime::ZERO, |model, ctx, _| {
            for _ in 0..3 {
                model.login(true, ctx);
            }
            let firsts: std::collections::BTreeMap<u64, u64> = model
                .owners
                .iter_mut()
                .filter_map(|(_, o)| match o.kind {
                    OwnerKind::User { index, .. } => Some((index, o.rngs.think.random::<u64>())),
                    _ => None,
                })
                .collect();
            // Numbered 1, 2, 3, and so named: no two draw the same.
            assert_eq!(firsts.keys().copied().collect::<Vec<_>>(), [1, 2, 3]);
            let draws: std::collections::BTreeSet<u64> = firsts.values().copied().collect();
            assert_eq!(draws.len(), 3, "three users, three think streams");
        });
    }
}
