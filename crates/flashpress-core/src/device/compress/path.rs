//! The controller's read and write paths with compression: reads gather the flash pages the
//! request's logical pages (or split pieces) are on, writes compress, place and write the
//! pages the packer closes (split groups on different channels).

use super::PageWrite;
use crate::content::{nth_id, ContentModel};
use crate::device::sched::{Split, NO_REQ};
use crate::device::{Arrival, Device, Kind, MapNext, Req};
use crate::engine::{Event, EventQueue};
use crate::error::{Error, Result};
use crate::host::ASYNC_TAG;
use crate::units::SimTime;
use crate::units::{Lpn, Ppn};
use crate::workload::Request;

impl Device {
    /// Discard logical page `lpn` (TRIM of a whole page).
    pub(in crate::device) fn trim_page(&mut self, lpn: u64, at: SimTime) {
        match self.compression.as_mut() {
            None => self.ftl.trim(Lpn(lpn), at),
            Some(c) => {
                // A paged packed map loads the entry to clear it (the caller reads its
                // translation page).
                self.ftl.map_lookup(lpn, true);
                c.trim(lpn);
                for &v in &c.fx.freed {
                    self.ftl.trim(Lpn(v.into()), at);
                }
                self.apply_remapped();
            }
        }
    }

    /// A read with compression: one flash read per flash page the request's logical pages
    /// are on (a partial read when they lie in one partial unit of it), none for pages still
    /// in DRAM; the compressed pages are decompressed before the data goes to the host. With a
    /// paged map (`ftl.map_cache`) a logical page whose entry misses reads its translation
    /// page first: the flash read it needs waits for it.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::device) fn read_compressed(
        &mut self,
        req: &Request,
        base: Req,
        now: SimTime,
        cmd: SimTime,
        first: u64,
        last: u64,
        q: &mut EventQueue,
    ) -> Result<()> {
        for lpn in first..=last {
            self.verify_read(Lpn(lpn))?;
        }
        let c = self.compression.as_mut().expect("compression is on");
        let page = self.page_size;
        let unit = self.partial_unit;
        let end = req.offset + req.len;
        // (flash page, partial units wanted, a split piece) of this request, in first-touch
        // order.
        let mut reads: Vec<(Ppn, u64, bool)> = Vec::new();
        // With a paged map: per flash read the translation page it waits for, and the
        // translation pages read for entries whose data needs no flash read of its own.
        let paged = self.ftl.map.is_some();
        let mut read_tp: Vec<Option<Wait>> = Vec::new();
        let mut other_tps: Vec<Ppn> = Vec::new();
        // The split FTL's chained translation reads (packed-map entry, then split-table
        // entry), each with the reads waiting for them.
        let mut chains: Vec<(Ppn, Option<Ppn>)> = Vec::new();
        let mut nowait_chains: Vec<usize> = Vec::new();
        let mut decompress = 0u32;
        for lpn in first..=last {
            c.record_read(lpn, req.len);
            let tp = if paged {
                self.ftl.map_lookup(lpn, false);
                self.ftl.take_map_read()
            } else {
                None
            };
            other_tps.extend(tp);
            let Some(ch) = c.packer().lookup(lpn) else {
                self.counters.unmapped_page_reads += 1;
                continue;
            };
            let p0 = lpn * page;
            let (lo, hi) = (req.offset.max(p0) - p0, end.min(p0 + page) - p0);
            if ch.split() {
                if c.packer().split_pending(ch) {
                    c.counters.dram_page_reads += 1;
                    continue;
                }
                // With a paged map the pieces' flash pages are in the split table: its entry
                // is looked up too, once the packed-map entry (if it missed) is read.
                let tp2 = if paged {
                    self.ftl.map_lookup(c.packer().split_key(ch), false);
                    self.ftl.take_map_read()
                } else {
                    None
                };
                let chain = match (tp, tp2) {
                    (None, None) => None,
                    (Some(a), b) => {
                        other_tps.pop();
                        Some((a, b))
                    }
                    (None, Some(b)) => Some((b, None)),
                };
                let mut waits = false;
                // One partial read of each piece wanted, each on its own channel; pieces of
                // several pages of the request in one flash page make it a full read.
                let wanted = span(lo, hi, unit);
                for i in 0..c.packer().pieces() {
                    if wanted >> i & 1 == 0 {
                        continue;
                    }
                    let p = c.packer().piece(ch, i);
                    let ppn = self
                        .ftl
                        .lookup(Lpn(p.vpn.into()))
                        .expect("a closed group's pages are mapped");
                    let bit = 1u64 << (p.offset as u64 / unit);
                    let i = match reads.iter().position(|r| r.0 == ppn) {
                        Some(i) => {
                            reads[i].1 |= bit;
                            i
                        }
                        None => {
                            reads.push((ppn, bit, true));
                            reads.len() - 1
                        }
                    };
                    if chain.is_some() {
                        read_tp.resize(reads.len(), None);
                        if read_tp[i].is_none() {
                            read_tp[i] = Some(Wait::Chain(chains.len()));
                            waits = true;
                        }
                    }
                }
                if let Some(ch) = chain {
                    chains.push(ch);
                    if !waits {
                        // Every piece is read for an earlier page of the request: the chain
                        // completes a page of its own.
                        nowait_chains.push(chains.len() - 1);
                    }
                }
                continue;
            }
            let wanted = span(lo, hi, 4096);
            if ch.zero() || wanted & !(c.zeros(lpn) as u64) == 0 {
                c.counters.zero_reads += 1;
                continue;
            }
            if c.compressed(lpn) {
                decompress += 1;
            }
            if c.packer().is_open(ch.vpn) {
                c.counters.dram_page_reads += 1;
                continue;
            }
            let ppn = self
                .ftl
                .lookup(Lpn(ch.vpn.into()))
                .expect("a closed virtual page is mapped");
            let units = if unit == 0 {
                1
            } else if ch.merged(page as u32) {
                span(ch.offset as u64, (ch.offset + ch.len) as u64, unit)
            } else {
                span(req.offset.max(p0) - p0, end.min(p0 + page) - p0, unit)
            };
            let i = match reads.iter().position(|r| r.0 == ppn) {
                Some(i) => {
                    reads[i].1 |= units;
                    i
                }
                None => {
                    reads.push((ppn, units, false));
                    reads.len() - 1
                }
            };
            if paged {
                read_tp.resize(reads.len(), None);
                if let Some(tp) = tp.filter(|_| read_tp[i].is_none()) {
                    read_tp[i] = Some(Wait::Tp(tp));
                    other_tps.pop();
                }
            }
        }
        if !reads.is_empty() {
            // Split conflicts (PR-SSD Fig. 19): two flash reads of the request on a channel.
            // One flash read (the common case) cannot conflict: no sort, no allocation.
            let (mut normal, mut split) = (false, false);
            if reads.len() > 1 {
                let mut chans: Vec<(u32, bool)> = reads
                    .iter()
                    .map(|r| {
                        (
                            self.nand.geo.channel_of(self.nand.geo.plane_of_ppn(r.0)),
                            r.2,
                        )
                    })
                    .collect();
                chans.sort_unstable();
                for w in chans.windows(2) {
                    if w[0].0 == w[1].0 {
                        if w[0].1 || w[1].1 {
                            split = true;
                        } else {
                            normal = true;
                        }
                    }
                }
            }
            let k = &mut c.counters;
            match (split, normal) {
                (true, _) => k.reads_conflict_split += 1,
                (false, true) => k.reads_conflict_normal += 1,
                _ => k.reads_no_conflict += 1,
            }
        }
        let slot = self.alloc(Req { decompress, ..base });
        let mut gated: Vec<Vec<(Ppn, bool)>> = vec![Vec::new(); chains.len()];
        for (i, &(ppn, units, _)) in reads.iter().enumerate() {
            let partial = unit != 0 && units.count_ones() == 1;
            match read_tp.get(i).copied().flatten() {
                Some(Wait::Tp(tp)) => {
                    self.map_read(tp, slot, MapNext::DataRead(ppn, partial), base, cmd)
                }
                Some(Wait::Chain(k)) => gated[k].push((ppn, partial)),
                None => self.arriving_reads.push_back(Arrival {
                    at: cmd,
                    ppn,
                    req: slot,
                    partial,
                    program: false,
                }),
            }
        }
        for (&(first, then), reads) in chains.iter().zip(&gated) {
            self.map_read_chain(first, then, reads, slot, base, cmd);
        }
        for &tp in &other_tps {
            self.map_read(tp, slot, MapNext::Done, base, cmd);
        }
        let pages = (reads.len() + other_tps.len() + nowait_chains.len()) as u32;
        let r = &mut self.reqs[slot as usize];
        r.pages_left = pages;
        r.done = cmd;
        if pages == 0 {
            q.push(cmd, Event::DeviceReq(slot));
        }
        if paged {
            self.flush_map(base, cmd, now, q)?;
        }
        Ok(())
    }

    /// A write with compression: each logical page is compressed once its data is at the
    /// controller, placed by the packer, and acknowledged from DRAM; the pages the packer
    /// closes are written to flash.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::device) fn write_compressed(
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
        let (arrived, slot) = self.write_arrives(req, base, cmd, last - first + 1);
        let stream = (base.stream & !ASYNC_TAG) as usize;
        let end = req.offset + req.len;
        let first_blk = req.offset / 4096;
        let bpp = self.page_size / 4096;
        for (i, lpn) in (first..=last).enumerate() {
            let page_start = lpn * self.page_size;
            let partial = req.offset > page_start || end < page_start + self.page_size;
            // A paged map loads the entry; the write completes once it is loaded too.
            self.ftl.map_lookup(lpn, true);
            if let Some(tp) = self.ftl.take_map_read() {
                self.reqs[slot as usize].pages_left += 1;
                self.map_read(tp, slot, MapNext::Done, base, cmd);
            }
            // A partial write of a split page reads the pieces it keeps: a paged map looks
            // their split-table entry up, and the write completes once it is loaded too.
            if partial && self.ftl.map.is_some() {
                let p = self
                    .compression
                    .as_ref()
                    .expect("compression is on")
                    .packer();
                if let Some(ch) = p
                    .lookup(lpn)
                    .filter(|ch| ch.split() && !p.split_pending(*ch))
                {
                    self.ftl.map_lookup(p.split_key(ch), false);
                    if let Some(tp) = self.ftl.take_map_read() {
                        self.reqs[slot as usize].pages_left += 1;
                        self.map_read(tp, slot, MapNext::Done, base, cmd);
                    }
                }
            }
            let c = self.compression.as_mut().expect("compression is on");
            let (lo, hi) = (
                req.offset.max(page_start) - page_start,
                end.min(page_start + self.page_size) - page_start,
            );
            // A partial-page write merges with the page's old data, read from flash first
            // unless it is still in DRAM: the flash page holding it, or of a split page the
            // pieces the write does not cover, each with a partial read.
            let mut olds = std::mem::take(&mut self.old_reads);
            olds.clear();
            match partial.then(|| c.packer().lookup(lpn)).flatten() {
                Some(ch) if ch.split() && !c.packer().split_pending(ch) => {
                    let unit = self.partial_unit;
                    for i in 0..c.packer().pieces() as u64 {
                        if lo <= i * unit && (i + 1) * unit <= hi {
                            continue;
                        }
                        let p = c.packer().piece(ch, i as u32);
                        let ppn = self.ftl.lookup(Lpn(p.vpn.into())).expect("mapped");
                        olds.push((ppn, true));
                    }
                }
                Some(ch) if !ch.zero() && !ch.split() && !c.packer().is_open(ch.vpn) => {
                    olds.extend(self.ftl.lookup(Lpn(ch.vpn.into())).map(|p| (p, false)));
                }
                _ => {}
            }
            let id = nth_id(content, i as u64).max(1);
            if let Some(s) = self.shadow.as_mut() {
                s.expected[lpn as usize] = id;
            }
            // Unit i of the page holds block lpn * bpp + i; the request's first block holds
            // `content`.
            let block_id = nth_id(content, (lpn * bpp).wrapping_sub(first_blk));
            let written = span(lo, hi, 4096) as u16;
            // Units this write does not cover keep their old zero bits; a never-written
            // page reads as zeros.
            let kept = match c.packer().lookup(lpn) {
                Some(_) => c.zeros(lpn),
                None => u16::MAX,
            };
            // Old data read from flash is decompressed before it merges, when stored so.
            let old_compressed = !olds.is_empty() && c.compressed(lpn);
            let len = c.store(lpn, cm, stream, block_id, written, kept);
            let ready = c.compress(arrived);
            let split = len as u64 == self.page_size && c.split_decision(lpn, req.len);
            let mut writes = std::mem::take(&mut self.page_writes);
            writes.clear();
            if split {
                c.place_split(lpn, ready, id, &mut writes)?;
            } else {
                c.place(lpn, len, ready, id, &mut writes)?;
            }
            let flushed = self.flush_page_writes(&mut writes, now, q);
            self.page_writes = writes;
            if flushed? && self.ftl.map.is_some() {
                // A split group went to flash: its members' split-table entries are written
                // (looked up, dirty); the write completes once they are loaded.
                let keys: Vec<u64> = self
                    .compression
                    .as_ref()
                    .expect("compression is on")
                    .packer()
                    .closed_keys()
                    .collect();
                for k in keys {
                    self.ftl.map_lookup(k, true);
                    if let Some(tp) = self.ftl.take_map_read() {
                        self.reqs[slot as usize].pages_left += 1;
                        self.map_read(tp, slot, MapNext::Done, base, cmd);
                    }
                }
            }
            if olds.is_empty() {
                self.arriving_chunks.push_back((ready, slot));
            } else {
                let kind = Kind::RmwChunk {
                    parent: slot,
                    ready,
                    decompress: old_compressed,
                };
                self.read_old_data(kind, &base, cmd, &olds);
            }
            self.old_reads = olds;
        }
        if self.ftl.map.is_some() {
            self.flush_map(base, cmd, now, q)?;
        }
        self.after_backend(now, q);
        Ok(())
    }

    /// Give the page FTL the virtual pages the packer closed (their programs reach the back
    /// end when their data is all in DRAM) and discard the ones it freed. Returns whether a
    /// split group was written split.
    fn flush_page_writes(
        &mut self,
        writes: &mut [PageWrite],
        now: SimTime,
        q: &mut EventQueue,
    ) -> Result<bool> {
        self.apply_remapped();
        // Discard first: a VPN freed by this write may also be the page it wrote.
        let c = self.compression.as_mut().expect("compression is on");
        let freed = std::mem::take(&mut c.fx.freed);
        for &v in &freed {
            self.ftl.trim(Lpn(v.into()), now);
        }
        self.compression
            .as_mut()
            .expect("compression is on")
            .fx
            .freed = freed;
        let c = self.compression.as_mut().expect("compression is on");
        if c.fx.group.is_some() {
            // A split group: its pages on different channels, of one page type, or else
            // unsplit.
            let vpns: Vec<Lpn> = writes.iter().map(|w| Lpn(w.vpn.into())).collect();
            let ids: Vec<u64> = writes.iter().map(|w| w.page_id).collect();
            let mut ppns = Vec::with_capacity(vpns.len());
            let placed = {
                let mut be = self.sched.backend(&mut self.nand, q, now);
                self.ftl.write_group(&vpns, &ids, now, &mut be, &mut ppns)?
            };
            if placed {
                for (w, &ppn) in writes.iter().zip(&ppns) {
                    self.queue_page_program(ppn, NO_REQ, w.ready, now);
                }
                return Ok(true);
            }
            let c = self.compression.as_mut().expect("compression is on");
            // Unsplit, the members' packed-map entries name whole pages now: they change
            // without a lookup.
            if let Some(m) = self.ftl.map.as_mut() {
                for &l in c.packer().closed_members() {
                    m.gc_update(l as u32);
                }
            }
            c.unsplit(writes);
        }
        for w in writes.iter() {
            let ppn = {
                let mut be = self.sched.backend(&mut self.nand, q, now);
                self.ftl
                    .write(Lpn(w.vpn.into()), 0, w.page_id, now, &mut be)?
            };
            self.queue_page_program(ppn, NO_REQ, w.ready, now);
        }
        Ok(false)
    }

    /// A page of the compression buffer is mapped to `ppn`; its data is all in DRAM at
    /// `ready`; `req` ([`NO_REQ`]: none) is written once the page has its buffer page.
    pub(in crate::device) fn queue_page_program(
        &mut self,
        ppn: Ppn,
        req: u32,
        ready: SimTime,
        now: SimTime,
    ) {
        self.sched.program_allocated(ppn);
        // Page commands reach the controller in order.
        let at = self
            .arriving_writes
            .back()
            .map_or(ready, |b| b.at.max(ready))
            .max(now);
        self.arriving_writes.push_back(Arrival {
            at,
            ppn,
            req,
            partial: false,
            program: false,
        });
    }

    /// A logical page of write request `req` is compressed and in DRAM at `at`.
    pub(in crate::device) fn chunk_in_dram(&mut self, req: u32, at: SimTime, q: &mut EventQueue) {
        let c = self.compression.as_mut().expect("compression is on");
        if c.admit(req, at) {
            self.page_done(req, at, Split::default(), q);
        }
    }

    /// A closed page's data is all in DRAM at `now`: programmed from a buffer page, or
    /// waiting for one. `req` ([`NO_REQ`]: none) is the write whose block completed the page
    /// (a compressed zone's): that block is written once the page has its buffer page, as
    /// a plain write buffer's page is.
    pub(in crate::device) fn compressed_page_in(
        &mut self,
        ppn: Ppn,
        req: u32,
        now: SimTime,
        q: &mut EventQueue,
    ) {
        let c = self.compression.as_mut().expect("compression is on");
        if c.page_closed(ppn, req, now) {
            if req != NO_REQ {
                self.page_done(req, now, Split::default(), q);
            }
            self.sched
                .enqueue_program(ppn, NO_REQ, true, now, &mut self.nand, q);
        } else if req != NO_REQ {
            self.counters.buffer_full_waits += 1;
        }
    }

    /// A closed page's program completed at `now`: a waiting closed page takes its buffer
    /// page, and the logical pages waiting go in once no closed page waits.
    pub(in crate::device) fn compressed_page_programmed(
        &mut self,
        now: SimTime,
        q: &mut EventQueue,
    ) {
        let mut out = std::mem::take(&mut self.released);
        out.clear();
        let next = self
            .compression
            .as_mut()
            .expect("compression is on")
            .program_done(&mut out);
        if let Some((ppn, req, since)) = next {
            if req != NO_REQ {
                let split = Split {
                    queue_ns: now.0 - since.0,
                    ..Split::default()
                };
                self.page_done(req, now, split, q);
            }
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
    pub(in crate::device) fn write_compressed_untimed(
        &mut self,
        lpn: Lpn,
        data: crate::device::Untimed,
        cm: &mut ContentModel,
    ) -> Result<()> {
        let content = data.page_id();
        if let Some(s) = self.shadow.as_mut() {
            s.expected[lpn.0 as usize] = content;
        }
        self.ftl.map_lookup(lpn.0, true);
        let c = self.compression.as_mut().expect("compression is on");
        let block = data.block(self.page_size, false);
        let len = c.store(lpn.0, cm, data.stream(), block, u16::MAX, 0);
        let mut writes = std::mem::take(&mut self.page_writes);
        writes.clear();
        c.place(lpn.0, len, SimTime::ZERO, content, &mut writes)?;
        // Discard first: a VPN freed by this write may also be the page it wrote.
        for &v in &c.fx.freed {
            self.ftl.trim(Lpn(v.into()), SimTime::ZERO);
        }
        for w in &writes {
            let ppn = self.ftl.write(
                Lpn(w.vpn.into()),
                0,
                w.page_id,
                SimTime::ZERO,
                &mut self.nand,
            )?;
            self.nand.count_transfer();
            self.nand.count_program(ppn, false);
        }
        self.page_writes = writes;
        self.book_map_untimed()
    }
}

impl Device {
    /// The content id a read of logical page `lpn` finds (verify mode): its chunk's, or of a
    /// split page every piece's, which must agree.
    pub(in crate::device) fn compressed_read_id(&self, lpn: u64) -> Result<u64> {
        let c = self.compression.as_ref().expect("compression is on");
        let Some(ch) = c.packer().lookup(lpn) else {
            return Ok(0);
        };
        let flash_id = |vpn: u32| {
            self.ftl
                .lookup(Lpn(vpn.into()))
                .map_or(0, |p| self.ftl.content_at(p))
        };
        if ch.split() && !c.packer().split_pending(ch) {
            let mut id = None;
            for i in 0..c.packer().pieces() {
                let p = c.packer().piece(ch, i);
                let got = c.read_id(lpn, p, Some(flash_id(p.vpn)))?;
                if id.is_some_and(|x| x != got) {
                    return Err(Error::Verify(format!(
                        "logical page {lpn}: split piece {i} holds content {got:#x}, piece 0 {:#x}",
                        id.unwrap_or(0)
                    )));
                }
                id = Some(got);
            }
            return Ok(id.unwrap_or(0));
        }
        let flash =
            (!ch.zero() && !ch.split() && !c.packer().is_open(ch.vpn)).then(|| flash_id(ch.vpn));
        c.read_id(lpn, ch, flash)
    }
}

/// What a flash read of a compressed read waits for with a paged map: one translation read,
/// or chain `k` of the request's (the split FTL's packed-map entry, then split-table entry).
#[derive(Debug, Clone, Copy)]
enum Wait {
    Tp(Ppn),
    Chain(usize),
}

/// Bitmask of the partial units of size `unit` that bytes `[lo, hi)` of a page touch.
#[inline]
fn span(lo: u64, hi: u64, unit: u64) -> u64 {
    let (a, b) = (lo / unit, (hi - 1) / unit);
    (u64::MAX >> (63 - (b - a))) << a
}
