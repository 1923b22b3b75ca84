//! Workloads: where requests come from.
//!
//! A workload is a set of [`Stream`]s. Each stream is a [`RequestSource`] plus how it is driven:
//! closed loop (a fixed number of requests in flight, the next issued when one completes) or
//! open loop (each request arrives at its own timestamp). fio job files become closed-loop
//! streams (numjobs x iodepth); block traces become an open-loop stream when timestamps are
//! honoured, or a closed-loop stream of depth `queue_depth` when replayed as fast as possible.

pub mod filebench;
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
    /// Delete file `file` (file-level streams, `[stack]` only); offset and len are ignored.
    Delete,
    /// fsync / fdatasync of file `file` (or of the stream's own file): every dirty page of
    /// the file in the host page cache is written back before it completes (`[stack]` only);
    /// offset and len are ignored.
    Sync,
    /// Zone Append of `len` bytes to the zone starting at `offset` (zoned devices): the device
    /// writes them at the zone's write pointer.
    #[serde(rename = "zone_append")]
    Append,
    /// Open Zone: the zone holding `offset` (zoned devices); len is ignored.
    #[serde(rename = "zone_open")]
    ZoneOpen,
    /// Close Zone: the zone holding `offset`.
    #[serde(rename = "zone_close")]
    ZoneClose,
    /// Finish Zone: the zone holding `offset`.
    #[serde(rename = "zone_finish")]
    ZoneFinish,
    /// Reset Zone: the zone holding `offset` (its flash is erased).
    #[serde(rename = "zone_reset")]
    ZoneReset,
    /// Reclaim Unit Handle Update (NVMe I/O Management Send, `[fdp]` devices): the handle of
    /// the request's placement identifier starts a new reclaim unit; offset and len are
    /// ignored.
    #[serde(rename = "ruh_update")]
    RuhUpdate,
}

impl Op {
    /// A Zone Management Send action (open, close, finish, reset).
    pub fn is_zone_management(self) -> bool {
        matches!(
            self,
            Op::ZoneOpen | Op::ZoneClose | Op::ZoneFinish | Op::ZoneReset
        )
    }
}

/// No file: a block-level request on the device's (or, under `[stack]`, the stream's own
/// file's) address space.
pub const NO_FILE: u32 = u32::MAX;

/// What a file is, as file-level workloads tag it: hotness (F2FS hot/warm/cold logs, COCO's
/// tag) and type (FPC's selection, incompressible media); on a request also the open flags
/// it was issued with (bits 5 and 6: [`FileAttrs::DSYNC`], [`FileAttrs::DIRECT`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct FileAttrs(pub u8);

/// Hotness of a file's data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Hotness {
    /// Ordinary data (F2FS warm log).
    Warm = 0,
    /// Frequently updated.
    Hot = 1,
    /// Rarely updated.
    Cold = 2,
}

/// Type of a file (what FPC selects on; `Media` is incompressible).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileType {
    /// Anything else.
    Data = 0,
    /// Text, HTML.
    Text = 1,
    /// Logs, mail spools.
    Log = 2,
    /// Database tables.
    Db = 3,
    /// Already compressed media (video, images, archives).
    Media = 4,
}

impl FileType {
    /// Names as configs spell them.
    pub const NAMES: [&'static str; 5] = ["data", "text", "log", "db", "media"];

    /// The config name.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

impl FileAttrs {
    /// Open flag `O_DSYNC` (Filebench `dsync`, fio `sync=1`): a write returns once its data
    /// is on the device.
    pub const DSYNC: u8 = 1 << 5;
    /// Open flag `O_DIRECT` (Filebench `directio`, fio `direct=1`): I/O bypasses the host
    /// page cache.
    pub const DIRECT: u8 = 1 << 6;

    /// The file's own attributes (hotness, type) without the open flags.
    pub fn file_only(self) -> FileAttrs {
        FileAttrs(self.0 & 0x1f)
    }

    /// These attributes with open flags `flags` ([`FileAttrs::DSYNC`], [`FileAttrs::DIRECT`]).
    pub fn with_flags(self, flags: u8) -> FileAttrs {
        FileAttrs(self.0 | (flags & (Self::DSYNC | Self::DIRECT)))
    }

    /// Not a file attribute: the device ends the command with CHECK CONDITION (a SCSI VERIFY
    /// whose data miscompares, fio's sg engine). It does the command's work (timed as usual)
    /// and is counted in `requests_failed`, not in the throughput and latency figures.
    pub const CHECK_CONDITION: u8 = 1 << 7;

    /// These attributes with [`FileAttrs::CHECK_CONDITION`] set.
    pub fn with_check_condition(self) -> FileAttrs {
        FileAttrs(self.0 | Self::CHECK_CONDITION)
    }

    /// Whether the device fails the command ([`FileAttrs::CHECK_CONDITION`]).
    pub fn check_condition(self) -> bool {
        self.0 & Self::CHECK_CONDITION != 0
    }

    /// Whether the request was opened `O_DSYNC`.
    pub fn dsync(self) -> bool {
        self.0 & Self::DSYNC != 0
    }

    /// Whether the request was opened `O_DIRECT`.
    pub fn direct(self) -> bool {
        self.0 & Self::DIRECT != 0
    }

    /// Attributes of a file.
    pub fn new(h: Hotness, t: FileType) -> FileAttrs {
        FileAttrs(h as u8 | (t as u8) << 2)
    }

    /// Hotness.
    pub fn hotness(self) -> Hotness {
        match self.0 & 3 {
            1 => Hotness::Hot,
            2 => Hotness::Cold,
            _ => Hotness::Warm,
        }
    }

    /// Type.
    pub fn file_type(self) -> FileType {
        match (self.0 >> 2) & 7 {
            1 => FileType::Text,
            2 => FileType::Log,
            3 => FileType::Db,
            4 => FileType::Media,
            _ => FileType::Data,
        }
    }
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
    /// [`crate::content::nth_id`]`(content, i)`: `content + i`, or a written pattern's blocks. For FIU traces this is the first 64 bits of the line's MD5
    /// (dedup identity); for generated data a per-stream unique or deliberately repeated id.
    pub content: u64,
    /// File the request addresses (file-level streams), or [`NO_FILE`]; `offset` is then a
    /// byte offset in the file.
    pub file: u32,
    /// The file's attributes (file-level streams).
    pub attrs: FileAttrs,
    /// NVMe placement identifier (Flexible Data Placement, `[fdp]`) of a write: the reclaim
    /// unit handle it goes to; `None`: no placement directive.
    pub placement: Option<u16>,
}

impl Request {
    /// A block request of `len` bytes at byte `offset` arriving at `time`, with no content id,
    /// file or placement identifier (reads, zone management, content-less writes).
    pub fn new(time: SimTime, op: Op, offset: u64, len: u64) -> Request {
        Request {
            time,
            op,
            offset,
            len,
            content: 0,
            file: NO_FILE,
            attrs: FileAttrs::default(),
            placement: None,
        }
    }
}

/// What a closed-loop stream does next (see [`RequestSource::next`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Submit the request and wait for it: the host asks again when one of the stream's
    /// waited-for requests completes (a closed loop of depth `depth`).
    Issue(Request),
    /// Submit the request and go on at once without waiting for it (asynchronous I/O,
    /// Filebench's `aiowrite`); its completion asks nothing.
    IssueAsync(Request),
    /// Ask again once at most this many of the stream's requests are in flight (0: all
    /// completed; Filebench's `aiowait`).
    Drain(u32),
    /// Ask again at this time, or earlier when another stream of the workload wakes this
    /// one (a think time, a blocked semaphore). Asked early, a source may answer `Wait`
    /// again.
    Wait(SimTime),
    /// Exhausted.
    Done,
}

/// Something that yields requests in order.
pub trait RequestSource {
    /// The next request, `Ok(None)` when exhausted. `now` is the simulated time at which a
    /// closed-loop stream asks (time-based sources stop once their runtime has elapsed).
    fn next_request(&mut self, now: SimTime) -> Result<Option<Request>>;

    /// What a closed-loop stream does next: by default the next request, issued and waited
    /// for. Sources whose threads think, block on each other or issue asynchronous I/O
    /// (Filebench) answer with the other [`Next`] variants.
    fn next(&mut self, now: SimTime) -> Result<Next> {
        Ok(match self.next_request(now)? {
            Some(r) => Next::Issue(r),
            None => Next::Done,
        })
    }

    /// The request `k` places after the one this source yielded last (0: the next one), when
    /// the source can tell it now without changing what it yields; `None` otherwise (the
    /// default). The host hands such requests to the device as a prefetch hint.
    fn peek(&mut self, _k: usize) -> Option<&Request> {
        None
    }

    /// Move into `out` the indices (in the workload's stream list) of the streams that what
    /// this source did since the last call made runnable; the host asks each of them again.
    fn take_woken(&mut self, _out: &mut Vec<u32>) {}

    /// End of the stream's ramp (fio's `ramp_time`): its requests issued before then are
    /// left out of the statistics. Asked once the stream has issued its first request.
    fn ramp_end(&self) -> Option<SimTime> {
        None
    }

    /// Fraction of the source consumed so far in [0, 1], when it can tell (for progress bars).
    fn progress(&self, _now: SimTime) -> Option<f64> {
        None
    }

    /// Whether the source is told of each completion of its requests ([`RequestSource::completed`]):
    /// sources whose issue loop depends on latency (fio's `latency_target`, steady state on
    /// latency). Asked once, before the first request.
    fn wants_completions(&self) -> bool {
        false
    }

    /// A request of this source of operation `op` completed at `now`, `latency_ns` after it
    /// was submitted. Told at the completion, before the source is asked for more.
    fn completed(&mut self, _op: Op, _latency_ns: u64, _now: SimTime) {}

    /// A request of this source failed at `now` (the device ended it with an error status:
    /// a SCSI VERIFY that miscompared, a zone's write error, a full file system, a shut-down
    /// device). Told at the completion, before the source is asked for more; only to sources
    /// that [`RequestSource::wants_completions`].
    fn failed(&mut self, _now: SimTime) {}

    /// Content id of the first 4 KiB block of `len` bytes the source's file set-up writes
    /// before it starts ([`LayoutFill::Stream`]), drawn by the rule its own writes' content
    /// follows and continuing their sequence. Asked only of sources that lay files out.
    fn setup_content(&mut self, _len: u64) -> u64 {
        panic!("only a fio job's source lays out files")
    }
}

/// What a layout write holds: the data a host's file set-up writes into a file before a job
/// reads it (fio's `extend_file`, filled by the set-up job's `fill_io_buffer`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayoutFill {
    /// What stream `stream`'s writes hold, one draw of its content rule per `piece` bytes
    /// ([`RequestSource::setup_content`]): fresh content at the stream's compressibility
    /// (fio's `buffer_compress_percentage`, else the content model's ratio), or, as its
    /// `dedupe_percentage` says, a repeat of earlier content (fio fills each piece with one
    /// `fill_io_buffer`, which decides once per buffer whether it repeats).
    Stream { stream: usize, piece: u64 },
    /// A data pattern repeated from the start of every `piece` bytes written (the set-up
    /// writes the file in pieces of that size, each filled from the pattern's start); zeros
    /// are the one-byte pattern `0x00`.
    Pattern {
        pattern: crate::content::Pattern,
        piece: u64,
    },
}

/// What a stream says about the bytes it writes (used by the content model).
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct ContentHints {
    /// fio `buffer_compress_percentage`: target percentage of each buffer that compresses away.
    pub compress_percentage: Option<u32>,
    /// fio `dedupe_percentage`: percentage of written blocks that repeat earlier content.
    pub dedupe_percentage: u32,
    /// Distribution of the target compression ratio of what the stream writes (Filebench
    /// personalities), used instead of `content.ratio` when present; `compress_percentage`
    /// takes priority over it.
    pub ratio: Option<crate::config::RatioDist>,
    /// fio `buffer_pattern` / `verify_pattern`: every write holds this pattern repeated (its
    /// requests' content ids are the pattern's, see [`crate::content::pattern`]).
    pub pattern: Option<crate::content::Pattern>,
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
    /// Bytes of the address range a block-level stream works in (from 0: fio's `offset` +
    /// `size`), which a file system lays out as the stream's file before the run, as fio lays
    /// out a job's file; 0 when unknown or for file-level streams.
    pub layout_bytes: u64,
}
