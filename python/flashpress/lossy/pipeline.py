"""Store and load a field through a device, with or without lossy compression, stage by stage.

    from flashpress.lossy import pipeline
    from flashpress.lossy.devices import device
    row = pipeline.run(field, "szx", "rel:1e-3", device("hdd"))
    row["store_s"], row["load_s"]

*store* = compress + write the compressed bytes; *load* = read them + decompress. ``codec=None``
is the raw path (write and read the field's own bytes). Compression and decompression run for
real on this machine (wall seconds, median of ``repeats`` runs); write and read times come from
the device (simulated, or real I/O). The stages run one after the other (the seed's serial
pipeline). :func:`measure_pipelined` runs a pipelined store and load: the field cut into
chunks, each compressed (and decompressed) on its own and timed, overlapped with the previous
chunk's I/O in a two-stage :func:`schedule` (each chunk's I/O is its share of the whole stream's
device time, so the device positions once, as for one file written in order).
"""

from __future__ import annotations

import itertools
import statistics
from typing import Any

from flashpress.lossy.codecs import Bound, Compressed, compress
from flashpress.lossy.devices import SEED_IO, Device, IoShape
from flashpress.lossy.fields import Field


def schedule(first: list[float], second: list[float]) -> float:
    """When the last chunk leaves a two-stage pipeline whose chunk i takes ``first[i]`` in the
    first stage (compute for a store, I/O for a load) and ``second[i]`` in the second; each
    stage works on one chunk at a time, in order."""
    done_1 = done_2 = 0.0
    for a, b in zip(first, second, strict=True):
        done_1 += a
        done_2 = max(done_2, done_1) + b
    return done_2


def pipelined(compute_s: float, io_chunk_s: float, chunks: int) -> float:
    """Two stages over ``chunks`` equal chunks (closed form of :func:`schedule`): the first
    chunk's compute, then per further chunk the slower of compute and I/O, then the last
    chunk's I/O."""
    c = compute_s / chunks
    return c + (chunks - 1) * max(c, io_chunk_s) + io_chunk_s


def pipelined_times(
    chunk_compress_s: float, chunk_decompress_s: float, dev: Device, stored: int, io: IoShape, chunks: int
) -> tuple[float, float]:
    """(store, load) seconds of ``chunks`` equal chunks through ``dev``, given one chunk's
    compress and decompress seconds: each chunk's I/O is 1/``chunks`` of the device's time for
    the whole stored stream."""
    w, r = dev.write_s(stored, io), dev.read_s(stored, io)
    return (
        schedule([chunk_compress_s] * chunks, [w / chunks] * chunks),
        schedule([r / chunks] * chunks, [chunk_decompress_s] * chunks),
    )


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
    repeats: int = 3,
) -> dict[str, Any]:
    """One row: the field stored and loaded through ``dev`` by ``codec`` (None: raw)."""
    return run_devices(f, codec, bound, [(dev, io)], threads, repeats)[0]


def run_devices(
    f: Field,
    codec: str | None,
    bound: Bound | str | None,
    targets: list[tuple[Device, IoShape]],
    threads: int = 1,
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
        out.append(row)
    return out


def split(f: Field, chunks: int) -> list[Field]:
    """``f`` cut into ``chunks`` runs of whole rows (first axis), or of values when it has
    fewer rows than chunks."""
    from dataclasses import replace

    import numpy as np

    flat = f.data.shape[0] < chunks
    data = f.data.reshape(-1) if flat else f.data
    mask = None if f.mask is None else (f.mask.reshape(-1) if flat else f.mask)
    bounds = np.linspace(0, data.shape[0], chunks + 1).round().astype(int)
    return [
        replace(
            f,
            name=f"{f.name}[{a}:{b}]",
            data=np.ascontiguousarray(data[a:b]),
            mask=None if mask is None else np.ascontiguousarray(mask[a:b]),
        )
        for a, b in itertools.pairwise(bounds)
        if b > a
    ]


def measure_pipelined(
    f: Field, codec: str, abs_bound: float, dev: Device, io: IoShape, threads: int, chunks: int, repeats: int = 3
) -> dict[str, float]:
    """A pipelined store and load run for real: the field cut into ``chunks`` pieces, each
    compressed and decompressed on its own (measured, median of at least ``repeats`` runs and
    MIN_TIMED_S), each piece's I/O its share of the device's time for the whole stored
    stream, through the two-stage :func:`schedule`."""
    parts = split(f, chunks)
    comp, dec, stored = [], [], []
    for p in parts:
        c, cs, ds = measure_codec(p, codec, Bound("abs", abs_bound), threads, repeats)
        comp.append(cs)
        dec.append(ds)
        stored.append(c.nbytes)
    total = sum(stored)
    w, r = dev.write_s(total, io), dev.read_s(total, io)
    return {
        "store_s": schedule(comp, [w * n / total for n in stored]),
        "load_s": schedule([r * n / total for n in stored], dec),
        "ratio": f.nbytes / total,
        "compress_s": sum(comp),
        "decompress_s": sum(dec),
    }
