//! Speed benchmark of the storage stack at the Waltz seed's full scale: the
//! `waltz` preset's 20-minute Baseline run of 128 KiB sequential writes from 8 threads on a
//! 3.2 TB CCSD with a 200 GiB F2FS-like partition.
//!
//! `cargo run --release -p flashpress-core --example bench_waltz -- [POLICY] [RUNTIME_S] [SUMMARY]`
//!
//! Prints one JSON object: wall time of setup and run, 4 KiB blocks simulated per wall
//! second, peak RSS beside the memory estimate (`--dry-run`'s total), and the run's
//! throughput, WAF and thermal events. With `SUMMARY`, the run's whole `summary.json` is
//! written to that path, to compare byte for byte across changes.

use flashpress_core::config::SimConfig;
use flashpress_core::sim::Simulation;
use std::time::Instant;

mod common;
use common::peak_rss_mib;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let policy = args.next().unwrap_or_else(|| "baseline".into());
    let runtime = args.next().unwrap_or_else(|| "1200".into());
    let summary_path = args.next();
    let cfg = SimConfig::from_value(
        serde_json::json!({
            "preset": "waltz",
            "stack": { "policy": policy },
            "workload": {
                "type": "fio",
                "global": {
                    "rw": "write", "bs": "128k", "numjobs": 8, "iodepth": 1, "size": "23g",
                    "runtime": format!("{runtime}s"), "time_based": true,
                    "buffer_compress_percentage": 50
                },
                "jobs": [ { "name": "seq-write" } ]
            },
            "check": { "verify": false, "invariants": false }
        }),
        "bench_waltz",
        None,
    )?;
    let est = flashpress_core::estimate::estimate(&cfg);
    let mib = |b: u64| b as f64 / 1048576.0;
    let estimate_parts: serde_json::Map<String, serde_json::Value> = est
        .components
        .iter()
        .filter(|c| c.bytes >= 1 << 20)
        .map(|c| (c.name.to_string(), mib(c.bytes).into()))
        .collect();
    let t0 = Instant::now();
    let mut sim = Simulation::new(cfg)?;
    let setup_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    while !sim.step(1 << 20)? {}
    let run_s = t1.elapsed().as_secs_f64();
    let rep = sim.finish()?;
    if let Some(path) = summary_path {
        std::fs::write(&path, rep.summary_json())?;
    }
    let s = &rep.summary;
    let blocks = s.host_write_bytes as f64 / 4096.0;
    let st = s
        .stack
        .as_ref()
        .ok_or("a [stack] run has a stack summary")?;
    let out = serde_json::json!({
        "policy": st.policy,
        "setup_wall_s": setup_s,
        "run_wall_s": run_s,
        "blocks_per_wall_s": blocks / run_s,
        "peak_rss_mib": peak_rss_mib(),
        "estimate_mib": mib(est.total_bytes),
        "estimate_parts_mib": estimate_parts,
        "sim_time_s": s.sim_time_s,
        "write_mb_s": s.write.throughput_mb_s,
        "waf": s.waf,
        "first_throttle_s": st.temperature.first_throttle_s,
        "shutdown_s": st.temperature.shutdown_s,
        "max_temperature_c": st.temperature.max_c,
        "requests_failed": s.requests_failed,
    });
    println!("{out}");
    Ok(())
}
