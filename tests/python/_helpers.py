"""Helpers shared by the Python tests (imported as ``_helpers``; pytest puts this folder on
sys.path)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flashpress import _core

REPO = Path(__file__).resolve().parents[2]
#: MQSim's TPC-C block trace, vendored with its licence (testdata/traces/README.md).
TPCC_TRACE = REPO / "testdata" / "traces" / "tpcc-small.trace"


def fio_example(name: str) -> Path:
    """Job file ``name`` of fio's own examples (Debian's fio-examples package, ``make testdata``)."""
    from flashpress.reproduce import testdata

    path = testdata.root() / "fio-examples" / name
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: run `make testdata` (or set FLASHPRESS_TESTDATA)")
    return path


#: A short random-write fio workload: enough to exercise the device, fast enough for many tests.
SMALL_WRITES: dict[str, Any] = {
    "type": "fio",
    "jobs": [{"name": "w", "rw": "randwrite", "bs": "4k", "iodepth": 8, "number_ios": 2000}],
}


def trace_workload(path: Path, fmt: str, **extra: Any) -> dict[str, Any]:
    """The workload table for a trace file: the core's defaults for its format, then ``extra``."""
    w: dict[str, Any] = json.loads(_core.default_trace_config(str(path), fmt))
    w.update(extra)
    return w
