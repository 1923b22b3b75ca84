//! An SZx-style error-bounded lossy codec for `f32` and `f64` arrays (after Yu et al., "SZx: an
//! Ultra-fast Error-bounded Lossy Compressor for Scientific Datasets", HPDC 2022).
//!
//! The data is cut into fixed-size blocks. A block whose values all lie within the bound of
//! the middle of their range is *constant*: one value stands for all of them. Otherwise each
//! value's distance from that middle is kept with only as many leading bits as the bound needs
//! (sign, exponent and `m` mantissa bits, where `2^(e_radius - m) <= bound`), stored as whole
//! bytes, with the leading bytes it shares with the previous value left out (a 2-bit count per
//! value). Every value is reconstructed as the decoder will as it is written and checked
//! against the bound;
//! a block the floating-point addition of the middle would push past the bound is stored as
//! it is, so the bound holds for every value, not only in exact arithmetic.
//!
//! Stream: `b"SZX1"`, the value width (4 or 8), the block size (`u16`), the value count (`u64`)
//! and the bound (`f64`), all little-endian; then per block a kind byte (0 constant, 1
//! truncated, 2 raw) and its payload: constant, the value; truncated, the middle value, the
//! bytes kept per value, the 2-bit counts (packed, four to a byte) and the kept bytes; raw,
//! the values.

use crate::error::{Error, Result};

/// Values per block (SZx's default block size is 128).
pub const DEFAULT_BLOCK: usize = 128;
const MAGIC: &[u8; 4] = b"SZX1";
const HEADER: usize = 4 + 1 + 2 + 8 + 8;

/// A float type the codec handles.
pub trait Float: Copy + PartialOrd + std::fmt::Debug + 'static {
    /// Bytes per value.
    const BYTES: usize;
    /// Bits of sign and exponent.
    const HEAD_BITS: u32;
    /// Explicit mantissa bits.
    const MANTISSA: u32;
    fn to_f64(self) -> f64;
    fn from_f64(x: f64) -> Self;
    /// The value's bits, big-endian in the low `BYTES` bytes of a `u64`.
    fn bits(self) -> u64;
    fn from_bits(b: u64) -> Self;
    fn is_finite(self) -> bool;
    fn write_le(self, out: &mut Vec<u8>);
    fn read_le(b: &[u8]) -> Self;
}

impl Float for f32 {
    const BYTES: usize = 4;
    const HEAD_BITS: u32 = 9;
    const MANTISSA: u32 = 23;
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
    fn from_bits(b: u64) -> Self {
        f32::from_bits(b as u32)
    }
    fn is_finite(self) -> bool {
        f32::is_finite(self)
    }
    fn write_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn read_le(b: &[u8]) -> Self {
        f32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
}

impl Float for f64 {
    const BYTES: usize = 8;
    const HEAD_BITS: u32 = 12;
    const MANTISSA: u32 = 52;
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(x: f64) -> Self {
        x
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn from_bits(b: u64) -> Self {
        f64::from_bits(b)
    }
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }
    fn write_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn read_le(b: &[u8]) -> Self {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[..8]);
        f64::from_le_bytes(a)
    }
}

/// `floor(log2(x))` for a positive finite `x` (from the exponent bits; subnormals counted
/// from their leading bit).
fn exponent(x: f64) -> i32 {
    debug_assert!(x > 0.0 && x.is_finite());
    let b = x.to_bits();
    let e = ((b >> 52) & 0x7ff) as i32;
    if e == 0 {
        // Subnormal: 2^-1074 * mantissa.
        let m = b & ((1u64 << 52) - 1);
        -1074 + (63 - m.leading_zeros() as i32)
    } else {
        e - 1023
    }
}

/// Compress `data` so that every decoded value is within `bound` (absolute, > 0) of the
/// original. Values must be finite (a fill policy masks NaN and infinities before this).
pub fn compress<T: Float>(data: &[T], bound: f64, block: usize, out: &mut Vec<u8>) -> Result<()> {
    if !(bound > 0.0 && bound.is_finite()) {
        return Err(Error::config(
            "szx",
            "bound",
            format!("expected a positive finite error bound, got {bound}"),
        ));
    }
    if block == 0 || block > usize::from(u16::MAX) {
        return Err(Error::config(
            "szx",
            "block",
            format!("expected a block size in 1..=65535, got {block}"),
        ));
    }
    if let Some(i) = data.iter().position(|x| !x.is_finite()) {
        return Err(Error::config(
            "szx",
            "data",
            format!(
                "value {i} is {:?}: NaN and infinities need a fill policy before compression",
                data[i]
            ),
        ));
    }
    out.clear();
    out.extend_from_slice(MAGIC);
    out.push(T::BYTES as u8);
    out.extend_from_slice(&(block as u16).to_le_bytes());
    out.extend_from_slice(&(data.len() as u64).to_le_bytes());
    out.extend_from_slice(&bound.to_le_bytes());
    let eb_exp = exponent(bound);
    for chunk in data.chunks(block) {
        let (mut lo, mut hi) = (chunk[0].to_f64(), chunk[0].to_f64());
        for x in chunk {
            // Finite values (checked above): plain comparisons, no NaN handling.
            let v = x.to_f64();
            if v < lo {
                lo = v;
            }
            if v > hi {
                hi = v;
            }
        }
        let radius = (hi - lo) / 2.0;
        let mid = T::from_f64(lo + radius);
        let m = mid.to_f64();
        // The extremes are the farthest values from the middle.
        if (hi - m).abs() <= bound && (m - lo).abs() <= bound {
            out.push(0);
            mid.write_le(out);
            continue;
        }
        let start = out.len();
        if !encode_block(chunk, mid, radius, eb_exp, bound, out) {
            out.truncate(start);
            out.push(2);
            for &x in chunk {
                x.write_le(out);
            }
        }
    }
    Ok(())
}

/// A non-constant block: middle value, kept bytes per value, 2-bit shared-byte counts, kept
/// bytes. Each value is reconstructed as the decoder will and checked against `bound`;
/// returns false (the block must be stored raw) when one is not within it.
fn encode_block<T: Float>(
    chunk: &[T],
    mid: T,
    radius: f64,
    eb_exp: i32,
    bound: f64,
    out: &mut Vec<u8>,
) -> bool {
    let rad_exp = if radius > 0.0 {
        exponent(radius)
    } else {
        eb_exp
    };
    let mant = (rad_exp - eb_exp).clamp(0, T::MANTISSA as i32) as u32;
    let keep_bits = T::HEAD_BITS + mant;
    let keep = keep_bits.div_ceil(8) as usize;
    let width = 8 * T::BYTES as u32;
    let mask: u64 = if keep_bits >= width {
        u64::MAX >> (64 - width)
    } else {
        (u64::MAX >> (64 - width)) & !((1u64 << (width - keep_bits)) - 1)
    };
    out.push(1);
    mid.write_le(out);
    out.push(keep as u8);
    let codes_at = out.len();
    // Room for the worst case, written by index and cut to what was used.
    let data_at = codes_at + chunk.len().div_ceil(4);
    out.resize(data_at + chunk.len() * keep + 8, 0);
    let (codes, data) = out[codes_at..].split_at_mut(data_at - codes_at);
    let m = mid.to_f64();
    // The kept bits left-aligned in a u64, so byte k of the value is byte k of its
    // big-endian form.
    let align = 64 - 8 * T::BYTES as u32;
    let max_lead = keep.min(3) as u32;
    let mut prev: u64 = 0;
    let mut at = 0usize;
    for (i, &x) in chunk.iter().enumerate() {
        let d = T::from_f64(x.to_f64() - m);
        let t = d.bits() & mask;
        // What the decoder makes of it.
        let back = T::from_f64(m + T::from_bits(t).to_f64());
        if (x.to_f64() - back.to_f64()).abs() > bound {
            return false; // the caller stores the block raw
        }
        let cur = t << align;
        let lead = ((cur ^ prev).leading_zeros() / 8).min(max_lead) as usize;
        codes[i / 4] |= (lead as u8) << (2 * (i % 4));
        // Bytes lead..keep, written as one 8-byte store (the buffer has 8 bytes of slack).
        data[at..at + 8].copy_from_slice(&(cur << (8 * lead)).to_be_bytes());
        at += keep - lead;
        prev = cur;
    }
    out.truncate(data_at + at);
    true
}

fn decode_block<T: Float>(b: &[u8], pos: &mut usize, n: usize, out: &mut Vec<T>) -> Result<()> {
    let bad = |what: &str| Error::Codec {
        codec: "szx".into(),
        msg: format!("truncated or corrupt stream ({what})"),
    };
    let kind = *b.get(*pos).ok_or_else(|| bad("block kind"))?;
    *pos += 1;
    let take = |pos: &mut usize, k: usize| -> Result<&[u8]> {
        let s = b.get(*pos..*pos + k).ok_or_else(|| bad("block payload"))?;
        *pos += k;
        Ok(s)
    };
    match kind {
        0 => {
            let v = T::read_le(take(pos, T::BYTES)?);
            out.extend(std::iter::repeat_n(v, n));
        }
        1 => {
            let m = T::read_le(take(pos, T::BYTES)?).to_f64();
            let keep = usize::from(take(pos, 1)?[0]);
            if keep == 0 || keep > T::BYTES {
                return Err(bad("kept bytes"));
            }
            let codes = take(pos, n.div_ceil(4))?;
            let lead_of = |i: usize| usize::from((codes[i / 4] >> (2 * (i % 4))) & 3);
            let mut total = 0usize;
            for i in 0..n {
                let lead = lead_of(i);
                if lead > keep {
                    return Err(bad("shared bytes"));
                }
                total += keep - lead;
            }
            // The kept bytes, with 8 bytes of slack so each value is one 8-byte load.
            let mut buf = Vec::with_capacity(total + 8);
            buf.extend_from_slice(take(pos, total)?);
            buf.extend_from_slice(&[0u8; 8]);
            let align = 64 - 8 * T::BYTES as u32;
            let keep_mask = u64::MAX << (64 - 8 * keep as u32);
            let mut prev: u64 = 0;
            let mut at = 0usize;
            for i in 0..n {
                let lead = lead_of(i);
                let mut w = [0u8; 8];
                w.copy_from_slice(&buf[at..at + 8]);
                let fresh = u64::from_be_bytes(w) >> (8 * lead);
                let shared = if lead == 0 {
                    0
                } else {
                    prev & (u64::MAX << (64 - 8 * lead))
                };
                let cur = (shared | fresh) & keep_mask;
                at += keep - lead;
                out.push(T::from_f64(m + T::from_bits(cur >> align).to_f64()));
                prev = cur;
            }
        }
        2 => {
            let raw = take(pos, n * T::BYTES)?;
            out.extend(raw.chunks_exact(T::BYTES).map(T::read_le));
        }
        _ => return Err(bad("unknown block kind")),
    }
    Ok(())
}

/// Decode a stream [`compress`] wrote for values of type `T`.
pub fn decompress<T: Float>(b: &[u8], out: &mut Vec<T>) -> Result<()> {
    let bad = |msg: String| Error::Codec {
        codec: "szx".into(),
        msg,
    };
    if b.len() < HEADER || &b[..4] != MAGIC {
        return Err(bad("not an SZx stream (no `SZX1` header)".into()));
    }
    if usize::from(b[4]) != T::BYTES {
        return Err(bad(format!(
            "the stream holds {}-byte values, asked for {}-byte ones",
            b[4],
            T::BYTES
        )));
    }
    let block = usize::from(u16::from_le_bytes([b[5], b[6]]));
    let mut n8 = [0u8; 8];
    n8.copy_from_slice(&b[7..15]);
    let n = u64::from_le_bytes(n8) as usize;
    if block == 0 || n > (b.len() - HEADER).saturating_mul(4 * block) {
        return Err(bad(format!(
            "a header of {n} values in blocks of {block} does not fit {} bytes",
            b.len()
        )));
    }
    out.clear();
    out.reserve(n);
    let mut pos = HEADER;
    let mut left = n;
    while left > 0 {
        let k = left.min(block);
        decode_block(b, &mut pos, k, out)?;
        left -= k;
    }
    if pos != b.len() {
        return Err(bad(format!("{} bytes after the last block", b.len() - pos)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn roundtrip<T: Float>(data: &[T], bound: f64, block: usize) -> (Vec<T>, usize) {
        let mut packed = Vec::new();
        compress(data, bound, block, &mut packed).unwrap();
        let mut back: Vec<T> = Vec::new();
        decompress(&packed, &mut back).unwrap();
        assert_eq!(back.len(), data.len());
        for (i, (a, b)) in data.iter().zip(&back).enumerate() {
            let e = (a.to_f64() - b.to_f64()).abs();
            assert!(e <= bound, "value {i}: {a:?} -> {b:?}, error {e} > {bound}");
        }
        (back, packed.len())
    }

    #[test]
    fn smooth_data_compresses_within_the_bound() {
        let data: Vec<f32> = (0..100_000)
            .map(|i| ((i as f32) * 0.001).sin() * 100.0)
            .collect();
        // 1e-2 on a range of 200: 18 bits kept of 32 (3 bytes), the exponent byte mostly
        // shared with the previous value.
        let (_, n) = roundtrip(&data, 1e-2, DEFAULT_BLOCK);
        let ratio = (data.len() * 4) as f64 / n as f64;
        assert!(ratio > 1.7, "ratio {ratio}");
        // A looser bound compresses more.
        let (_, m) = roundtrip(&data, 1.0, DEFAULT_BLOCK);
        assert!(m < n);
    }

    #[test]
    fn constant_blocks_take_one_value() {
        let data = vec![3.5f64; 1280];
        let (back, n) = roundtrip(&data, 1e-9, 128);
        assert_eq!(back, data);
        assert_eq!(n, HEADER + 10 * (1 + 8));
    }

    #[test]
    fn bad_input_is_named() {
        let mut out = Vec::new();
        let e = compress(&[1.0f32, f32::NAN], 0.1, 128, &mut out).unwrap_err();
        assert!(e.to_string().contains("value 1"), "{e}");
        assert!(compress(&[1.0f32], 0.0, 128, &mut out)
            .unwrap_err()
            .to_string()
            .contains("positive"));
        assert!(compress(&[1.0f32], -1.0, 128, &mut out).is_err());
        assert!(compress(&[1.0f32], 0.1, 0, &mut out).is_err());
        compress(&[1.0f32, 2.0], 0.1, 128, &mut out).unwrap();
        let mut back: Vec<f64> = Vec::new();
        assert!(decompress(&out, &mut back)
            .unwrap_err()
            .to_string()
            .contains("4-byte values"));
        let mut back32: Vec<f32> = Vec::new();
        for cut in 0..out.len() {
            assert!(
                decompress(&out[..cut], &mut back32).is_err(),
                "cut at {cut}"
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn every_value_is_within_the_bound_f32(
            data in proptest::collection::vec(-1e6f32..1e6, 1..600),
            exp in -8i32..4,
            block in 1usize..300,
        ) {
            roundtrip(&data, 10f64.powi(exp), block);
        }

        #[test]
        fn every_value_is_within_the_bound_f64(
            data in proptest::collection::vec(proptest::num::f64::NORMAL | proptest::num::f64::SUBNORMAL | proptest::num::f64::ZERO, 1..400),
            exp in -300i32..300,
            block in 1usize..300,
        ) {
            roundtrip(&data, 10f64.powi(exp), block);
        }

        #[test]
        fn corrupt_streams_give_errors_not_panics(
            data in proptest::collection::vec(-1e3f32..1e3, 1..200),
            flips in proptest::collection::vec((0usize..4000, any::<u8>()), 1..8),
        ) {
            let mut packed = Vec::new();
            compress(&data, 1e-2, 64, &mut packed).unwrap();
            for (i, x) in flips {
                let j = i % packed.len();
                packed[j] ^= x;
            }
            let mut back: Vec<f32> = Vec::new();
            let _ = decompress(&packed, &mut back);
        }
    }
}
