//! The flash traffic of a demand-paged map (`ftl.map_cache`): translation-page reads a
//! request waits for (one, or a chain for the split FTL), and the write-backs of the pages
//! the map cache evicted or GC updated.

use super::{Arrival, Device, Kind, MapGate, MapNext, Req};
use crate::device::sched::NO_REQ;
use crate::engine::EventQueue;
use crate::error::Result;
use crate::units::{Ppn, SimTime};

impl Device {
    /// Queue the read of translation page `first`, then (if any) of `then`, then `reads`, for
    /// request `parent` (their command at the controller at `cmd`). With no reads, the
    /// parent's page is done once the translation reads are.
    pub(super) fn map_read_chain(
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
    pub(super) fn map_read(
        &mut self,
        tp: Ppn,
        parent: u32,
        next: MapNext,
        base: Req,
        cmd: SimTime,
    ) {
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
    pub(super) fn apply_gc_moves(&mut self) {
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
    pub(super) fn flush_map(
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
}
