//! The published formats (samples written from their schemas), the column mapping, the
//! opener (compression by magic bytes, BOM, archives, binary garbage), the scan before a
//! run, and the config defaults. Expected requests are worked out by hand from each schema
//! (units, origins), not taken from the parser.

use super::*;
use crate::config::{ColumnsFormat, SimConfig, TimeUnit, WorkloadConfig};
use crate::sim::Simulation;
use std::io::Write;

const GIB: u64 = 1 << 30;

fn write_tmp(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

fn collect(cfg: &TraceWorkload, cap: u64) -> Result<Vec<Request>> {
    let mut s = open_stream(cfg, cap)?;
    let mut out = Vec::new();
    while let Some(r) = s.source.next_request(SimTime::ZERO)? {
        out.push(r);
    }
    Ok(out)
}

fn run_with(
    format: TraceFormat,
    bytes: &[u8],
    edit: impl Fn(&mut TraceWorkload),
) -> Result<Vec<Request>> {
    let (_d, path) = write_tmp("t.trace", bytes);
    let mut cfg = default_trace_config(path, format);
    edit(&mut cfg);
    collect(&cfg, 256 * GIB)
}

fn run(format: TraceFormat, text: &str) -> Result<Vec<Request>> {
    run_with(format, text.as_bytes(), |_| {})
}

fn req(time: u64, op: Op, offset: u64, len: u64) -> Request {
    Request {
        time: SimTime(time),
        op,
        offset,
        len,
        content: 0,
        file: crate::workload::NO_FILE,
        attrs: Default::default(),
        placement: None,
    }
}

/// The example records of the SPC trace file format spec 1.0.1 (its `2 448003` line, a
/// timestamp with a blank inside, is in the bad-line table instead), with one lower-case
/// opcode and one size-0 record (legal in SPC, skipped).
const SPC: &str = "0,20941264,8192,W,0.551706,Alpha/NT
0,20939840,8192,W,0.554041
0,20939808,8192,W,0.556202
1,3436288,15872,W,1.250720,0x123,5.99,test
1,3435888,512,W,1.609859
1,3435889,512,W,1.634761
0,7695360,4096,R,2.346628
1,10274472,4096,R,2.436645
2,30845544,4096,W,2.449733
1,10356592,4096,w,2.449733
0,100,0,r,2.5
";

#[test]
fn spc_follows_the_spec_example() {
    use Op::{Read as R, Write as W};
    let got = run(TraceFormat::Spc, SPC).unwrap();
    // LBA in 512-byte blocks, Size in bytes, Timestamp in seconds from 0.551706.
    assert_eq!(
        got,
        vec![
            req(0, W, 20941264 * 512, 8192),
            req(2_335_000, W, 20939840 * 512, 8192),
            req(4_496_000, W, 20939808 * 512, 8192),
            req(699_014_000, W, 3436288 * 512, 15872),
            req(1_058_153_000, W, 3435888 * 512, 512),
            req(1_083_055_000, W, 3435889 * 512, 512),
            req(1_794_922_000, R, 7695360 * 512, 4096),
            req(1_884_939_000, R, 10274472 * 512, 4096),
            req(1_898_027_000, W, 30845544 * 512, 4096),
            req(1_898_027_000, W, 10356592 * 512, 4096),
        ]
    );
    // ASU 1 only: its five records, timed from the first of them (1.250720 s).
    let got = run_with(TraceFormat::Spc, SPC.as_bytes(), |c| c.device = Some(1)).unwrap();
    let t: Vec<u64> = got.iter().map(|r| r.time.0).collect();
    assert_eq!(
        t,
        [0, 359_139_000, 384_041_000, 1_185_925_000, 1_199_013_000]
    );
}

const ALIBABA: &str = "device_id,opcode,offset,length,timestamp
0,R,126703644672,4096,1577808000000626
3,W,4096,8192,1577808000001626
0,W,126703648768,4096,1577808000002000
";

#[test]
fn alibaba_bytes_and_microseconds() {
    use Op::{Read as R, Write as W};
    assert_eq!(
        run(TraceFormat::Alibaba, ALIBABA).unwrap(),
        vec![
            req(0, R, 126703644672, 4096),
            req(1_000_000, W, 4096, 8192),
            req(1_374_000, W, 126703648768, 4096),
        ]
    );
    let got = run_with(TraceFormat::Alibaba, ALIBABA.as_bytes(), |c| {
        c.device = Some(0)
    })
    .unwrap();
    assert_eq!(
        got,
        vec![
            req(0, R, 126703644672, 4096),
            req(1_374_000, W, 126703648768, 4096)
        ]
    );
}

const TENCENT: &str = "Timestamp,Offset,Size,IOType,VolumeID
1538323200,2048,8,1,1063
1538323200,4096,16,0,1064
1538323201,2048,8,0,1063
";

#[test]
fn tencent_sectors_and_seconds() {
    use Op::{Read as R, Write as W};
    assert_eq!(
        run(TraceFormat::Tencent, TENCENT).unwrap(),
        vec![
            req(0, W, 1 << 20, 4096),
            req(0, R, 2 << 20, 8192),
            req(1_000_000_000, R, 1 << 20, 4096),
        ]
    );
    let got = run_with(TraceFormat::Tencent, TENCENT.as_bytes(), |c| {
        c.device = Some(1063)
    })
    .unwrap();
    assert_eq!(
        got,
        vec![
            req(0, W, 1 << 20, 4096),
            req(1_000_000_000, R, 1 << 20, 4096)
        ]
    );
}

const CLOUDPHYSICS: &str = "1000000,2048,w,4096\n1000500,2048,r,4096\n1002000,16,R,512\n";

#[test]
fn cloudphysics_csv() {
    use Op::{Read as R, Write as W};
    assert_eq!(
        run(TraceFormat::Cloudphysics, CLOUDPHYSICS).unwrap(),
        vec![
            req(0, W, 1 << 20, 4096),
            req(500_000, R, 1 << 20, 4096),
            req(2_000_000, R, 8192, 512),
        ]
    );
}

#[test]
fn msr_host_and_disk_filters() {
    let text = "128166372003061629,hm,1,Read,8192,4096,100\n\
                128166372003071629,prxy,1,Write,0,512,200\n\
                128166372003081629,hm,0,Write,4096,8192,300\n\
                128166372003091629,hm,1,Write,0,4096,300\n";
    let by = |host: Option<&str>, disk: Option<u32>| {
        run_with(TraceFormat::Msr, text.as_bytes(), |c| {
            c.host = host.map(str::to_string);
            c.device = disk;
        })
        .map(|got| got.iter().map(|r| r.offset).collect::<Vec<_>>())
    };
    assert_eq!(by(None, None).unwrap(), [8192, 0, 4096, 0]);
    assert_eq!(by(Some("hm"), None).unwrap(), [8192, 4096, 0]);
    assert_eq!(by(Some("hm"), Some(1)).unwrap(), [8192, 0]);
    let e = by(Some("prxy"), Some(0)).unwrap_err().to_string();
    assert!(
        e.contains("all 4 records are filtered out by device = 0 and host = \"prxy\""),
        "{e}"
    );
}

/// A 24-byte oracleGeneral record, or 27 with `op`.
fn oracle(t: u32, id: u64, size: u32, op: Option<u8>, next: i64) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&t.to_le_bytes());
    b.extend_from_slice(&id.to_le_bytes());
    b.extend_from_slice(&size.to_le_bytes());
    if let Some(op) = op {
        b.push(op);
        b.extend_from_slice(&7u16.to_le_bytes());
    }
    b.extend_from_slice(&next.to_le_bytes());
    b
}

#[test]
fn oracle_general_records_map_ids_to_sectors() {
    use Op::{Read as R, Trim as T, Write as W};
    let bytes = [
        oracle(100, 2048, 4096, None, 2),
        oracle(100, 16, 8192, None, -1),
        oracle(102, 2048, 4096, None, -1),
    ]
    .concat();
    assert_eq!(bytes.len(), 72);
    assert_eq!(
        run_with(TraceFormat::OracleGeneral, &bytes, |_| {}).unwrap(),
        vec![
            req(0, R, 1 << 20, 4096),
            req(0, R, 8192, 8192),
            req(2_000_000_000, R, 1 << 20, 4096),
        ]
    );
    let bytes = [
        oracle(5, 2048, 4096, Some(13), 1),
        oracle(5, 2048, 4096, Some(1), -1),
        oracle(6, 2048, 4096, Some(9), -1),
        oracle(7, 8, 512, Some(3), -1),
    ]
    .concat();
    assert_eq!(bytes.len(), 4 * 27);
    assert_eq!(
        run_with(TraceFormat::OracleGeneralOpns, &bytes, |_| {}).unwrap(),
        vec![
            req(0, W, 1 << 20, 4096),
            req(0, R, 1 << 20, 4096),
            req(1_000_000_000, T, 1 << 20, 4096),
            req(2_000_000_000, W, 4096, 512),
        ]
    );
    // A hashed object id: past the device, and past 2^64 bytes once times 512.
    let bytes = oracle(1, u64::MAX - 3, 4096, None, -1);
    let e = run_with(TraceFormat::OracleGeneral, &bytes, |_| {})
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("t.trace:1:") && e.contains("obj_id") && e.contains("wrap"),
        "{e}"
    );
    let got = run_with(TraceFormat::OracleGeneral, &bytes, |c| {
        c.address_mode = AddressMode::Wrap
    })
    .unwrap();
    // The documented fold: modulo the capacity in 128 bits; this one then ends past the
    // device, so it moves down to a 4 KiB boundary (where it fits).
    let cap = 256 * GIB;
    let folded = ((u128::from(u64::MAX - 3) * 512) % u128::from(cap)) as u64;
    assert!(folded + 4096 > cap);
    assert_eq!((got[0].offset, got[0].len), (folded / 4096 * 4096, 4096));
    let bytes = oracle(1, (1 << 55) + 8, 4096, None, -1);
    let got = run_with(TraceFormat::OracleGeneral, &bytes, |c| {
        c.address_mode = AddressMode::Wrap
    })
    .unwrap();
    // (2^55 + 8) * 512 = 2^64 + 4096: folds to 4096, which fits.
    assert_eq!((got[0].offset, got[0].len), (4096, 4096));
}

/// The column mapping of [`COLUMNS`].
fn columns_format() -> ColumnsFormat {
    ColumnsFormat {
        delimiter: "\t".into(),
        skip_lines: 2,
        header: true,
        time: 1,
        offset: 4,
        size: 5,
        op: 3,
        device: Some(2),
        offset_unit: crate::config::AddrUnit::Sectors,
        size_unit: crate::config::AddrUnit::Bytes,
        read: vec!["Read".into()],
        write: vec!["Write".into()],
        trim: vec!["Discard".into()],
        ignore: vec!["Flush".into()],
    }
}

const COLUMNS: &str = "# exported by a tool
preamble line, not a comment
ts\tdev\top\tlba\tbytes\textra
0.5\t7\tRead\t100\t4096\tx
0.75\t8\tWrite\t200\t8192\ty
1.0\t7\tFlush\t0\t0\tz
1.25\t7\tDiscard\t300\t65536\tw
";

#[test]
fn columns_mapping_reads_a_table() {
    use Op::{Read as R, Trim as T, Write as W};
    let fmt = TraceFormat::Columns(Box::new(columns_format()));
    let ms = |c: &mut TraceWorkload| c.time_unit = TimeUnit::S;
    assert_eq!(
        run_with(fmt.clone(), COLUMNS.as_bytes(), ms).unwrap(),
        vec![
            req(0, R, 51200, 4096),
            req(250_000_000, W, 102400, 8192),
            req(750_000_000, T, 153600, 65536),
        ]
    );
    let got = run_with(fmt, COLUMNS.as_bytes(), |c| {
        ms(c);
        c.device = Some(7);
    })
    .unwrap();
    assert_eq!(
        got,
        vec![req(0, R, 51200, 4096), req(750_000_000, T, 153600, 65536)]
    );
    // The same table with blanks between fields.
    let mut f = columns_format();
    f.delimiter = "whitespace".into();
    let blanks = COLUMNS.replace('\t', "   ");
    let got = run_with(TraceFormat::Columns(Box::new(f)), blanks.as_bytes(), ms).unwrap();
    assert_eq!(got.len(), 3);
    assert_eq!(got[2], req(750_000_000, T, 153600, 65536));
}

/// One table of bad lines for every format: each must fail naming its line and the field.
#[test]
fn bad_lines_per_format_name_file_and_line() {
    let cols = TraceFormat::Columns(Box::new(ColumnsFormat {
        skip_lines: 0,
        header: false,
        ..columns_format()
    }));
    let cases: Vec<(TraceFormat, &str, u64, &str)> = vec![
        // the SPC spec's own example line with a blank inside the timestamp
        (
            TraceFormat::Spc,
            "0,20941264,8192,W,0.551706\n2,30862016,4096,W,2 448003\n",
            2,
            "Timestamp",
        ),
        (
            TraceFormat::Spc,
            "0,1,512,X,0.1\n",
            1,
            "Opcode: expected `R` or `W`",
        ),
        (
            TraceFormat::Spc,
            "0,1,512\n",
            1,
            "at least 5 comma-separated",
        ),
        (TraceFormat::Spc, "a,1,512,R,0.1\n", 1, "ASU"),
        (TraceFormat::Spc, "0,-1,512,R,0.1\n", 1, "LBA"),
        (TraceFormat::Spc, "0,1,x,R,0.1\n", 1, "Size"),
        (
            TraceFormat::Alibaba,
            "0,R,0,4096\n",
            1,
            "expected 5 comma-separated",
        ),
        (TraceFormat::Alibaba, "0,R,0,4096,1,9\n", 1, "expected 5"),
        (TraceFormat::Alibaba, "0,X,0,4096,1\n", 1, "opcode"),
        (TraceFormat::Alibaba, "0,R,0,0,1\n", 1, "zero-length"),
        (TraceFormat::Alibaba, "x,R,0,4096,1\n", 1, "device_id"),
        (TraceFormat::Alibaba, "0,R,0,4096,-5\n", 1, "timestamp"),
        (
            TraceFormat::Alibaba,
            "0,R,0,4096,1\ndevice_id,opcode,offset,length,timestamp\n",
            2,
            "header",
        ),
        (
            TraceFormat::Tencent,
            "1538323200,2048,8,2,1063\n",
            1,
            "IOType: expected `0` (read) or `1` (write)",
        ),
        (
            TraceFormat::Tencent,
            "1538323200,2048,8,1\n",
            1,
            "expected 5",
        ),
        (
            TraceFormat::Tencent,
            "1538323200,2048,x,1,1063\n",
            1,
            "Size",
        ),
        (
            TraceFormat::Tencent,
            "1538323200,2048,8,1,v1\n",
            1,
            "VolumeID",
        ),
        (
            TraceFormat::Tencent,
            "1538323200,0,0,1,1\n",
            1,
            "zero-length",
        ),
        (TraceFormat::Cloudphysics, "1000,2048,x,4096\n", 1, "op"),
        (TraceFormat::Cloudphysics, "1000,2048,r\n", 1, "expected 4"),
        (TraceFormat::Cloudphysics, "1000,abc,r,4096\n", 1, "lba"),
        (
            TraceFormat::Cloudphysics,
            "1000,2048,r,4096\nts,lba,op,size\n",
            2,
            "header",
        ),
        (
            cols.clone(),
            "0.5\t7\tRead\n",
            1,
            "at least 5 tab-separated",
        ),
        (
            cols.clone(),
            "0.5\t7\tRead\t1\t4096\n0.6\t7\tErase\t1\t4096\n",
            2,
            "column 3 (op): expected `Read` (read)",
        ),
        (cols.clone(), "x\t7\tRead\t1\t4096\n", 1, "column 1 (time)"),
        (
            cols.clone(),
            "0.5\t7\tRead\t\t4096\n",
            1,
            "column 4 (offset)",
        ),
        (cols, "0.5\tdev7\tRead\t1\t4096\n", 1, "column 2 (device)"),
        (
            TraceFormat::Msr,
            "1,hm,0,Read,0,4096\n",
            1,
            "7 comma-separated",
        ),
    ];
    for (format, text, want_line, want) in cases {
        let res = run_with(format.clone(), text.as_bytes(), |c| {
            c.time_unit = TimeUnit::S
        });
        match res {
            Err(Error::Trace { path, line, msg }) => {
                assert!(path.ends_with("t.trace"));
                assert_eq!(line, want_line, "{format:?} {text:?}: {msg}");
                assert!(
                    msg.contains(want),
                    "{format:?} {text:?}: {msg:?} lacks {want:?}"
                );
            }
            other => panic!("{format:?} {text:?}: expected Error::Trace, got {other:?}"),
        }
    }
}

#[test]
fn binary_garbage_is_described_not_echoed() {
    let formats = [
        TraceFormat::Disksim,
        TraceFormat::Msr,
        TraceFormat::Blkparse,
        TraceFormat::Fiu,
        TraceFormat::Csv,
        TraceFormat::Spc,
        TraceFormat::Alibaba,
        TraceFormat::Tencent,
        TraceFormat::Cloudphysics,
    ];
    let cases: [(&[u8], &str); 3] = [
        (
            b"0 0 \xff\x9b 8 0\n",
            "line is not UTF-8 text (byte 0xff at column 5)",
        ),
        (
            b"0,\x1b[31m,1\n",
            "line holds a control character (U+001B at column 3)",
        ),
        (b"\x00\x01\x02\x03garbage\n", "(U+0000 at column 1)"),
    ];
    for format in formats {
        for (bytes, want) in cases {
            let good_first = format == TraceFormat::Csv;
            let mut text = Vec::new();
            if good_first {
                text.extend_from_slice(b"time,op,offset,len,content\n");
            }
            text.extend_from_slice(bytes);
            match run_with(format.clone(), &text, |_| {}) {
                Err(Error::Trace { line, msg, .. }) => {
                    assert_eq!(line, 1 + u64::from(good_first), "{format:?}: {msg}");
                    assert!(msg.contains(want), "{format:?}: {msg:?}");
                    assert!(
                        !msg.chars().any(|c| c.is_control() || c == '\u{fffd}'),
                        "{format:?} echoed raw bytes: {msg:?}"
                    );
                }
                other => panic!("{format:?} {bytes:?}: expected Error::Trace, got {other:?}"),
            }
        }
    }
    // A field quoted in an error escapes control characters even when the line is text
    // otherwise (tab is text, and shown escaped).
    let e = run(TraceFormat::Alibaba, "0,R\tW,0,4096,1\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("R\\tW"), "{e}");
}

#[test]
fn binary_records_errors_name_the_record() {
    let good = oracle(1, 8, 4096, None, -1);
    let cases: Vec<(TraceFormat, Vec<u8>, u64, &str)> = vec![
        (
            TraceFormat::OracleGeneral,
            [good.clone(), vec![1, 2, 3, 4, 5]].concat(),
            2,
            "ends 5 bytes into a 24-byte oracleGeneral record",
        ),
        (
            TraceFormat::OracleGeneral,
            [good.clone(), oracle(2, 8, 0, None, -1)].concat(),
            2,
            "record at byte 24: zero-length",
        ),
        (
            TraceFormat::OracleGeneralOpns,
            oracle(1, 8, 4096, Some(0), -1),
            1,
            "op 0",
        ),
        (
            TraceFormat::OracleGeneralOpns,
            oracle(1, 8, 4096, Some(255), -1),
            1,
            "op 255",
        ),
        (
            TraceFormat::OracleGeneral,
            b"0 0 0 8 0\n1 0 8 8 1\n2 0 16 8 0\n".to_vec(),
            1,
            "starts with text",
        ),
    ];
    for (format, bytes, want_line, want) in cases {
        match run_with(format.clone(), &bytes, |_| {}) {
            Err(Error::Trace { line, msg, .. }) => {
                assert_eq!(line, want_line, "{format:?}: {msg}");
                assert!(msg.contains(want), "{format:?}: {msg:?} lacks {want:?}");
            }
            other => panic!("{format:?}: expected Error::Trace, got {other:?}"),
        }
    }
}

const DISKSIM: &[u8] = b"1000 0 8 8 0\n2000 0 16 8 1\n3000 0 24 16 0\n";

fn gzip(b: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(b).unwrap();
    e.finish().unwrap()
}

fn xz(b: &[u8]) -> Vec<u8> {
    let mut e = liblzma::write::XzEncoder::new(Vec::new(), 6);
    e.write_all(b).unwrap();
    e.finish().unwrap()
}

fn bz2(b: &[u8]) -> Vec<u8> {
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    e.write_all(b).unwrap();
    e.finish().unwrap()
}

#[test]
fn compression_is_told_by_magic_bytes_not_by_name() {
    let plain = run_with(TraceFormat::Disksim, DISKSIM, |_| {}).unwrap();
    assert_eq!(plain.len(), 3);
    let (half_a, half_b) = DISKSIM.split_at(13);
    let cases: Vec<(&str, Vec<u8>, Compression)> = vec![
        ("t.trace", gzip(DISKSIM), Compression::Gzip),
        // two gzip members one after the other (as `cat a.gz b.gz` makes)
        (
            "t.trace",
            [gzip(half_a), gzip(half_b)].concat(),
            Compression::Gzip,
        ),
        (
            "t.trace.gz",
            zstd::stream::encode_all(DISKSIM, 3).unwrap(),
            Compression::Zstd,
        ),
        ("t.txt", xz(DISKSIM), Compression::Xz),
        ("t", bz2(DISKSIM), Compression::Bzip2),
        // a plain file named .gz is read as the text it is
        ("t.trace.gz", DISKSIM.to_vec(), Compression::None),
    ];
    for (name, bytes, want) in cases {
        let (_d, path) = write_tmp(name, &bytes);
        let cfg = default_trace_config(path, TraceFormat::Disksim);
        let found = scan(&cfg, GIB, 4096).unwrap();
        assert_eq!((found.compression, found.requests), (want, 3), "{name}");
        let mut s = open_stream(&cfg, GIB).unwrap();
        let mut got = Vec::new();
        while let Some(r) = s.source.next_request(SimTime::ZERO).unwrap() {
            got.push(r);
        }
        assert_eq!(got, plain, "{name} {want:?}");
        assert_eq!(s.source.progress(SimTime::ZERO), Some(1.0));
    }
    // libCacheSim ships its binary traces zstd-compressed.
    let bytes = [oracle(1, 8, 4096, None, -1), oracle(2, 16, 4096, None, -1)].concat();
    let z = zstd::stream::encode_all(bytes.as_slice(), 3).unwrap();
    let got = run_with(TraceFormat::OracleGeneral, &z, |_| {}).unwrap();
    assert_eq!(
        got,
        vec![
            req(0, Op::Read, 4096, 4096),
            req(1_000_000_000, Op::Read, 8192, 4096)
        ]
    );
    // A corrupt stream is an I/O error naming the file.
    let mut bad = gzip(DISKSIM);
    let n = bad.len();
    bad[n / 2] ^= 0xff;
    bad.truncate(n - 4);
    let e = run_with(TraceFormat::Disksim, &bad, |_| {}).unwrap_err();
    assert!(matches!(e, Error::Io { .. } | Error::Trace { .. }), "{e:?}");
    assert!(e.to_string().contains("t.trace"), "{e}");
}

#[test]
fn byte_order_mark_and_archives() {
    // A UTF-8 BOM is skipped, line numbers stay physical, and MSR's header still matches.
    let e = run(TraceFormat::Disksim, "\u{feff}0 0 0 8 0\n0 0 x 8 0\n").unwrap_err();
    assert!(e.to_string().contains("t.trace:2:"), "{e}");
    let msr = "\u{feff}Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n1,hm,0,Read,0,4096,1\n";
    assert_eq!(run(TraceFormat::Msr, msr).unwrap().len(), 1);
    // UTF-16, tar and zip get a hint, not a garbage-line error.
    let mut tar = vec![0u8; 1024];
    tar[..9].copy_from_slice(b"trace.csv");
    tar[257..263].copy_from_slice(b"ustar\0");
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"\xff\xfe0\x00 \x000\x00".to_vec(), "UTF-16"),
        (gzip(&tar), "tar archive (first member `trace.csv`)"),
        (b"PK\x03\x04\x14\x00".to_vec(), "zip archive"),
    ];
    for (bytes, want) in cases {
        let e = run_with(TraceFormat::Tencent, &bytes, |_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("t.trace:1:") && e.contains(want), "{e}");
    }
    // A "line" of 2 MiB without a break is refused, not buffered without bound.
    let e = run_with(TraceFormat::Disksim, &vec![b'7'; 2 << 20], |_| {})
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("t.trace:1:") && e.contains("no line break"),
        "{e}"
    );
}

#[test]
fn a_bad_line_late_in_the_trace_fails_before_the_run_starts() {
    let mut text = String::new();
    for i in 0..5000u64 {
        text += &format!("{} 0 {} 8 {}\n", i * 1000, (i * 8) % 20000, i % 2);
    }
    text += "5000000 0 8 eight 0\n";
    let (_d, path) = write_tmp("late.trace", text.as_bytes());
    let cfg = default_trace_config(path.clone(), TraceFormat::Disksim);
    // Opening the stream reads it all: the error is there, before any request is taken.
    match open_stream(&cfg, GIB) {
        Err(Error::Trace { line, msg, .. }) => {
            assert_eq!(line, 5001);
            assert!(msg.contains("nsectors"), "{msg}");
        }
        Err(e) => panic!("expected the line-5001 error at open, got {e}"),
        Ok(_) => panic!("a trace with a bad line opened"),
    }
    // So a simulation fails while it is being built: before the device is built and
    // preconditioned (which `Simulation::new` does after opening the workload).
    let mut sim_cfg = SimConfig::preset("tiny").unwrap();
    sim_cfg.precondition.fill_fraction = 0.9;
    sim_cfg.workload = WorkloadConfig::Trace(cfg);
    match Simulation::new(sim_cfg) {
        Err(Error::Trace { line, .. }) => assert_eq!(line, 5001),
        Err(e) => panic!("expected the trace error, got {e}"),
        Ok(_) => panic!("the simulation was built over a bad trace"),
    }
    // A filter that keeps nothing is found there too.
    let (_d, path) = write_tmp("few.trace", b"0 1 0 8 0\n1 1 8 8 0\n");
    let mut cfg = default_trace_config(path, TraceFormat::Disksim);
    cfg.device = Some(9);
    let e = open_stream(&cfg, GIB).err().unwrap();
    assert!(matches!(e, Error::Workload(_)), "{e:?}");
    let e = e.to_string();
    assert!(
        e.contains("few.trace") && e.contains("all 2 records are filtered out by device = 9"),
        "{e}"
    );
}

#[test]
fn every_sample_runs_through_the_simulator_with_every_request_completed() {
    let samples: Vec<(TraceFormat, Vec<u8>, u64)> = vec![
        (TraceFormat::Spc, SPC.as_bytes().to_vec(), 10),
        (TraceFormat::Alibaba, ALIBABA.as_bytes().to_vec(), 3),
        (TraceFormat::Tencent, TENCENT.as_bytes().to_vec(), 3),
        (
            TraceFormat::Cloudphysics,
            CLOUDPHYSICS.as_bytes().to_vec(),
            3,
        ),
        (
            TraceFormat::OracleGeneral,
            [oracle(1, 8, 4096, None, 1), oracle(1, 8, 4096, None, -1)].concat(),
            2,
        ),
        (
            TraceFormat::OracleGeneralOpns,
            [
                oracle(1, 8, 4096, Some(3), 1),
                oracle(2, 8, 4096, Some(1), -1),
            ]
            .concat(),
            2,
        ),
        (
            TraceFormat::Columns(Box::new(columns_format())),
            COLUMNS.as_bytes().to_vec(),
            3,
        ),
        // and the formats flashpress started with
        (TraceFormat::Disksim, DISKSIM.to_vec(), 3),
        (
            TraceFormat::Msr,
            b"128166372003061629,hm,1,Read,8192,4096,100\n128166372003071629,hm,1,Write,0,512,200\n".to_vec(),
            2,
        ),
        (
            TraceFormat::Blkparse,
            b"  8,0 0 1 0.000000000 697 D W 223490 + 8 [kjournald]\n  8,0 0 2 0.000010000 697 D DS 0 + 16 [fstrim]\n"
                .to_vec(),
            2,
        ),
        (
            TraceFormat::Fiu,
            b"1 1 nfsd 8 8 W 6 0 f0b48d3e3f3bfc21cb60f1bbfc2ded29\n2 1 nfsd 8 8 R 6 0 f0b48d3e3f3bfc21cb60f1bbfc2ded29\n"
                .to_vec(),
            2,
        ),
        (
            TraceFormat::Csv,
            b"time,op,offset,len,content\n0,W,0,8192,5\n10,T,0,4096,\n20,R,0,8192,\n".to_vec(),
            3,
        ),
    ];
    for (format, bytes, n) in samples {
        let (_d, path) = write_tmp(
            "s.trace",
            &zstd::stream::encode_all(bytes.as_slice(), 1).unwrap(),
        );
        let mut cfg = SimConfig::preset("tiny").unwrap();
        let mut w = default_trace_config(path, format.clone());
        w.time_unit = format.default_time_unit().unwrap_or(TimeUnit::S);
        // The samples' addresses are those of multi-GB devices: fold them into 16 MiB.
        w.address_mode = AddressMode::Wrap;
        cfg.workload = WorkloadConfig::Trace(w);
        let s = Simulation::new(cfg).unwrap().run().unwrap().summary;
        assert_eq!(
            (s.requests_issued, s.requests_completed, s.requests_failed),
            (n, n, 0),
            "{format:?}"
        );
    }
}

fn toml_workload(body: &str) -> Result<SimConfig> {
    SimConfig::from_toml_str(
        &format!("preset = \"tiny\"\n[workload]\ntype = \"trace\"\npath = \"t.trace\"\n{body}"),
        "c.toml",
    )
}

#[test]
fn a_toml_trace_gets_the_format_defaults_the_cli_gets() {
    for name in TraceFormat::NAMES {
        let cfg = toml_workload(&format!("format = \"{name}\"")).unwrap();
        let want = default_trace_config(
            PathBuf::from("t.trace"),
            TraceFormat::from_name(name).unwrap(),
        );
        assert_eq!(cfg.workload, WorkloadConfig::Trace(want), "{name}");
    }
    assert_eq!(
        default_trace_config(PathBuf::new(), TraceFormat::Alibaba).time_unit,
        TimeUnit::Us
    );
    // A key given wins over the default.
    let cfg =
        toml_workload("format = \"msr\"\ntime_unit = \"us\"\nreplay = \"afap\"\nhost = \"hm\"")
            .unwrap();
    let WorkloadConfig::Trace(t) = &cfg.workload else {
        panic!()
    };
    assert_eq!(
        (t.time_unit, t.replay, t.host.as_deref()),
        (TimeUnit::Us, Replay::Afap, Some("hm"))
    );
    // The resolved config (config.json) loads back to the same config.
    let cols = "time_unit = \"s\"\nformat = { type = \"columns\", delimiter = \"\\t\", header = true, time = 1, \
                offset = 4, size = 5, op = 3, device = 2, offset_unit = \"sectors\", size_unit = \"bytes\", \
                read = [\"Read\"], write = [\"Write\"] }\ndevice = 7";
    let cfg = toml_workload(cols).unwrap();
    let back: serde_json::Value = serde_json::from_str(&cfg.to_json()).unwrap();
    assert_eq!(back["workload"]["format"]["type"], "columns");
    assert_eq!(
        SimConfig::from_resolved_value(back, "config.json", None).unwrap(),
        cfg
    );
}

#[test]
fn trace_config_errors_name_the_key() {
    let cols = |extra: &str| {
        format!(
            "time_unit = \"s\"\nformat = {{ type = \"columns\", time = 1, offset = 2, size = 3, op = 4, \
             offset_unit = \"bytes\", size_unit = \"bytes\", read = [\"R\"], write = [\"W\"]{extra} }}"
        )
    };
    let cases: Vec<(String, &str, &str)> = vec![
        (
            "format = \"tsv\"".into(),
            "workload.format",
            "unknown trace format `tsv`, expected one of: disksim",
        ),
        (
            cols(", bogus = 1"),
            "workload.format.bogus",
            "unknown field `bogus`",
        ),
        (
            cols(", time = 0").replace("time = 1, ", ""),
            "workload.format.time",
            "numbered from 1",
        ),
        (
            cols(", device = 3"),
            "workload.format.device",
            "already the `size` column",
        ),
        (
            cols(", delimiter = \";;\""),
            "workload.format.delimiter",
            "one ASCII character",
        ),
        (
            cols(", trim = [\"W\"]"),
            "workload.format.trim",
            "already listed in `write`",
        ),
        (
            cols(", read = []").replace("read = [\"R\"], write = [\"W\"], ", ""),
            "workload.format.read",
            "give the op values",
        ),
        (
            cols("").replace("time_unit = \"s\"\n", ""),
            "workload",
            "time_unit is required with a `columns` format",
        ),
        (
            cols(", offset_unit = \"blocks\"").replace("offset_unit = \"bytes\", ", ""),
            "workload.format.offset_unit",
            "unknown variant `blocks`",
        ),
        (
            "format = \"fiu\"\ndevice = 3".into(),
            "workload.device",
            "a fiu trace has no device column",
        ),
        (
            cols("") + "\ndevice = 3",
            "workload.device",
            "no `device` column",
        ),
        (
            "format = \"disksim\"\nhost = \"hm\"".into(),
            "workload.host",
            "only MSR traces",
        ),
        (
            "format = \"msr\"\nblkparse_action = \"Q\"".into(),
            "workload.blkparse_action",
            "only blkparse",
        ),
        (
            "format = \"msr\"\nsector_size = 520".into(),
            "workload.sector_size",
            "power of two",
        ),
    ];
    for (body, key, want) in cases {
        match toml_workload(&body) {
            Err(Error::Config { key: k, msg, .. }) => {
                assert_eq!(k, key, "{body}: {msg}");
                assert!(msg.contains(want), "{body}: {msg:?} lacks {want:?}");
            }
            other => panic!("{body}: expected a config error, got {other:?}"),
        }
    }
}

/// A tab-separated table keeps its empty fields: an empty first column is a column, not a
/// blank to trim (trimming it shifted every column left and read two 4 KiB reads as two
/// one-byte writes).
#[test]
fn tab_table_with_empty_first_and_last_fields_keeps_its_columns() {
    use Op::Read as R;
    let fmt = TraceFormat::Columns(Box::new(ColumnsFormat {
        skip_lines: 0,
        header: false,
        time: 2,
        device: None,
        op: 3,
        offset: 4,
        size: 5,
        ..columns_format()
    }));
    let text = "\t0.5\tRead\t100\t4096\t\n\t0.75\tRead\t200\t4096\t\r\n";
    let got = run_with(fmt.clone(), text.as_bytes(), |c| c.time_unit = TimeUnit::S).unwrap();
    assert_eq!(
        got,
        vec![req(0, R, 51200, 4096), req(250_000_000, R, 102400, 4096)]
    );
    // An empty column the mapping reads is an error naming it, not a shifted value.
    let text = "0.5\tRead\t\t100\t4096\n";
    match run_with(fmt, text.as_bytes(), |c| c.time_unit = TimeUnit::S) {
        Err(Error::Trace { line: 1, msg, .. }) => {
            assert!(msg.contains("column 2 (time)"), "{msg}")
        }
        other => panic!("expected a trace error on line 1, got {other:?}"),
    }
}

/// blkparse `D` events whose RWBS field holds letters blkparse never writes are errors naming
/// the line, not silently skipped events.
#[test]
fn blkparse_junk_rwbs_is_an_error() {
    for rwbs in ["123", "XYZ", "T", "W1", "r"] {
        let text = format!(
            "  8,0    3        1     0.000000000   697  D   WS 100 + 8 [x]\n  8,0    3        2     0.000001000   697  D   {rwbs} 223490 + 8 [x]\n"
        );
        match run(TraceFormat::Blkparse, &text) {
            Err(Error::Trace { line: 2, msg, .. }) => {
                assert!(msg.contains("RWBS") && msg.contains(rwbs), "{msg}")
            }
            other => panic!("{rwbs}: expected a trace error on line 2, got {other:?}"),
        }
    }
    // Every letter blkparse writes is still accepted.
    for rwbs in [
        "R", "RA", "RM", "WS", "WFS", "FWS", "D", "DE", "N", "F", "FN", "WBS",
    ] {
        let text = format!(
            "  8,0    3        1     0.000000000   697  D   WS 100 + 8 [x]\n  8,0    3        2     0.000001000   697  D   {rwbs} 200 + 8 [x]\n"
        );
        let got = run(TraceFormat::Blkparse, &text);
        assert!(got.is_ok(), "{rwbs}: {got:?}");
    }
}

/// A byte that is not UTF-8, or a control character, in a column no mapping reads is still an
/// error (the trace reader's rule: such a line is binary data, not a trace line).
#[test]
fn not_text_in_an_ignored_column_is_an_error() {
    let good = b"128166372003061629,hm,0,Read,0,4096,100\n".to_vec();
    assert_eq!(run_with(TraceFormat::Msr, &good, |_| {}).unwrap().len(), 1);
    for (bad, want) in [
        (&b"hm\xff"[..], "not UTF-8"),
        (&b"h\x01m"[..], "control character (U+0001"),
        (&b"h\x7fm"[..], "control character (U+007F"),
        ("h\u{85}m".as_bytes(), "control character (U+0085"),
    ] {
        let mut text = good.clone();
        text.extend_from_slice(b"128166372003061630,");
        text.extend_from_slice(bad);
        text.extend_from_slice(b",0,Read,0,4096,100\n");
        match run_with(TraceFormat::Msr, &text, |_| {}) {
            Err(Error::Trace { line: 2, msg, .. }) => assert!(msg.contains(want), "{msg}"),
            other => panic!("{bad:?}: expected a trace error on line 2, got {other:?}"),
        }
    }
    // Non-ASCII UTF-8 text (a host name in Latin-1 letters) is text.
    let mut text = b"128166372003061629,h\xc3\xa9,0,Read,0,4096,100\n".to_vec();
    text.extend_from_slice(&good);
    assert_eq!(run_with(TraceFormat::Msr, &text, |_| {}).unwrap().len(), 2);
}
