//! The compression engine: `lanes` units that each (de)compress one 4 KiB block at a time,
//! served first come first served on the earliest free lane. While throttled a unit works
//! at `throttle_speed` times its full rate and draws `throttle_power` times the active
//! power; whether it is throttled is the thermal model's state while the unit runs, which
//! the CCSD looks up per unit ([`Ccsd`](super::Ccsd)'s `engine_unit`), so a throttle that
//! begins while units are queued slows the work not yet done.

use crate::units::SimTime;

/// Engine lanes, timing and energy.
#[derive(Debug, Clone)]
pub struct Engine {
    lanes: Vec<SimTime>,
    compress_ns: u64,
    decompress_ns: u64,
    active_mw: f64,
    speed: f64,
    power: f64,
    /// Lane time spent so far (ns).
    pub busy_ns: u64,
    /// Energy spent so far (pJ).
    pub energy_pj: u64,
    /// Energy not yet handed to the thermal model (pJ).
    pub pending_pj: u64,
}

impl Engine {
    /// An idle engine.
    pub fn new(
        lanes: u32,
        compress_ns: u64,
        decompress_ns: u64,
        active_mw: f64,
        speed: f64,
        power: f64,
    ) -> Engine {
        Engine {
            lanes: vec![SimTime::ZERO; lanes.max(1) as usize],
            compress_ns,
            decompress_ns,
            active_mw,
            speed,
            power,
            busy_ns: 0,
            energy_pj: 0,
            pending_pj: 0,
        }
    }

    /// The lane free first and when it is free.
    #[inline(always)]
    pub fn earliest_lane(&self) -> (usize, SimTime) {
        let mut best = 0;
        let mut best_t = self.lanes[0];
        for (i, &t) in self.lanes.iter().enumerate() {
            if t < best_t {
                best = i;
                best_t = t;
            }
        }
        (best, best_t)
    }

    /// Full-rate time of one unit of work (ns).
    #[inline]
    pub fn unit_ns(&self, decompress: bool) -> u64 {
        if decompress {
            self.decompress_ns
        } else {
            self.compress_ns
        }
    }

    /// Time to do `work` full-rate nanoseconds of work (whole ns, rounded).
    #[inline]
    pub fn run_ns(&self, work: f64, throttled: bool) -> u64 {
        if throttled {
            (work / self.speed).round() as u64
        } else {
            work.round() as u64
        }
    }

    /// Full-rate work done in `ns` of lane time.
    #[inline]
    pub fn work_in(&self, ns: u64, throttled: bool) -> f64 {
        if throttled {
            ns as f64 * self.speed
        } else {
            ns as f64
        }
    }

    /// Energy of `ns` of lane time (pJ; mW x ns = pJ).
    #[inline]
    pub fn pj(&self, ns: u64, throttled: bool) -> u64 {
        let mw = if throttled {
            self.active_mw * self.power
        } else {
            self.active_mw
        };
        (mw * ns as f64).round() as u64
    }

    /// Book `lane` busy until `end`, having spent `busy_ns` of lane time and `pj`.
    #[inline]
    pub fn occupy(&mut self, lane: usize, end: SimTime, busy_ns: u64, pj: u64) {
        self.lanes[lane] = end;
        self.busy_ns += busy_ns;
        self.energy_pj += pj;
        self.pending_pj += pj;
    }

    /// Forget lane times and counters.
    pub fn reset(&mut self) {
        self.lanes.iter_mut().for_each(|t| *t = SimTime::ZERO);
        self.busy_ns = 0;
        self.energy_pj = 0;
        self.pending_pj = 0;
    }
}
