"""PR-SSD's data studies (Figs. 6a and 8): DPC's configurable size against our real DPC codec,
the word counts against a brute-force count, and the seed's header example by hand."""

from __future__ import annotations

import collections
from pathlib import Path

import numpy as np
import pytest

from flashpress.codec import codec_bench
from flashpress.reproduce import testdata
from flashpress.reproduce.experiments import normalise_figure_key
from flashpress.reproduce.papers.prssd import data as d

GPL = Path("/usr/share/common-licenses/GPL-3").read_bytes()


def _codec_saving(pages: np.ndarray, tmp_path: Path, codec: str = "dpc") -> float:
    f = tmp_path / "pages.bin"
    pages.tofile(f)
    return float(codec_bench(f, [codec], ["16k"], progress=False).row(codec, "16k")["saving"])


def _mixed_pages() -> np.ndarray:
    """Pages that exercise every branch: text, zero units, an all-zero page, random bytes (which
    fail the 10% rule), a page whose non-zero unit is random next to zero units."""
    rng = np.random.default_rng(7)
    text = np.frombuffer((GPL * 2)[: 3 * d.PAGE], dtype=np.uint8).reshape(3, d.PAGE).copy()
    zeros_in = text[0].copy()
    zeros_in[4096:12288] = 0
    noise = rng.integers(0, 256, d.PAGE, dtype=np.uint8)
    noisy_unit = np.zeros(d.PAGE, dtype=np.uint8)
    noisy_unit[:4096] = rng.integers(0, 256, 4096, dtype=np.uint8)
    ints = (rng.integers(0, 300, d.PAGE // 4, dtype=np.uint32)).view(np.uint8)
    return np.stack([*text, zeros_in, np.zeros(d.PAGE, np.uint8), noise, noisy_unit, ints])


def test_the_selected_configuration_is_our_dpc_codec_byte_for_byte(tmp_path: Path) -> None:
    pages = _mixed_pages()
    for i in range(len(pages)):
        one = pages[i : i + 1]
        assert d.saving(d.dpc_sizes(one, *d.SELECTED[:1], 1, 1)) == pytest.approx(
            _codec_saving(one, tmp_path), abs=1e-12
        ), i


def test_the_selected_configuration_matches_the_codec_on_every_workload_image(tmp_path: Path) -> None:
    for w in ("Ubuntu", "DB", "ML"):
        pages = d.sample_pages(testdata.image("prssd", w), 48)
        assert d.saving(d.dpc_sizes(pages, 128, 1, 1)) == pytest.approx(_codec_saving(pages, tmp_path), abs=1e-12), w


@pytest.mark.parametrize(("granule", "size"), [(32, 1), (64, 2), (128, 4), (1024, 8), (32, 8)])
def test_word_counts_match_a_brute_force_count(granule: int, size: int) -> None:
    rng = np.random.default_rng(granule + size)
    # Few distinct values, so that ties and second patterns occur.
    pages = rng.choice(np.array([0, 1, 2, 255], dtype=np.uint8), size=(2, d.PAGE), p=[0.1, 0.5, 0.3, 0.1])
    owner, nonzero, top1, top2 = d.pattern_counts(pages, granule, size)
    assert list(nonzero) == [4, 4]
    k = 0
    for p in range(2):
        for off in range(0, d.PAGE, granule):
            g = pages[p, off : off + granule].tobytes()
            counts = sorted(
                collections.Counter(g[i : i + size] for i in range(0, granule, size)).values(), reverse=True
            )
            assert owner[k] == p
            assert top1[k] == counts[0]
            assert top2[k] == (counts[1] if len(counts) > 1 else 0)
            k += 1
    assert k == len(top1)


def test_the_seeds_header_example_by_hand() -> None:
    """Section 3.2: two 8-byte patterns in a 32-byte granule cost 16 bytes of patterns and 1 byte
    of codes (four 2-bit codes). A granule of words A A B B then stores 17 bytes; with our 1-byte
    length entry, 18. A page of such granules: 4 units x 128 granules x 18 bytes, which saves
    more than 10%, plus the page's flags byte and zero bitmap."""
    a, b = bytes(range(1, 9)), bytes(range(11, 19))
    page = np.frombuffer((a + a + b + b) * (d.PAGE // 32), dtype=np.uint8)[None, :]
    assert int(d.dpc_sizes(page, 32, 2, 8)[0]) == 2 + 4 * 128 * 18
    # One pattern: 8 bytes, 1 byte of 1-bit codes, the two B words raw: 8 + 1 + 16 = 25 (+1).
    assert int(d.dpc_sizes(page, 32, 1, 8)[0]) == 2 + 4 * 128 * 26


def test_a_bad_configuration_is_refused() -> None:
    page = np.zeros((1, d.PAGE), np.uint8)
    with pytest.raises(ValueError, match="no DPC granule of 48 B"):
        d.dpc_sizes(page, 48, 1, 1)
    with pytest.raises(ValueError, match="with 3 patterns"):
        d.dpc_sizes(page, 128, 3, 1)


def test_figure_keys_with_a_letter() -> None:
    assert normalise_figure_key("6a") == "fig6a"
    assert normalise_figure_key("Fig 17b") == "fig17b"
    assert normalise_figure_key("014") == "fig14"
    assert normalise_figure_key("power") == "power"
