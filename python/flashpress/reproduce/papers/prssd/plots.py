"""PR-SSD's plot kinds of its own: our DRAM-budget study (Fig. ``mapcache``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from flashpress.reproduce.figures import _bars, _ok, _order
from flashpress.reproduce.metrics import metric

if TYPE_CHECKING:
    import pandas as pd

    from flashpress.reproduce.experiments import Figure
    from flashpress.reproduce.scale import Scale

#: Series of the budget plot: (label suffix, metric).
_STATS = (("mean", "read_rt"), ("p99", "read_p99"))


def plot_map_budget_bars(
    ax: Any, fig: Figure, rows: list[dict[str, Any]], timelines: Mapping[int, pd.DataFrame], scale: Scale
) -> None:
    """Per DRAM budget (share of S's table), each scheme's mean and p99 read response time
    against the same scheme with the whole table in DRAM, mean over the workloads."""
    from flashpress.reproduce.papers.prssd.experiments import budget_label

    ok = _ok(rows)
    budgets = _order([r.get("variant") for r in ok])
    schemes = _order([r.get("scheme") for r in ok])
    full = budget_label(1.0)

    def value(budget: Any, series: str) -> float | None:
        scheme, stat = series.rsplit(" ", 1)
        name = dict(_STATS)[stat]
        ratios = []
        for r in ok:
            if r.get("scheme") != scheme or r.get("variant") != budget:
                continue
            base = next(
                (
                    b
                    for b in ok
                    if b.get("scheme") == scheme and b.get("variant") == full and b.get("workload") == r.get("workload")
                ),
                None,
            )
            v, b = metric(r, name), metric(base, name) if base else None
            if v is not None and b:
                ratios.append(v / b)
        return sum(ratios) / len(ratios) if ratios else None

    _bars(ax, budgets, [f"{s} {stat}" for stat, _ in _STATS for s in schemes], value)
    ax.set_xticklabels([f"{b[4:]} of S's table" if str(b).startswith("map-") else str(b) for b in budgets])
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_ylabel("read response time / whole table in DRAM")


PRSSD_PLOTTERS = {"map_budget_bars": plot_map_budget_bars}

__all__ = ["PRSSD_PLOTTERS", "plot_map_budget_bars"]
