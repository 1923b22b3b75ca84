"""The thermal fit (``flashpress.thermal_fit``) against a brute-force forward integration of the
model it fits, and the ``waltz`` preset against the physics the fit assumes."""

from __future__ import annotations

import math

import pytest

import flashpress
from flashpress import thermal_fit as tf


def euler(
    env_c: float, r: float, p_w: float, tau_s: float, leak: tf.Leak, *, until_c: float, t0_c: float | None = None
) -> float:
    """Seconds from ``t0_c`` (default ``env_c``) to ``until_c`` by explicit Euler in 0.01 s
    steps (inf after 10^5 s)."""
    t, s, h = env_c if t0_c is None else t0_c, 0.0, 0.01
    while t < until_c:
        t += h * (env_c + r * (p_w + leak.at(t)) - t) / tau_s
        s += h
        if s > 1e5:
            return math.inf
    return s


def plateau(env_c: float, r: float, p_w: float, leak: tf.Leak) -> float:
    """Stable steady state reached from ``env_c`` (fixed-point iteration)."""
    t = env_c
    for _ in range(10_000):
        t = env_c + r * (p_w + leak.at(t))
    return t


@pytest.mark.parametrize("leak", [tf.Leak(w=0.0), tf.Leak(w=0.5, scale_c=20.0)])
def test_time_to_matches_a_brute_force_integration(leak: tf.Leak) -> None:
    got = tf.time_to(76.0, 23.0, 2.0, 30.0, 300.0, leak)
    want = euler(23.0, 2.0, 30.0, 300.0, leak, until_c=76.0)
    assert got == pytest.approx(want, rel=2e-3)
    # never reached: the heading (plus leakage) stays below the target
    assert tf.time_to(76.0, 23.0, 0.1, 5.0, 300.0, tf.Leak(w=0.0)) == math.inf


def test_fit_meets_the_seed_anchor_points_under_leakage() -> None:
    # Powers of the shape measure_powers reports (W): writing without compression, compressing
    # at full speed, throttled (a tenth of the engine's and the data path's power).
    nc = tf.Powers(other_w=13.0, engine_w=0.0)
    c = tf.Powers(other_w=14.0, engine_w=6.0)
    th = tf.Powers(other_w=6.0, engine_w=0.6)
    leak = tf.Leak(w=0.5, scale_c=20.0)
    f = tf.fit(nc, c, th, leak)
    # (1) the no-compression plateau is 60 °C, leakage included
    assert plateau(tf.AMBIENT_C, f.r_c_per_w, nc.other_w, leak) == pytest.approx(tf.PLATEAU_C, abs=0.05)
    p_c = c.other_w + f.engine_scale * c.engine_w
    # (2) 582 s to the throttling point
    assert euler(tf.AMBIENT_C, f.r_c_per_w, p_c, f.tau_s, leak, until_c=tf.THROTTLE_C) == pytest.approx(
        tf.THROTTLE_AT_S, rel=3e-3
    )
    # (3) throttled at 76 °C the device still climbs to 86 °C, in finite time
    p_t = th.other_w + f.engine_scale * th.engine_w
    climb = euler(tf.AMBIENT_C, f.r_c_per_w, p_t, f.tau_s, leak, until_c=tf.EMERGENCY_C, t0_c=tf.THROTTLE_C)
    assert climb < f.tau_s * 3
    # ... and with a smaller engine it would head less than MARGIN_C above itself somewhere
    if f.engine_scale > 1.0:
        weaker = th.other_w + 0.9 * f.engine_scale * th.engine_w
        heading = min(
            tf.AMBIENT_C + f.r_c_per_w * (weaker + leak.at(t)) - t for t in [76.0 + 0.1 * i for i in range(101)]
        )
        assert heading < tf.MARGIN_C
    # (4) the rack throttles after 420 s
    rack_env = tf.RACK_AMBIENT_C + f.neighbour_c
    assert euler(rack_env, f.r_c_per_w, p_c, f.tau_s, leak, until_c=tf.THROTTLE_C) == pytest.approx(
        tf.RACK_THROTTLE_AT_S, rel=3e-3
    )


def test_physical_requirements_follow_from_the_fit() -> None:
    nc = tf.Powers(other_w=15.6, engine_w=0.0)
    c = tf.Powers(other_w=11.2, engine_w=24.0)
    th = tf.Powers(other_w=5.6, engine_w=6.0)  # measured at throttle_power = 1
    ph = tf.physical_requirements(nc, c, th)
    # Without leakage the throttled device heads lowest at 86 °C: R (P_o + s * 0.1 * E) must be
    # 86 + MARGIN_C - 23, so the scale is 1 / THROTTLE_SPEED times the one at full power.
    r = (tf.PLATEAU_C - tf.AMBIENT_C) / nc.other_w
    want = ((tf.EMERGENCY_C + tf.MARGIN_C - tf.AMBIENT_C) / r - th.other_w) / (th.engine_w * tf.THROTTLE_SPEED)
    assert ph.engine_scale_no_leak == pytest.approx(want, rel=1e-9)
    for row in ph.leak:
        lk = tf.Leak(w=row["leak_w_at_25c"], scale_c=row["leak_scale_c"])
        rr = row["r_c_per_w"]
        # (1) the plateau still sits at 60 °C with that leakage
        assert tf.AMBIENT_C + rr * (nc.other_w + lk.at(60.0)) == pytest.approx(60.0, abs=1e-9)
        # (3) at engine scale 1 the throttled device heads MARGIN_C above itself at worst
        p = th.other_w + th.engine_w * tf.THROTTLE_SPEED
        heading = min(tf.AMBIENT_C + rr * (p + lk.at(t)) - t for t in [76.0 + 0.01 * i for i in range(1001)])
        assert heading == pytest.approx(tf.MARGIN_C, abs=0.01)


def test_the_waltz_preset_is_the_fitted_margin() -> None:
    # The preset the fit describes: a throttled engine at full power, no leakage (see the
    # module's docstring for why a physical one cannot meet the seed's Fig 3).
    ccsd = flashpress.Config.from_dict({"preset": "waltz"}).to_dict()["stack"]["ccsd"]
    assert ccsd["throttle_power"] == 1.0
    assert ccsd["thermal"]["leak_w"] == 0.0
    assert ccsd["throttle_speed"] == tf.THROTTLE_SPEED


@pytest.mark.parametrize("leak", [tf.Leak(w=0.5, scale_c=20.0), tf.Leak(w=0.3, scale_c=14.4)])
def test_r_with_leak_keeps_the_plateau(leak: tf.Leak) -> None:
    r0 = 2.363
    p = (tf.PLATEAU_C - tf.AMBIENT_C) / r0  # the activity power a leak-free fit puts at the plateau
    r = tf.r_with_leak(r0, leak)
    assert r < r0
    assert plateau(tf.AMBIENT_C, r, p, leak) == pytest.approx(tf.PLATEAU_C, abs=1e-6)
    # the same point, reached from the room by integrating the model (stable: loop gain below 1)
    assert tf.plateau_loop_gain(r, leak) < 1.0
    assert euler(tf.AMBIENT_C, r, p, 10.0, leak, until_c=tf.PLATEAU_C - 0.05) < math.inf
    assert euler(tf.AMBIENT_C, r, p, 10.0, leak, until_c=tf.PLATEAU_C + 0.05) == math.inf
    with pytest.raises(ValueError, match="positive"):
        tf.r_with_leak(0.0, leak)


def test_a_leak_too_steep_makes_60_c_an_unstable_point_the_loop_gain_tells() -> None:
    r0, leak = 2.363, tf.Leak(w=1.0, scale_c=14.4)  # 11.4 W at 60 °C
    r = tf.r_with_leak(r0, leak)
    p = (tf.PLATEAU_C - tf.AMBIENT_C) / r0
    assert tf.AMBIENT_C + r * (p + leak.at(tf.PLATEAU_C)) == pytest.approx(tf.PLATEAU_C)  # a fixed point ...
    assert tf.plateau_loop_gain(r, leak) > 1.0  # ... but an unstable one:
    assert plateau(tf.AMBIENT_C, r, p, leak) < tf.PLATEAU_C - 1.0  # the device settles below it


def test_the_coco_device_keeps_waltz_fig3_plateau_and_its_power_rises_with_temperature() -> None:
    from flashpress.reproduce.papers.coco.experiments import coco_device

    waltz = flashpress.Config.from_dict({"preset": "waltz"}).to_dict()["stack"]["ccsd"]
    coco = coco_device()
    leak = tf.Leak(
        w=coco["stack.ccsd.thermal.leak_w"],
        ref_c=coco["stack.ccsd.thermal.leak_ref_c"],
        scale_c=coco["stack.ccsd.thermal.leak_scale_c"],
    )
    # Waltz's fit puts the activity power of the no-compression run at 37 °C / R (no leakage)
    p = (tf.PLATEAU_C - tf.AMBIENT_C) / waltz["thermal"]["r_c_per_w"]
    r = coco["stack.ccsd.thermal.r_c_per_w"]
    # Fig 3's 60 °C plateau without compression still holds with COCO's leakage, and is stable
    assert plateau(tf.AMBIENT_C, r, p, leak) == pytest.approx(tf.PLATEAU_C, abs=0.01)
    assert tf.plateau_loop_gain(r, leak) < 0.5
    # the leakage is small beside the activity power at the room, and grows as the device heats
    assert leak.at(tf.AMBIENT_C) < 0.05 * p
    assert leak.at(tf.THROTTLE_C) > 10 * leak.at(tf.AMBIENT_C)
    # a throttled engine draws power in proportion to its speed (the physical value)
    assert coco["stack.ccsd.throttle_power"] == waltz["throttle_speed"] == tf.THROTTLE_SPEED
