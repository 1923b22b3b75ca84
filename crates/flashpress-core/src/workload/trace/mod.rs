//! Block traces: the formats researchers publish, plain or compressed, read lazily.
//!
//! A trace is read one line (or binary record) at a time from a buffered reader, so a trace
//! of any length costs a few kilobytes of memory. One line buffer is reused and integers are
//! parsed from the raw bytes, so a DiskSim line costs a few tens of nanoseconds. Opening a
//! trace for a run first reads it once to the end ([`scan`]), so a bad line anywhere fails
//! before the device is built and preconditioned, not minutes into the run.
//!
//! The code follows the data path: [`input`] opens the file (compression told by magic
//! bytes: gzip, zstd, xz, bzip2; a UTF-8 byte-order mark skipped; binary garbage described,
//! never echoed) and cuts it into lines; `text.rs` parses the line formats flashpress
//! started with; [`table`] the comma- and blank-separated tables (SPC, Alibaba, Tencent,
//! CloudPhysics, and any table through a column mapping); [`binary`] libCacheSim's binary
//! records; this module turns a parsed record into a [`Request`] by the common rules.
//!
//! Common rules for every format:
//! - Line numbers in errors are 1-based physical lines of the (decompressed) file; a binary
//!   trace's errors give the 1-based record number in that place.
//! - Blank lines and lines whose first non-blank character is `#` are skipped.
//! - Request times are relative to the first record kept:
//!   `time = (t - t_first) * ns_per_unit * time_scale` nanoseconds, so the first request
//!   arrives at 0. A record whose time is
//!   earlier than its predecessor's (blkparse interleaves CPUs; some traces are not sorted)
//!   arrives at its predecessor's time, so arrival times never go backwards.
//! - A zero-length request is an error (SPC's spec allows size 0, so SPC skips such records);
//!   so is a request ending past the device's logical capacity under
//!   `address_mode = "strict"`. Under `"wrap"` such a request is folded:
//!   `offset = (offset % capacity)` rounded down to 4096 bytes, moved to `capacity - len` if it
//!   still does not fit (`len` capped to the capacity); an address in sectors whose byte
//!   value passes 2^64 is folded in 128-bit arithmetic first. Requests that fit are never
//!   changed.
//! - `device = Some(d)` keeps only records whose device column is `d` (DiskSim `dev`, MSR
//!   `DiskNumber`, SPC `ASU`, Alibaba `device_id`, Tencent `VolumeID`, a column mapping's
//!   `device`); `host = Some(h)` only MSR records whose `Hostname` is `h`. A trace whose
//!   filters keep nothing is an error.
//!
//! A run's trace is parsed once: that pass also writes each request in a compact binary form
//! to a temporary file, which the run then replays (`spool.rs`).
//!
//! Formats (see [`TraceFormat`]; the unit named is the default `time_unit`):
//! - **disksim**: `time dev sector nsectors rw`, whitespace separated, exactly 5 fields. `time`
//!   in ns (as MQSim's ASCII traces; decimals allowed), `dev` an integer,
//!   `sector` and `nsectors` in `sector_size`-byte units, `rw` = `0` write, `1` read (MQSim's
//!   `ASCII_WRITE_CODE "0"` / `ASCII_READ_CODE "1"`, DiskSim's read flag).
//! - **msr**: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime` (MSR Cambridge,
//!   SNIA IOTTA). `Timestamp` in Windows FILETIME (100 ns ticks), `Type`
//!   `Read`/`Write` (any case), `Offset` and `Size` in bytes, `ResponseTime` ignored. A header
//!   line is accepted only before the first record and only if it is exactly the column names.
//! - **blkparse**: blkparse's default text output, e.g.
//!   `  8,0    3        1     0.000000000   697  Q   W 223490 + 8 [kjournald]`: device
//!   `maj,min`, cpu, sequence, time (seconds), pid, action, RWBS, then
//!   `sector + nsectors` in `sector_size` units and the process name. Only events whose action
//!   is `blkparse_action` are kept (others are filtered, not errors). RWBS containing `D` is a
//!   trim, else `W` a write, else `R` a read; events that carry no data (RWBS like `N`, `FN`,
//!   no `sector + n` part, or `+ 0`) are skipped. Reading stops at blkparse's trailing summary
//!   (`CPU0 (8,0):`, `Total (8,0):`, `Throughput (R/W): ...`, `Events (8,0): ...`).
//! - **fiu**: FIU SRCMap / deduplication traces (SNIA IOTTA). Their README gives each record
//!   as `[ts in ns] [pid] [process] [lba] [size in 512 Bytes blocks] [Write or Read]
//!   [major device number] [minor device number] [MD5 per 4096 Bytes]`. So `ts` in ns,
//!   `lba` and `nblocks` in `sector_size` units, op `R`/`W`, `md5` 32 hex
//!   digits. A write's content id is the MD5's first 16 hex digits as a `u64` (1 if that is 0),
//!   so equal blocks deduplicate. The process name may contain blanks: fields are taken from
//!   both ends of the line.
//! - **csv**: flashpress's own format, for workloads generated elsewhere (the `flashpress.tracegen`
//!   module writes it) that need trims and chosen content ids together, which no format above
//!   carries: the first record line must be the header `time,op,offset,len,content`, then one
//!   request per line. `time` in ns, `op` `R` (read), `W` (write) or `T`
//!   (trim), `offset` and `len` in bytes, `content` the content id of a write's first 4 KiB
//!   block (block `i` holds `content + i`, so equal ids deduplicate) as a decimal integer;
//!   empty or `0` gives fresh content, and reads and trims must leave it empty.
//! - **spc**, **alibaba**, **tencent**, **cloudphysics** and **columns** (a column mapping for
//!   any CSV or whitespace table): see [`table`].
//! - **oracle_general**, **oracle_general_opns**: libCacheSim's binary records; see [`binary`].

use crate::config::{AddressMode, BlkAction, Replay, TraceFormat, TraceWorkload};
use crate::error::{Error, Result};
use crate::units::SimTime;
use crate::workload::{ContentHints, Drive, Op, Request, RequestSource, Stream};
use input::{next_from, open_input, Compression, Input, Lines};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub mod binary;
mod fields;
pub mod input;
mod spool;
pub mod table;
mod text;

pub use input::MAX_LINE_BYTES;

/// Open a trace as one stream: open loop for `replay = "timed"`, closed loop of
/// `queue_depth` for `"afap"`. The trace is read once to the end ([`scan`]): a bad line
/// anywhere, or a trace whose filters keep nothing, is an error here. That pass spools the
/// requests to a temporary file in binary, which the run reads back as it consumes them. `capacity_bytes` is the device's logical capacity in bytes.
pub fn open_stream(cfg: &TraceWorkload, capacity_bytes: u64) -> Result<Stream> {
    open_stream_paged(cfg, capacity_bytes, 4096, 0)
}

/// [`open_stream`] for a device of `page_bytes` pages (FIU's `hash_bytes` combines the hashes
/// of a page's units) with `placement_handles` reclaim unit handles (`[fdp]`; 0 without: a
/// csv `pid` is then an error naming its line).
pub fn open_stream_paged(
    cfg: &TraceWorkload,
    capacity_bytes: u64,
    page_bytes: u64,
    placement_handles: u32,
) -> Result<Stream> {
    let mut spool = spool::Spool::new(&cfg.path)?;
    let found = scan_placed(
        cfg,
        capacity_bytes,
        page_bytes,
        Some(placement_handles),
        Some(&mut spool),
    )?;
    if found.requests == 0 {
        let why = if found.filtered > 0 {
            format!(
                "all {} records are filtered out by {}",
                found.filtered,
                filters(cfg)
            )
        } else {
            "it holds no records".to_string()
        };
        return Err(Error::Workload(format!(
            "the trace {} has no requests: {why}",
            cfg.path.display()
        )));
    }
    let source = spool.finish()?;
    let name = cfg
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| cfg.path.display().to_string());
    let drive = match cfg.replay {
        Replay::Timed => Drive::Open,
        Replay::Afap => Drive::Closed {
            depth: cfg.queue_depth,
        },
    };
    Ok(Stream {
        name,
        source: Box::new(source),
        drive,
        group: 0,
        content: ContentHints::default(),
        layout_bytes: 0,
    })
}

/// The filters a config sets, for messages.
fn filters(cfg: &TraceWorkload) -> String {
    let mut f = Vec::new();
    if let Some(d) = cfg.device {
        f.push(format!("device = {d}"));
    }
    if let Some(h) = &cfg.host {
        f.push(format!("host = {h:?}"));
    }
    if f.is_empty() {
        "the op values listed in `ignore`".into()
    } else {
        f.join(" and ")
    }
}

/// What one pass over a whole trace found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceScan {
    /// Requests the run will replay.
    pub requests: u64,
    /// Records left out by `device`, `host` or a column mapping's `ignore` values.
    pub filtered: u64,
    /// Physical lines (text) or records (binary) read.
    pub lines: u64,
    /// The file's compression.
    pub compression: Compression,
}

/// Read the whole trace once, exactly as a run will, and report what it holds: the first
/// bad line is the error a run would meet, found before any simulation work. Costs one
/// parse of the file (see the README's figures) and the memory of a lazy read.
pub fn scan(cfg: &TraceWorkload, capacity_bytes: u64, page_bytes: u64) -> Result<TraceScan> {
    scan_placed(cfg, capacity_bytes, page_bytes, None, None)
}

/// [`scan`], with csv placement identifiers checked against `placement_handles` (`None`: no
/// device to check against), writing each request to `spool` when given (the run replays it).
fn scan_placed(
    cfg: &TraceWorkload,
    capacity_bytes: u64,
    page_bytes: u64,
    placement_handles: Option<u32>,
    mut spool: Option<&mut spool::Spool>,
) -> Result<TraceScan> {
    let mut source = TraceSource::open_paged(cfg, capacity_bytes, page_bytes)?;
    source.parser.placement_handles = placement_handles;
    let mut requests = 0;
    while let Some(r) = source.next_request(SimTime::ZERO)? {
        requests += 1;
        if let Some(s) = spool.as_deref_mut() {
            s.push(&r)?;
        }
    }
    Ok(TraceScan {
        requests,
        filtered: source.parser.filtered,
        lines: source.lines.line,
        compression: source.compression,
    })
}

/// A trace workload with the usual settings of `format` (see
/// [`TraceWorkload::with_defaults`], the one source of these defaults for the CLI and for
/// configs): the format's published time unit, 512-byte sectors, timed replay, queue depth
/// 32, time scale 1, strict addresses, all devices, blkparse action `D`.
pub fn default_trace_config(path: PathBuf, format: TraceFormat) -> TraceWorkload {
    TraceWorkload::with_defaults(path, format)
}

/// A trace time value: integers stay exact; decimals and exponents go through `f64`.
#[derive(Debug, Clone, Copy)]
enum TimeVal {
    Int(u64),
    Float(f64),
}

impl TimeVal {
    fn as_f64(self) -> f64 {
        match self {
            TimeVal::Int(i) => i as f64,
            TimeVal::Float(f) => f,
        }
    }
}

/// One parsed record before time and address normalisation.
struct Record {
    time: TimeVal,
    op: Op,
    offset: u64,
    len: u64,
    content: u64,
    /// A write's placement identifier (csv's `pid` column).
    placement: Option<u16>,
}

/// What a line turned out to be.
enum Parsed {
    Record(Record),
    /// Filtered or data-less line: not an error, not a request.
    Skip,
    /// blkparse summary reached: the trace ends here.
    End,
}

/// The parser a format needs.
enum Kind {
    Disksim,
    Msr,
    Blkparse,
    Fiu,
    Csv,
    Table(Box<table::TableSpec>),
    Binary(binary::Layout),
}

/// Per-format parsing state and the normalisation rules (kept apart from the reader so the
/// line buffer can be borrowed while parsing).
struct Parser {
    kind: Kind,
    sector: u64,
    device: Option<u64>,
    host: Option<Vec<u8>>,
    action: u8,
    capacity: u64,
    wrap: bool,
    /// `ns_per_unit * time_scale`.
    factor: f64,
    /// `factor == 1.0`: integer times map to ns exactly, without a float round trip.
    identity: bool,
    t_first: Option<TimeVal>,
    last_time: u64,
    seen_record: bool,
    /// `replay = "timed"`: request times must fit the simulated clock.
    timed: bool,
    /// FIU with `hash_bytes` below the page: the MD5 each written unit holds.
    units: Option<UnitHashes>,
    /// csv, and tables with a header: the header line has been read.
    seen_header: bool,
    /// Physical lines skipped at the start (a column mapping's `skip_lines`).
    skip_lines: u64,
    /// Records left out by a filter.
    filtered: u64,
    /// csv: the header names the `pid` column.
    csv_pid: bool,
    /// Reclaim unit handles of the device placement identifiers must name (`None`: not
    /// checked, no device).
    placement_handles: Option<u32>,
}

/// The hash each unit of `unit` bytes last written holds (FIU `hash_bytes` below the page):
/// at most one entry per unit of the logical capacity.
struct UnitHashes {
    unit: u64,
    per_page: u64,
    held: rustc_hash::FxHashMap<u64, u64>,
}

impl UnitHashes {
    /// Record that the unit at `offset` (aligned, `unit` bytes) now holds `md5`; returns its
    /// page's content id: a hash of the page's unit hashes in order (0 for units never
    /// written), never 0.
    fn write(&mut self, offset: u64, md5: u64) -> u64 {
        let u = offset / self.unit;
        self.held.insert(u, md5);
        let first = u - u % self.per_page;
        let mut h: u64 = 0x9e37_79b9_7f4a_7c15;
        for i in first..first + self.per_page {
            h = splitmix(h ^ splitmix(self.held.get(&i).copied().unwrap_or(0) ^ (i - first)));
        }
        crate::content::pattern::outside_patterns(h.max(1))
    }
}

/// splitmix64's finaliser (Steele, Lea and Flood, OOPSLA 2014): a bijective 64-bit mix.
fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Latest request time of a timed replay (ns after the first record): 2^62 ns, about 146
/// years. Later times are a timestamp in the wrong unit or scale, and would overflow the
/// simulated clock once service times are added.
pub const MAX_TIMED_NS: u64 = 1 << 62;

/// A lazily parsed trace file.
pub struct TraceSource {
    path: PathBuf,
    input: Input,
    lines: Lines,
    compression: Compression,
    file_count: Arc<AtomicU64>,
    file_size: u64,
    parser: Parser,
}

impl TraceSource {
    /// Open `cfg.path` for lazy parsing against a device of `capacity_bytes` (no [`scan`]).
    pub fn open(cfg: &TraceWorkload, capacity_bytes: u64) -> Result<TraceSource> {
        Self::open_paged(cfg, capacity_bytes, 4096)
    }

    /// [`TraceSource::open`] for a device of `page_bytes` pages.
    pub fn open_paged(
        cfg: &TraceWorkload,
        capacity_bytes: u64,
        page_bytes: u64,
    ) -> Result<TraceSource> {
        if capacity_bytes == 0 {
            return Err(Error::Workload(
                "cannot replay a trace on a device with 0 logical bytes".into(),
            ));
        }
        cfg.check("workload")?;
        let factor = cfg.time_unit.ns_per_unit() * cfg.time_scale;
        if !factor.is_finite() || factor <= 0.0 {
            return Err(Error::config(
                "workload",
                "workload.time_scale",
                format!("expected a positive number, got {}", cfg.time_scale),
            ));
        }
        let sector = u64::from(cfg.sector_size);
        let (kind, skip_lines) = match &cfg.format {
            TraceFormat::Disksim => (Kind::Disksim, 0),
            TraceFormat::Msr => (Kind::Msr, 0),
            TraceFormat::Blkparse => (Kind::Blkparse, 0),
            TraceFormat::Fiu => (Kind::Fiu, 0),
            TraceFormat::Csv => (Kind::Csv, 0),
            TraceFormat::OracleGeneral => (Kind::Binary(binary::Layout::GENERAL), 0),
            TraceFormat::OracleGeneralOpns => (Kind::Binary(binary::Layout::OPNS), 0),
            TraceFormat::Columns(c) => (
                Kind::Table(Box::new(table::TableSpec::columns(c, sector))),
                c.skip_lines,
            ),
            named => (
                Kind::Table(Box::new(
                    table::TableSpec::named(named, sector).expect("every other format is a table"),
                )),
                0,
            ),
        };
        let opened = open_input(&cfg.path, !cfg.format.is_binary())?;
        let units = cfg
            .hash_bytes
            .filter(|&h| u64::from(h) < page_bytes)
            .map(|h| UnitHashes {
                unit: u64::from(h),
                per_page: page_bytes / u64::from(h),
                held: Default::default(),
            });
        Ok(TraceSource {
            path: cfg.path.clone(),
            input: opened.input,
            lines: Lines {
                carry: Vec::new(),
                line: 0,
                consumed: opened.skipped,
                done: false,
            },
            compression: opened.compression,
            file_count: opened.file_count,
            file_size: opened.file_size,
            parser: Parser {
                kind,
                sector,
                device: cfg.device.map(u64::from),
                host: cfg.host.as_ref().map(|h| h.as_bytes().to_vec()),
                action: match cfg.blkparse_action {
                    BlkAction::D => b'D',
                    BlkAction::Q => b'Q',
                },
                capacity: capacity_bytes,
                wrap: cfg.address_mode == AddressMode::Wrap,
                factor,
                identity: factor == 1.0,
                t_first: None,
                last_time: 0,
                seen_record: false,
                timed: cfg.replay == Replay::Timed,
                units,
                seen_header: false,
                skip_lines,
                filtered: 0,
                csv_pid: false,
                placement_handles: None,
            },
        })
    }
}

impl RequestSource for TraceSource {
    fn next_request(&mut self, _now: SimTime) -> Result<Option<Request>> {
        let (st, parser, path) = (&mut self.lines, &mut self.parser, &self.path);
        if let Kind::Binary(layout) = parser.kind {
            return match &mut self.input {
                Input::Plain(r) => binary::next_record(r, layout, st, parser, path),
                Input::Decoded(r) => binary::next_record(r.as_mut(), layout, st, parser, path),
            };
        }
        match &mut self.input {
            Input::Plain(r) => next_from(r, st, parser, path),
            Input::Decoded(r) => next_from(r.as_mut(), st, parser, path),
        }
    }

    fn progress(&self, _now: SimTime) -> Option<f64> {
        if self.lines.done {
            return Some(1.0);
        }
        if self.file_size == 0 {
            return None;
        }
        let used = match self.compression {
            Compression::None => self.lines.consumed,
            _ => self.file_count.load(Ordering::Relaxed),
        };
        Some((used as f64 / self.file_size as f64).min(1.0))
    }
}

impl Parser {
    #[inline]
    fn parse(&mut self, line: &[u8]) -> std::result::Result<Parsed, String> {
        let p = match self.kind {
            Kind::Disksim => self.disksim(line),
            Kind::Msr => self.msr(line),
            Kind::Blkparse => self.blkparse(line),
            Kind::Fiu => self.fiu(line),
            Kind::Csv => self.csv(line),
            Kind::Table(_) => self.table(line),
            Kind::Binary(_) => unreachable!("binary traces are read by records, not lines"),
        }?;
        if matches!(p, Parsed::Record(_)) {
            self.seen_record = true;
        }
        Ok(p)
    }

    /// Sectors to bytes with overflow checks.
    #[inline]
    fn sectors(&self, sector: u64, n: u64) -> std::result::Result<(u64, u64), String> {
        Ok((
            addr_bytes(sector, self.sector, "sector", self.fold())?,
            len_bytes(n, self.sector, "sector count")?,
        ))
    }

    /// Under `wrap`, the capacity addresses fold into.
    #[inline]
    fn fold(&self) -> Option<u64> {
        self.wrap.then_some(self.capacity)
    }

    /// Apply time origin, scaling and the address rules.
    #[inline]
    fn finish(&mut self, r: Record) -> std::result::Result<Request, String> {
        if r.len == 0 && r.op != Op::RuhUpdate {
            return Err("zero-length request".into());
        }
        let (offset, len) = match r.offset.checked_add(r.len) {
            // A reclaim unit handle update addresses no bytes (the parser checked 0 and 0).
            _ if r.op == Op::RuhUpdate => (0, 0),
            Some(end) if end <= self.capacity => (r.offset, r.len),
            _ if self.wrap => {
                let len = r.len.min(self.capacity);
                let mut off = (r.offset % self.capacity) / 4096 * 4096;
                let fits = matches!(off.checked_add(len), Some(e) if e <= self.capacity);
                if !fits {
                    off = self.capacity - len;
                }
                (off, len)
            }
            _ => {
                return Err(format!(
                    "request at byte {} of {} bytes ends past the device's logical capacity of {} bytes \
                     (address_mode = \"strict\"; \"wrap\" folds it)",
                    r.offset, r.len, self.capacity
                ))
            }
        };
        let first = *self.t_first.get_or_insert(r.time);
        let ns = match (first, r.time) {
            (TimeVal::Int(a), TimeVal::Int(b)) => {
                let d = b.saturating_sub(a);
                if self.identity {
                    d
                } else {
                    // `as` saturates: absurd times clamp rather than wrap.
                    (d as f64 * self.factor).round() as u64
                }
            }
            (a, b) => ((b.as_f64() - a.as_f64()).max(0.0) * self.factor).round() as u64,
        };
        if self.timed && ns > MAX_TIMED_NS {
            return Err(format!(
                "time: {ns} ns after the first record, past the simulated clock's limit of 2^62 ns \
                 (about 146 years); check `time_unit` and `time_scale`"
            ));
        }
        let ns = ns.max(self.last_time);
        let content = match self.units.as_mut() {
            Some(u) if r.op == Op::Write => {
                if len != u.unit || !offset.is_multiple_of(u.unit) {
                    return Err(format!(
                        "a write of {len} bytes at byte {offset}: with hash_bytes = {} each write record \
                         must cover one aligned unit of {} bytes (one MD5 per unit)",
                        u.unit, u.unit
                    ));
                }
                u.write(offset, r.content)
            }
            _ => r.content,
        };
        if let (Some(pid), Some(n)) = (r.placement, self.placement_handles) {
            // A write naming an identifier the device does not have goes to identifier 0 and
            // the device logs an "invalid placement identifier" event, as the specification
            // has it; a handle update must name one it has.
            if u32::from(pid) >= n && (n == 0 || r.op == Op::RuhUpdate) {
                return Err(if n == 0 {
                    format!("pid: placement identifier {pid} on a device without flexible data placement (add an [fdp] table, or leave the column empty)")
                } else {
                    format!(
                        "pid: placement identifier {pid}, but the device has {n} placement identifiers (fdp.handles in each of fdp.reclaim_groups: 0 to {})",
                        n - 1
                    )
                });
            }
        }
        self.last_time = ns;
        Ok(Request {
            time: SimTime(ns),
            op: r.op,
            offset,
            len,
            content,
            file: crate::workload::NO_FILE,
            attrs: Default::default(),
            placement: r.placement,
        })
    }
}

/// An address of `v` units of `unit` bytes. Past 2^64 bytes it is an error, or with `fold`
/// (`wrap`: the capacity) folded modulo the capacity in 128-bit arithmetic, as the address
/// rules would fold it.
#[inline]
fn addr_bytes(
    v: u64,
    unit: u64,
    name: &str,
    fold: Option<u64>,
) -> std::result::Result<u64, String> {
    match (v.checked_mul(unit), fold) {
        (Some(b), _) => Ok(b),
        (None, Some(cap)) => Ok(((u128::from(v) * u128::from(unit)) % u128::from(cap)) as u64),
        (None, None) => Err(format!(
            "{name} {v} times {unit} bytes overflows 64 bits (address_mode = \"wrap\" folds it)"
        )),
    }
}

/// A length of `v` units of `unit` bytes; past 2^64 bytes it is an error.
#[inline]
fn len_bytes(v: u64, unit: u64, name: &str) -> std::result::Result<u64, String> {
    v.checked_mul(unit)
        .ok_or_else(|| format!("{name} {v} times {unit} bytes overflows 64 bits"))
}

/// `workload.sector_size`: a power of two bytes (512 and 4096 are the usual ones); the formats
/// that count in bytes (MSR) ignore it, but a value that cannot be a sector is still an error.
pub(crate) fn check_sector_size(size: u32, source: &str) -> Result<()> {
    if size.is_power_of_two() {
        return Ok(());
    }
    Err(Error::config(
        source,
        "workload.sector_size",
        format!("expected a power of two bytes (such as 512 or 4096), got {size}"),
    ))
}

#[cfg(test)]
mod format_tests;
#[cfg(test)]
mod tests;
