"""Figures as data, for every paper: a :class:`Figure` is a list of :class:`RunSpec` (labels and
the config overrides, dotted keys merged over the paper's preset, that make a run), or a data
study that makes its rows itself. Each paper's package (:mod:`flashpress.reproduce.papers`) builds
its figures from these; :func:`figures` asks the paper registry for them.

Nothing here talks to the core: the runner resolves :class:`PresetValue` placeholders against
the preset, validates every config and runs them (:mod:`flashpress.reproduce.runner`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from flashpress.reproduce.scale import Scale

#: Label columns of the results table, in this order (None where a label does not apply).
LABEL_KEYS = (
    "scheme",
    "pattern",
    "personality",
    "workload",
    "channels",
    "codec",
    "rs",
    "fill",
    "ratio",
    "sc",
    "variant",
    "rep",
)


@dataclass(frozen=True)
class PresetValue:
    """A value read from the resolved preset at run time: ``preset[key] * factor`` (rounded
    down to a multiple of ``align`` when given, at least ``minimum``)."""

    key: str
    factor: float = 1.0
    align: int | None = None
    minimum: float | None = None

    def resolve(self, value: Any) -> Any:
        if self.factor == 1.0 and self.align is None and self.minimum is None:
            return value
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise TypeError(f"preset key `{self.key}` is {value!r}, not a number to scale")
        v: float = value * self.factor
        if self.minimum is not None:
            v = max(v, self.minimum)
        if self.align is not None:
            return max(self.align, int(v) // self.align * self.align)
        return round(v) if isinstance(value, int) else v


@dataclass(frozen=True)
class RunSpec:
    """One simulation of a figure: its id (unique within the figure), labels and overrides."""

    run_id: str
    labels: Mapping[str, Any]
    overrides: Mapping[str, Any]
    #: Keep the run's timeline (temperature and throughput against time).
    timeline: bool = False
    #: The run depends on a config key the core may not support; if the core rejects the
    #: config, the run is reported as skipped (with the core's message) instead of failing.
    optional: bool = False
    note: str = ""
    #: Keep the run's latency CDFs of the requests that overlapped GC.
    cdf: bool = False

    def label(self, key: str) -> Any:
        return self.labels.get(key)


@dataclass(frozen=True)
class Figure:
    """One figure of a seed: key (``fig14``, ``coco-power``), caption, plot kind, runs."""

    key: str
    paper: str
    title: str
    kind: str
    runs: tuple[RunSpec, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: A study of data rather than a simulation (no runs): makes the figure's result rows (with
    #: ``figure``, ``run_id``, ``status`` and its labels) from the scale.
    analysis: Callable[[Scale], list[dict[str, Any]]] | None = None
    #: Makes the input files the given runs read (generated traces), after planning and
    #: before any run; called once per distinct function with the runs of every figure
    #: selected that names it.
    prepare: Callable[[Scale, Sequence[RunSpec]], None] | None = None
    #: The runs carry their own seed repeats (their inputs depend on the seed), so
    #: :func:`with_seeds` leaves them as they are.
    seeded: bool = False


def _labels(**kw: Any) -> dict[str, Any]:
    unknown = set(kw) - set(LABEL_KEYS)
    if unknown:
        raise ValueError(f"unknown label keys {sorted(unknown)}")
    return {k: kw.get(k) for k in LABEL_KEYS}


def normalise_figure_key(text: str) -> str:
    """``14``, ``fig14``, ``Fig 14`` -> ``fig14``; ``6a`` -> ``fig6a``, ``17b`` -> ``fig17b``;
    other keys (``power``) lower-cased."""
    t = text.strip().lower().replace(" ", "")
    m = re.fullmatch(r"(?:fig)?0*(\d+)([a-z]?)", t)
    if m:
        return f"fig{int(m.group(1))}{m.group(2)}"
    return t


def with_seeds(fig: Figure, seeds: int) -> Figure:
    """Every run of ``fig`` repeated with seeds 1..``seeds`` (label ``rep`` 0..``seeds``-1)."""
    if seeds < 1:
        raise ValueError(f"a scale needs at least one seed, got {seeds}")
    if seeds == 1 or fig.seeded:
        return fig
    runs = tuple(
        replace(
            r,
            run_id=f"{r.run_id}/seed{k + 1}",
            labels={**r.labels, "rep": k},
            overrides={**r.overrides, "seed": k + 1},
        )
        for r in fig.runs
        for k in range(seeds)
    )
    return replace(fig, runs=runs)


def figures(paper: str, scale: Scale, only: Iterable[str] | None = None) -> list[Figure]:
    """The figures of ``paper`` (a key of :data:`~flashpress.reproduce.papers.PAPERS`) at
    ``scale``, each run repeated over the scale's seeds; ``only``: some of them, by key."""
    from flashpress.reproduce.papers import get_paper

    figs = [with_seeds(f, scale.seeds) for f in get_paper(paper).figures(scale)]
    if only is None:
        return figs
    wanted = [normalise_figure_key(o) for o in only if o.strip()]
    known = [f.key for f in figs]
    unknown = [w for w in wanted if w not in known]
    if unknown:
        raise ValueError(f"unknown figure {unknown[0]!r} for {paper} (expected one of: {', '.join(known)})")
    return [f for f in figs if f.key in wanted]


__all__ = ["LABEL_KEYS", "Figure", "PresetValue", "RunSpec", "figures", "normalise_figure_key", "with_seeds"]
