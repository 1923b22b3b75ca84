"""flashpress.tracegen: the Table II generators and the linux-release workload, replayed through
the device's deduplicating FTL and checked against models written here (a dictionary FTL and
hashlib over the real blocks)."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from flashpress import Config
from flashpress.errors import ConfigError
from flashpress.reproduce import testdata
from flashpress.run import simulate
from flashpress.tracegen import TABLE2, Population, dedup_trace, releases_trace, timed_workload, workload

BLOCK = 4096
#: A small cagc device: 2 channels x 2 chips x 2 planes x 512 blocks of 64 x 4 KiB (1 GiB).
SMALL = {"nand": {"channels": 2, "chips_per_channel": 2, "blocks_per_plane": 512}, "precondition": {"fill_fraction": 0}}


def _cfg(scheme: str, trace: Path, **extra: object) -> Config:
    return Config.from_dict({"scheme": f"cagc/{scheme}", **SMALL, **extra, "workload": workload(trace)})


def _model(trace: Path) -> tuple[int, int, list[int]]:
    """A dictionary FTL with exact reference counts, replaying the trace block by block:
    (logical pages mapped, distinct contents stored, logical pages dropped by their content's
    count at the drop, counts 1..7 and 8+)."""
    df = pd.read_csv(trace, dtype={"op": str}, keep_default_na=False)
    held: dict[int, int] = {}
    refs: Counter[int] = Counter()
    dropped = [0] * 8

    def drop(lpn: int) -> None:
        c = held.pop(lpn, None)
        if c is None:
            return
        dropped[min(refs[c], 8) - 1] += 1
        refs[c] -= 1
        if refs[c] == 0:
            del refs[c]

    for op, off, n, content in zip(df["op"], df["offset"], df["len"], df["content"], strict=True):
        if op == "R":
            continue
        for i in range(n // BLOCK):
            lpn = off // BLOCK + i
            if op == "T":
                drop(lpn)
                continue
            c = int(content) + i
            # The new content is referenced before the old one is let go (the FTL's order).
            refs[c] += 1
            drop(lpn)
            held[lpn] = c
    return len(held), len(refs), dropped


@pytest.mark.parametrize("profile", sorted(TABLE2))
def test_generated_traces_keep_table_two_and_the_dedup_map_agrees_with_a_model(profile: str, tmp_path: Path) -> None:
    cap = _cfg("Inline", tmp_path / "x.csv").logical_bytes()
    trace = tmp_path / f"{profile}.csv"
    info = dedup_trace(profile, trace, capacity_bytes=cap, requests=30_000, seed=3)
    p = TABLE2[profile]
    df = pd.read_csv(trace, dtype={"op": str}, keep_default_na=False)
    assert list(df.columns) == ["time", "op", "offset", "len", "content"]
    assert (df["offset"] + df["len"] <= info.footprint_bytes).all()
    assert (df["len"] % BLOCK == 0).all()
    run = df.iloc[sum((df["op"] != "T").cumsum() <= info.prefill_writes) :]  # after the prefill
    rw = run[run["op"] != "T"]
    # Shares as the generator draws them, within what splitting at fragments moves them.
    assert abs((rw["op"] == "W").mean() - p.write_ratio) < 0.08
    assert abs(info.blocks_repeated / info.blocks_written - p.dedup_ratio) < 0.06
    assert 0.6 * p.mean_request_kib < rw["len"].mean() / 1024 < 1.1 * p.mean_request_kib
    assert info.trims == (df["op"] == "T").sum() > 0

    mapped, stored, dropped = _model(trace)
    s = simulate(_cfg("Inline", trace), progress=False).summary
    d = s["dedup"]
    assert d["mapped_pages"] == mapped
    assert d["stored_pages"] == stored
    assert d["dropped_by_count"] == dropped
    assert s["write"]["requests"] == info.writes
    assert s["read"]["requests"] == info.reads
    # Deterministic: the same seed writes the same bytes, another seed others.
    again = tmp_path / "again.csv"
    dedup_trace(profile, again, capacity_bytes=cap, requests=30_000, seed=3)
    assert again.read_bytes() == trace.read_bytes()
    dedup_trace(profile, again, capacity_bytes=cap, requests=30_000, seed=4)
    assert again.read_bytes() != trace.read_bytes()


def test_cagc_meets_duplicates_in_gc_and_the_counts_still_agree(tmp_path: Path) -> None:
    """CAGC on the Mail trace: GC finds duplicates (so it erases and migrates less than the
    Baseline), and at the end the map holds what the model holds once every duplicate is met:
    logical pages equal, stored pages at least the model's distinct contents."""
    cap = _cfg("Inline", tmp_path / "x.csv").logical_bytes()
    trace = tmp_path / "mail.csv"
    dedup_trace("mail", trace, capacity_bytes=cap, requests=60_000, seed=1)
    mapped, stored, _ = _model(trace)
    base = simulate(_cfg("Baseline", trace), progress=False).summary
    cagc = simulate(_cfg("CAGC", trace), progress=False).summary
    d = cagc["dedup"]
    assert d["gc_duplicates"] > 0
    assert d["inline_hashed"] == 0
    assert d["mapped_pages"] == mapped
    assert d["stored_pages"] >= stored
    assert base["gc_pages_migrated"] > 0
    assert cagc["gc_pages_migrated"] < base["gc_pages_migrated"]
    assert cagc["gc_blocks_erased"] < base["gc_blocks_erased"]


def test_a_timed_trace_has_the_same_requests_at_poisson_times_and_replays_open_loop(tmp_path: Path) -> None:
    """With ``mean_gap_us`` the requests are those of the untimed trace (the gaps have their own
    random stream), reads and writes arrive at exponential gaps of that mean (a trim with the
    write that made it), and a timed replay leaves the device idle between them: the run lasts
    as long as the arrivals, not as long as the closed loop."""
    cap = _cfg("Baseline", tmp_path / "x.csv").logical_bytes()
    plain, timed = tmp_path / "plain.csv", tmp_path / "timed.csv"
    dedup_trace("homes", plain, capacity_bytes=cap, requests=20_000, seed=5)
    dedup_trace("homes", timed, capacity_bytes=cap, requests=20_000, seed=5, mean_gap_us=200.0)
    a = pd.read_csv(plain, dtype={"op": str}, keep_default_na=False)
    b = pd.read_csv(timed, dtype={"op": str}, keep_default_na=False)
    assert (a["time"] == 0).all()
    pd.testing.assert_frame_equal(a.drop(columns="time"), b.drop(columns="time"))
    assert b["time"].is_monotonic_increasing
    rw = b[b["op"] != "T"]["time"].to_numpy()
    gaps = rw[1:] - rw[:-1]
    assert (gaps >= 1).all()
    # The mean of n exponential gaps: within 4 standard errors (mean / sqrt(n)) of 200 us.
    assert abs(gaps.mean() - 200_000) < 4 * 200_000 / len(gaps) ** 0.5
    trims = b.index[b["op"] == "T"]
    assert len(trims)
    assert (b["time"][trims].to_numpy() == b["time"][trims - 1].to_numpy()).all()
    cfg = Config.from_dict({"scheme": "cagc/Baseline", **SMALL, "workload": timed_workload(timed)})
    s = simulate(cfg, progress=False).summary
    assert s["requests_completed"] == len(b)
    assert s["sim_time_s"] >= (rw[-1] - rw[0]) / 1e9, "the run lasts at least from the first arrival to the last"
    closed = simulate(_cfg("Baseline", plain), progress=False).summary
    assert s["sim_time_s"] > 2 * closed["sim_time_s"], "the open loop waits for its arrivals"


def test_bad_generator_arguments_are_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown profile 'nfs'"):
        dedup_trace("nfs", tmp_path / "t.csv", capacity_bytes=1 << 30, requests=10)
    with pytest.raises(ConfigError, match="at least 4096 blocks"):
        dedup_trace("mail", tmp_path / "t.csv", capacity_bytes=1 << 20, requests=10)
    with pytest.raises(ConfigError, match=r"population\.fill"):
        dedup_trace("mail", tmp_path / "t.csv", capacity_bytes=1 << 30, requests=10, population=Population(fill=1.0))
    with pytest.raises(ConfigError, match="mean_gap_us must be a positive"):
        dedup_trace("mail", tmp_path / "t.csv", capacity_bytes=1 << 30, requests=10, mean_gap_us=0.0)
    with pytest.raises(ConfigError, match="at least one image"):
        releases_trace([], tmp_path / "t.csv")
    assert not (tmp_path / "t.csv").exists()
    assert not list(tmp_path.glob("*.tmp"))


def test_two_releases_dedup_as_hashlib_counts_their_blocks(tmp_path: Path) -> None:
    """Python 3.11's standard library, Debian's 3.11.2-6+deb12u8 then +deb12u9 (the small real
    duplicate data of `make testdata`), written and kept: the device's dedup ratio is the blocks
    written over the distinct blocks, counted here with SHA-256 over the images (the trace's ids
    come from MD5). Then the same with the first release deleted."""
    images = [testdata.image("cagc-small", "release1"), testdata.image("cagc-small", "release2")]
    digests: list[bytes] = []
    for img in images:
        with img.open("rb") as f:
            while b := f.read(BLOCK):
                digests.append(hashlib.sha256(b).digest())
    first = sum(1 for _ in range(images[0].stat().st_size // BLOCK))
    distinct, distinct_second = len(set(digests)), len(set(digests[first:]))
    assert 1.8 < len(digests) / distinct < 1.9  # 1.857 measured when the releases were pinned

    device = {"nand": {"channels": 8, "chips_per_channel": 4, "blocks_per_plane": 256}}
    for keep, want_mapped, want_stored in (
        (True, len(digests), distinct),
        (False, len(digests) - first, distinct_second),
    ):
        trace = tmp_path / f"linux-{keep}.csv"
        info = releases_trace(images, trace, delete_previous=not keep)
        assert info.blocks_written == len(digests)
        assert info.distinct_contents == distinct
        cfg = Config.from_dict(
            {"scheme": "cagc/Inline", **device, "precondition": {"fill_fraction": 0}, "workload": workload(trace)}
        )
        d = simulate(cfg, progress=False).summary["dedup"]
        assert d["mapped_pages"] == want_mapped
        assert d["stored_pages"] == want_stored
    assert sum(d["dropped_by_count"]) == first  # every page of the deleted release, once
