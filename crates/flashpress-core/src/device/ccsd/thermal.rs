//! The CCSD's first-order thermal model, throttling and thermal shutdown.
//!
//! Over a step of length `h` with power `P` held constant, `C dT/dt = P - (T - T_env) / R`
//! integrates exactly to `T' = T_env + (T - T_env) e^{-h/tau} + R P (1 - e^{-h/tau})`.
//! `P` is idle power plus leakage (evaluated at the step's starting temperature) plus the
//! energy the device booked (NAND, engine, link) since the previous call, spread evenly over
//! the elapsed interval. Steps are at most `step_ms` long; a call between step boundaries
//! integrates the remainder exactly, so the temperature is always current at the last call.
//!
//! A *quiet* stretch (nothing booked and no leakage, or shut down) has constant power, so its
//! temperature is the closed form `T(t) = T_env + R P + (T_a - T_env - R P) e^{-(t - t_a)/tau}`
//! from the stretch's first instant `t_a` (its anchor), and its energies are whole picojoules
//! per step. Both depend only on the anchor and the step, not on how the stretch is cut into
//! calls, so one call over `k` steps gives the same bytes as `k` calls of one step; when no
//! threshold lies between the first and the last of those steps (the closed form is
//! monotone) the call takes the `k` steps at once. An idle device thus costs one call per
//! idle stretch, however long (see `Stack::idle_tick`).

use crate::config::ThermalConfig;
use crate::units::SimTime;
use std::collections::VecDeque;

/// Where a quiet stretch began: the closed form's anchor.
#[derive(Debug, Clone, Copy)]
struct Quiet {
    at: SimTime,
    temp: f64,
    /// The stretch's constant power (W).
    p: f64,
}

/// Energy of `w` watts over `h` ns in whole picojoules (W x ns = nJ).
#[inline]
fn pj(w: f64, h: u64) -> u128 {
    (w * h as f64 * 1e3).round() as u128
}

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
    /// Idle energy (pJ).
    idle_pj: u128,
    /// Leakage energy (pJ).
    leak_pj: u128,
    /// Energy the model dissipated up to `last` (pJ): idle, leakage and booked work, as it
    /// heats the device (booked work counts when it is spread, not when it is booked).
    heat_pj: u128,
    /// The quiet stretch the model is in, if any.
    quiet: Option<Quiet>,
    /// Throttle state changes (when, throttled from then on), oldest first; the first entry
    /// is at or before every time the model is still asked about ([`Thermal::forget_before`]).
    changes: VecDeque<(SimTime, bool)>,
}

/// The engine's state at an instant, as the model gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineState {
    /// The engine is throttled.
    pub throttled: bool,
    /// The state holds until then at least (`None`: for good, the device has shut down).
    pub until: Option<SimTime>,
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
            idle_pj: 0,
            leak_pj: 0,
            heat_pj: 0,
            quiet: None,
            changes: VecDeque::new(),
        };
        t.check(SimTime::ZERO);
        if t.changes.is_empty() {
            t.changes.push_back((SimTime::ZERO, t.throttled));
        }
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
        let was = self.throttled;
        self.apply_thresholds(at);
        if self.throttled != was {
            self.changes.push_back((at, self.throttled));
        }
    }

    #[inline]
    fn apply_thresholds(&mut self, at: SimTime) {
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
        // A threshold lies ahead once a jump was refused: step from there on.
        let mut jump = true;
        while t < now {
            let h = (now.0 - t.0).min(self.step_ns);
            let quiet_p = if self.shutdown {
                Some(0.0)
            } else if extra_w == 0.0 && self.c.leak_w == 0.0 {
                Some(self.c.idle_w)
            } else {
                None
            };
            let Some(p) = quiet_p else {
                self.quiet = None;
                let a = if h == self.step_ns {
                    self.a_step
                } else {
                    (-(h as f64 * 1e-9) / tau).exp()
                };
                let leak = self.leak_w(self.temp);
                self.idle_pj += pj(self.c.idle_w, h);
                self.leak_pj += pj(leak, h);
                if self.throttled {
                    self.throttled_ns += h;
                }
                let p = self.c.idle_w + leak + extra_w;
                self.heat_pj += pj(p, h);
                self.temp = self.t_env + (self.temp - self.t_env) * a + r * p * (1.0 - a);
                t = t + h;
                self.check(t);
                continue;
            };
            let q = match self.quiet {
                Some(q) if q.p == p => q,
                _ => {
                    let q = Quiet {
                        at: t,
                        temp: self.temp,
                        p,
                    };
                    self.quiet = Some(q);
                    q
                }
            };
            let steps = (now.0 - t.0) / self.step_ns;
            if jump && steps >= 2 {
                let end = t + steps * self.step_ns;
                let first = self.closed(q, t + self.step_ns);
                let last = self.closed(q, end);
                if self.steady_between(first.min(last), first.max(last)) {
                    self.take_quiet_steps(steps, self.step_ns, p);
                    self.max_temp = self.max_temp.max(first).max(last);
                    self.temp = last;
                    t = end;
                    continue;
                }
                jump = false;
            }
            self.take_quiet_steps(1, h, p);
            t = t + h;
            self.temp = self.closed(q, t);
            self.check(t);
        }
        self.last = now;
    }

    /// The temperature at `at` of the quiet stretch anchored at `q`.
    #[inline]
    fn closed(&self, q: Quiet, at: SimTime) -> f64 {
        let plateau = self.t_env + self.c.r_c_per_w * q.p;
        let e = (-((at.0 - q.at.0) as f64 * 1e-9) / self.c.tau_s).exp();
        plateau + (q.temp - plateau) * e
    }

    /// Whether a temperature anywhere in `lo..=hi` leaves every threshold as it is.
    fn steady_between(&self, lo: f64, hi: f64) -> bool {
        if self.shutdown {
            return true;
        }
        hi < self.emergency_c
            && (!self.throttling
                || if self.throttled {
                    lo >= self.release_c
                } else {
                    hi < self.throttle_c
                })
    }

    /// The energies and throttled time of `n` quiet steps of `h` ns at `p` watts.
    fn take_quiet_steps(&mut self, n: u64, h: u64, p: f64) {
        if self.shutdown {
            return;
        }
        let e = pj(p, h) * n as u128;
        self.idle_pj += e;
        self.heat_pj += e;
        if self.throttled {
            self.throttled_ns += n * h;
        }
    }

    /// Idle energy so far (J).
    pub fn idle_j(&self) -> f64 {
        self.idle_pj as f64 * 1e-12
    }

    /// Leakage energy so far (J).
    pub fn leak_j(&self) -> f64 {
        self.leak_pj as f64 * 1e-12
    }

    /// Whether the model is integrated to `at` with nothing booked since: a call over an
    /// idle stretch from `at` integrates it as calls at every step would.
    pub fn settled_at(&self, at: SimTime) -> bool {
        self.last == at && self.pending_pj == 0.0
    }

    /// The time the model is integrated to.
    #[inline]
    pub fn last(&self) -> SimTime {
        self.last
    }

    /// Length of a full integration step (ns).
    #[inline]
    pub fn step_ns(&self) -> u64 {
        self.step_ns
    }

    /// Whether the device has shut down at or before `t` (as far as the model is
    /// integrated).
    #[inline]
    pub fn down_by(&self, t: SimTime) -> bool {
        self.shutdown_at.is_some_and(|s| s <= t)
    }

    /// The engine's state at `t`, no earlier than the last [`Thermal::forget_before`]: from
    /// the recorded changes when `t` is before the time the model is integrated to, else the
    /// current state, which holds until the next integration step ends. `None` when the
    /// device has shut down by `t`.
    pub fn engine_state(&self, t: SimTime) -> Option<EngineState> {
        if self.down_by(t) {
            return None;
        }
        let ahead = self.shutdown_at.filter(|&s| s > t);
        if t >= self.last {
            let next = SimTime(self.last.0 + self.step_ns);
            return Some(EngineState {
                throttled: self.throttled,
                until: Some(ahead.map_or(next, |s| s.min(next))),
            });
        }
        // The latest change at or before `t`, and the next after it.
        let k = self.changes.partition_point(|&(at, _)| at <= t);
        debug_assert!(
            k > 0,
            "engine state asked at {t:?}, before the recorded changes"
        );
        let throttled = self.changes[k.saturating_sub(1)].1;
        let next = self
            .changes
            .get(k)
            .map_or(SimTime(self.last.0 + self.step_ns), |c| c.0);
        Some(EngineState {
            throttled,
            until: Some(ahead.map_or(next, |s| s.min(next))),
        })
    }

    /// Forget the state changes before `t` (the model is not asked about earlier times any
    /// more), keeping the one in force at `t`.
    pub fn forget_before(&mut self, t: SimTime) {
        while self.changes.len() >= 2 && self.changes[1].0 <= t {
            self.changes.pop_front();
        }
    }

    /// Initial temperature.
    pub fn initial(&self) -> f64 {
        self.initial
    }

    /// The time the model is integrated to and the energy it dissipated by then (J).
    pub fn heat(&self) -> (SimTime, f64) {
        (self.last, self.heat_pj as f64 * 1e-12)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything the model reports, as bits.
    fn state(th: &Thermal) -> Vec<u64> {
        vec![
            th.temp.to_bits(),
            th.max_temp.to_bits(),
            th.throttled as u64,
            th.shutdown as u64,
            th.throttled_ns,
            th.first_throttle.map_or(u64::MAX, |t| t.0),
            th.shutdown_at.map_or(u64::MAX, |t| t.0),
            th.idle_j().to_bits(),
            th.leak_j().to_bits(),
            th.heat().1.to_bits(),
        ]
    }

    #[test]
    fn a_quiet_stretch_gives_the_same_bytes_in_one_call_as_in_one_call_per_step() {
        let c = ThermalConfig {
            ambient_c: 20.0,
            idle_w: 4.0,
            r_c_per_w: 2.5,
            tau_s: 50.0,
            step_ms: 100.0,
            initial_c: Some(95.0),
            ..ThermalConfig::default()
        };
        // (throttle, release, emergency): hot start shut down; throttled, released while
        // cooling; no threshold in reach; heating towards a plateau (30 °C) past a throttle
        // threshold at 26 °C.
        for (i, &(on, off, emergency, initial)) in [
            (80.0, 70.0, 90.0, 95.0),
            (80.0, 70.0, 200.0, 85.0),
            (80.0, 70.0, 200.0, 60.0),
            (26.0, 25.0, 200.0, 20.0),
        ]
        .iter()
        .enumerate()
        {
            let c = ThermalConfig {
                initial_c: Some(initial),
                ..c.clone()
            };
            let mut a = Thermal::new(&c, 100_000_000, true, on, off, emergency);
            let mut b = a.clone();
            // Some booked work first (stepped, not quiet), then 2000 s of quiet.
            for th in [&mut a, &mut b] {
                th.book_pj(3e12);
                th.advance(SimTime(1_000_000_000));
            }
            let end = 2_001_000_000_000u64;
            a.advance(SimTime(end));
            let mut t = 1_000_000_000u64;
            while t < end {
                t += 100_000_000;
                b.advance(SimTime(t));
            }
            assert_eq!(state(&a), state(&b), "case {i}");
        }
    }

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
