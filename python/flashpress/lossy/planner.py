"""The informed design: predict store and load time for raw I/O and for each compressor, thread
count and schedule (serial or pipelined) before running any of them, and recommend one.

    from flashpress.lossy.planner import plan
    p = plan(field, device("nvme"), "rel:1e-3")
    print(p.table()); p.best; p.crossover
    p.measure()        # runs the recommendation, raw and the best compressing one: predicted vs measured

How it predicts: each codec compresses a *sample* of the field (``sample_fraction`` of it, in
``SLABS`` slabs spread along its longest axis, so every region is seen) under the same absolute
bound the whole field would get (a range-relative bound uses the whole field's range; a fixed
ratio is searched on the sample, and the store uses the bound found). The sample's ratio is the
prediction for the field. Time is affine in size (a per-call cost plus a per-byte one), fitted
through the sample and a piece of it as large as one pipelined chunk: the whole field's time and
one chunk's come off that line, so a pipeline of small chunks pays its per-call overheads. The
device is asked for the predicted compressed size. Raw I/O needs no sample.

Crossover: with a device of bandwidth B (bytes/s), raw store takes N/B and compressed
C + N/(rB), so raw wins above B* = N (1 - 1/r) / C (decompression time D for loads). It is
reported per codec from the predictions, against the device's own bandwidth N / write_s(N).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace
from dataclasses import field as dc_field
from typing import Any, Literal

import numpy as np

from flashpress.errors import FieldError
from flashpress.lossy import CODECS, pipeline
from flashpress.lossy.codecs import Bound, codec_threads
from flashpress.lossy.devices import SEED_IO, Device, IoShape
from flashpress.lossy.fields import Field

Goal = Literal["store", "load", "both"]
GOALS: tuple[Goal, ...] = ("store", "load", "both")
#: Slabs the sample is cut into.
SLABS = 8
#: Fields at most this large are their own sample (a codec takes milliseconds on them), and no
#: sample is smaller: per-byte speed measured on less is off by tens of percent (caches, and
#: the per-call cost weighs more).
WHOLE_BELOW_BYTES = 16 << 20
#: Chunks a pipelined schedule cuts the field into.
PIPELINE_CHUNKS = 8


def sample(f: Field, fraction: float) -> Field:
    """``fraction`` of ``f`` (but at least WHOLE_BELOW_BYTES) in SLABS slabs spread along its
    longest axis (whole slices of the other axes, so the codecs see the field's own shape); the
    field itself when it is small."""
    if not 0 < fraction <= 1:
        raise FieldError(f"sample fraction must be in (0, 1], got {fraction}")
    if fraction == 1 or f.nbytes <= WHOLE_BELOW_BYTES:
        return f
    axis = int(np.argmax(f.shape))
    n = f.shape[axis]
    take = max(1, round(n * max(fraction, WHOLE_BELOW_BYTES / f.nbytes) / SLABS))
    starts = [round(i * (n - take) / (SLABS - 1)) for i in range(SLABS)]
    idx = np.unique(np.concatenate([np.arange(s0, s0 + take) for s0 in starts]))
    data = np.ascontiguousarray(np.take(f.data, idx, axis=axis))
    mask = None if f.mask is None else np.ascontiguousarray(np.take(f.mask, idx, axis=axis))
    return replace(f, name=f"{f.name} (sample)", data=data, mask=mask)


def _piece(s: Field, nbytes: float) -> Field:
    """A contiguous piece of ``s`` of about ``nbytes`` (whole slices along its longest axis),
    at most 1/PIPELINE_CHUNKS of it, from its middle."""
    axis = int(np.argmax(s.shape))
    n = s.shape[axis]
    take = max(1, min(n // PIPELINE_CHUNKS or 1, round(n * nbytes / s.nbytes)))
    idx = np.arange((n - take) // 2, (n - take) // 2 + take)
    data = np.ascontiguousarray(np.take(s.data, idx, axis=axis))
    mask = None if s.mask is None else np.ascontiguousarray(np.take(s.mask, idx, axis=axis))
    return replace(s, name=f"{s.name} (piece)", data=data, mask=mask)


def _affine(x0: float, t0: float, x1: float, t1: float, x: float) -> float:
    """The time at size ``x`` of the line through (x0, t0) and (x1, t1), sizes in bytes: a
    per-call cost plus a per-byte one, neither below 0 (two equal sizes: proportional)."""
    if x1 <= x0:
        return t1 * x / x1
    per_byte = max(0.0, (t1 - t0) / (x1 - x0))
    per_call = max(0.0, t1 - per_byte * x1)
    return per_call + per_byte * x


@dataclass
class Plan:
    """Predictions for every candidate, the recommendation, and the crossover bandwidths."""

    field: Field
    device: Device
    io: IoShape
    bound: Bound
    goal: Goal
    sample_fraction: float
    rows: list[dict[str, Any]]
    crossover: dict[str, dict[str, float]]
    device_mb_per_s: dict[str, float]
    notes: list[str] = dc_field(default_factory=list)

    @property
    def best(self) -> dict[str, Any]:
        return min(self.rows, key=lambda r: r[f"pred_{self.goal}_s"])

    def table(self) -> str:
        lines = [
            f"{self.field.name}: {self.field.nbytes / 1e6:.1f} MB on {self.device.name} ({self.io}), "
            f"bound {self.bound}, goal {self.goal}; sample {self.sample_fraction:.0%}",
            "",
            f"{'candidate':<26} {'ratio':>7} {'compress':>9} {'write':>9} {'store':>9} "
            f"{'read':>9} {'decomp':>9} {'load':>9}",
        ]
        for r in sorted(self.rows, key=lambda r: r[f"pred_{self.goal}_s"]):
            lines.append(
                f"{r['candidate']:<26} {r['pred_ratio']:>7.2f} {r['pred_compress_s']:>9.4f} {r['pred_write_s']:>9.4f} "
                f"{r['pred_store_s']:>9.4f} {r['pred_read_s']:>9.4f} {r['pred_decompress_s']:>9.4f} "
                f"{r['pred_load_s']:>9.4f}"
            )
        b = self.best
        lines += ["", f"recommended: {b['candidate']} (predicted {self.goal} {b[f'pred_{self.goal}_s']:.4f} s)"]
        dev = self.device_mb_per_s
        lines.append(f"device: write {dev['write']:.0f} MB/s, read {dev['read']:.0f} MB/s for the raw field")
        for codec, x in self.crossover.items():
            lines.append(
                f"crossover {codec}: raw I/O wins above {x['store_mb_per_s']:.0f} MB/s (store), "
                f"{x['load_mb_per_s']:.0f} MB/s (load)"
            )
        lines += self.notes
        return "\n".join(lines)

    @property
    def best_compressed(self) -> dict[str, Any]:
        """The fastest candidate that compresses (for ``goal``)."""
        return min((r for r in self.rows if r["codec"] != "raw"), key=lambda r: r[f"pred_{self.goal}_s"])

    def measure(self, repeats: int = 3) -> list[dict[str, Any]]:
        """Run the recommendation, raw and (when raw is recommended) the best compressing
        candidate on the whole field; each row has predicted and measured store and load
        seconds and the relative error. A pipelined candidate runs chunk by chunk
        (:func:`pipeline.measure_pipelined`)."""
        chosen = [self.best]
        for extra in (next(r for r in self.rows if r["codec"] == "raw"), self.best_compressed):
            if extra not in chosen:
                chosen.append(extra)
        return [self.measure_candidate(c, repeats) for c in chosen]

    def measure_candidate(self, cand: dict[str, Any], repeats: int = 3) -> dict[str, Any]:
        """One candidate run on the whole field, beside its prediction."""
        codec = None if cand["codec"] == "raw" else cand["codec"]
        if codec is not None and cand["chunks"] > 1:
            m = pipeline.measure_pipelined(
                self.field, codec, cand["abs_bound"], self.device, self.io, cand["threads"], cand["chunks"], repeats
            )
        else:
            m = pipeline.run(
                self.field,
                codec,
                Bound("abs", cand["abs_bound"]) if codec else None,
                self.device,
                self.io,
                threads=cand["threads"],
                repeats=repeats,
            )
        row = {
            "candidate": cand["candidate"],
            "codec": cand["codec"],
            "recommended": cand is self.best,
            "pred_store_s": cand["pred_store_s"],
            "store_s": m["store_s"],
            "pred_load_s": cand["pred_load_s"],
            "load_s": m["load_s"],
            "pred_ratio": cand["pred_ratio"],
            "ratio": m["ratio"],
        }
        for k in ("store", "load"):
            row[f"{k}_error"] = (row[f"pred_{k}_s"] - row[f"{k}_s"]) / row[f"{k}_s"] if row[f"{k}_s"] else 0.0
        return row


def plan(
    f: Field,
    dev: Device,
    bound: Bound | str,
    io: IoShape = SEED_IO,
    *,
    codecs: tuple[str, ...] = CODECS,
    threads: tuple[int, ...] | None = None,
    goal: Goal = "store",
    sample_fraction: float = 0.125,
    repeats: int = 3,
) -> Plan:
    """Predict every candidate's store and load time on ``dev`` and recommend the fastest for
    ``goal``."""
    if goal not in GOALS:
        raise FieldError(f"goal must be one of {', '.join(GOALS)}, got {goal!r}")
    b = Bound.parse(bound) if isinstance(bound, str) else bound
    cores = os.cpu_count() or 1
    thread_set = threads or tuple(sorted({1, cores}))
    s = sample(f, sample_fraction)
    raw_w, raw_r = dev.write_s(f.nbytes, io), dev.read_s(f.nbytes, io)
    rows: list[dict[str, Any]] = [
        _row("raw", "raw", 1, 1, 1.0, 0.0, 0.0, 0.0, raw_w, raw_r),
    ]
    crossover: dict[str, dict[str, float]] = {}
    notes: list[str] = []
    # The absolute bound the whole field gets (a fixed ratio is searched on the sample).
    if b.mode == "rel":
        if f.value_range <= 0:
            raise FieldError(f"{f.name}: constant field, a range-relative bound is 0; use abs:E", f.path, f.variable)
        sample_bound = Bound("abs", b.value * f.value_range)
    else:
        sample_bound = b
    for codec in codecs:
        for t in thread_set:
            if t > codec_threads(codec):
                continue
            c, comp_s, dec_s = pipeline.measure_codec(s, codec, sample_bound, t, repeats)
            # A piece of the sample as large as one pipelined chunk of the field (or a 1/8
            # of the sample when the sample is the field): with the sample, an affine cost
            # (per call + per byte) that also holds for the chunks' per-call overheads.
            piece = _piece(s, f.nbytes / PIPELINE_CHUNKS)
            _, pc_s, pd_s = pipeline.measure_codec(piece, codec, Bound("abs", c.abs_bound), t, repeats)
            chunk_bytes = f.nbytes / PIPELINE_CHUNKS
            comp_chunk = _affine(piece.nbytes, pc_s, s.nbytes, comp_s, chunk_bytes)
            dec_chunk = _affine(piece.nbytes, pd_s, s.nbytes, dec_s, chunk_bytes)
            comp_s = _affine(piece.nbytes, pc_s, s.nbytes, comp_s, f.nbytes)
            dec_s = _affine(piece.nbytes, pd_s, s.nbytes, dec_s, f.nbytes)
            stored = max(1, round(f.nbytes / c.ratio))
            w, r = dev.write_s(stored, io), dev.read_s(stored, io)
            name = f"{codec} x{t}"
            rows.append(_row(name, codec, t, 1, c.ratio, c.abs_bound, comp_s, dec_s, w, r, reached=c.reached))
            prow = _row(
                f"{name} pipelined/{PIPELINE_CHUNKS}",
                codec,
                t,
                PIPELINE_CHUNKS,
                c.ratio,
                c.abs_bound,
                comp_s,
                dec_s,
                w,
                r,
                reached=c.reached,
            )
            prow["pred_compress_s"] = comp_chunk * PIPELINE_CHUNKS
            prow["pred_decompress_s"] = dec_chunk * PIPELINE_CHUNKS
            prow["pred_store_s"], prow["pred_load_s"] = pipeline.pipelined_times(
                comp_chunk, dec_chunk, dev, stored, io, PIPELINE_CHUNKS
            )
            prow["pred_both_s"] = prow["pred_store_s"] + prow["pred_load_s"]
            rows.append(prow)
            if not c.reached:
                notes.append(f"{codec}: fixed ratio {b.value:g} not reached on the sample (nearest {c.ratio:.2f})")
            if t == max(x for x in thread_set if x <= codec_threads(codec)):
                gain = f.nbytes * (1 - 1 / c.ratio) if c.ratio > 1 else 0.0
                crossover[name] = {
                    "ratio": c.ratio,
                    "store_mb_per_s": gain / comp_s / 1e6 if comp_s > 0 else math.inf,
                    "load_mb_per_s": gain / dec_s / 1e6 if dec_s > 0 else math.inf,
                }
    return Plan(
        f,
        dev,
        io,
        b,
        goal,
        s.nbytes / f.nbytes,
        rows,
        crossover,
        {"write": f.nbytes / raw_w / 1e6, "read": f.nbytes / raw_r / 1e6},
        notes,
    )


def _row(
    name: str,
    codec: str,
    threads: int,
    chunks: int,
    ratio: float,
    abs_bound: float,
    comp_s: float,
    dec_s: float,
    write_s: float,
    read_s: float,
    reached: bool = True,
) -> dict[str, Any]:
    return {
        "candidate": name,
        "codec": codec,
        "threads": threads,
        "chunks": chunks,
        "abs_bound": abs_bound,
        "reached": reached,
        "pred_ratio": ratio,
        "pred_compress_s": comp_s,
        "pred_write_s": write_s,
        "pred_store_s": comp_s + write_s,
        "pred_read_s": read_s,
        "pred_decompress_s": dec_s,
        "pred_load_s": read_s + dec_s,
        "pred_both_s": comp_s + write_s + read_s + dec_s,
    }
