"""Compressed zones (``zns.compression``, CCZNS) from Python: the example config and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

import flashpress
from flashpress import Config, errors

ROOT = Path(__file__).resolve().parents[2]
MIB = 1 << 20


def test_the_cczns_example_writes_a_whole_zone_span_into_half_its_flash() -> None:
    r = flashpress.simulate(Config.from_toml(ROOT / "examples" / "cczns.toml"), progress=False)
    s = r.summary
    z = s["zns"]
    k = z["compression"]
    # Ratio-2 blocks pack two to a 4 KiB page: zone 0's 2 GiB span (524288 blocks) takes
    # 262144 pages, 1024 MiB of its 1077 MiB flash, and the zone is full at its zone size.
    assert z["zone_capacity_bytes"] == 1077 * MIB
    assert k["zone_logical_capacity_bytes"] == z["zone_size_bytes"] == 2048 * MIB
    assert s["host_write_bytes"] == 2048 * MIB == k["stored_logical_bytes"]
    assert s["nand_program_bytes"] == 1024 * MIB == k["stored_flash_bytes"]
    assert (z["zones_full"], k["zones_full_by_flash"], z["failed_commands"]) == (1, 0, 0)
    c = s["compression"]
    assert (c["chunks"], c["merged_pages"], c["pad_bytes"]) == (524288, 262144, 262144 * 4096 - c["chunk_bytes"])
    assert s["erases"] == 0


EXAMPLE = ROOT / "examples" / "cczns.toml"
PAGE_FTL_COMPRESSION = {"codec": "lz4", "min_saving": 0.1, "max_chunks_per_page": 4, "compress_us": 1.0}


@pytest.mark.parametrize(
    ("overrides", "key", "message"),
    [
        ({"content.mode": "off"}, "content.mode", "compressed zones need the content model"),
        ({"ftl.write_buffer_pages": 0}, "ftl.write_buffer_pages", "at least 1 buffer page"),
        ({"zns.compression.min_saving": 1.0}, "zns.compression.min_saving", "0.99"),
        ({"ftl.compression": {**PAGE_FTL_COMPRESSION, "decompress_us": 1.0}}, "ftl.compression", "zns.compression"),
    ],
)
def test_bad_compressed_zone_configs_name_the_key(overrides: dict[str, object], key: str, message: str) -> None:
    with pytest.raises(errors.ConfigError, match=key) as e:
        Config.from_toml(EXAMPLE).with_overrides(overrides)
    assert message in str(e.value)


def test_fio_zbd_mode_on_compressed_zones_is_refused() -> None:
    job = {"filename": "/dev/nvme0n1", "zonemode": "zbd", "rw": "write", "bs": "128k", "size": "4g"}
    cfg = Config.from_toml(EXAMPLE).with_overrides({"workload": {"type": "fio", "jobs": [job]}})
    with pytest.raises(errors.FlashpressError, match="compresses its zones"):
        flashpress.simulate(cfg, progress=False)
