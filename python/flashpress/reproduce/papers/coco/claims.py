"""What the COCO seed (workshop slides) states, quoted, with the kind of each statement and how
it is checked (the rules are in :mod:`flashpress.reproduce.claims`).

The slides measure "power consumption of CSD": the power claims use the device's mean power
(``device_power``), not device plus host CPU."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flashpress.reproduce.claims import (
    Claim,
    Verdict,
    change,
    every_run,
    extreme,
    judge_ordering,
    missing,
    ordering,
    similar,
    values,
    with_causes,
)
from flashpress.reproduce.papers.coco.causes import COCO_CAUSES
from flashpress.reproduce.papers.coco.experiments import F2FS_COMPRESSION, F2FS_GC, F2FS_NO_GC
from flashpress.reproduce.papers.waltz.claims import rs_peak, rs_plateau
from flashpress.reproduce.papers.waltz.experiments import SC_FILL, WITH_23C, WITHOUT_23C

if TYPE_CHECKING:
    import pandas as pd

    from flashpress.reproduce.scale import Scale

#: "Stabilises": at most this rise (°C) over the last tenth of the run (our reading; the slide
#: gives no number).
LEVEL_C = 1.0

#: The schemes the slides compare; "lowest" and "above every other" range over these (variants
#: the reproduction adds, such as another reading of COCO, are reported but are not the seed's).
SEED_SCHEMES = ("Baseline", "F2FSC", "FACS", "COCO")


def coco_claims() -> list[Claim]:
    others = tuple(s for s in SEED_SCHEMES if s != "F2FSC")
    return with_causes(_claims(others), COCO_CAUSES)


def _claims(others: tuple[str, ...]) -> list[Claim]:
    return [
        change("throughput", "F2FSC -42.6% throughput vs Baseline (average)", -42.6, "F2FSC", "Baseline"),
        ordering("throughput", "FACS slightly improves the performance", "FACS", "Baseline", "throughput", higher=True),
        change("throughput", "COCO +31.7% throughput vs Baseline (average)", 31.7, "COCO", "Baseline"),
        extreme(
            "power", "F2FSC has the lowest power consumption (of the CSD)", "F2FSC", others, "device_power", lowest=True
        ),
        change("power", "FACS power -32.5% vs Baseline (of the CSD)", -32.5, "FACS", "Baseline", "device_power"),
        ordering(
            "power",
            "COCO improves the performance while it reduces the power consumption of the CSD",
            "COCO",
            "Baseline",
            "device_power",
            higher=False,
        ),
        change("waf", "WAF of F2FSC improved by 12% (-12%) vs Baseline", -12.0, "F2FSC", "Baseline", "waf"),
        change("waf", "WAF of FACS improved by 4.5% (-4.5%) vs Baseline", -4.5, "FACS", "Baseline", "waf"),
        extreme(
            "throughput",
            "COCO (+31.7%) above FACS ('slightly') and every other scheme",
            "COCO",
            tuple(s for s in SEED_SCHEMES if s != "COCO"),
            "throughput",
            lowest=False,
        ),
        ordering("waf", "F2FSC's WAF (-12%) below FACS's (-4.5%)", "F2FSC", "FACS", "waf", higher=False),
        rs_peak("op-size", "The performance peaked when the OP size is 15%", 0.15, SC_FILL),
        rs_plateau("op-size", "OP space ratio > 15% brings negligible benefit", 0.15, tol_pct=5.0),
        power_rises(),
        ordering(
            "motivation",
            "Temperature of the CSD with compression is higher than without",
            WITH_23C,
            WITHOUT_23C,
            "max_c",
            higher=True,
            key="variant",
        ),
        every_run(
            "motivation",
            "Temperature of the CSD with compression stabilises because of heat protection",
            "the temperature levels off once the throttle is on (no shutdown, at most "
            f"{LEVEL_C:g} °C of rise over the run's last tenth)",
            levels_off,
            variant=WITH_23C,
        ),
        ordering(
            "gc",
            "GC causes severe performance degradation (F2FS)",
            F2FS_GC,
            F2FS_NO_GC,
            "throughput",
            higher=False,
            key="variant",
        ),
        similar(
            "gc",
            "Performance of F2FS with compression is similar to the performance with GC",
            F2FS_COMPRESSION,
            F2FS_GC,
            "throughput",
            tol_pct=10.0,
            tol_why="the slides give no tolerance for 'similar'; ±10% is our reading",
            key="variant",
        ),
    ]


def power_rises() -> Claim:
    """The CSD's power rises as it heats: the power heating the device over the last tenth of
    the intervals before the first throttle against the first tenth, with compression."""

    def ev(table: pd.DataFrame, scale: Scale) -> Verdict:
        m = values(table, "motivation", "power_rise", variant=WITH_23C)
        if m is None:
            return missing(f"the power timeline of {WITH_23C}")
        return judge_ordering(m, True, "device power before the throttle, hottest tenth vs first tenth")

    return Claim(
        "motivation",
        "128 KB sequential write: the temperature of the CSD rises with time, and so does its power",
        None,
        "%",
        "ordering",
        ev,
    )


def levels_off(row: Any) -> tuple[bool, str] | None:
    rise = row.get("timeline.rise_last_tenth_c")
    if rise is None or rise != rise:
        return None
    shutdown = row.get("stack.temperature.shutdown_s")
    down = shutdown is not None and shutdown == shutdown
    peak = row.get("stack.temperature.max_c")
    return (
        not down and rise <= LEVEL_C,
        f"{'shut down' if down else 'no shutdown'}, peak {peak:.1f} °C, {rise:+.2f} °C over the last tenth",
    )


__all__ = ["coco_claims"]
