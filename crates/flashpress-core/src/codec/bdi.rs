//! Base-Delta-Immediate compression (BΔI): G. Pekhimenko, V. Seshadri, O. Mutlu,
//! P. B. Gibbons, M. A. Kozuch and T. C. Mowry, "Base-Delta-Immediate Compression: Practical
//! Data Compression for On-Chip Caches", PACT 2012 (Table 2 and §4), applied to a page one
//! 64-byte cache line at a time, as PR-SSD evaluates it (seed 002, §4.2 and §5).
//!
//! Each line takes the smallest of these encodings (4-bit id, paper's Table 2):
//!
//! | id   | encoding            | payload bytes for a 64-byte line              |
//! |------|---------------------|-----------------------------------------------|
//! | 0000 | zeros               | 0 (the id says it all)                        |
//! | 0001 | repeated 8-byte value | 8                                           |
//! | 0010 | base 8, Δ 1         | 8 + 8×1 + 1 = 17                              |
//! | 0011 | base 8, Δ 2         | 8 + 8×2 + 1 = 25                              |
//! | 0100 | base 8, Δ 4         | 8 + 8×4 + 1 = 41                              |
//! | 0101 | base 4, Δ 1         | 4 + 16×1 + 2 = 22                             |
//! | 0110 | base 4, Δ 2         | 4 + 16×2 + 2 = 38                             |
//! | 0111 | base 2, Δ 1         | 2 + 32×1 + 4 = 38                             |
//! | 1111 | uncompressed        | 64                                            |
//!
//! Base+delta encodings use the paper's two bases: an implicit zero base (so small values are
//! stored as "immediates") and one arbitrary base, the first element that is not an immediate.
//! Every element then needs one bit saying which base it uses; that mask (one bit per element,
//! `ceil(k/8)` bytes) is the last term above, on top of the paper's Table 2 sizes (base plus
//! deltas). Elements are little-endian; deltas are two's-complement differences in the
//! element's width that must fit, sign-extended, in the delta width. An element that is an
//! immediate uses the zero base (mask bit 0), otherwise the arbitrary base (mask bit 1). Ties
//! in size go to the lower id.
//!
//! # Framing
//!
//! ```text
//! ceil(lines/2) bytes   encoding ids: line i in the low nibble of byte i/2 when i is even,
//!                       the high nibble when odd (an unused last nibble is zero)
//! per line              payload: base (LE), mask (bit j%8 of byte j/8 = element j uses the
//!                       arbitrary base), deltas (LE); or the 8-byte value; or raw bytes
//! ```
//!
//! The 4-bit id costs 32 bytes per 4 KiB page. A final short line (page length not a multiple
//! of 64) is encoded as if zero-padded to 64 bytes and truncated on decoding; it is stored raw
//! unless its payload is shorter than the line.

/// Bytes of a cache line.
pub const LINE_SIZE: usize = 64;

/// A BΔI line encoding, by its 4-bit id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Encoding {
    /// All 64 bytes zero.
    Zeros = 0,
    /// One 8-byte value repeated eight times.
    Repeated = 1,
    /// Base 8 bytes, deltas 1 byte.
    B8D1 = 2,
    /// Base 8 bytes, deltas 2 bytes.
    B8D2 = 3,
    /// Base 8 bytes, deltas 4 bytes.
    B8D4 = 4,
    /// Base 4 bytes, deltas 1 byte.
    B4D1 = 5,
    /// Base 4 bytes, deltas 2 bytes.
    B4D2 = 6,
    /// Base 2 bytes, deltas 1 byte.
    B2D1 = 7,
    /// Stored as is.
    Uncompressed = 15,
}

impl Encoding {
    /// Encodings in the order tried: by payload size, then id.
    const BY_SIZE: [Encoding; 8] = [
        Encoding::Zeros,
        Encoding::Repeated,
        Encoding::B8D1,
        Encoding::B4D1,
        Encoding::B8D2,
        Encoding::B4D2,
        Encoding::B2D1,
        Encoding::B8D4,
    ];

    fn from_id(id: u8) -> Option<Encoding> {
        Some(match id {
            0 => Encoding::Zeros,
            1 => Encoding::Repeated,
            2 => Encoding::B8D1,
            3 => Encoding::B8D2,
            4 => Encoding::B8D4,
            5 => Encoding::B4D1,
            6 => Encoding::B4D2,
            7 => Encoding::B2D1,
            15 => Encoding::Uncompressed,
            _ => return None,
        })
    }

    /// (base bytes, delta bytes) of a base+delta encoding.
    pub fn base_delta(self) -> Option<(usize, usize)> {
        match self {
            Encoding::B8D1 => Some((8, 1)),
            Encoding::B8D2 => Some((8, 2)),
            Encoding::B8D4 => Some((8, 4)),
            Encoding::B4D1 => Some((4, 1)),
            Encoding::B4D2 => Some((4, 2)),
            Encoding::B2D1 => Some((2, 1)),
            _ => None,
        }
    }

    /// Payload bytes of a 64-byte line in this encoding (see the module table).
    pub fn payload_len(self) -> usize {
        match self {
            Encoding::Zeros => 0,
            Encoding::Repeated => 8,
            Encoding::Uncompressed => LINE_SIZE,
            e => {
                let (b, d) = e.base_delta().unwrap();
                let k = LINE_SIZE / b;
                b + k * d + k.div_ceil(8)
            }
        }
    }
}

/// Read element `j` of width `b` bytes.
#[inline]
fn element(line: &[u8; LINE_SIZE], b: usize, j: usize) -> u64 {
    let mut v = [0u8; 8];
    v[..b].copy_from_slice(&line[j * b..j * b + b]);
    u64::from_le_bytes(v)
}

/// True when `x`, a `b`-byte two's-complement value, fits sign-extended in `d` bytes.
#[inline]
fn fits(x: u64, b: usize, d: usize) -> bool {
    let sh = 64 - 8 * b as u32;
    let s = ((x << sh) as i64) >> sh;
    let lim = 1i64 << (8 * d - 1);
    (-lim..lim).contains(&s)
}

#[inline]
fn width_mask(b: usize) -> u64 {
    if b == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * b)) - 1
    }
}

/// Encode `line` as base `B` + deltas `D` into `dst`; false if some element fits neither base.
/// (Const widths let each of the six variants compile to fixed-size loads and checks.)
fn try_base_delta<const B: usize, const D: usize>(line: &[u8; LINE_SIZE], dst: &mut [u8]) -> bool {
    let k = LINE_SIZE / B;
    let wm = width_mask(B);
    let base = (0..k)
        .map(|j| element(line, B, j))
        .find(|&v| !fits(v, B, D))
        .unwrap_or(0);
    let (head, deltas) = dst.split_at_mut(B + k.div_ceil(8));
    let (base_out, mask) = head.split_at_mut(B);
    base_out.copy_from_slice(&base.to_le_bytes()[..B]);
    mask.fill(0);
    for j in 0..k {
        let v = element(line, B, j);
        let delta = if fits(v, B, D) {
            v
        } else {
            let diff = v.wrapping_sub(base) & wm;
            if !fits(diff, B, D) {
                return false;
            }
            mask[j / 8] |= 1 << (j % 8);
            diff
        };
        deltas[j * D..j * D + D].copy_from_slice(&delta.to_le_bytes()[..D]);
    }
    true
}

/// Compress one line (zero-padded to 64 bytes) into `dst` (at least 64 bytes): its encoding
/// and payload length.
pub fn encode_line(line: &[u8], dst: &mut [u8]) -> (Encoding, usize) {
    let n = line.len();
    let mut padded = [0u8; LINE_SIZE];
    padded[..n].copy_from_slice(line);
    for e in Encoding::BY_SIZE {
        let len = e.payload_len();
        if len >= n {
            break;
        }
        let ok = match e {
            Encoding::Zeros => padded.iter().all(|&b| b == 0),
            Encoding::Repeated => {
                let ok = padded.chunks_exact(8).all(|c| c == &padded[..8]);
                if ok {
                    dst[..8].copy_from_slice(&padded[..8]);
                }
                ok
            }
            Encoding::B8D1 => try_base_delta::<8, 1>(&padded, dst),
            Encoding::B8D2 => try_base_delta::<8, 2>(&padded, dst),
            Encoding::B8D4 => try_base_delta::<8, 4>(&padded, dst),
            Encoding::B4D1 => try_base_delta::<4, 1>(&padded, dst),
            Encoding::B4D2 => try_base_delta::<4, 2>(&padded, dst),
            Encoding::B2D1 => try_base_delta::<2, 1>(&padded, dst),
            Encoding::Uncompressed => unreachable!("not in BY_SIZE"),
        };
        if ok {
            return (e, len);
        }
    }
    dst[..n].copy_from_slice(line);
    (Encoding::Uncompressed, n)
}

/// Compress `input` (any length) into `out` (cleared first).
pub fn compress(input: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let lines = input.len().div_ceil(LINE_SIZE);
    out.resize(lines.div_ceil(2), 0);
    out.reserve(input.len());
    let mut buf = [0u8; LINE_SIZE];
    for (i, line) in input.chunks(LINE_SIZE).enumerate() {
        let (e, len) = encode_line(line, &mut buf);
        out[i / 2] |= (e as u8) << (4 * (i % 2));
        out.extend_from_slice(&buf[..len]);
    }
}

/// Rebuild a 64-byte line from encoding `e` and its payload.
fn decode_line(e: Encoding, p: &[u8], line: &mut [u8; LINE_SIZE]) {
    match e {
        Encoding::Zeros => line.fill(0),
        Encoding::Repeated => {
            for c in line.chunks_exact_mut(8) {
                c.copy_from_slice(&p[..8]);
            }
        }
        Encoding::Uncompressed => line[..p.len()].copy_from_slice(p),
        e => {
            let (b, d) = e.base_delta().unwrap();
            let k = LINE_SIZE / b;
            let base = {
                let mut v = [0u8; 8];
                v[..b].copy_from_slice(&p[..b]);
                u64::from_le_bytes(v)
            };
            let mask = &p[b..b + k.div_ceil(8)];
            let deltas = &p[b + k.div_ceil(8)..];
            let sh = 64 - 8 * d as u32;
            for j in 0..k {
                let mut v = [0u8; 8];
                v[..d].copy_from_slice(&deltas[j * d..j * d + d]);
                let delta = ((u64::from_le_bytes(v) << sh) as i64 >> sh) as u64;
                let from = if (mask[j / 8] >> (j % 8)) & 1 == 1 {
                    base
                } else {
                    0
                };
                let x = from.wrapping_add(delta);
                line[j * b..j * b + b].copy_from_slice(&x.to_le_bytes()[..b]);
            }
        }
    }
}

/// Decompress `input`, made by [`compress`] from `original_len` bytes, into `out` (cleared
/// first). Corrupt or truncated input is an error message, never a panic.
pub fn decompress(input: &[u8], original_len: usize, out: &mut Vec<u8>) -> Result<(), String> {
    out.clear();
    let lines = original_len.div_ceil(LINE_SIZE);
    let head = lines.div_ceil(2);
    if input.len() < head {
        return Err(format!(
            "BDI encoding table needs {head} bytes, got {}",
            input.len()
        ));
    }
    if lines % 2 == 1 && input[head - 1] >> 4 != 0 {
        return Err("BDI encoding table has a non-zero unused nibble".into());
    }
    // The table holds a nibble per 64-byte line, so original_len <= 128 * input.len().
    out.reserve(original_len);
    let (ids, mut rest) = input.split_at(head);
    let mut line = [0u8; LINE_SIZE];
    for i in 0..lines {
        let n = LINE_SIZE.min(original_len - i * LINE_SIZE);
        let id = (ids[i / 2] >> (4 * (i % 2))) & 0xF;
        let e =
            Encoding::from_id(id).ok_or_else(|| format!("BDI line {i}: unknown encoding {id}"))?;
        let len = if e == Encoding::Uncompressed {
            n
        } else {
            e.payload_len()
        };
        let Some(p) = rest.get(..len) else {
            return Err(format!(
                "BDI line {i} ({e:?}) needs {len} bytes, {} left",
                rest.len()
            ));
        };
        decode_line(e, p, &mut line);
        out.extend_from_slice(&line[..n]);
        rest = &rest[len..];
    }
    if !rest.is_empty() {
        return Err(format!(
            "BDI block has {} bytes after its last line",
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

    fn encoding_of(line: &[u8]) -> (Encoding, usize) {
        let mut buf = [0u8; LINE_SIZE];
        round_trip(line);
        encode_line(line, &mut buf)
    }

    fn u64s(vs: impl IntoIterator<Item = u64>) -> Vec<u8> {
        vs.into_iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    decoder_properties!(true);

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn round_trips(data in block()) {
            let n = round_trip(&data);
            // Bounded growth: a nibble per 64-byte line.
            prop_assert!(n <= data.len() + data.len().div_ceil(LINE_SIZE).div_ceil(2));
        }

        #[test]
        fn base_delta_lines_round_trip(base in any::<u64>(), deltas in proptest::collection::vec(-200i64..200, 8), imm in any::<u8>()) {
            let vals = deltas.iter().enumerate().map(|(j, &d)| {
                if (imm >> j) & 1 == 1 { d as u64 } else { base.wrapping_add(d as u64) }
            });
            round_trip(&u64s(vals));
        }
    }

    #[test]
    fn payload_sizes_are_table_2_plus_the_base_mask() {
        // The paper's Table 2 (64-byte lines): base + deltas; we add one mask bit per element.
        for (e, table2, mask) in [
            (Encoding::B8D1, 16, 1),
            (Encoding::B8D2, 24, 1),
            (Encoding::B8D4, 40, 1),
            (Encoding::B4D1, 20, 2),
            (Encoding::B4D2, 36, 2),
            (Encoding::B2D1, 34, 4),
        ] {
            assert_eq!(e.payload_len(), table2 + mask, "{e:?}");
        }
        assert_eq!(Encoding::Repeated.payload_len(), 8);
    }

    #[test]
    fn hand_computed_line_encodings() {
        assert_eq!(encoding_of(&[0u8; 64]), (Encoding::Zeros, 0));
        assert_eq!(
            encoding_of(&u64s([0xDEAD_BEEF_0000_0001; 8])),
            (Encoding::Repeated, 8)
        );
        // 8-byte pointers with a common base: base 8 + delta 1 (17 bytes).
        let ptrs = u64s((0..8).map(|i| 0x0000_7f3a_1c20_0000 + 0x10 * i));
        assert_eq!(encoding_of(&ptrs), (Encoding::B8D1, 17));
        // Pointers mixed with small integers (NULL, 1): the zero base takes the immediates.
        let mixed = u64s([
            0x7f3a_1c20_0000,
            0,
            0x7f3a_1c20_0040,
            1,
            0x7f3a_1c20_0010,
            0,
            0,
            0x7f3a_1c20_0070,
        ]);
        let mut buf = [0u8; 64];
        assert_eq!(encode_line(&mixed, &mut buf), (Encoding::B8D1, 17));
        assert_eq!(
            &buf[..9],
            &[0, 0, 0x20, 0x1c, 0x3a, 0x7f, 0, 0, 0b1001_0101]
        );
        assert_eq!(&buf[9..17], &[0, 0, 0x40, 1, 0x10, 0, 0, 0x70]);
        round_trip(&mixed);
        // Small u32 integers: all immediates of base 4, delta 1 (22 bytes).
        let ints: Vec<u8> = (0..16u32).flat_map(|i| (i * 7).to_le_bytes()).collect();
        assert_eq!(encoding_of(&ints), (Encoding::B4D1, 22));
        // u32 values 1000 apart: base 4 + delta 2 (38 bytes; B2D1 ties at 38 but fails).
        let wide: Vec<u8> = (0..16u32)
            .flat_map(|i| (100_000 + 1000 * i).to_le_bytes())
            .collect();
        assert_eq!(encoding_of(&wide), (Encoding::B4D2, 38));
        // u64 values 100000 apart: base 8 + delta 4 (41 bytes).
        assert_eq!(
            encoding_of(&u64s((0..8).map(|i| (1 << 40) + 100_000 * i))),
            (Encoding::B8D4, 41)
        );
        // Text does not compress.
        let text = b"Base-Delta-Immediate compression for on-chip caches, PACT 2012. ";
        assert_eq!(encoding_of(text), (Encoding::Uncompressed, 64));
    }

    #[test]
    fn page_framing() {
        // 4096 zero bytes: 32 bytes of encoding ids and nothing else.
        assert_eq!(round_trip(&[0u8; 4096]), 32);
        // A short final line is zero-padded for encoding: 10 small bytes as base 2 + delta 1
        // would need 38 bytes, so it is stored raw.
        assert_eq!(round_trip(&[1, 0, 2, 0, 3, 0, 4, 0, 5, 0]), 1 + 10);
        assert_eq!(round_trip(&[0u8; 10]), 1);
        assert_eq!(round_trip(&[]), 0);
        let mut c = Vec::new();
        compress(&[7u8; 64 * 3], &mut c);
        assert_eq!(c[..2], [0x11, 0x01]);
    }
}
