//! Host codec cost against the compression ratio of generated content.
//!
//! `cargo run --release -p flashpress-core --example codec_speed_by_ratio -- [CODEC] [CHUNK] [PASSES] [RATIO]`
//!
//! Generates 16 KiB clusters the way the content model does (fio-style chunks of random bytes
//! and zeros, `content::generate`), calibrated so that CODEC reaches each target ratio on a
//! 4 KiB block (every ratio of a grid from 1 to 8, or only RATIO; RATIO = `file:PATH` takes the
//! first 8 MiB of PATH instead), compresses and decompresses them PASSES times (default 5) and prints one JSON
//! object per ratio: the ratio reached on 16 KiB clusters and the single-core compress and
//! decompress MB/s (10^6 uncompressed bytes per second, fastest pass).
//!
//! Wall-clock speed is disturbed by other load; instruction counts are not. Under
//! `valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*run_comp*'` (and
//! `'*run_dec*'`) with PASSES = 1 the counts per ratio give the cost relative to one
//! ratio independently of the machine's load (`benchmarks/codec_speed_by_ratio.sh`).

use flashpress_core::codec::{Codec, CodecKind};
use flashpress_core::content::generate::{block_rng, fill_block, Calibration};
use std::time::Instant;

const CLUSTER: usize = 16384;
const CLUSTERS: usize = 512;

#[inline(never)]
fn run_comp(codec: &mut Codec, data: &[u8], outs: &mut [Vec<u8>]) {
    for (c, o) in data.chunks(CLUSTER).zip(outs.iter_mut()) {
        codec.compress(c, o);
    }
}

#[inline(never)]
fn run_dec(codec: &mut Codec, outs: &[Vec<u8>], back: &mut Vec<u8>) {
    for o in outs {
        codec.decompress(o, CLUSTER, back).expect("round trip");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind: CodecKind = args
        .get(1)
        .map_or("zstd-3", String::as_str)
        .parse()
        .expect("a codec name");
    let chunk: usize = args
        .get(2)
        .map_or(512, |s| s.parse().expect("a chunk size"));
    let passes: usize = args.get(3).map_or(5, |s| s.parse().expect("a pass count"));
    let cal = Calibration::measure(kind, chunk);
    let file = args.get(4).and_then(|a| a.strip_prefix("file:"));
    let ratios = match (file, args.get(4)) {
        (Some(_), _) => vec![0.0],
        (None, Some(r)) => vec![r.parse::<f64>().expect("a ratio")],
        (None, None) => vec![1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0],
    };
    for ratio in ratios {
        let mut data = vec![0u8; CLUSTER * CLUSTERS];
        if let Some(path) = file {
            let bytes = std::fs::read(path).expect("a readable file");
            assert!(bytes.len() >= data.len(), "{path}: fewer than 8 MiB");
            data.copy_from_slice(&bytes[..CLUSTER * CLUSTERS]);
        } else {
            let f = cal.fraction_for(ratio);
            for (i, c) in data.chunks_mut(4096).enumerate() {
                fill_block(&mut block_rng(1, i as u64, 0), f, chunk, c);
            }
        }
        let mut codec = Codec::new(kind);
        let mut outs: Vec<Vec<u8>> = vec![Vec::new(); CLUSTERS];
        let mut back = Vec::with_capacity(CLUSTER);
        let (mut comp, mut dec) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..passes {
            let t = Instant::now();
            run_comp(&mut codec, &data, &mut outs);
            comp = comp.min(t.elapsed().as_secs_f64());
            let t = Instant::now();
            run_dec(&mut codec, &outs, &mut back);
            dec = dec.min(t.elapsed().as_secs_f64());
        }
        let stored: usize = outs.iter().map(Vec::len).sum();
        let mb = data.len() as f64 / 1e6;
        println!(
            "{{\"codec\": \"{kind}\", \"target_ratio\": {ratio}, \"ratio\": {:.3}, \
             \"compress_mb_per_s\": {:.1}, \"decompress_mb_per_s\": {:.1}}}",
            data.len() as f64 / stored as f64,
            mb / comp,
            mb / dec
        );
    }
}
