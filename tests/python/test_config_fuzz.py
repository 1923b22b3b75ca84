"""Config fuzzing through the real front door (issue 15): a seeded table of mutations (wrong
type, sign, zero, huge, tiny, NaN, infinities, unknown key) of every numeric and enum leaf of
the ``default`` and ``waltz`` presets. Every case must end in a valid config or a
``ConfigError`` naming the mutated key (or a documented cross-field key), never another
exception. The slow variant also runs each accepted case (a tiny workload) in a worker
process under a 6 GB address-space limit and a time bound: none may abort, hang or run out
of memory.
"""

from __future__ import annotations

import copy
import json
import math
import os
import random
import re
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

import flashpress
from flashpress.errors import ConfigError, FlashpressError

SEED = 15
PRESETS = ("default", "waltz")

# An array too large for a feature's 32-bit tables (2^32 - 1 units or pages), or for the page
# map's widest entries (2^40 - 1 units), is refused by the feature's key or by the unit's.
WIDTH = {"stack", "ftl.compression", "ftl.map_cache", "ftl.dedup", "fdp", "zns", "ftl.mapping_unit"}

# Mutating the key on the left may be refused by a check between values, which names the
# key on the right (one of the pair is wrong; the check names the one it compares against).
CROSS: dict[str, set[str]] = {
    "nand.channels": {"nand", "ftl.op_ratio", "ftl.gc.threshold", "stack.fs.partition_bytes"} | WIDTH,
    "nand.chips_per_channel": {"nand", "ftl.op_ratio", "ftl.gc.threshold", "stack.fs.partition_bytes"} | WIDTH,
    "nand.dies_per_chip": {"nand", "ftl.op_ratio", "ftl.gc.threshold", "stack.fs.partition_bytes"} | WIDTH,
    "nand.planes_per_die": {"nand", "ftl.op_ratio", "ftl.gc.threshold", "stack.fs.partition_bytes"} | WIDTH,
    "nand.blocks_per_plane": {"nand", "ftl.op_ratio", "ftl.gc.threshold", "stack.fs.partition_bytes"} | WIDTH,
    "nand.pages_per_block": {"nand", "ftl.op_ratio", "ftl.gc.threshold", "stack.fs.partition_bytes"} | WIDTH,
    "nand.page_size": {"precondition.fill_block_size", "ftl.compression", "ftl.op_ratio"},
    "nand.cell": {"nand.read_latency_us", "nand.program_latency_us"},
    "nand.program_latency_us": {"controller.suspend.program_suspend_us"},
    "nand.erase_latency_us": {"controller.suspend.erase_suspend_us"},
    "ftl.op_ratio": {"ftl.op_ratio", "stack.fs.partition_bytes"},
    "ftl.gc.threshold": {"ftl.gc.background_threshold", "ftl.gc.hard_floor", "ftl.op_ratio"},
    "ftl.gc.background_threshold": {"ftl.gc.background_threshold"},
    "ftl.gc.background": {"ftl.gc"},
    "ftl.gc.copyback": {"ftl.gc"},
    "ftl.gc.preemptible": {"controller"},
    "controller.scheduler": {"controller"},
    "controller.suspend.enabled": {"controller"},
    "precondition.fill_fraction": {"precondition.fill_fraction"},
    "content.mode": {"content.mode", "ftl.compression"},
    "stack.ccsd.emergency_c": {"stack.tcs.t_hard_c", "stack.ccsd.throttle_c"},
    "stack.ccsd.throttle_release_c": {"stack.ccsd.throttle_c"},
    "stack.tcs.t_hard_c": {"stack.tcs.t_soft_c"},
    "stack.fs.bggc.min_sleep_ms": {"stack.fs.bggc.max_sleep_ms"},
    "stack.fs.segment_blocks": {"stack.fs.partition_bytes"},
    "stack.fs.rs_ratio": {"stack.fs.partition_bytes"},
    "stack.cpu.cores": {"stack.cpu.compress_threads"},
    "stack.ccsd.logical_ratio": {"stack.fs.partition_bytes"},
    "stack.fs.mount.granularity": {"stack.fs.mount.granularity"},
    "stack.cache.dirty_ratio": {"stack.cache.dirty_background_ratio"},
}


def leaves(node: Any, key: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted key, value) of every number and string leaf; array items as ``key[i]``."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from leaves(v, f"{key}.{k}" if key else k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from leaves(v, f"{key}[{i}]")
    elif isinstance(node, (int, float, str)) and not isinstance(node, bool):
        yield key, node


def tables(node: Any, key: str = "") -> Iterator[str]:
    if isinstance(node, dict):
        if key:
            yield key
        for k, v in node.items():
            yield from tables(v, f"{key}.{k}" if key else k)


def mutations(value: Any, rng: random.Random) -> list[tuple[str, Any]]:
    if isinstance(value, str):
        return [("bogus", "bogus"), ("empty", ""), ("upper", value.upper() + "X"), ("number", 1), ("nan", math.nan)]
    v = float(value)
    out: list[tuple[str, Any]] = [
        ("str", "x"),
        ("bool", True),
        ("list", [value]),
        ("table", {"a": 1}),
        ("sign", -value if value else -1),
        ("zero", 0),
        ("huge", 1e300),
        ("huge-int", 2**64),
        ("x1e6", v * 1e6 if v else 1e6),
        ("tiny", 1e-300),
        ("x1e-6", v * 1e-6),
        ("nan", math.nan),
        ("inf", math.inf),
        ("-inf", -math.inf),
    ]
    if isinstance(value, int):
        out.append(("int-max", 2**63 - 1))
    out.append(("random", rng.choice((-1, 1)) * 10 ** rng.uniform(-310, 308)))
    return out


RANGES_DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "config-ranges.md")


def documented_ranges() -> list[tuple[re.Pattern[str], float, float]]:
    """(key pattern, min, max) of each row of docs/config-ranges.md."""
    out = []
    with open(RANGES_DOC) as f:
        for line in f:
            m = re.match(r"\| `([^`]+)` \| ([^|]+) \| ([^|]+) \|", line)
            if not m:
                continue
            pat = re.escape(m.group(1)).replace(r"\[\]", r"\[\d+\]").replace(r"\*", r"[^.]+")
            out.append(
                (
                    re.compile(f"(.*\\.)?{pat}" if m.group(1).startswith("*") else pat),
                    float(m.group(2)),
                    float(m.group(3)),
                )
            )
    return out


def edges(key: str, value: Any, ranges: list[tuple[re.Pattern[str], float, float]]) -> list[tuple[str, Any]]:
    """The documented bounds of ``key`` as mutations (a value the config must accept: its
    extremes are where time and memory are tested)."""
    for pat, lo, hi in ranges:
        if pat.fullmatch(key):
            if isinstance(value, int):  # (the f64 bound 2^64 of a u64 is 2^64 - 1)
                return [("min", int(lo)), ("max", min(int(hi), 2**64 - 1))]
            return [("min", lo), ("max", hi)]
    return []


def set_at(cfg: dict[str, Any], key: str, value: Any) -> tuple[str, Any]:
    """The override (dotted key, value) that puts ``value`` at ``key``: a key inside an array
    (``nand.read_latency_us[1]``, ``workload.jobs[0].bs``) replaces the whole array."""
    if "[" not in key:
        return key, value
    base, _, rest = key.partition("[")
    node: Any = cfg
    for part in base.split("."):
        node = node[part]
    items = copy.deepcopy(node)
    parts = re.findall(r"\[(\d+)\]|\.([^.\[]+)", "[" + rest)
    target: Any = items
    for i, (idx, name) in enumerate(parts):
        last = i == len(parts) - 1
        k: Any = int(idx) if idx else name
        if last:
            target[k] = value
        else:
            target = target[k]
    return base, items


def cases(cfg: dict[str, Any], rng: random.Random) -> list[tuple[str, str, str, Any]]:
    """(mutated key, mutation, override key, override value) for one resolved config."""
    out = []
    ranges = documented_ranges()
    for key, value in leaves(cfg):
        for name, new in mutations(value, rng) + edges(key, value, ranges):
            k, v = set_at(cfg, key, new)
            out.append((key, name, k, v))
    for t in tables(cfg):
        out.append((f"{t}.bogus_key", "unknown", f"{t}.bogus_key", 1))
    return out


def foreign(key: str) -> bool:
    """fio options and variables: checked by the fio parser when a simulation is built."""
    return key.startswith(("workload.global", "workload.jobs", "workload.vars"))


def names(err_key: str, key: str) -> bool:
    """Whether a ConfigError's key names the mutated ``key`` (or a documented partner)."""
    if err_key == key or err_key.startswith((key + ".", key + "[")):
        return True
    bare = key.split("[")[0]
    if err_key == bare or err_key.startswith(bare + "["):
        return True
    # a tagged table's `type`: the table is named
    if key.endswith(".type") and err_key == key[: -len(".type")]:
        return True
    return err_key in CROSS.get(bare, set())


def outcome(cfg: flashpress.Config, case: tuple[str, str, str, Any]) -> str | None:
    """None when the case ends as it must; else what went wrong."""
    key, _, k, v = case
    try:
        cfg.with_overrides({k: v}, source_name="fuzz")
    except ConfigError as e:
        if foreign(key) or names(str(e.key), key):
            return None
        return f"ConfigError names `{e.key}`: {e}"
    except FlashpressError as e:
        # policy and codec names have their own error types, which name the key
        if key in str(e) or (foreign(key) and isinstance(e, FlashpressError)):
            return None
        return f"{type(e).__name__}: {e}"
    except Exception as e:  # the point of the test: nothing else may escape
        return f"unexpected {type(e).__name__}: {e}"
    return None


def all_cases() -> list[tuple[str, tuple[str, str, str, Any]]]:
    rng = random.Random(SEED)
    out = []
    for p in PRESETS:
        cfg = flashpress.Config.preset(p).to_dict()
        out += [(p, c) for c in cases(dict(cfg), rng)]
    return out


def test_config_mutations_end_in_a_config_or_an_error_naming_the_key() -> None:
    every = all_cases()
    assert len(every) > 2000, len(every)
    presets = {p: flashpress.Config.preset(p) for p in PRESETS}
    start = time.monotonic()
    bad = []
    for p, case in every:
        why = outcome(presets[p], case)
        if why is not None:
            bad.append(f"{p}: {case[0]} = {case[1]} ({case[3]!r:.60}): {why}")
    took = time.monotonic() - start
    assert not bad, f"{len(bad)} of {len(every)} cases:\n" + "\n".join(bad[:60])
    assert took < 60, f"{len(every)} cases took {took:.0f} s"


@pytest.mark.parametrize(
    ("where", "value", "key"),
    [
        ("seed", math.nan, "seed"),
        ("nand.read_latency_us", [75.0, math.inf], "nand.read_latency_us[1]"),
        ("ftl.gc.threshold", -math.inf, "ftl.gc.threshold"),
        ("content.ratio", {"type": "fixed", "ratio": math.nan}, "content.ratio.ratio"),
    ],
)
def test_nan_and_infinities_from_python_are_refused_by_key(where: str, value: Any, key: str) -> None:
    cfg = flashpress.Config.preset("default")
    with pytest.raises(ConfigError, match="expected a finite number") as e:
        cfg.with_overrides({where: value})
    assert e.value.key == key
    d = cfg.to_dict()
    d["seed"] = math.nan
    with pytest.raises(ConfigError) as e:
        flashpress.Config.from_dict({"ftl": {"gc": {"threshold": math.nan}}})
    assert e.value.key == "ftl.gc.threshold"
    with pytest.raises(ConfigError) as e:
        flashpress.Config.from_json(json.dumps(d))  # Python writes NaN, which JSON has not
    assert e.value.key == "seed"


def test_set_of_a_date_time_is_a_config_error_naming_the_key(tmp_path: Any) -> None:
    def run_set(assignment: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "flashpress.cli", "run", "--set", assignment, "--out", str(tmp_path / "err")]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert r.returncode == 2, r.stderr
        assert "Traceback" not in r.stderr, r.stderr
        return r

    r = run_set("seed=1979-05-27T07:32:00Z")
    assert "config key `seed`" in r.stderr, r.stderr
    assert "got a date-time (1979-05-27T07:32:00+00:00); quote it" in r.stderr, r.stderr
    r = run_set("nand.erase_latency_us=nan")
    assert "config key `nand.erase_latency_us`: expected a finite number" in r.stderr, r.stderr


def test_a_device_shut_down_by_its_surroundings_says_so_not_that_the_fs_is_full() -> None:
    from flashpress.run import run_simulation

    hot = flashpress.Config.preset("waltz").with_overrides(SLOW_BASES["waltz"])
    hot = hot.with_overrides({"stack.ccsd.thermal.neighbour_c": 90.0})  # surroundings at 113 °C
    with pytest.raises(flashpress.errors.WorkloadError, match="shut down at its thermal emergency") as e:
        run_simulation(hot, progress=False)
    assert "file system is full" not in str(e.value)


# -- slow: run every accepted case under a memory limit and a time bound ----------------

WORKER = r"""
import json, resource, sys, traceback
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
import flashpress
from flashpress.errors import FlashpressError
from flashpress.run import run_simulation
bases = json.loads(sys.argv[2])
presets = {p: flashpress.Config.preset(p).with_overrides(b) for p, b in bases.items()}
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    p, k, v = json.loads(line)
    try:
        cfg = presets[p].with_overrides({k: v}, source_name="fuzz")
        run_simulation(cfg, progress=False)
        out = {"ok": True}
    except FlashpressError as e:
        out = {"err": type(e).__name__, "key": str(getattr(e, "key", "")), "msg": str(e)[:300]}
    except BaseException as e:
        out = {"exc": type(e).__name__, "msg": "".join(traceback.format_exception(e))[-600:]}
    print(json.dumps(out), flush=True)
"""

# Small runs of each preset: the fuzzed values, not the workload, are under test.
SLOW_BASES: dict[str, dict[str, Any]] = {
    "default": {
        "precondition.fill_fraction": 0.2,
        "precondition.aging_fraction": 0.1,
        "workload.jobs": [{"name": "j", "rw": "randrw", "rwmixread": 70, "bs": "4k", "iodepth": 8, "number_ios": 300}],
    },
    "waltz": {
        # Half the preset's blocks (1.5 TiB of flash, a 3.1 GiB estimate): the full device's
        # 5 GiB estimate does not fit beside the worker under the 6 GiB address-space limit.
        "nand.blocks_per_plane": 512,
        "workload": {
            "type": "fio",
            "global": {"rw": "write", "bs": "128k", "numjobs": 2, "iodepth": 1, "size": "16m"},
            "jobs": [{"name": "w", "number_ios": 64}],
        },
    },
}


class Worker:
    def __init__(self, limit: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WORKER, str(limit), json.dumps(SLOW_BASES)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert json.loads(self.read(120) or "{}").get("ready"), self.stderr()

    def read(self, timeout: float) -> str | None:
        assert self.proc.stdout is not None
        r, _, _ = select.select([self.proc.stdout], [], [], timeout)
        return self.proc.stdout.readline() if r else None

    def stderr(self) -> str:
        self.proc.kill()
        _, err = self.proc.communicate()
        return (err or "")[-600:]


@pytest.mark.slow
def test_config_mutations_run_or_fail_cleanly_under_6gb_and_a_time_bound() -> None:
    n = int(os.environ.get("FLASHPRESS_FUZZ_CASES", "100000"))
    per_case_s = float(os.environ.get("FLASHPRESS_FUZZ_CASE_S", "60"))
    rng = random.Random(SEED)
    every = []
    bases = {p: flashpress.Config.preset(p).with_overrides(SLOW_BASES[p]) for p in PRESETS}
    for p in PRESETS:
        every += [(p, c) for c in cases(bases[p].to_dict(), rng)]
    # Refusals are checked here (cheaply, as in the fast test); the worker runs every case the
    # config accepts.
    refused = [why for p, c in every if (why := outcome(bases[p], c)) is not None]
    assert not refused, "\n".join(refused[:60])
    accepted = []
    for p, c in every:
        try:
            bases[p].with_overrides({c[2]: c[3]})
        except FlashpressError:
            continue
        accepted.append((p, c))
    picked = rng.sample(accepted, min(n, len(accepted)))
    # Each base fits the 6 GiB limit with room to spare, so that a mutation refused for memory
    # is one that really grows the run.
    for p in PRESETS:
        assert flashpress.estimate_memory(bases[p])["total_bytes"] < 4 << 30, p
    worker = Worker(6 << 30)
    bad: list[str] = []
    counts: dict[str, int] = {}
    start = time.monotonic()
    for p, (key, name, k, v) in picked:
        what = f"{p}: {key} = {name} ({v!r:.60})"
        assert worker.proc.stdin is not None
        worker.proc.stdin.write(json.dumps([p, k, v]) + "\n")
        worker.proc.stdin.flush()
        t0 = time.monotonic()
        line = worker.read(per_case_s)
        if line is None or not line:
            kind = "hang" if line is None else f"crash (exit {worker.proc.poll()})"
            bad.append(f"{what}: {kind} after {time.monotonic() - t0:.0f} s: {worker.stderr()}")
            counts[kind.split()[0]] = counts.get(kind.split()[0], 0) + 1
            worker = Worker(6 << 30)
            continue
        out = json.loads(line)
        if out.get("ok"):
            counts["ran"] = counts.get("ran", 0) + 1
        elif "exc" in out:
            counts["exception"] = counts.get("exception", 0) + 1
            bad.append(f"{what}: {out['exc']}: {out['msg']}")
        else:
            memory = out["err"] == "ConfigError" and "of memory, more than" in out["msg"]
            kind = "ConfigError (memory)" if memory else out["err"]
            counts[kind] = counts.get(kind, 0) + 1
            # A run refused by its memory estimate names the key that sizes its largest part
            # (the bases fit with room to spare, checked above), not always the mutated one.
            if out["err"] == "ConfigError" and not (memory or foreign(key) or names(out["key"], key)):
                bad.append(f"{what}: ConfigError names `{out['key']}`: {out['msg']}")
    worker.stderr()
    took = time.monotonic() - start
    print(f"\n{len(every)} cases, {len(accepted)} accepted, {len(picked)} run in {took:.0f} s: {counts}")
    assert not bad, f"{len(bad)} of {len(picked)} cases:\n" + "\n".join(bad)
