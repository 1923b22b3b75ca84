//! The placement seam: which open block (stream) of a plane a page goes to.
//!
//! Each plane keeps one open block per stream. Host writes and GC migrations ask the policy
//! for a stream; later schemes (hot/cold separation, CAGC's reference-count regions) add
//! policies here without touching the allocator.

use crate::config::PlacementConfig;
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

/// Build the policy a config names.
pub fn build(c: PlacementConfig) -> Box<dyn Placement> {
    match c {
        PlacementConfig::Single => Box::new(Single),
        PlacementConfig::GcSeparate => Box::new(GcSeparate),
    }
}

/// Streams a config's policy uses, without building it.
pub fn streams_of(c: PlacementConfig) -> usize {
    build(c).streams()
}
