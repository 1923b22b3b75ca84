"""The Waltz paper's own claim shapes (`reproduce.papers.waltz.claims`) on synthetic result
tables: each holds where the seed's statement does, fails or is inconclusive where the scheme did
nothing (the null model's case) or the opposite."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from flashpress.reproduce.claims import ordering
from flashpress.reproduce.papers.waltz.claims import (
    THROTTLE_CUT_PCT,
    above_below,
    active,
    comparable_to_throttle,
    fold_drop,
    hits_t_hard,
    majority_on_device,
    mean_change,
    never_unlike_baseline,
    ratio_all,
    rs_vs_empty,
    same_without_sc,
    slows_after_throttle,
    smaller_drop,
    up_to,
    waltz_claims,
)
from flashpress.reproduce.scale import get_scale

QUICK = get_scale("quick")


def status(claim: Any, rows: list[dict[str, Any]]) -> str:
    base = {"status": "ok", "run_id": "r", "rep": 0}
    return str(claim.check(pd.DataFrame([{**base, **r} for r in rows]), QUICK).status)


def thr(fig: str, scheme: str, pattern: str, mbps: float, rep: int = 0, **extra: Any) -> dict[str, Any]:
    side = "write" if pattern.endswith("write") else "read"
    return {"figure": fig, "scheme": scheme, "pattern": pattern, f"{side}.throughput_mb_s": mbps, "rep": rep, **extra}


def fig4(drops: dict[str, float]) -> list[dict[str, Any]]:
    """Fig 4: no compression at 1,000 MB/s, F2FSC (one codec) down by ``drops[pattern]`` percent."""
    rows = []
    for p, d in drops.items():
        rows.append(thr("fig4", "Baseline", p, 1000.0, codec="W/o Compr."))
        rows.append(thr("fig4", "F2FSC", p, 1000.0 * (1 + d / 100), codec="ZSTD"))
    return rows


def test_the_fold_drop_is_a_size_and_an_ordering() -> None:
    c = fold_drop("fig4", "50x", 50.0, "F2FSC", "Baseline", pattern="rand-write")
    assert status(c, fig4({"rand-write": -98.8})) == "holds"  # 83x: within a factor 2 of 50x
    assert status(c, fig4({"rand-write": -90.0})) == "fails"  # 10x
    assert status(c, fig4({"rand-write": 0.0})) == "inconclusive"  # the null model: no drop at all
    assert status(c, fig4({"rand-write": +50.0})) == "fails"


def test_a_smaller_drop_needs_two_drops() -> None:
    reads_vs_writes = smaller_drop("reads degrade less", ("seq-read",), ("seq-write",))
    assert status(reads_vs_writes, fig4({"seq-read": -50.0, "seq-write": -90.0})) == "holds"
    assert status(reads_vs_writes, fig4({"seq-read": -95.0, "seq-write": -90.0})) == "fails"
    # Nothing degrades (the null model): no evidence that one drop is smaller.
    assert status(reads_vs_writes, fig4({"seq-read": 0.0, "seq-write": 0.0})) == "inconclusive"
    # Reads faster than without compression (the reversed model) is no smaller drop either.
    assert status(reads_vs_writes, fig4({"seq-read": 50.0, "seq-write": -90.0})) == "inconclusive"
    vs_throttle = smaller_drop("decompression costs less than the throttle", ("seq-read",), None)
    assert status(vs_throttle, fig4({"seq-read": -50.0})) == "holds"
    assert status(vs_throttle, fig4({"seq-read": -95.0})) == "fails"
    assert status(vs_throttle, fig4({"seq-read": 0.0})) == "inconclusive"


@pytest.mark.parametrize(
    ("drop", "want"),
    [(-THROTTLE_CUT_PCT, "holds"), (-95.0, "holds"), (-80.0, "holds"), (-79.0, "fails"), (0.0, "inconclusive")],
)
def test_comparable_to_the_throttle_is_within_ten_points(drop: float, want: str) -> None:
    c = comparable_to_throttle("comparable to the 90% throttle", ("seq-write",))
    assert status(c, fig4({"seq-write": drop})) == want


def test_up_to_scores_the_largest_pattern() -> None:
    c = up_to("f", "up to +100%", 100.0, "A", "B", ("seq-write", "rand-write"))
    rows = [thr("f", "B", p, 100.0) for p in ("seq-write", "rand-write")]
    assert status(c, [*rows, thr("f", "A", "seq-write", 110.0), thr("f", "A", "rand-write", 190.0)]) == "holds"
    # The mean (+50%) would pass a factor 2 too; the largest, +300%, does not.
    assert status(c, [*rows, thr("f", "A", "seq-write", 100.0), thr("f", "A", "rand-write", 400.0)]) == "fails"
    assert status(c, [*rows, thr("f", "A", "seq-write", 100.0), thr("f", "A", "rand-write", 100.0)]) == "inconclusive"


def test_a_group_change_is_the_mean_of_its_members() -> None:
    c = mean_change("f", "Waltz -20%", -20.0, ("X", "Y"), "B", "throughput")
    base = [thr("f", "B", "seq-write", 100.0)]
    assert status(c, [*base, thr("f", "X", "seq-write", 70.0), thr("f", "Y", "seq-write", 90.0)]) == "holds"
    # One member at -100% and one at +50%: the mean is -25%, within a factor 2 of -20%.
    assert status(c, [*base, thr("f", "X", "seq-write", 0.0), thr("f", "Y", "seq-write", 150.0)]) == "holds"
    assert status(c, [*base, thr("f", "X", "seq-write", 100.0), thr("f", "Y", "seq-write", 96.0)]) == "fails"


def test_a_mechanism_that_never_acts_is_inconclusive() -> None:
    inner = ordering("fig19", "FPC uses less CPU than F2FSC", "FPC", "F2FSC", "cpu", higher=False)
    c = active(inner, "fig19", "FPC", "stack.tasks.compress_host_blocks", "compresses a block on the host")

    def rows(fpc_blocks: int) -> list[dict[str, Any]]:
        return [
            {
                "figure": "fig19",
                "scheme": "F2FSC",
                "stack.cpu.utilization": 0.05,
                "stack.tasks.compress_host_blocks": 9,
            },
            {
                "figure": "fig19",
                "scheme": "FPC",
                "stack.cpu.utilization": 0.0 if fpc_blocks == 0 else 0.01,
                "stack.tasks.compress_host_blocks": fpc_blocks,
            },
        ]

    assert status(inner, rows(0)) == "holds"  # FPC compressing nothing "reduces" CPU use
    assert status(c, rows(0)) == "inconclusive"
    assert status(c, rows(5)) == "holds"


def temp_rows(fig: str, baseline_shutdown: float | None, waltz_peak: float) -> list[dict[str, Any]]:
    return [
        {
            "figure": fig,
            "scheme": "Baseline",
            "stack.temperature.shutdown_s": baseline_shutdown,
            "stack.temperature.max_c": 86.0,
        },
        {
            "figure": fig,
            "scheme": "Waltz_s",
            "stack.temperature.shutdown_s": None,
            "stack.temperature.max_c": waltz_peak,
        },
    ]


def test_no_shutdown_means_something_only_where_baseline_shuts_down() -> None:
    c = never_unlike_baseline("fig12", "never shut down", "shutdown_s", "shutdown", ("Waltz_s",), below_c=86.0)
    assert status(c, temp_rows("fig12", 30.0, 85.0)) == "holds"
    assert status(c, temp_rows("fig12", None, 85.0)) == "inconclusive"  # the window ends before Baseline's
    assert status(c, temp_rows("fig12", 30.0, 86.5)) == "fails"  # overheated though not shut down
    shut = temp_rows("fig12", 30.0, 85.0)
    shut[1]["stack.temperature.shutdown_s"] = 40.0
    assert status(c, shut) == "fails"


@pytest.mark.parametrize(("peak", "want"), [(85.03, "holds"), (84.95, "holds"), (84.5, "fails"), (86.0, "fails")])
def test_hitting_t_hard_stays_below_the_emergency(peak: float, want: str) -> None:
    c = hits_t_hard("fig12", "may hit T_hard", ("Waltz_s",))
    assert status(c, temp_rows("fig12", 30.0, peak)) == want


def test_the_device_majority_needs_some_host_work() -> None:
    c = majority_on_device("majority on the device", ("Waltz_s",))

    def rows(*shares: float) -> list[dict[str, Any]]:
        return [
            {"figure": "fig14", "scheme": "Waltz_s", "pattern": f"p{i}", "stack.tasks.host_share": s}
            for i, s in enumerate(shares)
        ]

    assert status(c, rows(0.1, 0.42)) == "holds"
    assert status(c, rows(0.1, 0.6)) == "fails"
    assert status(c, rows(0.0, 0.0)) == "inconclusive"  # Baseline's shares: nothing scheduled


def test_same_without_sc_needs_osa_to_matter_with_sc() -> None:
    c = same_without_sc("the same because no SC")

    def rows(with_sc_gain: float) -> list[dict[str, Any]]:
        out = []
        for s, v in (("TCS", 100.0), ("Waltz_s", 101.0)):
            out.append(thr("fig14", s, "seq-write", v, **{"stack.fs.counters.cleaning_invocations": 0}))
        out.append(thr("fig15", "TCS", "rand-write", 100.0))
        out.append(thr("fig15", "Waltz_s", "rand-write", 100.0 * (1 + with_sc_gain / 100)))
        return out

    assert status(c, rows(60.0)) == "holds"
    assert status(c, rows(0.0)) == "inconclusive"


def test_above_below_keeps_the_seeds_orientation() -> None:
    c = above_below("f", "TCS between", "T", "B", "F", "waf")

    def rows(t: float) -> list[dict[str, Any]]:
        return [{"figure": "f", "scheme": s, "pattern": "p", "waf": v} for s, v in (("B", 1.0), ("T", t), ("F", 2.0))]

    assert status(c, rows(1.5)) == "holds"
    assert status(c, rows(0.5)) == "fails"  # below both: not between
    assert status(c, rows(1.0)) == "inconclusive"


def test_ratio_all_needs_every_scheme_to_gain() -> None:
    c = ratio_all("all improve", ("A", "B"), (("seq-write",),))

    def rows(gain_b: float) -> list[dict[str, Any]]:
        out = []
        for s, g in (("A", 10.0), ("B", gain_b)):
            out.append(thr("fig16", s, "seq-write", 100.0, ratio=2))
            out.append(thr("fig16", s, "seq-write", 100.0 * (1 + g / 100), ratio=4))
        return out

    assert status(c, rows(5.0)) == "holds"
    assert status(c, rows(0.0)) == "inconclusive"
    assert status(c, rows(-5.0)) == "fails"


def test_the_rs_gap_to_the_empty_partition_is_a_size() -> None:
    c = rs_vs_empty("fig9", "only 3.1%", 3.1, 0.2)

    def rows(at_rs: float) -> list[dict[str, Any]]:
        return [
            {"figure": "fig9", "scheme": "Baseline", "variant": "empty", "write.throughput_mb_s": 100.0},
            {"figure": "fig9", "scheme": "Baseline", "rs": 0.2, "write.throughput_mb_s": at_rs},
        ]

    assert status(c, rows(97.0)) == "holds"
    assert status(c, rows(57.0)) == "fails"  # 43% below, 14x the seed's gap
    assert status(c, rows(100.0)) == "inconclusive"


def test_the_rise_slows_against_the_unthrottled_curve_not_against_its_own_start() -> None:
    """tau 100 s from 23 °C, throttle at 50 s: the first-order curve heads for 157.7 °C and would
    take 13.06 s from 76 to 86 °C unthrottled; its own rate there is already far below its mean
    rate before the throttle, so a device that never slowed must still fail."""
    c = slows_after_throttle("fig3", "slower pace")

    def rows(after_s: float) -> list[dict[str, Any]]:
        return [
            {
                "figure": "fig3",
                "scheme": "Baseline",
                "cfg.tau_s": 100.0,
                "cfg.ambient_c": 23.0,
                "cfg.neighbour_c": 0.0,
                "stack.temperature.first_throttle_s": 50.0,
                "stack.temperature.shutdown_s": 50.0 + after_s,
            }
        ]

    assert status(c, rows(13.06)) == "fails"  # exactly the unthrottled curve
    assert status(c, rows(15.0)) == "fails"  # 13% slower: inside the 20% band
    assert status(c, rows(40.0)) == "holds"
    no_shutdown = rows(40.0)
    no_shutdown[0]["stack.temperature.shutdown_s"] = None
    assert status(c, no_shutdown) == "fails"


def test_every_claim_quotes_the_seed_with_its_section() -> None:
    cs = waltz_claims()
    assert len({c.seed for c in cs}) == len(cs), "two claims share a quote"
    for c in cs:
        assert c.seed.startswith("§"), c.seed
