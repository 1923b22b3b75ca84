//! Real files as content: read once (a [`Corpus`], as `flashpress codec bench` reads them), cut
//! into 4 KiB blocks, handed out by content id.
//!
//! Content id `x` holds corpus block `(x + offset) mod n`, where `offset` comes from the run's
//! seed: consecutive ids are consecutive blocks of the same file, so an F2FS-style cluster of
//! consecutive blocks compresses as a real file's cluster would, and equal ids (dedup) give
//! equal bytes. In model mode the codec's sizes are measured once on up to
//! [`MODEL_SAMPLES`] units spread evenly over the corpus and drawn from by id.

use super::generate::{block_rng, BLOCK};
use crate::codec::bench::Corpus;
use crate::codec::{Codec, CodecKind};
use crate::error::{Error, Result};
use rand::RngCore;
use std::path::PathBuf;

/// Units measured to build model mode's size distribution.
pub const MODEL_SAMPLES: usize = 4096;

/// Files cut into 4 KiB blocks.
#[derive(Debug, Clone)]
pub struct FileBlocks {
    data: Vec<u8>,
    blocks: u64,
}

impl FileBlocks {
    /// Load the corpus.
    pub fn load(paths: &[PathBuf], max_bytes: Option<u64>) -> Result<FileBlocks> {
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
        Ok(FileBlocks { data, blocks })
    }

    /// Model mode: `codec`'s output bytes on up to [`MODEL_SAMPLES`] units of `granularity`
    /// bytes spread evenly over the corpus.
    pub fn sample_sizes(&self, codec: CodecKind, granularity: u32) -> Vec<u32> {
        let mut c = Codec::new(codec);
        let mut unit = vec![0u8; granularity as usize];
        let mut out = Vec::new();
        let units = self.blocks.min(MODEL_SAMPLES as u64);
        (0..units)
            .map(|i| {
                let start = i * self.blocks / units;
                for (j, blk) in unit.chunks_mut(BLOCK).enumerate() {
                    blk.copy_from_slice(self.block_at((start + j as u64) % self.blocks));
                }
                c.compress(&unit, &mut out) as u32
            })
            .collect()
    }

    /// Blocks in the corpus.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    fn block_at(&self, i: u64) -> &[u8] {
        let s = i as usize * BLOCK;
        &self.data[s..s + BLOCK]
    }

    /// The bytes of content `id`.
    pub fn block(&self, seed: u64, id: u64) -> &[u8] {
        self.block_at(id.wrapping_add(Self::offset(seed)) % self.blocks)
    }

    /// The content id whose bytes are corpus block `i` (the smallest such id).
    pub fn id_of_block(&self, seed: u64, i: u64) -> u64 {
        (i + self.blocks - Self::offset(seed) % self.blocks) % self.blocks
    }

    fn offset(seed: u64) -> u64 {
        block_rng(seed, 0, 2).next_u64()
    }

    /// Model mode: codec output bytes for a unit of `n` blocks at content `id`, drawn from
    /// `sizes` measured on units of `gran_blocks` blocks (scaled for a partial unit).
    pub fn model_size(sizes: &[u32], gran_blocks: u64, seed: u64, id: u64, n: usize) -> u32 {
        let k = block_rng(seed, id, 3).next_u64() % sizes.len() as u64;
        (sizes[k as usize] as u64 * n as u64).div_ceil(gran_blocks) as u32
    }
}
