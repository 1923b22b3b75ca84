//! What a run's memory will be, known from its config before anything large is allocated.
//!
//! [`estimate`] adds up the structures a run builds (page maps, block bookkeeping, dedup
//! tables, the compression packer, the timeline, histograms, the content cache, the storage
//! stack's arrays), each from the element sizes of the real types (`size_of`), so the figure
//! follows the code when a structure changes. [`check`] compares the total with a limit
//! (`--max-memory`, or the machine's available memory) and refuses a run that would not fit
//! with an error naming the biggest components and the config keys that size them.
//! `Simulation::new` calls it before it opens the workload or builds the device.
//!
//! A fio workload's job clones add the arrays that grow with their regions
//! ([`crate::workload::fio::region_parts`], from the regions the job file resolves to: a
//! job's `size`/`filesize`, else the device's capacity): `fio.random_map` (one bit per
//! smallest block, for jobs whose block sizes vary), `fio.verify_tree` (two bits per 512
//! bytes: 128 MiB for a 256 GiB region), `fio.verify_list` (one bit per block of a random
//! job with equal blocks: 8 MiB at 256 GiB in 4 KiB blocks; for fio's list, which other
//! random-map jobs keep, 4 bytes per write of a loop packed, 16 where the packing does not
//! fit) and `fio.files` (per-file positions).
//!
//! What the estimate leaves out is small or bounded by the workload rather than by the
//! config: request slots and queues (bounded by the queue depths), a `time_based` fio
//! verify job's history beyond one pass (it grows with the passes until something reads
//! it back: 16 bytes a write for fio's list, one bitmap a pass for the replayed one, also
//! when its `verify_backlog` spans more than one pass),
//! `zonemode=zbd`'s per-zone state, the sector map of `sg_write_mode` VERIFY jobs, a
//! trace's scan table, a file corpus's bytes.
//! The controller's GC queues depend on the load too: 16 bytes a queued page migration
//! (`device::sched::GcQueue`), about 1.6 MB at the heap's peak in the default preset's run
//! (heaptrack; 3.4% of its peak RSS, the largest part the estimate leaves out). A bound from
//! the config alone (the GC threshold's pages in every plane) would overstate every preset
//! that does little GC by more than the 5% the estimate keeps to, and a typical size has no
//! config key to follow (the queues' length is set by how far foreground GC runs ahead of the
//! planes), so they are left out; a timed replay that overloads the device can queue far
//! more. The latency histograms, which also grow during a run, are counted (`stats.histograms`,
//! see there).

use crate::config::{DedupFingerprint, SimConfig, WorkloadConfig};
use crate::error::{Error, Result};
use crate::stats::Recorder;
use crate::units::SimTime;
use std::mem::size_of;

/// One part of the estimate.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Component {
    /// What it is (`ftl.page_map`).
    pub name: &'static str,
    /// Bytes.
    pub bytes: u64,
    /// How the figure was reached (counts and element sizes).
    pub detail: String,
    /// The config key whose value sizes it most, to name in an error.
    pub key: &'static str,
}

/// A run's memory estimate.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MemoryEstimate {
    /// Total of the components (bytes).
    pub total_bytes: u64,
    /// The parts, largest first.
    pub components: Vec<Component>,
    /// Physical pages of the flash array.
    pub physical_pages: u64,
    /// Page size (bytes).
    pub page_size: u64,
    /// Physical capacity (bytes).
    pub physical_bytes: u64,
    /// Logical capacity the host sees (bytes).
    pub logical_bytes: u64,
    /// Timeline intervals the estimate assumes.
    pub timeline_intervals: u64,
}

/// The limit a run's estimate is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryLimit {
    /// The machine's available memory ([`available_memory`]); unchecked where unknown.
    Machine,
    /// At most this many bytes (`--max-memory`).
    Bytes(u64),
    /// No check.
    Unlimited,
}

/// Simulated time the timeline term assumes when the config does not bound the run's length:
/// one second, the default sampling interval's one row.
pub const ASSUMED_HORIZON: SimTime = SimTime(1_000_000_000);

/// A demand cache's write-back state per translation page: its epoch and pending flag.
const TPAGE_STATE_BYTES: usize = size_of::<u32>() + size_of::<bool>();

fn pages_of(cfg: &SimConfig) -> u64 {
    let n = &cfg.nand;
    n.channels as u64
        * n.chips_per_channel as u64
        * n.dies_per_chip as u64
        * n.planes_per_die as u64
        * n.blocks_per_plane as u64
        * n.pages_per_block as u64
}

fn blocks_of(cfg: &SimConfig) -> u64 {
    pages_of(cfg) / cfg.nand.pages_per_block.max(1) as u64
}

/// `bytes` in a short human form (`34.0 GiB`).
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

struct Parts(Vec<Component>);

impl Parts {
    fn add(&mut self, name: &'static str, key: &'static str, bytes: u64, detail: String) {
        if bytes > 0 {
            self.0.push(Component {
                name,
                bytes,
                detail,
                key,
            });
        }
    }

    /// `n` elements of `each` bytes.
    fn array(&mut self, name: &'static str, key: &'static str, n: u64, each: usize, what: &str) {
        let b = n.saturating_mul(each as u64);
        self.add(name, key, b, format!("{n} {what} x {each} B"));
    }
}

/// The memory a run of `cfg` will use, by component. Arithmetic on the config (and a fio
/// workload's job file, read and resolved to size its jobs' regions): allocates nothing
/// that grows with the device.
pub fn estimate(cfg: &SimConfig) -> MemoryEstimate {
    estimate_with_layout(cfg, crate::ftl::MapLayout::Auto)
}

/// [`estimate`] of a run whose page map is built in `layout` (`Ftl::with_layout`).
pub fn estimate_with_layout(cfg: &SimConfig, layout: crate::ftl::MapLayout) -> MemoryEstimate {
    let pages = pages_of(cfg);
    let blocks = blocks_of(cfg);
    let page_size = cfg.nand.page_size as u64;
    let bpp = "nand.blocks_per_plane";
    let mut p = Parts(Vec::new());
    // A fio job's arrays that grow with its region: the random map, the verify history,
    // per-file state ([`crate::workload::fio::region_parts`]). A workload that does not
    // load adds nothing here: its error comes when it is opened.
    let fio = match &cfg.workload {
        WorkloadConfig::Fio(f) => crate::workload::fio::region_parts(
            f,
            crate::sim::workload_capacity(cfg),
            cfg.stack.is_some(),
        )
        .unwrap_or_default(),
        _ => Default::default(),
    };
    // A fio job's `verify` turns the run's verify mode on when the workload opens.
    let verify = cfg.check.verify || fio.verify;
    // The NAND array's and the scheduler's per-block arrays (erase counts; erases queued,
    // erased-but-free flags, programs in flight), and an FTL's block bookkeeping with its
    // free lists.
    let nand_block = size_of::<u32>() + size_of::<u8>() + size_of::<bool>() + size_of::<u16>();
    let ftl_block = crate::ftl::Blocks::BYTES_PER_BLOCK + size_of::<u32>();
    let logical_bytes;
    match &cfg.stack {
        None if cfg.zns.is_some() => {
            // A zoned device has no page map (`Ftl::unmapped`): only the block bookkeeping.
            logical_bytes = crate::ftl::logical_pages(cfg) * cfg.mapping_unit() as u64;
            p.array("nand.blocks", bpp, blocks, nand_block, "blocks");
            p.array("ftl.blocks", bpp, blocks, ftl_block, "blocks");
            if verify {
                // The content id per flash page and the expected content per zone page.
                let z = cfg.zns.as_ref().expect("a zoned device");
                let logical =
                    u64::from(z.zones(&cfg.nand)) * z.zone_size_bytes(&cfg.nand) / page_size;
                p.add(
                    "verify",
                    "check.verify",
                    (pages + logical) * size_of::<u64>() as u64,
                    format!("({pages} flash + {logical} zone pages) x 8 B"),
                );
                if z.compression().is_some() {
                    // Per zone flash page its chunks' list and page id; per zone block its
                    // chunk (at most one each) and a zero-block content id.
                    let per_page = size_of::<Vec<(u64, u32, u64)>>() + size_of::<u64>();
                    let per_block = size_of::<(u64, u32, u64)>() + size_of::<u64>();
                    p.add(
                        "verify.zones",
                        "check.verify",
                        pages * per_page as u64 + logical * per_block as u64,
                        format!("{pages} flash pages x {per_page} B + {logical} zone blocks x {per_block} B"),
                    );
                }
            }
        }
        None => {
            // The page map maps mapping units (the NAND page unless ftl.mapping_unit is set):
            // its arrays have one entry per logical and per physical unit.
            let logical = crate::ftl::logical_pages(cfg);
            logical_bytes = logical * cfg.mapping_unit() as u64;
            let mapped = crate::ftl::mapped_pages(cfg);
            let units = pages / cfg.unit_pages() as u64 * cfg.units_per_page() as u64;
            p.array("nand.blocks", bpp, blocks, nand_block, "blocks");
            p.array("ftl.blocks", bpp, blocks, ftl_block, "blocks");
            // The page map: an entry per mapped unit and translation page, `u32` or packed as
            // wide as the physical units need (`ftl::unitmap`).
            let entries = mapped + crate::ftl::translation_pages(cfg);
            let bits = crate::ftl::PageMap::bits(units, layout);
            p.add(
                "ftl.page_map",
                bpp,
                crate::ftl::PageMap::bytes_for(entries, units, layout),
                format!(
                    "{entries} mapped units x {}",
                    bits.map_or("4 B".to_string(), |b| format!("{b} bits"))
                ),
            );
            // The reverse map's entries are as wide as the logical units (and translation
            // pages) need.
            let values = entries;
            p.add(
                "ftl.reverse_map",
                bpp,
                crate::ftl::UnitMap::bytes_for(units, values),
                format!(
                    "{units} physical units x {} bits",
                    crate::ftl::UnitMap::bits_for(values)
                ),
            );
            if cfg.fdp.is_some() {
                p.array(
                    "ftl.fdp",
                    bpp,
                    units,
                    crate::ftl::fdp::FdpState::BYTES_PER_SLOT,
                    "physical units (the reclaim unit handle of each)",
                );
                // At most: the table stops taking rows there (the counts go on).
                p.array(
                    "ftl.fdp_events",
                    "fdp.ru_bytes",
                    crate::ftl::fdp::MAX_EVENT_ROWS as u64,
                    std::mem::size_of::<crate::ftl::fdp::FdpEvent>(),
                    "FDP events at most (the events table)",
                );
            }
            if crate::ftl::mapcache::demand(cfg).is_some() {
                // The simulator keeps the whole map to know the truth; the cache's state is
                // per entry (its lists, segment, dirty mark) beside it, and the directory's
                // entries of the translation pages are in the page map.
                p.array(
                    "ftl.map_cache",
                    bpp,
                    crate::ftl::mapcache::table(cfg).total_entries(),
                    crate::ftl::mapcache::BYTES_PER_ENTRY,
                    "map entries",
                );
                p.array(
                    "ftl.map_cache.pages",
                    bpp,
                    crate::ftl::mapcache::translation_pages(cfg),
                    TPAGE_STATE_BYTES,
                    "translation pages (write-back state)",
                );
                if let Some(c) = cfg.ftl.compression() {
                    // The packer's logical pages per virtual page, for GC's map updates.
                    p.array(
                        "ftl.map_cache.residents",
                        bpp,
                        mapped,
                        crate::ftl::packed::pages::PagePacker::residents_bytes_per_vpn(
                            c.max_chunks_per_page,
                        ),
                        "virtual pages",
                    );
                }
            }
            if verify {
                // The FTL's content id per physical page and the device's expected content
                // per logical page; with compression, per virtual page the chunks it holds
                // (one each), a page id and a zero-page content id.
                let chunk = size_of::<(u64, u32, u64)>();
                let per_vpn = if cfg.ftl.compression().is_some() {
                    size_of::<Vec<(u64, u32, u64)>>() + chunk + 2 * size_of::<u64>()
                } else {
                    0
                };
                p.add(
                    "verify",
                    "check.verify",
                    (units + mapped) * size_of::<u64>() as u64 + mapped * per_vpn as u64,
                    format!(
                        "({units} physical + {mapped} logical units) x 8 B + {mapped} x {per_vpn} B"
                    ),
                );
            }
            if let Some(d) = cfg.ftl.dedup() {
                use crate::ftl::dedup::Dedup;
                let strong = d.fingerprint == DedupFingerprint::Bytes;
                // Inline, every page written is fingerprinted: the index can name every
                // logical page. In GC, only the pages GC moves are, which the config does
                // not tell; the estimate leaves that index out.
                let indexed = match d.mode {
                    crate::config::DedupMode::Inline => logical,
                    crate::config::DedupMode::Gc => 0,
                };
                p.add(
                    "ftl.dedup",
                    bpp,
                    Dedup::estimate_bytes(logical, mapped, strong, indexed),
                    format!("{logical} logical pages, {mapped} nodes, {indexed} indexed"),
                );
                if crate::ftl::fpindex::demand(cfg).is_some() {
                    // The bucket-page cache: per bucket page its cache state and write-back
                    // state (the bucket pages' directory entries are in the page map).
                    p.array(
                        "ftl.dedup.index_cache",
                        bpp,
                        crate::ftl::fpindex::index_pages(cfg),
                        crate::ftl::mapcache::BYTES_PER_ENTRY + TPAGE_STATE_BYTES,
                        "bucket pages",
                    );
                }
                if cfg.check.invariants {
                    p.add(
                        "check.dedup",
                        "check.invariants",
                        Dedup::check_bytes(mapped),
                        format!("{mapped} nodes x 8 B"),
                    );
                }
            }
            if cfg.ftl.compression().is_some() {
                // The packer: its map (one u64 per logical page, in leaves), per virtual
                // page a live count and a free-list entry, per logical page its metadata.
                let per_lpn = size_of::<u64>() + size_of::<u16>();
                let per_vpn = size_of::<u8>() + size_of::<u32>();
                p.add(
                    "ftl.compression",
                    bpp,
                    mapped * (per_lpn + per_vpn) as u64,
                    format!("{mapped} pages x {} B", per_lpn + per_vpn),
                );
                if cfg.check.invariants {
                    // The packer's check at the end, with the logical space as full as the
                    // preconditioning leaves it.
                    let filled = (cfg.precondition.fill_fraction * logical as f64) as u64;
                    p.add(
                        "check.compression",
                        "check.invariants",
                        crate::ftl::packed::pages::PagePacker::check_bytes(mapped, filled),
                        format!("{mapped} virtual pages, {filled} chunks"),
                    );
                }
            }
        }
        Some(st) => {
            let user = crate::stack::user_bytes_of(st);
            logical_bytes = user;
            let logical_blocks =
                (pages as f64 * page_size as f64 * (1.0 - cfg.ftl.op_ratio) * st.ccsd.logical_ratio
                    / 4096.0) as u64;
            p.array("nand.blocks", bpp, blocks, nand_block, "blocks");
            let fs_blocks = st.fs.partition_bytes / 4096 + crate::stack::max_extra_rs_blocks(st);
            if cfg.zns.is_some() {
                // The file system on a zoned device: no packed map, the block bookkeeping.
                p.array("ftl.blocks", bpp, blocks, ftl_block, "blocks");
            } else {
                // The CCSD's packed FTL. Per erase block its arrays; per block holding valid data
                // the LBAs written into it and, straddling, its page links (a block whose data
                // was all overwritten frees both). The file system writes only its partition and
                // extra reserved space, in log order, so the blocks holding data are about those
                // blocks' bytes in pages (uncompressed: an upper bound whatever the ratio), each
                // page's chunks one run in its block's list.
                use crate::ftl::packed::Packed;
                let stored_pages = (fs_blocks * 4096).div_ceil(page_size).min(pages);
                p.add(
                    "ccsd.blocks",
                    bpp,
                    blocks * Packed::BYTES_PER_BLOCK as u64
                        + stored_pages * Packed::LIST_BYTES_PER_STORED_PAGE as u64,
                    format!(
                        "{blocks} blocks x {} B + {stored_pages} pages of stored data x {} B",
                        Packed::BYTES_PER_BLOCK,
                        Packed::LIST_BYTES_PER_STORED_PAGE
                    ),
                );
                let written = logical_blocks.min(fs_blocks).next_multiple_of(1 << 16);
                p.array(
                    "ccsd.map",
                    "stack.fs.partition_bytes",
                    written,
                    size_of::<u64>(),
                    "logical blocks written",
                );
                if crate::ftl::mapcache::demand(cfg).is_some() {
                    // The demand-paged chunk map: the cache's per-entry state in leaves allocated
                    // where blocks are looked up (the blocks the file system uses, as the map's),
                    // and per translation page its directory entry and write-back state.
                    p.array(
                        "ccsd.map_cache",
                        "stack.fs.partition_bytes",
                        written,
                        crate::ftl::mapcache::BYTES_PER_ENTRY,
                        "logical blocks looked up",
                    );
                    p.array(
                        "ccsd.map_cache.directory",
                        bpp,
                        crate::ftl::mapcache::translation_pages(cfg),
                        size_of::<u32>() + TPAGE_STATE_BYTES,
                        "translation pages (directory entry, write-back state)",
                    );
                }
                if st.ccsd.straddle {
                    p.array(
                        "ccsd.next",
                        bpp,
                        stored_pages,
                        Packed::LINK_BYTES_PER_STORED_PAGE,
                        "pages of stored data",
                    );
                }
            }
            // The file system: per block of the partition and extra reserved space its owner
            // (file, block) and a bit, per file block its address, content id and kind.
            p.add(
                "fs.segments",
                "stack.fs.partition_bytes",
                fs_blocks * size_of::<u64>() as u64 + fs_blocks / 8,
                format!("{fs_blocks} blocks x 8 B + bitmap"),
            );
            let per_file_block = size_of::<u32>() + size_of::<u64>() + size_of::<u8>();
            p.array(
                "fs.files",
                "stack.fs.partition_bytes",
                user / 4096,
                per_file_block,
                "file blocks",
            );
            if st.cache.enabled {
                let cache_pages = (st.cache.capacity_mib << 8).min(user / 4096);
                // Per cached page: its content id and an index entry.
                let each = size_of::<u64>() * 4;
                p.array(
                    "page_cache",
                    "stack.cache.capacity_mib",
                    cache_pages,
                    each,
                    "cached pages",
                );
            }
        }
    }
    if cfg.ftl.write_buffer_pages > 0 && cfg.stack.is_some() && cfg.zns.is_none() {
        // The CCSD's DRAM slots: a heap of program end times, one per page in flight.
        p.array(
            "write_buffer",
            "ftl.write_buffer_pages",
            (cfg.ftl.write_buffer_pages as u64 + 1).min(pages),
            size_of::<std::cmp::Reverse<SimTime>>(),
            "slots",
        );
    } else if cfg.ftl.write_buffer_pages > 0 {
        // The plain SSD's waiting pages (request slot, page, time), at most one per slot.
        p.array(
            "write_buffer",
            "ftl.write_buffer_pages",
            (cfg.ftl.write_buffer_pages as u64).min(pages),
            size_of::<crate::device::buffer::Waiter>(),
            "waiting pages",
        );
    }
    // The content model's size cache (bytes mode: model mode draws sizes from a curve): one
    // entry per distinct content id, up to `content.cache_entries` per measure (the
    // content's codec, the SSD's, the stack's file system and CCSD).
    if cfg.content.mode == crate::config::ContentMode::Bytes {
        let measures: u64 = 1 + match &cfg.stack {
            Some(_) => 2,
            None => cfg.ftl.compression().is_some() as u64,
        };
        let distinct = (cfg.content.cache_entries as u64).min(pages);
        let buckets = (distinct * 8 / 7).max(1).next_power_of_two();
        p.add(
            "content.cache",
            "content.cache_entries",
            measures * buckets * (size_of::<(u64, u32)>() as u64 + 1),
            format!(
                "{measures} x {buckets} buckets of {} B",
                size_of::<(u64, u32)>() + 1
            ),
        );
    }
    for r in fio.parts {
        let key = if r.sized {
            "fio size"
        } else {
            "nand.blocks_per_plane"
        };
        p.add(r.name, key, r.bytes, r.detail);
    }
    // The latency histograms grow with the longest latency they record (8 KiB each per
    // doubling, 264 KiB each at most, an hour). A bound where the config bounds the run's
    // length (no request waits much longer than the run lasts; one doubling beyond it adds
    // 8 KiB); otherwise what latencies up to the assumed second need, as the timeline
    // assumes: an assumption, not a bound (the default preset's four histograms hold exactly
    // that at its peak, 688,128 B, measured with heaptrack; longer latencies, up to the
    // hour, would add up to 384 KiB).
    let bounded = horizon_ns(cfg);
    let span_ns = bounded.unwrap_or(ASSUMED_HORIZON.0);
    let longest = if span_ns < 1_000_000_000 {
        format!("{} ms", span_ns as f64 / 1e6)
    } else {
        format!("{} s", span_ns as f64 / 1e9)
    };
    p.add(
        "stats.histograms",
        "",
        Recorder::histogram_bytes(span_ns),
        format!(
            "{} HDR histograms grown to latencies up to {longest} ({}), 3 digits",
            Recorder::HISTOGRAMS,
            if bounded.is_some() {
                "the run's length"
            } else {
                "assumed"
            }
        ),
    );
    let interval_ns = (cfg.stats.interval_ms * 1e6).round().max(1.0);
    let horizon = span_ns as f64;
    let intervals = (horizon / interval_ns).ceil().clamp(1.0, u64::MAX as f64) as u64;
    let per = Recorder::bytes_per_interval();
    p.add(
        "stats.timeline",
        "stats.interval_ms",
        intervals.saturating_mul(per),
        format!(
            "{intervals} intervals of {} ms over {} s x {per} B",
            cfg.stats.interval_ms,
            horizon / 1e9
        ),
    );
    let mut components = p.0;
    components.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.name.cmp(b.name)));
    MemoryEstimate {
        total_bytes: components
            .iter()
            .fold(0u64, |t, c| t.saturating_add(c.bytes)),
        components,
        physical_pages: pages,
        page_size,
        physical_bytes: pages * page_size,
        logical_bytes,
        timeline_intervals: intervals,
    }
}

/// The run's simulated length when the config bounds it: a fio workload of inline jobs that
/// all give a `runtime` (theirs or the global one). A trace's span is only known after its
/// scan, a job file's after it is parsed.
fn horizon_ns(cfg: &SimConfig) -> Option<u64> {
    use crate::config::OptionValue;
    let WorkloadConfig::Fio(f) = &cfg.workload else {
        return None;
    };
    let secs = |v: &OptionValue| match v {
        OptionValue::Int(i) if *i > 0 => Some(*i as f64),
        OptionValue::Float(x) if *x > 0.0 && x.is_finite() => Some(*x),
        OptionValue::Str(s) => crate::workload::fio::parse_time_ns(s)
            .ok()
            .filter(|&ns| ns > 0)
            .map(|ns| ns as f64 / 1e9),
        _ => None,
    };
    let global = f.global.get("runtime").and_then(secs);
    let mut longest: Option<f64> = None;
    for j in &f.jobs {
        let r = j.get("runtime").and_then(secs).or(global)?;
        longest = Some(longest.map_or(r, |l: f64| l.max(r)));
    }
    if f.path.is_some() || !f.args.is_empty() {
        return None;
    }
    longest.map(|s| (s * 1e9).min(u64::MAX as f64) as u64)
}

/// The memory this process may still use: [`machine_available_memory`], or what the
/// process's own limits leave (`ulimit -v`, `ulimit -d`: the soft limit less the address
/// space or data already mapped) when that is lower. `None` where unknown (not Linux).
pub fn available_memory() -> Option<u64> {
    available_memory_and_limit().map(|(b, _)| b)
}

/// [`available_memory`] and what sets it (words for a message).
pub fn available_memory_and_limit() -> Option<(u64, &'static str)> {
    let mut best = (
        machine_available_memory()?,
        "the memory available on this machine",
    );
    for (limit, used, what) in [
        (
            "Max address space",
            "VmSize:",
            "the process's address-space limit (ulimit -v) less what it has mapped",
        ),
        (
            "Max data size",
            "VmData:",
            "the process's data-size limit (ulimit -d) less what it uses",
        ),
    ] {
        if let Some(left) = process_limit_left(limit, used).filter(|&l| l < best.0) {
            best = (left, what);
        }
    }
    Some(best)
}

/// The machine's available memory, shared by every process: `MemAvailable` from
/// `/proc/meminfo`, or the cgroup's `memory.max` less its `memory.current` when that is
/// lower. `None` where unknown (not Linux).
pub fn machine_available_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let avail = meminfo.lines().find_map(|l| {
        let rest = l.strip_prefix("MemAvailable:")?;
        let kib: u64 = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kib * 1024)
    })?;
    let read = |p: &str| -> Option<u64> { std::fs::read_to_string(p).ok()?.trim().parse().ok() };
    let cgroup = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("0::").map(|p| p.trim().to_string()))
        })
        .and_then(|path| {
            let dir = format!("/sys/fs/cgroup{}", path.trim_end_matches('/'));
            let max = read(&format!("{dir}/memory.max"))?;
            let cur = read(&format!("{dir}/memory.current")).unwrap_or(0);
            Some(max.saturating_sub(cur))
        });
    Some(cgroup.map_or(avail, |c| c.min(avail)))
}

/// The soft limit named `limit` in `/proc/self/limits` (bytes) less the `used` line of
/// `/proc/self/status` (kB); `None` when unlimited or unreadable.
fn process_limit_left(limit: &str, used: &str) -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let soft: u64 = limits
        .lines()
        .find_map(|l| l.strip_prefix(limit))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?; // "unlimited" does not parse
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix(used))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(soft.saturating_sub(kib * 1024))
}

/// The bytes a limit allows, `None` when unchecked.
pub fn limit_bytes(limit: MemoryLimit) -> Option<u64> {
    limit_and_source(limit).map(|(b, _)| b)
}

/// The bytes a limit allows and what sets them, `None` when unchecked.
fn limit_and_source(limit: MemoryLimit) -> Option<(u64, &'static str)> {
    match limit {
        MemoryLimit::Machine => available_memory_and_limit(),
        MemoryLimit::Bytes(b) => Some((b, "the --max-memory limit")),
        MemoryLimit::Unlimited => None,
    }
}

/// Refuse `cfg` when its estimate exceeds `limit`, with an error naming the biggest
/// components and what to change. Returns the estimate.
pub fn check(cfg: &SimConfig, limit: MemoryLimit) -> Result<MemoryEstimate> {
    check_with_layout(cfg, limit, crate::ftl::MapLayout::Auto)
}

/// [`check`] of a run whose page map is built in `layout`.
pub fn check_with_layout(
    cfg: &SimConfig,
    limit: MemoryLimit,
    layout: crate::ftl::MapLayout,
) -> Result<MemoryEstimate> {
    let est = estimate_with_layout(cfg, layout);
    let Some((allowed, what)) = limit_and_source(limit) else {
        return Ok(est);
    };
    if est.total_bytes <= allowed {
        return Ok(est);
    }
    let top = &est.components[0];
    let biggest: Vec<String> = est
        .components
        .iter()
        .take(3)
        .map(|c| format!("{} {} ({})", c.name, human(c.bytes), c.detail))
        .collect();
    let value = key_value(cfg, top.key).map_or(String::new(), |v| {
        let pages = if top.key == "nand.blocks_per_plane" {
            format!(
                " gives {} physical pages of {} B",
                est.physical_pages, est.page_size
            )
        } else {
            String::new()
        };
        format!("{} = {v}{pages}: ", top.key)
    });
    let fix = if top.key.is_empty() {
        "raise --max-memory".to_string()
    } else {
        format!("lower {} or raise --max-memory", top.key)
    };
    let key = if top.key.is_empty() {
        "config"
    } else {
        top.key
    };
    Err(Error::config(
        "config",
        key,
        format!(
            "{value}the run needs about {} of memory, more than {what} ({}); the largest \
             parts: {}; {fix}",
            human(est.total_bytes),
            human(allowed),
            biggest.join(", "),
        ),
    ))
}

/// The value of one of the keys the estimate names, for its error message.
fn key_value(cfg: &SimConfig, key: &str) -> Option<String> {
    Some(match key {
        "nand.blocks_per_plane" => cfg.nand.blocks_per_plane.to_string(),
        "ftl.write_buffer_pages" => cfg.ftl.write_buffer_pages.to_string(),
        "stats.interval_ms" => cfg.stats.interval_ms.to_string(),
        "content.cache_entries" => cfg.content.cache_entries.to_string(),
        "stack.fs.partition_bytes" => cfg.stack.as_ref()?.fs.partition_bytes.to_string(),
        "stack.cache.capacity_mib" => cfg.stack.as_ref()?.cache.capacity_mib.to_string(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(extra: &str) -> SimConfig {
        SimConfig::from_toml_str(&format!("preset = \"default\"\n{extra}"), "test").unwrap()
    }

    #[test]
    fn page_map_scales_with_the_device() {
        let small = estimate(&cfg(""));
        let big = estimate(&cfg("[nand]\nblocks_per_plane = 8192\n"));
        let map = |e: &MemoryEstimate| {
            e.components
                .iter()
                .find(|c| c.name == "ftl.page_map")
                .unwrap()
                .bytes
        };
        assert!(map(&big) > 4 * map(&small));
        assert_eq!(
            map(&big),
            crate::ftl::mapped_pages(&cfg("[nand]\nblocks_per_plane = 8192\n")) * 4
        );
    }

    fn part(e: &MemoryEstimate, name: &str) -> Option<u64> {
        e.components
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.bytes)
    }

    #[test]
    fn a_zoned_device_has_no_page_map() {
        let e = estimate(&SimConfig::preset("zns").unwrap());
        assert_eq!(part(&e, "ftl.page_map"), None);
        assert_eq!(part(&e, "ftl.reverse_map"), None);
        assert!(part(&e, "ftl.blocks").is_some());
    }

    #[test]
    fn a_huge_device_is_refused_naming_its_key() {
        let c = cfg("[nand]\nblocks_per_plane = 262144\n");
        let e = check(&c, MemoryLimit::Bytes(1 << 30))
            .unwrap_err()
            .to_string();
        assert!(e.contains("nand.blocks_per_plane"), "{e}");
        assert!(e.contains("262144"), "{e}");
        assert!(e.contains("--max-memory"), "{e}");
        assert!(
            e.contains("ftl.page_map") || e.contains("ftl.reverse_map"),
            "{e}"
        );
    }

    #[test]
    fn a_tiny_interval_on_a_long_run_is_refused_by_its_timeline() {
        let c = cfg("[stats]\ninterval_ms = 0.001\n[workload]\ntype = \"fio\"\n[[workload.jobs]]\nrw = \"randread\"\nruntime = 3600\ntime_based = true\n");
        let e = check(&c, MemoryLimit::Bytes(6 << 30))
            .unwrap_err()
            .to_string();
        assert!(e.contains("stats.interval_ms"), "{e}");
    }

    /// A fio job's per-region arrays, from its region: a 1 GiB `size`, 4 KiB blocks.
    #[test]
    fn a_fio_verify_job_counts_its_history_by_its_region() {
        let job = |opts: &str| {
            cfg(&format!(
                "[workload]\ntype = \"fio\"\n[[workload.jobs]]\nverify = \"crc32c\"\n{opts}\n"
            ))
        };
        let blocks = (1u64 << 30) / 4096;
        // Equal blocks, random map: one bit per block, replayed.
        let e = estimate(&job("rw = \"randwrite\"\nbs = \"4k\"\nsize = \"1g\""));
        assert_eq!(part(&e, "fio.verify_list"), Some(blocks / 8));
        assert_eq!(part(&e, "fio.verify_tree"), None);
        let c = e.components.iter().find(|c| c.name == "fio.verify_list");
        assert_eq!(c.map(|c| c.key), Some("fio size"));
        // Two files, two clones: twice the bits, twice over.
        let e = estimate(&job(
            "rw = \"randwrite\"\nbs = \"4k\"\nsize = \"1g\"\nnrfiles = 2\nnumjobs = 2",
        ));
        assert_eq!(part(&e, "fio.verify_list"), Some(2 * (blocks / 8)));
        assert_eq!(part(&e, "fio.files"), Some(2 * 2 * 65));
        // No random map: the tree, two bits per 512 B.
        let e = estimate(&job(
            "rw = \"randwrite\"\nbs = \"4k\"\nsize = \"1g\"\nnorandommap = 1",
        ));
        assert_eq!(
            part(&e, "fio.verify_tree"),
            Some(2 * (1u64 << 30) / 512 / 8)
        );
        assert_eq!(part(&e, "fio.verify_list"), None);
        // bssplit: fio's bitmap random map, and fio's list, a power of two slots at least
        // the loop's writes of the smallest block, 4 B each (packed: 2^18 + 1 offsets of
        // 4 KiB, lengths up to 16 units).
        let e = estimate(&job(
            "rw = \"randwrite\"\nbssplit = \"4k/50:64k/50\"\nsize = \"1g\"",
        ));
        assert_eq!(part(&e, "fio.random_map"), Some(blocks / 8));
        assert_eq!(
            part(&e, "fio.verify_list"),
            Some(blocks.next_power_of_two() * 4)
        );
        // The LFSR replaces the random map (fio's init_random_map), bssplit or not: no map,
        // and its verify reads back through the tree.
        let e = estimate(&job(
            "rw = \"randwrite\"\nbssplit = \"4k/50:64k/50\"\nsize = \"1g\"\nrandom_generator = \"lfsr\"",
        ));
        assert_eq!(part(&e, "fio.random_map"), None);
        assert_eq!(part(&e, "fio.verify_list"), None);
        assert_eq!(
            part(&e, "fio.verify_tree"),
            Some(2 * (1u64 << 30) / 512 / 8)
        );
        // Block sizes of 4 KiB and 4 KiB + 512 B over 512 GiB: 2^30 + 1 offsets of 512 B and
        // lengths up to 9 units take more than 32 bits: 16 B slots.
        let e = estimate(&cfg(
            "[nand]\nblocks_per_plane = 65536\n[workload]\ntype = \"fio\"\n[[workload.jobs]]\nverify = \"crc32c\"\nrw = \"randwrite\"\nbssplit = \"4k/50:4608/50\"\nsize = \"512g\"\n",
        ));
        let n = (512u64 << 30) / 4096;
        assert_eq!(
            part(&e, "fio.verify_list"),
            Some(n.next_power_of_two() * 16)
        );
        // No size: the device's capacity sizes the region, and is the key named.
        let e = estimate(&job("rw = \"randwrite\"\nbs = \"4k\""));
        let c = e.components.iter().find(|c| c.name == "fio.verify_list");
        let dev_blocks = crate::sim::workload_capacity(&cfg("")) / 4096;
        assert_eq!(
            c.map(|c| (c.bytes, c.key)),
            Some((dev_blocks.div_ceil(64) * 8, "nand.blocks_per_plane"))
        );
        // A job that does not verify keeps no history; a job file that does not load
        // adds nothing (its error comes when the workload is opened).
        let e = estimate(&cfg(
            "[workload]\ntype = \"fio\"\n[[workload.jobs]]\nrw = \"randwrite\"\nsize = \"1g\"\n",
        ));
        assert!(e.components.iter().all(|c| !c.name.starts_with("fio.")));
    }

    /// The histograms' term follows the run's length: 3 significant digits keep 2,048
    /// counters for values below 2^11 ns and 1,024 more per doubling beyond, so latencies
    /// under 1 ms (< 2^20) need 11,264 counters, under the assumed second (< 2^30) 21,504,
    /// and an hour (< 2^42) 33,792, 8 bytes each, in each of the four histograms.
    #[test]
    fn the_histograms_are_counted_as_grown_to_the_runs_length() {
        let hist = |extra: &str| part(&estimate(&cfg(extra)), "stats.histograms");
        assert_eq!(hist(""), Some(4 * 21_504 * 8));
        let job = |runtime: &str| {
            format!("[workload]\ntype = \"fio\"\n[[workload.jobs]]\nrw = \"randread\"\nruntime = {runtime}\ntime_based = true\n")
        };
        assert_eq!(hist(&job("\"1ms\"")), Some(4 * 11_264 * 8));
        assert_eq!(hist(&job("3600")), Some(4 * 33_792 * 8));
        // Beyond the hour the histograms stop growing.
        assert_eq!(hist(&job("36000")), Some(4 * 33_792 * 8));
    }

    #[test]
    fn unlimited_never_refuses() {
        let c = cfg("[nand]\nblocks_per_plane = 262144\n");
        assert!(check(&c, MemoryLimit::Unlimited).is_ok());
    }

    #[test]
    fn machine_memory_is_read_on_linux() {
        if cfg!(target_os = "linux") {
            assert!(available_memory().is_some_and(|b| b > 0));
        }
    }
}
