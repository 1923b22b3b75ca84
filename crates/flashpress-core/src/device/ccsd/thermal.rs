//! The CCSD's first-order thermal model, throttling and thermal shutdown.
//!
//! Over a step of length `h` with power `P` held constant, `C dT/dt = P - (T - T_env) / R`
//! integrates exactly to `T' = T_env + (T - T_env) e^{-h/tau} + R P (1 - e^{-h/tau})`.
//! `P` is idle power plus leakage (evaluated at the step's starting temperature) plus the
//! energy the device booked (NAND, engine, link) since the previous call, spread evenly over
//! the elapsed interval. Steps are at most `step_ms` long; a call between step boundaries
//! integrates the remainder exactly, so the temperature is always current at the last call.

use crate::config::ThermalConfig;
use crate::units::SimTime;

/// Thermal state and energy accounting.
#[derive(Debug, Clone)]
pub struct Thermal {
    c: ThermalConfig,
    t_env: f64,
    initial: f64,
    step_ns: u64,
    a_step: f64,
    throttling: bool,
    throttle_c: f64,
    release_c: f64,
    emergency_c: f64,
    /// Temperature at `last` (°C).
    pub temp: f64,
    last: SimTime,
    /// Booked energy not yet spread (pJ).
    pending_pj: f64,
    /// The engine is throttled.
    pub throttled: bool,
    /// The device has shut down.
    pub shutdown: bool,
    /// When throttling first started.
    pub first_throttle: Option<SimTime>,
    /// When the device shut down.
    pub shutdown_at: Option<SimTime>,
    /// Time spent throttled (ns).
    pub throttled_ns: u64,
    /// Highest temperature reached (°C).
    pub max_temp: f64,
    /// Idle energy (J).
    pub idle_j: f64,
    /// Leakage energy (J).
    pub leak_j: f64,
    /// Energy the model dissipated up to `last` (J): idle, leakage and booked work, as it
    /// heats the device (booked work counts when it is spread, not when it is booked).
    pub heat_j: f64,
}

impl Thermal {
    /// At the initial temperature, at time zero, integrating in steps of `step_ns` (from
    /// `thermal.step_ms`, checked by the caller). `throttling`: whether the device throttles
    /// by itself; shutdown at `emergency_c` is always on.
    pub fn new(
        c: &ThermalConfig,
        step_ns: u64,
        throttling: bool,
        throttle_c: f64,
        release_c: f64,
        emergency_c: f64,
    ) -> Thermal {
        let t_env = c.ambient_c + c.neighbour_c;
        let initial = c.initial_c.unwrap_or(t_env);
        let mut t = Thermal {
            c: c.clone(),
            t_env,
            initial,
            step_ns,
            a_step: (-(step_ns as f64 * 1e-9) / c.tau_s).exp(),
            throttling,
            throttle_c,
            release_c,
            emergency_c,
            temp: initial,
            last: SimTime::ZERO,
            pending_pj: 0.0,
            throttled: false,
            shutdown: false,
            first_throttle: None,
            shutdown_at: None,
            throttled_ns: 0,
            max_temp: initial,
            idle_j: 0.0,
            leak_j: 0.0,
            heat_j: 0.0,
        };
        t.check(SimTime::ZERO);
        t
    }

    /// Back to the initial temperature at time zero, with nothing booked or recorded.
    pub fn reset(&mut self) {
        *self = Thermal::new(
            &self.c,
            self.step_ns,
            self.throttling,
            self.throttle_c,
            self.release_c,
            self.emergency_c,
        );
    }

    /// Surroundings' temperature.
    pub fn t_env(&self) -> f64 {
        self.t_env
    }

    /// Book energy of work reserved now (pJ); it heats the device over the next interval.
    #[inline]
    pub fn book_pj(&mut self, pj: f64) {
        self.pending_pj += pj;
    }

    #[inline]
    fn leak_w(&self, t: f64) -> f64 {
        if self.c.leak_w == 0.0 {
            0.0
        } else {
            self.c.leak_w * ((t - self.c.leak_ref_c) / self.c.leak_scale_c).exp()
        }
    }

    /// Apply the thresholds at time `at`.
    #[inline]
    fn check(&mut self, at: SimTime) {
        if self.temp > self.max_temp {
            self.max_temp = self.temp;
        }
        if self.shutdown {
            return;
        }
        if self.temp >= self.emergency_c {
            self.shutdown = true;
            self.shutdown_at = Some(at);
            self.throttled = false;
        } else if self.throttling {
            if !self.throttled && self.temp >= self.throttle_c {
                self.throttled = true;
                self.first_throttle.get_or_insert(at);
            } else if self.throttled && self.temp < self.release_c {
                self.throttled = false;
            }
        }
    }

    /// Integrate up to `now`.
    pub fn advance(&mut self, now: SimTime) {
        if now <= self.last {
            return;
        }
        let dt = now.0 - self.last.0;
        // Booked energy over the interval, as a constant power (W = pJ / ns * 1e-3).
        let extra_w = if self.shutdown {
            0.0
        } else {
            self.pending_pj * 1e-3 / dt as f64
        };
        self.pending_pj = 0.0;
        let (r, tau) = (self.c.r_c_per_w, self.c.tau_s);
        let mut t = self.last;
        while t < now {
            let h = (now.0 - t.0).min(self.step_ns);
            let a = if h == self.step_ns {
                self.a_step
            } else {
                (-(h as f64 * 1e-9) / tau).exp()
            };
            let p = if self.shutdown {
                0.0
            } else {
                let leak = self.leak_w(self.temp);
                let hs = h as f64 * 1e-9;
                self.idle_j += self.c.idle_w * hs;
                self.leak_j += leak * hs;
                if self.throttled {
                    self.throttled_ns += h;
                }
                let p = self.c.idle_w + leak + extra_w;
                self.heat_j += p * hs;
                p
            };
            self.temp = self.t_env + (self.temp - self.t_env) * a + r * p * (1.0 - a);
            t = t + h;
            self.check(t);
        }
        self.last = now;
    }

    /// Initial temperature.
    pub fn initial(&self) -> f64 {
        self.initial
    }

    /// The time the model is integrated to and the energy it dissipated by then (J).
    pub fn heat(&self) -> (SimTime, f64) {
        (self.last, self.heat_j)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_the_closed_form_under_constant_power() {
        let c = ThermalConfig {
            ambient_c: 20.0,
            idle_w: 4.0,
            r_c_per_w: 2.5,
            tau_s: 50.0,
            step_ms: 100.0,
            ..ThermalConfig::default()
        };
        let mut th = Thermal::new(&c, 100_000_000, true, 1e9, 1e9, 2e9);
        let mut now = 0u64;
        for k in 1..2000u64 {
            // Irregular calls: partial steps and multi-step jumps.
            now += (k * 7_919_113) % 450_000_000 + 1;
            th.advance(SimTime(now));
            let s = now as f64 * 1e-9;
            let want = 20.0 + 10.0 * (1.0 - (-s / 50.0).exp());
            assert!(
                ((th.temp - want) / want).abs() < 1e-9,
                "t = {s}: {} vs {want}",
                th.temp
            );
        }
    }
}
