"""Store and load a field through a device, with or without lossy compression, stage by stage.

    from flashpress.lossy import pipeline
    from flashpress.lossy.devices import device
    row = pipeline.run(field, "szx", "rel:1e-3", device("hdd"))
    row["store_s"], row["load_s"]

*store* = compress + write the compressed bytes; *load* = read them + decompress. ``codec=None``
is the raw path (write and read the field's own bytes). Compression and decompression run for
real on this machine (wall seconds, median of ``repeats`` runs); write and read times come from
the device (simulated, or real I/O). The stages run one after the other (the seed's serial
pipeline); ``pipelined_*`` is what cutting the field into ``chunks`` and overlapping each
chunk's compression with the previous chunk's write would take, from the same measured times
(two-stage pipeline: first chunk's compute, then the slower stage per chunk, then the last
chunk's I/O; each chunk's I/O time from the device at the chunk's size).
"""

from __future__ import annotations

import statistics
from typing import Any

from flashpress.lossy.codecs import Bound, Compressed, compress
from flashpress.lossy.devices import SEED_IO, Device, IoShape
from flashpress.lossy.fields import Field


def pipelined(compute_s: float, io_chunk_s: float, chunks: int) -> float:
    """Two stages over ``chunks`` equal chunks: the first chunk's compute, then per further
    chunk the slower of compute and I/O, then the last chunk's I/O."""
    c = compute_s / chunks
    return c + (chunks - 1) * max(c, io_chunk_s) + io_chunk_s


#: A timed stage is repeated until it has run at least this long in all (and at least
#: ``repeats`` times), so that millisecond stages of small fields get a stable median.
MIN_TIMED_S = 0.2
#: ... but never more than this many times.
MAX_REPEATS = 200


def measure_codec(
    f: Field, codec: str, bound: Bound | str, threads: int = 1, repeats: int = 3
) -> tuple[Compressed, float, float]:
    """The compression (checked against its bound) and the median compress and decompress
    wall seconds over at least ``repeats`` runs and MIN_TIMED_S seconds of each."""
    c = compress(f, codec, bound, threads)
    fixed = Bound("abs", c.abs_bound)
    comp = [c.compress_s]
    while len(comp) < MAX_REPEATS and (len(comp) < repeats or sum(comp) < MIN_TIMED_S):
        comp.append(compress(f, codec, fixed, threads, check=False).compress_s)
    dec: list[float] = []
    while len(dec) < MAX_REPEATS and (len(dec) < repeats or sum(dec) < MIN_TIMED_S):
        dec.append(c.decompress(threads)[1])
    return c, statistics.median(comp), statistics.median(dec)


def run(
    f: Field,
    codec: str | None,
    bound: Bound | str | None,
    dev: Device,
    io: IoShape = SEED_IO,
    threads: int = 1,
    chunks: int = 8,
    repeats: int = 3,
) -> dict[str, Any]:
    """One row: the field stored and loaded through ``dev`` by ``codec`` (None: raw)."""
    return run_devices(f, codec, bound, [(dev, io)], threads, chunks, repeats)[0]


def run_devices(
    f: Field,
    codec: str | None,
    bound: Bound | str | None,
    targets: list[tuple[Device, IoShape]],
    threads: int = 1,
    chunks: int = 8,
    repeats: int = 3,
) -> list[dict[str, Any]]:
    """One row per (device, I/O shape), from one measurement of the codec (None: raw)."""
    common: dict[str, Any] = {
        "dataset": f.name,
        "codec": codec or "raw",
        "mode": None,
        "bound": None,
        "threads": threads,
        "raw_bytes": f.nbytes,
    }
    if codec is None:
        stored, comp_s, dec_s = f.nbytes, 0.0, 0.0
        common.update(ratio=1.0, max_error=0.0, abs_bound=0.0, reached=True, search_s=0.0)
    else:
        if bound is None:
            raise ValueError("a codec needs a bound")
        c, comp_s, dec_s = measure_codec(f, codec, bound, threads, repeats)
        stored = c.nbytes
        common.update(
            mode=c.bound.mode,
            bound=c.bound.value,
            ratio=c.ratio,
            max_error=c.max_error,
            max_error_rel=c.max_error / f.value_range if f.value_range > 0 else 0.0,
            abs_bound=c.abs_bound,
            reached=c.reached,
            search_s=c.search_s,
        )
    out = []
    for dev, io in targets:
        row = dict(common, device=dev.name, bs=io.bs, iodepth=io.iodepth, numjobs=io.numjobs)
        write_s = dev.write_s(stored, io)
        read_s = dev.read_s(stored, io)
        row.update(
            stored_bytes=stored,
            compress_s=comp_s,
            write_s=write_s,
            store_s=comp_s + write_s,
            read_s=read_s,
            decompress_s=dec_s,
            load_s=read_s + dec_s,
        )
        if codec is not None and chunks > 1:
            per = max(1, stored // chunks)
            row["chunks"] = chunks
            row["pipelined_store_s"] = pipelined(comp_s, dev.write_s(per, io), chunks)
            row["pipelined_load_s"] = pipelined(dec_s, dev.read_s(per, io), chunks)
        else:
            row["chunks"] = 1
            row["pipelined_store_s"] = row["store_s"]
            row["pipelined_load_s"] = row["load_s"]
        out.append(row)
    return out
