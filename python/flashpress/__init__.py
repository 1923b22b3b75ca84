"""flashpress: a deterministic flash SSD simulator (Rust core, Python front).

    import flashpress
    result = flashpress.simulate("tiny", seed=3)
    result.summary["waf"], result.timeline, result.latency_cdf("write")
    result.write("out/tiny")

See ``flashpress.Config`` for configs, ``flashpress.errors`` for the exceptions, and the
``flashpress`` command (``flashpress run --help``).
"""

import sys as _sys

if _sys.argv and (_sys.argv[0].rsplit("/", 1)[-1] == "flashpress" or _sys.argv[0].endswith("flashpress/__main__.py")):
    # The `flashpress` command is starting (importing numpy, the core...): until its main loop
    # takes Ctrl-C over, an interrupt is one line and exit status 130, not a traceback. Nothing
    # before this may load a module from disk (no `from __future__`, no `signal`, whose import
    # is a window where Ctrl-C is a traceback through this file): `_signal` is built in and
    # `os` is loaded by the interpreter's own start-up.
    import _signal  # type: ignore[import-not-found]  # built in, no stub in typeshed
    import os as _os

    def _interrupted_at_start(signum: int, frame: object) -> None:
        _sys.stderr.write("flashpress: interrupted\n")
        _os._exit(130)

    _signal.signal(_signal.SIGINT, _interrupted_at_start)

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
