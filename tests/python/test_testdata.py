"""The real-data images (``testdata/fetch.py``, ``make testdata``) and where the
reproductions find them (``flashpress.reproduce.testdata``)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import sys
import tomllib
from pathlib import Path

import pytest

from flashpress.errors import FileReadError
from flashpress.reproduce import testdata
from flashpress.reproduce.experiments_prssd import TABLE2

ROOT = Path(__file__).resolve().parents[2]
needs_e2fsprogs = pytest.mark.skipif(
    shutil.which("mke2fs") is None or shutil.which("debugfs") is None, reason="e2fsprogs is not installed"
)


def _fetch():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("fetch", ROOT / "testdata" / "fetch.py")
    assert spec is not None
    assert spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["fetch"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_every_table_2_workload_has_a_pinned_image() -> None:
    m = tomllib.loads((ROOT / "testdata" / "prssd.toml").read_text())
    assert set(m["images"]) == set(TABLE2)
    for name, pkg in m["packages"].items():
        assert len(pkg["sha256"]) == 64, name
        assert ("apt" in pkg) != ("pypi" in pkg), name
        assert "=" in pkg.get("apt", pkg.get("pypi", "")), f"{name} is not pinned to a version"
    for name, img in m["images"].items():
        assert len(img["sha256"]) == 64, name


def test_the_built_images_are_what_the_manifest_pins() -> None:
    """`make testdata` built every image; each is the bytes the manifest's SHA-256 names, and
    images.json's zero-block count is the image's (counted here)."""
    m = tomllib.loads((ROOT / "testdata" / "prssd.toml").read_text())
    doc = testdata.images("prssd")
    for name in TABLE2:
        raw = testdata.image("prssd", name).read_bytes()
        assert hashlib.sha256(raw).hexdigest() == m["images"][name]["sha256"], name
        zeros = sum(not any(raw[i : i + 4096]) for i in range(0, len(raw), 4096))
        assert doc[name]["zero_blocks"] == zeros, name
        assert doc[name]["blocks"] * 4096 == len(raw), name


def test_missing_test_data_names_the_file_and_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLASHPRESS_TESTDATA", str(tmp_path))
    with pytest.raises(FileReadError, match=r"prssd/images\.json is missing.*make testdata"):
        testdata.image("prssd", "DB")
    (tmp_path / "prssd").mkdir()
    (tmp_path / "prssd" / "images.json").write_text(json.dumps({"DB": {"file": "DB.img", "bytes": 8192}}))
    with pytest.raises(FileReadError, match=r"has no image 'ML'"):
        testdata.image("prssd", "ML")
    with pytest.raises(FileReadError, match=r"DB\.img: expected 8192 bytes.*found no file"):
        testdata.image("prssd", "DB")
    (tmp_path / "prssd" / "DB.img").write_bytes(bytes(4096))
    with pytest.raises(FileReadError, match=r"found 4096; rerun `make testdata`"):
        testdata.image("prssd", "DB")


@needs_e2fsprogs
def test_an_image_is_the_same_bytes_every_build_and_holds_the_files(tmp_path: Path) -> None:
    fetch = _fetch()
    tree = tmp_path / "trees" / "pkg"
    (tree / "usr" / "share").mkdir(parents=True)
    text = Path("/usr/share/common-licenses/GPL-3").read_bytes()
    (tree / "usr" / "share" / "gpl.txt").write_bytes(text)
    (tree / "usr" / "share" / "skip.bin").write_bytes(b"\xff" * 5000)
    spec = {"what": "a test", "from": ["pkg"], "include": ["*.txt"]}
    digests = []
    for out, umask in (("a", 0o022), ("b", 0o007)):  # the builder's umask does not matter
        (tmp_path / out).mkdir()
        old = os.umask(umask)
        try:
            info = fetch.build_image("T", spec, {"pkg": tree}, tmp_path / "trees", tmp_path / out, Path("m.toml"))
        finally:
            os.umask(old)
        digests.append(info["sha256"])
        assert info["files"] == 1
        assert info["data_bytes"] == len(text)
        raw = (tmp_path / out / "T.img").read_bytes()
        blocks = {raw[i : i + 4096] for i in range(0, len(raw), 4096)}
        padded = text + bytes(-len(text) % 4096)
        assert all(padded[i : i + 4096] in blocks for i in range(0, len(padded), 4096))
        assert b"\xff" * 5000 not in raw
    assert digests[0] == digests[1]
    with pytest.raises(fetch.FetchError, match=r"\[images\.T\]: the image's SHA-256 is .*expected 0+"):
        fetch.build_image(
            "T", {**spec, "sha256": "0" * 64}, {"pkg": tree}, tmp_path / "trees", tmp_path / "a", Path("m.toml")
        )


def test_manifest_mistakes_are_named(tmp_path: Path) -> None:
    fetch = _fetch()
    pkgs = {"pkg": tmp_path / "pkg.deb"}
    for spec, msg in [
        ({"what": "x", "from": ["nope"], "include": ["*"]}, r"\[images\.T\]: unknown package `nope`"),
        ({"what": "x", "form": ["pkg"]}, r"\[images\.T\]: unknown key `form`"),
        ({"from": ["pkg"], "include": ["*"]}, r"\[images\.T\]: expected `what`"),
        ({"what": "x", "from": ["pkg"]}, r"`from` needs `include` globs"),
    ]:
        with pytest.raises(fetch.FetchError, match=msg):
            fetch.build_image("T", spec, pkgs, tmp_path, tmp_path, Path("m.toml"))
    with pytest.raises(fetch.FetchError, match=r"\[packages\.p\]: expected exactly one of `apt` or `pypi`"):
        fetch.download("p", {"sha256": "0" * 64}, tmp_path, Path("m.toml"))
