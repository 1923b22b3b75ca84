//! fio job files (the INI format fio itself reads), inline jobs and fio command lines,
//! turned into closed-loop streams: one per job clone (`numjobs`), `iodepth` requests in
//! flight, grouped by `stonewall` (and `wait_for`).
//!
//! The data path: `parse` reads the text (fio's syntax: `[name]` sections, `[global]`
//! defaults for the jobs after it, `key=value` lines or bare flags, `;`/`#` comments,
//! `include FILE`, `${VAR}` and `$ncpus` expansion) and checks every option name against
//! `options`, which says what flashpress does with it: honoured, accepted and listed as
//! ignored in the run's summary (logging, host mechanics, engine connection), or refused with
//! the reason. Every option that cannot be honoured is reported in one run, each with its
//! line. `resolve` gives a job's options their meaning; `layout` ([`load`]) places the jobs'
//! files on the device as fio lays them out (a job gets its own files unless jobs share a
//! `filename`; `/dev/...` names the whole device); `gen` generates each clone's requests.
//!
//! Option order for a job: the file's `[global]` options seen before it, then its own, then
//! `workload.global` (which overrides the file's values); a later value overrides an earlier
//! one, as in fio. Inline jobs (`workload.jobs`) and command-line jobs (`workload.args`)
//! come after the file's jobs.
//!
//! Units are fio's: byte sizes take `k`, `m`, `g`, `t`, `p` (optionally with `i`/`b`), all
//! powers of 1024 (`kb_base=1024`); times are seconds unless suffixed `us`, `ms`, `s`, `m`,
//! `h`, `d` (`thinktime` and `flow_sleep`: microseconds).

mod fdp;
mod gen;
mod history;
mod options;
mod parse;
mod resolve;
mod sg;
mod zoned;

pub use zoned::ZonedDevice;

/// fio's time values, for the memory estimate's run horizon.
pub(crate) use resolve::parse_time_ns;

use crate::config::FioWorkload;
use crate::error::{Error, Result};
use crate::workload::{ContentHints, Drive, Stream};
use gen::{ExitScope, FioSource, Flow, FlowGroup};
use parse::{command_line, inline_opts, parse_job_file, Opt, Origin, Problems, RawJob, Vars};
use resolve::{resolve, ExitWhat, JobSpec, Offset};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

#[cfg(test)]
use resolve::parse_size;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod iolog_tests;

/// A fio workload ready to run.
pub struct FioLoad {
    /// One stream per job clone.
    pub streams: Vec<Stream>,
    /// What the run's summary should say about the workload: options accepted and ignored
    /// (with why), variables expanded.
    pub notes: Vec<String>,
    /// Some job verifies what it wrote (`verify`): reads check their content.
    pub verify: bool,
    /// Every job's `ramp_time` when they share one from the run's start: the run's warm-up.
    pub warmup_ns: Option<u64>,
    /// What the summary says once the run is over (failed sg commands), when a job's writes
    /// are SCSI commands that can fail (`sg_write_mode`).
    pub run_notes: Option<Arc<Mutex<Vec<String>>>>,
    /// Files fio writes before the jobs start (a job reads a file nothing laid out: fio's
    /// `extend_file`), as (device byte address, bytes, what fio writes there), in set-up
    /// order. Empty under `[stack]`, whose file system lays out each stream's file itself.
    pub layout: Vec<(u64, u64, crate::workload::LayoutFill)>,
}

/// Build one closed-loop stream per job clone (see [`load`]), for a plain device.
pub fn load_streams(cfg: &FioWorkload, capacity_bytes: u64, seed: u64) -> Result<Vec<Stream>> {
    load(cfg, capacity_bytes, seed, false, None).map(|l| l.streams)
}

/// splitmix64 finaliser: spreads related seeds (job and clone indices) over the seed space.
pub(crate) fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Names that are character devices, not storage.
const NOT_STORAGE: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/random",
    "/dev/urandom",
    "/dev/full",
];

/// Build the streams of a fio workload for a device of `capacity_bytes` logical bytes.
/// `stacked`: under `[stack]`, where each clone's requests address its own file of the file
/// system (its files are laid out inside it) instead of the device. `zoned`: the device's
/// zones, when it is a zoned device (`zonemode=zbd` needs them).
pub fn load(
    cfg: &FioWorkload,
    capacity_bytes: u64,
    seed: u64,
    stacked: bool,
    zoned: Option<ZonedDevice>,
) -> Result<FioLoad> {
    load_placed(cfg, capacity_bytes, seed, stacked, zoned, 0, 0)
}

/// [`load`] for a device with `placement_handles` reclaim unit handles (`[fdp]`; 0 without),
/// which jobs with `fdp=1` tag their writes for, and whose first `preconditioned_bytes` hold
/// the preconditioning's data (what a SCSI VERIFY of never-written sectors finds there).
pub fn load_placed(
    cfg: &FioWorkload,
    capacity_bytes: u64,
    seed: u64,
    stacked: bool,
    zoned: Option<ZonedDevice>,
    placement_handles: u32,
    preconditioned_bytes: u64,
) -> Result<FioLoad> {
    let Jobs {
        mut specs,
        ignored_flags,
        vars_used,
    } = read_jobs(cfg, capacity_bytes)?;
    let sg = sg_commands(&specs, stacked, zoned.is_some(), preconditioned_bytes)?;
    let layout::Placed {
        specs: mut placed,
        layout,
    } = layout::place(&mut specs, capacity_bytes, stacked)?;
    let zone_opts: Vec<zoned::ZoneOpts> = specs.iter().map(|s| s.source.zone.clone()).collect();
    let zone_refs: Vec<&zoned::ZoneOpts> = zone_opts.iter().collect();
    let zbd_views = zoned::place(&zone_refs, &mut placed, zoned.as_ref())?;

    let mut notes = Vec::new();
    // One ramp shared by every job from the run's start is the run's warm-up
    // (stats.warmup_ms): counts, the window's length and flash counters all leave it out.
    let uniform_ramp = {
        let r = specs[0].source.ramp_ns;
        (r > 0
            && specs.iter().all(|s| {
                s.source.ramp_ns == r
                    && !s.stonewall
                    && s.wait_for.is_none()
                    && s.source.startdelay == (0, 0)
            }))
        .then_some(r)
    };
    if uniform_ramp.is_some() {
        for clones in &mut placed {
            for c in clones.iter_mut() {
                c.ramp_per_stream = false;
            }
        }
    } else if specs.iter().any(|s| s.source.ramp_ns > 0) {
        notes.push(
            "fio ramp_time differs between jobs or starts after the run's start: each job's ramp I/O is left out of the request, byte and latency totals, but the measured window's length and the flash counters include it".to_string(),
        );
    }
    // Streams, groups and flow groups.
    let mut streams = Vec::new();
    let mut group: u32 = 0;
    let mut group_jobs: Vec<usize> = Vec::new();
    let mut flows: BTreeMap<u32, Arc<Mutex<FlowGroup>>> = BTreeMap::new();
    let mut verify = false;
    let mut flow_group: BTreeMap<u32, u32> = BTreeMap::new();
    // fio's exitall scopes: one per reporting group (fio's groupid: a new one at each
    // stonewall or new_group), one per stonewall group (the jobs running together), one for
    // the whole run (exit_what=all).
    let exit_all = Arc::new(Mutex::new(ExitScope::default()));
    let mut exit_group: BTreeMap<u32, Arc<Mutex<ExitScope>>> = BTreeMap::new();
    let mut exit_report: BTreeMap<u32, Arc<Mutex<ExitScope>>> = BTreeMap::new();
    let mut report_group = 0u32;
    // dedupe_global: the content namespaces of the clones sharing their working sets.
    let mut global_bases = Vec::new();
    let mut k = 0u64;
    for clones in &placed {
        for c in clones {
            if c.dedupe_global {
                global_bases.push(FioSource::content_base(k));
            }
            k += 1;
        }
    }
    let global_bases = Arc::new(global_bases);
    for (job_index, spec) in specs.iter().enumerate() {
        let mut new_group = job_index > 0 && spec.stonewall;
        if let Some((target, at)) = &spec.wait_for {
            let Some(t) = specs[..job_index].iter().position(|s| &s.name == target) else {
                return Err(at.err(format!(
                    "wait_for={target}: no earlier job is named `{target}`"
                )));
            };
            if group_jobs.contains(&t) {
                if group_jobs.iter().any(|&j| specs[j].name != *target) {
                    return Err(at.err(format!(
                        "wait_for={target}: `{target}` runs beside other jobs; waiting for one job of a group is not supported (use stonewall)"
                    )));
                }
                new_group = true;
            }
        }
        if new_group && !group_jobs.is_empty() {
            group += 1;
            group_jobs.clear();
        }
        group_jobs.push(job_index);
        if job_index > 0 && (spec.stonewall || spec.new_group || new_group) {
            report_group += 1;
        }
        verify |= spec.verify;
        if let Some((id, _)) = spec.flow {
            // fio counts the weights of every job of a flow group, so jobs of one group in
            // different stonewall groups would stall each other forever.
            match flow_group.get(&id) {
                Some(&g) if g != group => {
                    return Err(spec.size_at.err(format!(
                        "job `{}`: flow_id {id} has jobs in different stonewall groups, where fio's flow control stalls forever",
                        spec.name
                    )))
                }
                _ => {
                    flow_group.insert(id, group);
                }
            }
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
            let flow = spec.flow.map(|(id, w)| Flow {
                group: flows.entry(id).or_default().clone(),
                weight: u64::from(w),
            });
            let src = &placed[job_index][clone as usize];
            if src.lfsr {
                let blocks = (src.region_len / src.min_bs).max(1);
                let lfsr_seed = src.lfsr_seed.value(stream_index + 1, job_seed, blocks);
                if gen::Lfsr::seed_refused(blocks, lfsr_seed) {
                    let why = match src.lfsr_seed {
                        gen::LfsrSeed::Repeat => format!(
                            "with randrepeat=1 fio seeds the LFSR with 0xb1899bed x the job's number ({}), whose low bits over {blocks} blocks are the all-ones state fio refuses too (\"failed initializing LFSR\"); set randrepeat=0 and a randseed",
                            stream_index + 1
                        ),
                        _ => "this randseed's low bits are the LFSR's all-ones state, which fio refuses too (\"failed initializing LFSR\"); choose another randseed".to_string(),
                    };
                    let msg = format!(
                        "job `{}` clone {clone}: random_generator=lfsr: {why}",
                        spec.name
                    );
                    return Err(match &src.lfsr_at {
                        Some(at) => at.err(msg),
                        None => Error::Workload(msg),
                    });
                }
            }
            let mut source = FioSource::new(
                src,
                job_seed,
                stream_index,
                &mut zipf_cache,
                flow,
                zbd_views[job_index][clone as usize].clone(),
            );
            if let Some(f) = &spec.fdp {
                source.set_placement(f.picker(placement_handles, job_seed)?);
            }
            if src.dedupe_global {
                let me = global_bases
                    .iter()
                    .position(|&b| b == FioSource::content_base(stream_index))
                    .expect("every sharing clone's namespace is listed");
                source.set_global_dedupe(global_bases.clone(), me);
            }
            let running = exit_group.entry(group).or_default().clone();
            let reporting = exit_report.entry(report_group).or_default().clone();
            let trigger = spec.exitall.map(|w| match w {
                ExitWhat::Group => reporting.clone(),
                ExitWhat::Stonewall => running.clone(),
                ExitWhat::All => exit_all.clone(),
            });
            source.set_exit(vec![reporting, running, exit_all.clone()], trigger);
            if let Some((shared, _)) = &sg {
                source.set_sg(shared.clone(), spec.name.clone());
            }
            let name = if clone == 0 {
                spec.name.clone()
            } else {
                format!("{}.clone{clone}", spec.name)
            };
            let layout_bytes = if stacked {
                src.files.iter().max().copied().unwrap_or(0) + src.region_start + src.region_len
            } else {
                0
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
                    pattern: spec.pattern.clone(),
                },
                layout_bytes,
            });
        }
    }
    let mut listed = std::collections::BTreeSet::new();
    for spec in &specs {
        for (k, why) in &spec.ignored {
            if listed.insert(k.clone()) {
                notes.push(format!("fio option `{k}` ignored: {why}"));
            }
        }
    }
    for f in &ignored_flags {
        notes.push(format!(
            "fio program flag `{f}` ignored: it only shapes fio's own output"
        ));
    }
    for (k, v) in &vars_used {
        notes.push(format!("fio variable `{k}` = `{v}`"));
    }
    let run_notes = sg.map(|(shared, sg_notes)| {
        notes.extend(sg_notes);
        let g = shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        g.notes.clone()
    });
    Ok(FioLoad {
        streams,
        notes,
        verify,
        warmup_ns: uniform_ramp,
        layout,
        run_notes,
    })
}

/// One structure a fio workload's job clones size from their regions (the random map, the
/// verify history, per-file state), summed over the clones, for the memory estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct RegionPart {
    /// What it is (`fio.verify_list`).
    pub name: &'static str,
    /// Bytes, over every clone.
    pub bytes: u64,
    /// How the largest clone's figure was reached.
    pub detail: String,
    /// Some job that has it gives its `size` (else its region is the device's capacity).
    pub sized: bool,
}

/// What a fio workload's job clones keep in memory by their regions (see [`region_parts`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RegionMemory {
    pub parts: Vec<RegionPart>,
    /// Some job verifies (`verify`): the run's verify mode is on ([`FioLoad::verify`]).
    pub verify: bool,
}

/// The per-region structures of `cfg`'s job clones on a device of `capacity_bytes` logical
/// bytes (`stacked`: under `[stack]`), read and placed as [`load`] does, without building
/// them. An error is the one [`load`] will report.
pub fn region_parts(cfg: &FioWorkload, capacity_bytes: u64, stacked: bool) -> Result<RegionMemory> {
    let Jobs { mut specs, .. } = read_jobs(cfg, capacity_bytes)?;
    let verify = specs.iter().any(|s| s.verify);
    let sized: Vec<bool> = specs
        .iter()
        .map(|s| s.files.size.is_some() || s.files.filesize.is_some())
        .collect();
    let placed = layout::place(&mut specs, capacity_bytes, stacked)?.specs;
    let mut parts: Vec<(RegionPart, u64)> = Vec::new();
    for (job, clones) in placed.iter().enumerate() {
        for c in clones {
            for (name, bytes, detail) in FioSource::region_parts(c) {
                match parts.iter_mut().find(|p| p.0.name == name) {
                    Some((p, largest)) => {
                        p.bytes = p.bytes.saturating_add(bytes);
                        p.sized |= sized[job];
                        if bytes > *largest {
                            *largest = bytes;
                            p.detail = detail;
                        }
                    }
                    None => parts.push((
                        RegionPart {
                            name,
                            bytes,
                            detail,
                            sized: sized[job],
                        },
                        bytes,
                    )),
                }
            }
        }
    }
    let clones: usize = placed.iter().map(Vec::len).sum();
    let parts = parts
        .into_iter()
        .map(|(mut p, _)| {
            if clones > 1 {
                p.detail = format!("{clones} job clones, the largest {}", p.detail);
            }
            p
        })
        .collect();
    Ok(RegionMemory { parts, verify })
}

/// A fio workload's jobs, read and resolved.
struct Jobs {
    specs: Vec<JobSpec>,
    /// fio program flags of the command line, ignored.
    ignored_flags: Vec<String>,
    /// The variables the jobs used, with their values.
    vars_used: BTreeMap<String, String>,
}

/// Read every job of `cfg` (the file's, then inline, then the command line's) and resolve
/// its options, reporting every problem at once.
fn read_jobs(cfg: &FioWorkload, capacity_bytes: u64) -> Result<Jobs> {
    let mut problems = Problems::default();
    let mut vars = Vars {
        given: &cfg.vars,
        used: BTreeMap::new(),
    };
    let mut jobs: Vec<RawJob> = Vec::new();
    let mut file_globals: Vec<Opt> = Vec::new();
    if let Some(path) = &cfg.path {
        let p = parse_job_file(path, &mut vars, &mut problems)?;
        jobs = p.jobs;
        file_globals = p.globals;
    }
    let inline_global = inline_opts(&cfg.global, "workload.global", &mut vars, &mut problems);
    for (i, map) in cfg.jobs.iter().enumerate() {
        let prefix = format!("workload.jobs[{i}]");
        let own = inline_opts(map, &prefix, &mut vars, &mut problems);
        jobs.push(RawJob {
            name: format!("job{i}"),
            at: Origin::Inline { key: prefix },
            globals: file_globals.clone(),
            own,
        });
    }
    let mut ignored_flags = Vec::new();
    if !cfg.args.is_empty() {
        let p = command_line(&cfg.args, "workload.args", &mut vars, &mut problems);
        if p.jobs.is_empty() {
            problems.push(Error::config(
                "workload",
                "workload.args",
                "a fio command line needs at least one `--name=...` (each starts a job)",
            ));
        }
        jobs.extend(p.jobs);
        ignored_flags = p.ignored_flags;
    }
    if capacity_bytes == 0 {
        return Err(Error::Workload(
            "cannot run fio jobs on a device with 0 logical bytes".into(),
        ));
    }
    // Every option that cannot be honoured, in every job, before any value is read.
    let mut seen = std::collections::BTreeSet::new();
    let job_opts: Vec<Vec<&Opt>> = jobs
        .iter()
        .map(|j| {
            j.globals
                .iter()
                .chain(j.own.iter())
                .chain(inline_global.iter())
                .collect()
        })
        .collect();
    let mut refused = vec![false; jobs.len()];
    for (i, opts) in job_opts.iter().enumerate() {
        // A value is checked only where it is the one that applies (the last of its option).
        let mut last: BTreeMap<&str, usize> = BTreeMap::new();
        for (k, o) in opts.iter().enumerate() {
            if let Some(options::Class::Honoured(c)) = options::class_of(&o.key) {
                last.insert(c, k);
            }
        }
        for (k, o) in opts.iter().enumerate() {
            let e = match options::class_of(&o.key) {
                Some(options::Class::Refused(why)) => Some(o.err(why)),
                Some(options::Class::Honoured(c)) if last.get(c) == Some(&k) => o
                    .value
                    .as_deref()
                    .and_then(|v| options::refused_value(c, v))
                    .map(|m| o.err(m)),
                _ => None,
            };
            if let Some(e) = e {
                refused[i] = true;
                if seen.insert(e.to_string()) {
                    problems.push(e);
                }
            }
        }
    }
    let mut specs: Vec<JobSpec> = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        if refused[i] {
            continue;
        }
        // Every bad value, not only the first: after a problem, the option it names is set
        // aside (its default applies) and the job is read again, until it reads cleanly.
        let mut opts = job_opts[i].clone();
        let mut clean = true;
        for _ in 0..=opts.len() {
            match resolve(&opts, &job.name, &job.at) {
                Ok(spec) => {
                    if clean {
                        specs.push(spec);
                    }
                    break;
                }
                Err(e) => {
                    clean = false;
                    let culprit = opts.iter().rposition(|o| o.at.is_where(&e));
                    if seen.insert(e.to_string()) {
                        problems.push(e);
                    }
                    match culprit {
                        Some(k) => {
                            opts.remove(k);
                        }
                        None => break,
                    }
                }
            }
        }
    }
    problems.finish()?;
    if specs.is_empty() {
        return Err(Error::Workload("the fio workload defines no jobs".into()));
    }
    Ok(Jobs {
        specs,
        ignored_flags,
        vars_used: vars.used,
    })
}

/// The sector map the jobs share when some job's writes are SCSI commands other than WRITE
/// (`sg_write_mode`, see [`sg`]), with a note per such job; `None` when none is.
#[allow(clippy::type_complexity)]
fn sg_commands(
    specs: &[JobSpec],
    stacked: bool,
    zoned: bool,
    preconditioned_bytes: u64,
) -> Result<Option<(Arc<Mutex<sg::SgShared>>, Vec<String>)>> {
    let mut notes = Vec::new();
    for s in specs {
        let m = s.source.sg_mode;
        if m == sg::SgMode::Write {
            continue;
        }
        if stacked || zoned {
            return Err(Error::Workload(format!(
                "job `{}`: sg_write_mode: {} commands address a SCSI disk's blocks, {}",
                s.name,
                m.command(),
                if stacked {
                    "not a file of a file system ([stack])"
                } else {
                    "not a zoned device's zones"
                }
            )));
        }
        notes.push(format!(
            "job `{}`: each write is a {} command ({} of a {}-byte command's bytes go to the device): {}",
            s.name,
            m.command(),
            m.data_out(s.source.max_bs),
            s.source.max_bs,
            match m {
                sg::SgMode::WriteSameNdob =>
                    "the range becomes zeros, timed as a write of the range (NDOB sends no data; the simulated link still carries the write's bytes)",
                sg::SgMode::Verify(_) =>
                    "timed as a device read of its range, compared 512-byte sector by sector with what the run wrote there",
                sg::SgMode::Write => unreachable!("skipped above"),
            }
        ));
    }
    if notes.is_empty() {
        return Ok(None);
    }
    Ok(Some((
        Arc::new(Mutex::new(sg::SgShared::new(preconditioned_bytes))),
        notes,
    )))
}

mod layout {
    //! Where each job clone's files lie on the device, as fio lays them out: a job gets its
    //! own files (`$jobname.$jobnum.$filenum`, `nrfiles` of them) unless jobs name the same
    //! `filename`; a `/dev/...` name (or any name of a block engine such as `sg`) is the
    //! whole device. Files are placed one after another from byte 0 in order of first use,
    //! each 4 KiB aligned, at the largest size any job needs of it.

    use super::gen::{Mix, SourceSpec};
    use super::resolve::JobSpec;
    use super::{Offset, NOT_STORAGE};
    use crate::error::{Error, Result};
    use crate::workload::LayoutFill;
    use std::collections::BTreeMap;

    /// A clone's file names (fio's rules) and whether they name the device.
    fn names(spec: &JobSpec, clone: u32) -> Vec<(String, bool)> {
        let f = &spec.files;
        if f.filename.is_none() && f.size.is_none() && f.filesize.is_none() {
            // No file and no size: the whole device (fio would ask for a size; flashpress
            // has always run such a job on the device, as with `filename=/dev/...`).
            return vec![(DEVICE.to_string(), true)];
        }
        let join = |n: &str| match &f.directory {
            Some(d) if !n.starts_with('/') => format!("{}/{n}", d.trim_end_matches('/')),
            _ => n.to_string(),
        };
        let list: Vec<String> = match &f.filename {
            Some(fname) => {
                // fio: `:` separates names; `\:` is a colon inside a name.
                let mut out = Vec::new();
                let mut cur = String::new();
                let mut chars = fname.chars().peekable();
                while let Some(c) = chars.next() {
                    if c == '\\' && chars.peek() == Some(&':') {
                        cur.push(':');
                        chars.next();
                    } else if c == ':' {
                        out.push(std::mem::take(&mut cur));
                    } else {
                        cur.push(c);
                    }
                }
                out.push(cur);
                out.into_iter()
                    .filter(|n| !n.is_empty())
                    .map(|n| join(&n))
                    .collect()
            }
            None => {
                let fmt = f.format.as_deref().unwrap_or("$jobname.$jobnum.$filenum");
                (0..f.nrfiles)
                    .map(|k| {
                        join(
                            &fmt.replace("$jobname", &spec.name)
                                .replace("$jobnum", &clone.to_string())
                                .replace("$filenum", &k.to_string())
                                .replace("$clientuid", "0"),
                        )
                    })
                    .collect()
            }
        };
        list.into_iter()
            .map(|n| {
                let dev = n.starts_with("/dev/") || (f.block_engine && f.filename.is_some());
                (n, dev)
            })
            .collect()
    }

    /// The name standing for the device when a job names none.
    const DEVICE: &str = "(the device)";

    /// Place every clone's files; the clones' generator specs, by job and clone.
    pub(super) fn place(specs: &mut [JobSpec], capacity: u64, stacked: bool) -> Result<Placed> {
        // Pass 1: each clone's files, its region inside them, and each file's extent.
        struct Want {
            names: Vec<String>,
            start: u64,
            len: u64,
            /// `size` when `filesize` sizes the files: the I/O to do.
            io_total: Option<u64>,
            /// The job's smallest block size (the region is a multiple of it).
            min_bs: u64,
        }
        // The file a `fill_device`/`fill_fs` job fills (fio writes it until the file system
        // is full, ENOSPC ending the job), with the job's line: its size is what the other
        // files leave of the device, known once they all are.
        let mut fill_file: Option<(String, super::Origin)> = None;
        let mut extent: BTreeMap<String, u64> = BTreeMap::new();
        let mut order: Vec<String> = Vec::new();
        let mut users: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut first_at: BTreeMap<String, super::Origin> = BTreeMap::new();
        let mut device: Option<String> = None;
        let mut wants: Vec<Vec<Want>> = Vec::new();
        // fio sets up every job's files before any job starts (`create_serialize`, the
        // default, in job order); a file smaller than a job needs is extended, and
        // `extend_file` (filesetup.c) lays it out, writing it whole from byte 0 ("fio does
        // that for operations involving reads"), when the job reads; a job that only writes
        // just allocates it (fallocate), so a later reader finds it at its size and reads it
        // as it is. Each file's size after set-up so far, and the layouts (file, bytes).
        let mut set_up: BTreeMap<String, u64> = BTreeMap::new();
        // fio's `extend_file` runs in the thread of the job whose set-up extends the file and
        // fills each piece with that job's `fill_io_buffer`: the fill is that job's (a
        // file laid out for several jobs holds the last extender's data, written whole).
        let mut laid: Vec<(String, u64, LayoutFill)> = Vec::new();
        let mut laid_by: Vec<usize> = Vec::new();
        // The stream of each job's clone 0 ([`load`] makes one stream per clone, in order).
        let mut first_stream = 0usize;
        for (job, spec) in specs.iter().enumerate() {
            let reads = matches!(spec.source.mix, Mix::Rw { read_pct } if read_pct > 0);
            let at = &spec.size_at;
            let mut per_job = Vec::new();
            for clone in 0..spec.numjobs {
                let files = names(spec, clone);
                if files.is_empty() {
                    return Err(at.err(format!("job `{}`: `filename` names no file", spec.name)));
                }
                let n = files.len() as u64;
                let is_dev = files.iter().any(|f| f.1);
                if let Some((bad, _)) = files.iter().find(|f| NOT_STORAGE.contains(&f.0.as_str())) {
                    return Err(at.err(format!(
                        "job `{}`: `{bad}` is a character device that stores nothing; flashpress simulates an SSD",
                        spec.name
                    )));
                }
                if is_dev && files.iter().any(|f| !f.1) {
                    return Err(
                        at.err(format!("job `{}` names both a device and files", spec.name))
                    );
                }
                // The space each file offers: the device, or the file's own size.
                let file_room = if is_dev {
                    capacity
                } else {
                    spec.files.filesize.unwrap_or(0)
                };
                let of = |o: Offset, room: u64| -> u64 {
                    match o {
                        Offset::Bytes(b) => b,
                        Offset::Percent(p) => (room as f64 * p / 100.0) as u64,
                    }
                };
                // What a percentage `offset` is a share of: fio's `real_file_size` when
                // get_start_offset runs (filesetup.c, setup_files): the device's size or,
                // for a file, `size / nrfiles` ("if (f->real_file_size == -1ULL &&
                // td->o.size) f->real_file_size = td->o.size / td->o.nr_files"), even with
                // `filesize` and even when an earlier job writes the file (fio 3.33's iolog:
                // `offset=10% size=8k` reads from 4 KiB of a 1 MiB file another job wrote).
                let pct_room = match spec.files.size {
                    _ if is_dev => file_room,
                    Some(Offset::Bytes(b)) => b / n,
                    _ if spec.files.filesize.is_some() => file_room,
                    _ => capacity,
                };
                let increment = of(spec.files.offset_increment, pct_room);
                let mut start = of(spec.files.offset, pct_room)
                    .saturating_add(u64::from(clone).saturating_mul(increment));
                if matches!(spec.files.offset, Offset::Percent(_))
                    || matches!(spec.files.offset_increment, Offset::Percent(_))
                {
                    // fio (get_start_offset in filesetup.c): a percentage offset or
                    // increment (plus the clone's increment) is aligned up, "at
                    // ceiling(offset / align_bs) * align_bs", align_bs being `offset_align`
                    // when given, else the minimum block size. Byte values are left as
                    // written (fio's HOWTO: offset_align applies to percentages only).
                    let a = match spec.files.offset_align {
                        0 => spec.source.min_bs,
                        a => a,
                    };
                    start = start.div_ceil(a).saturating_mul(a);
                }
                if is_dev && start >= capacity {
                    return Err(at.err(format!(
                        "job `{}` clone {clone} starts at byte {start} (offset + clone x offset_increment), at or past the device's logical capacity of {capacity} bytes",
                        spec.name
                    )));
                }
                // With `filesize`, `size` is the I/O over the files (fio goes round them
                // again when it is larger); the region is what the file holds.
                // fio: `filesize` sizes the files; `size` is then only the I/O to do.
                let io_total = match (spec.files.size, spec.files.filesize) {
                    (Some(s @ Offset::Bytes(_)), Some(_)) => Some(of(s, pct_room)),
                    _ => None,
                };
                let len = match (spec.files.size, spec.files.filesize) {
                    // fio (setup_files in filesetup.c, size_percent): the region is that
                    // share of the whole file, at most what lies after the offset, rounded
                    // down to the minimum block size.
                    (Some(p @ Offset::Percent(_)), _) if is_dev || spec.files.filesize.is_some() => {
                        of(p, file_room).min(file_room.saturating_sub(start))
                    }
                    (Some(_), Some(fs)) => fs.saturating_sub(start),
                    (Some(s), None) => of(s, pct_room) / n,
                    (None, Some(fs)) => fs.saturating_sub(start),
                    (None, None) if is_dev || stacked => capacity.saturating_sub(start),
                    (None, None) if spec.files.fill => {
                        if files.len() > 1 {
                            return Err(at.err(format!(
                                "job `{}`: fill_device/fill_fs over {} files: flashpress fills one file to the device's end; give the job one file",
                                spec.name,
                                files.len()
                            )));
                        }
                        match &fill_file {
                            Some((other, _)) if *other != files[0].0 => {
                                return Err(at.err(format!(
                                    "job `{}` fills the file `{}` after `{other}` already filled the device (fio: no space left)",
                                    spec.name, files[0].0
                                )))
                            }
                            _ => fill_file = Some((files[0].0.clone(), at.clone())),
                        }
                        // For now the whole device; cut to the file's size below.
                        capacity.saturating_sub(start)
                    }
                    // fio (setup_files): a job with no size uses its files' size as set up by
                    // the jobs before it ("if (!o->size ...) o->size = total_size").
                    (None, None) if files.iter().all(|f| extent.contains_key(&f.0)) => files
                        .iter()
                        .map(|f| extent[&f.0])
                        .min()
                        .unwrap_or(0)
                        .saturating_sub(start),
                    (None, None) => {
                        return Err(at.err(format!(
                            "job `{}` writes to the file `{}` but gives no `size` or `filesize` (fio: \"you need to specify size=\")",
                            spec.name, files[0].0
                        )))
                    }
                };
                let len = len / spec.source.min_bs * spec.source.min_bs;
                if len < spec.source.max_bs {
                    return Err(at.err(format!(
                        "job `{}`: the region of {len} bytes is smaller than the largest block size {}",
                        spec.name, spec.source.max_bs
                    )));
                }
                let need = spec
                    .files
                    .filesize
                    .unwrap_or(0)
                    .max(start.saturating_add(len));
                for (name, dev) in &files {
                    if *dev {
                        if let Some(d) = &device {
                            if d != name && d != DEVICE && name != DEVICE {
                                return Err(at.err(format!(
                                    "jobs address two devices, `{d}` and `{name}`; flashpress simulates one SSD"
                                )));
                            }
                        }
                        device = Some(name.clone());
                        if need > capacity {
                            return Err(at.err(format!(
                                "job `{}` ends at byte {need}, past the device's logical capacity of {capacity} bytes",
                                spec.name
                            )));
                        }
                        continue;
                    }
                    if !extent.contains_key(name) {
                        order.push(name.clone());
                    }
                    let size = set_up.entry(name.clone()).or_insert(0);
                    if need > *size {
                        *size = need;
                        if reads {
                            let piece = spec.layout_piece;
                            let fill = match &spec.layout_pattern {
                                Some(p) => LayoutFill::Pattern {
                                    pattern: p.clone(),
                                    piece,
                                },
                                None => LayoutFill::Stream {
                                    stream: first_stream + clone as usize,
                                    piece,
                                },
                            };
                            laid.push((name.clone(), need, fill));
                            laid_by.push(job);
                        }
                    }
                    let e = extent.entry(name.clone()).or_insert(0);
                    *e = (*e).max(need);
                    first_at.entry(name.clone()).or_insert_with(|| at.clone());
                    let u = users.entry(name.clone()).or_default();
                    if !u.contains(&spec.name) {
                        u.push(spec.name.clone());
                    }
                }
                per_job.push(Want {
                    names: files.into_iter().map(|f| f.0).collect(),
                    start,
                    len,
                    io_total,
                    min_bs: spec.source.min_bs,
                });
            }
            wants.push(per_job);
            first_stream += spec.numjobs as usize;
        }
        if device.is_some() && !order.is_empty() {
            return Err(Error::Workload(format!(
                "the jobs use both the device `{}` and files ({}); on one simulated SSD they would overlap",
                device.as_deref().unwrap_or(""),
                order.iter().take(3).cloned().collect::<Vec<_>>().join(", ")
            )));
        }
        if let (Some((fill, at)), false) = (&fill_file, stacked) {
            // The filled file ends where the device does: it gets what the other files
            // leave, and every region in it ends there.
            let others = order.iter().filter(|n| *n != fill).fold(0u64, |a, n| {
                a.saturating_add(extent[n])
                    .div_ceil(4096)
                    .saturating_mul(4096)
            });
            let room = capacity.saturating_sub(others) / 4096 * 4096;
            extent.insert(fill.clone(), room);
            for w in wants.iter_mut().flatten() {
                if w.names.iter().any(|n| n == fill) {
                    if w.start >= room {
                        return Err(at.err(format!(
                            "fill_device/fill_fs: the file `{fill}` has room for {room} bytes (the device's {capacity} logical bytes less {others} of other files), and a job starts at byte {} of it",
                            w.start
                        )));
                    }
                    w.len = w.len.min(room - w.start) / w.min_bs * w.min_bs;
                    if w.len == 0 {
                        return Err(at.err(format!(
                            "fill_device/fill_fs: the file `{fill}` has room for {room} bytes, less than a block after a job's start at byte {}",
                            w.start
                        )));
                    }
                }
            }
            for l in laid.iter_mut().filter(|l| l.0 == *fill) {
                l.1 = l.1.min(room);
            }
        }
        // Pass 2: bases.
        let mut base: BTreeMap<String, u64> = BTreeMap::new();
        if stacked {
            // Each clone's requests address its own file of the file system: its fio files
            // lie one after another inside it.
            for name in &order {
                if users[name].len() > 1 {
                    return Err(Error::Workload(format!(
                        "under [stack] each fio job clone has its own file; the file `{name}` shared by jobs {} is not supported",
                        users[name].join(", ")
                    )));
                }
            }
        } else {
            let mut next = 0u64;
            for name in &order {
                base.insert(name.clone(), next);
                next = next
                    .saturating_add(extent[name])
                    .div_ceil(4096)
                    .saturating_mul(4096);
            }
            if next > capacity {
                let mut sizes: Vec<String> = order
                    .iter()
                    .take(4)
                    .map(|n| format!("{n}: {} bytes", extent[n]))
                    .collect();
                if order.len() > 4 {
                    sizes.push(format!("and {} more", order.len() - 4));
                }
                // Named at the `size` of the first job of the file that crosses the end.
                let mut end = 0u64;
                let culprit = order
                    .iter()
                    .find(|n| {
                        end = end
                            .saturating_add(extent[*n])
                            .div_ceil(4096)
                            .saturating_mul(4096);
                        end > capacity
                    })
                    .and_then(|n| first_at.get(n));
                let msg = format!(
                    "the jobs' {} files need {next} bytes ({}), more than the device's {capacity} logical bytes",
                    order.len(),
                    sizes.join(", ")
                );
                return Err(match culprit {
                    Some(at) => at.err(msg),
                    None => Error::Workload(msg),
                });
            }
        }
        // Under [stack] the file system lays out each stream's file itself.
        let layout = if stacked {
            Vec::new()
        } else {
            laid.iter()
                .map(|(n, bytes, fill)| (base[n], *bytes, fill.clone()))
                .collect()
        };
        // A reading job's `buffer_pattern`/`zero_buffers` is what its layout writes, not an
        // ignored option.
        for &job in laid_by.iter().filter(|_| !stacked) {
            specs[job]
                .ignored
                .retain(|(k, _)| k != "buffer_pattern" && k != "zero_buffers");
        }
        // Pass 3: each clone's generator spec.
        let mut out = Vec::new();
        for (spec, per_job) in specs.iter_mut().zip(wants) {
            let mut clones = Vec::new();
            for w in per_job {
                let mut s = spec.source.clone();
                let mut off = 0u64;
                s.files = w
                    .names
                    .iter()
                    .map(|n| {
                        if stacked {
                            let b = off;
                            off = off.saturating_add(extent.get(n).copied().unwrap_or(0));
                            if extent.contains_key(n) {
                                b
                            } else {
                                0
                            }
                        } else {
                            base.get(n).copied().unwrap_or(0)
                        }
                    })
                    .collect();
                s.file_ends = w
                    .names
                    .iter()
                    .map(|n| extent.get(n).copied().unwrap_or(capacity))
                    .collect();
                s.region_start = w.start;
                s.region_len = w.len;
                let nfiles = s.files.len() as u64;
                // fio's `size`: the I/O of one round, all files together.
                s.size_bytes = w.io_total.unwrap_or(w.len.saturating_mul(nfiles));
                if !s.time_based && s.io_limit.is_none() {
                    s.io_limit = Some(s.size_bytes);
                }
                if let Some(pct) = s.dedupe_ws_pct {
                    s.dedupe_working_set =
                        Some((w.len.saturating_mul(nfiles) * u64::from(pct) / 100 / 4096).max(1));
                }
                clones.push(s);
            }
            out.push(clones);
        }
        Ok(Placed { specs: out, layout })
    }

    /// Where the jobs' files lie, and which of them fio writes before the jobs start.
    pub(super) struct Placed {
        /// The clones' generator specs, by job and clone.
        pub specs: Vec<Vec<SourceSpec>>,
        /// Files laid out before the run: (device byte address, bytes, what fio writes
        /// there), in set-up order.
        pub layout: Vec<(u64, u64, LayoutFill)>,
    }
}
