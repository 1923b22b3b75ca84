"""What the COCO seed (workshop slides) states, quoted, with the kind of each statement and how
it is checked (the rules are in :mod:`flashpress.reproduce.claims`).

Every statement of the slides that states a result is a claim here: the motivation slides
(power, GC, OP size), the evaluation's two result slides, the overhead slide and the
conclusion. Slides that describe F2FS, the CSD or COCO's design ("F2FS converts random writes
to sequential writes", "when CR > T_c and data is cold, the compression tasks are scheduled to
the CSD") and the setup (platform, workload table) state no result and are not claims; the
workload table's ranges are the runs' configuration (``waltz.experiments.PERSONALITY_RATIOS``).

The slides measure "power consumption of CSD": the power claims use the device's mean power
(``device_power``), not device plus host CPU. Two claims are our own inferences from the
slides' numbers, not statements of them (``ours``): COCO above FACS, and F2FSC's WAF below
FACS's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flashpress.reproduce.claims import (
    FAILS,
    HOLDS,
    INCONCLUSIVE,
    Claim,
    Verdict,
    change,
    every_run,
    extreme,
    judge_ordering,
    judge_word,
    marked,
    missing,
    not_run,
    ordering,
    sized,
    values,
    with_causes,
)
from flashpress.reproduce.metrics import metric, ok_rows, replicate
from flashpress.reproduce.papers.coco.causes import COCO_CAUSES
from flashpress.reproduce.papers.coco.experiments import F2FS_COMPRESSION, F2FS_GC, F2FS_NO_GC
from flashpress.reproduce.papers.waltz.claims import rs_peak
from flashpress.reproduce.papers.waltz.experiments import SC_FILL, WITH_23C, WITHOUT_23C

if TYPE_CHECKING:
    import pandas as pd

    from flashpress.reproduce.claims import Measure
    from flashpress.reproduce.scale import Scale

#: "Stables because of heat protection": once the throttle is on, the device's temperature
#: changes at most this share as fast as it rose before it (mean °C per second from the first
#: throttle to the end, either way, against the mean from the start to the first throttle), and
#: it does not shut down. A tenth: a curve that still climbs (or falls) at a tenth of its first
#: slope looks flat on the slide's axis. Fixed before the COCO protocol's runs, not fitted to
#: them.
LEVEL_RATE_SHARE = 0.1

#: "The temperature of the CSD increases with time": the device ends at least this much above
#: its start (°C; the model's temperature is exact, 1 °C is the smallest rise a plot shows).
RISE_MIN_C = 1.0

#: The schemes the slides compare; "lowest" and "above every other" range over these (variants
#: the reproduction adds, such as another reading of COCO, are reported but are not the seed's).
SEED_SCHEMES = ("Baseline", "F2FSC", "FACS", "COCO")

#: 'severe' is not in the size-word table; the nearest word there is 'significantly'.
SEVERE = "'severe' is not in the size-word table: scored as 'significantly' (at least 20%)"


def coco_claims() -> list[Claim]:
    return with_causes(_claims(), COCO_CAUSES)


def _claims() -> list[Claim]:
    return [
        # -- Experimental Results (throughput, power, WAF) -----------------------------------
        change("throughput", "Throughput of F2FSC was reduced by an average of 42.6%", -42.6, "F2FSC", "Baseline"),
        sized("throughput", "FACS slightly improves the performance", "slightly", "FACS", "Baseline", higher=True),
        change("throughput", "COCO can improve the average performance by 31.7%", 31.7, "COCO", "Baseline"),
        extreme(
            "power",
            "F2FSC has the lowest power consumption",
            "F2FSC",
            tuple(s for s in SEED_SCHEMES if s != "F2FSC"),
            "device_power",
            lowest=True,
        ),
        change(
            "power",
            "FACS can reduce power consumption by an average of 32.5%",
            -32.5,
            "FACS",
            "Baseline",
            "device_power",
        ),
        change("waf", "WAF of F2FSC is improved by 12% on average", -12.0, "F2FSC", "Baseline", "waf"),
        change("waf", "WAF of FACS is improved by 4.5% on average", -4.5, "FACS", "Baseline", "waf"),
        # -- Conclusion ------------------------------------------------------------------------
        faster_and_cooler(
            "Experimental results show that COCO can improve the performance while reduce the power consumption "
            "of CSD (Conclusion)"
        ),
        # -- our inferences from the numbers, not the slides' statements ------------------------
        extreme(
            "throughput",
            "COCO (+31.7%) above FACS ('slightly') and every other scheme (our inference from the two numbers)",
            "COCO",
            tuple(s for s in SEED_SCHEMES if s != "COCO"),
            "throughput",
            lowest=False,
            ours=True,
        ),
        ordering(
            "waf",
            "F2FSC's WAF (-12%) below FACS's (-4.5%) (our inference from the two numbers)",
            "F2FSC",
            "FACS",
            "waf",
            higher=False,
            ours=True,
        ),
        # -- Performance with OP size ratio (F2FS on the CSD: the baseline stack itself) ---------
        marked(rs_peak("op-size", "The performance peaked when the OP size is 15%", 0.15, SC_FILL), baseline_fact=True),
        op_negligible_after(
            "OP Space Ratio > 15% brings negligible benefit",
            0.15,
        ),
        op_negligible_after(
            "Increasing OPS does not improve performance when it reaches a specific value (On-Demand Space Allocation)",
            None,
        ),
        # -- Power Consumption for CSD (128 KB sequential write) ---------------------------------
        every_run(
            "motivation",
            "Temperature of CSD increases with time",
            f"the device ends at least {RISE_MIN_C:g} °C above the room it starts in",
            heats_up,
            baseline_fact=True,
        ),
        power_rises(),
        ordering(
            "motivation",
            "Temperature of CSD with compression is higher than that of CSD without compression",
            WITH_23C,
            WITHOUT_23C,
            "max_c",
            higher=True,
            key="variant",
        ),
        every_run(
            "motivation",
            "Temperature of CSD with compression stables because of heat protection",
            f"once the throttle is on the temperature changes at most {LEVEL_RATE_SHARE:g} times as fast as it "
            "rose before it, and the device does not shut down",
            levels_off,
            variant=WITH_23C,
        ),
        # -- GC for F2FS ----------------------------------------------------------------------------
        sized(
            "gc",
            "GC causes severe performance degradation",
            "significantly",
            F2FS_GC,
            F2FS_NO_GC,
            higher=False,
            key="variant",
            tolerance=SEVERE,
        ),
        sized(
            "gc",
            "performance of F2FS with compression is similar to the performance with GC",
            "similar",
            F2FS_COMPRESSION,
            F2FS_GC,
            higher=None,
            key="variant",
        ),
        # -- Implementation and Overhead Analysis -------------------------------------------------
        not_run(
            "overhead",
            "The metadata overhead can be negligible",
            "similar",
            "the status bit lives in the top bit of a block's logical address and the thresholds in global "
            "variables; our F2FS model keeps COCO's tags in its own tables and charges no memory or time for them, "
            "so it has no overhead to measure",
        ),
        # -- F2FS and Compression (background, stated as a result) ---------------------------------
        not_run(
            "intro",
            "The space saved by F2FS compression is reserved for OPS thus reduces GC cost",
            "ordering",
            "no run isolates F2FS compression's saved space as reserved space (our F2FSC keeps F2FS's fixed "
            "reserved space); COCO's on-demand OP (COCO against FACS) is the slides' own version of it",
        ),
    ]


def faster_and_cooler(seed: str) -> Claim:
    """Both orderings of the conclusion: COCO's throughput above Baseline's and its device power
    below it, each outside the noise band."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        from flashpress.reproduce.claims import changes

        up = changes(table, "throughput", "COCO", "Baseline", "throughput")
        down = changes(table, "power", "COCO", "Baseline", "device_power")
        if up is None or down is None:
            return missing("COCO and Baseline")
        a = judge_ordering(up, True, "throughput COCO vs Baseline")
        b = judge_ordering(down, False, "device power COCO vs Baseline")
        statuses = {a.status, b.status}
        status = FAILS if FAILS in statuses else INCONCLUSIVE if INCONCLUSIVE in statuses else HOLDS
        return Verdict(status, up.value, f"{status}: {a.why}; {b.why}", a.seeds)

    return Claim("throughput", seed, None, "%", "ordering", ev)


def _rs_points(table: pd.DataFrame) -> dict[float, Measure]:
    from flashpress.reproduce.claims import by_seed

    rows = [r for r in ok_rows(table, "op-size") if r.get("rs") is not None]
    out: dict[float, Measure] = {}
    for rs in sorted({float(r["rs"]) for r in rows}):
        m = by_seed((replicate(r), metric(r, "throughput")) for r in rows if float(r["rs"]) == rs)
        if m is not None:
            out[rs] = m
    return out


def op_negligible_after(seed: str, knee: float | None) -> Claim:
    """'Negligible' (:data:`~flashpress.reproduce.claims.SIZE_WORDS`) gain from the OP size
    ``knee`` to the largest swept, where growing the OP up to the knee did change the
    throughput (outside the noise band: a flat curve proves nothing). ``knee`` None ("a specific
    value"): holds when some swept OP size below the largest is such a knee. A fact about F2FS
    on the CSD, the baseline stack (no scheme in these runs)."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        from flashpress.reproduce.claims import Measure

        pts = _rs_points(table)
        if len(pts) < 3 or (knee is not None and knee not in pts):
            return missing("the OP-size sweep")
        lo, hi = min(pts), max(pts)
        knees = [knee] if knee is not None else [k for k in pts if lo < k < hi]
        tried = []
        for k in knees:
            before = Measure(tuple(100 * (a / b - 1) for a, b in zip(pts[k].per_seed, pts[lo].per_seed, strict=True)))
            after = Measure(tuple(100 * (a / b - 1) for a, b in zip(pts[hi].per_seed, pts[k].per_seed, strict=True)))
            grew = judge_ordering(before, True, f"OP {lo:.0%} -> {k:.0%}")
            flat = judge_word(after, "negligible", None, f"OP {k:.0%} -> {hi:.0%}")
            if grew.status != HOLDS:
                tried.append(Verdict(INCONCLUSIVE, after.value, f"the OP changes nothing up to {k:.0%} ({grew.why})"))
            else:
                tried.append(Verdict(flat.status, after.value, f"{flat.why}; {grew.why}"))
        n = len(next(iter(pts.values())).per_seed)
        good = [v for v in tried if v.status == HOLDS]
        pick = good[0] if good else min(tried, key=lambda v: abs(v.measured or 0.0))
        status = HOLDS if good else (FAILS if any(v.status == FAILS for v in tried) else INCONCLUSIVE)
        lead = "" if pick.why.startswith(("holds", "fails", "inconclusive")) else f"{status}: "
        return Verdict(status, pick.measured, lead + pick.why, n)

    return marked(Claim("op-size", seed, None if knee is None else 100 * knee, "%", "similar", ev), baseline_fact=True)


def power_rises() -> Claim:
    """The CSD's power rises as it heats: the power heating the device over the last tenth of
    the intervals before the first throttle against the first tenth, with compression."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        m = values(table, "motivation", "power_rise", variant=WITH_23C)
        if m is None:
            return missing(f"the power timeline of {WITH_23C}")
        return judge_ordering(m, True, "device power before the throttle, hottest tenth vs first tenth")

    return marked(
        Claim("motivation", "so does power consumption (with the temperature)", None, "%", "ordering", ev),
        baseline_fact=True,
    )


def _f(row: Any, key: str) -> float | None:
    v = row.get(key)
    return None if v is None or v != v else float(v)


def heats_up(row: Any) -> tuple[bool, str] | None:
    peak, room = _f(row, "stack.temperature.max_c"), _f(row, "cfg.ambient_c")
    if peak is None or room is None:
        return None
    return peak - room >= RISE_MIN_C, f"{row.get('variant')}: {room:g} -> {peak:.1f} °C"


def levels_off(row: Any) -> tuple[bool, str] | None:
    """No shutdown, and the temperature's rate of change after the first throttle (rising or
    falling) at most :data:`LEVEL_RATE_SHARE` of its rise before it. None when the run never
    throttled (no heat protection to show) or has no rates."""
    shutdown = _f(row, "stack.temperature.shutdown_s")
    peak = _f(row, "stack.temperature.max_c")
    if shutdown is not None:
        return False, f"shut down at {shutdown:.1f} s (simulated), peak {peak:.1f} °C"
    before = _f(row, "timeline.heat_rate_before_throttle_c_s")
    after = _f(row, "timeline.heat_rate_after_throttle_c_s")
    if before is None or after is None or before <= 0:
        return None
    share = after / before
    return (
        abs(share) <= LEVEL_RATE_SHARE,
        f"no shutdown, peak {peak:.1f} °C; {after:+.3g} °C/s after the throttle against {before:+.3g} before "
        f"(simulated seconds): {share:.2f} of it",
    )


__all__ = ["LEVEL_RATE_SHARE", "coco_claims", "levels_off", "op_negligible_after"]
