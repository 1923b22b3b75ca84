//! Newtypes for simulated time and addresses, so a page number is never mistaken for a byte.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Longest time one operation may take (ns): 2^40 ns, about 18 minutes. Per-operation
/// durations (latencies, overheads, a transfer of 4 KiB) are summed into plane queues and
/// busy counters and turned into energy (pJ = V x mA x ns), so they keep 24 bits of headroom
/// below `u64`; no real flash, link or codec comes anywhere near.
pub const MAX_OP_NS: u64 = 1 << 40;

/// Longest period or interval (ns): 2^62 ns, about 146 years. Periods (timeline interval,
/// SMART interval, timeouts, warm-up) are only ever added to the current time.
pub const MAX_PERIOD_NS: u64 = 1 << 62;

/// Config value `value`, in units of `ns_per_unit` ns (1e3 for `_us`, 1e6 for `_ms`), as
/// integer nanoseconds (rounded). Refused, naming `key`, when it is NaN, infinite, negative
/// or longer than `max_ns` ([`MAX_OP_NS`] or [`MAX_PERIOD_NS`]): a duration that does not
/// fit must never wrap or saturate into a different one. The one conversion of config
/// durations to simulated time.
pub fn duration_ns(key: &str, value: f64, ns_per_unit: f64, max_ns: u64) -> Result<u64> {
    let ns = (value * ns_per_unit).round();
    if !value.is_finite() || value < 0.0 || !ns.is_finite() {
        return Err(Error::config(
            "config",
            key,
            format!("expected a finite duration of at least 0, got {value}"),
        ));
    }
    if ns > max_ns as f64 {
        return Err(Error::config(
            "config",
            key,
            format!(
                "{value} is {ns:e} ns, longer than the simulator's limit of {max_ns} ns ({:.3e} s) for this kind of duration",
                max_ns as f64 * 1e-9
            ),
        ));
    }
    Ok(ns as u64)
}

/// Time to move one byte at `mb_per_s` MB/s (ns, fractional). Refused, naming `key`, unless
/// the rate is finite and positive and 4 KiB take at most [`MAX_OP_NS`]; products with a
/// transfer's length are then converted with [`bytes_ns`].
pub fn ns_per_byte(key: &str, mb_per_s: f64) -> Result<f64> {
    // bytes / (MB/s) = bytes / (1e6 B/s) s = bytes * 1e3 / rate ns
    let per_byte = 1e3 / mb_per_s;
    if !(mb_per_s.is_finite() && mb_per_s > 0.0) || per_byte * 4096.0 > MAX_OP_NS as f64 {
        return Err(Error::config(
            "config",
            key,
            format!(
                "expected a finite rate above 0 at which 4 KiB take at most {MAX_OP_NS} ns, got {mb_per_s} MB/s"
            ),
        ));
    }
    Ok(per_byte)
}

/// `bytes` at `ns_per_byte` (from [`ns_per_byte`]), rounded; saturating, so a transfer too
/// long for the horizon reaches it instead of wrapping.
#[inline]
pub fn bytes_ns(bytes: u64, ns_per_byte: f64) -> u64 {
    // `as` saturates (and a non-negative finite product is never NaN).
    (bytes as f64 * ns_per_byte).round() as u64
}

/// Simulated time in integer nanoseconds since the start of the run.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
pub struct SimTime(pub u64);

impl SimTime {
    /// Time zero.
    pub const ZERO: SimTime = SimTime(0);
    /// The last representable instant (2^64 - 2 ns, about 584 years): sums that would pass it
    /// stop here, and a run that reaches it ends with a `ConfigError` naming the config's
    /// longest per-operation time. (`u64::MAX` itself is the scheduler's "never".)
    pub const HORIZON: SimTime = SimTime(u64::MAX - 1);
    /// From seconds (rounded to the nearest ns; saturating, NaN is zero).
    pub fn from_secs_f64(s: f64) -> SimTime {
        SimTime(((s * 1e9).round() as u64).min(Self::HORIZON.0))
    }
    /// As seconds.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// Later of two times.
    #[inline]
    pub fn max(self, o: SimTime) -> SimTime {
        if self.0 >= o.0 {
            self
        } else {
            o
        }
    }
}

/// Saturating at [`SimTime::HORIZON`]: a sum past the end of representable time stays there
/// (and the run then fails with a `ConfigError`) instead of wrapping to an earlier time.
impl std::ops::Add<u64> for SimTime {
    type Output = SimTime;
    #[inline]
    fn add(self, ns: u64) -> SimTime {
        SimTime(self.0.saturating_add(ns).min(Self::HORIZON.0))
    }
}

/// Logical page number (host address space in mapping units). 64 bits: a 16 TiB device of
/// 4 KiB units has 2^32 of them (the page map numbers up to 2^40, `ftl::unitmap`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lpn(pub u64);

/// Physical page number: `block * pages_per_block + page`. 64 bits: a 64-128 TiB array of
/// 16 KiB pages has more than 2^32 pages (block and plane numbers stay 32-bit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ppn(pub u64);

impl Ppn {
    /// No page: a GC move's destination when the page is only read out (dedup in GC).
    pub const NONE: Ppn = Ppn(u64::MAX);
}

/// Global block index: `plane * blocks_per_plane + block_in_plane`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockId(pub u32);

/// Global plane index (channel-major: channel, chip, die, plane).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PlaneId(pub u32);

#[cfg(test)]
mod tests {
    use super::*;

    fn key_of(r: Result<u64>) -> String {
        match r {
            Err(Error::Config { key, .. }) => key,
            other => panic!("expected a config error, got {other:?}"),
        }
    }

    #[test]
    fn durations_convert_exactly_or_are_refused_by_key() {
        assert_eq!(duration_ns("k", 1.5, 1e3, MAX_OP_NS).unwrap(), 1_500);
        assert_eq!(duration_ns("k", 0.0, 1e6, MAX_OP_NS).unwrap(), 0);
        // Tiny values round to the nearest ns.
        assert_eq!(duration_ns("k", 1e-300, 1e3, MAX_OP_NS).unwrap(), 0);
        assert_eq!(duration_ns("k", 0.0006, 1e3, MAX_OP_NS).unwrap(), 1);
        // The limits themselves fit; one more ns does not.
        let max_us = MAX_OP_NS as f64 / 1e3;
        assert_eq!(duration_ns("k", max_us, 1e3, MAX_OP_NS).unwrap(), MAX_OP_NS);
        assert_eq!(
            key_of(duration_ns("a.b_us", max_us + 0.001, 1e3, MAX_OP_NS)),
            "a.b_us"
        );
        assert_eq!(
            duration_ns("k", MAX_PERIOD_NS as f64, 1.0, MAX_PERIOD_NS).unwrap(),
            MAX_PERIOD_NS
        );
        for bad in [
            1e20,
            1e300,
            f64::MAX,
            f64::INFINITY,
            f64::NAN,
            -1.0,
            -0.0001,
        ] {
            assert_eq!(
                key_of(duration_ns("x_us", bad, 1e3, MAX_PERIOD_NS)),
                "x_us",
                "{bad}"
            );
        }
        // A product that overflows f64 is refused too.
        assert_eq!(
            key_of(duration_ns("x_ms", 1e305, 1e6, MAX_PERIOD_NS)),
            "x_ms"
        );
    }

    #[test]
    fn rates_are_refused_when_4_kib_would_not_fit() {
        assert_eq!(ns_per_byte("r", 1000.0).unwrap(), 1.0);
        assert_eq!(bytes_ns(4096, ns_per_byte("r", 400.0).unwrap()), 10_240);
        // 4 KiB in exactly MAX_OP_NS is the slowest rate accepted.
        let slowest = 4096.0 * 1e3 / MAX_OP_NS as f64;
        assert!(ns_per_byte("r", slowest).is_ok());
        for bad in [slowest / 2.0, 1e-300, 0.0, -1.0, f64::NAN, f64::INFINITY] {
            match ns_per_byte("h.link_mb_per_s", bad) {
                Err(Error::Config { key, .. }) => assert_eq!(key, "h.link_mb_per_s"),
                other => panic!("{bad}: {other:?}"),
            }
        }
        // Products saturate instead of wrapping.
        assert_eq!(bytes_ns(u64::MAX, 1e6), u64::MAX);
    }

    #[test]
    fn time_sums_stop_at_the_horizon() {
        assert_eq!(SimTime(5) + 7, SimTime(12));
        assert_eq!(SimTime::HORIZON + 1, SimTime::HORIZON);
        assert_eq!(SimTime(u64::MAX - 10) + u64::MAX, SimTime::HORIZON);
        assert_eq!(SimTime(1) + (u64::MAX - 2), SimTime::HORIZON);
        assert!(SimTime::HORIZON < SimTime(u64::MAX));
        assert_eq!(SimTime::from_secs_f64(1e300), SimTime::HORIZON);
        assert_eq!(SimTime::from_secs_f64(2.5), SimTime(2_500_000_000));
    }
}
