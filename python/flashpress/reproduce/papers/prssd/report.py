"""PR-SSD's report blocks: Table 2 beside what the workloads did."""

from __future__ import annotations

from typing import TYPE_CHECKING

from flashpress.reproduce.document import Block, Heading, Items, Paragraph
from flashpress.reproduce.metrics import metric
from flashpress.reproduce.report import _cell, _first_run, _num, _records, _table

if TYPE_CHECKING:
    import pandas as pd


def table2(results: pd.DataFrame) -> list[Block]:
    """Table 2 beside what the Baseline runs of Fig. 14 achieved (first seed)."""
    from flashpress.reproduce import testdata
    from flashpress.reproduce.papers.prssd.experiments import TABLE2

    rows, data = [], []
    try:
        images = testdata.images("prssd")
    except OSError:
        images = {}
    recs = _records(results)
    for name, (rr, rkb, wkb, rrand, wrand, saving) in TABLE2.items():
        r = _first_run(recs, "fig14", "Baseline", name)
        if r is None:
            continue
        nr, nw = _num(r, "read.requests"), _num(r, "write.requests")
        got = [
            nr / (nr + nw) if nr + nw else None,
            _num(r, "read.bytes") / nr / 1024 if nr else None,
            _num(r, "write.bytes") / nw / 1024 if nw else None,
            metric(r, "lz4_saving"),
            1 - _num(r, "sequential_reads") / nr if nr else None,
            1 - _num(r, "sequential_writes") / nw if nw else None,
        ]
        rows.append(
            [
                name,
                f"{rr:g} / {_cell(got[0])}",
                f"{rkb:g} / {_cell(got[1])}",
                f"{wkb:g} / {_cell(got[2])}",
                f"{rrand:.2f} / {_cell(got[4])}",
                f"{wrand:.2f} / {_cell(got[5])}",
                f"{saving:.0%} / {_cell(got[3])}",
                _cell(images[name]["zero_blocks"] / images[name]["blocks"]) if name in images else "-",
            ]
        )
        if name in images:
            i = images[name]
            data.append(
                f"{name}: {i['what']}; {i['files']} files, {i['data_bytes'] / 2**20:.1f} MiB in a "
                f"{i['bytes'] / 2**20:.1f} MiB image (SHA-256 {i['sha256'][:12]}...)"
            )
    if not rows:
        return []
    blocks: list[Block] = [
        Heading(2, "Table 2: the seed's workloads beside ours"),
        Paragraph(
            "Seed / achieved (Baseline runs of Fig. 14, first seed). Sizes in KiB (Table 2's KB read as KiB); "
            "a request is random unless it starts where its job's previous request of the same direction "
            "ended (fio's `percentage_random` sets the share); the saving is "
            "LZ4's per 4 KiB block on the data written, as the content model measured it; the last column is "
            "the share of the data's 4 KiB blocks that are all zero (the seed: partial-zero requests 6% on "
            "average, up to 20%, Fig. 6b)."
        ),
        _table(
            [
                "workload",
                "read ratio",
                "read size",
                "write size",
                "read random",
                "write random",
                "LZ4 saving",
                "zero blocks",
            ],
            rows,
        ),
    ]
    if data:
        blocks += [
            Paragraph("The data (ext4 images built by `make testdata` from `testdata/prssd.toml`):"),
            Items(tuple(data)),
        ]
    return blocks
