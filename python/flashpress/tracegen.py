"""Workloads written as traces in flashpress's ``csv`` format (``time,op,offset,len,content``):
the ones that need trims and chosen content ids together, which no standard trace format carries.

- :func:`releases_trace`: consecutive releases of a source tree (flat images of real files, from
  ``make testdata``) written one after another, each deleting the one before it, as a user
  updating a source tree does. A write's content id is the *first* place its 4 KiB block's bytes
  appeared (found with MD5 over the blocks), so equal ids are equal bytes and the device's
  dedup finds exactly the real duplicates.
- :func:`dedup_trace`: a file population with duplicates, parameterised like CAGC's Table II
  (write share, duplicate share, mean request size): files are created, overwritten in part,
  read and deleted (trimmed), so reference counts rise and fall.

Both write the trace atomically (a ``.tmp`` file renamed at the end) and return what they wrote
as a :class:`TraceInfo`. Replay them with ``workload = {type = "trace", format = "csv",
replay = "afap"}`` (:func:`workload`): every request has time 0, so only the closed loop orders
them; or, for a :func:`dedup_trace` written with ``mean_gap_us``, whose requests arrive at random
times with idle gaps between them, with ``replay = "timed"`` (:func:`timed_workload`).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO

import numpy as np

from flashpress import _core
from flashpress.errors import ConfigError, FileReadError
from flashpress.result import AtomicFile

BLOCK = 4096
HEADER = "time,op,offset,len,content\n"


@dataclass(frozen=True)
class TraceInfo:
    """What a generated trace holds."""

    path: str
    #: Read and write requests (trims not included).
    requests: int
    reads: int
    writes: int
    trims: int
    #: 4 KiB blocks written, and how many of them held content written before (in the trace,
    #: whether or not it was still stored).
    blocks_written: int
    blocks_repeated: int
    #: Distinct contents written.
    distinct_contents: int
    #: Bytes of logical space the trace addresses (from 0).
    footprint_bytes: int
    #: Write requests of the prefill (:func:`dedup_trace`): they come first and are counted in
    #: ``writes`` and ``requests`` too.
    prefill_writes: int = 0

    def as_dict(self) -> dict[str, int | str]:
        return asdict(self)


class _Writer:
    """Counts what goes into a csv trace. With ``gaps`` (a generator of inter-arrival times in
    ns) each read and write arrives one gap after the request before it; a trim arrives with the
    write that made it (a file deleted to make room). Without, every request has time 0."""

    def __init__(self, f: IO[str], gaps: Iterator[int] | None = None) -> None:
        self.f = f
        self.reads = self.writes = self.trims = 0
        self.gaps = gaps
        self.now = 0
        self.f.write(HEADER)

    def _arrive(self) -> int:
        if self.gaps is not None:
            self.now += next(self.gaps)
        return self.now

    def write(self, block: int, blocks: int, content: int) -> None:
        self.f.write(f"{self._arrive()},W,{block * BLOCK},{blocks * BLOCK},{content}\n")
        self.writes += 1

    def read(self, block: int, blocks: int) -> None:
        self.f.write(f"{self._arrive()},R,{block * BLOCK},{blocks * BLOCK},\n")
        self.reads += 1

    def trim(self, block: int, blocks: int) -> None:
        self.f.write(f"{self.now},T,{block * BLOCK},{blocks * BLOCK},\n")
        self.trims += 1

    def info(self, path: Path, **rest: int) -> TraceInfo:
        """What was written, with the counts only the generator knows."""
        return TraceInfo(
            path=str(path),
            requests=self.reads + self.writes,
            reads=self.reads,
            writes=self.writes,
            trims=self.trims,
            **rest,
        )


def workload(path: Path, queue_depth: int = 8) -> dict[str, object]:
    """The ``workload`` table that replays csv trace ``path`` as fast as a closed loop of
    ``queue_depth`` allows."""
    w: dict[str, object] = json.loads(_core.default_trace_config(str(Path(path).absolute()), "csv"))
    w.update(replay="afap", queue_depth=queue_depth)
    return w


def timed_workload(path: Path, time_scale: float = 1.0) -> dict[str, object]:
    """The ``workload`` table that replays csv trace ``path`` at its requests' own times (times
    ``time_scale``): an open loop, so the device is idle between arrivals."""
    w: dict[str, object] = json.loads(_core.default_trace_config(str(Path(path).absolute()), "csv"))
    w.update(replay="timed", time_scale=time_scale)
    return w


def _exponential_gaps(mean_us: float, seed: int) -> Iterator[int]:
    """Inter-arrival times (ns, at least 1) of a Poisson arrival process with mean ``mean_us``,
    from their own random stream (so a trace's requests do not depend on whether it is timed)."""
    rng = np.random.default_rng([seed, 0x71AE])
    while True:
        for g in rng.exponential(mean_us * 1000.0, 65536):
            yield max(1, round(g))


def _listing(image: Path) -> list[tuple[int, str]]:
    """The ``NAME.files`` list beside a flat image: (blocks, path) per file, in image order."""
    path = image.with_suffix(".files")
    out = []
    try:
        lines = path.read_text().splitlines()
    except FileNotFoundError:
        e = FileReadError(f"{path} is missing: a flat image's file list; rerun `make testdata`")
        e.path = str(path)
        raise e from None
    for i, line in enumerate(lines, 1):
        n, _, name = line.partition("\t")
        if not n.isdigit() or not name:
            e = FileReadError(f"{path}:{i}: expected `blocks<TAB>path`, got {line!r}")
            e.path = str(path)
            raise e
        out.append((int(n), name))
    total = sum(n for n, _ in out)
    if total * BLOCK != image.stat().st_size:
        e = FileReadError(f"{path}: lists {total} blocks, but {image} holds {image.stat().st_size // BLOCK}")
        e.path = str(path)
        raise e
    return out


def releases_trace(
    images: Sequence[Path],
    out: Path,
    *,
    delete_previous: bool = True,
    max_request_blocks: int = 32,
    reread: bool = False,
) -> TraceInfo:
    """Write ``images`` (flat release images, oldest first) one after another.

    Release ``k`` goes to slot ``k mod 2`` of the logical space (each slot as large as the
    largest release), its files in order, one write per file (split every
    ``max_request_blocks`` blocks and wherever the next block's content id is not the next id);
    then, with ``delete_previous``, release ``k - 1`` is deleted: one trim per file. With
    ``reread`` each release is read back file by file after it is written (a build reads its
    tree). Without ``delete_previous`` the releases take one slot each.
    """
    if not images:
        raise ConfigError("releases_trace: expected at least one image")
    if max_request_blocks < 1:
        raise ConfigError(f"releases_trace: max_request_blocks must be >= 1, got {max_request_blocks}")
    listings = [_listing(Path(p)) for p in images]
    slot = max(sum(n for n, _ in ls) for ls in listings)
    slots = 2 if delete_previous else len(images)
    first_seen: dict[bytes, int] = {}
    blocks_written = repeated = 0
    with AtomicFile(out) as f:
        w = _Writer(f)
        for k, (image, listing) in enumerate(zip(images, listings, strict=True)):
            base = (k % slots) * slot
            with Path(image).open("rb") as img:
                at = base
                for nblocks, _name in listing:
                    data = img.read(nblocks * BLOCK)
                    ids = []
                    for i in range(nblocks):
                        d = hashlib.md5(data[i * BLOCK : (i + 1) * BLOCK]).digest()
                        got = first_seen.get(d)
                        if got is None:
                            got = first_seen[d] = len(first_seen) + 1
                        else:
                            repeated += 1
                        ids.append(got)
                    blocks_written += nblocks
                    i = 0
                    while i < nblocks:
                        j = i + 1
                        while j < nblocks and j - i < max_request_blocks and ids[j] == ids[j - 1] + 1:
                            j += 1
                        w.write(at + i, j - i, ids[i])
                        i = j
                    at += nblocks
            if reread:
                _files_op(w.read, base, listing, max_request_blocks)
            if delete_previous and k > 0:
                _files_op(w.trim, ((k - 1) % slots) * slot, listings[k - 1], None)
    return w.info(
        out,
        blocks_written=blocks_written,
        blocks_repeated=repeated,
        distinct_contents=len(first_seen),
        footprint_bytes=slots * slot * BLOCK,
    )


def _files_op(op, base: int, listing: list[tuple[int, str]], max_blocks: int | None) -> None:  # type: ignore[no-untyped-def]
    at = base
    for n, _ in listing:
        if n:
            step = max_blocks or n
            for i in range(0, n, step):
                op(at + i, min(step, n - i))
        at += n


@dataclass(frozen=True)
class Profile:
    """A workload's Table II row: share of requests that write, share of written 4 KiB blocks
    whose content was written before, mean request size."""

    write_ratio: float
    dedup_ratio: float
    mean_request_kib: float


#: CAGC's Table II (seed 003): the three FIU traces.
TABLE2 = {
    "homes": Profile(0.805, 0.300, 13.1),
    "web-vm": Profile(0.785, 0.493, 40.8),
    "mail": Profile(0.698, 0.893, 14.8),
}


@dataclass(frozen=True)
class Population:
    """How :func:`dedup_trace`'s file population behaves (all our choices; the seed's traces
    are of real servers). Defaults: files of 8 mean requests (at least 32 blocks, 128 KiB) on
    average; data kept at 85%
    of the logical space (deleting files beyond it); half the writes create files, the rest
    overwrite part of a live file; duplicates come from a pool of
    runs of 64 blocks, as many as hold 1/32 of the logical space (at least 64 runs), picked by a
    Zipf law of exponent 1 (a few contents very often, most rarely); files to delete are picked
    uniformly. ``shared_weight`` below 1 picks a file of shared content that much less often
    than one of unique content (the seed's premise, its Section III-C: pages many files share
    live longer); it makes the live data ever more shared, and the stored data's dedup ratio
    far above what the duplicate share of the writes gives, so it is off by default."""

    #: Mean file size in 4 KiB blocks (None: 8 mean requests, at least 32).
    mean_file_blocks: float | None = None
    fill: float = 0.85
    new_share: float = 0.5
    #: Runs in the pool (None: 1/32 of the logical space, at least 64).
    pool_runs: int | None = None
    zipf: float = 1.0
    shared_weight: float = 1.0


class _File:
    __slots__ = ("extents", "shared", "slot")

    def __init__(self, shared: bool, slot: int) -> None:
        self.extents: list[tuple[int, int]] = []
        self.shared = shared
        self.slot = slot

    def blocks(self) -> int:
        return sum(n for _, n in self.extents)

    def pieces(self, off: int, n: int) -> list[tuple[int, int]]:
        """The extents that hold blocks ``off .. off + n`` of the file."""
        out = []
        for s, m in self.extents:
            if off >= m:
                off -= m
                continue
            k = min(m - off, n)
            out.append((s + off, k))
            n -= k
            off = 0
            if n == 0:
                break
        return out


class _Space:
    """Free 4 KiB blocks of the logical space, taken next-fit."""

    def __init__(self, blocks: int) -> None:
        self.free = bytearray(blocks)  # 0 free, 1 used
        self.cursor = 0
        self.used = 0

    def take(self, n: int) -> list[tuple[int, int]]:
        got: list[tuple[int, int]] = []
        cap = len(self.free)
        while n > 0:
            s = self.free.find(0, self.cursor)
            if s < 0:
                s = self.free.find(0)
            if s < 0:  # cannot happen: deletions keep live data under `fill` (< 1) plus one request
                raise AssertionError("dedup_trace: the logical space is full")
            e = self.free.find(1, s, s + n)
            e = min(s + n if e < 0 else e, cap)
            self.free[s:e] = b"\x01" * (e - s)
            got.append((s, e - s))
            n -= e - s
            self.used += e - s
            self.cursor = e if e < cap else 0
        return got

    def give(self, s: int, n: int) -> None:
        self.free[s : s + n] = bytes(n)
        self.used -= n


def dedup_trace(
    profile: Profile | str,
    out: Path,
    *,
    capacity_bytes: int,
    requests: int,
    seed: int = 0,
    population: Population = Population(),
    prefill: bool = True,
    mean_gap_us: float | None = None,
) -> TraceInfo:
    """A file population with duplicates on a logical space of ``capacity_bytes``.

    Each of ``requests`` requests reads (share ``1 - write_ratio``) or writes ``b`` blocks
    (``b`` geometric with the profile's mean, at most 256). Files are *shared* (their blocks are
    runs of a pool of contents, picked by a Zipf law: duplicates) or *unique* (fresh content); a
    new file is shared with probability ``dedup_ratio``. A write extends the file being created,
    or starts one (share ``new_share`` of writes), or overwrites ``b`` blocks of a live file
    picked uniformly, with content of the file's kind; so files of both kinds are written in the
    proportion they live in, and the share of written blocks that repeat content is about
    ``dedup_ratio``. Whenever live data passes ``fill`` of the space, files are deleted
    (trimmed extent by extent) until it is below: a shared file is picked ``shared_weight`` as
    often as a unique one. Reads read ``b`` blocks of any live file (a read drawn while no file
    lives, possible only without ``prefill``, writes instead). Files take free extents
    next-fit, so a file may be in pieces: a read or an overwrite is cut where its file's piece
    ends (one request stays one request), a new file's write is split across the pieces it gets.

    With ``prefill`` the trace first creates files (shared with probability ``dedup_ratio``)
    until live data reaches ``fill`` (a server's file system holds its data before its trace starts); those writes come
    first and are counted in ``prefill_writes``. Run it without the device's own precondition
    (``precondition.fill_fraction = 0``).

    ``mean_gap_us``: requests (the prefill's too) arrive as a Poisson process with this mean
    inter-arrival time, so a timed replay (:func:`timed_workload`) leaves the device idle between
    them; None: every request has time 0 (closed-loop replay). The gaps come from their own
    random stream: the requests are the same either way.
    """
    if isinstance(profile, str) and profile not in TABLE2:
        raise ConfigError(f"dedup_trace: unknown profile {profile!r} (expected one of {sorted(TABLE2)})")
    p = TABLE2[profile] if isinstance(profile, str) else profile
    if not (0 <= p.write_ratio <= 1 and 0 <= p.dedup_ratio <= 1 and p.mean_request_kib > 0):
        raise ConfigError(f"dedup_trace: shares must be in [0, 1] and the request size positive, got {p}")
    pop = population
    cap = capacity_bytes // BLOCK
    if cap < 4096:
        raise ConfigError(f"dedup_trace: capacity_bytes must hold at least 4096 blocks of 4 KiB, got {capacity_bytes}")
    if not 0 < pop.fill < 1 or not 0 < pop.shared_weight <= 1 or not 0 <= pop.new_share <= 1:
        raise ConfigError(
            f"dedup_trace: population.fill in (0, 1), shared_weight in (0, 1], new_share in [0, 1]: {pop}"
        )
    if requests < 0:
        raise ConfigError(f"dedup_trace: requests must be >= 0, got {requests}")
    if pop.mean_file_blocks is not None and not pop.mean_file_blocks >= 1:
        raise ConfigError(f"dedup_trace: population.mean_file_blocks must be >= 1, got {pop.mean_file_blocks}")
    if pop.pool_runs is not None and pop.pool_runs < 1:
        raise ConfigError(f"dedup_trace: population.pool_runs must be >= 1, got {pop.pool_runs}")
    if not pop.zipf >= 0:
        raise ConfigError(f"dedup_trace: population.zipf must be >= 0, got {pop.zipf}")
    if mean_gap_us is not None and not (math.isfinite(mean_gap_us) and mean_gap_us > 0):
        raise ConfigError(f"dedup_trace: mean_gap_us must be a positive number of microseconds, got {mean_gap_us}")
    rng = np.random.default_rng(seed)
    mean_b = max(1.0, p.mean_request_kib * 1024 / BLOCK)
    mean_file = pop.mean_file_blocks if pop.mean_file_blocks is not None else max(32.0, 8 * mean_b)
    run_max = 64
    # Zipf over the pool's runs (rank 1 most popular), drawn by inverse CDF.
    pool_runs = pop.pool_runs if pop.pool_runs is not None else max(64, cap // (run_max * 32))
    ranks = np.arange(1, pool_runs + 1, dtype=np.float64)
    cdf = np.cumsum(ranks**-pop.zipf)
    cdf /= cdf[-1]
    pool_base = 1 << 20  # pool ids: pool_base + run * run_max + j
    fresh = 1 << 40

    space = _Space(cap)
    limit = int(pop.fill * cap)
    lists: tuple[list[_File], list[_File]] = ([], [])  # unique, shared
    current: _File | None = None
    left = 0  # blocks `current` still gets
    seen: set[int] = set()  # pool contents written so far
    blocks_written = repeated = fresh_written = 0

    def add(f: _File) -> None:
        f.slot = len(lists[f.shared])
        lists[f.shared].append(f)

    def remove(f: _File) -> None:
        ls = lists[f.shared]
        last = ls.pop()
        if last is not f:
            ls[f.slot] = last
            last.slot = f.slot

    def pick(ls: list[_File]) -> _File:
        return ls[int(rng.integers(len(ls)))]

    def delete_one() -> bool:
        nu, ns = len(lists[0]), len(lists[1])
        if current is not None:
            # Never the file being written.
            nu, ns = nu - (not current.shared), ns - current.shared
        if nu + ns == 0:
            return False
        shared = rng.random() < pop.shared_weight * ns / (pop.shared_weight * ns + nu)
        while True:
            f = pick(lists[shared])
            if f is not current:
                break
        remove(f)
        for s, n in f.extents:
            space.give(s, n)
            w.trim(s, n)
        return True

    def write(b: int, create: float, shared_p: float) -> None:
        nonlocal fresh, repeated, blocks_written, current, left, fresh_written
        target: list[tuple[int, int]]
        extend = not (lists[0] or lists[1]) or rng.random() < create
        if extend and current is None:
            current = _File(rng.random() < shared_p, 0)
            add(current)
            left = max(1, min(int(rng.geometric(1.0 / mean_file)), cap // 64))
        if extend and current is not None:
            f = current
            if f.shared:
                b = min(b, run_max)
            b = min(b, left)
            target = space.take(b)
            f.extents.extend(target)
            left -= b
            if left == 0:
                current = None
        else:
            k = int(rng.integers(len(lists[0]) + len(lists[1])))
            f = lists[0][k] if k < len(lists[0]) else lists[1][k - len(lists[0])]
            b = min(b, f.blocks(), run_max if f.shared else b)
            target = f.pieces(int(rng.integers(f.blocks() - b + 1)), b)[:1]
            b = target[0][1]
        if f.shared:
            run = int(np.searchsorted(cdf, rng.random(), side="right"))
            content = pool_base + run * run_max
        else:
            content = fresh
            fresh += b
        if f.shared:
            for j in range(b):
                if content + j in seen:
                    repeated += 1
                else:
                    seen.add(content + j)
        else:
            fresh_written += b  # fresh ids never repeat: counted, not kept
        blocks_written += b
        k = 0
        for s, m in target:
            w.write(s, m, content + k)
            k += m
        while space.used > limit and delete_one():
            pass

    ops = rng.random(requests) < p.write_ratio
    sizes = np.minimum(rng.geometric(1.0 / mean_b, requests), 256)
    with AtomicFile(out) as fh:
        w = _Writer(fh, None if mean_gap_us is None else _exponential_gaps(mean_gap_us, seed))
        if prefill:
            while space.used + 256 < limit:
                write(int(min(rng.geometric(1.0 / mean_b), 256)), 1.0, p.dedup_ratio)
        prefill_writes = w.writes
        for i in range(requests):
            b = int(sizes[i])
            n_live = len(lists[0]) + len(lists[1])
            if not ops[i] and n_live:
                k = int(rng.integers(n_live))
                f = lists[0][k] if k < len(lists[0]) else lists[1][k - len(lists[0])]
                b = min(b, f.blocks())
                if b:
                    s, m = f.pieces(int(rng.integers(f.blocks() - b + 1)), b)[0]
                    w.read(s, m)
                continue
            write(b, pop.new_share, p.dedup_ratio)
    return w.info(
        out,
        blocks_written=blocks_written,
        blocks_repeated=repeated,
        distinct_contents=len(seen) + fresh_written,
        footprint_bytes=cap * BLOCK,
        prefill_writes=prefill_writes,
    )


__all__ = [
    "TABLE2",
    "Population",
    "Profile",
    "TraceInfo",
    "dedup_trace",
    "releases_trace",
    "timed_workload",
    "workload",
]
