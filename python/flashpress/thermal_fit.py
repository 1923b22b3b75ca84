"""Fit the CCSD thermal model to the figures of the Waltz seed (§3.1, Fig 3).

The device's temperature follows the first-order model ``tau dT/dt = T_env + R * P - T``
(``stack.ccsd.thermal``), where ``P`` is what the device is doing: idle power, the host link's
data path, NAND operations and the compression engine. The seed states:

1. without compression, 128 KiB sequential writes level off near 60 °C at 23 °C ambient;
2. with compression the device reaches the throttling point, 76 °C, after about 582 s;
3. throttling cuts the engine's throughput by about 90% but the temperature still climbs to
   the 86 °C thermal emergency, where the device shuts down;
4. in a cooled rack (16 °C) next to other devices throttling starts after about 420 s.

(3) says the throttled device still draws more power than its cooling removes at 86 °C; with
NAND and link power falling 90% with the throughput, that power is the engine's, which stays
busy (and hot) at a tenth of the speed. So the engine's power is fitted too: the smallest
power per lane for which the throttled steady state lies ``MARGIN_C`` above the emergency.
``measure_powers`` runs short simulations of the preset for each regime (no compression;
compressing, with throttling out of reach; always throttled) and reports the power of
everything but the engine and the engine's power at the preset's ``active_mw``; ``fit`` then
solves (1) for ``R``, (3) for the engine power, (2) for ``tau`` and (4) for the rack's
``neighbour_c``.

Run ``python -m flashpress.thermal_fit`` to print the fitted values (the ``waltz`` preset holds
them).
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import asdict, dataclass
from typing import Any

AMBIENT_C = 23.0
PLATEAU_C = 60.0
THROTTLE_C = 76.0
EMERGENCY_C = 86.0
THROTTLE_AT_S = 582.0
RACK_AMBIENT_C = 16.0
RACK_THROTTLE_AT_S = 420.0
#: The throttled steady state is put this far above the emergency, so it is reached in time.
MARGIN_C = 7.0
#: The rack's neighbour heating fitted on the ``waltz`` preset (``python -m flashpress.thermal_fit``),
#: used by the 16 °C run of Fig 3; the preset itself describes one device in a room.
RACK_NEIGHBOUR_C = 16.8


@dataclass(frozen=True)
class Powers:
    """Power (W) of one regime: everything but the engine, and the engine at the preset's
    ``active_mw`` per lane."""

    other_w: float
    engine_w: float


@dataclass(frozen=True)
class Fit:
    """Fitted constants: thermal resistance, engine power scale, time constant, rack heating."""

    r_c_per_w: float
    engine_scale: float
    tau_s: float
    neighbour_c: float


def time_to(target_c: float, env_c: float, rise_c: float, tau_s: float) -> float:
    """Seconds for ``T(t) = env + rise * (1 - exp(-t / tau))`` to reach ``target_c``; ``inf`` if
    it never does."""
    if env_c >= target_c:
        return 0.0
    if env_c + rise_c <= target_c:
        return math.inf
    return -tau_s * math.log(1.0 - (target_c - env_c) / rise_c)


def fit(no_compression: Powers, compressing: Powers, throttled: Powers) -> Fit:
    """Solve for R, the engine power scale, tau and the rack's neighbour heating."""
    for p in (no_compression, compressing, throttled):
        if not (p.other_w > 0 and p.engine_w >= 0):
            raise ValueError(f"powers must be positive, got {p}")
    if throttled.engine_w <= 0:
        raise ValueError("the throttled run drew no engine power: is the engine on?")
    # (1) R from the plateau (no engine power without compression).
    r = (PLATEAU_C - AMBIENT_C) / (no_compression.other_w + no_compression.engine_w)
    # (3) the engine scale that puts the throttled steady state MARGIN_C above the emergency.
    need_w = (EMERGENCY_C + MARGIN_C - AMBIENT_C) / r
    scale = max(1.0, (need_w - throttled.other_w) / throttled.engine_w)
    rise = r * (compressing.other_w + scale * compressing.engine_w)
    # (2) tau from the time to the throttling point.
    tau = THROTTLE_AT_S / time_to(THROTTLE_C, AMBIENT_C, rise, 1.0)
    # (4) the rack: the device starts at, and is cooled towards, 16 °C plus its neighbours' heat.
    lo, hi = -RACK_AMBIENT_C, THROTTLE_C - RACK_AMBIENT_C
    for _ in range(80):
        mid = (lo + hi) / 2
        if time_to(THROTTLE_C, RACK_AMBIENT_C + mid, rise, tau) > RACK_THROTTLE_AT_S:
            lo = mid
        else:
            hi = mid
    return Fit(r_c_per_w=r, engine_scale=scale, tau_s=tau, neighbour_c=(lo + hi) / 2)


def measure_powers(seconds: float = 60.0) -> tuple[Powers, Powers, Powers]:
    """Activity power of the ``waltz`` preset's 128 KiB sequential-write run in each regime,
    from short simulations (no compression; compressing with throttling out of reach; always
    throttled)."""
    from flashpress import simulate

    def run(ccsd: dict[str, Any]) -> Powers:
        cfg = {
            "preset": "waltz",
            "stack": {"policy": "baseline", "ccsd": ccsd},
            "workload": {
                "type": "fio",
                "global": {
                    "rw": "write",
                    "bs": "128k",
                    "numjobs": 8,
                    "iodepth": 1,
                    "size": "23g",
                    "runtime": f"{int(seconds)}s",
                    "time_based": True,
                    "buffer_compress_percentage": 50,
                },
                "jobs": [{"name": "seq-write"}],
            },
            "check": {"invariants": False},
        }
        s = simulate(cfg).summary
        d = s["stack"]["device"]["counters"]
        secs = float(s["sim_time_s"])
        engine = float(d["energy_engine_j"]) / secs
        other = (float(d["energy_total_j"]) - float(d["energy_leak_j"])) / secs - engine
        return Powers(other_w=other, engine_w=engine)

    return (
        run({"engine": False}),
        run({"throttle_c": 200.0, "throttle_release_c": 199.0, "emergency_c": 300.0}),
        run({"throttle_c": -50.0, "throttle_release_c": -60.0}),
    )


def main(argv: list[str] | None = None) -> int:
    """Measure the powers, fit, print JSON."""
    seconds = float(argv[0]) if argv else 60.0
    nc, c, t = measure_powers(seconds)
    f = fit(nc, c, t)
    powers = {"no_compression": asdict(nc), "compressing": asdict(c), "throttled": asdict(t)}
    print(json.dumps({"powers_w": powers, "fit": asdict(f)}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
