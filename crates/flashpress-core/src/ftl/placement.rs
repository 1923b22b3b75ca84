//! The placement seam: which open block (stream) of a plane a page goes to.
//!
//! Each plane keeps one open block per stream. Host writes and GC migrations ask the policy
//! for a stream; later schemes (hot/cold separation, CAGC's reference-count regions) add
//! policies here without touching the allocator. NVMe Flexible Data Placement ([`Fdp`]) is
//! one more policy: it gives each reclaim unit handle its own streams.

use crate::config::{FdpConfig, PlacementConfig, RuhType, SimConfig};
use crate::units::Lpn;

/// Why a page is being written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A host write.
    Host,
    /// A GC migration of a still-valid page.
    Gc,
}

/// What a placement policy sees of a page.
#[derive(Debug, Clone, Copy)]
pub struct PageCtx {
    /// Logical page being written.
    pub lpn: Lpn,
    /// Host write or GC migration.
    pub origin: Origin,
    /// The page's placement identifier (FDP; reclaim group x handles + handle): the host
    /// write's, or the one a migrated page was written through; 0 without FDP.
    pub handle: u8,
}

/// A placement policy.
pub trait Placement: Send {
    /// Open-block streams per plane this policy uses (>= 1).
    fn streams(&self) -> usize;
    /// Stream index in `0..streams()` for a page.
    fn stream_for(&mut self, page: &PageCtx) -> usize;
}

/// Host writes and GC migrations share one open block per plane.
pub struct Single;

impl Placement for Single {
    fn streams(&self) -> usize {
        1
    }
    #[inline]
    fn stream_for(&mut self, _page: &PageCtx) -> usize {
        0
    }
}

/// GC migrations get their own open block: surviving (colder) data is kept apart from fresh
/// host writes, the classic hot/cold split by write origin.
pub struct GcSeparate;

impl Placement for GcSeparate {
    fn streams(&self) -> usize {
        2
    }
    #[inline]
    fn stream_for(&mut self, page: &PageCtx) -> usize {
        match page.origin {
            Origin::Host => 0,
            Origin::Gc => 1,
        }
    }
}

/// NVMe Flexible Data Placement (TP4146): each reclaim unit handle has the streams of
/// `ftl.placement` (one, or two with `gc_separate`), so data written through different handles
/// never shares an open block. A GC migration stays in its handle's GC destination when the
/// handle is persistently isolated; those of initially isolated handles all go to the GC
/// destination of the first initially isolated handle (the specification lets GC mix them).
/// With every write through handle 0, the streams used are exactly `ftl.placement`'s.
pub struct Fdp {
    /// Streams per handle (`ftl.placement`'s).
    per: usize,
    types: Vec<RuhType>,
    /// The first initially isolated handle, whose GC destination the others share.
    shared: usize,
}

impl Fdp {
    fn new(c: &FdpConfig, base: PlacementConfig) -> Fdp {
        Fdp {
            per: base_streams(base),
            shared: c
                .handles
                .iter()
                .position(|&t| t == RuhType::InitiallyIsolated)
                .unwrap_or(0),
            types: c.handles.clone(),
        }
    }
}

impl Placement for Fdp {
    fn streams(&self) -> usize {
        self.per * self.types.len()
    }
    #[inline]
    fn stream_for(&mut self, page: &PageCtx) -> usize {
        // A placement identifier names a handle of a reclaim group; the group picks the
        // planes (the FTL's striping), the handle the stream.
        let h = page.handle as usize % self.types.len();
        match page.origin {
            Origin::Host => h * self.per,
            Origin::Gc => {
                let to = match self.types[h] {
                    RuhType::PersistentlyIsolated => h,
                    RuhType::InitiallyIsolated => self.shared,
                };
                to * self.per + self.per - 1
            }
        }
    }
}

/// Streams of a base policy.
fn base_streams(c: PlacementConfig) -> usize {
    match c {
        PlacementConfig::Single => 1,
        PlacementConfig::GcSeparate => 2,
    }
}

/// Build the policy a config names: `ftl.placement`, per reclaim unit handle with `[fdp]`.
pub fn build(cfg: &SimConfig) -> Box<dyn Placement> {
    match &cfg.fdp {
        Some(f) => Box::new(Fdp::new(f, cfg.ftl.placement)),
        None => match cfg.ftl.placement {
            PlacementConfig::Single => Box::new(Single),
            PlacementConfig::GcSeparate => Box::new(GcSeparate),
        },
    }
}

/// Streams a config's policy uses, without building it.
pub fn streams_of(cfg: &SimConfig) -> usize {
    build(cfg).streams()
}

/// Streams the FDP handles use (0 without `[fdp]`).
pub fn fdp_streams(cfg: &SimConfig) -> usize {
    cfg.fdp
        .as_ref()
        .map_or(0, |f| f.handles.len() * base_streams(cfg.ftl.placement))
}
