//! What a (de)compression task costs the side that runs it.
//!
//! Two shapes: software on a host core (time = bytes / single-core throughput) and a hardware
//! engine in the controller (a fixed latency per engine block, `lanes` blocks in flight, a
//! power draw while busy). Defaults come from the seeds where they state a figure and are
//! marked as our assumption where they do not; every field can be overridden in a config.

use super::CodecKind;
use crate::error::Result;
use serde::{Deserialize, Serialize};

/// Cost model of one codec on one side.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum CostModel {
    /// Software on host CPU cores: one task occupies one core for bytes / throughput.
    HostCpu {
        /// Single-core compression throughput in MB/s (10^6 bytes of input per second).
        compress_mb_per_s: f64,
        /// Single-core decompression throughput in MB/s (10^6 bytes of output per second).
        decompress_mb_per_s: f64,
    },
    /// A hardware engine in the SSD controller.
    Engine {
        /// Bytes the engine handles as one unit (a task of n bytes is ceil(n / block) units).
        block_bytes: u32,
        /// Compression latency of one unit in ns.
        compress_ns: u64,
        /// Decompression latency of one unit in ns.
        decompress_ns: u64,
        /// Units processed in parallel (engine throughput = lanes x block / latency).
        lanes: u32,
        /// Power drawn while a lane is busy, in mW (energy = power x busy time).
        active_mw: f64,
    },
}

impl CostModel {
    /// Host-CPU defaults: single-core MB/s of our build of each codec on 4 KiB blocks, measured
    /// with `flashpress codec bench` (`make codec-report`) on the reference machine (a shared
    /// 2-core Xeon VM; README, "Codecs on real data"): the lower of the GCIDE dictionary and
    /// /usr/lib library figures. zstd levels 4..=9 use the zstd-9 figure and 10..=22 the
    /// zstd-19 figure (the first 8 MiB of GCIDE, one run). Run-to-run spread on that
    /// machine is about 10%. Override them with figures from your own CPU.
    pub fn host_default(kind: CodecKind) -> CostModel {
        let (c, d) = match kind {
            CodecKind::None => (f64::INFINITY, f64::INFINITY),
            CodecKind::Lz4 => (388.0, 2788.0),
            // lzokay (LZO1X-999-like search, a Read-based decoder), measured later than the
            // rest on a loaded machine and scaled by deflate-6's ratio to its figures above:
            // far slower than liblzo2's LZO1X-1 that F2FS runs.
            CodecKind::Lzo => (31.0, 237.0),
            CodecKind::Zstd(1) => (251.0, 656.0),
            CodecKind::Zstd(l) if l <= 3 => (197.0, 625.0),
            CodecKind::Zstd(l) if l <= 9 => (37.8, 686.0),
            CodecKind::Zstd(_) => (6.8, 676.0),
            CodecKind::Deflate(_) | CodecKind::Zlib(_) => (39.0, 215.0),
            CodecKind::Dpc => (881.0, 5894.0),
            CodecKind::Fpc => (572.0, 1203.0),
            CodecKind::Bdi => (423.0, 2479.0),
        };
        CostModel::HostCpu {
            compress_mb_per_s: c,
            decompress_mb_per_s: d,
        }
    }

    /// Engine defaults, from the seeds:
    /// - DPC: 340 ns compress, 38 ns decompress per 16 KiB page at 400 MHz (PR-SSD §4.2);
    /// - LZ4: 12 us per 16 KiB page each way, i.e. 11 Gbit/s (PR-SSD §5.1, its ref. \[38\]);
    /// - FPC, BDI: 1 ns per page, memory-compression latency (PR-SSD §5.1, ref. \[15\]);
    /// - zlib/deflate: about 10 us per 4 KiB chunk (Waltz §2.2, the CCSD's ASIC); the seed
    ///   gives no decompression figure, so we use the same 10 us;
    /// - zstd: no seed builds it in hardware; we use the zlib engine's figures;
    /// - LZO: no seed builds it in hardware; we use the LZ4 engine's figures.
    ///
    /// The seeds give no engine power and no lane count: `lanes` is 1 except the CCSD zlib
    /// engine (8, our assumption so that it keeps up with a PCIe 3 x4 link), and `active_mw`
    /// is our assumption (1 W for the zlib/zstd engine, 0.1 W for the lighter engines).
    pub fn engine_default(kind: CodecKind) -> CostModel {
        let (block_bytes, c, d, lanes, mw) = match kind {
            CodecKind::None => (4096, 0, 0, 1, 0.0),
            CodecKind::Dpc => (16384, 340, 38, 1, 100.0),
            CodecKind::Lz4 | CodecKind::Lzo => (16384, 12_000, 12_000, 1, 100.0),
            CodecKind::Fpc | CodecKind::Bdi => (16384, 1, 1, 1, 100.0),
            CodecKind::Deflate(_) | CodecKind::Zlib(_) | CodecKind::Zstd(_) => {
                (4096, 10_000, 10_000, 8, 1000.0)
            }
        };
        CostModel::Engine {
            block_bytes,
            compress_ns: c,
            decompress_ns: d,
            lanes,
            active_mw: mw,
        }
    }

    /// Busy time in ns of one core or one engine lane to compress `bytes`.
    pub fn compress_ns(&self, bytes: u64) -> u64 {
        match *self {
            CostModel::HostCpu {
                compress_mb_per_s, ..
            } => mb_per_s_to_ns(bytes, compress_mb_per_s),
            CostModel::Engine {
                block_bytes,
                compress_ns,
                ..
            } => bytes
                .div_ceil(block_bytes as u64)
                .saturating_mul(compress_ns),
        }
    }

    /// Busy time in ns of one core or one engine lane to decompress to `bytes`.
    pub fn decompress_ns(&self, bytes: u64) -> u64 {
        match *self {
            CostModel::HostCpu {
                decompress_mb_per_s,
                ..
            } => mb_per_s_to_ns(bytes, decompress_mb_per_s),
            CostModel::Engine {
                block_bytes,
                decompress_ns,
                ..
            } => bytes
                .div_ceil(block_bytes as u64)
                .saturating_mul(decompress_ns),
        }
    }

    /// [`CostModel::compress_ns`] on host cores scaled by `factor` (see
    /// [`generated_content_factor`]); an engine's fixed latency is not scaled.
    pub fn compress_ns_scaled(&self, bytes: u64, factor: f64) -> u64 {
        match *self {
            CostModel::HostCpu {
                compress_mb_per_s, ..
            } => mb_per_s_to_ns(bytes, compress_mb_per_s / factor),
            CostModel::Engine { .. } => self.compress_ns(bytes),
        }
    }

    /// [`CostModel::decompress_ns`] on host cores scaled by `factor`.
    pub fn decompress_ns_scaled(&self, bytes: u64, factor: f64) -> u64 {
        match *self {
            CostModel::HostCpu {
                decompress_mb_per_s,
                ..
            } => mb_per_s_to_ns(bytes, decompress_mb_per_s / factor),
            CostModel::Engine { .. } => self.decompress_ns(bytes),
        }
    }

    /// Engine energy in pJ for `busy_ns` of lane time (0 for host CPU, whose energy is the
    /// host's CPU power model, not the codec's).
    pub fn energy_pj(&self, busy_ns: u64) -> u64 {
        match *self {
            CostModel::HostCpu { .. } => 0,
            // mW x ns = 1e-3 W x 1e-9 s = 1e-12 J = 1 pJ.
            CostModel::Engine { active_mw, .. } => (active_mw * busy_ns as f64).round() as u64,
        }
    }

    /// Check the fields; `key` is the dotted config path for the error.
    pub fn validate(&self, src: &str, key: &str) -> Result<()> {
        crate::config::ranges::check_value(self, key, src)
    }
}

/// Compression ratios of the generated-content rows of [`RATIO_COST`].
const RATIO_GRID: [f64; 7] = [1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0];

/// Instructions per input byte of a host codec: on real text, where the MB/s defaults were
/// measured, and on generated content at each ratio of [`RATIO_GRID`].
struct RatioCost {
    /// (compress, decompress) on the GCIDE dictionary text.
    text: (f64, f64),
    compress: [f64; 7],
    decompress: [f64; 7],
}

/// `benchmarks/codec_speed_by_ratio.sh` (valgrind's callgrind, so independent of other load;
/// 8 MiB in 16 KiB clusters; generated content as the content model makes it, fio-style
/// 512-byte chunks of random bytes and zeros, calibrated per codec to the ratio). Generated
/// content is cheaper than text: its zero runs compress and decompress as long matches or
/// runs and its random prefixes as literals the codec gives up on quickly; compression costs
/// most at ratios 1.5-2 (every position of a random prefix is hashed and tried) and falls
/// as the zero share grows.
fn ratio_cost(kind: CodecKind) -> Option<RatioCost> {
    Some(match kind {
        CodecKind::Lz4 => RatioCost {
            text: (13.11, 4.44),
            compress: [3.55, 8.44, 7.49, 6.35, 5.62, 4.89, 4.31],
            decompress: [0.23, 0.53, 0.51, 0.53, 0.52, 0.53, 0.42],
        },
        CodecKind::Zstd(1) => RatioCost {
            text: (38.48, 15.53),
            compress: [11.23, 20.98, 20.39, 15.49, 12.87, 9.95, 8.76],
            decompress: [1.03, 0.83, 0.91, 1.00, 0.91, 0.92, 1.06],
        },
        CodecKind::Zstd(l) if l <= 3 => RatioCost {
            text: (50.12, 17.52),
            compress: [10.64, 33.79, 29.30, 22.14, 17.64, 13.47, 10.80],
            decompress: [1.03, 0.83, 0.87, 0.92, 0.94, 0.96, 0.97],
        },
        CodecKind::Deflate(_) | CodecKind::Zlib(_) => RatioCost {
            text: (137.14, 18.73),
            compress: [95.85, 157.55, 139.87, 126.14, 123.05, 116.12, 113.31],
            decompress: [1.03, 20.53, 16.65, 12.95, 11.22, 9.48, 8.63],
        },
        _ => return None,
    })
}

/// Factors (compress, decompress) by which host time on generated content at `ratio` differs
/// from the codec's MB/s: instructions per byte at that ratio (linear between the measured
/// ratios, clamped to 1..8) over instructions per byte on the text the MB/s were measured on.
/// (1, 1) for codecs without a table (zstd levels above 3, lzo, dpc, fpc, bdi, none).
pub fn generated_content_factor(kind: CodecKind, ratio: f64) -> (f64, f64) {
    let Some(t) = ratio_cost(kind) else {
        return (1.0, 1.0);
    };
    let r = if ratio.is_nan() {
        1.0
    } else {
        ratio.clamp(RATIO_GRID[0], RATIO_GRID[6])
    };
    let k = RATIO_GRID[1..].iter().position(|&g| r <= g).unwrap_or(5);
    let w = (r - RATIO_GRID[k]) / (RATIO_GRID[k + 1] - RATIO_GRID[k]);
    let at = |v: &[f64; 7]| v[k] + w * (v[k + 1] - v[k]);
    (at(&t.compress) / t.text.0, at(&t.decompress) / t.text.1)
}

fn mb_per_s_to_ns(bytes: u64, mb_per_s: f64) -> u64 {
    // bytes / (mb_per_s * 1e6 B/s) seconds = bytes * 1e3 / mb_per_s ns.
    (bytes as f64 * 1e3 / mb_per_s).ceil() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_content_factor_interpolates_the_measured_table() {
        let z = CodecKind::Zstd(3);
        // At a grid ratio: the measured instructions over the text's.
        let (c2, d2) = generated_content_factor(z, 2.0);
        assert!((c2 - 29.30 / 50.12).abs() < 1e-12 && (d2 - 0.87 / 17.52).abs() < 1e-12);
        // Halfway between 3 and 4: the mean of the two rows.
        let (c35, _) = generated_content_factor(z, 3.5);
        assert!((c35 - (22.14 + 17.64) / 2.0 / 50.12).abs() < 1e-12);
        // Clamped to the grid, NaN taken as incompressible.
        assert_eq!(
            generated_content_factor(z, 100.0),
            generated_content_factor(z, 8.0)
        );
        assert_eq!(
            generated_content_factor(z, 0.5),
            generated_content_factor(z, 1.0)
        );
        assert_eq!(
            generated_content_factor(z, f64::NAN),
            generated_content_factor(z, 1.0)
        );
        // More compressible generated data compresses faster beyond ratio 1.5.
        for codec in [CodecKind::Lz4, CodecKind::Zstd(1), z, CodecKind::Deflate(6)] {
            let c: Vec<f64> = [1.5, 2.0, 3.0, 4.0, 6.0, 8.0]
                .iter()
                .map(|&r| generated_content_factor(codec, r).0)
                .collect();
            assert!(c.windows(2).all(|w| w[1] <= w[0]), "{codec}: {c:?}");
        }
        // No table: no scaling.
        assert_eq!(
            generated_content_factor(CodecKind::Zstd(19), 4.0),
            (1.0, 1.0)
        );
        assert_eq!(generated_content_factor(CodecKind::Dpc, 4.0), (1.0, 1.0));
        // Scaled host time is the unscaled time times the factor; engines are not scaled.
        let host = CostModel::host_default(z);
        let t = host.compress_ns(16384) as f64;
        assert!((host.compress_ns_scaled(16384, 0.5) as f64 - t * 0.5).abs() <= 1.0);
        let eng = CostModel::engine_default(CodecKind::Zlib(6));
        assert_eq!(eng.decompress_ns_scaled(4096, 0.1), eng.decompress_ns(4096));
    }

    #[test]
    fn engine_costs_follow_the_seeds() {
        let dpc = CostModel::engine_default(CodecKind::Dpc);
        assert_eq!(dpc.compress_ns(16384), 340);
        assert_eq!(dpc.decompress_ns(16384), 38);
        // LZ4 engine: 16 KiB at 11 Gbit/s is 11.9 us; the seed rounds to 12 us.
        let lz4 = CostModel::engine_default(CodecKind::Lz4);
        let at_11_gbit = 16384.0 * 8.0 / 11e9 * 1e9;
        assert!((lz4.decompress_ns(16384) as f64 - at_11_gbit).abs() / at_11_gbit < 0.01);
        // zlib CCSD: 10 us per 4 KiB chunk, so a 128 KiB write is 32 chunks.
        let zlib = CostModel::engine_default(CodecKind::Zlib(6));
        assert_eq!(zlib.compress_ns(131072), 32 * 10_000);
        assert_eq!(zlib.compress_ns(1), 10_000);
    }

    #[test]
    fn host_time_is_bytes_over_throughput_and_energy_is_power_times_time() {
        let m = CostModel::HostCpu {
            compress_mb_per_s: 500.0,
            decompress_mb_per_s: 2000.0,
        };
        assert_eq!(m.compress_ns(4096), 8192); // 4096 B / 500e6 B/s = 8.192 us
        assert_eq!(m.decompress_ns(4096), 2048);
        assert_eq!(m.energy_pj(1000), 0);
        let e = CostModel::engine_default(CodecKind::Zlib(6));
        assert_eq!(e.energy_pj(10_000), 10_000_000); // 1 W for 10 us = 10 uJ
    }

    #[test]
    fn bad_fields_name_their_key() {
        let m = CostModel::HostCpu {
            compress_mb_per_s: 0.0,
            decompress_mb_per_s: 1.0,
        };
        let e = m.validate("x.toml", "content.cost").unwrap_err();
        assert!(
            e.to_string().contains("content.cost.compress_mb_per_s"),
            "{e}"
        );
        let m = CostModel::Engine {
            block_bytes: 4096,
            compress_ns: 1,
            decompress_ns: 1,
            lanes: 0,
            active_mw: 1.0,
        };
        assert!(m
            .validate("x", "stack.ccsd.cost")
            .unwrap_err()
            .to_string()
            .contains("stack.ccsd.cost.lanes`: expected 1 to 1024"));
    }
}
