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
import html
import io
import logging
import math
import os
import re
import pathlib
import tempfile
import weakref
from dataclasses import dataclass
from typing import ClassVar

import holoviews as hv
import numpy as np
import panel as pn
import param

from views import _knobs
from views._files import atomic_path
from views._jobs import Job, JobSection, Run, SessionWatch
from views._live import LatestWins, session_post
from views._text import clip, plain, quote
from views._workarounds import (COLORBAR_TITLE, SQUARE_BOX, RasterImage, apply_options,
                                bokeh_backend, dictionary_columns, matplotlib_backend, no_pipeline,
                                one_graph_walk, prompt_widget, render_matplotlib,
                                standalone_resources)

__all__ = [
    "Explorer",
    "Plot",
    "Section",
    "Run",
    "RasterImage",
    "EXPORT_FORMATS",
    "DENSE_POINTS",
    "export_figure",
    "style",
    "dense",
    "count_points",
    "shade_levels",
    "warmup_rasters",
    "parse_vector",
    "math_markdown",
    "plain",
    "matplotlib_backend",
    "axis",
    "log_spaced",
]

#: Formats ``export`` writes, by file suffix.
EXPORT_FORMATS = (".png", ".svg", ".pdf", ".html")
#: In exported figures, point clouds larger than this are rasterized with datashader (a vector
#: PDF with 10^5 markers is slow to write and to open); on the live page clouds always are.
DENSE_POINTS = 5_000

#: Unknown names a link's notice quotes (the rest are counted), and the longest notice or error
#: shown (characters): a long crafted link must not fill the page.
UNKNOWN_NAMED = 5
NOTICE_LIMIT = 2_000

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
    ones to the live page only, ``mpl`` ones to exported figures only. A colour bar gets the
    ``COLORBAR_TITLE`` hook on the page, so its title follows the data."""
    if common.get("colorbar"):
        bokeh = dict(bokeh or {})
        bokeh["hooks"] = [*bokeh.get("hooks", []), COLORBAR_TITLE]
    bokeh_backend()
    element = apply_options(element, "bokeh", {**common, **(bokeh or {})})
    if _EXPORTING.get():
        matplotlib_backend()
        mpl = dict(mpl or {})
        if bool(common.get("logx")) != bool(common.get("logy")):
            mpl["hooks"] = [*mpl.get("hooks", []), SQUARE_BOX]
        element = apply_options(element, "matplotlib", {**common, **mpl})
    return element


#: Colour ramp of rasterized clouds: dark grey (one point in a pixel) to black (many).
CLOUD_CMAP = ["#505050", "#000000"]


def dense(points: hv.Points, *, threshold: int = DENSE_POINTS, x_range=None, y_range=None,
          cmap=CLOUD_CMAP, width: int = 400, height: int = 340, frame=None):
    """A point cloud as it should be drawn: the points themselves when at most ``threshold``,
    else a datashader raster over ``x_range`` x ``y_range`` (default: the cloud's extent).

    Datashader is called directly (``Canvas.points``, one raster pixel per screen pixel of the
    plot frame), not through HoloViews' ``rasterize`` operation: the same picture at a tenth of
    the cost per update, which keeps a slider move under the 150 ms budget. The live page
    re-rasterizes on zoom (see ``Explorer.dynamic``).

    ``frame``, the (x, y) ranges of the whole plot window when the cloud fills only part of it
    (the herding attractor inside its cones), keeps one raster pixel per screen pixel: the
    raster gets the cloud's share of ``width`` x ``height``, not all of it for the part. A
    cloud a third of the window wide is sent in a ninth of the bytes, and looks the same.
    """
    if len(points) <= threshold:
        return points
    xdim, ydim = points.kdims[:2]
    x = points.dimension_values(0)
    y = points.dimension_values(1)
    if x_range is None or y_range is None:
        x_range = _padded(x)
        y_range = _padded(y)
    if frame is not None:
        width = _share(x_range, frame[0], width)
        height = _share(y_range, frame[1], height)
    xs, ys, counts = count_points(x, y, x_range, y_range, width, height)
    image = RasterImage((xs, ys, shade_levels(counts)), kdims=[xdim, ydim],
                        vdims=[hv.Dimension("level", label="density level")])
    # Linear colour from dark grey (one point) to black (the most): histogram equalisation
    # degenerates to a blank raster when every pixel holds one point. Level 0 (no point) is
    # below the colour range and drawn transparent.
    return style(image, cmap=cmap, cnorm="linear", clim=(1, SHADES), colorbar=False,
                 clipping_colors={"min": "transparent"})


def _share(part, whole, pixels: int) -> int:
    """The pixels of ``pixels`` (spanning the union of ranges ``part`` and ``whole``) that the
    range ``part`` covers, at least 16."""
    span = max(part[1], whole[1]) - min(part[0], whole[0])
    return max(16, min(pixels, math.ceil(pixels * (part[1] - part[0]) / span)))


#: Shading levels of a rasterized cloud: one byte per pixel.
SHADES = 255


def shade_levels(counts: np.ndarray) -> np.ndarray:
    """Counts per pixel (NaN where empty) as the colour levels the eye sees, one byte each:
    0 where empty, 1 for one point, ``SHADES`` for the most, linear between (level
    ``1 + round((c - 1) / (max - 1) * (SHADES - 1))``). What a linear colour map over the
    counts draws, at a quarter of the bytes of float32 counts on every move."""
    filled = np.nan_to_num(counts, nan=0.0)
    levels = np.zeros(filled.shape, dtype=np.uint8)
    hit = filled > 0
    top = float(filled.max()) if hit.any() else 0.0
    if top > 1:
        levels[hit] = 1 + np.rint((filled[hit] - 1) / (top - 1) * (SHADES - 1))
    else:
        levels[hit] = 1
    return levels


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
    # float32 (NaN where empty, drawn transparent): half the bytes of float64 over the
    # websocket on every move, and exact for counts below 2**24
    counts = counts.astype(np.float32)
    counts = counts.where(counts > 0)
    return counts.coords["x"].values, counts.coords["y"].values, counts.values


def warmup_rasters() -> None:
    """Import datashader and compile its point-counting kernels (about 2.5 s on first use in a
    process; datashader generates them at run time, so Numba cannot cache them on disk). Safe to
    run in a background thread: it builds no HoloViews or Bokeh object."""
    cloud = np.random.default_rng(0).normal(size=(2, 100))
    count_points(cloud[0], cloud[1], (-3.0, 3.0), (-3.0, 3.0), 8, 6)


def table_html(table: hv.Table, title: str) -> str:
    """An ``hv.Table`` as an HTML table with its title (the live page's tables)."""
    head = "".join(f"<th>{html.escape(d.pprint_label)}</th>" for d in table.dimensions())
    columns = [table.dimension_values(d) for d in table.dimensions()]
    rows = "".join("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>"
                   for row in zip(*columns))
    return (f"<div style='font:600 15px sans-serif;margin:4px 0 8px'>{html.escape(title)}</div>"
            "<table style='border-collapse:collapse;font:13px sans-serif;width:100%'>"
            f"<thead style='border-bottom:1px solid #999;text-align:left'><tr>{head}</tr></thead>"
            f"<tbody>{rows}</tbody></table>")


def _extent(element) -> tuple[tuple[float, float], tuple[float, float]]:
    """The x and y ranges that an element's (or overlay's) data cover: points, lines, images,
    both ends of segments and rectangles (reference lines and text do not count)."""
    xs, ys = [], []
    layers = list(element) if isinstance(element, hv.Overlay) else [element]
    for layer in layers:
        if isinstance(layer, (hv.VLine, hv.HLine, hv.HSpan, hv.VSpan, hv.Text, hv.Table)):
            continue
        if len(layer) == 0:
            continue
        ends = (0, 2) if isinstance(layer, (hv.Segments, hv.Rectangles)) else (0,)
        for i in ends:
            xs.extend(layer.range(i))
            ys.extend(layer.range(i + 1))
    xs = [float(v) for v in xs if v is not None and np.isfinite(v)]
    ys = [float(v) for v in ys if v is not None and np.isfinite(v)]
    x = (min(xs), max(xs)) if xs else (0.0, 1.0)
    y = (min(ys), max(ys)) if ys else (0.0, 1.0)
    return _widened(x), _widened(y)


def _widened(r: tuple[float, float]) -> tuple[float, float]:
    lo, hi = r
    if hi > lo:
        return (lo, hi)
    pad = max(abs(lo), 1.0) * 0.01
    return (lo - pad, hi + pad)


def _same_window(window, x_range, y_range, rtol: float = 1e-6) -> bool:
    """Whether a reported (x_range, y_range) is ``window`` (up to float noise)."""
    if window is None or x_range is None or y_range is None:
        return False
    for (a0, a1), (b0, b1) in zip(window, (x_range, y_range)):
        tol = rtol * max(abs(a1 - a0), 1e-300)
        if abs(a0 - b0) > tol or abs(a1 - b1) > tol:
            return False
    return True


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
        raise ValueError(f"{name} must be numbers separated by commas, "
                         f"got {quote(text)}") from None
    if len(values) == 1:
        values = values * size
    if len(values) != size:
        raise ValueError(f"{name} needs 1 or {size} numbers, got {len(values)} in "
                         f"{quote(text)}")
    if not all(np.isfinite(values)):
        raise ValueError(f"{name} must be finite numbers, got {quote(text)}")
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
    top (``cloud_under``: beneath): on the live page it always goes through datashader (so a
    million points stay fast and zooming re-rasterizes), in exported figures only when larger
    than ``DENSE_POINTS``.
    """

    def __init__(self, method: str, *, title: str, cloud: str | None = None, zoom: bool = False,
                 ignores: tuple[str, ...] = (), depends: tuple[str, ...] | None = None,
                 cloud_under: bool = False):
        if ignores and depends is not None:
            raise ValueError("give a panel's ignores or its depends, not both")
        self.method = method
        self.title = title
        self.cloud = cloud
        self.cloud_under = cloud_under
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


@dataclass(frozen=True)
class Section:
    """A group of panels on the page (``Explorer.sections``): ``plots`` names their methods in
    order, ``header`` an explorer method returning a widget drawn above them (a play control),
    ``aside`` Markdown text drawn beside them."""

    plots: tuple[str, ...]
    header: str | None = None
    aside: str = ""


def axis(name: str, label: str) -> hv.Dimension:
    """A dimension named ``name`` (the data column) shown as ``label`` (Unicode, no markup)."""
    return hv.Dimension(name, label=label)


def log_spaced(n: int, count: int) -> np.ndarray:
    """About ``count`` unique indices in [0, n) spaced evenly on a log scale (for log-log
    curves: send what the eye can see)."""
    return np.unique(np.geomspace(1, n, num=min(count, n)).astype(int) - 1)


def export_figure(figure, path, *, title: str | None = None) -> pathlib.Path:
    """Write a HoloViews object to ``path``; the format follows the suffix.

    ``.png``, ``.svg`` and ``.pdf`` render through matplotlib (publication figures; PNG at 200 dpi);
    ``.html`` is a standalone interactive Bokeh file with inline resources (works offline).
    The file appears complete or not at all (``atomic_path``).
    """
    path = pathlib.Path(path)
    suffix = path.suffix.lower()
    if suffix not in EXPORT_FORMATS:
        raise ValueError(
            f"path must end in one of {', '.join(EXPORT_FORMATS)}, got {str(path)!r}"
        )
    if suffix == ".html":
        # Plain Bokeh with inline BokehJS: a single file that works offline (saving through
        # Panel would link Panel's stylesheets from a CDN).
        from bokeh.embed import file_html

        bokeh_backend()
        model = hv.render(figure, backend="bokeh")
        text = file_html(model, standalone_resources(), title=title or path.stem)
        with atomic_path(path) as partial:
            partial.write_text(text, encoding="utf-8")
        return path
    import matplotlib.pyplot as plt

    fig = render_matplotlib(figure)
    try:
        if title:
            fig.suptitle(title, fontsize=13, y=1.0, va="bottom")
        with atomic_path(path) as partial:
            fig.savefig(partial, format=suffix[1:], bbox_inches="tight",
                        dpi=200 if suffix == ".png" else None,
                        metadata=None if suffix == ".png" else
                        {"Creator": "Learning Dynamics Explorer"})
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
    #: Knobs typed as text (``views._knobs.Field``: refused values are answered inline and
    #: never reinterpreted) rather than set by a slider or a menu.
    fields: ClassVar[tuple[str, ...]] = ()
    #: Sidebar groups, heading -> knob names; knobs in no group come first, without a heading.
    groups: ClassVar[dict[str, tuple[str, ...]]] = {}
    #: Knobs whose widgets the page places itself, next to what they drive (not in the sidebar;
    #: a run's settings are placed with the run).
    placed: ClassVar[tuple[str, ...]] = ()
    #: How the panels are laid out: sections of panels, each with an optional widget above and
    #: text beside (default: one section with every panel).
    sections: ClassVar[tuple["Section", ...]] = ()
    #: Long computations the page offers (learning runs, experiments): see ``views._jobs``.
    runs: ClassVar[tuple[Run, ...]] = ()

    error = param.String(default="", precedence=-1, doc="Message of the last failed computation.")
    notice = param.String(default="", precedence=-1,
                          doc="What the page changed or ignored in the last settings, in words "
                              "(a dependent knob clamped, a value in a link refused).")
    drawn = param.Integer(default=0, precedence=-1,
                          doc="How many times the live panels were drawn: the status line and "
                              "the tables follow it, so they show what the plots show.")

    def __init__(self, **params):
        super().__init__(**params)
        self._last_good = None
        #: The visible window of each panel with a cloud or a zoom (None: the full range),
        #: shared between the live page and export.
        self._view = {p.method: hv.streams.RangeXY(x_range=None, y_range=None)
                      for p in self.plots if p.zoom or p.cloud is not None}
        #: Rasterized clouds of the current result, by cloud and window (see ``_raster``).
        self._rasters: dict = {}
        #: The server session the page was built in: a gone session's moves are not computed.
        self._session = SessionWatch()
        #: One job per declared run, and the run each run panel draws.
        self.jobs = {run.name: Job(self, run) for run in self.runs}
        for job in self.jobs.values():
            self._session.on_gone(job.cancel)
        self._run_of = {p.method: run.name for run in self.runs for p in run.plots}
        self.notice = " ".join(self._constrain())
        #: The knob streams of the live panels (``dynamic``), triggered together by ``_draw``,
        #: and the live tables (``_pane``) with the knobs they follow.
        self._knob_streams: weakref.WeakSet = weakref.WeakSet()
        self._tables: list = []
        #: Knobs moved since the live panels were last drawn.
        self._moved: set[str] = set()
        #: In a served session, moves are computed off the event loop, the last one winning
        #: (``views._live``); elsewhere a move draws at once.
        post = session_post()
        self._live = None if post is None else LatestWins(self._warm, self._draw, post)
        self.param.watch(self._redraw, list(self.knob_names()))

    # --- knobs -------------------------------------------------------------------------------
    @classmethod
    def knob_names(cls) -> list[str]:
        """The user-facing parameters (everything but ``name``, ``error`` and ``notice``)."""
        return [p for p in cls.param if p != "name" and cls.param[p].precedence != -1]

    def __setattr__(self, name, value):
        # Every knob move, from a widget, the URL or a script, ends in a consistent state in
        # one batch of parameter events: slider floats snapped to their step, dependent knobs
        # clamped to the bounds that the other knobs give them (with a notice saying so), and
        # zoom windows reset (the page then shows exactly what a fresh load of its URL shows).
        private = self.__dict__.get("_param__private")
        if (private is None or not private.initialized or name.startswith("_")
                or name not in type(self)._knob_set()):
            return super().__setattr__(name, value)
        session = self.__dict__.get("_session")
        if session is not None and not session.alive():
            # A move that was pending when the session's tab closed: nobody will see it, so
            # nothing is recomputed (the server's event loop would otherwise compute every
            # closed session's moves, one after another).
            with param.parameterized.discard_events(self):
                return super().__setattr__(name, value)
        with param.parameterized.batch_call_watchers(self):
            super().__setattr__(name, value)
            notes = self._constrain()
            if notes or self.notice:
                self.notice = " ".join(notes)
            for view in self._view.values():
                view.update(x_range=None, y_range=None)

    @classmethod
    @functools.cache
    def _knob_set(cls) -> frozenset:
        return frozenset(cls.knob_names())

    def _redraw(self, *events) -> None:
        """A knob move (one batch of events, whichever way it came: widget, link, script):
        draw it at once, or, on a served page, once its result is computed off the event
        loop, unless newer moves superseded it by then (``views._live``)."""
        self._moved.update(e.name for e in events)
        if self._live is None or not (self._knob_streams or self._tables):
            self._draw()  # a script, a test, or a page not built yet: nothing to wait for
        else:
            self._live.request(self._knob_values())

    def _knob_values(self) -> tuple:
        """The knobs' values, in ``knob_names`` order: the state a move asks for."""
        return tuple(getattr(self, name) for name in self._knob_order())

    @classmethod
    @functools.cache
    def _knob_order(cls) -> tuple[str, ...]:
        return tuple(cls.knob_names())

    def _draw(self) -> None:
        """Redraw the live panels and tables that depend on the knobs moved since the last
        draw, all within one walk of the page's model graph (``one_graph_walk``); then the
        status line (``drawn``)."""
        moved, self._moved = self._moved, set()
        streams = [s for s in self._knob_streams
                   if moved.intersection(p.name for p in s.parameters)]
        if streams:
            with one_graph_walk():
                for stream in streams:
                    stream.trigger([stream])
        self._tables = [(ref, plot, knobs) for ref, plot, knobs in self._tables
                        if ref() is not None]
        for ref, plot, knobs in self._tables:
            if moved.intersection(knobs):
                ref().object = table_html(self._call(plot, plot.method), plot.title)
        self.drawn += 1

    def _put(self, name: str, value) -> None:
        """Set a knob without the normalisation of ``__setattr__`` (used by it)."""
        param.Parameterized.__setattr__(self, name, value)

    def knob_bounds(self) -> dict[str, tuple]:
        """Bounds of the knobs that depend on other knobs: name -> (lo, hi, why), ``why``
        naming what sets them ("K = 2"). The widgets follow them and the value is clamped."""
        return {}

    def validate(self, name: str, value) -> None:
        """Refuse (``ValueError`` with a sentence for the page) a value that the knob's type and
        bounds allow but the other knobs do not (herding's w0 needs 1 or K numbers)."""

    def _constrain(self) -> list[str]:
        """Make the knobs consistent, returning a note for each value changed on the way:
        slider floats snapped to their step, ranges kept wider than one step, dependent knobs
        clamped to ``knob_bounds`` (whose bounds the widgets then show)."""
        notes = []
        for name in self.knob_names():
            p = self.param[name]
            value = getattr(self, name)
            if name not in self.fields:
                snapped = _knobs.snap(p, value)
                if snapped != value:
                    self._put(name, snapped)
                    value = snapped
            if isinstance(p, param.Range) and value is not None:
                lo, hi = value
                blo, bhi = p.bounds
                step = p.step or (bhi - blo) / 100
                if hi - lo < step * (1 - 1e-9):
                    wide = (lo, lo + step) if lo + step <= bhi else (hi - step, hi)
                    wide = _knobs.snap(p, wide)
                    self._put(name, wide)
                    notes.append(f"{p.label}: the two ends must differ, so {lo:g} to {hi:g} "
                                 f"became {wide[0]:g} to {wide[1]:g}.")
        for name, (lo, hi, why) in self.knob_bounds().items():
            p = self.param[name]
            value = getattr(self, name)
            new = min(max(value, lo), hi)
            if new != value:
                self._put(name, new)
                notes.append(f"{p.label} set to {new}: it was {value}, and {why} allows "
                             f"{lo} to {hi}.")
            if tuple(p.bounds) != (lo, hi):
                p.bounds = (lo, hi)
        return notes

    def parse_knob(self, name: str, raw):
        """The value of knob ``name`` written as text (a URL value, a typed field), checked
        against its current bounds and the other knobs. ``ValueError``: a sentence saying what
        is allowed."""
        p = self.param[name]
        value = _knobs.parse(p, raw)
        self.validate(name, value)
        return value

    def knob_text(self, name: str) -> str:
        """The canonical text of a knob's value (what the URL holds)."""
        return _knobs.text(self.param[name], getattr(self, name))

    def query(self) -> dict[str, str]:
        """Every knob as text: the URL query that reopens this exact state."""
        return {name: self.knob_text(name) for name in self.knob_names()}

    @classmethod
    def from_query(cls, args: dict) -> tuple["Explorer", list[str]]:
        """An explorer built from a URL's query (name -> list of raw values, as
        ``pn.state.session_args`` gives it), and a sentence for each part that was not used or
        was changed. Never raises for what a URL holds: unknown names, malformed, out-of-range
        or repeated values are reported and skipped; if the valid values together cannot be
        computed, the defaults are used and that is reported too.

        The sentences quote what the link holds (cut to ``_text.CLIP`` characters, at most
        ``UNKNOWN_NAMED`` unknown names): they are plain text, which the page shows through
        ``plain``, never as markup."""
        messages, values, unknown = [], {}, []
        for key, raws in args.items():
            key = key.decode(errors="replace") if isinstance(key, bytes) else str(key)
            if key == "page":
                continue
            if key not in cls._knob_set():
                unknown.append(key)
                continue
            raws = list(raws) if isinstance(raws, (list, tuple)) else [raws]
            if not raws:
                continue
            if len(raws) > 1:
                messages.append(f"{cls.param[key].label} was given {len(raws)} times: the "
                                "last one was used.")
            try:
                values[key] = _knobs.parse(cls.param[key], raws[-1])
            except ValueError as exc:
                messages.append(f"{exc}.")
        if unknown:
            named = ", ".join(quote(k) for k in unknown[:UNKNOWN_NAMED])
            more = (f" (and {len(unknown) - UNKNOWN_NAMED:,} more)"
                    if len(unknown) > UNKNOWN_NAMED else "")
            messages.insert(0, f"there is no setting {named}{more} on this page."
                            if len(unknown) == 1 else
                            f"there are no settings {named}{more} on this page.")
        explorer = cls(**values)
        for key in list(values):
            try:
                explorer.validate(key, getattr(explorer, key))
            except ValueError as exc:
                messages.append(f"{exc}.")
                setattr(explorer, key, cls.param[key].default)
        if explorer.notice:
            messages.append(explorer.notice)
        try:
            explorer.result()
        except Exception as exc:  # noqa: BLE001 - any failure: fall back to the defaults
            messages.append(f"these settings could not be computed together ({clip(exc, 300)});"
                            " the page "
                            "shows the default settings instead.")
            explorer = cls()
        explorer.notice = " ".join(messages)
        return explorer, messages

    # --- computation -------------------------------------------------------------------------

    def redraw_knobs(self, plot: Plot) -> list[str]:
        """The knobs whose change redraws ``plot`` on the live page: its ``depends``, or every
        knob but its ``ignores``."""
        if plot.depends is not None:
            return list(plot.depends)
        return [k for k in self.knob_names() if k not in plot.ignores]

    def _compute(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def prepare(self) -> None:
        """Compute, into the results cache, what the live panels need beyond ``_compute``'s
        result (a sweep a panel draws beside it). A served page calls it with ``_compute`` off
        the event loop after a move (``views._live``), so that the draw finds both cached. It
        runs in a worker thread: it builds no HoloViews, Bokeh or param object and sets no
        parameter. Default: nothing."""

    def _warm(self) -> None:
        self._compute()
        self.prepare()

    def result(self):
        """The result for the current knobs; on failure, the last good one (and ``error`` is set)."""
        try:
            # a served page's move was computed off the event loop: a failure is not redone
            failure = None if self._live is None else self._live.failure(self._knob_values())
            if failure is not None:
                raise failure
            res = self._compute()
        except Exception as exc:
            # A ValueError is an engine refusing these settings, in words; anything else is a
            # bug, logged in full, but the page still keeps its last good plot and answers the
            # next move.
            if not isinstance(exc, ValueError):
                logging.getLogger(__name__).exception("computing %s failed", self.slug)
            self.error = str(exc) or type(exc).__name__
            if self._last_good is None:
                raise
            return self._last_good
        self.error = ""
        self._last_good = res
        return res

    # --- figure and export -------------------------------------------------------------------
    def _call(self, plot: Plot, method: str, x_range=None):
        with dictionary_columns():
            if method in self._run_of:  # a run's panel draws the result it shows
                return getattr(self, method)(self.jobs[self._run_of[method]].shown)
            return (getattr(self, method)(x_range=x_range) if plot.zoom
                    else getattr(self, method)())

    def panels(self) -> tuple[Plot, ...]:
        """The panels of the current figure: ``plots``, then those of every run that has a
        finished result."""
        extra = tuple(p for run in self.runs if self.jobs[run.name].result is not None
                      for p in run.plots)
        return tuple(self.plots) + extra

    def run_pane(self, plot: Plot, streams) -> pn.viewable.Viewable:
        """A run panel on the page, redrawn whenever the job shows a new (partial) result (the
        first stream), and when a display knob it depends on moves (the others)."""
        streams = list(streams) if isinstance(streams, (list, tuple)) else [streams]
        return pn.pane.HoloViews(
            hv.DynamicMap(no_pipeline(lambda **_: self.page_style(plot,
                                                                  self._call(plot, plot.method))),
                          streams=streams, cache_size=1),
            backend="bokeh", sizing_mode="fixed", width=PLOT_WIDTH, height=PLOT_HEIGHT,
            linked_axes=False)

    def element(self, plot: Plot):
        """The static element of one panel, as the page shows it: clouds rasterized over the
        visible window (only when dense), zoomable plots computed for their window."""
        view = self._view.get(plot.method)
        if view is not None:
            element = self._windowed(plot, view.x_range, view.y_range, threshold=DENSE_POINTS)
        else:
            element = self._call(plot, plot.method)
        return style(element, title=plot.title,
                     bokeh=dict(width=PLOT_WIDTH, height=PLOT_HEIGHT))

    def _windowed(self, plot: Plot, x_range=None, y_range=None, *, threshold: int = 0):
        """A panel for the visible window: a zoomable plot is recomputed for x_range at full
        resolution; its cloud is rasterized over x_range x y_range (its extent when None)."""
        element = self._call(plot, plot.method, x_range)
        if plot.cloud is not None:
            # The whole result on the page: the cloud's raster keeps to its share of the window
            # that the element spans (exports keep the full resolution, for print).
            frame = (_extent(element) if x_range is None and y_range is None
                     and not _EXPORTING.get() else None)
            cloud = self._raster(plot, x_range, y_range, threshold, frame)
            element = cloud * element if plot.cloud_under else element * cloud
        return element

    def _raster(self, plot: Plot, x_range, y_range, threshold: int, frame=None):
        """The cloud of ``plot`` as ``dense`` draws it, computed once per result and window:
        panels sharing a cloud (the herding page's cones and Tipi) rasterize it once per move."""
        both = x_range is not None and y_range is not None
        window = (x_range, y_range) if both else (None, None)
        # A zoomable plot's cloud is recomputed for its x window, so the window is in the key.
        # The knobs are in the key too: a cloud may show a knob that the result does not
        # depend on (the bifurcation diagram's plotted weight).
        knobs = tuple(getattr(self, k) for k in self.redraw_knobs(plot))
        key = (plot.cloud, x_range if plot.zoom else None, window, threshold, _EXPORTING.get(),
               knobs, frame)
        result = self.result()
        memo = self._rasters.get(key)
        if memo is not None and memo[0] is result:
            return memo[1]
        cloud = self._call(plot, plot.cloud, x_range)
        raster = dense(cloud, threshold=threshold, x_range=window[0], y_range=window[1],
                       frame=frame)
        self._rasters = {k: v for k, v in self._rasters.items() if v[0] is result}
        self._rasters[key] = (result, raster)
        return raster

    def figure(self, only: tuple[str, ...] | None = None) -> hv.Layout:
        """The whole current figure as one static HoloViews Layout (for export and headless use);
        ``only``: just these panels (plot method names, in this order), e.g. one paper figure."""
        matplotlib_backend()
        panels = self.panels()
        if only is not None:
            by_method = {p.method: p for p in panels}
            missing = [m for m in only if m not in by_method]
            if missing:
                raise ValueError(f"{type(self).__name__} has no panels {missing} now "
                                 f"(a run's panels exist once it has a result)")
            panels = tuple(by_method[m] for m in only)
        columns = min(self.columns, len(panels))
        token = _EXPORTING.set(True)
        try:
            layout = hv.Layout([self.element(p) for p in panels]).cols(columns)
        finally:
            _EXPORTING.reset(token)
        rows = -(-len(panels) // columns)
        return layout.opts(sublabel_format="", fig_inches=(FIG_INCHES * columns, 3.6 * rows),
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
        knobs = hv.streams.Params(self, self.redraw_knobs(plot), watch=False)
        self._knob_streams.add(knobs)  # triggered by _redraw
        view = self._view.get(plot.method)
        page_style = functools.partial(self.page_style, plot)
        # cache_size=1: every frame comes from new knobs or a new window; older ones are never
        # shown again.
        if view is None:
            return hv.DynamicMap(no_pipeline(lambda **_: page_style(self._call(plot, plot.method))),
                                 streams=[knobs], cache_size=1)
        last, shown = {}, {}

        @no_pipeline
        def callback(x_range=None, y_range=None, **values):
            if values != last:
                # New knobs: draw the new result whole, exactly as a fresh load of the page's
                # URL would (a kept zoom window would show a stale range of another result).
                # __setattr__ also reset the window streams, so an export shows the same.
                last.clear()
                last.update(values)
                x_range = y_range = None
            elif x_range is not None and _same_window(shown.get("window"), x_range, y_range):
                # The plot reporting the window it was given: HoloViews asks once a plot is
                # drawn, the browser after an update. Nothing was zoomed: the same frame.
                x_range = y_range = None
            element = self._windowed(plot, x_range, y_range)
            if x_range is None:
                # The whole result, framed exactly (no HoloViews padding): the window that a
                # report of it is recognised by above.
                window = _extent(element)
                shown["window"] = window
                element = style(element, bokeh=dict(xlim=window[0], ylim=window[1]))
            return page_style(element)

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
            # Each layer's group names its place in the overlay: HoloViews matches a new
            # frame's layers to the drawn ones by (type, group, label), and a label that
            # changes with the data ("gap of P: 0.49") could otherwise be matched to another
            # layer's glyph, swapping styles and legend order against a fresh page.
            layers = [style(layer, bokeh=dict(framewise=True)) for layer in element]
            legend = {f"Layer{i}": layer.label for i, layer in enumerate(layers) if layer.label}
            element = element.clone([
                layer if isinstance(layer, hv.element.Annotation) else
                layer.relabel(group=f"Layer{i}", label=f"Layer{i}" if layer.label else "")
                for i, layer in enumerate(layers)])
            element = style(element, bokeh=dict(legend_labels=legend))
        return style(element, title=plot.title,
                     bokeh=dict(width=PLOT_WIDTH, height=PLOT_HEIGHT, framewise=True))

    def reset_zoom(self) -> None:
        """Back to the full range of every zoomable plot (recomputed at the knobs' range).

        The live page also rebuilds those plots (fresh axes), see ``panel``."""
        for plot in self.plots:
            if plot.zoom:
                self._view[plot.method] = hv.streams.RangeXY(x_range=None, y_range=None)

    def play_control(self, knob: str, caption: str, *, interval: int) -> pn.Row:
        """A play control over an integer knob (a frame of an animation), with a caption: its
        range follows the knob's bounds as ``knob_bounds`` sets them (the run's frames), not
        the parameter's widest bounds."""
        player = prompt_widget(pn.widgets.Player.from_param(
            self.param[knob], interval=interval, loop_policy="once", show_loop_controls=False,
            show_value=False, width=300, scale_buttons=0.8))
        player.start, player.end = self.param[knob].bounds

        def follow(event):
            player.start, player.end = event.new

        self.param.watch(follow, knob, what="bounds")
        return pn.Row(player, pn.pane.Markdown(caption, sizing_mode="stretch_width"),
                      sizing_mode="stretch_width")

    def control(self, name: str) -> pn.viewable.Viewable:
        """The widget of one knob, linked both ways: a ``views._knobs.Field`` for a typed knob
        (``fields``), else what ``pn.Param`` builds from the parameter (``widgets`` overrides),
        whose bounds follow ``knob_bounds``."""
        if name in self.fields:
            return _knobs.Field(self, name)
        spec = self.widgets.get(name)
        return prompt_widget(pn.Param.widget(name, self, spec if spec is not None else {}))

    def controls(self) -> pn.viewable.Viewable:
        """The sidebar: every knob's widget, in declaration order, grouped under the headings
        of ``groups`` (knobs in no group first)."""
        grouped = [n for names in self.groups.values() for n in names] + list(self.placed) + [
            n for run in self.runs for n in run.settings + run.display]
        sections = [(None, [n for n in self.knob_names() if n not in grouped]),
                    *self.groups.items()]
        items = []
        for heading, names in sections:
            if heading is not None:
                items.append(pn.pane.Markdown(f"**{heading}**", margin=(10, 10, 0, 10)))
            items.extend(self.control(n) for n in names)
        return pn.Column(*items, sizing_mode="stretch_width")

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
        """Visible alerts: one while the last computation failed (the plots keep the last good
        result), one saying what the page changed or ignored in the last settings
        (``notice``); empty otherwise."""

        @param.depends(self.param.error, self.param.notice)
        def _alert(error=None, notice=None):
            alerts = []
            # both hold text from the link or a typed field: shown as plain text, never markup
            if self.notice:
                alerts.append(pn.pane.Alert(
                    f"**Settings adjusted:** {plain(self.notice, limit=NOTICE_LIMIT)}",
                    alert_type="warning", sizing_mode="stretch_width",
                    css_classes=["ldx-notice"]))
            if self.error:
                alerts.append(pn.pane.Alert(
                    "**Could not compute with these settings:** "
                    f"{plain(self.error, limit=NOTICE_LIMIT)}\n\n"
                    "The plots show the last good result.",
                    alert_type="danger", sizing_mode="stretch_width"))
            if not alerts:
                return pn.Spacer(height=0)
            return pn.Column(*alerts, sizing_mode="stretch_width")

        return pn.panel(_alert)

    def panel(self) -> pn.viewable.Viewable:
        """The page body: alert, text, status line, plots and downloads (controls go in the
        sidebar). Explorers that arrange their page differently reuse ``page_parts``."""
        parts = self.page_parts()
        return pn.Column(parts["alert"], parts["about"], parts["status"], parts["grid"],
                         parts["downloads"], *parts["runs"], self.paint_acknowledgement(),
                         sizing_mode="stretch_width")

    def paint_acknowledgement(self) -> pn.viewable.Viewable:
        """Two hidden widgets through which the browser tells a served page that it painted a
        draw: the server sets the first to ``drawn``; two animation frames after the browser
        applied it (the plots changed with it are painted by then), the browser copies it into
        the second, whose change reaches the server (``LatestWins.painted``)."""
        marker = pn.widgets.IntInput(value=self.drawn, visible=False)
        painted = pn.widgets.IntInput(value=self.drawn, visible=False)
        marker.jscallback(value="requestAnimationFrame(() => requestAnimationFrame(() => "
                                "{ painted.value = cb_obj.value; }));", args={"painted": painted})
        self.param.watch(lambda event: setattr(marker, "value", event.new), "drawn")

        def on_painted(_):
            if self._live is not None:
                self._live.painted()

        painted.param.watch(on_painted, "value")
        return pn.Row(marker, painted, visible=False, height=0, margin=0)

    def page_parts(self) -> dict:
        """The pieces of the page body, by name: alert, about, status, panes (one live pane
        per plot), grid (the panes laid out, with the zoom reset when there is one) and
        downloads."""
        panes = [self._pane(p) for p in self.plots]
        grid = self._sections(dict(zip((p.method for p in self.plots), panes)))
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
        status = pn.pane.Markdown(pn.bind(lambda _: math_markdown(self.status()),
                                          self.param.drawn),
                                  sizing_mode="stretch_width", margin=(0, 10))
        runs = [JobSection(self, self.jobs[run.name]) for run in self.runs]
        return dict(alert=self.alert(), about=about, status=status, panes=panes, grid=grid,
                    downloads=self.downloads(), runs=runs)

    def _sections(self, panes: dict) -> pn.Column:
        """The panels laid out by ``sections`` (default: all in one). Panels wrap: two columns
        on a wide screen, one on a projector's 1024 x 768."""
        sections = self.sections or (Section(tuple(panes)),)
        laid = [n for section in sections for n in section.plots]
        if sorted(laid) != sorted(panes):
            raise ValueError(f"{type(self).__name__}.sections must place every panel once, "
                             f"got {laid} for {list(panes)}")
        blocks = []
        for section in sections:
            if section.header is not None:
                blocks.append(getattr(self, section.header)())
            items = [panes[n] for n in section.plots]
            if section.aside:
                items.append(pn.pane.Markdown(math_markdown(section.aside), width=PLOT_WIDTH))
            blocks.append(pn.FlexBox(*items, gap="8px", sizing_mode="stretch_width"))
        return pn.Column(*blocks, sizing_mode="stretch_width")

    def _pane(self, plot: Plot) -> pn.viewable.Viewable:
        """The live pane of one panel: a HoloViews plot, or, for a table, an HTML table.

        Bokeh's DataTable (what HoloViews draws a Table with) fails to initialise inside a
        wrapping FlexBox ("SlickGrid Cannot find stylesheet"), shows a row-number column and
        cuts long cells; a plain HTML table has none of these problems. Exports keep the
        ``hv.Table``."""
        table = self._call(plot, plot.method)
        if isinstance(table, hv.Table):
            pane = pn.pane.HTML(table_html(table, plot.title), sizing_mode="fixed",
                                width=PLOT_WIDTH, height=PLOT_HEIGHT, css_classes=["ldx-table"])
            # redrawn by _draw when one of its knobs moved
            self._tables.append((weakref.ref(pane), plot, frozenset(self.redraw_knobs(plot))))
            return pane
        return pn.pane.HoloViews(self.dynamic(plot), backend="bokeh", sizing_mode="fixed",
                                 width=PLOT_WIDTH, height=PLOT_HEIGHT, linked_axes=False)

    def status(self) -> str:
        """A line of measured facts above the plots (Markdown with LaTeX), updated live;
        empty by default."""
        return ""

