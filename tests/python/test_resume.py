"""Sweeps that survive and resume, and output folders without leftovers (issue 15): the CLI is
killed (SIGKILL), interrupted (SIGINT to its process group, as Ctrl-C at a terminal) or loses a
worker past Dask's retries, and the next run picks up what was finished."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from flashpress import Config, errors, result
from flashpress.cli import build_parser

EXE = Path(sys.executable).parent / "flashpress"
CMD = [str(EXE)] if EXE.exists() else [sys.executable, "-m", "flashpress"]

GRID = """
preset = "tiny"

[set]
"precondition.fill_fraction" = 0.5
workload = {{ type = "fio", jobs = [{{ rw = "randwrite", bs = "4k", iodepth = 4, number_ios = {ios} }}] }}

[grid]
"ftl.op_ratio" = {ratios}
"""


def grid_file(tmp_path: Path, ratios: list[float], ios: int = 1500, name: str = "grid.toml") -> Path:
    g = tmp_path / name
    g.write_text(GRID.format(ios=ios, ratios=ratios))
    return g


def tree(d: Path) -> dict[str, bytes]:
    """Every file under ``d`` by relative path, with its bytes."""
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def hidden(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[str]]]:
    """CLI processes started in sessions of their own; their process groups (the CLI and its
    Dask workers) are killed at the end whatever happened."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for p in started:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def start(procs: list[subprocess.Popen[str]], args: list[str], **env: str) -> subprocess.Popen[str]:
    p = subprocess.Popen(
        [*CMD, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, **env},
    )
    procs.append(p)
    return p


def start_exe(procs: list[subprocess.Popen[str]], cmd: list[str]) -> subprocess.Popen[str]:
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    procs.append(p)
    return p


def cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CMD, *args], capture_output=True, text=True, env={**os.environ, **env}, timeout=300)


def wait_for_kept(out: Path, n: int, proc: subprocess.Popen[str], timeout: float = 120) -> None:
    """Wait until ``n`` finished points are kept in ``out``'s work folder."""
    done = out.parent / f".{out.name}.partial" / "done"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if done.is_dir() and len(list(done.glob("*.json"))) >= n:
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)
    raise AssertionError(f"no {n} finished points in {done} after {timeout} s")


@pytest.mark.slow
def test_sweep_killed_midway_resumes_and_equals_a_clean_sweep(
    tmp_path: Path, procs: list[subprocess.Popen[str]]
) -> None:
    grid = grid_file(tmp_path, [0.1, 0.15, 0.2, 0.25, 0.3], ios=4000)
    out = tmp_path / "out"
    p = start(procs, ["sweep", str(grid), "--out", str(out), "--workers", "1"])
    wait_for_kept(out, 1, p)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    assert not out.exists(), "an unfinished sweep must not look finished"
    kept = sorted((tmp_path / ".out.partial" / "done").glob("*.json"))
    assert 1 <= len(kept) < 5
    mtimes = {k: k.stat().st_mtime_ns for k in kept}

    again = cli("sweep", str(grid), "--out", str(out), "--workers", "1")
    assert again.returncode == 0, again.stderr
    assert f"{len(kept)} of 5 points finished earlier, {5 - len(kept)} to run" in again.stderr
    assert hidden(tmp_path) == [], "the work folder is renamed into place, nothing is left beside it"
    # The kept points were read, not run again (their files were not rewritten before the end).
    assert all(mtimes[k] <= (out / "results.csv").stat().st_mtime_ns for k in kept)

    clean = cli("sweep", str(grid), "--out", str(tmp_path / "clean"), "--workers", "2")
    assert clean.returncode == 0, clean.stderr
    assert "finished earlier" not in clean.stderr
    resumed, fresh = tree(out), tree(tmp_path / "clean")
    assert sorted(resumed) == sorted(fresh)
    assert "points/0004/summary.json" in resumed
    for name in fresh:
        assert resumed[name] == fresh[name], name


def test_killed_worker_is_an_error_naming_the_point_and_the_rest_is_kept(tmp_path: Path) -> None:
    grid = grid_file(tmp_path, [0.15, 0.2, 0.25])
    out = tmp_path / "out"
    # The worker running point 1 exits at once (as one killed by the OOM killer); with no retries
    # left, Dask gives up on the point (KilledWorker). The other points finish.
    r = cli(
        "sweep",
        str(grid),
        "--out",
        str(out),
        "--workers",
        "1",
        FLASHPRESS_TEST_DIE_IN="point 1",
        DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES="0",
    )
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("flashpress: error: 1 of 3 points failed; 2 of 3 points finished and are kept in ")
    assert "point 1 (ftl.op_ratio=0.2): its worker process died (KilledWorker" in r.stderr
    assert "Traceback" not in r.stderr
    assert not out.exists()
    assert len(list((tmp_path / ".out.partial" / "done").glob("*.json"))) == 2

    # Rerun with point 2 changed: point 0 is reused, points 1 and 2 run, and the result kept for
    # the old point 2 is said to match nothing.
    changed = grid_file(tmp_path, [0.15, 0.2, 0.3], name="changed.toml")
    again = cli("sweep", str(changed), "--out", str(out), "--workers", "1")
    assert again.returncode == 0, again.stderr
    assert "1 of 3 points finished earlier, 2 to run; 1 earlier results match no point now" in again.stderr
    assert (out / "points" / "0002" / "summary.json").exists()
    assert hidden(tmp_path) == []


def test_ctrl_c_of_a_sweep_is_one_line_and_status_130(tmp_path: Path, procs: list[subprocess.Popen[str]]) -> None:
    grid = grid_file(tmp_path, [0.1, 0.15, 0.2, 0.25], ios=4000)
    out = tmp_path / "out"
    p = start(procs, ["sweep", str(grid), "--out", str(out), "--workers", "2"])
    wait_for_kept(out, 1, p)
    os.killpg(p.pid, signal.SIGINT)  # what Ctrl-C at a terminal does: the CLI and its workers
    _stdout, stderr = p.communicate(timeout=60)
    assert p.returncode == 130, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("flashpress: interrupted; ")
    assert "of 4 points finished and are kept in" in lines[0]
    assert not out.exists()


@pytest.mark.slow
def test_lost_scheduler_is_an_error_naming_the_points_and_resumable(
    tmp_path: Path, procs: list[subprocess.Popen[str]]
) -> None:
    # A scheduler and a worker of their own, reached by address as a cluster is; the scheduler
    # is killed once a point has finished.
    dask = str(Path(sys.executable).parent / "dask")
    scheduler = start_exe(procs, [dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"])
    addr = ""
    assert scheduler.stderr is not None
    for line in scheduler.stderr:
        if "Scheduler at:" in line:
            addr = line.split("Scheduler at:")[1].strip()
            break
    assert addr.startswith("tcp://127.0.0.1:")
    start_exe(procs, [dask, "worker", addr, "--nthreads", "1", "--nworkers", "1", "--no-dashboard"])
    grid = grid_file(tmp_path, [0.1, 0.15, 0.2, 0.25], ios=30000)
    out = tmp_path / "out"
    p = start(procs, ["sweep", str(grid), "--out", str(out), "--scheduler", addr])
    wait_for_kept(out, 1, p)
    os.kill(scheduler.pid, signal.SIGKILL)
    _, stderr = p.communicate(timeout=120)
    assert p.returncode == 2, stderr
    first = stderr.splitlines()[0]
    assert first.startswith("flashpress: error: "), stderr
    assert "points failed;" in first
    assert "points finished and are kept in" in first
    assert "the connection to the Dask scheduler" in stderr
    assert "Traceback" not in stderr
    assert not out.exists()
    kept = len(list((tmp_path / ".out.partial" / "done").glob("*.json")))
    assert 1 <= kept < 4
    again = cli("sweep", str(grid), "--out", str(out), "--workers", "1")
    assert again.returncode == 0, again.stderr
    assert f"{kept} of 4 points finished earlier, {4 - kept} to run" in again.stderr


@pytest.mark.slow
def test_reproduce_with_a_killed_worker_resumes(tmp_path: Path) -> None:
    """Needs the storage stack (Waltz Fig 3: three cold-start runs)."""
    out = tmp_path / "rp"
    args = ["reproduce", "waltz", "--quick", "--only", "3", "--out", str(out), "--workers", "1"]
    r = cli(*args, FLASHPRESS_TEST_DIE_IN="run 2", DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES="0")
    assert r.returncode == 2, r.stderr
    assert "flashpress: error: 1 of 3 runs did not finish; 2 of 3 runs finished and are kept in " in r.stderr
    assert "run 2 (fig3 run `without/23C`): its worker process died (KilledWorker" in r.stderr
    assert not out.exists()
    again = cli(*args)
    assert again.returncode == 0, again.stderr
    assert "resuming: 2 of 3 runs finished earlier, 1 to run" in again.stderr
    assert "run 2/3: ok" in again.stderr
    assert "run 1/3" not in again.stderr
    table = (out / "results.csv").read_text()
    assert table.count(",ok,") == 3
    assert (out / "report.html").is_file()
    assert hidden(tmp_path) == []


def test_reproduce_takes_force_and_keeps_overwrite_hidden() -> None:
    parser = build_parser()
    assert parser.parse_args(["reproduce", "waltz", "--force"]).force
    assert parser.parse_args(["reproduce", "waltz", "--overwrite"]).force, "the old name still works"
    rp = next(a for a in parser._subparsers._group_actions[0].choices.items() if a[0] == "reproduce")[1]  # type: ignore[union-attr]
    assert "--force" in rp.format_help()
    assert "--overwrite" not in rp.format_help()


KILL_WHILE_WRITING = """
import os, signal, sys
from pathlib import Path
from flashpress import Config, errors, result
out = Path(sys.argv[1])
if sys.argv[2] == "swap":
    result._exchange = lambda a, b: False  # the two-rename protocol, as on a file system without exchange
    real = os.replace
    def replace(a, b):
        real(a, b)
        if ".old-" in str(b):  # killed between the two renames: the target is missing
            os.kill(os.getpid(), signal.SIGKILL)
with result.atomic_dir(out, overwrite=True) as tmp:
    (tmp / "summary.json").write_text("new")
    if sys.argv[2] == "write":
        os.kill(os.getpid(), signal.SIGKILL)  # killed while writing the results
    result.os.replace = replace
"""


def test_sigkill_while_writing_then_run_leaves_no_hidden_folders(tmp_path: Path) -> None:
    out = tmp_path / "D"
    k = subprocess.run([sys.executable, "-c", KILL_WHILE_WRITING, str(out), "write"])
    assert k.returncode == -signal.SIGKILL
    assert [h.split("-")[0] for h in hidden(tmp_path)] == [".D.tmp"]
    r = cli("run", "--preset", "tiny", "--out", str(out), "--no-progress")
    assert r.returncode == 0, r.stderr
    assert hidden(tmp_path) == []
    assert sorted(os.listdir(out)) == ["config.json", "latency_cdf.csv", "summary.json", "timeline.parquet"]


def test_force_overwrite_interrupted_between_renames_is_recovered(tmp_path: Path) -> None:
    out = tmp_path / "D"
    out.mkdir()
    (out / "summary.json").write_text("old")
    k = subprocess.run([sys.executable, "-c", KILL_WHILE_WRITING, str(out), "swap"])
    assert k.returncode == -signal.SIGKILL
    assert not out.exists()
    # Killed between the renames: the old results aside, the new ones not yet in place.
    assert sorted(h.split("-")[0] for h in hidden(tmp_path)) == [".D.old", ".D.tmp"]
    # The next writer of D puts the old results back before looking at D: without --force it
    # refuses to replace them, as it would have before the interrupted overwrite.
    r = cli("run", "--preset", "tiny", "--out", str(out), "--no-progress")
    assert r.returncode == 2
    assert "earlier results were put back" in r.stderr
    assert "output directory exists and is not empty (use --force" in r.stderr
    assert (out / "summary.json").read_text() == "old"
    assert hidden(tmp_path) == []


def test_force_overwrite_exchanges_in_one_step(tmp_path: Path) -> None:
    out = tmp_path / "D"
    out.mkdir()
    (out / "a").write_text("old")
    with result.atomic_dir(out, overwrite=True) as tmp:
        (tmp / "a").write_text("new")
        assert result._exchange(tmp, out), "renameat2(RENAME_EXCHANGE) works here"
        assert (out / "a").read_text() == "new"
        assert (tmp / "a").read_text() == "old"
        assert result._exchange(tmp, out)  # swap back, so that atomic_dir's own commit does it
    assert (out / "a").read_text() == "new"
    assert hidden(tmp_path) == []


def test_leftovers_of_live_writers_are_left_alone(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    mine = tmp_path / f".D.tmp-{result._owner_tag()}-abc"
    gone = tmp_path / f".D.tmp-{dead.pid}-{result._start_ticks(os.getpid())}-abc"
    reused = tmp_path / f".D.tmp-{os.getpid()}-1-abc"  # this pid, but another process's start time
    other = tmp_path / ".E.tmp-1-1-abc"
    for d in (mine, gone, reused, other):
        d.mkdir()
    result.recover_leftovers(tmp_path / "D")
    assert hidden(tmp_path) == sorted([mine.name, other.name])


def test_a_killed_file_writers_temporary_file_is_removed_by_the_next(tmp_path: Path) -> None:
    target = tmp_path / "codecs.json"
    script = (
        "import os, signal, sys\n"
        "from flashpress.result import AtomicFile\n"
        "with AtomicFile(sys.argv[1]) as f:\n"
        "    f.write('half')\n"
        "    f.flush()\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    assert subprocess.run([sys.executable, "-c", script, str(target)]).returncode == -signal.SIGKILL
    assert [h.split("-")[0] for h in hidden(tmp_path)] == [".codecs.json.tmp"]
    with result.AtomicFile(target) as f:
        f.write("whole")
    assert hidden(tmp_path) == []
    assert target.read_text() == "whole"
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask, "as open() would make it, not mkstemp's 0600"


def test_one_process_at_a_time_in_a_work_folder(tmp_path: Path) -> None:
    with result.WorkDir(tmp_path / "out") as work:
        work.put("k", {"summary": 1})
        with pytest.raises(errors.OutputExistsError, match="another flashpress process is writing this output"):
            result.WorkDir(tmp_path / "out").__enter__()
    with result.WorkDir(tmp_path / "out") as again:
        assert again.keys() == {"k"}
        assert again.get("k") == {"summary": 1}
        assert again.get("other") is None


def test_a_kept_result_is_keyed_by_the_files_its_config_names(tmp_path: Path) -> None:
    job = tmp_path / "w.fio"
    job.write_text("[w]\nrw=randwrite\nnumber_ios=10\n")
    cfg = Config.preset("tiny").with_overrides({"workload": {"type": "fio", "path": str(job)}}).to_json()
    key = result.task_key("sweep point", cfg)
    assert result.task_key("sweep point", cfg) == key
    assert result.task_key("reproduce run", cfg) != key
    job.write_text("[w]\nrw=randwrite\nnumber_ios=20\n")  # the same config, another job
    assert result.task_key("sweep point", cfg) != key
