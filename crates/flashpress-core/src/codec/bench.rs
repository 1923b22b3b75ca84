//! Codec benchmark on real files: compression ratio and single-core throughput per codec and
//! block size (`flashpress codec bench`).
//!
//! A [`Corpus`] is the bytes of a list of files and directories read into memory. [`run`] cuts
//! each file into blocks of every requested size, compresses every block with every requested
//! codec on the calling thread, decompresses every result and checks it equals the input, and
//! returns one [`BenchRow`] per (codec, block size).
//!
//! What is measured, precisely:
//! - **Blocks.** Each file is cut into blocks independently, from its first byte. A file's last
//!   partial block is **zero-padded to the block size**, as a file system or an SSD stores a
//!   file's tail in a whole block; the padding counts in `input_bytes` (and is reported
//!   separately as `padding_bytes`). A file is never split across the ends of two files.
//! - **Sizes.** `compressed_bytes` sums the codec's raw output; `stored_bytes` sums
//!   [`stored_len`], i.e. a block whose compressed form is not smaller is
//!   kept raw (and counted in `incompressible_blocks`). `ratio = input / stored`,
//!   `saving = 1 - stored / input`.
//! - **Throughput** is uncompressed bytes (padding included) per second, in MB/s of 10^6
//!   bytes, on one thread. The clock ([`std::time::Instant`]) runs around the codec calls of
//!   each chunk of about 1 MiB of blocks and stops while progress is reported and while the
//!   round trip is compared, so neither counts. Decompression is timed over every block's
//!   codec output, including blocks a store would have kept raw: it measures the codec.
//! - **Round trip.** Every block is decompressed and compared with its input; a difference or
//!   a decoding error is an [`Error::Codec`] naming the codec, block size, file and offset.

use super::{check_block_size, stored_len, Codec, CodecKind};
use crate::error::{Error, Result};
use serde::Serialize;
use std::collections::HashSet;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Error source name of the benchmark's own argument checks.
pub const SOURCE: &str = "codec bench";

/// About this many uncompressed bytes between two clock readings and progress reports.
const CHUNK_BYTES: usize = 1 << 20;

/// One file of a [`Corpus`]: where it came from and where its bytes are in the corpus buffer.
#[derive(Debug, Clone, Serialize)]
pub struct CorpusFile {
    pub path: PathBuf,
    /// Offset of the file's first byte in the corpus buffer.
    pub offset: usize,
    /// Bytes read from the file (fewer than its size when `max_bytes` cut it).
    pub len: usize,
}

/// A directory entry a [`Corpus`] walk did not read, and why (reported, never silent).
#[derive(Debug, Clone, Serialize)]
pub struct Skipped {
    pub path: PathBuf,
    pub reason: String,
}

/// The bytes of a list of files, read into memory once.
///
/// Built by [`Corpus::load`]: each path is a file (symbolic links followed) or a directory,
/// walked recursively in sorted order of entry names, so the same tree always gives the same
/// corpus. Inside a walk, a symbolic link to a file is read, a symbolic link to a directory is
/// not followed (so a walk cannot loop), and a file reached twice (hard link, or a link to a
/// file already read) is read once; such entries, and FIFOs, sockets and devices, are listed
/// in [`Corpus::skipped`]. A missing path, a dangling link, or a file or directory that cannot
/// be read is an [`Error::Io`] naming it.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    data: Vec<u8>,
    files: Vec<CorpusFile>,
    skipped: Vec<Skipped>,
    truncated: bool,
    paths: Vec<PathBuf>,
}

/// What a corpus holds, for reports.
#[derive(Debug, Clone, Serialize)]
pub struct CorpusInfo {
    /// The paths the corpus was loaded from, as given.
    pub paths: Vec<PathBuf>,
    /// Files read (including empty ones), in reading order.
    pub files: u64,
    /// Bytes read.
    pub bytes: u64,
    /// True when `max_bytes` stopped reading before the end of the input.
    pub truncated: bool,
    pub skipped: Vec<Skipped>,
}

impl Corpus {
    /// Read `paths` (files or directories; see [`Corpus`]). With `max_bytes`, reading stops once
    /// that many bytes are in: the file being read is cut there and later files are not
    /// visited ([`Corpus::truncated`] says so). An input with no bytes at all is an error
    /// naming the paths, as is an empty path list or `max_bytes == Some(0)`.
    pub fn load<P: AsRef<Path>>(paths: &[P], max_bytes: Option<u64>) -> Result<Corpus> {
        if paths.is_empty() {
            return Err(Error::config(SOURCE, "paths", "no input paths given"));
        }
        if max_bytes == Some(0) {
            return Err(Error::config(
                SOURCE,
                "max_bytes",
                "must be at least 1 byte",
            ));
        }
        let mut loader = Loader {
            corpus: Corpus {
                paths: paths.iter().map(|p| p.as_ref().to_path_buf()).collect(),
                ..Corpus::default()
            },
            cap: max_bytes.map_or(usize::MAX, |m| usize::try_from(m).unwrap_or(usize::MAX)),
            seen: HashSet::new(),
        };
        for p in paths {
            loader.top(p.as_ref())?;
        }
        let corpus = loader.corpus;
        if corpus.data.is_empty() {
            let names: Vec<String> = corpus
                .paths
                .iter()
                .map(|p| format!("`{}`", p.display()))
                .collect();
            let found = match corpus.files.len() {
                0 => "no files found".to_string(),
                1 => "1 file, empty".to_string(),
                n => format!("{n} files, all empty"),
            };
            let skipped = match corpus.skipped.len() {
                0 => String::new(),
                n => format!("; {n} entries not read: {}", corpus.skipped[0].reason),
            };
            return Err(Error::config(
                SOURCE,
                "paths",
                format!(
                    "no bytes to compress in {} ({found}{skipped})",
                    names.join(", ")
                ),
            ));
        }
        Ok(corpus)
    }

    /// A corpus of one in-memory "file" named `name` (for tests and callers with data at hand).
    pub fn from_bytes(name: impl Into<PathBuf>, bytes: Vec<u8>) -> Corpus {
        let path = name.into();
        Corpus {
            files: vec![CorpusFile {
                path: path.clone(),
                offset: 0,
                len: bytes.len(),
            }],
            data: bytes,
            skipped: Vec::new(),
            truncated: false,
            paths: vec![path],
        }
    }

    /// Files read, in order.
    pub fn files(&self) -> &[CorpusFile] {
        &self.files
    }

    /// Entries of a directory walk that were not read, with the reason.
    pub fn skipped(&self) -> &[Skipped] {
        &self.skipped
    }

    /// Total bytes read.
    pub fn bytes(&self) -> u64 {
        self.data.len() as u64
    }

    /// True when `max_bytes` stopped reading before the end of the input.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// The bytes of one file of the corpus.
    pub fn file_bytes(&self, f: &CorpusFile) -> &[u8] {
        &self.data[f.offset..f.offset + f.len]
    }

    /// Summary for reports.
    pub fn info(&self) -> CorpusInfo {
        CorpusInfo {
            paths: self.paths.clone(),
            files: self.files.len() as u64,
            bytes: self.bytes(),
            truncated: self.truncated,
            skipped: self.skipped.clone(),
        }
    }

    /// Blocks of `block_size` the corpus cuts into (each file's tail is a whole block).
    pub fn blocks(&self, block_size: u32) -> u64 {
        self.files
            .iter()
            .map(|f| (f.len as u64).div_ceil(u64::from(block_size)))
            .sum()
    }
}

/// State of one [`Corpus::load`].
struct Loader {
    corpus: Corpus,
    cap: usize,
    /// (device, inode) of every file read, so a file reached twice is read once.
    seen: HashSet<(u64, u64)>,
}

fn not_regular(path: &Path, what: &str) -> Error {
    Error::io(
        path,
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{what}, not a regular file or directory"),
        ),
    )
}

fn kind_name(ft: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO";
        }
        if ft.is_socket() {
            return "a socket";
        }
        if ft.is_block_device() || ft.is_char_device() {
            return "a device";
        }
    }
    let _ = ft;
    "a special file"
}

#[cfg(unix)]
fn identity(meta: &fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn identity(_meta: &fs::Metadata) -> Option<(u64, u64)> {
    None
}

impl Loader {
    fn full(&self) -> bool {
        self.corpus.data.len() >= self.cap
    }

    /// A path given by the caller: followed if it is a link; must be a file or a directory.
    fn top(&mut self, path: &Path) -> Result<()> {
        if self.full() {
            self.corpus.truncated = true;
            return Ok(());
        }
        let meta = fs::metadata(path).map_err(|e| Error::io(path, e))?;
        if meta.is_dir() {
            self.walk(path)
        } else if meta.is_file() {
            self.read(path, &meta)
        } else {
            Err(not_regular(path, kind_name(meta.file_type())))
        }
    }

    fn walk(&mut self, dir: &Path) -> Result<()> {
        let mut entries = Vec::new();
        for entry in fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
            let entry = entry.map_err(|e| Error::io(dir, e))?;
            entries.push(entry.path());
        }
        entries.sort();
        for path in entries {
            if self.full() {
                self.corpus.truncated = true;
                return Ok(());
            }
            let lmeta = fs::symlink_metadata(&path).map_err(|e| Error::io(&path, e))?;
            if lmeta.file_type().is_symlink() {
                // A dangling link is an error: it names a file that should be there.
                let meta = fs::metadata(&path).map_err(|e| Error::io(&path, e))?;
                if meta.is_dir() {
                    self.skip(path, "symbolic link to a directory (not followed)".into());
                } else if meta.is_file() {
                    self.read(&path, &meta)?;
                } else {
                    let why = format!("symbolic link to {}", kind_name(meta.file_type()));
                    self.skip(path, why);
                }
            } else if lmeta.is_dir() {
                self.walk(&path)?;
            } else if lmeta.is_file() {
                self.read(&path, &lmeta)?;
            } else {
                let why = format!("{}, not a regular file", kind_name(lmeta.file_type()));
                self.skip(path, why);
            }
        }
        Ok(())
    }

    fn skip(&mut self, path: PathBuf, reason: String) {
        self.corpus.skipped.push(Skipped { path, reason });
    }

    fn read(&mut self, path: &Path, meta: &fs::Metadata) -> Result<()> {
        if let Some(id) = identity(meta) {
            if !self.seen.insert(id) {
                self.skip(path.to_path_buf(), "same file as one already read".into());
                return Ok(());
            }
        }
        let room = self.cap - self.corpus.data.len();
        let offset = self.corpus.data.len();
        let file = fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let mut limited = file.take(room as u64);
        limited
            .read_to_end(&mut self.corpus.data)
            .map_err(|e| Error::io(path, e))?;
        let len = self.corpus.data.len() - offset;
        if len == room && meta.len() > room as u64 {
            self.corpus.truncated = true;
        }
        self.corpus.files.push(CorpusFile {
            path: path.to_path_buf(),
            offset,
            len,
        });
        Ok(())
    }
}

/// A fixed sample of this machine's own files, up to `max` bytes, for codec tests and
/// benchmarks: the licence texts in `/usr/share/common-licenses` (at most a quarter of the
/// budget) then the shared libraries in `/usr/lib/x86_64-linux-gnu` (names containing `.so`),
/// each directory's regular files in sorted order and at most 512 KiB from each file. Text,
/// machine code, tables and zero padding; empty on a system without those directories, so a
/// caller that needs data must check the length.
pub fn system_sample(max: usize) -> Vec<u8> {
    fn files(dir: &str, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
        let mut v: Vec<_> = fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            // Regular files only: library symlinks would repeat the same bytes.
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| e.path())
            .filter(|p| p.file_name().is_some_and(|n| keep(&n.to_string_lossy())))
            .collect();
        v.sort();
        v
    }
    let mut data = Vec::with_capacity(max);
    let licences = files("/usr/share/common-licenses", |_| true);
    let libs = files("/usr/lib/x86_64-linux-gnu", |n| n.contains(".so"));
    for (paths, budget) in [(licences, max / 4), (libs, max)] {
        let stop = (data.len() + budget).min(max);
        for p in paths {
            if data.len() >= stop {
                break;
            }
            if let Ok(bytes) = fs::read(&p) {
                let take = bytes.len().min(stop - data.len()).min(512 * 1024);
                data.extend_from_slice(&bytes[..take]);
            }
        }
    }
    data
}

/// Results of one codec at one block size over a whole corpus.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchRow {
    /// Canonical codec name (`zstd-3`, `lz4`, ...).
    pub codec: String,
    /// Block size in bytes.
    pub block_size: u32,
    /// Blocks compressed.
    pub blocks: u64,
    /// Uncompressed bytes compressed: `blocks * block_size`, tail padding included.
    pub input_bytes: u64,
    /// Zero bytes added to pad files' last blocks (part of `input_bytes`).
    pub padding_bytes: u64,
    /// Sum of the codec's raw output lengths.
    pub compressed_bytes: u64,
    /// Sum over blocks of min(compressed, block size): what a store keeps.
    pub stored_bytes: u64,
    /// Blocks whose compressed form was not smaller than the block (kept raw).
    pub incompressible_blocks: u64,
    /// input_bytes / stored_bytes (infinite, null in JSON, if nothing was stored).
    pub ratio: f64,
    /// 1 - stored_bytes / input_bytes.
    pub saving: f64,
    /// Single-core compression throughput, 10^6 uncompressed bytes per second.
    pub compress_mb_per_s: f64,
    /// Single-core decompression throughput, 10^6 uncompressed bytes per second.
    pub decompress_mb_per_s: f64,
    /// Time spent in the codec's compress calls, in seconds.
    pub compress_seconds: f64,
    /// Time spent in the codec's decompress calls, in seconds.
    pub decompress_seconds: f64,
}

/// Check block sizes given by a user (positive powers of two, 512 B to 1 GiB), naming `what`
/// (`--block-size`, `block_sizes`) and `source_name` in the error. An empty list is an error.
pub fn check_block_sizes(sizes: &[i64], source_name: &str, what: &str) -> Result<Vec<u32>> {
    if sizes.is_empty() {
        return Err(Error::config(source_name, what, "no block sizes given"));
    }
    sizes
        .iter()
        .map(|&s| match u64::try_from(s) {
            Ok(s) => check_block_size(s, source_name, what),
            Err(_) => Err(Error::config(
                source_name,
                what,
                format!("expected a power of two from 512 bytes to 1 GiB, got {s}"),
            )),
        })
        .collect()
}

/// Parse codec names (`lz4`, `zstd-3`, ...), keeping the first of any that name the same codec
/// (`zstd` and `zstd-3`). An unknown name is [`Error::UnknownCodec`]; an empty list an error.
pub fn parse_codecs<S: AsRef<str>>(
    names: &[S],
    source_name: &str,
    what: &str,
) -> Result<Vec<CodecKind>> {
    if names.is_empty() {
        return Err(Error::config(source_name, what, "no codecs given"));
    }
    let mut out: Vec<CodecKind> = Vec::new();
    for n in names {
        let k: CodecKind = n.as_ref().parse()?;
        if !out.contains(&k) {
            out.push(k);
        }
    }
    Ok(out)
}

/// One block of a corpus at some block size.
#[derive(Clone, Copy)]
struct Block {
    file: usize,
    /// Offset in the corpus buffer.
    offset: usize,
    /// Bytes of file data (the block size, or less for a file's tail).
    len: usize,
}

fn blocks_of(corpus: &Corpus, block_size: usize) -> Vec<Block> {
    let mut out = Vec::new();
    for (i, f) in corpus.files.iter().enumerate() {
        let mut at = 0;
        while at < f.len {
            let len = block_size.min(f.len - at);
            out.push(Block {
                file: i,
                offset: f.offset + at,
                len,
            });
            at += len;
        }
    }
    out
}

/// The input of a block: a slice of the corpus, or its tail copied into `pad` and zero-filled.
fn block_input<'a>(data: &'a [u8], b: Block, block_size: usize, pad: &'a mut [u8]) -> &'a [u8] {
    if b.len == block_size {
        &data[b.offset..b.offset + b.len]
    } else {
        pad[..b.len].copy_from_slice(&data[b.offset..b.offset + b.len]);
        pad[b.len..].fill(0);
        pad
    }
}

fn mb_per_s(bytes: u64, t: Duration) -> f64 {
    // A pass too short for the clock still took some time: count it as 1 ns, not infinity.
    bytes as f64 / 1e6 / t.as_secs_f64().max(1e-9)
}

/// Run every codec at every block size over `corpus` (see the module docs for what is
/// measured). Rows come codec by codec, in the order given, each with its block sizes in the
/// order given.
///
/// `progress(done, total)` is called after each chunk of about 1 MiB with the uncompressed
/// bytes processed so far, counting each pass's compression and decompression separately,
/// and the total; returning `false` cancels the run with [`Error::State`]`("cancelled")`.
/// Block sizes must be powers of two of at least 512 bytes (an error names `block_sizes`).
pub fn run(
    corpus: &Corpus,
    codecs: &[CodecKind],
    block_sizes: &[u32],
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<Vec<BenchRow>> {
    if codecs.is_empty() {
        return Err(Error::config(SOURCE, "codecs", "no codecs given"));
    }
    if block_sizes.is_empty() {
        return Err(Error::config(SOURCE, "block_sizes", "no block sizes given"));
    }
    for &bs in block_sizes {
        check_block_size(u64::from(bs), SOURCE, "block_sizes")?;
    }
    if corpus.data.is_empty() {
        return Err(Error::config(SOURCE, "paths", "the corpus holds no bytes"));
    }
    let pass_bytes: u64 = block_sizes
        .iter()
        .map(|&bs| corpus.blocks(bs) * u64::from(bs))
        .sum();
    let total = pass_bytes * codecs.len() as u64 * 2;
    let mut done = 0u64;
    let mut rows = Vec::with_capacity(codecs.len() * block_sizes.len());
    for &kind in codecs {
        let mut codec = Codec::new(kind);
        for &bs in block_sizes {
            let row = run_one(corpus, &mut codec, bs, &mut |n| {
                done += n;
                progress(done, total)
            })?;
            rows.push(row);
        }
    }
    Ok(rows)
}

/// One (codec, block size) pass. `advance(bytes)` reports progress; false cancels.
fn run_one(
    corpus: &Corpus,
    codec: &mut Codec,
    block_size: u32,
    advance: &mut dyn FnMut(u64) -> bool,
) -> Result<BenchRow> {
    let bs = block_size as usize;
    let kind = codec.kind();
    let data = &corpus.data[..];
    let blocks = blocks_of(corpus, bs);
    let per_chunk = (CHUNK_BYTES / bs).max(1);
    let cancelled = || Error::State("cancelled".into());

    // Compression: every block's output appended to `packed`, its length to `lens`.
    let mut pad = vec![0u8; bs];
    let mut out = Vec::with_capacity(bs * 2);
    let mut packed: Vec<u8> = Vec::with_capacity(data.len() / 2);
    let mut lens: Vec<usize> = Vec::with_capacity(blocks.len());
    let (mut stored, mut incompressible) = (0u64, 0u64);
    let mut t_compress = Duration::ZERO;
    for chunk in blocks.chunks(per_chunk) {
        let t = Instant::now();
        for &b in chunk {
            let input = block_input(data, b, bs, &mut pad);
            let n = codec.compress(input, &mut out);
            packed.extend_from_slice(&out[..n]);
            lens.push(n);
        }
        t_compress += t.elapsed();
        for &n in &lens[lens.len() - chunk.len()..] {
            stored += stored_len(n, bs) as u64;
            incompressible += u64::from(n >= bs);
        }
        if !advance((chunk.len() * bs) as u64) {
            return Err(cancelled());
        }
    }

    // Decompression into one buffer per block of the chunk, timed; then compared, untimed.
    let mut backs: Vec<Vec<u8>> = (0..per_chunk.min(blocks.len()))
        .map(|_| Vec::with_capacity(bs))
        .collect();
    let mut t_decompress = Duration::ZERO;
    let mut at = 0usize;
    let mut index = 0usize;
    for chunk in blocks.chunks(per_chunk) {
        let t = Instant::now();
        for (i, back) in backs.iter_mut().enumerate().take(chunk.len()) {
            let n = lens[index + i];
            let r = codec.decompress(&packed[at..at + n], bs, back);
            if let Err(e) = r {
                return Err(locate(e, corpus, chunk[i], bs));
            }
            at += n;
        }
        t_decompress += t.elapsed();
        for (i, &b) in chunk.iter().enumerate() {
            let want = block_input(data, b, bs, &mut pad);
            if backs[i][..] != *want {
                let e = Error::Codec {
                    codec: kind.to_string(),
                    msg: "decompressed block differs from the input".into(),
                };
                return Err(locate(e, corpus, b, bs));
            }
        }
        index += chunk.len();
        if !advance((chunk.len() * bs) as u64) {
            return Err(cancelled());
        }
    }

    let n_blocks = blocks.len() as u64;
    let input = n_blocks * u64::from(block_size);
    let file_bytes: u64 = blocks.iter().map(|b| b.len as u64).sum();
    Ok(BenchRow {
        codec: kind.to_string(),
        block_size,
        blocks: n_blocks,
        input_bytes: input,
        padding_bytes: input - file_bytes,
        compressed_bytes: lens.iter().map(|&n| n as u64).sum(),
        stored_bytes: stored,
        incompressible_blocks: incompressible,
        ratio: if stored == 0 {
            f64::INFINITY
        } else {
            input as f64 / stored as f64
        },
        saving: 1.0 - stored as f64 / input as f64,
        compress_mb_per_s: mb_per_s(input, t_compress),
        decompress_mb_per_s: mb_per_s(input, t_decompress),
        compress_seconds: t_compress.as_secs_f64(),
        decompress_seconds: t_decompress.as_secs_f64(),
    })
}

/// Add where a failing block is (block size, file, offset in the file) to a codec error.
fn locate(e: Error, corpus: &Corpus, b: Block, block_size: usize) -> Error {
    match e {
        Error::Codec { codec, msg } => {
            let f = &corpus.files[b.file];
            Error::Codec {
                codec,
                msg: format!(
                    "{msg} ({} B block at offset {} of {})",
                    block_size,
                    b.offset - f.offset,
                    f.path.display()
                ),
            }
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngCore, SeedableRng};
    use std::path::PathBuf;

    fn no_progress() -> impl FnMut(u64, u64) -> bool {
        |_, _| true
    }

    fn kinds(names: &[&str]) -> Vec<CodecKind> {
        parse_codecs(names, "test", "codecs").unwrap()
    }

    fn random_bytes(n: usize, seed: u64) -> Vec<u8> {
        let mut v = vec![0u8; n];
        rand_pcg::Pcg64::seed_from_u64(seed).fill_bytes(&mut v);
        v
    }

    fn row<'a>(rows: &'a [BenchRow], codec: &str, bs: u32) -> &'a BenchRow {
        rows.iter()
            .find(|r| r.codec == codec && r.block_size == bs)
            .unwrap_or_else(|| panic!("no row {codec} {bs}"))
    }

    #[test]
    fn all_zero_file_compresses_far_and_random_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("zeros"), vec![0u8; 1 << 20]).unwrap();
        fs::write(dir.path().join("random"), random_bytes(1 << 20, 7)).unwrap();
        let codecs = kinds(&["lz4", "zstd-3", "deflate-6"]);
        let zeros = Corpus::load(&[dir.path().join("zeros")], None).unwrap();
        let rows = run(&zeros, &codecs, &[4096, 16384], &mut no_progress()).unwrap();
        assert_eq!(rows.len(), 6);
        for r in &rows {
            assert_eq!(r.input_bytes, 1 << 20);
            assert_eq!(r.blocks, (1 << 20) / u64::from(r.block_size));
            assert!(r.ratio > 50.0, "{r:?}");
            assert_eq!(r.incompressible_blocks, 0);
            assert!(r.compress_mb_per_s > 0.0 && r.decompress_mb_per_s > 0.0);
        }
        let random = Corpus::load(&[dir.path().join("random")], None).unwrap();
        let rows = run(&random, &codecs, &[4096], &mut no_progress()).unwrap();
        for r in &rows {
            assert_eq!(r.stored_bytes, r.input_bytes, "{r:?}");
            assert_eq!(r.saving, 0.0);
            assert_eq!(r.ratio, 1.0);
            assert_eq!(r.incompressible_blocks, r.blocks);
            assert!(r.compressed_bytes >= r.input_bytes, "{r:?}");
        }
    }

    #[test]
    fn none_has_ratio_exactly_one() {
        let text = b"the quick brown fox jumps over the lazy dog\n".repeat(1000);
        let c = Corpus::from_bytes("fox.txt", text);
        let rows = run(
            &c,
            &kinds(&["none", "lz4"]),
            &[512, 4096],
            &mut no_progress(),
        )
        .unwrap();
        for bs in [512, 4096] {
            let r = row(&rows, "none", bs);
            assert_eq!(r.ratio, 1.0);
            assert_eq!(r.saving, 0.0);
            assert_eq!(r.stored_bytes, r.input_bytes);
            assert_eq!(r.compressed_bytes, r.input_bytes);
            assert!(row(&rows, "lz4", bs).saving > 0.5);
        }
    }

    #[test]
    fn tails_are_zero_padded_and_files_cut_independently() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a"), random_bytes(5000, 1)).unwrap();
        fs::write(dir.path().join("b"), random_bytes(100, 2)).unwrap();
        fs::write(dir.path().join("c-empty"), b"").unwrap();
        let c = Corpus::load(&[dir.path()], None).unwrap();
        assert_eq!(c.files().len(), 3);
        assert_eq!(c.bytes(), 5100);
        assert_eq!(c.blocks(4096), 3); // 2 for a, 1 for b, 0 for the empty file
        let rows = run(&c, &kinds(&["none", "zstd-1"]), &[4096], &mut no_progress()).unwrap();
        let none = row(&rows, "none", 4096);
        assert_eq!(none.blocks, 3);
        assert_eq!(none.input_bytes, 3 * 4096);
        assert_eq!(none.padding_bytes, 3 * 4096 - 5100);
        // The padding is zeros, so a real codec saves most of the two tail blocks.
        let z = row(&rows, "zstd-1", 4096);
        assert!(z.stored_bytes < 4096 + 1000 + 200, "{z:?}");
    }

    #[test]
    fn directories_walk_sorted_and_max_bytes_cuts() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        fs::write(dir.path().join("b"), vec![2u8; 1000]).unwrap();
        fs::write(dir.path().join("a"), vec![1u8; 1000]).unwrap();
        fs::write(dir.path().join("sub/c"), vec![3u8; 1000]).unwrap();
        let c = Corpus::load(&[dir.path()], None).unwrap();
        let names: Vec<PathBuf> = c
            .files()
            .iter()
            .map(|f| f.path.strip_prefix(dir.path()).unwrap().to_path_buf())
            .collect();
        assert_eq!(names, [PathBuf::from("a"), "b".into(), "sub/c".into()]);
        assert!(!c.truncated());
        let cut = Corpus::load(&[dir.path()], Some(1500)).unwrap();
        assert_eq!(cut.bytes(), 1500);
        assert_eq!(cut.files().len(), 2);
        assert_eq!(cut.file_bytes(&cut.files()[1]), &[2u8; 500][..]);
        assert!(cut.truncated());
        let exact = Corpus::load(&[dir.path().join("a")], Some(1000)).unwrap();
        assert!(!exact.truncated());
    }

    #[cfg(unix)]
    #[test]
    fn links_to_directories_and_repeated_files_are_skipped_and_listed() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("d")).unwrap();
        fs::write(dir.path().join("d/x"), vec![1u8; 700]).unwrap();
        std::os::unix::fs::symlink(dir.path().join("d"), dir.path().join("loop")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("d/x"), dir.path().join("y-link")).unwrap();
        let c = Corpus::load(&[dir.path()], None).unwrap();
        assert_eq!(c.files().len(), 1);
        assert_eq!(c.bytes(), 700);
        let mut reasons: Vec<String> = c.skipped().iter().map(|s| s.reason.clone()).collect();
        reasons.sort();
        assert_eq!(reasons.len(), 2, "{reasons:?}");
        assert!(reasons[0].contains("already read"), "{reasons:?}");
        assert!(reasons[1].contains("link to a directory"), "{reasons:?}");
    }

    #[test]
    fn missing_path_is_an_io_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no-such-file");
        let e = Corpus::load(std::slice::from_ref(&missing), None).unwrap_err();
        match &e {
            Error::Io { path, .. } => assert_eq!(path, &missing),
            other => panic!("expected Io, got {other:?}"),
        }
        assert!(e.to_string().contains("no-such-file"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn dangling_link_in_a_directory_is_an_io_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a"), b"some bytes").unwrap();
        let link = dir.path().join("b-dangling");
        std::os::unix::fs::symlink(dir.path().join("gone"), &link).unwrap();
        let e = Corpus::load(&[dir.path()], None).unwrap_err();
        match &e {
            Error::Io { path, .. } => assert_eq!(path, &link),
            other => panic!("expected Io, got {other:?}"),
        }
    }

    #[cfg(unix)]
    #[test]
    fn unreadable_file_is_an_io_error_naming_it() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let locked = dir.path().join("locked");
        fs::write(&locked, b"secret").unwrap();
        fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
        // Root (CAP_DAC_OVERRIDE) opens a mode-000 file anyway: check what this process really
        // can do, and expect exactly that, rather than skipping.
        let r = Corpus::load(&[dir.path()], None);
        if fs::File::open(&locked).is_ok() {
            assert_eq!(r.expect("a file this process can open loads").bytes(), 6);
        } else {
            match r.unwrap_err() {
                Error::Io { path, .. } => assert_eq!(path, locked),
                other => panic!("expected Io, got {other:?}"),
            }
        }
    }

    /// A file that opens but fails to read, as root too: /proc/self/mem at offset 0 (EIO).
    #[cfg(target_os = "linux")]
    #[test]
    fn read_error_is_an_io_error_naming_the_file() {
        let mem = PathBuf::from("/proc/self/mem");
        let e = Corpus::load(std::slice::from_ref(&mem), None).unwrap_err();
        match &e {
            Error::Io { path, .. } => assert_eq!(path, &mem),
            other => panic!("expected Io, got {other:?}"),
        }
        assert!(e.to_string().contains("/proc/self/mem"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn fifo_given_as_a_path_is_an_error_and_skipped_in_a_walk() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !matches!(status, Ok(s) if s.success()) {
            panic!("mkfifo failed: {status:?}");
        }
        fs::write(dir.path().join("data"), b"abc").unwrap();
        match Corpus::load(std::slice::from_ref(&fifo), None).unwrap_err() {
            e @ Error::Io { .. } => {
                assert!(
                    e.to_string().contains("pipe") && e.to_string().contains("FIFO"),
                    "{e}"
                )
            }
            other => panic!("expected Io, got {other:?}"),
        }
        let c = Corpus::load(&[dir.path()], None).unwrap();
        assert_eq!(c.bytes(), 3);
        assert_eq!(c.skipped().len(), 1);
        assert_eq!(c.skipped()[0].path, fifo);
    }

    #[test]
    fn empty_inputs_are_errors_naming_the_paths() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("empty-dir")).unwrap();
        fs::write(dir.path().join("empty-file"), b"").unwrap();
        for p in ["empty-dir", "empty-file"] {
            let e = Corpus::load(&[dir.path().join(p)], None).unwrap_err();
            assert!(matches!(e, Error::Config { .. }), "{e:?}");
            assert!(e.to_string().contains(p), "{e}");
        }
        let none: [&Path; 0] = [];
        assert!(Corpus::load(&none, None).is_err());
        let e = Corpus::load(&[dir.path()], Some(0)).unwrap_err();
        assert!(e.to_string().contains("max_bytes"), "{e}");
    }

    #[test]
    fn bad_block_sizes_and_codec_lists_are_errors() {
        let c = Corpus::from_bytes("x", vec![1u8; 10_000]);
        let codecs = kinds(&["lz4"]);
        for bad in [0u32, 3000, 12288, 256, 4097] {
            let e = run(&c, &codecs, &[4096, bad], &mut no_progress()).unwrap_err();
            assert!(e.to_string().contains("block_sizes"), "{bad}: {e}");
            assert!(e.to_string().contains(&bad.to_string()), "{bad}: {e}");
        }
        assert!(run(&c, &codecs, &[], &mut no_progress()).is_err());
        assert!(run(&c, &[], &[4096], &mut no_progress()).is_err());
        for bad in [-1i64, 0, 3000, 12 * 1024] {
            let e = check_block_sizes(&[bad], "command line", "--block-size").unwrap_err();
            assert!(e.to_string().contains("--block-size"), "{e}");
            assert!(e.to_string().contains(&bad.to_string()), "{e}");
        }
        assert_eq!(
            check_block_sizes(&[4096, 16384], "x", "y").unwrap(),
            [4096, 16384]
        );
        let e = parse_codecs(&["lz4", "lzma"], "x", "codecs").unwrap_err();
        assert!(matches!(e, Error::UnknownCodec { .. }), "{e:?}");
        assert_eq!(
            parse_codecs(&["zstd", "zstd-3", "lz4"], "x", "codecs").unwrap(),
            [CodecKind::Zstd(3), CodecKind::Lz4]
        );
    }

    #[test]
    fn progress_counts_both_passes_and_can_cancel() {
        let c = Corpus::from_bytes("x", vec![5u8; 3 << 20]);
        let codecs = kinds(&["lz4", "none"]);
        let mut last = (0, 0);
        let mut calls = 0;
        run(&c, &codecs, &[4096], &mut |d, t| {
            assert!(d > last.0 && d <= t);
            last = (d, t);
            calls += 1;
            true
        })
        .unwrap();
        assert_eq!(last, (2 * 2 * (3 << 20), 2 * 2 * (3 << 20)));
        assert!(calls >= 4);
        let e = run(&c, &codecs, &[4096], &mut |d, _| d < (1 << 20)).unwrap_err();
        assert!(matches!(&e, Error::State(m) if m == "cancelled"), "{e:?}");
    }

    /// Real text: the GCIDE dictionary from Debian's dict-gcide (`make testdata`).
    #[test]
    fn gcide_text_round_trips_and_orders_codecs() {
        let gcide = crate::testdata::fetched("gcide.dict");
        let c = Corpus::load(&[gcide], Some(2 << 20)).unwrap();
        assert_eq!(c.bytes(), 2 << 20);
        assert!(c.truncated());
        let rows = run(
            &c,
            &kinds(&["none", "lz4", "lzo", "zstd-1", "zstd-3", "deflate-6"]),
            &[4096, 16384],
            &mut no_progress(),
        )
        .unwrap();
        for bs in [4096, 16384] {
            let s = |name| row(&rows, name, bs).saving;
            assert_eq!(s("none"), 0.0);
            // Dictionary text: every real codec saves a lot, the entropy coders more than LZ4.
            assert!(s("lz4") > 0.3, "lz4 {}", s("lz4"));
            assert!(s("zstd-1") > s("lz4") && s("deflate-6") > s("lz4"));
            assert!(s("zstd-3") >= s("zstd-1") - 0.005);
            // LZO1X is an LZ77 without entropy coding like LZ4; lzokay's exhaustive match
            // search (LZO1X-999-like) finds more than LZ4's fast one, short of what
            // deflate's Huffman stage adds. Here at 4 KiB: lz4 37%, lzo 49%, deflate-6 59%.
            let (lzo, lz4, deflate) = (s("lzo"), s("lz4"), s("deflate-6"));
            assert!(
                lz4 < lzo && lzo < deflate,
                "lzo {lzo} lz4 {lz4} deflate {deflate}"
            );
        }
        // Larger blocks give codecs more context.
        assert!(row(&rows, "zstd-3", 16384).saving > row(&rows, "zstd-3", 4096).saving);
    }
}
