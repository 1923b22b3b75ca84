"""fio's own sg examples (Debian's fio-examples 3.33, fetched by `make testdata`) run as
written: SCSI VERIFY and WRITE SAME NDOB commands. Which jobs fail is taken from each file's
own comments, and the command and byte counts are worked out from the jobs' options."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import flashpress
from flashpress.errors import FlashpressError
from flashpress.reproduce import testdata

EXAMPLES = testdata.root() / "fio-examples"


def example(name: str) -> Path:
    p = EXAMPLES / name
    if not p.is_file():
        pytest.fail(f"{p} is missing: run `make testdata` (fio's examples from Debian's fio-examples)")
    return p


def run(path: Path, fill: float = 0.0) -> dict[str, Any]:
    cfg = flashpress.Config.preset("tiny").with_overrides(
        {
            "workload": {"type": "fio", "path": str(path)},
            "precondition.fill_fraction": fill,
            "precondition.aging_fraction": 0.0,
        },
        source_name="test",
    )
    return flashpress.simulate(cfg, progress=False).summary


def jobs(path: Path) -> list[str]:
    return [m for m in re.findall(r"^\[([^\]]+)\]", path.read_text(), re.M) if m != "global"]


def failed(summary: dict[str, Any]) -> list[str]:
    return [n.split("`")[1] for n in summary.get("workload_notes", []) if "miscompares" in n]


def test_sg_verify_every_job_completes_without_error() -> None:
    # "All of the jobs below should complete without error."
    p = example("sg_verify.fio")
    assert "All of the jobs below should complete without error" in p.read_text()
    s = run(p)
    assert failed(s) == []
    assert s["requests_failed"] == 0
    # precon: 20 writes of 512 B; then 20 + 20 + 2 + 20 + 5 + 1 VERIFYs of the same 10240 B.
    assert s["requests_completed"] == 20 + 68
    assert s["host_write_bytes"] == 10240
    assert s["host_read_bytes"] == 6 * 10240


@pytest.mark.parametrize("fill", [0.0, 0.5])
def test_sg_verify_fail_exactly_the_jobs_named_fail_fail(fill: float) -> None:
    # "The jobs with fail in the name should produce errors" (on a filled device too: the
    # sector past the written 20 holds the preconditioning's data, not the pattern).
    p = example("sg_verify-fail.fio")
    assert "The jobs with fail in the name should produce errors" in p.read_text()
    s = run(p, fill)
    want = [j for j in jobs(p) if "fail" in j]
    assert want == ["verify01-fail", "verify11-fail"]
    assert failed(s) == want
    assert s["requests_failed"] == 2
    # Issued: 20 + 20 + 21 + 1 + 1; the two failed are counted, not their bytes.
    assert s["requests_completed"] == 63
    assert s["host_read_bytes"] == 3 * 10240


def test_sg_write_same_ndob_all_but_the_last_job_pass() -> None:
    # "All of the jobs below should complete without error except the last one."
    p = example("sg_write_same_ndob.fio")
    assert "except the last one" in p.read_text()
    s = run(p)
    assert failed(s) == [jobs(p)[-1]] == ["verify-fail"]
    # 20 writes, 19 WRITE SAMEs, 19 VERIFYs of zeros, 20 VERIFYs (the 20th fails).
    assert (s["requests_completed"], s["requests_failed"]) == (78, 1)
    assert s["host_write_bytes"] == 39 * 512
    assert s["host_read_bytes"] == 38 * 512


def test_bad_sg_write_mode_values_are_all_reported_with_their_lines(tmp_path: Path) -> None:
    p = tmp_path / "bad.fio"
    p.write_text(
        "[global]\nfilename=/dev/sdb\nioengine=sg\nrw=write\nbs=512\nnumber_ios=4\n"
        "[a]\nsg_write_mode=verify_bytchk_10\n[b]\nsg_write_mode=same\n[c]\nsg_write_mode=\n"
    )
    with pytest.raises(FlashpressError) as e:
        run(p)
    msg = str(e.value)
    for line in (8, 10, 12):
        assert f"bad.fio:{line}: " in msg, msg
