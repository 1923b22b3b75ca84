"""What the scheme benchmarks share: run a snippet in its own process (so peak RSS is its
own), time set-up by the same run with one request, and report the median of repeats; run the
``flashpress`` command as a child whose wall time, CPU time and peak RSS are its own."""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path


def run_snippet(snippet: str, *args: str) -> dict[str, float]:
    """Run ``snippet`` with ``args`` in a fresh interpreter; its last stdout line is JSON. A
    snippet reports its peak RSS as ``VmHWM`` (its own memory's), not ``getrusage``'s
    ``ru_maxrss``, which may hold this process's peak (see :func:`child_peak_rss_kib`)."""
    p = subprocess.run([sys.executable, "-c", snippet, *args], check=True, capture_output=True, text=True)
    return json.loads(p.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def measure(snippet: str, args: list[str], requests: int, repeats: int) -> dict[str, object]:
    """Median wall time of ``repeats`` runs of ``requests`` requests, set-up (the same run with
    one request) subtracted for the request rate; every run's wall time kept. ``args`` come
    before the request count on the snippet's command line."""
    setup = statistics.median(run_snippet(snippet, *args, "1")["wall_s"] for _ in range(repeats))
    runs = [run_snippet(snippet, *args, str(requests)) for _ in range(repeats)]
    wall = statistics.median(r["wall_s"] for r in runs)
    out: dict[str, object] = {
        "median_wall_s": round(wall, 2),
        "setup_s": round(setup, 2),
        "requests_per_s": round(requests / max(wall - setup, 1e-9)),
        "peak_rss_mib": round(max(r["rss_mib"] for r in runs)),
        "all_wall_s": [round(r["wall_s"], 2) for r in runs],
    }
    out.update({k: v for k, v in runs[0].items() if k not in ("wall_s", "rss_mib", "requests")})
    return out


def compile_package() -> str:
    """Byte-compile the ``flashpress`` package the benchmark's children import, as installing a
    wheel does, and return its folder. A run that has to compile its modules first (a source
    tree under ``PYTHONDONTWRITEBYTECODE``, or one whose ``.pyc`` files are stale) measures the
    compiler too: 0.7-1.7 MiB more peak RSS and tens of milliseconds, varying with which
    modules happen to have a current cache."""
    import importlib.util

    spec = importlib.util.find_spec("flashpress")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("the flashpress package is not importable from this interpreter")
    folder = spec.submodule_search_locations[0]
    # In a child: compiling in this process would raise its own peak RSS, which every child
    # started afterwards would report as its own (see child_peak_rss_kib).
    subprocess.run([sys.executable, "-m", "compileall", "-q", folder], check=True, stdout=subprocess.DEVNULL)
    return folder


def own_memory_peak_kib() -> int:
    """This process's memory's peak (``VmHWM``, KiB): what a child it starts inherits in its
    ``ru_maxrss`` (``ru_maxrss`` of this process itself may hold its own starter's)."""
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def own_peak_checked(kib: float, cmd: list[str]) -> float:
    """A child's ``ru_maxrss`` (KiB), refused when it cannot be told from this process's own
    peak (see :func:`child_peak_rss_kib`)."""
    own = own_memory_peak_kib()
    if kib <= own:
        raise SystemExit(
            f"{' '.join(cmd)}: its peak RSS ({kib:.0f} KiB reported) cannot be told from the peak of "
            f"the benchmark process that started it ({own} KiB); measure it with /usr/bin/time -f %M instead"
        )
    return kib


def child_peak_rss_kib(usage: resource.struct_rusage, cmd: list[str]) -> int:
    """A finished child's peak RSS in KiB from its ``os.wait4`` usage. Linux counts in a child's
    ``ru_maxrss`` the peak of the memory it replaced when it started its program: this process's,
    which it shared until then. A child that stayed below this process's own peak would report
    this process's figure, so that is refused rather than reported."""
    return int(own_peak_checked(usage.ru_maxrss, cmd))


def flashpress_command() -> list[str]:
    script = Path(sys.executable).parent / "flashpress"
    return [str(script)] if script.exists() else [sys.executable, "-m", "flashpress"]


def run_once(cmd: list[str], log: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (MiB) of one child process."""
    with log.open("w") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{log.read_text()}")
    return wall, usage.ru_utime + usage.ru_stime, child_peak_rss_kib(usage, cmd) / 1024.0
