"""The README's generated parts: the explorer table and the list of source papers, written from
the one declaration of each page (``views.EXPLORERS``: title, summary, ``paper`` and
``figures``), the papers' records (``dynamics.papers.PAPERS``) and the gallery's entries
(``views.figures.ENTRIES``).

``python -m views.readme`` rewrites, in README.md, the text between each pair of marker comments
(``<!-- begin generated: NAME ... -->`` and ``<!-- end generated: NAME -->``) and leaves the rest
as it is; ``--check`` only says whether they are fresh (exit status 1 when not), which the tests
check too (``tests/views/test_readme.py``).
"""

from __future__ import annotations

import pathlib
import re
import sys

from dynamics.papers import PAPERS
from views import EXPLORERS
from views.framework.text import CommandParser

__all__ = ["README", "PARTS", "explorer_table", "paper_list", "render", "main"]

#: The file the command rewrites.
README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def _text(text: str) -> str:
    """``text`` as Markdown shows it literally: the characters Markdown reads as emphasis, code,
    links, HTML or a table's cell border escaped, everything else (the source stays readable)
    as it is."""
    return "".join("\\" + c if c in "\\`*_[]<>|" else c for c in " ".join(str(text).split()))


def _entries() -> dict[str, list[str]]:
    """Each page's gallery entries (their ids), in the gallery's order."""
    from views.figures import ENTRIES

    ids: dict[str, list[str]] = {slug: [] for slug in EXPLORERS}
    for entry in ENTRIES.values():
        ids.setdefault(entry.slug, []).append(entry.id)
    return ids


def explorer_table() -> str:
    """The table of pages, in the app's order: title, what it shows (its summary) and what it
    reproduces (its paper and sections, with links to its gallery entries)."""
    entries = _entries()
    rows = ["| page | what it shows | reproduces |", "| --- | --- | --- |"]
    named = set()
    for slug, cls in EXPLORERS.items():
        paper = cls.paper
        source = _text(paper.short)
        if paper not in named:  # the first page of a paper names it in full
            source += f", *{_text(paper.title)}*"
            named.add(paper)
        gallery = ", ".join(f"[{_text(i)}](figures/index.html#{i})" for i in entries[slug])
        rows.append(f"| {_text(cls.title)} | {_text(cls.summary)} | {source}: "
                    f"{_text(cls.figures)}" + (f"; gallery: {gallery}" if gallery else "")
                    + " |")
    return "\n".join(rows)


def paper_list() -> str:
    """The source papers, one line each: its full reference, the pages that come from it and
    its gallery module (the sections each page reproduces are in the page table)."""
    items = []
    for paper in PAPERS:
        pages = [_text(cls.title) for cls in EXPLORERS.values() if cls.paper == paper]
        items.append(f"- {paper.reference}: {', '.join(pages) or 'no page yet'}; gallery "
                     f"entries in [`views/figures/{paper.key}.py`](views/figures/{paper.key}.py)")
    return "\n".join(items)


#: The generated parts by name: the text between their markers is what the function returns.
PARTS = {"explorers": explorer_table, "papers": paper_list}


def _markers(name: str) -> tuple[str, str]:
    return (f"<!-- begin generated: {name} (python -m views.readme; edit the pages, not this) -->",
            f"<!-- end generated: {name} -->")


def render(text: str) -> str:
    """``text`` (the README) with every generated part written anew; ``ValueError`` naming the
    part when its markers are missing, repeated or out of order."""
    for name, part in PARTS.items():
        begin, end = _markers(name)
        found = [m.start() for m in re.finditer(re.escape(begin), text)]
        ends = [m.start() for m in re.finditer(re.escape(end), text)]
        if len(found) != 1 or len(ends) != 1 or ends[0] < found[0]:
            raise ValueError(f"the README must hold the {name!r} markers once each, in order: "
                             f"{begin} ... {end}")
        text = text[:found[0]] + f"{begin}\n{part()}\n" + text[ends[0]:]
    return text


def main(argv=None) -> int:
    """``python -m views.readme [--check]``: rewrite README.md's generated parts, or with
    ``--check`` say whether they are fresh (exit status 1 when not, nothing written)."""
    parser = CommandParser(prog="python -m views.readme",
                           description="Write the README's generated parts (the explorer table "
                                       "and the source papers) from the pages' declarations.")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if a generated part is stale")
    args = parser.parse_args(argv)
    text = README.read_text(encoding="utf-8")
    fresh = render(text)
    if args.check:
        stale = fresh != text
        print("README.md: generated parts are " + ("stale: run python -m views.readme"
                                                   if stale else "fresh"))
        return 1 if stale else 0
    if fresh != text:
        README.write_text(fresh, encoding="utf-8")
        print("README.md: generated parts rewritten")
    else:
        print("README.md: generated parts already fresh")
    return 0


if __name__ == "__main__":
    sys.exit(main())
