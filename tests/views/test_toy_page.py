"""A new page, added as CONTRIBUTING.md says, gets the generic checks and a place in the app
with no other file changed (issue 46 item 2).

The test writes, in a temporary directory, a tiny engine package (``dynamics/toy/``: a random
walk with drift), a tiny page (``views/pages/toy/__init__.py``: four knobs, three plots named by
their methods, after them) and its text (``views/pages/toy/page.md``), makes them importable as
``dynamics.toy`` and ``views.pages.toy`` (the temporary folders join those packages' search
paths, as if the files stood in the repository), and registers the page with the line
CONTRIBUTING.md gives, ``views.register(ToyExplorer)``. Then the generic tests that every
registered page passes run on it (they are called, not copied): it builds, its knobs carry
labels, docs and bounds, its panels name its own methods, a change changes its plots, its
ignored knobs leave their panels alone, it exports PNG (matplotlib) and HTML, its text is read
from its Markdown file, a live page equals a fresh page opened at its URL after random moves,
and a third of the URL fuzz's links open it cleanly. Its URL goes out and comes back in, the
served app (``app/main.py``, loaded in-process) lists it in its menu and home page and builds
its page, and the server's start (``app/app_hooks.py``) draws it. The repository's files are the
same before and after, and the registration is undone at the end.
"""

from __future__ import annotations

import importlib
import importlib.util
import pathlib
import subprocess
import sys
import textwrap

import pytest

import dynamics
import views
import views.pages
from views import EXPLORERS

ROOT = pathlib.Path(__file__).resolve().parents[2]
SLUG = "toy"

#: ``dynamics/toy/__init__.py``: an engine as CONTRIBUTING.md asks (validated public function,
#: frozen result with the time axis first and the initial state as row 0, a ``_warmup``).
ENGINE = '''
"""A random walk with drift: x_t = x_{t-1} + drift + a standard normal step, x_0 = 0."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dynamics.checks import as_generator, check_count, check_in_range

__all__ = ["Walk", "walk"]


@dataclass(frozen=True)
class Walk:
    """The positions x_0 .. x_T (row 0: the start) and the steps x_t - x_{t-1}."""

    positions: np.ndarray
    steps: np.ndarray


def walk(steps: int, *, drift: float = 0.0, seed=None) -> Walk:
    """``steps`` steps of the walk from x_0 = 0."""
    steps = check_count("steps", steps, high=100_000)
    drift = check_in_range("drift", drift, -10.0, 10.0)
    moves = drift + as_generator(seed).standard_normal(steps)
    return Walk(positions=np.concatenate([[0.0], np.cumsum(moves)]), steps=moves)


def _warmup() -> None:
    walk(2, seed=0)
'''

#: ``views/pages/toy/__init__.py``: a page as CONTRIBUTING.md asks.
PAGE = '''
"""The toy page: a random walk with drift, its path, where it has been and its steps."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import param

from dynamics import toy
from views.framework import Explorer, Plot, style
from views.framework.cache import results_cache
from views.framework.text import prose
from views.pages.torus import TorusExplorer

PATH_DIMS = [hv.Dimension("t", label="step t"), hv.Dimension("x", label="position xₜ")]


@results_cache
def run_toy(seed: int, steps: int, drift: float) -> toy.Walk:
    return toy.walk(steps, drift=drift, seed=seed)


class ToyExplorer(Explorer):
    """A random walk with drift."""

    slug = "toy"
    title = "Toy walk"
    summary = "A random walk with drift: where it goes and where it has been."
    paper = TorusExplorer.paper  # no paper of its own: the torus page's, in the form pages declare
    figures = "none"
    text = prose(__file__, "page.md")

    seed = param.Integer(1, bounds=(0, 999), label="Seed", doc="Seed of the normal steps.")
    steps = param.Integer(400, bounds=(10, 4000), step=10, label="Steps T",
                          doc="Number of steps of the walk.")
    drift = param.Number(0.0, bounds=(-0.5, 0.5), step=0.05, label="Drift μ",
                         doc="What each step adds besides its normal number.")
    bins = param.Integer(20, bounds=(5, 60), label="Bins", doc="Bins of the histogram.")

    fields = ("seed",)
    example_change = {"seed": 2}
    bench_move = ("seed", list(range(101, 117)))

    def _compute(self) -> toy.Walk:
        return run_toy(self.seed, self.steps, float(self.drift))

    def path_plot(self):
        x = self.result().positions
        return style(hv.Curve((np.arange(len(x)), x), *PATH_DIMS), color="#1f77b4",
                     framewise=True)

    def visited_plot(self):
        counts, edges = np.histogram(self.result().positions, bins=self.bins)
        return style(hv.Histogram((edges, counts), kdims=[hv.Dimension("x", label="position x")],
                                  vdims=[hv.Dimension("count", label="steps at x")]),
                     color="#7f7f7f", framewise=True)

    def steps_plot(self):
        z = self.result().steps
        return style(hv.Scatter((np.arange(1, len(z) + 1), z),
                                hv.Dimension("t", label="step t"),
                                hv.Dimension("z", label="xₜ − xₜ₋₁")),
                     color="#d62728", framewise=True, bokeh=dict(size=3), mpl=dict(s=2))

    plots = (
        Plot(path_plot, title="Position xₜ", ignores=("bins",)),
        Plot(visited_plot, title="Positions visited"),
        Plot(steps_plot, title="Steps xₜ − xₜ₋₁", ignores=("bins",)),
    )
'''


#: ``views/pages/toy/page.md``: its text, beside it.
TEXT = r"""
### A random walk

Each step adds the drift $\mu$ and a standard normal number: $x_t = x_{t-1} + \mu + z_t$.
"""


def _repository_state() -> str | None:
    """The repository's changed and untracked files (``git status``), or None outside git."""
    try:
        done = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                              cwd=ROOT, capture_output=True, text=True, timeout=60)
    except OSError:
        return None
    return done.stdout if done.returncode == 0 else None


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """The toy page, written, imported and registered; afterwards, every trace of it gone."""
    assert SLUG not in EXPLORERS and SLUG not in dynamics.ENGINES
    before = _repository_state()
    root = tmp_path_factory.mktemp("toy")
    (root / "dynamics" / SLUG).mkdir(parents=True)
    (root / "dynamics" / SLUG / "__init__.py").write_text(textwrap.dedent(ENGINE))
    (root / "pages" / SLUG).mkdir(parents=True)
    (root / "pages" / SLUG / "__init__.py").write_text(textwrap.dedent(PAGE))
    (root / "pages" / SLUG / "page.md").write_text(TEXT)
    importlib.invalidate_caches()
    with pytest.MonkeyPatch.context() as patch:
        # as if the files stood in dynamics/ and views/pages/
        patch.setattr(dynamics, "__path__", [*dynamics.__path__, str(root / "dynamics")])
        patch.setattr(views.pages, "__path__", [*views.pages.__path__, str(root / "pages")])
        module = importlib.import_module(f"views.pages.{SLUG}")
        try:
            views.register(module.ToyExplorer)  # the one line CONTRIBUTING.md asks for
            yield module.ToyExplorer
        finally:
            EXPLORERS.pop(SLUG, None)
            for name in (f"views.pages.{SLUG}", f"dynamics.{SLUG}"):
                sys.modules.pop(name, None)
            for package in (views.pages, dynamics):
                if SLUG in vars(package):
                    delattr(package, SLUG)
    assert SLUG not in EXPLORERS
    assert before is None or _repository_state() == before, "the toy page changed a file"


def test_the_toy_page_is_registered_last_and_named_by_its_slug(toy):
    assert list(EXPLORERS)[-1] == SLUG and EXPLORERS[SLUG] is toy
    assert toy.__module__ == f"views.pages.{SLUG}"
    assert importlib.import_module(f"dynamics.{SLUG}").__file__.endswith(f"{SLUG}/__init__.py")
    with pytest.raises(ValueError, match="already the page"):
        views.register(type("Other", (toy,), {}))  # a second page may not take the slug
    with pytest.raises(TypeError, match="Explorer"):
        views.register(object)


def test_the_toy_page_passes_the_generic_page_tests(toy, tmp_path):
    from . import test_declarations as declarations, test_explorers as generic

    generic.test_explorer_builds_with_defaults(SLUG)
    generic.test_every_knob_has_label_doc_and_bounds(SLUG)
    generic.test_parameter_change_changes_plotted_data(SLUG)
    generic.test_ignored_knobs_leave_their_panels_unchanged(SLUG)
    declarations.test_a_pages_declarations_name_its_own_methods(SLUG)
    for suffix in (".png", ".html"):
        with pytest.MonkeyPatch.context() as patch:
            generic.test_export_writes_valid_file(SLUG, suffix, tmp_path, patch)


def test_the_toy_pages_text_is_read_from_its_markdown_file(toy):
    from .test_prose import test_every_piece_of_prose_is_non_empty_and_read_from_a_markdown_file

    test_every_piece_of_prose_is_non_empty_and_read_from_a_markdown_file(SLUG)
    assert toy.text == TEXT.strip()


def test_the_toy_page_live_equals_fresh(toy):
    from .test_live_equals_fresh import test_live_page_equals_a_fresh_page_after_random_knob_moves

    test_live_page_equals_a_fresh_page_after_random_knob_moves(SLUG)


def test_the_toy_pages_url_goes_out_and_comes_back(toy):
    from ._url_fuzz import check_links

    explorer = toy(seed=7, steps=250, drift=-0.3, bins=9)
    query = explorer.query()
    assert query == {"seed": "7", "steps": "250", "drift": "-0.3", "bins": "9"}
    opened, messages = toy.from_query({k: [v.encode()] for k, v in query.items()})
    assert messages == [] and opened.query() == query
    assert [opened.result().positions[-1]] == [explorer.result().positions[-1]]
    check_links(SLUG, 0)  # a slice of the URL fuzz's links


def _app():
    """``app/main.py`` loaded in-process (it builds the home page, as outside a server)."""
    spec = importlib.util.spec_from_file_location("ldx_app_main_toy", ROOT / "app" / "main.py")
    main = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(main)
    return main


def _select(area, kind) -> list:
    """The panes of type ``kind`` in a template's area (its main or sidebar list)."""
    return [found for part in area for found in part.select(kind)]


def test_the_app_shows_the_toy_page(toy, monkeypatch):
    import panel as pn

    main = _app()
    menu = main.navigation("home").object
    assert f'href="?page={SLUG}">{toy.title}</a>' in menu
    assert f"[{toy.title}](?page={SLUG})" in main.home_text()
    home = main.build()
    cards = [o.object for o in _select(home.main, pn.pane.HTML)]
    assert any(f'href="?page={SLUG}"' in text and toy.title in text for text in cards)
    monkeypatch.setattr(main, "_page_name", lambda args: SLUG)
    page = main.build()
    assert page.title == f"{main.TITLE}: {toy.title}"
    menu = [o.object for o in _select(page.sidebar, pn.pane.HTML) if "ldx-menu" in o.object]
    assert menu and f"<b>{toy.title}</b>" in menu[0] and "ldx-nav ldx-current" in menu[0]
    plots = _select(page.main, pn.pane.HoloViews)
    assert len(plots) == len(toy.plots)


def test_the_server_warms_the_toy_page_at_start(toy, monkeypatch):
    spec = importlib.util.spec_from_file_location("ldx_hooks_toy", ROOT / "app" / "app_hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    monkeypatch.delenv("LDX_WARM_PAGES", raising=False)
    assert hooks.pages_to_warm()[-1] == SLUG
    views.warmup(SLUG)  # what the server's start does with it: one draw into a throwaway document
