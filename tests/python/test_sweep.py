"""Sweeps: grid expansion (validated up front) and a 2 x 2 grid on a local Dask cluster."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import flashpress
from flashpress import errors
from flashpress.cli import main
from flashpress.sweep import expand, flatten

GRID = """
preset = "tiny"

[set]
"precondition.fill_fraction" = 0.5
workload = { type = "fio", jobs = [{ rw = "randwrite", bs = "4k", iodepth = 4, number_ios = 1500 }] }

[grid]
"ftl.op_ratio" = [0.15, 0.25]
"ftl.gc.victim" = ["greedy", "fifo"]
"""


def test_expand_is_the_cartesian_product() -> None:
    points = expand({"preset": "tiny", "grid": {"ftl.op_ratio": [0.1, 0.2, 0.3]}, "seeds": [1, 2]})
    assert [p.index for p in points] == list(range(6))
    assert [p.params for p in points[:2]] == [{"ftl.op_ratio": 0.1, "seed": 1}, {"ftl.op_ratio": 0.1, "seed": 2}]
    assert points[5].config.ftl.op_ratio == 0.3
    assert points[5].config.seed == 2


def test_nested_grid_tables_are_dotted_keys() -> None:
    points = expand({"preset": "tiny", "grid": {"ftl": {"gc": {"victim": ["greedy", "random"]}}}})
    assert [p.params for p in points] == [{"ftl.gc.victim": "greedy"}, {"ftl.gc.victim": "random"}]


def test_workloads_axis(tmp_path: Path) -> None:
    (tmp_path / "j.fio").write_text("[w]\nrw=randread\nnumber_ios=10\n")
    grid = tmp_path / "g.toml"
    grid.write_text(
        'preset = "tiny"\n'
        '[[workloads]]\nname = "job"\ntype = "fio"\npath = "j.fio"\n'
        '[[workloads]]\nname = "inline"\ntype = "fio"\njobs = [{ rw = "write", number_ios = 5 }]\n'
    )
    points = expand(grid)
    assert [p.params["workload"] for p in points] == ["job", "inline"]
    assert points[0].config.workload.path == str(tmp_path / "j.fio"), "paths resolve against the grid file"


@pytest.mark.parametrize(
    ("grid", "exc", "match"),
    [
        ({"preset": "tiny", "grid": {"ftl.op_ratoi": [0.1]}}, errors.ConfigError, ["point 0", "ftl.op_ratoi"]),
        ({"preset": "tiny", "grid": {"ftl.op_ratio": [0.1, 1.5]}}, errors.ConfigError, ["point 1", "ftl.op_ratio=1.5"]),
        ({"preset": "tiny", "grid": {"ftl.op_ratio": 0.1}}, errors.ConfigError, ["grid.ftl.op_ratio", "list"]),
        ({"preset": "tiny", "grid": {"ftl.op_ratio": []}}, errors.ConfigError, ["non-empty"]),
        ({"preset": "tiny", "sets": {}}, errors.ConfigError, ["`sets`", "unknown"]),
        ({"preset": "huge"}, errors.UnknownPresetError, ["huge"]),
        ({"preset": "tiny", "config": "x.toml"}, errors.ConfigError, ["not both"]),
        ({"preset": "tiny", "seeds": [1, "two"]}, errors.ConfigError, ["seeds"]),
        ({"preset": "tiny", "workloads": [{"type": "fio"}]}, errors.ConfigError, ["workloads[0]", "name"]),
        ({"preset": "tiny", "set": {"nand.channels": 0}}, errors.ConfigError, ["[set]", "nand.channels"]),
    ],
)
def test_bad_grids_fail_before_running(grid: dict[str, Any], exc: type[Exception], match: list[str]) -> None:
    with pytest.raises(exc) as e:
        expand(grid)
    for m in match:
        assert m in str(e.value)


def test_bad_grid_fails_fast_in_sweep(tmp_path: Path) -> None:
    # No cluster is started: the error comes from resolving the points.
    with pytest.raises(errors.ConfigError, match=r"nand\.chanels"):
        flashpress.sweep({"preset": "tiny", "grid": {"nand.chanels": [1, 2]}}, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_flatten() -> None:
    assert flatten({"a": 1, "b": {"c": 2, "d": {"e": None}}, "f": [1, 2]}) == {
        "a": 1,
        "b.c": 2,
        "b.d.e": None,
        "f": "[1, 2]",
    }


def test_sweep_2x2_on_local_cluster(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    grid = tmp_path / "grid.toml"
    grid.write_text(GRID)
    out = tmp_path / "out"
    assert main(["sweep", str(grid), "--out", str(out), "--workers", "2"]) == 0
    df = pd.read_parquet(out / "results.parquet")
    assert len(df) == 4
    assert list(df["point"]) == [0, 1, 2, 3]
    assert list(df.columns[:3]) == ["point", "ftl.op_ratio", "ftl.gc.victim"]
    assert list(df["ftl.op_ratio"]) == [0.15, 0.15, 0.25, 0.25]
    assert list(df["ftl.gc.victim"]) == ["greedy", "fifo", "greedy", "fifo"]
    assert (df["requests_completed"] == 1500).all()
    assert {"waf", "write.iops", "write.latency_us.p99"} <= set(df.columns)
    csv = pd.read_csv(out / "results.csv")
    assert csv.shape == df.shape
    for i in range(4):
        point = out / "points" / f"{i:04d}"
        cfg = json.loads((point / "config.json").read_text())
        assert cfg["ftl"]["op_ratio"] == df["ftl.op_ratio"][i]
        summary = json.loads((point / "summary.json").read_text())
        assert summary["waf"] == df["waf"][i]
    # The same point run alone gives the same summary: tasks are ordinary simulate() calls.
    alone = flashpress.simulate(flashpress.Config.from_json((out / "points" / "0003" / "config.json").read_text()))
    assert alone.summary_json == (out / "points" / "0003" / "summary.json").read_text()
    assert "4 points" in capsys.readouterr().out


def test_sweep_on_an_existing_scheduler(tmp_path: Path) -> None:
    # A scheduler and worker on loopback, started here and reached only through its address,
    # as `flashpress sweep --scheduler tcp://...` reaches a cluster.
    from distributed import LocalCluster

    grid = tmp_path / "grid.toml"
    grid.write_text(GRID)
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        addr = cluster.scheduler_address
        assert addr.startswith("tcp://127.0.0.1:")
        assert main(["sweep", str(grid), "--out", str(tmp_path / "out"), "--scheduler", addr]) == 0
    df = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert list(df["point"]) == [0, 1, 2, 3]
    local = flashpress.sweep(grid, tmp_path / "local", workers=1)
    assert list(df["waf"]) == list(local["waf"]), "same points, same results, wherever they ran"


def test_an_unreachable_scheduler_leaves_no_work_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import dask

    grid = tmp_path / "grid.toml"
    grid.write_text(GRID)
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        assert main(["sweep", str(grid), "--out", str(tmp_path / "out"), "--scheduler", f"tcp://127.0.0.1:{port}"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["grid.toml"]  # no .out.partial, no out
