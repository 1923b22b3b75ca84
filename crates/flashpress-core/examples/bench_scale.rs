//! Scale benchmark: one device of `TIB` TiB of logical space mapped in `UNIT_KIB` KiB units on
//! NAND pages of `PAGE_KIB` KiB, preconditioned to steady state (filled, then every unit
//! overwritten `AGING` times on average at random, untimed), then `REQUESTS` uniform random
//! 4 KiB writes at queue depth 32 (`REQUESTS` = 0: the estimate and the config check only).
//! Prints one JSON object: the memory estimate, peak RSS,
//! preconditioning (set-up) time, requests per wall second, and the run's WAF, with the
//! machine's available memory the run is checked against. A device the simulator refuses
//! prints the refusal and the estimate (pure arithmetic on the config).
//!
//! Steady state: the aging's WAF (NAND bytes programmed / unit bytes overwritten) per window
//! of 10% of the units (from [`Simulation::aging_windows`]' 1% windows), and the timed run's
//! per `WINDOWS` equal windows of requests (NAND bytes programmed / 4 KiB x requests
//! completed in the window), are both printed. The aged device counts as in steady state
//! (`"steady": true`) when there are at least three aging windows and the last three's WAF
//! are within `TOL` (3%) of their mean ([`flashpress_core::sim::steady`]). The timed run's WAF divided by the read-modify-write factor (unit / 4 KiB, at least
//! 1) is printed beside them as `run_gc_waf`: in steady state it matches the aging windows'.
//!
//! Shape: 8 channels x 8 chips x 4 dies x 2 planes (512 planes), 1,024 pages per block,
//! 7% over-provisioning, greedy GC below 0.2% free blocks, the default preset's controller
//! (with units smaller than the page: a 64 MiB write buffer packs them, no copyback); blocks per plane sized
//! so the logical space is at least `TIB` TiB. `CELL` is slc | mlc | tlc | qlc (QLC here:
//! latencies of a 2020s QLC die, 16 KiB pages typical).
//!
//! `LAYOUT` is `auto` (default: the page map's `u32` entries below 2^28 physical units,
//! bit-packed from there on) or `wide` (the bit-packed layout of devices past 2^32 units
//! forced on this one, at least 33 bits: its memory measured on a device that fits here).
//!
//!     cargo run --release -p flashpress-core --example bench_scale -- TIB UNIT_KIB PAGE_KIB REQUESTS [AGING] [CELL] [WINDOWS] [LAYOUT]

use flashpress_core::config::SimConfig;
use flashpress_core::estimate::MemoryLimit;
use flashpress_core::ftl::MapLayout;
use flashpress_core::interrupt::Interrupt;
use flashpress_core::sim::{aging_waf_by, spread, steady, Simulation};
use std::time::Instant;

mod common;
use common::peak_rss_mib;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.len() < 4 {
        return Err(
            "usage: bench_scale TIB UNIT_KIB PAGE_KIB REQUESTS [AGING] [CELL] [WINDOWS] [LAYOUT]"
                .into(),
        );
    }
    let tib: f64 = a[0].parse()?;
    let unit: u64 = a[1].parse::<u64>()? * 1024;
    let page: u64 = a[2].parse::<u64>()? * 1024;
    let requests: u64 = a[3].parse()?;
    let aging: f64 = a.get(4).map_or(Ok(1.0), |s| s.parse())?;
    let cell = a.get(5).map_or("tlc", |s| s.as_str());
    let windows: u64 = a.get(6).map_or(Ok(10), |s| s.parse())?;
    if windows == 0 {
        return Err("WINDOWS must be at least 1".into());
    }
    let layout = match a.get(7).map_or("auto", |s| s.as_str()) {
        "auto" => MapLayout::Auto,
        "wide" => MapLayout::Wide,
        other => {
            return Err(format!("unknown layout `{other}` (expected `auto` or `wide`)").into())
        }
    };
    let (read, program): (Vec<f64>, Vec<f64>) = match cell {
        "slc" => (vec![25.0], vec![200.0]),
        "mlc" => (vec![75.0; 2], vec![750.0; 2]),
        "tlc" => (vec![56.0, 118.0, 180.0], vec![700.0, 1050.0, 1400.0]),
        "qlc" => (
            vec![85.0, 110.0, 140.0, 170.0],
            vec![2000.0, 2000.0, 2000.0, 2000.0],
        ),
        other => return Err(format!("unknown cell `{other}`").into()),
    };
    let op = 0.07;
    let planes = 8 * 8 * 4 * 2u64;
    let ppb = 1024u64;
    let blocks =
        ((tib * (1u64 << 40) as f64 / (1.0 - op)) / (planes * ppb * page) as f64).ceil() as u64;
    let cfg = match SimConfig::from_value(
        serde_json::json!({
            "preset": "default",
            "nand": {
                "channels": 8, "chips_per_channel": 8, "dies_per_chip": 4, "planes_per_die": 2,
                "blocks_per_plane": blocks, "pages_per_block": ppb, "page_size": page,
                "cell": cell, "read_latency_us": read, "program_latency_us": program,
                "channel_mb_per_s": 1200.0,
            },
            // A free-block reserve of 0.2% of a plane (at least 2 blocks): the default
            // preset's 5% is far more than a multi-TiB drive keeps.
            // Units smaller than the page are packed into pages in a write buffer (64 MiB
            // of pages), and GC re-packs them, which copyback cannot.
            "ftl": { "op_ratio": op, "mapping_unit": unit,
                     "write_buffer_pages": if unit < page { (64u64 << 20) / page } else { 0 },
                     "gc": { "threshold": 0.002, "background_threshold": 0.004, "hard_floor": 0.001,
                             "copyback": unit >= page } },
            "precondition": { "fill_fraction": 1.0, "aging_fraction": aging },
            "workload": { "type": "fio", "jobs": [{
                "name": "w", "rw": "randwrite", "bs": "4k", "iodepth": 32,
                "number_ios": requests, "io_size": "1p", "norandommap": true
            }]},
            "check": { "verify": false, "invariants": false },
        }),
        "bench_scale",
        None,
    ) {
        Ok(c) => c,
        Err(e) => {
            // A device the simulator refuses (its checks run on loading): why, and its size.
            let out = serde_json::json!({
                "tib": tib, "unit_kib": unit / 1024, "page_kib": page / 1024, "cell": cell,
                "refused": e.to_string(),
            });
            println!("{out}");
            return Ok(());
        }
    };
    let est = flashpress_core::estimate::estimate_with_layout(&cfg, layout);
    let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
    let logical_tib = est.logical_bytes as f64 / (1u64 << 40) as f64;
    let mut out = serde_json::json!({
        "tib": tib, "unit_kib": unit / 1024, "page_kib": page / 1024, "cell": cell,
        "layout": format!("{layout:?}").to_lowercase(),
        "logical_tib": logical_tib, "physical_pages": est.physical_pages,
        "estimate_gib": gib(est.total_bytes),
        "estimate_gib_per_logical_tib": gib(est.total_bytes) / logical_tib,
        // What a run is checked against (the machine's available memory, cgroup limit
        // included; null where unknown).
        "available_gib": flashpress_core::estimate::available_memory().map(gib),
    });
    if requests == 0 {
        // Estimate only: the config is checked, nothing is built.
        if let Err(e) = cfg.validate("bench_scale") {
            out["refused"] = e.to_string().into();
        }
        println!("{out}");
        return Ok(());
    }
    let t0 = Instant::now();
    let mut sim = match Simulation::build_with_layout(
        cfg,
        MemoryLimit::Machine,
        &mut Interrupt::none(),
        layout,
    ) {
        Ok(s) => s,
        Err(e) => {
            out["refused"] = e.to_string().into();
            println!("{out}");
            return Ok(());
        }
    };
    let setup_s = t0.elapsed().as_secs_f64();
    // The core records 1% windows; greedy GC on planes filled in lockstep makes their WAF
    // swing (a damped oscillation a few % of the units long), so steady state is judged on
    // windows of 10% of the units (the last one may be shorter).
    let ratio = page as f64 / unit as f64;
    let aging = aging_waf_by(sim.aging_windows(), 10, ratio);
    let programs = |sim: &Simulation| sim.device().map_or(0, |d| d.nand.counters.programs);
    let t1 = Instant::now();
    let mut run_windows = Vec::new();
    let (mut done, mut last) = (false, (0u64, programs(&sim)));
    for w in 1..=windows {
        let end = requests * w / windows;
        while !done && sim.progress().requests_completed < end {
            done = sim.step(1 << 12)?;
        }
        let (completed, p) = (sim.progress().requests_completed, programs(&sim));
        if completed > last.0 {
            run_windows
                .push((p - last.1) as f64 * page as f64 / ((completed - last.0) * 4096) as f64);
        }
        last = (completed, p);
    }
    while !done {
        done = sim.step(1 << 20)?;
    }
    let run_s = t1.elapsed().as_secs_f64();
    // Within TOL of the mean: the last three aging windows (the timed windows' spread, but the
    // first's, is printed, not judged: a short run sees a swing of GC, not a level).
    const TOL: f64 = 0.03;
    let tail = &aging[aging.len().saturating_sub(3)..];
    let timed = if run_windows.len() > 3 {
        &run_windows[1..]
    } else {
        &run_windows[..]
    };
    out["aging_windows_waf"] = aging.clone().into();
    out["aging_last3_spread"] = spread(tail).into();
    out["run_windows_waf"] = run_windows.clone().into();
    out["run_windows_spread"] = spread(timed).into();
    out["steady"] = steady(&aging, 3, TOL).into();
    let rep = sim.finish()?;
    let s = &rep.summary;
    out["precondition_s"] = setup_s.into();
    out["requests"] = s.requests_completed.into();
    out["run_s"] = run_s.into();
    out["requests_per_wall_s"] = (s.requests_completed as f64 / run_s).into();
    out["peak_rss_gib"] = (peak_rss_mib() / 1024.0).into();
    out["peak_rss_gib_per_logical_tib"] = (peak_rss_mib() / 1024.0 / logical_tib).into();
    out["waf"] = s.waf.into();
    out["run_gc_waf"] = s.waf.map(|w| w / (unit as f64 / 4096.0).max(1.0)).into();
    out["rmw_units"] = s.rmw_units.into();
    out["gc_pages_migrated"] = s.gc_pages_migrated.into();
    out["write_iops_simulated"] = s.write.iops.into();
    println!("{out}");
    Ok(())
}
