#!/usr/bin/env python3
"""What writing results costs: ``flashpress run`` on the core speed benchmark (the
``bench-mlc-2g`` device filled to 90%, then 1,000,000 uniform random 4 KiB writes replayed from
a DiskSim trace at QD 32; see ``bench_core.py``) without ``--out``, with ``--out`` (Parquet
timeline) and with ``--out --timeline-format csv``. Each is its own process, run ``--repeats``
times, interleaved; wall time (from start to exit: interpreter, imports, simulation, summary,
files) and peak RSS are that child's own (``os.wait4``). Prints one JSON object on its last
line: per variant the median wall time, every run's, the median CPU time (user + system, less
disturbed than wall time by other work on the machine), the largest peak RSS, and the ratios of
the medians to the run without ``--out``.

    python3 benchmarks/bench_out.py [--requests N] [--repeats K]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _runs import compile_package, flashpress_command, run_once
from bench_core import TRACE_CONFIG as CONFIG
from bench_core import write_trace


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=5, help="runs of each variant (median reported)")
    args = ap.parse_args()

    compile_package()  # each run without the compiler's share (see _runs.py)
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        trace = tmp / "random-writes.trace"
        write_trace(trace, args.requests)
        config = tmp / "bench.toml"
        config.write_text(CONFIG.format(trace=trace))
        out = tmp / "out"
        base = [*flashpress_command(), "run", "--config", str(config)]
        variants = {
            "no_out": base,
            "out_parquet": [*base, "--out", str(out)],
            "out_csv": [*base, "--out", str(out), "--timeline-format", "csv"],
        }
        runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in variants}
        files: dict[str, dict[str, int]] = {}
        for _ in range(args.repeats):
            for name, cmd in variants.items():
                shutil.rmtree(out, ignore_errors=True)
                runs[name].append(run_once(cmd, tmp / "stderr.txt"))
                if out.exists():
                    files[name] = {p.name: p.stat().st_size for p in sorted(out.iterdir())}

    base_wall = statistics.median(r[0] for r in runs["no_out"])
    base_cpu = statistics.median(r[1] for r in runs["no_out"])
    result: dict[str, object] = {
        "benchmark": (
            "flashpress run [--out] on the core speed benchmark's workload (bench-mlc-2g, random 4 KiB writes, QD 32)"
        ),
        "requests": args.requests,
        "repeats": args.repeats,
        "load_average": os.getloadavg(),
    }
    for name, rs in runs.items():
        wall = statistics.median(r[0] for r in rs)
        cpu = statistics.median(r[1] for r in rs)
        result[name] = {
            "median_wall_s": round(wall, 3),
            "all_wall_s": [round(r[0], 3) for r in rs],
            "median_cpu_s": round(cpu, 3),
            "peak_rss_mib_max": round(max(r[2] for r in rs), 1),
            "peak_rss_mib_median": round(statistics.median(r[2] for r in rs), 1),
            "wall_vs_no_out": round(wall / base_wall, 3),
            "cpu_vs_no_out": round(cpu / base_cpu, 3),
        }
        if name in files:
            result[name]["file_bytes"] = files[name]  # type: ignore[index]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
