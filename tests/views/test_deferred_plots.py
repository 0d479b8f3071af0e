"""A served page answers its request with its frame and draws its plots afterwards (issue 27
item 3): ``defer_plots`` builds the body with a frame in each plot's place (the plot's size,
its title, a loading sign) and no plot drawn; ``draw_deferred`` then puts the plots in their
places, one per turn of the server's loop (``post``), giving the page built at once."""

from __future__ import annotations

import html

import panel as pn
import pytest
from bokeh.document import Document
from bokeh.models import Plot

from views import EXPLORERS
from views.framework.page import Page


def _places(body) -> list:
    """The plots' places in the body, in order: live HoloViews panes and frames."""
    return [o for o in body.select(lambda o: isinstance(o, (pn.pane.HoloViews, pn.pane.HTML)))
            if isinstance(o, pn.pane.HoloViews) or "ldx-skeleton" in o.css_classes]


# rbm: its explorer has a method of its own named as the page's frame maker once was
@pytest.mark.parametrize("slug", ["neuron", "rbm"])
def test_a_deferred_page_shows_frames_then_its_plots_one_a_turn_in_their_places(slug):
    cls = EXPLORERS[slug]
    at_once = [pane.object for pane in _places(Page(cls()).panel())]
    explorer = cls()
    page = Page(explorer)
    page.defer_plots()
    body = page.panel()
    frames = _places(body)
    assert len(frames) == len(explorer.plots) == len(at_once)
    for frame, plot in zip(frames, explorer.plots):
        assert isinstance(frame, pn.pane.HTML) and frame.loading
        assert html.escape(plot.title) in frame.object
    assert list(body.get_root(Document()).select({"type": Plot})) == []  # nothing drawn
    posted, done = [], []
    page.draw_deferred(lambda callback, delay=0.0: posted.append(callback),
                       done=lambda: done.append(True))
    for drawn in range(1, len(frames) + 1):  # the first at once, then one per turn
        places = _places(body)
        assert [isinstance(p, pn.pane.HoloViews) for p in places] == (
            [True] * drawn + [False] * (len(frames) - drawn))
        assert len(posted) == (1 if drawn < len(frames) else 0)
        assert done == ([] if drawn < len(frames) else [True])  # told once, at the end
        if posted:
            posted.pop()()
    places = _places(body)
    assert [p.object.callback.callable.__qualname__ for p in places] == [
        o.callback.callable.__qualname__ for o in at_once]


def test_a_page_built_at_once_has_no_frame():
    explorer = EXPLORERS["torus"]()
    places = _places(Page(explorer).panel())
    assert places and all(isinstance(o, pn.pane.HoloViews) for o in places)
