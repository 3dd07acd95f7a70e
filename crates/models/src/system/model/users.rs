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
//!
//! The users are a part: [`Users`] keeps the login process and decides
//! each user's moves from the owners' table (a user, its shell, the
//! commands it left running, the background processes, each with its
//! streams) and the processes, read only; what the core must then do it
//! pushes as [`Step`]s.

use super::scheduler::{AFTER_SLEEP, AFTER_TERMINAL};
use super::work::{Cycle, Started, Step};
use super::{
    Dist, Event, LONGEST_SAMPLE, Mix, Owner, OwnerKind, Population, ProcessCount, ProcessTable,
    Program, Residence, SimTime, Slab, State, Stream, Streams, System, event_index,
};
use rand::RngExt;

/// A command typed, for the shell to fork and exec.
#[derive(Clone, Copy, Debug)]
pub(super) struct Typed {
    class: usize,
    detached: bool,
    at: SimTime,
}

/// The users: the login process, how many are logged in, and what
/// each one does.
#[derive(Debug)]
pub(super) struct Users<'a> {
    sys: &'a System,
    streams: Streams,
    /// Users logged in now.
    pub(super) logged_in: u32,
    /// Logins so far; the k-th login's user draws from streams `user/k/..`.
    logins: u64,
    /// When users log in.
    login_rng: Stream,
    /// How long sessions last.
    session_rng: Stream,
    /// Whether each class's image could never be in memory: its commands
    /// are refused as typed.
    never_fits: Vec<bool>,
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

impl<'a> Users<'a> {
    /// The users of `sys`, with the streams of one replication; a class
    /// whose image `never_fits` is refused when typed.
    pub(super) fn new(
        sys: &'a System,
        streams: &Streams,
        never_fits: impl Fn(u64) -> bool,
    ) -> Users<'a> {
        Users {
            sys,
            streams: *streams,
            logged_in: 0,
            logins: 0,
            login_rng: streams.stream("users/login"),
            session_rng: streams.stream("users/session"),
            never_fits: sys.classes.iter().map(|c| never_fits(c.size)).collect(),
        }
    }

    /// Handles one of the users' events at `now`.
    pub(super) fn event(
        &mut self,
        event: UserEvent,
        owners: &mut Slab<Owner>,
        procs: &ProcessTable,
        now: SimTime,
        steps: &mut Vec<Step>,
    ) {
        match event {
            UserEvent::ThinkEnd { owner } => {
                self.think_end(owners, procs, owner as usize, now, steps);
            }
            UserEvent::Login { arrives } => self.login(owners, arrives, now, steps),
            UserEvent::Logout { owner } => self.logout(owners, procs, owner as usize, steps),
        }
    }

    /// User number `index` logs in, for a session to `session_end`: its
    /// shell starts (with `users.shell`) and it thinks.
    pub(super) fn log_in(
        &mut self,
        owners: &mut Slab<Owner>,
        index: u64,
        session_end: Option<SimTime>,
        steps: &mut Vec<Step>,
    ) {
        let owner = owners.insert(Owner::new(
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
            steps.push(Step::Schedule {
                at: end,
                event: Event::Users(UserEvent::Logout {
                    owner: event_index(owner),
                }),
            });
        }
        self.logged_in += 1;
        steps.push(Step::LoggedIn(self.logged_in));
        if let Some(class) = self.sys.users.shell {
            // The login shell: exec'd at login, it starts up and then
            // sleeps at the terminal.
            let shell_owner = owners.insert(Owner::new(
                OwnerKind::Shell {
                    user: owner,
                    retiring: false,
                },
                &self.streams,
                &format!("user/{index}/shell"),
            ));
            steps.push(Step::Start {
                owner: shell_owner,
                program: Program {
                    class,
                    demand: None,
                    runs: None,
                },
                counted: self.sys.users.processes == ProcessCount::All,
                typed: None,
                then: Started::Shell { user: owner },
            });
        }
        self.think(owners, owner, steps);
    }

    /// The user `user`'s shell is `pid`.
    pub(super) fn shell_started(owners: &mut Slab<Owner>, user: usize, pid: usize) {
        if let OwnerKind::User { shell, .. } = &mut owners[user].kind {
            *shell = Some(pid);
        }
    }

    /// The user `owner` thinks until the event `key`.
    pub(super) fn thinking(owners: &mut Slab<Owner>, owner: usize, key: tpsim_core::EventKey) {
        if let OwnerKind::User { thinking, .. } = &mut owners[owner].kind {
            *thinking = Some(key);
        }
    }

    /// The user `owner` thinks.
    fn think(&self, owners: &mut Slab<Owner>, owner: usize, steps: &mut Vec<Step>) {
        let after = self
            .sys
            .users
            .think
            .sample_time(&mut owners[owner].rngs.think);
        steps.push(Step::Think { owner, after });
    }

    /// A session ends: a thinking user leaves at once, one waiting for a
    /// command when it completes.
    fn logout(
        &mut self,
        owners: &mut Slab<Owner>,
        procs: &ProcessTable,
        owner: usize,
        steps: &mut Vec<Step>,
    ) {
        let OwnerKind::User {
            thinking, leaving, ..
        } = &mut owners[owner].kind
        else {
            unreachable!("only users log out");
        };
        match thinking.take() {
            Some(key) => {
                steps.push(Step::Cancel(key));
                self.leave(owners, procs, owner, steps);
            }
            None => *leaving = true,
        }
    }

    /// The user `owner` goes, and its shell with it.
    fn leave(
        &mut self,
        owners: &mut Slab<Owner>,
        procs: &ProcessTable,
        owner: usize,
        steps: &mut Vec<Step>,
    ) {
        let OwnerKind::User { shell, .. } = owners[owner].kind else {
            unreachable!("only users leave");
        };
        steps.push(Step::Forget { owner });
        self.logged_in -= 1;
        steps.push(Step::LoggedIn(self.logged_in));
        if let Some(shell) = shell {
            let shell_owner = procs[shell].owner;
            if let OwnerKind::Shell { retiring, .. } = &mut owners[shell_owner].kind {
                *retiring = true;
            }
            // Whether it can go is seen when the steps before (the
            // command's exit, which may start its swap-out) are done.
            steps.push(Step::Retire { pid: shell });
        }
    }

    /// The shell `pid` of a user who has logged out exits if it is asleep
    /// in memory or swapped out; otherwise it exits when its cycle ends or
    /// its swap-out completes. Nothing for any other process.
    pub(super) fn retire_shell(
        owners: &Slab<Owner>,
        procs: &ProcessTable,
        pid: usize,
        steps: &mut Vec<Step>,
    ) {
        let p = &procs[pid];
        let retiring = matches!(
            owners[p.owner].kind,
            OwnerKind::Shell { retiring: true, .. }
        );
        let settled = matches!(p.residence, Residence::In | Residence::Out);
        if retiring && procs.state(pid) == State::Sleeping && settled {
            steps.push(Step::Exit { pid });
            steps.push(Step::Forget { owner: p.owner });
        }
    }

    /// The login process: a user logs in now if `arrives` (refused when
    /// every terminal is taken), and the next login is drawn at the rate
    /// of the hour.
    fn login(
        &mut self,
        owners: &mut Slab<Owner>,
        arrives: bool,
        now: SimTime,
        steps: &mut Vec<Step>,
    ) {
        let Population::Sessions(sessions) = &self.sys.users.population else {
            unreachable!("logins only with a login profile");
        };
        if arrives {
            if self.logged_in < sessions.terminals {
                let length = sessions.session.sample_time(&mut self.session_rng);
                self.logins += 1;
                self.log_in(owners, self.logins, Some(now + length), steps);
            } else {
                steps.push(Step::LoginRefused);
            }
        }
        let rate = sessions.rate_at(now);
        let next_hour = sessions.next_hour(now);
        if rate > 0.0 {
            let gap: f64 = Dist::exponential(1.0 / rate)
                .expect("a positive rate")
                .sample(&mut self.login_rng);
            let at = now + SimTime::from_secs_f64(gap.min(LONGEST_SAMPLE));
            if at < next_hour {
                steps.push(Step::Schedule {
                    at,
                    event: Event::Users(UserEvent::Login { arrives: true }),
                });
                return;
            }
        }
        // No login before the rate changes: by memorylessness, draw again
        // at the start of the next hour.
        steps.push(Step::Schedule {
            at: next_hour,
            event: Event::Users(UserEvent::Login { arrives: false }),
        });
    }

    /// The user `owner` types a command: the shell (woken if asleep at
    /// the terminal) forks it, or it is forked at once without shells.
    fn think_end(
        &mut self,
        owners: &mut Slab<Owner>,
        procs: &ProcessTable,
        owner: usize,
        now: SimTime,
        steps: &mut Vec<Step>,
    ) {
        let OwnerKind::User { thinking, .. } = &mut owners[owner].kind else {
            unreachable!("only users think");
        };
        *thinking = None;
        let command = self.choose_command(&mut owners[owner].rngs.work);
        let class = command.class;
        let rng = &mut owners[owner].rngs.work;
        let detached = match command.detached {
            d if d <= 0.0 => false,
            d if d >= 1.0 => true,
            d => rng.random::<f64>() < d,
        };
        if self.never_fits[class] {
            steps.push(Step::Rejected { class, detached });
            self.think(owners, owner, steps);
            return;
        }
        let typed = Typed {
            class,
            detached,
            at: now,
        };
        let OwnerKind::User {
            shell, typed: t, ..
        } = &mut owners[owner].kind
        else {
            unreachable!("only users type commands");
        };
        match *shell {
            Some(shell) => {
                *t = Some(typed);
                // A shell still starting up forks the command when done.
                if procs.state(shell) == State::Sleeping {
                    steps.push(Step::Wake {
                        pid: shell,
                        after: AFTER_TERMINAL,
                        cycle: Cycle::New,
                    });
                }
            }
            None => self.fork_exec(owners, owner, typed, steps),
        }
    }

    /// Forks and execs the command `typed` by the user `owner`.
    fn fork_exec(
        &self,
        owners: &mut Slab<Owner>,
        owner: usize,
        typed: Typed,
        steps: &mut Vec<Step>,
    ) {
        let runner = if typed.detached {
            let OwnerKind::User {
                index, detached: n, ..
            } = &mut owners[owner].kind
            else {
                unreachable!("only users type commands");
            };
            *n += 1;
            let prefix = format!("user/{index}/detached/{n}");
            owners.insert(Owner::new(OwnerKind::Detached, &self.streams, &prefix))
        } else {
            owner
        };
        steps.push(Step::Start {
            owner: runner,
            program: Program {
                class: typed.class,
                demand: None,
                runs: None,
            },
            counted: true,
            typed: Some(typed.at),
            then: Started::Nobody,
        });
        if typed.detached {
            self.think(owners, owner, steps);
        }
    }

    /// The command the user chooses by the mix's weights.
    fn choose_command(&self, rng: &mut Stream) -> Mix {
        let mix = &self.sys.users.mix;
        if mix.len() == 1 {
            return mix[0];
        }
        let total: f64 = mix.iter().map(|m| m.weight).sum();
        let mut u = rng.random::<f64>() * total;
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

    /// A command, a background cycle or a shell's cycle has had all its
    /// processor time: the command exits and its user thinks (or leaves);
    /// a background process sleeps; a shell sleeps and forks the command
    /// typed.
    pub(super) fn cycle_done(
        &mut self,
        owners: &mut Slab<Owner>,
        procs: &ProcessTable,
        pid: usize,
        now: SimTime,
        steps: &mut Vec<Step>,
    ) {
        let owner = procs[pid].owner;
        match owners[owner].kind {
            OwnerKind::Probe | OwnerKind::RampWorker => {
                unreachable!("the probe's processes are the probe's")
            }
            OwnerKind::User { leaving, .. } => {
                steps.push(Step::Exit { pid });
                if leaving {
                    self.leave(owners, procs, owner, steps);
                } else {
                    self.think(owners, owner, steps);
                }
            }
            OwnerKind::Detached => {
                steps.push(Step::Exit { pid });
                steps.push(Step::Forget { owner });
            }
            OwnerKind::Background { entry } => {
                steps.push(Step::Sleep { pid });
                let sleep = self.sys.background[entry]
                    .sleep
                    .sample_time(&mut owners[owner].rngs.think);
                steps.push(Step::Schedule {
                    at: now + sleep,
                    event: Event::Wake {
                        pid: event_index(pid),
                    },
                });
                // A sleeper is the swapper's first choice to push out.
                steps.push(Step::Swapper);
            }
            OwnerKind::Shell { user, retiring } => {
                // The shell sleeps: waiting for the command it forks, or at
                // the terminal.
                steps.push(Step::Sleep { pid });
                if retiring {
                    steps.push(Step::Retire { pid });
                    return;
                }
                let OwnerKind::User { typed, .. } = &mut owners[user].kind else {
                    unreachable!("a shell belongs to a user");
                };
                if let Some(typed) = typed.take() {
                    self.fork_exec(owners, user, typed, steps);
                }
                steps.push(Step::Swapper);
            }
        }
    }
}

/// A background process wakes from its sleep to a new cycle.
pub(super) fn wake(pid: usize) -> Step {
    Step::Wake {
        pid,
        after: AFTER_SLEEP,
        cycle: Cycle::New,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::model::frames::tests::with_process_at;
    use crate::system::model::work::{shown, swapped_system};

    /// Logins all day; the scenario's other settings hardly matter.
    fn logins() -> String {
        swapped_system("logins", "10s", "100ms", "64KiB")
            + r#"
        [users]
        terminals = 4
        think = { exp = { mean = "1s" } }
        commands = [{ class = "job", weight = 1 }]
        login = { per_hour = [60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60], session = { exp = { mean = "1h" } } }
        [[class]]
        name = "job"
        cpu = { exp = { mean = "1s" } }
        size = "8KiB"
    "#
    }

    #[test]
    fn each_login_draws_from_streams_of_its_own() {
        with_process_at(&logins(), SimTime::ZERO, |model, ctx, _| {
            for _ in 0..3 {
                let login = UserEvent::Login { arrives: true };
                let now = ctx.now();
                let (owners, procs) = (&mut model.owners, &model.procs);
                model
                    .users
                    .event(login, owners, procs, now, &mut model.steps);
                model.run_steps(ctx);
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

    /// One user with a shell, who thinks for hours; its only command's
    /// image is larger than memory.
    fn shell() -> String {
        swapped_system("shell", "10s", "100ms", "64KiB")
            + r#"
        [users]
        terminals = 1
        shell = "sh"
        think = { exp = { mean = "100h" } }
        commands = [{ class = "huge", weight = 1 }]
        [[class]]
        name = "sh"
        cpu = { exp = { mean = "10ms" } }
        size = "8KiB"
        [[class]]
        name = "huge"
        cpu = { exp = { mean = "1s" } }
        size = "1MiB"
    "#
    }

    #[test]
    fn a_command_too_large_is_refused_and_a_user_logging_out_takes_the_shell_along_once_it_sleeps()
    {
        with_process_at(&shell(), SimTime::from_secs(1), |model, ctx, _| {
            model
                .users
                .log_in(&mut model.owners, 0, None, &mut model.steps);
            model.run_steps(ctx);
            let (user, thinking, shell) = model
                .owners
                .iter()
                .find_map(|(o, owner)| match owner.kind {
                    OwnerKind::User {
                        thinking, shell, ..
                    } => Some((o, thinking, shell)),
                    _ => None,
                })
                .expect("one user");
            assert!(thinking.is_some(), "thinking at login");
            let shell = shell.expect("a shell");
            let shell_owner = model.procs[shell].owner;
            assert_ne!(model.procs.state(shell), State::Sleeping, "starting up");
            let now = ctx.now();
            let event = |model: &mut crate::system::model::SystemModel, event: UserEvent| {
                let mut steps = Vec::new();
                let (owners, procs) = (&mut model.owners, &model.procs);
                model.users.event(event, owners, procs, now, &mut steps);
                steps
            };

            let typed = event(model, UserEvent::ThinkEnd { owner: user as u32 });
            assert_eq!(
                shown(&typed[..1]),
                [format!(
                    "{:?}",
                    Step::Rejected {
                        class: 1,
                        detached: false
                    }
                )]
            );
            assert!(
                matches!(typed[1..], [Step::Think { owner, .. }] if owner == user),
                "then it thinks again: {typed:?}"
            );

            model.steps.extend(typed);
            model.run_steps(ctx);
            let OwnerKind::User {
                thinking: Some(key),
                ..
            } = model.owners[user].kind
            else {
                panic!("thinking again");
            };
            // Logged out while thinking: the user goes at once; its shell
            // when it is asleep and settled, as seen once the steps before
            // are done.
            let gone = event(model, UserEvent::Logout { owner: user as u32 });
            assert_eq!(
                shown(&gone),
                shown(&[
                    Step::Cancel(key),
                    Step::Forget { owner: user },
                    Step::LoggedIn(0),
                    Step::Retire { pid: shell },
                ])
            );
            let mut steps = Vec::new();
            let (owners, procs) = (&mut model.owners, &model.procs);
            model
                .users
                .cycle_done(owners, procs, shell, now, &mut steps);
            assert_eq!(
                shown(&steps),
                shown(&[Step::Sleep { pid: shell }, Step::Retire { pid: shell }])
            );
            // Asleep: it goes in memory or out, not while it moves.
            model.procs.set_state(shell, State::Sleeping);
            for (residence, goes) in [
                (Residence::In, true),
                (Residence::Out, true),
                (Residence::MovingOut, false),
                (Residence::MovingIn, false),
            ] {
                model.procs[shell].residence = residence;
                let mut steps = Vec::new();
                Users::retire_shell(&model.owners, &model.procs, shell, &mut steps);
                let exits = shown(&[
                    Step::Exit { pid: shell },
                    Step::Forget { owner: shell_owner },
                ]);
                assert_eq!(
                    shown(&steps),
                    if goes { exits } else { Vec::new() },
                    "{residence:?}"
                );
            }
        });
    }
}
