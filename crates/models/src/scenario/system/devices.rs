//! `[[device]]`: drums, disks and their arms, mirrored and validated; a
//! drive named fills in its geometry and figures (`disk::DRIVES`), and the
//! positional rule is taken up by `rotation = "position"`.

use crate::scenario::Validator;
use crate::system::disk::{DRIVES, Drive, drive};
use crate::system::{Area, Arm, Device, Geometry, Order, Rotation, SeekCurve};
use crate::units::{Bytes, BytesPerSecond, Figure, Seconds};
use serde::Deserialize;
use tpsim_core::SimTime;

use super::DurationSpec;

/// `[[device]]`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct DeviceFile {
    /// The device's name.
    pub name: String,
    /// A drive type whose geometry and figures fill in the keys not given
    /// (`"rm03"`, `"rp06"`, `"rk07"`; default none).
    #[serde(default)]
    pub drive: Option<String>,
    /// Seek time (default 0).
    #[serde(default)]
    pub seek: Option<DurationSpec>,
    /// Revolutions per minute (default the drive's, else 0: no rotational
    /// latency).
    #[serde(default)]
    pub rpm: Option<f64>,
    /// `"uniform"` (default) or `"position"`: how a request waits for the
    /// platter.
    #[serde(default)]
    pub rotation: Option<RotationFile>,
    /// Under `"position"`: sectors before a request's first at which the
    /// driver's search ends (default the drive's, else 0).
    #[serde(default)]
    pub search_lead: Option<i64>,
    /// Transfer rate (default the on-track rate of the geometry and rpm).
    #[serde(default)]
    pub rate: Option<BytesPerSecond>,
    /// Processor time per page fault served by this device (default 0).
    #[serde(default)]
    pub fault_cpu: Option<Seconds>,
    /// Processor time of the interrupt at the end of each request (default
    /// 0).
    #[serde(default)]
    pub interrupt_cpu: Option<Seconds>,
    /// The disk's arm (default: the drive's if one is named, else none,
    /// seeks drawn from `seek`).
    #[serde(default)]
    pub arm: Option<ArmFile>,
    /// The swap area's first and last cylinders (default: the whole disk).
    #[serde(default)]
    pub swap_area: Option<[i64; 2]>,
    /// The file system's first and last cylinders (default: the whole
    /// disk).
    #[serde(default)]
    pub file_system: Option<[i64; 2]>,
}

/// `device.rotation`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum RotationFile {
    /// A latency drawn uniformly over a revolution.
    Uniform,
    /// The platter's angle a function of time.
    Position,
}

/// `arm = { ... }` of a `[[device]]`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct ArmFile {
    /// Cylinders on the disk (default the drive's).
    #[serde(default)]
    pub cylinders: Option<i64>,
    /// Seek time over one cylinder (default the drive's).
    #[serde(default)]
    pub track: Option<Seconds>,
    /// Mean seek time over all seeks between two different cylinders
    /// (default the drive's).
    #[serde(default)]
    pub average: Option<Seconds>,
    /// Seek time across the whole disk (default the drive's).
    #[serde(default)]
    pub full: Option<Seconds>,
    /// `"fcfs"` or `"disksort"` (default `"fcfs"`).
    #[serde(default)]
    pub order: Option<String>,
    /// Bytes a cylinder holds (default: from the geometry, else not
    /// given).
    #[serde(default)]
    pub cylinder: Option<Bytes>,
    /// Sectors on a track (default the drive's).
    #[serde(default)]
    pub sectors: Option<i64>,
    /// Tracks on a cylinder (default the drive's).
    #[serde(default)]
    pub tracks: Option<i64>,
    /// Bytes a sector holds (default the drive's, else 512).
    #[serde(default)]
    pub sector: Option<Bytes>,
}

/// The most sectors on a track, or tracks on a cylinder.
const MOST_SECTORS: i64 = 10_000;
/// The fastest rotation accepted under the positional rule.
const MOST_RPM: f64 = 1_000_000.0;
/// How far a given rate may be from the on-track rate under the positional
/// rule, which paces transfers by the rotation (the shipped scenarios give
/// rates to three figures).
const RATE_TOLERANCE: f64 = 0.01;

pub(super) fn device(v: &mut Validator, f: &DeviceFile) -> Option<Device> {
    let key = format!("device[{}]", f.name);
    let named = match f.drive.as_deref().map(|name| (name, drive(name))) {
        None => Some(None),
        Some((_, Some(d))) => Some(Some(d)),
        Some((name, None)) => {
            let known: Vec<String> = DRIVES.iter().map(|d| format!("\"{}\"", d.name)).collect();
            v.report(
                format!("{key}.drive"),
                format!(
                    "unknown drive \"{name}\": expected one of {}",
                    known.join(", ")
                ),
            );
            None
        }
    };
    let named = named?;
    let seek = f
        .seek
        .as_ref()
        .unwrap_or(&DurationSpec::Fixed(Seconds(0.0)))
        .build(v, &format!("{key}.seek"));
    let rpm = f.rpm.or(named.map(|d| f64::from(d.rpm))).unwrap_or(0.0);
    let rpm_ok = rpm.is_finite() && rpm >= 0.0;
    if !rpm_ok {
        v.report(
            format!("{key}.rpm"),
            format!("must be a number >= 0, got {}", Figure(rpm)),
        );
    }
    let fault_cpu = v.time(
        f.fault_cpu.unwrap_or(Seconds(0.0)),
        &format!("{key}.fault_cpu"),
        true,
    );
    let interrupt_cpu = v.time(
        f.interrupt_cpu.unwrap_or(Seconds(0.0)),
        &format!("{key}.interrupt_cpu"),
        true,
    );
    let arm = arm(v, f, named, &key);
    // The geometry the rate may come from: the arm's, or the drive's if the
    // arm did not validate (reported under its own keys).
    let geometry = match &arm {
        Some(arm) => arm.as_ref().and_then(|a| a.geometry),
        None => named.map(|d| d.geometry),
    };
    let on_track = geometry
        .filter(|_| rpm_ok && rpm > 0.0)
        .map(|g| f64::from(g.sectors) * g.sector_bytes as f64 * rpm / 60.0);
    let rate = match (f.rate, on_track) {
        (Some(r), _) => Some(r.0),
        (None, Some(r)) => Some(r),
        (None, None) if arm.is_none() => None,
        (None, None) => {
            v.report(
                format!("{key}.rate"),
                "is required: no drive, or arm geometry and rpm, to derive it from",
            );
            None
        }
    };
    let rate_ok = rate.is_some_and(|r| r.is_finite() && r > 0.0);
    if let Some(r) = rate.filter(|_| !rate_ok) {
        v.report(
            format!("{key}.rate"),
            format!("must be a rate > 0, got {} B/s", Figure(r)),
        );
    }
    let mut arm = arm?;
    let rotation = rotation(
        v,
        f,
        named,
        Figures {
            rpm,
            rate: rate.filter(|_| rate_ok),
            on_track,
        },
        arm.as_ref().map(|a| a.geometry),
        &key,
    );
    match &mut arm {
        Some(a) => a.rotation = rotation?,
        None => _ = rotation?,
    }
    Some(Device {
        name: f.name.clone(),
        seek: seek?,
        arm,
        revolution: if rpm > 0.0 { 60.0 / rpm } else { 0.0 },
        rate: rate.filter(|_| rate_ok && rpm_ok)?,
        fault_cpu: fault_cpu?,
        interrupt_cpu: interrupt_cpu?,
    })
}

/// A device's rotation speed, its rate if valid, and the on-track rate of
/// its geometry if it has one.
struct Figures {
    rpm: f64,
    rate: Option<f64>,
    on_track: Option<f64>,
}

/// The positional rule of device `f`, if it follows it (`Some(None)` if
/// not; `None` if it is invalid): an arm with a geometry (`arm`: `None`
/// without an arm, `Some(None)` with one without a geometry), a whole rpm,
/// a lead less than a track and a rate that is the rotation's.
fn rotation(
    v: &mut Validator,
    f: &DeviceFile,
    named: Option<&Drive>,
    figures: Figures,
    arm: Option<Option<Geometry>>,
    key: &str,
) -> Option<Option<Rotation>> {
    if f.rotation.unwrap_or(RotationFile::Uniform) == RotationFile::Uniform {
        if f.search_lead.is_some() {
            v.report(
                format!("{key}.search_lead"),
                "is for rotation = \"position\" only: under the uniform rule a request's latency is drawn",
            );
            return None;
        }
        return Some(None);
    }
    let Some(Some(geometry)) = arm else {
        v.report(
            format!("{key}.rotation"),
            "\"position\" needs a disk with an arm and its geometry: name a drive, or give arm = { ..., sectors = ..., tracks = ... }",
        );
        return None;
    };
    let Figures {
        rpm,
        rate,
        on_track,
    } = figures;
    let mut ok = true;
    if !(rpm > 0.0 && rpm <= MOST_RPM && rpm.fract() == 0.0) {
        v.report(
            format!("{key}.rpm"),
            format!(
                "rotation = \"position\" needs a whole number of revolutions per minute from 1 to {MOST_RPM}, got {}",
                Figure(rpm)
            ),
        );
        ok = false;
    }
    let lead = f
        .search_lead
        .unwrap_or(named.map_or(0, |d| i64::from(d.lead)));
    if !(0..i64::from(geometry.sectors)).contains(&lead) {
        v.report(
            format!("{key}.search_lead"),
            format!(
                "must be a whole number of sectors from 0 to {} (less than a track), got {lead}",
                geometry.sectors - 1
            ),
        );
        ok = false;
    }
    if let (Some(rate), Some(on_track)) = (rate, on_track)
        && (rate - on_track).abs() > RATE_TOLERANCE * on_track
    {
        v.report(
            format!("{key}.rate"),
            format!(
                "under rotation = \"position\" sectors pass at the rotation's pace: {} B/s ({} sectors of {} bytes, {} times a minute); leave rate out or give that",
                Figure(on_track),
                geometry.sectors,
                geometry.sector_bytes,
                Figure(rpm)
            ),
        );
        ok = false;
    }
    ok.then_some(Some(Rotation {
        rpm: rpm as u32,
        lead: lead as u32,
    }))
}

/// The most cylinders a disk may have.
const MAX_CYLINDERS: i64 = 1_000_000;

/// The arm of device `f`, if it has one (`Some(None)` if not; `None` if
/// it is invalid): its own keys, else the drive's figures.
pub(super) fn arm(
    v: &mut Validator,
    f: &DeviceFile,
    named: Option<&Drive>,
    key: &str,
) -> Option<Option<Arm>> {
    let given = f.arm.clone();
    let Some(a) = given.or(named.map(|_| ArmFile::default())) else {
        for (name, area) in [("swap_area", f.swap_area), ("file_system", f.file_system)] {
            if area.is_some() {
                v.report(
                    format!("{key}.{name}"),
                    "cylinder areas need an arm: give the device arm = { cylinders = ..., track = ..., average = ..., full = ... }",
                );
            }
        }
        return Some(None);
    };
    if f.seek.is_some() {
        v.report(
            format!("{key}.seek"),
            "a device with an arm takes its seek times from arm.track, arm.average and arm.full: leave seek out",
        );
    }
    let cylinders = a
        .cylinders
        .or(named.map(|d| i64::from(d.cylinders)))
        .or_else(|| {
            v.report(
                format!("{key}.arm.cylinders"),
                "is required (no drive named)",
            );
            None
        });
    if let Some(c) = cylinders.filter(|c| !(3..=MAX_CYLINDERS).contains(c)) {
        v.report(
            format!("{key}.arm.cylinders"),
            format!("must be a whole number from 3 to {MAX_CYLINDERS}, got {c}"),
        );
    }
    let order = match a.order.as_deref().unwrap_or("fcfs") {
        "fcfs" => Some(Order::Fcfs),
        "disksort" => Some(Order::Disksort),
        other => {
            v.report(
                format!("{key}.arm.order"),
                format!("unknown order \"{other}\": expected \"fcfs\" or \"disksort\""),
            );
            None
        }
    };
    let times = seek_times(v, &a, named, key);
    let geometry = geometry(v, &a, named, key);
    let cylinders = u32::try_from(cylinders?)
        .ok()
        .filter(|c| (3..=MAX_CYLINDERS).contains(&i64::from(*c)))?;
    let swap_area = area(v, &format!("{key}.swap_area"), f.swap_area, cylinders);
    let file_system = area(v, &format!("{key}.file_system"), f.file_system, cylinders);
    let (track, average, full) = (times[0]?, times[1]?, times[2]?);
    let seek = SeekCurve::fit(
        cylinders,
        track.as_secs_f64(),
        average.as_secs_f64(),
        full.as_secs_f64(),
    )
    .map_err(|e| v.report(format!("{key}.arm"), e.to_string()))
    .ok()?;
    let geometry = geometry?;
    let cylinder_bytes = cylinder_bytes(v, &a, geometry, key);
    Some(Some(Arm {
        cylinders,
        seek,
        order: order?,
        swap_area: swap_area?,
        file_system: file_system?,
        cylinder_bytes: cylinder_bytes?,
        geometry,
        rotation: None,
    }))
}

/// The cylinders `[first, last]` given at `key` on a disk of `cylinders`
/// (the whole disk if none are given); `None` if they do not fit
/// (reported).
fn area(v: &mut Validator, key: &str, given: Option<[i64; 2]>, cylinders: u32) -> Option<Area> {
    match given {
        None => Some(Area {
            first: 0,
            last: cylinders - 1,
        }),
        Some([first, last]) if 0 <= first && first <= last && last < i64::from(cylinders) => {
            Some(Area {
                first: first as u32,
                last: last as u32,
            })
        }
        Some([first, last]) => {
            v.report(
                key.to_string(),
                format!(
                    "[{first}, {last}] does not fit on the disk: give [first, last] with 0 <= first <= last <= {} (cylinders are numbered from 0)",
                    cylinders - 1
                ),
            );
            None
        }
    }
}

/// The arm's seek times, track to track, average and full stroke: as
/// given, else the named drive's; each `None` (reported) if neither.
fn seek_times(
    v: &mut Validator,
    a: &ArmFile,
    named: Option<&Drive>,
    key: &str,
) -> Vec<Option<SimTime>> {
    let figures = named.and_then(|d| d.seek);
    [("track", a.track), ("average", a.average), ("full", a.full)]
        .into_iter()
        .enumerate()
        .map(|(i, (name, t))| {
            let key = format!("{key}.arm.{name}");
            match t.or(figures.map(|f| Seconds(f[i]))) {
                Some(t) => v.time(t, &key, false),
                None => {
                    let why = match named {
                        Some(d) => {
                            format!("is required: no source gives the {}'s seek times", d.name)
                        }
                        None => "is required (no drive named)".to_string(),
                    };
                    v.report(key, why);
                    None
                }
            }
        })
        .collect()
}

/// The bytes of a cylinder: as given, which must agree with the
/// geometry if there is one, else the geometry's (`Some(None)` if
/// neither); `None` if invalid (reported).
fn cylinder_bytes(
    v: &mut Validator,
    a: &ArmFile,
    geometry: Option<Geometry>,
    key: &str,
) -> Option<Option<u64>> {
    match (a.cylinder, geometry) {
        (None, g) => Some(g.map(|g| g.cylinder_bytes())),
        (Some(b), g) => {
            let bytes = super::size(v, b, &format!("{key}.arm.cylinder"), false);
            match (bytes, g) {
                (Some(bytes), Some(g)) if bytes != g.cylinder_bytes() => {
                    v.report(
                        format!("{key}.arm.cylinder"),
                        format!(
                            "{bytes} bytes, but the geometry holds {} ({} tracks of {} sectors of {} bytes): give one or make them agree",
                            g.cylinder_bytes(),
                            g.tracks,
                            g.sectors,
                            g.sector_bytes
                        ),
                    );
                    None
                }
                (bytes, _) => bytes.map(Some),
            }
        }
    }
}

/// The geometry of arm `a` (`Some(None)` if none is given or named; `None`
/// if it is invalid): sectors and tracks together, each from 1 to
/// `MOST_SECTORS`, and a sector of whole bytes.
fn geometry(
    v: &mut Validator,
    a: &ArmFile,
    named: Option<&Drive>,
    key: &str,
) -> Option<Option<Geometry>> {
    let sectors = a.sectors.or(named.map(|d| i64::from(d.geometry.sectors)));
    let tracks = a.tracks.or(named.map(|d| i64::from(d.geometry.tracks)));
    let (sectors, tracks) = match (sectors, tracks) {
        (None, None) => {
            if a.sector.is_some() {
                v.report(
                    format!("{key}.arm.sector"),
                    "a sector's size needs arm.sectors and arm.tracks",
                );
                return None;
            }
            return Some(None);
        }
        (Some(s), Some(t)) => (s, t),
        (s, _) => {
            let (missing, given) = if s.is_none() {
                ("sectors", "tracks")
            } else {
                ("tracks", "sectors")
            };
            v.report(
                format!("{key}.arm.{missing}"),
                format!("is required with arm.{given}: a geometry gives both"),
            );
            return None;
        }
    };
    let mut ok = true;
    for (name, n) in [("sectors", sectors), ("tracks", tracks)] {
        if !(1..=MOST_SECTORS).contains(&n) {
            v.report(
                format!("{key}.arm.{name}"),
                format!("must be a whole number from 1 to {MOST_SECTORS}, got {n}"),
            );
            ok = false;
        }
    }
    let sector_bytes = match a.sector {
        Some(b) => super::size(v, b, &format!("{key}.arm.sector"), false),
        None => Some(named.map_or(512, |d| d.geometry.sector_bytes)),
    };
    let sector_bytes = sector_bytes?;
    ok.then_some(Some(Geometry {
        sectors: sectors as u32,
        tracks: tracks as u32,
        sector_bytes,
    }))
}

pub(super) fn device_index(
    v: &mut Validator,
    devices: &[DeviceFile],
    name: &str,
    key: &str,
) -> Option<usize> {
    let found = devices.iter().position(|d| d.name == name);
    if found.is_none() {
        v.report(key, format!("no [[device]] named \"{name}\""));
    }
    found
}
