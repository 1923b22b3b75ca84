#!/usr/bin/env python3
"""Cost of the demand-paged map cache at a 100% hit ratio, in instructions (callgrind).

Runs ``examples/bench_map_cache.rs`` (bench-mlc-2g filled to 90%, then random 4 KiB reads and
writes over its first 800 MiB) with the whole map in DRAM (``full``) and with
``ftl.map_cache = { type = "demand" }`` one translation page short of the whole table, so
every lookup hits, each under ``valgrind --tool=callgrind``, and prints one JSON object on
its last line: instructions of each run (the whole process: the untimed fill goes through the
cache too) and their ratio. The target is a ratio of at most 1.3. Instruction counts do not
depend on the machine's load, unlike wall time.

    python3 benchmarks/bench_map_cache.py [--requests N]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def instructions(exe: Path, mode: str, requests: int) -> tuple[int, dict]:
    """Instructions callgrind counts for one run, and the run's own JSON line."""
    with tempfile.TemporaryDirectory() as d:
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={d}/cg.out", str(exe), mode, str(requests)],
            check=True,
            capture_output=True,
            text=True,
        )
    m = re.search(r"Collected\s*:\s*(\d+)", out.stderr)
    if m is None:
        raise SystemExit(f"callgrind printed no instruction count:\n{out.stderr}")
    return int(m.group(1)), json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=200_000)
    args = ap.parse_args()
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "flashpress-core", "--example", "bench_map_cache"],
        check=True,
        cwd=ROOT,
    )
    exe = ROOT / "target" / "release" / "examples" / "bench_map_cache"
    full, full_run = instructions(exe, "full", args.requests)
    demand, demand_run = instructions(exe, "demand", args.requests)
    if demand_run["hit_ratio"] != 1.0:
        raise SystemExit(f"the demand run missed: {demand_run}")
    print(
        json.dumps(
            {
                "requests": args.requests,
                "full_instructions": full,
                "demand_instructions": demand,
                "ratio": demand / full,
                "target_ratio": 1.3,
                "demand_hit_ratio": demand_run["hit_ratio"],
                "same_read_latency": full_run["read_mean_us"] == demand_run["read_mean_us"],
            }
        )
    )


if __name__ == "__main__":
    main()
