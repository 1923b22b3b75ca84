//! The demand-paged mapping table (`ftl.map_cache = { type = "demand" }`) against independent
//! models: hit counts from an LRU stack-distance computation, translation traffic from a
//! brute-force model of DFTL, the analytic miss ratio of uniform reads, the hand-computed cost
//! of one miss at queue depth 1, and the full table when the budget holds it all.

use crate::support::{config, script_sim, NO_PRECONDITION};
use flashpress_core::config::SimConfig;
use flashpress_core::stats::Summary;
use flashpress_core::workload::{Drive, Op};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// The tiny preset (4 KiB pages: 1024 entries per translation page; 6963 logical pages)
/// with a demand-paged map of `dram` bytes and `extra` TOML.
fn demand(dram: u64, policy: &str, extra: &str) -> SimConfig {
    config(&format!(
        "preset = \"tiny\"\n{extra}\n[ftl]\nmap_cache = {{ type = \"demand\", dram_bytes = {dram}, policy = \"{policy}\" }}\n"
    ))
}

/// Single-page requests at QD 1 in the order given.
fn run(cfg: &SimConfig, pages: &[(Op, u64)]) -> Summary {
    let ps = cfg.nand.page_size as u64;
    let script = pages.iter().map(|&(op, p)| (op, p * ps, ps, 0)).collect();
    script_sim(cfg, script, Drive::Closed { depth: 1 })
        .run()
        .unwrap()
        .summary
}

/// Independent model: hits of an LRU cache of `cap` entries on `trace`, by stack distance
/// (an access hits when fewer than `cap` distinct entries were used since its last use),
/// counted with a Fenwick tree over access times (Bennett and Kruskal, 1975): a mark at time
/// t means the entry used at t has not been used since.
pub(crate) fn stack_distance_hits(trace: &[u64], cap: usize) -> u64 {
    let n = trace.len();
    let mut tree = vec![0i64; n + 1];
    let add = |tree: &mut Vec<i64>, mut i: usize, v: i64| {
        i += 1;
        while i <= n {
            tree[i] += v;
            i += i & i.wrapping_neg();
        }
    };
    let prefix = |tree: &Vec<i64>, mut i: usize| {
        let mut s = 0;
        while i > 0 {
            s += tree[i];
            i -= i & i.wrapping_neg();
        }
        s
    };
    let mut last: std::collections::HashMap<u64, usize> = Default::default();
    let mut hits = 0;
    for (i, &e) in trace.iter().enumerate() {
        if let Some(&j) = last.get(&e) {
            let distinct = prefix(&tree, i) - prefix(&tree, j + 1);
            hits += (distinct < cap as i64) as u64;
            add(&mut tree, j, -1);
        }
        add(&mut tree, i, 1);
        last.insert(e, i);
    }
    hits
}

/// Zipf(s) ranks over `n` items by inverse CDF, scattered over the pages by a fixed stride.
pub(crate) fn zipf(n: u64, s: f64, count: usize, rng: &mut Pcg64Mcg) -> Vec<u64> {
    let w: Vec<f64> = (1..=n).map(|k| (k as f64).powf(-s)).collect();
    let total: f64 = w.iter().sum();
    let mut cdf = Vec::with_capacity(n as usize);
    let mut acc = 0.0;
    for x in &w {
        acc += x / total;
        cdf.push(acc);
    }
    (0..count)
        .map(|_| {
            let u: f64 = rng.random();
            let r = cdf.partition_point(|&c| c < u).min(n as usize - 1) as u64;
            (r * 2654435761) % n
        })
        .collect()
}

fn mixed(trace: &[u64], rng: &mut Pcg64Mcg, reads: f64) -> Vec<(Op, u64)> {
    trace
        .iter()
        .map(|&p| {
            let op = if rng.random::<f64>() < reads {
                Op::Read
            } else {
                Op::Write
            };
            (op, p)
        })
        .collect()
}

/// The page accesses of the vendored TPC-C block trace (MQSim's `tpcc-small.trace`, DiskSim
/// ASCII: time, device, 512-byte sector, sectors, 0 = write), page addresses folded into
/// `[0, pages)`: (operation, first page, page count) per request.
fn tpcc(pages: u64) -> Vec<(Op, u64, u64)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/traces/tpcc-small.trace"
    );
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<u64> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            let (first, last) = (f[2] / 8, (f[2] + f[3] - 1) / 8);
            let op = if f[4] == 0 { Op::Write } else { Op::Read };
            (op, first % (pages - 64), last - first + 1)
        })
        .collect()
}

#[test]
fn lru_hits_equal_stack_distance_on_a_real_trace() {
    let reqs = tpcc(6963);
    let trace: Vec<u64> = reqs.iter().flat_map(|&(_, p, n)| p..p + n).collect();
    for dram in [4096u64, 12288] {
        let cfg = demand(dram, "lru", NO_PRECONDITION);
        let script = reqs
            .iter()
            .map(|&(op, p, n)| (op, p * 4096, n * 4096, 0))
            .collect();
        let s = script_sim(&cfg, script, Drive::Closed { depth: 1 })
            .run()
            .unwrap()
            .summary;
        let m = s.map_cache.unwrap();
        assert_eq!(m.counters.lookups, trace.len() as u64);
        let hits = stack_distance_hits(&trace, (dram / 4) as usize);
        assert_eq!(m.counters.hits, hits, "{dram} bytes");
        assert!(hits > 0 && hits < trace.len() as u64);
    }
}

#[test]
fn lru_hits_equal_stack_distance_on_random_zipf_and_looping_workloads() {
    let mut rng = Pcg64Mcg::seed_from_u64(7);
    let pages = 6963;
    let uniform: Vec<u64> = (0..6000).map(|_| rng.random_range(0..pages)).collect();
    let skewed = zipf(pages, 0.9, 6000, &mut rng);
    // A trace-like pattern: sequential runs from random starts, with re-reads of recent runs.
    let mut looping = Vec::new();
    while looping.len() < 6000 {
        let start = rng.random_range(0..pages - 64);
        let len = rng.random_range(1..64);
        looping.extend(start..start + len);
        if rng.random::<f64>() < 0.5 && looping.len() > 200 {
            let back = looping.len() - rng.random_range(1..200);
            looping.extend_from_slice(&looping.clone()[back..]);
        }
    }
    looping.truncate(6000);
    for (name, trace) in [("uniform", uniform), ("zipf", skewed), ("looping", looping)] {
        for dram in [4096u64, 16384] {
            let cfg = demand(dram, "lru", NO_PRECONDITION);
            let ops = mixed(&trace, &mut rng, 0.6);
            let s = run(&cfg, &ops);
            let m = s.map_cache.expect("a demand cache reports");
            let cap = (dram / 4) as usize;
            assert_eq!(m.cached_entries, cap as u64);
            assert_eq!(m.counters.lookups, trace.len() as u64, "{name}");
            assert_eq!(
                m.counters.hits,
                stack_distance_hits(&trace, cap),
                "{name} with {dram} bytes"
            );
        }
    }
}

/// Brute-force DFTL: an LRU list of (entry, dirty), the translation pages ever written, and
/// the traffic: a miss reads its translation page if it was written; a dirty eviction reads
/// the stored copy (if any) and writes a new one, cleaning every cached entry of that page.
fn brute_force_traffic(ops: &[(Op, u64)], cap: usize, per_tp: u64) -> (u64, u64, u64) {
    let mut lru: Vec<(u64, bool)> = Vec::new(); // most recent first
    let mut written = std::collections::HashSet::new();
    let (mut reads, mut writes, mut misses) = (0, 0, 0);
    for &(op, p) in ops {
        let dirty = op == Op::Write;
        if let Some(i) = lru.iter().position(|&(e, _)| e == p) {
            let (_, d) = lru.remove(i);
            lru.insert(0, (p, d || dirty));
            continue;
        }
        misses += 1;
        if written.contains(&(p / per_tp)) {
            reads += 1;
        }
        let victim = if lru.len() == cap { lru.pop() } else { None };
        lru.insert(0, (p, dirty));
        if let Some((v, true)) = victim {
            let t = v / per_tp;
            if !written.insert(t) {
                reads += 1;
            }
            writes += 1;
            // The write-back goes at the end of the request and takes every dirty entry of
            // its page, the one this request loaded included (its new value is decided).
            for x in lru.iter_mut().filter(|x| x.0 / per_tp == t) {
                x.1 = false;
            }
        }
    }
    (reads, writes, misses)
}

#[test]
fn translation_traffic_matches_a_brute_force_dftl_on_a_small_device() {
    let mut rng = Pcg64Mcg::seed_from_u64(11);
    // Few enough writes that GC never runs (it would add translation updates of its own).
    let trace: Vec<u64> = (0..3000).map(|_| rng.random_range(0..6963)).collect();
    for (dram, reads) in [(4096u64, 0.5), (8192, 0.8), (4096, 0.0)] {
        let ops = mixed(&trace, &mut rng, reads);
        let cfg = demand(dram, "lru", NO_PRECONDITION);
        let s = run(&cfg, &ops);
        assert_eq!(s.gc_invocations, 0);
        let m = s.map_cache.unwrap();
        let (r, w, misses) = brute_force_traffic(&ops, (dram / 4) as usize, 1024);
        assert_eq!(m.counters.lookups - m.counters.hits, misses);
        assert_eq!(m.counters.translation_reads, r, "dram {dram}");
        assert_eq!(m.counters.translation_writes, w, "dram {dram}");
        // On flash: the data reads of mapped pages and the programs of host pages, plus the
        // translation traffic, all of it.
        let host_programs = ops.iter().filter(|o| o.0 == Op::Write).count() as u64;
        assert_eq!(s.nand_programs, host_programs + w);
        let mut mapped = std::collections::HashSet::new();
        let mut data_reads = 0;
        for &(op, p) in &ops {
            match op {
                Op::Write => {
                    mapped.insert(p);
                }
                _ => data_reads += mapped.contains(&p) as u64,
            }
        }
        assert_eq!(s.nand_reads, data_reads + r);
        assert!(
            (m.map_waf - w as f64 / host_programs.max(1) as f64).abs() < 1e-12
                || host_programs == 0
        );
    }
}

#[test]
fn a_budget_holding_the_whole_table_is_the_full_table_byte_for_byte() {
    let table = 6963 * 4;
    let workload = |cfg: &SimConfig| {
        let stream = crate::support::uniform_stream(cfg, 4000, 0.5, 4, 3);
        flashpress_core::sim::Simulation::with_streams(cfg.clone(), vec![stream])
            .unwrap()
            .run()
            .unwrap()
    };
    let pre = "[precondition]\nfill_fraction = 1.0\naging_fraction = 0.5\n";
    let full = workload(&config(&format!("preset = \"tiny\"\n{pre}")));
    let whole = workload(&demand(table, "lru", pre));
    assert!(whole.summary.map_cache.is_none());
    assert_eq!(full.summary_json(), whole.summary_json());
    assert_eq!(full.timeline_csv(), whole.timeline_csv());
    // One translation page less is paged, and it shows.
    let paged = workload(&demand(table - 4096, "lru", pre));
    assert!(paged.summary.map_cache.unwrap().hit_ratio < 1.0);
}

#[test]
fn uniform_reads_miss_one_minus_cached_over_total() {
    let pre = "[precondition]\nfill_fraction = 1.0\naging_fraction = 0.0\n";
    for (dram, policy) in [(8192u64, "lru"), (4096 * 3, "lru"), (8192, "segmented_lru")] {
        let cfg = demand(dram, policy, pre);
        let stream = crate::support::uniform_stream(&cfg, 60_000, 1.0, 8, 5);
        let s = flashpress_core::sim::Simulation::with_streams(cfg, vec![stream])
            .unwrap()
            .run()
            .unwrap()
            .summary;
        let m = s.map_cache.unwrap();
        let expected = 1.0 - (dram / 4) as f64 / 6963.0;
        let miss = 1.0 - m.hit_ratio;
        assert!(
            (miss - expected).abs() < 0.01,
            "{policy} {dram}: miss ratio {miss}, expected {expected}"
        );
        // Every miss read its translation page (all were written by the fill), and reads
        // write nothing back once the fill's dirty entries are gone.
        assert_eq!(
            m.counters.translation_lookup_reads,
            m.counters.lookups - m.counters.hits
        );
    }
}

#[test]
fn a_miss_costs_exactly_one_translation_read_at_queue_depth_one() {
    // tiny: SLC read 25 us, a 4 KiB page over a 400 MB/s channel 10.24 us, no ECC time.
    let pre = "[precondition]\nfill_fraction = 1.0\naging_fraction = 0.0\n";
    let cfg = demand(4096, "lru", pre);
    // Reads spaced 10 ms apart: nothing queues. 0..1024 evict the fill's dirty entries (their
    // write-backs run then); then page 0 hits and page 3000 misses, evicting a clean entry.
    let gap = 10_000_000;
    let mut script: Vec<(Op, u64, u64, u64)> = (0..1024)
        .map(|p| (Op::Read, p * 4096, 4096, p * gap))
        .collect();
    script.push((Op::Read, 0, 4096, 1100 * gap));
    let with = |p: u64| {
        let mut s = script.clone();
        s.push((Op::Read, p * 4096, 4096, 1101 * gap));
        script_sim(&cfg, s, Drive::Open).run().unwrap().summary
    };
    // The last read: page 1 (a hit: the most recent entry but one) or page 3000 (a miss).
    let (hit, miss) = (with(1), with(3000));
    let (h, m) = (hit.map_cache.unwrap(), miss.map_cache.unwrap());
    assert_eq!(
        m.counters.lookups - m.counters.hits,
        h.counters.lookups - h.counters.hits + 1
    );
    assert_eq!(
        m.counters.translation_reads,
        h.counters.translation_reads + 1
    );
    assert_eq!(m.counters.translation_writes, h.counters.translation_writes);
    // Its latency: the hit's plus one translation read (sensing and transfer).
    let sum = |s: &Summary| s.read.latency_us.unwrap().mean * s.read.requests as f64;
    let translation_us = 25.0 + 4096.0 / 400.0;
    assert!(
        (sum(&miss) - sum(&hit) - translation_us).abs() < 1e-6,
        "the miss cost {} us more than the hit",
        sum(&miss) - sum(&hit)
    );
    // The hit alone: command overhead 1 us, read 25 us, channel 10.24 us, link at 3940 MB/s
    // (to the nanosecond the link time rounds to).
    let base = script_sim(&cfg, script.clone(), Drive::Open)
        .run()
        .unwrap()
        .summary;
    let one_hit = 1.0 + 25.0 + 10.24 + 4096.0 / 3940.0;
    let hit_us = sum(&hit) - sum(&base);
    assert!((hit_us - one_hit).abs() < 1e-3, "hit {hit_us} us");
    // The split: the miss waited exactly one translation read more.
    let t = |s: &Summary| {
        s.map_cache.unwrap().read_translation_mean_us.unwrap() * s.read.requests as f64
    };
    assert!((t(&miss) - t(&hit) - translation_us).abs() < 1e-6);
}

#[test]
fn bad_budgets_and_combinations_name_the_key() {
    let bad = [
        (
            "[ftl]\nmap_cache = { type = \"demand\", dram_bytes = 4095, policy = \"lru\" }\n",
            "ftl.map_cache.dram_bytes",
            "from one translation page (4096 bytes)",
        ),
        (
            "[ftl]\nmap_cache = { type = \"demand\", dram_bytes = 27853, policy = \"lru\" }\n",
            "ftl.map_cache.dram_bytes",
            "to the whole mapping table (27852 bytes",
        ),
        (
            "[ftl]\nmap_cache = { type = \"demand\", dram_bytes = 8192, policy = \"mru\" }\n",
            "ftl.map_cache",
            "mru",
        ),
        (
            "[ftl]\nmap_cache = { type = \"demand\", policy = \"lru\" }\n",
            "ftl.map_cache",
            "dram_bytes",
        ),
        (
            "[ftl]\nmap_cache = { type = \"full\", dram_bytes = 8192 }\n",
            "ftl.map_cache",
            "unknown key",
        ),
        (
            "[ftl]\nmap_cache = { type = \"partial\" }\n",
            "ftl.map_cache",
            "partial",
        ),
    ];
    for (toml, key, what) in bad {
        let e = SimConfig::from_toml_str(&format!("preset = \"tiny\"\n{toml}"), "test")
            .expect_err(toml)
            .to_string();
        assert!(e.contains(key) && e.contains(what), "{toml}: {e}");
    }
}

#[test]
fn gc_moves_translation_pages_and_updates_entries_with_verify_on() {
    let pre = "[precondition]\nfill_fraction = 1.0\naging_fraction = 1.0\n[check]\nverify = true\n";
    let bg = "[ftl.gc]\nbackground = true\n";
    for (policy, extra) in [("lru", ""), ("segmented_lru", ""), ("lru", bg)] {
        let run = || {
            let cfg = demand(4096 * 2, policy, &format!("{pre}{extra}"));
            if extra.is_empty() {
                let stream = crate::support::uniform_stream(&cfg, 30_000, 0.3, 8, 9);
                return flashpress_core::sim::Simulation::with_streams(cfg, vec![stream])
                    .unwrap()
                    .run()
                    .unwrap();
            }
            // Open loop with gaps, so idle planes clean in the background (and the map's
            // write-backs, about one a write on top of GC's, leave the device room).
            let mut rng = Pcg64Mcg::seed_from_u64(9);
            let script = (0..15_000u64)
                .map(|i| {
                    let op = if rng.random::<f64>() < 0.3 {
                        Op::Read
                    } else {
                        Op::Write
                    };
                    (op, rng.random_range(0..6963u64) * 4096, 4096, i * 2_000_000)
                })
                .collect();
            script_sim(&cfg, script, Drive::Open).run().unwrap()
        };
        let r = run();
        let s = &r.summary;
        let m = s.map_cache.unwrap();
        assert!(s.gc_invocations > 0);
        assert!(extra.is_empty() || s.gc_background_blocks > 0);
        assert!(m.counters.gc_uncached_updates > 0, "{policy}: {m:?}");
        assert!(m.counters.translation_writes > 0);
        assert!(s.verified_page_reads > 0);
        // Map-induced writes show in the device's WAF: every program is a host page, a GC
        // migration or a translation page.
        assert_eq!(
            s.nand_programs,
            s.host_write_bytes / 4096 + s.gc_pages_migrated + m.counters.translation_writes
        );
        assert_eq!(r.summary_json(), run().summary_json(), "deterministic");
    }
}

#[test]
fn timeline_columns_add_up_to_the_summary() {
    let pre =
        "[precondition]\nfill_fraction = 1.0\naging_fraction = 0.0\n[stats]\ninterval_ms = 20.0\n";
    let cfg = demand(8192, "lru", pre);
    let stream = crate::support::uniform_stream(&cfg, 20_000, 0.7, 4, 2);
    let r = flashpress_core::sim::Simulation::with_streams(cfg, vec![stream])
        .unwrap()
        .run()
        .unwrap();
    let m = r.summary.map_cache.unwrap();
    let col = |name: &str| crate::support::timeline_col(&r, name);
    assert!(col("time_s").len() > 3);
    let sum = |v: Vec<f64>| v.iter().filter(|x| !x.is_nan()).sum::<f64>();
    assert_eq!(
        sum(col("map_translation_reads")),
        m.counters.translation_reads as f64
    );
    assert_eq!(
        sum(col("map_translation_writes")),
        m.counters.translation_writes as f64
    );
    let hits = col("map_hit_ratio");
    assert!(hits.iter().all(|h| h.is_nan() || (0.0..=1.0).contains(h)));
    assert!(hits.iter().any(|h| !h.is_nan() && *h < 1.0));
    // The full table has none of these columns.
    let full = config(&format!("preset = \"tiny\"\n{pre}"));
    let stream = crate::support::uniform_stream(&full, 100, 0.7, 4, 2);
    let r = flashpress_core::sim::Simulation::with_streams(full, vec![stream])
        .unwrap()
        .run()
        .unwrap();
    assert!(!r.timeline.iter().any(|c| c.name.starts_with("map_")));
}

// The packed map of a compressing device (`ftl.compression`, PR-SSD's schemes).

/// A small TLC device with 16 KiB pages and 4 KiB partial reads (6144 flash pages, 4608
/// logical pages, 4607 for the host), compressing in its controller: `chunks` pages at most
/// per flash page, zero bitmaps with `zeros`, content compressing 2:1.
fn packed(chunks: u32, zeros: bool, extra: &str, map_cache: &str) -> SimConfig {
    packed_with(
        chunks,
        zeros,
        extra,
        map_cache,
        "type = \"fixed\"\nratio = 2.0",
    )
}

/// [`packed`] with content ratios `ratio` (a `[content.ratio]` table's keys).
fn packed_with(chunks: u32, zeros: bool, extra: &str, map_cache: &str, ratio: &str) -> SimConfig {
    config(&format!(
        "{}{extra}\n[ftl]\nop_ratio = 0.25\nwrite_buffer_pages = 4\n{map_cache}\n\
         [ftl.compression]\ncodec = \"lz4\"\nmin_saving = 0.0\nmax_chunks_per_page = {chunks}\n\
         compress_us = 12.0\ndecompress_us = 12.0\nzero_units = {zeros}\n\
         [content]\nmode = \"model\"\ncodec = \"lz4\"\ngranularity = 16384\n\
         [content.ratio]\n{ratio}\n",
        tlc_device!(2, 1, 32)
    ))
}

fn demand_of(dram: u64) -> String {
    format!("map_cache = {{ type = \"demand\", dram_bytes = {dram}, policy = \"lru\" }}")
}

/// PR-SSD's accounting by hand for this device (4608 logical pages, 6144 flash pages): S's
/// fields (20 slots, partial bitmap) are 42 bits per logical page and 665 per flash page
/// (5-bit count, 20-bit valid bitmap, 20 reverse entries); DP's (12 slots, partial and zero
/// bitmaps) 45 and 400.
const S_TABLE: u64 = (4608 * 42 + 6144 * 665) / 8;
const DP_TABLE: u64 = (4608 * 45 + 6144 * 400) / 8;

/// Single-page requests over the host's pages at queue depth 1, in the order given.
fn run_packed(cfg: &SimConfig, pages: &[(Op, u64)]) -> Summary {
    let script = pages
        .iter()
        .map(|&(op, p)| (op, p * 16384, 16384, 0))
        .collect();
    script_sim(cfg, script, Drive::Closed { depth: 1 })
        .run()
        .unwrap()
        .summary
}

#[test]
fn the_packed_map_is_paged_with_the_schemes_entry_width() {
    for (chunks, zeros, table) in [(20, false, S_TABLE), (12, true, DP_TABLE)] {
        let cfg = packed(chunks, zeros, "", "");
        assert_eq!(
            flashpress_core::device::compress::mapping_table_bytes(&cfg),
            table
        );
        let cfg = packed(chunks, zeros, NO_PRECONDITION, &demand_of(100_000));
        let t = flashpress_core::ftl::mapcache::table(&cfg);
        assert_eq!((t.entries, t.bytes, t.per), (4607, table, 4608));
        assert_eq!(
            flashpress_core::ftl::mapcache::entries_per_tpage(&cfg),
            16384 * 4608 / table
        );
        assert_eq!(
            flashpress_core::ftl::mapcache::demand(&cfg).unwrap().0,
            100_000 * 4608 / table
        );
    }
}

#[test]
fn packed_map_hits_and_translation_traffic_match_stack_distance_and_brute_force() {
    let mut rng = Pcg64Mcg::seed_from_u64(21);
    let pages = 4607;
    let uniform: Vec<u64> = (0..5000).map(|_| rng.random_range(0..pages)).collect();
    let skewed = zipf(pages, 0.9, 5000, &mut rng);
    for (name, trace) in [("uniform", uniform), ("zipf", skewed)] {
        for (chunks, zeros, table) in [(20, false, S_TABLE), (12, true, DP_TABLE)] {
            let dram = 60_000;
            let cfg = packed(chunks, zeros, NO_PRECONDITION, &demand_of(dram));
            let ops = mixed(&trace, &mut rng, 0.6);
            let s = run_packed(&cfg, &ops);
            assert_eq!(s.gc_invocations, 0, "GC would add translation updates");
            let m = s.map_cache.expect("a demand cache reports");
            let cap = (dram * 4608 / table) as usize;
            assert_eq!(m.cached_entries, cap as u64);
            assert_eq!(m.counters.lookups, trace.len() as u64, "{name}");
            assert_eq!(
                m.counters.hits,
                stack_distance_hits(&trace, cap),
                "{name}, {chunks} chunks"
            );
            let per_tp = 16384 * 4608 / table;
            let (r, w, misses) = brute_force_traffic(&ops, cap, per_tp);
            assert_eq!(m.counters.lookups - m.counters.hits, misses);
            assert_eq!(m.counters.translation_reads, r, "{name}, {chunks} chunks");
            assert_eq!(m.counters.translation_writes, w, "{name}, {chunks} chunks");
            assert!(w > 0 && r > 0, "{name}: traffic both ways");
        }
    }
}

#[test]
fn a_narrower_packed_entry_hits_more_by_its_entries_per_byte() {
    // Uniform random whole-page reads over a full device: an LRU cache of c of n entries
    // misses 1 - c/n. At one budget DP's table (smaller by its 12 slots per page against
    // S's 20) caches table_S / table_DP times the entries, so it hits that many times more.
    let pre = "[precondition]\nfill_fraction = 1.0\naging_fraction = 0.0\n";
    let dram = 100_000u64;
    let mut hit = Vec::new();
    for (chunks, zeros, table) in [(20, false, S_TABLE), (12, true, DP_TABLE)] {
        let cfg = packed(chunks, zeros, pre, &demand_of(dram));
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        let ops: Vec<(Op, u64)> = (0..40_000)
            .map(|_| (Op::Read, rng.random_range(0..4607)))
            .collect();
        let s = run_packed(&cfg, &ops);
        let m = s.map_cache.unwrap();
        let cached = dram * 4608 / table;
        let expected = cached as f64 / 4607.0;
        assert!(
            (m.hit_ratio - expected).abs() < 0.01,
            "{chunks} chunks: hit ratio {}, expected {expected}",
            m.hit_ratio
        );
        // Every miss read its translation page (the fill wrote them all).
        assert_eq!(
            m.counters.translation_lookup_reads,
            m.counters.lookups - m.counters.hits
        );
        hit.push((m.hit_ratio, cached as f64));
    }
    let (measured, analytic) = (hit[1].0 / hit[0].0, hit[1].1 / hit[0].1);
    assert!((analytic - S_TABLE as f64 / DP_TABLE as f64).abs() < 0.01);
    assert!(
        (measured / analytic - 1.0).abs() < 0.05,
        "DP hits {measured}x S's, entries per byte {analytic}x"
    );
}

#[test]
fn a_budget_holding_the_whole_packed_table_is_the_full_table_byte_for_byte() {
    let pre = "[precondition]\nfill_fraction = 1.0\naging_fraction = 0.5\n";
    let mut rng = Pcg64Mcg::seed_from_u64(9);
    let ops: Vec<(Op, u64)> = (0..3000)
        .map(|_| {
            let op = if rng.random::<f64>() < 0.5 {
                Op::Read
            } else {
                Op::Write
            };
            (op, rng.random_range(0..4607))
        })
        .collect();
    let full = run_packed(&packed(12, true, pre, ""), &ops);
    let whole = run_packed(&packed(12, true, pre, &demand_of(DP_TABLE)), &ops);
    assert!(whole.map_cache.is_none());
    assert_eq!(
        serde_json::to_string(&full).unwrap(),
        serde_json::to_string(&whole).unwrap()
    );
    let paged = run_packed(&packed(12, true, pre, &demand_of(DP_TABLE - 16384)), &ops);
    let m = paged.map_cache.unwrap();
    assert!(m.hit_ratio < 1.0 && m.counters.translation_lookup_reads > 0);
    assert!(paged.read.latency_us.unwrap().mean > full.read.latency_us.unwrap().mean);
}

/// Packing, partial-page writes, TRIM and GC under a small budget: verify mode checks every
/// read, the invariant check passes, and GC moving virtual pages updated their logical
/// pages' entries (in DRAM or in their translation pages).
#[test]
fn every_read_returns_the_last_write_through_a_paged_packed_map_and_gc() {
    let text = "[check]\nverify = true\ninvariants = true\n";
    let cfg = packed_with(
        20,
        false,
        text,
        &demand_of(40_000),
        "type = \"uniform\"\nmin = 1.0\nmax = 5.0",
    );
    let script = crate::support::mixed_16k_script(3, 4607, 30_000);
    let s = script_sim(&cfg, script, Drive::Closed { depth: 8 })
        .run()
        .unwrap()
        .summary;
    assert_eq!(s.requests_completed, 30_000);
    assert!(s.verified_page_reads > 5_000);
    assert!(s.gc_blocks_erased > 0, "GC ran");
    let m = s.map_cache.unwrap();
    assert!(m.hit_ratio < 1.0);
    assert!(
        m.counters.gc_uncached_updates > 0,
        "GC updated uncached entries: {m:?}"
    );
    assert!(m.counters.translation_writes > 0 && m.map_waf > 0.0);
}

#[test]
fn a_budget_over_the_whole_packed_table_is_refused_naming_the_key() {
    let over = format!(
        "{}\n[ftl]\nop_ratio = 0.25\nwrite_buffer_pages = 4\n{}\n[ftl.compression]\ncodec = \"lz4\"\nmin_saving = 0.0\nmax_chunks_per_page = 20\n\
         compress_us = 12.0\ndecompress_us = 12.0\nzero_units = false\n[content]\nmode = \"model\"\n",
        tlc_device!(2, 1, 32),
        demand_of(S_TABLE + 1)
    );
    let e = SimConfig::from_toml_str(&over, "test")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("ftl.map_cache.dram_bytes")
            && e.contains(&format!("whole mapping table ({S_TABLE} bytes"))
            && e.contains("summary.mapping_table_bytes per logical page"),
        "{e}"
    );
}
