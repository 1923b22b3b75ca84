//! From text to jobs: fio job files (with `include` and `${VAR}` expansion), inline jobs and
//! fio command lines, each option kept with where it was written. Nothing is interpreted here
//! beyond fio's syntax; [`super::resolve`] gives the options their meaning.

use super::options::{class_of, Class};
use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where an option came from, for error messages.
#[derive(Debug, Clone)]
pub(super) enum Origin {
    File { path: PathBuf, line: u64 },
    Inline { key: String },
}

impl Origin {
    /// Whether `e` is an error about an option written here (its line, or its key).
    pub(super) fn is_where(&self, e: &Error) -> bool {
        match (self, e) {
            (
                Origin::File { path, line },
                Error::JobFile {
                    path: p, line: l, ..
                },
            ) => path == p && line == l,
            (Origin::Inline { key }, Error::Config { key: k, .. }) => key == k,
            _ => false,
        }
    }

    pub(super) fn err(&self, msg: impl Into<String>) -> Error {
        match self {
            Origin::File { path, line } => Error::JobFile {
                path: path.clone(),
                line: *line,
                msg: msg.into(),
            },
            Origin::Inline { key } => Error::config("workload", key.clone(), msg),
        }
    }
}

/// One `key[=value]` as written (after variable expansion).
#[derive(Debug, Clone)]
pub(super) struct Opt {
    pub key: String,
    pub value: Option<String>,
    pub at: Origin,
}

impl Opt {
    /// `key=value` as the user wrote it, for messages.
    pub(super) fn shown(&self) -> String {
        match &self.value {
            Some(v) => format!("{}={v}", self.key),
            None => self.key.clone(),
        }
    }
    pub(super) fn err(&self, msg: impl std::fmt::Display) -> Error {
        self.at.err(format!("`{}`: {msg}", self.shown()))
    }
    pub(super) fn value(&self) -> Result<&str> {
        match self.value.as_deref() {
            Some(v) if !v.is_empty() => Ok(v),
            _ => Err(self.at.err(format!(
                "option `{}` needs a value (`{}=...`)",
                self.key, self.key
            ))),
        }
    }
    /// A fio boolean: bare flag or `=1`/`=0` (also `true`/`false`).
    pub(super) fn flag(&self) -> Result<bool> {
        match self.value.as_deref().map(str::trim) {
            None | Some("") | Some("1") | Some("true") => Ok(true),
            Some("0") | Some("false") => Ok(false),
            Some(_) => Err(self.err("expected a flag: bare, `=1` or `=0`")),
        }
    }
}

/// A job before resolution: the `[global]` options seen before it and its own.
pub(super) struct RawJob {
    pub name: String,
    pub at: Origin,
    pub globals: Vec<Opt>,
    pub own: Vec<Opt>,
}

/// Problems found so far: a run reports all of them, not only the first.
#[derive(Default)]
pub(super) struct Problems(pub Vec<Error>);

impl Problems {
    pub(super) fn push(&mut self, e: Error) {
        self.0.push(e);
    }
    /// `Ok` when nothing went wrong; the one error, or all of them together.
    pub(super) fn finish(mut self) -> Result<()> {
        match self.0.len() {
            0 => Ok(()),
            1 => Err(self.0.remove(0)),
            _ => Err(Error::Several(self.0)),
        }
    }
}

/// Check that `key` is an option fio has (honoured, ignored or refused later).
pub(super) fn check_key(key: &str) -> std::result::Result<Class, String> {
    class_of(key).ok_or_else(|| format!("unknown fio option `{key}`"))
}

/// Values of `${NAME}` and of fio's `$ncpus`, `$pagesize`, `$mb_memory` keywords.
pub(super) struct Vars<'a> {
    /// `workload.vars` (and `--set workload.vars.NAME=...`): win over the environment.
    pub given: &'a BTreeMap<String, String>,
    /// The values used, for the run's summary (a run that reads the environment or the
    /// machine says what it read).
    pub used: BTreeMap<String, String>,
}

impl Vars<'_> {
    fn lookup(&mut self, name: &str, keyword: bool) -> std::result::Result<String, String> {
        let v = if let Some(v) = self.given.get(name) {
            v.clone()
        } else if keyword {
            match name {
                "ncpus" => std::thread::available_parallelism()
                    .map(|n| n.get().to_string())
                    .unwrap_or_else(|_| "1".into()),
                // Linux's page size on x86-64 and most arm64 systems.
                "pagesize" => "4096".into(),
                _ => {
                    return Err(format!(
                        "`${name}` is the machine's memory in MiB, which a simulation cannot read: \
                         give it as `workload.vars.{name}`"
                    ))
                }
            }
        } else {
            match std::env::var(name) {
                Ok(v) => v,
                Err(_) => {
                    return Err(format!(
                        "`${{{name}}}` is not set: set the environment variable or `workload.vars.{name}`"
                    ))
                }
            }
        };
        self.used.insert(name.to_string(), v.clone());
        Ok(v)
    }

    /// `text` with `${NAME}` and `$ncpus`/`$pagesize`/`$mb_memory` replaced, as fio does.
    pub(super) fn expand(&mut self, text: &str) -> std::result::Result<String, String> {
        if !text.contains('$') {
            return Ok(text.to_string());
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(i) = rest.find('$') {
            out.push_str(&rest[..i]);
            let tail = &rest[i + 1..];
            if let Some(inner) = tail.strip_prefix('{') {
                let Some(end) = inner.find('}') else {
                    return Err(format!("`${{` without its closing `}}` in `{text}`"));
                };
                out.push_str(&self.lookup(&inner[..end], false)?);
                rest = &inner[end + 1..];
                continue;
            }
            let kw = ["ncpus", "pagesize", "mb_memory"]
                .into_iter()
                .find(|k| tail.starts_with(k));
            match kw {
                Some(k) => {
                    out.push_str(&self.lookup(k, true)?);
                    rest = &tail[k.len()..];
                }
                // fio's own `$jobname`, `$jobnum`, `$filenum`, `$clientuid` in
                // filename_format stay for the file layout to fill in.
                None => {
                    out.push('$');
                    rest = tail;
                }
            }
        }
        out.push_str(rest);
        Ok(out)
    }
}

/// Strip a trailing ` ;` / ` #` comment (fio's comment rule: the marker must follow a blank,
/// so values such as `name=a#b` keep their `#`).
fn strip_trailing_comment(line: &str) -> &str {
    let b = line.as_bytes();
    for i in 1..b.len() {
        if (b[i] == b';' || b[i] == b'#') && (b[i - 1] == b' ' || b[i - 1] == b'\t') {
            return line.get(..i).unwrap_or(line);
        }
    }
    line
}

/// fio's limit on nested includes.
const MAX_INCLUDE_DEPTH: u32 = 16;

/// A job file parsed into its accumulated `[global]` options and its jobs.
pub(super) struct Parsed {
    pub globals: Vec<Opt>,
    pub jobs: Vec<RawJob>,
    /// fio program flags that only shape fio's own output (`--output=F`, `--eta=never`...),
    /// accepted and ignored, as given.
    pub ignored_flags: Vec<String>,
}

enum Cur {
    None,
    Global,
    Job,
}

/// Parse a job file; problems with single lines are collected in `problems` and the line
/// skipped, so one run reports all of them.
pub(super) fn parse_job_file(
    path: &Path,
    vars: &mut Vars<'_>,
    problems: &mut Problems,
) -> Result<Parsed> {
    let mut p = Parsed {
        globals: Vec::new(),
        jobs: Vec::new(),
        ignored_flags: Vec::new(),
    };
    let mut cur = Cur::None;
    parse_into(path, vars, problems, &mut p, &mut cur, 0)?;
    Ok(p)
}

fn parse_into(
    path: &Path,
    vars: &mut Vars<'_>,
    problems: &mut Problems,
    p: &mut Parsed,
    cur: &mut Cur,
    depth: u32,
) -> Result<()> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
    for (i, raw) in bytes.split(|&c| c == b'\n').enumerate() {
        let at = Origin::File {
            path: path.to_path_buf(),
            line: i as u64 + 1,
        };
        let Ok(text) = std::str::from_utf8(raw) else {
            problems.push(at.err("line is not valid UTF-8 text"));
            continue;
        };
        let t = text.trim();
        if t.is_empty() || t.starts_with(';') || t.starts_with('#') {
            continue;
        }
        let t = strip_trailing_comment(t).trim();
        if let Some(inner) = t.strip_prefix('[') {
            let Some(name) = inner.strip_suffix(']') else {
                return Err(at.err(format!("section header `{t}` lacks its closing `]`")));
            };
            let name = name.trim();
            if name.is_empty() {
                return Err(at.err("empty section name `[]`"));
            }
            if name == "global" {
                *cur = Cur::Global;
            } else {
                *cur = Cur::Job;
                p.jobs.push(RawJob {
                    name: name.to_string(),
                    at,
                    globals: p.globals.clone(),
                    own: Vec::new(),
                });
            }
            continue;
        }
        if let Some(file) = t
            .strip_prefix("include")
            .filter(|r| r.starts_with([' ', '\t']))
        {
            // fio: `include FILE`, relative to the including file's folder.
            let file = file.trim();
            if depth >= MAX_INCLUDE_DEPTH {
                return Err(at.err(format!(
                    "`include {file}`: includes nest deeper than {MAX_INCLUDE_DEPTH} (a loop?)"
                )));
            }
            let target = path.parent().unwrap_or(Path::new(".")).join(file);
            if !target.is_file() {
                return Err(at.err(format!(
                    "`include {file}`: no such file {}",
                    target.display()
                )));
            }
            parse_into(&target, vars, problems, p, cur, depth + 1)?;
            continue;
        }
        let (key, value) = match t.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v.trim().to_string())),
            None => (t, None),
        };
        if key.is_empty() || key.contains(char::is_whitespace) {
            return Err(at.err(format!("expected `key=value` or a `[section]`, got `{t}`")));
        }
        if let Err(m) = check_key(key) {
            problems.push(at.err(m));
            continue;
        }
        let value = match value.map(|v| vars.expand(&v)).transpose() {
            Ok(v) => v,
            Err(m) => {
                problems.push(at.err(format!("`{key}`: {m}")));
                continue;
            }
        };
        let opt = Opt {
            key: key.to_string(),
            value,
            at,
        };
        match cur {
            Cur::None => {
                return Err(opt.at.err(format!(
                    "option `{}` appears before any `[section]`",
                    opt.shown()
                )));
            }
            Cur::Global => {
                p.globals.push(opt);
            }
            Cur::Job => {
                if let Some(j) = p.jobs.last_mut() {
                    j.own.push(opt);
                }
            }
        }
    }
    Ok(())
}

/// Inline options (`false` booleans are absent, as a missing flag line).
pub(super) fn inline_opts(
    map: &BTreeMap<String, crate::config::OptionValue>,
    prefix: &str,
    vars: &mut Vars<'_>,
    problems: &mut Problems,
) -> Vec<Opt> {
    let mut out = Vec::new();
    for (k, v) in map {
        let at = Origin::Inline {
            key: format!("{prefix}.{k}"),
        };
        if let Err(m) = check_key(k) {
            problems.push(at.err(m));
            continue;
        }
        if let Some(text) = v.as_fio_text() {
            let text = match vars.expand(&text) {
                Ok(t) => t,
                Err(m) => {
                    problems.push(at.err(m));
                    continue;
                }
            };
            let value = if text.is_empty() { None } else { Some(text) };
            out.push(Opt {
                key: k.clone(),
                value,
                at,
            });
        }
    }
    out
}

/// A fio command line (`--name=a --rw=randwrite --bs=4k --name=b ...`) as inline jobs: as
/// fio reads it, options before the first `--name` are global, and each `--name` starts a
/// job. Flags that only shape fio's own output (`--output`, `--output-format`, `--eta`...)
/// are accepted and listed as ignored; other arguments that are not `--key[=value]` (a job
/// file, fio's other program flags such as `--readonly`) are refused.
pub(super) fn command_line(
    args: &[String],
    key: &str,
    vars: &mut Vars<'_>,
    problems: &mut Problems,
) -> Parsed {
    let mut p = Parsed {
        globals: Vec::new(),
        jobs: Vec::new(),
        ignored_flags: Vec::new(),
    };
    // fio's flags that only choose what fio prints and where: nothing in the I/O they issue.
    const OUTPUT_FLAGS: &[&str] = &[
        "output",
        "output-format",
        "minimal",
        "terse-version",
        "eta",
        "eta-newline",
        "eta-interval",
        "status-interval",
        "append-terse",
        "bandwidth-log",
        "latency-log",
    ];
    const FIO_FLAGS: &[&str] = &[
        "readonly",
        "section",
        "alloc-size",
        "warnings-fatal",
        "max-jobs",
        "server",
        "client",
        "debug",
        "parse-only",
        "showcmd",
        "aux-path",
        "trigger",
    ];
    for (i, arg) in args.iter().enumerate() {
        let at = Origin::Inline {
            key: format!("{key}[{i}]"),
        };
        // fio reads its command line with getopt_long_only: `-name=a` is `--name=a`.
        let single = arg
            .strip_prefix('-')
            .filter(|r| r.starts_with(|c: char| c.is_ascii_alphabetic()));
        let Some(opt) = arg.strip_prefix("--").or(single) else {
            problems.push(at.err(format!(
                "`{arg}`: expected a fio option `--key[=value]` (give job files with --job)"
            )));
            continue;
        };
        let (k, v) = match opt.split_once('=') {
            Some((k, v)) => (k, Some(v.to_string())),
            None => (opt, None),
        };
        if OUTPUT_FLAGS.contains(&k) {
            p.ignored_flags.push(arg.clone());
            continue;
        }
        if FIO_FLAGS.contains(&k) {
            problems.push(at.err(format!(
                "`--{k}` is a flag of the fio program, not a job option"
            )));
            continue;
        }
        if let Err(m) = check_key(k) {
            problems.push(at.err(m));
            continue;
        }
        let v = match v.map(|v| vars.expand(&v)).transpose() {
            Ok(v) => v,
            Err(m) => {
                problems.push(at.err(m));
                continue;
            }
        };
        if k == "name" {
            let name = v.clone().unwrap_or_default();
            p.jobs.push(RawJob {
                name,
                at: at.clone(),
                globals: p.globals.clone(),
                own: Vec::new(),
            });
        }
        let o = Opt {
            key: k.to_string(),
            value: v,
            at,
        };
        match p.jobs.last_mut() {
            Some(j) => j.own.push(o),
            None => p.globals.push(o),
        }
    }
    p
}
