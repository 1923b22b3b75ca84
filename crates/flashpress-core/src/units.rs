//! Newtypes for simulated time and addresses, so a page number is never mistaken for a byte.

use serde::{Deserialize, Serialize};

/// Simulated time in integer nanoseconds since the start of the run.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
pub struct SimTime(pub u64);

impl SimTime {
    /// Time zero.
    pub const ZERO: SimTime = SimTime(0);
    /// From microseconds (rounded to the nearest ns).
    pub fn from_us(us: f64) -> SimTime {
        SimTime((us * 1e3).round() as u64)
    }
    /// From seconds (rounded to the nearest ns).
    pub fn from_secs_f64(s: f64) -> SimTime {
        SimTime((s * 1e9).round() as u64)
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

impl std::ops::Add<u64> for SimTime {
    type Output = SimTime;
    #[inline]
    fn add(self, ns: u64) -> SimTime {
        SimTime(self.0 + ns)
    }
}

/// Logical page number (host address space in mapping units).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lpn(pub u32);

/// Physical page number: `block * pages_per_block + page`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ppn(pub u32);

/// Global block index: `plane * blocks_per_plane + block_in_plane`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockId(pub u32);

/// Global plane index (channel-major: channel, chip, die, plane).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PlaneId(pub u32);
