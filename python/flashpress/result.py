"""``Result``: a finished run's config, summary, timeline and latency CDFs, and how to write
them to a results directory without ever leaving a half-written one behind."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

from flashpress import _core
from flashpress.config import Config
from flashpress.errors import OutputExistsError

if TYPE_CHECKING:
    import pandas as pd

TimelineFormat = Literal["parquet", "csv"]


def check_out_dir(out_dir: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
    """Raise OutputExistsError if ``out_dir`` is a file, or a non-empty directory and not
    ``overwrite``; return its absolute path."""
    out = Path(out_dir).absolute()
    if out.exists() and not out.is_dir():
        raise OutputExistsError(f"{out_dir}: exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        raise OutputExistsError(
            f"{out_dir}: output directory exists and is not empty (use --force / overwrite=True to replace it)"
        )
    return out


class AtomicFile:
    """A text file written under a temporary name of its own (unique per writer, in the
    target's folder) and renamed to ``path`` only when complete; removed on an error."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def __enter__(self) -> IO[str]:
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.name + ".", suffix=".tmp")
        self.tmp = Path(tmp)
        self.f = os.fdopen(fd, "w")
        return self.f

    def __exit__(self, kind: object, *rest: object) -> None:
        self.f.close()
        if kind is None:
            self.tmp.replace(self.path)
        else:
            self.tmp.unlink(missing_ok=True)


@contextlib.contextmanager
def atomic_dir(out_dir: str | os.PathLike[str], *, overwrite: bool = False) -> Iterator[Path]:
    """Yield a temporary sibling directory of ``out_dir``; when the block succeeds, it is
    renamed to ``out_dir``; when it fails, it is removed and ``out_dir`` is left untouched.

    An existing non-empty ``out_dir`` raises OutputExistsError unless ``overwrite``.
    """
    out = check_out_dir(out_dir, overwrite=overwrite)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    umask = os.umask(0)
    os.umask(umask)
    tmp.chmod(0o777 & ~umask)  # mkdtemp makes 0700; results are ordinary files for others to read
    try:
        yield tmp
        if out.exists():
            # Move the old directory aside first so a crash never leaves a mix of both.
            trash = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
            os.replace(out, trash / "old")
            os.replace(tmp, out)
            shutil.rmtree(trash, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


class Result:
    """What a run produced. ``summary`` is ``summary.json`` as a dict; ``timeline`` and
    ``latency_cdf(op)`` are pandas DataFrames."""

    def __init__(self, config: Config, report: _core.Report) -> None:
        self.config = config
        self._report = report
        self.summary_json: str = report.summary_json()
        self.summary: dict[str, Any] = json.loads(self.summary_json)

    @cached_property
    def timeline(self) -> pd.DataFrame:
        """One row per sampling interval (``stats.interval_ms``), except that an idle stretch
        (no request in flight, nothing changing) keeps only its first and last interval, so
        ``time_s`` (the end of each row's interval) can jump; ``df.attrs["units"]`` and
        ``df.attrs["descriptions"]`` map each column to its unit and one-line description."""
        import pandas as pd

        cols = self._report.timeline_columns()
        df = pd.DataFrame({name: pd.Series(values, dtype="float64") for name, _, _, values in cols})
        df.attrs["units"] = {name: unit for name, unit, _, _ in cols}
        df.attrs["descriptions"] = {name: desc for name, _, desc, _ in cols}
        return df

    def latency_cdf(self, op: str = "read", during_gc: bool = False) -> pd.DataFrame:
        """Latency CDF of ``op`` (``"read"`` or ``"write"``): columns ``latency_us`` and
        ``cumulative`` (fraction of requests with at most that latency), increasing. With
        ``during_gc``, of the requests that waited while a GC job was on one of their planes
        (``summary[op]["during_gc"]``; empty in ``[stack]`` runs)."""
        import pandas as pd

        ns, cum = self._report.latency_cdf(op, during_gc)
        df = pd.DataFrame(
            {
                "latency_us": pd.Series(ns, dtype="float64") / 1e3,
                "cumulative": pd.Series(cum, dtype="float64"),
            }
        )
        df.attrs["units"] = {"latency_us": "us", "cumulative": "fraction"}
        return df

    def timeline_csv(self) -> str:
        """The timeline as CSV text, as the core writes it."""
        return self._report.timeline_csv()

    def latency_cdf_csv(self) -> str:
        """``latency_cdf.csv`` as text: columns ``op`` (``read``, ``write``,
        ``read_during_gc``, ``write_during_gc``), ``latency_ns`` and ``cumulative``."""
        return self._report.latency_cdf_csv()

    def write(
        self,
        out_dir: str | os.PathLike[str],
        timeline_format: TimelineFormat = "parquet",
        *,
        overwrite: bool = False,
    ) -> Path:
        """Write ``config.json``, ``summary.json``, ``timeline.parquet`` (or ``.csv``) and
        ``latency_cdf.csv`` to ``out_dir``, atomically. Returns the directory.

        Every file comes from the core as text or bytes: writing imports neither pandas nor
        pyarrow (``flashpress run --out`` stays as light as a run without it)."""
        if timeline_format not in ("parquet", "csv"):
            raise ValueError(f"timeline_format must be 'parquet' or 'csv', not {timeline_format!r}")
        with atomic_dir(out_dir, overwrite=overwrite) as tmp:
            (tmp / "config.json").write_text(self.config.to_json())
            (tmp / "summary.json").write_text(self.summary_json)
            if timeline_format == "parquet":
                self._write_parquet(tmp / "timeline.parquet")
            else:
                (tmp / "timeline.csv").write_text(self.timeline_csv())
            (tmp / "latency_cdf.csv").write_text(self.latency_cdf_csv())
        return Path(out_dir)

    def _write_parquet(self, path: Path) -> None:
        self._report.write_timeline_parquet(str(path))

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<Result requests_completed={s.get('requests_completed')} waf={s.get('waf')} "
            f"sim_time_s={s.get('sim_time_s')}>"
        )
