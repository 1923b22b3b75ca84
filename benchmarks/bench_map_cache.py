#!/usr/bin/env python3
"""Cost of the demand-paged map cache at a 100% hit ratio, in instructions (callgrind).

Two workloads (``--workload``), each run with the whole map in DRAM (``full``) and with
``ftl.map_cache = { type = "demand" }`` one translation page short of the whole table, so
every lookup hits, each under ``valgrind --tool=callgrind``:

- ``speed`` (the default, and what ``make bench`` runs): the speed benchmark's trace
  (``bench_core.py``: bench-mlc-2g filled to 90%, then uniform random 4 KiB writes inside the
  filled 90%, replayed by ``examples/bench_core.rs`` at queue depth 32);
- ``mixed``: ``examples/bench_map_cache.rs`` (the same fill, then random 4 KiB reads and
  writes, 70% reads, over the first 800 MiB).

Prints one JSON object on its last line: instructions of each run (the whole process: the
untimed fill goes through the cache too) and their ratio. The target is a ratio of at most
1.3. Instruction counts do not depend on the machine's load, unlike wall time. With the speed
trace each config also runs once natively: what the cache adds to the peak RSS against what
it adds to the memory estimate (the estimate's target: within 5%).

    python3 benchmarks/bench_map_cache.py [--workload speed|mixed] [--requests N]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import tempfile
from pathlib import Path

from bench_core import FILLED_PAGES, write_trace

ROOT = Path(__file__).resolve().parents[1]


def instructions(cmd: list[str]) -> tuple[int, dict]:
    """Instructions callgrind counts for one run, and the run's own JSON line."""
    with tempfile.TemporaryDirectory() as d:
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={d}/cg.out", *cmd],
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
    ap.add_argument("--workload", choices=["speed", "mixed"], default="speed")
    ap.add_argument("--requests", type=int, default=200_000)
    args = ap.parse_args()
    example = "bench_core" if args.workload == "speed" else "bench_map_cache"
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "flashpress-core", "--example", example],
        check=True,
        cwd=ROOT,
    )
    exe = str(ROOT / "target" / "release" / "examples" / example)
    with tempfile.TemporaryDirectory() as tmp:
        if args.workload == "speed":
            trace = Path(tmp) / "inside.trace"
            write_trace(trace, args.requests, pages=FILLED_PAGES)
            full, full_run = instructions([exe, str(trace)])
            demand, demand_run = instructions([exe, str(trace), "bench-mlc-2g", "demand"])
            hit = demand_run["map_hit_ratio"]
            same = full_run["write_p99_us"] == demand_run["write_p99_us"]
            # Natively once more each: what the cache adds to the peak RSS against what it adds
            # to the memory estimate (the process's fixed baseline cancels out).
            native = {}
            for name, cmd in (("full", [exe, str(trace)]), ("demand", [exe, str(trace), "bench-mlc-2g", "demand"])):
                out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
                native[name] = json.loads(out.splitlines()[-1])
            rss = native["demand"]["peak_rss_mib"] - native["full"]["peak_rss_mib"]
            est = native["demand"]["estimate_mib"] - native["full"]["estimate_mib"]
            memory = {"cache_peak_rss_mib": rss, "cache_estimate_mib": est, "estimate_error": est / rss - 1}
        else:
            full, full_run = instructions([exe, "full", str(args.requests)])
            demand, demand_run = instructions([exe, "demand", str(args.requests)])
            hit = demand_run["hit_ratio"]
            same = full_run["read_mean_us"] == demand_run["read_mean_us"]
            memory = None
    if hit != 1.0:
        raise SystemExit(f"the demand run missed: {demand_run}")
    print(
        json.dumps(
            {
                "workload": args.workload,
                "requests": args.requests,
                "full_instructions": full,
                "demand_instructions": demand,
                "ratio": demand / full,
                "target_ratio": 1.3,
                "demand_hit_ratio": hit,
                "same_latency": same,
                "memory": memory,
            }
        )
    )


if __name__ == "__main__":
    main()
