"""COCO's figures (the workshop slides, seed 001). COCO runs on Waltz's testbed: the same
CCSD, F2FS-like host and Filebench personalities (:mod:`..waltz.experiments`), on COCO's own
platform of six host cores, under COCO's own protocol and with COCO's CSD (below)."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any, cast

from flashpress.reproduce.experiments import Figure, RunSpec, _labels
from flashpress.reproduce.papers.waltz.experiments import (
    BEFORE_THROTTLE_S,
    COCO_CORES,
    COCO_NOTE,
    COCO_SCHEMES,
    PRESET,
    SC_FILL,
    SC_NOTE,
    WITH_23C,
    WITHOUT_23C,
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
from flashpress.thermal_fit import Leak, r_with_leak

#: COCO's CSD leaks this much: 0.5 W at 25 °C, an e-fold every 20 °C (the preset's reference
#: and slope: doubling every 14 °C). Small beside the 15.7 W of the device writing without
#: compression: 0.45 W at 23 °C, 2.9 W at 60 °C, 6.4 W at 76 °C. It is there because the power
#: slide says the CSD's power rises with its temperature; the slides give no number, so it is
#: not fitted to one.
COCO_LEAK = Leak(w=0.5, ref_c=25.0, scale_c=20.0)
#: How long a COCO run lasts (paper seconds): the slides state no duration; the Filebench
#: personalities of their workload table each end with `run 60` (configs/filebench/).
COCO_RUN_S = 60.0
COCO_PROTOCOL_NOTE = (
    f"COCO's protocol: the CSD starts cold (at the 23 °C room), each Filebench personality runs its own "
    f"{COCO_RUN_S:g} s (`run 60` in its .f file; the slides state no duration) and the whole run is measured. "
    "Waltz's runs instead start at 77 °C with the temperature control triggered."
)
COCO_DEVICE_NOTE = (
    f"COCO's CSD is Waltz's with a small leakage ({COCO_LEAK.w:g} W at {COCO_LEAK.ref_c:g} °C, an e-fold per "
    f"{COCO_LEAK.scale_c:g} °C), its thermal resistance refitted so the 60 °C plateau without compression holds "
    "(`flashpress.thermal_fit.r_with_leak`), and a throttled engine drawing power in proportion to its speed "
    "(`stack.ccsd.throttle_power = throttle_speed`, the physical value): Waltz's preset keeps the throttled engine at "
    "full power, a margin fitted to Waltz §3.1's climb to the emergency through the throttle, which the COCO "
    "slides do not state."
)


@cache
def coco_device() -> dict[str, Any]:
    """The ``[stack.ccsd]`` keys that make Waltz's CCSD COCO's (see ``COCO_DEVICE_NOTE``)."""
    from flashpress import Config

    ccsd = cast("dict[str, Any]", Config.from_dict({"preset": PRESET}).to_dict())["stack"]["ccsd"]
    th = ccsd["thermal"]
    # r_with_leak refits a device fitted without leakage
    assert th["leak_w"] == 0.0, f"the {PRESET} preset already leaks ({th['leak_w']} W)"
    return {
        "stack.ccsd.thermal.leak_w": COCO_LEAK.w,
        "stack.ccsd.thermal.leak_ref_c": COCO_LEAK.ref_c,
        "stack.ccsd.thermal.leak_scale_c": COCO_LEAK.scale_c,
        "stack.ccsd.thermal.r_c_per_w": r_with_leak(float(th["r_c_per_w"]), COCO_LEAK),
        "stack.ccsd.throttle_power": float(ccsd["throttle_speed"]),
    }


def coco_filebench_run(scheme: str, personality: str, scale: Scale) -> RunSpec:
    """A scheme on a personality under COCO's protocol (``COCO_PROTOCOL_NOTE``), with SC."""
    return _run(
        f"{scheme}/{personality}",
        _labels(scheme=scheme, personality=personality, sc=True),
        scale,
        scheme_overrides(scheme, scale),
        zipf_ratio(personality),
        _sc(True),
        {"workload": filebench_workload(personality, scale, paper_s=COCO_RUN_S)},
        {"stack.cpu.cores": COCO_CORES},
        coco_device(),
    )


def _coco_runs(scale: Scale) -> tuple[RunSpec, ...]:
    return tuple(coco_filebench_run(s, p, scale) for p in scale.personalities for s in COCO_SCHEMES)


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
            {"workload": filebench_workload(OP_STUDY_PERSONALITY, scale, paper_s=COCO_RUN_S)},
            coco_device(),
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
            COCO_PROTOCOL_NOTE,
            COCO_DEVICE_NOTE,
            SC_NOTE,
        ),
    )


def coco_figures(scale: Scale) -> list[Figure]:
    runs = _coco_runs(scale)
    notes = (COCO_PROTOCOL_NOTE, COCO_DEVICE_NOTE, COCO_NOTE, SC_NOTE)
    return [
        Figure(
            "throughput",
            "coco",
            "Normalised throughput of COCO's schemes",
            "normalised_bars",
            runs,
            notes=notes,
        ),
        Figure("power", "coco", "Mean power of the CSD (the device)", "device_power_bars", runs, notes=notes),
        Figure("waf", "coco", "WAF of COCO's schemes", "waf_bars", runs, notes=notes),
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
            coco_device(),
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
            COCO_DEVICE_NOTE,
            SC_NOTE,
        ),
    )


def coco_motivation(scale: Scale) -> Figure:
    """COCO's "Power Consumption for CSD" slide: 128 KB sequential writes on the CSD with and
    without compression, from a cold start: the experiment of Waltz Fig 3 in the 23 °C room, on
    COCO's CSD."""
    runs = tuple(
        replace(r, overrides={**r.overrides, **coco_device()})
        for r in fig3(scale).runs
        if r.labels.get("variant") in (WITH_23C, WITHOUT_23C)
    )
    return Figure(
        "motivation",
        "coco",
        "Temperature and write throughput of the CSD with and without compression (128 KiB sequential write)",
        "thermal_timeline",
        runs,
        notes=(
            "The runs of Waltz Fig 3 at 23 °C (the slides name no ambient temperature or ratio), on COCO's CSD.",
            COCO_DEVICE_NOTE,
        ),
    )
