//! Commands for the algebra of the 1975 Multics report (RFC-103):
//! `tpsim fault-times` splits the processor time per page fault into its
//! disk and bulk-store parts from readings typed in, from a table, or from
//! runs' summaries; `tpsim capacity` compares installations' delivered
//! capacity, from a table or from runs' summaries; `tpsim attribute`
//! shares a processor-time breakdown out between the two paging devices.

use crate::{Failure, Finished, emit, read_table};
use std::io::Write;
use std::path::{Path, PathBuf};
use tpsim_probe::algebra::{
    Breakdown, Installation, Reading, attribute, decompose, read_installations, read_readings,
};

#[derive(Debug, clap::Args)]
pub(crate) struct FaultTimesArgs {
    /// Where readings come from: a CSV table with the columns reading, tav
    /// (a duration such as 7.05ms) and f; or a run's summary.json (or the
    /// directory `tpsim run --out` wrote it into), whose paging.tav and
    /// paging.disk_fraction are one reading.
    inputs: Vec<PathBuf>,
    /// A reading typed in, NAME:TAV:F (`MIT#1:1.99ms:0.059`). Repeatable;
    /// read after the files.
    #[arg(long, value_name = "NAME:TAV:F")]
    reading: Vec<String>,
    /// Print the decomposition as JSON instead of tables.
    #[arg(long)]
    json: bool,
}

pub(crate) fn fault_times(
    args: &FaultTimesArgs,
    stdout: &mut dyn Write,
) -> Result<Finished, Failure> {
    let input = |message: String| Failure::Input(anyhow::anyhow!(message));
    let mut readings = Vec::new();
    for path in &args.inputs {
        readings.extend(readings_from(path)?);
    }
    for typed in &args.reading {
        readings.push(typed_reading(typed).map_err(input)?);
    }
    let decomposition = decompose(&readings).map_err(|e| input(e.to_string()))?;
    emit(
        stdout,
        args.json,
        || serde_json::to_value(&decomposition).expect("a decomposition serialises"),
        || tpsim_probe::report::fault_times_table(&decomposition),
    )
}

#[derive(Debug, clap::Args)]
pub(crate) struct CapacityArgs {
    /// Where installations come from: a CSV table with the columns
    /// installation, mips, useful and processors; or a run's summary.json
    /// (or the directory `tpsim run --out` wrote it into) of a scenario
    /// that gives system.mips, whose user work as a fraction of the time
    /// not idle for light load (cpu.useful_of_non_idle) is the useful
    /// fraction.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Print the installations and their capacities as JSON instead of a
    /// table.
    #[arg(long)]
    json: bool,
}

pub(crate) fn capacity(args: &CapacityArgs, stdout: &mut dyn Write) -> Result<Finished, Failure> {
    let input = |message: String| Failure::Input(anyhow::anyhow!(message));
    let mut installations = Vec::new();
    for path in &args.inputs {
        installations.extend(installations_from(path)?);
    }
    for i in &installations {
        i.check().map_err(input)?;
    }
    if installations.is_empty() {
        return Err(input(
            "no installations: the tables hold no rows".to_string(),
        ));
    }
    emit(
        stdout,
        args.json,
        || {
            let rows: Vec<serde_json::Value> = installations
                .iter()
                .map(|i| serde_json::json!({ "installation": i, "delivered_mips": i.delivered() }))
                .collect();
            serde_json::json!({ "installations": rows })
        },
        || tpsim_probe::report::capacity_table(&installations),
    )
}

#[derive(Debug, clap::Args)]
pub(crate) struct AttributeArgs {
    /// A run's summary.json, or the directory `tpsim run --out` wrote it
    /// into: its processor-time split is the breakdown and its
    /// paging.disk_fraction is f.
    run: Option<PathBuf>,
    /// The breakdown typed in, each part a fraction of processor time:
    /// page_faults=0.28,getwork=0.03,interrupts=0.06,segment_faults=0.03,
    /// mp_idle=0.02,other_idle=0.13,useful=0.45 (parts not named are 0).
    #[arg(long, value_name = "PART=FRACTION,...", conflicts_with = "run")]
    breakdown: Option<String>,
    /// The fraction of page reads from disk (default: the run's).
    #[arg(long)]
    f: Option<f64>,
    /// Processor time per disk page fault, such as 7.1ms (`tpsim
    /// fault-times` estimates it).
    #[arg(long)]
    td: String,
    /// Processor time per bulk-store page fault, such as 1.8ms.
    #[arg(long)]
    tb: String,
    /// Print the attribution as JSON instead of tables.
    #[arg(long)]
    json: bool,
}

pub(crate) fn attribute_time(
    args: &AttributeArgs,
    stdout: &mut dyn Write,
) -> Result<Finished, Failure> {
    let input = |message: String| Failure::Input(anyhow::anyhow!(message));
    let time = |flag: &str, text: &str| {
        tpsim_models::units::parse_duration(text)
            .map(|t| t.0)
            .map_err(|e| input(format!("--{flag}: {e}")))
    };
    let (td, tb) = (time("td", &args.td)?, time("tb", &args.tb)?);
    let (breakdown, run_f) = match (&args.run, &args.breakdown) {
        (Some(path), _) => {
            let Some((name, summary)) = run_summary(path)? else {
                return Err(input(format!(
                    "{}: not a run's summary.json or the directory holding one",
                    path.display()
                )));
            };
            let cpu = &summary["cpu"];
            let part = |key: &str| cpu[key].as_f64();
            let parts = [
                part("fault_handling"),
                part("context_switch"),
                part("interrupts"),
                part("segment_faults"),
                part("multiprogramming_idle"),
                part("other_idle"),
                part("user"),
            ];
            let [
                Some(pf),
                Some(gw),
                Some(int),
                Some(seg),
                Some(mp),
                Some(idle),
                Some(user),
            ] = parts
            else {
                return Err(input(format!(
                    "{name}: no processor-time split: only a time-sharing run has one"
                )));
            };
            let breakdown = Breakdown {
                page_faults: pf,
                getwork: gw,
                interrupts: int,
                segment_faults: seg,
                mp_idle: mp,
                other_idle: idle,
                useful: user,
            };
            (breakdown, summary["paging"]["disk_fraction"].as_f64())
        }
        (None, Some(text)) => (typed_breakdown(text).map_err(input)?, None),
        (None, None) => {
            return Err(input(
                "give a run (its summary.json or directory) or --breakdown".to_string(),
            ));
        }
    };
    let Some(f) = args.f.or(run_f) else {
        return Err(input(
            "--f is required without a paged run to take it from".to_string(),
        ));
    };
    let attribution = attribute(&breakdown, f, td, tb).map_err(input)?;
    emit(
        stdout,
        args.json,
        || serde_json::json!({ "breakdown": breakdown, "f": f, "td": td, "tb": tb, "attribution": attribution }),
        || tpsim_probe::report::attribution_table(&breakdown, f, td, tb, &attribution),
    )
}

/// A breakdown typed as PART=FRACTION,...
fn typed_breakdown(text: &str) -> Result<Breakdown, String> {
    let mut parts = [0.0; 7];
    for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let (name, value) = item
            .split_once('=')
            .ok_or_else(|| format!("--breakdown {item}: expected PART=FRACTION"))?;
        let at = Breakdown::NAMES
            .iter()
            .position(|n| *n == name.trim())
            .ok_or_else(|| {
                format!(
                    "--breakdown: unknown part \"{name}\": expected {}",
                    Breakdown::NAMES.join(", ")
                )
            })?;
        parts[at] = value
            .trim()
            .parse::<f64>()
            .map_err(|_| format!("--breakdown {name}: \"{value}\" is not a number"))?;
    }
    let [
        page_faults,
        getwork,
        interrupts,
        segment_faults,
        mp_idle,
        other_idle,
        useful,
    ] = parts;
    Ok(Breakdown {
        page_faults,
        getwork,
        interrupts,
        segment_faults,
        mp_idle,
        other_idle,
        useful,
    })
}

/// The installations in the file or run directory at `path`.
fn installations_from(path: &Path) -> Result<Vec<Installation>, Failure> {
    let input = |message: String| Failure::Input(anyhow::anyhow!(message));
    let Some((name, summary)) = run_summary(path)? else {
        let text = read_table(path, "table of installations")?;
        return read_installations(&text).map_err(|e| input(format!("{}: {e}", path.display())));
    };
    let cpu = &summary["cpu"];
    let (Some(mips), Some(useful), Some(processors)) = (
        cpu["mips"].as_f64(),
        cpu["useful_of_non_idle"].as_f64(),
        cpu["cpus"].as_u64(),
    ) else {
        return Err(input(format!(
            "{name}: no cpu.mips: only a time-sharing run of a scenario that gives system.mips has a speed"
        )));
    };
    Ok(vec![Installation {
        name: run_name(&summary),
        mips,
        useful,
        processors: u32::try_from(processors).unwrap_or(u32::MAX),
    }])
}

/// The summary at `path` if it names a run's summary.json or the directory
/// holding one, with its name for messages; `None` for another file.
fn run_summary(path: &Path) -> Result<Option<(String, serde_json::Value)>, Failure> {
    let summary = if path.is_dir() {
        path.join("summary.json")
    } else if path.extension().is_some_and(|e| e == "json") {
        path.to_path_buf()
    } else {
        return Ok(None);
    };
    let name = summary.display().to_string();
    let text = read_table(&summary, "run summary")?;
    let value = serde_json::from_str(&text)
        .map_err(|e| Failure::Input(anyhow::anyhow!("{name}: not a run's summary.json: {e}")))?;
    Ok(Some((name, value)))
}

/// A run's name in tables: its scenario and replication.
fn run_name(summary: &serde_json::Value) -> String {
    let scenario = summary["scenario"].as_str().unwrap_or("run");
    let replication = summary["replication"].as_u64().unwrap_or(0);
    format!("{scenario} #{replication}")
}

/// The readings in the file or run directory at `path`.
fn readings_from(path: &Path) -> Result<Vec<Reading>, Failure> {
    let input = |message: String| Failure::Input(anyhow::anyhow!(message));
    let Some((name, summary)) = run_summary(path)? else {
        let text = read_table(path, "table of readings")?;
        return read_readings(&text).map_err(|e| input(format!("{}: {e}", path.display())));
    };
    let number = |key: &str| summary["paging"][key].as_f64();
    let (Some(tav), Some(f)) = (number("tav"), number("disk_fraction")) else {
        return Err(input(format!(
            "{name}: no paging.tav and paging.disk_fraction: only a time-sharing run under paging gives a reading"
        )));
    };
    Ok(vec![Reading {
        name: run_name(&summary),
        tav,
        f,
    }])
}

/// A reading typed as NAME:TAV:F.
fn typed_reading(text: &str) -> Result<Reading, String> {
    let bad = |why: String| {
        format!("--reading {text}: {why}; expected NAME:TAV:F, such as MIT#1:1.99ms:0.059")
    };
    let mut parts = text.rsplitn(3, ':');
    let (Some(f), Some(tav), Some(name)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(bad("not three fields".to_string()));
    };
    let tav = tpsim_models::units::parse_duration(tav.trim()).map_err(bad)?;
    let f = f
        .trim()
        .parse::<f64>()
        .map_err(|_| bad(format!("f \"{f}\" is not a number")))?;
    Ok(Reading {
        name: name.to_string(),
        tav: tav.0,
        f,
    })
}
