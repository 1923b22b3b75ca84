"""simulate() and Result: summary contents, determinism, timeline and CDF views, writing."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import flashpress
from _helpers import SMALL_WRITES
from flashpress import Config, errors

SUMMARY_KEYS = [
    "waf",
    "requests_issued",
    "requests_completed",
    "host_write_bytes",
    "nand_program_bytes",
    "erases",
    "gc_pages_migrated",
    "read",
    "write",
]


@pytest.fixture(scope="module")
def result() -> flashpress.Result:
    return flashpress.simulate(Config.preset("tiny").with_overrides({"workload": SMALL_WRITES}), progress=False)


@pytest.mark.parametrize("key", SUMMARY_KEYS)
def test_summary_has_key(result: flashpress.Result, key: str) -> None:
    assert key in result.summary


def test_every_request_completes(result: flashpress.Result) -> None:
    s = result.summary
    assert s["requests_completed"] == s["requests_issued"] > 0
    assert s["write"]["requests"] == s["requests_completed"]
    assert s["waf"] >= 1.0


def test_summary_is_rusts_json(result: flashpress.Result) -> None:
    assert json.loads(result.summary_json) == result.summary


def test_timeline_has_units(result: flashpress.Result) -> None:
    df = result.timeline
    assert len(df) >= 1
    assert set(df.attrs["units"]) == set(df.columns)
    assert all(isinstance(d, str) and d for d in df.attrs["descriptions"].values())


@pytest.mark.parametrize("op", ["read", "write"])
def test_latency_cdf_frame(result: flashpress.Result, op: str) -> None:
    df = result.latency_cdf(op)
    assert list(df.columns) == ["latency_us", "cumulative"]
    assert df["latency_us"].is_monotonic_increasing
    assert df["cumulative"].is_monotonic_increasing
    if len(df):
        assert df["cumulative"].iloc[-1] == pytest.approx(1.0)


def test_latency_cdf_rejects_unknown_op(result: flashpress.Result) -> None:
    with pytest.raises(ValueError, match="erase"):
        result.latency_cdf("erase")


def test_same_seed_same_bytes_other_seed_differs() -> None:
    # A random read/write mix on a half-full device: the seed picks ops and addresses.
    cfg = Config.preset("tiny").with_overrides(
        {
            "precondition.fill_fraction": 0.5,
            "workload": {"type": "fio", "jobs": [{"rw": "randrw", "bs": "4k", "iodepth": 8, "number_ios": 2000}]},
        }
    )
    a = flashpress.simulate(cfg, seed=11, progress=False).summary_json
    b = flashpress.simulate(cfg, seed=11, progress=False).summary_json
    c = flashpress.simulate(cfg, seed=12, progress=False).summary_json
    assert a == b
    assert a != c


@pytest.mark.parametrize(
    "config",
    [
        None,
        "tiny",
        {"preset": "tiny", "workload": SMALL_WRITES},
    ],
    ids=["none-is-default", "preset-name", "dict"],
)
def test_config_forms(config: object, monkeypatch: pytest.MonkeyPatch) -> None:
    if config is None:
        # The default preset is large; check the conversion, not the run.
        from flashpress.run import as_config

        assert as_config(None) == Config.preset("default")
        return
    r = flashpress.simulate(config, progress=False)  # type: ignore[arg-type]
    assert r.summary["requests_completed"] > 0


def test_config_from_toml_path(tmp_path: Path) -> None:
    p = tmp_path / "c.toml"
    p.write_text(
        'preset = "tiny"\nseed = 4\n[workload]\ntype = "fio"\n[[workload.jobs]]\nrw = "randwrite"\nnumber_ios = 500\n'
    )
    r = flashpress.simulate(str(p), progress=False)
    assert r.config.seed == 4
    assert r.summary["requests_completed"] == 500
    r2 = flashpress.simulate(p, progress=False)
    assert r2.summary_json == r.summary_json


def test_seed_and_verify_arguments_override_config(tiny: Config) -> None:
    r = flashpress.simulate(tiny, seed=77, verify=True, progress=False)
    assert r.config.seed == 77
    assert r.config.check.verify is True


def test_progress_bar_runs(tiny: Config, capsys: pytest.CaptureFixture[str]) -> None:
    # A short run finishes before the bar's 1 s delay: nothing is drawn.
    flashpress.simulate(tiny, progress=True)
    assert "simulating" not in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_write_results(tiny: Config, tmp_path: Path, fmt: str) -> None:
    r = flashpress.simulate(tiny, progress=False)
    out = r.write(tmp_path / "out", timeline_format=fmt)  # type: ignore[arg-type]
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(["config.json", "summary.json", f"timeline.{fmt}", "latency_cdf.csv"])
    assert (out / "summary.json").read_text() == r.summary_json
    assert Config.from_json((out / "config.json").read_text()) == r.config
    df = pd.read_parquet(out / "timeline.parquet") if fmt == "parquet" else pd.read_csv(out / "timeline.csv")
    assert list(df.columns) == list(r.timeline.columns)
    assert len(df) == len(r.timeline)
    cdf = pd.read_csv(out / "latency_cdf.csv")
    assert list(cdf.columns) == ["op", "latency_ns", "cumulative"]
    assert set(cdf["op"]) <= {"read", "write", "read_during_gc", "write_during_gc"}
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "no temporary directories left"


def test_write_refuses_non_empty_dir_unless_overwrite(tiny: Config, tmp_path: Path) -> None:
    r = flashpress.simulate(tiny, progress=False)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with pytest.raises(errors.OutputExistsError, match="not empty"):
        r.write(out)
    assert (out / "keep.txt").read_text() == "mine"
    r.write(out, overwrite=True)
    assert not (out / "keep.txt").exists()
    assert (out / "summary.json").exists()


def test_write_into_existing_empty_dir(tiny: Config, tmp_path: Path) -> None:
    r = flashpress.simulate(tiny, progress=False)
    (tmp_path / "out").mkdir()
    r.write(tmp_path / "out")
    assert (tmp_path / "out" / "summary.json").exists()


def test_failed_write_leaves_nothing(tiny: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = flashpress.simulate(tiny, progress=False)

    def boom(self: object, path: Path) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(flashpress.Result, "_write_parquet", boom)
    with pytest.raises(RuntimeError, match="disk full"):
        r.write(tmp_path / "out")
    assert list(tmp_path.iterdir()) == []


def test_simulation_finish_twice_raises() -> None:
    sim = flashpress._core.Simulation(Config.preset("tiny").with_overrides({"workload": SMALL_WRITES}).to_json())
    while not sim.step(1 << 16):
        pass
    p = sim.progress()
    assert p["requests_completed"] == p["requests_issued"]
    sim.finish()
    assert sim.finished
    with pytest.raises(errors.FlashpressError, match="already been finished"):
        sim.finish()
    with pytest.raises(errors.FlashpressError):
        sim.step(1)


def test_simulation_steps_in_small_chunks_match_one_big_run(tiny: Config) -> None:
    sim = flashpress._core.Simulation(tiny.to_json())
    steps = 0
    while not sim.step(100):
        steps += 1
    assert steps > 1
    small = sim.finish().summary_json()
    assert small == flashpress.simulate(tiny, progress=False).summary_json


@pytest.mark.parametrize("fmt", ["disksim"])
def test_real_trace_runs(fmt: str) -> None:
    from _helpers import TPCC_TRACE, trace_workload

    w = trace_workload(TPCC_TRACE, fmt, replay="afap", address_mode="wrap", queue_depth=16)
    r = flashpress.simulate({"preset": "tiny", "workload": w}, progress=False)
    assert r.summary["requests_completed"] == r.summary["requests_issued"] > 6000


def test_finishing_before_the_end_raises() -> None:
    sim = flashpress._core.Simulation(Config.preset("tiny").to_json())
    assert not sim.step(5)
    with pytest.raises(errors.FlashpressError, match="before the run ended"):
        sim.finish()


def test_sequential_requests_are_counted_per_job_and_direction() -> None:
    """A request is sequential when it starts where its job's previous request of the same
    direction ended: a sequential reader is all sequential but its first request, two
    sequential writers sharing nothing are each sequential, and fio's percentage_random = 30
    leaves 70% sequential (the random 30% almost never land on the previous end)."""

    def run(jobs: list[dict[str, object]]) -> dict[str, int]:
        cfg = Config.preset("tiny").with_overrides({"workload": {"type": "fio", "jobs": jobs}})
        s = flashpress.simulate(cfg, progress=False).summary
        return {k: s[k] for k in ("sequential_reads", "sequential_writes")} | {
            "reads": s["read"]["requests"],
            "writes": s["write"]["requests"],
        }

    r = run([{"name": "r", "rw": "read", "bs": "16k", "size": "8m"}])
    assert r["sequential_reads"] == r["reads"] - 1 == 511
    assert r["sequential_writes"] == 0
    w = run([{"name": f"w{i}", "rw": "write", "bs": "4k", "size": "4m"} for i in range(2)])
    assert w["sequential_writes"] == w["writes"] - 2 == 2046
    m = run(
        [
            {
                "name": "m",
                "rw": "randrw",
                "rwmixread": 50,
                "bs": "4k",
                "size": "16m",
                "io_size": "100m",
                "number_ios": 20000,
                "norandommap": 1,
                "percentage_random": "30",
            }
        ]
    )
    assert m["reads"] + m["writes"] == 20000
    assert 1 - m["sequential_reads"] / m["reads"] == pytest.approx(0.30, abs=0.02)
    assert 1 - m["sequential_writes"] / m["writes"] == pytest.approx(0.30, abs=0.02)
