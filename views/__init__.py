"""Explorers of Learning Dynamics Explorer: param knobs -> HoloViews plots, page text, export.

``EXPLORERS`` maps each page's short name to its explorer class; the app and the tests iterate
over it. Each explorer has ``figure()`` (the current figure as a HoloViews object), ``export(path)``
(.png .svg .pdf .html) and ``panel()`` (the page body).
"""

from __future__ import annotations

from views.pages.herding import HerdingExplorer
from views.pages.neuron import NeuronExplorer
from views.pages.torus import TorusExplorer
from views.pages.bifurcation import BifurcationExplorer
from views.pages.doeblin import DoeblinExplorer
from views.pages.pmd import PMDExplorer
from views.pages.sbeed import SBEEDExplorer
from views.pages.bayes import OnlineBayesExplorer
from views.pages.hbm import HBMExplorer
from views.pages.ising import IsingExplorer
from views.pages.pct import PCTExplorer
from views.pages.rbm import HiddenHerdingExplorer
from views.pages.dsg import DSGExplorer
from views.pages.esgd import EmbeddingSGDExplorer
from views.framework import warmup_rasters

#: Short name -> explorer class, in the order of the app's navigation.
EXPLORERS = {
    cls.slug: cls
    for cls in (HerdingExplorer, NeuronExplorer, TorusExplorer, BifurcationExplorer, IsingExplorer,
                PCTExplorer, HiddenHerdingExplorer, DoeblinExplorer, PMDExplorer, SBEEDExplorer,
                OnlineBayesExplorer, HBMExplorer, DSGExplorer, EmbeddingSGDExplorer)
}

__all__ = ["EXPLORERS", "warmup", "warmup_rasters"]


def warmup(slug: str | None = None) -> None:
    """Build the page of ``slug`` (default: the first explorer) once, with its default knobs,
    into a throwaway Bokeh document: this pays every first-time cost of drawing that page
    (datashader's kernels, the plotting classes it uses, the default computation, which stays
    cached) before its first visitor. The server calls it at start for every page, one page at
    a time on its event loop, after ``dynamics.warmup()`` and ``warmup_rasters()`` have run in
    a background thread (see ``app/app_hooks.py``)."""
    from bokeh.document import Document

    if slug is None:
        slug = next(iter(EXPLORERS))
    if slug not in EXPLORERS:
        raise ValueError(f"slug must be one of {', '.join(EXPLORERS)}, got {slug!r}")
    EXPLORERS[slug]().panel().get_root(Document())
