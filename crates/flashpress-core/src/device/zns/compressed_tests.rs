//! Compressed zones (`zns.compression`, CCZNS): a zone takes as many blocks as its flash
//! holds packed, a reset frees its flash, reads decompress (timed by hand), and data that
//! does not compress behaves exactly as on plain zones.

use super::tests::{req, run, zoned_config};
use crate::config::{ContentMode, DeviceCompression, SimConfig};
use crate::workload::{Op, Request};

const ZONE_FLASH_PAGES: u64 = 64;
const MIB: u64 = 1024 * 1024;

/// The zoned test device with compressed zones of 1 MiB (256 blocks) over 64 flash pages,
/// content of a fixed ratio, `max_chunks` blocks at most per flash page.
fn compressed_config(
    ratio: f64,
    max_chunks: u32,
    compress_us: f64,
    decompress_us: f64,
) -> SimConfig {
    let mut c = zoned_config();
    c.ftl.write_buffer_pages = 4;
    c.content.mode = ContentMode::Model;
    c.content.ratio = crate::config::RatioDist::Fixed { ratio };
    let z = c.zns.as_mut().unwrap();
    z.zone_size = Some(MIB);
    z.compression = Some(DeviceCompression {
        enabled: true,
        codec: crate::codec::CodecKind::Lz4,
        min_saving: 0.1,
        max_chunks_per_page: max_chunks,
        compress_us,
        decompress_us,
        zero_units: false,
        split: None,
    });
    c
}

/// The compressed size the content model gives every block of this config (fixed ratio):
/// what the device's codec measures, independent of the zone code under test.
fn block_size(cfg: &SimConfig) -> u32 {
    let mut m = crate::content::ContentModel::new(cfg, &[Default::default()])
        .unwrap()
        .unwrap();
    let id = m
        .add_measure(crate::codec::CodecKind::Lz4, 4096, "test")
        .unwrap();
    m.unit_size(id, 0, 12345, 1)
}

fn writes(zone: u64, from: u64, n: u64) -> impl Iterator<Item = Request> {
    (from..from + n).map(move |k| req(Op::Write, zone * MIB + k * 4096, 4096))
}

/// A zone whose blocks compress to `s` bytes takes `min(4096 / s, max_chunks)` blocks per
/// flash page, so 64 pages x that many blocks before it is full (well below its 256-block
/// zone size); a write that would not fit the flash left is refused with Zone Boundary Error
/// and writes nothing; then the zone is full; a reset erases the blocks of its 64 pages
/// and the zone takes as many blocks again.
#[test]
fn a_zone_takes_blocks_as_its_flash_holds_them_compressed() {
    for (ratio, max_chunks) in [(2.0, 20u32), (3.0, 2), (5.0, 3), (1.0, 20)] {
        let cfg = compressed_config(ratio, max_chunks, 2.0, 1.0);
        let s = block_size(&cfg);
        let stored = if (s as f64) <= 4096.0 * 0.9 { s } else { 4096 };
        let per_page = (4096 / stored as u64).min(max_chunks as u64);
        let fit = ZONE_FLASH_PAGES * per_page;
        assert!(fit <= 256, "ratio {ratio}: the flash fills first");
        if ratio == 2.0 {
            assert_eq!(per_page, 2, "lz4 at ratio 2: {s} bytes a block");
        }
        let mut r: Vec<Request> = writes(0, 0, fit - 1).collect();
        // The last page has room for one block: two do not fit.
        if per_page > 1 {
            r.push(req(Op::Write, (fit - 1) * 4096, 8192));
        }
        r.extend(writes(0, fit - 1, 1));
        r.extend(writes(0, fit, 1)); // full
        r.push(req(Op::Read, 0, 4096));
        r.push(req(Op::ZoneReset, 0, MIB));
        r.extend(writes(0, 0, fit));
        let sum = run(cfg, r);
        let z = sum.zns.as_ref().unwrap();
        let k = z.compression.as_ref().unwrap();
        let label = format!("ratio {ratio}, {s} bytes a block, {per_page} a page");
        assert_eq!(z.counters.writes, 2 * fit, "{label}");
        assert_eq!(
            z.counters.failed_zone_boundary_error,
            (per_page > 1) as u64,
            "{label}"
        );
        assert_eq!(z.counters.failed_zone_is_full, 1, "{label}");
        assert_eq!(z.zones_full, 1, "{label}");
        assert_eq!(k.zones_full_by_flash, 1, "{label}");
        assert_eq!(k.zone_logical_capacity_bytes, MIB);
        assert_eq!(k.stored_logical_bytes, fit * 4096, "{label}");
        assert_eq!(k.stored_flash_bytes, ZONE_FLASH_PAGES * 4096, "{label}");
        // Zone 0's 64 pages lie on 4 planes x 2 blocks: the reset erased 8, and every page
        // was programmed twice.
        assert_eq!(z.counters.reset_blocks_erased, 8, "{label}");
        assert_eq!(sum.erases, 8, "{label}");
        assert_eq!(sum.nand_programs, 2 * ZONE_FLASH_PAGES, "{label}");
        let c = sum.compression.as_ref().unwrap();
        if per_page > 1 {
            assert_eq!(c.compressed_pages, 2 * fit, "{label}");
            assert_eq!(c.packer.chunks, 2 * fit, "{label}");
            assert_eq!(c.decompressed_pages, 1, "{label}");
        } else {
            assert_eq!(
                (c.compressed_pages, c.packer.raw_pages),
                (0, 2 * fit),
                "{label}"
            );
            assert_eq!(c.decompressed_pages, 0, "{label}");
        }
    }
}

/// Blocks written at queue depth 1, then read back one at a time long after: each read
/// senses and transfers the page its chunk is on, decompresses and crosses the link; its
/// latency is command overhead + sense + page transfer + decompression + link, exactly. A
/// read of a page's two blocks reads the page once and decompresses twice. A read of the
/// block in the page still being filled needs no flash read.
#[test]
fn a_read_decompresses_and_is_timed_by_hand() {
    let cfg = compressed_config(2.0, 20, 5.0, 7.0);
    assert!(block_size(&cfg) <= 2048);
    let n = 40u64; // 20 pages, all closed
    let mut script: Vec<Request> = writes(1, 0, n + 1).collect(); // the last one: open page
    let t0 = 1_000_000_000u64;
    for k in 0..n {
        let mut r = req(Op::Read, MIB + k * 4096, 4096);
        r.time = crate::units::SimTime(t0 + k * 5_000_000);
        script.push(r);
    }
    let mut two = req(Op::Read, MIB, 8192);
    two.time = crate::units::SimTime(t0 + n * 5_000_000);
    script.push(two);
    let mut open = req(Op::Read, MIB + n * 4096, 4096);
    open.time = crate::units::SimTime(t0 + (n + 1) * 5_000_000);
    script.push(open);
    let sum = super::tests::run_open(cfg.clone(), script);
    let ns = |x: f64| x.round() as u64;
    let sense = ns(cfg.nand.read_latency_us[0] * 1e3);
    let xfer = ns(4096.0 * 1e3 / cfg.nand.channel_mb_per_s);
    let link = |b: f64| ns(b * 1e3 / cfg.host.link_mb_per_s);
    let o = cfg.host.command_overhead_ns;
    let one = o + sense + xfer + 7_000 + link(4096.0);
    let both = o + sense + xfer + 14_000 + link(8192.0);
    let dram = o + 7_000 + link(4096.0);
    let want = (n * one + both + dram) as f64 / (n + 2) as f64 * 1e-3;
    let lat = sum.read.latency_us.as_ref().unwrap();
    assert!(
        (lat.mean - want).abs() < 1e-9,
        "mean read latency {} against {want}",
        lat.mean
    );
    assert_eq!(sum.nand_reads, n + 1);
    let c = sum.compression.as_ref().unwrap();
    assert_eq!(c.decompressed_pages, n + 3);
    assert_eq!(c.dram_page_reads, 1);
}

/// Blocks that do not compress (ratio 1), with engines that take no time, on zones larger
/// than their flash: the run of the plain zoned test (writes, reads, failures of every status, a reset, appends, zone
/// management) gives the same summary as on plain zones of the same device, byte for byte,
/// but the compression counters.
#[test]
fn incompressible_zones_behave_exactly_as_plain_zones() {
    // Zones of 512 KiB over 256 KiB of flash: the flash fills first on both.
    let zone = 512 * 1024;
    let mut r = Vec::new();
    for z in 0..2u64 {
        for k in 0..16 {
            r.push(req(Op::Write, z * zone + k * 16384, 16384));
        }
    }
    r.push(req(Op::Read, 0, 65536));
    r.push(req(Op::Read, zone - 4096, 8192));
    r.push(req(Op::Write, 0, 4096));
    r.push(req(Op::Write, 2 * zone + 4096, 4096));
    r.push(req(Op::Append, 2 * zone + 4096, 4096));
    r.push(req(Op::Write, 6 * zone, 4096));
    r.push(req(Op::Read, 7 * zone, 4096));
    r.push(req(Op::Write, 2 * zone, 20 * 4096));
    r.push(req(Op::Write, 2 * zone + 20 * 4096, 45 * 4096)); // past the capacity
    r.push(req(Op::ZoneReset, 0, zone));
    r.push(req(Op::Append, 0, 8192));
    r.push(req(Op::Append, 0, 8192));
    r.push(req(Op::Write, 0, 4096));
    r.push(req(Op::Read, 0, 12288));
    r.push(req(Op::Read, 32768, 4096));
    r.push(req(Op::ZoneOpen, 3 * zone, zone));
    r.push(req(Op::ZoneOpen, 4 * zone, zone));
    r.push(req(Op::ZoneOpen, 5 * zone, zone));
    r.push(req(Op::ZoneFinish, 3 * zone, zone));
    r.push(req(Op::ZoneClose, 3 * zone, zone));
    let mut compressed = compressed_config(1.0, 20, 0.0, 0.0);
    compressed.zns.as_mut().unwrap().zone_size = Some(zone);
    let mut plain = compressed.clone();
    plain.zns.as_mut().unwrap().compression = None;
    let strip = |s: &crate::stats::Summary| {
        let mut v = serde_json::to_value(s).unwrap();
        let c = v.as_object_mut().unwrap().remove("compression");
        let z = v["zns"].as_object_mut().unwrap().remove("compression");
        (serde_json::to_string_pretty(&v).unwrap(), c, z)
    };
    let (a, ca, za) = strip(&run(compressed, r.clone()));
    let (b, cb, zb) = strip(&run(plain, r));
    assert!(ca.as_ref().is_some_and(|c| !c.is_null()) && za.is_some());
    assert!(cb.is_some_and(|c| c.is_null()) && zb.is_none());
    assert!(a.contains("\"failed_zone_boundary_error\": 2"), "{a}");
    if a != b {
        let diff: Vec<String> = a
            .lines()
            .zip(b.lines())
            .filter(|(x, y)| x != y)
            .map(|(x, y)| format!("{x} | {y}"))
            .collect();
        panic!("compressed | plain zones:\n{}\n{ca:?}", diff.join("\n"));
    }
    assert_eq!(a, b);
}

/// The compressed zones' settings are checked by name.
#[test]
fn bad_compressed_zone_configs_are_refused() {
    type Edit = fn(&mut SimConfig);
    let cases: &[(Edit, &str, &str)] = &[
        (
            |c| c.ftl.write_buffer_pages = 0,
            "ftl.write_buffer_pages",
            "at least 1 buffer page",
        ),
        (
            |c| c.content.mode = ContentMode::Off,
            "content.mode",
            "content model",
        ),
        (
            |c| {
                c.zns.as_mut().unwrap().compression.as_mut().unwrap().split =
                    Some(crate::config::SplitConfig {
                        decision: crate::config::SplitDecision::All,
                        lru_entries: None,
                        max_split_pages: 8,
                    })
            },
            "zns.compression.split",
            "in order",
        ),
        (
            |c| {
                c.zns
                    .as_mut()
                    .unwrap()
                    .compression
                    .as_mut()
                    .unwrap()
                    .min_saving = 1.5
            },
            "zns.compression.min_saving",
            "",
        ),
    ];
    for (edit, key, what) in cases {
        let mut c = compressed_config(2.0, 20, 1.0, 1.0);
        edit(&mut c);
        let e = c.validate("cfg").unwrap_err().to_string();
        assert!(e.contains(key) && e.contains(what), "{key}: {e}");
    }
}

/// Submit one command to `dev` at time 0 and run the device until nothing is left (a reset
/// waits for the zone's programs); whether the zone state machine refused it.
fn submit_drained(
    dev: &mut crate::device::Device,
    q: &mut crate::engine::EventQueue,
    cm: &mut crate::content::ContentModel,
    r: &Request,
    id: u64,
) -> crate::error::Result<bool> {
    use crate::engine::Event;
    let res = dev.submit(r, id, crate::units::SimTime::ZERO, 0, q, Some(cm));
    let failed = !dev.failed.is_empty();
    dev.failed.clear();
    loop {
        match (dev.next_arrival(), q.peek_time()) {
            (Some(a), t) if t.is_none_or(|t| a <= t) => dev.process_arrivals(a, q),
            (_, Some(_)) | (Some(_), None) => match q.pop().unwrap() {
                (t, Event::Flash(p, g)) => dev.on_flash(p, g, t, q),
                (t, Event::DeviceReq(s)) => dev.on_request(s, t, q),
                (_, e) => unreachable!("{e:?}"),
            },
            (None, None) => break,
        }
    }
    dev.completed.clear();
    res.map(|()| failed)
}

/// Verify mode on compressed zones (blocks incompressible, 2:1, 3:1): random writes, appends, reads, finishes and resets of four zones, each write's
/// blocks holding content ids of their own. A model kept here (per zone, the ids written
/// since its reset, in order; nothing for a refused command) says what each block must
/// read back: every read passes verify, every block written reads back its own id through
/// the zone packer's entry and the flash page it names, a reset zone reads back nothing.
/// Then a changed flash page fails the read of a block on it, naming the page, and a host
/// expecting other data fails too.
#[test]
fn verify_checks_compressed_zone_reads_and_a_reset_discards() {
    use rand::{Rng, SeedableRng};
    let zone_blocks = MIB / 4096;
    for ratio in [1.0, 2.0, 3.0] {
        let mut cfg = compressed_config(ratio, 4, 1.0, 1.0);
        cfg.check.verify = true;
        cfg.validate("t.toml").unwrap();
        let mut cm = crate::content::ContentModel::new(&cfg, &[Default::default()])
            .unwrap()
            .unwrap();
        let mut dev = crate::device::Device::new(&cfg, Some(&mut cm)).unwrap();
        let mut q = crate::engine::EventQueue::new();
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(ratio as u64);
        let mut model: Vec<Vec<u64>> = vec![Vec::new(); 4];
        // Zones finished since their reset: the write pointer at the zone's end.
        let mut finished = [false; 4];
        let mut reads = 0;
        let label = format!("ratio {ratio}");
        for step in 0..600 {
            let z = rng.random_range(0..4u64);
            let at = z * MIB;
            let wp = model[z as usize].len() as u64;
            let first = rng.random_range(1..1u64 << 40);
            match rng.random_range(0..40) {
                0..=19 => {
                    let n = rng.random_range(1..12u64);
                    let append = rng.random_bool(0.3);
                    let r = if append {
                        req(Op::Append, at, n * 4096)
                    } else {
                        req(Op::Write, at + wp * 4096, n * 4096)
                    };
                    let refused = submit_drained(&mut dev, &mut q, &mut cm, &r, first).unwrap();
                    if !refused {
                        model[z as usize].extend((0..n).map(|i| first + i));
                    }
                }
                20..=35 if wp > 0 => {
                    let from = rng.random_range(0..wp);
                    let n = rng.random_range(1..=(zone_blocks - from).min(16));
                    let r = req(Op::Read, at + from * 4096, n * 4096);
                    assert!(!submit_drained(&mut dev, &mut q, &mut cm, &r, 0).unwrap());
                    reads += n;
                }
                36 => {
                    let r = req(Op::ZoneFinish, at, MIB);
                    finished[z as usize] |=
                        !submit_drained(&mut dev, &mut q, &mut cm, &r, 0).unwrap();
                }
                37..=39 if wp > 0 => {
                    let r = req(Op::ZoneReset, at, MIB);
                    assert!(!submit_drained(&mut dev, &mut q, &mut cm, &r, 0).unwrap());
                    model[z as usize].clear();
                    finished[z as usize] = false;
                }
                _ => {}
            }
            let zns = dev.zns.as_ref().unwrap();
            let c = dev.compression.as_ref().unwrap();
            for (z, ids) in model.iter().enumerate() {
                // A finished zone, or one whose flash filled, is full: its write pointer at
                // the zone's end.
                let full = zns.zones.zone(z as u32).state == crate::device::zns::ZoneState::Full;
                assert!(full || !finished[z], "{label} step {step}");
                let wp = if full { zone_blocks } else { ids.len() as u64 };
                assert_eq!(zns.zones.zone(z as u32).wp, wp, "{label} step {step}");
                for k in 0..zone_blocks {
                    let lpn = z as u64 * zone_blocks + k;
                    let want = ids.get(k as usize).copied().unwrap_or(0);
                    let got = zns.compressed_content_of(lpn, c).unwrap();
                    assert_eq!(got, want, "{label} step {step}: zone {z} block {k}");
                }
            }
        }
        assert_eq!(dev.counters.verified_page_reads, reads, "{label}");
        assert!(reads > 300, "{label}: {reads} blocks read");
        let c = dev.compression.as_ref().unwrap();
        if ratio > 1.0 {
            assert!(c.counters.compressed_pages > 0, "{label}");
        }
        // Reset every zone: each reads back nothing (16 blocks of each read and verified).
        for z in 0..4u64 {
            let r = req(Op::ZoneReset, z * MIB, MIB);
            submit_drained(&mut dev, &mut q, &mut cm, &r, 0).unwrap();
            let r = req(Op::Read, z * MIB, 16 * 4096);
            assert!(!submit_drained(&mut dev, &mut q, &mut cm, &r, 0).unwrap());
        }
        assert_eq!(dev.counters.verified_page_reads, reads + 4 * 16, "{label}");
        // Zone 0 written again (12 blocks holding 1000..1012: its first flash page is
        // programmed): changing that flash page fails the read of its first block, naming
        // the logical page.
        let r = req(Op::Write, 0, 12 * 4096);
        assert!(!submit_drained(&mut dev, &mut q, &mut cm, &r, 1000).unwrap());
        dev.zns.as_mut().unwrap().corrupt_page_for_test(0, 0);
        let r = req(Op::Read, 0, 4096);
        let e = submit_drained(&mut dev, &mut q, &mut cm, &r, 0).unwrap_err();
        assert!(
            matches!(e, crate::error::Error::Verify(_))
                && e.to_string().contains("logical page 0:"),
            "{label}: {e}"
        );
        dev.zns.as_mut().unwrap().corrupt_page_for_test(0, 0);
        submit_drained(&mut dev, &mut q, &mut cm, &r, 0).unwrap();
        // A host expecting other data than block 1 holds (1001) fails.
        dev.corrupt_shadow_for_test();
        let r = req(Op::Read, 4096, 4096);
        let e = submit_drained(&mut dev, &mut q, &mut cm, &r, 0).unwrap_err();
        assert!(
            e.to_string().contains("read content id 0x3e9, but 0x3e8"),
            "{label}: {e}"
        );
    }
}

/// The Waltz example (`examples/zns_f2fs.toml`: the F2FS-like file system on zones, the
/// Waltz FIO patterns on a partition filled to 90%) with the zones compressed in the device
/// instead of clusters on the host, zones twice their flash (24 MiB over 12 MiB), sections a
/// zone's size.
fn waltz_on_compressed_zones(ratio_pct: u32) -> SimConfig {
    let text = include_str!("../../../../../examples/zns_f2fs.toml")
        .replace("partition_bytes = 603979776", "partition_bytes = 1207959552")
        .replace("segment_blocks = 3072", "segment_blocks = 6144")
        .replace(
            "buffer_compress_percentage = 50",
            &format!("buffer_compress_percentage = {ratio_pct}"),
        )
        .replace(
            "max_active_zones = 14\n",
            "max_active_zones = 14\nzone_size = 25165824\n\n[zns.compression]\ncodec = \"lz4\"\nmin_saving = 0.1\nmax_chunks_per_page = 8\ncompress_us = 2.0\ndecompress_us = 1.0\n\n[ftl]\nwrite_buffer_pages = 256\n",
        );
    SimConfig::from_toml_str(&text, "zns_f2fs.toml").unwrap()
}

/// The Waltz FIO patterns (2:1 data) run end to end on compressed zones: the device has no
/// GC and refuses no command, the file system cleans (sections cleaned, blocks moved, zones
/// reset), every section it closed early was finished, and the flash holds the blocks in
/// fewer pages than the file system wrote.
#[test]
fn waltz_runs_on_compressed_zones_with_host_cleaning_only() {
    let s = crate::sim::Simulation::new(waltz_on_compressed_zones(50))
        .unwrap()
        .run()
        .unwrap()
        .summary;
    let st = s.stack.as_ref().unwrap();
    let z = s.zns.as_ref().unwrap();
    let f = &st.fs.counters;
    assert_eq!(s.gc_invocations, 0);
    assert_eq!(z.failed_commands, 0);
    assert_eq!(s.requests_failed, 0);
    let zoned = st.zoned.as_ref().unwrap();
    assert_eq!(zoned.zone_blocks, 6144);
    assert!(zoned.sections_cleaned > 0 && zoned.blocks_moved > 0);
    assert!(zoned.zones_reset == z.counters.resets && z.counters.resets > 0);
    assert_eq!(s.erases, z.counters.reset_blocks_erased);
    assert_eq!(z.counters.finishes, f.zone_sections_closed_early);
    assert!(
        s.nand_programs < st.fs.fs_blocks_written,
        "{} programs",
        s.nand_programs
    );
    assert!(s.read.requests > 0 && s.write.requests > 0);
}

/// The file system on compressed zones of 64 blocks over 32 flash pages (2 channels x one
/// 16-page block), 32 zones, sections of 64 blocks: one job writing a 512 KiB file in
/// 128 KiB blocks (laid out first, then written again: 256 blocks), data incompressible or
/// 2:1.
fn small_stack_on_compressed_zones(pct: u32) -> crate::stats::Summary {
    let text = format!(
        r#"
preset = "zns"
[nand]
channels = 2
chips_per_channel = 1
dies_per_chip = 1
planes_per_die = 1
blocks_per_plane = 32
pages_per_block = 16
[zns]
channels_per_zone = 2
chips_per_zone = 1
blocks_per_plane = 1
max_open_zones = 14
max_active_zones = 14
zone_size = 262144
[zns.compression]
codec = "lz4"
min_saving = 0.1
max_chunks_per_page = 8
compress_us = 2.0
decompress_us = 1.0
[ftl]
write_buffer_pages = 16
[content]
mode = "model"
[stack]
policy = "f2fsc"
[stack.fs]
partition_bytes = 7340032
segment_blocks = 64
mode = "lfs"
[stack.fs.meta]
node_writes = false
[workload]
type = "fio"
[workload.global]
direct = 1
size = "512k"
buffer_compress_percentage = {pct}
[[workload.jobs]]
name = "w"
rw = "write"
bs = "128k"
"#
    );
    let cfg = SimConfig::from_toml_str(&text, "t.toml").unwrap();
    crate::sim::Simulation::new(cfg)
        .unwrap()
        .run()
        .unwrap()
        .summary
}

/// Where a compressed zone fills decides a section's length: with incompressible data a
/// zone takes 32 blocks (its flash), so the file system closes each section after 32 of its
/// 64 blocks, finishes the zone and goes on in the next: the 128 blocks the measured pass
/// writes take 4 zones, each full, 4 sections closed early with 32 blocks unused each (the
/// pass before, the layout, took 4 others, reset once their blocks were overwritten). With
/// data the host compresses 2:1 (64 blocks a pass) that the device stores 2 to a page, a
/// section takes its whole 64 blocks in the zone's 32 pages: one zone, nothing closed early.
#[test]
fn sections_close_where_their_compressed_zone_fills() {
    for (pct, written, programs, zones, early) in [(0u32, 128, 128, 4, 4), (50, 64, 32, 1, 0)] {
        let s = small_stack_on_compressed_zones(pct);
        let st = s.stack.as_ref().unwrap();
        let f = &st.fs.counters;
        let z = s.zns.as_ref().unwrap();
        let label = format!("{pct}% compressible");
        assert_eq!(st.fs.fs_blocks_written, written, "{label}");
        assert_eq!(s.nand_programs, programs, "{label}");
        assert_eq!(z.zones - z.zones_empty, zones, "{label}: zones used");
        assert_eq!(z.zones_full, zones, "{label}");
        assert_eq!(f.zone_sections_closed_early, early, "{label}");
        assert_eq!(z.counters.finishes, early, "{label}");
        assert_eq!(f.zone_blocks_unused, early * 32, "{label}");
        assert_eq!(
            z.counters.resets, zones as u64,
            "{label}: the layout's zones"
        );
        assert_eq!((s.gc_invocations, z.failed_commands), (0, 0), "{label}");
    }
}
