//! What comes back from the back end: its timers, the pages it finished (a request's pages
//! counted down, write-buffer slots freed, flushes completed), idle planes given background
//! GC, a request slot's data at the controller, and the completions reported to the host.

use super::{Completed, Device, Kind, MapNext, Req};
use crate::device::sched::{Split, NO_REQ};
use crate::engine::{Event, EventQueue};
use crate::units::{Ppn, SimTime};
use crate::workload::Op;

impl Device {
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

    /// Complete the flushes whose pages are all programmed, at `now`.
    pub(super) fn finish_flushes(&mut self, now: SimTime) {
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
    pub(super) fn after_backend(&mut self, now: SimTime, q: &mut EventQueue) {
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
    pub(super) fn page_done(&mut self, slot: u32, done: SimTime, split: Split, q: &mut EventQueue) {
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
}
