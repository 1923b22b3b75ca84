//! A simulation: config in, report out. Built by [`Simulation::new`], advanced in bounded
//! steps with [`Simulation::step`] (so a front end can show progress and notice Ctrl-C), and
//! turned into a [`RunReport`] by [`Simulation::finish`].

use crate::config::SimConfig;
use crate::error::Result;
use crate::stats::RunReport;

/// Where a run is, for progress bars.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Progress {
    /// Simulated time reached (ns).
    pub sim_time_ns: u64,
    /// Requests submitted so far.
    pub requests_issued: u64,
    /// Requests completed so far.
    pub requests_completed: u64,
    /// Estimated fraction of the workload done, in [0, 1], when the workload can tell.
    pub fraction: Option<f64>,
}

/// One simulation run.
pub struct Simulation {
    _cfg: SimConfig,
}

impl Simulation {
    /// Build the device, precondition it and open the workload.
    pub fn new(cfg: SimConfig) -> Result<Simulation> {
        Ok(Simulation { _cfg: cfg })
    }

    /// Process at most `max_events` events; `Ok(true)` once the workload is finished.
    pub fn step(&mut self, max_events: u64) -> Result<bool> {
        let _ = max_events;
        todo!()
    }

    /// Where the run is.
    pub fn progress(&self) -> Progress {
        todo!()
    }

    /// Run the checks the config asks for and build the report. Call after `step` returned true.
    pub fn finish(self) -> Result<RunReport> {
        todo!()
    }

    /// Step to the end and finish.
    pub fn run(mut self) -> Result<RunReport> {
        while !self.step(1 << 20)? {}
        self.finish()
    }
}
