//! The line formats flashpress started with: DiskSim/MQSim ASCII, MSR Cambridge, blkparse,
//! FIU and flashpress's own csv (see the module doc of [`super`]).

use super::fields::*;
use super::{Parsed, Parser, Record, TimeVal};
use crate::workload::Op;

/// The header line a csv trace starts with.
pub(super) const CSV_HEADER: &[u8] = b"time,op,offset,len,content";

/// The header of a csv trace whose writes carry placement identifiers (`[fdp]`).
pub(super) const CSV_HEADER_PID: &[u8] = b"time,op,offset,len,content,pid";

pub(super) const MSR_HEADER: &[u8] = b"Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime";

impl Parser {
    /// The fast path's five values as a record; `None` sends the line to the general parser
    /// (which gives the error message), e.g. for an `rw` other than 0 or 1.
    #[inline]
    pub(super) fn disksim_values(
        &mut self,
        v: [u64; 5],
    ) -> Option<std::result::Result<Parsed, String>> {
        let [t, dev, sector, nsec, rw] = v;
        let op = match rw {
            0 => Op::Write,
            1 => Op::Read,
            _ => return None,
        };
        let dev = u32::try_from(dev).ok()?;
        if self.device.is_some_and(|d| d != u64::from(dev)) {
            self.seen_record = true;
            self.filtered += 1;
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
                placement: None,
            })
        }))
    }

    pub(super) fn disksim(&mut self, line: &[u8]) -> std::result::Result<Parsed, String> {
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
        if self.device.is_some_and(|d| d != u64::from(dev)) {
            self.filtered += 1;
            return Ok(Parsed::Skip);
        }
        let (offset, len) = self.sectors(sector, nsec)?;
        Ok(Parsed::Record(Record {
            time,
            op,
            offset,
            len,
            content: 0,
            placement: None,
        }))
    }

    pub(super) fn msr(&mut self, line: &[u8]) -> std::result::Result<Parsed, String> {
        if line == MSR_HEADER {
            if self.seen_record {
                return Err("column header after the first record".into());
            }
            return Ok(Parsed::Skip);
        }
        let [t, host, disk, ty, off, size, _resp] = comma_fields(
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
        if self.device.is_some_and(|d| d != u64::from(disk))
            || self.host.as_deref().is_some_and(|h| h != host)
        {
            self.filtered += 1;
            return Ok(Parsed::Skip);
        }
        Ok(Parsed::Record(Record {
            time,
            op,
            offset,
            len,
            content: 0,
            placement: None,
        }))
    }

    pub(super) fn blkparse(&mut self, line: &[u8]) -> std::result::Result<Parsed, String> {
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
        // blkparse's RWBS letters (blktrace's `fill_rwbs`, the kernel's `blk_fill_rwbs`):
        // F flush/FUA, W write, D discard, E secure erase, R read, N no data, A readahead,
        // B barrier, S sync, M metadata. Anything else is not a blkparse line.
        if rwbs.is_empty() || !rwbs.iter().all(|c| b"FWDERNABSM".contains(c)) {
            return Err(format!(
                "RWBS: expected letters from F W D E R N A B S M (e.g. `WS`, `R`, `D`), got `{}`",
                show(rwbs)
            ));
        }
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
            placement: None,
        }))
    }

    pub(super) fn fiu(&mut self, line: &[u8]) -> std::result::Result<Parsed, String> {
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
            crate::content::pattern::outside_patterns(v.max(1))
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
            placement: None,
        }))
    }

    pub(super) fn csv(&mut self, line: &[u8]) -> std::result::Result<Parsed, String> {
        if !self.seen_header {
            if line != CSV_HEADER && line != CSV_HEADER_PID {
                return Err(format!(
                    "expected the header `{}` (or `{}`) first, got `{}`",
                    String::from_utf8_lossy(CSV_HEADER),
                    String::from_utf8_lossy(CSV_HEADER_PID),
                    show(line)
                ));
            }
            self.csv_pid = line == CSV_HEADER_PID;
            self.seen_header = true;
            return Ok(Parsed::Skip);
        }
        let ([t, op, off, len, content], pid) = if self.csv_pid {
            let [t, op, off, len, content, pid] =
                comma_fields(line, "time,op,offset,len,content,pid")?;
            ([t, op, off, len, content], pid)
        } else {
            (comma_fields(line, "time,op,offset,len,content")?, &b""[..])
        };
        let time = parse_time(t)
            .ok_or_else(|| format!("time: expected a non-negative number, got `{}`", show(t)))?;
        let op = match op {
            b"R" => Op::Read,
            b"W" => Op::Write,
            b"T" => Op::Trim,
            // Zoned devices: Zone Append to the zone at `offset`, and zone management.
            b"A" => Op::Append,
            b"ZO" => Op::ZoneOpen,
            b"ZC" => Op::ZoneClose,
            b"ZF" => Op::ZoneFinish,
            b"ZR" => Op::ZoneReset,
            // Flexible data placement: Reclaim Unit Handle Update of the line's `pid`.
            b"RUHU" => Op::RuhUpdate,
            _ => {
                return Err(format!(
                    "op: expected `R`, `W`, `T`, on a zoned device `A` (zone append), `ZO`, `ZC`, `ZF`, `ZR` (zone open, close, finish, reset), or on a device with flexible data placement `RUHU` (reclaim unit handle update), got `{}`",
                    show(op)
                ))
            }
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
                match op {
                    Op::Read => "read",
                    Op::Trim => "trim",
                    Op::RuhUpdate => "reclaim unit handle update",
                    _ => "zone command",
                }
            ));
        } else {
            let id = parse_u64(content).ok_or_else(|| {
                format!(
                    "content: expected a decimal content id (or nothing), got `{}`",
                    show(content)
                )
            })?;
            if crate::content::pattern::is_pattern(id) {
                return Err(format!(
                    "content: id {id} lies in the range reserved for written data patterns \
                     (ids whose top 16 bits are 0xFA77); use another id"
                ));
            }
            id
        };
        if op == Op::RuhUpdate && (offset != 0 || len != 0) {
            return Err(format!(
                "a reclaim unit handle update addresses no bytes: expected offset and len 0, got {offset} and {len}"
            ));
        }
        if op == Op::RuhUpdate && pid.is_empty() {
            return Err(
                "pid: a reclaim unit handle update needs the placement identifier of the handle it updates (the `pid` column)".into(),
            );
        }
        let placement = if pid.is_empty() {
            None
        } else if !matches!(op, Op::Write | Op::RuhUpdate) {
            return Err(format!(
                "pid: only a write or a reclaim unit handle update (`RUHU`) carries a placement identifier, got `{}`",
                show(pid)
            ));
        } else {
            Some(
                parse_u64(pid)
                    .and_then(|v| u16::try_from(v).ok())
                    .ok_or_else(|| {
                        format!(
                            "pid: expected a placement identifier from 0 to 65535 (or nothing), got `{}`",
                            show(pid)
                        )
                    })?,
            )
        };
        Ok(Parsed::Record(Record {
            time,
            op,
            offset,
            len,
            content,
            placement,
        }))
    }
}

/// Fast path for the common DiskSim line: five unsigned integers (at most 19 digits each)
/// separated by blanks, then `\n` (optionally `\r\n`), at the start of `b`. Returns the values
/// and the bytes used including the `\n`; `None` for anything else (a decimal time, a comment,
/// a line cut by the buffer's end, an error), which the general parser then handles. One pass
/// over the bytes finds the line end and the values together.
#[inline]
pub(super) fn fast_disksim(b: &[u8]) -> Option<([u64; 5], usize)> {
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
pub(super) fn is_blkparse_summary(line: &[u8]) -> bool {
    if let Some(rest) = line.strip_prefix(b"CPU") {
        // `CPU0 (8,0):`
        return rest.first().is_some_and(|c| c.is_ascii_digit());
    }
    line.starts_with(b"Total (")
        || line.starts_with(b"Throughput (R/W):")
        || line.starts_with(b"Events (")
        || line.starts_with(b"Reads Queued:")
}
