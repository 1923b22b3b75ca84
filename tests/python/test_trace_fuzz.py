"""Trace fuzzing with extreme timestamps, gaps, sizes and addresses (issue 15).

Seeded tables of hostile DiskSim and MSR traces run through the public API in a child process
under a 6 GiB address-space limit and a wall-clock bound. Each case must end in success with
every request completed, or in a specific flashpress error (TraceFormatError, ConfigError,
WorkloadError) whose message names the trace file or the key to change (a timed burst deeper
than the device's spare space: the controller applies no backpressure); never a panic, an
abort, MemoryError or a hang. The child reports one line per case so a crash names the case that caused it.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

U64 = 2**64 - 1

# One child per table: it reads the cases (JSON), runs each and prints `id<TAB>outcome<TAB>detail`.
CHILD = textwrap.dedent(
    """
    import json, resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
    import flashpress
    from flashpress import _core, errors
    EXPECTED = (errors.TraceFormatError, errors.ConfigError, errors.WorkloadError)
    for case in json.load(open(sys.argv[1])):
        w = json.loads(_core.default_trace_config(case["path"], case["format"]))
        w.update(case["set"])
        print(case["id"], "start", sep="\\t", flush=True)
        try:
            r = flashpress.simulate({"preset": "tiny", "workload": w}, progress=False)
        except EXPECTED as e:
            print(case["id"], type(e).__name__, str(e).replace("\\n", " "), sep="\\t", flush=True)
        except BaseException as e:
            print(case["id"], "UNEXPECTED", repr(e).replace("\\n", " "), sep="\\t", flush=True)
        else:
            s = r.summary
            done = s["requests_completed"] == s["requests_issued"] and s["requests_failed"] == 0
            print(case["id"], "ok" if done else "LOST", json.dumps([s["requests_issued"],
                  s["requests_completed"], s["requests_failed"]]), sep="\\t", flush=True)
    """
)


def _disksim(rng: random.Random, n: int, times: list[float | int | str]) -> str:
    lines = []
    for i in range(n):
        t = times[i % len(times)]
        blk = rng.randrange(0, 1 << 16) * 8
        lines.append(f"{t} 0 {blk} 8 {rng.randrange(2)}")
    return "\n".join(lines) + "\n"


def _time_tables(rng: random.Random) -> list[tuple[str, list[float | int | str]]]:
    """Time columns that stress the replay clock: huge values, huge gaps, going backwards,
    all at zero, near and past the u64 nanosecond limit, exponents, negatives."""
    big = [10**k for k in range(12, 22)]
    return [
        ("zero", [0]),
        ("huge-gap", [0, 10**17]),
        ("near-u64-ns", [0, U64 // 2, U64 - 1]),
        ("past-u64", [0, U64, U64 + 1]),
        ("powers", big),
        ("backwards", [10**15, 10**9, 0]),
        ("exponent", ["1e18", "1.5e19", "1e300"]),
        ("negative", [0, -1]),
        ("nonnumeric", ["nan", "inf"]),
        ("random-huge", [rng.randrange(0, 1 << 64) for _ in range(8)]),
        ("random-gaps", sorted(rng.randrange(0, 1 << 62) for _ in range(8))),
    ]


def _cases(tmp_path: Path, seed: int, n_requests: int) -> list[dict[str, object]]:
    rng = random.Random(seed)
    cases: list[dict[str, object]] = []
    for name, times in _time_tables(rng):
        path = tmp_path / f"{name}.trace"
        path.write_text(_disksim(rng, n_requests, times))
        for replay in ("timed", "afap"):
            # time_scale at both ends of its range (1e-6 to 1e6), and past them (a ConfigError)
            for unit, scale in (("ns", 1.0), ("s", 1.0), ("ns", 1e-6), ("ms", 1e6), ("ns", 1e-300), ("ms", 1e300)):
                cases.append(
                    {
                        "id": f"{name}/{replay}/{unit}x{scale:g}",
                        "path": str(path),
                        "format": "disksim",
                        "set": {"replay": replay, "time_unit": unit, "time_scale": scale, "address_mode": "wrap"},
                    }
                )
    # Sizes and addresses: zero, huge, past the device, near u64 sectors.
    for name, blk, size in (
        ("size-zero", 0, 0),
        ("size-huge", 0, 1 << 40),
        ("size-u64", 0, U64),
        ("lba-past-end", 1 << 40, 8),
        ("lba-u64", U64 - 4, 8),
    ):
        path = tmp_path / f"{name}.trace"
        path.write_text(f"0 0 {blk} {size} 0\n10 0 0 8 1\n")
        for mode in ("wrap", "strict"):
            cases.append(
                {
                    "id": f"{name}/{mode}",
                    "path": str(path),
                    "format": "disksim",
                    "set": {"replay": "timed", "address_mode": mode},
                }
            )
    # MSR: Windows filetime stamps far apart and out of order.
    path = tmp_path / "msr.csv"
    stamps = [128166372003061629, 128166372003061629 + 10**15, 1, U64]
    path.write_text("".join(f"{t},hm,0,Write,{i * 4096},4096,100\n" for i, t in enumerate(stamps)))
    for replay in ("timed", "afap"):
        cases.append({"id": f"msr/{replay}", "path": str(path), "format": "msr", "set": {"replay": replay}})
    return cases


def _run_table(tmp_path: Path, cases: list[dict[str, object]], timeout_s: float) -> dict[str, tuple[str, str]]:
    spec = tmp_path / "cases.json"
    spec.write_text(json.dumps(cases))
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    try:
        proc = subprocess.run(
            [sys.executable, str(script), str(spec)], capture_output=True, text=True, timeout=timeout_s
        )
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        last = [line for line in out.splitlines() if line.endswith("\tstart")]
        pytest.fail(f"the fuzz table did not finish in {timeout_s} s; last case started: {last[-1:]}")
    outcomes: dict[str, tuple[str, str]] = {}
    started = None
    for line in proc.stdout.splitlines():
        cid, outcome, *rest = line.split("\t")
        if outcome == "start":
            started = cid
            continue
        outcomes[cid] = (outcome, rest[0] if rest else "")
    assert proc.returncode == 0, (
        f"the child died (exit {proc.returncode}) during case {started!r}: {proc.stderr[-2000:]}"
    )
    return outcomes


def _check(cases: list[dict[str, object]], outcomes: dict[str, tuple[str, str]]) -> None:
    bad = []
    for case in cases:
        cid = str(case["id"])
        outcome, detail = outcomes[cid]
        if outcome in ("UNEXPECTED", "LOST"):
            bad.append(f"{cid}: {outcome} {detail}")
        elif outcome == "WorkloadError" and "no plane can take a page write" in detail:
            # A timed burst deeper than the device's spare space (the controller applies no
            # backpressure): refused naming the keys that size that space.
            if "ftl.op_ratio" not in detail or "nand.blocks_per_plane" not in detail:
                bad.append(f"{cid}: the burst refusal does not name the keys to change: {detail}")
        elif outcome != "ok" and Path(str(case["path"])).name not in detail and "time_" not in detail:
            bad.append(f"{cid}: {outcome} does not name the trace or the time key: {detail}")
    assert not bad, "\n".join(bad)
    # The table is not vacuous: some cases run and some are refused.
    kinds = {o for o, _ in outcomes.values()}
    assert "ok" in kinds, kinds
    assert kinds - {"ok"}, kinds


def test_hostile_traces_end_in_results_or_named_errors(tmp_path: Path) -> None:
    # 10,000 requests per trace: the all-at-zero table is a burst far deeper than the device's queues.
    cases = _cases(tmp_path, seed=15, n_requests=10_000)
    _check(cases, _run_table(tmp_path, cases, timeout_s=300))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(5))
def test_hostile_traces_at_scale(tmp_path: Path, seed: int) -> None:
    # More seeds, 200,000 requests per trace (several times the tiny device's capacity).
    cases = _cases(tmp_path, seed=seed, n_requests=200_000)
    _check(cases, _run_table(tmp_path, cases, timeout_s=1200))


# -- the classes of silent misparses: tab tables with empty fields, junk RWBS, bytes that are not text


def _simulate_trace(path: Path, fmt: object) -> tuple[str, str]:
    """(outcome, detail) of a trace run in this process: ``ok`` with the completed requests, or
    the flashpress error's class and message."""
    import flashpress
    from flashpress import _core, errors

    if isinstance(fmt, str):
        w = json.loads(_core.default_trace_config(str(path), fmt))
    else:
        w = {"type": "trace", "path": str(path), "format": fmt, "time_unit": "s", "replay": "afap"}
    try:
        r = flashpress.simulate({"preset": "tiny", "workload": w}, progress=False)
    except (errors.TraceFormatError, errors.ConfigError, errors.WorkloadError) as e:
        return type(e).__name__, str(e)
    return "ok", str(r.summary["requests_completed"])


TAB_COLUMNS = {
    "type": "columns",
    "delimiter": "\t",
    "header": False,
    "time": 2,
    "op": 3,
    "offset": 4,
    "size": 5,
    "offset_unit": "sectors",
    "size_unit": "bytes",
    "read": ["R"],
    "write": ["W"],
}


def test_tab_tables_with_empty_fields(tmp_path: Path) -> None:
    """Rows of six tab-separated columns, 1 and 6 unread, with random fields emptied: a table
    whose read columns are all present runs every row as written (the request count and the
    bytes read are the rows'); an emptied read column is an error naming that line and column."""
    rng = random.Random(34)
    for case in range(40):
        rows, bad_line, bad_col = [], None, None
        for i in range(1, 21):
            f = ["x", f"{i * 0.001:.3f}", rng.choice("RW"), str(8 * i), "4096", "y"]
            for c in (0, 5):
                if rng.random() < 0.5:
                    f[c] = ""
            if bad_line is None and case % 2 and rng.random() < 0.1:
                bad_col = rng.choice([1, 2, 3, 4])
                f[bad_col] = ""
                bad_line = i
            rows.append("\t".join(f))
        path = tmp_path / f"t{case}.tsv"
        path.write_text("\n".join(rows) + "\n")
        outcome, detail = _simulate_trace(path, TAB_COLUMNS)
        if bad_line is None:
            assert (outcome, detail) == ("ok", "20"), (case, detail)
        else:
            assert bad_col is not None
            assert outcome == "TraceFormatError", (case, outcome, detail)
            assert f"{path.name}:{bad_line}:" in detail, detail
            assert f"column {bad_col + 1} (" in detail, detail


def test_junk_rwbs_is_refused_and_real_rwbs_runs(tmp_path: Path) -> None:
    rng = random.Random(35)
    letters = "FWDERNABSM"
    for case in range(40):
        if case % 2:
            rwbs = "".join(rng.choice(letters) for _ in range(rng.randint(1, 3)))
        else:
            rwbs = "".join(rng.choice("0123456789XYZTQrw!?_-") for _ in range(rng.randint(1, 3)))
        path = tmp_path / f"b{case}.blk"
        path.write_text(
            "  8,0    0        1     0.000000000   697  D   WS 64 + 8 [x]\n"
            f"  8,0    0        2     0.000001000   697  D   {rwbs} 128 + 8 [x]\n"
        )
        outcome, detail = _simulate_trace(path, "blkparse")
        if all(c in letters for c in rwbs):
            assert outcome == "ok", (rwbs, detail)
        else:
            assert outcome == "TraceFormatError", (rwbs, outcome, detail)
            assert f"{path.name}:2:" in detail, detail
            assert "RWBS" in detail, detail


def test_bytes_that_are_not_text_in_an_unread_column(tmp_path: Path) -> None:
    rng = random.Random(36)
    bad = [bytes([b]) for b in (*range(0, 9), *range(11, 13), *range(14, 32), 127)] + [b"\xff", b"\xc3(", b"\xc2\x85"]
    for case, junk in enumerate(rng.sample(bad, 20)):
        path = tmp_path / f"m{case}.csv"
        path.write_bytes(
            b"128166372003061629,hm,0,Read,0,4096,100\n128166372003061630,h" + junk + b"m,0,Read,4096,4096,100\n"
        )
        outcome, detail = _simulate_trace(path, "msr")
        assert outcome == "TraceFormatError", (junk, outcome, detail)
        assert f"{path.name}:2:" in detail, detail
