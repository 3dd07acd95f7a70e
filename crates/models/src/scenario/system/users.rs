//! `[users]` and `[[background]]`: terminal users, their sessions and
//! the background processes, mirrored and validated.

use crate::scenario::{DistSpec, Validator};
use crate::system::{Background, Mix, Population, ProcessCount, Sessions, Users};
use crate::units::{Figure, Seconds};
use serde::Deserialize;

use super::classes::{CommandClassFile, class_index};
use super::fraction;

/// One entry of the command mix.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct MixFile {
    /// The class.
    pub class: String,
    /// Its relative weight.
    pub weight: f64,
    /// The fraction run in the background (`cmd &`), default 0.
    #[serde(default)]
    pub background: Option<f64>,
}

/// `[users.login]`: logins over the day.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct LoginFile {
    /// Logins per hour, for each of the 24 hours of the day.
    pub per_hour: Vec<f64>,
    /// How long a session lasts.
    pub session: DistSpec,
    /// The time of day at simulated time zero (default "0h").
    #[serde(default)]
    pub start: Option<Seconds>,
}

/// `[users]`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct UsersFile {
    /// Terminals: the fixed number of users, or with `login` the most that
    /// can be logged in at once.
    pub terminals: u32,
    /// Think time.
    pub think: DistSpec,
    /// The command mix.
    pub commands: Vec<MixFile>,
    /// Logins over the day; without it, every terminal is in use all the
    /// time.
    #[serde(default)]
    pub login: Option<LoginFile>,
    /// The class of each user's shell (default: no shells).
    #[serde(default)]
    pub shell: Option<String>,
    /// What the "user processes" index counts: `"commands"` (default) or
    /// `"all"`.
    #[serde(default)]
    pub processes: Option<String>,
}

/// `[[background]]`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct BackgroundFile {
    /// The entry's name.
    pub name: String,
    /// The class of work of each cycle.
    pub class: String,
    /// How many processes (default 1).
    #[serde(default)]
    pub count: Option<u32>,
    /// Sleep between cycles.
    pub sleep: DistSpec,
}

/// The most terminals, or background processes of one entry, a system may
/// have: each holds streams and a process slot.
const MOST_PROCESSES: u64 = 1_000_000;

pub(super) fn users(
    v: &mut Validator,
    f: &UsersFile,
    classes: &[CommandClassFile],
) -> Option<Users> {
    if f.terminals == 0 {
        v.report("users.terminals", "must be at least 1");
    }
    v.population(
        "users.terminals",
        u64::from(f.terminals),
        MOST_PROCESSES,
        "terminals",
    );
    let think = v.dist(&f.think, "users.think");
    if f.commands.is_empty() {
        v.report("users.commands", "needs at least one { class, weight }");
    }
    let mix: Vec<_> = f
        .commands
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let class = class_index(v, classes, &m.class, &format!("users.commands[{i}].class"));
            if !(m.weight.is_finite() && m.weight >= 0.0) {
                v.report(
                    format!("users.commands[{i}].weight"),
                    format!("must be a number >= 0, got {}", Figure(m.weight)),
                );
            }
            let detached = fraction(v, m.background, &format!("users.commands[{i}].background"));
            Some(Mix {
                class: class?,
                weight: m.weight,
                detached: detached?,
            })
        })
        .collect();
    let total: f64 = f.commands.iter().map(|m| m.weight).sum();
    if !(f.commands.is_empty() || total.is_finite() && total > 0.0) {
        v.report("users.commands", "the weights must add up to more than 0");
    }
    let population = match &f.login {
        None => Some(Population::Fixed(f.terminals)),
        Some(login) => sessions(v, login, f.terminals).map(|s| Population::Sessions(Box::new(s))),
    };
    let shell = match &f.shell {
        Some(name) => Some(class_index(v, classes, name, "users.shell")?),
        None => None,
    };
    let processes = match f.processes.as_deref().unwrap_or("commands") {
        "commands" => Some(ProcessCount::Commands),
        "all" => Some(ProcessCount::All),
        other => {
            v.report(
                "users.processes",
                format!("unknown count \"{other}\": expected \"commands\" or \"all\""),
            );
            None
        }
    };
    Some(Users {
        population: population.filter(|_| f.terminals > 0)?,
        think: think?,
        mix: mix.into_iter().collect::<Option<_>>()?,
        shell,
        processes: processes?,
    })
}

/// The most logins an hour: one a nanosecond, the clock's tick.
const MOST_LOGINS_PER_HOUR: f64 = 3600.0 * 1e9;

fn sessions(v: &mut Validator, f: &LoginFile, terminals: u32) -> Option<Sessions> {
    let session = v.dist(&f.session, "users.login.session").filter(|s| {
        let some_length = s.mean() > 0.0;
        if !some_length {
            v.report(
                "users.login.session",
                "every session would have length 0, ending as it starts: give sessions a mean > 0",
            );
        }
        some_length
    });
    let mut per_hour = [0.0; 24];
    if f.per_hour.len() != 24 {
        v.report(
            "users.login.per_hour",
            format!(
                "needs 24 numbers, one per hour of the day, got {}",
                f.per_hour.len()
            ),
        );
        return None;
    }
    for (h, &rate) in f.per_hour.iter().enumerate() {
        if (0.0..=MOST_LOGINS_PER_HOUR).contains(&rate) {
            per_hour[h] = rate / 3600.0;
        } else if rate > MOST_LOGINS_PER_HOUR {
            // As for any arrival rate: a mean time between logins below
            // the clock's tick would make every gap 0.
            v.report(
                format!("users.login.per_hour[{h}]"),
                format!(
                    "must be at most {} logins an hour (a mean time between logins of at least the clock's tick of 1 ns), got {}",
                    Figure(MOST_LOGINS_PER_HOUR),
                    Figure(rate)
                ),
            );
        } else {
            v.report(
                format!("users.login.per_hour[{h}]"),
                format!("must be a number of logins >= 0, got {}", Figure(rate)),
            );
        }
    }
    if per_hour.iter().all(|&r| r == 0.0) {
        v.report("users.login.per_hour", "no hour has any logins");
    }
    let start = f.start.unwrap_or(Seconds(0.0)).0;
    if !(start.is_finite() && (0.0..86_400.0).contains(&start)) {
        v.report(
            "users.login.start",
            format!(
                "must be a time of day from 0h up to 24h, got {} s",
                Figure(start)
            ),
        );
        return None;
    }
    Some(Sessions {
        terminals,
        per_hour,
        start_hour: start / 3600.0,
        session: session?,
    })
}

pub(super) fn background(
    v: &mut Validator,
    f: &BackgroundFile,
    classes: &[CommandClassFile],
) -> Option<Background> {
    let key = format!("background[{}]", f.name);
    let class = class_index(v, classes, &f.class, &format!("{key}.class"));
    if classes.iter().any(|c| c.name == f.name) {
        v.report(
            format!("{key}.name"),
            format!(
                "\"{}\" already names a [[class]]; results list both, so give the background entry its own name",
                f.name
            ),
        );
    }
    let sleep = v.dist(&f.sleep, &format!("{key}.sleep"));
    let count = f.count.unwrap_or(1);
    if count == 0 {
        v.report(format!("{key}.count"), "must be at least 1");
    }
    v.population(
        &format!("{key}.count"),
        u64::from(count),
        MOST_PROCESSES,
        "processes",
    );
    Some(Background {
        name: f.name.clone(),
        class: class?,
        count: (count > 0).then_some(count)?,
        sleep: sleep?,
    })
}
