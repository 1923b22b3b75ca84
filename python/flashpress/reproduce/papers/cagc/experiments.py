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
#: Victim policies of Fig. 13 (flashpress names).
VICTIMS = ("random", "greedy", "cost_benefit")
#: Requests in flight (our choice: the seed replays traces with their timing).
QUEUE_DEPTH = 8
WORKLOAD_NOTE = (
    "Homes, Web-vm and Mail are traces generated from Table II's write share, duplicate share and mean request "
    "size (flashpress.tracegen.dedup_trace: a file population that creates, overwrites, reads and deletes files, "
    "filling 85% of the logical space first; shared files take their blocks from a Zipf-popular pool of contents, "
    "unique ones fresh content; files to delete are picked uniformly; all our choices), replayed "
    "as fast as a closed loop of 8 allows; the seed replays the FIU traces themselves. `linux` is real data: "
    "consecutive Debian releases of linux-source-6.1 (testdata/cagc.toml) written one after another, each "
    "deleting the one before."
)


def _device(scale: Scale) -> dict[str, Any]:
    # The traces fill the logical space themselves: no precondition.
    return {"nand.blocks_per_plane": scale.cagc_blocks_per_plane, "precondition.fill_fraction": 0.0}


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
    return trace_dir() / f"{name}-{cap}-{scale.cagc_requests}-s{seed}-{_generator_version()}.csv"


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
                name, path, capacity_bytes=_logical_bytes(scale), requests=scale.cagc_requests, seed=seed
            )


#: The ``no-gc`` variant of Fig. 2: 16 times the flash with the same logical space, so the
#: traces (which write at most about 6 times the logical space at the default scale) run
#: without GC and only the write path differs. The report shows each run's erases.
NO_GC_FLASH = 16


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
    """One run; ``variant`` is a victim policy (Fig. 13) or ``no-gc`` (Fig. 2)."""
    # The linux trace is one (real data): its repeats differ in the device's seed only.
    path = trace_path(name, scale, 1 if name == LINUX else seed)
    overrides: dict[str, Any] = {
        "scheme": f"cagc/{scheme}",
        "seed": seed,
        **_device(scale),
        "workload": tracegen.workload(path, QUEUE_DEPTH),
    }
    if variant == "no-gc":
        overrides.update(no_gc_device(scale))
    elif variant is not None:
        overrides["ftl.gc.victim"] = variant
    labels = _labels(scheme=scheme, workload=name, variant=variant, rep=seed - 1)
    run_id = f"{scheme}/{name}" + (f"/{variant}" if variant else "") + f"/seed{seed}"
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
        _fig("fig10", "Pages migrated in GC", "migration_bars", main),
        _fig(
            "fig11",
            "Mean response time of the requests that overlap GC, normalised to Baseline",
            "gc_rt_bars",
            main,
            "A request overlaps GC when it waited while GC ran on its plane (summary `during_gc`).",
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
    ]


__all__ = [
    "LINUX",
    "NO_GC_FLASH",
    "PRESET",
    "SCHEMES",
    "VICTIMS",
    "WORKLOADS",
    "cagc_figures",
    "no_gc_device",
    "prepare",
    "trace_path",
]
