//! Disks with an arm: where requests lie on the disk, how long the arm takes
//! to get there, how long the platter takes to bring a request's first
//! sector round, and in what order a drive's queue is served.
//!
//! A device without an arm draws each request's seek time independently
//! (a bulk store, or a disk described by its seek distribution alone). A
//! disk with an arm keeps the cylinder its arm rests on between requests;
//! a request's seek time is a function of the cylinders travelled. Each
//! request falls on a cylinder drawn uniformly from its area, or where the
//! file system's layout put its block (`system/layout.rs`): swap transfers
//! and pages written out or read back go to the swap area, file I/O and
//! pages read from a program's file to the file system. The queue is served
//! first come first served, or by cylinder as the UNIX drivers did with
//! `disksort`.
//!
//! Rotation follows one of two rules. Uniform (the default): each request
//! waits a latency drawn uniformly over one revolution. Positional (an arm
//! with a [`Geometry`] and a [`Rotation`]): the platter's angle is a function
//! of simulated time, sector 0 of every track under the heads at time 0 and
//! once a revolution after; a request addresses its first sector, waits
//! after its seek for that sector to come round, less the driver's search
//! lead (32V's `SDIST`), and transfers its sectors at the rotation's pace
//! ([`Platter`]). Every time is a whole number of nanoseconds, computed
//! from the rotation speed as a fraction, so the positional rule is exact.

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
    /// How sectors lie on a cylinder, if given: where a file system's
    /// layout puts blocks within their cylinder, and what the positional
    /// rule turns.
    pub geometry: Option<Geometry>,
    /// The positional rule, if the disk follows it (only with a
    /// `geometry`); `None`: the latency is uniform over a revolution.
    pub rotation: Option<Rotation>,
}

impl Arm {
    /// The cylinders of `region`.
    pub fn area(&self, region: Region) -> Area {
        match region {
            Region::Swap => self.swap_area,
            Region::Files => self.file_system,
        }
    }

    /// The platter under the positional rule, if the disk follows it.
    pub fn platter(&self) -> Option<Platter> {
        Some(Platter::new(self.geometry?, self.rotation?))
    }
}

/// Where a request's first sector lies: its cylinder and its sector's
/// number in the cylinder (track × sectors per track + sector).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// The cylinder.
    pub cylinder: u32,
    /// The sector's number in the cylinder, from 0.
    pub offset: u32,
}

/// How a disk's sectors lie: sector n of a cylinder is sector n mod
/// `sectors` of track n / `sectors`. Tracks are read one after another
/// with no lost time between them (the head switch is electronic), sector
/// 0 of every track at the same angle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Sectors on a track.
    pub sectors: u32,
    /// Tracks on a cylinder (surfaces read by a head each).
    pub tracks: u32,
    /// Bytes a sector holds.
    pub sector_bytes: u64,
}

impl Geometry {
    /// Sectors on a cylinder.
    pub fn per_cylinder(&self) -> u32 {
        self.sectors * self.tracks
    }

    /// Bytes a cylinder holds.
    pub fn cylinder_bytes(&self) -> u64 {
        u64::from(self.per_cylinder()) * self.sector_bytes
    }

    /// The sectors a transfer of `bytes` covers: whole sectors, at least
    /// one.
    pub fn sectors_of(&self, bytes: f64) -> u64 {
        ((bytes / self.sector_bytes as f64).ceil() as u64).max(1)
    }
}

/// The positional rule's figures: the rotation speed, and how far ahead of
/// a request's first sector the driver's search ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rotation {
    /// Revolutions per minute, a whole number.
    pub rpm: u32,
    /// Sectors (less than a track's) before a request's first sector at
    /// which the drive's search ends and the driver starts the transfer
    /// (32V's and 3BSD's `hp.c`: `SDIST` 2). The transfer then starts at
    /// the first sector: it waits for the first passage of the search's
    /// sector at or after the arm is on the cylinder, plus `lead` sectors.
    /// 0: the transfer command is issued at once and waits for the first
    /// sector itself.
    pub lead: u32,
}

/// A platter turning under the heads: when each sector passes, and when a
/// transfer ends.
///
/// Sector boundaries are numbered from time 0 on: boundary j, the start of
/// sector j mod `sectors` of every track, passes at ⌈j · 60·10⁹ / (rpm ·
/// sectors)⌉ ns (angle 0 at time 0), so rounding never accumulates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Platter {
    geometry: Geometry,
    rotation: Rotation,
}

/// Nanoseconds in a minute: a sector's time is this over rpm × sectors.
const MINUTE: u128 = 60_000_000_000;

impl Platter {
    /// The platter of `geometry` turning as `rotation` says (its lead
    /// less than a track's sectors).
    pub fn new(geometry: Geometry, rotation: Rotation) -> Platter {
        assert!(
            rotation.rpm > 0 && geometry.sectors > 0 && rotation.lead < geometry.sectors,
            "a platter turns, and its lead is less than a track"
        );
        Platter { geometry, rotation }
    }

    /// How its sectors lie.
    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    /// Sector boundaries per minute.
    fn per_minute(&self) -> u128 {
        u128::from(self.rotation.rpm) * u128::from(self.geometry.sectors)
    }

    /// When boundary `j` passes the heads \[ns\].
    pub fn boundary(&self, j: u64) -> u64 {
        let t = (u128::from(j) * MINUTE).div_ceil(self.per_minute());
        u64::try_from(t).expect("simulated time fits in 64 bits")
    }

    /// The first boundary passing at or after `t` ns: the least j with
    /// ⌈j·M/q⌉ ≥ t, i.e. j·M > (t − 1)·q.
    fn first_boundary(&self, t: u64) -> u64 {
        match t {
            0 => 0,
            t => {
                let j = u128::from(t - 1) * self.per_minute() / MINUTE + 1;
                u64::try_from(j).expect("boundaries fit in 64 bits")
            }
        }
    }

    /// The first boundary at or after boundary `j` at which sector
    /// `sector` of a track starts.
    fn next(&self, j: u64, sector: u32) -> u64 {
        let s = u64::from(self.geometry.sectors);
        j + (u64::from(sector) + s - j % s) % s
    }

    /// A transfer of `count` sectors from sector `offset` of its cylinder,
    /// the arm on that cylinder from `ready` ns: when it ends \[ns\], and how
    /// many cylinders it ran on past its first. It starts as
    /// [`Rotation::lead`] says and runs on sector by sector, track by track;
    /// at the end of a cylinder the arm moves one cylinder (`track` ns) and
    /// the transfer goes on when sector 0 of the next cylinder's first track
    /// next comes round (the drive's own implied seek: no search lead).
    pub fn transfer(&self, ready: u64, offset: u32, count: u64, track: u64) -> (u64, u32) {
        let (s, lead) = (self.geometry.sectors, self.rotation.lead);
        let first = offset % s;
        let search = (first + s - lead) % s;
        let mut j = self.next(self.first_boundary(ready), search) + u64::from(lead);
        let (mut left, mut room) = (count, u64::from(self.geometry.per_cylinder() - offset));
        let mut crossed = 0;
        loop {
            let run = left.min(room);
            j += run;
            left -= run;
            if left == 0 {
                return (self.boundary(j), crossed);
            }
            crossed += 1;
            j = self.next(self.first_boundary(self.boundary(j) + track), 0);
            room = u64::from(self.geometry.per_cylinder());
        }
    }
}

/// A drive type: its geometry and figures as the sources give them
/// (docs/sources.md), which `[[device]] drive` fills in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Drive {
    /// The name a scenario gives it.
    pub name: &'static str,
    /// Cylinders on the disk.
    pub cylinders: u32,
    /// How its sectors lie.
    pub geometry: Geometry,
    /// Revolutions per minute.
    pub rpm: u32,
    /// Seek over one cylinder, the mean, and across the disk \[s\], where
    /// a source gives them.
    pub seek: Option<[f64; 3]>,
    /// The search lead of the UNIX driver that ran it (sectors).
    pub lead: u32,
}

/// The drive types a scenario may name.
pub const DRIVES: [Drive; 3] = [
    // 32V hp.c: NRMSECT 32, NRMTRAC 5, cylinders 0-822 (4.0BSD hp.c);
    // 3600 rpm, 6/30/55 ms [RM03]; SDIST 2 (32V and 3BSD hp.c).
    Drive {
        name: "rm03",
        cylinders: 823,
        geometry: Geometry {
            sectors: 32,
            tracks: 5,
            sector_bytes: 512,
        },
        rpm: 3600,
        seek: Some([0.006, 0.030, 0.055]),
        lead: 2,
    },
    // 32V hp.c: NSECT 22, NTRAC 19, partitions to cylinder 814; 3600 rpm
    // (4.0BSD hp.c's seconds per word, 16.67 ms a revolution); 10/30/55 ms
    // [RP06]; SDIST 2.
    Drive {
        name: "rp06",
        cylinders: 815,
        geometry: Geometry {
            sectors: 22,
            tracks: 19,
            sector_bytes: 512,
        },
        rpm: 3600,
        seek: Some([0.010, 0.030, 0.055]),
        lead: 2,
    },
    // 4.1BSD rk.c and rkreg.h: NRKSECT 22, NRKTRK 3, NRK7CYL 815; 60
    // revolutions a second as the driver's dk_mspw assumes (no manual
    // found: assumed); no seek figures found; rk.c seeks (RK_SEEK) and
    // does not search: lead 0.
    Drive {
        name: "rk07",
        cylinders: 815,
        geometry: Geometry {
            sectors: 22,
            tracks: 3,
            sector_bytes: 512,
        },
        rpm: 3600,
        seek: None,
        lead: 0,
    },
];

#[cfg(test)]
impl Drive {
    /// An arm of this drive, which has seek figures, with its swap area
    /// and file system on `swap_area` and `file_system`: first come first
    /// served, under the uniform rule.
    pub(crate) fn arm(&self, swap_area: Area, file_system: Area) -> Arm {
        let [track, average, full] = self.seek.expect("seek figures");
        Arm {
            cylinders: self.cylinders,
            seek: SeekCurve::fit(self.cylinders, track, average, full).unwrap(),
            order: Order::Fcfs,
            swap_area,
            file_system,
            cylinder_bytes: Some(self.geometry.cylinder_bytes()),
            geometry: Some(self.geometry),
            rotation: None,
        }
    }
}

/// The drive type a scenario names, if it is one of [`DRIVES`].
pub fn drive(name: &str) -> Option<&'static Drive> {
    DRIVES.iter().find(|d| d.name == name)
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

    /// An RM03's platter (32 sectors of 512 bytes, 5 tracks, 3600 rpm):
    /// a sector passes every 60·10⁹ / (3600 · 32) = 520,833⅓ ns.
    fn rm03(lead: u32) -> Platter {
        let rm03 = drive("rm03").unwrap();
        Platter::new(rm03.geometry, Rotation { rpm: 3600, lead })
    }

    #[test]
    fn sector_boundaries_pass_at_whole_nanoseconds_rounded_up_without_drift() {
        let p = rm03(0);
        // 520,833⅓ ns a sector: 1 → 520,834; 3 → 1,562,500 exactly; a
        // revolution 16,666,666⅔ → 16,666,667; three revolutions 50 ms.
        assert_eq!(p.boundary(0), 0);
        assert_eq!(p.boundary(1), 520_834);
        assert_eq!(p.boundary(3), 1_562_500);
        assert_eq!(p.boundary(32), 16_666_667);
        assert_eq!(p.boundary(96), 50_000_000);
        // A day on, the boundaries are where the fraction puts them.
        assert_eq!(p.boundary(96 * 1_728_000), 86_400_000_000_000);
        for t in [0, 1, 520_833, 520_834, 520_835, 16_666_667, 49_999_999] {
            let j = p.first_boundary(t);
            assert!(
                p.boundary(j) >= t && (j == 0 || p.boundary(j - 1) < t),
                "{t}"
            );
        }
    }

    #[test]
    fn a_request_just_after_its_sector_passed_waits_nearly_a_revolution() {
        // No lead: sector 5 starts at ⌈5 · 520,833⅓⌉ = 2,604,167 ns. One
        // nanosecond late, the transfer waits for sector 5 of the next
        // revolution, boundary 37 at 19,270,834 ns: 16,666,666 ns, a
        // revolution less a third of a nanosecond. Its one sector ends at
        // boundary 38, 19,791,667 ns.
        let p = rm03(0);
        assert_eq!(p.transfer(2_604_168, 5, 1, 0), (19_791_667, 0));
        // One nanosecond early, it waits that nanosecond and ends at
        // boundary 6, 3,125,000 ns; on time, it waits nothing.
        assert_eq!(p.transfer(2_604_166, 5, 1, 0), (3_125_000, 0));
        assert_eq!(p.transfer(2_604_167, 5, 1, 0), (3_125_000, 0));
        // The same sector on another track of the cylinder (offset 32 + 5)
        // passes at the same angle.
        assert_eq!(p.transfer(2_604_168, 37, 1, 0), (19_791_667, 0));
    }

    #[test]
    fn a_search_lead_sends_a_sector_less_than_the_lead_ahead_round_again() {
        // Lead 2 (32V's SDIST): the search is for sector 3, at 1,562,500 ns.
        // Arriving at its start, the transfer starts two sectors on, at
        // boundary 5, and ends at boundary 6: 3,125,000 ns.
        let p = rm03(2);
        assert_eq!(p.transfer(1_562_500, 5, 1, 0), (3_125_000, 0));
        // A nanosecond later sector 3 has begun to pass: the search waits for
        // it a revolution on (boundary 35), the transfer starts at 37 and
        // ends at 38, 19,791,667 ns, although sector 5 itself is still ahead.
        assert_eq!(p.transfer(1_562_501, 5, 1, 0), (19_791_667, 0));
        // Without the lead the same request would not have waited so.
        assert_eq!(rm03(0).transfer(1_562_501, 5, 1, 0), (3_125_000, 0));
    }

    #[test]
    fn a_transfer_runs_on_across_tracks_freely_and_across_a_cylinder_after_a_seek() {
        let p = rm03(0);
        // Four sectors from track 0's sector 30: 30, 31, then track 1's 0
        // and 1 at the same angles: boundaries 30 to 34, ending at
        // ⌈34 · 520,833⅓⌉ = 17,708,334 ns.
        assert_eq!(p.transfer(0, 30, 4, 6_000_000), (17_708_334, 0));
        // Ten sectors from the cylinder's sector 155 (track 4, sector 27):
        // five to the end of the cylinder (boundaries 27 to 32, 16,666,667
        // ns), a 6 ms seek to 22,666,667 ns, then sector 0 of the next
        // cylinder at boundary 64 and five more: boundary 69, 35,937,500 ns.
        assert_eq!(p.transfer(0, 155, 10, 6_000_000), (35_937_500, 1));
        // Two cylinders' worth and one sector from sector 0: 160 sectors
        // (boundaries 0 to 160, 83,333,334 ns), seek to 89,333,334, sector 0
        // at boundary 192 (100,000,000 ns), 160 more to 352, seek to
        // 189,333,334, sector 0 at 384, one more: boundary 385.
        assert_eq!(p.transfer(0, 0, 321, 6_000_000), (p.boundary(385), 2));
        assert_eq!(p.boundary(385), 200_520_834);
    }

    #[test]
    fn each_drive_holds_what_its_driver_s_partition_tables_say() {
        // Sectors a cylinder holds, times the cylinders, against the whole
        // disk's partition (4.0BSD hp.c's C partitions; 4.1BSD rk.c's).
        let whole = [("rm03", 131_680), ("rp06", 340_670), ("rk07", 53_790)];
        for (name, sectors) in whole {
            let d = drive(name).unwrap();
            assert_eq!(
                u64::from(d.geometry.per_cylinder()) * u64::from(d.cylinders),
                sectors
            );
            assert_eq!(d.geometry.sector_bytes, 512);
            assert!(d.lead < d.geometry.sectors);
        }
        assert_eq!(drive("rm03").unwrap().geometry.cylinder_bytes(), 81_920);
        assert_eq!(drive("rp06").unwrap().geometry.cylinder_bytes(), 214_016);
        assert!(drive("rm02").is_none());
    }
}
