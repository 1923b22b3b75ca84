//! Mapping units smaller than the NAND page (`ftl.mapping_unit` below `nand.page_size`):
//! the FTL packs several units into one page ([`crate::ftl::Ftl::take_closed`]), and the
//! controller programs a page once it is closed (full, or padded) and the data of every unit
//! mapped to it is in.
//!
//! With a write buffer (`ftl.write_buffer_pages`, in NAND pages) a page takes one buffer
//! slot when its first unit's data arrives; its units are acknowledged then (later units of
//! the page at once), and the slot frees when the page is programmed. A page that finds the
//! buffer full waits for a slot with its units, first come first served. Without a buffer a
//! unit's write completes when its page is programmed, and each write request pads the page
//! it leaves partly filled (no later write may be held back to fill it).

use super::{Device, Kind, Req};
use crate::device::buffer::Waiter;
use crate::device::sched::Split;
use crate::engine::EventQueue;
use crate::units::{Ppn, SimTime};
use std::collections::BTreeMap;

/// A NAND page the host's units are being packed into.
#[derive(Debug, Default)]
struct Fill {
    /// The page's number (`Ppn.0`).
    page: u64,
    /// Units the FTL mapped to it.
    mapped: u32,
    /// Of those, units whose data is at the controller.
    data_in: u32,
    /// The FTL closed it: no more units come.
    closed: bool,
    /// It holds a write-buffer slot.
    held: bool,
    /// It waits in the buffer's queue for a slot.
    queued: bool,
    /// Units acknowledged from the buffer.
    acked: u32,
    /// Units whose write waits: for a buffer slot, or (without a buffer) for the program.
    waiting: Vec<(u32, SimTime)>,
}

/// The controller's pages being packed.
#[derive(Default)]
pub(super) struct Packing {
    fills: Vec<Fill>,
    free: Vec<u32>,
    /// Page number -> its fill, until its program is queued.
    of_page: BTreeMap<u64, u32>,
    /// Pages the FTL closed (reused).
    closed: Vec<Ppn>,
}

impl Device {
    /// Units smaller than the page: unit write mapped to NAND page `page` (returned by the
    /// FTL just now); then the pages the FTL closed.
    pub(super) fn unit_mapped(&mut self, page: Ppn, now: SimTime, q: &mut EventQueue) {
        let p = self.packing.as_mut().expect("packing is on");
        let fi = match p.of_page.get(&page.0) {
            Some(&fi) => fi,
            None => {
                let f = Fill {
                    page: page.0,
                    ..Fill::default()
                };
                let fi = match p.free.pop() {
                    Some(i) => {
                        p.fills[i as usize] = f;
                        i
                    }
                    None => {
                        p.fills.push(f);
                        (p.fills.len() - 1) as u32
                    }
                };
                p.of_page.insert(page.0, fi);
                // One program per page: until it starts, GC leaves the page's block alone.
                self.sched.program_allocated(page);
                fi
            }
        };
        self.packing.as_mut().expect("on").fills[fi as usize].mapped += 1;
        self.pages_closed(now, q);
    }

    /// Take the pages the FTL closed (after a write, GC, a pad) and program those whose data
    /// is all in.
    pub(super) fn pages_closed(&mut self, now: SimTime, q: &mut EventQueue) {
        let Some(p) = self.packing.as_mut() else {
            return;
        };
        let mut closed = std::mem::take(&mut p.closed);
        self.ftl.take_closed(&mut closed);
        for &page in &closed {
            let p = self.packing.as_mut().expect("on");
            let fi = *p
                .of_page
                .get(&page.0)
                .expect("a closed host page has units mapped to it");
            p.fills[fi as usize].closed = true;
            self.try_program(fi, now, q);
        }
        closed.clear();
        self.packing.as_mut().expect("on").closed = closed;
    }

    /// A unit's data for request `req` is at the controller at `now`, for page `page`.
    pub(super) fn unit_in(&mut self, req: u32, page: Ppn, now: SimTime, q: &mut EventQueue) {
        let p = self.packing.as_mut().expect("packing is on");
        let fi = *p
            .of_page
            .get(&page.0)
            .expect("a unit's page is filling until its data is in");
        let f = &mut p.fills[fi as usize];
        f.data_in += 1;
        match self.buffer.as_mut() {
            None => f.waiting.push((req, now)),
            Some(_) if f.held => {
                f.acked += 1;
                self.buffer_acked += 1;
                self.page_done(req, now, Split::default(), q);
            }
            Some(_) if f.queued => {
                f.waiting.push((req, now));
                self.counters.buffer_full_waits += 1;
            }
            Some(buf) => {
                if buf.arrive(Waiter {
                    req: fi,
                    ppn: page,
                    since: now,
                }) {
                    f.held = true;
                    f.acked += 1;
                    self.buffer_acked += 1;
                    self.page_done(req, now, Split::default(), q);
                } else {
                    f.queued = true;
                    f.waiting.push((req, now));
                    self.counters.buffer_full_waits += 1;
                }
            }
        }
        self.try_program(fi, now, q);
    }

    /// Queue the program of fill `fi`'s page if it is closed, its data is in and (with a
    /// buffer) it holds a slot.
    fn try_program(&mut self, fi: u32, now: SimTime, q: &mut EventQueue) {
        let p = self.packing.as_mut().expect("packing is on");
        let f = &p.fills[fi as usize];
        if !f.closed || f.data_in < f.mapped || (self.buffer.is_some() && !f.held) {
            return;
        }
        let page = Ppn(f.page);
        p.of_page.remove(&page.0);
        let base = Req {
            pages_left: 1,
            done: now,
            ..Req::new(
                Kind::PageProgram { fill: fi },
                0,
                crate::workload::Op::Write,
                0,
                now,
            )
        };
        let slot = self.alloc(base);
        let buffered = self.buffer.is_some();
        self.sched
            .enqueue_program(page, slot, buffered, now, &mut self.nand, q);
    }

    /// Fill `fi`'s page was programmed at `done`: its waiting writes complete (no buffer), or
    /// its buffer slot goes to the next page waiting for one.
    pub(super) fn page_programmed(
        &mut self,
        fi: u32,
        done: SimTime,
        split: Split,
        q: &mut EventQueue,
    ) {
        let p = self.packing.as_mut().expect("packing is on");
        let f = std::mem::take(&mut p.fills[fi as usize]);
        p.free.push(fi);
        if self.buffer.is_none() {
            for &(req, _) in &f.waiting {
                self.page_done(req, done, split, q);
            }
            return;
        }
        self.buffer_programmed += f.acked as u64;
        let next = self.buffer.as_mut().expect("buffered").release();
        if let Some(w) = next {
            let p = self.packing.as_mut().expect("on");
            let g = &mut p.fills[w.req as usize];
            g.held = true;
            g.queued = false;
            let waiting = std::mem::take(&mut g.waiting);
            g.acked += waiting.len() as u32;
            self.buffer_acked += waiting.len() as u64;
            for &(req, since) in &waiting {
                let split = Split {
                    queue_ns: done.0 - since.0,
                    ..Split::default()
                };
                self.page_done(req, done, split, q);
            }
            self.try_program(w.req, done, q);
        }
        if !self.flushes.is_empty() {
            self.finish_flushes(done);
        }
    }
}
