"""``flashpress codec bench`` and ``flashpress.codec.codec_bench`` on real data: dictionary
text (GCIDE, from Debian's dict-gcide, fetched by ``make testdata``) and the machine's own
shared libraries; sanity relations between codecs that must hold on such data; bad inputs
through the API and the CLI."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest

from _helpers import REPO
from flashpress import _core, errors
from flashpress.cli import main
from flashpress.codec import DEFAULT_CODECS, _progress_callback, codec_bench, format_size, parse_size

TESTDATA = Path(os.environ.get("FLASHPRESS_TESTDATA", REPO / "target" / "testdata"))
LIBDIR = Path("/usr/lib/x86_64-linux-gnu")
#: Libraries every Debian bookworm system with Python has (libc6, libstdc++6, zlib1g).
LIBS = ("libc.so.6", "libm.so.6", "libstdc++.so.6", "libz.so.1")
MIB = 1 << 20


@pytest.fixture(scope="module")
def gcide() -> Path:
    p = TESTDATA / "gcide.dict"
    if not p.is_file():
        pytest.fail(f"{p} is missing: run `make testdata` (or set FLASHPRESS_TESTDATA to its directory)")
    return p


@pytest.fixture(scope="module")
def libs() -> list[Path]:
    found = sorted({(LIBDIR / name).resolve() for name in LIBS})
    missing = [str(p) for p in found if not p.is_file()]
    if missing or len(found) != len(LIBS):
        pytest.fail(f"expected shared libraries not found under {LIBDIR}: {missing or LIBS}")
    return found


@pytest.fixture(scope="module")
def gcide_json(gcide: Path) -> dict[str, Any]:
    """The JSON the CLI prints for 4 MiB of GCIDE, every default codec plus none, 4k and 16k."""
    import contextlib
    import io

    out = io.StringIO()
    codecs = [a for c in [*DEFAULT_CODECS, "none"] for a in ("--codec", c)]
    with contextlib.redirect_stdout(out):
        assert main(["codec", "bench", str(gcide), "--max-bytes", "4M", *codecs, "--json", "-", "--no-progress"]) == 0
    doc: dict[str, Any] = json.loads(out.getvalue())
    return doc


def saving(doc: dict[str, Any], codec: str, bs: int) -> float:
    (row,) = [r for r in doc["rows"] if r["codec"] == codec and r["block_size"] == bs]
    s: float = row["saving"]
    return s


# -- real text -------------------------------------------------------------------------------


def test_gcide_json_has_every_codec_and_block_size(gcide_json: dict[str, Any]) -> None:
    doc = gcide_json
    assert doc["corpus"]["bytes"] == 4 * MIB
    assert doc["corpus"]["truncated"] is True
    assert doc["block_sizes"] == [4096, 16384]
    assert doc["codecs"] == ["dpc", "fpc", "bdi", "lz4", "zstd-1", "zstd-3", "deflate-6", "none"]
    assert [(r["codec"], r["block_size"]) for r in doc["rows"]] == [
        (c, bs) for c in doc["codecs"] for bs in (4096, 16384)
    ]
    for r in doc["rows"]:
        assert r["blocks"] == 4 * MIB // r["block_size"]
        assert r["input_bytes"] == 4 * MIB
        assert r["padding_bytes"] == 0
        assert 0 < r["stored_bytes"] <= r["input_bytes"]
        assert r["stored_bytes"] <= r["compressed_bytes"]
        assert r["saving"] == pytest.approx(1 - r["stored_bytes"] / r["input_bytes"])
        assert r["ratio"] == pytest.approx(r["input_bytes"] / r["stored_bytes"])
        assert r["compress_mb_per_s"] > 0
        assert r["decompress_mb_per_s"] > 0


@pytest.mark.parametrize("bs", [4096, 16384])
def test_gcide_codecs_order_as_they_must_on_text(gcide_json: dict[str, Any], bs: int) -> None:
    # Every round trip was verified by the run itself (it raises CodecError otherwise).
    def s(codec: str) -> float:
        return saving(gcide_json, codec, bs)

    assert s("none") == 0.0
    assert s("zstd-3") >= s("zstd-1") - 0.005
    for strong in ("zstd-1", "zstd-3", "deflate-6"):
        assert s(strong) > s("lz4"), strong
    assert 0.3 < s("lz4") < 0.6
    assert 0.45 < s("zstd-3") < 0.75
    # Larger blocks give every library codec more history to match against.
    if bs == 16384:
        for codec in ("lz4", "zstd-1", "zstd-3", "deflate-6"):
            assert s(codec) > saving(gcide_json, codec, 4096), codec


def test_cli_table_on_gcide(gcide: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["codec", "bench", str(gcide), "--max-bytes", "1M", "--codec", "lz4", "--codec", "zstd-3"]
    assert main([*argv, "--block-size", "4k", "--block-size", "16384", "--no-progress"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith(f"1 file, 1,048,576 bytes from {gcide}")
    head = next(ln for ln in lines if ln.strip().startswith("codec"))
    for col in ("codec", "block", "blocks", "saving %", "ratio", "compress MB/s", "decompress MB/s"):
        assert col in head
    rows = [ln.split() for ln in lines[lines.index(head) + 1 :]]
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("lz4", "4k", "256"),
        ("lz4", "16k", "64"),
        ("zstd-3", "4k", "256"),
        ("zstd-3", "16k", "64"),
    ]
    for r in rows:
        assert 20 < float(r[3]) < 80
        assert float(r[4]) > 1


def test_cli_json_file_is_written_beside_the_table(
    gcide: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "res").mkdir()
    out = tmp_path / "res" / "bench.json"
    argv = ["codec", "bench", str(gcide), "--max-bytes", "512k", "--codec", "lz4", "--json", str(out)]
    assert main([*argv, "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "lz4" in printed
    assert f"results written to {out}" in printed
    doc = json.loads(out.read_text())
    assert [r["codec"] for r in doc["rows"]] == ["lz4", "lz4"]
    assert doc["units"]["compress_mb_per_s"].startswith("10^6")
    assert sorted(p.name for p in out.parent.iterdir()) == ["bench.json"]  # no temporary left


# -- real binaries ---------------------------------------------------------------------------


def test_shared_libraries(libs: list[Path]) -> None:
    bench = codec_bench(
        libs, codecs=["none", "lz4", "zstd-1", "zstd-3", "deflate-6"], block_sizes=["4k"], progress=False
    )
    c = bench.corpus
    assert c["files"] == len(libs)
    assert c["bytes"] == sum(p.stat().st_size for p in libs)
    assert not c["truncated"]
    assert c["skipped"] == []
    s = {r["codec"]: r["saving"] for r in bench.rows}
    assert s["none"] == 0.0
    # Machine code and its tables: compressible, but far less than text.
    assert 0.2 < s["lz4"] < s["zstd-1"] < 0.8
    assert s["zstd-3"] >= s["zstd-1"] - 0.005
    assert s["deflate-6"] > s["lz4"]
    none = bench.row("none", 4096)
    assert none["stored_bytes"] == none["input_bytes"] == none["blocks"] * 4096
    assert none["padding_bytes"] == none["input_bytes"] - c["bytes"]
    df = bench.to_frame()
    assert list(df["codec"]) == ["none", "lz4", "zstd-1", "zstd-3", "deflate-6"]
    assert df.attrs["units"]["saving"].startswith("fraction")


def test_library_directory_walk_is_sorted_and_deterministic(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["codec", "bench", str(LIBDIR), "--max-bytes", "2M", "--codec", "zstd-1", "--block-size", "4k"]
    docs = []
    for _ in range(2):
        assert main([*argv, "--json", "-", "--no-progress"]) == 0
        docs.append(json.loads(capsys.readouterr().out))
    a, b = docs
    assert a["corpus"] == b["corpus"]
    assert a["corpus"]["bytes"] == 2 * MIB
    assert a["corpus"]["truncated"] is True
    drop = ("compress_mb_per_s", "decompress_mb_per_s", "compress_seconds", "decompress_seconds")
    assert [{k: v for k, v in r.items() if k not in drop} for r in a["rows"]] == [
        {k: v for k, v in r.items() if k not in drop} for r in b["rows"]
    ]


# -- API details -----------------------------------------------------------------------------


def test_defaults_are_the_report_codecs_at_4k_and_16k(gcide: Path) -> None:
    bench = codec_bench(gcide, max_bytes=256 * 1024, progress=False)
    assert DEFAULT_CODECS == ("dpc", "fpc", "bdi", "lz4", "zstd-1", "zstd-3", "deflate-6")
    assert [(r["codec"], r["block_size"]) for r in bench.rows] == [
        (c, bs) for c in DEFAULT_CODECS for bs in (4096, 16384)
    ]
    assert "<CodecBench 14 rows" in repr(bench)


def test_progress_callback_gets_bytes_and_can_cancel(gcide: Path) -> None:
    calls: list[tuple[int, int]] = []
    text = _core.codec_bench([str(gcide)], ["none"], [4096], 2 * MIB, lambda d, t: calls.append((d, t)))
    assert json.loads(text)["rows"][0]["codec"] == "none"
    assert calls[-1] == (4 * MIB, 4 * MIB)  # compress and decompress passes both count
    with pytest.raises(errors.FlashpressError, match="cancelled"):
        _core.codec_bench([str(gcide)], ["zstd-3"], [4096], 8 * MIB, lambda d, t: False)

    def boom(done: int, total: int) -> None:
        raise RuntimeError("from the callback")

    with pytest.raises(RuntimeError, match="from the callback"):
        _core.codec_bench([str(gcide)], ["zstd-3"], [4096], 8 * MIB, boom)


def test_ctrl_c_stops_the_run(gcide: Path) -> None:
    import signal

    def interrupt(done: int, total: int) -> None:
        os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        _core.codec_bench([str(gcide)], ["zstd-3"], [4096], 8 * MIB, interrupt)


def test_progress_bar_runs(gcide: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = codec_bench(gcide, codecs=["deflate-9"], block_sizes=[4096], max_bytes="8M", progress=True)
    assert bench.rows[0]["codec"] == "deflate-9"


@pytest.mark.parametrize(
    ("progress", "input_bytes", "shown"),
    [("auto", 64 * MIB, True), ("auto", 63 * MIB, False), (True, 1, True), ("auto", 1, False)],
)
def test_progress_bar_auto_shows_for_large_inputs_off_a_terminal(
    progress: bool | Literal["auto"], input_bytes: int, shown: bool
) -> None:
    # Under pytest stderr is not a terminal, so "auto" shows a bar only for large inputs.
    passes = 3
    update, bars = _progress_callback(progress, passes)
    update(0, 2 * passes * input_bytes)
    assert (not bars[0].disable) is shown
    bars[0].close()


@pytest.mark.parametrize(
    ("text", "n"), [("4096", 4096), ("4k", 4096), ("16K", 16384), ("64KiB", 65536), ("2M", 2 * MIB), (512, 512)]
)
def test_sizes_parse(text: str | int, n: int) -> None:
    assert parse_size(text) == n


def test_sizes_format() -> None:
    assert [format_size(n) for n in (512, 4096, 16384, MIB, 3 * 1024 + 1)] == ["512", "4k", "16k", "1M", "3073"]


# -- bad inputs ------------------------------------------------------------------------------


@dataclass
class Bad:
    id: str
    #: CLI arguments after ``codec bench``; ``{dir}`` is a scratch directory with the files below.
    argv: list[str]
    api: Callable[[Path], object]
    exc: type[BaseException]
    match: list[str]


def _api(paths: list[str], **kw: Any) -> Callable[[Path], object]:
    return lambda d: codec_bench([p.format(dir=d) for p in paths], progress=False, **kw)


BAD = [
    Bad("missing-path", ["{dir}/no-such-file"], _api(["{dir}/no-such-file"]), errors.FileReadError, ["no-such-file"]),
    Bad("empty-directory", ["{dir}/empty"], _api(["{dir}/empty"]), errors.ConfigError, ["empty", "no bytes"]),
    Bad("empty-file", ["{dir}/zero.bin"], _api(["{dir}/zero.bin"]), errors.ConfigError, ["zero.bin", "no bytes"]),
    Bad(
        "dangling-link",
        ["{dir}/links"],
        _api(["{dir}/links"]),
        errors.FileReadError,
        ["links/dangling"],
    ),
    Bad(
        "unknown-codec",
        ["{dir}/text.txt", "--codec", "lz4", "--codec", "lzma"],
        _api(["{dir}/text.txt"], codecs=["lz4", "lzma"]),
        errors.UnknownCodecError,
        ["unknown codec `lzma`", "zstd"],
    ),
    Bad(
        "codec-level-out-of-range",
        ["{dir}/text.txt", "--codec", "zstd-30"],
        _api(["{dir}/text.txt"], codecs=["zstd-30"]),
        errors.UnknownCodecError,
        ["zstd-30", "1..22"],
    ),
    Bad(
        "block-size-0",
        ["{dir}/text.txt", "--block-size", "0"],
        _api(["{dir}/text.txt"], block_sizes=[0]),
        errors.ConfigError,
        ["block", "got 0"],
    ),
    Bad(
        "block-size-3000",
        ["{dir}/text.txt", "--block-size", "3000"],
        _api(["{dir}/text.txt"], block_sizes=[3000]),
        errors.ConfigError,
        ["block", "power of two", "3000"],
    ),
    Bad(
        "block-size-12k",
        ["{dir}/text.txt", "--block-size", "12k"],
        _api(["{dir}/text.txt"], block_sizes=["12k"]),
        errors.ConfigError,
        ["block", "power of two", "12288"],
    ),
    Bad(
        "block-size-negative",
        ["{dir}/text.txt", "--block-size", "-4096"],
        _api(["{dir}/text.txt"], block_sizes=[-4096]),
        errors.ConfigError,
        ["block", "-4096"],
    ),
]


def _make_files(d: Path) -> None:
    (d / "empty").mkdir()
    (d / "zero.bin").write_bytes(b"")
    (d / "text.txt").write_text("some text to compress\n" * 100)
    (d / "links").mkdir()
    (d / "links" / "a.txt").write_text("fine\n")
    (d / "links" / "dangling").symlink_to(d / "gone")


@pytest.mark.parametrize("case", BAD, ids=[c.id for c in BAD])
def test_bad_input_raises_specific_error(case: Bad, tmp_path: Path) -> None:
    _make_files(tmp_path)
    with pytest.raises(case.exc) as e:
        case.api(tmp_path)
    assert type(e.value) is case.exc
    for m in case.match:
        assert m in str(e.value), (m, str(e.value))


@pytest.mark.parametrize("case", BAD, ids=[c.id for c in BAD])
def test_bad_input_cli_exits_2_with_one_line(case: Bad, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _make_files(tmp_path)
    argv = [a.format(dir=tmp_path) for a in case.argv]
    assert main(["codec", "bench", *argv, "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip()
    assert err.startswith("flashpress: error: ")
    assert "\n" not in err
    for m in case.match:
        assert m in err, (m, err)
    if case.id.startswith("block-size"):
        assert "--block-size" in err
    if case.id in ("missing-path", "empty-directory", "dangling-link"):
        assert str(tmp_path) in err


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["--block-size", "4x"], "invalid size '4x'"),
        (["--max-bytes", "0"], "must be positive"),
        (["--max-bytes", "lots"], "invalid size 'lots'"),
        ([], "the following arguments are required: PATH"),
    ],
)
def test_cli_usage_errors_exit_2(argv: list[str], match: str, capsys: pytest.CaptureFixture[str]) -> None:
    paths = [] if not argv else ["x"]
    with pytest.raises(SystemExit) as e:
        main(["codec", "bench", *paths, *argv])
    assert e.value.code == 2
    assert match in capsys.readouterr().err


def test_unknown_codec_error_attributes(tmp_path: Path) -> None:
    (tmp_path / "t").write_text("abc")
    with pytest.raises(errors.UnknownCodecError) as e:
        codec_bench(tmp_path / "t", codecs=["brotli"], progress=False)
    assert e.value.name == "brotli"
    assert "zstd" in e.value.known
    assert isinstance(e.value, errors.ConfigError)
    assert isinstance(e.value, ValueError)
    assert isinstance(e.value, errors.FlashpressError)


def test_missing_path_error_is_an_oserror_with_its_path(tmp_path: Path) -> None:
    with pytest.raises(errors.FileReadError) as e:
        codec_bench([tmp_path / "nope"], progress=False)
    assert e.value.path == str(tmp_path / "nope")
    assert e.value.errno == 2
    assert isinstance(e.value, OSError)


def test_codec_error_class_is_exported() -> None:
    assert issubclass(errors.CodecError, errors.FlashpressError)
    assert "CodecError" in errors.__all__
    assert "UnknownCodecError" in errors.__all__
