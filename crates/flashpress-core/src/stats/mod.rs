//! Statistics (being written). Final API:
//!
//! - `RunReport { summary: Summary, timeline: Timeline, latency: Latency }`
//! - `RunReport::summary_json(&self) -> String` — pretty JSON of `summary.json`
//! - `RunReport::timeline_columns(&self) -> Vec<Column>` with `Column { name, unit, description, values: Vec<f64> }`
//! - `RunReport::timeline_csv(&self) -> String`
//! - `RunReport::latency_cdf(&self, op: Op) -> Vec<(u64 /*latency ns*/, f64 /*cumulative fraction*/)>`
//! - `stat_descriptions() -> Vec<(&'static str name, &'static str unit, &'static str description)>`

/// Report of a finished run.
pub struct RunReport {
    /// Totals.
    pub summary: Summary,
}

/// Totals of a run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Summary {
    /// Requests completed.
    pub requests_completed: u64,
    /// Write amplification.
    pub waf: f64,
}
