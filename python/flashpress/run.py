"""``simulate``: run one config to the end, with an optional progress bar."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

from flashpress import _core
from flashpress.config import TYPE_CHECKING, Config
from flashpress.result import Result

if TYPE_CHECKING:
    from typing import Any, Literal, TypeAlias

    ConfigLike: TypeAlias = Config | Mapping[str, Any] | str | os.PathLike[str] | None

#: Events per ``Simulation.step`` call: long enough to amortise the call, short enough that
#: progress updates and Ctrl-C stay responsive.
STEP_EVENTS = 1 << 18


def as_config(config: ConfigLike) -> Config:
    """Turn what users pass as a config into a Config: None (the ``default`` preset), a
    Config, a dict (merged over its ``preset``), a TOML file path, or a preset name."""
    if config is None:
        return Config.preset("default")
    if isinstance(config, Config):
        return config
    if isinstance(config, Mapping):
        return Config.from_dict(config)
    if isinstance(config, os.PathLike):
        return Config.from_toml(config)
    if isinstance(config, str):
        looks_like_path = config.endswith(".toml") or os.sep in config or "/" in config
        if config in _core.preset_names() and not os.path.isfile(config):
            return Config.preset(config)
        if looks_like_path or os.path.exists(config):
            return Config.from_toml(config)
        return Config.preset(config)  # raises UnknownPresetError listing the presets
    raise TypeError(f"config must be a Config, dict, TOML path or preset name, not {type(config).__name__}")


def _fmt_time(ns: int) -> str:
    s = ns / 1e9
    if s >= 1:
        return f"{s:.3f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.3f} ms"
    return f"{s * 1e6:.1f} us"


#: Peak resident memory of ``flashpress run`` besides the simulation: the Python interpreter,
#: the extension and the modules a run imports, measured with
#: ``benchmarks/bench_memory_estimate.py --baseline`` on a run of a device too small to matter
#: (bytes; 16.35-16.37 MB in three runs, the package byte-compiled as an installed wheel has
#: it, the extension built in release mode, after a run stopped importing pathlib and typing
#: and the latency histograms grew with the latencies instead of holding an hour's range;
#: 18.28-18.47 MB before, measured the same way. The 20.01 MB used until then was measured by
#: a benchmark process whose own peak the child's figure included, and with modules compiled
#: on import). Less that run's own latency histograms, 122,880 bytes (heaptrack: three of
#: 2,048 counters and the write one grown to 9,216), which the estimate counts in its
#: ``stats.histograms`` part since that part counts the histograms at all.
PYTHON_BASELINE_BYTES = 16_360_000 - 122_880


def estimate_memory(config: ConfigLike = None) -> dict[str, Any]:
    """The memory a run of ``config`` will need, known before anything is allocated.

    Returns a dict: ``total_bytes``; ``components`` (largest first), each with ``name``,
    ``bytes``, ``detail`` (counts x element sizes) and ``key`` (the config key that sizes
    it); the device's ``physical_pages``, ``page_size``, ``physical_bytes`` and
    ``logical_bytes``; ``timeline_intervals``; ``available_bytes``, the memory this process
    may still use (the machine's available memory, or what ``ulimit -v``/``-d`` leave when
    lower; None where unknown), with ``available_limit`` saying which, and
    ``machine_available_bytes``, the machine's (shared by every process). The total includes the Python process
    (``python``, a measured constant).
    """
    cfg = as_config(config)
    est: dict[str, Any] = json.loads(_core.estimate_memory(cfg.to_json()))
    est["components"].append(
        {
            "name": "python",
            "bytes": PYTHON_BASELINE_BYTES,
            "detail": "the interpreter, the extension and the libraries a run imports (measured)",
            "key": "",
        }
    )
    est["components"].sort(key=lambda c: -c["bytes"])
    est["total_bytes"] += PYTHON_BASELINE_BYTES
    return est


def run_simulation(
    cfg: Config, progress: bool | Literal["auto"] = "auto", max_memory: int | None = None
) -> _core.Report:
    """Step a simulation of ``cfg`` to the end and return its report. ``max_memory``: refuse
    the run (ConfigError) when its memory estimate exceeds this many bytes (None: the
    machine's available memory; 0: no check)."""
    sim = _core.Simulation(cfg.to_json(), max_memory)
    if progress is False:
        while not sim.step(STEP_EVENTS):
            pass
        return sim.finish()

    from tqdm import tqdm

    # "auto": tqdm shows the bar only on a terminal; either way it appears only after 1 s.
    bar = tqdm(
        total=1.0,
        delay=1.0,
        disable=None if progress == "auto" else False,
        desc="simulating",
        bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}{postfix}]",
        leave=False,
    )
    try:
        while True:
            done = sim.step(STEP_EVENTS)
            p = sim.progress()
            frac = p["fraction"]
            bar.set_postfix_str(
                f"sim {_fmt_time(int(p['sim_time_ns'] or 0))}, {int(p['requests_completed'] or 0):,} req",
                refresh=False,
            )
            if isinstance(frac, float):
                bar.update(max(0.0, min(1.0, frac)) - bar.n)
            else:
                bar.update(0)
            if done:
                break
    finally:
        bar.close()
    return sim.finish()


def simulate(
    config: ConfigLike = None,
    *,
    seed: int | None = None,
    progress: bool | Literal["auto"] = "auto",
    verify: bool | None = None,
    max_memory: int | None = None,
) -> Result:
    """Run one simulation and return its :class:`Result`.

    ``config`` is None (the ``default`` preset), a :class:`Config`, a dict of config keys
    (merged over its ``preset``), a path to a TOML file, or a preset name. ``seed`` and
    ``verify`` (check every read against the last write) override the config's values.
    ``progress``: ``"auto"`` shows a bar on a terminal for runs longer than 1 s, ``True``
    always (after 1 s), ``False`` never. ``max_memory``: refuse the run with a ConfigError
    naming what to change when its memory estimate (:func:`estimate_memory`) exceeds this
    many bytes (None: the machine's available memory; 0: no check).
    """
    cfg = as_config(config)
    overrides: dict[str, Any] = {}
    if seed is not None:
        overrides["seed"] = seed
    if verify is not None:
        overrides["check.verify"] = verify
    if overrides:
        cfg = cfg.with_overrides(overrides, source_name="simulate() arguments")
    return Result(cfg, run_simulation(cfg, progress, max_memory))
