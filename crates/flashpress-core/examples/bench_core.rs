//! Speed benchmark of the core without the interpreter (the `bench-mlc-2g` benchmark device).
//!
//! `cargo run --release -p flashpress-core --example bench_core -- TRACE [PRESET] [realistic] [no-fill] [demand] [wide]`
//!
//! `no-fill` turns the preset's preconditioning off (the trace brings its own fill).
//! `demand` pages the map (`ftl.map_cache = { type = "demand" }`) with a budget one
//! translation page short of the whole table, which holds every entry a trace inside the
//! filled 90% touches, so every lookup hits (`benchmarks/bench_map_cache.py`).
//! `wide` builds the page map in the bit-packed layout of devices past 2^32 mapping units
//! (`ftl::MapLayout::Wide`, 33-bit entries) instead of the `u32` array this device gets, to
//! measure what the packed layout costs (the results are the same).
//! `realistic` runs the device with the default preset's controller instead of the preset's
//! own (MQSim-like first come first served): `read_first` scheduling, program/erase suspend,
//! semi-preemptible GC and least-busy (dynamic) plane allocation.
//!
//! Loads the preset (default `bench-mlc-2g`: sequential fill of 90% of the logical space,
//! untimed), replays TRACE (DiskSim/MQSim ASCII, as fast as possible at queue depth 32) and
//! prints one JSON object: requests per wall-clock second of the replay, the fill's wall
//! time, peak RSS of this process (and the memory estimate of its config), the run's WAF and
//! its simulated time, write IOPS and write latency (mean, p99, max).

use flashpress_core::config::SimConfig;
use flashpress_core::sim::Simulation;
use std::time::Instant;

mod common;
use common::peak_rss_mib;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let trace = args.next().ok_or("usage: bench_core TRACE [PRESET]")?;
    let preset = args.next().unwrap_or_else(|| "bench-mlc-2g".into());
    let (mut realistic, mut no_fill, mut demand, mut wide) = (false, false, false, false);
    for mode in args {
        match mode.as_str() {
            "realistic" => realistic = true,
            "no-fill" => no_fill = true,
            "demand" => demand = true,
            "wide" => wide = true,
            other => {
                return Err(format!(
                    "unknown mode `{other}` (expected `realistic`, `no-fill`, `demand` or `wide`)"
                )
                .into())
            }
        }
    }
    let mut over = serde_json::json!({
            "preset": preset,
            "workload": {
                "type": "trace", "path": trace, "format": "disksim", "time_unit": "ns",
                "sector_size": 512, "replay": "afap", "queue_depth": 32, "time_scale": 1.0,
                "address_mode": "strict", "blkparse_action": "D"
            },
            "check": { "verify": false, "invariants": false }
    });
    if no_fill {
        over["precondition"] = serde_json::json!({ "fill_fraction": 0.0 });
    }
    if realistic {
        let d = SimConfig::preset("default")?;
        over["controller"] = serde_json::to_value(&d.controller)?;
        over["ftl"] = serde_json::json!({
            "striping": d.ftl.striping,
            "gc": { "preemptible": d.ftl.gc.preemptible, "step_pages": d.ftl.gc.step_pages,
                    "hard_floor": d.ftl.gc.hard_floor },
        });
    }
    if demand {
        let base = SimConfig::from_value(over.clone(), "bench_core", None)?;
        let table = flashpress_core::ftl::mapcache::table_bytes(&base);
        let cache = serde_json::json!({
            "type": "demand", "dram_bytes": table - base.nand.page_size as u64, "policy": "lru"
        });
        match over.get_mut("ftl") {
            Some(f) => f["map_cache"] = cache,
            None => over["ftl"] = serde_json::json!({ "map_cache": cache }),
        }
    }
    let cfg = SimConfig::from_value(over, "bench_core", None)?;
    let layout = if wide {
        flashpress_core::ftl::MapLayout::Wide
    } else {
        flashpress_core::ftl::MapLayout::Auto
    };
    let estimate_mib = flashpress_core::estimate::estimate_with_layout(&cfg, layout).total_bytes
        as f64
        / 1048576.0;
    let t0 = Instant::now();
    let mut sim = Simulation::build_with_layout(
        cfg,
        flashpress_core::estimate::MemoryLimit::Machine,
        &mut flashpress_core::interrupt::Interrupt::none(),
        layout,
    )?;
    let setup_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    while !sim.step(1 << 20)? {}
    let run_s = t1.elapsed().as_secs_f64();
    let rep = sim.finish()?;
    let s = &rep.summary;
    let out = serde_json::json!({
        "path": "rust-core",
        "controller": if realistic { "realistic (default preset)" } else { "fcfs (preset)" },
        "requests": s.requests_completed,
        "setup_wall_s": setup_s,
        "run_wall_s": run_s,
        "requests_per_wall_s": s.requests_completed as f64 / run_s,
        "peak_rss_mib": peak_rss_mib(),
        "estimate_mib": estimate_mib,
        "waf": s.waf,
        "gc_pages_migrated": s.gc_pages_migrated,
        "erases": s.erases,
        "write_iops_simulated": s.write.iops,
        "write_p99_us": s.write.latency_us.map(|l| l.p99),
        "write_mean_us": s.write.latency_us.map(|l| l.mean),
        "write_max_us": s.write.latency_us.map(|l| l.max),
        "sim_time_s": s.sim_time_s,
        "write_iops_until_flash_quiet": s.controller.map(|c| s.write.requests as f64 / c.flash_quiet_s),
        "map_hit_ratio": s.map_cache.map(|m| m.hit_ratio),
    });
    println!("{out}");
    Ok(())
}
