"""What the Waltz seed states, quoted, with the kind of each statement and how it is checked
(the rules are in :mod:`flashpress.reproduce.claims`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from flashpress.reproduce.claims import (
    HOLDS,
    INCONCLUSIVE,
    NOISE_FLOOR_PCT,
    Claim,
    Measure,
    Verdict,
    between,
    bound,
    by_seed,
    change,
    changes,
    event,
    every_run,
    extreme,
    judge_magnitude,
    judge_ordering,
    magnitude,
    missing,
    never,
    ordering,
    similar,
    with_causes,
)
from flashpress.reproduce.metrics import metric, ok_rows, replicate
from flashpress.reproduce.papers.waltz.causes import WALTZ_CAUSES
from flashpress.reproduce.papers.waltz.experiments import CONTROLLED_START_C, PERSONALITY_ACCESS

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


def labels_for(fig: str) -> dict[str, Any]:
    """FPC's 'similar to Baseline' is stated for all patterns without SC, for reads with SC."""
    return {"pattern": READS} if fig == "fig15" else {}


def points_change(
    figure: str, seed: str, seed_pp: float, name: str, ref: str, metric_name: str, *, key: str, **labels: Any
) -> Claim:
    """Magnitude in percentage points: ``(metric(name) - metric(ref)) * 100`` over paired runs,
    within ±10 points of the seed's number."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        m = changes(table, figure, name, ref, metric_name, key=key, relative=False, **labels)
        if m is None:
            return missing(f"{name} and {ref}")
        return judge_magnitude(m.value, seed_pp, points=True, unit=" pp", seeds=len(m.per_seed))

    return Claim(figure, seed, seed_pp, " pp", "magnitude", ev)


def ratio_change(
    seed: str,
    seed_pct: float | None,
    scheme: str,
    patterns: Sequence[str],
    metric_name: str = "throughput",
    *,
    rising: bool = True,
) -> Claim:
    """Ordering: ``metric`` at compression ratio 4 against ratio 2, same scheme, pattern and seed
    (the sign of ``seed_pct`` when the seed gives one, else ``rising``)."""
    want = rising if seed_pct is None else seed_pct > 0

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        m = _ratio_gain(table, scheme, patterns, metric_name)
        if m is None:
            return missing(f"{scheme}-2 and {scheme}-4")
        v = judge_ordering(m, want, f"{scheme} {metric_name} at ratio 4 vs ratio 2")
        if seed_pct is None:
            return v
        return Verdict(
            v.status, v.measured, f"{v.why}; size {m.value / seed_pct:.2f}x the seed's {seed_pct:+g}%", v.seeds
        )

    return Claim("fig16", seed, seed_pct, "%", "ordering", ev)


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

    return Claim(figure, seed, 0.0, "runs", "event", ev)


def rs_trend(figure: str, seed: str, metric_name: str, rising: bool) -> Claim:
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

    return Claim(figure, seed, None, "%", "ordering", ev)


def rs_vs_empty(figure: str, seed: str, seed_pct: float, rs: float) -> Claim:
    """Bound: the throughput gap between RS ``rs`` and the empty partition is at most twice the
    seed's number (the seed's point is that the gap is small)."""
    limit = 2 * seed_pct

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        empty = by_seed((replicate(r), metric(r, "throughput")) for r in ok_rows(table, figure, variant="empty"))
        at = by_seed((replicate(r), metric(r, "throughput")) for r in ok_rows(table, figure, rs=rs))
        if empty is None or at is None or empty.value == 0:
            return missing(f"RS {rs:.0%} and the empty partition")
        gap = 100 * (1 - at.value / empty.value)
        ok = abs(gap) <= limit
        return Verdict(
            HOLDS if ok else "fails",
            gap,
            f"{'holds' if ok else 'fails'}: RS {rs:.0%} is {gap:.1f}% below the empty partition; the bound is "
            f"{limit:g}% (twice the seed's {seed_pct:g}%)",
            len(at.per_seed),
        )

    return Claim(figure, seed, seed_pct, "%", "bound", ev)


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


def rs_knee(figure: str, seed: str, knee: float) -> Claim:
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

    return Claim(figure, seed, None, "%", "ordering", ev)


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


def waltz_claims() -> list[Claim]:
    c: list[Claim] = [
        magnitude(
            "fig3",
            "W/o compression the temperature saturates at 60 °C (§3.1)",
            60.0,
            " °C",
            "max_c",
            agg="max",
            fitted="the thermal resistance r_c_per_w; " + FIT,
            variant="W/o Compr. (23 °C)",
        ),
        event(
            "fig3",
            "W/ compression: throttling at 76 °C, then a thermal emergency at 86 °C (§3.1)",
            "shutdown_s",
            "shutdown",
            fitted="the engine's power, so the throttled device still reaches 86 °C; " + FIT,
            variant="W/ Compr. (23 °C)",
        ),
        event(
            "fig3",
            "16 °C machine room, rack of four CCSDs: throttling in 420 s (§3.1)",
            "first_throttle_s",
            "throttling",
            seed_s=420.0,
            fitted="the rack's neighbour heating neighbour_c; " + FIT,
            variant="W/ Compr. (16 °C rack)",
        ),
        change(
            "fig4",
            "F2FS compression: sequential write -87.6% (avg over algorithms)",
            -87.6,
            "F2FSC",
            "Baseline",
            pattern="seq-write",
        ),
        change("fig4", "F2FS compression: random write -97.7%", -97.7, "F2FSC", "Baseline", pattern="rand-write"),
        change("fig4", "F2FS compression: sequential read -61.4%", -61.4, "F2FSC", "Baseline", pattern="seq-read"),
        change("fig4", "F2FS compression: random read -48.0%", -48.0, "F2FSC", "Baseline", pattern="rand-read"),
        similar(
            "fig4",
            "The difference between compression algorithms is small (ZSTD vs LZ4)",
            "ZSTD",
            "LZ4",
            key="codec",
            tol_pct=10.0,
            tol_why="the seed gives no tolerance for 'small'; ±10% is our reading",
        ),
        points_change(
            "fig5",
            "LZ4: +19.5% CPU usage over w/o compression (percentage points)",
            19.5,
            "LZ4",
            "W/o Compr.",
            "cpu",
            key="codec",
        ),
        *(
            ordering(
                "fig5",
                f"ZSTD needs more CPU than LZ4 for sequential read and write ({p})",
                "ZSTD",
                "LZ4",
                "cpu",
                higher=True,
                key="codec",
                pattern=p,
            )
            for p in ("seq-write", "seq-read")
        ),
        magnitude(
            "fig5",
            "Host compression memory: 16 KB x 8 threads = 128 KB",
            128 * 1024,
            " B",
            "buffer_peak",
            agg="max",
            scheme="F2FSC",
            pattern=WRITES,
        ),
        rs_trend("fig9", "Throughput improves with larger RS", "throughput", rising=True),
        rs_trend("fig9", "WAF decreases with larger RS", "waf", rising=False),
        rs_vs_empty("fig9", "Only 3.1% throughput difference between RS 20% and the empty partition", 3.1, 0.20),
        rs_knee("fig9", "The benefits diminish when the RS grows beyond 20% of the space", 0.20),
        *(
            rs_peak("fig11", f"Performance peaks at RS 20% ({fill:.0%} filled; 100% read as 99%)", 0.20, fill)
            for fill in (0.8, 0.9, 0.99)
        ),
        event(
            "fig12",
            "Baseline overheats in 582 s (sequential write)",
            "first_throttle_s",
            "throttling at 76 °C",
            seed_s=582.0,
            fitted="the thermal time constant tau_s; " + FIT,
            scheme="Baseline",
            pattern="seq-write",
        ),
        event("fig12", "Baseline shuts down under all workloads", "shutdown_s", "shutdown", scheme="Baseline"),
        never("fig12", "Waltz_s and Waltz_p never shut down", "shutdown_s", "shutdown", scheme=("Waltz_s", "Waltz_p")),
        bound(
            "fig12",
            "Waltz_s stays at or below T_soft = 76 °C on reads",
            76.0,
            " °C",
            "max_c",
            limit=76.5,
            below=True,
            limit_why="the seed's 76 °C plus 0.5 °C: the scheduler sees the temperature at its S.M.A.R.T. polls",
            scheme="Waltz_s",
            pattern=READS,
        ),
        magnitude(
            "fig13",
            "16.0% of (de)compression tasks on the host (average over the patterns; read as Waltz_s, "
            "the scheme that moves tasks to the host: Waltz_p skips compression instead)",
            16.0,
            "%",
            "host_share",
            points=True,
            scale_pct=True,
            scheme="Waltz_s",
        ),
        magnitude(
            "fig13",
            "99.3% of write compression on the device (Waltz_s)",
            99.3,
            "%",
            "device_compress_share",
            points=True,
            scale_pct=True,
            scheme="Waltz_s",
            pattern=WRITES,
        ),
        magnitude(
            "fig13",
            "Waltz_p misses 34.7% of compression opportunities",
            34.7,
            "%",
            "missed_compression",
            points=True,
            scale_pct=True,
            scheme="Waltz_p",
            pattern=WRITES,
        ),
    ]
    for fig, sc in (("fig14", "without"), ("fig15", "with")):
        nums = {
            "fig14": {"f2w": -67.0, "f2r": 367.0, "tw": 391.5, "tr": 627.0},
            "fig15": {"f2w": -65.5, "f2r": 407.5, "tw": 270.0, "tr": 689.5},
        }[fig]
        c += [
            change(
                fig,
                f"F2FSC write {nums['f2w']:+g}% vs Baseline ({sc} SC)",
                nums["f2w"],
                "F2FSC",
                "Baseline",
                pattern=WRITES,
            ),
            change(
                fig,
                f"F2FSC read {nums['f2r']:+g}% vs Baseline ({sc} SC)",
                nums["f2r"],
                "F2FSC",
                "Baseline",
                pattern=READS,
            ),
            similar(
                fig,
                f"FPC similar to Baseline ({sc} SC)",
                "FPC",
                "Baseline",
                tol_pct=10.0,
                tol_why=SIMILAR_WHY,
                **labels_for(fig),
            ),
            change(
                fig, f"TCS write {nums['tw']:+g}% vs Baseline ({sc} SC)", nums["tw"], "TCS", "Baseline", pattern=WRITES
            ),
            change(
                fig, f"TCS read {nums['tr']:+g}% vs Baseline ({sc} SC)", nums["tr"], "TCS", "Baseline", pattern=READS
            ),
        ]
    c += [
        similar(
            "fig14",
            "Waltz_s has the same throughput as TCS without SC",
            "Waltz_s",
            "TCS",
            tol_pct=5.0,
            tol_why="'the same' read as ±5%",
            because=("no SC is triggered", "sc_count"),
        ),
        change("fig14", "Waltz_p +13.9% over Waltz_s without SC", 13.9, "Waltz_p", "Waltz_s"),
        change("fig15", "Waltz_s write +95.5% over TCS with SC", 95.5, "Waltz_s", "TCS", pattern=WRITES),
        change("fig15", "Waltz_p +23.6% over Waltz_s with SC", 23.6, "Waltz_p", "Waltz_s"),
    ]
    for scheme, w, r in (("FPC", 9.8, 5.7), ("F2FSC", 36.3, 9.5), ("Waltz_s", 4.2, 3.1), ("Waltz_p", 4.6, 1.3)):
        for kind, pats, v in (("write", WRITES, w), ("read", READS, r)):
            c.append(ratio_change(f"{scheme}-4 vs {scheme}-2: {kind} +{v}% (with SC)", v, scheme, pats))
    c += [
        change("fig17", "F2FSC -52% vs Baseline", -52.0, "F2FSC", "Baseline"),
        change("fig17", "FPC +126.6% over F2FSC", 126.6, "FPC", "F2FSC"),
        change("fig17", "TCS +120.9% over FPC", 120.9, "TCS", "FPC"),
        change("fig17", "Waltz +118.3% over TCS", 118.3, "Waltz_s", "TCS"),
        change("fig17", "Waltz_p +10.3% over Waltz_s", 10.3, "Waltz_p", "Waltz_s"),
        change(
            "fig18",
            "F2FSC WAF -23.3% vs Baseline, sequential",
            -23.3,
            "F2FSC",
            "Baseline",
            "waf",
            personality=SEQUENTIAL,
        ),
        change("fig18", "F2FSC WAF +16.2% vs Baseline, random", 16.2, "F2FSC", "Baseline", "waf", personality=RANDOM),
        similar("fig18", "FPC WAF similar to Baseline", "FPC", "Baseline", "waf", tol_pct=10.0, tol_why=SIMILAR_WHY),
        between("fig18", "TCS WAF between Baseline and F2FSC", "TCS", "Baseline", "F2FSC", "waf"),
        change("fig18", "Waltz_p WAF +38.8% vs Baseline", 38.8, "Waltz_p", "Baseline", "waf"),
        change("fig18", "Waltz_s WAF -34.6% vs Baseline", -34.6, "Waltz_s", "Baseline", "waf"),
        change("fig19", "Co-running job under F2FSC -19.3% vs Baseline", -19.3, "F2FSC", "Baseline", "compute"),
        change("fig19", "FPC +10.2% over F2FSC", 10.2, "FPC", "F2FSC", "compute"),
        change("fig19", "Waltz +17.9% over F2FSC", 17.9, "Waltz_s", "F2FSC", "compute"),
        change("fig19", "Waltz -4.1% vs Baseline", -4.1, "Waltz_s", "Baseline", "compute"),
        change("fig19", "Waltz memory -88.7% vs F2FSC", -88.7, "Waltz_s", "F2FSC", "buffer"),
    ]
    schemes = ("Baseline", "F2FSC", "FPC", "TCS", "Waltz_s", "Waltz_p")

    def rivals(s: str) -> tuple[str, ...]:
        return tuple(x for x in schemes if x != s)

    c += [
        similar(
            "fig4",
            "The difference between compression algorithms is small (LZO vs LZ4)",
            "LZO",
            "LZ4",
            key="codec",
            tol_pct=10.0,
            tol_why="the seed gives no tolerance for 'small'; ±10% is our reading",
        ),
        ordering(
            "fig3",
            "With compression the temperature rises much faster than without (§3.1)",
            "W/ Compr. (23 °C)",
            "W/o Compr. (23 °C)",
            "max_c",
            higher=True,
            key="variant",
        ),
        ordering(
            "fig3",
            "The rack throttles in 420 s, 'only slightly better than' the room of Fig 3 (§3.1)",
            "W/ Compr. (16 °C rack)",
            "W/ Compr. (23 °C)",
            "first_throttle_s",
            higher=True,
            key="variant",
        ),
        never_heats("fig14", "F2FSC: CCSD throttling is not triggered (§6.1)", scheme="F2FSC"),
        event(
            "fig14",
            "FPC is not temperature-aware and inevitably triggers throttling (§6.3.1)",
            "first_throttle_s",
            "throttling",
            scheme="FPC",
        ),
        never("fig14", "TCS eliminates throttling (§6.3.1)", "first_throttle_s", "throttling", scheme="TCS"),
        never(
            "fig15",
            "Waltz prevents thermal emergencies under all workloads (FIO with SC)",
            "shutdown_s",
            "shutdown",
            scheme=("Waltz_s", "Waltz_p"),
        ),
        never(
            "fig17",
            "Waltz prevents thermal emergencies under all workloads (Filebench)",
            "shutdown_s",
            "shutdown",
            scheme=("Waltz_s", "Waltz_p"),
        ),
        bound(
            "fig12",
            "Neither scheme lets the CCSD overheat (below the 86 °C emergency)",
            86.0,
            " °C",
            "max_c",
            limit=86.0,
            below=True,
            limit_why="the seed's 86 °C emergency",
            scheme=("Waltz_s", "Waltz_p"),
        ),
        extreme(
            "fig14",
            "Waltz_p achieves the best improvements (without SC)",
            "Waltz_p",
            rivals("Waltz_p"),
            "throughput",
            lowest=False,
        ),
        ratio_change(
            "Baseline: the performance of all schemes improves with the ratio (write)", None, "Baseline", WRITES
        ),
        ratio_change(
            "Baseline: the performance of all schemes improves with the ratio (read)", None, "Baseline", READS
        ),
        ratio_change(
            "The amount of data actually written decreases as the ratio increases (Waltz_s WAF)",
            None,
            "Waltz_s",
            WRITES,
            "waf",
            rising=False,
        ),
        ratio_change(
            "The amount of data actually written decreases as the ratio increases (F2FSC WAF)",
            None,
            "F2FSC",
            WRITES,
            "waf",
            rising=False,
        ),
        extreme("fig17", "F2FSC has the worst performance", "F2FSC", rivals("F2FSC"), "throughput", lowest=True),
        extreme(
            "fig17",
            "Waltz achieves optimal performance on real-world workloads (Waltz_p best)",
            "Waltz_p",
            rivals("Waltz_p"),
            "throughput",
            lowest=False,
        ),
        bound(
            "fig18",
            "WAF is lower than 1 (all schemes and workloads)",
            1.0,
            "",
            "waf",
            limit=1.0,
            below=True,
            limit_why="the seed's 'lower than 1'",
        ),
        extreme(
            "fig18",
            "Waltz_s achieves the optimal WAF among all methods",
            "Waltz_s",
            rivals("Waltz_s"),
            "waf",
            lowest=True,
        ),
        extreme(
            "fig19",
            "Computation-intensive workloads perform best under the Baseline",
            "Baseline",
            rivals("Baseline"),
            "compute",
            lowest=False,
        ),
        extreme("fig19", "F2FSC has the highest CPU usage", "F2FSC", rivals("F2FSC"), "cpu", lowest=False),
        ordering(
            "fig19", "FPC reduces CPU usage by selective compression (vs F2FSC)", "FPC", "F2FSC", "cpu", higher=False
        ),
        ordering(
            "fig19",
            "Waltz_p further reduces CPU usage by disabling host-side compression",
            "Waltz_p",
            "Waltz_s",
            "cpu",
            higher=False,
        ),
        change("fig19", "Waltz +17.9% over F2FSC (Waltz_p)", 17.9, "Waltz_p", "F2FSC", "compute"),
        change("fig19", "Waltz -4.1% vs Baseline (Waltz_p)", -4.1, "Waltz_p", "Baseline", "compute"),
        bound(
            "fig15",
            "The RS never takes more than 20% of the space (OSA)",
            20.0,
            "%",
            "extra_rs_end",
            limit=20.0,
            below=True,
            limit_why="the seed's RS_max",
            scale_pct=True,
            scheme=("Waltz_s", "Waltz_p"),
        ),
    ]
    c += [
        across_sc(
            "Waltz_p achieves larger throughput improvements (over Baseline) with SC than without",
            ("Waltz_p",),
            ref="Baseline",
        ),
        across_sc("SC operations block user requests and degrade throughput (with SC vs without)", schemes),
        ratio_sensitivity(
            "Throttling limits the effect of the ratio: F2FSC gains more from it than FPC (write)",
            "F2FSC",
            "FPC",
            WRITES,
        ),
    ]
    return with_causes(c + timeline_claims(), WALTZ_CAUSES)


#: T_hard (°C, Waltz §4.5.2): Waltz_s moves compression to the host at it.
T_HARD_C = 85.0
#: How far below T_hard the hottest timeline row before the first host phase may be: the
#: S.M.A.R.T. poll saw T_hard inside an interval whose end the row records (°C).
T_HARD_SLACK_C = 0.1
#: 'Negligible' (§2.2) read as within ±5%, as for COCO's 'negligible benefit'.
NEGLIGIBLE_WHY = "the seed gives no tolerance for 'negligible'; ±5% is our reading"


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
    if phases == 0 or drop is None:
        return False, "no complete host phase"
    mean = _f(row, "timeline.host_phase_drop_c_mean") or 0.0
    return drop > 0, f"{phases:.0f} host phase(s), smallest drop {drop:.3f} °C, mean {mean:.3f} °C"


def cycles_at_t_hard(row: Any) -> tuple[bool, str] | None:
    """§6.2: T_hard reached, then host phases with a throughput dip, then the device again."""
    phases = _f(row, "timeline.host_phases")
    if phases is None:
        return None
    peak, dip = _f(row, "timeline.max_c_before_host"), _f(row, "timeline.host_phase_dip_pct_min")
    back = _f(row, "timeline.back_to_device")
    if phases == 0 or peak is None or dip is None:
        return False, "no complete host phase"
    ok = peak >= T_HARD_C - T_HARD_SLACK_C and dip > NOISE_FLOOR_PCT and back == 1.0
    return ok, (
        f"{peak:.2f} °C before the first host phase, {phases:.0f} phase(s), throughput dip "
        f"{dip:.0f}-{_f(row, 'timeline.host_phase_dip_pct_mean'):.0f}% (smallest-mean), "
        f"{'back to the device after each' if back == 1.0 else 'stays on the host'}"
    )


def timeline_claims() -> list[Claim]:
    """Statements read off timelines (Fig 3's and Fig 12/13's runs keep theirs)."""
    waltz_s_writes = {"scheme": "Waltz_s", "pattern": WRITES}
    return [
        similar(
            "fig3",
            "Device compression at about 10 µs per block has negligible impact on performance",
            "W/ Compr. (23 °C)",
            "W/o Compr. (23 °C)",
            "before_throttle",
            tol_pct=5.0,
            tol_why=NEGLIGIBLE_WHY,
            key="variant",
        ),
        every_run(
            "fig3",
            "Once throttled, device compression stays off until a system restart",
            "the throttle never lifts while the device runs",
            stays_throttled,
            figures=("fig3", "fig12"),
        ),
        every_run(
            "fig12",
            "The CCSD temperature drops after Waltz_s schedules all (de)compression to F2FS",
            "the temperature falls in every host phase",
            cools_in_host_phases,
            figures=("fig12", "fig13"),
            **waltz_s_writes,
        ),
        every_run(
            "fig12",
            "Waltz_s cycles: T_hard reached, host phase with a throughput dip, back to the device",
            "T_hard, then host phases with a throughput dip, then the device again",
            cycles_at_t_hard,
            figures=("fig12", "fig13"),
            **waltz_s_writes,
        ),
    ]


__all__ = ["waltz_claims"]
