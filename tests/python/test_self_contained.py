"""The repository stands on its own: nothing but documentation mentions the folder beside the
CI checkout, and the third-party files it vendors are the upstream bytes."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The folder that exists beside this repository only on the machine that develops it (spelt
#: in pieces so that this file does not mention it).
OUTSIDE = ("../" + "shared", "/work/" + "shared")


def _tracked() -> list[str]:
    p = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    return [f for f in p.stdout.decode().split("\0") if f]


def _documentation(path: str) -> bool:
    return path.endswith(".md") or path.startswith("docs/")


def test_no_tracked_file_but_documentation_reads_the_folder_beside_the_checkout() -> None:
    files = _tracked()
    assert "Makefile" in files
    assert "crates/flashpress-core/Cargo.toml" in files
    found = []
    for f in files:
        if _documentation(f):
            continue
        try:
            text = (ROOT / f).read_text(errors="replace")
        except (IsADirectoryError, FileNotFoundError):
            continue  # a submodule or a file deleted in the work tree
        lines = enumerate(text.splitlines(), 1)
        found += [f"{f}:{n}: {line.strip()}" for n, line in lines if any(o in line for o in OUTSIDE)]
    assert not found, "these read a folder that exists only beside the CI checkout:\n" + "\n".join(found)


def test_the_guard_sees_a_mention(tmp_path: Path) -> None:
    """The check above finds the spelling it looks for (it would pass on an empty list otherwise)."""
    line = f'path = "{OUTSIDE[0]}/data/fio/ssd-test.fio"'
    assert any(o in line for o in OUTSIDE)
    assert not _documentation("crates/flashpress-core/src/lib.rs")
    assert _documentation("docs/architecture.md")
    assert _documentation("README.md")


@pytest.mark.parametrize(
    ("path", "sha256"),
    [
        # filebench/filebench at commit 22620e6, workloads/ (CDDL 1.0; configs/filebench/README.md)
        ("configs/filebench/fileserver.f", "8dd48addac27adcbe3f47d1045476f9e1763bb88387d2f8983c2fe8f5ca5bab7"),
        ("configs/filebench/oltp.f", "ee3c8d0622cf9d084aab55890af04dfebf9aa225c70a94f7c1138ca20c4ca325"),
        ("configs/filebench/varmail.f", "16650679e22eae780c9d763b37778a114d5f64d1d99843f5d4d794a73e0965fb"),
        ("configs/filebench/webserver.f", "3446f3604381b2e6dc6127157471f1574a58daeda3bd9245ed4ed98dbb8580f4"),
        # CMU-SAFARI/MQSim at commit 7ec40e3, traces/ (MIT; testdata/traces/README.md)
        ("testdata/traces/tpcc-small.trace", "404dd97c3fd4bf605c23abb1f57823226d31da9ed5caeb37b01236496a81fa56"),
    ],
)
def test_vendored_files_are_the_upstream_bytes(path: str, sha256: str) -> None:
    assert hashlib.sha256((ROOT / path).read_bytes()).hexdigest() == sha256
    notice = (ROOT / path).parent / "README.md"
    assert Path(path).name in notice.read_text(), f"{notice} names where {path} comes from"
