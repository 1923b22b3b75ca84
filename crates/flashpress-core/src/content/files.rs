//! Real files as content: read once (a [`Corpus`], as `flashpress codec bench` reads them), cut
//! into 4 KiB blocks, handed out by content id.
//!
//! Content id `x` holds corpus block `(x + offset) mod n`, where `offset` comes from the run's
//! seed: consecutive ids are consecutive blocks of the same file, so an F2FS-style cluster of
//! consecutive blocks compresses as a real file's cluster would, and equal ids (dedup) give
//! equal bytes. A unit's bytes are a function of its first corpus block and its length, so
//! both modes measure each such unit once with the real codec and keep its size in a
//! [`SizeTable`] (4 bytes per corpus block and unit length: 0.4% of the corpus at 16 KiB
//! granularity); model mode on files is therefore exact, not a draw.

use super::generate::{block_rng, BLOCK};
use crate::codec::bench::Corpus;
use crate::error::{Error, Result};
use rand::RngCore;
use std::path::PathBuf;

/// Files cut into 4 KiB blocks, laid out for one run's seed.
#[derive(Debug, Clone)]
pub struct FileBlocks {
    data: Vec<u8>,
    blocks: u64,
    /// The seed's id offset (see the module docs).
    offset: u64,
    /// Bit `i`: corpus block `i` holds only zeros (found once, at load).
    zero: Vec<u64>,
}

impl FileBlocks {
    /// Load the corpus for a run with `seed`.
    pub fn load(paths: &[PathBuf], max_bytes: Option<u64>, seed: u64) -> Result<FileBlocks> {
        let corpus = Corpus::load(paths, max_bytes).map_err(|e| match e {
            Error::Config { msg, .. } => Error::config("config", "content.source.paths", msg),
            other => other,
        })?;
        // Each file's tail zero-padded to a whole block, as a file system stores it.
        let mut data = Vec::with_capacity(corpus.blocks(BLOCK as u32) as usize * BLOCK);
        for f in corpus.files() {
            data.extend_from_slice(corpus.file_bytes(f));
            data.resize(data.len().next_multiple_of(BLOCK), 0);
        }
        let blocks = (data.len() / BLOCK) as u64;
        let mut zero = vec![0u64; (blocks as usize).div_ceil(64)];
        for (i, b) in data.chunks_exact(BLOCK).enumerate() {
            if b.iter().all(|&x| x == 0) {
                zero[i / 64] |= 1 << (i % 64);
            }
        }
        let offset = block_rng(seed, 0, 2).next_u64();
        Ok(FileBlocks {
            data,
            blocks,
            offset,
            zero,
        })
    }

    /// Blocks in the corpus.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// Corpus block that content `id` holds.
    #[inline]
    pub fn index(&self, id: u64) -> u64 {
        id.wrapping_add(self.offset) % self.blocks
    }

    /// The bytes of content `id`.
    pub fn block(&self, id: u64) -> &[u8] {
        let s = self.index(id) as usize * BLOCK;
        &self.data[s..s + BLOCK]
    }

    /// Whether content `id` holds only zeros.
    #[inline]
    pub fn is_zero(&self, id: u64) -> bool {
        let i = self.index(id) as usize;
        self.zero[i / 64] >> (i % 64) & 1 == 1
    }

    /// The content id whose bytes are corpus block `i` (the smallest such id).
    pub fn id_of_block(&self, i: u64) -> u64 {
        (i + self.blocks - self.offset % self.blocks) % self.blocks
    }
}

/// Codec output bytes of every unit of a corpus at one granularity, measured on first use:
/// entry `block * gran_blocks + n - 1` is the unit of `n` blocks from corpus block `block`.
#[derive(Debug, Clone)]
pub struct SizeTable {
    gran_blocks: usize,
    sizes: Vec<u32>,
}

impl SizeTable {
    const UNKNOWN: u32 = u32::MAX;

    /// An empty table for `blocks` corpus blocks and units of up to `gran_blocks` blocks.
    pub fn new(blocks: u64, gran_blocks: u64) -> SizeTable {
        SizeTable {
            gran_blocks: gran_blocks as usize,
            sizes: vec![Self::UNKNOWN; blocks as usize * gran_blocks as usize],
        }
    }

    /// The size of the `n`-block unit from corpus block `block`, if measured.
    #[inline]
    pub fn get(&self, block: u64, n: usize) -> Option<u32> {
        debug_assert!((1..=self.gran_blocks).contains(&n), "unit of {n} blocks");
        let s = self.sizes[block as usize * self.gran_blocks + n - 1];
        (s != Self::UNKNOWN).then_some(s)
    }

    /// Record a measured size.
    #[inline]
    pub fn set(&mut self, block: u64, n: usize, size: u32) {
        debug_assert!((1..=self.gran_blocks).contains(&n), "unit of {n} blocks");
        self.sizes[block as usize * self.gran_blocks + n - 1] = size;
    }
}
