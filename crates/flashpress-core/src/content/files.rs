//! Real files as content: read once, cut into 4 KiB blocks, handed out by content id.
//!
//! Content id `x` holds corpus block `(x + offset) mod n`, where `offset` comes from the run's
//! seed: consecutive ids are consecutive blocks of the same file, so an F2FS-style cluster of
//! consecutive blocks compresses as a real file's cluster would, and equal ids (dedup) give
//! equal bytes. In model mode the codec's sizes are measured once on up to
//! [`MODEL_SAMPLES`] units spread evenly over the corpus and drawn from by id.

use super::generate::{block_rng, BLOCK};
use crate::codec::{Codec, CodecKind};
use crate::config::ContentMode;
use crate::error::{Error, Result};
use rand::RngCore;
use std::path::{Path, PathBuf};

/// Units measured to build model mode's size distribution.
pub const MODEL_SAMPLES: usize = 4096;

/// Files cut into 4 KiB blocks.
#[derive(Debug, Clone)]
pub struct FileBlocks {
    data: Vec<u8>,
    blocks: u64,
    /// Model mode: measured codec output bytes of sampled units, and their unit size in blocks.
    sizes: Vec<u32>,
    gran_blocks: u64,
}

/// Every regular file under `paths` (files as given, directories walked recursively), sorted
/// within each directory so the order does not depend on the file system.
pub fn list_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        walk(p, &mut out)?;
    }
    Ok(out)
}

fn walk(p: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let meta = std::fs::metadata(p).map_err(|e| Error::io(p, e))?;
    if meta.is_dir() {
        let mut entries = std::fs::read_dir(p)
            .map_err(|e| Error::io(p, e))?
            .map(|e| e.map(|e| e.path()).map_err(|e| Error::io(p, e)))
            .collect::<Result<Vec<_>>>()?;
        entries.sort();
        for e in entries {
            // Symlinks to directories are not followed (no cycles); links to files are read.
            let is_link_dir = std::fs::symlink_metadata(&e).is_ok_and(|m| m.is_symlink())
                && std::fs::metadata(&e).is_ok_and(|m| m.is_dir());
            if !is_link_dir {
                walk(&e, out)?;
            }
        }
    } else if meta.is_file() {
        out.push(p.to_path_buf());
    }
    Ok(())
}

/// Read `files` in order into whole 4 KiB blocks (each file's tail zero-padded, as a file
/// system stores it), stopping after `max_bytes` of file data.
pub fn read_blocks(files: &[PathBuf], max_bytes: Option<u64>) -> Result<(Vec<u8>, Vec<usize>)> {
    let mut data = Vec::new();
    let mut per_file = Vec::new();
    let mut left = max_bytes.unwrap_or(u64::MAX);
    for f in files {
        if left == 0 {
            break;
        }
        let bytes = std::fs::read(f).map_err(|e| Error::io(f, e))?;
        let take = (bytes.len() as u64).min(left) as usize;
        left -= take as u64;
        data.extend_from_slice(&bytes[..take]);
        data.resize(data.len().next_multiple_of(BLOCK), 0);
        per_file.push(take);
    }
    Ok((data, per_file))
}

impl FileBlocks {
    /// Load the corpus; in model mode, measure `codec` at `granularity` on a sample of units.
    pub fn load(
        paths: &[PathBuf],
        max_bytes: Option<u64>,
        mode: ContentMode,
        codec: CodecKind,
        granularity: u32,
    ) -> Result<FileBlocks> {
        let files = list_files(paths)?;
        let (data, _) = read_blocks(&files, max_bytes)?;
        if data.is_empty() {
            let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
            return Err(Error::config(
                "config",
                "content.source.paths",
                format!("no file data under {}", names.join(", ")),
            ));
        }
        let blocks = (data.len() / BLOCK) as u64;
        let gran_blocks = (granularity as usize / BLOCK) as u64;
        let mut fb = FileBlocks {
            data,
            blocks,
            sizes: Vec::new(),
            gran_blocks,
        };
        if mode == ContentMode::Model {
            let mut c = Codec::new(codec);
            let mut unit = vec![0u8; granularity as usize];
            let mut out = Vec::new();
            let units = blocks.min(MODEL_SAMPLES as u64);
            for i in 0..units {
                let start = i * blocks / units;
                for (j, blk) in unit.chunks_mut(BLOCK).enumerate() {
                    blk.copy_from_slice(fb.block_at((start + j as u64) % blocks));
                }
                fb.sizes.push(c.compress(&unit, &mut out) as u32);
            }
        }
        Ok(fb)
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

    /// Model mode: codec output bytes for a unit of `n` blocks at content `id`, drawn from the
    /// measured sizes (scaled for a partial unit).
    pub fn model_size(&self, seed: u64, id: u64, n: usize) -> u32 {
        let k = block_rng(seed, id, 3).next_u64() % self.sizes.len() as u64;
        let full = self.sizes[k as usize] as u64;
        (full * n as u64).div_ceil(self.gran_blocks) as u32
    }
}
