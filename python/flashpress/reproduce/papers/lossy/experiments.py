"""The lossy seed's figures (seed 004) as data studies: no simulation runs of their own; each
figure's rows are measured by :mod:`flashpress.reproduce.papers.lossy.data` (real codecs on this
machine's cores, device times from the HDD and NVMe models)."""

from __future__ import annotations

import os
from typing import Any

from flashpress.reproduce.experiments import Figure
from flashpress.reproduce.scale import Scale


def _study(key: str, title: str, kind: str, rows: Any, note: str) -> Figure:
    return Figure(key, "lossy", title, kind, (), (note,), analysis=lambda sc: rows(sc))


def lossy_figures(scale: Scale) -> list[Figure]:
    from flashpress.reproduce.papers.lossy import data as d

    ds, reps = tuple(scale.lossy_datasets), scale.lossy_repeats
    io = "fio as in the seed: 4 KiB blocks, I/O depth 16, one job"
    return [
        _study(
            "fig1",
            "Total runtime of storing and loading the data sets with and without SZx (+SZx), HDD and NVMe",
            "lossy_runtime",
            lambda sc: d.fig1_rows(ds, reps) + d.device_rows(reps),
            f"Sum over the data sets ({', '.join(ds)}) at a bound of 1e-3 x each field's range; {io}. Store = "
            "compress + write (with the fsync), load = read + decompress; stages one after the other. Codec times "
            "measured on this machine (one core); device times from the HDD model (7,200 rpm SAS disk) and the "
            "`nvme` preset of the simulator; `real` is this machine's own disk (real I/O with O_DIRECT in the "
            "test-data folder, 16 threads over one sequential stream, fsync in the write time).",
        ),
        _study(
            "fig2",
            "Time per stage of storing and loading each data set, per codec and device",
            "lossy_breakdown",
            lambda sc: d.fig2_rows(ds, reps),
            f"SZx (ours), SZ3 (pysz) and ZFP (zfpy) at 1e-3 x range; {io}. Plotted as each stage's time over raw "
            "I/O's for the same field and device (1 = raw); the results also hold SZx under abs:0.01 and ratio:10.",
        ),
        _study(
            "fig3",
            "CDFs of SZx's compression cost and ratio under absolute, relative and fixed-ratio bounds",
            "lossy_cdfs",
            lambda sc: d.fig3_rows(ds, reps),
            "Settings: abs "
            + ", ".join(f"{v:g}" for v in d.FIG3_SETTINGS["abs"])
            + "; rel "
            + ", ".join(f"{v:g}" for v in d.FIG3_SETTINGS["rel"])
            + " x range; ratio "
            + ", ".join(f"{v:g}" for v in d.FIG3_SETTINGS["ratio"])
            + " (searched on log bound, within 10%). Cost: seconds per MB of the kept compression; a fixed "
            "ratio's search costs more (search_s in the results).",
        ),
        _study(
            "threads",
            "Thread study: SZx on 1/2/4 threads, and 1..8 I/O jobs on the NVMe model",
            "lossy_threads",
            lambda sc: d.thread_rows(ds, reps),
            f"Compression threads: SZx chunked on N threads (this machine has {os.cpu_count()} cores). I/O jobs: "
            "fio numjobs, "
            "each job its own contiguous share at depth 16.",
        ),
        _study(
            "planner",
            "The informed design: the planner's predicted store and load time against the measured",
            "lossy_planner",
            lambda sc: d.planner_rows(ds, reps),
            "The best compressing candidate of each field and device, predicted from the codec's speed and ratio "
            "on a sample (1/8 of the field, at least 16 MiB: below that the field itself) and the device model, "
            "then run on the whole field (a pipelined one chunk by chunk); `recommended` in the results is the "
            "planner's choice, raw I/O included.",
        ),
    ]
