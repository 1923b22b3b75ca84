"""Bad input through the public API and the CLI: each case raises its specific exception, with a
message naming the file and line, or the config key, at fault."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import flashpress
from _helpers import SMALL_WRITES, trace_workload
from flashpress import Config, errors
from flashpress.cli import main

MD5 = "0123456789abcdef0123456789abcdef"


def run_trace(fmt: str, **extra: Any) -> Callable[[dict[str, Path]], object]:
    def call(files: dict[str, Path]) -> object:
        w = trace_workload(files["t.trace"], fmt, replay="afap", address_mode="wrap", **extra)
        return flashpress.simulate({"preset": "tiny", "workload": w}, progress=False)

    return call


def run_job(files: dict[str, Path]) -> object:
    return flashpress.simulate(
        {"preset": "tiny", "workload": {"type": "fio", "path": str(files["j.fio"])}}, progress=False
    )


def override(**kv: Any) -> Callable[[dict[str, Path]], object]:
    return lambda files: Config.preset("tiny").with_overrides({k.replace("__", "."): v for k, v in kv.items()})


@dataclass
class Case:
    id: str
    call: Callable[[dict[str, Path]], object]
    exc: type[BaseException]
    match: list[str]
    files: dict[str, str] = field(default_factory=dict)


CASES = [
    # -- traces: file:line and the field at fault ------------------------------------------
    Case(
        "disksim-bad-sector",
        run_trace("disksim"),
        errors.TraceFormatError,
        ["t.trace:2:", "sector"],
        {"t.trace": "0 0 0 8 0\n1000 0 abc 8 0\n"},
    ),
    Case(
        "empty-trace",
        run_trace("disksim"),
        errors.WorkloadError,
        ["no requests", "t.trace"],
        {"t.trace": "# a header comment and nothing else\n"},
    ),
    Case(
        "disksim-too-few-fields",
        run_trace("disksim"),
        errors.TraceFormatError,
        ["t.trace:3:", "expected 5"],
        {"t.trace": "0 0 0 8 0\n10 0 8 8 1\n20 0 8\n"},
    ),
    Case(
        "disksim-bad-rw",
        run_trace("disksim"),
        errors.TraceFormatError,
        ["t.trace:1:", "rw"],
        {"t.trace": "0 0 0 8 7\n"},
    ),
    Case(
        "msr-bad-offset",
        run_trace("msr"),
        errors.TraceFormatError,
        ["t.trace:1:", "Offset"],
        {"t.trace": "128166372003061629,hm,0,Read,abc,4096,100\n"},
    ),
    Case(
        "msr-bad-type",
        run_trace("msr"),
        errors.TraceFormatError,
        ["t.trace:2:", "Type"],
        {"t.trace": "128166372003061629,hm,0,Read,0,4096,100\n128166372003061639,hm,0,Erase,0,4096,100\n"},
    ),
    Case(
        "blkparse-bad-device",
        run_trace("blkparse"),
        errors.TraceFormatError,
        ["t.trace:1:", "device"],
        {"t.trace": "  8;0    0        1     0.000000000  4162  D   W 1000 + 8 [fio]\n"},
    ),
    Case(
        "fiu-bad-md5",
        run_trace("fiu"),
        errors.TraceFormatError,
        ["t.trace:1:", "md5"],
        {"t.trace": "89966527834 4363 syslogd 904587416 8 W 6 0 nothex\n"},
    ),
    Case(
        "fiu-bad-op",
        run_trace("fiu"),
        errors.TraceFormatError,
        ["t.trace:2:", "op"],
        {"t.trace": f"1 4363 syslogd 100 8 W 6 0 {MD5}\n2 4363 syslogd 100 8 X 6 0 {MD5}\n"},
    ),
    Case(
        "spc-bad-opcode",
        run_trace("spc"),
        errors.TraceFormatError,
        ["t.trace:2:", "Opcode: expected `R` or `W`", "`E`"],
        {"t.trace": "0,20941264,8192,W,0.551706\n0,20939840,8192,E,0.554041\n"},
    ),
    Case(
        "tencent-bad-iotype",
        run_trace("tencent"),
        errors.TraceFormatError,
        ["t.trace:1:", "IOType"],
        {"t.trace": "1538323200,2048,8,7,1063\n"},
    ),
    Case(
        "alibaba-binary-garbage",
        run_trace("alibaba"),
        errors.TraceFormatError,
        ["t.trace:2:", "control character (U+0007 at column 3)"],
        {"t.trace": "0,R,0,4096,1577808000000626\n0,\x07\x07,0,4096,1577808000000627\n"},
    ),
    Case(
        "msr-host-filters-everything",
        run_trace("msr", host="web"),
        errors.WorkloadError,
        ["no requests", "filtered out by host"],
        {"t.trace": "128166372003061629,hm,0,Read,0,4096,100\n"},
    ),
    # -- fio job files: file:line ----------------------------------------------------------
    Case(
        "fio-unknown-option",
        run_job,
        errors.JobFileError,
        ["j.fio:3:", "frobnicate"],
        {"j.fio": "[w]\nrw=randwrite\nfrobnicate=3\nbs=4k\n"},
    ),
    Case(
        "fio-bad-size-suffix", run_job, errors.JobFileError, ["j.fio:2:", "4q"], {"j.fio": "[w]\nbs=4q\nrw=randwrite\n"}
    ),
    # -- config values: the dotted key -----------------------------------------------------
    Case("channels-zero", override(nand__channels=0), errors.ConfigError, ["nand.channels", "expected 1 to 1024"]),
    # the controller back end (tiny preset: SLC program 200 us, erase 1500 us)
    Case(
        "suspend-longer-than-program",
        override(controller__suspend__program_suspend_us=250.0),
        errors.ConfigError,
        ["controller.suspend.program_suspend_us", "shorter than the shortest program"],
    ),
    Case(
        "suspend-longer-than-erase",
        override(controller__suspend__erase_suspend_us=2000.0),
        errors.ConfigError,
        ["controller.suspend.erase_suspend_us", "shorter than the shortest erase"],
    ),
    Case("gc-step-zero", override(ftl__gc__step_pages=0), errors.ConfigError, ["ftl.gc.step_pages", "expected 1 to"]),
    Case(
        "unknown-scheduler",
        override(controller__scheduler="priority"),
        errors.ConfigError,
        ["controller.scheduler", "priority"],
    ),
    Case(
        "suspend-max-zero",
        override(controller__suspend__max_per_op=0),
        errors.ConfigError,
        ["controller.suspend.max_per_op", "expected 1 to"],
    ),
    Case(
        "floor-above-threshold",
        override(ftl__gc__hard_floor=0.2),
        errors.ConfigError,
        ["ftl.gc.hard_floor", "ftl.gc.threshold"],
    ),
    Case(
        "starvation-zero",
        override(controller__starvation_us=0.0),
        errors.ConfigError,
        ["controller.starvation_us", "expected 0.01 to"],
    ),
    Case(
        "stack-with-background-gc",
        lambda files: Config.preset("waltz").with_overrides({"ftl.gc.background": True}),
        errors.ConfigError,
        ["ftl.gc", "background GC"],
    ),
    Case("channels-negative", override(nand__channels=-1), errors.ConfigError, ["nand.channels", "-1"]),
    Case("op-ratio-one", override(ftl__op_ratio=1.0), errors.ConfigError, ["ftl.op_ratio", "expected 0 to 0.99"]),
    Case("op-ratio-above-one", override(ftl__op_ratio=1.5), errors.ConfigError, ["ftl.op_ratio", "1.5"]),
    Case("channels-wrong-type", override(nand__channels="eight"), errors.ConfigError, ["nand.channels", "eight"]),
    Case("unknown-cell", override(nand__cell="plc"), errors.ConfigError, ["nand.cell", "plc"]),
    Case(
        "latency-list-length",
        override(nand__read_latency_us=[25.0, 50.0]),
        errors.ConfigError,
        ["nand.read_latency_us", "expected 1 values"],
    ),
    Case("unknown-victim", override(ftl__gc__victim="lru"), errors.ConfigError, ["ftl.gc.victim", "lru"]),
    Case("page-size-not-512", override(nand__page_size=1000), errors.ConfigError, ["nand.page_size", "1000"]),
    Case("interval-zero", override(stats__interval_ms=0.0), errors.ConfigError, ["stats.interval_ms"]),
    Case("unknown-key", override(ftl__op_ratoi=0.1), errors.ConfigError, ["ftl.op_ratoi", "unknown field"]),
    Case(
        "unknown-workload-type", override(workload={"type": "filebench"}), errors.ConfigError, ["workload", "filebench"]
    ),
    Case("empty-fio-workload", override(workload={"type": "fio"}), errors.ConfigError, ["workload", "jobs"]),
    # -- content model ---------------------------------------------------------------------
    Case(
        "content-ratio-below-one",
        override(content__mode="bytes", content__ratio={"type": "fixed", "ratio": 0.5}),
        errors.ConfigError,
        ["content.ratio.ratio", "0.5"],
    ),
    Case(
        "content-zipf-range-reversed",
        override(content__mode="model", content__ratio={"type": "zipf", "min": 4.0, "max": 2.0}),
        errors.ConfigError,
        ["content.ratio.max"],
    ),
    Case("content-unknown-codec", override(content__codec="lzma"), errors.ConfigError, ["content.codec", "lzma"]),
    Case("content-codec-level", override(content__codec="zstd-30"), errors.ConfigError, ["content.codec", "1..22"]),
    Case("content-granularity", override(content__granularity=6000), errors.ConfigError, ["content.granularity"]),
    Case("content-calibrate-none", override(content__calibrate="none"), errors.ConfigError, ["content.calibrate"]),
    Case("content-unknown-mode", override(content__mode="sometimes"), errors.ConfigError, ["content.mode"]),
    Case(
        "content-missing-files",
        lambda f: flashpress.simulate(
            {
                "preset": "tiny",
                "content": {"mode": "bytes", "source": {"type": "files", "paths": [str(f["dir"] / "no-such-dir")]}},
            },
            progress=False,
        ),
        errors.FileReadError,
        ["no-such-dir"],
    ),
    Case(
        "unknown-preset",
        lambda f: Config.from_dict({"preset": "huge"}),
        errors.UnknownPresetError,
        ["huge", "known presets"],
    ),
    Case("preset-not-a-string", lambda f: Config.from_dict({"preset": 3}), errors.ConfigError, ["preset"]),
    Case(
        "toml-syntax",
        lambda f: Config.from_toml(f["c.toml"]),
        errors.ConfigError,
        ["c.toml", "line 2"],
        {"c.toml": "seed = 1\n[nand\n"},
    ),
    Case(
        "toml-unknown-key",
        lambda f: Config.from_toml(f["c.toml"]),
        errors.ConfigError,
        ["c.toml", "host.link"],
        {"c.toml": "[host]\nlink = 3\n"},
    ),
    # -- files that cannot be read ---------------------------------------------------------
    Case(
        "missing-config", lambda f: Config.from_toml(f["dir"] / "missing.toml"), errors.FileReadError, ["missing.toml"]
    ),
    Case("config-is-a-directory", lambda f: Config.from_toml(f["dir"]), errors.FileReadError, ["cannot read"]),
    Case(
        "missing-trace",
        lambda f: run_trace("disksim")({"t.trace": f["dir"] / "missing.trace"}),
        errors.FileReadError,
        ["missing.trace"],
    ),
    Case("missing-job", lambda f: run_job({"j.fio": f["dir"] / "missing.fio"}), errors.FileReadError, ["missing.fio"]),
    # -- arguments -------------------------------------------------------------------------
    Case(
        "unknown-trace-format",
        lambda f: flashpress._core.default_trace_config("x", "tsv"),
        errors.ConfigError,
        ["tsv", "disksim", "csv", "alibaba", "oracle_general"],
    ),
    Case("simulate-bad-seed", lambda f: flashpress.simulate("tiny", seed=-1), errors.ConfigError, ["seed"]),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_raises_specific_error(case: Case, tmp_path: Path) -> None:
    files = {"dir": tmp_path}
    for name, text in case.files.items():
        files[name] = tmp_path / name
        files[name].write_text(text)
    with pytest.raises(case.exc) as e:
        case.call(files)
    msg = str(e.value)
    for part in case.match:
        assert part in msg, f"{part!r} not in {msg!r}"
    assert isinstance(e.value, errors.FlashpressError)


def test_trace_error_attributes(tmp_path: Path) -> None:
    p = tmp_path / "t.trace"
    p.write_text("0 0 0 8 0\n1000 0 abc 8 0\n")
    with pytest.raises(errors.TraceFormatError) as e:
        run_trace("disksim")({"t.trace": p})
    assert e.value.line == 2
    assert e.value.path == str(p)


def test_file_read_error_is_an_oserror(tmp_path: Path) -> None:
    with pytest.raises(OSError, match=r"nope\.toml") as e:
        Config.from_toml(tmp_path / "nope.toml")
    assert isinstance(e.value, errors.FileReadError)
    assert e.value.errno == 2
    assert e.value.path == str(tmp_path / "nope.toml")


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["run", "--preset", "huge"], "unknown preset `huge`"),
        (["run", "--set", "ftl.op_ratio=1.5"], "ftl.op_ratio"),
        (["run", "--set", "nand.channels=0", "--preset", "tiny"], "nand.channels"),
        (["run", "--config", "/nonexistent/c.toml"], "/nonexistent/c.toml"),
        (["run", "--job", "/nonexistent/j.fio", "--preset", "tiny"], "/nonexistent/j.fio"),
        (["run", "--trace", "/nonexistent/t.trace", "--format", "msr", "--preset", "tiny"], "/nonexistent/t.trace"),
        (["plot", "/nonexistent/results"], "/nonexistent/results"),
    ],
)
def test_cli_errors_exit_2_without_traceback(argv: list[str], match: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*argv, "--no-progress"] if argv[0] == "run" else argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("flashpress: error: ")
    assert match in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["run", "--trace", "t.trace"], "--format"),
        (["run", "--format", "msr"], "--trace"),
        (["run", "--set", "novalue"], "KEY=VALUE"),
        (["run", "--job", "j.fio", "--trace", "t.trace", "--format", "msr"], "not both"),
        (["run", "--preset", "tiny", "--config", "c.toml"], "not allowed"),
    ],
)
def test_cli_usage_errors_exit_2(argv: list[str], match: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    assert match in capsys.readouterr().err


def test_small_writes_constant_is_valid() -> None:
    Config.preset("tiny").with_overrides({"workload": SMALL_WRITES})
