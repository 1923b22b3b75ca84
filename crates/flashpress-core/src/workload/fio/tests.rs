use super::*;
use crate::config::OptionValue;
use crate::units::SimTime;
use crate::workload::{Next, Op, Request};
use std::collections::BTreeSet;
use std::path::PathBuf;

const GIB: u64 = 1 << 30;

/// A job file of fio's own examples folder (Debian's fio-examples, fetched by `make testdata`).
fn example(name: &str) -> PathBuf {
    crate::testdata::fio_example(name)
}

/// A fio workload reading the job file at `path` (shared by the fio test modules).
pub(super) fn file_cfg(path: PathBuf) -> FioWorkload {
    FioWorkload {
        path: Some(path),
        global: BTreeMap::new(),
        jobs: Vec::new(),
        args: Vec::new(),
        vars: BTreeMap::new(),
    }
}

fn load_text(text: &str, cap: u64, seed: u64) -> Result<Vec<Stream>> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("job.fio");
    std::fs::write(&path, text).unwrap();
    load_streams(&file_cfg(path), cap, seed)
}

fn take(s: &mut Stream, n: usize) -> Vec<Request> {
    let mut out = Vec::new();
    for _ in 0..n {
        match s.source.next_request(SimTime::ZERO).unwrap() {
            Some(r) => out.push(r),
            None => break,
        }
    }
    out
}

fn s(v: &str) -> OptionValue {
    OptionValue::Str(v.into())
}

#[test]
fn the_block_device_example_job_files_load() {
    // fio's examples that describe plain block I/O (the rest of the folder is the survey's,
    // tests/python/test_fio_examples.py).
    for f in [
        "fio-rand-RW.fio",
        "fio-rand-read.fio",
        "fio-rand-write.fio",
        "fio-seq-RW.fio",
        "fio-seq-read.fio",
        "fio-seq-write.fio",
        "ssd-test.fio",
        "zipf.fio",
    ] {
        let p = example(f);
        let mut streams =
            load_streams(&file_cfg(p.clone()), 16 * GIB, 1).unwrap_or_else(|e| panic!("{e}"));
        assert!(!streams.is_empty());
        for st in &mut streams {
            let reqs = take(st, 100);
            assert_eq!(reqs.len(), 100, "{}", p.display());
            assert!(reqs
                .iter()
                .all(|r| r.len > 0 && r.offset + r.len <= 16 * GIB && r.len % 512 == 0));
        }
    }
}

#[test]
fn ssd_test_has_four_phases() {
    let streams = load_streams(&file_cfg(example("ssd-test.fio")), 16 * GIB, 1).unwrap();
    let desc: Vec<(&str, u32, Drive)> = streams
        .iter()
        .map(|s| (s.name.as_str(), s.group, s.drive))
        .collect();
    let d4 = Drive::Closed { depth: 4 };
    assert_eq!(
        desc,
        vec![
            ("seq-read", 0, d4),
            ("rand-read", 1, d4),
            ("seq-write", 2, d4),
            ("rand-write", 3, d4)
        ]
    );
}

#[test]
fn rand_rw_mix_and_clones() {
    let mut streams = load_streams(&file_cfg(example("fio-rand-RW.fio")), 16 * GIB, 7).unwrap();
    assert_eq!(streams.len(), 4);
    let names: Vec<&str> = streams.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "fio-rand-RW",
            "fio-rand-RW.clone1",
            "fio-rand-RW.clone2",
            "fio-rand-RW.clone3"
        ]
    );
    assert!(streams
        .iter()
        .all(|s| s.drive == Drive::Closed { depth: 16 } && s.group == 0));
    let reqs = take(&mut streams[0], 10_000);
    let reads = reqs.iter().filter(|r| r.op == Op::Read).count() as f64 / 1e4;
    assert!((reads - 0.6).abs() < 0.03, "{reads}");
    assert!(reqs
        .iter()
        .all(|r| r.len == 4096 && r.offset + 4096 <= 10 * GIB));
    // Clones have their own random streams.
    let other = take(&mut streams[1], 100);
    assert_ne!(other, reqs[..100].to_vec());
    // time_based with runtime=900: ends once 900 s have passed.
    assert!(streams[2]
        .source
        .next_request(SimTime(0))
        .unwrap()
        .is_some());
    assert!(streams[2]
        .source
        .next_request(SimTime(899_999_999_999))
        .unwrap()
        .is_some());
    assert_eq!(
        streams[2].source.progress(SimTime(450_000_000_000)),
        Some(0.5)
    );
    assert!(streams[2]
        .source
        .next_request(SimTime(900_000_000_000))
        .unwrap()
        .is_none());
}

#[test]
fn zipf_is_skewed_like_fio() {
    let mut streams = load_streams(&file_cfg(example("zipf.fio")), 16 * GIB, 3).unwrap();
    let n = 1280 * (1 << 20) / 4096u64;
    let reqs = take(&mut streams[0], 200_000);
    assert_eq!(reqs.len(), 200_000);
    let mut counts: BTreeMap<u64, u64> = BTreeMap::new();
    for r in &reqs {
        assert_eq!(r.op, Op::Read);
        *counts.entry(r.offset / 4096).or_default() += 1;
    }
    let mut c: Vec<u64> = counts.values().copied().collect();
    c.sort_unstable_by(|a, b| b.cmp(a));
    let top: u64 = c.iter().take((n / 10) as usize).sum();
    let frac = top as f64 / reqs.len() as f64;
    assert!(frac > 0.3, "top 10% of blocks took {frac}");
    // Hot blocks are spread over the region (fio hashes ranks), not packed at its start.
    let hottest = counts.iter().max_by_key(|e| e.1).map(|e| *e.0).unwrap();
    let _ = hottest;
    let low_half =
        reqs.iter().filter(|r| r.offset < 640 * (1 << 20)).count() as f64 / reqs.len() as f64;
    assert!((low_half - 0.5).abs() < 0.15, "{low_half}");

    // The unhashed ranks follow the zipf mass: P(rank <= n/10) = H(n/10, θ) / H(n, θ).
    let table = gen::ZipfTable::new(n, 0.5);
    let h = |m: u64| (1..=m).map(|i| (i as f64).powf(-0.5)).sum::<f64>();
    let theory = h(n / 10) / h(n);
    let mut rng = Pcg64Mcg::seed_from_u64(9);
    let trials = 200_000;
    let hits = (0..trials)
        .filter(|_| table.rank(rng.random()) <= n / 10)
        .count() as f64
        / trials as f64;
    assert!(
        (hits - theory).abs() < 0.02,
        "zipf mass {hits} vs theory {theory}"
    );
}

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

#[test]
fn random_map_visits_every_block_once() {
    for blocks in [1u64, 2, 3, 1000, 4097] {
        let text = format!("[j]\nrw=randwrite\nbs=4k\nsize={}\n", blocks * 4096);
        let mut st = load_text(&text, GIB, 5).unwrap();
        let reqs = take(&mut st[0], blocks as usize);
        let set: BTreeSet<u64> = reqs.iter().map(|r| r.offset / 4096).collect();
        assert_eq!(set.len() as u64, blocks);
        assert!(set.iter().all(|&b| b < blocks));
        // io_size defaults to size: the job ends after one pass.
        assert!(st[0].source.next_request(SimTime::ZERO).unwrap().is_none());
        assert_eq!(st[0].source.progress(SimTime::ZERO), Some(1.0));
    }
    // Second pass visits every block again.
    let mut st = load_text("[j]\nrw=randread\nsize=400k\nio_size=800k\n", GIB, 5).unwrap();
    let reqs = take(&mut st[0], 1000);
    assert_eq!(reqs.len(), 200);
    let second: BTreeSet<u64> = reqs[100..].iter().map(|r| r.offset).collect();
    assert_eq!(second.len(), 100);
}

#[test]
fn bssplit_proportions() {
    let mut st = load_text(
        "[j]\nrw=randwrite\nbssplit=4k/10:64k/50:32k/40\nnorandommap\n",
        16 * GIB,
        2,
    )
    .unwrap();
    let reqs = take(&mut st[0], 20_000);
    let frac = |b: u64| reqs.iter().filter(|r| r.len == b).count() as f64 / reqs.len() as f64;
    assert!((frac(4096) - 0.10).abs() < 0.02);
    assert!((frac(65536) - 0.50).abs() < 0.02);
    assert!((frac(32768) - 0.40).abs() < 0.02);
    // Missing percentage takes the rest; per-direction split.
    let mut st = load_text("[j]\nrw=randrw\nbssplit=4k/30:8k,16k\n", 16 * GIB, 2).unwrap();
    let reqs = take(&mut st[0], 20_000);
    let reads: Vec<&Request> = reqs.iter().filter(|r| r.op == Op::Read).collect();
    let f8 = reads.iter().filter(|r| r.len == 8192).count() as f64 / reads.len() as f64;
    assert!((f8 - 0.7).abs() < 0.03, "{f8}");
    assert!(reqs
        .iter()
        .filter(|r| r.op == Op::Write)
        .all(|r| r.len == 16384));
}

#[test]
fn bsrange_follows_fio_rule() {
    let mut st = load_text("[j]\nrw=randread\nbsrange=4k-16k\n", 16 * GIB, 2).unwrap();
    let reqs = take(&mut st[0], 5000);
    assert!(reqs
        .iter()
        .all(|r| r.len % 4096 == 0 && (4096..=16384).contains(&r.len)));
    let sizes: BTreeSet<u64> = reqs.iter().map(|r| r.len).collect();
    assert_eq!(sizes.len(), 4);
}

#[test]
fn sequential_offsets_increase_and_wrap() {
    let mut st = load_text(
        "[j]\nrw=write\nbs=8k\noffset=1m\nsize=64k\nio_size=128k\n",
        GIB,
        1,
    )
    .unwrap();
    let reqs = take(&mut st[0], 100);
    assert_eq!(reqs.len(), 16);
    let offs: Vec<u64> = reqs.iter().map(|r| r.offset - (1 << 20)).collect();
    let pass: Vec<u64> = (0..8).map(|i| i * 8192).collect();
    assert_eq!(&offs[..8], &pass[..]);
    assert_eq!(&offs[8..], &pass[..]);
    // Mixed sequential: each direction keeps its own position.
    let mut st = load_text("[j]\nrw=rw\nbs=4k\nsize=1m\n", GIB, 1).unwrap();
    let reqs = take(&mut st[0], 100);
    for op in [Op::Read, Op::Write] {
        let o: Vec<u64> = reqs
            .iter()
            .filter(|r| r.op == op)
            .map(|r| r.offset)
            .collect();
        assert!(o.windows(2).all(|w| w[1] == w[0] + 4096));
        assert_eq!(o[0], 0);
    }
}

#[test]
fn dedupe_percentage_repeats_ids() {
    let mut st = load_text(
        "[j]\nrw=randwrite\nsize=1g\ndedupe_percentage=30\nbuffer_compress_percentage=50\n",
        16 * GIB,
        4,
    )
    .unwrap();
    assert_eq!(st[0].content.dedupe_percentage, 30);
    assert_eq!(st[0].content.compress_percentage, Some(50));
    let reqs = take(&mut st[0], 20_000);
    let mut seen = BTreeSet::new();
    let mut repeats = 0;
    for r in &reqs {
        assert_ne!(r.content, 0);
        assert_eq!(r.content >> 40, 1);
        if !seen.insert(r.content) {
            repeats += 1;
        }
    }
    let frac = repeats as f64 / reqs.len() as f64;
    assert!((frac - 0.3).abs() < 0.03, "{frac}");
    // Without dedupe every block is unique, and streams use separate namespaces.
    let mut st = load_text(
        "[a]\nrw=write\nbs=16k\nsize=1m\n[b]\nrw=write\nsize=1m\n",
        GIB,
        4,
    )
    .unwrap();
    let a = take(&mut st[0], 10);
    assert_eq!(a[1].content, a[0].content + 4);
    let b = take(&mut st[1], 1);
    assert_eq!(b[0].content >> 40, 2);
}

/// fio's `dedupe_mode=working_set`: duplicates come from a working set of
/// `dedupe_working_set_percentage` of `size` (ids 1..=W of the job), fresh writes never use
/// it; fio's own checks (size set, working set + dedupe <= 100%) are errors.
#[test]
fn dedupe_working_set_draws_duplicates_from_its_set() {
    let mut st = load_text(
        "[j]\nrw=randwrite\nsize=400m\ndedupe_percentage=40\ndedupe_mode=working_set\ndedupe_working_set_percentage=10\n",
        16 * GIB,
        4,
    )
    .unwrap();
    let w = 400 * 1024 * 1024 / 10 / 4096; // 10,240 blocks
    let reqs = take(&mut st[0], 20_000);
    let mut in_set = 0;
    for r in &reqs {
        let id = r.content & ((1 << 40) - 1);
        if id <= w {
            in_set += 1;
        }
    }
    let frac = in_set as f64 / reqs.len() as f64;
    assert!((frac - 0.4).abs() < 0.02, "{frac}");
    // Fresh ids start after the working set: the first fresh write is id W + 1.
    let first_fresh = reqs
        .iter()
        .map(|r| r.content & ((1 << 40) - 1))
        .find(|&id| id > w);
    assert_eq!(first_fresh, Some(w + 1));
    // repeat (the default) and an explicit repeat give the same requests.
    let reqs_of = |text: &str| take(&mut load_text(text, 16 * GIB, 4).unwrap()[0], 500);
    let base = "[j]\nrw=randwrite\nsize=400m\ndedupe_percentage=40\n";
    let a = reqs_of(base);
    let b = reqs_of(&format!("{base}dedupe_mode=repeat\n"));
    assert_eq!(
        a.iter().map(|r| (r.offset, r.content)).collect::<Vec<_>>(),
        b.iter().map(|r| (r.offset, r.content)).collect::<Vec<_>>()
    );
    for (text, msg) in [
        (
            "dedupe_mode=sometimes\n",
            "unknown dedupe_mode `sometimes` (expected repeat or working_set)",
        ),
        (
            "dedupe_mode=working_set\ndedupe_working_set_percentage=70\n",
            "exceeds 100",
        ),
        (
            "dedupe_working_set_percentage=101\n",
            "expected a percentage",
        ),
    ] {
        let e = load_text(&format!("{base}{text}"), 16 * GIB, 4)
            .err()
            .expect("an error")
            .to_string();
        assert!(e.contains(msg), "{text}: {e}");
    }
    let e = load_text(
        "[j]\nrw=randwrite\ndedupe_percentage=40\ndedupe_mode=working_set\n",
        16 * GIB,
        4,
    )
    .err()
    .expect("an error")
    .to_string();
    assert!(e.contains("needs `size`"), "{e}");
}

#[test]
fn determinism() {
    let text = "[j]\nrw=randrw\nbsrange=4k-64k\nrandom_distribution=pareto:0.3\nnumjobs=2\n[k]\nrw=randread\nrandom_distribution=normal:20\n";
    let run = |seed| {
        let mut st = load_text(text, 16 * GIB, seed).unwrap();
        st.iter_mut().map(|s| take(s, 500)).collect::<Vec<_>>()
    };
    assert_eq!(run(1), run(1));
    assert_ne!(run(1), run(2));
    // randseed pins the sequence regardless of the run seed.
    let mut a = load_text("[j]\nrw=randread\nrandseed=42\n", 16 * GIB, 1).unwrap();
    let mut b = load_text("[j]\nrw=randread\nrandseed=42\n", 16 * GIB, 2).unwrap();
    assert_eq!(take(&mut a[0], 100), take(&mut b[0], 100));
}

#[test]
fn stops_on_number_ios_and_io_size() {
    let mut st = load_text("[j]\nrw=randread\nnumber_ios=10\n", GIB, 1).unwrap();
    assert_eq!(take(&mut st[0], 100).len(), 10);
    let mut st = load_text("[j]\nrw=read\nbs=4k\nio_size=40k\n", GIB, 1).unwrap();
    assert_eq!(take(&mut st[0], 100).len(), 10);
    let mut st = load_text("[j]\nrw=read\nruntime=1ms\n", GIB, 1).unwrap();
    assert!(st[0].source.next_request(SimTime(5)).unwrap().is_some());
    assert!(st[0]
        .source
        .next_request(SimTime(1_000_005))
        .unwrap()
        .is_none());
}

#[test]
fn syntax_globals_comments_and_sizes() {
    let text = "; comment\n# another\n[global]\nbs = 8k ; trailing\nrw=randwrite # trailing\n\n[a]\nsize=50%\n\
                [global]\nbs=16k\n[b]\nname=bee\niodepth=3\nstonewall=1\noffset=25%\nsize=1m\n";
    let mut st = load_text(text, GIB, 1).unwrap();
    assert_eq!(st.len(), 2);
    assert_eq!((st[0].name.as_str(), st[0].group), ("a", 0));
    assert_eq!(
        (st[1].name.as_str(), st[1].group, st[1].drive),
        ("bee", 1, Drive::Closed { depth: 3 })
    );
    let a = take(&mut st[0], 1000);
    assert!(a
        .iter()
        .all(|r| r.len == 8192 && r.op == Op::Write && r.offset + r.len <= GIB / 2));
    // Jobs get their own files, as in fio: a's (512 MiB) from 0, b's after it; b's region
    // starts 25% of its size into its file (fio 3.33: from 256 KiB to 1280 KiB).
    let b = take(&mut st[1], 1000);
    let b0 = GIB / 2 + (256 << 10);
    assert!(b
        .iter()
        .all(|r| r.len == 16384 && r.offset >= b0 && r.offset + r.len <= b0 + (1 << 20)));
    assert_eq!(parse_size("4KiB"), Ok(4096));
    assert_eq!(parse_size("10G"), Ok(10 << 30));
    assert_eq!(parse_time_ns("2m"), Ok(120_000_000_000));
    assert_eq!(parse_time_ns("500us"), Ok(500_000));
}

#[test]
fn inline_jobs_after_file_jobs() {
    let mut job = BTreeMap::new();
    job.insert("rw".to_string(), s("randwrite"));
    job.insert("bs".to_string(), OptionValue::Int(8192));
    job.insert("time_based".to_string(), OptionValue::Bool(false));
    job.insert("stonewall".to_string(), OptionValue::Bool(true));
    let mut global = BTreeMap::new();
    global.insert("size".to_string(), s("1g"));
    let cfg = FioWorkload {
        path: Some(example("ssd-test.fio")),
        global,
        jobs: vec![job],
        ..file_cfg(PathBuf::new())
    };
    let mut st = load_streams(&cfg, 16 * GIB, 1).unwrap();
    assert_eq!(st.len(), 5);
    assert_eq!(
        (st[4].name.as_str(), st[4].group, st[4].drive),
        ("job0", 4, Drive::Closed { depth: 4 })
    );
    let r = take(&mut st[4], 300);
    assert!(r
        .iter()
        .all(|r| r.len == 8192 && r.op == Op::Write && r.offset < GIB));
    // Inline global applies to file jobs too (size=1g instead of 10g).
    let r = take(&mut st[0], 1_000_000);
    assert_eq!(r.len(), (GIB / 4096) as usize);
}

#[test]
fn bad_job_files_name_their_line() {
    let cap = 16 * GIB;
    let cases: Vec<(&str, u64, &str)> = vec![
        ("rw=read\n[j]\n", 1, "before any"),
        ("[j]\nrw=read\nfoo=1\n", 3, "unknown fio option `foo`"),
        ("[j]\nrw=trimwrite\nbs=4k,4k,8k\n", 3, "trim and write block sizes"),
        ("[j]\nioengine=ftruncate\n", 2, "moves no data"),
        ("[j]\nzonemode=zbd\n", 2, "zoned"),
        ("[j]\nrandom_distribution=zoned:50/5:30/95\n", 2, "add up to 80"),
        ("[j]\nrw=read:-8q\n", 2, "size suffix"),
        ("[j]\nrw=randread:-2\n", 2, "positive count"),
        ("[j]\nfilename=/dev/null\nrw=read\n", 1, "stores nothing"),
        ("[j]\nwait_for=nobody\n", 2, "no earlier job"),
        ("[j]\nsize=${FLASHPRESS_SURELY_UNSET_VAR}\n", 2, "not set"),
        ("[j]\ninclude nothere.fio\n", 2, "no such file"),
        ("[j]\nss=iops:10%\n", 2, "ss_dur"),
        ("[j]\nrw=sideways\n", 2, "expected read"),
        ("[global]\nsize=10g\n[j]\noffset=8g\n", 2, "more than the device's 17179869184 logical bytes"),
        ("[j]\nsize=17g\n", 2, "need 18253611008 bytes (j.0.0: 18253611008 bytes), more than the device's 17179869184 logical bytes"),
        ("[j]\nsize=0\n", 2, "positive"),
        ("[j]\nsize=ten\n", 2, "byte count"),
        ("[j]\nbs=4q\n", 2, "suffix"),
        ("[j]\nbs=1000\n", 2, "512"),
        ("[j]\n\nrwmixread=101\n", 3, "0..=100"),
        ("[j]\niodepth=0\n", 2, "iodepth"),
        ("[j]\nnumjobs=0\n", 2, "numjobs"),
        ("[j]\nbssplit=4k/80:8k/60:16k:32k\n", 2, "add up to 140, more than 100"),
        ("[j]\nbssplit=4k/50:8k/60:16k\n", 2, "add up to 110"),
        ("[j]\nbs=1.5k\n", 2, "to fio this is 1 byte(s)"),
        ("[j]\nfilename=a:b\nfill_device=1\n", 1, "fill_device/fill_fs over 2 files"),
        ("[a]\nfilename=x\nfill_fs=1\n[b]\nfilename=y\nfill_fs=1\n", 4, "already filled the device"),
        ("[o]\nfilename=x\nsize=16g\n[a]\nfilename=y\nfill_fs=1\n", 4, "has room for 0 bytes"),
        ("[r]\nfilename=x\nrw=read\n", 1, "gives no `size`"),
        ("[j]\ninclude other.fio\n", 2, "include"),
        ("include other.fio\n", 1, "include"),
        ("[j\nrw=read\n", 1, "closing"),
        ("[]\n", 1, "empty section"),
        ("[j]\nrandom_distribution=zipf:1\n", 2, "zipf"),
        ("[j]\nkb_base=1000\n", 2, "kb_base"),
        ("[j]\nruntime=5y\n", 2, "time suffix"),
        ("[j]\nbsrange=64k-4k\n", 2, "exceeds"),
        ("[j]\nbs=64k\nsize=16k\n", 3, "smaller than the largest block size"),
        ("[j]\nnorandommap=2\n", 2, "flag"),
        ("[j]\n= 5\n", 2, "key=value"),
        ("[j]\nsize=99999999999999999999\n", 2, "too large"),
    ];
    assert!(cases.len() >= 15);
    for (text, want_line, want_msg) in cases {
        match load_text(text, cap, 1) {
            Err(Error::JobFile { line, msg, .. }) => {
                assert_eq!(line, want_line, "{text:?}: {msg}");
                assert!(
                    msg.contains(want_msg),
                    "{text:?}: `{msg}` lacks `{want_msg}`"
                );
            }
            Err(e) => panic!("{text:?}: expected Error::JobFile, got {e}"),
            Ok(_) => panic!("{text:?}: expected Error::JobFile, got Ok"),
        }
    }
}

#[test]
fn bad_inline_options_name_their_key() {
    type Opts = Vec<(&'static str, OptionValue)>;
    let cases: Vec<(Opts, Opts, &str)> = vec![
        (
            vec![],
            vec![("bogus", OptionValue::Int(1))],
            "workload.jobs[0].bogus",
        ),
        (
            vec![("size", s("99g"))],
            vec![("rw", s("read"))],
            "workload.global.size",
        ),
        (
            vec![],
            vec![("iodepth", OptionValue::Int(0))],
            "workload.jobs[0].iodepth",
        ),
        (
            vec![],
            vec![("rw", OptionValue::Bool(true))],
            "workload.jobs[0].rw",
        ),
        (
            vec![],
            vec![("bs", OptionValue::Float(0.5))],
            "workload.jobs[0].bs",
        ),
        (
            vec![],
            vec![("bs", s("64k")), ("size", s("16k"))],
            "workload.jobs[0].size",
        ),
    ];
    for (global, job, want_key) in cases {
        let cfg = FioWorkload {
            path: None,
            global: global
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            jobs: vec![job.into_iter().map(|(k, v)| (k.to_string(), v)).collect()],
            args: Vec::new(),
            vars: BTreeMap::new(),
        };
        match load_streams(&cfg, 16 * GIB, 1) {
            Err(Error::Config {
                key, source_name, ..
            }) => {
                assert_eq!(key, want_key);
                assert_eq!(source_name, "workload");
            }
            Err(e) => panic!("{want_key}: expected Error::Config, got {e}"),
            Ok(_) => panic!("{want_key}: expected Error::Config, got Ok"),
        }
    }
}

#[test]
fn empty_workload_is_an_error() {
    assert!(matches!(
        load_text("; nothing\n[global]\nbs=4k\n", GIB, 1),
        Err(Error::Workload(_))
    ));
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
            let _ = load_text(&text, GIB, 1).map(|mut v| { for s in &mut v { take(s, 5); } });
        }

        #[test]
        fn plausible_job_files_never_panic(
            lines in proptest::collection::vec(
                prop_oneof![
                    Just("[j]".to_string()),
                    Just("[global]".to_string()),
                    "(rw|bs|bsrange|bssplit|size|offset|io_size|number_ios|iodepth|numjobs|runtime|time_based|random_distribution|norandommap|rwmixread|dedupe_percentage|stonewall)=[0-9kmgKM%/:,.a-z-]{0,12}",
                ],
                0..12,
            )
        ) {
            let text = lines.join("\n");
            let _ = load_text(&text, 64 << 20, 1).map(|mut v| { for s in &mut v { take(s, 20); } });
        }
    }
}

#[test]
fn fsync_every_n_writes_and_open_flags() {
    // fsync=3 on a 50% mix: a flush after every third write, whatever the reads between.
    let mut st = load_text(
        "[j]\nrw=randrw\nbs=4k\nsize=1m\nnumber_ios=200\nfsync=3\ndirect=1\nsync=1\n",
        GIB,
        1,
    )
    .unwrap();
    let reqs = take(&mut st[0], 1000);
    let mut writes = 0;
    let mut syncs = 0;
    for r in &reqs {
        assert!(r.attrs.direct() && r.attrs.dsync());
        match r.op {
            Op::Write => {
                writes += 1;
                assert!(writes - 3 * syncs <= 3, "a 4th write before the flush");
            }
            Op::Sync => {
                syncs += 1;
                assert_eq!(writes, 3 * syncs);
            }
            _ => {}
        }
    }
    assert!(
        writes > 60 && syncs == writes / 3,
        "{writes} writes, {syncs} flushes"
    );
    // Flushes are not I/Os: number_ios counts reads and writes only.
    assert_eq!(reqs.len() - syncs, 200);
    // fdatasync is the same flush; buffered=1 and the defaults leave both bits clear.
    let mut st = load_text(
        "[j]\nrw=write\nbs=4k\nsize=1m\nnumber_ios=10\nfdatasync=2\nbuffered=1\n",
        GIB,
        1,
    )
    .unwrap();
    let reqs = take(&mut st[0], 100);
    assert_eq!(reqs.iter().filter(|r| r.op == Op::Sync).count(), 5);
    assert!(reqs.iter().all(|r| !r.attrs.direct() && !r.attrs.dsync()));
}

/// `percentage_random=read,write`: that share of each direction's requests lands at random
/// offsets; every other request starts where the previous request of its direction ended
/// (fio's `last_pos`). Counted against the rule directly: a request is "sequential" when it
/// starts at the end of the previous one of its direction.
#[test]
fn percentage_random_mixes_random_and_sequential_per_direction() {
    let text = "[j]\nrw=randrw\nrwmixread=50\nbs=16k\npercentage_random=30,80\nnorandommap=1\nsize=1g\nnumber_ios=40000\n";
    let mut st = load_text(text, 16 * GIB, 3).unwrap();
    let reqs = take(&mut st[0], 40_000);
    for (op, want) in [(Op::Read, 0.70), (Op::Write, 0.20)] {
        let mut last: Option<u64> = None;
        let (mut seq, mut n) = (0usize, 0usize);
        for r in reqs.iter().filter(|r| r.op == op) {
            if let Some(end) = last {
                n += 1;
                // A random offset can land at the previous end by chance (1 in 65,536 here).
                seq += usize::from(r.offset == end || (end + 16384 > GIB && r.offset == 0));
            }
            last = Some(r.offset + r.len);
        }
        let share = seq as f64 / n as f64;
        assert!((share - want).abs() < 0.02, "{op:?}: {share} sequential");
    }
    // Without the option every request is random; 100 is the same as absent.
    let plain = take(
        &mut load_text(&text.replace("percentage_random=30,80\n", ""), 16 * GIB, 3).unwrap()[0],
        1000,
    );
    let hundred = take(
        &mut load_text(&text.replace("30,80", "100"), 16 * GIB, 3).unwrap()[0],
        1000,
    );
    assert_eq!(plain, hundred);
    for (bad, says) in [
        ("percentage_random=101", "0..=100"),
        ("percentage_random=a", "0..=100"),
        ("percentage_random=1,2,3,4", "read[,write"),
    ] {
        let e = load_text(&text.replace("percentage_random=30,80", bad), 16 * GIB, 3)
            .err()
            .unwrap_or_else(|| panic!("{bad} accepted"));
        assert!(e.to_string().contains(says), "{bad}: {e}");
    }
    let e = load_text("[j]\nrw=read\npercentage_random=50\n", 16 * GIB, 3)
        .err()
        .unwrap();
    assert!(e.to_string().contains("random jobs"), "{e}");
}

/// The byte range each stream's first `n` requests fall in.
fn span(s: &mut Stream, n: usize) -> (u64, u64) {
    let r = take(s, n);
    let lo = r.iter().map(|r| r.offset).min().unwrap();
    let hi = r.iter().map(|r| r.offset + r.len).max().unwrap();
    (lo, hi)
}

#[test]
fn jobs_get_their_own_files_unless_they_share_a_filename() {
    const M: u64 = 1 << 20;
    // fio: [a] and [b] each write their own 64 MiB file; clones too (numjobs=2).
    let mut st = load_text(
        "[global]\nrw=write\nsize=64m\n[a]\n[b]\nnumjobs=2\n",
        GIB,
        1,
    )
    .unwrap();
    let spans: Vec<(u64, u64)> = st.iter_mut().map(|s| span(s, 1_000_000)).collect();
    assert_eq!(
        spans,
        vec![(0, 64 * M), (64 * M, 128 * M), (128 * M, 192 * M)]
    );
    // Shared filename: one file, every job over the same bytes; offset_increment splits it.
    let mut st = load_text(
        "[global]\nfilename=data\nrw=read\nsize=32m\n[a]\n[b]\nnumjobs=2\noffset_increment=32m\n",
        GIB,
        1,
    )
    .unwrap();
    let spans: Vec<(u64, u64)> = st.iter_mut().map(|s| span(s, 1_000_000)).collect();
    assert_eq!(spans, vec![(0, 32 * M), (0, 32 * M), (32 * M, 64 * M)]);
    // A device name: the device's own addresses.
    let mut st = load_text(
        "[a]\nfilename=/dev/nvme0n1\nrw=read\noffset=1g\nsize=1m\n",
        4 * GIB,
        1,
    )
    .unwrap();
    assert_eq!(span(&mut st[0], 1000), (GIB, GIB + M));
    // nrfiles: round robin over the job's files, each `size / nrfiles`.
    let mut st = load_text("[a]\nrw=write\nsize=8m\nnrfiles=4\nbs=1m\n", GIB, 1).unwrap();
    let offs: Vec<u64> = take(&mut st[0], 8).iter().map(|r| r.offset / M).collect();
    assert_eq!(offs, vec![0, 2, 4, 6, 1, 3, 5, 7]);
    // Files past the device's end are refused, naming the size.
    match load_text("[a]\nsize=600m\n[b]\nsize=600m\n", GIB, 1) {
        Err(Error::JobFile { line, msg, .. }) => {
            assert_eq!(line, 4);
            assert!(msg.contains("more than the device's"), "{msg}");
        }
        other => panic!("{:?}", other.err()),
    }
}

#[test]
fn every_refused_option_is_reported_with_its_line() {
    let text =
        "[global]\nioengine=net\nport=8888\n[a]\nverify_pattern=0xff\nbogus=1\npi_act=1\n[b]\nfoo=2\n";
    match load_text(text, GIB, 1) {
        Err(Error::Several(errs)) => {
            let lines: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
            let want = [
                (":2:", "ioengine `net`"),
                (":6:", "unknown fio option `bogus`"),
                (":7:", "protection information"),
                (":9:", "unknown fio option `foo`"),
            ];
            for (l, m) in want {
                assert!(
                    lines.iter().any(|x| x.contains(l) && x.contains(m)),
                    "{l} {m} in {lines:#?}"
                );
            }
            // The global engine is reported once, not once per job.
            assert_eq!(
                lines.iter().filter(|x| x.contains("`net`")).count(),
                1,
                "{lines:#?}"
            );
        }
        other => panic!("{:?}", other.err()),
    }
}

#[test]
fn include_variables_and_command_lines() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("common.fio"),
        "[global]\nbs=${BS}\nrw=randwrite\n",
    )
    .unwrap();
    let path = dir.path().join("job.fio");
    std::fs::write(&path, "include common.fio\n[a]\nsize=1m\nnumjobs=$ncpus\n").unwrap();
    let mut cfg = file_cfg(path);
    cfg.vars.insert("BS".into(), "8k".into());
    cfg.vars.insert("ncpus".into(), "3".into());
    let l = load(&cfg, GIB, 1, false, None).unwrap();
    assert_eq!(l.streams.len(), 3);
    assert!(
        l.notes.iter().any(|n| n.contains("`BS` = `8k`")),
        "{:?}",
        l.notes
    );
    let mut st = l.streams;
    assert!(take(&mut st[0], 50)
        .iter()
        .all(|r| r.len == 8192 && r.op == Op::Write));
    // A fio command line: options before the first --name are global.
    let cfg = FioWorkload {
        path: None,
        args: [
            "--bs=16k",
            "--size=1m",
            "--name=x",
            "--rw=read",
            "--name=y",
            "--rw=write",
            "--stonewall",
        ]
        .map(String::from)
        .to_vec(),
        ..file_cfg(PathBuf::new())
    };
    let mut st = load_streams(&cfg, GIB, 1).unwrap();
    let desc: Vec<(&str, u32)> = st.iter().map(|s| (s.name.as_str(), s.group)).collect();
    assert_eq!(desc, vec![("x", 0), ("y", 1)]);
    assert!(take(&mut st[1], 10)
        .iter()
        .all(|r| r.len == 16384 && r.op == Op::Write));
    let bad = FioWorkload {
        path: None,
        args: vec!["--readonly".into(), "job.fio".into()],
        ..file_cfg(PathBuf::new())
    };
    let e = load_streams(&bad, GIB, 1).err().unwrap().to_string();
    assert!(
        e.contains("flag of the fio program") && e.contains("workload.args[1]"),
        "{e}"
    );
}

#[test]
fn zoned_distribution_hits_zones_in_proportion() {
    // fio's rand-zones.fio: 50% of accesses to the first 5%, 30% to the next 15%, 20% to the rest.
    let mut st = load_text(
        "[z]\nsize=1g\nbs=4k\nrw=randread\nnorandommap\nrandom_distribution=zoned:50/5:30/15:20/\n",
        GIB,
        7,
    )
    .unwrap();
    let n = 200_000;
    let r = take(&mut st[0], n);
    let mut counts = [0u64; 3];
    for q in &r {
        let f = q.offset as f64 / GIB as f64;
        counts[if f < 0.05 {
            0
        } else if f < 0.20 {
            1
        } else {
            2
        }] += 1;
    }
    for (c, p) in counts.iter().zip([0.5, 0.3, 0.2]) {
        // Binomial: within 5 standard deviations.
        let sd = (n as f64 * p * (1.0 - p)).sqrt();
        assert!((*c as f64 - n as f64 * p).abs() < 5.0 * sd, "{counts:?}");
    }
    // zoned_abs: absolute sizes.
    let mut st = load_text(
        "[z]\nsize=1g\nrw=randread\nrandom_distribution=zoned_abs:80/100m:20/924m\n",
        GIB,
        7,
    )
    .unwrap();
    let r = take(&mut st[0], n);
    let hot = r.iter().filter(|q| q.offset < 100 << 20).count() as f64 / n as f64;
    assert!((hot - 0.8).abs() < 0.01, "{hot}");
}

#[test]
fn trims_offset_modifiers_and_blockalign() {
    // trimwrite: each block trimmed, then written.
    let mut st = load_text("[t]\nrw=trimwrite\nsize=64k\nbs=16k\n", GIB, 1).unwrap();
    let r = take(&mut st[0], 8);
    let ops: Vec<(Op, u64)> = r.iter().map(|r| (r.op, r.offset >> 10)).collect();
    assert_eq!(
        ops,
        vec![
            (Op::Trim, 0),
            (Op::Write, 0),
            (Op::Trim, 16),
            (Op::Write, 16),
            (Op::Trim, 32),
            (Op::Write, 32),
            (Op::Trim, 48),
            (Op::Write, 48)
        ]
    );
    // fio's backwards-read.fio: rw=read:-8k with 4k blocks reads backwards from the end
    // (the full stream is in `sequential_gaps_follow_fio`).
    let mut st = load_text("[b]\nbs=4k\nrw=read:-8k\nsize=64k\n", GIB, 1).unwrap();
    let offs: Vec<u64> = take(&mut st[0], 4).iter().map(|r| r.offset >> 10).collect();
    assert_eq!(offs, vec![0, 56, 52, 48]);
    // rw=write:4k leaves a 4k hole after each block.
    let mut st = load_text("[g]\nbs=4k\nrw=write:4k\nsize=64k\n", GIB, 1).unwrap();
    let offs: Vec<u64> = take(&mut st[0], 4).iter().map(|r| r.offset >> 10).collect();
    assert_eq!(offs, vec![0, 8, 16, 24]);
    // blockalign: random offsets on 64k boundaries even with 4k blocks.
    let mut st = load_text(
        "[a]\nbs=4k\nblockalign=64k\nrw=randwrite\nsize=64m\n",
        GIB,
        1,
    )
    .unwrap();
    assert!(take(&mut st[0], 1000).iter().all(|r| r.offset % 65536 == 0));
}

#[test]
fn wait_for_starts_a_job_after_the_one_it_names() {
    let st = load_text(
        "[global]\nsize=1m\n[w]\nrw=write\n[r]\nwait_for=w\nrw=read\n[r2]\nrw=read\n",
        GIB,
        1,
    )
    .unwrap();
    let g: Vec<u32> = st.iter().map(|s| s.group).collect();
    assert_eq!(g, vec![0, 1, 1]);
    // Waiting for one job of a group that runs beside others is refused, not approximated.
    let e = load_text("[global]\nsize=1m\n[a]\n[b]\n[c]\nwait_for=a\n", GIB, 1)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("not supported"), "{e}");
}

#[test]
fn verify_reads_back_what_was_written() {
    // After the write phase, every written block is read back once, in the order written
    // (a random job with its random map: fio's history list).
    let mut st = load_text("[v]\nrw=randwrite\nbs=4k\nsize=64k\nverify=md5\n", GIB, 1).unwrap();
    let r = take(&mut st[0], 100);
    let (w, rd): (Vec<&Request>, Vec<&Request>) = r.iter().partition(|r| r.op == Op::Write);
    assert_eq!(w.len(), 16);
    let written: Vec<(u64, u64)> = w.iter().map(|r| (r.offset, r.len)).collect();
    let read: Vec<(u64, u64)> = rd.iter().map(|r| (r.offset, r.len)).collect();
    assert_eq!(read, written);
    // Without the map (norandommap, fio's history tree): in offset order, each block once.
    let mut st = load_text(
        "[v]\nrw=randwrite\nbs=4k\nsize=64k\nverify=md5\nnorandommap\n",
        GIB,
        1,
    )
    .unwrap();
    let r = take(&mut st[0], 100);
    let (w, rd): (Vec<&Request>, Vec<&Request>) = r.iter().partition(|r| r.op == Op::Write);
    let mut written: Vec<u64> = w.iter().map(|r| r.offset).collect();
    written.sort_unstable();
    written.dedup();
    assert!(written.len() < 16, "norandommap rewrites some blocks");
    let read: Vec<(u64, u64)> = rd.iter().map(|r| (r.offset, r.len)).collect();
    // Adjacent written blocks are read back in runs of up to the write block size.
    assert_eq!(read, written.iter().map(|&o| (o, 4096)).collect::<Vec<_>>());
    // verify_backlog=4: every 4 writes, those 4 are read back before writing on.
    let mut st = load_text(
        "[v]\nrw=randwrite\nbs=4k\nsize=64k\nverify=md5\nverify_backlog=4\n",
        GIB,
        1,
    )
    .unwrap();
    let r = take(&mut st[0], 100);
    assert_eq!(r.len(), 32);
    for chunk in r.chunks(8) {
        let (w, rd) = chunk.split_at(4);
        assert!(w.iter().all(|r| r.op == Op::Write) && rd.iter().all(|r| r.op == Op::Read));
        let wo: Vec<u64> = w.iter().map(|r| r.offset).collect();
        let ro: Vec<u64> = rd.iter().map(|r| r.offset).collect();
        assert_eq!(wo, ro);
    }
}

#[test]
fn filesize_is_the_region_and_size_the_io() {
    let mut st = load_text("[f]\nrw=randwrite\nbs=4k\nfilesize=8m\nsize=1m\n", GIB, 1).unwrap();
    let r = take(&mut st[0], 10_000);
    assert_eq!(r.iter().map(|r| r.len).sum::<u64>(), 1 << 20);
    assert!(
        r.iter().any(|r| r.offset >= 4 << 20),
        "random offsets cover the whole 8 MiB file"
    );
    assert!(r.iter().all(|r| r.offset + r.len <= 8 << 20));
}

/// fio: `time_based` with no `runtime` warns ("time_based requires a runtime, ignoring") and
/// the job runs by size; the run's summary says so.
#[test]
fn time_based_without_runtime_runs_by_size_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("job.fio");
    std::fs::write(&path, "[j]\nrw=write\nbs=4k\nsize=64k\ntime_based\n").unwrap();
    let mut l = load(&file_cfg(path), GIB, 1, false, None).unwrap();
    let reqs = take(&mut l.streams[0], 1000);
    let offs: Vec<u64> = reqs.iter().map(|r| r.offset).collect();
    assert_eq!(offs, (0..16).map(|i| i * 4096).collect::<Vec<_>>());
    assert!(
        l.notes
            .iter()
            .any(|n| n.contains("time_based") && n.contains("runs by size")),
        "{:?}",
        l.notes
    );
}

/// fio's flags that only shape its own output (`--output`, `--output-format`, `--eta`...) are
/// accepted in a command line and listed in the summary as ignored; the jobs are the same as
/// without them.
#[test]
fn fio_output_flags_are_accepted_and_listed_as_ignored() {
    let args = |extra: &[&str]| FioWorkload {
        path: None,
        args: extra
            .iter()
            .chain(["--name=w", "--rw=write", "--bs=4k", "--size=64k"].iter())
            .map(|a| a.to_string())
            .collect(),
        ..file_cfg(PathBuf::new())
    };
    let flags = [
        "--output=/tmp/out.json",
        "--output-format=json+",
        "--eta=never",
        "--minimal",
        "--status-interval=1",
    ];
    let mut with = load(&args(&flags), GIB, 1, false, None).unwrap();
    let mut without = load(&args(&[]), GIB, 1, false, None).unwrap();
    assert_eq!(
        take(&mut with.streams[0], 100),
        take(&mut without.streams[0], 100)
    );
    for f in flags {
        assert!(
            with.notes
                .iter()
                .any(|n| n.contains(&format!("fio program flag `{f}` ignored"))),
            "{f}: {:?}",
            with.notes
        );
    }
}

/// Every request of a job, in order: (op, offset KiB, length KiB).
fn stream_kib(text: &str, cap: u64, seed: u64) -> Vec<(Op, u64, u64)> {
    let mut st = load_text(text, cap, seed).unwrap_or_else(|e| panic!("{e}"));
    let reqs = take(&mut st[0], 100_000);
    assert!(reqs.len() < 100_000, "the job does not end");
    reqs.iter()
        .map(|r| (r.op, r.offset >> 10, r.len >> 10))
        .collect()
}

/// fio's sequential rule (get_next_seq_offset, io_u.c), written out independently for a
/// region at the start of a file whose size is the region's: each I/O but the first starts
/// `gap` after the previous one ends; a position at or past the file's end wraps (forwards
/// to the start, backwards to the end plus the gap); a previous I/O ending at the file's end,
/// a start at or past the region's end, or an I/O past the file's end, ends the job, as does
/// reaching `size` bytes.
fn fio_seq_reference(bs: i64, gap: i64, size: i64) -> Vec<(u64, u64)> {
    let (mut out, mut last, mut done) = (Vec::new(), 0i64, 0i64);
    while done < size && last < size {
        let mut pos = last;
        if pos != 0 {
            pos += gap;
            if pos >= size || pos < 0 {
                pos = if gap > 0 { 0 } else { size + gap };
            }
        }
        if pos >= size || pos + bs > size {
            break;
        }
        out.push(((pos >> 10) as u64, (bs >> 10) as u64));
        last = pos + bs;
        done += bs;
    }
    out
}

#[test]
fn sequential_gaps_follow_fio() {
    for (rw, gap) in [
        ("write:8k", 8192i64),
        ("read:-8k", -8192),
        ("write:4k", 4096),
        ("read:-4k", -4096),
        ("write:12k", 12288),
        ("read", 0),
    ] {
        for (bs, size) in [(4096i64, 65536i64), (8192, 65536), (4096, 61440)] {
            let text = format!("[j]\nrw={rw}\nbs={bs}\nsize={size}\n");
            let got: Vec<(u64, u64)> = stream_kib(&text, GIB, 1)
                .into_iter()
                .map(|(_, o, l)| (o, l))
                .collect();
            assert_eq!(got, fio_seq_reference(bs, gap, size), "{text}");
        }
    }
    // The issue's cases, spelled out: fio writes 6 blocks and stops at the region's end...
    let w: Vec<u64> = stream_kib("[j]\nrw=write:8k\nbs=4k\nsize=64k\n", GIB, 1)
        .iter()
        .map(|r| r.1)
        .collect();
    assert_eq!(w, vec![0, 12, 24, 36, 48, 60]);
    // ...and reads backwards from 56k (the block at 60k is never read), wrapping after 0.
    let r: Vec<u64> = stream_kib("[j]\nrw=read:-8k\nbs=4k\nsize=64k\n", GIB, 1)
        .iter()
        .map(|r| r.1)
        .collect();
    assert_eq!(
        r,
        vec![0, 56, 52, 48, 44, 40, 36, 32, 28, 24, 20, 16, 12, 8, 4, 0]
    );
    // On the device the region's end, not the device's, ends the forward pass.
    let d = stream_kib(
        "[j]\nfilename=/dev/nvme0n1\nrw=write:8k\nbs=4k\nsize=64k\n",
        GIB,
        1,
    );
    assert_eq!(d.len(), 6);
    // loops: each loop starts again at the region's start.
    let l = stream_kib("[j]\nrw=write:8k\nbs=4k\nsize=64k\nloops=2\n", GIB, 1);
    assert_eq!(l.len(), 12);
    assert_eq!(l[6].1, 0);
}

#[test]
fn percentage_offset_and_size_round_as_fio() {
    // fio: offset = ceil(1 MiB * 10% / 4k) * 4k = 104 KiB; size = floor(1 MiB * 10% / 4k) * 4k
    // = 100 KiB of I/O from there.
    let got = stream_kib("[j]\nrw=read\nfilesize=1m\noffset=10%\nsize=10%\n", GIB, 1);
    let want: Vec<(Op, u64, u64)> = (0..25).map(|i| (Op::Read, 104 + 4 * i, 4)).collect();
    assert_eq!(got, want);
}

/// fio's random map rule for `rw=randrw bssplit=4k/50:16k/50,64k/100 size=64m`, written out
/// independently with a plain bit vector: one bit per 4 KiB (the smallest block); reads draw
/// a 4 KiB index in [0, 16384), writes a 64 KiB index in [0, 1024) (fio's `ba[ddir]`); a busy
/// index moves to the next free bit (wrapping); an offset past the region ends the job; an
/// I/O marks its bits from offset / min_bs[ddir] and is cut at the first busy one.
fn fio_axmap_reference(seed: u64) -> u64 {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let n = 16384usize;
    let mut map = vec![false; n];
    let mut done = 0u64;
    while done < 64 << 20 {
        let read = rng.random_range(0..100u32) < 50;
        let (unit, lastb) = if read {
            (4096u64, n as u64)
        } else {
            (65536, 1024)
        };
        let mut b = rng.random_range(0..lastb) as usize;
        if map[b] {
            match (b + 1..n).chain(0..b).find(|&i| !map[i]) {
                Some(i) => b = i,
                None => break,
            }
        }
        let off = b as u64 * unit;
        if off >= 64 << 20 {
            break;
        }
        let mut len = if read {
            let pick = if rng.random_range(0..100u32) < 50 {
                4096
            } else {
                16384
            };
            if off + pick <= 64 << 20 {
                pick
            } else {
                4096
            }
        } else {
            65536
        };
        let min = if read { 4096 } else { 65536 };
        let first = (off / min) as usize;
        let want = (len / min) as usize;
        let k = (first..(first + want).min(n))
            .take_while(|&i| !map[i])
            .count();
        map[first..first + k].iter_mut().for_each(|b| *b = true);
        len = len.min(k as u64 * min);
        done += len;
    }
    done
}

#[test]
fn bssplit_random_map_stops_when_used_up_like_fio() {
    let text = "[j]\nrw=randrw\nsize=64m\nbssplit=4k/50:16k/50,64k/100\n";
    let runs = 60u64;
    let (mut ours, mut model) = (Vec::new(), Vec::new());
    for seed in 1..=runs {
        let got: u64 = stream_kib(text, GIB, seed).iter().map(|r| r.2 << 10).sum();
        ours.push(got as f64 / (1 << 20) as f64);
        model.push(fio_axmap_reference(1000 + seed) as f64 / (1 << 20) as f64);
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let sd = |v: &[f64]| {
        let m = mean(v);
        (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64).sqrt()
    };
    // fio's run in the issue issued 31.75 MiB; the job stops early in most runs, never past
    // 64 MiB and its last block, and the totals are distributed as the reference's (means within 4 standard
    // errors of their difference).
    assert!(ours.iter().all(|&x| x < 64.0 + 1.0 / 16.0));
    assert!(
        ours.iter().filter(|&&x| x < 63.0).count() as u64 > runs * 3 / 4,
        "{ours:?}"
    );
    let se =
        (sd(&ours).powi(2) / ours.len() as f64 + sd(&model).powi(2) / model.len() as f64).sqrt();
    assert!(
        (mean(&ours) - mean(&model)).abs() < 4.0 * se,
        "ours {:.1} MiB, fio's rule {:.1} MiB (se {se:.2})",
        mean(&ours),
        mean(&model)
    );
    // norandommap: fio issues the whole size.
    let all: u64 = stream_kib(&format!("{text}norandommap\n"), GIB, 1)
        .iter()
        .map(|r| r.2 << 10)
        .sum();
    assert!(all >= 64 << 20);
    // Writes lie on 64 KiB boundaries (fio's ba[ddir] is the direction's own block size).
    assert!(stream_kib(text, GIB, 3)
        .iter()
        .filter(|r| r.0 == Op::Write)
        .all(|r| r.1 % 64 == 0));
}

#[test]
fn every_bad_value_is_reported_in_one_run() {
    // Three bad values in two jobs and one unknown name: one run names all four lines.
    let text = "[a]\nrw=sideways\nbs=4q\niodepth=0\n[b]\nrwmixread=101\nbogus=1\n";
    match load_text(text, GIB, 1) {
        Err(Error::Several(errs)) => {
            let lines: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
            for (l, m) in [
                (":2:", "expected read"),
                (":3:", "suffix"),
                (":4:", "iodepth"),
                (":6:", "0..=100"),
                (":7:", "unknown fio option `bogus`"),
            ] {
                assert!(
                    lines.iter().any(|x| x.contains(l) && x.contains(m)),
                    "{l} {m} in {lines:#?}"
                );
            }
            assert_eq!(lines.len(), 5, "{lines:#?}");
        }
        other => panic!("{:?}", other.err()),
    }
    // On a command line, each bad value names its argument.
    let cfg = FioWorkload {
        path: None,
        global: BTreeMap::new(),
        jobs: Vec::new(),
        args: ["--name=a", "--bs=4q", "--iodepth=0", "--size=1m"]
            .iter()
            .map(|x| x.to_string())
            .collect(),
        vars: BTreeMap::new(),
    };
    let e = load_streams(&cfg, GIB, 1)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.contains("workload.args[1]") && e.contains("workload.args[2]"),
        "{e}"
    );
}

#[test]
fn single_dash_options_and_bssplit_shares_as_fio_reads_them() {
    // fio's getopt_long_only: `-name=a` is `--name=a`.
    let args = |v: &[&str]| FioWorkload {
        path: None,
        global: BTreeMap::new(),
        jobs: Vec::new(),
        args: v.iter().map(|x| x.to_string()).collect(),
        vars: BTreeMap::new(),
    };
    let mut one = load_streams(
        &args(&["-name=a", "-rw=write", "-bs=8k", "-size=64k", "-numjobs=2"]),
        GIB,
        1,
    )
    .unwrap();
    let mut two = load_streams(
        &args(&[
            "--name=a",
            "--rw=write",
            "--bs=8k",
            "--size=64k",
            "--numjobs=2",
        ]),
        GIB,
        1,
    )
    .unwrap();
    assert_eq!(one.len(), 2);
    assert_eq!(take(&mut one[1], 100), take(&mut two[1], 100));
    // A bssplit whose shares sum to 106: fio draws u in [0, 100) against the running sums,
    // so 4k takes 50%, 16k the other 50%, and 64k (past 100) is never drawn.
    let mut st = load_text(
        "[j]\nrw=randread\nbssplit=4k/50:16k/50:64k/6\nnorandommap\n",
        16 * GIB,
        2,
    )
    .unwrap();
    let reqs = take(&mut st[0], 20_000);
    let frac = |b: u64| reqs.iter().filter(|r| r.len == b).count() as f64 / reqs.len() as f64;
    assert!((frac(4096) - 0.5).abs() < 0.02, "{}", frac(4096));
    assert_eq!(frac(65536), 0.0);
    // Shares summing to 90: the last 10% falls to the last entry.
    let mut st = load_text(
        "[j]\nrw=randread\nbssplit=4k/50:8k/40\nnorandommap\n",
        16 * GIB,
        2,
    )
    .unwrap();
    let reqs = take(&mut st[0], 20_000);
    let f8 = reqs.iter().filter(|r| r.len == 8192).count() as f64 / reqs.len() as f64;
    assert!((f8 - 0.5).abs() < 0.02, "{f8}");
}

#[test]
fn exitall_ends_the_other_jobs_of_its_scope() {
    // [short] ends after 4 blocks; with exitall the long job of its group stops then (it
    // is woken to see it), and a later group still runs; exit_what=all ends that one too.
    let run = |extra: &str, long: &str| -> Vec<usize> {
        let text = format!(
            "[global]\nbs=4k\nrw=write\n[short]\nsize=16k\nexitall\n{extra}[long]\nsize=1m\n{long}[later]\nstonewall\nsize=16k\n"
        );
        let mut st = load_text(&text, GIB, 1).unwrap();
        // Interleave the first group's two jobs, as the host would run them side by side.
        let mut counts = vec![0usize; 3];
        let mut done = [false; 2];
        let mut woken = Vec::new();
        for _ in 0..100_000 {
            for (i, s) in st.iter_mut().take(2).enumerate() {
                if done[i] {
                    continue;
                }
                match s.source.next(SimTime::ZERO).unwrap() {
                    Next::Issue(_) | Next::IssueAsync(_) => counts[i] += 1,
                    Next::Done => done[i] = true,
                    _ => {}
                }
                s.source.take_woken(&mut woken);
            }
            if done.iter().all(|&d| d) {
                break;
            }
        }
        counts[2] = take(&mut st[2], 100).len();
        if !woken.is_empty() {
            assert!(woken.contains(&1), "the short job wakes the long one");
        }
        counts
    };
    assert_eq!(run("", ""), vec![4, 4, 4]);
    assert_eq!(run("exit_what=stonewall\n", ""), vec![4, 4, 4]);
    assert_eq!(run("exit_what=all\n", ""), vec![4, 4, 0]);
    // exit_what=group is fio's reporting group: a job with new_group is outside it, but
    // still among the jobs running (stonewall).
    assert_eq!(run("", "new_group\n"), vec![4, 256, 4]);
    assert_eq!(run("exit_what=stonewall\n", "new_group\n"), vec![4, 4, 4]);
    // Without exitall the long job runs to its size.
    let mut st = load_text(
        "[global]\nbs=4k\nrw=write\n[short]\nsize=16k\n[long]\nsize=64k\n",
        GIB,
        1,
    )
    .unwrap();
    let _ = take(&mut st[0], 100);
    assert_eq!(take(&mut st[1], 100).len(), 16);
    assert!(load_text("[j]\nexit_what=some\n", GIB, 1).is_err());
}

/// The files fio lays out before the jobs of `text` start: (device byte address, KiB).
fn layout_kib(text: &str) -> Vec<(u64, u64)> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("job.fio");
    std::fs::write(&path, text).unwrap();
    load(&file_cfg(path), GIB, 1, false, None)
        .unwrap_or_else(|e| panic!("{e}"))
        .layout
        .iter()
        .map(|(a, b, _)| (*a, *b >> 10))
        .collect()
}

#[test]
fn files_a_job_reads_are_laid_out_before_the_jobs_as_fio_does() {
    // fio sets up every job's files before any starts, in job order; extend_file writes a
    // file whole when the job extending it reads, and only allocates it for a job that only
    // writes. Each case below was run with fio 3.33 (psync engine, files in /tmp) under
    // `strace -e write,fallocate`, which shows the layout's writes before the jobs' own I/O.
    // A reader alone: its 3 MiB file, from byte 0.
    assert_eq!(
        layout_kib("[r]\nrw=read\nbs=4k\nsize=3m\n"),
        vec![(0, 3072)]
    );
    // A writer, then (stonewall) a reader of the same file, then a random reader of a file
    // of its own: fio fallocates f1 (no writes) and writes f2's 64 KiB (16 writes of 4 KiB).
    assert_eq!(
        layout_kib(
            "[w]\nfilename=f1\nrw=write\nbs=4k\nsize=64k\n[r]\nstonewall\nfilename=f1\nrw=read\nbs=4k\nsize=64k\n\
             [r2]\nstonewall\nfilename=f2\nrw=randread\nbs=4k\nsize=64k\n"
        ),
        vec![(64 << 10, 64)]
    );
    // Readers sharing a file: the first lays out 256 KiB; the second job's second clone
    // (offset_increment) needs 512 KiB and lays the file out again, whole (fio: 64 + 128
    // writes of 4 KiB).
    assert_eq!(
        layout_kib(
            "[global]\nfilename=data\nrw=read\nbs=4k\nsize=256k\n[a]\n[b]\nnumjobs=2\noffset_increment=256k\n"
        ),
        vec![(0, 256), (0, 512)]
    );
    // A mixed job lays out its file (fio: opened O_TRUNC and written); a trim job only
    // allocates it (fio: fallocate, no write).
    assert_eq!(
        layout_kib("[c]\nrw=randrw\nfilename=d2\nsize=64k\n[d]\nrw=trim\nfilename=d3\nsize=64k\n"),
        vec![(0, 64)]
    );
    // A job on the device: nothing is laid out (its never-written reads are counted).
    assert!(layout_kib("[r]\nrw=read\nfilename=/dev/sdb\nsize=1m\n").is_empty());
}

#[test]
fn fill_fs_writes_the_file_to_the_device_end_and_a_later_job_reads_it_at_that_size() {
    const M: u64 = 1 << 20;
    // fio's fill_device/fill_fs: "sets size to something really large and waits for ENOSPC":
    // with no file system under the jobs, the file system is full when the device is, so
    // the file holds what the other files leave (here 1 GiB less another job's 1 MiB file).
    // A later job with no size finds the file at that size (fio's setup_files: "if
    // (!o->size ...) o->size = total_size") and reads it; the writer set it up, so nothing is
    // laid out before the run.
    let text =
        "[w]\nfilename=data\nrw=write\nbs=64k\nfill_fs=1\n[o]\nfilename=other\nrw=write\nsize=1m\n\
                [r]\nstonewall\nfilename=data\nrw=read\nbs=64k\n";
    let mut st = load_text(text, GIB, 1).unwrap();
    let w = take(&mut st[0], 100_000);
    assert!(w.iter().all(|r| r.op == Op::Write && r.len == 64 << 10));
    // Sequential from byte 0 to the file's end, each block once, then the job ends.
    let offsets: Vec<u64> = w.iter().map(|r| r.offset).collect();
    let want: Vec<u64> = (0..(GIB - M) / (64 << 10))
        .map(|i| i * (64 << 10))
        .collect();
    assert_eq!(offsets, want);
    assert_eq!(span(&mut st[1], 1000), (GIB - M, GIB));
    let r = take(&mut st[2], 100_000);
    assert!(r.iter().all(|r| r.op == Op::Read));
    assert_eq!(r.iter().map(|r| r.len).sum::<u64>(), GIB - M);
    assert!(layout_kib(text).is_empty());
    // A device job's fill runs to the device's end.
    let mut st = load_text(
        "[w]\nfilename=/dev/sdb\nrw=write\nbs=1m\nfill_device=1\n",
        GIB,
        1,
    )
    .unwrap();
    assert_eq!(span(&mut st[0], 100_000), (0, GIB));
}

/// Every request of a stream, waits skipped (the loader's view).
fn all(s: &mut Stream) -> Vec<Request> {
    let mut out = Vec::new();
    while let Some(r) = s.source.next_request(SimTime::ZERO).unwrap() {
        out.push(r);
    }
    out
}

/// fio's `dedupe_global` (dedupe.c): the jobs that set it share their working sets. With
/// N = 2 clones, each job's W slots are cut into two runs of W / 2: the first its own first
/// working-set blocks, the second the other job's. A duplicate picks either run with equal
/// chance, so a quarter of each job's writes (half are duplicates, half of those cross)
/// carry the other job's content; without `dedupe_global` none do.
#[test]
fn dedupe_global_shares_working_sets_across_jobs() {
    let job = |global: &str| {
        format!(
            "[global]\nrw=write\nsize=16m\ndedupe_percentage=50\ndedupe_mode=working_set\n\
             dedupe_working_set_percentage=10\n{global}[a]\n[b]\n"
        )
    };
    let blocks = 16 * 1024 * 1024 / 4096u64;
    let w = blocks / 10; // 409 working-set blocks per job
    for (global, share) in [("dedupe_global=1\n", 0.25), ("", 0.0)] {
        let mut st = load_text(&job(global), 16 * GIB, 9).unwrap();
        let mut crossing = 0u64;
        let mut own_ws = std::collections::BTreeSet::new();
        for (i, s) in st.iter_mut().enumerate() {
            let reqs = all(s);
            assert_eq!(reqs.len() as u64, blocks);
            for r in &reqs {
                let (base, id) = (r.content >> 40, r.content & ((1 << 40) - 1));
                if base != i as u64 + 1 {
                    crossing += 1;
                    // Another job's content is one of its first W / 2 working-set blocks.
                    assert!((1..=w / 2).contains(&id), "{id}");
                } else if id <= w {
                    own_ws.insert((i, id));
                }
            }
        }
        let n = 2.0 * blocks as f64;
        let expect = share * n;
        let sd = (n * share * (1.0 - share)).sqrt();
        assert!(
            (crossing as f64 - expect).abs() <= 4.0 * sd + 0.5,
            "{global:?}: {crossing} crossing writes, expected {expect} +- {sd}"
        );
        if global.is_empty() {
            // Each job draws from its whole working set.
            assert!(own_ws.iter().any(|&(_, id)| id > w / 2));
        } else {
            // Its own run is its first W / 2 blocks.
            assert!(own_ws.iter().all(|&(_, id)| id <= w / 2));
        }
    }
    // With dedupe_mode=repeat it does nothing (as in fio), and says so.
    let text = "[global]\nrw=write\nsize=1m\ndedupe_percentage=50\n[a]\ndedupe_global=1\n";
    let with = load_text(text, 16 * GIB, 9).unwrap();
    let without = load_text(&text.replace("dedupe_global=1\n", ""), 16 * GIB, 9).unwrap();
    for (mut a, mut b) in with.into_iter().zip(without) {
        assert_eq!(all(&mut a), all(&mut b));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("job.fio");
    std::fs::write(&path, text).unwrap();
    let l = load(&file_cfg(path), 16 * GIB, 9, false, None).unwrap();
    assert!(
        l.notes.iter().any(|n| n.contains("dedupe_global")
            && n.contains("only with dedupe_percentage and dedupe_mode=working_set")),
        "{:?}",
        l.notes
    );
}

/// Drive a fio stream closed-loop at `step_ns` intervals, each request completing at once
/// with the latency `lat(now)`; the time the job is done.
fn drive_steady(s: &mut Stream, step_ns: u64, lat: impl Fn(u64) -> u64) -> u64 {
    let mut now = 0u64;
    loop {
        match s.source.next(SimTime(now)).unwrap() {
            Next::Issue(r) => s.source.completed(r.op, lat(now), SimTime(now)),
            Next::Done => return now,
            n => panic!("unexpected {n:?}"),
        }
        now += step_ns;
        assert!(now < 100 * SEC, "never steady");
    }
}

const SEC: u64 = 1_000_000_000;
const US: u64 = 1_000;

/// fio's `steadystate=lat` and `lat_slope` (steadystate.c): each interval's sample is the
/// mean completion latency of the I/Os completed in it; the job ends once the last `ss_dur`
/// of samples meet the criterion. Checked against hand computations on a synthetic series
/// (intervals of 1 s, a window of 3).
#[test]
fn steadystate_on_latency_follows_fio() {
    let job = |ss: &str| {
        load_text(
            &format!(
                "[j]\nrw=randread\nsize=64m\ntime_based=1\nruntime=100s\nsteadystate={ss}\nss_dur=3s\n"
            ),
            16 * GIB,
            1,
        )
        .unwrap()
        .remove(0)
    };
    // Per-interval latencies (us): interval 2 alternates 100 and 102 (mean 101).
    let series = |now: u64| -> u64 {
        let k = now / SEC;
        let odd = (now / (100 * 1_000_000)) % 2 == 1;
        US * match k {
            0 => 200,
            1 => 150,
            2 if odd => 102,
            2 => 100,
            _ => 100,
        }
    };
    // lat:1%: windows [200,150,101] and [150,101,100] deviate far more; [101,100,100] has
    // mean 100.33 and largest deviation 0.67 (0.66%): steady once interval 4 closes, at 5 s.
    let mut s = job("lat:1%");
    assert!(s.source.wants_completions());
    assert_eq!(drive_steady(&mut s, 100_000_000, series), 5 * SEC);
    // lat:0.5%: 0.66% is too much; [100,100,100] at 6 s is steady.
    assert_eq!(
        drive_steady(&mut job("lat:0.5%"), 100_000_000, series),
        6 * SEC
    );
    // An absolute limit in fio's time units: 1us allows the deviation of 0.67 us.
    assert_eq!(
        drive_steady(&mut job("lat:1us"), 100_000_000, series),
        5 * SEC
    );
    // lat_slope:5%: on [120,110,100] the slope is -10 (9.1% of 110); on [110,100,100] it is
    // -5 (4.8% of 103.3): steady once interval 5 closes, at 6 s.
    let slope = |now: u64| -> u64 {
        US * match now / SEC {
            0 => 300,
            1 => 200,
            2 => 120,
            3 => 110,
            _ => 100,
        }
    };
    assert_eq!(
        drive_steady(&mut job("lat_slope:5%"), 100_000_000, slope),
        6 * SEC
    );
    assert_eq!(
        drive_steady(&mut job("lat_slope:4%"), 100_000_000, slope),
        7 * SEC
    );
    // Without latency steady state the source asks for no completions.
    assert!(!job("iops:1%").source.wants_completions());
}

/// Run a fio stream against one FIFO server taking `service_ns` per request (a device
/// whose latency at depth d is d x service), closed loop at the job's `iodepth`, honouring
/// the source's drains; the in-flight depth at each issue, and the end time.
fn drive_fifo(s: &mut Stream, depth: u32, service_ns: u64) -> Result<(Vec<(u64, usize)>, u64)> {
    let mut now = 0u64;
    let mut free = 0u64;
    let mut inflight: std::collections::VecDeque<(u64, u64)> = Default::default();
    let mut issued = Vec::new();
    let mut done = false;
    // The count a drain waits for: like the host, ask again only once it is reached.
    let mut drain: Option<u32> = None;
    loop {
        if drain.is_some_and(|n| inflight.len() as u32 <= n) {
            drain = None;
        }
        while !done && drain.is_none() && (inflight.len() as u32) < depth {
            match s.source.next(SimTime(now))? {
                Next::Issue(_) => {
                    let start = free.max(now);
                    free = start + service_ns;
                    inflight.push_back((free, free - now));
                    issued.push((now, inflight.len()));
                }
                Next::Drain(n) if inflight.len() as u32 > n => drain = Some(n),
                Next::Drain(_) => {}
                Next::Done => done = true,
                Next::Wait(_) | Next::IssueAsync(_) => panic!("unexpected"),
            }
        }
        let Some((t, lat)) = inflight.pop_front() else {
            return Ok((issued, now));
        };
        now = t;
        s.source.completed(Op::Read, lat, SimTime(now));
    }
}

/// fio's `latency_target` search (target.c): from depth 1, double while a window meets the
/// target, bisect on a miss, run one more window at the settled depth and end. On a FIFO
/// server of 100 us per request the latency at depth d is d x 100 us, so with
/// `latency_percentile=95` (a window is judged whole; only the first few I/Os after a depth
/// change are faster) the search settles on floor(target / 100 us), at most `iodepth`:
/// 450 us: 1, 2, 4, 8 (miss), 6 (miss), 5 (miss), 4 (meets; (4 + 5) / 2 = 4 again: a final
/// window, then done).
#[test]
fn latency_target_finds_the_depth_a_fifo_server_allows() {
    let job = |target: &str, extra: &str| {
        load_text(
            &format!(
                "[j]\nrw=randread\nsize=64m\niodepth=16\ntime_based=1\nruntime=10s\n\
                 latency_target={target}\nlatency_window=10ms\nlatency_percentile=95\n{extra}"
            ),
            16 * GIB,
            1,
        )
        .unwrap()
        .remove(0)
    };
    for (target, depth) in [("250", 2), ("450us", 4), ("1ms", 10), ("5ms", 16)] {
        let mut s = job(target, "");
        assert!(s.source.wants_completions());
        let (issued, end) = drive_fifo(&mut s, 16, 100 * US).unwrap();
        // The search ends the job long before its runtime.
        assert!(end < SEC, "{target}: ran until {end}");
        // The last window runs at the settled depth.
        let last: Vec<usize> = issued
            .iter()
            .filter(|(t, _)| *t + 8_000_000 > end)
            .map(|&(_, d)| d)
            .collect();
        assert_eq!(last.iter().max(), Some(&depth), "{target}");
        assert!(issued.iter().all(|&(_, d)| d <= 16));
    }
    // latency_run: the search keeps adjusting until the runtime ends.
    let (_, end) = drive_fifo(&mut job("450", "latency_run=1\n"), 16, 100 * US).unwrap();
    assert!(end >= 10 * SEC, "{end}");
    // At latency_percentile=100 every I/O over the target steps down at once, those that
    // complete while the job drains too (fio's recursion through io_u_quiesce): on this
    // server the overshoot of 1, 2, 4 to 8 at 450 us reaches depth 1, and a miss there
    // fails the job, as in fio.
    let e = drive_fifo(&mut job("450", "latency_percentile=100\n"), 16, 100 * US)
        .expect_err("an error")
        .to_string();
    assert!(e.contains("at queue depth 1"), "{e}");
    // A target no depth meets: fio fails the job at depth 1.
    let e = drive_fifo(&mut job("50", "latency_percentile=100\n"), 16, 100 * US)
        .expect_err("an error")
        .to_string();
    assert!(
        e.contains("exceeds latency_target=50000 ns at queue depth 1"),
        "{e}"
    );
    // Companions without the target, and bad values, are errors naming the option.
    for (text, msg) in [
        ("latency_window=10ms\n", "needs `latency_target`"),
        (
            "latency_target=0\n",
            "latency_target must be a positive time",
        ),
        (
            "latency_target=1ms\nlatency_percentile=0\n",
            "expected a percentage in (0, 100]",
        ),
    ] {
        let e = load_text(&format!("[j]\nrw=read\nsize=1m\n{text}"), 16 * GIB, 1)
            .err()
            .expect("an error")
            .to_string();
        assert!(e.contains(msg), "{text}: {e}");
    }
}

/// `buffer_pattern`: every write of the job starts with the pattern's first block (fio fills
/// each buffer from the pattern's start), so the ids of the requests' blocks are the
/// pattern's phases; other jobs keep their own fresh ids. Values are parsed as fio 3.33
/// writes them (`0xabc` is `0a bc`, as `xxd` of fio's output file shows).
#[test]
fn buffer_pattern_gives_every_write_the_patterns_blocks() {
    use crate::content::{nth_id, Pattern};
    let text = "[p]\nrw=randwrite\nbs=16k\nsize=256k\nbuffer_pattern=0xabc\n\
                [q]\nrw=write\nbs=4k\nsize=64k\nbuffer_pattern=\"ab\"0x01-12\nstonewall\n\
                [plain]\nrw=write\nbs=4k\nsize=64k\nstonewall\n";
    let mut st = load_text(text, GIB, 1).unwrap();
    let two = Pattern::new(&[0x0a, 0xbc]);
    assert_eq!(st[0].content.pattern.as_ref(), Some(&two));
    let w = take(&mut st[0], 100);
    assert_eq!(w.len(), 16);
    assert!(w.iter().all(|r| r.content == two.first_id()));
    // A 2-byte pattern divides 4 KiB: every block of every write is the same.
    assert!((0..4).all(|i| nth_id(two.first_id(), i) == two.first_id()));
    let seven = Pattern::new(b"ab\x01\xf4\xff\xff\xff");
    assert_eq!(st[1].content.pattern.as_ref(), Some(&seven));
    assert_eq!(seven.period(), 7);
    assert!(take(&mut st[1], 100)
        .iter()
        .all(|r| r.content == seven.first_id()));
    assert_eq!(st[2].content.pattern, None);
    let plain: BTreeSet<u64> = take(&mut st[2], 100).iter().map(|r| r.content).collect();
    assert_eq!(plain.len(), 16, "a job without a pattern writes fresh ids");
    assert!(!plain
        .iter()
        .any(|&c| crate::content::pattern::is_pattern(c)));
}

/// `verify_pattern` sets `verify` when it is not given (fio 3.33 options.c: VERIFY_PATTERN,
/// which writes a 40-byte verify header into every block, as `xxd` of fio's blocks shows):
/// the job writes fresh content with the pattern's share of each block compressible and
/// reads every block back; `verify=pattern` writes the pattern alone; with `verify=0` the
/// pattern is not written (listed as ignored), and `buffer_pattern` is what the job writes.
#[test]
fn verify_pattern_writes_the_pattern_and_verifies() {
    use crate::content::Pattern;
    let p = Pattern::new(&[0xfe, 0xed, 0xfa, 0xce]);
    for (verify, pattern) in [("", None), ("verify=pattern\n", Some(p.clone()))] {
        let mut st = load_text(
            &format!("[v]\nrw=write\nbs=4k\nsize=64k\n{verify}verify_pattern=0xfeedface\n"),
            GIB,
            1,
        )
        .unwrap();
        assert_eq!(st[0].content.pattern, pattern, "{verify}");
        // (4096 - 40) / 4096 of a block is the pattern: 99%.
        let share = pattern.is_none().then_some(99);
        assert_eq!(st[0].content.compress_percentage, share, "{verify}");
        let r = take(&mut st[0], 100);
        let (w, rd): (Vec<&Request>, Vec<&Request>) = r.iter().partition(|r| r.op == Op::Write);
        assert_eq!((w.len(), rd.len()), (16, 16));
        let ids: BTreeSet<u64> = w.iter().map(|r| r.content).collect();
        match &pattern {
            Some(p) => assert_eq!(ids, BTreeSet::from([p.first_id()])),
            None => assert_eq!(ids.len(), 16, "every block differs"),
        }
    }
    // Both given, verifying: the verify pattern is written (populate_verify_io_u).
    let mut st = load_text(
        "[v]\nrw=write\nbs=4k\nsize=16k\nverify=pattern\nverify_pattern=0x11\nbuffer_pattern=0x22\n",
        GIB,
        1,
    )
    .unwrap();
    assert_eq!(st[0].content.pattern, Some(Pattern::new(&[0x11])));
    assert!(take(&mut st[0], 4)
        .iter()
        .all(|r| r.content == Pattern::new(&[0x11]).first_id()));
    let mut st = load_text(
        "[v]\nrw=write\nbs=4k\nsize=16k\nverify=0\nverify_pattern=0x11\nbuffer_pattern=0x22\n",
        GIB,
        1,
    )
    .unwrap();
    assert_eq!(st[0].content.pattern, Some(Pattern::new(&[0x22])));
    assert!(take(&mut st[0], 100).iter().all(|r| r.op == Op::Write));
}

/// `zero_buffers`: the job's writes are zeros (the one-byte pattern 0x00) unless
/// `buffer_pattern` or a compress/dedupe share decides their data first (fio's
/// `__fill_io_buffer` order), each noted as ignored then.
#[test]
fn zero_buffers_writes_zeros_after_patterns_and_compression() {
    use crate::content::Pattern;
    let zero = Pattern::new(&[0]);
    let mut st = load_text("[z]\nrw=write\nbs=4k\nsize=16k\nzero_buffers\n", GIB, 1).unwrap();
    assert_eq!(st[0].content.pattern, Some(zero.clone()));
    assert!(take(&mut st[0], 4)
        .iter()
        .all(|r| r.content == zero.first_id()));
    let st = load_text(
        "[z]\nrw=write\nbs=4k\nsize=16k\nzero_buffers=1\nbuffer_pattern=0x22\n",
        GIB,
        1,
    )
    .unwrap();
    assert_eq!(st[0].content.pattern, Some(Pattern::new(&[0x22])));
    let st = load_text(
        "[z]\nrw=write\nbs=4k\nsize=16k\nzero_buffers=1\nbuffer_compress_percentage=50\n",
        GIB,
        1,
    )
    .unwrap();
    assert_eq!(st[0].content.pattern, None);
    let st = load_text("[z]\nrw=write\nbs=4k\nsize=16k\nzero_buffers=0\n", GIB, 1).unwrap();
    assert_eq!(st[0].content.pattern, None);
}

/// What a layout writes is the extending job's `fill_io_buffer` (fio's `extend_file` runs
/// in that job's set-up): its `buffer_pattern` in pieces of its largest write block size,
/// never its `verify_pattern`, zeros with `zero_buffers`, unique content otherwise. A
/// reading job's `buffer_pattern` is then used, not noted as ignored.
#[test]
fn a_layout_writes_what_the_extending_jobs_buffers_hold() {
    use crate::content::Pattern;
    use crate::workload::LayoutFill;
    let fills = |text: &str| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("job.fio");
        std::fs::write(&path, text).unwrap();
        let l = load(&file_cfg(path), GIB, 1, false, None).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            !l.notes
                .iter()
                .any(|n| n.contains("buffer_pattern") || n.contains("zero_buffers")),
            "{:?}",
            l.notes
        );
        l.layout.into_iter().map(|(_, _, f)| f).collect::<Vec<_>>()
    };
    let pat = |b: &[u8], piece: u64| LayoutFill::Pattern {
        pattern: Pattern::new(b),
        piece,
    };
    // Two readers of one file: the second needs more and lays it out again with its own data.
    assert_eq!(
        fills(
            "[global]\nfilename=data\nrw=read\nbs=4k\n[a]\nsize=256k\nbuffer_pattern=0x11\n\
             [b]\nsize=512k\nbs=4k,64k\nbuffer_pattern=0x22\nverify_pattern=0x33\n"
        ),
        vec![pat(&[0x11], 4096), pat(&[0x22], 65536)]
    );
    assert_eq!(
        fills("[a]\nrw=randread\nsize=64k\nbs=8k\nzero_buffers\n"),
        vec![pat(&[0], 8192)]
    );
    // Otherwise what the job's own writes hold: its stream's content (clone 1 of the second
    // job is the run's fourth stream), in pieces of its largest write size.
    assert_eq!(
        fills("[a]\nrw=read\nsize=64k\nverify_pattern=0x33\nverify=0\n"),
        vec![LayoutFill::Stream {
            stream: 0,
            piece: 4096
        }]
    );
    // buffer_compress_percentage comes before the pattern in fill_io_buffer.
    assert_eq!(
        fills("[a]\nrw=read\nsize=64k\nbuffer_pattern=0x11\nbuffer_compress_percentage=50\n"),
        vec![LayoutFill::Stream {
            stream: 0,
            piece: 4096
        }]
    );
    assert_eq!(
        fills(
            "[w]\nrw=write\nsize=64k\nnumjobs=2\n[r]\nrw=randrw\nbs=4k,16k\nsize=64k\n\
             numjobs=2\nbuffer_compress_percentage=50\n"
        ),
        vec![
            LayoutFill::Stream {
                stream: 2,
                piece: 16384
            },
            LayoutFill::Stream {
                stream: 3,
                piece: 16384
            }
        ]
    );
}

#[test]
fn bad_patterns_name_the_option_and_line() {
    let cases: &[(&str, u64, &str)] = &[
        (
            "[j]\nrw=write\nbuffer_pattern=\"abc\n",
            3,
            "unterminated quoted string",
        ),
        (
            "[j]\nrw=write\n\nverify_pattern=0xZZ\n",
            4,
            "expected hex digits after `0x`",
        ),
        (
            "[j]\nbuffer_pattern=12345678901\n",
            2,
            "outside [-2147483648, 2147483647]",
        ),
        ("[j]\nbuffer_pattern='data.bin'\n", 2, "from a file"),
        ("[j]\nbuffer_pattern=%o\n", 2, "verify_pattern format only"),
        ("[j]\nrw=write\nverify_pattern=\"a\"%o\n", 3, "%o"),
        (
            "[j]\nrw=write\nverify=crc32c\nverify_pattern=0xff\nverify_interval=44\n",
            5,
            "44 bytes of fio's verify header and checksum",
        ),
        ("[j]\nbuffer_pattern=\n", 2, "needs a value"),
    ];
    for (text, want_line, want) in cases {
        match load_text(text, GIB, 1) {
            Err(Error::JobFile { line, msg, .. }) => {
                assert_eq!(line, *want_line, "{text:?}: {msg}");
                assert!(msg.contains(want), "{text:?}: `{msg}` lacks `{want}`");
                assert!(
                    msg.contains("_pattern"),
                    "{text:?}: `{msg}` names no option"
                );
            }
            Err(e) => panic!("{text:?}: expected Error::JobFile, got {e}"),
            Ok(_) => panic!("{text:?}: expected Error::JobFile, got Ok"),
        }
    }
}

/// Direction and block (4 KiB units) of each request, in order.
fn ops(r: &[Request]) -> Vec<(Op, u64)> {
    r.iter().map(|r| (r.op, r.offset / 4096)).collect()
}

/// The stream fio's rule gives for a verifying job whose loop `k` issues `loop_ios[k]`
/// (fio's backend.c `thread_main`: `do_io` then `do_verify` each time round the
/// `keep_running` loop): each loop's I/O, then its writes read back, in the order written
/// when the job has a random map (`list`), else by offset with each block once.
fn fio_verify_rule(loop_ios: &[Vec<(Op, u64)>], list: bool) -> Vec<(Op, u64)> {
    let mut out = Vec::new();
    for ios in loop_ios {
        out.extend_from_slice(ios);
        let mut w: Vec<u64> = ios
            .iter()
            .filter(|(op, _)| *op == Op::Write)
            .map(|&(_, b)| b)
            .collect();
        if !list {
            w.sort_unstable();
            w.dedup();
        }
        out.extend(w.into_iter().map(|b| (Op::Read, b)));
    }
    out
}

#[test]
fn verify_runs_after_every_loop_as_fio_does() {
    for loops in 1..=3usize {
        // Sequential: exactly blocks 0..16 written, then read, once per loop.
        let job = format!("[v]\nrw=write\nbs=4k\nsize=64k\nloops={loops}\nverify=crc32c\n");
        let mut st = load_text(&job, GIB, 1).unwrap();
        let got = ops(&take(&mut st[0], 1000));
        let one: Vec<(Op, u64)> = (0..16).map(|b| (Op::Write, b)).collect();
        let want = fio_verify_rule(&vec![one; loops], true);
        assert_eq!(got, want, "rw=write loops={loops}");

        // Random with the random map: each loop writes every block once in some order,
        // then reads them back in that order.
        let job = format!("[v]\nrw=randwrite\nbs=4k\nsize=64k\nloops={loops}\nverify=crc32c\n");
        let mut st = load_text(&job, GIB, 1).unwrap();
        let got = ops(&take(&mut st[0], 1000));
        assert_eq!(got.len(), 32 * loops, "rw=randwrite loops={loops}");
        let per: Vec<Vec<(Op, u64)>> = got.chunks(32).map(|c| c[..16].to_vec()).collect();
        for ios in &per {
            let mut b: Vec<u64> = ios.iter().map(|x| x.1).collect();
            b.sort_unstable();
            assert_eq!(
                b,
                (0..16).collect::<Vec<_>>(),
                "each loop writes every block once"
            );
            assert!(ios.iter().all(|x| x.0 == Op::Write));
        }
        assert_eq!(
            got,
            fio_verify_rule(&per, true),
            "rw=randwrite loops={loops}"
        );

        // randrw: the loop's 16 I/Os mix reads and writes; the verify pass reads the
        // writes, in the order written.
        let job = format!("[v]\nrw=randrw\nbs=4k\nsize=64k\nloops={loops}\nverify=crc32c\n");
        let mut st = load_text(&job, GIB, 1).unwrap();
        let got = ops(&take(&mut st[0], 1000));
        let mut per = Vec::new();
        let mut i = 0;
        for _ in 0..loops {
            let ios = got[i..i + 16].to_vec();
            let writes = ios.iter().filter(|x| x.0 == Op::Write).count();
            assert!(writes > 0 && writes < 16, "a mix: {writes} writes");
            i += 16 + writes;
            per.push(ios);
        }
        assert_eq!(got, fio_verify_rule(&per, true), "rw=randrw loops={loops}");

        // norandommap: blocks may repeat; the verify pass reads each written block once,
        // by offset (fio's history tree drops the older of two overlapping writes).
        let job = format!(
            "[v]\nrw=randwrite\nbs=4k\nsize=64k\nloops={loops}\nverify=crc32c\nnorandommap\n"
        );
        let mut st = load_text(&job, GIB, 1).unwrap();
        let got = ops(&take(&mut st[0], 1000));
        let mut per = Vec::new();
        let mut i = 0;
        for _ in 0..loops {
            let ios = got[i..i + 16].to_vec();
            assert!(ios.iter().all(|x| x.0 == Op::Write));
            let mut b: Vec<u64> = ios.iter().map(|x| x.1).collect();
            b.sort_unstable();
            b.dedup();
            i += 16 + b.len();
            per.push(ios);
        }
        assert_eq!(
            got,
            fio_verify_rule(&per, false),
            "norandommap loops={loops}"
        );

        // random_generator=lfsr: fio has no random map with it, so it reads back by
        // offset (its history tree), whatever order the blocks were written in.
        let job = format!(
            "[v]\nrw=randwrite\nbs=4k\nsize=64k\nloops={loops}\nverify=crc32c\nrandom_generator=lfsr\n"
        );
        let mut st = load_text(&job, GIB, 1).unwrap();
        let got = ops(&take(&mut st[0], 1000));
        assert_eq!(got.len(), 32 * loops);
        let per: Vec<Vec<(Op, u64)>> = got.chunks(32).map(|c| c[..16].to_vec()).collect();
        assert_eq!(got, fio_verify_rule(&per, false), "lfsr loops={loops}");

        // do_verify=0: the writes only.
        let job =
            format!("[v]\nrw=write\nbs=4k\nsize=64k\nloops={loops}\nverify=crc32c\ndo_verify=0\n");
        let mut st = load_text(&job, GIB, 1).unwrap();
        let got = ops(&take(&mut st[0], 1000));
        let want: Vec<(Op, u64)> = (0..loops)
            .flat_map(|_| (0..16).map(|b| (Op::Write, b)))
            .collect();
        assert_eq!(got, want, "do_verify=0 loops={loops}");
    }
}

/// fio's `verify_backlog=N` reads back the oldest writes, `verify_backlog_batch` of them,
/// whenever N are waiting; what is left when a loop ends is read in that loop's verify
/// pass, before the next loop writes.
#[test]
fn verify_backlog_drains_at_every_loop_end() {
    for loops in 1..=3usize {
        for (seq, batch) in [(true, 4u64), (false, 2)] {
            let rw = if seq { "write" } else { "randwrite" };
            let job = format!(
                "[v]\nrw={rw}\nbs=4k\nsize=64k\nloops={loops}\nverify=crc32c\nverify_backlog=4\nverify_backlog_batch={batch}\n"
            );
            let mut st = load_text(&job, GIB, 1).unwrap();
            let got = ops(&take(&mut st[0], 1000));
            let writes: Vec<u64> = got
                .iter()
                .filter(|x| x.0 == Op::Write)
                .map(|x| x.1)
                .collect();
            assert_eq!(writes.len(), 16 * loops);
            // The rule, from the writes alone.
            let mut want = Vec::new();
            for w in writes.chunks(16) {
                let mut pending = std::collections::VecDeque::new();
                for &b in w {
                    want.push((Op::Write, b));
                    pending.push_back(b);
                    if pending.len() >= 4 {
                        for _ in 0..batch {
                            want.push((Op::Read, pending.pop_front().unwrap()));
                        }
                    }
                }
                want.extend(pending.drain(..).map(|b| (Op::Read, b)));
            }
            assert_eq!(got, want, "rw={rw} batch={batch} loops={loops}");
        }
    }
}

/// fio's verify rules for a job without a random map, written out plainly from fio 3.33's
/// source: `log_io_piece` (iolog.c) sorts each write into a tree by offset, dropping every
/// older write it overlaps whole; `check_get_verify` (io_u.c) starts a batch of
/// `verify_backlog_batch` reads before an I/O when the tree holds a non-zero multiple of
/// `verify_backlog` writes and the last I/O was not a read; `get_next_verify` (verify.c)
/// takes the tree's first write, read with its own length; the loop's verify pass reads what
/// is left. `writes` are one loop's writes (offset, length); the stream is (op, offset,
/// length).
fn fio_tree_rule(writes: &[(u64, u64)], backlog: u64, batch: u64) -> Vec<(Op, u64, u64)> {
    let mut tree: Vec<(u64, u64)> = Vec::new();
    let (mut out, mut pending, mut last_read) = (Vec::new(), 0u64, false);
    let pop = |tree: &mut Vec<(u64, u64)>| {
        tree.sort_unstable();
        (!tree.is_empty()).then(|| tree.remove(0))
    };
    let mut ws = writes.iter().peekable();
    while ws.peek().is_some() {
        let n = tree.len() as u64;
        if backlog > 0 && pending == 0 && n > 0 && n.is_multiple_of(backlog) && !last_read {
            pending = batch;
        }
        if pending > 0 {
            if let Some((o, l)) = pop(&mut tree) {
                pending -= 1;
                out.push((Op::Read, o, l));
                last_read = true;
                continue;
            }
        }
        let &(o, l) = ws.next().unwrap();
        tree.retain(|&(to, tl)| !(to < o + l && o < to + tl));
        tree.push((o, l));
        out.push((Op::Write, o, l));
        last_read = false;
    }
    while let Some((o, l)) = pop(&mut tree) {
        out.push((Op::Read, o, l));
    }
    out
}

/// With `norandommap` (no random map: fio's history tree), a block written twice is read
/// back once, and `verify_backlog` reads the lowest offsets first, counting the tree's
/// writes after overlaps are dropped. fio 3.33's iolog of `rw=randwrite bs=4k size=64k
/// norandommap verify=crc32c verify_backlog=4 verify_backlog_batch=2` (ioengine=null,
/// offsets in 4 KiB blocks): W0 W11 W13 W7 R0 R7 W6 W13 W6 W5 R5 R6 W14 W1 R1 R11 W13 W10
/// W14 W3 R3 R10 W6 W8 R6 R8 R13 R14, which this rule gives from its writes.
#[test]
fn verify_backlog_without_a_random_map_reads_fios_tree() {
    let w = |bs: &[u64]| -> Vec<(u64, u64)> { bs.iter().map(|&b| (b * 4096, 4096)).collect() };
    let fio_writes = w(&[0, 11, 13, 7, 6, 13, 6, 5, 14, 1, 13, 10, 14, 3, 6, 8]);
    let fio_reads: Vec<u64> = vec![0, 7, 5, 6, 1, 11, 3, 10, 6, 8, 13, 14];
    let rule = fio_tree_rule(&fio_writes, 4, 2);
    let reads: Vec<u64> = rule
        .iter()
        .filter(|x| x.0 == Op::Read)
        .map(|x| x.1 / 4096)
        .collect();
    assert_eq!(reads, fio_reads, "the rule reproduces fio's own iolog");
    assert_eq!(rule.len(), 28);

    for (job, backlog, batch) in [
        (
            "rw=randwrite\nbs=4k\nnorandommap\nverify_backlog=4\nverify_backlog_batch=2",
            4,
            2,
        ),
        ("rw=randwrite\nbs=4k\nnorandommap\nverify_backlog=4", 4, 4),
        (
            "rw=randwrite\nbsrange=4k-16k\nnorandommap\nverify_backlog=3",
            3,
            3,
        ),
        ("rw=randwrite\nbs=4k\nnorandommap", 0, 0),
        (
            "rw=randwrite\nbs=4k\nrandom_generator=lfsr\nverify_backlog=5",
            5,
            5,
        ),
        (
            "rw=write\nbsrange=4k-16k\nverify_backlog=2\nverify_backlog_batch=1",
            2,
            1,
        ),
        ("rw=write\nbsrange=4k-16k", 0, 0),
    ] {
        for seed in 1..=5 {
            let text = format!("[v]\n{job}\nsize=256k\nverify=crc32c\nrandseed={seed}\n");
            let got = stream_kib(&text, GIB, seed);
            let writes: Vec<(u64, u64)> = got
                .iter()
                .filter(|x| x.0 == Op::Write)
                .map(|x| (x.1 << 10, x.2 << 10))
                .collect();
            let want: Vec<(Op, u64, u64)> = fio_tree_rule(&writes, backlog, batch)
                .into_iter()
                .map(|(op, o, l)| (op, o >> 10, l >> 10))
                .collect();
            assert_eq!(got, want, "{job} seed {seed}");
        }
    }
}

/// fio 3.33's rounds for a sequential writer of `size` blocks, written out from backend.c:
/// `thread_main` calls `do_io` (then `do_verify`) while `keep_running`, which is true for
/// the first `loops` rounds and after that, only with `io_size`, while the bytes read and
/// written (verify reads included) fall short of it. A round starts at the file's start and
/// issues at most `size` bytes, and no more once the job's writes reach `io_size` times
/// `loops` (`io_issue_bytes_exceeded`). Blocks in, (op, block) out.
fn fio_rounds_reference(
    size: u64,
    io_size: Option<u64>,
    loops: u64,
    verify: bool,
) -> Vec<(Op, u64)> {
    let limit = io_size.unwrap_or(size);
    let (mut out, mut issued, mut io_bytes, mut rounds) = (Vec::new(), 0, 0, 0);
    while rounds < 1000 {
        if rounds >= loops && !(io_size.is_some() && io_bytes < limit) {
            break;
        }
        rounds += 1;
        let mut pos = 0;
        while pos < size && issued < limit * loops {
            out.push((Op::Write, pos));
            pos += 1;
            issued += 1;
        }
        io_bytes += pos;
        if verify {
            out.extend((0..pos).map(|b| (Op::Read, b)));
            io_bytes += pos;
        }
    }
    out
}

/// `io_size` beside `size` and `loops`, as fio runs them. The number of I/Os fio 3.33 issued
/// (ioengine=null, write_iolog) for `rw=write bs=4k size=64k` with each (io_size, loops,
/// verify): its iologs are 16 writes per round from block 0, each round's writes read back
/// after it when verifying.
#[test]
fn io_size_and_loops_run_in_fios_rounds() {
    for (io_kib, loops, verify, fio_ios) in [
        (96, 1, false, 24),
        (96, 2, false, 32),
        (128, 2, false, 32),
        (32, 3, false, 24),
        (160, 2, false, 48),
        (40, 2, false, 20),
        (200, 1, false, 50),
        (96, 1, true, 32),
        (96, 2, true, 64),
    ] {
        let want = fio_rounds_reference(16, Some(io_kib / 4), loops, verify);
        assert_eq!(want.len(), fio_ios, "the rule gives fio's count");
        let v = if verify { "verify=crc32c\n" } else { "" };
        let job = format!("[j]\nrw=write\nbs=4k\nsize=64k\nio_size={io_kib}k\nloops={loops}\n{v}");
        let mut st = load_text(&job, GIB, 1).unwrap();
        let got = ops(&take(&mut st[0], 1000));
        assert_eq!(got, want, "io_size={io_kib}k loops={loops} verify={verify}");
    }
    // `size` over `filesize` without `io_size`: one pass over the file (fio: 16 writes, and
    // with verify 16 reads after them), as the file is done and keep_running is false.
    for (v, n) in [("", 16), ("verify=crc32c\n", 32)] {
        let job = format!("[j]\nrw=write\nbs=4k\nsize=128k\nfilesize=64k\n{v}");
        let mut st = load_text(&job, GIB, 1).unwrap();
        let got = ops(&take(&mut st[0], 1000));
        assert_eq!(got, fio_rounds_reference(16, None, 1, !v.is_empty()));
        assert_eq!(got.len(), n);
    }
    // A random writer with its random map: each round writes every block once, in some
    // order, and (verifying) reads them back in that order (fio: 64 I/Os for io_size=96k
    // loops=2).
    let mut st = load_text(
        "[j]\nrw=randwrite\nbs=4k\nsize=64k\nio_size=96k\nloops=2\nverify=crc32c\n",
        GIB,
        1,
    )
    .unwrap();
    let got = ops(&take(&mut st[0], 1000));
    assert_eq!(got.len(), 64);
    for round in got.chunks(32) {
        let mut w: Vec<u64> = round[..16].iter().map(|x| x.1).collect();
        assert!(round[..16].iter().all(|x| x.0 == Op::Write));
        assert!(round[16..].iter().all(|x| x.0 == Op::Read));
        assert_eq!(round[16..].iter().map(|x| x.1).collect::<Vec<_>>(), w);
        w.sort_unstable();
        assert_eq!(w, (0..16).collect::<Vec<_>>());
    }
    // norandommap: a round writes max(size, io_size) (fio: 48 writes for io_size=96k
    // loops=2).
    let mut st = load_text(
        "[j]\nrw=randwrite\nbs=4k\nsize=64k\nio_size=96k\nloops=2\nnorandommap\n",
        GIB,
        1,
    )
    .unwrap();
    assert_eq!(take(&mut st[0], 1000).len(), 48);
}

/// fio's get_start_offset (filesetup.c): a percentage `offset` is a share of the file's
/// `real_file_size`, which for a file not yet there is `size / nrfiles`, aligned up to
/// `offset_align` (else the smallest block size); a byte offset is left as written. Each
/// first offset below is what fio 3.33's iolog shows (ioengine=null, bs=4k).
#[test]
fn percentage_offsets_follow_fios_start_offset_and_offset_align() {
    // fio's rule, written out: ceil(real_size * pct / 100 / align) * align.
    let rule = |real: u64, pct: u64, align: u64| (real * pct).div_ceil(100 * align) * align;
    for (job, fio_first_kib) in [
        ("size=1m\noffset=10%\noffset_align=24k", 120),
        ("size=1m\noffset=10%", 104),
        ("size=16k\noffset=10%\nfilesize=1m", 4),
        ("size=16k\noffset=10%\noffset_align=24k\nfilesize=1m", 24),
        ("size=64k\noffset=5k\noffset_align=2k\nfilesize=128k", 5),
    ] {
        let got = stream_kib(&format!("[j]\nrw=write\nbs=4k\n{job}\n"), GIB, 1);
        assert_eq!(got[0].1, fio_first_kib, "{job}");
    }
    assert_eq!(rule(1 << 20, 10, 24 << 10), 120 << 10);
    assert_eq!(rule(1 << 20, 10, 4 << 10), 104 << 10);
    assert_eq!(rule(16 << 10, 10, 4 << 10), 4 << 10);
    assert_eq!(rule(16 << 10, 10, 24 << 10), 24 << 10);
}

/// `random_generator=lfsr`: each pass visits every block once, and every pass in the same
/// order, as fio 3.33's iolog of `rw=randwrite bs=4k size=64k io_size=128k` shows (with or
/// without `norandommap`: 15 11 9 14 3 8 0 4 6 7 10 1 12 2 5 13, twice). The order itself
/// is checked against fio's iologs in `iolog_tests::lfsr_order_is_fios`.
#[test]
fn lfsr_passes_repeat_one_order() {
    for extra in ["", "norandommap\n"] {
        let got = stream_kib(
            &format!(
                "[j]\nrw=randwrite\nbs=4k\nsize=64k\nio_size=128k\nrandom_generator=lfsr\n{extra}"
            ),
            GIB,
            1,
        );
        let blocks: Vec<u64> = got.iter().map(|x| x.1 / 4).collect();
        assert_eq!(blocks.len(), 32);
        let mut first = blocks[..16].to_vec();
        assert_eq!(blocks[16..], first[..], "the second pass repeats the first");
        first.sort_unstable();
        assert_eq!(first, (0..16).collect::<Vec<_>>());
    }
}

/// fio terminates a job whose runtime ends before its loops are done: it leaves
/// thread_main's loop before `do_verify`, so nothing is read back.
#[test]
fn a_job_cut_by_its_runtime_does_not_verify() {
    let mut st = load_text(
        "[v]\nrw=write\nbs=4k\nsize=64k\ntime_based\nruntime=1ms\nverify=crc32c\nrate_iops=100000\n",
        GIB,
        1,
    )
    .unwrap();
    let got = take(&mut st[0], 10_000);
    assert!(!got.is_empty());
    assert!(got.iter().all(|r| r.op == Op::Write), "no verify reads");
}

/// `buffer_pattern` beside `buffer_compress_percentage` or `dedupe_percentage` (fio's
/// `fill_io_buffer` gives those the buffer first): with a compressible share fio fills it with
/// the pattern, and the job's writes are the stream's generated content at that share; with
/// dedupe alone no byte is the pattern's, so it is listed as ignored.
#[test]
fn buffer_pattern_beside_compression_or_dedupe_writes_generated_content() {
    let l = |text: &str| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("job.fio");
        std::fs::write(&path, text).unwrap();
        load(&file_cfg(path), GIB, 1, false, None).unwrap_or_else(|e| panic!("{e}"))
    };
    let c = l("[j]\nrw=write\nsize=64k\nbuffer_pattern=0xab\nbuffer_compress_percentage=50\n");
    let h = &c.streams[0].content;
    assert_eq!((h.pattern.clone(), h.compress_percentage), (None, Some(50)));
    assert!(
        !c.notes.iter().any(|n| n.contains("buffer_pattern")),
        "{:?}",
        c.notes
    );
    let d = l("[j]\nrw=write\nsize=64k\nbuffer_pattern=0xab\ndedupe_percentage=50\n");
    let h = &d.streams[0].content;
    assert_eq!((h.pattern.clone(), h.dedupe_percentage), (None, 50));
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("buffer_pattern") && n.contains("random bytes only")),
        "{:?}",
        d.notes
    );
}

/// The replayed and packed history lists ([`history::HistList`]) against fio's plain list
/// as the reference: random verifying jobs (fixed blocks, bssplit, bsrange, randrw, randtrimwrite,
/// `verify_backlog` batches, loops, several files, clones, `time_based` passes that wrap with
/// writes pending) give the same request stream either way.
#[test]
fn the_compact_verify_lists_issue_what_the_plain_list_does() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(34);
    let collect = |job: &str, plain: bool| -> Vec<(Op, u64, u64, u64)> {
        gen::FORCE_QUEUE.with(|c| c.set(plain));
        let mut streams = load_text(job, GIB, 5).unwrap();
        gen::FORCE_QUEUE.with(|c| c.set(false));
        let mut out = Vec::new();
        for st in &mut streams {
            out.extend(
                take(st, 30_000)
                    .iter()
                    .map(|r| (r.op, r.offset, r.len, r.content)),
            );
        }
        out
    };
    let mut reads_back = 0;
    for case in 0..120 {
        let rw = ["randwrite", "randrw", "randtrimwrite"][rng.random_range(0..3)];
        let bs = match rng.random_range(0..5) {
            0 => "bssplit=4k/50:16k/50".to_string(),
            1 => "bsrange=4k-16k".to_string(),
            _ => format!("bs={}k", [4, 8][rng.random_range(0..2)]),
        };
        let mut job = format!(
            "[v]\nrw={rw}\n{bs}\nsize={}k\nverify=crc32c\nloops={}\nnrfiles={}\nnumjobs={}\n",
            64 * rng.random_range(1..5),
            rng.random_range(1..4),
            rng.random_range(1..4),
            rng.random_range(1..3)
        );
        if rng.random_bool(0.5) {
            let backlog = rng.random_range(1..9);
            job += &format!(
                "verify_backlog={backlog}\nverify_backlog_batch={}\n",
                rng.random_range(1..=backlog)
            );
        }
        if rng.random_bool(0.3) {
            job += "file_service_type=roundrobin:3\n";
        }
        if rng.random_bool(0.25) {
            // Passes wrap inside the one loop; number_ios ends it with a verify pass.
            job += &format!(
                "time_based\nruntime=1h\nnumber_ios={}\n",
                rng.random_range(50..400)
            );
        }
        let want = collect(&job, true);
        let got = collect(&job, false);
        assert_eq!(got.len(), want.len(), "case {case}: {job}");
        assert!(got == want, "case {case}: {job}");
        reads_back += want.iter().filter(|r| r.0 == Op::Read).count();
    }
    // The replay was in use (fixed blocks), so was the packed list (the other random-map
    // jobs), and they read back plenty.
    assert!(gen::REPLAYS.with(std::cell::Cell::get) > 50);
    assert!(gen::PACKED.with(std::cell::Cell::get) > 20);
    assert!(reads_back > 10_000, "{reads_back}");
}

/// An LFSR job that verifies reads back through fio's history tree (no random map, so no
/// history list): every block once written, then once read back by offset.
#[test]
fn an_lfsr_job_verifies_through_the_tree() {
    let mut streams = load_text(
        "[j]\nrw=randwrite\nrandom_generator=lfsr\nsize=64k\nbs=4k\nverify=md5\n",
        GIB,
        5,
    )
    .unwrap();
    let got = take(&mut streams[0], 1_000);
    let writes: Vec<u64> = got
        .iter()
        .filter(|r| r.op == Op::Write)
        .map(|r| r.offset)
        .collect();
    let reads: Vec<u64> = got
        .iter()
        .filter(|r| r.op == Op::Read)
        .map(|r| r.offset)
        .collect();
    let mut sorted = writes.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..16).map(|i| i * 4096).collect::<Vec<_>>());
    assert_ne!(writes, sorted, "the LFSR's order is not sequential");
    assert_eq!(reads, sorted, "the tree reads back by offset");
}

/// A failure the device reports other than a VERIFY miscompare (a zone's write error, a full
/// file system) does not end a job that watches its completions (`latency_target`): it
/// issues what the same job issues when nothing failed.
#[test]
fn only_a_verify_miscompare_ends_a_job_that_watches_completions() {
    let job = "[j]\nrw=write\nbs=4k\nsize=64k\nlatency_target=10ms\n";
    let plain = take(&mut load_text(job, GIB, 1).unwrap()[0], 100);
    let mut streams = load_text(job, GIB, 1).unwrap();
    let st = &mut streams[0];
    assert!(st.source.wants_completions());
    let first = take(st, 1);
    st.source.failed(SimTime::ZERO);
    let rest = take(st, 100);
    assert_eq!(plain.len(), 16);
    assert_eq!([first, rest].concat(), plain);
}

/// fio refuses an LFSR seed whose low bits are the all-ones state. Under `randrepeat=1` the
/// seed is 0xb1899bed x the job's number: the third job over 4 blocks (a 3-bit LFSR) has low
/// bits 0xb1899bed x 3 = ...0b111, refused at its `random_generator` line with advice that
/// works (another `randseed` would not change it). Without `randseed` and `randrepeat=0` the
/// run's seed stands in for fio's system RNG and never makes a job fail.
#[test]
fn an_lfsr_seed_fio_refuses_is_refused_at_its_line_and_run_seeds_never_are() {
    assert_eq!((0xb189_9bedu64 * 3) & 7, 7, "the hand count's premise");
    let job = "[global]\nrw=randwrite\nbs=4k\nsize=16k\n\n[j]\nrandom_generator=lfsr\nnumjobs=3\n";
    let Err(e) = load_text(job, GIB, 1) else {
        panic!("the third job's seed is refused")
    };
    let e = e.to_string();
    assert!(e.contains("job.fio:7"), "{e}");
    assert!(
        e.contains("clone 2") && e.contains("set randrepeat=0"),
        "{e}"
    );
    let two = "[global]\nrw=randwrite\nbs=4k\nsize=16k\n\n[j]\nrandom_generator=lfsr\nnumjobs=2\n";
    assert_eq!(load_text(two, GIB, 1).unwrap().len(), 2);
    let run =
        "[j]\nrw=randwrite\nbs=4k\nsize=16k\nrandom_generator=lfsr\nrandrepeat=0\nnumjobs=4\n";
    for seed in 0..200 {
        let mut streams = load_text(run, GIB, seed).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        for st in &mut streams {
            let mut got: Vec<u64> = take(st, 100).iter().map(|r| r.offset).collect();
            got.sort_unstable();
            let rel: Vec<u64> = got.iter().map(|o| o - got[0]).collect();
            assert_eq!(
                rel,
                [0, 4096, 8192, 12288],
                "seed {seed}: one pass of the 4 blocks of the clone's file"
            );
        }
    }
}
