"""COCO's figures (the workshop slides, seed 001). COCO runs on Waltz's testbed: the same
CCSD, F2FS-like host and Filebench personalities (:mod:`..waltz.experiments`), on COCO's own
platform of six host cores."""

from __future__ import annotations

from flashpress.reproduce.experiments import Figure, RunSpec, _labels
from flashpress.reproduce.papers.waltz.experiments import (
    BEFORE_THROTTLE_S,
    COCO_CORES,
    COCO_NOTE,
    COCO_SCHEMES,
    CONTROLLED_NOTE,
    SC_FILL,
    SC_NOTE,
    WITH_23C,
    WITHOUT_23C,
    _filebench_runs,
    _run,
    _sc,
    fig3,
    filebench_workload,
    fio_workload,
    fixed_ratio,
    scheme_overrides,
    zipf_ratio,
)
from flashpress.reproduce.scale import Scale


def _coco_runs(scale: Scale) -> tuple[RunSpec, ...]:
    return _filebench_runs(scale, COCO_SCHEMES, extra={"stack.cpu.cores": COCO_CORES})


#: The workload of COCO's OP-size study (the slides do not name it): Filebench fileserver, the
#: random-write-heavy personality of COCO's table, on a partition filled to trigger cleaning.
OP_STUDY_PERSONALITY = "fileserver"


def coco_op_size(scale: Scale) -> Figure:
    """COCO's "Performance with OP size ratio" slide: F2FS on the CSD (no host compression) with
    the over-provisioned (reserved) space swept, on COCO's platform."""
    runs = tuple(
        _run(
            f"op{rs:.2f}",
            _labels(scheme="Baseline", personality=OP_STUDY_PERSONALITY, rs=rs, fill=SC_FILL, sc=True),
            scale,
            scheme_overrides("Baseline", scale),
            zipf_ratio(OP_STUDY_PERSONALITY),
            _sc(True),
            {"stack.fs.rs_ratio": rs, "stack.cpu.cores": COCO_CORES},
            {"workload": filebench_workload(OP_STUDY_PERSONALITY, scale)},
        )
        for rs in scale.rs_values
    )
    return Figure(
        "op-size",
        "coco",
        "Throughput and WAF of F2FS on the CSD against the OP (reserved space) size",
        "rs_sweep",
        runs,
        notes=(
            f"The slides name no workload for this study: Filebench {OP_STUDY_PERSONALITY} on a partition "
            f"filled to {SC_FILL:.0%}; OP is F2FS's reserved space `stack.fs.rs_ratio`.",
            SC_NOTE,
        ),
    )


def coco_figures(scale: Scale) -> list[Figure]:
    runs = _coco_runs(scale)
    return [
        Figure(
            "throughput",
            "coco",
            "Normalised throughput of COCO's schemes",
            "normalised_bars",
            runs,
            notes=(CONTROLLED_NOTE, COCO_NOTE, SC_NOTE),
        ),
        Figure(
            "power",
            "coco",
            "Mean power (device + host CPU)",
            "power_bars",
            runs,
            notes=(CONTROLLED_NOTE, COCO_NOTE, SC_NOTE),
        ),
        Figure("waf", "coco", "WAF of COCO's schemes", "waf_bars", runs, notes=(CONTROLLED_NOTE, COCO_NOTE, SC_NOTE)),
        coco_op_size(scale),
        coco_motivation(scale),
        coco_gc(scale),
    ]


#: The runs of COCO's "GC for F2FS" slide.
F2FS_NO_GC = "F2FS, empty"
F2FS_GC = "F2FS with GC"
F2FS_COMPRESSION = "F2FS with compression, empty"


def coco_gc(scale: Scale) -> Figure:
    """COCO's "GC for F2FS" slide: F2FS on the CSD with and without segment cleaning, and F2FS
    with its own compression, under 4 KiB random writes before the CSD throttles (the slides
    name no workload; a motivation slide like the power one, so a cold start)."""
    workload = {"workload": fio_workload("rand-write", scale, paper_s=BEFORE_THROTTLE_S)}
    runs = tuple(
        _run(
            f"gc/{key}",
            _labels(scheme=scheme, pattern="rand-write", variant=variant, ratio=2),
            scale,
            scheme_overrides(scheme, scale),
            fixed_ratio(2.0),
            _sc(sc),
            {"stack.cpu.cores": COCO_CORES},
            workload,
        )
        for key, scheme, sc, variant in (
            ("f2fs", "Baseline", False, F2FS_NO_GC),
            ("f2fs-gc", "Baseline", True, F2FS_GC),
            ("f2fsc", "F2FSC", False, F2FS_COMPRESSION),
        )
    )
    return Figure(
        "gc",
        "coco",
        "Throughput of F2FS on the CSD with and without segment cleaning, and with F2FS compression",
        "variant_bars",
        runs,
        notes=(
            "4 KiB random writes for 120 paper seconds from a cold start (before the CSD throttles); "
            f"with GC the partition is filled to {SC_FILL:.0%}. The slides name no workload.",
            SC_NOTE,
        ),
    )


def coco_motivation(scale: Scale) -> Figure:
    """COCO's "Power Consumption for CSD" slide: 128 KB sequential writes on the CSD with and
    without compression, from a cold start. It is the experiment of Waltz Fig 3 (same device,
    same runs: the 23 °C room)."""
    runs = tuple(r for r in fig3(scale).runs if r.labels.get("variant") in (WITH_23C, WITHOUT_23C))
    return Figure(
        "motivation",
        "coco",
        "Temperature and write throughput of the CSD with and without compression (128 KiB sequential write)",
        "thermal_timeline",
        runs,
        notes=("The runs of Waltz Fig 3 at 23 °C (the slides name no ambient temperature or ratio).",),
    )
