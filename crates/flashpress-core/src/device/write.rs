//! A write's pages once mapped: the request's data over the host link, inline dedup's hash
//! and index lookup, and a partial mapping unit's read of its old data before the merged unit
//! is programmed.

use super::{Arrival, Device, Kind, MapNext, Req, DUPLICATE};
use crate::content::ContentModel;
use crate::engine::{Event, EventQueue};
use crate::error::Result;
use crate::ftl::dedup::Strong;
use crate::units::{Lpn, Ppn, SimTime};
use crate::workload::Request;

impl Device {
    /// With deduplication: map one page of a write whose data is at the controller at
    /// `arrived`. Inline dedup hashes it first (the hash engine, in data-arrival order; a
    /// partial page is hashed then too, before its old data is merged in) and a duplicate
    /// completes when its hash does, with no program (a partial one after its old data is
    /// read). In gc mode the page is stored as written.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn write_dedup_page(
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
    pub(super) fn page_data_in(
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

    /// A page's fingerprint, strong hash and the id verify mode checks it by: its content id
    /// `c`, or with `fingerprint = "bytes"` the hashes of its bytes (the content model's
    /// page from 4 KiB block `block` of host stream `stream`; a partial page is hashed as a
    /// whole page of the model's bytes), and then verify mode checks the pre-filter hash.
    pub(super) fn fingerprint(
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
    pub(super) fn write_arrives(
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

    /// A partial-page write first reads the page's old data from the flash pages `olds`
    /// (each with whether one partial unit of it is read); its command reaches the controller
    /// at `cmd`, and `kind` says what follows the reads.
    pub(super) fn read_old_data(
        &mut self,
        kind: Kind,
        base: &Req,
        cmd: SimTime,
        olds: &[(Ppn, bool)],
    ) {
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
}
