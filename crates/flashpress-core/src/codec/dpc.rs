//! Dominant Pattern Compression (DPC), the codec of PR-SSD (Partial Read-aware SSD, seed 002,
//! §4.2 "Dominant Pattern Compression"), in the configuration the paper selects for hardware:
//! one dominant pattern, 1-byte pattern size, 128-byte compression granularity, a partial-zero
//! filter over 4 KiB partial units, and "compression fails when the compression ratio is lower
//! than 10%" (§5.1.3), the compression ratio being "the ratio of reduced size to the original
//! size" (§1).
//!
//! # Procedure (the paper's Fig. 7)
//!
//! 1. The page is cut into 4 KiB partial units ([`UNIT_SIZE`]; the last may be short). An
//!    all-zero unit sets its bit in the zero bitmap and is dropped.
//! 2. The non-zero units are cut into 128-byte granules ([`GRANULE_SIZE`]; only the last
//!    granule of a short final unit can be short), each compressed independently.
//! 3. Per granule, the byte values are counted (the pattern table), the most frequent byte is
//!    the dominant pattern (ties go to the smallest byte value), and its occurrences are
//!    removed: the granule becomes a header (the pattern byte and an encoding bitmap, one bit
//!    per byte position, 1 = "this position held the pattern") followed by the remaining bytes
//!    in order. The compressed length of every granule is stored.
//!
//! # Design choices the paper leaves open
//!
//! * **Raw granules.** Removing the pattern saves `count` bytes and costs a header of
//!   `1 + ceil(n/8)` bytes (17 for a full granule). When `count` is not larger than the
//!   header, the granule is stored raw, as a real encoder would; its stored length then equals
//!   its raw length `n`, and that is the flag: a compressed granule is always shorter than
//!   `n`, so the length table alone tells raw from compressed granules.
//! * **Failure judgement.** The 10% rule is judged per page on the *non-zero* data: the
//!   encoded non-zero data (length table plus granules) must be at most 90% of the non-zero
//!   bytes, i.e. the page fails when `10 * encoded > 9 * nonzero`. This is how the paper's
//!   example reads (§4.2.3, Fig. 9): LPN 907 has three zero partial units, yet "the nonzero
//!   data in LPN 907 cannot be compressed. Hence, the compression flag of LPN 907 is false".
//!   A failed page keeps its zero bitmap and stores its non-zero units raw; an all-zero page
//!   (no non-zero data) does not fail. Whether the FTL then stores a failed page whole or
//!   only its non-zero units is the simulator's decision: [`DpcInfo::failed`] tells it.
//! * **Zero bitmap in the output.** The paper keeps the zero bitmap in the mapping table; we
//!   put it (and the failure flag) in the compressed form, so `out.len()` charges them: one
//!   flag byte plus one bit per unit (2 bytes in all for a 4 KiB or 16 KiB page).
//!
//! # Format
//!
//! ```text
//! byte 0          flags: bit 0 = failed (other bits zero)
//! ceil(units/8)   zero bitmap: bit u%8 of byte u/8 set = unit u is all zero
//! -- failed page --
//! the non-zero units, raw, in order
//! -- compressed page --
//! G bytes         length table: stored length of each granule of the non-zero units, in order
//! G granules      raw (length == n), or: pattern byte, ceil(n/8) bitmap bytes (bit j of byte k
//!                 set = position 8k+j held the pattern; unused bits zero), the other bytes
//! ```
//!
//! A failed page costs `1 + ceil(units/8)` bytes over its non-zero data, so incompressible
//! data grows by 2 bytes for a 4 KiB or 16 KiB page; an all-zero page of up to 32 KiB is
//! 2 bytes.
//!
//! # Speed
//!
//! The pattern table is four interleaved 256-entry byte histograms (so runs of one byte do
//! not serialise on one counter), summed and searched 16 counters at a time (SSE2, part of
//! x86-64; a portable reduction elsewhere). On x86-64
//! with SSSE3 and POPCNT (checked at run time), building the encoding bitmap, removing the
//! pattern and re-inserting it use `pcmpeqb`/`pmovmskb` and `pshufb` with 256-entry shuffle
//! tables; elsewhere a portable scalar path produces the same bytes.

/// Size of a partial unit, the granularity of the partial-zero filter (the 4 KiB partial read
/// unit of a 16 KiB NAND page).
pub const UNIT_SIZE: usize = 4096;
/// Size of a compression granule.
pub const GRANULE_SIZE: usize = 128;
/// A page whose non-zero data saves less than this percentage fails compression.
pub const MIN_SAVING_PERCENT: usize = 10;

const FLAG_FAILED: u8 = 0x01;
/// Header of a full granule: the pattern byte and a 16-byte encoding bitmap.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const FULL_HEADER: usize = 1 + GRANULE_SIZE / 8;
/// Scratch bytes past the encoded data that the vector kernels may write (and later discard).
const SLACK: usize = 32;

/// What DPC did with a page: the zero filter's result and the failure flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DpcInfo {
    /// Number of partial units (`ceil(len / UNIT_SIZE)`).
    pub units: usize,
    /// Bit `u` set: unit `u` is all zero (units 0..64 only; see `zero_units` for the count).
    pub zero_bitmap: u64,
    /// Number of all-zero units.
    pub zero_units: usize,
    /// Bytes of non-zero units.
    pub nonzero_len: usize,
    /// Number of granules of the non-zero units.
    pub granules: usize,
    /// Granules stored raw because removing their pattern would not save bytes.
    pub raw_granules: usize,
    /// Encoded size of the non-zero data (length table plus granules), the size the 10% rule
    /// judges; computed even when the page fails.
    pub encoded_len: usize,
    /// Compression failed (saving on the non-zero data below 10%): non-zero units stored raw.
    pub failed: bool,
    /// Total compressed size, headers included (`out.len()`).
    pub compressed_len: usize,
}

/// Compress `input` (any length) into `out` (cleared first).
pub fn compress(input: &[u8], out: &mut Vec<u8>) {
    compress_with_info(input, out);
}

/// Compress `input` into `out` (cleared first) and say what the zero filter and the failure
/// rule did.
pub fn compress_with_info(input: &[u8], out: &mut Vec<u8>) -> DpcInfo {
    compress_impl(input, out, simd::available())
}

/// Run DPC on `input` for its [`DpcInfo`] alone (allocates a scratch buffer).
pub fn analyze(input: &[u8]) -> DpcInfo {
    let mut scratch = Vec::new();
    compress_with_info(input, &mut scratch)
}

/// Decompress `input`, made by [`compress`] from a block of `original_len` bytes, into `out`
/// (cleared first). Corrupt or truncated input is an error message; at most `original_len`
/// bytes are allocated, and only after the header has been checked against `input`.
pub fn decompress(input: &[u8], original_len: usize, out: &mut Vec<u8>) -> Result<(), String> {
    decompress_impl(input, original_len, out, simd::available())
}

/// True when every byte of `s` is zero (checked 64 bytes at a time).
fn is_zero(s: &[u8]) -> bool {
    let mut chunks = s.chunks_exact(64);
    for c in &mut chunks {
        let mut acc = 0u64;
        for w in c.chunks_exact(8) {
            acc |= u64::from_le_bytes(w.try_into().unwrap());
        }
        if acc != 0 {
            return false;
        }
    }
    chunks.remainder().iter().all(|&b| b == 0)
}

/// The most frequent byte of a granule (the smallest such byte on ties) and its count.
#[inline]
fn dominant(g: &[u8]) -> (u8, usize) {
    let t = histograms(g);
    #[cfg(target_arch = "x86_64")]
    return simd::most_frequent(&t);
    #[cfg(not(target_arch = "x86_64"))]
    return most_frequent(&t);
}

/// Four byte histograms of a granule, summed by the caller: a run of one byte value then
/// updates four counters in turn instead of waiting on one. Each count stays below 40 and
/// their sum below 129, so bytes are enough.
#[inline]
fn histograms(g: &[u8]) -> [[u8; 256]; 4] {
    debug_assert!(g.len() <= GRANULE_SIZE);
    let mut t = [[0u8; 256]; 4];
    let mut chunks = g.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().unwrap());
        t[0][(w & 0xFF) as usize] += 1;
        t[1][((w >> 8) & 0xFF) as usize] += 1;
        t[2][((w >> 16) & 0xFF) as usize] += 1;
        t[3][((w >> 24) & 0xFF) as usize] += 1;
        t[0][((w >> 32) & 0xFF) as usize] += 1;
        t[1][((w >> 40) & 0xFF) as usize] += 1;
        t[2][((w >> 48) & 0xFF) as usize] += 1;
        t[3][(w >> 56) as usize] += 1;
    }
    for &b in chunks.remainder() {
        t[0][b as usize] += 1;
    }
    t
}

/// The byte with the largest summed count (smallest byte on ties) and that count.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn most_frequent(t: &[[u8; 256]; 4]) -> (u8, usize) {
    // Key = count << 8 | (255 - byte): the maximum key is the most frequent byte.
    let mut best = 0u16;
    let counts = t[0].iter().zip(&t[1]).zip(&t[2]).zip(&t[3]);
    for (i, (((&a, &b), &c), &d)) in counts.enumerate() {
        let c = a as u16 + b as u16 + c as u16 + d as u16;
        best = best.max((c << 8) | (255 - i as u16));
    }
    (255 - (best & 0xFF) as u8, (best >> 8) as usize)
}

/// Header bytes of a granule of `n` bytes: the pattern and `ceil(n/8)` bitmap bytes.
#[inline]
fn header_len(n: usize) -> usize {
    1 + n.div_ceil(8)
}

/// Encode one granule into `dst` (which has at least `g.len() + SLACK` bytes) and return its
/// stored length (`g.len()` when stored raw).
#[inline]
fn encode_granule(g: &[u8], dst: &mut [u8], use_simd: bool) -> usize {
    let n = g.len();
    let (pat, count) = dominant(g);
    if count <= header_len(n) {
        dst[..n].copy_from_slice(g);
        return n;
    }
    if n == GRANULE_SIZE && use_simd {
        // SAFETY: `use_simd` is only true when `simd::available()` said SSSE3 and POPCNT are
        // present; the kernel checks its slice lengths itself.
        return unsafe { simd::encode_full(g.try_into().unwrap(), pat, dst) };
    }
    encode_scalar(g, pat, dst)
}

/// Portable granule encoder (any `n` up to a granule), byte for byte the SIMD kernel's output.
fn encode_scalar(g: &[u8], pat: u8, dst: &mut [u8]) -> usize {
    let n = g.len();
    let h = header_len(n);
    dst[0] = pat;
    dst[1..h].fill(0);
    let mut lits = h;
    for (i, &b) in g.iter().enumerate() {
        if b == pat {
            dst[1 + i / 8] |= 1 << (i % 8);
        } else {
            dst[lits] = b;
            lits += 1;
        }
    }
    lits
}

fn compress_impl(input: &[u8], out: &mut Vec<u8>, use_simd: bool) -> DpcInfo {
    out.clear();
    let units = input.len().div_ceil(UNIT_SIZE);
    let hdr = 1 + units.div_ceil(8);
    out.resize(hdr, 0);
    let mut info = DpcInfo {
        units,
        ..DpcInfo::default()
    };
    for (u, unit) in input.chunks(UNIT_SIZE).enumerate() {
        if is_zero(unit) {
            out[1 + u / 8] |= 1 << (u % 8);
            if u < 64 {
                info.zero_bitmap |= 1 << u;
            }
            info.zero_units += 1;
        } else {
            info.nonzero_len += unit.len();
            info.granules += unit.len().div_ceil(GRANULE_SIZE);
        }
    }
    let is_zero_unit = |out: &[u8], u: usize| (out[1 + u / 8] >> (u % 8)) & 1 == 1;

    // Length table, then granules; a granule never stores more than its raw length.
    let table = hdr;
    let mut p = hdr + info.granules;
    out.resize(p + info.nonzero_len + SLACK, 0);
    let mut gi = 0;
    for (u, unit) in input.chunks(UNIT_SIZE).enumerate() {
        if is_zero_unit(out, u) {
            continue;
        }
        for g in unit.chunks(GRANULE_SIZE) {
            let len = encode_granule(g, &mut out[p..], use_simd);
            info.raw_granules += usize::from(len == g.len());
            out[table + gi] = len as u8;
            gi += 1;
            p += len;
        }
    }
    info.encoded_len = p - hdr;
    // "DPC considers that compression is failed when the compression ratio is lower than 10%":
    // (nonzero - encoded) / nonzero < 10%  <=>  10 * encoded > 9 * nonzero.
    info.failed = (100 - MIN_SAVING_PERCENT) * info.nonzero_len < 100 * info.encoded_len;
    if info.failed {
        out.truncate(hdr);
        out[0] = FLAG_FAILED;
        for (u, unit) in input.chunks(UNIT_SIZE).enumerate() {
            if !is_zero_unit(out, u) {
                out.extend_from_slice(unit);
            }
        }
    } else {
        out.truncate(p);
    }
    info.compressed_len = out.len();
    info
}

fn decompress_impl(
    input: &[u8],
    original_len: usize,
    out: &mut Vec<u8>,
    use_simd: bool,
) -> Result<(), String> {
    out.clear();
    let units = original_len.div_ceil(UNIT_SIZE);
    let hdr = 1 + units.div_ceil(8);
    if input.len() < hdr {
        return Err(format!(
            "DPC header needs {hdr} bytes for a {original_len}-byte block, got {}",
            input.len()
        ));
    }
    let flags = input[0];
    if flags & !FLAG_FAILED != 0 {
        return Err(format!("DPC flags byte {flags:#04x} has unknown bits"));
    }
    let zero_bitmap = &input[1..hdr];
    if !units.is_multiple_of(8) && zero_bitmap[units / 8] >> (units % 8) != 0 {
        return Err("DPC zero bitmap marks units past the block's end".into());
    }
    let is_zero_unit = |u: usize| (zero_bitmap[u / 8] >> (u % 8)) & 1 == 1;
    let unit_len = |u: usize| UNIT_SIZE.min(original_len - u * UNIT_SIZE);
    let (mut nonzero_len, mut granules) = (0usize, 0usize);
    for u in (0..units).filter(|&u| !is_zero_unit(u)) {
        nonzero_len += unit_len(u);
        granules += unit_len(u).div_ceil(GRANULE_SIZE);
    }
    let body = &input[hdr..];
    if flags & FLAG_FAILED != 0 {
        if body.len() != nonzero_len {
            return Err(format!(
                "DPC failed page holds {} raw bytes, its zero bitmap says {nonzero_len}",
                body.len()
            ));
        }
    } else if body.len() < granules {
        return Err(format!(
            "DPC length table needs {granules} bytes, {} left",
            body.len()
        ));
    }
    // The header is consistent with `input`, so `original_len` is at most 32 KiB per input
    // byte (one bitmap bit per zero unit) or 128 bytes per input byte (one length byte per
    // granule): allocating it is bounded by the input.
    out.resize(original_len, 0);
    if flags & FLAG_FAILED != 0 {
        let mut p = 0;
        for u in (0..units).filter(|&u| !is_zero_unit(u)) {
            let n = unit_len(u);
            out[u * UNIT_SIZE..u * UNIT_SIZE + n].copy_from_slice(&body[p..p + n]);
            p += n;
        }
        return Ok(());
    }
    let (table, data) = body.split_at(granules);
    let mut p = 0;
    let mut gi = 0;
    for u in (0..units).filter(|&u| !is_zero_unit(u)) {
        let start = u * UNIT_SIZE;
        let end = start + unit_len(u);
        let mut pos = start;
        while pos < end {
            let n = GRANULE_SIZE.min(end - pos);
            let len = table[gi] as usize;
            gi += 1;
            let Some(stored) = data.get(p..p + len) else {
                return Err(format!(
                    "DPC granule {gi} needs {len} bytes, {} left",
                    data.len() - p.min(data.len())
                ));
            };
            let dst = &mut out[pos..pos + n];
            if len == n {
                dst.copy_from_slice(stored);
            } else {
                let h = header_len(n);
                if len < h {
                    return Err(format!("DPC granule {gi} length {len} is below its header"));
                }
                let (pat, bitmap) = (stored[0], &stored[1..h]);
                if !n.is_multiple_of(8) && bitmap[h - 2] >> (n % 8) != 0 {
                    return Err(format!("DPC granule {gi} bitmap marks bytes past its end"));
                }
                let hits: usize = bitmap.iter().map(|b| b.count_ones() as usize).sum();
                if len != h + n - hits {
                    return Err(format!(
                        "DPC granule {gi} length {len} disagrees with its bitmap ({hits} pattern bytes of {n})"
                    ));
                }
                decode_granule(bitmap, pat, data, p + h, dst, use_simd);
            }
            p += len;
            pos += n;
        }
    }
    if p != data.len() {
        return Err(format!(
            "DPC block has {} bytes after its last granule",
            data.len() - p
        ));
    }
    Ok(())
}

/// Rebuild one compressed granule into `dst`: `bitmap` has been checked to agree with the
/// literal count, and the literals are `data[lit..lit + dst.len() - popcount(bitmap)]`.
#[inline]
fn decode_granule(bitmap: &[u8], pat: u8, data: &[u8], lit: usize, dst: &mut [u8], simd: bool) {
    if dst.len() == GRANULE_SIZE && simd {
        let bitmap: &[u8; 16] = bitmap.try_into().unwrap();
        let dst: &mut [u8; GRANULE_SIZE] = dst.try_into().unwrap();
        // The kernel reads 16 bytes past its last literal: copy the literals of a granule at
        // the end of the input into a padded buffer first.
        let lits = &data[lit..];
        // SAFETY: `simd` is only true when SSSE3 and POPCNT were detected; the kernel checks
        // that `lits` covers the literals plus its 16-byte overread.
        if lits.len() >= GRANULE_SIZE + 16 {
            unsafe { simd::decode_full(bitmap, pat, lits, dst) };
        } else {
            let mut pad = [0u8; GRANULE_SIZE + 16];
            pad[..lits.len()].copy_from_slice(lits);
            unsafe { simd::decode_full(bitmap, pat, &pad, dst) };
        }
        return;
    }
    let mut li = lit;
    for (i, d) in dst.iter_mut().enumerate() {
        if (bitmap[i / 8] >> (i % 8)) & 1 == 1 {
            *d = pat;
        } else {
            *d = data[li];
            li += 1;
        }
    }
}

/// Shuffle tables and the SSSE3 kernels for full 128-byte granules.
#[cfg(target_arch = "x86_64")]
mod simd {
    use super::{FULL_HEADER, GRANULE_SIZE};
    use std::arch::x86_64::*;

    /// True when the CPU has SSSE3 (`pshufb`) and POPCNT (cached by std after the first call).
    #[inline]
    pub(super) fn available() -> bool {
        std::is_x86_feature_detected!("ssse3") && std::is_x86_feature_detected!("popcnt")
    }

    /// [`super::most_frequent`] with SSE2 (part of x86-64): sum the four histograms 16 bytes
    /// at a time keeping a running maximum, then find the first byte value holding it.
    #[inline]
    pub(super) fn most_frequent(t: &[[u8; 256]; 4]) -> (u8, usize) {
        let mut sums = [0u8; 256];
        // SAFETY: SSE2 is part of the x86-64 baseline; every load and store is 16 bytes at an
        // offset 16 * k < 256 of a 256-byte array.
        unsafe {
            let p = t.as_ptr() as *const u8;
            let mut mx = _mm_setzero_si128();
            for k in 0..16 {
                let ld = |j: usize| _mm_loadu_si128(p.add(256 * j + 16 * k) as *const __m128i);
                let s = _mm_add_epi8(_mm_add_epi8(ld(0), ld(1)), _mm_add_epi8(ld(2), ld(3)));
                _mm_storeu_si128(sums.as_mut_ptr().add(16 * k) as *mut __m128i, s);
                mx = _mm_max_epu8(mx, s);
            }
            mx = _mm_max_epu8(mx, _mm_srli_si128(mx, 8));
            mx = _mm_max_epu8(mx, _mm_srli_si128(mx, 4));
            mx = _mm_max_epu8(mx, _mm_srli_si128(mx, 2));
            mx = _mm_max_epu8(mx, _mm_srli_si128(mx, 1));
            let max = _mm_cvtsi128_si32(mx) as u8;
            let mv = _mm_set1_epi8(max as i8);
            for k in 0..16 {
                let s = _mm_loadu_si128(sums.as_ptr().add(16 * k) as *const __m128i);
                let m = _mm_movemask_epi8(_mm_cmpeq_epi8(s, mv)) as u32;
                if m != 0 {
                    return ((16 * k) as u8 + m.trailing_zeros() as u8, max as usize);
                }
            }
        }
        unreachable!("the maximum is one of the sums")
    }

    /// `COMPACT[m]`: for 8 bytes whose pattern positions are the set bits of `m`, the lane
    /// indices of the other bytes, in order (unused lanes 0x80, which `pshufb` zeroes).
    static COMPACT: [u64; 256] = compact_table();
    /// `EXPAND[m]`: for output lanes whose pattern positions are the set bits of `m`, lane `i`
    /// is 0x80 (pattern) or the index of its literal among this group's literals.
    static EXPAND: [u64; 256] = expand_table();

    const fn compact_table() -> [u64; 256] {
        let mut t = [0u64; 256];
        let mut m = 0;
        while m < 256 {
            let mut v = 0x8080_8080_8080_8080u64;
            let (mut lane, mut k) = (0, 0);
            while lane < 8 {
                if (m >> lane) & 1 == 0 {
                    v &= !(0xFFu64 << (8 * k));
                    v |= (lane as u64) << (8 * k);
                    k += 1;
                }
                lane += 1;
            }
            t[m] = v;
            m += 1;
        }
        t
    }

    const fn expand_table() -> [u64; 256] {
        let mut t = [0u64; 256];
        let mut m = 0;
        while m < 256 {
            let mut v = 0u64;
            let (mut lane, mut k) = (0, 0u64);
            while lane < 8 {
                let idx = if (m >> lane) & 1 == 1 {
                    0x80
                } else {
                    k += 1;
                    k - 1
                };
                v |= idx << (8 * lane);
                lane += 1;
            }
            t[m] = v;
            m += 1;
        }
        t
    }

    /// Encode a full granule whose pattern `pat` occurs more than 17 times: write the pattern,
    /// the 16-byte bitmap and the literals to `dst` and return the stored length.
    ///
    /// # Safety
    /// The CPU must have SSSE3 and POPCNT.
    #[target_feature(enable = "ssse3,popcnt")]
    pub(super) unsafe fn encode_full(g: &[u8; GRANULE_SIZE], pat: u8, dst: &mut [u8]) -> usize {
        // Literal stores are 8 bytes wide and may run 8 bytes past the last literal.
        assert!(dst.len() >= FULL_HEADER + GRANULE_SIZE + 8);
        let pv = _mm_set1_epi8(pat as i8);
        let d = dst.as_mut_ptr();
        *d = pat;
        let mut lit = FULL_HEADER;
        for k in 0..GRANULE_SIZE / 16 {
            let v = _mm_loadu_si128(g.as_ptr().add(16 * k) as *const __m128i);
            let m = _mm_movemask_epi8(_mm_cmpeq_epi8(v, pv)) as u32;
            std::ptr::write_unaligned(d.add(1 + 2 * k) as *mut u16, (m as u16).to_le());
            let (lo, hi) = ((m & 0xFF) as usize, (m >> 8) as usize);
            let idx = _mm_set_epi64x(
                (COMPACT[hi] + 0x0808_0808_0808_0808) as i64,
                COMPACT[lo] as i64,
            );
            // Lanes 0x88 of the high half stay negative, so pshufb still zeroes them.
            let packed = _mm_shuffle_epi8(v, idx);
            _mm_storel_epi64(d.add(lit) as *mut __m128i, packed);
            lit += 8 - lo.count_ones() as usize;
            _mm_storel_epi64(d.add(lit) as *mut __m128i, _mm_srli_si128(packed, 8));
            lit += 8 - hi.count_ones() as usize;
        }
        lit
    }

    /// Rebuild a full granule from its bitmap, pattern and literals.
    ///
    /// # Safety
    /// The CPU must have SSSE3 and POPCNT.
    #[target_feature(enable = "ssse3,popcnt")]
    pub(super) unsafe fn decode_full(
        bitmap: &[u8; 16],
        pat: u8,
        lits: &[u8],
        dst: &mut [u8; GRANULE_SIZE],
    ) {
        let hits: u32 = bitmap.iter().map(|b| b.count_ones()).sum();
        // Each 16-byte load starts at or before the last literal and reads 16 bytes.
        assert!(lits.len() >= GRANULE_SIZE - hits as usize + 16);
        let pv = _mm_set1_epi8(pat as i8);
        let zero = _mm_setzero_si128();
        let mut l = lits.as_ptr();
        for k in 0..GRANULE_SIZE / 16 {
            let (lo, hi) = (bitmap[2 * k] as usize, bitmap[2 * k + 1] as usize);
            let n_lo = 8 - lo.count_ones() as u64;
            // High lanes index past the low group's literals; 0x80 lanes stay negative.
            let idx = _mm_set_epi64x(
                (EXPAND[hi] + n_lo * 0x0101_0101_0101_0101) as i64,
                EXPAND[lo] as i64,
            );
            let v = _mm_loadu_si128(l as *const __m128i);
            let bytes = _mm_shuffle_epi8(v, idx);
            let is_pat = _mm_cmplt_epi8(idx, zero);
            let r = _mm_or_si128(bytes, _mm_and_si128(is_pat, pv));
            _mm_storeu_si128(dst.as_mut_ptr().add(16 * k) as *mut __m128i, r);
            l = l.add(16 - (lo | hi << 8).count_ones() as usize);
        }
    }
}

/// No vector kernels off x86-64: the scalar paths run.
#[cfg(not(target_arch = "x86_64"))]
mod simd {
    pub(super) fn available() -> bool {
        false
    }
    pub(super) unsafe fn encode_full(_: &[u8; super::GRANULE_SIZE], _: u8, _: &mut [u8]) -> usize {
        unreachable!()
    }
    pub(super) unsafe fn decode_full(
        _: &[u8; 16],
        _: u8,
        _: &[u8],
        _: &mut [u8; super::GRANULE_SIZE],
    ) {
        unreachable!()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Block contents the codec tests share: random, all-zero, sparse, repetitive and
    /// small-integer data, at lengths 0..=20000 and the exact page sizes.
    pub(crate) fn block() -> impl Strategy<Value = Vec<u8>> {
        let len = prop_oneof![
            3 => 0usize..=20000,
            1 => Just(4096usize),
            1 => Just(16384usize),
            1 => 0usize..=300,
        ];
        len.prop_flat_map(|n| {
            prop_oneof![
                proptest::collection::vec(any::<u8>(), n),
                Just(vec![0u8; n]),
                sparse(n),
                repetitive(n),
                small_ints(n),
                zero_units(n),
            ]
        })
    }

    fn sparse(n: usize) -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec((0..n.max(1), any::<u8>()), 0..=n / 16 + 1).prop_map(
            move |hits| {
                let mut v = vec![0u8; n];
                for (i, b) in hits {
                    if i < n {
                        v[i] = b;
                    }
                }
                v
            },
        )
    }

    fn repetitive(n: usize) -> impl Strategy<Value = Vec<u8>> {
        let piece = (proptest::collection::vec(any::<u8>(), 1..=8), 1usize..=200);
        proptest::collection::vec(piece, 1..=40).prop_map(move |pieces| {
            let mut v = Vec::with_capacity(n);
            'fill: loop {
                for (pat, reps) in &pieces {
                    for _ in 0..*reps {
                        for &b in pat {
                            if v.len() == n {
                                break 'fill;
                            }
                            v.push(b);
                        }
                    }
                }
                if n == 0 {
                    break;
                }
            }
            v
        })
    }

    fn small_ints(n: usize) -> impl Strategy<Value = Vec<u8>> {
        (any::<bool>(), any::<u64>(), 0u32..40).prop_flat_map(move |(wide, base, bits)| {
            proptest::collection::vec(any::<u64>(), n / 4 + 1).prop_map(move |r| {
                let mut v = Vec::with_capacity(n + 8);
                for x in r {
                    let small = if bits == 0 { 0 } else { x >> (64 - bits) };
                    if wide {
                        let val = if base & 1 == 0 {
                            small
                        } else {
                            base.wrapping_add(small)
                        };
                        v.extend_from_slice(&val.to_le_bytes());
                    } else {
                        v.extend_from_slice(&(small as u32).to_le_bytes());
                    }
                }
                v.truncate(n);
                v
            })
        })
    }

    /// Random data with some whole 4 KiB units zeroed.
    fn zero_units(n: usize) -> impl Strategy<Value = Vec<u8>> {
        (proptest::collection::vec(any::<u8>(), n), any::<u8>()).prop_map(|(mut v, mask)| {
            for (u, unit) in v.chunks_mut(UNIT_SIZE).enumerate() {
                if (mask >> (u % 8)) & 1 == 1 {
                    unit.fill(0);
                }
            }
            v
        })
    }

    /// Up to `max` bytes of this machine's licence texts and libraries (see
    /// [`crate::codec::bench::system_sample`]); the tests need them, so none is a failure.
    pub(crate) fn real_data(max: usize) -> Vec<u8> {
        let data = crate::codec::bench::system_sample(max);
        assert!(
            data.len() >= max / 2,
            "only {} bytes under /usr/share/common-licenses and /usr/lib/x86_64-linux-gnu",
            data.len()
        );
        data
    }

    fn round_trip_both(data: &[u8]) -> Vec<u8> {
        let mut c = Vec::new();
        let info = compress_with_info(data, &mut c);
        assert_eq!(info.compressed_len, c.len());
        let mut back = Vec::new();
        decompress(&c, data.len(), &mut back).unwrap();
        assert_eq!(back, data);
        // The portable path writes and reads the same bytes.
        let mut c2 = Vec::new();
        assert_eq!(compress_impl(data, &mut c2, false), info);
        assert_eq!(c2, c);
        decompress_impl(&c, data.len(), &mut back, false).unwrap();
        assert_eq!(back, data);
        c
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn round_trips(data in block()) {
            let c = round_trip_both(&data);
            // Bounded growth: a flag byte and the zero bitmap.
            prop_assert!(c.len() <= data.len() + 1 + data.len().div_ceil(UNIT_SIZE).div_ceil(8));
        }

        #[test]
        fn arbitrary_input_never_panics(junk in proptest::collection::vec(any::<u8>(), 0..600), len in 0usize..20000) {
            let mut out = Vec::new();
            for simd in [true, false] {
                if decompress_impl(&junk, len, &mut out, simd && simd::available()).is_ok() {
                    prop_assert_eq!(out.len(), len);
                }
            }
        }

        #[test]
        fn damaged_input_never_panics(data in block(), cut in any::<prop::sample::Index>(), flip in any::<prop::sample::Index>(), bit in 0u8..8) {
            let mut c = Vec::new();
            compress(&data, &mut c);
            let mut out = Vec::new();
            let cut_at = cut.index(c.len() + 1);
            for simd in [true, false] {
                let simd = simd && simd::available();
                let r = decompress_impl(&c[..cut_at], data.len(), &mut out, simd);
                if cut_at < c.len() {
                    prop_assert!(r.is_err(), "truncated at {} of {} decoded", cut_at, c.len());
                }
                if !c.is_empty() {
                    let mut bad = c.clone();
                    bad[flip.index(c.len())] ^= 1 << bit;
                    if decompress_impl(&bad, data.len(), &mut out, simd).is_ok() {
                        prop_assert_eq!(out.len(), data.len());
                    }
                }
            }
        }
    }

    #[test]
    fn zero_bitmap_marks_zero_units_lsb_first() {
        let mut page = vec![0x5Au8; 16384];
        page[UNIT_SIZE..2 * UNIT_SIZE].fill(0);
        page[3 * UNIT_SIZE..].fill(0);
        let info = analyze(&page);
        assert_eq!(info.units, 4);
        assert_eq!(info.zero_bitmap, 0b1010);
        assert_eq!(info.zero_units, 2);
        assert_eq!(info.nonzero_len, 2 * UNIT_SIZE);
        assert!(!info.failed);
        let c = round_trip_both(&page);
        assert_eq!(c[1], 0b1010);
        // Two units of one repeated byte: 64 granules of pattern + all-ones bitmap.
        assert_eq!(c.len(), 2 + 64 + 64 * 17);

        // A short final unit can be zero too.
        let mut odd = vec![1u8; 9000];
        odd[2 * UNIT_SIZE..].fill(0);
        assert_eq!(analyze(&odd).zero_bitmap, 0b100);
        round_trip_both(&odd);
    }

    #[test]
    fn all_zero_pages_are_tiny() {
        for len in [4096, 16384, 5000] {
            let info = analyze(&vec![0u8; len]);
            assert!(!info.failed);
            assert_eq!(info.nonzero_len, 0);
            assert_eq!(info.compressed_len, 2, "{len}");
            round_trip_both(&vec![0u8; len]);
        }
        assert_eq!(analyze(&[]).compressed_len, 1);
        assert_eq!(analyze(&vec![0u8; 64 * UNIT_SIZE]).zero_bitmap, u64::MAX);
    }

    #[test]
    fn random_data_fails_and_costs_two_bytes() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let page: Vec<u8> = (0..16384)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect();
        let info = analyze(&page);
        assert!(info.failed);
        assert_eq!(info.raw_granules, 128);
        assert_eq!(info.compressed_len, 16384 + 2);
        let c = round_trip_both(&page);
        assert_eq!(c[0], FLAG_FAILED);
        // With units 0 and 2 zeroed the page still fails, storing the other two raw.
        let mut half = page.clone();
        half[..UNIT_SIZE].fill(0);
        half[2 * UNIT_SIZE..3 * UNIT_SIZE].fill(0);
        let info = analyze(&half);
        assert!(info.failed);
        assert_eq!((info.zero_bitmap, info.compressed_len), (0b101, 8192 + 2));
        round_trip_both(&half);
    }

    /// A granule of 128 bytes holding `hits` copies of 0xEE and distinct other bytes.
    fn granule(hits: usize, salt: usize) -> Vec<u8> {
        (0..GRANULE_SIZE)
            .map(|i| {
                if i * hits / GRANULE_SIZE != (i + 1) * hits / GRANULE_SIZE {
                    0xEE
                } else {
                    ((i + salt) % 200 + 1) as u8
                }
            })
            .collect()
    }

    #[test]
    fn granules_store_raw_unless_the_pattern_pays_for_its_header() {
        for (hits, stored) in [(17, 128), (18, 127), (40, 105), (128, 17)] {
            let g = granule(hits, 0);
            assert_eq!(g.iter().filter(|&&b| b == 0xEE).count(), hits);
            let mut c = Vec::new();
            let info = compress_with_info(&g, &mut c);
            assert_eq!(info.encoded_len, 1 + stored, "{hits}");
            assert_eq!(info.raw_granules, usize::from(stored == 128));
            round_trip_both(&g);
        }
        // A short granule of 20 bytes: header 1 + 3 bytes, so 5 hits are needed.
        for (hits, stored) in [(4, 20), (5, 19)] {
            let g: Vec<u8> = (0..20)
                .map(|i| if i < hits { 7 } else { 100 + i as u8 })
                .collect();
            let info = analyze(&g);
            assert_eq!(info.encoded_len, 1 + stored, "{hits}");
            round_trip_both(&g);
        }
    }

    #[test]
    fn pages_saving_under_ten_percent_fail() {
        // 32 granules with c hits each: encoded = 32 + 32 * (145 - c) against 4096 bytes.
        let page = |hits: &[usize]| -> Vec<u8> {
            hits.iter()
                .enumerate()
                .flat_map(|(k, &h)| granule(h, k))
                .collect()
        };
        let p31 = page(&[31; 32]); // encoded 3680: saving 10.16%
        let info = analyze(&p31);
        assert_eq!((info.encoded_len, info.failed), (3680, false));
        assert_eq!(info.compressed_len, 2 + 3680);
        round_trip_both(&p31);
        let p30 = page(&[30; 32]); // encoded 3712: saving 9.38%
        let info = analyze(&p30);
        assert_eq!((info.encoded_len, info.failed), (3712, true));
        assert_eq!(info.compressed_len, 2 + 4096);
        round_trip_both(&p30);
        // Exactly 10% (1280 bytes encoded to 1152) is not "lower than 10%"; one byte more is.
        let exact = page(&[31, 31, 31, 31, 31, 31, 31, 31, 30, 30]);
        let info = analyze(&exact);
        assert_eq!(
            (info.nonzero_len, info.encoded_len, info.failed),
            (1280, 1152, false)
        );
        let over = page(&[31, 31, 31, 31, 31, 31, 31, 31, 30, 29]);
        let info = analyze(&over);
        assert_eq!((info.encoded_len, info.failed), (1153, true));
        round_trip_both(&exact);
        round_trip_both(&over);
    }

    #[test]
    fn zero_units_do_not_count_towards_the_saving() {
        // One unit saving 9.4% plus three zero units: fails, as the paper's LPN 907 does.
        let mut page: Vec<u8> = (0..32).flat_map(|k| granule(30, k)).collect();
        page.resize(16384, 0);
        let info = analyze(&page);
        assert!(info.failed);
        assert_eq!((info.zero_bitmap, info.compressed_len), (0b1110, 2 + 4096));
        round_trip_both(&page);
    }

    proptest! {
        #[test]
        fn vector_and_portable_reductions_agree(g in proptest::collection::vec(0u8..6, 0..=128)) {
            let t = histograms(&g);
            let (b, c) = most_frequent(&t);
            prop_assert_eq!(dominant(&g), (b, c));
            prop_assert_eq!(g.iter().filter(|&&x| x == b).count(), c);
            for v in 0..b {
                prop_assert!(g.iter().filter(|&&x| x == v).count() < c);
            }
        }
    }

    #[test]
    fn dominant_ties_go_to_the_smallest_byte() {
        let g: Vec<u8> = (0..128).map(|i| if i % 2 == 0 { 9 } else { 3 }).collect();
        assert_eq!(dominant(&g), (3, 64));
        assert_eq!(dominant(&[]), (0, 0));
        assert_eq!(dominant(&[255; 128]), (255, 128));
    }

    #[test]
    fn real_files_round_trip_through_all_three_codecs() {
        use crate::codec::{bdi, fpc};
        let data = real_data(4 << 20);
        if data.is_empty() {
            eprintln!("no real files found; skipped");
            return;
        }
        type Pair = (
            fn(&[u8], &mut Vec<u8>),
            fn(&[u8], usize, &mut Vec<u8>) -> Result<(), String>,
        );
        let codecs: [(&str, Pair); 3] = [
            ("dpc", (compress, decompress)),
            ("fpc", (fpc::compress, fpc::decompress)),
            ("bdi", (bdi::compress, bdi::decompress)),
        ];
        let (mut c, mut back) = (Vec::new(), Vec::new());
        for block in [4096usize, 16384] {
            for (name, (comp, decomp)) in codecs {
                let (mut raw, mut stored, mut failed) = (0usize, 0usize, 0usize);
                for b in data.chunks_exact(block) {
                    c.clear();
                    back.clear();
                    comp(b, &mut c);
                    decomp(&c, b.len(), &mut back).unwrap();
                    assert!(back == b, "{name} round trip of a {block}-byte block");
                    raw += b.len();
                    stored += crate::codec::stored_len(c.len(), b.len());
                    if name == "dpc" && analyze(b).failed {
                        failed += 1;
                    }
                }
                eprintln!(
                    "{name} {block:>5} B blocks: {:.1}% saved on {} MiB{}",
                    100.0 * (1.0 - stored as f64 / raw as f64),
                    raw >> 20,
                    if name == "dpc" {
                        format!(", {failed} of {} pages failed", raw / block)
                    } else {
                        String::new()
                    }
                );
            }
        }
    }
}
