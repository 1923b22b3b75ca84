"""The claim rule set (`flashpress.reproduce.claims`) on synthetic result tables: the cases the
old checks passed whatever the simulator did must come out inconclusive or failing."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from flashpress.reproduce.claims import (
    Measure,
    between,
    bound,
    change,
    change_bound,
    event,
    extreme,
    headline,
    magnitude,
    never,
    not_run,
    ordering_each,
    similar,
    tally,
)
from flashpress.reproduce.papers import claims
from flashpress.reproduce.scale import get_scale

QUICK = get_scale("quick")


def table(rows: list[dict[str, Any]]) -> pd.DataFrame:
    base = {"figure": "f", "status": "ok", "run_id": "r", "pattern": "p"}
    return pd.DataFrame([{**base, **r} for r in rows])


def pair(a: float, b: float, rep: int = 0, **extra: Any) -> list[dict[str, Any]]:
    """Scheme A at throughput ``a`` and scheme B at ``b`` (write pattern), one seed."""
    return [
        {"scheme": "A", "pattern": "seq-write", "write.throughput_mb_s": a, "rep": rep, **extra},
        {"scheme": "B", "pattern": "seq-write", "write.throughput_mb_s": b, "rep": rep, **extra},
    ]


def status_of(claim: Any, rows: list[dict[str, Any]]) -> str:
    return str(claim.check(table(rows), QUICK).status)


A_BELOW_B = change("f", "A -4.1% vs B", -4.1, "A", "B")


@pytest.mark.parametrize("a", [100.0, 100.0 * (1 - 1e-8), 99.5])
def test_a_change_inside_the_noise_floor_is_inconclusive(a: float) -> None:
    # Exactly 0, -1e-6 % and -0.5 % are all below the 1 % floor: never "below".
    assert status_of(A_BELOW_B, pair(a, 100.0)) == "inconclusive"


def test_an_ordering_holds_outside_the_band_and_fails_with_the_wrong_sign() -> None:
    assert status_of(A_BELOW_B, pair(90.0, 100.0)) == "holds"
    assert status_of(A_BELOW_B, pair(110.0, 100.0)) == "fails"


def test_the_spread_between_seeds_widens_the_band() -> None:
    # Seed 0: -10 %, seed 1: +2 %: mean -4 %, spread 12 points -> inconclusive.
    rows = pair(90.0, 100.0, rep=0) + pair(102.0, 100.0, rep=1)
    v = A_BELOW_B.check(table(rows), QUICK)
    assert v.status == "inconclusive"
    assert v.measured == pytest.approx(-4.0)
    assert v.seeds == 2
    assert Measure((-10.0, 2.0)).band() == pytest.approx(12.0)
    # Consistent seeds: -10 % and -9 % -> spread 1 point, band 1 % -> holds.
    rows = pair(90.0, 100.0, rep=0) + pair(91.0, 100.0, rep=1)
    assert status_of(A_BELOW_B, rows) == "holds"


def test_a_tiny_positive_ratio_effect_does_not_pass() -> None:
    # Fig 16's old check passed at +0.0000014 %.
    c = change("f", "A +36.3% over B", 36.3, "A", "B")
    assert status_of(c, pair(100.0 * (1 + 1.4e-8), 100.0)) == "inconclusive"


def test_a_bound_has_a_limit_and_272_kib_breaks_128_kb() -> None:
    c = bound(
        "f", "memory 128 KB", 131072, " B", "buffer_peak", limit=131072, below=True, limit_why="16 KB x 8", scheme="A"
    )
    rows = [{"scheme": "A", "stack.cpu.buffer_bytes_peak": 272 * 1024}]
    v = c.check(table(rows), QUICK)
    assert v.status == "fails"
    assert "278528" in v.why
    assert status_of(c, [{"scheme": "A", "stack.cpu.buffer_bytes_peak": 128 * 1024}]) == "holds"
    with pytest.raises(ValueError, match="finite limit"):
        bound("f", "x", 1.0, "", "cpu", limit=float("nan"), below=True, limit_why="")


def test_an_event_must_happen_in_every_run() -> None:
    c = event("f", "shuts down under all workloads", "shutdown_s", "shutdown", scheme="A")
    rows = [{"scheme": "A", "pattern": p, "stack.temperature.shutdown_s": 5.0} for p in ("w", "x", "y")]
    assert status_of(c, rows) == "holds"
    rows.append({"scheme": "A", "pattern": "z", "stack.temperature.shutdown_s": None})
    v = c.check(table(rows), QUICK)
    assert v.status == "fails"
    assert "3 of 4" in v.why


def test_an_event_outside_its_time_band_fails() -> None:
    # 10.12 simulated s at time scale 0.01 = 1012 paper s; the band is 240-960 s.
    c = event("f", "shutdown in 8 min", "shutdown_s", "shutdown", seed_s=480, band_s=(240, 960), band_why="x2")
    assert status_of(c, [{"stack.temperature.shutdown_s": 10.12}]) == "fails"
    assert status_of(c, [{"stack.temperature.shutdown_s": 5.0}]) == "holds"


def test_never_means_in_no_run() -> None:
    c = never("f", "never shuts down", "shutdown_s", "shutdown")
    assert status_of(c, [{"stack.temperature.shutdown_s": None}] * 2) == "holds"
    assert status_of(c, [{"stack.temperature.shutdown_s": None}, {"stack.temperature.shutdown_s": 3.0}]) == "fails"


def test_between_is_strict() -> None:
    c = between("f", "C between A and B", "C", "A", "B", "waf")
    rows = [{"scheme": s, "waf": w} for s, w in (("A", 1.0), ("B", 0.5), ("C", 1.0))]
    assert status_of(c, rows) == "inconclusive"  # C equals A: not "between"
    rows[2]["waf"] = 0.75
    assert status_of(c, rows) == "holds"
    rows[2]["waf"] = 1.2
    assert status_of(c, rows) == "fails"


def test_lowest_is_against_every_scheme() -> None:
    c = extreme("f", "A has the lowest power", "A", ("B", "C", "D"), "device_power", lowest=True)
    rows = [{"scheme": s, "stack.energy.device_mean_w": w} for s, w in (("A", 15.9), ("B", 16.5), ("C", 14.2))]
    rows.append({"scheme": "D", "stack.energy.device_mean_w": 13.8})
    # Below B, but C and D are lower: the old one-pair check passed this.
    assert status_of(c, rows) == "fails"
    rows[0]["stack.energy.device_mean_w"] = 12.0
    assert status_of(c, rows) == "holds"


def test_a_zero_reference_is_an_infinite_change_not_a_missing_run() -> None:
    # Fig 19: F2FSC uses host CPU, Baseline none at all: F2FSC is the highest, not "not run".
    c = extreme("f", "A has the highest CPU usage", "A", ("B", "C"), "cpu", lowest=False)
    rows = [{"scheme": s, "stack.cpu.utilization": u, "rep": k} for k in (0, 1) for s, u in (("A", 0.07), ("B", 0.0))]
    rows += [{"scheme": "C", "stack.cpu.utilization": 0.03, "rep": k} for k in (0, 1)]
    assert status_of(c, rows) == "holds"
    # Both at zero: no change, inconclusive.
    for r in rows:
        if r["scheme"] == "A":
            r["stack.cpu.utilization"] = 0.0
    assert status_of(c, rows) == "fails"
    assert status_of(extreme("f", "B highest", "B", ("A",), "cpu", lowest=False), rows) == "inconclusive"


def test_a_magnitude_is_within_a_factor_of_two_or_ten_points() -> None:
    c = magnitude("f", "16% on the host", 16.0, "%", "host_share", points=True, scale_pct=True)
    assert status_of(c, [{"stack.tasks.host_share": 0.045}]) == "fails"  # 4.5 %: 11.5 points off
    assert status_of(c, [{"stack.tasks.host_share": 0.168}]) == "holds"
    c = magnitude("f", "60 °C", 60.0, " °C", "max_c")
    assert status_of(c, [{"stack.temperature.max_c": 29.0}]) == "fails"
    assert status_of(c, [{"stack.temperature.max_c": 31.0}]) == "holds"
    assert status_of(c, [{"stack.temperature.max_c": 121.0}]) == "fails"


def test_similar_needs_runs_that_differ() -> None:
    c = similar("f", "A similar to B", "A", "B", tol_pct=10.0, tol_why="ours")
    assert status_of(c, pair(100.0, 100.0)) == "inconclusive"
    assert status_of(c, pair(95.0, 100.0)) == "holds"
    assert status_of(c, pair(80.0, 100.0)) == "fails"
    because = similar("f", "A = B because no SC", "A", "B", tol_pct=5.0, tol_why="ours", because=("no SC", "sc_count"))
    rows = pair(100.0, 100.0, **{"stack.fs.counters.cleaning_invocations": 0})
    assert status_of(because, rows) == "holds"
    rows = pair(100.0, 100.0, **{"stack.fs.counters.cleaning_invocations": 3})
    assert status_of(because, rows) == "inconclusive"


def test_fitted_claims_are_shown_not_scored_and_not_run_counts_against() -> None:
    c = magnitude("f", "60 °C", 60.0, " °C", "max_c", fitted="r_c_per_w")
    v = c.check(table([{"stack.temperature.max_c": 60.0}]), QUICK)
    assert v.status == "fitted"
    nr = not_run("g", "OP peak at 15%", "ordering", "no sweep").check(table([]), QUICK)
    counts = tally([v, nr, A_BELOW_B.check(table(pair(90.0, 100.0)), QUICK)])
    assert counts == {"holds": 1, "fails": 0, "inconclusive": 0, "fitted": 1, "not run": 1}
    assert headline(counts).startswith("Claims: 1 of 2 scored claims hold (50%)")


@pytest.mark.parametrize("paper", ["waltz", "coco", "prssd", "cagc"])
def test_every_seed_claim_has_a_kind_and_a_unique_quote(paper: str) -> None:
    cs = claims(paper)
    assert len({(c.figure, c.seed) for c in cs}) == len(cs)
    for c in cs:
        if c.kind == "bound":
            assert c.seed_value is not None, c.seed


def test_every_run_means_every_run_that_can_show_it() -> None:
    from flashpress.reproduce.claims import every_run

    def test(r: dict[str, Any]) -> tuple[bool, str] | None:
        x = r.get("x")
        return None if x is None or x != x else (x > 0, f"x={x}")

    c = every_run("f", "x always", "x", test)
    assert status_of(c, [{"x": 1.0}, {"x": 2.0}]) == "holds"
    # a run without the figure (no timeline) is left out, not counted as holding
    assert status_of(c, [{"x": 1.0}, {"x": None}]) == "holds"
    v = c.check(table([{"x": 1.0}, {"x": 0.0, "run_id": "bad"}]), QUICK)
    assert v.status == "fails"
    assert "1 of 2" in v.why
    assert "bad: x=0.0" in v.why
    # no run can show it: missing, never a pass
    assert status_of(c, [{"x": None}]) == "not run"


def test_more_than_a_seed_number_is_a_bound_on_the_change() -> None:
    more = change_bound("f", "A is more than 50% above B", 50.0, "A", "B", "throughput", above=True)
    assert status_of(more, pair(160.0, 100.0)) == "holds"
    assert status_of(more, pair(102.0, 100.0)) == "fails"  # the right sign is not enough
    assert status_of(more, pair(90.0, 100.0)) == "fails"


def test_each_group_must_hold_not_their_mean() -> None:
    each = ordering_each("f", "A below B in every pattern", "A", "B", "throughput", higher=False, over="pattern")
    rows = [
        *pair(90.0, 100.0),
        {"scheme": "A", "pattern": "rand-write", "write.throughput_mb_s": 95.0, "rep": 0},
        {"scheme": "B", "pattern": "rand-write", "write.throughput_mb_s": 100.0, "rep": 0},
    ]
    assert status_of(each, rows) == "holds"
    # A mean over the two would be -4%, yet A is above B in one of them.
    rows[-2]["write.throughput_mb_s"] = 102.0
    assert status_of(each, rows) == "fails"
    assert status_of(each, []) == "not run"


def test_a_missing_label_matches_none_and_not_a_value() -> None:
    from flashpress.reproduce.metrics import ok_rows

    t = table(
        [
            {"scheme": "A", "variant": None, "x": 1},
            {"scheme": "A", "variant": "no-gc", "x": 2},
            {"scheme": "A", "x": 3},
        ]
    )
    assert t["variant"].isna().sum() == 2  # pandas holds the missing labels as NaN
    assert [r["x"] for r in ok_rows(t, "f", variant=None)] == [1, 3]
    assert [r["x"] for r in ok_rows(t, "f", variant="no-gc")] == [2]
    assert [r["x"] for r in ok_rows(t, "f", variant=("no-gc", "other"))] == [2]
