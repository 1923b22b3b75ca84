"""Type stubs of the private extension module ``flashpress._core`` (crates/flashpress-py)."""

from collections.abc import Callable
from typing import Any

__version__: str

class FlashpressError(Exception):
    """Base class of every error raised by flashpress."""

class ConfigError(FlashpressError, ValueError):
    """A configuration value is missing, malformed, unknown or out of range."""

    key: str
    source_name: str
    detail: str

class UnknownPresetError(ConfigError):
    """A named preset does not exist."""

    name: str
    known: str

class TraceFormatError(FlashpressError):
    """A block trace line could not be parsed."""

    path: str
    line: int
    detail: str

class JobFileError(FlashpressError):
    """A fio job file line or option is malformed or unsupported."""

    path: str
    line: int
    detail: str

class WorkloadError(FlashpressError):
    """A workload is valid on its own but cannot run on this device."""

class FileReadError(FlashpressError, OSError):
    """A file could not be opened or read."""

    path: str

class VerifyError(FlashpressError):
    """Verify mode found a read returning content other than what was last written."""

class InvariantError(FlashpressError):
    """The FTL invariant check found its structures inconsistent."""

def resolve_config(user_json: str, source_name: str, base_dir: str | None = None) -> str: ...
def validate_config(resolved_json: str, source_name: str, base_dir: str | None = None) -> str: ...
def load_config_file(path: str) -> str: ...
def preset_config(name: str) -> str: ...
def preset_names() -> list[str]: ...
def estimate_memory(resolved_config_json: str) -> str: ...
def mapping_table_bytes(resolved_json: str) -> int: ...
def map_cache_table_bytes(resolved_json: str) -> int: ...
def preset_toml(name: str) -> str: ...
def default_trace_config(path: str, format: str) -> str: ...
def stat_descriptions() -> list[tuple[str, str, str]]: ...
def shorten_message(msg: str) -> str: ...

class Report:
    def summary_json(self) -> str: ...
    def timeline_columns(self) -> list[tuple[str, str, str, list[float]]]: ...
    def timeline_csv(self) -> str: ...
    def latency_cdf(self, op: str, during_gc: bool = False) -> tuple[list[int], list[float]]: ...
    def latency_cdf_csv(self) -> str: ...
    def fdp_events_csv(self) -> str | None: ...
    def write_timeline_parquet(self, path: str) -> None: ...

class Simulation:
    def __init__(self, resolved_config_json: str, max_memory: int | None = None) -> None: ...
    def step(self, max_events: int = 262144) -> bool: ...
    def progress(self) -> dict[str, int | float | None]: ...
    @property
    def finished(self) -> bool: ...
    def finish(self) -> Report: ...

class UnknownCodecError(ConfigError):
    """A codec name that is not one of flashpress's, or a level outside the codec's range."""

    name: str
    known: str

class UnknownPolicyError(ConfigError):
    """A compression-placement policy name that is not one of flashpress's."""

    name: str
    known: str

class CcfMismatchError(ConfigError):
    """Host mount options and the CCSD disagree on the codec or granularity of cooperative decompression."""

class CodecError(FlashpressError):
    """A codec could not decode its own output, or the round trip differed from the input."""

    codec: str
    detail: str

def codec_bench(
    paths: list[str],
    codecs: list[str],
    block_sizes: list[int],
    max_bytes: int | None = None,
    progress: Callable[[int, int], object] | None = None,
    source_name: str = "codec_bench()",
    block_size_key: str = "block_sizes",
    codec_key: str = "codecs",
) -> str: ...
def report_codecs() -> list[str]: ...
def codec_names() -> str: ...
def szx_compress(data: Any, dtype: str, bound: float, block: int = ..., threads: int = ...) -> bytes: ...
def szx_decompress(stream: bytes, out: Any, dtype: str, threads: int = ...) -> None: ...
def szx_values(stream: bytes) -> int: ...
