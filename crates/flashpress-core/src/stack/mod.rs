//! The storage stack of the Waltz and COCO seeds: an F2FS-like file system with cluster
//! compression ([`fs`]) on host cores ([`cpu`]) over a compression-capable SSD
//! ([`crate::device::ccsd`]), with the cooperative compression framework's block I/O flags
//! ([`bio`]), the compression-placement policies ([`policy`]) and the space policies.

pub mod bio;
pub mod cpu;
pub mod policy;
pub mod fs;
