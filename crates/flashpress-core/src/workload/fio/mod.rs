//! fio job files (the INI format fio itself reads) and inline jobs, turned into closed-loop
//! streams. TO BE IMPLEMENTED (see the module contract below).

use crate::config::FioWorkload;
use crate::error::Result;
use crate::workload::Stream;

/// Build one closed-loop stream per job clone (`numjobs`), depth `iodepth`, grouped by
/// `stonewall`. `capacity_bytes` is the device's logical capacity; `seed` the run seed.
pub fn load_streams(cfg: &FioWorkload, capacity_bytes: u64, seed: u64) -> Result<Vec<Stream>> {
    let _ = (cfg, capacity_bytes, seed);
    Err(crate::error::Error::Workload(
        "fio workloads are not implemented yet".into(),
    ))
}
