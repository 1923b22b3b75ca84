//! The split FTL (PR-SSD section 4.3, `ftl.compression.split`): pages that do not compress
//! are written as vertical packages on different channels of one page type and read with one
//! partial read per piece, all in parallel; every read returns the last write through splits,
//! partial writes, trims and GC; the split decision and split conflicts behave as the seed
//! describes; bad settings are refused by name.

use crate::support::{config, script_sim, NO_PRECONDITION};
use flashpress_core::config::SimConfig;
use flashpress_core::units::Lpn;
use flashpress_core::workload::{Drive, Op};
use flashpress_core::Error;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// A small TLC device: 4 channels of 4 planes, 16 KiB pages, 4 KiB partial reads, DPC in the controller,
/// split with the decision bit.
const DEVICE: &str = concat!(
    tlc_device!(4, 2, 16),
    r#"
[ftl]
op_ratio = 0.25
write_buffer_pages = 8
[ftl.compression]
codec = "dpc"
min_saving = 0.1
max_chunks_per_page = 12
compress_us = 0.34
decompress_us = 0.038
zero_units = true
[ftl.compression.split]
decision = "bit"
max_split_pages = 256
[content]
mode = "model"
codec = "dpc"
granularity = 16384
"#
);

const PAGE: u64 = 16384;

/// Logical pages the host sees on a device built from `cfg`.
fn host_pages(cfg: &SimConfig) -> u64 {
    script_sim(cfg, vec![(Op::Read, 0, 4096, 0)], Drive::Open)
        .device()
        .unwrap()
        .logical_pages()
}

/// Random whole-page, 4 KiB and two-page writes, reads and trims over a preconditioned
/// device whose content compresses 1x to 1.4x (so many pages do not compress), with every
/// split decision: verify mode checks every read and every piece of a split page, the
/// invariant check passes at the end, GC ran and groups were written split.
#[test]
fn every_read_returns_the_last_write_through_splits_trims_and_gc() {
    for (decision, seed) in [("bit", 1u64), ("lru", 2), ("all", 3)] {
        let lru = if decision == "lru" {
            "lru_entries = 64\n"
        } else {
            ""
        };
        let text = format!(
            "{DEVICE}\n[check]\nverify = true\ninvariants = true\n[content.ratio]\ntype = \"uniform\"\nmin = 1.0\nmax = 1.4\n"
        )
        .replace("decision = \"bit\"\n", &format!("decision = \"{decision}\"\n{lru}"));
        let cfg = config(&text);
        let pages = host_pages(&cfg);
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let script: Vec<(Op, u64, u64, u64)> = (0..30_000)
            .map(|_| {
                let lpn = rng.random_range(0..pages - 1);
                let sub = rng.random_range(0..4u64) * 4096;
                match rng.random_range(0..20) {
                    0..=6 => (Op::Write, lpn * PAGE, PAGE, 0),
                    7 => (Op::Write, lpn * PAGE, 2 * PAGE, 0),
                    8..=10 => (Op::Write, lpn * PAGE + sub, 4096, 0),
                    11 => (Op::Trim, lpn * PAGE, PAGE, 0),
                    12..=14 => (Op::Read, lpn * PAGE + sub, 4096, 0),
                    15 => (Op::Read, lpn * PAGE, 2 * PAGE, 0),
                    _ => (Op::Read, lpn * PAGE, PAGE, 0),
                }
            })
            .collect();
        let s = script_sim(&cfg, script, Drive::Closed { depth: 8 })
            .run()
            .unwrap()
            .summary;
        assert_eq!(s.requests_completed, 30_000, "{decision}");
        assert!(s.verified_page_reads > 5_000, "{decision}");
        assert!(s.gc_blocks_erased > 0, "{decision}: GC ran");
        let c = s.compression.unwrap();
        assert!(c.packer.split_groups > 50, "{decision}: {c:?}");
        assert!(
            c.packer.unsplit_groups * 4 < c.packer.split_groups,
            "{decision}: page types matched for most groups: {c:?}"
        );
        assert!(
            c.packer.split_live_max <= 256,
            "{decision}: the table's capacity"
        );
        if decision == "all" {
            assert_eq!(c.split_refused_size + c.split_refused_history, 0);
        } else {
            assert!(
                c.split_refused_size > 0,
                "{decision}: two-page writes: {c:?}"
            );
            assert!(
                c.split_refused_history > 0,
                "{decision}: two-page reads: {c:?}"
            );
        }
        assert!(s.split_table_bytes.unwrap() > 0);
    }
}

/// Incompressible pages written one by one on a fresh device (Split All): each group of four
/// goes to four flash pages on four channels of one page type, and a whole-page read at
/// queue depth 1 is four partial reads in parallel: overhead, the partial sense of that type,
/// one unit's transfer, ECC and the link, exactly. Two pages of one group read together
/// share their four flash pages: four full reads.
#[test]
fn a_split_page_is_read_by_parallel_partial_reads_timed_exactly() {
    let text =
        format!("{DEVICE}\n{NO_PRECONDITION}[content.ratio]\ntype = \"fixed\"\nratio = 1.0\n")
            .replace("decision = \"bit\"", "decision = \"all\"");
    let cfg = config(&text);
    let n = 64u64;
    let mut script: Vec<(Op, u64, u64, u64)> = (0..n)
        .map(|l| (Op::Write, l * PAGE, PAGE, l * 100_000))
        .collect();
    script.extend((0..n).map(|l| (Op::Read, l * PAGE, PAGE, 1_000_000_000 + l * 5_000_000)));
    // Pages 0 and 1 (one group) read by one request.
    script.push((Op::Read, 0, 2 * PAGE, 2_000_000_000));
    let mut sim = script_sim(&cfg, script, Drive::Open);
    while sim.progress().requests_completed < n {
        assert!(!sim.step(1).unwrap());
    }
    let dev = sim.device().unwrap();
    let c = dev.compression.as_ref().unwrap();
    let g = &dev.nand.geo;
    let ns = |x: f64| x.round() as u64;
    let link = |bytes: f64| ns(bytes * 1e3 / cfg.host.link_mb_per_s);
    let mut sum = 0u64;
    let mut groups = std::collections::BTreeSet::new();
    for l in 0..n {
        let ch = c.packer().lookup(l).unwrap();
        assert!(ch.split(), "page {l}");
        groups.insert(ch.vpn);
        let mut types = Vec::new();
        let mut channels = Vec::new();
        for i in 0..4 {
            let p = c.packer().piece(ch, i);
            assert_eq!(
                (p.offset, p.len),
                (ch.offset * 4096, 4096),
                "page {l} piece {i}"
            );
            let ppn = dev.ftl.lookup(Lpn(p.vpn.into())).unwrap();
            types.push(g.page_in_block(ppn) % 3);
            channels.push(g.channel_of(g.plane_of_ppn(ppn)));
        }
        channels.sort_unstable();
        assert_eq!(
            channels,
            vec![0, 1, 2, 3],
            "page {l}: one piece per channel"
        );
        assert!(
            types.iter().all(|&t| t == types[0]),
            "page {l}: types {types:?}"
        );
        let sense = ns(ns(cfg.nand.read_latency_us[types[0] as usize] * 1e3) as f64 * 0.8);
        sum += cfg.host.command_overhead_ns
            + sense
            + ns(4096.0 * 1e3 / 833.0)
            + 20_000
            + link(16384.0);
    }
    assert_eq!(groups.len() as u64, n / 4);
    // The two-page read: the flash pages of group 0, each read whole (two units wanted).
    let ch = c.packer().lookup(0).unwrap();
    let slowest = (0..4)
        .map(|i| {
            let ppn = dev
                .ftl
                .lookup(Lpn(c.packer().piece(ch, i).vpn.into()))
                .unwrap();
            ns(cfg.nand.read_latency_us[(g.page_in_block(ppn) % 3) as usize] * 1e3)
        })
        .max()
        .unwrap();
    let two =
        cfg.host.command_overhead_ns + slowest + ns(16384.0 * 1e3 / 833.0) + 20_000 + link(32768.0);
    let s = sim.run().unwrap().summary;
    assert_eq!(s.nand_partial_reads, 4 * n, "every piece read partially");
    let lat = s.read.latency_us.unwrap();
    let want = (sum + two) as f64 / (n + 1) as f64 * 1e-3;
    assert!(
        (lat.mean - want).abs() < 1e-9,
        "mean read latency {} against {want}",
        lat.mean
    );
    let k = s.compression.unwrap();
    assert_eq!(k.reads_no_conflict, n + 1, "{k:?}");
    assert_eq!(k.packer.unsplit_groups, 0);
}

/// The split decision: a page written by a host write larger than a page is not split, nor
/// is a page last read by a read larger than a page; a page read by page-sized reads is.
/// With Split All, both are split, and a bulk read of split pages conflicts on channels.
#[test]
fn the_split_decision_follows_host_request_sizes() {
    let run = |decision: &str, lru: &str| {
        let text =
            format!("{DEVICE}\n{NO_PRECONDITION}[content.ratio]\ntype = \"fixed\"\nratio = 1.0\n")
                .replace(
                    "decision = \"bit\"\n",
                    &format!("decision = \"{decision}\"\n{lru}"),
                );
        let cfg = config(&text);
        let mut script = Vec::new();
        // Pages 0..32 written by 4-page writes, read by 4-page reads, then rewritten by
        // single-page writes; pages 32..64 written, read and rewritten a page at a time.
        script.extend((0..8).map(|i| (Op::Write, i * 4 * PAGE, 4 * PAGE, 0)));
        script.extend((32..64).map(|l| (Op::Write, l * PAGE, PAGE, 0)));
        script.extend((0..8).map(|i| (Op::Read, i * 4 * PAGE, 4 * PAGE, 0)));
        script.extend((32..64).map(|l| (Op::Read, l * PAGE, PAGE, 0)));
        script.extend((0..64).map(|l| (Op::Write, l * PAGE, PAGE, 0)));
        // Bulk reads of the rewritten pages across two groups each.
        script.extend((0..15).map(|i| (Op::Read, (i * 4 + 1) * PAGE, 4 * PAGE, 0)));
        let s = script_sim(&cfg, script, Drive::Closed { depth: 1 })
            .run()
            .unwrap()
            .summary;
        s.compression.unwrap()
    };
    for (decision, lru) in [("bit", ""), ("lru", "lru_entries = 1000\n")] {
        let c = run(decision, lru);
        assert_eq!(c.split_refused_size, 32, "{decision}: the 4-page writes");
        assert_eq!(
            c.split_refused_history, 32,
            "{decision}: pages read 4 at a time"
        );
        assert_eq!(c.packer.split_pages, 32 + 32, "{decision}: {c:?}");
    }
    // An LRU of one page forgets the 4-page reads behind the later single-page ones.
    let c = run("lru", "lru_entries = 1\n");
    assert_eq!(c.split_refused_history, 0, "{c:?}");
    assert_eq!(c.packer.split_pages, 96, "{c:?}");
    let all = run("all", "");
    assert_eq!(all.packer.split_pages, 32 + 32 + 64);
    assert_eq!(all.split_refused_size + all.split_refused_history, 0);
    // A bulk read of four split pages over two groups: eight flash reads on four channels.
    assert_eq!(all.reads_conflict_split, 15, "{all:?}");
    let bit = run("bit", "");
    assert!(bit.reads_conflict_split < 15, "{bit:?}");
}

/// The invariant check follows a split page to its pieces: a pending group's pages are in
/// DRAM, a closed group's pieces are mapped, also after some of its pages were trimmed.
#[test]
fn the_invariant_check_follows_split_pages_to_their_pieces() {
    let text = format!(
        "{DEVICE}\n[check]\ninvariants = true\n{NO_PRECONDITION}[content.ratio]\ntype = \"fixed\"\nratio = 1.0\n"
    )
    .replace("decision = \"bit\"", "decision = \"all\"");
    let cfg = config(&text);
    let mut script: Vec<(Op, u64, u64, u64)> =
        (0..9).map(|l| (Op::Write, l * PAGE, PAGE, 0)).collect();
    script.extend((0..4).map(|l| (Op::Trim, l * PAGE, PAGE, 0)));
    let s = script_sim(&cfg, script, Drive::Closed { depth: 1 })
        .run()
        .unwrap()
        .summary;
    let c = s.compression.unwrap();
    assert_eq!((c.packer.split_groups, c.packer.split_pages), (2, 8));
}

/// The LRU history remembers the pages read last: a write's decision does not make a page
/// recent again (with two entries, a page read before two later reads is forgotten).
#[test]
fn the_lru_history_is_ordered_by_reads_only() {
    let text =
        format!("{DEVICE}\n{NO_PRECONDITION}[content.ratio]\ntype = \"fixed\"\nratio = 1.0\n")
            .replace(
                "decision = \"bit\"\n",
                "decision = \"lru\"\nlru_entries = 2\n",
            );
    let cfg = config(&text);
    let script = vec![
        (Op::Read, 0, 2 * PAGE, 0),     // pages 0 and 1 read by a large read
        (Op::Write, 0, PAGE, 0),        // refused: page 0's history
        (Op::Read, 10 * PAGE, PAGE, 0), // page 10 read: page 0 is the oldest of three
        (Op::Write, 0, PAGE, 0),        // page 0 has no history left: split
    ];
    let s = script_sim(&cfg, script, Drive::Closed { depth: 1 })
        .run()
        .unwrap()
        .summary;
    let c = s.compression.unwrap();
    assert_eq!(c.split_refused_history, 1, "{c:?}");
}

/// The size threshold follows the channels: with 8 channels and 4 pieces per page, the
/// pieces of two pages are read at once, so writes of two pages split and of three do not.
#[test]
fn the_split_threshold_is_as_many_pages_as_the_channels_read_at_once() {
    let text =
        format!("{DEVICE}\n{NO_PRECONDITION}[content.ratio]\ntype = \"fixed\"\nratio = 1.0\n")
            .replace("channels = 4", "channels = 8");
    let cfg = config(&text);
    let mut script: Vec<(Op, u64, u64, u64)> = (0..8)
        .map(|i| (Op::Write, i * 2 * PAGE, 2 * PAGE, 0))
        .collect();
    script.extend((0..8).map(|i| (Op::Write, (100 + i * 3) * PAGE, 3 * PAGE, 0)));
    let s = script_sim(&cfg, script, Drive::Closed { depth: 1 })
        .run()
        .unwrap()
        .summary;
    let c = s.compression.unwrap();
    assert_eq!(c.packer.split_pages, 16, "{c:?}");
    assert_eq!(c.split_refused_size, 24, "{c:?}");
}

#[test]
fn bad_split_settings_are_refused_by_name() {
    for (from, to, key) in [
        ("channels = 4", "channels = 2", "ftl.compression.split"),
        (
            "unit_bytes = 4096",
            "unit_bytes = 1024",
            "ftl.compression.split",
        ),
        (
            "[nand.partial_read]\n",
            "[nand.partial_read]\nenabled = false\n",
            "ftl.compression.split",
        ),
        (
            "max_split_pages = 256",
            "max_split_pages = 2",
            "ftl.compression.split.max_split_pages",
        ),
        (
            "max_split_pages = 256",
            "max_split_pages = 100000",
            "ftl.compression.split.max_split_pages",
        ),
        (
            "decision = \"bit\"",
            "decision = \"lru\"",
            "ftl.compression.split.lru_entries",
        ),
        (
            "decision = \"bit\"",
            "decision = \"lru\"\nlru_entries = 4294967296",
            "ftl.compression.split.lru_entries",
        ),
        (
            "max_split_pages = 256",
            "max_split_pages = 254",
            "ftl.compression.split.max_split_pages",
        ),
        (
            "decision = \"bit\"",
            "decision = \"bit\"\nlru_entries = 5",
            "ftl.compression.split.lru_entries",
        ),
    ] {
        let text = DEVICE.replace(from, to);
        assert_ne!(text, DEVICE, "{from}");
        match SimConfig::from_toml_str(&text, "t.toml") {
            Err(Error::Config { key: k, msg, .. }) => assert_eq!(k, key, "{to}: {msg}"),
            other => panic!("{to}: expected a config error naming {key}, got {other:?}"),
        }
    }
    let text = DEVICE.replace("decision = \"bit\"", "decision = \"some\"");
    assert!(SimConfig::from_toml_str(&text, "t.toml").is_err());
}
