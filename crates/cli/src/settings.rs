//! `--set KEY=VALUE` on `tpsim run`, `check`, `batch` and `compare`: a key
//! of the scenario given one value for this command, so that what differs
//! from machine to machine or from study to study (processors, a demand,
//! a quantum, the seed) need not be edited into the file.
//!
//! The syntax and key paths are `tpsim sweep --set`'s, read by the same
//! parser and made by the same code (`tpsim_models::sweep`), so a key a
//! sweep takes is taken here and the scenario's own validation judges the
//! result. A key the scenario does not have is refused naming the key and
//! the file, before anything runs or is written.

use crate::{Failure, read_scenario};
use std::path::Path;
use tpsim_models::Scenario;
use tpsim_models::sweep::{self, Setting, Settled};

/// `--set KEY=VALUE`, repeatable.
#[derive(Debug, Default, clap::Args)]
pub(crate) struct SetArgs {
    /// Give a key of the scenario this value, for this command only: the
    /// key by its path in the file (`users.terminals=12`,
    /// `system.quantum=50ms`, `class[cc].size=40KiB`, `seed=7`), as
    /// `tpsim sweep --set` takes it, with one value. Repeatable, once per
    /// key.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub(crate) sets: Vec<String>,
}

/// The settings `sets` (each `KEY=VALUES`, as a sweep takes them), refused
/// together with `--seed` (`seed`) if one of them sets the seed too.
pub(crate) fn parse(sets: &[String], seed: Option<u64>) -> Result<Vec<Setting>, Failure> {
    let input = |message: String| Failure::Input(anyhow::anyhow!(message));
    let settings = sets
        .iter()
        .map(|s| Setting::parse(s))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| input(e.to_string()))?;
    if seed.is_some() && settings.iter().any(|s| s.key == "seed") {
        return Err(input(
            "--seed and --set seed=... both set the master seed; give one of them".into(),
        ));
    }
    Ok(settings)
}

/// `parse` for a command that takes one value a key (`run`, `check`,
/// `batch`, `compare`): a setting without `=` is refused in those terms.
pub(crate) fn parse_one_each(sets: &[String], seed: Option<u64>) -> Result<Vec<Setting>, Failure> {
    if let Some(bare) = sets.iter().find(|s| !s.contains('=')) {
        return Err(Failure::Input(anyhow::anyhow!(
            "--set {bare}: expected KEY=VALUE, such as users.terminals=12"
        )));
    }
    parse(sets, seed)
}

/// The scenario at `path` with `settings` made (one value each), and its
/// text; without settings, the file as it is.
pub(crate) fn settle(path: &Path, settings: &[Setting]) -> Result<Settled, Failure> {
    let text = read_scenario(path)?;
    if settings.is_empty() {
        let scenario = tpsim_models::load(&path.display().to_string(), &text)?;
        return Ok(Settled { scenario, text });
    }
    sweep::settle(&path.display().to_string(), &text, settings)
        .map_err(|e| Failure::Input(anyhow::anyhow!(e.to_string())))
}

/// The text of the scenario at `path` with `settings` made, validated; the
/// file's own text, not yet validated, without settings (a sweep
/// validates each of its points instead).
pub(crate) fn text(path: &Path, settings: &[Setting]) -> Result<String, Failure> {
    if settings.is_empty() {
        return read_scenario(path);
    }
    settle(path, settings).map(|s| s.text)
}

/// The scenario at `path` with `settings` made.
pub(crate) fn load(path: &Path, settings: &[Setting]) -> Result<Scenario, Failure> {
    settle(path, settings).map(|s| s.scenario)
}

/// `path` as `check` names it: with the settings made, if any.
pub(crate) fn shown(path: &Path, sets: &[String]) -> String {
    let mut shown = path.display().to_string();
    for set in sets {
        shown.push_str(&format!(" --set {set}"));
    }
    shown
}
