#!/usr/bin/env python3
"""Build the real-data file-system images a manifest describes (``make testdata`` runs this).

Each package of the manifest is downloaded at its pinned version (Debian packages with
``apt-get download``, PyPI wheels with ``pip download``; no root needed), checked against its
SHA-256 and unpacked. Each image then gets the files of its packages that match its globs (or
the package files themselves), and ``mke2fs -d`` lays them out in an ext4 image a tenth larger
than the data, with a fixed UUID, hash seed and clock, so the image is the same bytes on every
machine with the same e2fsprogs. A ``flat`` image is the regular files of a tarball inside one
package (or, without ``tar``, of the package itself), in
the tarball's order, each from a 4 KiB boundary with its tail zero-padded (the data
blocks a file system gives the files, without its metadata), streamed without unpacking, and a
``NAME.files`` list beside it gives each file's blocks and path. A package may name a ``url``
(a Debian pool file) instead of ``apt``, so a version that the machine's package lists no longer
name is still fetched while the archive keeps it. A ``[files.NAME]`` entry is one file taken out
of a package as it is (a .deb's data streamed through ``dpkg-deb --fsys-tarfile``, a wheel's zip),
checked against its own SHA-256 and written as ``NAME`` plus the original's suffix (kept when it
is already there with that SHA-256). ``images.json`` beside the images says what each holds: its
SHA-256, blocks, all-zero 4 KiB blocks and files (and, for each extracted file, its SHA-256,
bytes and ``"kind": "file"``); it is written last, so its presence means every image and file is
complete.

Standard library only (it runs before the project's virtualenv exists); it needs apt-get,
dpkg-deb, pip (for the wheel), mke2fs and debugfs (e2fsprogs).
"""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import urllib.error
import urllib.request
import zipfile
from pathlib import Path
from typing import Any

BLOCK = 4096
#: The clock, UUID and directory-hash seed of every image (any fixed values do).
EPOCH = 1672531200  # 2023-01-01T00:00:00Z
UUID = "6c9e7f6e-5a8d-4f57-9d0e-0c1a2b3c4d5e"
HASH_SEED = "0b4e2f3a-7c61-4d8e-a9f0-123456789abc"
#: mke2fs's settings (not the machine's /etc/mke2fs.conf).
MKE2FS_CONFIG = Path(__file__).with_name("mke2fs.conf")
#: Free space left in an image, as a share of its data.
SLACK = 0.10


class FetchError(Exception):
    """A package that cannot be fetched or does not match the manifest."""


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _run(cmd: list[str], what: str, **kw: Any) -> None:
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise FetchError(f"{what}: `{' '.join(cmd)}` exited {p.returncode}: {p.stderr.strip() or p.stdout.strip()}")


def download(name: str, spec: dict[str, Any], dest: Path, manifest: Path) -> Path:
    """The package file of `spec` in `dest`, downloaded unless already there and intact."""
    where = f"{manifest}: [packages.{name}]"
    if sum(k in spec for k in ("apt", "pypi", "url")) != 1:
        raise FetchError(f"{where}: expected exactly one of `apt`, `pypi` or `url`")
    if "sha256" not in spec:
        raise FetchError(f"{where}: expected `sha256`")
    want = spec["sha256"]
    for f in dest.glob(f"{name}.*"):
        if f.suffix in (".deb", ".whl") and sha256_of(f) == want:
            return f
    with tempfile.TemporaryDirectory(dir=dest) as tmp:
        if "url" in spec:
            url = spec["url"]
            what = f"{where}: download {url}"
            if not url.endswith(".deb"):
                raise FetchError(f"{where}: `url` must name a .deb file, got {url!r}")
            try:
                with urllib.request.urlopen(url, timeout=120) as r, open(Path(tmp) / Path(url).name, "wb") as f:
                    shutil.copyfileobj(r, f, 1 << 20)
            except urllib.error.HTTPError as e:
                gone = (
                    "; this version is no longer in Debian's archive (the security archive keeps only the latest "
                    "releases): pin releases that are, with their SHA-256"
                    if e.code in (404, 410)
                    else ""
                )
                raise FetchError(f"{what}: HTTP {e.code} {e.reason}{gone}") from None
            except (urllib.error.URLError, OSError) as e:
                raise FetchError(f"{what}: {e}") from None
            suffix = ".deb"
        elif "apt" in spec:
            what = f"{where}: apt-get download {spec['apt']}"
            _run(
                ["apt-get", "download", "-q", spec["apt"]],
                what + " (is this version still in Debian's archive?)",
                cwd=tmp,
            )
            suffix = ".deb"
        else:
            what = f"{where}: pip download {spec['pypi']}"
            cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:"]
            _run([*cmd, "-d", tmp, spec["pypi"]], what)
            suffix = ".whl"
        got = sorted(Path(tmp).iterdir())
        if len(got) != 1 or got[0].suffix != suffix:
            raise FetchError(f"{what}: expected one {suffix} file, got {[g.name for g in got]}")
        digest = sha256_of(got[0])
        if digest != want:
            raise FetchError(f"{what}: SHA-256 {digest} of {got[0].name}, expected {want}")
        out = dest / f"{name}{suffix}"
        got[0].replace(out)
        return out


def unpack(pkg: Path, tree: Path) -> None:
    if tree.exists():
        shutil.rmtree(tree)
    tmp = tree.with_name(tree.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    if pkg.suffix == ".deb":
        _run(["dpkg-deb", "-x", str(pkg), str(tmp)], f"unpacking {pkg}")
    else:
        with zipfile.ZipFile(pkg) as z:
            z.extractall(tmp)
    tmp.replace(tree)


def select(tree: Path, include: list[str], max_bytes: int | None) -> list[Path]:
    """Regular files under `tree` matching a glob, in path order, while they fit `max_bytes`."""
    files = sorted(
        p for p in tree.rglob("*") if p.is_file() and not p.is_symlink() and _matches(p.relative_to(tree), include)
    )
    out, total = [], 0
    for p in files:
        size = p.stat().st_size
        if max_bytes is not None and total + size > max_bytes:
            break
        out.append(p)
        total += size
    return out


def _matches(rel: Path, include: list[str]) -> bool:
    s = rel.as_posix()
    return any(fnmatch.fnmatchcase(s, g) for g in include)


def build_flat(name: str, spec: dict[str, Any], pkgs: dict[str, Path], out: Path, manifest: Path) -> dict:
    """A ``flat`` image: the regular files of tarball ``tar`` inside package ``from`` (one), or of the
    package's own file tree when the spec names no ``tar``."""
    where = f"{manifest}: [images.{name}]"
    for key in spec:
        if key not in ("what", "from", "layout", "tar", "sha256"):
            raise FetchError(f"{where}: unknown key `{key}` (expected what, from, layout, tar, sha256)")
    for key in ("what", "from"):
        if key not in spec:
            raise FetchError(f"{where}: a flat image expects `{key}`")
    if len(spec["from"]) != 1 or spec["from"][0] not in pkgs:
        raise FetchError(f"{where}: `from` must name one package of {sorted(pkgs)}, got {spec['from']}")
    deb = pkgs[spec["from"][0]]
    img, tmp = out / f"{name}.img", out / f"{name}.img.tmp"
    listing, tmp_listing = out / f"{name}.files", out / f"{name}.files.tmp"
    digest, zero, zeros, blocks, files, data = hashlib.sha256(), bytes(BLOCK), 0, 0, 0, 0
    p = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)
    found = False
    assert p.stdout is not None

    def lay_out(tar: tarfile.TarFile, o: Any, ls: Any) -> None:
        nonlocal zeros, blocks, files, data
        for im in tar:
            if not im.isreg():
                continue
            f = tar.extractfile(im)
            assert f is not None
            b = f.read()
            b += bytes(-len(b) % BLOCK)
            n = len(b) // BLOCK
            zeros += sum(b[i : i + BLOCK] == zero for i in range(0, len(b), BLOCK))
            o.write(b)
            digest.update(b)
            ls.write(f"{n}\t{im.name}\n")
            blocks, files, data = blocks + n, files + 1, data + im.size

    try:
        with tarfile.open(fileobj=p.stdout, mode="r|") as outer, tmp.open("wb") as o, tmp_listing.open("w") as ls:
            if "tar" not in spec:
                found = True
                lay_out(outer, o, ls)
            for m in outer if "tar" in spec else []:
                if m.name.lstrip("./") != spec["tar"]:
                    continue
                found = True
                inner_f = outer.extractfile(m)
                assert inner_f is not None
                with tarfile.open(fileobj=inner_f, mode="r|*") as inner:
                    lay_out(inner, o, ls)
                break
        # The rest of the package (dpkg-deb blocks writing it until it is read).
        while p.stdout.read(1 << 20):
            pass
        if p.wait() != 0:
            raise FetchError(f"{where}: `dpkg-deb --fsys-tarfile {deb}` exited {p.returncode}")
        if not found:
            raise FetchError(f"{where}: {deb.name} has no file {spec['tar']!r}")
    except BaseException:
        p.kill()
        p.wait()
        tmp.unlink(missing_ok=True)
        tmp_listing.unlink(missing_ok=True)
        raise
    got = digest.hexdigest()
    if "sha256" in spec and got != spec["sha256"]:
        tmp.unlink(missing_ok=True)
        tmp_listing.unlink(missing_ok=True)
        raise FetchError(f"{where}: the image's SHA-256 is {got}, expected {spec['sha256']} (the package matched)")
    tmp.replace(img)
    tmp_listing.replace(listing)
    return {
        "file": img.name,
        "listing": listing.name,
        "sha256": got,
        "bytes": blocks * BLOCK,
        "blocks": blocks,
        "zero_blocks": zeros,
        "files": files,
        "data_bytes": data,
        "what": spec["what"],
    }


def build_image(name: str, spec: dict[str, Any], pkgs: dict[str, Path], trees: Path, out: Path, manifest: Path) -> dict:
    where = f"{manifest}: [images.{name}]"
    if spec.get("layout", "ext4") == "flat":
        return build_flat(name, spec, pkgs, out, manifest)
    if spec.get("layout", "ext4") != "ext4":
        raise FetchError(f'{where}: `layout` must be "ext4" or "flat", got {spec["layout"]!r}')
    for key in spec:
        if key not in ("what", "from", "include", "raw", "max_bytes", "sha256", "layout"):
            raise FetchError(
                f"{where}: unknown key `{key}` (expected what, from, include, raw, max_bytes, sha256, layout)"
            )
    if "what" not in spec:
        raise FetchError(f"{where}: expected `what`")
    for p in [*spec.get("from", []), *spec.get("raw", [])]:
        if p not in pkgs:
            raise FetchError(f"{where}: unknown package `{p}` (expected one of {sorted(pkgs)})")
    if spec.get("from") and not spec.get("include"):
        raise FetchError(f"{where}: `from` needs `include` globs")
    stage = out / f"{name}.stage"
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir()
    budget = spec.get("max_bytes")
    copied = []
    for p in spec.get("from", []):
        left = None if budget is None else budget - sum(f.stat().st_size for f in copied)
        for f in select(trees / p, spec["include"], left):
            dst = stage / p / f.relative_to(trees / p)
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, dst)
            copied.append(dst)
    for p in spec.get("raw", []):
        dst = stage / "raw" / pkgs[p].name
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(pkgs[p], dst)
        copied.append(dst)
    if not copied:
        raise FetchError(f"{where}: no file matched")
    # Owner, mode and times do not depend on who builds: mode 0644 files and 0755 folders
    # here (umask aside), owner root and ctime/atime set by debugfs below.
    for d, dirs, files in os.walk(stage):
        for x in dirs:
            os.chmod(Path(d) / x, 0o755)
        for x in files:
            os.chmod(Path(d) / x, 0o644)
        for x in [*dirs, *files]:
            os.utime(Path(d) / x, (EPOCH, EPOCH))
    os.chmod(stage, 0o755)
    os.utime(stage, (EPOCH, EPOCH))
    sizes = [f.stat().st_size for f in copied]
    data_blocks = sum(math.ceil(s / BLOCK) for s in sizes)
    inodes = sum(1 + len(files) for _, _, files in os.walk(stage))
    img = out / f"{name}.img"
    tmp = out / f"{name}.img.tmp"
    env = {**os.environ, "E2FSPROGS_FAKE_TIME": str(EPOCH), "MKE2FS_CONFIG": str(MKE2FS_CONFIG)}
    for grow in (1.0, 1.25, 1.5, 2.0):
        blocks = math.ceil(data_blocks * (1 + SLACK) * grow) + 256
        tmp.unlink(missing_ok=True)
        cmd = ["mke2fs", "-q", "-F", "-t", "ext4", "-b", str(BLOCK), "-m", "0", "-U", UUID, "-O", "^has_journal"]
        cmd += ["-N", str(2 * inodes + 64)]
        cmd += ["-E", f"root_owner=0:0,hash_seed={HASH_SEED},lazy_itable_init=0,nodiscard"]
        p = subprocess.run([*cmd, "-d", str(stage), str(tmp), str(blocks)], capture_output=True, text=True, env=env)
        if p.returncode == 0:
            break
    else:
        raise FetchError(f"{where}: mke2fs failed: {p.stderr.strip()}")
    # mke2fs copies each file's owner, ctime and atime; the owner is the builder's and the
    # ctimes are now, so debugfs sets them in the image.
    paths = ["/", "/lost+found"]
    for d, dirs, files in os.walk(stage):
        paths += ["/" + (Path(d) / x).relative_to(stage).as_posix() for x in [*dirs, *files]]
    cmds = "".join(
        f'sif "{q}" ctime @{EPOCH}\nsif "{q}" atime @{EPOCH}\nsif "{q}" uid 0\nsif "{q}" gid 0\n' for q in paths
    )
    p = subprocess.run(["debugfs", "-w", "-f", "-", str(tmp)], input=cmds, capture_output=True, text=True, env=env)
    if p.returncode != 0 or "sif:" in p.stderr:
        raise FetchError(f"{where}: debugfs failed: {p.stderr.strip()[:2000]}")
    shutil.rmtree(stage)
    raw = tmp.read_bytes()
    zero = bytes(BLOCK)
    zeros = sum(raw[i : i + BLOCK] == zero for i in range(0, len(raw), BLOCK))
    digest = hashlib.sha256(raw).hexdigest()
    if "sha256" in spec and digest != spec["sha256"]:
        version = subprocess.run(["mke2fs", "-V"], capture_output=True, text=True).stderr.splitlines()[0]
        raise FetchError(
            f"{where}: the image's SHA-256 is {digest}, expected {spec['sha256']}; the packages matched, so "
            f"this mke2fs ({version}) lays out files differently from e2fsprogs 1.47.0, which the hash was taken with "
            "(owner, modes, times and mke2fs.conf are fixed by fetch.py)"
        )
    tmp.replace(img)
    return {
        "file": img.name,
        "sha256": digest,
        "bytes": len(raw),
        "blocks": len(raw) // BLOCK,
        "zero_blocks": zeros,
        "files": len(copied),
        "data_bytes": sum(sizes),
        "what": spec["what"],
    }


FILE_KEYS = ("what", "from", "path", "sha256")


def _inner(path: str) -> str:
    """A path inside a package as the manifest and the listings compare it (no leading ``./`` or ``/``)."""
    return path.removeprefix("./").lstrip("/")


def check_file(name: str, spec: dict[str, Any], packages: Any, manifest: Path) -> tuple[str, str, str]:
    """(package, path inside it, output file name) of ``[files.NAME]``, or FetchError naming what is wrong."""
    where = f"{manifest}: [files.{name}]"
    unknown = [k for k in spec if k not in FILE_KEYS]
    if unknown:
        keys, s = ", ".join(f"`{k}`" for k in unknown), "s" if len(unknown) > 1 else ""
        raise FetchError(f"{where}: unknown key{s} {keys} (expected {', '.join(FILE_KEYS)})")
    for key in FILE_KEYS:
        if key not in spec:
            raise FetchError(f"{where}: expected `{key}`")
    if not name or "/" in name or name.startswith("."):
        raise FetchError(f"{where}: the name must be a plain file name (no `/`, not starting with `.`)")
    pkg = spec["from"]
    if not isinstance(pkg, str) or pkg not in packages:
        raise FetchError(f"{where}: `from` must name one package of {sorted(packages)}, got {pkg!r}")
    if not isinstance(spec["path"], str) or not _inner(spec["path"]) or spec["path"].endswith("/"):
        raise FetchError(f"{where}: `path` must be the path of a file inside package `{pkg}`, got {spec['path']!r}")
    sha = spec["sha256"]
    if not isinstance(sha, str) or len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
        raise FetchError(f"{where}: `sha256` must be 64 lower-case hex digits, got {sha!r}")
    path = _inner(spec["path"])
    return pkg, path, name + Path(path).suffix


def _near(path: str, names: list[str]) -> str:
    """The package's files most like `path`: the same file name elsewhere, then close spellings."""
    base = Path(path).name
    near = [n for n in names if Path(n).name == base]
    near += [n for n in difflib.get_close_matches(path, names, n=5, cutoff=0.6) if n not in near]
    if not near:
        near = [n for n in difflib.get_close_matches(base, [Path(n).name for n in names], n=5, cutoff=0.6)]
        near = [n for n in names if Path(n).name in near]
    return "; near matches: " + ", ".join(near[:8]) if near else "; it has no file of a similar name"


def _copy_checked(src: Any, spec: dict[str, Any], dst: Path, where: str, pkg: Path) -> dict[str, Any]:
    """Copy the open file `src` to `dst` through a temporary file, checked against ``spec["sha256"]``."""
    tmp = dst.with_name(dst.name + ".tmp")
    h, n = hashlib.sha256(), 0
    try:
        with tmp.open("wb") as o:
            while chunk := src.read(1 << 20):
                h.update(chunk)
                o.write(chunk)
                n += len(chunk)
        if h.hexdigest() != spec["sha256"]:
            raise FetchError(
                f"{where}: SHA-256 {h.hexdigest()} of {_inner(spec['path'])} in {pkg.name}, expected {spec['sha256']} "
                "(the package matched, so the manifest's hash is wrong)"
            )
        os.chmod(tmp, 0o644)
        tmp.replace(dst)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return _file_entry(dst, spec, h.hexdigest(), n)


def _file_entry(dst: Path, spec: dict[str, Any], digest: str, size: int) -> dict[str, Any]:
    return {"file": dst.name, "sha256": digest, "bytes": size, "what": spec["what"], "kind": "file"}


def extract_files(
    specs: dict[str, dict[str, Any]], pkgs: dict[str, Path], out: Path, manifest: Path
) -> dict[str, dict[str, Any]]:
    """Each ``[files.NAME]``: one file of a package, written to ``out/NAME<suffix>`` when its SHA-256
    matches (kept if already there and intact). One pass over each package's contents."""
    done: dict[str, dict[str, Any]] = {}
    todo: dict[str, dict[str, list[tuple[str, Path]]]] = {}  # package -> path inside it -> (NAME, output)
    for name, spec in specs.items():
        pkg, path, fname = check_file(name, spec, pkgs, manifest)
        dst = out / fname
        if dst.is_file() and sha256_of(dst) == spec["sha256"]:
            done[name] = _file_entry(dst, spec, spec["sha256"], dst.stat().st_size)
        else:
            todo.setdefault(pkg, {}).setdefault(path, []).append((name, dst))
    for pkg, wanted in todo.items():
        done.update(_extract_from(pkg, pkgs[pkg], wanted, specs, manifest))
    return {n: done[n] for n in specs}


def _extract_from(
    pkg: str, deb: Path, wanted: dict[str, list[tuple[str, Path]]], specs: dict[str, dict[str, Any]], manifest: Path
) -> dict[str, dict[str, Any]]:
    """The files `wanted` (path inside -> [files.NAME] and output) of package file `deb` (.deb or .whl)."""
    done: dict[str, dict[str, Any]] = {}
    names: list[str] = []  # every file of the package, for the near matches of a missing one

    def take(path: str, f: Any) -> None:
        first = None
        for n, dst in wanted.pop(path):  # two [files.NAME] of one path: the second copies the first
            where = f"{manifest}: [files.{n}]"
            if first is None:
                done[n], first = _copy_checked(f, specs[n], dst, where, deb), dst
            else:
                with first.open("rb") as again:
                    done[n] = _copy_checked(again, specs[n], dst, where, deb)

    if deb.suffix == ".whl":
        with zipfile.ZipFile(deb) as z:
            names = [i.filename for i in z.infolist() if not i.is_dir()]
            for path in [p for p in wanted if p in names]:
                with z.open(path) as f:
                    take(path, f)
    else:
        p = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)
        assert p.stdout is not None
        try:
            with tarfile.open(fileobj=p.stdout, mode="r|") as t:
                for m in t:
                    path = _inner(m.name)
                    if not m.isdir():
                        names.append(path)
                    if path not in wanted:
                        continue
                    if not m.isreg():
                        kind = f"a link to {m.linkname!r}" if m.issym() or m.islnk() else "not a regular file"
                        n = wanted[path][0][0]
                        raise FetchError(f"{manifest}: [files.{n}]: {path} in {deb.name} is {kind}; name that file")
                    f = t.extractfile(m)
                    assert f is not None
                    take(path, f)
            while p.stdout.read(1 << 20):  # the rest, so that dpkg-deb can exit
                pass
            if p.wait() != 0:
                raise FetchError(f"{manifest}: `dpkg-deb --fsys-tarfile {deb}` exited {p.returncode}")
        except BaseException:
            p.kill()
            p.wait()
            raise
    for path, ns in wanted.items():
        raise FetchError(
            f"{manifest}: [files.{ns[0][0]}]: package `{pkg}` ({deb.name}) has no file {path!r}{_near(path, names)}"
        )
    return done


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--manifest", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True, help="folder for the images, the files and images.json")
    a = ap.parse_args(argv)
    try:
        with a.manifest.open("rb") as f:
            m = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        print(f"fetch.py: {a.manifest}: {e}", file=sys.stderr)
        return 1
    out = a.out
    (out / "packages").mkdir(parents=True, exist_ok=True)
    (out / "trees").mkdir(exist_ok=True)
    (out / "images.json").unlink(missing_ok=True)
    try:
        files = m.get("files", {})
        for n, s in files.items():  # manifest mistakes before any download
            check_file(n, s, m.get("packages", {}), a.manifest)
            if n in m.get("images", {}):
                raise FetchError(f"{a.manifest}: [files.{n}] and [images.{n}]: one name for two entries of images.json")
        pkgs = {n: download(n, s, out / "packages", a.manifest) for n, s in m.get("packages", {}).items()}
        # Only packages whose files go into an ext4 image are unpacked (flat images stream).
        wanted = {
            p for s in m.get("images", {}).values() if s.get("layout", "ext4") == "ext4" for p in s.get("from", [])
        }
        for n, f in pkgs.items():
            if n in wanted:
                unpack(f, out / "trees" / n)
        images = {n: build_image(n, s, pkgs, out / "trees", out, a.manifest) for n, s in m.get("images", {}).items()}
        images.update(extract_files(files, pkgs, out, a.manifest))
    except FetchError as e:
        print(f"fetch.py: {e}", file=sys.stderr)
        return 1
    except FileNotFoundError as e:
        if e.filename in ("apt-get", "dpkg-deb", "mke2fs", "debugfs"):
            print(
                f"fetch.py: `{e.filename}` is not installed (apt-get/dpkg-deb: apt; mke2fs/debugfs: e2fsprogs)",
                file=sys.stderr,
            )
            return 1
        raise
    shutil.rmtree(out / "trees")
    tmp = out / "images.json.tmp"
    tmp.write_text(json.dumps(images, indent=2, sort_keys=True) + "\n")
    tmp.replace(out / "images.json")
    for n, i in images.items():
        if i.get("kind") == "file":
            print(f"{n}: {i['file']}, {i['bytes']} bytes")
        else:
            print(f"{n}: {i['blocks']} blocks, {i['zero_blocks'] / i['blocks']:.1%} all-zero, {i['files']} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
