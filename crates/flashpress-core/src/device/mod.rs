//! The SSD controller: turns block requests into FTL page operations, moves data over the
//! host link, holds the optional DRAM write buffer, and (in verify mode) checks that every
//! read returns the content last written to its address.
//!
//! Mapping is decided when a request is submitted (so verify mode and the FTL see requests
//! in submission order); the flash work then reaches the back end ([`sched`]) when its
//! command (reads) or its data (writes, over the host link) arrives at the controller, and
//! completes when the back end says so. A request's completion goes back to the host through
//! [`Device::completed`].
//!
//! Along the data path: `submit` (a command mapped at the controller), `write` (a write's
//! pages: host link, inline dedup, a partial unit's old data), `translation` (a demand-paged
//! map's translation reads and write-backs), `arrive` (page commands handed to the back end),
//! `complete` (what the back end finished, completions to the host), `untimed`
//! (preconditioning). This file keeps the device's state and its construction.

mod arrive;
pub(crate) mod buffer;
pub mod ccsd;
mod complete;
pub mod compress;
mod pack;
pub mod sched;
mod submit;
mod translation;
mod untimed;
mod write;
pub mod zns;

use crate::config::SimConfig;
use crate::content::ContentModel;
use crate::error::{Error, Result};
use crate::ftl::Ftl;
use crate::nand::Nand;
use crate::units::{bytes_ns, duration_ns, ns_per_byte, Lpn, Ppn, SimTime, MAX_OP_NS};
use crate::workload::Op;
use buffer::WriteBuffer;
use compress::{Compression, PageWrite};
use sched::{Scheduler, Split};
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
    /// The read of a translation page (`ftl.map_cache`) for `parent`
    /// ([`NO_REQ`](sched::NO_REQ): for no request), then `next`.
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

    /// Change every remembered content id, so the next verified read fails (tests only).
    #[doc(hidden)]
    pub fn corrupt_shadow_for_test(&mut self) {
        if let Some(s) = self.shadow.as_mut() {
            s.expected.iter_mut().for_each(|c| *c ^= 1);
        }
    }
}
