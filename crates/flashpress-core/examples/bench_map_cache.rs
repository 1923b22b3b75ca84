//! Cost of the demand-paged map cache when it always hits (`benchmarks/bench_map_cache.py`
//! runs this under callgrind and prints the instruction ratio).
//!
//! `cargo run --release -p flashpress-core --example bench_map_cache -- MODE [REQUESTS]`
//!
//! MODE `full`: the whole map in DRAM; `demand`: `ftl.map_cache = { type = "demand" }` with a
//! budget one translation page short of the whole table, which still holds every entry the
//! run touches, so every lookup hits. Device `bench-mlc-2g` (filled to 90%, untimed), then
//! REQUESTS (default 200,000) random 4 KiB reads and writes (70% reads) at queue depth 32
//! over the first 800 MiB. Prints one JSON object.

use flashpress_core::config::SimConfig;
use flashpress_core::sim::Simulation;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mode = args
        .next()
        .ok_or("usage: bench_map_cache full|demand [REQUESTS]")?;
    let requests: u64 = args.next().map_or(Ok(200_000), |a| a.parse())?;
    let mut over = serde_json::json!({
        "preset": "bench-mlc-2g",
        "workload": { "type": "fio", "jobs": [{
            "name": "r", "rw": "randrw", "rwmixread": 70, "bs": "4k", "size": "800m",
            "iodepth": 32, "number_ios": requests
        }]},
        "check": { "verify": false, "invariants": false }
    });
    match mode.as_str() {
        "full" => {}
        "demand" => {
            let base = SimConfig::from_value(over.clone(), "bench_map_cache", None)?;
            let table = flashpress_core::ftl::mapcache::table_bytes(&base);
            over["ftl"] = serde_json::json!({"map_cache": {
                "type": "demand", "dram_bytes": table - base.nand.page_size as u64,
                "policy": "lru"
            }});
        }
        other => return Err(format!("unknown mode `{other}` (expected full or demand)").into()),
    }
    let cfg = SimConfig::from_value(over, "bench_map_cache", None)?;
    let t0 = Instant::now();
    let rep = Simulation::new(cfg)?.run()?;
    let s = &rep.summary;
    let out = serde_json::json!({
        "mode": mode,
        "requests": s.requests_completed,
        "wall_s": t0.elapsed().as_secs_f64(),
        "hit_ratio": s.map_cache.map(|m| m.hit_ratio),
        "lookups": s.map_cache.map(|m| m.counters.lookups),
        "read_mean_us": s.read.latency_us.map(|l| l.mean),
    });
    println!("{out}");
    Ok(())
}
