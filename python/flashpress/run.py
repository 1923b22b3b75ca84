"""``simulate``: run one config to the end, with an optional progress bar."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from flashpress import _core
from flashpress.config import Config
from flashpress.result import Result

ConfigLike = Config | Mapping[str, Any] | str | os.PathLike[str] | None

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
        if config in _core.preset_names() and not Path(config).is_file():
            return Config.preset(config)
        if looks_like_path or Path(config).exists():
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


def run_simulation(cfg: Config, progress: bool | Literal["auto"] = "auto") -> _core.Report:
    """Step a simulation of ``cfg`` to the end and return its report."""
    sim = _core.Simulation(cfg.to_json())
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
) -> Result:
    """Run one simulation and return its :class:`Result`.

    ``config`` is None (the ``default`` preset), a :class:`Config`, a dict of config keys
    (merged over its ``preset``), a path to a TOML file, or a preset name. ``seed`` and
    ``verify`` (check every read against the last write) override the config's values.
    ``progress``: ``"auto"`` shows a bar on a terminal for runs longer than 1 s, ``True``
    always (after 1 s), ``False`` never.
    """
    cfg = as_config(config)
    overrides: dict[str, Any] = {}
    if seed is not None:
        overrides["seed"] = seed
    if verify is not None:
        overrides["check.verify"] = verify
    if overrides:
        cfg = cfg.with_overrides(overrides, source_name="simulate() arguments")
    return Result(cfg, run_simulation(cfg, progress))
