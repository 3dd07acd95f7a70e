//! tpsim: a discrete-event simulator for the performance of time-sharing
//! computer systems.
//!
//! This facade re-exports the workspace's crates under one name:
//! [`core`] (kernel), [`models`] (scenarios, networks, exact results),
//! [`probe`] (reports) and [`cli`] (the `tpsim` command).
#![deny(missing_docs)]

pub use tpsim_cli as cli;
pub use tpsim_core as core;
pub use tpsim_models as models;
pub use tpsim_probe as probe;
