//! `[content]`: what bytes the written blocks hold and how they are measured.

use super::check;
use crate::codec::{check_block_size, CodecKind, CostModel};
use crate::error::Result;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// How the content model turns a written block into a compressed size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContentMode {
    /// No content model: no data-reduction statistics (`summary.content` is null).
    Off,
    /// Draw each block's compressed size from the calibrated distribution, without bytes.
    Model,
    /// Make each block's bytes and compress them with the real codec.
    Bytes,
}

/// Distribution of the target compression ratio (original / compressed) of each 4 KiB block.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum RatioDist {
    /// Every block targets `ratio`.
    Fixed {
        /// Target ratio (>= 1).
        ratio: f64,
    },
    /// Uniform over [`min`, `max`].
    Uniform {
        /// Lowest ratio (>= 1).
        min: f64,
        /// Highest ratio (>= min).
        max: f64,
    },
    /// Zipfian over `levels` evenly spaced ratios from `min` (rank 1, the most frequent) to
    /// `max`, as Waltz §6.1 and COCO assume for Filebench-style workloads.
    Zipf {
        /// Ratio of rank 1 (>= 1).
        min: f64,
        /// Ratio of the last rank (> min).
        max: f64,
        /// Zipf exponent s (> 0); P(rank k) is proportional to k^-s.
        #[serde(default = "default_exponent")]
        exponent: f64,
        /// Number of distinct ratios (>= 2).
        #[serde(default = "default_levels")]
        levels: u32,
    },
}

fn default_exponent() -> f64 {
    1.0
}
fn default_levels() -> u32 {
    16
}

/// Which blocks share a drawn target ratio.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RatioScope {
    /// Each 4 KiB block draws its own ratio from its content id.
    #[default]
    Block,
    /// Each file draws one ratio, from its content ids' high 32 bits (`id >> 32`, the file key
    /// of file-level workloads such as Filebench), so all blocks of a file share it and the
    /// distribution (e.g. Zipfian) is over files. Block-level workloads put a per-stream base
    /// there, so they get one ratio per stream.
    File,
}

/// Where the bytes of a block come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ContentSource {
    /// Generated like fio's `buffer_compress_percentage`: each `chunk_bytes` chunk holds a
    /// random prefix and a zero-filled rest, with the random fraction calibrated so that the
    /// `calibrate` codec reaches the block's target ratio. Trace fingerprints (FIU MD5s) are
    /// content ids too, so equal fingerprints give equal bytes.
    Generated {
        /// fio's `buffer_compress_chunk` (bytes, power of two, 64..=4096).
        #[serde(default = "default_chunk")]
        chunk_bytes: u32,
    },
    /// Real files, cut into 4 KiB blocks (tails zero-padded); a content id picks a block.
    /// `ratio` is then not used: the files decide.
    Files {
        /// Files or directories (walked recursively in sorted order).
        paths: Vec<PathBuf>,
        /// Read at most this many bytes (all when absent).
        #[serde(default)]
        max_bytes: Option<u64>,
    },
}

fn default_chunk() -> u32 {
    512
}

/// Which side's cost model prices the compression tasks the statistics count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CodecSide {
    /// Software on host CPU cores ([`CostModel::host_default`]).
    Host,
    /// A hardware engine in the controller ([`CostModel::engine_default`]).
    Device,
}

/// The content model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContentConfig {
    /// off, model or bytes.
    pub mode: ContentMode,
    /// Codec whose compressed sizes the statistics report.
    pub codec: CodecKind,
    /// Compression unit in bytes (a power of two, >= 4096): 4096 compresses each block on its
    /// own; 16384 compresses aligned 4-block clusters as F2FS does.
    pub granularity: u32,
    /// Codec the generated content is calibrated against (the user's choice of LZ4 or zstd;
    /// any codec but `none` is accepted).
    pub calibrate: CodecKind,
    /// Target ratio of each block, unless a stream says otherwise (fio
    /// `buffer_compress_percentage = p` means a fixed 100 / (100 - p)).
    pub ratio: RatioDist,
    /// Draw the target ratio per block (`block`, the default) or per file (`file`).
    #[serde(default)]
    pub ratio_scope: RatioScope,
    /// Where bytes come from.
    pub source: ContentSource,
    /// Side whose default cost model applies.
    pub side: CodecSide,
    /// Cost model override (defaults to the side's default for `codec`).
    #[serde(default)]
    pub cost: Option<CostModel>,
    /// Compressed sizes remembered per (content, codec, granularity) unit before the cache is
    /// cleared (bytes mode).
    pub cache_entries: u32,
}

impl Default for ContentConfig {
    fn default() -> Self {
        ContentConfig {
            mode: ContentMode::Off,
            codec: CodecKind::Lz4,
            granularity: 4096,
            calibrate: CodecKind::Lz4,
            ratio: RatioDist::Fixed { ratio: 2.0 },
            ratio_scope: RatioScope::Block,
            source: ContentSource::Generated {
                chunk_bytes: default_chunk(),
            },
            side: CodecSide::Device,
            cost: None,
            cache_entries: 1 << 20,
        }
    }
}

impl ContentConfig {
    /// The cost model in force: the override, or the side's default for the codec.
    pub fn cost_model(&self) -> CostModel {
        self.cost.unwrap_or(match self.side {
            CodecSide::Host => CostModel::host_default(self.codec),
            CodecSide::Device => CostModel::engine_default(self.codec),
        })
    }

    /// Check every value; keys are reported as `content.*`.
    pub fn validate(&self, src: &str) -> Result<()> {
        super::ranges::check_value(self, "content", src)?;
        check_block_size(self.granularity as u64, src, "content.granularity")?;
        check(
            self.calibrate != CodecKind::None,
            src,
            "content.calibrate",
            || "cannot calibrate against `none` (it never compresses); use lz4 or zstd-N".into(),
        )?;
        self.ratio.validate(src, "content.ratio")?;
        match &self.source {
            ContentSource::Generated { chunk_bytes } => {
                let c = *chunk_bytes;
                check(
                    c.is_power_of_two(),
                    src,
                    "content.source.chunk_bytes",
                    || format!("expected a power of two, got {c}"),
                )?;
            }
            ContentSource::Files { paths, .. } => {
                check(!paths.is_empty(), src, "content.source.paths", || {
                    "expected at least one file or directory".into()
                })?;
            }
        }
        Ok(())
    }
}

impl RatioDist {
    /// Check the ratios; `key` names the table in errors.
    pub fn validate(&self, src: &str, key: &str) -> Result<()> {
        super::ranges::check_value(self, key, src)?;
        match *self {
            RatioDist::Fixed { .. } => Ok(()),
            RatioDist::Uniform { min, max } | RatioDist::Zipf { min, max, .. } => {
                let strict = matches!(self, RatioDist::Zipf { .. });
                check(
                    if strict { max > min } else { max >= min },
                    src,
                    &format!("{key}.max"),
                    || {
                        format!(
                            "expected max {} min ({min}), got {max}",
                            if strict { ">" } else { ">=" }
                        )
                    },
                )?;
                Ok(())
            }
        }
    }
}
