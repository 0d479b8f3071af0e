"""What one gallery entry is: a figure or table of a paper, drawn by an explorer page."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


@dataclass(frozen=True)
class Entry:
    """One figure or table of a paper, as an explorer draws it.

    ``slug`` names the page (``views.EXPLORERS``), ``knobs`` its settings for the paper's sizes
    (``quick`` shrinks them for tests and CI), ``runs`` the page's runs the figure needs and
    ``panels`` the page's panels that make it. ``judge(explorer)`` returns the entry's claim on
    the explorer's results: a ``dynamics.claims.Verdict`` from the claim function that the page
    calls too (the paper's statement, our numbers, the verdict). ``study(quick, seed,
    progress=)``, where the entry differs from the paper, returns ``dict(markdown=...,
    tables={name: csv})``: what was tried and what it changed, written to REPORT.md and
    ``<id>/DIFFERENCES.md``; a study with an ``explorer`` parameter is also given the
    explorer after its runs."""

    id: str
    slug: str
    title: str
    judge: Callable
    panels: tuple[str, ...]
    runs: tuple[str, ...] = ()
    knobs: dict = field(default_factory=dict)
    quick: dict = field(default_factory=dict)
    study: Callable | None = None

    def settings(self, quick: bool, seed: int | None) -> dict:
        knobs = dict(self.knobs)
        if quick:
            knobs.update(self.quick)
        if seed is not None:
            knobs["seed"] = seed
        return knobs
