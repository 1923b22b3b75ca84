"""`flashpress run` imports only what a run uses: the sweep machinery, the results writer's file
handling, the config TypedDicts and the optional libraries stay out of a run without ``--out``."""

from __future__ import annotations

import json
import os
import subprocess
import sys

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
    rc = main(["run", "--preset", "tiny", "--no-progress"])
print(json.dumps({"rc": rc, "modules": sorted(sys.modules)}))
"""


def test_run_imports_only_what_it_uses() -> None:
    p = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=dict(os.environ), check=True)
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["rc"] == 0
    loaded = set(out["modules"])
    assert "flashpress.run" in loaded  # the probe did run a simulation
    assert [m for m in NOT_IMPORTED if m in loaded] == []


def test_sweep_is_still_the_function() -> None:
    """``flashpress.sweep`` names the function even after its module is imported directly."""
    p = subprocess.run(
        [sys.executable, "-c", "import flashpress.sweep, flashpress; print(callable(flashpress.sweep))"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert p.stdout.strip() == "True"
