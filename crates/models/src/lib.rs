//! tpsim's models: scenarios, queueing networks and their exact solutions.
//!
//! - [`scenario`] reads a TOML scenario and validates it into a [`Network`]
//!   or a [`System`], reporting every problem with its key.
//! - [`network`] is the validated model: open and closed job classes,
//!   stations (FCFS with one or more servers, processor sharing, round robin
//!   with a quantum and a context-switch cost, pure delay) and
//!   probabilistic routes.
//! - [`mod@simulate`] runs a network on the `tpsim-core` kernel and returns a
//!   [`Summary`].
//! - [`system`] is the time-sharing system: terminal users, command
//!   classes, round-robin processors, swapping or demand paging, disks and a
//!   bulk store; [`system::simulate`] runs it.
//! - [`batch`] runs independent replications of a scenario, or of every
//!   point of a [`sweep`] over its keys, on all cores, with Student-t
//!   intervals for every measure; [`shard`] cuts one into slices for
//!   several machines and merges them back exactly.
//! - [`analytic`] holds the exact results the simulator is checked against
//!   and that users can call directly: M/M/1, M/G/1 (Pollaczek-Khinchine),
//!   M/G/1-PS, the machine-repairman model and exact Mean Value Analysis.
//!
//! Times in the public results are seconds; rates are per second.
//!
//! # Example
//! ```
//! let text = r#"
//!     name = "M/M/1"
//!     [run]
//!     end_time = "100000s"
//!     warmup = "1000s"
//!     [[class]]
//!     name = "jobs"
//!     arrivals = { exp = { rate = "0.5/s" } }
//!     start = "server"
//!     [[station]]
//!     name = "server"
//!     discipline = "fcfs"
//!     service = { exp = { mean = "1s" } }
//!     to = "exit"
//! "#;
//! let network = tpsim_models::load_network("mm1.toml", text).unwrap();
//! let summary = tpsim_models::simulate(&network, network.settings.seed, 0).summary;
//! let exact = tpsim_models::analytic::Mm1::new(0.5, 1.0).unwrap();
//! let r = summary.classes[0].mean_response.expect("jobs completed");
//! assert!((r - exact.mean_response()).abs() < 0.1, "R = {r}");
//! ```
#![deny(missing_docs)]

pub mod analytic;
pub mod batch;
mod measure;
pub mod names;
pub mod network;
pub mod run;
pub mod scenario;
pub mod shard;
pub mod simulate;
pub mod summary;
pub mod sweep;
pub mod system;
pub mod units;
pub mod warmup;
pub mod words;

pub use network::Network;
pub use run::{Run, RunSettings};
pub use scenario::{Scenario, ScenarioError, load, load_network, load_system};
pub use simulate::{simulate, simulate_with_progress};
pub use summary::Summary;
pub use system::System;
pub use tpsim_core::{STALL_EVENTS, SimTime, replicate};
