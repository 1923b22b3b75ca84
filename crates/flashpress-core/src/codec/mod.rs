//! The codec seam: bytes in, compressed bytes out, plus what it costs the side that runs it.
//!
//! A [`CodecKind`] names one codec of a closed set: the real lossless libraries (LZ4 1.10,
//! Zstandard 1.5 at any level, zlib's deflate in raw or zlib framing, LZO1X through the
//! lzokay port) and our own
//! implementations of the lightweight codecs PR-SSD evaluates (DPC, FPC, BDI). A [`Codec`]
//! holds the reusable library contexts, so compressing a block allocates nothing once its
//! output buffer has grown. A [`CostModel`] says what a (de)compression task costs: host CPU
//! time at a single-core throughput, or a hardware engine's latency, occupancy and energy.
//!
//! ```
//! use flashpress_core::codec::{Codec, CodecKind};
//! let mut lz4 = Codec::new("lz4".parse::<CodecKind>().unwrap());
//! let block = vec![7u8; 4096];
//! let mut packed = Vec::new();
//! let n = lz4.compress(&block, &mut packed);
//! assert!(n < 100);
//! let mut back = Vec::new();
//! lz4.decompress(&packed, block.len(), &mut back).unwrap();
//! assert_eq!(back, block);
//! ```

pub mod bdi;
pub mod bench;
pub mod chunked;
pub mod cost;
pub mod dpc;
pub mod fpc;
mod lossless;
pub mod szx;
#[cfg(test)]
mod testkit;

pub use cost::CostModel;

use crate::error::{Error, Result};
use std::fmt;
use std::str::FromStr;

/// One codec of the closed set. Parsed from names such as `lz4`, `zstd-3`, `deflate-6`, `dpc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CodecKind {
    /// Store as is (the "no compression" baseline).
    None,
    /// LZ4 block format, `LZ4_compress_default` (Collet, lz4 1.10).
    Lz4,
    /// Zstandard at a level in 1..=22 (Collet & Kucherawy, RFC 8878; zstd 1.5).
    Zstd(i32),
    /// LZO1X (Oberhumer): the LZO1X stream format that liblzo2's `lzo1x_decompress` reads,
    /// produced by `lzokay-native` 0.1 (MIT, a Rust port of lzokay), whose compressor
    /// searches like LZO1X-999 (hash chains, best match): slower than and a little denser
    /// than liblzo2's LZO1X-1, which F2FS uses. liblzo2 itself is GPL, so not linked.
    Lzo,
    /// Raw deflate (RFC 1951) from zlib at a level in 1..=9.
    Deflate(u32),
    /// zlib format (RFC 1950: deflate with header and Adler-32) at a level in 1..=9; what the
    /// Waltz/COCO CCSD's hardware engine implements.
    Zlib(u32),
    /// Dominant Pattern Compression (PR-SSD, seed 002 §4.2).
    Dpc,
    /// Frequent Pattern Compression per 64-byte line (Alameldeen & Wood 2004), over a page as
    /// PR-SSD applies it.
    Fpc,
    /// Base-Delta-Immediate per 64-byte line (Pekhimenko et al., PACT 2012), over a page as
    /// PR-SSD applies it.
    Bdi,
}

/// Every codec name family, for error messages and `--help`.
pub const CODEC_NAMES: &str =
    "none, lz4, lzo, zstd (=zstd-3), zstd-1..zstd-22, deflate (=deflate-6), deflate-1..deflate-9, \
     zlib (=zlib-6), zlib-1..zlib-9, dpc, fpc, bdi";

impl CodecKind {
    /// The codecs the codec report (`make codec-report`) compares by default.
    pub const REPORT_SET: [CodecKind; 7] = [
        CodecKind::Dpc,
        CodecKind::Fpc,
        CodecKind::Bdi,
        CodecKind::Lz4,
        CodecKind::Zstd(1),
        CodecKind::Zstd(3),
        CodecKind::Deflate(6),
    ];

    /// True for the lightweight pattern codecs (DPC, FPC, BDI), which are ours, not a library.
    pub fn is_lightweight(self) -> bool {
        matches!(self, CodecKind::Dpc | CodecKind::Fpc | CodecKind::Bdi)
    }
}

impl fmt::Display for CodecKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CodecKind::None => f.write_str("none"),
            CodecKind::Lz4 => f.write_str("lz4"),
            CodecKind::Lzo => f.write_str("lzo"),
            CodecKind::Zstd(l) => write!(f, "zstd-{l}"),
            CodecKind::Deflate(l) => write!(f, "deflate-{l}"),
            CodecKind::Zlib(l) => write!(f, "zlib-{l}"),
            CodecKind::Dpc => f.write_str("dpc"),
            CodecKind::Fpc => f.write_str("fpc"),
            CodecKind::Bdi => f.write_str("bdi"),
        }
    }
}

impl FromStr for CodecKind {
    type Err = Error;

    fn from_str(s: &str) -> Result<CodecKind> {
        let unknown = || Error::UnknownCodec {
            name: s.to_string(),
            known: CODEC_NAMES.to_string(),
        };
        let lower = s.trim().to_ascii_lowercase();
        let (family, level) = match lower.split_once('-') {
            Some((f, l)) => (f, Some(l.parse::<i64>().map_err(|_| unknown())?)),
            None => (lower.as_str(), None),
        };
        let in_range = |lo: i64, hi: i64, default: i64| -> Result<i64> {
            let l = level.unwrap_or(default);
            if (lo..=hi).contains(&l) {
                Ok(l)
            } else {
                Err(Error::UnknownCodec {
                    name: s.to_string(),
                    known: format!("{family} levels are {lo}..{hi}; codecs: {CODEC_NAMES}"),
                })
            }
        };
        let plain = |k: CodecKind| {
            if level.is_some() {
                Err(unknown())
            } else {
                Ok(k)
            }
        };
        match family {
            "none" => plain(CodecKind::None),
            "lz4" => plain(CodecKind::Lz4),
            "lzo" => plain(CodecKind::Lzo),
            "dpc" => plain(CodecKind::Dpc),
            "fpc" => plain(CodecKind::Fpc),
            "bdi" => plain(CodecKind::Bdi),
            "zstd" => Ok(CodecKind::Zstd(in_range(1, 22, 3)? as i32)),
            "deflate" => Ok(CodecKind::Deflate(in_range(1, 9, 6)? as u32)),
            "zlib" => Ok(CodecKind::Zlib(in_range(1, 9, 6)? as u32)),
            _ => Err(unknown()),
        }
    }
}

impl serde::Serialize for CodecKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for CodecKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(|e: Error| serde::de::Error::custom(e))
    }
}

/// A codec ready to run: the kind plus its reusable library state.
pub struct Codec {
    kind: CodecKind,
    state: lossless::State,
}

impl fmt::Debug for Codec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Codec").field("kind", &self.kind).finish()
    }
}

impl Codec {
    /// A codec of `kind` with fresh contexts.
    pub fn new(kind: CodecKind) -> Codec {
        Codec {
            kind,
            state: lossless::State::new(kind),
        }
    }

    /// Which codec this is.
    pub fn kind(&self) -> CodecKind {
        self.kind
    }

    /// Compress `input` into `out` (its old contents are discarded) and return the compressed
    /// length. The output may be longer than the input for incompressible data; whoever stores
    /// it decides whether to keep the raw block instead (see [`stored_len`]).
    pub fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) -> usize {
        out.clear();
        match self.kind {
            CodecKind::None => out.extend_from_slice(input),
            CodecKind::Dpc => dpc::compress(input, out),
            CodecKind::Fpc => fpc::compress(input, out),
            CodecKind::Bdi => bdi::compress(input, out),
            _ => self.state.compress(input, out),
        }
        out.len()
    }

    /// Decompress `input` (made by [`Codec::compress`] from `original_len` bytes) into `out`.
    /// Corrupt or truncated input is an [`Error::Codec`], never a panic.
    pub fn decompress(
        &mut self,
        input: &[u8],
        original_len: usize,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        out.clear();
        let r = match self.kind {
            CodecKind::None => {
                out.extend_from_slice(input);
                Ok(())
            }
            CodecKind::Dpc => dpc::decompress(input, original_len, out),
            CodecKind::Fpc => fpc::decompress(input, original_len, out),
            CodecKind::Bdi => bdi::decompress(input, original_len, out),
            _ => self.state.decompress(input, original_len, out),
        };
        r.map_err(|msg| Error::Codec {
            codec: self.kind.to_string(),
            msg,
        })?;
        if out.len() != original_len {
            return Err(Error::Codec {
                codec: self.kind.to_string(),
                msg: format!("decompressed {} bytes, expected {original_len}", out.len()),
            });
        }
        Ok(())
    }
}

/// Bytes a store keeps for a block of `original_len` that compressed to `compressed_len`: the
/// compressed form if it is smaller, else the raw block (flagged incompressible).
pub fn stored_len(compressed_len: usize, original_len: usize) -> usize {
    compressed_len.min(original_len)
}

/// Check a block or granularity size given by a user: positive, a power of two and at least
/// 512 bytes. `what` names the key or flag in the error.
pub fn check_block_size(size: u64, source_name: &str, what: &str) -> Result<u32> {
    if size < 512 || !size.is_power_of_two() || size > (1 << 30) {
        return Err(Error::config(
            source_name,
            what,
            format!("expected a power of two from 512 bytes to 1 GiB, got {size}"),
        ));
    }
    Ok(size as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_levels_default() {
        for (name, kind) in [
            ("none", CodecKind::None),
            ("lz4", CodecKind::Lz4),
            ("lzo", CodecKind::Lzo),
            ("zstd", CodecKind::Zstd(3)),
            ("zstd-19", CodecKind::Zstd(19)),
            ("ZSTD-1", CodecKind::Zstd(1)),
            ("deflate", CodecKind::Deflate(6)),
            ("zlib-9", CodecKind::Zlib(9)),
            ("dpc", CodecKind::Dpc),
            ("fpc", CodecKind::Fpc),
            ("bdi", CodecKind::Bdi),
        ] {
            let k: CodecKind = name.parse().unwrap();
            assert_eq!(k, kind, "{name}");
            assert_eq!(k.to_string().parse::<CodecKind>().unwrap(), k);
        }
    }

    #[test]
    fn unknown_names_and_levels_are_errors_naming_them() {
        for bad in [
            "lzma", "zstd-0", "zstd-23", "zlib-10", "lz4-3", "lzo-1", "dpc-1", "zstd-x", "",
        ] {
            let e = bad.parse::<CodecKind>().unwrap_err();
            assert!(matches!(e, Error::UnknownCodec { .. }), "{bad}: {e}");
            assert!(e.to_string().contains(&format!("`{bad}`")), "{e}");
        }
    }

    #[test]
    fn block_sizes_must_be_powers_of_two() {
        assert_eq!(check_block_size(4096, "cli", "--block-size").unwrap(), 4096);
        for bad in [0, 100, 511, 3000, 4097, 12288, 1 << 31] {
            let e = check_block_size(bad, "cli", "--block-size").unwrap_err();
            assert!(e.to_string().contains("--block-size"), "{e}");
        }
    }
}
