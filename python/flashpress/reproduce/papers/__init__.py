"""The reproduced papers: one package each (``papers/<key>/``: experiments, claims, causes and
data studies), registered here by name. A paper's package exposes ``PAPER``, a :class:`Paper`
that tells the shared machinery (runner, claim rules, report, figures) everything it needs; the
shared modules import no paper, they ask :func:`get_paper`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from flashpress.reproduce.experiments import LABEL_KEYS

if TYPE_CHECKING:
    import pandas as pd

    from flashpress.reproduce.claims import Claim
    from flashpress.reproduce.document import Block
    from flashpress.reproduce.experiments import Figure
    from flashpress.reproduce.scale import Scale

#: Every reproduced paper, by the key `flashpress reproduce` takes.
PAPERS = ("waltz", "coco", "prssd", "cagc", "lossy")


@dataclass(frozen=True)
class Paper:
    """What the shared machinery needs to know of one paper."""

    key: str
    #: The paper's title, as the report's heading gives it.
    title: str
    #: The preset its runs are merged over.
    preset: str
    #: One sentence on the seed's testbed against ours.
    testbed: str
    #: Its figures at a scale (before seed repeats).
    figures: Callable[[Scale], list[Figure]]
    #: Its statements as claims (the seed's, and our own checks marked as such).
    claims: Callable[[], list[Claim]]
    #: The report's opening paragraph: what was run, at which scale (scale, preset, cores).
    about: Callable[[Scale, str, int | None], str]
    #: The scale parameters the report lists.
    scale_shown: Callable[[Scale], dict[str, Any]]
    #: Metrics shown in each figure's table besides the common ones.
    shown: tuple[str, ...] = ()
    #: Extra report blocks after the scale (a workload table beside the seed's, say).
    tables: Callable[[pd.DataFrame], list[Block]] | None = None
    #: Plot kinds of its own (``Figure.kind`` -> plotter), besides the shared ones.
    plotters: Mapping[str, Any] = field(default_factory=dict)
    #: The baseline of each label that names a scheme (the null model replaces every other
    #: value's results by the baseline's; :mod:`flashpress.reproduce.null`).
    baselines: Mapping[str, str] = field(default_factory=lambda: {"scheme": "Baseline"})
    #: Figures whose runs compare schemes with each other and have no baseline run: the run
    #: each is nulled against, per label (``{"fig19": {"scheme": "PR"}}``).
    figure_baselines: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    #: The result columns that identify a run (the null model pairs runs by them and replaces
    #: every other column); the shared label keys unless a paper's rows carry others.
    run_labels: tuple[str, ...] = LABEL_KEYS


def get_paper(key: str) -> Paper:
    """The registered paper ``key`` (its package imported on first use)."""
    if key not in PAPERS:
        raise ValueError(f"unknown paper {key!r} (expected one of: {', '.join(PAPERS)})")
    paper: Paper = importlib.import_module(f"{__name__}.{key}").PAPER
    return paper


def claims(key: str) -> list[Claim]:
    """The statements of paper ``key`` as claims."""
    return get_paper(key).claims()


def presets() -> dict[str, str]:
    """Each paper's preset."""
    return {k: get_paper(k).preset for k in PAPERS}


def stack_about(scale: Scale, preset: str, cores: int | None) -> str:
    """The opening paragraph of the storage-stack papers (Waltz and COCO: scaled time and space)."""
    return (
        f"Preset `{preset}` at scale **{scale.name}**: time x {scale.time_scale:g}, space x "
        f"{scale.space_scale:g}. Run times and the control loops' time constants (thermal τ, S.M.A.R.T. "
        "polling, OSA period) are scaled together; times below are divided back by the time scale, so they "
        "compare with the seed's seconds."
    )


def stack_scale(scale: Scale) -> dict[str, Any]:
    """The scale parameters of the storage-stack papers."""
    return {k: v for k, v in scale.to_dict().items() if not k.startswith(("prssd_", "cagc_", "lossy_"))}


def prefixed_scale(prefix: str) -> Callable[[Scale], dict[str, Any]]:
    """The scale parameters whose names start with ``prefix``, with the scale's name and seeds."""

    def shown(scale: Scale) -> dict[str, Any]:
        return {k: v for k, v in scale.to_dict().items() if k.startswith(prefix) or k in ("name", "seeds")}

    return shown


__all__ = ["PAPERS", "Paper", "claims", "get_paper", "prefixed_scale", "presets", "stack_about", "stack_scale"]
