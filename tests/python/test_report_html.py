"""``report.html``: the reproduction report as one self-contained page, from the same document as
``report.md``; re-rendered from saved results; and opened in headless Chromium (Debian's, from
``make chromium``), which must show it with no console error, a screenshot that is not blank,
tables that sort by a clicked header and claim rows coloured by their status.

The browser tests fail, never skip, when Chromium is missing: ``make test`` fetches it."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from _browser import Browser, Page, blank_reason
from flashpress import errors
from flashpress.cli import main
from flashpress.reproduce import read_results, render
from flashpress.reproduce.claims import STATUSES
from flashpress.reproduce.document import Document, Heading, Table, inline_html, inline_svg
from flashpress.reproduce.experiments import figures
from flashpress.reproduce.figures import plot_figure
from flashpress.reproduce.report import write_report
from test_reproduce import QUICK, synthetic_table

REPO = Path(__file__).resolve().parents[2]
PAPERS = ("waltz", "coco", "prssd", "cagc", "lossy")
#: The colour each claim status paints its row (document.CSS), as the browser computes it.
STATUS_RGB = {
    "holds": "rgb(220, 245, 227)",
    "fails": "rgb(253, 226, 225)",
    "inconclusive": "rgb(255, 243, 196)",
    "fitted": "rgb(225, 236, 253)",
    "not run": "rgb(236, 236, 236)",
    "by construction": "rgb(239, 228, 251)",
}


# -- the document and its two renderings -----------------------------------------------------


@pytest.mark.parametrize(
    ("markdown", "html"),
    [
        ("plain & <b>bold</b> \"q\" 'a'", "plain &amp; &lt;b&gt;bold&lt;/b&gt; &quot;q&quot; &#x27;a&#x27;"),
        ("Preset `waltz` <x>", "Preset <code>waltz</code> &lt;x&gt;"),
        ("`a<b>` and `**not bold**`", "<code>a&lt;b&gt;</code> and <code>**not bold**</code>"),
        ("**holds**", "<strong>holds</strong>"),
        ("an *ordering* holds", "an <em>ordering</em> holds"),
        ("2 * 3 * 4 and a*b*c", "2 * 3 * 4 and a*b*c"),
        ("[figures/f.svg](figures/f.svg)", '<a href="figures/f.svg">figures/f.svg</a>'),
        ('[a "b"](runs/0001/config.json?x=1&y=2)', '<a href="runs/0001/config.json?x=1&amp;y=2">a &quot;b&quot;</a>'),
        ("[x\\[1\\]](runs/0000/config.json)", '<a href="runs/0000/config.json">x[1]</a>'),
        ("a \\| b", "a | b"),
        ("**fails** (fig3) *x* `y`", "<strong>fails</strong> (fig3) <em>x</em> <code>y</code>"),
    ],
)
def test_inline_markdown_becomes_escaped_html(markdown: str, html: str) -> None:
    assert inline_html(markdown) == html


@pytest.mark.parametrize("href", ["javascript:alert(1)", "data:text/html,x", "file:///etc/passwd", "JaVaScRiPt:x"])
def test_a_link_that_is_not_a_relative_path_or_http_is_refused(href: str) -> None:
    with pytest.raises(ValueError, match="only relative paths and http"):
        inline_html(f"[x]({href})")


SVG = """<?xml version="1.0" encoding="utf-8" standalone="no"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN"
  "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg xmlns:xlink="http://www.w3.org/1999/xlink" width="72pt" height="72pt" viewBox="0 0 72 72" xmlns="http://www.w3.org/2000/svg">
 <metadata><dc:date>2026-11-25T20:28:42.220141</dc:date></metadata>
 <defs><style type="text/css">*{stroke-linejoin: round; stroke-linecap: butt}</style></defs>
 <g id="figure_1"><defs><path id="m1a2b" d="M 0 0 L 0 3.5"/>
  <clipPath id="p9f"><rect x="0" y="0" width="9" height="9"/></clipPath></defs>
  <use xlink:href="#m1a2b" x="1" y="2"/><path d="M 0 0" clip-path="url(#p9f)"/><use href="#m1a2b"/></g>
</svg>
"""


def test_an_inlined_svg_gets_ids_of_its_own_and_no_metadata() -> None:
    a, b = inline_svg(SVG, "figure-a", "a <1>"), inline_svg(SVG, "figure-b", "b")
    assert a.startswith('<svg id="figure-a" class="figure" role="img" aria-label="a &lt;1&gt;" xmlns:xlink=')
    assert "<?xml" not in a
    assert "DOCTYPE" not in a
    assert "metadata" not in a
    assert "2026" not in a, "the time the figure was drawn stays out of the page"
    assert re.findall(r' id="([^"]+)"', a) == ["figure-a", "figure-a-1", "figure-a-2", "figure-a-3"]
    assert 'xlink:href="#figure-a-2"' in a
    assert 'href="#figure-a-2"/>' in a
    assert 'clip-path="url(#figure-a-3)"' in a
    assert "#figure-a *{stroke-linejoin" in a, "the file's style rule stays inside its figure"
    assert not set(re.findall(r' id="([^"]+)"', a)) & set(re.findall(r' id="([^"]+)"', b))
    with pytest.raises(ValueError, match=r"x\.svg: not an SVG file"):
        inline_svg("<html></html>", "p", "x.svg")


def _synthetic_dir(root: Path, plots: bool = True) -> Path:
    """A reproduction output directory (Waltz Figs 3, 12 and 14 at the quick scale) from the
    synthetic results: results.csv, scale.json, reproduce.json, figures (unless not ``plots``),
    two configs."""
    table = synthetic_table()
    # Text the page must escape: a failed run's error naming markup.
    table.loc[table["status"] == "failed", "error"] = 'InvariantError: <img src=x onerror="console.error(1)"> & co'
    # Throughputs whose text order is not their numeric order ("1.52e+03" and "4.5" against "100").
    fast = (table["scheme"] == "Waltz_p") & (table["pattern"] == "rand-read")
    table.loc[fast, "read.throughput_mb_s"] = 1520.0
    slow = (table["scheme"] == "F2FSC") & (table["pattern"] == "seq-write")
    table.loc[slow, "write.throughput_mb_s"] = 4.5
    d = root / "out"
    figs = figures("waltz", QUICK, ["3", "12", "14"])
    timelines = {
        0: pd.DataFrame(
            {"time_s": [0.0, 2.0, 10.0], "temperature_c": [23.0, 70.0, 86.0], "write_mb_s": [900.0, 800.0, 0.0]}
        )
    }
    d.mkdir(parents=True)
    for fig in figs if plots else []:
        plot_figure(fig, table, timelines, QUICK, d / "figures")
    table.to_csv(d / "results.csv", index=False)
    (d / "scale.json").write_text(json.dumps(QUICK.to_dict(), indent=2))
    meta = {"paper": "waltz", "preset": "waltz", "figures": [f.key for f in figs], "wall_s": 12.5, "cores": 2}
    (d / "reproduce.json").write_text(json.dumps(meta))
    for i in (0, 3):
        (d / "runs" / f"{i:04d}").mkdir(parents=True)
        (d / "runs" / f"{i:04d}" / "config.json").write_text('{"preset": "waltz"}')
    return d


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = _synthetic_dir(tmp_path_factory.mktemp("report"))
    render(d)
    return d


class _Links(HTMLParser):
    """Every tag's name and its href/src."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.refs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.refs += [v for k, v in attrs if k in ("href", "src", "xlink:href") and v is not None]


def test_the_html_says_what_the_markdown_says(synthetic: Path) -> None:
    md = (synthetic / "report.md").read_text()
    page = (synthetic / "report.html").read_text()
    # Every claim row of the Markdown is a row of the page, coloured by its status.
    claim_rows = [line for line in md.splitlines() if re.search(r"\| \*\*(" + "|".join(STATUSES) + r")\*\* \|", line)]
    assert len(claim_rows) >= 5
    for line in claim_rows:
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        status = cells[4].strip("*")
        want = f'<tr class="status-{status.replace(" ", "-")}">' + "".join(f"<td>{inline_html(c)}</td>" for c in cells)
        assert want in page, line
    # The same headings, tables and links.
    assert re.findall(r"^#+ (.*)$", md, re.M) == [
        re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<h[12] id=\"[^\"]+\">(.*?)</h[12]>", page)
    ]
    assert md.count("\n|---") == page.count('<table class="sortable">')
    assert "[with/23C](runs/0000/config.json)" in md
    assert '<a href="runs/0000/config.json">with/23C</a>' in page
    assert "| without/23C |" in md, "a skipped run has no config to link"
    # Escaped, never markup.
    assert "&lt;img src=x onerror=&quot;console.error(1)&quot;&gt; &amp; co" in page
    links = _Links()
    links.feed(page)
    assert "img" not in links.tags
    # Self-contained: the figures inline, no script, style sheet or font from elsewhere, and
    # every link a relative path to a file that is there (or an anchor of the page).
    assert links.tags.count("svg") == 3
    assert links.tags.count("script") == 1
    assert "link" not in links.tags
    assert not re.search(r"https?://(?!www\.w3\.org/)", page)
    for ref in links.refs:
        if ref.startswith("#"):
            assert f'id="{ref[1:]}"' in page, ref
        else:
            assert (synthetic / ref).is_file(), ref


def test_the_same_results_give_the_same_bytes(synthetic: Path, tmp_path: Path) -> None:
    again = shutil.copytree(synthetic, tmp_path / "again")
    (again / "report.md").unlink()
    (again / "report.html").unlink()
    render(again)
    for name in ("report.md", "report.html"):
        assert (again / name).read_bytes() == (synthetic / name).read_bytes(), name
    # The figures' own timestamps and random ids (matplotlib salts its hashes) do not reach the page.
    for svg in (again / "figures").glob("*.svg"):
        text, dates = re.subn(r"<dc:date>[^<]*</dc:date>", "<dc:date>1999-01-01T00:00:00</dc:date>", svg.read_text())
        text, ids = re.subn(r"\b([mp])([0-9a-f]{10})\b", lambda m: m[1] + m[2][::-1], text)
        assert dates == 1
        assert ids > 0
        svg.write_text(text)
    render(again)
    assert (again / "report.html").read_bytes() == (synthetic / "report.html").read_bytes()


def test_results_read_back_from_csv_give_the_report_the_runs_gave(tmp_path: Path) -> None:
    table = synthetic_table()
    table.to_csv(tmp_path / "results.csv", index=False)
    back = read_results(tmp_path)
    figs = figures("waltz", QUICK, ["3", "12", "14"])
    kw: dict[str, Any] = {"figure_files": {}, "wall_s": 1.0, "preset": "waltz"}
    assert write_report("waltz", figs, back, QUICK, **kw) == write_report("waltz", figs, table, QUICK, **kw)
    # A data study's variant "32" is a label, not the number 32.
    pd.DataFrame([{"figure": "fig6a", "run_id": "x", "status": "ok", "variant": "32"}]).to_csv(
        tmp_path / "results.csv", index=False
    )
    assert read_results(tmp_path)["variant"].tolist() == ["32"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: (d / "reproduce.json").unlink(), r"reproduce\.json: missing; is it a `flashpress reproduce`"),
        (lambda d: (d / "reproduce.json").write_text("{"), r"reproduce\.json: not JSON"),
        (lambda d: (d / "reproduce.json").write_text('{"paper": "waltz"}'), r"reproduce\.json: expected `preset`"),
        (
            lambda d: (d / "reproduce.json").write_text(
                '{"paper": "x", "preset": "p", "figures": [], "wall_s": 1, "cores": null}'
            ),
            r"reproduce\.json: unknown paper 'x'",
        ),
        (lambda d: (d / "scale.json").write_text('{"name": "huge"}'), r"scale\.json: unknown scale"),
        (lambda d: (d / "results.csv").unlink(), r"results\.csv: missing"),
        (lambda d: (d / "results.csv").write_text("a,b\n1,2\n"), r"results\.csv: no column figure, run_id, status"),
    ],
)
def test_render_names_the_file_it_cannot_use(tmp_path: Path, change: Any, message: str) -> None:
    d = _synthetic_dir(tmp_path, plots=False)
    change(d)
    with pytest.raises(errors.FileReadError, match=message):
        render(d)
    assert not (d / "report.md").exists()
    assert not (d / "report.html").exists()


def test_cli_report_writes_both(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _synthetic_dir(tmp_path, plots=False)
    assert main(["report", str(d)]) == 0
    assert f"report written to {d / 'report.md'} and {d / 'report.html'}" in capsys.readouterr().out
    assert (d / "report.html").read_text().startswith("<!DOCTYPE html>")
    assert main(["report", str(tmp_path / "nothing")]) == 2
    assert "nothing/reproduce.json: missing" in capsys.readouterr().err


@pytest.mark.parametrize("paper", PAPERS)
def test_the_committed_reports_are_their_results_rendered(paper: str, tmp_path: Path) -> None:
    """docs/reproduce/PAPER: report.md and report.html are what `flashpress report` makes of the
    saved results with the current claims (after a change to them or to the report: run
    `flashpress report docs/reproduce/PAPER`)."""
    src = REPO / "docs" / "reproduce" / paper
    d = shutil.copytree(src, tmp_path / paper)
    render(d)
    for name in ("report.md", "report.html"):
        assert (d / name).read_text() == (src / name).read_text(), (
            f"docs/reproduce/{paper}/{name} is not its results rendered: run `flashpress report docs/reproduce/{paper}`"
        )


def test_a_document_without_figures_or_status_still_renders(tmp_path: Path) -> None:
    doc = Document([Heading(1, "T & <t>"), Table(("a", "b"), (("1", "x"),))])
    page = doc.html(tmp_path)
    assert "<title>T &amp; &lt;t&gt;</title>" in page
    assert "<tr><td>1</td><td>x</td></tr>" in page
    assert doc.markdown() == "# T & <t>\n\n| a | b |\n|---|---|\n| 1 | x |\n\n"


# -- in the browser ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser() as b:
        yield b


#: Checks of a loaded report page (JavaScript returning a dict).
PAGE_FACTS = """(() => {
  const ids = Array.from(document.querySelectorAll("[id]"), e => e.id);
  const refs = [];
  for (const e of document.querySelectorAll("svg *")) {
    for (const a of ["href", "xlink:href", "clip-path", "fill", "mask"]) {
      const v = e.getAttribute(a) || "";
      const m = v.match(/^#(.+)$/) || v.match(/url\\(#([^)]+)\\)/);
      if (m) refs.push(m[1]);
    }
  }
  const svgs = Array.from(document.querySelectorAll("svg.figure"), s => s.getBoundingClientRect());
  return {
    title: document.title,
    duplicateIds: ids.filter((id, i) => ids.indexOf(id) !== i),
    danglingRefs: refs.filter(r => !document.getElementById(r)),
    svgs: svgs.length,
    smallSvgs: svgs.filter(r => r.width < 200 || r.height < 100).length,
    sortable: document.querySelectorAll("table.sortable").length,
    tables: document.querySelectorAll("table").length,
    textLength: document.body.innerText.length,
  };
})()"""


def _facts(page: Page) -> dict[str, Any]:
    facts: dict[str, Any] = page.evaluate(PAGE_FACTS)
    return facts


@pytest.mark.parametrize("paper", PAPERS)
def test_the_committed_report_renders_in_chromium(browser: Browser, paper: str) -> None:
    path = REPO / "docs" / "reproduce" / paper / "report.html"
    page = browser.open(path.as_uri())
    assert page.errors() == []
    facts = _facts(page)
    assert facts["title"].startswith("Reproduction: ")
    assert facts["duplicateIds"] == []
    assert facts["danglingRefs"] == []
    assert facts["svgs"] == len(list(path.parent.glob("figures/*.svg")))
    assert facts["smallSvgs"] == 0
    assert facts["sortable"] == facts["tables"] > 3
    reason = blank_reason(page.screenshot())
    assert reason is None, reason
    page.evaluate('document.querySelector("svg.figure").scrollIntoView()')
    reason = blank_reason(page.screenshot())
    assert reason is None, f"a figure: {reason}"
    assert page.errors() == []


SORT = """((table, column) => {
  const th = table.tHead.rows[0].cells[column];
  th.click();
  const first = Array.from(table.tBodies[0].rows, r => r.cells[column].textContent.trim());
  th.click();
  const second = Array.from(table.tBodies[0].rows, r => r.cells[column].textContent.trim());
  return {first, second, sort: th.getAttribute("aria-sort")};
})"""


def _table_with(page: Page, header: str) -> str:
    """A JavaScript expression for the longest table with a column headed ``header``."""
    return (
        f'Array.from(document.querySelectorAll("table")).filter(t => Array.from(t.tHead.rows[0].cells)'
        f".some(c => c.textContent.trim() === {json.dumps(header)}))"
        ".sort((a, b) => b.tBodies[0].rows.length - a.tBodies[0].rows.length)[0]"
    )


def _column(page: Page, header: str) -> int:
    col: int = page.evaluate(
        f"Array.from(({_table_with(page, header)}).tHead.rows[0].cells)"
        f".findIndex(c => c.textContent.trim() === {json.dumps(header)})"
    )
    return col


def test_tables_sort_by_a_clicked_header(browser: Browser, synthetic: Path) -> None:
    page = browser.open((synthetic / "report.html").as_uri())
    assert page.errors() == []
    # Numbers sort as numbers (4.5 before 40, 1.52e+03 after 520), missing values ("-") last both ways.
    table, col = _table_with(page, "throughput"), _column(page, "throughput")
    got = page.evaluate(f"({SORT})({table}, {col})")
    nums = [float(x) for x in got["first"] if x != "-"]
    assert len(nums) >= 4
    assert nums == sorted(nums)
    assert {4.5, 1520.0} <= set(nums)
    assert got["first"][len(nums) :] == ["-"] * (len(got["first"]) - len(nums))
    assert [float(x) for x in got["second"] if x != "-"] == sorted(nums, reverse=True)
    assert got["second"][-1] == "-"
    assert got["sort"] == "descending"
    # Text sorts as text.
    table, col = _table_with(page, "scheme"), _column(page, "scheme")
    got = page.evaluate(f"({SORT})({table}, {col})")
    assert got["first"] == sorted(got["first"], key=str.lower)
    assert got["second"] == sorted(got["first"], key=str.lower, reverse=True)
    # The keyboard sorts too, and the claim rows keep their colours when moved.
    col = _column(page, "status")
    table = _table_with(page, "why")
    before = page.evaluate(f"Array.from(({table}).tBodies[0].rows, r => r.className + '|' + r.cells[0].textContent)")
    page.evaluate(f"({table}).tHead.rows[0].cells[{col}].dispatchEvent(new KeyboardEvent('keydown', {{key: 'Enter'}}))")
    after = page.evaluate(f"Array.from(({table}).tBodies[0].rows, r => r.className + '|' + r.cells[0].textContent)")
    assert sorted(after) == sorted(before)
    statuses = [x.split("|")[0] for x in after]
    assert statuses == sorted(statuses)
    assert page.errors() == []


def test_claim_rows_are_coloured_by_status(browser: Browser, synthetic: Path) -> None:
    page = browser.open((synthetic / "report.html").as_uri())
    colours = page.evaluate(
        """Array.from(document.querySelectorAll("tr[class^='status-']"),
            r => [r.cells[4].textContent.trim(), getComputedStyle(r).backgroundColor])"""
    )
    seen = {status for status, _ in colours}
    assert {"holds", "fails", "not run"} <= seen
    for status, rgb in colours:
        assert rgb == STATUS_RGB[status], status
    assert len(set(STATUS_RGB.values())) == len(STATUSES)
    # A row without a status (a measured run) is not coloured.
    plain = page.evaluate(f"getComputedStyle(({_table_with(page, 'throughput')}).tBodies[0].rows[0]).backgroundColor")
    assert plain == "rgba(0, 0, 0, 0)"


@pytest.mark.parametrize(
    ("damage", "caught"),
    [
        (lambda s: s.replace("</main>", "<script>notAFunction();</script></main>"), "notAFunction is not defined"),
        (lambda s: s.replace('"use strict";', '"use strict"; var x = ;'), "SyntaxError"),
        (lambda s: s.replace("</main>", '<img src="figures/missing.png"></main>'), "ERR_FILE_NOT_FOUND"),
        (lambda s: s.replace("</main>", "<script>console.error('bad')</script></main>"), "console.error: bad"),
    ],
)
def test_the_check_catches_a_broken_page(
    browser: Browser, synthetic: Path, tmp_path: Path, damage: Any, caught: str
) -> None:
    page_file = tmp_path / "report.html"
    shutil.copytree(synthetic / "figures", tmp_path / "figures")
    page_file.write_text(damage((synthetic / "report.html").read_text()))
    errors = browser.open(page_file.as_uri()).errors()
    assert any(caught in e for e in errors), errors


def test_the_check_catches_a_blank_page(browser: Browser, tmp_path: Path) -> None:
    (tmp_path / "blank.html").write_text("<!DOCTYPE html><html><body><p style='color:#fff'>x</p></body></html>")
    reason = blank_reason(browser.open((tmp_path / "blank.html").as_uri()).screenshot())
    assert reason is not None
    assert "one colour" in reason
