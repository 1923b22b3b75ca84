"""The results directory's files, written by the core: read back with the real pyarrow, pandas
and csv modules and compared with what the pyarrow/csv code they replaced wrote from the same
run's in-memory columns; and `flashpress run --out` importing neither pandas nor pyarrow."""

from __future__ import annotations

import csv
import io
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import flashpress
from flashpress import _core

MANY_WRITES: dict[str, Any] = {
    "type": "fio",
    "jobs": [{"name": "w", "rw": "randwrite", "bs": "4k", "iodepth": 8, "number_ios": 20000}],
}


def read_burst(tmp_path: Path) -> dict[str, Any]:
    """One read, then 25,000 at once (timed trace, unmapped pages: answered from the
    controller, queued on the link): thousands of latency buckets, the first ones at cumulative
    fractions below 1e-4, which Python's repr writes in exponent form (`7.99968...e-05`)."""
    rng = random.Random(3)
    lines = ["0 0 0 8 1"] + [f"1000000 0 {8 * rng.randrange(4000)} 8 1" for _ in range(25000)]
    path = tmp_path / "burst.trace"
    path.write_text("\n".join(lines) + "\n")
    return {"workload": json.loads(_core.default_trace_config(str(path), "disksim"))}


def mixed(tmp_path: Path) -> dict[str, Any]:
    """A timed trace (1 ms intervals) of bursts of writes and of reads and writes, apart by idle
    gaps: collapsed timeline rows, and intervals without reads (NaN mean read latency)."""
    rng = random.Random(7)
    lines = []
    for burst, start_ms in enumerate((0, 40, 300, 2000)):
        for i in range(300):
            op = 1 if burst % 2 and i % 3 == 0 else 0  # DiskSim: 1 read, 0 write
            lines.append(f"{(start_ms * 1000 + 20 * i) * 1000} 0 {8 * rng.randrange(2000)} 8 {op}")
    path = tmp_path / "mixed.trace"
    path.write_text("\n".join(lines) + "\n")
    workload = json.loads(_core.default_trace_config(str(path), "disksim"))
    return {"workload": workload, "stats": {"interval_ms": 1.0}}


#: A short `[stack]` run: its timeline has `temperature_c` in °C (non-ASCII in the units JSON).
STACK_JOB = {"name": "w", "rw": "write", "bs": "128k", "numjobs": 2, "size": "16m", "runtime": "200ms"}
STACK: dict[str, Any] = {
    "preset": "waltz",
    "nand": {"blocks_per_plane": 64},
    "stats": {"interval_ms": 20.0},
    "content": {"ratio": {"type": "fixed", "ratio": 2.0}},
    "stack": {"policy": "baseline", "fs": {"partition_bytes": 2 << 30, "fill_fraction": 0.0}},
    "workload": {
        "type": "fio",
        "jobs": [{**STACK_JOB, "time_based": True}],
    },
}


def reference_parquet(report: _core.Report, path: Path) -> None:
    """The timeline as flashpress wrote it with pyarrow before the core did (commit 6653122)."""
    cols = report.timeline_columns()
    units = {name: unit for name, unit, _, _ in cols}
    fields = [pa.field(n, pa.float64(), metadata={"unit": u, "description": d}) for n, u, d, _ in cols]
    table = pa.Table.from_arrays(
        [pa.array(np.asarray(v, dtype="float64"), type=pa.float64()) for _, _, _, v in cols],
        schema=pa.schema(fields, metadata={"flashpress.units": json.dumps(units)}),
    )
    pq.write_table(table, path)


def reference_cdf_csv(report: _core.Report) -> str:
    """latency_cdf.csv as flashpress wrote it with Python's csv module before (commit 6653122)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["op", "latency_ns", "cumulative"])
    for during_gc in (False, True):
        for op in ("read", "write"):
            ns, cum = report.latency_cdf(op, during_gc)
            for x, c in zip(ns, cum, strict=True):
                w.writerow([f"{op}_during_gc" if during_gc else op, x, repr(float(c))])
    return buf.getvalue()


def run(cfg: dict[str, Any]) -> flashpress.Result:
    base = {"preset": "tiny"} if "preset" not in cfg else {}
    return flashpress.simulate({**base, **cfg}, progress=False)


@pytest.mark.parametrize("kind", ["writes", "mixed-idle", "stack"])
def test_parquet_timeline_reads_back_as_pyarrow_wrote_it(kind: str, tmp_path: Path) -> None:
    cfg = {"writes": {"workload": MANY_WRITES}, "stack": STACK}.get(kind) or mixed(tmp_path)
    r = run(cfg)
    out = r.write(tmp_path / "out")
    ours = out / "timeline.parquet"
    ref = tmp_path / "reference.parquet"
    reference_parquet(r._report, ref)
    cols = r._report.timeline_columns()

    # Schema: names, float64, nullable, field metadata (unit, description), schema metadata.
    schema = pq.read_schema(ours)
    assert schema.equals(pq.read_schema(ref), check_metadata=True)
    assert [f.nullable for f in schema] == [True] * len(cols)
    units = {name: unit for name, unit, _, _ in cols}
    kv = pq.read_metadata(ours).metadata
    assert kv[b"flashpress.units"] == json.dumps(units).encode()
    assert set(kv) == set(pq.read_metadata(ref).metadata)

    # Values: bit for bit the core's columns (NaN where undefined, never null).
    table = pq.read_table(ours)
    assert table.num_rows == len(cols[0][3]) > 0
    for name, _, _, values in cols:
        col = table.column(name)
        assert col.null_count == 0
        got = col.to_numpy().view(np.uint64)
        assert np.array_equal(got, np.asarray(values, dtype="float64").view(np.uint64)), name

    # And through pandas, as users read it: the same frame as the pyarrow-written file gives.
    pd.testing.assert_frame_equal(pd.read_parquet(ours), pd.read_parquet(ref))
    pd.testing.assert_frame_equal(pd.read_parquet(ours), r.timeline, check_like=False)


def test_parquet_statistics_and_encoding_as_pyarrow_writes_them(tmp_path: Path) -> None:
    r = run(mixed(tmp_path))
    r.write(tmp_path / "out")
    meta = pq.ParquetFile(tmp_path / "out" / "timeline.parquet").metadata
    assert meta.num_row_groups == 1
    for i, (name, _, _, values) in enumerate(r._report.timeline_columns()):
        chunk = meta.row_group(0).column(i)
        assert chunk.path_in_schema == name
        assert chunk.compression == "SNAPPY"
        stats = chunk.statistics
        assert stats.null_count == 0
        finite = [v for v in values if not np.isnan(v)]
        if finite:  # min/max leave NaN out, as the Parquet spec and pyarrow do
            assert (stats.min, stats.max) == (min(finite), max(finite)), name
        else:
            assert not stats.has_min_max, name


def test_stack_units_keep_their_non_ascii_escaped_as_json_dumps_does(tmp_path: Path) -> None:
    r = run(STACK)
    units = {name: unit for name, unit, _, _ in r._report.timeline_columns()}
    assert units.get("temperature_c") == "°C"
    r.write(tmp_path / "out")
    raw = pq.read_metadata(tmp_path / "out" / "timeline.parquet").metadata[b"flashpress.units"]
    assert b'"temperature_c": "\\u00b0C"' in raw
    assert json.loads(raw) == units


def test_latency_cdf_csv_is_byte_for_byte_pythons(tmp_path: Path) -> None:
    r = run(read_burst(tmp_path))
    want = reference_cdf_csv(r._report)
    assert "e-05" in want  # the exponent form of repr is exercised
    r.write(tmp_path / "out", timeline_format="csv")
    assert (tmp_path / "out" / "latency_cdf.csv").read_text() == want
    both = run(mixed(tmp_path))
    assert {row.split(",")[0] for row in reference_cdf_csv(both._report).splitlines()[1:]} >= {"read", "write"}
    assert both.latency_cdf_csv() == reference_cdf_csv(both._report)


def test_same_run_writes_byte_identical_files(tmp_path: Path) -> None:
    a = run(mixed(tmp_path)).write(tmp_path / "a")
    b = run(mixed(tmp_path)).write(tmp_path / "b")
    for name in ("config.json", "summary.json", "timeline.parquet", "latency_cdf.csv"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_unwritable_parquet_path_raises_oserror_naming_the_file(tmp_path: Path) -> None:
    r = run(mixed(tmp_path))
    path = tmp_path / "missing-dir" / "timeline.parquet"
    with pytest.raises(FileNotFoundError) as e:
        r._report.write_timeline_parquet(str(path))
    assert e.value.filename == str(path)
    assert e.value.errno == 2


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_run_out_imports_neither_pandas_nor_pyarrow(fmt: str, tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from flashpress.cli import main\n"
        "rc = main(sys.argv[1:])\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'pandas', 'pyarrow', 'numpy'})\n"
        "print('HEAVY', ','.join(heavy))\n"
        "sys.exit(rc)\n"
    )
    out = tmp_path / "res"
    jobs = "workload.jobs=[{rw = 'randwrite', bs = '4k', number_ios = 500}]"
    args = ["run", "--preset", "tiny", "--set", jobs, "--no-progress", "--out", str(out), "--timeline-format", fmt]
    p = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
    assert p.stdout.splitlines()[-1] == "HEAVY "
    assert (out / f"timeline.{fmt}").stat().st_size > 0
