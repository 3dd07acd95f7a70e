//! `[[device]]`: drums, disks and their arms, mirrored and validated.

use crate::scenario::Validator;
use crate::system::{Area, Arm, Device, Order, SeekCurve};
use crate::units::{Bytes, BytesPerSecond, Figure, Seconds};
use serde::Deserialize;

use super::DurationSpec;

/// `[[device]]`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct DeviceFile {
    /// The device's name.
    pub name: String,
    /// Seek time (default 0).
    #[serde(default)]
    pub seek: Option<DurationSpec>,
    /// Revolutions per minute (default 0: no rotational latency).
    #[serde(default)]
    pub rpm: Option<f64>,
    /// Transfer rate.
    pub rate: BytesPerSecond,
    /// Processor time per page fault served by this device (default 0).
    #[serde(default)]
    pub fault_cpu: Option<Seconds>,
    /// Processor time of the interrupt at the end of each request (default
    /// 0).
    #[serde(default)]
    pub interrupt_cpu: Option<Seconds>,
    /// The disk's arm (default: none, seeks drawn from `seek`).
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

/// `arm = { ... }` of a `[[device]]`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct ArmFile {
    /// Cylinders on the disk.
    pub cylinders: i64,
    /// Seek time over one cylinder.
    pub track: Seconds,
    /// Mean seek time over all seeks between two different cylinders.
    pub average: Seconds,
    /// Seek time across the whole disk.
    pub full: Seconds,
    /// `"fcfs"` or `"disksort"` (default `"fcfs"`).
    #[serde(default)]
    pub order: Option<String>,
    /// Bytes a cylinder holds (default: not given).
    #[serde(default)]
    pub cylinder: Option<Bytes>,
}

pub(super) fn device(v: &mut Validator, f: &DeviceFile) -> Option<Device> {
    let key = format!("device[{}]", f.name);
    let seek = f
        .seek
        .as_ref()
        .unwrap_or(&DurationSpec::Fixed(Seconds(0.0)))
        .build(v, &format!("{key}.seek"));
    let rpm = f.rpm.unwrap_or(0.0);
    if !(rpm.is_finite() && rpm >= 0.0) {
        v.report(
            format!("{key}.rpm"),
            format!("must be a number >= 0, got {}", Figure(rpm)),
        );
    }
    let rate = f.rate.0;
    if !(rate.is_finite() && rate > 0.0) {
        v.report(
            format!("{key}.rate"),
            format!("must be a rate > 0, got {} B/s", Figure(rate)),
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
    let arm = arm(v, f, &key);
    let ok = rpm.is_finite() && rpm >= 0.0 && rate.is_finite() && rate > 0.0;
    Some(Device {
        name: f.name.clone(),
        seek: seek?,
        arm: arm?,
        revolution: if rpm > 0.0 { 60.0 / rpm } else { 0.0 },
        rate: ok.then_some(rate)?,
        fault_cpu: fault_cpu?,
        interrupt_cpu: interrupt_cpu?,
    })
}

/// The most cylinders a disk may have.
const MAX_CYLINDERS: i64 = 1_000_000;

/// The arm of device `f`, if it has one (`Some(None)` if not; `None` if
/// it is invalid).
pub(super) fn arm(v: &mut Validator, f: &DeviceFile, key: &str) -> Option<Option<Arm>> {
    let Some(a) = &f.arm else {
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
    let cylinders = a.cylinders;
    if !(3..=MAX_CYLINDERS).contains(&cylinders) {
        v.report(
            format!("{key}.arm.cylinders"),
            format!("must be a whole number from 3 to {MAX_CYLINDERS}, got {cylinders}"),
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
    let times = [("track", a.track), ("average", a.average), ("full", a.full)]
        .map(|(name, t)| v.time(t, &format!("{key}.arm.{name}"), false));
    let cylinders = u32::try_from(cylinders)
        .ok()
        .filter(|c| (3..=MAX_CYLINDERS).contains(&i64::from(*c)))?;
    let area = |v: &mut Validator, name: &str, given: Option<[i64; 2]>| match given {
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
                format!("{key}.{name}"),
                format!(
                    "[{first}, {last}] does not fit on the disk: give [first, last] with 0 <= first <= last <= {} (cylinders are numbered from 0)",
                    cylinders - 1
                ),
            );
            None
        }
    };
    let swap_area = area(v, "swap_area", f.swap_area);
    let file_system = area(v, "file_system", f.file_system);
    let [track, average, full] = times;
    let (track, average, full) = (track?, average?, full?);
    let seek = SeekCurve::fit(
        cylinders,
        track.as_secs_f64(),
        average.as_secs_f64(),
        full.as_secs_f64(),
    )
    .map_err(|e| v.report(format!("{key}.arm"), e.to_string()))
    .ok()?;
    let cylinder_bytes = match a.cylinder {
        None => Some(None),
        Some(b) => super::size(v, b, &format!("{key}.arm.cylinder"), false).map(Some),
    };
    Some(Some(Arm {
        cylinders,
        seek,
        order: order?,
        swap_area: swap_area?,
        file_system: file_system?,
        cylinder_bytes: cylinder_bytes?,
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
