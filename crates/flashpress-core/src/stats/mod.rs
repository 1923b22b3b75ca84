//! Statistics: per-op counts, bytes and latency histograms (HDR), per-interval timelines, and
//! the run summary. Each statistic has a unit and a one-line description
//! ([`stat_descriptions`]); counters are owned by the component that counts them (NAND,
//! FTL, controller) and gathered here at the end.

mod output;
mod recorder;
mod summary;
mod window;

pub use output::py_float_repr;
pub use recorder::Recorder;
pub use summary::{
    stat_descriptions, ControllerSummary, DuringGcSummary, EnergySummary, LatencySummary,
    OpSummary, PreconditionSummary, SplitSummary, Summary, WearSummary,
};
pub use window::WindowSummary;
pub(crate) use window::{minus, Base as WindowBase};

use crate::workload::Op;
use hdrhistogram::Histogram;

/// A named timeline column with its unit and description.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// Column name.
    pub name: &'static str,
    /// Unit.
    pub unit: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// One value per timeline row (NaN where undefined, e.g. a mean latency with no
    /// requests): a row per interval, an idle stretch only its first and last interval.
    pub values: Vec<f64>,
}

/// Report of a finished run.
pub struct RunReport {
    /// Totals.
    pub summary: Summary,
    /// Per-interval columns.
    pub timeline: Vec<Column>,
    read_hist: Histogram<u64>,
    write_hist: Histogram<u64>,
    /// Latencies of the requests that waited while a GC job was on one of their planes.
    read_gc_hist: Histogram<u64>,
    write_gc_hist: Histogram<u64>,
    /// The FDP events the device logged in the measured window (`[fdp]` only).
    fdp_events: Option<Vec<crate::ftl::fdp::FdpEvent>>,
}

impl RunReport {
    pub(crate) fn new(
        summary: Summary,
        timeline: Vec<Column>,
        (read_hist, write_hist): (Histogram<u64>, Histogram<u64>),
        (read_gc_hist, write_gc_hist): (Histogram<u64>, Histogram<u64>),
    ) -> Self {
        RunReport {
            summary,
            timeline,
            read_hist,
            write_hist,
            read_gc_hist,
            write_gc_hist,
            fdp_events: None,
        }
    }

    /// The report with the FDP events table of the run (`None`: no `[fdp]`).
    pub(crate) fn with_fdp_events(
        mut self,
        events: Option<Vec<crate::ftl::fdp::FdpEvent>>,
    ) -> Self {
        self.fdp_events = events;
        self
    }

    /// The FDP events the device logged in the measured window, in time order (`None` without
    /// `[fdp]`; at most [`crate::ftl::fdp::MAX_EVENT_ROWS`] rows).
    pub fn fdp_events(&self) -> Option<&[crate::ftl::fdp::FdpEvent]> {
        self.fdp_events.as_deref()
    }

    /// `fdp_events.csv` as text (`None` without `[fdp]`): `time_ns,type,code,pid,reclaim_group,handle`.
    pub fn fdp_events_csv(&self) -> Option<String> {
        self.fdp_events.as_deref().map(crate::ftl::fdp::events_csv)
    }

    /// `summary.json` text (pretty, deterministic field order).
    pub fn summary_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(&self.summary).expect("summary serializes");
        s.push('\n');
        s
    }

    /// Timeline columns.
    pub fn timeline_columns(&self) -> Vec<Column> {
        self.timeline.clone()
    }

    /// Timeline as CSV text with a header row (undefined values are empty cells).
    pub fn timeline_csv(&self) -> String {
        let mut out = String::new();
        let names: Vec<&str> = self.timeline.iter().map(|c| c.name).collect();
        out.push_str(&names.join(","));
        out.push('\n');
        let rows = self.timeline.first().map_or(0, |c| c.values.len());
        for r in 0..rows {
            let cells: Vec<String> = self
                .timeline
                .iter()
                .map(|c| {
                    let v = c.values[r];
                    if v.is_nan() {
                        String::new()
                    } else {
                        v.to_string()
                    }
                })
                .collect();
            out.push_str(&cells.join(","));
            out.push('\n');
        }
        out
    }

    /// Latency CDF of reads or writes: (latency ns, cumulative fraction) per recorded value
    /// bucket, increasing. Empty for an op with no requests (and for trims).
    pub fn latency_cdf(&self, op: Op) -> Vec<(u64, f64)> {
        match op {
            Op::Read => cdf(&self.read_hist),
            Op::Write | Op::Append => cdf(&self.write_hist),
            Op::Trim | Op::Delete | Op::Sync => Vec::new(),
            Op::ZoneOpen | Op::ZoneClose | Op::ZoneFinish | Op::ZoneReset | Op::RuhUpdate => {
                Vec::new()
            }
        }
    }

    /// [`RunReport::latency_cdf`] of the requests that waited while a GC job was on one of
    /// their planes (`summary.*.during_gc`; CAGC's response time during GC). Empty outside the
    /// plain SSD.
    pub fn latency_cdf_during_gc(&self, op: Op) -> Vec<(u64, f64)> {
        match op {
            Op::Read => cdf(&self.read_gc_hist),
            Op::Write | Op::Append => cdf(&self.write_gc_hist),
            Op::Trim | Op::Delete | Op::Sync => Vec::new(),
            Op::ZoneOpen | Op::ZoneClose | Op::ZoneFinish | Op::ZoneReset | Op::RuhUpdate => {
                Vec::new()
            }
        }
    }
}

/// (value, cumulative fraction) per recorded bucket of a histogram, increasing.
fn cdf(h: &Histogram<u64>) -> Vec<(u64, f64)> {
    let total = h.len() as f64;
    let mut acc = 0u64;
    h.iter_recorded()
        .map(|v| {
            acc += v.count_at_value();
            (
                h.highest_equivalent(v.value_iterated_to()),
                acc as f64 / total,
            )
        })
        .collect()
}
