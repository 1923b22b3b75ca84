"""Claims that compare one scheme's change against its reference *between groups* of runs: "the
largest reduction is on Mail", "the improvement on DB is smaller than on the other workloads".
PR-SSD and CAGC both make such statements (the shared rule set's shape for them, beside
:mod:`flashpress.reproduce.claims`).

The measure is the gap, in points, between the change in the named group and the change in each
other group (paired by seed), judged like an ordering: outside the noise band (1 point or the
spread of the gap over seeds) with the seed's sign holds, inside it is inconclusive. Against a
table where the scheme equals its reference every change is 0, so the gap is 0: inconclusive,
never a hold.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from flashpress.reproduce.claims import (
    FAILS,
    HOLDS,
    INCONCLUSIVE,
    MARKS,
    SIZE_WORDS,
    Claim,
    Measure,
    Verdict,
    changes,
    judge_ordering,
    judge_word,
    marked,
    missing,
)
from flashpress.reproduce.metrics import ok_rows

if TYPE_CHECKING:
    import pandas as pd

    from flashpress.reproduce.scale import Scale


def change_gap(
    table: pd.DataFrame,
    figure: str,
    name: str,
    ref: str,
    metric_name: str,
    *,
    over: str,
    at: Any,
    other: Any,
    **labels: Any,
) -> Measure | None:
    """The change of ``name`` against ``ref`` where ``over == at`` minus the change where
    ``over == other``, in points, per seed (seeds present in both)."""
    a = changes(table, figure, name, ref, metric_name, **{over: at}, **labels)
    b = changes(table, figure, name, ref, metric_name, **{over: other}, **labels)
    if a is None or b is None:
        return None
    n = min(len(a.per_seed), len(b.per_seed))
    return Measure(tuple(x - y for x, y in zip(a.per_seed[:n], b.per_seed[:n], strict=True)))


def group_extreme(
    figure: str,
    seed: str,
    name: str,
    ref: str,
    metric_name: str,
    *,
    at: Any,
    largest_drop: bool,
    over: str = "workload",
    over_values: Sequence[Any] | None = None,
    **labels: Any,
) -> Claim:
    """Ordering between groups: the change of ``name`` against ``ref`` in group ``at`` (of the
    label ``over``) is the lowest of every group's (``largest_drop``: the largest reduction) or
    the highest (the smallest reduction), against each other group by more than the noise band.
    ``over_values``: the groups (None: every value the figure's runs have)."""
    marks = {k: labels.pop(k) for k in list(labels) if k in MARKS}

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        groups = list(over_values) if over_values is not None else None
        if groups is None:
            groups = list(dict.fromkeys(r.get(over) for r in ok_rows(table, figure, **labels)))
        others = [g for g in groups if g != at]
        if at not in groups or not others:
            return missing(f"{name} and {ref} in {over}={at} and another {over}")
        verdicts = []
        for g in others:
            m = change_gap(table, figure, name, ref, metric_name, over=over, at=at, other=g, **labels)
            if m is None:
                return missing(f"{name} and {ref} ({over}={at} and {g})")
            v = judge_ordering(m, not largest_drop, f"{at} vs {g}")
            verdicts.append(Verdict(v.status, v.measured, v.why.replace("%", " points"), v.seeds))
        status = _worst(verdicts)
        worst = max(verdicts, key=lambda v: (v.measured or 0.0) * (1.0 if largest_drop else -1.0))
        return Verdict(
            status,
            worst.measured,
            f"{status}: gap in the change of {name} against {ref} ({metric_name}): "
            + "; ".join(v.why for v in verdicts),
            worst.seeds,
        )

    return marked(Claim(figure, seed, None, "points", "ordering", ev), **marks)


def _worst(verdicts: list[Verdict]) -> str:
    statuses = {v.status for v in verdicts}
    return FAILS if FAILS in statuses else INCONCLUSIVE if INCONCLUSIVE in statuses else HOLDS


def gap_sized(
    figure: str,
    seed: str,
    word: str,
    name: str,
    ref: str,
    metric_name: str,
    *,
    over: str,
    at: Sequence[Any],
    other: Any,
    higher: bool | None,
    **marks: Any,
) -> Claim:
    """A size word (:data:`~flashpress.reproduce.claims.SIZE_WORDS`) on the gap between groups:
    the change of ``name`` against ``ref`` in each group of ``at`` against the change in group
    ``other`` (PR-SSD Fig. 17b: PR's normalised read time with 16 channels against 8), in points
    of the normalised value, judged by the word's band; every group of ``at`` must hold."""
    if word not in SIZE_WORDS:
        raise ValueError(f"claim {seed!r}: unknown size word {word!r}")

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        verdicts = []
        for g in at:
            m = change_gap(table, figure, name, ref, metric_name, over=over, at=g, other=other)
            if m is None:
                return missing(f"{name} and {ref} ({over}={g} and {other})")
            v = judge_word(m, word, higher, f"{over} {g} against {other}:")
            verdicts.append(Verdict(v.status, v.measured, v.why.replace("%", " points"), v.seeds))
        status = _worst(verdicts)
        worst = max(verdicts, key=lambda v: abs(v.measured or 0.0))
        why = f"{status}: gap in the change of {name} against {ref} ({metric_name}): " + "; ".join(
            v.why for v in verdicts
        )
        return Verdict(status, worst.measured, why, worst.seeds)

    kind = "similar" if higher is None else "ordering"
    return marked(Claim(figure, seed, None, "points", kind, ev), **marks)


__all__ = ["change_gap", "gap_sized", "group_extreme"]
