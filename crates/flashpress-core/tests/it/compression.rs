//! Compression in the plain SSD's controller (`ftl.compression`): every read returns what was
//! last written through packing, partial-page writes, TRIM and GC (verify mode); compressed
//! reads are partial exactly when their chunk lies in one partial unit, timed by hand; and
//! bad settings are refused by name.

use crate::support::{config, script_sim, NO_PRECONDITION};
use flashpress_core::config::SimConfig;
use flashpress_core::workload::{ContentHints, Drive, Op};
use flashpress_core::Error;
use rand::{Rng, RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// A small TLC device with 16 KiB pages, 4 KiB partial reads and LZ4 in the controller.
const DEVICE: &str = concat!(
    tlc_device!(2, 1, 32),
    r#"
[ftl]
op_ratio = 0.25
write_buffer_pages = 4
[ftl.compression]
codec = "lz4"
min_saving = 0.1
max_chunks_per_page = 20
compress_us = 12.0
decompress_us = 12.0
[content]
mode = "model"
codec = "lz4"
granularity = 16384
"#
);

/// Random whole-page and 4 KiB writes, reads and trims over a preconditioned device whose
/// content compresses 1x to 5x (some pages fail compression, some merge many to a page):
/// verify mode checks every read, the invariant check (packer and page FTL) passes at the
/// end, GC ran, and pages were merged (and, for LZ4 and DPC, some written raw).
#[test]
fn every_read_returns_the_last_write_through_packing_trim_and_gc() {
    for (codec, seed) in [("lz4", 1u64), ("dpc", 2), ("fpc", 3)] {
        let text = format!(
            "{DEVICE}\n[check]\nverify = true\ninvariants = true\n[content.ratio]\ntype = \"uniform\"\nmin = 1.0\nmax = 5.0\n"
        )
        .replace("codec = \"lz4\"\nmin_saving", &format!("codec = \"{codec}\"\nmin_saving"));
        let cfg = config(&text);
        let pages = flashpress_core::ftl::logical_pages(&cfg) - 1;
        let script = crate::support::mixed_16k_script(seed, pages, 30_000);
        let s = script_sim(&cfg, script, Drive::Closed { depth: 8 })
            .run()
            .unwrap()
            .summary;
        assert_eq!(s.requests_completed, 30_000, "{codec}");
        assert!(
            s.verified_page_reads > 5_000,
            "{codec}: {}",
            s.verified_page_reads
        );
        assert!(s.gc_blocks_erased > 0, "{codec}: GC ran");
        let c = s.compression.unwrap();
        // FPC encodes the zero words of generated content, so nearly every page saves 10%.
        if codec != "fpc" {
            assert!(c.packer.raw_pages > 0, "{codec}: {c:?}");
        }
        assert!(
            c.packer.chunks > c.packer.merged_pages,
            "{codec}: pages merged: {c:?}"
        );
    }
}

/// Logical pages written in order on a fresh device, then each read whole at queue depth 1:
/// a read is partial exactly when the page's chunk lies inside one 4 KiB unit of its flash
/// page (a rule applied here to the packer's placement), and its latency is command overhead,
/// the (partial) sense of its page type, the transfer of a unit or a page, ECC, one
/// decompression and the link, exactly.
#[test]
fn a_compressed_read_is_partial_when_its_chunk_lies_in_one_unit_and_is_timed_exactly() {
    let text = format!(
        "{DEVICE}\n{NO_PRECONDITION}[content.ratio]\ntype = \"uniform\"\nmin = 2.0\nmax = 12.0\n"
    );
    let cfg = config(&text);
    let n = 400u64;
    // Writes 100 us apart, then (once every program is long done) reads 5 ms apart, each
    // alone on the device; a few more writes close the page the last reads' chunks are in.
    let mut script: Vec<(Op, u64, u64, u64)> = (0..n + 50)
        .map(|l| (Op::Write, l * 16384, 16384, l * 100_000))
        .collect();
    script.extend((0..n).map(|l| (Op::Read, l * 16384, 16384, 1_000_000_000 + l * 5_000_000)));
    let mut sim = script_sim(&cfg, script, Drive::Open);
    // Run the writes, then look at where each page went.
    while sim.progress().requests_completed < n + 50 {
        assert!(!sim.step(1).unwrap());
    }
    let dev = sim.device().unwrap();
    let c = dev.compression.as_ref().unwrap();
    let g = &dev.nand.geo;
    let ns = |x: f64| x.round() as u64;
    let (mut sum, mut partial) = (0u64, 0u64);
    for l in 0..n {
        let ch = c.packer().lookup(l).unwrap();
        let ppn = dev
            .ftl
            .lookup(flashpress_core::units::Lpn(ch.vpn.into()))
            .unwrap();
        let ty = (g.page_in_block(ppn) % 3) as usize;
        let full = ns(cfg.nand.read_latency_us[ty] * 1e3);
        let one_unit = ch.offset / 4096 == (ch.offset + ch.len - 1) / 4096;
        let (sense, xfer) = if one_unit {
            partial += 1;
            (ns(full as f64 * 0.8), ns(4096.0 * 1e3 / 833.0))
        } else {
            (full, ns(16384.0 * 1e3 / 833.0))
        };
        let decompress = if ch.len < 16384 { 12_000 } else { 0 };
        let link = ns(16384.0 * 1e3 / cfg.host.link_mb_per_s);
        sum += cfg.host.command_overhead_ns + sense + xfer + 20_000 + decompress + link;
    }
    assert!(
        partial > 50 && partial < n,
        "a mix of partial and full reads: {partial}"
    );
    let s = sim.run().unwrap().summary;
    assert_eq!(s.nand_partial_reads, partial);
    let lat = s.read.latency_us.unwrap();
    let want = sum as f64 / n as f64 * 1e-3;
    assert!(
        (lat.mean - want).abs() < 1e-9,
        "mean read latency {} against {want}",
        lat.mean
    );
}

#[test]
fn bad_compression_settings_are_refused_by_name() {
    for (from, to, key) in [
        (
            "min_saving = 0.1",
            "min_saving = 1.0",
            "ftl.compression.min_saving",
        ),
        (
            "max_chunks_per_page = 20",
            "max_chunks_per_page = 0",
            "ftl.compression.max_chunks_per_page",
        ),
        (
            "max_chunks_per_page = 20",
            "max_chunks_per_page = 256",
            "ftl.compression.max_chunks_per_page",
        ),
        (
            "decompress_us = 12.0",
            "decompress_us = -1.0",
            "ftl.compression.decompress_us",
        ),
        (
            "write_buffer_pages = 4",
            "write_buffer_pages = 0",
            "ftl.write_buffer_pages",
        ),
        ("page_size = 16384", "page_size = 65536", "ftl.compression"),
        ("mode = \"model\"", "mode = \"off\"", "content.mode"),
    ] {
        let text = DEVICE.replace(from, to);
        assert_ne!(text, DEVICE, "{from}");
        match SimConfig::from_toml_str(&text, "t.toml") {
            Err(Error::Config { key: k, .. }) => assert_eq!(k, key, "{to}"),
            other => panic!("{to}: expected a config error naming {key}, got {other:?}"),
        }
    }
    let text = DEVICE.replace("codec = \"lz4\"\nmin_saving", "codec = \"lz5\"\nmin_saving");
    assert!(
        SimConfig::from_toml_str(&text, "t.toml").is_err(),
        "an unknown codec"
    );
}

/// A corpus whose 4 KiB blocks come in runs of four zero, text or random blocks.
fn zero_corpus(dir: &std::path::Path) -> std::path::PathBuf {
    let mut rng = Pcg64Mcg::seed_from_u64(11);
    let mut bytes = Vec::new();
    // 3001 blocks: as ids wrap around the corpus, pages start at every offset of a run.
    for k in 0..3001usize {
        let mut b = vec![0u8; 4096];
        match k / 4 % 3 {
            0 => {}
            1 => b
                .iter_mut()
                .enumerate()
                .for_each(|(i, x)| *x = b"flash pages of text, "[i % 21]),
            _ => rng.fill_bytes(&mut b),
        }
        bytes.extend_from_slice(&b);
    }
    let p = dir.join("corpus.bin");
    std::fs::write(&p, bytes).unwrap();
    p
}

/// The content model's zero mask against the corpus as it was laid out: block `i` is zero
/// exactly when `i / 4 % 3 == 0`.
#[test]
fn the_zero_mask_finds_the_corpus_zero_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = zero_corpus(dir.path());
    let text = format!(
        "{DEVICE}
[content.source]
type = \"files\"
paths = [\"{}\"]
",
        corpus.display()
    );
    let cfg = config(&text);
    for mode in ["model", "bytes"] {
        let mut c = cfg.content.clone();
        c.mode = serde_json::from_value(serde_json::json!(mode)).unwrap();
        let cm = flashpress_core::content::ContentModel::from_content_config(
            &c,
            cfg.seed,
            &[ContentHints::default()],
            "t",
        )
        .unwrap()
        .unwrap();
        for i in 0..3000u64 {
            let id = cm.id_of_block(i).unwrap();
            assert_eq!(
                cm.zero_mask(0, id, 1) == 1,
                i / 4 % 3 == 0,
                "{mode}: block {i}"
            );
        }
    }
}

/// With `zero_units` on a corpus of zero, text and random blocks: a page is stored as nothing
/// exactly when its zero bitmap covers it, only its non-zero units take bytes, reads of zero
/// units only touch no flash, and verify mode holds through GC.
#[test]
fn zero_units_are_not_stored_and_their_reads_need_no_flash() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = zero_corpus(dir.path());
    let text = format!(
        "{DEVICE}\n[check]\nverify = true\n[content.source]\ntype = \"files\"\npaths = [\"{}\"]\n",
        corpus.display()
    )
    .replace(
        "\ncompress_us = 12.0",
        "\ncompress_us = 12.0\nzero_units = true",
    )
    .replace("mode = \"model\"", "mode = \"bytes\"");
    let cfg = config(&text);
    let pages = flashpress_core::ftl::logical_pages(&cfg) - 1;
    let mut rng = Pcg64Mcg::seed_from_u64(5);
    let script: Vec<(Op, u64, u64, u64)> = (0..40_000)
        .map(|_| {
            let lpn = rng.random_range(0..pages);
            let sub = rng.random_range(0..4u64) * 4096;
            match rng.random_range(0..10) {
                0..=3 => (Op::Write, lpn * 16384, 16384, 0),
                4 => (Op::Write, lpn * 16384 + sub, 4096, 0),
                5..=7 => (Op::Read, lpn * 16384 + sub, 4096, 0),
                _ => (Op::Read, lpn * 16384, 16384, 0),
            }
        })
        .collect();
    let mut sim = script_sim(&cfg, script, Drive::Closed { depth: 4 });
    while !sim.step(1 << 12).unwrap() {}
    {
        let dev = sim.device().unwrap();
        let c = dev.compression.as_ref().unwrap();
        let mut checked = 0;
        for (lpn, ch) in c.packer().mapped_chunks().take(3000) {
            let zeros = c.zeros(lpn);
            assert_eq!(
                ch.zero(),
                zeros == 0xF,
                "logical page {lpn}: zero page iff all units zero"
            );
            if !ch.zero() {
                let nonzero = 4 - zeros.count_ones();
                assert!(
                    ch.len <= nonzero * 4096,
                    "logical page {lpn}: only non-zero units stored"
                );
            }
            checked += 1;
        }
        assert!(checked > 1000);
    }
    let s = sim.finish().unwrap().summary;
    let c = s.compression.unwrap();
    assert!(c.zero_units > 1000, "{c:?}");
    assert!(c.zero_reads > 100, "{c:?}");
    assert!(c.packer.zero_pages > 0, "{c:?}");
    // Every zero unit is in an all-zero page (4 each) or a partial-zero page (1 to 3 each).
    assert!(c.partial_zero_pages > 100, "{c:?}");
    assert!(
        c.partial_zero_pages + 4 * c.packer.zero_pages <= c.zero_units
            && c.zero_units <= 3 * c.partial_zero_pages + 4 * c.packer.zero_pages,
        "{c:?}"
    );
    assert!(s.verified_page_reads > 5000);
    assert!(s.gc_blocks_erased > 0, "GC ran");
    // No flash read for a read of zero units only: flash reads are at most the reads that
    // asked for a non-zero unit (less those served from DRAM), plus GC and merge reads.
    let host_page_reads = s.verified_page_reads;
    assert!(
        s.nand_reads + c.zero_reads + c.dram_page_reads
            <= host_page_reads + s.gc_pages_migrated + s.rmw_page_reads,
        "{} flash reads, {} zero reads, {} from DRAM, {} pages read",
        s.nand_reads,
        c.zero_reads,
        c.dram_page_reads,
        host_page_reads
    );
}

/// The mapping table by PR-SSD's accounting on the Table 1 device, by hand: 33,554,432 flash
/// pages, 31,205,621 logical pages (7% over-provisioning). Baseline: 32 + 32 bits. S: 38 bits
/// per logical page (page number, flag, 5-bit slot of 20) and 665 per flash page (5-bit count,
/// 20-bit valid bitmap, 20 reverse entries). DP: 45 bits (4-bit slot of 12, 4-bit partial and
/// zero bitmaps) and 400 (4 + 12 + 12 x 32). The seed says PR-SSD's table is 37% smaller.
#[test]
fn mapping_table_sizes_follow_the_seeds_accounting() {
    let bytes = |scheme: &str| {
        let cfg = SimConfig::from_toml_str(&format!("scheme = \"prssd/{scheme}\"\n"), "t").unwrap();
        flashpress_core::device::compress::mapping_table_bytes(&cfg)
    };
    let (l, p) = (31_205_621u64, 33_554_432u64);
    assert_eq!(bytes("Baseline"), (l * 32 + p * 32).div_ceil(8));
    assert_eq!(bytes("S"), (l * 38 + p * 665).div_ceil(8));
    assert_eq!(bytes("M"), bytes("S"));
    assert_eq!(bytes("DP"), (l * 45 + p * 400).div_ceil(8));
    assert_eq!(
        bytes("D"),
        (l * 41 + p * 400).div_ceil(8),
        "no partial bitmap without partial reads"
    );
    let change = bytes("DP") as f64 / bytes("S") as f64 - 1.0;
    assert!((change - (-0.369)).abs() < 0.001, "DP against S: {change}");
}

/// The DRAM buffer bounds the programs in flight: with one buffer page, incompressible pages
/// (each a page of its own) are programmed one at a time, so writes cannot go faster than
/// one per shortest program time (700 us), whatever the queue depth; with 16 pages they do.
#[test]
fn one_buffer_page_programs_one_page_at_a_time() {
    let rate = |pages: u32| {
        let text =
            format!("{DEVICE}\n{NO_PRECONDITION}[content.ratio]\ntype = \"fixed\"\nratio = 1.0\n")
                .replace(
                    "write_buffer_pages = 4",
                    &format!("write_buffer_pages = {pages}"),
                );
        let cfg = config(&text);
        let script: Vec<(Op, u64, u64, u64)> = (0..3000)
            .map(|l| (Op::Write, l * 16384, 16384, 0))
            .collect();
        let s = script_sim(&cfg, script, Drive::Closed { depth: 32 })
            .run()
            .unwrap()
            .summary;
        assert_eq!(s.compression.unwrap().packer.raw_pages, 3000);
        s.write.iops
    };
    let one = rate(1);
    assert!(
        one <= 1e6 / 700.0 * 1.001,
        "one buffer page: {one} writes/s"
    );
    assert!(
        one >= 1e6 / 1400.0 * 0.9,
        "one buffer page still writes: {one}"
    );
    let many = rate(16);
    assert!(many > 3.0 * one, "16 buffer pages: {many} against {one}");
}

/// Pages that barely compress (one per merged page) written over the whole space, three
/// times: every logical page ends in a page of its own while the page being filled may hold
/// nothing, and the one spare virtual page must be enough.
#[test]
fn the_whole_space_rewritten_with_pages_that_barely_compress_never_runs_out_of_pages() {
    for seed in 1..=3u64 {
        let text = format!(
            "{DEVICE}\n[check]\nverify = true\n{NO_PRECONDITION}[content.ratio]\ntype = \"uniform\"\nmin = 1.0\nmax = 1.3\n"
        )
        .replace("preset = \"tiny\"\n", &format!("preset = \"tiny\"\nseed = {seed}\n"))
        .replace("min_saving = 0.1", "min_saving = 0.0");
        let cfg = config(&text);
        let pages = flashpress_core::ftl::logical_pages(&cfg) - 1;
        let script: Vec<(Op, u64, u64, u64)> = (0..3 * pages)
            .map(|i| (Op::Write, (i % pages) * 16384, 16384, 0))
            .collect();
        let s = script_sim(&cfg, script, Drive::Closed { depth: 4 })
            .run()
            .unwrap()
            .summary;
        assert_eq!(s.requests_completed, 3 * pages, "seed {seed}");
    }
}

/// A partial-page write over a compressed page whose old data is on flash reads it and
/// decompresses it before merging: on a quiet device each such write is acknowledged exactly
/// the extra decompression time later when `decompress_us` grows by 100 us, and every one of
/// them counts a decompressed page.
#[test]
fn old_data_of_a_partial_write_is_decompressed_before_it_merges() {
    let run = |decompress_us: f64| {
        let text =
            format!("{DEVICE}\n{NO_PRECONDITION}[content.ratio]\ntype = \"fixed\"\nratio = 3.0\n")
                .replace(
                    "decompress_us = 12.0",
                    &format!("decompress_us = {decompress_us}"),
                );
        let cfg = config(&text);
        let n = 30u64;
        // Whole pages (closing their merged pages with a few more), then one 4 KiB write
        // into each, each alone on the device.
        let mut script: Vec<(Op, u64, u64, u64)> = (0..n + 6)
            .map(|l| (Op::Write, l * 16384, 16384, l * 5_000_000))
            .collect();
        script.extend((0..n).map(|l| {
            (
                Op::Write,
                l * 16384 + 4096,
                4096,
                1_000_000_000 + l * 5_000_000,
            )
        }));
        let s = script_sim(&cfg, script, Drive::Open).run().unwrap().summary;
        let c = s.compression.unwrap();
        (
            s.write.latency_us.unwrap().mean,
            (c.merge_decompressed_pages, c.decompressed_pages),
            s.rmw_page_reads,
            s.write.requests,
        )
    };
    let (fast, d1, r1, w) = run(12.0);
    let (slow, d2, r2, _) = run(112.0);
    assert_eq!(
        (d1, d2),
        ((30, 0), (30, 0)),
        "one decompression per old page read, none counted as a host read's"
    );
    assert_eq!((r1, r2), (30, 30));
    let want = 100.0 * 30.0 / w as f64;
    assert!(
        ((slow - fast) - want).abs() < 1e-6,
        "mean write latency {slow} against {fast}: expected +{want} us"
    );
}

/// A fio job with no `size` covers the device's whole logical space: on a compressing device
/// that is one page less than the page FTL's (the page being filled holds a virtual page), and
/// the job's region must be sized from it (it ran to the last page and then failed "outside
/// the device's logical bytes").
#[test]
fn a_fio_job_without_size_fits_a_compressing_device() {
    let cfg = crate::support::config(
        "scheme = \"prssd/DP\"\nseed = 1\n[nand]\nchannels = 1\nchips_per_channel = 1\ndies_per_chip = 1\n\
         planes_per_die = 2\nblocks_per_plane = 64\npages_per_block = 64\n[ftl]\nop_ratio = 0.25\n\
         [workload]\ntype = \"fio\"\njobs = [{ name = \"w\", rw = \"write\", bs = \"4k\" }]\n",
    );
    let pages = flashpress_core::ftl::host_pages(&cfg);
    assert_eq!(pages + 1, flashpress_core::ftl::logical_pages(&cfg));
    let rep = flashpress_core::sim::Simulation::new(cfg.clone())
        .unwrap()
        .run()
        .unwrap();
    assert_eq!(
        rep.summary.write.bytes,
        pages * cfg.nand.page_size as u64,
        "the whole host space, once"
    );
}

/// A file fio lays out for a reading job holds the job's `buffer_pattern` (fio's
/// `extend_file` fills it with `fill_io_buffer`), zeros with `zero_buffers`, unique data
/// otherwise: on a compressing device every laid-out page of a pattern is stored at the size
/// LZ4 itself (the library, called here) gives 16 KiB of the pattern (zeros: of zeros), and
/// unique data is stored at neither size.
#[test]
fn a_laid_out_file_is_stored_as_the_reading_jobs_buffers() {
    // LZ4 (the library) on a 16 KiB page of `pattern` repeated.
    let lz4 = |pattern: &[u8]| {
        let page: Vec<u8> = pattern.iter().copied().cycle().take(16384).collect();
        lz4::block::compress(&page, Some(lz4::block::CompressionMode::DEFAULT), false)
            .unwrap()
            .len() as u32
    };
    for (opts, expect) in [
        (
            ", buffer_pattern = '0xdeadbeef'",
            Some(lz4(&[0xde, 0xad, 0xbe, 0xef])),
        ),
        (", zero_buffers = 1", Some(lz4(&[0]))),
        ("", None),
    ] {
        let cfg = config(&format!(
            "{DEVICE}{NO_PRECONDITION}[workload]\ntype = \"fio\"\njobs = [{{ name = \"r\", \
             rw = \"read\", bs = \"16k\", filename = \"f\", size = \"4m\"{opts} }}]\n"
        ));
        let mut sim = flashpress_core::sim::Simulation::new(cfg).unwrap();
        while !sim.step(1 << 12).unwrap() {}
        let dev = sim.device().unwrap();
        let c = dev.compression.as_ref().unwrap();
        let chunks: Vec<_> = c.packer().mapped_chunks().collect();
        assert_eq!(chunks.len(), 256, "{opts}: the 4 MiB file's 16 KiB pages");
        for (lpn, ch) in chunks {
            match expect {
                Some(len) => assert_eq!((ch.zero(), ch.len), (false, len), "{opts}: page {lpn}"),
                None => assert!(
                    !ch.zero() && ch.len > 1000,
                    "{opts}: page {lpn}: {}",
                    ch.len
                ),
            }
        }
        let s = sim.finish().unwrap().summary;
        assert_eq!(s.precondition.layout_bytes, 4 << 20, "{opts}");
    }
}

/// A 16 KiB page of data built as fio 3.33 builds a `buffer_compress_percentage = p` buffer
/// (lib/rand.c, `__fill_random_buf_percentage`, with `buffer_compress_chunk` 512): each
/// 512-byte chunk holds `512 * (100 - p) / 100` bytes of fio's `__fill_random_buf` (a word,
/// then the word times the golden-ratio prime shifted right by 3, ...) from the chunk's own
/// seed, then zeros.
fn fio_compressible_page(p: u32, seed: u64) -> Vec<u8> {
    const GOLDEN_RATIO_PRIME: u64 = 0x9e37_ffff_fffc_0001;
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut page = Vec::with_capacity(16384);
    for _ in 0..16384 / 512 {
        let random = 512 * (100 - p as usize) / 100;
        let mut chunk = vec![0u8; 512];
        let mut s = rng.next_u64();
        let mut at = 0;
        while at < random {
            let word = s.to_le_bytes();
            let n = (random - at).min(8);
            chunk[at..at + n].copy_from_slice(&word[..n]);
            at += 8;
            s = s.wrapping_mul(GOLDEN_RATIO_PRIME) >> 3;
        }
        page.extend_from_slice(&chunk);
    }
    page
}

/// A reading job with `buffer_compress_percentage` finds its file laid out with partly
/// compressible data (fio's `extend_file` fills each piece with the job's `fill_io_buffer`,
/// `fill_random_buf_percentage` per 512-byte chunk): each laid-out page is stored at about the
/// size LZ4 (the library, called here) gives a page built the way fio builds it, in both
/// content modes. The reader is the second job, so its content is its own stream's, not the
/// first's (the layout wrote incompressible data before, the first job's).
#[test]
fn a_laid_out_file_compresses_as_the_reading_jobs_buffers() {
    for mode in ["model", "bytes"] {
        for p in [25u32, 50, 75] {
            let want: f64 = (0..8)
                .map(|s| {
                    let page = fio_compressible_page(p, s);
                    lz4::block::compress(&page, Some(lz4::block::CompressionMode::DEFAULT), false)
                        .unwrap()
                        .len() as f64
                })
                .sum::<f64>()
                / 8.0;
            let cfg = config(&format!(
                "{}{NO_PRECONDITION}[workload]\ntype = \"fio\"\njobs = [\
                 {{ name = \"w\", rw = \"write\", bs = \"16k\", filename = \"g\", size = \"64k\", \
                 buffer_compress_percentage = 0 }}, \
                 {{ name = \"r\", rw = \"read\", bs = \"16k\", filename = \"f\", size = \"4m\", \
                 buffer_compress_percentage = {p} }}]\n",
                DEVICE.replace("mode = \"model\"", &format!("mode = \"{mode}\""))
            ));
            let mut sim = flashpress_core::sim::Simulation::new(cfg).unwrap();
            let dev = sim.device().unwrap();
            let c = dev.compression.as_ref().unwrap();
            // The file `f` follows `g`'s 4 pages.
            let lens: Vec<u32> = c
                .packer()
                .mapped_chunks()
                .filter(|(lpn, _)| (4..260).contains(lpn))
                .map(|(_, ch)| ch.len)
                .collect();
            assert_eq!(
                lens.len(),
                256,
                "{mode} p={p}: the 4 MiB file's 16 KiB pages"
            );
            let mean = lens.iter().map(|&l| l as f64).sum::<f64>() / lens.len() as f64;
            // fio's random words and the generator's random bytes both defeat LZ4; the
            // generator is calibrated to reach 100 / (100 - p) (as for the job's writes),
            // where fio's bytes carry LZ4's framing on top: measured 2-7% apart (75%: 4092
            // bytes against 4384).
            assert!(
                (mean - want).abs() / want < 0.1,
                "{mode} p={p}: laid-out pages stored at {mean:.0} bytes on average, LZ4 on fio's bytes gives {want:.0}"
            );
            while !sim.step(1 << 12).unwrap() {}
            let s = sim.finish().unwrap().summary;
            assert_eq!(s.precondition.layout_bytes, 4 << 20, "{mode} p={p}");
        }
    }
}

/// A pattern laid out in pieces smaller than the mapping unit: fio starts the pattern afresh
/// in every piece (`extend_file` fills each with `fill_io_buffer`), so a 16 KiB page of a
/// file laid out in 4 KiB pieces of `"abc"` is four copies of "abc" repeated to 4096 bytes,
/// not "abc" repeated over 16 KiB (4096 is not a multiple of 3). Hand count: every page is
/// stored at LZ4's (the library's) size of those bytes; 16 KiB pieces fill each page with the
/// unbroken repetition.
#[test]
fn a_pattern_laid_out_in_pieces_smaller_than_the_page_restarts_in_each() {
    let lz4 = |page: &[u8]| {
        lz4::block::compress(page, Some(lz4::block::CompressionMode::DEFAULT), false)
            .unwrap()
            .len() as u32
    };
    let restarted: Vec<u8> = (0..16384).map(|x| b"abc"[(x % 4096) % 3]).collect();
    let unbroken: Vec<u8> = (0..16384).map(|x| b"abc"[x % 3]).collect();
    assert_ne!(lz4(&restarted), lz4(&unbroken), "the test tells them apart");
    for (bs, want) in [("4k", lz4(&restarted)), ("16k", lz4(&unbroken))] {
        let cfg = config(&format!(
            "{DEVICE}{NO_PRECONDITION}[workload]\ntype = \"fio\"\njobs = [{{ name = \"r\", \
             rw = \"read\", bs = \"{bs}\", filename = \"f\", size = \"4m\", \
             buffer_pattern = '\"abc\"' }}]\n"
        ));
        let sim = flashpress_core::sim::Simulation::new(cfg).unwrap();
        let c = sim.device().unwrap().compression.as_ref().unwrap();
        let lens: Vec<(u32, bool)> = c
            .packer()
            .mapped_chunks()
            .map(|(_, ch)| (ch.len, ch.zero()))
            .collect();
        assert_eq!(lens.len(), 256, "bs={bs}");
        assert!(
            lens.iter().all(|&l| l == (want, false)),
            "bs={bs}: {:?}",
            &lens[..4]
        );
    }
}
