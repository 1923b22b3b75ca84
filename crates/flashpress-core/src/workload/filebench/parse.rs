//! The subset of Filebench's workload model language (WML) that the four personalities use.
//!
//! The language is free-form: statements and attribute lists may span lines (OLTP's flowops
//! continue after a trailing comma), `#` starts a comment that runs to the end of the line,
//! and `"..."` is a string. Statements: `set $var = value`, `define fileset ...`,
//! `define process ... { thread ... { flowop ... } }`, `echo "..."`, `eventgen rate = 0` and
//! `run [seconds]`. Attribute lists are `key[=value]` items separated by commas; a value that
//! starts with `$` is a variable reference, resolved when the statement is read (as Filebench
//! does), so a variable must be set before it is used.

use crate::error::{Error, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A token of the WML with the line it starts on.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    /// A bare word: keyword, name, number, `$var`, path.
    Word(String),
    /// A `"..."` string.
    Str(String),
    /// One of `, = { } ( )`.
    Punct(char),
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    line: u64,
}

const PUNCT: &[char] = &[',', '=', '{', '}', '(', ')'];

/// Split `text` into tokens; `Err((line, msg))` on an unterminated string.
fn tokenize(text: &str) -> std::result::Result<Vec<Token>, (u64, String)> {
    let mut out = Vec::new();
    let mut line = 1u64;
    let mut it = text.chars().peekable();
    while let Some(&c) = it.peek() {
        if c == '\n' {
            line += 1;
            it.next();
        } else if c.is_whitespace() {
            it.next();
        } else if c == '#' {
            while it.peek().is_some_and(|&c| c != '\n') {
                it.next();
            }
        } else if c == '"' {
            it.next();
            let mut s = String::new();
            loop {
                match it.next() {
                    Some('"') => break,
                    Some('\n') | None => return Err((line, "unterminated string".into())),
                    Some(c) => s.push(c),
                }
            }
            out.push(Token {
                tok: Tok::Str(s),
                line,
            });
        } else if PUNCT.contains(&c) {
            it.next();
            out.push(Token {
                tok: Tok::Punct(c),
                line,
            });
        } else {
            let mut w = String::new();
            while let Some(&c) = it.peek() {
                if c.is_whitespace() || PUNCT.contains(&c) || c == '"' || c == '#' {
                    break;
                }
                w.push(c);
                it.next();
            }
            out.push(Token {
                tok: Tok::Word(w),
                line,
            });
        }
    }
    Ok(out)
}

/// A variable's or attribute's value.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Val {
    /// Plain text: a number, a name, a path.
    Text(String),
    /// `cvar(type=cvar-gamma,parameters=mean:M;gamma:G)`: gamma distribution with mean `M`
    /// and shape `G`.
    Gamma {
        /// Mean.
        mean: f64,
        /// Shape parameter (Filebench's `gamma`).
        shape: f64,
    },
}

impl Val {
    fn shown(&self) -> String {
        match self {
            Val::Text(t) => t.clone(),
            Val::Gamma { mean, shape } => {
                format!("cvar(type=cvar-gamma,parameters=mean:{mean};gamma:{shape})")
            }
        }
    }
}

/// A byte count or count as Filebench writes it: an integer with an optional `k`, `m`, `g` or
/// `t` suffix (powers of 1024, either case, optionally followed by `b`).
pub(super) fn parse_count(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let t = t
        .strip_suffix('b')
        .or_else(|| t.strip_suffix('B'))
        .filter(|r| r.ends_with(|c: char| c.is_ascii_alphabetic()))
        .unwrap_or(t);
    let (digits, mult) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m: u64 = match c.to_ascii_lowercase() {
                'k' => 1 << 10,
                'm' => 1 << 20,
                'g' => 1 << 30,
                't' => 1 << 40,
                _ => return Err(format!("`{text}` is not a number (suffixes: k, m, g, t)")),
            };
            (&t[..i], m)
        }
        _ => (t, 1),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "`{text}` is not a number (an integer with an optional k, m, g or t suffix)"
        ));
    }
    digits
        .parse::<u64>()
        .ok()
        .and_then(|v| v.checked_mul(mult))
        .ok_or_else(|| format!("`{text}` is too large"))
}

/// A finite non-negative decimal number.
fn parse_real(text: &str) -> std::result::Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("`{text}` is not a non-negative number")),
    }
}

/// How big each entry of a fileset is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum SizeSpec {
    /// Every file has this many bytes.
    Fixed(u64),
    /// Gamma distributed with this mean and shape (scale = mean / shape).
    Gamma {
        /// Mean size, bytes.
        mean: f64,
        /// Shape.
        shape: f64,
    },
}

/// `define fileset`.
#[derive(Debug, Clone)]
pub(super) struct FilesetDef {
    /// `name`.
    pub name: String,
    /// `size`.
    pub size: SizeSpec,
    /// `entries`.
    pub entries: u32,
    /// `prealloc` (percent of the entries that exist at the start; bare `prealloc` is 100).
    pub prealloc_pct: u32,
}

/// A flowop type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    CreateFile,
    DeleteFile,
    OpenFile,
    CloseFile,
    StatFile,
    Fsync,
    AppendFile,
    AppendFileRand,
    WriteWholeFile,
    ReadWholeFile,
    Read,
    Write,
    AioWrite,
    AioWait,
    Hog,
    SemBlock,
    SemPost,
    EventLimit,
}

/// Flowop names and, per flowop, the attributes with a meaning here (`name`, `iters`,
/// `dsync` and `directio` are accepted by every flowop; see [`super`] for what is ignored).
const FLOWOPS: &[(&str, Kind, &[&str])] = &[
    ("createfile", Kind::CreateFile, &["filesetname", "fd"]),
    ("deletefile", Kind::DeleteFile, &["filesetname"]),
    ("openfile", Kind::OpenFile, &["filesetname", "fd"]),
    ("closefile", Kind::CloseFile, &["fd"]),
    ("statfile", Kind::StatFile, &["filesetname"]),
    ("fsync", Kind::Fsync, &["fd", "filesetname"]),
    (
        "appendfile",
        Kind::AppendFile,
        &["filesetname", "fd", "iosize"],
    ),
    (
        "appendfilerand",
        Kind::AppendFileRand,
        &["filesetname", "fd", "iosize"],
    ),
    (
        "writewholefile",
        Kind::WriteWholeFile,
        &["filesetname", "fd", "srcfd", "iosize"],
    ),
    (
        "readwholefile",
        Kind::ReadWholeFile,
        &["filesetname", "fd", "iosize"],
    ),
    (
        "read",
        Kind::Read,
        &[
            "filesetname",
            "fd",
            "iosize",
            "random",
            "workingset",
            "opennext",
        ],
    ),
    (
        "write",
        Kind::Write,
        &[
            "filesetname",
            "fd",
            "iosize",
            "random",
            "workingset",
            "opennext",
        ],
    ),
    (
        "aiowrite",
        Kind::AioWrite,
        &[
            "filesetname",
            "fd",
            "iosize",
            "random",
            "workingset",
            "opennext",
        ],
    ),
    ("aiowait", Kind::AioWait, &[]),
    ("hog", Kind::Hog, &["value"]),
    ("semblock", Kind::SemBlock, &["value", "highwater"]),
    ("sempost", Kind::SemPost, &["value", "target", "blocking"]),
    ("eventlimit", Kind::EventLimit, &["value"]),
];

/// Attributes every flowop accepts.
const FLOWOP_COMMON: &[&str] = &["name", "iters", "dsync", "directio"];

/// One `flowop`.
#[derive(Debug, Clone)]
pub(super) struct Flowop {
    /// Type.
    pub kind: Kind,
    /// `name` (the type when absent).
    pub name: String,
    /// `filesetname`, as an index into the script's filesets.
    pub fileset: Option<usize>,
    /// `fd` (Filebench numbers descriptors from 1).
    pub fd: Option<u32>,
    /// `srcfd` (writewholefile: the descriptor whose file's size is written).
    pub srcfd: Option<u32>,
    /// `iosize`, bytes (0 when the flowop does no I/O).
    pub iosize: u64,
    /// `random` offsets (read, write, aiowrite).
    pub random: bool,
    /// `workingset`, bytes (0: the whole file).
    pub workingset: u64,
    /// `opennext`: every execution moves to the next file of the fileset.
    pub opennext: bool,
    /// `iters`: executions per pass of the thread's loop.
    pub iters: u32,
    /// `value`: hog loop iterations; semblock/sempost count.
    pub value: u64,
    /// `highwater` (semblock): the initial count of the semaphore blocking posters
    /// (Filebench's default 1).
    pub highwater: u64,
    /// `target` (sempost): the name of the semblock flowops posted to.
    pub target: Option<String>,
    /// `blocking` (sempost): the post waits for the target's high-water count.
    pub blocking: bool,
    /// `dsync`: the flowop's writes are `O_DSYNC` (on the device when they return).
    pub dsync: bool,
    /// `directio`: the flowop's I/O is `O_DIRECT` (bypasses the host page cache).
    pub directio: bool,
    /// Line of the `flowop` keyword.
    pub line: u64,
}

/// A `thread` of a process.
#[derive(Debug, Clone)]
pub(super) struct ThreadDef {
    /// `name`.
    pub name: String,
    /// `instances`.
    pub instances: u32,
    /// The loop.
    pub flowops: Vec<Flowop>,
}

/// `define process`.
#[derive(Debug, Clone)]
pub(super) struct ProcessDef {
    /// `name`.
    pub name: String,
    /// `instances`.
    pub instances: u32,
    /// Threads of each instance.
    pub threads: Vec<ThreadDef>,
}

/// A parsed `.f` file.
#[derive(Debug, Clone)]
pub(super) struct Script {
    /// Filesets in definition order.
    pub filesets: Vec<FilesetDef>,
    /// Processes in definition order.
    pub processes: Vec<ProcessDef>,
    /// `run N` (seconds); `None` without a `run` statement.
    pub runtime_s: Option<f64>,
}

/// Most file entries a fileset may have: entry numbers take the low 24 bits of a file id.
pub(super) const MAX_ENTRIES: u64 = 1 << 24;
/// Most filesets: the fileset index takes the high 8 bits of a file id, and 255 would make
/// [`crate::workload::NO_FILE`] reachable.
pub(super) const MAX_FILESETS: usize = 255;
/// Largest file size a fileset may assign (4 GiB, the files the content id layout
/// addresses); gamma draws above it are clamped to it.
pub(super) const MAX_FILE_BYTES: u64 = 1 << 32;
/// Most streams (thread instances x process instances) a script may define.
pub(super) const MAX_THREADS: u64 = 65_536;
/// Largest semaphore count: Filebench passes counts to SysV `semop` as a C `short`.
pub(super) const MAX_SEM: u64 = 32_767;

/// A `$var` override from the config: its text, and what to call it in errors.
#[derive(Debug, Clone)]
pub(super) struct Override {
    /// The value as the user wrote it.
    pub text: String,
    /// Config key, e.g. `workload.vars.nfiles`.
    pub key: String,
}

struct Attr {
    key: String,
    val: Option<Val>,
    line: u64,
}

struct Parser<'a> {
    toks: Vec<Token>,
    i: usize,
    path: &'a Path,
    vars: BTreeMap<String, Val>,
    overrides: &'a BTreeMap<String, Override>,
    used: BTreeSet<String>,
    filesets: Vec<FilesetDef>,
}

/// Parse the text of a `.f` file. `overrides` replace the values of `set $name=...`
/// statements (keys without the `$`); one naming a variable the file never sets is a config
/// error naming its key.
pub(super) fn parse(
    path: &Path,
    text: &str,
    overrides: &BTreeMap<String, Override>,
) -> Result<Script> {
    let toks = tokenize(text).map_err(|(line, msg)| Error::JobFile {
        path: path.to_path_buf(),
        line,
        msg,
    })?;
    let mut p = Parser {
        toks,
        i: 0,
        path,
        vars: BTreeMap::new(),
        overrides,
        used: BTreeSet::new(),
        filesets: Vec::new(),
    };
    let mut processes = Vec::new();
    let mut runtime_s = None;
    while let Some(t) = p.next() {
        let line = t.line;
        let Tok::Word(w) = t.tok else {
            return Err(p.err(line, format!("expected a statement, got {}", shown(&t.tok))));
        };
        match w.as_str() {
            "set" => p.set(line)?,
            "define" => match p.word(line, "`fileset` or `process` after `define`")? {
                (ref k, _) if k == "fileset" => {
                    let fs = p.fileset(line)?;
                    if p.filesets.iter().any(|f| f.name == fs.name) {
                        return Err(p.err(line, format!("fileset `{}` defined twice", fs.name)));
                    }
                    if p.filesets.len() >= MAX_FILESETS {
                        return Err(p.err(line, format!("more than {MAX_FILESETS} filesets")));
                    }
                    p.filesets.push(fs);
                }
                (ref k, _) if k == "process" => processes.push(p.process(line)?),
                (k, l) => {
                    return Err(p.err(
                        l,
                        format!("`define {k}` is not supported (only `define fileset` and `define process`)"),
                    ))
                }
            },
            "echo" => match p.next() {
                Some(Token {
                    tok: Tok::Str(_) | Tok::Word(_),
                    ..
                }) => {}
                _ => return Err(p.err(line, "`echo` needs a string")),
            },
            "eventgen" => {
                for a in p.attrs(line)? {
                    match a.key.as_str() {
                        "rate" => {
                            let r = p.count(&a, "rate")?;
                            if r != 0 {
                                return Err(p.err(
                                    a.line,
                                    format!("`eventgen rate={r}`: rate-limited event generation is not supported (only rate 0, no generator)"),
                                ));
                            }
                        }
                        k => return Err(p.err(a.line, format!("`eventgen` does not take `{k}`"))),
                    }
                }
            }
            "run" => {
                // `run` takes an optional duration on the same line.
                let arg = match p.peek() {
                    Some(Token {
                        tok: Tok::Word(v),
                        line: l,
                    }) if *l == line => Some(v.clone()),
                    _ => None,
                };
                let secs = match arg {
                    Some(v) => {
                        p.i += 1;
                        let val = p.resolve(&v, line)?;
                        match &val {
                            Val::Text(t) => match parse_real(t) {
                                Ok(s) if s > 0.0 => s,
                                _ => {
                                    return Err(p.err(
                                        line,
                                        format!("`run {v}`: expected a positive number of seconds, got `{}`", val.shown()),
                                    ))
                                }
                            },
                            Val::Gamma { .. } => {
                                return Err(p.err(line, format!("`run {v}`: expected seconds, got a distribution")))
                            }
                        }
                    }
                    // Filebench's default run time.
                    None => 60.0,
                };
                if runtime_s.is_some() {
                    return Err(p.err(line, "more than one `run` statement"));
                }
                runtime_s = Some(secs);
            }
            other => {
                return Err(p.err(
                    line,
                    format!("unsupported statement `{other}` (supported: set, define fileset, define process, echo, eventgen, run)"),
                ))
            }
        }
    }
    if let Some((name, o)) = overrides.iter().find(|(n, _)| !p.used.contains(*n)) {
        return Err(Error::config(
            "config",
            o.key.clone(),
            format!(
                "{} sets no variable `${name}` (it sets: {})",
                path.display(),
                p.vars
                    .keys()
                    .map(|k| format!("${k}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    if processes.is_empty() {
        return Err(p.err(1, "the file defines no process"));
    }
    let threads: u64 = processes
        .iter()
        .map(|pr: &ProcessDef| {
            u64::from(pr.instances)
                * pr.threads
                    .iter()
                    .map(|t| u64::from(t.instances))
                    .sum::<u64>()
        })
        .sum();
    if threads > MAX_THREADS {
        return Err(p.err(
            1,
            format!("{threads} thread instances in all; at most {MAX_THREADS} are supported"),
        ));
    }
    // Filebench finds a sempost's targets by name among all flowops and stops the run when
    // there is none; a target that is not a semblock has no semaphore to post to.
    let all = || {
        processes
            .iter()
            .flat_map(|pr| &pr.threads)
            .flat_map(|t| &t.flowops)
    };
    for f in all().filter(|f| f.kind == Kind::SemPost) {
        let target = f.target.as_deref().unwrap_or_default();
        let named: Vec<&Flowop> = all().filter(|o| o.name == target).collect();
        if named.is_empty() {
            return Err(p.err(
                f.line,
                format!(
                    "flowop sempost `{}`: target `{target}` names no flowop",
                    f.name
                ),
            ));
        }
        if let Some(o) = named.iter().find(|o| o.kind != Kind::SemBlock) {
            return Err(p.err(
                f.line,
                format!(
                    "flowop sempost `{}`: target `{target}` is not a semblock (line {})",
                    f.name, o.line
                ),
            ));
        }
    }
    Ok(Script {
        filesets: p.filesets,
        processes,
        runtime_s,
    })
}

fn shown(t: &Tok) -> String {
    match t {
        Tok::Word(w) => format!("`{w}`"),
        Tok::Str(s) => format!("\"{s}\""),
        Tok::Punct(c) => format!("`{c}`"),
    }
}

/// Parse a `set` value from tokens: a word or string, or `cvar(...)`.
fn value_from(toks: &[Token], i: &mut usize) -> std::result::Result<Val, (u64, String)> {
    let Some(t) = toks.get(*i) else {
        return Err((
            toks.last().map_or(1, |t| t.line),
            "missing value after `=`".into(),
        ));
    };
    *i += 1;
    match &t.tok {
        Tok::Word(w) if w == "cvar" => {
            let line = t.line;
            if toks.get(*i).map(|t| &t.tok) != Some(&Tok::Punct('(')) {
                return Err((line, "expected `(` after `cvar`".into()));
            }
            *i += 1;
            let mut kv: BTreeMap<String, String> = BTreeMap::new();
            loop {
                let key = match toks.get(*i).map(|t| &t.tok) {
                    Some(Tok::Word(k)) => k.clone(),
                    Some(Tok::Punct(')')) => {
                        *i += 1;
                        break;
                    }
                    _ => return Err((line, "malformed `cvar(...)`: expected `key=value`".into())),
                };
                *i += 1;
                if toks.get(*i).map(|t| &t.tok) != Some(&Tok::Punct('=')) {
                    return Err((line, format!("`cvar(...)`: `{key}` needs `=value`")));
                }
                *i += 1;
                let Some(Tok::Word(v)) = toks.get(*i).map(|t| &t.tok) else {
                    return Err((line, format!("`cvar(...)`: `{key}` needs a value")));
                };
                kv.insert(key, v.clone());
                *i += 1;
                match toks.get(*i).map(|t| &t.tok) {
                    Some(Tok::Punct(',')) => *i += 1,
                    Some(Tok::Punct(')')) => {}
                    _ => return Err((line, "malformed `cvar(...)`: expected `,` or `)`".into())),
                }
            }
            match kv.get("type").map(String::as_str) {
                Some("cvar-gamma") => {}
                Some(t) => {
                    return Err((
                        line,
                        format!("cvar type `{t}` is not supported (only cvar-gamma)"),
                    ))
                }
                None => return Err((line, "`cvar(...)` needs `type=cvar-gamma`".into())),
            }
            if let Some(k) = kv.keys().find(|k| *k != "type" && *k != "parameters") {
                return Err((line, format!("`cvar(...)` does not take `{k}`")));
            }
            let params = kv.get("parameters").map(String::as_str).unwrap_or("");
            let (mut mean, mut shape) = (None, None);
            for p in params.split(';').filter(|p| !p.is_empty()) {
                let Some((k, v)) = p.split_once(':') else {
                    return Err((
                        line,
                        format!("cvar-gamma parameter `{p}`: expected `name:value`"),
                    ));
                };
                let v = parse_real(v).map_err(|m| (line, format!("cvar-gamma `{k}`: {m}")))?;
                match k {
                    "mean" => mean = Some(v),
                    "gamma" => shape = Some(v),
                    _ => {
                        return Err((
                            line,
                            format!("cvar-gamma has no parameter `{k}` (it takes mean and gamma)"),
                        ))
                    }
                }
            }
            let (Some(mean), Some(shape)) = (mean, shape) else {
                return Err((line, "cvar-gamma needs `parameters=mean:M;gamma:G`".into()));
            };
            if mean <= 0.0 || shape <= 0.0 || mean > MAX_FILE_BYTES as f64 {
                return Err((
                    line,
                    format!("cvar-gamma needs 0 < mean <= {MAX_FILE_BYTES} and gamma > 0"),
                ));
            }
            Ok(Val::Gamma { mean, shape })
        }
        Tok::Word(w) | Tok::Str(w) => Ok(Val::Text(w.clone())),
        Tok::Punct(c) => Err((t.line, format!("expected a value, got `{c}`"))),
    }
}

impl Parser<'_> {
    fn err(&self, line: u64, msg: impl Into<String>) -> Error {
        Error::JobFile {
            path: self.path.to_path_buf(),
            line,
            msg: msg.into(),
        }
    }

    fn next(&mut self) -> Option<Token> {
        let t = self.toks.get(self.i).cloned();
        self.i += 1;
        t
    }

    fn peek(&self) -> Option<&Token> {
        self.toks.get(self.i)
    }

    fn word(&mut self, line: u64, what: &str) -> Result<(String, u64)> {
        match self.next() {
            Some(Token {
                tok: Tok::Word(w),
                line,
            }) => Ok((w, line)),
            Some(t) => Err(self.err(t.line, format!("expected {what}, got {}", shown(&t.tok)))),
            None => Err(self.err(line, format!("expected {what}, got the end of the file"))),
        }
    }

    fn expect(&mut self, c: char, line: u64) -> Result<u64> {
        match self.next() {
            Some(Token {
                tok: Tok::Punct(p),
                line,
            }) if p == c => Ok(line),
            Some(t) => Err(self.err(t.line, format!("expected `{c}`, got {}", shown(&t.tok)))),
            None => Err(self.err(line, format!("expected `{c}`, got the end of the file"))),
        }
    }

    /// `set $name = value`.
    fn set(&mut self, line: u64) -> Result<()> {
        let (name, l) = self.word(line, "`$name` after `set`")?;
        let Some(name) = name.strip_prefix('$').filter(|n| !n.is_empty()) else {
            return Err(self.err(
                l,
                format!("`set {name}`: only `set $variable=value` is supported"),
            ));
        };
        let name = name.to_string();
        self.expect('=', l)?;
        let mut i = self.i;
        let parsed = value_from(&self.toks, &mut i).map_err(|(l, m)| self.err(l, m))?;
        self.i = i;
        let val = if let Some(o) = self.overrides.get(&name) {
            self.used.insert(name.clone());
            let toks =
                tokenize(&o.text).map_err(|(_, m)| Error::config("config", o.key.clone(), m))?;
            let mut j = 0;
            let v = value_from(&toks, &mut j)
                .map_err(|(_, m)| Error::config("config", o.key.clone(), m))?;
            if j != toks.len() {
                return Err(Error::config(
                    "config",
                    o.key.clone(),
                    format!("expected one value, got `{}`", o.text),
                ));
            }
            v
        } else {
            match parsed {
                Val::Text(t) if t.starts_with('$') => self.resolve(&t, line)?,
                v => v,
            }
        };
        self.vars.insert(name, val);
        Ok(())
    }

    /// A word's value: a `$var` reference or the word itself.
    fn resolve(&self, w: &str, line: u64) -> Result<Val> {
        match w.strip_prefix('$') {
            Some(name) => self
                .vars
                .get(name)
                .cloned()
                .ok_or_else(|| self.err(line, format!("undefined variable `${name}`"))),
            None => Ok(Val::Text(w.to_string())),
        }
    }

    /// A comma-separated `key[=value]` list.
    fn attrs(&mut self, line: u64) -> Result<Vec<Attr>> {
        let mut out = Vec::new();
        loop {
            let (key, kl) = self.word(line, "an attribute (`key=value`)")?;
            let val = if self.peek().map(|t| &t.tok) == Some(&Tok::Punct('=')) {
                self.i += 1;
                match self.next() {
                    Some(Token {
                        tok: Tok::Word(v) | Tok::Str(v),
                        line: vl,
                    }) => Some(self.resolve(&v, vl)?),
                    _ => return Err(self.err(kl, format!("`{key}=` needs a value"))),
                }
            } else {
                None
            };
            if out.iter().any(|a: &Attr| a.key == key) {
                return Err(self.err(kl, format!("attribute `{key}` given twice")));
            }
            out.push(Attr { key, val, line: kl });
            if self.peek().map(|t| &t.tok) == Some(&Tok::Punct(',')) {
                self.i += 1;
            } else {
                return Ok(out);
            }
        }
    }

    fn text<'v>(&self, a: &'v Attr) -> Result<&'v str> {
        match &a.val {
            Some(Val::Text(t)) => Ok(t),
            Some(v @ Val::Gamma { .. }) => Err(self.err(
                a.line,
                format!("`{}`: expected a number, got {}", a.key, v.shown()),
            )),
            None => Err(self.err(
                a.line,
                format!("`{}` needs a value (`{}=...`)", a.key, a.key),
            )),
        }
    }

    fn count(&self, a: &Attr, what: &str) -> Result<u64> {
        let t = self.text(a)?;
        parse_count(t).map_err(|m| self.err(a.line, format!("`{what}`: {m}")))
    }

    /// A bare flag or `=1`/`=0`/`=true`/`=false`.
    fn flag(&self, a: &Attr) -> Result<bool> {
        match &a.val {
            None => Ok(true),
            Some(Val::Text(t)) => match t.as_str() {
                "1" | "true" => Ok(true),
                "0" | "false" => Ok(false),
                _ => Err(self.err(a.line, format!("`{}={t}`: expected a flag", a.key))),
            },
            Some(v) => Err(self.err(
                a.line,
                format!("`{}`: expected a flag, got {}", a.key, v.shown()),
            )),
        }
    }

    fn bounded(&self, a: &Attr, lo: u64, hi: u64) -> Result<u64> {
        let v = self.count(a, &a.key)?;
        if v < lo || v > hi {
            return Err(self.err(
                a.line,
                format!("`{}`: expected {lo} to {hi}, got {v}", a.key),
            ));
        }
        Ok(v)
    }

    /// `define fileset` attributes.
    fn fileset(&mut self, line: u64) -> Result<FilesetDef> {
        let attrs = self.attrs(line)?;
        let (mut name, mut size, mut entries, mut prealloc) = (None, None, None, 0u32);
        for a in &attrs {
            match a.key.as_str() {
                "name" => name = Some(self.text(a)?.to_string()),
                "size" => {
                    size = Some(match &a.val {
                        Some(Val::Gamma { mean, shape }) => SizeSpec::Gamma {
                            mean: *mean,
                            shape: *shape,
                        },
                        _ => SizeSpec::Fixed(self.bounded(a, 0, MAX_FILE_BYTES)?),
                    })
                }
                "entries" => entries = Some(self.bounded(a, 1, MAX_ENTRIES)? as u32),
                "prealloc" => {
                    prealloc = match a.val {
                        None => 100,
                        Some(_) => self.bounded(a, 0, 100)? as u32,
                    }
                }
                "path" | "dirwidth" | "dirgamma" | "reuse" | "readonly" | "cached"
                | "trusttree" | "paralloc" => {}
                k => return Err(self.err(a.line, format!("`define fileset` does not take `{k}`"))),
            }
        }
        let Some(name) = name else {
            return Err(self.err(line, "`define fileset` needs `name=...`"));
        };
        let Some(size) = size else {
            return Err(self.err(line, format!("fileset `{name}` needs `size=...`")));
        };
        Ok(FilesetDef {
            name,
            size,
            entries: entries.unwrap_or(1),
            prealloc_pct: prealloc,
        })
    }

    /// `define process ... { thread ... }`.
    fn process(&mut self, line: u64) -> Result<ProcessDef> {
        let attrs = self.attrs(line)?;
        let (mut name, mut instances) = (None, 1u32);
        for a in &attrs {
            match a.key.as_str() {
                "name" => name = Some(self.text(a)?.to_string()),
                "instances" => instances = self.bounded(a, 1, MAX_THREADS)? as u32,
                "nice" => {}
                k => return Err(self.err(a.line, format!("`define process` does not take `{k}`"))),
            }
        }
        let Some(name) = name else {
            return Err(self.err(line, "`define process` needs `name=...`"));
        };
        self.expect('{', line)?;
        let mut threads = Vec::new();
        loop {
            match self.next() {
                Some(Token {
                    tok: Tok::Punct('}'),
                    ..
                }) => break,
                Some(Token {
                    tok: Tok::Word(w),
                    line: tl,
                }) if w == "thread" => threads.push(self.thread(tl)?),
                Some(t) => {
                    return Err(self.err(
                        t.line,
                        format!(
                            "expected `thread` or `}}` in process `{name}`, got {}",
                            shown(&t.tok)
                        ),
                    ))
                }
                None => {
                    return Err(self.err(line, format!("process `{name}` lacks its closing `}}`")))
                }
            }
        }
        if threads.is_empty() {
            return Err(self.err(line, format!("process `{name}` has no thread")));
        }
        Ok(ProcessDef {
            name,
            instances,
            threads,
        })
    }

    fn thread(&mut self, line: u64) -> Result<ThreadDef> {
        let attrs = self.attrs(line)?;
        let (mut name, mut instances) = (None, 1u32);
        for a in &attrs {
            match a.key.as_str() {
                "name" => name = Some(self.text(a)?.to_string()),
                "instances" => instances = self.bounded(a, 1, MAX_THREADS)? as u32,
                "memsize" | "useism" => {}
                k => return Err(self.err(a.line, format!("`thread` does not take `{k}`"))),
            }
        }
        let Some(name) = name else {
            return Err(self.err(line, "`thread` needs `name=...`"));
        };
        self.expect('{', line)?;
        let mut flowops = Vec::new();
        loop {
            match self.next() {
                Some(Token {
                    tok: Tok::Punct('}'),
                    ..
                }) => break,
                Some(Token {
                    tok: Tok::Word(w),
                    line: fl,
                }) if w == "flowop" => flowops.push(self.flowop(fl)?),
                Some(t) => {
                    return Err(self.err(
                        t.line,
                        format!(
                            "expected `flowop` or `}}` in thread `{name}`, got {}",
                            shown(&t.tok)
                        ),
                    ))
                }
                None => {
                    return Err(self.err(line, format!("thread `{name}` lacks its closing `}}`")))
                }
            }
        }
        if flowops.is_empty() {
            return Err(self.err(line, format!("thread `{name}` has no flowop")));
        }
        // A descriptor used without a fileset to open it from must be opened by the loop.
        for f in &flowops {
            let needs_open = matches!(
                f.kind,
                Kind::AppendFile
                    | Kind::AppendFileRand
                    | Kind::WriteWholeFile
                    | Kind::ReadWholeFile
                    | Kind::Read
                    | Kind::Write
                    | Kind::AioWrite
            ) && f.fileset.is_none();
            if let (true, Some(fd)) = (needs_open, f.fd) {
                let opened = flowops.iter().any(|o| {
                    matches!(o.kind, Kind::CreateFile | Kind::OpenFile) && o.fd == Some(fd)
                });
                if !opened {
                    return Err(self.err(
                        f.line,
                        format!("flowop `{}` uses fd={fd}, which no createfile or openfile of thread `{name}` opens (give `filesetname`)", f.name),
                    ));
                }
            }
        }
        Ok(ThreadDef {
            name,
            instances,
            flowops,
        })
    }

    fn flowop(&mut self, line: u64) -> Result<Flowop> {
        let (kw, kl) = self.word(line, "a flowop type after `flowop`")?;
        let Some(&(_, kind, allowed)) = FLOWOPS.iter().find(|(n, _, _)| *n == kw) else {
            return Err(self.err(
                kl,
                format!(
                    "unsupported flowop `{kw}` (supported: {})",
                    FLOWOPS.iter().map(|f| f.0).collect::<Vec<_>>().join(", ")
                ),
            ));
        };
        // A flowop may have no attributes at all (`flowop aiowait` is rare but legal).
        let attrs = match self.peek() {
            Some(Token {
                tok: Tok::Word(w),
                line: l,
            }) if *l == kl && w != "flowop" => self.attrs(kl)?,
            _ => Vec::new(),
        };
        let mut f = Flowop {
            kind,
            name: kw.clone(),
            fileset: None,
            fd: None,
            srcfd: None,
            iosize: 0,
            random: false,
            workingset: 0,
            opennext: false,
            iters: 1,
            value: 0,
            highwater: 1,
            target: None,
            blocking: false,
            dsync: false,
            directio: false,
            line: kl,
        };
        let mut has_value = false;
        for a in &attrs {
            let k = a.key.as_str();
            if !allowed.contains(&k) && !FLOWOP_COMMON.contains(&k) {
                return Err(self.err(a.line, format!("flowop `{kw}` does not take `{k}`")));
            }
            match k {
                "name" => f.name = self.text(a)?.to_string(),
                "iters" => f.iters = self.bounded(a, 1, u64::from(u32::MAX))? as u32,
                "filesetname" => {
                    let n = self.text(a)?;
                    f.fileset = Some(self.filesets.iter().position(|s| s.name == n).ok_or_else(
                        || {
                            self.err(
                                a.line,
                                format!("flowop `{kw}`: fileset `{n}` is not defined"),
                            )
                        },
                    )?);
                }
                "fd" => f.fd = Some(self.bounded(a, 1, 1024)? as u32),
                "srcfd" => f.srcfd = Some(self.bounded(a, 1, 1024)? as u32),
                "iosize" => f.iosize = self.bounded(a, 1, 1 << 30)?,
                "random" => f.random = self.flag(a)?,
                "opennext" => f.opennext = self.flag(a)?,
                "workingset" => f.workingset = self.count(a, "workingset")?,
                "value" => {
                    // Semaphore counts are SysV `sem_op` values (a C short) in Filebench.
                    let hi = if kind == Kind::Hog {
                        u64::from(u32::MAX)
                    } else {
                        MAX_SEM
                    };
                    f.value = self.bounded(a, 0, hi)?;
                    has_value = true;
                }
                "highwater" => f.highwater = self.bounded(a, 0, MAX_SEM)?,
                "target" => f.target = Some(self.text(a)?.to_string()),
                "blocking" => f.blocking = self.flag(a)?,
                "dsync" => f.dsync = self.flag(a)?,
                "directio" => f.directio = self.flag(a)?,
                _ => {}
            }
        }
        let io = matches!(
            kind,
            Kind::AppendFile
                | Kind::AppendFileRand
                | Kind::WriteWholeFile
                | Kind::ReadWholeFile
                | Kind::Read
                | Kind::Write
                | Kind::AioWrite
        );
        if io && f.iosize == 0 {
            return Err(self.err(kl, format!("flowop `{kw}` needs `iosize=...`")));
        }
        if io && f.fd.is_none() && f.fileset.is_none() {
            return Err(self.err(
                kl,
                format!("flowop `{kw}` needs `fd=...` or `filesetname=...`"),
            ));
        }
        let needs_set = matches!(
            kind,
            Kind::CreateFile | Kind::DeleteFile | Kind::OpenFile | Kind::StatFile
        );
        if needs_set && f.fileset.is_none() {
            return Err(self.err(kl, format!("flowop `{kw}` needs `filesetname=...`")));
        }
        if matches!(kind, Kind::CreateFile | Kind::OpenFile | Kind::CloseFile) && f.fd.is_none() {
            return Err(self.err(kl, format!("flowop `{kw}` needs `fd=...`")));
        }
        if matches!(kind, Kind::Hog | Kind::SemBlock | Kind::SemPost) && !has_value {
            return Err(self.err(kl, format!("flowop `{kw}` needs `value=...`")));
        }
        if kind == Kind::SemPost && f.target.is_none() {
            return Err(self.err(
                kl,
                format!("flowop `{kw}` needs `target=...` (a semblock flowop's name)"),
            ));
        }
        Ok(f)
    }
}

/// Where a script came from, for error messages.
pub(super) fn builtin_path(name: &str) -> PathBuf {
    PathBuf::from(format!("configs/filebench/{name}.f"))
}
