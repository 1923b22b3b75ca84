//! An SZx-style error-bounded lossy codec for `f32` and `f64` arrays (after Yu et al., "SZx: an
//! Ultra-fast Error-bounded Lossy Compressor for Scientific Datasets", HPDC 2022).
//!
//! The data is cut into fixed-size blocks. A block whose values all lie within the bound of
//! the middle of their range is *constant*: one value stands for all of them. Otherwise each
//! value's distance from that middle is kept with only as many leading bits as the bound needs
//! (sign, exponent and `m` mantissa bits, where `2^(e_radius - m) <= bound`), stored as whole
//! bytes, with the leading bytes it shares with the previous value left out (a 2-bit count per
//! value). Every value is reconstructed as the decoder will as it is written and checked
//! against the bound (in the value's own type against a threshold a little under the bound
//! that provably implies it, see [`Float::sure_bound`]; exactly, in `f64`, for a block where
//! that does not settle it); a block the floating-point addition of the middle would push
//! past the bound, or that would not be smaller than the values, is stored as it is, so the
//! bound holds for every value, not only in exact arithmetic.
//!
//! Speed (`f32` on x86-64): min/max and the finiteness check with SSE2, and, after a run-time
//! SSSE3 check, each group of 4 values truncated, checked, counted and written with one
//! `pshufb` (and read back with one `pshufb` and three shifted blends); other types and CPUs
//! take portable code that writes the same bytes.
//!
//! Stream: `b"SZX1"`, the value width (4 or 8), the block size (`u16`), the value count (`u64`)
//! and the bound (`f64`), all little-endian; then per block a kind byte (0 constant, 1
//! truncated, 2 raw) and its payload: constant, the value; truncated, the middle value, the
//! bytes kept per value, the 2-bit counts (packed, four to a byte) and the kept bytes; raw,
//! the values.

use crate::error::{Error, Result};
use std::ops::{Add, BitAnd, BitOr, BitXor, Shl, Shr, Sub};

/// Values per block (SZx's default block size is 128).
pub const DEFAULT_BLOCK: usize = 128;
const MAGIC: &[u8; 4] = b"SZX1";
const HEADER: usize = 4 + 1 + 2 + 8 + 8;

/// The unsigned integer holding a [`Float`]'s bits (`u32` for `f32`, `u64` for `f64`).
pub trait Word:
    Copy
    + Ord
    + std::fmt::Debug
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
    + Add<Output = Self>
    + 'static
{
    const ZERO: Self;
    const ONE: Self;
    /// All bits set.
    const ALL: Self;
    fn leading_zeros(self) -> u32;
    /// Writes the big-endian bytes to the front of `dst` (at least `BYTES` long).
    fn store_be(self, dst: &mut [u8]);
    /// Reads big-endian bytes from the front of `src` (at least `BYTES` long).
    fn load_be(src: &[u8]) -> Self;
}

macro_rules! word {
    ($t:ty, $n:literal) => {
        impl Word for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const ALL: Self = <$t>::MAX;
            #[inline(always)]
            fn leading_zeros(self) -> u32 {
                <$t>::leading_zeros(self)
            }
            #[inline(always)]
            fn store_be(self, dst: &mut [u8]) {
                dst[..$n].copy_from_slice(&self.to_be_bytes());
            }
            #[inline(always)]
            fn load_be(src: &[u8]) -> Self {
                let mut a = [0u8; $n];
                a.copy_from_slice(&src[..$n]);
                <$t>::from_be_bytes(a)
            }
        }
    };
}
word!(u32, 4);
word!(u64, 8);

/// A float type the codec handles. Arithmetic is the type's own: for `f32`, a sum or
/// difference rounded once to `f32` equals the `f64` one rounded to `f32` (53 >= 2 * 24 + 2,
/// so the double rounding is innocuous), so working in `f32` changes no bit of the stream.
pub trait Float:
    Copy + PartialOrd + std::fmt::Debug + Add<Output = Self> + Sub<Output = Self> + 'static
{
    /// The value's bits as an unsigned integer.
    type Bits: Word;
    /// Bytes per value.
    const BYTES: usize;
    /// Bits of sign and exponent.
    const HEAD_BITS: u32;
    /// Explicit mantissa bits.
    const MANTISSA: u32;
    /// Every bit but the sign.
    const ABS: Self::Bits;
    /// The lowest exponent bit: `(bits & ABS) + EXP_ONE` carries into the sign bit exactly
    /// when the exponent is all ones (an infinity or NaN).
    const EXP_ONE: Self::Bits;
    /// The sign bit.
    const SIGN: Self::Bits;
    fn to_f64(self) -> f64;
    fn from_f64(x: f64) -> Self;
    fn to_word(self) -> Self::Bits;
    fn from_word(b: Self::Bits) -> Self;
    fn abs(self) -> Self;
    fn is_finite(self) -> bool;
    fn write_le(self, out: &mut Vec<u8>);
    fn read_le(b: &[u8]) -> Self;
    /// A threshold `t` such that `|x - y| <= t` computed in `Self` (rounded) implies
    /// `|x - y| <= bound` computed in `f64`, the codec's guarantee.
    fn sure_bound(bound: f64) -> Self;
    /// The minimum and maximum of a non-empty block, and whether every value is finite
    /// (with a NaN the extremes are meaningless, but the flag is then false).
    fn scan(chunk: &[Self]) -> (Self, Self, bool) {
        min_max(chunk)
    }
    /// A vector kernel for a block's codes and kept bytes, when the type and the CPU have
    /// one: the same output as the portable code (kept bytes' length, and whether every
    /// value came back within `sure`), or `None`.
    #[allow(clippy::too_many_arguments)]
    fn encode_kernel(
        _chunk: &[Self],
        _mid: Self,
        _keep: usize,
        _mask: Self::Bits,
        _th: [Self::Bits; 3],
        _sure: Self,
        _codes: &mut [u8],
        _bytes: &mut [u8],
    ) -> Option<(usize, bool)> {
        None
    }
    /// A vector kernel decoding a block's `n` values (`codes` validated, `src` its kept
    /// bytes and 16 more) onto `out`, when the type and the CPU have one; false if not.
    fn decode_kernel(
        _src: &[u8],
        _codes: &[u8],
        _n: usize,
        _keep: usize,
        _mid: Self,
        _out: &mut Vec<Self>,
    ) -> bool {
        false
    }
}

impl Float for f32 {
    type Bits = u32;
    const BYTES: usize = 4;
    const HEAD_BITS: u32 = 9;
    const MANTISSA: u32 = 23;
    const ABS: u32 = 0x7fff_ffff;
    const EXP_ONE: u32 = 1 << 23;
    const SIGN: u32 = 1 << 31;
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    #[inline(always)]
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    #[inline(always)]
    fn to_word(self) -> u32 {
        self.to_bits()
    }
    #[inline(always)]
    fn from_word(b: u32) -> Self {
        f32::from_bits(b)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f32::abs(self)
    }
    fn is_finite(self) -> bool {
        f32::is_finite(self)
    }
    fn write_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    #[inline(always)]
    fn read_le(b: &[u8]) -> Self {
        f32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
    #[cfg(target_arch = "x86_64")]
    fn scan(chunk: &[Self]) -> (Self, Self, bool) {
        sse2::scan_f32(chunk)
    }
    #[cfg(target_arch = "x86_64")]
    fn encode_kernel(
        chunk: &[Self],
        mid: Self,
        keep: usize,
        mask: u32,
        th: [u32; 3],
        sure: Self,
        codes: &mut [u8],
        bytes: &mut [u8],
    ) -> Option<(usize, bool)> {
        if !chunk.len().is_multiple_of(4) || !std::is_x86_feature_detected!("ssse3") {
            return None;
        }
        // SAFETY: the CPU has SSSE3 (checked just above); the kernel checks its lengths.
        Some(unsafe { sse2::encode_f32(chunk, mid, keep, mask, th, sure, codes, bytes) })
    }
    #[cfg(target_arch = "x86_64")]
    fn decode_kernel(
        src: &[u8],
        codes: &[u8],
        n: usize,
        keep: usize,
        mid: Self,
        out: &mut Vec<Self>,
    ) -> bool {
        if n != 4 * codes.len() || !std::is_x86_feature_detected!("ssse3") {
            return false;
        }
        // SAFETY: the CPU has SSSE3 (checked just above); the kernel checks its lengths.
        unsafe { sse2::decode_f32(src, codes, keep, mid, out) };
        true
    }
    fn sure_bound(bound: f64) -> Self {
        // An f32 difference carries a relative rounding error of at most 2^-24 (none when
        // it is subnormal, and an overflow gives infinity, above any finite threshold), so
        // a threshold t with t * (1 + 2^-22) <= bound is safe.
        let safe = |t: f32| f64::from(t) * (1.0 + 2f64.powi(-22)) <= bound;
        let mut t = (bound * (1.0 - 2f64.powi(-20))).min(f64::from(f32::MAX)) as f32;
        while t > 0.0 && !safe(t) {
            t = f32::from_bits(t.to_bits() - 1);
        }
        t
    }
}

impl Float for f64 {
    type Bits = u64;
    const BYTES: usize = 8;
    const HEAD_BITS: u32 = 12;
    const MANTISSA: u32 = 52;
    const ABS: u64 = 0x7fff_ffff_ffff_ffff;
    const EXP_ONE: u64 = 1 << 52;
    const SIGN: u64 = 1 << 63;
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn from_f64(x: f64) -> Self {
        x
    }
    #[inline(always)]
    fn to_word(self) -> u64 {
        self.to_bits()
    }
    #[inline(always)]
    fn from_word(b: u64) -> Self {
        f64::from_bits(b)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f64::abs(self)
    }
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }
    fn write_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    #[inline(always)]
    fn read_le(b: &[u8]) -> Self {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[..8]);
        f64::from_le_bytes(a)
    }
    fn sure_bound(bound: f64) -> Self {
        // The check is computed in f64 already.
        bound
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

/// Lanes of the portable block scan: eight independent minimums, maximums and flags.
const LANES: usize = 8;

/// The block's minimum and maximum, and whether every value is finite (portable
/// [`Float::scan`]). Plain comparisons: with a NaN the extremes are meaningless, but the flag
/// is then false.
#[inline(always)]
fn min_max<T: Float>(chunk: &[T]) -> (T, T, bool) {
    let mut lo = [chunk[0]; LANES];
    let mut hi = [chunk[0]; LANES];
    let mut odd = [T::Bits::ZERO; LANES];
    let mut it = chunk.chunks_exact(LANES);
    for c in &mut it {
        for k in 0..LANES {
            let v = c[k];
            lo[k] = if v < lo[k] { v } else { lo[k] };
            hi[k] = if v > hi[k] { v } else { hi[k] };
            odd[k] = odd[k] | ((v.to_word() & T::ABS) + T::EXP_ONE);
        }
    }
    for (k, &v) in it.remainder().iter().enumerate() {
        lo[k] = if v < lo[k] { v } else { lo[k] };
        hi[k] = if v > hi[k] { v } else { hi[k] };
        odd[k] = odd[k] | ((v.to_word() & T::ABS) + T::EXP_ONE);
    }
    let (mut l, mut h, mut o) = (lo[0], hi[0], odd[0]);
    for k in 1..LANES {
        l = if lo[k] < l { lo[k] } else { l };
        h = if hi[k] > h { hi[k] } else { h };
        o = o | odd[k];
    }
    (l, h, o & T::SIGN == T::Bits::ZERO)
}

/// SSE2 kernels (part of the x86-64 baseline: no detection needed) and one SSSE3 kernel
/// (used after run-time detection).
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use super::LEAD_SUM;
    use std::arch::x86_64::*;

    /// For 4 `f32` values in a register (little-endian lanes) and their 2-bit shared-byte
    /// counts (a code byte), `COMPACT[keep - 1][code]` gathers bytes `lead..keep` of each
    /// value's big-endian form, one value after another (`pshufb` indices; 0x80 gives 0).
    static COMPACT: [[[u8; 16]; 256]; 4] = {
        let mut t = [[[0x80u8; 16]; 256]; 4];
        let mut k = 0;
        while k < 4 {
            let mut c = 0;
            while c < 256 {
                let mut o = 0;
                let mut i = 0;
                while i < 4 {
                    let mut p = (c >> (2 * i)) & 3;
                    while p < k + 1 {
                        // Big-endian byte p of lane i is its little-endian byte 3 - p.
                        t[k][c][o] = (4 * i + 3 - p) as u8;
                        o += 1;
                        p += 1;
                    }
                    i += 1;
                }
                c += 1;
            }
            k += 1;
        }
        t
    };

    /// The inverse of [`COMPACT`]: `EXPAND[keep - 1][code]` puts a group's kept bytes, read
    /// from the stream, at their places in 4 little-endian lanes (0 for the shared bytes
    /// and those past `keep`).
    static EXPAND: [[[u8; 16]; 256]; 4] = {
        let mut t = [[[0x80u8; 16]; 256]; 4];
        let mut k = 0;
        while k < 4 {
            let mut c = 0;
            while c < 256 {
                let mut o = 0;
                let mut i = 0;
                while i < 4 {
                    let mut p = (c >> (2 * i)) & 3;
                    while p < k + 1 {
                        t[k][c][4 * i + 3 - p] = o;
                        o += 1;
                        p += 1;
                    }
                    i += 1;
                }
                c += 1;
            }
            k += 1;
        }
        t
    };

    /// `SHARED[code]`: 0xff on the bytes each of 4 lanes takes from its predecessor (its
    /// `lead` leading big-endian bytes, the top bytes of the lane).
    static SHARED: [[u8; 16]; 256] = {
        let mut t = [[0u8; 16]; 256];
        let mut c = 0;
        while c < 256 {
            let mut i = 0;
            while i < 4 {
                let mut p = 0;
                while p < (c >> (2 * i)) & 3 {
                    t[c][4 * i + 3 - p] = 0xff;
                    p += 1;
                }
                i += 1;
            }
            c += 1;
        }
        t
    };

    /// [`super::Float::decode_kernel`] for `f32`, 4 values a step: the kept bytes to their
    /// lanes with one `pshufb`, the shared bytes filled from the predecessors in three
    /// steps (1, 2 then 4 lanes back: a chain of shared bytes is at most 4 lanes long
    /// within a group, and the previous group is complete), then `mid +` each.
    ///
    /// # Safety
    /// The CPU must have SSSE3.
    #[target_feature(enable = "ssse3")]
    pub(super) unsafe fn decode_f32(
        src: &[u8],
        codes: &[u8],
        keep: usize,
        mid: f32,
        out: &mut Vec<f32>,
    ) {
        let n = 4 * codes.len();
        let total: usize = codes
            .iter()
            .map(|&c| 4 * keep - usize::from(LEAD_SUM[usize::from(c)]))
            .sum();
        // Each group loads 16 bytes at `at <= total`.
        assert!((1..=4).contains(&keep) && src.len() >= total + 16);
        out.reserve(n);
        let lut = &EXPAND[keep - 1];
        let vmid = _mm_set1_ps(mid);
        let mut prev = _mm_setzero_si128();
        let mut at = 0usize;
        let dst = out.spare_capacity_mut().as_mut_ptr().cast::<f32>();
        for (g, &c) in codes.iter().enumerate() {
            let c = usize::from(c);
            let raw = _mm_loadu_si128(src.as_ptr().add(at).cast());
            let mut v = _mm_shuffle_epi8(raw, _mm_loadu_si128(lut[c].as_ptr().cast()));
            let shared = _mm_loadu_si128(SHARED[c].as_ptr().cast());
            // One lane back (the first lane's predecessor: the previous group's last).
            v = _mm_or_si128(v, _mm_and_si128(_mm_alignr_epi8::<12>(v, prev), shared));
            // Still open: shared bytes whose predecessor shares them too.
            let open = _mm_and_si128(shared, _mm_slli_si128::<4>(shared));
            v = _mm_or_si128(v, _mm_and_si128(_mm_alignr_epi8::<8>(v, prev), open));
            let open = _mm_and_si128(open, _mm_slli_si128::<8>(open));
            v = _mm_or_si128(v, _mm_and_si128(prev, open));
            prev = v;
            _mm_storeu_ps(dst.add(4 * g), _mm_add_ps(vmid, _mm_castsi128_ps(v)));
            at += 4 * keep - usize::from(LEAD_SUM[c]);
        }
        // SAFETY: the loop wrote the n values after the old length (reserved above).
        out.set_len(out.len() + n);
    }

    /// Bit i of a 4-bit mask to bit 2i: one compare's contribution to 4 counts.
    const SPREAD: [u8; 16] = {
        let mut t = [0u8; 16];
        let mut m = 0;
        while m < 16 {
            t[m] = ((m & 1) | (m & 2) << 1 | (m & 4) << 2 | (m & 8) << 3) as u8;
            m += 1;
        }
        t
    };

    /// [`super::Float::encode_kernel`] for `f32`, 4 values a step: truncation and the
    /// `sure` check, shared-byte counts by comparisons (`movmskps` per threshold, spread to
    /// the code byte), and the kept bytes gathered with one `pshufb` and one 16-byte store.
    ///
    /// # Safety
    /// The CPU must have SSSE3.
    #[target_feature(enable = "ssse3")]
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn encode_f32(
        x: &[f32],
        mid: f32,
        keep: usize,
        mask: u32,
        th: [u32; 3],
        sure: f32,
        codes: &mut [u8],
        bytes: &mut [u8],
    ) -> (usize, bool) {
        // Each group of 4 stores 16 bytes at `at <= keep * (values before it)`.
        assert!(x.len().is_multiple_of(4) && (1..=4).contains(&keep));
        assert!(codes.len() >= x.len() / 4 && bytes.len() >= keep * x.len() + 16);
        let lut = &COMPACT[keep - 1];
        let vmid = _mm_set1_ps(mid);
        let vmask = _mm_set1_epi32(mask as i32);
        let vsure = _mm_set1_ps(sure);
        let abs = _mm_castsi128_ps(_mm_set1_epi32(0x7fff_ffff));
        // Unsigned `xor < th` as a signed comparison, both sides with the top bit flipped.
        let flip = _mm_set1_epi32(i32::MIN);
        let [th1, th2, th3] = th.map(|t| _mm_set1_epi32((t ^ 0x8000_0000) as i32));
        let mut ok = _mm_castsi128_ps(_mm_set1_epi32(-1));
        let mut prev = _mm_setzero_si128();
        let mut at = 0usize;
        let dst = bytes.as_mut_ptr();
        for (g, c) in x.chunks_exact(4).zip(codes.iter_mut()) {
            let v = _mm_loadu_ps(g.as_ptr());
            let t = _mm_and_si128(_mm_castps_si128(_mm_sub_ps(v, vmid)), vmask);
            let back = _mm_add_ps(vmid, _mm_castsi128_ps(t));
            let err = _mm_and_ps(_mm_sub_ps(v, back), abs);
            ok = _mm_and_ps(ok, _mm_cmple_ps(err, vsure));
            // Each value's predecessor: the last of the previous group, then t0..t2.
            let before = _mm_alignr_epi8::<12>(t, prev);
            prev = t;
            let xr = _mm_xor_si128(_mm_xor_si128(t, before), flip);
            let m1 = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmplt_epi32(xr, th1))) as usize;
            let m2 = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmplt_epi32(xr, th2))) as usize;
            let m3 = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmplt_epi32(xr, th3))) as usize;
            let code = SPREAD[m1] + SPREAD[m2] + SPREAD[m3];
            *c = code;
            let idx = _mm_loadu_si128(lut[usize::from(code)].as_ptr().cast());
            _mm_storeu_si128(dst.add(at).cast(), _mm_shuffle_epi8(t, idx));
            at += 4 * keep - usize::from(LEAD_SUM[usize::from(code)]);
        }
        (at, _mm_movemask_ps(ok) == 0xf)
    }

    /// [`super::Float::scan`] for `f32`, 8 values a step in two registers per extreme.
    /// `minps(v, lo)` is `v < lo ? v : lo`, the portable version's comparison.
    pub(super) fn scan_f32(c: &[f32]) -> (f32, f32, bool) {
        // SAFETY: SSE2 is in the x86-64 baseline; every load reads 4 values of an 8-value
        // chunk of `c`, and every store writes a 4-value local array.
        unsafe {
            let first = _mm_set1_ps(c[0]);
            let (mut lo0, mut lo1, mut hi0, mut hi1) = (first, first, first, first);
            let abs = _mm_set1_epi32(0x7fff_ffff);
            let exp_one = _mm_set1_epi32(1 << 23);
            let (mut odd0, mut odd1) = (_mm_setzero_si128(), _mm_setzero_si128());
            let mut it = c.chunks_exact(8);
            for q in &mut it {
                let a = _mm_loadu_ps(q.as_ptr());
                let b = _mm_loadu_ps(q.as_ptr().add(4));
                lo0 = _mm_min_ps(a, lo0);
                lo1 = _mm_min_ps(b, lo1);
                hi0 = _mm_max_ps(a, hi0);
                hi1 = _mm_max_ps(b, hi1);
                // Exponent all ones (infinity or NaN) carries into the sign bit.
                odd0 = _mm_or_si128(
                    odd0,
                    _mm_add_epi32(_mm_and_si128(_mm_castps_si128(a), abs), exp_one),
                );
                odd1 = _mm_or_si128(
                    odd1,
                    _mm_add_epi32(_mm_and_si128(_mm_castps_si128(b), abs), exp_one),
                );
            }
            let (mut lo, mut hi) = ([0f32; 4], [0f32; 4]);
            _mm_storeu_ps(lo.as_mut_ptr(), _mm_min_ps(lo0, lo1));
            _mm_storeu_ps(hi.as_mut_ptr(), _mm_max_ps(hi0, hi1));
            let mut finite = _mm_movemask_ps(_mm_castsi128_ps(_mm_or_si128(odd0, odd1))) == 0;
            let (mut l, mut h) = (lo[0], hi[0]);
            for &v in lo[1..].iter().chain(it.remainder()) {
                l = if v < l { v } else { l };
            }
            for &v in hi[1..].iter().chain(it.remainder()) {
                h = if v > h { v } else { h };
            }
            for &v in it.remainder() {
                finite &= v.is_finite();
            }
            (l, h, finite)
        }
    }
}

/// Scratch space reused across blocks (no allocation per block).
struct Scratch<T: Float> {
    /// The truncated differences of the block's values from the middle.
    words: Vec<T::Bits>,
    /// The kept bytes, with 16 bytes of slack for whole-value and 16-byte stores.
    bytes: Vec<u8>,
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
    out.clear();
    // Every block fits in its raw form plus its kind byte.
    out.reserve(HEADER + data.len().div_ceil(block) + data.len() * T::BYTES);
    out.extend_from_slice(MAGIC);
    out.push(T::BYTES as u8);
    out.extend_from_slice(&(block as u16).to_le_bytes());
    out.extend_from_slice(&(data.len() as u64).to_le_bytes());
    out.extend_from_slice(&bound.to_le_bytes());
    let eb_exp = exponent(bound);
    let sure = T::sure_bound(bound);
    let mut scratch = Scratch::<T> {
        words: vec![T::Bits::ZERO; block],
        bytes: vec![0; block * T::BYTES + 16],
    };
    for chunk in data.chunks(block) {
        let (lo, hi, finite) = T::scan(chunk);
        if !finite {
            out.clear();
            let i = data.iter().position(|x| !x.is_finite()).unwrap_or(0);
            return Err(Error::config(
                "szx",
                "data",
                format!(
                    "value {i} is {:?}: NaN and infinities need a fill policy before compression",
                    data[i]
                ),
            ));
        }
        let (lo, hi) = (lo.to_f64(), hi.to_f64());
        let radius = (hi - lo) / 2.0;
        let mid = T::from_f64(lo + radius);
        let m = mid.to_f64();
        // The extremes are the farthest values from the middle.
        if (hi - m).abs() <= bound && (m - lo).abs() <= bound {
            out.push(0);
            mid.write_le(out);
            continue;
        }
        if !encode_block(chunk, mid, radius, eb_exp, bound, sure, &mut scratch, out) {
            out.push(2);
            for &x in chunk {
                x.write_le(out);
            }
        }
    }
    Ok(())
}

/// The truncation of a block whose values span `radius` around the middle: bytes kept per
/// value and the mask of the kept bits.
fn truncation<T: Float>(radius: f64, eb_exp: i32) -> (usize, T::Bits) {
    let rad_exp = if radius > 0.0 {
        exponent(radius)
    } else {
        eb_exp
    };
    let mant = (rad_exp - eb_exp).clamp(0, T::MANTISSA as i32) as u32;
    let keep_bits = T::HEAD_BITS + mant;
    let width = 8 * T::BYTES as u32;
    let mask = if keep_bits >= width {
        T::Bits::ALL
    } else {
        T::Bits::ALL << (width - keep_bits)
    };
    (keep_bits.div_ceil(8) as usize, mask)
}

/// A non-constant block: middle value, kept bytes per value, 2-bit shared-byte counts, kept
/// bytes. Every value is reconstructed as the decoder will and checked against `bound`;
/// returns false, writing nothing, when one is not within it or the block would not be
/// smaller than raw (the caller stores it raw).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn encode_block<T: Float>(
    chunk: &[T],
    mid: T,
    radius: f64,
    eb_exp: i32,
    bound: f64,
    sure: T,
    scratch: &mut Scratch<T>,
    out: &mut Vec<u8>,
) -> bool {
    let (keep, mask) = truncation::<T>(radius, eb_exp);
    // Leading bytes shared with the previous value: at most 3 (2 bits), at most `keep`.
    // Counted with comparisons, `xor < 2^(width - 8k)` for k = 1..=3 (a threshold of 0
    // for a k past the cap), which vectorise, rather than a bit scan per value.
    let width = 8 * T::BYTES as u32;
    let th = [1, 2, 3].map(|k| {
        if k <= keep {
            T::Bits::ONE << (width - 8 * k as u32)
        } else {
            T::Bits::ZERO
        }
    });
    let codes_len = chunk.len().div_ceil(4);
    let start = out.len();
    out.push(1);
    mid.write_le(out);
    out.push(keep as u8);
    out.resize(start + 2 + T::BYTES + codes_len, 0);
    let codes = &mut out[start + 2 + T::BYTES..];
    let bytes = &mut scratch.bytes;
    let (at, sure_ok) = match T::encode_kernel(chunk, mid, keep, mask, th, sure, codes, bytes) {
        Some(r) => r,
        None => encode_portable(
            chunk,
            mid,
            keep,
            mask,
            th,
            sure,
            &mut scratch.words,
            codes,
            bytes,
        ),
    };
    // Every value within `sure` proves the bound (see `Float::sure_bound`); otherwise each
    // is checked exactly, as the guarantee is stated: in f64.
    let within = sure_ok
        || chunk.iter().all(|&x| {
            let back = mid + T::from_word((x - mid).to_word() & mask);
            (x.to_f64() - back.to_f64()).abs() <= bound
        });
    if !within || 2 + T::BYTES + codes_len + at > 1 + chunk.len() * T::BYTES {
        out.truncate(start);
        return false;
    }
    out.extend_from_slice(&scratch.bytes[..at]);
    true
}

/// Shared-byte counts, the codes and the kept bytes of a block, without vector kernels:
/// returns the kept bytes' length and whether every value came back within `sure`.
#[allow(clippy::too_many_arguments)]
fn encode_portable<T: Float>(
    chunk: &[T],
    mid: T,
    keep: usize,
    mask: T::Bits,
    th: [T::Bits; 3],
    sure: T,
    words: &mut [T::Bits],
    codes: &mut [u8],
    bytes: &mut [u8],
) -> (usize, bool) {
    let words = &mut words[..chunk.len()];
    let mut sure_ok = true;
    for (&x, w) in chunk.iter().zip(words.iter_mut()) {
        let t = (x - mid).to_word() & mask;
        let back = mid + T::from_word(t);
        sure_ok &= (x - back).abs() <= sure;
        *w = t;
    }
    let mut prev = T::Bits::ZERO;
    let mut at = 0usize;
    for (quad, code) in words.chunks(4).zip(codes.iter_mut()) {
        let mut c = 0u8;
        for (j, &t) in quad.iter().enumerate() {
            let x = t ^ prev;
            let lead = u8::from(x < th[0]) + u8::from(x < th[1]) + u8::from(x < th[2]);
            c |= lead << (2 * j);
            // Bytes lead..keep, written as one whole-value store (`bytes` has the slack).
            (t << (8 * u32::from(lead))).store_be(&mut bytes[at..]);
            at += keep - usize::from(lead);
            prev = t;
        }
        *code = c;
    }
    (at, sure_ok)
}

/// Sum of the four 2-bit counts in a byte.
const LEAD_SUM: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = ((i & 3) + ((i >> 2) & 3) + ((i >> 4) & 3) + (i >> 6)) as u8;
        i += 1;
    }
    t
};

fn decode_block<T: Float>(
    b: &[u8],
    pos: &mut usize,
    n: usize,
    pad: &mut Vec<u8>,
    out: &mut Vec<T>,
) -> Result<()> {
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
            let mid = T::read_le(take(pos, T::BYTES)?);
            let keep = usize::from(take(pos, 1)?[0]);
            if keep == 0 || keep > T::BYTES {
                return Err(bad("kept bytes"));
            }
            let codes = take(pos, n.div_ceil(4))?;
            // Counts past the last value are not read; mask them out of the last byte.
            let tail = match n % 4 {
                0 => 0xff,
                r => (1u8 << (2 * r)) - 1,
            };
            let (&last, body) = codes.split_last().ok_or_else(|| bad("block payload"))?;
            // A count above `keep` (possible only for keep 1 or 2) is corrupt.
            let over = |c: u8| match keep {
                1 => c & 0xaa != 0,
                2 => c & (c >> 1) & 0x55 != 0,
                _ => false,
            };
            let mut shared = usize::from(LEAD_SUM[usize::from(last & tail)]);
            let mut any_over = over(last & tail);
            for &c in body {
                shared += usize::from(LEAD_SUM[usize::from(c)]);
                any_over |= over(c);
            }
            if any_over {
                return Err(bad("shared bytes"));
            }
            let total = n * keep - shared;
            // Values are read with whole-value or 16-byte loads: straight from the stream
            // when 16 bytes follow the block's, else from a padded copy.
            let src: &[u8] = if *pos + total + 16 <= b.len() {
                *pos += total;
                &b[*pos - total..*pos + 16]
            } else {
                let s = take(pos, total)?;
                pad.clear();
                pad.extend_from_slice(s);
                pad.resize(total + 16, 0);
                pad
            };
            if !T::decode_kernel(src, codes, n, keep, mid, out) {
                decode_portable(src, codes, n, keep, mid, out);
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
/// A truncated block's `n` values without vector kernels (`codes` validated, `src` the kept
/// bytes and at least `BYTES` more).
fn decode_portable<T: Float>(
    src: &[u8],
    codes: &[u8],
    n: usize,
    keep: usize,
    mid: T,
    out: &mut Vec<T>,
) {
    let width = 8 * T::BYTES as u32;
    let keep_mask = T::Bits::ALL << (width - 8 * keep as u32);
    // The bits the first `lead` bytes cover.
    let lead_mask = [
        T::Bits::ZERO,
        T::Bits::ALL << (width - 8),
        T::Bits::ALL << (width - 16),
        T::Bits::ALL << (width - 24),
    ];
    let mut prev = T::Bits::ZERO;
    let mut at = 0usize;
    let mut one = |lead: u8| {
        let lead = usize::from(lead);
        let fresh = T::Bits::load_be(&src[at..]) >> (8 * lead as u32);
        let cur = ((prev & lead_mask[lead]) | fresh) & keep_mask;
        at += keep - lead;
        prev = cur;
        mid + T::from_word(cur)
    };
    let (&last, body) = codes.split_last().expect("a block has a value");
    for &c in body {
        out.extend_from_slice(&[
            one(c & 3),
            one((c >> 2) & 3),
            one((c >> 4) & 3),
            one(c >> 6),
        ]);
    }
    for j in 0..(n - 4 * body.len()) {
        out.push(one((last >> (2 * j)) & 3));
    }
}

/// The block size and value count of a stream's header, checked against its length.
fn header<T: Float>(b: &[u8]) -> Result<(usize, usize)> {
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
    Ok((block, n))
}

/// The value count of a stream (from its checked header).
pub fn values<T: Float>(b: &[u8]) -> Result<usize> {
    Ok(header::<T>(b)?.1)
}

/// Decode a stream [`compress`] wrote for values of type `T`.
pub fn decompress<T: Float>(b: &[u8], out: &mut Vec<T>) -> Result<()> {
    let (block, n) = header::<T>(b)?;
    out.clear();
    out.reserve(n);
    let mut pos = HEADER;
    let mut left = n;
    let mut pad = Vec::new();
    while left > 0 {
        let k = left.min(block);
        decode_block(b, &mut pos, k, &mut pad, out)?;
        left -= k;
    }
    trailing(b, pos)
}

/// Decode a stream [`compress`] wrote straight into `out`, whose length must be the stream's
/// value count (each block is decoded into a block-sized scratch buffer and copied while it
/// is in cache, so no buffer of the field's size is allocated).
pub fn decompress_into<T: Float>(b: &[u8], out: &mut [T]) -> Result<()> {
    let (block, n) = header::<T>(b)?;
    if n != out.len() {
        return Err(Error::Codec {
            codec: "szx".into(),
            msg: format!(
                "the stream holds {n} values, the output has room for {}",
                out.len()
            ),
        });
    }
    let mut pos = HEADER;
    let mut pad = Vec::new();
    let mut scratch: Vec<T> = Vec::with_capacity(block);
    for dst in out.chunks_mut(block) {
        scratch.clear();
        decode_block(b, &mut pos, dst.len(), &mut pad, &mut scratch)?;
        dst.copy_from_slice(&scratch);
    }
    trailing(b, pos)
}

fn trailing(b: &[u8], pos: usize) -> Result<()> {
    if pos != b.len() {
        return Err(Error::Codec {
            codec: "szx".into(),
            msg: format!("{} bytes after the last block", b.len() - pos),
        });
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

    proptest! {
        #[test]
        fn decompress_into_equals_decompress(
            data in proptest::collection::vec(-1e4f32..1e4, 0..2000), block in 1usize..300, bound in 1e-4f64..10.0,
        ) {
            let mut packed = Vec::new();
            compress(&data, bound, block, &mut packed).unwrap();
            let mut a: Vec<f32> = Vec::new();
            decompress(&packed, &mut a).unwrap();
            let mut b = vec![0f32; data.len()];
            decompress_into(&packed, &mut b).unwrap();
            prop_assert_eq!(a, b);
            let mut short = vec![0f32; data.len() + 1];
            prop_assert!(decompress_into(&packed, &mut short).is_err());
        }
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

    #[test]
    fn non_finite_values_are_named_in_any_block() {
        let mut data = vec![1.5f32; 1000];
        let mut out = Vec::new();
        for (i, bad) in [
            (0usize, f32::NAN),
            (517, f32::INFINITY),
            (999, f32::NEG_INFINITY),
        ] {
            let keep = data[i];
            data[i] = bad;
            let e = compress(&data, 0.1, 128, &mut out).unwrap_err();
            assert!(e.to_string().contains(&format!("value {i} ")), "{e}");
            data[i] = keep;
        }
    }

    #[test]
    fn blocks_no_smaller_than_raw_are_stored_raw() {
        // Random bits at a tiny bound: every value keeps all 4 bytes, so the codes and the
        // middle would make a truncated block larger than the raw one.
        let mut x = 0x9e37_79b9u32;
        let data: Vec<f32> = (0..1024)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                f32::from_bits(x & 0xbfff_ffff)
            })
            .collect();
        let (_, n) = roundtrip(&data, 1e-40, 128);
        assert_eq!(n, HEADER + 8 * (1 + 128 * 4));
    }

    #[test]
    fn sure_bound_is_below_the_bound() {
        for bound in [
            1e-300, 1e-46, 1.4e-45, 1e-45, 1e-30, 1e-3, 0.5, 1.0, 3e38, 3.5e38, 1e300,
        ] {
            let t = f32::sure_bound(bound);
            assert!(t >= 0.0 && f64::from(t) < bound, "{bound}: {t}");
        }
        // Close to the bound, not far below it.
        let t = f32::sure_bound(1e-3);
        assert!(f64::from(t) > 1e-3 * (1.0 - 1e-5), "{t}");
    }

    /// The vector kernels (when the CPU has them) give the portable code's bytes.
    fn kernels_match_portable(data: &[f32], bound: f64) {
        let (lo, hi, finite) = f32::scan(data);
        assert!(finite);
        assert_eq!((lo, hi, finite), min_max(data));
        let (lo, hi) = (f64::from(lo), f64::from(hi));
        let radius = (hi - lo) / 2.0;
        let mid = (lo + radius) as f32;
        let (keep, mask) = truncation::<f32>(radius, exponent(bound));
        let th = [1, 2, 3].map(|k| if k <= keep { 1u32 << (32 - 8 * k) } else { 0 });
        let sure = f32::sure_bound(bound);
        let n = data.len();
        let (mut c1, mut c2) = (vec![0u8; n.div_ceil(4)], vec![0u8; n.div_ceil(4)]);
        let (mut b1, mut b2) = (vec![0u8; 4 * n + 16], vec![0u8; 4 * n + 16]);
        let mut words = vec![0u32; n];
        let p = encode_portable(
            data, mid, keep, mask, th, sure, &mut words, &mut c1, &mut b1,
        );
        if let Some(k) = f32::encode_kernel(data, mid, keep, mask, th, sure, &mut c2, &mut b2) {
            assert_eq!(p, k);
            assert_eq!(c1, c2);
            assert_eq!(b1[..p.0], b2[..k.0]);
        }
        b1.truncate(p.0 + 16);
        let (mut v1, mut v2) = (Vec::new(), Vec::new());
        decode_portable(&b1, &c1, n, keep, mid, &mut v1);
        if f32::decode_kernel(&b1, &c1, n, keep, mid, &mut v2) {
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&v1), bits(&v2));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn vector_kernels_match_the_portable_code(
            data in proptest::collection::vec(-1e3f32..1e3, 1..64).prop_map(|mut v| {
                v.truncate(v.len() / 4 * 4);
                v
            }).prop_filter("a whole group", |v| !v.is_empty()),
            exp in -6i32..3,
            smooth in any::<bool>(),
        ) {
            // Smooth data shares leading bytes; rough data does not.
            let data: Vec<f32> = if smooth {
                data.iter().enumerate().map(|(i, x)| 100.0 + i as f32 * 1e-3 + x * 1e-5).collect()
            } else {
                data
            };
            kernels_match_portable(&data, 10f64.powi(exp));
        }

        #[test]
        fn every_value_is_within_the_bound_f32_any(
            data in proptest::collection::vec(proptest::num::f32::NORMAL | proptest::num::f32::SUBNORMAL | proptest::num::f32::ZERO, 1..600),
            exp in -46i32..39,
            groups in 1usize..70,
        ) {
            // Blocks of whole groups of 4 (the vector kernels' case) and odd ones.
            roundtrip(&data, 10f64.powi(exp), 4 * groups);
            roundtrip(&data, 10f64.powi(exp), 4 * groups - 1);
        }

        #[test]
        fn sure_bound_implies_the_bound(
            x in proptest::num::f32::NORMAL | proptest::num::f32::SUBNORMAL | proptest::num::f32::ZERO,
            y in proptest::num::f32::NORMAL | proptest::num::f32::SUBNORMAL | proptest::num::f32::ZERO,
            exp in -46i32..39,
        ) {
            let bound = 10f64.powi(exp);
            if (x - y).abs() <= f32::sure_bound(bound) {
                prop_assert!((f64::from(x) - f64::from(y)).abs() <= bound);
            }
        }

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
