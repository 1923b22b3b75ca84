"""The content model through the public API and the CLI: data-reduction statistics in both
modes, fio's buffer_compress_percentage, real files, checked against the lz4/zlib libraries
Python ships or links independently of the core."""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

import pytest

import flashpress
from flashpress.cli import main

WRITES = {"type": "fio", "jobs": [{"name": "w", "rw": "randwrite", "bs": "16k", "iodepth": 4, "number_ios": 2000}]}


def run(content: dict[str, Any], workload: dict[str, Any] = WRITES) -> dict[str, Any]:
    r = flashpress.simulate({"preset": "tiny", "content": content, "workload": workload}, progress=False)
    s = r.summary
    if s["content"] is not None:
        # Every host write byte is in the content statistics, 4 KiB blocks at a time.
        assert s["content"]["blocks_written"] * 4096 == s["host_write_bytes"]
    return s


@pytest.mark.parametrize(
    "ratio",
    [
        {"type": "fixed", "ratio": 2.5},
        {"type": "uniform", "min": 1.0, "max": 4.0},
        {"type": "zipf", "min": 2.0, "max": 4.0, "exponent": 1.2},
    ],
)
def test_model_and_bytes_modes_report_the_same_fields_and_agree(ratio: dict[str, Any]) -> None:
    model = run({"mode": "model", "ratio": ratio})["content"]
    data = run({"mode": "bytes", "ratio": ratio})["content"]
    assert model.keys() == data.keys()
    assert model["blocks_written"] == data["blocks_written"] > 4000
    assert model["mode"] == "model"
    assert data["mode"] == "bytes"
    assert model["ratio"] == pytest.approx(data["ratio"], rel=0.03)


def test_off_means_no_content_statistics() -> None:
    assert run({"mode": "off"})["content"] is None


def test_fio_buffer_compress_percentage_sets_the_ratio(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    job = tmp_path / "c.fio"
    job.write_text("[w]\nrw=randwrite\nbs=4k\nnumber_ios=3000\nbuffer_compress_percentage=50\n")
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'preset = "tiny"\n[content]\nmode = "bytes"\n[workload]\ntype = "fio"\npath = "{job}"\n')
    out = tmp_path / "run"
    assert main(["run", "--config", str(cfg), "--out", str(out), "--no-progress"]) == 0
    s = json.loads((out / "summary.json").read_text())
    assert s["content"]["ratio"] == pytest.approx(2.0, rel=0.05)
    capsys.readouterr()


def test_granularity_16k_compresses_clusters_of_real_bytes_as_zlib_does(tmp_path: Path) -> None:
    # A one-block corpus (the first 4 KiB of the GPL text): every content id is that block,
    # so every aligned 16 KiB write is one unit of four copies. Python's own zlib (raw
    # deflate, level 6) gives the size each unit must have.
    block = Path("/usr/share/common-licenses/GPL-3").read_bytes()[:4096]
    corpus = tmp_path / "block.txt"
    corpus.write_bytes(block)
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    unit = len(c.compress(block * 4) + c.flush())
    content = {
        "mode": "bytes",
        "codec": "deflate-6",
        "granularity": 16384,
        "source": {"type": "files", "paths": [str(corpus)]},
    }
    s = run(content)["content"]
    units = s["units"]
    assert units * 16384 == s["logical_bytes"]
    assert units > 500
    assert s["compressed_bytes"] == units * unit
    assert s["stored_bytes"] == units * min(unit, 16384)
