"""Plots of the lossy study (seed 004): Fig. 1 (totals with and without SZx), Fig. 2 (time per
stage per data set), Fig. 3 (CDFs of cost and ratio per bound mode), the thread study and the
planner. Each draws repeat 0 of its rows on one axis (the report's claims use every repeat)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

STAGES = (("compress_s", "compress"), ("write_s", "write"), ("read_s", "read"), ("decompress_s", "decompress"))
COLOURS = {"compress": "#d62728", "write": "#1f77b4", "read": "#2ca02c", "decompress": "#ff7f0e"}


def _stacked(ax: Any, labels: list[str], rows: list[dict[str, Any]]) -> None:
    xs = range(len(rows))
    for side, stages in (("store", STAGES[:2]), ("load", STAGES[2:])):
        off = -0.2 if side == "store" else 0.2
        bottom = [0.0] * len(rows)
        for key, name in stages:
            vals = [float(r.get(key) or 0.0) for r in rows]
            ax.bar([x + off for x in xs], vals, 0.38, bottom=bottom, color=COLOURS[name], label=name)
            bottom = [b + v for b, v in zip(bottom, vals, strict=True)]
    ax.set_xticks(list(xs), labels, rotation=30, ha="right", fontsize="small")
    handles, names = ax.get_legend_handles_labels()
    seen = dict(zip(names, handles, strict=True))
    ax.legend(seen.values(), seen.keys(), fontsize="small")


def plot_runtime(ax: Any, fig: Any, rows: list[dict[str, Any]], timelines: Mapping[int, Any], scale: Any) -> None:
    """Fig. 1: store (left bar) and load (right bar) totals, raw and +SZx, per device."""
    order = [(d, s) for d in ("hdd", "nvme", "real") for s in ("raw", "szx")]
    sel = [
        next(r for r in rows if r["variant"] == d and r["scheme"] == s)
        for d, s in order
        if any(r["variant"] == d and r["scheme"] == s for r in rows)
    ]
    _stacked(ax, [f"{r['variant'].upper()}{' +SZx' if r['scheme'] == 'szx' else ''}" for r in sel], sel)
    ax.set_ylabel("seconds, all data sets (left: store, right: load)")


def plot_breakdown(ax: Any, fig: Any, rows: list[dict[str, Any]], timelines: Mapping[int, Any], scale: Any) -> None:
    """Fig. 2: per device, data set and codec (at the relative bound), each stage's time as a
    share of raw I/O's time for the same field and device (left bar: store against raw write,
    right bar: load against raw read), so fields of any size share one linear axis; 1 = raw."""
    raw = {(r["variant"], r["workload"]): r for r in rows if r["scheme"] == "raw"}
    sel = sorted(
        (r for r in rows if r["scheme"] in ("szx", "sz3", "zfp") and (r["variant"], r["workload"]) in raw),
        key=lambda r: (r["variant"], r["workload"], r["scheme"]),
    )
    norm = []
    for r in sel:
        base = raw[(r["variant"], r["workload"])]
        w, rd = float(base["write_s"]) or 1.0, float(base["read_s"]) or 1.0
        norm.append(
            {
                "compress_s": float(r["compress_s"]) / w,
                "write_s": float(r["write_s"]) / w,
                "read_s": float(r["read_s"]) / rd,
                "decompress_s": float(r["decompress_s"]) / rd,
            }
        )
    _stacked(ax, [f"{r['variant']} {r['workload']} {r['scheme']}" for r in sel], norm)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_ylabel("time / raw I/O time (left: store, right: load)")
    ax.tick_params(axis="x", labelsize=5)


def plot_cdfs(ax: Any, fig: Any, rows: list[dict[str, Any]], timelines: Mapping[int, Any], scale: Any) -> None:
    """Fig. 3: CDF of the compression ratio per bound mode (solid) and of the compression
    cost in ms per MB (dashed, top axis)."""
    top = ax.twiny()
    for mode, colour in (("abs", "#1f77b4"), ("rel", "#2ca02c"), ("ratio", "#d62728")):
        ratios = sorted(float(r["ratio"]) for r in rows if r["variant"] == mode)
        costs = sorted(1e3 * float(r["cost_s_per_mb"]) for r in rows if r["variant"] == mode)
        if not ratios:
            continue
        ys = [(i + 1) / len(ratios) for i in range(len(ratios))]
        ax.step(ratios, ys, where="post", color=colour, label=f"{mode.upper()} ratio")
        top.step(costs, ys, where="post", color=colour, linestyle="--", label=f"{mode.upper()} cost")
    ax.set_xscale("log")
    ax.set_xlabel("compression ratio (solid)")
    top.set_xlabel("compression cost, ms per MB (dashed)")
    ax.set_ylabel("CDF over data sets and settings")
    ax.legend(fontsize="small", loc="lower right")


def plot_threads(ax: Any, fig: Any, rows: list[dict[str, Any]], timelines: Mapping[int, Any], scale: Any) -> None:
    """Thread study: raw and SZx store/load time on the NVMe model against numjobs, per data
    set (normalised to numjobs 1)."""
    for (scheme, metric), style in {("raw", "load_s"): "-", ("raw", "store_s"): ":", ("szx", "store_s"): "--"}.items():
        for ds in sorted({r["workload"] for r in rows}):
            pts = sorted(
                (int(r["numjobs"]), float(r[metric]))
                for r in rows
                if r["variant"] == "numjobs" and r["scheme"] == scheme and r["workload"] == ds
            )
            if pts:
                base = pts[0][1]
                ax.plot(
                    [p[0] for p in pts],
                    [p[1] / base for p in pts],
                    style,
                    marker="o",
                    label=f"{ds} {scheme} {metric[:-2]}",
                )
    ax.set_xscale("log", base=2)
    ax.set_xlabel("I/O jobs (fio numjobs), NVMe model")
    ax.set_ylabel("time / time with 1 job")
    ax.legend(fontsize=5, ncol=2)


def plot_planner(ax: Any, fig: Any, rows: list[dict[str, Any]], timelines: Mapping[int, Any], scale: Any) -> None:
    """Planner: predicted against measured store and load seconds, one point per data set and
    device; the band is +-20%."""
    for which, marker in (("store", "o"), ("load", "s")):
        for dev, colour in (("hdd", "#1f77b4"), ("nvme", "#d62728")):
            pts = [(float(r[f"{which}_s"]), float(r[f"pred_{which}_s"])) for r in rows if r["variant"] == dev]
            if pts:
                ax.scatter(*zip(*pts, strict=True), marker=marker, color=colour, label=f"{dev} {which}")
    lo = min((min(float(r["store_s"]), float(r["load_s"])) for r in rows), default=1e-3)
    hi = max((max(float(r["store_s"]), float(r["load_s"])) for r in rows), default=1.0)
    xs = [lo * 0.8, hi * 1.25]
    ax.plot(xs, xs, color="grey", linewidth=0.8)
    ax.fill_between(xs, [x * 0.8 for x in xs], [x * 1.2 for x in xs], color="grey", alpha=0.15)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("measured seconds (whole field)")
    ax.set_ylabel("predicted seconds (sample of >= 16 MiB)")
    ax.legend(fontsize="small")


LOSSY_PLOTTERS = {
    "lossy_runtime": plot_runtime,
    "lossy_breakdown": plot_breakdown,
    "lossy_cdfs": plot_cdfs,
    "lossy_threads": plot_threads,
    "lossy_planner": plot_planner,
}
