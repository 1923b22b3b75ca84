"""Run every job file of fio's own examples folder through flashpress and tabulate the outcome.

The examples are those of Debian's fio-examples package (fio 3.33, 86 job files), which
``make testdata`` fetches into ``$FLASHPRESS_TESTDATA/fio-examples``; ``--examples DIR`` surveys
another folder (a newer fio's, say).

Usage: ``python scripts/fio_examples.py [--examples DIR] [--markdown OUT] [--runtime 20ms]``

Each file runs as written on the ``default`` preset grown to 256 GiB of logical space
(``nand.blocks_per_plane = 17664``: 276 GiB of flash, 7% of it over-provisioning; some examples
lay out 100-256 GiB of files) and not preconditioned (the survey asks whether a job runs, not
how fast; a file a job reads is laid out first, untimed, as fio lays it out); a file with
``zonemode=zbd`` runs instead on the ``zns`` preset reshaped to the 256 MiB zones those examples
ask for (``ZONED``: 576 zones, 144 GiB, no open-zone limit), and a zbd file whose jobs only read
(``zbd-seq-read.fio``, ``libzbc-seq-read.fio``: fio reads only below the write pointers) on that
device preconditioned full (``FILLED``: every zone written to its capacity, as a drive a host
has written; see ``config_for``). One addition to every file: a
runtime cap
(``workload.global.runtime``, default 20 ms of simulated time) so the survey takes minutes
instead of the hours of device time the examples ask for. A job that parses, resolves and runs
to its end counts as ``runs`` (with the commands the device failed, an sg VERIFY that
miscompared, and their jobs); a refusal is ``refused`` with flashpress's message (which names
every option it cannot honour, each with its line).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import flashpress
from flashpress.errors import FlashpressError
from flashpress.reproduce import testdata

#: The default preset's planes grown to 17664 blocks: 276 GiB of flash, of which 93% (256.7 GiB)
#: is the host's logical space, so that the examples sized for a 256 GiB device fit.
BLOCKS_PER_PLANE = 17664

#: Where `make testdata` puts the job files of Debian's fio-examples.
DEFAULT_EXAMPLES = testdata.root() / "fio-examples"


#: The zoned device for ``zonemode=zbd`` files: the ``zns`` preset's flash with a zone on one
#: chip (4 planes x 8 blocks x 1077 pages of 4 KiB: 134.6 MiB of capacity in a 256 MiB zone,
#: the zone size fio's zbd examples name) and 576 zones, enough for ``zbd-seq-read.fio``'s
#: zones 524 to 563; no open or active zone limit (``zbd-rand-write.fio`` keeps 32 open).
ZONED: dict[str, object] = {
    "zns.channels_per_zone": 1,
    "zns.chips_per_zone": 1,
    "zns.blocks_per_plane": 8,
    "nand.blocks_per_plane": 144,
    "zns.max_open_zones": 0,
    "zns.max_active_zones": 0,
}


#: A read-only zbd file's device: every zone full (``precondition.fill_fraction = 1``, zone by
#: zone), so its reads find data wherever its region is (zbd-seq-read.fio reads zones 524-563).
FILLED: dict[str, object] = {"precondition.fill_fraction": 1.0, "precondition.aging_fraction": 0.0}

#: fio's ``rw`` values that only read.
READS = {"read", "randread"}


def only_reads(path: Path) -> bool:
    """Whether every ``rw`` (or ``readwrite``) a job file sets only reads (fio's default, ``read``, too)."""
    modes = [
        line.split("=", 1)[1].strip().split(":")[0]
        for line in path.read_text(errors="replace").splitlines()
        if line.strip().split("=", 1)[0].strip() in ("rw", "readwrite") and "=" in line
    ]
    return all(m in READS for m in modes)


def config_for(path: Path, workload: dict[str, object]) -> flashpress.Config:
    """The device a job file runs on: the grown ``default`` preset; a zbd file on ``ZONED``,
    preconditioned full (``FILLED``) when its jobs only read."""
    if zoned(path):
        extra = FILLED if only_reads(path) else {}
        return flashpress.Config.preset("zns").with_overrides(
            {**workload, **ZONED, **extra}, source_name="fio_examples.py"
        )
    return flashpress.Config.preset("default").with_overrides(
        {
            **workload,
            "nand.blocks_per_plane": BLOCKS_PER_PLANE,
            "precondition.fill_fraction": 0.0,
            "precondition.aging_fraction": 0.0,
        },
        source_name="fio_examples.py",
    )


def zoned(path: Path) -> bool:
    """Whether a job file asks for ``zonemode=zbd`` (a zoned device)."""
    return any(
        line.split("=", 1)[1].strip() == "zbd"
        for line in path.read_text(errors="replace").splitlines()
        if line.strip().startswith("zonemode") and "=" in line
    )


def survey_one(path: Path, runtime: str) -> dict[str, object]:
    workload: dict[str, object] = {"workload": {"type": "fio", "path": str(path), "global": {"runtime": runtime}}}
    cfg = config_for(path, workload)
    t0 = time.perf_counter()
    try:
        result = flashpress.simulate(cfg, progress=False)
    except FlashpressError as e:
        # Paths relative to the examples folder, so the table reads the same on any machine.
        message = str(e).replace(str(path.parent) + "/", "")
        return {"file": path.name, "outcome": "refused", "message": message, "seconds": time.perf_counter() - t0}
    s = result.summary
    return {
        "file": path.name,
        "outcome": "runs",
        "requests": s["requests_completed"],
        "issued": s["requests_issued"],
        "failed": s["requests_failed"],
        "notes": s.get("workload_notes", []),
        "seconds": time.perf_counter() - t0,
    }


def markdown(rows: list[dict[str, object]]) -> str:
    runs = sum(r["outcome"] == "runs" for r in rows)
    out = [
        "<!-- written by scripts/fio_examples.py; tests/python/test_fio_examples.py checks it is current -->",
        "",
        "The job files of fio's own examples folder, as Debian's fio-examples 3.33 ships them "
        "(`make testdata` fetches them), each run as written with a 20 ms runtime cap on the `default` "
        "preset grown to 256 GiB of logical space (`nand.blocks_per_plane = 17664`), not preconditioned; "
        "files with `zonemode=zbd` run on a zoned device (the `zns` preset with 256 MiB zones, "
        "`ZONED` in the script), preconditioned full (`precondition.fill_fraction = 1`, every zone "
        "written to its capacity: `FILLED`) when their jobs only read, as fio reads only below the "
        "write pointers.",
        "",
        f"{runs} of {len(rows)} run as written; {len(rows) - runs} are refused.",
        "",
        "| file | outcome | requests completed / why refused | options ignored |",
        "|---|---|---|---|",
    ]
    for r in rows:
        if r["outcome"] == "runs":
            what = f"{r['requests']:,}"
            notes = [str(n) for n in r.get("notes", [])]  # type: ignore[attr-defined]
            if r.get("failed"):
                # Commands the device failed (an sg VERIFY that miscompared), by job.
                jobs = sorted({n.split("`")[1] for n in notes if "miscompares" in n})
                what += f" ({r['failed']} failed: {', '.join(jobs)})"
            ignored = ", ".join(n.split("`")[1] for n in notes if n.startswith("fio option"))
        else:
            what = str(r["message"]).replace("\n", "<br>").replace("|", "\\|")
            ignored = ""
        out.append(f"| {r['file']} | {r['outcome']} | {what} | {ignored} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=Path, default=DEFAULT_EXAMPLES)
    ap.add_argument("--runtime", default="20ms", help="runtime cap per job (simulated time)")
    ap.add_argument("--markdown", type=Path, help="write the table here")
    ap.add_argument("--json", type=Path, help="write every row as JSON here")
    ap.add_argument("files", nargs="*", help="only these files (names in the examples folder)")
    args = ap.parse_args(argv)
    paths = sorted(args.examples.glob("*.fio"))
    if not paths:
        print(
            f"fio_examples.py: no *.fio in {args.examples}: run `make testdata` or pass --examples DIR", file=sys.stderr
        )
        return 1
    if args.files:
        paths = [p for p in paths if p.name in args.files]
    rows = []
    for p in paths:
        r = survey_one(p, args.runtime)
        rows.append(r)
        print(f"{r['outcome']:8} {p.name:40} {r.get('requests', '')}", file=sys.stderr)
    text = markdown(rows)
    if args.markdown:
        args.markdown.write_text(text)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, default=str))
    print(text.splitlines()[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
