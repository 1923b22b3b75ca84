"""The demand-paged map cache (`ftl.map_cache`) from Python: bad budgets and combinations are
refused naming the key, and a run reports `summary.map_cache` and its timeline columns."""

from __future__ import annotations

from typing import Any

import pytest

from flashpress import Config
from flashpress.errors import ConfigError
from flashpress.run import simulate

# The tiny preset: 6963 logical pages of 4 KiB, so a 27,852-byte table in 4-byte entries.
TABLE = 6963 * 4


def demand(dram: Any, policy: Any = "lru") -> dict[str, Any]:
    return {"type": "demand", "dram_bytes": dram, "policy": policy}


@pytest.mark.parametrize(
    ("ftl", "key", "message"),
    [
        ({"map_cache": demand(4095)}, "ftl.map_cache.dram_bytes", "from one translation page (4096 bytes)"),
        ({"map_cache": demand(TABLE + 1)}, "ftl.map_cache.dram_bytes", f"whole mapping table ({TABLE} bytes"),
        ({"map_cache": demand(0)}, "ftl.map_cache.dram_bytes", ""),
        ({"map_cache": demand(8192, "fifo")}, "ftl.map_cache", "fifo"),
        ({"map_cache": {"type": "demand", "policy": "lru"}}, "ftl.map_cache", "dram_bytes"),
        ({"map_cache": {"type": "full", "dram_bytes": 8192}}, "ftl.map_cache", "unknown key"),
        (
            {
                "dedup": {
                    "mode": "inline",
                    "hash_us": 14.0,
                    "index_cache": {"type": "demand", "dram_bytes": 4095, "policy": "lru"},
                }
            },
            "ftl.dedup.index_cache.dram_bytes",
            "from one bucket page (4096 bytes)",
        ),
    ],
)
def test_bad_map_caches_name_the_key(ftl: dict[str, Any], key: str, message: str) -> None:
    with pytest.raises(ConfigError) as e:
        Config.from_dict({"preset": "tiny", "ftl": ftl})
    assert key in str(e.value)
    assert message in str(e.value)


def test_a_split_ftl_map_pages_its_split_table_too_and_a_packed_map_is_paged() -> None:
    # PR's whole table: its packed map as the summary counts it and its split table at capacity
    # (262,144 split pages of four 32-bit flash pages with 2-bit partial indexes: 17 bytes).
    pr = Config.from_dict({"scheme": "prssd/PR"})
    whole = pr.map_cache_table_bytes()
    assert whole == pr.mapping_table_bytes() + 262_144 * 17
    Config.from_dict({"scheme": "prssd/PR", "ftl": {"map_cache": demand(whole)}})
    with pytest.raises(ConfigError) as e:
        Config.from_dict({"scheme": "prssd/PR", "ftl": {"map_cache": demand(whole + 1)}})
    assert e.value.key == "ftl.map_cache.dram_bytes"
    assert f"whole mapping table ({whole} bytes" in str(e.value)
    assert "262144 split-table entries of 17 bytes" in str(e.value)
    # DP's packed map: the whole-table limit is its mapping table as the summary counts it.
    table = Config.from_dict({"scheme": "prssd/DP"}).mapping_table_bytes()
    Config.from_dict({"scheme": "prssd/DP", "ftl": {"map_cache": demand(table)}})
    with pytest.raises(ConfigError) as e:
        Config.from_dict({"scheme": "prssd/DP", "ftl": {"map_cache": demand(table + 1)}})
    assert f"whole mapping table ({table} bytes" in str(e.value)


def test_a_paged_packed_map_reports_its_cache_and_the_summary_table() -> None:
    job = {"name": "r", "rw": "randread", "bs": "16k", "iodepth": 4, "number_ios": 4000, "norandommap": True}
    # The translation pages' open blocks take one block per plane more than the preset's 7%
    # over-provisioning leaves outside the GC reserve.
    device = {
        "nand.blocks_per_plane": 64,
        "nand.channels": 2,
        "ftl.op_ratio": 0.1,
        "precondition.fill_fraction": 1.0,
    }
    cfg = Config.from_dict({"scheme": "prssd/DP"}).with_overrides(device)
    table = cfg.mapping_table_bytes()
    cfg = cfg.with_overrides({"ftl.map_cache": demand(table // 10), "workload": {"type": "fio", "jobs": [job]}})
    s = simulate(cfg, progress=False).summary
    assert s["mapping_table_bytes"] == table
    m = s["map_cache"]
    # An entry costs the table over the logical pages (the host's and the one being filled), so
    # a tenth of the table holds a tenth of the entries; uniform reads hit about that often.
    assert m["cached_entries"] == (table // 10) * (m["table_entries"] + 1) // table
    assert 0.05 < m["hit_ratio"] < 0.15
    assert m["translation_lookup_reads"] > 0


def test_a_demand_run_reports_its_cache_and_timeline_columns() -> None:
    # norandommap: independent uniform offsets (fio's random map would visit each block once a pass).
    job = {"name": "r", "rw": "randread", "bs": "4k", "iodepth": 8, "number_ios": 20000, "norandommap": True}
    cfg = Config.from_dict(
        {
            "preset": "tiny",
            "ftl": {"map_cache": demand(8192)},
            "precondition": {"fill_fraction": 1.0},
            "workload": {"type": "fio", "jobs": [job]},
        }
    )
    res = simulate(cfg, progress=False)
    m = res.summary["map_cache"]
    assert m["cached_entries"] == 2048
    assert m["table_entries"] == 6963
    assert m["translation_pages"] == 7
    # Uniform random reads: the miss ratio is 1 - cached / total (within noise).
    assert abs((1 - m["hit_ratio"]) - (1 - 2048 / 6963)) < 0.02
    assert m["read_translation_mean_us"] > 0
    assert m["read_translation_mean_us"] + m["read_data_mean_us"] == pytest.approx(
        res.summary["read"]["latency_us"]["mean"]
    )
    tl = res.timeline
    assert {"map_hit_ratio", "map_translation_reads", "map_translation_writes"} <= set(tl.columns)
    assert tl["map_translation_reads"].sum() == m["translation_reads"]
    full = simulate(Config.from_dict({"preset": "tiny", "workload": {"type": "fio", "jobs": [job]}}), progress=False)
    assert full.summary["map_cache"] is None


def test_a_ccsd_chunk_map_budget_is_checked_against_its_own_table() -> None:
    # The reduced waltz device: 16 x 4 x 2 x 2 planes of 64 blocks of 768 16-KiB pages, 10%
    # over-provisioning, logical space twice the physical user space, 8 bytes per 4 KiB block.
    device = {"nand.blocks_per_plane": 64, "ftl.op_ratio": 0.1, "stack.fs.partition_bytes": 1 << 30}
    base = Config.from_dict({"preset": "waltz"}).with_overrides(device)
    capacity = 16 * 4 * 2 * 2 * 64 * 768 * 16384
    logical_blocks = int(int(capacity * (1 - 0.1)) * 2.0 / 4096)
    table = base.mapping_table_bytes()
    assert table == 8 * logical_blocks
    base.with_overrides({"ftl.map_cache": demand(table)})
    base.with_overrides({"ftl.map_cache": demand(16384)})
    for dram, message in [(16383, "from one translation page (16384 bytes)"), (table + 1, f"({table} bytes")]:
        with pytest.raises(ConfigError) as e:
            base.with_overrides({"ftl.map_cache": demand(dram)})
        assert e.value.key == "ftl.map_cache.dram_bytes"
        assert message in str(e.value)
