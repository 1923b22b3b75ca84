//! Flash translation layer (being written).
use crate::config::SimConfig;
/// Blocks per plane kept out of the data space: the GC free-block threshold plus one open block per stream.
pub fn reserve_blocks_per_plane(cfg: &SimConfig) -> u64 { let _ = cfg; 4 }
/// Logical pages exposed to the host.
pub fn logical_pages(cfg: &SimConfig) -> u64 {
    let n = &cfg.nand;
    let phys = n.channels as u64 * n.chips_per_channel as u64 * n.dies_per_chip as u64 * n.planes_per_die as u64 * n.blocks_per_plane as u64 * n.pages_per_block as u64;
    (phys as f64 * (1.0 - cfg.ftl.op_ratio)).floor() as u64
}
