#!/usr/bin/env python3
"""Speed of the deduplicating SSD, printing one JSON object on its last line.

Device: the ``cagc`` preset (CAGC Table I: SLC, 4 KiB pages, 64 pages per block, 8 channels x
4 chips x 2 planes) with 256 blocks per plane (4 GiB), preconditioned by a sequential fill of
90%. Workload: ``--requests`` random 4 KiB writes (``io_size`` lifts fio's one-pass limit) at queue depth 16 with fio's
``dedupe_percentage = 50``, so GC runs all along (the dedup map is consulted for every valid
page GC moves).

Runs: ``cagc/Baseline`` (the plain page FTL), ``cagc/Inline`` and ``cagc/CAGC`` by content id,
and Inline and CAGC with ``fingerprint = "bytes"`` on real data: the content is the PR-SSD
Ubuntu workload's ext4 image (``make testdata``), and every written page's 4 KiB are hashed
with XXH3 and BLAKE3. Set-up
(building the device and the fill) is timed by the same run with one request; the request
rate is ``requests / (wall - set-up)``. Each run is its own process, repeated ``--repeats``
times; the median wall time is reported, with every run kept.

Runs with ``mail`` (or ``homes``, ``web-vm``) for the fingerprint replay the CAGC
reproduction's generated Table II trace instead (``flashpress.tracegen.dedup_trace`` on the
same 4 GiB device, ``--requests`` requests after its prefill, generated once before timing
into ``target/bench-traces``; no precondition): the workload the seed's claims are about,
where GC meets long-lived duplicates. Its set-up is timed by a trace of the first request.

    python3 benchmarks/bench_cagc.py [--requests N] [--repeats K] [--only SCHEME:FP,...]
"""

from __future__ import annotations

import argparse
import json
import sys

from _runs import measure

RUN = r"""
import json, sys, time
import flashpress
scheme, fp, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
extra = {}
workload = {"type": "fio", "jobs": [
    {"name": "w", "rw": "randwrite", "bs": "4k", "iodepth": 16, "number_ios": n, "io_size": "64g",
     "dedupe_percentage": 50}]}
if fp.startswith("trace="):
    from flashpress.tracegen import workload as trace_workload
    full, first = fp[len("trace="):].split(",")
    workload = trace_workload(full if n > 1 else first)
    extra = {"precondition": {"fill_fraction": 0.0}}
elif fp == "bytes":
    from flashpress.reproduce import testdata
    img = str(testdata.image("prssd", "Ubuntu"))
    extra = {"content": {"mode": "model", "source": {"type": "files", "paths": [img]}},
             "ftl": {"dedup": {"fingerprint": "bytes"}}}
cfg = flashpress.Config.from_dict({
    **extra,
    "scheme": scheme,
    "nand": {"blocks_per_plane": 256},
    "workload": workload,
})
t0 = time.perf_counter()
res = flashpress.simulate(cfg, progress=False)
wall = time.perf_counter() - t0
s = res.summary
print(json.dumps({
    "wall_s": wall,
    "requests": s["requests_completed"],
    "rss_mib": int(next(ln.split()[1] for ln in open("/proc/self/status") if ln.startswith("VmHWM:"))) / 1024,
    "gc_pages_migrated": s["gc_pages_migrated"],
    "dedup_ratio": (s["dedup"] or {}).get("ratio"),
}))
"""

RUNS = [
    ("cagc/Baseline", "content_id"),
    ("cagc/Inline", "content_id"),
    ("cagc/CAGC", "content_id"),
    ("cagc/Inline", "bytes"),
    ("cagc/CAGC", "bytes"),
    ("cagc/Baseline", "mail"),
    ("cagc/CAGC", "mail"),
]
TRACES = ("homes", "web-vm", "mail")


def trace_files(name: str, requests: int) -> tuple[str, int]:
    """The generated trace (made once, in a process of its own: a child's peak RSS on Linux
    starts at its parent's) and a trace of its first request; returns the snippet's argument
    and the requests replayed (reads, writes and trims)."""
    import subprocess
    from pathlib import Path

    out = Path(__file__).resolve().parents[1] / "target" / "bench-traces"
    out.mkdir(parents=True, exist_ok=True)
    full, first = out / f"{name}-{requests}.csv", out / f"{name}-{requests}-first.csv"
    if not full.exists():
        gen = (
            "import sys; from pathlib import Path; from flashpress import Config; "
            "from flashpress.tracegen import dedup_trace; "
            "cap = Config.from_dict({'scheme': 'cagc/Baseline', 'nand': {'blocks_per_plane': 256}}).logical_bytes(); "
            "dedup_trace(sys.argv[1], Path(sys.argv[2]), capacity_bytes=cap, requests=int(sys.argv[3]), seed=1)"
        )
        subprocess.run([sys.executable, "-c", gen, name, str(full), str(requests)], check=True)
    n = 0
    with full.open() as f:
        head = [next(f), next(f)]
        n = 1 + sum(1 for _ in f)
    first.write_text("".join(head))
    return f"trace={full},{first}", n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", metavar="SCHEME:FP[,...]", help="only these runs, e.g. cagc/CAGC:bytes")
    args = ap.parse_args()
    runs = RUNS
    if args.only:
        wanted = [tuple(x.split(":", 1)) for x in args.only.split(",")]
        unknown = [w for w in wanted if w not in RUNS]
        if unknown:
            ap.error(f"unknown run {unknown[0]} (expected SCHEME:FINGERPRINT of {RUNS})")
        runs = [r for r in RUNS if r in wanted]
    out: dict[str, object] = {"requests": args.requests, "runs": {}}
    for scheme, fp in runs:
        key = f"{scheme} ({fp})"
        arg, n = (fp, args.requests) if fp not in TRACES else trace_files(fp, args.requests)
        out["runs"][key] = measure(RUN, [scheme, arg], n, args.repeats)  # type: ignore[index]
        print(key, out["runs"][key], file=sys.stderr)  # type: ignore[index]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
