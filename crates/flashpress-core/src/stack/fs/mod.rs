//! An F2FS-like log-structured file system with cluster compression (Waltz §2.3, §4.2,
//! §5, §6.4.2), on the block addresses of a [`Disk`].
//!
//! - **Layout.** The partition is LBAs `[0, P)` in segments of `segment_blocks`; the extra
//!   reserved segments a space policy grants live past it, in `[P, P + max_extra_rs_blocks)`
//!   (the CCSD's logical space is larger than its physical one). `rs_ratio` of the
//!   partition's segments is reserved space: user data may fill `segments - rs` segments,
//!   writes beyond that fail with ENOSPC (counted, the request completes as failed).
//! - **Logs.** Hot, warm and cold logs append to their current segments; block-level streams
//!   are warm, files go to the log of their hotness, cleaning writes to the cold log.
//! - **Segment cleaning** (foreground, greedy): when a log needs a new segment and F2FS's
//!   `has_not_enough_free_secs` holds (free segments at or below mkfs.f2fs's reserved
//!   segments plus the dirty node blocks' segments, `ssr`), the segments with the fewest
//!   valid blocks are cleaned until it no longer does; the request that triggered it waits.
//!   Reserved space (`rs_ratio`, F2FS's overprovision) keeps the user data below the
//!   partition, so the more of it (and the more extra segments) the emptier the victims.
//!   **Background cleaning** (`bggc`) cleans cost-benefit victims in idle time.
//! - **Adaptive logging (SSR)** (`ssr`): under `mode = "adaptive"` the data logs fill the
//!   holes of the dirty segment with the most invalid blocks instead of taking a free segment
//!   once F2FS's need-SSR rule holds (or below a fixed `ssr_ratio` of free segments); thread
//!   logging is also the last resort of any log when no segment is free.
//! - **Node blocks and checkpoints** (`node`): writing or moving a data block dirties its
//!   node block; checkpoints write the dirty node blocks to the node log (free segments
//!   only), then NAT/SIT blocks and the checkpoint pack.
//! - **Compression.** Writes go by cluster (`cluster_blocks`); the placement policy chooses
//!   device (no flag), skip (incompressible label) or host: the host compresses the whole
//!   cluster (read-modify-write for a partial update of a cluster holding other data) on a
//!   writeback context and stores `ceil(size / 4096)` blocks flagged host-compressed when
//!   that saves a block, else the cluster raw with the incompressible label. Reads of a
//!   host-compressed cluster read its stored blocks and decompress the whole cluster on a
//!   host core; reads of device-compressed blocks are decompressed where the policy says.
//! - **Discard.** A segment left without valid blocks is trimmed on the device before it is
//!   reused (asynchronously: no request waits for it); deletes and hole punches trim the
//!   freed blocks at once.

mod bggc;
mod clean;
mod files;
mod node;
mod segments;
mod ssr;
#[cfg(test)]
mod tests;

use crate::codec::cost::generated_content_factor;
use crate::codec::{CodecKind, CostModel};
use crate::config::StackConfig;
use crate::content::{ContentModel, MeasureId};
use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::stack::bio::{Bio, BioFlags, BioOp, Disk, BLOCK};
use crate::stack::cpu::Cpu;
use crate::stack::policy::{CompressSide, DecompressSide, FileView, Policy};
use crate::units::{duration_ns, SimTime, MAX_OP_NS, MAX_PERIOD_NS};
use crate::workload::{FileAttrs, Hotness, Op, Request, NO_FILE};
use files::{has_block, File, DATA, KIND, K_DEV, K_HEAD, K_HOLE, K_HRAW, K_NULL, K_SKIP, K_STORED};
use segments::{pack, SegState, Segments, NONE};
use ssr::SsrRule;
use std::collections::HashMap;

/// What the file system acts on while serving a request.
pub struct FsCtx<'a> {
    /// The device.
    pub disk: &'a mut dyn Disk,
    /// Host cores (compression in writeback contexts, decompression anywhere).
    pub cpu: &'a mut Cpu,
    /// The content model (compressed sizes of host clusters; content ids for the device).
    pub content: Option<&'a mut ContentModel>,
    /// The placement policy of the request's stream.
    pub policy: &'a Policy,
}

/// File-system counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FsCounters {
    /// Blocks of accepted write requests.
    pub user_blocks_written: u64,
    /// Blocks of read requests (clipped to the files' sizes).
    pub user_blocks_read: u64,
    /// Blocks submitted to the disk for writing, cleaning, node and checkpoint blocks included.
    pub fs_blocks_written: u64,
    /// Blocks read from the disk, read-modify-write and cleaning included.
    pub fs_blocks_read: u64,
    /// Blocks discarded on the disk (deletes, hole punches, freed segments).
    pub fs_blocks_trimmed: u64,
    /// Segments cleaned in the foreground (SC count).
    pub cleaning_invocations: u64,
    /// Valid blocks cleaning copied.
    pub cleaning_blocks_moved: u64,
    /// Wake-ups of the background cleaner.
    pub bggc_wakeups: u64,
    /// Segments the background cleaner cleaned (in idle time).
    pub bggc_segments: u64,
    /// Valid blocks the background cleaner copied.
    pub bggc_blocks_moved: u64,
    /// Node blocks written (at checkpoints).
    pub node_blocks_written: u64,
    /// Checkpoint pack, NAT and SIT blocks written.
    pub cp_blocks_written: u64,
    /// Checkpoints written.
    pub checkpoints: u64,
    /// Blocks written by thread logging into holes of dirty segments.
    pub ssr_blocks: u64,
    /// Clusters read, (de)compressed and rewritten for a partial update.
    pub rmw_clusters: u64,
    /// Clusters stored host-compressed.
    pub clusters_host_compressed: u64,
    /// Clusters the host compressed without saving a block, stored raw.
    pub clusters_host_raw: u64,
    /// Blocks written without a flag (the device compresses them), cleaning copies included.
    pub compress_blocks_device: u64,
    /// Data blocks of clusters compressed on the host.
    pub compress_blocks_host: u64,
    /// Blocks written with the incompressible label by the placement policy.
    pub compress_blocks_skipped: u64,
    /// Device-compressed blocks read and decompressed by the device (cleaning reads included).
    pub decompress_blocks_device: u64,
    /// Blocks decompressed on the host: data blocks of host-compressed clusters plus
    /// device-compressed blocks read for host decompression.
    pub decompress_blocks_host: u64,
    /// Block I/Os the device failed.
    pub failed_ios: u64,
    /// Files created (block-level streams' files and fill files included).
    pub files_created: u64,
    /// Files deleted.
    pub files_deleted: u64,
    /// Write requests refused for lack of space (or beyond the largest file).
    pub enospc: u64,
    /// Zones reset because their section became free (on a zoned device only).
    pub zone_resets: u64,
    /// Sections closed before their end because their zone filled (a compressing zoned
    /// device: the data did not compress enough); their zones were finished.
    pub zone_sections_closed_early: u64,
    /// Blocks of those sections left unwritten (unusable until the zone's reset).
    pub zone_blocks_unused: u64,
}

/// Content ids of the blocks a write stores, from its first block on.
#[derive(Debug, Clone, Copy)]
pub enum Ids<'a> {
    /// Block `i` holds [`crate::content::nth_id`]`(first, i)` (one request).
    Seq(u64),
    /// Block `i` holds `ids[i]` (pages written back together).
    List(&'a [u64]),
}

impl<'a> Ids<'a> {
    /// Id of block `i`.
    fn at(self, i: u64) -> u64 {
        match self {
            Ids::Seq(first) => crate::content::nth_id(first, i),
            Ids::List(v) => v[i as usize],
        }
    }

    /// The ids from block `i` on.
    fn from(self, i: u64) -> Ids<'a> {
        match self {
            Ids::Seq(first) => Ids::Seq(crate::content::nth_id(first, i)),
            Ids::List(v) => Ids::List(&v[i as usize..]),
        }
    }
}

/// Least time a file-system call takes (system call and VFS path; our assumption), in ns.
pub const FS_CALL_NS: u64 = 1_000;

/// Completion of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FsDone {
    /// When the request completed.
    pub done: SimTime,
    /// Whether it failed (device failure or ENOSPC).
    pub failed: bool,
}

const HOT: usize = 0;
const WARM: usize = 1;
const COLD: usize = 2;
/// The (warm) node log.
const NODE_LOG: usize = 3;
const NUM_LOGS: usize = 4;

/// File namespaces (high bits of the key): block-level streams' files, workload files, fill.
const NS_STREAM: u64 = 1 << 40;
const NS_FILE: u64 = 2 << 40;
const NS_FILL: u64 = 3 << 40;
/// Blocks per fill file.
const FILL_FILE_BLOCKS: u64 = 1024;
/// First content id of fill data (far from workload ids).
const FILL_ID_BASE: u64 = 0xF111_0000_0000_0000;

#[derive(Debug, Clone, Copy)]
struct Log {
    seg: u32,
    cursor: u32,
    ssr: bool,
}

/// Pending coalesced write.
#[derive(Debug, Clone, Default)]
struct WBuf {
    lba: u32,
    flags: BioFlags,
    stream: u32,
    t: SimTime,
    ids: Vec<u64>,
}

/// Pending coalesced read.
#[derive(Debug, Clone, Copy, Default)]
struct RBuf {
    lba: u32,
    n: u32,
    flags: BioFlags,
    stream: u32,
    t: SimTime,
}

/// The file system.
pub struct Fs {
    seg: Segments,
    files: Vec<File>,
    free_files: Vec<u32>,
    by_key: HashMap<u64, u32>,
    stream_files: Vec<u32>,
    logs: [Log; NUM_LOGS],
    cb: u32,
    user_blocks: u64,
    rs: u64,
    reserved: u64,
    ssr_rule: SsrRule,
    nodes: node::Nodes,
    bg: bggc::BgGc,
    max_file_blocks: u64,
    sample_blocks: u32,
    host_measure: Option<MeasureId>,
    host_cost: CostModel,
    engine_host_cost: CostModel,
    /// Host and engine codecs whose host time follows the generated content's ratio
    /// (`stack.cpu.ratio_speed` on generated content), else None.
    ratio_speed: Option<(CodecKind, CodecKind)>,
    overhead_ns: u64,
    in_cleaning: bool,
    /// Earliest start of this request's next I/O (moves past cleaning).
    t_floor: SimTime,
    /// Latest completion of this request's I/O and host work.
    acc_done: SimTime,
    acc_failed: bool,
    /// Latest completion of the bios flushed since it was reset (cleaning phases).
    io_max: SimTime,
    wbuf: WBuf,
    rbuf: RBuf,
    victim: Vec<u32>,
    fill_files: u64,
    fill_next_id: u64,
    /// On a zoned device ([`Fs::on_zones`]): sections are zones, written only sequentially.
    zoned: bool,
    counters: FsCounters,
}

impl std::fmt::Debug for Fs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fs")
            .field("segments_total", &self.segments_total())
            .field("free_segments", &self.seg.free)
            .field("rs_segments", &self.rs)
            .field("extra_rs_segments", &self.seg.extra_enabled)
            .field("valid_blocks", &self.seg.total_valid)
            .field("user_blocks", &self.user_blocks)
            .field("files", &self.by_key.len())
            .field("counters", &self.counters)
            .finish()
    }
}

fn parse_codec(name: &str, key: &str) -> Result<CodecKind> {
    name.parse::<CodecKind>()
        .map_err(|e| Error::config("stack", key, e.to_string()))
}

impl Fs {
    /// A fresh file system on `disk_logical_blocks` device blocks. Adds the host measure (host
    /// codec at `cluster_blocks` × 4096) to `content` when given. Errors (`Error::Config`
    /// naming the key) when the partition plus the most extra reserved space
    /// (`max_extra_rs_blocks`) exceeds the device's logical blocks.
    pub fn new(
        st: &StackConfig,
        disk_logical_blocks: u64,
        max_extra_rs_blocks: u64,
        content: Option<&mut ContentModel>,
    ) -> Result<Fs> {
        let f = &st.fs;
        let s = f.segment_blocks as u64;
        if s < 4 {
            return Err(Error::config(
                "stack",
                "stack.fs.segment_blocks",
                format!("expected at least 4 blocks, got {s}"),
            ));
        }
        let cb = f.compression.cluster_blocks;
        if !(2..=256).contains(&cb) || !cb.is_power_of_two() {
            return Err(Error::config(
                "stack",
                "stack.fs.compression.cluster_blocks",
                format!("F2FS clusters are 2^n blocks, 2..=256, got {cb}"),
            ));
        }
        let p = f.partition_bytes / BLOCK;
        if !p.is_multiple_of(s) || p < 16 * s {
            return Err(Error::config(
                "stack",
                "stack.fs.partition_bytes",
                format!(
                    "expected a multiple of the segment size, at least 16 segments, got {} bytes",
                    f.partition_bytes
                ),
            ));
        }
        if p.saturating_add(max_extra_rs_blocks) > disk_logical_blocks {
            return Err(Error::config(
                "stack",
                "stack.fs.partition_bytes",
                format!(
                    "the partition ({p} blocks) plus the most extra reserved space \
                     ({max_extra_rs_blocks} blocks) exceeds the device's {disk_logical_blocks} \
                     logical blocks"
                ),
            ));
        }
        let n_part = p / s;
        let n_extra = max_extra_rs_blocks / s;
        let meta_base = p + max_extra_rs_blocks;
        let meta = node::meta_blocks((n_part + n_extra) * s, n_part + n_extra);
        if f.meta.node_writes && meta_base + meta > disk_logical_blocks {
            return Err(Error::config(
                "stack",
                "stack.fs.meta.node_writes",
                format!(
                    "the checkpoint, SIT and NAT areas ({meta} blocks) do not fit past the \
                     partition and the most extra reserved space on the device's \
                     {disk_logical_blocks} logical blocks; shrink stack.fs.partition_bytes or \
                     set node_writes = false"
                ),
            ));
        }
        if (n_part + n_extra) * s >= NONE as u64
            || (f.meta.node_writes && meta_base + meta >= NONE as u64)
        {
            return Err(Error::config(
                "stack",
                "stack.fs.partition_bytes",
                "the file system addresses at most 2^32 - 1 blocks (16 TiB)",
            ));
        }
        let rs = ((f.rs_ratio.clamp(0.0, 1.0) * n_part as f64).ceil() as u64).min(n_part);
        let host = parse_codec(&f.compression.codec, "stack.fs.compression.codec")?;
        let engine = parse_codec(&st.ccsd.codec, "stack.ccsd.codec")?;
        let generated = content.as_ref().is_some_and(|c| c.generated());
        let host_measure = match content {
            Some(c) => Some(c.add_measure(host, cb * BLOCK as u32, "stack.fs.compression")?),
            None => None,
        };
        let overhead_ns = duration_ns(
            "stack.cpu.per_cluster_overhead_us",
            st.cpu.per_cluster_overhead_us,
            1e3,
            MAX_OP_NS,
        )?;
        let cp_interval_ns = duration_ns(
            "stack.fs.meta.cp_interval_ms",
            f.meta.cp_interval_ms,
            1e6,
            MAX_PERIOD_NS,
        )?
        .max(1);
        let log = Log {
            seg: NONE,
            cursor: 0,
            ssr: false,
        };
        Ok(Fs {
            seg: Segments::new(s as u32, n_part as u32, n_extra as u32),
            files: Vec::new(),
            free_files: Vec::new(),
            by_key: HashMap::new(),
            stream_files: Vec::new(),
            logs: [log; NUM_LOGS],
            cb,
            user_blocks: (n_part - rs) * s,
            rs,
            reserved: ssr::reserved_segments(f.rs_ratio, rs),
            ssr_rule: SsrRule::of(f),
            nodes: node::Nodes::new(
                f.meta.node_writes,
                cp_interval_ns,
                f.meta.excess_dirty_nodes,
                meta_base,
                n_part + n_extra,
            ),
            bg: bggc::BgGc::new(&f.bggc),
            max_file_blocks: disk_logical_blocks.min(u32::MAX as u64 - 256),
            sample_blocks: st.coco.sample_blocks.clamp(1, cb),
            host_measure,
            host_cost: st.cpu.cost.unwrap_or_else(|| CostModel::host_default(host)),
            engine_host_cost: CostModel::host_default(engine),
            ratio_speed: (st.cpu.ratio_speed && generated).then_some((host, engine)),
            overhead_ns,
            in_cleaning: false,
            t_floor: SimTime::ZERO,
            acc_done: SimTime::ZERO,
            acc_failed: false,
            io_max: SimTime::ZERO,
            wbuf: WBuf::default(),
            rbuf: RBuf::default(),
            victim: Vec::new(),
            fill_files: 0,
            fill_next_id: 0,
            zoned: false,
            counters: FsCounters::default(),
        })
    }

    /// Mount on a zoned device whose zones hold `zone_blocks` writable blocks, as F2FS does on
    /// a zoned block device: a section (here a segment) is one zone's capacity, every log
    /// appends at its zone's write pointer (`mode = "lfs"`, no thread logging, not even as the
    /// last resort: a full file system fails the write with ENOSPC), a freed section's zone is
    /// reset instead of discarded, and blocks freed inside a zone are not discarded (the
    /// section's SIT entry records them; cleaning reclaims them). The checkpoint, SIT and NAT
    /// areas are updated in place, which F2FS keeps on a conventional device; this model has
    /// none, so `stack.fs.meta.node_writes` must be off.
    pub fn on_zones(mut self, st: &StackConfig, zone_blocks: u64) -> Result<Fs> {
        let f = &st.fs;
        if f.segment_blocks as u64 != zone_blocks {
            return Err(Error::config(
                "stack",
                "stack.fs.segment_blocks",
                format!(
                    "on a zoned device a section is one zone: expected the zone capacity, \
                     {zone_blocks} blocks, got {}",
                    f.segment_blocks
                ),
            ));
        }
        if f.mode != crate::config::FsMode::Lfs {
            return Err(Error::config(
                "stack",
                "stack.fs.mode",
                "a zoned device takes only sequential writes: F2FS mounts it in \"lfs\" mode \
                 (adaptive mode's thread logging writes into the holes of used zones)",
            ));
        }
        if f.meta.node_writes {
            return Err(Error::config(
                "stack",
                "stack.fs.meta.node_writes",
                "the checkpoint, SIT and NAT areas are rewritten in place, which F2FS keeps on \
                 a conventional device beside the zoned one; this model has none: set \
                 node_writes = false",
            ));
        }
        self.zoned = true;
        Ok(self)
    }

    /// Whether the file system is on a zoned device.
    pub fn zoned(&self) -> bool {
        self.zoned
    }

    /// Where each section's zone's write pointer must be (blocks from the zone start), by
    /// section: 0 for a free section (its zone reset), a log's cursor for the section it
    /// appends to, the whole section for the others. Checked against a zoned device.
    pub fn expected_write_pointers(&self) -> Vec<u64> {
        let s = self.seg.s as u64;
        let mut wp: Vec<u64> = self
            .seg
            .state
            .iter()
            .map(|st| match st {
                SegState::Free | SegState::Disabled => 0,
                SegState::Open | SegState::Closed | SegState::Cleaning => s,
            })
            .collect();
        for l in &self.logs {
            if l.seg != NONE {
                wp[l.seg as usize] = l.cursor as u64;
            }
        }
        wp
    }

    /// Serve one request of workload stream `stream` arriving at `now`. Block-level requests
    /// (`req.file == NO_FILE`) address the stream's own file (one file per stream, created on
    /// first use, offset = byte offset in it). File-level requests address `req.file` (one
    /// namespace shared by all streams; created on first write with `req.attrs`): Write at
    /// any offset (extending the file), Read (clipped to the file's size; reading past EOF or
    /// a missing file reads nothing and completes at once), Delete (frees its blocks, trims
    /// them on the device), Trim (punch hole).
    pub fn submit(
        &mut self,
        ctx: &mut FsCtx<'_>,
        stream: usize,
        req: &Request,
        now: SimTime,
    ) -> Result<FsDone> {
        self.submit_blocks(ctx, stream, req, None, now)
    }

    /// [`Fs::submit`], where a write's block `i` holds content id `ids[i]` (instead of
    /// [`crate::content::nth_id`]`(req.content, i)`): the page cache writes back pages dirtied by different requests.
    pub fn submit_blocks(
        &mut self,
        ctx: &mut FsCtx<'_>,
        stream: usize,
        req: &Request,
        ids: Option<Ids<'_>>,
        now: SimTime,
    ) -> Result<FsDone> {
        self.begin(now);
        self.bg.last_request = now;
        self.checkpoint_if_due(ctx, now)?;
        let fi = if req.file == NO_FILE {
            Some(self.stream_file(stream))
        } else {
            let key = NS_FILE | req.file as u64;
            match (self.by_key.get(&key), req.op) {
                (Some(&fi), _) => Some(fi),
                (None, Op::Write) => Some(self.create(key, req.attrs.file_only(), stream as u32)),
                (None, _) => None,
            }
        };
        if let Some(fi) = fi {
            match req.op {
                Op::Write => {
                    let ids = ids.unwrap_or(Ids::Seq(req.content));
                    self.write(ctx, fi, req.offset, req.len, ids)?;
                    self.touch(fi);
                }
                Op::Read => {
                    self.read(ctx, fi, req.offset, req.len)?;
                    self.touch(fi);
                }
                Op::Trim => self.punch(ctx, fi, req.offset, req.len)?,
                Op::Delete => {
                    if req.file != NO_FILE {
                        self.delete(ctx, fi)?;
                    }
                }
                // Written data is on the disk when a write completes: nothing to flush (the
                // page cache, `stack::cache`, makes fsync wait for its dirty pages).
                Op::Sync => {}
                Op::RuhUpdate => {
                    return Err(crate::error::Error::Workload(
                        "a reclaim unit handle update needs a flexible data placement device \
                         ([fdp]), not a file system"
                            .into(),
                    ))
                }
                Op::Append | Op::ZoneOpen | Op::ZoneClose | Op::ZoneFinish | Op::ZoneReset => {
                    return Err(crate::error::Error::Workload(format!(
                        "{:?}: zone commands need a zoned device ([zns]), not a file system",
                        req.op
                    )))
                }
            }
        }
        let d = self.end(ctx)?;
        self.bg.last_done = self.bg.last_done.max(d.done);
        Ok(d)
    }

    /// Untimed prefill: write files (in the stream-less "fill" file set, content of stream 0)
    /// until `fraction` of the user space holds data, through the same write path at time 0,
    /// so segments and device mapping are in steady state. Returns blocks written.
    pub fn fill(
        &mut self,
        ctx: &mut FsCtx<'_>,
        fraction: f64,
        stop: &mut Interrupt<'_>,
    ) -> Result<u64> {
        let fraction = if fraction.is_finite() {
            fraction.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let target = (fraction * self.user_blocks as f64) as u64;
        let mut written = 0;
        while self.seg.total_valid < target {
            let want = (target - self.seg.total_valid).min(FILL_FILE_BLOCKS);
            let key = NS_FILL | self.fill_files;
            self.fill_files += 1;
            let fi = self.create(key, FileAttrs::default(), 0);
            let id = FILL_ID_BASE.wrapping_add(self.fill_next_id);
            self.fill_next_id += want;
            let before = self.seg.total_valid;
            self.begin(SimTime::ZERO);
            self.write(ctx, fi, 0, want * BLOCK, Ids::Seq(id))?;
            let d = self.end(ctx)?;
            if d.failed || self.seg.total_valid <= before {
                break;
            }
            written += want;
            stop.poll_by(want as u32)?;
        }
        // A prefilled file system was synced: its node blocks are on the disk.
        self.checkpoint(ctx, SimTime::ZERO)?;
        Ok(written)
    }

    /// Extra reserved space granted by a space policy, in segments; the FS applies what it
    /// can (shrinking only removes free segments; the others go as they become free) and
    /// returns the extra segments now in effect.
    pub fn set_extra_rs_segments(&mut self, segments: u64) -> u64 {
        self.seg.set_extra(segments)
    }

    /// Key of the file a request of `stream` addresses: the stream's own file for
    /// block-level requests (`file == NO_FILE`), else workload file `file`.
    pub fn key_of(stream: usize, file: u32) -> u64 {
        if file == NO_FILE {
            NS_STREAM | stream as u64
        } else {
            NS_FILE | file as u64
        }
    }

    /// Size (bytes) of the file with key `key` as stored, if it exists.
    pub fn file_size(&self, key: u64) -> Option<u64> {
        let fi = *self.by_key.get(&key)?;
        Some(self.files[fi as usize].size)
    }

    /// Blocks `[c0, c0 + cluster_blocks)` when block `block` of file `key` lies in a
    /// host-compressed cluster (a read decompresses the whole cluster).
    pub fn compressed_cluster(&self, key: u64, block: u64) -> Option<(u64, u64)> {
        let fi = *self.by_key.get(&key)?;
        let f = self.files.get(fi as usize)?;
        let cb = self.cb as u64;
        let c0 = block / cb * cb;
        (block < f.len() && f.compressed(c0 as usize)).then_some((c0, c0 + cb))
    }

    /// Blocks per compression cluster.
    pub fn cluster_blocks(&self) -> u64 {
        self.cb as u64
    }

    /// Counters.
    pub fn counters(&self) -> FsCounters {
        self.counters
    }

    /// Segments in use: the partition's plus the extra reserved segments in effect.
    pub fn segments_total(&self) -> u64 {
        self.seg.n_part as u64 + self.seg.extra_enabled
    }

    /// Free segments.
    pub fn free_segments(&self) -> u64 {
        self.seg.free
    }

    /// Reserved segments of the partition (`ceil(rs_ratio × partition segments)`).
    pub fn rs_segments(&self) -> u64 {
        self.rs
    }

    /// Extra reserved segments in effect.
    pub fn extra_rs_segments(&self) -> u64 {
        self.seg.extra_enabled
    }

    /// Blocks user data may occupy: `(partition segments - rs segments) × segment_blocks`.
    pub fn user_blocks(&self) -> u64 {
        self.user_blocks
    }

    /// Valid blocks on the disk (user data as stored).
    pub fn valid_blocks(&self) -> u64 {
        self.seg.total_valid
    }

    /// Check the metadata: valid counts equal bitmap popcounts equal reverse-map owners,
    /// every file block with a block maps to a valid slot owned by it, host-compressed
    /// clusters are laid out as F2FS does, free-segment accounting, logs.
    pub fn check_invariants(&self) -> Result<()> {
        let err = |m: String| Error::State(format!("file system invariant: {m}"));
        self.seg.check().map_err(err)?;
        let cb = self.cb as usize;
        let mut mapped = 0u64;
        for (fi, f) in self.files.iter().enumerate() {
            if !f.live {
                continue;
            }
            for c0 in (0..f.addr.len()).step_by(cb) {
                let compressed = f.compressed(c0);
                let n = if compressed { f.stored(c0, cb) } else { 0 };
                if compressed && n == 0 {
                    return Err(err(format!("file {fi} cluster at {c0}: no stored block")));
                }
                for i in c0..c0 + cb {
                    let k = f.kind[i] & KIND;
                    let expect_ok = if compressed {
                        match i - c0 {
                            0 => k == K_HEAD,
                            j if j <= n => k == K_STORED,
                            _ => k == K_NULL,
                        }
                    } else {
                        matches!(k, K_HOLE | K_DEV | K_SKIP | K_HRAW)
                            && (k == K_HOLE) == (f.kind[i] & DATA == 0)
                    };
                    if !expect_ok {
                        return Err(err(format!("file {fi} block {i}: bad slot kind {k}")));
                    }
                    if has_block(k) {
                        let a = f.addr[i];
                        if a == NONE
                            || !self.seg.is_valid(a)
                            || self.seg.owner_of(a) != pack(fi as u32, i as u32)
                        {
                            return Err(err(format!(
                                "file {fi} block {i}: address {a} is not a valid slot it owns"
                            )));
                        }
                        mapped += 1;
                    } else if f.addr[i] != NONE {
                        return Err(err(format!("file {fi} block {i}: address without block")));
                    }
                }
            }
        }
        if mapped != self.seg.total_valid {
            return Err(err(format!(
                "{mapped} file blocks mapped but {} valid slots",
                self.seg.total_valid
            )));
        }
        if self.seg.total_valid > self.user_blocks {
            return Err(err(format!(
                "{} valid blocks exceed the user space of {}",
                self.seg.total_valid, self.user_blocks
            )));
        }
        for (l, log) in self.logs.iter().enumerate() {
            if log.seg != NONE && self.seg.state[log.seg as usize] != SegState::Open {
                return Err(err(format!("log {l}: current segment not open")));
            }
        }
        let open = self
            .seg
            .state
            .iter()
            .filter(|s| **s == SegState::Open)
            .count();
        if open != self.logs.iter().filter(|l| l.seg != NONE).count() {
            return Err(err(format!("{open} open segments without a log")));
        }
        Ok(())
    }

    // ---- requests -------------------------------------------------------------------

    fn begin(&mut self, now: SimTime) {
        self.seg.clock = now.0;
        self.t_floor = now;
        self.acc_done = now;
        self.acc_failed = false;
    }

    fn end(&mut self, ctx: &mut FsCtx<'_>) -> Result<FsDone> {
        self.wflush(ctx)?;
        self.rflush(ctx)?;
        self.flush_seg_trims(ctx)?;
        Ok(FsDone {
            // Every call costs at least the system-call path, so a closed loop of requests
            // that do no I/O (reads past the end of a file) still advances time.
            done: self.acc_done.max(self.t_floor + FS_CALL_NS),
            failed: self.acc_failed,
        })
    }

    fn touch(&mut self, fi: u32) {
        let f = &mut self.files[fi as usize];
        f.accesses = f.accesses.saturating_add(1);
    }

    fn view(&self, fi: u32) -> FileView {
        let f = &self.files[fi as usize];
        FileView {
            attrs: f.attrs,
            accesses: f.accesses,
            sample_ratio: f.sample_ratio,
        }
    }

    fn create(&mut self, key: u64, attrs: FileAttrs, stream: u32) -> u32 {
        let f = File::new(key, attrs, stream);
        let fi = match self.free_files.pop() {
            Some(fi) => {
                self.files[fi as usize] = f;
                fi
            }
            None => {
                self.files.push(f);
                (self.files.len() - 1) as u32
            }
        };
        self.by_key.insert(key, fi);
        self.counters.files_created += 1;
        fi
    }

    fn stream_file(&mut self, stream: usize) -> u32 {
        if let Some(&fi) = self.stream_files.get(stream) {
            if fi != NONE {
                return fi;
            }
        }
        let fi = self.create(
            NS_STREAM | stream as u64,
            FileAttrs::default(),
            stream as u32,
        );
        if self.stream_files.len() <= stream {
            self.stream_files.resize(stream + 1, NONE);
        }
        self.stream_files[stream] = fi;
        fi
    }

    fn log_of(&self, fi: u32) -> usize {
        match self.files[fi as usize].attrs.hotness() {
            Hotness::Hot => HOT,
            Hotness::Warm => WARM,
            Hotness::Cold => COLD,
        }
    }

    fn fail(&mut self, enospc: bool) {
        self.acc_failed = true;
        if enospc {
            self.counters.enospc += 1;
        }
    }

    // ---- write path -----------------------------------------------------------------

    fn write(
        &mut self,
        ctx: &mut FsCtx<'_>,
        fi: u32,
        offset: u64,
        len: u64,
        ids: Ids<'_>,
    ) -> Result<()> {
        if len == 0 {
            return Ok(());
        }
        let b0 = offset / BLOCK;
        let b1 = offset.saturating_add(len).div_ceil(BLOCK);
        if b1 > self.max_file_blocks {
            self.fail(true);
            return Ok(());
        }
        let cb = self.cb as u64;
        self.files[fi as usize].ensure(b1, cb);
        // The file's view does not change within a request: one placement decision.
        let side = ctx.policy.compress_side(&self.view(fi));
        // Upper bound of the valid blocks this write adds.
        let mut net: i64 = 0;
        {
            let f = &self.files[fi as usize];
            let mut b = b0;
            while b < b1 {
                let c0 = (b / cb * cb) as usize;
                let (lo, hi) = (b as usize, (b1.min(c0 as u64 + cb)) as usize);
                if side == CompressSide::Host || f.compressed(c0) {
                    let outside = (c0..c0 + cb as usize)
                        .filter(|&i| (i < lo || i >= hi) && f.kind[i] & DATA != 0)
                        .count();
                    let phys = (c0..c0 + cb as usize)
                        .filter(|&i| has_block(f.kind[i]))
                        .count();
                    net += (outside + hi - lo) as i64 - phys as i64;
                } else {
                    net += (lo..hi).filter(|&i| !has_block(f.kind[i])).count() as i64;
                }
                b = hi as u64;
            }
        }
        // Dirty node blocks will take space when the next checkpoint writes them, and so will
        // the node blocks this write dirties (those of its clusters), which are not yet counted.
        let nodes = if self.nodes.enabled {
            let (first, last) = (b0 / cb * cb, (b1.div_ceil(cb) * cb).max(1) - 1);
            self.nodes.dirty_count() as i64
                + (node::node_index(last) - node::node_index(first)) as i64
                + 1
        } else {
            0
        };
        if self.seg.total_valid as i64 + net + nodes > self.user_blocks as i64 {
            self.fail(true);
            return Ok(());
        }
        self.counters.user_blocks_written += b1 - b0;
        let end = offset + len;
        {
            let f = &mut self.files[fi as usize];
            f.size = f.size.max(end);
        }
        let mut b = b0;
        while b < b1 {
            let c0 = (b / cb * cb) as usize;
            let (lo, hi) = (b as usize, (b1.min(c0 as u64 + cb)) as usize);
            let ids = ids.from(b - b0);
            let ok = match side {
                CompressSide::Host => self.write_host(ctx, fi, c0, lo, hi, ids)?,
                _ => self.write_plain(ctx, fi, c0, lo, hi, ids, side)?,
            };
            if !ok {
                self.fail(true);
                break;
            }
            b = hi as u64;
        }
        self.update_sample(ctx, fi);
        Ok(())
    }

    /// Device or skip side: raw blocks. A host-compressed cluster is decompressed first
    /// (read-modify-write when it keeps data outside the update) and rewritten raw.
    #[allow(clippy::too_many_arguments)]
    fn write_plain(
        &mut self,
        ctx: &mut FsCtx<'_>,
        fi: u32,
        c0: usize,
        lo: usize,
        hi: usize,
        ids: Ids<'_>,
        side: CompressSide,
    ) -> Result<bool> {
        let cb = self.cb as usize;
        let (kind, flags) = if side == CompressSide::Skip {
            (K_SKIP, BioFlags::INCOMPRESSIBLE)
        } else {
            (K_DEV, BioFlags::NONE)
        };
        let log = self.log_of(fi);
        let stream = self.files[fi as usize].stream;
        let mut t_ready = self.t_floor;
        let (from, to) = if self.files[fi as usize].compressed(c0) {
            let f = &self.files[fi as usize];
            let others = (c0..c0 + cb).any(|i| (i < lo || i >= hi) && f.kind[i] & DATA != 0);
            if others {
                t_ready = self.read_compressed(ctx, fi, c0)?;
                self.counters.rmw_clusters += 1;
            }
            self.free_blocks(fi, c0, c0 + cb);
            (c0, c0 + cb)
        } else {
            self.free_blocks(fi, lo, hi);
            (lo, hi)
        };
        {
            let f = &mut self.files[fi as usize];
            for i in lo..hi {
                f.content[i] = ids.at((i - lo) as u64);
                f.kind[i] |= DATA;
            }
        }
        for i in from..to {
            let f = &mut self.files[fi as usize];
            if f.kind[i] & DATA == 0 {
                continue;
            }
            f.kind[i] = kind | DATA;
            let id = f.content[i];
            let Some(lba) = self.place(ctx, fi, i, log, id, stream)? else {
                self.drop_cluster(fi, c0);
                return Ok(false);
            };
            let t = self.t_floor.max(t_ready);
            self.wpush(ctx, lba, id, flags, stream, t)?;
            if side == CompressSide::Skip {
                self.counters.compress_blocks_skipped += 1;
            } else {
                self.counters.compress_blocks_device += 1;
            }
        }
        Ok(true)
    }

    /// Host side: the whole cluster is compressed on a writeback context and stored in
    /// `ceil(size / 4096)` blocks, or raw when that saves no block.
    fn write_host(
        &mut self,
        ctx: &mut FsCtx<'_>,
        fi: u32,
        c0: usize,
        lo: usize,
        hi: usize,
        ids: Ids<'_>,
    ) -> Result<bool> {
        let cb = self.cb as usize;
        let log = self.log_of(fi);
        let stream = self.files[fi as usize].stream;
        let mut t_ready = self.t_floor;
        {
            let f = &self.files[fi as usize];
            let others = (c0..c0 + cb).any(|i| (i < lo || i >= hi) && f.kind[i] & DATA != 0);
            if others {
                self.counters.rmw_clusters += 1;
                if f.compressed(c0) {
                    t_ready = t_ready.max(self.read_compressed(ctx, fi, c0)?);
                } else {
                    self.io_max = SimTime::ZERO;
                    for i in (c0..c0 + cb).filter(|&i| i < lo || i >= hi) {
                        let f = &self.files[fi as usize];
                        if has_block(f.kind[i]) {
                            let a = f.addr[i];
                            self.rpush(ctx, a, BioFlags::NONE, stream, t_ready)?;
                        }
                    }
                    self.rflush(ctx)?;
                    t_ready = t_ready.max(self.io_max);
                }
            }
        }
        {
            let f = &mut self.files[fi as usize];
            for i in lo..hi {
                f.content[i] = ids.at((i - lo) as u64);
                f.kind[i] |= DATA;
            }
        }
        let data = self.files[fi as usize].data_blocks(c0, cb);
        let size = self.cluster_size(ctx, fi, c0);
        let bytes = data as u64 * BLOCK;
        let ns = self
            .host_cost
            .compress_ns_scaled(bytes, self.host_factor(bytes, size, true))
            + self.overhead_ns;
        let t_c = ctx.cpu.compress(t_ready, ns, cb as u64 * BLOCK);
        self.counters.compress_blocks_host += data as u64;
        self.free_blocks(fi, c0, c0 + cb);
        let stored = size.map_or(data, |s| (s as u64).div_ceil(BLOCK) as usize);
        if stored < data {
            self.counters.clusters_host_compressed += 1;
            let id = self.files[fi as usize].stored_id(c0);
            {
                let f = &mut self.files[fi as usize];
                for (j, k) in f.kind[c0..c0 + cb].iter_mut().enumerate() {
                    let phys = match j {
                        0 => K_HEAD,
                        j if j <= stored => K_STORED,
                        _ => K_NULL,
                    };
                    *k = (*k & DATA) | phys;
                }
            }
            for i in c0 + 1..=c0 + stored {
                let Some(lba) = self.place(ctx, fi, i, log, id, stream)? else {
                    self.drop_cluster(fi, c0);
                    return Ok(false);
                };
                let t = self.t_floor.max(t_c);
                self.wpush(ctx, lba, id, BioFlags::HOST_COMPRESSED, stream, t)?;
            }
        } else {
            self.counters.clusters_host_raw += 1;
            for i in c0..c0 + cb {
                let f = &mut self.files[fi as usize];
                if f.kind[i] & DATA == 0 {
                    continue;
                }
                f.kind[i] = K_HRAW | DATA;
                let id = f.content[i];
                let Some(lba) = self.place(ctx, fi, i, log, id, stream)? else {
                    self.drop_cluster(fi, c0);
                    return Ok(false);
                };
                let t = self.t_floor.max(t_c);
                self.wpush(ctx, lba, id, BioFlags::INCOMPRESSIBLE, stream, t)?;
            }
        }
        Ok(true)
    }

    /// Host-codec output bytes of the cluster at `c0`: the sum over its runs of data blocks
    /// with consecutive content ids (one run for a cluster written at once). `None` without
    /// a content model.
    fn cluster_size(&mut self, ctx: &mut FsCtx<'_>, fi: u32, c0: usize) -> Option<u32> {
        let m = self.host_measure?;
        let content = ctx.content.as_deref_mut()?;
        let f = &self.files[fi as usize];
        let cb = self.cb as usize;
        let mut total = 0u32;
        let mut i = c0;
        while i < c0 + cb {
            if f.kind[i] & DATA == 0 {
                i += 1;
                continue;
            }
            let first = f.content[i];
            let mut n = 1;
            while i + n < c0 + cb
                && f.kind[i + n] & DATA != 0
                && f.content[i + n] == crate::content::nth_id(first, n as u64)
            {
                n += 1;
            }
            total += content.unit_size(m, f.stream as usize, first, n);
            i += n;
        }
        Some(total)
    }

    /// COCO's sample ratio, once the file's first blocks hold data.
    fn update_sample(&mut self, ctx: &mut FsCtx<'_>, fi: u32) {
        let n = self.sample_blocks as usize;
        let f = &self.files[fi as usize];
        if f.sample_ratio.is_some() || f.addr.len() < n || f.kind[..n].iter().any(|k| k & DATA == 0)
        {
            return;
        }
        let (Some(m), Some(content)) = (self.host_measure, ctx.content.as_deref_mut()) else {
            return;
        };
        let size = content.unit_size(m, f.stream as usize, f.content[0], n);
        let ratio = (n as u64 * BLOCK) as f64 / size.max(1) as f64;
        self.files[fi as usize].sample_ratio = Some(ratio);
    }

    /// Invalidate the blocks of file slots `[from, to)`; their kinds become holes (data flags
    /// kept).
    fn free_blocks(&mut self, fi: u32, from: usize, to: usize) {
        let f = &mut self.files[fi as usize];
        for i in from..to {
            if has_block(f.kind[i]) {
                self.seg.invalidate(f.addr[i]);
                f.addr[i] = NONE;
            }
            f.kind[i] &= DATA;
        }
    }

    /// A cluster whose write could not be placed loses its data (consistently).
    fn drop_cluster(&mut self, fi: u32, c0: usize) {
        let cb = self.cb as usize;
        let f = &mut self.files[fi as usize];
        for i in c0..c0 + cb {
            if f.addr[i] != NONE {
                self.seg.invalidate(f.addr[i]);
                f.addr[i] = NONE;
            }
            f.kind[i] = K_HOLE;
        }
    }

    /// Allocate a slot in `log` for file block `(fi, idx)`, to hold content `id` of stream
    /// `stream`, and map it.
    fn place(
        &mut self,
        ctx: &mut FsCtx<'_>,
        fi: u32,
        idx: usize,
        log: usize,
        id: u64,
        stream: u32,
    ) -> Result<Option<u32>> {
        let Some(lba) = self.alloc(ctx, log, id, stream)? else {
            return Ok(None);
        };
        self.seg.set_valid(lba, pack(fi, idx as u32));
        self.files[fi as usize].addr[idx] = lba;
        self.node_dirty(fi, idx as u32);
        Ok(Some(lba))
    }

    /// Next slot of `log`: append, or the next hole under thread logging; takes a new
    /// segment (cleaning first when free segments are low) when the current one is used up.
    /// On a zoned device the block's content `id` (of workload stream `stream`) is what the
    /// zone is asked to take: a zone that filled before the section's end (its capacity
    /// follows what its data compresses to) closes the section there, as F2FS treats the
    /// blocks of a zone past its capacity, and the block goes to a new section.
    fn alloc(
        &mut self,
        ctx: &mut FsCtx<'_>,
        log: usize,
        id: u64,
        stream: u32,
    ) -> Result<Option<u32>> {
        let s = self.seg.s;
        loop {
            let l = self.logs[log];
            if l.seg != NONE {
                if !l.ssr {
                    if l.cursor < s
                        && self.zoned
                        && !ctx.disk.zone_admit(
                            l.seg as u64,
                            stream,
                            id,
                            ctx.content.as_deref_mut(),
                        )?
                    {
                        if l.cursor == 0 {
                            return Err(Error::State(format!(
                                "zone {} took no block though its section was empty",
                                l.seg
                            )));
                        }
                        // Its blocks still coalescing go first; then the zone is finished.
                        self.wflush(ctx)?;
                        let d = ctx.disk.finish_zone(l.seg as u64, self.t_floor)?;
                        self.note(d.done, d.failed);
                        self.counters.zone_sections_closed_early += 1;
                        self.counters.zone_blocks_unused += (s - l.cursor) as u64;
                    } else if l.cursor < s {
                        self.logs[log].cursor += 1;
                        return Ok(Some(l.seg * s + l.cursor));
                    }
                } else if let Some(off) = self.seg.next_hole(l.seg, l.cursor) {
                    self.logs[log].cursor = off + 1;
                    self.counters.ssr_blocks += 1;
                    return Ok(Some(l.seg * s + off));
                }
                self.logs[log].seg = NONE;
                self.seg.close(l.seg);
            }
            if !self.open_segment(ctx, log)? {
                return Ok(None);
            }
        }
    }

    fn open_segment(&mut self, ctx: &mut FsCtx<'_>, log: usize) -> Result<bool> {
        if !self.in_cleaning && self.need_cleaning() {
            self.clean(ctx)?;
            if self.logs[log].seg != NONE {
                // cleaning opened a segment for this log (the cold log)
                return Ok(true);
            }
        }
        if log != NODE_LOG && self.need_ssr() {
            if let Some(seg) = self.seg.take_min_valid(SegState::Open) {
                self.logs[log] = Log {
                    seg,
                    cursor: 0,
                    ssr: true,
                };
                return Ok(true);
            }
        }
        if let Some(seg) = self.seg.pop_free() {
            if !self.seg.newly_freed.is_empty() {
                self.flush_seg_trims(ctx)?;
            }
            self.logs[log] = Log {
                seg,
                cursor: 0,
                ssr: false,
            };
            return Ok(true);
        }
        if self.zoned {
            // No thread logging into a zone's holes, not even as the last resort.
            return Ok(false);
        }
        if let Some(seg) = self.seg.take_min_valid(SegState::Open) {
            self.logs[log] = Log {
                seg,
                cursor: 0,
                ssr: true,
            };
            return Ok(true);
        }
        Ok(false)
    }

    // ---- read path ------------------------------------------------------------------

    /// Host-time factor of (de)compressing `bytes` that compress to `size` with the host codec
    /// (1 unless `ratio_speed` applies).
    fn host_factor(&self, bytes: u64, size: Option<u32>, compress: bool) -> f64 {
        match (self.ratio_speed, size) {
            (Some((host, _)), Some(s)) => {
                let (c, d) = generated_content_factor(host, bytes as f64 / s.max(1) as f64);
                if compress {
                    c
                } else {
                    d
                }
            }
            _ => 1.0,
        }
    }

    /// Read the stored blocks of the host-compressed cluster at `c0` and decompress it on a
    /// host core; returns when the data is ready.
    fn read_compressed(&mut self, ctx: &mut FsCtx<'_>, fi: u32, c0: usize) -> Result<SimTime> {
        let cb = self.cb as usize;
        let t = self.t_floor;
        let (stream, n, data) = {
            let f = &self.files[fi as usize];
            (f.stream, f.stored(c0, cb), f.data_blocks(c0, cb))
        };
        self.rflush(ctx)?;
        self.io_max = SimTime::ZERO;
        for i in c0 + 1..=c0 + n {
            let a = self.files[fi as usize].addr[i];
            self.rpush(ctx, a, BioFlags::HOST_COMPRESSED, stream, t)?;
        }
        self.rflush(ctx)?;
        let bytes = data as u64 * BLOCK;
        // The cluster's compressed size only matters when host time follows the ratio.
        let size = match self.ratio_speed {
            Some(_) => self.cluster_size(ctx, fi, c0),
            None => None,
        };
        let ns = self
            .host_cost
            .decompress_ns_scaled(bytes, self.host_factor(bytes, size, false))
            + self.overhead_ns;
        let done = ctx
            .cpu
            .decompress(self.io_max.max(t), ns, data as u64 * BLOCK);
        self.counters.decompress_blocks_host += data as u64;
        self.acc_done = self.acc_done.max(done);
        Ok(done)
    }

    fn read(&mut self, ctx: &mut FsCtx<'_>, fi: u32, offset: u64, len: u64) -> Result<()> {
        let f = &self.files[fi as usize];
        let end = offset.saturating_add(len).min(f.size);
        if offset >= end {
            return Ok(());
        }
        let b0 = offset / BLOCK;
        let b1 = end.div_ceil(BLOCK).min(f.len());
        self.counters.user_blocks_read += b1.saturating_sub(b0);
        let host_dec = ctx.policy.decompress_side(&self.view(fi)) == DecompressSide::Host;
        let cb = self.cb as u64;
        let stream = f.stream;
        let t = self.t_floor;
        let mut b = b0;
        while b < b1 {
            let c0 = (b / cb * cb) as usize;
            let (lo, hi) = (b as usize, (b1.min(c0 as u64 + cb)) as usize);
            let f = &self.files[fi as usize];
            if f.compressed(c0) {
                if (lo..hi).any(|i| f.kind[i] & DATA != 0) {
                    self.read_compressed(ctx, fi, c0)?;
                }
            } else {
                for i in lo..hi {
                    let f = &self.files[fi as usize];
                    let k = f.kind[i] & KIND;
                    if !has_block(k) {
                        continue;
                    }
                    let a = f.addr[i];
                    let flags = if k == K_DEV {
                        if host_dec {
                            self.counters.decompress_blocks_host += 1;
                            BioFlags::HOST_DECOMPRESS
                        } else {
                            self.counters.decompress_blocks_device += 1;
                            BioFlags::NONE
                        }
                    } else {
                        BioFlags::NONE
                    };
                    self.rpush(ctx, a, flags, stream, t)?;
                }
            }
            b = hi as u64;
        }
        self.rflush(ctx)
    }

    // ---- trim and delete ------------------------------------------------------------

    /// Punch a hole: blocks wholly inside the range lose their data. Raw blocks are freed;
    /// a host-compressed cluster is freed once none of its blocks holds data.
    fn punch(&mut self, ctx: &mut FsCtx<'_>, fi: u32, offset: u64, len: u64) -> Result<()> {
        let f = &self.files[fi as usize];
        let b0 = offset.div_ceil(BLOCK);
        let b1 = (offset.saturating_add(len) / BLOCK).min(f.len());
        let cb = self.cb as u64;
        let mut trims: Vec<u32> = Vec::new();
        let mut b = b0;
        while b < b1 {
            let c0 = (b / cb * cb) as usize;
            let (lo, hi) = (b as usize, (b1.min(c0 as u64 + cb)) as usize);
            let f = &mut self.files[fi as usize];
            if f.compressed(c0) {
                for k in &mut f.kind[lo..hi] {
                    *k &= !DATA;
                }
                if f.data_blocks(c0, cb as usize) == 0 {
                    for i in c0..c0 + cb as usize {
                        if has_block(f.kind[i]) {
                            trims.push(f.addr[i]);
                            self.seg.invalidate(f.addr[i]);
                            f.addr[i] = NONE;
                        }
                        f.kind[i] = K_HOLE;
                    }
                }
            } else {
                for i in lo..hi {
                    if has_block(f.kind[i]) {
                        trims.push(f.addr[i]);
                        self.seg.invalidate(f.addr[i]);
                        f.addr[i] = NONE;
                    }
                    f.kind[i] = K_HOLE;
                }
            }
            b = hi as u64;
        }
        let stream = self.files[fi as usize].stream;
        self.trim_lbas(ctx, &mut trims, stream)
    }

    fn delete(&mut self, ctx: &mut FsCtx<'_>, fi: u32) -> Result<()> {
        self.node_drop_file(fi);
        let mut trims: Vec<u32> = Vec::new();
        let f = &mut self.files[fi as usize];
        for i in 0..f.addr.len() {
            if has_block(f.kind[i]) {
                trims.push(f.addr[i]);
                self.seg.invalidate(f.addr[i]);
            }
        }
        let stream = f.stream;
        let key = f.key;
        *f = File::new(key, FileAttrs::default(), stream);
        f.live = false;
        self.by_key.remove(&key);
        self.free_files.push(fi);
        self.counters.files_deleted += 1;
        self.trim_lbas(ctx, &mut trims, stream)
    }

    /// Discard `lbas` (coalesced into ranges) now; the request waits for it.
    fn trim_lbas(&mut self, ctx: &mut FsCtx<'_>, lbas: &mut [u32], stream: u32) -> Result<()> {
        if self.zoned {
            // Blocks inside a zone cannot be discarded; their section is reset once free.
            return Ok(());
        }
        lbas.sort_unstable();
        let t = self.t_floor;
        let mut i = 0;
        while i < lbas.len() {
            let mut n = 1;
            while i + n < lbas.len() && lbas[i + n] == lbas[i] + n as u32 {
                n += 1;
            }
            let bio = Bio {
                op: BioOp::Trim,
                lba: lbas[i] as u64,
                blocks: n as u32,
                flags: BioFlags::NONE,
                stream,
                content: &[],
            };
            let d = ctx.disk.submit(&bio, t, ctx.content.as_deref_mut())?;
            self.note(d.done, d.failed);
            self.counters.fs_blocks_trimmed += n as u64;
            i += n;
        }
        Ok(())
    }

    /// Discard the segments freed since the last call, or on a zoned device reset their
    /// zones (asynchronously: nobody waits; a later write into the zone waits for its
    /// erases on the flash).
    fn flush_seg_trims(&mut self, ctx: &mut FsCtx<'_>) -> Result<()> {
        let s = self.seg.s;
        let t = self.t_floor;
        if self.zoned && !self.seg.newly_freed.is_empty() {
            // Writes still coalescing may be for a zone about to be reset: they go first.
            self.wflush(ctx)?;
            self.rflush(ctx)?;
        }
        let segs = std::mem::take(&mut self.seg.newly_freed);
        for &seg in &segs {
            if self.zoned {
                ctx.disk.reset_zone(seg as u64, t)?;
                self.counters.zone_resets += 1;
                continue;
            }
            let bio = Bio {
                op: BioOp::Trim,
                lba: seg as u64 * s as u64,
                blocks: s,
                flags: BioFlags::NONE,
                stream: 0,
                content: &[],
            };
            ctx.disk.submit(&bio, t, ctx.content.as_deref_mut())?;
            self.counters.fs_blocks_trimmed += s as u64;
        }
        let mut segs = segs;
        segs.clear();
        self.seg.newly_freed = segs;
        Ok(())
    }

    // ---- bio coalescing -------------------------------------------------------------

    fn note(&mut self, done: SimTime, failed: bool) {
        self.acc_done = self.acc_done.max(done);
        self.io_max = self.io_max.max(done);
        if failed {
            self.acc_failed = true;
            self.counters.failed_ios += 1;
        }
    }

    fn wpush(
        &mut self,
        ctx: &mut FsCtx<'_>,
        lba: u32,
        id: u64,
        flags: BioFlags,
        stream: u32,
        t: SimTime,
    ) -> Result<()> {
        let w = &self.wbuf;
        let n = w.ids.len() as u32;
        // On a zoned device a block I/O stays inside one zone.
        let boundary = self.zoned && lba.is_multiple_of(self.seg.s);
        if n > 0
            && (boundary
                || w.lba.wrapping_add(n) != lba
                || w.flags != flags
                || w.stream != stream
                || w.t != t
                || n >= 1024)
        {
            self.wflush(ctx)?;
        }
        let w = &mut self.wbuf;
        if w.ids.is_empty() {
            w.lba = lba;
            w.flags = flags;
            w.stream = stream;
            w.t = t;
        }
        w.ids.push(id);
        Ok(())
    }

    fn wflush(&mut self, ctx: &mut FsCtx<'_>) -> Result<()> {
        if self.wbuf.ids.is_empty() {
            return Ok(());
        }
        let w = &self.wbuf;
        let bio = Bio {
            op: BioOp::Write,
            lba: w.lba as u64,
            blocks: w.ids.len() as u32,
            flags: w.flags,
            stream: w.stream,
            content: &w.ids,
        };
        let d = ctx.disk.submit(&bio, w.t, ctx.content.as_deref_mut())?;
        self.counters.fs_blocks_written += w.ids.len() as u64;
        self.wbuf.ids.clear();
        self.note(d.done, d.failed);
        Ok(())
    }

    fn rpush(
        &mut self,
        ctx: &mut FsCtx<'_>,
        lba: u32,
        flags: BioFlags,
        stream: u32,
        t: SimTime,
    ) -> Result<()> {
        let r = self.rbuf;
        let boundary = self.zoned && lba.is_multiple_of(self.seg.s);
        if r.n > 0
            && (boundary
                || r.lba.wrapping_add(r.n) != lba
                || r.flags != flags
                || r.stream != stream
                || r.t != t
                || r.n >= 1024)
        {
            self.rflush(ctx)?;
        }
        let r = &mut self.rbuf;
        if r.n == 0 {
            *r = RBuf {
                lba,
                n: 0,
                flags,
                stream,
                t,
            };
        }
        r.n += 1;
        Ok(())
    }

    fn rflush(&mut self, ctx: &mut FsCtx<'_>) -> Result<()> {
        let r = self.rbuf;
        if r.n == 0 {
            return Ok(());
        }
        self.rbuf.n = 0;
        let bio = Bio {
            op: BioOp::Read,
            lba: r.lba as u64,
            blocks: r.n,
            flags: r.flags,
            stream: r.stream,
            content: &[],
        };
        let d = ctx.disk.submit(&bio, r.t, ctx.content.as_deref_mut())?;
        self.counters.fs_blocks_read += r.n as u64;
        let mut done = d.done;
        if r.flags.has(BioFlags::HOST_DECOMPRESS) && d.host_decompress_bytes > 0 {
            let factor = match self.ratio_speed {
                Some((_, engine)) => {
                    let ratio =
                        d.host_decompress_bytes as f64 / d.host_decompress_stored.max(1) as f64;
                    generated_content_factor(engine, ratio).1
                }
                None => 1.0,
            };
            let ns = self
                .engine_host_cost
                .decompress_ns_scaled(d.host_decompress_bytes, factor)
                + self.overhead_ns;
            done = ctx.cpu.decompress(done, ns, d.host_decompress_bytes);
        }
        self.note(done, d.failed);
        Ok(())
    }
}
