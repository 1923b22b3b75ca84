"""Error-bounded lossy codecs on float32/float64 arrays, under an absolute, range-relative or
fixed-ratio bound.

    from flashpress.lossy.codecs import Bound, compress
    c = compress(field, "sz3", Bound.parse("rel:1e-3"))
    c.ratio, c.max_error, c.compress_s
    back = c.decompress()

Codecs:

- ``szx``: our SZx-style codec in the Rust core (``codec/szx.rs``, chunked on N threads by
  ``codec/chunked.rs``), run without the GIL;
- ``sz3``: SZ3 through its official binding ``pysz`` (absolute-error mode);
- ``zfp``: ZFP through ``zfpy`` in fixed-accuracy mode (``tolerance`` = the absolute bound).

The two bindings hold the GIL and neither is built with OpenMP, so they run on one thread
(``max_threads`` says so; asking for more is a FieldError). A field's masked values (fill
values) are replaced by the mean of its valid ones before compression (the reader does that);
the mask is stored beside the stream, bit-packed and deflated (zlib), and its bytes count in the
compressed size. Bounds are checked on valid values only.

Bound modes: ``abs:E`` (every valid value within E), ``rel:R`` (within R x the valid values'
range), ``ratio:K`` (the loosest-to-tightest search for the absolute bound whose ratio is within
``RATIO_TOLERANCE`` of K: bisection on log(bound); when K cannot be reached the result says so
and keeps the nearest ratio found).
"""

from __future__ import annotations

import math
import time
import zlib
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Literal

import numpy as np

from flashpress import _core
from flashpress.errors import FieldError
from flashpress.lossy import CODECS
from flashpress.lossy.fields import Field

Mode = Literal["abs", "rel", "ratio"]
MODES: tuple[Mode, ...] = ("abs", "rel", "ratio")
#: A fixed-ratio search accepts a ratio within this share of the target (the issue's 10%).
RATIO_TOLERANCE = 0.10
#: Relative bounds the fixed-ratio search spans (x the value range).
RATIO_SEARCH_REL = (1e-9, 0.5)
#: Compressions the fixed-ratio search may try.
RATIO_SEARCH_STEPS = 40


@dataclass(frozen=True)
class Bound:
    """How much error a compression may make: ``abs`` (absolute), ``rel`` (x value range) or
    ``ratio`` (a compression ratio to reach)."""

    mode: Mode
    value: float

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise FieldError(f"bound mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        v = self.value
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise FieldError(f"bound {self.mode}: expected a finite number, got {v!r}")
        if self.mode == "ratio" and v <= 1:
            raise FieldError(f"bound ratio:{v}: a fixed ratio must be above 1 (compressed smaller than raw)")
        if self.mode != "ratio" and v <= 0:
            raise FieldError(f"bound {self.mode}:{v}: an error bound must be above 0")
        if self.mode == "rel" and v >= 1:
            raise FieldError(f"bound rel:{v}: a range-relative bound must be below 1 (1 = the whole range)")

    @classmethod
    def parse(cls, text: str) -> Bound:
        """``abs:1e-2``, ``rel:1e-3`` or ``ratio:10``."""
        mode, sep, value = str(text).partition(":")
        if not sep:
            raise FieldError(f"bound {text!r}: expected MODE:VALUE with MODE abs, rel or ratio (e.g. rel:1e-3)")
        try:
            v = float(value)
        except ValueError:
            raise FieldError(f"bound {text!r}: {value!r} is not a number") from None
        return cls(mode.strip().lower(), v)  # type: ignore[arg-type]

    def __str__(self) -> str:
        return f"{self.mode}:{self.value:g}"


def _mask_bytes(f: Field) -> bytes:
    if f.mask is None:
        return b""
    return zlib.compress(np.packbits(f.mask, axis=None).tobytes(), 6)


class _Szx:
    name = "szx"
    max_threads = 64

    def compress(self, data: np.ndarray, bound: float, threads: int) -> bytes:
        dt = "f32" if data.dtype == np.float32 else "f64"
        return bytes(_core.szx_compress(data.reshape(-1), dt, bound, threads=threads))

    def decompress(self, stream: bytes, shape: tuple[int, ...], dtype: np.dtype, threads: int) -> np.ndarray:
        out = np.empty(shape, dtype=dtype)
        _core.szx_decompress(stream, out.reshape(-1), "f32" if dtype == np.float32 else "f64", threads=threads)
        return out


class _Sz3:
    name = "sz3"
    max_threads = 1

    def compress(self, data: np.ndarray, bound: float, threads: int) -> bytes:
        from pysz import sz, szConfig, szErrorBoundMode

        cfg = szConfig()
        cfg.errorBoundMode = szErrorBoundMode.ABS
        cfg.absErrorBound = bound
        packed, _ = sz.compress(data, cfg)
        return bytes(packed.tobytes())

    def decompress(self, stream: bytes, shape: tuple[int, ...], dtype: np.dtype, threads: int) -> np.ndarray:
        from pysz import sz

        out, _ = sz.decompress(np.frombuffer(stream, dtype=np.uint8), dtype, shape)
        return np.asarray(out).reshape(shape)


class _Zfp:
    name = "zfp"
    max_threads = 1

    def compress(self, data: np.ndarray, bound: float, threads: int) -> bytes:
        import zfpy

        return bytes(zfpy.compress_numpy(data, tolerance=bound))

    def decompress(self, stream: bytes, shape: tuple[int, ...], dtype: np.dtype, threads: int) -> np.ndarray:
        import zfpy

        return np.asarray(zfpy.decompress_numpy(stream)).reshape(shape)


_IMPL: dict[str, _Szx | _Sz3 | _Zfp] = {"szx": _Szx(), "sz3": _Sz3(), "zfp": _Zfp()}


def codec_threads(codec: str) -> int:
    """The most threads ``codec`` can use here."""
    return _impl(codec).max_threads


def _impl(codec: str) -> _Szx | _Sz3 | _Zfp:
    try:
        return _IMPL[codec]
    except KeyError:
        raise FieldError(f"unknown lossy codec {codec!r}: expected one of {', '.join(CODECS)}") from None


@dataclass
class Compressed:
    """One compression of one field: the stream, what it reached and what it cost."""

    field: Field
    codec: str
    bound: Bound
    #: The absolute bound the codec was given.
    abs_bound: float
    stream: bytes
    mask: bytes
    threads: int
    #: Wall seconds of the codec call (this machine, measured).
    compress_s: float
    #: Largest |x - x'| over valid values.
    max_error: float
    #: For ``ratio``: whether the target was reached within RATIO_TOLERANCE; else True.
    reached: bool = True
    #: For ``ratio``: the compressions the search tried (bound, ratio), in order.
    search: list[tuple[float, float]] = dc_field(default_factory=list)
    #: Seconds the fixed-ratio search spent before the kept compression (0 otherwise).
    search_s: float = 0.0

    @property
    def nbytes(self) -> int:
        return len(self.stream) + len(self.mask)

    @property
    def ratio(self) -> float:
        return self.field.nbytes / self.nbytes

    def decompress(self, threads: int | None = None) -> tuple[np.ndarray, float]:
        """The decoded field (masked values as the codec returned them) and the wall seconds
        it took."""
        impl = _impl(self.codec)
        t = time.perf_counter()
        out = impl.decompress(self.stream, self.field.shape, self.field.dtype, threads or self.threads)
        if self.mask:
            # A load puts the file's fill value back where the mask says "no value".
            valid = np.unpackbits(np.frombuffer(zlib.decompress(self.mask), dtype=np.uint8), count=out.size)
            fill = self.field.fill_value if self.field.fill_value is not None else np.nan
            out.reshape(-1)[valid == 0] = fill
        return out, time.perf_counter() - t

    def summary(self) -> dict[str, object]:
        return {
            "field": self.field.name,
            "codec": self.codec,
            "mode": self.bound.mode,
            "bound": self.bound.value,
            "abs_bound": self.abs_bound,
            "threads": self.threads,
            "raw_bytes": self.field.nbytes,
            "compressed_bytes": self.nbytes,
            "ratio": self.ratio,
            "max_error": self.max_error,
            "max_error_rel": self.max_error / self.field.value_range if self.field.value_range > 0 else 0.0,
            "compress_s": self.compress_s,
            "reached": self.reached,
        }


def max_error(f: Field, back: np.ndarray) -> float:
    """Largest |x - x'| over the valid values of ``f`` (computed in float64)."""
    d = np.abs(f.data.astype(np.float64, copy=False) - back.astype(np.float64, copy=False))
    if f.mask is not None:
        d = d[f.mask]
    return float(d.max()) if d.size else 0.0


def _once(f: Field, codec: str, abs_bound: float, threads: int) -> tuple[bytes, float]:
    impl = _impl(codec)
    t = time.perf_counter()
    stream = impl.compress(f.data, abs_bound, threads)
    return stream, time.perf_counter() - t


def compress(
    f: Field,
    codec: str,
    bound: Bound | str,
    threads: int = 1,
    *,
    check: bool = True,
) -> Compressed:
    """Compress ``f`` with ``codec`` under ``bound`` on ``threads`` threads. With ``check``, the
    stream is decoded and the largest error measured (and a bound the codec broke is an error)."""
    b = Bound.parse(bound) if isinstance(bound, str) else bound
    impl = _impl(codec)
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise FieldError(f"threads: expected a whole number >= 1, got {threads!r}")
    if threads > impl.max_threads:
        raise FieldError(
            f"threads={threads}: {codec} runs on {impl.max_threads} thread here "
            "(its Python binding holds the GIL and is built without OpenMP); only szx is multi-threaded"
        )
    if codec in ("sz3", "zfp") and f.data.ndim > 4:
        raise FieldError(
            f"{f.name}: {codec} takes arrays of 1 to 4 dimensions, this field has {f.data.ndim} "
            f"(shape {f.shape}); reshape it (e.g. merge leading axes) or use szx",
            f.path,
            f.variable,
        )
    span = f.value_range
    mask = _mask_bytes(f)
    search: list[tuple[float, float]] = []
    search_s = 0.0
    reached = True
    if b.mode == "abs":
        ab = b.value
    elif b.mode == "rel":
        if span <= 0:
            raise FieldError(
                f"{f.name}: every valid value is {f.vmin:g}, so a range-relative bound is 0; use abs:E",
                f.path,
                f.variable,
            )
        ab = b.value * span
    else:
        ab, reached, search, search_s = _search_ratio(f, codec, b.value, threads, len(mask))
    stream, secs = _once(f, codec, ab, threads)
    c = Compressed(f, codec, b, ab, stream, mask, threads, secs, math.nan, reached, search, search_s)
    if check:
        back, _ = c.decompress()
        c.max_error = max_error(f, back)
        if c.max_error > ab:
            raise FieldError(
                f"{f.name}: {codec} broke its bound: max error {c.max_error:g} > {ab:g}", f.path, f.variable
            )
    return c


def _search_ratio(
    f: Field, codec: str, target: float, threads: int, mask_bytes: int
) -> tuple[float, bool, list[tuple[float, float]], float]:
    """The absolute bound whose ratio is nearest ``target`` (bisection on log bound: ratio grows
    with the bound for these codecs, though not strictly); whether it is within tolerance."""
    span = f.value_range if f.value_range > 0 else max(abs(f.vmin), 1.0)
    lo, hi = math.log(RATIO_SEARCH_REL[0] * span), math.log(RATIO_SEARCH_REL[1] * span)
    tried: list[tuple[float, float]] = []
    t0 = time.perf_counter()

    def ratio_at(log_b: float) -> float:
        stream, _ = _once(f, codec, math.exp(log_b), threads)
        r = f.nbytes / (len(stream) + mask_bytes)
        tried.append((math.exp(log_b), r))
        return r

    def close(r: float) -> bool:
        return abs(r - target) <= RATIO_TOLERANCE * target

    r_hi = ratio_at(hi)
    if r_hi < target and not close(r_hi):
        return math.exp(hi), False, tried, time.perf_counter() - t0
    r_lo = ratio_at(lo)
    if r_lo > target and not close(r_lo):
        return math.exp(lo), False, tried, time.perf_counter() - t0
    for _ in range(RATIO_SEARCH_STEPS):
        # Done when a ratio is close enough, or when the bracket has shrunk to nothing: the
        # ratio jumps over the target there (ZFP's ratio moves in bit-plane steps).
        if any(close(r) for _, r in tried) or hi - lo < 1e-9:
            break
        mid = (lo + hi) / 2
        if ratio_at(mid) < target:
            lo = mid
        else:
            hi = mid
    best_bound, best = min(tried, key=lambda t: abs(t[1] - target))
    return best_bound, close(best), tried, time.perf_counter() - t0


def ratio_reach_message(c: Compressed) -> str:
    """What a fixed-ratio compression reached, in words."""
    if c.bound.mode != "ratio":
        return ""
    near = f"ratio {c.ratio:.2f} at bound {c.abs_bound:.3g} (max error {c.max_error:.3g})"
    if c.reached:
        return f"target {c.bound.value:g} reached: {near}"
    below, above = ratio_bracket(c)
    jump = (
        f"; the ratio jumps from {below[1]:.2f} (bound {below[0]:.6g}) to {above[1]:.2f} (bound {above[0]:.6g})"
        if below and above
        else ""
    )
    return (
        f"target {c.bound.value:g} cannot be reached by {c.codec} on {c.field.name} within "
        f"{RATIO_TOLERANCE:.0%} (bounds {RATIO_SEARCH_REL[0]:g}..{RATIO_SEARCH_REL[1]:g} x range){jump}; "
        f"nearest {near}"
    )


def ratio_bracket(
    c: Compressed,
) -> tuple[tuple[float, float] | None, tuple[float, float] | None]:
    """Of a fixed-ratio search: the (bound, ratio) tried with the largest bound whose ratio is
    below the target and the one with the smallest bound whose ratio is not (None where there
    is none); the target lies between them."""
    t = c.bound.value
    below = [x for x in c.search if x[1] < t]
    above = [x for x in c.search if x[1] >= t]
    return (max(below) if below else None, min(above) if above else None)
