//! What the content model costs per written 4 KiB block: model mode (sizes off the
//! calibration curve) against bytes mode (generate the bytes, run the codec), and the
//! start-up calibration. Run: `cargo bench -p flashpress-core --bench content`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use flashpress_core::config::{ContentConfig, ContentMode, RatioDist};
use flashpress_core::content::ContentModel;
use flashpress_core::workload::ContentHints;
use std::hint::black_box;
use std::time::Duration;

fn config(mode: ContentMode, codec: &str) -> ContentConfig {
    ContentConfig {
        mode,
        codec: codec.parse().unwrap(),
        ratio: RatioDist::Uniform { min: 1.0, max: 4.0 },
        ..ContentConfig::default()
    }
}

fn per_block(c: &mut Criterion) {
    let mut g = c.benchmark_group("content_per_4k_write");
    g.throughput(Throughput::Elements(1));
    for (mode, codec) in [
        (ContentMode::Model, "lz4"),
        (ContentMode::Bytes, "lz4"),
        (ContentMode::Bytes, "zstd-3"),
        (ContentMode::Bytes, "dpc"),
    ] {
        let mut m = ContentModel::from_content_config(
            &config(mode, codec),
            1,
            &[ContentHints::default()],
            "bench",
        )
        .unwrap()
        .unwrap();
        // Fresh ids every write, so bytes mode never hits its cache.
        let mut id = 1u64;
        g.bench_function(format!("{mode:?}/{codec}").to_lowercase(), |b| {
            b.iter(|| {
                m.on_write(0, black_box(id * 4096 % (1 << 34)), 4096, id);
                id += 1;
            })
        });
    }
    g.finish();
}

fn calibration(c: &mut Criterion) {
    let mut g = c.benchmark_group("content_setup");
    g.sample_size(10);
    for codec in ["lz4", "zstd-3"] {
        let cfg = ContentConfig {
            calibrate: codec.parse().unwrap(),
            ..config(ContentMode::Model, codec)
        };
        g.bench_function(format!("calibrate/{codec}"), |b| {
            b.iter(|| {
                ContentModel::from_content_config(&cfg, 1, &[ContentHints::default()], "bench")
                    .unwrap()
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = per_block, calibration
}
criterion_main!(benches);
