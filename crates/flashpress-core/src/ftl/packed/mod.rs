//! The packed (compressed-mapping) FTL: variable-length chunks (compressed logical blocks,
//! or raw ones) appended into flash pages in controller DRAM; full pages programmed striped across planes
//! (one open block per plane for host pages and one for GC); valid *bytes* per block;
//! per-plane foreground GC that re-packs the valid chunks of a victim block into the plane's
//! GC page buffer and erases it.
//!
//! Two packings (`stack.ccsd.straddle`):
//! - without straddling a chunk that does not fit the rest of the open page closes it, and
//!   the rest of the page is padding (about 12% of the bytes at 2:1 in 16 KiB pages);
//! - with straddling the chunk fills the page and continues at offset 0 of the next page the
//!   stream opens (the next plane in striping order, so usually another block), so only a
//!   flush of a partial page (unbuffered writes, end of a request) pads. The map entry keeps
//!   the chunk's start page, offset and length (`offset + length > page size` marks a
//!   straddling chunk) and `next[page]` names the page holding its tail. Each of the two
//!   blocks counts its own part in its valid bytes and lists the LBA, so GC of either block
//!   migrates the whole chunk once (reading both pages) and both blocks lose their part.
//!
//! To find a victim's valid chunks each block keeps the LBAs written into it (append-only,
//! cleared on erase, freed once the block holds no valid byte); an LBA is still valid there
//! if its map entry has a part in the block.
//!
//! Memory: 8 bytes of map entry per logical block of a touched 64 Ki-block range (see
//! `ftl::packed::map`) plus, for each block holding valid data, at most 4 bytes per chunk
//! written into it in its LBA list (live or stale; a run of consecutive LBAs takes 12 bytes,
//! see `ftl/packed/lbas.rs`) and with straddling 4 bytes per page; plus per-block arrays
//! (about 70 bytes per erase block). Blocks whose data was all overwritten or trimmed cost
//! only their per-block arrays, so a log-structured host's overwrites do not grow it.

mod lbas;
pub mod map;
pub mod pages;
pub mod zoned;

use crate::config::{SimConfig, Striping, VictimPolicy};
use crate::error::{Error, Result};
use crate::ftl::mapcache::{self, MapCache, Slot};
use crate::ftl::{self, victim, BlockState, Blocks, FlashBackend, GcKind};
use crate::nand::Geometry;
use crate::units::{BlockId, PlaneId, Ppn, SimTime};
use lbas::LbaList;
use map::{Map, Sparse, UNMAPPED};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use std::collections::VecDeque;

/// The controller below the packed FTL: the flash back end every device shares (GC jobs,
/// opened blocks, plane load, host programs in flight) plus the DRAM write buffer and the
/// queue of host programs. The FTL decides; this times what it decides, at the back end's
/// present (the CCSD advances it to each chunk's time before handing the chunk over).
pub trait PackedBackend: FlashBackend {
    /// A host page opens in DRAM now: when it has a write-buffer slot (now, or when a
    /// buffered program frees one); `None` when writes are not buffered.
    fn buffer_slot(&mut self) -> Option<SimTime>;
    /// Queue the program of a full (or flushed) host page now.
    fn program_host(&mut self, ppn: Ppn);
    /// Queue a translation page's write-back now (demand-paged chunk map): the read of its
    /// stored copy `old`, if it has one, and the program of the merged page at `new`. No
    /// request waits for either.
    fn write_back_map(&mut self, old: Option<Ppn>, new: Ppn);
}

/// Untimed flash: the NAND array books each operation (counts, energy, wear) at once, with
/// no buffer. The CCSD's untimed fill (its file system's layout before the run) uses it.
impl PackedBackend for crate::nand::Nand {
    fn buffer_slot(&mut self) -> Option<SimTime> {
        None
    }
    fn program_host(&mut self, ppn: Ppn) {
        self.count_transfer();
        self.count_program(ppn, false);
    }
    fn write_back_map(&mut self, old: Option<Ppn>, new: Ppn) {
        if let Some(old) = old {
            self.count_read(old, false);
            self.count_transfer();
        }
        self.count_transfer();
        self.count_program(new, false);
    }
}

/// No page / no block.
const NONE: u32 = u32::MAX;

/// The packing rule every packed page follows: a chunk of `len` bytes joins a page holding
/// `fill` bytes in `chunks` chunks if it fits the rest of the page and the page holds fewer
/// than `max_chunks` chunks (0: no limit).
#[inline]
pub fn fits(fill: u32, chunks: u32, len: u32, page: u32, max_chunks: u32) -> bool {
    fill + len <= page && (max_chunks == 0 || chunks < max_chunks)
}
/// The demand-paged chunk map a config asks for over `logical_blocks` (`None`: the whole map
/// in DRAM).
fn paging_of(cfg: &SimConfig, logical_blocks: u64) -> Result<Option<MapPaging>> {
    let Some((cap, policy)) = mapcache::demand(cfg) else {
        return Ok(None);
    };
    let per = mapcache::entries_per_tpage(cfg);
    let tpages = logical_blocks.div_ceil(per);
    if logical_blocks + tpages >= NONE as u64 {
        return Err(Error::config(
            "config",
            "stack.ccsd.logical_ratio",
            format!(
                "{logical_blocks} logical blocks and {tpages} translation pages exceed the \
                 CCSD's 2^32 - 1 block address space"
            ),
        ));
    }
    Ok(Some(MapPaging {
        cache: MapCache::new(logical_blocks, cap, per, policy),
        gtd: vec![NONE; tpages as usize],
        base: logical_blocks,
        reads: Vec::new(),
    }))
}

/// Open-block stream of host pages.
const HOST: usize = 0;
/// Open-block stream of GC pages.
const GC: usize = 1;
/// Open-block stream of translation pages (demand-paged chunk map only).
const MAP: usize = 2;
/// Stream slots per plane (the translation pages' block is opened only with a demand cache).
const STREAMS: usize = 3;

/// The chunk map under a DRAM budget (`ftl.map_cache = { type = "demand" }` on a `[stack]`
/// run): DFTL's cached mapping table over the CCSD's 8-byte entries. The map itself stays
/// whole in the simulator (it is the truth the translation pages hold); this says which
/// entries are in DRAM. Translation pages are whole flash pages of `page_size / 8` entries in
/// open blocks of their own (stream `MAP`); a block lists one as the LBA `base + t`, so GC
/// finds and moves it like a chunk (the directory, `gtd`, follows). The directory is in DRAM.
pub struct MapPaging {
    /// Which entries are in DRAM (sparse per-entry state: the logical space is mostly unused).
    pub cache: MapCache<Sparse<Slot>>,
    /// Flash page of each translation page, `NONE` while never written (its entries are all
    /// unmapped).
    gtd: Vec<u32>,
    /// The LBA-list mark of translation page 0 (the logical blocks).
    base: u64,
    /// Translation pages the lookups since the last [`Packed::take_map_reads`] must read.
    reads: Vec<u32>,
}

/// A flash page being filled in DRAM; its physical page is allocated when it opens.
#[derive(Debug, Clone, Copy)]
struct OpenPage {
    ppn: u32,
    fill: u32,
    /// Chunks that start or end in it.
    chunks: u32,
}

impl OpenPage {
    const EMPTY: OpenPage = OpenPage {
        ppn: NONE,
        fill: 0,
        chunks: 0,
    };
}

/// Counters of the packed FTL.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct PackedCounters {
    /// Pages programmed with host chunks.
    pub pages_programmed_host: u64,
    /// Pages programmed with GC-migrated chunks.
    pub pages_programmed_gc: u64,
    /// Page bytes left empty when a page was programmed (host pages).
    pub pad_bytes: u64,
    /// Page bytes left empty when a GC page was programmed.
    pub gc_pad_bytes: u64,
    /// Foreground GC episodes that cleaned at least one block.
    pub gc_invocations: u64,
    /// Valid chunks moved by GC.
    pub gc_chunks_migrated: u64,
    /// Bytes of those chunks.
    pub gc_bytes_migrated: u64,
    /// Victim pages read by GC.
    pub gc_pages_read: u64,
    /// Blocks erased by GC.
    pub gc_blocks_erased: u64,
    /// Host pages that waited for a free DRAM buffer slot.
    pub buffer_full_waits: u64,
    /// Mapped blocks discarded by TRIM.
    pub trimmed_blocks: u64,
}

/// The packed FTL.
pub struct Packed {
    geo: Geometry,
    page_size: u32,
    /// The logical-to-physical map.
    pub map: Map,
    blocks: Blocks,
    lbas: Vec<LbaList>,
    free: Vec<VecDeque<u32>>,
    open: Vec<u32>,
    host: OpenPage,
    /// When the DRAM slot of the open host page was granted (buffered mode).
    host_slot_at: SimTime,
    gc: Vec<OpenPage>,
    stripe: Vec<PlaneId>,
    cursor: usize,
    least_busy: bool,
    victim: VictimPolicy,
    victim_limit: u32,
    rng: Pcg64Mcg,
    gc_threshold: usize,
    /// Per page of the victim being cleaned: already read for it.
    page_read: Vec<bool>,
    /// The GC job being built: (page read, page programmed), `NONE` for either side.
    moves: Vec<(Ppn, Ppn)>,
    seal_counter: u64,
    /// Chunks may straddle two pages.
    straddle: bool,
    /// Most chunks per page (0: no limit).
    max_chunks: u32,
    /// A full host page held in DRAM while the next one opens (straddling), else `NONE`.
    held: u32,
    /// Per physical page (straddling only): the page holding the tail of its last chunk when
    /// that chunk straddles, else stale; one leaf per erase block, allocated when a page of the
    /// block links and freed with its LBA list once the block holds no valid byte.
    next: Sparse<u32>,
    /// Blocks whose valid bytes fell to zero since the last write, to free their LBA list and
    /// page links at the next one (see [`Packed::release_dead`]).
    dead: Vec<u32>,
    /// The chunk map under a DRAM budget (`ftl.map_cache`), if it is paged.
    pub paging: Option<MapPaging>,
    /// Mapped logical blocks.
    pub mapped: u64,
    /// Bytes of valid chunks.
    pub valid_bytes: u64,
    /// Counters since the last reset.
    pub counters: PackedCounters,
}

impl Packed {
    /// Bytes per erase block of the per-block arrays (state, valid bytes, free lists, the LBA
    /// list's header, the page-link leaf's slot), whatever the block holds (for the memory
    /// estimate).
    pub const BYTES_PER_BLOCK: usize = Blocks::BYTES_PER_BLOCK
        + std::mem::size_of::<u32>()
        + std::mem::size_of::<LbaList>()
        + std::mem::size_of::<Option<Box<[u32]>>>();

    /// Bytes of LBA list per page of a block holding valid data, at one run per page (a
    /// log-structured host's chunks go into a page in LBA order; for the memory estimate).
    pub const LIST_BYTES_PER_STORED_PAGE: usize = LbaList::RUN_BYTES;

    /// Bytes of page links per page of a block holding valid data, straddling.
    pub const LINK_BYTES_PER_STORED_PAGE: usize = std::mem::size_of::<u32>();

    /// An empty FTL over `geo` for a config, exposing `logical_blocks` 4 KiB blocks;
    /// `straddle`: chunks may straddle two pages.
    pub fn new(
        cfg: &SimConfig,
        geo: &Geometry,
        logical_blocks: u64,
        straddle: bool,
        max_chunks: u32,
    ) -> Result<Packed> {
        let block_bytes = geo.pages_per_block as u64 * geo.page_size as u64;
        let gc_threshold = ftl::gc_threshold_blocks(cfg) as usize;
        let bpp = geo.blocks_per_plane as usize;
        if block_bytes > u32::MAX as u64 {
            return Err(Error::config(
                "config",
                "nand.pages_per_block",
                format!("the CCSD counts valid bytes per block in 32 bits; blocks of {block_bytes} bytes are too large"),
            ));
        }
        let paging = paging_of(cfg, logical_blocks)?;
        let streams = 2 + paging.is_some() as usize;
        if bpp < gc_threshold + streams + 1 {
            return Err(Error::config(
                "config",
                "ftl.gc.threshold",
                format!(
                    "the CCSD keeps {gc_threshold} free blocks per plane for GC plus {streams} \
                     open blocks; {bpp} blocks per plane leave no room for data"
                ),
            ));
        }
        Ok(Packed {
            page_size: geo.page_size,
            map: Map::new(logical_blocks),
            blocks: Blocks::new(geo.blocks as usize),
            lbas: vec![LbaList::default(); geo.blocks as usize],
            free: (0..geo.planes)
                .map(|p| {
                    (0..geo.blocks_per_plane)
                        .map(|i| geo.block(PlaneId(p), i).0)
                        .collect()
                })
                .collect(),
            open: vec![NONE; geo.planes as usize * STREAMS],
            host: OpenPage::EMPTY,
            host_slot_at: SimTime::ZERO,
            gc: vec![OpenPage::EMPTY; geo.planes as usize],
            stripe: ftl::stripe_order(geo, cfg.ftl.striping),
            cursor: 0,
            least_busy: cfg.ftl.striping == Striping::LeastBusy,
            victim: cfg.ftl.gc.victim,
            // A victim must hold at most one page less than a block of valid data, so that
            // cleaning it frees space despite page padding.
            victim_limit: (block_bytes - geo.page_size as u64 + 1) as u32,
            rng: Pcg64Mcg::seed_from_u64(cfg.seed ^ 0x0063_6373_645f_6763),
            gc_threshold,
            page_read: vec![false; geo.pages_per_block as usize],
            moves: Vec::new(),
            seal_counter: 0,
            straddle,
            max_chunks,
            held: NONE,
            next: Sparse::new(
                if straddle { geo.pages } else { 0 },
                geo.pages_per_block as u64,
                NONE,
            ),
            dead: Vec::new(),
            paging,
            mapped: 0,
            valid_bytes: 0,
            counters: PackedCounters::default(),
            geo: geo.clone(),
        })
    }

    /// Erased blocks in the free pools.
    pub fn free_blocks(&self) -> u64 {
        self.free.iter().map(|f| f.len() as u64).sum()
    }

    /// Erased blocks in one plane's free pool.
    pub fn free_in_plane(&self, plane: PlaneId) -> u64 {
        self.free[plane.0 as usize].len() as u64
    }

    /// Whether a host page is being filled in DRAM.
    pub fn host_page_open(&self) -> bool {
        self.host.ppn != NONE
    }

    /// Whether physical page `ppn` is still being filled in DRAM (not yet programmed).
    #[inline]
    pub fn in_dram(&self, ppn: u32) -> bool {
        ppn == self.host.ppn
            || ppn == self.held
            || ppn == self.gc[self.geo.plane_of_ppn(Ppn(ppn as u64)).0 as usize].ppn
    }

    fn out_of_space(&self) -> Error {
        Error::Workload(format!(
            "CCSD out of physical space: {} bytes of valid chunks and GC finds no block to \
             clean (the host wrote more than fits after compression)",
            self.valid_bytes
        ))
    }

    /// Append a host chunk of `len` bytes for `lba`, its data in DRAM at `ready` (the back
    /// end's present). Returns when the host may be told it is written in buffered mode (the
    /// chunk is in a page with a DRAM slot).
    #[inline]
    pub fn write_host(
        &mut self,
        lba: u64,
        len: u32,
        ready: SimTime,
        flash: &mut impl PackedBackend,
    ) -> Result<SimTime> {
        if !self.dead.is_empty() {
            self.release_dead();
        }
        // An open page has room for one more chunk (it is closed when it reaches the most),
        // so only its bytes can refuse this one.
        if self.host.ppn != NONE
            && !fits(
                self.host.fill,
                self.host.chunks,
                len,
                self.page_size,
                self.max_chunks,
            )
        {
            if self.straddle {
                return self.straddle_host(lba, len, ready, flash);
            }
            self.program_host(flash);
        }
        if self.host.ppn == NONE {
            self.open_host(ready, flash)?;
        }
        let h = &mut self.host;
        let (ppn, off) = (h.ppn, h.fill);
        h.fill += len;
        h.chunks += 1;
        self.place(lba, ppn, off, len, ready);
        let ack = ready.max(self.host_slot_at);
        if self.full(&self.host) {
            self.program_host(flash);
        }
        Ok(ack)
    }

    /// A host chunk that overflows the open page: its head fills the page, its tail starts
    /// the next one. The full page is programmed only once the next page is open, so GC run
    /// to open it cannot pick the full page's block while the chunk is not yet mapped.
    fn straddle_host(
        &mut self,
        lba: u64,
        len: u32,
        ready: SimTime,
        flash: &mut impl PackedBackend,
    ) -> Result<SimTime> {
        let mut full = std::mem::replace(&mut self.host, OpenPage::EMPTY);
        let off = full.fill;
        full.fill = self.page_size;
        self.held = full.ppn;
        let opened = self.open_host(ready, flash);
        self.held = NONE;
        if let Err(e) = opened {
            self.host = full;
            return Err(e);
        }
        self.next.set(full.ppn as u64, self.host.ppn);
        self.program_host_page(full, flash);
        let h = &mut self.host;
        h.fill = off + len - self.page_size;
        h.chunks = 1;
        self.place(lba, full.ppn, off, len, ready);
        let ack = ready.max(self.host_slot_at);
        if self.full(&self.host) {
            self.program_host(flash);
        }
        Ok(ack)
    }

    /// An open page that takes no more chunks: all its bytes used, or its most chunks.
    #[inline]
    fn full(&self, p: &OpenPage) -> bool {
        p.fill == self.page_size || p.chunks == self.max_chunks
    }

    /// Program the open host page with its padding, if one is open; returns whether one was.
    pub fn flush_host(&mut self, flash: &mut impl PackedBackend) -> bool {
        let open = self.host.ppn != NONE;
        if open {
            self.program_host(flash);
        }
        open
    }

    fn open_host(&mut self, ready: SimTime, flash: &mut impl PackedBackend) -> Result<()> {
        let plane = self.pick_plane(HOST, ready, flash)?;
        let ppn = self.take_page(plane, HOST, flash)?;
        self.host_slot_at = match flash.buffer_slot() {
            Some(at) => {
                self.counters.buffer_full_waits += (at > ready) as u64;
                at
            }
            None => ready,
        };
        self.host = OpenPage {
            ppn,
            fill: 0,
            chunks: 0,
        };
        Ok(())
    }

    fn program_host(&mut self, flash: &mut impl PackedBackend) {
        let h = std::mem::replace(&mut self.host, OpenPage::EMPTY);
        self.program_host_page(h, flash);
    }

    fn program_host_page(&mut self, h: OpenPage, flash: &mut impl PackedBackend) {
        self.counters.pad_bytes += (self.page_size - h.fill) as u64;
        self.counters.pages_programmed_host += 1;
        flash.program_host(Ppn(h.ppn as u64));
        self.page_programmed(h.ppn);
    }

    /// The plane's GC page is full: its program joins the GC job being built, after the
    /// reads that filled it.
    fn program_gc(&mut self, plane: usize) {
        let g = std::mem::replace(&mut self.gc[plane], OpenPage::EMPTY);
        self.counters.gc_pad_bytes += (self.page_size - g.fill) as u64;
        self.counters.pages_programmed_gc += 1;
        match self.moves.last_mut() {
            Some(m) if m.1 == Ppn::NONE => m.1 = Ppn(g.ppn as u64),
            _ => self.moves.push((Ppn::NONE, Ppn(g.ppn as u64))),
        }
        self.page_programmed(g.ppn);
    }

    /// A block whose last page is programmed becomes a GC candidate.
    #[inline]
    fn page_programmed(&mut self, ppn: u32) {
        if self.geo.page_in_block(Ppn(ppn as u64)) + 1 == self.geo.pages_per_block {
            let b = self.geo.block_of(Ppn(ppn as u64)).0 as usize;
            self.blocks.state[b] = BlockState::Sealed;
            self.seal_counter += 1;
            self.blocks.sealed_seq[b] = self.seal_counter;
        }
    }

    /// The page holding the tail of a mapped chunk that straddles two pages.
    #[inline]
    pub fn tail_page(&self, e: u64) -> Option<u32> {
        (map::offset(e) + map::len(e) > self.page_size).then(|| self.next.get(map::ppn(e) as u64))
    }

    /// The parts of a mapped chunk: (page, bytes) of its head and, if it straddles, of its
    /// tail.
    #[inline]
    pub fn parts(&self, e: u64) -> [(u32, u32); 2] {
        let (ppn, off, len) = (map::ppn(e), map::offset(e), map::len(e));
        match self.tail_page(e) {
            Some(t) => [(ppn, self.page_size - off), (t, off + len - self.page_size)],
            None => [(ppn, len), (NONE, 0)],
        }
    }

    /// Whether a mapped chunk has a part in block `v`.
    #[inline]
    fn in_block(&self, e: u64, v: BlockId) -> bool {
        self.parts(e)
            .iter()
            .any(|&(p, _)| p != NONE && self.geo.block_of(Ppn(p as u64)) == v)
    }

    /// Map `lba` to a chunk, invalidating its old one, and record it in its blocks' lists.
    #[inline]
    fn place(&mut self, lba: u64, ppn: u32, off: u32, len: u32, at: SimTime) {
        let e = map::pack(ppn, off, len);
        let old = self.map.set(lba, e);
        if old != UNMAPPED {
            self.invalidate(old, at);
        } else {
            self.mapped += 1;
        }
        let mut last = NONE as usize;
        for (p, n) in self.parts(e) {
            if p == NONE {
                break;
            }
            let b = self.geo.block_of(Ppn(p as u64)).0 as usize;
            self.blocks.valid[b] += n;
            self.blocks.mtime[b] = at;
            if b != last {
                self.lbas[b].push(lba as u32);
                last = b;
            }
        }
        self.valid_bytes += len as u64;
    }

    #[inline]
    fn invalidate(&mut self, e: u64, at: SimTime) {
        for (p, n) in self.parts(e) {
            if p == NONE {
                break;
            }
            let b = self.geo.block_of(Ppn(p as u64)).0 as usize;
            self.blocks.valid[b] -= n;
            self.blocks.mtime[b] = at;
            if self.blocks.valid[b] == 0 {
                self.dead.push(b as u32);
            }
        }
        self.valid_bytes -= map::len(e) as u64;
    }

    /// Free the LBA list and page links of every block that still holds no valid byte: no
    /// mapped chunk has a part in it, so every listed LBA is stale (GC would skip it) and no
    /// read follows its links. A log-structured host overwrites whole blocks' worth of data,
    /// so without this the lists and links of long-dead blocks would grow with all data ever
    /// written rather than with the data stored. Runs between writes, never while a chunk is
    /// being placed (its page's link may be set before its bytes count).
    fn release_dead(&mut self) {
        while let Some(b) = self.dead.pop() {
            if self.blocks.valid[b as usize] == 0 {
                self.lbas[b as usize] = LbaList::default();
                if self.straddle {
                    self.next.drop_leaf(b as usize);
                }
            }
        }
    }

    /// Discard `lba`.
    pub fn trim(&mut self, lba: u64, at: SimTime) {
        self.map_lookup(lba, true);
        let old = self.map.unmap(lba);
        if old != UNMAPPED {
            self.invalidate(old, at);
            self.mapped -= 1;
            self.counters.trimmed_blocks += 1;
        }
    }

    /// Next plane in striping order whose `stream` can take a page, running foreground GC
    /// where a new block is needed.
    fn pick_plane(
        &mut self,
        stream: usize,
        at: SimTime,
        flash: &mut impl PackedBackend,
    ) -> Result<PlaneId> {
        let n = self.stripe.len();
        if self.least_busy {
            // Start the round-robin walk at the plane whose queued work ends first.
            self.cursor = flash.least_loaded(0, &self.stripe, self.cursor);
        }
        for _ in 0..n {
            let plane = self.stripe[self.cursor];
            self.cursor = (self.cursor + 1) % n;
            let p = plane.0 as usize;
            if self.open[p * STREAMS + stream] != NONE {
                return Ok(plane);
            }
            if self.free[p].len() < self.gc_threshold {
                self.gc(plane, at, flash)?;
            }
            // Leave one free block for GC's own destination.
            if self.free[p].len() >= 2 {
                return Ok(plane);
            }
        }
        Err(self.out_of_space())
    }

    /// Next page of `stream`'s open block in `plane`, opening a free block if needed. A
    /// block stays `Open` until its last page is programmed.
    fn take_page(
        &mut self,
        plane: PlaneId,
        stream: usize,
        flash: &mut impl FlashBackend,
    ) -> Result<u32> {
        let slot = plane.0 as usize * STREAMS + stream;
        if self.open[slot] == NONE {
            let Some(b) = self.free[plane.0 as usize].pop_front() else {
                return Err(self.out_of_space());
            };
            self.blocks.state[b as usize] = BlockState::Open;
            self.open[slot] = b;
            flash.block_opened(BlockId(b));
        }
        let b = self.open[slot];
        let wp = self.blocks.write_ptr[b as usize];
        self.blocks.write_ptr[b as usize] = wp + 1;
        if wp + 1 == self.geo.pages_per_block {
            self.open[slot] = NONE;
        }
        Ok(b * self.geo.pages_per_block + wp)
    }

    /// Clean blocks of `plane` until it has `gc_threshold` free blocks or nothing is worth
    /// cleaning.
    fn gc(&mut self, plane: PlaneId, at: SimTime, flash: &mut impl PackedBackend) -> Result<()> {
        let first = self.geo.block(plane, 0).0;
        let mut cleaned = 0u32;
        // Bounded: packing differences could otherwise make a nearly full plane cycle.
        while self.free[plane.0 as usize].len() < self.gc_threshold
            && cleaned < self.geo.blocks_per_plane
        {
            let Some(v) = victim::select(
                self.victim,
                &self.blocks,
                flash.programs_in_flight(),
                first,
                self.geo.blocks_per_plane,
                self.victim_limit,
                1,
                at,
                &mut self.rng,
            ) else {
                break;
            };
            self.clean(v, at, cleaned == 0, flash)?;
            cleaned += 1;
        }
        if cleaned > 0 {
            self.counters.gc_invocations += 1;
        }
        Ok(())
    }

    /// Re-pack a victim's valid chunks into its plane's GC page buffer and hand the back end
    /// the job: the victim's pages read (and other pages of straddling chunks), the GC pages
    /// that filled programmed after the reads that filled them, then the erase.
    fn clean(
        &mut self,
        v: BlockId,
        at: SimTime,
        first: bool,
        flash: &mut impl PackedBackend,
    ) -> Result<()> {
        let plane = self.geo.plane_of_block(v).0 as usize;
        let list = std::mem::take(&mut self.lbas[v.0 as usize]);
        self.page_read.iter_mut().for_each(|r| *r = false);
        self.moves.clear();
        for lba in list.iter() {
            if let Some(t) = self.tpage_listed(lba) {
                self.move_tpage(v, plane, t, at, flash)?;
                continue;
            }
            let e = self.map.get(lba as u64);
            if e == UNMAPPED || !self.in_block(e, v) {
                continue;
            }
            for (p, _) in self.parts(e) {
                if p != NONE {
                    self.gc_read(v, p);
                }
            }
            let len = map::len(e);
            self.append_gc(plane, lba as u64, len, at, flash)?;
            if let Some(m) = self.paging.as_mut() {
                m.cache.gc_update(lba);
            }
            self.counters.gc_chunks_migrated += 1;
            self.counters.gc_bytes_migrated += len as u64;
        }
        let b = v.0 as usize;
        if self.blocks.valid[b] != 0 {
            return Err(Error::Invariant(format!(
                "CCSD GC victim block {b} still holds {} valid bytes after migration",
                self.blocks.valid[b]
            )));
        }
        self.blocks.state[b] = BlockState::Free;
        self.blocks.write_ptr[b] = 0;
        let mut list = list;
        list.clear();
        self.lbas[b] = list;
        self.free[plane].push_back(v.0);
        self.counters.gc_blocks_erased += 1;
        let moves = std::mem::take(&mut self.moves);
        flash.gc_job(v, &moves, false, GcKind::Foreground { first });
        self.moves = moves;
        Ok(())
    }

    /// Page `p` must be in controller memory to migrate chunks of victim `v`: a victim page
    /// is read once per cleaning, a page elsewhere (the other part of a straddling chunk) is
    /// read for its chunk, a page still in DRAM needs no read.
    fn gc_read(&mut self, v: BlockId, p: u32) {
        if self.geo.block_of(Ppn(p as u64)) == v {
            let pi = self.geo.page_in_block(Ppn(p as u64)) as usize;
            if self.page_read[pi] {
                return;
            }
            self.page_read[pi] = true;
        } else if self.in_dram(p) {
            return;
        }
        self.counters.gc_pages_read += 1;
        self.moves.push((Ppn(p as u64), Ppn::NONE));
    }

    fn append_gc(
        &mut self,
        plane: usize,
        lba: u64,
        len: u32,
        at: SimTime,
        flash: &mut impl PackedBackend,
    ) -> Result<()> {
        if self.gc[plane].ppn != NONE
            && !fits(
                self.gc[plane].fill,
                self.gc[plane].chunks,
                len,
                self.page_size,
                self.max_chunks,
            )
        {
            if self.straddle {
                return self.straddle_gc(plane, lba, len, at, flash);
            }
            self.program_gc(plane);
        }
        if self.gc[plane].ppn == NONE {
            let ppn = self.take_page(PlaneId(plane as u32), GC, flash)?;
            self.gc[plane] = OpenPage {
                ppn,
                fill: 0,
                chunks: 0,
            };
        }
        let g = &mut self.gc[plane];
        let (ppn, off) = (g.ppn, g.fill);
        g.fill += len;
        g.chunks += 1;
        self.place(lba, ppn, off, len, at);
        if self.full(&self.gc[plane]) {
            self.program_gc(plane);
        }
        Ok(())
    }

    /// A GC chunk that overflows the plane's GC page: its head fills the page, its tail
    /// starts the stream's next page.
    fn straddle_gc(
        &mut self,
        plane: usize,
        lba: u64,
        len: u32,
        at: SimTime,
        flash: &mut impl PackedBackend,
    ) -> Result<()> {
        let tail = self.take_page(PlaneId(plane as u32), GC, flash)?;
        let (head, off) = (self.gc[plane].ppn, self.gc[plane].fill);
        self.gc[plane].fill = self.page_size;
        self.next.set(head as u64, tail);
        self.program_gc(plane);
        self.gc[plane] = OpenPage {
            ppn: tail,
            fill: off + len - self.page_size,
            chunks: 1,
        };
        self.place(lba, head, off, len, at);
        if self.full(&self.gc[plane]) {
            self.program_gc(plane);
        }
        Ok(())
    }

    /// Look the map entry of `lba` up in the DRAM cache of a demand-paged map (`dirty`: a
    /// write or TRIM changes it). One that misses, and whose translation page was ever
    /// written, leaves that page's read in [`Packed::map_reads`]. Does nothing with the whole
    /// map in DRAM.
    #[inline]
    pub fn map_lookup(&mut self, lba: u64, dirty: bool) {
        let Some(m) = self.paging.as_mut() else {
            return;
        };
        if !m.cache.access(lba as u32, dirty) {
            let p = m.gtd[m.cache.tpage_of(lba as u32) as usize];
            if p != NONE {
                m.cache.counters.translation_reads += 1;
                m.cache.counters.translation_lookup_reads += 1;
                m.reads.push(p);
            }
        }
    }

    /// The translation pages (flash pages) the lookups since [`Packed::clear_map_reads`]
    /// must read, in lookup order: one per miss.
    pub fn map_reads(&self) -> &[u32] {
        self.paging.as_ref().map_or(&[], |m| &m.reads)
    }

    /// Forget the translation reads handed over.
    pub fn clear_map_reads(&mut self) {
        if let Some(m) = self.paging.as_mut() {
            m.reads.clear();
        }
    }

    /// The demand-paged map's counters, if the map is paged.
    pub fn map_counters(&self) -> Option<mapcache::MapCacheCounters> {
        self.paging.as_ref().map(|m| m.cache.counters)
    }

    /// Write back the translation pages the cache has waiting (dirty evictions, GC updates
    /// of uncached entries) at `at`: each goes to a new page of the translation stream, its
    /// stored copy (if any) read to merge with. GC this needs runs first (and may add
    /// write-backs, written here too).
    pub fn flush_map(&mut self, at: SimTime, flash: &mut impl PackedBackend) -> Result<()> {
        while self.paging.as_ref().is_some_and(|m| m.cache.has_pending()) {
            let plane = self.pick_plane(MAP, at, flash)?;
            let m = self.paging.as_mut().expect("paged");
            let Some(t) = m.cache.take_pending() else {
                break;
            };
            let old = m.gtd[t as usize];
            m.cache.counters.translation_writes += 1;
            m.cache.counters.translation_reads += (old != NONE) as u64;
            let ppn = self.take_page(plane, MAP, flash)?;
            self.place_tpage(t, ppn, at);
            flash.write_back_map((old != NONE).then_some(Ppn(old as u64)), Ppn(ppn as u64));
            self.page_programmed(ppn);
        }
        Ok(())
    }

    /// Translation page `t` is now at `ppn`: its old page (if any) is invalid, its new block
    /// holds a page of valid bytes and lists it.
    fn place_tpage(&mut self, t: u32, ppn: u32, at: SimTime) {
        let m = self.paging.as_mut().expect("paged");
        let old = std::mem::replace(&mut m.gtd[t as usize], ppn);
        let mark = (m.base + t as u64) as u32;
        if old != NONE {
            let b = self.geo.block_of(Ppn(old as u64)).0 as usize;
            self.blocks.valid[b] -= self.page_size;
            self.blocks.mtime[b] = at;
            if self.blocks.valid[b] == 0 {
                self.dead.push(b as u32);
            }
        }
        let b = self.geo.block_of(Ppn(ppn as u64)).0 as usize;
        self.blocks.valid[b] += self.page_size;
        self.blocks.mtime[b] = at;
        self.lbas[b].push(mark);
    }

    /// The translation page a block's LBA list entry names, if it names one.
    #[inline]
    fn tpage_listed(&self, lba: u32) -> Option<u32> {
        let m = self.paging.as_ref()?;
        (lba as u64 >= m.base).then(|| (lba as u64 - m.base) as u32)
    }

    /// GC of victim `v`: translation page `t`, listed in it, moves to the plane's translation
    /// stream (read, then programmed) if it is still there; the directory follows.
    fn move_tpage(
        &mut self,
        v: BlockId,
        plane: usize,
        t: u32,
        at: SimTime,
        flash: &mut impl PackedBackend,
    ) -> Result<()> {
        let p = self.paging.as_ref().expect("paged").gtd[t as usize];
        if p == NONE || self.geo.block_of(Ppn(p as u64)) != v {
            return Ok(());
        }
        self.gc_read(v, p);
        let new = self.take_page(PlaneId(plane as u32), MAP, flash)?;
        match self.moves.last_mut() {
            Some(m) if m.1 == Ppn::NONE => m.1 = Ppn(new as u64),
            _ => self.moves.push((Ppn::NONE, Ppn(new as u64))),
        }
        self.place_tpage(t, new, at);
        self.paging
            .as_mut()
            .expect("paged")
            .cache
            .counters
            .translation_gc_migrations += 1;
        self.page_programmed(new);
        Ok(())
    }

    /// Forget times and counters (after an untimed fill).
    pub fn reset_time_and_counters(&mut self) {
        self.host_slot_at = SimTime::ZERO;
        self.blocks
            .mtime
            .iter_mut()
            .for_each(|t| *t = SimTime::ZERO);
        self.counters = PackedCounters::default();
        if let Some(m) = self.paging.as_mut() {
            m.cache.counters = Default::default();
            m.reads.clear();
        }
    }

    /// Check the structures against each other.
    pub fn check(&self) -> Result<()> {
        let bad = |m: String| Err(Error::Invariant(format!("CCSD: {m}")));
        let g = &self.geo;
        let nb = g.blocks as usize;
        let mut sum = vec![0u64; nb];
        let mut count = vec![0u64; nb];
        let (mut total, mut n) = (0u64, 0u64);
        for (lba, e) in self.map.mapped() {
            let (ppn, off, len) = (map::ppn(e), map::offset(e), map::len(e));
            if ppn as u64 >= g.pages {
                return bad(format!("LBA {lba} maps to page {ppn} past the array"));
            }
            let fits = if self.straddle {
                off < self.page_size
            } else {
                off + len <= self.page_size
            };
            if len == 0 || len > 4096 || !fits {
                return bad(format!(
                    "LBA {lba}: chunk at offset {off} of length {len} does not fit a page"
                ));
            }
            let mut last = NONE as usize;
            for (p, part) in self.parts(e) {
                if p == NONE {
                    break;
                }
                if p as u64 >= g.pages {
                    return bad(format!("LBA {lba}: tail page {p} past the array"));
                }
                let b = g.block_of(Ppn(p as u64)).0 as usize;
                if self.blocks.state[b] == BlockState::Free {
                    return bad(format!("LBA {lba} maps into free block {b}"));
                }
                if g.page_in_block(Ppn(p as u64)) >= self.blocks.write_ptr[b] {
                    return bad(format!("LBA {lba} maps to unwritten page {p}"));
                }
                sum[b] += part as u64;
                if b != last {
                    count[b] += 1;
                    last = b;
                }
            }
            total += len as u64;
            n += 1;
        }
        if let Some(m) = &self.paging {
            // Translation pages: a whole page of valid bytes each, listed in their block.
            for (t, &p) in m.gtd.iter().enumerate() {
                if p == NONE {
                    continue;
                }
                if p as u64 >= g.pages {
                    return bad(format!("translation page {t} at page {p} past the array"));
                }
                let b = g.block_of(Ppn(p as u64)).0 as usize;
                if self.blocks.state[b] == BlockState::Free
                    || g.page_in_block(Ppn(p as u64)) >= self.blocks.write_ptr[b]
                {
                    return bad(format!("translation page {t} at unwritten page {p}"));
                }
                sum[b] += self.page_size as u64;
                count[b] += 1;
            }
        }
        if total != self.valid_bytes || n != self.mapped {
            return bad(format!(
                "map holds {n} chunks of {total} bytes, counters say {} and {}",
                self.mapped, self.valid_bytes
            ));
        }
        for b in 0..nb {
            if sum[b] != self.blocks.valid[b] as u64 {
                return bad(format!(
                    "block {b}: {} valid bytes counted, mapped chunks sum to {}",
                    self.blocks.valid[b], sum[b]
                ));
            }
            if count[b] > 0 {
                let mut l: Vec<u32> = self.lbas[b].iter().collect();
                l.sort_unstable();
                l.dedup();
                let listed = l
                    .iter()
                    .filter(|&&lba| match self.tpage_listed(lba) {
                        Some(t) => {
                            let p = self.paging.as_ref().expect("listed").gtd[t as usize];
                            p != NONE && g.block_of(Ppn(p as u64)).0 as usize == b
                        }
                        None => {
                            let e = self.map.get(lba as u64);
                            e != UNMAPPED && self.in_block(e, BlockId(b as u32))
                        }
                    })
                    .count() as u64;
                if listed != count[b] {
                    return bad(format!(
                        "block {b}: {} chunks mapped into it, {listed} in its LBA list",
                        count[b]
                    ));
                }
            }
        }
        let mut in_pool = vec![false; nb];
        for (p, pool) in self.free.iter().enumerate() {
            for &b in pool {
                let bi = b as usize;
                if g.plane_of_block(BlockId(b)).0 as usize != p || in_pool[bi] {
                    return bad(format!("block {b} misplaced or twice in free pools"));
                }
                in_pool[bi] = true;
                if self.blocks.state[bi] != BlockState::Free
                    || self.blocks.valid[bi] != 0
                    || self.blocks.write_ptr[bi] != 0
                    || !self.lbas[bi].is_empty()
                {
                    return bad(format!("free-pool block {b} is not clean"));
                }
            }
        }
        for (b, &pooled) in in_pool.iter().enumerate() {
            if (self.blocks.state[b] == BlockState::Free) != pooled {
                return bad(format!(
                    "block {b}: state and free-pool membership disagree"
                ));
            }
        }
        for (slot, &b) in self.open.iter().enumerate() {
            if b != NONE
                && (self.blocks.state[b as usize] != BlockState::Open
                    || self.blocks.write_ptr[b as usize] >= g.pages_per_block)
            {
                return bad(format!("open slot {slot}: block {b} is not open with room"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nand::Nand;
    use rand::Rng;

    fn setup(page_size: u32, buffer_pages: u32, straddle: bool) -> (Packed, Nand) {
        setup_chunks(page_size, buffer_pages, straddle, 0)
    }

    fn setup_chunks(
        page_size: u32,
        buffer_pages: u32,
        straddle: bool,
        max_chunks: u32,
    ) -> (Packed, Nand) {
        let text = format!(
            "preset = \"tiny\"\n[nand]\npage_size = {page_size}\n\
             [ftl]\nwrite_buffer_pages = {buffer_pages}\n"
        );
        let cfg = SimConfig::from_toml_str(&text, "test").unwrap();
        let nand = Nand::new(&cfg.nand).unwrap();
        (
            Packed::new(&cfg, &nand.geo, logical(&nand), straddle, max_chunks).unwrap(),
            nand,
        )
    }

    /// Logical blocks: twice the physical user space (tiny: 15% OP).
    fn logical(nand: &Nand) -> u64 {
        nand.geo.capacity_bytes() * 85 / 100 / 4096 * 2
    }

    /// The reference packer: lays chunks byte by byte into a sequence of pages, each byte
    /// owned by the chunk (its write number) that put it there; a flush pads the open page.
    struct Bytes {
        page: usize,
        pages: Vec<Vec<u32>>,
        at: usize,
        pad: u64,
        flushed: u64,
    }

    impl Bytes {
        fn new(page: u32) -> Bytes {
            Bytes {
                page: page as usize,
                pages: Vec::new(),
                at: 0,
                pad: 0,
                flushed: 0,
            }
        }

        /// Lay chunk `id` of `len` bytes; returns its start (page index, offset).
        fn lay(&mut self, id: u32, len: u32) -> (usize, usize) {
            let mut start = None;
            for _ in 0..len {
                if self.at == self.pages.len() * self.page {
                    self.pages.push(vec![0; self.page]);
                }
                let (k, o) = (self.at / self.page, self.at % self.page);
                start.get_or_insert((k, o));
                self.pages[k][o] = id;
                self.at += 1;
            }
            start.unwrap()
        }

        fn flush(&mut self) {
            let o = self.at % self.page;
            if o != 0 {
                self.pad += (self.page - o) as u64;
                self.at += self.page - o;
                self.flushed += 1;
            }
        }

        /// Pages completely laid (filled or flushed).
        fn closed(&self) -> u64 {
            (self.at / self.page) as u64
        }
    }

    /// Random chunks into a straddling packer and the byte-by-byte reference: every chunk
    /// starts at the same offset of the same page (the reference's page sequence maps one to
    /// one onto physical pages), pages programmed and padding agree, and after random
    /// overwrites each block's valid bytes equal the live bytes the reference finds in it.
    #[test]
    fn straddling_packer_matches_a_byte_by_byte_reference() {
        for (page, buffer) in [(4096, 8), (4096, 0), (16384, 4), (16384, 0)] {
            let (mut f, mut nand) = setup(page, buffer, true);
            let mut r = Bytes::new(page);
            let mut rng = Pcg64Mcg::seed_from_u64(page as u64 + buffer as u64);
            let span = 1500u64;
            let mut live = vec![0u32; span as usize];
            let mut ppn_of: Vec<u32> = Vec::new();
            let at = |k: usize, p: u32, ppn_of: &mut Vec<u32>| {
                if k == ppn_of.len() {
                    assert!(!ppn_of.contains(&p), "page {p} reused");
                    ppn_of.push(p);
                }
                assert_eq!(ppn_of[k], p, "reference page {k}");
            };
            let mut id = 0u32;
            // About half the capacity: no GC.
            while r.at < nand.geo.capacity_bytes() as usize / 2 {
                let n = rng.random_range(1..=16u64);
                let lba = rng.random_range(0..span - n);
                for i in 0..n {
                    id += 1;
                    let len = if rng.random_range(0..8) == 0 {
                        4096
                    } else {
                        rng.random_range(1..=4096u32)
                    };
                    let (k, o) = r.lay(id, len);
                    live[(lba + i) as usize] = id;
                    f.write_host(lba + i, len, SimTime::ZERO, &mut nand)
                        .unwrap();
                    let e = f.map.get(lba + i);
                    assert_eq!((map::offset(e), map::len(e)), (o as u32, len));
                    at(k, map::ppn(e), &mut ppn_of);
                    match f.tail_page(e) {
                        Some(t) => {
                            assert!(o + len as usize > page as usize);
                            at(k + 1, t, &mut ppn_of);
                        }
                        None => assert!(o + len as usize <= page as usize),
                    }
                }
                if buffer == 0 {
                    f.flush_host(&mut nand);
                    r.flush();
                }
            }
            let c = f.counters;
            assert_eq!(c.gc_blocks_erased, 0);
            assert_eq!(c.pages_programmed_host, r.closed(), "page {page}: pages");
            assert_eq!(c.pad_bytes, r.pad, "page {page}: padding");
            if buffer > 0 {
                assert_eq!(c.pad_bytes, 0, "buffered straddling never pads");
            }
            let mut want = vec![0u64; nand.geo.blocks as usize];
            let mut is_live = vec![false; id as usize + 1];
            live.iter().for_each(|&w| is_live[w as usize] = w != 0);
            for (k, bytes) in r.pages.iter().enumerate() {
                let b = nand.geo.block_of(Ppn(ppn_of[k] as u64)).0 as usize;
                want[b] += bytes.iter().filter(|&&w| is_live[w as usize]).count() as u64;
            }
            let got: Vec<u64> = f.blocks.valid.iter().map(|&v| v as u64).collect();
            assert_eq!(got, want, "page {page}: valid bytes per block");
            assert_eq!(f.valid_bytes, want.iter().sum::<u64>());
            f.check().unwrap();
        }
    }

    /// Physical bytes of every live chunk: no byte of a page belongs to two chunks.
    fn assert_no_overlap(f: &Packed) {
        let mut owner: std::collections::BTreeMap<u32, Vec<u64>> = Default::default();
        for (lba, e) in f.map.mapped() {
            let mut off = map::offset(e);
            for (p, n) in f.parts(e) {
                if p == NONE {
                    break;
                }
                let page = owner
                    .entry(p)
                    .or_insert_with(|| vec![u64::MAX; f.page_size as usize]);
                for o in off..off + n {
                    assert_eq!(page[o as usize], u64::MAX, "LBA {lba} overlaps page {p}");
                    page[o as usize] = lba;
                }
                off = 0;
            }
        }
    }

    /// Heavy random overwrites with GC, straddling: every LBA keeps its chunk length, no
    /// two chunks share a byte, the invariant check (valid bytes of both parts' blocks, LBA
    /// lists) holds throughout, and straddling programs fewer pages than padding would for
    /// the same chunk sequence.
    #[test]
    fn straddling_gc_keeps_every_chunk_once_and_its_bytes_counted() {
        let mut pages = Vec::new();
        for straddle in [true, false] {
            let (mut f, mut nand) = setup(4096, 8, straddle);
            let mut rng = Pcg64Mcg::seed_from_u64(9);
            // 60% of the physical user space at a mean chunk of 2 KiB.
            let span = logical(&nand) * 6 / 10;
            let mut last = vec![0u32; span as usize];
            let cap = nand.geo.capacity_bytes() / 4096;
            for w in 0..4 * cap {
                let lba = rng.random_range(0..span);
                let len = rng.random_range(1024..=3072u32);
                f.write_host(lba, len, SimTime(w * 1000), &mut nand)
                    .unwrap();
                last[lba as usize] = len;
                if rng.random_range(0..64) == 0 {
                    let t = rng.random_range(0..span);
                    f.trim(t, SimTime(w * 1000));
                    last[t as usize] = 0;
                }
                if w % 2048 == 0 {
                    f.check().unwrap();
                }
            }
            assert!(f.counters.gc_blocks_erased > 100, "{:?}", f.counters);
            f.check().unwrap();
            assert_no_overlap(&f);
            for (lba, &len) in last.iter().enumerate() {
                let e = f.map.get(lba as u64);
                if len == 0 {
                    assert_eq!(e, UNMAPPED, "LBA {lba}");
                } else {
                    assert_eq!(map::len(e), len, "LBA {lba}");
                }
            }
            let want: u64 = last.iter().map(|&l| l as u64).sum();
            assert_eq!(f.valid_bytes, want);
            pages.push(f.counters.pages_programmed_host + f.counters.pages_programmed_gc);
        }
        assert!(
            pages[0] < pages[1],
            "straddling programs fewer pages: {pages:?}"
        );
    }

    /// A log-structured host rewriting its space in rounds leaves whole blocks without valid
    /// data: their LBA lists and page links are freed, so what the FTL keeps per block
    /// follows the data stored, not all data ever written; GC still finds every valid chunk
    /// (the invariants hold, every LBA maps to its last length) once the rounds outgrow the
    /// flash.
    #[test]
    fn blocks_without_valid_data_keep_no_list_and_no_links() {
        for straddle in [true, false] {
            let (mut f, mut nand) = setup(4096, 8, straddle);
            let mut rng = Pcg64Mcg::seed_from_u64(17);
            // 30% of the physical user space at a mean chunk of 2 KiB: a round fills about
            // 15% of the flash, so six rounds need GC.
            let span = logical(&nand) * 3 / 10;
            let mut last = vec![0u32; span as usize];
            let mut t = 0u64;
            for round in 0..6 {
                for lba in 0..span {
                    let len = rng.random_range(1024..=3072u32);
                    f.write_host(lba, len, SimTime(t), &mut nand).unwrap();
                    last[lba as usize] = len;
                    t += 1000;
                }
                f.release_dead();
                let live = f.blocks.valid.iter().filter(|&&v| v > 0).count();
                for (b, &v) in f.blocks.valid.iter().enumerate() {
                    if v == 0 {
                        assert!(
                            f.lbas[b].is_empty(),
                            "round {round}: block {b} kept its list"
                        );
                    }
                }
                assert!(
                    f.next.leaves_allocated() <= live,
                    "round {round}: {} link leaves for {live} blocks with data",
                    f.next.leaves_allocated()
                );
                if straddle && round > 0 {
                    // The rounds before this one are dead: links cover about one round.
                    assert!(f.next.leaves_allocated() > 0);
                    assert!(
                        live < nand.geo.blocks as usize / 3,
                        "{live} blocks hold data"
                    );
                }
                f.check().unwrap();
            }
            assert!(f.counters.gc_blocks_erased > 0, "{:?}", f.counters);
            for (lba, &len) in last.iter().enumerate() {
                assert_eq!(map::len(f.map.get(lba as u64)), len, "LBA {lba}");
            }
            assert_no_overlap(&f);
        }
    }

    /// The most chunks per page (the reverse map's entries, PR-SSD's 20): 1,000-byte chunks
    /// into 16 KiB pages close a page every `max` chunks, with or without straddling, and the
    /// rest of each page is padding; without a limit only bytes close pages.
    #[test]
    fn a_page_closes_at_its_most_chunks() {
        for straddle in [false, true] {
            for (max, n) in [(3u32, 30u64), (16, 32), (0, 32)] {
                let (mut f, mut nand) = setup_chunks(16384, 0, straddle, max);
                for i in 0..n {
                    f.write_host(i, 1000, SimTime::ZERO, &mut nand).unwrap();
                }
                // 16 x 1000 <= 16384 < 17 x 1000. A page at its most chunks closes at once; one
                // full by bytes closes when the next chunk does not fit (or, straddling, when
                // its last byte is written).
                let per_page = if max == 0 { 16 } else { max as u64 };
                let want = match (max, straddle) {
                    (0, true) => n * 1000 / 16384,
                    (0, false) => (n - 1) / per_page,
                    _ => n / per_page,
                };
                assert_eq!(
                    f.counters.pages_programmed_host, want,
                    "straddle {straddle}, max {max}"
                );
                if !straddle || max != 0 {
                    assert_eq!(
                        f.counters.pad_bytes,
                        want * (16384 - per_page * 1000),
                        "straddle {straddle}, max {max}"
                    );
                } else {
                    assert_eq!(f.counters.pad_bytes, 0);
                }
            }
        }
        // 7,000-byte chunks, at most 3 per page, straddling: chunk 3 straddles pages 1 and 2
        // and chunk 5 pages 2 and 3, each counting in both; page 3 closes at chunk 7, its
        // third (2,232 + 2 x 7,000 = 16,232 bytes, 152 of padding). Without straddling, a
        // page takes two chunks and pads 2,384 bytes.
        for (straddle, pad) in [(true, 152), (false, 3 * 2384)] {
            let (mut f, mut nand) = setup_chunks(16384, 0, straddle, 3);
            for i in 0..7 {
                f.write_host(i, 7000, SimTime::ZERO, &mut nand).unwrap();
            }
            assert_eq!(f.counters.pages_programmed_host, 3, "straddle {straddle}");
            assert_eq!(f.counters.pad_bytes, pad, "straddle {straddle}");
        }
    }
}
