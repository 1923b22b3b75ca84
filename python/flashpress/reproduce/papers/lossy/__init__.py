"""The lossy study (seed 004, a poster): error-bounded lossy compression of scientific data
stored on an HDD and an NVMe SSD."""

from __future__ import annotations

import os
from typing import Any

from flashpress.reproduce.metrics import LOSSY_COLUMNS
from flashpress.reproduce.papers import Paper
from flashpress.reproduce.papers.lossy.claims import lossy_claims
from flashpress.reproduce.papers.lossy.experiments import lossy_figures
from flashpress.reproduce.papers.lossy.figures import LOSSY_PLOTTERS
from flashpress.reproduce.scale import Scale


def _about(scale: Scale, preset: str, cores: int | None) -> str:
    return (
        f"Scale **{scale.name}**: data sets {', '.join(scale.lossy_datasets)}; every timed measurement "
        f"repeated {scale.lossy_repeats} times (`rep`; the spread is the noise band). Nothing is scaled: codec "
        f"times are wall seconds on this machine ({cores or os.cpu_count()} cores), device times come from the "
        f"HDD model and the simulator's `{preset}` preset."
    )


def _scale_shown(scale: Scale) -> dict[str, Any]:
    return {k: v for k, v in scale.to_dict().items() if k.startswith("lossy_") or k == "name"}


PAPER = Paper(
    key="lossy",
    title="Lossy compression of scientific data on NVMe SSDs",
    preset="nvme",
    testbed="The seed ran SZx and fio on a CloudLab machine's SCSI HDD and NVMe SSD with data sets it does not "
    "name; ours run SZx (our implementation), SZ3 and ZFP for real on this machine's cores, on real fields from "
    "Debian and PyPI packages, with device times from an HDD model and the simulator's NVMe preset.",
    figures=lossy_figures,
    claims=lossy_claims,
    about=_about,
    scale_shown=_scale_shown,
    shown=(*LOSSY_COLUMNS, "cost_ms_per_mb"),
    plotters=LOSSY_PLOTTERS,
    # Every codec is compared with storing the field raw.
    baselines={"scheme": "raw"},
    # The rows are measurements, not simulations: `ratio` is the compression ratio measured, and
    # a run is told apart by its data set, codec, bound, threads and fio shape.
    run_labels=("scheme", "workload", "variant", "setting", "threads", "numjobs", "bs", "candidate", "rep"),
)
