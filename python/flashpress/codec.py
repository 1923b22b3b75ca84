"""Codec benchmark on real files: compression ratio and single-core throughput per codec and
block size (``flashpress codec bench``).

    from flashpress.codec import codec_bench
    bench = codec_bench(["/usr/share/dict"], codecs=["lz4", "zstd-3"], block_sizes=["4k", "16k"])
    print(bench.table())
    bench.to_frame()            # one row per (codec, block size)
    bench.write_json("out/codec-bench.json")

The core reads every file into memory (walking directories in sorted order), cuts each file
into blocks (a file's last partial block zero-padded to the block size, as a store keeps a
tail in a whole block), compresses and decompresses every block on one thread, checks every
round trip, and reports ``saving`` (1 - stored/input, where a block that does not shrink is
stored raw), ``ratio`` and MB/s (10^6 uncompressed bytes per second). See
``crates/flashpress-core/src/codec/bench.rs`` for exactly what the clock covers.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from flashpress import __version__, _core
from flashpress.errors import ConfigError

if TYPE_CHECKING:
    import pandas as pd
    from tqdm import tqdm

#: Codecs compared by default (the issue's report set: DPC, FPC, BDI, LZ4, zstd-1, zstd-3,
#: deflate-6).
DEFAULT_CODECS: tuple[str, ...] = tuple(_core.report_codecs())
#: Block sizes compared by default: 4 KiB (a flash page, a file system block) and 16 KiB.
DEFAULT_BLOCK_SIZES: tuple[int, ...] = (4096, 16384)
#: With ``progress="auto"``, inputs at least this large get a bar even when stderr is not a
#: terminal; smaller ones only on a terminal. Either way it appears after 1 s.
PROGRESS_MIN_BYTES = 64 << 20

#: Units of the numeric result columns.
UNITS: dict[str, str] = {
    "block_size": "bytes",
    "blocks": "count",
    "input_bytes": "bytes (tail padding included)",
    "padding_bytes": "bytes",
    "compressed_bytes": "bytes",
    "stored_bytes": "bytes",
    "incompressible_blocks": "count",
    "ratio": "input / stored",
    "saving": "fraction (1 - stored / input)",
    "compress_mb_per_s": "10^6 uncompressed bytes per second, one core",
    "decompress_mb_per_s": "10^6 uncompressed bytes per second, one core",
    "compress_seconds": "s",
    "decompress_seconds": "s",
}

_SIZE = re.compile(r"\s*(-?\d+)\s*(|b|k|kb|kib|m|mb|mib|g|gb|gib)\s*", re.IGNORECASE)
_SCALE = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}

SizeLike = int | str


def parse_size(text: SizeLike, what: str = "size") -> int:
    """A byte count: an int, or text such as ``4096``, ``4k``, ``16KiB``, ``64M``, ``1g``
    (binary multiples). Raises ConfigError naming ``what`` otherwise."""
    if isinstance(text, bool):
        raise _config_error(what, f"expected a size such as 4096, 4k or 64M, got {text!r}")
    if isinstance(text, int):
        return text
    m = _SIZE.fullmatch(str(text))
    if m is None:
        raise _config_error(what, f"expected a size such as 4096, 4k or 64M, got {text!r}")
    return int(m.group(1)) * _SCALE[m.group(2)[:1].lower()]


def format_size(n: int) -> str:
    """``4096`` -> ``4k``, ``1048576`` -> ``1M``; other values as plain bytes."""
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("k", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)


def _config_error(key: str, msg: str, source: str = "codec_bench()") -> ConfigError:
    err = ConfigError(f"{source}: config key `{key}`: {msg}")
    err.key = key
    err.source_name = source
    err.detail = msg
    return err


class CodecBench:
    """Results of :func:`codec_bench`: ``rows`` (one dict per codec and block size, in the
    order run), ``corpus`` (paths, files, bytes, truncated, skipped entries) and the settings."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.rows: list[dict[str, Any]] = doc["rows"]
        self.corpus: dict[str, Any] = doc["corpus"]

    def row(self, codec: str, block_size: SizeLike) -> dict[str, Any]:
        """The row of ``codec`` (canonical name, e.g. ``zstd-3``) at ``block_size``."""
        bs = parse_size(block_size, "block_size")
        for r in self.rows:
            if r["codec"] == codec and r["block_size"] == bs:
                return r
        raise KeyError(f"no result for codec {codec!r} at block size {bs}")

    def to_frame(self) -> pd.DataFrame:
        """The rows as a DataFrame; ``df.attrs["units"]`` gives each numeric column's unit."""
        import pandas as pd

        df = pd.DataFrame(self.rows)
        df.attrs["units"] = dict(UNITS)
        return df

    def to_json(self) -> str:
        """Everything as JSON text (settings, corpus, rows, units)."""
        return json.dumps(self.doc, indent=2) + "\n"

    def write_json(self, path: str | os.PathLike[str]) -> Path:
        """Write :meth:`to_json` to ``path`` atomically: a failure leaves no partial file."""
        from flashpress.result import AtomicFile

        out = Path(path)
        with AtomicFile(out) as f:
            f.write(self.to_json())
        return out

    def table(self) -> str:
        """A plain aligned text table with a line about the corpus above it."""
        c = self.corpus
        paths = ", ".join(str(p) for p in c["paths"])
        lines = [
            f"{c['files']:,} file{'s' if c['files'] != 1 else ''}, {c['bytes']:,} bytes from {paths}"
            + (f" (cut at {c['bytes']:,} bytes by max_bytes)" if c["truncated"] else ""),
        ]
        if c["skipped"]:
            lines.append(f"{len(c['skipped']):,} directory entries not read (links to directories, repeats, FIFOs)")
        lines.append("")
        head = ["codec", "block", "blocks", "saving %", "ratio", "compress MB/s", "decompress MB/s"]
        body = [
            [
                r["codec"],
                format_size(r["block_size"]),
                f"{r['blocks']:,}",
                f"{100 * r['saving']:.2f}",
                "inf" if r["ratio"] is None else f"{r['ratio']:.3f}",
                f"{r['compress_mb_per_s']:,.1f}",
                f"{r['decompress_mb_per_s']:,.1f}",
            ]
            for r in self.rows
        ]
        widths = [max(len(row[i]) for row in [head, *body]) for i in range(len(head))]
        for row in [head, *body]:
            cells = [v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(row, widths, strict=True))]
            lines.append("  " + "  ".join(cells).rstrip())
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<CodecBench {len(self.rows)} rows over {self.corpus['bytes']:,} bytes>"


def _progress_callback(
    progress: bool | Literal["auto"], passes: int
) -> tuple[Callable[[int, int], None], list[tqdm[Any]]]:
    """A callback for the core that opens a tqdm bar (stderr) on its first call, when the
    total is known, and the list that holds the bar for closing. The core's total counts
    every pass (codec x block size) twice, compression and decompression; ``passes`` turns it
    back into the input size for the ``"auto"`` threshold."""
    from tqdm import tqdm

    bars: list[tqdm[Any]] = []

    def update(done: int, total: int) -> None:
        if not bars:
            show = progress is True or total // (2 * max(passes, 1)) >= PROGRESS_MIN_BYTES
            bars.append(
                tqdm(
                    total=total,
                    delay=1.0,
                    disable=False if show else None,  # None: only on a terminal
                    desc="codec bench",
                    unit="B",
                    unit_scale=True,
                    leave=False,
                    file=sys.stderr,
                )
            )
        bars[0].update(done - bars[0].n)

    return update, bars


def codec_bench(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    codecs: Sequence[str] | None = None,
    block_sizes: Sequence[SizeLike] | None = None,
    *,
    max_bytes: SizeLike | None = None,
    progress: bool | Literal["auto"] = "auto",
    _names: tuple[str, str, str] = ("codec_bench()", "block_sizes", "codecs"),
) -> CodecBench:
    """Benchmark ``codecs`` (names such as ``lz4``, ``zstd-3``, ``deflate-6``, ``dpc``; default
    :data:`DEFAULT_CODECS`) at ``block_sizes`` (ints or ``"4k"``-style text; default 4 KiB and
    16 KiB) on the files under ``paths`` (files or directories), reading at most ``max_bytes``.

    ``progress``: ``"auto"`` shows a bar on stderr after 1 s on a terminal, or for inputs of
    64 MiB and more; ``True`` always (after 1 s); ``False`` never. Ctrl-C stops the run.

    Raises UnknownCodecError for an unknown codec name, ConfigError for a bad block size or an
    input with no bytes, FileReadError naming a missing or unreadable path, CodecError if a
    round trip fails.
    """
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    path_list = [os.fspath(p) for p in paths]
    source, bs_key, codec_key = _names
    codec_list = [codecs] if isinstance(codecs, str) else list(DEFAULT_CODECS if codecs is None else codecs)
    sizes = [parse_size(b, bs_key) for b in (DEFAULT_BLOCK_SIZES if block_sizes is None else block_sizes)]
    cap = None if max_bytes is None else parse_size(max_bytes, "max_bytes")

    passes = len({c.strip().lower() for c in codec_list}) * len(sizes)
    callback, bars = (None, []) if progress is False else _progress_callback(progress, passes)
    try:
        text = _core.codec_bench(
            path_list,
            codec_list,
            sizes,
            cap,
            callback,
            source_name=source,
            block_size_key=bs_key,
            codec_key=codec_key,
        )
    finally:
        for bar in bars:
            bar.close()
    core = json.loads(text)
    doc = {
        "flashpress": __version__,
        "codecs": [r["codec"] for r in core["rows"][:: len(sizes)]],
        "block_sizes": sizes,
        "max_bytes": cap,
        "corpus": core["corpus"],
        "units": UNITS,
        "rows": core["rows"],
    }
    return CodecBench(doc)
