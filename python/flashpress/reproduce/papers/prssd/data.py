"""PR-SSD's data studies (section 3.2): Fig. 6a, how much of a page its dominant patterns cover,
and Fig. 8, the compression of DPC's configurations against LZ4, FPC and BDI, on the workloads'
real data (the ext4 images of ``make testdata``).

Both read 16 KiB pages spread evenly over each image (``Scale.prssd_data_pages`` per workload).
The DPC configurations are sized by :func:`dpc_sizes`, DPC's procedure (our ``dpc`` codec's:
the partial-zero filter over 4 KiB units, per-granule patterns, raw granules when the pattern
does not pay for its header, a length table, the 10% failure rule) with the granule size, the
number of patterns and the pattern size as parameters. With one 1-byte pattern per 128 bytes
it gives the codec's own output length, byte for byte (tested); the other configurations
follow the seed's header accounting (section 3.2: ``k`` patterns of ``s`` bytes and
``ceil(log2(k + 1))`` code bits per ``s``-byte word). LZ4, FPC and BDI are the real codecs,
run by the codec bench on the same pages.
"""

from __future__ import annotations

import functools
import math
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from flashpress.reproduce import testdata

PAGE = 16384
UNIT = 4096
#: Fig. 6a and Fig. 8's axes.
GRANULES = (32, 64, 128, 256, 512, 1024)
PATTERN_BYTES = (1, 2, 4, 8)
PATTERNS = (1, 2)
#: The configuration the seed selects for hardware (and our ``dpc`` codec).
SELECTED = (128, 1, 1)
BASELINE_CODECS = {"lz4": "LZ4", "fpc": "FPC", "bdi": "BDI"}
#: Section 3.2.1: storage compression (LZ4) at 1 KB granularity, against the 16 KB page.
LZ4_1K = "LZ4 1 KiB"
#: Section 4.2.2: dynamic DPC, each page compressed with the DPC configuration that stores it
#: smallest (our reading of "performs different configurations and selects the best one").
DYNAMIC = "DPC dynamic"
#: Fig. 8's reference: every page stored as it is (saving 0), what a codec that does nothing
#: achieves; the null model compares the codecs with it.
STORED = "stored as is"


def config_name(granule: int, patterns: int, pattern_bytes: int) -> str:
    return f"DPC {granule} B, {patterns}x{pattern_bytes} B"


def sample_pages(image: Path, pages: int) -> np.ndarray:
    """``pages`` 16 KiB pages at even steps over ``image`` (all of them if it has fewer)."""
    data = np.fromfile(image, dtype=np.uint8)
    total = len(data) // PAGE
    idx = np.unique(np.linspace(0, total - 1, num=min(pages, total)).astype(np.int64))
    return data[: total * PAGE].reshape(total, PAGE)[idx]


def _granules(pages: np.ndarray, granule: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The granules of the non-zero 4 KiB units (rows), each granule's page, and the number of
    non-zero units per page."""
    units = pages.reshape(len(pages), PAGE // UNIT, UNIT)
    nonzero = units.any(axis=2)
    g = units[nonzero].reshape(-1, granule)
    owner = np.repeat(np.nonzero(nonzero)[0], UNIT // granule)
    return g, owner, nonzero.sum(axis=1)


def _top_counts(granules: np.ndarray, pattern_bytes: int) -> tuple[np.ndarray, np.ndarray]:
    """Per granule: occurrences of its most and second most frequent ``pattern_bytes``-byte word."""
    words = np.ascontiguousarray(granules).view(f"<u{pattern_bytes}")
    rows, width = words.shape
    if rows == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    s = np.sort(words, axis=1).ravel()
    start = np.ones(len(s), dtype=bool)
    start[1:] = s[1:] != s[:-1]
    start[::width] = True  # a run never crosses into the next granule
    begins = np.flatnonzero(start)
    lengths = np.diff(np.append(begins, len(s)))
    row = begins // width
    order = np.lexsort((-lengths, row))
    row, lengths = row[order], lengths[order]
    first_at = np.flatnonzero(np.r_[True, row[1:] != row[:-1]])
    top1 = lengths[first_at]
    second_ok = first_at + 1 < len(row)
    nxt = np.minimum(first_at + 1, len(row) - 1)
    top2 = np.where(second_ok & (row[nxt] == row[first_at]), lengths[nxt], 0)
    return top1, top2


def pattern_counts(pages: np.ndarray, granule: int, pattern_bytes: int) -> tuple[np.ndarray, ...]:
    """Per granule of the non-zero units: its page and its top two word counts; per page: its
    non-zero units (what :func:`dpc_sizes` and :func:`dominant_ratios` need)."""
    if UNIT % granule or granule % pattern_bytes or granule // pattern_bytes < 2:
        raise ValueError(f"no DPC granule of {granule} B with {pattern_bytes} B patterns")
    g, owner, nonzero_units = _granules(pages, granule)
    top1, top2 = _top_counts(g, pattern_bytes)
    return owner, nonzero_units, top1, top2


def dpc_sizes(
    pages: np.ndarray, granule: int, patterns: int, pattern_bytes: int, counts: tuple[np.ndarray, ...] | None = None
) -> np.ndarray:
    """DPC's compressed length of each page (flags byte and zero bitmap included); ``counts``:
    :func:`pattern_counts` of the same pages, granule and pattern size, if already made."""
    if patterns not in (1, 2):
        raise ValueError(f"no DPC configuration with {patterns} patterns (expected 1 or 2)")
    owner, nonzero_units, top1, top2 = counts or pattern_counts(pages, granule, pattern_bytes)
    matched = top1 + (top2 if patterns == 2 else 0)
    width = granule // pattern_bytes
    header = patterns * pattern_bytes + math.ceil(width * math.ceil(math.log2(patterns + 1)) / 8)
    encoded = header + (width - matched) * pattern_bytes
    stored = np.where(encoded < granule, encoded, granule) + (1 if granule <= 255 else 2)  # + length table
    per_page = np.bincount(owner, weights=stored, minlength=len(pages)).astype(np.int64)
    nonzero = nonzero_units.astype(np.int64) * UNIT
    failed = 10 * per_page > 9 * nonzero
    page_header = 1 + math.ceil(PAGE // UNIT / 8)
    return np.where(nonzero == 0, page_header, page_header + np.where(failed, nonzero, per_page))


def saving(sizes: np.ndarray) -> float:
    """1 - stored / input, a page that does not shrink being stored as it is."""
    return 1.0 - float(np.minimum(sizes, PAGE).sum()) / (len(sizes) * PAGE)


def dominant_ratios(
    pages: np.ndarray, granule: int, pattern_bytes: int, counts: tuple[np.ndarray, ...] | None = None
) -> tuple[float, float]:
    """The mean share of a granule's words that are its most and its second most frequent word,
    over the granules of the non-zero 4 KiB units. A word is a pattern only when it occurs at
    least twice in the granule (else a granule of four 8-byte words would always have a 25%
    "dominant pattern")."""
    _, _, top1, top2 = counts or pattern_counts(pages, granule, pattern_bytes)
    width = granule // pattern_bytes
    if not len(top1):
        return 0.0, 0.0
    top1, top2 = np.where(top1 >= 2, top1, 0), np.where(top2 >= 2, top2, 0)
    return float(top1.mean() / width), float(top2.mean() / width)


def _row(figure: str, name: str, workload: str, **values: Any) -> dict[str, Any]:
    return {
        "figure": figure,
        "run_id": f"{name}/{workload}",
        "run": None,
        "status": "ok",
        "error": None,
        "wall_s": None,
        "scheme": name,
        "workload": workload,
        "rep": 0,
        **values,
    }


@functools.lru_cache(maxsize=2)
def _study(
    workloads: tuple[str, ...], pages: int, root: str
) -> tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]]:
    """Fig. 6a's and Fig. 8's rows, from one pass over each workload's sample: the word counts
    of each (granule, pattern size) serve both figures and both pattern counts."""
    from flashpress.codec import codec_bench

    f6: list[dict[str, Any]] = []
    f8: list[dict[str, Any]] = []
    for w in workloads:
        sample = sample_pages(testdata.image("prssd", w), pages)
        best = np.full(len(sample), np.iinfo(np.int64).max, dtype=np.int64)
        for gran in GRANULES:
            for s in PATTERN_BYTES:
                if gran // s < 2:
                    continue
                counts = pattern_counts(sample, gran, s)
                first, second = dominant_ratios(sample, gran, s, counts)
                row = _row("fig6a", f"{s} B", w, dominant_first=first, dominant_second=second, variant=str(gran))
                f6.append({**row, "run_id": f"{s}B/{gran}B/{w}"})
                for k in PATTERNS:
                    sizes = dpc_sizes(sample, gran, k, s, counts)
                    best = np.minimum(best, sizes)
                    f8.append(
                        _row(
                            "fig8",
                            config_name(gran, k, s),
                            w,
                            data_saving=saving(sizes),
                            dpc_granule=gran,
                            dpc_patterns=k,
                            dpc_pattern_bytes=s,
                        )
                    )
        f8.append(_row("fig8", DYNAMIC, w, data_saving=saving(best)))
        f8.append(_row("fig8", STORED, w, data_saving=saving(np.full(len(sample), PAGE))))
        with tempfile.TemporaryDirectory() as tmp:
            f = Path(tmp) / "pages.bin"
            sample.tofile(f)
            bench = codec_bench(f, list(BASELINE_CODECS), ["16k"], progress=False)
            small = codec_bench(f, ["lz4"], ["1k"], progress=False)
        for codec, name in BASELINE_CODECS.items():
            f8.append(_row("fig8", name, w, data_saving=bench.row(codec, "16k")["saving"]))
        f8.append(_row("fig8", LZ4_1K, w, data_saving=small.row("lz4", "1k")["saving"]))
    return tuple(f6), tuple(f8)


def fig6a_rows(workloads: tuple[str, ...], pages: int) -> list[dict[str, Any]]:
    """One row per workload, granule (``variant``) and pattern size (``scheme``)."""
    return [dict(r) for r in _study(tuple(workloads), pages, str(testdata.root()))[0]]


def fig8_rows(workloads: tuple[str, ...], pages: int) -> list[dict[str, Any]]:
    """One row per workload and configuration (``scheme`` label), ``data_saving`` its saving."""
    return [dict(r) for r in _study(tuple(workloads), pages, str(testdata.root()))[1]]


__all__ = ["dominant_ratios", "dpc_sizes", "pattern_counts", "fig6a_rows", "fig8_rows", "sample_pages", "saving"]
