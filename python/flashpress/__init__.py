"""flashpress: a deterministic flash SSD simulator (Rust core, Python front).

    import flashpress
    result = flashpress.simulate("tiny", seed=3)
    result.summary["waf"], result.timeline, result.latency_cdf("write")
    result.write("out/tiny")

See ``flashpress.Config`` for configs, ``flashpress.errors`` for the exceptions, and the
``flashpress`` command (``flashpress run --help``).
"""

from __future__ import annotations

from flashpress import errors
from flashpress._core import __version__
from flashpress.config import Config, preset_toml, presets
from flashpress.result import Result
from flashpress.run import estimate_memory, simulate
from flashpress.sweep import sweep

__all__ = [
    "Config",
    "Result",
    "__version__",
    "errors",
    "estimate_memory",
    "preset_toml",
    "presets",
    "simulate",
    "sweep",
]
