//! The queueing-network part of scenario reading: the mirror of the
//! `[[class]]` and `[[station]]` tables and their validation into a
//! [`Network`].

use super::{DistSpec, MOST_JOBS, RunSpec, ScenarioError, Validator};
use crate::network::{ClassKind, ClassSpec, Discipline, Network, Route, StationSpec, Target};
use crate::units::{Figure, Seconds};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use tpsim_core::SimTime;

/// Where a job goes: one target, or a probabilistic choice.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum RouteSpec {
    /// One station's name, or `"exit"`.
    One(String),
    /// Branches whose probabilities add up to 1.
    Branches(Vec<BranchSpec>),
}

impl<'de> Deserialize<'de> for RouteSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct RouteVisitor;
        impl<'de> serde::de::Visitor<'de> for RouteVisitor {
            type Value = RouteSpec;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a station name, \"exit\", or a list of branches like [{ to = \"disk\", p = 0.5 }, ...]")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RouteSpec, E> {
                Ok(RouteSpec::One(v.to_string()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                seq: A,
            ) -> Result<RouteSpec, A::Error> {
                Vec::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))
                    .map(RouteSpec::Branches)
            }
        }
        d.deserialize_any(RouteVisitor)
    }
}

/// One branch of a probabilistic route.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct BranchSpec {
    /// A station's name, or `"exit"`.
    pub to: String,
    /// The branch's probability.
    pub p: f64,
}

/// `[[class]]`: a class of jobs, open or closed.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct ClassFile {
    /// The class's name.
    pub name: String,
    /// Open class: time between arrivals.
    #[serde(default)]
    pub arrivals: Option<DistSpec>,
    /// Closed class: the number of terminals.
    #[serde(default)]
    pub terminals: Option<u32>,
    /// Closed class: think time at the terminal.
    #[serde(default)]
    pub think: Option<DistSpec>,
    /// The first station of a job (or of a terminal's command).
    pub start: RouteSpec,
}

/// `[station.per_class.NAME]`: a class's own service or route at a station.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct PerClassFile {
    /// Service time of this class at the station.
    #[serde(default)]
    pub service: Option<DistSpec>,
    /// Where this class goes after the station.
    #[serde(default)]
    pub to: Option<RouteSpec>,
}

/// `[[station]]`: a service centre.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct StationFile {
    /// The station's name.
    pub name: String,
    /// `fcfs`, `ps`, `rr` or `delay`.
    pub discipline: String,
    /// Number of servers (default 1; ignored by `delay`).
    #[serde(default)]
    pub servers: Option<u32>,
    /// Round-robin quantum.
    #[serde(default)]
    pub quantum: Option<Seconds>,
    /// Round-robin cost of each dispatch (default 0).
    #[serde(default)]
    pub context_switch: Option<Seconds>,
    /// Service time, for every class without its own.
    #[serde(default)]
    pub service: Option<DistSpec>,
    /// Where jobs go next, for every class without its own route.
    #[serde(default)]
    pub to: Option<RouteSpec>,
    /// Per-class service times and routes.
    #[serde(default)]
    pub per_class: BTreeMap<String, PerClassFile>,
}

/// A whole network scenario file, as written.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct NetworkFile {
    /// The scenario's name, reported in the summary.
    pub name: String,
    /// The master seed (default 1).
    #[serde(default)]
    pub seed: Option<u64>,
    /// Run length.
    pub run: RunSpec,
    /// Job classes.
    #[serde(default, rename = "class")]
    pub classes: Vec<ClassFile>,
    /// Stations.
    #[serde(default, rename = "station")]
    pub stations: Vec<StationFile>,
}

impl NetworkFile {
    /// Parses the text of the scenario file `file`.
    pub fn parse(file: &str, text: &str) -> Result<NetworkFile, ScenarioError> {
        super::read(file, text)
    }

    /// Checks everything and builds the network; every problem found is
    /// reported, each with its key.
    pub fn validate(&self, file: &str) -> Result<Network, ScenarioError> {
        let mut v = Validator::default();
        let network = v.network(self);
        match network {
            Some(network) if v.problems.is_empty() => Ok(network),
            _ => Err(ScenarioError::Invalid {
                file: file.to_string(),
                problems: v.problems,
            }),
        }
    }
}

impl Validator {
    fn route(&mut self, spec: &RouteSpec, key: &str, stations: &[StationFile]) -> Option<Route> {
        let target = |v: &mut Validator, name: &str, key: &str| -> Option<Target> {
            if name == "exit" {
                return Some(Target::Exit);
            }
            match stations.iter().position(|s| s.name == name) {
                Some(i) => Some(Target::Station(i)),
                None => {
                    v.report(
                        key,
                        format!("no station named \"{name}\" (use \"exit\" to leave)"),
                    );
                    None
                }
            }
        };
        match spec {
            RouteSpec::One(name) => target(self, name, key).map(Route::single),
            RouteSpec::Branches(branches) => {
                if branches.is_empty() {
                    self.report(key, "needs at least one branch");
                    return None;
                }
                let mut out = Vec::new();
                let mut ok = true;
                for (i, b) in branches.iter().enumerate() {
                    let t = target(self, &b.to, &format!("{key}[{i}].to"));
                    if !(b.p.is_finite() && (0.0..=1.0).contains(&b.p)) {
                        self.report(
                            format!("{key}[{i}].p"),
                            format!("must be a probability in [0, 1], got {}", Figure(b.p)),
                        );
                        ok = false;
                    }
                    match t {
                        Some(t) => out.push((t, b.p)),
                        None => ok = false,
                    }
                }
                let total: f64 = branches.iter().map(|b| b.p).sum();
                if ok && (total - 1.0).abs() > 1e-9 {
                    self.report(
                        key,
                        format!(
                            "branch probabilities must add up to 1, got {}",
                            Figure(total)
                        ),
                    );
                    ok = false;
                }
                ok.then(|| Route::new(out))
            }
        }
    }

    fn class(&mut self, c: &ClassFile, stations: &[StationFile]) -> Option<ClassSpec> {
        let key = format!("class[{}]", c.name);
        let start = self.route(&c.start, &format!("{key}.start"), stations);
        let kind = match (&c.arrivals, c.terminals, &c.think) {
            (Some(a), None, None) => self
                .dist(a, &format!("{key}.arrivals"))
                .map(|interarrival| ClassKind::Open { interarrival }),
            (None, Some(terminals), Some(think)) => {
                let think = self.dist(think, &format!("{key}.think"));
                if terminals == 0 {
                    self.report(format!("{key}.terminals"), "must be at least 1");
                }
                think
                    .filter(|_| terminals > 0)
                    .map(|think| ClassKind::Closed { terminals, think })
            }
            _ => {
                self.report(
                    &key,
                    "give either `arrivals` (an open class) or both `terminals` and `think` (a closed class)",
                );
                None
            }
        };
        Some(ClassSpec {
            name: c.name.clone(),
            kind: kind?,
            start: start?,
        })
    }

    fn station(
        &mut self,
        s: &StationFile,
        classes: &[ClassFile],
        stations: &[StationFile],
    ) -> Option<StationSpec> {
        let key = format!("station[{}]", s.name);
        let discipline = self.discipline(s, &key);
        let servers = s.servers.unwrap_or(1);
        if servers == 0 {
            self.report(format!("{key}.servers"), "must be at least 1");
        }
        if s.servers.is_some() && matches!(discipline, Some(Discipline::Delay)) {
            self.report(
                format!("{key}.servers"),
                "a delay station has a server for every job: remove `servers`",
            );
        }
        for name in s.per_class.keys() {
            if !classes.iter().any(|c| &c.name == name) {
                self.report(
                    format!("{key}.per_class.{name}"),
                    format!("no class named \"{name}\""),
                );
            }
        }
        let default_service = s
            .service
            .as_ref()
            .and_then(|d| self.dist(d, &format!("{key}.service")));
        let default_route =
            s.to.as_ref()
                .and_then(|r| self.route(r, &format!("{key}.to"), stations));
        let mut service = Vec::new();
        let mut routes = Vec::new();
        for c in classes {
            let own = s.per_class.get(&c.name);
            let own_service = own
                .and_then(|o| o.service.as_ref())
                .and_then(|d| self.dist(d, &format!("{key}.per_class.{}.service", c.name)));
            let own_route = own
                .and_then(|o| o.to.as_ref())
                .and_then(|r| self.route(r, &format!("{key}.per_class.{}.to", c.name), stations));
            service.push(own_service.or_else(|| default_service.clone()));
            routes.push(own_route.or_else(|| default_route.clone()));
        }
        Some(StationSpec {
            name: s.name.clone(),
            discipline: discipline?,
            servers: servers.max(1),
            service,
            routes,
        })
    }

    /// Station `s`'s discipline (its key `key`), with the round-robin
    /// quantum and context switch it alone takes.
    fn discipline(&mut self, s: &StationFile, key: &str) -> Option<Discipline> {
        let discipline = match s.discipline.as_str() {
            "fcfs" => Some(Discipline::Fcfs),
            "ps" => Some(Discipline::Ps),
            "delay" => Some(Discipline::Delay),
            "rr" => {
                let quantum = match s.quantum {
                    Some(q) => self.time(q, &format!("{key}.quantum"), false),
                    None => {
                        self.report(
                            format!("{key}.quantum"),
                            "is required for discipline \"rr\"",
                        );
                        None
                    }
                };
                let switch = match s.context_switch {
                    Some(c) => self.time(c, &format!("{key}.context_switch"), true),
                    None => Some(SimTime::ZERO),
                };
                Some(Discipline::RoundRobin {
                    quantum: quantum?,
                    context_switch: switch?,
                })
            }
            other => {
                self.report(
                    format!("{key}.discipline"),
                    format!("unknown discipline \"{other}\": expected fcfs, ps, rr or delay"),
                );
                None
            }
        };
        if discipline.is_some() && !matches!(discipline, Some(Discipline::RoundRobin { .. })) {
            for (field, present) in [
                ("quantum", s.quantum.is_some()),
                ("context_switch", s.context_switch.is_some()),
            ] {
                if present {
                    self.report(
                        format!("{key}.{field}"),
                        format!(
                            "only applies to discipline \"rr\", not \"{}\"",
                            s.discipline
                        ),
                    );
                }
            }
        }
        discipline
    }

    /// Checks `[run]` and returns the run settings of the scenario
    /// `name` with master seed `seed` (default 1).
    fn network(&mut self, f: &NetworkFile) -> Option<Network> {
        let settings = self.settings(&f.name, f.seed, &f.run);
        if f.classes.is_empty() {
            self.report("class", "a scenario needs at least one [[class]]");
        }
        if f.stations.is_empty() {
            self.report("station", "a scenario needs at least one [[station]]");
        }
        let named = self.problems.len();
        self.unique_names("class", f.classes.iter().map(|c| c.name.as_str()));
        self.unique_names("station", f.stations.iter().map(|s| s.name.as_str()));
        if self.problems.len() > named {
            // Keys name elements by their names: with a name refused,
            // they would show it again, or point at the wrong element.
            return None;
        }
        let classes: Vec<_> = f
            .classes
            .iter()
            .map(|c| self.class(c, &f.stations))
            .collect();
        let stations: Vec<_> = f
            .stations
            .iter()
            .map(|s| self.station(s, &f.classes, &f.stations))
            .collect();
        let jobs: u64 = f
            .classes
            .iter()
            .filter_map(|c| c.terminals)
            .map(u64::from)
            .sum();
        self.population("class", jobs, MOST_JOBS, "terminals in all");
        if !self.problems.is_empty() {
            return None;
        }
        let network = Network {
            settings: settings?,
            classes: classes.into_iter().collect::<Option<_>>()?,
            stations: stations.into_iter().collect::<Option<_>>()?,
        };
        self.flows(&network);
        Some(network)
    }

    /// Checks what only the routing as a whole shows: every class leaves,
    /// every station a class visits serves it, open stations are stable.
    fn flows(&mut self, network: &Network) {
        let mut open_load = vec![0.0; network.stations.len()];
        for (c, class) in network.classes.iter().enumerate() {
            let key = format!("class[{}]", class.name);
            if class
                .start
                .branches()
                .iter()
                .any(|&(t, p)| t == Target::Exit && p > 0.0)
            {
                self.report(
                    format!("{key}.start"),
                    "a job must start at a station, not at \"exit\"",
                );
                continue;
            }
            let Some(visits) = network.visit_ratios(c) else {
                self.report(&key, "some job of this class can never reach \"exit\": check the routes of the stations it visits");
                continue;
            };
            let mut cycle = 0.0;
            for (k, station) in network.stations.iter().enumerate() {
                if visits[k] <= 0.0 {
                    continue;
                }
                if station.service[c].is_none() {
                    self.report(
                        format!("station[{}].service", station.name),
                        format!(
                            "class \"{}\" visits this station but no service time is given for it",
                            class.name
                        ),
                    );
                }
                if station.routes[c].is_none() {
                    self.report(
                        format!("station[{}].to", station.name),
                        format!(
                            "class \"{}\" visits this station but no route out is given for it",
                            class.name
                        ),
                    );
                }
                if let Some(service) = &station.service[c] {
                    cycle += visits[k] * service.mean();
                }
                if let (ClassKind::Open { interarrival }, Some(service)) =
                    (&class.kind, &station.service[c])
                    && station.discipline != Discipline::Delay
                {
                    open_load[k] += visits[k] * service.mean()
                        / interarrival.mean()
                        / f64::from(station.servers);
                }
            }
            let gap = match &class.kind {
                ClassKind::Open { interarrival } => ("arrivals", interarrival.mean()),
                ClassKind::Closed { think, .. } => ("think", think.mean() + cycle),
            };
            if gap.1 <= 0.0 {
                self.report(
                    format!("{key}.{}", gap.0),
                    "jobs of this class would follow each other in zero time: give a positive mean time between them",
                );
            }
        }
        for (k, station) in network.stations.iter().enumerate() {
            if open_load[k] >= 1.0 && open_load[k].is_finite() {
                self.report(
                    format!("station[{}]", station.name),
                    format!("unstable: the open classes alone load it to rho = {:.4} >= 1 (utilisation per server); the queue would grow without bound", open_load[k]),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_network;

    const GOOD: &str = r#"
        name = "central server"
        seed = 5
        [run]
        end_time = "1h"
        warmup = "60s"
        [[class]]
        name = "users"
        terminals = 10
        think = { exp = { mean = "5s" } }
        start = "cpu"
        [[station]]
        name = "cpu"
        discipline = "rr"
        quantum = "100ms"
        context_switch = "1ms"
        service = { exp = { mean = "40ms" } }
        to = [{ to = "disk", p = 0.9 }, { to = "exit", p = 0.1 }]
        [[station]]
        name = "disk"
        discipline = "fcfs"
        service = { det = { value = "30ms" } }
        to = "cpu"
    "#;

    fn problems(text: &str) -> Vec<String> {
        match load_network("s.toml", text) {
            Err(ScenarioError::Invalid { problems, .. }) => problems
                .into_iter()
                .map(|p| format!("{}: {}", p.key, p.message))
                .collect(),
            Err(e) => vec![e.to_string()],
            Ok(_) => vec![],
        }
    }

    #[test]
    fn a_good_scenario_validates_with_its_visit_ratios() {
        let net = load_network("s.toml", GOOD).unwrap();
        assert_eq!(net.settings.seed, 5);
        assert_eq!(net.settings.warmup, SimTime::from_secs(60));
        let v = net.visit_ratios(0).unwrap();
        assert!(
            (v[0] - 10.0).abs() < 1e-9 && (v[1] - 9.0).abs() < 1e-9,
            "{v:?}"
        );
    }

    #[test]
    fn unknown_keys_and_bad_units_name_the_key() {
        let e = load_network("s.toml", &GOOD.replace("quantum", "quantom"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("s.toml: ") && e.contains("quantom"), "{e}");
        let e = load_network("s.toml", &GOOD.replace("\"1h\"", "\"1 fortnight\""))
            .unwrap_err()
            .to_string();
        assert!(e.contains("end_time") && e.contains("1 fortnight"), "{e}");
    }

    #[test]
    fn a_route_of_the_wrong_type_says_what_a_route_is() {
        let e = load_network("s.toml", &GOOD.replace("to = \"cpu\"", "to = 5"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("station[disk].to: must be a station name, \"exit\", or a list of branches")
                && e.ends_with(
                    ", not 5\nat line 23, column 14\n   |\n23 |         to = 5\n   |              ^"
                ),
            "{e}"
        );
        let e = load_network("s.toml", &GOOD.replace("p = 0.9 }", "p = 0.9, q = 1 }"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("station[cpu].to[0].q: is not a key here; the keys here are to, p"),
            "{e}"
        );
    }

    #[test]
    fn every_problem_is_collected_with_its_key() {
        let bad = GOOD
            .replace("mean = \"40ms\"", "mean = \"-40ms\"")
            .replace("p = 0.9", "p = 0.8")
            .replace("terminals = 10", "terminals = 0");
        let got = problems(&bad);
        assert!(
            got.contains(
                &"station[cpu].service.exp: mean must be a finite number > 0, got -0.04"
                    .to_string()
            ),
            "{got:?}"
        );
        assert!(
            got.iter()
                .any(|p| p.starts_with("station[cpu].to: branch probabilities must add up to 1")),
            "{got:?}"
        );
        assert!(
            got.contains(&"class[users].terminals: must be at least 1".to_string()),
            "{got:?}"
        );
    }

    #[test]
    fn structural_mistakes_are_reported() {
        let got = problems(&GOOD.replace("to = \"cpu\"", "to = \"tape\""));
        assert_eq!(
            got,
            ["station[disk].to: no station named \"tape\" (use \"exit\" to leave)"]
        );
        let got =
            problems(&GOOD.replace("{ to = \"exit\", p = 0.1 }", "{ to = \"disk\", p = 0.1 }"));
        assert!(
            got[0].starts_with("class[users]: some job of this class can never reach \"exit\""),
            "{got:?}"
        );
        let got = problems(&GOOD.replace("discipline = \"fcfs\"", "discipline = \"lifo\""));
        assert!(
            got[0].starts_with("station[disk].discipline: unknown discipline \"lifo\""),
            "{got:?}"
        );
        let got = problems(&GOOD.replace("quantum = \"100ms\"", ""));
        assert_eq!(
            got,
            ["station[cpu].quantum: is required for discipline \"rr\""]
        );
        let got = problems(&GOOD.replace("warmup = \"60s\"", "warmup = \"2h\""));
        assert!(got[0].starts_with("run.warmup: must be shorter"), "{got:?}");
    }

    #[test]
    fn an_unstable_open_station_is_refused() {
        let text = r#"
            name = "overload"
            [run]
            end_time = "100s"
            [[class]]
            name = "jobs"
            arrivals = { exp = { rate = "1.1/s" } }
            start = "server"
            [[station]]
            name = "server"
            discipline = "fcfs"
            service = { exp = { mean = "1s" } }
            to = "exit"
        "#;
        let got = problems(text);
        assert_eq!(got.len(), 1);
        assert!(
            got[0].starts_with(
                "station[server]: unstable: the open classes alone load it to rho = 1.1000"
            ),
            "{got:?}"
        );
        assert!(
            problems(&text.replace("servers", "x").replace(
                "discipline = \"fcfs\"",
                "discipline = \"fcfs\"\nservers = 2"
            ))
            .is_empty()
        );
    }

    #[test]
    fn classes_must_be_open_or_closed_and_start_at_a_station() {
        let got = problems(&GOOD.replace(
            "terminals = 10",
            "arrivals = { exp = { mean = \"1s\" } }\nterminals = 10",
        ));
        assert!(
            got[0].starts_with("class[users]: give either `arrivals`"),
            "{got:?}"
        );
        let got = problems(&GOOD.replace("start = \"cpu\"", "start = \"exit\""));
        assert_eq!(
            got,
            ["class[users].start: a job must start at a station, not at \"exit\""]
        );
    }
}
