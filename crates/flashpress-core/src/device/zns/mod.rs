//! A zoned SSD (NVMe Zoned Namespace): the host writes each zone sequentially at its write
//! pointer (or appends to it) and resets zones itself, so the device has no page map and no
//! garbage collection: a zone's logical blocks sit at fixed flash pages ([`map`]), a reset
//! erases the zone's written blocks, and every page programmed is a page the host wrote
//! (WAF 1 by construction). The zone state machine is [`state`]; a command the specification
//! refuses completes at once as a failed command, counted by status in `summary.zns`.
//!
//! The controller front end (host link, command overhead, request slots, write buffer) and
//! back end ([`super::sched`]: queues per plane, channels, suspension) are the plain SSD's; a
//! reset's erases are queued there like GC erases (a program into an erased block waits for
//! its erase) and counted apart from GC.

pub mod disk;
pub mod map;
pub mod state;

use super::compress::{Compression, Stored};
use super::sched::NO_REQ;
use super::{Completed, Device, Kind, Req};
use crate::config::ZnsConfig;
use crate::content::{nth_id, ContentModel};
use crate::engine::{Event, EventQueue};
use crate::error::{Error, Result};
use crate::ftl::{FlashBackend, GcKind};
use crate::host::ASYNC_TAG;
use crate::nand::Geometry;
use crate::units::{BlockId, Lpn, Ppn, SimTime};
use crate::workload::{Op, Request};
pub use disk::ZonedDisk;
pub use map::ZoneMap;
pub use state::{ZoneAction, ZoneError, ZoneState, Zones};

/// Counters of the zoned device (`summary.zns`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ZnsCounters {
    /// Write commands done.
    pub writes: u64,
    /// Zone Append commands done.
    pub appends: u64,
    /// Read commands done.
    pub reads: u64,
    /// Open Zone commands done.
    pub opens: u64,
    /// Close Zone commands done.
    pub closes: u64,
    /// Finish Zone commands done.
    pub finishes: u64,
    /// Reset Zone commands done.
    pub resets: u64,
    /// Blocks erased by zone resets.
    pub reset_blocks_erased: u64,
    /// Failed: Zone Boundary Error.
    pub failed_zone_boundary_error: u64,
    /// Failed: Zone Is Full.
    pub failed_zone_is_full: u64,
    /// Failed: Zone Is Read Only.
    pub failed_zone_is_read_only: u64,
    /// Failed: Zone Is Offline.
    pub failed_zone_is_offline: u64,
    /// Failed: Zone Invalid Write (not at the write pointer).
    pub failed_zone_invalid_write: u64,
    /// Failed: Too Many Active Zones.
    pub failed_too_many_active_zones: u64,
    /// Failed: Too Many Open Zones.
    pub failed_too_many_open_zones: u64,
    /// Failed: Invalid Zone State Transition.
    pub failed_invalid_zone_state_transition: u64,
    /// Failed: Invalid Field in Command (an append not at a zone start, an unaligned range).
    pub failed_invalid_field: u64,
    /// Failed: LBA Out of Range.
    pub failed_lba_out_of_range: u64,
}

impl ZnsCounters {
    fn fail(&mut self, e: ZoneError) {
        let c = match e {
            ZoneError::ZoneBoundary => &mut self.failed_zone_boundary_error,
            ZoneError::ZoneIsFull => &mut self.failed_zone_is_full,
            ZoneError::ZoneIsReadOnly => &mut self.failed_zone_is_read_only,
            ZoneError::ZoneIsOffline => &mut self.failed_zone_is_offline,
            ZoneError::ZoneInvalidWrite => &mut self.failed_zone_invalid_write,
            ZoneError::TooManyActiveZones => &mut self.failed_too_many_active_zones,
            ZoneError::TooManyOpenZones => &mut self.failed_too_many_open_zones,
            ZoneError::InvalidZoneStateTransition => &mut self.failed_invalid_zone_state_transition,
            ZoneError::InvalidField => &mut self.failed_invalid_field,
            ZoneError::LbaOutOfRange => &mut self.failed_lba_out_of_range,
        };
        *c += 1;
    }

    /// Commands that failed, all statuses.
    pub fn failed(&self) -> u64 {
        self.failed_zone_boundary_error
            + self.failed_zone_is_full
            + self.failed_zone_is_read_only
            + self.failed_zone_is_offline
            + self.failed_zone_invalid_write
            + self.failed_too_many_active_zones
            + self.failed_too_many_open_zones
            + self.failed_invalid_zone_state_transition
            + self.failed_invalid_field
            + self.failed_lba_out_of_range
    }
}

/// `summary.zns`: the zoned device's shape, its commands and the zone states at the end.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ZnsSummary {
    /// Zones.
    pub zones: u32,
    /// Logical span of a zone (bytes).
    pub zone_size_bytes: u64,
    /// Writable bytes of a zone (its flash).
    pub zone_capacity_bytes: u64,
    /// Commands done and failed (by status), over the measured window.
    #[serde(flatten)]
    pub counters: ZnsCounters,
    /// Commands failed, all statuses.
    pub failed_commands: u64,
    /// Zones per state at the end of the run.
    pub zones_empty: u32,
    /// Implicitly open zones at the end.
    pub zones_implicitly_open: u32,
    /// Explicitly open zones at the end.
    pub zones_explicitly_open: u32,
    /// Closed zones at the end.
    pub zones_closed: u32,
    /// Full zones at the end.
    pub zones_full: u32,
    /// Read-only zones.
    pub zones_read_only: u32,
    /// Offline zones.
    pub zones_offline: u32,
    /// Compressed zones (`zns.compression`; absent without it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compression: Option<ZoneCompressionSummary>,
}

/// `summary.zns.compression`: what compressed zones hold at the end of the run.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ZoneCompressionSummary {
    /// Capacity an empty zone reports (bytes): the zone size, the most it can take when its
    /// data compresses well enough.
    pub zone_logical_capacity_bytes: u64,
    /// Logical blocks holding data in all zones at the end (bytes).
    pub stored_logical_bytes: u64,
    /// Flash pages those blocks take, programmed or being filled (bytes).
    pub stored_flash_bytes: u64,
    /// Full zones whose flash filled before the zone size was written.
    pub zones_full_by_flash: u32,
}

/// The content of a zoned write's pages, for the content model and verify mode: numbered
/// from the first page's id (a workload's command), or given page by page (the file system's
/// block I/O, whose blocks hold whatever each file block holds).
#[derive(Debug, Clone, Copy)]
pub enum PageIds<'a> {
    /// Page `i` holds `nth_id(first, i)`, its 4 KiB block `j` `nth_id(first, i x blocks
    /// per page + j)` (as on the plain SSD).
    From(u64),
    /// Page `i` holds `ids[i]` (one per page), its block `j` `nth_id(ids[i], j)`.
    Each(&'a [u64]),
}

impl PageIds<'_> {
    /// The content id of page `i` (never 0, which verify mode keeps for "nothing written").
    pub fn page(&self, i: u64) -> u64 {
        match self {
            PageIds::From(first) => nth_id(*first, i),
            PageIds::Each(ids) => ids[i as usize],
        }
        .max(1)
    }

    /// The content id of page `i`'s first 4 KiB block (`bpp` blocks a page), which sizes it.
    pub fn first_block(&self, i: u64, bpp: u64) -> u64 {
        match self {
            PageIds::From(first) => nth_id(*first, i * bpp),
            PageIds::Each(ids) => ids[i as usize],
        }
    }
}

/// The zoned device's state beside the controller.
pub struct Zns {
    /// The zones' states and write pointers.
    pub zones: Zones,
    map: ZoneMap,
    /// Logical pages per zone (the zone size).
    zone_pages: u64,
    page_size: u64,
    /// Counters since the last reset.
    pub counters: ZnsCounters,
    blocks: Vec<BlockId>,
    /// With compression: per zone when the data of its open page is all in DRAM.
    open_ready: Vec<SimTime>,
    /// With compression: how each block of the write being placed is stored.
    stored: Vec<Stored>,
    /// With compression: zone pages the last placement closed.
    closed: Vec<u32>,
    /// Verify mode (`check.verify`): the content id each flash page holds (0: erased), so a
    /// read is checked against what the zone's pages hold through the zone mapping.
    content: Option<Vec<u64>>,
}

impl Zns {
    /// For a validated config.
    pub fn new(z: &ZnsConfig, cfg: &crate::config::SimConfig, geo: &Geometry) -> Zns {
        let map = ZoneMap::new(
            geo,
            z.channels_per_zone,
            z.chips_per_zone,
            z.blocks_per_plane,
        );
        let page_size = geo.page_size as u64;
        let zone_pages = z.zone_size_bytes(&cfg.nand) / page_size;
        // A compressed zone takes blocks up to its zone size: its flash fills first unless its
        // data compresses at least zone size / capacity to one.
        let cap = if z.compression().is_some() {
            zone_pages
        } else {
            map.zone_pages()
        };
        let mut zones = Zones::new(map.zones(), cap, z.max_open_zones, z.max_active_zones);
        for &i in &z.read_only_zones {
            zones.set_media_state(i, ZoneState::ReadOnly);
        }
        for &i in &z.offline_zones {
            zones.set_media_state(i, ZoneState::Offline);
        }
        Zns {
            open_ready: vec![SimTime::ZERO; map.zones() as usize],
            zones,
            zone_pages,
            page_size,
            map,
            counters: ZnsCounters::default(),
            blocks: Vec::new(),
            stored: Vec::new(),
            closed: Vec::new(),
            content: cfg.check.verify.then(|| vec![0; geo.pages as usize]),
        }
    }

    /// Verify mode: the content id zone page `lpn` (zone x zone size + block) reads back:
    /// what its flash page holds below the zone's write pointer, 0 above it (a reset zone
    /// reads nothing back). 0 without verify mode.
    pub fn content_of(&self, lpn: u64) -> u64 {
        let Some(c) = self.content.as_ref() else {
            return 0;
        };
        let (z, k) = ((lpn / self.zone_pages) as u32, lpn % self.zone_pages);
        if k >= self.zones.zone(z).written {
            return 0;
        }
        c[self.map.ppn(z, k).0 as usize]
    }

    /// Verify mode: the content id a read of zone page `lpn` finds on compressed zones,
    /// through the zone packer's entry and the flash page it names.
    pub(in crate::device) fn compressed_content_of(
        &self,
        lpn: u64,
        c: &Compression,
    ) -> Result<u64> {
        let content = self.content.as_ref().expect("verify mode");
        let (z, k) = ((lpn / self.zone_pages) as u32, lpn % self.zone_pages);
        c.zoned_read_id(z, k, lpn, |p| content[self.map.ppn(z, p as u64).0 as usize])
    }

    /// Change what zone `z`'s page `k` holds on flash (verify-mode tests).
    #[cfg(test)]
    pub(crate) fn corrupt_page_for_test(&mut self, z: u32, k: u64) {
        let ppn = self.map.ppn(z, k);
        let c = self.content.as_mut().expect("verify mode");
        c[ppn.0 as usize] ^= 1;
    }

    /// Verify mode: flash page `ppn` now holds content id `id`.
    fn store(&mut self, ppn: Ppn, id: u64) {
        if let Some(c) = self.content.as_mut() {
            c[ppn.0 as usize] = id;
        }
    }

    /// Logical pages the namespace exposes: zones x zone size.
    pub fn logical_pages(&self) -> u64 {
        self.zones.len() as u64 * self.zone_pages
    }

    /// Flash pages of zone `z` holding data or queued to (with compression, its packer's
    /// pages but the one being filled in DRAM).
    pub fn flash_pages(&self, z: u32, comp: Option<&Compression>) -> u64 {
        match comp {
            None => self.zones.zone(z).written,
            Some(c) => {
                let p = c.zones();
                let taken = p.pages_taken(z);
                taken - (taken > 0 && p.is_open(z, taken as u32 - 1)) as u64
            }
        }
    }

    /// Blocks holding no data (erased, or to be erased by a reset already queued).
    pub fn free_blocks(&self, comp: Option<&Compression>) -> u64 {
        let mut out = Vec::new();
        let used: u64 = (0..self.zones.len())
            .map(|z| {
                self.map
                    .blocks_holding(z, self.flash_pages(z, comp), &mut out);
                out.len() as u64
            })
            .sum();
        self.map.zones() as u64 * self.map.zone_blocks() - used
    }

    /// The zone mapping rule.
    pub fn map(&self) -> &ZoneMap {
        &self.map
    }

    /// The summary at the end of a run, with the window's counters.
    pub fn summary(&self, counters: ZnsCounters, comp: Option<&Compression>) -> ZnsSummary {
        let mut by = [0u32; 7];
        for z in 0..self.zones.len() {
            by[self.zones.zone(z).state as usize] += 1;
        }
        ZnsSummary {
            zones: self.zones.len(),
            zone_size_bytes: self.zone_pages * self.page_size,
            zone_capacity_bytes: self.map.zone_pages() * self.page_size,
            failed_commands: counters.failed(),
            counters,
            zones_empty: by[ZoneState::Empty as usize],
            zones_implicitly_open: by[ZoneState::ImplicitlyOpen as usize],
            zones_explicitly_open: by[ZoneState::ExplicitlyOpen as usize],
            zones_closed: by[ZoneState::Closed as usize],
            zones_full: by[ZoneState::Full as usize],
            zones_read_only: by[ZoneState::ReadOnly as usize],
            zones_offline: by[ZoneState::Offline as usize],
            compression: comp.map(|c| {
                let p = c.zones();
                let all = 0..self.zones.len();
                ZoneCompressionSummary {
                    zone_logical_capacity_bytes: self.zones.cap() * self.page_size,
                    stored_logical_bytes: all
                        .clone()
                        .map(|z| self.zones.zone(z).written)
                        .sum::<u64>()
                        * self.page_size,
                    stored_flash_bytes: all.clone().map(|z| p.pages_taken(z)).sum::<u64>()
                        * self.page_size,
                    zones_full_by_flash: all
                        .filter(|&z| {
                            self.zones.zone(z).state == ZoneState::Full
                                && p.flash_full(z)
                                && self.zones.zone(z).written < self.zones.cap()
                        })
                        .count() as u32,
                }
            }),
        }
    }

    /// Where a request falls: (zone, first page in the zone, pages), or the status that
    /// refuses it.
    fn locate(&self, req: &Request) -> std::result::Result<(u32, u64, u64), ZoneError> {
        if !req.offset.is_multiple_of(self.page_size) || !req.len.is_multiple_of(self.page_size) {
            return Err(ZoneError::InvalidField);
        }
        let page = req.offset / self.page_size;
        let z = page / self.zone_pages;
        if z >= self.zones.len() as u64 {
            return Err(ZoneError::LbaOutOfRange);
        }
        Ok((z as u32, page % self.zone_pages, req.len / self.page_size))
    }
}

/// What `precondition.fill_fraction` writes on a zoned device, as a sequential host writes a
/// drive: `floor(fill_fraction x writable zones x zone capacity)` logical blocks, zone by zone
/// from zone 0, each zone to its capacity and the last one partly (read-only and offline
/// zones are skipped: nothing can be written there). Returns the blocks written per zone; the
/// zones it fills end full, a partly written one closed (the fill keeps no zone open). Both
/// the device's fill and the zone report fio reads at a `zonemode=zbd` job's start come from
/// here.
pub fn fill_plan(z: &ZnsConfig, nand: &crate::config::NandConfig, fill_fraction: f64) -> Vec<u64> {
    let zones = z.zones(nand) as usize;
    let cap = z.zone_capacity_bytes(nand) / nand.page_size as u64;
    let writable = |i: usize| {
        let i = i as u32;
        !z.read_only_zones.contains(&i) && !z.offline_zones.contains(&i)
    };
    let n = (0..zones).filter(|&i| writable(i)).count() as u64;
    let mut left = (fill_fraction * (n * cap) as f64).floor() as u64;
    (0..zones)
        .map(|i| {
            if !writable(i) {
                return 0;
            }
            let k = left.min(cap);
            left -= k;
            k
        })
        .collect()
}

impl Zns {
    /// Preconditioning: block `k` of zone `z` (at its write pointer) now holds content id `id`,
    /// written without timing; returns its flash page.
    fn write_untimed(&mut self, z: u32, k: u64, id: u64) -> Ppn {
        if let Err(e) = self.zones.write(z, k, 1) {
            panic!("the fill writes zone {z} at its write pointer: block {k} refused ({e:?})");
        }
        let ppn = self.map.ppn(z, k);
        self.store(ppn, id);
        ppn
    }

    /// After the fill: a zone it left open (the last, partly written) closes, so the run
    /// starts with no zone open, as after a host that wrote the drive and closed it.
    fn close_after_fill(&mut self) {
        for z in 0..self.zones.len() {
            if self.zones.zone(z).state.is_open() {
                self.zones
                    .manage(z, ZoneAction::Close)
                    .expect("an open zone closes");
            }
        }
    }
}

impl Device {
    /// Preconditioning on a zoned device: logical page `lpn` (zone x zone size + block, at the
    /// zone's write pointer) holds `content`, written without timing as the page FTL's fill
    /// writes ([`Device::write_untimed`]).
    pub(super) fn write_zoned_untimed(&mut self, lpn: Lpn, content: u64) {
        let zns = self.zns.as_mut().expect("zoned device");
        let (z, k) = (lpn.0 / zns.zone_pages, lpn.0 % zns.zone_pages);
        let ppn = zns.write_untimed(z as u32, k, content);
        if let Some(s) = self.shadow.as_mut() {
            s.expected[lpn.0 as usize] = content;
        }
        self.nand.count_transfer();
        self.nand.count_program(ppn, false);
    }

    /// The end of a zoned device's fill (see [`fill_plan`]): no zone stays open.
    pub fn close_zones_after_fill(&mut self) {
        if let Some(z) = self.zns.as_mut() {
            z.close_after_fill();
        }
    }
}

impl Device {
    /// Submit a request to the zoned device (`now`: arrival; `cmd`: its command at the
    /// controller). A refused command completes at `cmd` as failed ([`Device::failed`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn submit_zoned(
        &mut self,
        req: &Request,
        content: PageIds<'_>,
        now: SimTime,
        cmd: SimTime,
        stream: u32,
        q: &mut EventQueue,
        cm: Option<&mut ContentModel>,
    ) -> Result<()> {
        match self.zoned_command(req, content, now, cmd, stream, q, cm)? {
            Ok(()) => Ok(()),
            Err(e) => {
                self.zns.as_mut().expect("zoned device").counters.fail(e);
                self.failed.push((stream, cmd));
                Ok(())
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn zoned_command(
        &mut self,
        req: &Request,
        content: PageIds<'_>,
        now: SimTime,
        cmd: SimTime,
        stream: u32,
        q: &mut EventQueue,
        cm: Option<&mut ContentModel>,
    ) -> Result<std::result::Result<(), ZoneError>> {
        let zns = self.zns.as_mut().expect("zoned device");
        let (z, at, n) = match zns.locate(req) {
            Ok(l) => l,
            Err(e) => return Ok(Err(e)),
        };
        if let PageIds::Each(ids) = content {
            if matches!(req.op, Op::Write | Op::Append) && ids.len() as u64 != n {
                return Err(Error::State(format!(
                    "a zoned {:?} of {n} pages at offset {} came with {} content ids, one a page expected",
                    req.op,
                    req.offset,
                    ids.len()
                )));
            }
        }
        let base = Req::new(Kind::Read, stream, req.op, req.len, now);
        let action = match req.op {
            Op::Read => {
                // Reads may not cross a zone boundary (the controller does not set RAZB).
                if at + n > zns.zone_pages {
                    return Ok(Err(ZoneError::ZoneBoundary));
                }
                let stored = match zns.zones.read(z, at, n) {
                    Ok(k) => k,
                    Err(e) => return Ok(Err(e)),
                };
                // Verify before anything is queued: a failed check leaves nothing in flight.
                let first_lpn = z as u64 * zns.zone_pages + at;
                for lpn in first_lpn..first_lpn + n {
                    self.verify_read(Lpn(lpn))?;
                }
                let zns = self.zns.as_mut().expect("zoned device");
                zns.counters.reads += 1;
                self.counters.unmapped_page_reads += n - stored;
                if self.compression.is_some() {
                    self.read_compressed_zone(z, at, stored, base, cmd, q);
                    return Ok(Ok(()));
                }
                let slot = self.alloc(base);
                for k in at..at + stored {
                    let ppn = self.zns.as_ref().expect("zoned").map.ppn(z, k);
                    self.arriving_reads.push_back(super::Arrival {
                        at: cmd,
                        ppn,
                        req: slot,
                        partial: false,
                        program: false,
                    });
                }
                let r = &mut self.reqs[slot as usize];
                r.pages_left = stored as u32;
                r.done = cmd;
                if stored == 0 {
                    q.push(cmd, Event::DeviceReq(slot));
                }
                return Ok(Ok(()));
            }
            Op::Write | Op::Append => {
                if self.compression.is_some() {
                    let cm = cm.expect("validation: compressed zones have the content model");
                    return self.write_compressed_zone(req, z, at, n, content, base, now, cmd, q, cm);
                }
                let first = if req.op == Op::Write {
                    zns.zones.write(z, at, n).map(|_| at)
                } else if at != 0 {
                    Err(ZoneError::InvalidField)
                } else {
                    zns.zones.append(z, n)
                };
                let first = match first {
                    Ok(f) => f,
                    Err(e) => return Ok(Err(e)),
                };
                if req.op == Op::Write {
                    zns.counters.writes += 1;
                } else {
                    zns.counters.appends += 1;
                }
                let (arrived, slot) = self.write_arrives(req, base, cmd, n);
                let zone_pages = self.zns.as_ref().expect("zoned").zone_pages;
                for k in first..first + n {
                    let zns = self.zns.as_mut().expect("zoned");
                    let ppn = zns.map.ppn(z, k);
                    // The host expects page `i` of the command where it landed (an append's
                    // too: its completion tells the host where).
                    let id = content.page(k - first);
                    zns.store(ppn, id);
                    if let Some(s) = self.shadow.as_mut() {
                        s.expected[(z as u64 * zone_pages + k) as usize] = id;
                    }
                    self.sched.program_allocated(ppn);
                    self.page_data_in(ppn, None, slot, &base, cmd, arrived);
                }
                self.after_backend(now, q);
                return Ok(Ok(()));
            }
            Op::ZoneOpen => ZoneAction::Open,
            Op::ZoneClose => ZoneAction::Close,
            Op::ZoneFinish => ZoneAction::Finish,
            Op::ZoneReset => ZoneAction::Reset,
            Op::Trim | Op::Delete | Op::Sync | Op::RuhUpdate => {
                return Err(Error::Workload(format!(
                    "{:?} at offset {}: a zoned device takes reads, writes, zone appends and zone management (open, close, finish, reset); fio's trim on zones is a zone reset",
                    req.op, req.offset
                )))
            }
        };
        // Flash pages the zone holds (what a reset erases).
        let pages = zns.flash_pages(z, self.compression.as_ref());
        if action == ZoneAction::Reset {
            // The erase must not overtake a program of the zone not yet started.
            let mut blocks = std::mem::take(&mut zns.blocks);
            zns.map.blocks_holding(z, pages, &mut blocks);
            if let Some(b) = blocks.iter().find(|b| self.sched.programs_pending(**b)) {
                return Err(Error::Workload(format!(
                    "zone {z} reset while a write to it (block {}) has not reached the flash yet: a host waits for its writes to a zone before resetting it",
                    b.0
                )));
            }
            self.zns.as_mut().expect("zoned").blocks = blocks;
        }
        let zns = self.zns.as_mut().expect("zoned device");
        let written = zns.zones.zone(z).written;
        if let Err(e) = zns.zones.manage(z, action) {
            return Ok(Err(e));
        }
        if action == ZoneAction::Reset && zns.content.is_some() {
            // The zone's data is gone: its flash is erased and the host expects nothing
            // there any more (fio forgets a reset zone's writes: its verify_block is 0).
            for k in 0..pages {
                let ppn = zns.map.ppn(z, k);
                zns.store(ppn, 0);
            }
            let first = z as u64 * zns.zone_pages;
            if let Some(s) = self.shadow.as_mut() {
                s.expected[first as usize..(first + zns.zone_pages) as usize].fill(0);
            }
        }
        if self.compression.is_some() {
            match action {
                // The zone's open page is programmed, padded.
                ZoneAction::Finish => self.flush_zone_page(z, now),
                // Its entries and the open page in DRAM go; its flash is erased below.
                ZoneAction::Reset => {
                    let c = self.compression.as_mut().expect("compressed zones");
                    c.zones_mut().reset(z, written);
                    self.zns.as_mut().expect("zoned").open_ready[z as usize] = SimTime::ZERO;
                }
                ZoneAction::Open | ZoneAction::Close => {}
            }
        }
        let zns = self.zns.as_mut().expect("zoned device");
        match action {
            ZoneAction::Open => zns.counters.opens += 1,
            ZoneAction::Close => zns.counters.closes += 1,
            ZoneAction::Finish => zns.counters.finishes += 1,
            ZoneAction::Reset => {
                zns.counters.resets += 1;
                zns.counters.reset_blocks_erased += zns.blocks.len() as u64;
                let blocks = std::mem::take(&mut zns.blocks);
                {
                    let mut be = self.sched.backend(&mut self.nand, q, now);
                    for &b in &blocks {
                        be.gc_job(b, &[], false, GcKind::ZoneReset);
                    }
                }
                self.zns.as_mut().expect("zoned").blocks = blocks;
            }
        }
        // The command completes once the controller has it; a reset's erases run on their
        // planes after it (a later program of the zone waits for them).
        self.completed
            .push(Completed::unqueued(stream, req.op, 0, now, cmd));
        self.after_backend(now, q);
        Ok(Ok(()))
    }
}

impl Device {
    /// Whether compressed zone `z`'s flash is full (the device made the zone full before its
    /// write pointer reached the zone size); false on plain zones.
    pub fn zone_flash_full(&self, z: u32) -> bool {
        self.compression
            .as_ref()
            .is_some_and(|c| c.zones().flash_full(z))
    }

    /// A host about to write a block holding content `id` (workload stream `stream`) as the
    /// next block of zone `z`, after the blocks it admitted before: whether the zone takes
    /// it, its data stored as the controller will store it (then it is admitted). Always on
    /// plain zones, whose capacity is fixed; on compressed zones, as long as the zone's flash
    /// holds the blocks compressed.
    pub fn zone_admit(
        &mut self,
        z: u32,
        stream: usize,
        id: u64,
        cm: Option<&mut ContentModel>,
    ) -> bool {
        let Some(c) = self.compression.as_mut() else {
            return true;
        };
        let cm = cm.expect("validation: compressed zones have the content model");
        let bpp = self.page_size / 4096;
        let all = ((1u32 << bpp) - 1) as u16;
        let st = c.size(cm, stream, id, all, 0);
        c.zones_mut().admit(z, st.len)
    }

    /// A read of blocks `at..at + n` of compressed zone `z` (all below its write pointer):
    /// one flash read per zone page holding them, none for zeros or the page being filled in
    /// DRAM; the compressed blocks are decompressed before the data goes to the host.
    fn read_compressed_zone(
        &mut self,
        z: u32,
        at: u64,
        n: u64,
        base: Req,
        cmd: SimTime,
        q: &mut EventQueue,
    ) {
        let zns = self.zns.as_ref().expect("zoned device");
        let c = self.compression.as_mut().expect("compressed zones");
        let mut ppns: Vec<Ppn> = Vec::new();
        let mut decompress = 0u32;
        for k in at..at + n {
            let ch = c
                .zones()
                .lookup(z, k)
                .expect("a block below the write pointer is placed");
            if ch.zero() {
                c.counters.zero_reads += 1;
                continue;
            }
            if c.compressed(z as u64 * zns.zone_pages + k) {
                decompress += 1;
            }
            if c.zones().is_open(z, ch.vpn) {
                c.counters.dram_page_reads += 1;
                continue;
            }
            // A zone page's chunks are consecutive blocks: one read per page.
            let ppn = zns.map.ppn(z, ch.vpn as u64);
            if ppns.last() != Some(&ppn) {
                ppns.push(ppn);
            }
        }
        let slot = self.alloc(Req { decompress, ..base });
        for &ppn in &ppns {
            self.arriving_reads.push_back(super::Arrival {
                at: cmd,
                ppn,
                req: slot,
                partial: false,
                program: false,
            });
        }
        let r = &mut self.reqs[slot as usize];
        r.pages_left = ppns.len() as u32;
        r.done = cmd;
        if ppns.is_empty() {
            q.push(cmd, Event::DeviceReq(slot));
        }
    }

    /// A write or Zone Append of `n` blocks to compressed zone `z` (`at`: the block a write
    /// addresses): each block is sized by the codec; the write fails with Zone Boundary Error
    /// when the blocks, packed, would not fit the zone's flash left. Otherwise each block is
    /// compressed once its data is at the controller, placed in the zone's open page and
    /// acknowledged from DRAM, and the pages it closes are programmed at the zone's next
    /// flash pages. A zone whose flash is full, or whose write pointer reaches the zone
    /// size, is full (its open page programmed).
    #[allow(clippy::too_many_arguments)]
    fn write_compressed_zone(
        &mut self,
        req: &Request,
        z: u32,
        at: u64,
        n: u64,
        content: PageIds<'_>,
        base: Req,
        now: SimTime,
        cmd: SimTime,
        q: &mut EventQueue,
        cm: &mut ContentModel,
    ) -> Result<std::result::Result<(), ZoneError>> {
        let stream = (base.stream & !ASYNC_TAG) as usize;
        let bpp = self.page_size / 4096;
        let all = ((1u32 << bpp) - 1) as u16;
        let zns = self.zns.as_mut().expect("zoned device");
        let c = self.compression.as_mut().expect("compressed zones");
        let append = req.op == Op::Append;
        // The checks the specification makes before the write pointer moves; then the flash.
        if let Err(e) = zns.zones.precheck(z, (!append).then_some(at), n) {
            return Ok(Err(e));
        }
        if append && at != 0 {
            return Ok(Err(ZoneError::InvalidField));
        }
        let mut stored = std::mem::take(&mut zns.stored);
        stored.clear();
        for i in 0..n {
            stored.push(c.size(cm, stream, content.first_block(i, bpp), all, 0));
        }
        let fits = c.zones().fits_write(z, stored.iter().map(|s| s.len));
        let placed = if !fits {
            Err(ZoneError::ZoneBoundary)
        } else if append {
            zns.zones.append(z, n)
        } else {
            zns.zones.write(z, at, n).map(|_| at)
        };
        let first = match placed {
            Ok(f) => f,
            Err(e) => {
                zns.stored = stored;
                return Ok(Err(e));
            }
        };
        if append {
            zns.counters.appends += 1;
        } else {
            zns.counters.writes += 1;
        }
        let (arrived, slot) = self.write_arrives(req, base, cmd, n);
        let mut closed = std::mem::take(&mut self.zns.as_mut().expect("zoned").closed);
        for (i, st) in stored.iter().enumerate() {
            let zns = self.zns.as_mut().expect("zoned device");
            let k = first + i as u64;
            let lpn = z as u64 * zns.zone_pages + k;
            let id = content.page(i as u64);
            if let Some(s) = self.shadow.as_mut() {
                s.expected[lpn as usize] = id;
            }
            let c = self.compression.as_mut().expect("compressed zones");
            c.commit(lpn, *st);
            let ready = c.compress(arrived);
            closed.clear();
            let ch = c.place_zoned(z, k, lpn, st.len, id, &mut closed);
            // A closed page's data is in once its last chunk is: this block's when it is in
            // the page, else the chunk before it.
            let prev = zns.open_ready[z as usize];
            if !ch.zero() {
                zns.open_ready[z as usize] = ready;
            }
            // A block that completes its page is written once the page has its buffer page
            // (a block that does not compress is a page of its own, as on plain zones).
            let mut acked = false;
            for &p in &closed {
                let own = !ch.zero() && p == ch.vpn;
                let page_id = self
                    .compression
                    .as_ref()
                    .expect("compressed zones")
                    .zone_page_id(z, p);
                let zns = self.zns.as_mut().expect("zoned");
                let ppn = zns.map.ppn(z, p as u64);
                zns.store(ppn, page_id);
                let (r, w) = if own { (ready, slot) } else { (prev, NO_REQ) };
                acked |= own;
                self.queue_page_program(ppn, w, r, now);
            }
            if !acked {
                self.arriving_chunks.push_back((ready, slot));
            }
        }
        let zns = self.zns.as_mut().expect("zoned device");
        zns.stored = stored;
        zns.closed = closed;
        let c = self.compression.as_ref().expect("compressed zones");
        match zns.zones.zone(z).state {
            ZoneState::Full => self.flush_zone_page(z, now),
            _ if c.zones().flash_full(z) => zns.zones.fill(z),
            _ => {}
        }
        self.after_backend(now, q);
        Ok(Ok(()))
    }

    /// Program compressed zone `z`'s open page, if any (padded).
    fn flush_zone_page(&mut self, z: u32, now: SimTime) {
        let zns = self.zns.as_mut().expect("zoned device");
        let c = self.compression.as_mut().expect("compressed zones");
        let mut closed = std::mem::take(&mut zns.closed);
        closed.clear();
        c.flush_zoned(z, &mut closed);
        let ready = zns.open_ready[z as usize];
        if let Some(&p) = closed.first() {
            let ppn = zns.map.ppn(z, p as u64);
            zns.store(ppn, c.zone_page_id(z, p));
            self.queue_page_program(ppn, NO_REQ, ready, now);
        }
        self.zns.as_mut().expect("zoned").closed = closed;
    }
}

#[cfg(test)]
mod compressed_tests;
#[cfg(test)]
mod precondition_tests;
#[cfg(test)]
mod tests;
