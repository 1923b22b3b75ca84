#!/usr/bin/env python3
"""Speed of the lossy codecs on real fields, printing one JSON object on its last line.

For each data set (``make testdata``; default etopo5, the largest: 2161 x 4320 float32, 37 MB)
and codec (SZx-style in the Rust core, SZ3 via pysz, ZFP via zfpy) at a bound of 1e-3 x the
field's value range: compression ratio, and compression and decompression throughput in
10^6 uncompressed bytes per second (MB/s), the median wall time of ``--repeats`` calls made
from Python on one thread (the library call itself: no file I/O, no bound check; the first
call warms the output buffers and is not counted). SZx also runs on 2 threads (chunked,
without the GIL). The last lines give the process's peak RSS.

    python3 benchmarks/bench_lossy.py [--datasets etopo5,navy_uwnd] [--repeats 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import time

import numpy as np

from flashpress.lossy.codecs import _impl  # the bare library calls, no bound check
from flashpress.lossy.fields import dataset


def bench(name: str, codec: str, threads: int, repeats: int) -> dict[str, object]:
    f = dataset(name)
    impl = _impl(codec)
    bound = 1e-3 * f.value_range
    stream = impl.compress(f.data, bound, threads)  # warm-up
    impl.decompress(stream, f.shape, f.dtype, threads)
    comp, dec = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        stream = impl.compress(f.data, bound, threads)
        comp.append(time.perf_counter() - t)
        t = time.perf_counter()
        back = impl.decompress(stream, f.shape, f.dtype, threads)
        dec.append(time.perf_counter() - t)
    err = float(np.abs(f.data.astype(np.float64) - back.astype(np.float64)).max())
    return {
        "dataset": name,
        "codec": codec,
        "threads": threads,
        "mb": f.nbytes / 1e6,
        "ratio": f.nbytes / len(stream),
        "max_error_rel": err / f.value_range,
        "compress_mb_s": f.nbytes / statistics.median(comp) / 1e6,
        "decompress_mb_s": f.nbytes / statistics.median(dec) / 1e6,
        "compress_s_all": comp,
        "decompress_s_all": dec,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="etopo5,navy_uwnd,levitus_temp")
    ap.add_argument("--repeats", type=int, default=7)
    a = ap.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    rows = []
    for name in a.datasets.split(","):
        for codec, threads in (("szx", 1), ("szx", 2), ("sz3", 1), ("zfp", 1)):
            r = bench(name, codec, threads, a.repeats)
            rows.append(r)
            print(
                f"{name:13} {codec} x{threads}: ratio {r['ratio']:6.2f}  compress {r['compress_mb_s']:7.0f} MB/s  "
                f"decompress {r['decompress_mb_s']:7.0f} MB/s  (max error {r['max_error_rel']:.2e} x range)"
            )
    import resource

    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of the whole run: {peak_mib:.0f} MiB")
    print(json.dumps({"commit": commit, "peak_rss_mib": peak_mib, "rows": rows}))


if __name__ == "__main__":
    main()
