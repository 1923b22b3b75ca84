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
    marked,
    never,
    not_run,
    ordering,
    ordering_each,
    similar,
    sized,
    tally,
)
from flashpress.reproduce.null import null_table, reversed_table
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


#: An ordering without a number (a stated number would be scored as a size too, below).
A_BELOW_B = ordering("f", "A below B", "A", "B", "throughput", higher=False)


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


def test_between_is_strict_and_in_the_seeds_orientation() -> None:
    c = between("f", "C between B (lower) and A", "C", "B", "A", "waf")
    rows = [{"scheme": s, "waf": w} for s, w in (("A", 1.0), ("B", 0.5), ("C", 1.0))]
    assert status_of(c, rows) == "inconclusive"  # C equals A: not "between"
    rows[2]["waf"] = 0.75
    assert status_of(c, rows) == "holds"
    rows[2]["waf"] = 1.2
    assert status_of(c, rows) == "fails"
    # The orientation is the seed's: with the ends the other way round the claim fails (were it
    # read from the runs, it would hold with every change reversed).
    rows[2]["waf"] = 0.75
    assert status_of(between("f", "C between A (lower) and B", "C", "A", "B", "waf"), rows) == "fails"


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
    built = magnitude("f", "9 x 16 KiB", 147456.0, " B", "max_c", construction="read from the config")
    bc = built.check(table([{"stack.temperature.max_c": 147456.0}]), QUICK)
    assert bc.status == "by construction"
    counts = tally([v, nr, bc, A_BELOW_B.check(table(pair(90.0, 100.0)), QUICK)])
    assert counts == {
        "holds": 1,
        "fails": 0,
        "inconclusive": 0,
        "fitted": 1,
        "not run": 1,
        "by construction": 1,
    }
    assert headline(counts).startswith(
        "Seed statements: 4; 1 hold (50% of 2 scored), 0 fail, 0 inconclusive, 1 not run; "
        "1 fitted and 1 by construction"
    )


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


# -- sizes are scored (a stated number is a magnitude and an ordering) -----------------------


def test_a_stated_change_must_match_in_size_not_only_in_sign() -> None:
    c = change("f", "A reduces throughput by 23%", -23.0, "A", "B")
    # -61% has the seed's sign but 2.65x its size: fails, saying the direction held.
    v = c.check(table(pair(39.0, 100.0)), QUICK)
    assert v.status == "fails"
    assert "direction holds" in v.why
    assert "not within a factor of 2" in v.why
    assert status_of(c, pair(80.0, 100.0)) == "holds"  # -20%: 0.87x
    assert status_of(c, pair(110.0, 100.0)) == "fails"  # wrong sign
    assert status_of(c, pair(99.5, 100.0)) == "inconclusive"  # inside the noise band
    # A stated +10% met by +162%.
    assert status_of(change("f", "+10%", 10.0, "A", "B"), pair(262.0, 100.0)) == "fails"


def test_points_are_scored_within_ten_points() -> None:
    rows = [
        {"scheme": "A", "pattern": "p", "stack.cpu.utilization": 0.30},
        {"scheme": "B", "pattern": "p", "stack.cpu.utilization": 0.10},
    ]
    c = change("f", "+19.5 points of CPU", 19.5, "A", "B", "cpu", points=True)
    assert c.check(table(rows), QUICK).measured == pytest.approx(20.0)
    assert c.check(table(rows), QUICK).status == "holds"
    c = change("f", "+35 points of CPU", 35.0, "A", "B", "cpu", points=True)
    assert c.check(table(rows), QUICK).status == "fails"


def test_up_to_is_the_largest_change_among_the_runs() -> None:
    rows = pair(170.0, 100.0, pattern="w1") + pair(110.0, 100.0, pattern="w2") + pair(130.0, 100.0, pattern="w3")
    up_to = change("f", "up to 72%", 72.0, "A", "B", stat="max", over="pattern")
    v = up_to.check(table(rows), QUICK)
    assert v.status == "holds"
    assert v.measured == pytest.approx(70.0)
    assert "pattern=w1" in v.why
    # The mean (+36.7%) would also be within a factor of 2; a best run of +20% is not.
    low = pair(120.0, 100.0, pattern="w1") + pair(105.0, 100.0, pattern="w2")
    assert up_to.check(table(low), QUICK).status == "fails"
    with pytest.raises(ValueError, match="needs `over`"):
        change("f", "up to 72%", 72.0, "A", "B", stat="max")
    # Restricted to some groups by the same label: the largest among those only.
    some = change("f", "up to 30%", 30.0, "A", "B", stat="max", over="pattern", pattern=("w2", "w3"))
    v = some.check(table(rows), QUICK)
    assert v.measured == pytest.approx(30.0)
    assert "pattern=w3" in v.why


@pytest.mark.parametrize(
    ("word", "higher", "a", "want"),
    [
        ("slightly", True, 203.4, "fails"),  # COCO's "slightly improves" met by +103.4%
        ("slightly", True, 110.0, "holds"),
        ("slightly", False, 39.0, "fails"),  # PR-SSD's "slightly reduce" met by -61%
        ("slightly", True, 100.5, "inconclusive"),  # inside the noise band
        ("significantly", True, 110.0, "fails"),
        ("significantly", True, 125.0, "holds"),
        ("comparable", None, 108.0, "holds"),
        ("comparable", None, 115.0, "fails"),
        ("insignificant", None, 102.0, "holds"),
        ("insignificant", None, 110.0, "fails"),
    ],
)
def test_size_words_are_scored_against_their_bands(word: str, higher: bool | None, a: float, want: str) -> None:
    c = sized("f", f"A {word} vs B", word, "A", "B", higher=higher)
    assert status_of(c, pair(a, 100.0)) == want


def test_identical_schemes_are_inconclusive_mechanism_inactive() -> None:
    for c in (similar("f", "A about B", "A", "B"), sized("f", "comparable", "comparable", "A", "B", higher=None)):
        v = c.check(table(pair(100.0, 100.0)), QUICK)
        assert v.status == "inconclusive"
        assert "mechanism inactive" in v.why
    with pytest.raises(ValueError, match="unknown size word"):
        sized("f", "x", "hugely", "A", "B", higher=True)


def test_a_tolerance_of_its_own_is_recorded_and_markings_are_checked() -> None:
    c = similar("f", "A about B", "A", "B", tol_pct=25.0, tol_why="the seed's bars differ by up to 25%")
    assert c.tolerance == "±25%: the seed's bars differ by up to 25%"
    assert similar("f", "A about B", "A", "B").tolerance is None
    fact = ordering("f", "Baseline throttles", "A", "B", "throughput", higher=False, baseline_fact=True)
    assert fact.kind == "baseline_fact"
    assert ordering("f", "ours", "A", "B", "throughput", higher=False, ours=True).ours
    with pytest.raises(ValueError, match="unknown marking"):
        marked(fact, guess=True)


# -- the null model ------------------------------------------------------------------------


def test_the_null_table_replaces_each_scheme_by_its_baseline_and_the_reversed_one_inverts_it() -> None:
    t = table([*pair(80.0, 100.0, pattern="w"), {"scheme": "C", "pattern": "other", "write.throughput_mb_s": 5.0}])
    nulled = null_table(t, {"scheme": "B"})
    assert list(nulled["write.throughput_mb_s"]) == [100.0, 100.0, 5.0]  # C has no baseline run: unchanged
    flipped = reversed_table(t, {"scheme": "B"})
    assert list(flipped["write.throughput_mb_s"]) == [pytest.approx(125.0), 100.0, 5.0]
    # An event present only in the baseline moves to the scheme (and back).
    ev = table(
        [
            {"scheme": "A", "pattern": "w", "stack.shutdown_s": None},
            {"scheme": "B", "pattern": "w", "stack.shutdown_s": 3.0},
        ]
    )
    assert next(iter(reversed_table(ev, {"scheme": "B"})["stack.shutdown_s"])) == 3.0


def test_a_claim_that_cannot_fail_is_caught_and_a_guarded_one_is_not() -> None:
    t = table(pair(80.0, 100.0))
    guarded = ordering("f", "A below B", "A", "B", "throughput", higher=False)
    unguarded = bound("f", "A at most B's 100", 100.0, "MB/s", "throughput", limit=100.0, below=True, limit_why="B's")
    assert guarded.check(t, QUICK).status == "holds"
    assert unguarded.check(t, QUICK).status == "holds"
    holds = _null_holds([guarded, unguarded], t)
    assert [h.claim.seed for h in holds] == ["A at most B's 100"]
    # A baseline fact may hold whatever the schemes do.
    assert _null_holds([marked(unguarded, baseline_fact=True)], t) == []


def _null_holds(cs: list[Any], t: pd.DataFrame) -> list[Any]:
    from flashpress.reproduce.null import null_check

    return null_check("cagc", t.assign(scheme=t["scheme"].replace({"B": "Baseline"})), QUICK, [_rename(c) for c in cs])


def _rename(c: Any) -> Any:
    """``c`` with its reference scheme B read as the paper's Baseline."""
    from dataclasses import replace

    inner = c.evaluate

    def ev(t: pd.DataFrame, scale: Any) -> Any:
        return inner(t.assign(scheme=t["scheme"].replace({"Baseline": "B"})), scale)

    return replace(c, evaluate=ev)


def _committed(paper: str) -> pd.DataFrame:
    from pathlib import Path

    from flashpress.reproduce import read_results

    return read_results(Path(__file__).resolve().parents[2] / "docs" / "reproduce" / paper)


@pytest.mark.parametrize("paper", ["waltz", "coco", "prssd", "cagc", "lossy"])
def test_no_claim_of_a_committed_report_holds_under_the_null_model(paper: str) -> None:
    from flashpress.reproduce.null import null_check

    holds = null_check(paper, _committed(paper), get_scale("default"))
    assert not holds, "claims that hold whatever the schemes do:\n" + "\n".join(map(str, holds))


def test_removing_the_noise_band_guard_makes_the_null_check_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mutation: an ordering judged by its sign alone (no noise band) holds between identical
    runs, and the null model must catch it."""
    import flashpress.reproduce.claims as rules
    from flashpress.reproduce.null import null_check

    def sign_only(m: Measure, want_positive: bool, text: str, floor: float = 0.0) -> Any:
        ok = (m.value > 0) == want_positive or (m.value == 0 and not want_positive)
        return rules.Verdict("holds" if ok else "fails", m.value, "sign only", len(m.per_seed))

    monkeypatch.setattr(rules, "judge_ordering", sign_only)
    assert null_check("cagc", _committed("cagc"), get_scale("default"))


def test_the_claims_list_script_counts_every_claim_of_a_paper() -> None:
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "scripts" / "claims_list.py"
    out = subprocess.run([sys.executable, str(script), "cagc"], capture_output=True, text=True, check=True).stdout
    cs = claims("cagc")
    listed = [line for line in out.splitlines() if line.startswith("  ")]
    assert len(listed) == len(cs)
    seed = [c for c in cs if not c.ours]
    assert f"cagc: {len(seed)} statements, {sum(c.scored for c in seed)} scored" in out
    bad = subprocess.run([sys.executable, str(script), "nope"], capture_output=True, text=True, check=False)
    assert bad.returncode == 2
    assert "unknown paper 'nope'" in bad.stderr
