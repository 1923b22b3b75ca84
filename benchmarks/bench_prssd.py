#!/usr/bin/env python3
"""Speed of the compressing plain SSD, printing one JSON object on its last line.

Device: the ``prssd`` preset (PR-SSD Table 1: TLC, 16 KiB pages, 4 KiB partial reads, 8
channels x 2 chips x 2 dies x 2 planes, 512 pages per block) with 128 blocks per plane
(64 GiB; fewer leave no room for the GC reserve at 7% over-provisioning), preconditioned by
a sequential fill of 50% without aging, so that the untimed fill stays short (in ``bytes``
mode every filled page is generated and compressed too). No GC runs in this benchmark.
Workload: ``--requests`` random 16 KiB requests, 70% reads, at queue depth 32.

Set-up (building the device and the fill) is timed by the same run with one request; the
request rate is ``requests / (wall - set-up)``.

Schemes: ``prssd/Baseline`` (the plain page FTL), ``prssd/DP`` and ``prssd/PR`` (DP with the
split FTL; its split table scaled to the device: 32,768 split pages) with the content model in
``model`` mode (sizes read off DPC's measured size curve) and in ``bytes`` mode (every
written page generated and compressed by our DPC), and ``files``: the pages hold the blocks
of the PR-SSD Ubuntu workload's ext4 image (``make testdata``), each distinct unit of which
our DPC compresses once (model and bytes mode are the same on files). Each run is its own
process (peak RSS is its own) and repeated ``--repeats`` times; the median wall time is
reported, with every run kept.

    python3 benchmarks/bench_prssd.py [--requests N] [--repeats K] [--only SCHEME:MODE,...]
"""

from __future__ import annotations

import argparse
import json
import sys

from _runs import measure

RUN = r"""
import json, sys, time
import flashpress
scheme, mode, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
content = {"mode": mode}
if mode == "files":
    from flashpress.reproduce import testdata
    content = {"mode": "bytes", "source": {"type": "files", "paths": [str(testdata.image("prssd", "Ubuntu"))]}}
split = {"ftl": {"compression": {"split": {"max_split_pages": 32768}}}} if scheme.startswith("prssd/PR") else {}
cfg = flashpress.Config.from_dict({
    **split,
    "scheme": scheme,
    "nand": {"blocks_per_plane": 128},
    "precondition": {"fill_fraction": 0.5, "aging_fraction": 0.0},
    "content": content,
    "workload": {"type": "fio", "jobs": [
        {"name": "randrw", "rw": "randrw", "rwmixread": 70, "bs": "16k", "iodepth": 32, "number_ios": n}]},
})
t0 = time.perf_counter()
res = flashpress.simulate(cfg, progress=False)
wall = time.perf_counter() - t0
s = res.summary
print(json.dumps({
    "wall_s": wall,
    "requests": s["requests_completed"],
    "rss_mib": int(next(ln.split()[1] for ln in open("/proc/self/status") if ln.startswith("VmHWM:"))) / 1024,
    "waf": s["waf"],
    "read_mean_us": (s["read"]["latency_us"] or {}).get("mean"),
}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", metavar="SCHEME:MODE[,...]", help="only these runs, e.g. prssd/Baseline:model")
    args = ap.parse_args()
    out: dict[str, object] = {"requests": args.requests, "runs": {}}

    runs = [
        ("prssd/Baseline", "model"),
        ("prssd/DP", "model"),
        ("prssd/PR", "model"),
        ("prssd/DP", "bytes"),
        ("prssd/PR", "bytes"),
        ("prssd/DP", "files"),
        ("prssd/PR", "files"),
    ]
    if args.only:
        wanted = [tuple(x.split(":", 1)) for x in args.only.split(",")]
        unknown = [w for w in wanted if w not in runs]
        if unknown:
            ap.error(f"unknown run {unknown[0]} (expected SCHEME:MODE of {runs})")
        runs = [r for r in runs if r in wanted]
    for scheme, mode in runs:
        key = f"{scheme} ({mode})"
        out["runs"][key] = measure(RUN, [scheme, mode], args.requests, args.repeats)  # type: ignore[index]
        print(key, out["runs"][key], file=sys.stderr)  # type: ignore[index]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
