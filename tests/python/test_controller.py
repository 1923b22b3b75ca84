"""The controller back end as a user meets it: the default preset's read tail, verify mode
and determinism under read priority, suspension and yielding GC, and the summary fields."""

from __future__ import annotations

import json

import flashpress
from flashpress import Config

MIX = {
    "type": "fio",
    "jobs": [{"name": "mix", "rw": "randrw", "rwmixread": 50, "bs": "4k", "iodepth": 16, "number_ios": 20000}],
}


def test_default_preset_reads_stay_in_single_digit_milliseconds_and_verify_passes() -> None:
    res = flashpress.simulate(Config.preset("default"), verify=True, progress=False)
    s = res.summary
    assert s["requests_completed"] == s["requests_issued"] == 400_000
    assert s["requests_failed"] == 0
    assert s["verified_page_reads"] > 0
    read = s["read"]["latency_us"]
    assert read["p99"] < 10_000.0, read
    assert read["p50"] <= read["p99"] <= read["p999"] <= read["max"]
    # GC ran (the device is aged to steady state) and reads met it
    assert s["gc_blocks_erased"] > 0
    assert s["read"]["during_gc"]["requests"] > 0
    ctl = s["controller"]
    assert ctl["program_suspensions"] + ctl["erase_suspensions"] > 0
    assert ctl["flash_quiet_s"] >= s["sim_time_s"]
    assert 0.0 < ctl["gc_busy_fraction"] <= ctl["plane_busy_fraction"] <= 1.0


def test_latency_split_adds_up_to_the_mean() -> None:
    s = flashpress.simulate(Config.preset("tiny").with_overrides({"workload": MIX}), progress=False).summary
    for op in ("read", "write"):
        split = s[op]["latency_split_us"]
        total = split["queue_mean"] + split["gc_wait_mean"] + split["service_mean"]
        assert abs(total - s[op]["latency_us"]["mean"]) < 1e-6 * max(1.0, total)
        assert split["queue_mean"] >= 0
        assert split["gc_wait_mean"] >= 0
        assert split["service_mean"] > 0


def test_every_controller_setting_reruns_byte_identical() -> None:
    for over in (
        {"controller.scheduler": "fcfs", "controller.suspend.enabled": False, "ftl.gc.preemptible": False},
        {"controller.scheduler": "read_first", "controller.suspend.resume_us": 2.0, "ftl.gc.step_pages": 1},
        {"ftl.gc.background": True, "ftl.write_buffer_pages": 8, "ftl.gc.copyback": False},
    ):
        cfg = Config.preset("tiny").with_overrides(over)
        a = flashpress.simulate(cfg, progress=False)
        b = flashpress.simulate(cfg, progress=False)
        assert json.dumps(a.summary, sort_keys=True) == json.dumps(b.summary, sort_keys=True), over
        assert a.timeline.equals(b.timeline), over


def test_read_priority_and_suspension_cut_the_read_tail_against_fcfs() -> None:
    base = {
        "workload": MIX,
        "ftl.gc.threshold": 0.1,
        "precondition.fill_fraction": 0.95,
        "precondition.aging_fraction": 1.0,
    }
    fcfs = Config.preset("tiny").with_overrides(
        {**base, "controller.scheduler": "fcfs", "controller.suspend.enabled": False, "ftl.gc.preemptible": False}
    )
    realistic = Config.preset("tiny").with_overrides(base)
    p99 = [flashpress.simulate(c, progress=False).summary["read"]["latency_us"]["p99"] for c in (fcfs, realistic)]
    assert p99[1] < p99[0] / 2, p99
