//! One error type for the core. A user's mistake (bad config value, bad trace line, unreadable
//! file) is an [`Error`] value naming where it happened; a broken internal invariant is a panic.

use std::path::PathBuf;

/// Result alias used across the core.
pub type Result<T> = std::result::Result<T, Error>;

/// Everything a user can get wrong, each variant naming the file, line or key at fault.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A configuration value is missing, malformed, unknown or out of range.
    /// `key` is the dotted path (`ftl.op_ratio`); `source_name` the file or preset it came from.
    #[error("{source_name}: config key `{key}`: {msg}")]
    Config {
        source_name: String,
        key: String,
        msg: String,
    },

    /// A named preset does not exist.
    #[error("unknown preset `{name}` (known presets: {known})")]
    UnknownPreset { name: String, known: String },

    /// A trace line could not be parsed.
    #[error("{}:{line}: {msg}", path.display())]
    Trace {
        path: PathBuf,
        line: u64,
        msg: String,
    },

    /// A fio job file line or option is malformed or unsupported.
    #[error("{}:{line}: {msg}", path.display())]
    JobFile {
        path: PathBuf,
        line: u64,
        msg: String,
    },

    /// Several problems found in one pass (a fio workload reports every option it cannot
    /// honour, each naming its file and line or key), in the order found.
    #[error("{} problems:\n{}", .0.len(), .0.iter().map(|e| format!("  {e}")).collect::<Vec<_>>().join("\n"))]
    Several(Vec<Error>),

    /// A workload is valid on its own but cannot run on this device (e.g. addresses past the end).
    #[error("workload: {0}")]
    Workload(String),

    /// A file could not be opened or read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// Verify mode found a read returning content other than what was last written there.
    #[error("verify failed: {0}")]
    Verify(String),

    /// The invariant check found the FTL's structures inconsistent.
    #[error("invariant violated: {0}")]
    Invariant(String),

    /// A codec name that is not one of ours, or a level outside the codec's range.
    #[error("unknown codec `{name}` (known: {known})")]
    UnknownCodec { name: String, known: String },

    /// Compressed input that its codec cannot decode (corrupt, truncated, wrong codec).
    #[error("codec {codec}: {msg}")]
    Codec { codec: String, msg: String },

    /// A compression-placement policy name that is not one of ours.
    #[error("config key `{key}`: unknown policy `{name}` (known: {known})")]
    UnknownPolicy {
        key: String,
        name: String,
        known: String,
    },

    /// Host and device disagree on the codec or granularity that cooperative
    /// decompression needs (CCF mount options vs the CCSD's engine).
    #[error("CCF mismatch: {0}")]
    CcfMismatch(String),

    /// An API call out of order (e.g. finishing a simulation that has not ended).
    #[error("{0}")]
    State(String),

    /// The caller's interrupt hook asked a long loop to stop (Ctrl-C in the front ends).
    #[error("interrupted")]
    Interrupted,
}

impl Error {
    /// Shorthand for a config error.
    pub fn config(
        source_name: impl Into<String>,
        key: impl Into<String>,
        msg: impl Into<String>,
    ) -> Self {
        Error::Config {
            source_name: source_name.into(),
            key: key.into(),
            msg: msg.into(),
        }
    }

    /// Shorthand for an I/O error on a path.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

/// Longest run of non-blank characters a message shows whole.
const LONG_WORD: usize = 120;

/// `msg` with every run of non-blank characters longer than 120 characters (a pasted value, a
/// key or a line of garbage) cut to its first 60 and last 20 characters around a note of how
/// many were left out, so an error about a 100,000-character value stays readable.
pub fn shorten_message(msg: &str) -> std::borrow::Cow<'_, str> {
    let long = msg
        .split(char::is_whitespace)
        .any(|w| w.len() > LONG_WORD && w.chars().count() > LONG_WORD);
    if !long {
        return std::borrow::Cow::Borrowed(msg);
    }
    let mut out = String::with_capacity(msg.len().min(4096));
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let n = word.chars().count();
        if n > LONG_WORD {
            let head: String = word.chars().take(60).collect();
            let tail: String = word.chars().skip(n - 20).collect();
            out.push_str(&format!("{head}...[{} characters]...{tail}", n - 80));
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in msg.chars() {
        if c.is_whitespace() {
            flush(&mut word, &mut out);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::shorten_message;

    #[test]
    fn long_words_are_cut_and_short_ones_kept() {
        assert_eq!(shorten_message("a short message"), "a short message");
        let v = "x".repeat(100_000);
        let msg = format!("key `k`: expected a number, got `{v}` here");
        let got = shorten_message(&msg);
        assert!(got.len() < 250, "{}", got.len());
        assert!(got.starts_with("key `k`: expected a number, got `xxx"));
        assert!(got.contains("...[99922 characters]..."), "{got}");
        assert!(got.ends_with("xxx` here"));
        // exactly at the limit: whole
        let w = "é".repeat(120);
        assert_eq!(shorten_message(&w), w);
        let w = "é".repeat(121);
        assert_eq!(
            shorten_message(&w).chars().count(),
            60 + 20 + "...[41 characters]...".len()
        );
    }
}
