//! Per-block bookkeeping in flat arrays indexed by global block id.

use crate::units::SimTime;

/// Life-cycle state of an erase block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockState {
    /// Erased, on its plane's free list.
    Free,
    /// Being written (some stream's open block).
    Open,
    /// Full; a GC candidate.
    Sealed,
}

/// Per-block arrays.
#[derive(Debug, Clone)]
pub struct Blocks {
    /// Valid pages.
    pub valid: Vec<u32>,
    /// Next page to program.
    pub write_ptr: Vec<u32>,
    /// State.
    pub state: Vec<BlockState>,
    /// Order in which blocks were sealed (for FIFO).
    pub sealed_seq: Vec<u64>,
    /// Last time the block's contents changed: sealed, or a page invalidated (for cost-benefit).
    pub mtime: Vec<SimTime>,
}

impl Blocks {
    /// Bytes per block of these arrays (for the memory estimate).
    pub const BYTES_PER_BLOCK: usize = 2 * std::mem::size_of::<u32>()
        + std::mem::size_of::<BlockState>()
        + std::mem::size_of::<u64>()
        + std::mem::size_of::<SimTime>();

    /// `n` free blocks.
    pub fn new(n: usize) -> Blocks {
        Blocks {
            valid: vec![0; n],
            write_ptr: vec![0; n],
            state: vec![BlockState::Free; n],
            sealed_seq: vec![0; n],
            mtime: vec![SimTime::ZERO; n],
        }
    }
}
