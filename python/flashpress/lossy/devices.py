"""Where a lossy pipeline's bytes go: how long writing and reading N bytes takes.

- :class:`SimulatedSsd`: the core's simulator (a preset, ``nvme`` by default) runs fio-shaped
  sequential streams: ``numjobs`` jobs, each writing (or reading) its own contiguous share at
  ``iodepth`` requests of ``bs`` bytes. A write's time runs until the flash is quiet (every
  buffered page programmed: the fsync a store ends with); a read's device first holds the data
  (preconditioned sequentially, not timed).
- :class:`HddModel`: a disk with a seek curve, rotation and zoned media rate (below), served
  request by request.
- :class:`RealDevice`: real I/O to a file on this machine, with ``O_DIRECT`` where the file
  system allows it and an ``fsync`` in the write's time.

Every device answers ``write_s(nbytes, io)`` and ``read_s(nbytes, io)`` and says what it is in
``describe()``. Simulated answers are cached per (nbytes, io): they are deterministic.
"""

from __future__ import annotations

import math
import mmap
import os
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from flashpress.errors import FieldError


@dataclass(frozen=True)
class IoShape:
    """How the bytes are moved: fio's ``bs``, ``iodepth`` and ``numjobs``."""

    bs: int = 4096
    iodepth: int = 16
    numjobs: int = 1

    def __post_init__(self) -> None:
        for k in ("bs", "iodepth", "numjobs"):
            v = getattr(self, k)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise FieldError(f"io.{k}: expected a whole number >= 1, got {v!r}")
        if self.bs % 512:
            raise FieldError(f"io.bs: expected a multiple of 512 bytes, got {self.bs}")

    def __str__(self) -> str:
        return f"bs={self.bs} iodepth={self.iodepth} numjobs={self.numjobs}"


#: The seed's fio settings (4 KiB blocks, I/O depth 16, one job).
SEED_IO = IoShape(4096, 16, 1)


class Device(Protocol):
    name: str

    def write_s(self, nbytes: int, io: IoShape = SEED_IO) -> float: ...

    def read_s(self, nbytes: int, io: IoShape = SEED_IO) -> float: ...

    def describe(self) -> dict[str, Any]: ...


def _round_up(n: int, bs: int) -> int:
    return max(bs, -(-n // bs) * bs)


class _Modelled:
    """A device whose times are computed (deterministic): ``_compute`` once per (direction,
    bytes, I/O shape), kept in ``_cache``."""

    _cache: dict[tuple[str, int, IoShape], float]

    def _compute(self, rw: str, nbytes: int, io: IoShape) -> float:
        raise NotImplementedError

    def write_s(self, nbytes: int, io: IoShape = SEED_IO) -> float:
        return self._time("write", nbytes, io)

    def read_s(self, nbytes: int, io: IoShape = SEED_IO) -> float:
        return self._time("read", nbytes, io)

    def _time(self, rw: str, nbytes: int, io: IoShape) -> float:
        key = (rw, nbytes, io)
        if key not in self._cache:
            self._cache[key] = self._compute(rw, nbytes, io)
        return self._cache[key]


# --- the simulated NVMe SSD -------------------------------------------------------------------


@dataclass
class SimulatedSsd(_Modelled):
    """The core simulator as the device (``preset`` plus ``overrides``, dotted keys)."""

    preset: str = "nvme"
    overrides: dict[str, Any] = field(default_factory=dict)
    name: str = "nvme"
    _cache: dict[tuple[str, int, IoShape], float] = field(default_factory=dict, repr=False)

    def _config(self, rw: str, nbytes: int, io: IoShape) -> Any:
        from flashpress.config import Config

        total = _round_up(nbytes, io.bs * io.numjobs)
        share = total // io.numjobs
        cfg = Config.preset(self.preset)
        if self.overrides:
            cfg = cfg.with_overrides(self.overrides, source_name="lossy device overrides")
        logical = cfg.logical_bytes()
        if total > logical:
            raise FieldError(
                f"{self.name}: {total} bytes do not fit the simulated device ({logical} logical bytes); "
                "raise nand.blocks_per_plane in the device overrides"
            )
        jobs = [
            {"name": f"{rw}{j}", "rw": rw, "bs": io.bs, "iodepth": io.iodepth, "size": share, "offset": j * share}
            for j in range(io.numjobs)
        ]
        fill = 0.0 if rw == "write" else min(1.0, (total + (1 << 20)) / logical)
        return cfg.with_overrides(
            {
                "precondition.fill_fraction": fill,
                "precondition.aging_fraction": 0.0,
                "workload": {"type": "fio", "jobs": jobs},
            },
            source_name="lossy pipeline",
        )

    def _compute(self, rw: str, nbytes: int, io: IoShape) -> float:
        import json

        from flashpress.run import run_simulation

        s = json.loads(run_simulation(self._config(rw, nbytes, io), progress=False).summary_json())
        t = float(s["sim_time_s"])
        if rw == "write":
            # The store ends with an fsync: every buffered page programmed.
            t = max(t, float(s["controller"]["flash_quiet_s"]))
        return t

    def describe(self) -> dict[str, Any]:
        return {"device": self.name, "kind": "simulated SSD", "preset": self.preset, "overrides": self.overrides}


# --- the HDD model ----------------------------------------------------------------------------


@dataclass(frozen=True)
class HddParams:
    """A disk drive: geometry and timing. Seek time for a distance of ``d`` of the stroke
    ``D`` is ``track_to_track + (avg - track_to_track) * sqrt(d / D) / (8 / 15)`` (the
    square-root curve of Ruemmler and Wilkes, IEEE Computer 1994, scaled so that the mean over
    uniformly random start and end points, E[sqrt(|x - y|)] = 8/15, is the datasheet's average
    seek); the media rate falls linearly from the outer to the inner diameter with the LBA."""

    rpm: float
    capacity_bytes: int
    avg_seek_read_ms: float
    avg_seek_write_ms: float
    track_to_track_ms: float
    media_mb_per_s_outer: float
    media_mb_per_s_inner: float
    #: Controller time per command that the disk cannot overlap when its queue runs dry.
    command_overhead_ms: float
    #: Where the data starts, as a share of the LBA space (0 = outer edge).
    start_fraction: float = 0.0
    source: str = ""


#: A 7,200 rpm SAS (SCSI) enterprise disk: Seagate Constellation ES.3 (ST1000NM0023, 1 TB,
#: SAS 6 Gb/s), product data sheet figures: 7,200 rpm (4.16 ms average latency), average seek
#: 8.5 ms read / 9.5 ms write, sustained transfer up to 175 MB/s. Track-to-track seek, inner
#: rate and command overhead are not on the sheet: 0.5 ms, 55% of the outer rate and 0.1 ms are
#: typical values (assumed, not measured).
SCSI_7200 = HddParams(
    rpm=7200.0,
    capacity_bytes=1_000_000_000_000,
    avg_seek_read_ms=8.5,
    avg_seek_write_ms=9.5,
    track_to_track_ms=0.5,
    media_mb_per_s_outer=175.0,
    media_mb_per_s_inner=0.55 * 175.0,
    command_overhead_ms=0.1,
    source="Seagate Constellation ES.3 SAS (ST1000NM0023) data sheet; track-to-track, inner rate, overhead assumed",
)

HDD_PRESETS: dict[str, HddParams] = {"scsi-7200": SCSI_7200}


@dataclass
class HddModel(_Modelled):
    """Requests served one at a time in LBA order per job (the disk's queue keeps each job's
    run of ``iodepth`` requests together, switching jobs between runs). A request that starts
    where the previous one ended streams at the media rate of its zone; otherwise it pays a
    seek, half a revolution on average, the command overhead and its transfer. With ``iodepth``
    1 the queue runs dry between requests, so each request also pays the command overhead (the
    disk's read-ahead and write cache keep the platter streaming: no missed revolution)."""

    params: HddParams = SCSI_7200
    name: str = "hdd"
    _cache: dict[tuple[str, int, IoShape], float] = field(default_factory=dict, repr=False)

    def _seek_ms(self, distance: float, write: bool) -> float:
        p = self.params
        if distance <= 0:
            return 0.0
        avg = p.avg_seek_write_ms if write else p.avg_seek_read_ms
        return p.track_to_track_ms + (avg - p.track_to_track_ms) * math.sqrt(min(distance, 1.0)) / (8 / 15)

    def _rate(self, lba_fraction: float) -> float:
        p = self.params
        f = min(max(lba_fraction, 0.0), 1.0)
        return (p.media_mb_per_s_outer + (p.media_mb_per_s_inner - p.media_mb_per_s_outer) * f) * 1e6

    def _compute(self, rw: str, nbytes: int, io: IoShape) -> float:
        p = self.params
        write = rw == "write"
        total = _round_up(nbytes, io.bs * io.numjobs)
        if total > p.capacity_bytes:
            raise FieldError(f"{self.name}: {total} bytes do not fit the disk ({p.capacity_bytes} bytes)")
        share = total // io.numjobs
        rev_ms = 60_000.0 / p.rpm
        cap = float(p.capacity_bytes)
        start = p.start_fraction * cap
        pos = [start + j * share for j in range(io.numjobs)]
        end = [start + (j + 1) * share for j in range(io.numjobs)]
        head = start
        ms = 0.0
        first = True
        # Runs of `iodepth` requests of one job, jobs in turn; within a run, requests stream.
        run_bytes = io.bs * io.iodepth
        while any(a < b for a, b in zip(pos, end, strict=True)):
            for j in range(io.numjobs):
                if pos[j] >= end[j]:
                    continue
                n = min(run_bytes, end[j] - pos[j])
                seeked = first or pos[j] != head
                if seeked:
                    ms += self._seek_ms(abs(pos[j] - head) / cap, write) + rev_ms / 2 + p.command_overhead_ms
                first = False
                if io.iodepth == 1 and not seeked:
                    ms += p.command_overhead_ms
                ms += n / self._rate((pos[j] + n / 2) / cap) * 1e3
                pos[j] += n
                head = pos[j]
        return ms / 1e3

    def describe(self) -> dict[str, Any]:
        return {"device": self.name, "kind": "HDD model", **asdict(self.params)}


# --- real I/O ---------------------------------------------------------------------------------


@dataclass
class RealDevice:
    """Real writes and reads of a scratch file in ``directory`` (removed afterwards), shaped
    like fio's: ``numjobs x iodepth`` threads each take the next ``bs`` request of the file in
    turn (so ``iodepth`` requests of one sequential stream are in flight; ``os.pwrite`` and
    ``os.preadv`` release the GIL), with ``O_DIRECT`` when the file system takes it, then one
    ``fsync`` in the write's time. Without ``O_DIRECT`` the written pages are dropped from the
    page cache (``posix_fadvise(DONTNEED)`` after the fsync) before a read. The data written is
    random bytes (so a compressing or deduplicating device sees no easy data)."""

    directory: Path
    name: str = "real"
    direct: bool | None = None

    def __post_init__(self) -> None:
        self.directory = Path(self.directory)
        if not self.directory.is_dir():
            raise FieldError(f"real device: {self.directory} is not a directory")

    def _open(self, path: Path, flags: int) -> int:
        if self.direct is not False:
            try:
                fd = os.open(path, flags | os.O_DIRECT, 0o600)
                self.direct = True
                return fd
            except OSError:
                self.direct = False
        return os.open(path, flags, 0o600)

    def _requests(self, fd: int, total: int, io: IoShape, write: bool) -> None:
        """``total`` bytes in ``bs`` requests from ``numjobs x iodepth`` threads."""
        import itertools
        import threading
        from concurrent.futures import ThreadPoolExecutor

        offsets = itertools.count(0, io.bs)
        lock = threading.Lock()

        def worker() -> None:
            buf = mmap.mmap(-1, io.bs)  # page-aligned, as O_DIRECT needs
            if write:
                buf.write(os.urandom(io.bs))
            while True:
                with lock:
                    off = next(offsets)
                if off >= total:
                    return
                done = os.pwrite(fd, buf, off) if write else os.preadv(fd, [buf], off)
                if done != io.bs:
                    raise OSError(f"short {'write' if write else 'read'} at offset {off}")

        with ThreadPoolExecutor(io.iodepth * io.numjobs) as pool:
            for fut in [pool.submit(worker) for _ in range(io.iodepth * io.numjobs)]:
                fut.result()

    def _write_file(self, path: Path, nbytes: int, io: IoShape) -> float:
        total = _round_up(nbytes, io.bs)
        fd = self._open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        try:
            t = time.perf_counter()
            self._requests(fd, total, io, write=True)
            os.fsync(fd)
            secs = time.perf_counter() - t
            if not self.direct:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
        return secs

    def _scratch(self) -> Path:
        return self.directory / f".flashpress-lossy-{os.getpid()}.tmp"

    def write_s(self, nbytes: int, io: IoShape = SEED_IO) -> float:
        path = self._scratch()
        try:
            return self._write_file(path, nbytes, io)
        finally:
            path.unlink(missing_ok=True)

    def read_s(self, nbytes: int, io: IoShape = SEED_IO) -> float:
        path = self._scratch()
        try:
            self._write_file(path, nbytes, io)
            fd = self._open(path, os.O_RDONLY)
            try:
                t = time.perf_counter()
                self._requests(fd, _round_up(nbytes, io.bs), io, write=False)
                return time.perf_counter() - t
            finally:
                os.close(fd)
        finally:
            path.unlink(missing_ok=True)

    def describe(self) -> dict[str, Any]:
        return {
            "device": self.name,
            "kind": "real I/O",
            "directory": str(self.directory),
            "direct": self.direct,
            "note": "numjobs x iodepth threads over one sequential stream; fsync in the write time",
        }


def _block_presets() -> list[str]:
    from flashpress.config import Config, presets

    return [p for p in presets() if not _not_block(Config.preset(p).to_dict())]


def _not_block(cfg: Mapping[str, object]) -> str | None:
    """Why a config is not a conventional block SSD the lossy pipeline can store on, or None."""
    if cfg.get("stack") is not None:
        return "a host stack (file system over a CCSD)"
    if cfg.get("zns") is not None:
        return "a zoned device (writes only at zone write pointers)"
    return None


def device(spec: str, ssd_overrides: dict[str, Any] | None = None) -> SimulatedSsd | HddModel | RealDevice:
    """``nvme`` (the simulated SSD, preset nvme), ``ssd:PRESET``, ``hdd`` (the 7,200 rpm SCSI
    disk model), ``hdd:PRESET`` or ``real:DIRECTORY``."""
    kind, _, arg = spec.partition(":")
    if kind == "nvme" and not arg:
        return SimulatedSsd("nvme", dict(ssd_overrides or {}), name="nvme")
    if kind == "ssd" and arg:
        from flashpress.config import Config

        cfg = Config.preset(arg)
        if ssd_overrides:
            cfg = cfg.with_overrides(dict(ssd_overrides), source_name="lossy device overrides")
        why = _not_block(cfg.to_dict())
        if why is not None:
            block = ", ".join(p for p in _block_presets())
            raise FieldError(
                f"device {spec!r}: preset {arg!r} is {why}, not a block SSD; "
                f"the lossy pipeline stores a field on a block device (block SSD presets: {block})"
            )
        return SimulatedSsd(arg, dict(ssd_overrides or {}), name=f"ssd:{arg}")
    if kind == "hdd":
        p = arg or "scsi-7200"
        if p not in HDD_PRESETS:
            raise FieldError(f"device {spec!r}: unknown HDD preset {p!r} (known: {', '.join(HDD_PRESETS)})")
        return HddModel(HDD_PRESETS[p], name="hdd" if not arg else spec)
    if kind == "real" and arg:
        return RealDevice(Path(arg), name="real")
    raise FieldError(
        f"device {spec!r}: expected nvme, ssd:PRESET, hdd, hdd:PRESET ({', '.join(HDD_PRESETS)}) or real:DIRECTORY"
    )
