//! SZx streams of a field cut into contiguous chunks, compressed and decompressed on several
//! threads (the lossy pipeline's "N compression threads").
//!
//! The field is cut into `chunks` runs of whole SZx blocks (the last one takes the rest), each
//! compressed on its own thread by [`szx::compress`], so the result is the same bytes whatever
//! the machine: it depends on the chunk count, not on scheduling. Decompression decodes the
//! chunks on up to `threads` threads, each straight into its part of the output.
//!
//! Stream: `b"SZXC"`, the chunk count (`u32`), then per chunk its value count and stream
//! length (`u64` each), all little-endian, then the chunks' SZx streams one after another.

use super::szx::{self, Float};
use crate::error::{Error, Result};

const MAGIC: &[u8; 4] = b"SZXC";
/// Most chunks (threads) one stream may have.
pub const MAX_CHUNKS: usize = 1024;

/// One thread's chunks: (stream, chunk index, output slice).
type Jobs<'a, T> = Vec<(&'a [u8], usize, &'a mut [T])>;

fn bad(msg: impl Into<String>) -> Error {
    Error::Codec {
        codec: "szx".into(),
        msg: msg.into(),
    }
}

/// Value counts of `chunks` runs of whole `block`-value blocks covering `n` values (fewer runs
/// when there are fewer blocks than chunks; none for an empty field).
fn split(n: usize, block: usize, chunks: usize) -> Vec<usize> {
    let blocks = n.div_ceil(block.max(1));
    let chunks = chunks.clamp(1, blocks.max(1));
    let mut out = Vec::with_capacity(chunks);
    let mut left = n;
    for i in 0..chunks {
        let take_blocks = blocks / chunks + usize::from(i < blocks % chunks);
        let take = (take_blocks * block).min(left);
        out.push(take);
        left -= take;
    }
    out
}

/// Compress `data` (every value within `bound` of the original) as `chunks` SZx streams made
/// on as many threads.
pub fn compress<T: Float + Send + Sync>(
    data: &[T],
    bound: f64,
    block: usize,
    chunks: usize,
) -> Result<Vec<u8>> {
    if chunks == 0 || chunks > MAX_CHUNKS {
        return Err(Error::config(
            "szx",
            "threads",
            format!("expected 1..={MAX_CHUNKS} threads, got {chunks}"),
        ));
    }
    let sizes = split(data.len(), block, chunks);
    let mut parts: Vec<Result<Vec<u8>>> = Vec::new();
    std::thread::scope(|s| {
        let mut rest = data;
        let handles: Vec<_> = sizes
            .iter()
            .map(|&n| {
                let (head, tail) = rest.split_at(n);
                rest = tail;
                s.spawn(move || {
                    let mut out = Vec::new();
                    szx::compress(head, bound, block, &mut out).map(|()| out)
                })
            })
            .collect();
        parts = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(bad("a compression thread panicked")))
            })
            .collect();
    });
    let parts = parts.into_iter().collect::<Result<Vec<_>>>()?;
    let mut out =
        Vec::with_capacity(8 + 16 * parts.len() + parts.iter().map(Vec::len).sum::<usize>());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(parts.len() as u32).to_le_bytes());
    for (n, p) in sizes.iter().zip(&parts) {
        out.extend_from_slice(&(*n as u64).to_le_bytes());
        out.extend_from_slice(&(p.len() as u64).to_le_bytes());
    }
    for p in &parts {
        out.extend_from_slice(p);
    }
    Ok(out)
}

/// The value count a chunked stream holds (checked against its chunk table).
pub fn values(b: &[u8]) -> Result<usize> {
    total(&table(b)?)
}

/// The chunks' value counts added up (a table whose sum overflows is corrupt).
fn total(chunks: &[(usize, std::ops::Range<usize>)]) -> Result<usize> {
    chunks.iter().try_fold(0usize, |acc, c| {
        acc.checked_add(c.0)
            .ok_or_else(|| bad("the chunk table's value counts overflow"))
    })
}

/// (values, stream range) per chunk.
fn table(b: &[u8]) -> Result<Vec<(usize, std::ops::Range<usize>)>> {
    if b.len() < 8 || &b[..4] != MAGIC {
        return Err(bad("not a chunked SZx stream (no `SZXC` header)"));
    }
    let chunks = u32::from_le_bytes([b[4], b[5], b[6], b[7]]) as usize;
    if chunks > MAX_CHUNKS {
        return Err(bad(format!(
            "the stream names {chunks} chunks (at most {MAX_CHUNKS})"
        )));
    }
    let head = chunks
        .checked_mul(16)
        .and_then(|x| x.checked_add(8))
        .filter(|&h| h <= b.len())
        .ok_or_else(|| {
            bad(format!(
                "the stream names {chunks} chunks but is {} bytes",
                b.len()
            ))
        })?;
    let mut out = Vec::with_capacity(chunks);
    let mut pos = head;
    for i in 0..chunks {
        let at = 8 + 16 * i;
        let word = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
        let (n, len) = (word(at), word(at + 8));
        let end = usize::try_from(len)
            .ok()
            .and_then(|l| pos.checked_add(l))
            .filter(|&e| e <= b.len())
            .ok_or_else(|| bad(format!("chunk {i} runs past the end of the stream")))?;
        let n = usize::try_from(n).map_err(|_| bad(format!("chunk {i} holds too many values")))?;
        out.push((n, pos..end));
        pos = end;
    }
    if pos != b.len() {
        return Err(bad(format!("{} bytes after the last chunk", b.len() - pos)));
    }
    Ok(out)
}

/// Decode a stream [`compress`] wrote into `out`, whose length must be the stream's value
/// count, on up to `threads` threads.
pub fn decompress_into<T: Float + Send + Sync>(
    b: &[u8],
    out: &mut [T],
    threads: usize,
) -> Result<()> {
    let chunks = table(b)?;
    let total = total(&chunks)?;
    if total != out.len() {
        return Err(bad(format!(
            "the stream holds {total} values, the output has room for {}",
            out.len()
        )));
    }
    let threads = threads.clamp(1, chunks.len().max(1));
    // Chunk i goes to thread i % threads; each thread gets its chunks' output slices.
    let mut work: Vec<Jobs<'_, T>> = (0..threads).map(|_| Vec::new()).collect();
    let mut rest = out;
    for (i, (n, range)) in chunks.iter().enumerate() {
        let (head, tail) = rest.split_at_mut(*n);
        rest = tail;
        work[i % threads].push((&b[range.clone()], i, head));
    }
    let mut errors: Vec<Error> = Vec::new();
    std::thread::scope(|s| {
        let handles: Vec<_> = work
            .into_iter()
            .map(|jobs| {
                s.spawn(move || -> Result<()> {
                    for (stream, i, dst) in jobs {
                        let n = szx::values::<T>(stream)?;
                        if n != dst.len() {
                            return Err(bad(format!(
                                "chunk {i} holds {n} values, its table says {}",
                                dst.len()
                            )));
                        }
                        szx::decompress_into(stream, dst)?;
                    }
                    Ok(())
                })
            })
            .collect();
        for h in handles {
            if let Err(e) = h
                .join()
                .unwrap_or_else(|_| Err(bad("a decompression thread panicked")))
            {
                errors.push(e);
            }
        }
    });
    errors.into_iter().next().map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn overflowing_chunk_tables_are_errors() {
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&2u32.to_le_bytes());
        for n in [1u64 << 63, (1u64 << 63) + 1000] {
            b.extend_from_slice(&n.to_le_bytes());
            b.extend_from_slice(&0u64.to_le_bytes());
        }
        assert!(values(&b).is_err());
        let mut out = vec![0f32; 1000];
        assert!(decompress_into(&b, &mut out, 2).is_err());
        assert!(compress(&[1f32; 10], 0.1, 4, MAX_CHUNKS + 1).is_err());
    }

    #[test]
    fn split_covers_the_field_in_whole_blocks() {
        assert_eq!(split(1000, 128, 3), vec![384, 384, 232]);
        assert_eq!(split(100, 128, 4), vec![100]);
        assert_eq!(split(0, 128, 2), vec![0]);
        assert_eq!(split(256, 128, 2), vec![128, 128]);
    }

    proptest! {
        #[test]
        fn chunked_round_trips_within_the_bound(
            data in proptest::collection::vec(-1e6f32..1e6, 0..3000),
            chunks in 1usize..6, threads in 1usize..6, bound in 1e-3f64..10.0,
        ) {
            let packed = compress(&data, bound, 64, chunks).unwrap();
            prop_assert_eq!(values(&packed).unwrap(), data.len());
            let mut back = vec![0f32; data.len()];
            decompress_into(&packed, &mut back, threads).unwrap();
            for (a, b) in data.iter().zip(&back) {
                prop_assert!((f64::from(*a) - f64::from(*b)).abs() <= bound);
            }
            // The bytes depend on the chunk count only.
            prop_assert_eq!(compress(&data, bound, 64, chunks).unwrap(), packed);
        }

        #[test]
        fn corrupt_chunked_streams_give_errors(
            data in proptest::collection::vec(-1e3f64..1e3, 1..500), cut in 0usize..64, flip in 0usize..64,
        ) {
            let mut packed = compress(&data, 0.01, 32, 3).unwrap();
            let mut back = vec![0f64; data.len()];
            packed.truncate(packed.len().saturating_sub(cut + 1));
            prop_assert!(decompress_into(&packed, &mut back, 2).is_err());
            let mut packed = compress(&data, 0.01, 32, 3).unwrap();
            let at = flip % packed.len().min(56);
            packed[at] ^= 0x80;
            // A flipped byte in the table or a header must not panic (an error or values back).
            let _ = decompress_into(&packed, &mut back, 2);
        }
    }
}
