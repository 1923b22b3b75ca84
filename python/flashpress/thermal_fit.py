"""Fit the CCSD thermal model to the figures of the Waltz seed (§3.1, Fig 3).

The device's temperature follows ``tau dT/dt = T_env + R * P(T) - T`` with
``P(T) = P_act + L * exp((T - leak_ref) / leak_scale)``: the power of what the device is doing
(idle, link, NAND, engine) plus leakage that grows with temperature. The seed states:

1. without compression, 128 KiB sequential writes level off near 60 °C at 23 °C ambient;
2. with compression the device reaches the throttling point, 76 °C, after about 582 s;
3. throttling cuts the engine's throughput by about 90% but the temperature still climbs to
   the 86 °C thermal emergency;
4. in a cooled rack (16 °C) next to other devices throttling starts after about 420 s.

``P_act`` of each regime (no compression, compressing, throttled) is measured by short
simulations of the preset (``measure_powers``); this module then solves for ``R``, ``L``,
``tau`` and the rack's ``neighbour_c``. The leakage scale (e-fold per 20 °C) is our
assumption; the fit takes the smallest leakage for which (3) holds, with a margin.

Run ``python -m flashpress.thermal_fit`` to print the fitted ``[stack.ccsd.thermal]`` values.
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
LEAK_REF_C = 25.0
LEAK_SCALE_C = 20.0
#: The throttled regime must run away with this much margin in x = R * L.
RUNAWAY_MARGIN = 1.15


@dataclass(frozen=True)
class Powers:
    """Activity power (W, without leakage) of the device in each regime."""

    no_compression_w: float
    compressing_w: float
    throttled_w: float


@dataclass(frozen=True)
class Fit:
    """Fitted thermal constants."""

    r_c_per_w: float
    leak_w: float
    tau_s: float
    neighbour_c: float
    leak_ref_c: float = LEAK_REF_C
    leak_scale_c: float = LEAK_SCALE_C


def _leak(t: float) -> float:
    return math.exp((t - LEAK_REF_C) / LEAK_SCALE_C)


def time_to(target_c: float, env_c: float, a: float, x: float, tau_s: float, start_c: float | None = None) -> float:
    """Seconds for ``tau dT/dt = env + a + x * leak(T) - T`` to reach ``target_c`` from
    ``start_c`` (default ``env_c``); ``inf`` if it never does. ``a = R * P_act``, ``x = R * L``.
    Integrated with classical Runge-Kutta at 0.1 s steps."""
    t = env_c if start_c is None else start_c
    dt = 0.1

    def f(temp: float) -> float:
        return (env_c + a + x * _leak(temp) - temp) / tau_s

    elapsed = 0.0
    while t < target_c:
        k1 = f(t)
        k2 = f(t + dt / 2 * k1)
        k3 = f(t + dt / 2 * k2)
        k4 = f(t + dt * k3)
        step = dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        if step <= 1e-9 and elapsed > 10 * tau_s:
            return math.inf
        t += step
        elapsed += dt
        if elapsed > 100 * tau_s:
            return math.inf
    return elapsed


def _runs_away(env_c: float, a: float, x: float, lo: float, hi: float) -> bool:
    """True if ``env + a + x * leak(T) > T`` on [lo, hi] (no steady state there)."""
    steps = 200
    return all(env_c + a + x * _leak(lo + (hi - lo) * i / steps) > lo + (hi - lo) * i / steps for i in range(steps + 1))


def fit(p: Powers) -> Fit:
    """Solve for R, L, tau and the rack's neighbour heating from the measured powers."""
    if not (p.no_compression_w > 0 and p.compressing_w > 0 and p.throttled_w > 0):
        raise ValueError(f"powers must be positive, got {p}")
    rise = PLATEAU_C - AMBIENT_C

    def parts(x: float) -> tuple[float, float, float]:
        # R * P_nc from the plateau: env + R * P_nc + x * leak(60) = 60.
        a_nc = rise - x * _leak(PLATEAU_C)
        r_over = a_nc / p.no_compression_w
        return a_nc, r_over * p.compressing_w, r_over * p.throttled_w

    # Smallest x for which the throttled regime has no steady state below the emergency.
    lo, hi = 0.0, rise / _leak(PLATEAU_C)
    if not _runs_away(AMBIENT_C, parts(hi * 0.999)[2], hi * 0.999, THROTTLE_C, EMERGENCY_C + 1):
        raise ValueError(
            "no leakage makes the throttled regime reach the emergency while the uncompressed one "
            f"levels off at {PLATEAU_C} °C; powers {p}"
        )
    for _ in range(60):
        mid = (lo + hi) / 2
        if _runs_away(AMBIENT_C, parts(mid)[2], mid, THROTTLE_C, EMERGENCY_C + 1):
            hi = mid
        else:
            lo = mid
    x = min(hi * RUNAWAY_MARGIN, rise / _leak(PLATEAU_C) * 0.999)
    a_nc, a_c, _ = parts(x)
    if not _runs_away(AMBIENT_C, a_c, x, AMBIENT_C, THROTTLE_C):
        raise ValueError(f"the compressing regime levels off below {THROTTLE_C} °C; powers {p}")
    # Time scales with tau: solve at tau = 1 and scale.
    tau = THROTTLE_AT_S / time_to(THROTTLE_C, AMBIENT_C, a_c, x, 1.0)
    # Rack: the environment is 16 °C plus the neighbours' heating; the device starts there.
    nlo, nhi = -10.0, THROTTLE_C - RACK_AMBIENT_C
    for _ in range(60):
        mid = (nlo + nhi) / 2
        if time_to(THROTTLE_C, RACK_AMBIENT_C + mid, a_c, x, tau) > RACK_THROTTLE_AT_S:
            nlo = mid
        else:
            nhi = mid
    r = a_nc / p.no_compression_w
    return Fit(r_c_per_w=r, leak_w=x / r, tau_s=tau, neighbour_c=(nlo + nhi) / 2)


def measure_powers(seconds: float = 60.0) -> Powers:
    """Activity power of the ``waltz`` preset's 128 KiB sequential-write run in each regime,
    from short simulations (no compression; compressing with throttling out of reach; always
    throttled)."""
    from flashpress import simulate

    def run(ccsd: dict[str, Any]) -> float:
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
                    "runtime": f"{seconds}s",
                    "time_based": True,
                    "buffer_compress_percentage": 50,
                },
                "jobs": [{"name": "seq-write"}],
            },
            "check": {"invariants": False},
        }
        s = simulate(cfg).summary
        d = s["stack"]["device"]["counters"]
        return float(d["energy_active_j"]) / float(s["sim_time_s"])

    return Powers(
        no_compression_w=run({"engine": False}),
        compressing_w=run({"throttle_c": 200.0, "throttle_release_c": 199.0, "emergency_c": 300.0}),
        throttled_w=run({"throttle_c": -50.0, "throttle_release_c": -60.0}),
    )


def main(argv: list[str] | None = None) -> int:
    """Measure the powers, fit, print JSON."""
    seconds = float(argv[0]) if argv else 60.0
    p = measure_powers(seconds)
    f = fit(p)
    print(json.dumps({"powers_w": asdict(p), "fit": asdict(f)}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
