//! Opening a trace file and cutting its text into lines.
//!
//! Compression is found by the file's first bytes, never by its name: gzip (`1f 8b`), zstd
//! (`28 b5 2f fd`), xz (`fd 37 7a 58 5a 00`) and bzip2 (`BZh` and a block size digit) are
//! decoded as they are read, concatenated members or frames included. After decompression a
//! text trace's UTF-8 byte-order mark is skipped; a UTF-16 one, a tar or zip archive, a line
//! that is not UTF-8 text or holds control characters, and a "line" of more than
//! [`MAX_LINE_BYTES`] are errors that describe the bytes without echoing them.

use super::text::fast_disksim;
use super::{Kind, Parsed, Parser};
use crate::error::{Error, Result};
use crate::workload::Request;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Size of the read buffer: large enough that refills are rare next to per-line work.
pub(super) const READ_BUF_BYTES: usize = 1 << 16;

/// Longest line a text trace may have. Real lines are tens of bytes; a file with no line
/// break in this many bytes is binary data read as text.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Compression of a trace file, told by its magic bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Not compressed.
    None,
    /// gzip (RFC 1952), `1f 8b`.
    Gzip,
    /// Zstandard (RFC 8878), `28 b5 2f fd`.
    Zstd,
    /// xz, `fd 37 7a 58 5a 00`.
    Xz,
    /// bzip2, `BZh` then the block size digit `1`..`9`.
    Bzip2,
}

impl Compression {
    /// The compression whose magic bytes `head` starts with.
    pub fn detect(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
            Compression::Xz
        } else if head.len() >= 4 && head.starts_with(b"BZh") && (b'1'..=b'9').contains(&head[3]) {
            Compression::Bzip2
        } else {
            Compression::None
        }
    }
}

/// Counts the bytes a reader pulls from the file (progress through a compressed trace).
pub(super) struct CountingReader<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

type FileReader = BufReader<CountingReader<File>>;

/// A trace's bytes: the file itself, kept concrete so the line loop is monomorphised and
/// inlined for it, or a decoder (one virtual call per line, small next to decompression).
pub(super) enum Input {
    Plain(FileReader),
    Decoded(Box<dyn BufRead + Send>),
}

/// An opened trace file.
pub(super) struct Opened {
    pub input: Input,
    /// Bytes read from the file so far (compressed input: the decoder's progress).
    pub file_count: Arc<AtomicU64>,
    pub file_size: u64,
    pub compression: Compression,
    /// Bytes skipped before the first line (a byte-order mark).
    pub skipped: u64,
}

/// Open `path`, decompressing by magic bytes. `text`: the format is a text one, so a
/// byte-order mark is skipped and archives and UTF-16 are refused with a hint.
pub(super) fn open_input(path: &Path, text: bool) -> Result<Opened> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let file_size = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let file_count = Arc::new(AtomicU64::new(0));
    let mut raw = BufReader::with_capacity(
        READ_BUF_BYTES,
        CountingReader {
            inner: file,
            count: Arc::clone(&file_count),
        },
    );
    let head = raw.fill_buf().map_err(|e| Error::io(path, e))?;
    let compression = Compression::detect(head);
    let io = |e: std::io::Error| Error::io(path, e);
    let buffered = |r: Box<dyn Read + Send>| -> Input {
        Input::Decoded(Box::new(BufReader::with_capacity(READ_BUF_BYTES, r)))
    };
    let mut input = match compression {
        Compression::None => Input::Plain(raw),
        Compression::Gzip => buffered(Box::new(flate2::bufread::MultiGzDecoder::new(raw))),
        Compression::Zstd => buffered(Box::new(
            zstd::stream::read::Decoder::with_buffer(raw).map_err(io)?,
        )),
        Compression::Xz => buffered(Box::new(liblzma::bufread::XzDecoder::new_multi_decoder(
            raw,
        ))),
        Compression::Bzip2 => buffered(Box::new(bzip2::bufread::MultiBzDecoder::new(raw))),
    };
    let mut skipped = 0;
    if text {
        let head = match &mut input {
            Input::Plain(r) => r.fill_buf(),
            Input::Decoded(r) => r.fill_buf(),
        }
        .map_err(io)?;
        if let Some(msg) = not_a_text_file(head) {
            return Err(Error::Trace {
                path: path.to_path_buf(),
                line: 1,
                msg,
            });
        }
        if head.starts_with(&[0xef, 0xbb, 0xbf]) {
            skipped = 3;
            match &mut input {
                Input::Plain(r) => r.consume(3),
                Input::Decoded(r) => r.consume(3),
            }
        }
    }
    Ok(Opened {
        input,
        file_count,
        file_size,
        compression,
        skipped,
    })
}

/// Why the first bytes of a (decompressed) text trace cannot be one, if they cannot.
fn not_a_text_file(head: &[u8]) -> Option<String> {
    if head.starts_with(&[0xff, 0xfe]) || head.starts_with(&[0xfe, 0xff]) {
        return Some(
            "the file starts with a UTF-16 byte-order mark: a text trace must be UTF-8 (or ASCII); \
             convert it, e.g. with iconv -f UTF-16 -t UTF-8"
                .into(),
        );
    }
    if head.len() >= 262 && &head[257..262] == b"ustar" {
        let name_end = head[..100].iter().position(|&b| b == 0).unwrap_or(100);
        return Some(format!(
            "the file is a tar archive (first member `{}`): extract the trace from it first \
             (tar xf)",
            super::fields::show(&head[..name_end])
        ));
    }
    if head.starts_with(b"PK\x03\x04") {
        return Some("the file is a zip archive: extract the trace from it first (unzip)".into());
    }
    None
}

/// Why a line is not text, if it is not: bytes that are not UTF-8, or control characters
/// other than tab and carriage return. Describes the first such byte, never echoes it.
pub(super) fn not_text(line: &[u8]) -> Option<String> {
    let hint = "binary data, or a binary or compressed file read as a text trace?";
    let (valid, bad_at) = match std::str::from_utf8(line) {
        Ok(s) => (s, None),
        Err(e) => (
            std::str::from_utf8(&line[..e.valid_up_to()]).unwrap_or_default(),
            // `None`: a character cut at the end of a truncated sample, not a bad byte.
            e.error_len().map(|_| e.valid_up_to()),
        ),
    };
    if let Some((i, c)) = valid
        .char_indices()
        .find(|&(_, c)| c.is_control() && c != '\t' && c != '\r')
    {
        return Some(format!(
            "line holds a control character (U+{:04X} at column {}): {hint}",
            c as u32,
            i + 1
        ));
    }
    bad_at.map(|at| {
        format!(
            "line is not UTF-8 text (byte 0x{:02x} at column {}): {hint}",
            line.get(at).copied().unwrap_or(0),
            at + 1
        )
    })
}

/// True when `line` is printable ASCII, tab and carriage return only: the common case, which
/// needs no UTF-8 decoding to know it is text.
#[inline]
fn plain_ascii_text(line: &[u8]) -> bool {
    line.iter()
        .all(|&c| (0x20..0x7f).contains(&c) || c == b'\t' || c == b'\r')
}

/// Strip the blanks other than `delim` (and the `\r` of CRLF files) from both ends.
fn trim_cr_spaces(mut b: &[u8], delim: u8) -> &[u8] {
    let blank = |c: u8| c.is_ascii_whitespace() && c != delim;
    while let [first, rest @ ..] = b {
        if blank(*first) {
            b = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = b {
        if blank(*last) {
            b = rest;
        } else {
            break;
        }
    }
    b
}

/// Line bookkeeping of a text trace.
pub(super) struct Lines {
    /// A line split across two reads of the buffer (rare: only at buffer boundaries).
    pub carry: Vec<u8>,
    /// 1-based number of the last line taken.
    pub line: u64,
    /// Bytes of the (decompressed) input consumed so far.
    pub consumed: u64,
    pub done: bool,
}

/// What one line produced.
enum Step {
    Req(Request),
    Skip,
    End,
}

/// Parse one physical line (without its `\n`). A line that fails to parse and is not text
/// reports that instead of the field it failed on.
#[inline]
fn step(parser: &mut Parser, raw: &[u8], line_no: u64) -> std::result::Result<Step, String> {
    if line_no <= parser.skip_lines {
        return Ok(Step::Skip);
    }
    let line = super::fields::trim(raw);
    if line.is_empty() || line[0] == b'#' {
        return Ok(Step::Skip);
    }
    // Every line is checked as text, not only one that fails: a byte that is not UTF-8 or a
    // control character in a column nothing reads is still a sign of a binary or corrupt file.
    if !plain_ascii_text(raw) {
        if let Some(why) = not_text(raw) {
            return Err(why);
        }
    }
    // A table split on tabs keeps its leading and trailing tabs: they delimit empty fields
    // (trimming them would shift every column left).
    let line = match &parser.kind {
        Kind::Table(spec) if spec.delim.is_some_and(|d| d.is_ascii_whitespace()) => {
            trim_cr_spaces(raw, spec.delim.unwrap_or(b'\t'))
        }
        _ => line,
    };
    let out = match parser.parse(line) {
        Ok(Parsed::Record(r)) => parser.finish(r).map(Step::Req),
        Ok(Parsed::Skip) => Ok(Step::Skip),
        Ok(Parsed::End) => Ok(Step::End),
        Err(e) => Err(e),
    };
    out.map_err(|msg| not_text(raw).unwrap_or(msg))
}

/// The next request from `reader`. Lines are parsed in place in the reader's buffer; only a
/// line straddling two buffer fills is copied (into `st.carry`).
#[inline]
pub(super) fn next_from<R: BufRead + ?Sized>(
    reader: &mut R,
    st: &mut Lines,
    parser: &mut Parser,
    path: &Path,
) -> Result<Option<Request>> {
    let trace_err = |line: u64, msg: String| Error::Trace {
        path: path.to_path_buf(),
        line,
        msg,
    };
    while !st.done {
        let avail = reader.fill_buf().map_err(|e| Error::io(path, e))?;
        if matches!(parser.kind, Kind::Disksim) && st.carry.is_empty() {
            if let Some((v, used)) = fast_disksim(avail) {
                if let Some(parsed) = parser.disksim_values(v) {
                    reader.consume(used);
                    st.consumed += used as u64;
                    st.line += 1;
                    match parsed.and_then(|p| match p {
                        Parsed::Record(r) => parser.finish(r).map(Some),
                        _ => Ok(None),
                    }) {
                        Ok(Some(r)) => return Ok(Some(r)),
                        Ok(None) => continue,
                        Err(msg) => return Err(trace_err(st.line, msg)),
                    }
                }
            }
        }
        let (outcome, used) = if avail.is_empty() {
            // End of input: a last line without `\n` is still a line.
            st.done = true;
            if st.carry.is_empty() {
                return Ok(None);
            }
            st.line += 1;
            let o = step(parser, &st.carry, st.line);
            st.carry.clear();
            (Some(o), 0)
        } else if let Some(i) = avail.iter().position(|&c| c == b'\n') {
            st.line += 1;
            let head = avail.get(..i).unwrap_or_default();
            let o = if st.carry.is_empty() {
                step(parser, head, st.line)
            } else {
                st.carry.extend_from_slice(head);
                let o = step(parser, &st.carry, st.line);
                st.carry.clear();
                o
            };
            (Some(o), i + 1)
        } else {
            st.carry.extend_from_slice(avail);
            if st.carry.len() > MAX_LINE_BYTES {
                let why = not_text(&st.carry[..MAX_LINE_BYTES.min(4096)]).unwrap_or_else(|| {
                    "binary data, or a file with another record separator?".into()
                });
                return Err(trace_err(
                    st.line + 1,
                    format!(
                        "no line break in the first {} MiB of this line: not a text trace ({why})",
                        MAX_LINE_BYTES >> 20
                    ),
                ));
            }
            (None, avail.len())
        };
        reader.consume(used);
        st.consumed += used as u64;
        match outcome {
            None | Some(Ok(Step::Skip)) => {}
            Some(Ok(Step::Req(r))) => return Ok(Some(r)),
            Some(Ok(Step::End)) => st.done = true,
            Some(Err(msg)) => return Err(trace_err(st.line, msg)),
        }
    }
    Ok(None)
}
