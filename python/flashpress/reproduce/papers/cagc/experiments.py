"""CAGC's evaluation (seed 003, section IV) as data: the Table I device (the ``cagc`` preset,
scaled) under the schemes Baseline, Inline-Dedupe and CAGC (``configs/schemes/cagc.toml``).

The seed replays three FIU traces (Homes, Web-vm, Mail) with one fingerprint per block; we do
not have them. Each workload here is a trace that :func:`flashpress.tracegen.dedup_trace` writes
from Table II's write share, duplicate share and mean request size, on a file population whose
behaviour is our choice (:class:`flashpress.tracegen.Population`); and one workload of real
duplicate data, ``linux``: consecutive Debian releases of linux-source-6.1 written one after
another, each deleting the one before (``make testdata``, ``testdata/cagc.toml``). The traces
are generated before the runs (``prepare``) into ``$FLASHPRESS_TESTDATA/cagc/traces``, named by
what they depend on, so a later run reuses them.
"""

from __future__ import annotations

import hashlib
import inspect
import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from flashpress import tracegen
from flashpress.config import Config
from flashpress.reproduce import testdata
from flashpress.reproduce.experiments import Figure, RunSpec, _labels
from flashpress.reproduce.scale import Scale

PRESET = "cagc"
#: The seed's schemes (Baseline, Inline-Dedupe, CAGC).
SCHEMES = ("Baseline", "Inline", "CAGC")
#: Table II's traces, in the seed's order of Figs. 9-11.
WORKLOADS = ("homes", "web-vm", "mail")
#: The real-data workload.
LINUX = "linux"
#: CAGC with a hash that costs nothing (ours): what CAGC's response time would be if dedup in GC
#: added no work, to check section III-B's "does not cause significant performance overhead".
FREE_HASH = "CAGC-free-hash"
#: CAGC without its reference-count regions (``configs/schemes/cagc.toml``; ours): what the
#: placement adds to dedup in GC (section IV-B's second reason).
NO_REGIONS = "GcDedup"
#: Victim policies of Fig. 13 (flashpress names).
VICTIMS = ("random", "greedy", "cost_benefit")
#: DRAM budgets of the fingerprint-index study (ours, not the seed's): shares of the whole index
#: held in controller DRAM (``ftl.dedup.index_cache``), as the runs' ``variant`` labels.
INDEX_BUDGETS = {"index-100%": 1.0, "index-25%": 0.25, "index-5%": 0.05}
#: Bytes of one fingerprint-index entry and the dedup map's nodes per logical page, as the core
#: sizes the index on flash (``ftl::fpindex``: 12-byte entries, one per node; nodes
#: ``logical + logical / 8 + 64``): the budgets are shares of that size.
INDEX_ENTRY_BYTES = 12
#: Requests in flight of the closed-loop replay of ``linux`` (its trace has no times).
QUEUE_DEPTH = 8
#: Mean inter-arrival time of the generated traces (a Poisson process; our choice). The seed
#: replays the FIU traces with their own times: three weeks of a file, web and mail server,
#: mostly idle. We have neither the traces nor their times; 500 us leaves the device idle most
#: of the time (the Baseline's closed loop served a request every 69-183 us on these traces)
#: while 1 M requests take about 500 s of simulated time: a time-scaled replay with idle gaps.
MEAN_GAP_US = 500.0
#: Idle-time GC (section III-B: "flash-based SSDs utilize the system idle periods to conduct GC
#: in the background"): a plane that goes idle cleans while fewer than this share of its blocks
#: are free (our choice: half the 7% over-provisioning; foreground GC starts at 1.4%).
BACKGROUND_THRESHOLD = 0.035
WORKLOAD_NOTE = (
    "Homes, Web-vm and Mail are traces generated from Table II's write share, duplicate share and mean request "
    "size (flashpress.tracegen.dedup_trace: a file population that creates, overwrites, reads and deletes files, "
    "filling 85% of the logical space first; shared files take their blocks from a Zipf-popular pool of contents, "
    "unique ones fresh content; files to delete are picked uniformly; all our choices), whose requests arrive as "
    f"a Poisson process with a mean gap of {MEAN_GAP_US:g} us (our choice) and are replayed at those times, "
    "with GC in idle time as well as on demand (a plane that goes idle cleans while fewer than "
    f"{BACKGROUND_THRESHOLD:.1%} of its blocks are free); the seed replays the FIU traces with their own times. "
    "`linux` is real data: consecutive Debian releases of linux-source-6.1 (testdata/cagc.toml) written one "
    "after another, each deleting the one before, replayed as fast as a closed loop of 8 allows (its trace has "
    "no times)."
)


def _device(scale: Scale) -> dict[str, Any]:
    # The traces fill the logical space themselves: no precondition.
    return {"nand.blocks_per_plane": scale.cagc_blocks_per_plane, "precondition.fill_fraction": 0.0}


def _idle_gc() -> dict[str, Any]:
    return {"ftl.gc.background": True, "ftl.gc.background_threshold": BACKGROUND_THRESHOLD}


def _logical_bytes(scale: Scale) -> int:
    return Config.from_dict({"scheme": f"cagc/{SCHEMES[0]}", **_nested(_device(scale))}).logical_bytes()


def _nested(flat: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in flat.items():
        node = out
        *head, last = k.split(".")
        for h in head:
            node = node.setdefault(h, {})
        node[last] = v
    return out


def _generator_version() -> str:
    """A hash of the trace generator's source: a changed generator makes new trace files."""
    return hashlib.sha256(inspect.getsource(tracegen).encode()).hexdigest()[:10]


def trace_dir() -> Path:
    return testdata.root() / "cagc" / "traces"


def _releases_version(scale: Scale) -> str:
    """A hash of the SHA-256s of the release images used (``images.json``), so that pinning
    other releases makes a new trace; ``none`` when the data is not there (the run then fails
    naming `make testdata`)."""
    try:
        doc = testdata.images("cagc")
    except OSError:
        return "none"
    shas = [str(doc.get(f"release{i}", {}).get("sha256")) for i in range(1, scale.cagc_releases + 1)]
    return hashlib.sha256(",".join(shas).encode()).hexdigest()[:10]


def trace_path(name: str, scale: Scale, seed: int) -> Path:
    if name == LINUX:
        return trace_dir() / f"linux-{scale.cagc_releases}-{_releases_version(scale)}-{_generator_version()}.csv"
    cap = _logical_bytes(scale)
    return trace_dir() / f"{name}-{cap}-{scale.cagc_requests}-g{MEAN_GAP_US:g}-s{seed}-{_generator_version()}.csv"


def release_images(scale: Scale) -> list[Path]:
    return [testdata.image("cagc", f"release{i}") for i in range(1, scale.cagc_releases + 1)]


def prepare(scale: Scale, runs: Sequence[RunSpec]) -> None:
    """Write every trace ``runs`` read that is not there yet."""
    trace_dir().mkdir(parents=True, exist_ok=True)
    wanted = {
        (str(r.labels["workload"]), 1 if r.labels["workload"] == LINUX else int(r.overrides["seed"])) for r in runs
    }
    for name, seed in sorted(wanted):
        path = trace_path(name, scale, seed)
        if path.exists():
            continue
        if name == LINUX:
            tracegen.releases_trace(release_images(scale), path)
        else:
            tracegen.dedup_trace(
                name,
                path,
                capacity_bytes=_logical_bytes(scale),
                requests=scale.cagc_requests,
                seed=seed,
                mean_gap_us=MEAN_GAP_US,
            )


#: The ``no-gc`` variant of Fig. 2: 16 times the flash with the same logical space, so the
#: traces (which write at most about 6 times the logical space at the default scale) run
#: without GC and only the write path differs. The report shows each run's erases.
NO_GC_FLASH = 16


def index_bytes(scale: Scale) -> int:
    """Bytes of the whole fingerprint index of the scaled device: its bucket pages."""
    page = int(Config.from_dict({"scheme": f"cagc/{SCHEMES[0]}"}).get("nand")["page_size"])
    logical = _logical_bytes(scale) // page
    nodes = logical + logical // 8 + 64
    return -(-nodes // (page // INDEX_ENTRY_BYTES)) * page


def index_budget(scale: Scale, share: float) -> int:
    """A DRAM budget of ``share`` of the whole index, in whole bucket pages (at least one)."""
    page = int(Config.from_dict({"scheme": f"cagc/{SCHEMES[0]}"}).get("nand")["page_size"])
    return max(1, int(index_bytes(scale) * share) // page) * page


def no_gc_device(scale: Scale) -> dict[str, Any]:
    """The ``no-gc`` device's overrides: ``NO_GC_FLASH`` times the blocks, and the OP that
    leaves at least the standard device's logical space (rounded down to 1e-6)."""
    blocks = NO_GC_FLASH * scale.cagc_blocks_per_plane
    logical = _logical_bytes(scale)
    n = Config.from_dict({"scheme": f"cagc/{SCHEMES[0]}"}).get("nand")
    physical = blocks * n["pages_per_block"] * n["page_size"]
    for k in ("channels", "chips_per_channel", "dies_per_chip", "planes_per_die"):
        physical *= n[k]
    op = math.floor((1.0 - logical / physical) * 1e6) / 1e6
    return {"nand.blocks_per_plane": blocks, "ftl.op_ratio": op}


def run(scheme: str, name: str, scale: Scale, seed: int, variant: str | None = None) -> RunSpec:
    """One run; ``variant`` is a victim policy (Fig. 13), ``no-gc`` (Fig. 2) or a fingerprint-index
    budget (``INDEX_BUDGETS``)."""
    # The linux trace is one (real data): its repeats differ in the device's seed only.
    path = trace_path(name, scale, 1 if name == LINUX else seed)
    label = scheme
    if scheme == FREE_HASH:
        scheme = "CAGC"
    replay = tracegen.workload(path, QUEUE_DEPTH) if name == LINUX else tracegen.timed_workload(path)
    overrides: dict[str, Any] = {
        "scheme": f"cagc/{scheme}",
        "seed": seed,
        **_device(scale),
        **_idle_gc(),
        "workload": replay,
    }
    if label == FREE_HASH:
        overrides["ftl.dedup.hash_us"] = 0.0
    if variant == "no-gc":
        overrides.update(no_gc_device(scale))
    elif variant in INDEX_BUDGETS:
        overrides["ftl.dedup.index_cache"] = {
            "type": "demand",
            "dram_bytes": index_budget(scale, INDEX_BUDGETS[variant]),
            "policy": "lru",
        }
    elif variant is not None:
        overrides["ftl.gc.victim"] = variant
    labels = _labels(scheme=label, workload=name, variant=variant, rep=seed - 1)
    run_id = f"{label}/{name}" + (f"/{variant}" if variant else "") + f"/seed{seed}"
    return RunSpec(run_id, labels, overrides)


def _runs(
    scale: Scale, schemes: tuple[str, ...], workloads: tuple[str, ...], variant: str | None = None
) -> tuple[RunSpec, ...]:
    return tuple(
        run(s, w, scale, k, variant)
        for w in workloads
        if w in scale.cagc_workloads
        for s in schemes
        for k in range(1, scale.seeds + 1)
    )


def _fig(key: str, title: str, kind: str, runs: tuple[RunSpec, ...], *notes: str) -> Figure:
    return Figure(key, "cagc", title, kind, runs, (WORKLOAD_NOTE, *notes), prepare=prepare, seeded=True)


def cagc_figures(scale: Scale) -> list[Figure]:
    every = (*WORKLOADS, LINUX)
    main = _runs(scale, SCHEMES, every)
    return [
        _fig(
            "fig2",
            "Inline-Dedupe against Baseline: mean response time of all requests, normalised to Baseline",
            "overall_rt_bars",
            (*_runs(scale, ("Baseline", "Inline"), every), *_runs(scale, ("Baseline", "Inline"), every, "no-gc")),
            "Two devices: the scaled Table I device, on which the traces keep GC busy, and `no-gc`, 16 times the "
            "flash for the same logical space, on which they run without GC (see the erases column), so only the "
            "write path differs: the hash on it, and the programs a duplicate saves.",
        ),
        _fig(
            "fig6",
            "Logical pages dropped (overwritten or trimmed) by the reference count their content had (Inline-Dedupe: "
            "exact counts)",
            "count_bars",
            _runs(scale, ("Inline",), every),
            "The seed analyses its traces; we count in the Inline-Dedupe runs, where every count is exact (CAGC "
            "knows a duplicate only once GC has met it).",
        ),
        _fig("fig9", "Blocks erased in GC", "erase_bars", main),
        _fig(
            "fig10",
            "Pages migrated in GC",
            "migration_bars",
            (*main, *_runs(scale, (NO_REGIONS,), WORKLOADS)),
            f"{NO_REGIONS} (ours) is CAGC without its reference-count regions: dedup in GC alone.",
        ),
        _fig(
            "fig11",
            "Mean response time of the requests that overlap GC, normalised to Baseline",
            "gc_rt_bars",
            (*main, *_runs(scale, (FREE_HASH,), WORKLOADS)),
            "A request overlaps GC when it waited while GC ran on its plane (summary `during_gc`). "
            f"{FREE_HASH} (ours) is CAGC with a hash that takes no time.",
        ),
        _fig(
            "fig12",
            "CDF of the response times of the requests that overlap GC",
            "gc_cdf",
            tuple(replace(r, cdf=True) for r in _runs(scale, ("Baseline", "CAGC"), every)),
        ),
        _fig(
            "fig13",
            "Victim policies: erases, migrations and mean response time, CAGC against Baseline",
            "victim_bars",
            tuple(
                r
                for v in scale.cagc_victims
                for r in _runs(scale, ("Baseline", "CAGC"), scale.cagc_victim_workloads, v)
            ),
        ),
        _fig(
            "index-budget",
            "Ours, not the seed's: CAGC with 100%, 25% and 5% of its fingerprint index in DRAM",
            "index_budget_bars",
            tuple(r for v in INDEX_BUDGETS for r in _runs(scale, ("CAGC",), scale.cagc_victim_workloads, v)),
            "The seed keeps its fingerprint index in DRAM. Here the index is a hash table of bucket pages on flash "
            "(12-byte entries, one per node of the dedup map: at this scale "
            f"{index_bytes(scale) / 2**20:.1f} MiB) of which DRAM caches a share, LRU (`ftl.dedup.index_cache`, "
            "docs/map-cache.md). A lookup GC makes whose bucket is not cached reads it from flash inside the GC job, "
            "before the page's dedup decision; changed buckets are written back. 100% is the whole index in DRAM "
            "(the same as CAGC's other runs). No claim is scored: the figure measures what the budget costs.",
        ),
    ]


__all__ = [
    "FREE_HASH",
    "INDEX_BUDGETS",
    "LINUX",
    "NO_REGIONS",
    "NO_GC_FLASH",
    "PRESET",
    "SCHEMES",
    "VICTIMS",
    "WORKLOADS",
    "cagc_figures",
    "index_budget",
    "index_bytes",
    "no_gc_device",
    "prepare",
    "trace_path",
]
