"""CAGC's report blocks: Table II beside what the traces did."""

from __future__ import annotations

from typing import TYPE_CHECKING

from flashpress.reproduce.document import Block, Heading, Paragraph
from flashpress.reproduce.report import _first_run, _num, _records, _table

if TYPE_CHECKING:
    import pandas as pd


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
