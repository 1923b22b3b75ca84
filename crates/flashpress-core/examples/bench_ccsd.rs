//! Speed benchmark of the CCSD device model alone.
//!
//! `cargo run --release -p flashpress-core --example bench_ccsd -- [BLOCKS] [PRESET]`
//!
//! Sequential 128 KiB writes (32 blocks) of content at ratio 2 (content model in `model`
//! mode, the engine's zlib-6 measure) through a CCSD built on PRESET (default
//! `bench-mlc-2g`), wrapping over 40% of its logical space so GC runs, with `advance` before
//! every submit as the stack driver does. Prints one JSON object: blocks per wall-clock
//! second, the device's counters and this process's peak RSS.

use flashpress_core::config::{ContentConfig, ContentMode, RatioDist, SimConfig, StackConfig};
use flashpress_core::content::ContentModel;
use flashpress_core::device::ccsd::Ccsd;
use flashpress_core::stack::bio::{Bio, BioFlags, BioOp, Disk};
use flashpress_core::units::SimTime;
use flashpress_core::workload::ContentHints;
use std::time::Instant;

mod common;
use common::peak_rss_mib;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let blocks: u64 = args.next().map_or(Ok(4_000_000), |s| s.parse())?;
    let preset = args.next().unwrap_or_else(|| "bench-mlc-2g".into());
    let cfg = SimConfig::preset(&preset)?;
    let st = StackConfig::default();
    let cc = ContentConfig {
        mode: ContentMode::Model,
        codec: "zlib-6".parse()?,
        calibrate: "zlib-6".parse()?,
        ratio: RatioDist::Fixed { ratio: 2.0 },
        ..ContentConfig::default()
    };
    let mut content =
        ContentModel::from_content_config(&cc, 1, &[ContentHints::default()], "bench")?
            .ok_or("content model is off")?;
    let mut d = Ccsd::new(&cfg, &st, Some(&mut content), true)?;
    let span = d.logical_blocks() * 4 / 10 / 32 * 32;
    let mut ids = [0u64; 32];
    let (mut lba, mut id, mut now, mut done) = (0u64, 1u64, SimTime::ZERO, 0u64);
    let t0 = Instant::now();
    while done < blocks {
        for (k, slot) in ids.iter_mut().enumerate() {
            *slot = id + k as u64;
        }
        id += 32;
        d.advance(now);
        let bio = Bio {
            op: BioOp::Write,
            lba,
            blocks: 32,
            flags: BioFlags::NONE,
            stream: 0,
            content: &ids,
        };
        let r = d.submit(&bio, now, Some(&mut content))?;
        // Closed loop at queue depth 1: the next request follows the completion.
        now = r.done;
        lba = (lba + 32) % span;
        done += 32;
    }
    let wall = t0.elapsed().as_secs_f64();
    d.check_invariants()?;
    let c = d.counters();
    let out = serde_json::json!({
        "preset": preset,
        "blocks": done,
        "wall_s": wall,
        "blocks_per_s": done as f64 / wall,
        "ns_per_block": wall * 1e9 / done as f64,
        "sim_s": now.as_secs_f64(),
        "space": d.space(),
        "counters": c,
        "peak_rss_mib": peak_rss_mib(),
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}
