#!/usr/bin/env python3
"""Scale benchmark: memory and speed of devices of 1 to 64 TiB mapped in 4, 16 or 64 KiB units.

Each point is ``examples/bench_scale.rs`` in its own process (so its peak RSS is its own): a
device of at least TIB TiB of logical space (8 channels x 8 chips x 4 dies x 2 planes, 1,024
pages per block, 7% over-provisioning, greedy GC below 0.2% free blocks), filled and aged to
steady state untimed (every unit overwritten ``--aging`` times on average), then
``--requests`` random 4 KiB writes at queue depth 32. Printed per point: the memory estimate,
peak RSS, preconditioning time, requests per wall second, WAF, and the aging's and the timed
run's WAF window by window with the steady-state verdict (see the example's doc). Points
whose estimate exceeds this machine's available memory (as the simulator reads it, cgroup
limit included) print their estimate and "not run: over this machine's memory"; points
whose estimate exceeds ``--run-max-gib`` (default 20: what fits on a 24 GiB machine) are
estimated only too, and points the simulator refuses (2^40 or more mapping units) say so
with their estimate, one line each. Each point's line goes to stderr as it finishes; the last
stdout line is one JSON object with every point.

    python3 benchmarks/bench_scale.py [--points 1:4,1:16,...] [--page-kib 4] [--requests N]
        [--aging A] [--run-max-gib G] [--cell tlc] [--windows W] [--repeat R] [--layout auto|wide]

With ``--repeat R`` each point that runs is run R times, one process after another; its line
gives the median of the wall-time figures (preconditioning, timed run, requests per second)
and of the peak RSS, with every run's figures under ``"runs"`` (the simulated results, WAF
and counts, must be identical across runs: the script checks it and stops if not).

``--layout wide`` forces the page map's bit-packed layout (that of devices past 2^32 mapping
units, at least 33 bits) on every point, so its memory and speed are measured on devices
that fit this machine.

``--points`` is TIB:UNIT_KIB pairs; the default is the full table (1, 4, 16, 64 TiB at 4, 16,
64 KiB units). ``make bench-scale-64t`` is the 64 TiB QLC steady-state run of
docs/performance.md: ``--points 64:64 --page-kib 16 --cell qlc --aging 0.6``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXE = os.path.join(ROOT, "target", "release", "examples", "bench_scale")


def point(
    tib: float, unit: int, page: int, requests: int, aging: float, cell: str, windows: int, layout: str
) -> dict[str, object]:
    """One point's JSON line from the example."""
    args = [EXE, str(tib), str(unit), str(page), str(requests), str(aging), cell, str(windows), layout]
    p = subprocess.run(args, check=True, capture_output=True, text=True)
    return json.loads(p.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


TIMED = ("precondition_s", "run_s", "requests_per_wall_s", "peak_rss_gib", "peak_rss_gib_per_logical_tib")
# What the machine says at each run (its available memory): kept per run, not compared.
MACHINE = ("available_gib",)


def repeated(runs: list[dict[str, object]]) -> dict[str, object]:
    """One point's line from R runs: the medians of the wall-time and RSS figures, every run's
    figures under ``runs``; the simulated figures must agree (the simulator is deterministic)."""
    first = {k: v for k, v in runs[0].items() if k not in TIMED + MACHINE}
    for r in runs[1:]:
        other = {k: v for k, v in r.items() if k not in TIMED + MACHINE}
        if other != first:
            raise SystemExit(f"bench_scale: runs of one point differ in simulated results: {first} against {other}")
    out = dict(first)
    for k in TIMED:
        out[k] = statistics.median(float(r[k]) for r in runs)  # type: ignore[arg-type]
    out["runs"] = [{k: r[k] for k in TIMED + MACHINE if k in r} for r in runs]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    table = ",".join(f"{t}:{u}" for t in (1, 4, 16, 64) for u in (4, 16, 64))
    ap.add_argument("--points", default=table, help="TIB:UNIT_KIB pairs (default: the full table)")
    ap.add_argument("--page-kib", type=int, default=4, help="NAND page (KiB; units smaller are packed)")
    ap.add_argument("--requests", type=int, default=1_000_000)
    ap.add_argument("--aging", type=float, default=1.0)
    ap.add_argument("--run-max-gib", type=float, default=20.0, help="run points estimated below this")
    ap.add_argument("--cell", default="tlc", choices=["slc", "mlc", "tlc", "qlc"])
    ap.add_argument("--windows", type=int, default=10, help="windows of the timed run's WAF")
    ap.add_argument("--repeat", type=int, default=1, help="runs per point; medians are printed")
    ap.add_argument(
        "--layout",
        default="auto",
        choices=["auto", "wide"],
        help="page map layout: auto (32-bit below 2^28 units) or wide (the packed layout forced)",
    )
    a = ap.parse_args()
    if a.repeat < 1:
        ap.error("--repeat must be at least 1")
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "flashpress-core", "--example", "bench_scale"],
        check=True,
        cwd=ROOT,
    )
    rows = []
    for spec in a.points.split(","):
        tib, unit = spec.split(":")
        est = point(float(tib), int(unit), a.page_kib, 0, a.aging, a.cell, a.windows, a.layout)
        gib = float(est["estimate_gib"])  # type: ignore[arg-type]
        available = est.get("available_gib")
        avail = float(available) if available is not None else None  # type: ignore[arg-type]
        if "refused" in est:
            print(f"{tib} TiB at {unit} KiB units: refused: {est['refused']}", file=sys.stderr, flush=True)
        elif avail is not None and gib > avail:
            est["not_run"] = "over this machine's memory"
            print(
                f"{tib} TiB at {unit} KiB units: estimate {gib:.2f} GiB: "
                f"not run: over this machine's memory ({avail:.2f} GiB available)",
                file=sys.stderr,
                flush=True,
            )
        elif gib > a.run_max_gib:
            est["not_run"] = f"estimate above --run-max-gib {a.run_max_gib}"
            print(
                f"{tib} TiB at {unit} KiB units: estimate {gib:.2f} GiB: not run: above --run-max-gib {a.run_max_gib}",
                file=sys.stderr,
                flush=True,
            )
        else:
            runs = [
                point(float(tib), int(unit), a.page_kib, a.requests, a.aging, a.cell, a.windows, a.layout)
                for _ in range(a.repeat)
            ]
            est = repeated(runs) if a.repeat > 1 else runs[0]
            print(json.dumps(est), file=sys.stderr, flush=True)
        rows.append(est)
    print(json.dumps({"points": rows}))


if __name__ == "__main__":
    main()
