"""The claim shapes of the COCO and lossy packages on synthetic result tables whose answers are
worked out by hand: each must hold where the seed's statement is true, and fail or be
inconclusive where it is not (identical runs, a wrong direction, a size outside the band)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from flashpress.reproduce.claims import Claim
from flashpress.reproduce.papers import claims
from flashpress.reproduce.scale import get_scale

QUICK = get_scale("quick")


def claim(paper: str, start: str) -> Claim:
    found = [c for c in claims(paper) if c.seed.startswith(start)]
    assert len(found) == 1, [c.seed for c in found]
    return found[0]


def status(c: Claim, rows: list[dict[str, Any]]) -> str:
    base = {"status": "ok", "run_id": "r"}
    return str(c.check(pd.DataFrame([{**base, **r} for r in rows]), QUICK).status)


# -- COCO ---------------------------------------------------------------------------------------


def coco(throughput: dict[str, float], power: dict[str, float], rep: int = 0) -> list[dict[str, Any]]:
    rows = []
    for s, v in throughput.items():
        rows.append(
            {"figure": "throughput", "scheme": s, "personality": "oltp", "rep": rep, "write.throughput_mb_s": v}
        )
    for s, w in power.items():
        rows.append(
            {"figure": "power", "scheme": s, "personality": "oltp", "rep": rep, "stack.energy.device_mean_w": w}
        )
    return rows


@pytest.mark.parametrize(
    ("coco_mb_s", "coco_w", "want"),
    [
        (130.0, 80.0, "holds"),  # faster and cooler
        (130.0, 120.0, "fails"),  # faster but hotter
        (70.0, 80.0, "fails"),  # cooler but slower
        (100.0, 80.0, "inconclusive"),  # as fast as Baseline: no improvement to show
    ],
)
def test_coco_conclusion_needs_both_more_throughput_and_less_power(coco_mb_s: float, coco_w: float, want: str) -> None:
    c = claim("coco", "Experimental results show that COCO")
    assert status(c, coco({"Baseline": 100.0, "COCO": coco_mb_s}, {"Baseline": 100.0, "COCO": coco_w})) == want


def op_sweep(points: dict[float, float]) -> list[dict[str, Any]]:
    return [
        {"figure": "op-size", "scheme": "Baseline", "rs": rs, "rep": rep, "write.throughput_mb_s": v * (1 + rep / 1e4)}
        for rs, v in points.items()
        for rep in (0, 1)
    ]


def test_op_negligible_beyond_the_knee_and_only_after_the_op_mattered() -> None:
    named = claim("coco", "OP Space Ratio > 15%")
    some = claim("coco", "Increasing OPS does not improve performance")
    flat_after_15 = {0.01: 50.0, 0.05: 80.0, 0.15: 100.0, 0.2: 101.0, 0.25: 102.0}
    assert status(named, op_sweep(flat_after_15)) == "holds"  # +2% from 15% to 25%
    assert status(some, op_sweep(flat_after_15)) == "holds"
    # still rising 16% beyond 15%: not negligible; but from 20% on (+2.9%) it is, for the unnamed knee
    rising = {0.01: 50.0, 0.05: 80.0, 0.15: 100.0, 0.2: 113.0, 0.25: 116.0}
    assert status(named, op_sweep(rising)) == "fails"
    assert status(some, op_sweep(rising)) == "holds"
    # a flat curve: the OP changes nothing at all, so a flat tail proves nothing
    flat = dict.fromkeys((0.01, 0.05, 0.15, 0.2, 0.25), 100.0)
    assert status(named, op_sweep(flat)) == "inconclusive"
    assert status(some, op_sweep(flat)) == "inconclusive"
    # rising all the way: no knee anywhere
    assert status(some, op_sweep({0.01: 50.0, 0.05: 70.0, 0.15: 90.0, 0.2: 110.0, 0.25: 130.0})) == "fails"


def test_coco_facs_slightly_fails_far_outside_the_band() -> None:
    c = claim("coco", "FACS slightly improves")
    assert status(c, coco({"Baseline": 100.0, "FACS": 110.0}, {})) == "holds"
    assert status(c, coco({"Baseline": 100.0, "FACS": 203.4}, {})) == "fails"
    assert status(c, coco({"Baseline": 100.0, "FACS": 100.0}, {})) == "inconclusive"


# -- lossy --------------------------------------------------------------------------------------


def fig2(codec: str, dev: str, *, compress: float, write: float, read: float, decompress: float) -> dict[str, Any]:
    return {
        "figure": "fig2",
        "workload": "w",
        "scheme": codec,
        "variant": dev,
        "rep": 0,
        "compress_s": compress,
        "write_s": write,
        "store_s": compress + write,
        "read_s": read,
        "decompress_s": decompress,
        "load_s": read + decompress,
    }


def test_codec_stage_substantial_and_device_stage_minuscule() -> None:
    substantial = claim("lossy", "We find that lossy compression occupies")
    minuscule = claim("lossy", "NVMe read/write is visually miniscule")
    rows = [
        fig2("szx", "nvme", compress=0.97, write=0.03, read=0.02, decompress=0.98),
        fig2("szx", "hdd", compress=0.5, write=0.5, read=0.6, decompress=0.4),
    ]
    assert status(substantial, rows) == "holds"
    assert status(minuscule, rows) == "holds"  # 3% and 2%
    # the NVMe read at 10% of the load is not minuscule; the HDD's codec at 10% is not substantial
    rows = [
        fig2("szx", "nvme", compress=0.97, write=0.03, read=0.1, decompress=0.9),
        fig2("szx", "hdd", compress=0.1, write=0.9, read=0.6, decompress=0.4),
    ]
    assert status(substantial, rows) == "fails"
    assert status(minuscule, rows) == "fails"


def pipeline(scheme: str, store: float, load: float, rep: int, dev: str = "nvme", fig: str = "fig2") -> dict[str, Any]:
    return {
        "figure": fig,
        "workload": "w",
        "scheme": scheme,
        "variant": dev,
        "rep": rep,
        "store_s": store,
        "load_s": load,
    }


def test_error_bounds_do_not_enhance_unless_a_speed_up_reaches_the_band() -> None:
    c = claim("lossy", "Control Mechanism")
    raw = [pipeline("raw", 1.0, 1.0, rep) for rep in (0, 1)]

    def bounded(store: float, load: float) -> list[dict[str, Any]]:
        return [pipeline(s, store, load, rep) for s in ("szx", "szx abs:0.01") for rep in (0, 1)]

    assert status(c, raw + bounded(1.5, 0.9)) == "holds"  # slower stores, loads +11%
    assert status(c, raw + bounded(1.5, 0.6)) == "fails"  # loads +67%
    assert status(c, raw + bounded(1.0, 1.0)) == "inconclusive"  # identical to raw: no evidence


def test_conclusion_compression_gains_less_on_nvme_than_on_the_hdd() -> None:
    c = claim("lossy", "the computational overhead of compression")

    def totals(hdd_gain: float, nvme_gain: float) -> list[dict[str, Any]]:
        rows = []
        for rep in (0, 1):
            for dev, gain in (("hdd", hdd_gain), ("nvme", nvme_gain)):
                rows.append(pipeline("raw", 1.0, 1.0, rep, dev, "fig1"))
                rows.append(pipeline("szx", 1.0 / gain, 1.0 / gain, rep, dev, "fig1"))
        return rows

    assert status(c, totals(3.0, 0.5)) == "holds"
    assert status(c, totals(3.0, 4.0)) == "fails"
    assert status(c, totals(2.0, 2.0)) == "inconclusive"


def test_tuning_the_jobs_helps_only_when_the_best_beats_one_job_outside_the_band() -> None:
    c = claim("lossy", "Proper optimization of these settings")

    def jobs(times: dict[int, float]) -> list[dict[str, Any]]:
        return [
            {
                "figure": "threads",
                "workload": "w",
                "scheme": "szx",
                "variant": "numjobs",
                "numjobs": j,
                "rep": rep,
                "store_s": t / 2,
                "load_s": t / 2,
            }
            for j, t in times.items()
            for rep in (0, 1)
        ]

    assert status(c, jobs({1: 1.0, 2: 0.8, 4: 0.7})) == "holds"
    assert status(c, jobs({1: 1.0, 2: 0.999, 4: 1.2})) == "inconclusive"  # 0.1% faster: inside the band


def test_dataset_dependence_needs_every_codec_and_direction_heavily_apart() -> None:
    c = claim("lossy", "Dataset Characteristics")

    def speeds(factor: float) -> list[dict[str, Any]]:
        rows = []
        for codec in ("szx", "sz3", "zfp"):
            for ds, v in (("a", 100.0), ("b", 100.0 * factor)):
                for rep in (0, 1):
                    rows.append(
                        {
                            "figure": "fig2",
                            "workload": ds,
                            "scheme": codec,
                            "variant": "nvme",
                            "rep": rep,
                            "compress_mb_s": v + rep,
                            "decompress_mb_s": v + rep,
                        }
                    )
        return rows

    assert status(c, speeds(2.0)) == "holds"
    assert status(c, speeds(1.4)) == "fails"  # under the 1.5x reading of 'heavily'


def test_a_first_order_curve_that_never_feels_the_throttle_does_not_level_off() -> None:
    """The device's own bending (a first-order curve slows as it nears its heading) must not be
    read as levelling off: COCO's CSD heading to 105 °C with τ = 565 s, 'throttled' at 76 °C with
    no effect, rises after 76 °C at about a third of its mean rate before it."""
    import math

    from flashpress.reproduce.timeline_features import features

    tau, heading, room, dt = 565.0, 105.0, 23.0, 2.0
    times = [dt * (i + 1) for i in range(600)]
    temps = [heading - (heading - room) * math.exp(-t / tau) for t in times]
    first = next(t for t, c in zip(times, temps, strict=True) if c >= 76.0)
    tl = pd.DataFrame({"time_s": times, "temperature_c": temps, "write_mb_s": [1.0] * len(times)})
    summary = {"stack": {"temperature": {"first_throttle_s": first, "shutdown_s": None}}}
    row = {**features(tl, summary), "stack.temperature.shutdown_s": None, "stack.temperature.max_c": max(temps)}
    from flashpress.reproduce.papers.coco.claims import levels_off

    ok, why = levels_off(row) or (None, "")
    assert ok is False, why
    share = row["timeline.heat_rate_after_throttle_c_s"] / row["timeline.heat_rate_before_throttle_c_s"]
    assert 0.25 < share < 0.45
