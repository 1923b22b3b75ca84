//! Mapping units larger than the NAND page (`ftl.mapping_unit`): the page map maps units, a
//! write that covers only part of a unit reads the whole old unit, merges and programs the
//! whole unit. Checked against hand-computed counts and WAF, and against a brute-force
//! reference of the mapping (a table of which units hold data) on random traces, with verify
//! mode checking every read's content through GC.

use crate::support::{config, run_closed as run, run_closed_layout, write_script as writes};
use flashpress_core::config::SimConfig;
use flashpress_core::ftl::MapLayout;
use flashpress_core::workload::Op;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

const KIB: u64 = 1024;

/// The tiny preset (4 KiB SLC pages, 32 pages per block, verify and invariant checks on)
/// with mapping unit `unit` and `extra` TOML.
fn device(unit: u64, extra: &str) -> SimConfig {
    config(&format!(
        "preset = \"tiny\"\n[ftl]\nmapping_unit = {unit}\n[ftl.gc]\ncopyback = false\n{extra}"
    ))
}

#[test]
fn aligned_whole_unit_writes_program_the_unit_and_read_nothing() {
    let cfg = device(16 * KIB, "");
    // 20 writes of one whole 16 KiB unit each, then 10 of two units.
    let mut list: Vec<(u64, u64)> = (0..20).map(|u| (u * 16 * KIB, 16 * KIB)).collect();
    list.extend((0..10).map(|u| (u * 32 * KIB, 32 * KIB)));
    let s = run(&cfg, writes(&list));
    assert_eq!(s.host_write_bytes, 40 * 16 * KIB);
    assert_eq!(s.nand_programs, 40 * 4);
    assert_eq!(s.nand_reads, 0);
    assert_eq!((s.rmw_units, s.rmw_page_reads), (0, 0));
    assert_eq!(s.waf, Some(1.0));
}

#[test]
fn a_sub_unit_write_costs_one_unit_read_and_one_unit_program() {
    // The device is full (every unit written by preconditioning) and 100 random 4 KiB writes
    // leave every plane above its GC threshold: each write reads one 16 KiB unit (4 pages)
    // and programs one (4 pages), so WAF = 16 KiB / 4 KiB = 4.
    let cfg = device(
        16 * KIB,
        "[precondition]\nfill_fraction = 1.0\naging_fraction = 0.0\n",
    );
    let units = flashpress_core::ftl::logical_pages(&cfg);
    let mut rng = Pcg64Mcg::seed_from_u64(7);
    let list: Vec<(u64, u64)> = (0..100)
        .map(|_| {
            let u = rng.random_range(0..units);
            (u * 16 * KIB + rng.random_range(0..4) * 4 * KIB, 4 * KIB)
        })
        .collect();
    let s = run(&cfg, writes(&list));
    assert_eq!(s.gc_invocations, 0, "the hand count is before GC");
    assert_eq!(s.rmw_units, 100);
    assert_eq!(s.rmw_page_reads, 100 * 4);
    assert_eq!(s.nand_reads, 100 * 4);
    assert_eq!(s.nand_programs, 100 * 4);
    assert_eq!(s.waf, Some(4.0));
}

#[test]
fn an_unaligned_write_read_modify_writes_the_units_it_covers_in_part() {
    // 32 KiB units (8 pages), all written. A 24 KiB write at 28 KiB covers unit 0 from
    // 28 KiB (partly) and unit 1 up to 52 KiB (partly): two unit reads, two unit programs.
    // A 40 KiB write at 56 KiB covers unit 1 from 56 KiB (partly) and unit 2 ([64, 96) KiB)
    // whole: one read, two programs. A 4 KiB write into an unwritten unit (past the fill)
    // programs it with no read.
    let cfg = device(
        32 * KIB,
        "[precondition]\nfill_fraction = 0.5\naging_fraction = 0.0\n",
    );
    let units = flashpress_core::ftl::logical_pages(&cfg);
    let fresh = (units - 1) * 32 * KIB;
    let s = run(
        &cfg,
        writes(&[
            (28 * KIB, 24 * KIB),
            (56 * KIB, 40 * KIB),
            (fresh + 4 * KIB, 4 * KIB),
        ]),
    );
    assert_eq!(s.rmw_units, 3);
    assert_eq!(s.rmw_page_reads, 3 * 8);
    assert_eq!(s.nand_programs, (2 + 2 + 1) * 8);
    let waf = (5 * 8 * 4 * KIB) as f64 / ((24 + 40 + 4) * KIB) as f64;
    assert_eq!(s.waf, Some(waf));
}

#[test]
fn a_read_senses_only_the_pages_of_a_unit_it_touches_and_trim_discards_whole_units() {
    let cfg = device(
        32 * KIB,
        "[precondition]\nfill_fraction = 1.0\naging_fraction = 0.0\n",
    );
    let s = run(
        &cfg,
        vec![
            (Op::Read, 4 * KIB, 4 * KIB, 0),   // 1 page of unit 0
            (Op::Read, 28 * KIB, 8 * KIB, 0),  // the last page of unit 0, the first of unit 1
            (Op::Read, 64 * KIB, 32 * KIB, 0), // all 8 pages of unit 2
            (Op::Trim, 16 * KIB, 80 * KIB, 0), // [16, 96) KiB: units 1 and 2 whole, 0 not
            (Op::Read, 32 * KIB, 64 * KIB, 0), // units 1 and 2: trimmed, no flash
        ],
    );
    assert_eq!(s.nand_reads, 1 + 2 + 8);
    assert_eq!(s.trimmed_pages, 2 * 8);
    assert_eq!(s.unmapped_page_reads, 2);
}

/// What the reference expects of a trace: its own table of written units.
#[derive(Debug, Default, PartialEq, Eq)]
struct Expected {
    host_programs: u64,
    host_reads: u64,
    rmw_units: u64,
    rmw_page_reads: u64,
    unmapped_page_reads: u64,
    trimmed_pages: u64,
}

/// The brute-force reference: one bool per unit, byte ranges walked unit by unit and page
/// by page.
fn reference(
    ops: &[(Op, u64, u64, u64)],
    units: u64,
    unit: u64,
    page: u64,
    filled: u64,
) -> Expected {
    let k = unit / page;
    let mut mapped: Vec<bool> = (0..units).map(|u| u < filled).collect();
    let mut e = Expected::default();
    for &(op, off, len, _) in ops {
        let end = off + len;
        for u in off / unit..end.div_ceil(unit) {
            let (lo, hi) = (u * unit, (u + 1) * unit);
            let whole = off <= lo && end >= hi;
            match op {
                Op::Write => {
                    if !whole && mapped[u as usize] {
                        e.rmw_units += 1;
                        e.rmw_page_reads += k;
                    }
                    e.host_programs += k;
                    mapped[u as usize] = true;
                }
                Op::Read if mapped[u as usize] => {
                    e.host_reads += (0..k)
                        .filter(|j| {
                            let (a, b) = (lo + j * page, lo + (j + 1) * page);
                            a < end && b > off
                        })
                        .count() as u64;
                }
                Op::Read => e.unmapped_page_reads += 1,
                Op::Trim if whole && mapped[u as usize] => {
                    e.trimmed_pages += k;
                    mapped[u as usize] = false;
                }
                _ => {}
            }
        }
    }
    e
}

#[test]
fn random_traces_match_a_brute_force_reference_through_gc() {
    for (unit, page, seed) in [
        (8 * KIB, 4 * KIB, 1),
        (16 * KIB, 4 * KIB, 2),
        (32 * KIB, 4 * KIB, 3),
        (64 * KIB, 8 * KIB, 4),
        (4 * KIB, 4 * KIB, 5),
    ] {
        let cfg = device(
            unit,
            &format!(
                "[nand]\npage_size = {page}\n[precondition]\nfill_fraction = 0.7\naging_fraction = 0.0\n"
            ),
        );
        let units = flashpress_core::ftl::logical_pages(&cfg);
        let filled = (0.7 * units as f64).floor() as u64;
        let bytes = units * unit;
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let ops: Vec<(Op, u64, u64, u64)> = (0..6000)
            .map(|_| {
                let len = rng.random_range(1..=3 * unit / (4 * KIB)) * 4 * KIB;
                let off = rng.random_range(0..(bytes - len) / (4 * KIB)) * 4 * KIB;
                let op = match rng.random_range(0..10) {
                    0..=5 => Op::Write,
                    6..=8 => Op::Read,
                    _ => Op::Trim,
                };
                (op, off, len, 0)
            })
            .collect();
        let want = reference(&ops, units, unit, page, filled);
        // The plain u32 page map, the packed one of devices from 2^28 units, and the one of
        // devices past 2^32 units.
        for layout in [MapLayout::Auto, MapLayout::Packed, MapLayout::Wide] {
            let s = run_closed_layout(&cfg, ops.clone(), layout);
            let got = Expected {
                host_programs: s.nand_programs - s.gc_pages_migrated,
                host_reads: s.nand_reads - s.rmw_page_reads - s.gc_pages_migrated,
                rmw_units: s.rmw_units,
                rmw_page_reads: s.rmw_page_reads,
                unmapped_page_reads: s.unmapped_page_reads,
                trimmed_pages: s.trimmed_pages,
            };
            assert_eq!(got, want, "unit {unit}, page {page}, {layout:?}");
            assert!(s.gc_invocations > 0, "unit {unit}: the trace must reach GC");
            assert!(s.gc_pages_migrated.is_multiple_of(unit / page));
        }
    }
}

#[test]
fn bad_mapping_units_are_refused_by_name() {
    for (toml, want) in [
        ("[ftl]\nmapping_unit = 12288\n", "power of two"),
        ("[ftl]\nmapping_unit = 2048\n", "got 2048"),
        ("[ftl]\nmapping_unit = 131072\n", "got 131072"),
        (
            "[nand]\npage_size = 16384\n[ftl]\nmapping_unit = 8192\n[ftl.gc]\ncopyback = false\n\
             [ftl.dedup]\nmode = \"inline\"\nhash_us = 1.0\n",
            "(8192 < 16384 bytes) is not modelled with ftl.dedup",
        ),
        (
            "[nand]\npages_per_block = 24\n[ftl]\nmapping_unit = 65536\n",
            "tile a block",
        ),
        (
            "[ftl]\nmapping_unit = 16384\n[ftl.dedup]\nmode = \"inline\"\nhash_us = 1.0\n",
            "with ftl.dedup",
        ),
    ] {
        let e = flashpress_core::config::SimConfig::from_toml_str(
            &format!("preset = \"tiny\"\n{toml}"),
            "t.toml",
        )
        .and_then(|c| c.validate("t.toml").map(|_| c))
        .expect_err(toml);
        let msg = e.to_string();
        assert!(msg.contains("ftl.mapping_unit"), "{msg}");
        assert!(msg.contains(want), "{toml}: {msg}");
    }
}

#[test]
fn a_demand_paged_map_is_refused_with_units_larger_than_the_page_and_accepted_at_the_page() {
    let parse = |toml: &str| {
        flashpress_core::config::SimConfig::from_toml_str(
            &format!("preset = \"tiny\"\n{toml}"),
            "t.toml",
        )
        .and_then(|c| c.validate("t.toml").map(|_| c))
    };
    let demand = "map_cache = { type = \"demand\", dram_bytes = 8192, policy = \"lru\" }\n";
    for unit in [8192, 16384, 65536] {
        let toml = format!("[ftl]\nmapping_unit = {unit}\n{demand}");
        let msg = parse(&toml).expect_err(&toml).to_string();
        assert!(msg.contains("ftl.mapping_unit"), "{msg}");
        assert!(
            msg.contains("ftl.map_cache.type = \"demand\""),
            "{toml}: {msg}"
        );
        assert!(msg.contains(&format!("{unit} > 4096")), "{toml}: {msg}");
        // The same unit with the whole table in DRAM is accepted.
        parse(&format!("[ftl]\nmapping_unit = {unit}\n")).unwrap_or_else(|e| panic!("{e}"));
    }
    // A unit of one NAND page is the page map the cache pages: accepted, and it runs the same
    // as leaving the unit out.
    let at_page =
        parse(&format!("[ftl]\nmapping_unit = 4096\n{demand}")).unwrap_or_else(|e| panic!("{e}"));
    let unset = parse(&format!("[ftl]\n{demand}")).unwrap_or_else(|e| panic!("{e}"));
    let list: Vec<(u64, u64)> = (0..200)
        .map(|i| ((i * 7919 % 97) * 4 * KIB, 4 * KIB))
        .collect();
    let a = run(&at_page, writes(&list));
    let b = run(&unset, writes(&list));
    assert!(a.map_cache.is_some());
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
}

/// A QLC device of `tib` TiB of physical flash (16 KiB pages, 1,024 pages per block) with
/// mapping unit `unit`.
fn big(tib: u64, unit: u64) -> std::result::Result<SimConfig, flashpress_core::Error> {
    // 8 channels x 8 chips x 4 dies x 4 planes = 1,024 planes of 16 MiB blocks.
    let blocks = tib * (1 << 40) / (1024 * 16 * KIB * 1024);
    SimConfig::from_toml_str(
        &format!(
            "preset = \"default\"\n[nand]\nchannels = 8\nchips_per_channel = 8\ndies_per_chip = 4\n\
             planes_per_die = 4\nblocks_per_plane = {blocks}\npages_per_block = 1024\n\
             page_size = 16384\n[ftl]\nmapping_unit = {unit}\n"
        ),
        "big.toml",
    )
    .and_then(|c| c.validate("big.toml").map(|_| c))
}

#[test]
fn arrays_of_more_than_2_32_pages_and_units_are_accepted() {
    // 128 TiB of 16 KiB pages: 2^33 NAND pages, 2^31 units of 64 KiB.
    let cfg = big(128, 64 * KIB).unwrap_or_else(|e| panic!("{e}"));
    let est = flashpress_core::estimate::estimate(&cfg);
    assert_eq!(est.physical_pages, 1 << 33);
    let map = est
        .components
        .iter()
        .find(|p| p.name == "ftl.reverse_map")
        .unwrap();
    // The logical units are between 2^30 and 2^31 (the default preset's over-provisioning
    // takes less than half), so a reverse-map entry needs 31 bits, and the map 8 bytes of
    // slack for its unaligned 64-bit reads.
    let logical = flashpress_core::ftl::logical_pages(&cfg);
    assert!(logical > 1 << 30 && logical < 1 << 31);
    assert_eq!(
        map.bytes,
        (1u64 << 31) * 31 / 8 + 8,
        "one 31-bit entry per 64 KiB unit"
    );
    // The NAND page numbers past 2^32 keep their block and plane.
    let geo = flashpress_core::nand::Geometry::new(&cfg.nand);
    let last = flashpress_core::units::Ppn(geo.pages - 1);
    assert_eq!(geo.block_of(last).0, geo.blocks - 1);
    assert_eq!(geo.plane_of_ppn(last).0, geo.planes - 1);
    assert_eq!(geo.page_in_block(last), 1023);
    // 64 TiB at 16 KiB units is 2^32 units: the page map's entries are 33 bits wide.
    let cfg = big(64, 16 * KIB).unwrap_or_else(|e| panic!("{e}"));
    let est = flashpress_core::estimate::estimate(&cfg);
    let map = est
        .components
        .iter()
        .find(|p| p.name == "ftl.page_map")
        .unwrap();
    let logical = flashpress_core::ftl::logical_pages(&cfg);
    assert_eq!(map.bytes, (logical * 33).div_ceil(8) + 8, "{}", map.detail);
}
