//! The NAND array: geometry, per-page-type timing, energy per operation, erase counts per
//! block.
//!
//! Each plane is an independent execution unit (idealised multi-plane operation) and each
//! channel a bus shared by its chips. One user times operations on it: the controller back
//! end (`device::sched`, for the plain SSD and the CCSD alike) queues commands per plane and
//! arbitrates channels transfer by transfer; it asks this module for durations
//! ([`Nand::read_ns`], ...) and books each operation's counts and energy with the `count_*`
//! methods. Untimed work (preconditioning, a storage stack's fill) books through the same
//! methods, so counts and energy mean the same everywhere.

mod geometry;

pub use geometry::Geometry;

use crate::config::NandConfig;
use crate::error::Result;
use crate::units::{bytes_ns, duration_ns, ns_per_byte, BlockId, Ppn, MAX_OP_NS};

/// Operation counts and energy, owned by the NAND array.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NandCounters {
    /// Page reads from the array (count), partial reads included.
    pub reads: u64,
    /// Of `reads`, partial reads (one unit of a page sensed and moved; `nand.partial_read`).
    pub partial_reads: u64,
    /// Page programs (count).
    pub programs: u64,
    /// Block erases (count).
    pub erases: u64,
    /// Copyback migrations (read + program inside a plane, counted in `reads`/`programs` too).
    pub copybacks: u64,
    /// Bytes moved over channel buses.
    pub transfer_bytes: u64,
    /// Energy of array reads (pJ).
    pub read_energy_pj: u64,
    /// Energy of programs (pJ).
    pub program_energy_pj: u64,
    /// Energy of erases (pJ).
    pub erase_energy_pj: u64,
    /// Energy of channel transfers (pJ).
    pub transfer_energy_pj: u64,
    /// Plane time spent in array operations (sense, program, erase, resume overhead), summed
    /// over planes (ns).
    pub array_busy_ns: u64,
    /// Of `array_busy_ns`, the time spent on garbage collection's operations (ns).
    pub gc_busy_ns: u64,
}

/// Counts, energy and array time of a run of copybacks, summed once (a GC job that nothing can
/// interrupt is booked in one go).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CopybackBatch {
    /// Copybacks.
    pub n: u64,
    /// Their read energy (pJ).
    pub read_pj: u64,
    /// Their program energy (pJ).
    pub program_pj: u64,
    /// Their array time (ns).
    pub ns: u64,
}

/// Timing in integer nanoseconds and energy in integer picojoules, resolved from the config.
#[derive(Debug, Clone)]
struct Timing {
    read_ns: [u64; 4],
    program_ns: [u64; 4],
    erase_ns: u64,
    /// Channel time to move one page.
    page_xfer_ns: u64,
    read_pj: [u64; 4],
    program_pj: [u64; 4],
    erase_pj: u64,
    page_xfer_pj: u64,
    vcc_v: f64,
    program_ma: f64,
    erase_ma: f64,
    /// Page type of page `i` of a block, precomputed (LSB, CSB, MSB interleaved).
    type_of_page: Vec<u8>,
    /// Partial reads (zero when the array has none).
    partial: PartialTiming,
}

/// Durations and energies of a partial read, per page type.
#[derive(Debug, Clone, Copy, Default)]
struct PartialTiming {
    unit_bytes: u32,
    read_ns: [u64; 4],
    read_pj: [u64; 4],
    xfer_ns: u64,
    xfer_pj: u64,
}

/// V * mA * ns = 1e-12 J = pJ.
fn pj(vcc_v: f64, ma: f64, t_ns: u64) -> u64 {
    (vcc_v * ma * t_ns as f64).round() as u64
}

impl Timing {
    fn new(c: &NandConfig) -> Result<Timing> {
        let mut read_ns = [0; 4];
        let mut program_ns = [0; 4];
        let ns = |key: &str, us: f64| duration_ns(key, us, 1e3, MAX_OP_NS);
        for i in 0..c.cell.page_types() {
            read_ns[i] = ns("nand.read_latency_us", c.read_latency_us[i])?;
            program_ns[i] = ns("nand.program_latency_us", c.program_latency_us[i])?;
        }
        let erase_ns = ns("nand.erase_latency_us", c.erase_latency_us)?;
        let per_byte = ns_per_byte("nand.channel_mb_per_s", c.channel_mb_per_s)?;
        let page_xfer_ns = bytes_ns(c.page_size as u64, per_byte);
        let p = &c.power;
        let partial =
            c.partial_read
                .as_ref()
                .filter(|p| p.enabled)
                .map_or(PartialTiming::default(), |pr| {
                    let read_ns = read_ns.map(|t| (t as f64 * pr.latency_factor).round() as u64);
                    let xfer_ns = bytes_ns(pr.unit_bytes as u64, per_byte);
                    PartialTiming {
                        unit_bytes: pr.unit_bytes,
                        read_ns,
                        read_pj: read_ns.map(|t| pj(p.vcc_v, p.read_ma * pr.current_factor, t)),
                        xfer_ns,
                        xfer_pj: pj(p.vcc_v, p.transfer_ma, xfer_ns),
                    }
                });
        Ok(Timing {
            partial,
            read_ns,
            program_ns,
            erase_ns,
            page_xfer_ns,
            read_pj: read_ns.map(|t| pj(p.vcc_v, p.read_ma, t)),
            program_pj: program_ns.map(|t| pj(p.vcc_v, p.program_ma, t)),
            erase_pj: pj(p.vcc_v, p.erase_ma, erase_ns),
            page_xfer_pj: pj(p.vcc_v, p.transfer_ma, page_xfer_ns),
            vcc_v: p.vcc_v,
            program_ma: p.program_ma,
            erase_ma: p.erase_ma,
            type_of_page: (0..c.pages_per_block)
                .map(|i| (i as usize % c.cell.page_types()) as u8)
                .collect(),
        })
    }
}

/// The NAND array.
#[derive(Debug, Clone)]
pub struct Nand {
    /// Shape of the array.
    pub geo: Geometry,
    t: Timing,
    erase_counts: Vec<u32>,
    /// Operation counts and energy since the last reset.
    pub counters: NandCounters,
}

impl Nand {
    /// Build an idle, fresh array; an error names a duration or rate that does not fit.
    pub fn new(c: &NandConfig) -> Result<Nand> {
        let geo = Geometry::new(c);
        Ok(Nand {
            t: Timing::new(c)?,
            erase_counts: vec![0; geo.blocks as usize],
            counters: NandCounters::default(),
            geo,
        })
    }

    #[inline]
    fn page_type(&self, ppn: Ppn) -> usize {
        self.t.type_of_page[self.geo.page_in_block(ppn) as usize] as usize
    }

    /// Array read time of a page (ns).
    #[inline]
    pub fn read_ns(&self, ppn: Ppn) -> u64 {
        self.t.read_ns[self.page_type(ppn)]
    }

    /// Program time of a page (ns).
    #[inline]
    pub fn program_ns(&self, ppn: Ppn) -> u64 {
        self.t.program_ns[self.page_type(ppn)]
    }

    /// Block erase time (ns).
    #[inline]
    pub fn erase_ns(&self) -> u64 {
        self.t.erase_ns
    }

    /// Channel time to move one page (ns).
    #[inline]
    pub fn xfer_ns(&self) -> u64 {
        self.t.page_xfer_ns
    }

    /// Bytes of a partial-read unit, or `None` when the array cannot read part of a page.
    #[inline]
    pub fn partial_unit(&self) -> Option<u32> {
        (self.t.partial.unit_bytes > 0).then_some(self.t.partial.unit_bytes)
    }

    /// Array time of a read of `ppn`: a partial read (one unit) or a full one (ns).
    #[inline]
    pub fn read_ns_as(&self, ppn: Ppn, partial: bool) -> u64 {
        if partial {
            self.t.partial.read_ns[self.page_type(ppn)]
        } else {
            self.read_ns(ppn)
        }
    }

    /// Channel time to move what a read sensed: one unit or one page (ns).
    #[inline]
    pub fn read_xfer_ns(&self, partial: bool) -> u64 {
        if partial {
            self.t.partial.xfer_ns
        } else {
            self.t.page_xfer_ns
        }
    }

    /// Book one page transfer on a channel.
    #[inline]
    pub fn count_transfer(&mut self) {
        self.counters.transfer_bytes += self.geo.page_size as u64;
        self.counters.transfer_energy_pj = self
            .counters
            .transfer_energy_pj
            .saturating_add(self.t.page_xfer_pj);
    }

    /// Book the transfer of what a read sensed: one unit (partial) or one page.
    #[inline]
    pub fn count_read_transfer(&mut self, partial: bool) {
        if partial {
            self.counters.transfer_bytes += self.t.partial.unit_bytes as u64;
            self.counters.transfer_energy_pj = self
                .counters
                .transfer_energy_pj
                .saturating_add(self.t.partial.xfer_pj);
        } else {
            self.count_transfer();
        }
    }

    /// Book one array read of `ppn`, partial (one unit, `nand.partial_read`) or full.
    #[inline]
    pub fn count_read_as(&mut self, ppn: Ppn, gc: bool, partial: bool) {
        if !partial {
            return self.count_read(ppn, gc);
        }
        debug_assert!(
            self.t.partial.unit_bytes > 0,
            "a partial read on an array without them"
        );
        let ty = self.page_type(ppn);
        self.counters.reads += 1;
        self.counters.partial_reads += 1;
        self.counters.read_energy_pj = self
            .counters
            .read_energy_pj
            .saturating_add(self.t.partial.read_pj[ty]);
        self.busy(self.t.partial.read_ns[ty], gc);
    }

    /// Book one array read of `ppn` (sensing only; the transfer is booked on its own).
    #[inline]
    pub fn count_read(&mut self, ppn: Ppn, gc: bool) {
        let ty = self.page_type(ppn);
        self.counters.reads += 1;
        self.counters.read_energy_pj = self
            .counters
            .read_energy_pj
            .saturating_add(self.t.read_pj[ty]);
        self.busy(self.t.read_ns[ty], gc);
    }

    /// Book one program of `ppn` (array time only).
    #[inline]
    pub fn count_program(&mut self, ppn: Ppn, gc: bool) {
        self.count_program_ns(ppn, gc);
    }

    /// Book one program of `ppn` and return its array time (ns).
    #[inline]
    pub fn count_program_ns(&mut self, ppn: Ppn, gc: bool) -> u64 {
        let ty = self.page_type(ppn);
        let t = self.t.program_ns[ty];
        self.counters.programs += 1;
        self.counters.program_energy_pj = self
            .counters
            .program_energy_pj
            .saturating_add(self.t.program_pj[ty]);
        self.busy(t, gc);
        t
    }

    /// Book one copyback (an array read of `src` and a program of `dst`, no transfer) and
    /// return its array time (ns): `read_ns(src) + program_ns(dst)`, each page's type found
    /// once.
    #[inline]
    pub fn count_copyback(&mut self, src: Ppn, dst: Ppn, gc: bool) -> u64 {
        let (rt, pt) = (self.page_type(src), self.page_type(dst));
        let (read, program) = (self.t.read_ns[rt], self.t.program_ns[pt]);
        self.counters.reads += 1;
        self.counters.read_energy_pj = self
            .counters
            .read_energy_pj
            .saturating_add(self.t.read_pj[rt]);
        self.busy(read, gc);
        self.counters.programs += 1;
        self.counters.program_energy_pj = self
            .counters
            .program_energy_pj
            .saturating_add(self.t.program_pj[pt]);
        self.busy(program, gc);
        self.counters.copybacks += 1;
        read + program
    }

    /// Sum the copybacks `moves` (source, destination) would cost.
    pub fn copyback_batch(&self, moves: &[(Ppn, Ppn)]) -> CopybackBatch {
        let mut b = CopybackBatch::default();
        for &(src, dst) in moves {
            let (rt, pt) = (self.page_type(src), self.page_type(dst));
            b.read_pj += self.t.read_pj[rt];
            b.program_pj += self.t.program_pj[pt];
            b.ns += self.t.read_ns[rt] + self.t.program_ns[pt];
        }
        b.n = moves.len() as u64;
        b
    }

    /// Book a batch of copybacks (the same totals as booking each with
    /// [`Nand::count_copyback`]).
    pub fn count_copyback_batch(&mut self, b: &CopybackBatch, gc: bool) {
        let c = &mut self.counters;
        c.reads += b.n;
        c.programs += b.n;
        c.copybacks += b.n;
        c.read_energy_pj = c.read_energy_pj.saturating_add(b.read_pj);
        c.program_energy_pj = c.program_energy_pj.saturating_add(b.program_pj);
        self.busy(b.ns, gc);
    }

    /// Book one erase of `block` (wear included).
    #[inline]
    pub fn count_erase(&mut self, block: BlockId, gc: bool) {
        self.erase_counts[block.0 as usize] += 1;
        self.counters.erases += 1;
        self.counters.erase_energy_pj = self
            .counters
            .erase_energy_pj
            .saturating_add(self.t.erase_pj);
        self.busy(self.t.erase_ns, gc);
    }

    /// Book `ns` of extra array time at program (`erase = false`) or erase current: the
    /// overhead of resuming a suspended operation.
    #[inline]
    pub fn count_resume(&mut self, ns: u64, erase: bool, gc: bool) {
        let ma = if erase {
            self.t.erase_ma
        } else {
            self.t.program_ma
        };
        let pj = (self.t.vcc_v * ma * ns as f64).round() as u64;
        if erase {
            self.counters.erase_energy_pj = self.counters.erase_energy_pj.saturating_add(pj);
        } else {
            self.counters.program_energy_pj = self.counters.program_energy_pj.saturating_add(pj);
        }
        self.busy(ns, gc);
    }

    #[inline]
    fn busy(&mut self, ns: u64, gc: bool) {
        // Saturating: durations are bounded (`MAX_OP_NS`), but their sum over every plane
        // can pass u64 before the run reaches the horizon.
        self.counters.array_busy_ns = self.counters.array_busy_ns.saturating_add(ns);
        if gc {
            self.counters.gc_busy_ns = self.counters.gc_busy_ns.saturating_add(ns);
        }
    }

    /// Erase count of every block (wear).
    pub fn erase_counts(&self) -> &[u32] {
        &self.erase_counts
    }

    /// Forget counters (after preconditioning); erase counts are kept.
    pub fn reset_counters(&mut self) {
        self.counters = NandCounters::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SimConfig;

    fn nand() -> Nand {
        Nand::new(&SimConfig::preset("bench-mlc-2g").unwrap().nand).unwrap()
    }

    #[test]
    fn qlc_pages_take_the_latency_of_their_type() {
        let toml = "preset = \"tiny\"\n[nand]\ncell = \"qlc\"\n\
                    read_latency_us = [10.0, 20.0, 30.0, 40.0]\n\
                    program_latency_us = [1000.0, 2000.0, 3000.0, 4000.0]\n";
        let cfg = SimConfig::from_toml_str(toml, "t").unwrap();
        let n = Nand::new(&cfg.nand).unwrap();
        // Pages of a block cycle through the four types (LSB, CSB, MSB, TSB).
        for (page, us) in [
            (0, 1000),
            (1, 2000),
            (2, 3000),
            (3, 4000),
            (4, 1000),
            (7, 4000),
        ] {
            assert_eq!(n.program_ns(Ppn(page)), us * 1000, "page {page}");
        }
        assert_eq!(n.read_ns(Ppn(6)), 30_000);
    }

    #[test]
    fn energy_is_v_times_i_times_t() {
        let mut n = nand();
        n.count_erase(BlockId(0), true);
        assert_eq!(
            n.counters.erase_energy_pj,
            (3.3f64 * 25.0 * 3_800_000.0).round() as u64
        );
        assert_eq!(n.erase_counts()[0], 1);
    }
}
