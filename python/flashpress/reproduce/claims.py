"""What the seeds state, quoted, and how each statement is checked against our runs.

Each :class:`Claim` quotes the seed's number and computes our counterpart from the results
table. ``agrees`` is about the *ordering* the seed reports (which scheme is faster, whether
the device overheats), never about matching magnitudes; ``why`` is generated from the measured
values with fixed, factual templates.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flashpress.reproduce.experiments import PERSONALITY_ACCESS
from flashpress.reproduce.metrics import mean, mean_change, metric, ok_rows

if TYPE_CHECKING:
    import pandas as pd

    from flashpress.reproduce.scale import Scale

WRITES = ("seq-write", "rand-write")
READS = ("seq-read", "rand-read")
SEQUENTIAL = tuple(p for p, a in PERSONALITY_ACCESS.items() if a == "sequential")
RANDOM = tuple(p for p, a in PERSONALITY_ACCESS.items() if a == "random")


@dataclass(frozen=True)
class Verdict:
    measured: float | None
    agrees: bool | None
    why: str


@dataclass(frozen=True)
class Claim:
    figure: str
    seed: str
    seed_value: float | None
    unit: str
    evaluate: Callable[[pd.DataFrame, Scale], Verdict]


def _pct(v: float) -> str:
    return f"{v:+.1f}%"


def _missing(what: str) -> Verdict:
    return Verdict(None, None, f"not measured: no completed runs of {what}")


def change(
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
    """The seed reports ``name`` changes ``metric`` by ``seed_pct`` % against ``ref``; the
    ordering holds when ours moves the same way."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        m = mean_change(table, figure, name, ref, metric_name, key=key, **labels)
        if m is None:
            return _missing(f"{name} and {ref}")
        same = (m > 0) == (seed_pct > 0)
        direction = "above" if m > 0 else "below"
        seed_dir = "above" if seed_pct > 0 else "below"
        if same:
            why = (
                f"ordering holds: {name} is {direction} {ref} as in the seed; "
                f"magnitude {_pct(m)} vs {_pct(seed_pct)} ({abs(m - seed_pct):.1f} points apart)"
            )
        else:
            why = (
                f"ordering does not hold: {name} is {direction} {ref} ({_pct(m)}), "
                f"the seed has it {seed_dir} ({_pct(seed_pct)})"
            )
        return Verdict(m, same, why)

    return Claim(figure, seed, seed_pct, "%", ev)


def similar(
    figure: str, seed: str, name: str, ref: str, metric_name: str = "throughput", tol_pct: float = 10.0, **labels: Any
) -> Claim:
    """The seed reports ``name`` close to ``ref``; holds when within ``tol_pct`` %."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        m = mean_change(table, figure, name, ref, metric_name, **labels)
        if m is None:
            return _missing(f"{name} and {ref}")
        ok = abs(m) <= tol_pct
        rel = "within" if ok else "outside"
        return Verdict(m, ok, f"{name} is {_pct(m)} from {ref}, {rel} the ±{tol_pct:.0f}% taken as 'similar'")

    return Claim(figure, seed, 0.0, "%", ev)


def event_time(figure: str, seed: str, seed_s: float | None, field: str, event: str, **labels: Any) -> Claim:
    """The seed reports an event (throttling, shutdown) at ``seed_s`` seconds; holds when it
    happens in our runs (earliest over matching runs, in the paper's seconds)."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        rows = ok_rows(table, figure, **labels)
        if not rows:
            return _missing(str(labels))
        times = [metric(r, field) for r in rows]
        hit = [t for t in times if t is not None]
        if not hit:
            return Verdict(None, False, f"does not hold: no {event} in {len(rows)} run(s)")
        t = scale.paper_seconds(min(hit))
        extra = "" if seed_s is None else f", {t - seed_s:+.0f} s from the seed's {seed_s:.0f} s"
        return Verdict(t, True, f"holds: {event} at {t:.0f} s (paper seconds) in {len(hit)}/{len(rows)} run(s){extra}")

    return Claim(figure, seed, seed_s, "s", ev)


def never(figure: str, seed: str, field: str, event: str, **labels: Any) -> Claim:
    """The seed reports an event never happens for the matching runs."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        rows = ok_rows(table, figure, **labels)
        if not rows:
            return _missing(str(labels))
        hit = [r for r in rows if metric(r, field) is not None]
        if hit:
            ids = ", ".join(str(r["run_id"]) for r in hit)
            return Verdict(float(len(hit)), False, f"does not hold: {event} in {len(hit)}/{len(rows)} run(s) ({ids})")
        return Verdict(0.0, True, f"holds: no {event} in any of {len(rows)} run(s)")

    return Claim(figure, seed, 0.0, "runs", ev)


def bound(
    figure: str,
    seed: str,
    seed_value: float | None,
    unit: str,
    metric_name: str,
    *,
    below: float | None = None,
    above: float | None = None,
    scale_pct: bool = False,
    agg: str = "mean",
    **labels: Any,
) -> Claim:
    """A measured value (mean or max over matching runs) that the seed's statement bounds."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        rows = ok_rows(table, figure, **labels)
        vals = [v for v in (metric(r, metric_name) for r in rows) if v is not None]
        if not vals:
            return _missing(str(labels))
        v = max(vals) if agg == "max" else sum(vals) / len(vals)
        if scale_pct:
            v *= 100.0
        checks = []
        ok = True
        if below is not None:
            ok &= v <= below
            checks.append(f"{'at most' if v <= below else 'above'} {below:g}")
        if above is not None:
            ok &= v >= above
            checks.append(f"{'at least' if v >= above else 'below'} {above:g}")
        seed_part = "" if seed_value is None else f" (seed {seed_value:g}{unit})"
        return Verdict(
            v, ok, f"{'holds' if ok else 'does not hold'}: {agg} {v:.1f}{unit}{seed_part} is {' and '.join(checks)}"
        )

    return Claim(figure, seed, seed_value, unit, ev)


def between(figure: str, seed: str, name: str, low: str, high: str, metric_name: str, **labels: Any) -> Claim:
    """The seed places ``name`` between ``low`` and ``high`` (means over matching runs)."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        rows = ok_rows(table, figure, **labels)
        means = {s: mean(metric(r, metric_name) for r in rows if r.get("scheme") == s) for s in (name, low, high)}
        if any(v is None for v in means.values()):
            return _missing(f"{name}, {low} and {high}")
        v, a, b = means[name], means[low], means[high]
        if v is None or a is None or b is None:
            return _missing(f"{name}, {low} and {high}")
        ok = min(a, b) <= v <= max(a, b)
        return Verdict(
            v,
            ok,
            f"{'holds' if ok else 'does not hold'}: {name} {v:.3f}, {low} {a:.3f}, {high} {b:.3f}",
        )

    return Claim(figure, seed, None, "", ev)


def argmax_rs(figure: str, seed: str, seed_rs: float, fill: float, at_least: float) -> Claim:
    """The RS ratio where throughput peaks on the most-filled curve."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        fills = sorted({r["fill"] for r in ok_rows(table, figure) if r.get("rs") is not None})
        if not fills:
            return _missing("the RS sweep")
        top = max(fills)
        rows = [r for r in ok_rows(table, figure, fill=top) if r.get("rs") is not None]
        pts = [(metric(r, "throughput"), float(r["rs"])) for r in rows]
        pts = [(t, rs) for t, rs in pts if t is not None]
        if not pts:
            return _missing("the RS sweep")
        best = max(pts)[1]
        ok = best >= at_least
        return Verdict(
            100 * best,
            ok,
            f"{'holds' if ok else 'does not hold'}: throughput peaks at RS {best:.0%} on the {top:.0%} fill "
            f"(seed {seed_rs:.0%}; taken to hold from RS {at_least:.0%})",
        )

    return Claim(figure, seed, 100 * seed_rs, "% RS", ev)


def rs_trend(figure: str, seed: str, metric_name: str, rising: bool) -> Claim:
    """The metric at the largest RS against the smallest (same fill)."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        rows = [r for r in ok_rows(table, figure) if r.get("rs") is not None]
        if not rows:
            return _missing("the RS sweep")
        lo, hi = min(r["rs"] for r in rows), max(r["rs"] for r in rows)
        a = mean(metric(r, metric_name) for r in rows if r["rs"] == lo)
        b = mean(metric(r, metric_name) for r in rows if r["rs"] == hi)
        if a is None or b is None or lo == hi or a == 0:
            return _missing("two RS sizes")
        m = 100 * (b / a - 1)
        ok = (m > 0) == rising
        return Verdict(
            m,
            ok,
            f"{'holds' if ok else 'does not hold'}: {metric_name} at RS {hi:.0%} is {_pct(m)} against RS {lo:.0%}",
        )

    return Claim(figure, seed, None, "%", ev)


def rs_vs_empty(figure: str, seed: str, seed_pct: float, rs: float) -> Claim:
    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        empty = mean(metric(r, "throughput") for r in ok_rows(table, figure, variant="empty"))
        at = mean(metric(r, "throughput") for r in ok_rows(table, figure, rs=rs))
        if empty is None or at is None or empty == 0:
            return _missing(f"RS {rs:.0%} and the empty partition")
        m = 100 * (1 - at / empty)
        ok = abs(m) <= 10
        return Verdict(
            m,
            ok,
            f"{'holds' if ok else 'does not hold'}: RS {rs:.0%} is {m:.1f}% below the empty partition "
            f"(seed {seed_pct}%, taken to hold within 10%)",
        )

    return Claim(figure, seed, seed_pct, "%", ev)


def compare(figure: str, seed: str, a: str, b: str, metric_name: str, *, a_higher: bool, **labels: Any) -> Claim:
    """Mean ``metric`` of scheme/codec ``a`` against ``b`` (the seed's ordering)."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        rows = ok_rows(table, figure, **labels)
        va = mean(metric(r, metric_name) for r in rows if a in (r.get("scheme"), r.get("codec")))
        vb = mean(metric(r, metric_name) for r in rows if b in (r.get("scheme"), r.get("codec")))
        if va is None or vb is None:
            return _missing(f"{a} and {b}")
        ok = (va > vb) == a_higher
        rel = "above" if va > vb else "below"
        return Verdict(
            va - vb, ok, f"{'ordering holds' if ok else 'ordering does not hold'}: {a} {va:.3g} is {rel} {b} {vb:.3g}"
        )

    return Claim(figure, seed, None, "", ev)


def labels_for(fig: str) -> dict[str, Any]:
    """FPC's 'similar to Baseline' is stated for all patterns without SC, for reads with SC."""
    return {"pattern": READS} if fig == "fig15" else {}


def _waltz_claims() -> list[Claim]:
    c: list[Claim] = [
        bound(
            "fig3",
            "W/o compression the temperature saturates at 60 °C (§3.1)",
            60.0,
            " °C",
            "max_c",
            below=76.0,
            agg="max",
            variant="W/o Compr. (23 °C)",
        ),
        event_time(
            "fig3",
            "W/ compression: throttling at 76 °C, then a thermal emergency at 86 °C "
            "(overheated in about eight minutes, §1)",
            480.0,
            "shutdown_s",
            "shutdown",
            variant="W/ Compr. (23 °C)",
        ),
        event_time(
            "fig3",
            "16 °C machine room, rack of four CCSDs: throttling in 420 s (§3.1)",
            420.0,
            "first_throttle_s",
            "throttling",
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
        bound(
            "fig5",
            "LZ4: +19.5% CPU usage over w/o compression (read here as percentage points)",
            19.5,
            " pp",
            "cpu",
            above=0.0,
            scale_pct=True,
            codec="LZ4",
        ),
        compare(
            "fig5",
            "ZSTD needs more CPU than LZ4 for sequential read and write",
            "ZSTD",
            "LZ4",
            "cpu",
            a_higher=True,
            pattern=("seq-write", "seq-read"),
        ),
        bound(
            "fig5",
            "Host compression memory: 16 KB x 8 threads = 128 KB",
            128 * 1024,
            " B",
            "buffer_peak",
            agg="max",
            scheme="F2FSC",
        ),
        rs_trend("fig9", "Throughput improves with larger RS", "throughput", rising=True),
        rs_trend("fig9", "WAF decreases with larger RS", "waf", rising=False),
        rs_vs_empty("fig9", "Only 3.1% throughput difference between RS 20% and the empty partition", 3.1, 0.20),
        argmax_rs("fig11", "Throughput peaks at RS 20% (100% filled) → rsr_max = 20%", 0.20, 0.99, at_least=0.15),
        event_time(
            "fig12",
            "Baseline overheats in 582 s (sequential write)",
            582.0,
            "first_throttle_s",
            "throttling at 76 °C",
            scheme="Baseline",
            pattern="seq-write",
        ),
        event_time(
            "fig12", "Baseline shuts down under all workloads", None, "shutdown_s", "shutdown", scheme="Baseline"
        ),
        never("fig12", "Waltz_s and Waltz_p never shut down", "shutdown_s", "shutdown", scheme=("Waltz_s", "Waltz_p")),
        bound(
            "fig12",
            "Waltz_s stays at or below T_soft = 76 °C on reads",
            76.0,
            " °C",
            "max_c",
            below=76.5,
            agg="max",
            scheme="Waltz_s",
            pattern=READS,
        ),
        bound(
            "fig13",
            "16.0% of (de)compression tasks on the host (average)",
            16.0,
            "%",
            "host_share",
            below=50.0,
            scale_pct=True,
        ),
        bound(
            "fig13",
            "99.3% of write compression on the device (Waltz_s)",
            99.3,
            "%",
            "device_compress_share",
            above=50.0,
            scale_pct=True,
            scheme="Waltz_s",
            pattern=WRITES,
        ),
        bound(
            "fig13",
            "Waltz_p misses 34.7% of compression opportunities",
            34.7,
            "%",
            "missed_compression",
            above=0.1,
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
        similar("fig14", "Waltz_s has the same throughput as TCS without SC", "Waltz_s", "TCS", tol_pct=5.0),
        change("fig14", "Waltz_p +13.9% over Waltz_s without SC", 13.9, "Waltz_p", "Waltz_s"),
        change("fig15", "Waltz_s write +95.5% over TCS with SC", 95.5, "Waltz_s", "TCS", pattern=WRITES),
        change("fig15", "Waltz_p +23.6% over Waltz_s with SC", 23.6, "Waltz_p", "Waltz_s"),
    ]
    for scheme, w, r in (("FPC", 9.8, 5.7), ("F2FSC", 36.3, 9.5), ("Waltz_s", 4.2, 3.1), ("Waltz_p", 4.6, 1.3)):
        for kind, pats, v in (("write", WRITES, w), ("read", READS, r)):
            c.append(_ratio_change(f"{scheme}-4 vs {scheme}-2: {kind} +{v}% (with SC)", v, scheme, pats))
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
        similar("fig18", "FPC WAF similar to Baseline", "FPC", "Baseline", "waf"),
        between("fig18", "TCS WAF between Baseline and F2FSC", "TCS", "Baseline", "F2FSC", "waf"),
        change("fig18", "Waltz_p WAF +38.8% vs Baseline", 38.8, "Waltz_p", "Baseline", "waf"),
        change("fig18", "Waltz_s WAF -34.6% vs Baseline", -34.6, "Waltz_s", "Baseline", "waf"),
        change("fig19", "Co-running job under F2FSC -19.3% vs Baseline", -19.3, "F2FSC", "Baseline", "compute"),
        change("fig19", "FPC +10.2% over F2FSC", 10.2, "FPC", "F2FSC", "compute"),
        change("fig19", "Waltz +17.9% over F2FSC", 17.9, "Waltz_s", "F2FSC", "compute"),
        change("fig19", "Waltz -4.1% vs Baseline", -4.1, "Waltz_s", "Baseline", "compute"),
        change("fig19", "Waltz memory -88.7% vs F2FSC", -88.7, "Waltz_s", "F2FSC", "buffer"),
    ]
    return c


def _ratio_change(seed: str, seed_pct: float, scheme: str, patterns: Sequence[str]) -> Claim:
    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        rows = ok_rows(table, "fig16", scheme=scheme, pattern=tuple(patterns))
        changes = []
        for r4 in (r for r in rows if r.get("ratio") == 4):
            r2 = next((r for r in rows if r.get("ratio") == 2 and r.get("pattern") == r4.get("pattern")), None)
            a, b = (metric(r2, "throughput") if r2 else None), metric(r4, "throughput")
            if a and b is not None:
                changes.append(100 * (b / a - 1))
        m = mean(changes)
        if m is None:
            return _missing(f"{scheme}-2 and {scheme}-4")
        ok = m > 0
        return Verdict(
            m,
            ok,
            f"{'ordering holds' if ok else 'ordering does not hold'}: ratio 4 is {_pct(m)} against ratio 2 "
            f"(seed {_pct(seed_pct)})",
        )

    return Claim("fig16", seed, seed_pct, "%", ev)


def _coco_claims() -> list[Claim]:
    return [
        change("throughput", "F2FSC -42.6% throughput vs Baseline", -42.6, "F2FSC", "Baseline"),
        compare(
            "throughput", "FACS slightly improves the performance", "FACS", "Baseline", "throughput", a_higher=True
        ),
        change("throughput", "COCO +31.7% throughput vs Baseline", 31.7, "COCO", "Baseline"),
        compare("power", "F2FSC has the lowest power consumption", "Baseline", "F2FSC", "power", a_higher=True),
        change("power", "FACS power -32.5% vs Baseline", -32.5, "FACS", "Baseline", "power"),
        change("waf", "WAF of F2FSC improved by 12% (-12%) vs Baseline", -12.0, "F2FSC", "Baseline", "waf"),
        change("waf", "WAF of FACS improved by 4.5% (-4.5%) vs Baseline", -4.5, "FACS", "Baseline", "waf"),
    ]


def claims(paper: str) -> list[Claim]:
    """The seed's quantitative statements for ``paper`` (``waltz`` or ``coco``)."""
    return _waltz_claims() if paper == "waltz" else _coco_claims()


__all__ = ["Claim", "Verdict", "claims"]
