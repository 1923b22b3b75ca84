"""TypedDicts mirroring the core's config schema (crates/flashpress-core/src/config/schema.rs).

For static typing only: the Rust core validates every config, so nothing here checks values.
Keep these in step with the schema when it changes; units are in the key names.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

CellType = Literal["slc", "mlc", "tlc", "qlc"]
Striping = Literal["channel_first", "plane_first", "least_busy"]
VictimPolicy = Literal["greedy", "random", "cost_benefit", "fifo"]
TraceFormatName = Literal[
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
]
TimeUnit = Literal["ns", "us", "ms", "s", "filetime"]
Replay = Literal["timed", "afap"]
AddressMode = Literal["strict", "wrap"]
BlkAction = Literal["D", "Q"]
OptionValue = bool | int | float | str


class NandPowerDict(TypedDict):
    vcc_v: float
    read_ma: float
    program_ma: float
    erase_ma: float
    transfer_ma: float


class PartialReadDict(TypedDict):
    enabled: NotRequired[bool]
    unit_bytes: int
    latency_factor: float
    current_factor: float


class NandDict(TypedDict):
    channels: int
    chips_per_channel: int
    dies_per_chip: int
    planes_per_die: int
    blocks_per_plane: int
    pages_per_block: int
    page_size: int
    cell: CellType
    read_latency_us: list[float]
    program_latency_us: list[float]
    erase_latency_us: float
    channel_mb_per_s: float
    power: NandPowerDict
    partial_read: NotRequired[PartialReadDict]


class PlacementDict(TypedDict):
    type: Literal["single", "gc_separate"]


class GcDict(TypedDict):
    victim: VictimPolicy
    threshold: float
    background: bool
    background_threshold: float
    copyback: bool
    preemptible: bool
    step_pages: int
    hard_floor: float


class DeviceCompressionDict(TypedDict):
    enabled: NotRequired[bool]
    codec: str
    min_saving: float
    max_chunks_per_page: int
    compress_us: float
    decompress_us: float
    zero_units: NotRequired[bool]


class FullMapCacheDict(TypedDict):
    type: Literal["full"]


class DemandMapCacheDict(TypedDict):
    type: Literal["demand"]
    dram_bytes: int
    policy: Literal["lru", "segmented_lru"]


class FtlDict(TypedDict):
    op_ratio: float
    striping: Striping
    placement: PlacementDict
    gc: GcDict
    write_buffer_pages: int
    mapping_unit: NotRequired[int]
    compression: NotRequired[DeviceCompressionDict]
    map_cache: NotRequired[FullMapCacheDict | DemandMapCacheDict]


SchedPolicy = Literal["fcfs", "read_first"]


class SuspendDict(TypedDict):
    enabled: bool
    program_suspend_us: float
    erase_suspend_us: float
    resume_us: float
    max_per_op: int


class ControllerDict(TypedDict):
    """`[controller]`: the plain SSD's flash back end (command queues per plane)."""

    scheduler: SchedPolicy
    starvation_us: float
    ecc_decode_us: float
    suspend: SuspendDict


class HostDict(TypedDict):
    link_mb_per_s: float
    command_overhead_ns: int


class PreconditionDict(TypedDict):
    fill_fraction: float
    fill_block_size: int
    aging_fraction: float


class StatsDict(TypedDict):
    interval_ms: float
    warmup_ms: float


class CheckDict(TypedDict):
    verify: bool
    invariants: bool


ContentMode = Literal["off", "model", "bytes"]
CodecSide = Literal["host", "device"]
RatioScope = Literal["block", "file"]


class FixedRatioDict(TypedDict):
    type: Literal["fixed"]
    ratio: float


class UniformRatioDict(TypedDict):
    type: Literal["uniform"]
    min: float
    max: float


class ZipfRatioDict(TypedDict):
    type: Literal["zipf"]
    min: float
    max: float
    exponent: NotRequired[float]
    levels: NotRequired[int]


RatioDict = FixedRatioDict | UniformRatioDict | ZipfRatioDict


class GeneratedSourceDict(TypedDict):
    type: Literal["generated"]
    chunk_bytes: NotRequired[int]


class FilesSourceDict(TypedDict):
    type: Literal["files"]
    paths: list[str]
    max_bytes: NotRequired[int | None]


class HostCpuCostDict(TypedDict):
    type: Literal["host_cpu"]
    compress_mb_per_s: float
    decompress_mb_per_s: float


class EngineCostDict(TypedDict):
    type: Literal["engine"]
    block_bytes: int
    compress_ns: int
    decompress_ns: int
    lanes: int
    active_mw: float


class ContentDict(TypedDict):
    """`[content]`: codec names are strings such as "lz4", "zstd-3", "deflate-6", "dpc"."""

    mode: ContentMode
    codec: str
    granularity: int
    calibrate: str
    ratio: RatioDict
    ratio_scope: NotRequired[RatioScope]
    source: GeneratedSourceDict | FilesSourceDict
    side: CodecSide
    cost: NotRequired[HostCpuCostDict | EngineCostDict | None]
    cache_entries: int


# `global` is a Python keyword, hence the functional form. fio option names are open-ended,
# so jobs are plain mappings of option name to value.
FioWorkloadDict = TypedDict(
    "FioWorkloadDict",
    {
        "type": Literal["fio"],
        "path": NotRequired[str | None],
        "global": NotRequired[dict[str, OptionValue]],
        "jobs": NotRequired[list[dict[str, OptionValue]]],
        "args": NotRequired[list[str]],
        "vars": NotRequired[dict[str, str]],
    },
)


class ColumnsFormatDict(TypedDict):
    """A column mapping for any CSV or whitespace table (columns numbered from 1)."""

    type: Literal["columns"]
    delimiter: NotRequired[str]
    skip_lines: NotRequired[int]
    header: NotRequired[bool]
    time: int
    offset: int
    size: int
    op: int
    device: NotRequired[int]
    offset_unit: Literal["bytes", "sectors"]
    size_unit: Literal["bytes", "sectors"]
    read: NotRequired[list[str]]
    write: NotRequired[list[str]]
    trim: NotRequired[list[str]]
    ignore: NotRequired[list[str]]


TraceFormat = TraceFormatName | ColumnsFormatDict


class TraceWorkloadDict(TypedDict):
    type: Literal["trace"]
    path: str
    format: TraceFormat
    time_unit: TimeUnit
    sector_size: int
    replay: Replay
    queue_depth: int
    time_scale: float
    address_mode: AddressMode
    device: NotRequired[int | None]
    host: NotRequired[str]
    blkparse_action: BlkAction
    hash_bytes: NotRequired[int]


class FilebenchWorkloadDict(TypedDict):
    """Filebench personality (webserver, varmail, fileserver, oltp) and/or a `.f` file."""

    type: Literal["filebench"]
    personality: NotRequired[Literal["webserver", "varmail", "fileserver", "oltp"] | None]
    path: NotRequired[str | None]
    vars: NotRequired[dict[str, OptionValue]]
    runtime_s: NotRequired[float | None]
    ratio: NotRequired[RatioDict | None]
    hog_ns_per_iteration: NotRequired[float | None]


WorkloadDict = FioWorkloadDict | TraceWorkloadDict | FilebenchWorkloadDict


class ZnsDict(TypedDict):
    """``[zns]``: a zoned namespace (NVMe ZNS) instead of the page FTL."""

    channels_per_zone: int
    chips_per_zone: int
    blocks_per_plane: int
    zone_size: NotRequired[int]
    max_open_zones: int
    max_active_zones: int
    read_only_zones: NotRequired[list[int]]
    offline_zones: NotRequired[list[int]]
    compression: NotRequired[DeviceCompressionDict]


RuhType = Literal["initially_isolated", "persistently_isolated"]


class FdpDict(TypedDict):
    """``[fdp]``: NVMe Flexible Data Placement, its reclaim unit handles by type."""

    handles: list[RuhType]
    reclaim_groups: NotRequired[int]
    ru_bytes: NotRequired[int]


class SimConfigDict(TypedDict):
    """A fully resolved config, as ``Config.to_dict()`` returns it."""

    scheme: NotRequired[str]
    seed: int
    nand: NandDict
    ftl: FtlDict
    host: HostDict
    controller: ControllerDict
    precondition: PreconditionDict
    stats: StatsDict
    check: CheckDict
    content: ContentDict
    zns: NotRequired[ZnsDict]
    fdp: NotRequired[FdpDict]
    workload: WorkloadDict


__all__ = [
    "FdpDict",
    "RuhType",
    "ZnsDict",
    "ContentDict",
    "ControllerDict",
    "SuspendDict",
    "ContentMode",
    "RatioDict",
    "AddressMode",
    "BlkAction",
    "CellType",
    "CheckDict",
    "FioWorkloadDict",
    "FtlDict",
    "GcDict",
    "HostDict",
    "NandDict",
    "NandPowerDict",
    "OptionValue",
    "PlacementDict",
    "PreconditionDict",
    "Replay",
    "SimConfigDict",
    "StatsDict",
    "Striping",
    "TimeUnit",
    "TraceFormat",
    "TraceFormatName",
    "ColumnsFormatDict",
    "TraceWorkloadDict",
    "VictimPolicy",
    "WorkloadDict",
]
