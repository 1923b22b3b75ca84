"""fio's own examples folder (the 86 job files of Debian's fio-examples 3.33, fetched by
`make testdata`) through flashpress: every job runs to its end
or is refused with a message naming what it cannot honour; and the table in the docs is what
the survey script produces now. The survey runs 86 simulations on a 256 GiB device, some laying
out 100-256 GiB of files first (about 85 s on a shared two-core machine): slow tests."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

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
    # A zbd job that verifies runs on the zoned device, which checks what it reads back.
    assert by_file["uring-cmd-zoned.fio"]["outcome"] == "runs"
    # The read-only zbd examples read the zones of a device preconditioned full.
    for f in ["zbd-seq-read.fio", "libzbc-seq-read.fio"]:
        assert by_file[f]["outcome"] == "runs", by_file[f]


def test_the_docs_table_is_current(rows: list[dict[str, object]]) -> None:
    want = _survey().markdown(rows)
    assert TABLE.read_text() == want, (
        "docs/fio-examples.md is stale: run `python scripts/fio_examples.py --markdown docs/fio-examples.md`"
    )


def test_examples_too_large_for_the_default_device_are_refused_in_one_line_naming_the_size(
    rows: list[dict[str, object]],
) -> None:
    import flashpress
    from flashpress.errors import FlashpressError

    examples = _survey().DEFAULT_EXAMPLES
    refused = []
    for r in rows:
        if r["outcome"] != "runs":
            continue
        path = examples / str(r["file"])
        if _survey().zoned(path):
            continue  # zbd jobs run on the zoned device, not the default one
        cfg = flashpress.Config.preset("default").with_overrides(
            {
                "workload": {"type": "fio", "path": str(path), "global": {"runtime": "20ms"}},
                "precondition.fill_fraction": 0.0,
                "precondition.aging_fraction": 0.0,
            },
            source_name="test",
        )
        try:
            flashpress.simulate(cfg, progress=False)
        except FlashpressError as e:
            msg = str(e)
            assert "\n" not in msg, msg
            # The size the jobs need, and the device's, both in bytes.
            m = re.search(r"need (\d+) bytes .*more than the device's (\d+) logical bytes", msg)
            assert m, msg
            assert int(m.group(1)) > int(m.group(2)), msg
            refused.append(r["file"])
    # The default device has 15.98 GB of logical space; these examples lay out 20-256 GiB of files.
    assert sorted(refused) == [
        "cpp_null.fio",
        "enospc-pressure.fio",
        "flow.fio",
        "ime.fio",
        "libpmem.fio",
        "null.fio",
    ]
