"""The lossy study's measurements (seed 004): result rows of ``reproduce lossy``.

Every row is a *data study* row (``figure``, ``run_id``, ``status`` and labels): ``workload`` is
the data set, ``scheme`` the codec (``raw`` for none), ``variant`` the device (``hdd``,
``nvme``), ``rep`` the repeat of the timed measurement. Codec times are measured on this
machine, once per repeat (so the spread between repeats is the claims' noise band); device
times come from the models and are the same in every repeat.
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any

from flashpress.lossy import pipeline
from flashpress.lossy.codecs import Bound, compress
from flashpress.lossy.devices import SEED_IO, IoShape, device
from flashpress.lossy.fields import Field, dataset
from flashpress.lossy.planner import plan
from flashpress.reproduce.metrics import LOSSY_COLUMNS

#: The devices of Figs. 1 and 2 (models).
DEVICES = ("hdd", "nvme")
#: Fig. 1 also stores and loads raw and with SZx on this machine's own disk (real I/O in the
#: test-data folder, or ``$FLASHPRESS_LOSSY_REAL_DIR``).
REAL = "real"
#: The codecs of Fig. 2 (Fig. 1 is SZx's).
CODECS = ("szx", "sz3", "zfp")
#: Fig. 1/2's bound: 1e-3 of each field's value range (SZx's usual setting).
BOUND = "rel:1e-3"
#: Fig. 2 also breaks SZx down under the other two bound modes (scheme names carry the bound):
#: an absolute bound in each field's own units, and a fixed ratio (searched per field).
FIG2_SZX_MODES = ("abs:0.01", "ratio:10")
#: Fig. 3's settings per bound mode.
FIG3_SETTINGS: dict[str, tuple[float, ...]] = {
    "abs": (1e-3, 1e-2, 1e-1, 1.0),
    "rel": (1e-4, 1e-3, 1e-2),
    "ratio": (4.0, 8.0, 16.0),
}
#: I/O jobs of the thread study (fio's numjobs on the NVMe model).
NUMJOBS = (1, 2, 4, 8)
#: Request sizes of the thread study (the seed's 4 KiB and larger), one job at depth 16.
BLOCK_SIZES = (4096, 131072, 1 << 20)


@cache
def _field(name: str) -> Field:
    return dataset(name)


@cache
def _device(name: str) -> Any:
    if name == REAL:
        from flashpress.reproduce import testdata

        return device(f"real:{os.environ.get('FLASHPRESS_LOSSY_REAL_DIR') or testdata.root() / 'lossy'}")
    return device(name)


def _base(figure: str, ds: str, scheme: str, variant: str | None, rep: int, **extra: Any) -> dict[str, Any]:
    rid = "/".join(str(x) for x in (figure, ds, scheme, variant, *extra.values(), f"rep{rep}") if x is not None)
    return {
        "figure": figure,
        "run_id": rid,
        "status": "ok",
        "workload": ds,
        "scheme": scheme,
        "variant": variant,
        "rep": rep,
        **extra,
    }


@cache
def pipeline_rows(datasets: tuple[str, ...], repeats: int) -> tuple[dict[str, Any], ...]:
    """Fig. 1 and 2: each data set stored and loaded raw and by each codec, on each device."""
    out = []
    for ds in datasets:
        f = _field(ds)
        for rep in range(repeats):
            runs: list[tuple[str | None, str | None, str]] = [
                (c, BOUND if c else None, c or "raw") for c in (None, *CODECS)
            ]
            runs += [("szx", b, f"szx {b}") for b in FIG2_SZX_MODES]
            for codec, bound, scheme in runs:
                devs = (*DEVICES, REAL) if scheme in ("raw", "szx") else DEVICES
                rows = pipeline.run_devices(f, codec, bound, [(_device(d), SEED_IO) for d in devs], repeats=1)
                out += [_base("fig2", ds, scheme, d, rep) | _metrics(r) for d, r in zip(devs, rows, strict=True)]
    return tuple(out)


def _metrics(row: dict[str, Any]) -> dict[str, Any]:
    """The columns a pipeline row keeps: sizes, errors, and the shown ones it has."""
    keep = ("raw_bytes", "stored_bytes", "max_error", "max_error_rel", *(c for c in LOSSY_COLUMNS if c in row))
    return {k: row.get(k) for k in keep}


def fig1_rows(datasets: tuple[str, ...], repeats: int) -> list[dict[str, Any]]:
    """Fig. 1: the totals over the data sets of SZx and raw, per device and repeat."""
    rows = [r for r in pipeline_rows(datasets, repeats) if r["scheme"] in ("raw", "szx")]
    out = []
    for rep in range(repeats):
        for scheme in ("raw", "szx"):
            for dev in (*DEVICES, REAL):
                rs = [r for r in rows if r["rep"] == rep and r["scheme"] == scheme and r["variant"] == dev]
                total = {k: sum(r[k] for r in rs) for k in ("compress_s", "write_s", "read_s", "decompress_s")}
                total["store_s"] = total["compress_s"] + total["write_s"]
                total["load_s"] = total["read_s"] + total["decompress_s"]
                total["raw_bytes"] = sum(r["raw_bytes"] for r in rs)
                total["stored_bytes"] = sum(r["stored_bytes"] for r in rs)
                out.append(_base("fig1", "all", scheme, dev, rep) | total)
    return out


def fig2_rows(datasets: tuple[str, ...], repeats: int) -> list[dict[str, Any]]:
    rows = [dict(r) for r in pipeline_rows(datasets, repeats) if r["variant"] != REAL]
    for r in rows:
        r["compress_mb_s"] = r["raw_bytes"] / r["compress_s"] / 1e6 if r["compress_s"] else None
        r["decompress_mb_s"] = r["raw_bytes"] / r["decompress_s"] / 1e6 if r["decompress_s"] else None
    return rows


def fig3_rows(datasets: tuple[str, ...], repeats: int) -> list[dict[str, Any]]:
    """Fig. 3: SZx under each bound mode and setting on each data set: compression cost (seconds
    per MB, a fixed ratio's search for its bound included; the search alone is ``search_s``)
    and ratio."""
    out = []
    for ds in datasets:
        f = _field(ds)
        for mode, settings in FIG3_SETTINGS.items():
            for v in settings:
                for rep in range(repeats):
                    c = compress(f, "szx", Bound(mode, v))  # type: ignore[arg-type]
                    out.append(
                        _base("fig3", ds, "szx", mode, rep, setting=v)
                        | {
                            "ratio": c.ratio,
                            # A fixed ratio's cost includes its search for the bound.
                            "cost_s_per_mb": (c.compress_s + c.search_s) / (f.nbytes / 1e6),
                            "search_s": c.search_s,
                            "reached": c.reached,
                            "max_error_rel": c.max_error / f.value_range if f.value_range > 0 else 0.0,
                            "raw_bytes": f.nbytes,
                        }
                    )
    return out


def thread_rows(datasets: tuple[str, ...], repeats: int) -> list[dict[str, Any]]:
    """The thread study: SZx compression on 1, 2 and 4 threads (this machine has
    ``os.cpu_count()``), and raw and SZx store/load on the NVMe model with 1..8 I/O jobs."""
    out = []
    cores = os.cpu_count() or 1
    nvme = _device("nvme")
    for ds in datasets:
        f = _field(ds)
        for rep in range(repeats):
            for t in (1, 2, 4):
                row = pipeline.run(f, "szx", BOUND, nvme, SEED_IO, threads=t, repeats=1)
                out.append(
                    _base("threads", ds, "szx", "compress", rep, threads=t)
                    | _metrics(row)
                    | {"cores": cores, "compress_mb_s": f.nbytes / row["compress_s"] / 1e6}
                )
            shapes = [(nvme, IoShape(SEED_IO.bs, SEED_IO.iodepth, jobs)) for jobs in NUMJOBS]
            # Larger requests than the seed's fio (one job, depth 16), on both device models.
            sizes = [(_device(d), IoShape(bs, SEED_IO.iodepth, 1)) for d in DEVICES for bs in BLOCK_SIZES]
            for codec in (None, "szx"):
                rows = pipeline.run_devices(f, codec, BOUND if codec else None, shapes + sizes, repeats=1)
                out += [
                    _base("threads", ds, codec or "raw", "numjobs", rep, numjobs=jobs) | _metrics(row)
                    for jobs, row in zip(NUMJOBS, rows[: len(shapes)], strict=True)
                ]
                out += [
                    _base("threads", ds, codec or "raw", f"bs-{dev.name}", rep, bs=io.bs) | _metrics(row)
                    for (dev, io), row in zip(sizes, rows[len(shapes) :], strict=True)
                ]
    return out


def planner_rows(datasets: tuple[str, ...], repeats: int) -> list[dict[str, Any]]:
    """The informed design, per data set and device: the planner's recommendation, and its best
    compressing candidate predicted from a sample (1/8, at least 16 MiB) and then run on the whole field (raw I/O's
    prediction is the device call its measurement makes, so it is not what is tested)."""
    out = []
    for ds in datasets:
        f = _field(ds)
        for dev in DEVICES:
            for rep in range(repeats):
                p = plan(f, _device(dev), BOUND, SEED_IO)
                cand = p.best_compressed
                m = p.measure_candidate(cand, repeats=3)
                out.append(
                    _base("planner", ds, cand["codec"], dev, rep)
                    | {
                        "candidate": cand["candidate"],
                        "recommended": p.best["candidate"],
                        "pred_store_s": m["pred_store_s"],
                        "store_s": m["store_s"],
                        "pred_load_s": m["pred_load_s"],
                        "load_s": m["load_s"],
                        "store_error": m["store_error"],
                        "load_error": m["load_error"],
                        "pred_ratio": m["pred_ratio"],
                        "ratio": m["ratio"],
                        "raw_store_s": next(r["pred_store_s"] for r in p.rows if r["codec"] == "raw"),
                        "crossover_store_mb_s": min(x["store_mb_per_s"] for x in p.crossover.values()),
                        "crossover_load_mb_s": min(x["load_mb_per_s"] for x in p.crossover.values()),
                        "device_write_mb_s": p.device_mb_per_s["write"],
                        "device_read_mb_s": p.device_mb_per_s["read"],
                    }
                )
    return out


def device_rows(repeats: int) -> list[dict[str, Any]]:
    """Raw device speed at the seed's fio settings on a 1 GB file: HDD model and NVMe model."""
    n = 1_000_000_000
    out = []
    for dev in DEVICES:
        d = _device(dev)
        w, r = d.write_s(n, SEED_IO), d.read_s(n, SEED_IO)
        out.append(_base("fig1", "1GB", "raw-device", dev, 0) | {"write_mb_s": n / w / 1e6, "read_mb_s": n / r / 1e6})
    return out
