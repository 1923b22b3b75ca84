"""Shared fixtures of the Python tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

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
