"""Config: presets, constructors, overrides, views, round trips."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import flashpress
from flashpress import Config
from flashpress.errors import ConfigError, UnknownPresetError


@pytest.mark.parametrize("name", flashpress.presets())
def test_every_preset_loads_and_round_trips(name: str) -> None:
    cfg = Config.preset(name)
    assert Config.from_json(cfg.to_json()) == cfg
    assert Config.from_dict(cfg.to_dict()) == cfg
    assert json.loads(cfg.to_json()) == cfg.to_dict()


def test_presets_include_default_and_tiny() -> None:
    assert {"default", "tiny"} <= set(flashpress.presets())
    assert "[nand]" in flashpress.preset_toml("tiny")


@pytest.mark.parametrize(
    ("user", "key", "expected"),
    [
        ({}, "nand.channels", 8),
        ({"preset": "tiny"}, "nand.channels", 2),
        ({"preset": "tiny", "ftl": {"op_ratio": 0.25}}, "ftl.op_ratio", 0.25),
        ({"ftl": {"gc": {"victim": "fifo"}}}, "ftl.gc.victim", "fifo"),
        ({"ftl": {"gc": {"victim": "fifo"}}}, "ftl.gc.threshold", 0.05),
        ({"seed": 42}, "seed", 42),
    ],
)
def test_from_dict_merges_over_preset(user: dict[str, object], key: str, expected: object) -> None:
    assert Config.from_dict(user).get(key) == expected


def test_from_toml_resolves_relative_workload_paths(tmp_path: Path) -> None:
    (tmp_path / "job.fio").write_text("[w]\nrw=randwrite\nbs=4k\nnumber_ios=10\n")
    cfg_path = tmp_path / "c.toml"
    cfg_path.write_text('preset = "tiny"\n[workload]\ntype = "fio"\npath = "job.fio"\n')
    cfg = Config.from_toml(cfg_path)
    assert cfg.workload.path == str(tmp_path / "job.fio")
    assert cfg.nand.cell == "slc"


#: Paths whose spelling pathlib rewrites: empty and ``.`` parts, repeated and trailing slashes,
#: ``..`` (kept), POSIX's leading ``//`` (kept) and ``///`` (one slash).
PATH_SPELLINGS = [
    "",
    ".",
    "a",
    "a/b",
    "./a",
    "a/./b",
    "a//b",
    "a/b/",
    "../a",
    "a/../b",
    "/",
    "//",
    "///",
    "//a/b",
    "///a//b",
    "/a/./b/",
    "/a/../b",
    "a b/c",
]


@pytest.mark.parametrize("cwd", ["tmp", "/"])
def test_absolute_path_spells_a_path_as_pathlib_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cwd: str) -> None:
    """A config names its files by ``absolute_path`` (a run does not import pathlib); the
    strings must stay those ``Path.absolute()`` gave, resolved workload paths included, from
    the root folder too (where the working folder and the path are joined by one slash)."""
    from flashpress.config import absolute_path

    monkeypatch.chdir(tmp_path if cwd == "tmp" else cwd)
    for spelling in PATH_SPELLINGS:
        assert absolute_path(spelling) == str(Path(spelling).absolute()), spelling
        assert absolute_path(Path(spelling)) == str(Path(spelling).absolute()), spelling
    with pytest.raises(TypeError):
        Path(b"a")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        absolute_path(b"a")  # type: ignore[arg-type]


def test_from_toml_names_the_trace_as_pathlib_spells_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A config file named with ``./`` and ``//`` resolves its relative trace path to the same
    string as before (``Path.absolute()`` of the file's name, then its folder)."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "w.trace").write_text("0 0 0 8 0\n")
    (tmp_path / "sub" / "c.toml").write_text(
        'preset = "tiny"\n[workload]\ntype = "trace"\npath = "w.trace"\nformat = "disksim"\n'
    )
    monkeypatch.chdir(tmp_path)
    cfg = Config.from_toml(".//sub/./c.toml")
    assert cfg.workload.path == str(Path("sub").absolute() / "w.trace")


@pytest.mark.parametrize(
    ("overrides", "key", "expected"),
    [
        ({"ftl.op_ratio": 0.2}, "ftl.op_ratio", 0.2),
        ({"ftl.gc.victim": "cost_benefit"}, "ftl.gc.victim", "cost_benefit"),
        ({"ftl": {"gc": {"background": True}}}, "ftl.gc.background", True),
        ({"ftl": {"gc": {"background": True}}}, "ftl.gc.victim", "greedy"),
        ({"nand.channels": 4, "seed": 9}, "nand.channels", 4),
        (
            {"workload": {"type": "fio", "jobs": [{"rw": "read", "number_ios": 5}]}},
            "workload.jobs",
            ({"rw": "read", "number_ios": 5},),
        ),
    ],
)
def test_with_overrides(overrides: dict[str, object], key: str, expected: object) -> None:
    base = Config.preset("tiny")
    cfg = base.with_overrides(overrides)
    got = cfg.get(key)
    if isinstance(expected, tuple):
        assert [dict(x) for x in got] == list(expected)
    else:
        assert got == expected
    assert base == Config.preset("tiny"), "the original is unchanged"


def test_workload_override_replaces_the_whole_table() -> None:
    cfg = Config.preset("tiny").with_overrides({"workload": {"type": "fio", "path": "/x.fio"}})
    assert cfg.workload.jobs == ()
    assert cfg.workload.path == "/x.fio"


def test_unknown_key_names_the_dotted_key() -> None:
    with pytest.raises(ConfigError, match=r"ftl\.op_ratoi") as e:
        Config.preset("tiny").with_overrides({"ftl.op_ratoi": 0.1})
    assert e.value.key == "ftl.op_ratoi"
    assert isinstance(e.value, ValueError)


def test_unknown_preset_lists_known_ones() -> None:
    with pytest.raises(UnknownPresetError, match="tiny") as e:
        Config.preset("huge")
    assert e.value.name == "huge"
    assert isinstance(e.value, ConfigError)


def test_attribute_views_are_read_only() -> None:
    cfg = Config.preset("tiny")
    assert cfg.nand.channels == 2
    assert cfg.ftl.gc.victim == "greedy"
    assert cfg["ftl"]["gc"]["victim"] == "greedy"
    assert cfg.nand.read_latency_us == (25.0,)
    with pytest.raises(AttributeError):
        cfg.seed = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        cfg.nand.channels = 3
    with pytest.raises(AttributeError, match="no key `chanels`"):
        _ = cfg.nand.chanels
    d = cfg.to_dict()
    d["nand"]["channels"] = 99
    assert cfg.nand.channels == 2, "to_dict returns a copy"


def test_equality_and_hash() -> None:
    a = Config.preset("tiny")
    b = Config.from_dict({"preset": "tiny"})
    assert a == b
    assert hash(a) == hash(b)
    assert a != a.with_overrides({"seed": 2})
    assert a != "tiny"


def test_pickles(tmp_path: Path) -> None:
    import pickle

    cfg = Config.preset("tiny").with_overrides({"seed": 5})
    assert pickle.loads(pickle.dumps(cfg)) == cfg


@pytest.mark.parametrize("bad", [-1.0, 2e12])
def test_bad_warmup_names_its_key(bad: float) -> None:
    with pytest.raises(ConfigError) as e:
        flashpress.simulate({"preset": "tiny", "stats": {"warmup_ms": bad}}, progress=False)
    assert e.value.key == "stats.warmup_ms"
    assert "expected 0 to 1e12 ms" in str(e.value)


def test_summary_states_the_measured_window() -> None:
    # 4000 reads of unwritten pages (no NAND work): a steady closed loop. Without a warm-up
    # the window is the whole run; with one, it starts there and holds fewer requests.
    job = {"type": "fio", "jobs": [{"name": "r", "rw": "randread", "bs": "4k", "number_ios": 4000}]}
    whole = flashpress.simulate({"preset": "tiny", "workload": job}, progress=False).summary
    assert whole["window"] == {"from_s": 0.0, "to_s": whole["sim_time_s"], "seconds": whole["sim_time_s"]}
    half_ms = whole["sim_time_s"] * 500.0
    s = flashpress.simulate(
        {"preset": "tiny", "stats": {"warmup_ms": half_ms}, "workload": job}, progress=False
    ).summary
    assert s["window"]["from_s"] == pytest.approx(half_ms / 1000.0)
    assert s["window"]["seconds"] == pytest.approx(whole["sim_time_s"] / 2.0)
    # steady: about half the requests, at the same rate
    assert s["read"]["requests"] == pytest.approx(2000, abs=2)
    assert s["read"]["iops"] == pytest.approx(whole["read"]["iops"], rel=2e-3)


def test_a_scheme_is_chosen_when_a_config_is_built_not_as_an_override() -> None:
    cfg = Config.from_dict({"scheme": "prssd/DP"})
    assert cfg.get("scheme") == "prssd/DP"
    assert cfg.get("nand.page_size") == 16384
    assert cfg.get("ftl.compression.codec") == "dpc"
    assert Config.from_json(cfg.to_json()) == cfg
    with pytest.raises(ConfigError) as e:
        Config.preset("prssd").with_overrides({"scheme": "prssd/S"})
    assert e.value.key == "scheme"
    pr = Config.from_dict({"scheme": "prssd/PR"})
    assert pr.get("ftl.compression.split.decision") == "bit"
    with pytest.raises(ConfigError, match="known: Baseline") as e:
        Config.from_dict({"scheme": "prssd/PR_all"})
    assert e.value.key == "scheme"
