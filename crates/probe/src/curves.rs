//! Curves of a sweep: a measure against one swept key (the x axis), one
//! curve per value of the other keys, each point with its Student-t
//! interval over the replications; the closed model's asymptotic bound and
//! MVA curve beside them; and the knees of the throughput curves.
//!
//! Two knees are found, by rules stated in docs/batch.md:
//!
//! - **Against the bound.** Where the scenario is a closed model MVA
//!   solves, N* = (D + Z) / D_max is where the asymptotic bounds cross; the
//!   point where the measured throughput falls furthest below the bound
//!   min(N / (D + Z), 1 / D_max) (by the mean, in throughput's units) is
//!   where the model departs most from a system limited only by its
//!   bottleneck.
//! - **Thrashing.** The peak is the point of largest mean throughput; the
//!   points whose intervals reach the peak's are as good as it within the
//!   replications' precision (the peak's range); past the peak, the
//!   throughput falls to half the peak at the x found by linear
//!   interpolation between the first point at or below half and the one
//!   before it; the share of the peak kept at the sweep's last point
//!   measures how gracefully the system takes overload (1: all of it, as
//!   a system limited by its bottleneck alone; near 0: it thrashes).

use crate::plot::{Chart, Kind, Series};
use crate::report::{new_table, num};
use tpsim_models::analytic::Reference;
use tpsim_models::batch::{PointRuns, matches};
use tpsim_models::replicate::Estimate;
use tpsim_models::units::{self, Figure};

/// The measure of a system's throughput: the sum of its classes'.
pub const THROUGHPUT: &str = "throughput";

/// The swept key a sweep's curves are drawn against.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// The key.
    pub key: String,
    /// The unit its values are shown in ("" for plain numbers).
    pub unit: &'static str,
    /// Its place among the swept keys.
    index: usize,
    /// The places of the other keys that take several values: a curve for
    /// each of their values. Keys of one value are constants, in no label.
    others: Vec<usize>,
}

impl Axis {
    /// The axis's label: the key, and its unit in brackets.
    pub fn label(&self) -> String {
        if self.unit.is_empty() {
            self.key.clone()
        } else {
            format!("{} [{}]", self.key, self.unit)
        }
    }
}

/// The number a swept value stands for, and its unit: a plain number, a
/// size (in KiB), a duration (in s), a rate (in 1/s) or a transfer rate
/// (in KB/s).
pub fn axis_value(text: &str) -> Option<(f64, &'static str)> {
    if let Ok(x) = text.trim().parse::<f64>() {
        return x.is_finite().then_some((x, ""));
    }
    if let Ok(b) = units::parse_size(text) {
        return Some((b.0 / 1024.0, "KiB"));
    }
    if let Ok(s) = units::parse_duration(text) {
        return Some((s.0, "s"));
    }
    if let Ok(r) = units::parse_rate(text) {
        return Some((r.0, "1/s"));
    }
    units::parse_transfer_rate(text)
        .ok()
        .map(|r| (r.0 / 1000.0, "KB/s"))
}

/// One point of a sweep as the choice of its axis sees it.
#[derive(Clone, Copy, Debug)]
pub struct AxisPoint<'a> {
    /// Each swept key and its value there, as text.
    pub values: &'a [(String, String)],
    /// The closed model's population N there, where it has one.
    pub population: Option<u32>,
}

impl<'a> From<&'a PointRuns> for AxisPoint<'a> {
    fn from(p: &'a PointRuns) -> AxisPoint<'a> {
        AxisPoint {
            values: &p.values,
            population: p.reference.as_ref().map(|r| r.population),
        }
    }
}

/// A key's values over the points as numbers of one unit, or `None`.
fn numbers(points: &[AxisPoint], index: usize) -> Option<(Vec<f64>, &'static str)> {
    let mut unit = None;
    let mut xs = Vec::with_capacity(points.len());
    for p in points {
        let (x, u) = axis_value(&p.values[index].1)?;
        if unit.is_some_and(|unit| unit != u) {
            return None;
        }
        unit = Some(u);
        xs.push(x);
    }
    Some((xs, unit.unwrap_or_default()))
}

/// How many different values a key takes over the points.
fn distinct(points: &[AxisPoint], index: usize) -> usize {
    let mut values: Vec<&str> = points.iter().map(|p| p.values[index].1.as_str()).collect();
    values.sort_unstable();
    values.dedup();
    values.len()
}

/// The axis of a sweep over `keys`, in this order:
///
/// - `chosen` (`--x`), which must be a swept key taking several values,
///   all numbers of one unit;
/// - else the one key taking several values that are numbers of one unit
///   (a key of one value, such as `--set run.end_time=40000s`, is a
///   constant of the sweep, never its axis);
/// - else, of several such keys, the one whose value is the closed
///   model's population N at every point (the bound and the knees are
///   functions of N).
///
/// `None` when no key can be an axis (nothing to draw); an error, naming
/// the candidates, when several can and none of the rules picks one, or
/// when the chosen key cannot be one.
pub fn axis(
    keys: &[String],
    chosen: Option<&str>,
    points: &[AxisPoint],
) -> Result<Option<Axis>, String> {
    let varying: Vec<usize> = (0..keys.len())
        .filter(|&i| distinct(points, i) > 1)
        .collect();
    let candidates: Vec<usize> = varying
        .iter()
        .copied()
        .filter(|&i| numbers(points, i).is_some())
        .collect();
    let names = |places: &[usize]| {
        places
            .iter()
            .map(|&i| keys[i].as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let index = match chosen {
        Some(key) => {
            let index = keys.iter().position(|k| k == key).ok_or_else(|| {
                format!(
                    "--x {key}: not a swept key; the swept keys are {}",
                    if keys.is_empty() {
                        "none".to_string()
                    } else {
                        keys.join(", ")
                    }
                )
            })?;
            if numbers(points, index).is_none() {
                return Err(format!(
                    "--x {key}: its values are not numbers of one unit, so they cannot be an axis"
                ));
            }
            if !varying.contains(&index) {
                return Err(format!(
                    "--x {key}: it takes one value in this sweep, so it cannot be an axis; {}",
                    match candidates.as_slice() {
                        [] => "no swept key takes several numbers".to_string(),
                        places => format!("the keys that can are {}", names(places)),
                    }
                ));
            }
            index
        }
        None => match candidates.as_slice() {
            [] => return Ok(None),
            [one] => *one,
            several => {
                let population: Vec<usize> = several
                    .iter()
                    .copied()
                    .filter(|&i| {
                        points.iter().all(|p| {
                            p.population.is_some_and(|n| {
                                axis_value(&p.values[i].1) == Some((f64::from(n), ""))
                            })
                        })
                    })
                    .collect();
                match population.as_slice() {
                    [one] => *one,
                    _ => {
                        return Err(format!(
                            "the sweep has several keys its curves could be drawn against: {}; name one with --x KEY, and the others' values make a curve each",
                            names(several)
                        ));
                    }
                }
            }
        },
    };
    let unit = numbers(points, index).map_or("", |(_, unit)| unit);
    Ok(Some(Axis {
        key: keys[index].clone(),
        unit,
        index,
        others: varying.into_iter().filter(|&i| i != index).collect(),
    }))
}

/// One point of a curve.
#[derive(Clone, Debug, PartialEq)]
pub struct CurvePoint {
    /// Where on the axis.
    pub x: f64,
    /// The measure's estimate over the point's replications.
    pub estimate: Estimate,
    /// The closed model's bounds and MVA solution there.
    pub reference: Option<Reference>,
}

/// A measure against the axis at one value of the other keys.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    /// The other keys' values, `key=value, ...` (empty with one key).
    pub label: String,
    /// Its points, by x.
    pub points: Vec<CurvePoint>,
}

/// The curves of `measure` (a measure's name, or [`THROUGHPUT`]) against
/// `axis`, at confidence `level`, one per value of the other keys in the
/// order they first appear.
pub fn curves(axis: &Axis, points: &[PointRuns], measure: &str, level: f64) -> Vec<Curve> {
    let mut curves: Vec<Curve> = Vec::new();
    for p in points {
        let label = axis
            .others
            .iter()
            .map(|&i| format!("{}={}", p.values[i].0, p.values[i].1))
            .collect::<Vec<_>>()
            .join(", ");
        let x = axis_value(&p.values[axis.index].1).map_or(f64::NAN, |v| v.0);
        let point = CurvePoint {
            x,
            estimate: Estimate::of(&values_of(p, measure), level),
            reference: p.reference.clone(),
        };
        match curves.iter_mut().find(|c| c.label == label) {
            Some(curve) => curve.points.push(point),
            None => curves.push(Curve {
                label,
                points: vec![point],
            }),
        }
    }
    for curve in &mut curves {
        curve.points.sort_by(|a, b| a.x.total_cmp(&b.x));
    }
    curves
}

/// The values of `measure` over a point's replications, those not
/// measured left out; [`THROUGHPUT`] sums the classes' throughputs.
fn values_of(point: &PointRuns, measure: &str) -> Vec<f64> {
    let columns: Vec<usize> = point
        .measures
        .iter()
        .enumerate()
        .filter(|(_, name)| {
            if measure == THROUGHPUT {
                matches("classes.*.throughput", name)
            } else {
                name.as_str() == measure
            }
        })
        .map(|(i, _)| i)
        .collect();
    if columns.is_empty() {
        return Vec::new();
    }
    point
        .replications
        .iter()
        .map(|r| columns.iter().map(|&c| r.values[c]).sum::<f64>())
        .filter(|x| !x.is_nan())
        .collect()
}

/// The knees of one throughput curve.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Knee {
    /// The curve's label.
    pub curve: String,
    /// N* = (D + Z) / D_max, where the closed model has one.
    pub saturation: Option<f64>,
    /// Where the mean falls furthest below the asymptotic bound, and by
    /// how much.
    pub furthest_below: Option<(f64, f64)>,
    /// The point of largest mean throughput, and that mean.
    pub peak: Option<(f64, f64)>,
    /// The first and last x whose intervals reach the peak's interval.
    pub peak_range: Option<(f64, f64)>,
    /// Past the peak, where the mean falls to half the peak.
    pub half: Option<f64>,
    /// The sweep's last measured point and the share of the peak's mean
    /// its mean keeps.
    pub kept: Option<(f64, f64)>,
}

/// The knees of throughput curves, by the rules in the module's docs.
pub fn knees(curves: &[Curve]) -> Vec<Knee> {
    curves.iter().map(knee).collect()
}

fn knee(curve: &Curve) -> Knee {
    let measured: Vec<(f64, &Estimate)> = curve
        .points
        .iter()
        .filter(|p| p.estimate.n > 0)
        .map(|p| (p.x, &p.estimate))
        .collect();
    let saturation = curve
        .points
        .iter()
        .find_map(|p| p.reference.as_ref())
        .and_then(Reference::saturation);
    let furthest_below = curve
        .points
        .iter()
        .filter(|p| p.estimate.n > 0)
        .filter_map(|p| {
            let r = p.reference.as_ref()?;
            Some((
                p.x,
                throughput_bound(r, f64::from(r.population)) - p.estimate.mean,
            ))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1));
    // The first of equal highest means: the smallest population reaching it.
    let top =
        measured
            .iter()
            .enumerate()
            .fold(
                None,
                |best: Option<(usize, &(f64, &Estimate))>, p| match best {
                    Some(b) if b.1.1.mean >= p.1.1.mean => Some(b),
                    _ => Some(p),
                },
            );
    let Some((at, &(peak_x, peak))) = top else {
        return Knee {
            curve: curve.label.clone(),
            saturation,
            furthest_below,
            peak: None,
            peak_range: None,
            half: None,
            kept: None,
        };
    };
    let low = |e: &Estimate| e.mean - e.half_width.unwrap_or(0.0);
    let high = |e: &Estimate| e.mean + e.half_width.unwrap_or(0.0);
    let reaching: Vec<f64> = measured
        .iter()
        .filter(|(_, e)| high(e) >= low(peak))
        .map(|&(x, _)| x)
        .collect();
    let half_level = peak.mean / 2.0;
    let half = measured[at..].windows(2).find_map(|w| {
        let ((x0, e0), (x1, e1)) = (w[0], w[1]);
        (e1.mean <= half_level)
            .then(|| x0 + (x1 - x0) * (e0.mean - half_level) / (e0.mean - e1.mean))
    });
    Knee {
        curve: curve.label.clone(),
        saturation,
        furthest_below,
        peak: Some((peak_x, peak.mean)),
        peak_range: Some((reaching[0], reaching[reaching.len() - 1])),
        half,
        kept: measured
            .last()
            .filter(|_| peak.mean > 0.0)
            .map(|&(x, e)| (x, e.mean / peak.mean)),
    }
}

/// The knees as a table, with a line saying how they were found.
pub fn knee_table(axis: &Axis, knees: &[Knee]) -> String {
    let mut table = new_table(&[
        "curve",
        "N* = (D+Z)/Dmax",
        "furthest below the bound",
        "peak throughput",
        "as high within intervals",
        "falls to half at",
        "share of the peak kept at the end",
    ]);
    for k in knees {
        table.add_row(vec![
            if k.curve.is_empty() {
                "-".to_string()
            } else {
                k.curve.clone()
            },
            k.saturation.map_or("-".into(), short),
            k.furthest_below.map_or("-".into(), |(x, gap)| {
                format!("at {} ({} below)", short(x), short(gap))
            }),
            k.peak
                .map_or("-".into(), |(x, y)| format!("{} at {}", short(y), short(x))),
            k.peak_range
                .map_or("-".into(), |(a, b)| format!("{}..{}", short(a), short(b))),
            k.half
                .map_or("not in the sweep".into(), |x| short(x).to_string()),
            k.kept.map_or("-".into(), |(x, share)| {
                format!("{:.0}% at {}", share * 100.0, short(x))
            }),
        ]);
    }
    format!(
        "Knees of the throughput (the classes' throughputs summed, per second) against {}; docs/batch.md states the rules.\n\n{table}\n",
        axis.label()
    )
}

/// A number to four significant figures.
fn short(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return x.to_string();
    }
    let digits = (3 - x.abs().log10().floor() as i32).max(0) as usize;
    let text = format!("{x:.digits$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// The knees as CSV: one row per curve, empty where there is nothing.
pub fn knees_csv(axis: &Axis, knees: &[Knee]) -> String {
    let field = |x: Option<f64>| x.map_or_else(String::new, num);
    let mut text = String::from(
        "curve,axis,saturation,furthest_below_at,furthest_below_by,peak_at,peak_throughput,peak_range_low,peak_range_high,half_at,kept_at,kept_share\n",
    );
    for k in knees {
        let row = [
            csv_field(&k.curve),
            csv_field(&axis.key),
            field(k.saturation),
            field(k.furthest_below.map(|f| f.0)),
            field(k.furthest_below.map(|f| f.1)),
            field(k.peak.map(|p| p.0)),
            field(k.peak.map(|p| p.1)),
            field(k.peak_range.map(|r| r.0)),
            field(k.peak_range.map(|r| r.1)),
            field(k.half),
            field(k.kept.map(|k| k.0)),
            field(k.kept.map(|k| k.1)),
        ];
        text.push_str(&row.join(","));
        text.push('\n');
    }
    text
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// The asymptotic bound on throughput at a population of `n`:
/// min(n / (D + Z), 1 / D_max) (no second term without a queueing
/// centre).
pub fn throughput_bound(r: &Reference, n: f64) -> f64 {
    let light = n / (r.demand + r.think);
    if r.max_demand > 0.0 {
        light.min(1.0 / r.max_demand)
    } else {
        light
    }
}

/// The asymptotic bound on mean response at a population of `n`:
/// max(D, n D_max - Z) (D alone without a queueing centre).
pub fn response_bound(r: &Reference, n: f64) -> f64 {
    r.demand.max(n * r.max_demand - r.think)
}

/// Which of the closed model's curves a chart draws beside the measured
/// ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Beside {
    /// None.
    Nothing,
    /// MVA's throughput and the asymptotic bound on it.
    Throughput,
    /// MVA's mean response and the asymptotic bound on it.
    Response,
}

/// A closed model's curve beside the measured ones: its legend name, how
/// it is drawn, and its value from a point's reference at a population.
struct Analytic {
    name: &'static str,
    bound: bool,
    of: fn(&Reference, f64) -> f64,
}

impl Beside {
    fn curves(self) -> Vec<Analytic> {
        let mva = |of| Analytic {
            name: "MVA",
            bound: false,
            of,
        };
        match self {
            Beside::Nothing => Vec::new(),
            Beside::Throughput => vec![
                mva(|r, _| r.throughput),
                Analytic {
                    name: "bound min(N/(D+Z), 1/Dmax)",
                    bound: true,
                    of: throughput_bound,
                },
            ],
            Beside::Response => vec![
                mva(|r, _| r.response),
                Analytic {
                    name: "bound max(D, N Dmax - Z)",
                    bound: true,
                    of: response_bound,
                },
            ],
        }
    }
}

/// The bound along a curve: where the axis is the population N and the
/// demands stay as they are, its vertices (the ends of the curve and, where
/// it lies between them, N* = (D + Z) / D_max, the corner), computed from
/// the demands so that the corner is drawn where it is; against another
/// key, its value at each point.
fn bound_line(curve: &Curve, of: fn(&Reference, f64) -> f64) -> Vec<(f64, f64)> {
    let at: Vec<(f64, &Reference)> = curve
        .points
        .iter()
        .filter_map(|p| Some((p.x, p.reference.as_ref()?)))
        .collect();
    let (Some(&(low, first)), Some(&(high, _))) = (at.first(), at.last()) else {
        return Vec::new();
    };
    let along_n = at.iter().all(|(x, r)| {
        *x == f64::from(r.population)
            && (r.think, r.demand, r.max_demand) == (first.think, first.demand, first.max_demand)
    });
    if !along_n {
        return at
            .iter()
            .map(|&(x, r)| (x, of(r, f64::from(r.population))))
            .collect();
    }
    let corner = first.saturation().filter(|&n| low < n && n < high);
    std::iter::once(low)
        .chain(corner)
        .chain((high > low).then_some(high))
        .map(|n| (n, of(first, n)))
        .collect()
}

/// The chart of `measure`'s curves, each with its interval as a band, and
/// the closed model's curves beside them (drawn once when every curve has
/// the same ones, as when the other keys are ones MVA leaves out, such as
/// memory size).
pub fn chart(axis: &Axis, measure: &str, curves: &[Curve], beside: Beside, level: f64) -> Chart {
    let mut series = Vec::new();
    for c in curves {
        let name = if c.label.is_empty() {
            "simulation".to_string()
        } else {
            c.label.clone()
        };
        let measured: Vec<&CurvePoint> = c.points.iter().filter(|p| p.estimate.n > 0).collect();
        series.push(Series {
            band: measured
                .iter()
                .filter_map(|p| {
                    let h = p.estimate.half_width?;
                    Some((p.x, p.estimate.mean - h, p.estimate.mean + h))
                })
                .collect(),
            counts: measured.iter().map(|p| p.estimate.n as u64).collect(),
            ..Series::new(
                name,
                Kind::Measured,
                measured.iter().map(|p| (p.x, p.estimate.mean)).collect(),
            )
        });
    }
    for analytic in beside.curves() {
        let lines: Vec<(usize, Vec<(f64, f64)>)> = curves
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let points = if analytic.bound {
                    bound_line(c, analytic.of)
                } else {
                    c.points
                        .iter()
                        .filter_map(|p| {
                            let r = p.reference.as_ref()?;
                            Some((p.x, (analytic.of)(r, f64::from(r.population))))
                        })
                        .collect()
                };
                (i, points)
            })
            .filter(|(_, points)| !points.is_empty())
            .collect();
        let same = lines.windows(2).all(|w| w[0].1 == w[1].1);
        for (i, points) in lines.into_iter() {
            let label = &curves[i].label;
            let (name, of) = if same {
                (analytic.name.to_string(), None)
            } else if label.is_empty() {
                (analytic.name.to_string(), Some(i))
            } else {
                (format!("{}, {label}", analytic.name), Some(i))
            };
            let kind = if analytic.bound {
                Kind::Bound { of }
            } else {
                Kind::Model { of }
            };
            series.push(Series::new(name, kind, points));
            if same {
                break;
            }
        }
    }
    let y_label = measure_label(measure);
    let x_counts = axis.unit.is_empty()
        && curves
            .iter()
            .flat_map(|c| &c.points)
            .all(|p| p.x.fract() == 0.0);
    Chart {
        title: format!(
            "{} against {}",
            capitalised(y_label.split(" [").next().unwrap_or_default()),
            axis.key
        ),
        x_label: axis.label(),
        x_counts,
        y_label,
        band_label: format!("{}% interval", Figure(level * 100.0)),
        series,
    }
}

/// A measure's name in `summary.json`'s terms as an axis label with its
/// unit: `classes.job.mean_response` as `mean response of job [s]`,
/// `stations.cpu.utilization` as `utilization of cpu`, the system's
/// throughput as `throughput [1/s]`.
pub fn measure_label(measure: &str) -> String {
    if measure == THROUGHPUT {
        return "throughput [1/s]".to_string();
    }
    let parts: Vec<&str> = measure.split('.').collect();
    let (field, owner) = match parts.as_slice() {
        [_, owner @ .., field] if !owner.is_empty() => (*field, owner.join(".")),
        [section, field] => (*field, (*section).to_string()),
        _ => return measure.to_string(),
    };
    let unit = if field.ends_with("_bytes") {
        " [bytes]"
    } else if field == "throughput" || field.ends_with("per_second") {
        " [1/s]"
    } else if field.contains("response")
        || field.contains("wait")
        || field == "tav"
        || field.contains("elapsed")
    {
        " [s]"
    } else {
        ""
    };
    let words = field
        .trim_end_matches("_bytes")
        .trim_end_matches("_per_second")
        .replace('_', " ");
    let per_second = if field.ends_with("_per_second") {
        " per second"
    } else {
        ""
    };
    format!("{words}{per_second} of {owner}{unit}")
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpsim_models::batch::Replication;
    use tpsim_models::summary::StoppedBy;

    fn reference(n: u32) -> Reference {
        // D = 1 s, D_max = 0.5 s, Z = 9 s: N* = 20, bound min(N/10, 2).
        Reference {
            population: n,
            think: 9.0,
            demand: 1.0,
            max_demand: 0.5,
            throughput: f64::from(n) / 10.5,
            response: 0.5,
        }
    }

    /// A sweep over memory (two sizes) and terminals: throughput `tp(m, n)`
    /// give or take 0.01 over three replications.
    fn sweep(tp: impl Fn(usize, u32) -> f64) -> Vec<PointRuns> {
        let mut points = Vec::new();
        for (m, memory) in ["160KiB", "320KiB"].iter().enumerate() {
            for n in [10, 20, 30, 40, 50] {
                let mean = tp(m, n);
                points.push(PointRuns {
                    values: vec![
                        ("memory.size".into(), memory.to_string()),
                        ("users.terminals".into(), n.to_string()),
                    ],
                    measures: vec!["classes.a.throughput".into(), "classes.b.throughput".into()],
                    replications: [-0.01, 0.0, 0.01]
                        .iter()
                        .enumerate()
                        .map(|(r, d)| Replication {
                            replication: r as u64,
                            stopped_by: StoppedBy::EndTime,
                            values: vec![(mean + d) / 2.0, (mean + d) / 2.0],
                        })
                        .collect(),
                    stopped_by: tpsim_models::replicate::Stop::Count,
                    warmup: 100.0,
                    reference: Some(reference(n)),
                });
            }
        }
        points
    }

    fn keys() -> Vec<String> {
        vec!["memory.size".into(), "users.terminals".into()]
    }

    fn axis_of(
        keys: &[String],
        chosen: Option<&str>,
        points: &[PointRuns],
    ) -> Result<Option<Axis>, String> {
        let points: Vec<AxisPoint> = points.iter().map(AxisPoint::from).collect();
        super::axis(keys, chosen, &points)
    }

    #[test]
    fn the_axis_is_the_one_chosen_or_the_one_key_that_can_be() {
        let points = sweep(|_, _| 1.0);
        // Two keys of several numbers: the one that is the population N.
        let axis = axis_of(&keys(), None, &points).unwrap().unwrap();
        assert_eq!((axis.key.as_str(), axis.unit), ("users.terminals", ""));
        let memory = axis_of(&keys(), Some("memory.size"), &points)
            .unwrap()
            .unwrap();
        assert_eq!(memory.label(), "memory.size [KiB]");
        assert_eq!(
            axis_of(&keys(), Some("users"), &points).unwrap_err(),
            "--x users: not a swept key; the swept keys are memory.size, users.terminals"
        );
        assert_eq!(axis_of(&[], None, &[]), Ok(None));
        assert_eq!(axis_value("1MiB"), Some((1024.0, "KiB")));
        assert_eq!(axis_value("250ms"), Some((0.25, "s")));
        assert_eq!(axis_value("0.5/s"), Some((0.5, "1/s")));
        assert_eq!(axis_value("12"), Some((12.0, "")));
        assert_eq!(axis_value("800KB/s"), Some((800.0, "KB/s")));
        assert_eq!(axis_value("fcfs"), None);
        // Terminals of one value: memory is the only key that can be it.
        let one: Vec<PointRuns> = points
            .iter()
            .filter(|p| p.values[1].1 == "10")
            .cloned()
            .collect();
        let only = axis_of(&keys(), None, &one).unwrap().unwrap();
        assert_eq!(only.key, "memory.size");
        // A chosen key none of whose values is a number.
        let mut named = sweep(|_, _| 1.0);
        for p in &mut named {
            p.values[1].1 = "many".into();
        }
        assert!(axis_of(&keys(), Some("users.terminals"), &named).is_err());
        let mut words = sweep(|_, _| 1.0);
        words[3].values[1].1 = "many".into();
        assert_eq!(
            axis_of(&keys(), None, &words).unwrap().unwrap().key,
            "memory.size"
        );
        assert!(axis_of(&keys(), Some("users.terminals"), &words).is_err());
    }

    /// The sweep with a constant given after its keys, as `--set
    /// run.end_time=40000s` last on the command line.
    fn with_constant(mut points: Vec<PointRuns>) -> (Vec<String>, Vec<PointRuns>) {
        for p in &mut points {
            p.values.push(("run.end_time".into(), "40000s".into()));
        }
        let mut keys = keys();
        keys.push("run.end_time".into());
        (keys, points)
    }

    #[test]
    fn a_key_of_one_value_is_a_constant_never_the_axis_nor_in_a_label() {
        let (keys, points) = with_constant(sweep(|_, _| 1.0));
        let axis = axis_of(&keys, None, &points).unwrap().unwrap();
        assert_eq!(axis.key, "users.terminals");
        let curves = curves(&axis, &points, THROUGHPUT, 0.95);
        assert_eq!(curves[0].label, "memory.size=160KiB");
        // Without the population rule too: memory is the only candidate.
        let mut open: Vec<PointRuns> = points
            .iter()
            .filter(|p| p.values[1].1 == "10")
            .cloned()
            .collect();
        for p in &mut open {
            p.reference = None;
        }
        assert_eq!(
            axis_of(&keys, None, &open).unwrap().unwrap().key,
            "memory.size"
        );
        // Named as the axis, the constant is refused, the candidates named.
        assert_eq!(
            axis_of(&keys, Some("run.end_time"), &open).unwrap_err(),
            "--x run.end_time: it takes one value in this sweep, so it cannot be an axis; the keys that can are memory.size"
        );
    }

    #[test]
    fn a_sweep_with_no_way_to_pick_its_axis_is_refused_naming_the_candidates() {
        let (keys, mut points) = with_constant(sweep(|_, _| 1.0));
        // An open model: no population to pick by.
        for p in &mut points {
            p.reference = None;
        }
        assert_eq!(
            axis_of(&keys, None, &points).unwrap_err(),
            "the sweep has several keys its curves could be drawn against: memory.size, users.terminals; name one with --x KEY, and the others' values make a curve each"
        );
        let chosen = axis_of(&keys, Some("memory.size"), &points)
            .unwrap()
            .unwrap();
        assert_eq!(chosen.key, "memory.size");
        let curves = curves(&chosen, &points, THROUGHPUT, 0.95);
        assert_eq!(curves.len(), 5);
        assert_eq!(curves[4].label, "users.terminals=50");
    }

    #[test]
    fn curves_split_by_the_other_keys_and_sum_the_classes_throughputs() {
        let points = sweep(|m, n| f64::from(n) / 10.0 + m as f64);
        let axis = axis_of(&keys(), None, &points).unwrap().unwrap();
        let curves = curves(&axis, &points, THROUGHPUT, 0.95);
        assert_eq!(curves.len(), 2);
        assert_eq!(curves[1].label, "memory.size=320KiB");
        let p = &curves[1].points[2];
        assert_eq!((p.x, p.estimate.n), (30.0, 3));
        assert!((p.estimate.mean - 4.0).abs() < 1e-12, "{p:?}");
        let one = super::curves(&axis, &points, "classes.a.throughput", 0.95);
        assert!((one[1].points[2].estimate.mean - 2.0).abs() < 1e-12);
        assert_eq!(
            super::curves(&axis, &points, "nothing", 0.95)[0].points[0]
                .estimate
                .n,
            0
        );
    }

    #[test]
    fn knees_follow_the_stated_rules() {
        // Small memory: peaks at 20 (1.8; 1.78 at 10 is as high within
        // the intervals, each ± 4.303 · 0.01 / √3), falls to 0.6 at 30,
        // half (0.9) crossed at 20 + 10 * (1.8 - 0.9) / (1.8 - 0.6) = 27.5.
        // Large memory: rises to the bound and stays there.
        let points = sweep(|m, n| match (m, n) {
            (0, 10) => 1.78,
            (0, 20) => 1.8,
            (0, 30) => 0.6,
            (0, _) => 0.3,
            (_, n) => (f64::from(n) / 10.0).min(2.0) - 0.1,
        });
        let axis = axis_of(&keys(), None, &points).unwrap().unwrap();
        let knees = knees(&curves(&axis, &points, THROUGHPUT, 0.95));
        let small = &knees[0];
        assert_eq!(small.saturation, Some(20.0));
        assert_eq!(small.peak, Some((20.0, 1.8)));
        assert_eq!(small.peak_range, Some((10.0, 20.0)));
        assert!((small.half.unwrap() - 27.5).abs() < 1e-9, "{small:?}");
        let (at, by) = small.furthest_below.unwrap();
        assert_eq!(at, 50.0);
        assert!((by - 1.7).abs() < 1e-9);
        // A point with nothing measured is left out of the knees.
        let mut gap = points.clone();
        for r in &mut gap[4].replications {
            r.values = vec![f64::NAN, f64::NAN];
        }
        let with_gap = super::knees(&curves(&axis, &gap, THROUGHPUT, 0.95));
        assert_eq!(with_gap[0].peak, small.peak);
        assert_eq!(with_gap[0].furthest_below.unwrap().0, 40.0);
        // At the last point, 50: 0.3 of the peak's 1.8 kept.
        let (at, share) = small.kept.unwrap();
        assert_eq!(at, 50.0);
        assert!((share - 0.3 / 1.8).abs() < 1e-12);
        let large = &knees[1];
        assert_eq!(large.half, None);
        assert_eq!(large.kept, Some((50.0, 1.0)));
        // 1.9 at 20, 30, 40 and 50: the first is the peak, all as high.
        assert_eq!(large.peak, Some((20.0, 1.9)));
        assert_eq!(large.peak_range, Some((20.0, 50.0)));
        let table = knee_table(&axis, &knees);
        assert!(table.contains("| memory.size=160KiB |"), "{table}");
        for cell in [
            " 20 |",
            "at 50 (1.7 below)",
            "1.8 at 20",
            "10..20",
            " 27.5 |",
            "17% at 50",
            "100% at 50",
        ] {
            assert!(table.contains(cell), "{cell:?} in {table}");
        }
        assert_eq!(short(0.012345), "0.01235");
        assert_eq!(short(1234.6), "1235");
        assert_eq!(short(0.0), "0");
        assert!(table.contains("not in the sweep"), "{table}");
        let csv = knees_csv(&axis, &knees);
        assert!(
            csv.lines()
                .nth(1)
                .unwrap()
                .starts_with("memory.size=160KiB,users.terminals,20.0,50.0,"),
            "{csv}"
        );
    }

    #[test]
    fn a_chart_draws_the_model_curves_once_when_every_curve_shares_them() {
        let points = sweep(|_, n| f64::from(n) / 12.0);
        let axis = axis_of(&keys(), None, &points).unwrap().unwrap();
        let curves = curves(&axis, &points, THROUGHPUT, 0.95);
        let chart = chart(&axis, THROUGHPUT, &curves, Beside::Throughput, 0.95);
        let names: Vec<&str> = chart.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "memory.size=160KiB",
                "memory.size=320KiB",
                "MVA",
                "bound min(N/(D+Z), 1/Dmax)"
            ]
        );
        // The bound's vertices: the ends and the corner at N* = 20.
        assert_eq!(
            chart.series[3].points,
            [(10.0, 1.0), (20.0, 2.0), (50.0, 2.0)]
        );
        assert_eq!(chart.series[3].kind, Kind::Bound { of: None });
        assert_eq!(chart.series[2].kind, Kind::Model { of: None });
        assert_eq!(chart.series[0].counts, [3; 5]);
        assert_eq!(chart.series[0].band.len(), 5);
        let (x, low, high) = chart.series[0].band[1];
        let mean = 20.0 / 12.0;
        let h = 4.302652729911275 * 0.01 / 3f64.sqrt();
        assert_eq!(x, 20.0);
        assert!(
            (low - (mean - h)).abs() < 1e-9 && (high - (mean + h)).abs() < 1e-9,
            "{low} {high}"
        );
        // A point with nothing measured is not drawn.
        let mut gap = points.clone();
        for r in &mut gap[1].replications {
            r.values = vec![f64::NAN, f64::NAN];
        }
        let gapped = super::chart(
            &axis,
            THROUGHPUT,
            &super::curves(&axis, &gap, THROUGHPUT, 0.95),
            Beside::Nothing,
            0.95,
        );
        assert_eq!(gapped.series.len(), 2);
        assert_eq!(gapped.series[0].points.len(), 4);
        assert_eq!(chart.x_label, "users.terminals");
        assert_eq!(chart.y_label, "throughput [1/s]");
        let mut apart = points.clone();
        apart[0].reference.as_mut().unwrap().response = 9.0;
        let curves = super::curves(&axis, &apart, "classes.a.mean_response", 0.95);
        let chart = super::chart(
            &axis,
            "classes.a.mean_response",
            &curves,
            Beside::Response,
            0.95,
        );
        let names: Vec<&str> = chart.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "memory.size=160KiB",
                "memory.size=320KiB",
                "MVA, memory.size=160KiB",
                "MVA, memory.size=320KiB",
                "bound max(D, N Dmax - Z)"
            ]
        );
        // Each curve's own MVA line in its colour.
        assert_eq!(chart.series[3].kind, Kind::Model { of: Some(1) });
        assert_eq!(chart.y_label, "mean response of a [s]");
        assert_eq!(chart.band_label, "95% interval");
        assert!(crate::plot::svg(&chart).is_ok());
    }

    /// A one-curve sweep of the population `ns` of a model with D = 1.2 s,
    /// D_max = 1.05 s and Z = 8.3 s: N* = 9.5 / 1.05, between 9 and 10.
    fn population_sweep(ns: &[u32]) -> (Axis, Vec<Curve>) {
        let points: Vec<PointRuns> = sweep(|_, _| 0.5)
            .into_iter()
            .take(ns.len())
            .zip(ns)
            .map(|(mut p, &n)| {
                p.values = vec![("users.terminals".into(), n.to_string())];
                p.reference = Some(Reference {
                    population: n,
                    think: 8.3,
                    demand: 1.2,
                    max_demand: 1.05,
                    throughput: 0.0,
                    response: 0.0,
                });
                p
            })
            .collect();
        let keys = vec!["users.terminals".to_string()];
        let axis = axis_of(&keys, None, &points).unwrap().unwrap();
        let curves = curves(&axis, &points, THROUGHPUT, 0.95);
        (axis, curves)
    }

    #[test]
    fn the_bounds_are_the_asymptotes_with_their_corner_at_n_star_exactly() {
        let (axis, curves) = population_sweep(&[4, 8, 12, 16]);
        let knee = 9.5 / 1.05;
        let bound = |beside| {
            let chart = chart(&axis, THROUGHPUT, &curves, beside, 0.95);
            chart
                .series
                .into_iter()
                .find(|s| matches!(s.kind, Kind::Bound { .. }))
                .unwrap()
                .points
        };
        let throughput = bound(Beside::Throughput);
        let xs: Vec<f64> = throughput.iter().map(|p| p.0).collect();
        assert_eq!(xs, [4.0, knee, 16.0]);
        // Rising as N / (D + Z) to the corner, flat at 1 / D_max after it.
        assert!((throughput[0].1 - 4.0 / 9.5).abs() < 1e-12);
        assert!((throughput[1].1 - 1.0 / 1.05).abs() < 1e-12);
        assert!((throughput[2].1 - 1.0 / 1.05).abs() < 1e-12);
        // Response: flat at D to the corner, then N D_max - Z.
        let response = bound(Beside::Response);
        assert_eq!(response.iter().map(|p| p.0).collect::<Vec<_>>(), xs);
        assert!((response[0].1 - 1.2).abs() < 1e-12);
        assert!((response[1].1 - 1.2).abs() < 1e-12);
        assert!((response[2].1 - (16.0 * 1.05 - 8.3)).abs() < 1e-12);
        // Not sampled at the swept N: 8 and 12 are not vertices.
        assert!(!xs.contains(&8.0) && !xs.contains(&12.0));
        // All of the sweep past N*: a straight line between its ends.
        let (axis, past) = population_sweep(&[10, 20]);
        let chart = chart(&axis, THROUGHPUT, &past, Beside::Throughput, 0.95);
        assert_eq!(
            chart.series[2].points,
            [(10.0, 1.0 / 1.05), (20.0, 1.0 / 1.05)]
        );
        assert!(chart.x_counts);
    }

    #[test]
    fn against_another_key_the_bound_is_its_value_at_each_point() {
        let points = sweep(|_, _| 1.0);
        let axis = axis_of(&keys(), Some("memory.size"), &points)
            .unwrap()
            .unwrap();
        let curves = curves(&axis, &points, THROUGHPUT, 0.95);
        let chart = chart(&axis, THROUGHPUT, &curves, Beside::Throughput, 0.95);
        // One curve per population, each its own bound: min(N/10, 2).
        let bounds: Vec<&Series> = chart
            .series
            .iter()
            .filter(|s| matches!(s.kind, Kind::Bound { .. }))
            .collect();
        assert_eq!(bounds.len(), 5);
        assert_eq!(bounds[0].points, [(160.0, 1.0), (320.0, 1.0)]);
        assert_eq!(bounds[4].kind, Kind::Bound { of: Some(4) });
        assert_eq!(
            bounds[4].name,
            "bound min(N/(D+Z), 1/Dmax), users.terminals=50"
        );
    }

    #[test]
    fn measures_are_labelled_in_words_with_their_units() {
        for (measure, label) in [
            ("classes.job.mean_response", "mean response of job [s]"),
            ("classes.job.throughput", "throughput of job [1/s]"),
            ("stations.cpu.utilization", "utilization of cpu"),
            (
                "paging.faults_per_second",
                "faults per second of paging [1/s]",
            ),
            ("cpu.idle", "idle of cpu"),
            ("memory.user_bytes", "user of memory [bytes]"),
            (THROUGHPUT, "throughput [1/s]"),
        ] {
            assert_eq!(measure_label(measure), label, "{measure}");
        }
    }
}
