//! Workloads: where requests come from.
//!
//! A workload is a set of [`Stream`]s. Each stream is a [`RequestSource`] plus how it is driven:
//! closed loop (a fixed number of requests in flight, the next issued when one completes) or
//! open loop (each request arrives at its own timestamp). fio job files become closed-loop
//! streams (numjobs x iodepth); block traces become an open-loop stream when timestamps are
//! honoured, or a closed-loop stream of depth `queue_depth` when replayed as fast as possible.

pub mod fio;
pub mod trace;

use crate::error::Result;
use crate::units::SimTime;

/// Operation of a block request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// Read `len` bytes.
    Read,
    /// Write `len` bytes.
    Write,
    /// Discard (TRIM) `len` bytes: the range no longer holds data.
    Trim,
}

/// One block-level request as the host submits it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// Arrival time for open-loop sources (ignored by closed-loop streams, which issue on completion).
    pub time: SimTime,
    /// Operation.
    pub op: Op,
    /// Byte offset on the device's logical space.
    pub offset: u64,
    /// Length in bytes (> 0).
    pub len: u64,
    /// Content id of the first 4 KiB block written (writes only); block `i` of the request holds
    /// `content.wrapping_add(i)`. For FIU traces this is the first 64 bits of the line's MD5
    /// (dedup identity); for generated data a per-stream unique or deliberately repeated id.
    pub content: u64,
}

/// Something that yields requests in order.
pub trait RequestSource {
    /// The next request, `Ok(None)` when exhausted. `now` is the simulated time at which a
    /// closed-loop stream asks (time-based sources stop once their runtime has elapsed).
    fn next_request(&mut self, now: SimTime) -> Result<Option<Request>>;

    /// Fraction of the source consumed so far in [0, 1], when it can tell (for progress bars).
    fn progress(&self, _now: SimTime) -> Option<f64> {
        None
    }
}

/// What a stream says about the bytes it writes (used by the content model).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct ContentHints {
    /// fio `buffer_compress_percentage`: target percentage of each buffer that compresses away.
    pub compress_percentage: Option<u32>,
    /// fio `dedupe_percentage`: percentage of written blocks that repeat earlier content.
    pub dedupe_percentage: u32,
}

/// How a stream is driven.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drive {
    /// `depth` requests in flight; the next is issued when one completes.
    Closed { depth: u32 },
    /// Each request arrives at its own `time`.
    Open,
}

/// A request source with its drive mode and the stonewall group it belongs to
/// (group `g` starts once every stream of group `g-1` has finished).
pub struct Stream {
    /// Display name (fio job name or trace file name).
    pub name: String,
    /// Where requests come from.
    pub source: Box<dyn RequestSource + Send>,
    /// Closed or open loop.
    pub drive: Drive,
    /// Stonewall group (0-based, nondecreasing in stream order).
    pub group: u32,
    /// Content properties of what the stream writes.
    pub content: ContentHints,
}
