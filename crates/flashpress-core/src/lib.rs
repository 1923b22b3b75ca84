//! # flashpress-core
//!
//! The simulation core of flashpress: a deterministic, reservation-based flash SSD simulator
//! with a page-level FTL and garbage collection, driven by fio job files and block traces.
//! It knows nothing of Python; `flashpress-py` wraps it.
//!
//! The data path follows the hardware (see `docs/architecture.md`):
//!
//! ```text
//! workload (fio jobs, traces) -> host (closed/open loop streams, link) -> device (controller,
//! write buffer) -> ftl (mapping, allocation, GC) -> nand (geometry, timing, energy)
//! ```
//!
//! Simulated time is integer nanoseconds ([`units::SimTime`]). One event queue ordered by
//! (time, sequence) drives request arrivals and completions; flash resources (planes,
//! channels, the host link) are reservations ("busy until"), so a page operation costs a few
//! arithmetic steps. A simulation is a value: no global state, many can run in one process.
//!
//! ```
//! use flashpress_core::{config::SimConfig, sim::Simulation};
//! let cfg = SimConfig::from_toml_str(
//!     "preset = \"tiny\"\n[workload]\ntype = \"fio\"\n[[workload.jobs]]\nrw = \"randwrite\"\nbs = \"4k\"\nnumber_ios = 2000\n",
//!     "example",
//! ).unwrap();
//! let report = Simulation::new(cfg).unwrap().run().unwrap();
//! assert_eq!(report.summary.requests_completed, 2000);
//! assert!(report.summary.waf.unwrap() >= 1.0);
//! ```

pub mod codec;
pub mod config;
pub mod content;
pub mod device;
pub mod engine;
pub mod error;
pub mod estimate;
pub mod ftl;
pub mod host;
pub mod interrupt;
pub mod nand;
pub mod sim;
pub mod stack;
pub mod stats;
#[cfg(test)]
mod testdata;
pub mod units;
pub mod workload;

pub use error::{Error, Result};
