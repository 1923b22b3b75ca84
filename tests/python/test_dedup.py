"""Deduplication in the SSD from Python: the cagc preset and schemes, summary.dedup, and FIU
traces with per-sector hashes through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from flashpress import Config
from flashpress.cli import main
from flashpress.errors import ConfigError
from flashpress.run import simulate


def test_cagc_schemes_resolve_over_table_one() -> None:
    base = Config.from_dict({"scheme": "cagc/Baseline"})
    assert base.get("nand.page_size") == 4096
    assert base.get("nand.pages_per_block") == 64
    assert tuple(base.get("nand.read_latency_us")) == (12.0,)
    assert "dedup" not in base.get("ftl")
    cagc = Config.from_dict({"scheme": "cagc/CAGC"})
    assert cagc.get("ftl.dedup.mode") == "gc"
    assert cagc.get("ftl.dedup.regions") is True
    assert cagc.get("ftl.dedup.hash_us") == 14.0
    assert Config.from_dict({"scheme": "cagc/Inline"}).get("ftl.dedup.mode") == "inline"
    # 80 GiB of flash in 4 KiB pages.
    n = cagc.get("nand")
    pages = n["channels"] * n["chips_per_channel"] * n["planes_per_die"] * n["blocks_per_plane"] * 64
    assert pages * 4096 == 80 * 2**30


def test_dedup_summary_counts_fio_duplicates() -> None:
    job = {"name": "w", "rw": "randwrite", "bs": "4k", "iodepth": 4, "number_ios": 3000, "dedupe_percentage": 50}
    runs = {}
    for mode in ("inline", "gc"):
        cfg = Config.from_dict(
            {
                "preset": "tiny",
                "ftl": {"gc": {"copyback": False}, "dedup": {"mode": mode, "hash_us": 14.0}},
                "precondition": {"fill_fraction": 0.0},
                "workload": {"type": "fio", "jobs": [job]},
            }
        )
        runs[mode] = simulate(cfg, progress=False).summary["dedup"]
    inline = runs["inline"]
    assert "gc" in runs
    # fio repeats an earlier block for about half the writes: inline finds them on the path.
    assert 0.4 < inline["inline_duplicates"] / inline["inline_hashed"] < 0.6
    assert inline["ratio"] > 1.2
    assert runs["gc"]["inline_hashed"] == 0
    assert runs["gc"]["map_bytes_per_mapped_page"] > 8


def test_dedup_with_compression_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as e:
        Config.from_dict({"scheme": "prssd/DP", "ftl": {"dedup": {"mode": "inline", "hash_us": 14.0}}})
    assert e.value.key == "ftl.dedup"


def test_fiu_sector_hashes_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Two pages written sector by sector with the same eight hashes.
    lines = []
    t = 0
    for page in (0, 1):
        for i in range(8):
            t += 1000
            lines.append(f"{t} 1 nfsd {page * 8 + i} 1 W 6 0 {0x10 + i:016x}{0:016x}")
    trace = tmp_path / "homes.trace"
    trace.write_text("\n".join(lines) + "\n")
    cfg = tmp_path / "c.toml"
    cfg.write_text(
        'preset = "tiny"\n[ftl.gc]\ncopyback = false\n[ftl.dedup]\nmode = "inline"\nhash_us = 14.0\n'
        "[precondition]\nfill_fraction = 0.0\n"
    )
    out = tmp_path / "out"
    argv = ["run", "--config", str(cfg), "--trace", str(trace), "--format", "fiu", "--hash-bytes", "512"]
    assert main([*argv, "--out", str(out), "--no-progress"]) == 0
    d = json.loads((out / "summary.json").read_text())["dedup"]
    assert (d["mapped_pages"], d["stored_pages"]) == (2, 1)
    # Without --trace the flag is a usage error; a granularity that does not divide the page a
    # config error naming the key.
    with pytest.raises(SystemExit) as e:
        main(["run", "--config", str(cfg), "--hash-bytes", "512", "--no-progress"])
    assert e.value.code == 2
    assert main([*argv[:-1], "1536", "--no-progress"]) == 2
    assert "workload.hash_bytes" in capsys.readouterr().err


def test_byte_fingerprints_on_real_data_match_a_hashlib_count() -> None:
    """The Compile workload's ext4 image (``make testdata``) written once, page by page: inline
    dedup on the pages' bytes stores exactly as many pages as the image has distinct 4 KiB
    blocks, counted here with SHA-256 from ``hashlib``; by content id it stores them all."""
    import hashlib

    from flashpress.reproduce import testdata

    img = testdata.image("prssd", "Compile")
    data = img.read_bytes()
    blocks = len(data) // 4096
    distinct = len({hashlib.sha256(data[i * 4096 : (i + 1) * 4096]).digest() for i in range(blocks)})
    assert distinct < blocks  # the image has duplicate blocks (zeros, repeated headers)
    stored = {}
    for fingerprint in ("bytes", "content_id"):
        cfg = Config.from_dict(
            {
                "preset": "tiny",
                "ftl": {
                    "gc": {"copyback": False},
                    "dedup": {"mode": "inline", "hash_us": 14.0, "fingerprint": fingerprint},
                },
                "precondition": {"fill_fraction": 0.0},
                "check": {"verify": True},
                "content": {"mode": "model", "source": {"type": "files", "paths": [str(img)]}},
                "workload": {
                    "type": "fio",
                    "jobs": [{"name": "img", "rw": "write", "bs": "4k", "size": str(blocks * 4096), "iodepth": 4}],
                },
            }
        )
        s = simulate(cfg, progress=False).summary
        assert s["requests_completed"] == blocks
        stored[fingerprint] = s["dedup"]["stored_pages"]
        if fingerprint == "bytes":
            assert s["dedup"]["prefilter_collisions"] == 0
            assert s["nand_programs"] == distinct
    assert stored == {"bytes": distinct, "content_id": blocks}


def test_during_gc_cdf_counts_the_requests_that_waited_for_gc(tmp_path: Path) -> None:
    """CAGC's Fig. 12 plots the response times during GC: the CDF of the requests that waited
    while a GC job was on their plane, as many as ``summary.write.during_gc.requests``."""
    job = {"name": "w", "rw": "randwrite", "bs": "4k", "iodepth": 8, "number_ios": 20000, "io_size": "256m"}
    cfg = Config.from_dict({"preset": "tiny", "workload": {"type": "fio", "jobs": [job]}})
    r = simulate(cfg, progress=False)
    n = r.summary["write"]["during_gc"]["requests"]
    assert 0 < n < r.summary["write"]["requests"]
    gc = r.latency_cdf("write", during_gc=True)
    everything = r.latency_cdf("write")
    assert gc["cumulative"].iloc[-1] == pytest.approx(1.0)
    assert gc["latency_us"].is_monotonic_increasing
    # Requests that waited for GC are slower: the median during GC is above the overall one.
    med = lambda df: df.loc[df["cumulative"] >= 0.5, "latency_us"].iloc[0]  # noqa: E731
    assert med(gc) > med(everything)
    r.write(tmp_path / "out")
    cdf = pd.read_csv(tmp_path / "out" / "latency_cdf.csv")
    assert {"write", "write_during_gc"} <= set(cdf["op"])
