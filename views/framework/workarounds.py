"""Everything the explorers do around HoloViews', Bokeh's and Panel's defaults: what each buys,
and the test in ``tests/views/test_workarounds.py`` that fails when a release breaks it. This
module holds the model's side (HoloViews and Bokeh, no Panel); the ones on widgets, panes and
the served page's document (``one_graph_walk``, ``prompt_widget``, ``snap_from_browser``,
``steady_text``, ``Text``) are in ``views.framework.page_workarounds``, the sessions' in
``views.framework.served``; the table lists them all.

Importing ``views`` changes no global state of HoloViews, Bokeh or param: the backends are loaded
on first use (``bokeh_backend``, ``matplotlib_backend``) with HoloViews' current backend put back
afterwards, our element type is an addition (``RasterImage``), and the column-format speedup is
scoped to the page's own element building (``dictionary_columns``).

| workaround | buys | guarded by |
| --- | --- | --- |
| ``RasterImage`` | skips the ``nodata`` compositor's DynamicMap wrapper: ~20 % of a herding redraw | no compositor runs during a move |
| ``apply_options`` memo | reuses option trees: ~20 % of a redraw went to ``.opts`` | memoized styling equals ``.opts`` |
| ``dictionary_columns`` | dict-of-arrays columns instead of pandas: several ms per element per redraw | elements built in it are dictionary-backed |
| ``render_matplotlib`` | no layout refit by repeated redraws: export about 3x faster; no full draw of the figure per colour bar (the axes' aspects applied instead): the 8-panel PMD gallery figure 19.8 -> 10.6 s, the same pixels | ``LayoutPlot.v17_layout_format`` still exists; a layout with colour bars is drawn no time and its bars sit where HoloViews' full draws put them |
| ``tight_canvas`` | an animation draws its frames on the canvas of the saved (tight) figure, moving only the timeline's marks: a 100-frame herding GIF in seconds, not minutes | an animation's frame equals the PNG export at its time (``test_animate.py``) |
| ``one_graph_walk`` | one walk of the Bokeh document's model graph per knob move instead of one per updated plot (30-60 ms each): a herding move in a served document 5-6 walks -> 1-2, 457-591 ms -> 369-454 ms; none when no model was added or removed; around a served page's build (``app/main.py``) one walk instead of some 23, the server's answer to a page's GET 25-35 % sooner (herding 3.2 -> 2.5 s, Doeblin 4.4 -> 3.0 s) | a move recomputes the graph once, and not at all when it adds no model |
| ``WindowStream`` | a zoomable panel is not drawn again for the window it already shows: HoloViews triggered the window stream once each such plot was first drawn (herding's and torus's two panels, bifurcation's one: a second full draw of each, 0.16 s a panel in a 1.4 s herding build) and the browser reports the window back after every update that moved the axes; the browser's range callback is registered for it as for ``RangeXY`` | a page's build draws each windowed panel once, a reported window that is drawn redraws nothing, a zoom and the way back redraw; the stream gets the Bokeh range callback |
| ``no_pipeline`` | live panels' callbacks build elements without HoloViews' data pipeline: each clone, relabel or ``.opts`` otherwise records an operation object (``chain``, ``method``, ``factory``: some 200 param objects of a herding move's 318, each deep-copying its parameters), which only linked selections read | a panel's frame carries no recorded pipeline |
| ``snap_from_browser`` | a slider's float arrives from the browser already snapped to its step (0.9 + 0.01 comes as 0.9100000000000001): the server no longer sends the snapped value back, which during a burst of key presses arrived after newer presses and set the slider's title (and value) back to a stale one (SBEED γ: title 0.93 with the handle at 0.99) | no value goes back to the browser after a noisy float |
| ``prompt_widget`` | a slider's key press or drag reaches the explorer at once instead of after Panel's 50 ms debounce of every browser event: about 45 ms of each move as the user feels it (neuron stripes in Chromium: median 220 -> 160 ms) | Panel still debounces through ``Syncable._debounce`` |
| ``steady_text`` | a Markdown or HTML pane whose text changes sends only the text, not its stylesheets as new models: the browser no longer re-applies them after the content (a moved page's status line sat 12 px higher than a fresh load's: Bootstrap's paragraph margin won over Panel's), and such an update no longer makes the server walk the document's model graph | a text update sends no stylesheet, and the burst test's live == fresh screenshots |
| ``Text``, ``Alert`` | page text whose bare words look like addresses stays text: markdown-it's ``linkify`` (Panel's ``gfm-like`` preset) made herding's "(REPORT.md)" a link to ``http://report.md/``, an unrelated outside site | a word like an address renders without a link, and no module of the served page builds Panel's own Markdown or Alert pane (``tests/views/test_page_links.py``) |
| ``served_stylesheets`` | a session Bokeh builds anew when the browser connects (it discards a session whose page was sent but whose browser had not connected within 15 s: a loaded server, a class opening pages at once) loads Panel's stylesheets from the server, as the first one did, instead of from cdn.holoviz.org: offline such a page drew unstyled, with 13 failed requests | the rebuilt-session browser test in ``tests/app/test_server_lifecycle.py`` |
| ``refresh_when_loaded`` | a plot refreshed before its page has loaded in a browser (a Python ``bokeh.client`` session, which never says it has; a tab closed while loading) draws once when the page loads, instead of HoloViews retrying on every tick for good: twelve Python clients that moved a slider and closed left the server at 96-100 % of a core and their sessions were never destroyed (each try blocked their expiry); a test of 12 such clients: 99 % of a core 5-7 s after they closed, now 0 % (``tests/app/test_closed_sessions.py``) | unguarded, HoloViews still retries on every tick; guarded, no tick callback waits, one draw of the newest value on load; a destroyed session's plot is cleaned up and never drawn |
| ``page_resources`` | a served page's HTML lists only the bundles its document uses (Panel lists Bokeh's 1.79 MB MathJax for any HTML pane, and every imported model's files: KaTeX, ES-module shims), its scripts deferred so that the template's HTML paints before 3-4 MB of scripts run | the served page's HTML (``tests/views/test_page_resources.py``, ``tests/app/test_served_files.py``) and every page drawn whole needs no file left out |
| ``compress_responses`` | the server gzips what it sends (``panel serve`` has no option for Tornado's ``compress_response``): a page's scripts about a third of their size on the wire | a static file goes compressed to a client that accepts gzip, and only to it |
| ``standalone_resources`` | an HTML export that works offline: Bokeh's inline resources without the external files that every imported extension's models (Panel's katex, MathJax) add | the offline export test in Chromium |
| ``SQUARE_BOX`` (bug) | exported panels with one log axis are square like the others (HoloViews sized them from mixed log and linear spans: a third as wide) | a log-x, linear-y export's axes box is square |
| ``COLORBAR_TITLE`` (bug) | a colour bar's title follows the data (HoloViews draws it once) | live == fresh test (torus q) |
"""

from __future__ import annotations

import contextlib
import functools
import threading

import holoviews as hv

__all__ = ["RasterImage", "bokeh_backend", "matplotlib_backend", "apply_options",
           "dictionary_columns", "no_pipeline", "WindowStream",
           "render_matplotlib", "matplotlib_plot", "tight_canvas",
           "served_stylesheets", "refresh_when_loaded", "tolerant_location_query",
           "standalone_resources", "page_resources", "compress_responses",
           "COLORBAR_TITLE", "SQUARE_BOX"]


class RasterImage(hv.Image):
    """An ``hv.Image`` under a name of its own, drawn by the same plotting classes with the same
    default options, so that HoloViews' ``nodata`` compositor does not apply to it.

    That compositor matches elements by type name ("Image") and, when a live panel shows one,
    wraps the panel's DynamicMap in a second one that clones every frame and runs an operation
    on each image (it only acts when the ``nodata`` option is set, which these pages never
    use): about a fifth of a redraw of the herding page, which shows three images. Extension
    libraries register their own element types the same way (GeoViews' ``gv.Image``)."""


def _register_raster_image(backend: str) -> None:
    """Draw ``RasterImage`` on ``backend`` as HoloViews draws ``hv.Image``."""
    hv.Store.register({RasterImage: hv.Store.registry[backend][hv.Image]}, backend)
    tree = hv.Store.options(backend=backend)
    for group in ("style", "norm"):
        tree[RasterImage.__name__] = hv.Options(group, **tree.Image.groups[group].kwargs)


@contextlib.contextmanager
def _keeping_current_backend():
    """Loading a HoloViews backend makes it the current one: put the caller's back if it was
    loaded (HoloViews refuses options while its current backend is not loaded, so in a fresh
    process the first backend loaded stays current, as ``hv.extension`` would leave it)."""
    loaded = hv.Store.current_backend in hv.Store.renderers
    current = hv.Store.current_backend
    try:
        yield
    finally:
        if loaded:
            hv.Store.set_current_backend(current)


@functools.cache
def bokeh_backend() -> None:
    """Load HoloViews' Bokeh backend (the live page's), draw ``RasterImage`` there, and have
    the browser report a ``WindowStream``'s window as it reports a ``RangeXY``'s (HoloViews
    looks a stream's browser callback up by its exact type)."""
    with _keeping_current_backend():
        import holoviews.plotting.bokeh  # noqa: F401

        _register_raster_image("bokeh")
        callbacks = hv.streams.Stream._callbacks["bokeh"]
        callbacks[WindowStream] = callbacks[hv.streams.RangeXY]


@functools.cache
def matplotlib_backend() -> None:
    """Load HoloViews' matplotlib backend (for export), once, on first use: importing it costs
    about a second, which the server would otherwise pay at start before the first page."""
    with _keeping_current_backend():
        from holoviews.plotting import mpl  # noqa: F401

        _register_raster_image("matplotlib")


@functools.cache
def _fast_layout_plot():
    """HoloViews' matplotlib LayoutPlot without the aspect refit.

    It resizes a figure to fit aspects by redrawing it several times unless fig_inches is a
    tuple, which its option system turns into a list; figure() sets the size itself, so the
    refit is turned off, in a subclass (HoloViews' class is left as it is). This cuts export
    time about threefold.

    It also draws the whole figure once for every colour bar it adds (``_draw_colorbar`` calls
    ``fig.canvas.draw()`` to read where the bar's axes ended up): 12 full draws of the 8-panel
    PMD figure, 10.5 s of its 29.5 s build. The position it reads is the one the axes' aspect
    gives (this layout never moves axes at draw time otherwise), so while the layout is drawn,
    the figure's canvas applies the aspects instead of drawing (an attribute of that canvas
    alone, removed afterwards: HoloViews' classes are left as they are)."""
    from holoviews.plotting import mpl as hv_mpl

    def initialize_plot(self):
        figure = self.handles["fig"]
        canvas = figure.canvas

        def apply_aspects():
            for axes in figure.axes:
                axes.apply_aspect()

        canvas.draw = apply_aspects
        try:
            return hv_mpl.LayoutPlot.initialize_plot(self)
        finally:
            del canvas.draw

    return type("FastLayoutPlot", (hv_mpl.LayoutPlot,),
                {"v17_layout_format": False, "initialize_plot": initialize_plot})


def render_matplotlib(obj):
    """``hv.render(obj, backend="matplotlib")``, with ``_fast_layout_plot`` for a Layout."""
    matplotlib_backend()
    if not isinstance(obj, hv.Layout):
        return hv.render(obj, backend="matplotlib")
    return matplotlib_plot(obj).state


def matplotlib_plot(obj):
    """The HoloViews plot drawing ``obj`` with matplotlib, drawn (its figure is ``.state``;
    its subplots hold the artists of each element: an animation moves them), with
    ``_fast_layout_plot`` for a Layout."""
    matplotlib_backend()
    renderer = hv.renderer("matplotlib")
    if not isinstance(obj, hv.Layout):
        return renderer.get_plot(obj)
    plot = _fast_layout_plot()(obj, renderer=renderer)
    plot.update(tuple(plot.keys[0]) if plot.keys else ())
    return plot


def forget_colorbars(figure) -> None:
    """Drop ``figure``'s colour bars from HoloViews' record of them, once it is closed.

    HoloViews' matplotlib ``ColorbarPlot`` records every colour bar it draws in a dict on the
    class (``ColorbarPlot._colorbars``, keyed by the ``id`` of the plot's axes, holding the bar's
    axes and artist) and never removes them: every exported figure with a colour bar stayed
    alive, 25-30 MB a herding PNG, for the life of the server (and a later axes that reuses
    the ``id`` would find a stranger's bars). ``test_workarounds.py`` guards it."""
    from holoviews.plotting.mpl.element import ColorbarPlot

    bars = ColorbarPlot.__dict__.get("_colorbars")
    if not isinstance(bars, dict):
        return
    for key, (entries, _position) in list(bars.items()):
        if any(cax.figure is figure or cax.figure is None for _a, cax, _s, _l in entries):
            del bars[key]


def tight_canvas(figure, box) -> None:
    """Make ``figure``'s canvas the box ``box`` (inches, a matplotlib ``Bbox``) of it, as
    ``savefig(bbox_inches="tight")`` does for the time of one save, for good: an animation
    draws every frame on the canvas of a saved figure (its title is above the figure's own
    box), moving only what changes. Matplotlib's helper for ``bbox_inches`` is private
    (``matplotlib._tight_bbox.adjust_bbox``): an animation's frame equal to the saved PNG
    (``tests/views/test_animate.py``) guards it."""
    from matplotlib import _tight_bbox

    _tight_bbox.adjust_bbox(figure, box, figure.canvas.get_renderer(), figure.canvas.fixed_dpi)


# --- option trees --------------------------------------------------------------------------

#: Option trees already built, by (element type, its current options id, backend, options): the
#: value is a tiny stand-in object that holds the tree's id, so HoloViews keeps the tree alive.
#: Styling constants only (no session state), bounded by ``_STYLE_CACHE_SIZE`` (options that
#: follow the data, such as axis limits, make new entries): when full it starts afresh, since a
#: key names the id of the tree it was built on, and HoloViews reuses the ids of freed trees.
_STYLE_TREES: dict = {}
#: The option ids held in ``_STYLE_TREES``.
_STYLE_IDS: set = set()
_STYLE_CACHE_SIZE = 1024


def apply_options(element, backend: str, options: dict):
    """``element.opts(**options, backend=backend, clone=False)``, memoized.

    Every ``.opts`` call builds a fresh custom option tree and clears HoloViews' option-lookup
    cache, which made styling about a fifth of a redraw. Elements are built fresh for every draw
    with the same few option sets, so the tree built the first time is reused: the new element
    just takes its id (exactly what ``.opts`` would produce; an element whose current options
    did not come from here is styled the ordinary way).
    """
    if not options:
        return element
    text = repr(sorted(options.items()))
    # An option value whose repr is its address (a function, say) is not a stable key.
    key = None if " at 0x" in text else (type(element), element.id, backend, text)
    holder = _STYLE_TREES.get(key) if key is not None else None
    if holder is not None:
        element.id = holder.id
        return element
    known = element.id is None or element.id in _STYLE_IDS
    element = element.opts(**options, backend=backend, clone=False)
    if key is not None and known and element.id is not None:
        if len(_STYLE_TREES) >= _STYLE_CACHE_SIZE:
            _STYLE_TREES.clear()
            _STYLE_IDS.clear()
        holder = hv.core.dimension.LabelledData(None)
        holder.id = element.id
        _STYLE_TREES[key] = holder
        _STYLE_IDS.add(element.id)
    return element


# --- column format -------------------------------------------------------------------------

_DATATYPE_LOCK = threading.RLock()


@contextlib.contextmanager
def dictionary_columns():
    """Within it, elements hold their columns as plain dicts of NumPy arrays rather than
    pandas DataFrames (HoloViews' default): the same elements, at a fraction of the
    construction and range-finding cost on every redraw. HoloViews reads the preference from a
    class attribute, which is set for the block and put back after it (re-entrant; the pages
    build elements on one event loop)."""
    with _DATATYPE_LOCK:
        saved = hv.Dataset.datatype
        hv.Dataset.datatype = ["dictionary"] + [d for d in saved if d != "dictionary"]
        try:
            yield
        finally:
            hv.Dataset.datatype = saved


class WindowStream(hv.streams.RangeXY):
    """The visible window of a live panel with a cloud or a zoom: a ``RangeXY`` stream that
    does not wake its panel for a window the panel already shows.

    HoloViews triggers the stream once the plot is first drawn (a frame framed by ``xlim`` /
    ``ylim`` asks for its window back), and the browser reports the window after each update
    that moved the axes: each time the panel's callback recognises the window it drew and
    returns the same frame, which HoloViews then draws again in full (0.16 s of a 1.4 s herding
    page build per panel, herding's and torus's two panels and bifurcation's one; and once more
    per such panel after every knob move in the browser). ``redundant(x_range, y_range)``, set
    by the panel, says whether a window is the one drawn; such a trigger reaches no subscriber
    (HoloViews' ``Stream.trigger`` reads ``_subscribers`` right after ``_on_trigger``; the
    stream's values are updated all the same)."""

    def __init__(self, *args, **kwargs):
        self._ldx_mute = False
        self._ldx_redundant = None
        super().__init__(*args, **kwargs)

    @property
    def _subscribers(self):
        if self._ldx_mute:  # the trigger that asked: one read
            self._ldx_mute = False
            return []
        return self._ldx_subscribers

    @_subscribers.setter
    def _subscribers(self, value):
        self._ldx_subscribers = value

    def mute_when(self, redundant) -> None:
        """Skip triggers whose window ``redundant(x_range, y_range)`` says is drawn already."""
        self._ldx_redundant = redundant

    def _on_trigger(self):
        super()._on_trigger()
        redundant = self._ldx_redundant
        self._ldx_mute = bool(redundant is not None and redundant(self.x_range, self.y_range))


def no_pipeline(function):
    """``function`` run with HoloViews' data pipeline off (``holoviews.core.data.disable_pipeline``).

    Every Dataset method HoloViews wraps (clone, relabel, select, ``opts``...) records the call
    in the element's ``pipeline``, a chain of operation objects, so that linked selections can
    replay it on new data. HoloViews turns the recording off around a plot update but back on
    around a DynamicMap's callback; these pages never link selections, so their callbacks run
    without it (a herding move built some 200 operation objects, each deep-copying its
    parameters)."""
    from holoviews.core.data import disable_pipeline

    @functools.wraps(function)
    def wrapped(*args, **kwargs):
        with disable_pipeline():
            return function(*args, **kwargs)

    return wrapped


# --- a HoloViews bug ------------------------------------------------------------------------


class _ColorbarTitle:
    """Bokeh hook that keeps a colour bar's title equal to its colour dimension's label.

    HoloViews draws a colour bar once, with the first frame's label, and never updates its
    title: the torus page's bar kept "q = 13 points" after q moved to 43. Run on every frame
    (HoloViews calls hooks after each update). A named class, so that its repr is stable and
    ``apply_options`` can memoize the options that hold it."""

    def __call__(self, plot, element) -> None:
        if plot.clabel is not None:
            return
        # Handles "<prefix>colorbar" and "<prefix>color_dim" ("color_" for a mapped colour
        # option); color_dim is the first frame's dimension: look up its current label.
        for key, bar in list(plot.handles.items()):
            if not key.endswith("colorbar"):
                continue
            color_dim = plot.handles.get(key[: -len("colorbar")] + "color_dim")
            if isinstance(color_dim, hv.dim):
                color_dim = color_dim.dimension
            current = element.get_dimension(getattr(color_dim, "name", None))
            if current is not None and bar.title != current.pprint_label:
                bar.title = current.pprint_label

    def __repr__(self) -> str:
        return "views.framework.workarounds.COLORBAR_TITLE"


COLORBAR_TITLE = _ColorbarTitle()


class _SquareBox:
    """Matplotlib hook that draws a panel with one logarithmic axis in a square box.

    HoloViews' matplotlib backend sizes an axes with ``aspect='square'`` from the data spans,
    taking the log of one axis and not of the other: a log-x, linear-y panel came out a third
    as wide as its neighbours (the Perceptron cycling and Bayesian online pages' exports). The
    hook lets the box be square whatever the spans."""

    def __call__(self, plot, element) -> None:
        axis = plot.handles.get("axis")
        if axis is not None:
            axis.set_aspect("auto")
            axis.set_box_aspect(1.0)

    def __repr__(self) -> str:
        return "views.framework.workarounds.SQUARE_BOX"


SQUARE_BOX = _SquareBox()


# --- served pages --------------------------------------------------------------------------


# The served app's session and document workarounds, written in their own module.
from views.framework.served import (  # noqa: E402
    compress_responses, page_resources, refresh_when_loaded, served_stylesheets,
    standalone_resources, tolerant_location_query)
