use super::*;
use crate::config::TimeUnit;
use std::fs::File;
use std::io::Write;

const GIB: u64 = 1 << 30;

fn write_tmp(name: &str, text: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

fn write_gz(name: &str, text: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    let f = File::create(&path).unwrap();
    let mut enc = flate2::write::GzEncoder::new(f, flate2::Compression::default());
    enc.write_all(text).unwrap();
    enc.finish().unwrap();
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

fn run(format: TraceFormat, text: &str) -> Result<Vec<Request>> {
    let (_d, path) = write_tmp("t.trace", text.as_bytes());
    collect(&default_trace_config(path, format), 16 * GIB)
}

fn req(time: u64, op: Op, offset: u64, len: u64, content: u64) -> Request {
    Request {
        time: SimTime(time),
        op,
        offset,
        len,
        content,
        file: crate::workload::NO_FILE,
        attrs: Default::default(),
        placement: None,
    }
}

#[test]
fn disksim_basic() {
    let text = "# comment\n\n1000 0 8 8 0\n2500.5 1 16 16 1\r\n  3000 2 0 1 1  \n";
    let got = run(TraceFormat::Disksim, text).unwrap();
    assert_eq!(
        got,
        vec![
            req(0, Op::Write, 4096, 4096, 0),
            req(1501, Op::Read, 8192, 8192, 0), // 1500.5 rounds to 1501
            req(2000, Op::Read, 0, 512, 0),
        ]
    );
}

#[test]
fn disksim_units_scale_and_afap() {
    let (_d, path) = write_tmp("x.trace", b"10 0 0 8 0\n12 0 8 8 1\n");
    let mut cfg = default_trace_config(path, TraceFormat::Disksim);
    cfg.time_unit = TimeUnit::Us;
    cfg.time_scale = 0.5;
    cfg.replay = Replay::Afap;
    cfg.queue_depth = 7;
    let s = open_stream(&cfg, GIB).unwrap();
    assert_eq!(s.drive, Drive::Closed { depth: 7 });
    assert_eq!(s.name, "x.trace");
    assert_eq!(s.group, 0);
    let got = collect(&cfg, GIB).unwrap();
    assert_eq!(got[1].time, SimTime(1000));
}

#[test]
fn timed_replay_refuses_times_past_the_clock() {
    // a timestamp in the wrong unit, and a wrong time scale: errors naming the line, not a
    // clock overflow (or a run of centuries) later on
    let cases = [
        (
            "0 0 0 8 0\n18446744073709551615 0 8 8 1\n",
            TimeUnit::Ns,
            1.0,
        ),
        ("0 0 0 8 0\n1000 0 8 8 1\n", TimeUnit::Ms, 1e12),
        // an integer past u64: the clock's limit refuses it, not the syntax
        (
            "0 0 0 8 0\n99999999999999999999 0 8 8 1\n",
            TimeUnit::Ns,
            1.0,
        ),
    ];
    for (text, unit, scale) in cases {
        let (_d, path) = write_tmp("w.trace", text.as_bytes());
        let mut cfg = default_trace_config(path, TraceFormat::Disksim);
        cfg.time_unit = unit;
        cfg.time_scale = scale;
        match collect(&cfg, GIB) {
            Err(Error::Trace { line, msg, .. }) => {
                assert_eq!(line, 2, "{msg}");
                assert!(
                    msg.contains("time_unit") && msg.contains("time_scale"),
                    "{msg}"
                );
            }
            other => panic!("{text:?} x {scale}: expected Error::Trace, got {other:?}"),
        }
        // as fast as possible, the times do not matter
        cfg.replay = Replay::Afap;
        assert_eq!(collect(&cfg, GIB).unwrap().len(), 2);
    }
    // the limit itself is accepted
    let text = format!("0 0 0 8 0\n{MAX_TIMED_NS} 0 8 8 1\n");
    assert_eq!(
        run(TraceFormat::Disksim, &text).unwrap()[1].time,
        SimTime(MAX_TIMED_NS)
    );
}

#[test]
fn times_never_go_backwards() {
    let got = run(
        TraceFormat::Disksim,
        "100 0 0 8 0\n50 0 0 8 0\n200 0 0 8 0\n",
    )
    .unwrap();
    let t: Vec<u64> = got.iter().map(|r| r.time.0).collect();
    assert_eq!(t, vec![0, 0, 100]);
}

#[test]
fn disksim_device_filter() {
    let (_d, path) = write_tmp("t", b"1 3 0 8 0\n2 4 8 8 0\n3 3 16 8 1\n");
    let mut cfg = default_trace_config(path, TraceFormat::Disksim);
    cfg.device = Some(3);
    let got = collect(&cfg, GIB).unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].offset, 0);
    assert_eq!(got[1].offset, 16 * 512);
    assert_eq!(got[1].time, SimTime(2));
}

#[test]
fn wrap_vs_strict() {
    let cap = 1 << 20; // 1 MiB
                       // 2 MiB + 4608: folds to 4608 -> rounded down to 4096.
    let text = format!(
        "0 0 {} 8 0\n1 0 {} 16 0\n2 0 0 4096 0\n",
        (2 * cap + 4608) / 512,
        (cap - 4096) / 512
    );
    let (_d, path) = write_tmp("t", text.as_bytes());
    let mut cfg = default_trace_config(path, TraceFormat::Disksim);
    match collect(&cfg, cap) {
        Err(Error::Trace { line, msg, .. }) => {
            assert_eq!(line, 1);
            assert!(msg.contains("capacity"), "{msg}");
        }
        other => panic!("expected a trace error, got {other:?}"),
    }
    cfg.address_mode = AddressMode::Wrap;
    let got = collect(&cfg, cap).unwrap();
    assert_eq!((got[0].offset, got[0].len), (4096, 4096));
    // cap-4096 + 8 KiB: folds to cap-4096 which still does not fit -> cap-8192.
    assert_eq!((got[1].offset, got[1].len), (cap - 8192, 8192));
    // 2 MiB long request: capped to the capacity at offset 0.
    assert_eq!((got[2].offset, got[2].len), (0, cap));
}

#[test]
fn gzip_trace() {
    let text = b"1000 0 8 8 0\n2000 0 16 8 1\n";
    let (_d, path) = write_gz("t.trace.gz", text);
    let cfg = default_trace_config(path, TraceFormat::Disksim);
    let mut s = open_stream(&cfg, GIB).unwrap();
    assert_eq!(s.name, "t.trace.gz");
    let mut n = 0;
    while s.source.next_request(SimTime::ZERO).unwrap().is_some() {
        n += 1;
    }
    assert_eq!(n, 2);
    assert_eq!(s.source.progress(SimTime::ZERO), Some(1.0));
}

#[test]
fn progress_counts_bytes() {
    let (_d, path) = write_tmp("t", b"0 0 0 8 0\n1 0 0 8 0\n");
    let cfg = default_trace_config(path, TraceFormat::Disksim);
    let mut s = open_stream(&cfg, GIB).unwrap();
    assert_eq!(s.source.progress(SimTime::ZERO), Some(0.0));
    s.source.next_request(SimTime::ZERO).unwrap();
    assert_eq!(s.source.progress(SimTime::ZERO), Some(0.5));
}

#[test]
fn msr_basic() {
    let text = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n\
                128166372003061629,hm,1,Read,8192,4096,100\n\
                128166372003071629,hm,0,write,0,512,200\n\
                128166372003081629,hm,1,WRITE,4096,8192,300\n";
    let got = run(TraceFormat::Msr, text).unwrap();
    assert_eq!(
        got,
        vec![
            req(0, Op::Read, 8192, 4096, 0),
            req(1_000_000, Op::Write, 0, 512, 0),
            req(2_000_000, Op::Write, 4096, 8192, 0),
        ]
    );
    let (_d, path) = write_tmp("t.csv", text.as_bytes());
    let mut cfg = default_trace_config(path, TraceFormat::Msr);
    cfg.device = Some(1);
    let got = collect(&cfg, GIB).unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!(got[1].time, SimTime(2_000_000));
}

const BLKPARSE: &str = "  8,0    3        1     0.000000000   697  Q   W 223490 + 8 [kjournald]
  8,0    3        2     0.000001000   697  G   W 223490 + 8 [kjournald]
  8,0    3        3     0.000002583   697  P   N [kjournald]
  8,0    3        4     0.000003000   697  I   W 223490 + 8 [kjournald]
  8,0    3        0     0.000004000     0  m   N cfq697 insert_request
  8,0    3        5     0.000010000   697  D   W 223490 + 8 [kjournald]
  8,0    3        6     0.000020000   697  D   R 100 + 16 [bash]
  8,0    3        7     0.000030000   697  D  DS 0 + 2048 [fstrim]
  8,0    3        8     0.000040000   697  D  FN [jbd2]
  8,0    3        9     0.000050000   697  D  RA 300 + 8 [cat]
  8,0    3       10     0.000060000   697  C   W 223490 + 8 [0]
  8,0    3       11     0.000070000   697  U   N [kjournald] 1
  8,0    3       12     0.000080000   697  D FWS 0 + 0 [jbd2]
CPU3 (8,0):
 Reads Queued:           0,        0KiB\t Writes Queued:           1,        4KiB
 Read Dispatches:        2,       12KiB\t Write Dispatches:        1,        4KiB
Total (8,0):
 Reads Queued:           0,        0KiB\t Writes Queued:           1,        4KiB
Throughput (R/W): 0KiB/s / 0KiB/s
Events (8,0): 13 entries
Skips: 0 forward (0 -   0.0%)
";

#[test]
fn blkparse_d_and_q() {
    let got = run(TraceFormat::Blkparse, BLKPARSE).unwrap();
    assert_eq!(
        got,
        vec![
            req(0, Op::Write, 223490 * 512, 4096, 0),
            req(10_000, Op::Read, 100 * 512, 8192, 0),
            req(20_000, Op::Trim, 0, 2048 * 512, 0),
            req(40_000, Op::Read, 300 * 512, 4096, 0),
        ]
    );
    let (_d, path) = write_tmp("t.blk", BLKPARSE.as_bytes());
    let mut cfg = default_trace_config(path, TraceFormat::Blkparse);
    cfg.blkparse_action = BlkAction::Q;
    let got = collect(&cfg, GIB).unwrap();
    assert_eq!(got, vec![req(0, Op::Write, 223490 * 512, 4096, 0)]);
}

#[test]
fn fiu_basic() {
    let text = "89966527868360 4253 nfsd 30952008 8 W 6 0 f0b48d3e3f3bfc21cb60f1bbfc2ded29\n\
                89966527869360 4253 nfsd 30952016 8 R 6 0 f0b48d3e3f3bfc21cb60f1bbfc2ded29\n\
                89966527870360 11 my proc 8 8 W 6 0 00000000000000000000000000000000\n";
    let got = run(TraceFormat::Fiu, text).unwrap();
    assert_eq!(
        got,
        vec![
            req(0, Op::Write, 30952008 * 512, 4096, 0xf0b48d3e3f3bfc21),
            req(1000, Op::Read, 30952016 * 512, 4096, 0),
            req(2000, Op::Write, 4096, 4096, 1),
        ]
    );
}

#[test]
fn csv_basic() {
    let text = "# a comment before the header\n\
                time,op,offset,len,content\n\
                100,W,8192,16384,77\n\
                150,R,8192,4096,\n\
                170,T,0,65536,\n\
                200,W,0,4096,0\n\
                200,W,4096,4096,\n";
    let got = run(TraceFormat::Csv, text).unwrap();
    assert_eq!(
        got,
        vec![
            req(0, Op::Write, 8192, 16384, 77),
            req(50, Op::Read, 8192, 4096, 0),
            req(70, Op::Trim, 0, 65536, 0),
            req(100, Op::Write, 0, 4096, 0),
            req(100, Op::Write, 4096, 4096, 0),
        ]
    );
}

#[test]
fn csv_errors_name_the_line_and_field() {
    let h = "time,op,offset,len,content\n";
    let cases = [
        ("0,W,0,4096,1\n".to_string(), 1, "header"),
        (format!("{h}0,X,0,4096,\n"), 2, "op"),
        (format!("{h}0,W,0,4096,1,9\n"), 2, "5 comma-separated"),
        (format!("{h}0,W,0,4096,abc\n"), 2, "content"),
        (format!("{h}0,R,0,4096,5\n"), 2, "only a write"),
        (format!("{h}0,T,0,4096,5\n"), 2, "trim"),
        (format!("{h}0,W,x,4096,\n"), 2, "offset"),
        (format!("{h}0,W,0,-1,\n"), 2, "len"),
        (format!("{h}1,W,0,4096,\nt,W,0,4096,\n"), 3, "time"),
        // A written pattern's id (0xFA77 in the top 16 bits, period 1, phase 0).
        (
            format!("{h}0,W,0,4096,{}\n", 0xFA77_0040_0000_0001u64),
            2,
            "reserved for written data patterns",
        ),
    ];
    for (text, want_line, want) in cases {
        match run(TraceFormat::Csv, &text) {
            Err(Error::Trace { line, msg, .. }) => {
                assert_eq!(line, want_line, "{text:?}: {msg}");
                assert!(msg.contains(want), "{text:?}: {msg}");
            }
            other => panic!("{text:?}: expected a trace error, got {other:?}"),
        }
    }
}

#[test]
fn default_units() {
    let p = PathBuf::from("x");
    assert_eq!(
        default_trace_config(p.clone(), TraceFormat::Disksim).time_unit,
        TimeUnit::Ns
    );
    assert_eq!(
        default_trace_config(p.clone(), TraceFormat::Msr).time_unit,
        TimeUnit::Filetime
    );
    assert_eq!(
        default_trace_config(p.clone(), TraceFormat::Blkparse).time_unit,
        TimeUnit::S
    );
    let c = default_trace_config(p, TraceFormat::Fiu);
    assert_eq!(c.time_unit, TimeUnit::Ns);
    assert_eq!((c.sector_size, c.queue_depth, c.time_scale), (512, 32, 1.0));
    assert_eq!(
        (c.replay, c.address_mode, c.device, c.blkparse_action),
        (Replay::Timed, AddressMode::Strict, None, BlkAction::D)
    );
}

#[test]
fn missing_file_is_io_error() {
    let cfg = default_trace_config(
        PathBuf::from("/nonexistent/nope.trace"),
        TraceFormat::Disksim,
    );
    assert!(matches!(open_stream(&cfg, GIB), Err(Error::Io { .. })));
}

#[test]
fn bad_lines_name_their_line() {
    let good_d = "0 0 0 8 0\n";
    let good_m = "1,h,0,Read,0,4096,1\n";
    let good_b = "  8,0 0 1 0.0 1 D W 0 + 8 [p]\n";
    let good_f = "1 1 p 0 8 W 6 0 f0b48d3e3f3bfc21cb60f1bbfc2ded29\n";
    let cases: Vec<(TraceFormat, String, u64)> = vec![
        (TraceFormat::Disksim, format!("{good_d}0 0 0 8\n"), 2),
        (
            TraceFormat::Disksim,
            format!("{good_d}{good_d}0 0 0 8 0 9\n"),
            3,
        ),
        (
            TraceFormat::Disksim,
            format!("#c\n\n{good_d}x 0 0 8 0\n"),
            4,
        ),
        (TraceFormat::Disksim, "0 -1 0 8 0\n".into(), 1),
        (TraceFormat::Disksim, "0 0 0 8 2\n".into(), 1),
        (TraceFormat::Disksim, "0 0 0 0 1\n".into(), 1),
        (
            TraceFormat::Disksim,
            "0 0 99999999999999999999 8 1\n".into(),
            1,
        ),
        (
            TraceFormat::Disksim,
            "0 0 36028797018963968 8 1\n".into(),
            1,
        ), // * 512 overflows
        (TraceFormat::Disksim, "nan 0 0 8 1\n".into(), 1),
        (
            TraceFormat::Disksim,
            format!("{good_d}0 0 {} 8 1\n", 64 * GIB / 512),
            2,
        ), // past capacity
        (TraceFormat::Msr, format!("{good_m}1,h,0,Read,0,4096\n"), 2),
        (TraceFormat::Msr, "1,h,0,Trim,0,4096,1\n".into(), 1),
        (TraceFormat::Msr, "1,h,0,Read,-5,4096,1\n".into(), 1),
        (TraceFormat::Msr, "1,h,0,Read,0,0,1\n".into(), 1),
        (
            TraceFormat::Msr,
            "timestamp,hostname,disknumber,type,offset,size,responsetime\n".into(),
            1,
        ),
        (
            TraceFormat::Msr,
            format!(
                "{good_m}{MSR_H}\n",
                MSR_H = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"
            ),
            2,
        ),
        (
            TraceFormat::Blkparse,
            format!("{good_b}garbage line here\n"),
            2,
        ),
        (
            TraceFormat::Blkparse,
            "  8,0 0 1 0.0 1 D W 0 + x [p]\n".into(),
            1,
        ),
        (
            TraceFormat::Blkparse,
            "  8,0 0 1 0.0 1 D W 0 - 8 [p]\n".into(),
            1,
        ),
        (
            TraceFormat::Blkparse,
            "  8,0 0 1 abc 1 D W 0 + 8 [p]\n".into(),
            1,
        ),
        (
            TraceFormat::Blkparse,
            "  8 0 1 0.0 1 D W 0 + 8 [p]\n".into(),
            1,
        ),
        (TraceFormat::Blkparse, "  8,0 0 1 0.0\n".into(), 1),
        (
            TraceFormat::Fiu,
            format!("{good_f}1 1 p 0 8 W 6 0 f0b4\n"),
            2,
        ),
        (
            TraceFormat::Fiu,
            "1 1 p 0 8 X 6 0 f0b48d3e3f3bfc21cb60f1bbfc2ded29\n".into(),
            1,
        ),
        (
            TraceFormat::Fiu,
            "1 1 p 0 8 W 6 0 g0b48d3e3f3bfc21cb60f1bbfc2ded29\n".into(),
            1,
        ),
        (
            TraceFormat::Fiu,
            "1 1 p 0 0 W 6 0 f0b48d3e3f3bfc21cb60f1bbfc2ded29\n".into(),
            1,
        ),
        (TraceFormat::Fiu, "1 1 p 0 8 W 6\n".into(), 1),
        (
            TraceFormat::Fiu,
            "1 x p 0 8 W 6 0 f0b48d3e3f3bfc21cb60f1bbfc2ded29\n".into(),
            1,
        ),
    ];
    assert!(cases.len() >= 12);
    for (format, text, want_line) in cases {
        match run(format.clone(), &text) {
            Err(Error::Trace { line, msg, .. }) => {
                assert_eq!(line, want_line, "{format:?} {text:?}: {msg}");
                assert!(!msg.is_empty());
            }
            other => panic!("{format:?} {text:?}: expected Error::Trace, got {other:?}"),
        }
    }
}

/// MQSim's TPC-C trace, vendored in `testdata/traces` with its licence.
fn tpcc_trace() -> PathBuf {
    crate::testdata::repo("testdata/traces/tpcc-small.trace")
}

#[test]
fn tpcc_small_parses_fully() {
    let mut cfg = default_trace_config(tpcc_trace(), TraceFormat::Disksim);
    cfg.address_mode = AddressMode::Wrap;
    let got = collect(&cfg, 16 * GIB).unwrap();
    assert_eq!(got.len(), 6999);
    assert_eq!(got[0].time, SimTime(0));
    assert!(got.windows(2).all(|w| w[0].time <= w[1].time));
    assert!(got
        .iter()
        .all(|r| r.len > 0 && r.offset + r.len <= 16 * GIB));
    assert!(got.iter().any(|r| r.op == Op::Read) && got.iter().any(|r| r.op == Op::Write));
}

/// Parse speed on a generated 1M-line DiskSim trace. Run with
/// `cargo test --release -p flashpress-core --lib trace::tests::speed -- --ignored --nocapture`.
#[test]
#[ignore]
fn speed_disksim_1m_lines() {
    let mut text = Vec::with_capacity(40_000_000);
    let mut x: u64 = 12345;
    for i in 0..1_000_000u64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        writeln!(
            text,
            "{} {} {} {} {}",
            938513000 + i * 1000,
            (x >> 60) & 15,
            (x >> 20) % 30_000_000,
            8 << ((x >> 8) & 3),
            (x >> 4) & 1
        )
        .unwrap();
    }
    let (_d, path) = write_tmp("big.trace", &text);
    let cfg = default_trace_config(path, TraceFormat::Disksim);
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t0 = std::time::Instant::now();
        let mut s = open_stream(&cfg, 16 * GIB).unwrap();
        let (mut n, mut sum) = (0u64, 0u64);
        while let Some(r) = s.source.next_request(SimTime::ZERO).unwrap() {
            n += 1;
            sum = sum.wrapping_add(r.offset ^ r.time.0);
        }
        let dt = t0.elapsed().as_secs_f64();
        assert_eq!(n, 1_000_000);
        assert_ne!(sum, 0);
        best = best.min(dt);
    }
    // Includes opening the file and reading it from the page cache, and the scan.
    println!(
        "disksim open (scan) + parse: {:.1} ns/line",
        best * 1e9 / 1e6
    );
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t0 = std::time::Instant::now();
        assert_eq!(scan(&cfg, 16 * GIB, 4096).unwrap().requests, 1_000_000);
        best = best.min(t0.elapsed().as_secs_f64());
    }
    println!("disksim scan alone: {:.1} ms for 1M lines", best * 1e3);
    // The same requests as an Alibaba table, plain and gzip-compressed.
    let mut table = Vec::with_capacity(50_000_000);
    let mut msr = Vec::with_capacity(60_000_000);
    for line in text.split(|&c| c == b'\n').filter(|l| !l.is_empty()) {
        let f: Vec<&str> = std::str::from_utf8(line).unwrap().split(' ').collect();
        let op = if f[4] == "1" { "R" } else { "W" };
        let off: u64 = f[2].parse::<u64>().unwrap() * 512;
        let len: u64 = f[3].parse::<u64>().unwrap() * 512;
        writeln!(table, "{},{op},{off},{len},{}", f[1], f[0]).unwrap();
        let ty = if op == "R" { "Read" } else { "Write" };
        writeln!(msr, "{},hm,{},{ty},{off},{len},100", f[0], f[1]).unwrap();
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&table).unwrap();
    let gz = gz.finish().unwrap();
    for (name, bytes, format) in [
        ("msr", &msr, TraceFormat::Msr),
        ("alibaba", &table, TraceFormat::Alibaba),
        ("alibaba.gz", &gz, TraceFormat::Alibaba),
    ] {
        let (_d, path) = write_tmp(name, bytes);
        let cfg = default_trace_config(path, format);
        let mut best = f64::MAX;
        for _ in 0..3 {
            let t0 = std::time::Instant::now();
            assert_eq!(scan(&cfg, 16 * GIB, 4096).unwrap().requests, 1_000_000);
            best = best.min(t0.elapsed().as_secs_f64());
        }
        println!("{name} scan: {:.1} ms for 1M lines", best * 1e3);
    }
}

mod props {
    use super::*;
    use proptest::prelude::*;

    fn feed(format: TraceFormat, bytes: &[u8], wrap: bool) {
        let (_d, path) = write_tmp("p.trace", bytes);
        let mut cfg = default_trace_config(path, format);
        if wrap {
            cfg.address_mode = AddressMode::Wrap;
        }
        // Ok or Err, never a panic.
        let _ = collect(&cfg, 1 << 20);
    }

    fn formats() -> impl Strategy<Value = TraceFormat> {
        prop_oneof![
            Just(TraceFormat::Disksim),
            Just(TraceFormat::Msr),
            Just(TraceFormat::Blkparse),
            Just(TraceFormat::Fiu),
            Just(TraceFormat::Csv),
            Just(TraceFormat::Spc),
            Just(TraceFormat::Alibaba),
            Just(TraceFormat::Tencent),
            Just(TraceFormat::Cloudphysics),
            Just(TraceFormat::OracleGeneral),
            Just(TraceFormat::OracleGeneralOpns),
            Just(TraceFormat::Columns(Box::new(
                crate::config::ColumnsFormat {
                    delimiter: " ".into(),
                    skip_lines: 1,
                    header: true,
                    time: 1,
                    offset: 3,
                    size: 4,
                    op: 2,
                    device: Some(5),
                    offset_unit: crate::config::AddrUnit::Sectors,
                    size_unit: crate::config::AddrUnit::Bytes,
                    read: vec!["R".into()],
                    write: vec!["W".into()],
                    trim: vec!["D".into()],
                    ignore: vec!["Q".into()],
                }
            )))
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn arbitrary_bytes_never_panic(format in formats(), bytes in proptest::collection::vec(any::<u8>(), 0..400), wrap in any::<bool>()) {
            feed(format, &bytes, wrap);
        }

        #[test]
        fn arbitrary_strings_never_panic(format in formats(), s in "[0-9a-fA-FRWDQ ,.+\\[\\]eE#\n-]{0,300}", wrap in any::<bool>()) {
            feed(format, s.as_bytes(), wrap);
        }

        #[test]
        fn plausible_lines_never_panic(
            t in "[0-9]{1,22}(\\.[0-9]{0,12})?",
            a in "[0-9]{1,21}", b in "[0-9]{1,21}", rw in "[0-2RW]",
            wrap in any::<bool>(),
        ) {
            feed(TraceFormat::Disksim, format!("{t} 0 {a} {b} {rw}\n").as_bytes(), wrap);
            feed(TraceFormat::Msr, format!("{t},h,0,{rw},{a},{b},0\n").as_bytes(), wrap);
            feed(TraceFormat::Blkparse, format!("8,0 0 1 {t} 1 D {rw} {a} + {b} [p]\n").as_bytes(), wrap);
            feed(TraceFormat::Fiu, format!("{t} 1 p {a} {b} {rw} 6 0 f0b48d3e3f3bfc21cb60f1bbfc2ded29\n").as_bytes(), wrap);
            feed(TraceFormat::Csv, format!("time,op,offset,len,content\n{t},{rw},{a},{b},{a}\n").as_bytes(), wrap);
            feed(TraceFormat::Spc, format!("0,{a},{b},{rw},{t},x\n").as_bytes(), wrap);
            feed(TraceFormat::Alibaba, format!("0,{rw},{a},{b},{t}\n").as_bytes(), wrap);
            feed(TraceFormat::Tencent, format!("{t},{a},{b},{rw},1\n").as_bytes(), wrap);
            feed(TraceFormat::Cloudphysics, format!("{t},{a},{rw},{b}\n").as_bytes(), wrap);
        }
    }
}

/// An FIU record line (homes style: one 512-byte sector).
fn fiu_line(t: u64, sector: u64, n: u64, md5: &str) -> String {
    format!("{t} 1 nfsd {sector} {n} W 6 0 {md5}\n")
}

fn fiu_paged(text: &str, hash_bytes: u32) -> Result<Vec<Request>> {
    let (_d, path) = write_tmp("h.trace", text.as_bytes());
    let mut cfg = default_trace_config(path, TraceFormat::Fiu);
    cfg.hash_bytes = Some(hash_bytes);
    let mut s = open_stream_paged(&cfg, 16 * GIB, 4096, 0)?;
    let mut out = Vec::new();
    while let Some(r) = s.source.next_request(SimTime::ZERO)? {
        out.push(r);
    }
    Ok(out)
}

#[test]
fn fiu_sector_hashes_make_a_page_fingerprint() {
    // Page 0 and page 1 get the same eight sector hashes in different orders of writing;
    // page 2 only seven of them. The last write of each full page carries the page's id.
    let h = |i: u64| format!("{:016x}{:016x}", 0x1000 + i, 7);
    let mut text = String::new();
    for i in 0..8 {
        text += &fiu_line(i, i, 1, &h(i));
    }
    for i in (0..8).rev() {
        text += &fiu_line(100 + i, 8 + i, 1, &h(i));
    }
    for i in 0..7 {
        text += &fiu_line(200 + i, 16 + i, 1, &h(i));
    }
    let got = fiu_paged(&text, 512).unwrap();
    assert_eq!(got.len(), 23);
    assert!(got.iter().all(|r| r.len == 512));
    let page0 = got[7].content;
    let page1 = got[15].content;
    let page2 = got[22].content;
    assert_eq!(
        page0, page1,
        "equal sector hashes in the same places: one page content"
    );
    assert_ne!(page0, page2, "a sector never written counts as zeros");
    // Before its last sector a page differs from the full one.
    assert_ne!(got[6].content, page0);
    // Per-page ids do not depend on the page's place: page 1's prefix is not page 0's.
    assert_ne!(got[8].content, got[0].content);
    // Rewriting sector 0 with another hash changes page 0's id, and back again restores it.
    let more = format!(
        "{text}{}{}",
        fiu_line(300, 0, 1, &h(99)),
        fiu_line(301, 0, 1, &h(0))
    );
    let got = fiu_paged(&more, 512).unwrap();
    assert_ne!(got[23].content, page0);
    assert_eq!(got[24].content, page0);
}

#[test]
fn fiu_hash_granularity_errors_name_the_line() {
    // A write of two sectors carries one MD5, but hash_bytes = 512 gives one per sector.
    let text = fiu_line(0, 0, 1, &"a".repeat(32)) + &fiu_line(1, 8, 2, &"b".repeat(32));
    let e = fiu_paged(&text, 512).unwrap_err().to_string();
    assert!(
        e.contains("h.trace:2:") && e.contains("hash_bytes = 512"),
        "{e}"
    );
    // A malformed hash is still a line error.
    let text = fiu_line(0, 0, 1, "xyz");
    let e = fiu_paged(&text, 512).unwrap_err().to_string();
    assert!(e.contains("h.trace:1:") && e.contains("md5"), "{e}");
    // With hash_bytes equal to the page, records map as before.
    let text = fiu_line(0, 0, 8, &"c".repeat(32));
    assert_eq!(
        fiu_paged(&text, 4096).unwrap()[0].content,
        0xcccc_cccc_cccc_cccc
    );
}

#[test]
fn sector_size_must_be_a_power_of_two() {
    let (_d, path) = write_tmp("x.trace", b"10 0 0 8 0\n");
    for (size, ok) in [
        (512, true),
        (4096, true),
        (1, true),
        (0, false),
        (520, false),
        (3000, false),
    ] {
        let mut cfg = default_trace_config(path.clone(), TraceFormat::Disksim);
        cfg.sector_size = size;
        match open_stream(&cfg, GIB) {
            Ok(_) => assert!(ok, "sector_size {size} was accepted"),
            Err(e) => {
                assert!(!ok, "sector_size {size} was refused: {e}");
                let msg = e.to_string();
                assert!(
                    msg.contains("workload.sector_size") && msg.contains("power of two"),
                    "{msg}"
                );
            }
        }
    }
}

/// A run replays the spool the scan wrote: it must give exactly the requests the text
/// parser yields, in order, across the spool's buffer refills (random DiskSim and FIU traces
/// of 20,000 lines: reads and writes, equal and far-apart times, offsets anywhere in 8 GiB,
/// FIU's content ids).
#[test]
fn spooled_requests_equal_the_text_parsers() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(33);
    let (mut disksim, mut fiu) = (String::new(), String::new());
    let mut t = 0u64;
    for _ in 0..20_000 {
        t += match rng.random_range(0..3) {
            0 => 0,
            1 => rng.random_range(1..1000),
            _ => rng.random_range(0..1 << 20),
        };
        let sector = rng.random_range(0..(8 * GIB / 512 - 256));
        let n = rng.random_range(1..=256);
        let rw = rng.random_range(0..2);
        disksim.push_str(&format!("{t} 0 {sector} {n} {rw}\n"));
        let md5: u128 = rng.random();
        fiu.push_str(&fiu_line(t, sector / 8 * 8, 8, &format!("{md5:032x}")));
    }
    for (format, text) in [(TraceFormat::Disksim, disksim), (TraceFormat::Fiu, fiu)] {
        let (_d, path) = write_tmp("r.trace", text.as_bytes());
        let cfg = default_trace_config(path, format.clone());
        let spooled = collect(&cfg, 16 * GIB).unwrap();
        let mut text = TraceSource::open(&cfg, 16 * GIB).unwrap();
        let mut parsed = Vec::new();
        while let Some(r) = text.next_request(SimTime::ZERO).unwrap() {
            parsed.push(r);
        }
        assert_eq!(parsed.len(), 20_000, "{format:?}");
        assert_eq!(
            parsed.iter().any(|r| r.content != 0),
            matches!(format, TraceFormat::Fiu)
        );
        assert_eq!(spooled, parsed, "{format:?}");
    }
}
