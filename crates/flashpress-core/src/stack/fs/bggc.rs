//! Background segment cleaning in idle time (F2FS `gc_thread_func` in `fs/f2fs/gc.c`).
//!
//! The cleaner sleeps `wait` (starting at `min_sleep_ms`) between wake-ups. On a wake-up:
//! - if the file system is not idle (a request arrived less than `idle_ms` ago, or its I/O is
//!   still in flight: F2FS `is_idle(GC_TIME)`), it sleeps longer (`increase_sleep_time`:
//!   `+ min_sleep`, at most `max_sleep`) and does nothing;
//! - otherwise it shortens the sleep (`decrease_sleep_time`) when there are enough invalid
//!   blocks and too few free ones (`has_enough_invalid_blocks`: invalid user blocks above 40%
//!   of the user blocks and free user blocks below 40% of the invalid ones), lengthens it
//!   otherwise, and cleans one segment chosen by **cost-benefit** (F2FS `get_cb_cost`: the
//!   most `(1 - u) · age / (1 + u)`, `u` the segment's valid share and `age` its mean write
//!   time scaled to 0..100 between the youngest and oldest dirty segments; a segment of age
//!   0 is never taken). With no victim it sleeps `no_gc_sleep_ms`.
//!
//! Its copies go to the cold log like foreground cleaning's, issued at the wake-up time: no
//! request waits for them, later requests find the device busy. Foreground cleaning stays
//! greedy ([`super::clean`]).

use super::segments::SegState;
use super::{Fs, FsCtx};
use crate::config::BgGcConfig;
use crate::error::Result;
use crate::units::SimTime;

/// F2FS `LIMIT_INVALID_BLOCK` and `LIMIT_FREE_BLOCK` (percent).
const LIMIT_INVALID_BLOCK: u64 = 40;
const LIMIT_FREE_BLOCK: u64 = 40;

fn ms(v: f64) -> u64 {
    (v * 1e6).round().max(1.0) as u64
}

/// The background cleaner's state.
#[derive(Debug, Clone)]
pub(super) struct BgGc {
    enabled: bool,
    min_ns: u64,
    max_ns: u64,
    no_gc_ns: u64,
    idle_ns: u64,
    wait_ns: u64,
    next_wake: SimTime,
    /// Arrival of the latest request.
    pub last_request: SimTime,
    /// Completion of the latest request's I/O.
    pub last_done: SimTime,
}

impl BgGc {
    pub(super) fn new(c: &BgGcConfig) -> BgGc {
        let min_ns = ms(c.min_sleep_ms);
        BgGc {
            enabled: c.enabled,
            min_ns,
            max_ns: ms(c.max_sleep_ms).max(min_ns),
            no_gc_ns: ms(c.no_gc_sleep_ms),
            idle_ns: ms(c.idle_ms),
            wait_ns: min_ns,
            next_wake: SimTime(min_ns),
            last_request: SimTime::ZERO,
            last_done: SimTime::ZERO,
        }
    }

    fn increase(&mut self) {
        if self.wait_ns != self.no_gc_ns {
            self.wait_ns = (self.wait_ns + self.min_ns).min(self.max_ns);
        }
    }

    fn decrease(&mut self) {
        if self.wait_ns == self.no_gc_ns {
            self.wait_ns = self.max_ns;
        }
        self.wait_ns = self.wait_ns.saturating_sub(self.min_ns).max(self.min_ns);
    }

    fn idle(&self, t: SimTime) -> bool {
        t >= self.last_done && t.0 >= self.last_request.0.saturating_add(self.idle_ns)
    }
}

impl Fs {
    /// When [`Fs::on_tick`] next has work: the background cleaner's next wake-up or the next
    /// periodic checkpoint, whichever is first (`None`: neither is on).
    pub fn next_background(&self) -> Option<SimTime> {
        let wake = self.bg.enabled.then_some(self.bg.next_wake);
        let cp = self.nodes.enabled.then_some(self.nodes.next_cp);
        wake.into_iter().chain(cp).min()
    }

    /// Time-based work up to `now`: the background cleaner's wake-ups and a due checkpoint.
    /// Called between requests (the stack's periodic tick).
    pub fn on_tick(&mut self, ctx: &mut FsCtx<'_>, now: SimTime) -> Result<()> {
        while self.bg.enabled && self.bg.next_wake <= now {
            let t = self.bg.next_wake;
            self.counters.bggc_wakeups += 1;
            if !self.bg.idle(t) {
                self.bg.increase();
            } else {
                if self.has_enough_invalid_blocks() {
                    self.bg.decrease();
                } else {
                    self.bg.increase();
                }
                if self.bg_clean_one(ctx, t)? {
                    if self.bg.wait_ns == self.bg.no_gc_ns {
                        self.bg.wait_ns = self.bg.min_ns;
                    }
                } else {
                    self.bg.wait_ns = self.bg.no_gc_ns;
                }
            }
            self.bg.next_wake = SimTime(t.0 + self.bg.wait_ns);
        }
        if self.nodes.enabled && now >= self.nodes.next_cp {
            let t = self.nodes.next_cp;
            self.begin_background(t);
            self.checkpoint(ctx, t)?;
            self.end(ctx)?;
        }
        Ok(())
    }

    /// F2FS `has_enough_invalid_blocks`.
    fn has_enough_invalid_blocks(&self) -> bool {
        let s = self.seg.s as u64;
        let invalid = self.user_blocks.saturating_sub(self.seg.total_valid);
        let free_user = self.seg.free.saturating_sub(self.rs) * s;
        invalid > self.user_blocks * LIMIT_INVALID_BLOCK / 100
            && free_user < invalid * LIMIT_FREE_BLOCK / 100
    }

    /// The dirty segment F2FS's cost-benefit policy picks, if any.
    pub(super) fn cb_victim(&self) -> Option<u32> {
        let (mut lo, mut hi) = (u64::MAX, 0u64);
        for seg in self.seg.dirty_closed() {
            let m = self.seg.mtime[seg as usize];
            lo = lo.min(m);
            hi = hi.max(m);
        }
        let s = self.seg.s as u64;
        let mut best: Option<(u64, u32)> = None;
        for seg in self.seg.dirty_closed() {
            let u = self.seg.valid[seg as usize] as u64 * 100 / s;
            let m = self.seg.mtime[seg as usize];
            let age = if hi > lo {
                100 - 100 * (m - lo) / (hi - lo)
            } else {
                0
            };
            let benefit = 100 * (100 - u) * age / (100 + u);
            if benefit > 0 && best.is_none_or(|(b, _)| benefit > b) {
                best = Some((benefit, seg));
            }
        }
        best.map(|(_, seg)| seg)
    }

    /// Clean one cost-benefit victim at `t` in the background; whether there was one.
    fn bg_clean_one(&mut self, ctx: &mut FsCtx<'_>, t: SimTime) -> Result<bool> {
        let Some(v) = self.cb_victim() else {
            return Ok(false);
        };
        self.begin_background(t);
        self.seg.take(v, SegState::Cleaning);
        self.in_cleaning = true;
        let r = self.clean_segment(ctx, v, true);
        self.in_cleaning = false;
        let stopped = r?;
        if stopped {
            self.seg.uncleaned(v);
        }
        self.end(ctx)?;
        self.counters.bggc_segments += 1;
        Ok(true)
    }

    /// Set up the per-request timing state for background work at `t` (no request).
    pub(super) fn begin_background(&mut self, t: SimTime) {
        self.t_floor = t;
        self.acc_done = t;
        self.acc_failed = false;
        self.seg.clock = t.0;
    }
}
