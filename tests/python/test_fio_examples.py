"""fio's own examples folder (the 86 job files of Debian's fio-examples 3.33, fetched by
`make testdata`) through flashpress: every job runs to its end
or is refused with a message naming what it cannot honour; and the table in the docs is what
the survey script produces now."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "docs" / "fio-examples.md"


def _survey():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("fio_examples", ROOT / "scripts" / "fio_examples.py")
    assert spec is not None
    assert spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def rows() -> list[dict[str, object]]:
    mod = _survey()
    examples = mod.DEFAULT_EXAMPLES
    if not examples.is_dir():
        pytest.fail(f"{examples} is missing: run `make testdata` (fio's examples from Debian's fio-examples)")
    return [mod.survey_one(p, "20ms") for p in sorted(examples.glob("*.fio"))]


def test_all_86_examples_run_or_are_refused_with_reasons(rows: list[dict[str, object]]) -> None:
    assert len(rows) == 86
    for r in rows:
        if r["outcome"] == "runs":
            # Every request issued completed; none lost.
            assert r["requests"] == r["issued"], r
            assert int(r["requests"]) > 0, r  # type: ignore[call-overload]
        else:
            msg = str(r["message"])
            # Refusals name the file and line (or key) of each problem...
            assert re.search(r"\.fio:\d+: ", msg), msg
            # ...and none is an option flashpress merely forgot: fio has every option it names.
            assert "unknown fio option" not in msg, msg
    # The engines that move no data are refused by name (ftruncate ran as 8,544 writes once).
    by_file = {r["file"]: r for r in rows}
    for f in ["ftruncate.fio", "falloc.fio", "filecreate-ioengine.fio", "cpuio.fio", "exec.fio", "netio.fio"]:
        assert by_file[f]["outcome"] == "refused"
        assert "ioengine" in str(by_file[f]["message"])


def test_the_docs_table_is_current(rows: list[dict[str, object]]) -> None:
    want = _survey().markdown(rows)
    assert TABLE.read_text() == want, (
        "docs/fio-examples.md is stale: run `python scripts/fio_examples.py --markdown docs/fio-examples.md`"
    )
