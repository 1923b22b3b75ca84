//! The measured window. A warm-up at the start of a run (`stats.warmup_ms`) is left out of the
//! summary, so a figure can be measured in a steady state (Waltz §6.1: "with the temperature
//! control triggered"). The simulation is not changed by it: requests that complete before
//! the warm-up ends stay in the timeline but not in the totals and latency histograms
//! ([`crate::stats::Recorder::measure_from`]); every cumulative counter is read once when the
//! warm-up ends (before the first event at or after it) and subtracted at the end. Work a
//! component books when it is submitted (the CCSD's engine and NAND, the host's cores) counts
//! where it was submitted. Levels (free blocks, wear, temperatures) and the times of events
//! (first throttle, shutdown) stay absolute.

use crate::device::sched::SchedCounters;
use crate::device::DeviceCounters;
use crate::ftl::FtlCounters;
use crate::nand::NandCounters;
use crate::units::SimTime;
use serde::{de::DeserializeOwned, Serialize};

/// The run's cumulative counters when the warm-up ended.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Base {
    /// When they were read: the end of the warm-up.
    pub at: SimTime,
    /// Requests submitted.
    pub issued: u64,
    /// Requests completed.
    pub completed: u64,
    /// Open-loop arrivals out of order.
    pub out_of_order: u64,
    /// Sequential reads and writes.
    pub sequential: [u64; 2],
    /// NAND counters.
    pub nand: NandCounters,
    /// FTL counters (the CCSD's, in a `[stack]` run).
    pub ftl: FtlCounters,
    /// Controller counters (plain SSD).
    pub dev: DeviceCounters,
    /// Back-end counters (plain SSD).
    pub sched: SchedCounters,
    /// Controller compression counters (plain SSD with `ftl.compression`).
    pub comp: Option<crate::device::compress::CompressionCounters>,
    /// Dedup counters (plain SSD with `ftl.dedup`).
    pub dedup: Option<crate::ftl::dedup::DedupCounters>,
    /// Map cache counters (plain SSD with a demand-paged map).
    pub map: Option<crate::ftl::mapcache::MapCacheCounters>,
    /// Fingerprint index cache counters (plain SSD with `ftl.dedup.index_cache` demand).
    pub index: Option<crate::ftl::mapcache::MapCacheCounters>,
    /// Zoned device counters (`[zns]`).
    pub zns: Option<crate::device::zns::ZnsCounters>,
}

/// `summary.window`: the span of simulated time the summary's figures cover.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct WindowSummary {
    /// Start of the measured window: the end of the warm-up (s).
    pub from_s: f64,
    /// End of the measured window: the last completion, or the warm-up's end if the run
    /// ended before it (s).
    pub to_s: f64,
    /// Its length (s); rates (throughput, IOPS, mean powers, utilisation) divide by it.
    pub seconds: f64,
}

/// `now - base` for a flat struct of counters: every numeric field is subtracted (whole
/// numbers saturating at 0) except the fields named in `keep`, which keep `now`'s value, as do
/// non-numeric fields (a `null` event time, say).
pub(crate) fn minus<T: Serialize + DeserializeOwned>(now: &T, base: &T, keep: &[&str]) -> T {
    let a = serde_json::to_value(now).expect("counters serialise");
    let b = serde_json::to_value(base).expect("counters serialise");
    let mut out = a;
    if let (Some(o), Some(bm)) = (out.as_object_mut(), b.as_object()) {
        for (k, v) in o.iter_mut() {
            if keep.contains(&k.as_str()) {
                continue;
            }
            let Some(y) = bm.get(k) else { continue };
            if let (Some(x), Some(y)) = (v.as_u64(), y.as_u64()) {
                *v = serde_json::Value::from(x.saturating_sub(y));
            } else if let (Some(x), Some(y)) = (v.as_f64(), y.as_f64()) {
                *v = serde_json::Value::from(x - y);
            }
        }
    }
    serde_json::from_value(out).expect("counters deserialise")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
    struct C {
        n: u64,
        e: f64,
        at: Option<u64>,
        max: f64,
    }

    #[test]
    fn subtracts_counters_and_keeps_levels_and_events() {
        let now = C {
            n: 10,
            e: 2.5,
            at: Some(7),
            max: 80.0,
        };
        let base = C {
            n: 4,
            e: 1.0,
            at: Some(3),
            max: 60.0,
        };
        let d = minus(&now, &base, &["at", "max"]);
        assert_eq!(
            d,
            C {
                n: 6,
                e: 1.5,
                at: Some(7),
                max: 80.0
            }
        );
        let none = C { at: None, ..base };
        assert_eq!(minus(&now, &none, &["max"]).at, Some(7));
    }
}
