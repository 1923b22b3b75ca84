"""``flashpress reproduce``: run a seed paper's evaluation (Waltz, COCO, PR-SSD or CAGC) as a grid of
simulations on Dask and write figures and a report (Markdown and HTML) beside the seed's numbers.

Layout: :mod:`.scale` (how big and long), :mod:`.experiments` (figures as lists of runs),
:mod:`.runner` (resolve, dedupe, run on Dask), :mod:`.metrics` and :mod:`.claims` (the seed's
statements and how they are checked; :mod:`.causes` holds the measured cause of each claim that
does not hold), :mod:`.figures` (plots), :mod:`.report` (the report's content) and
:mod:`.document` (rendered to Markdown and to one self-contained HTML page).

The output directory holds ``report.md`` and ``report.html``, ``results.csv`` /
``results.parquet`` (one row per figure run), ``figures/<key>.png|svg``, ``scale.json``,
``reproduce.json`` (the paper, preset, figures, wall time and cores: what the report needs
besides the results) and ``runs/NNNN/`` (config, summary and timeline of every distinct
simulation). It is written atomically: each run is kept in the work folder ``.OUT.partial``
beside it as it finishes, and an interrupted reproduction resumes from there when run again.
:func:`render` writes both reports again from these files
without running anything.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flashpress.errors import FileReadError
from flashpress.reproduce import experiments
from flashpress.reproduce.experiments import Figure
from flashpress.reproduce.papers import PAPERS, get_paper
from flashpress.reproduce.scale import SCALES, Scale, get_scale
from flashpress.result import WorkDir, check_out_dir

#: Papers whose runs are storage stacks over the CCSD: the ones ``controller`` applies to.
STACK_PAPERS = ("waltz", "coco")

if TYPE_CHECKING:
    import pandas as pd

#: What the report needs besides the results, written beside them.
META = "reproduce.json"
#: Columns read back from results.csv as text whatever they look like (a data study's
#: ``variant`` "32" is a label, not a number).
TEXT_COLUMNS = (
    "figure",
    "run_id",
    "status",
    "error",
    "scheme",
    "pattern",
    "personality",
    "workload",
    "codec",
    "variant",
)


def reproduce(
    paper: str,
    out: str | os.PathLike[str],
    *,
    scale: str | Scale = "default",
    only: Iterable[str] | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    overwrite: bool = False,
    preset: str | None = None,
    log: Callable[[str], None] | None = None,
    max_memory: int | None = None,
    controller: str = "preset",
) -> Path:
    """Run ``paper``'s evaluation (``waltz``, ``coco``, ``prssd`` or ``cagc``) and write the results under
    ``out``. Returns the report's path. Every config is validated before any run starts.
    ``preset``: the preset runs are merged over (default: the paper's). ``max_memory``: each
    run's memory limit, as in :func:`~flashpress.sweep.sweep`. ``controller``: ``preset`` (the
    preset's controller) or ``realistic`` (the `default` preset's, for sensitivity studies of the
    storage-stack papers; see :func:`~flashpress.reproduce.runner.controller_overrides`)."""
    from flashpress.reproduce.figures import plot_figure
    from flashpress.reproduce.runner import execute, plan

    if controller != "preset" and paper not in STACK_PAPERS:
        raise ValueError(
            f"the controller setting `{controller}` is for the storage-stack papers ({', '.join(STACK_PAPERS)}); "
            f"{paper}'s preset chooses its controller"
        )
    sc = get_scale(scale) if isinstance(scale, str) else scale
    figs = experiments.figures(paper, sc, only)
    preset = preset or get_paper(paper).preset
    check_out_dir(out, overwrite=overwrite)  # fail before a long run, not after
    planned = plan(figs, preset, controller)  # every config checked before inputs are made or runs start
    # Inputs the runs read (generated traces): made once per distinct step, for the selected
    # figures' runs only.
    for prep in dict.fromkeys(f.prepare for f in figs if f.prepare is not None):
        if log is not None:
            log(f"preparing inputs ({getattr(prep, '__module__', '')})")
        prep(sc, [r for f in figs if f.prepare is prep for r in f.runs])
    # The data studies are quick and can fail on missing data: before the runs, not after.
    studies = [row for f in figs if f.analysis is not None for row in f.analysis(sc)]
    with WorkDir(out, overwrite=overwrite) as work:
        outcome = execute(planned, scheduler=scheduler, workers=workers, log=log, work=work, max_memory=max_memory)
        tmp = work.path
        table = outcome.table
        if studies:
            import pandas as pd

            table = pd.concat([table, pd.DataFrame(studies)], ignore_index=True)
        table.to_csv(tmp / "results.csv", index=False)
        table.astype({c: "string" for c in ("error",) if c in table.columns}).to_parquet(
            tmp / "results.parquet", index=False
        )
        (tmp / "scale.json").write_text(json.dumps(sc.to_dict(), indent=2) + "\n")
        for i, cfg in outcome.configs.items():
            d = tmp / "runs" / f"{i:04d}"
            d.mkdir(parents=True)
            (d / "config.json").write_text(cfg.to_json())
            if i in outcome.summaries:
                (d / "summary.json").write_text(outcome.summaries[i])
            if i in outcome.timelines:
                outcome.timelines[i].to_csv(d / "timeline.csv", index=False)
            if i in outcome.cdfs:
                outcome.cdfs[i].to_csv(d / "gc_latency_cdf.csv", index=False)
        files: dict[str, list[str]] = {}
        for fig in figs:
            paths = plot_figure(fig, table, outcome.timelines, sc, tmp / "figures", cdfs=outcome.cdfs)
            files[fig.key] = [f"figures/{p.name}" for p in paths]
        meta = {
            "paper": paper,
            "preset": preset,
            "controller": controller,
            "figures": [f.key for f in figs],
            "wall_s": outcome.wall_s,
            "cores": os.cpu_count(),
        }
        (tmp / META).write_text(json.dumps(meta, indent=2) + "\n")
        configs = {i: f"runs/{i:04d}/config.json" for i in outcome.configs}
        _write_reports(tmp, figs, table, sc, meta, files, configs)
        work.commit()
    return Path(out) / "report.md"


def _write_reports(
    out: Path,
    figs: list[Figure],
    table: pd.DataFrame,
    sc: Scale,
    meta: dict[str, Any],
    files: dict[str, list[str]],
    configs: dict[int, str],
) -> None:
    """``report.md`` and ``report.html`` in ``out``, from one document; each file is replaced
    whole (written beside it, then renamed)."""
    from flashpress.reproduce.report import build_report

    doc = build_report(
        meta["paper"],
        figs,
        table,
        sc,
        figure_files=files,
        wall_s=meta["wall_s"],
        preset=meta["preset"],
        configs=configs,
        cores=meta.get("cores"),
        controller=meta.get("controller", "preset"),
    )
    for name, text in (("report.md", doc.markdown()), ("report.html", doc.html(out))):
        tmp = out / f".{name}.tmp"
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, out / name)


def _unreadable(path: Path, what: str) -> FileReadError:
    e = FileReadError(f"{path}: {what}; is it a `flashpress reproduce` output directory?")
    e.path = str(path)
    return e


def read_results(out: str | os.PathLike[str]) -> pd.DataFrame:
    """``results.csv`` of a reproduction's output directory, read back as the report reads the
    table the runs gave: label and text columns as text, empty cells missing (NaN)."""
    import pandas as pd

    path = Path(out) / "results.csv"
    try:
        table = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype=dict.fromkeys(TEXT_COLUMNS, "str"))
    except FileNotFoundError:
        raise _unreadable(path, "missing") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise _unreadable(path, f"not a results table ({e})") from None
    missing = [c for c in ("figure", "run_id", "status") if c not in table.columns]
    if missing:
        raise _unreadable(path, f"no column {', '.join(missing)}")
    return table


def _read_json(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        raise _unreadable(path, "missing") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise _unreadable(path, f"not JSON ({e})") from None
    if not isinstance(doc, dict):
        raise _unreadable(path, "expected a JSON object")
    return doc


def _saved_scale(path: Path) -> Scale:
    """The scale of ``scale.json``: its named scale with the values the file records (a file
    written before a field existed keeps that field's value of the named scale)."""
    import dataclasses

    saved = _read_json(path)
    try:
        sc = get_scale(str(saved.get("name")))
    except ValueError as e:
        raise _unreadable(path, str(e)) from None
    fields = {f.name for f in dataclasses.fields(sc)}
    values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in saved.items() if k in fields}
    return dataclasses.replace(sc, **values)


def render(out: str | os.PathLike[str]) -> Path:
    """Write ``report.md`` and ``report.html`` of a reproduction's output directory again from
    its saved files (``reproduce.json``, ``scale.json``, ``results.csv``, ``figures/`` and
    ``runs/*/config.json``), with the current claims and report code, without running anything.
    Returns the Markdown report's path."""
    d = Path(out)
    meta = _read_json(d / META)
    for key, kind in (("paper", str), ("preset", str), ("figures", list), ("wall_s", (int, float))):
        if not isinstance(meta.get(key), kind):
            raise _unreadable(d / META, f"expected `{key}`")
    if meta["paper"] not in PAPERS:
        raise _unreadable(d / META, f"unknown paper {meta['paper']!r} (expected one of {sorted(PAPERS)})")
    sc = _saved_scale(d / "scale.json")
    figs = experiments.figures(meta["paper"], sc, meta["figures"])
    table = read_results(d)
    files = {f.key: [f"figures/{p.name}" for p in sorted((d / "figures").glob(f"{f.key}.*"))] for f in figs}
    configs = {int(p.parent.name): f"runs/{p.parent.name}/config.json" for p in sorted(d.glob("runs/*/config.json"))}
    _write_reports(d, figs, table, sc, meta, files, configs)
    return d / "report.md"


def describe(paper: str, scale: str | Scale = "default") -> list[dict[str, Any]]:
    """Run counts per figure (and distinct simulations overall) without running anything."""
    sc = get_scale(scale) if isinstance(scale, str) else scale
    return [{"figure": f.key, "runs": len(f.runs), "title": f.title} for f in experiments.figures(paper, sc)]


__all__ = ["SCALES", "Scale", "describe", "get_scale", "read_results", "render", "reproduce"]
