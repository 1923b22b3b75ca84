//! Mapping units smaller than the NAND page (`ftl.mapping_unit` below `nand.page_size`):
//! units are packed into pages, a page is programmed when its units fill it (from the write
//! buffer) or padded (a flush, a write without a buffer), a read senses the page holding the
//! unit, and GC re-packs the valid units of its victims. Checked against hand-computed
//! counts, WAF and latency, and against a brute-force reference of the mapping (a table of
//! which units hold data, and a count of units written) on random traces through GC, with
//! verify mode checking every read's content and the invariant check at the end.

use crate::support::{config, run_closed as run, write_script as writes};
use flashpress_core::config::SimConfig;
use flashpress_core::workload::Op;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

const KIB: u64 = 1024;

/// The tiny preset (SLC, 32 pages per block, verify and invariant checks on) with 16 KiB
/// pages, mapping unit `unit`, a write buffer of `buffer` pages, and `extra` TOML.
fn device(unit: u64, buffer: u32, extra: &str) -> SimConfig {
    config(&format!(
        "preset = \"tiny\"\n[nand]\npage_size = 16384\n[ftl]\nmapping_unit = {unit}\n\
         write_buffer_pages = {buffer}\n[ftl.gc]\ncopyback = false\n{extra}"
    ))
}

#[test]
fn units_fill_pages_from_the_write_buffer_and_a_flush_pads_the_last() {
    let cfg = device(4 * KIB, 8, "");
    // 41 single-unit writes to scattered, never written units: ten full pages of four
    // units are programmed, the 41st unit waits in the buffer for three more.
    let list: Vec<(u64, u64)> = (0..41)
        .map(|i| ((i * 37 % 1000) * 4 * KIB, 4 * KIB))
        .collect();
    let s = run(&cfg, writes(&list));
    assert_eq!(s.host_write_bytes, 41 * 4 * KIB);
    assert_eq!(s.nand_programs, 10);
    assert_eq!(s.nand_reads, 0);
    assert_eq!((s.rmw_units, s.rmw_page_reads), (0, 0));
    assert_eq!(s.waf, Some(40.0 / 41.0));
    // A flush then programs the partly filled page, padded: 11 pages for 41 units.
    let mut script = writes(&list);
    script.push((Op::Sync, 0, 0, 0));
    let s = run(&cfg, script);
    assert_eq!(s.nand_programs, 11);
    assert_eq!(s.waf, Some(11.0 * 16.0 / (41.0 * 4.0)));
}

#[test]
fn a_sub_unit_write_reads_the_page_holding_its_unit() {
    // Every unit written by preconditioning (pages full, the last one padded). 40 writes of
    // 1 KiB at distinct units each read the page holding the unit (one page read each),
    // merge, and the 40 merged units fill 10 pages: WAF 10 x 16 KiB / 40 KiB = 4, as one
    // unit read per write and one page program per four writes.
    let cfg = device(
        4 * KIB,
        8,
        "[precondition]\nfill_fraction = 1.0\naging_fraction = 0.0\n",
    );
    let units = flashpress_core::ftl::logical_pages(&cfg);
    let list: Vec<(u64, u64)> = (0..40)
        .map(|i| ((i * 101 % units) * 4 * KIB + 2 * KIB, KIB))
        .collect();
    let s = run(&cfg, writes(&list));
    assert_eq!(s.gc_invocations, 0, "the hand count is before GC");
    assert_eq!((s.rmw_units, s.rmw_page_reads), (40, 40));
    assert_eq!(s.nand_reads, 40);
    assert_eq!(s.nand_programs, 10);
    assert_eq!(s.waf, Some(4.0));
}

#[test]
fn a_read_senses_each_page_once_for_the_units_it_holds() {
    // Eight units written in one request fill two pages; a 32 KiB read of them senses each
    // page once, a 4 KiB read senses one page, and a read of an unwritten unit senses none.
    let cfg = device(4 * KIB, 8, "");
    let script = vec![
        (Op::Write, 0, 32 * KIB, 0),
        (Op::Read, 0, 32 * KIB, 0),
        (Op::Read, 20 * KIB, 4 * KIB, 0),
        (Op::Read, 64 * KIB, 4 * KIB, 0),
    ];
    let s = run(&cfg, script);
    assert_eq!(s.nand_programs, 2);
    assert_eq!(s.nand_reads, 3);
    assert_eq!(s.unmapped_page_reads, 1);
    assert_eq!(s.verified_page_reads, 8 + 1 + 1);
}

#[test]
fn without_a_buffer_each_write_programs_its_pages_padded_and_waits_for_them() {
    // No write buffer: a 4 KiB write completes when its page is programmed, so its page is
    // padded at once. Latency, by hand: the command overhead, the 4 KiB over the host link,
    // the 16 KiB page over the channel, and the SLC program.
    let cfg = device(4 * KIB, 0, "");
    let list: Vec<(u64, u64)> = (0..10).map(|i| (i * 12 * KIB, 4 * KIB)).collect();
    let s = run(&cfg, writes(&list));
    assert_eq!(s.nand_programs, 10);
    assert_eq!(s.waf, Some(4.0));
    let ns = |bytes: f64, mb_s: f64| (bytes * 1000.0 / mb_s).round();
    let want_us = (cfg.host.command_overhead_ns as f64
        + ns(4096.0, cfg.host.link_mb_per_s)
        + ns(16384.0, cfg.nand.channel_mb_per_s)
        + cfg.nand.program_latency_us[0] * 1000.0)
        / 1000.0;
    let lat = s.write.latency_us.expect("writes ran");
    assert!(
        (lat.mean - want_us).abs() < 0.01,
        "{} vs {want_us}",
        lat.mean
    );
    assert!((lat.max - want_us).abs() < 0.01, "{} vs {want_us}", lat.max);
    // A 16 KiB write of one whole page takes the same time as with a unit of one page.
    let whole: Vec<(u64, u64)> = (0..10).map(|i| (i * 16 * KIB, 16 * KIB)).collect();
    let packed = run(&cfg, writes(&whole));
    let paged = run(&device(16 * KIB, 0, ""), writes(&whole));
    assert_eq!(packed.nand_programs, 10);
    assert_eq!(packed.waf, Some(1.0));
    assert_eq!(
        packed.write.latency_us.expect("ran").mean,
        paged.write.latency_us.expect("ran").mean
    );
}

#[test]
fn with_a_buffer_a_write_completes_when_its_data_is_in() {
    // Units acknowledged from the buffer: latency is the command overhead and the link.
    let cfg = device(4 * KIB, 8, "");
    let list: Vec<(u64, u64)> = (0..16).map(|i| (i * 4 * KIB, 4 * KIB)).collect();
    let s = run(&cfg, writes(&list));
    let want_us = (cfg.host.command_overhead_ns as f64
        + (4096.0 * 1000.0 / cfg.host.link_mb_per_s).round())
        / 1000.0;
    let lat = s.write.latency_us.expect("writes ran");
    assert!((lat.max - want_us).abs() < 0.01, "{} vs {want_us}", lat.max);
    assert_eq!(s.nand_programs, 4);
}

/// What the reference expects of a trace.
#[derive(Debug, Default, PartialEq, Eq)]
struct Expected {
    host_programs: u64,
    rmw_units: u64,
    rmw_page_reads: u64,
    unmapped_page_reads: u64,
    trimmed_units: u64,
}

/// The brute-force reference: one bool per unit, byte ranges walked unit by unit. Host
/// units fill pages in the order written (GC has a stream of its own and no flush pads a
/// host page), so the host programs `floor(units written / units per page)` pages.
fn reference(
    ops: &[(Op, u64, u64, u64)],
    units: u64,
    unit: u64,
    per: u64,
    filled: u64,
) -> Expected {
    let mut mapped: Vec<bool> = (0..units).map(|u| u < filled).collect();
    let mut e = Expected::default();
    let mut written = 0;
    for &(op, off, len, _) in ops {
        let end = off + len;
        for u in off / unit..end.div_ceil(unit) {
            let (lo, hi) = (u * unit, (u + 1) * unit);
            let whole = off <= lo && end >= hi;
            match op {
                Op::Write => {
                    if !whole && mapped[u as usize] {
                        e.rmw_units += 1;
                        e.rmw_page_reads += 1;
                    }
                    written += 1;
                    mapped[u as usize] = true;
                }
                Op::Read if !mapped[u as usize] => e.unmapped_page_reads += 1,
                Op::Trim if whole && mapped[u as usize] => {
                    e.trimmed_units += 1;
                    mapped[u as usize] = false;
                }
                _ => {}
            }
        }
    }
    e.host_programs = written / per;
    e
}

#[test]
fn random_traces_match_a_brute_force_reference_through_gc() {
    for (unit, page, buffer, seed) in [
        (4 * KIB, 16 * KIB, 4, 1),
        (8 * KIB, 16 * KIB, 2, 2),
        (4 * KIB, 8 * KIB, 1, 3),
        (4 * KIB, 32 * KIB, 16, 4),
    ] {
        let cfg = config(&format!(
            "preset = \"tiny\"\n[nand]\npage_size = {page}\n[ftl]\nmapping_unit = {unit}\n\
             write_buffer_pages = {buffer}\nplacement = {{ type = \"gc_separate\" }}\n\
             [ftl.gc]\ncopyback = false\n\
             [precondition]\nfill_fraction = 0.9\naging_fraction = 0.0\n"
        ));
        let per = page / unit;
        let units = flashpress_core::ftl::logical_pages(&cfg);
        let filled = (0.9 * units as f64).floor() as u64;
        let bytes = units * unit;
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let ops: Vec<(Op, u64, u64, u64)> = (0..20000)
            .map(|_| {
                let len = rng.random_range(1..=3 * unit / KIB) * KIB;
                let off = rng.random_range(0..(bytes - len) / KIB) * KIB;
                let op = match rng.random_range(0..10) {
                    0..=5 => Op::Write,
                    6..=8 => Op::Read,
                    _ => Op::Trim,
                };
                (op, off, len, 0)
            })
            .collect();
        let want = reference(&ops, units, unit, per, filled);
        let s = run(&cfg, ops);
        let got = Expected {
            host_programs: s.nand_programs - s.gc_pages_migrated,
            rmw_units: s.rmw_units,
            rmw_page_reads: s.rmw_page_reads,
            unmapped_page_reads: s.unmapped_page_reads,
            trimmed_units: s.trimmed_pages,
        };
        assert_eq!(got, want, "unit {unit}, page {page}");
        assert!(s.gc_invocations > 0, "unit {unit}: the trace must reach GC");
        assert!(s.verified_page_reads > 0);
        // GC programs at least the pages its moved units fill.
        assert!(s.gc_pages_migrated > 0);
    }
}

#[test]
fn one_stream_for_host_and_gc_pads_the_host_page_gc_needs() {
    // Host and GC share one open block per plane (placement single): a GC episode first
    // pads the page the host is filling there (background GC on an idle plane here, as
    // foreground GC runs only where the host starts a new page). The run checks its
    // invariants and every read's content; the host programs more pages than the units'
    // whole pages, by the pads. A background threshold this high on a device this full
    // keeps GC looking for victims: it must end, cleaning only blocks that free a page (a
    // pad is an invalid slot, and moving units round to pad anew would never end).
    let cfg = config(
        "preset = \"tiny\"\n[nand]\npage_size = 16384\n[ftl]\nmapping_unit = 4096\n\
         write_buffer_pages = 4\n[ftl.gc]\ncopyback = false\nbackground = true\n\
         background_threshold = 0.5\n\
         [precondition]\nfill_fraction = 0.9\naging_fraction = 0.0\n",
    );
    let units = flashpress_core::ftl::logical_pages(&cfg);
    let mut rng = Pcg64Mcg::seed_from_u64(9);
    let ops: Vec<(Op, u64, u64, u64)> = (0..20000)
        .map(|_| {
            let op = if rng.random_range(0..4) == 0 {
                Op::Read
            } else {
                Op::Write
            };
            (op, rng.random_range(0..units) * 4 * KIB, 4 * KIB, 0)
        })
        .collect();
    let written = ops.iter().filter(|o| o.0 == Op::Write).count() as u64;
    let s = run(&cfg, ops);
    assert!(s.gc_invocations > 0);
    assert!(s.gc_background_blocks > 0);
    assert!(s.nand_programs - s.gc_pages_migrated > written / 4);
}

#[test]
fn bad_sub_page_units_are_refused_by_name() {
    for (toml, key, want) in [
        (
            "[nand]\npage_size = 16384\n[ftl]\nmapping_unit = 4096\n",
            "ftl.gc.copyback",
            "set ftl.gc.copyback = false",
        ),
        (
            "[nand]\npage_size = 16384\n[ftl]\nmapping_unit = 4096\n\
             map_cache = { type = \"demand\", dram_bytes = 8192, policy = \"lru\" }\n\
             [ftl.gc]\ncopyback = false\n",
            "ftl.mapping_unit",
            "(4096 < 16384 bytes) is not modelled with ftl.map_cache.type = \"demand\"",
        ),
    ] {
        let e = SimConfig::from_toml_str(&format!("preset = \"tiny\"\n{toml}"), "t.toml")
            .and_then(|c| c.validate("t.toml").map(|_| c))
            .expect_err(toml);
        let msg = e.to_string();
        assert!(msg.contains(key), "{msg}");
        assert!(msg.contains(want), "{toml}: {msg}");
    }
}
