"""How a seed's statement is checked against our runs: one rule set for every reproduction.

Every :class:`Claim` quotes the seed, names its *kind* and computes our counterpart from the
results table. The kinds and their rules (issue 10 of the project, the same for every seed):

* **ordering** (X above / below Y, a trend): the relative change must have the seed's sign and a
  size outside the *noise band*, which is the larger of 1% and the spread (max - min) of the
  change over repeated runs with different seeds. Inside the band the claim is
  *inconclusive*, never a pass; outside it with the wrong sign it *fails*.
* **magnitude** (a value the seed states): within a factor of 2 of the seed's number, or within
  ±10 points for values the seed gives in percentage points; a claim that needs another
  tolerance carries the reason, which the report prints.
* **similar** (X about equal to Y): the change must lie inside a stated tolerance *and* the
  runs must differ at all (two schemes that are the same configuration prove nothing; a zero
  difference is inconclusive).
* **event** (a throttle, a shutdown): holds when it happens in *every* run the claim covers, and
  within the stated time band when there is one; "never" holds when it happens in no run.
* **bound**: always has a limit, taken from the seed's number.

Quantifiers mean what they say: "all" is all runs, "lowest" is against every other scheme. A
value our model is fitted to is ``fitted``: shown, never scored. A statement no experiment
checks yet is ``not run`` and counts as not holding.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from flashpress.reproduce.metrics import metric, ok_rows, pair_key, replicate

if TYPE_CHECKING:
    import pandas as pd

    from flashpress.reproduce.scale import Scale

HOLDS = "holds"
FAILS = "fails"
INCONCLUSIVE = "inconclusive"
FITTED = "fitted"
NOT_RUN = "not run"
STATUSES = (HOLDS, FAILS, INCONCLUSIVE, FITTED, NOT_RUN)
KINDS = ("ordering", "magnitude", "similar", "event", "bound")

#: The noise floor of a relative change (percent): smaller changes are never a pass.
NOISE_FLOOR_PCT = 1.0
#: A magnitude holds within this factor of the seed's number ...
MAGNITUDE_FACTOR = 2.0
#: ... or within this many points when the seed gives percentage points or shares.
MAGNITUDE_POINTS = 10.0


@dataclass(frozen=True)
class Verdict:
    status: str
    measured: float | None
    why: str
    #: Number of seeds (replicates) the measurement spans.
    seeds: int = 0

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown claim status {self.status!r}")


@dataclass(frozen=True)
class Claim:
    figure: str
    seed: str
    seed_value: float | None
    unit: str
    kind: str
    evaluate: Callable[[pd.DataFrame, Scale], Verdict]
    #: Why our model is fitted to this number (then the claim is shown, never scored).
    fitted: str | None = None
    #: The measured cause when the claim does not hold at the default scale (printed beside a
    #: failing or inconclusive verdict; see the reproduction reports in docs/reproduce/).
    cause: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown claim kind {self.kind!r}")

    def check(self, table: pd.DataFrame, scale: Scale) -> Verdict:
        """The verdict, with a fitted claim's status forced to ``fitted``."""
        v = self.evaluate(table, scale)
        if self.fitted is None or v.status == NOT_RUN:
            return v
        return Verdict(FITTED, v.measured, f"fitted ({self.fitted}); {v.why}", v.seeds)


# -- measurements over replicates ---------------------------------------------------------


@dataclass(frozen=True)
class Measure:
    """A value measured once per seed: the mean over seeds and the spread between them."""

    per_seed: tuple[float, ...]

    @property
    def value(self) -> float:
        return sum(self.per_seed) / len(self.per_seed)

    @property
    def spread(self) -> float | None:
        if len(self.per_seed) < 2:
            return None
        hi, lo = max(self.per_seed), min(self.per_seed)
        # Changes against a zero reference are infinite; equal infinities do not spread.
        return 0.0 if hi == lo else hi - lo

    def band(self, floor: float = NOISE_FLOOR_PCT) -> float:
        """The noise band: ``floor`` or the spread between seeds, whichever is larger."""
        return max(floor, self.spread or 0.0)

    def band_text(self, floor: float = NOISE_FLOOR_PCT, unit: str = "%") -> str:
        n = len(self.per_seed)
        if n == 1:
            return f"noise band ±{floor:g}{unit} (1 seed: spread not measured)"
        return f"noise band ±{self.band(floor):.2g}{unit} (spread over {n} seeds {self.spread:.2g}{unit})"


def by_seed(values: Iterable[tuple[int, float | None]]) -> Measure | None:
    """Mean per seed of ``(seed, value)`` pairs (None values dropped)."""
    groups: dict[int, list[float]] = {}
    for rep, v in values:
        if v is not None and not math.isnan(v):
            groups.setdefault(rep, []).append(v)
    if not groups:
        return None
    return Measure(tuple(sum(vs) / len(vs) for _, vs in sorted(groups.items())))


def changes(
    table: pd.DataFrame,
    figure: str,
    name: str,
    ref: str,
    metric_name: str,
    *,
    key: str = "scheme",
    relative: bool = True,
    **labels: Any,
) -> Measure | None:
    """``metric(name) / metric(ref) - 1`` in percent over paired runs (same labels but ``key``,
    same seed), averaged per seed; with ``relative=False`` the difference in points (x 100, for
    metrics that are fractions). Against a reference of 0 a nonzero value is an infinite change
    of its sign (F2FSC's CPU use against Baseline's none) and 0 is no change."""
    rows = ok_rows(table, figure, **labels)
    refs = {pair_key(r, key): metric(r, metric_name) for r in rows if r.get(key) == ref}
    out: list[tuple[int, float | None]] = []
    for r in rows:
        if r.get(key) != name:
            continue
        base = refs.get(pair_key(r, key))
        v = metric(r, metric_name)
        if base is None or v is None:
            continue
        if not relative:
            out.append((replicate(r), 100.0 * (v - base)))
        elif base > 0:
            out.append((replicate(r), 100.0 * (v / base - 1.0)))
        elif base == 0:
            out.append((replicate(r), math.copysign(math.inf, v) if v else 0.0))
    return by_seed(out)


def values(table: pd.DataFrame, figure: str, metric_name: str, **labels: Any) -> Measure | None:
    """The metric averaged per seed over the matching runs."""
    return by_seed((replicate(r), metric(r, metric_name)) for r in ok_rows(table, figure, **labels))


# -- the rules ----------------------------------------------------------------------------


def _pct(v: float) -> str:
    if math.isinf(v):
        return f"{'+' if v > 0 else '-'}inf% (against 0)"
    return f"{v:+.1f}%"


def missing(what: str) -> Verdict:
    return Verdict(NOT_RUN, None, f"not run: no completed runs of {what}")


def judge_ordering(m: Measure, want_positive: bool, text: str, floor: float = NOISE_FLOOR_PCT) -> Verdict:
    """Sign as wanted and size outside the noise band; inside the band inconclusive."""
    v, band = m.value, m.band(floor)
    n = len(m.per_seed)
    if abs(v) < band:
        return Verdict(INCONCLUSIVE, v, f"inconclusive: {text} {_pct(v)} is inside the {m.band_text(floor)}", n)
    if (v > 0) == want_positive:
        return Verdict(HOLDS, v, f"holds: {text} {_pct(v)}, outside the {m.band_text(floor)}", n)
    return Verdict(FAILS, v, f"fails: {text} {_pct(v)}, the seed's sign is the opposite", n)


def judge_magnitude(measured: float, seed_value: float, *, points: bool, unit: str, seeds: int = 1) -> Verdict:
    """Within a factor of 2 of the seed's number (same sign), or ±10 points."""
    if points:
        ok = abs(measured - seed_value) <= MAGNITUDE_POINTS
        rule = f"within ±{MAGNITUDE_POINTS:g} points of the seed's {seed_value:g}{unit}"
    else:
        ratio = measured / seed_value if seed_value != 0 else math.inf
        ok = 1 / MAGNITUDE_FACTOR <= ratio <= MAGNITUDE_FACTOR
        rule = f"within a factor of {MAGNITUDE_FACTOR:g} of the seed's {seed_value:g}{unit} (ratio {ratio:.2f})"
    status = HOLDS if ok else FAILS
    return Verdict(status, measured, f"{status}: {measured:.3g}{unit} is {'' if ok else 'not '}{rule}", seeds)


# -- claim constructors -------------------------------------------------------------------


def change(
    figure: str,
    seed: str,
    seed_pct: float,
    name: str,
    ref: str,
    metric_name: str = "throughput",
    *,
    key: str = "scheme",
    fitted: str | None = None,
    **labels: Any,
) -> Claim:
    """Ordering: the seed reports ``name`` changes ``metric`` by ``seed_pct`` % against ``ref``.
    The magnitude is shown beside the verdict (ratio to the seed's number), not scored."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        m = changes(table, figure, name, ref, metric_name, key=key, **labels)
        if m is None:
            return missing(f"{name} and {ref}")
        v = judge_ordering(m, seed_pct > 0, f"{name} vs {ref}")
        ratio = m.value / seed_pct if seed_pct else math.nan
        return Verdict(v.status, v.measured, f"{v.why}; size {ratio:.2f}x the seed's {_pct(seed_pct)}", v.seeds)

    return Claim(figure, seed, seed_pct, "%", "ordering", ev, fitted)


def ordering(
    figure: str, seed: str, name: str, ref: str, metric_name: str, *, higher: bool, key: str = "scheme", **labels: Any
) -> Claim:
    """Ordering without a number: ``name`` above (``higher``) or below ``ref``."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        m = changes(table, figure, name, ref, metric_name, key=key, **labels)
        if m is None:
            return missing(f"{name} and {ref}")
        return judge_ordering(m, higher, f"{name} vs {ref}")

    return Claim(figure, seed, None, "%", "ordering", ev)


def similar(
    figure: str,
    seed: str,
    name: str,
    ref: str,
    metric_name: str = "throughput",
    *,
    tol_pct: float,
    tol_why: str,
    because: tuple[str, str] | None = None,
    key: str = "scheme",
    **labels: Any,
) -> Claim:
    """Similar: ``name`` within ``tol_pct`` % of ``ref`` (``tol_why`` says where the tolerance
    comes from), and the two must differ at all: identical results mean the runs cannot tell the
    schemes apart, which is no evidence, unless the seed names the cause (``because``: its words
    and a metric that must be zero in every run of ``name``, e.g. no segment cleaning)."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        m = changes(table, figure, name, ref, metric_name, key=key, **labels)
        if m is None:
            return missing(f"{name} and {ref}")
        v, n = m.value, len(m.per_seed)
        if all(x == 0.0 for x in m.per_seed):
            if because is not None:
                said, field = because
                got = [metric(r, field) for r in ok_rows(table, figure, **{key: name}, **labels)]
                if got and all(g == 0 for g in got):
                    return Verdict(
                        HOLDS,
                        v,
                        f"holds: {name} and {ref} give identical results because {said} "
                        f"({field} is 0 in all {len(got)} run(s)), the cause the seed gives",
                        n,
                    )
            return Verdict(
                INCONCLUSIVE, v, f"inconclusive: {name} and {ref} give identical results (the runs do not differ)", n
            )
        ok = abs(v) <= tol_pct
        return Verdict(
            HOLDS if ok else FAILS,
            v,
            f"{HOLDS if ok else FAILS}: {name} is {_pct(v)} from {ref}, {'inside' if ok else 'outside'} "
            f"±{tol_pct:g}% ({tol_why})",
            n,
        )

    return Claim(figure, seed, 0.0, "%", "similar", ev)


def magnitude(
    figure: str,
    seed: str,
    seed_value: float,
    unit: str,
    metric_name: str,
    *,
    points: bool = False,
    scale_pct: bool = False,
    fitted: str | None = None,
    agg: str = "mean",
    **labels: Any,
) -> Claim:
    """Magnitude: a value the seed states (mean over the matching runs, or ``agg="max"``)."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        rows = ok_rows(table, figure, **labels)
        vals = [(replicate(r), metric(r, metric_name)) for r in rows]
        if agg == "max":
            got = [v for _, v in vals if v is not None]
            m = Measure((max(got),)) if got else None
        else:
            m = by_seed(vals)
        if m is None:
            return missing(_describe(labels))
        v = m.value * (100.0 if scale_pct else 1.0)
        return judge_magnitude(v, seed_value, points=points, unit=unit, seeds=len(m.per_seed))

    return Claim(figure, seed, seed_value, unit, "magnitude", ev, fitted)


def change_magnitude(
    figure: str,
    seed: str,
    seed_pct: float,
    name: str,
    ref: str,
    metric_name: str = "throughput",
    *,
    key: str = "scheme",
    **labels: Any,
) -> Claim:
    """Magnitude of a relative change the seed quantifies (within a factor of 2)."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        m = changes(table, figure, name, ref, metric_name, key=key, **labels)
        if m is None:
            return missing(f"{name} and {ref}")
        return judge_magnitude(m.value, seed_pct, points=False, unit="%", seeds=len(m.per_seed))

    return Claim(figure, seed, seed_pct, "%", "magnitude", ev)


def change_bound(
    figure: str,
    seed: str,
    seed_pct: float,
    name: str,
    ref: str,
    metric_name: str,
    *,
    above: bool,
    key: str = "scheme",
    **labels: Any,
) -> Claim:
    """Bound on a change: the seed says ``name`` changes ``metric`` against ``ref`` by more
    than ``seed_pct`` % (``above``) or by less (a limit, not an approximate value): the mean
    change over the paired runs must be beyond it."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        m = changes(table, figure, name, ref, metric_name, key=key, **labels)
        if m is None:
            return missing(f"{name} and {ref}")
        ok = m.value > seed_pct if above else m.value < seed_pct
        rel = "more" if above else "less"
        status = HOLDS if ok else FAILS
        return Verdict(
            status,
            m.value,
            f"{status}: {name} vs {ref} {_pct(m.value)}, {'' if ok else 'not '}{rel} than the seed's {_pct(seed_pct)}",
            len(m.per_seed),
        )

    return Claim(figure, seed, seed_pct, "%", "bound", ev)


def ordering_each(
    figure: str,
    seed: str,
    name: str,
    ref: str,
    metric_name: str,
    *,
    higher: bool,
    over: str,
    values: Sequence[Any] | None = None,
    key: str = "scheme",
    **labels: Any,
) -> Claim:
    """Ordering in *each* group: ``name`` above (``higher``) or below ``ref`` separately for
    every value of the label ``over`` (every workload, say; ``values`` None: every value the
    figure's runs have), each outside the noise band; a mean over the groups could hide one
    where it does not hold."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        verdicts = []
        groups = values
        if groups is None:
            groups = list(dict.fromkeys(r.get(over) for r in ok_rows(table, figure, **labels)))
        if not groups:
            return missing(f"{name} and {ref}")
        for v in groups:
            m = changes(table, figure, name, ref, metric_name, key=key, **{over: v}, **labels)
            if m is None:
                return missing(f"{name} and {ref} ({over}={v})")
            got = judge_ordering(m, higher, f"{name} vs {ref}")
            verdicts.append(replace(got, why=f"{v}: {got.why}"))
        statuses = {v.status for v in verdicts}
        status = FAILS if FAILS in statuses else INCONCLUSIVE if INCONCLUSIVE in statuses else HOLDS
        worst = max(verdicts, key=lambda v: (v.measured or 0.0) * (-1.0 if higher else 1.0))
        return Verdict(status, worst.measured, f"{status}: " + "; ".join(v.why for v in verdicts), worst.seeds)

    return Claim(figure, seed, None, "%", "ordering", ev)


def _describe(labels: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in labels.items()) or "the figure"


def event(
    figure: str,
    seed: str,
    field: str,
    what: str,
    *,
    seed_s: float | None = None,
    band_s: tuple[float, float] | None = None,
    band_why: str = "",
    fitted: str | None = None,
    **labels: Any,
) -> Claim:
    """Event: ``what`` happens in every matching run (at a time inside ``band_s``, in paper
    seconds, when given). The measured value is the latest time over the runs."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        rows = ok_rows(table, figure, **labels)
        if not rows:
            return missing(_describe(labels))
        times = [metric(r, field) for r in rows]
        hit = [scale.paper_seconds(t) for t in times if t is not None]
        n = len({replicate(r) for r in rows})
        if len(hit) < len(rows):
            t = max(hit) if hit else None
            return Verdict(FAILS, t, f"fails: {what} in {len(hit)} of {len(rows)} run(s); the seed says every run", n)
        lo, hi = min(hit), max(hit)
        span = f"{lo:.0f} s" if lo == hi else f"{lo:.0f}-{hi:.0f} s"
        if band_s is not None and not (band_s[0] <= lo and hi <= band_s[1]):
            return Verdict(
                FAILS,
                hi,
                f"fails: {what} in all {len(rows)} run(s) but at {span} (paper seconds), outside "
                f"{band_s[0]:.0f}-{band_s[1]:.0f} s ({band_why})",
                n,
            )
        inside = "" if band_s is None else f", inside {band_s[0]:.0f}-{band_s[1]:.0f} s ({band_why})"
        return Verdict(HOLDS, hi, f"holds: {what} in all {len(rows)} run(s) at {span} (paper seconds){inside}", n)

    return Claim(figure, seed, seed_s, "s", "event", ev, fitted)


def never(figure: str, seed: str, field: str, what: str, **labels: Any) -> Claim:
    """Event (negated): ``what`` happens in none of the matching runs."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        rows = ok_rows(table, figure, **labels)
        if not rows:
            return missing(_describe(labels))
        hit = [r for r in rows if metric(r, field) is not None]
        n = len({replicate(r) for r in rows})
        if hit:
            ids = ", ".join(str(r["run_id"]) for r in hit)
            return Verdict(FAILS, float(len(hit)), f"fails: {what} in {len(hit)} of {len(rows)} run(s) ({ids})", n)
        return Verdict(HOLDS, 0.0, f"holds: no {what} in any of {len(rows)} run(s)", n)

    return Claim(figure, seed, 0.0, "runs", "event", ev)


def bound(
    figure: str,
    seed: str,
    seed_value: float,
    unit: str,
    metric_name: str,
    *,
    limit: float,
    below: bool,
    limit_why: str,
    scale_pct: bool = False,
    agg: str = "max",
    **labels: Any,
) -> Claim:
    """Bound: the measured value (max over matching runs by default: a bound holds for every
    run) stays at or below (``below``) or at or above ``limit``, which comes from the seed's
    number (``limit_why`` says how)."""
    if not math.isfinite(limit):
        raise ValueError(f"claim {seed!r}: a bound needs a finite limit")

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        rows = ok_rows(table, figure, **labels)
        vals = [v for v in (metric(r, metric_name) for r in rows) if v is not None]
        if not vals:
            return missing(_describe(labels))
        if agg == "max":
            v = max(vals) if below else min(vals)
            what = "max" if below else "min"
        else:
            v, what = sum(vals) / len(vals), "mean"
        if scale_pct:
            v *= 100.0
        ok = v <= limit if below else v >= limit
        rel = ("at most" if ok else "above") if below else ("at least" if ok else "below")
        n = len({replicate(r) for r in rows})
        return Verdict(
            HOLDS if ok else FAILS,
            v,
            f"{HOLDS if ok else FAILS}: {what} {v:.6g}{unit} over {len(vals)} run(s) is {rel} "
            f"{limit:g}{unit} ({limit_why})",
            n,
        )

    return Claim(figure, seed, seed_value, unit, "bound", ev)


def between(figure: str, seed: str, name: str, low: str, high: str, metric_name: str, **labels: Any) -> Claim:
    """Ordering: ``name`` strictly between ``low`` and ``high``: above the lower one and below the
    upper one, each by more than the noise band (an end it equals is inconclusive)."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        a = changes(table, figure, name, low, metric_name, **labels)
        b = changes(table, figure, name, high, metric_name, **labels)
        ends = changes(table, figure, high, low, metric_name, **labels)
        if a is None or b is None or ends is None:
            return missing(f"{name}, {low} and {high}")
        up = ends.value > 0  # is `high` above `low` in our runs?
        va = judge_ordering(a, up, f"{name} vs {low}")
        vb = judge_ordering(b, not up, f"{name} vs {high}")
        statuses = {va.status, vb.status}
        status = FAILS if FAILS in statuses else INCONCLUSIVE if INCONCLUSIVE in statuses else HOLDS
        return Verdict(status, a.value, f"{status}: {va.why}; {vb.why}", len(a.per_seed))

    return Claim(figure, seed, None, "%", "ordering", ev)


def extreme(
    figure: str,
    seed: str,
    name: str,
    rivals: Sequence[str],
    metric_name: str,
    *,
    lowest: bool,
    **labels: Any,
) -> Claim:
    """Ordering: ``name`` is the lowest (or highest) against *every* rival, each by more than the
    noise band."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        verdicts = []
        for r in rivals:
            m = changes(table, figure, name, r, metric_name, **labels)
            if m is None:
                return missing(f"{name} and {r}")
            verdicts.append(judge_ordering(m, not lowest, f"{name} vs {r}"))
        statuses = {v.status for v in verdicts}
        status = FAILS if FAILS in statuses else INCONCLUSIVE if INCONCLUSIVE in statuses else HOLDS
        worst = max(verdicts, key=lambda v: (v.measured or 0.0) * (1.0 if lowest else -1.0))
        return Verdict(status, worst.measured, f"{status}: " + "; ".join(v.why for v in verdicts), worst.seeds)

    return Claim(figure, seed, None, "%", "ordering", ev)


#: A per-run check: ``(holds, detail)``, or None when the run does not show what it needs.
RunTest = Callable[[Mapping[str, Any]], "tuple[bool, str] | None"]


def every_run(
    figure: str, seed: str, what: str, test: RunTest, figures: Sequence[str] | None = None, **labels: Any
) -> Claim:
    """Event over runs: ``what`` (checked by ``test`` on each matching run of ``figures``,
    default ``figure`` alone) happens in *every* run that can show it; a run that cannot (no
    timeline, say) is left out, and a claim no run can show is missing. The measured value is
    the number of runs in which it happens."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        rows = [r for f in (figures or (figure,)) for r in ok_rows(table, f, **labels)]
        checked = [(r, t) for r in rows if (t := test(r)) is not None]
        if not checked:
            return missing(f"{what} ({_describe(labels)})")
        n = len({replicate(r) for r, _ in checked})
        bad = [(r, d) for r, (ok, d) in checked if not ok]
        if bad:
            ids = "; ".join(f"{r['run_id']}: {d}" for r, d in bad[:3])
            more = f" and {len(bad) - 3} more" if len(bad) > 3 else ""
            return Verdict(
                FAILS,
                float(len(checked) - len(bad)),
                f"fails: {what} in {len(checked) - len(bad)} of {len(checked)} run(s); not in {ids}{more}",
                n,
            )
        details = sorted({d for _, (_, d) in checked})
        shown = "; ".join(details[:3]) + (f"; ... ({len(details)} distinct)" if len(details) > 3 else "")
        return Verdict(HOLDS, float(len(checked)), f"holds: {what} in all {len(checked)} run(s) ({shown})", n)

    return Claim(figure, seed, None, "runs", "event", ev)


def not_run(figure: str, seed: str, kind: str, why: str, seed_value: float | None = None, unit: str = "") -> Claim:
    """A statement of the seed no experiment checks yet: listed, counted as not holding."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        return Verdict(NOT_RUN, None, f"not run: {why}")

    return Claim(figure, seed, seed_value, unit, kind, ev)


def with_causes(cs: Sequence[Claim], causes: Mapping[str, str]) -> list[Claim]:
    """``cs`` with the measured cause of each claim that does not hold at the default scale
    attached (keyed by the claim's quote); a cause that names no claim is an error."""
    from dataclasses import replace

    unknown = set(causes) - {c.seed for c in cs}
    if unknown:
        raise ValueError(f"causes name no claim: {sorted(unknown)}")
    return [replace(c, cause=causes[c.seed]) if c.seed in causes else c for c in cs]


def tally(verdicts: Iterable[Verdict]) -> dict[str, int]:
    """Counts per status (every status present, zero when none)."""
    counts = dict.fromkeys(STATUSES, 0)
    for v in verdicts:
        counts[v.status] += 1
    return counts


def headline(counts: Mapping[str, int]) -> str:
    """The report's headline: holds over every scored claim (inconclusive and not run count as
    not holding; fitted ones are shown apart)."""
    scored = sum(counts[s] for s in STATUSES if s != FITTED)
    share = f" ({100.0 * counts[HOLDS] / scored:.0f}%)" if scored else ""
    return (
        f"Claims: {counts[HOLDS]} of {scored} scored claims hold{share}; {counts[FAILS]} fail, "
        f"{counts[INCONCLUSIVE]} inconclusive, {counts[NOT_RUN]} not run; {counts[FITTED]} fitted "
        "(shown, not scored)."
    )


__all__ = [
    "FAILS",
    "FITTED",
    "HOLDS",
    "INCONCLUSIVE",
    "KINDS",
    "NOT_RUN",
    "STATUSES",
    "Claim",
    "Measure",
    "Verdict",
    "between",
    "bound",
    "change",
    "change_magnitude",
    "change_bound",
    "changes",
    "event",
    "extreme",
    "headline",
    "judge_magnitude",
    "judge_ordering",
    "magnitude",
    "never",
    "every_run",
    "not_run",
    "ordering",
    "ordering_each",
    "similar",
    "tally",
    "values",
    "with_causes",
]
