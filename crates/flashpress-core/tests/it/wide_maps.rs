//! Page maps past 2^32 mapping units: the packed layout such devices get (`ftl::unitmap`),
//! forced on devices small enough to run here, against the plain `u32` layout; validation
//! and the memory estimate of a 16 TiB device of 4 KiB units, which needs about 32 GiB and
//! cannot run on a test machine.

use crate::support::{config, UniformPages};
use flashpress_core::config::SimConfig;
use flashpress_core::estimate::{estimate, estimate_with_layout, MemoryEstimate};
use flashpress_core::ftl::{self, MapLayout};
use flashpress_core::interrupt::Interrupt;
use flashpress_core::sim::Simulation;
use flashpress_core::workload::{ContentHints, Drive, Stream};
use rand::SeedableRng;

/// `n` single-page requests (30% reads) at uniformly random NAND pages of the logical space,
/// queue depth 8.
fn uniform(cfg: &SimConfig, n: u64, seed: u64) -> Stream {
    let page = cfg.nand.page_size as u64;
    Stream {
        name: "uniform".into(),
        source: Box::new(UniformPages {
            pages: ftl::logical_pages(cfg) * cfg.mapping_unit() as u64 / page,
            page_size: page,
            left: n,
            read_fraction: 0.3,
            rng: rand_pcg::Pcg64Mcg::seed_from_u64(seed),
        }),
        drive: Drive::Closed { depth: 8 },
        group: 0,
        content: ContentHints::default(),
        layout_bytes: 0,
    }
}

/// Summary and timeline of `n` uniform requests on `toml`'s device, page map in `layout`.
fn run(toml: &str, layout: MapLayout, n: u64, seed: u64) -> (String, String) {
    let cfg = config(toml);
    let stream = uniform(&cfg, n, seed);
    let sim = Simulation::with_streams_layout(cfg, vec![stream], layout)
        .unwrap_or_else(|e| panic!("{toml}: {e}"));
    let bits = sim.device().expect("an SSD").ftl.page_map_bits();
    match layout {
        MapLayout::Auto => assert_eq!(bits, None, "{toml}"),
        MapLayout::Wide => assert_eq!(bits, Some(33), "{toml}"),
        MapLayout::Packed => assert!(bits.is_some_and(|b| b < 32), "{toml}: {bits:?}"),
    }
    let rep = sim.run().unwrap_or_else(|e| panic!("{toml}: {e}"));
    (rep.summary_json(), rep.timeline_csv())
}

/// Presets shrunk to a few MiB, with the features that use the page map: the realistic
/// controller, units larger and smaller than the page, a demand-paged map, deduplication,
/// compression with the split FTL and partial reads, TLC pages, FDP, verify and invariants.
const SHRUNK: [&str; 8] = [
    "preset = \"tiny\"\n[precondition]\nfill_fraction = 0.8\naging_fraction = 1.0\n",
    "preset = \"default\"\n[nand]\nchannels = 2\nblocks_per_plane = 96\n[precondition]\nfill_fraction = 0.9\n[check]\nverify = true\ninvariants = true\n",
    "preset = \"tiny\"\n[ftl]\nmapping_unit = 16384\n[ftl.gc]\ncopyback = false\n[precondition]\nfill_fraction = 0.7\n",
    "preset = \"tiny\"\n[nand]\npage_size = 16384\n[ftl]\nmapping_unit = 4096\n[ftl.gc]\ncopyback = false\n[precondition]\nfill_fraction = 0.7\n",
    "preset = \"tiny\"\n[ftl]\nmap_cache = { type = \"demand\", dram_bytes = 8192, policy = \"lru\" }\n[precondition]\nfill_fraction = 0.7\n",
    "preset = \"cagc\"\n[nand]\nchannels = 2\nchips_per_channel = 1\nblocks_per_plane = 80\n[check]\nverify = true\ninvariants = true\n",
    "preset = \"prssd\"\n[nand]\nchannels = 2\ndies_per_chip = 1\nblocks_per_plane = 48\npages_per_block = 48\n[ftl]\nop_ratio = 0.15\n",
    "preset = \"nvme\"\n[nand]\nchannels = 2\nchips_per_channel = 1\nblocks_per_plane = 16\n[ftl]\nop_ratio = 0.3\n[fdp]\nhandles = [\"initially_isolated\", \"persistently_isolated\"]\n[precondition]\nfill_fraction = 0.9\n[check]\nverify = true\ninvariants = true\n",
];

#[test]
fn the_packed_page_map_runs_presets_exactly_as_the_u32_map_does() {
    for (i, toml) in SHRUNK.iter().enumerate() {
        let plain = run(toml, MapLayout::Auto, 20_000, i as u64);
        for layout in [MapLayout::Wide, MapLayout::Packed] {
            let packed = run(toml, layout, 20_000, i as u64);
            assert_eq!(plain.0, packed.0, "summary of {toml} in {layout:?}");
            assert_eq!(plain.1, packed.1, "timeline of {toml} in {layout:?}");
        }
        let s: serde_json::Value = serde_json::from_str(&plain.0).unwrap();
        assert!(
            s["erases"].as_u64().unwrap() > 0,
            "{toml}: the run must reach GC"
        );
    }
}

#[test]
fn the_estimate_counts_the_maps_the_ftl_builds_in_either_layout() {
    for toml in SHRUNK {
        let cfg = config(toml);
        for layout in [MapLayout::Auto, MapLayout::Wide, MapLayout::Packed] {
            let e = estimate_with_layout(&cfg, layout);
            let stream = uniform(&cfg, 1, 1);
            let sim = Simulation::with_streams_layout(cfg.clone(), vec![stream], layout).unwrap();
            let (page_map, reverse_map) = sim.device().unwrap().ftl.map_bytes();
            assert_eq!(part(&e, "ftl.page_map"), page_map, "{layout:?} {toml}");
            assert_eq!(
                part(&e, "ftl.reverse_map"),
                reverse_map,
                "{layout:?} {toml}"
            );
        }
        assert_eq!(estimate(&cfg), estimate_with_layout(&cfg, MapLayout::Auto));
    }
}

fn part(e: &MemoryEstimate, name: &str) -> u64 {
    e.components
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no {name} in the estimate"))
        .bytes
}

/// A `tib` TiB TLC device of `page` byte pages (8 x 8 x 4 x 4 planes of 1,024-page blocks)
/// mapped in 4 KiB units, with `extra` TOML, validated.
fn big(tib: u64, page: u64, extra: &str) -> flashpress_core::Result<SimConfig> {
    let blocks = tib * (1 << 40) / (1024 * 1024 * page);
    let unit = if page == 4096 {
        String::new()
    } else {
        "[ftl]\nmapping_unit = 4096\n[ftl.gc]\ncopyback = false\n".to_string()
    };
    SimConfig::from_toml_str(
        &format!(
            "preset = \"default\"\n[nand]\nchannels = 8\nchips_per_channel = 8\ndies_per_chip = 4\n\
             planes_per_die = 4\nblocks_per_plane = {blocks}\npages_per_block = 1024\n\
             page_size = {page}\ncell = \"tlc\"\nread_latency_us = [60.0, 75.0, 90.0]\n\
             program_latency_us = [250.0, 250.0, 250.0]\n{unit}{extra}"
        ),
        "big.toml",
    )
    .and_then(|c| c.validate("big.toml").map(|_| c))
}

#[test]
fn sixteen_tib_of_4_kib_units_is_accepted_and_every_32_bit_feature_refused_by_its_key() {
    let cfg = big(16, 4096, "").unwrap_or_else(|e| panic!("{e}"));
    let e = estimate(&cfg);
    assert_eq!(e.physical_pages, 1 << 32);
    // The page map: an entry per logical unit, 33 bits each (2^32 physical units and the
    // "none" value), plus 8 bytes of slack for the unaligned 64-bit access of the last.
    let logical = ftl::logical_pages(&cfg);
    assert!(logical > 1 << 31 && logical < 1 << 32);
    assert_eq!(part(&e, "ftl.page_map"), (logical * 33).div_ceil(8) + 8);
    // The reverse map: an entry per physical unit, 32 bits (logical units below 2^32).
    assert_eq!(part(&e, "ftl.reverse_map"), (1u64 << 32) * 4 + 8);
    // The maps and the rest: about 2 GiB per TiB.
    let per_tib = e.total_bytes as f64 / 16.0 / (1u64 << 30) as f64;
    assert!(per_tib > 1.8 && per_tib < 2.2, "{per_tib} GiB per TiB");
    for (extra, key) in [
        (
            "[ftl]\nmap_cache = { type = \"demand\", dram_bytes = 1048576, policy = \"lru\" }\n",
            "ftl.map_cache",
        ),
        (
            "[ftl.gc]\ncopyback = false\n[ftl.dedup]\nmode = \"inline\"\nhash_us = 1.0\n",
            "ftl.dedup",
        ),
        ("[fdp]\nhandles = [\"initially_isolated\"]\n", "fdp"),
        (
            "[ftl]\nwrite_buffer_pages = 64\n[ftl.compression]\ncodec = \"lz4\"\nmin_saving = 0.1\n\
             max_chunks_per_page = 20\ncompress_us = 12.0\ndecompress_us = 12.0\n\
             [content]\nmode = \"model\"\n",
            "ftl.compression",
        ),
    ] {
        let msg = big(16, 4096, extra).expect_err(extra).to_string();
        let head = format!("config key `{key}`: ");
        assert!(msg.contains(&head), "{extra}: {msg}");
        // It says how many units (or entries) there are, and the limit.
        let count: u64 = msg.split(&head).nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
        assert!(count >= 1 << 32 && msg.contains("2^32 - 1"), "{extra}: {msg}");
        // One TiB less fits 32 bits: the same feature is accepted.
        big(15, 4096, extra).unwrap_or_else(|e| panic!("{extra} at 15 TiB: {e}"));
    }
    // Deduplication's nodes are an eighth more than the logical units: at 15 TiB with 5%
    // over-provisioning they pass 2^32 while the physical units do not.
    let few_op = "[ftl]\nop_ratio = 0.05\n[ftl.gc]\ncopyback = false\nthreshold = 0.01\nhard_floor = 0.005\n";
    big(15, 4096, few_op).unwrap_or_else(|e| panic!("{e}"));
    let msg = big(
        15,
        4096,
        &format!("{few_op}[ftl.dedup]\nmode = \"inline\"\nhash_us = 1.0\n"),
    )
    .expect_err("dedup nodes past 2^32")
    .to_string();
    assert!(
        msg.contains("config key `ftl.dedup`: ") && msg.contains("dedup map nodes"),
        "{msg}"
    );
    // The presets with a storage stack (whose CCSD packs its map) and with zones, grown to
    // 2^32 pages and to just below (zones of 2 blocks per plane: blocks in pairs).
    for (preset, row, step, key) in [
        ("waltz", 256 * 768, 1, "stack"),
        ("zns", 128 * 1077, 2, "zns"),
    ] {
        let at = |blocks: u64| {
            SimConfig::from_toml_str(
                &format!("preset = \"{preset}\"\n[nand]\nblocks_per_plane = {blocks}\n"),
                "t.toml",
            )
            .and_then(|c| c.validate("t.toml"))
        };
        let over = (1u64 << 32).div_ceil(row).next_multiple_of(step);
        let msg = at(over).expect_err(preset).to_string();
        assert!(msg.contains(&format!("config key `{key}`: ")), "{msg}");
        assert!(msg.contains("2^32 - 1"), "{msg}");
        at(over - step).unwrap_or_else(|e| panic!("{preset} below 2^32 pages: {e}"));
    }
    // The limit of the wide maps: 2^40 - 1 units, 4 PiB of 4 KiB units less one (in 16 KiB
    // pages, as the number of blocks is bounded).
    let most = big(4095, 16384, "").unwrap_or_else(|e| panic!("4095 TiB: {e}"));
    assert_eq!(estimate(&most).physical_pages, 4095 << 26);
    let msg = big(4096, 16384, "").expect_err("4 PiB").to_string();
    assert!(
        msg.contains("config key `ftl.mapping_unit`: ") && msg.contains("2^40 - 1"),
        "{msg}"
    );
}

#[test]
fn a_forced_wide_map_is_built_through_the_config_path_too() {
    // `Simulation::build_with_layout` (the config's own workload) takes the layout as the
    // stream path does.
    let cfg = config(SHRUNK[0]);
    let sim = Simulation::build_with_layout(
        cfg,
        flashpress_core::estimate::MemoryLimit::Unlimited,
        &mut Interrupt::none(),
        MapLayout::Wide,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sim.device().unwrap().ftl.page_map_bits(), Some(33));
}
