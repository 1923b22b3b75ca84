//! The documented physical range of every numeric config value, in one table, and the one
//! walker that enforces it over a resolved config (as the JSON it is written as).
//!
//! Ranges are generous (a simulator answers what-ifs: latencies from 10 ns to 1 s, not just
//! today's parts) but bounded, so that no single value can overflow nanosecond arithmetic
//! over a run, loop without end or size an allocation without bound. Checks between values
//! (a suspend shorter than the program it suspends, `hard_floor < threshold`) stay in the
//! `validate` functions beside the structs. `docs/config-ranges.md` is generated from
//! [`RANGES`] (a test checks it is current).

use crate::error::{Error, Result};
use serde_json::Value;

/// The documented range of one numeric config key (bounds included).
#[derive(Debug, Clone, Copy)]
pub struct Bound {
    /// Dotted key; `[]` stands for any array index, `*` for any one table key.
    pub key: &'static str,
    /// Smallest accepted value.
    pub min: f64,
    /// Largest accepted value.
    pub max: f64,
    /// Unit as written after the numbers (empty for counts and ratios).
    pub unit: &'static str,
    /// What the value is, physically (said in the error).
    pub what: &'static str,
}

const fn b(key: &'static str, min: f64, max: f64, unit: &'static str, what: &'static str) -> Bound {
    Bound {
        key,
        min,
        max,
        unit,
        what,
    }
}

const U32: f64 = u32::MAX as f64;
const U64: f64 = u64::MAX as f64;
const KIB: f64 = 1024.0;
const MIB: f64 = 1024.0 * KIB;
const GIB: f64 = 1024.0 * MIB;
const TIB: f64 = 1024.0 * GIB;

/// Keys whose values are another language's, checked by its own parser (fio options and
/// variables, Filebench variables): not in the table.
pub const FOREIGN: &[&str] = &["workload.global.*", "workload.jobs[].*", "workload.vars.*"];

/// Every numeric config key and its range (one line each: rustfmt would spread most over seven).
#[rustfmt::skip]
pub static RANGES: &[Bound] = &[
    b("seed", 0.0, U64, "", "a random seed"),
    // NAND array
    b("nand.channels", 1.0, 1024.0, "", "channels"),
    b("nand.chips_per_channel", 1.0, 1024.0, "", "chips per channel"),
    b("nand.dies_per_chip", 1.0, 64.0, "", "dies per chip"),
    b("nand.planes_per_die", 1.0, 64.0, "", "planes per die"),
    b("nand.blocks_per_plane", 1.0, 262_144.0, "", "erase blocks per plane"),
    b("nand.pages_per_block", 1.0, 16_384.0, "", "pages per block"),
    b("nand.page_size", 512.0, 256.0 * KIB, "bytes", "a NAND page"),
    b("nand.read_latency_us[]", 0.01, 1e6, "us", "a NAND page read"),
    b("nand.program_latency_us[]", 0.01, 1e6, "us", "a NAND program"),
    b("nand.erase_latency_us", 0.01, 1e6, "us", "a block erase"),
    b("nand.channel_mb_per_s", 0.01, 1e6, "MB/s", "a channel bus rate"),
    b("nand.power.vcc_v", 0.0, 100.0, "V", "a supply voltage"),
    b("nand.power.read_ma", 0.0, 1e5, "mA", "a read current"),
    b("nand.power.program_ma", 0.0, 1e5, "mA", "a program current"),
    b("nand.power.erase_ma", 0.0, 1e5, "mA", "an erase current"),
    b("nand.power.transfer_ma", 0.0, 1e5, "mA", "a transfer current"),
    b("nand.partial_read.unit_bytes", 64.0, 256.0 * KIB, "bytes", "a partial-read unit"),
    b("nand.partial_read.latency_factor", 0.01, 1.0, "", "a fraction of a full read's time"),
    b("nand.partial_read.current_factor", 0.01, 1.0, "", "a fraction of a full read's current"),
    // FTL
    b("ftl.op_ratio", 0.0, 0.99, "", "a fraction of the physical pages"),
    b("ftl.write_buffer_pages", 0.0, 1_048_576.0, "pages", "a DRAM write buffer"),
    b("ftl.map_cache.dram_bytes", 1.0, 1e15, "bytes", "a DRAM budget for map entries"),
    b("ftl.mapping_unit", 4.0 * KIB, 64.0 * KIB, "bytes", "a mapping unit (a power of two)"),
    b("ftl.gc.threshold", 1e-4, 0.99, "", "a fraction of a plane's blocks"),
    b("ftl.gc.background_threshold", 1e-4, 0.99, "", "a fraction of a plane's blocks"),
    b("ftl.gc.step_pages", 1.0, 16_384.0, "pages", "migrations per GC step"),
    b("ftl.gc.hard_floor", 0.0, 0.99, "", "a fraction of a plane's blocks"),
    b("ftl.compression.min_saving", 0.0, 0.99, "", "a fraction of a page"),
    b("ftl.compression.max_chunks_per_page", 1.0, 255.0, "", "compressed pages per flash page"),
    b("ftl.compression.compress_us", 0.0, 1e6, "us", "compressing one page"),
    b("ftl.compression.decompress_us", 0.0, 1e6, "us", "decompressing one page"),
    b("ftl.compression.split.lru_entries", 1.0, U32, "pages", "an LRU read history"),
    b("ftl.compression.split.max_split_pages", 2.0, U32, "pages", "a split table"),
    b("ftl.dedup.hash_us", 0.0, 1e6, "us", "fingerprinting one page"),
    b("ftl.dedup.hash_lanes", 1.0, 1024.0, "", "hash engine lanes"),
    b("ftl.dedup.cold_threshold", 1.0, U32, "", "a reference count"),
    b("ftl.dedup.index_cache.dram_bytes", 1.0, 1e15, "bytes", "a DRAM budget for index buckets"),
    // Controller and host
    b("controller.starvation_us", 0.01, 1e8, "us", "a wait before writes go first"),
    b("controller.ecc_decode_us", 0.0, 1e6, "us", "an ECC decode"),
    b("controller.suspend.program_suspend_us", 0.0, 1e6, "us", "suspending a program"),
    b("controller.suspend.erase_suspend_us", 0.0, 1e6, "us", "suspending an erase"),
    b("controller.suspend.resume_us", 0.0, 1e6, "us", "resuming a suspended operation"),
    b("controller.suspend.max_per_op", 1.0, 1024.0, "", "suspensions per operation"),
    b("host.link_mb_per_s", 0.01, 1e7, "MB/s", "a host link rate"),
    b("host.command_overhead_ns", 0.0, 1e9, "ns", "a per-request host cost"),
    // Preconditioning and statistics
    // zoned namespace
    b("zns.channels_per_zone", 1.0, 1024.0, "", "channels a zone spans"),
    b("zns.chips_per_zone", 1.0, 1024.0, "", "chips per channel a zone spans"),
    b("zns.blocks_per_plane", 1.0, 262_144.0, "", "blocks a zone takes per plane"),
    b("zns.zone_size", 4.0 * KIB, TIB, "bytes", "a zone's logical span"),
    b("zns.max_open_zones", 0.0, U32, "", "open zones (0: no limit)"),
    b("zns.max_active_zones", 0.0, U32, "", "active zones (0: no limit)"),
    b("zns.read_only_zones[]", 0.0, U32, "", "a zone number"),
    b("zns.offline_zones[]", 0.0, U32, "", "a zone number"),
    b("fdp.reclaim_groups", 1.0, 128.0, "", "reclaim groups (dividing the dies)"),
    b("fdp.ru_bytes", 4096.0, 1024.0 * TIB, "bytes", "a reclaim unit (whole erase blocks)"),
    b("zns.compression.min_saving", 0.0, 0.99, "", "a fraction of a page"),
    b("zns.compression.max_chunks_per_page", 1.0, 255.0, "", "compressed blocks per flash page"),
    b("zns.compression.compress_us", 0.0, 1e6, "us", "compressing one page"),
    b("zns.compression.decompress_us", 0.0, 1e6, "us", "decompressing one page"),
    b("zns.compression.split.lru_entries", 1.0, U32, "pages", "an LRU read history"),
    b("zns.compression.split.max_split_pages", 2.0, U32, "pages", "a split table"),
    b("precondition.fill_fraction", 0.0, 1.0, "", "a fraction of the logical space"),
    b("precondition.fill_block_size", 512.0, GIB, "bytes", "a fill request"),
    b("precondition.aging_fraction", 0.0, 100.0, "", "overwrites per filled page"),
    b("stats.interval_ms", 1e-3, 1e12, "ms", "a timeline interval"),
    b("stats.warmup_ms", 0.0, 1e12, "ms", "a warm-up"),
    // Content model
    b("content.granularity", 4096.0, MIB, "bytes", "a compression unit"),
    b("content.ratio.ratio", 1.0, 1000.0, "", "a compression ratio"),
    b("content.ratio.min", 1.0, 1000.0, "", "a compression ratio"),
    b("content.ratio.max", 1.0, 1000.0, "", "a compression ratio"),
    b("content.ratio.exponent", 0.01, 100.0, "", "a Zipf exponent"),
    b("content.ratio.levels", 2.0, 65_536.0, "", "distinct ratios"),
    b("content.source.chunk_bytes", 64.0, 4096.0, "bytes", "a generated chunk"),
    b("content.source.max_bytes", 1.0, TIB, "bytes", "real file bytes read"),
    b("content.cache_entries", 1.0, 16_777_216.0, "", "cached compressed sizes"),
    // Codec cost models (content.cost, stack.cpu.cost, stack.ccsd.cost)
    b("*.cost.compress_mb_per_s", 0.01, 1e6, "MB/s", "a host compression rate"),
    b("*.cost.decompress_mb_per_s", 0.01, 1e6, "MB/s", "a host decompression rate"),
    b("*.cost.block_bytes", 512.0, MIB, "bytes", "an engine block"),
    b("*.cost.compress_ns", 0.0, 1e7, "ns", "an engine compressing one block"),
    b("*.cost.decompress_ns", 0.0, 1e7, "ns", "an engine decompressing one block"),
    b("*.cost.lanes", 1.0, 1024.0, "", "engine lanes"),
    b("*.cost.active_mw", 0.0, 1e6, "mW", "a busy lane's power"),
    // Storage stack
    b("stack.tcs.t_soft_c", -50.0, 200.0, "°C", "a device temperature"),
    b("stack.tcs.t_hard_c", -50.0, 200.0, "°C", "a device temperature"),
    b("stack.tcs.smart_interval_ms", 1.0, 1e8, "ms", "a SMART polling period"),
    b("stack.coco.tc", 0.01, 1000.0, "", "a compression-ratio threshold"),
    b("stack.coco.sample_blocks", 1.0, 1024.0, "blocks", "a file's sample"),
    b("stack.fpc.hot_accesses", 0.0, U32, "", "accesses"),
    b("stack.space.ft_sc_per_s", 1e-3, 1e9, "/s", "a cleaning rate"),
    b("stack.space.ft_c_per_s", 1e-3, 1e12, "blocks/s", "a copy rate"),
    b("stack.space.ts", 1e-4, 0.99, "", "a fraction of the partition"),
    b("stack.space.rs_max", 1e-4, 0.99, "", "a fraction of the partition"),
    b("stack.space.step", 1e-4, 0.99, "", "a fraction of the partition"),
    b("stack.space.max", 1e-4, 0.99, "", "a fraction of the partition"),
    b("stack.space.interval_ms", 1.0, 1e8, "ms", "a decision period"),
    b("stack.fs.partition_bytes", 64.0 * KIB, 8.0 * TIB, "bytes", "a partition"),
    b("stack.fs.segment_blocks", 4.0, 65_536.0, "blocks", "a segment"),
    b("stack.fs.rs_ratio", 0.0, 0.99, "", "a fraction of the partition"),
    b("stack.fs.ssr_ratio", 0.0, 0.99, "", "a fraction of the partition"),
    b("stack.fs.fill_fraction", 0.0, 1.0, "", "a fraction of the user space"),
    b("stack.fs.bggc.min_sleep_ms", 1.0, 1e9, "ms", "a cleaner sleep"),
    b("stack.fs.bggc.max_sleep_ms", 1.0, 1e9, "ms", "a cleaner sleep"),
    b("stack.fs.bggc.no_gc_sleep_ms", 1.0, 1e9, "ms", "a cleaner sleep"),
    b("stack.fs.bggc.idle_ms", 1.0, 1e9, "ms", "an idle time"),
    b("stack.fs.meta.cp_interval_ms", 1.0, 1e9, "ms", "a checkpoint period"),
    b("stack.fs.meta.excess_dirty_nodes", 1.0, U32, "blocks", "dirty node blocks"),
    b("stack.fs.compression.cluster_blocks", 2.0, 256.0, "blocks", "an F2FS cluster"),
    b("stack.fs.mount.granularity", 512.0, MIB, "bytes", "a compression granularity"),
    b("stack.cpu.cores", 1.0, 1024.0, "", "host cores"),
    b("stack.cpu.compress_threads", 1.0, 1024.0, "", "compressing threads"),
    b("stack.cpu.per_cluster_overhead_us", 0.0, 1e6, "us", "a per-cluster cost"),
    b("stack.cpu.compute_threads", 0.0, 4096.0, "", "co-running threads"),
    b("stack.cpu.core_active_w", 0.0, 1000.0, "W", "a busy core's power"),
    b("stack.cpu.core_idle_w", 0.0, 1000.0, "W", "an idle core's power"),
    b("stack.ccsd.granularity", 512.0, MIB, "bytes", "an engine granularity"),
    b("stack.ccsd.logical_ratio", 1.0, 16.0, "", "logical over physical space"),
    b("stack.ccsd.max_chunks_per_page", 0.0, 65_536.0, "", "chunks per flash page"),
    b("stack.ccsd.throttle_c", -50.0, 200.0, "°C", "a device temperature"),
    b("stack.ccsd.throttle_speed", 1e-3, 1.0, "", "a fraction of full speed"),
    b("stack.ccsd.throttle_power", 0.0, 1.0, "", "a fraction of full power"),
    b("stack.ccsd.throttle_release_c", -50.0, 200.0, "°C", "a device temperature"),
    b("stack.ccsd.emergency_c", -50.0, 200.0, "°C", "a device temperature"),
    b("stack.ccsd.io_timeout_ms", 1.0, 1e9, "ms", "a host I/O timeout"),
    b("stack.ccsd.thermal.ambient_c", -50.0, 100.0, "°C", "a room or inlet temperature"),
    b("stack.ccsd.thermal.neighbour_c", -50.0, 100.0, "°C", "heating by neighbours"),
    b("stack.ccsd.thermal.initial_c", -50.0, 200.0, "°C", "a device temperature"),
    b("stack.ccsd.thermal.r_c_per_w", 1e-3, 1000.0, "°C/W", "a thermal resistance"),
    b("stack.ccsd.thermal.tau_s", 1e-3, 1e7, "s", "a thermal time constant"),
    b("stack.ccsd.thermal.idle_w", 0.0, 1000.0, "W", "an idle power"),
    b("stack.ccsd.thermal.link_w_per_gb_s", 0.0, 1000.0, "W per GB/s", "a data-path power"),
    b("stack.ccsd.thermal.leak_w", 0.0, 1000.0, "W", "a leakage power"),
    b("stack.ccsd.thermal.leak_ref_c", -50.0, 200.0, "°C", "a reference temperature"),
    b("stack.ccsd.thermal.leak_scale_c", 0.1, 1000.0, "°C", "degrees per e-fold of leakage"),
    b("stack.ccsd.thermal.step_ms", 0.1, 60_000.0, "ms", "a thermal integration step"),
    b("stack.cache.capacity_mib", 0.0, 16_777_216.0, "MiB", "a page cache"),
    b("stack.cache.dirty_ratio", 0.01, 100.0, "%", "a percentage of the cache"),
    b("stack.cache.dirty_background_ratio", 0.01, 100.0, "%", "a percentage of the cache"),
    b("stack.cache.dirty_expire_centisecs", 1.0, 1e8, "cs", "a dirty expiry"),
    b("stack.cache.dirty_writeback_centisecs", 1.0, 1e8, "cs", "a flusher period"),
    b("stack.cache.op_cpu_us", 0.0, 1e6, "us", "a system call's CPU time"),
    b("stack.cache.page_copy_us", 0.0, 1e6, "us", "copying one page"),
    // Workloads (trace and Filebench; fio options are checked by the fio parser)
    b("workload.sector_size", 1.0, MIB, "bytes", "a trace sector"),
    b("workload.queue_depth", 1.0, 65_536.0, "", "outstanding requests"),
    b("workload.time_scale", 1e-6, 1e6, "", "a time scale factor"),
    b("workload.device", 0.0, U32, "", "a device number"),
    b("workload.hash_bytes", 512.0, 256.0 * KIB, "bytes", "a hashed unit"),
    b("workload.format.skip_lines", 0.0, 1e9, "lines", "a header"),
    b("workload.format.time", 1.0, 1000.0, "", "a column, numbered from 1"),
    b("workload.format.offset", 1.0, 1000.0, "", "a column, numbered from 1"),
    b("workload.format.size", 1.0, 1000.0, "", "a column, numbered from 1"),
    b("workload.format.op", 1.0, 1000.0, "", "a column, numbered from 1"),
    b("workload.format.device", 1.0, 1000.0, "", "a column, numbered from 1"),
    b("workload.runtime_s", 1e-6, 1e7, "s", "a run time"),
    b("workload.hog_ns_per_iteration", 0.0, 1e6, "ns", "one hog iteration"),
    b("workload.ratio.ratio", 1.0, 1000.0, "", "a compression ratio"),
    b("workload.ratio.min", 1.0, 1000.0, "", "a compression ratio"),
    b("workload.ratio.max", 1.0, 1000.0, "", "a compression ratio"),
    b("workload.ratio.exponent", 0.01, 100.0, "", "a Zipf exponent"),
    b("workload.ratio.levels", 2.0, 65_536.0, "", "distinct ratios"),
];

/// Whether `pattern` (dotted; `[]` any index; `*` any one key, or as the first segment any
/// keys before the rest, or as the last any keys after) matches `path` (keys, `[]` for
/// indices).
fn matches(pattern: &str, path: &[String]) -> bool {
    fn go(pat: &[&str], path: &[String], first: bool) -> bool {
        match (pat.split_first(), path.split_first()) {
            (None, None) => true,
            (Some((&"*", [])), Some(_)) if !first => true,
            (Some((&"*", rest)), Some(_)) if first => {
                (1..path.len()).any(|k| go(rest, &path[k..], false))
            }
            (Some((p, rest)), Some((seg, more))) => {
                let ok = if *p == "*" { seg != "[]" } else { seg == p };
                ok && go(rest, more, false)
            }
            _ => false,
        }
    }
    go(&split(pattern), path, true)
}

/// `a.b[].c` as `["a", "b", "[]", "c"]`.
fn split(pattern: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for part in pattern.split('.') {
        match part.strip_suffix("[]") {
            Some(name) => {
                out.push(name);
                out.push("[]");
            }
            None => out.push(part),
        }
    }
    out
}

/// The range of the key at `path`, `None` for another language's key, or an error for a
/// numeric key the table does not know (a flashpress bug, said as such).
pub fn bound_of(path: &[String]) -> Option<Option<&'static Bound>> {
    if FOREIGN.iter().any(|f| matches(f, path)) {
        return Some(None);
    }
    RANGES.iter().find(|r| matches(r.key, path)).map(Some)
}

/// A number as the table and errors write it: integers whole, large and small numbers with
/// an exponent (`1e6`, `1e-4`), the rest as Rust prints them.
pub fn show(v: f64) -> String {
    let whole = v == v.trunc() && v.abs() < 1e15;
    if whole && (v.abs() < 1e6 || v % 1e6 != 0.0) {
        format!("{}", v as i64)
    } else if v.abs() >= 1e6 || (v != 0.0 && v.abs() < 1e-3) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

fn show_value(v: &Value) -> String {
    match v {
        Value::Number(n) if n.is_f64() => show(n.as_f64().unwrap_or(f64::NAN)),
        other => other.to_string(),
    }
}

/// The expectation of a bound, as errors and the docs say it.
pub fn expected(r: &Bound) -> String {
    let unit = if r.unit.is_empty() {
        String::new()
    } else {
        format!(" {}", r.unit)
    };
    format!("{} to {}{unit} ({})", show(r.min), show(r.max), r.what)
}

/// Check every numeric leaf of a resolved config (as JSON) against [`RANGES`]. Errors name
/// the dotted key with its array index (`nand.program_latency_us[1]`), the range and the
/// value.
pub fn check_ranges(v: &Value, src: &str) -> Result<()> {
    check_table(v, "", src)
}

/// [`check_ranges`] for one table of a config, `key` its dotted key (`content.cost`), for
/// the parts that are also checked on their own (a `[content]` table without a device).
pub fn check_table(v: &Value, key: &str, src: &str) -> Result<()> {
    let mut path: Vec<String> = Vec::new();
    let mut shown: Vec<String> = Vec::new();
    if !key.is_empty() {
        for s in split(key) {
            path.push(s.to_string());
        }
        shown.push(key.to_string());
    }
    walk(v, &mut path, &mut shown, src)
}

/// [`check_table`] of a serializable value.
pub fn check_value<T: serde::Serialize>(t: &T, key: &str, src: &str) -> Result<()> {
    check_table(
        &serde_json::to_value(t).expect("config serializes"),
        key,
        src,
    )
}

fn walk(v: &Value, path: &mut Vec<String>, shown: &mut Vec<String>, src: &str) -> Result<()> {
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                path.push(k.clone());
                shown.push(if shown.is_empty() {
                    k.clone()
                } else {
                    format!(".{k}")
                });
                let r = walk(c, path, shown, src);
                path.pop();
                shown.pop();
                r?;
            }
            Ok(())
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                path.push("[]".into());
                shown.push(format!("[{i}]"));
                let r = walk(c, path, shown, src);
                path.pop();
                shown.pop();
                r?;
            }
            Ok(())
        }
        Value::Number(n) => {
            let key = shown.concat();
            match bound_of(path) {
                Some(None) => Ok(()),
                None => Err(Error::config(
                    src,
                    key,
                    "this numeric key has no documented range (a flashpress bug: add it to \
                     config::ranges::RANGES)",
                )),
                Some(Some(r)) => {
                    let x = n.as_f64().unwrap_or(f64::NAN);
                    if x >= r.min && x <= r.max {
                        Ok(())
                    } else {
                        Err(Error::config(
                            src,
                            key,
                            format!("expected {}, got {}", expected(r), show_value(v)),
                        ))
                    }
                }
            }
        }
        _ => Ok(()),
    }
}

/// The table as Markdown (`docs/config-ranges.md`).
pub fn markdown() -> String {
    let mut s = String::from(
        "# Config value ranges\n\n\
         Every numeric config key and the range flashpress accepts (bounds included). A value \
         outside its range is refused with an error naming the key, the range and the value; \
         NaN and infinities are refused wherever they come from (TOML, JSON, a Python dict, \
         `--set`). Checks between values (a suspend shorter than the program it suspends, \
         `ftl.gc.hard_floor` below `ftl.gc.threshold`, a partition that fits the device) come \
         on top. `[]` is any array index; `*.cost` is `content.cost`, `stack.cpu.cost` and \
         `stack.ccsd.cost`.\n\n\
         Generated from `crates/flashpress-core/src/config/ranges.rs`; regenerate with \
         `FLASHPRESS_BLESS=1 cargo test -p flashpress-core config_ranges_doc`.\n\n\
         | key | from | to | unit | what |\n|---|---|---|---|---|\n",
    );
    for r in RANGES {
        s += &format!(
            "| `{}` | {} | {} | {} | {} |\n",
            r.key,
            show(r.min),
            show(r.max),
            r.unit,
            r.what
        );
    }
    s += "\nNot in the table: fio options and variables (`workload.global`, `workload.jobs`, \
          `workload.vars`) and Filebench variables, which their own parsers check.\n";
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{preset_names, scheme_seeds, scheme_text, SimConfig};
    use serde_json::json;

    fn leaves(v: &Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        match v {
            Value::Object(m) => {
                for (k, c) in m {
                    path.push(k.clone());
                    leaves(c, path, out);
                    path.pop();
                }
            }
            Value::Array(a) => {
                for c in a {
                    path.push("[]".into());
                    leaves(c, path, out);
                    path.pop();
                }
            }
            Value::Number(_) => out.push(path.clone()),
            _ => {}
        }
    }

    /// Every preset and scheme, and configs holding every optional table and tagged variant
    /// (deserialized, not validated: only their keys matter here).
    fn every_shape() -> Vec<Value> {
        let mut out: Vec<Value> = preset_names()
            .map(|n| serde_json::to_value(SimConfig::preset(n).unwrap()).unwrap())
            .collect();
        for seed in scheme_seeds() {
            let t: toml::Value = toml::from_str(scheme_text(seed).unwrap()).unwrap();
            for (name, v) in t.as_table().unwrap() {
                if name == "common" || !v.is_table() || v.get("unavailable").is_some() {
                    continue;
                }
                let cfg = SimConfig::from_toml_str(&format!("scheme = \"{seed}/{name}\"\n"), "t")
                    .unwrap();
                out.push(serde_json::to_value(cfg).unwrap());
            }
        }
        let host_cost =
            json!({"type": "host_cpu", "compress_mb_per_s": 100.0, "decompress_mb_per_s": 100.0});
        let engine_cost = json!({"type": "engine", "block_bytes": 4096, "compress_ns": 1, "decompress_ns": 1, "lanes": 1, "active_mw": 1.0});
        let zipf = json!({"type": "zipf", "min": 1.0, "max": 4.0, "exponent": 1.0, "levels": 4});
        let mut plain = serde_json::to_value(SimConfig::preset("default").unwrap()).unwrap();
        plain["nand"]["partial_read"] =
            json!({"unit_bytes": 1024, "latency_factor": 0.8, "current_factor": 0.6});
        plain["ftl"]["mapping_unit"] = json!(16384);
        plain["ftl"]["compression"] = json!({"codec": "lz4", "min_saving": 0.1, "max_chunks_per_page": 4,
            "compress_us": 1.0, "decompress_us": 1.0,
            "split": {"decision": "lru", "lru_entries": 10, "max_split_pages": 8}});
        plain["ftl"]["dedup"] = json!({"mode": "inline", "hash_us": 1.0, "hash_lanes": 1, "cold_threshold": 1,
                "index_cache": {"type": "demand", "dram_bytes": 4096, "policy": "lru"}});
        plain["ftl"]["map_cache"] =
            json!({"type": "demand", "dram_bytes": 4096, "policy": "segmented_lru"});
        plain["content"]["ratio"] = zipf.clone();
        plain["fdp"] =
            json!({"handles": ["initially_isolated"], "reclaim_groups": 2, "ru_bytes": 131072});
        plain["content"]["source"] = json!({"type": "files", "paths": ["x"], "max_bytes": 10});
        plain["content"]["cost"] = engine_cost.clone();
        let mut trace = plain.clone();
        trace["content"]["cost"] = host_cost.clone();
        trace["workload"] = json!({"type": "trace", "path": "x", "time_unit": "ns", "device": 1,
            "hash_bytes": 4096, "queue_depth": 1, "time_scale": 1.0, "sector_size": 512,
            "format": {"type": "columns", "skip_lines": 1, "time": 1, "offset": 2, "size": 3,
                "op": 4, "device": 5, "offset_unit": "bytes", "size_unit": "bytes"}});
        let mut fb = plain.clone();
        fb["workload"] = json!({"type": "filebench", "personality": "webserver", "runtime_s": 1.0,
            "ratio": zipf, "hog_ns_per_iteration": 1.0});
        let mut fb_fixed = fb.clone();
        fb_fixed["workload"]["ratio"] = json!({"type": "fixed", "ratio": 2.0});
        let mut stack = serde_json::to_value(SimConfig::preset("waltz").unwrap()).unwrap();
        stack["stack"]["space"] = json!({"type": "osa", "ft_sc_per_s": 1.0, "ft_c_per_s": 1.0,
            "ts": 0.01, "rs_max": 0.1, "interval_ms": 1000.0});
        stack["stack"]["cpu"]["cost"] = host_cost;
        stack["stack"]["fs"]["ssr_ratio"] = json!(0.1);
        stack["stack"]["fs"]["meta"]["excess_dirty_nodes"] = json!(4096);
        stack["stack"]["ccsd"]["thermal"]["initial_c"] = json!(30.0);
        let mut coco = stack.clone();
        coco["stack"]["space"] =
            json!({"type": "coco_op", "step": 0.01, "max": 0.1, "interval_ms": 1.0});
        let mut zns = serde_json::to_value(SimConfig::preset("zns").unwrap()).unwrap();
        zns["zns"]["zone_size"] = json!(4u64 << 30);
        zns["zns"]["read_only_zones"] = json!([1]);
        zns["zns"]["offline_zones"] = json!([2]);
        zns["zns"]["compression"] = json!({"codec": "lz4", "min_saving": 0.1, "max_chunks_per_page": 4,
            "compress_us": 1.0, "decompress_us": 1.0,
            "split": {"decision": "lru", "lru_entries": 10, "max_split_pages": 8}});
        out.extend([plain, trace, fb, fb_fixed, stack, coco, zns]);
        for v in &out {
            // each shape is a real config (every key known), written back as it was read
            let cfg: SimConfig = serde_json::from_value(v.clone()).unwrap();
            let back = serde_json::to_value(cfg).unwrap();
            assert_eq!(crate::config::unknown::ignored_key(v, &back), None);
        }
        out
    }

    #[test]
    fn every_numeric_key_of_every_shape_has_a_range_and_every_range_a_key() {
        let mut used = vec![false; RANGES.len()];
        for v in every_shape() {
            let mut found = Vec::new();
            leaves(&v, &mut Vec::new(), &mut found);
            for path in found {
                match bound_of(&path) {
                    None => panic!("numeric key {} has no range in RANGES", path.join(".")),
                    Some(None) => {}
                    Some(Some(r)) => {
                        let i = RANGES.iter().position(|x| std::ptr::eq(x, r)).unwrap();
                        used[i] = true;
                    }
                }
            }
        }
        let unused: Vec<&str> = RANGES
            .iter()
            .zip(&used)
            .filter(|(_, u)| !**u)
            .map(|(r, _)| r.key)
            .collect();
        assert!(unused.is_empty(), "ranges of no key: {unused:?}");
        for r in RANGES {
            assert!(
                r.min <= r.max && r.min.is_finite() && r.max.is_finite(),
                "{}",
                r.key
            );
        }
    }

    fn err(text: &str) -> (String, String) {
        match SimConfig::from_toml_str(text, "t.toml") {
            Err(Error::Config { key, msg, .. }) => (key, msg),
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn out_of_range_values_name_key_range_and_value() {
        for (text, key, msg) in [
            ("[nand]\nprogram_latency_us = [750.0, 1e20]\n", "nand.program_latency_us[1]",
             "expected 0.01 to 1e6 us (a NAND program), got 1e20"),
            ("[nand]\nchannels = 0\n", "nand.channels", "expected 1 to 1024 (channels), got 0"),
            ("[ftl]\nwrite_buffer_pages = 2147483648\n", "ftl.write_buffer_pages", "got 2147483648"),
            ("[precondition]\naging_fraction = 4294967296\n", "precondition.aging_fraction", "got 4294967296"),
            ("[host]\nlink_mb_per_s = 1e-300\n", "host.link_mb_per_s", "expected 0.01 to 1e7 MB/s"),
            ("[stats]\ninterval_ms = 1e-6\n", "stats.interval_ms", "expected 0.001 to 1e12 ms"),
            ("preset = \"waltz\"\n[stack.ccsd.thermal]\nstep_ms = 9e15\n", "stack.ccsd.thermal.step_ms", "got 9e15"),
            ("preset = \"waltz\"\n[stack.ccsd.thermal]\nneighbour_c = 9.2e18\n", "stack.ccsd.thermal.neighbour_c", "°C"),
            ("preset = \"waltz\"\n[stack.ccsd]\ncost = { type = \"engine\", block_bytes = 4096, compress_ns = 100000000000, decompress_ns = 1, lanes = 8, active_mw = 1.0 }\n",
             "stack.ccsd.cost.compress_ns", "expected 0 to 1e7 ns"),
        ] {
            let (k, m) = err(text);
            assert_eq!(k, key, "{text}: {m}");
            assert!(m.contains(msg), "{text}: {m}");
        }
    }

    #[test]
    fn nan_inf_datetimes_and_huge_integers_in_toml_name_their_key() {
        for (text, key, msg) in [
            (
                "[nand]\nerase_latency_us = nan\n",
                "nand.erase_latency_us",
                "expected a finite number, got NaN",
            ),
            (
                "[nand]\nread_latency_us = [75.0, -inf]\n",
                "nand.read_latency_us[1]",
                "finite",
            ),
            (
                "[stats]\ninterval_ms = inf\n",
                "stats.interval_ms",
                "finite",
            ),
            ("seed = 1979-05-27T07:32:00Z\n", "seed", "date-time"),
            (
                "[nand]\nblocks_per_plane = 99999999999999999999\n",
                "nand.blocks_per_plane",
                "line 2",
            ),
            (
                "[ftl.gc]\n\"threshold\" = 1e99999\n",
                "ftl.gc.threshold",
                "line 2",
            ),
        ] {
            let (k, m) = err(text);
            assert_eq!(k, key, "{text}: {m}");
            assert!(m.contains(msg), "{text}: {m}");
        }
    }

    #[test]
    fn an_unused_mount_algorithm_must_still_be_a_codec() {
        let (k, m) = err("preset = \"waltz\"\n[stack.fs.mount]\nalgorithm = \"zilb-6\"\n");
        assert_eq!(k, "stack.fs.mount.algorithm", "{m}");
        assert!(
            m.contains("unknown codec `zilb-6`") && m.contains("zlib"),
            "{m}"
        );
    }

    #[test]
    fn config_ranges_doc_is_current() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/config-ranges.md");
        let want = markdown();
        if std::env::var_os("FLASHPRESS_BLESS").is_some() {
            std::fs::write(&path, &want).unwrap();
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "docs/config-ranges.md is stale: run FLASHPRESS_BLESS=1 cargo test -p flashpress-core config_ranges_doc"
        );
    }
}
