"""Flexible data placement (``[fdp]``) from Python: the example config, a trace with placement
identifiers, and bad FDP configs and identifiers."""

from __future__ import annotations

from pathlib import Path

import pytest

import flashpress
from flashpress import Config, errors

ROOT = Path(__file__).resolve().parents[2]

# A 16 MiB device with room for a few handles.
TINY = {"ftl.op_ratio": 0.3, "check.verify": False}


@pytest.mark.slow
def test_the_fdp_example_separates_hot_from_cold() -> None:
    cfg = Config.from_toml(ROOT / "examples" / "fdp.toml")
    r = flashpress.simulate(cfg, progress=False)
    cold, hot = r.summary["fdp"]["handles"]
    assert (cold["handle"], hot["handle"]) == (0, 1)
    assert cold["host_bytes_written"] == 60000 * 4096
    assert hot["host_bytes_written"] > 5 * cold["host_bytes_written"]
    # The same jobs untagged: every write through handle 0, data mixed in the same blocks.
    jobs = [{k: v for k, v in j.items() if k != "fdp_pli"} for j in cfg.to_dict()["workload"]["jobs"]]
    glob = {k: v for k, v in cfg.to_dict()["workload"]["global"].items() if k != "fdp"}
    mixed = flashpress.simulate(
        cfg.with_overrides({"workload": {"type": "fio", "global": glob, "jobs": jobs}}), progress=False
    )
    assert mixed.summary["fdp"]["handles"][1]["host_bytes_written"] == 0
    assert r.summary["waf"] < mixed.summary["waf"]


def test_a_trace_with_placement_ids_writes_through_the_handles(tmp_path: Path) -> None:
    trace = tmp_path / "t.csv"
    lines = ["time,op,offset,len,content,pid"]
    lines += [f"{i * 1000},W,{(i % 64) * 4096},4096,,{i % 3}" for i in range(300)]
    lines += ["400000,R,0,4096,,", "401000,W,8192,4096,,"]
    trace.write_text("\n".join(lines) + "\n")
    cfg = Config.preset("tiny").with_overrides(
        {
            **TINY,
            "fdp": {"handles": ["persistently_isolated", "initially_isolated", "initially_isolated"]},
            "workload": {"type": "trace", "path": str(trace), "format": "csv", "replay": "afap"},
        }
    )
    s = flashpress.simulate(cfg, progress=False).summary
    h = s["fdp"]["handles"]
    # 100 writes per identifier; the untagged write goes to handle 0.
    assert [x["host_bytes_written"] // 4096 for x in h] == [101, 100, 100]
    assert [x["type"] for x in h] == ["persistently_isolated", "initially_isolated", "initially_isolated"]
    assert s["fdp"]["reclaim_groups"] == 1
    # 2 channels x 2 planes, one 32-page block of 4 KiB on each.
    assert s["fdp"]["reclaim_unit_bytes"] == 4 * 32 * 4096


@pytest.mark.parametrize(
    ("fdp", "key", "message"),
    [
        ({"handles": []}, "fdp.handles", "expected 1 to 128 reclaim unit handles, got 0"),
        ({"handles": ["initially_isolated"] * 16}, "fdp.handles", "use at most 15 handles or raise ftl.op_ratio"),
        ({"handles": ["isolated"]}, "fdp.handles", "isolated"),
        ({"handles": ["initially_isolated"], "groups": 2}, "fdp.groups", "groups"),
    ],
)
def test_bad_fdp_configs_name_the_key(fdp: dict[str, object], key: str, message: str) -> None:
    with pytest.raises(errors.ConfigError, match=key) as e:
        flashpress.simulate(Config.preset("tiny").with_overrides({**TINY, "fdp": fdp}), progress=False)
    assert message in str(e.value)


@pytest.mark.parametrize(
    ("line", "fdp", "message"),
    [
        ("1000,RUHU,0,0,,3", {"handles": ["initially_isolated"] * 3}, "placement identifier 3, but the device has 3"),
        ("1000,W,4096,4096,,1", None, "without flexible data placement"),
        ("1000,RUHU,0,0,,0", None, "without flexible data placement"),
        ("1000,W,4096,4096,,x", {"handles": ["initially_isolated"]}, "expected a placement identifier"),
        ("1000,RUHU,0,4096,,0", {"handles": ["initially_isolated"]}, "expected offset and len 0"),
        ("1000,RUHU,0,0,,", {"handles": ["initially_isolated"]}, "needs the placement identifier"),
    ],
)
def test_bad_placement_ids_and_handle_updates_name_the_trace_line(
    tmp_path: Path, line: str, fdp: dict[str, object] | None, message: str
) -> None:
    trace = tmp_path / "t.csv"
    trace.write_text(f"time,op,offset,len,content,pid\n0,W,0,4096,,\n{line}\n")
    over: dict[str, object] = {
        **TINY,
        "workload": {"type": "trace", "path": str(trace), "format": "csv", "replay": "afap"},
    }
    if fdp is not None:
        over["fdp"] = fdp
    with pytest.raises(errors.TraceFormatError) as e:
        flashpress.simulate(Config.preset("tiny").with_overrides(over), progress=False)
    assert "t.csv:3" in str(e.value)
    assert message in str(e.value)


BLOCK = 32 * 4096


@pytest.mark.parametrize(
    ("ru_bytes", "message"),
    [
        (BLOCK + 4096, "a whole number of erase blocks of 131072 bytes"),
        (5 * BLOCK, "a multiple of 524288 bytes"),
        (4 * 64 * BLOCK, "larger than a reclaim group"),
        (1024, "fdp.ru_bytes"),
    ],
)
def test_bad_reclaim_unit_sizes_name_the_key(ru_bytes: int, message: str) -> None:
    fdp = {"handles": ["initially_isolated"], "ru_bytes": ru_bytes}
    with pytest.raises(errors.ConfigError, match=r"fdp\.ru_bytes") as e:
        flashpress.simulate(Config.preset("tiny").with_overrides({**TINY, "fdp": fdp}), progress=False)
    assert message in str(e.value)


def test_handle_updates_and_reclaim_unit_events_are_written_beside_the_results(tmp_path: Path) -> None:
    # Reclaim units of one block (32 pages) on the tiny device's four planes. Handle 0 writes
    # 40 pages (its first reclaim unit fills: one implicitly modified handle), an update (8 of
    # 32 written: not fully written), another (nothing written since: no event); handle 1 writes
    # 5 pages; a write names identifier 9, which the device lacks (it goes to identifier 0).
    lines = ["time,op,offset,len,content,pid"]
    lines += [f"{i * 1000},W,{i * 4096},4096,,0" for i in range(40)]
    lines += ["50000,RUHU,0,0,,0", "51000,RUHU,0,0,,0"]
    lines += [f"{60000 + i * 1000},W,{(100 + i) * 4096},4096,,1" for i in range(5)]
    lines += ["70000,W,0,4096,,9"]
    trace = tmp_path / "t.csv"
    trace.write_text("\n".join(lines) + "\n")
    cfg = Config.preset("tiny").with_overrides(
        {
            **TINY,
            "fdp": {"handles": ["persistently_isolated", "persistently_isolated"], "ru_bytes": BLOCK},
            "workload": {"type": "trace", "path": str(trace), "format": "csv", "replay": "afap"},
        }
    )
    r = flashpress.simulate(cfg, progress=False)
    f = r.summary["fdp"]
    assert f["reclaim_unit_bytes"] == BLOCK
    assert f["events"] == {
        "ru_not_fully_written": 1,
        "invalid_placement_identifier": 1,
        "implicitly_modified_ruh": 1,
    }
    assert [h["ruh_updates"] for h in f["handles"]] == [2, 0]
    assert [h["reclaim_units_filled"] for h in f["handles"]] == [1, 0]
    assert [h["host_bytes_written"] // 4096 for h in f["handles"]] == [41, 5]
    out = r.write(tmp_path / "out", timeline_format="csv")
    rows = (out / "fdp_events.csv").read_text().splitlines()
    assert rows[0] == "time_ns,type,code,pid,reclaim_group,handle"
    assert [row.split(",")[1:4] for row in rows[1:]] == [
        ["implicitly_modified_ruh", "0x81", "0"],
        ["ru_not_fully_written", "0x00", "0"],
        ["invalid_placement_identifier", "0x03", "9"],
    ]
    df = r.fdp_events()
    assert df is not None
    assert list(df["handle"]) == [0, 0, 0]
    assert df["time_ns"].is_monotonic_increasing
    # Without [fdp] there is no events table.
    plain = flashpress.simulate(Config.preset("tiny").with_overrides({**TINY}), progress=False)
    assert plain.fdp_events_csv() is None
