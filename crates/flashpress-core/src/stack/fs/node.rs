//! Node blocks and checkpoints (F2FS `node.c`, `checkpoint.c`).
//!
//! - **Node blocks.** A file's data addresses live in its inode (the first
//!   `ADDRS_PER_INODE` = 923 blocks) and in direct node blocks (`ADDRS_PER_BLOCK` = 1018
//!   each). Giving a data block a new address (a write, or cleaning moving it) dirties the
//!   node block holding it; dirty node blocks are written, each once however often it was
//!   dirtied, at the next checkpoint, to the node log (appending to free segments: F2FS
//!   never thread-logs warm nodes). Node blocks are valid blocks of the main area like data:
//!   they take user space and cleaning moves them. Indirect nodes are not modelled: thanks
//!   to the NAT a moved direct node does not dirty them, and they change only when a file
//!   first grows into a new direct node's range.
//! - **Checkpoints** run every `stack.fs.meta.cp_interval_ms` (F2FS `DEF_CP_INTERVAL`), when
//!   the dirty node blocks reach `stack.fs.meta.excess_dirty_nodes` if set (the
//!   `excess_dirty_nodes` rule of kernels 4.10-5.11: eight segments), and on
//!   [`Fs::sync`]. A checkpoint writes the dirty node blocks, then the NAT blocks holding the
//!   dirty NAT entries (moved node blocks) and the SIT blocks holding the dirty segment
//!   entries when they overflow the journals in the summary blocks (38 NAT, 6 SIT entries),
//!   then the checkpoint pack (`CP_PACK_BLOCKS`). The NAT, SIT and checkpoint areas are
//!   fixed, in-place-updated areas past the main area's largest extent on the device.
//! - Every block goes through the same bios as data, so the device's NAND programs — and the
//!   WAF, NAND bytes programmed over host bytes written — count them as the seed's WAF does.

use super::files::{File, DATA, K_DEV};
use super::segments::NONE;
use super::{Fs, FsCtx, NODE_LOG};
use crate::error::Result;
use crate::stack::bio::{BioFlags, BLOCK};
use crate::units::SimTime;
use crate::workload::FileAttrs;
use std::collections::HashMap;

/// Data addresses in an inode (F2FS `DEF_ADDRS_PER_INODE`).
pub(super) const ADDRS_PER_INODE: u64 = 923;
/// Data addresses in a direct node block (F2FS `DEF_ADDRS_PER_BLOCK`).
pub(super) const ADDRS_PER_BLOCK: u64 = 1018;
/// NAT entries per NAT block (F2FS `NAT_ENTRY_PER_BLOCK`).
const NAT_ENTRY_PER_BLOCK: u64 = 455;
/// SIT entries per SIT block (F2FS `SIT_ENTRY_PER_BLOCK`).
const SIT_ENTRY_PER_BLOCK: u64 = 55;
/// NAT entries the hot-data summary's journal holds (F2FS `NAT_JOURNAL_ENTRIES`).
const NAT_JOURNAL_ENTRIES: usize = 38;
/// SIT entries the cold-data summary's journal holds (F2FS `SIT_JOURNAL_ENTRIES`).
const SIT_JOURNAL_ENTRIES: usize = 6;
/// Blocks of a checkpoint pack: header, the three data logs' summary blocks, footer.
pub(super) const CP_PACK_BLOCKS: u64 = 5;
/// Namespace of the hidden file holding the node blocks.
pub(super) const NS_NODE: u64 = 4 << 40;
/// First content id of node and metadata blocks.
const META_ID_BASE: u64 = 0xF222_0000_0000_0000;

/// Node-block and checkpoint state.
#[derive(Debug, Clone)]
pub(super) struct Nodes {
    pub enabled: bool,
    /// The hidden file whose block `nid` is node `nid`.
    pub file: u32,
    nids: HashMap<(u32, u32), u32>,
    /// The last (file, node index) looked up and its nid: consecutive blocks share a node
    /// (1,018 per direct node), so most lookups skip the hash map.
    last: Option<((u32, u32), u32)>,
    free_nids: Vec<u32>,
    next_nid: u32,
    dirty: Vec<u32>,
    dirty_bit: Vec<bool>,
    dirty_n: usize,
    nat_dirty: Vec<u32>,
    nat_bit: Vec<bool>,
    next_id: u64,
    cp_interval_ns: u64,
    /// Dirty node blocks that force a checkpoint, if any do.
    excess: Option<u64>,
    /// When the next periodic checkpoint is due.
    pub next_cp: SimTime,
    /// First LBA of the checkpoint, SIT and NAT areas.
    meta_base: u64,
    sit_blocks: u64,
    cp_count: u64,
}

/// Blocks of the checkpoint, SIT and NAT areas for `main_blocks` blocks in `segments`
/// segments: two copies of each (F2FS alternates them), NAT sized for one node per block.
pub(super) fn meta_blocks(main_blocks: u64, segments: u64) -> u64 {
    2 * CP_PACK_BLOCKS
        + 2 * segments.div_ceil(SIT_ENTRY_PER_BLOCK)
        + 2 * main_blocks.div_ceil(NAT_ENTRY_PER_BLOCK)
}

/// Node index (0 = the inode) of data block `idx` of a file.
#[inline]
pub(super) fn node_index(idx: u64) -> u32 {
    if idx < ADDRS_PER_INODE {
        0
    } else {
        (1 + (idx - ADDRS_PER_INODE) / ADDRS_PER_BLOCK) as u32
    }
}

impl Nodes {
    pub(super) fn new(
        enabled: bool,
        cp_interval_ns: u64,
        excess: Option<u64>,
        meta_base: u64,
        segments: u64,
    ) -> Self {
        Nodes {
            enabled,
            file: NONE,
            nids: HashMap::new(),
            last: None,
            free_nids: Vec::new(),
            next_nid: 0,
            dirty: Vec::new(),
            dirty_bit: Vec::new(),
            dirty_n: 0,
            nat_dirty: Vec::new(),
            nat_bit: Vec::new(),
            next_id: 0,
            cp_interval_ns: cp_interval_ns.max(1),
            excess,
            next_cp: SimTime(cp_interval_ns.max(1)),
            meta_base,
            sit_blocks: segments.div_ceil(SIT_ENTRY_PER_BLOCK),
            cp_count: 0,
        }
    }

    /// Dirty node blocks.
    pub(super) fn dirty_count(&self) -> usize {
        self.dirty_n
    }

    fn mark(&mut self, nid: u32) {
        let i = nid as usize;
        if self.dirty_bit.len() <= i {
            self.dirty_bit.resize(i + 1, false);
            self.nat_bit.resize(i + 1, false);
        }
        if !self.dirty_bit[i] {
            self.dirty_bit[i] = true;
            self.dirty.push(nid);
            self.dirty_n += 1;
        }
    }

    fn mark_nat(&mut self, nid: u32) {
        if !self.nat_bit[nid as usize] {
            self.nat_bit[nid as usize] = true;
            self.nat_dirty.push(nid);
        }
    }
}

impl Fs {
    /// Data block `idx` of file `fi` got a new address: its node block is dirty.
    #[inline]
    pub(super) fn node_dirty(&mut self, fi: u32, idx: u32) {
        if !self.nodes.enabled || fi == self.nodes.file {
            return;
        }
        let k = node_index(idx as u64);
        let n = &mut self.nodes;
        let nid = match n.last {
            Some((key, nid)) if key == (fi, k) => nid,
            _ => {
                let nid = match n.nids.get(&(fi, k)) {
                    Some(&nid) => nid,
                    None => {
                        let nid = n.free_nids.pop().unwrap_or_else(|| {
                            n.next_nid += 1;
                            n.next_nid - 1
                        });
                        n.nids.insert((fi, k), nid);
                        nid
                    }
                };
                n.last = Some(((fi, k), nid));
                nid
            }
        };
        n.mark(nid);
    }

    /// File `fi` is being deleted: its node blocks are freed (and need no writing).
    pub(super) fn node_drop_file(&mut self, fi: u32) {
        if !self.nodes.enabled || fi == self.nodes.file {
            return;
        }
        if self.nodes.last.is_some_and(|((f, _), _)| f == fi) {
            self.nodes.last = None;
        }
        let len = self.files[fi as usize].len();
        let last = if len == 0 { 0 } else { node_index(len - 1) };
        for k in 0..=last {
            let Some(nid) = self.nodes.nids.remove(&(fi, k)) else {
                continue;
            };
            let i = nid as usize;
            if self.nodes.dirty_bit[i] {
                self.nodes.dirty_bit[i] = false;
                self.nodes.dirty_n -= 1;
            }
            let nf = self.nodes.file as usize;
            if nf != NONE as usize && i < self.files[nf].addr.len() {
                let a = self.files[nf].addr[i];
                if a != NONE {
                    self.seg.invalidate(a);
                    self.files[nf].addr[i] = NONE;
                    self.files[nf].kind[i] = 0;
                    self.nodes.mark_nat(nid);
                }
            }
            self.nodes.free_nids.push(nid);
        }
    }

    /// A node block moved (cleaning): its NAT entry is dirty.
    #[inline]
    pub(super) fn node_moved(&mut self, nid: u32) {
        self.nodes.mark_nat(nid);
    }

    /// Checkpoints due at `now`: the periodic one, or one forced by too many dirty nodes.
    pub(super) fn checkpoint_if_due(&mut self, ctx: &mut FsCtx<'_>, now: SimTime) -> Result<()> {
        if !self.nodes.enabled || self.in_cleaning {
            return Ok(());
        }
        let excess = self
            .nodes
            .excess
            .is_some_and(|e| self.nodes.dirty_n as u64 >= e);
        if now >= self.nodes.next_cp || excess {
            self.checkpoint(ctx, now)?;
        }
        Ok(())
    }

    /// Write a checkpoint at `now` (asynchronously: the caller's request does not wait).
    /// Returns the blocks written.
    pub(super) fn checkpoint(&mut self, ctx: &mut FsCtx<'_>, now: SimTime) -> Result<u64> {
        if !self.nodes.enabled {
            return Ok(0);
        }
        self.wflush(ctx)?;
        self.rflush(ctx)?;
        let before = self.counters.fs_blocks_written;
        let (floor, done, failed) = (self.t_floor, self.acc_done, self.acc_failed);
        self.t_floor = now;
        self.seg.clock = now.0;
        let r = self.checkpoint_io(ctx, now);
        self.wflush(ctx)?;
        self.flush_seg_trims(ctx)?;
        // Background work: the request in progress neither waits for nor fails by it.
        self.t_floor = floor;
        self.acc_done = done;
        self.acc_failed = failed;
        r?;
        self.nodes.next_cp = SimTime(now.0 + self.nodes.cp_interval_ns);
        self.counters.checkpoints += 1;
        Ok(self.counters.fs_blocks_written - before)
    }

    fn checkpoint_io(&mut self, ctx: &mut FsCtx<'_>, now: SimTime) -> Result<()> {
        // 1. the dirty node blocks, to the node log
        if self.nodes.file == NONE {
            let fi = self.create(NS_NODE, FileAttrs::default(), 0);
            self.nodes.file = fi;
        }
        let nf = self.nodes.file;
        let dirty = std::mem::take(&mut self.nodes.dirty);
        for &nid in &dirty {
            let i = nid as usize;
            if !self.nodes.dirty_bit[i] {
                continue; // its file was deleted
            }
            self.nodes.dirty_bit[i] = false;
            self.nodes.dirty_n -= 1;
            {
                let f: &mut File = &mut self.files[nf as usize];
                if f.addr.len() <= i {
                    f.ensure(i as u64 + 1, self.cb as u64);
                }
            }
            let old = self.files[nf as usize].addr[i];
            if old != NONE {
                self.seg.invalidate(old);
                self.files[nf as usize].addr[i] = NONE;
            }
            let id = META_ID_BASE.wrapping_add(self.nodes.next_id);
            self.nodes.next_id += 1;
            {
                let f = &mut self.files[nf as usize];
                f.kind[i] = K_DEV | DATA;
                f.content[i] = id;
            }
            let Some(lba) = self.place(ctx, nf, i, NODE_LOG, id, 0)? else {
                // no space even for metadata: the node stays dirty
                self.files[nf as usize].kind[i] = 0;
                self.nodes.mark(nid);
                continue;
            };
            self.nodes.mark_nat(nid);
            self.wpush(ctx, lba, id, BioFlags::NONE, 0, now)?;
            self.counters.node_blocks_written += 1;
        }
        // Every node still dirty (re-dirtied by cleaning meanwhile, or not placed) was
        // pushed again onto the new list.
        drop(dirty);
        {
            let f = &mut self.files[nf as usize];
            let n = f.addr.len() as u64;
            f.size = f.size.max(n * BLOCK);
        }
        // 2. NAT and SIT blocks past the journals' capacity, then the checkpoint pack
        let copy = self.nodes.cp_count % 2;
        let nat_base = self.nodes.meta_base + 2 * CP_PACK_BLOCKS + 2 * self.nodes.sit_blocks;
        let mut blocks: Vec<u64> = Vec::new();
        if self.nodes.nat_dirty.len() > NAT_JOURNAL_ENTRIES {
            let nat_copy = self.nat_blocks_total() * copy;
            blocks.extend(
                self.nodes
                    .nat_dirty
                    .iter()
                    .map(|&nid| nat_base + nat_copy + nid as u64 / NAT_ENTRY_PER_BLOCK),
            );
        }
        if self.seg.sit_dirty.len() > SIT_JOURNAL_ENTRIES {
            let sit_base = self.nodes.meta_base + 2 * CP_PACK_BLOCKS;
            let sit_copy = self.nodes.sit_blocks * copy;
            blocks.extend(
                self.seg
                    .sit_dirty
                    .iter()
                    .map(|&seg| sit_base + sit_copy + seg as u64 / SIT_ENTRY_PER_BLOCK),
            );
        }
        blocks.sort_unstable();
        blocks.dedup();
        let cp = self.nodes.meta_base + CP_PACK_BLOCKS * copy;
        blocks.extend(cp..cp + CP_PACK_BLOCKS);
        for &b in &blocks {
            let id = META_ID_BASE.wrapping_add(self.nodes.next_id);
            self.nodes.next_id += 1;
            self.wpush(ctx, b as u32, id, BioFlags::NONE, 0, now)?;
        }
        self.counters.cp_blocks_written += blocks.len() as u64;
        for &nid in &self.nodes.nat_dirty {
            self.nodes.nat_bit[nid as usize] = false;
        }
        self.nodes.nat_dirty.clear();
        self.seg.sit_clean();
        self.nodes.cp_count += 1;
        Ok(())
    }

    fn nat_blocks_total(&self) -> u64 {
        (self.seg.n_all as u64 * self.seg.s as u64).div_ceil(NAT_ENTRY_PER_BLOCK)
    }

    /// A checkpoint now (F2FS `sync_fs`, what `fsync` of a file without roll-forward
    /// recovery and `sync` do): writes the dirty node blocks, NAT/SIT blocks and the
    /// checkpoint pack. Returns when the writes are done.
    pub fn sync(&mut self, ctx: &mut FsCtx<'_>, now: SimTime) -> Result<SimTime> {
        self.begin(now);
        self.io_max = now;
        self.checkpoint(ctx, now)?;
        let done = self.io_max.max(now);
        self.end(ctx)?;
        Ok(done)
    }
}
