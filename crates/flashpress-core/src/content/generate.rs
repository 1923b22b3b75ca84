//! Generated content with a target compressibility, and its calibration against a real codec.
//!
//! A block is made the way fio's `buffer_compress_percentage` makes buffers
//! (`fill_random_buf_percentage` in fio's `lib/rand.c`): cut into chunks of
//! `buffer_compress_chunk` bytes, each holding random bytes followed by a zero fill. fio's
//! random share is `100 - percentage`, which no codec turns into exactly that ratio (headers,
//! match encoding); we instead choose the random fraction `f` so that the calibrating codec
//! reaches the target ratio. The calibration compresses generated blocks at a grid of `f` and
//! inverts the measured size curve, which is close to linear in `f`.

use crate::codec::{Codec, CodecKind};
use rand::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Content unit: every content id names one 4 KiB block.
pub const BLOCK: usize = 4096;

/// Grid points of the calibration curve (fractions 0, 1/(N-1), ..., 1).
const GRID: usize = 33;
/// Blocks generated per grid point.
const SAMPLES: u64 = 8;

/// RNG for the bytes of content `id` under run seed `seed`.
pub fn block_rng(seed: u64, id: u64, stream: u64) -> Pcg64Mcg {
    // Pcg64Mcg::seed_from_u64 expands the u64 with a PCG32, so nearby ids give unrelated
    // streams; the odd multipliers keep (seed, id, stream) triples apart.
    Pcg64Mcg::seed_from_u64(
        seed ^ id.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ stream.wrapping_mul(0xC2B2_AE3D_27D4_EB4F),
    )
}

/// Fill `out` (one block) with a random prefix of `f * chunk` bytes in each chunk and zeros
/// after it. Fractional bytes are spread over the chunks so the block holds `round(f * len)`
/// random bytes in all.
pub fn fill_block(rng: &mut Pcg64Mcg, random_fraction: f64, chunk: usize, out: &mut [u8]) {
    let f = random_fraction.clamp(0.0, 1.0);
    let total = (f * out.len() as f64).round() as usize;
    let chunks = out.len().div_ceil(chunk);
    let mut given = 0usize;
    for (i, c) in out.chunks_mut(chunk).enumerate() {
        // Cumulative share up to the end of this chunk, so the shares sum to `total`.
        let upto = ((i + 1) * total).div_ceil(chunks).min(total);
        let n = (upto - given).min(c.len());
        rng.fill_bytes(&mut c[..n]);
        c[n..].fill(0);
        given += n;
    }
}

/// How the calibrating codec's compressed size grows with the random fraction: the curve
/// inverted to turn a target ratio into a fraction.
#[derive(Debug, Clone)]
pub struct Calibration {
    /// Mean compressed bytes per 4 KiB block under the calibrating codec, at each grid point.
    calib_size: [f64; GRID],
}

/// Mean compressed bytes per 4 KiB block under a measuring codec at its granularity (raw
/// output, not capped at the unit size), at each grid point of the random fraction.
#[derive(Debug, Clone)]
pub struct SizeCurve {
    size: [f64; GRID],
}

/// Mean codec output bytes per 4 KiB block over generated units of `gran_blocks` blocks at
/// each grid point (deterministic: fixed calibration ids).
fn measure_curve(codec: CodecKind, gran_blocks: usize, chunk: usize) -> [f64; GRID] {
    let mut c = Codec::new(codec);
    let mut unit = vec![0u8; BLOCK * gran_blocks];
    let mut out = Vec::new();
    let mut size = [0.0; GRID];
    for (g, slot) in size.iter_mut().enumerate() {
        let f = g as f64 / (GRID - 1) as f64;
        let mut total = 0usize;
        for s in 0..SAMPLES {
            let mut rng = block_rng(0xCA11_B8A7E, g as u64 * 1000 + s, u64::MAX);
            for blk in unit.chunks_mut(BLOCK) {
                fill_block(&mut rng, f, chunk, blk);
            }
            total += c.compress(&unit, &mut out);
        }
        *slot = total as f64 / (SAMPLES as usize * gran_blocks) as f64;
    }
    size
}

impl Calibration {
    /// Measure the calibrating codec on single generated blocks.
    pub fn measure(calibrate: CodecKind, chunk: usize) -> Calibration {
        Calibration {
            calib_size: measure_curve(calibrate, 1, chunk),
        }
    }

    /// Random fraction at which the calibrating codec compresses a block to `4096 / ratio`
    /// bytes. Ratios above what an all-zero block reaches give 0; below what a random block
    /// reaches, 1.
    pub fn fraction_for(&self, ratio: f64) -> f64 {
        let target = BLOCK as f64 / ratio;
        let s = &self.calib_size;
        if target <= s[0] {
            return 0.0;
        }
        for g in 1..GRID {
            if target <= s[g] {
                let span = s[g] - s[g - 1];
                let t = if span > 0.0 {
                    (target - s[g - 1]) / span
                } else {
                    0.0
                };
                return (g as f64 - 1.0 + t) / (GRID - 1) as f64;
            }
        }
        1.0
    }

    /// Highest ratio the calibrating codec reaches on generated data (an all-zero block).
    pub fn max_ratio(&self) -> f64 {
        BLOCK as f64 / self.calib_size[0]
    }
}

impl SizeCurve {
    /// Measure `codec` on generated units of `gran_blocks` blocks.
    pub fn measure(codec: CodecKind, gran_blocks: usize, chunk: usize) -> SizeCurve {
        SizeCurve {
            size: measure_curve(codec, gran_blocks, chunk),
        }
    }

    /// Expected compressed bytes per block at random fraction `f` (linear between grid points).
    pub fn at(&self, f: f64) -> f64 {
        let x = f.clamp(0.0, 1.0) * (GRID - 1) as f64;
        let g = (x.floor() as usize).min(GRID - 2);
        let t = x - g as f64;
        self.size[g] * (1.0 - t) + self.size[g + 1] * t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_spreads_the_random_share_over_chunks() {
        let mut out = vec![0xAAu8; BLOCK];
        let mut rng = block_rng(1, 2, 3);
        fill_block(&mut rng, 0.25, 512, &mut out);
        // Each 512-byte chunk: 128 random bytes then 384 zeros.
        for c in out.chunks(512) {
            assert!(c[128..].iter().all(|&b| b == 0));
            assert!(c[..128].iter().filter(|&&b| b == 0).count() < 8);
        }
        fill_block(&mut rng, 0.0, 512, &mut out);
        assert!(out.iter().all(|&b| b == 0));
        fill_block(&mut rng, 1.0, 512, &mut out);
        assert!(out.iter().filter(|&&b| b == 0).count() < 64);
    }

    #[test]
    fn same_id_same_bytes_other_id_other_bytes() {
        let (mut a, mut b, mut c) = (vec![0; BLOCK], vec![0; BLOCK], vec![0; BLOCK]);
        fill_block(&mut block_rng(7, 42, 0), 0.5, 512, &mut a);
        fill_block(&mut block_rng(7, 42, 0), 0.5, 512, &mut b);
        fill_block(&mut block_rng(7, 43, 0), 0.5, 512, &mut c);
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn calibration_curve_is_monotone_and_inverts() {
        let cal = Calibration::measure(CodecKind::Lz4, 512);
        let curve = SizeCurve::measure(CodecKind::Lz4, 1, 512);
        for g in 1..GRID {
            assert!(
                cal.calib_size[g] >= cal.calib_size[g - 1],
                "{:?}",
                cal.calib_size
            );
        }
        assert!(cal.max_ratio() > 50.0, "{}", cal.max_ratio());
        for r in [1.5, 2.0, 3.0] {
            let f = cal.fraction_for(r);
            let size = curve.at(f);
            assert!(
                (BLOCK as f64 / size - r).abs() / r < 0.01,
                "r {r} f {f} size {size}"
            );
        }
        assert_eq!(cal.fraction_for(1e9), 0.0);
        assert_eq!(cal.fraction_for(0.5), 1.0);
    }
}
