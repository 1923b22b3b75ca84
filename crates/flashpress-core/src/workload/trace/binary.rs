//! libCacheSim's binary traces: fixed-size little-endian records, no separators.
//!
//! - **oracle_general** (libCacheSim `oracleGeneral`, its FAQ and `oracleGeneralBin.h`): 24
//!   bytes per record, `u32 clock_time; u64 obj_id; u32 obj_size; i64 next_access_vtime`.
//!   `clock_time` in seconds (the FAQ: "the time unit is in sec"), `obj_size` in bytes,
//!   `next_access_vtime` (the future reuse distance Belady needs) is ignored. The format has
//!   no op: every record is a read.
//! - **oracle_general_opns** (`oracleGeneralOpNS`): 27 bytes, `u32 clock_time; u64 obj_id;
//!   u32 obj_size; u8 op; u16 ns; i64 next_access_vtime`, `op` in libCacheSim's `req_op_e`:
//!   1 get, 2 gets and 12 read are reads; 3 set, 4 add, 5 cas, 6 replace, 7 append, 8 prepend,
//!   10 incr, 11 decr, 13 write and 14 update are writes; 9 delete is a trim. 0 (nop) and any
//!   other value carry no block operation and are errors. `ns` (namespace) is ignored.
//!
//! These are cache traces: a record names an object, not a block range. The mapping to the
//! device is fixed and deterministic: the request starts at byte
//! `obj_id * sector_size` and is `obj_size` bytes long. libCacheSim's conversions of block
//! traces keep the block address as the object id (its vscsi reader, for the CloudPhysics
//! traces, sets `obj_id = lbn`, a 512-byte sector number), so with the default
//! `sector_size = 512` such a trace lands where the original did. Object ids that are
//! hashes (web and key-value caches) land anywhere in 2^64 x 512 bytes: replay them with
//! `address_mode = "wrap"`, which folds each address into the device (in 128-bit
//! arithmetic, then to a 4 KiB boundary if the request would still not fit); objects
//! folding onto each other then share blocks, a cache trace's limit on a block device.
//!
//! Errors name the 1-based record number where text traces give the line, and the byte
//! offset of the record in the (decompressed) stream. A file whose length is not a multiple
//! of the record size ends in an error naming the last, partial, record.

use super::input::Lines;
use super::{addr_bytes, Parsed, Parser, Record, TimeVal};
use crate::error::{Error, Result};
use crate::workload::{Op, Request};
use std::io::BufRead;
use std::path::Path;

/// Size and fields of one binary record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Bytes per record.
    pub record: usize,
    /// Whether the record carries an op byte (at offset 16).
    pub with_op: bool,
}

impl Layout {
    /// `oracleGeneral`: 24 bytes, no op.
    pub const GENERAL: Layout = Layout {
        record: 24,
        with_op: false,
    };
    /// `oracleGeneralOpNS`: 27 bytes, op at byte 16.
    pub const OPNS: Layout = Layout {
        record: 27,
        with_op: true,
    };

    fn name(self) -> &'static str {
        if self.with_op {
            "oracleGeneralOpNS"
        } else {
            "oracleGeneral"
        }
    }
}

/// The block operation of a libCacheSim `req_op_e` value.
fn op_of(v: u8) -> Option<Op> {
    match v {
        1 | 2 | 12 => Some(Op::Read),
        3..=8 | 10 | 11 | 13 | 14 => Some(Op::Write),
        9 => Some(Op::Trim),
        _ => None,
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

/// Parse one record.
fn parse(
    layout: Layout,
    b: &[u8],
    fold: Option<u64>,
    sector: u64,
) -> std::result::Result<Parsed, String> {
    let time = TimeVal::Int(u64::from(u32_at(b, 0)));
    let obj_id = u64_at(b, 4);
    let obj_size = u32_at(b, 12);
    let op = if layout.with_op {
        let v = b[16];
        op_of(v).ok_or_else(|| {
            format!(
                "op {v}: expected a libCacheSim op that reads (1 get, 2 gets, 12 read), writes \
                 (3 set .. 8 prepend, 10 incr, 11 decr, 13 write, 14 update) or deletes (9); \
                 {v} carries no block operation"
            )
        })?
    } else {
        Op::Read
    };
    let offset = addr_bytes(obj_id, sector, "obj_id", fold)?;
    Ok(Parsed::Record(Record {
        time,
        op,
        offset,
        len: u64::from(obj_size),
        content: 0,
        placement: None,
    }))
}

/// The next request of a binary trace; `st.line` counts records.
pub(super) fn next_record<R: BufRead + ?Sized>(
    reader: &mut R,
    layout: Layout,
    st: &mut Lines,
    parser: &mut Parser,
    path: &Path,
) -> Result<Option<Request>> {
    let mut buf = [0u8; 32];
    let rec = &mut buf[..layout.record];
    while !st.done {
        let mut have = 0;
        while have < rec.len() {
            let avail = reader.fill_buf().map_err(|e| Error::io(path, e))?;
            if avail.is_empty() {
                break;
            }
            let n = avail.len().min(rec.len() - have);
            rec[have..have + n].copy_from_slice(&avail[..n]);
            reader.consume(n);
            have += n;
        }
        let at = st.consumed;
        st.consumed += have as u64;
        if have == 0 {
            st.done = true;
            return Ok(None);
        }
        st.line += 1;
        let line = st.line;
        let err = |msg: String| Error::Trace {
            path: path.to_path_buf(),
            line,
            msg: format!("record at byte {at}: {msg}"),
        };
        if have < rec.len() {
            st.done = true;
            return Err(err(format!(
                "the file ends {have} bytes into a {}-byte {} record: a truncated file, or not \
                 a {} trace?",
                layout.record,
                layout.name(),
                layout.name()
            )));
        }
        let looks_text = line == 1 && rec.iter().all(|&c| c == b'\n' || (0x20..0x7f).contains(&c));
        let out = parse(layout, rec, parser.fold(), parser.sector)
            .and_then(|p| match p {
                Parsed::Record(r) => parser.finish(r).map(Some),
                _ => Ok(None),
            })
            .map_err(|msg| {
                if looks_text {
                    format!(
                        "{msg} (the file starts with text: a text trace given a binary format?)"
                    )
                } else {
                    msg
                }
            });
        match out {
            Ok(Some(r)) => return Ok(Some(r)),
            Ok(None) => {}
            Err(msg) => return Err(err(msg)),
        }
    }
    Ok(None)
}
