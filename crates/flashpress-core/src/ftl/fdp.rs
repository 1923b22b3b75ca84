//! NVMe Flexible Data Placement (TP4146) in the page FTL: which reclaim unit handle each
//! physical page was written through, and the per-handle statistics.
//!
//! The placement itself is a policy at the placement seam ([`super::placement::Fdp`]); this
//! module keeps what that policy needs of the data (a migrated page keeps its handle) and
//! counts, per handle, what the FDP statistics log page reports per endurance group: host
//! bytes written and media bytes written, here split by handle. It also keeps each
//! identifier's reclaim unit (the planes it spans and the writes it has left) and the FDP
//! events log.

use crate::config::{FdpConfig, RuhType, SimConfig};
use crate::units::{PlaneId, SimTime};
use serde::{Deserialize, Serialize};

/// An FDP event the device logs (NVM Express 2.0c, FDP Events log page, "FDP Event Type").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FdpEventType {
    /// 00h, a host event: a Reclaim Unit Handle Update moved the handle off a reclaim unit
    /// that was not fully written.
    RuNotFullyWritten,
    /// 03h, a host event: a write named a placement identifier the device does not have; it
    /// went to placement identifier 0.
    InvalidPlacementIdentifier,
    /// 81h, a controller event: the device moved the handle to a new reclaim unit without a
    /// Reclaim Unit Handle Update (here: its reclaim unit became fully written).
    ImplicitlyModifiedRuh,
}

impl FdpEventType {
    /// The event's type code in the FDP Events log page.
    pub fn code(self) -> u8 {
        match self {
            FdpEventType::RuNotFullyWritten => 0x00,
            FdpEventType::InvalidPlacementIdentifier => 0x03,
            FdpEventType::ImplicitlyModifiedRuh => 0x81,
        }
    }

    /// The config-style name.
    pub fn name(self) -> &'static str {
        match self {
            FdpEventType::RuNotFullyWritten => "ru_not_fully_written",
            FdpEventType::InvalidPlacementIdentifier => "invalid_placement_identifier",
            FdpEventType::ImplicitlyModifiedRuh => "implicitly_modified_ruh",
        }
    }
}

/// One FDP event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FdpEvent {
    /// Simulated time (ns).
    pub time: SimTime,
    /// What happened.
    pub kind: FdpEventType,
    /// The placement identifier the command named (for an invalid one, as the host sent it).
    pub pid: u16,
    /// Reclaim group of the reclaim unit handle concerned.
    pub reclaim_group: u32,
    /// Reclaim unit handle concerned (its index in `fdp.handles`).
    pub handle: u32,
}

/// Most rows the events table keeps (about 24 MiB); the summary's counts include every event.
pub const MAX_EVENT_ROWS: usize = 1 << 20;

/// The reclaim unit a placement identifier writes into.
#[derive(Debug, Clone)]
pub(super) struct Ru {
    /// The planes it spans in its group's striping order (empty: every plane of the group,
    /// striped with the group's own cursor).
    pub planes: Vec<PlaneId>,
    /// Where the next reclaim unit starts in the group's striping order.
    pub next: usize,
    /// Striping cursor over `planes`.
    pub cursor: usize,
    /// The number of the plane order `planes` for least-busy allocation (one number per
    /// group and window start, after the stripe's and the groups' orders).
    pub order_id: usize,
    /// Pages the handle may still write into it (Reclaim Unit Available Media Writes).
    pub left: u64,
}

/// Per-handle counters, in NAND pages.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandleCounters {
    /// Pages programmed for host writes through the handle.
    pub host_pages_written: u64,
    /// Pages of the handle's data GC moved (programmed again).
    pub gc_pages_migrated: u64,
    /// Erase blocks opened for the handle's streams (its share of new reclaim units).
    pub blocks_opened: u64,
    /// Reclaim units the handle's host writes filled (each an implicitly modified handle).
    pub ru_filled: u64,
    /// Reclaim Unit Handle Update commands for the identifier.
    pub ruh_updates: u64,
    /// Of those, updates that left a reclaim unit not fully written.
    pub ru_not_fully_written: u64,
    /// Writes with a placement identifier the device does not have that went to this one (0).
    pub invalid_pid_writes: u64,
}

/// The FDP state of the page FTL.
#[derive(Debug, Clone)]
pub struct FdpState {
    /// Placement identifier each physical unit slot was written through (meaningful where it
    /// holds data).
    pub(super) handle_of: Vec<u8>,
    /// Counters per placement identifier (reclaim group x handles + handle) since the last
    /// reset.
    pub counters: Vec<HandleCounters>,
    types: Vec<RuhType>,
    /// Streams per handle; the handles' streams come first.
    per: usize,
    /// Reclaim groups.
    pub(super) groups: u32,
    planes_per_die: u32,
    /// Pages in one reclaim unit.
    pub(super) ru_pages: u64,
    /// Planes one reclaim unit spans (all of a group's: `planes_per_group`).
    pub(super) ru_planes: usize,
    /// Planes of a reclaim group.
    pub(super) planes_per_group: usize,
    /// Per placement identifier, its reclaim unit.
    pub(super) rus: Vec<Ru>,
    /// The events log, in time order (at most [`MAX_EVENT_ROWS`] rows).
    pub events: Vec<FdpEvent>,
}

impl FdpState {
    /// Empty state for `slots` physical unit slots.
    pub fn new(c: &FdpConfig, cfg: &SimConfig, slots: usize) -> FdpState {
        let n = c.handles.len();
        let k = c.ru_blocks(cfg);
        let pg = c.group_planes(cfg);
        let ru_pages = k * cfg.nand.pages_per_block as u64;
        FdpState {
            handle_of: vec![0; slots],
            counters: vec![HandleCounters::default(); c.identifiers()],
            types: c.handles.clone(),
            per: super::placement::fdp_streams(cfg) / n,
            groups: c.reclaim_groups,
            planes_per_die: cfg.nand.planes_per_die,
            ru_pages,
            ru_planes: k.min(pg) as usize,
            planes_per_group: pg as usize,
            rus: (0..c.identifiers())
                .map(|_| Ru {
                    planes: Vec::new(),
                    next: 0,
                    cursor: 0,
                    order_id: 0,
                    left: ru_pages,
                })
                .collect(),
            events: Vec::new(),
        }
    }

    /// Whether a reclaim unit spans only some of its group's planes (each identifier then
    /// stripes over its own reclaim unit's planes).
    #[inline]
    pub fn partial_rus(&self) -> bool {
        self.ru_planes < self.planes_per_group
    }

    /// Log an event (the table keeps the first [`MAX_EVENT_ROWS`]).
    pub(super) fn log(&mut self, time: SimTime, kind: FdpEventType, pid: u16, target: usize) {
        if self.events.len() < MAX_EVENT_ROWS {
            let n = self.types.len();
            self.events.push(FdpEvent {
                time,
                kind,
                pid,
                reclaim_group: (target / n) as u32,
                handle: (target % n) as u32,
            });
        }
    }

    /// A write at `at` named placement identifier `pid`, which the device does not have: it
    /// goes to identifier 0, and the event is logged.
    pub fn invalid_pid(&mut self, pid: u16, at: SimTime) {
        self.counters[0].invalid_pid_writes += 1;
        self.log(at, FdpEventType::InvalidPlacementIdentifier, pid, 0);
    }

    /// Placement identifiers: handles x reclaim groups.
    pub fn identifiers(&self) -> usize {
        self.counters.len()
    }

    /// Reclaim groups.
    pub fn groups(&self) -> u32 {
        self.groups
    }

    /// The reclaim group of a plane: its die's number mod the groups.
    #[inline]
    pub fn group_of(&self, plane: u32) -> u32 {
        plane / self.planes_per_die % self.groups
    }

    /// The reclaim group a placement identifier writes into.
    #[inline]
    pub fn group_of_pid(&self, pid: u8) -> u32 {
        pid as u32 / self.types.len() as u32
    }

    /// The placement identifier the untimed preconditioning fill writes logical page `lpn`
    /// through: handle 0 of each reclaim group in turn (0 with one group).
    #[inline]
    pub fn fill_pid(&self, lpn: u64) -> u8 {
        ((lpn % self.groups as u64) as usize * self.types.len()) as u8
    }

    /// The placement identifier of handle `h` in the group of `plane`.
    #[inline]
    pub fn pid(&self, h: usize, plane: u32) -> usize {
        self.group_of(plane) as usize * self.types.len() + h
    }

    /// Reclaim unit handles.
    pub fn handles(&self) -> usize {
        self.types.len()
    }

    /// The handle whose stream `stream` is, if it is one of the handles' streams.
    #[inline]
    pub(super) fn handle_of_stream(&self, stream: usize) -> Option<usize> {
        (stream < self.per * self.types.len()).then(|| stream / self.per)
    }

    /// Whether handle `h` is persistently isolated.
    pub fn persistent(&self, h: usize) -> bool {
        self.types[h] == RuhType::PersistentlyIsolated
    }

    /// Bytes the summary needs, per physical unit slot (for the memory estimate).
    pub const BYTES_PER_SLOT: usize = 1;
}

/// One reclaim unit handle in the summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HandleSummary {
    /// Placement identifier (the handle's index in `fdp.handles`; with reclaim groups,
    /// group x handles + handle).
    pub handle: u32,
    /// Reclaim group (absent with one group).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reclaim_group: Option<u32>,
    /// `initially_isolated` or `persistently_isolated`.
    #[serde(rename = "type")]
    pub kind: RuhType,
    /// Bytes the host wrote through the handle.
    pub host_bytes_written: u64,
    /// Bytes programmed for the handle's data: its host writes and GC's moves of its pages.
    pub media_bytes_written: u64,
    /// Bytes of the handle's data GC moved.
    pub gc_bytes_migrated: u64,
    /// `media_bytes_written / host_bytes_written` (`null` with no host writes).
    pub waf: Option<f64>,
    /// Erase blocks opened for the handle's streams.
    pub blocks_opened: u64,
    /// Reclaim units the handle's host writes filled (implicitly modified handle events).
    pub reclaim_units_filled: u64,
    /// Reclaim Unit Handle Update commands for the identifier.
    pub ruh_updates: u64,
}

/// Counts of the FDP events the device logged, by type.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FdpEventCounts {
    /// 00h: Reclaim Unit Handle Updates that left a reclaim unit not fully written.
    pub ru_not_fully_written: u64,
    /// 03h: writes naming a placement identifier the device does not have.
    pub invalid_placement_identifier: u64,
    /// 81h: handles the device moved to a new reclaim unit (their reclaim unit filled).
    pub implicitly_modified_ruh: u64,
}

/// The FDP section of the summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FdpSummary {
    /// Reclaim groups (`fdp.reclaim_groups`; 1: the whole array).
    pub reclaim_groups: u32,
    /// Reclaim unit size (bytes): `fdp.ru_bytes`, by default one erase block on every plane
    /// of a group.
    pub reclaim_unit_bytes: u64,
    /// Per handle, in placement-identifier order.
    pub handles: Vec<HandleSummary>,
    /// The events logged, by type (every one, also past the events table's rows).
    pub events: FdpEventCounts,
}

impl FdpSummary {
    /// The summary of `counters` (a window's) on a device of `cfg`.
    pub fn new(cfg: &SimConfig, state: &FdpState, counters: &[HandleCounters]) -> FdpSummary {
        let ps = cfg.nand.page_size as u64;
        let groups = state.groups;
        let handles = state.types.len();
        FdpSummary {
            reclaim_groups: groups,
            reclaim_unit_bytes: state.ru_pages * ps,
            events: FdpEventCounts {
                ru_not_fully_written: counters.iter().map(|c| c.ru_not_fully_written).sum(),
                invalid_placement_identifier: counters.iter().map(|c| c.invalid_pid_writes).sum(),
                implicitly_modified_ruh: counters.iter().map(|c| c.ru_filled).sum(),
            },
            handles: counters
                .iter()
                .enumerate()
                .map(|(h, c)| {
                    let host = c.host_pages_written * ps;
                    let media = (c.host_pages_written + c.gc_pages_migrated) * ps;
                    HandleSummary {
                        handle: h as u32,
                        reclaim_group: (groups > 1).then_some((h / handles) as u32),
                        kind: state.types[h % handles],
                        host_bytes_written: host,
                        media_bytes_written: media,
                        gc_bytes_migrated: c.gc_pages_migrated * ps,
                        waf: (host > 0).then(|| media as f64 / host as f64),
                        blocks_opened: c.blocks_opened,
                        reclaim_units_filled: c.ru_filled,
                        ruh_updates: c.ruh_updates,
                    }
                })
                .collect(),
        }
    }
}

/// `now - base`, field by field, per handle.
pub fn minus(now: &[HandleCounters], base: &[HandleCounters]) -> Vec<HandleCounters> {
    now.iter()
        .zip(base)
        .map(|(a, b)| HandleCounters {
            host_pages_written: a.host_pages_written - b.host_pages_written,
            gc_pages_migrated: a.gc_pages_migrated - b.gc_pages_migrated,
            blocks_opened: a.blocks_opened - b.blocks_opened,
            ru_filled: a.ru_filled - b.ru_filled,
            ruh_updates: a.ruh_updates - b.ruh_updates,
            ru_not_fully_written: a.ru_not_fully_written - b.ru_not_fully_written,
            invalid_pid_writes: a.invalid_pid_writes - b.invalid_pid_writes,
        })
        .collect()
}

/// The events table as CSV text: `time_ns,type,code,pid,reclaim_group,handle`, one row per
/// event in time order.
pub fn events_csv(events: &[FdpEvent]) -> String {
    let mut out = String::from("time_ns,type,code,pid,reclaim_group,handle\n");
    for e in events {
        out.push_str(&format!(
            "{},{},{:#04x},{},{},{}\n",
            e.time.0,
            e.kind.name(),
            e.kind.code(),
            e.pid,
            e.reclaim_group,
            e.handle
        ));
    }
    out
}
