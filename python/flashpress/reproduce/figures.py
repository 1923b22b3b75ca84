"""Figures of the reproduction (matplotlib, Agg backend), each saved as PNG and SVG with the
save helper of :mod:`flashpress.plots`. Every function takes the figure's rows of the results
table (failed and skipped runs included: they are counted in the caption, never dropped
silently) and the timelines by run number."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flashpress.plots import _save
from flashpress.reproduce.experiments import Figure
from flashpress.reproduce.metrics import METRIC_LABELS, metric, replicate
from flashpress.reproduce.scale import Scale

if TYPE_CHECKING:
    import pandas as pd

Rows = list[dict[str, Any]]
Plotter = Callable[[Any, Figure, Rows, Mapping[int, "pd.DataFrame"], Scale], None]


def _rows(table: pd.DataFrame, key: str) -> Rows:
    if table.empty:
        return []
    return [{str(k): v for k, v in r.items()} for r in table[table["figure"] == key].to_dict("records")]


def _ok(rows: Rows) -> Rows:
    return [r for r in rows if r.get("status") == "ok"]


def _legend(ax: Any, **kw: Any) -> None:
    """A legend, when anything was drawn with a label."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(**kw)


def _order(values: Sequence[Any]) -> list[Any]:
    """Distinct values in first-seen order (the run order of the figure)."""
    out: list[Any] = []
    for v in values:
        if v is not None and v not in out:
            out.append(v)
    return out


def _bars(ax: Any, groups: list[Any], series: list[Any], value: Callable[[Any, Any], float | None]) -> None:
    width = 0.8 / max(1, len(series))
    for j, s in enumerate(series):
        xs, ys = [], []
        for i, g in enumerate(groups):
            v = value(g, s)
            if v is not None:
                xs.append(i + (j - (len(series) - 1) / 2) * width)
                ys.append(v)
        ax.bar(xs, ys, width, label=str(s))
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([str(g) for g in groups], rotation=15)
    ax.grid(True, axis="y", alpha=0.3)
    if series:
        _legend(ax, fontsize="small")


def _group_key(r: dict[str, Any]) -> Any:
    g = r.get("pattern") or r.get("personality") or r.get("workload")
    # CAGC Fig. 2's second device is a group of its own.
    return f"{g} (no GC)" if r.get("variant") == "no-gc" else g


def _find(rows: Rows, group: Any, **labels: Any) -> dict[str, Any] | None:
    for r in rows:
        if _group_key(r) == group and all(r.get(k) == v for k, v in labels.items()):
            return r
    return None


def _normalised(
    rows: Rows, group: Any, name: str, metric_name: str, *, key: str = "scheme", **extra: Any
) -> float | None:
    r = _find(rows, group, **{key: name}, **extra)
    base = _find(rows, group, scheme="Baseline", **extra)
    if r is None or base is None:
        return None
    v, b = metric(r, metric_name), metric(base, metric_name)
    return None if v is None or not b else v / b


def plot_thermal_timeline(
    ax: Any, fig: Figure, rows: Rows, timelines: Mapping[int, pd.DataFrame], scale: Scale
) -> None:
    ax2 = ax.twinx()
    for r in _ok(rows):
        tl = timelines.get(int(r["run"])) if r.get("run") is not None else None
        if tl is None or "temperature_c" not in tl.columns:
            continue
        t = tl["time_s"] / scale.time_scale
        ax.plot(t, tl["temperature_c"], label=f"{r['variant']}")
        if "write_mb_s" in tl.columns:
            ax2.plot(t, tl["write_mb_s"], linestyle=":", alpha=0.6, label=f"{r['variant']} thru.")
    ax.set_xlabel("time (s, paper scale)")
    ax.set_ylabel("temperature (°C)")
    ax2.set_ylabel("write throughput (MB/s)")
    for y, name in ((76, "throttle 76 °C"), (86, "emergency 86 °C")):
        ax.axhline(y, color="grey", linestyle="--", linewidth=0.8)
        ax.text(0, y, name, fontsize="x-small", va="bottom")
    _legend(ax, loc="upper left", fontsize="small")
    _legend(ax2, loc="lower right", fontsize="x-small")


def plot_pattern_timelines(
    ax: Any, fig: Figure, rows: Rows, timelines: Mapping[int, pd.DataFrame], scale: Scale
) -> None:
    styles = {"Baseline": "-", "Waltz_s": "--", "Waltz_p": ":"}
    for r in _ok(rows):
        tl = timelines.get(int(r["run"])) if r.get("run") is not None else None
        if tl is None or "temperature_c" not in tl.columns:
            continue
        ax.plot(
            tl["time_s"] / scale.time_scale,
            tl["temperature_c"],
            linestyle=styles.get(str(r["scheme"]), "-"),
            label=f"{r['scheme']} {r['pattern']}",
        )
    ax.axhline(76, color="grey", linestyle="--", linewidth=0.8)
    ax.axhline(86, color="red", linestyle="--", linewidth=0.8)
    ax.set_xlabel("time (s, paper scale)")
    ax.set_ylabel("temperature (°C)")
    _legend(ax, fontsize="x-small", ncol=2)


def _series_bars(series: str, metric_name: str) -> Plotter:
    """``metric_name`` per pattern, one bar per value of the label ``series`` (a codec, or the
    variants a slide compares side by side); CPU in percent."""

    def plot(ax: Any, fig: Figure, rows: Rows, timelines: Mapping[int, pd.DataFrame], scale: Scale) -> None:
        ok = _ok(rows)
        groups = _order([r.get("pattern") for r in rows])
        bars = _order([r.get(series) for r in rows])

        def value(g: Any, b: Any) -> float | None:
            r = next((r for r in ok if r.get("pattern") == g and r.get(series) == b), None)
            v = metric(r, metric_name) if r else None
            return None if v is None else (100 * v if metric_name == "cpu" else v)

        _bars(ax, groups, bars, value)
        ax.set_ylabel("host CPU usage (%)" if metric_name == "cpu" else METRIC_LABELS[metric_name])

    return plot


def plot_rs_sweep(ax: Any, fig: Figure, rows: Rows, timelines: Mapping[int, pd.DataFrame], scale: Scale) -> None:
    ok = [r for r in _ok(rows) if r.get("rs") is not None]
    ok.sort(key=lambda r: float(r["rs"]))
    xs = [100 * float(r["rs"]) for r in ok]
    ax.plot(xs, [metric(r, "throughput") for r in ok], marker="o", label="throughput")
    empty = next((r for r in _ok(rows) if r.get("variant") == "empty"), None)
    if empty is not None and metric(empty, "throughput") is not None:
        ax.axhline(metric(empty, "throughput"), color="grey", linestyle="--", label="empty partition")
    ax.set_xlabel("RS size (% of partition)")
    ax.set_ylabel("throughput (MB/s)")
    ax2 = ax.twinx()
    ax2.plot(xs, [metric(r, "waf") for r in ok], marker="s", color="tab:red", label="WAF")
    ax2.set_ylabel("WAF")
    _legend(ax, loc="upper left", fontsize="small")
    _legend(ax2, loc="upper right", fontsize="small")


def plot_rs_fill_sweep(ax: Any, fig: Figure, rows: Rows, timelines: Mapping[int, pd.DataFrame], scale: Scale) -> None:
    ok = _ok(rows)
    for fill in _order([r.get("fill") for r in rows]):
        pts = sorted((float(r["rs"]), metric(r, "throughput")) for r in ok if r.get("fill") == fill)
        pts = [(x, y) for x, y in pts if y is not None]
        ax.plot([100 * x for x, _ in pts], [y for _, y in pts], marker="o", label=f"{float(fill):.0%} filled")
    ax.set_xlabel("RS size (% of partition)")
    ax.set_ylabel("throughput (MB/s)")
    _legend(ax, fontsize="small")
    ax.grid(True, alpha=0.3)


def plot_task_share(ax: Any, fig: Figure, rows: Rows, timelines: Mapping[int, pd.DataFrame], scale: Scale) -> None:
    ok = _ok(rows)
    groups = _order([r.get("pattern") for r in rows])
    schemes = _order([r.get("scheme") for r in rows])

    def value(g: Any, s: Any) -> float | None:
        r = _find(ok, g, scheme=s)
        v = metric(r, "host_share") if r else None
        return None if v is None else 100 * v

    _bars(ax, groups, schemes, value)
    ax.set_ylabel("(de)compression on the host (%)")
    ax.set_ylim(0, 100)


def _normalised_bars(metric_name: str, ylabel: str) -> Plotter:
    def plot(ax: Any, fig: Figure, rows: Rows, timelines: Mapping[int, pd.DataFrame], scale: Scale) -> None:
        ok = _ok(rows)
        groups = _order([_group_key(r) for r in rows])
        schemes = _order([r.get("scheme") for r in rows])
        _bars(ax, groups, schemes, lambda g, s: _normalised(ok, g, s, metric_name))
        ax.axhline(1.0, color="grey", linewidth=0.8)
        ax.set_ylabel(ylabel)

    return plot


def _absolute_bars(metric_name: str) -> Plotter:
    def plot(ax: Any, fig: Figure, rows: Rows, timelines: Mapping[int, pd.DataFrame], scale: Scale) -> None:
        ok = _ok(rows)
        groups = _order([_group_key(r) for r in rows])
        schemes = _order([r.get("scheme") for r in rows])

        def value(g: Any, s: Any) -> float | None:
            r = _find(ok, g, scheme=s)
            return metric(r, metric_name) if r else None

        _bars(ax, groups, schemes, value)
        ax.set_ylabel(METRIC_LABELS[metric_name])

    return plot


def plot_ratio_bars(ax: Any, fig: Figure, rows: Rows, timelines: Mapping[int, pd.DataFrame], scale: Scale) -> None:
    ok = _ok(rows)
    groups = _order([r.get("pattern") for r in rows])
    series = _order([f"{r['scheme']}-{r['ratio']}" for r in rows if r.get("scheme") != "Baseline"])

    def value(g: Any, s: str) -> float | None:
        scheme, ratio = s.rsplit("-", 1)
        return _normalised(ok, g, scheme, "throughput", ratio=int(float(ratio)))

    _bars(ax, groups, series, value)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_ylabel("throughput / Baseline-x")


PROGRESS = "co-running job progress"
MEMORY = "host compression memory"


def plot_corun(ax: Any, fig: Figure, rows: Rows, timelines: Mapping[int, pd.DataFrame], scale: Scale) -> None:
    ok = _ok(rows)
    schemes = _order([r.get("scheme") for r in rows])
    group = _order([_group_key(r) for r in rows])
    first = group[0] if group else None

    def value(g: str, s: Any) -> float | None:
        if g == PROGRESS:
            return _normalised(ok, first, s, "compute")
        return _norm_to(ok, s, "buffer", "F2FSC")

    _bars(ax, [PROGRESS, MEMORY], schemes, value)
    ax.set_ylabel("progress / Baseline; memory / F2FSC")


def _norm_to(rows: Rows, scheme: str, metric_name: str, ref: str) -> float | None:
    r = next((r for r in rows if r.get("scheme") == scheme), None)
    b = next((r for r in rows if r.get("scheme") == ref), None)
    if r is None or b is None:
        return None
    v, bv = metric(r, metric_name), metric(b, metric_name)
    return None if v is None or not bv else v / bv


def plot_channel_bars(ax: Any, fig: Figure, rows: Rows, timelines: Mapping[int, pd.DataFrame], scale: Scale) -> None:
    """PR against Baseline per channel count, averaged over the workloads (Fig. 17b)."""
    ok = _ok(rows)

    def ch_of(r: dict[str, Any]) -> int:
        v = r.get("channels")
        return 8 if v is None or (isinstance(v, float) and math.isnan(v)) else int(v)

    channels = sorted({ch_of(r) for r in rows})
    names = {"RRT": "read_rt", "WRT": "write_rt", "WC": "write_count"}

    def value(ch: int, series: str) -> float | None:
        vals = []
        for w in _order([_group_key(r) for r in ok]):
            at = [r for r in ok if ch_of(r) == ch and _group_key(r) == w]
            pr = next((r for r in at if r.get("scheme") == "PR"), None)
            base = next((r for r in at if r.get("scheme") == "Baseline"), None)
            if pr and base:
                v, b = metric(pr, names[series]), metric(base, names[series])
                if v is not None and b:
                    vals.append(v / b)
        return sum(vals) / len(vals) if vals else None

    _bars(ax, channels, list(names), value)
    ax.set_xticklabels([f"{c} channels" for c in channels])
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_ylabel("PR / Baseline (mean over workloads)")


def plot_dominant_lines(ax: Any, fig: Figure, rows: Rows, timelines: Mapping[int, pd.DataFrame], scale: Scale) -> None:
    """Fig. 6a: the mean dominant-pattern share over the workloads against the granule size,
    one line per pattern size (solid: first pattern, dashed: second)."""
    ok = _ok(rows)
    granules = sorted({int(r["variant"]) for r in ok})
    for i, size in enumerate(_order([r.get("scheme") for r in ok])):
        for m, style in (("dominant_first", "-"), ("dominant_second", "--")):
            ys = []
            for g in granules:
                vals = [metric(r, m) for r in ok if r.get("scheme") == size and int(r["variant"]) == g]
                got = [v for v in vals if v is not None]
                ys.append(sum(got) / len(got) if got else float("nan"))
            ax.plot(
                granules,
                ys,
                style,
                color=f"C{i}",
                marker="o",
                label=f"{size} pattern" if m == "dominant_first" else None,
            )
    ax.set_xscale("log", base=2)
    ax.set_xticks(granules, [str(g) for g in granules])
    ax.set_xlabel("granule (bytes)")
    ax.set_ylabel("share of the granule's words")
    _legend(ax)


def plot_config_bars(ax: Any, fig: Figure, rows: Rows, timelines: Mapping[int, pd.DataFrame], scale: Scale) -> None:
    """Fig. 8: the mean saving over the workloads per configuration, in the order run."""
    ok = _ok(rows)
    names = _order([r.get("scheme") for r in ok])
    means = []
    for n in names:
        got = [v for v in (metric(r, "data_saving") for r in ok if r.get("scheme") == n) if v is not None]
        means.append(100 * sum(got) / len(got) if got else 0.0)
    colors = [
        "C1" if str(n).startswith("DPC 128 B, 1x1") else "C0" if str(n).startswith("DPC") else "C2" for n in names
    ]
    ax.bar(range(len(names)), means, color=colors)
    ax.set_xticks(range(len(names)), [str(n).replace("DPC ", "") for n in names], rotation=90, fontsize=5)
    ax.set_ylabel("saving per 16 KiB page (%)")


def plot_count_bars(ax: Any, fig: Figure, rows: Rows, timelines: Mapping[int, pd.DataFrame], scale: Scale) -> None:
    """CAGC Fig. 6: per workload, the shares of dropped pages whose content had count 1, 2 and
    3 or more (stacked)."""
    ok = _ok(rows)
    groups = _order([_group_key(r) for r in rows])
    bottom = [0.0] * len(groups)
    for name, label in (("count1_share", "count 1"), ("count2_share", "count 2"), ("count3plus_share", "count >= 3")):
        ys = []
        for g in groups:
            r = _find(ok, g)
            v = metric(r, name) if r else None
            ys.append(100 * v if v is not None else 0.0)
        ax.bar(range(len(groups)), ys, 0.6, bottom=bottom, label=label)
        bottom = [b + y for b, y in zip(bottom, ys, strict=True)]
    ax.set_xticks(range(len(groups)), [str(g) for g in groups])
    ax.set_ylabel("share of dropped pages (%)")
    ax.axhline(80, color="grey", linestyle="--", linewidth=0.8)
    _legend(ax, fontsize="small")


def plot_gc_cdf(
    ax: Any,
    fig: Figure,
    rows: Rows,
    timelines: Mapping[int, pd.DataFrame],
    scale: Scale,
    cdfs: Mapping[int, pd.DataFrame] | None = None,
) -> None:
    """CAGC Fig. 12: CDF of the response times of the requests that overlapped GC (reads and
    writes together, weighted by their counts), one line per scheme and workload."""
    styles = {"Baseline": "--", "CAGC": "-"}
    groups = _order([_group_key(r) for r in rows])
    for r in _ok(rows):
        df = (cdfs or {}).get(int(r["run"])) if r.get("run") is not None else None
        if df is None or df.empty:
            continue
        n = {op: metric_value(r, f"{op}.during_gc.requests") for op in ("read", "write")}
        xs: set[float] = set(df["latency_us"])
        grid = sorted(xs)
        total = sum(n.values())
        if not total:
            continue
        ys = [0.0] * len(grid)
        for op, weight in n.items():
            part = df[df["op"] == op]
            if part.empty or not weight:
                continue
            lat, cum = list(part["latency_us"]), list(part["cumulative"])
            j, c = 0, 0.0
            for i, x in enumerate(grid):
                while j < len(lat) and lat[j] <= x:
                    c = cum[j]
                    j += 1
                ys[i] += c * weight / total
        color = f"C{groups.index(_group_key(r)) % 10}"
        ax.step(
            grid,
            ys,
            where="post",
            linestyle=styles.get(str(r["scheme"]), ":"),
            color=color,
            label=f"{r['scheme']} {_group_key(r)}",
        )
    ax.set_xscale("log")
    ax.set_xlabel("response time (us)")
    ax.set_ylabel("cumulative share of requests during GC")
    ax.grid(True, alpha=0.3)
    _legend(ax, fontsize="x-small", ncols=2)


def metric_value(row: dict[str, Any], key: str) -> float:
    v = row.get(key)
    return 0.0 if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def plot_victim_bars(ax: Any, fig: Figure, rows: Rows, timelines: Mapping[int, pd.DataFrame], scale: Scale) -> None:
    """CAGC Fig. 13: CAGC over Baseline per victim policy, averaged over the workloads, for
    blocks erased, pages migrated and mean response time."""
    ok = _ok(rows)
    victims = _order([r.get("variant") for r in rows])
    names = {"erases": "erases", "migrations": "migrations", "response time": "overall_rt"}

    def value(v: Any, series: str) -> float | None:
        vals = []
        for w in _order([_group_key(r) for r in ok]):
            x = _normalised([r for r in ok if r.get("variant") == v], w, "CAGC", names[series])
            if x is not None:
                vals.append(x)
        return sum(vals) / len(vals) if vals else None

    _bars(ax, victims, list(names), value)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_ylabel("CAGC / Baseline (mean over workloads)")


PLOTTERS: dict[str, Plotter] = {
    "thermal_timeline": plot_thermal_timeline,
    "pattern_timelines": plot_pattern_timelines,
    "codec_throughput": _series_bars("codec", "throughput"),
    "codec_cpu": _series_bars("codec", "cpu"),
    "rs_sweep": plot_rs_sweep,
    "rs_fill_sweep": plot_rs_fill_sweep,
    "task_share": plot_task_share,
    "normalised_bars": _normalised_bars("throughput", "throughput / Baseline"),
    "ratio_bars": plot_ratio_bars,
    "waf_bars": _absolute_bars("waf"),
    "power_bars": _absolute_bars("power"),
    "corun_bars": plot_corun,
    "variant_bars": _series_bars("variant", "throughput"),
    "read_rt_bars": _normalised_bars("read_rt", "read response time / Baseline"),
    "write_count_bars": _normalised_bars("write_count", "flash programs / Baseline"),
    "overall_rt_bars": _normalised_bars("overall_rt", "response time / Baseline"),
    "read_count_bars": _normalised_bars("read_count", "flash reads / Baseline"),
    "read_energy_bars": _normalised_bars("read_energy", "read energy / Baseline"),
    "conflict_bars": _absolute_bars("conflict_share"),
    "partial_read_bars": _absolute_bars("partial_reads"),
    "partial_zero_bars": _absolute_bars("partial_zero_share"),
    "dominant_lines": plot_dominant_lines,
    "config_bars": plot_config_bars,
    "channel_bars": plot_channel_bars,
    "gc_rt_bars": _normalised_bars("gc_rt", "response time during GC / Baseline"),
    "erase_bars": _absolute_bars("erases"),
    "migration_bars": _absolute_bars("migrations"),
    "count_bars": plot_count_bars,
    "gc_cdf": plot_gc_cdf,
    "victim_bars": plot_victim_bars,
}


def plot_figure(
    fig: Figure,
    table: pd.DataFrame,
    timelines: Mapping[int, pd.DataFrame],
    scale: Scale,
    out_dir: Path,
    *,
    cdfs: Mapping[int, pd.DataFrame] | None = None,
) -> list[Path]:
    """Draw one figure into ``out_dir`` (``<key>.png`` and ``<key>.svg``). With several seeds
    the figure shows the first one (the claims use them all). ``cdfs``: the runs' latency CDFs
    during GC (the ``gc_cdf`` kind)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in _rows(table, fig.key) if replicate(r) == 0]
    mfig, ax = plt.subplots(figsize=(9, 4.8))
    if fig.kind == "gc_cdf":
        plot_gc_cdf(ax, fig, rows, timelines, scale, cdfs)
    else:
        from flashpress.reproduce.papers import get_paper

        {**PLOTTERS, **get_paper(fig.paper).plotters}[fig.kind](ax, fig, rows, timelines, scale)
    bad = [r for r in rows if r.get("status") != "ok"]
    title = f"{fig.key}: {fig.title}"
    if bad:
        title += f"\n({len(bad)} of {len(rows)} runs missing: failed or skipped, see the report)"
    if not _ok(rows):
        ax.text(0.5, 0.5, "no completed runs", ha="center", va="center", transform=ax.transAxes)
    ax.set_title(title, fontsize="medium")
    out_dir.mkdir(parents=True, exist_ok=True)
    return _save(mfig, out_dir, fig.key)


__all__ = ["PLOTTERS", "plot_figure"]
