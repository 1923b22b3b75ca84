//! The library codecs, called with reused contexts and no copies of our own: LZ4 through
//! `lz4-sys` (liblz4 1.10), Zstandard through `zstd` (libzstd 1.5), deflate and zlib through
//! `flate2` on zlib itself (`libz-sys`, built from zlib's source), LZO1X through
//! `lzokay-native` (a pure-Rust port of lzokay, MIT).

use super::CodecKind;
use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};
use std::os::raw::{c_char, c_int};

/// Reusable per-codec library state.
pub(super) enum State {
    /// LZ4 (its block API keeps no state worth reusing at these sizes).
    Lz4,
    /// LZO1X: the compressor's match dictionary (about 0.4 MB), reused between blocks.
    Lzo(Box<lzokay_native::Dict>),
    /// Codecs that are not libraries (none and our lightweight codecs); `Codec` handles them.
    NotLibrary,
    /// A Zstandard compression and decompression context.
    Zstd {
        c: Box<zstd::bulk::Compressor<'static>>,
        d: Box<zstd::bulk::Decompressor<'static>>,
    },
    /// A zlib deflate/inflate stream pair, reset between blocks.
    Zlib {
        c: Box<Compress>,
        d: Box<Decompress>,
        header: bool,
    },
}

impl State {
    pub(super) fn new(kind: CodecKind) -> State {
        match kind {
            CodecKind::Zstd(level) => State::Zstd {
                c: Box::new(
                    zstd::bulk::Compressor::new(level).expect("zstd level checked when parsed"),
                ),
                d: Box::new(zstd::bulk::Decompressor::new().expect("zstd context allocation")),
            },
            CodecKind::Deflate(level) | CodecKind::Zlib(level) => {
                let header = matches!(kind, CodecKind::Zlib(_));
                State::Zlib {
                    c: Box::new(Compress::new(Compression::new(level), header)),
                    d: Box::new(Decompress::new(header)),
                    header,
                }
            }
            CodecKind::Lz4 => State::Lz4,
            CodecKind::Lzo => State::Lzo(Box::new(lzokay_native::Dict::new())),
            _ => State::NotLibrary,
        }
    }

    /// Compress with the library codec; `out` is empty on entry.
    pub(super) fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) {
        match self {
            State::Lz4 => lz4_compress(input, out),
            State::Lzo(dict) => {
                // The library returns its own buffer (sized for the worst case).
                let packed = lzokay_native::compress_with_dict(input, dict)
                    .expect("LZO1X compression into its worst-case buffer");
                out.extend_from_slice(&packed);
            }
            State::NotLibrary => unreachable!("Codec dispatches non-library codecs itself"),
            State::Zstd { c, .. } => {
                out.reserve(zstd::zstd_safe::compress_bound(input.len()));
                c.compress_to_buffer(input, out)
                    .expect("output buffer holds zstd's compress bound");
            }
            State::Zlib { c, .. } => {
                c.reset();
                // zlib's deflateBound for these settings is below len + len/1000 + 64.
                out.reserve(input.len() + input.len() / 1000 + 64);
                let st = c
                    .compress_vec(input, out, FlushCompress::Finish)
                    .expect("deflate on a fresh stream with room for its bound");
                assert_eq!(st, Status::StreamEnd, "deflate bound too small");
            }
        }
    }

    /// Decompress with the library codec; `out` is empty on entry. Errors are messages.
    pub(super) fn decompress(
        &mut self,
        input: &[u8],
        original_len: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        match self {
            State::Lz4 => lz4_decompress(input, original_len, out),
            State::Lzo(_) => lzo_decompress(input, original_len, out),
            State::NotLibrary => unreachable!("Codec dispatches non-library codecs itself"),
            State::Zstd { d, .. } => {
                out.reserve(original_len);
                d.decompress_to_buffer(input, out)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            }
            State::Zlib { d, header, .. } => {
                d.reset(*header);
                out.reserve(original_len);
                match d.decompress_vec(input, out, FlushDecompress::Finish) {
                    Ok(Status::StreamEnd) => Ok(()),
                    Ok(_) => Err("truncated deflate stream".into()),
                    Err(e) => Err(e.to_string()),
                }
            }
        }
    }
}

fn lzo_decompress(input: &[u8], original_len: usize, out: &mut Vec<u8>) -> Result<(), String> {
    if input.is_empty() {
        // lzokay writes nothing for an empty block.
        return if original_len == 0 {
            Ok(())
        } else {
            Err("empty LZO1X stream".into())
        };
    }
    // The port checks its input but is young: a panic on corrupt input is an error too.
    let r = std::panic::catch_unwind(|| lzokay_native::decompress_all(input, Some(original_len)));
    match r {
        Ok(Ok(v)) => {
            out.extend_from_slice(&v);
            Ok(())
        }
        Ok(Err(e)) => Err(format!("corrupt LZO1X stream: {e}")),
        Err(_) => Err("corrupt LZO1X stream (the decoder gave up)".into()),
    }
}

fn lz4_compress(input: &[u8], out: &mut Vec<u8>) {
    let n = c_int::try_from(input.len()).expect("block larger than 2 GiB");
    // SAFETY: LZ4_compressBound is a pure function of the size.
    let bound = unsafe { lz4_sys::LZ4_compressBound(n) };
    out.reserve(bound as usize);
    // SAFETY: the destination has `bound` bytes of spare capacity, LZ4 writes at most that
    // many and returns how many it wrote, which we then expose.
    unsafe {
        let w = lz4_sys::LZ4_compress_default(
            input.as_ptr() as *const c_char,
            out.as_mut_ptr() as *mut c_char,
            n,
            bound,
        );
        assert!(w > 0, "LZ4_compress_default failed with room for its bound");
        out.set_len(w as usize);
    }
}

fn lz4_decompress(input: &[u8], original_len: usize, out: &mut Vec<u8>) -> Result<(), String> {
    let cap = c_int::try_from(original_len).map_err(|_| "block larger than 2 GiB".to_string())?;
    let n = c_int::try_from(input.len()).map_err(|_| "input larger than 2 GiB".to_string())?;
    out.reserve(original_len);
    // SAFETY: LZ4_decompress_safe never writes more than `cap` bytes, which is spare
    // capacity, and validates the input; only the bytes it reports written are exposed.
    unsafe {
        let w = lz4_sys::LZ4_decompress_safe(
            input.as_ptr() as *const c_char,
            out.as_mut_ptr() as *mut c_char,
            n,
            cap,
        );
        if w < 0 {
            return Err(format!("corrupt LZ4 block (error {w})"));
        }
        out.set_len(w as usize);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::codec::testkit::decoder_properties;
    use crate::codec::{Codec, CodecKind};
    use proptest::prelude::*;

    fn compress(data: &[u8], out: &mut Vec<u8>) {
        Codec::new(CodecKind::Lzo).compress(data, out);
    }

    fn decompress(data: &[u8], len: usize, out: &mut Vec<u8>) -> Result<(), String> {
        Codec::new(CodecKind::Lzo)
            .decompress(data, len, out)
            .map_err(|e| e.to_string())
    }

    fn block() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..5000),
            proptest::collection::vec(0u8..4, 0..20000),
        ]
    }

    decoder_properties!(true);

    /// Our LZO codec against the library itself: the same bytes as `lzokay_native::compress`
    /// (with its dictionary reused between blocks), decoded by the library's own decoder,
    /// and the library's output decoded by ours, on real text, zeros and random bytes.
    #[test]
    fn lzo_round_trips_through_the_library() {
        let text = crate::codec::dpc::tests::real_data(1 << 20);
        let mut rng_bytes = Vec::with_capacity(16384);
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..16384 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            rng_bytes.push(x as u8);
        }
        let mut inputs: Vec<Vec<u8>> = vec![vec![0u8; 4096], vec![0u8; 16384], rng_bytes];
        inputs.extend(text.chunks(4096).take(64).map(|c| c.to_vec()));
        inputs.extend(text.chunks(16384).take(16).map(|c| c.to_vec()));
        let mut ours = Codec::new(CodecKind::Lzo);
        let (mut packed, mut back) = (Vec::new(), Vec::new());
        for (i, data) in inputs.iter().enumerate() {
            ours.compress(data, &mut packed);
            let lib = lzokay_native::compress(data).unwrap();
            assert_eq!(packed, lib, "input {i}: same stream as the library");
            let lib_back = lzokay_native::decompress_all(&packed, Some(data.len())).unwrap();
            assert_eq!(&lib_back, data, "input {i}: the library decodes ours");
            ours.decompress(&lib, data.len(), &mut back).unwrap();
            assert_eq!(&back, data, "input {i}: we decode the library's");
        }
        // Zeros compress to almost nothing, random bytes expand a little.
        ours.compress(&inputs[1], &mut packed);
        assert!(packed.len() < 100, "{}", packed.len());
        ours.compress(&inputs[2], &mut packed);
        assert!(packed.len() > 16384, "{}", packed.len());
    }
}
