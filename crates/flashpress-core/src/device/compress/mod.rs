//! Compression in the plain SSD's controller (`ftl.compression`; PR-SSD section 2.2): each
//! logical page written is compressed by one engine, first come first served; compressed
//! pages merge in a page buffer ([`PagePacker`]) whose full pages the page FTL writes as
//! virtual pages, so GC moves them whole; a compressed page read from flash is decompressed
//! by one engine before it goes to the host.
//!
//! DRAM: a closed page is programmed from one of `ftl.write_buffer_pages` buffer pages, taken
//! when its data is all in and given back when its program completes; a closed page that
//! finds none waits for one, first come first served (as the plain write buffer's pages do).
//! A logical page is written (acknowledged) once its data is compressed and in DRAM, unless
//! closed pages are waiting for a buffer page: then it waits until none is.

use crate::config::{DeviceCompression, SimConfig};
use crate::content::{ContentModel, MeasureId};
use crate::error::{Error, Result};
use crate::ftl::packed::pages::{Chunk, Effects, PackerCounters, PagePacker};
use crate::ftl::packed::zoned::ZonePacker;
use crate::units::{duration_ns, SimTime, MAX_OP_NS};
use std::collections::VecDeque;

mod history;
mod path;

use crate::units::Ppn;
use history::History;

/// Counters of the controller's compression.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CompressionCounters {
    /// Packing (compressed and raw pages, merged pages, padding).
    #[serde(flatten)]
    pub packer: PackerCounters,
    /// Compressed pages decompressed for host reads.
    pub decompressed_pages: u64,
    /// Old data of partial-page writes decompressed before it merges.
    pub merge_decompressed_pages: u64,
    /// Logical page reads served from the page being filled in DRAM (no flash read).
    pub dram_page_reads: u64,
    /// Logical pages written compressed (the rest of the stored ones are stored as written:
    /// compression failed or saved less than `min_saving`).
    pub compressed_pages: u64,
    /// All-zero 4 KiB units not stored (`zero_units`).
    pub zero_units: u64,
    /// Logical pages stored with some but not all units zero (`zero_units`; PR-SSD Fig. 6b's
    /// partial zero pages).
    pub partial_zero_pages: u64,
    /// Logical page reads that asked for zero units only (no flash read).
    pub zero_reads: u64,
    /// Logical pages whose write waited for a buffer page.
    pub buffer_full_waits: u64,
    /// Engine time compressing (ns).
    pub compress_busy_ns: u64,
    /// Engine time decompressing (ns).
    pub decompress_busy_ns: u64,
    /// Engine time decompressing old data for partial-page writes (ns).
    pub merge_decompress_busy_ns: u64,
    /// Pages that did not compress and were not split: the host write was larger than a
    /// page (split decision).
    pub split_refused_size: u64,
    /// ... or the page was last read by a host read larger than a page (split decision).
    pub split_refused_history: u64,
    /// ... or the split table was full.
    pub split_refused_full: u64,
    /// Host reads whose flash reads each went to a channel of their own (PR-SSD Fig. 19).
    pub reads_no_conflict: u64,
    /// Host reads with two flash reads on one channel, none of them of a split piece.
    pub reads_conflict_normal: u64,
    /// Host reads with two flash reads on one channel, one of them of a split piece.
    pub reads_conflict_split: u64,
}

/// What verify mode keeps to check compressed reads: per virtual page, the chunks written
/// into it (logical page, offset, content id) since it was last taken from the free pool,
/// and the id the page FTL stored it under.
struct Residents {
    chunks: Vec<Vec<(u64, u32, u64)>>,
    page_id: Vec<u64>,
    /// Per logical page stored as zeros only: the content id written.
    zero: Vec<u64>,
    /// Logical pages (and content ids) that joined the split group being filled.
    split: Vec<(u64, u64)>,
}

/// Bytes of the mapping table a plain SSD of this config keeps in DRAM, counted the way
/// PR-SSD section 4.4.1 counts it: per logical page its flash page number (32 bits, as
/// flashpress stores it), with compression a compression flag and the location in the page
/// (enough bits for `max_chunks_per_page` slots), with partial reads and compression a
/// partial bitmap (a bit per unit), with zero units a zero bitmap (a bit per 4 KiB unit);
/// per flash page the reverse map GC needs (a 32-bit logical page per slot) and, with
/// compression, a count of merged pages and a valid bitmap (a bit per slot).
pub fn mapping_table_bytes(cfg: &SimConfig) -> u64 {
    let n = &cfg.nand;
    let physical = crate::nand::Geometry::new(n).pages;
    let logical = crate::ftl::logical_pages(cfg);
    let bits = |x: u32| 32 - x.saturating_sub(1).leading_zeros() as u64;
    let (per_lpn, per_page) = match cfg.ftl.compression() {
        None => (32, 32),
        Some(c) => {
            let slots = c.max_chunks_per_page as u64;
            let units = n.partial_unit().map_or(0, |u| (n.page_size / u) as u64);
            let zero = if c.zero_units {
                (n.page_size / 4096) as u64
            } else {
                0
            };
            let split = c.split.is_some() as u64;
            (
                32 + 1 + bits(c.max_chunks_per_page) + units + zero + split,
                bits(c.max_chunks_per_page + 1) + slots + 32 * slots,
            )
        }
    };
    (logical * per_lpn + physical * per_page).div_ceil(8)
}

/// Bytes of the split mapping table (PR-SSD Fig. 13) for `pages` split logical pages: per
/// piece a flash page number (32 bits) and the piece's partial index in it.
pub fn split_table_bytes(cfg: &SimConfig, pages: u64) -> u64 {
    let pieces = cfg
        .nand
        .partial_unit()
        .map_or(1, |u| cfg.nand.page_size / u) as u64;
    let index = 64 - (pieces - 1).leading_zeros() as u64;
    (pages * pieces * (32 + index)).div_ceil(8)
}

/// Where compressed pages go: virtual pages the page FTL maps (a plain SSD), or the zones'
/// own flash pages in order (a zoned device). One per device, so its size does not matter.
#[allow(clippy::large_enum_variant)]
enum Packing {
    Pages(PagePacker),
    Zones(ZonePacker),
}

fn pages(p: &Packing) -> &PagePacker {
    match p {
        Packing::Pages(p) => p,
        Packing::Zones(_) => panic!("a zoned device's compression packs zones, not pages"),
    }
}

/// The controller's compression state.
pub struct Compression {
    /// Where the compressed pages go.
    packing: Packing,
    measure: MeasureId,
    blocks_per_page: u64,
    min_saving: f64,
    zero_units: bool,
    /// Per logical page: its zero bitmap (bits 0..8, one per 4 KiB unit) and whether it is
    /// stored compressed (bit 8).
    meta: Vec<u16>,
    compress_ns: u64,
    decompress_ns: u64,
    compress_free: SimTime,
    decompress_free: SimTime,
    /// The page being filled and when all its chunks are in DRAM.
    open_ready: Option<(u32, SimTime)>,
    buffer_pages: usize,
    /// Buffer pages holding a closed page being programmed.
    slots_used: usize,
    /// Closed pages (flash page, the request whose block completed it or `NO_REQ`, since)
    /// waiting for a buffer page.
    pages_waiting: VecDeque<(Ppn, u32, SimTime)>,
    /// Logical pages (request, since) waiting for the closed pages to find buffer pages.
    waiters: VecDeque<(u32, SimTime)>,
    /// Effects of the last packer call (kept to reuse its vectors).
    pub fx: Effects,
    residents: Option<Residents>,
    next_page_id: u64,
    /// Split decision (with `split`).
    history: Option<History>,
    /// When the split group being filled is all in DRAM.
    split_ready: SimTime,
    /// Largest host request (bytes) whose pages the split decision splits: as many pages as
    /// the channels can read all pieces of at once (PR-SSD section 4.3.1: one page with four
    /// channels and four pieces, two with eight).
    split_limit: u64,
    /// Logical pages exposed to the host.
    logical: u64,
    /// Counters since the last reset.
    pub counters: CompressionCounters,
}

/// How a logical page is stored: its bytes, whether compressed, its zero bitmap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stored {
    /// Bytes stored (0: zeros only).
    pub len: u32,
    /// Stored compressed.
    pub compressed: bool,
    /// Zero bitmap (bit `i`: 4 KiB unit `i` holds only zeros, not stored).
    pub zeros: u16,
}

/// A closed virtual page to write and when its data is all in DRAM.
pub struct PageWrite {
    pub vpn: u32,
    pub ready: SimTime,
    /// Id the page FTL stores it under (verify mode checks it on reads).
    pub page_id: u64,
}

impl Compression {
    /// For a validated config with `ftl.compression` on; `vpns` virtual pages (the page
    /// FTL's logical pages), one fewer logical pages for the host.
    pub fn new(cfg: &SimConfig, vpns: u32, content: &mut ContentModel) -> Result<Compression> {
        let c = cfg.ftl.compression().expect("compression is on");
        let page = cfg.nand.page_size;
        if vpns < 2 {
            return Err(Error::config(
                "config",
                "ftl.op_ratio",
                "compression needs at least 2 logical pages".to_string(),
            ));
        }
        let split = c.split.as_ref().map(|s| {
            let unit = cfg.nand.partial_unit().expect("validated");
            let pieces = (page / unit) as u64;
            (s, unit, (s.max_split_pages / pieces) * (pieces - 1))
        });
        // Every VPN in use holds a logical page, but for the open page and the pieces - 1
        // VPNs a split group of one live page holds beyond it (the page FTL maps that many
        // more: ftl::split_reserve_pages).
        let logical = vpns as u64 - 1 - split.map_or(0, |s| s.2);
        debug_assert_eq!(logical + 1, crate::ftl::logical_pages(cfg));
        let mut packer = PagePacker::new(page, c.max_chunks_per_page, logical, vpns);
        if let Some((s, unit, _)) = split {
            packer = packer.with_split(unit, s.max_split_pages);
        }
        if crate::ftl::mapcache::demand(cfg).is_some() {
            packer = packer.with_residents();
        }
        let mut out = Compression::build(
            cfg,
            c,
            "ftl.compression",
            logical,
            Packing::Pages(packer),
            content,
        )?;
        out.history = split.map(|(s, _, _)| History::new(s, logical));
        out.split_limit = page as u64
            * split.map_or(1, |(_, unit, _)| (cfg.nand.channels / (page / unit)).max(1)) as u64;
        out.residents = cfg.check.verify.then(|| Residents {
            chunks: vec![Vec::new(); vpns as usize],
            page_id: vec![0; vpns as usize],
            zero: vec![0; vpns as usize],
            split: Vec::new(),
        });
        Ok(out)
    }

    /// For a zoned device whose zones the controller compresses (`zns.compression`, CCZNS):
    /// `zones` zones of `zone_blocks` logical blocks over `flash_pages` flash pages each.
    pub fn zoned(
        cfg: &SimConfig,
        c: &DeviceCompression,
        zones: u32,
        zone_blocks: u64,
        flash_pages: u64,
        content: &mut ContentModel,
    ) -> Result<Compression> {
        let packer = ZonePacker::new(
            cfg.nand.page_size,
            c.max_chunks_per_page,
            zones,
            zone_blocks,
            flash_pages,
        );
        let mut out = Compression::build(
            cfg,
            c,
            "zns.compression",
            zones as u64 * zone_blocks,
            Packing::Zones(packer),
            content,
        )?;
        // Verify mode: a zone page's chunks are kept under its index among all zones' pages
        // (zone x flash pages + page), as a plain SSD's under its virtual page.
        let pages = zones as usize * flash_pages as usize;
        out.residents = cfg.check.verify.then(|| Residents {
            chunks: vec![Vec::new(); pages],
            page_id: vec![0; pages],
            zero: vec![0; zones as usize * zone_blocks as usize],
            split: Vec::new(),
        });
        Ok(out)
    }

    /// What both packings share: the codec's measure, the engines, the buffer pages.
    fn build(
        cfg: &SimConfig,
        c: &DeviceCompression,
        key: &str,
        logical: u64,
        packing: Packing,
        content: &mut ContentModel,
    ) -> Result<Compression> {
        let page = cfg.nand.page_size;
        let measure = content.add_measure(c.codec, page, key)?;
        let ns = |k: &str, us: f64| duration_ns(&format!("{key}.{k}"), us, 1e3, MAX_OP_NS);
        Ok(Compression {
            history: None,
            split_ready: SimTime::ZERO,
            split_limit: page as u64,
            logical,
            packing,
            measure,
            blocks_per_page: page as u64 / 4096,
            min_saving: c.min_saving,
            zero_units: c.zero_units,
            meta: vec![0; logical as usize],
            compress_ns: ns("compress_us", c.compress_us)?,
            decompress_ns: ns("decompress_us", c.decompress_us)?,
            compress_free: SimTime::ZERO,
            decompress_free: SimTime::ZERO,
            open_ready: None,
            buffer_pages: cfg.ftl.write_buffer_pages as usize,
            slots_used: 0,
            pages_waiting: VecDeque::new(),
            waiters: VecDeque::new(),
            fx: Effects::default(),
            residents: None,
            next_page_id: 1 << 62,
            counters: CompressionCounters::default(),
        })
    }

    /// The packer of a plain SSD's compression (virtual pages through the page FTL).
    pub fn packer(&self) -> &PagePacker {
        pages(&self.packing)
    }

    fn pages_mut(&mut self) -> &mut PagePacker {
        match &mut self.packing {
            Packing::Pages(p) => p,
            Packing::Zones(_) => panic!("a zoned device's compression packs zones, not pages"),
        }
    }

    /// The packer of a zoned device's compressed zones.
    pub fn zones(&self) -> &ZonePacker {
        match &self.packing {
            Packing::Zones(p) => p,
            Packing::Pages(_) => panic!("a plain SSD's compression packs pages, not zones"),
        }
    }

    /// The zone packer, to place and reset.
    pub fn zones_mut(&mut self) -> &mut ZonePacker {
        match &mut self.packing {
            Packing::Zones(p) => p,
            Packing::Pages(_) => panic!("a plain SSD's compression packs pages, not zones"),
        }
    }

    /// Place block `k` of compressed zone `z` (logical page `lpn`) as `len` bytes holding
    /// content `id` ([`ZonePacker::write`]); the zone pages this closed are pushed to
    /// `closed`, each named by a new page id ([`Compression::zone_page_id`]).
    pub fn place_zoned(
        &mut self,
        z: u32,
        k: u64,
        lpn: u64,
        len: u32,
        id: u64,
        closed: &mut Vec<u32>,
    ) -> Chunk {
        let from = closed.len();
        let c = self.zones_mut().write(z, k, len, closed);
        let at = self.zones().page_index(z, c.vpn);
        if let Some(r) = self.residents.as_mut() {
            if c.zero() {
                r.zero[lpn as usize] = id;
            } else {
                // A zone's pages fill in order: the chunk at offset 0 opened its page.
                if c.offset == 0 {
                    r.chunks[at as usize].clear();
                }
                r.chunks[at as usize].push((lpn, c.offset, id));
            }
        }
        self.name_zone_pages(z, &closed[from..]);
        c
    }

    /// Close compressed zone `z`'s open page, if any (pushed to `closed`, named as by
    /// [`Compression::place_zoned`]).
    pub fn flush_zoned(&mut self, z: u32, closed: &mut Vec<u32>) {
        let from = closed.len();
        self.zones_mut().flush(z, closed);
        self.name_zone_pages(z, &closed[from..]);
    }

    /// Verify mode: give the zone pages just closed the ids their flash pages store.
    fn name_zone_pages(&mut self, z: u32, closed: &[u32]) {
        if self.residents.is_none() {
            return;
        }
        for &p in closed {
            self.next_page_id += 1;
            let at = self.zones().page_index(z, p) as usize;
            let r = self.residents.as_mut().expect("checked");
            r.page_id[at] = self.next_page_id;
        }
    }

    /// Verify mode: the id compressed zone `z`'s page `p` is stored under once closed (the
    /// flash page holds it); 0 without verify mode.
    pub fn zone_page_id(&self, z: u32, p: u32) -> u64 {
        self.residents
            .as_ref()
            .map_or(0, |r| r.page_id[self.zones().page_index(z, p) as usize])
    }

    /// The content id a read of block `k` of compressed zone `z` (logical page `lpn`) finds,
    /// checked against the id its flash page holds (`flash_id(p)` for zone page `p`): 0 for
    /// a block not written since the zone's reset. Verify mode only.
    pub fn zoned_read_id(
        &self,
        z: u32,
        k: u64,
        lpn: u64,
        flash_id: impl Fn(u32) -> u64,
    ) -> Result<u64> {
        let p = self.zones();
        let Some(ch) = p.lookup(z, k) else {
            return Ok(0);
        };
        if ch.zero() {
            return self.read_id(lpn, ch, None);
        }
        let flash = (!p.is_open(z, ch.vpn)).then(|| flash_id(ch.vpn));
        let at = Chunk {
            vpn: p.page_index(z, ch.vpn),
            ..ch
        };
        self.read_id(lpn, at, flash)
    }

    /// Logical pages exposed to the host: one fewer than the page FTL's logical pages (the
    /// page being filled takes a virtual page of its own).
    pub fn logical_pages(&self) -> u64 {
        self.logical
    }

    /// Whether a page of `lpn` that did not compress, written by a host write of `req_len`
    /// bytes, is split (the split decision), counting why not.
    pub fn split_decision(&mut self, lpn: u64, req_len: u64) -> bool {
        let Some(h) = self.history.as_mut() else {
            return false;
        };
        if !matches!(h, History::All) {
            if req_len > self.split_limit {
                self.counters.split_refused_size += 1;
                return false;
            }
            if h.large(lpn) {
                self.counters.split_refused_history += 1;
                return false;
            }
        }
        if !self.pages_mut().can_split() {
            self.counters.split_refused_full += 1;
            return false;
        }
        true
    }

    /// A host read of `req_len` bytes read logical page `lpn` (the split decision's history).
    #[inline]
    pub fn record_read(&mut self, lpn: u64, req_len: u64) {
        if let Some(h) = self.history.as_mut() {
            h.record(lpn, req_len > self.split_limit);
        }
    }

    /// Place logical page `lpn`, which did not compress, in the split group being filled; its
    /// data is in DRAM at `ready` and holds content `id`. When the group closes its pages are
    /// in `out` (and `self.fx.group` is set).
    pub fn place_split(
        &mut self,
        lpn: u64,
        ready: SimTime,
        id: u64,
        out: &mut Vec<PageWrite>,
    ) -> Result<Chunk> {
        let mut fx = std::mem::take(&mut self.fx);
        fx.clear();
        let c = self.pages_mut().write_split(lpn, &mut fx)?;
        self.split_ready = self.split_ready.max(ready);
        if let Some(r) = self.residents.as_mut() {
            r.split.push((lpn, id));
        }
        if fx.group.is_some() {
            let members = pages(&self.packing).closed_members();
            let unit = pages(&self.packing).piece(c, 0).len;
            let k = members.len();
            for &vpn in &fx.write[fx.write.len() - k..] {
                self.next_page_id += 1;
                out.push(PageWrite {
                    vpn,
                    ready: self.split_ready,
                    page_id: self.next_page_id,
                });
                if let Some(r) = self.residents.as_mut() {
                    let ids = &r.split;
                    let list: Vec<(u64, u32, u64)> = members
                        .iter()
                        .enumerate()
                        .map(|(slot, &m)| {
                            let id = ids.iter().rev().find(|x| x.0 == m).expect("joined").1;
                            (m, slot as u32 * unit, id)
                        })
                        .collect();
                    r.chunks[vpn as usize] = list;
                    r.page_id[vpn as usize] = self.next_page_id;
                }
            }
            if let Some(r) = self.residents.as_mut() {
                r.split.clear();
            }
            self.split_ready = SimTime::ZERO;
        }
        self.fx = fx;
        Ok(c)
    }

    /// The group closed last goes to flash unsplit after all (no pages of one type on
    /// different channels): member `k` is the whole of the group's `k`-th page.
    pub fn unsplit(&mut self, writes: &[PageWrite]) {
        if let Some(r) = self.residents.as_mut() {
            for (w, &m) in writes.iter().zip(pages(&self.packing).closed_members()) {
                let id = r.chunks[w.vpn as usize]
                    .iter()
                    .find(|x| x.0 == m)
                    .expect("member")
                    .2;
                r.chunks[w.vpn as usize] = vec![(m, 0, id)];
            }
        }
        self.pages_mut().unsplit();
    }

    /// How logical page `lpn` is stored, from its content (`first_block_id`: the content id
    /// of its first 4 KiB block, unit `i` holding `first_block_id + i`): its bytes, whether
    /// compressed, and (with `zero_units`) its zero bitmap, whose units are not stored. Only
    /// the units in `written` are new; the others keep their zero bits from `kept_zeros`
    /// (a partial-page write). The non-zero units are compressed run by run of consecutive
    /// units (an unwritten unit is sized by the same id sequence, as we have no other);
    /// they are stored compressed when that saves `min_saving` of their bytes, else as they
    /// are. Returns the stored length.
    pub fn store(
        &mut self,
        lpn: u64,
        content: &mut ContentModel,
        stream: usize,
        first_block_id: u64,
        written: u16,
        kept_zeros: u16,
    ) -> u32 {
        let st = self.size(content, stream, first_block_id, written, kept_zeros);
        self.commit(lpn, st);
        st.len
    }

    /// How a logical page would be stored ([`Compression::store`]), recording nothing.
    pub fn size(
        &mut self,
        content: &mut ContentModel,
        stream: usize,
        first_block_id: u64,
        written: u16,
        kept_zeros: u16,
    ) -> Stored {
        let n = self.blocks_per_page as usize;
        let all = (1u16 << n) - 1;
        let zeros = if self.zero_units {
            let new = content.zero_mask(stream, first_block_id, n) as u16;
            (new & written | kept_zeros & !written) & all
        } else {
            0
        };
        let nonzero = n as u32 - zeros.count_ones();
        let (len, compressed) = if nonzero == 0 {
            (0, false)
        } else {
            let mut size = 0u32;
            let mut i = 0;
            while i < n {
                if zeros >> i & 1 == 1 {
                    i += 1;
                    continue;
                }
                let run = (i..n).take_while(|&j| zeros >> j & 1 == 0).count();
                let id = crate::content::nth_id(first_block_id, i as u64);
                size += content.unit_size(self.measure, stream, id, run);
                i += run;
            }
            let raw = nonzero * 4096;
            if size < raw && (size as f64) <= raw as f64 * (1.0 - self.min_saving) {
                (size.max(1), true)
            } else {
                (raw, false)
            }
        };
        Stored {
            len,
            compressed,
            zeros,
        }
    }

    /// Record that logical page `lpn` is stored as `st` (from [`Compression::size`]).
    pub fn commit(&mut self, lpn: u64, st: Stored) {
        let all = (1u16 << self.blocks_per_page) - 1;
        self.counters.zero_units += st.zeros.count_ones() as u64;
        self.counters.partial_zero_pages += (st.zeros != 0 && st.zeros != all) as u64;
        self.counters.compressed_pages += st.compressed as u64;
        self.meta[lpn as usize] = st.zeros | (st.compressed as u16) << 8;
    }

    /// Zero bitmap of logical page `lpn` (bit `i`: 4 KiB unit `i` holds only zeros).
    #[inline]
    pub fn zeros(&self, lpn: u64) -> u16 {
        self.meta[lpn as usize] & 0xFF
    }

    /// Whether logical page `lpn` is stored compressed.
    #[inline]
    pub fn compressed(&self, lpn: u64) -> bool {
        self.meta[lpn as usize] >> 8 == 1
    }

    /// Compress a logical page whose data reaches the controller at `arrived`; returns when
    /// it is in DRAM.
    #[inline]
    pub fn compress(&mut self, arrived: SimTime) -> SimTime {
        let start = arrived.max(self.compress_free);
        self.compress_free = start + self.compress_ns;
        self.counters.compress_busy_ns =
            (self.counters.compress_busy_ns).saturating_add(self.compress_ns);
        self.compress_free
    }

    /// Decompress `n` pages whose data is at the controller at `at`; returns when done.
    #[inline]
    pub fn decompress(&mut self, n: u32, at: SimTime) -> SimTime {
        if n == 0 {
            return at;
        }
        self.counters.decompressed_pages += n as u64;
        self.counters.decompress_busy_ns = (self.counters.decompress_busy_ns)
            .saturating_add(self.decompress_ns.saturating_mul(n as u64));
        self.run_decompression(n, at)
    }

    /// Decompress the old data of a partial-page write, at the controller at `at`, before it
    /// merges (the same engine as reads); returns when done.
    #[inline]
    pub fn decompress_old(&mut self, at: SimTime) -> SimTime {
        self.counters.merge_decompressed_pages += 1;
        self.counters.merge_decompress_busy_ns =
            (self.counters.merge_decompress_busy_ns).saturating_add(self.decompress_ns);
        self.run_decompression(1, at)
    }

    #[inline]
    fn run_decompression(&mut self, n: u32, at: SimTime) -> SimTime {
        let start = at.max(self.decompress_free);
        self.decompress_free = start + self.decompress_ns.saturating_mul(n as u64);
        self.decompress_free
    }

    /// Place logical page `lpn` as `len` bytes whose data is in DRAM at `ready`, holding
    /// content `id`. Returns its chunk and the pages this closed (in `out`); the VPNs it
    /// freed are left in `self.fx.freed`.
    pub fn place(
        &mut self,
        lpn: u64,
        len: u32,
        ready: SimTime,
        id: u64,
        out: &mut Vec<PageWrite>,
    ) -> Result<Chunk> {
        let prev = self.open_ready;
        let mut fx = std::mem::take(&mut self.fx);
        fx.clear();
        let c = self.pages_mut().write(lpn, len, &mut fx)?;
        for &vpn in &fx.write {
            let r = match prev {
                Some((v, t)) if v == vpn && v == c.vpn => t.max(ready),
                Some((v, t)) if v == vpn => t,
                _ => ready,
            };
            self.next_page_id += 1;
            out.push(PageWrite {
                vpn,
                ready: r,
                page_id: self.next_page_id,
            });
        }
        // The page being filled: the one this page joined (its data is in once this page's
        // is), or the one before if this page went elsewhere (zeros, a page of its own).
        self.open_ready = match (self.pages_mut().open_vpn(), prev) {
            (None, _) => None,
            (Some(v), Some((p, t))) if v == p && v == c.vpn => Some((v, t.max(ready))),
            (Some(v), Some((p, t))) if v == p => Some((v, t)),
            (Some(v), _) => {
                debug_assert_eq!(v, c.vpn, "a new page opens only for this page");
                Some((v, ready))
            }
        };
        if let Some(r) = self.residents.as_mut().filter(|_| c.zero()) {
            r.zero[lpn as usize] = id;
        } else if let Some(r) = self.residents.as_mut() {
            let fresh = prev.is_none_or(|(v, _)| v != c.vpn);
            if fresh {
                r.chunks[c.vpn as usize].clear();
            }
            r.chunks[c.vpn as usize].push((lpn, c.offset, id));
            for w in out.iter() {
                r.page_id[w.vpn as usize] = w.page_id;
            }
        }
        self.fx = fx;
        Ok(c)
    }

    /// Discard logical page `lpn`; the VPNs it freed are left in `self.fx.freed`.
    pub fn trim(&mut self, lpn: u64) {
        let mut fx = std::mem::take(&mut self.fx);
        fx.clear();
        self.pages_mut().trim(lpn, &mut fx);
        self.fx = fx;
    }

    /// A logical page's data reached DRAM: written now unless closed pages wait for buffer
    /// pages (then it waits). Returns whether it is written.
    #[inline]
    pub fn admit(&mut self, req: u32, at: SimTime) -> bool {
        if self.pages_waiting.is_empty() && self.waiters.is_empty() {
            true
        } else {
            self.counters.buffer_full_waits += 1;
            self.waiters.push_back((req, at));
            false
        }
    }

    /// A closed page's data is all in DRAM at `at`: whether it takes a buffer page and is
    /// programmed now (else it waits for one). `req`: the write whose block completed the
    /// page and is written once the page has its buffer page (a compressed zone's), or
    /// `NO_REQ` (that block was admitted on its own).
    #[inline]
    pub fn page_closed(&mut self, ppn: Ppn, req: u32, at: SimTime) -> bool {
        if self.slots_used < self.buffer_pages && self.pages_waiting.is_empty() {
            self.slots_used += 1;
            true
        } else {
            self.pages_waiting.push_back((ppn, req, at));
            false
        }
    }

    /// A closed page's program completed: the closed page that takes its buffer page (to be
    /// programmed now, with the request it acknowledges and since when it waited), if one
    /// waits, and (in `out`) the logical pages written once no
    /// closed page waits.
    pub fn program_done(&mut self, out: &mut Vec<(u32, SimTime)>) -> Option<(Ppn, u32, SimTime)> {
        self.slots_used -= 1;
        let next = self.pages_waiting.pop_front().inspect(|_| {
            self.slots_used += 1;
        });
        if self.pages_waiting.is_empty() {
            out.extend(self.waiters.drain(..));
        }
        next
    }

    /// The content id a read of `lpn` at `chunk` finds, checked against the page FTL's id
    /// of the flash page (`flash_id`, `None` while the page is in DRAM). Verify mode only.
    pub fn read_id(&self, lpn: u64, chunk: Chunk, flash_id: Option<u64>) -> Result<u64> {
        let r = self
            .residents
            .as_ref()
            .expect("verify mode keeps residents");
        if chunk.zero() {
            return Ok(r.zero[lpn as usize]);
        }
        if chunk.split() {
            // In the split group being filled.
            return Ok(r.split.iter().rev().find(|x| x.0 == lpn).map_or(0, |x| x.1));
        }
        if let Some(f) = flash_id {
            let want = r.page_id[chunk.vpn as usize];
            if f != want {
                return Err(Error::Verify(format!(
                    "logical page {lpn}: its virtual page {} is on a flash page holding {f:#x}, not {want:#x}",
                    chunk.vpn
                )));
            }
        }
        Ok(r.chunks[chunk.vpn as usize]
            .iter()
            .rev()
            .find(|&&(l, off, _)| l == lpn && off == chunk.offset)
            .map_or(0, |&(_, _, id)| id))
    }

    /// Forget times and counters (after preconditioning).
    pub fn reset(&mut self) {
        self.compress_free = SimTime::ZERO;
        self.decompress_free = SimTime::ZERO;
        if let Some((v, _)) = self.open_ready {
            self.open_ready = Some((v, SimTime::ZERO));
        }
        self.slots_used = 0;
        self.pages_waiting.clear();
        self.waiters.clear();
        match &mut self.packing {
            Packing::Pages(p) => p.reset_counters(),
            Packing::Zones(p) => p.reset_counters(),
        }
        self.counters = CompressionCounters::default();
    }

    /// Counters, the packer's included.
    pub fn counters(&self) -> CompressionCounters {
        CompressionCounters {
            packer: match &self.packing {
                Packing::Pages(p) => p.counters,
                Packing::Zones(p) => p.counters,
            },
            ..self.counters
        }
    }
}
