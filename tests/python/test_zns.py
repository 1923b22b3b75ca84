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
        (
            {"precondition.fill_fraction": 0.5, "precondition.aging_fraction": 1.0},
            "precondition.aging_fraction",
            "never overwritten in place",
        ),
    ],
)
def test_bad_zone_configs_name_the_key(overrides: dict[str, object], key: str, message: str) -> None:
    with pytest.raises(errors.ConfigError, match=key) as e:
        flashpress.simulate(Config.preset("zns").with_overrides(overrides), progress=False)
    assert message in str(e.value)


#: A zns device of small zones: one chip's 4 planes x 1 block x 24 pages of 4 KiB (384 KiB of
#: capacity in a 512 KiB zone), so a few passes over a few zones run in a moment.
SMALL_ZONES: dict[str, object] = {
    "zns.channels_per_zone": 1,
    "zns.chips_per_zone": 1,
    "zns.blocks_per_plane": 1,
    "nand.pages_per_block": 24,
}


def _zbd_run(job: dict[str, object]) -> dict:  # type: ignore[type-arg]
    cfg = Config.preset("zns").with_overrides(
        {**SMALL_ZONES, "workload": {"type": "fio", "jobs": [{"filename": "/dev/nvme0n1", "zonemode": "zbd", **job}]}}
    )
    return flashpress.simulate(cfg, progress=False).summary  # type: ignore[no-any-return]


def test_a_fio_zbd_sequential_job_resets_each_full_zone_on_the_device() -> None:
    # 4 zones of 384 KiB capacity, written three times over in 128 KiB blocks: fio's rule
    # writes 3 blocks per zone per pass and resets each zone before its first write of passes
    # 2 and 3 (8 resets), each erasing the zone's 4 blocks.
    s = _zbd_run({"rw": "write", "bs": "128k", "size": "2m", "io_size": "4608k", "iodepth": 4})
    z = s["zns"]
    assert z["zone_size_bytes"] == 512 * 1024
    assert z["zone_capacity_bytes"] == 384 * 1024
    assert (z["writes"], z["resets"], z["reset_blocks_erased"]) == (36, 8, 32)
    assert z["failed_commands"] == 0
    assert s["host_write_bytes"] == 36 * 128 * 1024 == s["nand_program_bytes"]
    assert (z["zones_full"], z["zones_empty"]) == (4, z["zones"] - 4)


def test_a_read_only_zbd_job_reads_the_zones_the_preconditioning_filled() -> None:
    # Half the zones filled zone by zone (each 384 KiB = 96 blocks), the rest empty; a
    # sequential 128 KiB reader over the whole device reads 3 blocks in each filled zone and
    # stops at the first empty one; verify mode checks every page against the fill.
    cfg = Config.preset("zns").with_overrides(
        {
            **SMALL_ZONES,
            "precondition.fill_fraction": 0.5,
            "check.verify": True,
            "workload": {
                "type": "fio",
                "jobs": [{"filename": "/dev/nvme0n1", "zonemode": "zbd", "rw": "read", "bs": "128k"}],
            },
        }
    )
    s = flashpress.simulate(cfg, progress=False).summary
    z = s["zns"]
    filled = z["zones"] // 2
    assert z["zones"] % 2 == 0
    assert s["precondition"]["fill_pages"] == filled * 96
    assert (z["zones_full"], z["zones_closed"], z["zones_empty"]) == (filled, 0, z["zones"] - filled)
    assert s["read"]["requests"] == 3 * filled
    assert s["verified_page_reads"] == filled * 96
    assert (s["unmapped_page_reads"], z["failed_commands"], s["nand_programs"]) == (0, 0, 0)
    # The same job on the empty device is refused in one line.
    with pytest.raises(errors.FlashpressError, match="this zbd job only reads") as e:
        flashpress.simulate(cfg.with_overrides({"precondition.fill_fraction": 0.0}), progress=False)
    assert "\n" not in str(e.value)


def test_fio_zbd_random_writes_keep_to_the_open_zone_limit_on_the_device() -> None:
    s = _zbd_run({"rw": "randwrite", "bs": "64k", "size": "4m", "io_size": "8m", "max_open_zones": 2})
    z = s["zns"]
    # Every write at a write pointer, never more than 2 zones open: no command fails.
    assert z["failed_commands"] == 0
    assert z["writes"] == 8 * 1024 // 64
    assert z["zones_implicitly_open"] <= 2
    assert z["resets"] > 0


def test_a_fio_zbd_job_with_verify_reads_back_and_checks_what_the_zones_hold() -> None:
    # 4 zones of 384 KiB capacity written twice over in 128 KiB blocks; after each pass the
    # job reads back and checks every block the zones hold (96 per zone), as fio verifies
    # after every loop; the second pass resets the 4 zones first (fio's zbd_file_reset with
    # verify).
    s = _zbd_run({"rw": "write", "bs": "128k", "size": "2m", "loops": 2, "verify": "crc32c"})
    z = s["zns"]
    assert (z["writes"], z["resets"], z["failed_commands"]) == (24, 4, 0)
    assert s["verified_page_reads"] == 2 * 4 * 96
    assert s["read"]["bytes"] == 2 * 4 * 384 * 1024


def test_a_fio_zbd_job_on_a_device_without_zones_is_refused() -> None:
    cfg = Config.preset("default").with_overrides(
        {"workload": {"type": "fio", "jobs": [{"zonemode": "zbd", "rw": "write", "size": "1m"}]}}
    )
    with pytest.raises(errors.FlashpressError, match="zonemode=zbd needs a zoned device"):
        flashpress.simulate(cfg, progress=False)


def test_the_zoned_file_system_example_runs_the_waltz_patterns_with_host_cleaning_only() -> None:
    # The F2FS-like file system on zones: the Waltz FIO patterns on a 90%-full partition.
    r = flashpress.simulate(Config.from_toml(ROOT / "examples" / "zns_f2fs.toml"), progress=False)
    s = r.summary
    st, z = s["stack"], s["zns"]
    # The device has no GC and refused nothing: every write was at its zone's write pointer.
    assert s["gc_invocations"] == 0
    assert z["failed_commands"] == 0
    assert s["requests_failed"] == 0
    # Device WAF 1: the NAND programs are the file system's block writes, cleaning included.
    assert s["nand_programs"] == st["fs"]["fs_blocks_written"]
    assert s["erases"] == z["reset_blocks_erased"]
    # The host cleaned: sections cleaned, blocks moved, zones reset.
    zoned = st["zoned"]
    assert zoned["zone_blocks"] == 16 * 192
    assert zoned["sections_cleaned"] > 0
    assert zoned["blocks_moved"] > 0
    assert zoned["zones_reset"] == z["resets"] > 0
    moved_share = zoned["blocks_moved"] / st["fs"]["fs_blocks_written"]
    assert zoned["host_waf"] == pytest.approx(1 / (1 - moved_share))
    # Host compression (F2FS cluster compression) stored the 2:1 data in fewer blocks.
    assert st["fs"]["counters"]["clusters_host_compressed"] > 0
    assert st["tasks"]["compress_device_blocks"] == 0
    # Every pattern ran.
    assert s["read"]["requests"] > 0
    assert s["write"]["requests"] > 0


@pytest.mark.parametrize(
    ("overrides", "key", "message"),
    [
        ({"stack.policy": "waltz_p"}, "stack.policy", "policy `waltz_p` sends data to the device to compress"),
        ({"stack.fs.mode": "adaptive"}, "stack.fs.mode", 'set mode = "lfs"'),
    ],
)
def test_the_zoned_file_system_refuses_what_zones_cannot_honour(
    overrides: dict[str, object], key: str, message: str
) -> None:
    cfg = Config.from_toml(ROOT / "examples" / "zns_f2fs.toml")
    with pytest.raises(errors.ConfigError, match=key) as e:
        flashpress.simulate(cfg.with_overrides(overrides), progress=False)
    assert message in str(e.value)
