//! The library codecs, called with reused contexts and no copies of our own: LZ4 through
//! `lz4-sys` (liblz4 1.10), Zstandard through `zstd` (libzstd 1.5), deflate and zlib through
//! `flate2` on zlib itself (`libz-sys`, built from zlib's source).

use super::CodecKind;
use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};
use std::os::raw::{c_char, c_int};

/// Reusable per-codec library state.
pub(super) enum State {
    /// LZ4 (its block API keeps no state worth reusing at these sizes).
    Lz4,
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
            _ => State::NotLibrary,
        }
    }

    /// Compress with the library codec; `out` is empty on entry.
    pub(super) fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) {
        match self {
            State::Lz4 => lz4_compress(input, out),
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
