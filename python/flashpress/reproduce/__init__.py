"""``flashpress reproduce``: run a seed paper's evaluation (Waltz, COCO, PR-SSD or CAGC) as a grid of
simulations on Dask and write figures and a Markdown report beside the seed's numbers.

Layout: :mod:`.scale` (how big and long), :mod:`.experiments` (figures as lists of runs),
:mod:`.runner` (resolve, dedupe, run on Dask), :mod:`.metrics` and :mod:`.claims` (the seed's
statements and how they are checked; :mod:`.causes` holds the measured cause of each claim that
does not hold), :mod:`.figures` (plots) and :mod:`.report` (Markdown).

The output directory holds ``report.md``, ``results.csv`` / ``results.parquet`` (one row per
figure run), ``figures/<key>.png|svg``, ``scale.json`` and ``runs/NNNN/`` (config, summary and
timeline of every distinct simulation). It is written atomically.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from flashpress.reproduce import experiments
from flashpress.reproduce.experiments import PAPER_PRESETS
from flashpress.reproduce.scale import SCALES, Scale, get_scale
from flashpress.result import atomic_dir, check_out_dir


def reproduce(
    paper: str,
    out: str | os.PathLike[str],
    *,
    scale: str | Scale = "default",
    only: Iterable[str] | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    overwrite: bool = False,
    preset: str | None = None,
    log: Callable[[str], None] | None = None,
) -> Path:
    """Run ``paper``'s evaluation (``waltz``, ``coco``, ``prssd`` or ``cagc``) and write the results under
    ``out``. Returns the report's path. Every config is validated before any run starts.
    ``preset``: the preset runs are merged over (default: the paper's)."""
    from flashpress.reproduce.figures import plot_figure
    from flashpress.reproduce.report import write_report
    from flashpress.reproduce.runner import execute, plan

    sc = get_scale(scale) if isinstance(scale, str) else scale
    figs = experiments.figures(paper, sc, only)
    preset = preset or PAPER_PRESETS[paper]
    check_out_dir(out, overwrite=overwrite)  # fail before a long run, not after
    planned = plan(figs, preset)  # every config checked before inputs are made or runs start
    # Inputs the runs read (generated traces): made once per distinct step, for the selected
    # figures' runs only.
    for prep in dict.fromkeys(f.prepare for f in figs if f.prepare is not None):
        if log is not None:
            log(f"preparing inputs ({getattr(prep, '__module__', '')})")
        prep(sc, [r for f in figs if f.prepare is prep for r in f.runs])
    # The data studies are quick and can fail on missing data: before the runs, not after.
    studies = [row for f in figs if f.analysis is not None for row in f.analysis(sc)]
    outcome = execute(planned, scheduler=scheduler, workers=workers, log=log)
    with atomic_dir(out, overwrite=overwrite) as tmp:
        table = outcome.table
        if studies:
            import pandas as pd

            table = pd.concat([table, pd.DataFrame(studies)], ignore_index=True)
        table.to_csv(tmp / "results.csv", index=False)
        table.astype({c: "string" for c in ("error",) if c in table.columns}).to_parquet(
            tmp / "results.parquet", index=False
        )
        (tmp / "scale.json").write_text(json.dumps(sc.to_dict(), indent=2) + "\n")
        for i, cfg in outcome.configs.items():
            d = tmp / "runs" / f"{i:04d}"
            d.mkdir(parents=True)
            (d / "config.json").write_text(cfg.to_json())
            if i in outcome.summaries:
                (d / "summary.json").write_text(outcome.summaries[i])
            if i in outcome.timelines:
                outcome.timelines[i].to_csv(d / "timeline.csv", index=False)
            if i in outcome.cdfs:
                outcome.cdfs[i].to_csv(d / "gc_latency_cdf.csv", index=False)
        files: dict[str, list[str]] = {}
        for fig in figs:
            paths = plot_figure(fig, table, outcome.timelines, sc, tmp / "figures", cdfs=outcome.cdfs)
            files[fig.key] = [f"figures/{p.name}" for p in paths]
        text = write_report(paper, figs, table, sc, figure_files=files, wall_s=outcome.wall_s, preset=preset)
        (tmp / "report.md").write_text(text)
    return Path(out) / "report.md"


def describe(paper: str, scale: str | Scale = "default") -> list[dict[str, Any]]:
    """Run counts per figure (and distinct simulations overall) without running anything."""
    sc = get_scale(scale) if isinstance(scale, str) else scale
    return [{"figure": f.key, "runs": len(f.runs), "title": f.title} for f in experiments.figures(paper, sc)]


__all__ = ["SCALES", "Scale", "describe", "get_scale", "reproduce"]
