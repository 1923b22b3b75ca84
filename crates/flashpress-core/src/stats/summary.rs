//! The run summary written as `summary.json`, and the unit and description of every field.

use super::recorder::OpTotals;
use hdrhistogram::Histogram;
use serde::Serialize;

/// Latency figures of one op, in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LatencySummary {
    /// Mean.
    pub mean: f64,
    /// Median (HDR histogram, 3 significant figures). The percentiles are clamped to the
    /// exact minimum and maximum, so none exceeds `max`.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Exact maximum.
    pub max: f64,
}

/// Requests, bytes, throughput and latency of one op.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct OpSummary {
    /// Requests completed.
    pub requests: u64,
    /// Bytes transferred.
    pub bytes: u64,
    /// Bytes per second of simulated time, in MB/s (10^6 B/s).
    pub throughput_mb_s: f64,
    /// Requests per second of simulated time.
    pub iops: f64,
    /// Latency in microseconds (`null` when no requests).
    pub latency_us: Option<LatencySummary>,
    /// Where the latency went, means in microseconds (plain SSD; `null` otherwise).
    pub latency_split_us: Option<SplitSummary>,
    /// Requests that waited while a GC job was on one of their planes (plain SSD; `null`
    /// otherwise).
    pub during_gc: Option<DuringGcSummary>,
}

/// Mean latency split into its parts, in microseconds; the parts add up to the mean latency.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SplitSummary {
    /// Waiting in queues for anything but GC: other host commands on the plane, the channel,
    /// the host link, a write-buffer slot.
    pub queue_mean: f64,
    /// Waiting while the plane did GC work (migrations, erases).
    pub gc_wait_mean: f64,
    /// The rest: command overhead, transfers and the request's own array operations.
    pub service_mean: f64,
}

/// The requests of one op that overlapped a GC job on their plane.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DuringGcSummary {
    /// Requests.
    pub requests: u64,
    /// Their latency in microseconds (`null` when none).
    pub latency_us: Option<LatencySummary>,
}

impl OpSummary {
    /// Add the plain SSD's latency split and during-GC figures.
    pub(crate) fn with_split(
        mut self,
        t: &OpTotals,
        split: &super::recorder::SplitTotals,
        gc_hist: &Histogram<u64>,
    ) -> OpSummary {
        if t.requests > 0 {
            let n = t.requests as f64;
            let q = split.queue_ns as f64 / n * 1e-3;
            let g = split.gc_ns as f64 / n * 1e-3;
            let mean = t.latency_sum_ns as f64 / n * 1e-3;
            self.latency_split_us = Some(SplitSummary {
                queue_mean: q,
                gc_wait_mean: g,
                service_mean: mean - q - g,
            });
        }
        let d = OpSummary::new(&split.during_gc, Some(gc_hist), 0.0);
        self.during_gc = Some(DuringGcSummary {
            requests: d.requests,
            latency_us: d.latency_us,
        });
        self
    }
}

impl OpSummary {
    pub(crate) fn new(t: &OpTotals, h: Option<&Histogram<u64>>, secs: f64) -> OpSummary {
        let rate = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
        let latency_us = (t.requests > 0).then(|| {
            // HDR reports the highest value equivalent to a quantile's bucket, which can lie
            // above the exact maximum (or, past the histogram's cap, below the minimum):
            // clamp to the exact range so a percentile never exceeds `max`.
            let q = |p: f64| {
                h.map_or(f64::NAN, |h| {
                    h.value_at_quantile(p)
                        .clamp(t.latency_min_ns, t.latency_max_ns) as f64
                        * 1e-3
                })
            };
            LatencySummary {
                mean: t.latency_sum_ns as f64 / t.requests as f64 * 1e-3,
                p50: q(0.5),
                p99: q(0.99),
                p999: q(0.999),
                max: t.latency_max_ns as f64 * 1e-3,
            }
        });
        OpSummary {
            requests: t.requests,
            bytes: t.bytes,
            throughput_mb_s: rate(t.bytes as f64) / 1e6,
            iops: rate(t.requests as f64),
            latency_us,
            latency_split_us: None,
            during_gc: None,
        }
    }
}

/// Energy by consumer, in joules.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EnergySummary {
    /// NAND array reads.
    pub nand_read_j: f64,
    /// NAND programs.
    pub nand_program_j: f64,
    /// NAND erases.
    pub nand_erase_j: f64,
    /// Channel transfers.
    pub channel_transfer_j: f64,
    /// Sum of the above.
    pub total_j: f64,
}

/// Erase counts over all blocks (including preconditioning).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct WearSummary {
    /// Mean erase count per block.
    pub erase_count_mean: f64,
    /// Smallest erase count.
    pub erase_count_min: u32,
    /// Largest erase count.
    pub erase_count_max: u32,
}

/// What preconditioning did (not counted in the run's figures).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct PreconditionSummary {
    /// Pages written by the sequential fill.
    pub fill_pages: u64,
    /// Random single-page overwrites (aging).
    pub aging_pages: u64,
    /// Bytes of fio job files written before the jobs started (fio lays out a file a job
    /// reads and nothing wrote), in whole mapping units, beyond the fill's pages.
    pub layout_bytes: u64,
    /// Blocks erased by GC during preconditioning.
    pub erases: u64,
    /// Pages moved by GC during preconditioning.
    pub gc_pages_migrated: u64,
}

/// Totals of a run (`summary.json`). Units are in field names or listed by [`stat_descriptions`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// What the workload loader says about the run (fio options accepted and ignored, with
    /// why; variables expanded); absent when it says nothing.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub workload_notes: Vec<String>,
    /// Simulated time from start to the last completion (s).
    pub sim_time_s: f64,
    /// The measured window (`stats.warmup_ms` to the end): every count, rate and energy below
    /// is over it, except levels and event times.
    pub window: super::WindowSummary,
    /// Requests submitted to the device.
    pub requests_issued: u64,
    /// Requests completed.
    pub requests_completed: u64,
    /// Requests that failed (device shut down after a thermal emergency, file system full, a
    /// zoned device's error status, a SCSI VERIFY that miscompared); not in the throughput and
    /// latency figures.
    pub requests_failed: u64,
    /// Host bytes read.
    pub host_read_bytes: u64,
    /// Host bytes written.
    pub host_write_bytes: u64,
    /// Host bytes discarded (TRIM requests).
    pub host_trim_bytes: u64,
    /// NAND bytes programmed (host writes + GC migrations).
    pub nand_program_bytes: u64,
    /// NAND bytes read from the array.
    pub nand_read_bytes: u64,
    /// Write amplification: NAND bytes programmed / host bytes written (`null` without writes).
    pub waf: Option<f64>,
    /// NAND page reads.
    pub nand_reads: u64,
    /// Of those, partial reads (one unit sensed and moved; `nand.partial_read`).
    pub nand_partial_reads: u64,
    /// NAND page programs.
    pub nand_programs: u64,
    /// NAND block erases.
    pub erases: u64,
    /// GC migrations done by copyback.
    pub copybacks: u64,
    /// GC episodes.
    pub gc_invocations: u64,
    /// Pages moved by GC.
    pub gc_pages_migrated: u64,
    /// Blocks cleaned by GC.
    pub gc_blocks_erased: u64,
    /// Blocks cleaned by background GC.
    pub gc_background_blocks: u64,
    /// Mapped pages discarded by TRIM.
    pub trimmed_pages: u64,
    /// Page reads of unwritten addresses (no NAND access).
    pub unmapped_page_reads: u64,
    /// Flash reads of old data for partial-page writes (of a split page, one partial read per
    /// piece the write does not cover).
    pub rmw_page_reads: u64,
    /// Mapping units read, merged and rewritten because a write covered only part of them
    /// (`ftl.mapping_unit`; the NAND page unless set). Without compression.
    pub rmw_units: u64,
    /// Host pages that waited for a write-buffer slot.
    pub buffer_full_waits: u64,
    /// Page reads checked by verify mode.
    pub verified_page_reads: u64,
    /// Open-loop arrivals whose timestamp was earlier than the previous one (issued in order).
    pub arrivals_out_of_order: u64,
    /// Reads issued that start where their stream's previous read ended (fio's sequential).
    pub sequential_reads: u64,
    /// Writes issued that start where their stream's previous write ended.
    pub sequential_writes: u64,
    /// Reads.
    pub read: OpSummary,
    /// Writes.
    pub write: OpSummary,
    /// Trims, and the other commands that move no data: flushes (fio's fsync, end_fsync)
    /// and, under `[stack]`, file deletes.
    pub trim: OpSummary,
    /// Energy.
    pub energy: EnergySummary,
    /// Wear.
    pub wear: WearSummary,
    /// Free blocks at the end.
    pub free_blocks_end: u64,
    /// Logical capacity exposed to the host (bytes).
    pub logical_capacity_bytes: u64,
    /// Physical NAND capacity (bytes).
    pub physical_capacity_bytes: u64,
    /// Preconditioning.
    pub precondition: PreconditionSummary,
    /// Data reduction measured by the content model (`null` when `content.mode` is off).
    pub content: Option<crate::content::ContentSummary>,
    /// The storage stack's figures (`null` without `[stack]`).
    pub stack: Option<crate::stack::StackSummary>,
    /// The controller's compression (`null` without `ftl.compression` or `zns.compression`).
    pub compression: Option<crate::device::compress::CompressionCounters>,
    /// The plain SSD's deduplication (`null` without `ftl.dedup`).
    pub dedup: Option<crate::ftl::dedup::DedupSummary>,
    /// Flexible Data Placement per reclaim unit handle (absent without `[fdp]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fdp: Option<crate::ftl::fdp::FdpSummary>,
    /// The zoned device's zones and commands (`null` without `[zns]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zns: Option<crate::device::zns::ZnsSummary>,
    /// The plain SSD's mapping table in DRAM, by PR-SSD's accounting (bytes; `null` in
    /// `[stack]` runs).
    pub mapping_table_bytes: Option<u64>,
    /// The demand-paged map cache (`null` unless `ftl.map_cache` caches less than the whole
    /// table).
    pub map_cache: Option<crate::ftl::mapcache::MapCacheSummary>,
    /// The split mapping table at its fullest (bytes; `null` without
    /// `ftl.compression.split`).
    pub split_table_bytes: Option<u64>,
    /// The controller back end (the plain SSD's, or the `[stack]` CCSD's).
    pub controller: Option<ControllerSummary>,
}

/// The controller back end over the run (the plain SSD or the `[stack]` CCSD).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ControllerSummary {
    /// Scheduling and suspension counters.
    #[serde(flatten)]
    pub counters: crate::device::sched::SchedCounters,
    /// Simulated time at which the last flash operation ended (s): at least `sim_time_s`,
    /// later when GC that yielded to host commands ran after the last request completed.
    pub flash_quiet_s: f64,
    /// Fraction of plane time spent in array operations, over all planes from the start of
    /// the measured window until `flash_quiet_s`.
    pub plane_busy_fraction: f64,
    /// Fraction of plane time spent in GC's array operations.
    pub gc_busy_fraction: f64,
}

/// (dotted name, unit, description) of every `summary.json` field; `read.*` stands for the
/// same fields under `write` and `trim`.
pub fn stat_descriptions() -> Vec<(&'static str, &'static str, &'static str)> {
    vec![
        (
            "sim_time_s",
            "s",
            "simulated time from start to the last completion",
        ),
        (
            "window.from_s",
            "s",
            "start of the measured window (the end of stats.warmup_ms); the summary's counts, rates and energies are over the window, levels and event times are not",
        ),
        ("window.to_s", "s", "end of the measured window (the last completion)"),
        (
            "window.seconds",
            "s",
            "length of the measured window; rates divide by it",
        ),
        (
            "requests_issued",
            "requests",
            "requests submitted to the device (in the window: those still in flight at its start and those submitted after)",
        ),
        ("requests_completed", "requests", "requests completed"),
        (
            "requests_failed",
            "requests",
            "requests that failed (device shut down by a thermal emergency, file system full, a zoned device's error status, a SCSI VERIFY that miscompared); not in throughput or latency",
        ),
        ("host_read_bytes", "B", "bytes the host read"),
        ("host_write_bytes", "B", "bytes the host wrote"),
        ("host_trim_bytes", "B", "bytes the host discarded"),
        (
            "nand_program_bytes",
            "B",
            "bytes programmed to NAND (host writes and GC migrations)",
        ),
        (
            "nand_read_bytes",
            "B",
            "bytes sensed in the NAND array (host, read-modify-write and GC; a partial read counts its unit)",
        ),
        (
            "waf",
            "ratio",
            "write amplification: NAND bytes programmed / host bytes written",
        ),
        ("nand_reads", "pages", "NAND page reads"),
        (
            "nand_partial_reads",
            "reads",
            "of nand_reads, partial reads: one unit of a page sensed and moved (nand.partial_read)",
        ),
        ("nand_programs", "pages", "NAND page programs"),
        ("erases", "blocks", "NAND block erases"),
        (
            "copybacks",
            "pages",
            "GC migrations done by on-die copyback",
        ),
        (
            "gc_invocations",
            "episodes",
            "GC episodes (foreground triggers and background passes)",
        ),
        (
            "gc_pages_migrated",
            "pages",
            "valid pages moved by GC (mapping units smaller than the page: pages GC programmed with re-packed units)",
        ),
        ("gc_blocks_erased", "blocks", "blocks cleaned by GC"),
        (
            "gc_background_blocks",
            "blocks",
            "blocks cleaned by GC in idle plane time",
        ),
        (
            "trimmed_pages",
            "pages",
            "mapped pages discarded by TRIM (mapping units smaller than the page: units)",
        ),
        (
            "unmapped_page_reads",
            "pages",
            "page reads of unwritten addresses, answered without NAND access",
        ),
        (
            "rmw_page_reads",
            "reads",
            "flash reads of old data merged with a partial-page write (a split page: one per piece not covered)",
        ),
        (
            "rmw_units",
            "units",
            "mapping units read, merged and rewritten for a write covering only part of them (ftl.mapping_unit)",
        ),
        (
            "buffer_full_waits",
            "pages",
            "host pages that waited for a free write-buffer slot",
        ),
        (
            "verified_page_reads",
            "pages",
            "page reads checked against the last written content (verify mode)",
        ),
        (
            "arrivals_out_of_order",
            "requests",
            "open-loop arrivals stamped earlier than their predecessor",
        ),
        (
            "sequential_reads",
            "requests",
            "reads issued that start where their stream's previous read ended",
        ),
        (
            "sequential_writes",
            "requests",
            "writes issued that start where their stream's previous write ended",
        ),
        ("read.requests", "requests", "requests of this op completed"),
        ("read.bytes", "B", "bytes of this op"),
        (
            "read.throughput_mb_s",
            "MB/s",
            "bytes per simulated second (10^6 B/s)",
        ),
        ("read.iops", "1/s", "requests per simulated second"),
        (
            "read.latency_us.mean",
            "us",
            "mean latency (submission to completion)",
        ),
        (
            "read.latency_us.p50",
            "us",
            "median latency (HDR histogram, 3 significant figures; percentiles are clamped to the exact min and max)",
        ),
        ("read.latency_us.p99", "us", "99th percentile latency"),
        ("read.latency_us.p999", "us", "99.9th percentile latency"),
        ("read.latency_us.max", "us", "largest latency"),
        (
            "read.latency_split_us.queue_mean",
            "us",
            "mean time waiting for anything but GC (other commands on the plane, channel, link, write-buffer slot)",
        ),
        (
            "read.latency_split_us.gc_wait_mean",
            "us",
            "mean time waiting while the plane ran GC migrations or erases",
        ),
        (
            "read.latency_split_us.service_mean",
            "us",
            "mean of the rest: command overhead, transfers, the request's own array operations",
        ),
        (
            "read.during_gc.requests",
            "requests",
            "requests that waited while a GC job was queued or running on one of their planes",
        ),
        ("read.during_gc.latency_us.mean", "us", "their mean latency"),
        ("read.during_gc.latency_us.p50", "us", "their median latency"),
        ("read.during_gc.latency_us.p99", "us", "their 99th percentile latency"),
        ("read.during_gc.latency_us.p999", "us", "their 99.9th percentile latency"),
        ("read.during_gc.latency_us.max", "us", "their largest latency"),
        (
            "compression.chunks",
            "pages",
            "logical pages stored in less than a page, merged with others (ftl.compression)",
        ),
        (
            "compression.raw_pages",
            "pages",
            "logical pages stored in a page of their own (no zero unit, and compression failed or saved less than min_saving)",
        ),
        ("compression.zero_pages", "pages", "logical pages of zeros only: nothing stored"),
        (
            "compression.compressed_pages",
            "pages",
            "logical pages stored compressed (their reads are decompressed)",
        ),
        ("compression.zero_units", "units", "all-zero 4 KiB units not stored (zero_units)"),
        (
            "compression.partial_zero_pages",
            "pages",
            "logical pages stored with some but not all 4 KiB units zero (zero_units)",
        ),
        (
            "compression.zero_reads",
            "pages",
            "logical page reads of zero units only: no flash read",
        ),
        ("compression.chunk_bytes", "B", "bytes of the compressed pages written"),
        (
            "compression.merged_pages",
            "pages",
            "merged pages of compressed data closed for writing (one flash program each)",
        ),
        ("compression.pad_bytes", "B", "bytes of merged pages left empty when they were closed"),
        ("compression.decompressed_pages", "pages", "compressed pages decompressed for host reads"),
        (
            "compression.dram_page_reads",
            "pages",
            "logical page reads served from the page being filled in DRAM (no flash read)",
        ),
        (
            "compression.buffer_full_waits",
            "pages",
            "logical pages whose write waited for a DRAM buffer page",
        ),
        ("compression.compress_busy_ns", "ns", "compression engine time"),
        ("compression.decompress_busy_ns", "ns", "decompression engine time for host reads"),
        (
            "compression.merge_decompressed_pages",
            "pages",
            "old data of partial-page writes decompressed before it merges",
        ),
        (
            "compression.merge_decompress_busy_ns",
            "ns",
            "decompression engine time for that old data",
        ),
        (
            "compression.split_pages",
            "pages",
            "logical pages written split, one partial unit on each of several channels (ftl.compression.split)",
        ),
        ("compression.split_groups", "groups", "groups of split pages written as vertical packages"),
        (
            "compression.unsplit_groups",
            "groups",
            "groups written as pages of their own: no pages of one page type on enough channels",
        ),
        (
            "compression.split_live_max",
            "pages",
            "most logical pages split at once since the run's start (the split table's entries in use)",
        ),
        (
            "compression.split_refused_size",
            "pages",
            "pages that did not compress and were not split: their host write was larger than a page",
        ),
        (
            "compression.split_refused_history",
            "pages",
            "... not split: last read by a host read larger than a page",
        ),
        ("compression.split_refused_full", "pages", "... not split: the split table was full"),
        (
            "compression.reads_no_conflict",
            "requests",
            "host reads whose flash reads each used a channel of its own",
        ),
        (
            "compression.reads_conflict_normal",
            "requests",
            "host reads with two flash reads on one channel, neither of a split piece",
        ),
        (
            "compression.reads_conflict_split",
            "requests",
            "host reads with two flash reads on one channel, one of a split piece",
        ),
        (
            "split_table_bytes",
            "B",
            "the split mapping table at its fullest (PR-SSD Fig. 13): per split page a flash page number and partial index per piece",
        ),
        (
            "dedup.inline_hashed",
            "pages",
            "host pages hashed on the write path (ftl.dedup, inline mode)",
        ),
        (
            "dedup.inline_duplicates",
            "pages",
            "of those, pages already stored: mapped to the stored page, not programmed",
        ),
        ("dedup.gc_hashed", "pages", "valid pages GC read out and hashed (gc mode)"),
        (
            "dedup.gc_duplicates",
            "pages",
            "of those, pages already stored elsewhere: merged into it, not rewritten",
        ),
        (
            "dedup.gc_cold_migrations",
            "pages",
            "GC migrations into the cold region (count above ftl.dedup.cold_threshold)",
        ),
        (
            "dedup.gc_promoted",
            "pages",
            "stored hot pages made invalid because their duplicate in a victim moved to the cold region in their place",
        ),
        (
            "dedup.dropped_by_count",
            "pages",
            "logical pages dropped (overwritten or trimmed) by the reference count their content had then: counts 1 to 7, then 8 or more",
        ),
        (
            "dedup.pages_freed",
            "pages",
            "stored pages whose reference count reached 0 (their flash page became invalid)",
        ),
        (
            "dedup.compactions",
            "count",
            "compactions of the dedup map's node space (forwarding stubs freed)",
        ),
        (
            "dedup.prefilter_collisions",
            "pages",
            "XXH3 pre-filter matches that BLAKE3 refuted: stored apart, not merged (fingerprint = \"bytes\"); a page GC meets again counts again",
        ),
        ("dedup.hash_busy_ns", "ns", "hash engine time, summed over lanes"),
        ("dedup.hash_wait_ns", "ns", "time pages waited for a free hash lane"),
        ("dedup.mapped_pages", "pages", "logical pages mapped at the end"),
        ("dedup.stored_pages", "pages", "distinct pages stored at the end"),
        ("dedup.ratio", "x", "logical pages mapped per page stored, at the end"),
        (
            "dedup.dropped_count1_share",
            "fraction",
            "of the logical pages dropped, the share whose content had reference count 1 (CAGC Fig. 6)",
        ),
        (
            "dedup.map_bytes",
            "B",
            "the dedup map (logical map, nodes with fingerprint, count, links and forward, fingerprint index) and the page map of its nodes, at the end",
        ),
        ("dedup.map_bytes_per_mapped_page", "B", "map_bytes per logical page mapped"),
        (
            "mapping_table_bytes",
            "B",
            "the plain SSD's mapping table in DRAM as PR-SSD section 4.4.1 counts it: per logical page its page number, compression flag, slot and bitmaps; per flash page the reverse map, merged count and valid bitmap",
        ),
        (
            "map_cache",
            "-",
            "the demand-paged map (ftl.map_cache = \"demand\"); null with the whole table in DRAM",
        ),
        ("map_cache.cached_entries", "entries", "map entries the DRAM budget holds (each of the table's bytes per entry; with the split FTL, packed-map entries only)"),
        ("map_cache.table_entries", "entries", "map entries of the whole table (with the split FTL, the split table's too)"),
        ("map_cache.translation_pages", "pages", "translation pages holding the table on flash"),
        ("map_cache.lookups", "entries", "map entries looked up by host reads, writes and TRIMs"),
        ("map_cache.hits", "entries", "lookups found in DRAM"),
        ("map_cache.evictions", "entries", "cached entries evicted"),
        (
            "map_cache.dirty_evictions",
            "entries",
            "evicted entries that were dirty (their translation page was written back)",
        ),
        (
            "map_cache.gc_uncached_updates",
            "entries",
            "entries changed without a lookup that were not cached (updated in their translation page): pages GC moved, with ftl.dedup stored pages freed",
        ),
        (
            "map_cache.translation_reads",
            "pages",
            "translation pages read: lookups that missed, and stored copies write-backs merge with",
        ),
        (
            "map_cache.translation_lookup_reads",
            "pages",
            "of those, reads a host request waited for (a lookup that missed)",
        ),
        ("map_cache.translation_writes", "pages", "translation pages programmed (write-backs)"),
        ("map_cache.translation_gc_migrations", "pages", "translation pages GC moved"),
        ("map_cache.hit_ratio", "fraction", "hits / lookups"),
        (
            "map_cache.map_waf",
            "ratio",
            "translation pages programmed (write-backs and GC moves) per host page written",
        ),
        (
            "map_cache.read_translation_mean_us",
            "us",
            "mean time a read waited for its translation pages (from its command at the controller)",
        ),
        (
            "map_cache.read_data_mean_us",
            "us",
            "mean read latency less its translation wait",
        ),
        (
            "map_cache.fingerprint_index",
            "",
            "the dedup fingerprint index in bucket pages on flash (ftl.dedup.index_cache = \"demand\"); null with the whole index in DRAM",
        ),
        ("map_cache.fingerprint_index.cached_pages", "pages", "bucket pages the DRAM budget holds"),
        ("map_cache.fingerprint_index.index_pages", "pages", "bucket pages of the whole index"),
        ("map_cache.fingerprint_index.entries_per_page", "entries", "index entries (12 B) per bucket page"),
        (
            "map_cache.fingerprint_index.lookups",
            "lookups",
            "fingerprint lookups: inline writes, pages GC hashed",
        ),
        ("map_cache.fingerprint_index.hits", "lookups", "lookups whose bucket page was in DRAM"),
        ("map_cache.fingerprint_index.hit_ratio", "fraction", "hits / lookups"),
        ("map_cache.fingerprint_index.evictions", "pages", "bucket pages evicted from DRAM"),
        (
            "map_cache.fingerprint_index.dirty_evictions",
            "pages",
            "evicted bucket pages that were dirty (written back)",
        ),
        (
            "map_cache.fingerprint_index.uncached_updates",
            "entries",
            "index inserts and removals in bucket pages not in DRAM (read, merged, written back)",
        ),
        (
            "map_cache.fingerprint_index.translation_reads",
            "pages",
            "bucket pages read: lookups that missed, and stored copies write-backs merge with",
        ),
        (
            "map_cache.fingerprint_index.lookup_reads",
            "pages",
            "bucket pages read for a lookup (the dedup decision waited for them)",
        ),
        ("map_cache.fingerprint_index.translation_writes", "pages", "bucket pages programmed (write-backs)"),
        ("map_cache.fingerprint_index.translation_gc_migrations", "pages", "bucket pages GC moved"),
        ("controller.program_suspensions", "count", "programs suspended for reads"),
        ("controller.erase_suspensions", "count", "erases suspended for reads"),
        (
            "controller.reads_during_suspension",
            "pages",
            "page reads served while their plane had an operation suspended",
        ),
        ("controller.gc_jobs", "blocks", "GC jobs (one victim block each) queued"),
        (
            "controller.gc_steps",
            "steps",
            "GC steps run (up to ftl.gc.step_pages migrations, or an erase)",
        ),
        (
            "controller.gc_steps_at_floor",
            "steps",
            "GC steps run with the plane at or below its hard floor of erased free blocks",
        ),
        (
            "controller.starvation_promotions",
            "count",
            "read_first: a program or GC step that had waited starvation_us went before a read",
        ),
        (
            "controller.programs_waiting_for_erase",
            "pages",
            "host programs that had to wait for their block's queued erase",
        ),
        (
            "controller.zone_reset_erases",
            "blocks",
            "block erases queued by zone resets (a zoned device; not GC jobs)",
        ),
        ("fdp.reclaim_groups", "groups", "reclaim groups of the FDP device (the whole array is one)"),
        ("fdp.reclaim_unit_bytes", "B", "reclaim unit size (fdp.ru_bytes; by default one erase block on every plane of a reclaim group)"),
        ("fdp.handles", "-", "one entry per reclaim unit handle, in placement-identifier order (fields below)"),
        ("fdp.handles[].handle", "-", "placement identifier (index in fdp.handles)"),
        ("fdp.handles[].type", "-", "initially_isolated or persistently_isolated"),
        ("fdp.handles[].host_bytes_written", "B", "bytes the host wrote through the handle"),
        ("fdp.handles[].media_bytes_written", "B", "bytes programmed for the handle's data (host writes and GC moves)"),
        ("fdp.handles[].gc_bytes_migrated", "B", "bytes of the handle's data GC moved"),
        ("fdp.handles[].waf", "ratio", "media_bytes_written / host_bytes_written (null with no host writes)"),
        ("fdp.handles[].blocks_opened", "blocks", "erase blocks opened for the handle's streams"),
        ("fdp.handles[].reclaim_units_filled", "reclaim units", "reclaim units the handle's host writes filled (each an implicitly modified handle event)"),
        ("fdp.handles[].ruh_updates", "commands", "Reclaim Unit Handle Update commands for the placement identifier"),
        ("fdp.events", "-", "FDP events logged, by type (fields below; every one, also past the fdp_events.csv table's rows)"),
        ("fdp.events.ru_not_fully_written", "events", "00h: handle updates that left a reclaim unit holding writes but not full"),
        ("fdp.events.invalid_placement_identifier", "events", "03h: writes naming a placement identifier the device lacks (written through identifier 0)"),
        ("fdp.events.implicitly_modified_ruh", "events", "81h: handles the device moved to a new reclaim unit because theirs was fully written"),
        ("zns.zones", "zones", "zones of the zoned namespace"),
        ("zns.zone_size_bytes", "B", "logical span of a zone (zone size)"),
        ("zns.zone_capacity_bytes", "B", "writable bytes of a zone (zone capacity: its flash)"),
        ("zns.writes", "commands", "write commands done"),
        ("zns.appends", "commands", "Zone Append commands done"),
        ("zns.reads", "commands", "read commands done"),
        ("zns.opens", "commands", "Open Zone commands done"),
        ("zns.closes", "commands", "Close Zone commands done"),
        ("zns.finishes", "commands", "Finish Zone commands done"),
        ("zns.resets", "commands", "Reset Zone commands done"),
        ("zns.reset_blocks_erased", "blocks", "blocks erased by zone resets (the host's cleaning)"),
        ("zns.failed_zone_boundary_error", "commands", "failed: Zone Boundary Error (past the zone's capacity, or a read across zones)"),
        ("zns.failed_zone_is_full", "commands", "failed: Zone Is Full"),
        ("zns.failed_zone_is_read_only", "commands", "failed: Zone Is Read Only"),
        ("zns.failed_zone_is_offline", "commands", "failed: Zone Is Offline"),
        ("zns.failed_zone_invalid_write", "commands", "failed: Zone Invalid Write (not at the write pointer)"),
        ("zns.failed_too_many_active_zones", "commands", "failed: Too Many Active Zones"),
        ("zns.failed_too_many_open_zones", "commands", "failed: Too Many Open Zones"),
        ("zns.failed_invalid_zone_state_transition", "commands", "failed: Invalid Zone State Transition"),
        ("zns.failed_invalid_field", "commands", "failed: Invalid Field in Command (an append not at a zone start, a range not in whole logical blocks)"),
        ("zns.failed_lba_out_of_range", "commands", "failed: LBA Out of Range"),
        ("zns.failed_commands", "commands", "commands failed, all statuses (also in requests_failed)"),
        ("zns.zones_empty", "zones", "empty zones at the end"),
        ("zns.zones_implicitly_open", "zones", "implicitly open zones at the end"),
        ("zns.zones_explicitly_open", "zones", "explicitly open zones at the end"),
        ("zns.zones_closed", "zones", "closed zones at the end"),
        ("zns.zones_full", "zones", "full zones at the end"),
        ("zns.zones_read_only", "zones", "read-only zones"),
        ("zns.zones_offline", "zones", "offline zones"),
        (
            "controller.flash_quiet_s",
            "s",
            "simulated time when the last flash operation ended (after sim_time_s when deferred GC ran on)",
        ),
        (
            "controller.plane_busy_fraction",
            "1",
            "plane time in array operations / (planes x flash_quiet_s)",
        ),
        (
            "controller.gc_busy_fraction",
            "1",
            "plane time in GC's array operations / (planes x flash_quiet_s)",
        ),
        (
            "energy.nand_read_j",
            "J",
            "energy of NAND array reads (V * I_read * t_R)",
        ),
        (
            "energy.nand_program_j",
            "J",
            "energy of NAND programs (V * I_prog * t_PROG)",
        ),
        (
            "energy.nand_erase_j",
            "J",
            "energy of NAND erases (V * I_erase * t_BERS)",
        ),
        (
            "energy.channel_transfer_j",
            "J",
            "energy of channel transfers (V * I_transfer * t_xfer)",
        ),
        ("energy.total_j", "J", "sum of the NAND energies"),
        (
            "wear.erase_count_mean",
            "erases",
            "mean erase count per block, preconditioning included",
        ),
        (
            "wear.erase_count_min",
            "erases",
            "smallest erase count of any block",
        ),
        (
            "wear.erase_count_max",
            "erases",
            "largest erase count of any block",
        ),
        (
            "free_blocks_end",
            "blocks",
            "free blocks at the end of the run",
        ),
        (
            "logical_capacity_bytes",
            "B",
            "logical capacity exposed to the host",
        ),
        ("physical_capacity_bytes", "B", "physical NAND capacity"),
        (
            "precondition.fill_pages",
            "pages",
            "pages written by the untimed sequential fill",
        ),
        (
            "precondition.aging_pages",
            "pages",
            "random page overwrites done while preconditioning",
        ),
        (
            "precondition.layout_bytes",
            "B",
            "bytes of fio job files written (laid out) before the jobs started, untimed, as fio lays out a file a job reads",
        ),
        (
            "precondition.erases",
            "blocks",
            "blocks erased by GC while preconditioning",
        ),
        (
            "precondition.gc_pages_migrated",
            "pages",
            "pages moved by GC while preconditioning",
        ),
        ("content.mode", "-", "content model mode: model (sizes from the calibrated distribution) or bytes (real codec on real bytes)"),
        ("content.codec", "-", "codec whose compressed sizes the content statistics report"),
        ("content.granularity_bytes", "B", "compression unit: aligned run of consecutive 4 KiB blocks compressed together"),
        ("content.blocks_written", "blocks", "4 KiB blocks the host wrote"),
        ("content.units", "units", "compression units evaluated (one per aligned unit a write touches)"),
        ("content.logical_bytes", "B", "uncompressed bytes of the evaluated units"),
        ("content.compressed_bytes", "B", "codec output bytes of the evaluated units (uncapped)"),
        ("content.stored_bytes", "B", "bytes a store keeps: the compressed form, or the raw unit when compression did not shrink it"),
        ("content.incompressible_units", "units", "units stored raw because the codec did not shrink them"),
        ("content.ratio", "x", "data reduction ratio: logical bytes / stored bytes"),
        ("content.saving", "fraction", "space saved: 1 - stored / logical bytes"),
        ("content.compress_busy_s", "s", "core or engine-lane time the cost model charges for compressing the units"),
        ("content.compress_energy_j", "J", "engine energy for compressing the units (0 when the cost model is host CPU)"),
        ("stack.policy", "-", "placement policy of the streams (`mixed` when streams differ); `stack` is null without [stack]"),
        ("stack.cache.capacity_bytes", "bytes", "capacity of the host page cache (stack.cache.capacity_mib)"),
        ("stack.cache.read_hits", "pages", "4 KiB pages read requests found in the page cache"),
        ("stack.cache.read_misses", "pages", "4 KiB pages read requests read through the file system"),
        ("stack.cache.hit_ratio", "fraction", "read hits over pages read (null without reads)"),
        ("stack.cache.pages_written_back", "pages", "dirty pages written back to the file system"),
        ("stack.cache.bytes_coalesced", "bytes", "bytes of writes absorbed into pages that were already dirty"),
        ("stack.cache.fsyncs", "count", "fsync / fdatasync requests"),
        ("stack.cache.fsync_errors", "count", "fsyncs and O_DSYNC writes that returned a write-back error (EIO)"),
        ("stack.cache.writeback_errors", "count", "write-back requests the file system failed"),
        ("stack.cache.dirty_pages_end", "pages", "dirty pages not yet written back at the end of the run"),
        ("stack.cache.counters.read_hits", "pages", "pages read requests found in the cache"),
        ("stack.cache.counters.read_misses", "pages", "pages read requests read through the file system"),
        ("stack.cache.counters.cluster_pages_inserted", "pages", "pages inserted beside missed pages because their compressed cluster was decompressed"),
        ("stack.cache.counters.pages_written", "pages", "pages written by buffered write requests"),
        ("stack.cache.counters.pages_coalesced", "pages", "page writes into pages already dirty (no write-back of their own)"),
        ("stack.cache.counters.bytes_coalesced", "bytes", "bytes of the writes absorbed into already-dirty pages"),
        ("stack.cache.counters.fill_reads", "pages", "pages read before a write covering part of them (write_begin)"),
        ("stack.cache.counters.pages_written_back", "pages", "dirty pages written back to the file system"),
        ("stack.cache.counters.writeback_ios", "count", "write-back requests submitted to the file system"),
        ("stack.cache.counters.expired_writebacks", "count", "files written back because their dirty data expired (dirty_expire_centisecs)"),
        ("stack.cache.counters.background_writebacks", "count", "files written back above dirty_background_ratio"),
        ("stack.cache.counters.throttled_writebacks", "count", "files a writer wrote back itself (above dirty_ratio, or no clean page to evict)"),
        ("stack.cache.counters.writeback_errors", "count", "write-back requests the file system failed"),
        ("stack.cache.counters.fsyncs", "count", "fsync / fdatasync requests"),
        ("stack.cache.counters.fsync_errors", "count", "fsyncs and O_DSYNC writes that returned a write-back error (EIO)"),
        ("stack.cache.counters.dsync_writes", "count", "write requests opened O_DSYNC"),
        ("stack.cache.counters.direct_ios", "count", "requests opened O_DIRECT"),
        ("stack.cache.counters.evictions", "pages", "clean pages evicted (LRU)"),
        ("stack.cache.counters.dirty_pages_dropped", "pages", "dirty pages dropped unwritten (file deleted or range punched)"),
        ("stack.cache.counters.dirty_pages_peak", "pages", "most dirty pages at once"),
        ("stack.cache.counters.dirty_throttle_pauses", "count", "writes after which the writer was paced by dirty throttling (dirty and write-back pages above freerun)"),
        ("stack.cache.counters.dirty_throttle_ns", "ns", "time writers spent paused by dirty throttling"),
        ("stack.fs.counters.user_blocks_written", "blocks", "blocks of accepted write requests"),
        ("stack.fs.counters.user_blocks_read", "blocks", "blocks of read requests (clipped to the files' sizes)"),
        ("stack.fs.counters.fs_blocks_written", "blocks", "blocks submitted to the disk for writing, cleaning included"),
        ("stack.fs.counters.fs_blocks_read", "blocks", "blocks read from the disk, read-modify-write and cleaning included"),
        ("stack.fs.counters.fs_blocks_trimmed", "blocks", "blocks discarded on the disk (deletes, hole punches, freed segments)"),
        ("stack.fs.counters.cleaning_invocations", "count", "segments cleaned in the foreground (SC count)"),
        ("stack.fs.counters.cleaning_blocks_moved", "blocks", "valid blocks cleaning copied"),
        ("stack.fs.counters.ssr_blocks", "blocks", "blocks written by thread logging into holes of dirty segments"),
        ("stack.fs.counters.bggc_wakeups", "count", "wake-ups of the background cleaner"),
        ("stack.fs.counters.bggc_segments", "segments", "segments the background cleaner cleaned in idle time"),
        ("stack.fs.counters.bggc_blocks_moved", "blocks", "valid blocks the background cleaner copied"),
        ("stack.fs.counters.node_blocks_written", "blocks", "node blocks written at checkpoints"),
        ("stack.fs.counters.cp_blocks_written", "blocks", "checkpoint pack, NAT and SIT blocks written"),
        ("stack.fs.counters.checkpoints", "count", "checkpoints written"),
        ("stack.fs.counters.rmw_clusters", "count", "clusters read, (de)compressed and rewritten for a partial update"),
        ("stack.fs.counters.clusters_host_compressed", "count", "clusters stored host-compressed"),
        ("stack.fs.counters.clusters_host_raw", "count", "clusters the host compressed without saving a block, stored raw"),
        ("stack.fs.counters.compress_blocks_device", "blocks", "blocks written without a flag (the device compresses them), cleaning copies included"),
        ("stack.fs.counters.compress_blocks_host", "blocks", "data blocks of clusters compressed on the host"),
        ("stack.fs.counters.compress_blocks_skipped", "blocks", "blocks written with the incompressible label by the placement policy"),
        ("stack.fs.counters.decompress_blocks_device", "blocks", "device-compressed blocks read and decompressed by the device (cleaning reads included)"),
        ("stack.fs.counters.decompress_blocks_host", "blocks", "blocks decompressed on the host: data blocks of host-compressed clusters plus device-compressed blocks read for host decompression"),
        ("stack.fs.counters.failed_ios", "count", "block I/Os the device failed"),
        ("stack.fs.counters.files_created", "count", "files created (block-level streams' files and fill files included)"),
        ("stack.fs.counters.files_deleted", "count", "files deleted"),
        ("stack.fs.counters.enospc", "count", "write requests refused for lack of space (or beyond the largest file)"),
        ("stack.fs.counters.zone_resets", "count", "zones reset because their section became free (zoned device only)"),
        ("stack.fs.counters.zone_sections_closed_early", "count", "sections closed before their end because their compressed zone filled (its data did not compress enough); their zones were finished"),
        ("stack.fs.counters.zone_blocks_unused", "blocks", "blocks of the sections closed early left unwritten, unusable until their zone's reset"),
        ("stack.zoned.zone_blocks", "blocks", "blocks per section on a zoned device: the zone capacity"),
        ("stack.zoned.sections_cleaned", "count", "sections (zones) the file system cleaned, foreground and background"),
        ("stack.zoned.blocks_moved", "blocks", "valid blocks the file system's cleaning moved, foreground and background"),
        ("stack.zoned.zones_reset", "count", "zones the file system reset once their section was free"),
        ("stack.zoned.host_waf", "ratio", "host write amplification: blocks the file system wrote over those it wrote other than cleaning copies"),
        ("stack.device.counters.host_write_blocks", "blocks", "blocks written by the host (all kinds)"),
        ("stack.device.counters.engine_compress_blocks", "blocks", "blocks the engine compressed"),
        ("stack.device.counters.engine_decompress_blocks", "blocks", "blocks the engine decompressed"),
        ("stack.device.counters.engine_busy_ns", "ns", "engine lane time (ns), including throttled slow-down"),
        ("stack.device.counters.engine_energy_pj", "pJ", "engine energy (pJ)"),
        ("stack.device.counters.host_compressed_blocks", "blocks", "written blocks the host had compressed (stored as they are, engine bypassed)"),
        ("stack.device.counters.incompressible_blocks", "blocks", "written blocks stored raw without the engine: flagged incompressible, or the engine is off"),
        ("stack.device.counters.raw_stored_blocks", "blocks", "blocks the engine compressed to 4096 bytes or more, stored raw"),
        ("stack.device.counters.logical_bytes_written", "B", "logical bytes written by the host (4 KiB per block)"),
        ("stack.device.counters.stored_bytes_written", "B", "chunk bytes of host writes placed into pages"),
        ("stack.device.counters.pad_bytes", "B", "page bytes left empty by packing host pages"),
        ("stack.device.counters.gc_pad_bytes", "B", "page bytes left empty by packing GC pages"),
        ("stack.device.counters.pages_programmed_host", "pages", "pages programmed with host chunks"),
        ("stack.device.counters.pages_programmed_gc", "pages", "pages programmed by GC"),
        ("stack.device.counters.gc_invocations", "count", "GC episodes"),
        ("stack.device.counters.gc_chunks_migrated", "count", "valid chunks GC moved"),
        ("stack.device.counters.gc_bytes_migrated", "B", "bytes of those chunks"),
        ("stack.device.counters.gc_pages_read", "pages", "victim pages GC read"),
        ("stack.device.counters.gc_blocks_erased", "blocks", "blocks GC erased"),
        ("stack.device.counters.buffer_full_waits", "count", "host pages that waited for a DRAM buffer slot"),
        ("stack.device.counters.host_read_blocks", "blocks", "blocks read by the host"),
        ("stack.device.counters.unmapped_read_blocks", "blocks", "of those, unmapped blocks answered with zeros"),
        ("stack.device.counters.dram_read_blocks", "blocks", "of those, blocks served from a page still in DRAM"),
        ("stack.device.counters.host_pages_read", "pages", "nAND pages read for host reads"),
        ("stack.device.counters.trimmed_blocks", "blocks", "mapped blocks discarded by TRIM"),
        ("stack.device.counters.throttled_ns", "ns", "time spent throttled in the measured window (ns)"),
        ("stack.device.counters.first_throttle_ns", "ns", "when throttling first started (ns)"),
        ("stack.device.counters.shutdown_ns", "ns", "when the device shut down (ns)"),
        ("stack.device.counters.failed_ios", "count", "requests failed because the device had shut down"),
        ("stack.device.counters.max_temperature_c", "°C", "highest temperature reached (°C)"),
        ("stack.device.counters.energy_idle_j", "J", "controller idle energy (J)"),
        ("stack.device.counters.energy_nand_j", "J", "nAND energy: reads, programs, erases, channel transfers (J)"),
        ("stack.device.counters.energy_engine_j", "J", "engine energy (J)"),
        ("stack.device.counters.energy_link_j", "J", "host-link data-path energy (J)"),
        ("stack.device.counters.energy_leak_j", "J", "leakage energy (J)"),
        ("stack.device.counters.energy_total_j", "J", "sum of the above (J)"),
        ("stack.temperature.max_c", "°C", "highest temperature (°C)"),
        ("stack.temperature.end_c", "°C", "temperature at the end (°C)"),
        ("stack.temperature.first_throttle_s", "s", "when the device first throttled (s), if it did"),
        ("stack.temperature.throttled_s", "s", "time spent throttled in the measured window (s)"),
        ("stack.temperature.shutdown_s", "s", "when the device shut down (s), if it did"),
        ("stack.temperature.failed_requests", "count", "requests that failed (device shut down or file system full)"),
        ("stack.tasks.compress_device_blocks", "blocks", "blocks compressed by the CCSD"),
        ("stack.tasks.compress_host_blocks", "blocks", "blocks compressed on the host"),
        ("stack.tasks.compress_skipped_blocks", "blocks", "blocks written without compression (incompressible label)"),
        ("stack.tasks.decompress_device_blocks", "blocks", "blocks decompressed by the CCSD"),
        ("stack.tasks.decompress_host_blocks", "blocks", "blocks decompressed on the host"),
        ("stack.tasks.host_share", "fraction", "host share of all (de)compressed blocks"),
        ("stack.fs.cleaning_invocations", "count", "segments cleaned in the foreground"),
        ("stack.fs.cleaning_blocks_moved", "blocks", "blocks copied by cleaning"),
        ("stack.fs.ssr_blocks", "blocks", "blocks written by thread logging"),
        ("stack.fs.rmw_clusters", "count", "clusters read-modify-written"),
        ("stack.fs.user_blocks_written", "blocks", "blocks users wrote"),
        ("stack.fs.fs_blocks_written", "blocks", "blocks the file system wrote to the device"),
        ("stack.fs.extra_rs_fraction_end", "fraction", "extra reserved space at the end (fraction of the partition)"),
        ("stack.fs.extra_rs_fraction_max", "fraction", "largest extra reserved space (fraction of the partition)"),
        ("stack.device.logical_bytes", "B", "logical bytes mapped"),
        ("stack.device.physical_bytes", "B", "physical bytes they occupy"),
        ("stack.device.saved_bytes", "B", "saved by compression"),
        ("stack.device.engine_compress_blocks", "blocks", "blocks the engine compressed"),
        ("stack.device.engine_decompress_blocks", "blocks", "blocks the engine decompressed"),
        ("stack.device.gc_invocations", "count", "device GC episodes"),
        ("stack.device.gc_chunks_migrated", "count", "chunks GC moved"),
        ("stack.cpu.cores", "cores", "host cores"),
        ("stack.cpu.compress_busy_s", "s", "core time compressing (s)"),
        ("stack.cpu.decompress_busy_s", "s", "core time decompressing (s)"),
        ("stack.cpu.syscall_busy_s", "s", "core time of system calls the page cache served (s)"),
        ("stack.cpu.utilization", "fraction", "share of all core time the I/O stack used ((de)compression and cached system calls)"),
        ("stack.cpu.compute_progress", "fraction", "co-running CPU job's progress relative to running alone (`null` without one)"),
        ("stack.cpu.buffer_bytes_mean", "B", "time-weighted mean host memory held by running (de)compression tasks (bytes)"),
        ("stack.cpu.buffer_bytes_peak", "B", "most host memory (de)compression tasks held at once over the whole run (a level, warm-up included): each running task holds its uncompressed buffer (bytes)"),
        ("stack.energy.device_j", "J", "device energy (J)"),
        ("stack.energy.device_mean_w", "W", "mean device power (W)"),
        ("stack.energy.host_cpu_j", "J", "host CPU energy (J)"),
        ("stack.energy.host_mean_w", "W", "mean host CPU power (W)"),
        ("stack.energy.total_j", "J", "sum (J)"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Recorder;
    use crate::units::SimTime;
    use crate::workload::Op;

    fn check_within(lats: &[u64]) {
        let mut rec = Recorder::new(1_000_000_000);
        for &l in lats {
            rec.record(0, Op::Read, 4096, SimTime(0), SimTime(l));
        }
        let s = OpSummary::new(&rec.read, Some(&rec.read_hist), 1.0);
        let l = s.latency_us.unwrap();
        let (min, max) = (
            *lats.iter().min().unwrap() as f64 * 1e-3,
            *lats.iter().max().unwrap() as f64 * 1e-3,
        );
        assert_eq!(l.max, max);
        for (name, p) in [("p50", l.p50), ("p99", l.p99), ("p999", l.p999)] {
            assert!(p <= l.max, "{name} {p} us above max {} us", l.max);
            assert!(p >= min, "{name} {p} us below min {min} us");
        }
    }

    #[test]
    fn percentiles_never_exceed_the_exact_max() {
        // The reported case: p99.9 3,386,900.5 us over a max of 3,385,211.96 us. At 3.4 s an
        // HDR bucket of 3 significant figures is ~2 ms wide; its highest equivalent value is
        // above every latency recorded in it.
        let top = 3_385_211_960u64;
        let mut lats = vec![1_000_000u64; 500];
        lats.extend(std::iter::repeat_n(top, 600));
        let mut rec = Recorder::new(1_000_000_000);
        for &l in &lats {
            rec.record(0, Op::Read, 4096, SimTime(0), SimTime(l));
        }
        assert!(
            rec.read_hist.value_at_quantile(0.999) > top,
            "the case must exercise the clamp"
        );
        check_within(&lats);
        // a single request: every percentile is that latency
        check_within(&[top]);
    }

    #[test]
    fn percentiles_never_fall_below_the_exact_min() {
        // Beyond the histogram's one-hour cap latencies are recorded at the cap, below the
        // exact minimum of these.
        let h = 3_600_000_000_000u64;
        let lats = [2 * h, 3 * h, 2 * h + 7];
        let mut rec = Recorder::new(1_000_000_000);
        for &l in &lats {
            rec.record(0, Op::Read, 4096, SimTime(0), SimTime(l));
        }
        assert!(rec.read_hist.value_at_quantile(0.5) < 2 * h);
        check_within(&lats);
    }
}
