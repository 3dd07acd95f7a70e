//! `tpsim model`: a scenario of a measured host from its probe table
//! (`tpsim_probe::host_model`), written whole or not at all.
//!
//! The table gives the benchmarks' demands, the ramp, the other work on
//! the machine, the probe's sleep and the memory; the processors are this
//! machine's unless `--cpus` gives them (a probe.csv does not record
//! them), and the scenario says which.

use super::page::same_path;
use super::{Failure, Finished, output, read_table};
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub(crate) struct ModelArgs {
    /// The probe table (`tpsim probe`'s probe.csv).
    table: PathBuf,
    /// The scenario file to write (TOML).
    #[arg(long)]
    out: PathBuf,
    /// The measured machine's processors (default: this machine's, for a
    /// table measured here).
    #[arg(long)]
    cpus: Option<u32>,
    /// The scenario's name (default: the --out file's stem).
    #[arg(long)]
    name: Option<String>,
}

pub(crate) fn model(args: &ModelArgs, stdout: &mut dyn Write) -> Result<Finished, Failure> {
    let input = |message: String| Failure::Input(anyhow::anyhow!(message));
    let table = args.table.display();
    let out = args.out.display();
    if args.out.is_dir() {
        return Err(input(format!(
            "--out {out}: a directory; give the scenario file to write, such as {}",
            args.out.join("host.toml").display()
        )));
    }
    if same_path(&args.table, &args.out) {
        return Err(input(format!("--out {out}: the table itself")));
    }
    let (cpus, from) = match args.cpus {
        Some(0) => return Err(input("--cpus: must be at least 1".to_string())),
        Some(n) => (n, "given: --cpus".to_string()),
        None => {
            let n = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
            (
                n,
                "this machine's processors, where `tpsim model` ran".to_string(),
            )
        }
    };
    let name = match &args.name {
        Some(name) => name.clone(),
        None => args
            .out
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "host".to_string()),
    };
    if let Err(e) = tpsim_models::names::check(&name) {
        return Err(input(format!("--name \"{name}\": {e}")));
    }
    let text = read_table(&args.table, "probe table")?;
    let measured =
        tpsim_probe::host_model::measure(&text).map_err(|e| input(format!("{table}: {e}")))?;
    let scenario = tpsim_probe::host_model::scenario(
        &measured,
        &name,
        cpus,
        &from,
        &args.table.display().to_string(),
    );
    // What is written must be what `check` takes: a table whose names or
    // steps a scenario cannot hold is refused.
    tpsim_models::load_system(&out.to_string(), &scenario).map_err(|e| {
        input(format!(
            "{table}: the model made of it is not a valid scenario, so nothing is written: {e}"
        ))
    })?;
    output::write_atomically(&args.out, scenario.as_bytes()).map_err(Failure::Run)?;
    writeln!(
        stdout,
        "{out}: a model of the host measured in {table}: {} benchmarks, {cpus} processors{}",
        measured.benchmarks.len(),
        measured
            .ramp
            .as_ref()
            .map_or(String::new(), |(steps, _)| format!(
                ", a ramp of {} steps",
                steps.len()
            ))
    )
    .map_err(|e| Failure::Run(e.into()))?;
    Ok(Finished::Whole)
}
