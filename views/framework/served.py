"""The workarounds of ``views.framework.workarounds`` that concern the served app's sessions and
documents rather than HoloViews' drawing (its table lists them with their guard tests):
stylesheets from the server, a refresh that waits for the page's load instead of spinning, a
location that reads any link, standalone HTML resources. Import them from ``workarounds``. And
the Bokeh session behind a session's context (``server_session``), which Bokeh keeps private.
And how the page gets to the browser: only the script bundles its document uses
(``page_resources``), its scripts deferred so that the page's HTML paints first
(``deferred_scripts``), every response compressed (``compress_responses``)."""

from __future__ import annotations

import functools
import re

__all__ = ["served_stylesheets", "refresh_when_loaded", "tolerant_location_query",
           "standalone_resources", "server_session", "page_resources", "compress_responses",
           "MATH_LATER", "deferred_scripts"]


def served_stylesheets() -> None:
    """Point the current session's stylesheets at the server's copy of Panel's files.

    Panel decides where its models' stylesheets come from by the document's template variable
    ``dist_url``, which it sets only while it writes the HTML page of a GET request
    (``panel.io.server.server_html_page_for_session``); a model built in a document without it
    links cdn.holoviz.org. Bokeh discards a session nobody connected to within its unused-session
    lifetime (15 s by default) and, when the browser's websocket then arrives with the page's
    token, builds the session again without that GET: every stylesheet of the page it draws came
    from the CDN. Call this at the start of the app script, before any model is built; it sets the
    value Panel would set and leaves any other resource mode (``--resources cdn``) alone."""
    import panel as pn
    from panel.io.resources import get_dist_path, use_cdn

    doc = pn.state.curdoc
    if doc is None or doc.session_context is None or "dist_url" in doc._template_variables:
        return
    if not use_cdn():  # Panel's own test of the resource mode, and its own local path
        doc._template_variables["dist_url"] = get_dist_path(cdn=False)


def refresh_when_loaded(doc=None) -> None:
    """In the served document ``doc`` (default: the session being built), a HoloViews plot
    whose refresh has to wait for the page to load waits for it once, instead of on every
    tick of the event loop.

    ``Plot.refresh`` (``holoviews/plotting/plot.py``) runs only where Panel says the document
    is unblocked, which needs the browser's ``document_ready`` (``panel.io.state._connected``);
    otherwise it adds itself as a next-tick callback and tries again. A client that never
    says it is ready (a Python ``bokeh.client`` session, a tab closed while loading) made that
    a busy loop for as long as the server ran: each try waits for and holds the document lock,
    which blocks the session's expiry (Bokeh's ``_needs_document_lock``), so the session was
    never destroyed either, and ``_triggering`` grew with every trigger. Here such a refresh
    is handed to ``pn.state.onload`` instead (one per plot; what triggered it is kept, newest
    per stream): it draws when the page loads, and never if it never does, and the session
    expires as any other. No HoloViews class is changed: the session's document gets its own
    ``add_next_tick_callback``.

    No report of this loop was found among holoviz/holoviews's issues (the nearest:
    holoviz/holoviews#5348, "Ensure Plot.refresh is dispatched immediately if possible"); one
    should be filed with this reproduction (``panel serve mini.py``; the client then leaves
    the server at 100 % of a core, measured)::

        # mini.py
        import holoviews as hv, panel as pn
        s = hv.streams.Stream.define("S", x=0)()
        slider = pn.widgets.IntSlider(end=10)
        slider.param.watch(lambda e: s.event(x=e.new), "value")
        pn.Column(slider, pn.pane.HoloViews(
            hv.DynamicMap(lambda x: hv.Curve([0, x]), streams=[s]))).servable()

        # the client
        import panel.models  # the page's models
        from bokeh.client import pull_session
        from bokeh.models import Slider
        session = pull_session(url="http://localhost:5006/mini")
        next(m for m in session.document.models if isinstance(m, Slider)).value = 3
        session.force_roundtrip()
        session.close()
    """
    import weakref

    import panel as pn
    from bokeh.document import Document
    from bokeh.server.contexts import BokehSessionContext
    from holoviews.plotting.plot import Plot
    from panel.io.state import set_curdoc

    doc = pn.state.curdoc if doc is None else doc
    context = getattr(doc, "session_context", None) if doc is not None else None
    if not isinstance(context, BokehSessionContext) or "add_next_tick_callback" in vars(doc):
        return
    ref = weakref.ref(doc)  # the document holds this function: no cycle through it
    waiting: weakref.WeakSet = weakref.WeakSet()  # plots whose refresh waits for the load

    def refresh(plot_ref) -> None:
        plot, document = plot_ref(), ref()
        if plot is not None and document is not None and plot.document is document:
            waiting.discard(plot)
            plot.refresh()

    def add_next_tick_callback(callback):
        document = ref()
        if document is None:  # the document is gone: nothing to run anything on
            return None
        plot = getattr(callback, "__self__", None)
        if (not isinstance(plot, Plot) or getattr(callback, "__name__", "") != "refresh"
                or pn.state._connected.get(document)):
            return Document.add_next_tick_callback(document, callback)
        # the newest trigger of each stream (HoloViews adds one entry per try)
        plot._triggering = list({id(s): (s, m) for s, m in plot._triggering}.values())
        if plot not in waiting and document.session_context is not None:
            waiting.add(plot)
            with set_curdoc(document):
                pn.state.onload(functools.partial(refresh, weakref.ref(plot)))
        return None

    doc.add_next_tick_callback = add_next_tick_callback


def tolerant_location_query() -> None:
    """Let a served page's ``pn.state.location`` read any link.

    Panel's ``Location`` parses its address's query with ``panel.util.parse_query`` whenever
    it is built or moved, turning every value of digits into a number with ``int``: a value of
    more than 4,300 digits (Python's limit for ``int`` of text) or a digit ``int`` does not
    read (``?x=²``) raises ``ValueError`` out of the session's first ``pn.state.location``, and
    the page is blank. Here a query Panel cannot read is read one value at a time, a value
    Panel refuses kept as text (the app reads a link's settings from ``session_args``, through
    ``views.framework.knobs``, not from the ``Location``). Idempotent; for the served app's
    process (``app/main.py``), like ``served_stylesheets``. ``test_workarounds.py`` guards it."""
    import urllib.parse

    from panel.io import location

    original = location.parse_query
    if getattr(original, "ldx_tolerant", False):
        return

    def parse_query(query: str) -> dict:
        try:
            return original(query)
        except ValueError:
            parsed = {}
            for key, value in urllib.parse.parse_qsl(query[1:]):
                try:
                    parsed.update(original("?" + urllib.parse.urlencode({key: value})))
                except ValueError:
                    parsed[key] = value
            return parsed

    parse_query.ldx_tolerant = True
    location.parse_query = parse_query


# --- standalone HTML ------------------------------------------------------------------------


def standalone_resources():
    """Bokeh's inline resources for an exported figure, without external files.

    ``bokeh.resources.Resources`` adds the ``__javascript__`` and ``__css__`` files of every
    model class ever imported, used or not: once Panel is imported (the app calls
    ``pn.extension("katex")``), a plain Bokeh figure's "standalone" file asked for katex,
    es-module-shims under ``static/`` and MathJax from a CDN, which fail offline. An exported
    figure holds Bokeh's own models only, whose code is inline."""
    from bokeh.resources import Resources

    class StandaloneResources(Resources):
        def _collect_external_resources(self, resource_attr) -> list[str]:
            return []

        def clone(self, *, components=None):  # Bokeh's bundler clones the resources
            return StandaloneResources(mode="inline", components=components if components
                                       is not None else list(self.components))

    return StandaloneResources(mode="inline")


def server_session(context):
    """The Bokeh ``ServerSession`` behind a session's context (``doc.session_context``): None
    while the session is being built. Bokeh keeps the link private
    (``BokehSessionContext._session``); ``views.framework.session`` reads its connections."""
    return context._session


# --- the page's HTML and its files ------------------------------------------------------------

#: A document template variable: set (to True) by a page whose text may hold math after its
#: first answer (an explorer's page, its plots and text put in later), so that its HTML loads
#: MathJax although the document does not hold math yet (``page_resources``).
MATH_LATER = "ldx_math_later"

#: What MathJax typesets in a Panel HTML or Markdown model's text (Bokeh's ``MathJax.find_tex``
#: delimiters: ``$$...$$``, ``\\(...\\)``, ``\\[...\\]``).
_TEX = ("$$", "\\(", "\\[")


def _uses_mathjax(doc) -> bool:
    """Whether the document's page needs Bokeh's MathJax bundle: a model Bokeh itself says
    needs it (a math text, a TeX axis label), a Panel HTML model whose text holds TeX, or a
    page that said its math comes later (``MATH_LATER``). Panel loads it for any Panel HTML
    model at all (``panel.io.resources._panel_use_mathjax``): every page, 1.79 MB."""
    from bokeh.embed.bundle import _use_mathjax
    from panel.models.markup import HTML

    if doc.template_variables.get(MATH_LATER):
        return True
    models = set(doc.models)
    return _use_mathjax(models) or any(
        isinstance(m, HTML) and isinstance(m.text, str) and any(t in m.text for t in _TEX)
        for m in models)


def _unused_files(doc, attr: str) -> set[str]:
    """The external files (``__javascript__`` or ``__css__``, without their query) of every
    model class loaded in the process but not used in ``doc``: Bokeh lists the files of every
    imported class, used or not (KaTeX's, once ``pn.extension("katex")`` imported it; the
    ES-module shims of Panel's ``ReactiveESM``; Tabulator's and luxon once something imports
    Panel's Tabulator)."""
    from bokeh.model import Model

    used = {type(m) for m in doc.models}

    def files(cls) -> list[str]:
        value = getattr(cls, attr, None) or []
        return [value] if isinstance(value, str) else [f for f in value if isinstance(f, str)]

    needed = {f.split("?")[0] for cls in used for f in files(cls)}
    return {f.split("?")[0] for cls in set(Model.model_class_reverse_map.values()) - used
            for f in files(cls)} - needed


def _pruned(resources, doc):
    """``resources`` (Panel's ``Resources`` of a served page) without the Bokeh components and
    external files the page ``doc`` does not use: ``bokeh-mathjax`` without math
    (``_uses_mathjax``), the files of model classes not in the document (``_unused_files``).
    The other components stay: ``bokeh-gl`` and ``bokeh-widgets`` because a page's plots and
    widgets come after its first answer (HoloViews draws with WebGL by default),
    ``bokeh-tables`` because Panel's own bundle imports it (without it ``panel.min.js``
    fails: "Cannot find module '@bokehjs/models/widgets/tables'", seen in Chromium)."""
    from panel.io.resources import Resources

    drop = set() if _uses_mathjax(doc) else {"bokeh-mathjax"}
    unused_js, unused_css = _unused_files(doc, "__javascript__"), _unused_files(doc, "__css__")

    def used(files: list, unused: set) -> list:
        return [f for f in files if not any(u in str(f) for u in unused)]

    class PageResources(Resources):
        @property
        def js_files(self):
            return used(super().js_files, unused_js)

        @property
        def css_files(self):
            return used(super().css_files, unused_css)

        def clone(self, *, components=None):  # Panel's bundle clones the resources
            copy = super().clone(components=components)
            copy.__class__ = PageResources
            return copy

    page = resources.clone(components=[c for c in resources.components if c not in drop])
    page.__class__ = PageResources
    return page


#: The inline scripts of a page's head that call BokehJS, once deferred: run once the
#: document is parsed (the deferred bundles have run by then, in order).
_INLINE = re.compile(r'(<script type="text/javascript">)(\s*Bokeh\.[^<]*?)(</script>)')
_SCRIPT_SRC = re.compile(r'<script type="text/javascript" src=')


def deferred_scripts(page: str) -> str:
    """A page's HTML (Panel's template) with every script file deferred and the inline calls
    of BokehJS in its head (``Bokeh.set_log_level``) waiting for the document's
    ``DOMContentLoaded``: the browser paints the template's HTML (the header, the sidebar's
    place) before it runs some 4 MB of scripts. The page's embed script already waits for
    ``DOMContentLoaded``, by which time the deferred scripts have run in their order."""
    page = _SCRIPT_SRC.sub('<script type="text/javascript" defer src=', page)
    return _INLINE.sub(lambda m: m.group(1) + "document.addEventListener('DOMContentLoaded', "
                       "() => {" + m.group(2) + "});" + m.group(3), page)


def page_resources() -> None:
    """Serve each page with only the script bundles and style sheets its document uses
    (``_pruned``) and its scripts deferred (``deferred_scripts``). Panel writes a page's HTML
    in ``panel.io.server.server_html_page_for_session``, which its ``DocHandler`` calls by
    its module's name for each GET: that function is wrapped here. Idempotent; for the
    served app's process (``app/app_hooks.py``)."""
    from panel.io import server

    original = server.server_html_page_for_session
    if getattr(original, "ldx_pruned", False):
        return

    @functools.wraps(original)
    def server_html_page_for_session(session, resources, *args, **kwargs):
        return deferred_scripts(original(session, _pruned(resources, session.document),
                                         *args, **kwargs))

    server_html_page_for_session.ldx_pruned = True
    server.server_html_page_for_session = server_html_page_for_session


def compress_responses() -> None:
    """Make the Bokeh server compress its responses (Tornado's ``compress_response``
    setting: gzip for a client that accepts it, for HTML, scripts, style sheets and JSON):
    the page's 3-4 MB of scripts go as about a third. ``panel serve`` has no option for it;
    Bokeh passes the keyword arguments it does not know to Tornado's ``Application``, so the
    server's class gets it as a default here. Call before the server is built: at the import
    of ``app/app_hooks.py``, which Bokeh runs while it reads the app's directory."""
    from bokeh.server.tornado import BokehTornado

    init = BokehTornado.__init__
    if getattr(init, "ldx_compressed", False):
        return

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("compress_response", True)
        init(self, *args, **kwargs)

    __init__.ldx_compressed = True
    BokehTornado.__init__ = __init__
