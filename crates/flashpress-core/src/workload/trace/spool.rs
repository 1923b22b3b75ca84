//! The parsed trace, spooled: opening a trace for a run parses it once ([`super::scan`]'s
//! pass, which finds a bad line before the device is built) and writes each request it
//! yields to an unnamed temporary file in a compact binary form; the run replays that file.
//! So the text is parsed once, not twice, and memory stays a few buffers whatever the
//! trace's length (the file lives in the temporary directory and is gone when the run
//! drops it, or its process ends).
//!
//! A record is a tag byte (bits 0-3 the op, its place in [`OPS`]; bit 4 a content id
//! follows; bit 5 a placement identifier follows), then LEB128 varints: the time since the
//! previous request (times never go backwards), the offset's difference from the previous
//! offset (zig-zag), the length, and the optional content id and placement identifier.
//! A random 4 KiB write costs about 7 bytes.

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

/// The writing end: requests in parse order.
pub(super) struct Spool {
    out: BufWriter<File>,
    trace: PathBuf,
    prev: (u64, u64),
    count: u64,
    rec: Vec<u8>,
}

fn spool_error(trace: &Path, e: std::io::Error) -> Error {
    Error::Workload(format!(
        "cannot keep the parsed trace {} in a temporary file in {}: {e} (set TMPDIR to a \
         writable folder with room for about 8 bytes per request)",
        trace.display(),
        std::env::temp_dir().display()
    ))
}

#[inline]
fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
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
            rec: Vec::with_capacity(64),
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
        rec.clear();
        rec.push(tag);
        put_varint(rec, r.time.0 - self.prev.0);
        let d = r.offset.wrapping_sub(self.prev.1) as i64;
        put_varint(rec, ((d << 1) ^ (d >> 63)) as u64);
        put_varint(rec, r.len);
        if r.content != 0 {
            put_varint(rec, r.content);
        }
        if let Some(p) = r.placement {
            put_varint(rec, u64::from(p));
        }
        self.out
            .write_all(rec)
            .map_err(|e| spool_error(&self.trace, e))?;
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
            buf: vec![0; BUF].into_boxed_slice(),
            pos: 0,
            end: 0,
            prev: (0, 0),
            left: self.count,
            total: self.count,
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
    prev: (u64, u64),
    left: u64,
    total: u64,
}

impl SpoolSource {
    #[cold]
    fn refill(&mut self) -> Result<()> {
        self.buf.copy_within(self.pos..self.end, 0);
        self.end -= self.pos;
        self.pos = 0;
        loop {
            match self.file.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    return Err(Error::Workload(format!(
                    "the parsed trace {} ended early in its temporary file ({} requests unread): \
                         the file was changed or truncated while the run read it",
                    self.trace.display(),
                    self.left
                )))
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(());
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(spool_error(&self.trace, e)),
            }
        }
    }

    #[inline]
    fn byte(&mut self) -> Result<u8> {
        if self.pos == self.end {
            self.refill()?;
        }
        let b = self.buf[self.pos];
        self.pos += 1;
        Ok(b)
    }

    #[inline]
    fn varint(&mut self) -> Result<u64> {
        let (mut v, mut shift) = (0u64, 0u32);
        loop {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(v);
            }
            shift += 7;
            if shift > 63 {
                return Err(Error::Workload(format!(
                    "the parsed trace {} is corrupt in its temporary file (a number longer than 64 bits)",
                    self.trace.display()
                )));
            }
        }
    }
}

impl RequestSource for SpoolSource {
    fn next_request(&mut self, _now: SimTime) -> Result<Option<Request>> {
        if self.left == 0 {
            return Ok(None);
        }
        let tag = self.byte()?;
        let Some(&op) = OPS.get(usize::from(tag & OP_MASK)) else {
            return Err(Error::Workload(format!(
                "the parsed trace {} is corrupt in its temporary file (op code {})",
                self.trace.display(),
                tag & OP_MASK
            )));
        };
        let time = self.prev.0 + self.varint()?;
        let z = self.varint()?;
        let offset = self
            .prev
            .1
            .wrapping_add(((z >> 1) as i64 ^ -((z & 1) as i64)) as u64);
        let len = self.varint()?;
        let content = if tag & HAS_CONTENT != 0 {
            self.varint()?
        } else {
            0
        };
        let placement = if tag & HAS_PLACEMENT != 0 {
            Some(self.varint()? as u16)
        } else {
            None
        };
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

    fn progress(&self, _now: SimTime) -> Option<f64> {
        Some(if self.total == 0 {
            1.0
        } else {
            (self.total - self.left) as f64 / self.total as f64
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

    /// A spool cut short is an error naming the trace, not a panic or a silent end.
    #[test]
    fn truncated_spool_is_an_error() {
        let mut spool = Spool::new(Path::new("cut.trace")).unwrap();
        for i in 0..10u64 {
            let r = Request {
                time: SimTime(i),
                op: Op::Write,
                offset: i * 4096,
                len: 4096,
                content: 0,
                file: NO_FILE,
                attrs: Default::default(),
                placement: None,
            };
            spool.push(&r).unwrap();
        }
        let mut src = spool.finish().unwrap();
        let len = src.file.metadata().unwrap().len();
        src.file.set_len(len - 3).unwrap();
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
