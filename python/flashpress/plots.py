"""Plots of a results directory (as ``Result.write`` or ``flashpress run --out`` leave it):
the timeline (throughput, IOPS, latency and the other columns against simulated time) and the
latency CDFs, each saved as PNG and SVG. Uses matplotlib's Agg backend (no display needed)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flashpress.errors import FileReadError

if TYPE_CHECKING:
    import pandas as pd

# Units by name suffix, for CSV timelines (Parquet timelines carry their units).
_SUFFIX_UNITS = (("_mb_s", "MB/s"), ("_iops", "1/s"), ("_us", "us"), ("_s", "s"))


def _missing(path: Path) -> FileReadError:
    err = FileReadError(f"cannot read {path}: no such file (not a flashpress results directory?)")
    err.path = str(path)
    return err


def read_timeline(results_dir: str | os.PathLike[str]) -> tuple[pd.DataFrame, dict[str, str]]:
    """The timeline of a results directory and the unit of each column."""
    import pandas as pd
    import pyarrow.parquet as pq

    d = Path(results_dir)
    pq_path, csv_path = d / "timeline.parquet", d / "timeline.csv"
    units: dict[str, str] = {}
    if pq_path.exists():
        table = pq.read_table(pq_path)
        for field in table.schema:
            meta = field.metadata or {}
            unit = meta.get(b"unit")
            if unit is not None:
                units[field.name] = unit.decode()
        df = table.to_pandas()
    elif csv_path.exists():
        df = pd.read_csv(csv_path)
    else:
        raise _missing(pq_path)
    for col in df.columns:
        if col not in units:
            units[col] = next((u for suf, u in _SUFFIX_UNITS if col.endswith(suf)), col)
    return df, units


def plot_timeline(results_dir: str | os.PathLike[str], out_dir: str | os.PathLike[str] | None = None) -> list[Path]:
    """Write ``timeline.png`` and ``timeline.svg``: one panel per unit, against simulated time."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    df, units = read_timeline(results_dir)
    out = Path(out_dir or results_dir)
    out.mkdir(parents=True, exist_ok=True)
    time_col = "time_s" if "time_s" in df.columns else None
    x = df[time_col] if time_col else df.index.to_series()
    groups: dict[str, list[str]] = {}
    for col in df.columns:
        if col != time_col:
            groups.setdefault(units[col], []).append(col)
    # Throughput first, then IOPS and latency, then the rest in column order.
    order = sorted(groups, key=lambda u: {"MB/s": 0, "1/s": 1, "us": 2}.get(u, 3))
    fig, axes = plt.subplots(max(1, len(order)), 1, figsize=(9, 2.2 * max(1, len(order))), sharex=True, squeeze=False)
    for ax, unit in zip(axes[:, 0], order, strict=False):
        for col in groups[unit]:
            ax.plot(x, df[col], label=col, marker="." if len(df) < 50 else None)
        ax.set_ylabel(unit)
        ax.legend(loc="upper right", fontsize="small")
        ax.grid(True, alpha=0.3)
    axes[-1, 0].set_xlabel("simulated time (s)" if time_col else "interval")
    fig.suptitle(f"flashpress timeline: {Path(results_dir).name}")
    return _save(fig, out, "timeline")


def plot_latency_cdf(results_dir: str | os.PathLike[str], out_dir: str | os.PathLike[str] | None = None) -> list[Path]:
    """Write ``latency_cdf.png`` and ``latency_cdf.svg``: cumulative fraction against latency
    (us, log scale), one line per op."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    path = Path(results_dir) / "latency_cdf.csv"
    if not path.exists():
        raise _missing(path)
    cdf = pd.read_csv(path)
    out = Path(out_dir or results_dir)
    out.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    drawn = False
    for op, g in cdf.groupby("op", sort=False):
        if len(g):
            ax.step(g["latency_ns"] / 1e3, g["cumulative"], where="post", label=str(op))
            drawn = True
    if drawn:
        ax.set_xscale("log")
        ax.legend()
    else:
        ax.text(0.5, 0.5, "no completed reads or writes", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel("latency (us)")
    ax.set_ylabel("cumulative fraction")
    ax.set_ylim(0, 1.02)
    ax.grid(True, which="both", alpha=0.3)
    summary = Path(results_dir) / "summary.json"
    title = "flashpress latency CDF"
    if summary.exists():
        s = json.loads(summary.read_text())
        if s.get("waf") is not None:
            title += f" (WAF {s['waf']:.3f})"
    ax.set_title(title)
    return _save(fig, out, "latency_cdf")


def _save(fig: Any, out: Path, stem: str) -> list[Path]:
    """Write ``stem.png`` and ``stem.svg`` into ``out`` and close the figure."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    paths = [out / f"{stem}.png", out / f"{stem}.svg"]
    for p in paths:
        fig.savefig(p)
    plt.close(fig)
    return paths


def plot_results(results_dir: str | os.PathLike[str], out_dir: str | os.PathLike[str] | None = None) -> list[Path]:
    """Both plots of a results directory; returns the files written."""
    d = Path(results_dir)
    if not d.is_dir():
        raise _missing(d)
    return plot_timeline(d, out_dir) + plot_latency_cdf(d, out_dir)


__all__ = ["plot_latency_cdf", "plot_results", "plot_timeline", "read_timeline"]
