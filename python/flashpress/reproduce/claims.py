"""How a seed's statement is checked against our runs: one rule set for every reproduction.

Every :class:`Claim` quotes the seed, names its *kind* and computes our counterpart from the
results table. The kinds and their rules (the same for every seed):

* **ordering** (X above / below Y, a trend): the relative change must have the seed's sign and a
  size outside the *noise band*, which is the larger of 1% and the spread (max - min) of the
  change over repeated runs with different seeds. Inside the band the claim is
  *inconclusive*, never a pass; outside it with the wrong sign it *fails*.
* **magnitude** (a value the seed states): within a factor of 2 of the seed's number, or within
  ±10 points for values the seed gives in percentage points. A stated change ("reduces X by
  23%") is a magnitude *and* an ordering: it holds only when both hold. "Up to X" is scored on
  the largest change across the runs it covers, "on average X" on the mean.
* **size words** ("slightly", "significantly", "comparable", "insignificant") are scored against
  one table of bands, :data:`SIZE_WORDS`, each with its reason.
* **similar** (X about equal to Y): the change must lie inside the tolerance *and* the runs
  must differ at all: two schemes that give bit-identical results because a mechanism never
  fired are *inconclusive* ("mechanism inactive"), never a hold.
* **event** (a throttle, a shutdown): holds when it happens in *every* run the claim covers, and
  within the stated time band when there is one; "never" holds when it happens in no run.
* **bound**: always has a limit, taken from the seed's number.
* **baseline_fact**: a statement about the baseline system itself (when the CCSD throttles
  without any scheme, say), scored by its own rule but allowed to hold in the null model.

Quantifiers mean what they say: "all" is all runs, "lowest" is against every other scheme. A
value our model is fitted to is ``fitted``, and a value the configuration or the code decides
(a value read from the config, a cap the code enforces, a state set at start) is ``by
construction``: both are shown, never scored. A statement no experiment checks yet is ``not
run`` and counts as not holding. A claim that needs a tolerance other than the standard one
says why (``tolerance``) and the report lists it. Checks of our own that the seed does not
state (``ours``) are reported apart from the seed's statements.

Every claim is also scored against a **null result table** (each scheme's metrics replaced by
its baseline's) and a **reversed** one (each scheme's change against its baseline inverted):
:func:`null_check` lists the claims that still hold there, which is a defect unless the claim
is a baseline fact, fitted or by construction.
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
BY_CONSTRUCTION = "by construction"
STATUSES = (HOLDS, FAILS, INCONCLUSIVE, FITTED, NOT_RUN, BY_CONSTRUCTION)
#: Statuses that are shown but never scored.
UNSCORED = (FITTED, BY_CONSTRUCTION)
KINDS = ("ordering", "magnitude", "similar", "event", "bound", "baseline_fact")

#: The noise floor of a relative change (percent): smaller changes are never a pass.
NOISE_FLOOR_PCT = 1.0
#: A magnitude holds within this factor of the seed's number ...
MAGNITUDE_FACTOR = 2.0
#: ... or within this many points when the seed gives percentage points or shares.
MAGNITUDE_POINTS = 10.0


@dataclass(frozen=True)
class SizeBand:
    """What a size word allows of a relative change (percent), and why."""

    #: The largest |change| the word allows (None: no upper limit).
    most: float | None
    #: The smallest |change| it needs (beyond the noise band in any case when a sign is wanted).
    least: float = 0.0
    why: str = ""


#: The size words the seeds use, defined once (a claim whose words carry a size is scored here).
SIZE_WORDS: dict[str, SizeBand] = {
    "slightly": SizeBand(15.0, why="a slight change is at most 15%: above it a reader would say 'by X%'"),
    "significantly": SizeBand(None, 20.0, why="a significant change is at least 20%: a fifth of the reference"),
    "greatly": SizeBand(None, 20.0, why="as 'significantly'"),
    "substantially": SizeBand(None, 20.0, why="as 'significantly'"),
    "much": SizeBand(None, 20.0, why="as 'significantly'"),
    "comparable": SizeBand(10.0, why="comparable values differ by at most 10%"),
    "similar": SizeBand(10.0, why="as 'comparable'"),
    "close": SizeBand(10.0, why="as 'comparable'"),
    "insignificant": SizeBand(3.0, why="an insignificant change is inside the noise band or at most 3%"),
    "negligible": SizeBand(3.0, why="as 'insignificant'"),
}
#: The tolerance of a ``similar`` claim that gives none of its own.
SIMILAR_PCT = SIZE_WORDS["similar"].most or 10.0


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
    #: Why the configuration or the code decides this claim (shown, never scored).
    construction: str | None = None
    #: A check of our own, not a statement of the seed: reported apart, not in the headline.
    ours: bool = False
    #: Why this claim uses a tolerance other than the standard one (listed in the report).
    tolerance: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown claim kind {self.kind!r}")

    @property
    def scored(self) -> bool:
        """Whether the verdict counts (neither fitted nor by construction)."""
        return self.fitted is None and self.construction is None

    def check(self, table: pd.DataFrame, scale: Scale) -> Verdict:
        """The verdict, with a fitted claim's status forced to ``fitted`` and a claim the
        configuration decides to ``by construction``."""
        v = self.evaluate(table, scale)
        if v.status == NOT_RUN:
            return v
        if self.construction is not None:
            return Verdict(BY_CONSTRUCTION, v.measured, f"by construction ({self.construction}); {v.why}", v.seeds)
        if self.fitted is not None:
            return Verdict(FITTED, v.measured, f"fitted ({self.fitted}); {v.why}", v.seeds)
        return v


#: Keyword arguments every claim constructor takes besides its labels (see :func:`marked`).
MARKS = ("fitted", "construction", "baseline_fact", "ours", "tolerance", "cause")


def marked(claim: Claim, **marks: Any) -> Claim:
    """``claim`` with markings: ``fitted="why"``, ``construction="why"``, ``baseline_fact=True``
    (its kind becomes ``baseline_fact``), ``ours=True``, ``tolerance="why"``, ``cause="..."``."""
    unknown = set(marks) - set(MARKS)
    if unknown:
        raise ValueError(f"claim {claim.seed!r}: unknown marking {sorted(unknown)}")
    fact = marks.pop("baseline_fact", False)
    marks = {k: v for k, v in marks.items() if v is not None and v is not False}
    out = replace(claim, **marks)
    return replace(out, kind="baseline_fact") if fact else out


def _split(labels: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A constructor's keyword arguments as (labels, markings)."""
    return {k: v for k, v in labels.items() if k not in MARKS}, {k: v for k, v in labels.items() if k in MARKS}


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


def judge_change(m: Measure, seed_pct: float, text: str, *, points: bool = False) -> Verdict:
    """A stated change: the ordering (the seed's sign, outside the noise band) *and* the size
    (within a factor of 2 of the seed's number, or ±10 points) must both hold. Inside the band
    the claim is inconclusive whatever its size; with the wrong sign it fails."""
    order = judge_ordering(m, seed_pct > 0, text)
    size = judge_magnitude(
        m.value, seed_pct, points=points, unit="%" if not points else " points", seeds=len(m.per_seed)
    )
    if order.status != HOLDS:
        return Verdict(order.status, m.value, f"{order.why}; size {_size_text(m.value, seed_pct, points)}", order.seeds)
    if size.status != HOLDS:
        return Verdict(
            FAILS,
            m.value,
            f"fails: the direction holds ({order.why[7:]}) but the size does not: {size.why[7:]}",
            order.seeds,
        )
    return Verdict(HOLDS, m.value, f"holds: {order.why[7:]}; {size.why[7:]}", order.seeds)


def _size_text(v: float, seed: float, points: bool) -> str:
    if points:
        return f"{v - seed:+.1f} points from the seed's {seed:g}"
    return f"{v / seed:.2f}x the seed's {_pct(seed)}" if seed else "against a seed value of 0"


def judge_word(m: Measure, word: str, want_positive: bool | None, text: str) -> Verdict:
    """A size word (:data:`SIZE_WORDS`): with a sign (``want_positive``) the change must have it
    and lie outside the noise band, and its size must be inside the word's band; without one
    ("comparable", "insignificant") only the band counts, and identical runs prove nothing."""
    band = SIZE_WORDS[word]
    v, n = m.value, len(m.per_seed)
    limits = (f"at least {band.least:g}%" if band.least else "") + (
        f"{' and ' if band.least else ''}at most {band.most:g}%" if band.most is not None else ""
    )
    rule = f"'{word}' means {limits} ({band.why})"
    if want_positive is None:
        if all(x == 0.0 for x in m.per_seed):
            return Verdict(INCONCLUSIVE, v, f"inconclusive: {text} give identical results (mechanism inactive)", n)
        noise = m.band()
        inside = abs(v) <= (band.most if band.most is not None else math.inf) or (
            word in ("insignificant", "negligible") and abs(v) < noise
        )
        status = HOLDS if inside else FAILS
        return Verdict(status, v, f"{status}: {text} {_pct(v)}; {rule}", n)
    order = judge_ordering(m, want_positive, text)
    if order.status != HOLDS:
        return Verdict(order.status, v, f"{order.why}; {rule}", n)
    size = abs(v)
    ok = size >= band.least and (band.most is None or size <= band.most)
    status = HOLDS if ok else FAILS
    return Verdict(status, v, f"{status}: {text} {_pct(v)} is {'' if ok else 'not '}inside the band: {rule}", n)


# -- claim constructors -------------------------------------------------------------------


def _groups(table: pd.DataFrame, figure: str, over: str, labels: Mapping[str, Any]) -> list[Any]:
    return list(dict.fromkeys(r.get(over) for r in ok_rows(table, figure, **labels)))


def change(
    figure: str,
    seed: str,
    seed_pct: float,
    name: str,
    ref: str,
    metric_name: str = "throughput",
    *,
    key: str = "scheme",
    points: bool = False,
    stat: str = "mean",
    over: str | None = None,
    **labels: Any,
) -> Claim:
    """A stated change: the seed reports ``name`` changes ``metric`` by ``seed_pct`` % against
    ``ref`` (points with ``points``). Scored as a magnitude *and* an ordering
    (:func:`judge_change`). ``stat="mean"`` ("on average"): the mean change over the paired runs;
    ``stat="max"`` ("up to X"): the group (one value of the label ``over``) whose change goes
    furthest in the seed's direction."""
    labels, marks = _split(labels)
    if stat not in ("mean", "max"):
        raise ValueError(f"claim {seed!r}: stat must be 'mean' or 'max', got {stat!r}")
    if stat == "max" and over is None:
        raise ValueError(f"claim {seed!r}: an 'up to' claim needs `over`, the label its maximum runs over")

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        if stat == "mean":
            m = changes(table, figure, name, ref, metric_name, key=key, relative=not points, **labels)
            if m is None:
                return missing(f"{name} and {ref}")
            return judge_change(m, seed_pct, f"{name} vs {ref}", points=points)
        assert over is not None
        found: list[tuple[Any, Measure]] = []
        # The groups come from the runs the claim's own labels select (`over` among them).
        for g in _groups(table, figure, over, labels):
            m = changes(table, figure, name, ref, metric_name, key=key, relative=not points, **{**labels, over: g})
            if m is not None:
                found.append((g, m))
        if not found:
            return missing(f"{name} and {ref}")
        sign = 1.0 if seed_pct > 0 else -1.0
        g, best = max(found, key=lambda gm: sign * gm[1].value)
        v = judge_change(best, seed_pct, f"up to: {name} vs {ref} at its largest ({over}={g})", points=points)
        return v

    return marked(Claim(figure, seed, seed_pct, " points" if points else "%", "magnitude", ev), **marks)


def sized(
    figure: str,
    seed: str,
    word: str,
    name: str,
    ref: str,
    metric_name: str = "throughput",
    *,
    higher: bool | None,
    key: str = "scheme",
    **labels: Any,
) -> Claim:
    """A change the seed describes by a size word (:data:`SIZE_WORDS`): ``name`` against ``ref``,
    higher (``higher=True``), lower (``False``) or either (``None``, for "comparable")."""
    labels, marks = _split(labels)
    if word not in SIZE_WORDS:
        raise ValueError(f"claim {seed!r}: unknown size word {word!r} (expected one of {sorted(SIZE_WORDS)})")

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        m = changes(table, figure, name, ref, metric_name, key=key, **labels)
        if m is None:
            return missing(f"{name} and {ref}")
        return judge_word(m, word, higher, f"{name} vs {ref}")

    kind = "similar" if higher is None else "ordering"
    return marked(Claim(figure, seed, None, "%", kind, ev), **marks)


def ordering(
    figure: str, seed: str, name: str, ref: str, metric_name: str, *, higher: bool, key: str = "scheme", **labels: Any
) -> Claim:
    """Ordering without a number: ``name`` above (``higher``) or below ``ref``."""
    labels, marks = _split(labels)

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        m = changes(table, figure, name, ref, metric_name, key=key, **labels)
        if m is None:
            return missing(f"{name} and {ref}")
        return judge_ordering(m, higher, f"{name} vs {ref}")

    return marked(Claim(figure, seed, None, "%", "ordering", ev), **marks)


def similar(
    figure: str,
    seed: str,
    name: str,
    ref: str,
    metric_name: str = "throughput",
    *,
    tol_pct: float = SIMILAR_PCT,
    tol_why: str = SIZE_WORDS["similar"].why,
    because: tuple[str, str] | None = None,
    key: str = "scheme",
    **labels: Any,
) -> Claim:
    """Similar: ``name`` within ``tol_pct`` % of ``ref`` (``tol_why`` says where the tolerance
    comes from; another than the standard 10% is listed as an exception), and the two must differ
    at all: identical results mean the mechanism never fired, which is no evidence
    (inconclusive), unless the seed names the cause (``because``: its words and a metric that
    must be zero in every run of ``name``, e.g. no segment cleaning)."""
    labels, marks = _split(labels)
    if tol_pct != SIMILAR_PCT and "tolerance" not in marks:
        marks["tolerance"] = f"±{tol_pct:g}%: {tol_why}"

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
                INCONCLUSIVE,
                v,
                f"inconclusive: {name} and {ref} give identical results (mechanism inactive: the runs do not differ)",
                n,
            )
        ok = abs(v) <= tol_pct
        return Verdict(
            HOLDS if ok else FAILS,
            v,
            f"{HOLDS if ok else FAILS}: {name} is {_pct(v)} from {ref}, {'inside' if ok else 'outside'} "
            f"±{tol_pct:g}% ({tol_why})",
            n,
        )

    return marked(Claim(figure, seed, 0.0, "%", "similar", ev), **marks)


def magnitude(
    figure: str,
    seed: str,
    seed_value: float,
    unit: str,
    metric_name: str,
    *,
    points: bool = False,
    scale_pct: bool = False,
    agg: str = "mean",
    **labels: Any,
) -> Claim:
    """Magnitude: a value the seed states (mean over the matching runs, or ``agg="max"``)."""
    labels, marks = _split(labels)

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

    return marked(Claim(figure, seed, seed_value, unit, "magnitude", ev), **marks)


#: The old name of a stated change, now scored the same way as :func:`change`.
change_magnitude = change


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

    labels, marks = _split(labels)

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

    return marked(Claim(figure, seed, seed_pct, "%", "bound", ev), **marks)


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

    labels, marks = _split(labels)

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

    return marked(Claim(figure, seed, None, "%", "ordering", ev), **marks)


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

    labels, marks = _split(labels)

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

    return marked(Claim(figure, seed, seed_s, "s", "event", ev, fitted), **marks)


def never(figure: str, seed: str, field: str, what: str, **labels: Any) -> Claim:
    """Event (negated): ``what`` happens in none of the matching runs."""

    labels, marks = _split(labels)

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

    return marked(Claim(figure, seed, 0.0, "runs", "event", ev), **marks)


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

    labels, marks = _split(labels)

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

    return marked(Claim(figure, seed, seed_value, unit, "bound", ev), **marks)


def between(figure: str, seed: str, name: str, low: str, high: str, metric_name: str, **labels: Any) -> Claim:
    """Ordering: ``name`` strictly between ``low`` and ``high`` in the seed's orientation: above
    ``low`` and below ``high`` in ``metric_name``, each by more than the noise band (an end it
    equals is inconclusive). The orientation is the seed's, not read from the runs: otherwise the
    claim would hold just as well with every change reversed."""

    labels, marks = _split(labels)

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        a = changes(table, figure, name, low, metric_name, **labels)
        b = changes(table, figure, name, high, metric_name, **labels)
        if a is None or b is None:
            return missing(f"{name}, {low} and {high}")
        va = judge_ordering(a, True, f"{name} vs {low}")
        vb = judge_ordering(b, False, f"{name} vs {high}")
        statuses = {va.status, vb.status}
        status = FAILS if FAILS in statuses else INCONCLUSIVE if INCONCLUSIVE in statuses else HOLDS
        return Verdict(status, a.value, f"{status}: {va.why}; {vb.why}", len(a.per_seed))

    return marked(Claim(figure, seed, None, "%", "ordering", ev), **marks)


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

    labels, marks = _split(labels)

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

    return marked(Claim(figure, seed, None, "%", "ordering", ev), **marks)


#: A per-run check: ``(holds, detail)``, or None when the run does not show what it needs.
RunTest = Callable[[Mapping[str, Any]], "tuple[bool, str] | None"]


def every_run(
    figure: str, seed: str, what: str, test: RunTest, figures: Sequence[str] | None = None, **labels: Any
) -> Claim:
    """Event over runs: ``what`` (checked by ``test`` on each matching run of ``figures``,
    default ``figure`` alone) happens in *every* run that can show it; a run that cannot (no
    timeline, say) is left out, and a claim no run can show is missing. The measured value is
    the number of runs in which it happens."""

    labels, marks = _split(labels)

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

    return marked(Claim(figure, seed, None, "runs", "event", ev), **marks)


def not_run(
    figure: str, seed: str, kind: str, why: str, seed_value: float | None = None, unit: str = "", **marks: Any
) -> Claim:
    """A statement of the seed no experiment checks yet: listed, counted as not holding."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        return Verdict(NOT_RUN, None, f"not run: {why}")

    return marked(Claim(figure, seed, seed_value, unit, kind, ev), **marks)


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


def headline(counts: Mapping[str, int], ours: Mapping[str, int] | None = None) -> str:
    """The report's first line: the seed's statements and their verdicts (inconclusive and not
    run count as not holding; fitted and by-construction ones are shown apart), then our own
    checks, which are not part of it."""
    statements = sum(counts.values())
    scored = sum(counts[s] for s in STATUSES if s not in UNSCORED)
    share = f" ({100.0 * counts[HOLDS] / scored:.0f}% of {scored} scored)" if scored else ""
    line = (
        f"Seed statements: {statements}; {counts[HOLDS]} hold{share}, {counts[FAILS]} fail, "
        f"{counts[INCONCLUSIVE]} inconclusive, {counts[NOT_RUN]} not run; {counts[FITTED]} fitted and "
        f"{counts[BY_CONSTRUCTION]} by construction (shown, not scored)."
    )
    if ours:
        line += f" Our own checks (not counted above): {sum(ours.values())}, {ours.get(HOLDS, 0)} hold."
    return line


def null_check(paper: str, table: pd.DataFrame, scale: Scale, claims: list[Claim] | None = None) -> list[Any]:
    """The claims that hold although every scheme is replaced by its baseline (or reversed):
    see :func:`flashpress.reproduce.null.null_check`."""
    from flashpress.reproduce.null import null_check as check

    return check(paper, table, scale, claims)


__all__ = [
    "BY_CONSTRUCTION",
    "MARKS",
    "SIZE_WORDS",
    "SizeBand",
    "judge_change",
    "judge_word",
    "marked",
    "null_check",
    "sized",
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
