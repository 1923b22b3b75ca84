"""CAGC's report blocks: Table II beside what the traces did."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from flashpress.reproduce.document import Block, Heading, Paragraph
from flashpress.reproduce.experiments import Figure
from flashpress.reproduce.figures import _bars, _group_key, _ok, _order
from flashpress.reproduce.metrics import metric
from flashpress.reproduce.report import _first_run, _num, _records, _table
from flashpress.reproduce.scale import Scale

if TYPE_CHECKING:
    import pandas as pd

#: The fingerprint-index study's series: (label, metric).
INDEX_SERIES = (("GC time", "gc_time_s"), ("response time", "overall_rt"), ("dedup ratio", "dedup_ratio"))


def plot_index_budget_bars(
    ax: Any, fig: Figure, rows: list[dict[str, Any]], timelines: Mapping[int, pd.DataFrame], scale: Scale
) -> None:
    """Ours: CAGC per fingerprint-index budget, each metric over the whole index's (``index-100%``)
    on the same workload and seed, averaged over the workloads."""
    ok = _ok(rows)
    budgets = _order([r.get("variant") for r in rows])
    names = dict(INDEX_SERIES)

    def value(v: Any, series: str) -> float | None:
        vals = []
        for r in (x for x in ok if x.get("variant") == v):
            base = next(
                (
                    b
                    for b in ok
                    if b.get("variant") == "index-100%"
                    and _group_key(b) == _group_key(r)
                    and b.get("rep") == r.get("rep")
                ),
                None,
            )
            x, b = metric(r, names[series]), metric(base, names[series]) if base else None
            if x is not None and b:
                vals.append(x / b)
        return sum(vals) / len(vals) if vals else None

    _bars(ax, budgets, list(names), value)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_ylabel("over the whole index in DRAM (mean over workloads)")


def table2(table: pd.DataFrame) -> list[Block]:
    """CAGC's Table II beside what the Inline runs of Fig. 2 saw (first seed)."""
    from flashpress.tracegen import TABLE2

    recs = _records(table)
    rows = []
    for name in (*TABLE2, "linux"):
        r = _first_run(recs, "fig2", "Inline", name)
        seed = TABLE2.get(name)
        want = (
            [f"{100 * seed.write_ratio:.1f}%", f"{100 * seed.dedup_ratio:.1f}%", f"{seed.mean_request_kib:.1f}"]
            if seed
            else ["-", "-", "-"]
        )
        if r is None:
            rows.append([name, *want, "not run", "", "", ""])
            continue
        nr, nw = _num(r, "read.requests"), _num(r, "write.requests")
        hashed = _num(r, "dedup.inline_hashed")
        kib = (_num(r, "host_read_bytes") + _num(r, "host_write_bytes")) / max(1.0, nr + nw) / 1024
        rows.append(
            [
                name,
                *want,
                f"{100 * nw / max(1.0, nr + nw):.1f}%",
                f"{100 * _num(r, 'dedup.inline_duplicates') / hashed:.1f}%" if hashed else "-",
                f"{kib:.1f}",
                f"{_num(r, 'dedup.ratio'):.2f}",
            ]
        )
    return [
        Heading(2, "Workloads: Table II beside what the traces did"),
        Paragraph(
            "Seed columns are Table II's (write share of requests, duplicate share, mean request KB); ours are the "
            "Inline-Dedupe runs' (writes among requests, written pages found duplicate on the write path, mean "
            "request KiB, and the dedup ratio at the end: logical pages mapped over pages stored). Requests are "
            "counted as replayed: a generated request split where its file is fragmented counts once per piece, "
            "and trims are not counted."
        ),
        _table(
            ["workload", "seed writes", "seed dedup", "seed KB", "writes", "duplicates", "KiB", "dedup ratio"], rows
        ),
    ]
