//! # flashpress-py
//!
//! The PyO3 binding of `flashpress-core`, built as the private extension module
//! `flashpress._core`. It is deliberately thin: configs cross the boundary as JSON text
//! (validated and resolved by the core), results come back as JSON, CSV text and plain
//! vectors, and every core [`flashpress_core::Error`] variant becomes its own Python exception
//! class (see its `errors` module). The public Python API lives in `python/flashpress/`.

mod codec;
mod config;
mod errors;
mod lossy;
mod sim;

use pyo3::prelude::*;

/// The `flashpress._core` module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    config::register(m)?;
    sim::register(m)?;
    codec::register(m)?;
    lossy::register(m)?;
    Ok(())
}
