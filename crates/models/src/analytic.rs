//! Exact queueing-theory results.
//!
//! These are the yardsticks the simulator is validated against, and they
//! are useful on their own for quick what-if answers. Formulas follow
//! Kleinrock, *Queueing Systems* Vol. 1 (1975) ch. 3 and 5 and Vol. 2
//! (1976) ch. 4, and Lazowska et al., *Quantitative System Performance*
//! (1984) ch. 6.

use crate::network::{ClassKind, Discipline, Network};
use crate::system::{CommandClass, Device, Order, Policy, Population, Region, Scheduler, System};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Why an analytic model has no steady state or cannot be built.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum AnalyticError {
    /// A rate or time that must be positive was not.
    #[error("{what} must be a finite number > 0, got {}", tpsim_core::Figure(*.value))]
    NotPositive {
        /// The parameter.
        what: &'static str,
        /// Its value.
        value: f64,
    },
    /// The offered load is at least the capacity.
    #[error("unstable: utilisation rho = {} >= 1", tpsim_core::Figure(*.0))]
    Unstable(f64),
    /// A network outside what exact single-class MVA solves.
    #[error("exact MVA cannot solve this network: {0}")]
    NotSolvable(String),
}

fn positive(what: &'static str, value: f64) -> Result<f64, AnalyticError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(AnalyticError::NotPositive { what, value })
    }
}

/// The M/G/1 queue, FCFS: Poisson arrivals at rate `lambda`, service time
/// with mean `s` and second moment `s2`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mg1 {
    lambda: f64,
    s: f64,
    s2: f64,
}

impl Mg1 {
    /// The queue with arrival rate `lambda` [1/s] and service-time moments
    /// `mean` \[s\] and `second_moment` \[s²\].
    pub fn new(lambda: f64, mean: f64, second_moment: f64) -> Result<Mg1, AnalyticError> {
        let lambda = positive("arrival rate", lambda)?;
        let s = positive("mean service time", mean)?;
        let s2 = positive("second moment of service time", second_moment)?;
        let rho = lambda * s;
        if rho >= 1.0 {
            return Err(AnalyticError::Unstable(rho));
        }
        Ok(Mg1 { lambda, s, s2 })
    }

    /// Utilisation, lambda * E\[S\].
    pub fn rho(&self) -> f64 {
        self.lambda * self.s
    }

    /// Mean wait in queue (Pollaczek-Khinchine): lambda E\[S²\] / (2 (1 - rho)).
    pub fn mean_wait(&self) -> f64 {
        self.lambda * self.s2 / (2.0 * (1.0 - self.rho()))
    }

    /// Mean response time, E\[S\] + mean wait.
    pub fn mean_response(&self) -> f64 {
        self.s + self.mean_wait()
    }

    /// Mean number in the system (Little's law).
    pub fn mean_number(&self) -> f64 {
        self.lambda * self.mean_response()
    }
}

/// The M/M/1 queue, FCFS.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mm1 {
    lambda: f64,
    mu: f64,
}

impl Mm1 {
    /// The queue with arrival rate `lambda` and service rate `mu` [1/s].
    pub fn new(lambda: f64, mu: f64) -> Result<Mm1, AnalyticError> {
        let lambda = positive("arrival rate", lambda)?;
        let mu = positive("service rate", mu)?;
        if lambda >= mu {
            return Err(AnalyticError::Unstable(lambda / mu));
        }
        Ok(Mm1 { lambda, mu })
    }

    /// Utilisation lambda / mu.
    pub fn rho(&self) -> f64 {
        self.lambda / self.mu
    }

    /// Mean response time 1 / (mu - lambda).
    pub fn mean_response(&self) -> f64 {
        1.0 / (self.mu - self.lambda)
    }

    /// Mean number in the system rho / (1 - rho).
    pub fn mean_number(&self) -> f64 {
        self.rho() / (1.0 - self.rho())
    }

    /// The `p`-quantile of response time: under FCFS it is exponential with
    /// rate mu - lambda.
    pub fn response_quantile(&self, p: f64) -> f64 {
        -(1.0 - p).ln() / (self.mu - self.lambda)
    }
}

/// The M/M/c queue, FCFS on `c` servers (Erlang's delay model).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mmc {
    lambda: f64,
    mu: f64,
    servers: u32,
}

impl Mmc {
    /// The queue with arrival rate `lambda`, service rate `mu` per server
    /// [1/s] and `servers` servers.
    pub fn new(lambda: f64, mu: f64, servers: u32) -> Result<Mmc, AnalyticError> {
        let lambda = positive("arrival rate", lambda)?;
        let mu = positive("service rate", mu)?;
        positive("servers", f64::from(servers))?;
        let rho = lambda / (mu * f64::from(servers));
        if rho >= 1.0 {
            return Err(AnalyticError::Unstable(rho));
        }
        Ok(Mmc {
            lambda,
            mu,
            servers,
        })
    }

    /// Utilisation per server, lambda / (c mu).
    pub fn rho(&self) -> f64 {
        self.lambda / (self.mu * f64::from(self.servers))
    }

    /// Erlang's C formula: the probability that an arrival has to wait.
    pub fn wait_probability(&self) -> f64 {
        let a = self.lambda / self.mu;
        // Terms a^k / k!, built up one at a time to avoid overflow.
        let mut term = 1.0;
        let mut below = 0.0;
        for k in 0..self.servers {
            below += term;
            term *= a / f64::from(k + 1);
        }
        let top = term / (1.0 - self.rho());
        top / (below + top)
    }

    /// Mean response time: C / (c mu - lambda) + 1 / mu.
    pub fn mean_response(&self) -> f64 {
        self.wait_probability() / (f64::from(self.servers) * self.mu - self.lambda) + 1.0 / self.mu
    }
}

/// The M/G/1 processor-sharing queue: a job needing `x` of service spends
/// `x / (1 - rho)` in the system on average, whatever the service
/// distribution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mg1Ps {
    rho: f64,
}

impl Mg1Ps {
    /// The queue with arrival rate `lambda` [1/s] and mean service `mean` \[s\].
    pub fn new(lambda: f64, mean: f64) -> Result<Mg1Ps, AnalyticError> {
        let rho = positive("arrival rate", lambda)? * positive("mean service time", mean)?;
        if rho >= 1.0 {
            return Err(AnalyticError::Unstable(rho));
        }
        Ok(Mg1Ps { rho })
    }

    /// Mean response of a job with service demand `x` \[s\].
    pub fn response_given(&self, x: f64) -> f64 {
        x / (1.0 - self.rho)
    }
}

/// The machine-repairman (finite-source) model: `n` terminals with mean
/// think time `z` in front of one exponential server with mean service `s`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Repairman {
    /// Probability that the server is idle.
    pub p0: f64,
    /// Throughput [1/s].
    pub throughput: f64,
    /// Mean response time \[s\], by the response-time law N/X - Z.
    pub response: f64,
}

impl Repairman {
    /// The exact solution: p0 = 1 / sum_{k=0..n} n!/(n-k)! (s/z)^k.
    pub fn solve(n: u32, s: f64, z: f64) -> Result<Repairman, AnalyticError> {
        let s = positive("service time", s)?;
        let z = positive("think time", z)?;
        let mut term = 1.0;
        let mut sum = 1.0;
        for k in 1..=n {
            term *= f64::from(n - k + 1) * s / z;
            sum += term;
        }
        let p0 = 1.0 / sum;
        let throughput = (1.0 - p0) / s;
        Ok(Repairman {
            p0,
            throughput,
            response: f64::from(n) / throughput - z,
        })
    }
}

/// A service centre of a closed product-form network, for MVA.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Center {
    /// A name for reports.
    pub name: String,
    /// Queueing (single server, load independent) or delay.
    pub delay: bool,
    /// Service demand per interaction: visits × mean service time \[s\].
    pub demand: f64,
}

/// MVA's answer for one population.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MvaPoint {
    /// The number of customers.
    pub population: u32,
    /// System throughput, interactions per second.
    pub throughput: f64,
    /// Mean response time per interaction, think time excluded \[s\].
    pub response: f64,
    /// Per centre: residence time per interaction \[s\].
    pub residence: Vec<f64>,
    /// Per centre: mean number of customers.
    pub queue_length: Vec<f64>,
    /// Per centre: utilisation (for a delay centre, the mean number present).
    pub utilization: Vec<f64>,
}

/// A closed network in the terms MVA needs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClosedModel {
    /// The service centres, in the network's station order.
    pub centers: Vec<Center>,
    /// Mean think time \[s\].
    pub think: f64,
    /// The number of terminals.
    pub terminals: u32,
    /// Where the network strays from product form, so that MVA's answer is
    /// an approximation there (FCFS with non-exponential service, round
    /// robin with a context-switch cost).
    pub caveats: Vec<String>,
}

impl ClosedModel {
    /// The MVA model of a network with one closed class and no other class,
    /// whose stations are single-server (FCFS, PS, RR) or delay stations.
    /// Demands are visit ratios times mean service times.
    pub fn of(net: &Network) -> Result<ClosedModel, AnalyticError> {
        let unsolvable = |why: String| Err(AnalyticError::NotSolvable(why));
        let [class] = net.classes.as_slice() else {
            return unsolvable(format!(
                "it needs exactly one class, found {}",
                net.classes.len()
            ));
        };
        let ClassKind::Closed { terminals, think } = &class.kind else {
            return unsolvable(format!(
                "class \"{}\" is open; MVA solves closed classes",
                class.name
            ));
        };
        let visits = net
            .visit_ratios(0)
            .ok_or_else(|| AnalyticError::NotSolvable("a job never leaves".into()))?;
        let mut centers = Vec::new();
        let mut caveats = Vec::new();
        for (station, v) in net.stations.iter().zip(visits) {
            let Some(service) = station.service[0].as_ref().filter(|_| v > 0.0) else {
                continue;
            };
            if station.servers > 1 {
                return unsolvable(format!(
                    "station \"{}\" has {} servers; exact MVA here handles single servers and delays",
                    station.name, station.servers
                ));
            }
            match station.discipline {
                Discipline::Fcfs if (service.scv() - 1.0).abs() > 1e-9 => caveats.push(format!(
                    "station \"{}\" is FCFS with non-exponential service (SCV {:.3}): not product form",
                    station.name,
                    service.scv()
                )),
                Discipline::RoundRobin { context_switch, .. } if context_switch.as_nanos() > 0 => {
                    caveats.push(format!(
                        "station \"{}\" charges context switches, which MVA leaves out",
                        station.name
                    ))
                }
                _ => {}
            }
            centers.push(Center {
                name: station.name.clone(),
                delay: station.discipline == Discipline::Delay,
                demand: v * service.mean(),
            });
        }
        Ok(ClosedModel {
            centers,
            think: think.mean(),
            terminals: *terminals,
            caveats,
        })
    }

    /// The MVA model of a time-sharing system as if memory were never
    /// short: no page faults and no swaps. The users are one closed class
    /// whose demands are the command mix's averages: the processors' demand
    /// per command, and each device's requests times their mean service.
    /// Needs one processor, a fixed number of terminals and no background
    /// processes.
    pub fn of_system(sys: &System) -> Result<ClosedModel, AnalyticError> {
        let unsolvable = |why: &str| Err(AnalyticError::NotSolvable(why.to_string()));
        if sys.cpu.count != 1 {
            return unsolvable(
                "it has more than one processor; exact MVA here handles single servers",
            );
        }
        let Population::Fixed(terminals) = sys.users.population else {
            return unsolvable("its users log in and out; MVA needs a fixed number of terminals");
        };
        if !sys.background.is_empty() {
            return unsolvable(
                "it has background processes, a second class MVA here does not solve",
            );
        }
        let total: f64 = sys.users.mix.iter().map(|m| m.weight).sum();
        let mix = || {
            sys.users
                .mix
                .iter()
                .map(|m| (&sys.classes[m.class], m.weight / total))
        };
        let mut centers = vec![Center {
            name: "cpu".into(),
            delay: false,
            demand: mix().map(|(c, w)| w * c.mean_demand()).sum(),
        }];
        let mut caveats = vec![
            "memory is taken to be never short: page faults and swaps are left out".to_string(),
        ];
        if sys.users.mix.iter().any(|m| m.detached > 0.0) {
            caveats.push("commands run in the background are taken as waited for".into());
        }
        if sys.cpu.context_switch.as_nanos() > 0 {
            caveats.push("context switches are left out".into());
        }
        if sys.cpu.scheduler != Scheduler::RoundRobin {
            caveats.push(format!(
                "the processor is taken to be shared equally (round robin); the {} scheduler's priorities are left out",
                sys.cpu.scheduler.name()
            ));
        }
        if sys.cpu.max_multiprogramming.is_some() {
            caveats.push("the eligibility limit is left out".into());
        }
        let swapping = matches!(sys.memory.policy, Policy::Swapping { .. });
        if swapping && mix().any(|(c, _)| c.text > 0) {
            caveats.push(
                "exec is taken to read every command's whole image, shared text included".into(),
            );
        }
        let weighted: Vec<(&CommandClass, f64)> = mix().collect();
        for (d, device) in sys.devices.iter().enumerate() {
            // Each command's I/O, and under swapping exec's read of its
            // image from the programs' device (text included).
            let exec = swapping && sys.memory.programs == Some(d);
            centers.extend(device_center(d, device, &weighted, exec, &mut caveats));
        }
        Ok(ClosedModel {
            centers,
            think: sys.users.think.mean(),
            terminals,
            caveats,
        })
    }

    /// The closed model of a scenario: [`ClosedModel::of`] a network,
    /// [`ClosedModel::of_system`] a time-sharing system.
    pub fn of_scenario(scenario: &crate::Scenario) -> Result<ClosedModel, AnalyticError> {
        match scenario {
            crate::Scenario::Network(net) => ClosedModel::of(net),
            crate::Scenario::System(sys) => ClosedModel::of_system(sys),
        }
    }

    /// MVA for populations 1 to `population`.
    pub fn solve(&self, population: u32) -> Vec<MvaPoint> {
        mva(&self.centers, self.think, population)
    }

    /// What exact analysis says at the model's own population.
    pub fn reference(&self) -> Reference {
        let at = self.solve(self.terminals.max(1));
        let last = at.last().expect("MVA solves at least one population");
        let queueing = self.centers.iter().filter(|c| !c.delay);
        Reference {
            population: self.terminals,
            think: self.think,
            demand: self.centers.iter().map(|c| c.demand).sum(),
            max_demand: queueing.map(|c| c.demand).fold(0.0, f64::max),
            throughput: last.throughput,
            response: last.response,
        }
    }
}

/// A closed model's asymptotic bounds and its exact MVA solution at one
/// population N, for drawing beside a measured curve.
///
/// With D the sum of the demands (delay centres included), D_max the
/// largest demand of a queueing centre and Z the think time, throughput
/// is at most min(N / (D + Z), 1 / D_max), and the two bounds cross at
/// N* = (D + Z) / D_max, where the population starts to saturate the
/// bottleneck (the knee of the curve; P. J. Denning and J. P. Buzen, "The
/// operational analysis of queueing network models", *Computing Surveys*
/// 10(3), 1978, section 6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    /// N, the number of terminals.
    pub population: u32,
    /// Z, the mean think time \[s\].
    pub think: f64,
    /// D, the total demand per interaction \[s\].
    pub demand: f64,
    /// D_max, the bottleneck's demand per interaction \[s\] (0 with no
    /// queueing centre).
    pub max_demand: f64,
    /// MVA's throughput at N \[1/s\].
    pub throughput: f64,
    /// MVA's mean response at N \[s\].
    pub response: f64,
}

impl Reference {
    /// The asymptotic bound on throughput at N.
    pub fn bound(&self) -> f64 {
        let light = f64::from(self.population) / (self.demand + self.think);
        if self.max_demand > 0.0 {
            light.min(1.0 / self.max_demand)
        } else {
            light
        }
    }

    /// N* = (D + Z) / D_max, if there is a bottleneck.
    pub fn saturation(&self) -> Option<f64> {
        (self.max_demand > 0.0).then(|| (self.demand + self.think) / self.max_demand)
    }
}

/// Exact Mean Value Analysis of a single-class closed network with think
/// time `think` \[s\], for populations 1 to `population`:
/// R_k(n) = D_k (1 + Q_k(n-1)) at a queueing centre, D_k at a delay centre;
/// X(n) = n / (Z + sum R_k); Q_k(n) = X(n) R_k(n).
pub fn mva(centers: &[Center], think: f64, population: u32) -> Vec<MvaPoint> {
    assert!(think >= 0.0, "think time must be >= 0");
    let mut queue = vec![0.0; centers.len()];
    let mut points = Vec::with_capacity(population as usize);
    for n in 1..=population {
        let residence: Vec<f64> = centers
            .iter()
            .zip(&queue)
            .map(|(c, q)| {
                if c.delay {
                    c.demand
                } else {
                    c.demand * (1.0 + q)
                }
            })
            .collect();
        let response: f64 = residence.iter().sum();
        let throughput = f64::from(n) / (think + response);
        queue = residence.iter().map(|r| throughput * r).collect();
        points.push(MvaPoint {
            population: n,
            throughput,
            response,
            utilization: centers.iter().map(|c| throughput * c.demand).collect(),
            residence,
            queue_length: queue.clone(),
        });
    }
    points
}

/// The center of device `d` in the closed model, if the commands of the
/// mix (classes with their weights) use it: each command's I/O on it and,
/// if `exec`, exec's read of the command's whole image. Adds to
/// `caveats` where the device is not product form.
fn device_center(
    d: usize,
    device: &Device,
    mix: &[(&CommandClass, f64)],
    exec: bool,
    caveats: &mut Vec<String>,
) -> Option<Center> {
    let mut demand = 0.0;
    let mut second = 0.0;
    let mut requests = 0.0;
    for &(class, w) in mix {
        let reads = class.io.iter().filter(|io| io.device == d);
        let reads = reads
            .map(|io| (io.count, io.size))
            .chain(exec.then_some((1.0, class.size as f64)));
        for (count, size) in reads {
            let mean = device.mean_service(size, Region::Files);
            let variance = device.seek_moments(Region::Files).1 + device.revolution.powi(2) / 12.0;
            demand += w * count * mean;
            second += w * count * (variance + mean * mean);
            requests += w * count;
        }
    }
    if requests == 0.0 {
        return None;
    }
    if device.arm.as_ref().is_some_and(|a| a.rotation.is_some()) {
        caveats.push(format!(
            "device \"{}\" brings each request's sector round as the platter turns, so its rotational wait depends on where requests lie and when they come; half a revolution is used",
            device.name
        ));
    }
    if device.arm.as_ref().is_some_and(|a| a.order != Order::Fcfs) {
        caveats.push(format!(
            "device \"{}\" orders its queue by cylinder, so its service time depends on the queue; the first-come-first-served time is used",
            device.name
        ));
    }
    let mean = demand / requests;
    let scv = second / requests / (mean * mean) - 1.0;
    if (scv - 1.0).abs() > 1e-3 {
        caveats.push(format!(
            "device \"{}\" is FCFS with non-exponential service (SCV {scv:.3}): not product form",
            device.name
        ));
    }
    Some(Center {
        name: device.name.clone(),
        delay: false,
        demand,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_holds_the_asymptotic_bounds_and_mva() {
        let center = |name: &str, delay, demand| Center {
            name: name.into(),
            delay,
            demand,
        };
        let model = |terminals| ClosedModel {
            centers: vec![
                center("cpu", false, 0.2),
                center("disk", false, 0.1),
                center("net", true, 0.5),
            ],
            think: 5.0,
            terminals,
            caveats: Vec::new(),
        };
        let light = model(10).reference();
        assert_eq!((light.demand, light.max_demand), (0.8, 0.2));
        assert!(close(light.saturation().unwrap(), 29.0, 1e-12));
        assert!(close(light.bound(), 10.0 / 5.8, 1e-12));
        let mva = model(10).solve(10);
        assert_eq!(light.throughput, mva[9].throughput);
        assert_eq!(light.response, mva[9].response);
        assert!(light.throughput < light.bound());
        let heavy = model(100).reference();
        assert!(close(heavy.bound(), 5.0, 1e-12));
        assert!(
            heavy.throughput <= 5.0 && heavy.throughput > 4.99,
            "{heavy:?}"
        );
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn mm1_is_mg1_with_exponential_service() {
        let mm1 = Mm1::new(0.8, 1.0).unwrap();
        let mg1 = Mg1::new(0.8, 1.0, 2.0).unwrap();
        assert!(close(mm1.mean_response(), 5.0, 1e-12));
        assert!(close(mg1.mean_response(), 5.0, 1e-12));
        assert!(close(mm1.mean_number(), 4.0, 1e-12));
        assert!(close(mm1.response_quantile(0.5), 5.0 * 2f64.ln(), 1e-12));
        assert_eq!(Mm1::new(1.0, 1.0), Err(AnalyticError::Unstable(1.0)));
    }

    #[test]
    fn erlang_c_reduces_to_mm1_and_matches_a_table_value() {
        let one = Mmc::new(0.8, 1.0, 1).unwrap();
        assert!(close(one.wait_probability(), 0.8, 1e-12));
        assert!(close(one.mean_response(), 5.0, 1e-12));
        // Two servers, a = 1.6: C = 1.6^2/2 / 0.2 / (1 + 1.6 + 6.4) = 0.7111.
        let two = Mmc::new(1.6, 1.0, 2).unwrap();
        assert!(close(two.wait_probability(), 6.4 / 9.0, 1e-12));
        assert!(close(two.mean_response(), 6.4 / 9.0 / 0.4 + 1.0, 1e-12));
    }

    #[test]
    fn pollaczek_khinchine_for_deterministic_and_h2_service() {
        // M/D/1 at rho 0.8: W = 0.8 / (2 * 0.2) = 2.
        assert!(close(
            Mg1::new(0.8, 1.0, 1.0).unwrap().mean_wait(),
            2.0,
            1e-12
        ));
        // SCV 4: E[S^2] = 5, W = 0.8 * 5 / 0.4 = 10.
        assert!(close(
            Mg1::new(0.8, 1.0, 5.0).unwrap().mean_wait(),
            10.0,
            1e-12
        ));
    }

    #[test]
    fn repairman_agrees_with_mva_and_its_limits() {
        let r = Repairman::solve(1, 2.0, 8.0).unwrap();
        assert!(close(r.response, 2.0, 1e-12), "one terminal never waits");
        for n in [2, 5, 20, 60] {
            let exact = Repairman::solve(n, 0.5, 10.0).unwrap();
            let points = mva(
                &[Center {
                    name: "cpu".into(),
                    delay: false,
                    demand: 0.5,
                }],
                10.0,
                n,
            );
            let last = points.last().unwrap();
            assert!(close(exact.throughput, last.throughput, 1e-9));
            assert!(close(exact.response, last.response, 1e-9));
        }
        // Far beyond saturation the server is always busy.
        assert!(close(
            Repairman::solve(200, 0.5, 10.0).unwrap().throughput,
            2.0,
            1e-9
        ));
    }

    fn network(station: &str) -> Network {
        let text = format!(
            "name = \"n\"\n[run]\nend_time = \"1s\"\n\
             [[class]]\nname = \"users\"\nterminals = 5\nthink = {{ exp = {{ mean = \"10s\" }} }}\nstart = \"cpu\"\n\
             [[station]]\nname = \"cpu\"\n{station}\nto = [{{ to = \"cpu\", p = 0.75 }}, {{ to = \"exit\", p = 0.25 }}]\n"
        );
        crate::load_network("n.toml", &text).unwrap()
    }

    #[test]
    fn closed_models_come_from_visit_ratios_and_flag_non_product_form() {
        let model = ClosedModel::of(&network(
            "discipline = \"ps\"\nservice = { erlang = { k = 2, mean = \"0.5s\" } }",
        ))
        .unwrap();
        assert_eq!((model.terminals, model.think), (5, 10.0));
        assert!(
            close(model.centers[0].demand, 2.0, 1e-12),
            "4 visits of 0.5 s"
        );
        assert!(model.caveats.is_empty());
        let fcfs = ClosedModel::of(&network(
            "discipline = \"fcfs\"\nservice = { det = { value = \"0.5s\" } }",
        ))
        .unwrap();
        assert_eq!(fcfs.caveats.len(), 1);
        let two = ClosedModel::of(&network(
            "discipline = \"fcfs\"\nservers = 2\nservice = { exp = { mean = \"0.5s\" } }",
        ));
        assert!(matches!(two, Err(AnalyticError::NotSolvable(_))));
    }

    #[test]
    fn mva_reproduces_the_interactive_check_case() {
        // QSP's interactive example (see DOMAIN.md): D = (0.605, 2.1, 1.35) s,
        // Z = 15 s. N = 3: R = 4.80 s, X = 0.1515/s. N = 20: R = 27.15 s,
        // X = 0.4745/s.
        let centers: Vec<Center> = [0.605, 2.1, 1.35]
            .iter()
            .map(|&d| Center {
                name: String::new(),
                delay: false,
                demand: d,
            })
            .collect();
        let points = mva(&centers, 15.0, 20);
        assert!(
            close(points[2].response, 4.80, 0.005),
            "{}",
            points[2].response
        );
        assert!(close(points[2].throughput, 0.1515, 0.00005));
        assert!(
            close(points[19].response, 27.15, 0.005),
            "{}",
            points[19].response
        );
        assert!(close(points[19].throughput, 0.4745, 0.00005));
        // Throughput is bounded by the bottleneck, 1 / 2.1.
        assert!(points.iter().all(|p| p.throughput <= 1.0 / 2.1 + 1e-12));
    }
}
