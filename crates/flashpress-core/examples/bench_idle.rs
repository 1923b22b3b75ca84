//! Wall time of simulated idle time in a `[stack]` run.
//!
//! `cargo run --release -p flashpress-core --example bench_idle -- [GAP_S] [POLICY]`
//!
//! Two 128 KiB writes GAP_S simulated seconds apart (default 10^6) on the `waltz` preset
//! (NAND cut to 64 blocks per plane, a 1 GiB partition) with placement policy POLICY
//! (default `baseline`), replayed from a timed trace. Prints one JSON object: the wall
//! seconds of the run (setup excluded) and of the run per 10^6 simulated idle seconds.

use flashpress_core::config::SimConfig;
use flashpress_core::sim::Simulation;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let gap_s: u64 = args.next().map_or(Ok(1_000_000), |s| s.parse())?;
    let policy = args.next().unwrap_or_else(|| "baseline".into());
    let dir = std::env::temp_dir().join(format!("flashpress-bench-idle-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let trace = dir.join("gap.trace");
    std::fs::write(
        &trace,
        format!("0 0 0 256 0\n{} 0 256 256 0\n", gap_s * 1_000_000_000),
    )?;
    let cfg = SimConfig::from_toml_str(
        &format!(
            "preset = \"waltz\"\n[nand]\nblocks_per_plane = 64\n[stack]\npolicy = \"{policy}\"\n\
             [stack.fs]\npartition_bytes = 1073741824\n[workload]\ntype = \"trace\"\n\
             path = \"{}\"\nformat = \"disksim\"\ntime_unit = \"ns\"\nsector_size = 512\n\
             replay = \"timed\"\nqueue_depth = 1\ntime_scale = 1.0\naddress_mode = \"strict\"\n\
             blkparse_action = \"D\"\n",
            trace.display()
        ),
        "bench_idle",
    )?;
    let sim = Simulation::new(cfg)?;
    let t0 = Instant::now();
    let rep = sim.run()?;
    let wall = t0.elapsed().as_secs_f64();
    std::fs::remove_dir_all(&dir)?;
    println!(
        "{{\"gap_s\": {gap_s}, \"policy\": \"{policy}\", \"requests\": {}, \"sim_time_s\": {}, \
         \"wall_s\": {wall:.3}, \"wall_s_per_1e6_idle_s\": {:.3}}}",
        rep.summary.requests_completed,
        rep.summary.sim_time_s,
        wall * 1e6 / gap_s as f64
    );
    Ok(())
}
