use super::gen::{content_id, entry_sizes, file_key};
use super::parse::SizeSpec;
use super::*;
use crate::config::{ContentConfig, ContentMode, RatioScope};
use crate::content::ContentModel;
use crate::units::SimTime;
use crate::workload::{Next, Op, Request, NO_FILE};
use std::collections::{BinaryHeap, HashMap};

/// A Filebench personality as it is in filebench's `workloads/` (vendored in `configs/filebench`).
fn personality_file(name: &str) -> PathBuf {
    crate::testdata::repo("configs/filebench").join(name)
}

fn cfg(personality: Option<&str>, path: Option<PathBuf>) -> FilebenchWorkload {
    FilebenchWorkload {
        personality: personality.map(str::to_string),
        path,
        vars: BTreeMap::new(),
        runtime_s: None,
        ratio: None,
        hog_ns_per_iteration: None,
    }
}

fn with_vars(mut c: FilebenchWorkload, vars: &[(&str, &str)]) -> FilebenchWorkload {
    for (k, v) in vars {
        c.vars
            .insert(k.to_string(), OptionValue::Str(v.to_string()));
    }
    c
}

/// A request as the test's driver saw it.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    stream: usize,
    group: u32,
    req: Request,
}

/// Closed-loop driver: every request takes 20 µs + 1 ns per byte, a stream waits for the
/// requests it issues with [`Next::Issue`] (not for [`Next::IssueAsync`] ones), `Wait`s until
/// its time or until a semaphore post wakes it, and `Drain`s until few enough of its requests
/// are in flight; a group starts when the previous one has finished. Returns every request in
/// issue order.
fn drive(streams: &mut [Stream]) -> Vec<Seen> {
    use std::cmp::Reverse;
    let mut out = Vec::new();
    let mut now = 0u64;
    let n = streams.len();
    let groups: BTreeSet<u32> = streams.iter().map(|s| s.group).collect();
    for g in groups {
        // (time, sequence, stream, generation): stale generations are skipped.
        let mut heap = BinaryHeap::new();
        let mut seq = 0u64;
        let mut gens = vec![0u32; n];
        let mut parked = vec![false; n];
        let mut pending: Vec<Vec<u64>> = vec![Vec::new(); n];
        for (i, s) in streams.iter().enumerate() {
            if s.group == g {
                heap.push(Reverse((now, seq, i, 0u32)));
                seq += 1;
            }
        }
        let mut end = now;
        let mut woken = Vec::new();
        while let Some(Reverse((t, _, i, gen))) = heap.pop() {
            if gen != gens[i] {
                continue;
            }
            parked[i] = false;
            end = end.max(t);
            loop {
                let next = streams[i].source.next(SimTime(t)).unwrap();
                streams[i].source.take_woken(&mut woken);
                for j in woken.drain(..) {
                    let j = j as usize;
                    if parked[j] {
                        parked[j] = false;
                        gens[j] += 1;
                        heap.push(Reverse((t, seq, j, gens[j])));
                        seq += 1;
                    }
                }
                pending[i].retain(|&c| c > t);
                match next {
                    Next::Issue(r) | Next::IssueAsync(r) => {
                        let done = t + 20_000 + r.len;
                        end = end.max(done);
                        out.push(Seen {
                            stream: i,
                            group: g,
                            req: r,
                        });
                        if matches!(next, Next::IssueAsync(_)) {
                            pending[i].push(done);
                            continue;
                        }
                        heap.push(Reverse((done, seq, i, gens[i])));
                        seq += 1;
                    }
                    Next::Drain(k) => {
                        let p = &mut pending[i];
                        if p.len() <= k as usize {
                            continue;
                        }
                        p.sort_unstable();
                        let at = p[p.len() - 1 - k as usize];
                        heap.push(Reverse((at, seq, i, gens[i])));
                        seq += 1;
                    }
                    Next::Wait(u) => {
                        gens[i] += 1;
                        parked[i] = true;
                        heap.push(Reverse((u.0.max(t), seq, i, gens[i])));
                        seq += 1;
                    }
                    Next::Done => {}
                }
                break;
            }
        }
        now = end;
    }
    out
}

fn load(c: &FilebenchWorkload, seed: u64) -> Vec<Stream> {
    load_streams(c, seed).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn personality_files_parse_with_one_stream_per_thread_instance() {
    // threads x thread instances x process instances, plus one preallocation stream.
    for (name, threads) in [
        ("fileserver.f", 50),
        ("varmail.f", 16),
        ("webserver.f", 100),
        ("oltp.f", 1 + 10 + 200),
    ] {
        let s = load(&cfg(None, Some(personality_file(name))), 1);
        assert_eq!(s.len(), threads + 1, "{name}");
        assert_eq!(s[0].name, "prealloc");
        assert_eq!(s[0].group, 0);
        assert!(s[1..].iter().all(|s| s.group == 1
            && s.drive == Drive::Closed { depth: 1 }
            && s.content.ratio.is_none()));
    }
    let s = load(&cfg(Some("oltp"), None), 1);
    assert_eq!(s[1].name, "lgwr.0/lgwr.0");
    assert_eq!(s[2].name, "dbwr.0/dbwr.0");
    assert_eq!(s[12].name, "shadow.0/shadow.0");
    assert_eq!(s.last().unwrap().name, "shadow.199/shadow.0");
    assert_eq!(s[1].content.ratio, default_ratio("oltp"));
}

/// Per-personality totals over a run, after preallocation.
#[derive(Debug, Default)]
struct Totals {
    reads: u64,
    writes: u64,
    deletes: u64,
    syncs: u64,
    read_bytes: u64,
    write_bytes: u64,
}

impl Totals {
    fn of(seen: &[Seen], pred: impl Fn(&Seen) -> bool) -> Totals {
        let mut t = Totals::default();
        for s in seen.iter().filter(|s| pred(s)) {
            match s.req.op {
                Op::Read => {
                    t.reads += 1;
                    t.read_bytes += s.req.len;
                }
                Op::Write => {
                    t.writes += 1;
                    t.write_bytes += s.req.len;
                }
                Op::Delete => t.deletes += 1,
                Op::Sync => t.syncs += 1,
                Op::Trim => panic!("no trims"),
                Op::Append
                | Op::ZoneOpen
                | Op::ZoneClose
                | Op::ZoneFinish
                | Op::ZoneReset
                | Op::RuhUpdate => {
                    panic!("no zone commands")
                }
            }
        }
        t
    }
}

/// Replays the requests on an independent model of the files: writes extend a file, deletes
/// remove it; every read lies inside the file as written so far, and whole-file reads of the
/// given `iosize` come as runs from offset 0 covering the file.
fn check_file_model(seen: &[Seen]) {
    let mut size: HashMap<u32, u64> = HashMap::new();
    for s in seen {
        let r = &s.req;
        assert_ne!(r.file, NO_FILE);
        match r.op {
            Op::Write => {
                assert!(r.len > 0);
                let e = size.entry(r.file).or_default();
                *e = (*e).max(r.offset + r.len);
                assert_eq!(r.content >> 32, u64::from(r.file) + (1 << 24));
            }
            Op::Read => {
                let sz = size.get(&r.file).copied().unwrap_or(0);
                assert!(r.len > 0 && r.offset + r.len <= sz, "{r:?} beyond {sz}");
            }
            Op::Delete => {
                assert!(size.remove(&r.file).is_some(), "delete of unwritten {r:?}");
            }
            Op::Sync => {
                assert!(size.contains_key(&r.file), "fsync of unwritten {r:?}");
            }
            Op::Trim => unreachable!(),
            Op::Append
            | Op::ZoneOpen
            | Op::ZoneClose
            | Op::ZoneFinish
            | Op::ZoneReset
            | Op::RuhUpdate => {
                unreachable!()
            }
        }
    }
}

fn run(personality: &str, vars: &[(&str, &str)], runtime: f64) -> (Vec<Stream>, Vec<Seen>) {
    let mut c = with_vars(cfg(Some(personality), None), vars);
    c.runtime_s = Some(runtime);
    let mut s = load(&c, 7);
    let seen = drive(&mut s);
    check_file_model(&seen);
    (s, seen)
}

fn close(x: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (x - want).abs() <= tol * want,
        "{what}: {x} vs expected {want} (±{}%)",
        tol * 100.0
    );
}

#[test]
fn webserver_matches_its_flowop_loop() {
    // Per pass: 10 whole-file reads of random pages (gamma, mean 16 KiB, all < 1 MiB so one
    // request each) and one appendfilerand of mean 16 KiB / 2 to the log.
    let (_, seen) = run("webserver", &[("nfiles", "20000")], 0.2);
    let t = Totals::of(&seen, |s| s.group == 1);
    close(t.reads as f64 / t.writes as f64, 10.0, 0.02, "ops R:W");
    close(
        t.read_bytes as f64 / t.reads as f64,
        16384.0,
        0.04,
        "read size",
    );
    close(
        t.write_bytes as f64 / t.writes as f64,
        8192.5,
        0.04,
        "append size",
    );
    close(
        t.read_bytes as f64 / t.write_bytes as f64,
        10.0 * 16384.0 / 8192.5,
        0.06,
        "bytes R:W",
    );
    assert_eq!(t.deletes, 0);
    // Appends all go to the single log file, back to back.
    let log: BTreeSet<u32> = seen
        .iter()
        .filter(|s| s.group == 1 && s.req.op == Op::Write)
        .map(|s| s.req.file)
        .collect();
    assert_eq!(log, BTreeSet::from([1 << 24]));
    let attrs = seen
        .iter()
        .find(|s| s.req.op == Op::Read)
        .unwrap()
        .req
        .attrs;
    assert_eq!(attrs, FileAttrs::new(Hotness::Warm, FileType::Text));
    let attrs = seen
        .iter()
        .find(|s| s.req.file == 1 << 24)
        .unwrap()
        .req
        .attrs;
    assert_eq!(attrs, FileAttrs::new(Hotness::Hot, FileType::Log));
}

#[test]
fn fileserver_matches_its_flowop_loop() {
    // Per pass: create + writewholefile (assigned gamma size, mean 128 KiB, 1 MiB requests),
    // appendfilerand (mean 8 KiB), readwholefile of a random file, delete: 1:2 ops.
    let (_, seen) = run("fileserver", &[("nfiles", "20000")], 0.2);
    let t = Totals::of(&seen, |s| s.group == 1);
    // Count passes by deletes: one per pass.
    let passes = t.deletes as f64;
    close(t.reads as f64 / passes, 1.0, 0.03, "reads per pass");
    close(t.writes as f64 / passes, 2.0, 0.03, "writes per pass");
    close(
        t.write_bytes as f64 / passes,
        131072.0 + 8192.5,
        0.06,
        "written bytes per pass",
    );
    // Reads cover existing files: preallocated (mean 128 KiB) plus their appends.
    let rmean = t.read_bytes as f64 / t.reads as f64;
    assert!(rmean > 0.9 * 131072.0 && rmean < 1.25 * 131072.0, "{rmean}");
    // The preallocation wrote ~80% of the entries in full.
    let pre = Totals::of(&seen, |s| s.group == 0);
    close(
        pre.write_bytes as f64,
        0.8 * 20000.0 * 131072.0,
        0.03,
        "prealloc",
    );
    let files: BTreeSet<u32> = seen
        .iter()
        .filter(|s| s.group == 0)
        .map(|s| s.req.file)
        .collect();
    close(files.len() as f64, 16000.0, 0.03, "preallocated files");
}

#[test]
fn varmail_matches_its_flowop_loop() {
    // Per pass: delete, create + append, fsync, read whole file + append, read whole file.
    let (_, seen) = run("varmail", &[], 0.2);
    let t = Totals::of(&seen, |s| s.group == 1);
    let passes = t.deletes as f64;
    close(t.writes as f64 / passes, 2.0, 0.03, "appends per pass");
    close(t.reads as f64 / passes, 2.0, 0.05, "reads per pass");
    close(
        t.write_bytes as f64 / t.writes as f64,
        8192.5,
        0.04,
        "append size",
    );
    let a = seen.iter().find(|s| s.group == 1).unwrap().req.attrs;
    assert_eq!(a, FileAttrs::new(Hotness::Hot, FileType::Log));
}

#[test]
fn oltp_threads_do_what_their_flowops_say() {
    let (s, seen) = run("oltp", &[], 0.05);
    let kind = |i: usize| s[i].name.split('.').next().unwrap().to_string();
    let mut per: BTreeMap<String, Totals> = BTreeMap::new();
    for k in ["lgwr", "dbwr", "shadow"] {
        per.insert(
            k.into(),
            Totals::of(&seen, |x| x.group == 1 && kind(x.stream) == k),
        );
    }
    let (lg, db, sh) = (&per["lgwr"], &per["dbwr"], &per["shadow"]);
    assert!(lg.reads == 0 && lg.writes > 0 && lg.write_bytes == lg.writes * 256 * 1024);
    assert!(db.reads == 0 && db.writes > 0 && db.write_bytes == db.writes * 2048);
    assert!(sh.writes == 0 && sh.reads > 0 && sh.read_bytes == sh.reads * 2048);
    for x in seen.iter().filter(|x| x.group == 1) {
        let r = &x.req;
        // Random offsets aligned to iosize inside the 10 MiB files.
        assert_eq!(r.offset % r.len, 0);
        assert!(r.offset + r.len <= 10 << 20);
        let db_file = r.file >> 24 == 0;
        let want = if db_file {
            FileAttrs::new(Hotness::Hot, FileType::Db)
        } else {
            FileAttrs::new(Hotness::Hot, FileType::Log)
        };
        assert_eq!(r.attrs.file_only(), want);
        // The writers' flowops say `dsync`, the readers' do not; directio=$directio is 0.
        assert_eq!(r.attrs.dsync(), r.op == Op::Write, "{r:?}");
        assert!(!r.attrs.direct());
    }
    // opennext: a writer's consecutive writes walk the 10 data files in order.
    let files: Vec<u32> = seen
        .iter()
        .filter(|x| x.group == 1 && kind(x.stream) == "dbwr" && x.stream == 2)
        .map(|x| x.req.file)
        .take(20)
        .collect();
    for w in files.windows(2) {
        assert_eq!(w[1], (w[0] + 1) % 10);
    }
}

#[test]
fn gamma_sizes_have_filebench_mean_and_variance() {
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    let (mean, shape) = (131072.0, 1.5);
    let v = entry_sizes(SizeSpec::Gamma { mean, shape }, 200_000, &mut rng);
    let n = v.len() as f64;
    let m = v.iter().map(|&x| x as f64).sum::<f64>() / n;
    let var = v.iter().map(|&x| (x as f64 - m).powi(2)).sum::<f64>() / (n - 1.0);
    close(m, mean, 0.01, "mean");
    close(var, mean * mean / shape, 0.03, "variance");
    assert_eq!(
        entry_sizes(SizeSpec::Fixed(10 << 20), 3, &mut rng),
        vec![10 << 20; 3]
    );
}

#[test]
fn content_ids_follow_the_documented_layout() {
    let (_, seen) = run("fileserver", &[("nfiles", "200")], 0.01);
    for s in seen.iter().filter(|s| s.group == 0) {
        let r = &s.req;
        let key = u64::from(r.file) + (1 << 24);
        assert_eq!(
            r.content,
            (key << 32) | (r.offset / 4096),
            "prealloc is version 0"
        );
    }
    // Later writes of a preallocated file get fresh ids.
    let pre: BTreeSet<u64> = seen
        .iter()
        .filter(|s| s.group == 0)
        .map(|s| s.req.content)
        .collect();
    assert!(seen
        .iter()
        .filter(|s| s.group == 1 && s.req.op == Op::Write)
        .all(|s| !pre.contains(&s.req.content)));
    assert_eq!(
        content_id(file_key(1, 5), 3, 8192),
        (((2 << 24) | 5) << 32) | 3 << 20 | 2
    );
}

#[test]
fn per_file_ratio_scope_shares_a_zipf_ratio_per_file() {
    let dist = RatioDist::Zipf {
        min: 2.0,
        max: 3.0,
        exponent: 1.0,
        levels: 4,
    };
    let c = ContentConfig {
        mode: ContentMode::Model,
        ratio: RatioDist::Fixed { ratio: 1.0 },
        ratio_scope: RatioScope::File,
        ..ContentConfig::default()
    };
    let hints = ContentHints {
        compress_percentage: None,
        dedupe_percentage: 0,
        ratio: Some(dist),
        pattern: None,
    };
    let m = ContentModel::from_content_config(&c, 9, std::slice::from_ref(&hints), "test")
        .unwrap()
        .unwrap();
    let files = 40_000u64;
    let mut counts = [0u64; 4];
    for f in 0..files {
        let key = file_key(0, f as u32);
        let r0 = m.target_ratio(0, content_id(key, 0, 0));
        for (v, off) in [(0, 4096), (7, 0), (100, 1 << 24)] {
            assert_eq!(m.target_ratio(0, content_id(key, v, off)), r0);
        }
        let k = ((r0 - 2.0) * 3.0).round() as usize;
        counts[k] += 1;
    }
    let h: f64 = (1..=4).map(|k| 1.0 / k as f64).sum();
    for (k, &n) in counts.iter().enumerate() {
        let p = 1.0 / (k as f64 + 1.0) / h;
        close(
            n as f64 / files as f64,
            p,
            0.04,
            &format!("P(rank {})", k + 1),
        );
    }
    // Block scope (the default) draws per block: blocks of one file differ.
    let b = ContentModel::from_content_config(
        &ContentConfig {
            ratio_scope: RatioScope::Block,
            ..c
        },
        9,
        &[hints],
        "test",
    )
    .unwrap()
    .unwrap();
    let key = file_key(0, 1);
    let distinct: BTreeSet<u64> = (0..64)
        .map(|i| b.target_ratio(0, content_id(key, 0, i * 4096)).to_bits())
        .collect();
    assert!(distinct.len() > 1);
}

#[test]
fn same_seed_same_requests() {
    let c = with_vars(cfg(Some("varmail"), None), &[("nfiles", "100")]);
    let c = FilebenchWorkload {
        runtime_s: Some(0.01),
        ..c
    };
    let a = drive(&mut load(&c, 5));
    let b = drive(&mut load(&c, 5));
    let d = drive(&mut load(&c, 6));
    assert!(a.len() > 100);
    assert_eq!(a, b);
    assert_ne!(a, d);
}

fn text_err(text: &str) -> Error {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("w.f");
    std::fs::write(&p, text).unwrap();
    match load_streams(&cfg(None, Some(p)), 1) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

fn line_of(e: &Error) -> (u64, String) {
    match e {
        Error::JobFile { line, msg, .. } => (*line, msg.clone()),
        e => panic!("not a JobFile error: {e}"),
    }
}

const GOOD: &str = "set $n=10
define fileset name=fs,path=/tmp,size=4k,entries=$n,prealloc
define process name=p,instances=1
{
  thread name=t,memsize=10m,instances=2
  {
    flowop openfile name=o,filesetname=fs,fd=1
    flowop readwholefile name=r,fd=1,iosize=1m
    flowop closefile name=c,fd=1
  }
}
run 1
";

#[test]
fn user_file_runs_and_bad_lines_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("w.f");
    std::fs::write(&p, GOOD).unwrap();
    let mut s = load(&cfg(None, Some(p.clone())), 1);
    assert_eq!(s.len(), 3);
    let seen = drive(&mut s);
    assert!(seen.iter().all(|x| x.req.len == 4096));
    assert_eq!(seen.iter().filter(|x| x.group == 0).count(), 10);

    let cases: &[(&str, &str, u64, &str)] = &[
        (
            "flowop readwholefile",
            "flowop frobfile",
            8,
            "unsupported flowop `frobfile`",
        ),
        ("size=4k", "size=4q", 2, "`4q` is not a number"),
        (
            "entries=$n",
            "entries=$nope",
            2,
            "undefined variable `$nope`",
        ),
        (
            "filesetname=fs,fd=1",
            "filesetname=gone,fd=1",
            7,
            "fileset `gone` is not defined",
        ),
        (
            "iosize=1m",
            "iosize=1m,wibble=2",
            8,
            "does not take `wibble`",
        ),
        ("run 1", "runn 1", 12, "unsupported statement `runn`"),
        (
            "memsize=10m",
            "memsize=10m,cpus=3",
            5,
            "`thread` does not take `cpus`",
        ),
    ];
    for (from, to, line, msg) in cases {
        let e = text_err(&GOOD.replacen(from, to, 1));
        let (l, m) = line_of(&e);
        assert_eq!(l, *line, "{to}: {m}");
        assert!(m.contains(msg), "{to}: {m}");
    }
    // The OLTP continuation style: an attribute list spanning lines after a trailing comma.
    let cont = GOOD.replace("name=r,fd=1,", "name=r,\n    fd=1,");
    std::fs::write(&p, cont).unwrap();
    load(&cfg(None, Some(p)), 1);
}

#[test]
fn bad_config_keys_are_named() {
    let key = |c: &FilebenchWorkload| match load_streams(c, 1) {
        Err(Error::Config { key, .. }) => key,
        Err(e) => panic!("not a config error: {e}"),
        Ok(_) => panic!("accepted {c:?}"),
    };
    assert_eq!(key(&cfg(Some("mailserver"), None)), "workload.personality");
    assert_eq!(key(&cfg(None, None)), "workload");
    let c = with_vars(cfg(Some("webserver"), None), &[("nfile", "10")]);
    assert_eq!(key(&c), "workload.vars.nfile");
    let c = with_vars(cfg(Some("webserver"), None), &[("nfiles", "ten")]);
    // A bad override value is a JobFile error where it is used, or a config error here;
    // `ten` as entries is named on the fileset's line.
    assert!(load_streams(&c, 1).is_err());
    let c = with_vars(
        cfg(Some("webserver"), None),
        &[("filesize", "cvar(type=cvar-beta)")],
    );
    assert_eq!(key(&c), "workload.vars.filesize");
    let c = FilebenchWorkload {
        runtime_s: Some(-1.0),
        ..cfg(Some("oltp"), None)
    };
    assert_eq!(key(&c), "workload.runtime_s");
    let c = FilebenchWorkload {
        ratio: Some(RatioDist::Zipf {
            min: 3.0,
            max: 2.0,
            exponent: 1.0,
            levels: 4,
        }),
        ..cfg(Some("oltp"), None)
    };
    assert_eq!(key(&c), "workload.ratio.max");
    let c = FilebenchWorkload {
        hog_ns_per_iteration: Some(-0.5),
        ..cfg(Some("oltp"), None)
    };
    assert_eq!(key(&c), "workload.hog_ns_per_iteration");
    // Through the TOML config: unknown keys are named.
    let toml = "[workload]\ntype = \"filebench\"\npersonality = \"varmail\"\nnfiles = 3\n";
    let e = crate::config::SimConfig::from_toml_str(toml, "t.toml").unwrap_err();
    assert!(e.to_string().contains("nfiles"), "{e}");
}

#[test]
fn vars_and_runtime_override_the_file() {
    let c = FilebenchWorkload {
        runtime_s: Some(0.001),
        ..with_vars(
            cfg(Some("webserver"), None),
            &[("nthreads", "3"), ("$nfiles", "50")],
        )
    };
    let mut s = load(&c, 1);
    assert_eq!(s.len(), 4);
    let seen = drive(&mut s);
    let html: BTreeSet<u32> = seen
        .iter()
        .filter(|x| x.group == 0 && x.req.file >> 24 == 0)
        .map(|x| x.req.file)
        .collect();
    assert_eq!(html.len(), 50);
    // 1 ms of 20 µs+ requests per thread.
    assert!(seen.iter().filter(|x| x.group == 1).count() < 3 * 60);
}

#[test]
fn config_toml_builds_a_filebench_run() {
    let toml = "[workload]\ntype = \"filebench\"\npersonality = \"oltp\"\nruntime_s = 0.5\n\
                vars = { nshadows = 4, iosize = \"4k\" }\n\
                ratio = { type = \"zipf\", min = 1.5, max = 2.5 }\n\
                [content]\nratio_scope = \"file\"\n";
    let c =
        crate::config::SimConfig::from_toml_str(toml, "t.toml").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.content.ratio_scope, RatioScope::File);
    let s = crate::sim::open_workload(&c, 1 << 30).unwrap();
    assert_eq!(s.len(), 1 + 1 + 10 + 4);
    assert!(matches!(s[1].content.ratio, Some(RatioDist::Zipf { min, .. }) if min == 1.5));
}

/// The measured side of the module docs' table (printed with `--nocapture`): every built-in
/// personality with its default variables for 0.2 s in this file's driver.
#[test]
fn characterisation() {
    for p in PERSONALITIES {
        let (s, seen) = run(p, &[], 0.2);
        let t = Totals::of(&seen, |x| x.group == 1);
        let files: BTreeSet<u32> = seen.iter().map(|x| x.req.file).collect();
        println!(
            "{p}: streams {} files {} ops R:W {:.2}:1 bytes R:W {:.2}:1 read {:.0} B write {:.0} B deletes {}",
            s.len(),
            files.len(),
            t.reads as f64 / t.writes.max(1) as f64,
            t.read_bytes as f64 / t.write_bytes.max(1) as f64,
            t.read_bytes as f64 / t.reads.max(1) as f64,
            t.write_bytes as f64 / t.writes.max(1) as f64,
            t.deletes
        );
        assert!(t.reads > 0 && t.writes > 0);
    }
}

/// Writes of each stream whose name starts with `prefix`, after preallocation.
fn writes_of(s: &[Stream], seen: &[Seen], prefix: &str) -> Vec<u64> {
    (0..s.len())
        .filter(|&i| s[i].name.starts_with(prefix))
        .map(|i| {
            seen.iter()
                .filter(|x| x.group == 1 && x.stream == i && x.req.op == Op::Write)
                .count() as u64
        })
        .collect()
}

/// OLTP's semaphores by hand (oltp.f; Filebench's semblock/sempost on SysV semaphores):
/// every shadow pass reads 2 KiB and posts 1 to `lg-block` and 1 to each of the 10
/// `dbwr-block` instances. A dbwr issues 100 asynchronous 2 KiB writes, then passes its
/// semblock once per 1000 posts; the log writer issues one 256 KiB write per 3200 posts. So
/// after P posts a dbwr has written 100 x (1 + floor(P / 1000)) and the log writer
/// 1 + floor(P / 3200) times, and reads : writes is 1000 : (1000 + 1000/3200) ops, 1 : 1.04 in
/// bytes — not the 20:1 of ignoring the semaphores, nor COCO's table's 1:9.
#[test]
fn oltp_semaphores_set_the_read_write_mix() {
    let (s, seen) = run("oltp", &[], 0.05);
    let t = Totals::of(&seen, |x| x.group == 1);
    let reads = seen
        .iter()
        .filter(|x| x.group == 1 && x.req.op == Op::Read)
        .count() as u64;
    assert!(reads > 50_000, "{reads} reads: too short a run to judge");
    // Posts lag reads by at most one per shadow (a shadow between its read and its posts).
    let posts = (reads.saturating_sub(200), reads);
    let lg = writes_of(&s, &seen, "lgwr.");
    assert_eq!(lg.len(), 1);
    assert!(
        (1 + posts.0 / 3200..=1 + posts.1 / 3200).contains(&lg[0]),
        "log writes {} for {posts:?} posts",
        lg[0]
    );
    let db = writes_of(&s, &seen, "dbwr.");
    assert_eq!(db.len(), 10);
    for w in &db {
        assert!(
            (100 * (1 + posts.0 / 1000)..=100 * (1 + posts.1 / 1000)).contains(w),
            "dbwr writes {w} for {posts:?} posts"
        );
    }
    close(
        t.writes as f64 / t.reads as f64,
        (1000.0 + 1000.0 / 3200.0) / 1000.0,
        0.03,
        "ops W:R",
    );
    close(
        t.write_bytes as f64 / t.read_bytes as f64,
        (1000.0 * 2048.0 + 1000.0 / 3200.0 * 262_144.0) / (1000.0 * 2048.0),
        0.03,
        "bytes W:R",
    );
}

/// A user personality with a known producer/consumer ratio: 3 producers each read, think
/// 100 µs and post 2 (non-blocking) per pass; the consumer (fast enough to keep up) writes
/// once per semblock of 5, so it writes 1 + floor(2 x posts / 5) times: W:R = 2:5.
#[test]
fn synthetic_semaphore_ratio() {
    let text = "define fileset name=f,size=1m,entries=4,prealloc\n\
        define process name=prod,instances=3\n{\n thread name=p\n {\n\
        flowop read name=r,filesetname=f,iosize=4k,random\n\
        flowop hog name=pthink,value=100000\n\
        flowop sempost name=post,value=2,target=cblock\n }\n}\n\
        define process name=cons\n{\n thread name=c\n {\n\
        flowop write name=w,filesetname=f,iosize=4k,random\n\
        flowop semblock name=cblock,value=5,highwater=1\n }\n}\nrun 0.1\n";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pc.f");
    std::fs::write(&path, text).unwrap();
    let mut c = cfg(None, Some(path.clone()));
    c.hog_ns_per_iteration = Some(1.0);
    let mut s = load(&c, 5);
    let seen = drive(&mut s);
    let reads = seen
        .iter()
        .filter(|x| x.group == 1 && x.req.op == Op::Read)
        .count() as u64;
    let writes = writes_of(&s, &seen, "cons.")[0];
    // 0.1 s of 124 µs passes by 3 producers: about 2400 reads.
    assert!(reads > 2000, "{reads}");
    // Posts lag reads by at most one per producer.
    let lo = 1 + (reads - 3) * 2 / 5;
    let hi = 1 + reads * 2 / 5;
    assert!(
        (lo..=hi).contains(&writes),
        "{writes} writes for {reads} reads"
    );

    // Blocking posts with highwater 4 and a consumer that thinks for 1 ms per pass: the
    // producers can run only highwater + 5 x (semblocks done) posts ahead, so the consumer's
    // pace sets theirs: reads <= (4 + 5 x consumer passes) / 2 + 3.
    let text = text
        .replace("target=cblock", "target=cblock,blocking")
        .replace(
            "highwater=1",
            "highwater=4\n flowop hog name=think,value=1000000",
        );
    std::fs::write(&path, text).unwrap();
    let mut s = load(&c, 5);
    let seen = drive(&mut s);
    let reads = seen
        .iter()
        .filter(|x| x.group == 1 && x.req.op == Op::Read)
        .count() as u64;
    let passes = writes_of(&s, &seen, "cons.")[0];
    // 0.1 s of 1 ms thinks (plus 24 µs writes): about 97 consumer passes.
    assert!((90..=100).contains(&passes), "{passes}");
    assert!(
        reads <= (4 + 5 * passes) / 2 + 3,
        "{reads} reads, {passes} passes"
    );
    assert!(
        reads + 3 >= (5 * (passes - 1)) / 2,
        "{reads} reads, {passes} passes"
    );
}

/// Flowops Filebench has and this simulator does not model are refused with the file, the
/// line and the flowop named; so are semaphore flowops without their counts or targets.
#[test]
fn unmodelled_flowops_are_refused_by_line() {
    let head = "define fileset name=f,size=1m,entries=4,prealloc\n\
                define process name=p\n{\n thread name=t\n {\n";
    for (body, want) in [
        ("  flowop block name=b\n", "unsupported flowop `block`"),
        (
            "  flowop wakeup name=w,target=b\n",
            "unsupported flowop `wakeup`",
        ),
        (
            "  flowop delay name=d,value=1\n",
            "unsupported flowop `delay`",
        ),
        (
            "  flowop iopslimit name=l\n",
            "unsupported flowop `iopslimit`",
        ),
        (
            "  flowop opslimit name=l\n",
            "unsupported flowop `opslimit`",
        ),
        ("  flowop bwlimit name=l\n", "unsupported flowop `bwlimit`"),
        (
            "  flowop finishoncount name=l,value=3\n",
            "unsupported flowop `finishoncount`",
        ),
        ("  flowop sempost name=s,value=1\n", "needs `target=...`"),
        (
            "  flowop sempost name=s,target=x,value=1\n",
            "target `x` names no flowop",
        ),
        (
            "  flowop semblock name=s,highwater=3\n",
            "needs `value=...`",
        ),
        ("  flowop hog name=h\n", "needs `value=...`"),
        (
            "  flowop semblock name=s,value=40000\n",
            "expected 0 to 32767",
        ),
    ] {
        let text = format!("{head}{body} }}\n}}\n");
        let (line, msg) = line_of(&text_err(&text));
        assert_eq!(line, 6, "{body}: {msg}");
        assert!(msg.contains(want), "{body}: {msg}");
    }
    let text = format!(
        "{head}  flowop read name=r,filesetname=f,iosize=4k\n  flowop sempost name=s,value=1,target=r\n }}\n}}\n"
    );
    let (line, msg) = line_of(&text_err(&text));
    assert_eq!(line, 7);
    assert!(msg.contains("is not a semblock"), "{msg}");
}
