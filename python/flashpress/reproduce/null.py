"""The null model: claims that cannot fail are found by scoring them against results in which
no scheme does anything.

* The **null table** is the results table with each scheme's metrics replaced by those of its
  baseline's run (the same figure and labels but the scheme; the paper's
  :attr:`~flashpress.reproduce.papers.Paper.baselines` name the baseline of each label).
* The **reversed table** inverts each scheme's change against its baseline: a metric ``v``
  whose baseline has ``b`` becomes ``b² / v`` (a relative change ``c`` becomes
  ``1 / (1 + c) - 1``), or ``2b - v`` where either is not positive.

A claim that holds under the null table is a defect (it would hold whatever the schemes did),
and so is one that holds under both the real and the reversed table (it would hold whichever
way the schemes went), unless it is explicitly about the baseline itself (kind
``baseline_fact``), fitted, or decided by the configuration (by construction). A ``similar``
claim is exempt from the reversed table only, where a symmetric tolerance holds both ways.

A figure whose runs have no baseline run (schemes compared with each other only) names the
run its schemes are nulled against in the paper's ``figure_baselines``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flashpress.reproduce.claims import HOLDS, Claim, Verdict
from flashpress.reproduce.experiments import LABEL_KEYS

if TYPE_CHECKING:
    import pandas as pd

    from flashpress.reproduce.scale import Scale

#: Columns that identify a run rather than measure it (never replaced), besides its labels.
ID_COLUMNS = ("figure", "run_id", "run", "status", "error")


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _labels_of(row: Mapping[str, Any], labels: Sequence[str]) -> tuple[Any, ...]:
    return (row.get("figure"), *(None if _missing(row.get(k)) else row.get(k) for k in labels))


def _invert(v: Any, b: Any) -> Any:
    # An event (a time, a count) present in one run and absent in the other swaps sides.
    if _missing(v) or _missing(b):
        return None if not _missing(v) else b
    if not isinstance(v, (int, float)) or not isinstance(b, (int, float)) or isinstance(v, bool):
        return b
    if v > 0 and b > 0:
        return b * b / v
    return 2 * b - v


def _transform(
    table: pd.DataFrame,
    baselines: Mapping[str, Any],
    *,
    reverse: bool,
    per_figure: Mapping[str, Mapping[str, Any]] | None = None,
    labels: Sequence[str] = LABEL_KEYS,
) -> pd.DataFrame:
    import pandas as pd

    if table.empty:
        return table.copy()
    rows = [{str(k): v for k, v in r.items()} for r in table.to_dict("records")]
    measured = [c for c in table.columns if c not in ID_COLUMNS and c not in labels]
    per_figure = per_figure or {}
    ok = {_labels_of(r, labels): r for r in rows if r.get("status") == "ok"}
    out = []
    for r in rows:
        # The baseline of a run: the same figure and labels with the labels that name a scheme
        # set to their baselines (Waltz Fig 4's F2FSC with ZSTD: Baseline without compression).
        bases = per_figure.get(str(r.get("figure")), baselines)
        want = {k: base for k, base in bases.items() if not _missing(r.get(k))}
        if not want or all(r.get(k) == base for k, base in want.items()):
            out.append(r)
            continue
        # The nearest baseline: one label changed if such a run exists, else all of them.
        tries = [{k: v} for k, v in want.items() if r.get(k) != v] + [want]
        ref = next((ok[t] for t in (_labels_of({**r, **w}, labels) for w in tries) if t in ok), None)
        if ref is None:
            out.append(r)
            continue
        new = dict(r)
        for c in measured:
            new[c] = _invert(r.get(c), ref.get(c)) if reverse else ref.get(c)
        out.append(new)
    return pd.DataFrame(out, columns=table.columns)


def null_table(
    table: pd.DataFrame,
    baselines: Mapping[str, Any],
    per_figure: Mapping[str, Mapping[str, Any]] | None = None,
    labels: Sequence[str] = LABEL_KEYS,
) -> pd.DataFrame:
    """``table`` with each scheme's measured columns replaced by its baseline's (``per_figure``:
    figures with baselines of their own; ``labels``: the columns that identify a run)."""
    return _transform(table, baselines, reverse=False, per_figure=per_figure, labels=labels)


def reversed_table(
    table: pd.DataFrame,
    baselines: Mapping[str, Any],
    per_figure: Mapping[str, Mapping[str, Any]] | None = None,
    labels: Sequence[str] = LABEL_KEYS,
) -> pd.DataFrame:
    """``table`` with each scheme's change against its baseline inverted."""
    return _transform(table, baselines, reverse=True, per_figure=per_figure, labels=labels)


@dataclass(frozen=True)
class NullHold:
    """A claim that holds under a table where the schemes do nothing (or the opposite)."""

    claim: Claim
    model: str
    verdict: Verdict

    def __str__(self) -> str:
        return f"[{self.model}] {self.claim.figure}: {self.claim.seed!r}: {self.verdict.why}"


def exempt(claim: Claim) -> bool:
    """Claims allowed to hold under the null model: about the baseline itself, fitted, or by
    construction."""
    return claim.kind == "baseline_fact" or not claim.scored


def null_check(paper: str, table: pd.DataFrame, scale: Scale, claims: list[Claim] | None = None) -> list[NullHold]:
    """The claims of ``paper`` (or ``claims``) that hold under the null or the reversed table
    and are not exempt: each is a claim that cannot fail."""
    from flashpress.reproduce.papers import get_paper

    spec = get_paper(paper)
    cs = spec.claims() if claims is None else claims
    nulled = null_table(table, spec.baselines, spec.figure_baselines, spec.run_labels)
    flipped = reversed_table(table, spec.baselines, spec.figure_baselines, spec.run_labels)
    found: list[NullHold] = []
    for c in cs:
        if exempt(c):
            continue
        v = c.check(nulled, scale)
        if v.status == HOLDS:
            found.append(NullHold(c, "null", v))
            continue
        if c.kind == "similar" or c.check(table, scale).status != HOLDS:
            continue
        v = c.check(flipped, scale)
        if v.status == HOLDS:
            found.append(NullHold(c, "reversed", v))
    return found


__all__ = ["NullHold", "exempt", "null_check", "null_table", "reversed_table"]
