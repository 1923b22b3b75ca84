//! PR-SSD's split mapping table (`ftl.compression.split`) under a demand-paged map cache: the
//! packed map and the split table are paged by one cache, each part at its own entry width,
//! checked against PR-SSD's accounting by hand, an independent LRU model of a byte budget, a
//! hand sum of a miss at queue depth 1, the full table byte for byte, and verify mode.

use crate::support::{config, script_sim, NO_PRECONDITION};
use flashpress_core::config::SimConfig;
use flashpress_core::ftl::mapcache;
use flashpress_core::stats::Summary;
use flashpress_core::workload::{Drive, Op};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

const PAGE: u64 = 16384;

/// A small device with 16 KiB pages, 4 KiB partial reads and 4 channels (24,576 flash pages,
/// 18,432 logical pages, 18,431 for the host), compressing with PR-SSD's DP fields (12 slots,
/// zero bitmaps) and splitting (`decision`, room for 1,024 split pages); `cell` TLC or SLC.
fn device(cell: &str, decision: &str, chunks: u32, zeros: bool, extra: &str) -> String {
    let mut d = tlc_device!(4, 2, 32).to_string();
    if cell == "slc" {
        d = d
            .replace("cell = \"tlc\"", "cell = \"slc\"")
            .replace("[56.0, 118.0, 180.0]", "[56.0]")
            .replace("[700.0, 1050.0, 1400.0]", "[700.0]");
    }
    format!(
        "{d}{extra}\n[ftl]\nop_ratio = 0.25\nwrite_buffer_pages = 8\n\
         [ftl.compression]\ncodec = \"dpc\"\nmin_saving = 0.1\nmax_chunks_per_page = {chunks}\n\
         compress_us = 0.34\ndecompress_us = 0.038\nzero_units = {zeros}\n\
         [ftl.compression.split]\ndecision = \"{decision}\"\nmax_split_pages = 1024\n\
         [content]\nmode = \"model\"\ncodec = \"dpc\"\ngranularity = 16384\n"
    )
}

fn with_cache(text: &str, dram: Option<u64>) -> SimConfig {
    let mc = dram.map_or(String::new(), |d| {
        format!("map_cache = {{ type = \"demand\", dram_bytes = {d}, policy = \"lru\" }}\n")
    });
    config(&text.replace("[ftl]\n", &format!("[ftl]\n{mc}")))
}

/// PR-SSD's accounting by hand for this device (18,432 logical pages, 24,576 flash pages).
/// PR (DP's fields and the split flag): per logical page a 32-bit flash page, the compression
/// flag, a 4-bit slot, 4 partial bits, 4 zero bits and the split bit (46 bits); per flash page
/// a 4-bit count, a 12-bit valid bitmap and 12 reverse entries (400 bits). The same split
/// table over S's fields (20 slots, no zero bitmap): 43 and 665 bits.
const PR_TABLE: u64 = (18432 * 46 + 24576 * 400) / 8;
const S_SPLIT_TABLE: u64 = (18432 * 43 + 24576 * 665) / 8;
/// The split table: per split page four 32-bit flash pages, each with a 2-bit partial index
/// (136 bits, 17 bytes), for 1,024 split pages.
const SPLIT_TABLE: u64 = 1024 * 17;

#[test]
fn each_part_of_the_split_table_is_paged_at_its_own_width() {
    for (chunks, zeros, forward) in [(12, true, PR_TABLE), (20, false, S_SPLIT_TABLE)] {
        let text = device("tlc", "all", chunks, zeros, NO_PRECONDITION);
        let full = with_cache(&text, None);
        assert_eq!(
            flashpress_core::device::compress::mapping_table_bytes(&full),
            forward
        );
        let cfg = with_cache(&text, Some(100_000));
        let t = mapcache::table(&cfg);
        assert_eq!((t.entries, t.bytes, t.per), (18431, forward, 18432));
        let sp = t.split.expect("the split table is a part");
        assert_eq!((sp.entries, sp.bytes), (1024, SPLIT_TABLE));
        assert_eq!(mapcache::table_bytes(&cfg), forward + SPLIT_TABLE);
        // A translation page of the packed map: page x logical pages / table bytes entries;
        // of the split table: page / 17 bytes.
        let per = 16384 * 18432 / forward;
        assert_eq!(mapcache::entries_per_tpage(&cfg), per);
        assert_eq!(sp.entries_per_tpage(16384), 16384 / 17);
        assert_eq!(
            mapcache::translation_pages(&cfg),
            18431u64.div_ceil(per) + 1024u64.div_ceil(16384 / 17)
        );
        // The budget in packed-map entries (without split-table entries).
        assert_eq!(mapcache::demand(&cfg).unwrap().0, 100_000 * 18432 / forward);
    }
    // PR's (DP's) forward table is the narrower: at one budget it holds more entries, and
    // more per translation page, by the tables' ratio.
    assert_eq!(16384 * 18432 / PR_TABLE, 226);
    assert_eq!(16384 * 18432 / S_SPLIT_TABLE, 140);
    assert_eq!(100_000 * 18432 / PR_TABLE, 1380);
    assert_eq!(100_000 * 18432 / S_SPLIT_TABLE, 860);
    let text = device("tlc", "all", 12, true, NO_PRECONDITION);
    let pr = mapcache::demand(&with_cache(&text, Some(100_000)))
        .unwrap()
        .0;
    let text = device("tlc", "all", 20, false, NO_PRECONDITION);
    let s = mapcache::demand(&with_cache(&text, Some(100_000)))
        .unwrap()
        .0;
    assert_eq!((pr, s), (1380, 860));
}

/// Independent model of an LRU cache of `budget` bytes over entries of different widths: the
/// cache is the longest run of most recently used distinct entries whose widths fit the
/// budget, so an access hits when its entry is in that run (recomputed at every access from
/// the recency stack).
fn byte_lru_hits(trace: &[(u64, f64)], budget: f64) -> u64 {
    let mut stack: Vec<(u64, f64)> = Vec::new();
    let mut hits = 0;
    for &(e, w) in trace {
        let mut held = 0.0;
        for &(x, wx) in &stack {
            if held + wx > budget + 1e-9 {
                break;
            }
            held += wx;
            if x == e {
                hits += 1;
                break;
            }
        }
        stack.retain(|&(x, _)| x != e);
        stack.insert(0, (e, w));
    }
    hits
}

/// `n` incompressible pages written one by one on a fresh device (every page split, groups
/// of four consecutive pages), then `reads` whole-page reads, spaced so nothing queues.
fn written_then_read(n: u64, reads: &[u64], gap: u64) -> Vec<(Op, u64, u64, u64)> {
    let mut s: Vec<(Op, u64, u64, u64)> = (0..n)
        .map(|l| (Op::Write, l * PAGE, PAGE, l * gap))
        .collect();
    s.extend(
        reads
            .iter()
            .enumerate()
            .map(|(i, &l)| (Op::Read, l * PAGE, PAGE, (n + i as u64) * gap)),
    );
    s
}

#[test]
fn hits_equal_an_lru_model_of_the_byte_budget_over_both_parts() {
    let n = 400u64;
    let mut rng = Pcg64Mcg::seed_from_u64(35);
    let uniform: Vec<u64> = (0..3000).map(|_| rng.random_range(0..n)).collect();
    let skewed = crate::map_cache::zipf(n, 0.9, 3000, &mut rng);
    let text = device(
        "tlc",
        "all",
        12,
        true,
        &format!("{NO_PRECONDITION}[content.ratio]\ntype = \"fixed\"\nratio = 1.0\n"),
    );
    for (name, reads) in [("uniform", uniform), ("zipf", skewed)] {
        for dram in [16384u64, 30_000] {
            let cfg = with_cache(&text, Some(dram));
            let s: Summary = script_sim(&cfg, written_then_read(n, &reads, 2_000_000), Drive::Open)
                .run()
                .unwrap()
                .summary;
            let c = s.compression.unwrap();
            assert_eq!(c.packer.split_groups, n / 4, "every page split");
            assert_eq!(c.packer.unsplit_groups, 0);
            assert_eq!(s.gc_invocations, 0);
            // The trace by hand: a write looks its packed-map entry up; the fourth write of a
            // group writes the group's four split-table entries (keys 18431 + page); a read
            // looks up the packed-map entry, then the split-table entry. Widths: 46 + 400 x
            // 24576 / 18432 bits per packed-map entry, 17 bytes per split-table entry.
            let wf = PR_TABLE as f64 / 18432.0;
            let mut trace = Vec::new();
            for l in 0..n {
                trace.push((l, wf));
                if l % 4 == 3 {
                    trace.extend((l - 3..=l).map(|m| (18431 + m, 17.0)));
                }
            }
            for &l in &reads {
                trace.push((l, wf));
                trace.push((18431 + l, 17.0));
            }
            let m = s.map_cache.unwrap();
            assert_eq!(m.counters.lookups, trace.len() as u64, "{name} {dram}");
            let want = byte_lru_hits(&trace, dram as f64);
            assert_eq!(m.counters.hits, want, "{name} {dram}");
            assert!(
                want > 0 && want < trace.len() as u64,
                "{name} {dram}: {want}"
            );
            assert_eq!(m.table_entries, 18431 + 1024);
        }
    }
}

#[test]
fn a_split_read_that_misses_both_entries_waits_two_translation_reads_at_qd1() {
    // SLC: every flash page senses in 56 us; a 16 KiB translation page crosses the 833 MB/s
    // channel and is ECC-decoded in 20 us.
    let text = device(
        "slc",
        "all",
        12,
        true,
        &format!("{NO_PRECONDITION}[content.ratio]\ntype = \"fixed\"\nratio = 1.0\n"),
    );
    let cfg = with_cache(&text, Some(16384));
    // 400 pages written (every entry dirty), then pages 0..300 read: the written entries are
    // evicted (written back) and the cache holds clean entries of the last pages read.
    let gap = 10_000_000;
    let reads: Vec<u64> = (0..300).collect();
    let with = |p: u64| {
        let mut r = reads.clone();
        r.push(p);
        script_sim(&cfg, written_then_read(400, &r, gap), Drive::Open)
            .run()
            .unwrap()
            .summary
    };
    // Page 299 was read last: both its entries hit. Page 350's were evicted long ago.
    let (hit, miss) = (with(299), with(350));
    let (h, m) = (hit.map_cache.unwrap(), miss.map_cache.unwrap());
    assert_eq!(h.counters.lookups, m.counters.lookups);
    assert_eq!(m.counters.hits + 2, h.counters.hits);
    assert_eq!(
        m.counters.translation_lookup_reads,
        h.counters.translation_lookup_reads + 2
    );
    assert_eq!(m.counters.dirty_evictions, h.counters.dirty_evictions);
    let sum = |s: &Summary| s.read.latency_us.unwrap().mean * s.read.requests as f64;
    let ns = |x: f64| x.round() / 1e3;
    let translation_us = 56.0 + ns(16384.0 * 1e3 / 833.0) + 20.0;
    let extra = sum(&miss) - sum(&hit);
    assert!(
        (extra - 2.0 * translation_us).abs() < 1e-3,
        "the miss cost {extra} us more, two translation reads are {}",
        2.0 * translation_us
    );
    let t = |s: &Summary| {
        s.map_cache.unwrap().read_translation_mean_us.unwrap() * s.read.requests as f64
    };
    assert!((t(&miss) - t(&hit) - 2.0 * translation_us).abs() < 1e-3);
}

#[test]
fn a_budget_holding_the_whole_split_table_is_the_full_table_byte_for_byte() {
    let pre = "[precondition]\nfill_fraction = 1.0\naging_fraction = 0.5\n\
               [content.ratio]\ntype = \"uniform\"\nmin = 1.0\nmax = 1.4\n";
    let text = device("tlc", "bit", 12, true, pre);
    let script = crate::support::mixed_16k_script(7, 18430, 4000);
    let run = |dram: Option<u64>| {
        script_sim(
            &with_cache(&text, dram),
            script.clone(),
            Drive::Closed { depth: 4 },
        )
        .run()
        .unwrap()
        .summary
    };
    let full = run(None);
    let whole = run(Some(PR_TABLE + SPLIT_TABLE));
    assert!(whole.map_cache.is_none());
    assert_eq!(
        serde_json::to_string(&full).unwrap(),
        serde_json::to_string(&whole).unwrap()
    );
    assert!(full.compression.unwrap().packer.split_groups > 0);
    let paged = run(Some(PR_TABLE + SPLIT_TABLE - 1));
    let m = paged.map_cache.unwrap();
    assert!(m.hit_ratio < 1.0, "{m:?}");
}

/// Splits, unsplits, partial writes of split pages, TRIM and GC moving split groups' pages
/// under a small budget: verify mode checks every read (every piece of a split page), the
/// invariant check passes, and GC updated entries in their translation pages.
#[test]
fn every_read_returns_the_last_write_through_a_paged_split_table_and_gc() {
    for decision in ["bit", "all"] {
        let text = device(
            "tlc",
            decision,
            12,
            true,
            "[check]\nverify = true\ninvariants = true\n\
             [precondition]\nfill_fraction = 1.0\naging_fraction = 0.0\n\
             [content.ratio]\ntype = \"uniform\"\nmin = 1.0\nmax = 1.4\n",
        );
        let cfg = with_cache(&text, Some(40_000));
        let script = crate::support::mixed_16k_script(11, 18430, 30_000);
        let s = script_sim(&cfg, script, Drive::Closed { depth: 8 })
            .run()
            .unwrap()
            .summary;
        assert_eq!(s.requests_completed, 30_000);
        assert!(s.verified_page_reads > 5_000);
        assert!(s.gc_blocks_erased > 0, "GC ran");
        let c = s.compression.unwrap();
        assert!(c.packer.split_groups > 50, "{decision}: {c:?}");
        let m = s.map_cache.unwrap();
        assert!(m.hit_ratio < 1.0);
        assert!(m.counters.gc_uncached_updates > 0, "{decision}: {m:?}");
        assert!(m.counters.translation_writes > 0 && m.map_waf > 0.0);
    }
}

#[test]
fn a_budget_over_the_whole_split_table_names_both_parts() {
    let text = device("tlc", "all", 12, true, NO_PRECONDITION);
    let over = text.replace(
        "[ftl]\n",
        &format!(
            "[ftl]\nmap_cache = {{ type = \"demand\", dram_bytes = {}, policy = \"lru\" }}\n",
            PR_TABLE + SPLIT_TABLE + 1
        ),
    );
    let e = SimConfig::from_toml_str(&over, "test")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("ftl.map_cache.dram_bytes")
            && e.contains(&format!(
                "whole mapping table ({} bytes",
                PR_TABLE + SPLIT_TABLE
            ))
            && e.contains("1024 split-table entries of 17 bytes"),
        "{e}"
    );
}
