//! The compression-capable computational SSD (CCSD) of the Waltz seed (§2.2, §3.1): a
//! hardware engine compresses each 4 KiB logical block on its own; the variable-length
//! outputs are packed into flash pages in controller DRAM (`packed`); the map keeps each
//! block's page, offset and length ([`map`]); the logical space is `logical_ratio` times the
//! physical user space and the device reports its physical usage ([`Disk::space`]); a
//! thermal model ([`thermal`]) drives SMART temperature, throttling of the engine and a
//! thermal-emergency shutdown.
//!
//! Memory: 8 bytes of map entry per logical block of every 64 Ki-block range ever written
//! (256 MiB of logical space costs 512 KiB), 4 bytes per chunk in its erase block's LBA
//! list until that block is erased, and about 60 bytes per erase block. A log-structured
//! host writing 1 TB into a 200 GiB partition thus needs about 0.4 GiB of map and 12 bytes
//! per live chunk in all.

pub mod engine;
pub mod flash;
pub mod thermal;

use crate::codec::{CodecKind, CostModel};
use crate::config::{SimConfig, StackConfig};
use crate::content::{ContentModel, MeasureId};
use crate::error::{Error, Result};
use crate::ftl::packed::{map, Packed};
use crate::nand::Nand;
use crate::stack::bio::{Bio, BioDone, BioFlags, BioOp, Disk, Smart, SpaceReport, BLOCK};
use crate::units::{duration_ns, ns_per_byte, SimTime, MAX_OP_NS, MAX_PERIOD_NS};
use engine::Engine;
use flash::Flash;
use thermal::Thermal;

/// What the CCSD counted since it was built or last reset. Energies are in joules.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CcsdCounters {
    /// Blocks written by the host (all kinds).
    pub host_write_blocks: u64,
    /// Blocks the engine compressed.
    pub engine_compress_blocks: u64,
    /// Blocks the engine decompressed.
    pub engine_decompress_blocks: u64,
    /// Engine lane time (ns), including throttled slow-down.
    pub engine_busy_ns: u64,
    /// Engine energy (pJ).
    pub engine_energy_pj: u64,
    /// Written blocks the host had compressed (stored as they are, engine bypassed).
    pub host_compressed_blocks: u64,
    /// Written blocks stored raw without the engine: flagged incompressible, or the engine
    /// is off.
    pub incompressible_blocks: u64,
    /// Blocks the engine compressed to 4096 bytes or more, stored raw.
    pub raw_stored_blocks: u64,
    /// Logical bytes written by the host (4 KiB per block).
    pub logical_bytes_written: u64,
    /// Chunk bytes of host writes placed into pages.
    pub stored_bytes_written: u64,
    /// Page bytes left empty by packing host pages.
    pub pad_bytes: u64,
    /// Page bytes left empty by packing GC pages.
    pub gc_pad_bytes: u64,
    /// Pages programmed with host chunks.
    pub pages_programmed_host: u64,
    /// Pages programmed by GC.
    pub pages_programmed_gc: u64,
    /// GC episodes.
    pub gc_invocations: u64,
    /// Valid chunks GC moved.
    pub gc_chunks_migrated: u64,
    /// Bytes of those chunks.
    pub gc_bytes_migrated: u64,
    /// Victim pages GC read.
    pub gc_pages_read: u64,
    /// Blocks GC erased.
    pub gc_blocks_erased: u64,
    /// Host pages that waited for a DRAM buffer slot.
    pub buffer_full_waits: u64,
    /// Blocks read by the host.
    pub host_read_blocks: u64,
    /// Of those, unmapped blocks answered with zeros.
    pub unmapped_read_blocks: u64,
    /// Of those, blocks with data (or, straddling, part of it) in a page still in DRAM.
    pub dram_read_blocks: u64,
    /// NAND pages read for host reads.
    pub host_pages_read: u64,
    /// Mapped blocks discarded by TRIM.
    pub trimmed_blocks: u64,
    /// Time spent throttled (ns).
    pub throttled_ns: u64,
    /// When throttling first started (ns).
    pub first_throttle_ns: Option<u64>,
    /// When the device shut down (ns).
    pub shutdown_ns: Option<u64>,
    /// Requests failed because the device had shut down.
    pub failed_ios: u64,
    /// Highest temperature reached (°C).
    pub max_temperature_c: f64,
    /// Controller idle energy (J).
    pub energy_idle_j: f64,
    /// NAND energy: reads, programs, erases, channel transfers (J).
    pub energy_nand_j: f64,
    /// Engine energy (J).
    pub energy_engine_j: f64,
    /// Host-link data-path energy (J).
    pub energy_link_j: f64,
    /// Leakage energy (J).
    pub energy_leak_j: f64,
    /// Sum of the above (J).
    pub energy_total_j: f64,
}

/// A CCSD's physical user space (the array less `ftl.op_ratio`, bytes) and its logical
/// space (that times `stack.ccsd.logical_ratio`, in 4 KiB blocks) for a config.
pub fn space_of(cfg: &SimConfig, st: &StackConfig) -> (u64, u64) {
    let n = &cfg.nand;
    let capacity = n.channels as u64
        * n.chips_per_channel as u64
        * n.dies_per_chip as u64
        * n.planes_per_die as u64
        * n.blocks_per_plane as u64
        * n.pages_per_block as u64
        * n.page_size as u64;
    let user_bytes = (capacity as f64 * (1.0 - cfg.ftl.op_ratio)).floor() as u64;
    let logical_blocks = (user_bytes as f64 * st.ccsd.logical_ratio / BLOCK as f64).floor() as u64;
    (user_bytes, logical_blocks)
}

/// The CCSD.
pub struct Ccsd {
    flash: Flash,
    /// Flash work is booked at once, untimed (the file system's layout before the run).
    untimed: bool,
    ftl: Packed,
    engine: Engine,
    thermal: Thermal,
    engine_on: bool,
    codec: CodecKind,
    measure: Option<MeasureId>,
    logical_blocks: u64,
    user_bytes: u64,
    /// Link time per byte (ns).
    link_ns_per_byte: f64,
    overhead_ns: u64,
    timeout_ns: u64,
    link_to_device: SimTime,
    link_to_host: SimTime,
    /// Host-link energy per byte (pJ).
    link_pj_per_byte: f64,
    link_pj: f64,
    nand_pj_seen: u64,
    pages: Vec<u32>,
    page_ready: Vec<SimTime>,
    c: CcsdCounters,
}

fn nand_pj(n: &Nand) -> u64 {
    let c = &n.counters;
    c.read_energy_pj + c.program_energy_pj + c.erase_energy_pj + c.transfer_energy_pj
}

impl Ccsd {
    /// Build from the run's config (NAND geometry `cfg.nand`; physical OP, GC threshold and
    /// victim policy, striping and DRAM buffer from `cfg.ftl`; host link from `cfg.host`) and
    /// the `[stack.ccsd]` table. Registers the engine's measure (`st.ccsd.codec` at 4096
    /// bytes) in `content` when given. `throttling`: whether the device throttles its engine
    /// by itself (false when the host manages temperature); shutdown at `emergency_c` is
    /// always active.
    pub fn new(
        cfg: &SimConfig,
        st: &StackConfig,
        content: Option<&mut ContentModel>,
        throttling: bool,
    ) -> Result<Ccsd> {
        let d = &st.ccsd;
        let codec: CodecKind = d.codec.parse().map_err(|_| {
            Error::config(
                "stack",
                "stack.ccsd.codec",
                format!("unknown codec `{}`", d.codec),
            )
        })?;
        let cost = d.cost.unwrap_or_else(|| CostModel::engine_default(codec));
        let CostModel::Engine {
            lanes, active_mw, ..
        } = cost
        else {
            return Err(Error::config(
                "stack",
                "stack.ccsd.cost",
                "expected an engine cost model",
            ));
        };
        // One engine unit is one 4 KiB block (the CCSD compresses each block on its own).
        let (compress_ns, decompress_ns) = (cost.compress_ns(BLOCK), cost.decompress_ns(BLOCK));
        let op = |key: &str, ns: u64| duration_ns(key, ns as f64, 1.0, MAX_OP_NS);
        op("stack.ccsd.cost.compress_ns", compress_ns)?;
        op("stack.ccsd.cost.decompress_ns", decompress_ns)?;
        let thermal_step_ns = duration_ns(
            "stack.ccsd.thermal.step_ms",
            d.thermal.step_ms,
            1e6,
            MAX_PERIOD_NS,
        )?
        .max(1);
        let link_ns_per_byte = ns_per_byte("host.link_mb_per_s", cfg.host.link_mb_per_s)?;
        let overhead_ns = op("host.command_overhead_ns", cfg.host.command_overhead_ns)?;
        let timeout_ns = duration_ns(
            "stack.ccsd.io_timeout_ms",
            d.io_timeout_ms,
            1e6,
            MAX_PERIOD_NS,
        )?;
        let cfg_err = |key: &str, msg: String| Err(Error::config("stack", key, msg));
        if lanes == 0 {
            return cfg_err("stack.ccsd.cost.lanes", "expected at least one lane".into());
        }
        if !(d.throttle_speed > 0.0 && d.throttle_speed <= 1.0) {
            return cfg_err(
                "stack.ccsd.throttle_speed",
                format!("expected a fraction in (0, 1], got {}", d.throttle_speed),
            );
        }
        if !(d.logical_ratio >= 1.0 && d.logical_ratio.is_finite()) {
            return cfg_err(
                "stack.ccsd.logical_ratio",
                format!("expected a ratio >= 1, got {}", d.logical_ratio),
            );
        }
        let th = &d.thermal;
        if !(th.tau_s > 0.0 && th.step_ms > 0.0 && th.r_c_per_w > 0.0 && th.leak_scale_c > 0.0) {
            return cfg_err(
                "stack.ccsd.thermal",
                "expected positive tau_s, step_ms, r_c_per_w and leak_scale_c".into(),
            );
        }
        let n = &cfg.nand;
        if n.page_size < BLOCK as u32 || n.page_size > 1 << 16 {
            return Err(Error::config(
                "config",
                "nand.page_size",
                format!(
                    "the CCSD packs 4096-byte blocks into pages of 4096..=65536 bytes, got {}",
                    n.page_size
                ),
            ));
        }
        let nand = Nand::new(n)?;
        let (user_bytes, logical_blocks) = space_of(cfg, st);
        if logical_blocks >= u32::MAX as u64 {
            return cfg_err(
                "stack.ccsd.logical_ratio",
                format!(
                    "{logical_blocks} logical blocks exceed the CCSD's 2^32 - 1 block address \
                     space (16 TiB)"
                ),
            );
        }
        let g = &nand.geo;
        // Open blocks: host and GC, and the translation pages' with a demand-paged map,
        // whose pages on flash also come out of the space.
        let tpages = crate::ftl::mapcache::translation_pages(cfg);
        let reserve = crate::ftl::gc_threshold_blocks(cfg) + 2 + (tpages > 0) as u64;
        let usable = (g.blocks_per_plane as u64).saturating_sub(reserve)
            * g.planes as u64
            * g.pages_per_block as u64
            * g.page_size as u64;
        if user_bytes + tpages * g.page_size as u64 > usable {
            return Err(Error::config(
                "config",
                if tpages > 0 {
                    "ftl.map_cache"
                } else {
                    "ftl.op_ratio"
                },
                format!(
                    "user space of {user_bytes} bytes{} exceeds the {usable} bytes left after \
                     the CCSD's GC reserve and open blocks; raise ftl.op_ratio",
                    if tpages > 0 {
                        format!(" with {tpages} translation pages of the demand-paged map")
                    } else {
                        String::new()
                    }
                ),
            ));
        }
        let ftl = Packed::new(cfg, g, logical_blocks, d.straddle, d.max_chunks_per_page)?;
        if d.straddle && cfg.ftl.write_buffer_pages == 1 {
            // A straddling chunk opens the next page while the full one still holds the slot.
            return Err(Error::config(
                "config",
                "ftl.write_buffer_pages",
                "a CCSD that straddles chunks (stack.ccsd.straddle) holds two pages in DRAM at \
                 once; expected 0 (unbuffered) or at least 2 pages"
                    .to_string(),
            ));
        }
        let mut flash = Flash::new(cfg, nand)?;
        flash.reset(|p| ftl.free_in_plane(p));
        let measure = match content {
            Some(c) => Some(c.add_measure(codec, BLOCK as u32, "stack.ccsd")?),
            None => None,
        };
        let engine = Engine::new(
            lanes,
            compress_ns,
            decompress_ns,
            active_mw,
            d.throttle_speed,
            d.throttle_power,
        );
        let thermal = Thermal::new(
            th,
            thermal_step_ns,
            throttling,
            d.throttle_c,
            d.throttle_release_c,
            d.emergency_c,
        );
        let mut c = CcsdCounters {
            max_temperature_c: thermal.max_temp,
            ..CcsdCounters::default()
        };
        c.shutdown_ns = thermal.shutdown_at.map(|t| t.0);
        c.first_throttle_ns = thermal.first_throttle.map(|t| t.0);
        Ok(Ccsd {
            flash,
            untimed: false,
            ftl,
            engine,
            thermal,
            engine_on: true,
            codec,
            measure,
            logical_blocks,
            user_bytes,
            link_ns_per_byte,
            overhead_ns,
            timeout_ns,
            link_to_device: SimTime::ZERO,
            link_to_host: SimTime::ZERO,
            // W per GB/s = J per GB = 1e12 pJ / 1e9 bytes.
            link_pj_per_byte: th.link_w_per_gb_s * 1e3,
            link_pj: 0.0,
            nand_pj_seen: 0,
            pages: Vec::new(),
            page_ready: Vec::new(),
            c,
        })
    }

    /// Turn the engine on or off. Off, the device is a plain SSD ("CCSD without
    /// compression", the F2FSC scheme): writes are stored raw and the engine draws no power.
    /// Chunks written compressed while it was on are still decompressed by it on reads.
    pub fn set_engine_enabled(&mut self, on: bool) {
        self.engine_on = on;
    }

    /// Counters since the device was built or last reset.
    pub fn counters(&self) -> CcsdCounters {
        let mut c = self.c;
        let f = &self.ftl.counters;
        c.pad_bytes = f.pad_bytes;
        c.gc_pad_bytes = f.gc_pad_bytes;
        c.pages_programmed_host = f.pages_programmed_host;
        c.pages_programmed_gc = f.pages_programmed_gc;
        c.gc_invocations = f.gc_invocations;
        c.gc_chunks_migrated = f.gc_chunks_migrated;
        c.gc_bytes_migrated = f.gc_bytes_migrated;
        c.gc_pages_read = f.gc_pages_read;
        c.gc_blocks_erased = f.gc_blocks_erased;
        c.buffer_full_waits = f.buffer_full_waits;
        c.trimmed_blocks = f.trimmed_blocks;
        c.engine_busy_ns = self.engine.busy_ns;
        c.engine_energy_pj = self.engine.energy_pj;
        let t = &self.thermal;
        c.throttled_ns = t.throttled_ns;
        c.first_throttle_ns = t.first_throttle.map(|t| t.0);
        c.shutdown_ns = t.shutdown_at.map(|t| t.0);
        c.max_temperature_c = t.max_temp;
        c.energy_idle_j = t.idle_j();
        c.energy_leak_j = t.leak_j();
        c.energy_nand_j = nand_pj(&self.flash.nand) as f64 * 1e-12;
        c.energy_engine_j = self.engine.energy_pj as f64 * 1e-12;
        c.energy_link_j = self.link_pj * 1e-12;
        c.energy_total_j = c.energy_idle_j
            + c.energy_leak_j
            + c.energy_nand_j
            + c.energy_engine_j
            + c.energy_link_j;
        c
    }

    /// The time the thermal model is integrated to and the energy it dissipated by then (J;
    /// the power that heats the device, integrated).
    pub fn heat(&self) -> (SimTime, f64) {
        self.thermal.heat()
    }

    /// Whether nothing happens in the device after `at` until a new command or a thermal
    /// threshold: no flash work queued, no energy booked since the thermal model was
    /// integrated to `at` (by [`Disk::advance`]). Then advancing once over an idle stretch
    /// from `at` gives the same state as advancing at every thermal step of it.
    pub fn idle_at(&self, at: SimTime) -> bool {
        !self.untimed
            && self.flash.idle()
            && self.engine.pending_pj == 0
            && nand_pj(&self.flash.nand) == self.nand_pj_seen
            && self.thermal.settled_at(at)
    }

    /// Erased blocks ready for writing.
    pub fn free_blocks(&self) -> u64 {
        self.ftl.free_blocks()
    }

    /// The NAND array (timing, counters, wear).
    pub fn nand(&self) -> &Nand {
        &self.flash.nand
    }

    /// The controller back end (its counters: suspensions, GC steps).
    pub fn backend(&self) -> &Flash {
        &self.flash
    }

    /// Book flash work at once, untimed, until [`Ccsd::reset_after_fill`]: for laying out
    /// and filling the file system before the run.
    pub fn begin_untimed_fill(&mut self) {
        self.untimed = true;
    }

    /// The engine's codec.
    pub fn codec(&self) -> CodecKind {
        self.codec
    }

    /// After an untimed fill (submits at time 0): forget all queued work, NAND, engine and
    /// energy counters, and put the thermal state back to the initial temperature at time
    /// zero; the mapping, the data and the wear stay. Flash work is timed from here on.
    pub fn reset_after_fill(&mut self) {
        self.untimed = false;
        self.flash.nand.reset_counters();
        self.ftl.reset_time_and_counters();
        let ftl = &self.ftl;
        self.flash.reset(|p| ftl.free_in_plane(p));
        if self.ftl.host_page_open() {
            // The page the fill left open in DRAM holds a buffer slot until it is programmed.
            use crate::ftl::packed::PackedBackend;
            self.flash.buffer_slot();
        }
        self.engine.reset();
        self.thermal.reset();
        self.link_to_device = SimTime::ZERO;
        self.link_to_host = SimTime::ZERO;
        self.link_pj = 0.0;
        self.nand_pj_seen = 0;
        self.c = CcsdCounters::default();
    }

    /// Check internal consistency: valid bytes per block against the mapped chunks in it,
    /// every mapped LBA inside a written page of a non-free block and listed in its block,
    /// free-pool accounting.
    pub fn check_invariants(&self) -> Result<()> {
        self.ftl.check()
    }

    /// The demand-paged chunk map's counters (`ftl.map_cache`), if the map is paged.
    pub fn map_counters(&self) -> Option<crate::ftl::mapcache::MapCacheCounters> {
        self.ftl.map_counters()
    }

    /// Book the translation reads the map cache asked for on the NAND array, untimed.
    fn book_map_reads_untimed(&mut self) {
        for &p in self.ftl.map_reads() {
            self.flash
                .nand
                .count_read(crate::units::Ppn(p as u64), false);
            self.flash.nand.count_transfer();
        }
    }

    /// Demand-paged chunk map: look up the entries of a request's blocks (`dirty`: a write)
    /// and queue the translation reads of those that missed from `cmd` on, tagged for the
    /// request to wait for; untimed, book them on the NAND array. Returns the reads queued
    /// (0 untimed).
    fn load_map(&mut self, bio: &Bio<'_>, dirty: bool, cmd: SimTime) -> usize {
        if self.ftl.paging.is_none() {
            return 0;
        }
        for lba in bio.lba..bio.lba + bio.blocks as u64 {
            self.ftl.map_lookup(lba, dirty);
        }
        let n = self.ftl.map_reads().len();
        if self.untimed {
            self.book_map_reads_untimed();
        } else if n > 0 {
            self.flash.begin(cmd);
            for &p in self.ftl.map_reads() {
                self.flash.read(crate::units::Ppn(p as u64));
            }
        }
        self.ftl.clear_map_reads();
        if self.untimed {
            0
        } else {
            n
        }
    }

    /// When the tagged translation reads [`Ccsd::load_map`] queued have all completed (no
    /// earlier than `cmd`); forgets the tags.
    fn map_loaded(&mut self, cmd: SimTime) -> SimTime {
        self.flash.wait();
        self.flash.take_last_done().unwrap_or(cmd).max(cmd)
    }

    /// Demand-paged chunk map, after each request: the translation reads no request waits
    /// for (TRIMs' misses) and the write-backs the cache asked for, queued at `at` (or booked
    /// untimed).
    fn map_background(&mut self, at: SimTime) -> Result<()> {
        if self.ftl.paging.is_none() {
            return Ok(());
        }
        if self.untimed {
            self.book_map_reads_untimed();
            self.ftl.clear_map_reads();
            return self.ftl.flush_map(at, &mut self.flash.nand);
        }
        self.flash.at(at);
        for &p in self.ftl.map_reads() {
            self.flash.read_untagged(crate::units::Ppn(p as u64));
        }
        self.ftl.clear_map_reads();
        self.ftl.flush_map(at, &mut self.flash)
    }

    #[inline]
    fn link_ns(&self, bytes: u64) -> u64 {
        // Round half up without a libm call (per block on the hot path).
        (bytes as f64 * self.link_ns_per_byte + 0.5) as u64
    }

    /// Integrate the thermal model to `t` with the energy booked so far (NAND work the back
    /// end has done, engine units, link transfers); nothing happens at or before the time it
    /// is integrated to (the energy waits for the next call).
    fn integrate(&mut self, t: SimTime) {
        let nand = nand_pj(&self.flash.nand);
        let booked = (nand - self.nand_pj_seen) + std::mem::take(&mut self.engine.pending_pj);
        self.nand_pj_seen = nand;
        self.thermal.book_pj(booked as f64);
        self.thermal.advance(t);
    }

    /// Run one engine unit (compress or decompress one block) whose input is in DRAM at
    /// `at`: on the earliest free lane, at the rate the thermal state gives while it runs,
    /// piece by piece where that state changes. Work queued a full thermal step or more
    /// beyond the time the model is integrated to integrates it forward there first (with
    /// the energy booked so far), so a throttle or a shutdown that begins while units are
    /// queued acts on them. `None`: the device shuts down before the unit ends; the command
    /// fails.
    fn engine_unit(&mut self, at: SimTime, decompress: bool) -> Option<SimTime> {
        let (lane, free) = self.engine.earliest_lane();
        let mut t = at.max(free);
        let mut left = self.engine.unit_ns(decompress) as f64;
        // No piece run yet: the whole unit's time and energy are the engine's precomputed ones.
        let mut whole = true;
        let (mut busy, mut pj) = (0u64, 0u64);
        loop {
            let state = if self.untimed {
                // The untimed layout before the run: the thermal model stands still.
                thermal::EngineState {
                    throttled: self.thermal.throttled,
                    until: None,
                }
            } else {
                let (last, step) = (self.thermal.last(), self.thermal.step_ns());
                if t.0 >= last.0 + step {
                    self.integrate(SimTime(last.0 + (t.0 - last.0) / step * step));
                }
                match self.thermal.engine_state(t) {
                    Some(s) => s,
                    None => {
                        self.engine.occupy(lane, t, busy, pj);
                        return None;
                    }
                }
            };
            let (d, d_pj) = if whole {
                self.engine.whole_unit(decompress, state.throttled)
            } else {
                let d = self.engine.run_ns(left, state.throttled);
                (d, self.engine.pj(d, state.throttled))
            };
            match state.until {
                Some(u) if t.0 + d > u.0 => {
                    let h = u.0 - t.0;
                    left -= self.engine.work_in(h, state.throttled);
                    busy += h;
                    pj += self.engine.pj(h, state.throttled);
                    t = u;
                    whole = false;
                }
                _ => {
                    busy += d;
                    pj += d_pj;
                    t = t + d;
                    break;
                }
            }
        }
        self.engine.occupy(lane, t, busy, pj);
        Some(t)
    }

    /// A command completing at `done` (timed): integrate the thermal model to then, so no
    /// later call can find the device shut down before a completion it has already given;
    /// whether it shut down by then (the command fails).
    fn down_before(&mut self, done: SimTime) -> bool {
        if self.untimed {
            return false;
        }
        self.integrate(done);
        self.thermal.down_by(done)
    }

    /// A command the shut-down device fails: the host sees its timeout.
    fn fail(&mut self, now: SimTime) -> BioDone {
        self.c.failed_ios += 1;
        BioDone {
            done: now + self.timeout_ns,
            failed: true,
            ..BioDone::default()
        }
    }

    fn write(
        &mut self,
        bio: &Bio<'_>,
        now: SimTime,
        cmd: SimTime,
        mut content: Option<&mut ContentModel>,
    ) -> Result<BioDone> {
        if bio.content.len() != bio.blocks as usize {
            return Err(Error::Workload(format!(
                "write of {} blocks at LBA {} carries {} content ids",
                bio.blocks,
                bio.lba,
                bio.content.len()
            )));
        }
        if self.measure.is_none() {
            if let Some(c) = content.as_deref_mut() {
                self.measure = Some(c.add_measure(self.codec, BLOCK as u32, "stack.ccsd")?);
            }
        }
        let bytes = bio.blocks as u64 * BLOCK;
        let start = cmd.max(self.link_to_device);
        self.link_to_device = start + self.link_ns(bytes);
        self.link_pj += bytes as f64 * self.link_pj_per_byte;
        self.thermal.book_pj(bytes as f64 * self.link_pj_per_byte);
        let host_compressed = bio.flags.has(BioFlags::HOST_COMPRESSED);
        let bypass = host_compressed || bio.flags.has(BioFlags::INCOMPRESSIBLE) || !self.engine_on;
        let stream = bio.stream as usize;
        let untimed = self.untimed;
        let buffered = self.flash.buffered() && !untimed;
        if !untimed {
            self.flash.begin(cmd);
        }
        let map_reads = self.load_map(bio, true, cmd);
        let mut done = cmd;
        let mut stored = 0u64;
        let mut written = 0u64;
        let mut down = false;
        for (i, &id) in bio.content.iter().enumerate() {
            let arrived = start + ((i + 1) as f64 * BLOCK as f64 * self.link_ns_per_byte) as u64;
            let (len, ready) = if bypass {
                (BLOCK as u32, arrived)
            } else {
                let size = match (content.as_deref_mut(), self.measure) {
                    (Some(c), Some(m)) => c.unit_size(m, stream, id, 1),
                    _ => BLOCK as u32,
                };
                let Some(end) = self.engine_unit(arrived, false) else {
                    // Shut down with the block in the engine: it and the rest are lost.
                    down = true;
                    break;
                };
                if size < BLOCK as u32 {
                    (size.max(1), end)
                } else {
                    self.c.raw_stored_blocks += 1;
                    (BLOCK as u32, end)
                }
            };
            stored += len as u64;
            written += 1;
            let lba = bio.lba + i as u64;
            let ack = if untimed {
                self.ftl.write_host(lba, len, ready, &mut self.flash.nand)?
            } else {
                // The chunk reaches the FTL when its data is in DRAM.
                self.flash.at(ready);
                self.ftl.write_host(lba, len, ready, &mut self.flash)?
            };
            if buffered {
                done = done.max(ack);
            }
        }
        if !buffered && !untimed {
            self.ftl.flush_host(&mut self.flash);
            self.flash.wait();
            if let Some(end) = self.flash.take_last_done() {
                done = done.max(end);
            }
        } else if untimed && !self.flash.buffered() {
            self.ftl.flush_host(&mut self.flash.nand);
        }
        if buffered && map_reads > 0 {
            done = done.max(self.map_loaded(cmd));
        }
        let n = written;
        let c = &mut self.c;
        c.host_write_blocks += n;
        c.logical_bytes_written += n * BLOCK;
        c.stored_bytes_written += stored;
        if host_compressed {
            c.host_compressed_blocks += n;
        } else if bypass {
            c.incompressible_blocks += n;
        } else {
            c.engine_compress_blocks += n;
        }
        if down || self.down_before(done) {
            return Ok(self.fail(now));
        }
        Ok(BioDone {
            done,
            ..BioDone::default()
        })
    }

    fn read(&mut self, bio: &Bio<'_>, now: SimTime, cmd: SimTime) -> BioDone {
        let host_dec = bio.flags.has(BioFlags::HOST_DECOMPRESS);
        // With a demand-paged map the data reads wait for the request's translation reads.
        let mapped = match self.load_map(bio, false, cmd) {
            0 => cmd,
            _ => self.map_loaded(cmd),
        };
        // Each distinct flash page of the range is read once, in page order.
        self.pages.clear();
        for lba in bio.lba..bio.lba + bio.blocks as u64 {
            let e = self.ftl.map.get(lba);
            if e == map::UNMAPPED {
                continue;
            }
            // A straddling chunk needs both its pages.
            for p in [Some(map::ppn(e)), self.ftl.tail_page(e)]
                .into_iter()
                .flatten()
            {
                if !self.ftl.in_dram(p) {
                    self.pages.push(p);
                }
            }
        }
        self.pages.sort_unstable();
        self.pages.dedup();
        self.page_ready.clear();
        if self.untimed {
            for &p in &self.pages {
                self.flash
                    .nand
                    .count_read(crate::units::Ppn(p as u64), false);
                self.flash.nand.count_transfer();
                self.page_ready.push(cmd);
            }
        } else if !self.pages.is_empty() {
            self.flash.begin(mapped);
            let first = self.flash.read(crate::units::Ppn(self.pages[0] as u64));
            for &p in &self.pages[1..] {
                self.flash.read(crate::units::Ppn(p as u64));
            }
            self.flash.wait();
            for k in 0..self.pages.len() {
                self.page_ready.push(self.flash.done(first + k as u32));
            }
            self.flash.clear_tags();
        }
        self.c.host_pages_read += self.pages.len() as u64;
        let mut done = BioDone::default();
        let mut ready = mapped;
        let mut link_bytes = 0u64;
        for lba in bio.lba..bio.lba + bio.blocks as u64 {
            let e = self.ftl.map.get(lba);
            if e == map::UNMAPPED {
                self.c.unmapped_read_blocks += 1;
                link_bytes += BLOCK;
                continue;
            }
            let mut at = mapped;
            let mut from_dram = false;
            for p in [Some(map::ppn(e)), self.ftl.tail_page(e)]
                .into_iter()
                .flatten()
            {
                match self.pages.binary_search(&p) {
                    Ok(k) => at = at.max(self.page_ready[k]),
                    Err(_) => from_dram = true,
                }
            }
            // A block counts as served from DRAM when any of its data was still there.
            self.c.dram_read_blocks += from_dram as u64;
            let len = map::len(e);
            if len < BLOCK as u32 {
                done.device_compressed_blocks += 1;
                if host_dec {
                    link_bytes += len as u64;
                    done.host_decompress_bytes += BLOCK;
                    done.host_decompress_stored += len as u64;
                    ready = ready.max(at);
                } else {
                    let Some(end) = self.engine_unit(at, true) else {
                        return self.fail(now);
                    };
                    ready = ready.max(end);
                    self.c.engine_decompress_blocks += 1;
                    link_bytes += BLOCK;
                }
            } else {
                link_bytes += BLOCK;
                ready = ready.max(at);
            }
        }
        self.c.host_read_blocks += bio.blocks as u64;
        let start = ready.max(self.link_to_host);
        self.link_to_host = start + self.link_ns(link_bytes);
        self.link_pj += link_bytes as f64 * self.link_pj_per_byte;
        self.thermal
            .book_pj(link_bytes as f64 * self.link_pj_per_byte);
        done.done = self.link_to_host;
        if self.down_before(done.done) {
            return self.fail(now);
        }
        done
    }
}

impl Disk for Ccsd {
    fn submit(
        &mut self,
        bio: &Bio<'_>,
        now: SimTime,
        content: Option<&mut ContentModel>,
    ) -> Result<BioDone> {
        if bio.blocks == 0
            || bio
                .lba
                .checked_add(bio.blocks as u64)
                .is_none_or(|end| end > self.logical_blocks)
        {
            return Err(Error::Workload(format!(
                "block I/O of {} blocks at LBA {} outside the CCSD's {} logical blocks",
                bio.blocks, bio.lba, self.logical_blocks
            )));
        }
        // The model may be integrated past `now` (to completions it has given): a shutdown
        // after `now` fails only the commands that would complete after it.
        if self.thermal.down_by(now) {
            return Ok(self.fail(now));
        }
        let cmd = now + self.overhead_ns;
        let done = match bio.op {
            BioOp::Write => self.write(bio, now, cmd, content),
            BioOp::Read => Ok(self.read(bio, now, cmd)),
            BioOp::Trim => {
                for lba in bio.lba..bio.lba + bio.blocks as u64 {
                    self.ftl.trim(lba, cmd);
                }
                Ok(BioDone {
                    done: cmd,
                    ..BioDone::default()
                })
            }
        }?;
        self.map_background(cmd)?;
        Ok(done)
    }

    fn logical_blocks(&self) -> u64 {
        self.logical_blocks
    }

    fn space(&self) -> SpaceReport {
        SpaceReport {
            logical_bytes: self.ftl.mapped * BLOCK,
            physical_bytes: self.ftl.valid_bytes,
            physical_capacity_bytes: self.user_bytes,
        }
    }

    fn smart(&self) -> Smart {
        Smart {
            temperature_c: self.thermal.temp,
            throttled: self.thermal.throttled,
            shutdown: self.thermal.shutdown,
        }
    }

    fn advance(&mut self, now: SimTime) {
        if !self.untimed {
            self.flash.run_to(now);
        }
        self.integrate(now);
        // Nothing is asked about times before the present any more.
        self.thermal.forget_before(now);
    }
}
