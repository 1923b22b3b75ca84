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
//!
//! Set `content.ratio_scope = "file"` to draw one ratio per file (Zipfian over files, as the
//! seeds assume) instead of one per 4 KiB block.
//!
//! # Streams
//!
//! Every thread instance (`instances` of the thread × `instances` of its process) is one
//! closed-loop stream of depth 1 named `process.P/thread.T`, looping over its flowops until
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
//! - `read`, `write`, `aiowrite` (as `write`): `random` offsets are multiples of `iosize`
//!   within the working set (`workingset`, or the whole file when 0); otherwise the file
//!   position advances sequentially (reads wrap at the end). Without `fd`, a flowop opens its
//!   own file from `filesetname` once, or the next existing file on every execution with
//!   `opennext`. An I/O flowop naming both `fd` and `filesetname` opens a file on `fd` if it
//!   is not open (webserver's log append).
//! - `iters=N` runs the flowop N times per pass.
//! - No I/O, and so nothing issued: `statfile` (metadata only), `fsync` (a file-level
//!   [`crate::workload::Request`] has no flush; writes are durable on completion), `aiowait`
//!   (the simulator's writes complete in order), `hog` (CPU time only), `semblock`,
//!   `sempost` and `eventlimit`. The synchronisation flowops are ignored: a closed-loop
//!   stream cannot block on another stream, so OLTP's log writer and database writers run
//!   unthrottled instead of once per 3200 / 1000 shadow reads, and each thread's rate is set
//!   by its own latencies.
//! - Accepted and meaningless in a simulator without a host file system, page cache or CPU
//!   model: `path`, `dirwidth`, `dirgamma`, `reuse`, `readonly`, `cached`, `trusttree`,
//!   `paralloc` (fileset); `memsize`, `useism` (thread); `nice` (process); `dsync`,
//!   `directio`, `value`, `highwater`, `target`, `blocking` (flowops); `echo`;
//!   `eventgen rate=0` (no event generator; a positive rate is an error).
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
//! | oltp | random, 2 KB–256 KB, 1:9 | 200 shadows reading 2 KiB, 10 writers writing 2 KiB (100 per pass), 1 log writer writing 256 KiB, all at random iosize-aligned offsets | 19.8:1, 10.0:1, 2.0 KB / 4.1 KB | 211 + prealloc, 10 + 1 |
//!
//! OLTP's mix is not COCO's 1:9: with the semaphores ignored each thread runs at the rate its
//! own latencies allow, so the 200 readers dominate; in Filebench the writers are gated by
//! the readers' posts (10 × 100 writes of 2 KiB per 1000 reads, plus 256 KiB of log per
//! 3200), about 1:1 in bytes. Lower `nshadows` (a `vars` entry) to shift the mix towards
//! writes.

mod gen;
mod parse;

#[cfg(test)]
mod tests;

use crate::config::{FilebenchWorkload, OptionValue, RatioDist};
use crate::error::{Error, Result};
use crate::workload::fio::splitmix64;
use crate::workload::{ContentHints, Drive, FileAttrs, FileType, Hotness, Stream};
use gen::{entry_sizes, FileState, PreallocSource, SetState, Shared, ThreadSource, ThreadSpec};
use parse::{builtin_path, Override};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

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
            content: hints,
            layout_bytes: 0,
        });
        1
    };
    for p in &script.processes {
        for t in &p.threads {
            let spec = Arc::new(ThreadSpec {
                flowops: t.flowops.clone(),
                runtime_ns,
            });
            for pi in 0..p.instances {
                for ti in 0..t.instances {
                    let k = streams.len() as u64;
                    let source = ThreadSource::new(Arc::clone(&spec), Arc::clone(&world), {
                        splitmix64(seed ^ splitmix64(k.wrapping_mul(0x9e37_79b9)))
                    });
                    streams.push(Stream {
                        name: format!("{}.{pi}/{}.{ti}", p.name, t.name),
                        source: Box::new(source),
                        drive: Drive::Closed { depth: 1 },
                        group,
                        content: hints,
                        layout_bytes: 0,
                    });
                }
            }
        }
    }
    Ok(streams)
}
