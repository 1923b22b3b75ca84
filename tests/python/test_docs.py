"""The README is a short front door whose example runs and whose headlines are the reports';
the documentation site builds with ``mkdocs build --strict`` (a broken link fails it) and its
home page and an API page open in headless Chromium (``make chromium``) with no console error."""

from __future__ import annotations

import functools
import http.server
import importlib.util
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from _browser import Browser, blank_reason

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
MKDOCS = Path(sys.executable).with_name("mkdocs")
PAPERS = ("waltz", "coco", "prssd", "cagc", "lossy")


def _script(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# -- the README -------------------------------------------------------------------------------


def test_the_readme_is_a_front_door() -> None:
    text = README.read_text()
    assert len(text.splitlines()) <= 200
    # The two set-up commands come first, as the first two commands of the README.
    commands = re.findall(r"^make \w+", text, flags=re.M)
    assert commands[:2] == ["make run", "make test"]
    # .ci/run runs exactly the README's test command.
    ci = (REPO / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-1] == "make test"


def test_the_readme_python_example_runs(tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "the README has a Python example"
    code = blocks[0]
    assert len(code.strip().splitlines()) <= 5
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert re.match(r"WAF \d+\.\d\d, write p99 \d+ us\n", p.stdout), p.stdout
    assert "time_s" in p.stdout


def test_the_readme_headlines_are_the_reports_claims() -> None:
    text = README.read_text()
    for paper in PAPERS:
        report = REPO / "docs" / "reproduce" / paper / "report.md"
        claims = next(line for line in report.read_text().splitlines() if line.startswith("Claims: "))
        row = next(line for line in text.splitlines() if f"(docs/reproduce/{paper}/report.md)" in line and "|" in line)
        assert claims.removeprefix("Claims: ").rstrip(".") in row, (paper, claims, row)


def test_the_sites_home_page_is_the_readme() -> None:
    want = _script("docs_index").home_page(README.read_text())
    assert (REPO / "docs" / "index.md").read_text() == want, (
        "docs/index.md is stale: run `python scripts/docs_index.py`"
    )


# -- the site ---------------------------------------------------------------------------------


def _build(config: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(MKDOCS), "build", "--strict", "-f", str(config), "-d", str(out)],
        cwd=config.parent,
        capture_output=True,
        text=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
        timeout=600,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    p = _build(REPO / "mkdocs.yml", out)
    assert p.returncode == 0, p.stdout + p.stderr
    return out


def test_every_nav_page_is_built(site: Path) -> None:
    nav = yaml.safe_load((REPO / "mkdocs.yml").read_text())["nav"]

    def pages(items: Any) -> Iterator[str]:
        for item in items:
            for v in item.values():
                yield from pages(v) if isinstance(v, list) else [v]

    md = list(pages(nav))
    assert len(md) > 20
    for page in md:
        assert (site / page).with_suffix(".html").is_file(), page
    # The reproduce reports are in the site with their figures.
    for paper in PAPERS:
        assert (site / "reproduce" / paper / "report.html").is_file()
        assert list((site / "reproduce" / paper / "figures").glob("*.png"))


def test_a_broken_link_fails_the_strict_build(tmp_path: Path) -> None:
    """The site's own settings (strict, link validation) with a page that links to nothing."""
    cfg = yaml.safe_load((REPO / "mkdocs.yml").read_text())
    cfg = {k: v for k, v in cfg.items() if k not in ("nav", "plugins", "exclude_docs")}
    cfg["docs_dir"] = str(tmp_path / "docs")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\nSee [the other page](other.md).\n")
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(cfg))
    (tmp_path / "docs" / "other.md").write_text("# Other\n")
    good = _build(tmp_path / "mkdocs.yml", tmp_path / "out")
    assert good.returncode == 0, good.stderr
    (tmp_path / "docs" / "other.md").unlink()
    bad = _build(tmp_path / "mkdocs.yml", tmp_path / "out")
    assert bad.returncode != 0
    assert "other.md" in bad.stderr


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The site over HTTP on the loopback (the theme's search index does not load from file://)."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser() as b:
        yield b


@pytest.mark.parametrize(
    ("page", "text"),
    [
        ("index.html", "Reproduced papers"),
        ("api/flashpress.html", "flashpress.simulate"),
        ("reproduce/waltz/report.html", "fig12"),
    ],
)
def test_site_pages_render_in_chromium(browser: Browser, served: str, page: str, text: str) -> None:
    p = browser.open(f"{served}/{page}")
    assert p.errors() == []
    body = p.evaluate("document.body.innerText")
    assert text in body
    reason = blank_reason(p.screenshot())
    assert reason is None, reason
    # Every image of the page loaded (a figure the page names but the site lacks fails here).
    broken = p.evaluate("Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)")
    assert broken == []
    assert p.errors() == []


def test_the_api_page_documents_the_front_door(site: Path) -> None:
    html = (site / "api" / "flashpress.html").read_text()
    names = (
        "flashpress.simulate",
        "flashpress.estimate_memory",
        "flashpress.config.Config",
        "flashpress.result.Result",
    )
    for name in names:
        assert f'id="{name}"' in html, name
    # Generated from the docstring, not written here.
    from flashpress import simulate

    assert simulate.__doc__ is not None
    first = simulate.__doc__.strip().splitlines()[0]
    plain = re.sub(r"<[^>]+>", "", html)
    assert first.split("``")[0].strip()[:30] in plain
