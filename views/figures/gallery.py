"""The gallery's entries, one module per source paper (``views/figures/<key>.py`` for each record
of ``dynamics.papers.PAPERS``), in the order the report lists them: the papers' order."""

from __future__ import annotations

import importlib

from dynamics.papers import PAPERS
from views.figures.entry import Entry

#: Every entry by id, paper by paper.
ENTRIES: dict[str, Entry] = {
    e.id: e for paper in PAPERS
    for e in importlib.import_module(f"views.figures.{paper.key}").ENTRIES}
