//! fio's zone modes (`zonemode`): `strided` on any device and `zbd` on a zoned (ZNS) device.
//!
//! `strided` (fio's `__fill_io_u_zone`, io_u.c): the job works in a window of `zonerange`
//! bytes (default `zonesize`) at `file_offset`; after `zonesize` bytes it moves the window on
//! by `zonerange + zoneskip`, back to the region's start once past the file's end. A
//! sequential job continues from its last position in the window (back to the window's start
//! when past it); a random job draws inside the window, its random map renewed every
//! `zonerange` bytes.
//!
//! `zbd` (fio's zbd.c, 3.33): the zones are the device's; fio reads their write pointers at the
//! start (`parse_zone_info`: a full zone's at its capacity; here a zoned device starts with
//! the zones `precondition.fill_fraction` wrote, else every zone empty) and tracks them itself. The job's
//! region is rounded to whole zones (offset up, end down). A write goes to the write pointer of
//! the zone its offset falls in, when that zone is open or can be opened under
//! `max_open_zones` / `job_max_open_zones`; otherwise to one of the open zones, picked from the
//! offset as fio does (`zbd_convert_to_open_zone`). A full zone written again is reset first
//! (fio quiesces, then resets); so is the chosen zone every `1/zone_reset_frequency` writes once
//! the region's valid data passes `zone_reset_threshold` of its size. A read goes below the
//! write pointer: a sequential read past it moves to the next zone with data, a random one
//! to the nearest, folded into the written part (`read_beyond_wp` reads as written). A zone
//! whose write pointer reaches its capacity is closed (no longer counted open).

use super::gen::{BsSpec, Mix, SourceSpec};
use super::parse::Opt;
use crate::error::Result;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// fio's own limit on open zones (`ZBD_MAX_OPEN_ZONES`).
const ZBD_MAX_OPEN_ZONES: u64 = 4096;

/// `zonemode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ZoneMode {
    None,
    Strided,
    Zbd,
}

/// A job's zone options, as written.
#[derive(Debug, Clone)]
pub(super) struct ZoneOpts {
    pub mode: ZoneMode,
    /// `zonesize` (0: not given).
    pub size: u64,
    /// `zonerange` (0: not given).
    pub range: u64,
    /// `zoneskip`.
    pub skip: u64,
    /// `max_open_zones` (0: the device's limit).
    pub max_open: u32,
    /// `job_max_open_zones` (0: none).
    pub job_max_open: u32,
    /// `zone_reset_threshold` and `zone_reset_frequency`.
    pub reset_threshold: f64,
    pub reset_frequency: f64,
    /// `read_beyond_wp`.
    pub read_beyond_wp: bool,
    /// `ignore_zone_limits`.
    pub ignore_limits: bool,
    /// Where `zonemode` (or else the first zone option) was written, for errors found when
    /// the device is known.
    pub at: Option<Opt>,
    /// Where `zonesize` and `max_open_zones` were written.
    pub size_at: Option<Opt>,
    pub max_open_at: Option<Opt>,
}

impl Default for ZoneOpts {
    fn default() -> Self {
        ZoneOpts {
            mode: ZoneMode::None,
            size: 0,
            range: 0,
            skip: 0,
            max_open: 0,
            job_max_open: 0,
            reset_threshold: 0.0,
            reset_frequency: 0.0,
            read_beyond_wp: false,
            ignore_limits: false,
            at: None,
            size_at: None,
            max_open_at: None,
        }
    }
}

/// The zoned device's zones, as fio learns them from the device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZonedDevice {
    /// Logical span of a zone (bytes).
    pub zone_size: u64,
    /// Writable bytes from a zone's start.
    pub zone_capacity: u64,
    /// Zones.
    pub zones: u64,
    /// The device's open-zone limit (0: none).
    pub max_open_zones: u32,
    /// The device compresses its zones (`zns.compression`): a zone takes as many blocks as
    /// its flash holds compressed, so its capacity is not known before it is written.
    pub compressed_zones: bool,
    /// Bytes below each zone's write pointer when the run starts, by zone (a preconditioned
    /// device's fill: full zones at their capacity, a closed one partly; empty: every zone
    /// empty). fio reads them from the device's zone report.
    pub written: Vec<u64>,
}

fn float01(o: &Opt) -> Result<f64> {
    let v = o.value()?.trim();
    v.parse::<f64>()
        .ok()
        .filter(|x| (0.0..=1.0).contains(x))
        .ok_or_else(|| o.err("expected a number between 0 and 1"))
}

/// Read the zone options of a job (`get`: the last value of each canonical option).
pub(super) fn resolve<'a>(
    get: &dyn Fn(&str) -> Option<&'a Opt>,
    mix: Mix,
    bs: &[BsSpec; 3],
) -> Result<ZoneOpts> {
    let size_of = |k: &str| -> Result<u64> {
        match get(k) {
            None => Ok(0),
            Some(o) => super::resolve::parse_size(o.value()?).map_err(|m| o.err(m)),
        }
    };
    let uint = |k: &str, max: u64| -> Result<u32> {
        match get(k) {
            None => Ok(0),
            Some(o) => {
                let n = super::resolve::parse_uint(o)?;
                if n > max {
                    return Err(o.err(format!("expected at most {max}")));
                }
                Ok(n as u32)
            }
        }
    };
    let mut z = ZoneOpts {
        size: size_of("zonesize")?,
        range: size_of("zonerange")?,
        skip: size_of("zoneskip")?,
        max_open: uint("max_open_zones", ZBD_MAX_OPEN_ZONES)?,
        job_max_open: uint("job_max_open_zones", ZBD_MAX_OPEN_ZONES)?,
        size_at: get("zonesize").cloned(),
        max_open_at: get("max_open_zones").cloned(),
        ..ZoneOpts::default()
    };
    for k in ["zone_reset_threshold", "zone_reset_frequency"] {
        if let Some(o) = get(k) {
            let x = float01(o)?;
            if k == "zone_reset_threshold" {
                z.reset_threshold = x;
            } else {
                z.reset_frequency = x;
            }
        }
    }
    if let Some(o) = get("read_beyond_wp") {
        z.read_beyond_wp = o.flag()?;
    }
    if let Some(o) = get("ignore_zone_limits") {
        z.ignore_limits = o.flag()?;
    }
    let mode_opt = get("zonemode");
    z.mode = match mode_opt.map(|o| o.value().map(str::trim)).transpose()? {
        None | Some("none") => ZoneMode::None,
        Some("strided") => ZoneMode::Strided,
        Some("zbd") => ZoneMode::Zbd,
        Some(v) => {
            return Err(mode_opt.expect("given").err(format!(
                "unknown zonemode `{v}` (expected none, strided or zbd)"
            )))
        }
    };
    z.at = mode_opt.cloned();
    let zbd_only = [
        "max_open_zones",
        "job_max_open_zones",
        "zone_reset_threshold",
        "zone_reset_frequency",
        "read_beyond_wp",
        "zonecapacity",
        "ignore_zone_limits",
    ];
    match z.mode {
        ZoneMode::None => {
            // fio 3.33 refuses a zone size without a zone mode.
            if let Some(o) = get("zonesize") {
                return Err(o.err("zonemode=none (the default) and zonesize are not compatible: set zonemode=strided or zonemode=zbd"));
            }
            for k in ["zonerange", "zoneskip"].iter().chain(zbd_only.iter()) {
                if let Some(o) = get(k) {
                    return Err(o.err("needs zonemode=strided or zonemode=zbd to mean anything"));
                }
            }
        }
        ZoneMode::Strided => {
            let Some(_) = get("zonesize").filter(|_| z.size > 0) else {
                let o = get("zonesize").or(mode_opt).expect("zonemode given");
                return Err(o.err("zonemode=strided needs a positive zonesize (the bytes to transfer in each zone)"));
            };
            if z.range == 0 {
                z.range = z.size;
            }
            for k in zbd_only {
                if let Some(o) = get(k) {
                    return Err(o.err("applies to zonemode=zbd only"));
                }
            }
        }
        ZoneMode::Zbd => {
            if let Some(o) = get("zoneskip").filter(|_| z.skip > 0) {
                return Err(o.err("zoneskip with zonemode=zbd is not supported (fio's HOWTO: it must be zero in this mode)"));
            }
            if let Some(o) = get("zonerange").filter(|_| z.range != 0 && z.range != z.size) {
                return Err(o.err("with zonemode=zbd, zonerange and zonesize must be identical"));
            }
            if let Some(o) = get("job_max_open_zones").filter(|_| z.job_max_open > 0) {
                if z.max_open == 0 {
                    return Err(o.err("job_max_open_zones cannot be used without a global open zones limit (max_open_zones)"));
                }
            }
            if matches!(mix, Mix::Trim | Mix::TrimWrite) {
                let o = get("rw").expect("trims need rw");
                return Err(o.err(
                    "trims with zonemode=zbd (fio resets the zone instead) are not supported",
                ));
            }
            let max_bs = bs.iter().map(BsSpec::max).max().unwrap_or(0);
            if z.size > 0 && max_bs > z.size {
                let o = get("bs")
                    .or(get("bssplit"))
                    .or(get("zonesize"))
                    .expect("given");
                return Err(o.err(format!(
                    "a block of {max_bs} bytes exceeds the zone size {} (fio: I/O buflen exceeds zone size)",
                    z.size
                )));
            }
        }
    }
    Ok(z)
}

/// One zone as fio tracks it.
#[derive(Debug, Clone, Copy, Default)]
struct Zone {
    /// Write pointer, bytes from the zone's start.
    wp: u64,
    /// In fio's open-zone list.
    open: bool,
}

/// The device's zones as every `zonemode=zbd` job of the run sees them (fio's
/// `zoned_block_device_info`, shared by the jobs of one device).
#[derive(Debug)]
pub(super) struct ZbdInfo {
    dev: ZonedDevice,
    zones: Vec<Zone>,
    /// fio's `open_zones[]`, in the order they were opened.
    open: Vec<u32>,
    /// The open-zone limit in force (0: none tracked).
    max_open: u32,
    /// Bytes below the write pointers (fio's `sectors_with_data`).
    valid_bytes: u64,
    /// Writes left before the next threshold reset (fio's `write_cnt`).
    write_cnt: u64,
    /// Zone resets issued.
    pub resets: u64,
}

/// A shared handle on the device's zones.
pub(super) type SharedZbd = Arc<Mutex<ZbdInfo>>;

fn lock(z: &SharedZbd) -> std::sync::MutexGuard<'_, ZbdInfo> {
    z.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// One clone's view of the zones: its region in zone indices and its own open count.
#[derive(Debug, Clone)]
pub(super) struct ZbdJob {
    pub info: SharedZbd,
    /// First zone and one past the last of the region (fio's `min_zone`, `max_zone`).
    min_zone: u64,
    max_zone: u64,
    /// Region start (device bytes) and length (fio's `file_offset`, `io_size`).
    start: u64,
    len: u64,
    job_max_open: u32,
    /// Zones this clone opened and still counts (fio's `td->num_open_zones`).
    own_open: u32,
    reset_threshold: f64,
    reset_frequency: f64,
    read_beyond_wp: bool,
    random: bool,
    /// `verify` on a writing job: the region's zones are reset at each pass's start and a
    /// full zone is never reopened (fio would lose the data it verifies).
    verify: bool,
    /// Smallest block of each direction (fio's `min_bs[ddir]`).
    min_bs: [u64; 3],
}

/// Where a zbd job's I/O goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ZbdIo {
    /// Device byte address and length; a zone to reset first (its start), when any.
    Io {
        addr: u64,
        len: u64,
        reset: Option<u64>,
    },
    /// No I/O possible: the file's pass is over (fio's `io_u_eof`).
    Eof,
}

impl ZbdInfo {
    fn zone_of(&self, addr: u64) -> u64 {
        addr / self.dev.zone_size
    }
    fn start(&self, z: u64) -> u64 {
        z * self.dev.zone_size
    }
    fn remainder(&self, z: u64) -> u64 {
        self.dev.zone_capacity - self.zones[z as usize].wp
    }
    fn full(&self, z: u64, min_bs: u64) -> bool {
        self.zones[z as usize].wp + min_bs > self.dev.zone_capacity
    }
    fn close(&mut self, z: u64) {
        if let Some(i) = self.open.iter().position(|&o| u64::from(o) == z) {
            self.open.remove(i);
        }
        self.zones[z as usize].open = false;
    }
}

impl ZbdJob {
    /// The device's zone size (bytes).
    pub(super) fn zone_size(&self) -> u64 {
        lock(&self.info).dev.zone_size
    }

    /// fio's `zbd_open_zone`.
    fn open_zone(&mut self, zi: &mut ZbdInfo, z: u64) -> bool {
        if self.verify && zi.full(z, self.min_bs[1].max(1)) {
            return false;
        }
        if zi.max_open == 0 {
            return true;
        }
        if zi.zones[z as usize].open {
            return zi.zones[z as usize].wp < zi.dev.zone_capacity;
        }
        if self.job_max_open > 0 && self.own_open >= self.job_max_open {
            return false;
        }
        if zi.open.len() as u32 >= zi.max_open {
            return false;
        }
        zi.open.push(z as u32);
        zi.zones[z as usize].open = true;
        self.own_open += 1;
        true
    }

    fn pick(&self, zi: &ZbdInfo, addr: u64) -> usize {
        let n = zi.open.len() as u128;
        (u128::from(addr.saturating_sub(self.start)) * n / u128::from(self.len.max(1))) as usize
    }

    /// fio's `zbd_convert_to_open_zone`: a zone to write instead of one that cannot be opened.
    fn convert_to_open_zone(&mut self, zi: &mut ZbdInfo, addr: u64, min_bs: u64) -> Option<u64> {
        let tracked = zi.max_open > 0 || self.job_max_open > 0;
        let mut z = zi.zone_of(addr).clamp(self.min_zone, self.max_zone - 1);
        let mut examine = !tracked;
        if tracked && !zi.open.is_empty() {
            // The open zones are shared: start from a quasi-random one, keep to the region.
            let n = zi.open.len();
            let first = self.pick(zi, addr).min(n - 1);
            let cand = (0..n)
                .map(|k| u64::from(zi.open[(first + k) % n]))
                .find(|&o| (self.min_zone..self.max_zone).contains(&o))?;
            z = cand;
            examine = true;
        }
        if examine && zi.remainder(z) >= min_bs {
            return Some(z);
        }
        // Open another zone: the next ones after z, wrapping inside the region.
        for _ in 0..(self.len / zi.dev.zone_size) {
            z += 1;
            if z >= self.max_zone {
                z = self.min_zone;
            }
            if zi.zones[z as usize].open {
                continue;
            }
            if self.open_zone(zi, z) {
                return Some(z);
            }
        }
        // A write that fits in a zone already open.
        zi.open
            .iter()
            .map(|&o| u64::from(o))
            .find(|&o| (self.min_zone..self.max_zone).contains(&o) && zi.remainder(o) >= min_bs)
    }

    /// fio's `zbd_adjust_block` for an I/O of direction `d` at device byte `addr`.
    pub(super) fn adjust(&mut self, d: usize, addr: u64, len: u64) -> ZbdIo {
        let info = self.info.clone();
        let mut zi = lock(&info);
        let min_bs = self.min_bs[d].max(1);
        let orig = zi.zone_of(addr);
        match d {
            0 => {
                if self.read_beyond_wp {
                    return ZbdIo::Io {
                        addr,
                        len,
                        reset: None,
                    };
                }
                let mut zb = orig;
                let mut addr = addr;
                let mut range = zi.zones[zb as usize].wp;
                if range < min_bs || (!self.random && addr + min_bs > zi.start(zb) + range) {
                    match self.find_zone(&zi, zb, min_bs) {
                        Some(z) => zb = z,
                        None => return ZbdIo::Eof,
                    }
                    range = zi.zones[zb as usize].wp;
                    if !self.random {
                        addr = zi.start(zb);
                    }
                }
                let start = zi.start(zb);
                if range <= len {
                    addr = start;
                } else if self.random {
                    addr = start + ((addr - zi.start(orig)) % (range - len)) / min_bs * min_bs;
                }
                let wp = start + range;
                let mut len = len.min(wp - addr) / min_bs * min_bs;
                if len == 0 {
                    len = min_bs.min(wp - addr);
                }
                ZbdIo::Io {
                    addr,
                    len,
                    reset: None,
                }
            }
            _ => {
                let mut zb = orig;
                if !self.open_zone(&mut zi, zb) {
                    match self.convert_to_open_zone(&mut zi, addr, min_bs) {
                        Some(z) => zb = z,
                        None => return ZbdIo::Eof,
                    }
                }
                let mut reset = false;
                if self.reset_frequency > 0.0
                    && zi.valid_bytes as f64 >= self.len as f64 * self.reset_threshold
                {
                    zi.write_cnt = zi.write_cnt.saturating_sub(1);
                    if zi.write_cnt == 0 {
                        zi.write_cnt = write_cnt(self.reset_frequency);
                        reset = true;
                    }
                }
                let mut reset_at = None;
                if reset || zi.full(zb, min_bs) {
                    let wp = zi.zones[zb as usize].wp;
                    zi.valid_bytes -= wp;
                    zi.zones[zb as usize].wp = 0;
                    zi.resets += 1;
                    reset_at = Some(zi.start(zb));
                    if zi.dev.zone_capacity < min_bs {
                        return ZbdIo::Eof;
                    }
                }
                let wp = zi.zones[zb as usize].wp;
                let len = len.min(zi.dev.zone_capacity - wp) / min_bs * min_bs;
                if len < min_bs {
                    return ZbdIo::Eof;
                }
                let zs = zi.start(zb);
                zi.zones[zb as usize].wp = wp + len;
                zi.valid_bytes += len;
                if wp + len >= zi.dev.zone_capacity && zi.zones[zb as usize].open {
                    zi.close(zb);
                    self.own_open = self.own_open.saturating_sub(1);
                }
                ZbdIo::Io {
                    addr: zs + wp,
                    len,
                    reset: reset_at,
                }
            }
        }
    }

    /// fio's `zbd_find_zone`: the next zone after `zb` with at least `min_bytes` written (for
    /// random I/O, the nearest either side).
    fn find_zone(&self, zi: &ZbdInfo, zb: u64, min_bytes: u64) -> Option<u64> {
        let has = |z: u64| zi.zones[z as usize].wp >= min_bytes;
        let mut up = zb + 1;
        let mut down = zb.checked_sub(1);
        while up < self.max_zone || down.is_some_and(|d| d >= self.min_zone) {
            if up < self.max_zone {
                if has(up) {
                    return Some(up);
                }
            } else if !self.random {
                break;
            }
            if self.random {
                if let Some(d) = down.filter(|&d| d >= self.min_zone) {
                    if has(d) {
                        return Some(d);
                    }
                }
            }
            up += 1;
            down = down.and_then(|d| d.checked_sub(1));
        }
        None
    }

    /// fio's `zbd_file_reset` at the start of each pass: a writing job that verifies resets
    /// every zone of its region holding data first. The zone starts to reset.
    pub(super) fn file_reset(&mut self) -> Vec<u64> {
        if !self.verify {
            return Vec::new();
        }
        let info = self.info.clone();
        let mut zi = lock(&info);
        let mut out = Vec::new();
        for z in self.min_zone..self.max_zone {
            let wp = zi.zones[z as usize].wp;
            if wp > 0 {
                zi.valid_bytes -= wp;
                zi.zones[z as usize].wp = 0;
                if zi.zones[z as usize].open {
                    zi.close(z);
                    self.own_open = self.own_open.saturating_sub(1);
                }
                zi.resets += 1;
                out.push(zi.start(z));
            }
        }
        out
    }

    /// fio's `setup_zbd_zone_mode` for a sequential write: a position at a zone's capacity
    /// jumps to the zone's end (the next zone's start). `pos` is a device byte address.
    pub(super) fn skip_capacity_gap(&self, d: usize, pos: u64) -> u64 {
        if self.random || d != 1 {
            return pos;
        }
        let zi = lock(&self.info);
        if zi.dev.zone_capacity >= zi.dev.zone_size {
            return pos;
        }
        let z = zi.zone_of(pos);
        if pos >= zi.start(z) + zi.dev.zone_capacity {
            zi.start(z + 1)
        } else {
            pos
        }
    }
}

/// fio's `zbd_reset_write_cnt`: writes between threshold resets.
fn write_cnt(freq: f64) -> u64 {
    if freq > 0.0 {
        (1.0 / freq).min(f64::from(u32::MAX)) as u64
    } else {
        u64::from(u32::MAX)
    }
}

/// Check every zbd job against the device, round its region to whole zones (fio's
/// `zbd_verify_sizes`), and give each clone its view of the shared zones. `specs` are the
/// clones' generator specs by job; `zones` the jobs' zone options.
pub(super) fn place(
    zones: &[&ZoneOpts],
    placed: &mut [Vec<SourceSpec>],
    device: Option<&ZonedDevice>,
) -> Result<Vec<Vec<Option<ZbdJob>>>> {
    let mut out = Vec::new();
    let mut shared: Option<SharedZbd> = None;
    let mut max_open_seen: BTreeMap<u32, Opt> = BTreeMap::new();
    let mut written = false;
    for (zo, clones) in zones.iter().zip(placed.iter_mut()) {
        if zo.mode != ZoneMode::Zbd {
            out.push(vec![None; clones.len()]);
            continue;
        }
        let at = zo.at.as_ref().expect("zonemode=zbd was written");
        let writes = clones
            .iter()
            .any(|s| !matches!(s.mix, Mix::Rw { read_pct: 100 }));
        let read_only = !writes && !written;
        written |= writes;
        if device.is_some_and(|d| d.compressed_zones) {
            return Err(at.err("zonemode=zbd tracks each zone's write pointer against the fixed zone capacity the device reports, and this device compresses its zones (zns.compression): a zone fills when its flash does, after as many blocks as its data compresses to, which fio's zbd mode does not follow. Drive compressed zones with a trace of zone commands"));
        }
        let Some(dev) = device else {
            return Err(at.err("zonemode=zbd needs a zoned device: this device has no zones (give it a [zns] table, e.g. preset = \"zns\"); fio likewise refuses zbd mode on a block device that is not zoned. zonemode=strided runs on any device"));
        };
        if zo.size > 0 && zo.size != dev.zone_size {
            let o = zo.size_at.as_ref().unwrap_or(at);
            return Err(o.err(format!(
                "zonesize {} does not match the device's zone size {} (fio: job parameter zonesize does not match disk zone size)",
                zo.size, dev.zone_size
            )));
        }
        let max_open = if zo.ignore_limits || dev.max_open_zones == 0 {
            zo.max_open
        } else if zo.max_open == 0 {
            dev.max_open_zones
        } else if zo.max_open <= dev.max_open_zones {
            zo.max_open
        } else {
            let o = zo.max_open_at.as_ref().unwrap_or(at);
            return Err(o.err(format!(
                "max_open_zones {} is larger than the device's limit of {} open zones (fio refuses it too; ignore_zone_limits=1 lifts the check)",
                zo.max_open, dev.max_open_zones
            )));
        };
        if let Some((&other, o)) = max_open_seen.iter().next() {
            if other != max_open {
                return Err(o.err(format!(
                    "jobs on one zoned device need the same max_open_zones (fio: Different 'max_open_zones' values): {other} here, {max_open} in another job"
                )));
            }
        }
        max_open_seen
            .entry(max_open)
            .or_insert_with(|| zo.max_open_at.clone().unwrap_or_else(|| at.clone()));
        let info = shared
            .get_or_insert_with(|| {
                let zones: Vec<Zone> = (0..dev.zones as usize)
                    .map(|i| Zone {
                        wp: dev.written.get(i).copied().unwrap_or(0),
                        open: false,
                    })
                    .collect();
                Arc::new(Mutex::new(ZbdInfo {
                    dev: dev.clone(),
                    valid_bytes: zones.iter().map(|z| z.wp).sum(),
                    zones,
                    open: Vec::new(),
                    max_open,
                    write_cnt: 0,
                    resets: 0,
                }))
            })
            .clone();
        let mut views = Vec::new();
        for s in clones.iter_mut() {
            if s.files.len() != 1 {
                return Err(at.err("zonemode=zbd addresses the device's zones through one file: use filename=/dev/... (the whole device) and nrfiles=1"));
            }
            let base = s.files[0];
            let zs = dev.zone_size;
            // fio rounds the offset up and the end down to zone boundaries.
            let start = (base + s.region_start).div_ceil(zs) * zs;
            let end = ((base + s.region_start + s.region_len) / zs * zs).min(dev.zones * zs);
            if end <= start {
                return Err(at.err(format!(
                    "the job's region ({} bytes from byte {}) holds no whole zone of {zs} bytes",
                    s.region_len,
                    base + s.region_start
                )));
            }
            if read_only
                && (start / zs..end / zs)
                    .all(|z| dev.written.get(z as usize).is_none_or(|&w| w == 0))
            {
                return Err(at.err(format!("this zbd job only reads, and fio reads only below the zones' write pointers: the device's zones {} to {} hold no data (precondition.fill_fraction writes zones in order from zone 0) and no earlier zbd job writes, so it would read nothing (precondition the device, or add a writing job before it, in an earlier stonewall group)", start / zs, end / zs - 1)));
            }
            s.region_start = start - base;
            s.region_len = end - start;
            let min_bs = [s.bs[0].min(), s.bs[1].min(), s.bs[2].min()];
            {
                let mut zi = lock(&info);
                zi.write_cnt = write_cnt(zo.reset_frequency);
            }
            views.push(Some(ZbdJob {
                info: info.clone(),
                min_zone: start / zs,
                max_zone: end / zs,
                start,
                len: end - start,
                job_max_open: zo.job_max_open,
                own_open: 0,
                reset_threshold: zo.reset_threshold,
                reset_frequency: zo.reset_frequency,
                read_beyond_wp: zo.read_beyond_wp,
                random: s.random,
                verify: s.verify && !matches!(s.mix, Mix::Rw { read_pct: 100 }),
                min_bs,
            }));
        }
        out.push(views);
    }
    Ok(out)
}

/// A clone's place in `zonemode=strided` (fio's `file_offset`, `zone_bytes` and `last_pos`).
#[derive(Debug, Clone)]
pub(super) struct Strided {
    pub size: u64,
    pub range: u64,
    pub skip: u64,
    /// Window start per file, bytes from the file's base.
    pub file_offset: Vec<u64>,
    /// Bytes transferred in the current window.
    pub zone_bytes: u64,
    /// Next sequential position per file and direction, bytes from the file's base.
    pub last_pos: Vec<[u64; 3]>,
}

impl Strided {
    pub(super) fn new(z: &ZoneOpts, s: &SourceSpec) -> Strided {
        let n = s.files.len().max(1);
        Strided {
            size: z.size,
            range: z.range,
            skip: z.skip,
            file_offset: vec![s.region_start; n],
            zone_bytes: 0,
            last_pos: vec![[s.region_start; 3]; n],
        }
    }

    /// fio's `__fill_io_u_zone` before file `f`'s next I/O in direction `d`: whether the
    /// random map must be renewed (a new `zonerange` begins).
    pub(super) fn before_io(&mut self, f: usize, d: usize, start: u64, file_end: u64) -> bool {
        if self.zone_bytes >= self.size {
            self.zone_bytes = 0;
            self.file_offset[f] += self.range + self.skip;
            if self.file_offset[f] >= file_end {
                self.file_offset[f] = start;
            }
            self.last_pos[f][d] = self.file_offset[f];
        }
        if self.last_pos[f][d] >= self.file_offset[f] + self.range {
            self.last_pos[f][d] = self.file_offset[f];
        }
        if self.zone_bytes.is_multiple_of(self.range) {
            // fio_file_reset: positions back to the window's start, random map cleared.
            self.last_pos[f] = [self.file_offset[f]; 3];
            return true;
        }
        false
    }
}

#[cfg(test)]
#[path = "zoned_tests.rs"]
mod tests;
