"""COCO (seed 001, workshop slides): feature-aware compression scheduling between F2FS and a
compression-based SSD, and on-demand OP space, on Waltz's testbed."""

from __future__ import annotations

from flashpress.reproduce.figures import _absolute_bars
from flashpress.reproduce.papers import Paper, stack_about, stack_scale
from flashpress.reproduce.papers.coco.claims import coco_claims
from flashpress.reproduce.papers.coco.experiments import F2FS_NO_GC, coco_figures
from flashpress.reproduce.papers.waltz.experiments import PRESET, WITHOUT_23C

PAPER = Paper(
    key="coco",
    title="COCO: When F2FS Meets Compression-Based SSD!",
    preset=PRESET,
    testbed="The seed's testbed is a real CCSD and kernel, ours a scaled simulation.",
    figures=coco_figures,
    claims=coco_claims,
    about=stack_about,
    scale_shown=stack_scale,
    # The slides' power is the CSD's ("power consumption of CSD"), not the host's.
    shown=("device_power",),
    plotters={"device_power_bars": _absolute_bars("device_power")},
    # The motivation slides compare the CSD with its compression against without it, and F2FS
    # with cleaning (or with its own compression) against F2FS on an empty partition: those
    # are what the null model puts in place of the compared runs.
    figure_baselines={
        "motivation": {"variant": WITHOUT_23C},
        "gc": {"scheme": "Baseline", "variant": F2FS_NO_GC},
    },
)
