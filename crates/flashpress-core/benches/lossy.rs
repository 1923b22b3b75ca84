//! SZx-style lossy codec throughput, one core (the target is >= 1 GB/s compression on a real
//! field at a 1e-3 range-relative bound).
//!
//! The field here is synthetic until the real ones are fetched: 2048 x 2048 `f32` (16 MiB),
//! a sum of two smooth waves plus a small deterministic noise, like a gridded model output.
//! Bound: 1e-3 of the value range. Throughput is uncompressed bytes per second both ways.
//!
//! A real field instead: set `FLASHPRESS_SZX_FIELD` to a file of raw little-endian `f32`
//! values (for instance etopo5's ROSE, 2161 x 4320); its size and ratio are printed.
//!
//! Run: `cargo bench -p flashpress-core --bench lossy`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use flashpress_core::codec::szx;
use std::hint::black_box;
use std::time::Duration;

fn field() -> Vec<f32> {
    let n = 2048usize;
    let mut x = 1u32;
    let mut out = Vec::with_capacity(n * n);
    for i in 0..n {
        for j in 0..n {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let noise = ((x >> 16) as f32 / 65536.0 - 0.5) * 0.01;
            let (a, b) = (i as f32 / n as f32, j as f32 / n as f32);
            out.push(10.0 * (6.3 * a).sin() * (3.1 * b).cos() + 2.0 * (40.0 * a * b).sin() + noise);
        }
    }
    out
}

/// The field named by `FLASHPRESS_SZX_FIELD` (raw little-endian `f32`), or the synthetic one.
fn data() -> (String, Vec<f32>) {
    match std::env::var_os("FLASHPRESS_SZX_FIELD") {
        Some(path) => {
            let raw = std::fs::read(&path)
                .unwrap_or_else(|e| panic!("FLASHPRESS_SZX_FIELD={path:?}: {e}"));
            assert!(
                raw.len() % 4 == 0 && !raw.is_empty(),
                "FLASHPRESS_SZX_FIELD={path:?}: {} bytes is not a whole number of f32 values",
                raw.len()
            );
            let data: Vec<f32> = raw
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            let bad = data.iter().filter(|x| !x.is_finite()).count();
            assert!(bad == 0, "{path:?}: {bad} values are NaN or infinite");
            (
                format!("{} ({} values)", path.to_string_lossy(), data.len()),
                data,
            )
        }
        None => ("synthetic 2048x2048".into(), field()),
    }
}

fn bench(c: &mut Criterion) {
    let (name, data) = data();
    let (lo, hi) = data
        .iter()
        .fold((f32::MAX, f32::MIN), |(l, h), &v| (l.min(v), h.max(v)));
    let bound = 1e-3 * f64::from(hi - lo);
    let mut packed = Vec::new();
    szx::compress(&data, bound, szx::DEFAULT_BLOCK, &mut packed).unwrap();
    eprintln!(
        "szx f32 {name}, {} bytes, bound 1e-3 x range ({bound:e}): {} bytes packed, ratio {:.3}",
        data.len() * 4,
        packed.len(),
        (data.len() * 4) as f64 / packed.len() as f64
    );
    let mut g = c.benchmark_group("szx");
    g.throughput(Throughput::Bytes((data.len() * 4) as u64));
    g.measurement_time(Duration::from_secs(5));
    g.bench_function("compress_f32", |b| {
        let mut out = Vec::new();
        b.iter(|| szx::compress(black_box(&data), bound, szx::DEFAULT_BLOCK, &mut out).unwrap())
    });
    g.bench_function("decompress_f32", |b| {
        let mut out: Vec<f32> = Vec::new();
        b.iter(|| szx::decompress(black_box(&packed), &mut out).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
