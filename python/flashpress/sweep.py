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
Each point's summary is kept as it finishes (:class:`~flashpress.result.WorkDir`), so a sweep
stopped by a failure, a lost scheduler or Ctrl-C resumes when run again on the same output.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
from collections.abc import Mapping

from flashpress.config import TYPE_CHECKING, Config
from flashpress.errors import ConfigError, FileReadError, SweepError
from flashpress.result import WorkDir, task_key

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from pathlib import Path
    from typing import Any

    import pandas as pd
    from dask.distributed import Client

GRID_KEYS = ("preset", "config", "set", "grid", "workloads", "seeds")


class Point:
    """One point of a sweep: its index, its parameter values and its resolved config.

    (A plain class, not a dataclass: defining one imports ``inspect`` and compiles its methods
    at import time, which every ``flashpress`` command would pay for.)"""

    __slots__ = ("config", "index", "params")

    def __init__(self, index: int, params: dict[str, Any], config: Config) -> None:
        self.index = index
        self.params = params
        self.config = config

    def __repr__(self) -> str:
        return f"Point(index={self.index!r}, params={self.params!r}, config={self.config!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Point):
            return NotImplemented
        return (self.index, self.params, self.config) == (other.index, other.params, other.config)

    __hash__ = None  # type: ignore[assignment]

    def describe(self) -> str:
        return ", ".join(f"{k}={v!r}" for k, v in self.params.items())


def _grid_error(source: str, key: str, msg: str) -> ConfigError:
    err = ConfigError(f"{source}: grid key `{key}`: {msg}")
    err.key = key
    err.source_name = source
    err.detail = msg
    return err


def _read_grid(grid: str | os.PathLike[str] | Mapping[str, Any]) -> tuple[dict[str, Any], Path, str]:
    from pathlib import Path

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
    import tomllib

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


def _test_hook(task: str) -> None:
    """Test-only: the worker process running ``task`` (e.g. ``point 1``) dies at once when
    ``FLASHPRESS_TEST_DIE_IN`` names it, as a worker killed by the OOM killer would."""
    if os.environ.get("FLASHPRESS_TEST_DIE_IN") == task:
        os._exit(70)


def run_point(index: int, config_json: str, max_memory: int | None = None) -> str:
    """One sweep task (runs on a Dask worker): simulate a resolved config and return the exact
    ``summary.json`` text. ``max_memory`` as in :func:`~flashpress.run.simulate`."""
    from flashpress.run import simulate

    _test_hook(f"point {index}")
    cfg = Config.from_json(config_json, source_name=f"point {index}")
    return simulate(cfg, progress=False, max_memory=max_memory).summary_json


def fit_workers(
    configs: Sequence[str],
    workers: int | None,
    max_memory: int | None,
    what: str,
    log: Callable[[str], None] | None = None,
    available: int | None = None,
) -> int:
    """How many local worker processes to start for ``configs`` (resolved configs as JSON): the
    requested ``workers`` (default: one per core, at most one per config), fewer when that many
    of the largest runs at once would not fit in the machine's available memory by their
    estimates (:func:`~flashpress.run.estimate_memory`); a run over the per-run limit
    (``max_memory``, else what this process may use) is refused when it starts and is not
    counted. ``max_memory = 0`` turns the check off,
    as it does for each run. Every run still checks its own estimate when it starts; this keeps
    two runs that each fit from being started side by side when together they do not.
    ``available``: the memory to fit in (default: the machine's available memory)."""
    n = workers or max(1, min(os.cpu_count() or 1, len(configs)))
    if max_memory == 0 or n <= 1 or not configs:
        return n
    from flashpress.run import PYTHON_BASELINE_BYTES, estimate_memory

    estimates = [estimate_memory(Config.from_json(c, source_name=what)) for c in configs]
    # The machine's memory is shared by the workers; a process limit (ulimit) is each one's own
    # and is checked by each run.
    available = available or estimates[0].get("machine_available_bytes")
    if not available:
        return n
    # A run over the per-run limit is refused as it starts and takes no room. (The check in a
    # run compares the estimate without the Python process, which is already there.)
    per_run = max_memory or estimates[0].get("available_bytes") or available
    largest = sorted(
        (e["total_bytes"] for e in estimates if e["total_bytes"] - PYTHON_BASELINE_BYTES <= per_run), reverse=True
    )
    fit = n
    while fit > 1 and sum(largest[:fit]) > available:
        fit -= 1
    if fit < n and log is not None:
        gib = 1 << 30
        log(
            f"running {fit} {what}s at a time instead of {n}: the {n} largest need about "
            f"{sum(largest[:n]) / gib:.1f} GiB together by their estimates, more than the "
            f"{available / gib:.1f} GiB available (--max-memory 0 turns the check off)"
        )
    return fit


@contextlib.contextmanager
def _dask_logs_off() -> Iterator[None]:
    """No log lines from Dask (and the libraries under it): what goes wrong with a task is
    reported by :func:`run_tasks`, naming the task."""
    import logging

    # Every logger under them: Dask sets levels on some (distributed.client), and a record is
    # passed to its ancestors' handlers whatever their level.
    names = [
        n for n in list(logging.root.manager.loggerDict) if n.split(".")[0] in ("distributed", "tornado", "asyncio")
    ]
    loggers = [logging.getLogger(name) for name in ("distributed", "tornado", "asyncio", *names)]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)


@contextlib.contextmanager
def _no_sigint() -> Iterator[None]:
    """SIGINT ignored in this block (when this is the main thread)."""
    import threading  # here, not at the top: `flashpress run` imports this module but never runs a sweep

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def dask_setup(worker: object) -> None:
    """Preload of the local cluster's worker processes (runs in their main thread): a worker
    that Dask starts again after one died ignores Ctrl-C as the first ones do (see
    :func:`dask_client`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _close(obj: Any) -> None:
    with _no_sigint(), contextlib.suppress(Exception):
        obj.close()


@contextlib.contextmanager
def dask_client(scheduler: str | None, workers: int | None, tasks: int) -> Iterator[Client]:
    """A Dask client: connected to ``scheduler`` when given, else to a local cluster of
    ``workers`` single-threaded processes (default: one per core, at most one per task).
    The client (and a local cluster) is closed on exit, quietly after a Ctrl-C.

    Ctrl-C at a terminal signals the whole process group. The local cluster is started with
    SIGINT ignored, which its worker processes inherit (Python keeps an inherited SIG_IGN), and a
    worker started again later ignores it from its preload on: the workers leave Ctrl-C to this
    process, which stops them, instead of each printing tracebacks. So a Ctrl-C while the
    cluster starts (a second or two) is ignored, as is one while it is closed."""
    import logging

    from dask.distributed import Client, LocalCluster

    with contextlib.ExitStack() as stack:
        # A worker that dies or a scheduler lost is reported by run_tasks, naming the tasks, not
        # logged by Dask (with tracebacks of its reconnection attempts).
        stack.enter_context(_dask_logs_off())
        if scheduler:
            client = Client(scheduler)
            stack.callback(_close, client)
        else:
            n = workers or max(1, min(os.cpu_count() or 1, tasks))
            with _no_sigint():
                cluster = LocalCluster(
                    n_workers=n,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    preload=["flashpress.sweep"],
                    silence_logs=logging.CRITICAL,
                )
                stack.callback(_close, cluster)
                client = Client(cluster)
                stack.callback(_close, client)
        yield client


def _describe_failure(exc: BaseException | None) -> str:
    from distributed.scheduler import KilledWorker

    if isinstance(exc, KilledWorker):
        return "its worker process died (KilledWorker: Dask's retries are used up; out of memory?)"
    return f"{type(exc).__name__}: {exc}"


def run_tasks(
    client: Client,
    tasks: Sequence[tuple[str, Callable[..., Any], tuple[Any, ...]]],
    on_done: Callable[[int, Any], None],
) -> dict[int, str]:
    """Run ``tasks`` (Dask key, function, arguments) on ``client``, calling ``on_done(i, result)``
    in this process as each finishes (in any order), so a result is kept as soon as it exists.
    Returns what went wrong with each task that did not finish, by index: an error the task
    raised, a worker that died past Dask's retries (KilledWorker), or the scheduler lost (then
    every unfinished task). Ctrl-C raises KeyboardInterrupt, the finished tasks handed over."""
    from distributed import as_completed

    # On our local cluster at most one task per worker is handed to Dask at a time: Dask counts
    # a worker's death against every task assigned to it, so a queue behind a task that kills its
    # worker would be blamed (and given up) with it. A remote cluster gets every task at once.
    limit = len(client.scheduler_info().get("workers", {})) if client.cluster is not None else 0
    pending = iter(enumerate(tasks))
    index: dict[Any, int] = {}
    futures = []

    def submit_next() -> Any:
        try:
            i, (key, fn, args) = next(pending)
        except StopIteration:
            return None
        fut = client.submit(fn, *args, pure=False, key=key)
        index[fut.key] = i
        futures.append(fut)
        return fut

    first = [submit_next() for _ in range(limit if limit > 0 else len(tasks))]
    running = as_completed([f for f in first if f is not None])
    failures: dict[int, str] = {}
    finished: set[int] = set()
    try:
        for fut in running:
            i = index[fut.key]
            if fut.status == "finished":
                on_done(i, fut.result())
                finished.add(i)
                fut.release()  # kept by on_done: not to be computed again if its worker dies
            elif fut.status == "error":
                failures[i] = _describe_failure(fut.exception())
            else:
                failures[i] = "lost: the connection to the Dask scheduler was lost (or the task was cancelled)"
            if limit > 0:
                nxt = submit_next()
                if nxt is not None:
                    running.add(nxt)
    except OSError as e:  # the scheduler went away while we waited
        for i in range(len(tasks)):
            if i not in finished and i not in failures:
                failures[i] = f"lost: the connection to the Dask scheduler failed ({type(e).__name__}: {e})"
    except KeyboardInterrupt:
        with contextlib.suppress(Exception):
            client.cancel(futures)
        raise
    return failures


def sweep(
    grid: str | os.PathLike[str] | Mapping[str, Any],
    out: str | os.PathLike[str],
    scheduler: str | None = None,
    workers: int | None = None,
    *,
    overwrite: bool = False,
    log: Callable[[str], None] | None = None,
    max_memory: int | None = None,
) -> pd.DataFrame:
    """Run every point of ``grid`` on Dask and write the results under ``out``.

    ``scheduler`` is a Dask scheduler address; without it a local cluster of ``workers``
    processes (default: one per core, at most one per point) runs the tasks. Returns the results
    table (one row per point, sorted by point index).

    Each point's summary is kept in ``out``'s work folder (``.OUT.partial``, see
    :class:`~flashpress.result.WorkDir`) as it finishes; a sweep that stops early (a failed point
    raises :class:`~flashpress.errors.SweepError`, Ctrl-C raises KeyboardInterrupt) is resumed by
    calling it again with the same ``out``: points whose config and flashpress build match a kept
    summary are not run again. ``log`` receives a line about what is reused.

    ``max_memory``: each point is refused (a failed point) when its memory estimate exceeds it
    (default: the worker's available memory; 0: no check), and a local cluster starts no more
    workers than the largest points' estimates fit in side by side (:func:`fit_workers`).
    """
    import pandas as pd

    points = expand(grid)
    # Fail on an unusable output directory before starting a cluster.
    with WorkDir(out, overwrite=overwrite) as work:
        configs = [p.config.to_json() for p in points]
        keys = [task_key("sweep point", c) for c in configs]
        kept = work.keys()
        summaries: dict[int, str] = {i: work.get(k) for i, k in enumerate(keys) if k in kept}
        if kept and log is not None:
            unused = len(kept - set(keys))
            log(
                f"resuming {out}: {len(summaries)} of {len(points)} points finished earlier, "
                f"{len(points) - len(summaries)} to run"
                + (
                    f"; {unused} earlier results match no point now (config or build changed) and are not used"
                    if unused
                    else ""
                )
            )
        todo = [p for p in points if p.index not in summaries]
        if todo:

            def keep(j: int, summary_json: str) -> None:
                i = todo[j].index
                work.put(keys[i], summary_json)
                summaries[i] = summary_json

            try:
                if scheduler is None:
                    workers = fit_workers([configs[p.index] for p in todo], workers, max_memory, "point", log)
                with dask_client(scheduler, workers, len(todo)) as client:
                    failures = run_tasks(
                        client,
                        [
                            (f"flashpress-point-{p.index}", run_point, (p.index, configs[p.index], max_memory))
                            for p in todo
                        ],
                        keep,
                    )
            except KeyboardInterrupt:
                raise KeyboardInterrupt(_kept_note(len(summaries), len(points), "points", work)) from None
            if failures:
                failed = {todo[j].index: msg for j, msg in failures.items()}
                lines = [f"point {i} ({points[i].describe()}): {msg}" for i, msg in sorted(failed.items())]
                err = SweepError(
                    f"{len(failed)} of {len(points)} points failed; "
                    + _kept_note(len(summaries), len(points), "points", work)
                    + "\n  "
                    + "\n  ".join(lines)
                )
                err.failed = failed
                raise err

        rows = [{"point": p.index, **p.params, **flatten(json.loads(summaries[p.index]))} for p in points]
        df = pd.DataFrame(rows).sort_values("point", kind="stable").reset_index(drop=True)
        df.attrs["params"] = list(points[0].params) if points else []
        tmp = work.path
        df.to_csv(tmp / "results.csv", index=False)
        df.to_parquet(tmp / "results.parquet", index=False)
        for p in points:
            d = tmp / "points" / f"{p.index:04d}"
            d.mkdir(parents=True)
            (d / "config.json").write_text(configs[p.index])
            (d / "summary.json").write_text(summaries[p.index])
            (d / "params.json").write_text(json.dumps(p.params, indent=2) + "\n")
        work.commit()
    return df


def _kept_note(done: int, total: int, what: str, work: WorkDir) -> str:
    return f"{done} of {total} {what} finished and are kept in {work.path}; the same command again resumes from them"


__all__ = ["Point", "dask_client", "expand", "flatten", "run_point", "run_tasks", "sweep"]
