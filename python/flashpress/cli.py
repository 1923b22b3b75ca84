"""The ``flashpress`` command: run, presets, sweep, plot, reproduce, report, codec, lossy.

Errors from flashpress (bad config, trace line, job file, unreadable file, existing output)
print ``flashpress: error: <message>`` on stderr and exit with status 2, without a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import shlex
import signal
import sys

from flashpress import __version__, _core
from flashpress.config import TYPE_CHECKING, Config, absolute_path
from flashpress.errors import FlashpressError

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

TRACE_FORMATS = (
    "disksim",
    "msr",
    "blkparse",
    "fiu",
    "csv",
    "spc",
    "alibaba",
    "tencent",
    "cloudphysics",
    "oracle_general",
    "oracle_general_opns",
)
TIME_UNITS = ("ns", "us", "ms", "s", "filetime")


def _terminal_columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` reads it (``COLUMNS``, else the
    terminal of stdout, else 80) without importing :mod:`shutil`, which loads zlib, bz2 and lzma
    (0.5 MiB of a run's peak RSS): argparse's help formatter imports it for every argument added."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


class _Parser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose help formatter is given the terminal's width (its
    subcommands' parsers are of this class too)."""

    def _get_formatter(self) -> argparse.HelpFormatter:
        return self.formatter_class(prog=self.prog, width=_terminal_columns() - 2)  # type: ignore[call-arg]


class UsageError(Exception):
    """A command-line mistake found after parsing (reported like argparse's own)."""


def parse_value(text: str) -> Any:
    """A ``--set`` value: a TOML literal (``0.2``, ``true``, ``"x"``, ``[1, 2]``, ``{ type = "single" }``),
    or the text itself when it is not one (so ``--set ftl.gc.victim=fifo`` works unquoted)."""
    import tomllib

    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text
    except ValueError as e:  # an integer of more digits than Python converts
        raise UsageError(f"--set value {text!r}: {e}") from None


def parse_sets(items: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--set expects KEY=VALUE (e.g. ftl.op_ratio=0.2), got {item!r}")
        out[key.strip()] = parse_value(value.strip())
    return out


# -- summary table ----------------------------------------------------------------------


def _num(v: Any, fmt: str = ",.1f") -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return format(v, fmt)


def format_summary(summary: dict[str, Any], title: str) -> str:
    """A small aligned table of the headline figures of ``summary.json``."""
    lines = [title, ""]
    head = ["op", "requests", "MB/s", "IOPS", "mean", "p50", "p99", "p99.9", "max"]
    rows = []
    for op in ("read", "write", "trim"):
        s = summary.get(op) or {}
        if op == "trim" and not s.get("requests"):
            continue
        lat = s.get("latency_us") or {}
        rows.append(
            [
                op,
                _num(s.get("requests"), ","),
                _num(s.get("throughput_mb_s"), ",.2f"),
                _num(s.get("iops"), ",.0f"),
                *(_num(lat.get(k), ",.1f") for k in ("mean", "p50", "p99", "p999", "max")),
            ]
        )
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    lines.append(
        "  "
        + "  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(head, widths, strict=True)))
        + "   (latency in us)"
    )
    for r in rows:
        lines.append(
            "  "
            + "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
        )
    lines.append("")
    energy = summary.get("energy") or {}

    def n(key: str) -> str:
        return _num(summary.get(key), ",")

    facts = [
        ("requests", f"{n('requests_completed')} completed of {n('requests_issued')} issued"),
        ("simulated time", f"{_num(summary.get('sim_time_s'), ',.6f')} s"),
    ]
    win = summary.get("window") or {}
    if win.get("from_s"):
        facts.append(
            (
                "measured",
                f"{_num(win.get('from_s'), ',.3f')} s to {_num(win.get('to_s'), ',.3f')} s (stats.warmup_ms excluded)",
            )
        )
    facts += [
        ("WAF", _num(summary.get("waf"), ".3f")),
        ("NAND", f"{n('nand_reads')} reads, {n('nand_programs')} programs, {n('erases')} erases"),
        (
            "GC",
            f"{n('gc_invocations')} invocations, {n('gc_pages_migrated')} pages migrated, "
            f"{n('gc_blocks_erased')} blocks erased",
        ),
        ("energy", f"{_num(energy.get('total_j'), ',.4f')} J"),
    ]
    ctl = summary.get("controller")
    if ctl:
        rd = (summary.get("read") or {}).get("during_gc") or {}
        tail = (rd.get("latency_us") or {}).get("p99")
        facts.append(
            (
                "controller",
                f"plane busy {100 * ctl['plane_busy_fraction']:.1f}% (GC {100 * ctl['gc_busy_fraction']:.1f}%), "
                f"{ctl['program_suspensions'] + ctl['erase_suspensions']:,} suspensions, "
                f"{_num(rd.get('requests'), ',')} reads waited during GC"
                + ("" if tail is None else f" (p99 {tail:,.1f} us)"),
            )
        )
    content = summary.get("content")
    if content:
        saving = content.get("saving")
        facts.append(
            (
                "content",
                f"{content['codec']} at {content['granularity_bytes'] // 1024} KiB ({content['mode']} mode): "
                f"ratio {_num(content.get('ratio'), '.3f')}, "
                f"saving {'-' if saving is None else f'{100 * saving:.1f}%'} "
                f"of {_num(content.get('blocks_written'), ',')} blocks written",
            )
        )
    unmapped = summary.get("unmapped_page_reads") or 0
    if unmapped:
        # A real SSD answers a read of never-written addresses from its map, with zeros and
        # no flash read; the run does the same and says how often.
        facts.append(
            (
                "unmapped reads",
                f"{unmapped:,} page reads of never-written addresses, answered with zeros without a flash read",
            )
        )
    laid = (summary.get("precondition") or {}).get("layout_bytes") or 0
    if laid:
        # fio writes a file a job reads before the job starts; the run did it before its
        # window, untimed, as it preconditions.
        facts.append(("laid out", f"{laid:,} bytes of fio job files written before the jobs started (untimed)"))
    w = max(len(k) for k, _ in facts)
    lines.extend(f"  {k.ljust(w)}  {v}" for k, v in facts)
    notes = summary.get("workload_notes") or []
    if notes:
        lines += ["", "workload notes:"]
        lines.extend(f"  {note}" for note in notes)
    return "\n".join(lines)


# -- commands ---------------------------------------------------------------------------


def _build_run_config(args: argparse.Namespace) -> Config:
    cfg = Config.from_toml(args.config) if args.config else Config.preset(args.preset or "default")
    trace_flags = [
        f
        for f in ("time_unit", "replay", "queue_depth", "address_mode", "hash_bytes", "device", "host")
        if getattr(args, f) is not None
    ]
    if args.job and args.trace:
        raise UsageError("give either --job or --trace, not both")
    if args.trace and not args.format:
        raise UsageError(f"--trace needs --format ({', '.join(TRACE_FORMATS)})")
    if (args.format or trace_flags) and not args.trace:
        raise UsageError(
            "--format, --time-unit, --replay, --queue-depth, --address-mode, --hash-bytes, --device and --host"
            " need --trace"
        )
    if args.fio_args is not None and args.trace:
        raise UsageError("give either --fio-args or --trace, not both")
    if args.job or args.fio_args is not None:
        fio: dict[str, Any] = {"type": "fio"}
        if args.job:
            fio["path"] = absolute_path(args.job)
        if args.fio_args is not None:
            try:
                fio["args"] = shlex.split(args.fio_args)
            except ValueError as e:
                raise UsageError(f"--fio-args: {e}") from None
            if not fio["args"]:
                raise UsageError("--fio-args is empty")
        cfg = cfg.with_overrides({"workload": fio}, source_name="--job" if args.job else "--fio-args")
    elif args.trace:
        workload = json.loads(_core.default_trace_config(absolute_path(args.trace), args.format))
        for flag in trace_flags:
            workload[flag] = getattr(args, flag)
        cfg = cfg.with_overrides({"workload": workload}, source_name="--trace")
    if args.set:
        cfg = cfg.with_overrides(parse_sets(args.set), source_name="--set", base_dir=os.getcwd())
    return cfg


def _human(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def format_estimate(est: dict[str, Any], cfg: Config, title: str) -> str:
    """``flashpress run --dry-run``'s report: the device and the memory estimate by part."""
    n: dict[str, Any] = dict(cfg.to_dict()["nand"])
    geo = " x ".join(
        f"{n[k]} {label}"
        for k, label in (
            ("channels", "channels"),
            ("chips_per_channel", "chips"),
            ("dies_per_chip", "dies"),
            ("planes_per_die", "planes"),
            ("blocks_per_plane", "blocks"),
            ("pages_per_block", "pages"),
        )
    )
    avail = est.get("available_bytes")
    lines = [
        title,
        f"device: {geo} of {est['page_size']} B = {est['physical_pages']:,} pages",
        f"capacity: {_human(est['physical_bytes'])} physical, {_human(est['logical_bytes'])} logical",
        f"memory estimate: {_human(est['total_bytes'])}"
        + (f" (available: {_human(avail)}, {est.get('available_limit')})" if avail is not None else ""),
    ]
    w = max(len(c["name"]) for c in est["components"])
    for c in est["components"]:
        lines.append(f"  {c['name'].ljust(w)}  {_human(c['bytes']).rjust(10)}  {c['detail']}")
    return "\n".join(lines)


def cmd_run(args: argparse.Namespace) -> int:
    from flashpress.result import check_out_dir
    from flashpress.run import estimate_memory, simulate

    cfg = _build_run_config(args)
    source = args.config or f"preset `{args.preset or 'default'}`"
    if args.dry_run:
        if args.seed is not None:
            cfg = cfg.with_overrides({"seed": args.seed}, source_name="--seed")
        title = f"flashpress {__version__}: {source}: dry run (nothing simulated)"
        print(format_estimate(estimate_memory(cfg), cfg, title))
        return 0
    if args.out:
        check_out_dir(args.out, overwrite=args.force)  # fail before a long run, not after
    result = simulate(
        cfg,
        seed=args.seed,
        verify=True if args.verify else None,
        progress=not args.no_progress and "auto",
        max_memory=args.max_memory,
    )
    print(format_summary(result.summary, f"flashpress {__version__}: {source}, seed {result.config.seed}"))
    if args.out:
        out = result.write(args.out, timeline_format=args.timeline_format, overwrite=args.force)
        print(f"\nresults written to {out}/")
    return 0


def cmd_presets(args: argparse.Namespace) -> int:
    names = _core.preset_names()
    if args.show:
        print(_core.preset_toml(args.show), end="")
        return 0
    w = max(len(n) for n in names)
    for name in names:
        text = _core.preset_toml(name)
        first = next((ln.lstrip("# ").strip() for ln in text.splitlines() if ln.startswith("#")), "")
        print(f"{name.ljust(w)}  {first}")
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    from flashpress.sweep import sweep

    try:
        df = sweep(
            args.grid,
            args.out,
            scheduler=args.scheduler,
            workers=args.workers,
            overwrite=args.force,
            log=lambda msg: print(msg, file=sys.stderr),
            max_memory=args.max_memory,
        )
    except KeyboardInterrupt as e:
        return _interrupted(e)
    headline = ["requests_completed", "waf", "read.iops", "write.iops", "write.latency_us.p99"]
    shown = ["point", *df.attrs.get("params", []), *(c for c in headline if c in df.columns)]
    print(df[shown].to_string(index=False))
    print(f"\n{len(df)} points; results written to {args.out}/ (results.csv, results.parquet, points/)")
    return 0


def _interrupted(e: KeyboardInterrupt) -> int:
    """Ctrl-C of a sweep or reproduction: one line (what was kept), status 130."""
    print(f"flashpress: interrupted{f'; {e}' if str(e) else ''}", file=sys.stderr)
    return 130


def cmd_plot(args: argparse.Namespace) -> int:
    from flashpress.plots import plot_results

    for p in plot_results(args.results_dir, args.out):
        print(p)
    return 0


def _size_arg(text: str) -> int:
    """An argparse type for sizes (``4096``, ``4k``, ``64M``)."""
    from flashpress.codec import parse_size

    try:
        return parse_size(text)
    except FlashpressError as e:
        raise argparse.ArgumentTypeError(f"invalid size {text!r} (expected e.g. 4096, 4k, 16k, 64M)") from e


def _positive_size_arg(text: str) -> int:
    n = _size_arg(text)
    if n <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text!r}")
    return n


def _memory_arg(text: str) -> int:
    n = _size_arg(text)
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be 0 (no check) or a positive size, got {text!r}")
    return n


def cmd_codec_bench(args: argparse.Namespace) -> int:
    from flashpress.codec import DEFAULT_BLOCK_SIZES, codec_bench

    bench = codec_bench(
        args.paths,
        codecs=args.codec or None,
        block_sizes=args.block_size or list(DEFAULT_BLOCK_SIZES),
        max_bytes=args.max_bytes,
        progress=not args.no_progress and "auto",
        _names=("command line", "--block-size", "--codec"),
    )
    if args.json == "-":
        sys.stdout.write(bench.to_json())
        return 0
    print(bench.table())
    if args.json:
        print(f"\nresults written to {bench.write_json(args.json)}")
    return 0


def cmd_reproduce(args: argparse.Namespace) -> int:
    from flashpress.reproduce import reproduce

    if args.quick and args.scale:
        raise UsageError("give either --quick or --scale, not both")
    scale = "quick" if args.quick else (args.scale or "default")
    only = [o for o in args.only.split(",")] if args.only else None
    out = args.out or f"reproduce-{args.paper}"
    try:
        report = reproduce(
            args.paper,
            out,
            scale=scale,
            only=only,
            scheduler=args.scheduler,
            workers=args.workers,
            overwrite=args.force,
            log=None if args.quiet else (lambda msg: print(msg, file=sys.stderr)),
            max_memory=args.max_memory,
            controller=args.controller,
        )
    except ValueError as e:  # an unknown figure or scale
        raise UsageError(str(e)) from None
    except KeyboardInterrupt as e:
        return _interrupted(e)
    print(f"report written to {report} and {report.with_suffix('.html')}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from flashpress.reproduce import render

    for d in args.dirs:
        report = render(d)
        print(f"report written to {report} and {report.with_suffix('.html')}")
    return 0


def _max_memory_arg(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--max-memory",
        type=_memory_arg,
        metavar="SIZE",
        help=f"{what} (e.g. 8G; default: the available memory; 0: no check)",
    )


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="flashpress", description="flashpress: a flash SSD simulator")
    p.add_argument("--version", action="version", version=f"flashpress {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    r = sub.add_parser("run", help="run one simulation and print its summary")
    base = r.add_mutually_exclusive_group()
    base.add_argument("--config", metavar="FILE", help="TOML config file (merged over its preset)")
    base.add_argument("--preset", metavar="NAME", help="built-in preset (default: default)")
    r.add_argument("--job", metavar="JOBFILE", help="use a fio job file as the workload")
    r.add_argument(
        "--fio-args",
        metavar="'ARGS'",
        help="a fio command line as the workload, quoted: '--name=a --rw=randwrite --bs=4k --size=1g' "
        "(options before the first --name are global; with --job, its jobs come after the file's)",
    )
    r.add_argument("--trace", metavar="FILE", help="use a block trace as the workload")
    r.add_argument(
        "--format",
        choices=TRACE_FORMATS,
        help="trace format (with --trace; a column mapping for any table goes in a config's workload.format)",
    )
    r.add_argument("--time-unit", choices=TIME_UNITS, help="unit of the trace's time column")
    r.add_argument("--replay", choices=("timed", "afap"), help="honour timestamps or replay as fast as possible")
    r.add_argument("--queue-depth", type=int, metavar="N", help="requests in flight for afap replay")
    r.add_argument("--address-mode", choices=("strict", "wrap"), help="addresses past the device: error or wrap")
    r.add_argument(
        "--hash-bytes",
        type=int,
        metavar="N",
        help="FIU traces: bytes each record's MD5 covers (mail, web-vm: 4096; homes: 512)",
    )
    r.add_argument(
        "--device",
        type=int,
        metavar="N",
        help="only this device's records (DiskSim dev, MSR DiskNumber, SPC ASU, Alibaba device_id, Tencent VolumeID)",
    )
    r.add_argument("--host", metavar="NAME", help="MSR traces: only this host's records (Hostname, e.g. hm)")
    r.add_argument("--seed", type=int, metavar="N", help="seed of every random stream")
    r.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="override a config key (TOML value); repeatable"
    )
    r.add_argument("--verify", action="store_true", help="check every read against the last write")
    r.add_argument("--out", metavar="DIR", help="write config.json, summary.json, timeline and latency CDF here")
    r.add_argument("--timeline-format", choices=("parquet", "csv"), default="parquet")
    r.add_argument("--force", action="store_true", help="replace a non-empty --out directory")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.add_argument("--dry-run", action="store_true", help="print the device and the memory estimate, simulate nothing")
    _max_memory_arg(r, "refuse a run whose memory estimate exceeds SIZE")
    r.set_defaults(func=cmd_run)

    ps = sub.add_parser("presets", help="list the built-in presets")
    ps.add_argument("--show", metavar="NAME", help="print a preset's TOML")
    ps.set_defaults(func=cmd_presets)

    s = sub.add_parser("sweep", help="run a parameter grid on Dask")
    s.add_argument("grid", metavar="GRID.toml")
    s.add_argument("--out", required=True, metavar="DIR")
    s.add_argument("--scheduler", metavar="ADDR", help="Dask scheduler address (default: a local cluster)")
    s.add_argument("--workers", type=int, metavar="N", help="local cluster worker processes")
    s.add_argument("--force", action="store_true", help="replace a non-empty --out directory")
    _max_memory_arg(s, "refuse a point whose memory estimate exceeds SIZE, and start no more local workers than fit")
    s.set_defaults(func=cmd_sweep)

    pl = sub.add_parser("plot", help="plot a results directory (timeline, latency CDF)")
    pl.add_argument("results_dir", metavar="RESULTS_DIR")
    pl.add_argument("--out", metavar="DIR", help="where to write the plots (default: RESULTS_DIR)")
    pl.set_defaults(func=cmd_plot)

    rp = sub.add_parser(
        "reproduce",
        help="run a seed paper's evaluation (waltz, coco, prssd, cagc, lossy) on Dask: figures and a report",
        description="Run the evaluation of the Waltz paper, COCO, PR-SSD or CAGC as a grid of simulations on Dask, "
        "then write figures (PNG and SVG) and a report (report.md and report.html) that sets each result "
        "beside the paper's stated number.",
    )
    rp.add_argument("paper", choices=("waltz", "coco", "prssd", "cagc", "lossy"))
    rp.add_argument("--quick", action="store_true", help="CI-sized scale (fewer, shorter, smaller runs)")
    rp.add_argument("--scale", choices=("quick", "default", "full"), help="scale of the runs (default: default)")
    rp.add_argument("--out", metavar="DIR", help="output directory (default: reproduce-PAPER)")
    rp.add_argument("--force", action="store_true", help="replace a non-empty --out directory")
    # The flag's earlier name, kept so scripts keep working; --force is the one name of every command.
    rp.add_argument("--overwrite", action="store_true", dest="force", help=argparse.SUPPRESS)
    rp.add_argument("--workers", type=int, metavar="N", help="local cluster worker processes")
    rp.add_argument("--scheduler", metavar="ADDR", help="Dask scheduler address (default: a local cluster)")
    rp.add_argument(
        "--only", metavar="FIG[,FIG]", help="only these figures (e.g. 3,14 or fig12; coco: throughput,power,waf)"
    )
    rp.add_argument("--quiet", action="store_true", help="no per-run progress lines")
    rp.add_argument(
        "--controller",
        choices=("preset", "realistic"),
        default="preset",
        help="the storage-stack CCSD's controller (waltz, coco): the preset's (default; MQSim-like, first come "
        "first served) or a present-day one (read priority, suspension, preemptible GC) for sensitivity studies",
    )
    _max_memory_arg(rp, "refuse a run whose memory estimate exceeds SIZE, and start no more local workers than fit")
    rp.set_defaults(func=cmd_reproduce)

    rr = sub.add_parser(
        "report",
        help="write a reproduction's report.md and report.html again from its saved results",
        description="Write report.md and report.html of `flashpress reproduce` output directories again from "
        "their saved files (results.csv, scale.json, reproduce.json, figures/, runs/*/config.json) with the "
        "current claims, without running anything.",
    )
    rr.add_argument("dirs", nargs="+", metavar="DIR")
    rr.set_defaults(func=cmd_report)

    co = sub.add_parser("codec", help="codec tools (bench: ratio and throughput on real files)")
    co_sub = co.add_subparsers(dest="codec_command", metavar="SUBCOMMAND", required=True)
    cb = co_sub.add_parser(
        "bench",
        help="compression ratio and single-core MB/s per codec and block size on real files",
        description="Cut the files under PATH into blocks (each file's tail zero-padded to a whole block), "
        "compress and decompress every block with each codec on one core, check every round trip, and print "
        "saving, ratio and MB/s (10^6 uncompressed bytes per second) per codec and block size.",
    )
    cb.add_argument("paths", nargs="+", metavar="PATH", help="files or directories (walked in sorted order)")
    cb.add_argument(
        "--codec",
        action="append",
        default=[],
        metavar="NAME",
        help=f"codec to run; repeatable (default: {', '.join(_core.report_codecs())}; names: {_core.codec_names()})",
    )
    cb.add_argument(
        "--block-size",
        action="append",
        default=[],
        type=_size_arg,
        metavar="SIZE",
        help="block size, a power of two >= 512 (4096, 4k, 16k, 64k); repeatable (default: 4k and 16k)",
    )
    cb.add_argument("--max-bytes", type=_positive_size_arg, metavar="SIZE", help="read at most this much (e.g. 64M)")
    cb.add_argument("--json", metavar="FILE", help="also write the results as JSON, atomically; '-' prints JSON only")
    cb.add_argument("--no-progress", action="store_true", help="no progress bar")
    cb.set_defaults(func=cmd_codec_bench)

    from flashpress.lossy.cli import add_parser as add_lossy_parser

    add_lossy_parser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["run", *(argv or [])])
    # From here Ctrl-C is KeyboardInterrupt. Only the main thread may set a handler: elsewhere
    # (main() called from a thread) signal.signal raises ValueError and the handler stays.
    # Asked this way rather than through `threading`, which a run does not otherwise import.
    with contextlib.suppress(ValueError):
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return int(args.func(args))
    except UsageError as e:
        parser.exit(2, f"flashpress {args.command}: error: {_core.shorten_message(str(e))}\n")
    except (FlashpressError, OSError) as e:
        print(f"flashpress: error: {_core.shorten_message(str(e))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("flashpress: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
