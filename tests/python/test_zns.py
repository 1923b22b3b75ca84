"""The zoned device (``[zns]``) from Python: the example config, and bad zone configs."""

from __future__ import annotations

from pathlib import Path

import pytest

import flashpress
from flashpress import Config, errors

ROOT = Path(__file__).resolve().parents[2]
MIB = 1 << 20


def test_the_zns_example_fills_two_zones_with_waf_one() -> None:
    r = flashpress.simulate(Config.from_toml(ROOT / "examples" / "zns.toml"), progress=False)
    s = r.summary
    z = s["zns"]
    # Each job writes one zone to its 1077 MiB capacity: 128 planes x 2 blocks x 1077 pages.
    assert z["zone_capacity_bytes"] == 128 * 2 * 1077 * 4096 == 1077 * MIB
    assert z["zone_size_bytes"] == 2048 * MIB
    assert s["host_write_bytes"] == 2 * 1077 * MIB
    assert s["nand_program_bytes"] == s["host_write_bytes"]
    assert s["waf"] == 1.0
    assert (z["zones_full"], z["zones_empty"], z["failed_commands"]) == (2, 30, 0)
    assert s["gc_invocations"] == 0
    assert s["erases"] == 0


@pytest.mark.parametrize(
    ("overrides", "key", "message"),
    [
        ({"zns.chips_per_zone": 3}, "zns.chips_per_zone", "expected a divisor of nand.chips_per_channel = 4"),
        ({"zns.offline_zones": [32]}, "zns.offline_zones", "zone 32 does not exist: the device has 32 zones"),
        ({"precondition.fill_fraction": 0.5}, "precondition.fill_fraction", "zones start empty"),
    ],
)
def test_bad_zone_configs_name_the_key(overrides: dict[str, object], key: str, message: str) -> None:
    with pytest.raises(errors.ConfigError, match=key) as e:
        flashpress.simulate(Config.preset("zns").with_overrides(overrides), progress=False)
    assert message in str(e.value)
