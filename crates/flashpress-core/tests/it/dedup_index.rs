//! The dedup layer's fingerprint index under a DRAM budget (`ftl.dedup.index_cache = { type =
//! "demand" }`) against independent models: bucket-page hits from an LRU stack-distance count
//! over the fingerprint lookups, the index's flash traffic from a brute-force model of the
//! bucket cache and the dedup decisions, the hand-computed cost of one miss, and the whole
//! index in DRAM when the budget holds it all.

use crate::map_cache::stack_distance_hits;
use crate::support::{config, stream_of, NO_PRECONDITION};
use flashpress_core::config::SimConfig;
use flashpress_core::ftl::fpindex::bucket_of;
use flashpress_core::sim::Simulation;
use flashpress_core::stats::Summary;
use flashpress_core::units::SimTime;
use flashpress_core::workload::{Drive, Op, Request, RequestSource};
use flashpress_core::Result;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::collections::{BTreeMap, BTreeSet};

/// The tiny preset's bucket pages: one entry of 12 bytes per node of the dedup map, 341 to a
/// 4 KiB page; 6963 logical pages have 6963 + 6963 / 8 + 64 = 7897 nodes.
const INDEX_PAGES: u32 = 7897_u32.div_ceil(341);

/// Single-page requests (operation, page, content id, time in ns).
struct Pages(Vec<(Op, u64, u64, u64)>, usize);

impl RequestSource for Pages {
    fn next_request(&mut self, _now: SimTime) -> Result<Option<Request>> {
        let Some(&(op, page, content, t)) = self.0.get(self.1) else {
            return Ok(None);
        };
        self.1 += 1;
        Ok(Some(Request {
            time: SimTime(t),
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

/// The tiny device with dedup `mode`, a bucket-page budget of `dram` bytes (`None`: the
/// whole index in DRAM) and `extra` TOML (before the tables).
fn cfg(mode: &str, dram: Option<u64>, extra: &str) -> SimConfig {
    let index = dram.map_or(String::new(), |d| {
        format!("index_cache = {{ type = \"demand\", dram_bytes = {d}, policy = \"lru\" }}\n")
    });
    config(&format!(
        "preset = \"tiny\"\n{extra}[ftl.gc]\ncopyback = false\n[ftl.dedup]\nmode = \"{mode}\"\nhash_us = 14.0\n{index}"
    ))
}

fn run(cfg: &SimConfig, reqs: Vec<(Op, u64, u64, u64)>, drive: Drive) -> Simulation {
    let stream = stream_of("pages", Box::new(Pages(reqs, 0)), drive);
    let mut sim = Simulation::with_streams(cfg.clone(), vec![stream]).unwrap();
    while !sim.step(1 << 20).unwrap() {}
    sim
}

/// Writes of random pages with contents from a Zipf-like pool (many duplicates), and some
/// TRIMs and reads.
fn pool_requests(n: usize, pages: u64, pool: u64, seed: u64) -> Vec<(Op, u64, u64, u64)> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let page = rng.random_range(0..pages);
            let x: f64 = rng.random();
            if x < 0.1 {
                (Op::Trim, page, 0, 0)
            } else if x < 0.25 {
                (Op::Read, page, 0, 0)
            } else {
                // Squaring a uniform draw skews the pool towards its first contents.
                let u: f64 = rng.random();
                (Op::Write, page, 1 + (u * u * pool as f64) as u64, 0)
            }
        })
        .collect()
}

#[test]
fn bucket_hits_equal_stack_distance_over_the_fingerprint_lookups() {
    let reqs = pool_requests(4000, 6963, 3000, 3);
    // Inline dedup looks every written page's fingerprint (its content id) up, once.
    let lookups: Vec<u64> = reqs
        .iter()
        .filter(|r| r.0 == Op::Write)
        .map(|r| bucket_of(r.2, INDEX_PAGES) as u64)
        .collect();
    for pages in [1u64, 4, 10] {
        let c = cfg("inline", Some(pages * 4096), NO_PRECONDITION);
        let s = run(&c, reqs.clone(), Drive::Closed { depth: 4 })
            .finish()
            .unwrap()
            .summary;
        let ix = s.map_cache.unwrap().fingerprint_index.unwrap();
        assert_eq!(ix.index_pages, INDEX_PAGES as u64);
        assert_eq!(ix.cached_pages, pages);
        assert_eq!(ix.lookups, lookups.len() as u64);
        let hits = stack_distance_hits(&lookups, pages as usize);
        assert_eq!(ix.hits, hits, "{pages} bucket pages");
        assert!(hits > 0 && hits < lookups.len() as u64);
    }
}

/// Brute-force model of inline dedup over a bucket-page LRU: content reference counts (what
/// the index holds), the LRU as a list of (bucket, dirty), the buckets ever written. Returns
/// (lookups, hits, reads, lookup reads, writes, dirty evictions, uncached updates).
fn brute_force(reqs: &[(Op, u64, u64, u64)], cap: usize) -> [u64; 7] {
    let mut holds: BTreeMap<u64, u64> = BTreeMap::new();
    let mut count: BTreeMap<u64, u64> = BTreeMap::new();
    let mut lru: Vec<(u32, bool)> = Vec::new();
    let mut written: BTreeSet<u32> = BTreeSet::new();
    let [mut lookups, mut hits, mut reads, mut lreads, mut writes, mut dirty_ev, mut uncached] =
        [0u64; 7];
    for &(op, page, c, _) in reqs {
        // Write-backs this request queues (flushed after it), in order, once each.
        let mut pending: Vec<u32> = Vec::new();
        let mut update = |lru: &mut Vec<(u32, bool)>, pending: &mut Vec<u32>, b: u32| match lru
            .iter_mut()
            .find(|x| x.0 == b)
        {
            Some(x) => x.1 = true,
            None => {
                uncached += 1;
                if !pending.contains(&b) {
                    pending.push(b);
                }
            }
        };
        let drop = |holds: &mut BTreeMap<u64, u64>, count: &mut BTreeMap<u64, u64>| {
            let old = holds.remove(&page)?;
            let n = count.get_mut(&old).unwrap();
            *n -= 1;
            if *n == 0 {
                count.remove(&old);
                return Some(bucket_of(old, INDEX_PAGES));
            }
            None
        };
        match op {
            Op::Write => {
                lookups += 1;
                let b = bucket_of(c, INDEX_PAGES);
                if let Some(i) = lru.iter().position(|x| x.0 == b) {
                    hits += 1;
                    let x = lru.remove(i);
                    lru.insert(0, x);
                } else {
                    if written.contains(&b) {
                        reads += 1;
                        lreads += 1;
                    }
                    if lru.len() == cap {
                        let (v, d) = lru.pop().unwrap();
                        if d {
                            dirty_ev += 1;
                            pending.push(v);
                        }
                    }
                    lru.insert(0, (b, false));
                }
                if count.contains_key(&c) {
                    // A duplicate: linked, then the page's old content dropped.
                    *count.get_mut(&c).unwrap() += 1;
                    let freed = drop(&mut holds, &mut count);
                    holds.insert(page, c);
                    if let Some(z) = freed {
                        update(&mut lru, &mut pending, z);
                    }
                } else {
                    // A new content: indexed, then the old one dropped.
                    update(&mut lru, &mut pending, b);
                    let freed = drop(&mut holds, &mut count);
                    count.insert(c, 1);
                    holds.insert(page, c);
                    if let Some(z) = freed {
                        update(&mut lru, &mut pending, z);
                    }
                }
            }
            Op::Trim => {
                if let Some(z) = drop(&mut holds, &mut count) {
                    update(&mut lru, &mut pending, z);
                }
            }
            _ => {}
        }
        for b in pending {
            reads += written.contains(&b) as u64;
            written.insert(b);
            writes += 1;
        }
    }
    [lookups, hits, reads, lreads, writes, dirty_ev, uncached]
}

#[test]
fn index_traffic_matches_a_brute_force_model_on_a_small_device() {
    for (pages, pool, seed) in [(1u64, 500u64, 1u64), (3, 3000, 2), (8, 20_000, 3)] {
        // Few enough writes that GC never runs.
        let reqs = pool_requests(3000, 6963, pool, seed);
        let c = cfg("inline", Some(pages * 4096), NO_PRECONDITION);
        let sim = run(&c, reqs.clone(), Drive::Closed { depth: 1 });
        sim.device().unwrap().check_invariants().unwrap();
        let s = sim.finish().unwrap().summary;
        assert_eq!(s.gc_invocations, 0);
        let ix = s.map_cache.unwrap().fingerprint_index.unwrap();
        let [lookups, hits, reads, lreads, writes, dirty_ev, uncached] =
            brute_force(&reqs, pages as usize);
        let got = [
            ix.lookups,
            ix.hits,
            ix.translation_reads,
            ix.lookup_reads,
            ix.translation_writes,
            ix.dirty_evictions,
            ix.uncached_updates,
        ];
        assert_eq!(
            got,
            [lookups, hits, reads, lreads, writes, dirty_ev, uncached],
            "{pages} pages, pool {pool}"
        );
        assert!(writes > 0 && lreads > 0);
        // On flash: the host pages stored, the data reads and the index's traffic, all of it.
        let dd = s.dedup.unwrap();
        let stored_writes = dd.counters.inline_hashed - dd.counters.inline_duplicates;
        assert_eq!(s.nand_programs, stored_writes + writes);
        let mut holds = BTreeSet::new();
        let mut data_reads = 0;
        for &(op, p, _, _) in &reqs {
            match op {
                Op::Write => {
                    holds.insert(p);
                }
                Op::Trim => {
                    holds.remove(&p);
                }
                _ => data_reads += holds.contains(&p) as u64,
            }
        }
        assert_eq!(s.nand_reads, data_reads + reads);
    }
}

#[test]
fn a_budget_holding_the_whole_index_is_the_full_index_byte_for_byte() {
    let whole = INDEX_PAGES as u64 * 4096;
    let pre = "[precondition]\nfill_fraction = 1.0\naging_fraction = 0.5\n";
    let reqs = pool_requests(20_000, 6963, 4000, 5);
    for mode in ["inline", "gc"] {
        let go = |dram: Option<u64>| {
            let r = run(
                &cfg(mode, dram, pre),
                reqs.clone(),
                Drive::Closed { depth: 8 },
            )
            .finish()
            .unwrap();
            (r.summary_json(), r.timeline_csv(), r.summary)
        };
        let (full_json, full_tl, full) = go(None);
        let (json, tl, s) = go(Some(whole));
        assert!(s.map_cache.is_none());
        assert!(full.gc_invocations > 0);
        assert_eq!(full_json, json, "{mode}");
        assert_eq!(full_tl, tl, "{mode}");
        // One bucket page less is on flash, and it shows.
        let (_, _, paged) = go(Some(whole - 4096));
        let ix = paged.map_cache.unwrap().fingerprint_index.unwrap();
        assert!(ix.hit_ratio < 1.0 && ix.lookups > 0, "{mode}: {ix:?}");
    }
}

#[test]
fn one_fingerprint_miss_costs_exactly_one_bucket_read() {
    // One bucket page of DRAM. Contents a and b fall in different buckets.
    let a = 1u64;
    let b = (2..)
        .find(|&c| bucket_of(c, INDEX_PAGES) != bucket_of(a, INDEX_PAGES))
        .unwrap();
    let gap = 10_000_000;
    // Page 0 gets a (its bucket dirty), page 1 gets b (a's bucket is written back), page 2
    // gets a again (a duplicate: a's bucket read, b's written back, a's now cached clean).
    let script = vec![
        (Op::Write, 0, a, 0),
        (Op::Write, 1, b, gap),
        (Op::Write, 2, a, 2 * gap),
    ];
    let c = cfg("inline", Some(4096), NO_PRECONDITION);
    let with = |last: Option<u64>| {
        let mut s = script.clone();
        if let Some(x) = last {
            s.push((Op::Write, 3, x, 3 * gap));
        }
        run(&c, s, Drive::Open).finish().unwrap().summary
    };
    // The last write: another duplicate of a (its bucket cached) or of b (a miss that reads
    // b's bucket and evicts a's clean one: nothing written back).
    let (base, hit, miss) = (with(None), with(Some(a)), with(Some(b)));
    let (h, m) = (
        hit.map_cache.unwrap().fingerprint_index.unwrap(),
        miss.map_cache.unwrap().fingerprint_index.unwrap(),
    );
    assert_eq!(h.lookups, 4);
    assert_eq!(h.hits, 1, "only the last lookup hits: {h:?}");
    assert_eq!(m.lookups - m.hits, h.lookups - h.hits + 1);
    assert_eq!(m.lookup_reads, h.lookup_reads + 1);
    assert_eq!(m.translation_writes, h.translation_writes);
    assert_eq!(miss.nand_reads, hit.nand_reads + 1);
    assert_eq!(miss.nand_programs, hit.nand_programs);
    let sum = |s: &Summary| s.write.latency_us.unwrap().mean * s.write.requests as f64;
    // tiny: SLC read 25 us, a 4 KiB page over a 400 MB/s channel 10.24 us, no ECC time.
    let bucket_read_us = 25.0 + 4096.0 / 400.0;
    assert!(
        (sum(&miss) - sum(&hit) - bucket_read_us).abs() < 1e-6,
        "the miss cost {} us more than the hit",
        sum(&miss) - sum(&hit)
    );
    // A duplicate that hits: command overhead 1 us, the page over the link at 3940 MB/s,
    // hashing 14 us; nothing is programmed.
    let one_hit = 1.0 + 4096.0 / 3940.0 + 14.0;
    let hit_us = sum(&hit) - sum(&base);
    assert!((hit_us - one_hit).abs() < 1e-3, "hit {hit_us} us");
}

#[test]
fn gc_time_dedup_reads_missing_buckets_in_its_jobs_with_verify_on() {
    let pre = "[precondition]\nfill_fraction = 1.0\naging_fraction = 0.5\n[check]\nverify = true\n";
    let reqs = pool_requests(20_000, 6963, 4000, 9);
    let go = |dram: Option<u64>| {
        let sim = run(
            &cfg("gc", dram, pre),
            reqs.clone(),
            Drive::Closed { depth: 8 },
        );
        sim.device().unwrap().check_invariants().unwrap();
        let r = sim.finish().unwrap();
        (r.summary_json(), r.summary)
    };
    let (_, full) = go(None);
    let (json, s) = go(Some(2 * 4096));
    let ix = s.map_cache.unwrap().fingerprint_index.unwrap();
    let dd = s.dedup.unwrap();
    assert!(s.gc_invocations > 0 && dd.counters.gc_duplicates > 0);
    assert_eq!(dd.counters.inline_hashed, 0);
    // Every page GC hashed looked its fingerprint up, unless the node table marks it indexed.
    assert!(ix.lookups > 0 && ix.lookups <= dd.counters.gc_hashed);
    assert!(ix.lookup_reads > 0 && ix.translation_writes > 0);
    assert!(s.verified_page_reads > 0);
    // The bucket reads are GC's work: GC reads more pages than without them.
    assert!(s.nand_reads > full.nand_reads);
    // Every program is a host page, a GC migration (bucket pages included) or a write-back.
    assert_eq!(
        s.nand_programs,
        s.host_write_bytes / 4096 - dd.counters.inline_duplicates
            + s.gc_pages_migrated
            + ix.translation_writes
    );
    assert_eq!(json, go(Some(2 * 4096)).0, "deterministic");
}

#[test]
fn bad_index_budgets_name_the_key() {
    let whole = INDEX_PAGES as u64 * 4096;
    for (dram, what) in [
        (4095, "from one bucket page (4096 bytes)".to_string()),
        (
            whole + 1,
            format!("to the whole fingerprint index ({whole} bytes"),
        ),
    ] {
        let toml = format!(
            "preset = \"tiny\"\n[ftl.dedup]\nmode = \"inline\"\nhash_us = 1.0\nindex_cache = {{ type = \"demand\", dram_bytes = {dram}, policy = \"lru\" }}\n"
        );
        let e = SimConfig::from_toml_str(&toml, "test")
            .expect_err(&toml)
            .to_string();
        assert!(
            e.contains("ftl.dedup.index_cache.dram_bytes") && e.contains(&what),
            "{e}"
        );
    }
}

#[test]
fn the_page_map_of_nodes_pages_too_and_a_whole_budget_is_the_full_table() {
    // With dedup the paged table is the node table with the page map of nodes, one entry per
    // node on the tiny preset (6963 logical pages, 7897 nodes): per logical page its node
    // (4 bytes), per node its flash page (4), reference count (4) and forward (4).
    let table = 6963 * 4 + 7897 * 12;
    assert_eq!(
        flashpress_core::ftl::mapcache::table_bytes(&cfg("inline", None, "")),
        table
    );
    let pre = "[precondition]\nfill_fraction = 1.0\naging_fraction = 0.5\n[check]\nverify = true\n";
    let map = |dram: u64| {
        format!(
            "{pre}[ftl]\nmap_cache = {{ type = \"demand\", dram_bytes = {dram}, policy = \"lru\" }}\n"
        )
    };
    let reqs = pool_requests(20_000, 6963, 4000, 13);
    for mode in ["inline", "gc"] {
        let go = |c: SimConfig| {
            let sim = run(&c, reqs.clone(), Drive::Closed { depth: 8 });
            sim.device().unwrap().check_invariants().unwrap();
            sim.finish().unwrap()
        };
        let full = go(cfg(mode, None, pre));
        let whole = go(cfg(mode, None, &map(table)));
        assert!(whole.summary.map_cache.is_none());
        assert_eq!(full.summary_json(), whole.summary_json(), "{mode}");
        // Both tables paged: each reports its own hits and traffic.
        let run = || go(cfg(mode, Some(2 * 4096), &map(8192)));
        let r = run();
        let s = &r.summary;
        let m = s.map_cache.unwrap();
        let ix = m.fingerprint_index.unwrap();
        // 8192 bytes hold 8192 x 7897 / 122616 entries (527, not the 2048 4-byte page-map
        // entries); a translation page 4096 x 7897 / 122616 (263), so 31 pages.
        assert_eq!(m.cached_entries, 8192 * 7897 / table);
        assert_eq!(m.translation_pages, 7897u64.div_ceil(4096 * 7897 / table));
        assert_eq!((m.cached_entries, m.translation_pages), (527, 31));
        assert!(m.counters.lookups > 0 && m.hit_ratio < 1.0, "{mode}: {m:?}");
        assert!(m.counters.translation_writes > 0 && m.counters.translation_lookup_reads > 0);
        assert!(ix.lookups > 0 && ix.hit_ratio < 1.0);
        assert!(s.verified_page_reads > 0 && s.gc_invocations > 0);
        // Every program is a stored host page, a GC migration (translation pages included)
        // or a write-back of either table.
        let dd = s.dedup.unwrap();
        assert_eq!(
            s.nand_programs,
            s.host_write_bytes / 4096 - dd.counters.inline_duplicates
                + s.gc_pages_migrated
                + m.counters.translation_writes
                + ix.translation_writes,
            "{mode}"
        );
        assert_eq!(r.summary_json(), run().summary_json(), "deterministic");
    }
}

/// The timeline's `index_*` columns, per interval, add up to the summary's fingerprint index
/// counters; its hit ratios are fractions, and below 1 somewhere; the whole index in DRAM
/// has none of them (and a page map in DRAM none of the `map_*` ones).
#[test]
fn index_timeline_columns_add_up_to_the_summary() {
    let reqs = pool_requests(6000, 6963, 3000, 8);
    let pre = format!("{NO_PRECONDITION}[stats]\ninterval_ms = 5.0\n");
    let c = cfg("inline", Some(4 * 4096), &pre);
    let r = run(&c, reqs.clone(), Drive::Closed { depth: 4 })
        .finish()
        .unwrap();
    let ix = r.summary.map_cache.unwrap().fingerprint_index.unwrap();
    let col = |name: &str| crate::support::timeline_col(&r, name);
    assert!(col("time_s").len() > 3);
    let sum = |v: Vec<f64>| v.iter().filter(|x| !x.is_nan()).sum::<f64>();
    assert!(ix.translation_reads > 0 && ix.translation_writes > 0);
    assert_eq!(
        sum(col("index_translation_reads")),
        ix.translation_reads as f64
    );
    assert_eq!(
        sum(col("index_translation_writes")),
        ix.translation_writes as f64
    );
    let hits = col("index_hit_ratio");
    assert!(hits.iter().all(|h| h.is_nan() || (0.0..=1.0).contains(h)));
    assert!(hits.iter().any(|h| !h.is_nan() && *h < 1.0));
    assert!(!r.timeline.iter().any(|c| c.name.starts_with("map_")));
    let whole = cfg("inline", None, &pre);
    let r = run(&whole, reqs, Drive::Closed { depth: 4 })
        .finish()
        .unwrap();
    assert!(!r.timeline.iter().any(|c| c.name.starts_with("index_")));
}

#[test]
fn the_reverse_map_is_wide_enough_for_the_bucket_pages_past_a_power_of_two() {
    // The reverse map numbers the page map's entries: nodes, then the bucket pages. An
    // over-provisioning whose nodes end just below a power of two puts the bucket pages past
    // it: their entries need one bit more than the nodes alone.
    use flashpress_core::ftl::{self, UnitMap};
    let dram = 4 * 4096;
    let (cfg, op) = (1000..2000)
        .map(|i| i as f64 / 10_000.0)
        .find_map(|op| {
            let c = cfg(
                "inline",
                Some(dram),
                &format!("[ftl]\nop_ratio = {op}\n[precondition]\nfill_fraction = 1.0\naging_fraction = 0.0\n"),
            );
            let nodes = ftl::mapped_pages(&c) + ftl::mapcache::translation_pages(&c);
            let all = ftl::mapped_pages(&c) + ftl::translation_pages(&c);
            (c.validate("t").is_ok() && UnitMap::bits_for(nodes) < UnitMap::bits_for(all))
                .then_some((c, op))
        })
        .expect("an over-provisioning whose bucket pages cross a power of two");
    let logical = ftl::logical_pages(&cfg);
    let reqs = pool_requests(20_000, logical, 3000, 9);
    let r = run(&cfg, reqs, Drive::Closed { depth: 8 })
        .finish()
        .unwrap_or_else(|e| panic!("op_ratio {op}: {e}"));
    let ix = r.summary.map_cache.unwrap().fingerprint_index.unwrap();
    assert!(ix.lookups > 0 && ix.hit_ratio < 1.0, "{ix:?}");
    assert!(
        r.summary.gc_invocations > 0,
        "op_ratio {op}: GC must move bucket pages"
    );
}
