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

use crate::config::SimConfig;
use crate::content::{ContentModel, MeasureId};
use crate::error::{Error, Result};
use crate::ftl::packed::pages::{Chunk, Effects, PackerCounters, PagePacker};
use crate::units::SimTime;
use std::collections::VecDeque;

/// Counters of the controller's compression.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CompressionCounters {
    /// Packing (compressed and raw pages, merged pages, padding).
    #[serde(flatten)]
    pub packer: PackerCounters,
    /// Compressed pages decompressed for host reads.
    pub decompressed_pages: u64,
    /// Logical page reads served from the page being filled in DRAM (no flash read).
    pub dram_page_reads: u64,
    /// Logical pages written compressed (the rest of the stored ones are stored as written:
    /// compression failed or saved less than `min_saving`).
    pub compressed_pages: u64,
    /// All-zero 4 KiB units not stored (`zero_units`).
    pub zero_units: u64,
    /// Logical page reads that asked for zero units only (no flash read).
    pub zero_reads: u64,
    /// Logical pages whose write waited for a buffer page.
    pub buffer_full_waits: u64,
    /// Engine time compressing (ns).
    pub compress_busy_ns: u64,
    /// Engine time decompressing (ns).
    pub decompress_busy_ns: u64,
}

/// What verify mode keeps to check compressed reads: per virtual page, the chunks written
/// into it (logical page, offset, content id) since it was last taken from the free pool,
/// and the id the page FTL stored it under.
struct Residents {
    chunks: Vec<Vec<(u64, u32, u64)>>,
    page_id: Vec<u64>,
    /// Per logical page stored as zeros only: the content id written.
    zero: Vec<u64>,
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
    let physical = crate::nand::Geometry::new(n).pages as u64;
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
            (
                32 + 1 + bits(c.max_chunks_per_page) + units + zero,
                bits(c.max_chunks_per_page + 1) + slots + 32 * slots,
            )
        }
    };
    (logical * per_lpn + physical * per_page).div_ceil(8)
}

/// The controller's compression state.
pub struct Compression {
    /// The packer (logical pages -> chunks of virtual pages).
    pub packer: PagePacker,
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
    /// Closed pages (flash page, since) waiting for a buffer page.
    pages_waiting: VecDeque<(Ppn, SimTime)>,
    /// Logical pages (request, since) waiting for the closed pages to find buffer pages.
    waiters: VecDeque<(u32, SimTime)>,
    /// Effects of the last packer call (kept to reuse its vectors).
    pub fx: Effects,
    residents: Option<Residents>,
    next_page_id: u64,
    /// Counters since the last reset.
    pub counters: CompressionCounters,
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
        let measure = content.add_measure(c.codec, page, "ftl.compression")?;
        if vpns < 2 {
            return Err(Error::config(
                "config",
                "ftl.op_ratio",
                "compression needs at least 2 logical pages".to_string(),
            ));
        }
        let ns = |us: f64| (us * 1e3).round() as u64;
        Ok(Compression {
            packer: PagePacker::new(page, c.max_chunks_per_page, vpns as u64 - 1, vpns),
            measure,
            blocks_per_page: page as u64 / 4096,
            min_saving: c.min_saving,
            zero_units: c.zero_units,
            meta: vec![0; vpns as usize - 1],
            compress_ns: ns(c.compress_us),
            decompress_ns: ns(c.decompress_us),
            compress_free: SimTime::ZERO,
            decompress_free: SimTime::ZERO,
            open_ready: None,
            buffer_pages: cfg.ftl.write_buffer_pages as usize,
            slots_used: 0,
            pages_waiting: VecDeque::new(),
            waiters: VecDeque::new(),
            fx: Effects::default(),
            residents: cfg.check.verify.then(|| Residents {
                chunks: vec![Vec::new(); vpns as usize],
                page_id: vec![0; vpns as usize],
                zero: vec![0; vpns as usize],
            }),
            next_page_id: 1 << 62,
            counters: CompressionCounters::default(),
        })
    }

    /// Logical pages exposed to the host.
    pub fn logical_pages(&self, vpns: u32) -> u64 {
        vpns as u64 - 1
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
        let n = self.blocks_per_page as usize;
        let all = (1u16 << n) - 1;
        let zeros = if self.zero_units {
            let new = content.zero_mask(stream, first_block_id, n) as u16;
            (new & written | kept_zeros & !written) & all
        } else {
            0
        };
        let nonzero = n as u32 - zeros.count_ones();
        self.counters.zero_units += zeros.count_ones() as u64;
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
                let id = first_block_id.wrapping_add(i as u64);
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
        self.counters.compressed_pages += compressed as u64;
        self.meta[lpn as usize] = zeros | (compressed as u16) << 8;
        len
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
        self.counters.compress_busy_ns += self.compress_ns;
        self.compress_free
    }

    /// Decompress `n` pages whose data is at the controller at `at`; returns when done.
    #[inline]
    pub fn decompress(&mut self, n: u32, at: SimTime) -> SimTime {
        if n == 0 {
            return at;
        }
        let start = at.max(self.decompress_free);
        let d = self.decompress_ns * n as u64;
        self.decompress_free = start + d;
        self.counters.decompressed_pages += n as u64;
        self.counters.decompress_busy_ns += d;
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
        fx.write.clear();
        fx.freed.clear();
        let c = self.packer.write(lpn, len, &mut fx)?;
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
        self.open_ready = match (self.packer.open_vpn(), prev) {
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
        fx.write.clear();
        fx.freed.clear();
        self.packer.trim(lpn, &mut fx);
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
    /// programmed now (else it waits for one).
    #[inline]
    pub fn page_closed(&mut self, ppn: Ppn, at: SimTime) -> bool {
        if self.slots_used < self.buffer_pages && self.pages_waiting.is_empty() {
            self.slots_used += 1;
            true
        } else {
            self.pages_waiting.push_back((ppn, at));
            false
        }
    }

    /// A closed page's program completed: the closed page that takes its buffer page (to be
    /// programmed now), if one waits, and (in `out`) the logical pages written once no
    /// closed page waits.
    pub fn program_done(&mut self, out: &mut Vec<(u32, SimTime)>) -> Option<Ppn> {
        self.slots_used -= 1;
        let next = self.pages_waiting.pop_front().map(|(p, _)| {
            self.slots_used += 1;
            p
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
        self.packer.reset_counters();
        self.counters = CompressionCounters::default();
    }

    /// Counters, the packer's included.
    pub fn counters(&self) -> CompressionCounters {
        CompressionCounters {
            packer: self.packer.counters,
            ..self.counters
        }
    }
}

use super::sched::{Split, NO_REQ};
use super::{Arrival, Device, Kind, Req};
use crate::engine::{Event, EventQueue};
use crate::host::ASYNC_TAG;
use crate::units::{Lpn, Ppn};
use crate::workload::Request;

impl Device {
    /// Discard logical page `lpn` (TRIM of a whole page).
    pub(super) fn trim_page(&mut self, lpn: u64, at: SimTime) {
        match self.compression.as_mut() {
            None => self.ftl.trim(Lpn(lpn as u32), at),
            Some(c) => {
                c.trim(lpn);
                for &v in &c.fx.freed {
                    self.ftl.trim(Lpn(v), at);
                }
            }
        }
    }

    /// A read with compression: one flash read per flash page the request's logical pages
    /// are on (a partial read when they lie in one partial unit of it), none for pages still
    /// in DRAM; the compressed pages are decompressed before the data goes to the host.
    pub(super) fn read_compressed(
        &mut self,
        req: &Request,
        base: Req,
        cmd: SimTime,
        first: u64,
        last: u64,
        q: &mut EventQueue,
    ) -> Result<()> {
        for lpn in first..=last {
            self.verify_read(Lpn(lpn as u32))?;
        }
        let c = self.compression.as_mut().expect("compression is on");
        let page = self.page_size;
        let unit = self.partial_unit;
        let end = req.offset + req.len;
        // (flash page, partial units wanted) of this request, in first-touch order.
        let mut reads: Vec<(Ppn, u64)> = Vec::new();
        let mut decompress = 0u32;
        for lpn in first..=last {
            let Some(ch) = c.packer.lookup(lpn) else {
                self.counters.unmapped_page_reads += 1;
                continue;
            };
            let p0 = lpn * page;
            let wanted = span(req.offset.max(p0) - p0, end.min(p0 + page) - p0, 4096);
            if ch.zero() || wanted & !(c.zeros(lpn) as u64) == 0 {
                c.counters.zero_reads += 1;
                continue;
            }
            if c.compressed(lpn) {
                decompress += 1;
            }
            if c.packer.is_open(ch.vpn) {
                c.counters.dram_page_reads += 1;
                continue;
            }
            let ppn = self
                .ftl
                .lookup(Lpn(ch.vpn))
                .expect("a closed virtual page is mapped");
            let units = if unit == 0 {
                1
            } else if ch.merged(page as u32) {
                span(ch.offset as u64, (ch.offset + ch.len) as u64, unit)
            } else {
                span(req.offset.max(p0) - p0, end.min(p0 + page) - p0, unit)
            };
            match reads.iter_mut().find(|r| r.0 == ppn) {
                Some(r) => r.1 |= units,
                None => reads.push((ppn, units)),
            }
        }
        let slot = self.alloc(Req { decompress, ..base });
        for &(ppn, units) in &reads {
            self.arriving_reads.push_back(Arrival {
                at: cmd,
                ppn,
                req: slot,
                partial: unit != 0 && units.count_ones() == 1,
            });
        }
        let r = &mut self.reqs[slot as usize];
        r.pages_left = reads.len() as u32;
        r.done = cmd;
        if reads.is_empty() {
            q.push(cmd, Event::DeviceReq(slot));
        }
        Ok(())
    }

    /// A write with compression: each logical page is compressed once its data is at the
    /// controller, placed by the packer, and acknowledged from DRAM; the pages the packer
    /// closes are written to flash.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn write_compressed(
        &mut self,
        req: &Request,
        base: Req,
        content: u64,
        now: SimTime,
        cmd: SimTime,
        first: u64,
        last: u64,
        q: &mut EventQueue,
        cm: &mut ContentModel,
    ) -> Result<()> {
        let start = cmd.max(self.link_to_device);
        let arrived = start + self.link_ns(req.len);
        self.link_to_device = arrived;
        let slot = self.alloc(Req {
            kind: Kind::Write,
            pages_left: (last - first + 1) as u32,
            ..base
        });
        let stream = (base.stream & !ASYNC_TAG) as usize;
        let end = req.offset + req.len;
        let first_blk = req.offset / 4096;
        let bpp = self.page_size / 4096;
        for (i, lpn) in (first..=last).enumerate() {
            let page_start = lpn * self.page_size;
            let partial = req.offset > page_start || end < page_start + self.page_size;
            let c = self.compression.as_mut().expect("compression is on");
            // A partial-page write merges with the page's old data, read from flash first
            // unless it is still in DRAM.
            let old = partial
                .then(|| c.packer.lookup(lpn))
                .flatten()
                .filter(|ch| !ch.zero() && !c.packer.is_open(ch.vpn))
                .and_then(|ch| self.ftl.lookup(Lpn(ch.vpn)));
            let id = content.wrapping_add(i as u64).max(1);
            if let Some(s) = self.shadow.as_mut() {
                s.expected[lpn as usize] = id;
            }
            // Unit i of the page holds block lpn * bpp + i; the request's first block holds
            // `content`.
            let block_id = content.wrapping_add(lpn * bpp).wrapping_sub(first_blk);
            let written = span(
                req.offset.max(page_start) - page_start,
                end.min(page_start + self.page_size) - page_start,
                4096,
            ) as u16;
            // Units this write does not cover keep their old zero bits; a never-written
            // page reads as zeros.
            let kept = match c.packer.lookup(lpn) {
                Some(_) => c.zeros(lpn),
                None => u16::MAX,
            };
            let len = c.store(lpn, cm, stream, block_id, written, kept);
            let ready = c.compress(arrived);
            let mut writes = std::mem::take(&mut self.page_writes);
            writes.clear();
            c.place(lpn, len, ready, id, &mut writes)?;
            self.flush_page_writes(&mut writes, now, q);
            self.page_writes = writes;
            match old {
                Some(old) => {
                    let kind = Kind::RmwChunk {
                        parent: slot,
                        ready,
                    };
                    self.read_old_data(kind, base, cmd, old);
                }
                None => self.arriving_chunks.push_back((ready, slot)),
            }
        }
        self.after_backend(now, q);
        Ok(())
    }

    /// Give the page FTL the virtual pages the packer closed (their programs reach the back
    /// end when their data is all in DRAM) and discard the ones it freed.
    fn flush_page_writes(&mut self, writes: &mut [PageWrite], now: SimTime, q: &mut EventQueue) {
        // Discard first: a VPN freed by this write may also be the page it wrote.
        let c = self.compression.as_mut().expect("compression is on");
        let freed = std::mem::take(&mut c.fx.freed);
        for &v in &freed {
            self.ftl.trim(Lpn(v), now);
        }
        self.compression
            .as_mut()
            .expect("compression is on")
            .fx
            .freed = freed;
        for w in writes.iter() {
            let ppn = {
                let mut be = self.sched.backend(&mut self.nand, q, now);
                self.ftl.write(Lpn(w.vpn), w.page_id, now, &mut be)
            };
            self.sched.program_allocated(ppn);
            // Page commands reach the controller in order.
            let at = self
                .arriving_writes
                .back()
                .map_or(w.ready, |b| b.at.max(w.ready))
                .max(now);
            self.arriving_writes.push_back(Arrival {
                at,
                ppn,
                req: NO_REQ,
                partial: false,
            });
        }
    }

    /// A logical page of write request `req` is compressed and in DRAM at `at`.
    pub(super) fn chunk_in_dram(&mut self, req: u32, at: SimTime, q: &mut EventQueue) {
        let c = self.compression.as_mut().expect("compression is on");
        if c.admit(req, at) {
            self.page_done(req, at, Split::default(), q);
        }
    }

    /// A closed page's data is all in DRAM at `now`: programmed from a buffer page, or
    /// waiting for one.
    pub(super) fn compressed_page_in(&mut self, ppn: Ppn, now: SimTime, q: &mut EventQueue) {
        let c = self.compression.as_mut().expect("compression is on");
        if c.page_closed(ppn, now) {
            self.sched
                .enqueue_program(ppn, NO_REQ, true, now, &mut self.nand, q);
        }
    }

    /// A closed page's program completed at `now`: a waiting closed page takes its buffer
    /// page, and the logical pages waiting go in once no closed page waits.
    pub(super) fn compressed_page_programmed(&mut self, now: SimTime, q: &mut EventQueue) {
        let mut out = std::mem::take(&mut self.released);
        out.clear();
        let next = self
            .compression
            .as_mut()
            .expect("compression is on")
            .program_done(&mut out);
        if let Some(ppn) = next {
            self.sched
                .enqueue_program(ppn, NO_REQ, true, now, &mut self.nand, q);
        }
        for &(req, since) in &out {
            let split = Split {
                queue_ns: now.0 - since.0,
                ..Split::default()
            };
            self.page_done(req, now, split, q);
        }
        self.released = out;
    }

    /// Preconditioning with compression: place the page and write what the packer closes,
    /// untimed.
    pub(super) fn write_compressed_untimed(
        &mut self,
        lpn: Lpn,
        content: u64,
        cm: &mut ContentModel,
    ) -> Result<()> {
        if let Some(s) = self.shadow.as_mut() {
            s.expected[lpn.0 as usize] = content;
        }
        let c = self.compression.as_mut().expect("compression is on");
        let bpp = self.page_size / 4096;
        let len = c.store(lpn.0 as u64, cm, 0, content.wrapping_mul(bpp), u16::MAX, 0);
        let mut writes = std::mem::take(&mut self.page_writes);
        writes.clear();
        c.place(lpn.0 as u64, len, SimTime::ZERO, content, &mut writes)?;
        // Discard first: a VPN freed by this write may also be the page it wrote.
        for &v in &c.fx.freed {
            self.ftl.trim(Lpn(v), SimTime::ZERO);
        }
        for w in &writes {
            let ppn = self
                .ftl
                .write(Lpn(w.vpn), w.page_id, SimTime::ZERO, &mut self.nand);
            self.nand.count_transfer();
            self.nand.count_program(ppn, false);
        }
        self.page_writes = writes;
        Ok(())
    }
}

/// Bitmask of the partial units of size `unit` that bytes `[lo, hi)` of a page touch.
#[inline]
fn span(lo: u64, hi: u64, unit: u64) -> u64 {
    let (a, b) = (lo / unit, (hi - 1) / unit);
    (u64::MAX >> (63 - (b - a))) << a
}
