#!/usr/bin/env python3
"""Where a core run's instructions go, by component: callgrind self costs grouped by the
source file of each line (inlined code counts in the file it was written in), printed as a
Markdown table of instructions and instructions per request.

    valgrind --tool=callgrind --dump-before='*clock_gettime*' --callgrind-out-file=cg \\
        target/release/examples/bench_core TRACE bench-mlc-2g no-fill
    python3 benchmarks/callgrind_components.py --requests 1013714 cg.6 [OTHER ...]

With ``--dump-before='*clock_gettime*'`` the profile is cut at the benchmark's clock reads:
the part between the replay's two reads (``cg.6`` for ``bench_core``) is the replay alone,
an earlier one the set-up with its scan of the trace. Library code (``std``, crates) counts
in the component of the function it was inlined into; frames still on the stack at a cut
(``main`` and below) are left out, as callgrind charges them there with their callees.
Several files give one column each (before/after).
"""

from __future__ import annotations

import argparse
import re
import subprocess
from collections import defaultdict
from collections.abc import Iterator

SRC = "crates/flashpress-core/src/"
# Source folders/files of the core, in the data path's order, and their component.
BY_FILE = [
    ("workload/", "trace: spool decode, look-ahead peek"),
    ("host/", "host: queueing and issue"),
    ("sim.rs", "event loop (Simulation::step)"),
    ("interrupt.rs", "event loop (Simulation::step)"),
    ("engine/", "event queue (heap push/pop)"),
    ("device/sched/", "controller back end (device/sched)"),
    ("device/", "device front (device/)"),
    ("content/", "device front (device/)"),
    ("ftl/", "FTL (map, allocation, GC)"),
    ("nand/", "NAND timing and counters"),
    ("stats/", "statistics"),
    ("config/", "set-up"),
    ("estimate.rs", "set-up"),
]
# Library lines: the component of the function they were inlined into.
BY_FUNCTION = [
    ("binary_heap", "event queue (heap push/pop)"),
    ("hdrhistogram", "statistics"),
    ("flashpress_core::workload", "trace: spool decode, look-ahead peek"),
    ("flashpress_core::host", "host: queueing and issue"),
    ("flashpress_core::sim", "event loop (Simulation::step)"),
    ("flashpress_core::engine", "event queue (heap push/pop)"),
    ("flashpress_core::device::sched", "controller back end (device/sched)"),
    ("flashpress_core::device", "device front (device/)"),
    ("flashpress_core::ftl", "FTL (map, allocation, GC)"),
    ("flashpress_core::nand", "NAND timing and counters"),
    ("flashpress_core::stats", "statistics"),
]
ON_STACK = re.compile(r"__libc_start_main|lang_start|backtrace|::main \[|:main \[|below main|\?\?\?:")
ROW = re.compile(r"\s*([\d,]+)\s+(\S+?):(.*?)( \[.*\])?$")


def rows(path: str) -> Iterator[tuple[int, str, str]]:
    """(instructions, source file, function) of each self-cost row of a callgrind file."""
    out = subprocess.run(
        ["callgrind_annotate", "--threshold=100", "--show-percs=no", "--auto=no", path],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for line in out.splitlines():
        m = ROW.match(line)
        if m and "PROGRAM TOTALS" not in line and not ON_STACK.search(line):
            yield int(m.group(1).replace(",", "")), m.group(2), m.group(3)


def component(file: str, function: str) -> str:
    if SRC in file and not file.endswith(("units.rs", "lib.rs")):
        rel = file.split(SRC, 1)[1]
        return next((name for prefix, name in BY_FILE if rel.startswith(prefix)), f"other ({rel})")
    return next((name for key, name in BY_FUNCTION if key in function or key in file), "other: libc, std")


def group(path: str) -> dict[str, int]:
    totals: dict[str, int] = defaultdict(int)
    for n, file, function in rows(path):
        totals[component(file, function)] += n
    return totals


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, required=True, help="requests of the run (per-request figures)")
    ap.add_argument("files", nargs="+", help="callgrind output files, one column each")
    args = ap.parse_args()
    groups = [group(f) for f in args.files]
    names = sorted(set().union(*groups), key=lambda k: -groups[0].get(k, 0))

    def cell(n: int) -> str:
        return f"{n / 1e6:,.1f} M ({n / args.requests:,.0f})"

    print("| component | " + " | ".join(args.files) + " |")
    print("|---|" + "---|" * len(groups))
    for name in names:
        print(f"| {name} | " + " | ".join(cell(g.get(name, 0)) for g in groups) + " |")
    print("| total | " + " | ".join(cell(sum(g.values())) for g in groups) + " |")


if __name__ == "__main__":
    main()
