//! Block traces (DiskSim/MQSim ASCII, MSR Cambridge CSV, blkparse text, FIU), plain or gzip.
//! TO BE IMPLEMENTED (see the module contract below).

use crate::config::{TraceFormat, TraceWorkload};
use crate::error::Result;
use crate::workload::Stream;

/// Open a trace as one stream: open loop for `replay = "timed"`, closed loop of
/// `queue_depth` for `"afap"`. Lines are parsed lazily as the run consumes them.
pub fn open_stream(cfg: &TraceWorkload, capacity_bytes: u64) -> Result<Stream> {
    let _ = (cfg, capacity_bytes);
    Err(crate::error::Error::Workload("traces are not implemented yet".into()))
}

/// A trace workload with the usual units of `format` (DiskSim/MQSim ns, MSR FILETIME,
/// blkparse seconds, FIU ns), 512-byte sectors, timed replay, strict addresses.
pub fn default_trace_config(path: std::path::PathBuf, format: TraceFormat) -> TraceWorkload {
    let _ = (path, format);
    todo!()
}
