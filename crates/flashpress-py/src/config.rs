//! Config functions: resolve (merge over a preset and validate), load, presets, trace defaults.
//! Configs cross the boundary as JSON text; the core owns every check.

use crate::errors::{config_error, IntoPyResult};
use flashpress_core::config::{self, SimConfig, TraceFormat, WorkloadConfig};
use flashpress_core::workload::trace;
use pyo3::prelude::*;
use std::path::{Path, PathBuf};

/// Parse JSON text coming from Python (the Python front always sends an object).
pub fn parse_json(py: Python<'_>, text: &str, source_name: &str) -> PyResult<serde_json::Value> {
    serde_json::from_str(text)
        .map_err(|e| config_error(py, source_name, "document", &format!("invalid JSON: {e}")))
}

/// Merge a user config (JSON object text) over its preset (`preset` key, else `default`),
/// validate it and return the fully resolved config as JSON. Relative workload paths resolve
/// against `base_dir` when given.
#[pyfunction]
#[pyo3(signature = (user_json, source_name, base_dir=None))]
fn resolve_config(
    py: Python<'_>,
    user_json: &str,
    source_name: &str,
    base_dir: Option<PathBuf>,
) -> PyResult<String> {
    let v = parse_json(py, user_json, source_name)?;
    let cfg = SimConfig::from_value(v, source_name, base_dir.as_deref()).py_err(py)?;
    Ok(cfg.to_json())
}

/// Validate a complete config (every key present, no preset merge) and return it resolved.
#[pyfunction]
#[pyo3(signature = (resolved_json, source_name, base_dir=None))]
fn validate_config(
    py: Python<'_>,
    resolved_json: &str,
    source_name: &str,
    base_dir: Option<PathBuf>,
) -> PyResult<String> {
    let v = parse_json(py, resolved_json, source_name)?;
    let cfg = SimConfig::from_resolved_value(v, source_name, base_dir.as_deref()).py_err(py)?;
    Ok(cfg.to_json())
}

/// Load a TOML config file (merged over its preset) and return it resolved as JSON.
#[pyfunction]
fn load_config_file(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    let cfg = SimConfig::from_toml_file(Path::new(&path)).py_err(py)?;
    Ok(cfg.to_json())
}

/// Resolved JSON of a named preset.
#[pyfunction]
fn preset_config(py: Python<'_>, name: &str) -> PyResult<String> {
    Ok(SimConfig::preset(name).py_err(py)?.to_json())
}

/// Names of the built-in presets.
#[pyfunction]
fn preset_names() -> Vec<&'static str> {
    config::preset_names().collect()
}

/// TOML text of a built-in preset.
#[pyfunction]
fn preset_toml(py: Python<'_>, name: &str) -> PyResult<&'static str> {
    config::preset_text(name).py_err(py)
}

/// The workload table (JSON, with `"type": "trace"`) for a trace file with the usual settings
/// of its format (one of [`TraceFormat::NAMES`]), the same defaults a TOML config gets.
#[pyfunction]
fn default_trace_config(py: Python<'_>, path: PathBuf, format: &str) -> PyResult<String> {
    let fmt = TraceFormat::from_name(format).ok_or_else(|| {
        config_error(
            py,
            "arguments",
            "workload.format",
            &format!(
                "unknown trace format `{format}` (expected one of: {})",
                TraceFormat::NAMES.join(", ")
            ),
        )
    })?;
    let w = WorkloadConfig::Trace(trace::default_trace_config(path, fmt));
    Ok(serde_json::to_string(&w).expect("workload serializes"))
}

/// (name, unit, description) of every summary statistic.
#[pyfunction]
fn stat_descriptions() -> Vec<(&'static str, &'static str, &'static str)> {
    flashpress_core::stats::stat_descriptions()
}

/// `msg` with runs of over 120 non-blank characters cut to their ends (the rule every core
/// error message follows; the CLI applies it to messages from Python too).
#[pyfunction]
fn shorten_message(msg: &str) -> String {
    flashpress_core::error::shorten_message(msg).into_owned()
}

/// Bytes of the mapping table a resolved config keeps in DRAM (`summary.mapping_table_bytes`,
/// counted as PR-SSD section 4.4.1 counts it; with `[stack]` the CCSD's chunk map, 8 bytes
/// per logical block; the largest `ftl.map_cache.dram_bytes` but with the split FTL, whose
/// split table is paged too: [`map_cache_table_bytes`]).
#[pyfunction]
fn mapping_table_bytes(py: Python<'_>, resolved_json: &str) -> PyResult<u64> {
    let v = parse_json(py, resolved_json, "resolved config")?;
    let cfg = SimConfig::from_resolved_value(v, "resolved config", None).py_err(py)?;
    Ok(match cfg.stack {
        Some(_) => flashpress_core::ftl::mapcache::table_bytes(&cfg),
        None => flashpress_core::device::compress::mapping_table_bytes(&cfg),
    })
}

/// Bytes of the whole table a demand-paged map cache (`ftl.map_cache`) of a resolved config
/// pages: the largest `ftl.map_cache.dram_bytes`. The mapping table of
/// [`mapping_table_bytes`], with the split FTL (`ftl.compression.split`) and its split table
/// at its capacity (`max_split_pages` entries, as `summary.split_table_bytes` counts them).
#[pyfunction]
fn map_cache_table_bytes(py: Python<'_>, resolved_json: &str) -> PyResult<u64> {
    let v = parse_json(py, resolved_json, "resolved config")?;
    let cfg = SimConfig::from_resolved_value(v, "resolved config", None).py_err(py)?;
    Ok(flashpress_core::ftl::mapcache::table_bytes(&cfg))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(mapping_table_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(map_cache_table_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(shorten_message, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_config, m)?)?;
    m.add_function(wrap_pyfunction!(validate_config, m)?)?;
    m.add_function(wrap_pyfunction!(load_config_file, m)?)?;
    m.add_function(wrap_pyfunction!(preset_config, m)?)?;
    m.add_function(wrap_pyfunction!(preset_names, m)?)?;
    m.add_function(wrap_pyfunction!(preset_toml, m)?)?;
    m.add_function(wrap_pyfunction!(default_trace_config, m)?)?;
    m.add_function(wrap_pyfunction!(stat_descriptions, m)?)?;
    Ok(())
}
