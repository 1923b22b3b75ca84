"""List every claim of each reproduced paper with its section or figure, kind and markings, and
count them: the seed's statements (by how they are scored) and our own checks.

    python scripts/claims_list.py [PAPER ...] [--markdown]

With no paper, every paper. Nothing is run: the claims are read from their packages.
"""

from __future__ import annotations

import argparse
import sys

from flashpress.reproduce.claims import Claim
from flashpress.reproduce.papers import PAPERS, get_paper


def _marks(c: Claim) -> str:
    marks = {"ours": c.ours, "fitted": c.fitted, "by construction": c.construction, "own tolerance": c.tolerance}
    return ", ".join(name for name, on in marks.items() if on)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("papers", nargs="*", metavar="PAPER", help=f"one of {', '.join(PAPERS)} (default: all)")
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables")
    args = ap.parse_args(argv)
    papers = args.papers or list(PAPERS)
    unknown = [p for p in papers if p not in PAPERS]
    if unknown:
        ap.error(f"unknown paper {unknown[0]!r} (expected one of: {', '.join(PAPERS)})")
    totals = []
    for key in papers:
        claims = get_paper(key).claims()
        seed = [c for c in claims if not c.ours]
        ours = [c for c in claims if c.ours]
        counts = {
            "statements": len(seed),
            "scored": sum(1 for c in seed if c.scored),
            "fitted": sum(1 for c in seed if c.fitted),
            "by construction": sum(1 for c in seed if c.construction),
            "baseline facts": sum(1 for c in seed if c.kind == "baseline_fact"),
            "ours": len(ours),
        }
        totals.append((key, counts))
        print(f"\n## {key}: {get_paper(key).title}\n" if args.markdown else f"\n{key}: {get_paper(key).title}")
        if args.markdown:
            print("| figure | kind | marks | statement |\n|---|---|---|---|")
        for c in claims:
            quote = c.seed.replace("|", "\\|")
            if args.markdown:
                print(f"| {c.figure} | {c.kind} | {_marks(c)} | {quote} |")
            else:
                print(f"  {c.figure:<14} {c.kind:<13} {_marks(c):<22} {quote}")
    print()
    for key, counts in totals:
        print(f"{key}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
