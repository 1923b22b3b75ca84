"""What the scheme benchmarks share: run a snippet in its own process (so peak RSS is its
own), time set-up by the same run with one request, and report the median of repeats."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys


def run_snippet(snippet: str, *args: str) -> dict[str, float]:
    """Run ``snippet`` with ``args`` in a fresh interpreter; its last stdout line is JSON."""
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
