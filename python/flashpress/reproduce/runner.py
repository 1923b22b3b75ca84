"""Resolve the figures' runs into configs and run them on Dask, one simulation per task.

Identical configs (a run shared by several figures, e.g. Fig 12, 13 and 14) run once. The
results gather into one table: a row per (figure, run) in figure order then run order, with
the run's labels, its status (``ok``, ``failed``, ``skipped``), the error text, the wall time,
a few resolved config values (``cfg.*``) and the summary flattened with dotted names.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from flashpress.config import Config
from flashpress.errors import ConfigError, FlashpressError, SweepError
from flashpress.reproduce.experiments import LABEL_KEYS, Figure, PresetValue, RunSpec
from flashpress.reproduce.papers import get_paper
from flashpress.reproduce.timeline_features import features as timeline_features
from flashpress.result import WorkDir, task_key
from flashpress.sweep import _test_hook, dask_client, fit_workers, flatten, run_tasks

if TYPE_CHECKING:
    import pandas as pd

#: Resolved config values copied into the results table (the report quotes them).
CONFIG_COLUMNS = {
    "cfg.policy": "stack.policy",
    "cfg.partition_bytes": "stack.fs.partition_bytes",
    "cfg.fill_fraction": "stack.fs.fill_fraction",
    "cfg.ambient_c": "stack.ccsd.thermal.ambient_c",
    "cfg.neighbour_c": "stack.ccsd.thermal.neighbour_c",
    "cfg.tau_s": "stack.ccsd.thermal.tau_s",
}


def lookup(d: Mapping[str, Any], dotted: str) -> Any:
    """``d["a"]["b"]`` for ``"a.b"``; KeyError naming the key when absent."""
    node: Any = d
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            raise KeyError(dotted)
        node = node[part]
    return node


def resolve_values(value: Any, preset: Mapping[str, Any], where: str) -> Any:
    """``value`` with every :class:`PresetValue` inside it replaced by its preset value."""
    if isinstance(value, PresetValue):
        try:
            raw = lookup(preset, value.key)
        except KeyError:
            err = ConfigError(f"{where}: the preset has no key `{value.key}` to scale")
            err.key = value.key
            raise err from None
        return value.resolve(raw)
    if isinstance(value, Mapping):
        return {k: resolve_values(v, preset, where) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [resolve_values(v, preset, where) for v in value]
    return value


@dataclass(frozen=True)
class PlannedRun:
    """A run of a figure, resolved: its config (None when skipped) and why it was skipped."""

    figure: str
    spec: RunSpec
    config: Config | None
    skipped: str | None = None


#: Controller settings a storage-stack reproduction can run its CCSD with: the preset's own
#: (`waltz`: MQSim-like, first come first served, no suspension, GC episodes to their end), or
#: the `default` preset's present-day controller for sensitivity studies.
CONTROLLERS = ("preset", "realistic")


def controller_overrides(controller: str) -> dict[str, Any]:
    """Config overrides that put a run on the named controller setting (:data:`CONTROLLERS`):
    ``realistic`` takes the `default` preset's back end (read priority with its starvation bound,
    program/erase suspension, preemptible GC in steps with its hard floor, least-busy allocation)."""
    if controller not in CONTROLLERS:
        raise ValueError(f"unknown controller setting {controller!r} (expected one of {', '.join(CONTROLLERS)})")
    if controller == "preset":
        return {}
    d = Config.preset("default").to_dict()
    gc = d["ftl"]["gc"]
    return {
        "controller": d["controller"],
        "ftl.striping": d["ftl"]["striping"],
        "ftl.gc.preemptible": gc["preemptible"],
        "ftl.gc.step_pages": gc["step_pages"],
        "ftl.gc.hard_floor": gc["hard_floor"],
    }


def plan(figs: Sequence[Figure], preset: str | None = None, controller: str = "preset") -> list[PlannedRun]:
    """Resolve and validate every run's config before anything runs. A rejected config fails
    at once, naming the figure and run, unless the run is optional (then it is skipped).
    ``preset``: the preset runs are merged over (default: the paper's of each figure);
    ``controller``: the controller setting every run starts from (:func:`controller_overrides`)."""
    bases: dict[str, tuple[Config, dict[str, Any]]] = {}
    over = controller_overrides(controller)

    def base_of(fig: Figure, scheme: str | None) -> tuple[Config, dict[str, Any]]:
        # A run that names a scheme starts from it (a scheme is chosen when a config is
        # built, not overridden); the others from the preset.
        name = scheme if scheme is not None else preset or get_paper(fig.paper).preset
        key = f"scheme:{scheme}" if scheme is not None else name
        if key not in bases:
            c = Config.preset(name) if scheme is None else Config.from_dict({"scheme": scheme})
            if over:
                c = c.with_overrides(over, source_name=f"the {controller} controller")
            bases[key] = (c, dict(c.to_dict()))
        return bases[key]

    planned: list[PlannedRun] = []
    for fig in figs:
        for spec in fig.runs:
            where = f"{fig.key} run `{spec.run_id}`"
            overrides = {k: v for k, v in spec.overrides.items() if k not in ("preset", "scheme")}
            try:
                base, base_dict = base_of(fig, spec.overrides.get("scheme"))
                resolved = resolve_values(overrides, base_dict, where)
                cfg = base.with_overrides(resolved, source_name=where)
            except ConfigError as e:
                if spec.optional:
                    planned.append(PlannedRun(fig.key, spec, None, skipped=str(e)))
                    continue
                raise
            planned.append(PlannedRun(fig.key, spec, cfg))
    return planned


def run_task(
    index: int, config_json: str, want_timeline: bool, want_cdf: bool = False, max_memory: int | None = None
) -> dict[str, Any]:
    """One task (runs on a Dask worker): simulate a resolved config. A flashpress error is
    returned as the run's error, not raised, so one failed run does not lose the others.
    ``max_memory`` as in :func:`~flashpress.run.simulate`."""
    from flashpress.run import simulate

    t0 = time.perf_counter()
    _test_hook(f"run {index + 1}")
    try:
        cfg = Config.from_json(config_json, source_name=f"run {index}")
        result = simulate(cfg, progress=False, max_memory=max_memory)
    except FlashpressError as e:
        return {"status": "failed", "error": f"{type(e).__name__}: {e}", "wall_s": time.perf_counter() - t0}
    return {
        "status": "ok",
        "error": None,
        "wall_s": time.perf_counter() - t0,
        "summary_json": result.summary_json,
        "timeline_csv": result.timeline_csv() if want_timeline else None,
        "cdf_csv": _gc_cdf_csv(result) if want_cdf else None,
    }


def _gc_cdf_csv(result: Any) -> str:
    """The latency CDFs of the reads and writes that overlapped GC, one table (``op``,
    ``latency_us``, ``cumulative``)."""
    import pandas as pd

    parts = []
    for op in ("read", "write"):
        df = result.latency_cdf(op, during_gc=True)
        if len(df):
            parts.append(df.assign(op=op))
    if not parts:
        return "op,latency_us,cumulative\n"
    out = pd.concat(parts, ignore_index=True)
    return str(out[["op", *[c for c in out.columns if c != "op"]]].to_csv(index=False))


@dataclass
class Outcome:
    """What the runs produced: the results table, the timelines by run number, the unique
    configs by run number, and the total wall time."""

    table: pd.DataFrame
    timelines: dict[int, pd.DataFrame]
    configs: dict[int, Config]
    summaries: dict[int, str]
    wall_s: float
    #: Latency CDFs of the requests that overlapped GC, by run number (runs that asked).
    cdfs: dict[int, pd.DataFrame] = field(default_factory=dict)


def _task_args(u: tuple[Config, bool, bool]) -> tuple[str, bool, bool]:
    cfg, tl, cdf = u
    return cfg.to_json(), tl, cdf


def _kept(done: int, total: int, work: WorkDir | None) -> str:
    if work is None:
        return f"{done} of {total} runs finished"
    return f"{done} of {total} runs finished and are kept in {work.path}; the same command again resumes from them"


def _unique(planned: Iterable[PlannedRun]) -> tuple[list[tuple[Config, bool, bool]], list[int | None]]:
    """Unique configs (in first-seen order, with whether a timeline and the during-GC CDFs are
    wanted) and each planned run's index into them (None when skipped)."""
    index_of: dict[str, int] = {}
    unique: list[tuple[Config, bool, bool]] = []
    refs: list[int | None] = []
    for p in planned:
        if p.config is None:
            refs.append(None)
            continue
        key = p.config.to_json()
        i = index_of.get(key)
        if i is None:
            i = index_of[key] = len(unique)
            unique.append((p.config, p.spec.timeline, p.spec.cdf))
        else:
            c, tl, cdf = unique[i]
            unique[i] = (c, tl or p.spec.timeline, cdf or p.spec.cdf)
        refs.append(i)
    return unique, refs


def execute(
    planned: Sequence[PlannedRun],
    *,
    scheduler: str | None = None,
    workers: int | None = None,
    log: Any = None,
    work: WorkDir | None = None,
    max_memory: int | None = None,
) -> Outcome:
    """Run the planned runs on Dask (a local cluster of ``workers`` processes, or the
    scheduler at ``scheduler``) and gather the results table.

    With ``work``, each finished run is kept there as it completes and runs kept by an earlier,
    interrupted call are not run again (same config, same flashpress build). A run whose worker
    died past Dask's retries, or that the lost scheduler never finished, raises
    :class:`~flashpress.errors.SweepError` (the finished ones kept); a flashpress error of a run
    is that run's ``failed`` row. ``max_memory`` as in :func:`~flashpress.sweep.sweep`."""
    import io

    import pandas as pd

    t0 = time.perf_counter()
    unique, refs = _unique(planned)
    keys = [task_key("reproduce run", cfg.to_json(), tl, cdf) for cfg, tl, cdf in unique]
    found: dict[int, dict[str, Any]] = {}
    if work is not None:
        kept = work.keys()
        found = {i: work.get(k) for i, k in enumerate(keys) if k in kept}
        if kept and log is not None:
            log(f"resuming: {len(found)} of {len(unique)} runs finished earlier, {len(unique) - len(found)} to run")
    todo = [i for i in range(len(unique)) if i not in found]
    if todo:

        def keep(j: int, out: dict[str, Any]) -> None:
            i = todo[j]
            if work is not None and out["status"] == "ok":
                work.put(keys[i], out)
            found[i] = out
            if log is not None:
                log(f"run {i + 1}/{len(unique)}: {out['status']}" + (f" ({out['error']})" if out["error"] else ""))

        try:
            if scheduler is None:
                workers = fit_workers([unique[i][0].to_json() for i in todo], workers, max_memory, "run", log)
            with dask_client(scheduler, workers, len(todo)) as client:
                failures = run_tasks(
                    client,
                    [(f"flashpress-reproduce-{i}", run_task, (i, *_task_args(unique[i]), max_memory)) for i in todo],
                    keep,
                )
        except KeyboardInterrupt:
            raise KeyboardInterrupt(_kept(len(found), len(unique), work)) from None
        if failures:
            lines = []
            for j, msg in sorted(failures.items()):
                names = [
                    f"{p.figure} run `{p.spec.run_id}`" for p, ref in zip(planned, refs, strict=True) if ref == todo[j]
                ]
                lines.append(f"run {todo[j] + 1} ({', '.join(names)}): {msg}")
            err = SweepError(
                f"{len(failures)} of {len(unique)} runs did not finish; {_kept(len(found), len(unique), work)}"
                + "\n  "
                + "\n  ".join(lines)
            )
            err.failed = {todo[j] + 1: msg for j, msg in failures.items()}
            raise err
    outputs = [found[i] for i in range(len(unique))]

    timelines: dict[int, pd.DataFrame] = {}
    cdfs: dict[int, pd.DataFrame] = {}
    summaries: dict[int, dict[str, Any]] = {}
    summary_text: dict[int, str] = {}
    for i, out in enumerate(outputs):
        if out["status"] == "ok":
            summary_text[i] = out["summary_json"]
            summaries[i] = json.loads(out["summary_json"])
            if out.get("timeline_csv"):
                timelines[i] = pd.read_csv(io.StringIO(out["timeline_csv"]))
            if out.get("cdf_csv"):
                cdfs[i] = pd.read_csv(io.StringIO(out["cdf_csv"]))

    rows: list[dict[str, Any]] = []
    for p, ref in zip(planned, refs, strict=True):
        row: dict[str, Any] = {"figure": p.figure, "run_id": p.spec.run_id, "run": ref}
        row.update({k: p.spec.labels.get(k) for k in LABEL_KEYS})
        if ref is None:
            row.update(status="skipped", error=p.skipped, wall_s=None)
        else:
            out = outputs[ref]
            row.update(status=out["status"], error=out["error"], wall_s=out["wall_s"])
            cfg = unique[ref][0].to_dict()
            for col, key in CONFIG_COLUMNS.items():
                try:
                    row[col] = lookup(cfg, key)
                except KeyError:
                    row[col] = None
            if ref in summaries:
                row.update(flatten(summaries[ref]))
                if ref in timelines:
                    row.update(timeline_features(timelines[ref], summaries[ref]))
        rows.append(row)
    table = pd.DataFrame(rows)
    return Outcome(
        table=table,
        timelines=timelines,
        configs={i: cfg for i, (cfg, _, _) in enumerate(unique)},
        summaries=summary_text,
        wall_s=time.perf_counter() - t0,
        cdfs=cdfs,
    )


__all__ = ["Outcome", "PlannedRun", "execute", "lookup", "plan", "resolve_values", "run_task"]
