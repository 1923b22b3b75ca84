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

use crate::config::{SpacePolicy, StackConfig};

/// User space of the file system a `[stack]` config describes (bytes): the partition less its
/// reserved space. Block-level streams (fio jobs) address files inside it.
pub fn user_bytes_of(st: &StackConfig) -> u64 {
    let seg = st.fs.segment_blocks as u64 * 4096;
    let segments = st.fs.partition_bytes / seg;
    let rs = (st.fs.rs_ratio * segments as f64).ceil() as u64;
    (segments - rs.min(segments)) * seg
}

/// Blocks the file system may grant beyond its partition as extra reserved space (the space
/// policy's most: Waltz's OSA `rs_max`, COCO's on-demand OP `max`; none for a fixed one), in
/// whole segments.
pub fn max_extra_rs_blocks(st: &StackConfig) -> u64 {
    let seg_blocks = st.fs.segment_blocks as u64;
    let max_extra_frac = match st.space {
        SpacePolicy::Fixed => 0.0,
        SpacePolicy::Osa { rs_max, .. } => rs_max,
        SpacePolicy::CocoOp { max, .. } => max,
    };
    let segments = st.fs.partition_bytes / 4096 / seg_blocks;
    (max_extra_frac * segments as f64).ceil() as u64 * seg_blocks
}
