"""Where the real data of the reproductions is: the folder ``make testdata`` fills
(``$FLASHPRESS_TESTDATA``, else ``target/testdata`` of the source tree this package runs from).

Each data set has an ``images.json`` written last by ``testdata/fetch.py``; an image named
there but missing, or of another size, is an error that names the command that builds it:
``make testdata`` for the data of the default tests, ``make testdata-full`` for the large data
(the CAGC reproduction's six Linux source releases).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from flashpress.errors import FileReadError

_SOURCE_TREE = Path(__file__).resolve().parents[3]
#: The make target that builds each data set not built by ``make testdata``.
_TARGETS = {"cagc": "testdata-full"}


def make_command(dataset: str) -> str:
    """The command that fetches and builds ``dataset``."""
    return f"make {_TARGETS.get(dataset, 'testdata')}"


def _missing(msg: str, path: Path) -> FileReadError:
    e = FileReadError(msg)
    e.path = str(path)
    return e


def root() -> Path:
    """The test-data folder."""
    env = os.environ.get("FLASHPRESS_TESTDATA")
    return Path(env) if env else _SOURCE_TREE / "target" / "testdata"


def images(dataset: str) -> dict[str, dict[str, Any]]:
    """``images.json`` of ``dataset`` (e.g. ``prssd``): image name -> what fetch.py recorded."""
    index = root() / dataset / "images.json"
    try:
        doc = json.loads(index.read_text())
    except FileNotFoundError:
        raise _missing(
            f"{index} is missing: the {dataset} workloads need real data; run `{make_command(dataset)}` "
            "in flashpress's source tree (or point FLASHPRESS_TESTDATA at a folder it filled)",
            index,
        ) from None
    except json.JSONDecodeError as e:
        raise _missing(f"{index}: not JSON ({e}); rerun `{make_command(dataset)}`", index) from None
    if not isinstance(doc, dict):
        raise _missing(f"{index}: expected a JSON object of images; rerun `{make_command(dataset)}`", index)
    return doc


def image(dataset: str, name: str) -> Path:
    """The path of image ``name`` of ``dataset``, checked against ``images.json``."""
    doc = images(dataset)
    index = root() / dataset / "images.json"
    if name not in doc:
        raise _missing(f"{index} has no image {name!r} (it has {sorted(doc)}); rerun `{make_command(dataset)}`", index)
    path: Path = root() / dataset / str(doc[name]["file"])
    size = path.stat().st_size if path.exists() else None
    if size != doc[name]["bytes"]:
        raise _missing(
            f"{path}: expected {doc[name]['bytes']} bytes as {index} records, found "
            f"{'no file' if size is None else size}; rerun `{make_command(dataset)}`",
            path,
        )
    return path
