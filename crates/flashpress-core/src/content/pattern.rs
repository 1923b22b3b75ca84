//! Written data patterns (fio's `buffer_pattern`, `verify_pattern`) and the one rule every
//! place that walks a request's blocks follows: [`nth_id`].
//!
//! A write carries the content id of its first 4 KiB block. Ordinarily block `i` holds
//! `first + i` (every block different). A pattern write fills its buffer with the pattern
//! repeated from the buffer's start (fio's `cpy_pattern`), so block `i` starts at byte
//! `(i * 4096) mod L` of a pattern of `L` bytes: its blocks repeat with period
//! `c = L / gcd(L, 4096)` (1 when `L` divides 4096: every block the same). A pattern id
//! names the pattern and the block's phase `j` in `0..c`; block `i` of a write whose first
//! block has phase `j` has phase `(j + i) mod c`. Equal blocks have equal ids across writes,
//! jobs and streams, so a deduplicating device finds them duplicates, and the content model
//! gives them the pattern's real bytes ([`crate::content::ContentModel`]).
//!
//! Id layout: bits 63..48 the tag `0xFA77`, bits 47..38 the period `c` (1..=512), bits 37..29
//! the phase `j < c`, bits 28..0 a hash of the pattern's bytes. Ids of other shapes (every
//! id a workload generates, and trace hashes, which [`outside_patterns`] keeps out of this
//! space) follow `first + i`.

use std::sync::Arc;

/// fio's `MAX_PATTERN_SIZE` (lib/pattern.h): the longest pattern, in bytes.
pub const MAX_PATTERN_BYTES: usize = 512;

const BLOCK: u64 = 4096;
const TAG: u64 = 0xFA77;
const C_SHIFT: u32 = 38;
const J_SHIFT: u32 = 29;
const J_MASK: u64 = 0x1ff << J_SHIFT;
const HASH_MASK: u64 = (1 << J_SHIFT) - 1;

/// Period and phase of a pattern id, `None` for an ordinary id.
#[inline]
fn period_phase(id: u64) -> Option<(u64, u64)> {
    if id >> 48 != TAG {
        return None;
    }
    let c = (id >> C_SHIFT) & 0x3ff;
    let j = (id & J_MASK) >> J_SHIFT;
    (c >= 1 && c <= MAX_PATTERN_BYTES as u64 && j < c).then_some((c, j))
}

/// Content id of block `i` of a run whose first block holds `first`: `first + i`, or for a
/// pattern the block at the same phase `i` blocks on. `i` is a two's-complement offset
/// (`wrapping_sub` gives blocks before `first`, as for a partial first page).
#[inline]
pub fn nth_id(first: u64, i: u64) -> u64 {
    match period_phase(first) {
        None => first.wrapping_add(i),
        Some((c, j)) => {
            let k = (j as i64 + (i as i64) % c as i64).rem_euclid(c as i64) as u64;
            (first & !J_MASK) | (k << J_SHIFT)
        }
    }
}

/// Whether `id` is a pattern block's id.
pub fn is_pattern(id: u64) -> bool {
    period_phase(id).is_some()
}

/// An id from a trace's hashes (FIU MD5s), moved out of the pattern id space when it falls
/// in it (one id in 65,536 has the tag; the move flips a tag bit, so equal hashes stay equal).
pub fn outside_patterns(id: u64) -> u64 {
    if id >> 48 == TAG {
        id ^ 1 << 48
    } else {
        id
    }
}

/// The bytes of a written data pattern (1..=512 bytes), shared by the streams that write it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern(Arc<[u8]>);

impl serde::Serialize for Pattern {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let hex: String = self.0.iter().map(|b| format!("{b:02x}")).collect();
        s.serialize_str(&format!("0x{hex}"))
    }
}

impl Pattern {
    /// A pattern of these bytes (1..=[`MAX_PATTERN_BYTES`]).
    pub fn new(bytes: &[u8]) -> Pattern {
        assert!(
            !bytes.is_empty() && bytes.len() <= MAX_PATTERN_BYTES,
            "a pattern has 1..=512 bytes"
        );
        Pattern(bytes.into())
    }

    /// The pattern as a set-up writes it in pieces of `piece` bytes, each filled from the
    /// pattern's start (fio's `extend_file`): the pattern repeated to `piece` bytes, itself a
    /// pattern, whose blocks hold exactly the bytes laid out at their offsets. `None` when the
    /// restart changes nothing (`piece` a multiple of the pattern's length) or the pieces'
    /// period exceeds what an id holds (512 blocks).
    pub fn restarted(&self, piece: u64) -> Option<Pattern> {
        let l = self.0.len() as u64;
        if piece == 0
            || piece.is_multiple_of(l)
            || piece / gcd(piece, BLOCK) > MAX_PATTERN_BYTES as u64
        {
            return None;
        }
        let bytes: Vec<u8> = self
            .0
            .iter()
            .copied()
            .cycle()
            .take(piece as usize)
            .collect();
        Some(Pattern(bytes.into()))
    }

    /// The pattern's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }

    /// How many distinct 4 KiB blocks the pattern repeated makes: `L / gcd(L, 4096)`.
    pub fn period(&self) -> u64 {
        let l = self.0.len() as u64;
        l / gcd(l, BLOCK)
    }

    /// Content id of the first block of a write of this pattern (phase 0).
    pub fn first_id(&self) -> u64 {
        // FNV-1a over the length and bytes: stable across builds (ids must not depend on
        // the standard library's hasher).
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in (self.0.len() as u64)
            .to_le_bytes()
            .iter()
            .chain(self.0.iter())
        {
            h = (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        let h = (h ^ (h >> 29) ^ (h >> 58)) & HASH_MASK;
        TAG << 48 | self.period() << C_SHIFT | h
    }

    /// Whether `id` is a block of this pattern (at any phase).
    pub fn owns(&self, id: u64) -> bool {
        is_pattern(id) && id & !J_MASK == self.first_id()
    }

    /// Fill `out` (whole 4 KiB blocks) with the blocks from pattern id `id` on: the pattern
    /// repeated from byte `(j * 4096) mod L` of it, `j` the id's phase.
    pub fn fill(&self, id: u64, out: &mut [u8]) {
        let (_, j) = period_phase(id).expect("a pattern id");
        let l = self.0.len();
        let mut at = ((j * BLOCK) % l as u64) as usize;
        for b in out.iter_mut() {
            *b = self.0[at];
            at += 1;
            if at == l {
                at = 0;
            }
        }
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// What fio's pattern grammar (lib/pattern.c, `parse_and_fill_pattern`) found in a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    /// The pattern's bytes.
    Bytes(Vec<u8>),
    /// The value holds `%o` (the block's offset pasted into each block).
    Offset,
}

/// Parse a pattern as fio does (lib/pattern.c): a concatenation, in any order, of
/// - `"text"`: the bytes between double quotes (no escapes);
/// - `0x...`/`0X...`: hex bytes in the order written, an odd count of digits taking a leading
///   zero nibble (`0xabc` is `0a bc`); `0xff0x14` is two numbers;
/// - a decimal integer in `[-2^31, 2^31)`: its bytes little-endian, as many as it needs
///   (`0` is one zero byte, `300` is `2c 01`, `-12` is `f4 ff ff ff`);
/// - `%o` (`verify_pattern` only, reported as [`Parsed::Offset`]).
///
/// `'file'` (bytes read from a file) is refused by name. At most 512 bytes in all.
pub fn parse(text: &str, offset_allowed: bool) -> Result<Parsed, String> {
    let s = text.as_bytes();
    if s.is_empty() {
        return Err("expected a pattern (hex 0x.., decimal, or \"text\"), got nothing".into());
    }
    let mut out = Vec::new();
    let mut offset = false;
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'"' => {
                let end = s[i + 1..]
                    .iter()
                    .position(|&c| c == b'"')
                    .ok_or_else(|| format!("unterminated quoted string from byte {}", i + 1))?;
                if end == 0 {
                    return Err(format!("empty quoted string at byte {}", i + 1));
                }
                out.extend_from_slice(&s[i + 1..i + 1 + end]);
                i += end + 2;
            }
            b'\'' => {
                return Err(
                    "a pattern read from a file ('name') is not supported: give its bytes as hex"
                        .into(),
                )
            }
            b'%' => {
                if !s[i..].starts_with(b"%o") {
                    return Err(format!(
                        "unknown format at byte {} (only %o, in verify_pattern)",
                        i + 1
                    ));
                }
                if !offset_allowed {
                    return Err("%o (the block offset) is a verify_pattern format only".into());
                }
                offset = true;
                out.extend_from_slice(&[0; 8]);
                i += 2;
            }
            _ if s[i..].len() > 2 && s[i] == b'0' && matches!(s[i + 1], b'x' | b'X') => {
                let start = i + 2;
                let mut end = start;
                while end < s.len() && s[end].is_ascii_hexdigit() {
                    end += 1;
                }
                if end == start {
                    return Err(format!("expected hex digits after `0x` at byte {}", i + 1));
                }
                // fio: "0xff0x14" is 0xff then 0x14 (the digit run's last `0` begins a prefix).
                if end < s.len()
                    && matches!(s[end], b'x' | b'X')
                    && s[end - 1] == b'0'
                    && end - 1 > start
                {
                    end -= 1;
                }
                let digits = &s[start..end];
                let mut k = 0;
                if digits.len() % 2 == 1 {
                    out.push(hexval(digits[0]));
                    k = 1;
                }
                while k < digits.len() {
                    out.push(hexval(digits[k]) << 4 | hexval(digits[k + 1]));
                    k += 2;
                }
                i = end;
            }
            _ => {
                let neg = s[i] == b'-' || s[i] == b'+';
                let mut end = i + neg as usize;
                while end < s.len() && s[end].is_ascii_digit() {
                    end += 1;
                }
                // fio looks ahead for a `0x`: "120x1f" is 12 then 0x1f.
                if end < s.len()
                    && matches!(s[end], b'x' | b'X')
                    && s[end - 1] == b'0'
                    && end > i + neg as usize + 1
                {
                    end -= 1;
                }
                let num = std::str::from_utf8(&s[i..end]).expect("ASCII");
                if end == i + neg as usize {
                    let rest = String::from_utf8_lossy(&s[i..]);
                    let rest: String = rest.chars().take(20).collect();
                    return Err(format!(
                        "expected a hex number (0x..), a decimal number, or a \"quoted string\" at byte {}, got `{rest}`",
                        i + 1
                    ));
                }
                let v: i64 = num
                    .parse()
                    .ok()
                    .filter(|v| (i64::from(i32::MIN)..=i64::from(i32::MAX)).contains(v))
                    .ok_or_else(|| {
                        format!("decimal `{num}` outside [-2147483648, 2147483647] (use hex for wider values)")
                    })?;
                if v == 0 {
                    out.push(0);
                } else {
                    let mut u = v as i32 as u32;
                    while u != 0 {
                        out.push(u as u8);
                        u >>= 8;
                    }
                }
                i = end;
            }
        }
        if out.len() > MAX_PATTERN_BYTES {
            return Err(format!(
                "the pattern is longer than fio's limit of {MAX_PATTERN_BYTES} bytes"
            ));
        }
    }
    Ok(if offset {
        Parsed::Offset
    } else {
        Parsed::Bytes(out)
    })
}

fn hexval(c: u8) -> u8 {
    (c as char).to_digit(16).expect("a hex digit") as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(t: &str) -> Vec<u8> {
        match parse(t, true).unwrap() {
            Parsed::Bytes(b) => b,
            Parsed::Offset => panic!("offset"),
        }
    }

    /// Bytes fio 3.33 wrote for each `buffer_pattern` (ioengine=sync, bs=4k, `xxd` of the
    /// file), and lib/pattern.c's documented examples.
    #[test]
    fn parses_as_fio_writes() {
        let cases: &[(&str, &[u8])] = &[
            ("0xabc", &[0x0a, 0xbc]),
            ("\"ab\"0x01-12", b"ab\x01\xf4\xff\xff\xff"),
            (
                "0xdeadface\"abcd\"-12",
                b"\xde\xad\xfa\xceabcd\xf4\xff\xff\xff",
            ),
            ("0", &[0]),
            ("-1", &[0xff, 0xff, 0xff, 0xff]),
            ("300", &[0x2c, 0x01]),
            ("0xff0x14", &[0xff, 0x14]),
            ("\"abcd\"", b"abcd"),
            ("-1024", &[0x00, 0xfc, 0xff, 0xff]),
            ("66", &[0x42]),
            ("0xFF0X1", &[0xff, 0x01]),
            ("\"123\"0xFFeeCC", b"123\xff\xee\xcc"),
        ];
        for (t, want) in cases {
            assert_eq!(bytes(t), *want, "{t}");
        }
    }

    #[test]
    fn bad_patterns_say_why() {
        for (t, part) in [
            ("\"abc", "unterminated quoted string"),
            ("0xZZ", "expected hex digits"),
            ("12345678901", "outside"),
            ("'f'", "file"),
            ("abc", "expected a hex number"),
            ("%x", "unknown format"),
            ("", "got nothing"),
        ] {
            let e = parse(t, true).unwrap_err();
            assert!(e.contains(part), "{t}: {e}");
        }
        assert!(parse("%o", false).unwrap_err().contains("verify_pattern"));
        assert_eq!(parse("0xaa%o", true).unwrap(), Parsed::Offset);
        let long = format!("0x{}", "ab".repeat(513));
        assert!(parse(&long, true).unwrap_err().contains("512"));
        assert_eq!(bytes(&format!("0x{}", "ab".repeat(512))).len(), 512);
    }

    /// Blocks of a pattern written from phase 0: block `i` is the pattern repeated from
    /// byte `i * 4096` of an endless repetition, checked against building that repetition.
    #[test]
    fn blocks_follow_the_repetition() {
        for len in [1usize, 3, 7, 12, 64, 100, 512] {
            let p: Vec<u8> = (0..len).map(|k| (k * 37 + 11) as u8).collect();
            let pat = Pattern::new(&p);
            let blocks = 2 * pat.period() as usize + 3;
            let endless: Vec<u8> = p.iter().copied().cycle().take(blocks * 4096).collect();
            let first = pat.first_id();
            let mut seen = std::collections::BTreeMap::new();
            for i in 0..blocks {
                let id = nth_id(first, i as u64);
                assert!(pat.owns(id));
                let mut got = vec![0; 4096];
                pat.fill(id, &mut got);
                assert_eq!(
                    got,
                    endless[i * 4096..(i + 1) * 4096],
                    "len {len} block {i}"
                );
                // Equal ids exactly when equal bytes.
                if let Some(prev) = seen.insert(id, got.clone()) {
                    assert_eq!(prev, got);
                }
            }
            assert_eq!(seen.len() as u64, pat.period(), "len {len}");
            let distinct: std::collections::BTreeSet<_> = seen.values().collect();
            assert_eq!(distinct.len(), seen.len(), "len {len}");
            // A run starting mid-way continues from its own phase; offsets may be negative.
            let mid = nth_id(first, 5);
            assert_eq!(nth_id(mid, 2), nth_id(first, 7));
            assert_eq!(nth_id(mid, 3u64.wrapping_neg()), nth_id(first, 2));
        }
        assert_eq!(nth_id(41, 3), 44);
        assert_eq!(nth_id(41, 1u64.wrapping_neg()), 40);
    }

    /// A pattern restarted every piece: block `i` holds the bytes fio lays out at
    /// `i * 4096`, the pattern from each piece's start, checked against building them.
    #[test]
    fn restarted_blocks_hold_the_laid_out_bytes() {
        let p = Pattern::new(b"abc");
        assert_eq!(Pattern::new(b"abcd").restarted(4096), None);
        for piece in [4096u64, 8192, 5120, 512] {
            let r = p.restarted(piece).unwrap();
            let laid: Vec<u8> = (0..64 * 1024u64)
                .map(|x| b"abc"[((x % piece) % 3) as usize])
                .collect();
            for i in 0..16u64 {
                let mut got = vec![0; 4096];
                r.fill(nth_id(r.first_id(), i), &mut got);
                assert_eq!(
                    got,
                    laid[(i * 4096) as usize..][..4096],
                    "piece {piece} block {i}"
                );
            }
        }
    }

    #[test]
    fn trace_hashes_stay_ordinary() {
        let p = Pattern::new(b"ab").first_id();
        assert!(!is_pattern(outside_patterns(p)));
        assert_eq!(outside_patterns(12345), 12345);
    }
}
