//! Commands for the algebra of the 1975 Multics report (RFC-103):
//! `tpsim fault-times` splits the processor time per page fault into its
//! disk and bulk-store parts from readings typed in, from a table, or from
//! runs' summaries.

use crate::{Failure, Finished, emit, read_table};
use std::io::Write;
use std::path::{Path, PathBuf};
use tpsim_probe::algebra::{Reading, decompose, read_readings};

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

/// The readings in the file or run directory at `path`.
fn readings_from(path: &Path) -> Result<Vec<Reading>, Failure> {
    let input = |message: String| Failure::Input(anyhow::anyhow!(message));
    let summary = if path.is_dir() {
        Some(path.join("summary.json"))
    } else {
        (path.extension().is_some_and(|e| e == "json")).then(|| path.to_path_buf())
    };
    let Some(summary) = summary else {
        let text = read_table(path, "table of readings")?;
        return read_readings(&text).map_err(|e| input(format!("{}: {e}", path.display())));
    };
    let name = summary.display();
    let text = read_table(&summary, "run summary")?;
    let summary: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| input(format!("{name}: not a run's summary.json: {e}")))?;
    let number = |key: &str| summary["paging"][key].as_f64();
    let (Some(tav), Some(f)) = (number("tav"), number("disk_fraction")) else {
        return Err(input(format!(
            "{name}: no paging.tav and paging.disk_fraction: only a time-sharing run under paging gives a reading"
        )));
    };
    let scenario = summary["scenario"].as_str().unwrap_or("run");
    let replication = summary["replication"].as_u64().unwrap_or(0);
    Ok(vec![Reading {
        name: format!("{scenario} #{replication}"),
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
