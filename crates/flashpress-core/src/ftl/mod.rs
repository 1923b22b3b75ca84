//! Page-level flash translation layer: logical-to-physical mapping in flat arrays, allocation
//! striped across planes, open blocks per placement stream, garbage collection with a victim
//! policy, over-provisioning, TRIM, and an invariant check.
//!
//! The FTL decides; it does not time. Mapping, allocation and GC victim choice happen when a
//! request reaches the controller, and the flash work they imply goes to a [`FlashBackend`]:
//! the plain SSD's controller back end (`device::sched`) queues it per plane and times it,
//! while preconditioning books it at once with no time ([`Nand`] is a backend too). A GC
//! episode is therefore logically done when it is triggered (its victims are free in the
//! map); the back end marks its victims "erase pending" until their erase has run, so no
//! program lands in a block before that block has been erased.

mod blocks;
mod check;
pub mod dedup;
pub mod fdp;
pub mod fpindex;
pub mod mapcache;
pub mod packed;
pub mod placement;
mod prefetch;
pub mod unitmap;
pub mod victim;

pub use blocks::{BlockState, Blocks};
pub use unitmap::{MapLayout, PageMap, UnitMap, NO_UNIT};

use crate::config::{DedupMode, SimConfig, Striping, VictimPolicy};
use crate::error::{Error, Result};
use crate::nand::{Geometry, Nand};
use crate::units::{BlockId, Lpn, PlaneId, Ppn, SimTime};
use placement::{Origin, PageCtx, Placement};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use std::collections::VecDeque;

/// Marks an unmapped entry in the page maps.
pub const UNMAPPED: u32 = u32::MAX;

/// How many victim pages ahead of the one it moves GC prefetches the page map entry of.
const GC_PREFETCH_PAGES: u64 = 4;

/// Free blocks below which a plane runs foreground GC: `ceil(threshold * blocks_per_plane)`,
/// at least 2 (one for GC's own destination, one for progress), at least 4 with a cold region.
pub fn gc_threshold_blocks(cfg: &SimConfig) -> u64 {
    // With a cold region (ftl.dedup.regions) a victim's pages go to two GC streams, so one
    // clean may open two blocks while it frees one: over an episode the free blocks may dip
    // by two, which a threshold of 4 leaves room for.
    let least = if cfg.ftl.dedup().is_some_and(|d| d.regions) {
        4
    } else {
        2
    };
    ((cfg.ftl.gc.threshold * cfg.nand.blocks_per_plane as f64).ceil() as u64).max(least)
}

/// Open-block streams per plane: the placement policy's, plus CAGC's cold region when
/// `ftl.dedup.regions` is on, plus the translation pages' with a demand-paged map or
/// fingerprint index (both tables' pages share it).
pub fn streams(cfg: &SimConfig) -> usize {
    placement::streams_of(cfg)
        + cfg.ftl.dedup().is_some_and(|d| d.regions) as usize
        + demand_paged(cfg) as usize
}

/// Whether a table lives in translation pages on flash: the page map (`ftl.map_cache`) or
/// the fingerprint index (`ftl.dedup.index_cache`).
pub fn demand_paged(cfg: &SimConfig) -> bool {
    mapcache::demand(cfg).is_some() || fpindex::demand(cfg).is_some()
}

/// Translation pages of every demand-paged table: the page map's, then the index's buckets.
pub fn translation_pages(cfg: &SimConfig) -> u64 {
    mapcache::translation_pages(cfg) + fpindex::flash_pages(cfg)
}

/// Blocks per plane kept out of the data space: the GC threshold plus one open block per stream.
pub fn reserve_blocks_per_plane(cfg: &SimConfig) -> u64 {
    gc_threshold_blocks(cfg) + streams(cfg) as u64
}

/// Logical pages exposed to the host, in mapping units (`ftl.mapping_unit`; the NAND page
/// unless set): `floor(physical units * (1 - op_ratio))`.
pub fn logical_pages(cfg: &SimConfig) -> u64 {
    let n = &cfg.nand;
    let phys = n.channels as u64
        * n.chips_per_channel as u64
        * n.dies_per_chip as u64
        * n.planes_per_die as u64
        * n.blocks_per_plane as u64
        * n.pages_per_block as u64
        / cfg.unit_pages() as u64
        * cfg.units_per_page() as u64;
    (phys as f64 * (1.0 - cfg.ftl.op_ratio)).floor() as u64
}

/// Logical pages the device exposes to the host: [`logical_pages`], less the one virtual page a
/// compressing device keeps for the page being filled (`device::compress`). The host's
/// address space (a fio job's region, a trace's wrap) is sized from this.
pub fn host_pages(cfg: &SimConfig) -> u64 {
    logical_pages(cfg) - cfg.ftl.compression().is_some() as u64
}

/// Virtual pages the split FTL keeps beyond the host's logical pages (PR-SSD section 4.3): a
/// group of split pages whose members were overwritten but one still holds all its flash
/// pages, so each of the `max_split_pages / pieces` groups may hold `pieces - 1` pages more
/// than its live logical pages. They come out of the over-provisioning, not the host's space.
pub fn split_reserve_pages(cfg: &SimConfig) -> u64 {
    match (
        cfg.ftl.compression().and_then(|c| c.split.as_ref()),
        cfg.nand.partial_unit(),
    ) {
        (Some(s), Some(unit)) => {
            let pieces = (cfg.nand.page_size / unit).max(1) as u64;
            (s.max_split_pages / pieces) * (pieces - 1)
        }
        _ => 0,
    }
}

/// Pages the page FTL maps: the logical pages, plus with the split FTL its reserve; with
/// deduplication the nodes of its map ([`dedup::Dedup::nodes_for`]).
pub fn mapped_pages(cfg: &SimConfig) -> u64 {
    if cfg.ftl.dedup().is_some() {
        return dedup::Dedup::nodes_for(logical_pages(cfg));
    }
    logical_pages(cfg) + split_reserve_pages(cfg)
}

/// Counters owned by the FTL, in NAND pages (a mapping unit of `k` pages counts `k`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FtlCounters {
    /// Pages programmed for host writes.
    pub host_pages_written: u64,
    /// GC episodes (a foreground trigger or a background pass that cleaned at least one block).
    pub gc_invocations: u64,
    /// Valid pages moved by GC.
    pub gc_pages_migrated: u64,
    /// Blocks cleaned (erased) by GC.
    pub gc_blocks_erased: u64,
    /// Of those, blocks cleaned in idle time by background GC.
    pub gc_background_blocks: u64,
    /// Mapped pages discarded by TRIM.
    pub trimmed_pages: u64,
}

/// Why a GC job runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GcKind {
    /// Triggered by a host write that found its plane below the GC threshold; `first` marks
    /// the first victim of an episode.
    Foreground {
        /// First victim of the episode.
        first: bool,
    },
    /// Started when a plane went idle below the background threshold.
    Background,
    /// Not GC: the erase of a block of a zone the host reset (a zoned device, `device::zns`);
    /// queued like a foreground GC erase, counted apart.
    ZoneReset,
}

/// The flash below the FTL: where GC work goes and how busy planes are.
pub trait FlashBackend {
    /// Least-busy allocation: of the planes `order` walked round from index `from`, the index
    /// of the one whose queued and running work ends first (the first met of equals). `id`
    /// numbers the FTL's plane orders (the back end keeps a search structure per order): one
    /// number always comes with the same order.
    fn least_loaded(&mut self, id: usize, order: &[PlaneId], from: usize) -> usize;
    /// Migrate `moves` (source, destination; same plane) and then erase `victim`. The FTL has
    /// already remapped the pages and put `victim` on its plane's free list. A destination of
    /// [`Ppn::NONE`] is a page read out only (deduplication in GC hashed it and found it
    /// stored elsewhere; the CCSD's GC read a victim page whose chunks fill no page yet); a
    /// source of [`Ppn::NONE`] is a program of data already in controller memory (the CCSD's
    /// GC re-packs chunks of several pages into one). Such jobs never use copyback.
    fn gc_job(&mut self, victim: BlockId, moves: &[(Ppn, Ppn)], copyback: bool, kind: GcKind);
    /// A free block became an open block (programs will go to it).
    fn block_opened(&mut self, block: BlockId);
    /// Per block, host programs allocated there and not yet started (`None`: none ever are,
    /// the work is done at once). GC does not choose such a block as a victim.
    fn programs_in_flight(&self) -> Option<&[u16]>;
}

/// Untimed flash: every operation is booked (counts, energy, wear) at once. Preconditioning
/// uses it.
impl FlashBackend for Nand {
    fn least_loaded(&mut self, _id: usize, _order: &[PlaneId], from: usize) -> usize {
        from
    }
    fn gc_job(&mut self, victim: BlockId, moves: &[(Ppn, Ppn)], copyback: bool, _: GcKind) {
        for &(src, dst) in moves {
            if src == Ppn::NONE {
                self.count_transfer();
                self.count_program(dst, true);
            } else if dst == Ppn::NONE {
                self.count_read(src, true);
                self.count_transfer();
            } else if copyback {
                self.count_copyback(src, dst, true);
            } else {
                self.count_read(src, true);
                self.count_transfer();
                self.count_transfer();
                self.count_program(dst, true);
            }
        }
        self.count_erase(victim, true);
    }
    fn block_opened(&mut self, _block: BlockId) {}
    fn programs_in_flight(&self) -> Option<&[u16]> {
        None
    }
}

/// The page-mapping FTL. It maps mapping units (`ftl.mapping_unit`): internally its
/// geometry is the array seen in units ([`Geometry::in_units`]), so its "pages" are unit
/// slots; every [`Ppn`] it takes or hands out is a NAND page, the first of its unit (or,
/// for units smaller than the page, the page holding the unit).
///
/// Units smaller than the page fill a page slot by slot: a stream keeps taking the slots of
/// one plane's page until it is full, and a full page is *closed* (its program is due);
/// [`Ftl::take_closed`] hands the host's closed pages to the caller, which programs them once
/// their units' data is in. A page closed before it is full is padded: its empty slots are
/// programmed with filler and never hold data (a flush, or GC needing the page's block).
/// GC reads each victim page that holds a valid unit and programs the pages the moved units
/// fill, padding its last one.
pub struct Ftl {
    geo: Geometry,
    /// log2 of the NAND pages per mapping unit.
    shift: u32,
    /// log2 of the mapping units per NAND page (0 unless units are smaller than the page).
    slot_shift: u32,
    /// Units smaller than the page: per stream, the plane whose open page the host is
    /// filling, or UNMAPPED.
    filling: Vec<u32>,
    /// Units smaller than the page: host pages closed since the caller last took them.
    closed: Vec<Ppn>,
    /// The page map, one entry per mapped unit (and translation page): `u32` entries, or
    /// packed ones on devices of 2^28 physical units or more (`unitmap::PACK_FROM`).
    l2p: PageMap,
    /// The reverse map, one entry per physical unit, as wide as the logical units need.
    p2l: UnitMap,
    blocks: Blocks,
    free: Vec<VecDeque<u32>>,
    /// open[plane * streams + stream]: the stream's open block in the plane, or UNMAPPED.
    open: Vec<u32>,
    streams: usize,
    stripe_order: Vec<PlaneId>,
    /// With FDP reclaim groups (more than one): per group its planes in striping order and
    /// its striping cursor.
    group_stripes: Option<Vec<(Vec<PlaneId>, usize)>>,
    cursor: usize,
    least_busy: bool,
    placement: Box<dyn Placement>,
    victim: VictimPolicy,
    rng: Pcg64Mcg,
    gc_threshold: usize,
    bg_threshold: usize,
    background: bool,
    copyback: bool,
    /// Page types of the cell (1 SLC ... 3 TLC), pages interleaved by type in a block.
    page_types: u32,
    seal_counter: u64,
    /// Migrations of the GC job being built (reused).
    moves: Vec<(Ppn, Ppn)>,
    /// Content id stored in each physical page (verify mode only).
    content: Option<Vec<u64>>,
    /// Deduplication (`ftl.dedup`): the page map above holds its nodes.
    pub dedup: Option<dedup::Dedup>,
    /// Logical pages exposed (the page map's size without dedup).
    host_pages: u64,
    /// Dedup in gc mode: GC hashes valid pages.
    gc_hash: bool,
    /// Dedup regions: pages above this count go to the cold stream.
    cold_threshold: Option<u32>,
    /// Demand-paged map (`ftl.map_cache`): which entries are in DRAM. The page map's entries
    /// from `tbase` on are the translation pages' (the global translation directory).
    pub map: Option<mapcache::MapCache>,
    tbase: u64,
    /// The translation pages' stream (the last one).
    tstream: usize,
    /// CAGC's cold region's stream (with `ftl.dedup.regions`).
    cold_stream: usize,
    /// The translation page the last map access that missed must read first.
    map_read: Option<Ppn>,
    /// The fingerprint index on flash (`ftl.dedup.index_cache`): which bucket pages are in
    /// DRAM. The page map's entries from `ibase` on are the bucket pages' (their directory).
    pub index: Option<mapcache::MapCache>,
    ibase: u64,
    index_pages: u32,
    /// The bucket page the last inline lookup that missed must read before its decision.
    index_read: Option<Ppn>,
    /// The cache's entries are a packer's logical pages (`ftl.compression`), not this map's
    /// pages: this FTL's own lookups do not go through it, and the virtual pages GC moves are
    /// left in `gc_moved` for the packer's entries in them to be updated.
    packed_map: bool,
    /// Virtual pages GC moved since the last [`Ftl::take_gc_moved`] (with `packed_map`).
    gc_moved: Vec<u32>,
    /// Flexible Data Placement (`[fdp]`): each page's handle and the per-handle counters.
    pub fdp: Option<fdp::FdpState>,
    /// Counters since the last reset.
    pub counters: FtlCounters,
}

impl Ftl {
    /// Build an empty FTL for a validated config. `track_content` keeps a content id per
    /// physical page so verify mode can check reads.
    pub fn new(cfg: &SimConfig, geo: &Geometry, track_content: bool) -> Ftl {
        Self::with_layout(cfg, geo, track_content, MapLayout::Auto)
    }

    /// [`Ftl::new`] with the page map in `layout` ([`MapLayout::Wide`]: packed entries on
    /// any device, as a device past 2^32 units has them).
    pub fn with_layout(
        cfg: &SimConfig,
        geo: &Geometry,
        track_content: bool,
        layout: MapLayout,
    ) -> Ftl {
        Self::build(cfg, geo, track_content, true, layout)
    }

    /// An FTL that maps nothing (a zoned device, `device::zns`, has no page map): no map
    /// arrays, every block free; the controller's per-plane bookkeeping still reads it.
    pub fn unmapped(cfg: &SimConfig, geo: &Geometry) -> Ftl {
        let mut f = Self::build(cfg, geo, false, false, MapLayout::Auto);
        f.host_pages = 0;
        f
    }

    fn build(
        cfg: &SimConfig,
        geo: &Geometry,
        track_content: bool,
        map: bool,
        layout: MapLayout,
    ) -> Ftl {
        let mut f = Self::build_bare(cfg, geo, track_content, map, layout);
        if let Some(fd) = f.fdp.as_mut() {
            // Each handle's first reclaim unit starts where the previous handle's ends, so
            // the handles of a group start on different planes.
            let (n, k, pg) = (fd.handles(), fd.ru_planes, fd.planes_per_group);
            for (pid, ru) in fd.rus.iter_mut().enumerate() {
                ru.next = pid % n * k % pg;
            }
            for pid in 0..f.fdp.as_ref().map_or(0, |fd| fd.identifiers()) {
                f.next_ru(pid);
            }
        }
        f
    }

    fn build_bare(
        cfg: &SimConfig,
        geo: &Geometry,
        track_content: bool,
        map: bool,
        layout: MapLayout,
    ) -> Ftl {
        let placement = placement::build(cfg);
        let streams = streams(cfg);
        let dd = cfg.ftl.dedup();
        let free = (0..geo.planes)
            .map(|p| {
                (0..geo.blocks_per_plane)
                    .map(|i| geo.block(PlaneId(p), i).0)
                    .collect()
            })
            .collect();
        let bpp = geo.blocks_per_plane as f64;
        let k = cfg.unit_pages();
        let per = cfg.units_per_page();
        let ugeo = geo.in_units(k, per);
        Ftl {
            shift: k.trailing_zeros(),
            slot_shift: per.trailing_zeros(),
            filling: vec![UNMAPPED; streams],
            closed: Vec::new(),
            l2p: PageMap::new(
                if map {
                    mapped_pages(cfg) + translation_pages(cfg)
                } else {
                    0
                },
                ugeo.pages,
                layout,
            ),
            // Its values are the page map's entries: mapped units, then the translation pages
            // of the map cache and of the fingerprint index.
            p2l: UnitMap::new(
                if map { ugeo.pages } else { 0 },
                mapped_pages(cfg) + translation_pages(cfg),
            ),
            blocks: Blocks::new(geo.blocks as usize),
            free,
            open: vec![UNMAPPED; geo.planes as usize * streams],
            streams,
            stripe_order: stripe_order(geo, cfg.ftl.striping),
            group_stripes: cfg.fdp.as_ref().filter(|f| f.reclaim_groups > 1).map(|f| {
                let order = stripe_order(geo, cfg.ftl.striping);
                (0..f.reclaim_groups)
                    .map(|g| {
                        let planes = order
                            .iter()
                            .copied()
                            .filter(|p| p.0 / geo.planes_per_die % f.reclaim_groups == g)
                            .collect();
                        (planes, 0)
                    })
                    .collect()
            }),
            cursor: 0,
            least_busy: cfg.ftl.striping == Striping::LeastBusy,
            placement,
            victim: cfg.ftl.gc.victim,
            rng: Pcg64Mcg::seed_from_u64(cfg.seed ^ 0x6763_5f76_6963_7469),
            gc_threshold: gc_threshold_blocks(cfg) as usize,
            bg_threshold: ((cfg.ftl.gc.background_threshold * bpp).ceil() as usize)
                .max(gc_threshold_blocks(cfg) as usize),
            background: cfg.ftl.gc.background,
            copyback: cfg.ftl.gc.copyback,
            page_types: cfg.nand.cell.page_types() as u32,
            seal_counter: 0,
            moves: Vec::new(),
            content: track_content.then(|| vec![0; ugeo.pages as usize]),
            dedup: dd.map(|d| {
                let mut m = dedup::Dedup::new(
                    logical_pages(cfg),
                    mapped_pages(cfg),
                    d.fingerprint == crate::config::DedupFingerprint::Bytes,
                );
                if fpindex::demand(cfg).is_some() {
                    m.index_ops = Some(Vec::new());
                }
                m
            }),
            host_pages: match dd {
                Some(_) => logical_pages(cfg),
                None => mapped_pages(cfg),
            },
            gc_hash: dd.is_some_and(|d| d.mode == DedupMode::Gc),
            cold_threshold: dd.filter(|d| d.regions).map(|d| d.cold_threshold),
            map: mapcache::build(cfg),
            tbase: mapped_pages(cfg),
            tstream: streams - 1,
            cold_stream: placement::streams_of(cfg),
            map_read: None,
            index: fpindex::build(cfg),
            ibase: mapped_pages(cfg) + mapcache::translation_pages(cfg),
            index_pages: fpindex::index_pages(cfg) as u32,
            index_read: None,
            packed_map: cfg.ftl.compression().is_some(),
            gc_moved: Vec::new(),
            fdp: cfg
                .fdp
                .as_ref()
                .filter(|_| map)
                .map(|f| fdp::FdpState::new(f, cfg, ugeo.pages as usize)),
            counters: FtlCounters::default(),
            geo: ugeo,
        }
    }

    /// Logical pages it maps (with compression: virtual pages, see [`mapped_pages`]; with
    /// deduplication the host's logical pages, not the nodes the page map holds).
    pub fn logical_pages(&self) -> u64 {
        self.host_pages
    }

    /// Bytes held by the page map and by the reverse map (what the memory estimate's
    /// `ftl.page_map` and `ftl.reverse_map` count).
    pub fn map_bytes(&self) -> (u64, u64) {
        (self.l2p.heap_bytes() as u64, self.p2l.heap_bytes() as u64)
    }

    /// Bits per page map entry, `None` for `u32` entries.
    pub fn page_map_bits(&self) -> Option<u32> {
        match &self.l2p {
            PageMap::Narrow(_) => None,
            PageMap::Wide(m) => Some(m.bits()),
        }
    }

    /// NAND pages per mapping unit.
    #[inline]
    pub fn unit_pages(&self) -> u32 {
        1 << self.shift
    }

    /// Mapping units per NAND page (1 unless units are smaller than the page).
    #[inline]
    pub fn units_per_page(&self) -> u32 {
        1 << self.slot_shift
    }

    /// First NAND page of unit slot `slot` (the page holding it, for units smaller than the
    /// page).
    #[inline]
    fn nand_page(&self, slot: impl Into<u64>) -> Ppn {
        Ppn((slot.into() << self.shift) >> self.slot_shift)
    }

    /// Physical page holding a logical page, if mapped.
    #[inline]
    pub fn lookup(&self, lpn: Lpn) -> Option<Ppn> {
        let v = match self.dedup.as_ref() {
            Some(d) => d.resolve(small(lpn.0))? as u64,
            None => lpn.0,
        };
        let p = self.l2p.get(v);
        (p != NO_UNIT).then(|| self.nand_page(p))
    }

    /// Hint that a write or read of logical page `lpn` (an index of the page map; one out of
    /// range is ignored) will arrive soon: its page map entry is prefetched. A request two
    /// ahead of the one being submitted gets this, then [`Ftl::prefetch_location`] one ahead,
    /// so neither of a write's two dependent random accesses (its map entry, then the reverse
    /// map entry and block counters of the page it overwrites) waits for memory. Changes
    /// nothing the simulation computes.
    #[inline]
    pub fn prefetch_entry(&self, lpn: Lpn) {
        self.l2p.prefetch(lpn.0);
    }

    /// Hint that a write of logical page `lpn` will arrive soon: the reverse map entry and the
    /// block counters of the page it maps to now (which the write invalidates) are
    /// prefetched. Reads the page map entry, so it comes after [`Ftl::prefetch_entry`] by a
    /// request's worth of work. Changes nothing the simulation computes.
    #[inline]
    pub fn prefetch_location(&self, lpn: Lpn) {
        let Some(old) = self.l2p.try_get(lpn.0) else {
            return;
        };
        if old != NO_UNIT {
            self.p2l.prefetch(old);
            let b = self.geo.block_of(Ppn(old)).0 as usize;
            prefetch::prefetch(&self.blocks.valid[b]);
            prefetch::prefetch(&self.blocks.mtime[b]);
        }
    }

    /// Physical page holding a logical page, if mapped, as the controller finds it: with a
    /// demand-paged map the lookup goes through the map cache, and one that misses leaves the
    /// translation page to read first in [`Ftl::take_map_read`].
    #[inline]
    pub fn translate(&mut self, lpn: Lpn) -> Option<Ppn> {
        if self.map.is_some() && !self.packed_map {
            match self.dedup.as_ref() {
                // With deduplication the page map maps nodes: the node table (in DRAM) names
                // the entry, and an unmapped page has none to look up.
                Some(d) => {
                    if let Some(v) = d.resolve(small(lpn.0)) {
                        self.map_access(Lpn(v as u64), false);
                    }
                }
                None => self.map_access(lpn, false),
            }
        }
        self.lookup(lpn)
    }

    /// The translation page the last lookup, write or TRIM that missed the map cache must
    /// read before it proceeds (none when the cache hit, or the translation page was never
    /// written: all its entries are unmapped).
    #[inline]
    pub fn take_map_read(&mut self) -> Option<Ppn> {
        self.map_read.take()
    }

    /// Whether write-backs of translation pages (page map or fingerprint index) wait.
    #[inline]
    pub fn map_pending(&self) -> bool {
        self.map.as_ref().is_some_and(|m| m.has_pending())
            || self.index.as_ref().is_some_and(|m| m.has_pending())
    }

    /// Whether a table lives in translation pages on flash (page map or fingerprint index).
    #[inline]
    pub fn demand_paged(&self) -> bool {
        self.map.is_some() || self.index.is_some()
    }

    /// The bucket page of the fingerprint index the last inline dedup write must read before
    /// its dedup decision (none when its bucket was in DRAM or never written).
    #[inline]
    pub fn take_index_read(&mut self) -> Option<Ppn> {
        self.index_read.take()
    }

    /// Account the dedup map's index operations since the last call in the bucket-page
    /// cache: a lookup whose bucket is not in DRAM loads it, and `read` gets the flash page to
    /// read first (if the bucket was ever written); an update dirties a cached bucket or
    /// queues the write-back of an uncached one.
    fn apply_index_ops(&mut self, mut read: impl FnMut(Ppn)) {
        let Some(ops) = self.dedup.as_mut().and_then(|d| d.index_ops.as_mut()) else {
            return;
        };
        if ops.is_empty() {
            return;
        }
        let m = self
            .index
            .as_mut()
            .expect("index ops without an index cache");
        for op in ops.drain(..) {
            match op {
                fpindex::IndexOp::Lookup(fp) => {
                    let b = fpindex::bucket_of(fp, self.index_pages);
                    if !m.access(b, false) {
                        let tp = self.l2p.get(self.ibase + b as u64);
                        if tp != NO_UNIT {
                            m.counters.translation_reads += 1;
                            m.counters.translation_lookup_reads += 1;
                            read(Ppn(tp));
                        }
                    }
                }
                fpindex::IndexOp::Update(fp) => {
                    m.gc_update(fpindex::bucket_of(fp, self.index_pages));
                }
            }
        }
    }

    /// Inline dedup's lookups: a miss leaves the bucket page to read in `index_read`.
    fn apply_inline_index_ops(&mut self) {
        let mut r = None;
        self.apply_index_ops(|p| r = Some(p));
        if r.is_some() {
            self.index_read = r;
        }
    }

    /// Look entry `e` of a packed map up in the map cache (`dirty`: a write or TRIM changes
    /// it); one that misses leaves its translation page in [`Ftl::take_map_read`]. Does
    /// nothing without a demand-paged map.
    #[inline]
    pub fn map_lookup(&mut self, e: u64, dirty: bool) {
        if self.map.is_some() {
            self.map_access(Lpn(e), dirty);
        }
    }

    /// Whether GC moved virtual pages since the last [`Ftl::take_gc_moved`].
    pub fn gc_moved_pending(&self) -> bool {
        !self.gc_moved.is_empty()
    }

    /// The virtual pages GC moved since the last call (a packed map's cache updates the
    /// entries of the logical pages in them).
    pub fn take_gc_moved(&mut self, out: &mut Vec<u32>) {
        out.clear();
        std::mem::swap(out, &mut self.gc_moved);
    }

    #[inline]
    fn map_access(&mut self, lpn: Lpn, dirty: bool) {
        let m = self.map.as_mut().expect("map access without a map cache");
        let e = small(lpn.0);
        if !m.access(e, dirty) {
            let tp = self.l2p.get(self.tbase + m.tpage_of(e) as u64);
            if tp != NO_UNIT {
                m.counters.translation_reads += 1;
                m.counters.translation_lookup_reads += 1;
                self.map_read = Some(self.nand_page(tp));
            }
        }
    }

    /// Write back the translation pages the map cache has waiting (dirty evictions, GC
    /// updates of uncached entries): each is a read of its stored copy (if any) and a program
    /// of a new one, allocated here and pushed to `out` as (old, new) for the caller to queue.
    /// GC that this needs runs first (and may add write-backs, written here too).
    pub fn flush_map<F: FlashBackend>(
        &mut self,
        at: SimTime,
        flash: &mut F,
        out: &mut Vec<(Option<Ppn>, Ppn)>,
    ) -> Result<()> {
        while self.map_pending() {
            // The plane first: if none can take a page the write-back stays pending.
            let plane = self.pick_plane(self.tstream, at, flash)?;
            // The page map's write-backs first, then the fingerprint index's buckets.
            let (lpn, index) = match self.map.as_mut().and_then(|m| m.take_pending()) {
                Some(t) => (self.tbase + t as u64, false),
                None => match self.index.as_mut().and_then(|m| m.take_pending()) {
                    Some(t) => (self.ibase + t as u64, true),
                    None => break,
                },
            };
            let old = self.l2p.get(lpn);
            let ppn = self.take_page(plane, self.tstream, flash);
            self.remap(Lpn(lpn), ppn, 0, at);
            let m = if index {
                &mut self.index
            } else {
                &mut self.map
            };
            let m = m.as_mut().expect("taken from it");
            m.counters.translation_writes += 1;
            m.counters.translation_reads += (old != NO_UNIT) as u64;
            out.push((
                (old != NO_UNIT).then(|| self.nand_page(old)),
                self.nand_page(ppn.0),
            ));
        }
        Ok(())
    }

    /// With deduplication: map logical page `lpn`, whose content has fingerprint `fp`, at
    /// `at`. Inline mode hashes it and looks it up: a duplicate maps to the stored page and
    /// `None` is returned (nothing to program). Otherwise a new stored page is placed and
    /// returned for the caller to program (gc mode never looks up on the write path).
    /// `strong`: the page's strong hash with byte fingerprints, which must confirm a match.
    pub fn write_dedup<F: FlashBackend>(
        &mut self,
        lpn: Lpn,
        fp: u64,
        strong: Option<dedup::Strong>,
        content: u64,
        at: SimTime,
        flash: &mut F,
    ) -> Result<Option<Ppn>> {
        let inline = !self.gc_hash;
        let d = self.dedup.as_mut().expect("write_dedup without ftl.dedup");
        let mut index = inline;
        if inline {
            d.counters.inline_hashed += 1;
            d.record(fpindex::IndexOp::Lookup(fp));
            if let Some(r) = d.find(fp) {
                if d.confirms(r, strong) {
                    d.counters.inline_duplicates += 1;
                    if let Some(z) = d.link(small(lpn.0), r) {
                        self.drop_node(z, at);
                    }
                    self.apply_inline_index_ops();
                    return Ok(None);
                }
                // Another page with the same pre-filter hash holds the index entry.
                index = false;
            }
        }
        // As the page FTL does, the new page is placed (and any GC that needs runs) while
        // the old one is still valid; then the old reference goes.
        let old = d.detach(small(lpn.0));
        let v = d.store(small(lpn.0), fp, index);
        if let Some(st) = strong {
            d.set_strong(v, st);
        }
        // The lookup and insert are accounted before GC the write may run takes its own.
        self.apply_inline_index_ops();
        let ppn = self.write(Lpn(v as u64), 0, content, at, flash)?;
        let d = self.dedup.as_mut().expect("checked");
        if let Some(z) = d.drop_detached(old) {
            self.drop_node(z, at);
        }
        self.apply_inline_index_ops();
        Ok(Some(ppn))
    }

    /// A node of the dedup map lost its last reference (or merged away): its flash page, if
    /// any, is invalid.
    fn drop_node(&mut self, v: u32, at: SimTime) {
        let old = self.l2p.get(v as u64);
        if old != NO_UNIT {
            self.invalidate(old, at);
            self.l2p.set(v as u64, NO_UNIT);
            // Its page-map entry changes without a lookup, as GC's moves do.
            if let Some(m) = self.map.as_mut() {
                m.gc_update(v);
            }
        }
    }

    /// Content id stored in a physical page (verify mode), 0 if not tracked; the first unit
    /// of the page when units are smaller than the page.
    pub fn content_at(&self, ppn: Ppn) -> u64 {
        self.content.as_ref().map_or(0, |c| {
            c[((ppn.0 << self.slot_shift) >> self.shift) as usize]
        })
    }

    /// Content id stored for a logical page (verify mode): its mapping unit's, 0 if unmapped
    /// or not tracked.
    pub fn content_of(&self, lpn: Lpn) -> u64 {
        let v = match self.dedup.as_ref() {
            Some(d) => match d.resolve(small(lpn.0)) {
                Some(v) => v as u64,
                None => return 0,
            },
            None => lpn.0,
        };
        match (self.content.as_ref(), self.l2p.get(v)) {
            (Some(c), p) if p != NO_UNIT => c[p as usize],
            _ => 0,
        }
    }

    /// Units smaller than the page: move the host pages closed since the last call (full,
    /// or padded) into `out`, in the order they closed. The caller programs each once the
    /// data of the units mapped to it is in.
    pub fn take_closed(&mut self, out: &mut Vec<Ppn>) {
        out.append(&mut self.closed);
    }

    /// Units smaller than the page: close every page the host is filling, padding its empty
    /// slots (a flush; a write without a write buffer, which cannot hold units for later
    /// writes). The pages go to [`Ftl::take_closed`].
    pub fn pad_host(&mut self) {
        for stream in 0..self.streams {
            let plane = self.filling[stream];
            if plane != UNMAPPED {
                self.filling[stream] = UNMAPPED;
                if let Some(page) = self.pad_open(PlaneId(plane), stream) {
                    self.closed.push(page);
                    self.counters.host_pages_written += 1;
                }
            }
        }
    }

    /// Units smaller than the page: if `stream`'s open block in `plane` has a page partly
    /// filled, advance its write pointer past the page's empty slots and return the page.
    fn pad_open(&mut self, plane: PlaneId, stream: usize) -> Option<Ppn> {
        let slot = plane.0 as usize * self.streams + stream;
        let b = self.open[slot];
        if b == UNMAPPED {
            return None;
        }
        let per = 1u32 << self.slot_shift;
        let wp = self.blocks.write_ptr[b as usize];
        if wp.is_multiple_of(per) {
            return None;
        }
        let page = self.nand_page(b as u64 * self.geo.pages_per_block as u64 + wp as u64);
        let end = wp.next_multiple_of(per);
        self.blocks.write_ptr[b as usize] = end;
        if end == self.geo.pages_per_block {
            self.blocks.state[b as usize] = BlockState::Sealed;
            self.seal_counter += 1;
            self.blocks.sealed_seq[b as usize] = self.seal_counter;
            self.open[slot] = UNMAPPED;
        }
        Some(page)
    }

    /// Free blocks in the whole array.
    pub fn free_blocks(&self) -> u64 {
        self.free.iter().map(|f| f.len() as u64).sum()
    }

    /// Per-block bookkeeping (read-only).
    pub fn blocks(&self) -> &Blocks {
        &self.blocks
    }

    /// Free blocks of one plane.
    pub fn free_in_plane(&self, plane: PlaneId) -> usize {
        self.free[plane.0 as usize].len()
    }

    /// Whether GC copies pages with on-die copyback.
    pub fn copyback(&self) -> bool {
        self.copyback
    }

    /// Map one logical page written at `at` through reclaim unit handle `handle` (`[fdp]`;
    /// 0 otherwise) to a fresh physical page and return it; the caller programs it. GC work
    /// this needs goes to `flash` first.
    #[inline]
    pub fn write<F: FlashBackend>(
        &mut self,
        lpn: Lpn,
        handle: u8,
        content: u64,
        at: SimTime,
        flash: &mut F,
    ) -> Result<Ppn> {
        if self.map.is_some() && !self.packed_map {
            self.map_access(lpn, true);
        }
        let stream = self.placement.stream_for(&PageCtx {
            lpn,
            origin: Origin::Host,
            handle,
        });
        if self.slot_shift > 0 {
            return self.write_slot(lpn, stream, content, at, flash);
        }
        let plane = match self.group_stripes.as_ref() {
            _ if self.fdp.as_ref().is_some_and(|f| f.partial_rus()) => {
                self.pick_plane_ru(handle as usize, stream, at, flash)?
            }
            None => self.pick_plane(stream, at, flash)?,
            Some(_) => {
                let g = self
                    .fdp
                    .as_ref()
                    .expect("groups are FDP's")
                    .group_of_pid(handle);
                self.pick_plane_in(g as usize, stream, at, flash)?
            }
        };
        let ppn = self.take_page(plane, stream, flash);
        self.remap(lpn, ppn, content, at);
        self.counters.host_pages_written += 1 << self.shift;
        if let Some(f) = self.fdp.as_mut() {
            let p = handle as usize;
            f.handle_of[ppn.0 as usize] = handle;
            f.counters[p].host_pages_written += 1 << self.shift;
            let ru = &mut f.rus[p];
            ru.left = ru.left.saturating_sub(1 << self.shift);
            if ru.left == 0 {
                // The reclaim unit is fully written: the device points the handle at a new
                // one by itself.
                f.counters[p].ru_filled += 1;
                f.log(
                    at,
                    fdp::FdpEventType::ImplicitlyModifiedRuh,
                    handle.into(),
                    p,
                );
                self.next_ru(p);
            }
        }
        Ok(self.nand_page(ppn.0))
    }

    /// A reclaim group's planes in striping order.
    fn group_order(&self, g: usize) -> &[PlaneId] {
        match self.group_stripes.as_ref() {
            Some(gs) => &gs[g].0,
            None => &self.stripe_order,
        }
    }

    /// Point placement identifier `pid` at a new, empty reclaim unit: with reclaim units
    /// smaller than a group, the next `ru_planes` planes of its group in striping order.
    fn next_ru(&mut self, pid: usize) {
        let Some(f) = self.fdp.as_ref() else {
            return;
        };
        let (k, pg, next) = (f.ru_planes, f.planes_per_group, f.rus[pid].next);
        let g = f.group_of_pid(pid as u8) as usize;
        // Orders 0 and 1 + group are the stripe's and the groups'; a window of a group's
        // order is numbered by its group and its start.
        let order_id = 1 + f.groups as usize + g * pg + next;
        let planes: Vec<PlaneId> = if f.partial_rus() {
            let order = self.group_order(g);
            (0..k).map(|i| order[(next + i) % pg]).collect()
        } else {
            Vec::new()
        };
        let f = self.fdp.as_mut().expect("checked");
        let full = f.ru_pages;
        let ru = &mut f.rus[pid];
        ru.planes = planes;
        ru.order_id = order_id;
        ru.cursor = 0;
        ru.left = full;
        ru.next = (next + k) % pg;
    }

    /// Reclaim Unit Handle Update (I/O Management Send) for placement identifier `pid` at
    /// `at`: if its reclaim unit holds writes, the handle's open blocks in it are closed (their
    /// unwritten pages stay unwritten until the block is erased), a "reclaim unit not fully
    /// written" event is logged, and its next write starts a new reclaim unit. A reclaim unit
    /// with no writes yet stays the handle's.
    pub fn ruh_update(&mut self, pid: u8, at: SimTime) {
        let stream = self.placement.stream_for(&PageCtx {
            lpn: Lpn(0),
            origin: Origin::Host,
            handle: pid,
        });
        let f = self
            .fdp
            .as_mut()
            .expect("a reclaim unit handle update without [fdp]");
        let p = pid as usize;
        f.counters[p].ruh_updates += 1;
        if f.rus[p].left == f.ru_pages {
            return;
        }
        f.counters[p].ru_not_fully_written += 1;
        f.log(at, fdp::FdpEventType::RuNotFullyWritten, pid.into(), p);
        let planes = if f.partial_rus() {
            f.rus[p].planes.clone()
        } else {
            let g = f.group_of_pid(pid) as usize;
            self.group_order(g).to_vec()
        };
        for plane in planes {
            let slot = plane.0 as usize * self.streams + stream;
            let b = self.open[slot];
            if b == UNMAPPED || self.blocks.write_ptr[b as usize] == 0 {
                continue;
            }
            self.blocks.write_ptr[b as usize] = self.geo.pages_per_block;
            self.blocks.state[b as usize] = BlockState::Sealed;
            self.seal_counter += 1;
            self.blocks.sealed_seq[b as usize] = self.seal_counter;
            self.open[slot] = UNMAPPED;
        }
        self.next_ru(p);
    }

    /// [`Ftl::pick_plane`] over the planes of placement identifier `pid`'s reclaim unit (when
    /// reclaim units span only some of a group's planes).
    fn pick_plane_ru<F: FlashBackend>(
        &mut self,
        pid: usize,
        stream: usize,
        at: SimTime,
        flash: &mut F,
    ) -> Result<PlaneId> {
        let ru = &mut self.fdp.as_mut().expect("FDP").rus[pid];
        let n = ru.planes.len();
        if self.least_busy {
            ru.cursor = flash.least_loaded(ru.order_id, &ru.planes, ru.cursor);
        }
        for _ in 0..n {
            let ru = &mut self.fdp.as_mut().expect("FDP").rus[pid];
            let plane = ru.planes[ru.cursor];
            ru.cursor = (ru.cursor + 1) % n;
            if self.plane_takes(plane, stream, at, flash) {
                return Ok(plane);
            }
        }
        Err(Error::Workload(format!(
            "at simulated time {} ns no plane of placement identifier {pid}'s reclaim unit can \
             take a page write: its planes have no block GC can clean (too many writes are \
             queued at once, or the reclaim unit's planes hold too much data); use larger \
             reclaim units (fdp.ru_bytes) or raise ftl.op_ratio",
            at.0
        )))
    }

    /// [`Ftl::write`] for units smaller than the page: the unit takes the next slot of the
    /// page `stream` is filling, or of a new page in the next plane; a page it fills closes.
    fn write_slot<F: FlashBackend>(
        &mut self,
        lpn: Lpn,
        stream: usize,
        content: u64,
        at: SimTime,
        flash: &mut F,
    ) -> Result<Ppn> {
        let per = 1u32 << self.slot_shift;
        let f = self.filling[stream];
        // The page being filled is still open unless GC padded it since.
        let filling = f != UNMAPPED && {
            let b = self.open[f as usize * self.streams + stream];
            b != UNMAPPED && !self.blocks.write_ptr[b as usize].is_multiple_of(per)
        };
        let plane = if filling {
            PlaneId(f)
        } else {
            self.pick_plane(stream, at, flash)?
        };
        let slot = self.take_page(plane, stream, flash);
        self.remap(lpn, slot, content, at);
        let page = self.nand_page(slot.0);
        if (slot.0 + 1).is_multiple_of(per as u64) {
            self.closed.push(page);
            self.counters.host_pages_written += 1;
            self.filling[stream] = UNMAPPED;
        } else {
            self.filling[stream] = plane.0;
        }
        Ok(page)
    }

    /// Map logical pages `lpns` (a split group's pages, PR-SSD section 4.3) to fresh
    /// physical pages on as many different channels, all of one page type, so that reading
    /// one piece of each takes the same time on every channel. The walk starts at the plane a
    /// write would take next and goes in striping order, taking per channel the first plane
    /// whose next page has the type and that needs no GC to take it; the first plane's type
    /// is tried first, then the others. Returns `false`, with nothing mapped and the striping
    /// cursor where it was, when no type has enough channels (the caller writes the pages one
    /// by one; GC the first plane needed may have run); else the physical pages are in `out`,
    /// in the order of `lpns`.
    pub fn write_group<F: FlashBackend>(
        &mut self,
        lpns: &[Lpn],
        contents: &[u64],
        at: SimTime,
        flash: &mut F,
        out: &mut Vec<Ppn>,
    ) -> Result<bool> {
        let stream = self.placement.stream_for(&PageCtx {
            lpn: lpns[0],
            origin: Origin::Host,
            handle: 0,
        });
        let cursor = self.cursor;
        let first = self.pick_plane(stream, at, flash)?;
        let n = self.stripe_order.len();
        let start = (self.cursor + n - 1) % n;
        let t0 = self.next_page_type(first, stream);
        let mut planes: Vec<PlaneId> = Vec::with_capacity(lpns.len());
        let mut last = self.cursor;
        for t in (0..self.page_types).map(|d| (t0 + d) % self.page_types) {
            planes.clear();
            for k in 0..n {
                let i = (start + k) % n;
                let p = self.stripe_order[i];
                let ch = self.geo.channel_of(p);
                let open = self.open[p.0 as usize * self.streams + stream] != UNMAPPED;
                let roomy =
                    p == first || open || self.free[p.0 as usize].len() >= self.gc_threshold.max(2);
                if roomy
                    && self.next_page_type(p, stream) == t
                    && planes.iter().all(|&q| self.geo.channel_of(q) != ch)
                {
                    planes.push(p);
                    last = (i + 1) % n;
                    if planes.len() == lpns.len() {
                        break;
                    }
                }
            }
            if planes.len() == lpns.len() {
                break;
            }
        }
        if planes.len() < lpns.len() {
            // The pages are written one by one from where this walk started.
            self.cursor = cursor;
            return Ok(false);
        }
        self.cursor = last;
        out.clear();
        for ((&lpn, &content), &plane) in lpns.iter().zip(contents).zip(&planes) {
            let ppn = self.take_page(plane, stream, flash);
            self.remap(lpn, ppn, content, at);
            self.counters.host_pages_written += 1 << self.shift;
            out.push(self.nand_page(ppn.0));
        }
        Ok(true)
    }

    /// Page type (LSB, CSB, MSB, ...) of the page `stream` writes next in `plane`.
    fn next_page_type(&self, plane: PlaneId, stream: usize) -> u32 {
        let b = self.open[plane.0 as usize * self.streams + stream];
        let wp = if b == UNMAPPED {
            0
        } else {
            self.blocks.write_ptr[b as usize]
        };
        wp % self.page_types
    }

    /// Discard a logical page (TRIM).
    pub fn trim(&mut self, lpn: Lpn, at: SimTime) {
        if let Some(d) = self.dedup.as_mut() {
            if d.resolve(small(lpn.0)).is_some() {
                self.counters.trimmed_pages += 1;
                if let Some(z) = d.release(small(lpn.0)) {
                    self.drop_node(z, at);
                }
                self.apply_index_ops(|_| unreachable!("a TRIM looks nothing up"));
            }
            return;
        }
        if self.map.is_some() && !self.packed_map {
            self.map_access(lpn, true);
        }
        let old = self.l2p.get(lpn.0);
        if old != NO_UNIT {
            self.invalidate(old, at);
            self.l2p.set(lpn.0, NO_UNIT);
            // In NAND pages; units smaller than the page count one each.
            self.counters.trimmed_pages += 1 << self.shift;
        }
    }

    /// Background GC for a plane that went idle at `now`: if background GC is on and the
    /// plane is below the background threshold, clean one victim (a job that yields to host
    /// commands between steps). Returns whether a job was started.
    pub fn background_gc<F: FlashBackend>(
        &mut self,
        plane: PlaneId,
        now: SimTime,
        flash: &mut F,
    ) -> bool {
        if !self.background || self.free[plane.0 as usize].len() >= self.bg_threshold {
            return false;
        }
        let Some(v) = self.select_victim(plane, now, flash) else {
            return false;
        };
        self.clean(v, now, GcKind::Background, flash);
        self.counters.gc_background_blocks += 1;
        self.counters.gc_invocations += 1;
        true
    }

    /// Next plane in striping order whose `stream` can take a page, running foreground GC
    /// where a new block is needed. Planes that cannot free space are skipped; when none
    /// can, an error (see the message) rather than a wrong placement.
    #[inline]
    fn pick_plane<F: FlashBackend>(
        &mut self,
        stream: usize,
        at: SimTime,
        flash: &mut F,
    ) -> Result<PlaneId> {
        if self.least_busy {
            // Start the round-robin walk at the plane whose queued work ends first.
            self.cursor = flash.least_loaded(0, &self.stripe_order, self.cursor);
        }
        for _ in 0..self.stripe_order.len() {
            let plane = self.stripe_order[self.cursor];
            self.cursor += 1;
            if self.cursor == self.stripe_order.len() {
                self.cursor = 0;
            }
            if self.plane_takes(plane, stream, at, flash) {
                return Ok(plane);
            }
        }
        // Validation keeps the logical space within the usable space, so this happens only
        // in timed runs: every page is mapped when its write reaches the controller, and a
        // block with programs still queued cannot be a GC victim. Far more writes queued at
        // once than the device has spare pages (a trace with thousands of writes at one
        // timestamp) leave no block to clean. The controller does not hold writes back until
        // space frees up (no backpressure is modelled), so the run stops here.
        Err(Error::Workload(format!(
            "at simulated time {} ns no plane can take a page write: {} page programs are \
             queued and every block GC could clean still has programs queued. Too many \
             writes arrive at once for this device's spare space (ftl.op_ratio, \
             nand.blocks_per_plane); spread the workload's arrivals out in time or lower its \
             queue depth",
            at.0,
            flash
                .programs_in_flight()
                .map_or(0, |f| f.iter().map(|&n| u64::from(n)).sum::<u64>())
        )))
    }

    /// [`Ftl::pick_plane`] over the planes of FDP reclaim group `g` only.
    fn pick_plane_in<F: FlashBackend>(
        &mut self,
        g: usize,
        stream: usize,
        at: SimTime,
        flash: &mut F,
    ) -> Result<PlaneId> {
        let n = self.group_stripes.as_ref().expect("reclaim groups")[g]
            .0
            .len();
        if self.least_busy {
            let (order, cursor) = &mut self.group_stripes.as_mut().expect("reclaim groups")[g];
            // Order 0 is the whole stripe order; group `g`'s is order `1 + g`.
            *cursor = flash.least_loaded(1 + g, order, *cursor);
        }
        for _ in 0..n {
            let (order, cursor) = &mut self.group_stripes.as_mut().expect("reclaim groups")[g];
            let plane = order[*cursor];
            *cursor = (*cursor + 1) % n;
            if self.plane_takes(plane, stream, at, flash) {
                return Ok(plane);
            }
        }
        Err(Error::Workload(format!(
            "at simulated time {} ns no plane of FDP reclaim group {g} can take a page write: \
             the group's planes have no block GC can clean (its placement identifiers write \
             more than its planes hold, or too many writes are queued at once); spread the \
             data over more groups or raise ftl.op_ratio",
            at.0
        )))
    }

    /// Whether `stream` can take a page on `plane`: its open block has room, or a new block
    /// can be opened (after foreground GC where the plane is short of free blocks) with one
    /// free block left for GC's own destination.
    #[inline]
    fn plane_takes<F: FlashBackend>(
        &mut self,
        plane: PlaneId,
        stream: usize,
        at: SimTime,
        flash: &mut F,
    ) -> bool {
        if self.open[plane.0 as usize * self.streams + stream] != UNMAPPED {
            return true;
        }
        if self.free[plane.0 as usize].len() < self.gc_threshold {
            self.foreground_gc(plane, at, flash);
        }
        self.free[plane.0 as usize].len() >= 2
    }

    fn foreground_gc<F: FlashBackend>(&mut self, plane: PlaneId, at: SimTime, flash: &mut F) {
        let mut first = true;
        while self.free[plane.0 as usize].len() < self.gc_threshold {
            let Some(v) = self.select_victim(plane, at, flash) else {
                break;
            };
            self.clean(v, at, GcKind::Foreground { first }, flash);
            first = false;
        }
        if !first {
            self.counters.gc_invocations += 1;
        }
    }

    fn select_victim<F: FlashBackend>(
        &mut self,
        plane: PlaneId,
        now: SimTime,
        flash: &F,
    ) -> Option<BlockId> {
        let first = self.geo.block(plane, 0).0;
        victim::select(
            self.victim,
            &self.blocks,
            flash.programs_in_flight(),
            first,
            self.geo.blocks_per_plane,
            self.geo.pages_per_block,
            1 << self.slot_shift,
            now,
            &mut self.rng,
        )
    }

    /// Remap a victim's valid pages inside its plane, free it, and hand the copies and the
    /// erase to `flash` as one job.
    fn clean<F: FlashBackend>(
        &mut self,
        victim: BlockId,
        at: SimTime,
        kind: GcKind,
        flash: &mut F,
    ) {
        if self.slot_shift > 0 {
            return self.clean_slots(victim, at, kind, flash);
        }
        let plane = self.geo.plane_of_block(victim);
        let first = self.geo.first_ppn_of_block(victim).0;
        let mut moves = std::mem::take(&mut self.moves);
        moves.clear();
        let end = first + self.geo.pages_per_block as u64;
        for src in first..end {
            // The page map entry GC rewrites a few pages on: a random access the work of the
            // moves in between hides.
            if src + GC_PREFETCH_PAGES < end {
                let ahead = self.p2l.get(src + GC_PREFETCH_PAGES);
                if ahead != NO_UNIT {
                    self.l2p.prefetch(ahead);
                }
            }
            let lpn = self.p2l.get(src);
            if lpn == NO_UNIT {
                continue;
            }
            if lpn >= self.tbase {
                // A translation page (of the page map, or a bucket of the fingerprint index)
                // moves in its own stream; its directory is in DRAM. (Demand-paged tables
                // have one-page units: the config refuses larger.)
                let m = if lpn >= self.ibase {
                    &mut self.index
                } else {
                    &mut self.map
                };
                m.as_mut()
                    .expect("a translation page without its table's cache")
                    .counters
                    .translation_gc_migrations += 1;
                let dst = self.take_page(plane, self.tstream, flash);
                self.migrate(Lpn(lpn), Ppn(src), dst, at);
                moves.push((Ppn(src), dst));
                self.counters.gc_pages_migrated += 1;
                continue;
            }
            if let Some(m) = self.map.as_mut() {
                if self.packed_map {
                    self.gc_moved.push(small(lpn));
                } else {
                    m.gc_update(small(lpn));
                }
            }
            let handle = self.fdp.as_ref().map_or(0, |f| f.handle_of[src as usize]);
            let mut stream = self.placement.stream_for(&PageCtx {
                lpn: Lpn(lpn),
                origin: Origin::Gc,
                handle,
            });
            if let Some(d) = self.dedup.as_mut() {
                let action = d.gc_page(small(lpn), self.gc_hash, self.cold_threshold);
                // A lookup whose bucket is not in DRAM: GC reads the bucket page before its
                // decision (a read-only step of this job, before the page's own move).
                self.apply_index_ops(|tp| moves.push((tp, Ppn::NONE)));
                match action {
                    dedup::GcAction::Drop => {
                        // Merged into the stored copy: read (for its hash), not rewritten.
                        self.drop_node(small(lpn), at);
                        moves.push((Ppn(src), Ppn::NONE));
                        continue;
                    }
                    dedup::GcAction::Promote { other } => {
                        self.drop_node(other, at);
                        stream = self.cold_stream;
                    }
                    dedup::GcAction::Migrate { cold: true } => stream = self.cold_stream,
                    dedup::GcAction::Migrate { cold: false } => {}
                }
            }
            let dst = self.take_page(plane, stream, flash);
            self.migrate(Lpn(lpn), Ppn(src), dst, at);
            if let Some(f) = self.fdp.as_mut() {
                f.handle_of[dst.0 as usize] = handle;
                f.counters[handle as usize].gc_pages_migrated += 1 << self.shift;
            }
            // The flash work is per NAND page: a unit's pages move one by one.
            for j in 0..1 << self.shift {
                moves.push((
                    Ppn(self.nand_page(src).0 + j),
                    Ppn(self.nand_page(dst.0).0 + j),
                ));
            }
            self.counters.gc_pages_migrated += 1 << self.shift;
        }
        let b = victim.0 as usize;
        assert_eq!(
            self.blocks.valid[b], 0,
            "victim {b} still has valid pages after migration"
        );
        self.blocks.state[b] = BlockState::Free;
        self.blocks.write_ptr[b] = 0;
        self.free[plane.0 as usize].push_back(victim.0);
        self.counters.gc_blocks_erased += 1;
        flash.gc_job(victim, &moves, self.copyback, kind);
        self.moves = moves;
    }

    /// [`Ftl::clean`] for units smaller than the page: each victim page holding a valid unit
    /// is read once (a move with no destination); the valid units fill slots of the GC
    /// stream's open page, and each page they fill is programmed from controller memory (a
    /// move with no source), the last one padded. A host page the GC stream was filling
    /// (one stream for host and GC) is padded and closed first, so no page mixes the two.
    fn clean_slots<F: FlashBackend>(
        &mut self,
        victim: BlockId,
        at: SimTime,
        kind: GcKind,
        flash: &mut F,
    ) {
        let plane = self.geo.plane_of_block(victim);
        let first = self.geo.first_ppn_of_block(victim).0;
        let per = 1u64 << self.slot_shift;
        let mut moves = std::mem::take(&mut self.moves);
        moves.clear();
        // Streams this clean wrote to (bit per stream).
        let mut used = 0u64;
        let mut last_read = u64::MAX;
        for src in first..first + self.geo.pages_per_block as u64 {
            let lpn = self.p2l.get(src);
            if lpn == NO_UNIT {
                continue;
            }
            // Packed units and `[fdp]` do not combine (the config refuses it): handle 0.
            let stream = self.placement.stream_for(&PageCtx {
                lpn: Lpn(lpn),
                origin: Origin::Gc,
                handle: 0,
            });
            if used & (1 << stream) == 0 {
                used |= 1 << stream;
                if let Some(page) = self.pad_open(plane, stream) {
                    self.closed.push(page);
                    self.counters.host_pages_written += 1;
                    if self.filling[stream] == plane.0 {
                        self.filling[stream] = UNMAPPED;
                    }
                }
            }
            let page = self.nand_page(src);
            if page.0 != last_read {
                last_read = page.0;
                moves.push((page, Ppn::NONE));
            }
            let dst = self.take_page(plane, stream, flash);
            self.migrate(Lpn(lpn), Ppn(src), dst, at);
            if (dst.0 + 1).is_multiple_of(per) {
                moves.push((Ppn::NONE, self.nand_page(dst.0)));
                self.counters.gc_pages_migrated += 1;
            }
        }
        for stream in 0..self.streams {
            if used & (1 << stream) != 0 {
                if let Some(page) = self.pad_open(plane, stream) {
                    moves.push((Ppn::NONE, page));
                    self.counters.gc_pages_migrated += 1;
                }
            }
        }
        let b = victim.0 as usize;
        assert_eq!(
            self.blocks.valid[b], 0,
            "victim {b} still has valid units after migration"
        );
        self.blocks.state[b] = BlockState::Free;
        self.blocks.write_ptr[b] = 0;
        self.free[plane.0 as usize].push_back(victim.0);
        self.counters.gc_blocks_erased += 1;
        flash.gc_job(victim, &moves, false, kind);
        self.moves = moves;
    }

    /// Make sure `stream` has an open block with room in `plane`, taking a free block if not.
    #[inline]
    fn ensure_open<F: FlashBackend>(&mut self, plane: PlaneId, stream: usize, flash: &mut F) {
        let slot = plane.0 as usize * self.streams + stream;
        let ob = self.open[slot];
        if ob != UNMAPPED {
            return;
        }
        let b = self.free[plane.0 as usize].pop_front().unwrap_or_else(|| {
            panic!(
                "plane {} ran out of free blocks (GC reserve exhausted)",
                plane.0
            )
        });
        self.blocks.state[b as usize] = BlockState::Open;
        self.open[slot] = b;
        if let Some(f) = self.fdp.as_mut() {
            if let Some(h) = f.handle_of_stream(stream) {
                let pid = f.pid(h, plane.0);
                f.counters[pid].blocks_opened += 1;
            }
        }
        flash.block_opened(BlockId(b));
    }

    /// Next page of the stream's open block in `plane` (opening one if needed).
    #[inline]
    fn take_page<F: FlashBackend>(&mut self, plane: PlaneId, stream: usize, flash: &mut F) -> Ppn {
        self.ensure_open(plane, stream, flash);
        let slot = plane.0 as usize * self.streams + stream;
        let b = self.open[slot] as usize;
        let wp = self.blocks.write_ptr[b];
        self.blocks.write_ptr[b] = wp + 1;
        if wp + 1 == self.geo.pages_per_block {
            // A full block leaves its open slot at once, so it can never be both a GC
            // victim and the place the next page goes.
            self.blocks.state[b] = BlockState::Sealed;
            self.seal_counter += 1;
            self.blocks.sealed_seq[b] = self.seal_counter;
            self.open[slot] = UNMAPPED;
        }
        Ppn(b as u64 * self.geo.pages_per_block as u64 + wp as u64)
    }

    /// Move a valid page whose location is known (GC): unlike [`Ftl::remap`] it never loads
    /// the logical map entry, whose random access dominates GC's cost otherwise.
    #[inline]
    fn migrate(&mut self, lpn: Lpn, src: Ppn, dst: Ppn, at: SimTime) {
        debug_assert_eq!(
            self.l2p.get(lpn.0),
            src.0,
            "GC source is not the page's current location"
        );
        self.p2l.set(src.0, NO_UNIT);
        self.blocks.valid[self.geo.block_of(src).0 as usize] -= 1;
        self.l2p.set(lpn.0, dst.0);
        self.p2l.set(dst.0, lpn.0);
        let b = self.geo.block_of(dst).0 as usize;
        self.blocks.valid[b] += 1;
        self.blocks.mtime[b] = at;
        if let Some(c) = self.content.as_mut() {
            c[dst.0 as usize] = c[src.0 as usize];
        }
    }

    #[inline(always)]
    fn invalidate(&mut self, ppn: u64, at: SimTime) {
        self.p2l.set(ppn, NO_UNIT);
        let b = self.geo.block_of(Ppn(ppn)).0 as usize;
        self.blocks.valid[b] -= 1;
        self.blocks.mtime[b] = at;
    }

    #[inline]
    fn remap(&mut self, lpn: Lpn, ppn: Ppn, content: u64, at: SimTime) {
        let old = self.l2p.get(lpn.0);
        if old != NO_UNIT {
            self.invalidate(old, at);
        }
        self.l2p.set(lpn.0, ppn.0);
        self.p2l.set(ppn.0, lpn.0);
        let b = self.geo.block_of(ppn).0 as usize;
        self.blocks.valid[b] += 1;
        self.blocks.mtime[b] = at;
        if let Some(c) = self.content.as_mut() {
            c[ppn.0 as usize] = content;
        }
    }
}

/// A unit number of a table that keeps 32-bit entries (the dedup map's nodes, a demand-paged
/// map's entries, a packed map's logical pages): validation refuses those tables on devices
/// whose units do not fit (each by its own key), so a number past 2^32 here is a bug.
#[inline]
fn small(unit: u64) -> u32 {
    u32::try_from(unit).expect("a 32-bit table's unit number past 2^32 (validation refuses it)")
}

/// Plane visiting order for consecutive allocations.
pub(crate) fn stripe_order(g: &Geometry, s: Striping) -> Vec<PlaneId> {
    let mut v = Vec::with_capacity(g.planes as usize);
    match s {
        Striping::ChannelFirst | Striping::LeastBusy => {
            for plane in 0..g.planes_per_die {
                for die in 0..g.dies_per_chip {
                    for chip in 0..g.chips_per_channel {
                        for ch in 0..g.channels {
                            v.push(g.plane_id(ch, chip, die, plane));
                        }
                    }
                }
            }
        }
        Striping::PlaneFirst => {
            for ch in 0..g.channels {
                for chip in 0..g.chips_per_channel {
                    for die in 0..g.dies_per_chip {
                        for plane in 0..g.planes_per_die {
                            v.push(g.plane_id(ch, chip, die, plane));
                        }
                    }
                }
            }
        }
    }
    v
}
