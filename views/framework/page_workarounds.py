"""The workarounds of the served page's widgets, panes and document (Panel's side; the table of
every workaround, with what it buys and its guard test, is in ``views.framework.workarounds``):
one walk of the document's model graph per knob move (``one_graph_walk``), no debounce of a
knob's browser events (``prompt_widget``), slider floats snapped as they arrive
(``snap_from_browser``), text panes that send only their text (``steady_text``), Markdown
whose bare words never become links to outside sites (``Text``); and Panel's sliders told apart
by their private base class (``is_slider``). Used by
``views.framework.page`` and its collaborators and by ``app/main.py``."""

from __future__ import annotations

import contextlib

import panel as pn
import param

__all__ = ["drawn_plots", "one_graph_walk", "prompt_widget", "snap_from_browser", "steady_text", "Text",
           "Alert", "is_slider", "FIND_JS"]

#: A browser-side function ``find(root, selector)``: the first element matching ``selector``
#: under ``root``, looking inside shadow roots too (Panel draws every component in its own
#: shadow root, so ``document.querySelector`` finds none of the page's own elements).
FIND_JS = """
const find = (root, selector) => {
  const here = root.querySelector(selector);
  if (here) return here;
  for (const el of root.querySelectorAll('*')) {
    const inner = el.shadowRoot && find(el.shadowRoot, selector);
    if (inner) return inner;
  }
  return null;
};
"""


def is_slider(widget) -> bool:
    """Whether ``widget`` is one of Panel's sliders (of one value or a range, numbers or
    dates): their common base class has no public name."""
    return isinstance(widget, pn.widgets.slider._SliderBase)


def drawn_plots(pane) -> list:
    """The HoloViews plots a ``pn.pane.HoloViews`` drew, one per document it is shown in (a
    served page: one). Panel keeps them in the pane's ``_plots`` (root id -> (plot, Bokeh
    pane)) and has no public accessor; its own axis linking reads them the same way."""
    return [plot for plot, _ in getattr(pane, "_plots", {}).values()]


@contextlib.contextmanager
def one_graph_walk():
    """Within it, the session's Bokeh document walks its model graph at most once, at the end,
    and only if the graph changed.

    HoloViews' Bokeh plots freeze the document around each plot update
    (``holoviews.plotting.bokeh.util.hold_render``) and Bokeh walks every model of the document
    when the outermost freeze ends (``DocumentModelManager.recompute``), whether or not a model
    was added or removed. One knob move updates several plots, so without an outer freeze the
    whole page's graph is walked once per plot. A move that only writes new columns, ranges and
    labels into existing models adds or removes none: Bokeh itself asks for a walk
    (``invalidate``) whenever a property is set to a value that holds models, and the roots
    can change only by ``add_root``/``remove_root``; the walk runs at the end if either
    happened within the block, else not at all (a herding move: 1 walk -> 0, about 15 % of
    the server's time of a move). Outside a served session (no document) this does nothing."""
    import panel as pn

    doc = pn.state.curdoc
    models = getattr(doc, "models", None) if doc is not None else None
    if models is None or not all(hasattr(models, a) for a in
                                 ("_push_freeze", "_freeze_count", "invalidate", "recompute")):
        yield
        return
    asked = []
    original = models.invalidate

    def invalidate():
        asked.append(True)
        original()

    roots = list(doc.roots)
    models.invalidate = invalidate
    models._push_freeze()
    try:
        yield
    finally:
        del models.invalidate  # the class's method again
        models._freeze_count -= 1
        if models._freeze_count == 0 and (asked or list(doc.roots) != roots):
            models.recompute()


def prompt_widget(widget):
    """``widget`` with Panel's debounce of browser events turned off; returns it.

    Panel delays the processing of every change that arrives from the browser by
    ``Syncable._debounce`` (50 ms, ``panel.reactive.Syncable._server_change``) so that bursts
    are combined. A knob move is one event (the value; a throttled slider's ``value_throttled``
    follows in the same read of the socket and is combined all the same while the first is
    pending), so the wait is pure latency. Events that arrive while a redraw runs still queue
    up and are combined into one. Widgets without the attribute are returned unchanged."""
    if hasattr(type(widget), "_debounce"):
        widget._debounce = 0
    return widget


def snap_from_browser(widget, snap):
    """``widget`` with the values it receives from the browser passed through ``snap`` (a
    slider's float rounded to its step's decimals) before anything sees them; returns it.

    The explorer snaps every slider float (``views.framework.knobs.snap``), and Panel sends a
    value that differs from the one the browser sent back to it (``Reactive._update_model``:
    "differing values fall through so the Python update wins"). For a float off by rounding
    noise, that echo arrives after the newer key presses of a burst and sets the browser's
    slider to a stale value. Snapped here, in the dict of the event itself (Panel recognises a
    value that came from the browser by identity with that dict's), nothing goes back."""
    original = widget._process_property_change

    def process(props):
        for key in ("value", "value_throttled"):
            if props.get(key) is not None:
                props[key] = snap(props[key])
        return original(props)

    widget._process_property_change = process
    return widget



def steady_text(pane):
    """``pane`` (a Markdown or HTML pane whose text changes while the page is open) sending only
    its new text when the text changes; returns it.

    Panel answers a new ``object`` by setting every property of the pane's Bokeh model again
    (``PaneBase._update``: ``model.update(**self._get_properties(doc))``). In a served page its
    stylesheets then came back as new models and with three more than the page was built with
    (the Bootstrap design's ``bootstrap.min.css``, ``default.css`` and
    ``bootstrap_default.css``), which the browser applied after the pane's content: Bootstrap's
    ``p {margin-top: 0}`` took the 12 px above a herding page's status line away once a knob
    moved, so the moved page differed from the same address freshly opened (the burst test's
    live != fresh screenshots), and every text update made the server walk the document's model
    graph (``one_graph_walk``). A change of the pane's own ``stylesheets`` parameter still
    reaches the browser: Panel sends it from its parameter watcher, not from ``_update``."""
    if getattr(pane, "enable_streaming", False):
        return pane

    def update(ref, model):
        props = pane._get_properties(model.document)
        props.pop("stylesheets", None)
        model.update(**props)

    pane._update = update
    return pane


#: A verdict's rule and power (``views.framework.text.verdict_markdown``) folded at the end of
#: its line, not on a line of its own (30 px more above a 1024-px page's first plot): the
#: browser closes the paragraph before a ``<details>``, so that paragraph is made inline too.
RULE_CSS = """
details.ldx-rule, details.ldx-rule > summary, p:has(+ details.ldx-rule) { display: inline; }
details.ldx-rule > summary { cursor: pointer; color: #0072b5; }
details.ldx-rule > summary::before { content: "▸ "; }
details.ldx-rule[open] > summary::before { content: "▾ "; }
"""


class Text(pn.pane.Markdown):
    """The Markdown pane of every text the app shows: Panel's, with markdown-it's ``linkify``
    off.

    Panel renders Markdown with markdown-it's ``gfm-like`` preset, whose ``linkify`` turns a
    bare word that looks like an address into a link: a page's "(REPORT.md)" became a link to
    ``http://report.md/``, a site of Moldova's domain that has nothing to do with the app.
    With it off, a link is one the text writes (``[words](?page=herding)``), which
    ``tests/views/test_page_links.py`` checks goes to a page of the app, an anchor, or one of
    ``views.framework.text.OUTSIDE_LINKS``. (A user's text never links either way: ``plain``
    escapes its punctuation.)"""

    renderer_options = param.Dict(default={"linkify": False}, nested_refs=True, doc="""
        markdown-it's options: ``linkify`` off (see the class).""")

    stylesheets = param.List(default=[RULE_CSS], doc="""
        A verdict's folded rule and power stays on its line (``RULE_CSS``).""")


class Alert(pn.pane.Alert):
    """Panel's alert box (a Markdown pane) with ``linkify`` off, as ``Text``."""

    renderer_options = param.Dict(default={"linkify": False}, nested_refs=True, doc="""
        markdown-it's options: ``linkify`` off (see ``Text``).""")
