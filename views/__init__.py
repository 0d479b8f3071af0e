"""Explorers of Learning Dynamics Explorer: param knobs -> HoloViews plots, page text, export.

``EXPLORERS`` maps each page's short name to its explorer class, one ``register`` line a page;
the app, the warm-up, the tests and the benches iterate over it. Each explorer is a page's model
(``views.framework.Model``, no Panel in it) with ``figure()`` (the current figure as a HoloViews
object) and ``export(path)`` (.png .svg .pdf .html); ``views.framework.Page(explorer)`` is its
served page.
"""

from __future__ import annotations

from views.pages.herding import HerdingExplorer
from views.pages.neuron import NeuronExplorer
from views.pages.torus import TorusExplorer
from views.pages.bifurcation import BifurcationExplorer
from views.pages.doeblin import DoeblinExplorer
from views.pages.pmd import PMDExplorer
from views.pages.sbeed import SBEEDExplorer
from views.pages.bayes import BayesExplorer
from views.pages.hbm import HBMExplorer
from views.pages.ising import IsingExplorer
from views.pages.pct import PCTExplorer
from views.pages.rbm import RBMExplorer
from views.pages.dsg import DSGExplorer
from views.pages.esgd import ESGDExplorer
from views.framework import Explorer, warmup_rasters

#: Short name -> explorer class, in the order of the app's navigation (``register``).
EXPLORERS: dict[str, type] = {}


def register(cls: type) -> type:
    """Add the page ``cls`` (an ``Explorer`` subclass) to ``EXPLORERS`` under its ``slug``,
    after the pages registered before it (the app's menu, home page and the generic tests
    follow this order). Everything else about the page is read from its class.

    Raises ``TypeError`` if ``cls`` is not an ``Explorer`` subclass and ``ValueError`` if its
    slug is not a lowercase Python name or is taken by another class. Returns ``cls``."""
    if not (isinstance(cls, type) and issubclass(cls, Explorer)):
        raise TypeError(f"cls must be a subclass of views.framework.Explorer, got {cls!r}")
    slug = cls.slug
    if not (isinstance(slug, str) and slug.isidentifier() and slug == slug.lower()
            and not slug.startswith("_")):
        raise ValueError(f"cls.slug must be a lowercase Python name (the name of its engine "
                         f"package dynamics/<slug>/), got {slug!r}")
    if EXPLORERS.get(slug, cls) is not cls:
        raise ValueError(f"cls.slug {slug!r} is already the page of {EXPLORERS[slug].__qualname__}")
    EXPLORERS[slug] = cls
    return cls


register(HerdingExplorer)
register(NeuronExplorer)
register(TorusExplorer)
register(BifurcationExplorer)
register(IsingExplorer)
register(PCTExplorer)
register(RBMExplorer)
register(DoeblinExplorer)
register(PMDExplorer)
register(SBEEDExplorer)
register(BayesExplorer)
register(HBMExplorer)
register(DSGExplorer)
register(ESGDExplorer)

__all__ = ["EXPLORERS", "register", "warmup", "warmup_rasters"]


def warmup(slug: str | None = None) -> None:
    """Build the page of ``slug`` (default: the first explorer) once, with its default knobs,
    into a throwaway Bokeh document: this pays every first-time cost of drawing that page
    (datashader's kernels, the plotting classes it uses, the default computation, which stays
    cached) before its first visitor. The server calls it at start for every page, one page at
    a time on its event loop, after ``dynamics.warmup()`` and ``warmup_rasters()`` have run in
    a background thread (see ``app/app_hooks.py``)."""
    from bokeh.document import Document

    from views.framework.page import Page

    if slug is None:
        slug = next(iter(EXPLORERS))
    if slug not in EXPLORERS:
        raise ValueError(f"slug must be one of {', '.join(EXPLORERS)}, got {slug!r}")
    Page(EXPLORERS[slug]()).panel().get_root(Document())
