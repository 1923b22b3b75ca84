//! `Simulation` and `Report`: a run advanced in GIL-free steps, and its results.

use crate::config::parse_json;
use crate::errors::{FlashpressError, IntoPyResult};
use flashpress_core::config::SimConfig;
use flashpress_core::estimate::MemoryLimit;
use flashpress_core::interrupt::{Interrupt, SharedHook};
use flashpress_core::sim::Simulation as CoreSimulation;
use flashpress_core::stats::RunReport;
use flashpress_core::workload::Op;
use flashpress_core::Error;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

// The GIL is released while the core steps, so the core values must be movable across threads.
const _: fn() = || {
    fn send<T: Send>() {}
    send::<CoreSimulation>();
    send::<RunReport>();
};

/// A simulation of one resolved config. Advance it with `step`, then call `finish` once.
#[pyclass(module = "flashpress._core")]
pub struct Simulation {
    // `None` once finished. The mutex makes the class Sync for PyO3; Python never contends it.
    inner: Mutex<Option<CoreSimulation>>,
}

/// The core's interrupt hook: take the GIL briefly and run Python's signal handlers (on the
/// main thread, where the call happens, so a SIGINT raises KeyboardInterrupt); their
/// exception is kept in `slot` for [`reraise`] and the core loop stops with
/// `Error::Interrupted`.
fn check_signals(slot: &Mutex<Option<PyErr>>) -> flashpress_core::Result<()> {
    Python::with_gil(|py| py.check_signals()).map_err(|e| {
        *slot.lock().expect("signal slot") = Some(e);
        Error::Interrupted
    })
}

/// A core result, with the Python exception that interrupted it (if any) raised instead.
fn reraise<T>(
    py: Python<'_>,
    r: flashpress_core::Result<T>,
    slot: Mutex<Option<PyErr>>,
) -> PyResult<T> {
    match (r, slot.into_inner().expect("signal slot")) {
        (Err(Error::Interrupted), Some(e)) => Err(e),
        (r, _) => r.py_err(py),
    }
}

fn finished(py: Python<'_>) -> PyErr {
    let _ = py;
    FlashpressError::new_err("this Simulation has already been finished")
}

#[pymethods]
impl Simulation {
    /// Build the device from a resolved config (JSON), precondition it and open the workload.
    /// The run's memory estimate is checked first against `max_memory` bytes (None: the
    /// machine's available memory; 0: no check). Ctrl-C during preconditioning or a stack's
    /// layout raises KeyboardInterrupt within a few milliseconds.
    #[new]
    #[pyo3(signature = (resolved_config_json, max_memory = None))]
    fn new(py: Python<'_>, resolved_config_json: &str, max_memory: Option<u64>) -> PyResult<Self> {
        let v = parse_json(py, resolved_config_json, "resolved config")?;
        let cfg = SimConfig::from_resolved_value(v, "resolved config", None).py_err(py)?;
        let limit = match max_memory {
            None => MemoryLimit::Machine,
            Some(0) => MemoryLimit::Unlimited,
            Some(b) => MemoryLimit::Bytes(b),
        };
        let signal = Mutex::new(None);
        let sim = py.allow_threads(|| {
            let hook = || check_signals(&signal);
            CoreSimulation::build(cfg, limit, &mut Interrupt::new(&hook))
        });
        let sim = reraise(py, sim, signal)?;
        Ok(Simulation {
            inner: Mutex::new(Some(sim)),
        })
    }

    /// Process at most `max_events` events without holding the GIL; True once the workload is
    /// done. Checks for Ctrl-C (KeyboardInterrupt) every few milliseconds of wall time, between
    /// events and inside them (before each codec call of the content model); after a Ctrl-C
    /// inside an event the simulation cannot go on.
    #[pyo3(signature = (max_events = 1 << 18))]
    fn step(&self, py: Python<'_>, max_events: u64) -> PyResult<bool> {
        let mut guard = self.inner.lock().expect("simulation lock");
        let sim = guard.as_mut().ok_or_else(|| finished(py))?;
        let signal = Arc::new(Mutex::new(None));
        let hook: SharedHook = {
            let signal = Arc::clone(&signal);
            Arc::new(move || check_signals(&signal))
        };
        sim.set_interrupt(Some(hook));
        let done = py.allow_threads(|| sim.step(max_events));
        sim.set_interrupt(None);
        drop(guard);
        let signal = Mutex::new(signal.lock().expect("signal slot").take());
        let done = reraise(py, done, signal)?;
        py.check_signals()?;
        Ok(done)
    }

    /// Where the run is: dict with sim_time_ns, requests_issued, requests_completed and
    /// fraction (float in [0, 1] or None).
    fn progress<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let guard = self.inner.lock().expect("simulation lock");
        let sim = guard.as_ref().ok_or_else(|| finished(py))?;
        let p = sim.progress();
        let d = PyDict::new(py);
        d.set_item("sim_time_ns", p.sim_time_ns)?;
        d.set_item("requests_issued", p.requests_issued)?;
        d.set_item("requests_completed", p.requests_completed)?;
        d.set_item("fraction", p.fraction)?;
        Ok(d)
    }

    /// Whether `finish` has been called.
    #[getter]
    fn finished(&self) -> bool {
        self.inner.lock().expect("simulation lock").is_none()
    }

    /// Run the end-of-run checks and build the report. Consumes the simulation: a second call
    /// raises FlashpressError.
    fn finish(&self, py: Python<'_>) -> PyResult<Report> {
        let sim = self
            .inner
            .lock()
            .expect("simulation lock")
            .take()
            .ok_or_else(|| finished(py))?;
        let report = py.allow_threads(|| sim.finish()).py_err(py)?;
        Ok(Report {
            inner: Mutex::new(report),
        })
    }
}

/// Results of a finished run.
#[pyclass(module = "flashpress._core", frozen)]
pub struct Report {
    inner: Mutex<RunReport>,
}

fn parse_op(op: &str) -> PyResult<Op> {
    match op {
        "read" => Ok(Op::Read),
        "write" => Ok(Op::Write),
        "trim" => Ok(Op::Trim),
        other => Err(PyValueError::new_err(format!(
            "unknown op `{other}` (expected read, write or trim)"
        ))),
    }
}

#[pymethods]
impl Report {
    /// `summary.json` text, exactly as it is written beside results.
    fn summary_json(&self) -> String {
        self.inner.lock().expect("report lock").summary_json()
    }

    /// Timeline columns as (name, unit, description, values), one value per row: per interval,
    /// with idle stretches collapsed to their first and last interval.
    fn timeline_columns(&self) -> Vec<(&'static str, &'static str, &'static str, Vec<f64>)> {
        let r = self.inner.lock().expect("report lock");
        r.timeline_columns()
            .into_iter()
            .map(|c| (c.name, c.unit, c.description, c.values))
            .collect()
    }

    /// Timeline as CSV text with a header row.
    fn timeline_csv(&self) -> String {
        self.inner.lock().expect("report lock").timeline_csv()
    }

    /// Latency CDF of `op` ("read", "write" or "trim"): (latencies in ns, cumulative fractions);
    /// with `during_gc`, of the requests that waited while GC was on one of their planes.
    #[pyo3(signature = (op, during_gc = false))]
    fn latency_cdf(&self, op: &str, during_gc: bool) -> PyResult<(Vec<u64>, Vec<f64>)> {
        let op = parse_op(op)?;
        let r = self.inner.lock().expect("report lock");
        let cdf = if during_gc {
            r.latency_cdf_during_gc(op)
        } else {
            r.latency_cdf(op)
        };
        Ok(cdf.into_iter().unzip())
    }

    /// `latency_cdf.csv` text: `op,latency_ns,cumulative` rows of read, write, read_during_gc
    /// and write_during_gc.
    fn latency_cdf_csv(&self) -> String {
        self.inner.lock().expect("report lock").latency_cdf_csv()
    }

    /// `fdp_events.csv` text (`None` without `[fdp]`): the FDP events the device logged, one
    /// row each: `time_ns,type,code,pid,reclaim_group,handle`.
    fn fdp_events_csv(&self) -> Option<String> {
        self.inner.lock().expect("report lock").fdp_events_csv()
    }

    /// Write the timeline as Parquet to `path` (created or truncated), without the GIL. A file
    /// that cannot be written raises OSError (its errno subclass) naming the file.
    fn write_timeline_parquet(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        py.allow_threads(|| {
            let mut file = BufWriter::new(File::create(&path)?);
            let r = self.inner.lock().expect("report lock");
            r.write_timeline_parquet(&mut file)?;
            file.into_inner().map_err(|e| e.into_error())?;
            Ok(())
        })
        .map_err(|e| write_error(e, &path))
    }
}

/// An OSError as Python's own file functions raise it: `(errno, strerror, filename)`, so the
/// errno picks the subclass (PermissionError, FileNotFoundError, ...).
fn write_error(e: io::Error, path: &Path) -> PyErr {
    let msg = e.to_string();
    match e.raw_os_error() {
        Some(code) => {
            let strerror = msg.split(" (os error").next().unwrap_or(&msg).to_string();
            PyOSError::new_err((code, strerror, path.display().to_string()))
        }
        None => PyOSError::new_err(format!("cannot write {}: {msg}", path.display())),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add_class::<Report>()?;
    m.add_function(wrap_pyfunction!(estimate_memory, m)?)?;
    Ok(())
}

/// The memory estimate of a resolved config (JSON): a JSON object with total_bytes,
/// components (name, bytes, detail, key; largest first), the device's geometry and capacity,
/// available_bytes (what this process may still use, or null where unknown) with
/// available_limit (what sets it, in words), and machine_available_bytes (the machine's
/// available memory, shared by every process).
#[pyfunction]
fn estimate_memory(py: Python<'_>, resolved_config_json: &str) -> PyResult<String> {
    let v = parse_json(py, resolved_config_json, "resolved config")?;
    let cfg = SimConfig::from_resolved_value(v, "resolved config", None).py_err(py)?;
    cfg.validate("config").py_err(py)?;
    let est = flashpress_core::estimate::estimate(&cfg);
    let mut v = serde_json::to_value(&est).expect("estimate serializes");
    let avail = flashpress_core::estimate::available_memory_and_limit();
    v["available_bytes"] = serde_json::json!(avail.map(|(b, _)| b));
    v["available_limit"] = serde_json::json!(avail.map(|(_, what)| what));
    v["machine_available_bytes"] =
        serde_json::json!(flashpress_core::estimate::machine_available_memory());
    Ok(v.to_string())
}
