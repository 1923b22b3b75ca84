//! `[stack]`: a host file system with cluster compression over a compression-capable SSD
//! (CCSD), with the compression-placement and space policies of the Waltz and COCO seeds.
//! Absent, the workload drives the plain SSD of `[nand]`/`[ftl]` directly.
//!
//! Every field has a default (the seeds' values where they state one), so a config can say
//! just `[stack] policy = "waltz_s"`.

use super::schema::check;
use crate::codec::{CodecKind, CostModel};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Compression-placement policies (the placement seam), each from its seed.
pub const POLICY_NAMES: &[&str] = &[
    "baseline", "f2fsc", "fpc", "coco", "tcs", "waltz_s", "waltz_p",
];

/// A placement policy, parsed from its name (see [`POLICY_NAMES`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PolicyKind {
    /// Waltz §6.1: the CCSD compresses everything, with its throttling; F2FS compression off.
    Baseline,
    /// Waltz §6.1: F2FS compresses everything on host cores; the SSD does not compress.
    F2fsc,
    /// Waltz §6.1 after Ji et al. \[19\] and COCO \[32\]: file type plus access frequency choose
    /// host or device; not temperature-aware.
    Fpc,
    /// COCO (FACS): data not tagged hot whose first three blocks compress better than `Tc`
    /// go to the CCSD; the rest is not compressed (COCO has no host compression).
    Coco,
    /// Waltz §4.3: temperature-aware scheduling (`T_soft` moves decompression to the host,
    /// `T_hard` moves compression too), without OSA.
    Tcs,
    /// Waltz Table 2, space-optimised: TCS plus OSA.
    WaltzS,
    /// Waltz Table 2, performance-optimised: decompression stays on the CCSD above `T_soft`,
    /// compression is skipped at `T_hard`; plus OSA.
    WaltzP,
}

impl PolicyKind {
    /// Parse a policy name; `key` names the config key for the error.
    pub fn parse(name: &str, key: &str) -> Result<PolicyKind> {
        Ok(match name {
            "baseline" => PolicyKind::Baseline,
            "f2fsc" => PolicyKind::F2fsc,
            "fpc" => PolicyKind::Fpc,
            "coco" => PolicyKind::Coco,
            "tcs" => PolicyKind::Tcs,
            "waltz_s" => PolicyKind::WaltzS,
            "waltz_p" => PolicyKind::WaltzP,
            _ => {
                return Err(Error::UnknownPolicy {
                    key: key.to_string(),
                    name: name.to_string(),
                    known: POLICY_NAMES.join(", "),
                })
            }
        })
    }

    /// The config name.
    pub fn name(self) -> &'static str {
        POLICY_NAMES[self as usize]
    }

    /// Whether the scheme needs the CCSD's engine at all.
    pub fn uses_device_compression(self) -> bool {
        self != PolicyKind::F2fsc
    }
}

/// The storage stack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StackConfig {
    /// Placement policy of every stream (one of [`POLICY_NAMES`]).
    pub policy: String,
    /// Per-stream override, by stream (fio job) name: e.g. `waltz_p` for latency-critical
    /// streams and `waltz_s` for the rest (Waltz §4.4).
    pub stream_policy: BTreeMap<String, String>,
    /// Temperature thresholds of TCS / Waltz.
    pub tcs: TcsConfig,
    /// COCO's feature-aware scheduling.
    pub coco: CocoConfig,
    /// FPC's selective compression.
    pub fpc: FpcConfig,
    /// Space policy: how much compression-saved space becomes reserved space.
    pub space: SpacePolicy,
    /// The F2FS-like file system.
    pub fs: FsConfig,
    /// Host CPU.
    pub cpu: CpuConfig,
    /// The compression-capable SSD's controller (engine, thermal model, throttling).
    pub ccsd: CcsdConfig,
    /// The host page cache over the file system.
    pub cache: CacheConfig,
}

impl Default for StackConfig {
    fn default() -> Self {
        StackConfig {
            policy: "baseline".into(),
            stream_policy: BTreeMap::new(),
            tcs: TcsConfig::default(),
            coco: CocoConfig::default(),
            fpc: FpcConfig::default(),
            space: SpacePolicy::Fixed,
            fs: FsConfig::default(),
            cpu: CpuConfig::default(),
            ccsd: CcsdConfig::default(),
            cache: CacheConfig::default(),
        }
    }
}

/// The host page cache and its writeback (`stack::cache`), with Linux's `vm.dirty_*`
/// sysctls (Documentation/admin-guide/sysctl/vm.rst) under their names and defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CacheConfig {
    /// Whether file I/O goes through the page cache (false, the default: every request goes
    /// to the file system at once and a write is durable when it completes). Off by default
    /// because cached Filebench loops run at memory speed: the default-scale webserver run
    /// reads 1.56 million cached pages per simulated second on 16 cores and fills its
    /// partition with its log (see the README).
    pub enabled: bool,
    /// Pages the cache holds (MiB; 0 turns the cache off). Default 16 GiB, the memory of
    /// the Waltz seed's host.
    pub capacity_mib: u64,
    /// `vm.dirty_ratio` (percent of the cache, Linux default 20): above it a writing
    /// process writes back dirty data itself and waits for it.
    pub dirty_ratio: f64,
    /// `vm.dirty_background_ratio` (percent of the cache, Linux default 10): above it the
    /// flusher writes back the oldest dirty files until the dirty data is below it again.
    pub dirty_background_ratio: f64,
    /// `vm.dirty_expire_centisecs` (1/100 s, Linux default 3000): a file dirty for longer
    /// is written back by the next periodic flush.
    pub dirty_expire_centisecs: u64,
    /// `vm.dirty_writeback_centisecs` (1/100 s, Linux default 500): period of the flusher.
    pub dirty_writeback_centisecs: u64,
    /// Host CPU time of one read or write system call served by the cache (µs): the
    /// system call, the VFS path and the page-cache lookup, run on a host core
    /// (our conservative estimate; see the README).
    pub op_cpu_us: f64,
    /// Host CPU time to copy one 4 KiB page between the user buffer and the cache (µs).
    pub page_copy_us: f64,
}

impl CacheConfig {
    /// Whether the cache is on (`enabled` and a capacity above 0).
    pub fn on(&self) -> bool {
        self.enabled && self.capacity_mib > 0
    }

    fn validate(&self, src: &str) -> Result<()> {
        check(
            self.dirty_background_ratio <= self.dirty_ratio,
            src,
            "stack.cache.dirty_background_ratio",
            || {
                format!(
                    "expected at most dirty_ratio ({}), got {}",
                    self.dirty_ratio, self.dirty_background_ratio
                )
            },
        )
    }
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            enabled: false,
            capacity_mib: 16 * 1024,
            dirty_ratio: 20.0,
            dirty_background_ratio: 10.0,
            dirty_expire_centisecs: 3000,
            dirty_writeback_centisecs: 500,
            op_cpu_us: 5.0,
            page_copy_us: 1.0,
        }
    }
}

/// TCS thresholds (Waltz §4.3, §4.5.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcsConfig {
    /// Above this temperature decompression moves to the host (Waltz_s) (°C).
    pub t_soft_c: f64,
    /// At this temperature compression moves to the host (Waltz_s) or stops (Waltz_p) (°C).
    pub t_hard_c: f64,
    /// How often the host reads the temperature from SMART (ms).
    pub smart_interval_ms: f64,
}

impl Default for TcsConfig {
    fn default() -> Self {
        TcsConfig {
            t_soft_c: 76.0,
            t_hard_c: 85.0,
            smart_interval_ms: 1000.0,
        }
    }
}

/// COCO's feature-aware compression scheduling (COCO slides, "FACS").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CocoConfig {
    /// Compression-ratio threshold `Tc`: cold files whose sample compresses better go to the CCSD.
    pub tc: f64,
    /// Blocks at the start of a file whose ratio is the file's estimate.
    pub sample_blocks: u32,
    /// The hot/cold tag is F2FS's own temperature classification (mkfs.f2fs's default
    /// extension lists: `db` files hot, media files cold, the rest warm) rather than the
    /// hotness the workload gives a file. Either way warm counts as cold (COCO's tag is
    /// two-way).
    pub tags: bool,
    /// What happens to data COCO does not send to the CCSD (the slides allow both readings).
    pub rest: CocoRest,
}

/// COCO's data not sent to the CCSD.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CocoRest {
    /// Stored uncompressed (COCO has no software compression, Waltz Table 1).
    Uncompressed,
    /// Compressed by F2FS on host cores, as F2FSC does.
    Host,
}

impl Default for CocoConfig {
    fn default() -> Self {
        CocoConfig {
            tc: 2.0,
            sample_blocks: 3,
            tags: false,
            rest: CocoRest::Uncompressed,
        }
    }
}

/// FPC (Waltz §6.1): "a hybrid metric of the file types [19] and access frequency [32]": files
/// of a selected type that are not frequently accessed are compressed on the host, the rest
/// by the CCSD.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FpcConfig {
    /// How access frequency is told: `tag` (the default) reads it as COCO [32] does, from the
    /// hot/cold tag of the data (the workload's hotness, or F2FS's own classification with
    /// `coco.tags`): hot data is frequently accessed; `accesses` counts each file's reads and
    /// writes against `hot_accesses`.
    pub frequency: FpcFrequency,
    /// With `frequency = "accesses"`: files read or written at least this many times are
    /// "frequently accessed" and left to the CCSD.
    pub hot_accesses: u32,
    /// File types (as workloads tag them) selected for host compression.
    pub host_types: Vec<String>,
}

/// How FPC tells frequently accessed data (see [`FpcConfig::frequency`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FpcFrequency {
    /// The data's hot/cold tag, as COCO [32] classifies it: hot is frequent.
    #[default]
    Tag,
    /// A count of the file's accesses against `hot_accesses`.
    Accesses,
}

impl Default for FpcConfig {
    fn default() -> Self {
        FpcConfig {
            frequency: FpcFrequency::Tag,
            hot_accesses: 4,
            host_types: vec!["text".into(), "log".into(), "db".into()],
        }
    }
}

/// How much of the space saved by compression becomes reserved space (the space seam).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum SpacePolicy {
    /// The file system's `fs.rs_ratio` only.
    #[default]
    Fixed,
    /// Waltz §5.2 on-demand space allocation, evaluated once per `interval_ms`.
    Osa {
        /// Segment-cleaning invocations per second above which RS grows (`FT_sc`).
        ft_sc_per_s: f64,
        /// Blocks copied by cleaning per second above which RS grows (`FT_c`).
        ft_c_per_s: f64,
        /// Step of growth or shrinkage, as a fraction of the partition (`T_s`).
        ts: f64,
        /// Most extra RS, as a fraction of the partition (`RS_max`).
        rs_max: f64,
        /// Decision period (ms).
        interval_ms: f64,
    },
    /// COCO's on-demand OP: grow the reserved space in `step` increments while the saved
    /// space allows, up to `max` (the knee of its OP-ratio study, 15%).
    CocoOp {
        /// Step (fraction of the partition).
        step: f64,
        /// Most extra reserved space (fraction of the partition).
        max: f64,
        /// Decision period (ms).
        interval_ms: f64,
    },
}

/// The F2FS-like log-structured file system.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FsConfig {
    /// Partition size in bytes (a multiple of the segment size).
    pub partition_bytes: u64,
    /// Blocks (4 KiB) per segment (F2FS: 512, i.e. 2 MiB).
    pub segment_blocks: u32,
    /// Reserved space for segment cleaning, as a fraction of the partition, in [0, 1).
    pub rs_ratio: f64,
    /// Allocation mode (F2FS's `mode=` mount option): `adaptive` (default, as in F2FS: thread
    /// logging by F2FS's need-SSR rule) or `lfs` (append only; segment cleaning, no thread
    /// logging).
    pub mode: FsMode,
    /// Fixed thread-logging threshold replacing F2FS's need-SSR rule (the seed's former
    /// behaviour): thread logging starts when free segments fall below this fraction of the
    /// partition. Absent (default): the need-SSR rule. `0.0` never thread-logs (as `lfs`).
    pub ssr_ratio: Option<f64>,
    /// Background segment cleaning in idle time (F2FS's `gc_thread_func`).
    pub bggc: BgGcConfig,
    /// Node-block and checkpoint writes.
    pub meta: FsMetaConfig,
    /// Fraction of the user space filled with files before the measured run (to trigger
    /// segment cleaning), in [0, 1].
    pub fill_fraction: f64,
    /// Host compression: codec, cluster size.
    pub compression: FsCompression,
    /// CCF mount options agreed with the device (Waltz §4.5.1).
    pub mount: MountOptions,
}

impl Default for FsConfig {
    fn default() -> Self {
        FsConfig {
            partition_bytes: 200 << 30,
            segment_blocks: 512,
            rs_ratio: 0.05,
            mode: FsMode::Adaptive,
            ssr_ratio: None,
            bggc: BgGcConfig::default(),
            meta: FsMetaConfig::default(),
            fill_fraction: 0.0,
            compression: FsCompression::default(),
            mount: MountOptions::default(),
        }
    }
}

/// F2FS's allocation mode (`mode=` mount option).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FsMode {
    /// Append to free segments while F2FS's need-SSR rule allows, thread logging below it.
    #[default]
    Adaptive,
    /// Append only (thread logging only as the last resort when no segment is free).
    Lfs,
}

/// F2FS's background cleaning thread (`gc_thread_func`; defaults are the kernel's
/// `DEF_GC_THREAD_*_SLEEP_TIME` and `DEF_IDLE_INTERVAL`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BgGcConfig {
    /// Run the background cleaner.
    pub enabled: bool,
    /// Shortest sleep between wake-ups (ms; kernel: 30 s).
    pub min_sleep_ms: f64,
    /// Longest sleep while there is work (ms; kernel: 60 s).
    pub max_sleep_ms: f64,
    /// Sleep after a wake-up that found no victim (ms; kernel: 5 min).
    pub no_gc_sleep_ms: f64,
    /// The file system is idle when no request arrived for this long (ms; kernel: 5 s).
    pub idle_ms: f64,
}

impl Default for BgGcConfig {
    fn default() -> Self {
        BgGcConfig {
            enabled: true,
            min_sleep_ms: 30_000.0,
            max_sleep_ms: 60_000.0,
            no_gc_sleep_ms: 300_000.0,
            idle_ms: 5_000.0,
        }
    }
}

/// Node blocks (direct nodes holding the data addresses) and checkpoints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FsMetaConfig {
    /// Write the node blocks a data write dirties (at checkpoints) and the checkpoint pack,
    /// NAT and SIT blocks.
    pub node_writes: bool,
    /// Checkpoint period (ms; kernel `DEF_CP_INTERVAL`: 60 s).
    pub cp_interval_ms: f64,
    /// Dirty node blocks that force a checkpoint: the `excess_dirty_nodes` rule of kernels
    /// 4.10 to 5.11 (eight segments, 4096 blocks). Absent (default): current kernels, which
    /// dropped it; dirty nodes wait for the periodic checkpoint or a sync.
    pub excess_dirty_nodes: Option<u64>,
}

impl Default for FsMetaConfig {
    fn default() -> Self {
        FsMetaConfig {
            node_writes: true,
            cp_interval_ms: 60_000.0,
            excess_dirty_nodes: None,
        }
    }
}

/// F2FS cluster compression (Waltz §2.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FsCompression {
    /// Host codec (Waltz §6.1: ZSTD).
    pub codec: String,
    /// Blocks per cluster (F2FS default 4 = 16 KiB).
    pub cluster_blocks: u32,
}

impl Default for FsCompression {
    fn default() -> Self {
        FsCompression {
            codec: "zstd-3".into(),
            cluster_blocks: 4,
        }
    }
}

/// CCF mount options (`-with_CCSD`, `-granularity`, `-algorithm`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MountOptions {
    /// Cooperative compression with the CCSD on.
    pub with_ccsd: bool,
    /// The CCSD's compression granularity as the host believes it (bytes).
    pub granularity: u32,
    /// The CCSD's algorithm as the host believes it (a codec name).
    pub algorithm: String,
}

impl Default for MountOptions {
    fn default() -> Self {
        MountOptions {
            with_ccsd: true,
            granularity: 4096,
            algorithm: "zlib-6".into(),
        }
    }
}

/// Host CPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CpuConfig {
    /// Cores available to the I/O stack and the co-running job.
    pub cores: u32,
    /// Threads that compress on the write path (F2FS compresses in writeback: one flusher
    /// per device).
    pub compress_threads: u32,
    /// Fixed software-stack cost per cluster (de)compressed on the host, on top of the codec
    /// time (µs).
    pub per_cluster_overhead_us: f64,
    /// Host codec cost override (`host_cpu` model); absent: the codec's measured default.
    pub cost: Option<CostModel>,
    /// Host codec time follows the compressibility of generated content: the MB/s (measured
    /// on real text) scaled by the codec's instructions per byte at the cluster's ratio over
    /// those on the text (`codec::cost::generated_content_factor`). Real-file content and
    /// codecs without a measured table keep the MB/s as given.
    pub ratio_speed: bool,
    /// Threads of a co-running CPU-bound job (sysbench primes in Waltz §6.4.3); 0 = none.
    pub compute_threads: u32,
    /// Power of a busy core (W).
    pub core_active_w: f64,
    /// Power of an idle core (W).
    pub core_idle_w: f64,
}

impl Default for CpuConfig {
    fn default() -> Self {
        CpuConfig {
            cores: 16,
            compress_threads: 1,
            per_cluster_overhead_us: 5.0,
            cost: None,
            ratio_speed: true,
            compute_threads: 0,
            core_active_w: 6.0,
            core_idle_w: 0.5,
        }
    }
}

/// The CCSD controller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CcsdConfig {
    /// The compression engine is present and on (false: a plain SSD, "CCSD without
    /// compression").
    pub engine: bool,
    /// Engine codec (Waltz: hardware zlib).
    pub codec: String,
    /// Engine granularity in bytes (Waltz: 4 KiB).
    pub granularity: u32,
    /// Engine cost override (`engine` model); absent: the codec's engine default.
    pub cost: Option<CostModel>,
    /// Logical space the device exposes, as a multiple of its physical capacity (>= 1).
    pub logical_ratio: f64,
    /// A compressed chunk may straddle two flash pages (its tail starts the next page), so
    /// only flushes of partial pages pad; false: a chunk that does not fit the rest of the
    /// open page closes it and the rest is padding.
    pub straddle: bool,
    /// Most compressed chunks one flash page holds (the reverse map's entries per page:
    /// PR-SSD's conventional compression SSD keeps 20); a page that reaches it is closed and
    /// the rest is padding. 0: no limit but the page's bytes.
    pub max_chunks_per_page: u32,
    /// Temperature at which the device throttles its engine (°C).
    pub throttle_c: f64,
    /// Engine throughput while throttled, as a fraction of full speed (Waltz §3.1: about 0.1).
    pub throttle_speed: f64,
    /// Engine power while throttled, as a fraction of full power.
    pub throttle_power: f64,
    /// Throttling ends when the temperature falls below this (°C).
    pub throttle_release_c: f64,
    /// Thermal emergency: the device shuts down at this temperature (°C).
    pub emergency_c: f64,
    /// After shutdown, a request fails after this host I/O timeout (ms).
    pub io_timeout_ms: f64,
    /// Thermal model.
    pub thermal: ThermalConfig,
}

impl Default for CcsdConfig {
    fn default() -> Self {
        CcsdConfig {
            engine: true,
            codec: "zlib-6".into(),
            granularity: 4096,
            cost: None,
            logical_ratio: 2.0,
            straddle: false,
            max_chunks_per_page: 0,
            throttle_c: 76.0,
            throttle_speed: 0.1,
            throttle_power: 1.0,
            throttle_release_c: 70.0,
            emergency_c: 86.0,
            io_timeout_ms: 30_000.0,
            thermal: ThermalConfig::default(),
        }
    }
}

/// First-order thermal model: `C dT/dt = P(t) - (T - T_env) / R`, with `tau = R C`, where
/// `T_env = ambient_c + neighbour_c` and P is idle power + NAND power + engine power + a
/// leakage term that grows with temperature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ThermalConfig {
    /// Room or inlet temperature (°C).
    pub ambient_c: f64,
    /// Extra heating of the device's surroundings by neighbouring devices in a rack (°C).
    pub neighbour_c: f64,
    /// Initial temperature (°C); absent: the surroundings' temperature.
    pub initial_c: Option<f64>,
    /// Thermal resistance to the surroundings (°C per W).
    pub r_c_per_w: f64,
    /// Time constant R*C (s).
    pub tau_s: f64,
    /// Controller and DRAM power when idle (W).
    pub idle_w: f64,
    /// Power of the controller's data path per GB/s moved over the host link (W per GB/s).
    pub link_w_per_gb_s: f64,
    /// Leakage power at `leak_ref_c` (W), growing by e per `leak_scale_c` degrees.
    pub leak_w: f64,
    /// Reference temperature of the leakage term (°C).
    pub leak_ref_c: f64,
    /// Degrees per e-fold of leakage (°C).
    pub leak_scale_c: f64,
    /// Integration step (ms).
    pub step_ms: f64,
}

impl Default for ThermalConfig {
    fn default() -> Self {
        ThermalConfig {
            ambient_c: 23.0,
            neighbour_c: 0.0,
            initial_c: None,
            r_c_per_w: 3.0,
            tau_s: 300.0,
            idle_w: 5.0,
            link_w_per_gb_s: 1.0,
            leak_w: 0.0,
            leak_ref_c: 25.0,
            leak_scale_c: 20.0,
            step_ms: 100.0,
        }
    }
}

fn codec(name: &str, src: &str, key: &str) -> Result<CodecKind> {
    name.parse::<CodecKind>().map_err(|e| match e {
        Error::UnknownCodec { name, known } => {
            Error::config(src, key, format!("unknown codec `{name}` (known: {known})"))
        }
        other => other,
    })
}

impl StackConfig {
    /// The policy of stream `name` (fio clones `job.cloneN` follow their job's entry).
    pub fn policy_of(&self, name: &str) -> PolicyKind {
        let job = name.split_once(".clone").map_or(name, |(j, _)| j);
        let p = self
            .stream_policy
            .get(name)
            .or_else(|| self.stream_policy.get(job))
            .unwrap_or(&self.policy);
        PolicyKind::parse(p, "stack.policy").expect("validated")
    }

    /// Host codec.
    pub fn host_codec(&self) -> CodecKind {
        self.fs.compression.codec.parse().expect("validated")
    }

    /// Engine codec.
    pub fn engine_codec(&self) -> CodecKind {
        self.ccsd.codec.parse().expect("validated")
    }

    /// Host cost model (override or measured default).
    pub fn host_cost(&self) -> CostModel {
        self.cpu
            .cost
            .unwrap_or_else(|| CostModel::host_default(self.host_codec()))
    }

    /// Host cost of decompressing the engine's format (host-side decompression of
    /// device-compressed data).
    pub fn host_cost_of_engine_codec(&self) -> CostModel {
        CostModel::host_default(self.engine_codec())
    }

    /// Engine cost model (override or seed default).
    pub fn engine_cost(&self) -> CostModel {
        self.ccsd
            .cost
            .unwrap_or_else(|| CostModel::engine_default(self.engine_codec()))
    }

    /// Check every value; `src` names the config source for errors.
    pub fn validate(&self, src: &str) -> Result<()> {
        let mut any_cooperative = false;
        let mut check_policy = |name: &str, key: &str| -> Result<()> {
            let p = PolicyKind::parse(name, key)?;
            any_cooperative |=
                matches!(p, PolicyKind::Tcs | PolicyKind::WaltzS | PolicyKind::WaltzP);
            Ok(())
        };
        check_policy(&self.policy, "stack.policy")?;
        for (stream, p) in &self.stream_policy {
            check_policy(p, &format!("stack.stream_policy.{stream}"))?;
        }
        let t = &self.tcs;
        check(t.t_soft_c < t.t_hard_c, src, "stack.tcs.t_soft_c", || {
            format!(
                "T_soft must be below T_hard, got t_soft_c = {} and t_hard_c = {}",
                t.t_soft_c, t.t_hard_c
            )
        })?;
        check(
            t.t_hard_c <= self.ccsd.emergency_c,
            src,
            "stack.tcs.t_hard_c",
            || {
                format!(
                    "T_hard must not exceed the emergency temperature ccsd.emergency_c = {}, got {}",
                    self.ccsd.emergency_c, t.t_hard_c
                )
            },
        )?;
        for t in &self.fpc.host_types {
            check(
                crate::workload::FileType::NAMES.contains(&t.as_str()),
                src,
                "stack.fpc.host_types",
                || {
                    format!(
                        "unknown file type `{t}` (known: {})",
                        crate::workload::FileType::NAMES.join(", ")
                    )
                },
            )?;
        }
        match &self.space {
            SpacePolicy::Fixed => {}
            SpacePolicy::Osa { ts, rs_max, .. } => {
                check(*ts <= *rs_max, src, "stack.space.rs_max", || {
                    format!("expected at least ts ({ts}), got {rs_max}")
                })?;
            }
            SpacePolicy::CocoOp { step, max, .. } => {
                check(*step <= *max, src, "stack.space.max", || {
                    format!("expected at least step ({step}), got {max}")
                })?;
            }
        }
        let f = &self.fs;
        if f.ssr_ratio.is_some() {
            check(
                f.mode == FsMode::Adaptive,
                src,
                "stack.fs.ssr_ratio",
                || {
                    "a thread-logging threshold needs mode = \"adaptive\" (mode = \"lfs\" never \
                 thread-logs); remove ssr_ratio"
                        .into()
                },
            )?;
        }
        let g = &f.bggc;
        check(
            g.max_sleep_ms >= g.min_sleep_ms,
            src,
            "stack.fs.bggc.max_sleep_ms",
            || {
                format!(
                    "expected at least min_sleep_ms ({}), got {}",
                    g.min_sleep_ms, g.max_sleep_ms
                )
            },
        )?;
        let seg_bytes = f.segment_blocks as u64 * 4096;
        check(
            f.partition_bytes >= 16 * seg_bytes && f.partition_bytes.is_multiple_of(seg_bytes),
            src,
            "stack.fs.partition_bytes",
            || {
                format!(
                    "expected a multiple of the segment size ({seg_bytes} bytes), at least 16 segments, got {}",
                    f.partition_bytes
                )
            },
        )?;
        let cb = f.compression.cluster_blocks;
        check(
            cb.is_power_of_two(),
            src,
            "stack.fs.compression.cluster_blocks",
            || format!("F2FS clusters are 2^n blocks, 2..=256, got {cb}"),
        )?;
        let host = codec(&f.compression.codec, src, "stack.fs.compression.codec")?;
        if let Some(c) = &self.cpu.cost {
            check(
                matches!(c, CostModel::HostCpu { .. }),
                src,
                "stack.cpu.cost",
                || "expected a host_cpu cost model".into(),
            )?;
        }
        let _ = host;
        let c = &self.cpu;
        check(
            c.compress_threads <= c.cores,
            src,
            "stack.cpu.compress_threads",
            || {
                format!(
                    "expected at most stack.cpu.cores = {}, got {}",
                    c.cores, c.compress_threads
                )
            },
        )?;
        let d = &self.ccsd;
        let engine = codec(&d.codec, src, "stack.ccsd.codec")?;
        check(d.granularity == 4096, src, "stack.ccsd.granularity", || {
            format!(
                "the engine compresses each 4096-byte logical block on its own; got {}",
                d.granularity
            )
        })?;
        if let Some(c) = &d.cost {
            check(
                matches!(c, CostModel::Engine { .. }),
                src,
                "stack.ccsd.cost",
                || "expected an engine cost model".into(),
            )?;
        }
        check(
            d.throttle_release_c <= d.throttle_c && d.throttle_c < d.emergency_c,
            src,
            "stack.ccsd.throttle_c",
            || {
                format!(
                    "expected throttle_release_c <= throttle_c < emergency_c, got {} / {} / {}",
                    d.throttle_release_c, d.throttle_c, d.emergency_c
                )
            },
        )?;
        // CCF: the host can only decompress what the device compressed if both agree on the
        // algorithm and granularity (Waltz §4.2, mount options of §4.5.1).
        let m = &f.mount;
        // A name the policy does not use must still be a codec's: refused rather than ignored.
        let host_view = codec(&m.algorithm, src, "stack.fs.mount.algorithm")?;
        if m.with_ccsd && any_cooperative && (host_view != engine || m.granularity != d.granularity)
        {
            return Err(Error::CcfMismatch(format!(
                "{src}: stack.fs.mount says the CCSD compresses with {} at {} bytes, but \
                 stack.ccsd has {} at {} bytes; host-side decompression of device-compressed \
                 data needs both to agree",
                host_view, m.granularity, engine, d.granularity
            )));
        }
        if any_cooperative && !m.with_ccsd {
            return Err(Error::config(
                src,
                "stack.fs.mount.with_ccsd",
                "cooperative policies (tcs, waltz_s, waltz_p) need with_ccsd = true",
            ));
        }
        self.cache.validate(src)
    }
}
