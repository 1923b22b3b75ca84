//! fio job files (the INI format fio itself reads) and inline jobs, turned into closed-loop
//! streams: one per job clone (`numjobs`), `iodepth` requests in flight, grouped by
//! `stonewall`.
//!
//! Job file syntax, as fio reads it: `[name]` sections (`[global]` sets defaults for every job
//! after it; several `[global]` sections accumulate, later values override), `key=value` lines
//! (blanks around `=` allowed) or bare `key` flags, whole-line comments starting with `;` or
//! `#`, trailing ` ;`/` #` comments, blank lines. `include` directives are not supported.
//!
//! Inline jobs (`workload.jobs` in the config) come after the file's jobs. Option order for a
//! job: the file's `[global]` options seen so far, then `workload.global`, then the job's own
//! options; a later value overrides an earlier one, as in fio.
//!
//! Supported options (fio meaning, fio units): `name`, `rw`/`readwrite` (`read`, `write`,
//! `randread`, `randwrite`, `rw`/`readwrite`, `randrw`), `rwmixread`/`rwmixwrite` (percent),
//! `bs`/`blocksize` (bytes, `read,write`), `bsrange`/`blocksize_range` (`min-max`),
//! `bssplit` (`bs/percent:...`), `size` and `offset` (bytes or percent of the device),
//! `io_size`/`io_limit` (bytes), `number_ios`, `iodepth`, `numjobs`, `runtime`/`timeout`
//! (seconds unless suffixed `us`/`ms`/`s`/`m`/`h`/`d`), `time_based`, `random_distribution`
//! (`random`, `zipf:θ`, `pareto:h`, `normal[:dev]`), `percentage_random` (`read[,write]`),
//! `norandommap`, `randseed`, `randrepeat`,
//! `buffer_compress_percentage`, `dedupe_percentage`, `dedupe_mode` (`repeat`,
//! `working_set`), `dedupe_working_set_percentage`, `stonewall`/`wait_for_previous`,
//! `kb_base` (1024 only), plus the ignored options in [`IGNORED_OPTIONS`]. Any other option is
//! an error. Byte sizes take fio's suffixes `k`, `m`, `g`, `t`, `p` (optionally with `i`/`b`),
//! all powers of 1024 (fio's default `kb_base=1024`).

mod gen;

use crate::config::{FioWorkload, OptionValue};
use crate::error::{Error, Result};
use crate::workload::{ContentHints, Drive, Stream};
use gen::{BsSpec, Dist, FioSource, SourceSpec};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[cfg(test)]
mod tests;

/// Options accepted and ignored: they choose how a real machine performs I/O (engine, files
/// and directories, threads vs processes, reporting, cache hints, a final fsync) and have no
/// counterpart in the simulator. (`direct`, `buffered`, `sync`, `fsync` and `fdatasync` are
/// honoured: they set O_DIRECT / O_DSYNC and issue flushes for the `[stack]` page cache.) `randrepeat`/`allrandrepeat` are accepted because flashpress is always repeatable.
pub const IGNORED_OPTIONS: &[&str] = &[
    "ioengine",
    "filename",
    "directory",
    "description",
    "thread",
    "group_reporting",
    "invalidate",
    "new_group",
    "randrepeat",
    "allrandrepeat",
    "fadvise_hint",
    "end_fsync",
];

/// Options with a meaning in flashpress, under the name each canonicalises to.
const SUPPORTED: &[(&str, &str)] = &[
    ("name", "name"),
    ("rw", "rw"),
    ("readwrite", "rw"),
    ("rwmixread", "rwmix"),
    ("rwmixwrite", "rwmix"),
    ("bs", "bs"),
    ("blocksize", "bs"),
    ("bsrange", "bs"),
    ("blocksize_range", "bs"),
    ("bssplit", "bssplit"),
    ("size", "size"),
    ("offset", "offset"),
    ("io_size", "io_size"),
    ("io_limit", "io_size"),
    ("number_ios", "number_ios"),
    ("iodepth", "iodepth"),
    ("numjobs", "numjobs"),
    ("runtime", "runtime"),
    ("timeout", "runtime"),
    ("time_based", "time_based"),
    ("random_distribution", "random_distribution"),
    ("norandommap", "norandommap"),
    ("percentage_random", "percentage_random"),
    ("randseed", "randseed"),
    ("buffer_compress_percentage", "buffer_compress_percentage"),
    ("dedupe_percentage", "dedupe_percentage"),
    ("dedupe_mode", "dedupe_mode"),
    (
        "dedupe_working_set_percentage",
        "dedupe_working_set_percentage",
    ),
    ("stonewall", "stonewall"),
    ("wait_for_previous", "stonewall"),
    ("kb_base", "kb_base"),
    ("fsync", "fsync"),
    ("fdatasync", "fsync"),
    ("sync", "sync"),
    ("direct", "direct"),
    ("buffered", "direct"),
];

/// fio's own limit on jobs (`REAL_MAX_JOBS`).
const MAX_JOBS: u64 = 4096;

/// Build one closed-loop stream per job clone (`numjobs`), depth `iodepth`, grouped by
/// `stonewall`. `capacity_bytes` is the device's logical capacity in bytes; `seed` the run
/// seed (each clone derives its own random streams from it unless `randseed` is given).
pub fn load_streams(cfg: &FioWorkload, capacity_bytes: u64, seed: u64) -> Result<Vec<Stream>> {
    let mut file_globals: Vec<Opt> = Vec::new();
    let mut jobs: Vec<RawJob> = Vec::new();
    if let Some(path) = &cfg.path {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let parsed = parse_job_file(path, &bytes)?;
        file_globals = parsed.0;
        jobs = parsed.1;
    }
    let inline_global = inline_opts(&cfg.global, "workload.global")?;
    for (i, map) in cfg.jobs.iter().enumerate() {
        let prefix = format!("workload.jobs[{i}]");
        let own = inline_opts(map, &prefix)?;
        jobs.push(RawJob {
            name: format!("job{i}"),
            at: Origin::Inline { key: prefix },
            globals: file_globals.clone(),
            own,
        });
    }
    if capacity_bytes == 0 {
        return Err(Error::Workload(
            "cannot run fio jobs on a device with 0 logical bytes".into(),
        ));
    }

    let mut streams = Vec::new();
    let mut group: u32 = 0;
    for (job_index, job) in jobs.iter().enumerate() {
        let opts: Vec<&Opt> = job
            .globals
            .iter()
            .chain(inline_global.iter())
            .chain(job.own.iter())
            .collect();
        let spec = resolve(&opts, &job.name, &job.at, capacity_bytes)?;
        if job_index > 0 && spec.stonewall {
            group += 1;
        }
        let mut zipf_cache = None;
        for clone in 0..spec.numjobs {
            let stream_index = streams.len() as u64;
            let job_seed = match spec.randseed {
                Some(s) => splitmix64(s ^ splitmix64(u64::from(clone))),
                None => splitmix64(
                    seed ^ splitmix64((job_index as u64) ^ splitmix64(u64::from(clone) << 32)),
                ),
            };
            let source = FioSource::new(&spec.source, job_seed, stream_index, &mut zipf_cache);
            let name = if clone == 0 {
                spec.name.clone()
            } else {
                format!("{}.clone{clone}", spec.name)
            };
            streams.push(Stream {
                name,
                source: Box::new(source),
                drive: Drive::Closed {
                    depth: spec.iodepth,
                },
                group,
                content: ContentHints {
                    compress_percentage: spec.compress,
                    dedupe_percentage: spec.source.dedupe_pct,
                    ratio: None,
                },
                layout_bytes: spec.source.region_start + spec.source.region_len,
            });
        }
    }
    if streams.is_empty() {
        return Err(Error::Workload("the fio workload defines no jobs".into()));
    }
    Ok(streams)
}

/// splitmix64 finaliser: spreads related seeds (job and clone indices) over the seed space.
pub(crate) fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Where an option came from, for error messages.
#[derive(Debug, Clone)]
enum Origin {
    File { path: PathBuf, line: u64 },
    Inline { key: String },
}

impl Origin {
    fn err(&self, msg: impl Into<String>) -> Error {
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

/// One `key[=value]` as written.
#[derive(Debug, Clone)]
struct Opt {
    key: String,
    value: Option<String>,
    at: Origin,
}

impl Opt {
    /// `key=value` as the user wrote it, for messages.
    fn shown(&self) -> String {
        match &self.value {
            Some(v) => format!("{}={v}", self.key),
            None => self.key.clone(),
        }
    }
    fn err(&self, msg: impl std::fmt::Display) -> Error {
        self.at.err(format!("`{}`: {msg}", self.shown()))
    }
    fn value(&self) -> Result<&str> {
        match self.value.as_deref() {
            Some(v) if !v.is_empty() => Ok(v),
            _ => Err(self.at.err(format!(
                "option `{}` needs a value (`{}=...`)",
                self.key, self.key
            ))),
        }
    }
    /// A fio boolean: bare flag or `=1`/`=0` (also `true`/`false`).
    fn flag(&self) -> Result<bool> {
        match self.value.as_deref().map(str::trim) {
            None | Some("") | Some("1") | Some("true") => Ok(true),
            Some("0") | Some("false") => Ok(false),
            Some(_) => Err(self.err("expected a flag: bare, `=1` or `=0`")),
        }
    }
}

/// A job before resolution.
struct RawJob {
    name: String,
    at: Origin,
    globals: Vec<Opt>,
    own: Vec<Opt>,
}

fn check_key(key: &str) -> std::result::Result<(), String> {
    if SUPPORTED.iter().any(|(k, _)| *k == key) || IGNORED_OPTIONS.contains(&key) {
        Ok(())
    } else if key == "include" {
        Err("`include` directives are not supported; put the included options in this file".into())
    } else {
        Err(format!("unsupported fio option `{key}`"))
    }
}

fn canonical(key: &str) -> Option<&'static str> {
    SUPPORTED.iter().find(|(k, _)| *k == key).map(|(_, c)| *c)
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

/// Parse a job file into its accumulated `[global]` options and its jobs.
fn parse_job_file(path: &Path, bytes: &[u8]) -> Result<(Vec<Opt>, Vec<RawJob>)> {
    enum Cur {
        None,
        Global,
        Job,
    }
    let mut globals: Vec<Opt> = Vec::new();
    let mut jobs: Vec<RawJob> = Vec::new();
    let mut cur = Cur::None;
    for (i, raw) in bytes.split(|&c| c == b'\n').enumerate() {
        let line_no = i as u64 + 1;
        let at = Origin::File {
            path: path.to_path_buf(),
            line: line_no,
        };
        let Ok(text) = std::str::from_utf8(raw) else {
            return Err(at.err("line is not valid UTF-8"));
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
                cur = Cur::Global;
            } else {
                cur = Cur::Job;
                jobs.push(RawJob {
                    name: name.to_string(),
                    at,
                    globals: globals.clone(),
                    own: Vec::new(),
                });
            }
            continue;
        }
        let (key, value) = match t.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v.trim().to_string())),
            None => (t, None),
        };
        if key.is_empty() {
            return Err(at.err(format!("expected `key=value` or a `[section]`, got `{t}`")));
        }
        if key == "include" || key.starts_with("include ") {
            return Err(at.err(
                "`include` directives are not supported; put the included options in this file",
            ));
        }
        if key.contains(char::is_whitespace) {
            return Err(at.err(format!("expected `key=value` or a `[section]`, got `{t}`")));
        }
        check_key(key).map_err(|m| at.err(m))?;
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
            Cur::Global => globals.push(opt),
            Cur::Job => {
                if let Some(j) = jobs.last_mut() {
                    j.own.push(opt);
                }
            }
        }
    }
    Ok((globals, jobs))
}

/// Inline options (`false` booleans are absent, as a missing flag line).
fn inline_opts(map: &BTreeMap<String, OptionValue>, prefix: &str) -> Result<Vec<Opt>> {
    let mut out = Vec::new();
    for (k, v) in map {
        let at = Origin::Inline {
            key: format!("{prefix}.{k}"),
        };
        check_key(k).map_err(|m| at.err(m))?;
        if let Some(text) = v.as_fio_text() {
            let value = if text.is_empty() { None } else { Some(text) };
            out.push(Opt {
                key: k.clone(),
                value,
                at,
            });
        }
    }
    Ok(out)
}

/// A job with every option resolved.
struct JobSpec {
    name: String,
    iodepth: u32,
    numjobs: u32,
    randseed: Option<u64>,
    compress: Option<u32>,
    stonewall: bool,
    source: SourceSpec,
}

/// A byte count with fio's suffixes (powers of 1024): `4k`, `10G`, `1280m`, `4KiB`, `8kb`.
pub(crate) fn parse_size(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return Err(format!(
            "expected a byte count such as `4k` or `10g`, got `{t}`"
        ));
    }
    let (num, suffix) = t.split_at(digits);
    let n: u64 = num.parse().map_err(|_| format!("`{t}` is too large"))?;
    let mult: u64 = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        "p" | "pb" | "pib" => 1 << 50,
        _ => {
            return Err(format!(
                "unknown size suffix in `{t}` (expected k, m, g, t or p)"
            ))
        }
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("`{t}` is too large"))
}

/// A fio time value in ns: seconds by default, or suffixed `us`, `ms`, `s`, `m`, `h`, `d`.
pub(crate) fn parse_time_ns(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return Err(format!(
            "expected a time such as `60`, `500ms` or `2m`, got `{t}`"
        ));
    }
    let (num, suffix) = t.split_at(digits);
    let n: u64 = num.parse().map_err(|_| format!("`{t}` is too large"))?;
    let mult: u64 = match suffix.to_ascii_lowercase().as_str() {
        "us" | "usec" => 1_000,
        "ms" | "msec" => 1_000_000,
        "" | "s" | "sec" => 1_000_000_000,
        "m" | "min" => 60_000_000_000,
        "h" | "hour" => 3_600_000_000_000,
        "d" | "day" => 86_400_000_000_000,
        _ => {
            return Err(format!(
                "unknown time suffix in `{t}` (expected us, ms, s, m, h or d)"
            ))
        }
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("`{t}` is too large"))
}

fn parse_uint(opt: &Opt) -> Result<u64> {
    let v = opt.value()?;
    v.trim()
        .parse::<u64>()
        .map_err(|_| opt.err("expected a non-negative integer"))
}

fn parse_percent(opt: &Opt) -> Result<u32> {
    let v = parse_uint(opt)?;
    if v > 100 {
        return Err(opt.err("expected a percentage in 0..=100"));
    }
    Ok(v as u32)
}

/// A block size: positive multiple of 512 bytes.
fn parse_bs(opt: &Opt, text: &str) -> Result<u64> {
    let v = parse_size(text).map_err(|m| opt.err(m))?;
    if v == 0 || v % 512 != 0 {
        return Err(opt.err(format!(
            "block size `{}` must be a positive multiple of 512 bytes",
            text.trim()
        )));
    }
    Ok(v)
}

/// Per-direction parts of `a,b[,c]`: an empty part keeps the default; the third (trim)
/// part is accepted and unused since fio jobs here never trim.
fn ddir_parts<'a>(opt: &Opt, v: &'a str) -> Result<[Option<&'a str>; 2]> {
    let parts: Vec<&str> = v.split(',').collect();
    if parts.len() > 3 {
        return Err(opt.err("expected at most `read,write,trim` values"));
    }
    let get = |i: usize| parts.get(i).map(|s| s.trim()).filter(|s| !s.is_empty());
    match parts.len() {
        1 => Ok([get(0), get(0)]),
        _ => Ok([get(0), get(1)]),
    }
}

fn parse_bs_option(opt: &Opt, bs: &mut [BsSpec; 2]) -> Result<()> {
    let v = opt.value()?;
    let parts = ddir_parts(opt, v)?;
    let is_range = opt.key == "bsrange" || opt.key == "blocksize_range";
    for (d, part) in parts.iter().enumerate() {
        let Some(part) = part else { continue };
        bs[d] = if is_range {
            let Some((a, b)) = part.split_once(['-', ':']) else {
                return Err(opt.err(format!("expected a range `min-max`, got `{part}`")));
            };
            let (lo, hi) = (parse_bs(opt, a)?, parse_bs(opt, b)?);
            if lo > hi {
                return Err(opt.err(format!("range minimum {lo} exceeds its maximum {hi}")));
            }
            BsSpec::Range(lo, hi)
        } else {
            BsSpec::Fixed(parse_bs(opt, part)?)
        };
    }
    Ok(())
}

/// `bssplit=4k/10:64k/50:32k/40[,read-or-write split]`. Entries without a percentage share
/// what the others leave, as fio does (the last of them takes the integer remainder).
fn parse_bssplit(opt: &Opt) -> Result<[Option<BsSpec>; 2]> {
    let v = opt.value()?;
    let parts = ddir_parts(opt, v)?;
    let mut out = [None, None];
    for (d, part) in parts.iter().enumerate() {
        let Some(part) = part else { continue };
        let mut entries: Vec<(u64, Option<u32>)> = Vec::new();
        for e in part.split(':') {
            let e = e.trim();
            let (bs, pct) = match e.split_once('/') {
                Some((b, p)) if !p.trim().is_empty() => {
                    let p: u32 = p
                        .trim()
                        .parse()
                        .map_err(|_| opt.err(format!("bad percentage in `{e}`")))?;
                    if p > 100 {
                        return Err(opt.err(format!("percentage above 100 in `{e}`")));
                    }
                    (b, Some(p))
                }
                Some((b, _)) => (b, None),
                None => (e, None),
            };
            entries.push((parse_bs(opt, bs)?, pct));
        }
        let given: u32 = entries.iter().filter_map(|e| e.1).sum();
        let missing = entries.iter().filter(|e| e.1.is_none()).count() as u32;
        if given > 100 || (missing == 0 && given != 100) {
            return Err(opt.err(format!(
                "bssplit percentages add up to {given}, expected 100"
            )));
        }
        let rest = 100 - given;
        let mut seen = 0;
        let split: Vec<(u64, u32)> = entries
            .iter()
            .map(|&(bs, p)| match p {
                Some(p) => (bs, p),
                None => {
                    seen += 1;
                    let share = rest / missing;
                    (
                        bs,
                        if seen == missing {
                            rest - share * (missing - 1)
                        } else {
                            share
                        },
                    )
                }
            })
            .collect();
        out[d] = Some(BsSpec::Split(split));
    }
    Ok(out)
}

fn parse_distribution(opt: &Opt) -> Result<Dist> {
    let v = opt.value()?.trim();
    let (kind, arg) = match v.split_once(':') {
        Some((k, a)) => (k, Some(a)),
        None => (v, None),
    };
    let num = |default: f64| -> Result<f64> {
        match arg {
            None => Ok(default),
            Some(a) => a
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| opt.err(format!("expected a number after `{kind}:`"))),
        }
    };
    match kind {
        "random" if arg.is_none() => Ok(Dist::Random),
        "zipf" => {
            // fio's default θ is 1.1 (FIO_DEF_ZIPF); θ = 1 makes its formula divide by zero.
            let theta = num(1.1)?;
            if theta <= 0.0 || theta == 1.0 {
                return Err(opt.err("zipf θ must be positive and different from 1.0"));
            }
            Ok(Dist::Zipf(theta))
        }
        "pareto" => {
            let h = num(0.2)?;
            if !(h > 0.0 && h < 1.0) {
                return Err(opt.err("pareto h must be in (0, 1)"));
            }
            Ok(Dist::Pareto(h))
        }
        "normal" | "gauss" => {
            let dev = num(0.0)?;
            if !(0.0..=100.0).contains(&dev) {
                return Err(opt.err("normal deviation must be a percentage in 0..=100"));
            }
            Ok(Dist::Normal(dev))
        }
        _ => Err(opt.err("expected `random`, `zipf:θ`, `pareto:h` or `normal[:dev]` (zoned distributions are not supported)")),
    }
}

/// Resolve a job's options (in order; later overrides earlier) against the device.
fn resolve(opts: &[&Opt], section_name: &str, at: &Origin, capacity: u64) -> Result<JobSpec> {
    // Last occurrence of each canonical option.
    let mut last: BTreeMap<&'static str, &Opt> = BTreeMap::new();
    // Block sizes are built in order: bs/bsrange set both limits, so the later one wins.
    let mut bs = [BsSpec::Fixed(4096), BsSpec::Fixed(4096)];
    for &o in opts {
        let Some(c) = canonical(&o.key) else {
            if IGNORED_OPTIONS.contains(&o.key.as_str()) {
                continue;
            }
            return Err(o.at.err(format!("unsupported fio option `{}`", o.key)));
        };
        if c == "bs" {
            parse_bs_option(o, &mut bs)?;
        }
        last.insert(c, o);
    }
    let get = |k: &str| last.get(k).copied();

    let name = match get("name") {
        Some(o) => o.value()?.to_string(),
        None => section_name.to_string(),
    };
    let (mut reads, mut writes, mut random) = (true, false, false);
    if let Some(o) = get("rw") {
        let v = o.value()?.trim();
        if v.contains(':') {
            return Err(o.err("`:N` offset modifiers are not supported"));
        }
        (reads, writes, random) = match v {
            "read" => (true, false, false),
            "write" => (false, true, false),
            "randread" => (true, false, true),
            "randwrite" => (false, true, true),
            "rw" | "readwrite" => (true, true, false),
            "randrw" => (true, true, true),
            "trim" | "randtrim" | "trimwrite" | "randtrimwrite" => return Err(o.err(
                "trim workloads are not supported in fio jobs (replay a trace with trims instead)",
            )),
            _ => {
                return Err(
                    o.err("expected read, write, randread, randwrite, rw, readwrite or randrw")
                )
            }
        };
    }
    let mut read_pct = 50;
    if let Some(o) = get("rwmix") {
        let p = parse_percent(o)?;
        read_pct = if o.key == "rwmixread" { p } else { 100 - p };
    }
    if !writes {
        read_pct = 100;
    } else if !reads {
        read_pct = 0;
    }
    if let Some(o) = get("bssplit") {
        let split = parse_bssplit(o)?;
        for (d, s) in split.into_iter().enumerate() {
            if let Some(s) = s {
                bs[d] = s;
            }
        }
    }
    let used: Vec<usize> = [(0usize, reads), (1, writes)]
        .iter()
        .filter(|x| x.1)
        .map(|x| x.0)
        .collect();
    let min_bs = used.iter().map(|&d| bs[d].min()).min().unwrap_or(4096);
    let max_bs = used.iter().map(|&d| bs[d].max()).max().unwrap_or(4096);

    let offset = match get("offset") {
        None => 0,
        Some(o) => {
            let v = o.value()?.trim();
            let off = if let Some(p) = v.strip_suffix('%') {
                let p: f64 = p
                    .trim()
                    .parse()
                    .ok()
                    .filter(|p: &f64| (0.0..=100.0).contains(p))
                    .ok_or_else(|| o.err("expected a percentage in 0..=100"))?;
                // fio aligns a percentage offset to the minimum block size.
                ((capacity as f64 * p / 100.0) as u64) / min_bs * min_bs
            } else {
                parse_size(v).map_err(|m| o.err(m))?
            };
            if off % 512 != 0 {
                return Err(o.err("offset must be a multiple of 512 bytes"));
            }
            if off >= capacity {
                return Err(o.err(format!(
                    "offset {off} is at or past the device's logical capacity of {capacity} bytes"
                )));
            }
            off
        }
    };
    let size = match get("size") {
        None => capacity - offset,
        Some(o) => {
            let v = o.value()?.trim();
            let size = if let Some(p) = v.strip_suffix('%') {
                let p: f64 = p
                    .trim()
                    .parse()
                    .ok()
                    .filter(|p: &f64| *p > 0.0 && *p <= 100.0)
                    .ok_or_else(|| o.err("expected a percentage in (0, 100]"))?;
                (capacity as f64 * p / 100.0) as u64
            } else {
                parse_size(v).map_err(|m| o.err(m))?
            };
            if size == 0 {
                return Err(o.err("size must be positive"));
            }
            match offset.checked_add(size) {
                Some(end) if end <= capacity => {}
                _ => {
                    return Err(o.at.err(format!(
                    "`{}` ends at byte {}, past the device's logical capacity of {capacity} bytes",
                    o.shown(),
                    u128::from(offset) + u128::from(size)
                )))
                }
            }
            size
        }
    };
    // Whole minimum blocks only, as fio's random block count.
    let size = size / min_bs * min_bs;
    if size < max_bs {
        let o = get("size").map(|o| &o.at).unwrap_or(at);
        return Err(o.err(format!(
            "the region of {size} bytes is smaller than the largest block size {max_bs}"
        )));
    }
    let io_size = match get("io_size") {
        None => size,
        Some(o) => {
            let v = parse_size(o.value()?).map_err(|m| o.err(m))?;
            if v == 0 {
                return Err(o.err("io_size must be positive"));
            }
            v
        }
    };
    let number_ios = match get("number_ios") {
        None => None,
        Some(o) => Some(parse_uint(o)?).filter(|&n| n > 0),
    };
    let iodepth = match get("iodepth") {
        None => 1,
        Some(o) => {
            let v = parse_uint(o)?;
            if v == 0 || v > u64::from(u32::MAX) {
                return Err(o.err("iodepth must be a positive integer"));
            }
            v as u32
        }
    };
    let numjobs = match get("numjobs") {
        None => 1,
        Some(o) => {
            let v = parse_uint(o)?;
            if v == 0 || v > MAX_JOBS {
                return Err(o.err(format!("numjobs must be in 1..={MAX_JOBS}")));
            }
            v as u32
        }
    };
    let runtime_ns = match get("runtime") {
        None => None,
        Some(o) => Some(parse_time_ns(o.value()?).map_err(|m| o.err(m))?).filter(|&t| t > 0),
    };
    let time_based = match get("time_based") {
        None => false,
        Some(o) => {
            let tb = o.flag()?;
            if tb && runtime_ns.is_none() {
                return Err(o.err("time_based needs a positive `runtime`"));
            }
            tb
        }
    };
    let dist = match get("random_distribution") {
        None => Dist::Random,
        Some(o) => parse_distribution(o)?,
    };
    // fio's `percentage_random=read[,write]`: that share of a random job's requests is random,
    // the rest continue sequentially from the end of the direction's previous request.
    let pct_random = match get("percentage_random") {
        None => [100, 100],
        Some(o) => {
            let v = o.value()?;
            let parts: Vec<&str> = v.split(',').map(str::trim).collect();
            let pct = |t: &str| -> Result<u32> {
                t.parse::<u32>()
                    .ok()
                    .filter(|p| *p <= 100)
                    .ok_or_else(|| o.err(format!("expected a percentage in 0..=100, got `{t}`")))
            };
            match parts.as_slice() {
                [a] => [pct(a)?, pct(a)?],
                [a, b] => [pct(a)?, pct(b)?],
                [a, b, _trim] => [pct(a)?, pct(b)?],
                _ => return Err(o.err("expected `read[,write[,trim]]` percentages")),
            }
        }
    };
    if pct_random != [100, 100] && !random {
        if let Some(o) = get("percentage_random") {
            return Err(o.err(
                "percentage_random applies to random jobs (rw = randread, randwrite or randrw)",
            ));
        }
    }
    let randommap = match get("norandommap") {
        None => true,
        Some(o) => !o.flag()?,
    };
    let randseed = match get("randseed") {
        None => None,
        Some(o) => Some(parse_uint(o)?),
    };
    let compress = get("buffer_compress_percentage")
        .map(parse_percent)
        .transpose()?;
    let dedupe_pct = get("dedupe_percentage")
        .map(parse_percent)
        .transpose()?
        .unwrap_or(0);
    // fio's `dedupe_mode`: `repeat` (the default) repeats earlier writes; `working_set`
    // draws duplicates from a working set of `dedupe_working_set_percentage` (default 5) of
    // `size`, which fio requires to be set, and refuses a working set and dedupe share that
    // add up to more than 100% (the working set's blocks are unique).
    let working_set = match get("dedupe_mode") {
        None => false,
        Some(o) => match o.value()?.trim() {
            "repeat" => false,
            "working_set" => true,
            v => {
                return Err(o.err(format!(
                    "unknown dedupe_mode `{v}` (expected repeat or working_set)"
                )))
            }
        },
    };
    let ws_pct = get("dedupe_working_set_percentage")
        .map(parse_percent)
        .transpose()?;
    let dedupe_working_set = if working_set && dedupe_pct > 0 {
        let o = get("dedupe_mode").expect("dedupe_mode is set");
        if get("size").is_none() {
            return Err(o.err(
                "dedupe_mode=working_set needs `size` (fio pregenerates the working set from it)",
            ));
        }
        let pct = ws_pct.unwrap_or(5);
        if pct + dedupe_pct > 100 {
            let at = get("dedupe_working_set_percentage").unwrap_or(o);
            return Err(at.err(format!(
                "dedupe_working_set_percentage={pct} plus dedupe_percentage={dedupe_pct} exceeds 100 \
                 (the working set's blocks are unique)"
            )));
        }
        Some((size * pct as u64 / 100 / 4096).max(1))
    } else {
        None
    };
    // fio's `fsync=N` / `fdatasync=N`: a flush of the job's file after every N writes (both
    // are one flush here: the file system's metadata is not modelled per file).
    let sync_every = match get("fsync") {
        None => 0,
        Some(o) => parse_uint(o)?,
    };
    // `sync=1` opens the file O_SYNC (fio also takes `sync=sync` / `dsync`); `direct=1`
    // (or `buffered=0`) O_DIRECT: under `[stack]` they bypass or flush the page cache.
    let mut open_flags = 0u8;
    if let Some(o) = get("sync") {
        let v = o.value.as_deref().map(str::trim);
        if matches!(v, Some("sync") | Some("dsync")) || o.flag()? {
            open_flags |= crate::workload::FileAttrs::DSYNC;
        }
    }
    if let Some(o) = get("direct") {
        let direct = if o.key == "buffered" {
            !o.flag()?
        } else {
            o.flag()?
        };
        if direct {
            open_flags |= crate::workload::FileAttrs::DIRECT;
        }
    }
    let stonewall = match get("stonewall") {
        None => false,
        Some(o) => o.flag()?,
    };
    if let Some(o) = get("kb_base") {
        if o.value()?.trim() != "1024" {
            return Err(o.err("only kb_base=1024 (fio's default) is supported"));
        }
    }
    Ok(JobSpec {
        name,
        iodepth,
        numjobs,
        randseed,
        compress,
        stonewall,
        source: SourceSpec {
            read_pct,
            random,
            bs,
            min_bs,
            region_start: offset,
            region_len: size,
            io_limit: if time_based { None } else { Some(io_size) },
            number_ios,
            runtime_ns,
            dist,
            randommap,
            dedupe_pct,
            dedupe_working_set,
            pct_random,
            sync_every,
            open_flags,
        },
    })
}
