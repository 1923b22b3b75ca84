//! The request front: a host command reaches the controller after its overhead and is
//! mapped at once, in submission order (reads translated and queued page by page, writes
//! mapped page by page with their data still to cross the link, trims, flushes, FDP's
//! reclaim unit handle updates), with verify mode's check of every read and the look-ahead
//! hints the replay gives for the requests after.

use super::{Arrival, Completed, Device, Kind, MapNext, Req, PREFETCH_PAGES};
use crate::content::{nth_id, ContentModel};
use crate::device::sched::NO_REQ;
use crate::device::zns;
use crate::engine::{Event, EventQueue};
use crate::error::{Error, Result};
use crate::units::{Lpn, Ppn, SimTime};
use crate::workload::{Op, Request};

impl Device {
    /// Hint that `req` arrives soon, `ahead` requests after the one just submitted (1 or 2):
    /// the page FTL's map entries of its first pages are prefetched, two ahead the entries,
    /// one ahead (a write's) the reverse map entries and block counters of the pages it
    /// overwrites ([`Ftl::prefetch_entry`](crate::ftl::Ftl::prefetch_entry),
    /// [`Ftl::prefetch_location`](crate::ftl::Ftl::prefetch_location)). Nothing for zoned,
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

    #[inline]
    pub(super) fn verify_read(&mut self, lpn: Lpn) -> Result<()> {
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
}
