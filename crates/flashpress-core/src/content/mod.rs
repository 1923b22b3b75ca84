//! The content model: what bytes a written block holds and what a codec makes of them.
//!
//! Every written 4 KiB block carries a content id (see [`crate::workload::Request`]). The
//! model turns the id into bytes, deterministically from the run's seed:
//! - generated data whose target ratio is drawn per block from the stream's distribution
//!   (fixed, uniform, Zipfian; fio's `buffer_compress_percentage` fixes it per stream; a
//!   Filebench stream brings its own distribution; `ratio_scope = "file"` draws once per
//!   file, keyed by the id's high 32 bits), with
//!   the bytes calibrated against a real codec ([`generate`]);
//! - blocks of real files ([`files`]);
//! - trace fingerprints: FIU MD5s are content ids, so equal fingerprints give equal bytes;
//! - written data patterns (fio's `buffer_pattern`, `verify_pattern`): the pattern repeated,
//!   whatever the source, sized by the real codec on those bytes in both modes ([`pattern`]).
//!
//! Block `i` of a run of blocks whose first holds id `first` holds [`nth_id`]`(first, i)`:
//! every place that walks a request's blocks asks it.
//!
//! A measure is a codec at a granularity: it compresses aligned units of that many bytes (4
//! KiB blocks, or F2FS-style clusters of consecutive blocks). The config's `codec` and
//! `granularity` are the primary measure, whose counts fill [`ContentSummary`]; a side that
//! compresses differently adds its own ([`ContentModel::add_measure`]). In `bytes` mode the
//! real codec runs on the real bytes and sizes are cached per (content, codec, granularity)
//! unit; in `model` mode the size is read off a size curve measured on generated data, without
//! making bytes. On files both modes are exact: a unit's bytes are its first corpus block and
//! its length, so each is compressed once with the real codec and its size kept in a table
//! ([`files::SizeTable`]). Both modes fill the same [`ContentSummary`].

pub mod files;
pub mod generate;
pub mod pattern;

pub use pattern::{nth_id, Pattern};

use crate::codec::{check_block_size, stored_len, Codec, CodecKind, CostModel};
use crate::config::{ContentConfig, ContentMode, ContentSource, RatioDist, RatioScope, SimConfig};
use crate::error::Result;
use crate::interrupt::{Interrupt, SharedHook};
use crate::workload::ContentHints;
use generate::{block_rng, fill_block, Calibration, SizeCurve, BLOCK};
use rand::Rng;
use rand_distr::{Distribution, Zipf};
use serde::Serialize;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, DefaultHasher, Hash, Hasher};

/// Per-stream source of target ratios.
#[derive(Debug, Clone)]
struct StreamRatio {
    dist: RatioDist,
    /// Per block, or per file (`id >> 32`).
    scope: RatioScope,
    zipf: Option<Zipf<f64>>,
    /// Random fraction for a fixed ratio, computed once.
    fixed_fraction: Option<f64>,
}

/// Counters the content model owns.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ContentCounters {
    /// 4 KiB blocks written by the host.
    pub blocks: u64,
    /// Compression units evaluated.
    pub units: u64,
    /// Uncompressed bytes of those units.
    pub logical_bytes: u64,
    /// Codec output bytes (uncapped).
    pub compressed_bytes: u64,
    /// Bytes a store keeps: compressed, or raw when that is not smaller.
    pub stored_bytes: u64,
    /// Units whose codec output was not smaller than the unit.
    pub incompressible_units: u64,
    /// Busy time of the cost model's core or lane, summed over units (ns).
    pub compress_busy_ns: u64,
    /// Engine energy (pJ); 0 for host-side cost models.
    pub compress_energy_pj: u64,
    /// Units whose size came from the cache (bytes mode).
    pub cache_hits: u64,
}

/// Data-reduction statistics of a run (`summary.content`); the same fields in both modes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContentSummary {
    /// `model` or `bytes`.
    pub mode: ContentMode,
    /// Measuring codec.
    pub codec: CodecKind,
    /// Compression unit (bytes).
    pub granularity_bytes: u32,
    /// 4 KiB blocks the host wrote.
    pub blocks_written: u64,
    /// Compression units evaluated.
    pub units: u64,
    /// Uncompressed bytes of those units.
    pub logical_bytes: u64,
    /// Codec output bytes (uncapped).
    pub compressed_bytes: u64,
    /// Bytes stored: compressed, or raw when compression did not shrink the unit.
    pub stored_bytes: u64,
    /// Units stored raw.
    pub incompressible_units: u64,
    /// logical / stored (`null` without writes).
    pub ratio: Option<f64>,
    /// 1 - stored / logical (`null` without writes).
    pub saving: Option<f64>,
    /// Core or lane busy time compressing, per the cost model (s).
    pub compress_busy_s: f64,
    /// Engine energy compressing (J); 0 for the host side.
    pub compress_energy_j: f64,
}

type FixedHasher = BuildHasherDefault<DefaultHasher>;

/// Handle of one (codec, granularity) measure of a [`ContentModel`]; [`ContentModel::PRIMARY`]
/// is the config's `codec` at its `granularity`, whose counts fill `summary.content`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MeasureId(usize);

/// One codec at one granularity: its size source for model mode and its cache for bytes mode.
struct Measure {
    codec: Codec,
    granularity: u32,
    gran_blocks: u64,
    /// Model mode on generated content: size per block against the random fraction.
    curve: Option<SizeCurve>,
    /// Model mode on generated content: per stream with a fixed ratio, the curve's size per
    /// block at its fraction (the same for every block, so looked up once, not per write).
    fixed: Vec<Option<f64>>,
    /// Files (both modes): the size of every corpus unit, measured on first use.
    table: Option<files::SizeTable>,
    /// Bytes mode: codec output bytes per (stream, first id, blocks) unit.
    cache: HashMap<u64, u32, FixedHasher>,
    /// Both modes: codec output bytes of pattern units per (first id, blocks); a pattern's
    /// period is at most 512 blocks, so this stays small.
    pattern_sizes: HashMap<(u64, usize), u32, FixedHasher>,
}

/// Before a codec call: whether `stop`'s hook says stop (or said so before, `interrupted`).
/// The caller then returns a size without compressing: the run is being abandoned.
#[inline]
fn stop_now(stop: &mut Interrupt<'static>, interrupted: &mut bool) -> bool {
    if !*interrupted && stop.poll_slow().is_err() {
        *interrupted = true;
    }
    *interrupted
}

/// The content model of one run.
pub struct ContentModel {
    mode: ContentMode,
    seed: u64,
    chunk: usize,
    streams: Vec<StreamRatio>,
    calib: Option<Calibration>,
    files: Option<files::FileBlocks>,
    /// The written data patterns of the streams.
    patterns: Vec<Pattern>,
    measures: Vec<Measure>,
    cost: CostModel,
    cache_entries: usize,
    unit: Vec<u8>,
    out: Vec<u8>,
    /// Polled before each codec call ([`ContentModel::set_interrupt`]).
    stop: Interrupt<'static>,
    /// The hook said stop during a codec loop: sizes from then on are not measured.
    interrupted: bool,
    /// Counters of the primary measure.
    pub counters: ContentCounters,
}

impl std::fmt::Debug for ContentModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let m: Vec<String> = self
            .measures
            .iter()
            .map(|m| format!("{}@{}", m.codec.kind(), m.granularity))
            .collect();
        f.debug_struct("ContentModel")
            .field("mode", &self.mode)
            .field("measures", &m)
            .finish()
    }
}

impl ContentModel {
    /// The measure of the config's `codec` and `granularity`.
    pub const PRIMARY: MeasureId = MeasureId(0);

    /// The model of a config's `[content]`, for streams with these hints (`None` when off).
    pub fn new(cfg: &SimConfig, hints: &[ContentHints]) -> Result<Option<ContentModel>> {
        Self::from_content_config(&cfg.content, cfg.seed, hints, "config")
    }

    /// The model of a `[content]` table alone; `src` names it in errors.
    pub fn from_content_config(
        c: &ContentConfig,
        seed: u64,
        hints: &[ContentHints],
        src: &str,
    ) -> Result<Option<ContentModel>> {
        if c.mode == ContentMode::Off {
            return Ok(None);
        }
        c.validate(src)?;
        let (chunk, calib, files) = match &c.source {
            ContentSource::Generated { chunk_bytes } => {
                let chunk = *chunk_bytes as usize;
                (chunk, Some(Calibration::measure(c.calibrate, chunk)), None)
            }
            ContentSource::Files { paths, max_bytes } => {
                let fb = files::FileBlocks::load(paths, *max_bytes, seed)?;
                (BLOCK, None, Some(fb))
            }
        };
        let streams = hints
            .iter()
            .map(|h| {
                let dist = match h.compress_percentage {
                    // fio: p% of each buffer compresses away, so the intended ratio is
                    // 100 / (100 - p); 100% means all-fill blocks.
                    Some(p) if p >= 100 => RatioDist::Fixed { ratio: f64::MAX },
                    Some(p) => RatioDist::Fixed {
                        ratio: 100.0 / (100.0 - p as f64),
                    },
                    None => h.ratio.unwrap_or(c.ratio),
                };
                StreamRatio::new(dist, c.ratio_scope, calib.as_ref())
            })
            .collect::<Result<Vec<_>>>()?;
        let mut patterns: Vec<Pattern> = Vec::new();
        for p in hints.iter().filter_map(|h| h.pattern.as_ref()) {
            register_pattern(&mut patterns, p, src)?;
        }
        let mut m = ContentModel {
            mode: c.mode,
            seed,
            chunk,
            streams,
            calib,
            files,
            patterns,
            measures: Vec::new(),
            cost: c.cost_model(),
            cache_entries: c.cache_entries as usize,
            stop: Interrupt::none(),
            interrupted: false,
            unit: Vec::new(),
            out: Vec::new(),
            counters: ContentCounters::default(),
        };
        m.add_measure(c.codec, c.granularity, src)?;
        Ok(Some(m))
    }

    /// Whether blocks are generated (fio-style random bytes and zeros) rather than cut from
    /// real files.
    pub fn generated(&self) -> bool {
        self.files.is_none()
    }

    /// Measure `codec` at `granularity` bytes too (a power of two, >= 4096), for a second
    /// side that compresses differently (e.g. host clusters and device blocks). Model mode
    /// measures its size curve now.
    pub fn add_measure(
        &mut self,
        codec: CodecKind,
        granularity: u32,
        src: &str,
    ) -> Result<MeasureId> {
        let g = check_block_size(granularity as u64, src, "content.granularity")?;
        if g < BLOCK as u32 {
            return Err(crate::error::Error::config(
                src,
                "content.granularity",
                format!("expected at least one 4096-byte block, got {g}"),
            ));
        }
        let gran_blocks = (g as usize / BLOCK) as u64;
        let model = self.mode == ContentMode::Model;
        let curve = (model && self.files.is_none())
            .then(|| SizeCurve::measure(codec, gran_blocks as usize, self.chunk));
        let table = self
            .files
            .as_ref()
            .map(|f| files::SizeTable::new(f.blocks(), gran_blocks));
        let fixed = match &curve {
            Some(c) => self
                .streams
                .iter()
                .map(|s| s.fixed_fraction.map(|f| c.at(f)))
                .collect(),
            None => Vec::new(),
        };
        if self.unit.len() < g as usize {
            self.unit.resize(g as usize, 0);
        }
        self.measures.push(Measure {
            codec: Codec::new(codec),
            granularity: g,
            gran_blocks,
            curve,
            fixed,
            table,
            cache: HashMap::with_hasher(FixedHasher::default()),
            pattern_sizes: HashMap::with_hasher(FixedHasher::default()),
        });
        Ok(MeasureId(self.measures.len() - 1))
    }

    /// Account a host write of `len` bytes at `offset` whose first 4 KiB block holds content
    /// `first_id` (block `i` holds [`nth_id`]`(first_id, i)`), from stream `stream`, with the
    /// primary measure.
    pub fn on_write(&mut self, stream: usize, offset: u64, len: u64, first_id: u64) {
        if len == 0 {
            return;
        }
        let first_blk = offset / BLOCK as u64;
        let last_blk = (offset + len - 1) / BLOCK as u64;
        let g = self.measures[0].gran_blocks;
        let mut b = first_blk;
        while b <= last_blk {
            let end = ((b / g + 1) * g - 1).min(last_blk);
            let n = end - b + 1;
            let id = nth_id(first_id, b - first_blk);
            let size = self.unit_size(Self::PRIMARY, stream, id, n as usize);
            let logical = n * BLOCK as u64;
            let c = &mut self.counters;
            c.blocks += n;
            c.units += 1;
            c.logical_bytes += logical;
            c.compressed_bytes += size as u64;
            c.stored_bytes += stored_len(size as usize, logical as usize) as u64;
            c.incompressible_units += (size as u64 >= logical) as u64;
            let busy = self.cost.compress_ns(logical);
            c.compress_busy_ns += busy;
            c.compress_energy_pj += self.cost.energy_pj(busy);
            b = end + 1;
        }
    }

    /// Poll `hook` before each codec call from now on (`None`: stop polling). Once it says
    /// stop, [`ContentModel::interrupted`] is true and sizes are no longer measured: the
    /// caller must abandon the work in hand.
    pub fn set_interrupt(&mut self, hook: Option<SharedHook>) {
        self.stop = hook.map_or_else(Interrupt::none, Interrupt::shared);
    }

    /// Whether the interrupt hook said stop during a codec call (see
    /// [`ContentModel::set_interrupt`]).
    pub fn interrupted(&self) -> bool {
        self.interrupted
    }

    /// Codec output bytes, under measure `m`, of the unit of `n` consecutive blocks (at most
    /// the measure's granularity) starting at content `id`.
    pub fn unit_size(&mut self, m: MeasureId, stream: usize, id: u64, n: usize) -> u32 {
        if let Some(p) = self.pattern_of(id) {
            // A pattern's bytes are known exactly: the real codec on them, in both modes.
            let p = p.clone();
            if let Some(&s) = self.measures[m.0].pattern_sizes.get(&(id, n)) {
                self.counters.cache_hits += 1;
                return s;
            }
            if stop_now(&mut self.stop, &mut self.interrupted) {
                return (n * BLOCK) as u32;
            }
            let unit = &mut self.unit[..n * BLOCK];
            p.fill(id, unit);
            let meas = &mut self.measures[m.0];
            let size = meas.codec.compress(unit, &mut self.out) as u32;
            meas.pattern_sizes.insert((id, n), size);
            return size;
        }
        if let Some(f) = &self.files {
            // A unit of files is its first corpus block and its length, in both modes.
            let block = f.index(id);
            let meas = &mut self.measures[m.0];
            let table = meas.table.as_mut().expect("a measure of files has a table");
            if let Some(s) = table.get(block, n) {
                self.counters.cache_hits += 1;
                return s;
            }
            if stop_now(&mut self.stop, &mut self.interrupted) {
                return (n * BLOCK) as u32;
            }
            let unit = &mut self.unit[..n * BLOCK];
            for (i, blk) in unit.chunks_mut(BLOCK).enumerate() {
                blk.copy_from_slice(f.block(nth_id(id, i as u64)));
            }
            let size = meas.codec.compress(unit, &mut self.out) as u32;
            table.set(block, n, size);
            return size;
        }
        if self.mode == ContentMode::Model {
            return self.model_size(m, stream, id, n);
        }
        let key = {
            let mut h = DefaultHasher::new();
            (stream, id, n).hash(&mut h);
            h.finish()
        };
        if let Some(&s) = self.measures[m.0].cache.get(&key) {
            self.counters.cache_hits += 1;
            return s;
        }
        if stop_now(&mut self.stop, &mut self.interrupted) {
            return (n * BLOCK) as u32;
        }
        let mut unit = std::mem::take(&mut self.unit);
        self.unit_bytes(stream, id, &mut unit[..n * BLOCK]);
        let meas = &mut self.measures[m.0];
        let size = meas.codec.compress(&unit[..n * BLOCK], &mut self.out) as u32;
        self.unit = unit;
        if meas.cache.len() >= self.cache_entries {
            // Sizes are a pure function of the key, so forgetting them changes speed only.
            meas.cache.clear();
        }
        meas.cache.insert(key, size);
        size
    }

    /// The bytes of `out.len() / 4096` consecutive blocks starting at content `id`.
    pub fn unit_bytes(&self, stream: usize, id: u64, out: &mut [u8]) {
        for (i, blk) in out.chunks_mut(BLOCK).enumerate() {
            let id = nth_id(id, i as u64);
            if let Some(p) = self.pattern_of(id) {
                p.fill(id, blk);
            } else if let Some(f) = &self.files {
                blk.copy_from_slice(f.block(id));
            } else {
                let fr = self.fraction(stream, id);
                fill_block(&mut block_rng(self.seed, id, 0), fr, self.chunk, blk);
            }
        }
    }

    /// Give pattern `p`'s blocks their real bytes also when no stream's hints name it (a
    /// file's layout written with a reading job's `buffer_pattern`); `src` names errors.
    pub fn add_pattern(&mut self, p: &Pattern, src: &str) -> Result<()> {
        register_pattern(&mut self.patterns, p, src)
    }

    /// Which of the `n` (at most 64) consecutive 4 KiB blocks starting at content `id` hold
    /// only zero bytes: bit `i` for block [`nth_id`]`(id, i)`. Generated blocks are zero when their
    /// random share rounds to no byte; file blocks are read.
    pub fn zero_mask(&self, stream: usize, id: u64, n: usize) -> u64 {
        debug_assert!(n <= 64);
        let mut m = 0u64;
        for i in 0..n {
            let id = nth_id(id, i as u64);
            let zero = match (self.pattern_of(id), &self.files) {
                (Some(p), _) => p.bytes().iter().all(|&b| b == 0),
                (None, Some(f)) => f.is_zero(id),
                (None, None) => {
                    (self.fraction(stream, id).clamp(0.0, 1.0) * BLOCK as f64).round() == 0.0
                }
            };
            m |= (zero as u64) << i;
        }
        m
    }

    /// The pattern whose block `id` is (`None`: not a registered pattern's id).
    #[inline]
    fn pattern_of(&self, id: u64) -> Option<&Pattern> {
        if self.patterns.is_empty() || !pattern::is_pattern(id) {
            return None;
        }
        self.patterns.iter().find(|p| p.owns(id))
    }

    /// Blocks in the file corpus (`None` for generated content).
    pub fn corpus_blocks(&self) -> Option<u64> {
        self.files.as_ref().map(|f| f.blocks())
    }

    /// Content id whose bytes are corpus block `i` (files source; `None` otherwise).
    pub fn id_of_block(&self, i: u64) -> Option<u64> {
        self.files.as_ref().map(|f| f.id_of_block(i))
    }

    /// Target ratio of block `id` in `stream` (generated content).
    pub fn target_ratio(&self, stream: usize, id: u64) -> f64 {
        self.streams[stream].draw(self.seed, id)
    }

    fn fraction(&self, stream: usize, id: u64) -> f64 {
        let s = &self.streams[stream];
        let cal = self
            .calib
            .as_ref()
            .expect("generated content has a calibration");
        s.fixed_fraction
            .unwrap_or_else(|| cal.fraction_for(s.draw(self.seed, id)))
    }

    fn model_size(&self, m: MeasureId, stream: usize, id: u64, n: usize) -> u32 {
        let meas = &self.measures[m.0];
        let total: f64 = match meas.fixed.get(stream).copied().flatten() {
            // The same sum as below: n terms that are all this value.
            Some(v) => (0..n).map(|_| v).sum(),
            None => {
                let curve = meas.curve.as_ref().expect("model mode measures a curve");
                (0..n as u64)
                    .map(|i| curve.at(self.fraction(stream, nth_id(id, i))))
                    .sum()
            }
        };
        // Round half up (total >= 0): as `f64::round` except at exact ties, without the libm
        // call that `round` compiles to on baseline x86-64 (this is per written block).
        (total + 0.5) as u32
    }

    /// The summary of what the primary measure counted.
    pub fn summary(&self) -> ContentSummary {
        let c = &self.counters;
        let p = &self.measures[0];
        let any = c.logical_bytes > 0;
        ContentSummary {
            mode: self.mode,
            codec: p.codec.kind(),
            granularity_bytes: p.granularity,
            blocks_written: c.blocks,
            units: c.units,
            logical_bytes: c.logical_bytes,
            compressed_bytes: c.compressed_bytes,
            stored_bytes: c.stored_bytes,
            incompressible_units: c.incompressible_units,
            ratio: any.then(|| c.logical_bytes as f64 / c.stored_bytes.max(1) as f64),
            saving: any.then(|| 1.0 - c.stored_bytes as f64 / c.logical_bytes as f64),
            compress_busy_s: c.compress_busy_ns as f64 * 1e-9,
            compress_energy_j: c.compress_energy_pj as f64 * 1e-12,
        }
    }
}

impl StreamRatio {
    fn new(dist: RatioDist, scope: RatioScope, calib: Option<&Calibration>) -> Result<StreamRatio> {
        let zipf = match dist {
            RatioDist::Zipf {
                exponent, levels, ..
            } => Some(Zipf::new(levels as f64, exponent).map_err(|e| {
                crate::error::Error::config("config", "content.ratio", e.to_string())
            })?),
            _ => None,
        };
        let fixed_fraction = match (dist, calib) {
            (RatioDist::Fixed { ratio }, Some(cal)) => Some(cal.fraction_for(ratio)),
            _ => None,
        };
        Ok(StreamRatio {
            dist,
            scope,
            zipf,
            fixed_fraction,
        })
    }

    fn draw(&self, seed: u64, id: u64) -> f64 {
        let id = match self.scope {
            RatioScope::Block => id,
            RatioScope::File => id >> 32,
        };
        match self.dist {
            RatioDist::Fixed { ratio } => ratio,
            RatioDist::Uniform { min, max } => {
                if max > min {
                    block_rng(seed, id, 1).random_range(min..=max)
                } else {
                    min
                }
            }
            RatioDist::Zipf {
                min, max, levels, ..
            } => {
                let z = self.zipf.as_ref().expect("zipf built with the stream");
                let k = z.sample(&mut block_rng(seed, id, 1));
                min + (k - 1.0) / (levels as f64 - 1.0) * (max - min)
            }
        }
    }
}

/// Add `p` to `patterns` unless there; two patterns with one content id are an error.
fn register_pattern(patterns: &mut Vec<Pattern>, p: &Pattern, src: &str) -> Result<()> {
    match patterns.iter().find(|q| q.first_id() == p.first_id()) {
        Some(q) if q == p => {}
        Some(q) => {
            // 29 bits of hash: two patterns of one run meet here once in ~10^8 pairs.
            return Err(crate::error::Error::config(
                src,
                "buffer_pattern",
                format!(
                    "patterns {} and {} share a content id; change one by a byte",
                    serde_json::to_string(q).unwrap_or_default(),
                    serde_json::to_string(p).unwrap_or_default()
                ),
            ));
        }
        None => patterns.push(p.clone()),
    }
    Ok(())
}
