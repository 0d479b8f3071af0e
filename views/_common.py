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
import io
import os
import re
import pathlib
import tempfile
from typing import ClassVar

import matplotlib

matplotlib.use("Agg")

import holoviews as hv  # noqa: E402
import numpy as np  # noqa: E402
import holoviews.plotting.bokeh  # noqa: E402,F401  (registers the Bokeh backend)
import holoviews.plotting.mpl  # noqa: E402,F401  (registers the matplotlib backend for export)
import panel as pn  # noqa: E402
import param  # noqa: E402
from holoviews.operation.datashader import dynspread, rasterize  # noqa: E402

hv.Store.set_current_backend("bokeh")
# HoloViews' matplotlib layouts resize the figure to fit aspects by redrawing it several times
# unless fig_inches is a tuple, which its option system turns into a list: turn the refit off,
# since figure() sets the size itself. This cuts export time about threefold.
holoviews.plotting.mpl.LayoutPlot.v17_layout_format = False

__all__ = [
    "Explorer",
    "Plot",
    "EXPORT_FORMATS",
    "DENSE_POINTS",
    "export_figure",
    "style",
    "dense",
    "parse_vector",
    "math_markdown",
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
#: (each ``.opts`` call clones the element, and the live page must redraw in under 150 ms).
_EXPORTING = contextvars.ContextVar("ldx_exporting", default=False)


def style(element, *, bokeh: dict | None = None, mpl: dict | None = None, **common):
    """Apply options: ``common`` ones (logx, xlim, title, color, ...) to both backends, ``bokeh``
    ones to the live page only, ``mpl`` ones to exported figures only."""
    element = element.opts(**common, **(bokeh or {}))
    if _EXPORTING.get():
        element = element.opts(**common, **(mpl or {}), backend="matplotlib")
    return element


#: Colour ramp of rasterized clouds: dark grey (one point in a pixel) to black (many).
CLOUD_CMAP = ["#505050", "#000000"]


def dense(points, *, dynamic: bool, cmap=CLOUD_CMAP, threshold: int = DENSE_POINTS,
          x_range=None, y_range=None):
    """A point cloud as it should be drawn: raw points when sparse, a datashader raster when dense.

    ``dynamic=True`` (live page, ``points`` a DynamicMap) re-rasterizes on zoom;
    ``dynamic=False`` rasterizes once over ``x_range`` x ``y_range`` (default: the cloud's
    extent), and only above ``threshold`` points (pass 0 to always rasterize).
    """
    if not dynamic and len(points) <= threshold:
        return points
    ranges = {k: v for k, v in (("x_range", x_range), ("y_range", y_range)) if v is not None}
    shaded = rasterize(points, dynamic=dynamic, width=500, height=500, **ranges)
    shaded = style(shaded, cmap=cmap, cnorm="eq_hist", colorbar=False)
    return dynspread(shaded, threshold=0.8, max_px=2, dynamic=dynamic)


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

    def __init__(self, method: str, *, title: str, cloud: str | None = None, zoom: bool = False):
        self.method = method
        self.title = title
        self.cloud = cloud
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
        from bokeh.resources import INLINE

        hv.save(figure, path, backend="bokeh", resources=INLINE, title=title or path.stem)
        return path
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
        #: The x window of each zoomable plot (None: the full range), shared with the live page.
        self._zoom = {p.method: hv.streams.RangeXY(x_range=None, y_range=None)
                      for p in self.plots if p.zoom}

    # --- computation -------------------------------------------------------------------------
    def knob_names(self) -> list[str]:
        """The user-facing parameters (everything but ``name`` and ``error``)."""
        return [p for p in self.param if p not in ("name", "error") and self.param[p].precedence != -1]

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
        """The static element of one panel (its cloud rasterized only when dense); zoomable
        plots show their current window, as on the page."""
        if plot.zoom:
            zoom = self._zoom[plot.method]
            return style(self._zoomed(plot, zoom.x_range, zoom.y_range), title=plot.title)
        element = getattr(self, plot.method)()
        if plot.cloud is not None:
            element = element * dense(getattr(self, plot.cloud)(), dynamic=False)
        return style(element, title=plot.title)

    def _zoomed(self, plot: Plot, x_range=None, y_range=None):
        """A zoomable panel for the window x_range (recomputed there at full resolution), its
        cloud rasterized over the visible window."""
        element = self._call(plot, plot.method, x_range)
        if plot.cloud is not None:
            cloud = self._call(plot, plot.cloud, x_range)
            element = element * dense(cloud, dynamic=False, threshold=0,
                                      x_range=x_range if y_range is not None else None,
                                      y_range=y_range if x_range is not None else None)
        return element

    def figure(self) -> hv.Layout:
        """The whole current figure as one static HoloViews Layout (for export and headless use)."""
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
        """A DynamicMap of one panel, recomputed when any knob changes; zoom survives updates."""
        def live(method):
            stream = hv.streams.Params(self, self.knob_names())
            return hv.DynamicMap(lambda **_: getattr(self, method)(), streams=[stream])

        if plot.zoom:
            # Zoom recomputes the cloud for the window, so it is rasterized with it, at once.
            streams = [hv.streams.Params(self, self.knob_names()), self._zoom[plot.method]]
            dmap = hv.DynamicMap(lambda x_range=None, y_range=None, **_:
                                 self._zoomed(plot, x_range, y_range), streams=streams)
        else:
            dmap = live(plot.method)
            if plot.cloud is not None:
                dmap = dmap * dense(live(plot.cloud), dynamic=True)
        dmap = dmap.opts(title=plot.title, width=PLOT_WIDTH, height=PLOT_HEIGHT)
        return dmap.opts(framewise=True) if plot.zoom else dmap

    def reset_zoom(self) -> None:
        """Back to the full range of every zoomable plot (recomputed at the knobs' range).

        The live page also rebuilds those plots (fresh axes), see ``panel``."""
        for method in self._zoom:
            self._zoom[method] = hv.streams.RangeXY(x_range=None, y_range=None)

    def controls(self) -> pn.viewable.Viewable:
        """The knobs as widgets (built by ``pn.Param`` from the parameters)."""
        return pn.Param(self, parameters=self.knob_names(), widgets=self.widgets,
                        show_name=False, sizing_mode="stretch_width")

    def downloads(self) -> pn.Row:
        """One download button per export format."""
        buttons = [
            pn.widgets.FileDownload(
                callback=(lambda s=s: self.export_bytes(s)), filename=f"{self.slug}{s}",
                label=s[1:].upper(), button_type="light", width=70, embed=False,
            )
            for s in EXPORT_FORMATS
        ]
        return pn.Row(pn.pane.Markdown("**Export the figure**", margin=(8, 5), width=150),
                      *buttons, sizing_mode="fixed", width=150 + 4 * 80)

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
        """The page body: alert, plots, downloads and text (controls go in the sidebar)."""
        panes = [
            pn.pane.HoloViews(self.dynamic(p), sizing_mode="fixed", linked_axes=False)
            for p in self.plots
        ]
        grid = pn.GridBox(*panes, ncols=self.columns)
        if self._zoom:
            def on_reset(_):
                # A fresh plot starts from the full range; a stream reset alone would leave the
                # Bokeh axes where the user zoomed them.
                self.reset_zoom()
                for pane, plot in zip(panes, self.plots):
                    if plot.zoom:
                        pane.object = self.dynamic(plot)

            reset = pn.widgets.Button(name="Reset zoom", button_type="primary", width=120)
            reset.on_click(on_reset)
            grid = pn.Column(pn.Row(reset, pn.pane.Markdown(
                "Zoom into the first plot (box or wheel zoom) to recompute that window at full "
                "resolution.", margin=(10, 10))), grid)
        about = pn.Card(
            pn.pane.Markdown(math_markdown(self.text), sizing_mode="stretch_width", max_width=960),
            title=f"About this page: {self.paper}, {self.figures.split(';')[0]}",
            collapsible=True, sizing_mode="stretch_width", margin=(5, 10),
        )
        return pn.Column(self.alert(), about, grid, self.downloads(), sizing_mode="stretch_width")

