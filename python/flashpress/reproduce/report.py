"""The report: per figure, the seed's stated numbers beside ours, whether the ordering the
seed reports holds, the runs that failed or were skipped, and links to the figure files and
each run's resolved config; plus the scale used and the wall time. It is built once as a
:class:`~flashpress.reproduce.document.Document` and rendered to ``report.md`` and
``report.html``."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from flashpress.reproduce.claims import FAILS, INCONCLUSIVE, NOT_RUN, Claim, Verdict, headline, tally
from flashpress.reproduce.document import Block, Document, Figures, Heading, Items, Paragraph, Quote, Table
from flashpress.reproduce.experiments import LABEL_KEYS, Figure
from flashpress.reproduce.metrics import metric
from flashpress.reproduce.papers import get_paper
from flashpress.reproduce.scale import Scale

if TYPE_CHECKING:
    import pandas as pd

#: Metrics shown in each figure's table of measured values.
SHOWN = (
    "throughput",
    "waf",
    "max_c",
    "first_throttle_s",
    "shutdown_s",
    "host_share",
    "cpu",
    "power",
    "compute",
    "read_rt",
    "write_rt",
    "write_count",
    "read_count",
    "partial_reads",
    "decompress_share",
    "read_energy",
    "conflict_share",
    "conflict_split_share",
    "split_pages",
    "split_table_mib",
    "lz4_saving",
    "partial_zero_share",
    "data_saving",
    "dominant_first",
    "dominant_second",
)
TIME_METRICS = {"first_throttle_s", "shutdown_s"}


def _mean(vals: list[float | None]) -> float | None:
    got = [v for v in vals if v is not None]
    return sum(got) / len(got) if got else None


def _cell(v: Any, fmt: str = ".3g") -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, float):
        return format(v, fmt)
    return str(v).replace("|", "\\|").replace("\n", " ")


RULES = (
    "Each statement of the seed is a claim of one kind, scored by one rule set "
    "(`flashpress.reproduce.claims`): an *ordering* holds when its sign matches the seed's and its size is "
    "outside the noise band (the larger of 1% and the spread over the seeds run), inside the band it is "
    "*inconclusive*; a number the seed states is a *magnitude* and holds within a factor of 2 of it (±10 "
    'points for values in points), and a stated change must hold as an ordering too; "up to X" is scored on '
    "the largest change among the runs it covers; size words (*slightly* at most 15%, *significantly* at "
    "least 20%, *comparable* within 10%, *insignificant* within the noise band or 3%) are scored against "
    "those bands; *similar* holds inside its tolerance when the runs differ at all (identical runs mean an "
    "inactive mechanism: inconclusive); an *event* must happen in every run it covers; a *bound* has a limit "
    "from the seed's number; a *baseline fact* is a statement about the baseline system itself. Values our "
    "model is fitted to are *fitted* and values the configuration decides are *by construction*: both shown, "
    "never scored. Statements no experiment checks yet are *not run* and count as not holding."
)


def _claim_row(c: Claim, v: Verdict) -> list[str]:
    unit = f" {c.unit}" if len(c.unit) > 1 and c.unit.isalpha() else c.unit
    seed_v = "" if c.seed_value is None else f"{c.seed_value:g}{unit}"
    measured = "-" if v.measured is None else f"{v.measured:.1f}{unit}"
    return [_cell(c.seed), c.kind, seed_v, measured, f"**{v.status}**", _cell(v.why)]


CLAIM_HEAD = ["seed says", "kind", "seed value", "measured", "status", "why"]


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], status: Sequence[str | None] = ()) -> Table:
    return Table(tuple(head), tuple(tuple(r) for r in rows), tuple(status))


def _given(v: Any) -> bool:
    """A value is given unless it is None or NaN (a results table read back from a file has NaN
    where the runs gave None)."""
    return v is not None and not (isinstance(v, float) and math.isnan(v))


def _num(r: dict[str, Any], k: str) -> float:
    """A result column as a number (0 when missing)."""
    v = r.get(k)
    return 0.0 if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def _records(table: pd.DataFrame) -> list[dict[str, Any]]:
    return [{str(k): v for k, v in r.items()} for r in table.to_dict("records")] if len(table) else []


def _first_run(recs: list[dict[str, Any]], figure: str, scheme: str, workload: str) -> dict[str, Any] | None:
    """The completed first-seed run of ``scheme`` on ``workload`` in ``figure``."""
    return next(
        (
            x
            for x in recs
            if x.get("figure") == figure
            and x.get("scheme") == scheme
            and x.get("workload") == workload
            and x.get("status") == "ok"
            and _num(x, "rep") == 0
        ),
        None,
    )


def build_report(
    paper: str,
    figs: Sequence[Figure],
    table: pd.DataFrame,
    scale: Scale,
    *,
    figure_files: dict[str, list[str]],
    wall_s: float,
    preset: str,
    configs: Mapping[int, str] | None = None,
    cores: int | None = None,
    controller: str = "preset",
) -> Document:
    """The report as a document. ``figure_files`` maps a figure key to its files and ``configs``
    a run number (the table's ``run``) to its resolved config, paths relative to the report;
    ``cores``: the cores of the machine that ran the lossy study (default: this machine's)."""
    configs = configs or {}
    n = len(table)
    status = table["status"].value_counts().to_dict() if n else {}
    unique_runs = table["run"].dropna().nunique() if n and "run" in table.columns else 0
    spec = get_paper(paper)
    about = spec.about(scale, preset, cores)
    if controller == "realistic":
        about += (
            " Every run's controller is the `default` preset's instead of the preset's (`--controller realistic`): "
            "read priority, program/erase suspension, preemptible GC in steps, least-busy allocation."
        )
    shown_scale = spec.scale_shown(scale)
    all_claims = spec.claims()
    known = {f.key for f in spec.figures(scale)}
    selected = {f.key for f in figs}
    chosen = [c for c in all_claims if c.figure in selected or c.figure not in known]
    everything: list[tuple[Claim, Verdict]] = [(c, c.check(table, scale)) for c in chosen]
    verdicts = [(c, v) for c, v in everything if not c.ours]
    checks = [(c, v) for c, v in everything if c.ours]
    doc = Document()
    doc.add(
        Heading(1, f"Reproduction: {spec.title}"),
        Paragraph(headline(tally(v for _, v in verdicts), tally(v for _, v in checks) if checks else None)),
        Paragraph(about),
        Paragraph(RULES),
        Paragraph(
            f"{n} figure runs ({unique_runs} distinct simulations): "
            + ", ".join(f"{status.get(s, 0)} {s}" for s in ("ok", "failed", "skipped"))
            + f". Wall time {wall_s:.1f} s."
        ),
        Paragraph(spec.testbed),
        Heading(2, "Scale"),
        _table(["parameter", "value"], [[k, _cell(v)] for k, v in shown_scale.items()]),
    )
    if spec.tables is not None:
        doc.add(*spec.tables(table))
    by_fig: dict[str, list[tuple[Claim, Verdict]]] = {}
    for c, v in verdicts:
        by_fig.setdefault(c.figure, []).append((c, v))
    for fig in figs:
        rows = table[table["figure"] == fig.key] if n else table
        doc.add(Heading(2, f"{fig.key}: {fig.title}"))
        if figure_files.get(fig.key):
            doc.add(Figures(fig.key, tuple(figure_files[fig.key])))
        doc.add(*(Quote(note) for note in fig.notes))
        if by_fig.get(fig.key):
            doc.add(
                _table(
                    CLAIM_HEAD,
                    [_claim_row(c, v) for c, v in by_fig[fig.key]],
                    [v.status for _, v in by_fig[fig.key]],
                )
            )
        recs = [{str(k): val for k, val in r.items()} for r in rows.to_dict("records")]
        every = SHOWN + spec.shown
        shown = [m for m in every if any(metric(r, m) is not None for r in recs)]
        labels = [k for k in LABEL_KEYS if any(_given(r.get(k)) for r in recs)]
        if fig.analysis is not None:
            # A data study has a row per workload and configuration: the mean over the workloads.
            groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
            for r in recs:
                groups.setdefault((r.get("scheme"), r.get("variant")), []).append(r)
            recs = [
                {
                    "run_id": "mean of " + ", ".join(str(x.get("workload")) for x in rs),
                    "scheme": k[0],
                    "variant": k[1],
                    "status": "ok",
                    **{m: _mean([metric(x, m) for x in rs]) for m in shown},
                }
                for k, rs in groups.items()
            ]
            labels = [k for k in ("scheme", "variant") if any(_given(r.get(k)) for r in recs)]
        mrows = []
        for r in recs:
            vals = []
            for m in shown:
                val = metric(r, m)
                if val is not None and m in TIME_METRICS:
                    val = scale.paper_seconds(val)
                vals.append(_cell(val))
            run = _run_cell(r, configs)
            mrows.append([run, *(_cell(r.get(k)) for k in labels), _cell(r.get("status")), *vals])
        if mrows:
            doc.add(Paragraph("Measured:"), _table(["run", *labels, "status", *shown], mrows))
        bad = [r for r in recs if r.get("status") != "ok"]
        if bad:
            doc.add(
                Paragraph("Runs without results:"),
                Items(tuple(f"`{r['run_id']}` {r['status']}: {_cell(r.get('error'))}" for r in bad)),
            )
    unrun = [(c, v) for c, v in verdicts if c.figure not in known]
    if unrun:
        doc.add(
            Heading(2, "Statements no experiment checks yet"),
            _table(
                ["figure", *CLAIM_HEAD], [[c.figure, *_claim_row(c, v)] for c, v in unrun], [v.status for _, v in unrun]
            ),
        )
    if checks:
        doc.add(
            Heading(2, "Our own checks"),
            Paragraph(
                "Checks of the model that the seed does not state (sanity checks, variants the seed never "
                "describes, our planner's accuracy): scored by the same rules, not counted in the headline."
            ),
            _table(
                ["figure", *CLAIM_HEAD],
                [[c.figure, *_claim_row(c, v)] for c, v in checks],
                [v.status for _, v in checks],
            ),
        )
    exceptions = [c for c, _ in everything if c.tolerance]
    if exceptions:
        doc.add(
            Heading(2, "Claims with a tolerance of their own"),
            Paragraph("Every other claim uses the standard rules above; these say why they do not."),
            _table(
                ["figure", "seed says", "tolerance and why"],
                [[c.figure, _cell(c.seed), _cell(c.tolerance)] for c in exceptions],
            ),
        )
    doc.add(*_null_blocks(paper, chosen, table, scale))
    misses = [
        (c, v)
        for c, v in everything
        if v.status in (FAILS, INCONCLUSIVE) or (v.status == NOT_RUN and c.figure in known)
    ]
    if misses:
        items = []
        for c, v in misses:
            cause = f" Cause: {c.cause}" if c.cause else ""
            items.append(f"**{v.status}** ({c.figure}) {_cell(c.seed)}: {_cell(v.why)}.{cause}")
        doc.add(Heading(2, "Claims that do not hold, and why"), Items(tuple(items), tuple(v.status for _, v in misses)))
    return doc


def _null_blocks(paper: str, claims: list[Claim], table: pd.DataFrame, scale: Scale) -> list[Block]:
    """The null model's result: which claims would hold if no scheme did anything."""
    from flashpress.reproduce.null import exempt, null_check

    holds = null_check(paper, table, scale, claims)
    tested = sum(1 for c in claims if not exempt(c))
    text = (
        f"Null model: {tested} claims scored again with every scheme's results replaced by its baseline's, and "
        "those that hold scored with every scheme's change against its baseline reversed (baseline facts, fitted "
        "and by-construction "
        f"claims are exempt). {len({id(h.claim) for h in holds})} still hold"
    )
    if not holds:
        return [Heading(2, "Null model"), Paragraph(text + ": no claim holds whatever the schemes do.")]
    return [
        Heading(2, "Null model"),
        Paragraph(text + ", so they cannot fail and say nothing about the schemes:"),
        Items(tuple(f"({h.model}) {h.claim.figure}: {_cell(h.claim.seed)}: {_cell(h.verdict.why)}" for h in holds)),
    ]


def _run_cell(r: Mapping[str, Any], configs: Mapping[int, str]) -> str:
    """A measured row's run id, linked to its resolved config when there is one."""
    text = _cell(r.get("run_id"))
    run: Any = r.get("run")
    path = configs.get(int(run)) if _given(run) else None
    if path is None:
        return text
    label = text.replace("[", "\\[").replace("]", "\\]")
    return f"[{label}]({path})"


def write_report(
    paper: str,
    figs: Sequence[Figure],
    table: pd.DataFrame,
    scale: Scale,
    *,
    figure_files: dict[str, list[str]],
    wall_s: float,
    preset: str,
    configs: Mapping[int, str] | None = None,
    cores: int | None = None,
    controller: str = "preset",
) -> str:
    """The report's Markdown text (see :func:`build_report`)."""
    doc = build_report(
        paper,
        figs,
        table,
        scale,
        figure_files=figure_files,
        wall_s=wall_s,
        preset=preset,
        configs=configs,
        cores=cores,
        controller=controller,
    )
    return doc.markdown()


__all__ = ["build_report", "write_report"]
