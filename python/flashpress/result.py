"""``Result``: a finished run's config, summary, timeline and latency CDFs, and how to write
them to a results directory without ever leaving a half-written one behind."""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import os
import stat
import sys
from functools import cached_property

from flashpress import _core
from flashpress.config import TYPE_CHECKING, Config
from flashpress.errors import OutputExistsError, OutputPathError

# `pathlib` is imported by the functions that write results, not here: a run without --out never
# needs it (with the `urllib.parse`, `ipaddress` and `fnmatch` it loads, 0.5 MiB of its peak RSS).
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path
    from typing import IO, Any, Literal, TypeAlias

    import pandas as pd

    TimelineFormat: TypeAlias = Literal["parquet", "csv"]


def check_out_dir(out_dir: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
    """Raise OutputExistsError if ``out_dir`` is a file, or a non-empty directory and not
    ``overwrite``; return its absolute path. Leftovers of earlier killed writers of
    ``out_dir`` are dealt with first (see :func:`recover_leftovers`)."""
    from pathlib import Path

    out = Path(out_dir).absolute()
    recover_leftovers(out)
    if out.exists() and not out.is_dir():
        raise OutputExistsError(f"{out_dir}: exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        kept = _work_path(out)
        hint = (
            f"; an interrupted run's finished work is kept in {kept.name}/ and --force resumes it"
            if kept.is_dir()
            else ""
        )
        raise OutputExistsError(
            f"{out_dir}: output directory exists and is not empty (use --force / overwrite=True to replace it{hint})"
        )
    return out


# -- writers' temporary folders --------------------------------------------------------------
#
# A writer of D works in hidden siblings named after itself: ``.D.tmp-<pid>-<start>-<random>``
# (the new results, or the old ones after an exchange) and, where the kernel cannot exchange two
# directories, ``.D.old-<pid>-<start>-<random>`` (the old results between the two renames of an
# overwrite). <start> is the process's start time (Linux: clock ticks since boot), so a reused pid
# is not taken for the writer. A later writer of D removes the folders of writers that are gone,
# and puts an old D back if its writer died between the two renames.


def _start_ticks(pid: int) -> int:
    """The start time of process ``pid`` (clock ticks since boot; 0 where /proc is missing)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
        # Field 22; the command name (field 2) may hold spaces and parentheses: count from its end.
        return int(stat[stat.rindex(")") + 2 :].split()[19])
    except (OSError, ValueError, IndexError):
        return 0


@functools.cache
def _owner_tag() -> str:
    pid = os.getpid()
    return f"{pid}-{_start_ticks(pid)}"


def _owner_alive(pid: int, start: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, someone else's
    return start == 0 or _start_ticks(pid) in (0, start)


def _work_path(out: Path) -> Path:
    """The resumable work folder of ``out`` (see :class:`WorkDir`)."""
    return out.parent / f".{out.name}.partial"


def recover_leftovers(out_dir: str | os.PathLike[str]) -> None:
    """Clean up after earlier writers of ``out_dir`` that were killed: remove their temporary
    folders, and when one died between the two renames of an overwrite (``out_dir`` missing, the
    old results aside), rename the old results back (said on the ``flashpress`` logger).
    Folders of writers still running are left alone."""
    import logging
    import shutil
    from pathlib import Path

    out = Path(out_dir).absolute()
    try:
        entries = sorted(out.parent.iterdir())
    except OSError:
        return
    for entry in entries:
        for kind in ("tmp", "old"):
            prefix = f".{out.name}.{kind}-"
            if not entry.name.startswith(prefix):
                continue
            pid, _, rest = entry.name[len(prefix) :].partition("-")
            start, _, _ = rest.partition("-")
            if not (pid.isdigit() and start.isdigit()) or _owner_alive(int(pid), int(start)):
                continue  # a running writer's, or not ours to judge
            if kind == "old" and not out.exists():
                os.replace(entry, out)
                logging.getLogger("flashpress").warning(
                    "flashpress: %s was missing after an interrupted overwrite; its earlier results were put back",
                    out,
                )
            elif entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two directories in one step (Linux renameat2 RENAME_EXCHANGE); False where the
    kernel, the C library or the file system cannot."""
    import ctypes

    if not sys.platform.startswith("linux"):
        return False
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    renameat2.restype = ctypes.c_int
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _commit(tmp: Path, out: Path) -> None:
    """Put the finished directory ``tmp`` at ``out``, replacing what is there without a moment
    in which ``out`` is missing (or, without an exchange, with the old results recoverable by
    :func:`recover_leftovers` if this process dies in between)."""
    import secrets
    import shutil

    if not out.exists():
        os.replace(tmp, out)
    elif _exchange(tmp, out):
        shutil.rmtree(tmp, ignore_errors=True)  # now the old results
    else:
        old = out.parent / f".{out.name}.old-{_owner_tag()}-{secrets.token_hex(4)}"
        os.replace(out, old)
        os.replace(tmp, out)
        shutil.rmtree(old, ignore_errors=True)


def _temp_dir(out: Path) -> Path:
    import tempfile
    from pathlib import Path

    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-{_owner_tag()}-", dir=out.parent))
    umask = os.umask(0)
    os.umask(umask)
    tmp.chmod(0o777 & ~umask)  # mkdtemp makes 0700; results are ordinary files for others to read
    return tmp


def check_output_file(path: Path) -> None:
    """Refuse an output file path that is not, or would not become, a regular file in an existing
    folder: the rename that commits a result replaces whatever is at ``path``, so a device node, a
    fifo, a socket or a folder there must never be touched, and no folder is created that the
    user did not ask for."""
    parent = path.parent
    if not parent.is_dir():
        what = "does not exist" if not parent.exists() else "is not a folder"
        raise OutputPathError(f"{path}: cannot write a result file there: its folder {parent} {what}")
    try:
        st = path.stat()
    except FileNotFoundError:
        return
    except OSError as e:
        raise OutputPathError(f"{path}: cannot write a result file there: {e.strerror}") from e
    if not stat.S_ISREG(st.st_mode):
        kinds = {
            stat.S_ISDIR: "a folder",
            stat.S_ISCHR: "a character device",
            stat.S_ISBLK: "a block device",
            stat.S_ISFIFO: "a fifo",
            stat.S_ISSOCK: "a socket",
        }
        kind = next((k for f, k in kinds.items() if f(st.st_mode)), "not a regular file")
        raise OutputPathError(f"{path}: is {kind}; a result file is written only to a regular file (or a new name)")


class AtomicFile:
    """A text file written under a temporary name of its own (``.NAME.tmp-<pid>-<start>-*``
    in the target's folder, so the next writer removes it if this process is killed) and
    renamed to ``path`` only when complete; removed on an error."""

    def __init__(self, path: str | os.PathLike[str], *, recover: bool = True) -> None:
        from pathlib import Path

        self.path = Path(path)
        self.recover = recover

    def __enter__(self) -> IO[str]:
        import tempfile
        from pathlib import Path

        check_output_file(self.path)
        if self.recover:
            recover_leftovers(self.path)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.tmp-{_owner_tag()}-")
        self.tmp = Path(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(fd, 0o666 & ~umask)  # mkstemp makes 0600; results are for others to read
        self.f = os.fdopen(fd, "w")
        return self.f

    def __exit__(self, kind: object, *rest: object) -> None:
        self.f.close()
        if kind is None:
            try:
                check_output_file(self.path)  # nothing else put a non-regular file there meanwhile
                self.tmp.replace(self.path)
            except BaseException:
                self.tmp.unlink(missing_ok=True)
                raise
        else:
            self.tmp.unlink(missing_ok=True)


@contextlib.contextmanager
def atomic_dir(out_dir: str | os.PathLike[str], *, overwrite: bool = False) -> Iterator[Path]:
    """Yield a temporary sibling directory of ``out_dir``; when the block succeeds, it is
    renamed to ``out_dir``; when it fails, it is removed and ``out_dir`` is left untouched.

    An existing non-empty ``out_dir`` raises OutputExistsError unless ``overwrite``; it is
    replaced without a moment in which ``out_dir`` is missing (an exchange where the kernel
    has one, else two renames that the next writer completes or undoes if this one dies).
    """
    import shutil

    out = check_out_dir(out_dir, overwrite=overwrite)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temp_dir(out)
    try:
        yield tmp
        _commit(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


@functools.cache
def _build_id() -> str:
    """What identifies this flashpress: its version and the SHA-256 of the extension module
    (a rebuilt core with the same version number is another build)."""
    import hashlib

    digest = hashlib.sha256()
    with open(_core.__file__, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return f"{_core.__version__}+{digest.hexdigest()[:16]}"


def _input_files(node: Any) -> Iterator[str]:
    """Every string in a config (parsed JSON) that names an existing file: traces, job files,
    content files a run reads."""
    if isinstance(node, dict):
        for v in node.values():
            yield from _input_files(v)
    elif isinstance(node, list):
        for v in node:
            yield from _input_files(v)
    elif isinstance(node, str) and 0 < len(node) < 4096 and os.path.isfile(node):
        yield node


def task_key(kind: str, config_json: str, *extra: Any) -> str:
    """The key of one task's result: SHA-256 of what determines it: ``kind``, the resolved
    config's JSON (which holds the seed), the size and modification time of each file it names
    (a trace edited in place is another input), ``extra`` and this flashpress build."""
    import hashlib

    stamps = []
    for path in sorted(set(_input_files(json.loads(config_json)))):
        st = os.stat(path)
        stamps.append([path, st.st_size, st.st_mtime_ns])
    text = json.dumps([kind, _build_id(), config_json, stamps, *extra], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class WorkDir:
    """The resumable work folder of an output directory ``D``: ``.D.partial`` beside it.

    Each finished task's result is kept there as it completes (``done/<key>.json``, written
    atomically, keyed by :func:`task_key`), so a rerun on the same ``D`` reuses every result
    whose key matches. When every task is done, the final files are written into the folder,
    the kept results are dropped and the folder is renamed to ``D`` (see :func:`_commit`):
    ``D`` is complete or absent, and an unfinished run never looks finished. One process at a
    time works in a folder (an advisory lock); use it as a context manager.
    """

    def __init__(self, out_dir: str | os.PathLike[str], *, overwrite: bool = False) -> None:
        self.out = check_out_dir(out_dir, overwrite=overwrite)
        self.path = _work_path(self.out)
        self._fd: int | None = None

    def __enter__(self) -> WorkDir:
        import fcntl
        import shutil

        self.out.parent.mkdir(parents=True, exist_ok=True)
        self.path.mkdir(exist_ok=True)
        fd = os.open(self.path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise OutputExistsError(
                f"{self.out}: another flashpress process is writing this output (its {self.path.name}/ is locked)"
            ) from None
        self._fd = fd
        # Final files of a run killed while writing them are written again; kept results stay.
        for entry in self.path.iterdir():
            if entry.name == "done":
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        (self.path / "done").mkdir(exist_ok=True)
        for stray in (self.path / "done").glob(".*"):
            stray.unlink()  # an AtomicFile of a killed run
        return self

    def __exit__(self, *exc: object) -> None:
        import shutil

        if self._fd is not None:
            # A run that kept nothing (a scheduler that could not be reached, a Ctrl-C before
            # the first result) leaves no work folder behind: it would hold nothing to resume.
            done = self.path / "done"
            if done.is_dir() and not any(done.iterdir()):
                shutil.rmtree(self.path, ignore_errors=True)
            os.close(self._fd)  # releases the lock; the kept results stay for a rerun
            self._fd = None

    def keys(self) -> set[str]:
        """The keys of the results kept so far."""
        return {p.stem for p in (self.path / "done").glob("*.json")}

    def get(self, key: str) -> Any:
        """The result kept under ``key`` (None when there is none)."""
        try:
            return json.loads((self.path / "done" / f"{key}.json").read_text())
        except FileNotFoundError:
            return None

    def put(self, key: str, value: Any) -> None:
        """Keep ``value`` (JSON-serialisable) under ``key``, atomically."""
        with AtomicFile(self.path / "done" / f"{key}.json", recover=False) as f:
            json.dump(value, f)

    def commit(self) -> Path:
        """Drop the kept results and rename the folder, now holding the final files, to the
        output directory. Returns the output directory."""
        import secrets
        import shutil

        garbage = self.out.parent / f".{self.out.name}.tmp-{_owner_tag()}-{secrets.token_hex(4)}"
        os.replace(self.path / "done", garbage)
        _commit(self.path, self.out)
        shutil.rmtree(garbage, ignore_errors=True)
        return self.out


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

    def fdp_events_csv(self) -> str | None:
        """``fdp_events.csv`` as text, ``None`` on a device without ``[fdp]``: the FDP events
        the device logged in the measured window, one row each, in time order: ``time_ns``,
        ``type`` (``implicitly_modified_ruh``, ``ru_not_fully_written``,
        ``invalid_placement_identifier``), ``code`` (the FDP event type), ``pid``,
        ``reclaim_group`` and ``handle``."""
        return self._report.fdp_events_csv()

    def fdp_events(self) -> pd.DataFrame | None:
        """:meth:`fdp_events_csv` as a DataFrame (``None`` without ``[fdp]``)."""
        import io

        import pandas as pd

        text = self.fdp_events_csv()
        if text is None:
            return None
        return pd.read_csv(io.StringIO(text), dtype={"type": "string", "code": "string"})

    def write(
        self,
        out_dir: str | os.PathLike[str],
        timeline_format: TimelineFormat = "parquet",
        *,
        overwrite: bool = False,
    ) -> Path:
        """Write ``config.json``, ``summary.json``, ``timeline.parquet`` (or ``.csv``),
        ``latency_cdf.csv`` and, on a device with ``[fdp]``, ``fdp_events.csv`` to ``out_dir``,
        atomically. Returns the directory.

        Every file comes from the core as text or bytes: writing imports neither pandas nor
        pyarrow (``flashpress run --out`` stays as light as a run without it)."""
        from pathlib import Path

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
            events = self.fdp_events_csv()
            if events is not None:
                (tmp / "fdp_events.csv").write_text(events)
        return Path(out_dir)

    def _write_parquet(self, path: Path) -> None:
        self._report.write_timeline_parquet(str(path))

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<Result requests_completed={s.get('requests_completed')} waf={s.get('waf')} "
            f"sim_time_s={s.get('sim_time_s')}>"
        )
