//! Integration tests of flashpress-core, one binary named after behaviours.

#[macro_use]
mod support;

mod aging;
mod ccsd;
mod ccsd_map_cache;
mod compression;
mod content;
mod controller;
mod dedup;
mod dedup_index;
mod determinism;
mod fdp;
mod fio_meta;
mod fio_sg;
mod gc_validity;
mod idle;
mod latency_feedback;
mod lost_work;
mod map_cache;
mod mapping_unit;
mod packed_units;
mod partial_read;
mod split;
mod split_map_cache;
mod time_limits;
mod timeline;
mod waiting_streams;
mod wide_maps;
mod window;
mod workload_files;
mod zns_stack;
