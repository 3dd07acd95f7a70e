//! A validated queueing network: classes, stations and routes.
//!
//! This is what a scenario becomes after validation and what the simulator
//! ([`mod@crate::simulate`]) and the analytic solvers ([`crate::analytic`]) read.
//! Every index is checked: a [`Target::Station`] always names an existing
//! station, every route's probabilities add up to 1.

use crate::run::RunSettings;
use crate::summary::StationDiscipline;
use rand::RngExt;
use tpsim_core::{Dist, SimTime, Stream};

/// A validated network scenario.
#[derive(Clone, Debug)]
pub struct Network {
    /// Its name, seed and run length.
    pub settings: RunSettings,
    /// The job classes.
    pub classes: Vec<ClassSpec>,
    /// The stations.
    pub stations: Vec<StationSpec>,
}

/// A class of jobs.
#[derive(Clone, Debug)]
pub struct ClassSpec {
    /// The class's name.
    pub name: String,
    /// Open or closed.
    pub kind: ClassKind,
    /// Where a job starts.
    pub start: Route,
}

/// How jobs of a class enter the network.
#[derive(Clone, Debug)]
pub enum ClassKind {
    /// Jobs arrive from outside and leave at `exit`.
    Open {
        /// Time between arrivals \[s\].
        interarrival: Dist,
    },
    /// A fixed population of terminals: each thinks, submits a job, and
    /// thinks again when the job reaches `exit`.
    Closed {
        /// The number of terminals.
        terminals: u32,
        /// Think time \[s\].
        think: Dist,
    },
}

/// The scheduling discipline of a station.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Discipline {
    /// First come, first served, on one or more servers.
    Fcfs,
    /// Egalitarian processor sharing: with n jobs on c servers each job is
    /// served at rate min(1, c/n).
    Ps,
    /// Round robin: a job is served for at most `quantum`, then goes to the
    /// back of the queue; every dispatch of a job other than the one that
    /// just ran on the server costs `context_switch` of server time.
    RoundRobin {
        /// The longest slice of service a job gets per dispatch.
        quantum: SimTime,
        /// The server time spent switching to a job.
        context_switch: SimTime,
    },
    /// A pure delay (infinite server): every job is served at once.
    Delay,
}

impl Discipline {
    /// The discipline as reported.
    pub fn reported(&self) -> StationDiscipline {
        match self {
            Discipline::Fcfs => StationDiscipline::Fcfs,
            Discipline::Ps => StationDiscipline::Ps,
            Discipline::RoundRobin { .. } => StationDiscipline::Rr,
            Discipline::Delay => StationDiscipline::Delay,
        }
    }
}

/// A service centre.
#[derive(Clone, Debug)]
pub struct StationSpec {
    /// The station's name.
    pub name: String,
    /// How the station schedules its jobs.
    pub discipline: Discipline,
    /// The number of servers (1 for a delay station, which has no limit).
    pub servers: u32,
    /// Service time per class (`None`: the class does not visit).
    pub service: Vec<Option<Dist>>,
    /// Route out per class (`None`: the class does not visit).
    pub routes: Vec<Option<Route>>,
}

/// Where a job goes next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The station with this index.
    Station(usize),
    /// Out of the network (for a closed class: back to the terminal).
    Exit,
}

/// A probabilistic choice of the next target.
#[derive(Clone, Debug, PartialEq)]
pub struct Route {
    branches: Vec<(Target, f64)>,
    cumulative: Vec<f64>,
}

impl Route {
    /// Always to `target`.
    pub fn single(target: Target) -> Route {
        Route {
            branches: vec![(target, 1.0)],
            cumulative: vec![1.0],
        }
    }

    /// To each target with its probability; the probabilities must add up to
    /// 1 (validation checks it).
    pub fn new(branches: Vec<(Target, f64)>) -> Route {
        let cumulative = branches
            .iter()
            .scan(0.0, |acc, &(_, p)| {
                *acc += p;
                Some(*acc)
            })
            .collect();
        Route {
            branches,
            cumulative,
        }
    }

    /// The branches and their probabilities.
    pub fn branches(&self) -> &[(Target, f64)] {
        &self.branches
    }

    /// Draws the next target. A route with one branch draws no random
    /// number, so it does not disturb the stream. Inlined where a job is
    /// routed, so that the usual single branch costs a test; a draw is a
    /// call.
    #[inline]
    pub fn choose(&self, rng: &mut Stream) -> Target {
        match self.branches[..] {
            [(target, _)] => target,
            _ => self.draw(rng),
        }
    }

    /// Draws the target of a route with several branches.
    #[inline(never)]
    fn draw(&self, rng: &mut Stream) -> Target {
        let u: f64 = rng.random();
        let i = self.cumulative.partition_point(|&c| c <= u);
        // Rounding can leave the last cumulative value just below 1.
        self.branches[i.min(self.branches.len() - 1)].0
    }
}

impl Network {
    /// The mean number of visits a job of class `class` makes to each
    /// station per trip from its start to `exit`; `None` if a job can
    /// circulate for ever without leaving. Stations the class cannot reach
    /// get 0. A station without a route for the class counts as an exit.
    pub fn visit_ratios(&self, class: usize) -> Option<Vec<f64>> {
        let n = self.stations.len();
        let next = |k: usize| -> &[(Target, f64)] {
            self.stations[k].routes[class]
                .as_ref()
                .map_or(&[], |r| r.branches())
        };
        // The stations reachable from the start, in discovery order.
        let mut reachable: Vec<usize> = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        let mut seen = vec![false; n];
        let push = |t: Target, seen: &mut Vec<bool>, stack: &mut Vec<usize>| {
            if let Target::Station(k) = t
                && !seen[k]
            {
                seen[k] = true;
                stack.push(k);
            }
        };
        for &(t, p) in self.classes[class].start.branches() {
            if p > 0.0 {
                push(t, &mut seen, &mut stack);
            }
        }
        while let Some(k) = stack.pop() {
            reachable.push(k);
            for &(t, p) in next(k) {
                if p > 0.0 {
                    push(t, &mut seen, &mut stack);
                }
            }
        }
        // Traffic equations on the reachable stations: v = start + v P.
        let index = |k: usize| reachable.iter().position(|&r| r == k);
        let m = reachable.len();
        let mut a = vec![vec![0.0; m]; m];
        let mut b = vec![0.0; m];
        for (i, &k) in reachable.iter().enumerate() {
            a[i][i] += 1.0;
            for &(t, p) in next(k) {
                if let Target::Station(j) = t
                    && let Some(j) = index(j)
                {
                    a[j][i] -= p;
                }
            }
        }
        for &(t, p) in self.classes[class].start.branches() {
            if let Target::Station(k) = t
                && let Some(i) = index(k)
            {
                b[i] += p;
            }
        }
        let v = solve(a, b)?;
        let mut visits = vec![0.0; n];
        for (i, &k) in reachable.iter().enumerate() {
            if !(v[i].is_finite() && v[i] >= -1e-9) {
                return None;
            }
            visits[k] = v[i].max(0.0);
        }
        Some(visits)
    }
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting; `None`
/// if `a` is singular.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..n {
            let factor = a[row][col] / a[col][col];
            if factor != 0.0 {
                let (upper, lower) = a.split_at_mut(row);
                for (x, pivot_x) in lower[0][col..].iter_mut().zip(&upper[col][col..]) {
                    *x -= factor * pivot_x;
                }
                b[row] -= factor * b[col];
            }
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let tail: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - tail) / a[row][row];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaussian_elimination_solves_and_detects_singularity() {
        let x = solve(vec![vec![2.0, 1.0], vec![1.0, 3.0]], vec![3.0, 5.0]).unwrap();
        assert!((x[0] - 0.8).abs() < 1e-12 && (x[1] - 1.4).abs() < 1e-12);
        assert!(solve(vec![vec![1.0, 2.0], vec![2.0, 4.0]], vec![1.0, 2.0]).is_none());
    }

    #[test]
    fn a_route_with_one_branch_draws_nothing() {
        let route = Route::single(Target::Station(2));
        let streams = tpsim_core::Streams::new(3, 0);
        let (mut routed, mut untouched) = (streams.stream("r"), streams.stream("r"));
        for _ in 0..3 {
            assert_eq!(route.choose(&mut routed), Target::Station(2));
        }
        assert_eq!(routed.random::<u64>(), untouched.random::<u64>());
    }

    #[test]
    fn routes_choose_by_cumulative_probability() {
        let route = Route::new(vec![(Target::Station(0), 0.25), (Target::Exit, 0.75)]);
        let mut rng = tpsim_core::Streams::new(3, 0).stream("r");
        let n = 100_000;
        let to_station = (0..n)
            .filter(|_| route.choose(&mut rng) == Target::Station(0))
            .count();
        let p = to_station as f64 / f64::from(n);
        assert!(
            (p - 0.25).abs() < 4.0 * (0.25f64 * 0.75 / f64::from(n)).sqrt(),
            "{p}"
        );
    }
}
