//! The parsed trace, spooled: opening a trace for a run parses it once ([`super::scan`]'s
//! pass, which finds a bad line before the device is built) and writes each request it
//! yields to an unnamed temporary file in a compact binary form; the run replays that file.
//! So the text is parsed once, not twice, and memory stays a few buffers whatever the
//! trace's length (the file lives in the temporary directory and is gone when the run
//! drops it, or its process ends).
//!
//! A record is a tag byte (bits 0-3 the op, its place in [`OPS`]; bit 4 a content id
//! follows; bit 5 a placement identifier follows), a widths byte, then little-endian
//! numbers: the time since the previous request (times never go backwards), the offset's
//! difference from the previous offset (zig-zag), the length and the optional content id,
//! each 1, 2, 4 or 8 bytes wide as two bits of the widths byte say (bits 0-1, 2-3, 4-5,
//! 6-7), then the optional placement identifier in 2 bytes. A random 4 KiB write costs
//! about 10 bytes. The run decodes a whole record from a slice of its read buffer: each
//! number is one 8-byte load and a mask, where a byte-at-a-time varint took about 250
//! instructions a request.

use crate::error::{Error, Result};
use crate::units::SimTime;
use crate::workload::{Op, Request, RequestSource, NO_FILE};
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

const OP_MASK: u8 = 0b1111;
const HAS_CONTENT: u8 = 1 << 4;
const HAS_PLACEMENT: u8 = 1 << 5;
/// Every op a trace can carry (a zoned csv trace's zone commands too), by tag code.
const OPS: [Op; 11] = [
    Op::Read,
    Op::Write,
    Op::Trim,
    Op::Delete,
    Op::Sync,
    Op::Append,
    Op::ZoneOpen,
    Op::ZoneClose,
    Op::ZoneFinish,
    Op::ZoneReset,
    Op::RuhUpdate,
];
/// Read-back buffer (bytes).
const BUF: usize = 64 << 10;
/// The longest record: tag, widths, four 8-byte numbers and a placement identifier.
const MAX_RECORD: usize = 2 + 4 * 8 + 2;
/// Bytes after the buffer's end that a number's 8-byte load may touch (masked off).
const SLACK: usize = MAX_RECORD + 8;
/// Room to build one record in: the longest, and the last number's 8-byte store.
const RECORD_ROOM: usize = MAX_RECORD + 8;

/// The writing end: requests in parse order.
pub(super) struct Spool {
    out: BufWriter<File>,
    trace: PathBuf,
    prev: (u64, u64),
    count: u64,
    bytes: u64,
    rec: [u8; RECORD_ROOM],
}

fn spool_error(trace: &Path, e: std::io::Error) -> Error {
    Error::Workload(format!(
        "cannot keep the parsed trace {} in a temporary file in {}: {e} (set TMPDIR to a \
         writable folder with room for about 12 bytes per request)",
        trace.display(),
        std::env::temp_dir().display()
    ))
}

/// The width code of `v`: 0, 1, 2 or 3 for 1, 2, 4 or 8 bytes.
#[inline]
fn width_code(v: u64) -> u8 {
    match v {
        0..0x100 => 0,
        0x100..0x1_0000 => 1,
        0x1_0000..0x1_0000_0000 => 2,
        _ => 3,
    }
}

/// Write `v` at `rec[*n..]` in the width its code says (one 8-byte store; the bytes past
/// the width are overwritten by what follows or left out), and return the code.
#[inline]
fn put_number(rec: &mut [u8; RECORD_ROOM], n: &mut usize, v: u64) -> u8 {
    let code = width_code(v);
    rec[*n..*n + 8].copy_from_slice(&v.to_le_bytes());
    *n += 1 << code;
    code
}

impl Spool {
    /// An empty spool in the temporary directory, for the requests of `trace`.
    pub(super) fn new(trace: &Path) -> Result<Spool> {
        let file = tempfile::tempfile().map_err(|e| spool_error(trace, e))?;
        Ok(Spool {
            out: BufWriter::with_capacity(BUF, file),
            trace: trace.to_path_buf(),
            prev: (0, 0),
            count: 0,
            bytes: 0,
            rec: [0; RECORD_ROOM],
        })
    }

    /// Append one request (a trace's: no file).
    pub(super) fn push(&mut self, r: &Request) -> Result<()> {
        let op = match r.op {
            Op::Read => 0,
            Op::Write => 1,
            Op::Trim => 2,
            Op::Delete => 3,
            Op::Sync => 4,
            Op::Append => 5,
            Op::ZoneOpen => 6,
            Op::ZoneClose => 7,
            Op::ZoneFinish => 8,
            Op::ZoneReset => 9,
            Op::RuhUpdate => 10,
        };
        debug_assert_eq!(OPS[op as usize], r.op);
        debug_assert!(r.file == NO_FILE && r.time.0 >= self.prev.0);
        let mut tag = op;
        if r.content != 0 {
            tag |= HAS_CONTENT;
        }
        if r.placement.is_some() {
            tag |= HAS_PLACEMENT;
        }
        let rec = &mut self.rec;
        rec[0] = tag;
        let mut n = 2;
        let d = r.offset.wrapping_sub(self.prev.1) as i64;
        let mut widths = put_number(rec, &mut n, r.time.0 - self.prev.0);
        widths |= put_number(rec, &mut n, ((d << 1) ^ (d >> 63)) as u64) << 2;
        widths |= put_number(rec, &mut n, r.len) << 4;
        if r.content != 0 {
            widths |= put_number(rec, &mut n, r.content) << 6;
        }
        rec[1] = widths;
        if let Some(p) = r.placement {
            rec[n..n + 2].copy_from_slice(&p.to_le_bytes());
            n += 2;
        }
        self.out
            .write_all(&rec[..n])
            .map_err(|e| spool_error(&self.trace, e))?;
        self.bytes += n as u64;
        self.prev = (r.time.0, r.offset);
        self.count += 1;
        Ok(())
    }

    /// The requests pushed, for replay from the first.
    pub(super) fn finish(self) -> Result<SpoolSource> {
        let trace = self.trace;
        let mut file = self
            .out
            .into_inner()
            .map_err(|e| spool_error(&trace, e.into_error()))?;
        file.seek(SeekFrom::Start(0))
            .map_err(|e| spool_error(&trace, e))?;
        Ok(SpoolSource {
            file,
            trace,
            buf: vec![0; BUF + SLACK].into_boxed_slice(),
            pos: 0,
            end: 0,
            file_left: self.bytes,
            prev: (0, 0),
            left: self.count,
            total: self.count,
            ahead: [Request::new(SimTime::ZERO, Op::Read, 0, 0); PEEK],
            head: 0,
            ahead_len: 0,
        })
    }
}

/// The reading end: the spooled requests in order, as a run's request source.
pub struct SpoolSource {
    file: File,
    trace: PathBuf,
    buf: Box<[u8]>,
    pos: usize,
    end: usize,
    /// Bytes of the file not yet read into `buf`.
    file_left: u64,
    prev: (u64, u64),
    left: u64,
    total: u64,
    /// Requests decoded ahead for [`RequestSource::peek`]: a fixed ring of `ahead_len`
    /// requests from index `head`, next first (a `VecDeque` cost about 60 instructions a
    /// request more on the replay's hot path).
    ahead: [Request; PEEK],
    head: usize,
    ahead_len: usize,
}

/// How far ahead [`SpoolSource`] decodes for [`RequestSource::peek`].
const PEEK: usize = 2;

/// The number at `*pos` of width code `code`, from one 8-byte load: `None` where the load
/// would leave `buf` (the caller checks that the record ends within the bytes read).
#[inline(always)]
fn take_number(buf: &[u8], pos: &mut usize, code: u8) -> Option<u64> {
    let word = buf.get(*pos..*pos + 8)?;
    let x = u64::from_le_bytes(word.try_into().expect("eight bytes"));
    let width = 1usize << (code & 3);
    *pos += width;
    Some(x & (u64::MAX >> (64 - 8 * width)))
}

impl SpoolSource {
    /// Move the unread bytes to the front and read more after them, so the buffer holds a
    /// whole record unless the file has no more. Reads nothing once the file is exhausted.
    #[cold]
    fn refill(&mut self) -> Result<()> {
        self.buf.copy_within(self.pos..self.end, 0);
        self.end -= self.pos;
        self.pos = 0;
        while self.file_left > 0 && self.end < MAX_RECORD {
            match self.file.read(&mut self.buf[self.end..BUF]) {
                Ok(0) => {
                    return Err(self.ended_early());
                }
                Ok(n) => {
                    self.end += n;
                    self.file_left = self.file_left.saturating_sub(n as u64);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(spool_error(&self.trace, e)),
            }
        }
        Ok(())
    }

    fn ended_early(&self) -> Error {
        Error::Workload(format!(
            "the parsed trace {} ended early in its temporary file ({} requests unread): \
             the file was changed or truncated while the run read it",
            self.trace.display(),
            self.left
        ))
    }
}

impl SpoolSource {
    /// Decode the next record of the file. On an error nothing moves, so the same call
    /// finds it again.
    #[inline]
    fn decode(&mut self) -> Result<Option<Request>> {
        if self.left == 0 {
            return Ok(None);
        }
        if self.end - self.pos < MAX_RECORD && self.file_left > 0 {
            self.refill()?;
        }
        // The whole record is in the buffer unless the file has nothing more (then it was
        // cut short): decode it from the slice, and move the read position only once it is
        // whole.
        let mut pos = self.pos;
        if pos + 2 > self.end {
            return Err(self.ended_early());
        }
        let tag = self.buf[pos];
        let Some(&op) = OPS.get(usize::from(tag & OP_MASK)) else {
            return Err(Error::Workload(format!(
                "the parsed trace {} is corrupt in its temporary file (op code {})",
                self.trace.display(),
                tag & OP_MASK
            )));
        };
        let widths = self.buf[pos + 1];
        pos += 2;
        let buf = &self.buf[..];
        let fields = (|| {
            let dt = take_number(buf, &mut pos, widths)?;
            let z = take_number(buf, &mut pos, widths >> 2)?;
            let len = take_number(buf, &mut pos, widths >> 4)?;
            let content = if tag & HAS_CONTENT != 0 {
                take_number(buf, &mut pos, widths >> 6)?
            } else {
                0
            };
            let placement = if tag & HAS_PLACEMENT != 0 {
                let p = buf.get(pos..pos + 2)?;
                pos += 2;
                Some(u16::from_le_bytes([p[0], p[1]]))
            } else {
                None
            };
            Some((dt, z, len, content, placement))
        })();
        let Some((dt, z, len, content, placement)) = fields.filter(|_| pos <= self.end) else {
            return Err(self.ended_early());
        };
        self.pos = pos;
        let time = self.prev.0 + dt;
        let offset = self
            .prev
            .1
            .wrapping_add(((z >> 1) as i64 ^ -((z & 1) as i64)) as u64);
        self.prev = (time, offset);
        self.left -= 1;
        Ok(Some(Request {
            time: SimTime(time),
            op,
            offset,
            len,
            content,
            file: NO_FILE,
            attrs: Default::default(),
            placement,
        }))
    }
}

impl RequestSource for SpoolSource {
    #[inline]
    fn next_request(&mut self, _now: SimTime) -> Result<Option<Request>> {
        if self.ahead_len == 0 {
            return self.decode();
        }
        let r = self.ahead[self.head];
        self.head = (self.head + 1) % PEEK;
        self.ahead_len -= 1;
        Ok(Some(r))
    }

    /// Up to two requests ahead; a record that does not decode is left for
    /// [`RequestSource::next_request`] to report in its turn.
    #[inline]
    fn peek(&mut self, k: usize) -> Option<&Request> {
        if k >= PEEK {
            return None;
        }
        while self.ahead_len <= k {
            let r = self.decode().ok()??;
            self.ahead[(self.head + self.ahead_len) % PEEK] = r;
            self.ahead_len += 1;
        }
        Some(&self.ahead[(self.head + k) % PEEK])
    }

    fn progress(&self, _now: SimTime) -> Option<f64> {
        let yielded = self.total - self.left - self.ahead_len as u64;
        Some(if self.total == 0 {
            1.0
        } else {
            yielded as f64 / self.total as f64
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Random requests of every shape (ops, backward offsets, huge values, content ids and
    /// placements or none) come back from the spool equal, then `None`.
    #[test]
    fn spool_round_trips_random_requests() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        let mut spool = Spool::new(Path::new("t.trace")).unwrap();
        let mut want = Vec::new();
        let mut t = 0u64;
        for _ in 0..50_000 {
            // Steps up to 2^46 ns: 50,000 of them stay below 2^62 (a timed trace's limit).
            t += match rng.random_range(0..4) {
                0 => 0,
                1 => rng.random_range(0..1000),
                2 => u64::from(rng.random::<u32>()),
                _ => rng.random_range(0..1 << 46),
            };
            let offset = match rng.random_range(0..3) {
                0 => rng.random_range(0..1 << 20) * 4096,
                1 => rng.random::<u64>(),
                _ => u64::MAX - rng.random_range(0..10),
            };
            let r = Request {
                time: SimTime(t),
                op: OPS[rng.random_range(0..OPS.len())],
                offset,
                len: rng.random_range(1..u64::MAX),
                content: if rng.random_bool(0.5) {
                    0
                } else {
                    rng.random()
                },
                file: NO_FILE,
                attrs: Default::default(),
                placement: rng.random_bool(0.2).then(|| rng.random()),
            };
            spool.push(&r).unwrap();
            want.push(r);
        }
        let mut src = spool.finish().unwrap();
        assert_eq!(src.total, want.len() as u64);
        for (i, w) in want.iter().enumerate() {
            assert_eq!(
                src.next_request(SimTime::ZERO).unwrap().as_ref(),
                Some(w),
                "request {i}"
            );
        }
        assert_eq!(src.next_request(SimTime::ZERO).unwrap(), None);
        assert_eq!(src.progress(SimTime::ZERO), Some(1.0));
    }

    /// Numbers of every width from 0 to 64 bits come back from their 1, 2, 4 or 8 bytes,
    /// whatever bytes follow them (the load reads eight and masks), in the fewest bytes.
    #[test]
    fn numbers_of_every_width_decode() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        for bits in 0..=64u32 {
            for _ in 0..200 {
                let v = match bits {
                    0 => 0,
                    64 => rng.random::<u64>() | 1 << 63,
                    b => rng.random_range(1u64 << (b - 1)..1u64 << b),
                };
                let mut rec = [0x55u8; RECORD_ROOM];
                let mut n = 3;
                let code = put_number(&mut rec, &mut n, v);
                let width = n - 3;
                let mut buf = rec[..n].to_vec();
                let fewest = match bits {
                    0..=8 => 1,
                    9..=16 => 2,
                    17..=32 => 4,
                    _ => 8,
                };
                assert_eq!(width, fewest, "{v:#x}");
                assert_eq!(1 << code, width);
                buf.extend(std::iter::repeat_n(0xff, 8));
                let mut pos = 3;
                assert_eq!(take_number(&buf, &mut pos, code), Some(v), "{v:#x}");
                assert_eq!(pos, 3 + width);
                // A load past the slice is refused, not a panic.
                let mut pos = 3;
                assert_eq!(take_number(&buf[..10], &mut pos, code), None);
            }
        }
    }

    /// A record with an op code no request has is an error naming the trace.
    #[test]
    fn corrupt_spool_is_an_error() {
        let mut spool = Spool::new(Path::new("bad.trace")).unwrap();
        let r = Request::new(SimTime(1), Op::Write, 4096, 4096);
        for _ in 0..100 {
            spool.push(&r).unwrap();
        }
        let mut src = spool.finish().unwrap();
        use std::io::Write as _;
        src.file.write_all(&[0x0f]).unwrap();
        src.file.seek(SeekFrom::Start(0)).unwrap();
        let err = src.next_request(SimTime::ZERO).unwrap_err().to_string();
        assert!(
            err.contains("bad.trace") && err.contains("corrupt") && err.contains("op code 15"),
            "{err}"
        );
    }

    /// Peeking shows the requests the source yields next, changes neither what it yields
    /// nor its progress, and goes no further than two ahead.
    #[test]
    fn peeking_shows_the_next_requests_and_changes_nothing() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        let mut spool = Spool::new(Path::new("p.trace")).unwrap();
        let want: Vec<Request> = (0..5000u64)
            .map(|i| {
                Request::new(
                    SimTime(i),
                    OPS[(i % 3) as usize],
                    rng.random::<u32>() as u64,
                    4096,
                )
            })
            .collect();
        for r in &want {
            spool.push(r).unwrap();
        }
        let mut src = spool.finish().unwrap();
        for (i, w) in want.iter().enumerate() {
            for _ in 0..rng.random_range(0..3) {
                let k = rng.random_range(0..3);
                let seen = src.peek(k).cloned();
                let expected = if k < PEEK {
                    want.get(i + k).cloned()
                } else {
                    None
                };
                assert_eq!(seen, expected, "peek {k} before request {i}");
            }
            assert_eq!(
                src.progress(SimTime::ZERO),
                Some(i as f64 / want.len() as f64),
                "progress before request {i}"
            );
            assert_eq!(
                src.next_request(SimTime::ZERO).unwrap().as_ref(),
                Some(w),
                "request {i}"
            );
        }
        assert_eq!(src.peek(0), None);
        assert_eq!(src.next_request(SimTime::ZERO).unwrap(), None);
    }

    /// A spool of ten 4 KiB writes named `cut.trace` whose file lost its last 3 bytes.
    fn cut_spool() -> SpoolSource {
        let mut spool = Spool::new(Path::new("cut.trace")).unwrap();
        for i in 0..10u64 {
            let r = Request::new(SimTime(i), Op::Write, i * 4096, 4096);
            spool.push(&r).unwrap();
        }
        let src = spool.finish().unwrap();
        let len = src.file.metadata().unwrap().len();
        src.file.set_len(len - 3).unwrap();
        src
    }

    /// A record that does not decode is reported by `next_request` at its turn, however far
    /// ahead the source was peeked: the requests before it come first.
    #[test]
    fn a_bad_record_seen_by_a_peek_is_reported_in_its_turn() {
        // The same cut spool read with and without peeks: the same requests, then the same
        // error.
        let read = |peek: bool| {
            let mut src = cut_spool();
            let mut yielded = Vec::new();
            loop {
                if peek {
                    src.peek(1);
                }
                match src.next_request(SimTime::ZERO) {
                    Ok(Some(r)) => yielded.push(r),
                    Ok(None) => panic!("a truncated spool must fail"),
                    Err(e) => return (yielded, e.to_string()),
                }
            }
        };
        let (plain, plain_err) = read(false);
        let (peeked, peeked_err) = read(true);
        assert!(!plain.is_empty() && plain.len() < 10, "{}", plain.len());
        assert_eq!(peeked, plain);
        assert_eq!(peeked_err, plain_err);
        assert!(
            peeked_err.contains("cut.trace") && peeked_err.contains("ended early"),
            "{peeked_err}"
        );
    }

    /// A spool cut short is an error naming the trace, not a panic or a silent end.
    #[test]
    fn truncated_spool_is_an_error() {
        let mut src = cut_spool();
        let mut err = None;
        for _ in 0..10 {
            if let Err(e) = src.next_request(SimTime::ZERO) {
                err = Some(e.to_string());
                break;
            }
        }
        let err = err.expect("a truncated spool must fail");
        assert!(
            err.contains("cut.trace") && err.contains("ended early"),
            "{err}"
        );
    }
}
