"""The real-data images (``testdata/fetch.py``, ``make testdata``) and where the
reproductions find them (``flashpress.reproduce.testdata``)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest

from flashpress.errors import FileReadError
from flashpress.reproduce import testdata
from flashpress.reproduce.papers.prssd.experiments import TABLE2

ROOT = Path(__file__).resolve().parents[2]
needs_e2fsprogs = pytest.mark.skipif(
    shutil.which("mke2fs") is None or shutil.which("debugfs") is None, reason="e2fsprogs is not installed"
)


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
    # The large data is another command's.
    with pytest.raises(FileReadError, match=r"cagc/images\.json is missing.*run `make testdata-full`"):
        testdata.image("cagc", "release1")


@needs_e2fsprogs
def test_an_image_is_the_same_bytes_every_build_and_holds_the_files(fetch: Any, tmp_path: Path) -> None:
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


def test_manifest_mistakes_are_named(fetch: Any, tmp_path: Path) -> None:
    pkgs = {"pkg": tmp_path / "pkg.deb"}
    for spec, msg in [
        ({"what": "x", "from": ["nope"], "include": ["*"]}, r"\[images\.T\]: unknown package `nope`"),
        ({"what": "x", "form": ["pkg"]}, r"\[images\.T\]: unknown key `form`"),
        ({"from": ["pkg"], "include": ["*"]}, r"\[images\.T\]: expected `what`"),
        ({"what": "x", "from": ["pkg"]}, r"`from` needs `include` globs"),
    ]:
        with pytest.raises(fetch.FetchError, match=msg):
            fetch.build_image("T", spec, pkgs, tmp_path, tmp_path, Path("m.toml"))
    with pytest.raises(fetch.FetchError, match=r"\[packages\.p\]: expected exactly one of `apt`, `pypi` or `url`"):
        fetch.download("p", {"sha256": "0" * 64}, tmp_path, Path("m.toml"))


def test_the_cagc_manifest_pins_six_consecutive_releases() -> None:
    m = tomllib.loads((ROOT / "testdata" / "cagc.toml").read_text())
    versions = []
    for name, pkg in m["packages"].items():
        assert set(pkg) == {"url", "sha256"}, name
        assert len(pkg["sha256"]) == 64, name
        assert pkg["url"].startswith("http://deb.debian.org/debian"), name
        assert pkg["url"].endswith("_all.deb"), name
        versions.append(pkg["url"].rsplit("_", 2)[1])
    assert len(versions) == 6
    assert all(v.startswith("6.1.") for v in versions)
    key = [tuple(int(x) for x in v[4:].replace("-", ".").split(".")) for v in versions]
    assert key == sorted(key), "releases oldest first"
    for i, (name, img) in enumerate(m["images"].items(), 1):
        assert name == f"release{i}"
        assert img["layout"] == "flat"
        assert len(img["from"]) == 1
        assert len(img["sha256"]) == 64


@pytest.mark.slow
@pytest.mark.parametrize("dataset", ["cagc"])
def test_the_full_data_sets_are_the_pinned_images(dataset: str) -> None:
    """The large data of `make testdata-full` (the slow suite builds it)."""
    _built_images_are_pinned(dataset)


@pytest.mark.parametrize("dataset", ["cagc-small"])
def test_the_default_data_sets_are_the_pinned_images(dataset: str) -> None:
    _built_images_are_pinned(dataset)


def _built_images_are_pinned(dataset: str) -> None:
    m = tomllib.loads((ROOT / "testdata" / f"{dataset}.toml").read_text())
    doc = testdata.images(dataset)
    assert sorted(doc) == sorted(m["images"])
    for name, img in m["images"].items():
        # fetch.py refuses an image whose bytes differ from the pinned SHA-256: the built one is it.
        assert doc[name]["sha256"] == img["sha256"], name
        assert testdata.image(dataset, name).with_suffix(".files").exists()


def test_the_small_release_pair_is_two_consecutive_releases_of_one_package() -> None:
    m = tomllib.loads((ROOT / "testdata" / "cagc-small.toml").read_text())
    debs = [Path(p["url"]).name for p in m["packages"].values()]
    assert len(debs) == 2
    names = {d.split("_")[0] for d in debs}
    assert len(names) == 1, debs
    # Debian revisions one security update apart: +debNNuK then +debNNu(K+1).
    u = [int(d.split("_")[1].rsplit("u", 1)[1]) for d in debs]
    assert u[1] == u[0] + 1, debs
    assert all(len(i["sha256"]) == 64 and i["layout"] == "flat" and "tar" not in i for i in m["images"].values())


def _deb_with_tarball(tmp_path: Path, files: dict[str, bytes]) -> Path:
    import subprocess
    import tarfile

    root = tmp_path / "debroot"
    (root / "DEBIAN").mkdir(parents=True)
    (root / "DEBIAN" / "control").write_text(
        "Package: t\nVersion: 1\nArchitecture: all\nMaintainer: t <t@t>\nDescription: t\n"
    )
    (root / "usr" / "src").mkdir(parents=True)
    src = tmp_path / "src"
    for name, data in files.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_bytes(data)
    with tarfile.open(root / "usr" / "src" / "t.tar.xz", "w:xz") as t:
        t.add(src, arcname="t")  # directories, then files in the order added
    deb = tmp_path / "t.deb"
    subprocess.run(["dpkg-deb", "--build", "--root-owner-group", str(root), str(deb)], check=True, capture_output=True)
    return deb


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="dpkg-deb is not installed")
def test_a_flat_image_pads_each_file_to_a_block_and_lists_it(fetch: Any, tmp_path: Path) -> None:
    files = {"a/big": bytes(range(256)) * 20, "a/empty": b"", "b": b"x" * 4096, "c": b"tail"}
    deb = _deb_with_tarball(tmp_path, files)
    out = tmp_path / "out"
    out.mkdir()
    spec = {"layout": "flat", "from": ["t"], "tar": "usr/src/t.tar.xz", "what": "a test"}
    info = fetch.build_image("R", spec, {"t": deb}, tmp_path, out, Path("m.toml"))
    listing = [line.split("\t") for line in (out / "R.files").read_text().splitlines()]
    names = [p.removeprefix("t/") for _, p in listing]
    assert sorted(names) == sorted(files)
    raw = (out / "R.img").read_bytes()
    want = b"".join(files[n] + bytes(-len(files[n]) % 4096) for n in names)
    assert raw == want
    assert [int(n) for n, _ in listing] == [-(-len(files[n]) // 4096) for n in names]
    assert info["blocks"] * 4096 == len(raw)
    assert info["files"] == 4
    assert info["sha256"] == hashlib.sha256(raw).hexdigest()
    assert info["data_bytes"] == sum(len(v) for v in files.values())
    with pytest.raises(fetch.FetchError, match=r"\[images\.R\]: the image's SHA-256 is .*expected 0+"):
        fetch.build_image("R", {**spec, "sha256": "0" * 64}, {"t": deb}, tmp_path, out, Path("m.toml"))
    with pytest.raises(fetch.FetchError, match=r"has no file 'usr/src/other.tar.xz'"):
        fetch.build_image("R", {**spec, "tar": "usr/src/other.tar.xz"}, {"t": deb}, tmp_path, out, Path("m.toml"))
    # Without `tar`, the package's own files are laid out: here its one file, the tarball.
    own = fetch.build_image("P", {k: v for k, v in spec.items() if k != "tar"}, {"t": deb}, tmp_path, out, Path("m"))
    tarball = (tmp_path / "debroot" / "usr" / "src" / "t.tar.xz").read_bytes()
    assert (out / "P.img").read_bytes() == tarball + bytes(-len(tarball) % 4096)
    assert [line.split("\t")[1] for line in (out / "P.files").read_text().splitlines()] == ["./usr/src/t.tar.xz"]
    assert own["files"] == 1
    assert own["data_bytes"] == len(tarball)
    with pytest.raises(fetch.FetchError, match=r"a flat image expects `from`"):
        fetch.build_image("R", {k: v for k, v in spec.items() if k != "from"}, {"t": deb}, tmp_path, out, Path("m"))


def test_a_release_gone_from_the_archive_is_named(fetch: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import urllib.error
    import urllib.request

    def gone(url: str, timeout: float = 0) -> None:
        raise urllib.error.HTTPError(url, 404, "Not Found", {}, None)  # type: ignore[arg-type]

    monkeypatch.setattr(urllib.request, "urlopen", gone)
    spec = {"url": "http://deb.debian.org/debian/pool/main/l/linux/x_6.1.1-1_all.deb", "sha256": "0" * 64}
    with pytest.raises(fetch.FetchError, match=r"\[packages\.x\]: download .*HTTP 404.*no longer in Debian's archive"):
        fetch.download("x", spec, tmp_path, Path("m.toml"))
