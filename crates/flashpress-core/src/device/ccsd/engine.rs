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
    /// A whole unit's run time and energy, `[decompress][throttled]`: [`Engine::run_ns`] of
    /// [`Engine::unit_ns`] and [`Engine::pj`] of that, worked out once rather than with two
    /// `round` calls per block on the hot path.
    whole: [[(u64, u64); 2]; 2],
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
        let mut e = Engine {
            lanes: vec![SimTime::ZERO; lanes.max(1) as usize],
            compress_ns,
            decompress_ns,
            active_mw,
            speed,
            power,
            whole: [[(0, 0); 2]; 2],
            busy_ns: 0,
            energy_pj: 0,
            pending_pj: 0,
        };
        for decompress in [false, true] {
            for throttled in [false, true] {
                let ns = e.run_ns(e.unit_ns(decompress) as f64, throttled);
                e.whole[decompress as usize][throttled as usize] = (ns, e.pj(ns, throttled));
            }
        }
        e
    }

    /// A whole unit's run time (ns) and energy (pJ) in one throttle state: the same as
    /// [`Engine::run_ns`] of [`Engine::unit_ns`] and [`Engine::pj`] of that.
    #[inline(always)]
    pub fn whole_unit(&self, decompress: bool, throttled: bool) -> (u64, u64) {
        self.whole[decompress as usize][throttled as usize]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_unit_costs_its_time_and_energy_in_each_throttle_state() {
        // 2 lanes, 100 ns compress, 50 ns decompress, 1000 mW, throttled at 0.3x speed and
        // 0.5x power: 100 / 0.3 = 333.3 -> 333 ns, 50 / 0.3 = 166.7 -> 167 ns; mW x ns = pJ.
        let e = Engine::new(2, 100, 50, 1000.0, 0.3, 0.5);
        assert_eq!(e.whole_unit(false, false), (100, 100_000));
        assert_eq!(e.whole_unit(true, false), (50, 50_000));
        assert_eq!(e.whole_unit(false, true), (333, 166_500));
        assert_eq!(e.whole_unit(true, true), (167, 83_500));
    }
}
