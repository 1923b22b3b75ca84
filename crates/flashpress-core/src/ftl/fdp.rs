//! NVMe Flexible Data Placement (TP4146) in the page FTL: which reclaim unit handle each
//! physical page was written through, and the per-handle statistics.
//!
//! The placement itself is a policy at the placement seam ([`super::placement::Fdp`]); this
//! module keeps what that policy needs of the data (a migrated page keeps its handle) and
//! counts, per handle, what the FDP statistics log page reports per endurance group: host
//! bytes written and media bytes written, here split by handle.

use crate::config::{FdpConfig, RuhType, SimConfig};
use serde::{Deserialize, Serialize};

/// Per-handle counters, in NAND pages.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandleCounters {
    /// Pages programmed for host writes through the handle.
    pub host_pages_written: u64,
    /// Pages of the handle's data GC moved (programmed again).
    pub gc_pages_migrated: u64,
    /// Erase blocks opened for the handle's streams (its share of new reclaim units).
    pub blocks_opened: u64,
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
    groups: u32,
    planes_per_die: u32,
}

impl FdpState {
    /// Empty state for `slots` physical unit slots.
    pub fn new(c: &FdpConfig, cfg: &SimConfig, slots: usize) -> FdpState {
        let n = c.handles.len();
        FdpState {
            handle_of: vec![0; slots],
            counters: vec![HandleCounters::default(); c.identifiers()],
            types: c.handles.clone(),
            per: super::placement::fdp_streams(cfg) / n,
            groups: c.reclaim_groups,
            planes_per_die: cfg.nand.planes_per_die,
        }
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
    pub fn fill_pid(&self, lpn: u32) -> u8 {
        ((lpn % self.groups) as usize * self.types.len()) as u8
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
}

/// The FDP section of the summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FdpSummary {
    /// Reclaim groups (`fdp.reclaim_groups`; 1: the whole array).
    pub reclaim_groups: u32,
    /// Reclaim unit size: one erase block on every plane of a group (bytes).
    pub reclaim_unit_bytes: u64,
    /// Per handle, in placement-identifier order.
    pub handles: Vec<HandleSummary>,
}

impl FdpSummary {
    /// The summary of `counters` (a window's) on a device of `cfg`.
    pub fn new(cfg: &SimConfig, state: &FdpState, counters: &[HandleCounters]) -> FdpSummary {
        let n = &cfg.nand;
        let ps = n.page_size as u64;
        let planes = (n.channels * n.chips_per_channel * n.dies_per_chip * n.planes_per_die) as u64;
        let groups = state.groups;
        let handles = state.types.len();
        FdpSummary {
            reclaim_groups: groups,
            reclaim_unit_bytes: planes / groups as u64 * n.pages_per_block as u64 * ps,
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
        })
        .collect()
}
