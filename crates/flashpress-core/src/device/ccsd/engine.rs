//! The compression engine: `lanes` units that each (de)compress one 4 KiB block at a time,
//! as reservations. While throttled every unit takes `1 / throttle_speed` times as long and
//! draws `throttle_power` times the active power.

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
    /// Lane time of one compression / decompression at the current speed.
    cur_compress_ns: u64,
    cur_decompress_ns: u64,
    /// Energy of one compression / decompression at the current speed and power (pJ).
    cur_compress_pj: u64,
    cur_decompress_pj: u64,
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
            cur_compress_ns: compress_ns,
            cur_decompress_ns: decompress_ns,
            cur_compress_pj: 0,
            cur_decompress_pj: 0,
            busy_ns: 0,
            energy_pj: 0,
            pending_pj: 0,
        };
        e.set_throttled(false);
        e
    }

    /// Switch throttling on or off for work reserved from now on.
    pub fn set_throttled(&mut self, on: bool) {
        let scale = |ns: u64| {
            if on {
                (ns as f64 / self.speed).round() as u64
            } else {
                ns
            }
        };
        self.cur_compress_ns = scale(self.compress_ns);
        self.cur_decompress_ns = scale(self.decompress_ns);
        let mw = if on {
            self.active_mw * self.power
        } else {
            self.active_mw
        };
        // mW x ns = pJ.
        self.cur_compress_pj = (mw * self.cur_compress_ns as f64).round() as u64;
        self.cur_decompress_pj = (mw * self.cur_decompress_ns as f64).round() as u64;
    }

    /// Reserve the earliest free lane for `ns` (costing `pj`) from no earlier than `at`;
    /// returns the end.
    #[inline(always)]
    fn run(&mut self, at: SimTime, ns: u64, pj: u64) -> SimTime {
        let mut best = 0;
        let mut best_t = self.lanes[0];
        for (i, &t) in self.lanes.iter().enumerate() {
            if t < best_t {
                best = i;
                best_t = t;
            }
        }
        let end = at.max(best_t) + ns;
        self.lanes[best] = end;
        self.busy_ns += ns;
        self.energy_pj += pj;
        self.pending_pj += pj;
        end
    }

    /// Compress one block whose data is at the controller at `at`; returns when done.
    #[inline]
    pub fn compress(&mut self, at: SimTime) -> SimTime {
        self.run(at, self.cur_compress_ns, self.cur_compress_pj)
    }

    /// Decompress one block whose chunk is at the controller at `at`; returns when done.
    #[inline]
    pub fn decompress(&mut self, at: SimTime) -> SimTime {
        self.run(at, self.cur_decompress_ns, self.cur_decompress_pj)
    }

    /// Forget reservations and counters (keeps the throttle state).
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
    fn lanes_run_in_parallel_and_throttling_slows_them() {
        let mut e = Engine::new(2, 100, 50, 1000.0, 0.1, 0.5);
        assert_eq!(e.compress(SimTime(0)), SimTime(100));
        assert_eq!(e.compress(SimTime(0)), SimTime(100));
        assert_eq!(e.compress(SimTime(0)), SimTime(200));
        assert_eq!(e.energy_pj, 300 * 1000);
        e.set_throttled(true);
        assert_eq!(e.decompress(SimTime(0)), SimTime(600));
        assert_eq!(e.busy_ns, 800);
        assert_eq!(e.energy_pj, 300_000 + 500 * 500);
    }
}
