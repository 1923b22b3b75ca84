"""PR-SSD (seed 002): partial reads, Dominant Pattern Compression and a split FTL."""

from __future__ import annotations

from flashpress.reproduce.papers import Paper, prefixed_scale
from flashpress.reproduce.papers.prssd.claims import prssd_claims
from flashpress.reproduce.papers.prssd.data import STORED
from flashpress.reproduce.papers.prssd.experiments import MAP_REFERENCE, prssd_figures
from flashpress.reproduce.papers.prssd.plots import PRSSD_PLOTTERS
from flashpress.reproduce.papers.prssd.report import table2
from flashpress.reproduce.scale import Scale


def _about(scale: Scale, preset: str, cores: int | None) -> str:
    return (
        f"Preset `{preset}` at scale **{scale.name}**: {scale.prssd_blocks_per_plane} blocks per plane (the "
        f"seed's device has 1024), {scale.prssd_requests:,} requests per run, {scale.seeds} seed(s)."
    )


PAPER = Paper(
    key="prssd",
    title="PR-SSD: Maximizing Partial Read Potential by Exploiting Compression and Channel-Level Parallelism",
    preset="prssd",
    testbed="The seed's results come from its own SSD simulator replaying QEMU traces with real data; ours "
    "run fio jobs with Table 2's parameters writing real files of each workload's kind (ext4 images) on a "
    "scaled Table 1 device.",
    figures=prssd_figures,
    claims=prssd_claims,
    about=_about,
    scale_shown=prefixed_scale("prssd_"),
    tables=table2,
    plotters=PRSSD_PLOTTERS,
    # Figures without a Baseline run: Fig. 4 compares SP with P (compression's gain), Fig. 8 the
    # codecs with storing the pages as they are, Fig. 19 the split decision with Split All; our
    # DRAM-budget study compares the schemes with S.
    figure_baselines={
        "fig4": {"scheme": "P"},
        "fig8": {"scheme": STORED},
        "fig19": {"scheme": "PR_SplitAll"},
        "mapcache": {"scheme": MAP_REFERENCE},
    },
)
