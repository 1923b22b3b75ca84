"""Property tests of the pure-Python helpers: --set parsing, dotted overrides, flattening."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from flashpress import Config
from flashpress.cli import parse_value
from flashpress.config import _set_dotted
from flashpress.sweep import flatten

keys = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8)
scalars = st.one_of(st.integers(-(2**62), 2**62), st.booleans(), st.floats(allow_nan=False, allow_infinity=False))
nested = st.recursive(scalars, lambda inner: st.dictionaries(keys, inner, min_size=1, max_size=4), max_leaves=12)


@given(st.integers(-(2**62), 2**62))
def test_integers_parse_as_integers(n: int) -> None:
    assert parse_value(str(n)) == n


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_floats_round_trip(x: float) -> None:
    got = parse_value(repr(x))
    assert isinstance(got, float)
    assert got == x or (math.isclose(got, x) and x == 0)


@given(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=12).filter(
        lambda s: s not in ("true", "false", "inf", "nan")
    )
)
def test_bare_words_stay_strings(word: str) -> None:
    assert parse_value(word) == word


@given(st.dictionaries(keys, nested, max_size=4))
def test_flatten_keeps_every_leaf(d: dict[str, Any]) -> None:
    flat = flatten(d)
    rebuilt: dict[str, Any] = {}
    for k, v in flat.items():
        _set_dotted(rebuilt, k, v)
    assert flatten(rebuilt) == flat


@given(st.floats(min_value=0.1, max_value=0.9), st.sampled_from(["greedy", "random", "cost_benefit", "fifo"]))
def test_overrides_round_trip_through_the_core(op: float, victim: str) -> None:
    cfg = Config.preset("tiny").with_overrides({"ftl.op_ratio": op, "ftl.gc.victim": victim})
    assert cfg.ftl.op_ratio == op
    assert cfg.ftl.gc.victim == victim
    assert Config.from_json(cfg.to_json()) == cfg
