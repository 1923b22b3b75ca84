//! Partial reads (`nand.partial_read`, PR-SSD Table 1) against hand-computed timing and
//! energy: a read that falls in one unit of a page senses that unit at the latency factor
//! and the current factor and moves only the unit; any other read senses and moves the page.

use crate::support::{config, script_sim};
use flashpress_core::config::SimConfig;
use flashpress_core::sim::Simulation;
use flashpress_core::units::Lpn;
use flashpress_core::workload::{Drive, Op};
use flashpress_core::Error;

/// A small TLC device with 16 KiB pages and 4 KiB partial units, every page written.
const DEVICE: &str = concat!(
    tlc_device!(2, 1, 32),
    r#"
[nand.power]
vcc_v = 3.3
read_ma = 25.0
transfer_ma = 10.0
[ftl]
op_ratio = 0.25
[precondition]
fill_fraction = 1.0
aging_fraction = 0.0
"#
);

fn ns(x: f64) -> u64 {
    x.round() as u64
}

/// Expected QD-1 latency (ns), array energy (pJ) and transfer bytes of one read.
fn expected(cfg: &SimConfig, ty: usize, len: u64, partial: bool) -> (u64, u64, u64) {
    let n = &cfg.nand;
    let p = n.partial_read.as_ref().unwrap();
    let full_t = ns(n.read_latency_us[ty] * 1e3);
    let (t, ma, bytes) = if partial {
        (
            ns(full_t as f64 * p.latency_factor),
            n.power.read_ma * p.current_factor,
            p.unit_bytes as u64,
        )
    } else {
        (full_t, n.power.read_ma, n.page_size as u64)
    };
    let xfer = ns(bytes as f64 * 1e3 / n.channel_mb_per_s);
    let link = ns(len as f64 * 1e3 / cfg.host.link_mb_per_s);
    let lat =
        cfg.host.command_overhead_ns + t + xfer + ns(cfg.controller.ecc_decode_us * 1e3) + link;
    (lat, ns(n.power.vcc_v * ma * t as f64), bytes)
}

/// A simulation of the reads (offset, length) at queue depth 1, built but not run.
fn sim(cfg: &SimConfig, reads: &[(u64, u64)]) -> Simulation {
    let script = reads.iter().map(|&(o, l)| (Op::Read, o, l, 0)).collect();
    script_sim(cfg, script, Drive::Closed { depth: 1 })
}

#[test]
fn a_read_inside_one_unit_is_a_partial_read_and_any_other_read_is_a_full_one() {
    let cfg = config(DEVICE);
    let page = 16_384u64;
    // (offset, length, partial?): each 4 KiB unit of a page; a sub-unit read; 8 KiB across
    // two units; 4 KiB straddling two units; a whole page.
    let mut cases: Vec<(u64, u64, bool)> = Vec::new();
    for (i, lpn) in [3u64, 10, 17, 40, 41, 42].iter().enumerate() {
        cases.push((lpn * page + (i as u64 % 4) * 4096, 4096, true));
    }
    cases.push((7 * page + 512, 1024, true));
    cases.push((8 * page + 4096, 8192, false));
    cases.push((9 * page + 2048, 4096, false));
    cases.push((11 * page, page, false));
    let reads: Vec<(u64, u64)> = cases.iter().map(|c| (c.0, c.1)).collect();
    // Where each page sits decides its page type; the mapping is the FTL's.
    let sim = sim(&cfg, &reads);
    let dev = sim.device().unwrap();
    let g = &dev.nand.geo;
    let ty = |lpn: u64| {
        let ppn = dev.ftl.lookup(Lpn(lpn)).expect("filled");
        (g.page_in_block(ppn) % 3) as usize
    };
    let (mut lat_sum, mut pj, mut bytes, mut partial) = (0u64, 0u64, 0u64, 0u64);
    let mut lat_max = 0u64;
    for &(off, len, p) in &cases {
        let (l, e, b) = expected(&cfg, ty(off / page), len, p);
        lat_sum += l;
        lat_max = lat_max.max(l);
        pj += e;
        bytes += b;
        partial += u64::from(p);
    }
    let s = sim.run().unwrap().summary;
    assert_eq!(s.read.requests, cases.len() as u64);
    assert_eq!(s.nand_reads, cases.len() as u64);
    assert_eq!(s.nand_partial_reads, partial);
    let lat = s.read.latency_us.unwrap();
    assert!(
        (lat.mean - lat_sum as f64 / cases.len() as f64 * 1e-3).abs() < 1e-9,
        "mean latency {} against {}",
        lat.mean,
        lat_sum as f64 / cases.len() as f64 * 1e-3
    );
    assert_eq!(lat.max, lat_max as f64 * 1e-3);
    assert!((s.energy.nand_read_j - pj as f64 * 1e-12).abs() < 1e-15);
    let full = cases.len() as u64 - partial;
    assert_eq!(s.nand_read_bytes, full * page + partial * 4096);
    assert_eq!(
        s.energy.channel_transfer_j,
        {
            let per = |b: u64| ns(3.3 * 10.0 * ns(b as f64 * 1e3 / 833.0) as f64);
            (full * per(page) + partial * per(4096)) as f64 * 1e-12
        },
        "transfer energy: {bytes} bytes"
    );
}

#[test]
fn disabled_partial_reads_read_whole_pages() {
    let mut cfg = config(DEVICE);
    cfg.nand.partial_read.as_mut().unwrap().enabled = false;
    let reads: Vec<(u64, u64)> = (0..20).map(|i| (i * 16_384 + 4096, 4096)).collect();
    let s = sim(&cfg, &reads).run().unwrap().summary;
    assert_eq!(s.nand_reads, 20);
    assert_eq!(s.nand_partial_reads, 0);
    assert_eq!(s.nand_read_bytes, 20 * 16_384);
}

#[test]
fn a_partial_unit_must_divide_the_page_and_factors_must_be_fractions() {
    for (key, value, named) in [
        ("unit_bytes", "3000", "nand.partial_read.unit_bytes"),
        ("unit_bytes", "16384", "nand.partial_read.unit_bytes"),
        ("unit_bytes", "0", "nand.partial_read.unit_bytes"),
        ("latency_factor", "1.5", "nand.partial_read.latency_factor"),
        ("current_factor", "0.0", "nand.partial_read.current_factor"),
    ] {
        let text = DEVICE.replace(&format!("{key} = "), &format!("{key} = {value}\n# was "));
        match SimConfig::from_toml_str(&text, "t.toml") {
            Err(Error::Config { key: k, .. }) => assert_eq!(k, named, "{key} = {value}"),
            other => panic!("{key} = {value}: expected a config error, got {other:?}"),
        }
    }
    // A key the table does not have is refused, not ignored.
    let text = DEVICE.replace("current_factor = 0.6", "current_factor = 0.6\nunits = 4");
    assert!(SimConfig::from_toml_str(&text, "t.toml").is_err());
}
