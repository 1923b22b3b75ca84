//! The CCSD's chunk map under a DRAM budget (`ftl.map_cache = { type = "demand" }` on a
//! `[stack]` run) against independent models: hit counts from an LRU stack-distance
//! computation, the hand-computed cost of one miss at queue depth 1, and the whole map in
//! DRAM when the budget holds it all; GC moving translation pages keeps every block readable.

use crate::map_cache::{stack_distance_hits, zipf};
use crate::support::config;
use flashpress_core::config::{ContentConfig, ContentMode, RatioDist, SimConfig, StackConfig};
use flashpress_core::content::ContentModel;
use flashpress_core::device::ccsd::Ccsd;
use flashpress_core::ftl::mapcache;
use flashpress_core::stack::bio::{Bio, BioFlags, BioOp, Disk};
use flashpress_core::units::SimTime;
use flashpress_core::workload::ContentHints;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// The tiny device (4 planes of SLC, 4 KiB pages: 512 chunk-map entries per translation
/// page) as a CCSD with `buffer` write-buffer pages and a chunk map of `map` (TOML).
fn ccsd_cfg(buffer: u32, map: &str, extra: &str) -> (SimConfig, StackConfig) {
    let cfg = config(&format!(
        "preset = \"tiny\"\n{extra}\n[ftl]\nwrite_buffer_pages = {buffer}\nmap_cache = {map}\n\
         [ftl.gc]\nbackground = false\ncopyback = false\n\
         [stack]\n"
    ));
    let st = cfg.stack.clone().unwrap();
    (cfg, st)
}

fn demand(dram: u64) -> String {
    format!("{{ type = \"demand\", dram_bytes = {dram}, policy = \"lru\" }}")
}

fn content() -> ContentModel {
    let c = ContentConfig {
        mode: ContentMode::Model,
        codec: "zlib-6".parse().unwrap(),
        calibrate: "zlib-6".parse().unwrap(),
        ratio: RatioDist::Fixed { ratio: 2.0 },
        ..ContentConfig::default()
    };
    ContentModel::from_content_config(&c, 7, &[ContentHints::default()], "test")
        .unwrap()
        .unwrap()
}

fn bio<'a>(op: BioOp, lba: u64, blocks: u32, ids: &'a [u64]) -> Bio<'a> {
    Bio {
        op,
        lba,
        blocks,
        flags: BioFlags::NONE,
        stream: 0,
        content: ids,
    }
}

/// Submit single-block requests at queue depth 1 (each when the last completed): a write
/// (new content) or a read of each LBA. Returns every completion time.
fn run(d: &mut Ccsd, cm: &mut ContentModel, script: &[(BioOp, u64)]) -> Vec<u64> {
    let mut now = 1_000u64;
    let mut out = Vec::new();
    for (id, &(op, lba)) in (1u64..).zip(script) {
        d.advance(SimTime(now));
        let ids = [id];
        let b = match op {
            BioOp::Write => bio(op, lba, 1, &ids),
            _ => bio(op, lba, 1, &[]),
        };
        let done = d.submit(&b, SimTime(now), Some(&mut *cm)).unwrap();
        out.push(done.done.0);
        now = done.done.0;
    }
    out
}

fn mixed(lbas: &[u64], rng: &mut Pcg64Mcg) -> Vec<(BioOp, u64)> {
    lbas.iter()
        .map(|&l| {
            let op = if rng.random::<f64>() < 0.5 {
                BioOp::Read
            } else {
                BioOp::Write
            };
            (op, l)
        })
        .collect()
}

/// Every host lookup (one per block read, written or trimmed) hits exactly when the LRU
/// stack distance of its entry is below the cached entries, on uniform and Zipf LBAs; GC's
/// updates do not reorder the cache.
#[test]
fn chunk_map_hits_equal_the_lru_stack_distance_count() {
    for (dram, zipfian) in [
        (4096u64, false),
        (16384, false),
        (4096, true),
        (12288, true),
    ] {
        let (cfg, st) = ccsd_cfg(8, &demand(dram), "");
        let mut cm = content();
        let mut d = Ccsd::new(&cfg, &st, None, true).unwrap();
        let span = d.logical_blocks() / 2;
        let mut rng = Pcg64Mcg::seed_from_u64(dram + zipfian as u64);
        let lbas: Vec<u64> = if zipfian {
            zipf(span, 0.9, 6000, &mut rng)
        } else {
            (0..6000).map(|_| rng.random_range(0..span)).collect()
        };
        let script = mixed(&lbas, &mut rng);
        run(&mut d, &mut cm, &script);
        let c = d.map_counters().unwrap();
        let cap = (dram / 8) as usize;
        assert_eq!(c.lookups, lbas.len() as u64);
        assert_eq!(
            c.hits,
            stack_distance_hits(&lbas, cap),
            "dram {dram} zipf {zipfian}"
        );
        assert!(
            c.hits < c.lookups && c.translation_lookup_reads > 0,
            "dram {dram} zipf {zipfian}: {c:?} span {span}"
        );
        assert!(c.translation_writes > 0);
        d.check_invariants().unwrap();
    }
}

/// A budget holding the whole chunk map is the whole map in DRAM: the same completion
/// times, device counters and NAND counters as `type = "full"`.
#[test]
fn a_budget_of_the_whole_chunk_map_is_byte_identical_to_full() {
    let (full_cfg, st) = ccsd_cfg(8, "{ type = \"full\" }", "");
    let table = mapcache::table_bytes(&full_cfg);
    assert_eq!(
        table,
        Ccsd::new(&full_cfg, &st, None, true)
            .unwrap()
            .logical_blocks()
            * 8
    );
    let (whole_cfg, _) = ccsd_cfg(8, &demand(table), "");
    let mut rng = Pcg64Mcg::seed_from_u64(5);
    let mut a = Ccsd::new(&full_cfg, &st, None, true).unwrap();
    let span = a.logical_blocks() / 2;
    let lbas: Vec<u64> = (0..4000).map(|_| rng.random_range(0..span)).collect();
    let script = mixed(&lbas, &mut rng);
    let ta = run(&mut a, &mut content(), &script);
    let mut b = Ccsd::new(&whole_cfg, &st, None, true).unwrap();
    let tb = run(&mut b, &mut content(), &script);
    assert_eq!(ta, tb);
    assert_eq!(
        serde_json::to_string(&a.counters()).unwrap(),
        serde_json::to_string(&b.counters()).unwrap()
    );
    assert_eq!(a.nand().counters, b.nand().counters);
    assert!(b.map_counters().is_none());
    // One byte less pages the map.
    let (less, _) = ccsd_cfg(8, &demand(table - 1), "");
    let c = Ccsd::new(&less, &st, None, true).unwrap();
    assert!(c.map_counters().is_some());
}

/// At queue depth 1 on an idle CCSD a read whose map entry misses takes one translation read
/// more than the hand sum of its stages: command overhead, then sense, channel transfer and
/// ECC decode of the translation page, then of the data page, the engine and the link.
#[test]
fn qd1_read_that_misses_costs_exactly_one_translation_read() {
    // One translation page of budget: 512 entries.
    let (cfg, mut st) = ccsd_cfg(0, &demand(4096), "[controller]\necc_decode_us = 5.0\n");
    st.ccsd.cost = Some(flashpress_core::codec::CostModel::Engine {
        block_bytes: 4096,
        compress_ns: 10_000,
        decompress_ns: 7_000,
        lanes: 1,
        active_mw: 1000.0,
    });
    let mut cm = content();
    let mut d = Ccsd::new(&cfg, &st, Some(&mut cm), true).unwrap();
    let (overhead, sense, ecc) = (1_000u64, 25_000u64, 5_000u64);
    let chan = 4096 * 1_000 / 400;
    let link_out = (4096.0 * 1e3 / 3940.0f64).round() as u64;
    let decompress = 7_000u64;
    let t0 = SimTime(1_000_000);
    d.advance(t0);
    d.submit(&bio(BioOp::Write, 0, 1, &[42]), t0, Some(&mut cm))
        .unwrap();
    // 512 lookups of unmapped blocks in translation pages never written (no reads) evict the
    // dirty entry of LBA 0: its translation page is written back.
    let t1 = SimTime(3_000_000);
    d.advance(t1);
    d.submit(&bio(BioOp::Read, 1024, 512, &[]), t1, None)
        .unwrap();
    let c = d.map_counters().unwrap();
    assert_eq!((c.lookups, c.hits, c.translation_reads), (513, 0, 0));
    assert_eq!((c.dirty_evictions, c.translation_writes), (1, 1));
    // Long after, the device idle: read LBA 0.
    let t2 = SimTime(10_000_000);
    d.advance(t2);
    let r = d.submit(&bio(BioOp::Read, 0, 1, &[]), t2, None).unwrap();
    let c = d.map_counters().unwrap();
    assert_eq!((c.translation_reads, c.translation_lookup_reads), (1, 1));
    assert_eq!(r.device_compressed_blocks, 1);
    assert_eq!(
        r.done.0 - t2.0,
        overhead + 2 * (sense + chan + ecc) + decompress + link_out
    );
    // Read again: a hit, no translation read.
    let t3 = SimTime(12_000_000);
    d.advance(t3);
    let r = d.submit(&bio(BioOp::Read, 0, 1, &[]), t3, None).unwrap();
    assert_eq!(
        r.done.0 - t3.0,
        overhead + sense + chan + ecc + decompress + link_out
    );
    assert_eq!(d.map_counters().unwrap().translation_reads, 1);
}

/// Heavy overwrites under a small budget: GC moves data chunks (their entries updated in DRAM
/// or in their translation pages) and translation pages (the directory follows); every block
/// stays mapped to its last write and the structures agree.
#[test]
fn gc_under_a_small_budget_keeps_the_map_and_its_translation_pages_consistent() {
    let (cfg, st) = ccsd_cfg(8, &demand(8192), "");
    let mut cm = content();
    let mut d = Ccsd::new(&cfg, &st, None, true).unwrap();
    let span = d.logical_blocks() / 3;
    let mut rng = Pcg64Mcg::seed_from_u64(11);
    let script: Vec<(BioOp, u64)> = (0..60_000)
        .map(|i| {
            let op = match i % 10 {
                0 => BioOp::Read,
                1 => BioOp::Trim,
                _ => BioOp::Write,
            };
            (op, rng.random_range(0..span))
        })
        .collect();
    run(&mut d, &mut cm, &script);
    d.check_invariants().unwrap();
    let c = d.map_counters().unwrap();
    assert!(d.counters().gc_blocks_erased > 0);
    assert!(c.gc_uncached_updates > 0, "{c:?}");
    assert!(c.translation_gc_migrations > 0, "{c:?}");
    assert!(c.translation_writes > 0 && c.translation_lookup_reads > 0);
}

/// 128 KiB sequential writes then random 4 KiB reads on the (reduced) `waltz` stack, with the
/// chunk map `map`; invariants checked at the end.
fn stack_run(map: &str) -> flashpress_core::stats::RunReport {
    let cfg = config(&format!(
        "preset = \"waltz\"\n[nand]\nblocks_per_plane = 64\n[ftl]\nop_ratio = 0.1\nmap_cache = {map}\n\
         [stats]\ninterval_ms = 20.0\n[check]\ninvariants = true\n\
         [stack.fs]\npartition_bytes = 1073741824\n\
         [workload]\ntype = \"fio\"\n[workload.global]\nbs = \"128k\"\n\
         iodepth = 1\ndirect = 1\nsize = \"256m\"\nbuffer_compress_percentage = 50\n\
         [[workload.jobs]]\nname = \"w\"\nrw = \"write\"\n\
         [[workload.jobs]]\nname = \"r\"\nrw = \"randread\"\nbs = \"4k\"\nstonewall = true\n\
         runtime = \"300ms\"\ntime_based = true\n"
    ));
    flashpress_core::sim::Simulation::new(cfg)
        .unwrap()
        .run()
        .unwrap()
}

/// Through a whole `[stack]` run: a budget of the whole chunk map gives the same summary and
/// timeline as `type = "full"`; a small one reports its cache in `summary.map_cache` and the
/// timeline's `map_*` columns, and costs read time.
#[test]
fn a_stack_run_pages_its_chunk_map_and_a_whole_budget_changes_nothing() {
    let full = stack_run("{ type = \"full\" }");
    let table = {
        let cfg = config(
            "preset = \"waltz\"\n[nand]\nblocks_per_plane = 64\n[ftl]\nop_ratio = 0.1\n\
             [stack.fs]\npartition_bytes = 1073741824\n",
        );
        mapcache::table_bytes(&cfg)
    };
    let whole = stack_run(&demand(table));
    assert_eq!(full.summary_json(), whole.summary_json());
    assert_eq!(full.timeline_csv(), whole.timeline_csv());
    assert!(full.summary.map_cache.is_none());
    let small = stack_run(&demand(131_072));
    let m = small.summary.map_cache.as_ref().unwrap();
    assert!(
        m.hit_ratio < 1.0 && m.counters.translation_lookup_reads > 0,
        "{m:?}"
    );
    assert_eq!(m.cached_entries, 131_072 / 8);
    assert!(m.read_translation_mean_us.is_none());
    assert!(small
        .timeline_csv()
        .lines()
        .next()
        .unwrap()
        .contains("map_hit_ratio"));
    let mean =
        |r: &flashpress_core::stats::RunReport| r.summary.read.latency_us.as_ref().unwrap().mean;
    assert!(
        mean(&small) > mean(&full),
        "{} vs {}",
        mean(&small),
        mean(&full)
    );
}
