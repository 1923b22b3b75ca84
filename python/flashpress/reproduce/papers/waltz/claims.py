"""What the Waltz seed states, quoted, with the kind of each statement and how it is checked
(the rules are in :mod:`flashpress.reproduce.claims`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from flashpress.reproduce.claims import (
    FAILS,
    HOLDS,
    INCONCLUSIVE,
    SIZE_WORDS,
    Claim,
    Measure,
    Verdict,
    bound,
    by_seed,
    change,
    changes,
    event,
    every_run,
    extreme,
    judge_change,
    judge_magnitude,
    judge_ordering,
    magnitude,
    marked,
    missing,
    never,
    not_run,
    ordering,
    ordering_each,
    similar,
    sized,
    with_causes,
)
from flashpress.reproduce.metrics import metric, ok_rows, replicate
from flashpress.reproduce.papers.waltz.causes import WALTZ_CAUSES
from flashpress.reproduce.papers.waltz.experiments import CONTROLLED_START_C, PERSONALITY_ACCESS, WITH_23C, WITHOUT_23C

if TYPE_CHECKING:
    import pandas as pd

    from flashpress.reproduce.scale import Scale

WRITES = ("seq-write", "rand-write")
READS = ("seq-read", "rand-read")
SEQUENTIAL = tuple(p for p, a in PERSONALITY_ACCESS.items() if a == "sequential")
RANDOM = tuple(p for p, a in PERSONALITY_ACCESS.items() if a == "random")
#: Why FPC is "similar" within ±10%: the seed gives no tolerance for the word.
SIMILAR_WHY = "the seed gives no tolerance for 'similar'; ±10% is our reading"
FIT = "python -m flashpress.thermal_fit fits the `waltz` preset to it"


#: T_hard (°C, Waltz §4.5.2): Waltz_s moves compression to the host at it.
T_HARD_C = 85.0
#: How far below T_hard the hottest timeline row before the first host phase may be: the
#: S.M.A.R.T. poll saw T_hard inside an interval whose end the row records (°C).
T_HARD_SLACK_C = 0.1
#: A "large throughput degradation" (§6.2): the size band of 'significantly' (claims.SIZE_WORDS).
LARGE_DIP_PCT = SIZE_WORDS["significantly"].least
#: Why T_hard is met a little below it (see T_HARD_SLACK_C).
POLL_SLACK = (
    f"T_hard less {T_HARD_SLACK_C:g} °C: the scheduler acts on S.M.A.R.T. polls, so the hottest sampled row "
    "before it acts may sit just below T_hard"
)


def labels_for(fig: str) -> dict[str, Any]:
    """FPC's 'similar to Baseline' is stated for all patterns without SC, for reads with SC."""
    return {"pattern": READS} if fig == "fig15" else {}


def ratio_change(
    seed: str,
    seed_pct: float | None,
    scheme: str,
    patterns: Sequence[str],
    metric_name: str = "throughput",
    *,
    rising: bool = True,
    **marks: Any,
) -> Claim:
    """``metric`` at compression ratio 4 against ratio 2, same scheme, pattern and seed: a stated
    change (size and sign, :func:`judge_change`) when the seed gives ``seed_pct``, else an
    ordering (``rising``)."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        m = _ratio_gain(table, scheme, patterns, metric_name)
        if m is None:
            return missing(f"{scheme}-2 and {scheme}-4")
        text = f"{scheme} {metric_name} at ratio 4 vs ratio 2"
        if seed_pct is None:
            return judge_ordering(m, rising, text)
        return judge_change(m, seed_pct, text)

    kind = "ordering" if seed_pct is None else "magnitude"
    return marked(Claim("fig16", seed, seed_pct, "%", kind, ev), **marks)


def _rs_points(table: pd.DataFrame, figure: str, metric_name: str, fill: float | None = None) -> dict[float, Measure]:
    rows = [r for r in ok_rows(table, figure) if r.get("rs") is not None and (fill is None or r.get("fill") == fill)]
    out: dict[float, Measure] = {}
    for rs in sorted({float(r["rs"]) for r in rows}):
        m = by_seed((replicate(r), metric(r, metric_name)) for r in rows if float(r["rs"]) == rs)
        if m is not None:
            out[rs] = m
    return out


#: Warming by less than this over the start is not counted as heating (the model's noise).
HEAT_TOLERANCE_C = 0.5


def never_heats(figure: str, seed: str, **labels: Any) -> Claim:
    """Event (negated) on runs started hot: the scheme's load never warms the CCSD past its
    start temperature, so it triggers no throttling. A start above the throttle point has the
    throttle on at t = 0 in every scheme; that throttle is the start's, not the scheme's, and
    the verdict says how long it lasted."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        rows = ok_rows(table, figure, **labels)
        if not rows:
            return missing(", ".join(f"{k}={v}" for k, v in labels.items()))
        n = len({replicate(r) for r in rows})
        peaks = [metric(r, "max_c") for r in rows]
        if any(p is None for p in peaks):
            return missing("the runs' peak temperatures")
        hot = [r for r, p in zip(rows, peaks, strict=True) if p > CONTROLLED_START_C + HEAT_TOLERANCE_C]  # type: ignore[operator]
        top = max(peaks)  # type: ignore[type-var]
        held = max(float(r.get("stack.temperature.throttled_s") or 0.0) for r in rows) / scale.time_scale
        if hot:
            ids = ", ".join(str(r["run_id"]) for r in hot)
            return Verdict(
                "fails",
                float(len(hot)),
                f"fails: the CCSD warms past its {CONTROLLED_START_C:g} °C start in {len(hot)} of {len(rows)} "
                f"run(s) ({ids}; peak {top:.1f} °C)",
                n,
            )
        return Verdict(
            HOLDS,
            0.0,
            f"holds: the CCSD never warms past its {CONTROLLED_START_C:g} °C start in any of {len(rows)} run(s) "
            f"(peak {top:.1f} °C, tolerance {HEAT_TOLERANCE_C:g} °C); the throttle the hot start sets at t = 0 "
            f"is released within {held:.0f} s",
            n,
        )

    return Claim(
        figure,
        seed,
        0.0,
        "runs",
        "event",
        ev,
        tolerance=f"{HEAT_TOLERANCE_C:g} °C over the start: the model's noise is not heating",
    )


def rs_trend(figure: str, seed: str, metric_name: str, rising: bool, **marks: Any) -> Claim:
    """Ordering: the metric at the largest RS against the smallest, same fill, per seed."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        rows = [r for r in ok_rows(table, figure) if r.get("rs") is not None]
        if not rows:
            return missing("the RS sweep")
        lo, hi = min(r["rs"] for r in rows), max(r["rs"] for r in rows)
        if lo == hi:
            return missing("two RS sizes")
        a = {replicate(r): metric(r, metric_name) for r in rows if r["rs"] == lo}
        b = {replicate(r): metric(r, metric_name) for r in rows if r["rs"] == hi}
        m = by_seed((k, 100 * (b[k] / a[k] - 1)) for k in a if a[k] and b.get(k) is not None)  # type: ignore[operator]
        if m is None:
            return missing("two RS sizes")
        return judge_ordering(m, rising, f"{metric_name} at RS {hi:.0%} vs RS {lo:.0%}")

    return marked(Claim(figure, seed, None, "%", "ordering", ev), **marks)


def rs_vs_empty(figure: str, seed: str, seed_pct: float, rs: float, **marks: Any) -> Claim:
    """Magnitude: RS ``rs`` is ``seed_pct`` % below the empty partition's throughput (within a
    factor of 2, and outside the noise band)."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        empty = {replicate(r): metric(r, "throughput") for r in ok_rows(table, figure, variant="empty")}
        out = []
        for r in ok_rows(table, figure, rs=rs):
            e, a = empty.get(replicate(r)), metric(r, "throughput")
            if e and a is not None:
                out.append((replicate(r), 100 * (a / e - 1)))
        m = by_seed(out)
        if m is None:
            return missing(f"RS {rs:.0%} and the empty partition")
        return judge_change(m, -seed_pct, f"RS {rs:.0%} vs the empty partition")

    return marked(Claim(figure, seed, -seed_pct, "%", "magnitude", ev), **marks)


def rs_peak(figure: str, seed: str, seed_rs: float, fill: float) -> Claim:
    """Ordering: throughput peaks at ``seed_rs`` (±5 points) on the ``fill`` curve, an interior
    maximum: a curve that still rises at the largest RS swept does not peak there (a last point
    within the noise band of the seed's RS is inconclusive)."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        pts = _rs_points(table, figure, "throughput", fill)
        if len(pts) < 3:
            return missing(f"the RS sweep at fill {fill:.0%}")
        best = max(pts, key=lambda k: pts[k].value)
        last = max(pts)
        n = len(next(iter(pts.values())).per_seed)
        near = abs(best - seed_rs) <= 0.05 + 1e-9
        curve = ", ".join(f"{k:.0%}: {v.value:.3g}" for k, v in pts.items())
        if near and best != last:
            return Verdict(HOLDS, 100 * best, f"holds: peak at RS {best:.0%} (seed {seed_rs:.0%}); {curve}", n)
        if best == last and seed_rs in pts:
            gap = 100 * (pts[last].value / pts[seed_rs].value - 1)
            m = Measure(
                tuple(100 * (a / b - 1) for a, b in zip(pts[last].per_seed, pts[seed_rs].per_seed, strict=True))
            )
            if abs(gap) < m.band():
                return Verdict(
                    INCONCLUSIVE,
                    100 * best,
                    f"inconclusive: highest at the last RS {last:.0%}, {gap:+.1f}% over RS {seed_rs:.0%}, inside "
                    f"the {m.band_text()}; {curve}",
                    n,
                )
        return Verdict("fails", 100 * best, f"fails: peak at RS {best:.0%} (seed {seed_rs:.0%}); {curve}", n)

    return Claim(figure, seed, 100 * seed_rs, "% RS", "ordering", ev)


def rs_knee(figure: str, seed: str, knee: float, **marks: Any) -> Claim:
    """Ordering: the throughput gained per RS point beyond ``knee`` is below a quarter of the gain
    per point up to it ("the benefits diminish beyond 20%")."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        pts = _rs_points(table, figure, "throughput")
        lo, hi = min(pts, default=None), max(pts, default=None)
        if lo is None or hi is None or knee not in pts or not lo < knee < hi:
            return missing(f"RS points around {knee:.0%}")
        below = (pts[knee].value - pts[lo].value) / (100 * (knee - lo))
        above = (pts[hi].value - pts[knee].value) / (100 * (hi - knee))
        ok = above < below / 4
        return Verdict(
            HOLDS if ok else "fails",
            above / below * 100 if below else None,
            f"{'holds' if ok else 'fails'}: {above:.3g} MB/s per RS point beyond {knee:.0%} against {below:.3g} "
            f"up to it (taken to hold below a quarter)",
            len(pts[knee].per_seed),
        )

    return marked(Claim(figure, seed, None, "%", "ordering", ev), **marks)


def _ratio_gain(
    table: pd.DataFrame, scheme: str, patterns: Sequence[str], metric_name: str = "throughput"
) -> Measure | None:
    """``metric`` at ratio 4 against ratio 2 (percent), same scheme, pattern and seed."""
    rows = ok_rows(table, "fig16", scheme=scheme, pattern=tuple(patterns))
    by_key = {(r.get("pattern"), replicate(r)): r for r in rows if r.get("ratio") == 2}
    out = []
    for r4 in (r for r in rows if r.get("ratio") == 4):
        r2 = by_key.get((r4.get("pattern"), replicate(r4)))
        a, b = (metric(r2, metric_name) if r2 else None), metric(r4, metric_name)
        if a and b is not None:
            out.append((replicate(r4), 100 * (b / a - 1)))
    return by_seed(out)


def ratio_sensitivity(seed: str, more: str, less: str, patterns: Sequence[str]) -> Claim:
    """Ordering: ``more`` gains more throughput from ratio 2 to 4 than ``less`` (points)."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        a, b = _ratio_gain(table, more, patterns), _ratio_gain(table, less, patterns)
        if a is None or b is None or len(a.per_seed) != len(b.per_seed):
            return missing(f"{more} and {less} at ratios 2 and 4")
        d = Measure(tuple(x - y for x, y in zip(a.per_seed, b.per_seed, strict=True)))
        return judge_ordering(d, True, f"ratio gain of {more} ({a.value:+.1f}%) minus {less}'s ({b.value:+.1f}%)")

    return Claim("fig16", seed, None, "pp", "ordering", ev)


def across_sc(seed: str, schemes: Sequence[str], metric_name: str = "throughput", *, ref: str | None = None) -> Claim:
    """Ordering across Fig 14 (without SC) and Fig 15 (with SC), same scheme, pattern and seed.
    Without ``ref``: each scheme is slower with SC. With ``ref``: the scheme's gain over ``ref``
    is larger with SC (in points)."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        if ref is None:
            nosc = {
                (r.get("scheme"), r.get("pattern"), replicate(r)): metric(r, metric_name)
                for r in ok_rows(table, "fig14", scheme=tuple(schemes))
            }
            out = []
            for r in ok_rows(table, "fig15", scheme=tuple(schemes)):
                a, b = nosc.get((r.get("scheme"), r.get("pattern"), replicate(r))), metric(r, metric_name)
                if a and b is not None:
                    out.append((replicate(r), 100 * (b / a - 1)))
            m = by_seed(out)
            if m is None:
                return missing("Fig 14 and Fig 15 runs")
            return judge_ordering(m, False, "throughput with SC vs without, averaged over schemes and patterns")
        name = schemes[0]
        gain_sc = changes(table, "fig15", name, ref, metric_name)
        gain = changes(table, "fig14", name, ref, metric_name)
        if gain_sc is None or gain is None or len(gain_sc.per_seed) != len(gain.per_seed):
            return missing(f"{name} and {ref} in Fig 14 and 15")
        d = Measure(tuple(x - y for x, y in zip(gain_sc.per_seed, gain.per_seed, strict=True)))
        return judge_ordering(
            d, True, f"{name}'s gain over {ref} with SC ({gain_sc.value:+.1f}%) minus without ({gain.value:+.1f}%)"
        )

    return Claim("fig15", seed, None, "%", "ordering", ev)


def rs_plateau(figure: str, seed: str, knee: float, *, tol_pct: float) -> Claim:
    """Similar: throughput at the largest RS within ``tol_pct`` % of that at ``knee`` ("beyond it,
    negligible benefit"), and the RS must matter at all below the knee (a flat curve proves
    nothing: then inconclusive)."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        pts = _rs_points(table, figure, "throughput")
        if knee not in pts or len(pts) < 3:
            return missing(f"RS points around {knee:.0%}")
        lo, hi = min(pts), max(pts)
        after = 100 * (pts[hi].value / pts[knee].value - 1)
        before = 100 * (pts[knee].value / pts[lo].value - 1)
        n = len(pts[knee].per_seed)
        if abs(before) < 1.0:
            return Verdict(
                INCONCLUSIVE,
                after,
                f"inconclusive: the RS changes nothing up to {knee:.0%} "
                f"({before:+.1f}%), so a flat tail proves nothing",
                n,
            )
        ok = abs(after) <= tol_pct
        return Verdict(
            HOLDS if ok else "fails",
            after,
            f"{'holds' if ok else 'fails'}: RS {hi:.0%} is {after:+.1f}% against RS {knee:.0%} (inside ±{tol_pct:g}% "
            f"is 'negligible', our reading); {before:+.1f}% from RS {lo:.0%} to {knee:.0%}",
            n,
        )

    return Claim(figure, seed, None, "%", "similar", ev)


# -- shapes of Waltz's own statements -----------------------------------------------------

#: The throttled engine's cut of throughput (percent): ``stack.ccsd.throttle_speed = 0.1`` in the
#: waltz preset, set from the seed's "90% performance degradation caused by temperature" (§3.2.1).
THROTTLE_CUT_PCT = 90.0
#: T_emergency (°C, Waltz §4.3): the CCSD shuts down at it.
T_EMERGENCY_C = 86.0
#: The CCSD's throttle trigger (°C, Waltz §3.1; ``stack.ccsd.throttle_c``).
THROTTLE_C = 76.0


def constant(figure: str, seed: str, value: float, unit: str, what: str, *, construction: str) -> Claim:
    """A value the configuration sets (shown by construction, never scored, once ``figure`` has
    run): ``what`` says where."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        if not ok_rows(table, figure):
            return missing(figure)
        return Verdict(HOLDS, value, f"{what} is {value:g}{unit} in {figure}'s runs")

    return marked(Claim(figure, seed, value, unit, "magnitude", ev), construction=construction)


def active(claim: Claim, figure: str, scheme: str, column: str, what: str, **labels: Any) -> Claim:
    """``claim``, inconclusive ("mechanism inactive") when ``column`` is 0 in every run of
    ``scheme`` in ``figure`` (FPC compressing nothing on the host, say): its runs then are the
    baseline's and prove nothing about the mechanism the seed credits."""
    inner = claim.evaluate

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        rows = ok_rows(table, figure, scheme=scheme, **labels)
        vals = [float(r.get(column) or 0.0) for r in rows]
        v = inner(table, scale)
        if rows and all(x == 0.0 for x in vals):
            return Verdict(
                INCONCLUSIVE,
                v.measured,
                f"inconclusive: mechanism inactive: {scheme} {what} in none of its {len(rows)} run(s) of {figure} "
                f"({column} = 0), so its runs are its baseline's ({v.why})",
                v.seeds,
            )
        return v

    return replace(claim, evaluate=ev)


def on_figure(claim: Claim, figure: str) -> Claim:
    """``claim`` shown under ``figure`` (its evaluation reads another figure's runs)."""
    return replace(claim, figure=figure)


def up_to(figure: str, seed: str, seed_pct: float, name: str, ref: str, patterns: Sequence[str]) -> Claim:
    """ "Up to X": the pattern whose change of ``name`` against ``ref`` goes furthest in the seed's
    direction, scored as a stated change (:func:`judge_change`) on that pattern."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        found = [(p, m) for p in patterns if (m := changes(table, figure, name, ref, "throughput", pattern=p))]
        if not found:
            return missing(f"{name} and {ref}")
        sign = 1.0 if seed_pct > 0 else -1.0
        p, best = max(found, key=lambda pm: sign * pm[1].value)
        return judge_change(best, seed_pct, f"up to: {name} vs {ref} at its largest ({p})")

    return Claim(figure, seed, seed_pct, "%", "magnitude", ev)


def above_below(figure: str, seed: str, name: str, low: str, high: str, metric_name: str) -> Claim:
    """Ordering with the seed's orientation: ``name`` above ``low`` and below ``high``, each outside
    the noise band (the shared :func:`~flashpress.reproduce.claims.between` takes either
    orientation, which a result reversed end to end also satisfies)."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        a = changes(table, figure, name, low, metric_name)
        b = changes(table, figure, name, high, metric_name)
        if a is None or b is None:
            return missing(f"{name}, {low} and {high}")
        va, vb = judge_ordering(a, True, f"{name} vs {low}"), judge_ordering(b, False, f"{name} vs {high}")
        statuses = {va.status, vb.status}
        status = FAILS if FAILS in statuses else INCONCLUSIVE if INCONCLUSIVE in statuses else HOLDS
        return Verdict(status, a.value, f"{status}: {va.why}; {vb.why}", len(a.per_seed))

    return Claim(figure, seed, None, "%", "ordering", ev)


def fold_drop(figure: str, seed: str, fold: float, name: str, ref: str, **labels: Any) -> Claim:
    """A "N x drop": ``ref``'s throughput over ``name``'s, paired per run and averaged per seed,
    within a factor of 2 of ``fold``; and ``name`` must be lower outside the noise band."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        m = changes(table, figure, name, ref, "throughput", **labels)
        if m is None:
            return missing(f"{name} and {ref}")
        order = judge_ordering(m, False, f"{name} vs {ref}")
        if order.status != HOLDS:
            return order
        folds = Measure(tuple(1 / (1 + c / 100) if c > -100 else math.inf for c in m.per_seed))
        size = judge_magnitude(folds.value, fold, points=False, unit="x", seeds=len(m.per_seed))
        return Verdict(size.status, folds.value, f"{size.status}: {ref} is {folds.value:.3g}x {name} ({size.why})")

    return Claim(figure, seed, fold, "x", "magnitude", ev)


def _f2fsc_drop(table: pd.DataFrame, patterns: Sequence[str]) -> Measure | None:
    """F2FSC against no compression in Fig 4, mean over ``patterns`` and codecs (percent)."""
    return changes(table, "fig4", "F2FSC", "Baseline", "throughput", pattern=tuple(patterns))


def smaller_drop(seed: str, patterns: Sequence[str], than: Sequence[str] | None) -> Claim:
    """Ordering of two degradations: F2FSC's drop on ``patterns`` (Fig 4) is smaller than its drop
    on ``than`` or, with ``than`` None, than the throttle's configured cut (Fig 3's 90%). Both
    drops must be drops (F2FSC below no compression outside the noise band), else inconclusive:
    no drop at all is no evidence that one drop is smaller."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        a = _f2fsc_drop(table, patterns)
        b = _f2fsc_drop(table, than) if than is not None else Measure((-THROTTLE_CUT_PCT,))
        if a is None or b is None:
            return missing("F2FSC and no compression in Fig 4")
        for m, what in ((a, "/".join(patterns)), (b, "/".join(than or ("throttle",)))):
            if m.value > -m.band():
                return Verdict(
                    INCONCLUSIVE,
                    a.value,
                    f"inconclusive: F2FSC's {what} change {m.value:+.1f}% is no drop outside the {m.band_text()}",
                    len(a.per_seed),
                )
        bb = b.per_seed if len(b.per_seed) == len(a.per_seed) else b.per_seed * len(a.per_seed)
        d = Measure(tuple(x - y for x, y in zip(a.per_seed, bb, strict=True)))
        other = f"on {'/'.join(than)} ({b.value:+.1f}%)" if than else f"the throttle's configured {b.value:+.0f}%"
        return judge_ordering(d, True, f"F2FSC's drop on {'/'.join(patterns)} ({a.value:+.1f}%) minus its drop {other}")

    return Claim("fig4", seed, None, "points", "ordering", ev)


def comparable_to_throttle(seed: str, patterns: Sequence[str]) -> Claim:
    """'Comparable' (:data:`SIZE_WORDS`: within 10, here points of throughput lost): F2FSC's drop
    on ``patterns`` (Fig 4, mean over codecs) against the throttle's configured 90% cut; a drop
    inside the noise band is no drop (inconclusive)."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        a = _f2fsc_drop(table, patterns)
        if a is None:
            return missing("F2FSC and no compression in Fig 4")
        if a.value > -a.band():
            return Verdict(INCONCLUSIVE, a.value, f"inconclusive: no drop ({a.value:+.1f}%)", len(a.per_seed))
        gap = a.value + THROTTLE_CUT_PCT
        ok = abs(gap) <= 10.0
        status = HOLDS if ok else FAILS
        return Verdict(
            status,
            a.value,
            f"{status}: F2FSC's {'/'.join(patterns)} drop {a.value:+.1f}% is {gap:+.1f} points from the "
            f"throttle's -{THROTTLE_CUT_PCT:g}% ('comparable' read as within 10 points)",
            len(a.per_seed),
        )

    return Claim(
        "fig4",
        seed,
        -THROTTLE_CUT_PCT,
        "%",
        "similar",
        ev,
        tolerance="'comparable' read as within 10 points of throughput lost (both drops are shares of the same "
        "uncompressed throughput)",
    )


def mean_change(
    figure: str, seed: str, seed_pct: float, names: Sequence[str], ref: str, metric_name: str, **labels: Any
) -> Claim:
    """A stated change of a group ("Waltz (Waltz_s and Waltz_p)"): the mean over ``names`` of each
    one's change against ``ref``, per seed, scored as :func:`judge_change`."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        ms = [changes(table, figure, n, ref, metric_name, **labels) for n in names]
        if any(m is None for m in ms) or len({len(m.per_seed) for m in ms if m}) != 1:
            return missing(f"{', '.join(names)} and {ref}")
        per = tuple(sum(xs) / len(xs) for xs in zip(*(m.per_seed for m in ms if m), strict=True))
        parts = ", ".join(f"{n} {m.value:+.1f}%" for n, m in zip(names, ms, strict=True) if m)
        return judge_change(Measure(per), seed_pct, f"mean of {parts} vs {ref}")

    return Claim(figure, seed, seed_pct, "%", "magnitude", ev)


#: "The temperature increases at a slower pace" after the throttle (§3.1): the mean rise from the
#: throttle point to the emergency at most this share of the rise the unthrottled first-order
#: curve would have had over the same 10 °C (a slowdown of at least the 'significantly' band,
#: 20%; the rule was set before the runs were read, the curve's own bending is taken out by the
#: counterfactual).
SLOWER_AT_MOST = 1.0 - SIZE_WORDS["significantly"].least / 100.0


def slows_after_throttle(figure: str, seed: str, **labels: Any) -> Claim:
    """Rate: the CCSD's mean heating rate (°C/s) from the 76 °C throttle to the 86 °C emergency
    against the rate the same device would have had unthrottled. A first-order device heading
    for ``T_inf`` slows near it anyway, so the raw rate after against before proves nothing:
    ``T_inf`` follows from the time to the throttle (``t1``) and the time constant,
    ``T_inf = T_env + (76 - T_env) / (1 - exp(-t1 / tau))``, and unthrottled the device would
    take ``tau ln((T_inf - 76) / (T_inf - 86))`` from 76 to 86 °C. Holds when the measured rate
    is at most :data:`SLOWER_AT_MOST` of that counterfactual in every run."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        rows = ok_rows(table, figure, **labels)
        if not rows:
            return missing(_what(labels))
        ratios, parts = [], []
        for r in rows:
            t1, t2 = _f(r, "stack.temperature.first_throttle_s"), _f(r, "stack.temperature.shutdown_s")
            tau, amb = _f(r, "cfg.tau_s"), _f(r, "cfg.ambient_c")
            env = (amb or 0.0) + (_f(r, "cfg.neighbour_c") or 0.0)
            if t1 is None or t2 is None or tau is None or amb is None or t2 <= t1 or t1 <= 0:
                return Verdict(FAILS, None, f"fails: run {r.get('run_id')} does not throttle and then shut down")
            t_inf = env + (THROTTLE_C - env) / (1.0 - math.exp(-t1 / tau))
            free = tau * math.log((t_inf - THROTTLE_C) / (t_inf - T_EMERGENCY_C))
            after = (T_EMERGENCY_C - THROTTLE_C) / (t2 - t1)
            ratios.append((replicate(r), free / (t2 - t1)))
            before = (THROTTLE_C - env) / t1
            ts = scale.time_scale
            parts.append(
                f"{before * ts:.3f} °C/s before the throttle, {after * ts:.3f} after; unthrottled from "
                f"{THROTTLE_C:g} °C (heading for {t_inf:.1f} °C) {(T_EMERGENCY_C - THROTTLE_C) / free * ts:.3f}"
            )
        m = by_seed(ratios)
        assert m is not None
        worst = max(x for _, x in ratios)
        ok = worst <= SLOWER_AT_MOST
        status = HOLDS if ok else FAILS
        return Verdict(
            status,
            100 * m.value,
            f"{status}: the rise from {THROTTLE_C:g} to {T_EMERGENCY_C:g} °C runs at {100 * worst:.0f}% of the "
            f"unthrottled curve's at most (needs at most {100 * SLOWER_AT_MOST:.0f}%); paper-second rates: "
            f"{'; '.join(dict.fromkeys(parts))}",
            len(m.per_seed),
        )

    return Claim(figure, seed, None, "% of the unthrottled rate", "baseline_fact", ev)


def _what(labels: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in labels.items())


def never_unlike_baseline(
    figure: str,
    seed: str,
    field: str,
    what: str,
    schemes: Sequence[str],
    *,
    below_c: float | None = None,
    **labels: Any,
) -> Claim:
    """Event (negated) that means something only where the baseline has it: ``what`` happens in
    no run of ``schemes`` (and, with ``below_c``, no run of theirs gets that hot), and it happens
    in every Baseline run of the same figure. A window that ends before even Baseline shuts down
    cannot show a scheme preventing it (inconclusive)."""
    inner = never(figure, seed, field, what, scheme=tuple(schemes), **labels)

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        v = inner.evaluate(table, scale)
        if v.status != HOLDS:
            return v
        hot = ""
        if below_c is not None:
            peaks = [p for p in (metric(r, "max_c") for r in ok_rows(table, figure, scheme=tuple(schemes), **labels))]
            if not peaks or any(p is None for p in peaks):
                return missing("the runs' peak temperatures")
            top = max(peaks)  # type: ignore[type-var]
            if top >= below_c:  # type: ignore[operator]
                return Verdict(
                    FAILS, top, f"fails: {v.why[7:]}, but a run peaks at {top:.2f} °C, not below {below_c:g} °C"
                )
            hot = f", peak {top:.2f} °C below {below_c:g} °C"
        base = ok_rows(table, figure, scheme="Baseline", **labels)
        hit = [r for r in base if metric(r, field) is not None and metric(r, field) == metric(r, field)]
        if not base or len(hit) < len(base):
            return Verdict(
                INCONCLUSIVE,
                v.measured,
                f"inconclusive: {v.why[7:]}{hot}, but Baseline has no {what} either in {len(base) - len(hit)} of "
                f"its {len(base)} run(s) of {figure}: the measured window ends before the emergency it would prevent",
                v.seeds,
            )
        return Verdict(HOLDS, v.measured, f"{v.why}{hot}; Baseline has one in all {len(base)} of its runs", v.seeds)

    return replace(inner, evaluate=ev)


def hits_t_hard(figure: str, seed: str, schemes: Sequence[str], **labels: Any) -> Claim:
    """Event: each scheme's hottest run reaches T_hard (within the S.M.A.R.T. poll's slack) and
    stays below the emergency (a device that overheats hits T_hard on its way, which is not the
    scheme's control)."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        parts, ok, n = [], True, 0
        for s in schemes:
            rows = ok_rows(table, figure, scheme=s, **labels)
            peaks = [p for p in (metric(r, "max_c") for r in rows) if p is not None]
            if not peaks:
                return missing(f"{s} in {figure}")
            n = max(n, len({replicate(r) for r in rows}))
            top = max(peaks)
            good = T_HARD_C - T_HARD_SLACK_C <= top < T_EMERGENCY_C
            ok = ok and good
            parts.append(f"{s} peaks at {top:.2f} °C")
        status = HOLDS if ok else FAILS
        return Verdict(
            status,
            None,
            f"{status}: {'; '.join(parts)} (T_hard {T_HARD_C:g} °C less {T_HARD_SLACK_C:g} °C of poll slack, "
            f"below the {T_EMERGENCY_C:g} °C emergency)",
            n,
        )

    return Claim(figure, seed, T_HARD_C, " °C", "event", ev, tolerance=POLL_SLACK)


def majority_on_device(seed: str, schemes: Sequence[str]) -> Claim:
    """Bound per run: the host share of (de)compression is below half in every (scheme, pattern)
    run, and some task did move to the host (else the scheduling never acted: inconclusive).
    Read on Fig 14's runs, the same simulations as Fig 13's, where the null model finds Baseline."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        rows = ok_rows(table, "fig14", scheme=tuple(schemes))
        shares: list[tuple[dict[str, Any], float]] = []
        for r in rows:
            v = metric(r, "host_share")
            if v is None:
                return missing("the host shares")
            shares.append((r, v))
        if not shares:
            return missing("the host shares")
        worst, top = max(shares, key=lambda rs: rs[1])
        n = len({replicate(r) for r in rows})
        if top <= 0:
            return Verdict(
                INCONCLUSIVE, 0.0, "inconclusive: mechanism inactive: no task moves to the host in any run", n
            )
        ok = top < 0.5
        status = HOLDS if ok else FAILS
        return Verdict(
            status,
            100 * top,
            f"{status}: the largest host share is {100 * top:.1f}% ({worst.get('scheme')} {worst.get('pattern')}), "
            f"{'below' if ok else 'not below'} half in all {len(rows)} run(s)",
            n,
        )

    return Claim("fig13", seed, 50.0, "%", "bound", ev)


def ratio_all(seed: str, schemes: Sequence[str], groups: Sequence[Sequence[str]]) -> Claim:
    """Ordering for every scheme and pattern group: throughput at ratio 4 above ratio 2 outside
    the noise band (one that fails fails the claim; else one inside the band leaves it
    inconclusive)."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        vs = []
        for s in schemes:
            for g in groups:
                m = _ratio_gain(table, s, g)
                if m is None:
                    return missing(f"{s} at ratios 2 and 4")
                vs.append(judge_ordering(m, True, f"{s} {'/'.join(g)} ratio 4 vs 2"))
        statuses = {v.status for v in vs}
        status = FAILS if FAILS in statuses else INCONCLUSIVE if INCONCLUSIVE in statuses else HOLDS
        worst = min(vs, key=lambda v: v.measured or 0.0)
        return Verdict(status, worst.measured, f"{status}: " + "; ".join(v.why for v in vs), worst.seeds)

    return Claim("fig16", seed, None, "%", "ordering", ev)


def rs_peak_all(figure: str, seed: str, seed_rs: float, fills: Sequence[float], **marks: Any) -> Claim:
    """:func:`rs_peak` on every fill's curve ("these curves show that the performance peaks at
    20%"): fails when one fails, else inconclusive when one is."""
    parts = [rs_peak(figure, seed, seed_rs, f) for f in fills]

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        vs = [c.evaluate(table, scale) for c in parts]
        statuses = {v.status for v in vs}
        status = next((s for s in (FAILS, INCONCLUSIVE, "not run") if s in statuses), HOLDS)
        text = "; ".join(f"{f:.0%} filled: {v.why}" for f, v in zip(fills, vs, strict=True))
        return Verdict(status, vs[0].measured, f"{status}: {text}", vs[0].seeds)

    return marked(Claim(figure, seed, 100 * seed_rs, "% RS", "ordering", ev), **marks)


def same_without_sc(seed: str) -> Claim:
    """'Waltz_s has the same throughput as TCS because no SC is triggered' (Fig 14): the seed's
    cause holds only if OSA changes something where SC is triggered (Fig 15): two schemes that
    never differ prove nothing about why they agree (inconclusive)."""
    inner = similar(
        "fig14",
        seed,
        "Waltz_s",
        "TCS",
        tol_pct=5.0,
        tol_why="'the same' read as ±5%",
        because=("no SC is triggered", "sc_count"),
    )

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        v = inner.evaluate(table, scale)
        m = changes(table, "fig15", "Waltz_s", "TCS", "throughput")
        if v.status == HOLDS and (m is None or abs(m.value) < m.band()):
            shown = "no Fig 15 runs" if m is None else f"{m.value:+.1f}%, inside the {m.band_text()}"
            return Verdict(
                INCONCLUSIVE,
                v.measured,
                f"inconclusive: mechanism inactive: Waltz_s does not differ from TCS with SC either ({shown}), so "
                f"their agreement without SC says nothing about SC ({v.why})",
                v.seeds,
            )
        return v

    return replace(inner, evaluate=ev)


SCHEMES = ("Baseline", "F2FSC", "FPC", "TCS", "Waltz_s", "Waltz_p")
WALTZ = ("Waltz_s", "Waltz_p")
#: Why FPC's host compression is checked: the seed credits FPC's "selective compression".
FPC_HOST = ("stack.tasks.compress_host_blocks", "compresses a block on the host")
#: Why a claim on a hot-started run's throttle is by construction.
HOT_START = (
    "the Fig 14-19 runs start at 77 °C, above the 76 °C throttle trigger (stack.ccsd.thermal.initial_c), so "
    "the device's own throttling is on at t = 0 in every scheme that keeps it"
)


def _rivals(s: str) -> tuple[str, ...]:
    return tuple(x for x in SCHEMES if x != s)


def _fpc(claim: Claim, figure: str, **labels: Any) -> Claim:
    return active(claim, figure, "FPC", FPC_HOST[0], FPC_HOST[1], **labels)


def section3_claims() -> list[Claim]:
    """§1-§3 and §5: the empirical study on the CCSD and F2FS (Figs 3, 4, 5, 9, 11)."""
    fig3: dict[str, Any] = {"key": "variant", "baseline_fact": True}
    return [
        # -- §3.1, Fig 3 and §1 ----------------------------------------------------------
        magnitude(
            "fig3",
            "§3.1: without compression, 'the CCSD temperature increases slowly and saturates at 60°C'",
            60.0,
            " °C",
            "max_c",
            agg="max",
            fitted="the thermal resistance r_c_per_w; " + FIT,
            variant=WITHOUT_23C,
        ),
        sized(
            "fig3",
            "§3.1: 'when compression is enabled, the temperature increases at a much faster pace' (peak over the run)",
            "much",
            WITH_23C,
            WITHOUT_23C,
            "max_c",
            higher=True,
            fitted="both peaks are fit targets: the 86 °C emergency the throttled engine's power is fitted to reach "
            "and the 60 °C plateau r_c_per_w is fitted to; " + FIT,
            **fig3,
        ),
        slows_after_throttle(
            "fig3",
            "§3.1: 'When the temperature reaches 76°C, the temperature increases at a slower pace because the "
            "in-CCSD overheating protection kicks in and throttles the throughput' (°C/s from 76 to 86 °C against "
            "the unthrottled curve's)",
            variant=WITH_23C,
        ),
        event(
            "fig3",
            "§3.1: 'the CCSD temperature still increases despite a reduction in compression activities. When the "
            "temperature reaches 86°C, the CCSD faces a thermal emergency and shuts down the device'",
            "shutdown_s",
            "shutdown",
            fitted="the throttled engine's power, so that the throttled device still reaches 86 °C; " + FIT,
            variant=WITH_23C,
        ),
        event(
            "fig3",
            "§1: 'A CCSD may be overheated with ordinary write operations in about eight minutes' (about 480 s "
            "to the 76 °C throttle)",
            "first_throttle_s",
            "throttling",
            seed_s=480.0,
            band_s=(240.0, 960.0),
            band_why="a factor of 2 around the seed's eight minutes",
            fitted="the thermal time constant tau_s (§1's eight minutes at ratio 1, as Fig 3 writes); " + FIT,
            variant=WITH_23C,
        ),
        event(
            "fig3",
            "§3.1: 16 °C machine room, a rack of four CCSDs: 'We observe the throughput throttling in 420s'",
            "first_throttle_s",
            "throttling",
            seed_s=420.0,
            fitted="the rack's neighbour heating neighbour_c; " + FIT,
            variant="W/ Compr. (16 °C rack)",
        ),
        sized(
            "fig3",
            "§3.1: the rack's 420 s is 'only slightly better than that in Fig. 3'",
            "slightly",
            "W/ Compr. (16 °C rack)",
            WITH_23C,
            "first_throttle_s",
            higher=True,
            fitted="both ends follow fit targets: the rack's 420 s (neighbour_c) and the eight minutes the time "
            "constant tau_s is fitted to; " + FIT,
            **fig3,
        ),
        every_run(
            "fig3",
            "§1: once throttled, 'the device-side compression is temporarily closed. A system restart is required "
            "to re-enable the device-side compression'",
            "the throttle never lifts while the device runs",
            stays_throttled,
            figures=("fig3", "fig12"),
            fitted="the throttled engine's power is fitted so that the throttled device keeps heating to 86 °C, so "
            "it never cools to the 70 °C release (stack.ccsd.throttle_release_c); " + FIT,
        ),
        constant(
            "fig3",
            "§2.2: throttling 'will significantly reduce (de)compression throughput'",
            100.0 - THROTTLE_CUT_PCT,
            "% speed",
            "the throttled engine's speed (stack.ccsd.throttle_speed)",
            construction="the waltz preset throttles the engine to 10% of its speed (stack.ccsd.throttle_speed = 0.1)",
        ),
        constant(
            "fig3",
            "§3.2.1: 'the 90% performance degradation caused by temperature, as described in Fig. 3'",
            -THROTTLE_CUT_PCT,
            "%",
            "the throttled engine's cut",
            construction="stack.ccsd.throttle_speed = 0.1 in the waltz preset is set from this sentence",
        ),
        sized(
            "fig3",
            "§2.2: hardware engines 'reduce the compression latency to about 10 microseconds with negligible impact "
            "on performance' (write throughput before the first throttle, with against without the engine)",
            "negligible",
            WITH_23C,
            WITHOUT_23C,
            "before_throttle",
            higher=None,
            **fig3,
        ),
        # -- §3.2.1, Fig 4 and §1 ---------------------------------------------------------
        ordering_each(
            "fig4",
            "§3.2.1: 'the throughput degrades under all workloads, due to (de)compression overhead'",
            "F2FSC",
            "Baseline",
            "throughput",
            higher=False,
            over="pattern",
        ),
        change(
            "fig4",
            "§3.2.1: 'On average, the throughput decreases by 87.6% ... for sequential ... write workloads'",
            -87.6,
            "F2FSC",
            "Baseline",
            pattern="seq-write",
        ),
        change(
            "fig4",
            "§3.2.1: 'On average, the throughput decreases by ... 97.7% for ... random write workloads'",
            -97.7,
            "F2FSC",
            "Baseline",
            pattern="rand-write",
        ),
        fold_drop(
            "fig4",
            "§1: 'a throughput degradation, especially for random writes, which experiences a 50x performance drop'",
            50.0,
            "F2FSC",
            "Baseline",
            pattern="rand-write",
        ),
        comparable_to_throttle(
            "§3.2.1: the write degradation 'is comparable to the 90% performance degradation caused by temperature' "
            "(mean over both write patterns)",
            WRITES,
        ),
        similar(
            "fig4",
            "§3.2.1: 'The difference between different compression algorithms is small' (ZSTD vs LZ4)",
            "ZSTD",
            "LZ4",
            key="codec",
        ),
        similar(
            "fig4",
            "§3.2.1: 'The difference between different compression algorithms is small' (LZO vs LZ4)",
            "LZO",
            "LZ4",
            key="codec",
        ),
        smaller_drop(
            "§3.2.1: 'read workloads exhibit a smaller throughput degradation than write workloads'", READS, WRITES
        ),
        change(
            "fig4",
            "§3.2.1: reads degrade by '61.4% ... on average for sequential' read workloads",
            -61.4,
            "F2FSC",
            "Baseline",
            pattern="seq-read",
        ),
        change(
            "fig4",
            "§3.2.1: reads degrade by '48.0% on average for ... random read workloads'",
            -48.0,
            "F2FSC",
            "Baseline",
            pattern="rand-read",
        ),
        smaller_drop(
            "§3.2.1: 'host-side decompression results in a smaller throughput reduction than the "
            "overheating-induced throttling described in § 3.1'",
            READS,
            None,
        ),
        not_run(
            "fig4",
            "§3.2.1: 'We also evaluate BTRFS with compression and observe similar results'",
            "similar",
            "flashpress models F2FS's compression, not BTRFS's",
        ),
        # -- §3.2.2, Fig 5 -----------------------------------------------------------------
        change(
            "fig5",
            "§3.2.2: 'the execution with LZ4 exhibits an average of 19.5% CPU usage increase over the one without "
            "compression' (percentage points)",
            19.5,
            "LZ4",
            "W/o Compr.",
            "cpu",
            key="codec",
            points=True,
        ),
        ordering_each(
            "fig5",
            "§3.2.2: 'Different algorithms exhibit non-negligible differences in CPU utilization. For example, the "
            "ZSTD compression requires more CPU cycles than LZ4 for sequential read and write workloads'",
            "ZSTD",
            "LZ4",
            "cpu",
            higher=True,
            over="pattern",
            values=("seq-write", "seq-read"),
            key="codec",
        ),
        magnitude(
            "fig5",
            "§3.2.2: 'the memory footprint for host-side compression is the size of the cluster times the number of "
            "threads, i.e., 16KB x 8 = 128KB'",
            128 * 1024,
            " B",
            "buffer_peak",
            agg="max",
            construction="the buffer is the configured cluster (4 x 4 KiB) times the tasks in flight, which the "
            "configured threads decide",
            scheme="F2FSC",
            pattern=WRITES,
        ),
        # -- §5.1 Fig 9, §6.1 Fig 11, §5.2 --------------------------------------------------
        rs_trend(
            "fig9",
            "§5.1: 'With increasing RS space, the WAF factor decreases'",
            "waf",
            rising=False,
            baseline_fact=True,
        ),
        rs_trend("fig9", "§5.1: '... while the throughput improves'", "throughput", rising=True, baseline_fact=True),
        rs_knee(
            "fig9",
            "§5.1: 'the benefits diminish when the RS space increases beyond 20% of the space'",
            0.20,
            baseline_fact=True,
            tolerance="'diminish' read as a gain per RS point beyond 20% below a quarter of the gain per point "
            "up to it",
        ),
        rs_vs_empty(
            "fig9",
            "§5.1: 'only a 3.1% difference for throughput between allocation 20%S and the empty scheme'",
            3.1,
            0.20,
            baseline_fact=True,
        ),
        rs_peak_all(
            "fig11",
            "§6.1: 'These curves show that the performance peaks when the RS size ratio is 20%' (80%, 90% and "
            "100% filled; 100% read as 99%)",
            0.20,
            (0.8, 0.9, 0.99),
            baseline_fact=True,
            tolerance="the peak within ±5 RS points of 20% (the sweep's step), an interior maximum",
        ),
    ]


def section6_claims() -> list[Claim]:
    """§6 (and the results §1 and the abstract restate): Figs 12-19."""
    c: list[Claim] = [
        # -- §6.2, Fig 12 ----------------------------------------------------------------
        event(
            "fig12",
            "§6.2: 'Baseline encounters the overheating problem and shuts down the SSD under all workloads'",
            "shutdown_s",
            "shutdown",
            baseline_fact=True,
            scheme="Baseline",
        ),
        event(
            "fig12",
            "§6.2: 'the CCSD gets overheated in 582 seconds under a sequential write workload'",
            "first_throttle_s",
            "throttling at 76 °C",
            seed_s=582.0,
            band_s=(291.0, 1164.0),
            band_why="a factor of 2 around the seed's 582 s (a prediction: the fit is §3.1's, at ratio 1)",
            baseline_fact=True,
            scheme="Baseline",
            pattern="seq-write",
        ),
        never_unlike_baseline(
            "fig12",
            "§6.2: 'Waltzs and Waltzp are effective in controlling the SSD temperatures — neither is CCSD overheated "
            "nor is it shut down with these schemes' (below the 86 °C emergency, no shutdown)",
            "shutdown_s",
            "shutdown",
            WALTZ,
            below_c=T_EMERGENCY_C,
        ),
        bound(
            "fig12",
            "§6.2: 'The temperatures of Waltzs are not higher than T_soft=76°C when processing read I/Os'",
            76.0,
            " °C",
            "max_c",
            limit=76.5,
            below=True,
            limit_why="the seed's 76 °C plus 0.5 °C: the scheduler sees the temperature at its S.M.A.R.T. polls",
            tolerance="76 °C plus 0.5 °C: the scheduler sees the temperature only at its S.M.A.R.T. polls",
            scheme="Waltz_s",
            pattern=READS,
        ),
        hits_t_hard(
            "fig12",
            "§6.2: 'Waltzp continuously uses CCSD to decompress and thus the CCSD temperature may hit T_hard' (reads)",
            ("Waltz_p",),
            pattern=READS,
        ),
        hits_t_hard(
            "fig12",
            "§6.2: 'The CCSD temperatures can hit T_hard for either scheme with write I/Os'",
            WALTZ,
            pattern=WRITES,
        ),
        # -- §6.2, Fig 13 (read on Fig 14's runs: the same simulations, beside Baseline) ------
        majority_on_device(
            "§6.2: 'CCSD performs the majority of the (de)compression activities for all four types of workload'",
            WALTZ,
        ),
        on_figure(
            magnitude(
                "fig14",
                "§6.2: 'On average, only 16.0% of (de)compression tasks are scheduled on the host side' (Waltz_s, "
                "the scheme that moves tasks to the host: Waltz_p skips compression instead)",
                16.0,
                "%",
                "host_share",
                points=True,
                scale_pct=True,
                scheme="Waltz_s",
            ),
            "fig13",
        ),
        on_figure(
            active(
                magnitude(
                    "fig14",
                    "§6.2: 'for write-only I/Os, on average, 99.3% of compression tasks are scheduled on the device "
                    "side' (Waltz_s)",
                    99.3,
                    "%",
                    "device_compress_share",
                    points=True,
                    scale_pct=True,
                    scheme="Waltz_s",
                    pattern=WRITES,
                ),
                "fig14",
                "Waltz_s",
                "stack.tasks.compress_host_blocks",
                "moves a compression to the host",
                pattern=WRITES,
            ),
            "fig13",
        ),
        on_figure(
            magnitude(
                "fig14",
                "§6.2: 'Waltzp ... misses 34.7% compression opportunities on average' (write patterns)",
                34.7,
                "%",
                "missed_compression",
                points=True,
                scale_pct=True,
                scheme="Waltz_p",
                pattern=WRITES,
            ),
            "fig13",
        ),
        # -- §6.3.1, Fig 14 --------------------------------------------------------------
        change(
            "fig14",
            "§6.3.1: F2FSC 'on average 67% write throughput degradation' vs Baseline (without SC)",
            -67.0,
            "F2FSC",
            "Baseline",
            pattern=WRITES,
        ),
        change(
            "fig14",
            "§6.3.1: F2FSC '367% read throughput improvement' vs Baseline (without SC)",
            367.0,
            "F2FSC",
            "Baseline",
            pattern=READS,
        ),
        marked(
            event(
                "fig14",
                "§6.3.1: 'FPC is not temperature-aware and thus inevitably triggers throttling'",
                "first_throttle_s",
                "throttling",
                scheme="FPC",
            ),
            construction=HOT_START,
        ),
        similar(
            "fig14", "§6.3.1: 'FPC achieves a similar performance compared to that of the Baseline'", "FPC", "Baseline"
        ),
        never(
            "fig14",
            "§6.3.1: 'The temperature-aware TCS achieves large throughput improvements by eliminating throttling'",
            "first_throttle_s",
            "throttling",
            construction="the device's own throttling is off for TCS, Waltz_s and Waltz_p "
            "(Policy::host_managed_thermal): their scheduler manages the temperature",
            scheme="TCS",
        ),
        never_heats(
            "fig14",
            "§6.1: with F2FSC 'the CCSD throttling is not triggered and there is no overheating problem'",
            scheme="F2FSC",
        ),
        change(
            "fig14",
            "§6.3.1: 'On average, the write throughput of TCS improves by 391.5%' over the Baseline",
            391.5,
            "TCS",
            "Baseline",
            pattern=WRITES,
        ),
        change(
            "fig14",
            "§6.3.1: '... while the read throughput improves by 627% over the Baseline'",
            627.0,
            "TCS",
            "Baseline",
            pattern=READS,
        ),
        up_to(
            "fig14",
            "§1: TCS 'delivers substantial write ... throughput improvements of up to 391.5% ... over the baseline'",
            391.5,
            "TCS",
            "Baseline",
            WRITES,
        ),
        up_to(
            "fig14",
            "§1: TCS 'delivers substantial ... read throughput improvements of up to ... 627% over the baseline'",
            627.0,
            "TCS",
            "Baseline",
            READS,
        ),
        marked(
            same_without_sc("§6.3.1: 'Waltzs has the same throughput as the TCS because no SC is triggered'"),
            construction="Waltz_s is TCS plus OSA, and OSA grows the reserved space only on segment cleaning "
            "(F_sc, F_C), of which there is none without SC",
        ),
        extreme(
            "fig14",
            "§6.3.1: 'Waltzp achieves the best improvements'",
            "Waltz_p",
            _rivals("Waltz_p"),
            "throughput",
            lowest=False,
        ),
        change(
            "fig14",
            "§6.3.1: 'On average, the throughput of Waltzp is 13.9% higher than that of Waltzs'",
            13.9,
            "Waltz_p",
            "Waltz_s",
        ),
        # -- §6.3.2, Fig 15 --------------------------------------------------------------
        across_sc(
            "§6.3.2: 'Waltzp achieves larger throughput improvements compared to the setting without SC' "
            "(over Baseline)",
            ("Waltz_p",),
            ref="Baseline",
        ),
        marked(
            across_sc(
                "§6.3.2: 'SC operations block user requests and degrade the system performance' (with SC vs "
                "without, every scheme)",
                SCHEMES,
            ),
            baseline_fact=True,
        ),
        change(
            "fig15",
            "§6.3.2: 'the write throughput of F2FSC decreases by 65.5%' over the Baseline (with SC)",
            -65.5,
            "F2FSC",
            "Baseline",
            pattern=WRITES,
        ),
        change(
            "fig15",
            "§6.3.2: '... while the read throughput improves by 407.5% over the Baseline'",
            407.5,
            "F2FSC",
            "Baseline",
            pattern=READS,
        ),
        similar(
            "fig15",
            "§6.3.2: 'FPC ignores the space saved by compression and thus fails to reduce the SC overhead' "
            "(segment cleanings, FPC vs Baseline)",
            "FPC",
            "Baseline",
            "sc_count",
        ),
        similar(
            "fig15",
            "§6.3.2: 'FPC achieves a similar read throughput as that of the Baseline'",
            "FPC",
            "Baseline",
            pattern=READS,
        ),
        change(
            "fig15",
            "§6.3.2: 'Compared to the Baseline, the write throughput of TCS is improved by 270%'",
            270.0,
            "TCS",
            "Baseline",
            pattern=WRITES,
        ),
        change(
            "fig15",
            "§6.3.2: '... and the read throughput is improved by 689.5% on average'",
            689.5,
            "TCS",
            "Baseline",
            pattern=READS,
        ),
        change(
            "fig15",
            "§6.3.2: 'The write throughput of Waltzs is improved by 95.5% compared to that of TCS'",
            95.5,
            "Waltz_s",
            "TCS",
            pattern=WRITES,
        ),
        change(
            "fig15",
            "§6.3.2: 'Compared to Waltzs, the throughput of Waltzp is improved by 23.6%'",
            23.6,
            "Waltz_p",
            "Waltz_s",
        ),
        up_to(
            "fig15",
            "§1: 'Waltz ... achieving up to 95.5% ... higher write throughput than the TCS scheme ... when segment "
            "cleaning operations are activated'",
            95.5,
            "Waltz_s",
            "TCS",
            WRITES,
        ),
        up_to(
            "fig15",
            "§1: 'Waltzp achieving up to ... 23.6% higher write throughput than the TCS scheme' with SC (the seed's "
            "§6.3.2 gives 23.6% against Waltz_s)",
            23.6,
            "Waltz_p",
            "TCS",
            WRITES,
        ),
        sized(
            "fig15",
            "§1: 'Beyond temperature control, Waltz significantly boosts system throughput' (Waltz_s vs Baseline, "
            "with SC)",
            "significantly",
            "Waltz_s",
            "Baseline",
            higher=True,
        ),
        never_unlike_baseline(
            "fig15",
            "§1: 'Waltz effectively manages CCSD temperature, preventing thermal emergencies under all workloads' "
            "(FIO with SC)",
            "shutdown_s",
            "shutdown",
            WALTZ,
        ),
        bound(
            "fig15",
            "§5.2: 'the RS space cannot occupy more than the space saved from compression. We shall not allocate "
            "more than 20%S as the RS space'",
            20.0,
            "%",
            "extra_rs_end",
            limit=20.0,
            below=True,
            limit_why="the seed's RS_max",
            scale_pct=True,
            construction="OSA grows the RS only while RS_cur + T_s < RS_max = 20% (stack.space.rs_max): the code "
            "enforces the cap",
            scheme=WALTZ,
        ),
        # -- §6.3.3, Fig 16 --------------------------------------------------------------
        ratio_all(
            "§6.3.3: 'when the compression ratio increases, the performance of all schemes is improved' (write and "
            "read patterns)",
            ("Baseline", "FPC", "F2FSC", "Waltz_s", "Waltz_p"),
            (WRITES, READS),
        ),
        ratio_sensitivity(
            "§6.3.3: 'throttling after triggering temperature control limits the effect of compression ratio on "
            "performance' (F2FSC, never throttled, gains more from ratio 4 than the throttled Baseline; writes)",
            "F2FSC",
            "Baseline",
            WRITES,
        ),
        ratio_change(
            "§6.3.3: 'as the compression ratio increases, the amount of data actually written will decrease' "
            "(Waltz_s WAF)",
            None,
            "Waltz_s",
            WRITES,
            "waf",
            rising=False,
            construction="the data written follows the input compression ratio the workload is generated with "
            "(content.ratio)",
        ),
    ]
    for scheme, w, r in (("FPC", 9.8, 5.7), ("F2FSC", 36.3, 9.5), ("Waltz_s", 4.2, 3.1), ("Waltz_p", 4.6, 1.3)):
        for kind, pats, v in (("write", WRITES, w), ("read", READS, r)):
            cl = ratio_change(
                f"§6.3.3: compared to {scheme}-2, {scheme}-4 improves {kind} performance by {v}% on average",
                v,
                scheme,
                pats,
            )
            c.append(_fpc(cl, "fig16") if scheme == "FPC" else cl)
    c += [
        # -- §6.4.1, Fig 17 --------------------------------------------------------------
        extreme(
            "fig17",
            "§6.4.1: 'due to the compression overhead, F2FSC has the worst performance'",
            "F2FSC",
            _rivals("F2FSC"),
            "throughput",
            lowest=True,
        ),
        change(
            "fig17",
            "§6.4.1: 'The performance of F2FSC drops by 52% on average compared to the Baseline'",
            -52.0,
            "F2FSC",
            "Baseline",
        ),
        _fpc(
            change(
                "fig17",
                "§6.4.1: 'compared to F2FSC, the performance of FPC is improved by 126.6% on average'",
                126.6,
                "FPC",
                "F2FSC",
            ),
            "fig17",
        ),
        _fpc(
            change(
                "fig17",
                "§6.4.1: 'Compared to FPC, the performance of TCS improves by 120.9% on average'",
                120.9,
                "TCS",
                "FPC",
            ),
            "fig17",
        ),
        ordering(
            "fig17",
            "§6.4.1: 'by using some of the space saved by compression to increase RS, Waltz reduces the SC overhead "
            "of F2FS' (segment cleanings, Waltz_s vs TCS)",
            "Waltz_s",
            "TCS",
            "sc_count",
            higher=False,
        ),
        change(
            "fig17",
            "§6.4.1: 'Waltz improves its performance by an average of 118.3% compared to TCS' (Waltz_s)",
            118.3,
            "Waltz_s",
            "TCS",
        ),
        change(
            "fig17",
            "§6.4.1: 'The performance of Waltzp is further improved by 10.3% on average compared to Waltzs'",
            10.3,
            "Waltz_p",
            "Waltz_s",
        ),
        extreme(
            "fig17",
            "§6.4.1: 'Waltz achieves optimal performance when serving complex real-world workloads' (Waltz_p, the "
            "best of the seed's Fig 17)",
            "Waltz_p",
            _rivals("Waltz_p"),
            "throughput",
            lowest=False,
        ),
        never_unlike_baseline(
            "fig17",
            "§1: 'Waltz effectively manages CCSD temperature, preventing thermal emergencies under all workloads' "
            "(Filebench)",
            "shutdown_s",
            "shutdown",
            WALTZ,
        ),
        # -- §6.4.2, Fig 18 --------------------------------------------------------------
        bound(
            "fig18",
            "§6.4.2: 'WAF is lower than 1 because the total amount of data written to storage is lower than that of "
            "the host' (all schemes and workloads)",
            1.0,
            "",
            "waf",
            limit=1.0,
            below=True,
            limit_why="the seed's 'lower than 1'",
        ),
        change(
            "fig18",
            "§6.4.2: 'Compared to Baseline, F2FSC decreases WAF by 23.3% under sequential access patterns'",
            -23.3,
            "F2FSC",
            "Baseline",
            "waf",
            personality=SEQUENTIAL,
        ),
        change(
            "fig18",
            "§6.4.2: '... but increases the WAF by 16.2% in random access patterns'",
            16.2,
            "F2FSC",
            "Baseline",
            "waf",
            personality=RANDOM,
        ),
        _fpc(
            similar(
                "fig18",
                "§6.4.2: 'since most of the data has been compressed by CCSD, FPC achieves a WAF similar to that of "
                "the Baseline'",
                "FPC",
                "Baseline",
                "waf",
            ),
            "fig18",
        ),
        above_below(
            "fig18",
            "§6.4.2: 'TCS schedules the execution of (de)compression tasks based on temperature, which cannot "
            "optimize WAF. Thus, the WAF for TCS is between the Baseline and F2FSC' (above Baseline's, below F2FSC's)",
            "TCS",
            "Baseline",
            "F2FSC",
            "waf",
        ),
        change(
            "fig18",
            "§6.4.2: 'Waltzp's WAF deteriorated by 38.8% on average compared to the Baseline'",
            38.8,
            "Waltz_p",
            "Baseline",
            "waf",
        ),
        extreme(
            "fig18",
            "§6.4.2: 'Waltzs achieves the optimal WAF among all methods'",
            "Waltz_s",
            _rivals("Waltz_s"),
            "waf",
            lowest=True,
        ),
        change(
            "fig18",
            "§6.4.2: 'Waltzs's WAF is reduced by 34.6% on average compared to Baseline'",
            -34.6,
            "Waltz_s",
            "Baseline",
            "waf",
        ),
        # -- §6.4.3, Fig 19 --------------------------------------------------------------
        extreme(
            "fig19",
            "§6.4.3: 'computation-intensive workloads achieve optimal performance under the Baseline'",
            "Baseline",
            _rivals("Baseline"),
            "compute",
            lowest=False,
        ),
        extreme("fig19", "§6.4.3: 'F2FSC has the highest CPU usage'", "F2FSC", _rivals("F2FSC"), "cpu", lowest=False),
        change(
            "fig19",
            "§6.4.3: 'Compared to the Baseline, the performance of computation-intensive workloads under F2FSC drops "
            "by 19.3% on average'",
            -19.3,
            "F2FSC",
            "Baseline",
            "compute",
        ),
        _fpc(
            ordering(
                "fig19",
                "§6.4.3: 'FPC reduces CPU usage by selective compression on the host side' (vs F2FSC)",
                "FPC",
                "F2FSC",
                "cpu",
                higher=False,
            ),
            "fig19",
        ),
        _fpc(
            change(
                "fig19",
                "§6.4.3: 'The performance of computation-intensive workloads under FPC is improved by an average of "
                "10.2% compared to F2FSC'",
                10.2,
                "FPC",
                "F2FSC",
                "compute",
            ),
            "fig19",
        ),
        mean_change(
            "fig19",
            "§6.4.3: 'The performance of computation-intensive workloads under Waltz is improved by an average of "
            "17.9% compared to F2FSC' (mean of Waltz_s and Waltz_p)",
            17.9,
            WALTZ,
            "F2FSC",
            "compute",
        ),
        mean_change(
            "fig19",
            "§6.4.3: '(only 4.1% lower than Baseline)' (mean of Waltz_s and Waltz_p)",
            -4.1,
            WALTZ,
            "Baseline",
            "compute",
        ),
        ordering(
            "fig19",
            "§6.4.3: 'Waltzp further reduces CPU usage by disabling host-side compression' (vs Waltz_s)",
            "Waltz_p",
            "Waltz_s",
            "cpu",
            higher=False,
        ),
        mean_change(
            "fig19",
            "§6.4.3: 'compared to F2FSC, Waltz reduces the memory overhead of host-side compression by 88.7%' (mean "
            "host compression buffer of Waltz_s and Waltz_p)",
            -88.7,
            WALTZ,
            "F2FSC",
            "buffer",
        ),
        not_run(
            "fig19",
            "§4.5.3: Waltz's time overhead (the flag test, the temperature read) 'is not on the critical path. Its "
            "impact on system performance is also negligible'",
            "similar",
            "flashpress charges no time for the flag test or the S.M.A.R.T. read, so it cannot measure their cost",
        ),
    ]
    return c


def waltz_claims() -> list[Claim]:
    """Every quantitative or directional statement of the Waltz seed's evaluation (and of its
    introduction where it states results), in the seed's order."""
    return with_causes(section3_claims() + section6_claims() + timeline_claims(), WALTZ_CAUSES)


def _f(row: Any, key: str) -> float | None:
    v = row.get(key)
    return None if v is None or v != v else float(v)


def stays_throttled(row: Any) -> tuple[bool, str] | None:
    """§1: a throttle that started never lifts while the device runs (None: never throttled or
    no timeline)."""
    n = _f(row, "timeline.throttle_releases")
    if n is None:
        return None
    return n == 0, f"throttle lifted {n:.0f} time(s) before shutdown or the end"


def cools_in_host_phases(row: Any) -> tuple[bool, str] | None:
    """§4.3: in each host phase (every (de)compression on F2FS) the temperature falls."""
    phases, drop = _f(row, "timeline.host_phases"), _f(row, "timeline.host_phase_drop_c_min")
    if phases is None:
        return None
    if phases < 1 or drop is None:
        return False, "no complete host phase"
    mean = _f(row, "timeline.host_phase_drop_c_mean") or 0.0
    return drop > 0, f"{phases:.0f} host phase(s), smallest drop {drop:.3f} °C, mean {mean:.3f} °C"


def cycles_at_t_hard(row: Any) -> tuple[bool, str] | None:
    """§6.2: T_hard reached, then host phases with a large throughput dip (at least
    :data:`LARGE_DIP_PCT`), then the device again."""
    phases = _f(row, "timeline.host_phases")
    if phases is None:
        return None
    peak, dip = _f(row, "timeline.max_c_before_host"), _f(row, "timeline.host_phase_dip_pct_min")
    back = _f(row, "timeline.back_to_device")
    if phases < 1 or peak is None or dip is None:
        return False, "no complete host phase"
    ok = peak >= T_HARD_C - T_HARD_SLACK_C and dip >= LARGE_DIP_PCT and back == 1.0
    return ok, (
        f"{peak:.2f} °C before the first host phase, {phases:.0f} phase(s), throughput dip "
        f"{dip:.0f}-{_f(row, 'timeline.host_phase_dip_pct_mean'):.0f}% (smallest-mean), "
        f"{'back to the device after each' if back == 1.0 else 'stays on the host'}"
    )


def timeline_claims() -> list[Claim]:
    """Statements read off timelines (Fig 12's and Fig 13's runs keep theirs)."""
    waltz_s_writes = {"scheme": "Waltz_s", "pattern": WRITES}
    return [
        every_run(
            "fig12",
            "§4.3: 'the CCSD temperature drops after scheduling all (de)compression tasks to F2FS' (Waltz_s, writes)",
            "the temperature falls in every host phase",
            cools_in_host_phases,
            figures=("fig12", "fig13"),
            **waltz_s_writes,
        ),
        every_run(
            "fig12",
            "§6.2: 'Once the CCSD temperature reaches T_hard, Waltzs schedules compression tasks to the host side, "
            "which brings large throughput degradation and cools the CCSD effectively. The Waltzs scheme can then "
            "schedule incoming compression tasks to the CCSD'",
            f"T_hard, then host phases with a throughput dip of at least {LARGE_DIP_PCT:g}% ('large' read as "
            "'significantly'), then the device again",
            cycles_at_t_hard,
            figures=("fig12", "fig13"),
            tolerance=POLL_SLACK,
            **waltz_s_writes,
        ),
    ]


__all__ = ["waltz_claims"]
