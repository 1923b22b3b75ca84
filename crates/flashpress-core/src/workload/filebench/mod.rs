//! Filebench personalities (webserver, varmail, fileserver, OLTP — the real workloads of the
//! Waltz §6.1 / Table 3 and COCO evaluations) driven by Filebench's own `.f` files, turned
//! into file-level closed-loop streams.
//!
//! # Config (`[workload] type = "filebench"`)
//!
//! | key | meaning |
//! |---|---|
//! | `personality` | built-in `webserver`, `varmail`, `fileserver` or `oltp`: the `.f` files of filebench/filebench at commit 22620e6 (`configs/filebench/`, CDDL), embedded unchanged |
//! | `path` | a user `.f` file; with `personality` too, the file's text is used with that personality's file attributes and ratio default |
//! | `vars` | replacements for the file's `set $name=...` values (keys without `$`; numbers, strings or `"cvar(...)"`); a name the file never sets is an error naming `workload.vars.NAME` |
//! | `runtime_s` | run time in seconds (default: the file's `run N`, else 60) |
//! | `ratio` | compression ratio distribution of the data written (a `content.ratio` table); default: the personality's range from the COCO table, Zipfian (exponent 1, 16 levels); `content.ratio` for a file without personality |
//! | `hog_ns_per_iteration` | simulated ns per iteration of the `hog` loop (0 to 1e6; default [`DEFAULT_HOG_NS_PER_ITERATION`] = 0.75) |
//!
//! Thread and process counts are the file's own (`instances`, `$nthreads` as the file sets
//! it); a `vars` entry replaces them only when given.
//!
//! Set `content.ratio_scope = "file"` to draw one ratio per file (Zipfian over files, as the
//! seeds assume) instead of one per 4 KiB block.
//!
//! # Streams
//!
//! Every thread instance (`instances` of the thread × `instances` of its process) is one
//! closed-loop stream of depth 1 named `process.P/thread.T` (in the order process, process
//! instance, thread, thread instance), looping over its flowops until
//! `runtime_s` has elapsed since its first request (checked before every request, so a
//! whole-file read may stop midway, as fio's `time_based` does). When some fileset is
//! preallocated (`prealloc`), a stream `prealloc` in stonewall group 0 first writes every
//! preallocated file in full (1 MiB requests, as Filebench allocates) and the threads run in
//! group 1; otherwise the threads are group 0. Filesets are shared by all streams, which see
//! each other's creates, deletes and appends in simulated order.
//!
//! # Requests and content ids
//!
//! - `file` = fileset index << 24 | entry number (so at most 255 filesets of 2^24 entries).
//! - `offset`/`len` are bytes within the file, as Filebench issues them (not block aligned:
//!   appends have random sizes and file sizes are gamma distributed).
//! - Writes and appends are `Op::Write` (an append writes at the file's current size, which
//!   the generator tracks; a file is created by its first write), reads `Op::Read`,
//!   `deletefile` `Op::Delete` (offset and len 0; nothing is issued for a file never written
//!   since it was created).
//! - Content id of a write: `file_key << 32 | (version mod 4096) << 20 | (block mod 2^20)`,
//!   where `file_key = (fileset index + 1) << 24 | entry` (never 0), `block` the 4 KiB block
//!   of the file holding the request's first byte (block `i` of the request has id + i), and
//!   `version` a per-file counter advanced by every write request. The preallocation writes
//!   are version 0, so a preallocated file's block `b` holds `file_key << 32 | b`; every later
//!   write gets fresh ids (unique up to 4096 writes of a file and 4 GiB files).
//! - `attrs` per personality and fileset (other filesets: data/warm):
//!
//! | personality | fileset | type / hotness | why |
//! |---|---|---|---|
//! | webserver | bigfileset | text / warm | HTML pages: read, never rewritten |
//! | webserver | logfiles | log / hot | the access log every thread appends to |
//! | varmail | bigfileset | log / hot | mail spool files: created, appended, fsynced, deleted within seconds |
//! | fileserver | bigfileset | data / warm | user files written whole, read, deleted |
//! | oltp | datafiles | db / hot | database tables under random 2 KiB updates |
//! | oltp | logfile | log / hot | the redo log |
//!
//! # Flowop semantics
//!
//! - File picks follow Filebench's `fileset_pick`: a uniformly random entry number, then the
//!   first entry of the wanted kind (existing for openfile/statfile/deletefile, absent for
//!   createfile) at or after it, wrapping. `deletefile` skips files some thread has open (a
//!   simulated file system cannot keep an unlinked file readable). When no entry qualifies
//!   the flowop does nothing (Filebench's "no resource") and the loop goes on; a thread
//!   whose whole loop pass issues nothing ends (a closed-loop stream cannot idle).
//! - `createfile` makes an empty file and opens it on `fd`; `openfile` opens a random existing
//!   file on `fd`; `closefile` closes `fd`.
//! - `writewholefile` writes the entry's assigned size (that of `srcfd`'s file when given)
//!   from offset 0 in `iosize` requests; `readwholefile` reads the file's current size from
//!   offset 0 in `iosize` requests.
//! - `appendfile` appends `iosize` bytes; `appendfilerand` a uniform 0..=`iosize` bytes,
//!   skipping a zero-length draw (Filebench's rule; mean `iosize / 2`).
//! - `read`, `write`, `aiowrite`: `random` offsets are multiples of `iosize`
//!   within the working set (`workingset`, or the whole file when 0); otherwise the file
//!   position advances sequentially (reads wrap at the end). Without `fd`, a flowop opens its
//!   own file from `filesetname` once, or the next existing file on every execution with
//!   `opennext`. An I/O flowop naming both `fd` and `filesetname` opens a file on `fd` if it
//!   is not open (webserver's log append).
//! - `iters=N` runs the flowop N times per pass.
//! - `aiowrite` issues its write without waiting for it ([`crate::workload::Next::IssueAsync`]);
//!   `aiowait` is Filebench's Linux one (no `aio_waitn`): it reaps what has completed and
//!   waits only while more than 4096 (`MAXREAP`) of the thread's writes are outstanding.
//!   glibc's POSIX AIO runs each file descriptor's requests in order on helper threads;
//!   here they go to the device together.
//! - `hog value=N`: the thread is busy for N × `hog_ns_per_iteration` ns (a think time; the
//!   host CPU model does not see it, so hogging threads do not compete for cores).
//! - `semblock` and `sempost` (with `value`, `highwater`, `target`, `blocking`): Filebench's
//!   System V semaphore semantics, see its `sync` module: every semblock instance owns a low- and a
//!   high-water count; a post goes to every instance of the semblock flowop named `target`.
//!   A blocked thread waits ([`crate::workload::Next::Wait`]) until a post or semblock of
//!   another thread completes its operation, or until its run time is over.
//! - `eventlimit`: with `eventgen rate=0` (the only rate accepted) Filebench has no event
//!   generator and eventlimit returns at once; so here.
//! - `fsync` issues an [`Op::Sync`](crate::workload::Op::Sync) of the file open on its `fd`
//!   (nothing when none is open or the file was never written); `dsync` and `directio` set
//!   the flowop's requests' O_DSYNC / O_DIRECT bits ([`crate::workload::FileAttrs::DSYNC`],
//!   [`crate::workload::FileAttrs::DIRECT`]). They matter under `[stack]` with the page
//!   cache on (`stack.cache`); without it every write is durable on completion.
//! - No I/O, and so nothing issued: `statfile` (metadata only).
//! - Accepted and meaningless in a simulator without a CPU model for them: `path`,
//!   `dirwidth`, `dirgamma`, `reuse`, `readonly`, `cached`, `trusttree`, `paralloc`
//!   (fileset); `memsize`, `useism` (thread); `nice` (process); `echo`; `eventgen rate=0`
//!   (no event generator; a positive rate is an error).
//! - Refused with the file, line and flowop named: every other flowop, among them `block`,
//!   `wakeup`, `delay`, `iopslimit`, `opslimit`, `bwlimit`, `finishoncount`,
//!   `finishonbytes` (none of the four personalities uses them).
//! - Fileset sizes: `size=N` or a `cvar(type=cvar-gamma,parameters=mean:M;gamma:G)`
//!   variable, drawn per entry from a gamma distribution of shape G and scale M/G (Filebench's
//!   cvar-gamma: mean M, variance M²/G), rounded to bytes; sizes are at most 4 GiB (draws
//!   above are clamped). `prealloc=P` makes each entry
//!   exist at the start with probability P% (bare `prealloc`: all).
//!
//! Anything else — another flowop, statement, option or cvar type — is an
//! [`Error::JobFile`] naming the line.
//!
//! # The seeds' characterisation and what these generators produce
//!
//! COCO's table gives pattern, I/O size, R:W and ratio range. "Measured" is a 0.2 s run of
//! each built-in personality with its default variables in the test driver
//! (`tests::characterisation`: one request in flight per stream, each taking 20 µs + 1 ns
//! per byte), counted after preallocation; ratios are reads : writes.
//!
//! | personality | COCO: pattern, I/O size, R:W | the flowop loop implies | measured: ops R:W, bytes R:W, mean read / write | streams, files |
//! |---|---|---|---|---|
//! | webserver | sequential, 16 KB–1 MB, 9:1 | 10 whole-file reads (gamma mean 16 KiB, read from offset 0) per log append (mean 8 KiB): 10:1 ops, 20:1 bytes | 10.0:1, 20.8:1, 17.0 KB / 8.2 KB | 100 + prealloc, 1000 pages + 1 log |
//! | varmail | sequential, 1 MB (iosize), 1:1 | per pass delete, create + append, fsync, whole-file read + append, whole-file read: 1:1 ops | 1.00:1, 2.0:1, 16.5 KB / 8.2 KB | 16 + prealloc, 1000 |
//! | fileserver | random, 16 KB, 1:2 | per pass create + whole-file write (gamma mean 128 KiB), append (mean 8 KiB), whole-file read of a random file, delete: 1:2 ops, ~1:1 bytes | 0.50:1, 0.99:1, 136.9 KB / 69.5 KB | 50 + prealloc, 10000 |
//! | oltp | random, 2 KB–256 KB, 1:9 | 200 shadows reading 2 KiB; their semaphore posts let each of 10 writers write 100 × 2 KiB per 1000 reads and the log writer 256 KiB per 3200: 1 : 1.0003 ops, 1 : 1.04 bytes | 1.00:1, 0.96:1, 2.0 KB / 2.1 KB | 211 + prealloc, 10 + 1 |
//!
//! OLTP's mix is not COCO's 1:9, and the file does not imply it: the semaphores tie the
//! writers to the readers at about 1:1 (see `tests::oltp_semaphores_set_the_read_write_mix`).
//! Before the semaphores were modelled each thread ran at its own pace and the 200 readers
//! made it 19.8:1.

mod gen;
mod parse;
mod sync;

#[cfg(test)]
mod tests;

use crate::config::{FilebenchWorkload, OptionValue, RatioDist};
use crate::error::{Error, Result};
use crate::workload::fio::splitmix64;
use crate::workload::{ContentHints, Drive, FileAttrs, FileType, Hotness, Stream};
use gen::{
    entry_sizes, FileState, PreallocSource, SetState, Shared, SharedSems, ThreadSource, ThreadSpec,
};
use parse::Kind;
use parse::{builtin_path, Override};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use sync::{Sem, SemTable};

/// Default simulated time of one iteration of Filebench's `hog` loop, ns: the loop body
/// (`*(threadflow->tf_mem) = 1`, built by GCC -O2 as a reload of the pointer and a byte
/// store per iteration, since a `char` store may alias the pointer) measured at 4.3 cycles
/// per iteration on this project's build machine (1.54 ns at 2.8 GHz), taken at the seed
/// testbed's 5.7 GHz clock (Waltz Table 3, R9-7950X): 4.3 / 5.7 = 0.75 ns.
pub const DEFAULT_HOG_NS_PER_ITERATION: f64 = 0.75;

/// Names of the built-in personalities.
pub const PERSONALITIES: &[&str] = &["webserver", "varmail", "fileserver", "oltp"];

/// The built-in `.f` files, unchanged from filebench/filebench at commit 22620e6.
const BUILTIN: &[(&str, &str)] = &[
    (
        "webserver",
        include_str!("../../../../../configs/filebench/webserver.f"),
    ),
    (
        "varmail",
        include_str!("../../../../../configs/filebench/varmail.f"),
    ),
    (
        "fileserver",
        include_str!("../../../../../configs/filebench/fileserver.f"),
    ),
    (
        "oltp",
        include_str!("../../../../../configs/filebench/oltp.f"),
    ),
];

/// Attributes of a personality's fileset (data/warm for any other).
fn attrs_for(personality: Option<&str>, fileset: &str) -> FileAttrs {
    use FileType::*;
    use Hotness::*;
    let (h, t) = match (personality, fileset) {
        (Some("webserver"), "bigfileset") => (Warm, Text),
        (Some("webserver"), "logfiles") => (Hot, Log),
        (Some("varmail"), "bigfileset") => (Hot, Log),
        (Some("oltp"), "datafiles") => (Hot, Db),
        (Some("oltp"), "logfile") => (Hot, Log),
        _ => (Warm, Data),
    };
    FileAttrs::new(h, t)
}

/// The COCO table's compression ratio range of a personality, Zipfian over the range.
pub fn default_ratio(personality: &str) -> Option<RatioDist> {
    let (min, max) = match personality {
        "webserver" => (1.0, 2.0),
        "varmail" | "fileserver" => (2.0, 3.0),
        "oltp" => (3.0, 4.0),
        _ => return None,
    };
    Some(RatioDist::Zipf {
        min,
        max,
        exponent: 1.0,
        levels: 16,
    })
}

fn var_text(v: &OptionValue) -> String {
    match v {
        OptionValue::Bool(b) => b.to_string(),
        OptionValue::Int(i) => i.to_string(),
        OptionValue::Float(f) => f.to_string(),
        OptionValue::Str(s) => s.clone(),
    }
}

/// Build the streams of a Filebench workload: a preallocation stream when any file is
/// preallocated, then one closed-loop stream (depth 1) per thread instance. `seed` is the
/// run seed (file sizes, preallocation and every thread's choices derive from it).
pub fn load_streams(cfg: &FilebenchWorkload, seed: u64) -> Result<Vec<Stream>> {
    cfg.validate("config")?;
    let personality = cfg.personality.as_deref();
    let (path, text): (PathBuf, String) = match (&cfg.path, personality) {
        (Some(p), _) => {
            let bytes = std::fs::read(p).map_err(|e| Error::io(p, e))?;
            let text = String::from_utf8(bytes).map_err(|_| Error::JobFile {
                path: p.clone(),
                line: 1,
                msg: "the file is not valid UTF-8".into(),
            })?;
            (p.clone(), text)
        }
        (None, Some(name)) => {
            let text = BUILTIN
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, t)| t.to_string())
                .ok_or_else(|| {
                    Error::config(
                        "config",
                        "workload.personality",
                        format!("unknown personality `{name}`"),
                    )
                })?;
            (builtin_path(name), text)
        }
        (None, None) => {
            return Err(Error::config(
                "config",
                "workload",
                "a filebench workload needs `personality` or `path`",
            ))
        }
    };
    let overrides: BTreeMap<String, Override> = cfg
        .vars
        .iter()
        .map(|(k, v)| {
            let name = k.strip_prefix('$').unwrap_or(k).to_string();
            let o = Override {
                text: var_text(v),
                key: format!("workload.vars.{k}"),
            };
            (name, o)
        })
        .collect();
    let script = parse::parse(&path, &text, &overrides)?;
    let runtime_s = cfg.runtime_s.or(script.runtime_s).unwrap_or(60.0);
    let runtime_ns = (runtime_s * 1e9).round().min(u64::MAX as f64) as u64;
    let ratio = cfg.ratio.or_else(|| personality.and_then(default_ratio));
    let hints = ContentHints {
        compress_percentage: None,
        dedupe_percentage: 0,
        ratio,
        pattern: None,
    };

    // Filesets: sizes and preallocation, each from its own random stream.
    let mut sets = Vec::with_capacity(script.filesets.len());
    let mut prealloc = Vec::new();
    for (i, fs) in script.filesets.iter().enumerate() {
        let mut rng = Pcg64Mcg::seed_from_u64(splitmix64(
            seed ^ 0xf11e_5e75_0000_0000 ^ splitmix64(i as u64),
        ));
        let sizes = entry_sizes(fs.size, fs.entries, &mut rng);
        let mut files = Vec::with_capacity(sizes.len());
        let (mut exist, mut absent) = (BTreeSet::new(), BTreeSet::new());
        for (e, &target) in sizes.iter().enumerate() {
            let there = rng.random_range(0..100u32) < fs.prealloc_pct;
            let e = e as u32;
            if there {
                exist.insert(e);
                if target > 0 {
                    prealloc.push((i, e, target));
                }
            } else {
                absent.insert(e);
            }
            files.push(FileState {
                target,
                size: if there { target } else { 0 },
                open: 0,
                version: u32::from(there),
                written: there && target > 0,
            });
        }
        sets.push(SetState {
            files,
            exist,
            absent,
            attrs: attrs_for(personality, &fs.name),
        });
    }
    let attrs: Vec<FileAttrs> = sets.iter().map(|s| s.attrs).collect();
    let world: Shared = Arc::new(Mutex::new(sets));

    let mut streams = Vec::new();
    let group = if prealloc.is_empty() {
        0
    } else {
        streams.push(Stream {
            name: "prealloc".into(),
            source: Box::new(PreallocSource::new(prealloc, attrs)),
            drive: Drive::Closed { depth: 1 },
            group: 0,
            content: hints.clone(),
            layout_bytes: 0,
        });
        1
    };
    // One semaphore pair per semblock flowop of every thread instance, owned by the stream
    // that instance becomes (stream order: process, process instance, thread, thread instance).
    let mut table = SemTable::default();
    let mut by_name: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut own: Vec<Vec<Option<usize>>> = Vec::new();
    let mut k = streams.len();
    for p in &script.processes {
        for _ in 0..p.instances {
            for t in &p.threads {
                for _ in 0..t.instances {
                    let ids = t
                        .flowops
                        .iter()
                        .map(|f| {
                            (f.kind == Kind::SemBlock).then(|| {
                                table.sems.push(Sem::new(k as u32, f.highwater));
                                let id = table.sems.len() - 1;
                                by_name.entry(f.name.as_str()).or_default().push(id);
                                id
                            })
                        })
                        .collect();
                    own.push(ids);
                    k += 1;
                }
            }
        }
    }
    let sems: SharedSems = Arc::new(Mutex::new(table));
    let hog_ns = cfg
        .hog_ns_per_iteration
        .unwrap_or(DEFAULT_HOG_NS_PER_ITERATION);
    let mut own = own.into_iter();
    for p in &script.processes {
        let specs: Vec<Arc<ThreadSpec>> = p
            .threads
            .iter()
            .map(|t| {
                let targets = t
                    .flowops
                    .iter()
                    .map(|f| match (&f.kind, &f.target) {
                        (Kind::SemPost, Some(n)) => {
                            by_name.get(n.as_str()).cloned().unwrap_or_default()
                        }
                        _ => Vec::new(),
                    })
                    .collect();
                Arc::new(ThreadSpec {
                    flowops: t.flowops.clone(),
                    runtime_ns,
                    targets,
                    hog_ns_per_iteration: hog_ns,
                })
            })
            .collect();
        for pi in 0..p.instances {
            for (t, spec) in p.threads.iter().zip(&specs) {
                for ti in 0..t.instances {
                    let k = streams.len() as u64;
                    let source = ThreadSource::new(
                        Arc::clone(spec),
                        Arc::clone(&world),
                        splitmix64(seed ^ splitmix64(k.wrapping_mul(0x9e37_79b9))),
                        k as u32,
                        Arc::clone(&sems),
                        own.next().expect("one semaphore list per thread instance"),
                    );
                    streams.push(Stream {
                        name: format!("{}.{pi}/{}.{ti}", p.name, t.name),
                        source: Box::new(source),
                        drive: Drive::Closed { depth: 1 },
                        group,
                        content: hints.clone(),
                        layout_bytes: 0,
                    });
                }
            }
        }
    }
    Ok(streams)
}
