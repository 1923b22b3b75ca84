"""The exceptions flashpress raises: one class per kind of user mistake, under FlashpressError.

Every class but ``OutputExistsError`` maps one variant of the core's error enum. Attributes
set on raised instances where they apply: ``key`` and ``source_name`` (ConfigError),
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


__all__ = [
    "CcfMismatchError",
    "CodecError",
    "ConfigError",
    "FileReadError",
    "FlashpressError",
    "InvariantError",
    "JobFileError",
    "OutputExistsError",
    "TraceFormatError",
    "UnknownCodecError",
    "UnknownPolicyError",
    "UnknownPresetError",
    "VerifyError",
    "WorkloadError",
]
