//! Giving a job's options their meaning: one [`JobSpec`] per job, from its options in order
//! (a later value overrides an earlier one, as in fio).

use super::gen::{
    BsSpec, Dist, LatTarget, LfsrSeed, Mix, Rate, SourceSpec, SsMetric, SteadyState, ZoneRange,
};
use super::options::{class_of, engine_class, why_ignored, Class};
use super::parse::{Opt, Origin};
use crate::error::Result;
use std::collections::BTreeMap;

/// fio's own limit on jobs (`REAL_MAX_JOBS`).
pub(super) const MAX_JOBS: u64 = 4096;

/// How a job's files are named and sized (laid out on the device by [`super::layout`]).
#[derive(Debug, Clone)]
pub(super) struct FileSpec {
    /// `filename` (`:`-separated names), when given.
    pub filename: Option<String>,
    /// `directory`, prefixed to generated and relative names.
    pub directory: Option<String>,
    /// `nrfiles`.
    pub nrfiles: u32,
    /// `filesize`: every file's size; else `size / nrfiles`.
    pub filesize: Option<u64>,
    /// `filename_format` (default `$jobname.$jobnum.$filenum`).
    pub format: Option<String>,
    /// `offset_increment`: clone `k` starts `k` times this further into the file.
    pub offset_increment: Offset,
    /// `offset_align`: the unit a percentage `offset` is aligned up to (0: the smallest
    /// block size).
    pub offset_align: u64,
    /// `offset` as written: bytes, or a percentage of the file.
    pub offset: Offset,
    /// `size` as written: bytes, a percentage of the file, or absent.
    pub size: Option<Offset>,
    /// `fill_device`/`fill_fs`: write until the device (or file system) is full.
    pub fill: bool,
    /// Whether the engine addresses a block device (`sg`, `libiscsi`, `nbd`, ...), so a
    /// `filename` names the device.
    pub block_engine: bool,
}

/// `exit_what`: which jobs a finishing `exitall` job ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ExitWhat {
    Group,
    Stonewall,
    All,
}

/// A byte count or a percentage, as `offset` and `size` take them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Offset {
    Bytes(u64),
    Percent(f64),
}

/// A job with every option resolved (file placement still to do).
pub(super) struct JobSpec {
    pub name: String,
    pub iodepth: u32,
    pub numjobs: u32,
    pub randseed: Option<u64>,
    pub compress: Option<u32>,
    pub stonewall: bool,
    pub wait_for: Option<(String, Origin)>,
    pub files: FileSpec,
    pub source: SourceSpec,
    /// `verify` (with `do_verify`): read back what was written and check it.
    pub verify: bool,
    /// `flow_id`, `flow` weight.
    pub flow: Option<(u32, u32)>,
    /// Options accepted and ignored, with why, for the summary.
    pub ignored: Vec<(String, &'static str)>,
    /// Where the job's `size` was written, for layout errors.
    pub size_at: Origin,
    /// `exitall`: when this job finishes, end the other jobs of its reporting group
    /// (`exit_what=group`, fio's `groupid`), every job running (`stonewall`), or every job
    /// (`all`).
    pub exitall: Option<ExitWhat>,
    /// `new_group`: the job starts a new reporting group (the scope of `exit_what=group`).
    pub new_group: bool,
    /// `fdp=1`: the placement identifiers its writes carry.
    pub fdp: Option<super::fdp::FdpSpec>,
    /// `buffer_pattern` / `verify_pattern`: what every write holds, repeated.
    pub pattern: Option<crate::content::Pattern>,
    /// What fio writes when this job lays a file out (see [`layout_fill`]): its
    /// `buffer_pattern` (or zeros), else what its writes hold; in pieces of this many bytes.
    pub layout_pattern: Option<crate::content::Pattern>,
    pub layout_piece: u64,
}

const BLOCK_ENGINES: &[&str] = &[
    "sg",
    "libiscsi",
    "nbd",
    "rbd",
    "libblkio",
    "io_uring_cmd",
    "xnvme",
    "spdk",
    "dev-dax",
    "pmemblk",
    "libzbc",
];

fn opt_percent_or_size(o: &Opt) -> Result<Offset> {
    let v = o.value()?.trim();
    if let Some(p) = v.strip_suffix('%') {
        let p: f64 = p
            .trim()
            .parse()
            .ok()
            .filter(|p: &f64| (0.0..=100.0).contains(p))
            .ok_or_else(|| o.err("expected a percentage in 0..=100"))?;
        Ok(Offset::Percent(p))
    } else {
        Ok(Offset::Bytes(parse_size(v).map_err(|m| o.err(m))?))
    }
}

/// A rate per direction: `rate=r[,w[,t]]` in bytes/s, `rate_iops` in I/Os per second.
fn parse_rates(o: &Opt, iops: bool) -> Result<[u64; 3]> {
    let v = o.value()?;
    let parts = ddir_parts(o, v)?;
    let mut out = [0u64; 3];
    for (d, p) in parts.iter().enumerate() {
        if let Some(p) = p {
            out[d] = if iops {
                p.parse::<u64>()
                    .map_err(|_| o.err(format!("expected a count of I/Os per second, got `{p}`")))?
            } else {
                parse_size(p).map_err(|m| o.err(m))?
            };
        }
    }
    Ok(out)
}

/// fio time with a default unit: `thinktime` and friends are in microseconds unless
/// suffixed.
fn parse_time_default_us(o: &Opt) -> Result<u64> {
    let v = o.value()?.trim();
    if v.bytes().all(|b| b.is_ascii_digit()) {
        let n: u64 = v.parse().map_err(|_| o.err("too large"))?;
        return n.checked_mul(1000).ok_or_else(|| o.err("too large"));
    }
    parse_time_ns(v).map_err(|m| o.err(m))
}

/// Resolve a job's options against the device.
pub(super) fn resolve(opts: &[&Opt], section_name: &str, at: &Origin) -> Result<JobSpec> {
    // Last occurrence of each canonical option; block sizes are built in order (bs and
    // bsrange set both limits, so the later one wins).
    let mut last: BTreeMap<&'static str, &Opt> = BTreeMap::new();
    let mut bs = [
        BsSpec::Fixed(4096),
        BsSpec::Fixed(4096),
        BsSpec::Fixed(4096),
    ];
    let mut ignored: Vec<(String, &'static str)> = Vec::new();
    let mut new_group = false;
    for &o in opts {
        match class_of(&o.key) {
            Some(Class::Honoured(c)) => {
                if c == "bs" {
                    parse_bs_option(o, &mut bs)?;
                }
                last.insert(c, o);
            }
            Some(Class::Refused(why)) => return Err(o.err(why)),
            Some(c) => {
                if o.key == "new_group" {
                    new_group = o.flag()?;
                }
                if !ignored.iter().any(|(k, _)| *k == o.key) {
                    ignored.push((o.key.clone(), why_ignored(c)));
                }
            }
            None => return Err(o.at.err(format!("unknown fio option `{}`", o.key))),
        }
    }
    let get = |k: &str| last.get(k).copied();
    let flag = |k: &str| -> Result<bool> {
        get(k)
            .map(Opt::flag)
            .transpose()
            .map(|f| f.unwrap_or(false))
    };

    let name = match get("name") {
        Some(o) => o.value()?.to_string(),
        None => section_name.to_string(),
    };
    let engine = match get("ioengine") {
        Some(o) => {
            let e = o.value()?.trim().to_string();
            engine_class(&e).map_err(|m| o.err(m))?;
            e
        }
        None => "psync".to_string(),
    };
    // sg_write_mode and write_mode values are checked with the refused options; here, what
    // the sg engine's mode means for this job.
    let sg_mode = match get("sg_write_mode") {
        None => super::sg::SgMode::Write,
        Some(o) => {
            let m = super::sg::SgMode::parse(o.value()?).map_err(|e| o.err(e))?;
            if m != super::sg::SgMode::Write && engine != "sg" {
                return Err(o.err(format!(
                    "sg_write_mode is an option of ioengine=sg (engines/sg.c); this job's ioengine is `{engine}`"
                )));
            }
            m
        }
    };
    // rw, with fio's `:N` modifier.
    let (mut mix, mut random) = (Mix::Rw { read_pct: 100 }, false);
    let mut modifier: Option<i64> = None;
    let (mut reads, mut writes, mut trims) = (true, false, false);
    if let Some(o) = get("rw") {
        let v = o.value()?.trim();
        let (kind, m) = match v.split_once(':') {
            Some((k, m)) => (k.trim(), Some(m.trim())),
            None => (v, None),
        };
        (reads, writes, trims, random) = match kind {
            "read" => (true, false, false, false),
            "write" => (false, true, false, false),
            "randread" => (true, false, false, true),
            "randwrite" => (false, true, false, true),
            "rw" | "readwrite" => (true, true, false, false),
            "randrw" => (true, true, false, true),
            "trim" => (false, false, true, false),
            "randtrim" => (false, false, true, true),
            "trimwrite" => (false, true, true, false),
            "randtrimwrite" => (false, true, true, true),
            _ => {
                return Err(o.err(
                    "expected read, write, randread, randwrite, rw, readwrite, randrw, trim, randtrim, trimwrite or randtrimwrite",
                ))
            }
        };
        if let Some(m) = m {
            // fio: for sequential jobs a byte gap (negative: backwards) after each I/O; for
            // random jobs the number of I/Os before a new random offset.
            let (neg, t) = match m.strip_prefix('-') {
                Some(t) => (true, t),
                None => (false, m),
            };
            let n = if random {
                t.parse::<u64>()
                    .map_err(|_| o.err("the `:N` of a random rw is a count of I/Os"))?
            } else {
                parse_size(t).map_err(|e| o.err(e))?
            };
            if random && (neg || n == 0) {
                return Err(o.err("the `:N` of a random rw must be a positive count of I/Os"));
            }
            if !random && n % 512 != 0 {
                return Err(
                    o.err("the `:N` gap of a sequential rw must be a multiple of 512 bytes")
                );
            }
            let n = i64::try_from(n).map_err(|_| o.err("`:N` is too large"))?;
            modifier = Some(if neg { -n } else { n });
        }
    }
    let mut read_pct = 50;
    if let Some(o) = get("rwmix") {
        let p = parse_percent(o)?;
        read_pct = if o.key == "rwmixread" { p } else { 100 - p };
    }
    if trims {
        mix = if writes { Mix::TrimWrite } else { Mix::Trim };
    } else {
        if !writes {
            read_pct = 100;
        } else if !reads {
            read_pct = 0;
        }
        mix = match mix {
            Mix::Rw { .. } => Mix::Rw { read_pct },
            m => m,
        };
    }
    if let Some(o) = get("bssplit") {
        for (d, s) in parse_bssplit(o)?.into_iter().enumerate() {
            if let Some(s) = s {
                bs[d] = s;
            }
        }
    }
    let used: Vec<usize> = [(0usize, reads && !trims), (1, writes), (2, trims)]
        .iter()
        .filter(|x| x.1)
        .map(|x| x.0)
        .collect();
    let min_bs = used.iter().map(|&d| bs[d].min()).min().unwrap_or(4096);
    let max_bs = used.iter().map(|&d| bs[d].max()).max().unwrap_or(4096);
    if matches!(mix, Mix::TrimWrite) && bs[1] != bs[2] {
        let o = get("bs")
            .or(get("bssplit"))
            .unwrap_or_else(|| get("rw").expect("rw set"));
        return Err(o.err("trimwrite writes the blocks it trimmed: the trim and write block sizes must be the same"));
    }
    let align = match get("blockalign") {
        None => min_bs,
        Some(o) => {
            let parts = ddir_parts(o, o.value()?)?;
            let vals: Vec<u64> = parts
                .iter()
                .enumerate()
                .filter(|(d, _)| used.contains(d))
                .filter_map(|(_, p)| *p)
                .map(|p| parse_bs(o, p))
                .collect::<Result<_>>()?;
            match vals.as_slice() {
                [] => min_bs,
                [first, rest @ ..] if rest.iter().all(|v| v == first) => *first,
                _ => {
                    return Err(o.err("different block alignments per direction are not supported"))
                }
            }
        }
    };

    // fio: `ba[ddir]` defaults to the direction's own smallest block size.
    let ba = if get("blockalign").is_some() {
        [align; 3]
    } else {
        [bs[0].min(), bs[1].min(), bs[2].min()]
    };
    let offset = match get("offset") {
        None => Offset::Bytes(0),
        Some(o) => {
            let off = opt_percent_or_size(o)?;
            if let Offset::Bytes(b) = off {
                if b % 512 != 0 {
                    return Err(o.err("offset must be a multiple of 512 bytes"));
                }
            }
            off
        }
    };
    let fill = flag("fill_device")?;
    let size = match get("size") {
        None => None,
        Some(o) => {
            let s = opt_percent_or_size(o)?;
            if matches!(s, Offset::Bytes(0)) || matches!(s, Offset::Percent(p) if p <= 0.0) {
                return Err(o.err("size must be positive"));
            }
            Some(s)
        }
    };
    let size = if fill { None } else { size };
    let filesize = match get("filesize") {
        None => None,
        Some(o) => {
            let v = o.value()?.trim();
            // fio takes a range `lo-hi` (each file a random size in it); one size only here.
            if v.contains('-') {
                return Err(o.err("a filesize range is not supported: give one size"));
            }
            let s = parse_size(v).map_err(|m| o.err(m))?;
            if s == 0 {
                return Err(o.err("filesize must be positive"));
            }
            Some(s)
        }
    };
    let nrfiles = match get("nrfiles") {
        None => 1,
        Some(o) => {
            let n = parse_uint(o)?;
            if n == 0 || n > 1 << 20 {
                return Err(o.err("nrfiles must be in 1..=1048576"));
            }
            n as u32
        }
    };
    let file_rr = match get("file_service_type") {
        None => 1,
        Some(o) => {
            let v = o.value()?.trim();
            let (kind, n) = match v.split_once(':') {
                Some((k, n)) => (k, Some(n)),
                None => (v, None),
            };
            let n = n
                .map(|n| {
                    n.trim()
                        .parse::<u64>()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or_else(|| {
                            o.err("expected `roundrobin[:N]` with N a positive count of I/Os")
                        })
                })
                .transpose()?
                .unwrap_or(1);
            match kind {
                "roundrobin" => n,
                "sequential" => 0,
                _ => {
                    return Err(
                        o.err("only file_service_type=roundrobin[:N] and sequential are supported")
                    )
                }
            }
        }
    };
    // A percentage is of the file's size, as a percentage `offset` is (fio 3.33's
    // `offset_increment_percent`, get_start_offset in filesetup.c).
    let offset_increment = match get("offset_increment") {
        None => Offset::Bytes(0),
        Some(o) => opt_percent_or_size(o)?,
    };
    let offset_align = match get("offset_align") {
        None => 0,
        Some(o) => parse_size(o.value()?).map_err(|m| o.err(m))?,
    };
    let io_size = match get("io_size") {
        None => None,
        Some(o) => {
            let v = parse_size(o.value()?).map_err(|m| o.err(m))?;
            if v == 0 {
                return Err(o.err("io_size must be positive"));
            }
            Some(v)
        }
    };
    let number_ios = match get("number_ios") {
        None => None,
        Some(o) => Some(parse_uint(o)?).filter(|&n| n > 0),
    };
    let loops = match get("loops") {
        None => 1,
        Some(o) => {
            let n = parse_uint(o)?;
            if n == 0 || n > 1 << 32 {
                return Err(o.err("loops must be in 1..=4294967296"));
            }
            n
        }
    };
    let iodepth = match get("iodepth") {
        None => 1,
        Some(o) => {
            let v = parse_uint(o)?;
            if v == 0 || v > 65536 {
                return Err(o.err("iodepth must be in 1..=65536"));
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
    let ramp_ns = match get("ramp_time") {
        None => 0,
        Some(o) => parse_time_ns(o.value()?).map_err(|m| o.err(m))?,
    };
    let runtime_ns = match get("runtime") {
        None => None,
        // fio: ramp_time is lead-in time that lengthens a given runtime.
        Some(o) => Some(parse_time_ns(o.value()?).map_err(|m| o.err(m))?)
            .filter(|&t| t > 0)
            .map(|t| t.saturating_add(ramp_ns)),
    };
    let time_based = match get("time_based") {
        None => false,
        Some(o) => {
            let tb = o.flag()?;
            if tb && runtime_ns.is_none() {
                // fio (fixup_options in init.c): "time_based requires a runtime, ignoring"
                // (a warning), and the job runs by size.
                ignored.push((
                    "time_based".to_string(),
                    "no `runtime` is given, so the job runs by size (fio warns and does the same)",
                ));
            }
            tb && runtime_ns.is_some()
        }
    };
    let startdelay = match get("startdelay") {
        None => (0, 0),
        Some(o) => {
            let v = o.value()?.trim();
            match v.split_once('-') {
                Some((a, b)) => {
                    let (a, b) = (
                        parse_time_ns(a).map_err(|m| o.err(m))?,
                        parse_time_ns(b).map_err(|m| o.err(m))?,
                    );
                    if a > b {
                        return Err(o.err("startdelay range minimum exceeds its maximum"));
                    }
                    (a, b)
                }
                None => {
                    let t = parse_time_ns(v).map_err(|m| o.err(m))?;
                    (t, t)
                }
            }
        }
    };
    let dist = match get("random_distribution") {
        None => Dist::Random,
        Some(o) => parse_distribution(o)?,
    };
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
    let mut lfsr = false;
    let mut randommap = match get("norandommap") {
        None => true,
        Some(o) => !o.flag()?,
    };
    let mut lfsr_at = None;
    if let Some(o) = get("random_generator") {
        match o.value()?.trim() {
            "tausworthe" | "tausworthe64" => {}
            // fio's LFSR (gen.rs `Lfsr`) visits every block once per pass without a map.
            "lfsr" => {
                randommap = true;
                lfsr = true;
                lfsr_at = Some(o.at.clone());
            }
            _ => return Err(o.err("expected tausworthe, lfsr or tausworthe64")),
        }
    }
    let randseed = match get("randseed") {
        None => None,
        Some(o) => Some(parse_uint(o)?),
    };
    // flashpress is always repeatable: the same seed gives the same run. randrepeat=0
    // asks for a different sequence each run, which the run's `seed` gives. The LFSR's seed
    // follows fio's derivation (see `LfsrSeed`).
    let randrepeat = match get("randrepeat") {
        None => true,
        Some(o) => o.flag()?,
    };
    let lfsr_seed = match (randrepeat, randseed) {
        (true, _) => LfsrSeed::Repeat,
        (false, Some(s)) => LfsrSeed::Seed(s),
        (false, None) => LfsrSeed::Run,
    };
    let compress = get("buffer_compress_percentage")
        .map(parse_percent)
        .transpose()?;
    let dedupe_pct = get("dedupe_percentage")
        .map(parse_percent)
        .transpose()?
        .unwrap_or(0);
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
    let dedupe_ws_pct = if working_set && dedupe_pct > 0 {
        let o = get("dedupe_mode").expect("dedupe_mode is set");
        if size.is_none() {
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
        Some(pct)
    } else {
        None
    };
    // fio (dedupe.c): dedupe_global shares the working sets of the jobs that set it; with
    // dedupe_mode=repeat it does nothing.
    let dedupe_global = flag("dedupe_global")?;
    if dedupe_global && dedupe_ws_pct.is_none() {
        ignored.push((
            "dedupe_global".to_string(),
            "acts only with dedupe_percentage and dedupe_mode=working_set, as in fio",
        ));
    }
    let dedupe_global = dedupe_global && dedupe_ws_pct.is_some();
    let sync_every = match get("fsync") {
        None => 0,
        Some(o) => parse_uint(o)?,
    };
    let end_fsync = flag("end_fsync")?;
    let mut open_flags = 0u8;
    if let Some(o) = get("sync") {
        let v = o.value.as_deref().map(str::trim);
        if matches!(v, Some("sync") | Some("dsync")) || (v != Some("none") && o.flag()?) {
            open_flags |= crate::workload::FileAttrs::DSYNC;
        }
    }
    if flag("fua")? {
        // A FUA write returns once its data is on the medium, as an O_DSYNC write does.
        open_flags |= crate::workload::FileAttrs::DSYNC;
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
    let stonewall = flag("stonewall")?;
    let wait_for = match get("wait_for") {
        None => None,
        Some(o) => Some((o.value()?.trim().to_string(), o.at.clone())),
    };
    if let Some(o) = get("kb_base") {
        if o.value()?.trim() != "1024" {
            return Err(o.err("only kb_base=1024 (fio's default) is supported"));
        }
    }
    // Rates.
    let rate_bytes = get("rate")
        .map(|o| parse_rates(o, false))
        .transpose()?
        .unwrap_or([0; 3]);
    let rate_iops = get("rate_iops")
        .map(|o| parse_rates(o, true))
        .transpose()?
        .unwrap_or([0; 3]);
    let rate_min = get("rate_min")
        .map(|o| parse_rates(o, false))
        .transpose()?
        .unwrap_or([0; 3]);
    let poisson = match get("rate_process") {
        None => false,
        Some(o) => match o.value()?.trim() {
            "linear" => false,
            "poisson" => true,
            _ => return Err(o.err("expected linear or poisson")),
        },
    };
    let rate_cycle_ns = match get("rate_cycle") {
        None => 1_000_000_000,
        Some(o) => {
            let ms = parse_uint(o)?;
            if ms == 0 {
                return Err(o.err("rate_cycle must be a positive number of milliseconds"));
            }
            ms.saturating_mul(1_000_000)
        }
    };
    let rate = Rate {
        bytes: rate_bytes,
        iops: rate_iops,
        min_bytes: rate_min,
        poisson,
        cycle_ns: rate_cycle_ns,
    };
    let thinktime_ns = match get("thinktime") {
        None => 0,
        Some(o) => parse_time_default_us(o)?,
    };
    if let Some(o) = get("thinktime_spin") {
        // Part of the think time spent spinning rather than sleeping: the same gap here.
        if parse_time_default_us(o)? > thinktime_ns {
            return Err(o.err("thinktime_spin exceeds thinktime"));
        }
    }
    let thinktime_blocks = match get("thinktime_blocks") {
        None => 1,
        Some(o) => parse_uint(o)?.max(1),
    };
    // Verification. fio 3.33 (options.c, str_verify_pattern_cb): verify_pattern sets
    // `verify` to VERIFY_PATTERN unless it is given, the pattern with a verify header in
    // every chunk (`verify=pattern` is VERIFY_PATTERN_NO_HDR, the pattern alone).
    let verify_kind = match get("verify") {
        None => get("verify_pattern").map(|_| PATTERN_WITH_HEADER.to_string()),
        Some(o) => {
            let v = o.value.as_deref().map(str::trim).unwrap_or("");
            (!matches!(v, "0" | "none" | "")).then(|| v.to_string())
        }
    };
    let verify = verify_kind.is_some();
    let (mut pattern, buffer_pattern) =
        resolve_pattern(get, verify_kind.as_deref(), writes, &mut ignored)?;
    let (layout_pattern, layout_piece) = layout_fill(buffer_pattern, bs[1].max());
    // continue_on_error is otherwise a host option (no I/O errors to go on from); its last
    // value is what a failing sg command consults.
    let coe = opts
        .iter()
        .rev()
        .find(|o| o.key == "continue_on_error")
        .copied();
    let sg_continue = resolve_sg(
        get,
        coe,
        sg_mode,
        writes,
        verify,
        &mut pattern,
        &mut ignored,
    )?;
    let compress = match header_share(
        get,
        opts,
        verify_kind.as_deref(),
        writes,
        used_write_bs(&bs),
        &mut ignored,
    )? {
        None => compress,
        Some(pct) => match get("buffer_compress_percentage") {
            Some(o) => {
                return Err(o.err(format!(
                    "buffer_compress_percentage with {} and verify_pattern: fio fills the buffer \
                     with the pattern and its verify headers; give one or the other",
                    verify_name(verify_kind.as_deref().unwrap_or(""))
                )))
            }
            None => Some(pct),
        },
    };
    let do_verify = match get("do_verify") {
        None => true,
        Some(o) => o.flag()?,
    };
    if verify && do_verify && !writes {
        ignored.push((
            "verify".to_string(),
            "a read-only job has no writes of its own to verify (flashpress checks reads against the last write under check.verify)",
        ));
    }
    let verify = verify && do_verify && writes;
    // fio's verify_backlog=N: after every N blocks written, read them back (in batches of
    // verify_backlog_batch, default N).
    let verify_backlog = match get("verify_backlog") {
        None => 0,
        Some(o) => {
            let n = parse_uint(o)?;
            if n > 1 << 24 {
                return Err(o.err("verify_backlog must be at most 16777216 blocks"));
            }
            n
        }
    };
    let verify_batch = match get("verify_backlog_batch") {
        None => verify_backlog,
        Some(o) => parse_uint(o)?.clamp(1, verify_backlog.max(1)),
    };
    // Steady state.
    let steady = match get("steadystate") {
        None => None,
        Some(o) => {
            let v = o.value()?.trim();
            let (metric, limit) = v.split_once(':').ok_or_else(|| o.err("expected `iops:X`, `iops_slope:X`, `bw:X` or `bw_slope:X` (X a number or a percentage)"))?;
            let metric = match metric.trim() {
                "iops" => SsMetric::Iops,
                "iops_slope" => SsMetric::IopsSlope,
                "bw" => SsMetric::Bw,
                "bw_slope" => SsMetric::BwSlope,
                "lat" => SsMetric::Lat,
                "lat_slope" => SsMetric::LatSlope,
                m => return Err(o.err(format!("unknown steady-state metric `{m}`"))),
            };
            let limit = limit.trim();
            let (pct, num) = match limit.strip_suffix('%') {
                Some(p) => (true, p),
                None => (false, limit),
            };
            let x: f64 = if metric.latency() && !pct {
                // fio reads a latency limit as a time (microseconds unless suffixed); the
                // samples are nanoseconds.
                let t = Opt {
                    value: Some(num.to_string()),
                    ..o.clone()
                };
                parse_time_default_us(&t)? as f64
            } else {
                num.parse()
                    .ok()
                    .filter(|x: &f64| x.is_finite() && *x >= 0.0)
                    .ok_or_else(|| o.err(format!("bad steady-state limit `{limit}`")))?
            };
            let dur = match get("ss_dur") {
                Some(d) => parse_time_ns(d.value()?).map_err(|m| d.err(m))?,
                None => return Err(o.err("steadystate needs `ss_dur` (steadystate_duration)")),
            };
            let interval = match get("ss_interval") {
                Some(d) => parse_time_ns(d.value()?).map_err(|m| d.err(m))?,
                None => 1_000_000_000,
            };
            if interval == 0 || dur < 2 * interval {
                let d = get("ss_dur").expect("set");
                return Err(d.err(
                    "ss_dur must span at least two check intervals (ss_interval, 1 s by default)",
                ));
            }
            let ramp = match get("ss_ramp") {
                Some(d) => parse_time_ns(d.value()?).map_err(|m| d.err(m))?,
                None => 0,
            };
            Some(SteadyState {
                metric,
                limit: x,
                percent: pct,
                dur_ns: dur,
                ramp_ns: ramp,
                interval_ns: interval,
            })
        }
    };
    // latency_target and its companions.
    let lat_target = match get("latency_target") {
        None => None,
        Some(o) => {
            let target_ns = parse_time_default_us(o)?;
            if target_ns == 0 {
                return Err(o.err("latency_target must be a positive time"));
            }
            let window_ns = get("latency_window")
                .map(parse_time_default_us)
                .transpose()?
                .unwrap_or(0);
            let percentile = match get("latency_percentile") {
                None => 100.0,
                Some(p) => {
                    let v = p.value()?.trim();
                    v.strip_suffix('%')
                        .unwrap_or(v)
                        .trim()
                        .parse::<f64>()
                        .ok()
                        .filter(|x| *x > 0.0 && *x <= 100.0)
                        .ok_or_else(|| {
                            p.err(format!("expected a percentage in (0, 100], got `{v}`"))
                        })?
                }
            };
            Some(LatTarget {
                target_ns,
                window_ns,
                percentile,
                run: flag("latency_run")?,
            })
        }
    };
    if lat_target.is_none() {
        for k in ["latency_window", "latency_percentile", "latency_run"] {
            if let Some(o) = get(k) {
                return Err(o.err("needs `latency_target` to mean anything"));
            }
        }
    }
    for k in ["ss_dur", "ss_ramp", "ss_interval"] {
        if steady.is_none() {
            if let Some(o) = get(k) {
                return Err(o.err("needs `steadystate` (ss) to mean anything"));
            }
        }
    }
    let flow = match get("flow") {
        None => None,
        Some(o) => {
            let w = parse_uint(o)?;
            if w == 0 || w > u64::from(u32::MAX) {
                return Err(o.err("flow must be a positive weight"));
            }
            let id = match get("flow_id") {
                None => 0,
                Some(i) => u32::try_from(parse_uint(i)?).map_err(|_| i.err("too large"))?,
            };
            Some((id, w as u32))
        }
    };
    let flow_sleep_ns = match get("flow_sleep") {
        None => 0,
        Some(o) => parse_time_default_us(o)?,
    };
    let filename = get("filename")
        .map(|o| o.value().map(str::to_string))
        .transpose()?;
    let directory = get("directory")
        .map(|o| o.value().map(str::to_string))
        .transpose()?;
    let format = get("filename_format")
        .map(|o| o.value().map(str::to_string))
        .transpose()?;
    let exit_what = match get("exit_what") {
        None => ExitWhat::Group,
        Some(o) => match o.value()?.trim() {
            "group" => ExitWhat::Group,
            "stonewall" => ExitWhat::Stonewall,
            "all" => ExitWhat::All,
            v => {
                return Err(o.err(format!(
                    "unknown exit_what `{v}` (expected group, stonewall or all)"
                )))
            }
        },
    };
    let exitall = flag("exitall")?.then_some(exit_what);
    let zone = super::zoned::resolve(&get, mix, &bs)?;
    if verify && zone.mode == super::zoned::ZoneMode::Strided {
        let o = get("verify").expect("verify set");
        return Err(o.err("verify with zonemode=strided is not supported"));
    }
    let fdp = super::fdp::resolve(get)?;
    let size_at = get("size")
        .map(|o| o.at.clone())
        .unwrap_or_else(|| at.clone());
    Ok(JobSpec {
        name,
        iodepth,
        numjobs,
        randseed,
        compress,
        stonewall,
        wait_for,
        verify,
        flow,
        ignored,
        size_at,
        exitall,
        new_group,
        fdp,
        pattern: pattern.clone(),
        layout_pattern,
        layout_piece,
        files: FileSpec {
            filename,
            directory,
            nrfiles,
            filesize,
            format,
            offset_increment,
            offset_align,
            offset,
            size,
            fill,
            block_engine: BLOCK_ENGINES.contains(&engine.as_str()),
        },
        source: SourceSpec {
            mix,
            random,
            bs,
            min_bs,
            max_bs,
            align,
            ba,
            files: Vec::new(),
            file_rr,
            region_start: 0,
            region_len: 0,
            file_ends: Vec::new(),
            io_limit: if time_based { None } else { io_size },
            io_size_set: !time_based && io_size.is_some(),
            // Placed with the job's files (`layout::place`).
            size_bytes: 0,
            loops,
            number_ios,
            runtime_ns,
            time_based,
            dist,
            randommap,
            // fio keeps a random map (and so its write-ordered verify list) only for
            // random jobs without norandommap; the LFSR generator has none.
            verify_write_order: random && randommap && !lfsr,
            lfsr: random && lfsr,
            lfsr_seed,
            lfsr_at,
            dedupe_pct,
            dedupe_ws_pct,
            dedupe_global,
            dedupe_working_set: None,
            pattern_id: pattern.as_ref().map(crate::content::Pattern::first_id),
            pct_random,
            modifier,
            sync_every,
            end_fsync,
            open_flags,
            rate,
            thinktime_ns,
            thinktime_blocks,
            startdelay,
            ramp_ns,
            ramp_per_stream: true,
            steady,
            lat_target,
            iodepth,
            flow_sleep_ns,
            verify,
            verify_backlog: if verify { verify_backlog } else { 0 },
            verify_batch,
            zone,
            sg_mode: if writes {
                sg_mode
            } else {
                super::sg::SgMode::Write
            },
            sg_continue,
            pattern,
        },
    })
}

/// The write block sizes a job uses (smallest, largest).
fn used_write_bs(bs: &[BsSpec; 3]) -> (u64, u64) {
    (bs[1].min(), bs[1].max())
}

/// The verify kind fio 3.33 sets when `verify_pattern` is given without `verify`
/// (VERIFY_PATTERN: the pattern with a verify header in every chunk); not a value of `verify`.
const PATTERN_WITH_HEADER: &str = "(verify_pattern's own)";

/// How a message names a verify kind.
fn verify_name(kind: &str) -> String {
    if kind == PATTERN_WITH_HEADER {
        "verify_pattern without verify (fio then writes a verify header in every block)".into()
    } else {
        format!("verify={kind}")
    }
}

/// Bytes at the start of every `verify_interval` chunk that are not the pattern, when a job
/// writes `verify_pattern` under verify kind `kind`: fio's 40-byte `struct verify_header`
/// (magic, type, length, seed, offset, time, thread, I/O number, CRC) and the checksum that
/// follows it (verify.c, `populate_hdr`), `None` for the kinds that write the pattern alone
/// (`pattern`, `null`) and for kinds not known. Measured with `xxd` on 4 KiB blocks fio 3.33
/// wrote with `verify_pattern` and each `verify` (`psync`): the pattern resumes after this
/// many bytes (sha512 writes no checksum there in fio 3.33; crc16 and crc7 write 2 and 1).
fn verify_header_bytes(kind: &str) -> Option<u64> {
    Some(match kind {
        PATTERN_WITH_HEADER | "meta" | "sha512" => 40,
        "md5" => 56,
        "crc64" => 48,
        "crc32c" | "crc32c-intel" | "crc32" | "xxhash" => 44,
        "crc16" => 42,
        "crc7" => 41,
        "sha256" | "sha3-512" => 104,
        "sha3-224" => 68,
        "sha3-256" => 72,
        "sha3-384" => 88,
        "sha1" => 60,
        _ => return None,
    })
}

/// `verify_pattern` under a verify kind that writes headers (every kind but `pattern` and
/// `null`, and fio 3.33's own when `verify` is not given): `populate_verify_io_u` ->
/// `fill_pattern_headers` fills the buffer with the pattern, then writes a verify header and
/// its checksum ([`verify_header_bytes`]) at the start of every `verify_interval` chunk
/// (`get_hdr_inc`: the interval when set and at most the buffer, else the buffer). Each block
/// then differs from every other (the header holds its offset, a seed and a time) while the
/// rest is the pattern. flashpress writes such blocks as fresh content ids (never duplicates)
/// whose compressible share is the pattern's share of a chunk, `(interval - H) / interval`
/// for H header bytes (fio's own `buffer_compress_percentage` mechanism, the header standing
/// as the incompressible part), and the verify pass checks them by id. Returns that share in
/// percent, or `None` when the job is not such a job.
fn header_share<'a>(
    get: impl Fn(&str) -> Option<&'a Opt>,
    opts: &[&Opt],
    verify: Option<&str>,
    writes: bool,
    (min_bs, max_bs): (u64, u64),
    ignored: &mut Vec<(String, &'static str)>,
) -> Result<Option<u32>> {
    let Some(kind) = verify else {
        return Ok(None);
    };
    let Some(header) = verify_header_bytes(kind) else {
        return Ok(None);
    };
    if get("verify_pattern").is_none() || !writes {
        return Ok(None);
    }
    // fio's fixup_options (init.c): with varying write sizes an unset interval is the
    // smallest write ("verify_interval = min_bs[DDIR_WRITE]"; with a fixed size, unset means
    // the whole block), and "Verify interval must be smaller or equal to the write size": a
    // larger one is cut to the smallest write.
    let given = opts.iter().rev().find(|o| o.key == "verify_interval");
    let (interval, at) = match given {
        None => (min_bs, get("verify_pattern").expect("checked above")),
        Some(o) => {
            let v = parse_size(o.value()?).map_err(|m| o.err(m))?;
            if v <= header {
                return Err(o.err(format!(
                    "verify_interval={v}: with {} and verify_pattern each chunk starts with {header} bytes of fio's verify header and checksum; give more than {header} bytes",
                    verify_name(kind)
                )));
            }
            (v.min(min_bs), *o)
        }
    };
    if interval <= header || min_bs % interval != 0 || max_bs % interval != 0 {
        return Err(at.err(format!(
            "{} with verify_pattern: a verify interval of {interval} bytes (fio cuts it to the smallest write) must exceed the {header} bytes of header and checksum and divide every block size ({min_bs}..{max_bs} bytes; fio: \"blocksize should divide this evenly\"); chunks cut short are not modelled",
            verify_name(kind)
        )));
    }
    ignored.retain(|(k, _)| k != "verify_interval");
    Ok(Some((100 * (interval - header) / interval) as u32))
}

/// What `sg_write_mode` asks of a job's writes (see [`super::sg`]), checked against the job's
/// other options; returns whether a failed command lets the job go on (`continue_on_error`).
/// WRITE SAME NDOB writes zeros whatever the buffer holds, so its job's pattern becomes
/// zeros; a VERIFY with BYTCHK 01 or 11 compares the job's buffer, which flashpress knows byte
/// for byte only as a pattern.
fn resolve_sg<'a>(
    get: impl Fn(&str) -> Option<&'a Opt>,
    continue_on_error: Option<&Opt>,
    mode: super::sg::SgMode,
    writes: bool,
    verify: bool,
    pattern: &mut Option<crate::content::Pattern>,
    ignored: &mut Vec<(String, &'static str)>,
) -> Result<bool> {
    use super::sg::{Bytchk, SgMode};
    if mode == SgMode::Write {
        return Ok(false);
    }
    let o = get("sg_write_mode").expect("a mode other than write was given");
    if !writes {
        ignored.push((
            "sg_write_mode".to_string(),
            "the job has no writes, the only I/O the mode changes",
        ));
        return Ok(false);
    }
    if verify {
        return Err(o.err(format!(
            "{} with verify: the job's writes are {} commands, which write nothing for verify to read back",
            o.key,
            mode.command()
        )));
    }
    match mode {
        SgMode::WriteSameNdob => *pattern = Some(crate::content::Pattern::new(&[0])),
        SgMode::Verify(Bytchk::Full | Bytchk::OneBlock) if pattern.is_none() => {
            return Err(o.err(format!(
                "{}: the device compares the job's write buffer with its medium; flashpress knows a buffer byte for byte only as a pattern: give buffer_pattern",
                mode.command()
            )))
        }
        _ => {}
    }
    // fio (continue_on_error): a failed VERIFY or WRITE SAME is an I/O error on a write
    // (the sg engine issues it for DDIR_WRITE), so `write`, `io`, `all` (and `1`) go on;
    // `none` (`0`), `read` and `verify` end the job.
    let go_on = match continue_on_error {
        None => false,
        Some(c) => match c.value.as_deref().map(str::trim).unwrap_or("") {
            "none" | "0" | "read" | "verify" => false,
            "write" | "io" | "all" | "1" => true,
            v => {
                return Err(c.err(format!(
                    "continue_on_error={v}: expected none, read, write, io, verify, all, 0 or 1"
                )))
            }
        },
    };
    ignored.retain(|(k, _)| k != "continue_on_error");
    Ok(go_on)
}

/// What a job's writes hold when it sets a pattern (fio io_u.c, `fill_io_buffer` and
/// `populate_verify_io_u`): a job that verifies (`verify` other than `0`/`none`, set by
/// `verify_pattern` itself when not given) writes `verify_pattern`: repeated alone under
/// `verify=pattern` or `null`, with a verify header (and checksum) in every chunk under the
/// other kinds ([`header_share`]: fresh content, not a pattern). Otherwise `buffer_pattern`
/// repeated, unless `buffer_compress_percentage` or `dedupe_percentage` decide the buffer
/// first: fio's `fill_random_buf_percentage` then fills each chunk's compressible share with
/// the pattern instead of zeros (the content model's generated content stands for it,
/// zeros and a pattern run compressing alike), and with no compressible share (dedupe
/// alone) no byte is the pattern's. `%o` (the write's offset pasted into every copy of the
/// pattern: each write's data differs) is refused by name. Returns what the writes hold and
/// what a layout by the job holds (`buffer_pattern` or zeros, see [`layout_fill`]).
fn resolve_pattern<'a>(
    get: impl Fn(&str) -> Option<&'a Opt>,
    verify: Option<&str>,
    writes: bool,
    ignored: &mut Vec<(String, &'static str)>,
) -> Result<(Option<crate::content::Pattern>, Option<Vec<u8>>)> {
    use crate::content::pattern::{parse, Parsed};
    let parsed = |o: &Opt, offset_allowed: bool| -> Result<Vec<u8>> {
        match parse(o.value()?.trim(), offset_allowed).map_err(|m| o.err(m))? {
            Parsed::Bytes(b) => Ok(b),
            Parsed::Offset => Err(o.err(
                "%o (each block's offset written into it) is not modelled: it makes every \
                 block's data different; leave it out to write the rest of the pattern",
            )),
        }
    };
    let buffer = get("buffer_pattern")
        .map(|o| parsed(o, false))
        .transpose()?;
    let verify_pat = get("verify_pattern").map(|o| parsed(o, true)).transpose()?;
    let set = |k: &str| get(k).is_some_and(|c| c.value.as_deref().map(str::trim) != Some("0"));
    let mixed = ["buffer_compress_percentage", "dedupe_percentage"]
        .into_iter()
        .find(|k| set(k));
    // fio's fill_io_buffer: `if (o->compress_percentage || o->dedupe_percentage)` comes
    // first, passing the pattern to fill_random_buf_percentage for the compressible share.
    let buffer = match (&buffer, mixed) {
        (Some(_), Some(_)) => {
            if !set("buffer_compress_percentage") {
                ignored.push((
                    "buffer_pattern".to_string(),
                    "dedupe_percentage without buffer_compress_percentage fills buffers with random bytes only (as in fio)",
                ));
            }
            None
        }
        _ => buffer,
    };
    // `zero_buffers`: fio fills buffers with zeros after `buffer_pattern` and the
    // compress/dedupe fills have declined (io_u.c, `__fill_io_buffer`): zeros are the
    // one-byte pattern 0x00.
    let buffer = match get("zero_buffers") {
        Some(o) if o.flag()? && buffer.is_none() => {
            if mixed.is_some() {
                ignored.push((
                    "zero_buffers".to_string(),
                    "buffer_compress_percentage/dedupe_percentage decide the buffers' data first (as in fio)",
                ));
                None
            } else {
                Some(vec![0])
            }
        }
        Some(_) if buffer.is_some() => {
            ignored.push((
                "zero_buffers".to_string(),
                "buffer_pattern decides the buffers' data first (as in fio)",
            ));
            buffer
        }
        _ => buffer,
    };
    let bytes = match (verify_pat, verify) {
        // fio 3.33: `pattern` is VERIFY_PATTERN_NO_HDR; `null` writes the pattern alone too
        // (xxd of its blocks).
        (Some(b), Some("pattern" | "null")) => Some(b),
        // Headers in every chunk: fresh content with the pattern's compressible share
        // (see `header_share`).
        (Some(_), Some(kind)) if verify_header_bytes(kind).is_some() => None,
        (Some(_), Some(kind)) => {
            let o = get("verify_pattern").expect("verify_pattern set");
            return Err(o.err(format!(
                "verify_pattern with verify={kind} is not modelled (not a verify kind of fio \
                 3.33 whose blocks flashpress knows)"
            )));
        }
        (Some(_), None) => {
            ignored.push((
                "verify_pattern".to_string(),
                "verify=0: the job does not verify, so (as in fio) the pattern is not written",
            ));
            buffer.clone()
        }
        (None, _) => buffer.clone(),
    };
    if !writes {
        for k in ["buffer_pattern", "verify_pattern", "zero_buffers"] {
            if get(k).is_some() && !ignored.iter().any(|(i, _)| i == k) {
                ignored.push((k.to_string(), "a job without writes writes no pattern"));
            }
        }
        return Ok((None, buffer));
    }
    Ok((bytes.map(|b| crate::content::Pattern::new(&b)), buffer))
}

/// What fio writes when the job lays a file out: `extend_file` (filesetup.c) writes the file
/// in pieces of the job's largest write block size (`td->o.max_bs[DDIR_WRITE]`), each filled
/// by `fill_io_buffer(td, b, bs, bs)` (io_u.c): with `buffer_compress_percentage` or
/// `dedupe_percentage`, what the job's writes hold (one dedupe decision per piece, its
/// compressible share per chunk); else `buffer_pattern` repeated from the piece's start
/// (never `verify_pattern`: verify fills buffers only for the job's own writes); else zeros
/// with `zero_buffers` (`buffer_pattern` as `0x00`); else random bytes, again what the job's
/// writes hold. Returns the pattern (`None`: the job's own content) and the piece's bytes.
fn layout_fill(
    buffer_pattern: Option<Vec<u8>>,
    max_write_bs: u64,
) -> (Option<crate::content::Pattern>, u64) {
    (
        buffer_pattern.map(|b| crate::content::Pattern::new(&b)),
        max_write_bs.max(4096),
    )
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
    if suffix.starts_with(['.', ',']) {
        // fio (str_to_decimal in parse.c) reads the digits before the point and, finding no
        // unit letter right after them, no unit: `1.5k` is 1 byte to fio, not 1536. Running
        // that would not be the job the file means, nor a block size an SSD takes.
        return Err(format!(
            "`{t}`: fio reads a size only up to its first non-digit, so to fio this is {n} byte(s), not a fraction of a unit; write the size in whole bytes or a smaller unit (for example `1536` for 1.5k)"
        ));
    }
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

pub(super) fn parse_uint(opt: &Opt) -> Result<u64> {
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

/// Per-direction parts of `read,write,trim` (fio's rule: one value sets all three; with two,
/// trim takes the write value); an empty part keeps the default.
pub(super) fn ddir_parts<'a>(opt: &Opt, v: &'a str) -> Result<[Option<&'a str>; 3]> {
    let parts: Vec<&str> = v.split(',').collect();
    if parts.len() > 3 {
        return Err(opt.err("expected at most `read,write,trim` values"));
    }
    let get = |i: usize| parts.get(i).map(|s| s.trim()).filter(|s| !s.is_empty());
    match parts.len() {
        1 => Ok([get(0), get(0), get(0)]),
        2 => Ok([get(0), get(1), get(1)]),
        _ => Ok([get(0), get(1), get(2)]),
    }
}

fn parse_bs_option(opt: &Opt, bs: &mut [BsSpec; 3]) -> Result<()> {
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
fn parse_bssplit(opt: &Opt) -> Result<[Option<BsSpec>; 3]> {
    let v = opt.value()?;
    let parts = ddir_parts(opt, v)?;
    let mut out = [None, None, None];
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
        // fio (bssplit_ddir in options.c): shares need not sum to 100 (a draw past the last
        // share takes the last entry; entries past 100 are never drawn); entries without a
        // share each get (100 - given) / missing, and more than 100 given with entries
        // missing is an error ("bssplit percentages add to more than 100%").
        let given: u32 = entries.iter().filter_map(|e| e.1).sum();
        let missing = entries.iter().filter(|e| e.1.is_none()).count() as u32;
        if given > 100 && missing > 0 {
            return Err(opt.err(format!(
                "bssplit percentages add up to {given}, more than 100, with entries left without one"
            )));
        }
        let split: Vec<(u64, u32)> = entries
            .iter()
            .map(|&(bs, p)| (bs, p.unwrap_or_else(|| (100 - given) / missing.max(1))))
            .collect();
        out[d] = Some(BsSpec::Split(split));
    }
    Ok(out)
}

pub(super) fn parse_distribution(opt: &Opt) -> Result<Dist> {
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
        "zoned" | "zoned_abs" => {
            let Some(arg) = arg else {
                return Err(opt.err(format!("`{kind}` needs zones: `{kind}:access%/range:...`")));
            };
            if arg.contains(',') {
                return Err(opt.err("per-direction zones (`r,w,t`) are not supported: one zone list applies to every direction"));
            }
            let abs = kind == "zoned_abs";
            let mut zones: Vec<(u32, Option<ZoneRange>)> = Vec::new();
            for z in arg.split(':').map(str::trim).filter(|z| !z.is_empty()) {
                let Some((p, r)) = z.split_once('/') else {
                    return Err(opt.err(format!("zone `{z}`: expected `access%/range`")));
                };
                let p: u32 = p.trim().parse().ok().filter(|p| *p <= 100).ok_or_else(|| {
                    opt.err(format!("zone `{z}`: access share must be a percentage in 0..=100"))
                })?;
                let r = r.trim();
                let range = if r.is_empty() {
                    None
                } else if abs {
                    Some(ZoneRange::Bytes(parse_size(r).map_err(|m| opt.err(format!("zone `{z}`: {m}")))?))
                } else {
                    Some(ZoneRange::Percent(r.parse().ok().filter(|x: &u32| *x <= 100).ok_or_else(|| {
                        opt.err(format!("zone `{z}`: range must be a percentage of the region in 0..=100"))
                    })?))
                };
                zones.push((p, range));
            }
            let total: u32 = zones.iter().map(|z| z.0).sum();
            if zones.is_empty() || total != 100 {
                return Err(opt.err(format!("zone access shares add up to {total}, expected 100")));
            }
            Ok(Dist::Zoned(zones))
        }
        _ => Err(opt.err(
            "expected `random`, `zipf:θ`, `pareto:h`, `normal[:dev]`, `zoned:...` or `zoned_abs:...`",
        )),
    }
}
