//! Measurement and reporting for tpsim.
//!
//! This crate turns what a run measured into things people and tools read:
//! [`report::table`] renders a [`Summary`](tpsim_models::Summary) as tables
//! for the terminal (with the time-sharing model's processor, memory,
//! paging and swapping figures when present), and [`report::stations_csv`],
//! [`report::classes_csv`] and [`report::load_csv`] as CSV. The terminal
//! probe's observations are analysed per load level by [`analysis`] (the
//! 1981 study's percentiles, clustering and window), two installations
//! compared by [`compare`], batches of replications and sweeps tabled by
//! [`batch`], and curves drawn by [`plot`] as SVG and PNG; [`algebra`]
//! holds the 1975 Multics report's page-fault time algebra, and [`host`]
//! the load indices of a real Linux machine from the text of its `/proc`
//! files and the bytes of its utmp file, and [`host_model`] a scenario of
//! a host from its probe table; [`page`] makes output sets one
//! self-contained HTML page. It does no I/O itself: callers
//! read the files and decide where the text goes.
//!
//! # Example
//! ```
//! use tpsim_models::summary::{StationDiscipline, StationSummary, Summary};
//! let summary = Summary {
//!     scenario: "demo".into(), seed: 1, replication: 0, sim_time: 10.0, warmup: 0.0,
//!     events: 42, wall_seconds: 0.0, classes: vec![],
//!     stations: vec![StationSummary {
//!         name: "cpu".into(), discipline: StationDiscipline::Ps, servers: 1, utilization: 0.5,
//!         throughput: 2.0, mean_queue_length: 1.0, mean_response: Some(0.5),
//!         mean_wait: None, wait_probability: None, completions: 20,
//!     }],
//!     ..Summary::default()
//! };
//! let csv = tpsim_probe::report::stations_csv(&summary);
//! assert_eq!(csv.lines().nth(1), Some("cpu,ps,1,0.5,2.0,1.0,0.5,,,20"));
//! ```
#![deny(missing_docs)]

pub mod algebra;
pub mod analysis;
pub mod batch;
pub mod calibrate;
pub mod compare;
pub mod curves;
pub mod host;
pub mod host_model;
pub mod page;
pub mod plot;
pub mod report;
