#!/usr/bin/env python3
"""How close the memory estimate comes to what a run really uses: for every preset, a 1 TiB
device and fio verify jobs on a 256 GiB one, ``flashpress run --dry-run``'s estimate
(``flashpress.estimate_memory``) against the peak RSS of ``flashpress run`` in a child process
of its own (``os.wait4``). Prints one row per config, whether its estimate is within
``--bound`` (5%) of the peak, and, on its last line, one JSON object with every row.

    python3 benchmarks/bench_memory_estimate.py [--only NAME ...] [--bound 0.05] [--baseline]

``--baseline`` measures instead the Python process's own peak (interpreter, extension and the
libraries a run imports) on a device too small to matter: the ``python`` component of the
estimate (``flashpress.run.PYTHON_BASELINE_BYTES``). It subtracts the core's estimate less its
``stats.histograms`` part (the latency histograms as grown to an assumed second, where this
short run's hold 122,880 bytes, measured with heaptrack): the figure it prints includes those
122,880 bytes, which ``PYTHON_BASELINE_BYTES`` leaves to ``stats.histograms``.

This process never imports flashpress (presets and estimates come from a child of their own):
Linux counts the starting process's peak in a child's ``ru_maxrss``, so a measuring process as
large as a small run would report itself (``_runs.child_peak_rss_kib`` refuses such a figure).
The package is byte-compiled first, as an installed wheel has it (``_runs.compile_package``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _runs import child_peak_rss_kib, compile_package

#: A 1 TiB device (the default preset with 64 Ki blocks per plane; see the file).
TIB = Path(__file__).resolve().parent.parent / "examples" / "device-1tib.toml"

#: Schemes (configs/schemes/) measured besides the presets.
SCHEMES = ("cagc/CAGC", "prssd/DP", "prssd/PR")

#: A device too small to matter, for the Python baseline.
SMALL = """preset = "tiny"
[workload]
type = "fio"
[[workload.jobs]]
name = "w"
rw = "randwrite"
bs = "4k"
iodepth = 1
number_ios = 100
"""


#: Run in a child: the presets' workloads, or the estimate of each config given as an argument.
FLASHPRESS_FACTS = r"""
import json, sys
import flashpress
from flashpress import _core
from flashpress.run import PYTHON_BASELINE_BYTES
if sys.argv[1] == "presets":
    print(json.dumps({"baseline": PYTHON_BASELINE_BYTES,
                      "presets": {n: flashpress.Config.preset(n).to_dict()["workload"] for n in _core.preset_names()}}))
else:
    print(json.dumps([flashpress.estimate_memory(c) for c in sys.argv[2:]]))
"""


def flashpress_facts(*args: str) -> Any:
    """What ``FLASHPRESS_FACTS`` prints for ``args``."""
    p = subprocess.run([sys.executable, "-c", FLASHPRESS_FACTS, *args], check=True, capture_output=True, text=True)
    return json.loads(p.stdout)


def peak_rss(args: list[str]) -> int:
    """Peak resident bytes of ``flashpress`` run with ``args`` in a child process."""
    cmd = [sys.executable, "-m", "flashpress", *args]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    err = p.stderr.read().decode() if p.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{err}")
    return child_peak_rss_kib(usage, cmd) * 1024


#: Presets whose workload is a trace they do not ship (``bench-mlc-2g``'s benchmark trace) run
#: this instead: 200,000 random 4 KiB writes.
FIO = """preset = "{name}"
[workload]
type = "fio"
[[workload.jobs]]
name = "randwrite"
rw = "randwrite"
bs = "4k"
iodepth = 32
number_ios = 200000
"""


#: fio verify jobs over a 256 GiB device (the default preset with 16,384 blocks per plane,
#: filled whole without aging, so the verify mode's arrays are written through, as the
#: estimate counts them): 200,000 random 4 KiB writes over the whole device and their
#: reads back. Their history is sized by the region: the replayed list (one bit a block) with
#: the random map, the tree (two bits per 512 B) with ``norandommap``.
VERIFY = """preset = "default"
[nand]
blocks_per_plane = 16384
[precondition]
fill_fraction = 1.0
aging_fraction = 0.0
[workload]
type = "fio"
[[workload.jobs]]
name = "verify"
rw = "randwrite"
bs = "4k"
verify = "crc32c"
iodepth = 32
number_ios = 200000
{extra}
"""


def configs(tmp: Path, presets: dict[str, Any]) -> list[tuple[str, list[str], str]]:
    """(name, run arguments, config for the estimate) of every preset (``presets``: name ->
    workload table) and the 1 TiB device."""
    out = []
    for name, workload in presets.items():
        if workload["type"] == "trace" and not Path(workload["path"]).is_file():
            path = tmp / f"{name}.toml"
            path.write_text(FIO.format(name=name))
            out.append((name, ["--config", str(path)], str(path)))
        else:
            out.append((name, ["--preset", name], name))
    # The dedup map and the compression packer, which no preset turns on by itself.
    for scheme in SCHEMES:
        path = tmp / f"{scheme.replace('/', '-')}.toml"
        path.write_text(f'scheme = "{scheme}"\n')
        out.append((scheme, ["--config", str(path)], str(path)))
    out.append(("1tib", ["--config", str(TIB)], str(TIB)))
    for name, extra in (("verify-list-256g", ""), ("verify-tree-256g", "norandommap = 1")):
        path = tmp / f"{name}.toml"
        path.write_text(VERIFY.format(extra=extra))
        out.append((name, ["--config", str(path)], str(path)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--only",
        nargs="*",
        metavar="NAME",
        help="only these configs (preset or scheme names, 1tib, verify-list-256g, verify-tree-256g)",
    )
    ap.add_argument("--baseline", action="store_true", help="measure the Python baseline instead")
    ap.add_argument("--bound", type=float, default=0.05, help="relative error called within bounds (default 0.05)")
    a = ap.parse_args()
    compile_package()  # the baseline and every peak without the compiler's share (see _runs.py)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        facts = flashpress_facts("presets")
        if a.baseline:
            small = tmp / "small.toml"
            small.write_text(SMALL)
            (est,) = flashpress_facts("estimate", str(small))
            hist = sum(c["bytes"] for c in est["components"] if c["name"] == "stats.histograms")
            core = est["total_bytes"] - facts["baseline"] - hist
            rss = peak_rss(["run", "--config", str(small), "--no-progress"])
            print(f"peak RSS {rss / 2**20:.1f} MiB, core estimate {core / 2**20:.1f} MiB")
            print(json.dumps({"peak_rss": rss, "core_estimate": core, "baseline": rss - core}))
            return
        rows = []
        print(f"{'config':<14} {'estimate MiB':>13} {'peak RSS MiB':>13} {'error':>8} {'within':>7}  largest part")
        chosen = [c for c in configs(tmp, facts["presets"]) if not a.only or c[0] in a.only]
        estimates = flashpress_facts("estimate", *(cfg for _, _, cfg in chosen))
        for (name, args, _), est in zip(chosen, estimates, strict=True):
            rss = peak_rss(["run", *args, "--no-progress"])
            err = est["total_bytes"] / rss - 1
            top = est["components"][0]
            rows.append(
                {
                    "config": name,
                    "estimate_bytes": est["total_bytes"],
                    "peak_rss_bytes": rss,
                    "error": err,
                    "within_bound": abs(err) <= a.bound,
                    "components": {c["name"]: c["bytes"] for c in est["components"]},
                }
            )
            print(
                f"{name:<14} {est['total_bytes'] / 2**20:>13.1f} {rss / 2**20:>13.1f} {err:>+8.1%}"
                f" {'yes' if abs(err) <= a.bound else 'NO':>7}"
                f"  {top['name']} {top['bytes'] / 2**20:.1f} MiB",
                flush=True,
            )
        outside = [r["config"] for r in rows if not r["within_bound"]]
        print(
            f"{len(rows) - len(outside)} of {len(rows)} within {a.bound:.0%}"
            + (f"; outside: {', '.join(outside)}" if outside else "")
        )
        print(json.dumps(rows))


if __name__ == "__main__":
    main()
