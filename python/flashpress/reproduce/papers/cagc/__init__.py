"""CAGC (seed 003): content-aware garbage collection, deduplication inside GC."""

from __future__ import annotations

from flashpress.reproduce.papers import Paper, prefixed_scale
from flashpress.reproduce.papers.cagc.claims import cagc_claims
from flashpress.reproduce.papers.cagc.experiments import cagc_figures
from flashpress.reproduce.papers.cagc.report import plot_index_budget_bars, table2
from flashpress.reproduce.scale import Scale


def _about(scale: Scale, preset: str, cores: int | None) -> str:
    return (
        f"Preset `{preset}` at scale **{scale.name}**: {scale.cagc_blocks_per_plane} blocks per plane (the "
        f"seed's 80 GB device has 5120), {scale.cagc_requests:,} requests per generated trace, "
        f"{scale.cagc_releases} linux releases, {scale.seeds} seed(s)."
    )


PAPER = Paper(
    key="cagc",
    title="CAGC: A Content-Aware Garbage Collection Scheme for Ultra-Low Latency Flash-Based SSDs",
    preset="cagc",
    testbed="The seed's results come from FlashSim replaying three FIU traces with a fingerprint per block; "
    "ours replay traces generated from Table II's parameters, and real Debian releases, on a scaled Table I "
    "device (flashpress's controller model: channels, planes, FCFS scheduling, a hash engine).",
    figures=cagc_figures,
    claims=cagc_claims,
    about=_about,
    scale_shown=prefixed_scale("cagc_"),
    shown=("erases", "migrations", "overall_rt", "gc_rt", "count1_share", "dedup_ratio"),
    tables=table2,
    plotters={"index_budget_bars": plot_index_budget_bars},
)
