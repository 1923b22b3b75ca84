"""Plots of a results directory."""

from __future__ import annotations

from pathlib import Path

import pytest

import flashpress
from _helpers import SMALL_WRITES
from flashpress.cli import main
from flashpress.plots import plot_results


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cfg = flashpress.Config.preset("tiny").with_overrides(
        {"workload": {"type": "fio", "jobs": [{"rw": "randrw", "bs": "4k", "number_ios": 3000}]}}
    )
    out = tmp_path_factory.mktemp("plots") / "res"
    flashpress.simulate(cfg, progress=False).write(out)
    return out


NAMES = ["latency_cdf.png", "latency_cdf.svg", "timeline.png", "timeline.svg"]


def test_plot_results_writes_non_empty_files(results: Path, tmp_path: Path) -> None:
    paths = plot_results(results, tmp_path)
    assert sorted(p.name for p in paths) == NAMES
    for p in paths:
        assert p.stat().st_size > 1000, p


def test_plot_cli_default_out_is_results_dir(results: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plot", str(results)]) == 0
    for name in NAMES:
        assert (results / name).stat().st_size > 1000


def test_plot_csv_timeline(tmp_path: Path) -> None:
    cfg = flashpress.Config.preset("tiny").with_overrides({"workload": SMALL_WRITES})
    flashpress.simulate(cfg, progress=False).write(tmp_path / "res", timeline_format="csv")
    paths = plot_results(tmp_path / "res", tmp_path / "plots")
    assert all(p.stat().st_size > 1000 for p in paths)
