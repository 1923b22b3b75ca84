//! `codec_bench`: the codec benchmark on real files, run without the GIL.

use crate::errors::IntoPyResult;
use flashpress_core::codec::bench::{self, Corpus};
use flashpress_core::codec::{CodecKind, CODEC_NAMES};
use flashpress_core::error::Error;
use pyo3::prelude::*;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Least time between two calls of the Python progress callback.
const PROGRESS_EVERY: Duration = Duration::from_millis(200);

/// Read `paths` (files or directories, walked in sorted order), then compress and decompress
/// every block of every size in `block_sizes` with every codec in `codecs` on one thread.
/// Returns JSON text: `{"corpus": {...}, "rows": [...]}` (see `flashpress_core::codec::bench`).
///
/// `progress(done, total)`, if given, is called with the GIL held at most every 0.2 s (and once
/// at the end) with uncompressed bytes processed and the total; it returning `False` cancels
/// the run (FlashpressError "cancelled"), and an exception it raises, or Ctrl-C, stops the run
/// and propagates. `source_name` and `block_size_key` name the caller and its block-size
/// argument in errors (the CLI passes "command line" and "--block-size").
#[pyfunction]
#[pyo3(signature = (
    paths, codecs, block_sizes, max_bytes = None, progress = None,
    source_name = "codec_bench()", block_size_key = "block_sizes", codec_key = "codecs",
))]
#[allow(clippy::too_many_arguments)]
fn codec_bench(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    codecs: Vec<String>,
    block_sizes: Vec<i64>,
    max_bytes: Option<i64>,
    progress: Option<PyObject>,
    source_name: &str,
    block_size_key: &str,
    codec_key: &str,
) -> PyResult<String> {
    let kinds = bench::parse_codecs(&codecs, source_name, codec_key).py_err(py)?;
    let sizes = bench::check_block_sizes(&block_sizes, source_name, block_size_key).py_err(py)?;
    let max_bytes = match max_bytes {
        None => None,
        Some(m) if m > 0 => Some(m as u64),
        Some(m) => {
            return Err(Error::config(
                source_name,
                "max_bytes",
                format!("must be at least 1 byte, got {m}"),
            ))
            .py_err(py)
        }
    };

    // The callback's own error (or KeyboardInterrupt), kept to re-raise after the run.
    let mut py_error: Option<PyErr> = None;
    let result = py.allow_threads(|| {
        let corpus = Corpus::load(&paths, max_bytes)?;
        let mut last = Instant::now();
        let mut report = |done: u64, total: u64| -> bool {
            if done < total && last.elapsed() < PROGRESS_EVERY {
                return true;
            }
            last = Instant::now();
            Python::with_gil(|py| {
                if let Err(e) = py.check_signals() {
                    py_error = Some(e);
                    return false;
                }
                let Some(cb) = &progress else { return true };
                match cb.call1(py, (done, total)) {
                    Ok(v) => !matches!(v.extract::<bool>(py), Ok(false)),
                    Err(e) => {
                        py_error = Some(e);
                        false
                    }
                }
            })
        };
        let rows = bench::run(&corpus, &kinds, &sizes, &mut report)?;
        let doc = serde_json::json!({ "corpus": corpus.info(), "rows": rows });
        Ok::<_, Error>(doc.to_string())
    });
    if let Some(e) = py_error {
        return Err(e);
    }
    result.py_err(py)
}

/// Names of the codecs the reports compare by default (`CodecKind::REPORT_SET`).
#[pyfunction]
fn report_codecs() -> Vec<String> {
    CodecKind::REPORT_SET
        .iter()
        .map(|k| k.to_string())
        .collect()
}

/// Every codec name family, for help texts.
#[pyfunction]
fn codec_names() -> &'static str {
    CODEC_NAMES
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(codec_bench, m)?)?;
    m.add_function(wrap_pyfunction!(report_codecs, m)?)?;
    m.add_function(wrap_pyfunction!(codec_names, m)?)?;
    Ok(())
}
