//! Core errors as Python exceptions: one class per [`Error`] variant, all under
//! `FlashpressError`, with the variant's fields (`key`, `path`, `line`, ...) set as attributes
//! on the raised instance.
//!
//! `ConfigError` is also a `ValueError` and `FileReadError` also an `OSError`, so code that
//! catches the builtin classes keeps working. `create_exception!` takes a single base class,
//! so those two (and `UnknownPresetError` and `UnknownCodecError`, which derive from
//! `ConfigError`) are made with
//! `PyErr_NewExceptionWithDoc`, which accepts a tuple of bases.

use flashpress_core::Error;
use pyo3::exceptions::{PyException, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyTuple, PyType};

pyo3::create_exception!(
    flashpress._core,
    FlashpressError,
    PyException,
    "Base class of every error raised by flashpress."
);
pyo3::create_exception!(
    flashpress._core,
    TraceFormatError,
    FlashpressError,
    "A block trace line could not be parsed (attributes: path, line)."
);
pyo3::create_exception!(
    flashpress._core,
    JobFileError,
    FlashpressError,
    "A fio job file line or option is malformed or unsupported (attributes: path, line)."
);
pyo3::create_exception!(
    flashpress._core,
    WorkloadError,
    FlashpressError,
    "A workload is valid on its own but cannot run on this device."
);
pyo3::create_exception!(
    flashpress._core,
    VerifyError,
    FlashpressError,
    "Verify mode found a read returning content other than what was last written."
);
pyo3::create_exception!(
    flashpress._core,
    InvariantError,
    FlashpressError,
    "The FTL invariant check found its structures inconsistent."
);
pyo3::create_exception!(
    flashpress._core,
    CodecError,
    FlashpressError,
    "A codec could not decode its own output or the round trip differed (attributes: codec, detail)."
);

/// A lazily created exception class with several bases.
struct MultiBaseException {
    cell: GILOnceCell<Py<PyType>>,
    name: &'static str,
    doc: &'static str,
    bases: fn(Python<'_>) -> Vec<Bound<'_, PyType>>,
}

impl MultiBaseException {
    fn get<'py>(&'static self, py: Python<'py>) -> &'py Bound<'py, PyType> {
        self.cell
            .get_or_init(py, || {
                let bases = PyTuple::new(py, (self.bases)(py)).expect("tuple of exception bases");
                let name = std::ffi::CString::new(self.name).expect("class name has no NUL");
                let doc = std::ffi::CString::new(self.doc).expect("doc has no NUL");
                // SAFETY: valid NUL-terminated strings and a tuple of classes; the call returns a
                // new reference or NULL with an exception set.
                let ptr = unsafe {
                    pyo3::ffi::PyErr_NewExceptionWithDoc(
                        name.as_ptr(),
                        doc.as_ptr(),
                        bases.as_ptr(),
                        std::ptr::null_mut(),
                    )
                };
                // SAFETY: `ptr` is an owned reference (or NULL, which from_owned_ptr_or_err reports).
                let obj = unsafe { Bound::from_owned_ptr_or_err(py, ptr) }
                    .expect("creating an exception class cannot fail");
                obj.downcast_into::<PyType>()
                    .expect("an exception class is a type")
                    .unbind()
            })
            .bind(py)
    }
}

static CONFIG_ERROR: MultiBaseException = MultiBaseException {
    cell: GILOnceCell::new(),
    name: "flashpress._core.ConfigError",
    doc: "A configuration value is missing, malformed, unknown or out of range \
          (attributes: key, the dotted key; source_name, the file or preset). Also a ValueError.",
    bases: |py| {
        vec![
            py.get_type::<FlashpressError>(),
            py.get_type::<PyValueError>(),
        ]
    },
};

static UNKNOWN_PRESET_ERROR: MultiBaseException = MultiBaseException {
    cell: GILOnceCell::new(),
    name: "flashpress._core.UnknownPresetError",
    doc: "A named preset does not exist (attributes: name, known).",
    bases: |py| vec![CONFIG_ERROR.get(py).clone()],
};

static UNKNOWN_CODEC_ERROR: MultiBaseException = MultiBaseException {
    cell: GILOnceCell::new(),
    name: "flashpress._core.UnknownCodecError",
    doc: "A codec name that is not one of flashpress's, or a level outside the codec's range \
          (attributes: name, known).",
    bases: |py| vec![CONFIG_ERROR.get(py).clone()],
};

static UNKNOWN_POLICY_ERROR: MultiBaseException = MultiBaseException {
    cell: GILOnceCell::new(),
    name: "flashpress._core.UnknownPolicyError",
    doc: "A compression-placement policy name that is not one of flashpress's \
          (attributes: key, name, known).",
    bases: |py| vec![CONFIG_ERROR.get(py).clone()],
};

static CCF_MISMATCH_ERROR: MultiBaseException = MultiBaseException {
    cell: GILOnceCell::new(),
    name: "flashpress._core.CcfMismatchError",
    doc: "Host mount options and the CCSD disagree on the codec or granularity that \
          cooperative decompression needs.",
    bases: |py| vec![CONFIG_ERROR.get(py).clone()],
};

static FILE_READ_ERROR: MultiBaseException = MultiBaseException {
    cell: GILOnceCell::new(),
    name: "flashpress._core.FileReadError",
    doc: "A file could not be opened or read (attributes: path, errno). Also an OSError.",
    bases: |py| vec![py.get_type::<FlashpressError>(), py.get_type::<PyOSError>()],
};

/// Add every exception class to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("FlashpressError", py.get_type::<FlashpressError>())?;
    m.add("ConfigError", CONFIG_ERROR.get(py))?;
    m.add("UnknownPresetError", UNKNOWN_PRESET_ERROR.get(py))?;
    m.add("TraceFormatError", py.get_type::<TraceFormatError>())?;
    m.add("JobFileError", py.get_type::<JobFileError>())?;
    m.add("WorkloadError", py.get_type::<WorkloadError>())?;
    m.add("FileReadError", FILE_READ_ERROR.get(py))?;
    m.add("VerifyError", py.get_type::<VerifyError>())?;
    m.add("InvariantError", py.get_type::<InvariantError>())?;
    m.add("UnknownCodecError", UNKNOWN_CODEC_ERROR.get(py))?;
    m.add("CodecError", py.get_type::<CodecError>())?;
    m.add("UnknownPolicyError", UNKNOWN_POLICY_ERROR.get(py))?;
    m.add("CcfMismatchError", CCF_MISMATCH_ERROR.get(py))?;
    Ok(())
}

/// Instantiate `cls(message)` and set `attrs` on the instance.
fn raise(
    py: Python<'_>,
    cls: &Bound<'_, PyType>,
    msg: String,
    attrs: &[(&str, PyObject)],
) -> PyErr {
    // A pasted 100,000-character value is shown by its ends, never whole.
    let msg = flashpress_core::error::shorten_message(&msg).into_owned();
    let inst = match cls.call1((msg,)) {
        Ok(i) => i,
        Err(e) => return e,
    };
    for (k, v) in attrs {
        if let Err(e) = inst.setattr(*k, v) {
            return e;
        }
    }
    let _ = py;
    PyErr::from_value(inst)
}

/// Convert a core error into the matching Python exception.
pub fn to_py(py: Python<'_>, err: Error) -> PyErr {
    let msg = err.to_string();
    let s = |v: &str| -> PyObject { v.into_pyobject(py).expect("str").into_any().unbind() };
    let p = |v: &std::path::Path| -> PyObject { s(&v.display().to_string()) };
    let n = |v: u64| -> PyObject { v.into_pyobject(py).expect("int").into_any().unbind() };
    match err {
        Error::Config {
            source_name,
            key,
            msg: detail,
        } => raise(
            py,
            CONFIG_ERROR.get(py),
            msg,
            &[
                ("key", s(&key)),
                ("source_name", s(&source_name)),
                ("detail", s(&detail)),
            ],
        ),
        Error::UnknownPreset { name, known } => raise(
            py,
            UNKNOWN_PRESET_ERROR.get(py),
            msg,
            &[
                ("key", s("preset")),
                ("name", s(&name)),
                ("known", s(&known)),
            ],
        ),
        Error::Trace {
            path,
            line,
            msg: detail,
        } => raise(
            py,
            &py.get_type::<TraceFormatError>(),
            msg,
            &[
                ("path", p(&path)),
                ("line", n(line)),
                ("detail", s(&detail)),
            ],
        ),
        Error::JobFile {
            path,
            line,
            msg: detail,
        } => raise(
            py,
            &py.get_type::<JobFileError>(),
            msg,
            &[
                ("path", p(&path)),
                ("line", n(line)),
                ("detail", s(&detail)),
            ],
        ),
        Error::Several(errors) => {
            // Raised as the first problem's type (a job file's: JobFileError), its message
            // listing every problem; `problems` holds each one's message.
            let problems: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            let (path, line) = match errors.first() {
                Some(Error::JobFile { path, line, .. }) => (Some(path.clone()), Some(*line)),
                _ => (None, None),
            };
            let mut attrs = vec![(
                "problems",
                problems
                    .into_pyobject(py)
                    .expect("list")
                    .into_any()
                    .unbind(),
            )];
            match (path, line) {
                (Some(path), Some(line)) => {
                    attrs.push(("path", p(&path)));
                    attrs.push(("line", n(line)));
                    raise(py, &py.get_type::<JobFileError>(), msg, &attrs)
                }
                _ => raise(py, &py.get_type::<WorkloadError>(), msg, &attrs),
            }
        }
        Error::Workload(_) => raise(py, &py.get_type::<WorkloadError>(), msg, &[]),
        Error::Io { path, source } => {
            // Not `filename`/`strerror`: OSError's str() would then replace the message.
            let mut attrs = vec![("path", p(&path)), ("detail", s(&source.to_string()))];
            if let Some(code) = source.raw_os_error() {
                attrs.push((
                    "errno",
                    code.into_pyobject(py).expect("int").into_any().unbind(),
                ));
            }
            raise(py, FILE_READ_ERROR.get(py), msg, &attrs)
        }
        Error::Verify(_) => raise(py, &py.get_type::<VerifyError>(), msg, &[]),
        Error::Invariant(_) => raise(py, &py.get_type::<InvariantError>(), msg, &[]),
        Error::UnknownPolicy { key, name, known } => raise(
            py,
            UNKNOWN_POLICY_ERROR.get(py),
            msg,
            &[("key", s(&key)), ("name", s(&name)), ("known", s(&known))],
        ),
        Error::CcfMismatch(_) => raise(
            py,
            CCF_MISMATCH_ERROR.get(py),
            msg,
            &[("key", s("stack.fs.mount"))],
        ),
        Error::UnknownCodec { name, known } => raise(
            py,
            UNKNOWN_CODEC_ERROR.get(py),
            msg,
            &[
                ("key", s("codec")),
                ("name", s(&name)),
                ("known", s(&known)),
            ],
        ),
        Error::Codec { codec, msg: detail } => raise(
            py,
            &py.get_type::<CodecError>(),
            msg,
            &[("codec", s(&codec)), ("detail", s(&detail))],
        ),
        Error::State(_) => raise(py, &py.get_type::<FlashpressError>(), msg, &[]),
        // The binding's hooks keep the Python exception that stopped the loop and raise it
        // instead; this is for a core caller that stopped without one.
        Error::Interrupted => pyo3::exceptions::PyKeyboardInterrupt::new_err(msg),
    }
}

/// A `ConfigError` raised by the binding itself (e.g. JSON from Python that does not parse).
pub fn config_error(py: Python<'_>, source_name: &str, key: &str, detail: &str) -> PyErr {
    to_py(py, Error::config(source_name, key, detail))
}

/// Extension for core results: `.py_err(py)?` turns a core error into its Python exception.
pub trait IntoPyResult<T> {
    fn py_err(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for flashpress_core::Result<T> {
    fn py_err(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py(py, e))
    }
}
