//! The algebra of the 1975 Multics report (RFC-103, section II): the page
//! fault times of two paging devices recovered from readings of the mean
//! processor time per fault, `Tav`, and the fraction of page reads from
//! disk, `f`. Each reading is one equation
//!
//! ```text
//! f · td + (1 − f) · tb = Tav
//! ```
//!
//! in the disk's and the bulk store's times per fault, `td` and `tb`. Two
//! readings at different `f` solve it; the report solved it for every pair
//! of its four readings, and this module does that, flags the pairs whose
//! solution magnifies the readings' errors, and fits all readings at once
//! by least squares with their residuals. The report's MIT#1 + MIT#2 pair
//! is the warning case: their `f` (0.059 and 0.12) are so close that a
//! change of 0.1 ms in one `Tav` moves `td` by about 3 ms.
//!
//! The report's delivered capacity (section V) is here too: a processor's
//! speed times the fraction of processor time in useful work times the
//! processors, compared between installations.

use crate::analysis::{TableError, csv_columns};
use serde::Serialize;
use std::fmt;
use tpsim_models::units::Figure;

/// A pair whose condition number exceeds this is flagged: an error in the
/// readings is magnified more than tenfold in `td` or `tb`.
pub const ILL_CONDITIONED: f64 = 10.0;

/// The columns of a table of readings.
pub const READING_COLUMNS: [&str; 3] = ["reading", "tav", "f"];

/// One reading: an installation's meters over a metering period.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reading {
    /// What it was read from.
    pub name: String,
    /// Mean processor time per page fault \[s\].
    pub tav: f64,
    /// Fraction of page reads from disk.
    pub f: f64,
}

/// Why readings cannot be decomposed.
#[derive(Clone, Debug, PartialEq)]
pub enum ReadingError {
    /// `f` is not a fraction.
    FractionOutOfRange {
        /// The reading.
        name: String,
        /// Its `f`.
        f: f64,
    },
    /// `Tav` is not a positive time.
    BadTime {
        /// The reading.
        name: String,
        /// Its `Tav` \[s\].
        tav: f64,
    },
    /// Fewer than two readings.
    TooFew(usize),
    /// Every reading has the same `f`: the equations do not separate `td`
    /// from `tb`.
    OneFraction(f64),
}

impl fmt::Display for ReadingError {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadingError::FractionOutOfRange { name, f } => write!(
                out,
                "reading {name}: f, the fraction of page reads from disk, must be in [0, 1], got {}",
                Figure(*f)
            ),
            ReadingError::BadTime { name, tav } => write!(
                out,
                "reading {name}: tav, the processor time per page fault, must be a positive time, got {} s",
                Figure(*tav)
            ),
            ReadingError::TooFew(n) => write!(
                out,
                "{n} reading(s): the decomposition needs at least two, at different values of f"
            ),
            ReadingError::OneFraction(f) => write!(
                out,
                "every reading has f = {}: f*td + (1-f)*tb = Tav cannot separate td from tb; readings at two different values of f are needed",
                Figure(*f)
            ),
        }
    }
}

impl std::error::Error for ReadingError {}

/// The solution from one pair of readings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairSolution {
    /// The first reading.
    pub first: String,
    /// The second reading.
    pub second: String,
    /// Disk processor time per fault \[s\]; `None` when the two readings
    /// have the same `f`.
    pub td: Option<f64>,
    /// Bulk-store processor time per fault \[s\]; `None` likewise.
    pub tb: Option<f64>,
    /// The 2-norm condition number of the pair's equations: how much a
    /// relative error in the readings may grow in the solution.
    pub condition: Option<f64>,
    /// The most `td` moves per second of error in either reading's `Tav`.
    pub td_per_tav_error: Option<f64>,
    /// Whether `condition` exceeds [`ILL_CONDITIONED`].
    pub ill_conditioned: bool,
}

/// The least-squares fit over all readings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fit {
    /// Disk processor time per fault \[s\].
    pub td: f64,
    /// Bulk-store processor time per fault \[s\].
    pub tb: f64,
    /// Per reading, `Tav` less the fitted `f · td + (1 − f) · tb` \[s\].
    pub residuals: Vec<f64>,
    /// The root mean square of the residuals \[s\].
    pub rms_residual: f64,
}

/// Every pair's solution and the fit over all.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Decomposition {
    /// The readings, as given.
    pub readings: Vec<Reading>,
    /// Every pair, in the readings' order.
    pub pairs: Vec<PairSolution>,
    /// The fit over all.
    pub least_squares: Fit,
}

/// Checks `readings` and decomposes them.
///
/// # Errors
/// An `f` outside [0, 1], a `Tav` that is not a positive time, fewer than
/// two readings, or all at one `f`.
pub fn decompose(readings: &[Reading]) -> Result<Decomposition, ReadingError> {
    for r in readings {
        if !(0.0..=1.0).contains(&r.f) {
            return Err(ReadingError::FractionOutOfRange {
                name: r.name.clone(),
                f: r.f,
            });
        }
        if !(r.tav.is_finite() && r.tav > 0.0) {
            return Err(ReadingError::BadTime {
                name: r.name.clone(),
                tav: r.tav,
            });
        }
    }
    if readings.len() < 2 {
        return Err(ReadingError::TooFew(readings.len()));
    }
    if readings.iter().all(|r| r.f == readings[0].f) {
        return Err(ReadingError::OneFraction(readings[0].f));
    }
    let mut pairs = Vec::new();
    for (i, a) in readings.iter().enumerate() {
        for b in &readings[i + 1..] {
            pairs.push(solve_pair(a, b));
        }
    }
    Ok(Decomposition {
        readings: readings.to_vec(),
        pairs,
        least_squares: least_squares(readings),
    })
}

/// Solves the two equations of `a` and `b` by Cramer's rule.
fn solve_pair(a: &Reading, b: &Reading) -> PairSolution {
    let det = a.f - b.f;
    let solved = det != 0.0;
    let td = solved.then(|| (a.tav * (1.0 - b.f) - b.tav * (1.0 - a.f)) / det);
    let tb = solved.then(|| (a.f * b.tav - b.f * a.tav) / det);
    let condition = solved.then(|| condition([[a.f, 1.0 - a.f], [b.f, 1.0 - b.f]]));
    PairSolution {
        first: a.name.clone(),
        second: b.name.clone(),
        td,
        tb,
        condition,
        td_per_tav_error: solved.then(|| ((1.0 - a.f).abs() + (1.0 - b.f).abs()) / det.abs()),
        ill_conditioned: condition.is_some_and(|c| c > ILL_CONDITIONED),
    }
}

/// The 2-norm condition number of a non-singular 2 × 2 matrix: the ratio
/// of its singular values, from the eigenvalues of `MᵀM`.
fn condition(m: [[f64; 2]; 2]) -> f64 {
    let [[a, b], [c, d]] = m;
    let frobenius = a * a + b * b + c * c + d * d;
    let det = a * d - b * c;
    let spread = (frobenius * frobenius - 4.0 * det * det).max(0.0).sqrt();
    ((frobenius + spread) / (frobenius - spread)).sqrt()
}

/// The least-squares `td` and `tb` over all readings, by the normal
/// equations (at least two distinct `f`, so they are not singular).
fn least_squares(readings: &[Reading]) -> Fit {
    let (mut dd, mut db, mut bb, mut dt, mut bt) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for r in readings {
        let (x, y) = (r.f, 1.0 - r.f);
        dd += x * x;
        db += x * y;
        bb += y * y;
        dt += x * r.tav;
        bt += y * r.tav;
    }
    let det = dd * bb - db * db;
    let td = (dt * bb - bt * db) / det;
    let tb = (dd * bt - db * dt) / det;
    let residuals: Vec<f64> = readings
        .iter()
        .map(|r| r.tav - (r.f * td + (1.0 - r.f) * tb))
        .collect();
    let rms_residual =
        (residuals.iter().map(|e| e * e).sum::<f64>() / residuals.len() as f64).sqrt();
    Fit {
        td,
        tb,
        residuals,
        rms_residual,
    }
}

/// Reads a table of readings: CSV with the columns `reading`, `tav` (a
/// duration such as `7.05ms`, or seconds) and `f`.
///
/// # Errors
/// A missing column, a field that is not what its column calls for, or
/// text that is not CSV.
pub fn read_readings(text: &str) -> Result<Vec<Reading>, TableError> {
    let (mut reader, [name, tav, f]) = csv_columns(text, READING_COLUMNS)?;
    let mut readings = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(|e| TableError::Malformed(e.to_string()))?;
        let line = i as u64 + 2;
        let field = |at: usize| record.get(at).unwrap_or("").trim();
        let tav = tpsim_models::units::parse_duration(field(tav)).map_err(|message| {
            TableError::BadValue {
                line,
                column: "tav",
                message,
            }
        })?;
        let f = field(f).parse::<f64>().map_err(|_| TableError::BadValue {
            line,
            column: "f",
            message: format!("\"{}\" is not a number", field(f)),
        })?;
        readings.push(Reading {
            name: field(name).to_string(),
            tav: tav.0,
            f,
        });
    }
    Ok(readings)
}

/// The columns of a table of installations.
pub const INSTALLATION_COLUMNS: [&str; 4] = ["installation", "mips", "useful", "processors"];

/// An installation's processors and how much of their time does useful
/// work.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Installation {
    /// Its name.
    pub name: String,
    /// Each processor's speed \[MIPS\].
    pub mips: f64,
    /// The fraction of processor time in useful work.
    pub useful: f64,
    /// The number of processors.
    pub processors: u32,
}

impl Installation {
    /// Delivered capacity: speed × useful fraction × processors \[MIPS\].
    pub fn delivered(&self) -> f64 {
        self.mips * self.useful * f64::from(self.processors)
    }

    /// Checks the installation's figures, naming it in the message.
    ///
    /// # Errors
    /// A speed that is not positive, a useful fraction outside [0, 1], no
    /// processors.
    pub fn check(&self) -> Result<(), String> {
        let name = &self.name;
        if !(self.mips.is_finite() && self.mips > 0.0) {
            return Err(format!(
                "installation {name}: mips must be a speed > 0, got {}",
                Figure(self.mips)
            ));
        }
        if !(0.0..=1.0).contains(&self.useful) {
            return Err(format!(
                "installation {name}: useful must be a fraction in [0, 1], got {}",
                Figure(self.useful)
            ));
        }
        if self.processors == 0 {
            return Err(format!(
                "installation {name}: processors must be at least 1"
            ));
        }
        Ok(())
    }
}

/// Reads a table of installations: CSV with the columns `installation`,
/// `mips`, `useful` and `processors`.
///
/// # Errors
/// A missing column, a field that is not a number, or text that is not
/// CSV.
pub fn read_installations(text: &str) -> Result<Vec<Installation>, TableError> {
    let (mut reader, at) = csv_columns(text, INSTALLATION_COLUMNS)?;
    let mut installations = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(|e| TableError::Malformed(e.to_string()))?;
        let line = i as u64 + 2;
        let field = |k: usize| record.get(at[k]).unwrap_or("").trim();
        let number = |k: usize| {
            field(k).parse::<f64>().map_err(|_| TableError::BadValue {
                line,
                column: INSTALLATION_COLUMNS[k],
                message: format!("\"{}\" is not a number", field(k)),
            })
        };
        let processors = field(3).parse::<u32>().map_err(|_| TableError::BadValue {
            line,
            column: "processors",
            message: format!("\"{}\" is not a whole number", field(3)),
        })?;
        installations.push(Installation {
            name: field(0).to_string(),
            mips: number(1)?,
            useful: number(2)?,
            processors,
        });
    }
    Ok(installations)
}

/// Processor time split as the report's table (1), each a fraction of all
/// processors' time.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Breakdown {
    /// Page-fault handling.
    pub page_faults: f64,
    /// Scheduling and dispatching.
    pub getwork: f64,
    /// Device interrupts.
    pub interrupts: f64,
    /// Segment faults.
    pub segment_faults: f64,
    /// Idle while a process waits for a page.
    pub mp_idle: f64,
    /// Idle otherwise.
    pub other_idle: f64,
    /// Useful work.
    pub useful: f64,
}

impl Breakdown {
    /// The categories by their names on the command line.
    pub const NAMES: [&str; 7] = [
        "page_faults",
        "getwork",
        "interrupts",
        "segment_faults",
        "mp_idle",
        "other_idle",
        "useful",
    ];

    fn parts(&self) -> [f64; 7] {
        [
            self.page_faults,
            self.getwork,
            self.interrupts,
            self.segment_faults,
            self.mp_idle,
            self.other_idle,
            self.useful,
        ]
    }
}

/// The report's attribution of a breakdown to the two paging devices
/// (its equations 2 to 4), each a fraction of all processors' time unless
/// said otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Attribution {
    /// (2) Page-fault handling of faults served by the disk: the page-fault
    /// share times `f · td / Tav`, with `Tav = f · td + (1 − f) · tb`.
    pub disk_page_faults: f64,
    /// (2) ... and by the bulk store, `(1 − f) · tb / Tav`.
    pub bulk_page_faults: f64,
    /// (3) The bulk store's paging: its page faults and the segment
    /// faults (a larger active segment table would replace it).
    pub bulk_paging: f64,
    /// (3) The disk's paging: its page faults, getwork, interrupts and
    /// multiprogramming idle.
    pub disk_paging: f64,
    /// (3) Other idle.
    pub idle: f64,
    /// (3) Useful work.
    pub useful: f64,
    /// (3) The bulk store's paging as a fraction of the time not idle.
    pub bulk_paging_of_busy: f64,
    /// (3) The disk's paging likewise.
    pub disk_paging_of_busy: f64,
    /// (3) Useful work likewise.
    pub useful_of_busy: f64,
    /// (4) The bulk store replaced by memory, its share shared out between
    /// useful work and disk paging in proportion: useful work, of the time
    /// not idle.
    pub projected_useful_of_busy: f64,
    /// (4) Disk paging likewise.
    pub projected_disk_paging_of_busy: f64,
    /// (4) The projected gain in useful work.
    pub projected_gain: f64,
}

/// Attributes `b` to the disk and the bulk store at disk fraction `f` and
/// fault times `td` and `tb` \[s\] (the report's section II).
///
/// # Errors
/// A part outside [0, 1], parts that do not add up to 1 within 0.02 (the
/// report's table, rounded to 1%, adds up to 100%), `f` outside [0, 1], a
/// fault time that is not positive, or nothing busy.
pub fn attribute(b: &Breakdown, f: f64, td: f64, tb: f64) -> Result<Attribution, String> {
    for (name, x) in Breakdown::NAMES.iter().zip(b.parts()) {
        if !(0.0..=1.0).contains(&x) {
            return Err(format!(
                "breakdown {name}: must be a fraction in [0, 1], got {}",
                Figure(x)
            ));
        }
    }
    let total: f64 = b.parts().iter().sum();
    if (total - 1.0).abs() > 0.02 {
        return Err(format!(
            "the breakdown adds up to {total:.4}, not 1: give every part of processor time ({})",
            Breakdown::NAMES.join(", ")
        ));
    }
    if !(0.0..=1.0).contains(&f) {
        return Err(format!("f must be a fraction in [0, 1], got {}", Figure(f)));
    }
    for (name, t) in [("td", td), ("tb", tb)] {
        if !(t.is_finite() && t > 0.0) {
            return Err(format!(
                "{name} must be a positive time, got {} s",
                Figure(t)
            ));
        }
    }
    let tav = f * td + (1.0 - f) * tb;
    let disk_page_faults = b.page_faults * f * td / tav;
    let bulk_page_faults = b.page_faults * (1.0 - f) * tb / tav;
    let bulk_paging = bulk_page_faults + b.segment_faults;
    let disk_paging = disk_page_faults + b.getwork + b.interrupts + b.mp_idle;
    let busy = bulk_paging + disk_paging + b.useful;
    if busy <= 0.0 {
        return Err("nothing busy: the breakdown is all idle".to_string());
    }
    let useful_of_busy = b.useful / busy;
    let projected_useful_of_busy = b.useful / (b.useful + disk_paging);
    Ok(Attribution {
        disk_page_faults,
        bulk_page_faults,
        bulk_paging,
        disk_paging,
        idle: b.other_idle,
        useful: b.useful,
        bulk_paging_of_busy: bulk_paging / busy,
        disk_paging_of_busy: disk_paging / busy,
        useful_of_busy,
        projected_useful_of_busy,
        projected_disk_paging_of_busy: 1.0 - projected_useful_of_busy,
        projected_gain: projected_useful_of_busy / useful_of_busy - 1.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(name: &str, tav_ms: f64, f: f64) -> Reading {
        Reading {
            name: name.to_string(),
            tav: tav_ms / 1000.0,
            f,
        }
    }

    /// The report's four readings (section II).
    fn report() -> Vec<Reading> {
        vec![
            reading("USL#1", 7.05, 1.0),
            reading("USL#2", 5.76, 1.0),
            reading("MIT#1", 1.99, 0.059),
            reading("MIT#2", 2.45, 0.12),
        ]
    }

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn the_reports_pairs_come_out_as_it_printed_them_but_one() {
        let d = decompose(&report()).unwrap();
        let ms = |x: Option<f64>| x.unwrap() * 1000.0;
        // The report's table: columns 1+3, 1+4, 2+3, 2+4 (td, tb in ms,
        // printed to 0.1 ms).
        for (pair, td, tb) in [(1, 7.1, 1.7), (2, 7.1, 1.8), (3, 5.8, 1.8), (4, 5.8, 2.0)] {
            let p = &d.pairs[pair];
            assert!(close(ms(p.td), td, 0.051), "{p:?}");
            assert!(close(ms(p.tb), tb, 0.051), "{p:?}");
            assert!(!p.ill_conditioned, "{p:?}");
        }
        // USL#1 + USL#2: both at f = 1, no solution.
        assert_eq!((d.pairs[0].td, d.pairs[0].condition), (None, None));
        // MIT#1 + MIT#2: exact algebra gives 9.09 ms where the report
        // printed 6.3, and the pair is flagged.
        let mit = &d.pairs[5];
        assert!(close(ms(mit.td), 9.086, 0.001), "{mit:?}");
        assert!(close(ms(mit.tb), 1.545, 0.001), "{mit:?}");
        assert!(mit.ill_conditioned && mit.condition.unwrap() > 20.0);
        assert!(close(mit.td_per_tav_error.unwrap(), 1.821 / 0.061, 1e-9));
    }

    #[test]
    fn least_squares_recovers_exact_times_and_weighs_inconsistent_readings() {
        // Readings made from td = 8 ms, tb = 2 ms fit with no residual.
        let exact: Vec<Reading> = [0.0, 0.3, 1.0]
            .iter()
            .map(|&f| reading("r", f * 8.0 + (1.0 - f) * 2.0, f))
            .collect();
        let fit = decompose(&exact).unwrap().least_squares;
        assert!(close(fit.td, 0.008, 1e-12) && close(fit.tb, 0.002, 1e-12));
        assert!(fit.rms_residual < 1e-12);
        // Two readings at f = 1 that disagree, one at f = 0: td is their
        // mean, tb the third exactly, residuals ±0.5 ms and 0.
        let fit = decompose(&[
            reading("a", 7.0, 1.0),
            reading("b", 6.0, 1.0),
            reading("c", 2.0, 0.0),
        ])
        .unwrap()
        .least_squares;
        assert!(close(fit.td, 0.0065, 1e-12) && close(fit.tb, 0.002, 1e-12));
        for (got, want) in fit.residuals.iter().zip([0.0005, -0.0005, 0.0]) {
            assert!(close(*got, want, 1e-12), "{:?}", fit.residuals);
        }
    }

    #[test]
    fn the_condition_number_is_that_of_the_matrix() {
        // Orthogonal rows: condition 1; rows (1, 0) and (1, e): about 2 / e.
        assert!(close(condition([[1.0, 0.0], [0.0, 1.0]]), 1.0, 1e-12));
        assert!(close(condition([[1.0, 0.0], [1.0, 1e-3]]), 2000.0, 1.0));
        assert!(close(condition([[2.0, 0.0], [0.0, 0.5]]), 4.0, 1e-12));
    }

    #[test]
    fn bad_readings_are_refused_by_name() {
        let cases = [
            (
                vec![reading("x", 2.0, 1.5), reading("y", 2.0, 0.0)],
                "reading x: f",
            ),
            (
                vec![reading("x", 2.0, 1.0), reading("y", -1.0, 0.0)],
                "reading y: tav",
            ),
            (vec![reading("x", 2.0, 1.0)], "1 reading(s)"),
            (
                vec![reading("x", 2.0, 1.0), reading("y", 3.0, 1.0)],
                "every reading has f = 1",
            ),
        ];
        for (readings, message) in cases {
            let e = decompose(&readings).unwrap_err().to_string();
            assert!(e.starts_with(message), "{e}");
        }
    }

    #[test]
    fn a_table_of_readings_is_read_with_units() {
        let text = "reading,tav,f\nUSL#1,7.05ms,1.0\nMIT#1,0.00199,0.059\n";
        let readings = read_readings(text).unwrap();
        assert_eq!(readings[0].name, "USL#1");
        assert!(close(readings[0].tav, 0.00705, 1e-15));
        assert!(close(readings[1].tav, 0.00199, 1e-15));
        let e = read_readings("reading,tav,f\nx,fast,1\n").unwrap_err();
        assert!(
            matches!(
                e,
                TableError::BadValue {
                    line: 2,
                    column: "tav",
                    ..
                }
            ),
            "{e:?}"
        );
        let e = read_readings("reading,f\nx,1\n").unwrap_err();
        assert!(
            matches!(e, TableError::MissingColumn { column: "tav", .. }),
            "{e:?}"
        );
    }

    #[test]
    fn the_reports_delivered_capacities_and_their_ratio() {
        let text = "installation,mips,useful,processors\nUSL,0.80,0.70,1\nM.I.T.,0.86,0.53,2\n";
        let installations = read_installations(text).unwrap();
        let [usl, mit] = [&installations[0], &installations[1]];
        assert!(close(usl.delivered(), 0.56, 1e-12));
        assert!(close(mit.delivered(), 0.9116, 1e-12));
        assert!(close(mit.delivered() / usl.delivered(), 1.63, 0.005));
        let bad = Installation {
            useful: 1.2,
            ..usl.clone()
        };
        assert!(
            bad.check()
                .unwrap_err()
                .starts_with("installation USL: useful")
        );
        let e = read_installations("installation,mips,useful,processors\nx,1,0.5,two\n");
        assert!(matches!(
            e,
            Err(TableError::BadValue {
                line: 2,
                column: "processors",
                ..
            })
        ));
    }

    /// The report's M.I.T. run of 5 h 30 min (its table 1), with f = 0.12,
    /// td = 7.1 ms and tb = 1.8 ms.
    fn mit2() -> Breakdown {
        Breakdown {
            page_faults: 0.28,
            getwork: 0.03,
            interrupts: 0.06,
            segment_faults: 0.03,
            mp_idle: 0.02,
            other_idle: 0.13,
            useful: 0.45,
        }
    }

    #[test]
    fn the_reports_attribution_comes_out_to_its_rounding() {
        let a = attribute(&mit2(), 0.12, 0.0071, 0.0018).unwrap();
        // (2): 10% and 18%.
        let pct = |x: f64| (x * 100.0).round();
        assert_eq!(
            (pct(a.disk_page_faults), pct(a.bulk_page_faults)),
            (10.0, 18.0)
        );
        assert!(close(a.disk_page_faults + a.bulk_page_faults, 0.28, 1e-12));
        // (3): the report printed 20%, 21%, 13%, 46% of the total and 23%,
        // 24%, 53% of the busy time, attributing "most of" each part; all
        // of it gives 21%, 21%, 13%, 45% and 24%, 24%, 52%.
        assert_eq!(
            [a.bulk_paging, a.disk_paging, a.idle, a.useful].map(pct),
            [21.0, 21.0, 13.0, 45.0]
        );
        assert_eq!(
            [
                a.bulk_paging_of_busy,
                a.disk_paging_of_busy,
                a.useful_of_busy
            ]
            .map(pct),
            [24.0, 24.0, 52.0]
        );
        // (4): useful work 68% of the busy time (the report: 69%), a gain
        // of 32% (the report's rounded 69 / 53 gives 30%).
        assert_eq!(pct(a.projected_useful_of_busy), 68.0);
        assert!(close(a.projected_gain, 0.322, 0.001), "{a:?}");
    }

    #[test]
    fn a_bad_breakdown_is_refused_by_name() {
        let short = Breakdown {
            useful: 0.30,
            ..mit2()
        };
        let cases = [
            (
                attribute(&short, 0.12, 0.0071, 0.0018),
                "the breakdown adds up to 0.8500",
            ),
            (attribute(&mit2(), 1.2, 0.0071, 0.0018), "f must be"),
            (attribute(&mit2(), 0.12, 0.0, 0.0018), "td must be"),
            (
                attribute(
                    &Breakdown {
                        getwork: -0.01,
                        ..mit2()
                    },
                    0.12,
                    0.0071,
                    0.0018,
                ),
                "breakdown getwork",
            ),
        ];
        for (result, message) in cases {
            let e = result.unwrap_err();
            assert!(e.starts_with(message), "{e}");
        }
    }
}
