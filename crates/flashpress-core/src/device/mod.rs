//! The SSD controller: turns block requests into FTL page operations, moves data over the
//! host link, holds the optional DRAM write buffer, and (in verify mode) checks that every
//! read returns the content last written to its address.

mod buffer;
pub mod ccsd;

use crate::config::SimConfig;
use crate::error::{Error, Result};
use crate::ftl::Ftl;
use crate::nand::Nand;
use crate::units::{Lpn, SimTime};
use crate::workload::{Op, Request};
use buffer::WriteBuffer;
use strength_reduce::StrengthReducedU64;

/// Counters owned by the controller.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct DeviceCounters {
    /// Page reads of never-written (or trimmed) addresses, answered without touching NAND.
    pub unmapped_page_reads: u64,
    /// Page reads done to merge a partial-page write with the page's old data.
    pub rmw_page_reads: u64,
    /// Host write pages that had to wait for a free write-buffer slot.
    pub buffer_full_waits: u64,
    /// Read pages checked against the last written content (verify mode).
    pub verified_page_reads: u64,
}

/// What verify mode remembers: the content id last written to each logical page (0 = none).
struct Shadow {
    expected: Vec<u64>,
}

/// The device: controller state, FTL and NAND array.
pub struct Device {
    /// NAND array (timing, counters, wear).
    pub nand: Nand,
    /// Flash translation layer.
    pub ftl: Ftl,
    page_size: u64,
    div_page: StrengthReducedU64,
    link_ns_per_kib: f64,
    overhead_ns: u64,
    link_to_device: SimTime,
    link_to_host: SimTime,
    buffer: Option<WriteBuffer>,
    shadow: Option<Shadow>,
    /// Counters since the last reset.
    pub counters: DeviceCounters,
}

impl Device {
    /// Build a fresh device for a validated config.
    pub fn new(cfg: &SimConfig) -> Device {
        let nand = Nand::new(&cfg.nand);
        let verify = cfg.check.verify;
        let ftl = Ftl::new(cfg, &nand.geo, verify);
        let lp = ftl.logical_pages() as usize;
        Device {
            page_size: cfg.nand.page_size as u64,
            div_page: StrengthReducedU64::new(cfg.nand.page_size as u64),
            link_ns_per_kib: 1024.0 * 1e3 / cfg.host.link_mb_per_s,
            overhead_ns: cfg.host.command_overhead_ns,
            link_to_device: SimTime::ZERO,
            link_to_host: SimTime::ZERO,
            buffer: (cfg.ftl.write_buffer_pages > 0)
                .then(|| WriteBuffer::new(cfg.ftl.write_buffer_pages as usize)),
            shadow: verify.then(|| Shadow {
                expected: vec![0; lp],
            }),
            counters: DeviceCounters::default(),
            nand,
            ftl,
        }
    }

    /// Logical capacity in bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.ftl.logical_pages() as u64 * self.page_size
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
        (bytes as f64 * self.link_ns_per_kib / 1024.0).round() as u64
    }

    /// Serve a request arriving at `now`; returns its completion time. `content` is the id of
    /// the request's first written page (page `i` holds `content + i`). The caller guarantees
    /// the byte range lies inside the logical capacity.
    #[inline]
    pub fn submit(&mut self, req: &Request, content: u64, now: SimTime) -> Result<SimTime> {
        self.ftl.background_gc(now, &mut self.nand);
        let cmd = now + self.overhead_ns;
        let first = req.offset / self.div_page;
        let last = (req.offset + req.len - 1) / self.div_page;
        match req.op {
            Op::Delete => Err(Error::Workload(format!(
                "file {} delete: file operations need a file system (`[stack]`)",
                req.file
            ))),
            Op::Read => {
                let mut ready = cmd;
                for lpn in first..=last {
                    ready = ready.max(self.read_page(Lpn(lpn as u32), cmd)?);
                }
                let start = ready.max(self.link_to_host);
                self.link_to_host = start + self.link_ns(req.len);
                Ok(self.link_to_host)
            }
            Op::Write => {
                let start = cmd.max(self.link_to_device);
                let arrived = start + self.link_ns(req.len);
                self.link_to_device = arrived;
                let mut done = arrived;
                let end = req.offset + req.len;
                for (i, lpn) in (first..=last).enumerate() {
                    let page_start = lpn * self.page_size;
                    let partial = req.offset > page_start || end < page_start + self.page_size;
                    let mut ready = arrived;
                    if partial {
                        if let Some(old) = self.ftl.lookup(Lpn(lpn as u32)) {
                            ready = ready.max(self.nand.read(old, cmd));
                            self.counters.rmw_page_reads += 1;
                        }
                    }
                    let c = content.wrapping_add(i as u64).max(1);
                    done = done.max(self.write_page(Lpn(lpn as u32), c, ready));
                }
                Ok(done)
            }
            Op::Trim => {
                let end = req.offset + req.len;
                // Only whole pages can be discarded; a partly covered page keeps its data.
                let first_whole = req.offset.div_ceil(self.page_size);
                let end_whole = end / self.page_size;
                for lpn in first_whole..end_whole {
                    self.ftl.trim(Lpn(lpn as u32), cmd);
                    if let Some(s) = self.shadow.as_mut() {
                        s.expected[lpn as usize] = 0;
                    }
                }
                Ok(cmd)
            }
        }
    }

    /// Write one page whose data is at the controller at `ready`; returns when the host may
    /// consider it written (buffered: in DRAM; unbuffered: programmed).
    #[inline]
    fn write_page(&mut self, lpn: Lpn, content: u64, ready: SimTime) -> SimTime {
        if let Some(s) = self.shadow.as_mut() {
            s.expected[lpn.0 as usize] = content;
        }
        match self.buffer.as_mut() {
            None => self.ftl.write(lpn, content, ready, &mut self.nand),
            Some(buf) => {
                let (slot_at, waited) = buf.acquire(ready);
                if waited {
                    self.counters.buffer_full_waits += 1;
                }
                let programmed = self.ftl.write(lpn, content, slot_at, &mut self.nand);
                buf.release_at(programmed);
                slot_at
            }
        }
    }

    #[inline]
    fn read_page(&mut self, lpn: Lpn, at: SimTime) -> Result<SimTime> {
        let found = self.ftl.lookup(lpn);
        if let Some(s) = self.shadow.as_ref() {
            let got = found.map_or(0, |p| self.ftl.content_at(p));
            let want = s.expected[lpn.0 as usize];
            if got != want {
                return Err(Error::Verify(format!(
                    "logical page {} read content id {got:#x}, but {want:#x} was last written there",
                    lpn.0
                )));
            }
            self.counters.verified_page_reads += 1;
        }
        match found {
            Some(ppn) => Ok(self.nand.read(ppn, at)),
            None => {
                self.counters.unmapped_page_reads += 1;
                Ok(at)
            }
        }
    }

    /// Write pages without timing (preconditioning); NAND reservations are reset afterwards.
    pub fn write_untimed(&mut self, lpn: Lpn, content: u64) {
        self.write_page(lpn, content, SimTime::ZERO);
    }

    /// Change every remembered content id, so the next verified read fails (tests only).
    #[doc(hidden)]
    pub fn corrupt_shadow_for_test(&mut self) {
        if let Some(s) = self.shadow.as_mut() {
            s.expected.iter_mut().for_each(|c| *c ^= 1);
        }
    }

    /// Forget reservations and counters after preconditioning; the FTL state and wear stay.
    pub fn reset_after_precondition(&mut self) {
        self.nand.reset_time_and_counters();
        self.ftl.counters = Default::default();
        self.counters = DeviceCounters::default();
        self.link_to_device = SimTime::ZERO;
        self.link_to_host = SimTime::ZERO;
        if let Some(b) = self.buffer.as_mut() {
            b.reset();
        }
    }
}
