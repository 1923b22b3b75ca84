//! Deduplication in the controller (`ftl.dedup`): the map's counts against a brute-force
//! model of the same requests, inline and in-GC deduplication through GC and TRIM with verify
//! mode, CAGC's placement, and its timing.

use crate::support::{config, stream_of, NO_PRECONDITION};
use flashpress_core::config::SimConfig;
use flashpress_core::sim::Simulation;
use flashpress_core::stats::Summary;
use flashpress_core::units::SimTime;
use flashpress_core::workload::{Drive, Op, Request, RequestSource};
use flashpress_core::Result;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::collections::{BTreeMap, BTreeSet};

/// Single-page writes (and some TRIMs and reads) of uniformly random pages whose content is
/// drawn from a pool of `pool` contents (a small pool: many duplicates). The model keeps
/// what every page holds.
struct Pool {
    pages: u64,
    left: u64,
    pool: u64,
    trim_fraction: f64,
    read_fraction: f64,
    rng: Pcg64Mcg,
    model: Model,
}

impl RequestSource for Pool {
    fn next_request(&mut self, _now: SimTime) -> Result<Option<Request>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let page = self.rng.random_range(0..self.pages);
        let x: f64 = self.rng.random();
        let (op, content) = if x < self.trim_fraction {
            self.model.lock().unwrap().remove(&page);
            (Op::Trim, 0)
        } else if x < self.trim_fraction + self.read_fraction {
            (Op::Read, 0)
        } else {
            let c = 1 + self.rng.random_range(0..self.pool);
            self.model.lock().unwrap().insert(page, c);
            (Op::Write, c)
        };
        Ok(Some(Request {
            time: SimTime::ZERO,
            op,
            offset: page * 4096,
            len: 4096,
            content,
            file: flashpress_core::workload::NO_FILE,
            attrs: Default::default(),
            placement: None,
        }))
    }
}

/// What every logical page holds, as the requests left the source.
type Model = std::sync::Arc<std::sync::Mutex<BTreeMap<u64, u64>>>;

fn pool_sim(
    cfg: &SimConfig,
    n: u64,
    pool: u64,
    trim: f64,
    read: f64,
    seed: u64,
) -> (Simulation, Model) {
    let model: Model = Default::default();
    let stream = stream_of(
        "pool",
        Box::new(Pool {
            pages: flashpress_core::ftl::logical_pages(cfg),
            left: n,
            pool,
            trim_fraction: trim,
            read_fraction: read,
            rng: Pcg64Mcg::seed_from_u64(seed),
            model: model.clone(),
        }),
        Drive::Closed { depth: 8 },
    );
    (
        Simulation::with_streams(cfg.clone(), vec![stream]).unwrap(),
        model,
    )
}

/// Run to the end, keeping the simulation (its device) for inspection.
fn run_all(mut sim: Simulation) -> Simulation {
    while !sim.step(1 << 20).unwrap() {}
    sim
}

const TINY: &str = "preset = \"tiny\"\n[ftl.gc]\ncopyback = false\n[check]\nverify = true\n";

fn with(mode: &str) -> String {
    with_victim(mode, "greedy")
}

fn with_victim(mode: &str, victim: &str) -> String {
    let tiny = TINY.replace(
        "copyback = false\n",
        &format!("copyback = false\nvictim = \"{victim}\"\n"),
    );
    format!("{tiny}{NO_PRECONDITION}[ftl.dedup]\n{mode}\n")
}

/// Stored pages, mapped pages and the model's distinct contents after a run.
fn counts(sim: &Simulation, model: &Model) -> (u64, u64, u64, u64) {
    let d = sim.device().unwrap();
    d.check_invariants().unwrap();
    let dd = d.ftl.dedup.as_ref().unwrap();
    let m = model.lock().unwrap();
    let distinct = m.values().collect::<BTreeSet<_>>().len() as u64;
    (dd.stored(), dd.mapped(), m.len() as u64, distinct)
}

#[test]
fn inline_dedup_stores_each_distinct_content_once_through_gc_and_trim() {
    let cfg = config(&with("mode = \"inline\"\nhash_us = 14.0"));
    // 40,000 page operations over 3,481 logical pages with 20,000 contents: GC runs many
    // times (the device is small) and a fifth of the writes or so are duplicates.
    let (sim, model) = pool_sim(&cfg, 40_000, 20_000, 0.1, 0.2, 7);
    let sim = run_all(sim);
    let (stored, mapped, model_mapped, distinct) = counts(&sim, &model);
    assert_eq!(mapped, model_mapped);
    assert_eq!(stored, distinct, "inline dedup keeps one copy per content");
    let s = sim.finish().unwrap().summary;
    let dd = s.dedup.unwrap();
    assert!(s.gc_blocks_erased > 0, "the run must exercise GC");
    assert!(s.verified_page_reads > 1000);
    assert!(dd.counters.inline_duplicates > 0);
    assert_eq!(dd.counters.gc_hashed, 0);
    assert!(s.trimmed_pages > 0);
    // Every written page was hashed; those not duplicates were programmed.
    assert_eq!(
        dd.counters.inline_hashed - dd.counters.inline_duplicates,
        s.nand_programs - s.gc_pages_migrated
    );
}

#[test]
fn dedup_in_gc_merges_duplicates_it_meets_and_keeps_counts_exact() {
    for (regions, victim) in [
        (false, "greedy"),
        (true, "greedy"),
        (true, "random"),
        (true, "cost_benefit"),
    ] {
        let cfg = config(&with_victim(
            &format!("mode = \"gc\"\nhash_us = 14.0\nregions = {regions}\ncold_threshold = 1"),
            victim,
        ));
        let (sim, model) = pool_sim(&cfg, 40_000, 3_000, 0.1, 0.2, 7);
        let sim = run_all(sim);
        let (stored, mapped, model_mapped, distinct) = counts(&sim, &model);
        assert_eq!(mapped, model_mapped);
        assert!(stored >= distinct);
        assert!(
            stored < mapped,
            "GC met duplicates: {stored} stored for {mapped} mapped (regions {regions})"
        );
        let s = sim.finish().unwrap().summary;
        let dd = s.dedup.unwrap();
        assert!(dd.counters.gc_duplicates > 0);
        assert_eq!(dd.counters.inline_hashed, 0);
        // Every valid page GC met was hashed: migrated, or dropped as a duplicate.
        assert_eq!(
            dd.counters.gc_hashed,
            s.gc_pages_migrated + dd.counters.gc_duplicates - dd.counters.gc_promoted
        );
        assert_eq!(dd.counters.gc_cold_migrations > 0, regions);
        assert!(s.verified_page_reads > 1000);
    }
}

#[test]
fn without_duplicates_dedup_in_gc_equals_the_baseline() {
    // Unique content: nothing merges and every count is 1, so CAGC's GC moves the same pages
    // to the same places; with a hash engine that keeps up, the timing is the same too.
    let base = format!("{TINY}{NO_PRECONDITION}");
    let cagc = format!(
        "{base}[ftl.dedup]\nmode = \"gc\"\nhash_us = 0.5\nhash_lanes = 8\nregions = true\n"
    );
    let run = |toml: &str| -> Summary {
        let cfg = config(toml);
        let (sim, _) = pool_sim(&cfg, 30_000, u64::MAX / 4, 0.05, 0.2, 3);
        sim.run().unwrap().summary
    };
    let a = run(&base);
    let b = run(&cagc);
    assert!(a.gc_blocks_erased > 0);
    assert_eq!(b.dedup.unwrap().counters.gc_duplicates, 0);
    assert_eq!(a.gc_pages_migrated, b.gc_pages_migrated);
    assert_eq!(a.erases, b.erases);
    assert_eq!(a.write, b.write);
    assert_eq!(a.read, b.read);
    assert_eq!(a.sim_time_s, b.sim_time_s);
}

#[test]
fn inline_hashing_lengthens_writes_by_the_hash_time() {
    // One write at a time on an idle device: the latency grows by exactly hash_us.
    let base = format!("{TINY}{NO_PRECONDITION}");
    let inline = format!("{base}[ftl.dedup]\nmode = \"inline\"\nhash_us = 14.0\n");
    let run = |toml: &str| -> Summary {
        let cfg = config(toml);
        let stream = stream_of(
            "w",
            Box::new(crate::support::Script(
                (0..50).map(|i| (Op::Write, i * 4096, 4096, 0)).collect(),
                0,
            )),
            Drive::Closed { depth: 1 },
        );
        Simulation::with_streams(cfg, vec![stream])
            .unwrap()
            .run()
            .unwrap()
            .summary
    };
    let a = run(&base).write.latency_us.unwrap();
    let b = run(&inline).write.latency_us.unwrap();
    assert!(
        (b.mean - a.mean - 14.0).abs() < 1e-6,
        "{} vs {}",
        b.mean,
        a.mean
    );
}

#[test]
fn a_duplicate_write_completes_after_its_hash_without_a_program() {
    // Page 0 and page 1 get the same content: the second is mapped, not programmed.
    let toml = format!("{TINY}{NO_PRECONDITION}[ftl.dedup]\nmode = \"inline\"\nhash_us = 14.0\n");
    let cfg = config(&toml);
    struct Two(u32);
    impl RequestSource for Two {
        fn next_request(&mut self, _now: SimTime) -> Result<Option<Request>> {
            self.0 += 1;
            Ok((self.0 <= 3).then(|| Request {
                time: SimTime::ZERO,
                op: if self.0 == 3 { Op::Read } else { Op::Write },
                offset: if self.0 == 3 {
                    4096
                } else {
                    (self.0 as u64 - 1) * 4096
                },
                len: 4096,
                content: if self.0 == 3 { 0 } else { 42 },
                file: flashpress_core::workload::NO_FILE,
                attrs: Default::default(),
                placement: None,
            }))
        }
    }
    let stream = stream_of("two", Box::new(Two(0)), Drive::Closed { depth: 1 });
    let s = Simulation::with_streams(cfg, vec![stream])
        .unwrap()
        .run()
        .unwrap()
        .summary;
    assert_eq!(s.nand_programs, 1);
    assert_eq!(
        s.verified_page_reads, 1,
        "page 1 reads the content written to page 0"
    );
    assert_eq!(s.nand_reads, 1);
    let d = s.dedup.unwrap();
    assert_eq!((d.mapped_pages, d.stored_pages), (2, 1));
    assert_eq!(d.ratio, Some(2.0));
    // The second write (the shorter of two): command overhead 1 us, 4 KiB over the link
    // (1.04 us at 3940 MB/s), then the 14 us hash.
    let l = s.write.latency_us.unwrap();
    let second = 2.0 * l.mean - l.max;
    assert!((second - (1.0 + 1.04 + 14.0)).abs() < 1e-6, "{second}");
}

#[test]
fn overwrites_and_trims_are_counted_by_the_count_their_content_had() {
    // Three pages share content 7, one page holds 9; then every page is trimmed.
    let toml = format!("{TINY}{NO_PRECONDITION}[ftl.dedup]\nmode = \"inline\"\nhash_us = 1.0\n");
    let cfg = config(&toml);
    let mut script = vec![];
    for (p, c) in [(0u64, 7u64), (1, 7), (2, 7), (3, 9)] {
        script.push((Op::Write, p, c));
    }
    for p in 0..4u64 {
        script.push((Op::Trim, p, 0));
    }
    struct S(Vec<(Op, u64, u64)>, usize);
    impl RequestSource for S {
        fn next_request(&mut self, _now: SimTime) -> Result<Option<Request>> {
            let Some(&(op, p, c)) = self.0.get(self.1) else {
                return Ok(None);
            };
            self.1 += 1;
            Ok(Some(Request {
                time: SimTime::ZERO,
                op,
                offset: p * 4096,
                len: 4096,
                content: c,
                file: flashpress_core::workload::NO_FILE,
                attrs: Default::default(),
                placement: None,
            }))
        }
    }
    let stream = stream_of("s", Box::new(S(script, 0)), Drive::Closed { depth: 1 });
    let s = Simulation::with_streams(cfg, vec![stream])
        .unwrap()
        .run()
        .unwrap()
        .summary;
    let d = s.dedup.unwrap();
    // Trims of pages 0, 1, 2 see counts 3, 2, 1; page 3's content had count 1.
    assert_eq!(d.counters.dropped_by_count[..3], [2, 1, 1]);
    assert_eq!(d.counters.pages_freed, 2);
    assert_eq!(d.dropped_count1_share, Some(0.5));
    assert_eq!((d.mapped_pages, d.stored_pages, d.ratio), (0, 0, None));
}

#[test]
fn dedup_configuration_errors_name_the_key() {
    let err = |extra: &str| -> String {
        SimConfig::from_toml_str(&format!("preset = \"tiny\"\n{extra}"), "t.toml")
            .unwrap_err()
            .to_string()
    };
    let e = err("[ftl.gc]\ncopyback = false\n[ftl.dedup]\nmode = \"gc\"\nhash_us = 14.0\ncold_threshold = 0\n");
    assert!(
        e.contains("ftl.dedup.cold_threshold") && e.contains("expected 1 to"),
        "{e}"
    );
    let e = err("[ftl.dedup]\nmode = \"gc\"\nhash_us = 14.0\n");
    assert!(e.contains("ftl.gc.copyback"), "{e}");
    let e = err("[ftl.dedup]\nmode = \"sometimes\"\nhash_us = 14.0\n");
    assert!(e.contains("sometimes"), "{e}");
    let e = err("[ftl.dedup]\nmode = \"inline\"\nhash_us = -1.0\n");
    assert!(e.contains("ftl.dedup.hash_us"), "{e}");
    let e = err(
        "[content]\nmode = \"model\"\n[ftl]\nwrite_buffer_pages = 4\n\
         compression = { codec = \"lz4\", min_saving = 0.0, max_chunks_per_page = 4, compress_us = 1.0, decompress_us = 1.0 }\n\
         [ftl.dedup]\nmode = \"inline\"\nhash_us = 14.0\n",
    );
    assert!(e.contains("ftl.dedup") && e.contains("compression"), "{e}");
}

#[test]
fn fiu_sector_hashes_deduplicate_whole_pages() {
    // homes style: one record per 512-byte sector. Pages 0 and 1 receive the same eight
    // sector hashes, page 2 other ones: three pages mapped, two stored.
    let mut text = String::new();
    let mut t = 0;
    for (page, base) in [(0u64, 0x10u64), (1, 0x10), (2, 0x20)] {
        for i in 0..8 {
            t += 1000;
            text += &format!(
                "{t} 1 nfsd {} 1 W 6 0 {:016x}{:016x}\n",
                page * 8 + i,
                base + i,
                0
            );
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("homes.trace");
    std::fs::write(&path, text).unwrap();
    let mut cfg = config(&with("mode = \"inline\"\nhash_us = 14.0"));
    let mut tr = flashpress_core::workload::trace::default_trace_config(
        path,
        flashpress_core::config::TraceFormat::Fiu,
    );
    tr.hash_bytes = Some(512);
    cfg.workload = flashpress_core::config::WorkloadConfig::Trace(tr.clone());
    cfg.validate("test").unwrap();
    let sim = run_all(Simulation::new(cfg.clone()).unwrap());
    let d = sim.device().unwrap();
    d.check_invariants().unwrap();
    let dd = d.ftl.dedup.as_ref().unwrap();
    assert_eq!((dd.mapped(), dd.stored()), (3, 2));
    // A granularity that does not divide the page, or a trace without hashes: errors.
    tr.hash_bytes = Some(1536);
    cfg.workload = flashpress_core::config::WorkloadConfig::Trace(tr.clone());
    let e = cfg.validate("c.toml").unwrap_err().to_string();
    assert!(
        e.contains("workload.hash_bytes") && e.contains("divides the page"),
        "{e}"
    );
    tr.hash_bytes = Some(512);
    tr.format = flashpress_core::config::TraceFormat::Msr;
    cfg.workload = flashpress_core::config::WorkloadConfig::Trace(tr);
    let e = cfg.validate("c.toml").unwrap_err().to_string();
    assert!(
        e.contains("workload.hash_bytes") && e.contains("fiu"),
        "{e}"
    );
}

#[test]
fn a_cold_region_survives_the_smallest_gc_threshold() {
    // With a cold region one clean may open two blocks (hot and cold) while it frees one; a
    // threshold of 2 blocks ran a plane out of free blocks (found in review). The threshold is
    // at least 4 blocks with regions now.
    for seed in [1, 2, 3] {
        let toml = format!(
            "{}[ftl.dedup]\nmode = \"gc\"\nhash_us = 14.0\nregions = true\n",
            TINY.replace("copyback = false\n", "copyback = false\nthreshold = 0.02\n")
                + NO_PRECONDITION
        );
        let cfg = config(&toml);
        assert_eq!(flashpress_core::ftl::gc_threshold_blocks(&cfg), 4);
        let (sim, model) = pool_sim(&cfg, 40_000, 3_000, 0.1, 0.2, seed);
        let sim = run_all(sim);
        let (stored, mapped, model_mapped, _) = counts(&sim, &model);
        assert_eq!(mapped, model_mapped);
        assert!(stored < mapped);
    }
}

#[test]
fn byte_fingerprints_of_larger_pages_do_not_match_preconditioned_data() {
    // 8 KiB pages, generated content: the fill's pages and 2,000 distinct host writes have
    // different bytes, so nothing deduplicates (before the fix, preconditioned page m and the
    // m-th host write were fingerprinted from the same 4 KiB blocks). A write into the second
    // half of a page is fingerprinted from the page's first block (no underflow).
    let toml = "preset = \"tiny\"\n[nand]\npage_size = 8192\n[content]\nmode = \"model\"\n\
                [precondition]\nfill_fraction = 0.5\naging_fraction = 0.0\n\
                [ftl.dedup]\nmode = \"inline\"\nhash_us = 1.0\nfingerprint = \"bytes\"\n";
    let cfg = config(toml);
    let mut script: Vec<(Op, u64, u64, u64)> = (0..2000u64)
        .map(|i| (Op::Write, i * 8192, 8192, 0))
        .collect();
    script.push((Op::Write, 4096, 4096, 0));
    let s = crate::support::script_sim(&cfg, script, Drive::Closed { depth: 4 })
        .run()
        .unwrap()
        .summary;
    let d = s.dedup.unwrap();
    assert_eq!(d.counters.inline_hashed, 2001);
    assert_eq!(d.counters.inline_duplicates, 0);
    // Byte fingerprints need whole 4 KiB blocks.
    let e = SimConfig::from_toml_str(
        &toml.replace("page_size = 8192", "page_size = 2048"),
        "p.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("ftl.dedup.fingerprint") && e.contains("4096"),
        "{e}"
    );
}

/// fio's `buffer_pattern` on an inline-deduplicating device, against a hand count: a job
/// writes `blocks` 4 KiB blocks of a pattern of `L` bytes repeated from each buffer's start,
/// whose distinct blocks are the `L / gcd(L, 4096)` phases (1 for `0xdeadbeef`, 3 for
/// `"abc"`: 16 KiB writes hold phases 0, 1, 2, 0). Every other block is a duplicate, by
/// content id and by the bytes themselves (XXH3 + BLAKE3 of the content model's bytes). A
/// job without a pattern has none.
#[test]
fn a_pattern_jobs_blocks_are_duplicates_but_one_per_distinct_block() {
    let cases = [
        (", buffer_pattern = '0xdeadbeef'", "4k", 1),
        (", buffer_pattern = '\"abc\"'", "16k", 3),
        (", verify = 'pattern', verify_pattern = '0x0102'", "8k", 1),
        // fio 3.33 writes a verify header into each block when `verify` is not given.
        (", verify_pattern = '0x0102'", "8k", 256),
        ("", "16k", 256),
    ];
    for fingerprint in ["content_id", "bytes"] {
        for (pattern, bs, distinct) in cases {
            let cfg = config(&format!(
                "{}hash_us = 14.0\nfingerprint = \"{fingerprint}\"\n\
                 [content]\nmode = \"bytes\"\ncodec = \"lz4\"\n\
                 [workload]\ntype = \"fio\"\njobs = [{{ name = \"p\", rw = \"write\", bs = \"{bs}\", \
                 size = \"1m\"{pattern} }}]\n",
                with("mode = \"inline\"")
            ));
            let s = Simulation::new(cfg).unwrap().run().unwrap().summary;
            let dd = s.dedup.unwrap().counters;
            let blocks = 256;
            assert_eq!(s.write.bytes, blocks * 4096, "{pattern} {fingerprint}");
            assert_eq!(dd.inline_hashed, blocks, "{pattern} {fingerprint}");
            assert_eq!(
                dd.inline_duplicates,
                blocks - distinct,
                "{pattern} bs={bs} fingerprint={fingerprint}"
            );
            if pattern.contains("verify") {
                // A verifying job: every block read back and checked.
                assert_eq!(s.read.bytes, blocks * 4096);
                assert!(s.verified_page_reads >= blocks, "{}", s.verified_page_reads);
            }
        }
    }
}

/// A job that reads a file nothing wrote finds it laid out with what fio's `extend_file`
/// writes for it (`fill_io_buffer`): its `buffer_pattern` repeated from the start of each
/// piece of its largest write block size, zeros with `zero_buffers`, random bytes otherwise
/// (never `verify_pattern`). The layout is untimed: the run's counters leave it out, the
/// device's map keeps it. Hand counts of the 1 MiB file's 256 pages: `0xdeadbeef` divides
/// 4 KiB (one distinct page); `"abc"` has 3 phases, and 16 KiB pieces hold phases 0, 1, 2, 0
/// (3 pages stored), while 4 KiB pieces each restart it at phase 0 (1 page); zeros are one
/// page; without a pattern every page is its own.
#[test]
fn a_laid_out_file_holds_the_reading_jobs_buffer_pattern() {
    let cases = [
        (", buffer_pattern = '0xdeadbeef'", "4k", 1),
        (", buffer_pattern = '\"abc\"'", "16k", 3),
        (", buffer_pattern = '\"abc\"'", "4k", 1),
        (", zero_buffers = 1", "8k", 1),
        (", zero_buffers = 1, buffer_pattern = '\"abc\"'", "16k", 3),
        (", verify_pattern = '0x0102', verify = 0", "4k", 256),
        ("", "16k", 256),
    ];
    for fingerprint in ["content_id", "bytes"] {
        for (opts, bs, stored) in cases {
            let cfg = config(&format!(
                "{}hash_us = 14.0\nfingerprint = \"{fingerprint}\"\n\
                 [content]\nmode = \"bytes\"\ncodec = \"lz4\"\n\
                 [workload]\ntype = \"fio\"\njobs = [{{ name = \"r\", rw = \"read\", bs = \"{bs}\", \
                 filename = \"f\", size = \"1m\"{opts} }}]\n",
                with("mode = \"inline\"")
            ));
            let s = Simulation::new(cfg).unwrap().run().unwrap().summary;
            assert_eq!(s.precondition.layout_bytes, 1 << 20, "{opts}");
            assert_eq!(s.write.bytes, 0);
            assert_eq!(s.read.bytes, 1 << 20);
            let d = s.dedup.unwrap();
            assert_eq!(
                (d.mapped_pages, d.stored_pages),
                (256, stored),
                "{opts} bs={bs} fingerprint={fingerprint}"
            );
        }
    }
}

/// A reading job with `dedupe_percentage` finds its file laid out with repeated data: fio's
/// `extend_file` fills each piece with one `fill_io_buffer`, which repeats an earlier
/// buffer with the job's `dedupe_percentage` (`get_buf_state`), as the job's writes do. Hand
/// counts over the 1 MiB file's 256 pages in 4 KiB pieces: at 100% the first piece is new and
/// every later one repeats it (1 page stored; fio 3.33 lays out one distinct block too), at 0%
/// every page is its own (256); at 50% each of the 255 later pieces is new with probability
/// 1/2 (about 1 + 127.5, standard deviation 8). The reader is the second job: the first's
/// content (and hints) are not the layout's.
#[test]
fn a_laid_out_file_repeats_as_the_reading_jobs_buffers() {
    for fingerprint in ["content_id", "bytes"] {
        for (pct, stored) in [(100u32, 1..=1u64), (0, 256..=256), (50, 96..=160)] {
            let cfg = config(&format!(
                "{}hash_us = 14.0\nfingerprint = \"{fingerprint}\"\n\
                 [content]\nmode = \"bytes\"\ncodec = \"lz4\"\n\
                 [workload]\ntype = \"fio\"\njobs = [\
                 {{ name = \"w\", rw = \"write\", bs = \"4k\", filename = \"g\", size = \"16k\" }}, \
                 {{ name = \"r\", rw = \"read\", bs = \"4k\", filename = \"f\", size = \"1m\", \
                 dedupe_percentage = {pct} }}]\n",
                with("mode = \"inline\"")
            ));
            let s = Simulation::new(cfg).unwrap().run().unwrap().summary;
            assert_eq!(s.precondition.layout_bytes, 1 << 20, "{pct}%");
            assert_eq!(s.read.bytes, 1 << 20);
            let d = s.dedup.unwrap();
            // The writer's 4 pages are its own.
            assert_eq!(d.mapped_pages, 256 + 4, "{pct}% {fingerprint}");
            assert!(
                stored.contains(&(d.stored_pages - 4)),
                "{pct}% {fingerprint}: {} laid-out pages stored, expected {stored:?}",
                d.stored_pages - 4
            );
        }
    }
}

/// Writes of distinct data never share a content id, whatever the page size: with 6 KiB
/// pages a 4 KiB write at 4096 covers two pages but one 4 KiB block, so the host must draw
/// an id per page touched (drawing per block gave its second page the next write's id, which
/// id-fingerprint dedup counted as a duplicate).
#[test]
fn pages_not_a_multiple_of_4_kib_give_each_written_page_its_own_content_id() {
    for page in [2048u64, 4096, 6144, 18432] {
        let cfg = config(&format!(
            "preset = \"tiny\"\n[nand]\npage_size = {page}\n[ftl.gc]\ncopyback = false\n\
             [precondition]\nfill_fraction = 0.0\naging_fraction = 0.0\nfill_block_size = {}\n\
             [ftl.dedup]\nmode = \"inline\"\nhash_us = 1.0\n",
            page * 16
        ));
        let s = crate::support::run_closed(
            &cfg,
            crate::support::write_script(&[(4096, 4096), (5 * page, page), (12288, 8192)]),
        );
        let d = s.dedup.expect("dedup counters");
        assert!(
            d.counters.inline_hashed >= 3,
            "page {page}: {:?}",
            d.counters
        );
        assert_eq!(
            d.counters.inline_duplicates, 0,
            "page {page}: {:?}",
            d.counters
        );
    }
}
