//! Demand-paged mapping table (`ftl.map_cache = { type = "demand" }`): DFTL's cached mapping
//! table (Gupta, Kim and Urgaonkar, ASPLOS '09).
//!
//! The page map is stored on flash in translation pages of `page_size / ENTRY_BYTES` entries
//! each. The FTL gives them logical pages of their own after the data's (so they are written,
//! placed in their own open blocks and garbage-collected like data), and the page map's
//! entries for them are the global translation directory (GTD), always in DRAM. A DRAM budget
//! of `dram_bytes` caches `dram_bytes / ENTRY_BYTES` entries ([`MapCache`]):
//!
//! - a lookup (read, write or TRIM of a logical page) that misses loads its entry from the
//!   translation page, one flash read, unless the GTD says the translation page was never
//!   written (all its entries are unmapped);
//! - making room evicts the policy's victim; a dirty victim writes its translation page back
//!   (read the stored copy, merge, program a new one), and every other dirty cached entry of
//!   that translation page is written with it (DFTL's batch update);
//! - GC moving a data page updates a cached entry in place (it becomes dirty); an uncached
//!   one is updated in its translation page, once per translation page per GC job.
//!
//! This module decides which entries are in DRAM and which translation pages need flash work;
//! the FTL allocates the translation pages and the controller times the reads and programs
//! through its queues. The cache state changes when a request is mapped (decide, then time),
//! so a second request for an entry whose load is still in flight counts as a hit.

use crate::config::{MapCacheConfig, MapCachePolicy, SimConfig};
use std::collections::VecDeque;

/// Bytes of one page-map entry: a 32-bit flash page number, as the page FTL stores it and
/// `summary.mapping_table_bytes` counts it.
pub const ENTRY_BYTES: u64 = 4;

/// No entry (list ends, the segment of an uncached entry).
const NIL: u32 = u32::MAX;
/// A clean entry's dirty mark.
const CLEAN: u32 = u32::MAX;

/// The table a demand cache pages: its entries and the DRAM bytes the whole of it takes.
///
/// - The page FTL: one [`ENTRY_BYTES`] entry per mapped page.
/// - With deduplication (`ftl.dedup`): one entry per node of the dedup map, keyed by node as
///   the page map of nodes is, and as wide as the node table and that page map together
///   spread over the nodes: per node its flash page ([`ENTRY_BYTES`]) and record
///   ([`super::dedup::NODE_ENTRY_BYTES`]: reference count and forward), per logical page its
///   node ([`super::dedup::LPN_ENTRY_BYTES`]). The node table shares the page map's budget:
///   every lookup that needs one needs the other (a read resolves its page's node and the
///   node's flash page; a write changes both), so one cache of node-sized entries pages them
///   as one table.
/// - The CCSD's chunk map (a `[stack]` run): one 8-byte entry per logical block
///   ([`super::packed::map::ENTRY_BYTES`]: page, offset and length).
/// - The packed map of a compressing device (`ftl.compression`, PR-SSD's schemes): one entry
///   per host logical page, the packer's (the page FTL below it maps virtual pages, which are
///   the flash page field of these entries). An entry costs the scheme's whole table as
///   `device::compress::mapping_table_bytes` counts it (PR-SSD section 4.4.1: the forward
///   fields per logical page and the per-flash-page count, valid bitmap and reverse map)
///   spread over the logical pages, so a scheme with a smaller table (DP against S) holds
///   more entries per translation page and per DRAM byte. A translation page stores its
///   entries' forward fields with their share of the per-flash-page fields.
/// - With the split FTL (`ftl.compression.split`, PR-SSD section 4.3, Fig. 13) the table has
///   a second part ([`SplitPart`]): the split mapping table, one entry per split page it can
///   hold (`max_split_pages`), each as wide as `split_table_bytes` counts it (per piece a
///   32-bit flash page and its partial index: 17 bytes for 4 pieces). Its entries are keyed
///   after the packed map's (`entries + group x pieces + slot`) and stored in translation
///   pages of their own after the packed map's; the one budget caches entries of both parts,
///   each at its own width, in one replacement order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Table {
    /// Entries looked up (logical pages).
    pub entries: u64,
    /// Bytes of the whole table in DRAM (the split table's excluded).
    pub bytes: u64,
    /// The logical pages those bytes are spread over (an entry costs `bytes / per`).
    pub per: u64,
    /// The split mapping table, with `ftl.compression.split`.
    pub split: Option<SplitPart>,
}

/// The split mapping table of the split FTL: `entries` entries of `bytes / entries` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitPart {
    /// Split pages the table holds (`max_split_pages`).
    pub entries: u64,
    /// Bytes of the whole split table (`device::compress::split_table_bytes` of `entries`).
    pub bytes: u64,
}

impl SplitPart {
    /// Entries of one translation page of `page` bytes.
    pub fn entries_per_tpage(&self, page: u64) -> u64 {
        ((page as u128 * self.entries as u128 / self.bytes.max(1) as u128) as u64)
            .clamp(1, self.entries.max(1))
    }
}

impl Table {
    /// Entries `dram` bytes hold (at most every entry), of the first part.
    pub fn entries_in(&self, dram: u64) -> u64 {
        ((dram as u128 * self.per as u128 / self.bytes.max(1) as u128) as u64).min(self.entries)
    }

    /// Bytes of one entry (a fraction for the packed map), of the first part.
    pub fn entry_bytes(&self) -> f64 {
        self.bytes as f64 / self.per.max(1) as f64
    }

    /// Bytes of the whole table, every part.
    pub fn total_bytes(&self) -> u64 {
        self.bytes + self.split.map_or(0, |s| s.bytes)
    }

    /// Entries of the whole table, every part.
    pub fn total_entries(&self) -> u64 {
        self.entries + self.split.map_or(0, |s| s.entries)
    }
}

/// The table a config's demand cache would page.
pub fn table(cfg: &SimConfig) -> Table {
    if let Some(st) = &cfg.stack {
        // The CCSD's chunk map: one 8-byte entry (page, offset, length) per logical block.
        let entries = crate::device::ccsd::space_of(cfg, st).1;
        return Table {
            entries,
            bytes: entries * super::packed::map::ENTRY_BYTES,
            per: entries,
            split: None,
        };
    }
    if cfg.ftl.dedup().is_some() {
        // The node table shares the page map of nodes' entries: per node its flash page and
        // its record, per logical page its node, spread over the nodes.
        let nodes = super::mapped_pages(cfg);
        return Table {
            entries: nodes,
            bytes: super::logical_pages(cfg) * super::dedup::LPN_ENTRY_BYTES
                + nodes * (ENTRY_BYTES + super::dedup::NODE_ENTRY_BYTES),
            per: nodes,
            split: None,
        };
    }
    match cfg.ftl.compression() {
        None => {
            let entries = super::mapped_pages(cfg);
            Table {
                entries,
                bytes: entries * ENTRY_BYTES,
                per: entries,
                split: None,
            }
        }
        Some(c) => Table {
            entries: super::host_pages(cfg),
            bytes: crate::device::compress::mapping_table_bytes(cfg),
            per: super::logical_pages(cfg),
            split: c.split.as_ref().map(|s| SplitPart {
                entries: s.max_split_pages,
                bytes: crate::device::compress::split_table_bytes(cfg, s.max_split_pages),
            }),
        },
    }
}

/// Bytes the whole mapping table takes in DRAM (with the split FTL, the split table too).
pub fn table_bytes(cfg: &SimConfig) -> u64 {
    table(cfg).total_bytes()
}

/// Entries of one translation page (a NAND page of them).
pub fn entries_per_tpage(cfg: &SimConfig) -> u64 {
    table(cfg).entries_in(cfg.nand.page_size as u64).max(1)
}

/// The demand cache a config asks for, if it caches less than the whole table: (entries held,
/// policy). A budget holding the whole table is the full table in DRAM.
pub fn demand(cfg: &SimConfig) -> Option<(u64, MapCachePolicy)> {
    match cfg.ftl.map_cache {
        MapCacheConfig::Demand { dram_bytes, policy } if dram_bytes < table_bytes(cfg) => {
            Some((table(cfg).entries_in(dram_bytes), policy))
        }
        _ => None,
    }
}

/// Translation pages on flash (0 without a demand cache): the first part's, then the split
/// table's.
pub fn translation_pages(cfg: &SimConfig) -> u64 {
    match demand(cfg) {
        Some(_) => {
            let t = table(cfg);
            t.entries.div_ceil(entries_per_tpage(cfg))
                + t.split.map_or(0, |s| {
                    s.entries
                        .div_ceil(s.entries_per_tpage(cfg.nand.page_size as u64))
                })
        }
        None => 0,
    }
}

/// The demand cache a config asks for, if it caches less than the whole table (the page map's,
/// the packed map's, with the split FTL the packed map's and the split table's).
pub fn build(cfg: &SimConfig) -> Option<MapCache> {
    let (cap, policy) = demand(cfg)?;
    let t = table(cfg);
    let per = entries_per_tpage(cfg);
    Some(match (t.split, &cfg.ftl.map_cache) {
        (Some(sp), MapCacheConfig::Demand { dram_bytes, .. }) => {
            // Widths as exact fractions over a common denominator: an entry of the first part
            // costs bytes / per, one of the split table its bytes / entries.
            let weights = [
                t.bytes as u128 * sp.entries as u128,
                sp.bytes as u128 * t.per as u128,
            ];
            let budget = *dram_bytes as u128 * t.per as u128 * sp.entries as u128;
            MapCache::two_parts(
                [t.entries, sp.entries],
                [per, sp.entries_per_tpage(cfg.nand.page_size as u64)],
                weights,
                budget,
                policy,
            )
        }
        _ => MapCache::new(t.entries, cap, per, policy),
    })
}

/// Counters owned by the map cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MapCacheCounters {
    /// Map entries looked up (host reads, writes and TRIMs, one per logical page).
    pub lookups: u64,
    /// Of those, found in DRAM.
    pub hits: u64,
    /// Cached entries evicted.
    pub evictions: u64,
    /// Of those, dirty (their translation page was written back).
    pub dirty_evictions: u64,
    /// Entries changed without a lookup whose entry was not cached (updated in their
    /// translation page): data pages GC moved; with deduplication, stored pages freed.
    pub gc_uncached_updates: u64,
    /// Translation pages read from flash: lookups that missed, and the stored copy a write-back
    /// merges with.
    pub translation_reads: u64,
    /// Of those, reads a host request waited for (a lookup that missed).
    pub translation_lookup_reads: u64,
    /// Translation pages programmed (write-backs; GC moving translation pages not included).
    pub translation_writes: u64,
    /// Translation pages GC migrated.
    pub translation_gc_migrations: u64,
}

/// Statistics of the demand-paged map cache (the summary's `map_cache`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MapCacheSummary {
    /// Map entries the DRAM budget holds (with the split FTL: entries of the packed map it
    /// would hold without split-table entries).
    pub cached_entries: u64,
    /// Map entries in the whole table (with the split FTL, the split table's included).
    pub table_entries: u64,
    /// Translation pages of the table on flash.
    pub translation_pages: u64,
    /// Counters over the measured run.
    #[serde(flatten)]
    pub counters: MapCacheCounters,
    /// Lookups found in DRAM / lookups (1 with no lookups).
    pub hit_ratio: f64,
    /// Translation pages programmed (write-backs and GC migrations of translation pages) per
    /// host page written (0 with no host writes).
    pub map_waf: f64,
    /// Mean time a read waited for translation pages, from its command at the controller
    /// until the last one it needed was read (us; `null` with no reads).
    pub read_translation_mean_us: Option<f64>,
    /// Mean read latency less that wait (us; `null` with no reads).
    pub read_data_mean_us: Option<f64>,
    /// The dedup layer's fingerprint index on flash (`ftl.dedup.index_cache`; `null` with
    /// the whole index in DRAM).
    pub fingerprint_index: Option<super::fpindex::IndexCacheSummary>,
}

impl MapCacheSummary {
    /// The summary over a window: `c` the cache's counters in it, `host_pages` the host pages
    /// written, `reads` the reads measured, their summed latency and translation wait (ns).
    pub fn new(
        cfg: &SimConfig,
        c: MapCacheCounters,
        host_pages: u64,
        (reads, latency_ns, map_ns): (u64, u128, u128),
        index: Option<MapCacheCounters>,
    ) -> MapCacheSummary {
        let n = reads as f64;
        let trans = (reads > 0).then(|| map_ns as f64 / n * 1e-3);
        MapCacheSummary {
            // The whole table when only the fingerprint index is demand-paged.
            cached_entries: demand(cfg).map_or(table(cfg).entries, |d| d.0),
            table_entries: table(cfg).total_entries(),
            translation_pages: translation_pages(cfg),
            counters: c,
            hit_ratio: if c.lookups == 0 {
                1.0
            } else {
                c.hits as f64 / c.lookups as f64
            },
            map_waf: if host_pages == 0 {
                0.0
            } else {
                (c.translation_writes + c.translation_gc_migrations) as f64 / host_pages as f64
            },
            read_translation_mean_us: trans,
            read_data_mean_us: trans.map(|t| latency_ns as f64 / n * 1e-3 - t),
            fingerprint_index: index.map(|c| super::fpindex::IndexCacheSummary::new(cfg, c)),
        }
    }
}

/// Per-entry state of a [`MapCache`]: its list links, the write-back epoch of its translation
/// page when it was dirtied (or CLEAN) and its segment (0: not cached, 1: probationary, LRU's
/// only list, 2: protected).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    prev: u32,
    next: u32,
    dirty: u32,
    seg: u8,
}

impl Slot {
    /// An uncached entry.
    pub const FREE: Slot = Slot {
        prev: NIL,
        next: NIL,
        dirty: CLEAN,
        seg: 0,
    };
}

/// Where a [`MapCache`] keeps its per-entry state: a flat array (the page map: every entry is
/// in a dense logical space), or a sparse one whose leaves are allocated where entries are
/// looked up (the CCSD's chunk map, whose logical space of billions of blocks is mostly never
/// touched).
pub trait Slots {
    /// `n` entries, none cached.
    fn with_entries(n: u64) -> Self;
    /// The state of entry `e`.
    fn slot(&self, e: u32) -> Slot;
    /// The state of entry `e`, to change (a sparse array allocates its leaf).
    fn slot_mut(&mut self, e: u32) -> &mut Slot;
}

impl Slots for Vec<Slot> {
    fn with_entries(n: u64) -> Self {
        vec![Slot::FREE; n as usize]
    }
    #[inline]
    fn slot(&self, e: u32) -> Slot {
        self[e as usize]
    }
    #[inline]
    fn slot_mut(&mut self, e: u32) -> &mut Slot {
        &mut self[e as usize]
    }
}

impl Slots for super::packed::map::Sparse<Slot> {
    fn with_entries(n: u64) -> Self {
        super::packed::map::Sparse::new(n, SPARSE_LEAF, Slot::FREE)
    }
    #[inline]
    fn slot(&self, e: u32) -> Slot {
        self.get(e as u64)
    }
    #[inline]
    fn slot_mut(&mut self, e: u32) -> &mut Slot {
        self.get_mut(e as u64)
    }
}

/// Entries per leaf of a sparse [`Slots`] array (1 MiB leaves).
pub const SPARSE_LEAF: u64 = 1 << 16;

/// The cached mapping table: which entries are in DRAM (LRU or segmented LRU, intrusive lists
/// over per-entry [`Slots`] indexed by logical page), which are dirty, and which translation
/// pages wait to be written back.
///
/// The budget and the entries' sizes are in weight units: one per entry for a table of one
/// part (the budget is then its entry count), the parts' widths over a common denominator for
/// the split FTL's two (an entry of part `i` weighs `weight[i]`).
pub struct MapCache<S: Slots = Vec<Slot>> {
    budget: u64,
    /// Weight the protected segment may hold (0: plain LRU).
    protected_cap: u64,
    /// Entries per translation page, per part.
    per_tpage: [u32; 2],
    /// First entry of the second part (`NIL`: one part) and its first translation page.
    split_at: u32,
    split_tpage: u32,
    /// Weight of an entry, per part.
    weight: [u64; 2],
    slots: S,
    /// (head = most recent, tail, weight held) per segment: [probation, protected].
    head: [u32; 2],
    tail: [u32; 2],
    len: [u64; 2],
    tp_epoch: Vec<u32>,
    tp_pending: Vec<bool>,
    pending: VecDeque<u32>,
    /// Counters since the last reset.
    pub counters: MapCacheCounters,
}

/// Simulator memory per map entry of a [`MapCache`]: two list links, a dirty mark and a
/// segment, padded (every entry with flat [`Slots`]; those of touched leaves with sparse ones).
pub const BYTES_PER_ENTRY: usize = std::mem::size_of::<Slot>();

impl<S: Slots> MapCache<S> {
    /// An empty cache of `cap` entries over `entries` logical pages, `per_tpage` per
    /// translation page.
    pub fn new(entries: u64, cap: u64, per_tpage: u64, policy: MapCachePolicy) -> MapCache<S> {
        let tpages = entries.div_ceil(per_tpage) as usize;
        let cap = cap.min(entries);
        MapCache {
            budget: cap,
            protected_cap: match policy {
                MapCachePolicy::Lru => 0,
                MapCachePolicy::SegmentedLru => cap * 4 / 5,
            },
            per_tpage: [per_tpage as u32; 2],
            split_at: NIL,
            split_tpage: tpages as u32,
            weight: [1; 2],
            slots: S::with_entries(entries),
            head: [NIL; 2],
            tail: [NIL; 2],
            len: [0; 2],
            tp_epoch: vec![0; tpages],
            tp_pending: vec![false; tpages],
            pending: VecDeque::new(),
            counters: MapCacheCounters::default(),
        }
    }

    /// A cache of a table of two parts (the split FTL's packed map and split table):
    /// `entries[i]` entries of part `i`, `per_tpage[i]` per translation page, each of
    /// `weight[i]` units, `budget` units in all. Part 1's entries are keyed after part 0's and
    /// its translation pages follow part 0's. The units are reduced to 64 bits: exactly (by
    /// the weights' common divisor) for any table of realistic size, else in coarser units.
    pub fn two_parts(
        entries: [u64; 2],
        per_tpage: [u64; 2],
        weight: [u128; 2],
        budget: u128,
        policy: MapCachePolicy,
    ) -> MapCache<S> {
        let gcd = |mut a: u128, mut b: u128| {
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a.max(1)
        };
        let g = gcd(weight[0], weight[1]);
        let (mut w, mut budget) = ([weight[0] / g, weight[1] / g], budget / g);
        // An entry fits when the weights held add up to at most the budget, so flooring the
        // budget is exact; beyond 2^62 units (never for a table in DRAM) the units coarsen.
        let top = w[0].max(w[1]).max(budget);
        let shift = (128 - top.leading_zeros()).saturating_sub(62);
        w = [(w[0] >> shift).max(1), (w[1] >> shift).max(1)];
        budget >>= shift;
        let (weight, budget) = ([w[0] as u64, w[1] as u64], budget as u64);
        let t0 = entries[0].div_ceil(per_tpage[0]);
        let t1 = entries[1].div_ceil(per_tpage[1]);
        let mut c = MapCache::new(entries[0] + entries[1], 1, per_tpage[0], policy);
        c.budget = budget;
        c.protected_cap = match policy {
            MapCachePolicy::Lru => 0,
            MapCachePolicy::SegmentedLru => budget * 4 / 5,
        };
        c.per_tpage = [per_tpage[0] as u32, per_tpage[1] as u32];
        c.split_at = entries[0] as u32;
        c.split_tpage = t0 as u32;
        c.weight = weight;
        c.tp_epoch = vec![0; (t0 + t1) as usize];
        c.tp_pending = vec![false; (t0 + t1) as usize];
        c
    }

    /// Entries the cache holds at most (of the first part, without entries of the second).
    pub fn capacity(&self) -> u64 {
        self.budget / self.weight[0]
    }

    /// Weight of entry `e` (its part's).
    #[inline]
    fn weight_of(&self, e: u32) -> u64 {
        self.weight[(e >= self.split_at) as usize]
    }

    /// Translation page holding entry `e`.
    #[inline]
    pub fn tpage_of(&self, e: u32) -> u32 {
        if e < self.split_at {
            e / self.per_tpage[0]
        } else {
            self.split_tpage + (e - self.split_at) / self.per_tpage[1]
        }
    }

    /// Whether entry `e` is in DRAM.
    #[inline]
    pub fn cached(&self, e: u32) -> bool {
        self.slots.slot(e).seg != 0
    }

    /// Whether entry `e` is in DRAM and differs from its translation page.
    pub fn is_dirty(&self, e: u32) -> bool {
        self.cached(e) && self.slots.slot(e).dirty == self.tp_epoch[self.tpage_of(e) as usize]
    }

    /// Look entry `e` up (`dirty`: the access changes it). Returns whether it was in DRAM; on
    /// a miss it is loaded (the caller reads its translation page), evicting the policy's
    /// victim if the cache is full.
    #[inline]
    pub fn access(&mut self, e: u32, dirty: bool) -> bool {
        self.counters.lookups += 1;
        let hit = match self.slots.slot(e).seg {
            0 => {
                let w = self.weight_of(e);
                // A budget holds at least its widest entry (validation: one translation page).
                while self.len[0] + self.len[1] + w > self.budget && self.tail[0] != NIL {
                    self.evict();
                }
                self.push_head(0, e);
                self.rebalance();
                false
            }
            1 if self.protected_cap > 0 => {
                // A second reference: promoted to the protected segment.
                self.unlink(e);
                self.push_head(1, e);
                self.rebalance();
                true
            }
            s => {
                self.unlink(e);
                self.push_head(s as usize - 1, e);
                true
            }
        };
        self.counters.hits += hit as u64;
        if dirty {
            self.mark_dirty(e);
        }
        hit
    }

    /// GC moved the data of entry `e`: a cached entry is updated in DRAM (where it stays in
    /// the replacement order), an uncached one in its translation page.
    #[inline]
    pub fn gc_update(&mut self, e: u32) {
        if self.cached(e) {
            self.mark_dirty(e);
        } else {
            self.counters.gc_uncached_updates += 1;
            self.write_back(self.tpage_of(e));
        }
    }

    /// Next translation page waiting to be written back; its dirty entries are clean from now.
    pub fn take_pending(&mut self) -> Option<u32> {
        let t = self.pending.pop_front()?;
        self.tp_pending[t as usize] = false;
        let ep = &mut self.tp_epoch[t as usize];
        *ep = ep.wrapping_add(1);
        if *ep == CLEAN {
            *ep = 0;
        }
        Some(t)
    }

    /// Whether write-backs are waiting.
    #[inline]
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    #[inline]
    fn mark_dirty(&mut self, e: u32) {
        let ep = self.tp_epoch[self.tpage_of(e) as usize];
        self.slots.slot_mut(e).dirty = ep;
    }

    fn write_back(&mut self, t: u32) {
        if !self.tp_pending[t as usize] {
            self.tp_pending[t as usize] = true;
            self.pending.push_back(t);
        }
    }

    fn evict(&mut self) {
        let v = self.tail[0];
        debug_assert_ne!(v, NIL, "a full cache has a probationary entry");
        self.counters.evictions += 1;
        if self.is_dirty(v) {
            self.counters.dirty_evictions += 1;
            self.write_back(self.tpage_of(v));
        }
        self.unlink(v);
        let s = self.slots.slot_mut(v);
        s.seg = 0;
        s.dirty = CLEAN;
    }

    /// The protected segment over its share: its least recent entry goes back to probation.
    #[inline]
    fn rebalance(&mut self) {
        while self.len[1] > self.protected_cap {
            let d = self.tail[1];
            self.unlink(d);
            self.push_head(0, d);
        }
    }

    #[inline]
    fn push_head(&mut self, s: usize, e: u32) {
        let h = self.head[s];
        {
            let x = self.slots.slot_mut(e);
            x.prev = NIL;
            x.next = h;
            x.seg = s as u8 + 1;
        }
        if h == NIL {
            self.tail[s] = e;
        } else {
            self.slots.slot_mut(h).prev = e;
        }
        self.head[s] = e;
        self.len[s] += self.weight_of(e);
    }

    #[inline]
    fn unlink(&mut self, e: u32) {
        let x = self.slots.slot(e);
        let s = x.seg as usize - 1;
        let (p, n) = (x.prev, x.next);
        if p == NIL {
            self.head[s] = n;
        } else {
            self.slots.slot_mut(p).next = n;
        }
        if n == NIL {
            self.tail[s] = p;
        } else {
            self.slots.slot_mut(n).prev = p;
        }
        self.len[s] -= self.weight_of(e);
    }

    /// Cached entries from most to least recent (segmented LRU: protected first; tests).
    pub fn order(&self) -> Vec<u32> {
        let mut v = Vec::new();
        for s in [1, 0] {
            let mut e = self.head[s];
            while e != NIL {
                v.push(e);
                e = self.slots.slot(e).next;
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Independent model: an LRU stack as a plain vector (most recent first).
    fn lru_hits(trace: &[u32], cap: usize) -> u64 {
        let mut stack: Vec<u32> = Vec::new();
        let mut hits = 0;
        for &e in trace {
            if let Some(i) = stack.iter().position(|&x| x == e) {
                hits += (i < cap) as u64;
                stack.remove(i);
            }
            stack.insert(0, e);
        }
        hits
    }

    fn pseudo(n: usize, range: u32, seed: u64) -> Vec<u32> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((x >> 33) % range as u64) as u32
            })
            .collect()
    }

    #[test]
    fn lru_hits_equal_stack_distance_count() {
        for (cap, range) in [(1, 5), (7, 40), (64, 100), (100, 100)] {
            let trace = pseudo(5000, range, cap);
            let mut c = MapCache::<Vec<Slot>>::new(range as u64, cap, 16, MapCachePolicy::Lru);
            let hits = trace.iter().filter(|&&e| c.access(e, false)).count() as u64;
            assert_eq!(
                hits,
                lru_hits(&trace, cap as usize),
                "cap {cap} range {range}"
            );
            assert_eq!(c.counters.lookups, 5000);
            assert_eq!(c.order().len(), (cap as usize).min(range as usize));
        }
    }

    /// The sparse per-entry state (the CCSD's chunk map) behaves as the flat one, and only
    /// allocates leaves where entries were looked up.
    #[test]
    fn sparse_slots_give_the_same_hits_and_allocate_only_touched_leaves() {
        use crate::ftl::packed::map::Sparse;
        let n = 40 * SPARSE_LEAF;
        for policy in [MapCachePolicy::Lru, MapCachePolicy::SegmentedLru] {
            let trace: Vec<u32> = pseudo(4000, 300, 9)
                .into_iter()
                .map(|e| e * 7 + (e % 3) * 17 * SPARSE_LEAF as u32)
                .collect();
            let mut flat: MapCache = MapCache::new(n, 50, 512, policy);
            let mut sparse = MapCache::<Sparse<Slot>>::new(n, 50, 512, policy);
            for &e in &trace {
                let d = e % 5 == 0;
                assert_eq!(flat.access(e, d), sparse.access(e, d));
            }
            assert_eq!(flat.counters, sparse.counters);
            assert_eq!(flat.order(), sparse.order());
            assert_eq!(sparse.slots.leaves_allocated(), 3);
        }
        let lru_trace = pseudo(3000, 200, 4);
        let mut c = MapCache::<Sparse<Slot>>::new(n, 30, 512, MapCachePolicy::Lru);
        let hits = lru_trace.iter().filter(|&&e| c.access(e, false)).count() as u64;
        assert_eq!(hits, lru_hits(&lru_trace, 30));
    }

    /// Two parts of different widths: the cache is the longest run of most recent entries
    /// whose weights fit the budget (an independent model over the recency stack), and the
    /// second part's entries are in translation pages after the first part's.
    #[test]
    fn two_parts_hold_the_most_recent_entries_whose_widths_fit_the_budget() {
        // Part 0: 100 entries of weight 5, 10 per translation page; part 1: 40 of weight 3,
        // 16 per page (keys 100..140); 47 units of budget.
        let mut c =
            MapCache::<Vec<Slot>>::two_parts([100, 40], [10, 16], [5, 3], 47, MapCachePolicy::Lru);
        assert_eq!(
            (c.tpage_of(99), c.tpage_of(100), c.tpage_of(139)),
            (9, 10, 12)
        );
        assert_eq!(c.tp_epoch.len(), 13);
        assert_eq!(c.capacity(), 9);
        let trace: Vec<u32> = pseudo(4000, 140, 3);
        let mut stack: Vec<u32> = Vec::new();
        let w = |e: u32| if e < 100 { 5 } else { 3 };
        for &e in &trace {
            let mut held = 0;
            let mut want = false;
            for &x in &stack {
                if held + w(x) > 47 {
                    break;
                }
                held += w(x);
                if x == e {
                    want = true;
                    break;
                }
            }
            assert_eq!(c.access(e, e % 3 == 0), want);
            stack.retain(|&x| x != e);
            stack.insert(0, e);
            let order = c.order();
            assert!(order.iter().map(|&x| w(x)).sum::<u32>() <= 47);
            assert_eq!(order[..], stack[..order.len()]);
        }
        // Segmented LRU over weights keeps its protected share and never exceeds the budget.
        let mut s = MapCache::<Vec<Slot>>::two_parts(
            [100, 40],
            [10, 16],
            [5, 3],
            47,
            MapCachePolicy::SegmentedLru,
        );
        for &e in &trace {
            s.access(e, false);
            assert!(s.len[1] <= 47 * 4 / 5 && s.len[0] + s.len[1] <= 47);
        }
    }

    #[test]
    fn segmented_lru_keeps_twice_referenced_entries_over_a_scan() {
        // 5 entries: protected share 4. Entries 0..4 referenced twice are protected; a scan of
        // 10 new entries cycles through the single probationary slot and never evicts them.
        let mut c: MapCache = MapCache::new(100, 5, 16, MapCachePolicy::SegmentedLru);
        for e in [0, 1, 2, 3, 0, 1, 2, 3] {
            c.access(e, false);
        }
        for e in 10..20 {
            assert!(!c.access(e, false));
        }
        assert!((0..4).all(|e| c.access(e, false)));
        // Plain LRU loses them all.
        let mut l: MapCache = MapCache::new(100, 5, 16, MapCachePolicy::Lru);
        for e in [0, 1, 2, 3, 0, 1, 2, 3].into_iter().chain(10..20) {
            l.access(e, false);
        }
        assert!((0..4).all(|e| !l.cached(e)));
    }

    #[test]
    fn dirty_eviction_writes_back_its_translation_page_once_with_its_batch() {
        // 4 entries per translation page, 3 cached.
        let mut c: MapCache = MapCache::new(16, 3, 4, MapCachePolicy::Lru);
        c.access(0, true);
        c.access(1, true);
        c.access(8, false);
        assert!(!c.has_pending());
        c.access(12, false); // evicts 0 (dirty): page 0 written back, with entry 1
        assert_eq!(c.counters.dirty_evictions, 1);
        assert_eq!(c.take_pending(), Some(0));
        assert_eq!(c.take_pending(), None);
        assert!(!c.is_dirty(1), "entry 1 went with the batch");
        c.access(13, false); // evicts 1: clean now
        assert_eq!(c.counters.evictions, 2);
        assert_eq!(c.counters.dirty_evictions, 1);
        assert!(!c.has_pending());
    }

    #[test]
    fn gc_updates_cached_entries_in_dram_and_others_once_per_translation_page() {
        let mut c: MapCache = MapCache::new(16, 2, 4, MapCachePolicy::Lru);
        c.access(5, false);
        c.gc_update(5);
        assert!(c.is_dirty(5));
        assert!(!c.has_pending());
        c.gc_update(8);
        c.gc_update(9);
        c.gc_update(12);
        assert_eq!(c.counters.gc_uncached_updates, 3);
        assert_eq!(c.take_pending(), Some(2));
        assert_eq!(c.take_pending(), Some(3));
        assert_eq!(c.take_pending(), None);
        // GC does not change the replacement order.
        c.access(6, false);
        c.gc_update(5);
        assert_eq!(c.order(), vec![6, 5]);
    }
}
