"""Figures read off a run's timeline (`flashpress.reproduce.timeline_features`) on synthetic
timelines whose answers are worked out by hand, and the Waltz claims that use them."""

from __future__ import annotations

from typing import Any

import pandas as pd

from flashpress.reproduce.papers.waltz.claims import cools_in_host_phases, cycles_at_t_hard, stays_throttled
from flashpress.reproduce.timeline_features import COLUMNS, features


def timeline(**cols: list[float]) -> pd.DataFrame:
    n = len(next(iter(cols.values())))
    base: dict[str, list[float]] = {"time_s": [0.1 * (i + 1) for i in range(n)]}
    return pd.DataFrame({**base, **cols})


def summary(first_throttle_s: float | None = None, shutdown_s: float | None = None) -> dict[str, Any]:
    return {"stack": {"temperature": {"first_throttle_s": first_throttle_s, "shutdown_s": shutdown_s}}}


def test_throughput_before_the_first_throttle_leaves_out_the_throttled_rows_and_the_last() -> None:
    tl = timeline(write_mb_s=[100, 300, 50, 50, 7], throttled=[0, 0, 1, 1, 1], temperature_c=[1] * 5)
    f = features(tl, summary(first_throttle_s=0.2))
    assert f["timeline.write_mb_s_before_throttle"] == 200.0  # rows ending at 0.1 and 0.2
    # never throttled: every row but the partial last one
    f = features(tl.assign(throttled=0), summary())
    assert f["timeline.write_mb_s_before_throttle"] == 125.0
    assert f["timeline.throttle_releases"] is None


def test_a_shutdown_is_not_a_release_but_a_lift_before_it_is() -> None:
    th = [0, 1, 1, 0, 0]
    tl = timeline(write_mb_s=[1] * 5, throttled=th, temperature_c=[1] * 5)
    # the row ending at 0.4 contains the shutdown at 0.35: not a release
    assert features(tl, summary(0.2, shutdown_s=0.35))["timeline.throttle_releases"] == 0.0
    # no shutdown: the throttle lifted at 0.4 while the device ran
    assert features(tl, summary(0.2))["timeline.throttle_releases"] == 1.0
    lifted = tl.assign(throttled=[0, 1, 0, 1, 0])
    assert features(lifted, summary(0.2, shutdown_s=0.45))["timeline.throttle_releases"] == 1.0


def test_host_phases_their_cooling_and_their_dip() -> None:
    tl = timeline(
        host_share=[0, 0, 0.1, 0.2, 0, 0.1, 0, 0.3],
        temperature_c=[80, 85, 84.9, 84.7, 85, 84.95, 85, 84],
        write_mb_s=[100, 100, 50, 70, 100, 80, 100, 10],
    )
    f = features(tl, summary())
    # two complete phases (rows 2-3 and 5); the last (row 7) runs into the end of the run
    assert f["timeline.host_phases"] == 2.0
    assert f["timeline.max_c_before_host"] == 85.0
    assert abs(f["timeline.host_phase_drop_c_min"] - 0.05) < 1e-9  # 85 -> 84.95
    assert abs(f["timeline.host_phase_drop_c_mean"] - (0.3 + 0.05) / 2) < 1e-9
    assert abs(f["timeline.host_phase_dip_pct_min"] - 20.0) < 1e-9  # 80 against 100
    assert abs(f["timeline.host_phase_dip_pct_mean"] - (40.0 + 20.0) / 2) < 1e-9  # 60 and 80
    assert f["timeline.back_to_device"] == 1.0
    assert set(f) == set(COLUMNS)


def test_a_host_phase_that_warms_the_device_or_never_ends_fails_the_waltz_claims() -> None:
    warming = timeline(
        host_share=[0, 0.1, 0, 0.1, 0],
        temperature_c=[85, 85.1, 85, 85.2, 85.1],
        write_mb_s=[100, 50, 100, 50, 100],
    )
    row = features(warming, summary())
    ok, why = cools_in_host_phases(row) or (None, "")
    assert ok is False, why
    # cooling phases at T_hard with a dip and a return hold both claims
    cooling = warming.assign(temperature_c=[85, 84.9, 85, 84.9, 85])
    row = features(cooling, summary())
    assert (cools_in_host_phases(row) or (None,))[0] is True
    assert (cycles_at_t_hard(row) or (None,))[0] is True
    # the same cycles far below T_hard (85 °C) are not Waltz_s's guard phase
    cool = features(cooling.assign(temperature_c=[70, 69.9, 70, 69.9, 70]), summary())
    assert (cycles_at_t_hard(cool) or (None,))[0] is False
    # no dip: the host did the work as fast as the device
    flat = features(cooling.assign(write_mb_s=[100] * 5), summary())
    assert (cycles_at_t_hard(flat) or (None,))[0] is False


def test_stays_throttled_needs_a_throttle_and_no_release() -> None:
    assert stays_throttled({"timeline.throttle_releases": None}) is None
    assert stays_throttled({"timeline.throttle_releases": 0.0}) == (
        True,
        "throttle lifted 0 time(s) before shutdown or the end",
    )
    assert (stays_throttled({"timeline.throttle_releases": 2.0}) or (None,))[0] is False


def test_power_before_the_throttle_and_the_last_rise() -> None:
    from flashpress.reproduce.metrics import power_rise
    from flashpress.reproduce.papers.coco.claims import levels_off

    n = 21  # 20 whole intervals and a partial last one
    tl = timeline(
        device_w=[10.0] * 2 + [11.0] * 16 + [13.0] * 2 + [0.0],
        throttled=[0] * 18 + [1] * 3,
        write_mb_s=[1.0] * n,
        temperature_c=[float(i) for i in range(n)],
    )
    # throttle at 1.8 s: 18 intervals before it, a tenth of them is 1 interval
    f = features(tl, summary(first_throttle_s=1.8))
    assert f["timeline.device_w_start"] == 10.0
    assert f["timeline.device_w_hot"] == 11.0
    assert abs((power_rise(f) or 0.0) - 10.0) < 1e-9
    # 1 °C per interval: the last tenth of the 20 whole intervals (2) rose 2 °C
    assert f["timeline.rise_last_tenth_c"] == 2.0
    # 1 °C per interval before the throttle at 1.8 s and after it: the rise did not slow
    assert abs(f["timeline.heat_rate_before_throttle_c_s"] - 10.0) < 1e-9
    assert abs(f["timeline.heat_rate_after_throttle_c_s"] - 10.0) < 1e-9
    row = {**f, "stack.temperature.shutdown_s": None, "stack.temperature.max_c": 20.0}
    assert (levels_off(row) or (None,))[0] is False
    # flat after the throttle: levelled off
    flat_after = [float(min(i, 17)) for i in range(n)]  # flat from the row ending at 1.8 s
    flat = features(tl.assign(temperature_c=flat_after), summary(first_throttle_s=1.8))
    assert flat["timeline.heat_rate_after_throttle_c_s"] == 0.0
    assert (levels_off({**flat, "stack.temperature.shutdown_s": None, "stack.temperature.max_c": 17.0}) or (None,))[0]
    # a tenth of the first slope is the threshold (LEVEL_RATE_SHARE): just above it is still rising
    from flashpress.reproduce.papers.coco.claims import LEVEL_RATE_SHARE

    slow = {
        "timeline.heat_rate_before_throttle_c_s": 10.0,
        "timeline.heat_rate_after_throttle_c_s": 10.0 * LEVEL_RATE_SHARE * 1.01,
        "stack.temperature.shutdown_s": None,
        "stack.temperature.max_c": 80.0,
    }
    assert (levels_off(slow) or (None,))[0] is False
    slower = {**slow, "timeline.heat_rate_after_throttle_c_s": 10.0 * LEVEL_RATE_SHARE * 0.99}
    assert (levels_off(slower) or (None,))[0] is True
    # falling as fast after the throttle is not stable either; falling slowly is (a throttle cycle)
    falling = {**slow, "timeline.heat_rate_after_throttle_c_s": -10.0 * LEVEL_RATE_SHARE * 1.01}
    assert (levels_off(falling) or (None,))[0] is False
    cycling = {**slow, "timeline.heat_rate_after_throttle_c_s": -10.0 * LEVEL_RATE_SHARE * 0.99}
    assert (levels_off(cycling) or (None,))[0] is True
    # a shutdown is not levelling off, however flat the end
    down = {**flat, "stack.temperature.shutdown_s": 1.5, "stack.temperature.max_c": 86.0}
    assert (levels_off(down) or (None,))[0] is False
    # never throttled: no heat protection to show
    calm = features(tl.assign(throttled=0), summary())
    assert levels_off({**calm, "stack.temperature.shutdown_s": None, "stack.temperature.max_c": 20.0}) is None


def test_heating_rates_before_and_after_the_first_throttle() -> None:
    # 2 °C per 0.1 s up to the throttle at 0.4 s, then 0.5 °C per 0.1 s; the last row is partial
    temps = [20.0, 22.0, 24.0, 26.0, 26.5, 27.0, 27.5, 99.0]
    tl = timeline(temperature_c=temps, write_mb_s=[1.0] * 8, throttled=[0, 0, 0, 1, 1, 1, 1, 1])
    f = features(tl, summary(first_throttle_s=0.4))
    assert abs(f["timeline.heat_rate_before_throttle_c_s"] - 20.0) < 1e-9  # rows 0.1..0.4
    assert abs(f["timeline.heat_rate_after_throttle_c_s"] - 5.0) < 1e-9  # rows 0.4..0.7, partial 0.8 left out
    # a shutdown at 0.6 s ends the after phase there (the cooling after it is not the device's heating)
    down = features(tl.assign(temperature_c=[20.0, 22.0, 24.0, 26.0, 27.0, 28.0, 10.0, 5.0]), summary(0.4, 0.6))
    assert abs(down["timeline.heat_rate_after_throttle_c_s"] - 10.0) < 1e-9
    # never throttled: no rates
    calm = features(tl, summary())
    assert calm["timeline.heat_rate_before_throttle_c_s"] is None
    assert calm["timeline.heat_rate_after_throttle_c_s"] is None
