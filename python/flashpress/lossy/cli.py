"""``flashpress lossy``: info, compress and plan on a scientific field.

FIELD is a file (``PATH`` or ``PATH:VARIABLE``; netCDF, HDF5, .npy, or raw with ``--dtype`` and
``--shape``) or a built-in data set name (``etopo5``, ``levitus_temp``, ...: ``make testdata``).
"""

from __future__ import annotations

import argparse
import json
import math
import os

from flashpress.config import TYPE_CHECKING
from flashpress.lossy import CODECS

if TYPE_CHECKING:
    from typing import Any


def _shape(text: str) -> tuple[int, ...]:
    try:
        dims = tuple(int(x) for x in text.lower().replace("x", ",").split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a shape such as 2161x4320 or 20,180,360, got {text!r}") from None
    if not dims or any(d < 1 for d in dims):
        raise argparse.ArgumentTypeError(f"expected positive dimensions, got {text!r}")
    return dims


def _threads(text: str) -> tuple[int, ...]:
    try:
        out = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected thread counts such as 1,2,4, got {text!r}") from None
    if any(t < 1 for t in out):
        raise argparse.ArgumentTypeError(f"thread counts must be >= 1, got {text!r}")
    return out


def _field_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("field", metavar="FIELD", help="PATH, PATH:VARIABLE, or a built-in data set name")
    p.add_argument("--var", metavar="NAME", help="the variable (netCDF) or dataset path (HDF5)")
    p.add_argument("--dtype", metavar="f32|f64", help="raw files: the value type; others: convert to it")
    p.add_argument("--shape", type=_shape, metavar="DIMS", help="raw files: the shape (e.g. 2161x4320)")
    p.add_argument(
        "--nonfinite",
        choices=("error", "mask"),
        default="error",
        help="NaN/Inf among the values: an error (default) or masked like fill values",
    )


def _io_args(p: argparse.ArgumentParser) -> None:
    from flashpress.cli import _positive_size_arg

    p.add_argument("--bs", type=_positive_size_arg, default=4096, metavar="SIZE", help="I/O block size (default 4k)")
    p.add_argument("--iodepth", type=int, default=16, metavar="N", help="requests in flight per job (default 16)")
    p.add_argument("--numjobs", type=int, default=1, metavar="N", help="I/O jobs (default 1)")


def _builtin(args: argparse.Namespace) -> bool:
    from flashpress.lossy.fields import DATASETS

    return args.field in DATASETS and not os.path.exists(args.field)


def read(args: argparse.Namespace) -> Any:
    from flashpress.lossy.fields import dataset, read_field

    if _builtin(args):
        return dataset(args.field)
    return read_field(args.field, args.var, dtype=args.dtype, shape=args.shape, nonfinite=args.nonfinite)


def cmd_info(args: argparse.Namespace) -> int:
    """A netCDF/HDF5 file without a variable: its variables; otherwise the field."""
    from flashpress.lossy.fields import file_kind, list_variables

    bare = not _builtin(args) and args.var is None and args.shape is None and args.dtype is None
    if bare and os.path.isfile(args.field) and file_kind(args.field) in ("netcdf", "hdf5"):
        for v in list_variables(args.field):
            print(json.dumps(v, default=str))
        return 0
    f = read(args)
    print(
        f"{f.name}: {f.dtype} {'x'.join(map(str, f.shape))} ({f.nbytes / 1e6:.2f} MB), "
        f"valid {f.valid / f.data.size:.2%}, range {f.vmin:g} .. {f.vmax:g}, units {f.units or '-'}"
    )
    return 0


def cmd_compress(args: argparse.Namespace) -> int:
    from flashpress.lossy.codecs import compress, ratio_reach_message

    f = read(args)
    rows = []
    for codec in args.codec or list(CODECS):
        c = compress(f, codec, args.bound, args.threads)
        _, dsec = c.decompress()
        row = c.summary() | {
            "decompress_s": dsec,
            "compress_mb_per_s": f.nbytes / c.compress_s / 1e6,
            "decompress_mb_per_s": f.nbytes / dsec / 1e6,
        }
        rows.append(row)
        msg = ratio_reach_message(c)
        print(
            f"{codec:4} {args.bound:>12}  ratio {c.ratio:8.2f}  max error {c.max_error:.4g} "
            f"({row['max_error_rel']:.2e} x range)  compress {row['compress_mb_per_s']:7.0f} MB/s  "
            f"decompress {row['decompress_mb_per_s']:7.0f} MB/s" + (f"  [{msg}]" if msg else "")
        )
    if args.json:
        _write_json(args.json, {"field": f.name, "rows": rows})
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    from flashpress.lossy.devices import IoShape, device
    from flashpress.lossy.planner import plan

    f = read(args)
    io = IoShape(args.bs, args.iodepth, args.numjobs)
    dev = device(args.device)
    p = plan(
        f,
        dev,
        args.bound,
        io,
        codecs=tuple(args.codec) if args.codec else CODECS,
        threads=args.threads,
        goal=args.goal,
        sample_fraction=args.sample,
    )
    print(p.table())
    doc: dict[str, Any] = {
        "field": f.name,
        "device": dev.describe(),
        "io": vars(io),
        "bound": str(p.bound),
        "goal": p.goal,
        "sample_fraction": p.sample_fraction,
        "candidates": p.rows,
        "recommended": p.best["candidate"],
        "crossover": p.crossover,
        "device_mb_per_s": p.device_mb_per_s,
    }
    if args.measure:
        rows = p.measure()
        print("\nmeasured on the whole field:")
        for r in rows:
            print(
                f"  {r['candidate']:<26} store predicted {r['pred_store_s']:.4f} s, measured {r['store_s']:.4f} s "
                f"({r['store_error']:+.1%}); load predicted {r['pred_load_s']:.4f} s, measured {r['load_s']:.4f} s "
                f"({r['load_error']:+.1%})"
            )
        doc["measured"] = rows
    if args.json:
        _write_json(args.json, doc)
    return 0


def _write_json(path: str, doc: dict[str, Any]) -> None:
    from flashpress.result import AtomicFile

    def clean(x: Any) -> Any:
        if isinstance(x, float) and not math.isfinite(x):
            return None
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, list | tuple):
            return [clean(v) for v in x]
        return x

    with AtomicFile(path) as fh:
        fh.write(json.dumps(clean(doc), indent=2, default=str) + "\n")


def add_parser(sub: Any) -> None:
    lo = sub.add_parser(
        "lossy",
        help="error-bounded lossy compression of scientific fields: info, compress, plan",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    lo_sub = lo.add_subparsers(dest="lossy_command", metavar="SUBCOMMAND", required=True)

    i = lo_sub.add_parser("info", help="a file's variables, or one field's shape, range and mask")
    _field_args(i)
    i.set_defaults(func=cmd_info)

    c = lo_sub.add_parser("compress", help="compress a field: ratio, max error and MB/s per codec")
    _field_args(c)
    c.add_argument("--codec", action="append", choices=CODECS, help="repeatable (default: all)")
    c.add_argument("--bound", default="rel:1e-3", help="abs:E, rel:R (x value range) or ratio:K (default rel:1e-3)")
    c.add_argument("--threads", type=int, default=1, metavar="N", help="compression threads (szx only; default 1)")
    c.add_argument("--json", metavar="FILE", help="also write the rows as JSON (atomically)")
    c.set_defaults(func=cmd_compress)

    p = lo_sub.add_parser(
        "plan",
        help="predict store/load time for raw and each codec on a device, recommend one",
        description="Predict store (compress + write) and load (read + decompress) time for raw I/O and for each "
        "codec, thread count and schedule (serial, or pipelined in chunks) from codec speed measured on a sample "
        "of the field and the device model; recommend the fastest; report the crossover bandwidth above which raw "
        "I/O wins. --measure then runs the recommendation (and raw) on the whole field.",
    )
    _field_args(p)
    p.add_argument("--device", default="nvme", help="nvme, ssd:PRESET, hdd, hdd:scsi-7200 or real:DIRECTORY")
    p.add_argument("--bound", default="rel:1e-3", help="abs:E, rel:R or ratio:K (default rel:1e-3)")
    p.add_argument("--codec", action="append", choices=CODECS, help="repeatable (default: all)")
    p.add_argument(
        "--threads", type=_threads, metavar="N[,N]", help=f"thread counts to try (default 1,{os.cpu_count() or 1})"
    )
    p.add_argument("--goal", choices=("store", "load", "both"), default="store", help="what to minimise")
    p.add_argument("--sample", type=float, default=0.125, metavar="F", help="share of the field sampled (0.125)")
    p.add_argument("--measure", action="store_true", help="run the recommendation on the whole field and compare")
    p.add_argument("--json", metavar="FILE", help="also write the plan as JSON (atomically)")
    _io_args(p)
    p.set_defaults(func=cmd_plan)


__all__ = ["add_parser"]
