//! A simulation: config in, report out. Built by [`Simulation::new`], advanced in bounded
//! steps with [`Simulation::step`] (so a front end can show progress and notice Ctrl-C), and
//! turned into a [`RunReport`] by [`Simulation::finish`].

use crate::config::{SimConfig, WorkloadConfig};
use crate::content::ContentModel;
use crate::device::{Device, Untimed};
use crate::engine::{Event, EventQueue};
use crate::error::{Error, Result};
use crate::estimate::MemoryLimit;
use crate::ftl::MapLayout;
use crate::host::{Host, Target, World};
use crate::interrupt::Interrupt;
use crate::stack::bio::Disk;
use crate::stack::Stack;
use crate::stats::{
    minus, ControllerSummary, EnergySummary, OpSummary, PreconditionSummary, Recorder, RunReport,
    Summary, WearSummary, WindowBase, WindowSummary,
};
use crate::units::{duration_ns, Lpn, SimTime, MAX_PERIOD_NS};
use crate::workload::{self, LayoutFill, Op, Stream};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Where a run is, for progress bars.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Progress {
    /// Simulated time reached (ns).
    pub sim_time_ns: u64,
    /// Requests submitted so far.
    pub requests_issued: u64,
    /// Requests completed so far.
    pub requests_completed: u64,
    /// Estimated fraction of the workload done, in [0, 1], when the workload can tell.
    pub fraction: Option<f64>,
}

/// One simulation run.
pub struct Simulation {
    cfg: SimConfig,
    target: Target,
    host: Host,
    queue: EventQueue,
    rec: Recorder,
    content: Option<ContentModel>,
    now: SimTime,
    precondition: PreconditionSummary,
    done: bool,
    /// Periodic tick events in the queue; they keep ticking only while other events remain.
    tickers: usize,
    /// Arrivals and completions since the last timeline tick (the start counts as one).
    events_since_tick: u64,
    /// Skip a `[stack]` run's ticks over idle stretches (`Stack::idle_tick`); off only to
    /// check that the skip is exact.
    skip_idle_ticks: bool,
    /// Stack ticks run so far.
    stack_ticks: u64,
    /// Polled between events of a step ([`Simulation::set_interrupt`]).
    stop: Interrupt<'static>,
    /// An interrupt cut an event short: the state is not consistent any more.
    broken: bool,
    /// End of the warm-up (`stats.warmup_ms`; zero: none).
    warmup: SimTime,
    /// The counters when the warm-up ended, once it has.
    base: Option<WindowBase>,
    /// The per-handle FDP counters when the warm-up ended (`[fdp]`).
    fdp_base: Option<Vec<crate::ftl::fdp::HandleCounters>>,
    /// Rows of the FDP events table when the warm-up ended.
    fdp_events_base: usize,
    /// What the summary says about the workload (`workload_notes`).
    notes: Vec<String>,
    /// Notes the workload adds as it runs (fio's failed sg commands), after `notes`.
    run_notes: Option<std::sync::Arc<std::sync::Mutex<Vec<String>>>>,
    /// Write amplification of the preconditioning's aging, window by window.
    aging_windows: Vec<AgingWindow>,
}

/// One window of the untimed aging (random single-unit overwrites after the fill): its
/// overwrites and the NAND work they caused, so a caller can see whether the aged device
/// reached steady state (successive windows' WAF level).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct AgingWindow {
    /// Overwrites before this window ended, as a fraction of the filled units.
    pub aged_fraction: f64,
    /// Mapping units overwritten in the window.
    pub writes: u64,
    /// NAND pages programmed in the window (the overwrites and GC's migrations).
    pub programs: u64,
    /// Pages GC migrated in the window.
    pub gc_pages_migrated: u64,
    /// NAND bytes programmed / unit bytes written in the window.
    pub waf: f64,
}

/// The aging's WAF over groups of `per` consecutive windows (the last group may be shorter):
/// NAND bytes programmed / unit bytes overwritten in each group, for NAND pages of
/// `page_per_unit` mapping units. Coarser than the 1% windows: greedy GC on planes filled in
/// lockstep makes the WAF swing over a few % of the units.
pub fn aging_waf_by(windows: &[AgingWindow], per: usize, page_per_unit: f64) -> Vec<f64> {
    windows
        .chunks(per.max(1))
        .map(|c| {
            let (p, w) = c
                .iter()
                .fold((0, 0), |(p, w), x| (p + x.programs, w + x.writes));
            p as f64 * page_per_unit / w as f64
        })
        .collect()
}

/// The largest relative deviation of `values` from their mean (`None`: no values).
pub fn spread(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    Some(
        values
            .iter()
            .map(|x| (x / mean - 1.0).abs())
            .fold(0.0, f64::max),
    )
}

/// The steady-state test of an aged device (`make bench-scale`): there are at least `last`
/// windows and the last `last` WAF values are all within `tol` (relative) of their mean.
pub fn steady(waf: &[f64], last: usize, tol: f64) -> bool {
    last > 0 && waf.len() >= last && spread(&waf[waf.len() - last..]).is_some_and(|s| s <= tol)
}

/// Aging windows per full overwrite of the filled units ([`AgingWindow`]): one per 1%.
const AGING_WINDOWS_PER_OVERWRITE: u64 = 100;

/// Content ids of preconditioning writes.
const PRECONDITION_CONTENT_BASE: u64 = 1 << 62;

/// Open the streams a workload config describes, for a device of `capacity` logical bytes.
pub fn open_workload(cfg: &SimConfig, capacity: u64) -> Result<Vec<Stream>> {
    open_workload_noted(cfg, capacity).map(|w| w.streams)
}

/// A workload's streams, what the summary should say about it, and whether it asks for
/// verified reads (fio's `verify`).
pub struct OpenedWorkload {
    /// The streams.
    pub streams: Vec<Stream>,
    /// Notes for the summary (`workload_notes`).
    pub notes: Vec<String>,
    /// Notes the workload adds as it runs, read when the summary is made.
    pub run_notes: Option<std::sync::Arc<std::sync::Mutex<Vec<String>>>>,
    /// Some stream verifies what it wrote.
    pub verify: bool,
    /// A warm-up the workload asks for (fio's `ramp_time` shared by every job), ns.
    pub warmup_ns: Option<u64>,
    /// Byte ranges of the device the workload writes before it starts (fio's file layout),
    /// as (address, bytes, what the writes hold).
    pub layout: Vec<(u64, u64, LayoutFill)>,
}

/// [`open_workload`], with the workload's notes.
pub fn open_workload_noted(cfg: &SimConfig, capacity: u64) -> Result<OpenedWorkload> {
    let plain = |streams| OpenedWorkload {
        streams,
        notes: Vec::new(),
        run_notes: None,
        verify: false,
        warmup_ns: None,
        layout: Vec::new(),
    };
    match &cfg.workload {
        WorkloadConfig::Fio(f) => {
            // Under a [stack] the jobs' files are on the file system, which hides the zones.
            let zns = cfg.zns.as_ref().filter(|_| cfg.stack.is_none());
            let zoned = zns.map(|z| workload::fio::ZonedDevice {
                zone_size: z.zone_size_bytes(&cfg.nand),
                zone_capacity: z.zone_capacity_bytes(&cfg.nand),
                zones: u64::from(z.zones(&cfg.nand)),
                max_open_zones: z.max_open_zones,
                compressed_zones: z.compression().is_some(),
                written: crate::device::zns::fill_plan(
                    z,
                    &cfg.nand,
                    cfg.precondition.fill_fraction,
                )
                .into_iter()
                .map(|n| n * cfg.nand.page_size as u64)
                .collect(),
            });
            let l = workload::fio::load_placed(
                f,
                capacity,
                cfg.seed,
                cfg.stack.is_some(),
                zoned,
                cfg.fdp.as_ref().map_or(0, |f| f.identifiers() as u32),
                preconditioned_bytes(cfg, capacity),
            )?;
            Ok(OpenedWorkload {
                streams: l.streams,
                notes: l.notes,
                run_notes: l.run_notes,
                verify: l.verify,
                warmup_ns: l.warmup_ns,
                layout: l.layout,
            })
        }
        WorkloadConfig::Trace(t) => Ok(plain(vec![workload::trace::open_stream_paged(
            t,
            capacity,
            u64::from(cfg.nand.page_size),
            cfg.fdp.as_ref().map_or(0, |f| f.identifiers() as u32),
        )?])),
        WorkloadConfig::Filebench(f) => Ok(plain(workload::filebench::load_streams(f, cfg.seed)?)),
    }
}

/// Bytes from the device's start that preconditioning fills (see [`precondition`]: the
/// first `fill_fraction` of the logical mapping units).
fn preconditioned_bytes(cfg: &SimConfig, capacity: u64) -> u64 {
    let unit = u64::from(cfg.mapping_unit()).max(1);
    let units = capacity / unit;
    ((cfg.precondition.fill_fraction * units as f64).floor() as u64).min(units) * unit
}

/// The bytes the workload addresses: the device's logical bytes, or under `[stack]` the file
/// system's user space (a fio job's offsets are inside its file).
pub(crate) fn workload_capacity(cfg: &SimConfig) -> u64 {
    match &cfg.stack {
        Some(st) => crate::stack::user_bytes_of(st),
        // A zoned namespace exposes every zone's span (zones x zone size).
        None => match &cfg.zns {
            Some(z) => u64::from(z.zones(&cfg.nand)) * z.zone_size_bytes(&cfg.nand),
            None => crate::ftl::host_pages(cfg) * cfg.mapping_unit() as u64,
        },
    }
}

impl Simulation {
    /// Build the device, precondition it and open the workload, once the run's memory
    /// estimate fits in the machine's available memory.
    pub fn new(cfg: SimConfig) -> Result<Simulation> {
        Self::build(cfg, MemoryLimit::Machine, &mut Interrupt::none())
    }

    /// [`Simulation::new`], with the memory estimate checked against `limit` (see
    /// [`crate::estimate`]) before anything large is allocated.
    pub fn with_memory_limit(cfg: SimConfig, limit: MemoryLimit) -> Result<Simulation> {
        Self::build(cfg, limit, &mut Interrupt::none())
    }

    /// [`Simulation::new`], polling `stop` in its long loops (preconditioning, a stack's
    /// layout and fill): a hook's error ends the build with that error.
    pub fn new_interruptible(cfg: SimConfig, stop: &mut Interrupt<'_>) -> Result<Simulation> {
        Self::build(cfg, MemoryLimit::Machine, stop)
    }

    /// The build behind every constructor: validation, the memory check against `limit`,
    /// then the device and workload, polling `stop` in the long loops.
    pub fn build(
        cfg: SimConfig,
        limit: MemoryLimit,
        stop: &mut Interrupt<'_>,
    ) -> Result<Simulation> {
        Self::build_with_layout(cfg, limit, stop, MapLayout::Auto)
    }

    /// [`Simulation::build`] with the page FTL's page map in `layout`
    /// ([`MapLayout::Wide`]: the packed layout of devices past 2^32 units, on any device;
    /// [`MapLayout::Packed`]: that of devices from 2^28 units).
    pub fn build_with_layout(
        cfg: SimConfig,
        limit: MemoryLimit,
        stop: &mut Interrupt<'_>,
        layout: MapLayout,
    ) -> Result<Simulation> {
        cfg.validate("config")?;
        crate::estimate::check_with_layout(&cfg, limit, layout)?;
        let capacity = workload_capacity(&cfg);
        let opened = open_workload_noted(&cfg, capacity)?;
        let mut cfg = cfg;
        if opened.verify && !cfg.check.verify {
            // fio's `verify`: reads check what they return (flashpress's verify mode, whose
            // arrays the estimate checked above counted); the resolved config records it.
            cfg.check.verify = true;
        }
        let mut notes = opened.notes;
        if let Some(ns) = opened.warmup_ns {
            let ms = ns as f64 / 1e6;
            if ms > cfg.stats.warmup_ms {
                // fio's ramp_time: the resolved config records it as the warm-up.
                cfg.stats.warmup_ms = ms;
                notes.push(format!(
                    "fio ramp_time: the first {ms} ms are the run's warm-up (stats.warmup_ms), left out of every count, rate and latency"
                ));
            }
        }
        let mut sim = Self::assemble(cfg, opened.streams, &opened.layout, stop, layout)?;
        sim.notes = notes;
        sim.run_notes = opened.run_notes;
        Ok(sim)
    }

    /// Build with streams made by the caller instead of the config's `workload` (which is
    /// then only recorded in the resolved config).
    pub fn with_streams(cfg: SimConfig, streams: Vec<Stream>) -> Result<Simulation> {
        Self::with_streams_interruptible(cfg, streams, &mut Interrupt::none())
    }

    /// [`Simulation::with_streams`] with the page FTL's page map in `layout`.
    pub fn with_streams_layout(
        cfg: SimConfig,
        streams: Vec<Stream>,
        layout: MapLayout,
    ) -> Result<Simulation> {
        Self::assemble(cfg, streams, &[], &mut Interrupt::none(), layout)
    }

    /// [`Simulation::with_streams`], polling `stop` as [`Simulation::new_interruptible`] does.
    pub fn with_streams_interruptible(
        cfg: SimConfig,
        streams: Vec<Stream>,
        stop: &mut Interrupt<'_>,
    ) -> Result<Simulation> {
        Self::assemble(cfg, streams, &[], stop, MapLayout::Auto)
    }

    /// The device (preconditioned, then with `layout`'s byte ranges written: see
    /// [`precondition`]) and the host running `streams` on it.
    fn assemble(
        cfg: SimConfig,
        mut streams: Vec<Stream>,
        layout: &[(u64, u64, LayoutFill)],
        stop: &mut Interrupt<'_>,
        map_layout: MapLayout,
    ) -> Result<Simulation> {
        cfg.validate("config")?;
        // The content model first: a missing corpus fails before the fill does any work.
        let hints: Vec<_> = streams.iter().map(|s| s.content.clone()).collect();
        let mut content = ContentModel::new(&cfg, &hints)?;
        if let Some(cm) = content.as_mut() {
            // The layout's patterns get their real bytes too (a reading job's own
            // `buffer_pattern` is in no stream's hints: the job writes nothing).
            for (_, _, fill) in layout {
                if let LayoutFill::Pattern { pattern, piece } = fill {
                    cm.add_pattern(&laid_pattern(pattern, *piece, &cfg).0, "config")?;
                }
            }
        }
        let mut aging_windows = Vec::new();
        let (target, precondition) = match &cfg.stack {
            Some(st) => {
                if content.is_none() {
                    return Err(Error::config(
                        "config",
                        "content.mode",
                        "a [stack] run needs the content model (mode = \"model\" or \"bytes\"): compression sizes come from it",
                    ));
                }
                let names: Vec<String> = streams.iter().map(|s| s.name.clone()).collect();
                let layouts: Vec<u64> = streams.iter().map(|s| s.layout_bytes).collect();
                let stack = Stack::new(&cfg, st, &names, &layouts, content.as_mut(), stop)?;
                (
                    Target::Stack(Box::new(stack)),
                    PreconditionSummary::default(),
                )
            }
            None => {
                let mut device = Device::with_layout(&cfg, content.as_mut(), map_layout)?;
                let p = precondition(
                    &cfg,
                    &mut device,
                    layout,
                    &mut streams,
                    content.as_mut(),
                    stop,
                    &mut aging_windows,
                )?;
                (Target::Ssd(Box::new(device)), p)
            }
        };
        let host = Host::new(streams, target.capacity_bytes())?;
        let interval_ns = duration_ns(
            "stats.interval_ms",
            cfg.stats.interval_ms,
            1e6,
            MAX_PERIOD_NS,
        )?;
        let warmup = SimTime(duration_ns(
            "stats.warmup_ms",
            cfg.stats.warmup_ms,
            1e6,
            MAX_PERIOD_NS,
        )?);
        let mut rec = Recorder::new(interval_ns);
        rec.measure_from(warmup);
        let mut sim = Simulation {
            notes: Vec::new(),
            run_notes: None,
            aging_windows,
            rec,
            warmup,
            base: None,
            fdp_base: None,
            fdp_events_base: 0,
            content,
            target,
            host,
            queue: EventQueue::new(),
            now: SimTime::ZERO,
            precondition,
            done: false,
            tickers: 1,
            events_since_tick: 1,
            skip_idle_ticks: true,
            stack_ticks: 0,
            stop: Interrupt::none(),
            broken: false,
            cfg,
        };
        sim.host.start(&mut World {
            queue: &mut sim.queue,
            target: &mut sim.target,
            rec: &mut sim.rec,
            content: sim.content.as_mut(),
        })?;
        let first_tick = SimTime(sim.rec.interval_ns());
        sim.queue.push(first_tick, Event::Tick);
        if let Target::Stack(s) = &sim.target {
            sim.queue.push(SimTime(s.tick_ns()), Event::StackTick);
            sim.tickers += 1;
        }
        Ok(sim)
    }

    /// Poll `hook` from now on (`None`: stop polling) between the events of [`Simulation::step`]
    /// and before each codec call of the content model, every few milliseconds of wall time;
    /// its error ends the step with [`Error::Interrupted`]. Between events the run can go on
    /// with the next step; an interrupt inside an event (a codec loop: `zstd-22` on many
    /// blocks) leaves it half done, and every later step fails.
    pub fn set_interrupt(&mut self, hook: Option<crate::interrupt::SharedHook>) {
        if let Some(c) = self.content.as_mut() {
            c.set_interrupt(hook.clone());
        }
        self.stop = hook.map_or_else(Interrupt::none, Interrupt::shared);
    }

    /// Process at most `max_events` events; `Ok(true)` once the workload is finished.
    pub fn step(&mut self, max_events: u64) -> Result<bool> {
        if self.broken {
            return Err(Error::State(
                "this simulation was interrupted in the middle of an event and cannot go on; \
                 start it again"
                    .into(),
            ));
        }
        let r = self.step_events(max_events);
        if self.content.as_ref().is_some_and(|c| c.interrupted()) {
            self.broken = true;
            return Err(Error::Interrupted);
        }
        r
    }

    fn step_events(&mut self, max_events: u64) -> Result<bool> {
        for _ in 0..max_events {
            self.stop.poll()?;
            if self.content.as_ref().is_some_and(|c| c.interrupted()) {
                return Err(Error::Interrupted);
            }
            if self.base.is_none() && self.warmup > SimTime::ZERO {
                let next = match &self.target {
                    Target::Ssd(d) => d.next_arrival(),
                    Target::Stack(_) => None,
                };
                let next = match (next, self.queue.peek_time()) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
                if next.is_some_and(|t| t >= self.warmup) {
                    self.end_warmup();
                }
            }
            // Page commands reaching the SSD's controller come in time order on their own
            // queue; they go first among events of the same instant, so a plane that frees up
            // then sees them.
            let arrival = match &self.target {
                Target::Ssd(d) => d.next_arrival(),
                Target::Stack(_) => None,
            };
            if let Some(ta) = arrival {
                if self.queue.peek_time().is_none_or(|th| ta <= th) {
                    if ta >= SimTime::HORIZON {
                        return Err(self.horizon_error());
                    }
                    self.now = ta;
                    self.events_since_tick += 1;
                    if let Target::Ssd(d) = &mut self.target {
                        d.process_arrivals(ta, &mut self.queue);
                    }
                    crate::host::drain_device(&mut self.world());
                    continue;
                }
            }
            let Some((t, ev)) = self.queue.pop() else {
                self.done = true;
                return Ok(true);
            };
            if t >= SimTime::HORIZON {
                return Err(self.horizon_error());
            }
            self.now = t;
            match ev {
                Event::Completion(s) | Event::Arrival(s) => {
                    self.events_since_tick += 1;
                    let mut w = World {
                        queue: &mut self.queue,
                        target: &mut self.target,
                        rec: &mut self.rec,
                        content: self.content.as_mut(),
                    };
                    if matches!(ev, Event::Completion(_)) {
                        self.host.on_completion(s as usize, t, &mut w)?
                    } else {
                        self.host.on_arrival(s as usize, t, &mut w)?
                    }
                }
                Event::Wake(s, gen) => {
                    self.events_since_tick += 1;
                    let mut w = World {
                        queue: &mut self.queue,
                        target: &mut self.target,
                        rec: &mut self.rec,
                        content: self.content.as_mut(),
                    };
                    self.host.on_wake(s as usize, gen, t, &mut w)?;
                }
                Event::Flash(plane, gen) => {
                    self.events_since_tick += 1;
                    if let Target::Ssd(d) = &mut self.target {
                        d.on_flash(plane, gen, t, &mut self.queue);
                    }
                    crate::host::drain_device(&mut self.world());
                }
                Event::DeviceReq(slot) => {
                    self.events_since_tick += 1;
                    if let Target::Ssd(d) = &mut self.target {
                        d.on_request(slot, t, &mut self.queue);
                    }
                    crate::host::drain_device(&mut self.world());
                }
                Event::Tick => {
                    self.tickers -= 1;
                    // Ticks fall on interval ends: this one ends interval t / interval - 1.
                    self.sample(self.rec.interval_of(t).saturating_sub(1));
                    // Keep ticking only while requests are in flight or due.
                    if self.pending_work() {
                        if let Some(next) = self.next_tick(t) {
                            self.queue.push(next, Event::Tick);
                            self.tickers += 1;
                        }
                    }
                    self.events_since_tick = 0;
                }
                // Skipped only where that is exact (`Stack::idle_tick`: an idle device, a
                // settled space policy, up to the stack's next background work and its last
                // SMART read before the next event), unlike `Tick`, whose skip may drop
                // samples: catching up late otherwise would change what the stack decides
                // (SMART reads would all see the temperature at the end of the stretch, the
                // space policy's rates would be measured over the wrong periods).
                Event::StackTick => {
                    self.tickers -= 1;
                    self.stack_ticks += 1;
                    let pending = self.pending_work();
                    if let Target::Stack(s) = &mut self.target {
                        s.tick(t, self.content.as_mut())?;
                        if pending {
                            let mut next = t + s.tick_ns();
                            if self.skip_idle_ticks {
                                let due = self
                                    .queue
                                    .next_time_except(|e| matches!(e, Event::StackTick));
                                if let Some(end) = due.and_then(|d| s.idle_tick(t, d)) {
                                    next = end;
                                }
                            }
                            self.queue.push(next, Event::StackTick);
                            self.tickers += 1;
                        }
                    }
                }
            }
        }
        let arrivals = matches!(&self.target, Target::Ssd(d) if d.next_arrival().is_some());
        Ok(self.queue.is_empty() && !arrivals)
    }

    /// The run needs more simulated time than fits in u64 ns: sums of durations saturate at
    /// [`SimTime::HORIZON`] instead of wrapping, and the first event there ends the run. The
    /// error names the config's longest per-operation duration, the usual cause.
    fn horizon_error(&self) -> Error {
        let c = &self.cfg;
        let us = |v: f64| v * 1e3;
        let page_xfer = c.nand.page_size as f64 * 1e3 / c.nand.channel_mb_per_s;
        let link_4k = 4096.0 * 1e3 / c.host.link_mb_per_s;
        let mut longest: Vec<(&str, f64)> = vec![
            (
                "nand.read_latency_us",
                us(c.nand.read_latency_us.iter().copied().fold(0.0, f64::max)),
            ),
            (
                "nand.program_latency_us",
                us(c.nand
                    .program_latency_us
                    .iter()
                    .copied()
                    .fold(0.0, f64::max)),
            ),
            ("nand.erase_latency_us", us(c.nand.erase_latency_us)),
            ("nand.channel_mb_per_s", page_xfer),
            ("host.link_mb_per_s", link_4k),
            (
                "host.command_overhead_ns",
                c.host.command_overhead_ns as f64,
            ),
        ];
        if let Some(z) = c.ftl.compression() {
            longest.push(("ftl.compression.compress_us", us(z.compress_us)));
            longest.push(("ftl.compression.decompress_us", us(z.decompress_us)));
        }
        if let Some(z) = c.zns.as_ref().and_then(|z| z.compression()) {
            longest.push(("zns.compression.compress_us", us(z.compress_us)));
            longest.push(("zns.compression.decompress_us", us(z.decompress_us)));
        }
        let (key, ns) = longest
            .into_iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .expect("candidates");
        Error::config(
            "config",
            key,
            format!(
                "the run needs more simulated time than fits (2^64 ns, about 584 years; \
                 reached after {} of {} requests completed); the config's longest \
                 per-operation time is this key's, {ns:.4e} ns: shorten it (or the workload)",
                self.host.counters.completed, self.host.counters.issued
            ),
        )
    }

    /// Read the counters the window's figures are measured from, and start the stack's window.
    fn end_warmup(&mut self) {
        let (nand, ftl, dev, sched) = self.counters();
        let at = self.warmup;
        self.base = Some(WindowBase {
            at,
            // The window takes every request completing in it (the recorder's rule), so the
            // requests in flight at its start count as issued in it too: issued and completed
            // are counted over the same requests.
            issued: self.host.counters.completed,
            completed: self.host.counters.completed,
            out_of_order: self.host.counters.out_of_order,
            sequential: self.host.counters.sequential,
            nand,
            ftl,
            dev,
            sched,
            comp: self.compression_counters(),
            dedup: self.dedup_counters(),
            map: self.map_counters(),
            index: self.index_counters(),
            zns: self.zns_counters(),
        });
        self.fdp_base = self.fdp_counters();
        if let Target::Ssd(d) = &self.target {
            self.fdp_events_base = d.ftl.fdp.as_ref().map_or(0, |f| f.events.len());
        }
        if let Target::Stack(st) = &mut self.target {
            st.start_window(at);
        }
    }

    /// The FDP device's cumulative per-handle counters.
    fn fdp_counters(&self) -> Option<Vec<crate::ftl::fdp::HandleCounters>> {
        match &self.target {
            Target::Ssd(d) => d.ftl.fdp.as_ref().map(|f| f.counters.clone()),
            Target::Stack(_) => None,
        }
    }

    /// The cumulative map cache counters, with a demand-paged map (the plain SSD's page or
    /// packed map, or the CCSD's chunk map).
    fn map_counters(&self) -> Option<crate::ftl::mapcache::MapCacheCounters> {
        if let Some(d) = self.ssd() {
            return d.ftl.map.as_ref().map(|m| m.counters);
        }
        match &self.target {
            Target::Stack(s) => s.ccsd().and_then(|c| c.map_counters()),
            Target::Ssd(_) => None,
        }
    }

    /// The plain SSD's cumulative fingerprint index cache counters, with the index on flash.
    fn index_counters(&self) -> Option<crate::ftl::mapcache::MapCacheCounters> {
        match &self.target {
            Target::Ssd(d) => d.ftl.index.as_ref().map(|m| m.counters),
            Target::Stack(_) => None,
        }
    }

    /// The plain SSD's cumulative dedup counters, when it deduplicates.
    fn dedup_counters(&self) -> Option<crate::ftl::dedup::DedupCounters> {
        match &self.target {
            Target::Ssd(d) => d.dedup_counters(),
            Target::Stack(_) => None,
        }
    }

    /// The zoned device's cumulative counters (plain run or under a `[stack]`).
    fn zns_counters(&self) -> Option<crate::device::zns::ZnsCounters> {
        self.ssd().and_then(|d| d.zns.as_ref().map(|z| z.counters))
    }

    /// The SSD on the controller back end whose counters the summary reads: the plain or
    /// zoned SSD of a device run, or the zoned SSD under a `[stack]` (`None`: the CCSD).
    fn ssd(&self) -> Option<&Device> {
        match &self.target {
            Target::Ssd(d) => Some(d),
            Target::Stack(s) => s.zoned_device(),
        }
    }

    /// The CCSD under a `[stack]` run that is not on a zoned device.
    fn stack_ccsd(st: &Stack) -> &crate::device::ccsd::Ccsd {
        st.ccsd()
            .expect("a [stack] run without a zoned device runs on the CCSD")
    }

    /// The plain SSD's cumulative compression counters, when it compresses.
    fn compression_counters(&self) -> Option<crate::device::compress::CompressionCounters> {
        match &self.target {
            Target::Ssd(d) => d.compression.as_ref().map(|c| c.counters()),
            Target::Stack(_) => None,
        }
    }

    /// The cumulative NAND, FTL, controller and back-end counters of whichever device runs.
    fn counters(
        &self,
    ) -> (
        crate::nand::NandCounters,
        crate::ftl::FtlCounters,
        crate::device::DeviceCounters,
        crate::device::sched::SchedCounters,
    ) {
        if let Some(d) = self.ssd() {
            return (
                d.nand.counters,
                d.ftl.counters,
                d.counters,
                d.sched.counters,
            );
        }
        match &self.target {
            Target::Ssd(_) => unreachable!("a device run has its SSD"),
            Target::Stack(st) => {
                let st = Self::stack_ccsd(st);
                let cc = st.counters();
                let f = crate::ftl::FtlCounters {
                    host_pages_written: cc.pages_programmed_host,
                    gc_invocations: cc.gc_invocations,
                    gc_pages_migrated: cc.gc_chunks_migrated,
                    gc_blocks_erased: cc.gc_blocks_erased,
                    ..Default::default()
                };
                (
                    st.nand().counters,
                    f,
                    Default::default(),
                    st.backend().sched().counters,
                )
            }
        }
    }

    /// Events other than the periodic ticks are pending (in the heap or on their way to the
    /// SSD's controller).
    fn pending_work(&self) -> bool {
        self.queue.len() > self.tickers
            || matches!(&self.target, Target::Ssd(d) if d.next_arrival().is_some())
    }

    fn world(&mut self) -> World<'_> {
        World {
            queue: &mut self.queue,
            target: &mut self.target,
            rec: &mut self.rec,
            content: self.content.as_mut(),
        }
    }

    /// Where the run is.
    pub fn progress(&self) -> Progress {
        Progress {
            sim_time_ns: self.now.0,
            requests_issued: self.host.counters.issued,
            requests_completed: self.host.counters.completed,
            fraction: self.host.fraction(self.now),
        }
    }

    /// The preconditioning's aging, window by window (1% of the filled units each; empty
    /// without aging or in `[stack]` runs).
    pub fn aging_windows(&self) -> &[AgingWindow] {
        &self.aging_windows
    }

    /// The plain SSD (for inspection in tests and tools); `None` in `[stack]` runs.
    pub fn device(&self) -> Option<&Device> {
        match &self.target {
            Target::Ssd(d) => Some(d),
            Target::Stack(_) => None,
        }
    }

    /// The storage stack of a `[stack]` run.
    pub fn stack(&self) -> Option<&Stack> {
        match &self.target {
            Target::Stack(s) => Some(s),
            Target::Ssd(_) => None,
        }
    }

    /// Tick a `[stack]` run at every thermal step of its idle stretches too (`false`), instead
    /// of skipping them where that changes nothing (the default). For tests that check the
    /// skip is exact.
    #[doc(hidden)]
    pub fn set_skip_idle_ticks(&mut self, on: bool) {
        self.skip_idle_ticks = on;
    }

    /// Stack ticks run so far (see [`Simulation::set_skip_idle_ticks`]).
    #[doc(hidden)]
    pub fn stack_ticks(&self) -> u64 {
        self.stack_ticks
    }

    /// Mutable device access for tests that corrupt state on purpose (plain SSD runs).
    #[doc(hidden)]
    pub fn device_mut_for_test(&mut self) -> &mut Device {
        match &mut self.target {
            Target::Ssd(d) => d,
            Target::Stack(_) => panic!("device_mut_for_test: a [stack] run has no plain SSD"),
        }
    }

    /// When the timeline tick after the one at `t` is due: the next interval end, or, in an
    /// idle stretch, the end of the last interval before the next arrival.
    ///
    /// Idle: no request in flight, none arrived or completed since the previous tick, and
    /// the last two samples are the same (in `[stack]` runs also temperature, throttling and
    /// reserved space, see [`Stack::settled`]). The stretch's first interval (the one that
    /// just ended) and its last are sampled, the ones between are not: they would repeat the
    /// same sample, and a trace with a timestamp in the wrong unit would otherwise add one
    /// sample per interval of a gap of centuries. While requests are in flight (a long GC
    /// stall included) every interval is sampled, as in a busy run.
    ///
    /// `None` past the end of representable time (`finish` samples the rest).
    fn next_tick(&mut self, t: SimTime) -> Option<SimTime> {
        let step = self.rec.interval_ns();
        let next = t.0.checked_add(step)?;
        let in_flight = self.host.counters.issued - self.host.counters.completed;
        let quiet = self.events_since_tick == 0
            && in_flight == 0
            && self.rec.last_sample_repeats()
            && match &self.target {
                Target::Ssd(_) => true,
                Target::Stack(s) => s.settled(),
            };
        if !quiet {
            return Some(SimTime(next));
        }
        let arrival = match &self.target {
            Target::Ssd(d) => d.next_arrival(),
            Target::Stack(_) => None,
        };
        let due = self
            .queue
            .next_time_except(|e| matches!(e, Event::Tick | Event::StackTick))
            .into_iter()
            .chain(arrival)
            .min()
            .map_or(0, |d| d.0);
        Some(SimTime(next.max(due / step * step)))
    }

    /// Sample the timeline at the end of interval `interval`.
    fn sample(&mut self, interval: u64) {
        match &mut self.target {
            Target::Ssd(d) => self.rec.sample(interval, d),
            Target::Stack(s) => {
                match (s.zoned_device(), s.ccsd()) {
                    (Some(d), _) => self.rec.sample_counts(
                        interval,
                        &d.nand.counters,
                        d.ftl.counters.gc_pages_migrated,
                        d.zns
                            .as_ref()
                            .map_or(0, |z| z.free_blocks(d.compression.as_ref())),
                    ),
                    (None, Some(c)) => {
                        self.rec.sample_counts(
                            interval,
                            &c.nand().counters,
                            c.counters().gc_chunks_migrated,
                            c.free_blocks(),
                        );
                        if let Some(m) = c.map_counters() {
                            self.rec.sample_map(0, &m);
                        }
                    }
                    (None, None) => unreachable!("a stack runs on the CCSD or a zoned device"),
                }
                s.sample();
            }
        }
    }

    /// Run the checks the config asks for and build the report. Call after `step` returned true.
    pub fn finish(mut self) -> Result<RunReport> {
        if !(self.queue.is_empty() || self.done) {
            return Err(Error::State(format!(
                "finish() called at simulated time {} ns, before the run ended; step() until it returns true",
                self.now.0
            )));
        }
        if self.cfg.check.invariants {
            match &self.target {
                Target::Ssd(d) => d.check_invariants()?,
                Target::Stack(s) => s.check_invariants()?,
            }
        }
        if self.base.is_none() && self.warmup > SimTime::ZERO {
            // The run ended within its warm-up: the window is empty.
            self.end_warmup();
        }
        let end = self.rec.last_completion;
        // Nothing changes any more: sample the first and the last interval the ticks did not
        // reach (usually none or one). The last row also takes the work that ran after the
        // last completion (GC the controller deferred), so the columns add up to the totals.
        let n = self.rec.intervals_until(end);
        if let Target::Ssd(_) = self.target {
            // (The stack keeps per-sample series of its own, aligned with these samples; its
            // CCSD books all work when requests are submitted, so it has no such tail.)
            self.rec.forget_samples_from(n - 1);
        }
        let from = self.rec.last_sampled_interval().map_or(0, |i| i + 1);
        if from < n {
            self.sample(from);
            if n - 1 > from {
                self.sample(n - 1);
            }
        }
        let (mut timeline, rows) = self.rec.timeline(end);
        if let Target::Stack(s) = &self.target {
            timeline.extend(s.timeline(&rows));
        }
        let summary = self.summary(end);
        let fdp_events = match &self.target {
            Target::Ssd(d) => d
                .ftl
                .fdp
                .as_ref()
                .map(|f| f.events[self.fdp_events_base.min(f.events.len())..].to_vec()),
            Target::Stack(_) => None,
        };
        let Simulation { rec, .. } = self;
        Ok(RunReport::new(
            summary,
            timeline,
            (rec.read_hist, rec.write_hist),
            (rec.read_gc_hist, rec.write_gc_hist),
        )
        .with_fdp_events(fdp_events))
    }

    fn summary(&self, end: SimTime) -> Summary {
        let from = self.base.map_or(SimTime::ZERO, |b| b.at);
        let to = end.max(from);
        let secs = (to.0 - from.0) as f64 * 1e-9;
        let host_write_bytes = self.rec.write.bytes;
        let j = |pj: u64| pj as f64 * 1e-12;
        // NAND, FTL and controller figures of whichever device ran, over the window.
        let (nand, ps, free, logical, physical) = match &self.target {
            Target::Ssd(d) => (
                &d.nand,
                d.nand.geo.page_size as u64,
                d.zns.as_ref().map_or(d.ftl.free_blocks(), |z| {
                    z.free_blocks(d.compression.as_ref())
                }),
                d.capacity_bytes(),
                d.nand.geo.capacity_bytes(),
            ),
            Target::Stack(st) => match st.zoned_device() {
                Some(d) => (
                    &d.nand,
                    d.nand.geo.page_size as u64,
                    d.zns
                        .as_ref()
                        .map_or(0, |z| z.free_blocks(d.compression.as_ref())),
                    d.capacity_bytes(),
                    d.nand.geo.capacity_bytes(),
                ),
                None => {
                    let c = Self::stack_ccsd(st);
                    let nand = c.nand();
                    (
                        nand,
                        nand.geo.page_size as u64,
                        c.free_blocks(),
                        c.logical_blocks() * 4096,
                        nand.geo.capacity_bytes(),
                    )
                }
            },
        };
        let (mut n, mut f, mut c, mut sched) = self.counters();
        let (mut issued, mut completed, mut out_of_order, mut sequential) = (
            self.host.counters.issued,
            self.host.counters.completed,
            self.host.counters.out_of_order,
            self.host.counters.sequential,
        );
        if let Some(b) = &self.base {
            n = minus(&n, &b.nand, &[]);
            f = minus(&f, &b.ftl, &[]);
            c = minus(&c, &b.dev, &[]);
            sched = minus(&sched, &b.sched, &[]);
            issued -= b.issued;
            completed -= b.completed;
            out_of_order -= b.out_of_order;
            sequential = [
                sequential[0] - b.sequential[0],
                sequential[1] - b.sequential[1],
            ];
        }
        let ec = nand.erase_counts();
        Summary {
            workload_notes: match &self.run_notes {
                None => self.notes.clone(),
                Some(r) => {
                    let r = r.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    self.notes.iter().chain(r.iter()).cloned().collect()
                }
            },
            sim_time_s: end.as_secs_f64(),
            window: WindowSummary {
                from_s: from.as_secs_f64(),
                to_s: to.as_secs_f64(),
                seconds: secs,
            },
            requests_issued: issued,
            requests_completed: completed,
            requests_failed: self.rec.failed_requests,
            host_read_bytes: self.rec.read.bytes,
            host_write_bytes,
            host_trim_bytes: self.rec.trim.bytes,
            nand_program_bytes: n.programs * ps,
            nand_read_bytes: (n.reads - n.partial_reads) * ps
                + n.partial_reads * nand.partial_unit().unwrap_or(0) as u64,
            waf: (host_write_bytes > 0).then(|| (n.programs * ps) as f64 / host_write_bytes as f64),
            nand_reads: n.reads,
            nand_partial_reads: n.partial_reads,
            nand_programs: n.programs,
            erases: n.erases,
            copybacks: n.copybacks,
            gc_invocations: f.gc_invocations,
            gc_pages_migrated: f.gc_pages_migrated,
            gc_blocks_erased: f.gc_blocks_erased,
            gc_background_blocks: f.gc_background_blocks,
            trimmed_pages: f.trimmed_pages,
            unmapped_page_reads: c.unmapped_page_reads,
            rmw_page_reads: c.rmw_page_reads,
            rmw_units: c.rmw_units,
            buffer_full_waits: c.buffer_full_waits,
            verified_page_reads: c.verified_page_reads,
            arrivals_out_of_order: out_of_order,
            sequential_reads: sequential[0],
            sequential_writes: sequential[1],
            read: self.op_summary(Op::Read, secs),
            write: self.op_summary(Op::Write, secs),
            trim: OpSummary::new(&self.rec.trim, None, secs),
            energy: EnergySummary {
                nand_read_j: j(n.read_energy_pj),
                nand_program_j: j(n.program_energy_pj),
                nand_erase_j: j(n.erase_energy_pj),
                channel_transfer_j: j(n.transfer_energy_pj),
                // Each counter saturates on its own; so does their sum.
                total_j: j(n
                    .read_energy_pj
                    .saturating_add(n.program_energy_pj)
                    .saturating_add(n.erase_energy_pj)
                    .saturating_add(n.transfer_energy_pj)),
            },
            wear: WearSummary {
                erase_count_mean: ec.iter().map(|&e| e as u64).sum::<u64>() as f64
                    / ec.len() as f64,
                erase_count_min: ec.iter().copied().min().unwrap_or(0),
                erase_count_max: ec.iter().copied().max().unwrap_or(0),
            },
            free_blocks_end: free,
            logical_capacity_bytes: logical,
            physical_capacity_bytes: physical,
            precondition: self.precondition,
            content: self.content.as_ref().map(ContentModel::summary),
            stack: match &self.target {
                Target::Stack(st) => Some(st.summary(to)),
                Target::Ssd(_) => None,
            },
            mapping_table_bytes: match &self.target {
                Target::Ssd(_) => Some(crate::device::compress::mapping_table_bytes(&self.cfg)),
                Target::Stack(_) => None,
            },
            compression: self.compression_counters().map(|c| {
                match self.base.and_then(|b| b.comp) {
                    Some(b) => minus(&c, &b, &["split_live_max"]),
                    None => c,
                }
            }),
            dedup: match &self.target {
                Target::Ssd(d) => d
                    .ftl
                    .dedup
                    .as_ref()
                    .zip(self.dedup_counters())
                    .map(|(m, c)| {
                        let c = match self.base.and_then(|b| b.dedup) {
                            Some(b) => c.minus(&b),
                            None => c,
                        };
                        crate::ftl::dedup::DedupSummary::new(c, m)
                    }),
                Target::Stack(_) => None,
            },
            map_cache: match (self.map_counters(), self.index_counters()) {
                (None, None) => None,
                (m, i) => Some((m.unwrap_or_default(), i)),
            }
            .map(|(c, i)| {
                let c = match self.base.and_then(|b| b.map) {
                    Some(b) => minus(&c, &b, &[]),
                    None => c,
                };
                let i = i.map(|i| match self.base.and_then(|b| b.index) {
                    Some(b) => minus(&i, &b, &[]),
                    None => i,
                });
                let mut m = crate::ftl::mapcache::MapCacheSummary::new(
                    &self.cfg,
                    c,
                    f.host_pages_written,
                    (
                        self.rec.read.requests,
                        self.rec.read.latency_sum_ns,
                        self.rec.read_split.map_ns,
                    ),
                    i,
                );
                if matches!(self.target, Target::Stack(_)) {
                    // A stack's reads are the file system's; the CCSD does not split them.
                    m.read_translation_mean_us = None;
                    m.read_data_mean_us = None;
                }
                m
            }),
            split_table_bytes: self
                .cfg
                .ftl
                .compression()
                .filter(|c| c.split.is_some())
                .zip(self.compression_counters())
                .map(|(_, k)| {
                    crate::device::compress::split_table_bytes(&self.cfg, k.packer.split_live_max)
                }),
            fdp: match &self.target {
                Target::Ssd(d) => d.ftl.fdp.as_ref().map(|f| {
                    let c = match &self.fdp_base {
                        Some(b) => crate::ftl::fdp::minus(&f.counters, b),
                        None => f.counters.clone(),
                    };
                    crate::ftl::fdp::FdpSummary::new(&self.cfg, f, &c)
                }),
                Target::Stack(_) => None,
            },
            zns: self
                .ssd()
                .and_then(|d| d.zns.as_ref().map(|z| (d, z)))
                .zip(self.zns_counters())
                .map(|((d, z), c)| {
                    z.summary(
                        match self.base.and_then(|b| b.zns) {
                            Some(b) => minus(&c, &b, &[]),
                            None => c,
                        },
                        d.compression.as_ref(),
                    )
                }),
            controller: {
                let (last, planes) = match (&self.target, self.ssd()) {
                    (_, Some(d)) => (d.sched.last_activity(), d.nand.geo.planes),
                    (Target::Stack(st), None) => {
                        let c = Self::stack_ccsd(st);
                        (c.backend().sched().last_activity(), c.nand().geo.planes)
                    }
                    (Target::Ssd(_), None) => unreachable!("a device run has its SSD"),
                };
                {
                    let quiet = last.max(to);
                    let plane_ns = planes as f64 * (quiet.0 - from.0) as f64;
                    let frac = |ns: u64| {
                        if plane_ns > 0.0 {
                            ns as f64 / plane_ns
                        } else {
                            0.0
                        }
                    };
                    Some(ControllerSummary {
                        counters: sched,
                        flash_quiet_s: quiet.as_secs_f64(),
                        plane_busy_fraction: frac(n.array_busy_ns),
                        gc_busy_fraction: frac(n.gc_busy_ns),
                    })
                }
            },
        }
    }

    fn op_summary(&self, op: Op, secs: f64) -> OpSummary {
        let r = &self.rec;
        let (t, h, split, gh) = match op {
            Op::Read => (&r.read, &r.read_hist, &r.read_split, &r.read_gc_hist),
            _ => (&r.write, &r.write_hist, &r.write_split, &r.write_gc_hist),
        };
        let s = OpSummary::new(t, Some(h), secs);
        match &self.target {
            Target::Ssd(_) => s.with_split(t, split, gh),
            Target::Stack(_) => s,
        }
    }

    /// Step to the end and finish.
    pub fn run(mut self) -> Result<RunReport> {
        while !self.step(1 << 20)? {}
        self.finish()
    }
}

/// The pattern a layout of `pattern` in pieces of `piece` bytes writes, and whether it is the
/// pattern restarted every piece ([`crate::content::Pattern::restarted`]). Within a mapping
/// unit a content id's blocks continue the pattern's phase ([`crate::content::nth_id`]);
/// when the unit is larger than the piece, fio's pieces start the pattern afresh inside it
/// (`extend_file` fills each from the pattern's start), so the unit holds the restarted
/// pattern. Otherwise every unit lies in one piece (or pieces a multiple of the pattern's
/// length restart nothing) and holds the pattern's own blocks, the ids the job's writes use.
fn laid_pattern(
    pattern: &crate::content::Pattern,
    piece: u64,
    cfg: &SimConfig,
) -> (crate::content::Pattern, bool) {
    let piece = piece.max(4096);
    match (cfg.mapping_unit() as u64 > piece)
        .then(|| pattern.restarted(piece))
        .flatten()
    {
        Some(r) => (r, true),
        None => (pattern.clone(), false),
    }
}

/// Untimed steady-state fill: sequential writes over `fill_fraction` of the logical space (on
/// a zoned device: of its writable zones, zone by zone, see [`crate::device::zns::fill_plan`]),
/// then `aging_fraction` x that many random single-page overwrites inside it, then the
/// workload's layout (`layout`: byte ranges a fio job's files occupy that fio writes before
/// the job starts), page by page in order, skipping pages the fill already wrote (a layout of
/// a stream's own content draws it from `streams`). GC runs as
/// usual, but no time passes; reservations and counters are reset afterwards, wear is kept:
/// none of it is in the run's statistics. The aging's write amplification is recorded in
/// `windows` of 1% of the filled units each.
fn precondition(
    cfg: &SimConfig,
    dev: &mut Device,
    layout: &[(u64, u64, LayoutFill)],
    streams: &mut [Stream],
    mut cm: Option<&mut ContentModel>,
    stop: &mut Interrupt<'_>,
    windows: &mut Vec<AgingWindow>,
) -> Result<PreconditionSummary> {
    let p = &cfg.precondition;
    // The logical pages the fill writes, in order: the first of the logical space, or on a
    // zoned device the zones a sequential host fills ([`crate::device::zns::fill_plan`]).
    let fill: Vec<(u64, u64)> = match &cfg.zns {
        None => vec![(
            0,
            (p.fill_fraction * dev.logical_pages() as f64).floor() as u64,
        )],
        Some(z) => {
            let zone_pages = z.zone_size_bytes(&cfg.nand) / cfg.nand.page_size as u64;
            crate::device::zns::fill_plan(z, &cfg.nand, p.fill_fraction)
                .into_iter()
                .enumerate()
                .map(|(i, n)| (i as u64 * zone_pages, n))
                .collect()
        }
    };
    let pages: u64 = fill.iter().map(|&(_, n)| n).sum();
    let aging = (p.aging_fraction * pages as f64).round() as u64;
    let mut content = PRECONDITION_CONTENT_BASE;
    for &(first, n) in &fill {
        for lpn in first..first + n {
            content += 1;
            dev.write_untimed(Lpn(lpn), Untimed::Fill(content), cm.as_deref_mut())?;
            stop.poll()?;
        }
    }
    dev.close_zones_after_fill();
    if pages > 0 {
        let mut rng = Pcg64Mcg::seed_from_u64(cfg.seed ^ 0x7072_6563_6f6e_6469);
        let window = pages.div_ceil(AGING_WINDOWS_PER_OVERWRITE);
        let bytes_per_program = cfg.nand.page_size as f64 / cfg.mapping_unit() as f64;
        let mut start = (
            0u64,
            dev.nand.counters.programs,
            dev.ftl.counters.gc_pages_migrated,
        );
        for i in 1..=aging {
            content += 1;
            let lpn = rng.random_range(0..pages);
            dev.write_untimed(Lpn(lpn), Untimed::Fill(content), cm.as_deref_mut())?;
            stop.poll()?;
            if i % window == 0 || i == aging {
                let (programs, moved) = (
                    dev.nand.counters.programs,
                    dev.ftl.counters.gc_pages_migrated,
                );
                let writes = i - start.0;
                windows.push(AgingWindow {
                    aged_fraction: i as f64 / pages as f64,
                    writes,
                    programs: programs - start.1,
                    gc_pages_migrated: moved - start.2,
                    waf: (programs - start.1) as f64 * bytes_per_program / writes as f64,
                });
                start = (i, programs, moved);
            }
        }
    }
    // A zoned device is written through its zones only (its fill above goes zone by zone):
    // nothing is laid out (fio's zonemode=zbd does not lay out files either), and its reads
    // of never-written blocks are counted as on any device.
    let unit = cfg.mapping_unit() as u64;
    let mut laid_pages = 0u64;
    if dev.zns.is_none() {
        for (addr, len, fill) in layout {
            let (addr, len) = (*addr, *len);
            let first = (addr / unit).max(pages);
            let end = addr
                .saturating_add(len)
                .div_ceil(unit)
                .min(dev.logical_pages());
            let (piece, stream) = match fill {
                LayoutFill::Stream { stream, piece } => ((*piece).max(4096), Some(*stream)),
                LayoutFill::Pattern { piece, .. } => ((*piece).max(4096), None),
            };
            // A pattern's first id and whether its pieces restart it inside a unit, once per
            // range (the restarted pattern is built and hashed, not per page).
            let (pattern_first, restarted) = match fill {
                LayoutFill::Pattern { pattern, .. } => {
                    let (p, restarted) = laid_pattern(pattern, piece, cfg);
                    (p.first_id(), restarted)
                }
                LayoutFill::Stream { .. } => (0, false),
            };
            // The pieces drawn so far (fio's `extend_file` fills one buffer per piece) and the
            // last one's first block's content id. Every piece is drawn in order, written or
            // not (those the preconditioning's fill covers, those inside a larger unit, those
            // past the device's end), so the job's content goes on as fio's buffer state does.
            let mut drawn = 0u64;
            let mut last_id = 0u64;
            let mut draw_upto = |k: u64, streams: &mut [Stream], last_id: &mut u64| {
                if let Some(s) = stream {
                    while drawn <= k.min(len.div_ceil(piece).saturating_sub(1)) {
                        let bytes = piece.min(len - drawn * piece);
                        *last_id = streams[s].source.setup_content(bytes);
                        drawn += 1;
                    }
                }
            };
            for lpn in first..end {
                let at = (lpn * unit).saturating_sub(addr);
                let k = at / piece;
                // A unit's content id is its first 4 KiB block's ([`crate::content::nth_id`]
                // gives the rest, continuing that piece's content across the unit).
                let id = match fill {
                    LayoutFill::Stream { .. } => {
                        draw_upto(k, streams, &mut last_id);
                        crate::content::nth_id(last_id, (at % piece) / 4096)
                    }
                    LayoutFill::Pattern { .. } => {
                        let off = if restarted { at } else { at % piece };
                        crate::content::nth_id(pattern_first, off / 4096)
                    }
                };
                let data = Untimed::Host {
                    block: id,
                    stream: stream.unwrap_or(0),
                };
                dev.write_untimed(Lpn(lpn), data, cm.as_deref_mut())?;
                laid_pages += 1;
                stop.poll()?;
            }
            draw_upto(u64::MAX, streams, &mut last_id);
        }
    }
    let s = PreconditionSummary {
        fill_pages: pages,
        aging_pages: if pages > 0 { aging } else { 0 },
        layout_bytes: laid_pages * unit,
        erases: dev.nand.counters.erases,
        gc_pages_migrated: dev.ftl.counters.gc_pages_migrated,
    };
    dev.reset_after_precondition();
    Ok(s)
}
