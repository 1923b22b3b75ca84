"""Time one Filebench run of the Waltz reproduction (Fig 18's plan) and print its WAF, wall
time and page-cache figures as one JSON line.

    python benchmarks/filebench_run.py SCALE PERSONALITY SCHEME ['{"stack.cache.enabled": true}']

SCALE is a reproduction scale (quick, default, full); the optional JSON object holds dotted
config overrides applied over the planned run's config.
"""

from __future__ import annotations

import json
import sys
import time

from flashpress.reproduce.papers.waltz import experiments
from flashpress.reproduce.runner import plan
from flashpress.reproduce.scale import SCALES
from flashpress.run import simulate


def main(argv: list[str]) -> int:
    if len(argv) not in (4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    scale, personality, scheme = SCALES[argv[1]], argv[2], argv[3]
    extra = json.loads(argv[4]) if len(argv) == 5 else {}
    for p in plan([experiments.fig18(scale)]):
        labels = p.spec.labels
        if labels.get("personality") != personality or labels.get("scheme") != scheme or p.config is None:
            continue
        cfg = p.config.with_overrides(extra, source_name="filebench_run") if extra else p.config
        t0 = time.perf_counter()
        result = simulate(cfg, progress=False)
        wall = time.perf_counter() - t0
        s = json.loads(result.summary_json)
        st = s["stack"]
        cache = st.get("cache") or {}
        out = {
            "scale": scale.name,
            "personality": personality,
            "scheme": scheme,
            "overrides": extra,
            "wall_s": round(wall, 2),
            "waf": s.get("waf"),
            "rmw_clusters": st["fs"]["rmw_clusters"],
            "read_iops": s["read"]["iops"],
            "write_iops": s["write"]["iops"],
            "cache_hit_ratio": cache.get("hit_ratio"),
            "cache_pages_written_back": cache.get("pages_written_back"),
            "cache_bytes_coalesced": cache.get("bytes_coalesced"),
            "cache_writeback_errors": cache.get("writeback_errors"),
        }
        print(json.dumps(out))
        return 0
    print(f"fig18 plans no {scheme} run of {personality} at scale {scale.name}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
