"""Waltz (seed 000): temperature-aware cooperative compression between F2FS and a
compression-based computational SSD, and on-demand reserved-space allocation."""

from __future__ import annotations

from flashpress.reproduce.papers import Paper, stack_about, stack_scale
from flashpress.reproduce.papers.waltz.claims import waltz_claims
from flashpress.reproduce.papers.waltz.experiments import PRESET, waltz_figures

PAPER = Paper(
    key="waltz",
    title="Waltz: Temperature-Aware Cooperative Compression for High-Performance Compression-Based CSDs",
    preset=PRESET,
    testbed="The seed's testbed is a real CCSD and kernel, ours a scaled simulation.",
    figures=waltz_figures,
    claims=waltz_claims,
    about=stack_about,
    scale_shown=stack_scale,
    # Fig 4/5 compare codecs against no compression at all.
    baselines={"scheme": "Baseline", "codec": "W/o Compr."},
)
