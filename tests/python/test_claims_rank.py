"""Claims that compare a scheme's change between groups of runs (PR-SSD's and CAGC's "the
largest reduction is on Mail", "16 channels slightly below 8"), on synthetic result tables with
the changes computed by hand."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from flashpress.reproduce.null import null_table, reversed_table
from flashpress.reproduce.rank import change_gap, gap_sized, group_extreme
from flashpress.reproduce.scale import get_scale

QUICK = get_scale("quick")


def runs(changes: dict[Any, float], over: str = "workload", reps: int = 2, jitter: float = 0.0) -> pd.DataFrame:
    """Baseline at 100 erases and CAGC at 100 * (1 + change) per group, ``reps`` seeds; seed k adds
    ``k * jitter`` points to every change."""
    rows = []
    for g, c in changes.items():
        for k in range(reps):
            for scheme, v in (("Baseline", 100.0), ("CAGC", 100.0 + c + k * jitter)):
                rows.append(
                    {"figure": "f", "status": "ok", "run_id": f"{scheme}/{g}/{k}", "scheme": scheme, over: g, "rep": k}
                    | {"gc_blocks_erased": v}
                )
    return pd.DataFrame(rows)


MAIL_LARGEST = group_extreme("f", "Mail largest", "CAGC", "Baseline", "erases", at="mail", largest_drop=True)


def test_the_gap_is_the_difference_of_the_two_changes_per_seed() -> None:
    m = change_gap(
        runs({"mail": -60.0, "homes": -20.0}),
        "f",
        "CAGC",
        "Baseline",
        "erases",
        over="workload",
        at="mail",
        other="homes",
    )
    assert m is not None
    assert m.per_seed == pytest.approx((-40.0, -40.0))


def test_the_named_group_must_lead_every_other_group() -> None:
    assert MAIL_LARGEST.check(runs({"homes": -20.0, "web-vm": -40.0, "mail": -60.0}), QUICK).status == "holds"
    # Web-vm reduces more than Mail: fails, even though Mail beats Homes.
    v = MAIL_LARGEST.check(runs({"homes": -20.0, "web-vm": -70.0, "mail": -60.0}), QUICK)
    assert v.status == "fails"
    assert v.measured == pytest.approx(10.0)
    # Mail ahead of Web-vm by half a point only: inside the 1-point band.
    assert MAIL_LARGEST.check(runs({"homes": -20.0, "web-vm": -59.5, "mail": -60.0}), QUICK).status == "inconclusive"


def test_the_smallest_reduction_is_the_other_way_round() -> None:
    smallest = group_extreme("f", "DB smallest", "CAGC", "Baseline", "erases", at="DB", largest_drop=False)
    assert smallest.check(runs({"DB": -5.0, "Copy": -20.0}), QUICK).status == "holds"
    assert smallest.check(runs({"DB": -30.0, "Copy": -20.0}), QUICK).status == "fails"


def test_the_spread_of_the_gap_between_seeds_widens_the_band() -> None:
    # Mail's change is -60 then -55 (jitter applies to every group alike, so the gap is steady) ...
    assert MAIL_LARGEST.check(runs({"homes": -20.0, "mail": -60.0}, jitter=5.0), QUICK).status == "holds"
    # ... but a gap of -2 then +2 points straddles zero.
    rows = pd.concat(
        [runs({"homes": -20.0, "mail": -22.0}, reps=1), runs({"homes": -20.0, "mail": -18.0}, reps=1).assign(rep=1)]
    )
    assert MAIL_LARGEST.check(rows, QUICK).status == "inconclusive"


def test_a_missing_group_is_not_run() -> None:
    assert MAIL_LARGEST.check(runs({"homes": -20.0}), QUICK).status == "not run"


def test_under_the_null_table_the_gap_vanishes_and_reversed_it_fails() -> None:
    t = runs({"homes": -20.0, "web-vm": -40.0, "mail": -60.0})
    assert MAIL_LARGEST.check(null_table(t, {"scheme": "Baseline"}), QUICK).status == "inconclusive"
    assert MAIL_LARGEST.check(reversed_table(t, {"scheme": "Baseline"}), QUICK).status == "fails"


SIXTEEN_SLIGHTLY = gap_sized(
    "f",
    "16 slightly below 8",
    "slightly",
    "CAGC",
    "Baseline",
    "erases",
    over="channels",
    at=(16,),
    other=None,
    higher=False,
)


def test_a_size_word_on_the_gap_between_devices() -> None:
    # 8 channels is the unlabelled device (None), as in PR-SSD's Fig. 17b.
    assert SIXTEEN_SLIGHTLY.check(runs({None: -20.0, 16: -25.0}, over="channels"), QUICK).status == "holds"
    assert SIXTEEN_SLIGHTLY.check(runs({None: -20.0, 16: -40.0}, over="channels"), QUICK).status == "fails"
    assert SIXTEEN_SLIGHTLY.check(runs({None: -20.0, 16: -15.0}, over="channels"), QUICK).status == "fails"
    assert SIXTEEN_SLIGHTLY.check(runs({None: -20.0, 16: -20.5}, over="channels"), QUICK).status == "inconclusive"


def test_insignificant_needs_every_device_and_runs_that_differ() -> None:
    both = gap_sized(
        "f",
        "differ insignificantly",
        "insignificant",
        "CAGC",
        "Baseline",
        "erases",
        over="channels",
        at=(4, 16),
        other=None,
        higher=None,
    )
    assert both.kind == "similar"
    assert both.check(runs({None: -20.0, 4: -21.0, 16: -18.0}, over="channels"), QUICK).status == "holds"
    assert both.check(runs({None: -20.0, 4: -21.0, 16: -30.0}, over="channels"), QUICK).status == "fails"
    t = runs({None: -20.0, 4: -21.0, 16: -18.0}, over="channels")
    assert both.check(null_table(t, {"scheme": "Baseline"}), QUICK).status == "inconclusive"


def test_an_unknown_size_word_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown size word 'tiny'"):
        gap_sized("f", "x", "tiny", "A", "B", "erases", over="channels", at=(4,), other=None, higher=None)


def test_markings_pass_through() -> None:
    c = group_extreme("f", "ours", "CAGC", "Baseline", "erases", at="mail", largest_drop=True, ours=True)
    assert c.ours
