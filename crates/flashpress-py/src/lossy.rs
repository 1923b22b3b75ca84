//! `szx_compress` / `szx_decompress`: the SZx-style codec on NumPy arrays (any object with
//! the buffer protocol), read and written in place and run without the GIL.

use crate::errors::IntoPyResult;
use flashpress_core::codec::chunked;
use flashpress_core::error::Error;
use pyo3::buffer::{Element, PyBuffer};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

fn contiguous<T: Element>(obj: &Bound<'_, PyAny>, writable: bool) -> PyResult<PyBuffer<T>> {
    let buf = PyBuffer::<T>::get(obj)?;
    // PyO3 checks the item kind and size, not the byte order: a big-endian array would be
    // read as byte-swapped values.
    let format = buf.format().to_string_lossy();
    if format.starts_with('>') || format.starts_with('!') {
        return Err(PyTypeError::new_err(format!(
            "expected a native-endian array, got buffer format {format:?}"
        )));
    }
    if !buf.is_c_contiguous() {
        return Err(PyTypeError::new_err("expected a C-contiguous array"));
    }
    if writable && buf.readonly() {
        return Err(PyTypeError::new_err("expected a writable array"));
    }
    Ok(buf)
}

fn compress_as<T: Element + flashpress_core::codec::szx::Float + Send + Sync>(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    bound: f64,
    block: usize,
    threads: usize,
) -> PyResult<Py<PyBytes>> {
    let buf = contiguous::<T>(data, false)?;
    let (ptr, n) = (buf.buf_ptr() as usize, buf.item_count());
    let packed = py.allow_threads(|| {
        // SAFETY: `buf` holds the exporter's buffer (C-contiguous, `n` items of T) alive and
        // unmoved until it is released after this closure. With the GIL released another
        // Python thread could write the array meanwhile: the contract of this function (as of
        // any NumPy call that releases the GIL) is that the caller does not; any bit pattern
        // read is a valid f32/f64.
        let data = unsafe { std::slice::from_raw_parts(ptr as *const T, n) };
        chunked::compress(data, bound, block, threads)
    });
    let packed = packed.py_err(py)?;
    Ok(PyBytes::new(py, &packed).unbind())
}

/// Compress a C-contiguous float32 or float64 array (`dtype` "f32" or "f64") so that every
/// value comes back within `bound` (absolute), cut into `threads` chunks compressed on as many
/// threads. Returns the chunked SZx stream.
#[pyfunction]
#[pyo3(signature = (data, dtype, bound, block = flashpress_core::codec::szx::DEFAULT_BLOCK, threads = 1))]
fn szx_compress(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    dtype: &str,
    bound: f64,
    block: usize,
    threads: usize,
) -> PyResult<Py<PyBytes>> {
    if block == 0 || block > usize::from(u16::MAX) {
        return Err(Error::config(
            "szx",
            "block",
            format!("expected 1..=65535 values, got {block}"),
        ))
        .py_err(py);
    }
    match dtype {
        "f32" => compress_as::<f32>(py, data, bound, block, threads),
        "f64" => compress_as::<f64>(py, data, bound, block, threads),
        other => Err(PyTypeError::new_err(format!(
            "dtype must be \"f32\" or \"f64\", got {other:?}"
        ))),
    }
}

fn decompress_as<T: Element + flashpress_core::codec::szx::Float + Send + Sync>(
    py: Python<'_>,
    stream: &[u8],
    out: &Bound<'_, PyAny>,
    threads: usize,
) -> PyResult<()> {
    let buf = contiguous::<T>(out, true)?;
    let (ptr, n) = (buf.buf_ptr() as usize, buf.item_count());
    let r = py.allow_threads(|| {
        // SAFETY: as in `compress_as`; the buffer is writable, and the caller's contract is
        // that nothing else reads or writes it until this call returns.
        let out = unsafe { std::slice::from_raw_parts_mut(ptr as *mut T, n) };
        chunked::decompress_into(stream, out, threads)
    });
    r.py_err(py)
}

/// Decode a stream of [`szx_compress`] into `out` (a writable C-contiguous array of the
/// stream's dtype and value count) on up to `threads` threads.
#[pyfunction]
#[pyo3(signature = (stream, out, dtype, threads = 1))]
fn szx_decompress(
    py: Python<'_>,
    stream: &Bound<'_, PyBytes>,
    out: &Bound<'_, PyAny>,
    dtype: &str,
    threads: usize,
) -> PyResult<()> {
    let stream = stream.as_bytes();
    match dtype {
        "f32" => decompress_as::<f32>(py, stream, out, threads),
        "f64" => decompress_as::<f64>(py, stream, out, threads),
        other => Err(PyTypeError::new_err(format!(
            "dtype must be \"f32\" or \"f64\", got {other:?}"
        ))),
    }
}

/// The value count of a chunked SZx stream.
#[pyfunction]
fn szx_values(py: Python<'_>, stream: &Bound<'_, PyBytes>) -> PyResult<usize> {
    chunked::values(stream.as_bytes()).py_err(py)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(szx_compress, m)?)?;
    m.add_function(wrap_pyfunction!(szx_decompress, m)?)?;
    m.add_function(wrap_pyfunction!(szx_values, m)?)?;
    Ok(())
}
