//! Speed benchmark of the core without the interpreter (issue 2's benchmark device).
//!
//! `cargo run --release -p flashpress-core --example bench_core -- TRACE [PRESET]`
//!
//! Loads the preset (default `bench-mlc-2g`: sequential fill of 90% of the logical space,
//! untimed), replays TRACE (DiskSim/MQSim ASCII, as fast as possible at queue depth 32) and
//! prints one JSON object: requests per wall-clock second of the replay, the fill's wall
//! time, peak RSS of this process and the run's WAF.

use flashpress_core::config::SimConfig;
use flashpress_core::sim::Simulation;
use std::time::Instant;

mod common;
use common::peak_rss_mib;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let trace = args.next().ok_or("usage: bench_core TRACE [PRESET]")?;
    let preset = args.next().unwrap_or_else(|| "bench-mlc-2g".into());
    let cfg = SimConfig::from_value(
        serde_json::json!({
            "preset": preset,
            "workload": {
                "type": "trace", "path": trace, "format": "disksim", "time_unit": "ns",
                "sector_size": 512, "replay": "afap", "queue_depth": 32, "time_scale": 1.0,
                "address_mode": "strict", "blkparse_action": "D"
            },
            "check": { "verify": false, "invariants": false }
        }),
        "bench_core",
        None,
    )?;
    let t0 = Instant::now();
    let mut sim = Simulation::new(cfg)?;
    let setup_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    while !sim.step(1 << 20)? {}
    let run_s = t1.elapsed().as_secs_f64();
    let rep = sim.finish()?;
    let s = &rep.summary;
    let out = serde_json::json!({
        "path": "rust-core",
        "requests": s.requests_completed,
        "setup_wall_s": setup_s,
        "run_wall_s": run_s,
        "requests_per_wall_s": s.requests_completed as f64 / run_s,
        "peak_rss_mib": peak_rss_mib(),
        "waf": s.waf,
        "gc_pages_migrated": s.gc_pages_migrated,
        "erases": s.erases,
        "write_iops_simulated": s.write.iops,
    });
    println!("{out}");
    Ok(())
}
