//! Disks with an arm: where requests lie on the disk, how long the arm takes
//! to get there, and in what order a drive's queue is served.
//!
//! A device without an arm draws each request's seek time independently
//! (a bulk store, or a disk described by its seek distribution alone). A
//! disk with an arm keeps the cylinder its arm rests on between requests;
//! a request's seek time is a function of the cylinders travelled. Each
//! request falls on a cylinder drawn uniformly from its area: swap
//! transfers and pages written out or read back go to the swap area, file
//! I/O and pages read from a program's file to the file system. The queue is
//! served first come first served, or by cylinder as the UNIX drivers did
//! with `disksort`.

use thiserror::Error;

/// The arm of a disk, and where things lie under it.
#[derive(Clone, Debug, PartialEq)]
pub struct Arm {
    /// Cylinders on the disk, numbered from 0.
    pub cylinders: u32,
    /// Seek time against cylinders travelled.
    pub seek: SeekCurve,
    /// The order requests waiting for the arm are served in.
    pub order: Order,
    /// The cylinders of the swap area.
    pub swap_area: Area,
    /// The cylinders of the file system.
    pub file_system: Area,
    /// Bytes a cylinder holds (tracks × sectors × sector size), if given:
    /// where consecutive blocks of a file lie under a contiguous layout.
    pub cylinder_bytes: Option<u64>,
}

impl Arm {
    /// The cylinders of `region`.
    pub fn area(&self, region: Region) -> Area {
        match region {
            Region::Swap => self.swap_area,
            Region::Files => self.file_system,
        }
    }
}

/// The two regions of a disk a request can fall in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// Swapped images and paged-out pages.
    Swap,
    /// Files, programs among them.
    Files,
}

/// A range of cylinders, both ends included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Area {
    /// The first cylinder.
    pub first: u32,
    /// The last cylinder.
    pub last: u32,
}

impl Area {
    /// The number of cylinders in the area.
    pub fn len(&self) -> u32 {
        self.last - self.first + 1
    }

    /// Always false: an area holds at least one cylinder.
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// The order a disk serves its waiting requests in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// First come, first served.
    Fcfs,
    /// A one-way elevator: the waiting request at the lowest cylinder at or
    /// beyond the arm, and when there is none the lowest overall, the arm
    /// sweeping up and starting again from the bottom (4.2BSD's
    /// `disksort`, `sys/ufs_disksubr.c`; earlier UNIX `dsort.c` sorts by
    /// cylinder too).
    Disksort,
}

/// Seek time against distance d in cylinders: 0 for d = 0, else
/// t(d) = track + root·√(d − 1) + linear·(d − 1), the three-parameter
/// form of E. K. Lee and R. H. Katz ("An analytic performance model of
/// disk arrays", SIGMETRICS 1993): a square root for the arm's
/// acceleration over short seeks, a straight line for its coasting over
/// long ones.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeekCurve {
    track: f64,
    root: f64,
    linear: f64,
}

/// Why three seek figures give no seek curve.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum SeekError {
    /// The figures are not ordered track <= average <= full.
    #[error(
        "the seek figures must satisfy track <= average <= full (got {track} s, {average} s, {full} s)"
    )]
    Unordered {
        /// Track-to-track \[s\].
        track: f64,
        /// Average \[s\].
        average: f64,
        /// Full stroke \[s\].
        full: f64,
    },
    /// No increasing curve of the form meets all three figures.
    #[error(
        "no increasing seek curve t(d) = track + a sqrt(d - 1) + b (d - 1) over {cylinders} cylinders meets track {track} s, average {average} s and full stroke {full} s (it would need a = {root:.3e}, b = {linear:.3e})"
    )]
    NotIncreasing {
        /// The disk's cylinders.
        cylinders: u32,
        /// Track-to-track \[s\].
        track: f64,
        /// Average \[s\].
        average: f64,
        /// Full stroke \[s\].
        full: f64,
        /// The square-root coefficient the figures call for.
        root: f64,
        /// The linear coefficient the figures call for.
        linear: f64,
    },
}

impl SeekCurve {
    /// The curve through a drive's three published figures: `track` for a
    /// seek of one cylinder, `full` for one across the disk
    /// (`cylinders - 1`), and `average` for the mean over every seek
    /// between two different cylinders, start and end drawn independently
    /// and uniformly (an assumption: manuals rarely say how they average).
    /// All times in seconds; `cylinders` >= 3.
    pub fn fit(
        cylinders: u32,
        track: f64,
        average: f64,
        full: f64,
    ) -> Result<SeekCurve, SeekError> {
        assert!(cylinders >= 3, "a seek curve needs at least 3 cylinders");
        if !(track <= average && average <= full) {
            return Err(SeekError::Unordered {
                track,
                average,
                full,
            });
        }
        // Mean of sqrt(d - 1) and of d - 1 over seeks that move: distance d
        // has weight 2 (C - d) for 1 <= d < C.
        let c = f64::from(cylinders);
        let (mut weights, mut root_mean, mut linear_mean) = (0.0, 0.0, 0.0);
        for d in 1..cylinders {
            let w = c - f64::from(d);
            let x = f64::from(d - 1);
            weights += w;
            root_mean += w * x.sqrt();
            linear_mean += w * x;
        }
        root_mean /= weights;
        linear_mean /= weights;
        // track + root * root_mean + linear * linear_mean = average
        // track + root * sqrt(C - 2) + linear * (C - 2) = full
        let stroke = c - 2.0;
        let det = root_mean * stroke - linear_mean * stroke.sqrt();
        let (a, b) = (average - track, full - track);
        let root = (a * stroke - linear_mean * b) / det;
        let linear = (root_mean * b - stroke.sqrt() * a) / det;
        if root < 0.0 || linear < 0.0 || !root.is_finite() || !linear.is_finite() {
            return Err(SeekError::NotIncreasing {
                cylinders,
                track,
                average,
                full,
                root,
                linear,
            });
        }
        Ok(SeekCurve {
            track,
            root,
            linear,
        })
    }

    /// The time to move the arm `distance` cylinders \[s\].
    pub fn time(&self, distance: u32) -> f64 {
        if distance == 0 {
            return 0.0;
        }
        let x = f64::from(distance - 1);
        self.track + self.root * x.sqrt() + self.linear * x
    }

    /// The mean and variance of the seek time between two cylinders drawn
    /// independently and uniformly from `area`: a request's seek on a disk
    /// served first come first served whose requests all fall in `area`.
    pub fn uniform_moments(&self, area: Area) -> (f64, f64) {
        let n = f64::from(area.len());
        // Of the n² ordered pairs, 2 (n - d) are d apart for d >= 1.
        let (mut first, mut second) = (0.0, 0.0);
        for d in 1..area.len() {
            let w = 2.0 * (n - f64::from(d)) / (n * n);
            let t = self.time(d);
            first += w * t;
            second += w * t * t;
        }
        (first, second - first * first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fitted_curve_meets_the_three_figures() {
        // RP06: 815 cylinders, 10 / 30 / 55 ms (docs: DOMAIN, [RP06]).
        let curve = SeekCurve::fit(815, 0.010, 0.030, 0.055).unwrap();
        assert!((curve.time(1) - 0.010).abs() < 1e-12);
        assert!((curve.time(814) - 0.055).abs() < 1e-12);
        assert_eq!(curve.time(0), 0.0);
        // The average over distinct pairs, computed pair by pair.
        let (mut sum, mut pairs) = (0.0, 0.0);
        for x in 0..815u32 {
            for y in 0..815u32 {
                if x != y {
                    sum += curve.time(x.abs_diff(y));
                    pairs += 1.0;
                }
            }
        }
        assert!((sum / pairs - 0.030).abs() < 1e-12);
        assert!((1..814).all(|d| curve.time(d + 1) > curve.time(d)));
    }

    #[test]
    fn uniform_moments_count_every_pair() {
        let curve = SeekCurve::fit(100, 0.005, 0.020, 0.040).unwrap();
        let area = Area {
            first: 10,
            last: 29,
        };
        let times: Vec<f64> = (10..30u32)
            .flat_map(|x| (10..30u32).map(move |y| x.abs_diff(y)))
            .map(|d| curve.time(d))
            .collect();
        let n = times.len() as f64;
        let mean = times.iter().sum::<f64>() / n;
        let variance = times.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / n;
        let (m, v) = curve.uniform_moments(area);
        assert!((m - mean).abs() < 1e-12 && (v - variance).abs() < 1e-12);
    }

    #[test]
    fn figures_on_a_straight_line_fit_a_linear_curve() {
        // Four cylinders, seeks of 1, 2 and 3 cylinders weighted 3:2:1 over
        // the pairs that move; 0, 1 and 2 s on a line average 2/3 s. The
        // square-root term is exactly zero: a curve on its edge, not refused.
        let curve = SeekCurve::fit(4, 0.0, 2.0 / 3.0, 2.0).unwrap();
        assert_eq!((curve.root, curve.linear), (0.0, 1.0));
        assert_eq!([1, 2, 3].map(|d| curve.time(d)), [0.0, 1.0, 2.0]);
    }

    #[test]
    fn figures_on_a_square_root_fit_a_curve_with_no_linear_term() {
        // Seeks of 0, 1 and √2 s over four cylinders, weighted 3:2:1: the
        // linear term is exactly zero, the other edge, not refused either.
        let average = (2.0 + 2f64.sqrt()) / 6.0;
        let curve = SeekCurve::fit(4, 0.0, average, 2f64.sqrt()).unwrap();
        assert_eq!((curve.root, curve.linear), (1.0, 0.0));
    }

    #[test]
    fn figures_no_increasing_curve_meets_are_refused() {
        // An average close to the full stroke needs a negative linear term,
        // one close to track-to-track a negative square root.
        for average in [0.054, 0.011] {
            assert!(matches!(
                SeekCurve::fit(815, 0.010, average, 0.055),
                Err(SeekError::NotIncreasing { .. })
            ));
        }
        assert!(matches!(
            SeekCurve::fit(815, 0.030, 0.010, 0.055),
            Err(SeekError::Unordered { .. })
        ));
    }
}
