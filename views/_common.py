"""Shared machinery of the explorers: the ``Explorer`` base class, styling and export.

Every explorer is a ``param.Parameterized`` whose knobs are parameters with bounds, step, label and
doc. It implements ``_compute()`` (one call into ``dynamics``, cached per parameter set by a
module-level ``functools.lru_cache``) and a few plot methods that turn the computed result into
HoloViews elements. This module turns those into:

- ``figure()``: the whole current figure as one HoloViews ``Layout`` (static elements, dense point
  clouds rasterized), ready for either backend;
- ``export(path)``: PNG, SVG or PDF through the matplotlib backend, standalone HTML (inline
  resources) through Bokeh;
- ``panel()``: the page: controls, live ``DynamicMap`` plots that keep their zoom across updates,
  page text, download buttons, and an alert that shows a failing computation while the last good
  plot stays on screen.
"""

from __future__ import annotations

import contextvars
import functools
import io
import os
import re
import pathlib
import tempfile
from typing import ClassVar

import holoviews as hv
import holoviews.plotting.bokeh  # noqa: F401  (registers the Bokeh backend)
import numpy as np
import panel as pn
import param

hv.Store.set_current_backend("bokeh")
# Columns as plain dicts of NumPy arrays rather than pandas DataFrames: the same elements, at a
# fraction of the construction and range-finding cost on every redraw.
hv.Dataset.datatype = ["dictionary"] + [d for d in hv.Dataset.datatype if d != "dictionary"]


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


_register_raster_image("bokeh")


@functools.cache
def matplotlib_backend() -> None:
    """Load HoloViews' matplotlib backend (for export), once, on first use: importing it costs
    about a second, which the server would otherwise pay at start before the first page."""
    import matplotlib

    matplotlib.use("Agg")
    from holoviews.plotting import mpl as hv_mpl

    # HoloViews' matplotlib layouts resize the figure to fit aspects by redrawing it several
    # times unless fig_inches is a tuple, which its option system turns into a list: turn the
    # refit off, since figure() sets the size itself. This cuts export time about threefold.
    hv_mpl.LayoutPlot.v17_layout_format = False
    _register_raster_image("matplotlib")
    hv.Store.set_current_backend("bokeh")


__all__ = [
    "Explorer",
    "Plot",
    "RasterImage",
    "EXPORT_FORMATS",
    "DENSE_POINTS",
    "export_figure",
    "style",
    "dense",
    "count_points",
    "warmup_rasters",
    "parse_vector",
    "math_markdown",
    "matplotlib_backend",
]

#: Formats ``export`` writes, by file suffix.
EXPORT_FORMATS = (".png", ".svg", ".pdf", ".html")
#: In exported figures, point clouds larger than this are rasterized with datashader (a vector
#: PDF with 10^5 markers is slow to write and to open); on the live page clouds always are.
DENSE_POINTS = 5_000

#: Size of one plot panel on the page (pixels) and in exported figures (inches).
PLOT_WIDTH, PLOT_HEIGHT = 460, 400
FIG_INCHES = 4.2
#: Line styles for guide curves, per backend.
DASHED, DOTTED = {"line_dash": "dashed"}, {"line_dash": "dotted"}
MPL_DASHED, MPL_DOTTED = {"linestyle": "dashed"}, {"linestyle": "dotted"}


#: True while ``figure()`` builds elements for export: only then are matplotlib options applied
#: (the live page must redraw in under 150 ms, and needs only the Bokeh ones).
_EXPORTING = contextvars.ContextVar("ldx_exporting", default=False)


def exporting() -> bool:
    """Whether elements are being built for an exported figure (``figure()``, ``export``)
    rather than for the live page."""
    return _EXPORTING.get()


def style(element, *, bokeh: dict | None = None, mpl: dict | None = None, **common):
    """Apply options: ``common`` ones (logx, xlim, title, color, ...) to both backends, ``bokeh``
    ones to the live page only, ``mpl`` ones to exported figures only."""
    element = _apply_options(element, "bokeh", {**common, **(bokeh or {})})
    if _EXPORTING.get():
        matplotlib_backend()
        element = _apply_options(element, "matplotlib", {**common, **(mpl or {})})
    return element


#: Option trees already built, by (element type, its current options id, backend, options): the
#: value is a tiny stand-in object that holds the tree's id, so HoloViews keeps the tree alive.
#: Styling constants only (no session state), bounded by ``_STYLE_CACHE_SIZE`` (options that
#: follow the data, such as axis limits, make new entries): when full it starts afresh, since a
#: key names the id of the tree it was built on, and HoloViews reuses the ids of freed trees.
_STYLE_TREES: dict = {}
#: The option ids held in ``_STYLE_TREES``.
_STYLE_IDS: set = set()
_STYLE_CACHE_SIZE = 1024


def _apply_options(element, backend: str, options: dict):
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


#: Colour ramp of rasterized clouds: dark grey (one point in a pixel) to black (many).
CLOUD_CMAP = ["#505050", "#000000"]


def dense(points: hv.Points, *, threshold: int = DENSE_POINTS, x_range=None, y_range=None,
          cmap=CLOUD_CMAP, width: int = 400, height: int = 340):
    """A point cloud as it should be drawn: the points themselves when at most ``threshold``,
    else a datashader raster over ``x_range`` x ``y_range`` (default: the cloud's extent).

    Datashader is called directly (``Canvas.points``, one raster pixel per screen pixel of the
    plot frame), not through HoloViews' ``rasterize`` operation: the same picture at a tenth of
    the cost per update, which keeps a slider move under the 150 ms budget. The live page
    re-rasterizes on zoom (see ``Explorer.dynamic``).
    """
    if len(points) <= threshold:
        return points
    xdim, ydim = points.kdims[:2]
    x = points.dimension_values(0)
    y = points.dimension_values(1)
    if x_range is None or y_range is None:
        x_range = _padded(x)
        y_range = _padded(y)
    xs, ys, counts = count_points(x, y, x_range, y_range, width, height)
    image = RasterImage((xs, ys, counts), kdims=[xdim, ydim],
                        vdims=[hv.Dimension("count", label="points per pixel")])
    # Linear colour from dark grey (one point) to black (the most): histogram equalisation
    # degenerates to a blank raster when every pixel holds one point.
    return style(image, cmap=cmap, cnorm="linear", colorbar=False)


def count_points(x: np.ndarray, y: np.ndarray, x_range, y_range, width: int, height: int):
    """Datashader's count of the points (x, y) in each of ``width`` x ``height`` pixels over
    ``x_range`` x ``y_range``: the pixel centres along x and y, and the counts (float, shape
    ``(height, width)``, NaN where a pixel is empty, so it is drawn transparent).

    Touches no HoloViews or Bokeh object, so ``warmup_rasters`` can call it from a thread."""
    import datashader as ds
    import pandas as pd

    canvas = ds.Canvas(plot_width=width, plot_height=height, x_range=tuple(x_range),
                       y_range=tuple(y_range))
    counts = canvas.points(pd.DataFrame({"x": x, "y": y}), "x", "y", agg=ds.count())
    counts = counts.astype(float)
    counts = counts.where(counts > 0)
    return counts.coords["x"].values, counts.coords["y"].values, counts.values


def warmup_rasters() -> None:
    """Import datashader and compile its point-counting kernels (about 2.5 s on first use in a
    process; datashader generates them at run time, so Numba cannot cache them on disk). Safe to
    run in a background thread: it builds no HoloViews or Bokeh object."""
    cloud = np.random.default_rng(0).normal(size=(2, 100))
    count_points(cloud[0], cloud[1], (-3.0, 3.0), (-3.0, 3.0), 8, 6)


def _padded(values: np.ndarray) -> tuple[float, float]:
    """The range of ``values`` padded by 2% (and widened when it is a single value)."""
    lo, hi = float(np.min(values)), float(np.max(values))
    pad = 0.02 * (hi - lo) if hi > lo else max(abs(lo), 1.0) * 0.01
    return lo - pad, hi + pad


def parse_vector(name: str, text: str, size: int) -> tuple[float, ...]:
    """Parse a typed vector: one number (repeated ``size`` times) or ``size`` comma-separated numbers.

    Raises ``ValueError`` with a message meant for the page, never a traceback.
    """
    parts = [p for p in str(text).replace(";", ",").replace(" ", ",").split(",") if p]
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise ValueError(f"{name} must be numbers separated by commas, got {text!r}") from None
    if len(values) == 1:
        values = values * size
    if len(values) != size:
        raise ValueError(f"{name} needs 1 or {size} numbers, got {len(values)} in {text!r}")
    if not all(np.isfinite(values)):
        raise ValueError(f"{name} must be finite numbers, got {text!r}")
    return tuple(values)


_MATH = re.compile(r"\$\$(.+?)\$\$|(?<![\\$])\$(?!\$)(.+?)(?<![\\$])\$(?!\$)", re.S)
_MARKDOWN_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def _protect(tex: str) -> str:
    """LaTeX that survives Markdown: a backslash before punctuation (``\\,`` ``\\;`` ``\\{``) is
    a Markdown escape, so it is doubled; ``_`` and ``*`` are escaped so they never start
    emphasis; ``<`` and ``>`` would be read as HTML."""
    tex = _MARKDOWN_ESCAPE.sub(lambda m: "\\\\" + m.group(1), tex)
    tex = tex.replace("_", r"\_").replace("*", r"\*")  # never emphasis
    return tex.replace("<", r"\lt ").replace(">", r"\gt ")


def math_markdown(text: str) -> str:
    """Page text written with plain LaTeX (``$...$`` inline, ``$$...$$`` display) turned into
    what Bokeh's MathJax renders through Markdown: inline math in ``\\(...\\)`` delimiters."""

    def convert(m: re.Match) -> str:
        if m.group(1) is not None:
            return "$$" + _protect(m.group(1)) + "$$"
        return "\\\\(" + _protect(m.group(2)) + "\\\\)"

    return _MATH.sub(convert, text)


class Plot:
    """One panel of an explorer's figure.

    ``method`` names an explorer method returning the panel's HoloViews element (curves, images,
    annotations). ``cloud``, when given, names a method returning an ``hv.Points`` cloud drawn on
    top: on the live page it always goes through datashader (so a million points stay fast and
    zooming re-rasterizes), in exported figures only when larger than ``DENSE_POINTS``.
    """

    def __init__(self, method: str, *, title: str, cloud: str | None = None, zoom: bool = False,
                 ignores: tuple[str, ...] = (), depends: tuple[str, ...] | None = None):
        if ignores and depends is not None:
            raise ValueError("give a panel's ignores or its depends, not both")
        self.method = method
        self.title = title
        self.cloud = cloud
        #: Knobs the panel does not depend on (display settings of other panels): moving one
        #: of them leaves this panel as it is, so the live page does not redraw it.
        self.ignores = frozenset(ignores)
        #: Or, for pages with many knobs, the knobs it does depend on (None: every knob but
        #: ``ignores``). See ``Explorer.redraw_knobs``.
        self.depends = None if depends is None else tuple(depends)
        #: Zoom recomputes: ``method`` and ``cloud`` take ``x_range`` (the visible x window, or
        #: None for the full range) and compute that window at full resolution; the page adds
        #: a reset button.
        self.zoom = zoom


def export_figure(figure, path, *, title: str | None = None) -> pathlib.Path:
    """Write a HoloViews object to ``path``; the format follows the suffix.

    ``.png``, ``.svg`` and ``.pdf`` render through matplotlib (publication figures; PNG at 200 dpi);
    ``.html`` is a standalone interactive Bokeh file with inline resources (works offline).
    """
    path = pathlib.Path(path)
    suffix = path.suffix.lower()
    if suffix not in EXPORT_FORMATS:
        raise ValueError(
            f"path must end in one of {', '.join(EXPORT_FORMATS)}, got {str(path)!r}"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".html":
        # Plain Bokeh with inline BokehJS: a single file that works offline (saving through
        # Panel would link Panel's stylesheets from a CDN).
        from bokeh.embed import file_html
        from bokeh.resources import INLINE

        model = hv.render(figure, backend="bokeh")
        path.write_text(file_html(model, INLINE, title=title or path.stem), encoding="utf-8")
        return path
    matplotlib_backend()
    import matplotlib.pyplot as plt

    fig = hv.render(figure, backend="matplotlib")
    try:
        if title:
            fig.suptitle(title, fontsize=13, y=1.0, va="bottom")
        fig.savefig(path, bbox_inches="tight", dpi=200 if suffix == ".png" else None,
                    metadata=None if suffix == ".png" else {"Creator": "Learning Dynamics Explorer"})
    finally:
        plt.close(fig)
    return path


class Explorer(param.Parameterized):
    """Base class of every explorer page. Subclasses set the class attributes and implement
    ``_compute`` and the plot methods named in ``plots``."""

    #: Short name used in URLs and in ``views.EXPLORERS``.
    slug: ClassVar[str] = ""
    #: Page title.
    title: ClassVar[str] = ""
    #: One line for the home-page card.
    summary: ClassVar[str] = ""
    #: The paper the page comes from, and which figures it reproduces.
    paper: ClassVar[str] = ""
    figures: ClassVar[str] = ""
    #: Page text (Markdown with LaTeX): what the plot shows, the equations, what to try.
    text: ClassVar[str] = ""
    #: The panels of the figure, in reading order.
    plots: ClassVar[tuple[Plot, ...]] = ()
    #: Number of columns of the figure layout.
    columns: ClassVar[int] = 2
    #: Widget overrides for ``pn.Param`` (parameter name -> widget type or dict).
    widgets: ClassVar[dict] = {}

    error = param.String(default="", precedence=-1, doc="Message of the last failed computation.")

    def __init__(self, **params):
        super().__init__(**params)
        self._last_good = None
        #: The visible window of each panel with a cloud or a zoom (None: the full range),
        #: shared between the live page and export.
        self._view = {p.method: hv.streams.RangeXY(x_range=None, y_range=None)
                      for p in self.plots if p.zoom or p.cloud is not None}
        #: Rasterized clouds of the current result, by cloud and window (see ``_raster``).
        self._rasters: dict = {}

    # --- computation -------------------------------------------------------------------------
    def knob_names(self) -> list[str]:
        """The user-facing parameters (everything but ``name`` and ``error``)."""
        return [p for p in self.param if p not in ("name", "error") and self.param[p].precedence != -1]

    def redraw_knobs(self, plot: Plot) -> list[str]:
        """The knobs whose change redraws ``plot`` on the live page: its ``depends``, or every
        knob but its ``ignores``."""
        if plot.depends is not None:
            return list(plot.depends)
        return [k for k in self.knob_names() if k not in plot.ignores]

    def _compute(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def result(self):
        """The result for the current knobs; on failure, the last good one (and ``error`` is set)."""
        try:
            res = self._compute()
        except ValueError as exc:
            self.error = str(exc)
            if self._last_good is None:
                raise
            return self._last_good
        self.error = ""
        self._last_good = res
        return res

    # --- figure and export -------------------------------------------------------------------
    def _call(self, plot: Plot, method: str, x_range=None):
        return getattr(self, method)(x_range=x_range) if plot.zoom else getattr(self, method)()

    def element(self, plot: Plot):
        """The static element of one panel, as the page shows it: clouds rasterized over the
        visible window (only when dense), zoomable plots computed for their window."""
        view = self._view.get(plot.method)
        if view is not None:
            element = self._windowed(plot, view.x_range, view.y_range, threshold=DENSE_POINTS)
        else:
            element = getattr(self, plot.method)()
        return style(element, title=plot.title,
                     bokeh=dict(width=PLOT_WIDTH, height=PLOT_HEIGHT))

    def _windowed(self, plot: Plot, x_range=None, y_range=None, *, threshold: int = 0):
        """A panel for the visible window: a zoomable plot is recomputed for x_range at full
        resolution; its cloud is rasterized over x_range x y_range (its extent when None)."""
        element = self._call(plot, plot.method, x_range)
        if plot.cloud is not None:
            element = element * self._raster(plot, x_range, y_range, threshold)
        return element

    def _raster(self, plot: Plot, x_range, y_range, threshold: int):
        """The cloud of ``plot`` as ``dense`` draws it, computed once per result and window:
        panels sharing a cloud (the herding page's cones and Tipi) rasterize it once per move."""
        both = x_range is not None and y_range is not None
        window = (x_range, y_range) if both else (None, None)
        # A zoomable plot's cloud is recomputed for its x window, so the window is in the key.
        key = (plot.cloud, x_range if plot.zoom else None, window, threshold, _EXPORTING.get())
        result = self.result()
        memo = self._rasters.get(key)
        if memo is not None and memo[0] is result:
            return memo[1]
        cloud = self._call(plot, plot.cloud, x_range)
        raster = dense(cloud, threshold=threshold, x_range=window[0], y_range=window[1])
        self._rasters = {k: v for k, v in self._rasters.items() if v[0] is result}
        self._rasters[key] = (result, raster)
        return raster

    def figure(self) -> hv.Layout:
        """The whole current figure as one static HoloViews Layout (for export and headless use)."""
        matplotlib_backend()
        token = _EXPORTING.set(True)
        try:
            layout = hv.Layout([self.element(p) for p in self.plots]).cols(self.columns)
        finally:
            _EXPORTING.reset(token)
        rows = -(-len(self.plots) // self.columns)
        return layout.opts(sublabel_format="", fig_inches=(FIG_INCHES * self.columns, 3.6 * rows),
                           hspace=0.35, vspace=0.45, backend="matplotlib")

    def export(self, path) -> pathlib.Path:
        """Write the current figure; the format follows the suffix (.png .svg .pdf .html)."""
        return export_figure(self.figure(), path, title=self.title)

    def export_bytes(self, suffix: str) -> io.BytesIO:
        """The exported figure as bytes (for the page's download buttons)."""
        with tempfile.TemporaryDirectory() as tmp:
            out = self.export(os.path.join(tmp, f"{self.slug}{suffix}"))
            return io.BytesIO(out.read_bytes())

    # --- the page ----------------------------------------------------------------------------
    def dynamic(self, plot: Plot) -> hv.DynamicMap:
        """A DynamicMap of one panel, recomputed when a knob it depends on changes
        (``redraw_knobs``); zoom survives updates.

        Panels with a cloud or a zoomable window are one DynamicMap that also follows the
        visible ranges: a zoom re-rasterizes the cloud over the window (and recomputes a
        zoomable plot there), all in one callback, which is much cheaper per update than a
        chain of datashader DynamicMaps.
        """
        knobs = hv.streams.Params(self, self.redraw_knobs(plot))
        view = self._view.get(plot.method)
        page_style = functools.partial(self.page_style, plot)
        # cache_size=1: every frame comes from new knobs or a new window; older ones are never
        # shown again.
        if view is None:
            return hv.DynamicMap(lambda **_: page_style(getattr(self, plot.method)()),
                                 streams=[knobs], cache_size=1)
        last = {}

        def callback(x_range=None, y_range=None, **values):
            if values != last:
                # New knobs move the cloud, so the last window no longer frames it: draw it
                # whole (a zoomable plot keeps its x window, recomputed at full resolution);
                # the axes follow it (framewise).
                last.clear()
                last.update(values)
                y_range = None
                if not plot.zoom:
                    x_range = None
            return page_style(self._windowed(plot, x_range, y_range))

        return hv.DynamicMap(callback, streams=[knobs, view], cache_size=1)

    @staticmethod
    def page_style(plot: Plot, element):
        """A live panel's frame styled for the page: its title and size, and framewise axes
        (they follow the data when knobs change; a range the user zoomed to is kept by
        HoloViews until the plot is reset). Applied to each frame in the DynamicMap callback
        (memoized, see ``style``) rather than by ``dmap.opts``, which wraps the DynamicMap in
        a second one that re-applies the options to every frame.

        ``framewise`` is a normalization option that HoloViews reads from each element: set on an
        Overlay alone it is ignored and the axes stay where the first frame put them."""
        if isinstance(element, hv.Overlay):
            for layer in element:
                style(layer, bokeh=dict(framewise=True))
        return style(element, title=plot.title,
                     bokeh=dict(width=PLOT_WIDTH, height=PLOT_HEIGHT, framewise=True))

    def reset_zoom(self) -> None:
        """Back to the full range of every zoomable plot (recomputed at the knobs' range).

        The live page also rebuilds those plots (fresh axes), see ``panel``."""
        for plot in self.plots:
            if plot.zoom:
                self._view[plot.method] = hv.streams.RangeXY(x_range=None, y_range=None)

    def controls(self) -> pn.viewable.Viewable:
        """The knobs as widgets (built by ``pn.Param`` from the parameters)."""
        return pn.Param(self, parameters=self.knob_names(), widgets=self.widgets,
                        show_name=False, sizing_mode="stretch_width")

    def downloads(self) -> pn.Row:
        """One download button per export format."""
        buttons = [
            pn.widgets.FileDownload(
                callback=(lambda s=s: self.export_bytes(s)), filename=f"{self.slug}{s}",
                label=s[1:].upper(), color="light", width=70, embed=False,
            )
            for s in EXPORT_FORMATS
        ]
        return pn.Row(pn.pane.Markdown("**Export the figure**", margin=(8, 5), width=150),
                      *buttons, sizing_mode="fixed", width=150 + 4 * 80, height=50)

    def alert(self) -> pn.viewable.Viewable:
        """A visible alert while the last computation failed; empty otherwise."""

        @param.depends(self.param.error)
        def _alert(error=None):
            if not self.error:
                return pn.Spacer(height=0)
            return pn.pane.Alert(
                f"**Could not compute with these settings:** {self.error}\n\n"
                "The plots show the last good result.",
                alert_type="danger", sizing_mode="stretch_width",
            )

        return pn.panel(_alert)

    def panel(self) -> pn.viewable.Viewable:
        """The page body: alert, text, status line, plots and downloads (controls go in the
        sidebar). Explorers that arrange their page differently reuse ``page_parts``."""
        parts = self.page_parts()
        return pn.Column(parts["alert"], parts["about"], parts["status"], parts["grid"],
                         parts["downloads"], sizing_mode="stretch_width")

    def page_parts(self) -> dict:
        """The pieces of the page body, by name: alert, about, status, panes (one live pane
        per plot), grid (the panes laid out, with the zoom reset when there is one) and
        downloads."""
        panes = [
            pn.pane.HoloViews(self.dynamic(p), sizing_mode="fixed", width=PLOT_WIDTH,
                              height=PLOT_HEIGHT, linked_axes=False)
            for p in self.plots
        ]
        grid = pn.GridBox(*panes, ncols=self.columns)
        if any(p.zoom for p in self.plots):
            def on_reset(_):
                # A fresh plot starts from the full range; a stream reset alone would leave the
                # Bokeh axes where the user zoomed them.
                self.reset_zoom()
                for pane, plot in zip(panes, self.plots):
                    if plot.zoom:
                        pane.object = self.dynamic(plot)

            reset = pn.widgets.Button(label="Reset zoom", color="primary", width=120)
            reset.on_click(on_reset)
            grid = pn.Column(pn.Row(reset, pn.pane.Markdown(
                "Zoom into the first plot (box or wheel zoom) to recompute that window at full "
                "resolution.", margin=(10, 10))), grid)
        about = pn.Card(
            pn.pane.Markdown(math_markdown(self.text), sizing_mode="stretch_width", max_width=960),
            title=f"About this page: {self.paper}, {self.figures.split(';')[0]}",
            collapsible=True, sizing_mode="stretch_width", margin=(5, 10),
        )
        status = pn.pane.Markdown(pn.bind(lambda **_: math_markdown(self.status()),
                                          **{k: self.param[k] for k in self.knob_names()}),
                                  sizing_mode="stretch_width", margin=(0, 10))
        return dict(alert=self.alert(), about=about, status=status, panes=panes, grid=grid,
                    downloads=self.downloads())

    def status(self) -> str:
        """A line of measured facts above the plots (Markdown with LaTeX), updated live;
        empty by default."""
        return ""

