"""Shared fixtures of the Python tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import flashpress
from _helpers import SMALL_WRITES


@pytest.fixture
def tiny() -> flashpress.Config:
    """The tiny preset with a short workload."""
    return flashpress.Config.preset("tiny").with_overrides({"workload": SMALL_WRITES})


@pytest.fixture
def write_file(tmp_path: Path) -> Callable[[str, str], Path]:
    def write(name: str, text: str) -> Path:
        p = tmp_path / name
        p.write_text(text)
        return p

    return write


@pytest.fixture
def fetch() -> Any:
    """testdata/fetch.py as a module (it is a script, not part of the package)."""
    import importlib.util
    import sys

    path = Path(__file__).resolve().parents[2] / "testdata" / "fetch.py"
    spec = importlib.util.spec_from_file_location("fetch", path)
    assert spec is not None
    assert spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["fetch"] = mod
    spec.loader.exec_module(mod)
    return mod
