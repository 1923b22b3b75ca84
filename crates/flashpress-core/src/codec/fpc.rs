//! Frequent Pattern Compression (FPC): A. R. Alameldeen and D. A. Wood, "Frequent Pattern
//! Compression: A Significance-Based Compression Scheme for L2 Caches", Tech. Rep. 1500,
//! Computer Sciences Dept., University of Wisconsin-Madison, 2004 (Table 1), applied to a page
//! one 64-byte cache line at a time, as PR-SSD evaluates it (seed 002, §4.2 and §5).
//!
//! Each line is read as 32-bit little-endian words; each word (or run of zero words) becomes
//! a 3-bit prefix and its data bits:
//!
//! | prefix | pattern                                          | data bits |
//! |--------|--------------------------------------------------|-----------|
//! | 000    | zero run of 1..=8 words (run length - 1)         | 3         |
//! | 001    | 4-bit sign-extended                              | 4         |
//! | 010    | one byte sign-extended                           | 8         |
//! | 011    | halfword sign-extended                           | 16        |
//! | 100    | halfword padded with a zero halfword (low half 0)| 16        |
//! | 101    | two halfwords, each a sign-extended byte         | 16        |
//! | 110    | word of four repeated bytes                      | 8         |
//! | 111    | uncompressed word                                | 32        |
//!
//! A word matching several patterns takes the one with the fewest data bits (in table order
//! on ties). Zero runs end at the line's end: lines are compressed independently.
//!
//! # Framing (our choice; the paper sizes single cache lines)
//!
//! ```text
//! ceil(lines/8) bytes   raw-line bitmap: bit i%8 of byte i/8 set = line i stored raw
//! per line              raw: its bytes; else its prefixes and data, packed LSB-first from
//!                       bit 0 of the line's first byte, padded with zero bits to a byte
//! ```
//!
//! A line's compressed size is its bit count rounded up to whole bytes; a line whose
//! compressed size is not below its raw size is stored raw. The framing therefore costs one
//! bit per 64-byte line (8 bytes per 4 KiB page) and up to 7 padding bits per compressed
//! line. A final short line (page length not a multiple of 64) is encoded as
//! `ceil(len/4)` words, its last word padded with zero bytes, and truncated on decoding.

/// Bytes of a cache line.
pub const LINE_SIZE: usize = 64;
const WORDS: usize = LINE_SIZE / 4;

/// The eight FPC patterns, by prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Pattern {
    /// `000`: a run of zero words.
    ZeroRun = 0,
    /// `001`: a 4-bit sign-extended value.
    Sign4 = 1,
    /// `010`: an 8-bit sign-extended value.
    Sign8 = 2,
    /// `011`: a 16-bit sign-extended value.
    Sign16 = 3,
    /// `100`: a halfword padded with a zero (low) halfword.
    HalfPadded = 4,
    /// `101`: two halfwords, each a sign-extended byte.
    TwoSignBytes = 5,
    /// `110`: a word of four repeated bytes.
    RepeatedBytes = 6,
    /// `111`: an uncompressed word.
    Uncompressed = 7,
}

impl Pattern {
    /// Data bits that follow the 3-bit prefix.
    pub fn data_bits(self) -> u32 {
        match self {
            Pattern::ZeroRun => 3,
            Pattern::Sign4 => 4,
            Pattern::Sign8 | Pattern::RepeatedBytes => 8,
            Pattern::Sign16 | Pattern::HalfPadded | Pattern::TwoSignBytes => 16,
            Pattern::Uncompressed => 32,
        }
    }
}

#[inline]
fn fits_signed(v: i32, bits: u32) -> bool {
    let lim = 1i32 << (bits - 1);
    (-lim..lim).contains(&v)
}

/// The pattern of a non-zero word and its data bits' value.
#[inline]
pub fn classify(w: u32) -> (Pattern, u32) {
    let s = w as i32;
    if w == 0 {
        (Pattern::ZeroRun, 0)
    } else if fits_signed(s, 4) {
        (Pattern::Sign4, w & 0xF)
    } else if fits_signed(s, 8) {
        (Pattern::Sign8, w & 0xFF)
    } else if w == (w & 0xFF).wrapping_mul(0x0101_0101) {
        (Pattern::RepeatedBytes, w & 0xFF)
    } else if fits_signed(s, 16) {
        (Pattern::Sign16, w & 0xFFFF)
    } else if w & 0xFFFF == 0 {
        (Pattern::HalfPadded, w >> 16)
    } else if fits_signed(w as u16 as i16 as i32, 8)
        && fits_signed((w >> 16) as u16 as i16 as i32, 8)
    {
        (Pattern::TwoSignBytes, (w & 0xFF) | ((w >> 8) & 0xFF00))
    } else {
        (Pattern::Uncompressed, w)
    }
}

/// Bits of a line of 32-bit words, prefixes included (zero runs of up to 8 words).
pub fn line_bits(words: &[u32]) -> usize {
    let mut bits = 0;
    let mut i = 0;
    while i < words.len() {
        if words[i] == 0 {
            let run = words[i..].iter().take(8).take_while(|&&w| w == 0).count();
            i += run;
            bits += 3 + 3;
        } else {
            bits += 3 + classify(words[i]).0.data_bits() as usize;
            i += 1;
        }
    }
    bits
}

/// LSB-first bit packer into a fixed line buffer.
struct BitWriter<'a> {
    buf: &'a mut [u8],
    pos: usize,
    acc: u64,
    nbits: u32,
}

impl BitWriter<'_> {
    #[inline]
    fn put(&mut self, v: u32, n: u32) {
        // nbits < 32 on entry and n <= 32, so the accumulator never overflows.
        self.acc |= (v as u64) << self.nbits;
        self.nbits += n;
        if self.nbits >= 32 {
            self.buf[self.pos..self.pos + 4].copy_from_slice(&(self.acc as u32).to_le_bytes());
            self.pos += 4;
            self.acc >>= 32;
            self.nbits -= 32;
        }
    }

    /// Flush the partial byte(s); return the number of bytes written.
    fn finish(mut self) -> usize {
        while self.nbits > 0 {
            self.buf[self.pos] = self.acc as u8;
            self.pos += 1;
            self.acc >>= 8;
            self.nbits = self.nbits.saturating_sub(8);
        }
        self.pos
    }
}

/// Words of a line (the last one zero-padded) into `words`; returns their count.
#[inline]
fn load_words(line: &[u8], words: &mut [u32; WORDS]) -> usize {
    let mut chunks = line.chunks_exact(4);
    let mut n = 0;
    for c in &mut chunks {
        words[n] = u32::from_le_bytes(c.try_into().unwrap());
        n += 1;
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut b = [0u8; 4];
        b[..rest.len()].copy_from_slice(rest);
        words[n] = u32::from_le_bytes(b);
        n += 1;
    }
    n
}

/// Encode one line into `buf` (at least 72 bytes) and return its byte length.
fn encode_line(words: &[u32], buf: &mut [u8]) -> usize {
    let mut w = BitWriter {
        buf,
        pos: 0,
        acc: 0,
        nbits: 0,
    };
    let mut i = 0;
    while i < words.len() {
        let (p, v) = classify(words[i]);
        if p == Pattern::ZeroRun {
            let run = words[i..].iter().take(8).take_while(|&&w| w == 0).count();
            w.put(0, 3);
            w.put(run as u32 - 1, 3);
            i += run;
        } else {
            w.put(p as u32, 3);
            w.put(v, p.data_bits());
            i += 1;
        }
    }
    w.finish()
}

/// Compress `input` (any length) into `out` (cleared first).
pub fn compress(input: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let lines = input.len().div_ceil(LINE_SIZE);
    let flags = lines.div_ceil(8);
    out.resize(flags, 0);
    out.reserve(input.len());
    let mut words = [0u32; WORDS];
    // 16 words of 35 bits at most: 70 bytes, plus room for a 4-byte flush.
    let mut buf = [0u8; 80];
    for (i, line) in input.chunks(LINE_SIZE).enumerate() {
        let n = load_words(line, &mut words);
        let len = encode_line(&words[..n], &mut buf);
        if len < line.len() {
            out.extend_from_slice(&buf[..len]);
        } else {
            out[i / 8] |= 1 << (i % 8);
            out.extend_from_slice(line);
        }
    }
}

/// LSB-first bit reader over a line's bytes.
struct BitReader<'a> {
    data: &'a [u8],
    pos: usize,
    acc: u64,
    nbits: u32,
}

impl BitReader<'_> {
    #[inline]
    fn get(&mut self, n: u32) -> Result<u32, String> {
        while self.nbits < n {
            let Some(&b) = self.data.get(self.pos) else {
                return Err("FPC line truncated".into());
            };
            self.acc |= (b as u64) << self.nbits;
            self.pos += 1;
            self.nbits += 8;
        }
        let v = (self.acc & ((1u64 << n) - 1)) as u32;
        self.acc >>= n;
        self.nbits -= n;
        Ok(v)
    }
}

#[inline]
fn sign_extend(v: u32, bits: u32) -> u32 {
    (((v << (32 - bits)) as i32) >> (32 - bits)) as u32
}

/// Decode one word of pattern `p` from its data bits.
#[inline]
fn expand(p: u32, v: u32) -> u32 {
    match p {
        1 => sign_extend(v, 4),
        2 => sign_extend(v, 8),
        3 => sign_extend(v, 16),
        4 => v << 16,
        5 => (sign_extend(v & 0xFF, 8) & 0xFFFF) | (sign_extend(v >> 8, 8) << 16),
        6 => v.wrapping_mul(0x0101_0101),
        _ => v,
    }
}

/// Decompress `input`, made by [`compress`] from `original_len` bytes, into `out` (cleared
/// first). Corrupt or truncated input is an error message, never a panic.
pub fn decompress(input: &[u8], original_len: usize, out: &mut Vec<u8>) -> Result<(), String> {
    out.clear();
    let lines = original_len.div_ceil(LINE_SIZE);
    let flags = lines.div_ceil(8);
    if input.len() < flags {
        return Err(format!(
            "FPC raw-line bitmap needs {flags} bytes, got {}",
            input.len()
        ));
    }
    // Every line takes at least one byte (a zero run is 6 bits), so a consistent input
    // bounds original_len; check before allocating.
    if input.len() - flags < lines {
        return Err(format!(
            "FPC input of {} bytes cannot hold {lines} lines",
            input.len()
        ));
    }
    let (bitmap, mut rest) = input.split_at(flags);
    out.reserve(original_len);
    let mut words = [0u32; WORDS];
    for i in 0..lines {
        let n = LINE_SIZE.min(original_len - i * LINE_SIZE);
        if (bitmap[i / 8] >> (i % 8)) & 1 == 1 {
            let Some(raw) = rest.get(..n) else {
                return Err(format!("FPC raw line {i} truncated"));
            };
            out.extend_from_slice(raw);
            rest = &rest[n..];
            continue;
        }
        let nw = n.div_ceil(4);
        let mut r = BitReader {
            data: rest,
            pos: 0,
            acc: 0,
            nbits: 0,
        };
        let mut k = 0;
        while k < nw {
            let p = r.get(3)?;
            if p == 0 {
                let run = r.get(3)? as usize + 1;
                if k + run > nw {
                    return Err(format!("FPC zero run past the end of line {i}"));
                }
                words[k..k + run].fill(0);
                k += run;
            } else {
                let bits = [0, 4, 8, 16, 16, 16, 8, 32][p as usize];
                words[k] = expand(p, r.get(bits)?);
                k += 1;
            }
        }
        let start = out.len();
        for w in &words[..nw] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.truncate(start + n);
        rest = &rest[r.pos..];
    }
    if !rest.is_empty() {
        return Err(format!(
            "FPC block has {} bytes after its last line",
            rest.len()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::dpc::tests::block;
    use crate::codec::testkit::decoder_properties;
    use proptest::prelude::*;

    fn round_trip(data: &[u8]) -> usize {
        crate::codec::testkit::round_trip(compress, decompress, data)
    }

    fn line_of_u32(ws: [u32; 16]) -> Vec<u8> {
        ws.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    decoder_properties!(false);

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn round_trips(data in block()) {
            let n = round_trip(&data);
            // Bounded growth: one raw-line bit per 64-byte line.
            prop_assert!(n <= data.len() + data.len().div_ceil(LINE_SIZE).div_ceil(8));
        }

        #[test]
        fn every_word_class_round_trips(w in any::<u32>(), small in -8i32..8, byte in any::<i8>(), half in any::<i16>()) {
            for v in [w, small as u32, byte as u32, half as u32, (half as u32) << 16,
                      (byte as u8 as u32) * 0x0101_0101,
                      (byte as i16 as u16 as u32) | ((small as i16 as u16 as u32) << 16)] {
                let (p, d) = classify(v);
                if v != 0 {
                    prop_assert_eq!(expand(p as u32, d), v, "{:#x} as {:?}", v, p);
                }
            }
        }
    }

    #[test]
    fn words_take_the_smallest_pattern() {
        assert_eq!(classify(5).0, Pattern::Sign4);
        assert_eq!(classify(-8i32 as u32).0, Pattern::Sign4);
        assert_eq!(classify(8).0, Pattern::Sign8);
        assert_eq!(classify(-128i32 as u32).0, Pattern::Sign8);
        assert_eq!(classify(0x4141_4141).0, Pattern::RepeatedBytes);
        assert_eq!(classify(0xFFFF_FFFF).0, Pattern::Sign4);
        assert_eq!(classify(300).0, Pattern::Sign16);
        assert_eq!(classify(0x1234_0000).0, Pattern::HalfPadded);
        assert_eq!(classify(0x0012_FF80).0, Pattern::TwoSignBytes);
        assert_eq!(classify(0x1234_5678).0, Pattern::Uncompressed);
    }

    #[test]
    fn hand_computed_line_sizes() {
        let size = |line: &[u8]| {
            let mut c = Vec::new();
            compress(line, &mut c);
            round_trip(line);
            c.len() - 1 // minus the raw-line bitmap byte
        };
        // All zeros: two runs of 8 words, (3 + 3) bits each = 12 bits -> 2 bytes.
        assert_eq!(size(&[0u8; 64]), 2);
        // Small ints 0..16 as u32: one zero run (6 bits), 1..=7 as 4-bit (7 bits each),
        // 8..=15 as 8-bit (11 bits each): 6 + 49 + 88 = 143 bits -> 18 bytes.
        let ints: [u32; 16] = std::array::from_fn(|i| i as u32);
        assert_eq!(line_bits(&ints), 143);
        assert_eq!(size(&line_of_u32(ints)), 18);
        // Eight 8-byte pointers 0x0000_7f3a_1c20_0000 + 0x40 * i, as 16 words.
        let ptrs: Vec<u8> = (0..8u64)
            .flat_map(|i| (0x0000_7f3a_1c20_0000u64 + 0x40 * i).to_le_bytes())
            .collect();
        // Low words 0x1c20_0000.. are uncompressed except 0x1c20_0000 (halfword padded,
        // 19 bits); high words 0x7f3a are 16-bit sign-extended (19 bits):
        // 19 + 7 * 35 + 8 * 19 = 416 bits = 52 bytes.
        assert_eq!(size(&ptrs), 52);
        // Random words do not shrink: stored raw, 64 bytes plus the flag bit.
        let rnd = line_of_u32(std::array::from_fn(|i| {
            0x9E37_79B9u32.wrapping_mul(i as u32 + 1)
        }));
        assert_eq!(size(&rnd), 64);
        let mut c = Vec::new();
        compress(&rnd, &mut c);
        assert_eq!(c[0], 1);
    }

    #[test]
    fn short_tails_and_page_framing() {
        // 4096 zero bytes: 8 flag bytes + 64 lines of 2 bytes.
        assert_eq!(round_trip(&[0u8; 4096]), 8 + 128);
        // A 6-byte line of small values: words 1 and 2 (padded), 7 + 7 bits -> 2 bytes.
        assert_eq!(round_trip(&[1, 0, 0, 0, 2, 0]), 1 + 2);
        assert_eq!(round_trip(&[]), 0);
        assert_eq!(round_trip(&[0xAB]), 1 + 1);
    }
}
