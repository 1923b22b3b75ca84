//! Page commands reaching the controller: reads and write data leave their arrival FIFOs in
//! time order for the back end, a write page's program going through the write buffer, the
//! packer or the compression buffer when there is one.

use super::{Device, DUPLICATE};
use crate::device::buffer::Waiter;
use crate::device::sched::{Split, NO_REQ};
use crate::engine::EventQueue;
use crate::units::{Ppn, SimTime};

impl Device {
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

    /// The data of page `ppn` of request `req` is at the controller at `now`: its program is
    /// queued (through the write buffer, the packer or the compression buffer when there is one).
    #[inline(always)]
    pub(super) fn arrive_program(&mut self, req: u32, ppn: Ppn, now: SimTime, q: &mut EventQueue) {
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
}
