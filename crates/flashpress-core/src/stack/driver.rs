//! The stack a run drives when `[stack]` is present: the file system, the CCSD, host cores,
//! one placement policy per stream, the SMART reader and the space policy. Time-based work
//! (the thermal model, the once-a-second SMART read of TCS, the OSA / COCO OP decisions)
//! happens in [`Stack::on_time`], called before every request and on a periodic tick; an idle
//! stretch's ticks are skipped where that changes nothing ([`Stack::idle_tick`]).

use super::bio::{Disk, SpaceReport};
use super::cache::{Backend, CacheCounters, PageCache};
use super::cpu::{Cpu, CpuCounters};
use super::fs::{Fs, FsCounters, FsCtx, FsDone, Ids};
use super::policy::Policy;
use crate::config::{PolicyKind, SimConfig, SpacePolicy, StackConfig};
use crate::content::ContentModel;
use crate::device::ccsd::{Ccsd, CcsdCounters};
use crate::device::zns::ZonedDisk;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::stats::{minus, Column};
use crate::units::{duration_ns, SimTime, MAX_PERIOD_NS};
use crate::workload::{Op, Request, NO_FILE};
use serde::Serialize;

/// Request size of the untimed layout of block-level streams' files.
const LAYOUT_CHUNK: u64 = 1 << 20;
/// Content ids of layout writes (stream in bits 36.., block below).
const LAYOUT_CONTENT_BASE: u64 = 3 << 61;

/// Where the space policy is.
#[derive(Debug, Clone, Copy, Default)]
struct SpaceState {
    next: SimTime,
    last_cleanings: u64,
    last_moved: u64,
    max_extra: u64,
}

/// Temperature change (°C) between two samples below which the stack counts as settled.
pub const SETTLED_C: f64 = 1e-6;

/// Timeline values at each sample, in the order of the recorder's samples.
#[derive(Debug, Default)]
struct Series {
    temperature_c: Vec<f64>,
    throttled: Vec<f64>,
    extra_rs_fraction: Vec<f64>,
    host_share: Vec<f64>,
    device_w: Vec<f64>,
    last_host: u64,
    last_all: u64,
    last_heat: (SimTime, f64),
}

/// The device under the stack: the CCSD, or a zoned SSD (`[zns]`) on which the file system
/// runs in F2FS's zoned mode.
pub enum StackDisk {
    /// The compression-capable SSD of the Waltz and COCO seeds.
    Ccsd(Box<Ccsd>),
    /// A zoned SSD: no device GC, the file system cleans and resets zones.
    Zoned(Box<ZonedDisk>),
}

impl StackDisk {
    fn disk(&mut self) -> &mut dyn Disk {
        match self {
            StackDisk::Ccsd(c) => c.as_mut(),
            StackDisk::Zoned(z) => z.as_mut(),
        }
    }

    fn disk_ref(&self) -> &dyn Disk {
        match self {
            StackDisk::Ccsd(c) => c.as_ref(),
            StackDisk::Zoned(z) => z.as_ref(),
        }
    }

    fn idle_at(&self, t: SimTime) -> bool {
        match self {
            StackDisk::Ccsd(c) => c.idle_at(t),
            StackDisk::Zoned(z) => z.idle_at(t),
        }
    }

    fn check_invariants(&self) -> Result<()> {
        match self {
            StackDisk::Ccsd(c) => c.check_invariants(),
            StackDisk::Zoned(z) => z.check_invariants(),
        }
    }

    fn reset_after_fill(&mut self) {
        match self {
            StackDisk::Ccsd(c) => c.reset_after_fill(),
            StackDisk::Zoned(z) => z.reset_after_fill(),
        }
    }

    /// The CCSD's counters (zero on a zoned disk, which has neither engine nor thermal model).
    fn ccsd_counters(&self) -> CcsdCounters {
        match self {
            StackDisk::Ccsd(c) => c.counters(),
            StackDisk::Zoned(_) => CcsdCounters::default(),
        }
    }

    /// NAND energy so far (pJ) of a zoned disk.
    fn zoned_nand_pj(&self) -> u64 {
        match self {
            StackDisk::Ccsd(_) => 0,
            StackDisk::Zoned(z) => {
                let c = &z.device().nand.counters;
                c.read_energy_pj + c.program_energy_pj + c.erase_energy_pj + c.transfer_energy_pj
            }
        }
    }
}

/// The storage stack.
pub struct Stack {
    cfg: StackConfig,
    fs: Fs,
    ccsd: StackDisk,
    cpu: Cpu,
    policies: Vec<Policy>,
    smart_interval_ns: u64,
    next_smart: SimTime,
    tick_ns: u64,
    /// Period of the space policy (`u64::MAX` for `fixed`, which has none).
    space_step_ns: u64,
    space: SpaceState,
    fs_base: FsCounters,
    series: Series,
    /// Counters when the measured window started (`stats.warmup_ms`; see `stats::window`).
    window: Option<WindowStart>,
    /// The host page cache (`stack.cache`), when on.
    cache: Option<PageCache>,
    cache_base: CacheCounters,
}

/// The file system and what it acts on, as the page cache's [`Backend`].
struct FsBackend<'a> {
    fs: &'a mut Fs,
    ccsd: &'a mut StackDisk,
    cpu: &'a mut Cpu,
    policies: &'a [Policy],
    content: Option<&'a mut ContentModel>,
}

impl Backend for FsBackend<'_> {
    fn submit(
        &mut self,
        stream: usize,
        req: &Request,
        ids: Option<&[u64]>,
        now: SimTime,
    ) -> Result<FsDone> {
        let mut ctx = FsCtx {
            disk: self.ccsd.disk(),
            cpu: &mut *self.cpu,
            content: self.content.as_deref_mut(),
            policy: &self.policies[stream],
        };
        self.fs
            .submit_blocks(&mut ctx, stream, req, ids.map(Ids::List), now)
    }

    fn file_size(&self, key: u64) -> Option<u64> {
        self.fs.file_size(key)
    }

    fn compressed_cluster(&self, key: u64, page: u64) -> Option<(u64, u64)> {
        self.fs.compressed_cluster(key, page)
    }

    fn on_core(&mut self, at: SimTime, ns: u64) -> SimTime {
        self.cpu.syscall(at, ns)
    }
}

/// The device's and the host cores' counters when the warm-up ended.
#[derive(Debug, Clone, Copy)]
struct WindowStart {
    at: SimTime,
    ccsd: CcsdCounters,
    zoned_nand_pj: u64,
    cpu: CpuCounters,
}

impl Stack {
    /// Build the stack for streams named `streams`, lay out each block-level stream's file
    /// (`layouts[i]` bytes, as fio lays out a job's file before it runs) and fill the file
    /// system if asked; both untimed.
    pub fn new(
        cfg: &SimConfig,
        st: &StackConfig,
        streams: &[String],
        layouts: &[u64],
        mut content: Option<&mut ContentModel>,
        stop: &mut Interrupt<'_>,
    ) -> Result<Stack> {
        let smart_interval_ns = ms_to_ns("stack.tcs.smart_interval_ms", st.tcs.smart_interval_ms)?;
        let tick_ns = ms_to_ns("stack.ccsd.thermal.step_ms", st.ccsd.thermal.step_ms)?;
        let space_step_ns = match st.space {
            SpacePolicy::Fixed => u64::MAX,
            SpacePolicy::Osa { interval_ms, .. } | SpacePolicy::CocoOp { interval_ms, .. } => {
                ms_to_ns("stack.space.interval_ms", interval_ms)?
            }
        };
        let policies: Vec<Policy> = streams
            .iter()
            .map(|n| Policy::new(st.policy_of(n), st))
            .collect();
        let host_managed = policies.iter().any(Policy::host_managed_thermal);
        let mut ccsd = if cfg.zns.is_some() {
            StackDisk::Zoned(Box::new(ZonedDisk::new(cfg, content.as_deref_mut())?))
        } else {
            let mut ccsd = Ccsd::new(cfg, st, content.as_deref_mut(), !host_managed)?;
            ccsd.begin_untimed_fill();
            let engine =
                st.ccsd.engine && policies.iter().any(|p| p.kind().uses_device_compression());
            ccsd.set_engine_enabled(engine);
            StackDisk::Ccsd(Box::new(ccsd))
        };
        let mut fs = Fs::new(
            st,
            ccsd.disk_ref().logical_blocks(),
            super::max_extra_rs_blocks(st),
            content.as_deref_mut(),
        )?;
        if let Some(zone_blocks) = ccsd.disk_ref().zone_blocks() {
            fs = fs.on_zones(st, zone_blocks)?;
        }
        let mut cpu = Cpu::new(st.cpu.cores, st.cpu.compress_threads);
        let mut untimed = false;
        for (i, &bytes) in layouts.iter().enumerate() {
            let mut ctx = FsCtx {
                disk: ccsd.disk(),
                cpu: &mut cpu,
                content: content.as_deref_mut(),
                policy: &policies[i],
            };
            let mut off = 0;
            while off < bytes {
                let len = LAYOUT_CHUNK.min(bytes - off);
                let req = Request {
                    time: SimTime::ZERO,
                    op: Op::Write,
                    offset: off,
                    len,
                    content: LAYOUT_CONTENT_BASE + ((i as u64) << 36) + off / 4096,
                    file: NO_FILE,
                    attrs: Default::default(),
                    placement: None,
                };
                let done = fs.submit(&mut ctx, i, &req, SimTime::ZERO)?;
                if done.failed && ctx.disk.smart().shutdown {
                    return Err(Error::Workload(format!(
                        "laying out the file of stream `{}` failed at byte {off}: the device \
                         shut down at its thermal emergency (stack.ccsd.emergency_c = {} °C) \
                         before the run began; check stack.ccsd.thermal (ambient_c {}, \
                         neighbour_c {})",
                        streams[i],
                        st.ccsd.emergency_c,
                        st.ccsd.thermal.ambient_c,
                        st.ccsd.thermal.neighbour_c
                    )));
                }
                if done.failed {
                    return Err(Error::Workload(format!(
                        "laying out the file of stream `{}` ({bytes} bytes) failed at byte {off}: \
                         the file system is full (partition {} bytes, rs_ratio {})",
                        streams[i], st.fs.partition_bytes, st.fs.rs_ratio
                    )));
                }
                off += len;
                stop.poll_by((len / 4096) as u32)?;
            }
            untimed |= bytes > 0;
        }
        if st.fs.fill_fraction > 0.0 {
            let mut ctx = FsCtx {
                disk: ccsd.disk(),
                cpu: &mut cpu,
                content,
                policy: &policies[0],
            };
            fs.fill(&mut ctx, st.fs.fill_fraction, stop)?;
            untimed = true;
        }
        // Timed from here on (and, after a fill, everything it booked forgotten).
        ccsd.reset_after_fill();
        if untimed {
            cpu = Cpu::new(st.cpu.cores, st.cpu.compress_threads);
        }
        let fs_base = fs.counters();
        Ok(Stack {
            smart_interval_ns,
            next_smart: SimTime::ZERO,
            tick_ns,
            space_step_ns,
            space: SpaceState::default(),
            fs_base,
            series: Series::default(),
            window: None,
            cache: if st.cache.on() {
                Some(PageCache::new(&st.cache)?)
            } else {
                None
            },
            cache_base: CacheCounters::default(),
            cfg: st.clone(),
            fs,
            ccsd,
            cpu,
            policies,
        })
    }

    /// Period of [`Stack::tick`] (ns).
    pub fn tick_ns(&self) -> u64 {
        self.tick_ns
    }

    /// Logical bytes the file system offers a stream's own file (fio on a file system).
    pub fn user_bytes(&self) -> u64 {
        (self.fs.segments_total() - self.fs.rs_segments() - self.fs.extra_rs_segments())
            * self.cfg.fs.segment_blocks as u64
            * 4096
    }

    /// Serve request `req` of stream `stream` at `now`.
    pub fn submit(
        &mut self,
        stream: usize,
        req: &Request,
        now: SimTime,
        content: Option<&mut ContentModel>,
    ) -> Result<FsDone> {
        self.on_time(now);
        if let Some(cache) = &mut self.cache {
            let mut be = FsBackend {
                fs: &mut self.fs,
                ccsd: &mut self.ccsd,
                cpu: &mut self.cpu,
                policies: &self.policies,
                content,
            };
            cache.on_time(&mut be, now)?;
            return cache.submit(&mut be, Fs::key_of(stream, req.file), stream, req, now);
        }
        let mut ctx = FsCtx {
            disk: self.ccsd.disk(),
            cpu: &mut self.cpu,
            content,
            policy: &self.policies[stream],
        };
        self.fs.submit(&mut ctx, stream, req, now)
    }

    /// The page cache's counters since the start (`None` when the cache is off).
    pub fn cache_counters(&self) -> Option<CacheCounters> {
        self.cache.as_ref().map(PageCache::counters)
    }

    /// Periodic tick: advance time-based state to `now`, run the file system's background
    /// work (idle-time cleaning, periodic checkpoints).
    pub fn tick(&mut self, now: SimTime, mut content: Option<&mut ContentModel>) -> Result<()> {
        self.on_time(now);
        if let Some(cache) = &mut self.cache {
            let mut be = FsBackend {
                fs: &mut self.fs,
                ccsd: &mut self.ccsd,
                cpu: &mut self.cpu,
                policies: &self.policies,
                content: content.as_deref_mut(),
            };
            cache.on_time(&mut be, now)?;
        }
        let mut ctx = FsCtx {
            disk: self.ccsd.disk(),
            cpu: &mut self.cpu,
            content,
            policy: &self.policies[0],
        };
        self.fs.on_tick(&mut ctx, now)
    }

    /// Advance the thermal model, read SMART when due, run the space policy when due.
    ///
    /// Both take time proportional to the decisions that change something, not to the
    /// periods that passed: SMART reads due in one call all see the temperature at `now`
    /// (the policies keep only the last), so they are one read; and once a space-policy step
    /// (after the first) changes nothing, the rest would repeat it (no cleaning happens
    /// between them), so they are skipped. A tiny interval or a long gap between calls
    /// therefore cannot loop for long.
    pub fn on_time(&mut self, now: SimTime) {
        self.ccsd.disk().advance(now);
        if self.next_smart <= now {
            let t = self.ccsd.disk_ref().smart().temperature_c;
            for p in &mut self.policies {
                p.on_smart(t);
            }
            // The first read after `now`: next + k * interval with k = due reads.
            let due = (now.0 - self.next_smart.0) / self.smart_interval_ns + 1;
            self.next_smart = self.next_smart + due.saturating_mul(self.smart_interval_ns);
        }
        if matches!(self.cfg.space, SpacePolicy::Fixed) {
            return;
        }
        let step = self.space_step_ns;
        if self.space.next == SimTime::ZERO {
            self.space.next = SimTime(step);
        }
        let mut first = true;
        while self.space.next <= now {
            let changed = self.space_step(step);
            if !changed && !first {
                let due = (now.0 - self.space.next.0) / step + 1;
                self.space.next = self.space.next + due.saturating_mul(step);
                break;
            }
            first = false;
            self.space.next = self.space.next + step;
        }
    }

    /// One decision of the space policy over the last `period_ns`; whether it changed the
    /// reserved space.
    fn space_step(&mut self, period_ns: u64) -> bool {
        let c = self.fs.counters();
        let secs = period_ns as f64 * 1e-9;
        let f_sc = (c.cleaning_invocations - self.space.last_cleanings) as f64 / secs;
        let f_c = (c.cleaning_blocks_moved - self.space.last_moved) as f64 / secs;
        self.space.last_cleanings = c.cleaning_invocations;
        self.space.last_moved = c.cleaning_blocks_moved;
        let cur = self.fs.extra_rs_segments();
        let target = self.space_target(f_sc, f_c);
        if target != cur {
            let got = self.fs.set_extra_rs_segments(target);
            self.space.max_extra = self.space.max_extra.max(got);
        }
        self.fs.extra_rs_segments() != cur
    }

    /// The extra reserved space (segments) the space policy decides on, given the cleaning
    /// rates of the last period (per second).
    fn space_target(&self, f_sc: f64, f_c: f64) -> u64 {
        let seg_bytes = self.cfg.fs.segment_blocks as u64 * 4096;
        let partition_segments = self.cfg.fs.partition_bytes / seg_bytes;
        let saved_segments = self.ccsd.disk_ref().space().saved_bytes() / seg_bytes;
        let cur = self.fs.extra_rs_segments();
        match self.cfg.space {
            SpacePolicy::Fixed => cur,
            // Waltz §5.2: expand by T_s when cleaning or copying is frequent and the extra
            // RS fits under RS_max and under the saved space; shrink when both are rare or
            // the saved space no longer covers another step.
            SpacePolicy::Osa {
                ft_sc_per_s,
                ft_c_per_s,
                ts,
                rs_max,
                ..
            } => {
                let ts = ((ts * partition_segments as f64).round() as u64).max(1);
                let max = (rs_max * partition_segments as f64).floor() as u64;
                if (f_sc > ft_sc_per_s || f_c > ft_c_per_s)
                    && cur + ts < max
                    && cur + ts < saved_segments
                {
                    cur + ts
                } else if (f_sc < ft_sc_per_s / 2.0 && f_c < ft_c_per_s / 2.0)
                    || cur + ts > saved_segments
                {
                    cur.saturating_sub(ts)
                } else {
                    cur
                }
            }
            // COCO: grow the OP in steps while the space saved by compression covers it, up
            // to the knee of its OP study; give it back when the saved space shrinks.
            SpacePolicy::CocoOp { step, max, .. } => {
                let step = ((step * partition_segments as f64).round() as u64).max(1);
                let max = (max * partition_segments as f64).floor() as u64;
                if cur + step <= max.min(saved_segments) {
                    cur + step
                } else if cur > saved_segments {
                    cur.saturating_sub(step)
                } else {
                    cur
                }
            }
        }
    }

    /// Whether a space-policy step now would change nothing: no cleaning since the last
    /// step, and the policy keeps the reserved space it has at zero cleaning rates.
    fn space_settled(&self) -> bool {
        if matches!(self.cfg.space, SpacePolicy::Fixed) {
            return true;
        }
        let c = self.fs.counters();
        self.space.next > SimTime::ZERO
            && c.cleaning_invocations == self.space.last_cleanings
            && c.cleaning_blocks_moved == self.space.last_moved
            && self.space_target(0.0, 0.0) == self.fs.extra_rs_segments()
    }

    /// After [`Stack::tick`] at `t`, with the next event other than stack ticks at `due`: the
    /// latest tick time before `due` that the ticks in between can be skipped to, if any.
    ///
    /// Exact, not approximate: one tick there leaves the stack as the skipped ticks would.
    /// That holds while nothing can change but the temperature: the device is idle from `t`
    /// ([`Ccsd::idle_at`]: the thermal model then integrates the stretch in one call, by its
    /// closed form, to the same bytes), no space-policy step would change the reserved space,
    /// and the stretch ends before the file system's next background work and the page
    /// cache's next flush. SMART reads the policies take in the stretch keep only the last
    /// temperature, so the stretch ends at the tick that takes its last read (the single
    /// read there sees the same temperature).
    pub fn idle_tick(&self, t: SimTime, due: SimTime) -> Option<SimTime> {
        if !self.ccsd.idle_at(t) || !self.space_settled() {
            return None;
        }
        let mut bound = due;
        if let Some(b) = self.fs.next_background() {
            bound = bound.min(b);
        }
        if let Some(c) = &self.cache {
            bound = bound.min(c.next_flush());
        }
        let tick = self.tick_ns;
        // The last tick strictly before `bound`.
        let steps = bound.0.checked_sub(t.0 + 1)? / tick;
        let mut end = t.0 + steps * tick;
        if self.next_smart.0 <= end {
            let iv = self.smart_interval_ns;
            let last_read = self.next_smart.0 + (end - self.next_smart.0) / iv * iv;
            end = t.0 + (last_read - t.0).div_ceil(tick) * tick;
        }
        (end >= t.0 + 2 * tick).then_some(SimTime(end))
    }

    /// Record the timeline values of the interval that ends now.
    pub fn sample(&mut self) {
        let smart = self.ccsd.disk_ref().smart();
        let extra = self.fs.extra_rs_segments() as f64 / self.partition_segments() as f64;
        let s = &mut self.series;
        s.temperature_c.push(smart.temperature_c);
        s.throttled.push(smart.throttled as u8 as f64);
        s.extra_rs_fraction.push(extra);
        let c = self.fs.counters();
        let host = c.compress_blocks_host + c.decompress_blocks_host;
        let all = host + c.compress_blocks_device + c.decompress_blocks_device;
        let (dh, da) = (host - s.last_host, all - s.last_all);
        s.host_share.push(if da == 0 {
            f64::NAN
        } else {
            dh as f64 / da as f64
        });
        s.last_host = host;
        s.last_all = all;
        let (at, j) = match &self.ccsd {
            StackDisk::Ccsd(c) => c.heat(),
            StackDisk::Zoned(_) => (SimTime::ZERO, 0.0),
        };
        let (at0, j0) = s.last_heat;
        s.device_w.push(if at > at0 {
            (j - j0) / ((at.0 - at0.0) as f64 * 1e-9)
        } else {
            f64::NAN
        });
        s.last_heat = (at, j);
    }

    fn partition_segments(&self) -> u64 {
        self.cfg.fs.partition_bytes / (self.cfg.fs.segment_blocks as u64 * 4096)
    }

    /// Whether the timeline values stopped changing: the last two samples have the same
    /// throttling and extra reserved space, temperatures within [`SETTLED_C`], and no block
    /// was (de)compressed in between. The simulation may then skip the samples of an idle
    /// stretch (the thermal model still runs on every [`Stack::tick`]).
    pub fn settled(&self) -> bool {
        fn last2(v: &[f64]) -> Option<(f64, f64)> {
            match v {
                [.., a, b] => Some((*a, *b)),
                _ => None,
            }
        }
        let s = &self.series;
        // A device without a thermal model (the zoned one) reads NaN: settled.
        last2(&s.temperature_c)
            .is_some_and(|(a, b)| (a - b).abs() <= SETTLED_C || (a.is_nan() && b.is_nan()))
            && last2(&s.throttled).is_some_and(|(a, b)| a == b)
            && last2(&s.extra_rs_fraction).is_some_and(|(a, b)| a == b)
            && s.host_share.last().is_some_and(|h| h.is_nan())
    }

    /// Timeline columns, one value per row: `rows[r]` is the position (in call order) of the
    /// [`Stack::sample`] row `r` shows (NaN where `None`).
    pub fn timeline(&self, rows: &[Option<usize>]) -> Vec<Column> {
        let s = &self.series;
        let fit = |v: &Vec<f64>| -> Vec<f64> {
            rows.iter()
                .map(|r| r.and_then(|p| v.get(p).copied()).unwrap_or(f64::NAN))
                .collect()
        };
        vec![
            Column {
                name: "temperature_c",
                unit: "°C",
                description: "CCSD temperature (SMART) at the end of the interval",
                values: fit(&s.temperature_c),
            },
            Column {
                name: "throttled",
                unit: "0/1",
                description: "1 if the CCSD engine was throttled at the end of the interval",
                values: fit(&s.throttled),
            },
            Column {
                name: "extra_rs_fraction",
                unit: "fraction",
                description:
                    "extra reserved space granted by the space policy, fraction of the partition",
                values: fit(&s.extra_rs_fraction),
            },
            Column {
                name: "host_share",
                unit: "fraction",
                description:
                    "share of the blocks (de)compressed since the previous row handled on the host (NaN: none)",
                values: fit(&s.host_share),
            },
            Column {
                name: "device_w",
                unit: "W",
                description: "mean power heating the CCSD since the previous row (idle, leakage, NAND, engine, link; W)",
                values: fit(&s.device_w),
            },
        ]
    }

    /// The SMART temperature the first stream's policy last read (°C), for tests.
    #[doc(hidden)]
    pub fn smart_c(&self) -> f64 {
        self.policies[0].smart_c()
    }

    /// The CCSD (for the run summary's NAND figures); `None` on a zoned device.
    pub fn ccsd(&self) -> Option<&Ccsd> {
        match &self.ccsd {
            StackDisk::Ccsd(c) => Some(c),
            StackDisk::Zoned(_) => None,
        }
    }

    /// The zoned device under the file system (`[zns]`), if that is the disk.
    pub fn zoned_device(&self) -> Option<&Device> {
        match &self.ccsd {
            StackDisk::Zoned(z) => Some(z.device()),
            StackDisk::Ccsd(_) => None,
        }
    }

    /// Check the file system's and the device's invariants; on a zoned device, that each
    /// section's zone has its write pointer where the file system's logs put it.
    pub fn check_invariants(&self) -> Result<()> {
        self.fs.check_invariants()?;
        if let Some(d) = self.zoned_device() {
            let zones = &d.zns.as_ref().expect("zoned").zones;
            let mut want = self.fs.expected_write_pointers();
            // Zones past the partition stay empty.
            want.resize(zones.len() as usize, 0);
            for (z, want) in want.into_iter().enumerate() {
                let zone = zones.zone(z as u32);
                // A compressed zone whose flash filled is full (write pointer at its end)
                // while its section is still the log's, closed at its next block.
                let filled = zone.state == crate::device::zns::ZoneState::Full
                    && d.zone_flash_full(z as u32);
                if zone.wp != want && !filled {
                    return Err(Error::Invariant(format!(
                        "zone {z} has its write pointer at block {} ({:?}), but the file \
                         system's section {z} expects it at {want}",
                        zone.wp, zone.state
                    )));
                }
            }
        }
        self.ccsd.check_invariants()
    }

    /// The warm-up ended at `at`: the summary counts from here.
    pub fn start_window(&mut self, at: SimTime) {
        self.fs_base = self.fs.counters();
        if let Some(c) = &self.cache {
            self.cache_base = c.counters();
        }
        self.window = Some(WindowStart {
            at,
            ccsd: self.ccsd.ccsd_counters(),
            zoned_nand_pj: self.ccsd.zoned_nand_pj(),
            cpu: self.cpu.counters,
        });
    }

    /// Totals of the stack over the measured window, which ends at `end`.
    pub fn summary(&self, end: SimTime) -> StackSummary {
        let from = self.window.map_or(SimTime::ZERO, |w| w.at);
        let elapsed = SimTime(end.0.saturating_sub(from.0));
        let secs = elapsed.as_secs_f64();
        let mut d: CcsdCounters = self.ccsd.ccsd_counters();
        let mut c = self.cpu.counters;
        if let Some(w) = &self.window {
            // Event times and the highest temperature stay absolute.
            d = minus(
                &d,
                &w.ccsd,
                &["first_throttle_ns", "shutdown_ns", "max_temperature_c"],
            );
            c = minus(&c, &w.cpu, &[]);
        }
        let f = sub_counters(&self.fs.counters(), &self.fs_base);
        let space: SpaceReport = self.ccsd.disk_ref().space();
        let host = f.compress_blocks_host + f.decompress_blocks_host;
        let all = host + f.compress_blocks_device + f.decompress_blocks_device;
        let cores = self.cpu.cores() as f64;
        let busy_ns = c.busy_ns();
        let busy_s = busy_ns as f64 * 1e-9;
        let host_cpu_j = if secs > 0.0 {
            cores * self.cfg.cpu.core_idle_w * secs
                + busy_s * (self.cfg.cpu.core_active_w - self.cfg.cpu.core_idle_w)
        } else {
            0.0
        };
        let zoned = matches!(self.ccsd, StackDisk::Zoned(_));
        // A zoned disk has no controller energy model here: its NAND energy.
        let device_j = if zoned {
            let base = self.window.map_or(0, |w| w.zoned_nand_pj);
            self.ccsd.zoned_nand_pj().saturating_sub(base) as f64 * 1e-12
        } else {
            d.energy_total_j
        };
        let kinds: Vec<PolicyKind> = self.policies.iter().map(Policy::kind).collect();
        let policy = if kinds.windows(2).all(|w| w[0] == w[1]) {
            kinds.first().map_or("none", |k| k.name()).to_string()
        } else {
            "mixed".to_string()
        };
        let per_s = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
        let cache = self.cache.as_ref().map(|pc| {
            let k = minus(&pc.counters(), &self.cache_base, &["dirty_pages_peak"]);
            let looked = k.read_hits + k.read_misses;
            CacheSummary {
                capacity_bytes: self.cfg.cache.capacity_mib << 20,
                read_hits: k.read_hits,
                read_misses: k.read_misses,
                hit_ratio: (looked > 0).then(|| k.read_hits as f64 / looked as f64),
                pages_written_back: k.pages_written_back,
                bytes_coalesced: k.bytes_coalesced,
                fsyncs: k.fsyncs,
                fsync_errors: k.fsync_errors,
                writeback_errors: k.writeback_errors,
                dirty_pages_end: pc.dirty_pages(),
                counters: k,
            }
        });
        StackSummary {
            cache,
            policy,
            temperature: TemperatureSummary {
                max_c: if zoned { f64::NAN } else { d.max_temperature_c },
                end_c: self.ccsd.disk_ref().smart().temperature_c,
                first_throttle_s: d.first_throttle_ns.map(|t| t as f64 * 1e-9),
                throttled_s: d.throttled_ns as f64 * 1e-9,
                shutdown_s: d.shutdown_ns.map(|t| t as f64 * 1e-9),
                failed_requests: f.failed_ios,
            },
            tasks: TaskSummary {
                compress_device_blocks: f.compress_blocks_device,
                compress_host_blocks: f.compress_blocks_host,
                compress_skipped_blocks: f.compress_blocks_skipped,
                decompress_device_blocks: f.decompress_blocks_device,
                decompress_host_blocks: f.decompress_blocks_host,
                host_share: (all > 0).then(|| host as f64 / all as f64),
            },
            fs: FsSummary {
                cleaning_invocations: f.cleaning_invocations,
                cleaning_blocks_moved: f.cleaning_blocks_moved,
                ssr_blocks: f.ssr_blocks,
                rmw_clusters: f.rmw_clusters,
                user_blocks_written: f.user_blocks_written,
                fs_blocks_written: f.fs_blocks_written,
                extra_rs_fraction_end: self.fs.extra_rs_segments() as f64
                    / self.partition_segments() as f64,
                extra_rs_fraction_max: self.space.max_extra as f64
                    / self.partition_segments() as f64,
                counters: f,
            },
            device: DeviceSummary {
                logical_bytes: space.logical_bytes,
                physical_bytes: space.physical_bytes,
                saved_bytes: space.saved_bytes(),
                engine_compress_blocks: d.engine_compress_blocks,
                engine_decompress_blocks: d.engine_decompress_blocks,
                gc_invocations: d.gc_invocations,
                gc_chunks_migrated: d.gc_chunks_migrated,
                counters: (!zoned).then_some(d),
            },
            zoned: self.ccsd.disk_ref().zone_blocks().map(|zone_blocks| {
                let moved = f.cleaning_blocks_moved + f.bggc_blocks_moved;
                let new = f.fs_blocks_written.saturating_sub(moved);
                ZonedHostSummary {
                    zone_blocks,
                    sections_cleaned: f.cleaning_invocations + f.bggc_segments,
                    blocks_moved: moved,
                    zones_reset: f.zone_resets,
                    host_waf: (new > 0).then(|| f.fs_blocks_written as f64 / new as f64),
                }
            }),
            cpu: CpuSummary {
                cores: self.cpu.cores() as u32,
                compress_busy_s: c.compress_busy_ns as f64 * 1e-9,
                decompress_busy_s: c.decompress_busy_ns as f64 * 1e-9,
                syscall_busy_s: c.syscall_busy_ns as f64 * 1e-9,
                utilization: per_s(busy_s) / cores,
                compute_progress: self.cpu.compute_progress(
                    self.cfg.cpu.compute_threads,
                    elapsed.0,
                    busy_ns,
                ),
                buffer_bytes_mean: per_s(c.buffer_byte_ns as f64 * 1e-9),
                buffer_bytes_peak: self.cpu.buffers.peak_bytes(),
            },
            energy: StackEnergy {
                device_j,
                device_mean_w: per_s(device_j),
                host_cpu_j,
                host_mean_w: per_s(host_cpu_j),
                total_j: device_j + host_cpu_j,
            },
        }
    }
}

/// A config period in ms as ns (at least 1), checked ([`duration_ns`]).
fn ms_to_ns(key: &str, ms: f64) -> Result<u64> {
    Ok(duration_ns(key, ms, 1e6, MAX_PERIOD_NS)?.max(1))
}

/// Field-wise difference of two counter snapshots (counters after the fill minus before).
fn sub_counters(now: &FsCounters, base: &FsCounters) -> FsCounters {
    let a = serde_json::to_value(now).expect("counters serialise");
    let b = serde_json::to_value(base).expect("counters serialise");
    let mut out = a.clone();
    if let (Some(o), Some(bm)) = (out.as_object_mut(), b.as_object()) {
        for (k, v) in o.iter_mut() {
            if let (Some(x), Some(y)) = (v.as_u64(), bm.get(k).and_then(|y| y.as_u64())) {
                *v = serde_json::Value::from(x.saturating_sub(y));
            }
        }
    }
    serde_json::from_value(out).expect("counters deserialise")
}

/// `summary.stack`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StackSummary {
    /// Placement policy (`mixed` when streams differ).
    pub policy: String,
    /// Temperature, throttling, shutdown.
    pub temperature: TemperatureSummary,
    /// Where (de)compression ran.
    pub tasks: TaskSummary,
    /// File system.
    pub fs: FsSummary,
    /// CCSD.
    pub device: DeviceSummary,
    /// Host CPU.
    pub cpu: CpuSummary,
    /// Energy of device and host CPU.
    pub energy: StackEnergy,
    /// The host page cache (`null` when `stack.cache` is off).
    pub cache: Option<CacheSummary>,
    /// The file system's cleaning on a zoned device (absent on the CCSD).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zoned: Option<ZonedHostSummary>,
}

/// `summary.stack.zoned`: the file system on a zoned device does the cleaning a device GC
/// would (the device's WAF is 1): sections cleaned, blocks they moved, zones reset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ZonedHostSummary {
    /// Blocks per section: the zone capacity (4 KiB blocks).
    pub zone_blocks: u64,
    /// Sections cleaned, foreground and background.
    pub sections_cleaned: u64,
    /// Valid blocks cleaning moved, foreground and background.
    pub blocks_moved: u64,
    /// Zones reset because their section became free.
    pub zones_reset: u64,
    /// Host write amplification: blocks the file system wrote over those it wrote other than
    /// cleaning copies (`null` when it wrote none).
    pub host_waf: Option<f64>,
}

/// `summary.stack.cache`, in 4 KiB pages unless named otherwise.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CacheSummary {
    /// Capacity (bytes).
    pub capacity_bytes: u64,
    /// Pages reads found in the cache.
    pub read_hits: u64,
    /// Pages reads read through the file system.
    pub read_misses: u64,
    /// Hits over pages read (`null` without reads).
    pub hit_ratio: Option<f64>,
    /// Dirty pages written back to the file system.
    pub pages_written_back: u64,
    /// Bytes of writes absorbed into pages that were already dirty.
    pub bytes_coalesced: u64,
    /// fsync / fdatasync requests.
    pub fsyncs: u64,
    /// fsyncs and O_DSYNC writes that returned a write-back error (EIO).
    pub fsync_errors: u64,
    /// Write-back requests the file system failed.
    pub writeback_errors: u64,
    /// Dirty pages left at the end of the run (not yet written back).
    pub dirty_pages_end: u64,
    /// Every page-cache counter.
    pub counters: CacheCounters,
}

/// `summary.stack.temperature`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TemperatureSummary {
    /// Highest temperature (°C).
    pub max_c: f64,
    /// Temperature at the end (°C).
    pub end_c: f64,
    /// When the device first throttled (s), if it did.
    pub first_throttle_s: Option<f64>,
    /// Time spent throttled (s).
    pub throttled_s: f64,
    /// When the device shut down (s), if it did.
    pub shutdown_s: Option<f64>,
    /// Requests that failed (device shut down or file system full).
    pub failed_requests: u64,
}

/// `summary.stack.tasks`, in 4 KiB blocks of (de)compression work.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskSummary {
    /// Blocks compressed by the CCSD.
    pub compress_device_blocks: u64,
    /// Blocks compressed on the host.
    pub compress_host_blocks: u64,
    /// Blocks written without compression (incompressible label).
    pub compress_skipped_blocks: u64,
    /// Blocks decompressed by the CCSD.
    pub decompress_device_blocks: u64,
    /// Blocks decompressed on the host.
    pub decompress_host_blocks: u64,
    /// Host share of all (de)compressed blocks.
    pub host_share: Option<f64>,
}

/// `summary.stack.fs`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FsSummary {
    /// Segments cleaned.
    pub cleaning_invocations: u64,
    /// Blocks copied by cleaning.
    pub cleaning_blocks_moved: u64,
    /// Blocks written by thread logging.
    pub ssr_blocks: u64,
    /// Clusters read-modify-written.
    pub rmw_clusters: u64,
    /// Blocks users wrote.
    pub user_blocks_written: u64,
    /// Blocks the file system wrote to the device.
    pub fs_blocks_written: u64,
    /// Extra reserved space at the end (fraction of the partition).
    pub extra_rs_fraction_end: f64,
    /// Largest extra reserved space (fraction of the partition).
    pub extra_rs_fraction_max: f64,
    /// Every file-system counter.
    pub counters: FsCounters,
}

/// `summary.stack.device`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceSummary {
    /// Logical bytes mapped.
    pub logical_bytes: u64,
    /// Physical bytes they occupy.
    pub physical_bytes: u64,
    /// Saved by compression.
    pub saved_bytes: u64,
    /// Blocks the engine compressed.
    pub engine_compress_blocks: u64,
    /// Blocks the engine decompressed.
    pub engine_decompress_blocks: u64,
    /// Device GC episodes.
    pub gc_invocations: u64,
    /// Chunks GC moved.
    pub gc_chunks_migrated: u64,
    /// Every CCSD counter (absent on a zoned device).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counters: Option<CcsdCounters>,
}

/// `summary.stack.cpu`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CpuSummary {
    /// Host cores.
    pub cores: u32,
    /// Core time compressing (s).
    pub compress_busy_s: f64,
    /// Core time decompressing (s).
    pub decompress_busy_s: f64,
    /// Core time of system calls the page cache served (s; 0 with the cache off).
    pub syscall_busy_s: f64,
    /// Share of all core time the I/O stack used: (de)compression and cached system calls.
    pub utilization: f64,
    /// Co-running CPU job's progress relative to running alone (`null` without one).
    pub compute_progress: Option<f64>,
    /// Mean host memory held by (de)compression buffers (bytes).
    pub buffer_bytes_mean: f64,
    /// Most memory running (de)compression tasks held at once (bytes).
    pub buffer_bytes_peak: u64,
}

/// `summary.stack.energy`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StackEnergy {
    /// Device energy (J).
    pub device_j: f64,
    /// Mean device power (W).
    pub device_mean_w: f64,
    /// Host CPU energy (J).
    pub host_cpu_j: f64,
    /// Mean host CPU power (W).
    pub host_mean_w: f64,
    /// Sum (J).
    pub total_j: f64,
}
