//! Adaptive logging: when the data logs append to free segments and when they switch to
//! thread logging (slack space recycling, SSR: writing into the holes of dirty segments), and
//! when foreground cleaning starts — F2FS's own rules (`need_SSR()` and
//! `has_not_enough_free_secs()` in `fs/f2fs/segment.h`), with the reserved segments mkfs.f2fs
//! sets aside for cleaning.
//!
//! - **Reserved segments** (mkfs.f2fs): `100 / ovp + 1 + NR_CURSEG_TYPE` segments for an
//!   overprovision ratio of `ovp` percent (here `rs_ratio`), `NR_CURSEG_TYPE = 6` logs. mkfs
//!   raises the overprovision to at least the reserved segments; this model keeps the user
//!   space that `rs_ratio` gives and clips the reserved segments to the overprovision instead
//!   (they matter only on partitions of a few hundred segments, the reduced scales'), and to
//!   at least the open logs plus one.
//! - **Foreground cleaning** (`has_not_enough_free_secs`): when free segments are at or below
//!   the reserved segments plus the segments the dirty node blocks will need.
//! - **need-SSR** (`mode=adaptive`): data logs thread-log when free segments are at or below
//!   the dirty node segments plus `min_ssr_sections` (the kernel's default: the reserved
//!   sections) plus the reserved segments, i.e. before foreground cleaning would start; node
//!   blocks always take free segments, so cleaning still runs, only later and less.
//! - `mode=lfs` never thread-logs but as the last resort; a fixed `ssr_ratio` keeps the seed's
//!   earlier rule (thread logging below that fraction of free segments).

use super::{Fs, NUM_LOGS};
use crate::config::{FsConfig, FsMode};

/// `NR_CURSEG_TYPE` of F2FS: three data and three node logs.
const NR_CURSEG_TYPE: u64 = 6;

/// When data logs thread-log.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum SsrRule {
    /// Never (`mode=lfs`), but as the last resort when no segment is free.
    Lfs,
    /// Below this fraction of free segments (`ssr_ratio`).
    Fixed(f64),
    /// F2FS's need-SSR rule.
    NeedSsr,
}

impl SsrRule {
    pub(super) fn of(f: &FsConfig) -> SsrRule {
        match (f.mode, f.ssr_ratio) {
            (FsMode::Lfs, _) => SsrRule::Lfs,
            (FsMode::Adaptive, Some(r)) if r.is_finite() => SsrRule::Fixed(r),
            (FsMode::Adaptive, _) => SsrRule::NeedSsr,
        }
    }
}

/// Reserved segments of a partition whose overprovision is `rs_ratio` (`rs_segments`
/// segments): mkfs.f2fs's `100 / ovp + 1 + NR_CURSEG_TYPE`, at most the overprovision, at
/// least the open logs plus one.
pub(super) fn reserved_segments(rs_ratio: f64, rs_segments: u64) -> u64 {
    let floor = NUM_LOGS as u64 + 1;
    let pct = (rs_ratio * 100.0).round() as u64;
    let mkfs = 100u64
        .checked_div(pct)
        .map_or(u64::MAX, |r| r + 1 + NR_CURSEG_TYPE);
    mkfs.min(rs_segments).max(floor)
}

impl Fs {
    /// Segments the dirty node blocks will take when written (F2FS `get_blocktype_secs`).
    pub(super) fn node_segments(&self) -> u64 {
        (self.nodes.dirty_count() as u64).div_ceil(self.seg.s as u64)
    }

    /// F2FS's `has_not_enough_free_secs`: foreground cleaning is due.
    pub(super) fn need_cleaning(&self) -> bool {
        self.seg.free <= self.reserved + self.node_segments()
    }

    /// Whether a data log should thread-log rather than take a free segment now.
    pub(super) fn need_ssr(&self) -> bool {
        match self.ssr_rule {
            SsrRule::Lfs => false,
            SsrRule::Fixed(r) => (self.seg.free as f64) < r * self.segments_total() as f64,
            SsrRule::NeedSsr => self.seg.free <= self.node_segments() + 2 * self.reserved,
        }
    }

    /// Reserved segments (F2FS `reserved_segments`): foreground cleaning keeps this many free.
    pub fn reserved_segments(&self) -> u64 {
        self.reserved
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_segments_follow_mkfs() {
        // 100 / ovp + 1 + 6, by hand: 1% -> 107, 5% -> 27, 20% -> 12.
        assert_eq!(reserved_segments(0.01, 1024), 107);
        assert_eq!(reserved_segments(0.05, 5120), 27);
        assert_eq!(reserved_segments(0.20, 20480), 12);
        // clipped to the overprovision, and to the open logs plus one
        assert_eq!(reserved_segments(0.01, 8), 8);
        assert_eq!(reserved_segments(0.0, 0), NUM_LOGS as u64 + 1);
    }
}
