"""The exceptions flashpress raises: one class per kind of user mistake, under FlashpressError.

Every class but ``OutputExistsError``, ``OutputPathError``, ``SweepError`` and ``FieldError`` maps one variant of the
core's error enum. Attributes set on raised instances where they apply: ``key`` and ``source_name`` (ConfigError),
``path`` and ``line`` (TraceFormatError, JobFileError), ``path`` and ``errno``
(FileReadError), ``name`` and ``known`` (UnknownPresetError, UnknownCodecError), ``codec``
(CodecError).
"""

from __future__ import annotations

from flashpress._core import (
    CcfMismatchError,
    CodecError,
    ConfigError,
    FileReadError,
    FlashpressError,
    InvariantError,
    JobFileError,
    TraceFormatError,
    UnknownCodecError,
    UnknownPolicyError,
    UnknownPresetError,
    VerifyError,
    WorkloadError,
)


class OutputExistsError(FlashpressError, FileExistsError):
    """A results directory already exists and is not empty (pass ``overwrite=True``)."""


class OutputPathError(FlashpressError, ValueError):
    """An output file path that is not a regular file (a folder, device node, fifo or socket) or
    whose folder does not exist: results are written only to regular files, and no folder is
    created for a result file."""


class SweepError(FlashpressError):
    """Some tasks of a sweep or reproduction did not finish: a task raised, its worker died past
    Dask's retries (KilledWorker) or the scheduler was lost. The finished tasks' results are kept
    in the output's work folder and the same call again resumes from them. ``failed`` maps each
    failed point (or run) number to what happened."""

    failed: dict[int, str]


class FieldError(FlashpressError, ValueError):
    """A scientific field that cannot be read or compressed as asked (lossy pipelines): an
    unknown variable, an unsupported dtype, a shape that does not match the file, NaN or Inf
    without a fill policy, a bound <= 0 or a ratio <= 1. ``path`` and ``variable`` name the
    field where one is involved (else None)."""

    def __init__(self, msg: str, path: str | None = None, variable: str | None = None) -> None:
        super().__init__(msg)
        self.path = path
        self.variable = variable


__all__ = [
    "CcfMismatchError",
    "CodecError",
    "ConfigError",
    "FieldError",
    "FileReadError",
    "FlashpressError",
    "InvariantError",
    "JobFileError",
    "OutputExistsError",
    "OutputPathError",
    "SweepError",
    "TraceFormatError",
    "UnknownCodecError",
    "UnknownPolicyError",
    "UnknownPresetError",
    "VerifyError",
    "WorkloadError",
]
