#!/usr/bin/env python3
"""Where the instructions of some functions of a core run go, by the core function each
instruction was written in: self costs per instruction, charged through ``addr2line -i`` to
the innermost inlined frame whose source is in the core (library code such as range loops or
``VecDeque`` indexing counts with the core function that uses it), printed as a Markdown table
of instructions and instructions per request.

    valgrind --tool=callgrind --dump-instr=yes --compress-pos=no --compress-strings=no \\
        --dump-before='*clock_gettime*' --callgrind-out-file=cg \\
        target/release/examples/bench_core TRACE bench-mlc-2g no-fill
    python3 benchmarks/callgrind_functions.py --requests 1013714 \\
        --binary target/release/examples/bench_core cg.6 host::Host::submit device::Device::page_done ...

``cg.6`` is the replay alone (see ``callgrind_components.py``). The functions are the
compiled (not inlined) ones whose instructions are counted, named by the end of their path;
the rows are the core functions their code comes from. ``--by-line`` splits the rows by the
source line instead.
"""

from __future__ import annotations

import argparse
import subprocess
from collections import defaultdict

CORE = "flashpress-core/src/"


def instruction_costs(path: str) -> tuple[dict[int, int], dict[int, str]]:
    """Self Ir of each instruction address of a callgrind file, and the function it is in."""
    cost: dict[int, int] = defaultdict(int)
    function: dict[int, str] = {}
    name = ""
    after_call = False
    with open(path) as f:
        for line in f:
            if line.startswith("fn="):
                name = line[3:].strip()
            elif line.startswith("calls="):
                after_call = True  # the next cost line is the call's inclusive cost
            elif line.startswith("0x"):
                if after_call:
                    after_call = False
                    continue
                parts = line.split()
                address = int(parts[0], 16)
                cost[address] += int(parts[-1])
                function[address] = name
    if not cost:
        raise SystemExit(f"{path}: no per-instruction costs (profile with --dump-instr=yes --compress-pos=no)")
    return cost, function


def core_frames(binary: str, addresses: list[int]) -> dict[int, tuple[str, str]]:
    """(function, file:line) of the innermost inlined frame in the core's source, by address."""
    out = subprocess.run(
        ["addr2line", "-a", "-i", "-f", "-C", "-e", binary, *(hex(a) for a in addresses)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    frames: dict[int, list[tuple[str, str]]] = {}
    current = -1
    i = 0
    while i < len(out):
        if out[i].startswith("0x"):
            current = int(out[i], 16)
            frames[current] = []
            i += 1
        else:
            frames[current].append((out[i], out[i + 1]))
            i += 2
    found = {}
    for address, chain in frames.items():
        function, place = next(((f, p) for f, p in chain if CORE in p), ("(outside the core)", "?"))
        function = function.replace("flashpress_core::", "")
        found[address] = (function, place.split(CORE, 1)[-1].split(" ")[0])
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, required=True, help="requests of the run (per-request figures)")
    ap.add_argument("--binary", required=True, help="the profiled executable (with debug line tables)")
    ap.add_argument("--by-line", action="store_true", help="one row per source line instead of per function")
    ap.add_argument("--min", type=float, default=1.0, help="leave out rows below this many instructions a request")
    ap.add_argument("profile", help="callgrind output file made with --dump-instr=yes")
    ap.add_argument("functions", nargs="+", help="compiled functions to count, by the end of their path")
    args = ap.parse_args()
    cost, function = instruction_costs(args.profile)
    chosen = [a for a, c in cost.items() if c and any(function[a].endswith(f) for f in args.functions)]
    if not chosen:
        raise SystemExit(f"none of {args.functions} has instructions in {args.profile}")
    frames = core_frames(args.binary, chosen)
    rows: dict[str, int] = defaultdict(int)
    for a in chosen:
        name, place = frames[a]
        rows[f"{place} ({name})" if args.by_line else name] += cost[a]
    total = sum(rows.values())
    print("| where | instructions | per request |")
    print("|---|---|---|")
    for name, n in sorted(rows.items(), key=lambda kv: -kv[1]):
        if n / args.requests >= args.min:
            print(f"| `{name}` | {n / 1e6:,.1f} M | {n / args.requests:,.1f} |")
    print(f"| total | {total / 1e6:,.1f} M | {total / args.requests:,.1f} |")


if __name__ == "__main__":
    main()
