//! The storage stack of the Waltz and COCO seeds: an F2FS-like file system with cluster
//! compression ([`fs`]) on host cores ([`cpu`]) over a compression-capable SSD
//! ([`crate::device::ccsd`]), with the cooperative compression framework's block I/O flags
//! ([`bio`]), the compression-placement policies ([`policy`]) and the space policies.

pub mod bio;
pub mod cache;
pub mod cpu;
pub mod driver;
pub mod fs;
pub mod policy;

pub use driver::{Stack, StackSummary};

use crate::config::StackConfig;

/// User space of the file system a `[stack]` config describes (bytes): the partition less its
/// reserved space. Block-level streams (fio jobs) address files inside it.
pub fn user_bytes_of(st: &StackConfig) -> u64 {
    let seg = st.fs.segment_blocks as u64 * 4096;
    let segments = st.fs.partition_bytes / seg;
    let rs = (st.fs.rs_ratio * segments as f64).ceil() as u64;
    (segments - rs.min(segments)) * seg
}
