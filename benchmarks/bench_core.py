#!/usr/bin/env python3
"""Speed benchmark of the core (random 4 KiB writes after a 90% fill), printing one JSON object on its last line.

Device (preset ``bench-mlc-2g``): 8 channels x 2 chips x 1 die x 2 planes, 256 blocks x
64 pages x 4 KiB per plane, OP 7%, MLC 75 us / 750 us / 3.8 ms, greedy GC below 5% free
blocks, queue depth 32. The logical space is filled sequentially to 90% with 128 KiB writes
(untimed preconditioning), then 1,000,000 uniform random 4 KiB writes are replayed from a
DiskSim/MQSim ASCII trace as fast as possible.

Measured twice: the Rust core alone (``examples/bench_core.rs``, no interpreter) and the
Python path (``flashpress.simulate``), each in its own process so peak RSS is its own.

Then the MQSim-comparable workload: the same device and fill, 1,000,000 uniform
random 4 KiB writes *inside the filled 90%*, run by the core with the preset's own
controller (first come first served, non-preemptible GC: MQSim-like) and with the
``default`` preset's realistic controller (read priority, program/erase suspension,
semi-preemptible GC, least-busy allocation). Each run is repeated ``--repeats`` times
(median reported, all runs kept).

Last, in one sitting (runs interleaved, ``--repeats`` rounds), the MQSim-shape trace: the
fill itself as 128 KiB writes, then the 1,000,000 random writes inside it, no preconditioning
(1,013,714 requests): the core with each controller (``examples/bench_core.rs``), the bare loop
(``benchmarks/bare_loop.rs``: the same mapping, allocation and greedy GC over flat arrays,
no events, no statistics, no trace parsing), the timed bare loop (``bare_loop --timed``: the
same FTL work plus the ``fcfs`` controller's timing by reservations, printing simulated time,
write IOPS and latency, compared with the core's ``fcfs`` run), and ``flashpress run`` on it
as a whole process (interpreter start-up, config, trace scan, run, summary), with the ratios
between them and each process's peak RSS.

    python3 benchmarks/bench_core.py [--requests N] [--repeats K] [--skip-python]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _runs import compile_package, flashpress_command, run_once

ROOT = Path(__file__).resolve().parents[1]
PAGE = 4096
# Logical pages of bench-mlc-2g: floor(physical pages * (1 - op_ratio)), as the FTL computes.
PHYSICAL_PAGES = 8 * 2 * 1 * 2 * 256 * 64
LOGICAL_PAGES = int(PHYSICAL_PAGES * (1 - 0.07))


# The preconditioning fill: floor(0.9 x logical pages), as the core computes it.
FILLED_PAGES = int(0.9 * LOGICAL_PAGES)


def write_trace(path: Path, n: int, seed: int = 42, pages: int = LOGICAL_PAGES) -> None:
    """``n`` uniform random single-page writes over ``[0, pages)``, DiskSim ASCII
    (time dev sector nsectors rw)."""
    rng = random.Random(seed)
    sectors = PAGE // 512
    with path.open("w") as f:
        for i in range(n):
            page = rng.randrange(pages)
            f.write(f"{i * 1000} 0 {page * sectors} {sectors} 0\n")


FILL_BLOCK_PAGES = 131072 // PAGE


def write_fill_then_random(path: Path, n: int, seed: int = 42) -> int:
    """The MQSim-shape trace: the sequential fill of 90% of the logical space as 128 KiB
    writes (the last one shorter), then ``n`` uniform random single-page writes inside the
    filled pages, DiskSim ASCII, run without preconditioning. Returns the request count."""
    rng = random.Random(seed)
    sectors = PAGE // 512
    count = 0
    with path.open("w") as f:
        for first in range(0, FILLED_PAGES, FILL_BLOCK_PAGES):
            pages = min(FILL_BLOCK_PAGES, FILLED_PAGES - first)
            f.write(f"{count * 1000} 0 {first * sectors} {pages * sectors} 0\n")
            count += 1
        for _ in range(n):
            page = rng.randrange(FILLED_PAGES)
            f.write(f"{count * 1000} 0 {page * sectors} {sectors} 0\n")
            count += 1
    return count


def run_child(cmd: list[str], env: dict[str, str] | None = None) -> dict:
    """Run a command whose last stdout line is JSON (with its own peak RSS) and return it, with
    the child's whole-process wall time and CPU time (user + system) added.

    Each child measures its own high-water mark as ``VmHWM`` (its own memory's): the
    ``ru_maxrss`` of ``wait4`` or of the child's ``getrusage`` may hold this process's peak, and
    RUSAGE_CHILDREN would fold in the cargo build run before it.
    """
    with tempfile.TemporaryFile("w+") as out:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, env=env, text=True)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{' '.join(cmd)} failed with status {os.waitstatus_to_exitcode(status)}")
        out.seek(0)
        result = json.loads(out.read().strip().splitlines()[-1])
    result["process_wall_s"] = wall
    result["process_cpu_s"] = usage.ru_utime + usage.ru_stime
    return result


PYTHON_PATH = r"""
import json, sys, time
import flashpress
trace = sys.argv[1]
cfg = {"preset": "bench-mlc-2g",
       "workload": {"type": "trace", "path": trace, "format": "disksim", "time_unit": "ns",
                    "sector_size": 512, "replay": "afap", "queue_depth": 32, "time_scale": 1.0,
                    "address_mode": "strict", "blkparse_action": "D"},
       "check": {"verify": False, "invariants": False}}
t0 = time.perf_counter()
res = flashpress.simulate(cfg, progress=False)
wall = time.perf_counter() - t0
s = res.summary
hwm = int(next(ln.split()[1] for ln in open("/proc/self/status") if ln.startswith("VmHWM:")))
print(json.dumps({"path": "python", "requests": s["requests_completed"], "total_wall_s": wall,
                  "requests_per_wall_s_incl_setup": s["requests_completed"] / wall,
                  "peak_rss_mib": hwm / 1024,
                  "waf": s["waf"]}))
"""


#: The bench-mlc-2g device replaying a DiskSim trace at QD 32 with checks off (bench_out.py runs
#: it after the preset's fill; the MQSim-shape run below without one).
TRACE_CONFIG = """preset = "bench-mlc-2g"
[workload]
type = "trace"
path = "{trace}"
format = "disksim"
time_unit = "ns"
sector_size = 512
replay = "afap"
queue_depth = 32
time_scale = 1.0
address_mode = "strict"
blkparse_action = "D"
[check]
verify = false
invariants = false
"""
CLI_CONFIG = TRACE_CONFIG + "[precondition]\nfill_fraction = 0.0\n"


def mqsim_shape(tmp: Path, requests: int, repeats: int, core: Path, bare: Path) -> dict:
    """The MQSim-shape trace in one sitting: core (fcfs, realistic), bare loop (FTL only and
    timed) and CLI, interleaved, ``repeats`` rounds; medians, ratios and peak RSS, and the timed
    bare loop's simulated figures beside the core's ``fcfs`` ones."""
    trace = tmp / "fill-then-random.trace"
    total = write_fill_then_random(trace, requests)
    config = tmp / "mqsim-shape.toml"
    config.write_text(CLI_CONFIG.format(trace=trace))
    cli = [*flashpress_command(), "run", "--config", str(config), "--no-progress"]
    runs: dict[str, list[dict]] = {"fcfs": [], "realistic": [], "bare": [], "timed": [], "cli": []}
    for _ in range(repeats):
        runs["fcfs"].append(run_child([str(core), str(trace), "bench-mlc-2g", "no-fill"]))
        runs["realistic"].append(run_child([str(core), str(trace), "bench-mlc-2g", "realistic", "no-fill"]))
        runs["bare"].append(run_child([str(bare), str(trace)]))
        runs["timed"].append(run_child([str(bare), str(trace), "--timed"]))
        wall, cpu, rss = run_once(cli, tmp / "cli-stderr.txt")
        runs["cli"].append({"wall_s": wall, "cpu_s": cpu, "peak_rss_mib": rss})
    for name in ("bare", "timed"):
        if runs[name][0]["waf"] != runs["fcfs"][0]["waf"]:
            raise SystemExit(
                f"the {name} bare loop's WAF {runs[name][0]['waf']} differs from the core's "
                f"{runs['fcfs'][0]['waf']}: it no longer does the core's FTL work"
            )

    def med(name: str, key: str) -> float:
        return statistics.median(r[key] for r in runs[name])

    fcfs, realistic, bare = med("fcfs", "run_wall_s"), med("realistic", "run_wall_s"), med("bare", "run_wall_s")
    timed = med("timed", "run_wall_s")
    core_run, timed_run = runs["fcfs"][0], runs["timed"][0]
    simulated: dict[str, dict[str, float]] = {}
    for key in ("sim_time_s", "write_iops_simulated", "write_mean_us", "write_p99_us", "write_max_us"):
        c, t = core_run[key], timed_run[key]
        simulated[key] = {"core_fcfs": c, "timed_bare": t, "relative_difference": (t - c) / c}
    core_process = med("fcfs", "process_wall_s")
    cli = med("cli", "wall_s")
    return {
        "trace": "fill (128 KiB writes) + random 4 KiB writes inside it, no preconditioning, QD 32",
        "requests": total,
        "repeats": repeats,
        "load_average": os.getloadavg(),
        "core_fcfs_run_s": fcfs,
        "core_realistic_run_s": realistic,
        "bare_loop_s": bare,
        "timed_bare_loop_s": timed,
        "core_fcfs_process_s": core_process,
        "cli_wall_s": cli,
        "core_fcfs_process_cpu_s": med("fcfs", "process_cpu_s"),
        "cli_cpu_s": med("cli", "cpu_s"),
        "ratio_core_to_bare": fcfs / bare,
        "ratio_core_to_timed_bare": fcfs / timed,
        "ratio_realistic_to_fcfs": realistic / fcfs,
        "cli_minus_core_s": cli - core_process,
        "cli_minus_core_cpu_s": med("cli", "cpu_s") - med("fcfs", "process_cpu_s"),
        "peak_rss_mib": {
            "core_fcfs": max(r["peak_rss_mib"] for r in runs["fcfs"]),
            "core_realistic": max(r["peak_rss_mib"] for r in runs["realistic"]),
            "bare_loop": max(r["peak_rss_mib"] for r in runs["bare"]),
            "timed_bare_loop": max(r["peak_rss_mib"] for r in runs["timed"]),
            "cli": max(r["peak_rss_mib"] for r in runs["cli"]),
        },
        "waf": {
            "fcfs": runs["fcfs"][0]["waf"],
            "realistic": runs["realistic"][0]["waf"],
            "bare": runs["bare"][0]["waf"],
            "timed_bare": runs["timed"][0]["waf"],
        },
        "timed_bare_vs_core_fcfs": {
            **simulated,
            "transfers_booked_ahead": timed_run["transfers_booked_ahead"],
        },
        "all_s": {name: sorted(r.get("run_wall_s", r.get("wall_s")) for r in rs) for name, rs in runs.items()},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=1_000_000)
    ap.add_argument("--skip-python", action="store_true", help="measure the Rust core only")
    ap.add_argument("--repeats", type=int, default=5, help="runs of each controller (median reported)")
    args = ap.parse_args()

    subprocess.run(
        [
            "cargo",
            "build",
            "--release",
            "-q",
            "-p",
            "flashpress-core",
            "--example",
            "bench_core",
            "--example",
            "bare_loop",
        ],
        check=True,
        cwd=ROOT,
    )
    binary = ROOT / "target" / "release" / "examples" / "bench_core"
    bare = ROOT / "target" / "release" / "examples" / "bare_loop"
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "random-writes.trace"
        t0 = time.perf_counter()
        write_trace(trace, args.requests)
        gen_s = time.perf_counter() - t0
        core = run_child([str(binary), str(trace)])
        result = {
            "benchmark": "random 4 KiB writes after a 90% fill, bench-mlc-2g, QD 32",
            "requests": core["requests"],
            "requests_per_wall_s": core["requests_per_wall_s"],
            "peak_rss_mib": core["peak_rss_mib"],
            "waf": core["waf"],
            "core": core,
            "trace_generation_s": gen_s,
        }
        if not args.skip_python:
            result["bytecode"] = f"compiled before the Python runs, as an installed wheel has it: {compile_package()}"
            result["python"] = run_child([sys.executable, "-c", PYTHON_PATH, str(trace)], env=dict(os.environ))
        inside = Path(tmp) / "random-writes-inside-fill.trace"
        write_trace(inside, args.requests, pages=FILLED_PAGES)
        for name, extra in [("fcfs", []), ("realistic", ["realistic"])]:
            runs = [run_child([str(binary), str(inside), "bench-mlc-2g", *extra]) for _ in range(args.repeats)]
            walls = sorted(r["run_wall_s"] for r in runs)
            mid = runs[[r["run_wall_s"] for r in runs].index(walls[len(walls) // 2])]
            result[f"inside_fill_{name}"] = {
                "controller": mid["controller"],
                "requests": mid["requests"],
                "run_wall_s_median": walls[len(walls) // 2],
                "run_wall_s_all": walls,
                "requests_per_wall_s_median": mid["requests"] / walls[len(walls) // 2],
                "peak_rss_mib_max": max(r["peak_rss_mib"] for r in runs),
                "waf": mid["waf"],
                "write_iops_simulated": mid["write_iops_simulated"],
                "write_iops_until_flash_quiet": mid["write_iops_until_flash_quiet"],
                "write_p99_us": mid["write_p99_us"],
            }
        if not args.skip_python:
            result["mqsim_shape"] = mqsim_shape(Path(tmp), args.requests, args.repeats, binary, bare)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
