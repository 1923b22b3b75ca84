//! The SSD controller: turns block requests into FTL page operations, moves data over the
//! host link, holds the optional DRAM write buffer, and (in verify mode) checks that every
//! read returns the content last written to its address.
//!
//! Mapping is decided when a request is submitted (so verify mode and the FTL see requests
//! in submission order); the flash work then reaches the back end ([`sched`]) when its
//! command (reads) or its data (writes, over the host link) arrives at the controller, and
//! completes when the back end says so. A request's completion goes back to the host through
//! [`Device::completed`].

pub(crate) mod buffer;
pub mod ccsd;
pub mod compress;
mod pack;
pub mod sched;
pub mod zns;

use crate::config::SimConfig;
use crate::content::{nth_id, ContentModel};
use crate::engine::{Event, EventQueue};
use crate::error::{Error, Result};
use crate::ftl::dedup::Strong;
use crate::ftl::Ftl;
use crate::nand::Nand;
use crate::units::{bytes_ns, duration_ns, ns_per_byte, Lpn, Ppn, SimTime, MAX_OP_NS};
use crate::workload::{Op, Request};
use buffer::{Waiter, WriteBuffer};
use compress::{Compression, PageWrite};
use sched::{Scheduler, Split, NO_REQ};
use std::collections::VecDeque;
use strength_reduce::StrengthReducedU64;

/// The "flash page" of a write that inline dedup found stored: nothing is programmed.
const DUPLICATE: u64 = u64::MAX;
/// Pages of a request ahead whose map entries [`Device::prefetch`] warms (a longer request's
/// later entries follow its first ones in the map, where the hardware prefetcher finds them).
const PREFETCH_PAGES: u64 = 4;

/// Byte fingerprints of preconditioned pages: their block ids carry this bit, so they never
/// equal a host's (from 2^63) or a fio job's (below 2^61) ids.
const PRECONDITION_BLOCKS: u64 = 1 << 61;

/// What an untimed write (preconditioning, a fio layout) puts in a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Untimed {
    /// Page `n` of the preconditioning's data: preconditioning numbers pages, not blocks, so
    /// page `n`'s 4 KiB blocks get ids of their own, apart from every range the host and fio
    /// number blocks in; its bytes follow stream 0's content hints.
    Fill(u64),
    /// A host's data (a fio job's layout): `block` is the content id of the page's first 4
    /// KiB block (the rest follow [`crate::content::nth_id`]), as stream `stream` writes it.
    Host { block: u64, stream: usize },
}

impl Untimed {
    /// The page's content id (what the map and verify keep).
    fn page_id(self) -> u64 {
        match self {
            Untimed::Fill(n) => n,
            Untimed::Host { block, .. } => block,
        }
    }

    /// The stream whose content hints give the page's bytes.
    fn stream(self) -> usize {
        match self {
            Untimed::Fill(_) => 0,
            Untimed::Host { stream, .. } => stream,
        }
    }

    /// The content id of the page's first 4 KiB block, for a page of `page_size` bytes
    /// (`tagged`: a preconditioned page's block ids carry [`PRECONDITION_BLOCKS`]).
    fn block(self, page_size: u64, tagged: bool) -> u64 {
        match self {
            Untimed::Fill(n) => {
                n.wrapping_mul(page_size / 4096) ^ if tagged { PRECONDITION_BLOCKS } else { 0 }
            }
            Untimed::Host { block, .. } => block,
        }
    }
}

/// Counters owned by the controller.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DeviceCounters {
    /// Page reads of never-written (or trimmed) addresses, answered without touching NAND.
    pub unmapped_page_reads: u64,
    /// Page reads done to merge a partial-page write with the page's old data.
    pub rmw_page_reads: u64,
    /// Mapping units read, merged and rewritten for a write that covered only part of them
    /// (the plain SSD's path; compression counts its merges in its own counters).
    pub rmw_units: u64,
    /// Host write pages that had to wait for a free write-buffer slot.
    pub buffer_full_waits: u64,
    /// Read pages checked against the last written content (verify mode).
    pub verified_page_reads: u64,
}

/// A host request that completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completed {
    /// Host stream that issued it.
    pub stream: u32,
    /// Operation.
    pub op: Op,
    /// Bytes.
    pub len: u64,
    /// Submitted at.
    pub issued: SimTime,
    /// Completed at (data at the host for reads).
    pub done: SimTime,
    /// Of its latency: waiting in queues for anything but GC (ns).
    pub queue_ns: u64,
    /// Of its latency: waiting while its plane did GC work (ns).
    pub gc_ns: u64,
    /// A GC job was on one of its planes while it waited.
    pub during_gc: bool,
    /// Of its latency: from its command at the controller until the last translation page
    /// it had to read was at the controller (ns; `ftl.map_cache = "demand"` only).
    pub map_ns: u64,
}

impl Completed {
    /// A command of `len` bytes submitted at `issued` and done at `done` that waited for
    /// nothing (no queue, no GC, no translation read).
    pub fn unqueued(stream: u32, op: Op, len: u64, issued: SimTime, done: SimTime) -> Completed {
        Completed {
            stream,
            op,
            len,
            issued,
            done,
            queue_ns: 0,
            gc_ns: 0,
            during_gc: false,
            map_ns: 0,
        }
    }
}

/// What verify mode remembers: the content id last written to each logical page (0 = none).
struct Shadow {
    expected: Vec<u64>,
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    Read,
    Write,
    /// The read of a partial-page write's old data; then `ppn` is programmed for `parent`
    /// once the new data has arrived too (`arrived`).
    Rmw {
        parent: u32,
        ppn: Ppn,
        arrived: SimTime,
    },
    /// With compression: the read of a partial-page write's old data (decompressed first when
    /// it is stored compressed); then the page of `parent`, compressed and in DRAM at `ready`,
    /// asks for its buffer page.
    RmwChunk {
        parent: u32,
        ready: SimTime,
        decompress: bool,
    },
    /// The read of a translation page (`ftl.map_cache`) for `parent` ([`NO_REQ`]: for no
    /// request), then `next`.
    MapRead {
        parent: u32,
        next: MapNext,
    },
    /// The program of a translation page written back.
    MapWrite,
    /// Inline dedup's fingerprint lookup that missed the index's DRAM: the read of bucket page
    /// `tp` once the page is hashed (`started`: queued), then the page of `parent` goes on
    /// to its program (`ppn`; a duplicate: none), after reading `old` data for a partial page.
    IndexRead {
        parent: u32,
        ppn: Ppn,
        old: Option<Ppn>,
        tp: Ppn,
        started: bool,
    },
    /// The program of a page packed with mapping units smaller than the page (`pack`).
    PageProgram {
        fill: u32,
    },
}

/// What follows the read of a translation page.
#[derive(Debug, Clone, Copy)]
enum MapNext {
    /// The parent's data read of this flash page (`partial`: one unit of it).
    DataRead(Ppn, bool),
    /// The parent's page is done (a page found unmapped, a write's map entry loaded).
    Done,
    /// A write-back: the merged translation page is programmed here.
    Program(Ppn),
    /// The parent's reads waiting in [`MapGate`] `g` (the split FTL: a split page's pieces
    /// wait for its packed-map entry, then for its split-table entry).
    Gate(u32),
}

/// Reads waiting for translation reads chained one after the other (the split FTL: a split
/// page's packed-map entry says which split-table entry holds its pieces' flash pages).
#[derive(Debug, Clone, Default)]
struct MapGate {
    /// The translation page read next, once the one in flight is at the controller.
    then: Option<Ppn>,
    /// The data reads queued after the last one (`partial`: one unit of the page).
    reads: Vec<(Ppn, bool)>,
}

/// A request in flight.
#[derive(Debug, Clone, Copy)]
struct Req {
    kind: Kind,
    stream: u32,
    op: Op,
    len: u64,
    issued: SimTime,
    pages_left: u32,
    done: SimTime,
    split: Split,
    during_gc: bool,
    /// Reads: compressed pages to decompress once the data is at the controller.
    decompress: u32,
    /// Reads: translation wait so far (see [`Completed::map_ns`]).
    map_ns: u64,
    /// The command ends with CHECK CONDITION ([`crate::workload::FileAttrs::CHECK_CONDITION`]): done, then
    /// reported failed.
    fails: bool,
}

impl Req {
    /// A request of `kind` issued at `issued`, nothing done yet: no pages left, no completion,
    /// no split or translation wait.
    fn new(kind: Kind, stream: u32, op: Op, len: u64, issued: SimTime) -> Req {
        Req {
            kind,
            stream,
            op,
            len,
            issued,
            pages_left: 0,
            done: SimTime::ZERO,
            split: Split::default(),
            during_gc: false,
            decompress: 0,
            fails: false,
            map_ns: 0,
        }
    }
}

/// A page command on its way to the controller.
#[derive(Debug, Clone, Copy)]
struct Arrival {
    at: SimTime,
    ppn: Ppn,
    req: u32,
    /// A read of one partial unit of the page (writes: false).
    partial: bool,
    /// A translation page's program, queued with the reads (in command order).
    program: bool,
}

/// The device: controller state, FTL, back end and NAND array.
pub struct Device {
    /// NAND array (timing, counters, wear).
    pub nand: Nand,
    /// Flash translation layer.
    pub ftl: Ftl,
    /// The controller's flash back end (queues, scheduling, suspension, GC steps).
    pub sched: Scheduler,
    /// The mapping unit in bytes (`ftl.mapping_unit`; the NAND page unless set): the front
    /// end's "page".
    page_size: u64,
    div_page: StrengthReducedU64,
    /// NAND pages per mapping unit.
    unit_pages: u32,
    /// NAND page size in bytes.
    nand_page: u64,
    /// Bytes of a partial-read unit (`nand.partial_read`), 0 when reads are whole pages.
    partial_unit: u64,
    /// Host link time per byte (ns, from `host.link_mb_per_s`).
    link_ns_per_byte: f64,
    overhead_ns: u64,
    link_to_device: SimTime,
    /// The last write's length in bytes and its link time in ns: most writes of a run have
    /// one length, and the time is a float product rounded in software on baseline x86-64.
    link_last: (u64, u64),
    link_to_host: SimTime,
    buffer: Option<WriteBuffer>,
    /// Flushes waiting for the write buffer: (buffered pages that must be programmed first,
    /// the completion to report).
    flushes: std::collections::VecDeque<(u64, Completed)>,
    /// Host pages acknowledged from the write buffer, and buffered pages programmed.
    buffer_acked: u64,
    buffer_programmed: u64,
    shadow: Option<Shadow>,
    reqs: Vec<Req>,
    free_reqs: Vec<u32>,
    /// Read commands (incl. read-modify-write reads), in arrival order.
    arriving_reads: VecDeque<Arrival>,
    /// Write data pages, in arrival order (the host link is first come first served).
    arriving_writes: VecDeque<Arrival>,
    /// With compression: logical pages of write requests reaching DRAM (time, request).
    arriving_chunks: VecDeque<(SimTime, u32)>,
    /// Old-data reads of the page being written (reused).
    old_reads: Vec<(Ppn, bool)>,
    /// Translation-page write-backs the FTL allocated (reused).
    map_writes: Vec<(Option<Ppn>, Ppn)>,
    /// Virtual pages GC moved and the logical pages in one (a paged packed map; reused).
    map_moved: (Vec<u32>, Vec<u32>),
    /// Chained translation reads in flight ([`MapNext::Gate`]) and the free slots among them.
    map_gates: Vec<MapGate>,
    free_gates: Vec<u32>,
    /// Compression in the controller (`ftl.compression`).
    pub compression: Option<Compression>,
    page_writes: Vec<PageWrite>,
    /// `ftl.dedup.fingerprint = "bytes"`: pages are fingerprinted by their bytes.
    bytes_fp: bool,
    /// A page's bytes for its fingerprint (reused).
    fp_buf: Vec<u8>,
    released: Vec<(u32, SimTime)>,
    /// Requests completed since the caller last drained this.
    pub completed: Vec<Completed>,
    /// Commands the device refused since the caller last drained this: (host stream, when
    /// the failure was reported) (a zoned device's status codes).
    pub failed: Vec<(u32, SimTime)>,
    /// The zoned namespace (`[zns]`): zones instead of the page map.
    pub zns: Option<zns::Zns>,
    /// Mapping units smaller than the page: the pages being packed.
    packing: Option<pack::Packing>,
    /// Counters since the last reset.
    pub counters: DeviceCounters,
}

impl Device {
    /// Build a fresh device for a validated config; `content` gives compressed sizes when
    /// `ftl.compression` is on (validation made sure the model is on then).
    pub fn new(cfg: &SimConfig, content: Option<&mut ContentModel>) -> Result<Device> {
        Self::with_layout(cfg, content, crate::ftl::MapLayout::Auto)
    }

    /// [`Device::new`] with the page FTL's page map in `layout` ([`Ftl::with_layout`]).
    pub fn with_layout(
        cfg: &SimConfig,
        content: Option<&mut ContentModel>,
        layout: crate::ftl::MapLayout,
    ) -> Result<Device> {
        let nand = Nand::new(&cfg.nand)?;
        let link_ns_per_byte = ns_per_byte("host.link_mb_per_s", cfg.host.link_mb_per_s)?;
        let overhead_ns = duration_ns(
            "host.command_overhead_ns",
            cfg.host.command_overhead_ns as f64,
            1.0,
            MAX_OP_NS,
        )?;
        let verify = cfg.check.verify;
        let ftl = match cfg.zns {
            Some(_) => Ftl::unmapped(cfg, &nand.geo),
            None => Ftl::with_layout(cfg, &nand.geo, verify, layout),
        };
        let zns = cfg.zns.as_ref().map(|z| zns::Zns::new(z, cfg, &nand.geo));
        let mut sched = Scheduler::new(cfg, &nand)?;
        sched.reset(&ftl);
        let zoned = cfg
            .zns
            .as_ref()
            .and_then(|z| z.compression().map(|c| (z, c)));
        let compression = match (cfg.ftl.compression(), content) {
            (None, Some(cm)) if zoned.is_some() => {
                let (zc, c) = zoned.expect("checked");
                let z = zns.as_ref().expect("a [zns] table");
                Some(Compression::zoned(
                    cfg,
                    c,
                    z.zones.len(),
                    zc.zone_size_bytes(&cfg.nand) / cfg.nand.page_size as u64,
                    z.map().zone_pages(),
                    cm,
                )?)
            }
            (None, None) if zoned.is_some() => {
                return Err(Error::config(
                    "config",
                    "content.mode",
                    "compressed zones need the content model".to_string(),
                ))
            }
            (None, _) => None,
            (Some(_), Some(c)) => Some(Compression::new(
                cfg,
                u32::try_from(ftl.logical_pages())
                    .expect("validation keeps a compressing device below 2^32 pages"),
                c,
            )?),
            (Some(_), None) => {
                return Err(Error::config(
                    "config",
                    "content.mode",
                    "compression in the SSD needs the content model".to_string(),
                ))
            }
        };
        let lp = match zns.as_ref() {
            Some(z) => z.logical_pages() as usize,
            None => ftl.logical_pages() as usize,
        };
        Ok(Device {
            page_size: cfg.mapping_unit() as u64,
            div_page: StrengthReducedU64::new(cfg.mapping_unit() as u64),
            unit_pages: cfg.unit_pages(),
            nand_page: cfg.nand.page_size as u64,
            partial_unit: cfg.nand.partial_unit().map_or(0, u64::from),
            link_ns_per_byte,
            overhead_ns,
            link_to_device: SimTime::ZERO,
            link_last: (0, 0),
            link_to_host: SimTime::ZERO,
            flushes: std::collections::VecDeque::new(),
            buffer_acked: 0,
            buffer_programmed: 0,
            buffer: (cfg.ftl.write_buffer_pages > 0)
                .then(|| WriteBuffer::new(cfg.ftl.write_buffer_pages as usize)),
            shadow: verify.then(|| Shadow {
                expected: vec![0; lp],
            }),
            reqs: Vec::new(),
            free_reqs: Vec::new(),
            arriving_reads: VecDeque::new(),
            arriving_writes: VecDeque::new(),
            arriving_chunks: VecDeque::new(),
            old_reads: Vec::new(),
            map_writes: Vec::new(),
            map_moved: (Vec::new(), Vec::new()),
            map_gates: Vec::new(),
            free_gates: Vec::new(),
            compression,
            page_writes: Vec::new(),
            bytes_fp: cfg
                .ftl
                .dedup()
                .is_some_and(|d| d.fingerprint == crate::config::DedupFingerprint::Bytes),
            fp_buf: Vec::new(),
            released: Vec::new(),
            completed: Vec::new(),
            failed: Vec::new(),
            zns,
            packing: (cfg.units_per_page() > 1).then(pack::Packing::default),
            counters: DeviceCounters::default(),
            sched,
            nand,
            ftl,
        })
    }

    /// Check the FTL's structures, and with compression the packer's and that every virtual
    /// page holding data is mapped to flash unless it is still being filled.
    pub fn check_invariants(&self) -> Result<()> {
        if let Some(z) = self.zns.as_ref() {
            return z
                .zones
                .check()
                .map_err(|m| Error::Invariant(format!("zoned device: {m}")));
        }
        self.ftl.check_invariants()?;
        if let Some(c) = self.compression.as_ref() {
            c.packer().check()?;
            let unmapped = |lpn: u64, vpn: u32| {
                Err(Error::Invariant(format!(
                    "compressed mapping: logical page {lpn} is in virtual page {vpn} that maps to no flash page"
                )))
            };
            for (lpn, ch) in c.packer().mapped_chunks() {
                if ch.split() {
                    // A split page's chunk names its group; a closed group's pieces are mapped.
                    if !c.packer().split_pending(ch) {
                        for i in 0..c.packer().pieces() {
                            let p = c.packer().piece(ch, i);
                            if self.ftl.lookup(Lpn(p.vpn.into())).is_none() {
                                return unmapped(lpn, p.vpn);
                            }
                        }
                    }
                } else if !ch.zero()
                    && !c.packer().is_open(ch.vpn)
                    && self.ftl.lookup(Lpn(ch.vpn.into())).is_none()
                {
                    return unmapped(lpn, ch.vpn);
                }
            }
        }
        Ok(())
    }

    /// Cumulative dedup counters with the hash engine's time (`ftl.dedup`).
    pub fn dedup_counters(&self) -> Option<crate::ftl::dedup::DedupCounters> {
        let d = self.ftl.dedup.as_ref()?;
        let mut c = d.counters;
        if let Some(h) = self.sched.hash.as_ref() {
            c.hash_busy_ns = h.busy_ns;
            c.hash_wait_ns = h.wait_ns;
        }
        Some(c)
    }

    /// Logical pages exposed to the host (with compression, one fewer than the page FTL's:
    /// the page being filled holds a virtual page of its own).
    pub fn logical_pages(&self) -> u64 {
        if let Some(z) = self.zns.as_ref() {
            return z.logical_pages();
        }
        let vpns = self.ftl.logical_pages();
        self.compression
            .as_ref()
            .map_or(vpns, |c| c.logical_pages())
    }

    /// Logical capacity in bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.logical_pages() * self.page_size
    }

    /// Mapping unit (page size) in bytes.
    pub fn page_size(&self) -> u64 {
        self.page_size
    }

    /// Pages a byte range of `len` bytes starting at `offset` touches.
    #[inline]
    pub fn pages_touched(&self, offset: u64, len: u64) -> u64 {
        (offset + len - 1) / self.div_page - offset / self.div_page + 1
    }

    /// Hint that `req` arrives soon, `ahead` requests after the one just submitted (1 or 2):
    /// the page FTL's map entries of its first pages are prefetched, two ahead the entries,
    /// one ahead (a write's) the reverse map entries and block counters of the pages it
    /// overwrites ([`Ftl::prefetch_entry`], [`Ftl::prefetch_location`]). Nothing for zoned,
    /// compressing or deduplicating devices, whose maps are elsewhere. Changes nothing the
    /// simulation computes.
    #[inline]
    pub fn prefetch(&self, req: &Request, ahead: usize) {
        if self.zns.is_some() || self.compression.is_some() || self.ftl.dedup.is_some() {
            return;
        }
        let write = req.op == Op::Write;
        if req.len == 0 || !(write || req.op == Op::Read) || (ahead == 1 && !write) {
            return;
        }
        let first = req.offset / self.div_page;
        let last = req.offset.saturating_add(req.len - 1) / self.div_page;
        // Half-open ranges here and in `submit`: a `RangeInclusive` loop costs a check more
        // per step, on every request of the replay.
        for lpn in first..last.min(first + PREFETCH_PAGES - 1) + 1 {
            if ahead == 1 {
                self.ftl.prefetch_location(Lpn(lpn));
            } else {
                self.ftl.prefetch_entry(Lpn(lpn));
            }
        }
    }

    #[inline]
    fn link_ns(&self, bytes: u64) -> u64 {
        bytes_ns(bytes, self.link_ns_per_byte)
    }

    #[inline]
    fn alloc(&mut self, r: Req) -> u32 {
        match self.free_reqs.pop() {
            Some(i) => {
                self.reqs[i as usize] = r;
                i
            }
            None => {
                self.reqs.push(r);
                (self.reqs.len() - 1) as u32
            }
        }
    }

    /// Requests in flight inside the device (tests).
    pub fn in_flight(&self) -> usize {
        self.reqs.len() - self.free_reqs.len()
    }

    /// Submit a command to the zoned device whose written pages hold `ids`, one a page (the
    /// file system's block I/O); otherwise as [`Device::submit`].
    pub fn submit_zoned_pages(
        &mut self,
        req: &Request,
        ids: &[u64],
        now: SimTime,
        stream: u32,
        q: &mut EventQueue,
        cm: Option<&mut ContentModel>,
    ) -> Result<()> {
        let cmd = now + self.overhead_ns;
        self.submit_zoned(req, zns::PageIds::Each(ids), now, cmd, stream, q, cm)
    }

    /// Submit a request of host stream `stream` arriving at `now`. `content` is the id of the
    /// request's first written page (page `i` holds [`crate::content::nth_id`]`(content, i)`). The caller guarantees the
    /// byte range lies inside the logical capacity. Its completion appears in
    /// [`Device::completed`], now or after later events.
    #[inline]
    pub fn submit(
        &mut self,
        req: &Request,
        content: u64,
        now: SimTime,
        stream: u32,
        q: &mut EventQueue,
        mut cm: Option<&mut ContentModel>,
    ) -> Result<()> {
        let cmd = now + self.overhead_ns;
        if req.op == Op::Sync {
            return self.flush(stream, now, cmd, q);
        }
        if req.op == Op::RuhUpdate && self.zns.is_none() {
            return self.ruh_update(req, now, cmd, stream);
        }
        if self.zns.is_some() {
            return self.submit_zoned(req, zns::PageIds::From(content), now, cmd, stream, q, cm);
        }
        let first = req.offset / self.div_page;
        let last = (req.offset + req.len - 1) / self.div_page;
        let base = Req {
            fails: req.attrs.check_condition(),
            ..Req::new(Kind::Read, stream, req.op, req.len, now)
        };
        if self.compression.is_some() {
            match req.op {
                Op::Read => return self.read_compressed(req, base, now, cmd, first, last, q),
                Op::Write => {
                    let cm = cm.expect("validation: compression has the content model");
                    return self.write_compressed(req, base, content, now, cmd, first, last, q, cm);
                }
                _ => {}
            }
        }
        match req.op {
            Op::RuhUpdate => unreachable!("handled above"),
            Op::Append | Op::ZoneOpen | Op::ZoneClose | Op::ZoneFinish | Op::ZoneReset => {
                Err(Error::Workload(format!(
                    "{:?} at offset {}: zone commands need a zoned device ([zns])",
                    req.op, req.offset
                )))
            }
            Op::Delete => Err(Error::Workload(format!(
                "file {} delete: file operations need a file system (`[stack]`)",
                req.file
            ))),
            Op::Sync => unreachable!("flushes are handled before"),
            Op::Read => {
                // Verify before anything is queued: a failed check leaves nothing in flight.
                for lpn in first..last + 1 {
                    self.verify_read(Lpn(lpn))?;
                }
                let slot = self.alloc(base);
                let mut pages = 0;
                let end = req.offset + req.len;
                // Units packed into one page: the request's units in the page it sensed last
                // come with that sense.
                let mut sensed = Ppn::NONE;
                for lpn in first..last + 1 {
                    let found = self.ftl.translate(Lpn(lpn));
                    let tpage = self.ftl.take_map_read();
                    if found.is_none() {
                        self.counters.unmapped_page_reads += 1;
                    }
                    match (tpage, found) {
                        (None, Some(ppn)) if self.packing.is_some() && ppn == sensed => {}
                        (None, Some(ppn)) => {
                            sensed = ppn;
                            let partial = self.one_unit(lpn, req.offset, end);
                            // Of a unit of several NAND pages, only the pages the request
                            // touches are read.
                            let (lo, hi) = self.pages_in_unit(lpn, req.offset, end);
                            for j in lo..hi {
                                self.arriving_reads.push_back(Arrival {
                                    at: cmd,
                                    ppn: Ppn(ppn.0 + j as u64),
                                    req: slot,
                                    partial,
                                    program: false,
                                });
                            }
                            pages += hi - lo;
                        }
                        (None, None) => {}
                        (Some(tp), found) => {
                            let next = match found {
                                Some(ppn) => MapNext::DataRead(
                                    ppn,
                                    self.one_unit(lpn, req.offset, req.offset + req.len),
                                ),
                                None => MapNext::Done,
                            };
                            self.map_read(tp, slot, next, base, cmd);
                            pages += 1;
                        }
                    }
                }
                if self.ftl.demand_paged() {
                    self.flush_map(base, cmd, now, q)?;
                }
                let r = &mut self.reqs[slot as usize];
                r.pages_left = pages;
                r.done = cmd;
                if pages == 0 {
                    q.push(cmd, Event::DeviceReq(slot));
                }
                Ok(())
            }
            Op::Write => {
                let handle = self.placement_handle(req, now)?;
                let (arrived, slot) =
                    self.write_arrives(req, base, cmd, (last - first + 1) * self.unit_pages as u64);
                let end = req.offset + req.len;
                for (i, lpn) in (first..last + 1).enumerate() {
                    let page_start = lpn * self.page_size;
                    let partial = req.offset > page_start || end < page_start + self.page_size;
                    let old = if partial {
                        self.ftl.lookup(Lpn(lpn))
                    } else {
                        None
                    };
                    // A page's id (one per page of the request, as `content`'s blocks are
                    // numbered; for a pattern of odd period `c` and a power-of-two page,
                    // pages `i` and `i'` hold equal bytes exactly when `i = i' mod c`, as
                    // their ids say).
                    let c = nth_id(content, i as u64).max(1);
                    if let Some(s) = self.shadow.as_mut() {
                        s.expected[lpn as usize] = c;
                    }
                    if self.ftl.dedup.is_some() {
                        // The page's first 4 KiB block's id (the host numbers 4 KiB blocks;
                        // a partial first page starts before the request: wrapping).
                        let block = nth_id(
                            content,
                            (lpn * self.page_size / 4096).wrapping_sub(req.offset / 4096),
                        );
                        let fp = self.fingerprint(c, stream, block, cm.as_deref_mut());
                        self.write_dedup_page(lpn, fp, old, slot, base, cmd, arrived, now, q)?;
                        continue;
                    }
                    let ppn = {
                        let mut be = self.sched.backend(&mut self.nand, q, now);
                        self.ftl.write(Lpn(lpn), handle, c, now, &mut be)?
                    };
                    if self.packing.is_some() {
                        self.unit_mapped(ppn, now, q);
                    } else {
                        self.sched.unit_allocated(ppn, self.unit_pages);
                    }
                    if let Some(tp) = self.ftl.take_map_read() {
                        // The write completes once its map entry is loaded too.
                        self.reqs[slot as usize].pages_left += 1;
                        self.map_read(tp, slot, MapNext::Done, base, cmd);
                    }
                    self.page_data_in(ppn, old, slot, &base, cmd, arrived);
                }
                if self.packing.is_some() && self.buffer.is_none() {
                    // No buffer holds a unit for later writes: the partly filled page goes
                    // now, padded.
                    self.ftl.pad_host();
                    self.pages_closed(now, q);
                }
                if self.ftl.demand_paged() {
                    self.flush_map(base, cmd, now, q)?;
                }
                self.after_backend(now, q);
                Ok(())
            }
            Op::Trim => {
                let end = req.offset + req.len;
                // Only whole pages can be discarded; a partly covered page keeps its data.
                let first_whole = req.offset.div_ceil(self.page_size);
                let end_whole = end / self.page_size;
                for lpn in first_whole..end_whole {
                    self.trim_page(lpn, cmd);
                    if let Some(tp) = self.ftl.take_map_read() {
                        // The entry is loaded to be cleared; the TRIM does not wait for it.
                        self.map_read(tp, NO_REQ, MapNext::Done, base, cmd);
                    }
                    if let Some(s) = self.shadow.as_mut() {
                        s.expected[lpn as usize] = 0;
                    }
                }
                if self.ftl.demand_paged() {
                    self.flush_map(base, cmd, now, q)?;
                    self.after_backend(now, q);
                }
                self.completed
                    .push(Completed::unqueued(stream, req.op, req.len, now, cmd));
                Ok(())
            }
        }
    }

    /// The reclaim unit handle a write arriving at `now` goes to: its placement identifier
    /// (`[fdp]`), or 0 when it carries none. A placement identifier the device does not have
    /// sends the write to identifier 0 and logs an "invalid placement identifier" event (fio
    /// refuses such an index at its option's line); one on a device without `[fdp]` is an
    /// error (the trace reader refuses it first, naming the line).
    #[inline]
    fn placement_handle(&mut self, req: &Request, now: SimTime) -> Result<u8> {
        match req.placement {
            None => Ok(0),
            Some(pid) => self.placement_of(pid, req, now),
        }
    }

    /// [`Device::placement_handle`] of a write that carries placement identifier `pid`.
    #[cold]
    fn placement_of(&mut self, pid: u16, req: &Request, now: SimTime) -> Result<u8> {
        match self.ftl.fdp.as_mut() {
            Some(f) if (pid as usize) < f.identifiers() => Ok(pid as u8),
            Some(f) => {
                f.invalid_pid(pid, now);
                Ok(0)
            }
            None => Err(Error::Workload(format!(
                "a write at byte {} carries placement identifier {pid}, but the device has no \
                 flexible data placement ([fdp])",
                req.offset
            ))),
        }
    }

    /// A Reclaim Unit Handle Update (I/O Management Send) arriving at `now`: the FTL moves the
    /// handle of the request's placement identifier to a new reclaim unit; the command
    /// completes after the controller's overhead, at `cmd`.
    fn ruh_update(&mut self, req: &Request, now: SimTime, cmd: SimTime, stream: u32) -> Result<()> {
        let pid = match (self.ftl.fdp.as_ref(), req.placement) {
            (Some(f), Some(pid)) if (pid as usize) < f.identifiers() => pid as u8,
            (Some(f), pid) => {
                return Err(Error::Workload(format!(
                    "a reclaim unit handle update names placement identifier {pid:?}, but the \
                     device has {} (0 to {})",
                    f.identifiers(),
                    f.identifiers() - 1
                )))
            }
            (None, _) => {
                return Err(Error::Workload(
                    "a reclaim unit handle update needs a device with flexible data placement \
                     ([fdp])"
                        .into(),
                ))
            }
        };
        self.ftl.ruh_update(pid, now);
        self.completed
            .push(Completed::unqueued(stream, Op::RuhUpdate, 0, now, cmd));
        Ok(())
    }

    /// With deduplication: map one page of a write whose data is at the controller at
    /// `arrived`. Inline dedup hashes it first (the hash engine, in data-arrival order; a
    /// partial page is hashed then too, before its old data is merged in) and a duplicate
    /// completes when its hash does, with no program (a partial one after its old data is
    /// read). In gc mode the page is stored as written.
    #[allow(clippy::too_many_arguments)]
    fn write_dedup_page(
        &mut self,
        lpn: u64,
        (fp, strong, c): (u64, Option<Strong>, u64),
        old: Option<Ppn>,
        slot: u32,
        base: Req,
        cmd: SimTime,
        arrived: SimTime,
        now: SimTime,
        q: &mut EventQueue,
    ) -> Result<()> {
        let inline = !self.sched.gc_hashes();
        let arrived = match self.sched.hash.as_mut() {
            Some(h) if inline => h.run(arrived),
            _ => arrived,
        };
        let ppn = {
            let mut be = self.sched.backend(&mut self.nand, q, now);
            self.ftl
                .write_dedup(Lpn(lpn), fp, strong, c, now, &mut be)?
        };
        if let Some(s) = self.shadow.as_mut() {
            s.expected[lpn as usize] = c;
        }
        if let Some(tp) = self.ftl.take_map_read() {
            // A new stored page's page-map entry (its node's) is loaded; the write completes
            // once it is, as for the plain page map.
            self.reqs[slot as usize].pages_left += 1;
            self.map_read(tp, slot, MapNext::Done, base, cmd);
        }
        let ppn = match ppn {
            Some(p) => {
                self.sched.program_allocated(p);
                p
            }
            None => Ppn(DUPLICATE),
        };
        match self.ftl.take_index_read() {
            None => self.page_data_in(ppn, old, slot, &base, cmd, arrived),
            Some(tp) => {
                // The bucket is known once the page is hashed (at `arrived`): its read goes to
                // the controller's queues then, and the dedup decision waits for it.
                let r = self.alloc(Req {
                    kind: Kind::IndexRead {
                        parent: slot,
                        ppn,
                        old,
                        tp,
                        started: false,
                    },
                    pages_left: 1,
                    ..base
                });
                q.push(arrived, Event::DeviceReq(r));
            }
        }
        Ok(())
    }

    /// The data of a write's page (mapping unit), mapped to `ppn` (its first NAND page), is
    /// at the controller at `arrived`: its programs wait for it, and for a partial unit (`old`:
    /// the first NAND page of the unit's old data) for the read of the whole old unit first.
    #[inline(always)]
    fn page_data_in(
        &mut self,
        ppn: Ppn,
        old: Option<Ppn>,
        slot: u32,
        base: &Req,
        cmd: SimTime,
        arrived: SimTime,
    ) {
        match old {
            Some(old) => self.unit_merged(ppn, old, slot, base, cmd, arrived),
            None => {
                for j in 0..self.unit_pages {
                    self.arriving_writes.push_back(Arrival {
                        at: arrived,
                        ppn: Ppn(ppn.0 + j as u64),
                        req: slot,
                        partial: false,
                        program: false,
                    });
                }
            }
        }
    }

    /// [`Device::page_data_in`] of a partial unit: the old unit at `old` is read first.
    #[inline(never)]
    fn unit_merged(
        &mut self,
        ppn: Ppn,
        old: Ppn,
        slot: u32,
        base: &Req,
        cmd: SimTime,
        arrived: SimTime,
    ) {
        let kind = Kind::Rmw {
            parent: slot,
            ppn,
            arrived,
        };
        self.counters.rmw_units += 1;
        let mut olds = std::mem::take(&mut self.old_reads);
        olds.clear();
        olds.extend((0..self.unit_pages).map(|j| (Ppn(old.0 + j as u64), false)));
        self.read_old_data(kind, base, cmd, &olds);
        self.old_reads = olds;
    }

    /// NAND pages `lo..hi` (indices inside the unit) of mapping unit `lpn` that the bytes
    /// `[start, end)` touch; `0..1` when the unit is one page.
    #[inline]
    fn pages_in_unit(&self, lpn: u64, start: u64, end: u64) -> (u32, u32) {
        if self.unit_pages == 1 {
            return (0, 1);
        }
        let unit = lpn * self.page_size;
        let lo = start.max(unit) - unit;
        let hi = end.min(unit + self.page_size) - unit;
        (
            (lo / self.nand_page) as u32,
            ((hi - 1) / self.nand_page) as u32 + 1,
        )
    }

    /// A page's fingerprint, strong hash and the id verify mode checks it by: its content id
    /// `c`, or with `fingerprint = "bytes"` the hashes of its bytes (the content model's
    /// page from 4 KiB block `block` of host stream `stream`; a partial page is hashed as a
    /// whole page of the model's bytes), and then verify mode checks the pre-filter hash.
    fn fingerprint(
        &mut self,
        c: u64,
        stream: u32,
        block: u64,
        cm: Option<&mut ContentModel>,
    ) -> (u64, Option<Strong>, u64) {
        match cm.filter(|_| self.bytes_fp) {
            Some(cm) => {
                let mut buf = std::mem::take(&mut self.fp_buf);
                buf.resize(self.page_size as usize, 0);
                cm.unit_bytes((stream & !crate::host::ASYNC_TAG) as usize, block, &mut buf);
                let (pre, st) = crate::ftl::dedup::fingerprint_bytes(&buf);
                self.fp_buf = buf;
                (pre, Some(st), pre)
            }
            None => (c, None, c),
        }
    }

    /// A write request's data crosses the host link (first come first served) after its
    /// command reaches the controller at `cmd`: returns when it has all arrived and the
    /// request's slot, waiting for `pages` pages.
    #[inline]
    fn write_arrives(
        &mut self,
        req: &Request,
        base: Req,
        cmd: SimTime,
        pages: u64,
    ) -> (SimTime, u32) {
        let start = cmd.max(self.link_to_device);
        if req.len != self.link_last.0 {
            self.link_last = (req.len, self.link_ns(req.len));
        }
        let arrived = start + self.link_last.1;
        self.link_to_device = arrived;
        let slot = self.alloc(Req {
            kind: Kind::Write,
            pages_left: pages as u32,
            ..base
        });
        (arrived, slot)
    }

    /// Queue the read of translation page `first`, then (if any) of `then`, then `reads`, for
    /// request `parent` (their command at the controller at `cmd`). With no reads, the
    /// parent's page is done once the translation reads are.
    fn map_read_chain(
        &mut self,
        first: Ppn,
        then: Option<Ppn>,
        reads: &[(Ppn, bool)],
        parent: u32,
        base: Req,
        cmd: SimTime,
    ) {
        let g = match self.free_gates.pop() {
            Some(g) => g,
            None => {
                self.map_gates.push(MapGate::default());
                self.map_gates.len() as u32 - 1
            }
        };
        let gate = &mut self.map_gates[g as usize];
        gate.then = then;
        gate.reads.clear();
        gate.reads.extend_from_slice(reads);
        self.map_read(first, parent, MapNext::Gate(g), base, cmd);
    }

    /// Queue the read of translation page `tp` (its command at the controller at `cmd`) for
    /// request `parent` ([`NO_REQ`]: none), with `next` to follow.
    fn map_read(&mut self, tp: Ppn, parent: u32, next: MapNext, base: Req, cmd: SimTime) {
        let slot = self.alloc(Req {
            kind: Kind::MapRead { parent, next },
            pages_left: 1,
            ..base
        });
        self.arriving_reads.push_back(Arrival {
            at: cmd,
            ppn: tp,
            req: slot,
            partial: false,
            program: false,
        });
    }

    /// With a packed map paged by `ftl.map_cache`: GC moved virtual pages, so the map entries
    /// of the logical pages in them change (in DRAM when cached, else in their translation
    /// pages, written back by the next flush).
    fn apply_gc_moves(&mut self) {
        if self.ftl.map.is_none() {
            return;
        }
        let Some(c) = self.compression.as_ref() else {
            return;
        };
        let (mut moved, mut lpns) = std::mem::take(&mut self.map_moved);
        self.ftl.take_gc_moved(&mut moved);
        for &v in &moved {
            c.packer().residents(v, &mut lpns);
            let m = self.ftl.map.as_mut().expect("checked");
            for &l in &lpns {
                m.gc_update(l);
            }
        }
        self.map_moved = (moved, lpns);
    }

    /// With a packed map paged by `ftl.map_cache`: the entries the packer's last call changed
    /// besides the one looked up (a split group's members) change without a lookup.
    pub(in crate::device) fn apply_remapped(&mut self) {
        let Some(m) = self.ftl.map.as_mut() else {
            return;
        };
        let Some(c) = self.compression.as_mut() else {
            return;
        };
        for &l in &c.fx.remapped {
            // A packed map's logical page: validation keeps ftl.compression below 2^32 pages.
            m.gc_update(u32::try_from(l).expect("a packed map's page past 2^32"));
        }
        c.fx.remapped.clear();
    }

    /// Write back the translation pages the map cache evicted or GC updated: each reads its
    /// stored copy (if any), then programs the merged page; no request waits for them.
    fn flush_map(
        &mut self,
        base: Req,
        cmd: SimTime,
        now: SimTime,
        q: &mut EventQueue,
    ) -> Result<()> {
        let mut writes = std::mem::take(&mut self.map_writes);
        writes.clear();
        // GC run to place a write-back may move virtual pages whose entries change too.
        loop {
            self.apply_gc_moves();
            let mut be = self.sched.backend(&mut self.nand, q, now);
            self.ftl.flush_map(now, &mut be, &mut writes)?;
            if !self.ftl.gc_moved_pending() {
                break;
            }
        }
        for &(old, new) in &writes {
            self.sched.program_allocated(new);
            match old {
                Some(old) => self.map_read(old, NO_REQ, MapNext::Program(new), base, cmd),
                None => {
                    let w = self.alloc(Req {
                        kind: Kind::MapWrite,
                        pages_left: 1,
                        ..base
                    });
                    self.arriving_reads.push_back(Arrival {
                        at: cmd,
                        ppn: new,
                        req: w,
                        partial: false,
                        program: true,
                    });
                }
            }
        }
        self.map_writes = writes;
        Ok(())
    }

    /// A partial-page write first reads the page's old data from the flash pages `olds`
    /// (each with whether one partial unit of it is read); its command reaches the controller
    /// at `cmd`, and `kind` says what follows the reads.
    fn read_old_data(&mut self, kind: Kind, base: &Req, cmd: SimTime, olds: &[(Ppn, bool)]) {
        self.counters.rmw_page_reads += olds.len() as u64;
        let rmw = self.alloc(Req {
            kind,
            pages_left: olds.len() as u32,
            ..*base
        });
        for &(ppn, partial) in olds {
            self.arriving_reads.push_back(Arrival {
                at: cmd,
                ppn,
                req: rmw,
                partial,
                program: false,
            });
        }
    }

    /// Whether the bytes `[start, end)` of the request fall in a single partial-read unit of
    /// logical page `lpn` (never without `nand.partial_read`).
    #[inline]
    fn one_unit(&self, lpn: u64, start: u64, end: u64) -> bool {
        if self.partial_unit == 0 {
            return false;
        }
        let page = lpn * self.page_size;
        let lo = start.max(page) - page;
        let hi = end.min(page + self.page_size) - page;
        lo / self.partial_unit == (hi - 1) / self.partial_unit
    }

    /// Time of the next page command reaching the controller, if any.
    #[inline]
    pub fn next_arrival(&self) -> Option<SimTime> {
        let flash = match (self.arriving_reads.front(), self.arriving_writes.front()) {
            (Some(r), Some(w)) => Some(r.at.min(w.at)),
            (Some(r), None) => Some(r.at),
            (None, Some(w)) => Some(w.at),
            (None, None) => None,
        };
        match (flash, self.arriving_chunks.front()) {
            (Some(f), Some(&(c, _))) => Some(f.min(c)),
            (f, c) => f.or(c.map(|&(t, _)| t)),
        }
    }

    /// Hand every page command that has reached the controller by `now` to the back end.
    pub fn process_arrivals(&mut self, now: SimTime, q: &mut EventQueue) {
        while let Some(&(at, req)) = self.arriving_chunks.front().filter(|c| c.0 <= now) {
            self.arriving_chunks.pop_front();
            self.chunk_in_dram(req, at, q);
        }
        loop {
            let r = self.arriving_reads.front().filter(|a| a.at <= now).copied();
            let w = self
                .arriving_writes
                .front()
                .filter(|a| a.at <= now)
                .copied();
            match (r, w) {
                (Some(r), w) if w.is_none_or(|w| r.at <= w.at) => {
                    self.arriving_reads.pop_front();
                    if r.program {
                        self.sched
                            .enqueue_program(r.ppn, r.req, false, now, &mut self.nand, q);
                    } else {
                        self.sched
                            .enqueue_read(r.ppn, r.partial, r.req, now, &mut self.nand, q);
                    }
                }
                (_, Some(w)) => {
                    self.arriving_writes.pop_front();
                    self.arrive_program(w.req, w.ppn, now, q);
                }
                _ => break,
            }
        }
        self.after_backend(now, q);
    }

    /// A back-end timer fired.
    #[inline]
    pub fn on_flash(&mut self, plane: u32, gen: u32, now: SimTime, q: &mut EventQueue) {
        self.sched.on_timer(plane, gen, now, &mut self.nand, q);
        self.after_backend(now, q);
    }

    /// A request slot's data is all at the controller: a read's data goes to the host, a
    /// read-modify-write's merged page goes to be programmed.
    pub fn on_request(&mut self, slot: u32, now: SimTime, q: &mut EventQueue) {
        let r = self.reqs[slot as usize];
        match r.kind {
            Kind::Read => {
                let now = match self.compression.as_mut() {
                    Some(c) => c.decompress(r.decompress, now),
                    None => now,
                };
                let start = now.max(self.link_to_host);
                self.link_to_host = start + self.link_ns(r.len);
                let mut r = r;
                r.done = self.link_to_host;
                self.complete(slot, &r);
            }
            Kind::Rmw { parent, ppn, .. } => {
                self.free_reqs.push(slot);
                for j in 0..self.unit_pages {
                    self.arrive_program(parent, Ppn(ppn.0 + j as u64), now, q);
                }
            }
            Kind::RmwChunk {
                parent,
                ready,
                decompress: true,
            } => {
                // The old data is at the controller: decompress it, then merge.
                let c = self.compression.as_mut().expect("compression is on");
                let at = c.decompress_old(now).max(ready);
                self.reqs[slot as usize].kind = Kind::RmwChunk {
                    parent,
                    ready,
                    decompress: false,
                };
                q.push(at, Event::DeviceReq(slot));
            }
            Kind::RmwChunk { parent, .. } => {
                self.free_reqs.push(slot);
                self.chunk_in_dram(parent, now, q);
            }
            Kind::MapRead { parent, next } => {
                self.free_reqs.push(slot);
                if parent != NO_REQ {
                    let p = &mut self.reqs[parent as usize];
                    p.map_ns = p
                        .map_ns
                        .max(now.0.saturating_sub(r.issued.0 + self.overhead_ns));
                }
                match next {
                    MapNext::DataRead(ppn, partial) => {
                        self.sched
                            .enqueue_read(ppn, partial, parent, now, &mut self.nand, q)
                    }
                    MapNext::Done if parent != NO_REQ => {
                        self.page_done(parent, now, Split::default(), q);
                    }
                    MapNext::Done => {}
                    MapNext::Program(ppn) => {
                        let w = self.alloc(Req {
                            kind: Kind::MapWrite,
                            pages_left: 1,
                            ..r
                        });
                        self.sched
                            .enqueue_program(ppn, w, false, now, &mut self.nand, q);
                    }
                    MapNext::Gate(g) => match self.map_gates[g as usize].then.take() {
                        Some(tp) => {
                            let s2 = self.alloc(Req {
                                kind: Kind::MapRead { parent, next },
                                pages_left: 1,
                                ..r
                            });
                            self.sched
                                .enqueue_read(tp, false, s2, now, &mut self.nand, q);
                        }
                        None => {
                            let reads = std::mem::take(&mut self.map_gates[g as usize].reads);
                            if reads.is_empty() {
                                self.page_done(parent, now, Split::default(), q);
                            }
                            for &(ppn, partial) in &reads {
                                self.sched.enqueue_read(
                                    ppn,
                                    partial,
                                    parent,
                                    now,
                                    &mut self.nand,
                                    q,
                                );
                            }
                            self.map_gates[g as usize].reads = reads;
                            self.map_gates[g as usize].reads.clear();
                            self.free_gates.push(g);
                        }
                    },
                }
            }
            Kind::IndexRead {
                parent,
                ppn,
                old,
                tp,
                started: false,
            } => {
                self.reqs[slot as usize].kind = Kind::IndexRead {
                    parent,
                    ppn,
                    old,
                    tp,
                    started: true,
                };
                self.sched
                    .enqueue_read(tp, false, slot, now, &mut self.nand, q);
            }
            Kind::IndexRead {
                parent, ppn, old, ..
            } => {
                self.free_reqs.push(slot);
                match old {
                    None => self.arrive_program(parent, ppn, now, q),
                    Some(old) => {
                        // Queued behind the commands already on their way (arrivals stay in
                        // time order).
                        let cmd = self.arriving_reads.back().map_or(now, |a| a.at.max(now));
                        self.page_data_in(ppn, Some(old), parent, &r, cmd, now);
                    }
                }
            }
            Kind::Write | Kind::MapWrite | Kind::PageProgram { .. } => {
                unreachable!("write requests complete without a request event")
            }
        }
        self.after_backend(now, q);
    }

    /// The data of page `ppn` of request `req` is at the controller at `now`: its program is
    /// queued (through the write buffer, the packer or the compression buffer when there is one).
    #[inline(always)]
    fn arrive_program(&mut self, req: u32, ppn: Ppn, now: SimTime, q: &mut EventQueue) {
        if ppn.0 != DUPLICATE
            && self.compression.is_none()
            && self.packing.is_none()
            && self.buffer.is_none()
        {
            return self
                .sched
                .enqueue_program(ppn, req, false, now, &mut self.nand, q);
        }
        self.program_buffered(req, ppn, now, q);
    }

    /// [`Device::arrive_program`] of a deduplicated page, or through a buffer.
    #[inline(never)]
    fn program_buffered(&mut self, req: u32, ppn: Ppn, now: SimTime, q: &mut EventQueue) {
        if ppn.0 == DUPLICATE {
            // Inline dedup found the page stored: nothing to program.
            return self.page_done(req, now, Split::default(), q);
        }
        if self.compression.is_some() {
            // A closed page of the compression buffer, programmed from a buffer page.
            return self.compressed_page_in(ppn, req, now, q);
        }
        if self.packing.is_some() {
            return self.unit_in(req, ppn, now, q);
        }
        match self.buffer.as_mut() {
            None => self
                .sched
                .enqueue_program(ppn, req, false, now, &mut self.nand, q),
            Some(buf) => {
                if buf.arrive(Waiter {
                    req,
                    ppn,
                    since: now,
                }) {
                    self.buffer_acked += 1;
                    self.page_done(req, now, Split::default(), q);
                    self.sched
                        .enqueue_program(ppn, NO_REQ, true, now, &mut self.nand, q);
                } else {
                    self.counters.buffer_full_waits += 1;
                }
            }
        }
    }

    /// A flush (NVMe Flush; fio's fsync without a file system) arriving at `now`, its
    /// command at the controller at `cmd`: it completes once every page the write buffer had
    /// acknowledged when it arrived is programmed, counted as pages programmed from the
    /// buffer (the buffer programs nearly in arrival order); at once without a buffer, whose
    /// writes complete only when programmed.
    fn flush(&mut self, stream: u32, now: SimTime, cmd: SimTime, q: &mut EventQueue) -> Result<()> {
        if self.compression.is_some() {
            return Err(Error::Workload(
                "a flush (fio's fsync/fdatasync/end_fsync) on a compressing device is not modelled: its compression buffer has no flush".into(),
            ));
        }
        let c = Completed::unqueued(stream, Op::Sync, 0, now, cmd);
        if self.packing.is_some() {
            // The pages being filled are programmed now, padded.
            self.ftl.pad_host();
            self.pages_closed(now, q);
            self.after_backend(now, q);
        }
        if self.buffer.is_none() || self.buffer_programmed >= self.buffer_acked {
            self.completed.push(c);
        } else {
            self.flushes.push_back((self.buffer_acked, c));
        }
        Ok(())
    }

    /// Complete the flushes whose pages are all programmed, at `now`.
    fn finish_flushes(&mut self, now: SimTime) {
        while let Some((target, _)) = self.flushes.front() {
            if *target > self.buffer_programmed {
                break;
            }
            let (_, mut c) = self.flushes.pop_front().expect("front exists");
            c.done = c.done.max(now);
            c.queue_ns = c.done.0 - c.issued.0;
            self.completed.push(c);
        }
    }

    /// Take what the back end finished, and give idle planes background GC.
    #[inline]
    fn after_backend(&mut self, now: SimTime, q: &mut EventQueue) {
        // Called after every request and back-end call; a write's mapping usually leaves the
        // back end with nothing finished and no plane idle.
        if self.sched.done.is_empty() && self.sched.idle.is_empty() {
            return;
        }
        self.take_backend(now, q);
    }

    #[inline(never)]
    fn take_backend(&mut self, now: SimTime, q: &mut EventQueue) {
        loop {
            if let Some(pd) = self.sched.done.pop() {
                if pd.buffered && self.compression.is_some() {
                    self.compressed_page_programmed(now, q);
                } else if pd.buffered && self.packing.is_some() {
                    self.page_done(pd.req, pd.done, pd.split, q);
                } else if pd.buffered {
                    let buf = self
                        .buffer
                        .as_mut()
                        .expect("buffered program without a buffer");
                    self.buffer_programmed += 1;
                    if let Some(w) = buf.release() {
                        self.buffer_acked += 1;
                        let split = Split {
                            queue_ns: now.0 - w.since.0,
                            ..Split::default()
                        };
                        self.page_done(w.req, now, split, q);
                        self.sched
                            .enqueue_program(w.ppn, NO_REQ, true, now, &mut self.nand, q);
                    }
                    if !self.flushes.is_empty() {
                        self.finish_flushes(now);
                    }
                } else {
                    self.page_done(pd.req, pd.done, pd.split, q);
                }
                continue;
            }
            if let Some(plane) = self.sched.idle.pop() {
                let mut be = self.sched.backend(&mut self.nand, q, now);
                self.ftl.background_gc(plane, now, &mut be);
                self.apply_gc_moves();
                // GC may have padded and closed a page the host was filling.
                self.pages_closed(now, q);
                if self.ftl.map_pending() {
                    // Background GC updated uncached map entries: their translation pages
                    // are written back now, not when the next request arrives.
                    let base = Req {
                        done: now,
                        ..Req::new(Kind::MapWrite, 0, Op::Write, 0, now)
                    };
                    // Queued behind the commands already on their way (arrivals stay in
                    // time order). Should no plane take a page now, the write-backs stay
                    // pending and the next request's mapping retries them (and reports it).
                    let at = self.arriving_reads.back().map_or(now, |a| a.at.max(now));
                    if self.flush_map(base, at, now, q).is_err() {
                        continue;
                    }
                }
                continue;
            }
            break;
        }
    }

    #[inline]
    fn page_done(&mut self, slot: u32, done: SimTime, split: Split, q: &mut EventQueue) {
        let r = &mut self.reqs[slot as usize];
        r.pages_left -= 1;
        if done >= r.done {
            r.done = done;
            r.split = split;
        }
        r.during_gc |= split.during_gc;
        if r.pages_left > 0 {
            return;
        }
        let r = *r;
        match r.kind {
            Kind::Write => self.complete(slot, &r),
            Kind::MapWrite => self.free_reqs.push(slot),
            Kind::PageProgram { fill } => {
                self.free_reqs.push(slot);
                self.page_programmed(fill, r.done, r.split, q);
            }
            Kind::MapRead { .. } | Kind::IndexRead { .. } => q.push(r.done, Event::DeviceReq(slot)),
            Kind::Read => q.push(r.done, Event::DeviceReq(slot)),
            Kind::Rmw { arrived, .. } => q.push(r.done.max(arrived), Event::DeviceReq(slot)),
            Kind::RmwChunk {
                decompress: true, ..
            } => q.push(r.done, Event::DeviceReq(slot)),
            Kind::RmwChunk { ready, .. } => q.push(r.done.max(ready), Event::DeviceReq(slot)),
        }
    }

    #[inline]
    fn complete(&mut self, slot: u32, r: &Req) {
        if r.fails {
            self.failed.push((r.stream, r.done));
            self.free_reqs.push(slot);
            return;
        }
        self.completed.push(Completed {
            stream: r.stream,
            op: r.op,
            len: r.len,
            issued: r.issued,
            done: r.done,
            queue_ns: r.split.queue_ns,
            gc_ns: r.split.gc_ns,
            during_gc: r.during_gc,
            map_ns: r.map_ns,
        });
        self.free_reqs.push(slot);
    }

    #[inline]
    fn verify_read(&mut self, lpn: Lpn) -> Result<()> {
        if let Some(s) = self.shadow.as_ref() {
            let got = match (self.zns.as_ref(), self.compression.as_ref()) {
                (Some(z), Some(c)) => z.compressed_content_of(lpn.0, c)?,
                (Some(z), None) => z.content_of(lpn.0),
                (None, Some(_)) => self.compressed_read_id(lpn.0)?,
                (None, None) => self.ftl.content_of(lpn),
            };
            let want = s.expected[lpn.0 as usize];
            if got != want {
                return Err(Error::Verify(format!(
                    "logical page {} read content id {got:#x}, but {want:#x} was last written there",
                    lpn.0
                )));
            }
            self.counters.verified_page_reads += 1;
        }
        Ok(())
    }

    /// Write pages without timing (preconditioning); the back end is reset afterwards.
    /// `cm` sizes the page when the device compresses.
    pub fn write_untimed(
        &mut self,
        lpn: Lpn,
        data: Untimed,
        cm: Option<&mut ContentModel>,
    ) -> Result<()> {
        let content = data.page_id();
        if self.zns.is_some() {
            // Validation refuses the fill on compressed zones.
            self.write_zoned_untimed(lpn, content);
            return Ok(());
        }
        if self.compression.is_some() {
            return self.write_compressed_untimed(
                lpn,
                data,
                cm.expect("compression has the content model"),
            );
        }
        if let Some(s) = self.shadow.as_mut() {
            s.expected[lpn.0 as usize] = content;
        }
        if self.ftl.dedup.is_some() {
            let block = data.block(self.page_size, true);
            let (fp, strong, c) = self.fingerprint(content, data.stream() as u32, block, cm);
            if let Some(s) = self.shadow.as_mut() {
                s.expected[lpn.0 as usize] = c;
            }
            let p = self
                .ftl
                .write_dedup(lpn, fp, strong, c, SimTime::ZERO, &mut self.nand)?;
            if let Some(ppn) = p {
                self.nand.count_transfer();
                self.nand.count_program(ppn, false);
            }
        } else {
            let pid = self.ftl.fdp.as_ref().map_or(0, |f| f.fill_pid(lpn.0));
            let ppn = self
                .ftl
                .write(lpn, pid, content, SimTime::ZERO, &mut self.nand)?;
            if self.packing.is_some() {
                // Units smaller than the page (no demand-paged table: the config refuses it).
                self.program_closed_untimed();
                return Ok(());
            }
            for j in 0..self.unit_pages {
                self.nand.count_transfer();
                self.nand.count_program(Ppn(ppn.0 + j as u64), false);
            }
        }
        self.book_map_untimed()
    }

    /// Preconditioning with a demand-paged table (page map, packed map or fingerprint index):
    /// its flash work (the translation pages lookups read, write-backs), booked at once.
    pub(in crate::device) fn book_map_untimed(&mut self) -> Result<()> {
        if self.ftl.demand_paged() {
            for tp in [self.ftl.take_map_read(), self.ftl.take_index_read()]
                .into_iter()
                .flatten()
            {
                self.nand.count_read(tp, false);
                self.nand.count_transfer();
            }
            let mut writes = std::mem::take(&mut self.map_writes);
            writes.clear();
            loop {
                self.apply_gc_moves();
                self.ftl
                    .flush_map(SimTime::ZERO, &mut self.nand, &mut writes)?;
                if !self.ftl.gc_moved_pending() {
                    break;
                }
            }
            for &(old, new) in &writes {
                if let Some(old) = old {
                    self.nand.count_read(old, false);
                    self.nand.count_transfer();
                }
                self.nand.count_transfer();
                self.nand.count_program(new, false);
            }
            self.map_writes = writes;
        }
        Ok(())
    }

    /// Change every remembered content id, so the next verified read fails (tests only).
    #[doc(hidden)]
    pub fn corrupt_shadow_for_test(&mut self) {
        if let Some(s) = self.shadow.as_mut() {
            s.expected.iter_mut().for_each(|c| *c ^= 1);
        }
    }

    /// Units smaller than the page, untimed: book the programs of the pages the FTL closed.
    fn program_closed_untimed(&mut self) {
        let mut closed = Vec::new();
        self.ftl.take_closed(&mut closed);
        for page in closed {
            self.nand.count_transfer();
            self.nand.count_program(page, false);
        }
    }

    /// Forget timing and counters after preconditioning; the FTL state and wear stay.
    pub fn reset_after_precondition(&mut self) {
        if self.packing.is_some() {
            // Preconditioning leaves its data programmed: the last pages go padded.
            self.ftl.pad_host();
            self.program_closed_untimed();
            self.packing = Some(pack::Packing::default());
        }
        self.nand.reset_counters();
        self.sched.reset(&self.ftl);
        self.ftl.counters = Default::default();
        if let Some(m) = self.ftl.map.as_mut() {
            m.counters = Default::default();
        }
        if let Some(m) = self.ftl.index.as_mut() {
            m.counters = Default::default();
        }
        if let Some(d) = self.ftl.dedup.as_mut() {
            d.counters = Default::default();
        }
        if let Some(f) = self.ftl.fdp.as_mut() {
            f.counters.iter_mut().for_each(|c| *c = Default::default());
            f.events.clear();
        }
        self.counters = DeviceCounters::default();
        self.link_to_device = SimTime::ZERO;
        self.link_to_host = SimTime::ZERO;
        if let Some(b) = self.buffer.as_mut() {
            b.reset();
        }
        self.flushes.clear();
        self.buffer_acked = 0;
        self.buffer_programmed = 0;
        if let Some(c) = self.compression.as_mut() {
            c.reset();
        }
        if let Some(z) = self.zns.as_mut() {
            z.counters = Default::default();
        }
    }
}
