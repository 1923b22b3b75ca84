use super::*;
use crate::units::SimTime;
use crate::workload::{Op, Request};
use std::collections::BTreeSet;

const GIB: u64 = 1 << 30;

fn shared(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/fio")
        .join(name)
}

fn file_cfg(path: PathBuf) -> FioWorkload {
    FioWorkload {
        path: Some(path),
        global: BTreeMap::new(),
        jobs: Vec::new(),
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
fn all_shared_job_files_load() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/fio");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "fio") {
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
            n += 1;
        }
    }
    assert_eq!(n, 8);
}

#[test]
fn ssd_test_has_four_phases() {
    let streams = load_streams(&file_cfg(shared("ssd-test.fio")), 16 * GIB, 1).unwrap();
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
    let mut streams = load_streams(&file_cfg(shared("fio-rand-RW.fio")), 16 * GIB, 7).unwrap();
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
    let mut streams = load_streams(&file_cfg(shared("zipf.fio")), 16 * GIB, 3).unwrap();
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
    let b = take(&mut st[1], 1000);
    assert!(b
        .iter()
        .all(|r| r.len == 16384 && r.offset >= GIB / 4 && r.offset + r.len <= GIB / 4 + (1 << 20)));
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
        path: Some(shared("ssd-test.fio")),
        global,
        jobs: vec![job],
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
        ("[j]\nrw=read\nfoo=1\n", 3, "unsupported fio option `foo`"),
        ("[j]\nrw=trim\n", 2, "trim"),
        ("[j]\nrw=randwrite:8\n", 2, ":N"),
        ("[j]\nrw=sideways\n", 2, "expected read"),
        ("[global]\nsize=10g\n[j]\noffset=8g\n", 2, "past the device's logical capacity"),
        ("[j]\nsize=17g\n", 2, "`size=17g` ends at byte 18253611008, past the device's logical capacity of 17179869184"),
        ("[j]\nsize=0\n", 2, "positive"),
        ("[j]\nsize=ten\n", 2, "byte count"),
        ("[j]\nbs=4q\n", 2, "suffix"),
        ("[j]\nbs=1000\n", 2, "512"),
        ("[j]\n\nrwmixread=101\n", 3, "0..=100"),
        ("[j]\niodepth=0\n", 2, "iodepth"),
        ("[j]\nnumjobs=0\n", 2, "numjobs"),
        ("[j]\ntime_based\n", 2, "runtime"),
        ("[j]\nbssplit=4k/50:8k/40\n", 2, "add up to 90"),
        ("[j]\nbssplit=4k/50:8k/60:16k\n", 2, "add up to 110"),
        ("[j]\ninclude other.fio\n", 2, "include"),
        ("include other.fio\n", 1, "include"),
        ("[j\nrw=read\n", 1, "closing"),
        ("[]\n", 1, "empty section"),
        ("[j]\nrandom_distribution=zipf:1\n", 2, "zipf"),
        ("[j]\nrandom_distribution=zoned:50/5:50/95\n", 2, "zoned"),
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
