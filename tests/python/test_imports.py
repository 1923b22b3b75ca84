"""`flashpress run` imports only what a run uses: the sweep machinery, the results writer's file
handling (and ``pathlib``), the config TypedDicts and ``typing``, the helpers for unusual config
values (date-times, numpy numbers, ``--set`` tables) and the optional libraries stay out of a run
without ``--out``, whether it runs a preset or a trace config file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# What a run without --out and without a progress bar never needs.
NOT_IMPORTED = (
    "logging",
    "dataclasses",
    "inspect",
    "tempfile",
    "ctypes",
    "hashlib",
    "secrets",
    "fcntl",
    "shutil",
    "tomllib",
    # Config values that are not plain JSON types (date-times, numpy numbers) and deep copies
    # (`--set` of a table, Config.to_dict): a run from a preset or a TOML file needs neither.
    "datetime",
    "_datetime",
    "numbers",
    "copy",
    # Only a sweep asks which thread it is on.
    "threading",
    # A config names files as strings (flashpress.config.absolute_path); only writing results
    # builds paths. pathlib loads urllib.parse, ipaddress and fnmatch: 0.5 MiB of peak RSS.
    "pathlib",
    "urllib.parse",
    "ipaddress",
    "fnmatch",
    # Annotations are strings (`from __future__ import annotations`) and typing's names are
    # imported under `if TYPE_CHECKING:` only: 0.4 MiB.
    "typing",
    "flashpress.config_types",
    "flashpress.plots",
    "flashpress.reproduce",
    "numpy",
    "pandas",
    "pyarrow",
    "tqdm",
    "dask",
)

PROBE = """
import contextlib, io, json, sys
from flashpress.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    rc = main(["run", *sys.argv[1:], "--no-progress"])
print(json.dumps({"rc": rc, "modules": sorted(sys.modules)}))
"""

#: A trace replayed from a config file, as ``benchmarks/bench_core.py`` runs the CLI.
TRACE_CONFIG = """preset = "tiny"
[workload]
type = "trace"
path = "{trace}"
format = "disksim"
time_unit = "ns"
sector_size = 512
replay = "afap"
queue_depth = 4
"""


def loaded_by_run(*args: str) -> set[str]:
    """The modules loaded once ``flashpress run ARGS --no-progress`` has finished (in a fresh
    interpreter, so nothing the test process imported counts)."""
    p = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=dict(os.environ), check=True
    )
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["rc"] == 0
    loaded = set(out["modules"])
    assert "flashpress.run" in loaded  # the probe did run a simulation
    return loaded


def test_run_imports_only_what_it_uses() -> None:
    loaded = loaded_by_run("--preset", "tiny")
    assert [m for m in NOT_IMPORTED if m in loaded] == []


def test_trace_run_from_a_config_file_imports_only_what_it_uses(tmp_path: Path) -> None:
    trace = tmp_path / "w.trace"
    trace.write_text("".join(f"{i * 1000} 0 {i * 8} 8 0\n" for i in range(64)))
    config = tmp_path / "trace.toml"
    config.write_text(TRACE_CONFIG.format(trace=trace))
    loaded = loaded_by_run("--config", str(config))
    assert [m for m in NOT_IMPORTED if m in loaded] == []


def test_the_deferred_modules_still_load_when_used() -> None:
    """The probe sees a deferred module that a run does load: ``--set`` deep-copies its value
    into the config (``copy``)."""
    loaded = loaded_by_run("--preset", "tiny", "--set", "seed=7")
    assert "copy" in loaded


def test_writing_results_still_loads_pathlib(tmp_path: Path) -> None:
    """The probe sees ``pathlib`` where a run does use it: ``--out`` writes the results
    directory through it, and the directory is complete."""
    out = tmp_path / "out"
    loaded = loaded_by_run("--preset", "tiny", "--out", str(out))
    assert "pathlib" in loaded
    assert json.loads((out / "summary.json").read_text())["requests_completed"] > 0


def test_sweep_is_still_the_function() -> None:
    """``flashpress.sweep`` names the function even after its module is imported directly."""
    p = subprocess.run(
        [sys.executable, "-c", "import flashpress.sweep, flashpress; print(callable(flashpress.sweep))"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert p.stdout.strip() == "True"
