//! Tables: one request per line, fields split by a delimiter, each column with one meaning.
//! The published formats below are column mappings fixed by their schemas; `columns` is the
//! same engine with the mapping from the config, for any CSV or whitespace table.
//!
//! - **spc**: the SPC trace file format 1.0.1 (Storage Performance Council), which the UMass
//!   trace repository's Financial and WebSearch traces use: `ASU,LBA,Size,Opcode,Timestamp`
//!   then optional fields (any number, ignored). `ASU` the application specific unit (the
//!   device `workload.device` filters on), `LBA` in blocks of `sector_size` bytes (512 in the
//!   UMass traces), `Size` in bytes, `Opcode` `R`/`r` read or `W`/`w` write, `Timestamp` in
//!   seconds from the trace's start (`s.d`). Blanks may follow a comma. The spec allows a
//!   size of 0 ("the result of which is I/O subsystem dependent"): such records carry no
//!   data and are skipped.
//! - **alibaba**: Alibaba Cloud's block traces (2020, `alibaba/block-traces`, `io_traces.csv`):
//!   `device_id,opcode,offset,length,timestamp`. `device_id` the virtual disk,
//!   `opcode` `R` or `W`, `offset` and `length` in bytes, `timestamp` in microseconds (the
//!   README's example `1577808000000626` is January 2020 in us). Exactly 5 fields; a header
//!   line of exactly these names is accepted before the first record.
//! - **tencent**: Tencent CBS block traces (2018, SNIA IOTTA; the OSCA paper, ATC '20):
//!   `Timestamp,Offset,Size,IOType,VolumeID`. `Timestamp` a Unix time in seconds, `Offset`
//!   and `Size` in 512-byte sectors (`sector_size`), `IOType` `0` read or `1` write,
//!   `VolumeID` the cloud virtual volume (the device). Exactly 5 fields; a header of exactly
//!   these names is accepted before the first record. The traces ship as `.tgz`: extract
//!   the CSV from the tar archive first (a tar archive is refused with that hint).
//! - **cloudphysics**: CloudPhysics' VMware block traces (Waldspurger et al., FAST '15)
//!   have no published text schema: CloudPhysics released them as binary vscsi records
//!   (libCacheSim's `vscsiReader`: `ts` in microseconds, `lbn` in 512-byte sectors, `len` in
//!   bytes). The text form read here is the CSV that pyCydonia's `CPReader` reads,
//!   `ts,lba,op,size`: `ts` in microseconds (as the vscsi records), `lba` in `sector_size`
//!   (512-byte) sectors, `op` `r`/`R` read or `w`/`W` write, `size` in bytes. Exactly 4
//!   fields; a header `ts,lba,op,size` is accepted before the first record.
//! - **columns**: a [`ColumnsFormat`] from the config names the delimiter (one character, or
//!   `"whitespace"` for runs of blanks), the 1-based columns of `time`, `offset`, `size`,
//!   `op` and optionally `device`, the units of offset and size (`bytes`, or `sectors` of
//!   `sector_size`), the op values of reads, writes and trims (exact, case-sensitive) and
//!   values to `ignore` (skipped records), `header = true` to skip a first line of column
//!   names, and `skip_lines` physical lines before anything. Columns not named are ignored;
//!   a line with fewer columns than the mapping reads is an error. The time is in
//!   `workload.time_unit`, which a config must give for this format.
//!
//! Fields are trimmed of blanks; quotes are not interpreted (a quoted field fails to parse
//! and its error names it). Every error names the column by its published name.

use super::fields::{fields, parse_time, parse_u64, show, trim};
use super::{addr_bytes, len_bytes, Kind, Parsed, Parser, Record};
use crate::config::{AddrUnit, ColumnsFormat, TraceFormat};
use crate::workload::Op;

/// A column of the table: 0-based index and the name errors give it.
#[derive(Debug, Clone)]
pub(super) struct Col {
    idx: usize,
    name: String,
}

/// What an op value means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Do(Op),
    Ignore,
}

/// How the table's first record line may be a header.
#[derive(Debug, Clone)]
enum Header {
    /// No header.
    None,
    /// A line of exactly these column names (ASCII case-insensitive) before the first record.
    Exact(&'static [u8]),
    /// The first record line is a header, whatever it says.
    First,
}

/// A compiled column mapping.
pub struct TableSpec {
    /// Delimiter byte; `None`: runs of blanks.
    pub(super) delim: Option<u8>,
    min_fields: usize,
    /// `None`: extra fields allowed (SPC's optional fields, a wide table's other columns).
    max_fields: Option<usize>,
    /// The layout, for the field-count error.
    layout: String,
    time: Col,
    offset: Col,
    size: Col,
    op: Col,
    device: Option<Col>,
    /// Bytes per unit of the offset and size columns.
    offset_unit: u64,
    size_unit: u64,
    ops: Vec<(Vec<u8>, Action)>,
    /// The op values, for the error.
    ops_expected: String,
    header: Header,
    /// Records of size 0 are skipped instead of refused (SPC).
    skip_zero: bool,
    /// For each column up to the last one read, its slot in time, offset, size, op, device
    /// order (`NO_SLOT`: not read).
    slot: Vec<u8>,
}

const NO_SLOT: u8 = u8::MAX;

impl TableSpec {
    /// Keep field `i` if a column wants it.
    #[inline]
    fn put<'a>(&self, i: usize, f: &'a [u8], got: &mut [&'a [u8]; 5]) {
        if let Some(&s) = self.slot.get(i) {
            if let Some(g) = got.get_mut(usize::from(s)) {
                *g = f;
            }
        }
    }

    /// Fill `slot` from the columns.
    fn with_slots(mut self) -> TableSpec {
        let cols = [
            Some(self.time.idx),
            Some(self.offset.idx),
            Some(self.size.idx),
            Some(self.op.idx),
            self.device.as_ref().map(|c| c.idx),
        ];
        let last = cols.iter().flatten().max().copied().unwrap_or(0);
        self.slot = vec![NO_SLOT; last + 1];
        for (k, c) in cols.iter().enumerate() {
            if let Some(i) = c {
                self.slot[*i] = k as u8;
            }
        }
        self
    }
}

fn col(idx: usize, name: &str) -> Col {
    Col {
        idx,
        name: name.to_string(),
    }
}

fn ops(list: &[(&str, Action)]) -> Vec<(Vec<u8>, Action)> {
    list.iter()
        .map(|(v, a)| (v.as_bytes().to_vec(), *a))
        .collect()
}

const READ: Action = Action::Do(Op::Read);
const WRITE: Action = Action::Do(Op::Write);

impl TableSpec {
    /// The mapping of a named table format; `None` for a format that is not a table.
    pub(super) fn named(format: &TraceFormat, sector: u64) -> Option<TableSpec> {
        Some(match format {
            TraceFormat::Spc => TableSpec {
                delim: Some(b','),
                min_fields: 5,
                max_fields: None,
                layout:
                    "comma-separated fields `ASU,LBA,Size,Opcode,Timestamp` (then optional fields)"
                        .into(),
                device: Some(col(0, "ASU")),
                offset: col(1, "LBA"),
                size: col(2, "Size"),
                op: col(3, "Opcode"),
                time: col(4, "Timestamp"),
                offset_unit: sector,
                size_unit: 1,
                ops: ops(&[("R", READ), ("r", READ), ("W", WRITE), ("w", WRITE)]),
                ops_expected: "`R` or `W` (any case)".into(),
                header: Header::None,
                skip_zero: true,
                slot: Vec::new(),
            },
            TraceFormat::Alibaba => TableSpec {
                delim: Some(b','),
                min_fields: 5,
                max_fields: Some(5),
                layout: "comma-separated fields `device_id,opcode,offset,length,timestamp`".into(),
                device: Some(col(0, "device_id")),
                op: col(1, "opcode"),
                offset: col(2, "offset"),
                size: col(3, "length"),
                time: col(4, "timestamp"),
                offset_unit: 1,
                size_unit: 1,
                ops: ops(&[("R", READ), ("W", WRITE)]),
                ops_expected: "`R` or `W`".into(),
                header: Header::Exact(b"device_id,opcode,offset,length,timestamp"),
                skip_zero: false,
                slot: Vec::new(),
            },
            TraceFormat::Tencent => TableSpec {
                delim: Some(b','),
                min_fields: 5,
                max_fields: Some(5),
                layout: "comma-separated fields `Timestamp,Offset,Size,IOType,VolumeID`".into(),
                time: col(0, "Timestamp"),
                offset: col(1, "Offset"),
                size: col(2, "Size"),
                op: col(3, "IOType"),
                device: Some(col(4, "VolumeID")),
                offset_unit: sector,
                size_unit: sector,
                ops: ops(&[("0", READ), ("1", WRITE)]),
                ops_expected: "`0` (read) or `1` (write)".into(),
                header: Header::Exact(b"Timestamp,Offset,Size,IOType,VolumeID"),
                skip_zero: false,
                slot: Vec::new(),
            },
            TraceFormat::Cloudphysics => TableSpec {
                delim: Some(b','),
                min_fields: 4,
                max_fields: Some(4),
                layout: "comma-separated fields `ts,lba,op,size`".into(),
                time: col(0, "ts"),
                offset: col(1, "lba"),
                op: col(2, "op"),
                size: col(3, "size"),
                device: None,
                offset_unit: sector,
                size_unit: 1,
                ops: ops(&[("r", READ), ("R", READ), ("w", WRITE), ("W", WRITE)]),
                ops_expected: "`r` or `w` (any case)".into(),
                header: Header::Exact(b"ts,lba,op,size"),
                skip_zero: false,
                slot: Vec::new(),
            },
            _ => return None,
        }
        .with_slots())
    }

    /// The mapping a config's [`ColumnsFormat`] describes (checked by `ColumnsFormat::check`).
    pub(super) fn columns(c: &ColumnsFormat, sector: u64) -> TableSpec {
        let named = |n: u32, what: &str| {
            col(
                n.saturating_sub(1) as usize,
                &format!("column {n} ({what})"),
            )
        };
        let unit = |u: AddrUnit| match u {
            AddrUnit::Bytes => 1,
            AddrUnit::Sectors => sector,
        };
        let mut ops = Vec::new();
        let mut expected = Vec::new();
        for (list, action, what) in [
            (&c.read, READ, "read"),
            (&c.write, WRITE, "write"),
            (&c.trim, Action::Do(Op::Trim), "trim"),
            (&c.ignore, Action::Ignore, "ignored"),
        ] {
            for v in list {
                ops.push((v.as_bytes().to_vec(), action));
                expected.push(format!("`{v}` ({what})"));
            }
        }
        let widest = [
            Some(c.time),
            Some(c.offset),
            Some(c.size),
            Some(c.op),
            c.device,
        ]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(1) as usize;
        let delim = match c.delimiter.as_str() {
            "whitespace" => None,
            // One byte: `ColumnsFormat::check` refuses anything longer.
            d => d.bytes().next(),
        };
        let sep = match delim {
            None => "blank-separated".to_string(),
            Some(b'\t') => "tab-separated".to_string(),
            Some(b) => format!("`{}`-separated", b as char),
        };
        TableSpec {
            delim,
            min_fields: widest,
            max_fields: None,
            layout: format!("{sep} fields (the mapping reads column {widest})"),
            time: named(c.time, "time"),
            offset: named(c.offset, "offset"),
            size: named(c.size, "size"),
            op: named(c.op, "op"),
            device: c.device.map(|d| named(d, "device")),
            offset_unit: unit(c.offset_unit),
            size_unit: unit(c.size_unit),
            ops,
            ops_expected: expected.join(", "),
            header: if c.header {
                Header::First
            } else {
                Header::None
            },
            skip_zero: false,
            slot: Vec::new(),
        }
        .with_slots()
    }
}

impl Parser {
    pub(super) fn table(&mut self, line: &[u8]) -> std::result::Result<Parsed, String> {
        let Parser {
            kind,
            seen_header,
            seen_record,
            device,
            filtered,
            wrap,
            capacity,
            ..
        } = self;
        let Kind::Table(spec) = kind else {
            unreachable!("table() is called for table formats only")
        };
        match spec.header {
            Header::First if !*seen_header => {
                *seen_header = true;
                return Ok(Parsed::Skip);
            }
            Header::Exact(h) if line.eq_ignore_ascii_case(h) => {
                if *seen_record {
                    return Err("column header after the first record".into());
                }
                return Ok(Parsed::Skip);
            }
            _ => {}
        }
        // The wanted columns' fields, in the order time, offset, size, op, device. Splitting
        // stops after the last wanted column when extra columns are allowed anyway.
        let mut got: [&[u8]; 5] = [&[]; 5];
        let mut count = 0usize;
        let open_ended = spec.max_fields.is_none();
        match spec.delim {
            Some(d) => {
                for (i, f) in line.split(|&c| c == d).enumerate() {
                    count = i + 1;
                    spec.put(i, trim(f), &mut got);
                    if open_ended && count >= spec.min_fields {
                        break;
                    }
                }
            }
            None => {
                for (i, f) in fields(line).enumerate() {
                    count = i + 1;
                    spec.put(i, f, &mut got);
                    if open_ended && count >= spec.min_fields {
                        break;
                    }
                }
            }
        }
        if count < spec.min_fields || spec.max_fields.is_some_and(|m| count > m) {
            let n = match spec.max_fields {
                Some(m) if m == spec.min_fields => format!("{m}"),
                _ => format!("at least {}", spec.min_fields),
            };
            return Err(format!("expected {n} {}, got {count}", spec.layout));
        }
        let [t, off, size, op, dev] = got;
        let time = parse_time(t).ok_or_else(|| {
            format!(
                "{}: expected a non-negative number, got `{}`",
                spec.time.name,
                show(t)
            )
        })?;
        let offset = parse_u64(off).ok_or_else(|| {
            format!(
                "{}: expected a non-negative integer, got `{}`",
                spec.offset.name,
                show(off)
            )
        })?;
        let n = parse_u64(size).ok_or_else(|| {
            format!(
                "{}: expected a non-negative integer, got `{}`",
                spec.size.name,
                show(size)
            )
        })?;
        let action = spec
            .ops
            .iter()
            .find(|(v, _)| v.as_slice() == op)
            .map(|(_, a)| *a)
            .ok_or_else(|| {
                format!(
                    "{}: expected {}, got `{}`",
                    spec.op.name,
                    spec.ops_expected,
                    show(op)
                )
            })?;
        if let Some(c) = &spec.device {
            let d = parse_u64(dev).ok_or_else(|| {
                format!("{}: expected a device number, got `{}`", c.name, show(dev))
            })?;
            if device.is_some_and(|want| want != d) {
                *filtered += 1;
                return Ok(Parsed::Skip);
            }
        }
        let op = match action {
            Action::Do(op) => op,
            Action::Ignore => {
                *filtered += 1;
                return Ok(Parsed::Skip);
            }
        };
        if n == 0 && spec.skip_zero {
            return Ok(Parsed::Skip);
        }
        let fold = wrap.then_some(*capacity);
        let offset = addr_bytes(offset, spec.offset_unit, &spec.offset.name, fold)?;
        let len = len_bytes(n, spec.size_unit, &spec.size.name)?;
        Ok(Parsed::Record(Record {
            time,
            op,
            offset,
            len,
            content: 0,
            placement: None,
        }))
    }
}
