"""The flashpress command: run, presets, plot; output files; --set parsing."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from _helpers import fio_example
from flashpress.cli import main, parse_value

SMALL = ["--preset", "tiny", "--set", "workload.jobs=[{rw = 'randwrite', bs = '4k', number_ios = 1500}]"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0.2", 0.2),
        ("8", 8),
        ("true", True),
        ('"fifo"', "fifo"),
        ("fifo", "fifo"),
        ("[25.0, 50.0]", [25.0, 50.0]),
        ('{ type = "gc_separate" }', {"type": "gc_separate"}),
        ("4k", "4k"),
        ("", ""),
    ],
)
def test_set_values_parse_as_toml_literals(text: str, expected: Any) -> None:
    assert parse_value(text) == expected


def test_no_arguments_runs_the_default_preset(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    out = capsys.readouterr().out
    assert "preset `default`" in out
    assert "WAF" in out
    # The default preset measures its writes with LZ4 in model mode at a fixed 2:1.
    assert "lz4 at 4 KiB (model mode): ratio 2.000, saving 50.0%" in out


def test_run_prints_summary_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", *SMALL, "--no-progress"]) == 0
    out = capsys.readouterr().out
    for word in ("requests", "MB/s", "IOPS", "p99.9", "WAF", "NAND", "GC", "energy", "write"):
        assert word in out
    assert "1,500" in out


def test_run_out_writes_four_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    assert main(["run", *SMALL, "--seed", "5", "--out", str(out), "--no-progress"]) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "config.json",
        "latency_cdf.csv",
        "summary.json",
        "timeline.parquet",
    ]
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["seed"] == 5
    assert cfg["nand"]["channels"] == 2
    df = pd.read_parquet(out / "timeline.parquet")
    assert "time_s" in df.columns
    assert len(df) >= 1
    assert json.loads((out / "summary.json").read_text())["requests_completed"] == 1500


def test_run_csv_timeline(tmp_path: Path) -> None:
    out = tmp_path / "res"
    assert main(["run", *SMALL, "--out", str(out), "--timeline-format", "csv", "--no-progress"]) == 0
    assert (out / "timeline.csv").exists()
    assert not (out / "timeline.parquet").exists()


def test_run_refuses_to_overwrite_unless_forced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    assert main(["run", *SMALL, "--out", str(out), "--no-progress"]) == 0
    before = (out / "summary.json").read_text()
    assert main(["run", *SMALL, "--seed", "9", "--out", str(out), "--no-progress"]) == 2
    assert "--force" in capsys.readouterr().err
    assert (out / "summary.json").read_text() == before
    assert main(["run", *SMALL, "--seed", "9", "--out", str(out), "--force", "--no-progress"]) == 0
    assert json.loads((out / "config.json").read_text())["seed"] == 9


def test_run_without_out_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["run", *SMALL, "--no-progress"]) == 0
    assert list(tmp_path.iterdir()) == []


def test_run_trace_with_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "t.trace"
    trace.write_text("".join(f"{i * 1000} 0 {i * 8} 8 {i % 2}\n" for i in range(200)))
    out = tmp_path / "res"
    argv = ["run", "--preset", "tiny", "--trace", str(trace), "--format", "disksim", "--replay", "afap"]
    argv += ["--queue-depth", "4", "--address-mode", "wrap", "--time-unit", "us", "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    w = json.loads((out / "config.json").read_text())["workload"]
    assert (w["type"], w["format"], w["replay"], w["queue_depth"], w["address_mode"], w["time_unit"]) == (
        "trace",
        "disksim",
        "afap",
        4,
        "wrap",
        "us",
    )
    assert json.loads((out / "summary.json").read_text())["requests_completed"] == 200


def test_run_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "j.fio").write_text("[w]\nrw=randwrite\nbs=4k\nnumber_ios=300\n")
    (tmp_path / "c.toml").write_text('preset = "tiny"\n[workload]\ntype = "fio"\npath = "j.fio"\n')
    assert main(["run", "--config", str(tmp_path / "c.toml"), "--no-progress"]) == 0
    assert "300 completed" in capsys.readouterr().out


def test_fio_example_job_file(capsys: pytest.CaptureFixture[str]) -> None:
    job = fio_example("ssd-test.fio")
    # ssd-test.fio asks for size=10g; the tiny device holds 16 MiB, so shrink the jobs inline.
    argv = ["run", "--preset", "tiny", "--job", str(job), "--set", 'workload.global.size="4m"', "--no-progress"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "read" in out
    assert "write" in out


@pytest.mark.slow
def test_fio_example_job_file_on_default_device(tmp_path: Path) -> None:
    job = fio_example("ssd-test.fio")
    assert main(["run", "--job", str(job), "--out", str(tmp_path / "r"), "--no-progress"]) == 0
    s = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert s["read"]["requests"] > 0
    assert s["write"]["requests"] > 0


def test_presets_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["presets"]) == 0
    out = capsys.readouterr().out
    assert "default" in out
    assert "tiny" in out
    assert main(["presets", "--show", "tiny"]) == 0
    assert "[nand]" in capsys.readouterr().out


def test_console_script_exit_code_and_message(tmp_path: Path) -> None:
    exe = Path(sys.executable).parent / "flashpress"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "flashpress"]
    p = subprocess.run([*cmd, "run", "--preset", "tiny", "--set", "ftl.op_ratio=1.0"], capture_output=True, text=True)
    assert p.returncode == 2
    assert p.stderr.startswith("flashpress: error: ")
    assert "ftl.op_ratio" in p.stderr
    assert "Traceback" not in p.stderr


def test_ctrl_c_stops_a_run_promptly() -> None:
    import signal
    import time

    exe = Path(sys.executable).parent / "flashpress"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "flashpress"]
    endless = 'workload.jobs=[{rw="randwrite", bs="4k", time_based=true, runtime="1000000"}]'
    p = subprocess.Popen(
        [*cmd, "run", "--preset", "tiny", "--set", endless, "--no-progress"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A shell may start background children with SIGINT ignored; restore the default.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(1.5)
    assert p.poll() is None, "the run should still be going"
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=20)
    assert p.returncode == 130
    assert "interrupted" in err


def test_a_trace_sector_size_must_be_a_power_of_two(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "x.trace"
    trace.write_text("10 0 0 8 0\n")
    args = ["run", "--preset", "tiny", "--trace", str(trace), "--format", "disksim"]
    assert main([*args, "--set", "workload.sector_size=520"]) == 2
    err = capsys.readouterr().err
    assert "workload.sector_size" in err
    assert "power of two" in err
    assert main([*args, "--set", "workload.sector_size=4096"]) == 0


MSR_TWO_HOSTS = "".join(
    f"{128166372003061629 + i * 10000},{'hm' if i % 3 else 'prxy'},{i % 2},{'Read' if i % 4 else 'Write'},"
    f"{(i * 4096) % (1 << 22)},4096,100\n"
    for i in range(120)
)


def test_run_trace_host_and_device_flags(tmp_path: Path) -> None:
    trace = tmp_path / "msr.csv"
    trace.write_text(MSR_TWO_HOSTS)
    out = tmp_path / "res"
    argv = ["run", "--preset", "tiny", "--trace", str(trace), "--format", "msr", "--host", "hm", "--device", "1"]
    assert main([*argv, "--out", str(out), "--no-progress"]) == 0
    w = json.loads((out / "config.json").read_text())["workload"]
    assert (w["host"], w["device"], w["time_unit"]) == ("hm", 1, "filetime")
    # hm is every i not divisible by 3; disk 1 every odd i
    kept = sum(1 for i in range(120) if i % 3 and i % 2 == 1)
    assert json.loads((out / "summary.json").read_text())["requests_completed"] == kept


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress], ids=["gzip", "bzip2", "xz"])
def test_compressed_trace_is_found_by_its_bytes(compress: Any, tmp_path: Path) -> None:
    # Python's own compressors, and a name that says nothing about compression.
    trace = tmp_path / "tencent.log"
    rows = "".join(f"{1538323200 + i // 10},{(i * 8) % 16384},8,{i % 2},1063\n" for i in range(300))
    trace.write_bytes(compress(("Timestamp,Offset,Size,IOType,VolumeID\n" + rows).encode()))
    out = tmp_path / "res"
    argv = ["run", "--preset", "tiny", "--trace", str(trace), "--format", "tencent", "--out", str(out)]
    assert main([*argv, "--no-progress"]) == 0
    assert json.loads((out / "summary.json").read_text())["requests_completed"] == 300


def test_toml_trace_needs_only_path_and_format(tmp_path: Path) -> None:
    # The SPC spec's example records, and a columns mapping over a semicolon table.
    (tmp_path / "fin.spc").write_text(
        "0,20941264,8192,W,0.551706,Alpha/NT\n0,20939840,8192,W,0.554041\n1,3436288,15872,W,1.250720,0x123\n"
    )
    (tmp_path / "io.txt").write_text("op;lba;len;t_ms\nW;8;4096;0\nR;8;4096;1.5\nD;0;8192;2\nX;0;0;3\n")
    cases = {
        "spc": ('format = "spc"\npath = "fin.spc"\naddress_mode = "wrap"', 3, "s"),
        "columns": (
            'path = "io.txt"\ntime_unit = "ms"\n'
            'format = { type = "columns", delimiter = ";", header = true, time = 4, offset = 2, size = 3, op = 1,'
            ' offset_unit = "sectors", size_unit = "bytes",'
            ' read = ["R"], write = ["W"], trim = ["D"], ignore = ["X"] }',
            3,
            "ms",
        ),
    }
    for name, (body, n, unit) in cases.items():
        cfg = tmp_path / f"{name}.toml"
        cfg.write_text(f'preset = "tiny"\n[workload]\ntype = "trace"\n{body}\n')
        out = tmp_path / name
        assert main(["run", "--config", str(cfg), "--out", str(out), "--no-progress"]) == 0
        w = json.loads((out / "config.json").read_text())["workload"]
        assert (w["time_unit"], w["sector_size"], w["replay"], w["queue_depth"]) == (unit, 512, "timed", 32)
        assert json.loads((out / "summary.json").read_text())["requests_completed"] == n


LONG = "x" * 100_000


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--preset", "tiny", "--dry-run", "--set", "ftl.op_ratio=" + "1" * 5000],
        ["run", "--preset", "tiny", "--dry-run", "--set", "ftl.op_ratio=-" + "9" * 5000],
        ["run", "--preset", "tiny", "--dry-run", "--set", f"ftl.gc.victim={LONG}"],
        ["run", "--preset", "tiny", "--dry-run", "--set", f'ftl.op_ratio="{LONG}"'],
        ["run", "--preset", "tiny", "--dry-run", "--set", f"{LONG}=1"],
        ["run", "--preset", LONG, "--dry-run"],
        ["run", "--preset", "tiny", "--dry-run", "--set", 'scheme="prssd/preset"'],
        ["run", "--preset", "tiny", "--dry-run", "--set", 'scheme="cagc/preset"'],
    ],
    ids=[
        "5000 digits",
        "-5000 digits",
        "long word",
        "long string",
        "long key",
        "long preset",
        "prssd/preset",
        "cagc/preset",
    ],
)
def test_bad_values_are_one_short_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """No traceback, no panic, and a message that shows a long value by its ends only."""
    try:
        code = main(argv)
    except SystemExit as e:  # argparse-style usage errors
        code = int(e.code or 0)
    assert code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "panicked" not in err
    assert 0 < len(err) < 2000, len(err)


def test_lossy_plan_on_a_stack_preset_names_the_block_presets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import numpy as np

    np.save(tmp_path / "f.npy", np.linspace(0, 1, 64 * 64, dtype=np.float32).reshape(64, 64))
    assert (
        main(["lossy", "plan", str(tmp_path / "f.npy"), "--codec", "szx", "--device", "ssd:waltz", "--threads", "1"])
        == 2
    )
    err = capsys.readouterr().err
    assert "preset 'waltz' is a host stack" in err
    assert "nvme" in err


@pytest.mark.parametrize("columns", ["100", "37", "0", "-5", "wide", None])
def test_help_width_is_shutils_without_importing_it(monkeypatch, columns: str | None) -> None:
    """The parser sizes its help as ``shutil.get_terminal_size`` would (``COLUMNS``, else the
    terminal, else 80), so a run need not import shutil."""
    import shutil

    from flashpress.cli import _terminal_columns

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert _terminal_columns() == shutil.get_terminal_size().columns
