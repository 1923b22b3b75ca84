"""The report as a document of blocks, rendered to Markdown (``report.md``) and to one
self-contained HTML page (``report.html``), so the two never say different things.

Text in a block is inline Markdown of a small, fixed subset: ```code```, ``**strong**``,
``*emphasis*``, ``[text](relative/path)`` and backslash escapes (``\\|`` in table cells). The
Markdown renderer writes it as it is; the HTML renderer converts that subset and escapes
everything else. The HTML page inlines each figure's SVG (its ids renamed per figure, so several
matplotlib figures can share one page, and its metadata dropped, so the page does not carry the
time a figure was drawn), sorts a table by the column whose header is clicked (a small inline
script; no external script, style sheet or font), colours each claim's row by its status and
links files by relative path. The same document gives the same bytes.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path

from flashpress.reproduce.claims import STATUSES


@dataclass(frozen=True)
class Heading:
    level: int
    text: str


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Quote:
    text: str


@dataclass(frozen=True)
class Items:
    """A bullet list; ``status`` gives a claim status per item (or is empty)."""

    items: tuple[str, ...]
    status: tuple[str | None, ...] = ()


@dataclass(frozen=True)
class Table:
    """A table of inline-Markdown cells; ``status`` gives a claim status per row (or is empty)."""

    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    status: tuple[str | None, ...] = ()


@dataclass(frozen=True)
class Figures:
    """A figure's files (paths relative to the report): PNGs shown in Markdown, SVGs inlined in HTML."""

    key: str
    files: tuple[str, ...]


Block = Heading | Paragraph | Quote | Items | Table | Figures


@dataclass
class Document:
    blocks: list[Block] = field(default_factory=list)

    def add(self, *blocks: Block) -> None:
        self.blocks.extend(blocks)

    def title(self) -> str:
        return next((strip_inline(b.text) for b in self.blocks if isinstance(b, Heading) and b.level == 1), "")

    def markdown(self) -> str:
        lines: list[str] = []
        for b in self.blocks:
            lines += _markdown(b)
            lines.append("")
        return "\n".join(lines) + "\n"

    def html(self, base: Path) -> str:
        """The page; ``base`` is the folder the report's relative paths start from (the SVGs are
        read from it)."""
        return _page(self, base)


# -- Markdown -------------------------------------------------------------------------------


def _markdown(b: Block) -> list[str]:
    if isinstance(b, Heading):
        return ["#" * b.level + " " + b.text]
    if isinstance(b, Paragraph):
        return [b.text]
    if isinstance(b, Quote):
        return [f"> {b.text}"]
    if isinstance(b, Items):
        return [f"- {i}" for i in b.items]
    if isinstance(b, Table):
        lines = ["| " + " | ".join(b.head) + " |", "|" + "|".join("---" for _ in b.head) + "|"]
        return lines + ["| " + " | ".join(r) + " |" for r in b.rows]
    pngs = [f"![{b.key}]({f})" for f in b.files if f.endswith(".png")]
    return [*pngs, *([""] if pngs else []), "Files: " + ", ".join(f"[{f}]({f})" for f in b.files)]


# -- inline Markdown to HTML ----------------------------------------------------------------

_INLINE = re.compile(
    r"`(?P<code>[^`]+)`"
    r"|\*\*(?P<strong>.+?)\*\*"
    r"|(?<![\w*])\*(?P<em>[^\s*](?:.*?[^\s*])?)\*(?![\w*])"
    r"|\[(?P<text>(?:\\.|[^\]\\])+)\]\((?P<href>[^)\s]+)\)"
    r"|\\(?P<escaped>[\\`*_|\[\]()#>-])"
)


def inline_html(text: str) -> str:
    """The subset of inline Markdown the report writes, as HTML; all other text escaped."""
    out, pos = [], 0
    for m in _INLINE.finditer(text):
        out.append(html.escape(text[pos : m.start()]))
        pos = m.end()
        if m["code"] is not None:
            out.append(f"<code>{html.escape(m['code'])}</code>")
        elif m["strong"] is not None:
            out.append(f"<strong>{inline_html(m['strong'])}</strong>")
        elif m["em"] is not None:
            out.append(f"<em>{inline_html(m['em'])}</em>")
        elif m["text"] is not None:
            out.append(f'<a href="{html.escape(_safe_href(m["href"]), quote=True)}">{inline_html(m["text"])}</a>')
        else:
            out.append(html.escape(m["escaped"]))
    out.append(html.escape(text[pos:]))
    return "".join(out)


def strip_inline(text: str) -> str:
    """The text of inline Markdown, without its markup."""
    return html.unescape(re.sub(r"<[^>]+>", "", inline_html(text)))


def _safe_href(href: str) -> str:
    """A link of the report: a relative path or an http(s) address; anything else is a bug."""
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", href) and not href.startswith(("http://", "https://")):
        raise ValueError(f"the report links {href!r}: only relative paths and http(s) addresses are allowed")
    return href


# -- SVG ------------------------------------------------------------------------------------

_PROLOG = re.compile(r"\A\s*(?:<\?xml[^>]*\?>\s*)?(?:<!DOCTYPE[^>]*>\s*)?", re.S)
_METADATA = re.compile(r"\s*<metadata>.*?</metadata>", re.S)
_ID = re.compile(r'(\sid=")([^"]+)(")')
_REF = re.compile(r'((?:xlink:)?href="#|url\(#)([^")]+)')


def inline_svg(svg: str, prefix: str, label: str) -> str:
    """An SVG file's text made fit to sit inside an HTML page among others: no XML prolog or
    metadata, every id ``PREFIX-N`` (in order of appearance) with the references to it renamed
    alike, the root given ``id=PREFIX`` (the file's own style rules scoped to it) and a label."""
    body = _METADATA.sub("", _PROLOG.sub("", svg, count=1), count=1)
    if not body.startswith("<svg"):
        raise ValueError(f"{label}: not an SVG file (it starts {body[:40]!r})")
    names: dict[str, str] = {}
    for m in _ID.finditer(body):
        names.setdefault(m[2], f"{prefix}-{len(names) + 1}")
    body = _ID.sub(lambda m: m[1] + names[m[2]] + m[3], body)
    body = _REF.sub(lambda m: m[1] + names.get(m[2], m[2]), body)
    body = body.replace('<style type="text/css">*{', f'<style type="text/css">#{prefix} *{{', 1)
    attrs = f'<svg id="{prefix}" class="figure" role="img" aria-label="{html.escape(label, quote=True)}"'
    return attrs + body[len("<svg") :].rstrip() + "\n"


# -- HTML -----------------------------------------------------------------------------------

CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: #1f2328;
  background: #fff; margin: 0; }
main { max-width: 1180px; margin: 0 auto; padding: 1.5em 2em 4em; }
h1 { font-size: 1.6em; line-height: 1.25; }
h2 { font-size: 1.3em; margin-top: 2em; padding-bottom: .2em; border-bottom: 1px solid #d0d7de; }
code { font: .9em ui-monospace, "DejaVu Sans Mono", monospace; background: #f3f4f6; padding: .1em .3em;
  border-radius: 3px; }
blockquote { margin: 1em 0; padding: .2em 1em; border-left: 4px solid #d0d7de; color: #57606a; }
nav ol { columns: 2; padding-left: 1.5em; }
.scroll { overflow-x: auto; margin: 1em 0; }
table { border-collapse: collapse; font-size: .86em; }
th, td { border: 1px solid #d0d7de; padding: .25em .5em; text-align: left; vertical-align: top; }
th { background: #f6f8fa; cursor: pointer; user-select: none; white-space: nowrap; position: sticky; top: 0; }
th:focus { outline: 2px solid #0969da; }
th[aria-sort="ascending"]::after { content: " \\25B2"; }
th[aria-sort="descending"]::after { content: " \\25BC"; }
figure { margin: 1em 0; }
svg.figure { max-width: 100%; height: auto; display: block; }
figure img { max-width: 100%; }
figcaption { font-size: .9em; color: #57606a; }
.status-holds { background: #dcf5e3; }
.status-fails { background: #fde2e1; }
.status-inconclusive { background: #fff3c4; }
.status-fitted { background: #e1ecfd; }
.status-not-run { background: #ececec; }
.status-by-construction { background: #efe4fb; }
.legend span { padding: .1em .5em; margin-right: .4em; border-radius: 3px; }
"""

#: Sorts a table by a column when its header is clicked (or Enter/Space on it): numbers as
#: numbers when every filled cell of the column starts with one, else text; empty and "-"
#: cells last either way; a second click reverses the order.
SCRIPT = """
(function () {
  "use strict";
  var NUMBER = /^[-+]?(?:\\d+\\.?\\d*|\\.\\d+)(?:e[-+]?\\d+)?/i;
  function text(row, i) {
    var cell = row.cells[i];
    return cell ? cell.textContent.trim() : "";
  }
  function sortBy(table, th, i) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    var keys = rows.map(function (row, n) {
      var t = text(row, i);
      var m = NUMBER.exec(t.replace(/,/g, ""));
      return { row: row, n: n, empty: t === "" || t === "-", text: t, num: m ? parseFloat(m[0]) : NaN };
    });
    var numeric = keys.every(function (k) { return k.empty || !isNaN(k.num); });
    keys.sort(function (a, b) {
      if (a.empty !== b.empty) { return a.empty ? 1 : -1; }
      var c = 0;
      if (!a.empty) {
        c = numeric ? a.num - b.num : a.text.localeCompare(b.text, undefined, { numeric: true });
        if (!ascending) { c = -c; }
      }
      return c || a.n - b.n;
    });
    keys.forEach(function (k) { body.appendChild(k.row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      th.tabIndex = 0;
      th.title = "Sort by this column";
      th.addEventListener("click", function () { sortBy(table, th, i); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, th, i); }
      });
    });
  });
}());
"""


def status_class(status: str | None) -> str:
    return "" if status is None else "status-" + re.sub(r"[^a-z0-9]+", "-", status.lower()).strip("-")


def _class_attr(status: str | None) -> str:
    c = status_class(status)
    return f' class="{c}"' if c else ""


def _slug(text: str, used: set[str]) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", strip_inline(text).split(":")[0].lower()).strip("-") or "section"
    slug, n = base, 1
    while slug in used:
        n += 1
        slug = f"{base}-{n}"
    used.add(slug)
    return slug


def _page(doc: Document, base: Path) -> str:
    used: set[str] = set()
    ids = [_slug(b.text, used) if isinstance(b, Heading) else "" for b in doc.blocks]
    sections = [(i, b) for i, b in zip(ids, doc.blocks, strict=True) if isinstance(b, Heading) and b.level == 2]
    body: list[str] = []
    for n, (b, anchor) in enumerate(zip(doc.blocks, ids, strict=True)):
        body.append(_html(b, anchor, base))
        if n == 0 and isinstance(b, Heading) and sections:
            legend = "".join(f'<span class="{status_class(s)}">{html.escape(s)}</span>' for s in STATUSES)
            links = "".join(f'<li><a href="#{i}">{inline_html(h.text)}</a></li>' for i, h in sections)
            body.append(f'<nav>\n<p class="legend">Claim status: {legend}</p>\n<ol>{links}</ol>\n</nav>')
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(doc.title())}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(body)
        + f"\n</main>\n<script>{SCRIPT}</script>\n</body>\n</html>\n"
    )


def _html(b: Block, anchor: str, base: Path) -> str:
    if isinstance(b, Heading):
        return f'<h{b.level} id="{anchor}">{inline_html(b.text)}</h{b.level}>'
    if isinstance(b, Paragraph):
        return f"<p>{inline_html(b.text)}</p>"
    if isinstance(b, Quote):
        return f"<blockquote><p>{inline_html(b.text)}</p></blockquote>"
    if isinstance(b, Items):
        status = b.status or (None,) * len(b.items)
        items = "".join(f"<li{_class_attr(s)}>{inline_html(i)}</li>\n" for i, s in zip(b.items, status, strict=True))
        return f"<ul>\n{items}</ul>"
    if isinstance(b, Table):
        status = b.status or (None,) * len(b.rows)
        head = "".join(f'<th scope="col">{inline_html(h)}</th>' for h in b.head)
        rows = "".join(
            f"<tr{_class_attr(s)}>" + "".join(f"<td>{inline_html(c)}</td>" for c in r) + "</tr>\n"
            for r, s in zip(b.rows, status, strict=True)
        )
        return (
            f'<div class="scroll"><table class="sortable">\n<thead><tr>{head}</tr></thead>\n'
            f"<tbody>\n{rows}</tbody>\n</table></div>"
        )
    return _figures(b, base)


def _figures(b: Figures, base: Path) -> str:
    svgs = [f for f in b.files if f.endswith(".svg")]
    shown: list[str] = []
    for n, f in enumerate(svgs):
        prefix = re.sub(r"[^A-Za-z0-9_-]+", "-", f"figure-{b.key}" + (f"-{n + 1}" if n else ""))
        shown.append(inline_svg((base / f).read_text(encoding="utf-8"), prefix, f"{b.key} ({f})"))
    if not svgs:
        pngs = [f for f in b.files if f.endswith(".png")]
        shown = [f'<img src="{html.escape(f, quote=True)}" alt="{html.escape(b.key, quote=True)}">' for f in pngs]
    links = ", ".join(f'<a href="{html.escape(f, quote=True)}">{html.escape(f)}</a>' for f in b.files)
    return f"<figure>\n{''.join(shown)}<figcaption>Files: {links}</figcaption>\n</figure>"


__all__ = ["Document", "Figures", "Heading", "Items", "Paragraph", "Quote", "Table", "inline_html", "inline_svg"]
