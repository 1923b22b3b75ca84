"""Waltz's figures as data, and the storage-stack testbed COCO shares: each figure a list of
runs, each run a label set and the config overrides (dotted keys, merged over the ``waltz``
preset) that make it. Run labels follow the papers (``Baseline``, ``F2FSC``, ``FPC``, ``TCS``, ``Waltz_s``,
``Waltz_p``; ``FACS`` and ``COCO``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flashpress.reproduce.experiments import Figure, PresetValue, RunSpec, _labels
from flashpress.reproduce.scale import Scale
from flashpress.thermal_fit import RACK_NEIGHBOUR_C

#: The preset every run is merged over (the seed's testbed, scaled to this machine).
PRESET = "waltz"
#: Length of a run in the paper (Waltz §6.1: "All tests are run for 20 minutes").
RUN_S = 1200.0
#: Fig 4/5/9/11 are measured "before throttling": short runs that end before the CCSD heats
#: up to its throttling temperature (paper seconds; the thermal time constant is 300 s).
BEFORE_THROTTLE_S = 120.0
#: Figs 13-19 and COCO are measured "with the temperature control triggered" (Waltz §6.1): the
#: CCSD starts at this temperature, above the throttling point and T_soft (76 °C), so every
#: scheme runs under its temperature control from the start (see ``CONTROLLED_NOTE``).
CONTROLLED_START_C = 77.0
#: Warm-up left out of the measurement (paper seconds, ``stats.warmup_ms``): the S.M.A.R.T.
#: polls, the space policy and the file system settle.
CONTROLLED_WARMUP_S = 30.0
#: The measured window (paper seconds): it ends before Baseline's thermal shutdown, which comes
#: about 470 s after a start at 77 °C under the fitted thermal model.
CONTROLLED_MEASURE_S = 300.0
CONTROLLED_NOTE = (
    f"Measured with the temperature control triggered (Waltz §6.1): the CCSD starts at "
    f"{CONTROLLED_START_C:g} °C, so Baseline and FPC throttle and TCS/Waltz offload from the start, "
    f"and the summary covers {CONTROLLED_MEASURE_S:g} s after a {CONTROLLED_WARMUP_S:g} s warm-up "
    "(paper seconds; `stats.warmup_ms`). A cold start would spend about 580 s before any control "
    "engages, at different times for different schemes; a 20-minute window from 77 °C would fold "
    "Baseline's shutdown and failed requests into its average. Temperature events keep their "
    "times from the start of the run."
)
#: Fill fraction of the partition "with SC" (§6.3.2: "we fill in the F2FS to trigger the SC").
SC_FILL = 0.9
#: F2FS's logging mode in the runs "with SC". The seed's with-SC figures are measured with
#: segment cleaning triggered (§6.3.2: "we fill in the F2FS to trigger the SC"; §5, Fig 9: "we
#: fill the partition of F2FS to trigger the SC"). Under F2FS's default adaptive logging our
#: filled partitions never clean: thread logging (SSR) absorbs random overwrites and
#: sequential overwrites free whole segments (0 cleanings in every Fig 9, 11 and 15 run at the
#: default scale). Mounting with ``mode=lfs``, as one forces cleaning on a real F2FS, makes
#: every overwrite go through the log and cleaning.
SC_MODE = "lfs"
SC_NOTE = (
    "With SC, F2FS runs with mode = lfs (`stack.fs.mode`), so that segment cleaning is triggered as "
    "the seed's with-SC measurements are: under F2FS's default adaptive logging our filled "
    "partitions absorb every overwrite by thread logging and never clean (0 cleanings in every "
    "Fig 9, 11 and 15 run at the default scale)."
)
#: Share of the partition the FIO jobs' files span together. Half the partition: with SC the
#: fill brings the partition to ``SC_FILL`` and the jobs overwrite a large part of the filled
#: data, so cleaning finds partly valid segments (a small working set would free whole
#: segments and never clean).
WORKING_SET = 0.5
#: Partitions are cut to whole 2 MiB segments (512 blocks of 4 KiB).
SEGMENT_BYTES = 512 * 4096
#: FIO threads and queue depth (§3.1: "we set the number of threads to 8").
THREADS = 8
#: Threads of the co-running CPU-bound job of Fig 19 (sysbench prime search; the seed gives no
#: thread count: one per host core here, so any core the I/O stack takes slows the job).
COMPUTE_THREADS = 16
#: Host cores of COCO's platform (its setup slide: "R7-5950x ... with 6 cores").
COCO_CORES = 6
#: The Filebench workload of Fig 19 (the seed does not name the I/O-intensive workload).
FIG19_PERSONALITY = "fileserver"

#: FIO patterns: (rw, bs) per §3.2.1 (128 KiB sequential, 4 KiB random).
FIO_PATTERNS: dict[str, tuple[str, str]] = {
    "seq-write": ("write", "128k"),
    "seq-read": ("read", "128k"),
    "rand-write": ("randwrite", "4k"),
    "rand-read": ("randread", "4k"),
}
#: Compression ratio range per Filebench personality (COCO's workload table; Waltz Table 3
#: gives the same for Fileserver and OLTP), drawn from a Zipf distribution (Waltz §6.1).
PERSONALITY_RATIOS: dict[str, tuple[float, float]] = {
    "webserver": (1.0, 2.0),
    "varmail": (2.0, 3.0),
    "fileserver": (2.0, 3.0),
    "oltp": (3.0, 4.0),
}
#: Access pattern of each personality (COCO's workload table), for the seq/random split of
#: Fig 18.
PERSONALITY_ACCESS = {"webserver": "sequential", "varmail": "sequential", "fileserver": "random", "oltp": "random"}
#: F2FS codec labels of Fig 4/5.
CODEC_LABELS = {"zstd-3": "ZSTD", "lz4": "LZ4", "lzo": "LZO"}
LZO_NOTE = (
    "LZO is the LZO1X format from lzokay-native (MIT, a Rust port of lzokay; liblzo2 is GPL and "
    "not linked). Its compressor searches like LZO1X-999: slower (here slower than deflate-6) and denser "
    "than liblzo2's LZO1X-1, which F2FS uses, so F2FS+LZO's host CPU time here is an upper bound."
)
NO_COMPRESSION = "W/o Compr."

WALTZ_SCHEMES = ("Baseline", "F2FSC", "FPC", "TCS", "Waltz_s", "Waltz_p")
#: The COCO seed's four schemes (its claims compare these).
COCO_SEED_SCHEMES = ("Baseline", "F2FSC", "FACS", "COCO")
#: COCO's slides leave open what happens to data not sent to the CSD: FACS and COCO store it
#: uncompressed (COCO has no software compression, Waltz Table 1); "+F2FS" lets F2FS compress
#: it on the host (``stack.coco.rest = "host"``). Both readings are run and reported.
COCO_SCHEMES = (*COCO_SEED_SCHEMES, "FACS+F2FS", "COCO+F2FS")
COCO_NOTE = (
    "FACS and COCO tag data by F2FS's own temperature classification (`stack.coco.tags`: "
    "mkfs.f2fs's extension lists make `db` files hot and media cold, the rest is warm and counts "
    "as cold) and leave the data they do not send to the CSD uncompressed; FACS+F2FS and "
    "COCO+F2FS are the other reading of the slides, in which F2FS compresses that data on the host "
    '(`stack.coco.rest = "host"`).'
)


# -- building blocks ----------------------------------------------------------------------


def common_overrides(scale: Scale) -> dict[str, Any]:
    """Scale-dependent keys every run shares: space (partition and device) and time (the
    thermal time constant, the S.M.A.R.T. polling period, F2FS's checkpoint and background
    cleaning periods, the sampling interval)."""
    ts = scale.time_scale
    return {
        "preset": PRESET,
        "stack.fs.partition_bytes": PresetValue("stack.fs.partition_bytes", scale.space_scale, align=SEGMENT_BYTES),
        "nand.blocks_per_plane": PresetValue("nand.blocks_per_plane", scale.space_scale, minimum=64),
        "stack.ccsd.thermal.tau_s": PresetValue("stack.ccsd.thermal.tau_s", ts),
        "stack.tcs.smart_interval_ms": PresetValue("stack.tcs.smart_interval_ms", ts),
        "stack.ccsd.io_timeout_ms": PresetValue("stack.ccsd.io_timeout_ms", ts),
        # F2FS's own periods: checkpoints and the background cleaner's sleeps and idle test.
        "stack.fs.meta.cp_interval_ms": PresetValue("stack.fs.meta.cp_interval_ms", ts),
        **{
            f"stack.fs.bggc.{k}": PresetValue(f"stack.fs.bggc.{k}", ts)
            for k in ("min_sleep_ms", "max_sleep_ms", "no_gc_sleep_ms", "idle_ms")
        },
        # The seed samples the temperature every two seconds (§3.1).
        "stats.interval_ms": 2000.0 * ts,
    }


def _ms(scale: Scale, paper_s: float) -> str:
    return f"{max(1, round(scale.seconds(paper_s) * 1000))}ms"


def compress_percentage(ratio: float) -> int:
    """fio's ``buffer_compress_percentage`` for a compression ratio (2 -> 50)."""
    return round(100 * (1 - 1 / ratio)) if ratio > 1 else 0


#: Queue depth per thread of the 4 KiB random patterns (see :func:`fio_workload`).
RANDOM_IODEPTH = 32


def fio_workload(pattern: str, scale: Scale, *, ratio: float = 2.0, paper_s: float = RUN_S) -> dict[str, Any]:
    """The FIO workload of a pattern: 8 threads, time-based; 128 KiB sequential I/O at queue
    depth 1 per thread already keeps the CCSD's engine busy, 4 KiB random I/O needs a deeper
    queue to do so (the seed tunes threads "to maximize the CCSD throughput" and gives no
    depth; 32 per thread is our assumption). The jobs run ``direct=1``: they measure the device
    under the file system, not the host page cache (``stack.cache``), which buffered I/O on
    files of a few hundred MiB would mostly hit."""
    rw, bs = FIO_PATTERNS[pattern]
    return {
        "type": "fio",
        "jobs": [
            {
                "name": pattern,
                "rw": rw,
                "bs": bs,
                "numjobs": THREADS,
                "iodepth": RANDOM_IODEPTH if rw.startswith("rand") else 1,
                "direct": 1,
                "size": PresetValue(
                    "stack.fs.partition_bytes", scale.space_scale * WORKING_SET / THREADS, align=1 << 20
                ),
                "runtime": _ms(scale, paper_s),
                "time_based": True,
                "buffer_compress_percentage": compress_percentage(ratio),
            }
        ],
    }


def filebench_workload(personality: str, scale: Scale, *, paper_s: float = RUN_S) -> dict[str, Any]:
    """A Filebench personality as its ``.f`` file writes it: its own thread counts (webserver
    100, fileserver 50, varmail 16, OLTP 200 readers + 10 writers + a log writer). Neither
    seed states a Filebench thread count (Waltz's "8 threads", §3.1/§3.2.1, is for FIO; §6.1
    and Table 3 give none; COCO's workload slide gives none)."""
    return {
        "type": "filebench",
        "personality": personality,
        "runtime_s": scale.seconds(paper_s),
    }


def fixed_ratio(ratio: float) -> dict[str, Any]:
    return {"content.mode": "model", "content.ratio": {"type": "fixed", "ratio": float(ratio)}}


def zipf_ratio(personality: str) -> dict[str, Any]:
    lo, hi = PERSONALITY_RATIOS[personality]
    if lo == hi:
        return fixed_ratio(lo)
    return {"content.mode": "model", "content.ratio": {"type": "zipf", "min": lo, "max": hi}}


def osa(scale: Scale) -> dict[str, Any]:
    """Waltz's on-demand space allocation with the seed's thresholds (§5.2: FT_sc = 4/s,
    FT_c = 256/s, T_s = 1%, RS_max = 20%, once per second)."""
    return {
        "type": "osa",
        "ft_sc_per_s": 4.0,
        "ft_c_per_s": 256.0,
        "ts": 0.01,
        "rs_max": 0.20,
        "interval_ms": 1000.0 * scale.time_scale,
    }


def coco_op(scale: Scale) -> dict[str, Any]:
    """COCO's on-demand OP growth, up to the 15% knee of its OP-ratio study."""
    return {"type": "coco_op", "step": 0.01, "max": 0.15, "interval_ms": 1000.0 * scale.time_scale}


def scheme_overrides(scheme: str, scale: Scale) -> dict[str, Any]:
    """The ``[stack]`` keys of a scheme (Waltz §6.1 "Compared methods", COCO's FACS/COCO)."""
    fixed = {"type": "fixed"}
    coco_keys = {"stack.coco.tags": True, "stack.coco.rest": "uncompressed"}
    coco_host = {"stack.coco.tags": True, "stack.coco.rest": "host"}
    extra: dict[str, dict[str, Any]] = {
        "FACS": coco_keys,
        "COCO": coco_keys,
        "FACS+F2FS": coco_host,
        "COCO+F2FS": coco_host,
    }
    table: dict[str, tuple[str, dict[str, Any]]] = {
        "Baseline": ("baseline", fixed),
        "F2FSC": ("f2fsc", fixed),
        "FPC": ("fpc", fixed),
        "TCS": ("tcs", fixed),
        "Waltz_s": ("waltz_s", osa(scale)),
        "Waltz_p": ("waltz_p", osa(scale)),
        "FACS": ("coco", fixed),
        "COCO": ("coco", coco_op(scale)),
        "FACS+F2FS": ("coco", fixed),
        "COCO+F2FS": ("coco", coco_op(scale)),
    }
    try:
        policy, space = table[scheme]
    except KeyError:
        raise ValueError(f"unknown scheme {scheme!r} (expected one of: {', '.join(table)})") from None
    return {"stack.policy": policy, "stack.space": space, **extra.get(scheme, {})}


def _run(run_id: str, labels: dict[str, Any], scale: Scale, *parts: Mapping[str, Any], **kw: Any) -> RunSpec:
    overrides: dict[str, Any] = common_overrides(scale)
    for p in parts:
        overrides.update(p)
    return RunSpec(run_id=run_id, labels=labels, overrides=overrides, **kw)


def _sc(with_sc: bool) -> dict[str, Any]:
    return {"stack.fs.fill_fraction": SC_FILL if with_sc else 0.0, **(sc_mode() if with_sc else {})}


def sc_mode() -> dict[str, Any]:
    """How a with-SC run triggers segment cleaning (see ``SC_NOTE``)."""
    return {"stack.fs.mode": SC_MODE}


def controlled(scale: Scale) -> dict[str, Any]:
    """Start hot and leave the warm-up out (see ``CONTROLLED_NOTE``)."""
    return {
        "stack.ccsd.thermal.initial_c": CONTROLLED_START_C,
        "stats.warmup_ms": scale.seconds(CONTROLLED_WARMUP_S) * 1000.0,
    }


def scheme_fio_run(
    scheme: str,
    pattern: str,
    scale: Scale,
    *,
    with_sc: bool,
    ratio: int = 2,
    timeline: bool = False,
    hot: bool = False,
) -> RunSpec:
    """``hot``: measured with the temperature control triggered (:func:`controlled`)."""
    paper_s = CONTROLLED_WARMUP_S + CONTROLLED_MEASURE_S if hot else RUN_S
    return _run(
        f"{scheme}/{pattern}/ratio{ratio}/{'sc' if with_sc else 'nosc'}",
        _labels(scheme=scheme, pattern=pattern, ratio=ratio, sc=with_sc),
        scale,
        scheme_overrides(scheme, scale),
        fixed_ratio(ratio),
        _sc(with_sc),
        {"workload": fio_workload(pattern, scale, ratio=ratio, paper_s=paper_s)},
        controlled(scale) if hot else {},
        timeline=timeline,
    )


def scheme_filebench_run(
    scheme: str, personality: str, scale: Scale, *, extra: Mapping[str, Any] | None = None, variant: str | None = None
) -> RunSpec:
    """Measured with the temperature control triggered (:func:`controlled`), as every Filebench
    figure of the seeds."""
    paper_s = CONTROLLED_WARMUP_S + CONTROLLED_MEASURE_S
    return _run(
        f"{scheme}/{personality}" + (f"/{variant}" if variant else ""),
        _labels(scheme=scheme, personality=personality, sc=True, variant=variant),
        scale,
        scheme_overrides(scheme, scale),
        zipf_ratio(personality),
        _sc(True),
        {"workload": filebench_workload(personality, scale, paper_s=paper_s)},
        controlled(scale),
        dict(extra or {}),
    )


# -- the Waltz figures --------------------------------------------------------------------


#: Fig 3's runs in a 23 °C room, with and without the CCSD's compression.
WITH_23C = "W/ Compr. (23 °C)"
WITHOUT_23C = "W/o Compr. (23 °C)"


def fig3(scale: Scale) -> Figure:
    base = (
        scheme_overrides("Baseline", scale),
        fixed_ratio(1.0),  # §3.1: ratio 1 "to avoid performance variation due to compression"
        _sc(False),
        {"workload": fio_workload("seq-write", scale, ratio=1.0)},
    )
    room = {"stack.ccsd.thermal.ambient_c": 23.0, "stack.ccsd.thermal.neighbour_c": 0.0}
    runs = (
        _run("with/23C", _labels(scheme="Baseline", variant=WITH_23C), scale, *base, room, timeline=True),
        _run(
            "without/23C",
            _labels(scheme="Baseline", variant=WITHOUT_23C),
            scale,
            *base,
            room,
            {"stack.ccsd.engine": False},
            timeline=True,
            optional=True,
            note="the CCSD's compression engine switched off with `stack.ccsd.engine = false`",
        ),
        _run(
            "with/16C-rack",
            _labels(scheme="Baseline", variant="W/ Compr. (16 °C rack)"),
            scale,
            *base,
            {
                "stack.ccsd.thermal.ambient_c": 16.0,
                "stack.ccsd.thermal.neighbour_c": RACK_NEIGHBOUR_C,
            },
            timeline=True,
            note=f"neighbour heating of the rack: {RACK_NEIGHBOUR_C} °C, fitted to the seed's 420 s "
            "(flashpress.thermal_fit)",
        ),
    )
    return Figure(
        "fig3",
        "waltz",
        "Temperature and throughput of the CCSD with and without compression (128 KiB sequential write, ratio 1)",
        "thermal_timeline",
        runs,
        notes=(
            "The 23 °C runs model one CCSD in a room (no neighbour heating); the 16 °C run a CCSD in a "
            "cooled rack, heated by its neighbours by the fitted amount.",
        ),
    )


def _f2fs_codec_runs(scale: Scale) -> tuple[RunSpec, ...]:
    runs: list[RunSpec] = []
    for pattern in scale.patterns:
        common = (fixed_ratio(2.0), _sc(False), {"workload": fio_workload(pattern, scale, paper_s=BEFORE_THROTTLE_S)})
        runs.append(
            _run(
                f"{pattern}/none",
                _labels(scheme="Baseline", pattern=pattern, codec=NO_COMPRESSION, ratio=2),
                scale,
                scheme_overrides("Baseline", scale),
                *common,
            )
        )
        for codec in scale.codecs:
            runs.append(
                _run(
                    f"{pattern}/{codec}",
                    _labels(scheme="F2FSC", pattern=pattern, codec=CODEC_LABELS.get(codec, codec), ratio=2),
                    scale,
                    scheme_overrides("F2FSC", scale),
                    {"stack.fs.compression.codec": codec},
                    *common,
                )
            )
    return tuple(runs)


def fig4(scale: Scale) -> Figure:
    return Figure(
        "fig4",
        "waltz",
        "Throughput of F2FS with or without compression (before throttling)",
        "codec_throughput",
        _f2fs_codec_runs(scale),
        notes=(LZO_NOTE,),
    )


def fig5(scale: Scale) -> Figure:
    return Figure(
        "fig5",
        "waltz",
        "Host CPU usage of F2FS with or without compression (before throttling)",
        "codec_cpu",
        _f2fs_codec_runs(scale),
        notes=(LZO_NOTE,),
    )


def _rs_run(scale: Scale, rs: float | None, fill: float) -> RunSpec:
    rs_keys = {} if rs is None else {"stack.fs.rs_ratio": rs}
    return _run(
        "empty" if rs is None else f"rs{rs:.2f}/fill{fill:.2f}",
        _labels(
            scheme="Baseline",
            pattern="rand-write",
            rs=rs,
            fill=fill,
            sc=fill > 0,
            variant="empty" if rs is None else None,
        ),
        scale,
        scheme_overrides("Baseline", scale),
        fixed_ratio(2.0),
        rs_keys,
        {"stack.fs.fill_fraction": fill, **(sc_mode() if fill > 0 else {})},
        {"workload": fio_workload("rand-write", scale, paper_s=BEFORE_THROTTLE_S)},
    )


def fig9(scale: Scale) -> Figure:
    runs = (*(_rs_run(scale, rs, SC_FILL) for rs in scale.rs_values), _rs_run(scale, None, 0.0))
    return Figure(
        "fig9",
        "waltz",
        "WAF and throughput of F2FS on the CCSD at different RS sizes (with SC, before throttling)",
        "rs_sweep",
        runs,
        notes=(
            f"4 KiB random writes on a partition filled to {SC_FILL:.0%} (the seed does not name the "
            "workload of Fig 9); `empty` is the same workload on an empty partition.",
            SC_NOTE,
        ),
    )


def fig11(scale: Scale) -> Figure:
    runs = tuple(_rs_run(scale, rs, fill) for fill in scale.fill_values for rs in scale.rs_values)
    return Figure(
        "fig11",
        "waltz",
        "The effect of the RS size on throughput at different partition fills (before throttling)",
        "rs_fill_sweep",
        runs,
        notes=("A 100% filled partition is approximated by 99% (a full partition has no free segment).", SC_NOTE),
    )


def fig12(scale: Scale) -> Figure:
    runs = tuple(
        scheme_fio_run(s, p, scale, with_sc=False, timeline=True)
        for p in scale.patterns
        for s in ("Baseline", "Waltz_s", "Waltz_p")
    )
    return Figure("fig12", "waltz", "Temperature in four access patterns", "pattern_timelines", runs)


def fig13(scale: Scale) -> Figure:
    runs = tuple(
        scheme_fio_run(s, p, scale, with_sc=False, timeline=True, hot=True)
        for p in scale.patterns
        for s in ("Waltz_s", "Waltz_p")
    )
    return Figure(
        "fig13",
        "waltz",
        "Distribution of (de)compression tasks on the host and device",
        "task_share",
        runs,
        notes=(CONTROLLED_NOTE, "The host share is over the measured window."),
    )


def fig14(scale: Scale) -> Figure:
    runs = tuple(scheme_fio_run(s, p, scale, with_sc=False, hot=True) for p in scale.patterns for s in WALTZ_SCHEMES)
    return Figure(
        "fig14", "waltz", "Normalised average throughput without SC", "normalised_bars", runs, notes=(CONTROLLED_NOTE,)
    )


def fig15(scale: Scale) -> Figure:
    runs = tuple(scheme_fio_run(s, p, scale, with_sc=True, hot=True) for p in scale.patterns for s in WALTZ_SCHEMES)
    return Figure(
        "fig15",
        "waltz",
        "Normalised average throughput with SC",
        "normalised_bars",
        runs,
        notes=(CONTROLLED_NOTE, SC_NOTE),
    )


def fig16(scale: Scale) -> Figure:
    schemes = ("Baseline", "FPC", "F2FSC", "Waltz_s", "Waltz_p")
    runs = tuple(
        scheme_fio_run(s, p, scale, with_sc=True, ratio=r, hot=True)
        for p in scale.ratio_patterns
        for s in schemes
        for r in scale.ratios
    )
    return Figure(
        "fig16",
        "waltz",
        "Normalised average throughput by compression ratio with SC",
        "ratio_bars",
        runs,
        notes=(CONTROLLED_NOTE, SC_NOTE),
    )


def _filebench_runs(
    scale: Scale, schemes: Iterable[str], extra: Mapping[str, Any] | None = None
) -> tuple[RunSpec, ...]:
    return tuple(scheme_filebench_run(s, p, scale, extra=extra) for p in scale.personalities for s in schemes)


def fig17(scale: Scale) -> Figure:
    return Figure(
        "fig17",
        "waltz",
        "Normalised throughput of Filebench workloads with SC",
        "normalised_bars",
        _filebench_runs(scale, WALTZ_SCHEMES),
        notes=(CONTROLLED_NOTE, SC_NOTE),
    )


def fig18(scale: Scale) -> Figure:
    return Figure(
        "fig18",
        "waltz",
        "WAF of Filebench workloads with SC",
        "waf_bars",
        _filebench_runs(scale, WALTZ_SCHEMES),
        notes=(CONTROLLED_NOTE, SC_NOTE),
    )


def fig19(scale: Scale) -> Figure:
    runs = tuple(
        scheme_filebench_run(
            s, FIG19_PERSONALITY, scale, extra={"stack.cpu.compute_threads": COMPUTE_THREADS}, variant="corun"
        )
        for s in WALTZ_SCHEMES
    )
    return Figure(
        "fig19",
        "waltz",
        "Progress of a co-running CPU-bound job, and host compression memory",
        "corun_bars",
        runs,
        notes=(
            f"The I/O-intensive workload is Filebench {FIG19_PERSONALITY} (not named in the seed); the "
            f"CPU-bound job runs {COMPUTE_THREADS} threads.",
            CONTROLLED_NOTE,
            SC_NOTE,
        ),
    )


WALTZ_FIGURES = (fig3, fig4, fig5, fig9, fig11, fig12, fig13, fig14, fig15, fig16, fig17, fig18, fig19)


def waltz_figures(scale: Scale) -> list[Figure]:
    return [f(scale) for f in WALTZ_FIGURES]
