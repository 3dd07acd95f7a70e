//! `[[class]]`: command classes, their demands, I/O, locality and
//! phases, mirrored and validated.

use crate::scenario::{DistSpec, Validator};
use crate::system::{
    CommandClass, Io, Lifetime, Locality, LocalityRegion, Pattern, Phases, Program, SegmentFaults,
    System,
};
use crate::units::{Bytes, Figure, Seconds};
use serde::Deserialize;
use tpsim_core::Dist;

use super::devices::{DeviceFile, device_index};
use super::files::{DataFileFile, FileAccessFile, accesses};
use super::memory::Wanted;
use super::probe::{ProgramFile, Programs, unnamed};
use super::{OneOrMany, fraction, size};

/// A class's I/O to one device.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct IoFile {
    /// Mean requests per command.
    pub count: f64,
    /// Bytes per request.
    pub size: Bytes,
    /// The device.
    pub device: String,
}

/// A lifetime function as written.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub(crate) enum LocalityFile {
    /// L = 2b / (1 + (c/m)²).
    Cfl {
        /// Lifetime at the knee.
        b: Seconds,
        /// The knee \[pages\].
        c: f64,
    },
    /// L = a·m^k.
    Bk {
        /// Scale.
        a: Seconds,
        /// Exponent.
        k: f64,
    },
    /// Every page touched at once (`locality = "sweep"`).
    Sweep,
    /// The phase model: references on a locality set per phase.
    Phases {
        /// Pages in a locality set.
        set: f64,
        /// Processor time per phase.
        phase: DistSpec,
        /// Mean processor time between references.
        reference: Seconds,
        /// How references fall on the set (uniformly if absent).
        #[serde(default)]
        pattern: Option<PatternFile>,
        /// The region each set is drawn in (phases within phases).
        #[serde(default)]
        region: Option<RegionFile>,
    },
}

/// `region = { set, phase }` of the phase model, as written.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct RegionFile {
    /// Pages in the region.
    pub set: f64,
    /// Processor time per region.
    pub phase: DistSpec,
}

/// How a phase's references fall on its set, as written.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub(crate) enum PatternFile {
    /// `"uniform"`.
    Uniform,
    /// `{ zipf = EXPONENT }`.
    Zipf(f64),
}

/// `[[class]]`: a command class.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct CommandClassFile {
    /// The class's name.
    pub name: String,
    /// Processor demand as time on this system.
    #[serde(default)]
    pub cpu: Option<DistSpec>,
    /// Processor demand in millions of instructions (bare numbers).
    #[serde(default)]
    pub instructions: Option<DistSpec>,
    /// I/O requests.
    #[serde(default)]
    pub io: OneOrMany<IoFile>,
    /// Image (address space) size.
    pub size: Bytes,
    /// The shared, read-only part of the image (default 0).
    #[serde(default)]
    pub text: Option<Bytes>,
    /// Lifetime function, needed under paging.
    #[serde(default)]
    pub locality: Option<LocalityFile>,
    /// Probability that a page taken away is dirty (default 0).
    #[serde(default)]
    pub dirty: Option<f64>,
    /// Fraction of the private pages that start empty (default 0).
    #[serde(default)]
    pub zero_fill: Option<f64>,
    /// UNIX `nice`, -20 to 19 (default 0): added to the priority under the
    /// UNIX scheduler.
    #[serde(default)]
    pub nice: Option<i64>,
    /// Segment faults per command and the processor time of each (default:
    /// none).
    #[serde(default)]
    pub segment_faults: Option<SegmentFaultsFile>,
    /// The data files a command reads and writes, in order (default:
    /// none).
    #[serde(default)]
    pub files: Vec<FileAccessFile>,
    /// The sticky bit: the text stays in the text table between commands
    /// (default false).
    #[serde(default)]
    pub sticky: Option<bool>,
    /// The programs a command runs in turn, as a shell script does
    /// (default: none).
    #[serde(default)]
    pub runs: Vec<ProgramFile>,
}

/// `class.segment_faults = { per_command, cpu }`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct SegmentFaultsFile {
    /// The mean number per command.
    pub per_command: f64,
    /// Processor time of each.
    pub cpu: Seconds,
}

/// UNIX `nice` values (V7 keeps `p_nice - NZERO` in this range).
const NICE_RANGE: std::ops::RangeInclusive<i64> = -20..=19;

/// What a class is checked against: the devices, the other classes (the
/// programs it runs), the data files, and whether there is a cache to
/// read them through.
pub(super) struct ClassContext<'a> {
    pub devices: &'a [DeviceFile],
    pub classes: &'a [CommandClassFile],
    pub files: &'a [DataFileFile],
    pub cache: bool,
    /// Whether memory is swapped (the text table's rules apply).
    pub swapping: bool,
}

pub(super) fn class(
    v: &mut Validator,
    f: &CommandClassFile,
    mips: Option<f64>,
    wanted: Wanted,
    page: Option<u64>,
    data: &ClassContext<'_>,
    lists: &mut Vec<Vec<Program>>,
) -> Option<CommandClass> {
    let key = format!("class[{}]", f.name);
    let files = accesses(v, &f.name, &f.files, data.files, data.cache);
    let sticky = f.sticky.unwrap_or(false);
    if sticky && !(data.cache && data.swapping) {
        v.report(
            format!("{key}.sticky"),
            "a sticky text is kept by the text table of swapping with a buffer cache: give memory.policy = \"swapping\" and a [files] table",
        );
    }
    let runs: Vec<_> = f
        .runs
        .iter()
        .map(|r| {
            let mut cx = Programs {
                classes: data.classes,
                mips,
                lists: &mut *lists,
            };
            unnamed(v, r, &format!("{key}.runs"), &mut cx)
        })
        .collect();
    if !f.runs.is_empty() && !f.files.is_empty() {
        v.report(
            format!("{key}.files"),
            "a script (a class with `runs`) reads and writes through its programs: give the files to the classes it runs",
        );
    }
    let demand = demand(v, f, &key, mips);
    let io = ios(v, f, &key, data.devices);
    let image = size(v, f.size, &format!("{key}.size"), false);
    let text = size(
        v,
        f.text.unwrap_or(Bytes(0.0)),
        &format!("{key}.text"),
        true,
    );
    if let (Some(image), Some(text)) = (image, text)
        && text > image
    {
        v.report(
            format!("{key}.text"),
            format!("the shared text ({text} bytes) cannot be larger than the image, {key}.size ({image} bytes)"),
        );
    }
    let locality = locality(v, f, &key, wanted, image.zip(page), text);
    let dirty = fraction(v, f.dirty, &format!("{key}.dirty"));
    let zero_fill = fraction(v, f.zero_fill, &format!("{key}.zero_fill"));
    let segment_faults = segment_faults(v, f, &key);
    let (demand, demand_scale) = demand?;
    let nice = f.nice.unwrap_or(0);
    if !(NICE_RANGE).contains(&nice) {
        v.report(
            format!("{key}.nice"),
            format!(
                "must be a whole number from {} to {}, got {nice}",
                NICE_RANGE.start(),
                NICE_RANGE.end()
            ),
        );
    }
    Some(CommandClass {
        name: f.name.clone(),
        nice: NICE_RANGE.contains(&nice).then_some(nice as i32)?,
        demand,
        demand_scale,
        io: io?,
        size: image?,
        text: text.filter(|&t| t <= image.unwrap_or(0))?,
        locality,
        dirty: dirty?,
        zero_fill: zero_fill?,
        segment_faults: segment_faults?,
        files: files?,
        sticky,
        runs: runs.into_iter().collect::<Option<_>>()?,
    })
}

/// Refuses a script that runs itself, directly or through the scripts it
/// runs: its commands would never end.
pub(super) fn scripts_end(v: &mut Validator, sys: &System) {
    // Depth-first from each class, along `runs`: a class run with the
    // same programs met again on the path is a loop. A program given runs
    // of its own goes on along those (a shell running `sh -c` runs another
    // list than the shell's own, and is no loop).
    fn visit(sys: &System, run: Program, path: &mut Vec<Program>) -> Option<Vec<Program>> {
        let same = |p: &Program| (p.class, p.runs) == (run.class, run.runs);
        if let Some(at) = path.iter().position(same) {
            let mut cycle = path[at..].to_vec();
            cycle.push(run);
            return Some(cycle);
        }
        path.push(run);
        for &next in sys.runs(run.class, run.runs) {
            if let Some(cycle) = visit(sys, next, path) {
                return Some(cycle);
            }
        }
        path.pop();
        None
    }
    for (i, c) in sys.classes.iter().enumerate() {
        if let Some(cycle) = visit(sys, Program::of(i), &mut Vec::new())
            && cycle[0] == Program::of(i)
        {
            let names: Vec<&str> = cycle
                .iter()
                .map(|p| sys.classes[p.class].name.as_str())
                .collect();
            v.report(
                format!("class[{}].runs", c.name),
                format!(
                    "runs itself ({}): its commands would never end",
                    names.join(" -> ")
                ),
            );
        }
    }
}

/// A class's processor demand, in seconds with the scale that makes its
/// draws seconds: a time, or instructions at `mips`.
fn demand(
    v: &mut Validator,
    f: &CommandClassFile,
    key: &str,
    mips: Option<f64>,
) -> Option<(Dist, f64)> {
    match (&f.cpu, &f.instructions) {
        (Some(cpu), None) => v.dist(cpu, &format!("{key}.cpu")).map(|d| (d, 1.0)),
        (None, Some(instructions)) => v
            .dist(instructions, &format!("{key}.instructions"))
            .zip(mips)
            .map(|(d, mips)| (d, 1.0 / mips)),
        _ => {
            v.report(
                key,
                "give exactly one of `cpu` (time) and `instructions` (millions)",
            );
            None
        }
    }
}

/// A class's I/O, each entry checked (all are reported before any is
/// refused).
fn ios(
    v: &mut Validator,
    f: &CommandClassFile,
    key: &str,
    devices: &[DeviceFile],
) -> Option<Vec<Io>> {
    let io: Vec<_> =
        f.io.0
            .iter()
            .enumerate()
            .map(|(i, io)| {
                let ikey = format!("{key}.io[{i}]");
                if !(io.count.is_finite() && io.count >= 0.0) {
                    v.report(
                        format!("{ikey}.count"),
                        format!("must be a number >= 0, got {}", Figure(io.count)),
                    );
                }
                let bytes = size(v, io.size, &format!("{ikey}.size"), false);
                let device = device_index(v, devices, &io.device, &format!("{ikey}.device"));
                let ok = io.count.is_finite() && io.count >= 0.0;
                Some(Io {
                    device: device?,
                    count: ok.then_some(io.count)?,
                    size: bytes? as f64,
                })
            })
            .collect();
    io.into_iter().collect()
}

/// A class's locality, as the memory policy wants it (`wanted`): none
/// under swapping, a lifetime function under replacement by process, the
/// phase model under memory as frames. `sizes` are its image and the page
/// size, `text` its shared text, where valid.
fn locality(
    v: &mut Validator,
    f: &CommandClassFile,
    key: &str,
    wanted: Wanted,
    sizes: Option<(u64, u64)>,
    text: Option<u64>,
) -> Option<Locality> {
    let given = f
        .locality
        .as_ref()
        .and_then(|given| locality_given(v, given, key, sizes));
    let locality = match (wanted, given) {
        (Wanted::None, _) => None,
        (Wanted::Lifetime, Some(Locality::Phases(_))) => {
            v.report(
                format!("{key}.locality.phases"),
                "needs memory.replacement = \"clock\": replacement by process follows a lifetime function (cfl or bk)",
            );
            None
        }
        (Wanted::Phases, Some(Locality::Lifetime(_))) => {
            v.report(
                format!("{key}.locality"),
                "memory.replacement = \"clock\" needs the phase model: give { phases = { set = ..., phase = ..., reference = ... } }",
            );
            None
        }
        (_, locality) => locality,
    };
    if let Some(Locality::Phases(Phases {
        pattern: Pattern::Zipf { .. },
        ..
    })) = &locality
        && text.is_some_and(|t| t > 0)
    {
        v.report(
            format!("{key}.locality.phases.pattern"),
            format!("a class with shared text ({key}.text) takes uniform references: a pattern by page is not defined over a text its processes share"),
        );
    }
    match (wanted, &f.locality) {
        (Wanted::Lifetime, None) => v.report(
            format!("{key}.locality"),
            "is required under memory.policy = \"paging\": give { cfl = { b = ..., c = ... } } or { bk = { a = ..., k = ... } }",
        ),
        (Wanted::Phases, None) => v.report(
            format!("{key}.locality"),
            "is required under memory.replacement = \"clock\": give { phases = { set = ..., phase = ..., reference = ... } }",
        ),
        _ => {}
    }
    locality
}

/// The locality `given` for the class at `key`, each value checked, whatever
/// the policy wants.
fn locality_given(
    v: &mut Validator,
    given: &LocalityFile,
    key: &str,
    sizes: Option<(u64, u64)>,
) -> Option<Locality> {
    match given {
        LocalityFile::Cfl { b, c } => {
            let b = v.time(*b, &format!("{key}.locality.cfl.b"), false);
            if !(c.is_finite() && *c > 0.0) {
                v.report(
                    format!("{key}.locality.cfl.c"),
                    format!("must be a number of pages > 0, got {}", Figure(*c)),
                );
            }
            b.filter(|_| c.is_finite() && *c > 0.0).map(|b| {
                Locality::Lifetime(Lifetime::Cfl {
                    b: b.as_secs_f64(),
                    c: *c,
                })
            })
        }
        LocalityFile::Bk { a, k } => {
            let a = v.time(*a, &format!("{key}.locality.bk.a"), false);
            if !(k.is_finite() && *k > 0.0) {
                v.report(
                    format!("{key}.locality.bk.k"),
                    format!("must be a number > 0, got {}", Figure(*k)),
                );
            }
            a.filter(|_| k.is_finite() && *k > 0.0).map(|a| {
                Locality::Lifetime(Lifetime::Bk {
                    a: a.as_secs_f64(),
                    k: *k,
                })
            })
        }
        LocalityFile::Sweep => Some(Locality::Lifetime(Lifetime::Sweep)),
        LocalityFile::Phases {
            set,
            phase,
            reference,
            pattern,
            region,
        } => phases(
            v,
            key,
            PhasesGiven {
                set: *set,
                phase,
                reference: *reference,
                pattern: pattern.as_ref(),
                region: region.as_ref(),
            },
            sizes,
        ),
    }
}

/// A class's segment faults, if it has them (`Some(None)`: none).
fn segment_faults(
    v: &mut Validator,
    f: &CommandClassFile,
    key: &str,
) -> Option<Option<SegmentFaults>> {
    let Some(sf) = &f.segment_faults else {
        return Some(None);
    };
    let per_command = sf.per_command;
    if !(per_command.is_finite() && per_command >= 0.0) {
        v.report(
            format!("{key}.segment_faults.per_command"),
            format!("must be a number >= 0, got {}", Figure(per_command)),
        );
    }
    v.time(sf.cpu, &format!("{key}.segment_faults.cpu"), true)
        .filter(|_| per_command.is_finite() && per_command >= 0.0)
        .map(|cpu| Some(SegmentFaults { per_command, cpu }))
}

/// The phase model of a class whose image and page size are `sizes`
/// (bytes), if both are valid.
/// The phase model's keys as written.
struct PhasesGiven<'a> {
    set: f64,
    phase: &'a DistSpec,
    reference: Seconds,
    pattern: Option<&'a PatternFile>,
    region: Option<&'a RegionFile>,
}

fn phases(
    v: &mut Validator,
    key: &str,
    given: PhasesGiven<'_>,
    sizes: Option<(u64, u64)>,
) -> Option<Locality> {
    let PhasesGiven {
        set,
        phase,
        reference,
        pattern,
        region,
    } = given;
    let pages = sizes.map(|(image, page)| image.div_ceil(page));
    let set_ok = set.is_finite() && set >= 1.0 && set.fract() == 0.0;
    if !set_ok {
        v.report(
            format!("{key}.locality.phases.set"),
            format!("must be a whole number of pages >= 1, got {}", Figure(set)),
        );
    } else if let Some(pages) = pages
        && set as u64 > pages
    {
        v.report(
            format!("{key}.locality.phases.set"),
            format!(
                "a locality set of {} pages is larger than the program ({pages} pages of {key}.size)",
                if set < 1e15 {
                    (set as u64).to_string()
                } else {
                    Figure(set).to_string()
                }
            ),
        );
    }
    let phase_key = format!("{key}.locality.phases.phase");
    let phase = v.dist(phase, &phase_key).filter(|d| {
        let ok = d.mean() > 0.0;
        if !ok {
            v.report(
                &phase_key,
                "a phase must last some processor time: its mean must be > 0",
            );
        }
        ok
    });
    let reference = v.time(
        reference,
        &format!("{key}.locality.phases.reference"),
        false,
    );
    let set = (set_ok && pages.is_some_and(|p| set as u64 <= p)).then_some(set as u64);
    let pattern = match pattern {
        None | Some(PatternFile::Uniform) => Some(Pattern::Uniform),
        Some(&PatternFile::Zipf(exponent)) => {
            let ok = exponent.is_finite() && exponent > 0.0 && exponent <= 10.0;
            if !ok {
                v.report(
                    format!("{key}.locality.phases.pattern.zipf"),
                    format!(
                        "must be an exponent > 0 and at most 10, got {}",
                        Figure(exponent)
                    ),
                );
            }
            set.filter(|_| ok).map(|set| Pattern::zipf(exponent, set))
        }
    };
    let region = match region {
        None => Some(None),
        Some(r) => locality_region(v, key, r, set, pages).map(|r| Some(Box::new(r))),
    };
    Some(Locality::Phases(Phases {
        set: set?,
        phase: phase?,
        reference: reference?.as_secs_f64(),
        pattern: pattern?,
        region: region?,
    }))
}

/// A phase model's region: whole pages, from the set's to the image's,
/// and a phase with some length.
fn locality_region(
    v: &mut Validator,
    key: &str,
    r: &RegionFile,
    set: Option<u64>,
    pages: Option<u64>,
) -> Option<LocalityRegion> {
    let rkey = format!("{key}.locality.phases.region");
    let whole = r.set.is_finite() && r.set >= 1.0 && r.set.fract() == 0.0;
    let fits =
        whole && set.is_none_or(|s| r.set as u64 >= s) && pages.is_none_or(|p| r.set as u64 <= p);
    if !fits {
        v.report(
            format!("{rkey}.set"),
            format!(
                "must be a whole number of pages from the locality set's ({}) to the program's ({}), got {}",
                set.map_or_else(|| "?".to_string(), |s| s.to_string()),
                pages.map_or_else(|| "?".to_string(), |p| p.to_string()),
                Figure(r.set)
            ),
        );
    }
    let phase_key = format!("{rkey}.phase");
    let phase = v.dist(&r.phase, &phase_key).filter(|d| {
        let ok = d.mean() > 0.0;
        if !ok {
            v.report(
                &phase_key,
                "a region must last some processor time: its mean must be > 0",
            );
        }
        ok
    });
    Some(LocalityRegion {
        pages: fits.then_some(r.set as u64)?,
        phase: phase?,
    })
}

pub(super) fn class_index(
    v: &mut Validator,
    classes: &[CommandClassFile],
    name: &str,
    key: &str,
) -> Option<usize> {
    let found = classes.iter().position(|c| c.name == name);
    if found.is_none() {
        v.report(key, format!("no [[class]] named \"{name}\""));
    }
    found
}
