#!/usr/bin/env python3
"""Fetch and unpack headless Chromium for the HTML report's test (``make chromium``).

The packages of ``testdata/chromium.toml`` are downloaded by ``fetch.py``'s ``download`` (from
Debian's pool by URL, each checked by SHA-256; kept in ``OUT/packages`` and reused while intact)
and unpacked with ``dpkg-deb -x`` into ``OUT/root``: no root, nothing installed. ``ldd`` then
checks that every shared library the browser needs is found (on the machine or in the unpacked
packages) and ``--version`` that it starts. ``OUT/chromium`` is a shell script that runs the
browser with the unpacked libraries on ``LD_LIBRARY_PATH``; ``OUT/chromium.json`` (written last,
so its presence means the rest is complete) gives its version.

Standard library only (it runs before the project's virtualenv exists); it needs dpkg-deb and
ldd, which every Debian machine has.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

from fetch import FetchError, _run, download

WRAPPER = """#!/bin/sh
# Written by testdata/chromium.py: Debian's Chromium unpacked beside this script, run with the
# unpacked libraries first on the library path.
here=$(dirname "$(readlink -f "$0")")
LD_LIBRARY_PATH="{libs}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}"
export LD_LIBRARY_PATH
exec "$here/root/{binary}" "$@"
"""


def settings(m: dict[str, Any], manifest: Path) -> tuple[str, list[str]]:
    """The manifest's ``binary`` and ``library_path``, or FetchError naming what is wrong."""
    unknown = sorted(set(m) - {"binary", "library_path", "packages"})
    if unknown:
        raise FetchError(f"{manifest}: unknown key `{unknown[0]}` (expected binary, library_path, packages)")
    binary, libs = m.get("binary"), m.get("library_path")
    if not isinstance(binary, str) or not binary or binary.startswith("/"):
        raise FetchError(f"{manifest}: `binary` must be a path inside the packages, got {binary!r}")
    if not isinstance(libs, list) or not all(isinstance(x, str) and x and not x.startswith("/") for x in libs):
        raise FetchError(f"{manifest}: `library_path` must be a list of folders inside the packages, got {libs!r}")
    if not m.get("packages"):
        raise FetchError(f"{manifest}: expected [packages.NAME] entries")
    return binary, libs


def missing_libraries(binary: Path, env: dict[str, str]) -> list[str]:
    """The shared libraries ``ldd`` reports as not found for ``binary``."""
    p = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise FetchError(f"`ldd {binary}` exited {p.returncode}: {p.stderr.strip() or p.stdout.strip()}")
    return sorted({line.split()[0] for line in p.stdout.splitlines() if "not found" in line})


def build(manifest: Path, out: Path) -> dict[str, Any]:
    with manifest.open("rb") as f:
        m = tomllib.load(f)
    binary, libs = settings(m, manifest)
    (out / "packages").mkdir(parents=True, exist_ok=True)
    (out / "chromium.json").unlink(missing_ok=True)
    debs = {n: download(n, s, out / "packages", manifest) for n, s in m["packages"].items()}
    root, tmp = out / "root", out / "root.tmp"
    for d in (root, tmp):
        if d.exists():
            shutil.rmtree(d)
    tmp.mkdir()
    for deb in debs.values():
        _run(["dpkg-deb", "-x", str(deb), str(tmp)], f"unpacking {deb}")
    tmp.replace(root)
    exe = root / binary
    if not exe.is_file():
        raise FetchError(f"{manifest}: `binary` {binary} is not in the unpacked packages")
    env = {**os.environ, "LD_LIBRARY_PATH": ":".join(str(root / x) for x in libs)}
    missing = missing_libraries(exe, env)
    if missing:
        raise FetchError(
            f"{exe} needs {', '.join(missing)}, found neither on this machine nor in {manifest}'s packages; "
            "add the Debian packages that hold them (`apt-file search LIBRARY`, or "
            "`apt-get install --simulate chromium` lists what this machine lacks)"
        )
    wrapper = out / "chromium"
    wrapper.write_text(WRAPPER.format(libs=":".join(f"$here/root/{x}" for x in libs), binary=binary))
    wrapper.chmod(0o755)
    p = subprocess.run([str(wrapper), "--version"], capture_output=True, text=True, timeout=60)
    if p.returncode != 0 or not p.stdout.startswith("Chromium "):
        raise FetchError(f"`{wrapper} --version` exited {p.returncode}: {(p.stderr or p.stdout).strip()[:2000]}")
    return {"version": p.stdout.strip(), "packages": sorted(debs)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--manifest", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True, help="folder for the packages, the browser and chromium.json")
    a = ap.parse_args(argv)
    try:
        info = build(a.manifest, a.out)
    except (FetchError, OSError, tomllib.TOMLDecodeError) as e:
        if isinstance(e, FileNotFoundError) and e.filename in ("dpkg-deb", "ldd", "apt-get"):
            print(f"chromium.py: `{e.filename}` is not installed", file=sys.stderr)
        else:
            print(f"chromium.py: {e}", file=sys.stderr)
        return 1
    tmp = a.out / "chromium.json.tmp"
    tmp.write_text(json.dumps(info, indent=2, sort_keys=True) + "\n")
    tmp.replace(a.out / "chromium.json")
    print(f"{info['version']}: {a.out / 'chromium'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
