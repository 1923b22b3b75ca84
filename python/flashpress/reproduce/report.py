"""The Markdown report: per figure, the seed's stated numbers beside ours, whether the
ordering the seed reports holds, the runs that failed or were skipped, and links to the
figure files; plus the scale used and the wall time."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from flashpress.reproduce.claims import claims
from flashpress.reproduce.experiments import LABEL_KEYS, Figure
from flashpress.reproduce.metrics import metric
from flashpress.reproduce.scale import Scale

if TYPE_CHECKING:
    import pandas as pd

TITLES = {
    "waltz": "Waltz: Temperature-Aware Cooperative Compression for High-Performance Compression-Based CSDs",
    "coco": "COCO: When F2FS Meets Compression-Based SSD!",
}
#: Metrics shown in each figure's table of measured values.
SHOWN = ("throughput", "waf", "max_c", "first_throttle_s", "shutdown_s", "host_share", "cpu", "power", "compute")
TIME_METRICS = {"first_throttle_s", "shutdown_s"}


def _cell(v: Any, fmt: str = ".3g") -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, float):
        return format(v, fmt)
    return str(v).replace("|", "\\|").replace("\n", " ")


def _agrees(a: bool | None) -> str:
    return {True: "yes", False: "no", None: "n/a"}[a]


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines


def write_report(
    paper: str,
    figs: Sequence[Figure],
    table: pd.DataFrame,
    scale: Scale,
    *,
    figure_files: dict[str, list[str]],
    wall_s: float,
    preset: str,
) -> str:
    """The report's Markdown text. ``figure_files`` maps a figure key to its files (relative
    to the report)."""
    n = len(table)
    status = table["status"].value_counts().to_dict() if n else {}
    unique_runs = table["run"].dropna().nunique() if n else 0
    lines = [
        f"# Reproduction: {TITLES.get(paper, paper)}",
        "",
        f"Preset `{preset}` at scale **{scale.name}**: time x {scale.time_scale:g}, space x {scale.space_scale:g}. "
        "Run times and the control loops' time constants (thermal τ, S.M.A.R.T. polling, OSA period) are scaled "
        "together; times below are divided back by the time scale, so they compare with the seed's seconds.",
        "",
        f"{n} figure runs ({unique_runs} distinct simulations): "
        + ", ".join(f"{status.get(s, 0)} {s}" for s in ("ok", "failed", "skipped"))
        + f". Wall time {wall_s:.1f} s.",
        "",
        "*Agrees?* judges the ordering the seed reports (which scheme is faster, whether the CCSD overheats), "
        "not the magnitude; the seed's testbed is a real CCSD and kernel, ours a scaled simulation.",
        "",
        "## Scale",
        "",
        *_table(["parameter", "value"], [[k, _cell(v)] for k, v in scale.to_dict().items()]),
        "",
    ]
    all_claims = claims(paper)
    total = agree = 0
    for fig in figs:
        rows = table[table["figure"] == fig.key] if n else table
        lines += [f"## {fig.key}: {fig.title}", ""]
        for f in figure_files.get(fig.key, []):
            if f.endswith(".png"):
                lines.append(f"![{fig.key}]({f})")
        if figure_files.get(fig.key):
            lines += ["", "Files: " + ", ".join(f"[{f}]({f})" for f in figure_files[fig.key]), ""]
        for note in fig.notes:
            lines += [f"> {note}", ""]
        fig_claims = [c for c in all_claims if c.figure == fig.key]
        if fig_claims:
            crow = []
            for c in fig_claims:
                v = c.evaluate(table, scale)
                total += 1
                agree += v.agrees is True
                seed_v = "" if c.seed_value is None else f"{c.seed_value:g}{c.unit}"
                crow.append(
                    [
                        _cell(c.seed),
                        seed_v,
                        "-" if v.measured is None else f"{v.measured:.1f}{c.unit}",
                        _agrees(v.agrees),
                        _cell(v.why),
                    ]
                )
            lines += _table(["seed says", "seed value", "measured", "agrees?", "why"], crow)
            lines.append("")
        recs = [{str(k): val for k, val in r.items()} for r in rows.to_dict("records")]
        shown = [m for m in SHOWN if any(metric(r, m) is not None for r in recs)]
        labels = [k for k in LABEL_KEYS if any(r.get(k) is not None for r in recs)]
        mrows = []
        for r in recs:
            vals = []
            for m in shown:
                val = metric(r, m)
                if val is not None and m in TIME_METRICS:
                    val = scale.paper_seconds(val)
                vals.append(_cell(val))
            mrows.append([_cell(r.get("run_id")), *(_cell(r.get(k)) for k in labels), _cell(r.get("status")), *vals])
        if mrows:
            lines += ["Measured:", ""]
            lines += _table(["run", *labels, "status", *shown], mrows)
            lines.append("")
        bad = [r for r in recs if r.get("status") != "ok"]
        if bad:
            lines += ["Runs without results:", ""]
            lines += [f"- `{r['run_id']}` {r['status']}: {_cell(r.get('error'))}" for r in bad]
            lines.append("")
    lines[4:4] = [f"Claims: {agree} of {total} orderings hold.", ""]
    return "\n".join(lines) + "\n"


__all__ = ["write_report"]
