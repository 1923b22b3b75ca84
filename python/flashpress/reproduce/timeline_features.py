"""What a run's timeline shows that its summary does not: the figures a seed reads off a
timeline plot (throughput before the first throttle, whether a throttle ever lifts, Waltz_s's
cycles at T_hard), as columns of the results table (``timeline.*``) so claims can check them.

A timeline row covers one ``stats.interval_ms`` interval and is stamped with its end. The last
row of a run is usually a partial interval and is left out of the means.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

#: Columns this module adds (each None when the run shows nothing to measure).
COLUMNS = (
    "timeline.write_mb_s_before_throttle",
    "timeline.throttle_releases",
    "timeline.host_phases",
    "timeline.max_c_before_host",
    "timeline.host_phase_drop_c_min",
    "timeline.host_phase_drop_c_mean",
    "timeline.host_phase_dip_pct_min",
    "timeline.host_phase_dip_pct_mean",
    "timeline.back_to_device",
    "timeline.device_w_start",
    "timeline.device_w_hot",
    "timeline.rise_last_tenth_c",
    "timeline.heat_rate_before_throttle_c_s",
    "timeline.heat_rate_after_throttle_c_s",
)


def _num(v: Any) -> float | None:
    if v is None:
        return None
    f = float(v)
    return None if math.isnan(f) else f


def features(tl: pd.DataFrame, summary: Mapping[str, Any]) -> dict[str, float | None]:
    """The ``timeline.*`` columns of one run from its timeline and its summary.

    * ``write_mb_s_before_throttle``: mean write throughput over the whole intervals that end
      before the first throttle (over the whole run, last row excepted, when it never throttles).
    * ``throttle_releases``: times the throttle lifted while the device still ran (a shutdown
      ends the throttle too; that is not a release). None when the run never throttled.
    * ``device_w_start`` and ``device_w_hot``: the mean power heating the device over the
      first and the last tenth (at least one interval) of the intervals before the first
      throttle (before a shutdown, or the end, when it never throttles).
    * ``rise_last_tenth_c``: how much the temperature rose over the last tenth of the run
      (to the shutdown, when there is one).
    * ``heat_rate_before_throttle_c_s`` and ``heat_rate_after_throttle_c_s``: the mean heating
      rate (°C per simulated second) from the first interval to the last one ending at or
      before the first throttle, and from that interval to the last whole one ending at or
      before the shutdown (or the end). None when the run never throttles or a phase spans
      fewer than two intervals.
    * host phases: maximal runs of intervals in which the host did (de)compression
      (``host_share`` > 0) with an interval without host work before and after them. For each,
      the temperature drop (°C) from the interval before the phase to the lowest temperature
      in it, and the write throughput dip (%) against the interval before it.
      ``max_c_before_host`` is the highest temperature up to the first phase;
      ``back_to_device`` is 1 when every phase is followed by an interval without host work.
    """
    out: dict[str, float | None] = dict.fromkeys(COLUMNS)
    if tl.empty:
        return out
    stack = summary.get("stack") or {}
    temp = stack.get("temperature") or {}
    first_throttle = _num(temp.get("first_throttle_s"))
    shutdown = _num(temp.get("shutdown_s"))
    whole = tl.iloc[:-1] if len(tl) > 1 else tl
    before = whole if first_throttle is None else whole[whole["time_s"] <= first_throttle]
    if len(before):
        out["timeline.write_mb_s_before_throttle"] = float(before["write_mb_s"].mean())
    if first_throttle is not None and "throttled" in tl:
        live = tl if shutdown is None else tl[tl["time_s"] < shutdown]
        th = [int(x) for x in live["throttled"].tolist()]
        out["timeline.throttle_releases"] = float(sum(1 for a, b in itertools.pairwise(th) if a and not b))
    if "device_w" in tl:
        calm = (
            before if first_throttle is not None else (whole if shutdown is None else whole[whole["time_s"] < shutdown])
        )
        w = [x for x in (_num(v) for v in calm["device_w"].tolist()) if x is not None]
        if w:
            k = max(1, len(w) // 10)
            out["timeline.device_w_start"] = sum(w[:k]) / k
            out["timeline.device_w_hot"] = sum(w[-k:]) / k
    if "temperature_c" in tl:
        live = whole if shutdown is None else tl[tl["time_s"] <= shutdown]
        temps = [float(x) for x in live["temperature_c"].tolist()]
        if temps:
            k = max(1, len(temps) // 10)
            out["timeline.rise_last_tenth_c"] = temps[-1] - temps[-k - 1 if len(temps) > k else 0]
    if "temperature_c" in tl and first_throttle is not None:
        _heat_rates(whole, first_throttle, shutdown, out)
    if "host_share" in tl:
        _host_phases(tl, out)
    return out


def _heat_rates(
    whole: pd.DataFrame, first_throttle: float, shutdown: float | None, out: dict[str, float | None]
) -> None:
    t = [float(x) for x in whole["time_s"].tolist()]
    c = [float(x) for x in whole["temperature_c"].tolist()]
    pre = [i for i, x in enumerate(t) if x <= first_throttle]
    post = [
        i
        for i, x in enumerate(t)
        if x >= (t[pre[-1]] if pre else first_throttle) and (shutdown is None or x <= shutdown)
    ]
    if len(pre) >= 2:
        a, b = pre[0], pre[-1]
        out["timeline.heat_rate_before_throttle_c_s"] = (c[b] - c[a]) / (t[b] - t[a])
    if len(post) >= 2:
        a, b = post[0], post[-1]
        out["timeline.heat_rate_after_throttle_c_s"] = (c[b] - c[a]) / (t[b] - t[a])


def _host_phases(tl: pd.DataFrame, out: dict[str, float | None]) -> None:
    share = [(_num(x) or 0.0) for x in tl["host_share"].tolist()]
    temps = [float(x) for x in tl["temperature_c"].tolist()]
    writes = [float(x) for x in tl["write_mb_s"].tolist()]
    phases: list[tuple[int, int]] = []
    i, n = 0, len(share)
    while i < n:
        if share[i] > 0:
            j = i
            while j + 1 < n and share[j + 1] > 0:
                j += 1
            phases.append((i, j))
            i = j + 1
        else:
            i += 1
    if not phases:
        out["timeline.host_phases"] = 0.0
        return
    first = phases[0][0]
    out["timeline.max_c_before_host"] = max(temps[: first + 1])
    # complete phases: a host-free interval before and after
    whole = [(a, b) for a, b in phases if a > 0 and b + 1 < n and share[a - 1] == 0 and share[b + 1] == 0]
    out["timeline.host_phases"] = float(len(whole))
    if not whole:
        return
    drops = [temps[a - 1] - min(temps[a : b + 1]) for a, b in whole]
    dips = [
        100.0 * (1.0 - (sum(writes[a : b + 1]) / (b + 1 - a)) / writes[a - 1]) for a, b in whole if writes[a - 1] > 0
    ]
    out["timeline.host_phase_drop_c_min"] = min(drops)
    out["timeline.host_phase_drop_c_mean"] = sum(drops) / len(drops)
    if dips:
        out["timeline.host_phase_dip_pct_min"] = min(dips)
        out["timeline.host_phase_dip_pct_mean"] = sum(dips) / len(dips)
    # every phase ends with the device taking the work back (the last may run into the end)
    open_ended = [(a, b) for a, b in phases if (a, b) not in whole and b + 1 < n]
    out["timeline.back_to_device"] = 0.0 if open_ended else 1.0


__all__ = ["COLUMNS", "features"]
