//! The config structs. Units are in the key names (`_us`, `_ns`, `_mb_per_s`, bytes unless
//! named otherwise). Policy variants are tagged enums.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

pub use super::content::*;

/// A whole simulation: device, FTL, host, workload and run options.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimConfig {
    /// The named scheme the config was built from (`SEED/NAME`, e.g. `prssd/DP`): its keys
    /// were merged over the preset and under the config's own (recorded, not re-applied).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheme: Option<String>,
    /// Seed of every random stream in the run.
    pub seed: u64,
    /// NAND array geometry, timing and power.
    pub nand: NandConfig,
    /// Flash translation layer.
    pub ftl: FtlConfig,
    /// Host interface.
    pub host: HostConfig,
    /// The controller's flash back end: command scheduling per plane, program/erase suspend.
    pub controller: ControllerConfig,
    /// Steady-state fill done before the measured run, without simulating its timing.
    pub precondition: PreconditionConfig,
    /// Statistics collection.
    pub stats: StatsConfig,
    /// Self-checks.
    pub check: CheckConfig,
    /// What bytes written blocks hold and which codec measures them.
    #[serde(default)]
    pub content: ContentConfig,
    /// Host file system over a compression-capable SSD; absent: the workload drives the
    /// plain SSD directly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<super::stack::StackConfig>,
    /// A zoned namespace (NVMe ZNS) instead of the page FTL: absent, the device is a
    /// conventional SSD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zns: Option<ZnsConfig>,
    /// NVMe Flexible Data Placement: placement handles that host writes tagged with a
    /// placement identifier go to (absent: writes carry no placement identifiers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fdp: Option<FdpConfig>,
    /// What the host runs.
    pub workload: WorkloadConfig,
}

/// A zoned device (NVMe Zoned Namespace): zones written sequentially at their write pointers,
/// reset by the host, mapped onto flash by ConfZNS's zone-to-channel/way rule; no page map
/// and no device GC.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZnsConfig {
    /// Channels one zone spans (divides `nand.channels`).
    pub channels_per_zone: u32,
    /// Chips (ways) per channel one zone spans (divides `nand.chips_per_channel`).
    pub chips_per_zone: u32,
    /// Blocks a zone takes on each plane it spans (divides `nand.blocks_per_plane`); the
    /// zone's capacity is all the flash of those blocks.
    pub blocks_per_plane: u32,
    /// Zone size in bytes: the logical span of a zone, at least its capacity (absent: the
    /// capacity rounded up to a power of two, as drives report it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone_size: Option<u64>,
    /// Maximum open zones (0: no limit).
    pub max_open_zones: u32,
    /// Maximum active (open or closed) zones (0: no limit).
    pub max_active_zones: u32,
    /// Zones that start read-only (ZSRO), as a worn drive reports them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_only_zones: Vec<u32>,
    /// Zones that start offline (ZSO).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub offline_zones: Vec<u32>,
    /// Compression in the controller (CCZNS): each zone's blocks are compressed and packed
    /// in order into its flash, so a zone takes as many logical blocks as its flash holds
    /// compressed, up to the zone size (absent: zones store blocks as written). The keys of
    /// `ftl.compression`, but `split`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compression: Option<DeviceCompression>,
}

impl ZnsConfig {
    /// The zone shape divides the array, the zone size holds the capacity, the zones named
    /// exist, and nothing asks for what a zoned device has not.
    pub fn validate(&self, cfg: &SimConfig, src: &str) -> Result<()> {
        let n = &cfg.nand;
        for (k, v, of, of_key) in [
            (
                "zns.channels_per_zone",
                self.channels_per_zone,
                n.channels,
                "nand.channels",
            ),
            (
                "zns.chips_per_zone",
                self.chips_per_zone,
                n.chips_per_channel,
                "nand.chips_per_channel",
            ),
            (
                "zns.blocks_per_plane",
                self.blocks_per_plane,
                n.blocks_per_plane,
                "nand.blocks_per_plane",
            ),
        ] {
            check(v > 0 && of.is_multiple_of(v), src, k, || {
                format!("expected a divisor of {of_key} = {of}, got {v}")
            })?;
        }
        let cap = self.zone_capacity_bytes(n);
        if let Some(sz) = self.zone_size {
            check(
                sz >= cap && sz.is_multiple_of(n.page_size as u64),
                src,
                "zns.zone_size",
                || {
                    format!("expected a multiple of the {}-byte page of at least the zone capacity {cap} bytes, got {sz}", n.page_size)
                },
            )?;
        }
        let zones = self.zones(n);
        for (k, list) in [
            ("zns.read_only_zones", &self.read_only_zones),
            ("zns.offline_zones", &self.offline_zones),
        ] {
            for &z in list {
                check(z < zones, src, k, || {
                    format!(
                        "zone {z} does not exist: the device has {zones} zones (0 to {})",
                        zones - 1
                    )
                })?;
            }
        }
        if let Some(&z) = self
            .read_only_zones
            .iter()
            .find(|z| self.offline_zones.contains(z))
        {
            return Err(Error::config(
                src,
                "zns.offline_zones",
                format!("zone {z} is also in zns.read_only_zones"),
            ));
        }
        check(
            self.max_active_zones == 0 || self.max_open_zones <= self.max_active_zones,
            src,
            "zns.max_open_zones",
            || {
                format!(
                    "expected at most zns.max_active_zones = {}, got {}",
                    self.max_active_zones, self.max_open_zones
                )
            },
        )?;
        let refuse = |ok: bool, key: &str, what: &str| {
            check(ok, src, key, || format!("a zoned device (zns) {what}"))
        };
        if let Some(st) = &cfg.stack {
            self.validate_stack(cfg, st, src)?;
        }
        refuse(
            cfg.ftl.compression().is_none(),
            "ftl.compression",
            "compresses its zones with zns.compression (ftl.compression is the plain SSD's page FTL's)",
        )?;
        if let Some(c) = self.compression() {
            check(
                n.page_size <= 32_768 && n.page_size.is_power_of_two() && n.page_size >= 4096,
                src,
                "zns.compression",
                || {
                    format!(
                        "compression needs a power-of-two page of 4096 to 32768 bytes (the codec's unit), got {}",
                        n.page_size
                    )
                },
            )?;
            check(
                cfg.ftl.write_buffer_pages >= 1,
                src,
                "ftl.write_buffer_pages",
                || {
                    "compressed zones are programmed from the controller's DRAM: expected at least 1 buffer page, got 0".into()
                },
            )?;
            check(
                cfg.content.mode != crate::config::ContentMode::Off,
                src,
                "content.mode",
                || {
                    "compressed zones need the content model (mode = \"model\" or \"bytes\"): the sizes come from it".into()
                },
            )?;
            refuse(
                c.split.is_none(),
                "zns.compression.split",
                "packs a zone's pages in order: the split FTL (pages on different channels) does not apply",
            )?;
        }
        refuse(
            cfg.ftl.dedup().is_none(),
            "ftl.dedup",
            "has no page map to deduplicate in",
        )?;
        let filled = cfg.precondition.fill_fraction > 0.0;
        refuse(
            !filled || self.compression().is_none(),
            "precondition.fill_fraction",
            "with zns.compression is not preconditioned yet (its zones start empty): set precondition.fill_fraction = 0, or write the zones with the workload",
        )?;
        refuse(
            !filled || cfg.precondition.aging_fraction == 0.0,
            "precondition.aging_fraction",
            "is preconditioned by writing its zones in order (precondition.fill_fraction), and a zone is never overwritten in place, so random overwrites cannot age it: set precondition.aging_fraction = 0",
        )?;
        refuse(
            n.partial_read.as_ref().is_none_or(|p| !p.enabled),
            "nand.partial_read",
            "reads whole pages (partial reads are not modelled on zones)",
        )?;
        Ok(())
    }

    /// The `[stack]` file system on this zoned device (F2FS's zoned mode): what it needs of
    /// the device and the stack, each refusal naming its key.
    fn validate_stack(
        &self,
        cfg: &SimConfig,
        st: &super::stack::StackConfig,
        src: &str,
    ) -> Result<()> {
        let n = &cfg.nand;
        let refuse = |ok: bool, key: &str, what: String| {
            check(ok, src, key, || {
                format!("the [stack] file system on a zoned device (zns) {what}")
            })
        };
        refuse(
            n.page_size == 4096,
            "nand.page_size",
            format!(
                "addresses 4096-byte blocks: the zoned device's logical block is its page, \
                 got {} bytes",
                n.page_size
            ),
        )?;
        // A compressed zone reports its zone size as its capacity (it takes that many blocks
        // when they compress well enough; the file system closes a section whose zone fills
        // earlier).
        let (cap_blocks, what) = match self.compression() {
            None => (self.zone_capacity_bytes(n) / 4096, "the zone capacity"),
            Some(_) => (
                self.zone_size_bytes(n) / 4096,
                "the capacity a compressed zone reports, its zone size",
            ),
        };
        refuse(
            st.fs.segment_blocks as u64 == cap_blocks,
            "stack.fs.segment_blocks",
            format!(
                "takes one zone per section: expected {what}, {cap_blocks} blocks, got {}",
                st.fs.segment_blocks
            ),
        )?;
        refuse(
            st.fs.mode == super::stack::FsMode::Lfs,
            "stack.fs.mode",
            "writes zones only sequentially, as F2FS mounts a zoned device in \"lfs\" mode \
             (adaptive mode's thread logging writes into the holes of used zones): set \
             mode = \"lfs\""
                .into(),
        )?;
        refuse(
            !st.fs.meta.node_writes,
            "stack.fs.meta.node_writes",
            "has no place for the checkpoint, SIT and NAT areas, which are rewritten in place \
             (F2FS keeps them on a conventional device beside the zoned one): set \
             node_writes = false"
                .into(),
        )?;
        // Every log holds one open zone (hot, warm, cold data and the node log).
        const LOGS: u32 = 4;
        for (key, v) in [
            ("zns.max_open_zones", self.max_open_zones),
            ("zns.max_active_zones", self.max_active_zones),
        ] {
            refuse(
                v == 0 || v >= LOGS,
                key,
                format!(
                    "keeps one open zone per log ({LOGS} logs): expected 0 (no limit) or at \
                     least {LOGS}, got {v}"
                ),
            )?;
        }
        refuse(
            self.read_only_zones.is_empty() && self.offline_zones.is_empty(),
            if self.read_only_zones.is_empty() {
                "zns.offline_zones"
            } else {
                "zns.read_only_zones"
            },
            "does not skip worn (read-only or offline) zones".into(),
        )?;
        let mut policies = vec![("stack.policy".to_string(), st.policy.clone())];
        for (stream, p) in &st.stream_policy {
            policies.push((format!("stack.stream_policy.{stream}"), p.clone()));
        }
        for (key, name) in policies {
            let p = super::stack::PolicyKind::parse(&name, &key)?;
            refuse(
                !p.uses_device_compression(),
                &key,
                format!(
                    "compresses on the host only (the zoned device has no CCSD engine a policy \
                     could send data to; compressed zones compress all they hold), \
                     but policy `{name}` sends data to the device to compress: use \"f2fsc\""
                ),
            )?;
        }
        refuse(
            matches!(st.space, super::stack::SpacePolicy::Fixed),
            "stack.space",
            "keeps a fixed reserved space: the space policies grant space a compressing device \
             saved, and the zoned device saves none"
                .into(),
        )?;
        refuse(
            st.ccsd == super::stack::CcsdConfig::default(),
            "stack.ccsd",
            "runs on the zoned device ([nand], [zns]), not on a CCSD: remove [stack.ccsd]".into(),
        )?;
        Ok(())
    }

    /// Zone compression when enabled.
    pub fn compression(&self) -> Option<&DeviceCompression> {
        self.compression.as_ref().filter(|c| c.enabled)
    }

    /// Bytes of flash in a zone: its writable capacity.
    pub fn zone_capacity_bytes(&self, n: &NandConfig) -> u64 {
        (self.channels_per_zone * self.chips_per_zone * n.dies_per_chip * n.planes_per_die) as u64
            * self.blocks_per_plane as u64
            * n.pages_per_block as u64
            * n.page_size as u64
    }

    /// The zone size in bytes: `zone_size`, or the capacity rounded up to a power of two.
    pub fn zone_size_bytes(&self, n: &NandConfig) -> u64 {
        self.zone_size
            .unwrap_or_else(|| self.zone_capacity_bytes(n).next_power_of_two())
    }

    /// Zones the device has.
    pub fn zones(&self, n: &NandConfig) -> u32 {
        (n.channels / self.channels_per_zone)
            * (n.chips_per_channel / self.chips_per_zone)
            * (n.blocks_per_plane / self.blocks_per_plane)
    }
}

/// NVMe Flexible Data Placement (TP4146, NVM Express 2.0c): the device's reclaim unit
/// handles, one reclaim group (the whole array), reclaim units of one erase block on every
/// plane (a superblock). A write tagged with placement identifier `i` goes to handle `i`'s
/// reclaim unit; an untagged write goes to handle 0. Device GC stays.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FdpConfig {
    /// The reclaim unit handles, in placement-identifier order: each one's type.
    pub handles: Vec<RuhType>,
    /// Reclaim groups (default 1: the whole array). The array's dies, numbered channel first
    /// (`(channel x chips + chip) x dies + die`), go to group `die mod reclaim_groups`, with
    /// every plane of a die; placement identifier `g x handles + h` writes through handle `h`
    /// in group `g`, striped over that group's planes only. Divides the dies of the array.
    #[serde(default = "one_group")]
    pub reclaim_groups: u32,
    /// Reclaim unit size in bytes (the FDP configuration's Reclaim Unit Nominal Size): a whole
    /// number of erase blocks, at most one on every plane of a reclaim group, or a whole number
    /// of blocks on every plane of it. Absent: one erase block on every plane of the group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ru_bytes: Option<u64>,
}

fn one_group() -> u32 {
    1
}

impl FdpConfig {
    /// Placement identifiers the device has: one per handle in every reclaim group.
    pub fn identifiers(&self) -> usize {
        self.handles.len() * self.reclaim_groups as usize
    }

    /// Planes of one reclaim group.
    pub fn group_planes(&self, cfg: &SimConfig) -> u64 {
        let n = &cfg.nand;
        (n.channels * n.chips_per_channel * n.dies_per_chip * n.planes_per_die) as u64
            / self.reclaim_groups as u64
    }

    /// Erase blocks in one reclaim unit (`ru_bytes` over the block size; by default one on
    /// every plane of a group).
    pub fn ru_blocks(&self, cfg: &SimConfig) -> u64 {
        let block = cfg.nand.pages_per_block as u64 * cfg.nand.page_size as u64;
        self.ru_bytes
            .map_or(self.group_planes(cfg), |b| (b / block).max(1))
    }
}

/// Most reclaim unit handles a device may have: a page's handle is kept in one byte.
pub const MAX_FDP_HANDLES: usize = 128;

/// Reclaim unit handle type (TP4146 "Reclaim Unit Handle Type").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuhType {
    /// Initially isolated: data written through the handle starts in its own reclaim units,
    /// but GC may move it into reclaim units shared with the other initially isolated
    /// handles' data.
    InitiallyIsolated,
    /// Persistently isolated: GC keeps the handle's data in reclaim units holding only it.
    PersistentlyIsolated,
}

impl RuhType {
    /// The config name.
    pub fn name(self) -> &'static str {
        match self {
            RuhType::InitiallyIsolated => "initially_isolated",
            RuhType::PersistentlyIsolated => "persistently_isolated",
        }
    }
}

impl FdpConfig {
    /// At least one handle, no more than the open blocks the spare space can hold, and no
    /// device feature FDP does not combine with yet.
    pub fn validate(&self, cfg: &SimConfig, src: &str) -> Result<()> {
        let n = self.handles.len();
        check(
            (1..=MAX_FDP_HANDLES).contains(&n),
            src,
            "fdp.handles",
            || format!("expected 1 to {MAX_FDP_HANDLES} reclaim unit handles, got {n}"),
        )?;
        let nd = &cfg.nand;
        let dies = nd.channels * nd.chips_per_channel * nd.dies_per_chip;
        let g = self.reclaim_groups;
        check(
            g >= 1 && dies.is_multiple_of(g),
            src,
            "fdp.reclaim_groups",
            || {
                format!("expected a divisor of the array's {dies} dies (each group takes every plane of its dies), got {g}")
            },
        )?;
        check(
            self.identifiers() <= MAX_FDP_HANDLES,
            src,
            "fdp.reclaim_groups",
            || {
                format!(
                    "{n} handles in {g} reclaim groups are {} placement identifiers: at most {MAX_FDP_HANDLES}",
                    self.identifiers()
                )
            },
        )?;
        check(
            cfg.mapping_unit() >= cfg.nand.page_size,
            src,
            "ftl.mapping_unit",
            || {
                "flexible data placement (fdp) with mapping units smaller than the NAND page is \
                 not modelled yet"
                    .to_string()
            },
        )?;
        // Each handle keeps an open block (two with ftl.placement = gc_separate) on every
        // plane. The rule is the page FTL's (see SimConfig::validate): the logical space must
        // fit in the blocks outside the GC reserve and every stream's open block.
        let nd = &cfg.nand;
        let bpp = nd.blocks_per_plane as u64;
        let ppb = nd.pages_per_block as u64;
        let planes =
            (nd.channels * nd.chips_per_channel * nd.dies_per_chip * nd.planes_per_die) as u64;
        let logical = crate::ftl::logical_pages(cfg) * cfg.unit_pages() as u64;
        let fdp_streams = crate::ftl::placement::fdp_streams(cfg) as u64;
        let per = fdp_streams / n as u64;
        let others = crate::ftl::streams(cfg) as u64 - fdp_streams;
        let gc = crate::ftl::gc_threshold_blocks(cfg);
        // Most streams s with logical < (bpp - gc - others - s) * ppb * planes.
        let most = (bpp.saturating_sub(gc + others)).saturating_sub(logical / (ppb * planes) + 1);
        check(fdp_streams <= most, src, "fdp.handles", || {
            format!(
                "{n} reclaim unit handles need {fdp_streams} open blocks on every plane, but \
                 this device has room for {most} ({bpp} blocks per plane, less the {gc}-block GC \
                 reserve{}, less the blocks the logical space needs at ftl.op_ratio = {}): use \
                 at most {} handles or raise ftl.op_ratio",
                if others > 0 {
                    format!(" and {others} other streams' open blocks")
                } else {
                    String::new()
                },
                cfg.ftl.op_ratio,
                most / per,
            )
        })?;
        if let Some(ru) = self.ru_bytes {
            let block = ppb * nd.page_size as u64;
            check(
                ru > 0 && ru.is_multiple_of(block),
                src,
                "fdp.ru_bytes",
                || {
                    format!(
                        "expected a whole number of erase blocks of {block} bytes \
                     (nand.pages_per_block x nand.page_size), got {ru}"
                    )
                },
            )?;
            let k = ru / block;
            let pg = self.group_planes(cfg);
            check(k <= pg || k.is_multiple_of(pg), src, "fdp.ru_bytes", || {
                format!(
                    "a reclaim unit of {k} erase blocks: expected at most one block on each of \
                     a reclaim group's {pg} planes ({} bytes) or the same number of blocks on \
                     every plane of it (a multiple of {} bytes)",
                    pg * block,
                    pg * block
                )
            })?;
            let data = bpp.saturating_sub(crate::ftl::reserve_blocks_per_plane(cfg));
            check(k.div_ceil(pg) <= data, src, "fdp.ru_bytes", || {
                format!(
                    "a reclaim unit of {k} erase blocks is larger than a reclaim group: its \
                     {pg} planes have {data} blocks each outside the GC reserve and open \
                     blocks, so at most {} bytes",
                    pg * data * block
                )
            })?;
        }
        let refuse = |ok: bool, key: &str, what: &str| {
            check(ok, src, key, || {
                format!("flexible data placement (fdp) {what}")
            })
        };
        refuse(
            cfg.zns.is_none(),
            "zns",
            "and zones are two different devices: use one of [fdp] and [zns]",
        )?;
        refuse(cfg.stack.is_none(), "stack", "under the [stack] file system is not modelled yet: its writes carry no placement identifiers")?;
        refuse(
            cfg.ftl.compression().is_none(),
            "ftl.compression",
            "with compression in the device is not modelled yet",
        )?;
        refuse(
            cfg.ftl.dedup().is_none(),
            "ftl.dedup",
            "with deduplication in the device is not modelled yet",
        )?;
        Ok(())
    }
}

/// NAND cell type: how many bits a cell holds, hence the page types in a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    /// 1 bit per cell: one page type.
    Slc,
    /// 2 bits per cell: LSB, MSB pages.
    Mlc,
    /// 3 bits per cell: LSB, CSB, MSB pages.
    Tlc,
    /// 4 bits per cell: LSB, CSB, MSB, TSB pages (the large drives' QLC).
    Qlc,
}

impl CellType {
    /// Number of page types (bits per cell).
    pub fn page_types(self) -> usize {
        match self {
            CellType::Slc => 1,
            CellType::Mlc => 2,
            CellType::Tlc => 3,
            CellType::Qlc => 4,
        }
    }
}

/// NAND array.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NandConfig {
    /// Independent channels (buses).
    pub channels: u32,
    /// Chips (ways) sharing each channel.
    pub chips_per_channel: u32,
    /// Dies per chip.
    pub dies_per_chip: u32,
    /// Planes per die; each plane is an independent execution unit (idealised multi-plane).
    pub planes_per_die: u32,
    /// Erase blocks per plane.
    pub blocks_per_plane: u32,
    /// Pages per block.
    pub pages_per_block: u32,
    /// Page size in bytes; also the FTL's mapping unit.
    pub page_size: u32,
    /// Cell type; page `i` of a block has type `i % bits_per_cell` (LSB first).
    pub cell: CellType,
    /// Array read time per page type, LSB first, in microseconds (length = bits per cell).
    pub read_latency_us: Vec<f64>,
    /// Program time per page type, LSB first, in microseconds (length = bits per cell).
    pub program_latency_us: Vec<f64>,
    /// Block erase time in microseconds.
    pub erase_latency_us: f64,
    /// Channel bus transfer rate in MB/s (10^6 bytes per second).
    pub channel_mb_per_s: f64,
    /// Supply voltage and currents from which per-operation energy is computed (E = V * I * t).
    pub power: NandPower,
    /// Partial (sub-page) reads: absent, every read senses and moves a whole page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial_read: Option<PartialRead>,
}

fn yes() -> bool {
    true
}

/// A partial read senses one unit of a page (its own ECC codeword) with fewer bit-lines
/// active: shorter and at a lower current than a full read, and only the unit crosses the
/// channel (Kim et al., ISSCC 2018; Siau et al., ISSCC 2019; PR-SSD Table 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartialRead {
    /// Partial reads are used (default `true`; `false` keeps the table but reads whole pages,
    /// so a preset's partial-read array can be compared with the same array without them).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Bytes of one partial unit; divides the page into at most 64 units.
    pub unit_bytes: u32,
    /// A partial read's array time as a fraction of a full read's of the same page type
    /// (PR-SSD: 0.8, "20% faster").
    pub latency_factor: f64,
    /// A partial read's current as a fraction of `power.read_ma` (PR-SSD: 0.6, "40% less").
    pub current_factor: f64,
}

impl FtlConfig {
    /// Device compression when enabled.
    pub fn compression(&self) -> Option<&DeviceCompression> {
        self.compression.as_ref().filter(|c| c.enabled)
    }

    /// Deduplication when enabled.
    pub fn dedup(&self) -> Option<&DedupConfig> {
        self.dedup.as_ref().filter(|d| d.enabled)
    }
}

impl SimConfig {
    /// The page map's mapping unit (indirection unit) in bytes: `ftl.mapping_unit`, or the
    /// NAND page when it is not set.
    pub fn mapping_unit(&self) -> u32 {
        self.ftl.mapping_unit.unwrap_or(self.nand.page_size)
    }

    /// NAND pages per mapping unit (1 when the unit is the page or smaller).
    pub fn unit_pages(&self) -> u32 {
        (self.mapping_unit() / self.nand.page_size).max(1)
    }

    /// Mapping units per NAND page (1 when the unit is the page or larger): units smaller
    /// than the page are packed this many to a page.
    pub fn units_per_page(&self) -> u32 {
        (self.nand.page_size / self.mapping_unit()).max(1)
    }
}

impl NandConfig {
    /// Bytes of a partial-read unit when partial reads are enabled.
    pub fn partial_unit(&self) -> Option<u32> {
        self.partial_read
            .as_ref()
            .filter(|p| p.enabled)
            .map(|p| p.unit_bytes)
    }
}

/// Datasheet-style supply figures; energy of an operation = `vcc_v * current * duration`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NandPower {
    /// Supply voltage (V).
    pub vcc_v: f64,
    /// Current while reading the array (mA).
    pub read_ma: f64,
    /// Current while programming (mA).
    pub program_ma: f64,
    /// Current while erasing (mA).
    pub erase_ma: f64,
    /// Current while transferring on the channel (mA).
    pub transfer_ma: f64,
}

/// Which open block a page goes to (the placement seam).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum PlacementConfig {
    /// Host writes and GC migrations share one open block per plane.
    Single,
    /// GC migrations go to their own open block per plane, apart from host writes
    /// (separating cold, surviving data from fresh writes).
    GcSeparate,
}

/// Order in which consecutive page allocations visit planes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Striping {
    /// Channel first, then chip (way), die, plane: consecutive pages on different channels.
    ChannelFirst,
    /// Plane first, then die, chip, channel: consecutive pages fill one die's planes first.
    PlaneFirst,
    /// Dynamic allocation: each page goes to the plane whose queued work ends first (ties in
    /// channel-first order from where the last page went), so writes steer around planes
    /// busy with GC, as controllers that allocate to idle dies do.
    LeastBusy,
}

/// GC victim selection (the victim seam).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VictimPolicy {
    /// Fewest valid pages.
    Greedy,
    /// Uniformly random among blocks with at least one invalid page.
    Random,
    /// Highest (1 - u) * age / (1 + u): Rosenblum & Ousterhout, LFS (SOSP '91).
    CostBenefit,
    /// Oldest sealed block first.
    Fifo,
}

/// Garbage collection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GcConfig {
    /// Victim selection policy.
    pub victim: VictimPolicy,
    /// Foreground GC runs in a plane when its free blocks fall below this fraction of its blocks.
    pub threshold: f64,
    /// Whether GC also runs in idle plane time.
    pub background: bool,
    /// Background GC works while free blocks are below this fraction (>= `threshold`).
    pub background_threshold: f64,
    /// Migrations use on-die copyback (no channel transfer) instead of read-out and re-program.
    pub copyback: bool,
    /// Foreground GC yields between steps: queued host commands of the plane go before the
    /// next step while the plane's erased free blocks stay above `hard_floor`
    /// (semi-preemptible GC: Lee et al., "Semi-preemptible garbage collection for solid state
    /// drives", ISPASS 2011). `false`: an episode runs to its end once started (classic).
    pub preemptible: bool,
    /// Page migrations per GC step (>= 1); the erase is a step of its own. Background GC
    /// always yields between steps.
    pub step_pages: u32,
    /// Fraction of a plane's blocks: at or below `ceil(hard_floor * blocks_per_plane)` erased
    /// free blocks, GC stops yielding to host writes. In [0, `threshold`).
    pub hard_floor: f64,
}

/// Order in which a plane serves its queued commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SchedPolicy {
    /// First come, first served across reads, programs, erases and GC.
    Fcfs,
    /// Queued reads go before queued programs, erases and GC steps, unless one of those has
    /// waited `starvation_us` (read-priority scheduling, as in Wu & He, FAST '12, "RPS").
    ReadFirst,
}

/// Program and erase suspension for reads (Wu & He, "Reducing SSD read latency via NAND flash
/// program and erase suspension", FAST '12).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuspendConfig {
    /// Whether a read arriving at a plane that programs or erases suspends that operation.
    pub enabled: bool,
    /// Time from a read's arrival until a program is suspended (us); shorter than every
    /// program latency.
    pub program_suspend_us: f64,
    /// Time from a read's arrival until an erase is suspended (us); shorter than the erase.
    pub erase_suspend_us: f64,
    /// Extra array time to resume a suspended operation (us), at the operation's current.
    pub resume_us: f64,
    /// Suspensions one operation may take (>= 1); after that, reads wait for it.
    pub max_per_op: u32,
}

/// The controller's flash back end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControllerConfig {
    /// Scheduling policy of each plane's command queue.
    pub scheduler: SchedPolicy,
    /// `read_first`: a queued program, erase or GC step that has waited this long (us) goes
    /// before reads, so writes and GC cannot starve.
    pub starvation_us: f64,
    /// ECC decode of a page read out of the array, at the controller after its transfer
    /// (us); the plane and channel are free meanwhile. GC data read out (without copyback)
    /// is decoded too before it is programmed back.
    pub ecc_decode_us: f64,
    /// Program/erase suspension.
    pub suspend: SuspendConfig,
}

/// Flash translation layer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FtlConfig {
    /// Over-provisioning: fraction of physical pages hidden from the host, in [0, 1).
    /// Logical pages = floor(physical pages * (1 - op_ratio)).
    pub op_ratio: f64,
    /// Plane visiting order for page allocation.
    pub striping: Striping,
    /// Open-block placement policy.
    pub placement: PlacementConfig,
    /// Garbage collection.
    pub gc: GcConfig,
    /// DRAM write buffer in pages (0 = none: a write completes when its pages are programmed).
    pub write_buffer_pages: u32,
    /// Mapping unit (indirection unit) of the page map in bytes: a power of two from 4 KiB to
    /// 64 KiB, a whole number of NAND pages or a whole fraction of one (units smaller than the
    /// page are packed into pages); absent, the NAND page. A write that covers only part of a
    /// unit reads the unit's old data, merges and rewrites the whole unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mapping_unit: Option<u32>,
    /// Compression in the controller (a compression-support SSD): absent, pages are stored
    /// as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compression: Option<DeviceCompression>,
    /// Deduplication in the controller (CAGC's Inline-Dedupe and CAGC): absent, every
    /// written page is stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dedup: Option<DedupConfig>,
    /// Where the page map lives: the whole table in controller DRAM (`full`, the default) or
    /// a DRAM budget caching entries of a map kept in translation pages on flash (`demand`).
    #[serde(default, skip_serializing_if = "MapCacheConfig::is_full")]
    pub map_cache: MapCacheConfig,
}

/// Which mapping entries live in controller DRAM (`ftl.map_cache`).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum MapCacheConfig {
    /// The whole mapping table is in DRAM; a lookup costs nothing.
    #[default]
    Full,
    /// Demand-paged mapping (DFTL, Gupta et al., ASPLOS '09): the table is stored in
    /// translation pages on flash, a global translation directory in DRAM locates them, and
    /// `dram_bytes` of DRAM cache entries; a lookup that misses reads its translation page,
    /// evicting a dirty entry writes its translation page back.
    Demand {
        /// DRAM for cached entries (bytes), from one translation page to the whole table.
        dram_bytes: u64,
        /// Replacement policy.
        policy: MapCachePolicy,
    },
}

impl MapCacheConfig {
    /// The whole table in DRAM.
    pub fn is_full(&self) -> bool {
        *self == MapCacheConfig::Full
    }
}

/// Replacement policy of the demand-paged map cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MapCachePolicy {
    /// Least recently used (DFTL's cached mapping table).
    Lru,
    /// Segmented LRU (Karedla et al., IEEE Computer '94): a probationary segment takes
    /// misses, a hit moves an entry to the protected segment (80% of the entries), whose
    /// least recent entry falls back to probation; eviction from probation.
    SegmentedLru,
}

/// Where the controller finds duplicates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DedupMode {
    /// On the write path: every written page is hashed and looked up before it is
    /// acknowledged; a duplicate is mapped to the stored page and not programmed.
    Inline,
    /// Inside GC (CAGC, Wu et al., ICCD '21): writes are stored as they come; GC hashes the
    /// valid pages it meets (reading them out to the controller) and does not rewrite a page
    /// whose content is already stored, only its map entry and count.
    Gc,
}

/// What a page's fingerprint is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DedupFingerprint {
    /// Its content id: fio and the host number distinct blocks, a FIU trace gives each
    /// block's MD5 (its first 64 bits). Costs nothing to compute.
    #[default]
    ContentId,
    /// Its bytes (the content model's: generated, or real files): XXH3-64 as the index key (a
    /// fast non-cryptographic pre-filter) and BLAKE3 (cryptographic) to confirm a match, so
    /// equal bytes under different content ids deduplicate and a pre-filter collision never
    /// merges different pages. Needs the content model.
    Bytes,
}

/// Deduplication in the controller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DedupConfig {
    /// Deduplication is used (default `true`).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Inline or inside GC.
    pub mode: DedupMode,
    /// Controller time to fingerprint one page (us; CAGC Table I: 14).
    pub hash_us: f64,
    /// Pages the controller hashes at once (hash engine lanes, first come first served).
    #[serde(default = "one")]
    pub hash_lanes: u32,
    /// Reference-count placement (CAGC section III-C): GC writes pages whose count is above
    /// `cold_threshold` to a cold region (an open block of their own per plane), the rest to
    /// the hot region (default `false`).
    #[serde(default)]
    pub regions: bool,
    /// With `regions`: pages with a count above this go to the cold region (CAGC: 1).
    #[serde(default = "one")]
    pub cold_threshold: u32,
    /// What a fingerprint is made of (default: the content id).
    #[serde(default)]
    pub fingerprint: DedupFingerprint,
    /// Where the fingerprint index lives: whole in controller DRAM (`full`, the default) or
    /// in bucket pages on flash with `dram_bytes` of DRAM caching bucket pages (`demand`: a
    /// lookup whose bucket is not cached reads it from flash before the dedup decision).
    #[serde(default, skip_serializing_if = "MapCacheConfig::is_full")]
    pub index_cache: MapCacheConfig,
}

fn one() -> u32 {
    1
}

/// A compression-support SSD (PR-SSD section 2.2, Fig. 3a): each logical page is compressed
/// by the controller; compressed pages are merged in a page-sized buffer and programmed
/// together, a page that does not compress is written alone. GC moves flash pages whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceCompression {
    /// Compression is used (default `true`; `false` keeps the table but stores pages as
    /// written).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// The controller's codec, run on each logical page's bytes (the content model's).
    pub codec: crate::codec::CodecKind,
    /// A page is stored compressed only when compression saves at least this fraction of it
    /// (PR-SSD: DPC fails below 10%).
    pub min_saving: f64,
    /// Most compressed pages merged into one flash page (PR-SSD: 20 in the conventional
    /// compression-support SSD, 12 with DPC).
    pub max_chunks_per_page: u32,
    /// Controller time to compress one logical page (us; PR-SSD: LZ4 12, DPC 0.34, FPC 0.001).
    pub compress_us: f64,
    /// Controller time to decompress one compressed page after it is read (us; PR-SSD: LZ4
    /// 12, DPC 0.038, FPC 0.001). One engine serves the device, first come first served.
    pub decompress_us: f64,
    /// Partial zeros (PR-SSD section 4.2.3): the all-zero 4 KiB units of a page are not
    /// stored, a zero bitmap in the map restores them, and a read of only zero units needs
    /// no flash read (default `false`).
    #[serde(default)]
    pub zero_units: bool,
    /// PR-SSD's split FTL (section 4.3): pages that do not compress are split into their
    /// partial-read units and stored as vertical packages on different channels (absent: no
    /// split).
    #[serde(default)]
    pub split: Option<SplitConfig>,
}

/// How the split FTL decides which pages that did not compress to split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SplitDecision {
    /// The split decision module with one bit per logical page: no split for host writes
    /// larger than a page, nor for a page last read by a host read larger than a page.
    Bit,
    /// The split decision module with the read-size history of the `lru_entries` logical
    /// pages read last (a page not among them has no history).
    Lru,
    /// Split every page that did not compress ("Split All", PR-SSD Fig. 19).
    All,
}

/// The split FTL (PR-SSD section 4.3). A page splits into `page / unit` pieces (the
/// partial-read unit of `nand.partial_read`); that many split pages are buffered in DRAM
/// (64 KiB for 16 KiB pages) and written as as many flash pages on different channels whose
/// page types match, flash page `i` holding unit `i` of each. Split pages that are later
/// overwritten keep their flash pages until every page of their group is gone, so the page
/// FTL maps `(pieces - 1)` pages more per group of `pieces` split pages the table can hold
/// (`max_split_pages`); they come out of the over-provisioning, not the host's space.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitConfig {
    /// Which pages split.
    pub decision: SplitDecision,
    /// Logical pages the LRU history remembers (`decision = "lru"` only).
    #[serde(default)]
    pub lru_entries: Option<u64>,
    /// Most logical pages split at once (the split mapping table's capacity); when it is
    /// full, pages are stored as written.
    pub max_split_pages: u64,
}

/// Host interface (link and command overhead).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    /// Host link rate per direction in MB/s (e.g. PCIe 3.0 x4 about 3940).
    pub link_mb_per_s: f64,
    /// Fixed host + controller cost per request (ns).
    pub command_overhead_ns: u64,
}

/// Steady-state fill without timing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreconditionConfig {
    /// Fraction of the logical space written sequentially from address 0, in [0, 1] (a zoned
    /// device: of its writable zones' capacity, zone by zone, see `device::zns::fill_plan`).
    pub fill_fraction: f64,
    /// Request size of the sequential fill in bytes (multiple of the page size).
    pub fill_block_size: u64,
    /// Random single-page overwrites within the filled range, as a multiple of the filled pages.
    pub aging_fraction: f64,
}

/// Statistics collection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatsConfig {
    /// Timeline sampling interval in milliseconds of simulated time.
    pub interval_ms: f64,
    /// Warm-up excluded from the summary (ms of simulated time, 0: none): requests completing
    /// before it and work booked before it are not counted; the run's stop conditions are
    /// unchanged (unlike fio's `ramp_time`, it does not lengthen the run).
    #[serde(default)]
    pub warmup_ms: f64,
}

/// Self-checks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckConfig {
    /// Every read checks that it returns the content last written to its address.
    pub verify: bool,
    /// Check the FTL's invariants (mapping, reverse map, valid counts, free lists) at the end.
    pub invariants: bool,
}

/// A fio option value given inline in a config (strings, numbers and booleans as fio reads them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OptionValue {
    /// Boolean flag (`true` = present, as `time_based` on a line of its own).
    Bool(bool),
    /// Integer.
    Int(i64),
    /// Float.
    Float(f64),
    /// String, read exactly as fio reads it (`4k`, `zipf:1.2`, ...).
    Str(String),
}

impl OptionValue {
    /// The value as the text fio would see after `key=`; `None` for `false` (option absent).
    pub fn as_fio_text(&self) -> Option<String> {
        match self {
            OptionValue::Bool(true) => Some(String::new()),
            OptionValue::Bool(false) => None,
            OptionValue::Int(i) => Some(i.to_string()),
            OptionValue::Float(f) => Some(f.to_string()),
            OptionValue::Str(s) => Some(s.clone()),
        }
    }
}

/// fio workload: a job file, inline jobs, or both (inline `global` applies after the file's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FioWorkload {
    /// Path of a fio job file (INI format, as fio reads it).
    #[serde(default)]
    pub path: Option<PathBuf>,
    /// Options applied to every inline job (like a `[global]` section).
    #[serde(default)]
    pub global: BTreeMap<String, OptionValue>,
    /// Inline jobs, each a table of fio options (`name` names the job).
    #[serde(default)]
    pub jobs: Vec<BTreeMap<String, OptionValue>>,
    /// A fio command line's arguments (`["--name=a", "--rw=randwrite", "--bs=4k"]`): options
    /// before the first `--name` are global, each `--name` starts a job; its jobs come after
    /// the file's and the inline ones.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Values for `${NAME}` and fio's `$ncpus`/`$pagesize`/`$mb_memory` in the job file
    /// (over the environment and the machine).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub vars: BTreeMap<String, String>,
}

/// Block trace formats: a named format (a string in TOML, `format = "msr"`), or a column
/// mapping for any CSV or whitespace table (`format = { type = "columns", ... }`). See
/// [`crate::workload::trace`] for each format's fields and units.
#[derive(Debug, Clone, PartialEq)]
pub enum TraceFormat {
    /// DiskSim/MQSim ASCII: `time dev sector nsectors rw` (rw 0 = write, 1 = read).
    Disksim,
    /// MSR Cambridge CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
    Msr,
    /// blkparse default text output (D or Q actions).
    Blkparse,
    /// FIU: `ts pid proc lba nblocks R|W major minor md5`.
    Fiu,
    /// flashpress's own CSV, for generated workloads that need what the others cannot say
    /// (trims with content ids): header `time,op,offset,len,content`, op `R`/`W`/`T`, bytes.
    Csv,
    /// SPC trace file format 1.0.1 (the UMass trace repository's Financial and WebSearch
    /// traces): `ASU,LBA,Size,Opcode,Timestamp[,optional...]`, LBA in blocks, Size in bytes.
    Spc,
    /// Alibaba block traces (2020): `device_id,opcode,offset,length,timestamp`, bytes, us.
    Alibaba,
    /// Tencent CBS block traces (2018): `Timestamp,Offset,Size,IOType,VolumeID`, sectors, s.
    Tencent,
    /// CloudPhysics block traces as CSV text: `ts,lba,op,size` (us, sectors, r/w, bytes).
    Cloudphysics,
    /// libCacheSim's oracleGeneral binary trace: 24-byte little-endian records.
    OracleGeneral,
    /// libCacheSim's oracleGeneralOpNS binary trace: 27-byte records with an op.
    OracleGeneralOpns,
    /// A column mapping for any CSV or whitespace-separated table.
    Columns(Box<ColumnsFormat>),
}

impl TraceFormat {
    /// The named formats, as written in a config.
    pub const NAMES: [&'static str; 11] = [
        "disksim",
        "msr",
        "blkparse",
        "fiu",
        "csv",
        "spc",
        "alibaba",
        "tencent",
        "cloudphysics",
        "oracle_general",
        "oracle_general_opns",
    ];

    /// The named format called `name`.
    pub fn from_name(name: &str) -> Option<TraceFormat> {
        Some(match name {
            "disksim" => TraceFormat::Disksim,
            "msr" => TraceFormat::Msr,
            "blkparse" => TraceFormat::Blkparse,
            "fiu" => TraceFormat::Fiu,
            "csv" => TraceFormat::Csv,
            "spc" => TraceFormat::Spc,
            "alibaba" => TraceFormat::Alibaba,
            "tencent" => TraceFormat::Tencent,
            "cloudphysics" => TraceFormat::Cloudphysics,
            "oracle_general" => TraceFormat::OracleGeneral,
            "oracle_general_opns" => TraceFormat::OracleGeneralOpns,
            _ => return None,
        })
    }

    /// The format's name (`columns` for a column mapping).
    pub fn name(&self) -> &'static str {
        match self {
            TraceFormat::Disksim => "disksim",
            TraceFormat::Msr => "msr",
            TraceFormat::Blkparse => "blkparse",
            TraceFormat::Fiu => "fiu",
            TraceFormat::Csv => "csv",
            TraceFormat::Spc => "spc",
            TraceFormat::Alibaba => "alibaba",
            TraceFormat::Tencent => "tencent",
            TraceFormat::Cloudphysics => "cloudphysics",
            TraceFormat::OracleGeneral => "oracle_general",
            TraceFormat::OracleGeneralOpns => "oracle_general_opns",
            TraceFormat::Columns(_) => "columns",
        }
    }

    /// The unit the format's published description gives its time column (`None` for a
    /// column mapping, whose table has no usual unit).
    pub fn default_time_unit(&self) -> Option<TimeUnit> {
        Some(match self {
            // MQSim's ASCII traces are in ns; FIU's README gives `ts in ns`.
            TraceFormat::Disksim | TraceFormat::Fiu | TraceFormat::Csv => TimeUnit::Ns,
            TraceFormat::Msr => TimeUnit::Filetime,
            // blkparse prints seconds; SPC's timestamp is seconds; Tencent's a Unix time in
            // seconds; libCacheSim's oracle traces keep seconds.
            TraceFormat::Blkparse
            | TraceFormat::Spc
            | TraceFormat::Tencent
            | TraceFormat::OracleGeneral
            | TraceFormat::OracleGeneralOpns => TimeUnit::S,
            // Alibaba's timestamp is in microseconds; CloudPhysics' vscsi ts too.
            TraceFormat::Alibaba | TraceFormat::Cloudphysics => TimeUnit::Us,
            TraceFormat::Columns(_) => return None,
        })
    }

    /// Whether the format has a device or volume column that `workload.device` filters on.
    pub fn has_device(&self) -> bool {
        match self {
            TraceFormat::Disksim
            | TraceFormat::Msr
            | TraceFormat::Spc
            | TraceFormat::Alibaba
            | TraceFormat::Tencent => true,
            TraceFormat::Columns(c) => c.device.is_some(),
            _ => false,
        }
    }

    /// Whether the format is binary records rather than lines of text.
    pub fn is_binary(&self) -> bool {
        matches!(
            self,
            TraceFormat::OracleGeneral | TraceFormat::OracleGeneralOpns
        )
    }
}

impl Serialize for TraceFormat {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(tag = "type", rename_all = "snake_case")]
        enum Table<'a> {
            Columns(&'a ColumnsFormat),
        }
        match self {
            TraceFormat::Columns(c) => Table::Columns(c).serialize(s),
            named => s.serialize_str(named.name()),
        }
    }
}

impl<'de> Deserialize<'de> for TraceFormat {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(tag = "type", rename_all = "snake_case")]
        enum Table {
            Columns(Box<ColumnsFormat>),
        }
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = TraceFormat;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(
                    f,
                    "a trace format name ({}) or a table {{ type = \"columns\", ... }}",
                    TraceFormat::NAMES.join(", ")
                )
            }
            fn visit_str<E: serde::de::Error>(
                self,
                v: &str,
            ) -> std::result::Result<TraceFormat, E> {
                TraceFormat::from_name(v).ok_or_else(|| {
                    E::custom(format!(
                        "unknown trace format `{v}`, expected one of: {}, or a table {{ type = \"columns\", ... }}",
                        TraceFormat::NAMES.join(", ")
                    ))
                })
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> std::result::Result<TraceFormat, A::Error> {
                let Table::Columns(c) =
                    Table::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(TraceFormat::Columns(c))
            }
        }
        d.deserialize_any(V)
    }
}

/// Unit of an address column of a [`ColumnsFormat`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AddrUnit {
    /// Bytes.
    Bytes,
    /// Sectors of `workload.sector_size` bytes.
    Sectors,
}

/// A column mapping for a CSV or whitespace-separated table: which column holds what, in
/// which unit, and how the op column names reads, writes and trims. Columns are numbered
/// from 1, as `cut` and `awk` number them; columns not named are ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnsFormat {
    /// Field separator: one character (`","`, `";"`, `"\t"`, `"|"`), or `"whitespace"` for
    /// runs of blanks. Fields are trimmed of blanks; quotes are not interpreted.
    #[serde(default = "default_delimiter")]
    pub delimiter: String,
    /// Physical lines skipped at the start of the file (a preamble), before anything else.
    #[serde(default)]
    pub skip_lines: u64,
    /// The first record line (after `skip_lines`, blank lines and `#` comments) is a header
    /// of column names, and is skipped.
    #[serde(default)]
    pub header: bool,
    /// Column of the request time, in `workload.time_unit`.
    pub time: u32,
    /// Column of the request's address, in `offset_unit`.
    pub offset: u32,
    /// Column of the request's length, in `size_unit`.
    pub size: u32,
    /// Column of the operation, matched against `read`, `write`, `trim` and `ignore`.
    pub op: u32,
    /// Column of a device or volume number, which `workload.device` filters on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<u32>,
    /// Unit of the offset column.
    pub offset_unit: AddrUnit,
    /// Unit of the size column.
    pub size_unit: AddrUnit,
    /// Op values that mean a read (exact, case-sensitive match).
    #[serde(default)]
    pub read: Vec<String>,
    /// Op values that mean a write.
    #[serde(default)]
    pub write: Vec<String>,
    /// Op values that mean a trim (discard).
    #[serde(default)]
    pub trim: Vec<String>,
    /// Op values whose records are skipped, neither requests nor errors (flushes, say). Any
    /// other value is an error naming the line.
    #[serde(default)]
    pub ignore: Vec<String>,
}

fn default_delimiter() -> String {
    ",".into()
}

impl ColumnsFormat {
    /// Check the mapping: columns from 1 and distinct, one delimiter, each op value in one
    /// list, at least one value that makes a request. `source` names the config in errors.
    pub fn check(&self, source: &str) -> Result<()> {
        let key = |k: &str| format!("workload.format.{k}");
        let cols = [
            ("time", Some(self.time)),
            ("offset", Some(self.offset)),
            ("size", Some(self.size)),
            ("op", Some(self.op)),
            ("device", self.device),
        ];
        for (i, (name, col)) in cols.iter().enumerate() {
            let Some(col) = *col else { continue };
            check(col >= 1, source, &key(name), || {
                "columns are numbered from 1 (the first column is 1), got 0".into()
            })?;
            if let Some((other, _)) = cols[..i].iter().find(|(_, c)| *c == Some(col)) {
                return Err(Error::config(
                    source,
                    key(name),
                    format!("column {col} is already the `{other}` column"),
                ));
            }
        }
        check(
            self.delimiter == "whitespace"
                || (self.delimiter.len() == 1 && self.delimiter.is_ascii()),
            source,
            &key("delimiter"),
            || {
                format!(
                    "expected one ASCII character (such as \",\" or \"\\t\") or \"whitespace\", got {:?}",
                    self.delimiter
                )
            },
        )?;
        let lists = [
            ("read", &self.read),
            ("write", &self.write),
            ("trim", &self.trim),
            ("ignore", &self.ignore),
        ];
        for (i, (name, list)) in lists.iter().enumerate() {
            for (j, v) in list.iter().enumerate() {
                check(!v.trim().is_empty(), source, &key(name), || {
                    "an op value must not be empty or blank".into()
                })?;
                check(v.trim() == v, source, &key(name), || {
                    format!(
                        "op value {v:?} has leading or trailing blanks, which fields never keep"
                    )
                })?;
                let earlier = lists[..i]
                    .iter()
                    .find(|(_, l)| l.contains(v))
                    .map(|(n, _)| *n)
                    .or_else(|| list[..j].contains(v).then_some(*name));
                if let Some(other) = earlier {
                    return Err(Error::config(
                        source,
                        key(name),
                        format!("op value {v:?} is already listed in `{other}`"),
                    ));
                }
            }
        }
        check(
            !(self.read.is_empty() && self.write.is_empty() && self.trim.is_empty()),
            source,
            &key("read"),
            || {
                "give the op values of reads, writes or trims (`read = [\"R\"]`, `write = [\"W\"]`, ...)".into()
            },
        )
    }
}

/// Unit of a trace's time column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeUnit {
    /// Nanoseconds.
    Ns,
    /// Microseconds.
    Us,
    /// Milliseconds.
    Ms,
    /// Seconds.
    S,
    /// Windows FILETIME ticks (100 ns), as in MSR Cambridge traces.
    Filetime,
}

impl TimeUnit {
    /// Nanoseconds per unit.
    pub fn ns_per_unit(self) -> f64 {
        match self {
            TimeUnit::Ns => 1.0,
            TimeUnit::Us => 1e3,
            TimeUnit::Ms => 1e6,
            TimeUnit::S => 1e9,
            TimeUnit::Filetime => 100.0,
        }
    }
}

/// How a trace's timestamps are used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Replay {
    /// Each request arrives at its timestamp (relative to the first), scaled by `time_scale`.
    Timed,
    /// Timestamps ignored: `queue_depth` requests in flight, the next issued on each completion.
    Afap,
}

/// What to do with a trace address beyond the device's logical space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AddressMode {
    /// Error naming the line.
    Strict,
    /// Fold the address modulo the logical capacity (page-aligned).
    Wrap,
}

/// blkparse action whose events become requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum BlkAction {
    /// Issued to the driver.
    D,
    /// Queued.
    Q,
}

/// A block trace workload. In a config only `path` and `format` are required: every other
/// key defaults as [`TraceWorkload::with_defaults`] says (the CLI's `--trace` uses the same
/// defaults), and a column mapping must give `time_unit`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "TraceWorkloadInput")]
pub struct TraceWorkload {
    /// Trace file, plain or compressed (gzip, zstd, xz or bzip2, told by its first bytes).
    pub path: PathBuf,
    /// Line or record format.
    pub format: TraceFormat,
    /// Unit of the time column (default: the format's published unit).
    pub time_unit: TimeUnit,
    /// Size of the trace's sector unit in bytes (the formats that count addresses in sectors
    /// or blocks, and oracle traces' object ids; ignored by those in bytes, such as MSR).
    pub sector_size: u32,
    /// Timed (open loop) or as fast as possible (closed loop).
    pub replay: Replay,
    /// Requests in flight for `afap` replay.
    pub queue_depth: u32,
    /// Multiplier on inter-arrival times for `timed` replay (0.5 = twice as fast).
    pub time_scale: f64,
    /// Addresses past the logical capacity: error or wrap.
    pub address_mode: AddressMode,
    /// Only this device's records: DiskSim `dev`, MSR `DiskNumber`, SPC `ASU`, Alibaba
    /// `device_id`, Tencent `VolumeID`, a column mapping's `device` column. All when absent.
    pub device: Option<u32>,
    /// MSR only: only this host's records (`Hostname`, e.g. `"hm"`). All when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// blkparse only: which action's events to replay.
    pub blkparse_action: BlkAction,
    /// FIU only: bytes each record's MD5 covers (the mail and web-vm traces: 4096, one record
    /// per 4 KiB block; homes: 512, one per sector). When it is smaller than the page, every
    /// write record must cover exactly one such aligned unit, and a page's content id is a
    /// hash of the MD5s its units hold (a unit never written counts as zeros). Absent: a
    /// record's MD5 is its first page's content id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash_bytes: Option<u32>,
}

impl TraceWorkload {
    /// A trace workload with the usual settings of `format`: its published time unit (see
    /// [`TraceFormat::default_time_unit`]; nanoseconds for a column mapping, which a config
    /// must give instead), 512-byte sectors, timed replay, queue depth 32, time scale 1,
    /// strict addresses, all devices and hosts, blkparse action `D`, no FIU hash unit.
    pub fn with_defaults(path: PathBuf, format: TraceFormat) -> TraceWorkload {
        TraceWorkload {
            path,
            time_unit: format.default_time_unit().unwrap_or(TimeUnit::Ns),
            format,
            sector_size: 512,
            replay: Replay::Timed,
            queue_depth: 32,
            time_scale: 1.0,
            address_mode: AddressMode::Strict,
            device: None,
            host: None,
            blkparse_action: BlkAction::D,
            hash_bytes: None,
        }
    }
}

/// [`TraceWorkload`] as a config gives it: keys left out take the format's defaults.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TraceWorkloadInput {
    path: PathBuf,
    format: TraceFormat,
    time_unit: Option<TimeUnit>,
    sector_size: Option<u32>,
    replay: Option<Replay>,
    queue_depth: Option<u32>,
    time_scale: Option<f64>,
    address_mode: Option<AddressMode>,
    #[serde(default)]
    device: Option<u32>,
    #[serde(default)]
    host: Option<String>,
    blkparse_action: Option<BlkAction>,
    #[serde(default)]
    hash_bytes: Option<u32>,
}

impl TryFrom<TraceWorkloadInput> for TraceWorkload {
    type Error = String;
    fn try_from(t: TraceWorkloadInput) -> std::result::Result<TraceWorkload, String> {
        if t.time_unit.is_none() && t.format.default_time_unit().is_none() {
            return Err(
                "workload.time_unit is required with a `columns` format (a table's time column \
                 has no usual unit): one of ns, us, ms, s, filetime"
                    .into(),
            );
        }
        let d = TraceWorkload::with_defaults(t.path, t.format);
        Ok(TraceWorkload {
            time_unit: t.time_unit.unwrap_or(d.time_unit),
            sector_size: t.sector_size.unwrap_or(d.sector_size),
            replay: t.replay.unwrap_or(d.replay),
            queue_depth: t.queue_depth.unwrap_or(d.queue_depth),
            time_scale: t.time_scale.unwrap_or(d.time_scale),
            address_mode: t.address_mode.unwrap_or(d.address_mode),
            device: t.device,
            host: t.host,
            blkparse_action: t.blkparse_action.unwrap_or(d.blkparse_action),
            hash_bytes: t.hash_bytes,
            ..d
        })
    }
}

/// Filebench workload: a built-in personality and/or a user `.f` file (see
/// [`crate::workload::filebench`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilebenchWorkload {
    /// Built-in personality: `webserver`, `varmail`, `fileserver` or `oltp`. With `path` too,
    /// the file's text is used with the personality's file attributes and ratio default.
    #[serde(default)]
    pub personality: Option<String>,
    /// A Filebench `.f` file.
    #[serde(default)]
    pub path: Option<PathBuf>,
    /// Values replacing the file's `set $name=...` (keys without `$`), e.g. `nfiles = 1000`.
    #[serde(default)]
    pub vars: BTreeMap<String, OptionValue>,
    /// Run time in seconds, replacing the file's `run N`.
    #[serde(default)]
    pub runtime_s: Option<f64>,
    /// Compression ratio distribution of the written data (default: the personality's
    /// Zipfian range from the COCO table; `content.ratio` for a file without personality).
    #[serde(default)]
    pub ratio: Option<RatioDist>,
    /// Simulated time of one iteration of Filebench's `hog` loop, ns (default
    /// [`crate::workload::filebench::DEFAULT_HOG_NS_PER_ITERATION`]).
    #[serde(default)]
    pub hog_ns_per_iteration: Option<f64>,
}

/// The workload, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum WorkloadConfig {
    /// fio job file and/or inline jobs.
    Fio(FioWorkload),
    /// Block trace.
    Trace(TraceWorkload),
    /// Filebench personality or `.f` file.
    Filebench(FilebenchWorkload),
}

pub(super) fn check(ok: bool, source: &str, key: &str, msg: impl FnOnce() -> String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::config(source, key, msg()))
    }
}

impl SimConfig {
    /// Check every value's range and the combinations between them.
    pub fn validate(&self, src: &str) -> Result<()> {
        let v = serde_json::to_value(self).expect("config serializes");
        super::ranges::check_ranges(&v, src)?;
        let n = &self.nand;
        check(
            n.page_size.is_multiple_of(512),
            src,
            "nand.page_size",
            || format!("expected a multiple of 512 bytes, got {}", n.page_size),
        )?;
        let pages = n.channels as u128
            * n.chips_per_channel as u128
            * n.dies_per_chip as u128
            * n.planes_per_die as u128
            * n.blocks_per_plane as u128
            * n.pages_per_block as u128;
        let blocks = pages / n.pages_per_block as u128;
        check(blocks < u32::MAX as u128, src, "nand", || {
            format!("{blocks} blocks exceed the 2^32 - 1 blocks the simulator numbers")
        })?;
        // Page numbers are 64-bit. The page map and the reverse map number mapping units in
        // entries as wide as the physical units need, up to 40 bits (`ftl::unitmap`): the
        // plain page FTL takes up to 2^40 - 1 units (4 PiB of 4 KiB units). Features that keep
        // tables of 32-bit unit or page numbers are refused, each by its own key, from 2^32 - 1
        // physical units (pages for the packed maps) on: past it their numbers would wrap.
        let unit = self.mapping_unit() as u128;
        let units = pages * n.page_size as u128 / unit;
        let wide = crate::ftl::unitmap::MAX_BITS;
        check(units < 1u128 << wide, src, "ftl.mapping_unit", || {
            // The estimate is arithmetic on the config: it says what the run would need.
            let need = crate::estimate::human(crate::estimate::estimate(self).total_bytes);
            format!(
                "{units} physical mapping units of {unit} bytes exceed the 2^{wide} - 1 units the \
                 page map numbers ({wide}-bit entries), and would need about {need} of memory: \
                 a larger mapping unit divides both (65536 bytes maps up to 64 PiB)"
            )
        })?;
        let narrow = u32::MAX as u128;
        // The page map's entries (with deduplication its nodes, an eighth more than the
        // logical units; with a demand-paged map or index their translation pages too) are
        // what the 32-bit tables of those features number.
        let entries = || {
            units
                .max((crate::ftl::mapped_pages(self) + crate::ftl::translation_pages(self)) as u128)
        };
        let dedup = self.ftl.dedup().is_some();
        let demand = matches!(self.ftl.map_cache, MapCacheConfig::Demand { .. });
        for (on, key, count, what, why) in [
            (
                self.ftl.compression().is_some(),
                "ftl.compression",
                pages,
                "physical pages",
                "a compressing device's packed map numbers NAND pages in 32 bits",
            ),
            (
                self.stack.is_some(),
                "stack",
                pages,
                "physical pages",
                "the storage stack's devices (its CCSD's packed map) number NAND pages in 32 bits",
            ),
            (
                demand,
                "ftl.map_cache",
                if demand { entries() } else { units },
                "physical mapping units (or page map entries)",
                "the demand-paged map's cache and translation pages number entries in 32 bits",
            ),
            (
                dedup,
                "ftl.dedup",
                if dedup { entries() } else { units },
                "physical mapping units (or dedup map nodes)",
                "deduplication's node table, reference counts and fingerprint index number pages \
                 in 32 bits",
            ),
            (
                self.fdp.is_some(),
                "fdp",
                units,
                "physical mapping units",
                "Flexible Data Placement is modelled up to 2^32 - 1 units (the devices it was built \
                 and checked on)",
            ),
            (
                self.zns.is_some(),
                "zns",
                pages,
                "physical pages",
                "a zoned device is modelled up to 2^32 - 1 pages (its compressed zones' packed map \
                 numbers pages in 32 bits, and plain zones were built and checked below it)",
            ),
        ] {
            check(!on || count < narrow, src, key, || {
                format!(
                    "{count} {what} exceed the 2^32 - 1 that {key} supports: {why}; use fewer \
                     nand.blocks_per_plane or leave {key} out"
                )
            })?;
        }
        let types = n.cell.page_types();
        for (k, v) in [
            ("nand.read_latency_us", &n.read_latency_us),
            ("nand.program_latency_us", &n.program_latency_us),
        ] {
            check(v.len() == types, src, k, || {
                format!(
                    "expected {types} values (one per page type of {:?} cells), got {}",
                    n.cell,
                    v.len()
                )
            })?;
        }
        if let Some(p) = n.partial_read.as_ref().filter(|p| p.enabled) {
            let u = p.unit_bytes;
            check(
                u > 0
                    && n.page_size.is_multiple_of(u)
                    && n.page_size / u >= 2
                    && n.page_size / u <= 64,
                src,
                "nand.partial_read.unit_bytes",
                || {
                    format!(
                        "expected a unit that divides the {}-byte page into 2 to 64 units, got {u}",
                        n.page_size
                    )
                },
            )?;
        }
        let f = &self.ftl;
        if let Some(u) = f.mapping_unit {
            check(u.is_power_of_two(), src, "ftl.mapping_unit", || {
                format!("expected a power of two from 4096 to 65536 bytes, got {u}")
            })?;
            check(
                u.is_multiple_of(n.page_size) || n.page_size.is_multiple_of(u),
                src,
                "ftl.mapping_unit",
                || {
                    format!(
                        "expected a whole number of {}-byte NAND pages or a whole fraction of \
                         one, got {u}",
                        n.page_size
                    )
                },
            )?;
            check(
                n.pages_per_block.is_multiple_of((u / n.page_size).max(1)),
                src,
                "ftl.mapping_unit",
                || {
                    format!(
                        "a unit of {} pages must tile a block of nand.pages_per_block = {} pages",
                        u / n.page_size,
                        n.pages_per_block
                    )
                },
            )?;
            if u != n.page_size {
                for (on, what) in [
                    (f.compression().is_some(), "ftl.compression"),
                    (f.dedup().is_some(), "ftl.dedup"),
                    (self.stack.is_some(), "[stack]"),
                    (n.partial_unit().is_some(), "nand.partial_read"),
                    // The map cache's entries and translation pages are one NAND page each.
                    (
                        matches!(f.map_cache, MapCacheConfig::Demand { .. }),
                        "ftl.map_cache.type = \"demand\"",
                    ),
                ] {
                    check(!on, src, "ftl.mapping_unit", || {
                        let rel = if u > n.page_size { ">" } else { "<" };
                        format!(
                            "a mapping unit other than the NAND page ({u} {rel} {} bytes) is not \
                             modelled with {what}; leave ftl.mapping_unit out or set it to {}",
                            n.page_size, n.page_size
                        )
                    })?;
                }
            }
            if u < n.page_size {
                // GC re-packs the valid units of a victim's pages into new pages: a page is
                // read out and its units programmed elsewhere, which on-die copyback (a page
                // copied whole inside its plane) cannot do.
                check(!f.gc.copyback, src, "ftl.gc.copyback", || {
                    format!(
                        "on-die copyback moves whole pages, but with a mapping unit smaller \
                         than the NAND page ({u} < {} bytes) GC re-packs units into new pages; \
                         set ftl.gc.copyback = false",
                        n.page_size
                    )
                })?;
            }
        }
        if let Some(c) = f.compression.as_ref().filter(|c| c.enabled) {
            check(
                n.page_size <= 32_768 && n.page_size.is_power_of_two() && n.page_size >= 4096,
                src,
                "ftl.compression",
                || {
                    format!(
                        "compression needs a power-of-two page of 4096 to 32768 bytes (the codec's unit), got {}",
                        n.page_size
                    )
                },
            )?;
            check(
                f.write_buffer_pages >= 1,
                src,
                "ftl.write_buffer_pages",
                || {
                    "compression merges pages in the controller's DRAM: expected at least 1 buffer page, got 0".into()
                },
            )?;
            check(
                self.content.mode != ContentMode::Off,
                src,
                "content.mode",
                || {
                    "compression in the SSD needs the content model (mode = \"model\" or \"bytes\"): the sizes come from it".into()
                },
            )?;
            check(self.stack.is_none(), src, "ftl.compression", || {
                "a [stack] run compresses in its CCSD (stack.ccsd); ftl.compression is the plain SSD's".into()
            })?;
            if let Some(sp) = &c.split {
                let unit = n.partial_unit();
                check(unit.is_some(), src, "ftl.compression.split", || {
                    "the split FTL reads split pages with partial reads: it needs nand.partial_read enabled".into()
                })?;
                let pieces = n.page_size / unit.unwrap_or(n.page_size);
                check(
                    (2..=8).contains(&pieces),
                    src,
                    "ftl.compression.split",
                    || {
                        format!(
                        "a page splits into page_size / nand.partial_read.unit_bytes pieces, expected 2 to 8, got {pieces}"
                    )
                    },
                )?;
                check(n.channels >= pieces, src, "ftl.compression.split", || {
                    format!(
                        "a split page's {pieces} pieces go to {pieces} different channels: expected at least {pieces} channels, got {}",
                        n.channels
                    )
                })?;
                check(
                    sp.max_split_pages >= pieces as u64 && sp.max_split_pages % pieces as u64 == 0,
                    src,
                    "ftl.compression.split.max_split_pages",
                    || {
                        format!(
                            "split pages go in groups of {pieces}: expected a positive multiple of {pieces}, got {}",
                            sp.max_split_pages
                        )
                    },
                )?;
                let logical = crate::ftl::logical_pages(self);
                match (sp.decision, sp.lru_entries) {
                    (SplitDecision::Lru, Some(e)) if (1..=logical).contains(&e) => {}
                    (SplitDecision::Lru, e) => {
                        return Err(Error::config(
                            src,
                            "ftl.compression.split.lru_entries",
                            format!(
                                "decision = \"lru\" needs the history's size: expected 1 to the {logical} logical pages, got {e:?}"
                            ),
                        ))
                    }
                    (_, Some(_)) => {
                        return Err(Error::config(
                            src,
                            "ftl.compression.split.lru_entries",
                            "only decision = \"lru\" keeps an LRU history".to_string(),
                        ))
                    }
                    (_, None) => {}
                }
            }
        }
        if let Some(d) = f.dedup() {
            check(
                d.fingerprint != DedupFingerprint::Bytes || self.content.mode != ContentMode::Off,
                src,
                "ftl.dedup.fingerprint",
                || {
                    "fingerprint = \"bytes\" hashes the pages' bytes, which come from the content model: \
                     set content.mode = \"model\" or \"bytes\""
                        .into()
                },
            )?;
            check(
                d.fingerprint != DedupFingerprint::Bytes || n.page_size.is_multiple_of(4096),
                src,
                "ftl.dedup.fingerprint",
                || {
                    format!(
                        "fingerprint = \"bytes\" hashes whole 4 KiB blocks of the content model: expected a page of a multiple of 4096 bytes, got {}",
                        n.page_size
                    )
                },
            )?;
            if let MapCacheConfig::Demand { dram_bytes, .. } = d.index_cache {
                let whole = crate::ftl::fpindex::index_bytes(self);
                let page = n.page_size as u64;
                check(
                    dram_bytes >= page && dram_bytes <= whole,
                    src,
                    "ftl.dedup.index_cache.dram_bytes",
                    || {
                        format!(
                            "expected from one bucket page ({page} bytes) to the whole fingerprint index ({whole} bytes: {} bucket pages of {} entries of {} bytes), got {dram_bytes}",
                            crate::ftl::fpindex::index_pages(self),
                            crate::ftl::fpindex::entries_per_bucket(self),
                            crate::ftl::fpindex::INDEX_ENTRY_BYTES
                        )
                    },
                )?;
            }
            check(f.compression().is_none(), src, "ftl.dedup", || {
                "deduplication and ftl.compression cannot be combined: the dedup map shares whole \
                 flash pages, the compressed map packs pages into them"
                    .into()
            })?;
            check(self.stack.is_none(), src, "ftl.dedup", || {
                "a [stack] run's CCSD has its own packed FTL, which does not deduplicate; \
                 ftl.dedup is the plain SSD's"
                    .into()
            })?;
            check(
                d.mode != DedupMode::Gc || !f.gc.copyback,
                src,
                "ftl.gc.copyback",
                || {
                    "ftl.dedup.mode = \"gc\" hashes the pages GC moves at the controller, so they \
                     cannot stay on the die: set ftl.gc.copyback = false"
                        .into()
                },
            )?;
        }
        if let MapCacheConfig::Demand { dram_bytes, .. } = f.map_cache {
            let t = crate::ftl::mapcache::table(self);
            let table = t.total_bytes();
            let tpage = n.page_size as u64;
            check(
                dram_bytes >= tpage && dram_bytes <= table,
                src,
                "ftl.map_cache.dram_bytes",
                || {
                    let each = t.entry_bytes();
                    let each = if each.fract() == 0.0 {
                        format!("{each}")
                    } else {
                        let what = if f.dedup().is_some() {
                            "the node table and page map of nodes per node"
                        } else {
                            "summary.mapping_table_bytes per logical page"
                        };
                        format!("{each:.2} ({what})")
                    };
                    let split = t.split.map_or(String::new(), |sp| {
                        format!(
                            " and {} split-table entries of {} bytes (summary.split_table_bytes per split page)",
                            sp.entries,
                            sp.bytes as f64 / sp.entries.max(1) as f64
                        )
                    });
                    format!(
                        "expected from one translation page ({tpage} bytes) to the whole mapping table ({table} bytes: {} entries of {each} bytes{split}), got {dram_bytes}",
                        t.entries,
                    )
                },
            )?;
        }
        let g = &f.gc;
        check(
            g.background_threshold >= g.threshold,
            src,
            "ftl.gc.background_threshold",
            || {
                format!(
                    "expected at least ftl.gc.threshold = {}, got {}",
                    g.threshold, g.background_threshold
                )
            },
        )?;
        if let Some(fd) = &self.fdp {
            fd.validate(self, src)?;
        }
        // Reserve: free blocks kept for GC plus one open block per stream must leave room for
        // the logical space, or GC could find no victim with an invalid page.
        let bpp = n.blocks_per_plane as u64;
        let reserve = crate::ftl::reserve_blocks_per_plane(self);
        check(reserve < bpp, src, "ftl.gc.threshold", || {
            format!("a GC reserve of {reserve} blocks leaves no data blocks in a {bpp}-block plane")
        })?;
        let planes = pages as u64 / (bpp * n.pages_per_block as u64);
        let usable = (bpp - reserve) * n.pages_per_block as u64 * planes;
        let logical = crate::ftl::logical_pages(self) * self.unit_pages() as u64
            / self.units_per_page() as u64;
        check(logical > 0, src, "ftl.op_ratio", || {
            "leaves no logical pages".into()
        })?;
        let split = crate::ftl::split_reserve_pages(self);
        check(
            split == 0 || logical + split < usable,
            src,
            "ftl.compression.split.max_split_pages",
            || {
                format!(
                    "the split table's reserve of {split} pages (3 per 4 split pages) and the {logical} logical pages \
                     do not fit in the {usable} pages outside the GC reserve: lower it or raise ftl.op_ratio"
                )
            },
        )?;
        let tpages = crate::ftl::mapcache::translation_pages(self);
        let ipages = crate::ftl::fpindex::flash_pages(self);
        // A CCSD checks its own space (translation pages included).
        check(
            self.stack.is_some() || tpages + ipages == 0 || logical + tpages + ipages < usable,
            src,
            if tpages > 0 {
                "ftl.map_cache"
            } else {
                "ftl.dedup.index_cache"
            },
            || {
                format!(
                    "the {tpages} translation pages of the demand-paged map, the {ipages} bucket pages of the fingerprint index \
                     on flash and the {logical} logical pages do not fit in the {usable} pages outside the GC reserve: raise ftl.op_ratio"
                )
            },
        )?;
        // A CCSD's logical space is decoupled from its physical space; it checks its own.
        // (A zoned device has no page map: its zones are all its flash.)
        check(
            self.stack.is_some() || self.zns.is_some() || logical < usable,
            src,
            "ftl.op_ratio",
            || {
                format!(
                "{logical} logical pages do not fit in the {usable} pages outside the GC reserve \
                 ({reserve} blocks per plane); raise op_ratio or lower gc.threshold"
            )
            },
        )?;

        check(g.hard_floor < g.threshold, src, "ftl.gc.hard_floor", || {
            format!(
                "expected less than ftl.gc.threshold = {}, got {}",
                g.threshold, g.hard_floor
            )
        })?;
        let c = &self.controller;
        let sp = &c.suspend;
        let min_prog = n
            .program_latency_us
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min);
        for (k, v, op, limit) in [
            (
                "controller.suspend.program_suspend_us",
                sp.program_suspend_us,
                "program",
                min_prog,
            ),
            (
                "controller.suspend.erase_suspend_us",
                sp.erase_suspend_us,
                "erase",
                n.erase_latency_us,
            ),
        ] {
            check(v < limit, src, k, || {
                format!("expected a suspend latency shorter than the shortest {op} ({limit} us), got {v}")
            })?;
        }
        let p = &self.precondition;
        check(
            p.fill_block_size.is_multiple_of(n.page_size as u64),
            src,
            "precondition.fill_block_size",
            || {
                format!(
                    "expected a multiple of the page size {}, got {}",
                    n.page_size, p.fill_block_size
                )
            },
        )?;
        self.content.validate(src)?;
        if let Some(st) = &self.stack {
            st.validate(src)?;
            // What the plain SSD has and the CCSD does not: refuse rather than ignore (a
            // zoned device has no GC at all).
            check(
                self.zns.is_some() || (!self.ftl.gc.background && !self.ftl.gc.copyback),
                src,
                "ftl.gc",
                || {
                    "the CCSD of a [stack] run has neither background GC nor copyback; set \
                     ftl.gc.background = false and ftl.gc.copyback = false"
                        .into()
                },
            )?;
            check(
                self.precondition.fill_fraction == 0.0,
                src,
                "precondition.fill_fraction",
                || {
                    "a [stack] run fills through its file system: set precondition.fill_fraction \
                     = 0 and use stack.fs.fill_fraction"
                        .into()
                },
            )?;
        }
        if let Some(z) = &self.zns {
            z.validate(self, src)?;
        }
        match &self.workload {
            WorkloadConfig::Fio(w) => {
                check(
                    w.path.is_some() || !w.jobs.is_empty() || !w.args.is_empty(),
                    src,
                    "workload",
                    || {
                        "a fio workload needs `path` (a job file), an inline `jobs` entry or `args` (a fio command line)".into()
                    },
                )?;
            }
            WorkloadConfig::Filebench(f) => f.validate(src)?,
            WorkloadConfig::Trace(t) => {
                t.check(src)?;
                if let Some(h) = t.hash_bytes {
                    check(
                        t.format == TraceFormat::Fiu,
                        src,
                        "workload.hash_bytes",
                        || "only FIU traces carry a hash per record (format = \"fiu\")".into(),
                    )?;
                    let page = self.nand.page_size;
                    check(
                        h >= 512 && h <= page && page.is_multiple_of(h),
                        src,
                        "workload.hash_bytes",
                        || {
                            format!(
                                "expected a hash granularity of at least 512 bytes that divides the page of {page} bytes, got {h}"
                            )
                        },
                    )?;
                }
            }
        }
        Ok(())
    }
}

impl TraceWorkload {
    /// Check the keys that need no device: ranges, a column mapping, and that each filter
    /// is one the format has. Errors name `workload.*`; `src` names the config.
    pub fn check(&self, src: &str) -> Result<()> {
        crate::workload::trace::check_sector_size(self.sector_size, src)?;
        check(self.queue_depth > 0, src, "workload.queue_depth", || {
            "expected a positive integer, got 0".into()
        })?;
        check(
            self.time_scale.is_finite() && self.time_scale > 0.0,
            src,
            "workload.time_scale",
            || format!("expected a positive number, got {}", self.time_scale),
        )?;
        if let TraceFormat::Columns(c) = &self.format {
            c.check(src)?;
        }
        let name = self.format.name();
        check(
            self.device.is_none() || self.format.has_device(),
            src,
            "workload.device",
            || {
                if name == "columns" {
                    "the column mapping has no `device` column to filter on".into()
                } else {
                    format!(
                        "a {name} trace has no device column to filter on (device filters: disksim, \
                         msr, spc, alibaba, tencent, and columns with a `device` column)"
                    )
                }
            },
        )?;
        check(
            self.host.is_none() || self.format == TraceFormat::Msr,
            src,
            "workload.host",
            || format!("only MSR traces have a host column (format = \"msr\"), not {name}"),
        )?;
        check(
            self.blkparse_action == BlkAction::D || self.format == TraceFormat::Blkparse,
            src,
            "workload.blkparse_action",
            || format!("only blkparse traces have actions (format = \"blkparse\"), not {name}"),
        )
    }
}

impl FilebenchWorkload {
    /// Check the keys; errors name `workload.*`.
    pub fn validate(&self, src: &str) -> Result<()> {
        super::ranges::check_value(self, "workload", src)?;
        check(
            self.personality.is_some() || self.path.is_some(),
            src,
            "workload",
            || {
                "a filebench workload needs `personality` (webserver, varmail, fileserver, oltp) or `path` (a .f file)".into()
            },
        )?;
        if let Some(p) = &self.personality {
            let known = crate::workload::filebench::PERSONALITIES;
            check(
                known.contains(&p.as_str()),
                src,
                "workload.personality",
                || format!("unknown personality `{p}` (known: {})", known.join(", ")),
            )?;
        }
        if let Some(r) = &self.ratio {
            r.validate(src, "workload.ratio")?;
        }
        for k in self.vars.keys() {
            let name = k.strip_prefix('$').unwrap_or(k);
            check(
                !name.is_empty() && !name.contains(|c: char| c.is_whitespace() || c == '='),
                src,
                &format!("workload.vars.{k}"),
                || "expected a Filebench variable name".into(),
            )?;
        }
        Ok(())
    }
}
