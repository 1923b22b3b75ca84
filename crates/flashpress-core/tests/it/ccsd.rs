//! The compression-capable SSD against independent models: stored bytes against the content
//! model queried on its own, page packing against a brute-force packer, GC under heavy
//! overwrites, engine throughput, the thermal model's closed form and thresholds, and the
//! CCF flags.

use crate::support::config;
use flashpress_core::codec::CostModel;
use flashpress_core::config::{
    ContentConfig, ContentMode, RatioDist, SimConfig, StackConfig, ThermalConfig,
};
use flashpress_core::content::{ContentModel, MeasureId};
use flashpress_core::device::ccsd::Ccsd;
use flashpress_core::stack::bio::{Bio, BioFlags, BioOp, Disk};
use flashpress_core::units::SimTime;
use flashpress_core::workload::ContentHints;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

fn sim_cfg(buffer_pages: u32) -> SimConfig {
    config(&format!(
        "preset = \"tiny\"\n[ftl]\nwrite_buffer_pages = {buffer_pages}\n"
    ))
}

fn content(ratio: RatioDist) -> ContentModel {
    let c = ContentConfig {
        mode: ContentMode::Model,
        codec: "zlib-6".parse().unwrap(),
        calibrate: "zlib-6".parse().unwrap(),
        ratio,
        ..ContentConfig::default()
    };
    ContentModel::from_content_config(&c, 7, &[ContentHints::default()], "test")
        .unwrap()
        .unwrap()
}

/// An independent content model and its zlib-6 measure, for reference sizes.
fn reference(ratio: RatioDist) -> (ContentModel, MeasureId) {
    let mut m = content(ratio);
    let id = m
        .add_measure("zlib-6".parse().unwrap(), 4096, "ref")
        .unwrap();
    (m, id)
}

const MIXED: RatioDist = RatioDist::Uniform { min: 1.0, max: 4.0 };

fn write<'a>(lba: u64, ids: &'a [u64], flags: BioFlags) -> Bio<'a> {
    Bio {
        op: BioOp::Write,
        lba,
        blocks: ids.len() as u32,
        flags,
        stream: 0,
        content: ids,
    }
}

fn read(lba: u64, blocks: u32, flags: BioFlags) -> Bio<'static> {
    Bio {
        op: BioOp::Read,
        lba,
        blocks,
        flags,
        stream: 0,
        content: &[],
    }
}

/// Greedy page packing of chunk sizes: (pages programmed, pad bytes); `flush` programs a
/// last partial page too.
fn pack_reference(sizes: &[u32], page: u32, flush: bool) -> (u64, u64) {
    let (mut pages, mut pad, mut fill) = (0u64, 0u64, None::<u32>);
    for &s in sizes {
        match fill {
            Some(f) if f + s <= page => fill = Some(f + s),
            Some(f) => {
                pages += 1;
                pad += (page - f) as u64;
                fill = Some(s);
            }
            None => fill = Some(s),
        }
        if fill == Some(page) {
            pages += 1;
            fill = None;
        }
    }
    if let (Some(f), true) = (fill, flush) {
        pages += 1;
        pad += (page - f) as u64;
    }
    (pages, pad)
}

#[test]
fn stored_bytes_and_space_match_the_content_model() {
    let cfg = sim_cfg(16);
    let st = StackConfig::default();
    let mut cm = content(MIXED);
    let (mut rm, rid) = reference(MIXED);
    let mut d = Ccsd::new(&cfg, &st, Some(&mut cm), true).unwrap();
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    let span = d.logical_blocks() / 4;
    let mut last = vec![None::<u32>; span as usize];
    let (mut want_stored, mut now, mut next_id) = (0u64, 0u64, 1u64);
    for _ in 0..400 {
        let n = rng.random_range(1..=32u64);
        let lba = rng.random_range(0..span - n);
        let ids: Vec<u64> = (0..n).map(|i| next_id + i).collect();
        next_id += n;
        for (i, &id) in ids.iter().enumerate() {
            let s = rm.unit_size(rid, 0, id, 1).min(4096);
            want_stored += s as u64;
            last[(lba + i as u64) as usize] = Some(s);
        }
        d.advance(SimTime(now));
        let done = d
            .submit(
                &write(lba, &ids, BioFlags::NONE),
                SimTime(now),
                Some(&mut cm),
            )
            .unwrap();
        now = done.done.0;
    }
    let c = d.counters();
    assert_eq!(c.stored_bytes_written, want_stored);
    let sp = d.space();
    let mapped = last.iter().flatten().count() as u64;
    let phys: u64 = last.iter().flatten().map(|&s| s as u64).sum();
    assert_eq!(sp.logical_bytes, mapped * 4096);
    assert_eq!(sp.physical_bytes, phys);
    assert_eq!(sp.saved_bytes(), mapped * 4096 - phys);
    d.check_invariants().unwrap();
}

#[test]
fn pages_programmed_match_brute_force_packing() {
    for buffered in [false, true] {
        let cfg = sim_cfg(if buffered { 8 } else { 0 });
        let st = StackConfig::default();
        let mut cm = content(MIXED);
        let (mut rm, rid) = reference(MIXED);
        let mut d = Ccsd::new(&cfg, &st, Some(&mut cm), true).unwrap();
        let (mut pages, mut pad, mut all) = (0u64, 0u64, Vec::new());
        let mut lba = 0u64;
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        for b in 0..300u64 {
            let n = rng.random_range(1..=32u64);
            let ids: Vec<u64> = (0..n).map(|i| 1000 * b + i + 1).collect();
            let sizes: Vec<u32> = ids
                .iter()
                .map(|&id| rm.unit_size(rid, 0, id, 1).min(4096))
                .collect();
            if buffered {
                all.extend(sizes);
            } else {
                // Unbuffered: each request's partial last page is programmed at its end.
                let (p, q) = pack_reference(&sizes, 4096, true);
                pages += p;
                pad += q;
            }
            d.submit(&write(lba, &ids, BioFlags::NONE), SimTime(0), Some(&mut cm))
                .unwrap();
            lba += n;
        }
        if buffered {
            // A partial last page stays open in DRAM.
            (pages, pad) = pack_reference(&all, 4096, false);
        }
        let c = d.counters();
        assert_eq!(c.pages_programmed_host, pages, "buffered {buffered}: pages");
        assert_eq!(c.pad_bytes, pad, "buffered {buffered}: padding");
        d.check_invariants().unwrap();
    }
}

#[test]
fn gc_keeps_every_mapped_block_readable_under_heavy_overwrites() {
    let cfg = sim_cfg(0);
    let st = StackConfig::default();
    let ratio = RatioDist::Uniform { min: 1.5, max: 3.5 };
    let mut cm = content(ratio);
    let (mut rm, rid) = reference(ratio);
    let mut d = Ccsd::new(&cfg, &st, Some(&mut cm), true).unwrap();
    let cap_blocks = d.nand().geo.capacity_bytes() / 4096;
    // 60% of the logical space, at ratio >= 1.5, fits the physical user space.
    let span = d.logical_blocks() * 6 / 10;
    let mut last = vec![None::<u32>; span as usize];
    let mut rng = Pcg64Mcg::seed_from_u64(11);
    let (mut written, mut id, mut now) = (0u64, 1u64, 0u64);
    while written < 4 * cap_blocks {
        let n = rng.random_range(1..=8u64);
        let lba = rng.random_range(0..span - n);
        let ids: Vec<u64> = (0..n).map(|i| id + i).collect();
        id += n;
        for (i, &c) in ids.iter().enumerate() {
            last[(lba + i as u64) as usize] = Some(rm.unit_size(rid, 0, c, 1).min(4096));
        }
        if rng.random_range(0..50) == 0 {
            let t = rng.random_range(0..span - 4);
            d.submit(
                &Bio {
                    op: BioOp::Trim,
                    lba: t,
                    blocks: 4,
                    flags: BioFlags::NONE,
                    stream: 0,
                    content: &[],
                },
                SimTime(now),
                None,
            )
            .unwrap();
            last[t as usize..t as usize + 4].fill(None);
        }
        let done = d
            .submit(
                &write(lba, &ids, BioFlags::NONE),
                SimTime(now),
                Some(&mut cm),
            )
            .unwrap();
        now = done.done.0;
        written += n;
        if written % 4096 < n {
            d.check_invariants().unwrap();
        }
    }
    let c = d.counters();
    assert!(c.gc_blocks_erased > 100, "GC ran: {c:?}");
    d.check_invariants().unwrap();
    let sp = d.space();
    assert_eq!(
        sp.physical_bytes,
        last.iter().flatten().map(|&s| s as u64).sum::<u64>()
    );
    for (lba, want) in last.iter().enumerate() {
        let r = d
            .submit(
                &read(lba as u64, 1, BioFlags::HOST_DECOMPRESS),
                SimTime(now),
                None,
            )
            .unwrap();
        match want {
            None => assert_eq!(r.device_compressed_blocks, 0),
            Some(s) if *s < 4096 => {
                assert_eq!(r.device_compressed_blocks, 1, "LBA {lba}");
                assert_eq!(r.host_decompress_bytes, 4096);
            }
            Some(_) => assert_eq!(r.device_compressed_blocks, 0, "LBA {lba} raw"),
        }
    }
}

fn one_lane(throttle_initial: Option<f64>) -> StackConfig {
    let mut st = StackConfig::default();
    st.ccsd.cost = Some(CostModel::Engine {
        block_bytes: 4096,
        compress_ns: 10_000,
        decompress_ns: 7_000,
        lanes: 1,
        active_mw: 1000.0,
    });
    st.ccsd.thermal.initial_c = throttle_initial;
    st.ccsd.throttle_power = 0.5;
    st
}

#[test]
fn engine_throughput_is_lanes_over_latency_and_throttling_divides_it() {
    let cfg = sim_cfg(1024);
    let n = 200u64;
    for (initial, per) in [(None, 10_000u64), (Some(80.0), 100_000)] {
        let st = one_lane(initial);
        let mut cm = content(RatioDist::Fixed { ratio: 2.0 });
        let mut d = Ccsd::new(&cfg, &st, Some(&mut cm), true).unwrap();
        assert_eq!(d.smart().throttled, initial.is_some());
        let ids: Vec<u64> = (1..=n).collect();
        let done = d
            .submit(&write(0, &ids, BioFlags::NONE), SimTime(0), Some(&mut cm))
            .unwrap();
        let c = d.counters();
        assert_eq!(c.engine_compress_blocks, n);
        assert_eq!(c.engine_busy_ns, n * per);
        let power = if initial.is_some() { 500.0 } else { 1000.0 };
        assert_eq!(c.engine_energy_pj, n * per * power as u64);
        // The first block arrives after the command overhead and one block's link time;
        // the single lane is the bottleneck from then on.
        let first = cfg.host.command_overhead_ns + (4096.0 * 1e3 / cfg.host.link_mb_per_s) as u64;
        assert_eq!(done.done.0, first + n * per);
    }
}

fn hot(idle_w: f64) -> (SimConfig, StackConfig) {
    let mut st = StackConfig::default();
    st.ccsd.thermal = ThermalConfig {
        ambient_c: 25.0,
        neighbour_c: 5.0,
        idle_w,
        r_c_per_w: 3.0,
        tau_s: 60.0,
        link_w_per_gb_s: 0.0,
        leak_w: 0.0,
        step_ms: 100.0,
        ..ThermalConfig::default()
    };
    (sim_cfg(0), st)
}

#[test]
fn temperature_follows_the_first_order_curve_to_its_steady_state() {
    let (cfg, st) = hot(10.0);
    let mut d = Ccsd::new(&cfg, &st, None, true).unwrap();
    // T_env = 30, steady state 30 + 3 * 10 = 60 (below throttling).
    let mut t = 0u64;
    let mut rng = Pcg64Mcg::seed_from_u64(1);
    while t < 3_000_000_000_000 {
        t += rng.random_range(1..2_000_000_000u64);
        d.advance(SimTime(t));
        let s = t as f64 * 1e-9;
        let want = 30.0 + 30.0 * (1.0 - (-s / 60.0).exp());
        let got = d.smart().temperature_c;
        assert!(
            ((got - want) / want).abs() < 1e-6,
            "t = {s}: {got} vs {want}"
        );
    }
    assert!((d.smart().temperature_c - 60.0).abs() < 1e-6);
    let c = d.counters();
    assert!((c.energy_idle_j - 10.0 * t as f64 * 1e-9).abs() < 1e-6 * c.energy_idle_j);
    assert_eq!(c.first_throttle_ns, None);
}

/// Time at which the curve from T_env towards T_env + R P crosses `temp`.
fn crossing_s(temp: f64, t_env: f64, rp: f64, tau: f64) -> f64 {
    -tau * (1.0 - (temp - t_env) / rp).ln()
}

#[test]
fn throttling_and_shutdown_trigger_at_their_temperatures() {
    for throttling in [true, false] {
        // Steady state 30 + 3 * 25 = 105 > 86.
        let (cfg, st) = hot(25.0);
        let mut d = Ccsd::new(&cfg, &st, None, throttling).unwrap();
        let mut t = 0u64;
        while !d.smart().shutdown {
            t += 50_000_000;
            d.advance(SimTime(t));
            if !d.smart().shutdown {
                assert!(d.smart().temperature_c < 86.0);
            }
        }
        let c = d.counters();
        let step = 0.1;
        let thr = crossing_s(76.0, 30.0, 75.0, 60.0);
        let down = crossing_s(86.0, 30.0, 75.0, 60.0);
        if throttling {
            let f = c.first_throttle_ns.unwrap() as f64 * 1e-9;
            assert!(
                f >= thr && f <= thr + step,
                "throttle at {f}, crossing {thr}"
            );
            let throttled = c.throttled_ns as f64 * 1e-9;
            let sd = c.shutdown_ns.unwrap() as f64 * 1e-9;
            assert!((throttled - (sd - f)).abs() < 1e-9);
        } else {
            assert_eq!(c.first_throttle_ns, None);
            assert_eq!(c.throttled_ns, 0);
        }
        let sd = c.shutdown_ns.unwrap() as f64 * 1e-9;
        assert!(
            sd >= down && sd <= down + step,
            "shutdown at {sd}, crossing {down}"
        );
        assert!(c.max_temperature_c >= 86.0);
        // Off: every request fails after the host's timeout, and the device cools down.
        let now = SimTime(t + 1);
        let ids = [1u64, 2];
        for bio in [write(0, &ids, BioFlags::NONE), read(0, 2, BioFlags::NONE)] {
            d.advance(now);
            let r = d.submit(&bio, now, None).unwrap();
            assert!(r.failed);
            assert_eq!(r.done.0, now.0 + 30_000_000_000);
        }
        let c = d.counters();
        assert_eq!(c.failed_ios, 2);
        assert_eq!(c.host_write_blocks, 0);
        assert_eq!(d.nand().counters.programs, 0);
        d.advance(SimTime(t + 3_000_000_000_000));
        assert!((d.smart().temperature_c - 30.0).abs() < 1e-3);
        assert!(d.smart().shutdown);
    }
}

#[test]
fn ccf_flags_bypass_the_engine() {
    let cfg = sim_cfg(0);
    let st = StackConfig::default();
    let ratio = RatioDist::Fixed { ratio: 3.0 };
    let mut cm = content(ratio);
    let mut d = Ccsd::new(&cfg, &st, Some(&mut cm), true).unwrap();
    let ids: Vec<u64> = (1..=16).collect();
    for (i, f) in [BioFlags::HOST_COMPRESSED, BioFlags::INCOMPRESSIBLE]
        .into_iter()
        .enumerate()
    {
        d.submit(&write(16 * i as u64, &ids, f), SimTime(0), Some(&mut cm))
            .unwrap();
    }
    let c = d.counters();
    assert_eq!(c.engine_compress_blocks, 0);
    assert_eq!(c.engine_busy_ns, 0);
    assert_eq!(c.host_compressed_blocks, 16);
    assert_eq!(c.incompressible_blocks, 16);
    assert_eq!(c.stored_bytes_written, 32 * 4096);
    assert_eq!(d.space().saved_bytes(), 0);
    // Device-compressed blocks.
    d.submit(&write(32, &ids, BioFlags::NONE), SimTime(0), Some(&mut cm))
        .unwrap();
    assert_eq!(d.counters().engine_compress_blocks, 16);
    let r = d
        .submit(&read(0, 48, BioFlags::HOST_DECOMPRESS), SimTime(0), None)
        .unwrap();
    assert_eq!(r.device_compressed_blocks, 16);
    assert_eq!(r.host_decompress_bytes, 16 * 4096);
    assert_eq!(d.counters().engine_decompress_blocks, 0);
    let r = d
        .submit(&read(0, 48, BioFlags::NONE), SimTime(0), None)
        .unwrap();
    assert_eq!(r.device_compressed_blocks, 16);
    assert_eq!(r.host_decompress_bytes, 0);
    assert_eq!(d.counters().engine_decompress_blocks, 16);
    // Engine off: a plain SSD.
    d.set_engine_enabled(false);
    let busy = d.counters().engine_busy_ns;
    d.submit(&write(64, &ids, BioFlags::NONE), SimTime(0), Some(&mut cm))
        .unwrap();
    let c = d.counters();
    assert_eq!(c.engine_busy_ns, busy);
    assert_eq!(c.incompressible_blocks, 32);
    d.check_invariants().unwrap();
}

#[test]
fn bad_requests_are_errors_and_fill_reset_keeps_data() {
    let cfg = sim_cfg(0);
    let st = StackConfig::default();
    let mut d = Ccsd::new(&cfg, &st, None, true).unwrap();
    let n = d.logical_blocks();
    assert!(d
        .submit(&read(n - 1, 2, BioFlags::NONE), SimTime(0), None)
        .is_err());
    assert!(d
        .submit(&write(0, &[], BioFlags::NONE), SimTime(0), None)
        .is_err());
    let ids = [1u64, 2, 3];
    d.submit(&write(5, &ids, BioFlags::NONE), SimTime(0), None)
        .unwrap();
    let before = d.space();
    d.advance(SimTime(5_000_000_000));
    d.reset_after_fill();
    assert_eq!(d.space(), before);
    assert_eq!(d.counters().host_write_blocks, 0);
    assert_eq!(d.nand().counters.programs, 0);
    assert_eq!(d.smart().temperature_c, 23.0);
    d.check_invariants().unwrap();
}

#[test]
fn engine_output_not_smaller_than_a_block_is_stored_raw() {
    let cfg = sim_cfg(0);
    let st = StackConfig::default();
    let ratio = RatioDist::Fixed { ratio: 1.0 };
    let mut cm = content(ratio);
    let (mut rm, rid) = reference(ratio);
    assert!(
        rm.unit_size(rid, 0, 1, 1) >= 4096,
        "random data does not shrink"
    );
    let mut d = Ccsd::new(&cfg, &st, Some(&mut cm), true).unwrap();
    let ids: Vec<u64> = (1..=8).collect();
    d.submit(&write(0, &ids, BioFlags::NONE), SimTime(0), Some(&mut cm))
        .unwrap();
    let c = d.counters();
    assert_eq!(c.engine_compress_blocks, 8);
    assert_eq!(c.raw_stored_blocks, 8);
    assert_eq!(c.stored_bytes_written, 8 * 4096);
    assert_eq!(c.pad_bytes, 0);
    let r = d
        .submit(&read(0, 8, BioFlags::HOST_DECOMPRESS), SimTime(0), None)
        .unwrap();
    assert_eq!(r.device_compressed_blocks, 0);
    assert_eq!(r.host_decompress_bytes, 0);
}

/// Straddling, a chunk that overflows a page continues in the next page the device opens:
/// reading it takes both pages (two NAND reads), a chunk inside one page one read; host
/// pages have no padding in buffered mode.
#[test]
fn a_straddling_chunk_is_read_from_both_its_pages() {
    let cfg = sim_cfg(8);
    let mut st = StackConfig::default();
    st.ccsd.straddle = true;
    let ratio = RatioDist::Fixed { ratio: 1.6 };
    let mut cm = content(ratio);
    let (mut rm, rid) = reference(ratio);
    let mut d = Ccsd::new(&cfg, &st, Some(&mut cm), true).unwrap();
    let ids: Vec<u64> = (1..=64).collect();
    d.submit(&write(0, &ids, BioFlags::NONE), SimTime(0), Some(&mut cm))
        .unwrap();
    let sizes: Vec<u64> = ids
        .iter()
        .map(|&id| rm.unit_size(rid, 0, id, 1).min(4096) as u64)
        .collect();
    let total: u64 = sizes.iter().sum();
    let c = d.counters();
    assert_eq!(c.pad_bytes, 0);
    // The last partial page stays in DRAM.
    assert_eq!(c.pages_programmed_host, total / 4096);
    let mut start = 0u64;
    let mut checked = [false; 2];
    for (lba, &s) in sizes.iter().enumerate() {
        let (first, last) = (start / 4096, (start + s - 1) / 4096);
        start += s;
        // Only chunks whose pages are both programmed read the NAND for each page.
        if last >= c.pages_programmed_host {
            break;
        }
        let before = d.counters().host_pages_read;
        d.submit(&read(lba as u64, 1, BioFlags::NONE), SimTime(0), None)
            .unwrap();
        let pages = d.counters().host_pages_read - before;
        assert_eq!(pages, last - first + 1, "LBA {lba} at byte {}", start - s);
        checked[(last > first) as usize] = true;
    }
    assert_eq!(checked, [true, true], "both kinds of chunk were read");
    d.check_invariants().unwrap();
}

/// Baseline on the (reduced) `waltz` stack, 128 KiB sequential writes at 2:1: with
/// straddling the device programs about half the bytes the host writes (WAF within 4% of
/// 0.5); without, page padding raises it well above.
#[test]
fn straddling_brings_the_device_waf_of_a_two_to_one_workload_to_a_half() {
    let waf = |straddle: bool| {
        let cfg = config(&format!(
            "preset = \"waltz\"\n[nand]\nblocks_per_plane = 64\n[stack]\npolicy = \"baseline\"\n\
             [stack.fs]\npartition_bytes = 1073741824\n[stack.ccsd]\nstraddle = {straddle}\n\
             [workload]\ntype = \"fio\"\n[workload.global]\nrw = \"write\"\nbs = \"128k\"\n\
             numjobs = 2\niodepth = 1\nsize = \"256m\"\nruntime = \"400ms\"\ntime_based = true\n\
             buffer_compress_percentage = 50\n[[workload.jobs]]\nname = \"w\"\n"
        ));
        let rep = flashpress_core::sim::Simulation::new(cfg)
            .unwrap()
            .run()
            .unwrap();
        rep.summary.waf.unwrap()
    };
    let (with, without) = (waf(true), waf(false));
    assert!((with - 0.5).abs() < 0.02, "straddling: WAF {with}");
    assert!(without > 0.54, "padding: WAF {without}");
}

/// The tiny device (4 planes of SLC, 4 KiB pages, read 25 us, program 200 us, 400 MB/s
/// channels, 3,940 MB/s link, 1 us command overhead) with a controller setting.
fn controller_cfg(buffer_pages: u32, controller: &str) -> SimConfig {
    config(&format!(
        "preset = \"tiny\"\n[ftl]\nwrite_buffer_pages = {buffer_pages}\n{controller}\n"
    ))
}

/// At queue depth 1 on an idle CCSD a compressed write (unbuffered) and its read take the
/// hand sum of their stages: command overhead, link, engine, channel transfer and program;
/// command overhead, sense, channel transfer, ECC decode, engine, link.
#[test]
fn qd1_compressed_write_and_read_take_the_hand_sum_of_their_stages() {
    let cfg = controller_cfg(0, "[controller]\necc_decode_us = 5.0\n");
    let st = one_lane(None);
    let mut cm = content(RatioDist::Fixed { ratio: 2.0 });
    let mut d = Ccsd::new(&cfg, &st, Some(&mut cm), true).unwrap();
    let (overhead, sense, program, ecc) = (1_000u64, 25_000u64, 200_000u64, 5_000u64);
    // 4 KiB over a 400 MB/s channel; over the 3,940 MB/s link (a block arriving is counted
    // whole nanoseconds down, a block leaving rounded).
    let chan = 4096 * 1_000 / 400;
    let link_in = (4096.0 * 1e3 / 3940.0f64) as u64;
    let link_out = (4096.0 * 1e3 / 3940.0f64).round() as u64;
    let (compress, decompress) = (10_000u64, 7_000u64);

    let t0 = SimTime(1_000_000);
    d.advance(t0);
    let w = d
        .submit(&write(0, &[42], BioFlags::NONE), t0, Some(&mut cm))
        .unwrap();
    assert_eq!(d.counters().engine_compress_blocks, 1);
    assert_eq!(
        w.done.0 - t0.0,
        overhead + link_in + compress + chan + program,
        "write"
    );

    let t1 = SimTime(5_000_000);
    d.advance(t1);
    let r = d.submit(&read(0, 1, BioFlags::NONE), t1, None).unwrap();
    assert_eq!(r.device_compressed_blocks, 1);
    assert_eq!(d.counters().host_pages_read, 1);
    assert_eq!(
        r.done.0 - t1.0,
        overhead + sense + chan + ecc + decompress + link_out,
        "read"
    );
    // The same read with the host decompressing: no engine, only the stored bytes leave.
    let t2 = SimTime(6_000_000);
    d.advance(t2);
    let h = d
        .submit(&read(0, 1, BioFlags::HOST_DECOMPRESS), t2, None)
        .unwrap();
    let stored = h.host_decompress_stored;
    assert!(stored > 0 && stored < 4096, "{stored}");
    let link_stored = (stored as f64 * 1e3 / 3940.0).round() as u64;
    assert_eq!(h.done.0 - t2.0, overhead + sense + chan + ecc + link_stored);
}

/// One writer keeps the write buffer full (one 4 KiB block per bio, stored raw, so each
/// fills a page) while one reader reads back blocks written earlier, 100 us after each read
/// completes; requests reach the device in time order. Under `fcfs` a read queues behind
/// the programs its plane holds in the buffer; under `read_first` with suspension it waits
/// for one program suspension at most. No GC runs (the writes fill 70% of the flash once).
fn reads_during_sustained_writes(controller: &str) -> (Vec<u64>, u64) {
    let cfg = controller_cfg(16, controller);
    let st = StackConfig::default();
    let mut d = Ccsd::new(&cfg, &st, None, true).unwrap();
    let pages = 8192 * 7 / 10;
    let mut rng = Pcg64Mcg::seed_from_u64(5);
    let (mut tw, mut tr) = (SimTime(0), SimTime(2_000_000));
    let (mut written, mut lat) = (0u64, Vec::new());
    let mut written_at = Vec::new();
    while written < pages {
        if tw <= tr {
            d.advance(tw);
            let ids = [written + 1];
            let done = d
                .submit(&write(written, &ids, BioFlags::INCOMPRESSIBLE), tw, None)
                .unwrap();
            written_at.push(tw);
            written += 1;
            tw = done.done;
        } else {
            d.advance(tr);
            // A block written at least 1 ms ago.
            let old = written_at.partition_point(|&t| t.0 + 1_000_000 <= tr.0) as u64;
            let lba = rng.random_range(0..old.max(1));
            let done = d.submit(&read(lba, 1, BioFlags::NONE), tr, None).unwrap();
            lat.push(done.done.0 - tr.0);
            tr = SimTime(done.done.0 + 100_000);
        }
    }
    assert_eq!(d.counters().gc_blocks_erased, 0);
    // Sustained: the writer ran at the flash's pace (4 planes, 200 us programs), held back
    // by the full buffer, not at the link's.
    assert!(d.counters().buffer_full_waits > 0);
    assert!(tw.0 >= (pages - 16) * 200_000 / 4, "writes ended at {tw:?}");
    lat.sort_unstable();
    let p99 = lat[lat.len() * 99 / 100];
    (lat, p99)
}

#[test]
fn read_p99_during_sustained_writes_is_lower_with_read_priority_and_suspension() {
    let (f, fcfs) = reads_during_sustained_writes(
        "[ftl.gc]\npreemptible = false\n[controller]\nscheduler = \"fcfs\"\n\
         [controller.suspend]\nenabled = false\n",
    );
    let (s, suspend) = reads_during_sustained_writes(
        "[controller]\nscheduler = \"read_first\"\nstarvation_us = 1e8\n\
         [controller.suspend]\nenabled = true\nmax_per_op = 64\n",
    );
    eprintln!(
        "read p99 during sustained writes: fcfs {fcfs} ns ({} reads), read_first + suspension \
         {suspend} ns ({} reads)",
        f.len(),
        s.len()
    );
    assert!(f.len() > 300 && s.len() > 300);
    let (overhead, sense, program, chan, link) = (1_000u64, 25_000, 200_000, 10_240, 1_040);
    let read = overhead + sense + chan + link;
    // Suspension: the program in progress is suspended 100 us after the read arrives (or
    // after its array time starts, its transfer in being at most one page ahead), then the
    // read senses and waits for the channel behind at most one transfer of the other plane
    // on it. The back end may also have run ahead of the read's submission by up to one
    // program (the writer waited for a buffer slot): that is the lazy stack's cost.
    let suspend_bound = read + chan + 100_000 + chan + (program + chan);
    assert!(
        suspend <= suspend_bound,
        "suspension p99 {suspend} > {suspend_bound}"
    );
    // First come first served: 16 buffered pages striped over 4 planes keep 4 programs
    // (one running, three queued) ahead of a read on most planes: at least two whole
    // programs before it.
    let fcfs_floor = read + 2 * program;
    assert!(fcfs >= fcfs_floor, "fcfs p99 {fcfs} < {fcfs_floor}");
    assert!(suspend < fcfs);
}

/// Reads submitted one after another at one instant (several host threads) to different
/// planes run in parallel: waiting for the first read's data does not hold back the others
/// (the back end's run-ahead delays only planes it already decided something for).
#[test]
fn reads_at_one_instant_on_different_planes_overlap() {
    let cfg = controller_cfg(0, "");
    let st = StackConfig::default();
    let mut d = Ccsd::new(&cfg, &st, None, true).unwrap();
    // Four raw blocks, one page each, striped over the four planes.
    for lba in 0..4u64 {
        let t = SimTime(lba * 1_000_000);
        d.advance(t);
        d.submit(&write(lba, &[lba + 1], BioFlags::INCOMPRESSIBLE), t, None)
            .unwrap();
    }
    let t = SimTime(10_000_000);
    d.advance(t);
    let (overhead, sense, chan, link) = (1_000u64, 25_000u64, 10_240u64, 1_040u64);
    let mut lat = Vec::new();
    for lba in 0..4u64 {
        let r = d.submit(&read(lba, 1, BioFlags::NONE), t, None).unwrap();
        lat.push(r.done.0 - t.0);
    }
    assert_eq!(d.counters().host_pages_read, 4);
    // Each read senses at once on its own plane; two planes share a channel, so a transfer
    // may wait for one other; the link sends the four blocks one after another.
    for &l in &lat {
        assert!(l >= overhead + sense + chan + link, "{lat:?}");
        assert!(l <= overhead + sense + 2 * chan + 4 * link, "{lat:?}");
    }
}

/// A single-lane engine taking 1 ms per block (1 W) on a DRAM-buffered device that heats by
/// itself (25 W idle towards 30 + 3 x 25 = 105 °C, tau 60 s, 100 ms steps) from `initial`.
fn slow_engine_heating(initial: f64) -> (SimConfig, StackConfig) {
    let (_, mut st) = hot(25.0);
    st.ccsd.cost = Some(CostModel::Engine {
        block_bytes: 4096,
        compress_ns: 1_000_000,
        decompress_ns: 1_000_000,
        lanes: 1,
        active_mw: 1000.0,
    });
    st.ccsd.thermal.initial_c = Some(initial);
    st.ccsd.throttle_power = 0.5;
    (sim_cfg(1024), st)
}

/// One block's arrival after the command: the command overhead and its link time.
fn first_block_ns(cfg: &SimConfig) -> u64 {
    cfg.host.command_overhead_ns + (4096.0 * 1e3 / cfg.host.link_mb_per_s) as u64
}

/// 200 blocks queue for the engine at once, 1.1 ms from the throttle temperature; the model
/// crosses it at its first step (100 ms), in the middle of the 100th block: that block's
/// rest and every later block run at a tenth of the rate. The same burst with throttling
/// off runs at full rate throughout; both are hand sums.
#[test]
fn a_throttle_that_begins_while_blocks_are_queued_slows_the_work_not_yet_done() {
    let n = 200u64;
    let ms = 1_000_000u64;
    let step = 100 * ms;
    for throttling in [true, false] {
        let (cfg, st) = slow_engine_heating(75.999);
        let first = first_block_ns(&cfg);
        let mut cm = content(RatioDist::Fixed { ratio: 2.0 });
        let mut d = Ccsd::new(&cfg, &st, Some(&mut cm), throttling).unwrap();
        assert!(!d.smart().throttled);
        let ids: Vec<u64> = (1..=n).collect();
        let done = d
            .submit(&write(0, &ids, BioFlags::NONE), SimTime(0), Some(&mut cm))
            .unwrap();
        assert!(!done.failed);
        let c = d.counters();
        assert_eq!(c.engine_compress_blocks, n);
        if !throttling {
            assert_eq!(done.done.0, first + n * ms);
            assert_eq!(c.engine_busy_ns, n * ms);
            assert_eq!(c.first_throttle_ns, None);
            continue;
        }
        assert_eq!(c.first_throttle_ns, Some(step));
        // Blocks 0..99 start back to back from `first`; block 99 runs at full rate until
        // the step ends, its remaining `first` ns of work then take ten times as long; the
        // other 100 blocks take 10 ms each.
        let full = step - first;
        let slow = 10 * first + 100 * 10 * ms;
        assert_eq!(done.done.0, step + slow);
        assert_eq!(c.engine_busy_ns, full + slow);
        assert_eq!(c.engine_energy_pj, 1000 * full + 500 * slow);
    }
}

/// 150 one-block writes queue for the engine at once, 0.01 °C below the emergency
/// temperature. The device shuts down at a completion it integrates to, between the
/// crossing times of the curves at 25 W and 26 W (idle, and idle plus the engine); the
/// commands that would complete before it succeed with their hand-summed times, it and
/// every command queued behind it fail with the host's timeout, and so does a command that
/// arrives later.
#[test]
fn a_shutdown_fails_the_commands_queued_past_it() {
    let n = 150u64;
    let ms = 1_000_000u64;
    let (cfg, st) = slow_engine_heating(85.99);
    let first = first_block_ns(&cfg);
    let mut cm = content(RatioDist::Fixed { ratio: 2.0 });
    let mut d = Ccsd::new(&cfg, &st, Some(&mut cm), false).unwrap();
    let results: Vec<_> = (0..n)
        .map(|j| {
            let ids = [j + 1];
            d.submit(&write(j, &ids, BioFlags::NONE), SimTime(0), Some(&mut cm))
                .unwrap()
        })
        .collect();
    let c = d.counters();
    let down = c.shutdown_ns.expect("shut down");
    // T(t) = 30 + 3P + (85.99 - 30 - 3P) e^{-t/60} reaches 86 at:
    let crossing = |p: f64| -60.0 * ((56.0 - 3.0 * p) / (55.99 - 3.0 * p)).ln() * 1e9;
    assert!(
        down as f64 >= crossing(26.0) && down as f64 <= crossing(25.0) + ms as f64,
        "shutdown at {down} ns, crossings {} and {}",
        crossing(26.0),
        crossing(25.0)
    );
    let mut ok = 0u64;
    for (j, r) in results.iter().enumerate() {
        let due = first + (j as u64 + 1) * ms;
        if due < down {
            assert!(
                !r.failed,
                "command {j} due at {due} before the shutdown at {down}"
            );
            assert_eq!(r.done.0, due, "command {j}");
            ok += 1;
        } else {
            assert!(r.failed, "command {j} due at {due}, shutdown at {down}");
            assert_eq!(r.done.0, 30_000_000_000, "command {j}");
        }
    }
    assert!(ok > 0 && ok < n, "{ok} of {n} succeeded");
    assert_eq!(c.failed_ios, n - ok);
    let late = SimTime(down + 1);
    d.advance(late);
    let r = d.submit(&read(0, 1, BioFlags::NONE), late, None).unwrap();
    assert!(r.failed);
    assert_eq!(d.counters().failed_ios, n - ok + 1);
}
