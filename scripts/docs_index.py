"""Write the documentation site's home page, docs/index.md, from README.md.

The README is the repository's front door and the site's home page says the same: its links
into ``docs/`` become links within the site. ``tests/python/test_docs.py`` checks the page is
current; after editing the README run ``python scripts/docs_index.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEADER = "<!-- written by scripts/docs_index.py from README.md; edit the README, then rerun it -->\n\n"


def home_page(readme: str) -> str:
    """docs/index.md for README text ``readme``."""
    text = readme.replace("](docs/", "](")
    text = text.replace(
        "`make docs` builds the site from `docs/` with MkDocs (Material theme); its pages, readable\nhere too:",
        "The pages of this site (`make docs` builds it from `docs/` with MkDocs, Material theme):",
    )
    return HEADER + text


def main() -> int:
    (ROOT / "docs" / "index.md").write_text(home_page((ROOT / "README.md").read_text()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
