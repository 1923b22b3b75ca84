"""Parameter sweeps on Dask: a grid file expands to points, each point is one simulation task.

A grid file (TOML)::

    preset = "tiny"                 # or: config = "base.toml" (relative to this file)
    seeds = [1, 2]                  # optional axis
    [set]                           # fixed overrides, dotted keys
    "precondition.fill_fraction" = 0.5
    [grid]                          # axes: dotted key -> list of values (cartesian product)
    "ftl.op_ratio" = [0.1, 0.2]
    "ftl.gc.victim" = ["greedy", "fifo"]
    [[workloads]]                   # optional axis of whole workload tables, each with a name
    name = "randwrite"
    type = "fio"
    jobs = [{ rw = "randwrite", bs = "4k", number_ios = 5000 }]

Every point is resolved by the core before any task starts, so a bad key fails at once,
naming the point. Results gather into ``results.csv`` / ``results.parquet`` (one row per point:
``point``, the parameters, then the summary flattened with dotted names) and ``points/NNNN/``.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flashpress.config import Config
from flashpress.errors import ConfigError, FileReadError, FlashpressError
from flashpress.result import atomic_dir, check_out_dir

if TYPE_CHECKING:
    import pandas as pd
    from dask.distributed import Client

GRID_KEYS = ("preset", "config", "set", "grid", "workloads", "seeds")


@dataclass(frozen=True)
class Point:
    """One point of a sweep: its index, its parameter values and its resolved config."""

    index: int
    params: dict[str, Any]
    config: Config

    def describe(self) -> str:
        return ", ".join(f"{k}={v!r}" for k, v in self.params.items())


def _grid_error(source: str, key: str, msg: str) -> ConfigError:
    err = ConfigError(f"{source}: grid key `{key}`: {msg}")
    err.key = key
    err.source_name = source
    err.detail = msg
    return err


def _read_grid(grid: str | os.PathLike[str] | Mapping[str, Any]) -> tuple[dict[str, Any], Path, str]:
    if isinstance(grid, Mapping):
        return dict(grid), Path.cwd(), "<grid>"
    path = Path(grid)
    try:
        text = path.read_text()
    except OSError as e:
        err = FileReadError(f"cannot read {path}: {e.strerror or e}")
        err.path = str(path)
        err.errno = e.errno
        raise err from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise _grid_error(str(path), "document", f"invalid TOML: {e}") from None
    return data, path.absolute().parent, str(path)


def _flatten_axes(d: Mapping[str, Any], prefix: str, source: str) -> Iterator[tuple[str, list[Any]]]:
    """``[grid]`` entries as (dotted key, values); nested tables (``ftl.op_ratio = [...]`` unquoted)
    flatten to dotted keys."""
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            yield from _flatten_axes(v, f"{key}.", source)
        elif isinstance(v, list):
            if not v:
                raise _grid_error(source, f"grid.{key}", "expected a non-empty list of values")
            yield key, v
        else:
            raise _grid_error(source, f"grid.{key}", f"expected a list of values, got {v!r}")


def expand(grid: str | os.PathLike[str] | Mapping[str, Any]) -> list[Point]:
    """The points of a grid, each resolved and validated by the core (in order)."""
    spec, base_dir, source = _read_grid(grid)
    unknown = [k for k in spec if k not in GRID_KEYS]
    if unknown:
        raise _grid_error(source, unknown[0], f"unknown key (expected one of: {', '.join(GRID_KEYS)})")
    if "preset" in spec and "config" in spec:
        raise _grid_error(source, "config", "give either `preset` or `config`, not both")
    if "config" in spec:
        base = Config.from_toml(base_dir / str(spec["config"]))
    else:
        base = Config.preset(str(spec.get("preset", "default")))
    fixed = spec.get("set", {})
    if not isinstance(fixed, Mapping):
        raise _grid_error(source, "set", "expected a table of dotted keys and values")
    if fixed:
        base = base.with_overrides(fixed, base_dir=base_dir, source_name=f"{source} [set]")

    axes: list[tuple[str, list[Any]]] = []
    workloads = spec.get("workloads")
    if workloads is not None:
        if not isinstance(workloads, list) or not workloads:
            raise _grid_error(source, "workloads", "expected a non-empty array of workload tables")
        for i, w in enumerate(workloads):
            if not isinstance(w, Mapping) or "name" not in w:
                raise _grid_error(source, f"workloads[{i}]", "expected a workload table with a `name`")
        axes.append(("workload", list(workloads)))
    grid_axes = spec.get("grid", {})
    if not isinstance(grid_axes, Mapping):
        raise _grid_error(source, "grid", "expected a table of dotted keys and lists of values")
    axes.extend(_flatten_axes(grid_axes, "", source))
    if "seeds" in spec:
        seeds = spec["seeds"]
        if not isinstance(seeds, list) or not seeds or not all(isinstance(s, int) for s in seeds):
            raise _grid_error(source, "seeds", "expected a non-empty list of integers")
        axes.append(("seed", seeds))

    points = []
    for index, combo in enumerate(itertools.product(*(values for _, values in axes))):
        params: dict[str, Any] = {}
        overrides: dict[str, Any] = {}
        for (key, _), value in zip(axes, combo, strict=True):
            if key == "workload":
                table = dict(value)
                params["workload"] = str(table.pop("name"))
                overrides["workload"] = table
            else:
                params[key] = value
                overrides[key] = value
        desc = ", ".join(f"{k}={v!r}" for k, v in params.items())
        cfg = base.with_overrides(overrides, base_dir=base_dir, source_name=f"{source} point {index} ({desc})")
        points.append(Point(index, params, cfg))
    return points


def flatten(d: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested dict to one level, keys joined with "." (lists become JSON text)."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(flatten(v, f"{key}."))
        elif isinstance(v, list):
            out[key] = json.dumps(v)
        else:
            out[key] = v
    return out


def run_point(index: int, params: dict[str, Any], config_json: str) -> tuple[dict[str, Any], str]:
    """One sweep task (runs on a Dask worker): simulate a resolved config and return the flat
    results row and the exact ``summary.json`` text."""
    from flashpress.run import simulate

    result = simulate(Config.from_json(config_json, source_name=f"point {index}"), progress=False)
    row = {"point": index, **params, **flatten(result.summary)}
    return row, result.summary_json


@contextlib.contextmanager
def dask_client(scheduler: str | None, workers: int | None, tasks: int) -> Iterator[Client]:
    """A Dask client: connected to ``scheduler`` when given, else to a local cluster of
    ``workers`` single-threaded processes (default: one per core, at most one per task).
    The client (and a local cluster) is closed on exit."""
    from dask.distributed import Client, LocalCluster

    if scheduler:
        client = Client(scheduler)
        cluster = None
    else:
        n = workers or max(1, min(os.cpu_count() or 1, tasks))
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def sweep(
    grid: str | os.PathLike[str] | Mapping[str, Any],
    out: str | os.PathLike[str],
    scheduler: str | None = None,
    workers: int | None = None,
    *,
    overwrite: bool = False,
) -> pd.DataFrame:
    """Run every point of ``grid`` on Dask and write the results under ``out``.

    ``scheduler`` is a Dask scheduler address; without it a local cluster of ``workers``
    processes (default: one per core, at most one per point) runs the tasks. Returns the results
    table (one row per point, sorted by point index).
    """
    import pandas as pd

    points = expand(grid)
    # Fail on an unusable output directory before starting a cluster.
    check_out_dir(out, overwrite=overwrite)
    with dask_client(scheduler, workers, len(points)) as client:
        futures = [
            client.submit(
                run_point, p.index, p.params, p.config.to_json(), pure=False, key=f"flashpress-point-{p.index}"
            )
            for p in points
        ]
        outputs: list[tuple[dict[str, Any], str]] = []
        for p, fut in zip(points, futures, strict=True):
            try:
                outputs.append(fut.result())
            except FlashpressError as e:
                client.cancel(futures)
                e.args = (f"point {p.index} ({p.describe()}): {e}",)
                raise

    rows = [row for row, _ in outputs]
    df = pd.DataFrame(rows).sort_values("point", kind="stable").reset_index(drop=True)
    df.attrs["params"] = list(points[0].params) if points else []
    with atomic_dir(out, overwrite=overwrite) as tmp:
        df.to_csv(tmp / "results.csv", index=False)
        df.to_parquet(tmp / "results.parquet", index=False)
        for p, (_, summary_json) in zip(points, outputs, strict=True):
            d = tmp / "points" / f"{p.index:04d}"
            d.mkdir(parents=True)
            (d / "config.json").write_text(p.config.to_json())
            (d / "summary.json").write_text(summary_json)
            (d / "params.json").write_text(json.dumps(p.params, indent=2) + "\n")
    return df


__all__ = ["Point", "dask_client", "expand", "flatten", "run_point", "sweep"]
