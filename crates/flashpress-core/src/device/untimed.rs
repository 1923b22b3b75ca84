//! Untimed writes (preconditioning, a fio job's layout): the FTL maps the pages and NAND
//! counts their programs at once, with no back end; then the device forgets timing and
//! counters and keeps the FTL's state and wear.

use super::{pack, Device, DeviceCounters, Untimed};
use crate::content::ContentModel;
use crate::error::Result;
use crate::units::{Lpn, Ppn, SimTime};

impl Device {
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
