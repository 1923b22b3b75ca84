//! Block traces (DiskSim/MQSim ASCII, MSR Cambridge CSV, blkparse text, FIU), plain or gzip.
//!
//! A trace is read lazily, one line at a time, from a buffered reader (through
//! [`flate2::read::MultiGzDecoder`] when the path ends in `.gz`), so a trace of any length
//! costs a few kilobytes of memory. One line buffer is reused and integers are parsed from
//! the raw bytes, so a DiskSim line costs a few tens of nanoseconds.
//!
//! Common rules for every format:
//! - Line numbers in errors are 1-based physical lines of the (decompressed) file.
//! - Blank lines and lines whose first non-blank character is `#` are skipped.
//! - Request times are relative to the first record kept:
//!   `time = (t - t_first) * ns_per_unit * time_scale` nanoseconds, so the first request
//!   arrives at 0. A record whose time is
//!   earlier than its predecessor's (blkparse interleaves CPUs; some traces are not sorted)
//!   arrives at its predecessor's time, so arrival times never go backwards.
//! - A zero-length request is an error; so is a request ending past the device's logical
//!   capacity under `address_mode = "strict"`. Under `"wrap"` such a request is folded:
//!   `offset = (offset % capacity)` rounded down to 4096 bytes, moved to `capacity - len` if it
//!   still does not fit (`len` capped to the capacity). Requests that fit are never changed.
//! - `device = Some(d)` keeps only DiskSim lines whose `dev` is `d` and MSR lines whose
//!   `DiskNumber` is `d`.
//!
//! Formats (see [`TraceFormat`]):
//! - **disksim**: `time dev sector nsectors rw`, whitespace separated, exactly 5 fields. `time`
//!   in `time_unit` (default ns, as MQSim's ASCII traces; decimals allowed), `dev` an integer,
//!   `sector` and `nsectors` in `sector_size`-byte units, `rw` = `0` write, `1` read (MQSim's
//!   `ASCII_WRITE_CODE "0"` / `ASCII_READ_CODE "1"`, DiskSim's read flag).
//! - **msr**: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime` (MSR Cambridge,
//!   SNIA IOTTA). `Timestamp` in `time_unit` (default Windows FILETIME, 100 ns ticks), `Type`
//!   `Read`/`Write` (any case), `Offset` and `Size` in bytes, `ResponseTime` ignored. A header
//!   line is accepted only before the first record and only if it is exactly the column names.
//! - **blkparse**: blkparse's default text output, e.g.
//!   `  8,0    3        1     0.000000000   697  Q   W 223490 + 8 [kjournald]`: device
//!   `maj,min`, cpu, sequence, time (`time_unit`, default seconds), pid, action, RWBS, then
//!   `sector + nsectors` in `sector_size` units and the process name. Only events whose action
//!   is `blkparse_action` are kept (others are filtered, not errors). RWBS containing `D` is a
//!   trim, else `W` a write, else `R` a read; events that carry no data (RWBS like `N`, `FN`,
//!   no `sector + n` part, or `+ 0`) are skipped. Reading stops at blkparse's trailing summary
//!   (`CPU0 (8,0):`, `Total (8,0):`, `Throughput (R/W): ...`, `Events (8,0): ...`).
//! - **fiu**: FIU SRCMap / deduplication traces (SNIA IOTTA). Their README gives each record
//!   as `[ts in ns] [pid] [process] [lba] [size in 512 Bytes blocks] [Write or Read]
//!   [major device number] [minor device number] [MD5 per 4096 Bytes]`. So `ts` in `time_unit`
//!   (default ns), `lba` and `nblocks` in `sector_size` units, op `R`/`W`, `md5` 32 hex
//!   digits. A write's content id is the MD5's first 16 hex digits as a `u64` (1 if that is 0),
//!   so equal blocks deduplicate. The process name may contain blanks: fields are taken from
//!   both ends of the line.
//! - **csv**: flashpress's own format, for workloads generated elsewhere (the `flashpress.tracegen`
//!   module writes it) that need trims and chosen content ids together, which no format above
//!   carries: the first record line must be the header `time,op,offset,len,content`, then one
//!   request per line. `time` in `time_unit` (default ns), `op` `R` (read), `W` (write) or `T`
//!   (trim), `offset` and `len` in bytes, `content` the content id of a write's first 4 KiB
//!   block (block `i` holds `content + i`, so equal ids deduplicate) as a decimal integer;
//!   empty or `0` gives fresh content, and reads and trims must leave it empty.

use crate::config::{AddressMode, BlkAction, Replay, TimeUnit, TraceFormat, TraceWorkload};
use crate::error::{Error, Result};
use crate::units::SimTime;
use crate::workload::{ContentHints, Drive, Op, Request, RequestSource, Stream};
use flate2::read::MultiGzDecoder;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Size of the read buffer: large enough that refills are rare next to per-line work.
const READ_BUF_BYTES: usize = 1 << 16;

/// Open a trace as one stream: open loop for `replay = "timed"`, closed loop of
/// `queue_depth` for `"afap"`. Lines are parsed lazily as the run consumes them.
/// `capacity_bytes` is the device's logical capacity in bytes.
pub fn open_stream(cfg: &TraceWorkload, capacity_bytes: u64) -> Result<Stream> {
    open_stream_paged(cfg, capacity_bytes, 4096)
}

/// [`open_stream`] for a device of `page_bytes` pages (FIU's `hash_bytes` combines the hashes
/// of a page's units).
pub fn open_stream_paged(
    cfg: &TraceWorkload,
    capacity_bytes: u64,
    page_bytes: u64,
) -> Result<Stream> {
    let mut source = TraceSource::open(cfg, capacity_bytes)?;
    if let Some(h) = cfg.hash_bytes.filter(|&h| u64::from(h) < page_bytes) {
        source.parser.units = Some(UnitHashes {
            unit: u64::from(h),
            per_page: page_bytes / u64::from(h),
            held: Default::default(),
        });
    }
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

/// A trace workload with the usual units of `format` (DiskSim/MQSim ns, MSR FILETIME,
/// blkparse seconds, FIU ns as its README states), 512-byte sectors, timed replay, queue
/// depth 32, time scale 1, strict addresses, all devices, blkparse action `D`.
pub fn default_trace_config(path: PathBuf, format: TraceFormat) -> TraceWorkload {
    let time_unit = match format {
        TraceFormat::Disksim => TimeUnit::Ns,
        TraceFormat::Msr => TimeUnit::Filetime,
        TraceFormat::Blkparse => TimeUnit::S,
        TraceFormat::Fiu | TraceFormat::Csv => TimeUnit::Ns,
    };
    TraceWorkload {
        path,
        format,
        time_unit,
        sector_size: 512,
        replay: Replay::Timed,
        queue_depth: 32,
        time_scale: 1.0,
        address_mode: AddressMode::Strict,
        device: None,
        blkparse_action: BlkAction::D,
        hash_bytes: None,
    }
}

/// Counts the compressed bytes a gzip decoder pulls from the file (for progress).
struct CountingReader<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
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
}

/// What a line turned out to be.
enum Parsed {
    Record(Record),
    /// Filtered or data-less line: not an error, not a request.
    Skip,
    /// blkparse summary reached: the trace ends here.
    End,
}

/// Per-format parsing state and the normalisation rules (kept apart from the reader so the
/// line buffer can be borrowed while parsing).
struct Parser {
    format: TraceFormat,
    sector: u64,
    device: Option<u32>,
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
    /// csv: the header line has been read.
    seen_header: bool,
}

/// The header line a csv trace starts with.
const CSV_HEADER: &[u8] = b"time,op,offset,len,content";

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
        h.max(1)
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

/// The two kinds of input, kept as an enum (not a trait object) so the line loop is
/// monomorphised and inlined for each.
enum Input {
    Plain(BufReader<File>),
    /// Boxed: the decoder's state is large and only gzip traces pay for it.
    Gz(Box<BufReader<MultiGzDecoder<BufReader<CountingReader<File>>>>>),
}

/// Line bookkeeping shared by both inputs.
struct Lines {
    /// A line split across two reads of the buffer (rare: only at buffer boundaries).
    carry: Vec<u8>,
    /// 1-based number of the last line taken.
    line: u64,
    /// Bytes of the (decompressed) input consumed so far.
    consumed: u64,
    done: bool,
}

/// What one line produced.
enum Step {
    Req(Request),
    Skip,
    End,
}

/// A lazily parsed trace file.
pub struct TraceSource {
    path: PathBuf,
    input: Input,
    lines: Lines,
    gz_count: Option<Arc<AtomicU64>>,
    file_size: u64,
    parser: Parser,
}

impl TraceSource {
    /// Open `cfg.path` for lazy parsing against a device of `capacity_bytes`.
    pub fn open(cfg: &TraceWorkload, capacity_bytes: u64) -> Result<TraceSource> {
        if capacity_bytes == 0 {
            return Err(Error::Workload(
                "cannot replay a trace on a device with 0 logical bytes".into(),
            ));
        }
        let factor = cfg.time_unit.ns_per_unit() * cfg.time_scale;
        if !factor.is_finite() || factor <= 0.0 {
            return Err(Error::config(
                "workload",
                "workload.time_scale",
                format!("expected a positive number, got {}", cfg.time_scale),
            ));
        }
        check_sector_size(cfg.sector_size, "workload")?;
        let file = File::open(&cfg.path).map_err(|e| Error::io(&cfg.path, e))?;
        let file_size = file.metadata().map_err(|e| Error::io(&cfg.path, e))?.len();
        let is_gz = cfg
            .path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
        let (input, gz_count) = if is_gz {
            let count = Arc::new(AtomicU64::new(0));
            let counting = CountingReader {
                inner: file,
                count: Arc::clone(&count),
            };
            let dec = MultiGzDecoder::new(BufReader::with_capacity(READ_BUF_BYTES, counting));
            (
                Input::Gz(Box::new(BufReader::with_capacity(READ_BUF_BYTES, dec))),
                Some(count),
            )
        } else {
            (
                Input::Plain(BufReader::with_capacity(READ_BUF_BYTES, file)),
                None,
            )
        };
        Ok(TraceSource {
            path: cfg.path.clone(),
            input,
            lines: Lines {
                carry: Vec::new(),
                line: 0,
                consumed: 0,
                done: false,
            },
            gz_count,
            file_size,
            parser: Parser {
                format: cfg.format,
                sector: u64::from(cfg.sector_size),
                device: cfg.device,
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
                units: None,
                seen_header: false,
            },
        })
    }
}

/// Parse one physical line (without its `\n`).
#[inline]
fn step(parser: &mut Parser, raw: &[u8]) -> std::result::Result<Step, String> {
    let line = trim(raw);
    if line.is_empty() || line[0] == b'#' {
        return Ok(Step::Skip);
    }
    match parser.parse(line)? {
        Parsed::Record(r) => parser.finish(r).map(Step::Req),
        Parsed::Skip => Ok(Step::Skip),
        Parsed::End => Ok(Step::End),
    }
}

/// The next request from `reader`. Lines are parsed in place in the reader's buffer; only a
/// line straddling two buffer fills is copied (into `st.carry`).
#[inline]
fn next_from<R: BufRead>(
    reader: &mut R,
    st: &mut Lines,
    parser: &mut Parser,
    path: &Path,
) -> Result<Option<Request>> {
    let trace_err = |line: u64, msg: String| Error::Trace {
        path: path.to_path_buf(),
        line,
        msg,
    };
    while !st.done {
        let avail = reader.fill_buf().map_err(|e| Error::io(path, e))?;
        if parser.format == TraceFormat::Disksim && st.carry.is_empty() {
            if let Some((v, used)) = fast_disksim(avail) {
                if let Some(parsed) = parser.disksim_values(v) {
                    reader.consume(used);
                    st.consumed += used as u64;
                    st.line += 1;
                    match parsed.and_then(|p| match p {
                        Parsed::Record(r) => parser.finish(r).map(Some),
                        _ => Ok(None),
                    }) {
                        Ok(Some(r)) => return Ok(Some(r)),
                        Ok(None) => continue,
                        Err(msg) => return Err(trace_err(st.line, msg)),
                    }
                }
            }
        }
        let (outcome, used) = if avail.is_empty() {
            // End of input: a last line without `\n` is still a line.
            st.done = true;
            if st.carry.is_empty() {
                return Ok(None);
            }
            st.line += 1;
            let o = step(parser, &st.carry);
            st.carry.clear();
            (Some(o), 0)
        } else if let Some(i) = avail.iter().position(|&c| c == b'\n') {
            st.line += 1;
            let head = avail.get(..i).unwrap_or_default();
            let o = if st.carry.is_empty() {
                step(parser, head)
            } else {
                st.carry.extend_from_slice(head);
                let o = step(parser, &st.carry);
                st.carry.clear();
                o
            };
            (Some(o), i + 1)
        } else {
            st.carry.extend_from_slice(avail);
            (None, avail.len())
        };
        reader.consume(used);
        st.consumed += used as u64;
        match outcome {
            None | Some(Ok(Step::Skip)) => {}
            Some(Ok(Step::Req(r))) => return Ok(Some(r)),
            Some(Ok(Step::End)) => st.done = true,
            Some(Err(msg)) => return Err(trace_err(st.line, msg)),
        }
    }
    Ok(None)
}

impl RequestSource for TraceSource {
    fn next_request(&mut self, _now: SimTime) -> Result<Option<Request>> {
        match &mut self.input {
            Input::Plain(r) => next_from(r, &mut self.lines, &mut self.parser, &self.path),
            Input::Gz(r) => next_from(r.as_mut(), &mut self.lines, &mut self.parser, &self.path),
        }
    }

    fn progress(&self, _now: SimTime) -> Option<f64> {
        if self.lines.done {
            return Some(1.0);
        }
        if self.file_size == 0 {
            return None;
        }
        let used = match &self.gz_count {
            Some(c) => c.load(Ordering::Relaxed),
            None => self.lines.consumed,
        };
        Some((used as f64 / self.file_size as f64).min(1.0))
    }
}

/// Exactly `N` comma-separated fields of a CSV line (MSR, csv), each trimmed; `names` is the
/// columns, for the error.
#[inline]
fn comma_fields<'a, const N: usize>(
    line: &'a [u8],
    names: &str,
) -> std::result::Result<[&'a [u8]; N], String> {
    let mut out: [&[u8]; N] = [&[]; N];
    let mut got = 0;
    for f in line.split(|&c| c == b',') {
        if let Some(slot) = out.get_mut(got) {
            *slot = trim(f);
        }
        got += 1;
    }
    if got != N {
        return Err(format!(
            "expected {N} comma-separated fields `{names}`, got {got}"
        ));
    }
    Ok(out)
}

/// Strip leading and trailing ASCII whitespace (including the `\r` of CRLF files).
#[inline]
fn trim(mut b: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = b {
        if first.is_ascii_whitespace() {
            b = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = b {
        if last.is_ascii_whitespace() {
            b = rest;
        } else {
            break;
        }
    }
    b
}

/// Splits a line on runs of blanks (space, tab, and stray `\r`).
struct Fields<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Fields<'a> {
    type Item = &'a [u8];
    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let mut start = 0;
        while start < self.rest.len() && is_blank(self.rest[start]) {
            start += 1;
        }
        if start == self.rest.len() {
            self.rest = &[];
            return None;
        }
        let mut end = start;
        while end < self.rest.len() && !is_blank(self.rest[end]) {
            end += 1;
        }
        let (field, rest) = self.rest.split_at(end);
        self.rest = rest;
        field.get(start..)
    }
}

#[inline]
fn is_blank(c: u8) -> bool {
    c == b' ' || c == b'\t' || c == b'\r' || c == b'\n'
}

fn fields(line: &[u8]) -> Fields<'_> {
    Fields { rest: line }
}

/// A field for messages: lossy UTF-8, truncated so a garbage line cannot flood the terminal.
fn show(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    if s.chars().count() > 40 {
        let head: String = s.chars().take(40).collect();
        format!("{head}...")
    } else {
        s.into_owned()
    }
}

/// Decimal `u64` from ASCII digits, `None` on anything else or overflow.
#[inline]
fn parse_u64(b: &[u8]) -> Option<u64> {
    if b.is_empty() || b.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for &c in b {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    Some(v)
}

/// A time field: exact integer, or a finite non-negative float when it has `.`/`e`/`E`.
#[inline]
fn parse_time(b: &[u8]) -> Option<TimeVal> {
    if let Some(v) = parse_u64(b) {
        return Some(TimeVal::Int(v));
    }
    if !b.iter().any(|&c| c == b'.' || c == b'e' || c == b'E') {
        return None;
    }
    // Only digits, one sign after an exponent, `.` and exponent letters: rejects `inf`, `nan`.
    if !b
        .iter()
        .all(|&c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    let f: f64 = std::str::from_utf8(b).ok()?.parse().ok()?;
    (f.is_finite() && f >= 0.0).then_some(TimeVal::Float(f))
}

/// Lowercase hex digit value.
#[inline]
fn hex(c: u8) -> Option<u64> {
    match c {
        b'0'..=b'9' => Some(u64::from(c - b'0')),
        b'a'..=b'f' => Some(u64::from(c - b'a' + 10)),
        b'A'..=b'F' => Some(u64::from(c - b'A' + 10)),
        _ => None,
    }
}

const MSR_HEADER: &[u8] = b"Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime";

impl Parser {
    #[inline]
    fn parse(&mut self, line: &[u8]) -> std::result::Result<Parsed, String> {
        let p = match self.format {
            TraceFormat::Disksim => self.disksim(line),
            TraceFormat::Msr => self.msr(line),
            TraceFormat::Blkparse => self.blkparse(line),
            TraceFormat::Fiu => self.fiu(line),
            TraceFormat::Csv => self.csv(line),
        }?;
        if matches!(p, Parsed::Record(_)) {
            self.seen_record = true;
        }
        Ok(p)
    }

    /// Sectors to bytes with overflow checks.
    #[inline]
    fn sectors(&self, sector: u64, n: u64) -> std::result::Result<(u64, u64), String> {
        let off = sector.checked_mul(self.sector).ok_or_else(|| {
            format!(
                "sector {sector} times the sector size {} overflows 64 bits",
                self.sector
            )
        })?;
        let len = n.checked_mul(self.sector).ok_or_else(|| {
            format!(
                "{n} sectors times the sector size {} overflows 64 bits",
                self.sector
            )
        })?;
        Ok((off, len))
    }

    /// The fast path's five values as a record; `None` sends the line to the general parser
    /// (which gives the error message), e.g. for an `rw` other than 0 or 1.
    #[inline]
    fn disksim_values(&mut self, v: [u64; 5]) -> Option<std::result::Result<Parsed, String>> {
        let [t, dev, sector, nsec, rw] = v;
        let op = match rw {
            0 => Op::Write,
            1 => Op::Read,
            _ => return None,
        };
        let dev = u32::try_from(dev).ok()?;
        if self.device.is_some_and(|d| d != dev) {
            self.seen_record = true;
            return Some(Ok(Parsed::Skip));
        }
        self.seen_record = true;
        Some(self.sectors(sector, nsec).map(|(offset, len)| {
            Parsed::Record(Record {
                time: TimeVal::Int(t),
                op,
                offset,
                len,
                content: 0,
            })
        }))
    }

    fn disksim(&mut self, line: &[u8]) -> std::result::Result<Parsed, String> {
        let mut it = fields(line);
        let (Some(t), Some(dev), Some(sec), Some(n), Some(rw), None) = (
            it.next(),
            it.next(),
            it.next(),
            it.next(),
            it.next(),
            it.next(),
        ) else {
            let got = fields(line).count();
            return Err(format!(
                "expected 5 whitespace-separated fields `time dev sector nsectors rw`, got {got}"
            ));
        };
        let time = parse_time(t)
            .ok_or_else(|| format!("time: expected a non-negative number, got `{}`", show(t)))?;
        let dev = parse_u64(dev)
            .and_then(|d| u32::try_from(d).ok())
            .ok_or_else(|| format!("dev: expected a device number, got `{}`", show(dev)))?;
        let sector = parse_u64(sec).ok_or_else(|| {
            format!(
                "sector: expected a non-negative integer, got `{}`",
                show(sec)
            )
        })?;
        let nsec = parse_u64(n).ok_or_else(|| {
            format!(
                "nsectors: expected a non-negative integer, got `{}`",
                show(n)
            )
        })?;
        let op = match rw {
            b"0" => Op::Write,
            b"1" => Op::Read,
            _ => {
                return Err(format!(
                    "rw: expected 0 (write) or 1 (read), got `{}`",
                    show(rw)
                ))
            }
        };
        if self.device.is_some_and(|d| d != dev) {
            return Ok(Parsed::Skip);
        }
        let (offset, len) = self.sectors(sector, nsec)?;
        Ok(Parsed::Record(Record {
            time,
            op,
            offset,
            len,
            content: 0,
        }))
    }

    fn msr(&mut self, line: &[u8]) -> std::result::Result<Parsed, String> {
        if line == MSR_HEADER {
            if self.seen_record {
                return Err("column header after the first record".into());
            }
            return Ok(Parsed::Skip);
        }
        let [t, _host, disk, ty, off, size, _resp] = comma_fields(
            line,
            "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime",
        )?;
        let time = parse_time(t).ok_or_else(|| {
            format!(
                "Timestamp: expected a non-negative number, got `{}`",
                show(t)
            )
        })?;
        let disk = parse_u64(disk)
            .and_then(|d| u32::try_from(d).ok())
            .ok_or_else(|| format!("DiskNumber: expected a disk number, got `{}`", show(disk)))?;
        let op = if ty.eq_ignore_ascii_case(b"read") {
            Op::Read
        } else if ty.eq_ignore_ascii_case(b"write") {
            Op::Write
        } else {
            return Err(format!(
                "Type: expected `Read` or `Write`, got `{}`",
                show(ty)
            ));
        };
        let offset = parse_u64(off)
            .ok_or_else(|| format!("Offset: expected a byte offset, got `{}`", show(off)))?;
        let len = parse_u64(size)
            .ok_or_else(|| format!("Size: expected a byte count, got `{}`", show(size)))?;
        if self.device.is_some_and(|d| d != disk) {
            return Ok(Parsed::Skip);
        }
        Ok(Parsed::Record(Record {
            time,
            op,
            offset,
            len,
            content: 0,
        }))
    }

    fn blkparse(&mut self, line: &[u8]) -> std::result::Result<Parsed, String> {
        if is_blkparse_summary(line) {
            return Ok(Parsed::End);
        }
        let mut it = fields(line);
        let mut next = |what: &str| {
            it.next()
                .ok_or_else(|| format!("expected {what}; the line ends early"))
        };
        let dev = next("the device `major,minor`")?;
        let valid_dev = {
            let mut parts = dev.split(|&c| c == b',');
            matches!(
                (
                    parts.next().and_then(parse_u64),
                    parts.next().and_then(parse_u64),
                    parts.next()
                ),
                (Some(_), Some(_), None)
            )
        };
        if !valid_dev {
            return Err(format!(
                "device: expected `major,minor`, got `{}`",
                show(dev)
            ));
        }
        let cpu = next("the cpu")?;
        parse_u64(cpu).ok_or_else(|| format!("cpu: expected an integer, got `{}`", show(cpu)))?;
        let seq = next("the sequence number")?;
        parse_u64(seq)
            .ok_or_else(|| format!("sequence: expected an integer, got `{}`", show(seq)))?;
        let t = next("the time")?;
        let time =
            parse_time(t).ok_or_else(|| format!("time: expected seconds, got `{}`", show(t)))?;
        let pid = next("the pid")?;
        parse_u64(pid).ok_or_else(|| format!("pid: expected an integer, got `{}`", show(pid)))?;
        let action = next("the action")?;
        if action != [self.action] {
            return Ok(Parsed::Skip);
        }
        let rwbs = next("the RWBS field")?;
        let op = if rwbs.contains(&b'D') {
            Op::Trim
        } else if rwbs.contains(&b'W') {
            Op::Write
        } else if rwbs.contains(&b'R') {
            Op::Read
        } else {
            // N (no data), F/FN flush-only and the like.
            return Ok(Parsed::Skip);
        };
        let Some(sec) = it.next() else {
            return Ok(Parsed::Skip);
        };
        let Some(sector) = parse_u64(sec) else {
            // `[proc]` or `(...)` right after RWBS: an event without a data range.
            if sec.first() == Some(&b'[') || sec.first() == Some(&b'(') {
                return Ok(Parsed::Skip);
            }
            return Err(format!("sector: expected an integer, got `{}`", show(sec)));
        };
        match it.next() {
            Some(b"+") => {}
            None => return Ok(Parsed::Skip),
            Some(other) if other.first() == Some(&b'[') || other.first() == Some(&b'(') => {
                return Ok(Parsed::Skip)
            }
            Some(other) => {
                return Err(format!(
                    "expected `+` after the sector, got `{}`",
                    show(other)
                ))
            }
        }
        let n = it
            .next()
            .ok_or_else(|| "expected the sector count after `+`".to_string())?;
        let nsec = parse_u64(n)
            .ok_or_else(|| format!("sector count: expected an integer, got `{}`", show(n)))?;
        if nsec == 0 {
            // `+ 0`: a barrier or flush carrying no data.
            return Ok(Parsed::Skip);
        }
        let (offset, len) = self.sectors(sector, nsec)?;
        Ok(Parsed::Record(Record {
            time,
            op,
            offset,
            len,
            content: 0,
        }))
    }

    fn fiu(&mut self, line: &[u8]) -> std::result::Result<Parsed, String> {
        // Up to 8 fixed fields and the end of the line are needed; collect field spans.
        let mut f: [&[u8]; 9] = [&[]; 9];
        let mut count = 0usize;
        for field in fields(line) {
            if count < 9 {
                f[count] = field;
                count += 1;
            } else {
                // More than 9 fields: the process name had blanks. Shift the tail left.
                f.copy_within(4..9, 3);
                f[8] = field;
            }
        }
        if count < 9 {
            return Err(format!(
                "expected 9 fields `ts pid process lba nblocks op major minor md5`, got {count}"
            ));
        }
        let [t, pid, _proc, lba, nb, op, major, minor, md5] = f;
        let time = parse_time(t)
            .ok_or_else(|| format!("ts: expected a non-negative number, got `{}`", show(t)))?;
        parse_u64(pid).ok_or_else(|| format!("pid: expected an integer, got `{}`", show(pid)))?;
        let lba = parse_u64(lba)
            .ok_or_else(|| format!("lba: expected a sector number, got `{}`", show(lba)))?;
        let nblocks = parse_u64(nb)
            .ok_or_else(|| format!("nblocks: expected a sector count, got `{}`", show(nb)))?;
        let op = match op {
            b"W" | b"w" => Op::Write,
            b"R" | b"r" => Op::Read,
            _ => return Err(format!("op: expected `R` or `W`, got `{}`", show(op))),
        };
        parse_u64(major)
            .ok_or_else(|| format!("major: expected an integer, got `{}`", show(major)))?;
        parse_u64(minor)
            .ok_or_else(|| format!("minor: expected an integer, got `{}`", show(minor)))?;
        if md5.len() != 32 || !md5.iter().all(|&c| hex(c).is_some()) {
            return Err(format!("md5: expected 32 hex digits, got `{}`", show(md5)));
        }
        let content = if op == Op::Write {
            let v = md5
                .iter()
                .take(16)
                .fold(0u64, |acc, &c| (acc << 4) | hex(c).unwrap_or(0));
            v.max(1)
        } else {
            0
        };
        let (offset, len) = self.sectors(lba, nblocks)?;
        Ok(Parsed::Record(Record {
            time,
            op,
            offset,
            len,
            content,
        }))
    }

    fn csv(&mut self, line: &[u8]) -> std::result::Result<Parsed, String> {
        if !self.seen_header {
            if line != CSV_HEADER {
                return Err(format!(
                    "expected the header `{}` first, got `{}`",
                    String::from_utf8_lossy(CSV_HEADER),
                    show(line)
                ));
            }
            self.seen_header = true;
            return Ok(Parsed::Skip);
        }
        let [t, op, off, len, content] = comma_fields(line, "time,op,offset,len,content")?;
        let time = parse_time(t)
            .ok_or_else(|| format!("time: expected a non-negative number, got `{}`", show(t)))?;
        let op = match op {
            b"R" => Op::Read,
            b"W" => Op::Write,
            b"T" => Op::Trim,
            _ => return Err(format!("op: expected `R`, `W` or `T`, got `{}`", show(op))),
        };
        let offset = parse_u64(off)
            .ok_or_else(|| format!("offset: expected a byte offset, got `{}`", show(off)))?;
        let len = parse_u64(len)
            .ok_or_else(|| format!("len: expected a byte count, got `{}`", show(len)))?;
        let content = if content.is_empty() {
            0
        } else if op != Op::Write {
            return Err(format!(
                "content: only a write carries a content id, got `{}` on a {}",
                show(content),
                if op == Op::Read { "read" } else { "trim" }
            ));
        } else {
            parse_u64(content).ok_or_else(|| {
                format!(
                    "content: expected a decimal content id (or nothing), got `{}`",
                    show(content)
                )
            })?
        };
        Ok(Parsed::Record(Record {
            time,
            op,
            offset,
            len,
            content,
        }))
    }

    /// Apply time origin, scaling and the address rules.
    #[inline]
    fn finish(&mut self, r: Record) -> std::result::Result<Request, String> {
        if r.len == 0 {
            return Err("zero-length request".into());
        }
        let (offset, len) = match r.offset.checked_add(r.len) {
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
        self.last_time = ns;
        Ok(Request {
            time: SimTime(ns),
            op: r.op,
            offset,
            len,
            content,
            file: crate::workload::NO_FILE,
            attrs: Default::default(),
        })
    }
}

/// Fast path for the common DiskSim line: five unsigned integers (at most 19 digits each)
/// separated by blanks, then `\n` (optionally `\r\n`), at the start of `b`. Returns the values
/// and the bytes used including the `\n`; `None` for anything else (a decimal time, a comment,
/// a line cut by the buffer's end, an error), which the general parser then handles. One pass
/// over the bytes finds the line end and the values together.
#[inline]
fn fast_disksim(b: &[u8]) -> Option<([u64; 5], usize)> {
    let n = b.len();
    let mut i = 0;
    while i < n && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    let mut v = [0u64; 5];
    for (k, slot) in v.iter_mut().enumerate() {
        let start = i;
        let mut x: u64 = 0;
        while i < n {
            let d = b[i].wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            // Wrapping: a 20+ digit field is rejected below, before its value is used.
            x = x.wrapping_mul(10).wrapping_add(u64::from(d));
            i += 1;
        }
        if i == start || i - start > 19 {
            return None;
        }
        *slot = x;
        if k < 4 {
            if i >= n || !(b[i] == b' ' || b[i] == b'\t') {
                return None;
            }
            while i < n && (b[i] == b' ' || b[i] == b'\t') {
                i += 1;
            }
        }
    }
    while i < n && (b[i] == b' ' || b[i] == b'\t' || b[i] == b'\r') {
        i += 1;
    }
    (i < n && b[i] == b'\n').then_some((v, i + 1))
}

/// Whether a blkparse line starts the summary printed after the events.
fn is_blkparse_summary(line: &[u8]) -> bool {
    if let Some(rest) = line.strip_prefix(b"CPU") {
        // `CPU0 (8,0):`
        return rest.first().is_some_and(|c| c.is_ascii_digit());
    }
    line.starts_with(b"Total (")
        || line.starts_with(b"Throughput (R/W):")
        || line.starts_with(b"Events (")
        || line.starts_with(b"Reads Queued:")
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
mod tests;
