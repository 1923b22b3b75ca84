"""The memory estimate (issue 15): known from the config before anything is allocated, printed by
``flashpress run --dry-run``, checked against ``--max-memory`` or the machine, and close to what a
run really uses."""

from __future__ import annotations

import math
import subprocess
import sys
import time
from pathlib import Path

import pytest

import flashpress
from flashpress.cli import main
from flashpress.errors import ConfigError


def _pages(nand: dict[str, int]) -> int:
    return math.prod(
        nand[k]
        for k in (
            "channels",
            "chips_per_channel",
            "dies_per_chip",
            "planes_per_die",
            "blocks_per_plane",
            "pages_per_block",
        )
    )


def _reverse_map_bytes(physical: int, logical: int) -> int:
    """The reverse map: one entry per physical page, wide enough for every logical page and
    an all-ones "none" value, bit-packed, with 8 bytes of slack for its 64-bit reads."""
    bits = logical.bit_length()
    return (physical * bits + 7) // 8 + 8


def test_estimate_parts_add_up_and_the_page_map_is_one_u32_per_logical_page() -> None:
    cfg = flashpress.Config.preset("default")
    est = flashpress.estimate_memory(cfg)
    assert est["total_bytes"] == sum(c["bytes"] for c in est["components"])
    assert [c["bytes"] for c in est["components"]] == sorted((c["bytes"] for c in est["components"]), reverse=True)
    d = cfg.to_dict()
    pages = _pages(d["nand"])
    assert est["physical_pages"] == pages
    logical = math.floor(pages * (1 - d["ftl"]["op_ratio"]))
    parts = {c["name"]: c["bytes"] for c in est["components"]}
    assert parts["ftl.page_map"] == logical * 4
    assert parts["ftl.reverse_map"] == _reverse_map_bytes(pages, logical)
    assert parts["ftl.reverse_map"] < pages * 4
    assert parts["python"] > 0


def test_estimate_grows_with_the_device_and_the_timeline() -> None:
    base = flashpress.estimate_memory("default")
    big = flashpress.estimate_memory({"preset": "default", "nand": {"blocks_per_plane": 4096}})
    # Four times the blocks: four times the reverse map's entries, each two bits wider.
    parts = {c["name"]: c["bytes"] for c in base["components"]}
    bigparts = {c["name"]: c["bytes"] for c in big["components"]}
    pages = base["physical_pages"]
    assert big["physical_pages"] == 4 * pages
    logical, big_logical = parts["ftl.page_map"] // 4, bigparts["ftl.page_map"] // 4
    assert abs(big_logical - 4 * logical) <= 4  # floor(pages x (1 - op_ratio)) each
    assert parts["ftl.reverse_map"] == _reverse_map_bytes(pages, logical)
    assert bigparts["ftl.reverse_map"] == _reverse_map_bytes(4 * pages, big_logical)
    fine = flashpress.estimate_memory({"preset": "default", "stats": {"interval_ms": 0.001}})
    tl = {c["name"]: c for c in fine["components"]}["stats.timeline"]
    assert fine["timeline_intervals"] == 1_000_000  # one assumed second in 1 us intervals
    assert tl["key"] == "stats.interval_ms"


@pytest.mark.parametrize(
    ("overrides", "key", "value"),
    [
        ({"nand": {"blocks_per_plane": 262_144}}, "nand.blocks_per_plane", "262144"),
        (
            {
                "stats": {"interval_ms": 0.001},
                "workload": {
                    "type": "fio",
                    "jobs": [{"name": "r", "rw": "randread", "bs": "4k", "runtime": 3600, "time_based": True}],
                },
            },
            "stats.interval_ms",
            "0.001",
        ),
    ],
)
def test_a_run_over_the_limit_is_refused_before_it_allocates(overrides: dict, key: str, value: str) -> None:
    t = time.perf_counter()
    with pytest.raises(ConfigError) as e:
        flashpress.simulate({"preset": "default", **overrides}, max_memory=1 << 30, progress=False)
    assert time.perf_counter() - t < 2.0
    msg = str(e.value)
    assert e.value.key == key
    assert f"{key} = {value}" in msg, msg
    for part in ("--max-memory", "1.0 GiB", "largest parts"):
        assert part in msg, msg


def test_the_cli_refuses_with_exit_2_and_dry_run_allocates_nothing(tmp_path: Path, capsys) -> None:
    args = ["run", "--set", "nand.blocks_per_plane=262144", "--no-progress"]
    assert main([*args, "--max-memory", "2G"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("flashpress: error: "), err
    assert "nand.blocks_per_plane = 262144" in err, err
    t = time.perf_counter()
    assert main([*args, "--dry-run"]) == 0
    assert time.perf_counter() - t < 2.0
    out = capsys.readouterr().out
    for part in ("dry run", "memory estimate:", "ftl.page_map"):
        assert part in out, out
    assert "1,073,741,824 pages" in out  # 32 planes x 2^18 blocks x 128 pages


def test_max_memory_flag_rejects_a_negative_size(capsys) -> None:
    with pytest.raises(SystemExit) as e:
        main(["run", "--max-memory", "-1", "--dry-run"])
    assert e.value.code == 2
    assert "--max-memory" in capsys.readouterr().err


def test_max_memory_zero_means_no_check() -> None:
    res = flashpress.simulate(
        {
            "preset": "tiny",
            "workload": {"type": "fio", "jobs": [{"rw": "randwrite", "bs": "4k", "number_ios": 100}]},
        },
        max_memory=0,
        progress=False,
    )
    assert res.summary["requests_completed"] == 100


def test_the_process_address_space_limit_counts_as_the_machine(tmp_path: Path) -> None:
    # Under `ulimit -v 3G` an 8 GiB run is refused by the check, not aborted by the allocator.
    child = (
        "import resource, flashpress\n"
        "resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))\n"
        "avail = flashpress.estimate_memory()['available_bytes']\n"
        "assert 0 < avail < 3 << 30, avail\n"
        "try:\n"
        "    flashpress.simulate({'preset': 'default', 'nand': {'blocks_per_plane': 262144}}, progress=False)\n"
        "except flashpress.errors.ConfigError as e:\n"
        "    print(e.key, '|', e)\n"
    )
    r = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.startswith("nand.blocks_per_plane | "), r.stdout
    assert "address-space limit (ulimit -v)" in r.stdout, r.stdout


def _histogram_counters(longest_ns: int) -> int:
    """Counters of an HDR histogram at 3 significant digits holding values up to
    ``longest_ns``: 2,048 for values below 2^11, then 1,024 more per doubling."""
    doublings = max(0, max(longest_ns, 2).bit_length() - 11)
    return 2048 + 1024 * doublings


def test_the_latency_histograms_are_counted_as_grown_to_the_runs_length() -> None:
    assert _histogram_counters(999_999_999) == 21_504
    parts = {c["name"]: c for c in flashpress.estimate_memory("default")["components"]}
    # No length in the config: latencies up to the assumed second, in four histograms.
    assert parts["stats.histograms"]["bytes"] == 4 * _histogram_counters(10**9) * 8
    assert "assumed" in parts["stats.histograms"]["detail"]
    # A fio job of a known runtime: latencies up to it (an hour: the histograms' largest).
    for runtime, longest in (("20ms", 20 * 10**6), (3600, 3600 * 10**9)):
        job = {"name": "r", "rw": "randread", "bs": "4k", "runtime": runtime, "time_based": True}
        est = flashpress.estimate_memory({"preset": "default", "workload": {"type": "fio", "jobs": [job]}})
        hist = {c["name"]: c for c in est["components"]}["stats.histograms"]
        assert hist["bytes"] == 4 * _histogram_counters(longest) * 8, (runtime, hist)
        assert "the run's length" in hist["detail"]
    assert _histogram_counters(3600 * 10**9) == 33_792


def test_a_fio_jobs_verify_is_in_the_estimate() -> None:
    from flashpress.run import PYTHON_BASELINE_BYTES

    job = {"name": "v", "rw": "randwrite", "bs": "4k", "number_ios": 10}
    plain = {"preset": "default", "workload": {"type": "fio", "jobs": [job]}}
    cfg = {"preset": "default", "workload": {"type": "fio", "jobs": [{**job, "verify": "md5"}]}}
    off = flashpress.estimate_memory(plain)["total_bytes"]
    est = flashpress.estimate_memory(cfg)
    on = est["total_bytes"]
    # The job's `verify` turns verify mode on: the estimate counts its arrays, and the job's
    # verify history (one bit per 4 KiB block of the device, its region).
    forced = flashpress.estimate_memory({**plain, "check": {"verify": True}})["total_bytes"]
    parts = {c["name"]: c["bytes"] for c in est["components"]}
    blocks = est["logical_bytes"] // 4096
    assert parts["fio.verify_list"] == -(-blocks // 64) * 8
    assert on == forced + parts["fio.verify_list"]
    assert on > off + (32 << 20)
    # Between the two: the run is refused for its verify arrays, and runs without `verify`.
    with pytest.raises(ConfigError) as e:
        flashpress.simulate(cfg, max_memory=(off + on) // 2 - PYTHON_BASELINE_BYTES, progress=False)
    assert "verify" in str(e.value), e.value
    flashpress.simulate(plain, max_memory=(off + on) // 2 - PYTHON_BASELINE_BYTES, progress=False)


def test_fit_workers_starts_no_more_runs_than_fit_side_by_side() -> None:
    from flashpress import Config
    from flashpress.run import PYTHON_BASELINE_BYTES
    from flashpress.sweep import fit_workers

    small = Config.preset("tiny").to_json()
    big = Config.preset("default").to_json()
    e_small = flashpress.estimate_memory(Config.from_json(small))["total_bytes"]
    e_big = flashpress.estimate_memory(Config.from_json(big))["total_bytes"]
    assert e_big > 2 * e_small
    configs = [small, big, small, big]
    said: list[str] = []
    # Room for the two largest side by side, not for three: two workers, and a line saying why.
    room = 2 * e_big + e_small - 1
    assert fit_workers(configs, 4, None, "point", said.append, available=room) == 2
    assert len(said) == 1, said
    assert said[0].startswith("running 2 points at a time instead of 4"), said
    # Room for all four; the check off; too little room even for one (each run then refuses itself).
    assert fit_workers(configs, 4, None, "point", available=2 * (e_big + e_small)) == 4
    assert fit_workers(configs, 4, 0, "point", available=1) == 4
    assert fit_workers(configs, 4, None, "point", available=1) == 1
    # A run over the per-run limit is refused as it starts: it takes no room.
    # (A run's own check leaves out the Python process it runs in.)
    limit = e_big - PYTHON_BASELINE_BYTES
    assert fit_workers([small, small, big], 3, limit - 1, "point", available=2 * e_small + 1) == 3
    assert fit_workers([small, small, big], 3, limit, "point", available=2 * e_small + 1) == 1
    # The default count: one per core, at most one per config.
    assert fit_workers([small], None, None, "point", available=1 << 40) == 1


def test_sweep_refuses_a_point_over_max_memory_and_keeps_the_rest(tmp_path: Path) -> None:
    grid = tmp_path / "grid.toml"
    grid.write_text(
        'preset = "tiny"\n[set]\n'
        'workload = { type = "fio", jobs = [{ rw = "randwrite", bs = "4k", number_ios = 200 }] }\n'
        '"precondition.fill_fraction" = 0.0\n[grid]\n"nand.blocks_per_plane" = [64, 262144]\n'
    )
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "flashpress", "sweep", str(grid), "--out", str(out), "--workers", "1"]
    r = subprocess.run([*cmd, "--max-memory", "256M"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2, r.stderr
    assert "1 of 2 points failed; 1 of 2 points finished and are kept" in r.stderr, r.stderr
    assert "point 1 (nand.blocks_per_plane=262144): ConfigError" in r.stderr, r.stderr
    assert "--max-memory limit (256.0 MiB)" in r.stderr, r.stderr
    assert not out.exists()


#: Starts ARGV and prints its exit status, its peak RSS and the starter's own memory's peak
#: (``VmHWM``; KiB). Linux counts in a child's ``ru_maxrss`` the peak of the memory it replaced
#: at ``exec``, its starter's: started from the test process (tens of MiB after other tests), a
#: run would report the test process. This small starter is what it inherits instead.
STARTER = """
import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(p.pid, 0)
hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss, hwm)
"""


def _peak_rss(argv: list[str]) -> int:
    cmd = [sys.executable, "-c", STARTER, sys.executable, "-m", "flashpress", *argv]
    status, child, starter = map(int, subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split())
    assert status == 0
    assert child > starter, "the run's peak cannot be told from its starter's"
    return child * 1024


TIB = Path(__file__).resolve().parents[2] / "examples" / "device-1tib.toml"


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss in KiB is Linux's")
@pytest.mark.parametrize("which", ["default", "1tib"])
def test_estimate_within_20_percent_of_peak_rss(which: str, tmp_path: Path) -> None:
    if which == "1tib":
        cfg: str = str(TIB)
        argv = ["run", "--config", cfg, "--no-progress"]
    else:
        cfg = which
        argv = ["run", "--preset", which, "--no-progress"]
    est = flashpress.estimate_memory(cfg)["total_bytes"]
    rss = _peak_rss(argv)
    assert abs(est / rss - 1) <= 0.20, (est, rss)
