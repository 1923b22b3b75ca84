"""Result files (``--json``) are written only to regular files in folders that exist: a device
node, fifo, socket or folder at the path is refused by name and left as it was, no folder is
created, and no temporary file is left behind. The table is the fuzz class of output paths:
each kind of non-regular path through each command that writes a result file."""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from flashpress.cli import main
from flashpress.errors import OutputPathError
from flashpress.result import AtomicFile


def _fifo(p: Path) -> None:
    os.mkfifo(p)


def _folder(p: Path) -> None:
    p.mkdir()
    (p / "keep.txt").write_text("x")


def _devnull_link(p: Path) -> None:
    p.symlink_to("/dev/null")


_SOCKETS: list[socket.socket] = []


def _socket(p: Path) -> None:
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(p))
    _SOCKETS.append(s)


KINDS: dict[str, tuple[Callable[[Path], None], str]] = {
    "fifo": (_fifo, "is a fifo"),
    "folder": (_folder, "is a folder"),
    "device node (through a link)": (_devnull_link, "is a character device"),
    "socket": (_socket, "is a socket"),
}


@pytest.fixture(autouse=True)
def _close_sockets() -> Iterator[None]:
    yield
    while _SOCKETS:
        _SOCKETS.pop().close()


def _snapshot(p: Path) -> tuple[int, bool]:
    return (os.lstat(p).st_mode, p.is_symlink())


def _commands(tmp_path: Path) -> dict[str, list[str]]:
    field = tmp_path / "f.npy"
    np.save(field, np.linspace(0, 1, 64 * 64, dtype=np.float32).reshape(64, 64))
    text = tmp_path / "t.txt"
    text.write_bytes(b"the quick brown fox jumps over the lazy dog\n" * 2000)
    return {
        "lossy compress": ["lossy", "compress", str(field), "--codec", "szx"],
        "lossy plan": ["lossy", "plan", str(field), "--codec", "szx", "--device", "hdd", "--threads", "1"],
        "codec bench": ["codec", "bench", str(text), "--codec", "lz4", "--no-progress"],
    }


@pytest.mark.parametrize("command", ["lossy compress", "lossy plan", "codec bench"])
@pytest.mark.parametrize("kind", list(KINDS))
def test_non_regular_output_is_refused_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, kind: str
) -> None:
    argv = _commands(tmp_path)[command]
    out = tmp_path / "out" / "r.json"
    out.parent.mkdir()
    make, said = KINDS[kind]
    make(out)
    before = _snapshot(out)
    assert main([*argv, "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert str(out) in err
    assert said in err
    assert _snapshot(out) == before
    assert [p.name for p in out.parent.iterdir()] == ["r.json"]  # no temporary left
    if kind == "folder":
        assert [p.name for p in out.iterdir()] == ["keep.txt"]


@pytest.mark.parametrize("command", ["lossy compress", "lossy plan", "codec bench"])
def test_missing_folder_is_not_created(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    argv = _commands(tmp_path)[command]
    out = tmp_path / "no" / "such" / "r.json"
    assert main([*argv, "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert str(out) in err
    assert "its folder" in err
    assert "does not exist" in err
    assert not (tmp_path / "no").exists()


def test_regular_file_is_replaced_whole(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    out.write_text("old")
    with AtomicFile(out) as f:
        f.write("new")
    assert out.read_text() == "new"
    assert stat.S_ISREG(os.lstat(out).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_a_non_regular_file_appearing_while_writing_is_not_replaced(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    writer = AtomicFile(out)
    writer.__enter__().write("new")
    os.mkfifo(out)
    with pytest.raises(OutputPathError, match="is a fifo"):
        writer.__exit__(None, None, None)
    assert stat.S_ISFIFO(os.lstat(out).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]
