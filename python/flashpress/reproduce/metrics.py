"""Per-run metrics read from the results table (one row per run, the summary flattened)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

#: Label columns that pair a run with its reference run (everything but the scheme / codec);
#: ``rep`` pairs runs of the same seed.
PAIR_KEYS = ("pattern", "personality", "workload", "channels", "rs", "fill", "ratio", "sc", "variant", "rep")


def _get(row: Mapping[str, Any], *keys: str) -> float | None:
    for k in keys:
        v = row.get(k)
        if v is not None and not (isinstance(v, float) and math.isnan(v)):
            return float(v)
    return None


def throughput(row: Mapping[str, Any]) -> float | None:
    """MB/s of the run's I/O: the pattern's direction for FIO patterns, reads plus writes
    otherwise (Filebench)."""
    pattern = row.get("pattern")
    r = _get(row, "read.throughput_mb_s", "read.mb_per_s")
    w = _get(row, "write.throughput_mb_s", "write.mb_per_s")
    if isinstance(pattern, str) and pattern.endswith("write"):
        return w
    if isinstance(pattern, str) and pattern.endswith("read"):
        return r
    if r is None and w is None:
        return None
    return (r or 0.0) + (w or 0.0)


def power(row: Mapping[str, Any]) -> float | None:
    """Mean power of the device and the host CPU (W)."""
    d = _get(row, "stack.energy.device_mean_w")
    h = _get(row, "stack.energy.host_mean_w")
    if d is None and h is None:
        return None
    return (d or 0.0) + (h or 0.0)


def missed_compression(row: Mapping[str, Any]) -> float | None:
    """Share of written blocks left uncompressed (skipped) out of all compression decisions."""
    dev = _get(row, "stack.tasks.compress_device_blocks") or 0.0
    host = _get(row, "stack.tasks.compress_host_blocks") or 0.0
    skip = _get(row, "stack.tasks.compress_skipped_blocks")
    if skip is None or dev + host + skip == 0:
        return None
    return skip / (dev + host + skip)


def device_compress_share(row: Mapping[str, Any]) -> float | None:
    """Share of compression tasks done by the device."""
    dev = _get(row, "stack.tasks.compress_device_blocks")
    host = _get(row, "stack.tasks.compress_host_blocks") or 0.0
    if dev is None or dev + host == 0:
        return None
    return dev / (dev + host)


def power_rise(row: Mapping[str, Any]) -> float | None:
    """How much the device's power rose while it heated (percent): the last tenth of the
    intervals before the first throttle against the first tenth (``timeline_features``)."""
    start, hot = _get(row, "timeline.device_w_start"), _get(row, "timeline.device_w_hot")
    if start is None or hot is None or start <= 0:
        return None
    return 100.0 * (hot / start - 1.0)


def overall_rt(row: Mapping[str, Any]) -> float | None:
    """Mean response time of all requests (us): reads and writes weighted by their counts."""
    r, w = _get(row, "read.latency_us.mean"), _get(row, "write.latency_us.mean")
    nr, nw = _get(row, "read.requests") or 0.0, _get(row, "write.requests") or 0.0
    if nr + nw == 0:
        return None
    return ((r or 0.0) * nr + (w or 0.0) * nw) / (nr + nw)


def gc_rt(row: Mapping[str, Any]) -> float | None:
    """Mean response time (us) of the requests that waited while GC ran on their plane (CAGC's
    "response time during GC"): reads and writes weighted by their counts."""
    r, w = _get(row, "read.during_gc.latency_us.mean"), _get(row, "write.during_gc.latency_us.mean")
    nr, nw = _get(row, "read.during_gc.requests") or 0.0, _get(row, "write.during_gc.requests") or 0.0
    if nr + nw == 0:
        return None
    return ((r or 0.0) * nr + (w or 0.0) * nw) / (nr + nw)


def gc_time_s(row: Mapping[str, Any]) -> float | None:
    """GC's flash time (s, per plane; CAGC's "GC duration"): the planes' share of time in GC's
    array operations times the time until the flash went quiet; the planes are the same for
    every scheme of a figure, so its change is the change of GC's total duration."""
    busy, quiet = _get(row, "controller.gc_busy_fraction"), _get(row, "controller.flash_quiet_s")
    if busy is None or quiet is None:
        return None
    return busy * quiet


def dropped_share(row: Mapping[str, Any], lo: int, hi: int | None = None) -> float | None:
    """Share of the logical pages dropped (overwritten or trimmed) whose content had a count in
    ``lo .. hi`` (CAGC's Fig. 6; ``dedup.dropped_by_count[i]`` counts count ``i + 1``, the last
    bucket 8 and above)."""
    raw = row.get("dedup.dropped_by_count")
    if not isinstance(raw, str):
        return None
    counts = [float(c) for c in json.loads(raw)]
    total = sum(counts)
    if total == 0:
        return None
    return sum(counts[lo - 1 : None if hi is None else hi]) / total


def _scaled(v: float | None, k: float) -> float | None:
    return None if v is None else v * k


def decompress_share(row: Mapping[str, Any]) -> float | None:
    """The decompression engine's busy time over the sum of read response times."""
    busy = _get(row, "compression.decompress_busy_ns")
    n, mean = _get(row, "read.requests"), _get(row, "read.latency_us.mean")
    if busy is None or not n or not mean:
        return None
    return busy / (n * mean * 1e3)


def read_energy(row: Mapping[str, Any]) -> float | None:
    """Energy of flash reads (J): the array's sensing (partial reads at their lower current)."""
    return _get(row, "energy.nand_read_j")


def partial_zero_share(row: Mapping[str, Any]) -> float | None:
    """Logical pages stored with some but not all 4 KiB units zero, over the pages stored."""
    stored = [_get(row, f"compression.{k}") for k in ("chunks", "raw_pages", "zero_pages", "split_pages")]
    partial = _get(row, "compression.partial_zero_pages")
    if partial is None or any(v is None for v in stored) or not sum(v or 0.0 for v in stored):
        return None
    return partial / sum(v or 0.0 for v in stored)


def _conflict(row: Mapping[str, Any], which: tuple[str, ...]) -> float | None:
    keys = ("reads_no_conflict", "reads_conflict_normal", "reads_conflict_split")
    counts = [_get(row, f"compression.{k}") for k in keys]
    if any(c is None for c in counts) or not sum(c or 0.0 for c in counts):
        return None
    return sum(_get(row, f"compression.{k}") or 0.0 for k in which) / sum(c or 0.0 for c in counts)


#: Columns of the lossy study's rows shown as they are (seconds, ratios, MB/s, relative errors).
LOSSY_COLUMNS = (
    "ratio",
    "compress_s",
    "write_s",
    "store_s",
    "read_s",
    "decompress_s",
    "load_s",
    "store_error",
    "load_error",
    "write_mb_s",
    "read_mb_s",
)

METRICS: dict[str, Any] = {
    "throughput": throughput,
    "power": power,
    "device_power": lambda r: _get(r, "stack.energy.device_mean_w"),
    "missed_compression": missed_compression,
    "device_compress_share": device_compress_share,
    "waf": lambda r: _get(r, "waf"),
    "cpu": lambda r: _get(r, "stack.cpu.utilization"),
    "compute": lambda r: _get(r, "stack.cpu.compute_progress"),
    "buffer": lambda r: _get(r, "stack.cpu.buffer_bytes_mean"),
    "buffer_peak": lambda r: _get(r, "stack.cpu.buffer_bytes_peak"),
    "host_share": lambda r: _get(r, "stack.tasks.host_share"),
    "max_c": lambda r: _get(r, "stack.temperature.max_c"),
    "first_throttle_s": lambda r: _get(r, "stack.temperature.first_throttle_s"),
    "shutdown_s": lambda r: _get(r, "stack.temperature.shutdown_s"),
    "sc_count": lambda r: _get(r, "stack.fs.counters.cleaning_invocations"),
    "extra_rs_end": lambda r: _get(r, "stack.fs.extra_rs_fraction_end"),
    "before_throttle": lambda r: _get(r, "timeline.write_mb_s_before_throttle"),
    "power_rise": power_rise,
    # PR-SSD (plain SSD with compression in the controller)
    "read_rt": lambda r: _get(r, "read.latency_us.mean"),
    "read_p99": lambda r: _get(r, "read.latency_us.p99"),
    "map_hit_ratio": lambda r: _get(r, "map_cache.hit_ratio"),
    "write_rt": lambda r: _get(r, "write.latency_us.mean"),
    "overall_rt": overall_rt,
    "gc_time_s": gc_time_s,
    "write_count": lambda r: _get(r, "nand_programs"),
    "read_count": lambda r: _get(r, "nand_reads"),
    "partial_reads": lambda r: _get(r, "nand_partial_reads"),
    "decompress_share": decompress_share,
    "read_energy": read_energy,
    "conflict_share": lambda r: _conflict(r, ("reads_conflict_normal", "reads_conflict_split")),
    "conflict_split_share": lambda r: _conflict(r, ("reads_conflict_split",)),
    "mapping_table": lambda r: _get(r, "mapping_table_bytes"),
    "split_table_mib": lambda r: _scaled(_get(r, "split_table_bytes"), 2**-20),
    "split_pages": lambda r: _get(r, "compression.split_pages"),
    "lz4_saving": lambda r: _get(r, "content.saving"),
    "partial_zero_share": partial_zero_share,
    "erases": lambda r: _get(r, "gc_blocks_erased"),
    "migrations": lambda r: _get(r, "gc_pages_migrated"),
    "gc_rt": gc_rt,
    "gc_write_p99": lambda r: _get(r, "write.during_gc.latency_us.p99"),
    "count1_share": lambda r: dropped_share(r, 1, 1),
    "count2_share": lambda r: dropped_share(r, 2, 2),
    "count3plus_share": lambda r: dropped_share(r, 3),
    "dedup_ratio": lambda r: _get(r, "dedup.ratio"),
    # Lossy pipelines (seed 004): flat columns of the data-study rows.
    **{k: (lambda key: lambda r: _get(r, key))(k) for k in LOSSY_COLUMNS},
    "cost_ms_per_mb": lambda r: _scaled(_get(r, "cost_s_per_mb"), 1e3),
    # PR-SSD's data studies (Figs. 6a and 8)
    "data_saving": lambda r: _get(r, "data_saving"),
    "dominant_first": lambda r: _get(r, "dominant_first"),
    "dominant_second": lambda r: _get(r, "dominant_second"),
}

METRIC_LABELS = {
    "throughput": "throughput (MB/s)",
    "power": "mean power, device + host (W)",
    "device_power": "mean power of the device (W)",
    "waf": "WAF",
    "cpu": "host CPU utilisation",
    "compute": "co-running job progress",
    "buffer": "host compression buffer, mean (bytes)",
    "host_share": "host share of (de)compression",
    "before_throttle": "write throughput before the first throttle (MB/s)",
    "read_rt": "mean read response time (us)",
    "read_p99": "p99 read response time (us)",
    "map_hit_ratio": "map cache hit ratio (1 with the whole table in DRAM)",
    "write_rt": "mean write response time (us)",
    "erases": "blocks erased in GC",
    "migrations": "pages migrated in GC",
    "gc_rt": "mean response time during GC (us)",
    "gc_time_s": "GC's flash time per plane (s)",
    "count1_share": "share of dropped pages whose content had count 1",
    "overall_rt": "mean response time (us)",
    "write_count": "flash programs",
    "read_count": "flash reads",
    "read_energy": "read energy (J)",
    "partial_reads": "partial reads",
    "conflict_share": "host reads with a channel conflict",
    "conflict_split_share": "host reads with a split conflict",
    "partial_zero_share": "pages written with partial zeros",
    "data_saving": "saving per 16 KiB page",
    "dominant_first": "share of the most frequent pattern",
}


def metric(row: Mapping[str, Any], name: str) -> float | None:
    return METRICS[name](row)  # type: ignore[no-any-return]


def ok_rows(table: pd.DataFrame, figure: str, **labels: Any) -> list[dict[str, Any]]:
    """The completed runs of ``figure`` whose labels match (a tuple value matches any of it)."""
    if table.empty:
        return []
    out: list[dict[str, Any]] = []
    for rec in table[table["figure"] == figure].to_dict("records"):
        row = {str(k): v for k, v in rec.items()}
        if row.get("status") != "ok":
            continue
        if all(_label_matches(row.get(k), v) for k, v in labels.items()):
            out.append(row)
    return out


def _label_matches(got: Any, want: Any) -> bool:
    """A label value against a wanted one (a tuple matches any of it); a missing label (None,
    or NaN in a table column) matches ``None``."""
    if isinstance(got, float) and math.isnan(got):
        got = None
    return got in want if isinstance(want, tuple) else got == want


def replicate(row: Mapping[str, Any]) -> int:
    """The run's replicate (seed index, ``rep`` label); 0 for tables without one."""
    v = row.get("rep")
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return 0
    return int(v)


def pair_key(row: Mapping[str, Any], skip: str | None = None) -> tuple[Any, ...]:
    """The labels that pair a run with its reference run (``skip``: the label that tells them
    apart when it is one of :data:`PAIR_KEYS`, e.g. ``variant``)."""
    return tuple(
        None if (isinstance(row.get(k), float) and math.isnan(row[k])) else row.get(k) for k in PAIR_KEYS if k != skip
    )


__all__ = ["METRICS", "METRIC_LABELS", "metric", "ok_rows", "pair_key", "replicate", "throughput"]
