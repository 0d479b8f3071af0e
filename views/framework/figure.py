"""Figures and their export: styling elements for the live page (Bokeh) and for exports
(matplotlib), dense point clouds rasterized with datashader, panel declarations (``Plot``), and
the export of a figure (``export_figure``): PNG, SVG or PDF through the matplotlib backend,
standalone HTML (inline resources) through Bokeh. A model's own figures are made by
``views.framework.drawing.Drawing``.
"""

from __future__ import annotations

import contextlib
import contextvars
import html
import math
import pathlib

import holoviews as hv
import numpy as np

from views.framework import stamp
from views.framework.declared import method_name
from views.framework.files import atomic_path
from views.framework.legends import place_legends
from views.framework.text import clip
from views.framework.workarounds import (COLORBAR_TITLE, SQUARE_BOX, RasterImage, apply_options,
                                         bokeh_backend, forget_colorbars, matplotlib_backend,
                                         render_matplotlib, standalone_resources)

__all__ = [
    "EXPORT_FORMATS", "DENSE_POINTS", "PLOT_WIDTH", "PLOT_HEIGHT", "FIG_INCHES", "DASHED",
    "DOTTED", "MPL_DASHED", "MPL_DOTTED", "Plot", "exporting", "style", "dense",
    "shade_levels", "count_points", "warmup_rasters", "table_html", "axis", "log_spaced",
    "integer_ticks", "data_extent", "same_window", "export_figure", "export_styles", "put_title",
    "set_title", "title_width", "PNG_DPI", "TITLE_CHARS", "TITLE_LINES",
]

#: Formats ``export`` writes, by file suffix.
EXPORT_FORMATS = (".png", ".svg", ".pdf", ".html")
#: In exported figures, point clouds larger than this are rasterized with datashader (a vector
#: PDF with 10^5 markers is slow to write and to open); on the live page clouds always are.
DENSE_POINTS = 5_000

#: Resolution of an exported PNG (dots per inch).
PNG_DPI = 200
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


@contextlib.contextmanager
def export_styles():
    """Build elements for an exported figure in this block (``exporting()`` is True)."""
    token = _EXPORTING.set(True)
    try:
        yield
    finally:
        _EXPORTING.reset(token)


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
          cmap=CLOUD_CMAP, width: int = 400, height: int = 340, frame=None,
          first: str | None = None):
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

    ``first``, a value dimension of the points (their step): the raster's second value is the
    least of it in each pixel (datashader's ``min``; NaN where empty), the step at which the
    pixel was first visited. A timeline builds the cloud up from it (``marks.grown``, and in
    the browser ``views.framework.player``): the pixels visited by t, shaded as the whole run
    shades them, from one raster and 2 bytes a pixel more (the first frame that shows it,
    ``timeline.first_frames``) sent once per draw, instead of a raster per frame.
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
    if first is None:
        xs, ys, counts = count_points(x, y, x_range, y_range, width, height)
        values, vdims = (shade_levels(counts),), []
    else:
        when = points.get_dimension(first)
        xs, ys, counts, firsts = count_points(x, y, x_range, y_range, width, height,
                                              first=points.dimension_values(first))
        values, vdims = (shade_levels(counts), firsts), [when]
    image = RasterImage((xs, ys, *values), kdims=[xdim, ydim],
                        vdims=[hv.Dimension("level", label="density level"), *vdims])
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


def count_points(x: np.ndarray, y: np.ndarray, x_range, y_range, width: int, height: int,
                 first: np.ndarray | None = None):
    """Datashader's count of the points (x, y) in each of ``width`` x ``height`` pixels over
    ``x_range`` x ``y_range``: the pixel centres along x and y, and the counts (float, shape
    ``(height, width)``, NaN where a pixel is empty, so it is drawn transparent). With
    ``first`` (a number per point, its step), also the least of it in each pixel (float32,
    NaN where empty): the step at which the pixel was first visited.

    Touches no HoloViews or Bokeh object, so ``warmup_rasters`` can call it from a thread."""
    import datashader as ds
    import pandas as pd

    canvas = ds.Canvas(plot_width=width, plot_height=height, x_range=tuple(x_range),
                       y_range=tuple(y_range))
    table = pd.DataFrame({"x": x, "y": y})
    if first is not None:
        table["first"] = np.asarray(first, dtype=np.float64)
        both = canvas.points(table, "x", "y", agg=ds.summary(count=ds.count(),
                                                              first=ds.min("first")))
        counts, firsts = both["count"], both["first"].astype(np.float32)
        counts = counts.astype(np.float32)
        counts = counts.where(counts > 0)
        return (counts.coords["x"].values, counts.coords["y"].values, counts.values,
                firsts.values)
    counts = canvas.points(table, "x", "y", agg=ds.count())
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


def data_extent(element) -> tuple[tuple[float, float], tuple[float, float]]:
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


def same_window(window, x_range, y_range, rtol: float = 1e-6) -> bool:
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


class Plot:
    """One panel of an explorer's figure.

    ``method`` is the method returning the panel's HoloViews element (curves, images,
    annotations), the function itself, written bare after its ``def`` in the class body of the
    model (or of the run, whose panels take the result); ``cloud``, when given, the method
    returning an ``hv.Points`` cloud drawn on top (``cloud_under``: beneath): on the live page
    it always goes through datashader (so a million points stay fast and zooming
    re-rasterizes), in exported figures only when larger than ``DENSE_POINTS``. A name given as
    text is refused (``TypeError``). The panel is keyed by the method's name (``method``, the
    cloud's ``cloud``; the functions are ``function`` and ``cloud_function``), and drawn by the
    owner's method of that name (``views.framework.declared``).
    """

    def __init__(self, method, *, title: str, cloud=None, zoom: bool = False,
                 ignores: tuple[str, ...] = (), depends: tuple[str, ...] | None = None,
                 cloud_under: bool = False):
        if ignores and depends is not None:
            raise ValueError("give a panel's ignores or its depends, not both")
        #: The panel's key: the name of its method; and the method as declared.
        self.method = method_name(method, "Plot")
        self.function = method
        self.title = title
        #: The cloud's method by name (None: no cloud), and as declared.
        self.cloud = None if cloud is None else method_name(cloud, "Plot's cloud")
        self.cloud_function = cloud
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

    def call(self, owner, *args, **kwargs):
        """The panel's element: ``owner``'s method (the run's or the explorer's) of the
        panel's name, so a subclass's override draws."""
        return getattr(owner, self.method)(*args, **kwargs)


def axis(name: str, label: str) -> hv.Dimension:
    """A dimension named ``name`` (the data column) shown as ``label`` (Unicode, no markup)."""
    return hv.Dimension(name, label=label)


def log_spaced(n: int, count: int) -> np.ndarray:
    """About ``count`` unique indices in [0, n) spaced evenly on a log scale (for log-log
    curves: send what the eye can see)."""
    return np.unique(np.geomspace(1, n, num=min(count, n)).astype(int) - 1)


def integer_ticks(lo: float, hi: float, most: int = 10) -> list[int]:
    """Whole-number ticks from ``lo`` to ``hi`` for a discrete axis (states, levels, counts):
    at most ``most``, a stride of 1, 2 or 5 times a power of ten, never a half step between
    two states (Bokeh and matplotlib tick such an axis at -0.5, 0, 0.5, ...)."""
    first, last = math.ceil(lo), math.floor(hi)
    if last < first:
        return []
    stride = 1
    while (last - first) // stride + 1 > most:
        digits = len(str(stride)) - 1
        lead = stride // 10 ** digits
        stride = {1: 2, 2: 5}.get(lead, 10) * 10 ** digits
    start = -(-first // stride) * stride
    return list(range(start, last + 1, stride))


#: An exported figure's title holds at most this many characters (an ellipsis beyond) ...
TITLE_CHARS = 300
#: ... in at most this many lines, each as wide as the figure at most: however long the
#: settings a title names, the figure is never widened by it (a 2,001-digit w0 once drew a
#: 44,867-pixel-wide PNG).
TITLE_LINES = 3


def put_title(fig, title: str):
    """The title of an exported figure, above its panels (``export_figure``, animations),
    fitted to the figure's width (``set_title``); returns the title's artist."""
    return set_title(fig.suptitle("", fontsize=13, y=1.0, va="bottom"), title)


def title_width(fig) -> float:
    """The width a title of ``fig`` may take (display pixels): the span of its axes, panels
    and colour bars, so that no title widens the saved figure (``bbox_inches="tight"`` keeps
    what the axes and their labels cover); the figure's width if it has no axes."""
    boxes = [axes.get_position() for axes in fig.axes]
    if not boxes:
        return fig.bbox.width
    return (max(b.x1 for b in boxes) - min(b.x0 for b in boxes)) * fig.bbox.width


def set_title(artist, title: str, width: float | None = None):
    """Write ``title`` into a figure's title ``artist``: cut to ``TITLE_CHARS`` characters, and
    where wider than ``width`` (display pixels; default ``title_width``), wrapped into lines
    that fit it (long words broken), at most ``TITLE_LINES``, the last ending in an ellipsis
    when the title was cut. Returns ``artist``. An animation passes the width its figure had
    before it was cut to its saved box, so each frame's title wraps as the export's does."""
    import textwrap

    text = clip(title, TITLE_CHARS)
    artist.set_text(text)
    width = title_width(artist.figure) if width is None else width
    wide = artist.get_window_extent().width
    if wide <= width:
        return artist
    chars = max(8, int(len(text) * width / wide))  # the characters a line holds, about
    while True:
        lines = textwrap.wrap(text, chars, max_lines=TITLE_LINES, placeholder=" …")
        artist.set_text("\n".join(lines))
        if chars == 8 or artist.get_window_extent().width <= width:
            return artist
        chars = max(8, int(chars * 0.9))


def export_figure(figure, path, *, title: str | None = None,
                  state: str | None = None, dpi: int | None = None) -> pathlib.Path:
    """Write a HoloViews object to ``path``; the format follows the suffix.

    ``.png``, ``.svg`` and ``.pdf`` render through matplotlib (publication figures; PNG at
    ``dpi``, default 200); ``.html`` is a standalone interactive Bokeh file with inline
    resources (works offline). ``state`` (``views.framework.stamp.state_text``) goes into the
    file's metadata. The file appears complete or not at all (``atomic_path``).
    """
    return export_figures(figure, [path], title=title, state=state, dpi=dpi)[0]


def export_figures(figure, paths, *, title: str | None = None,
                   state: str | None = None, dpi: int | None = None) -> list[pathlib.Path]:
    """``export_figure`` to several files: the matplotlib formats among them are saved from one
    drawing of the figure (the gallery writes each entry as PNG and PDF: half its drawing)."""
    paths = [pathlib.Path(path) for path in paths]
    for path in paths:
        if path.suffix.lower() not in EXPORT_FORMATS:
            raise ValueError(
                f"path must end in one of {', '.join(EXPORT_FORMATS)}, got {str(path)!r}"
            )
    drawn = [path for path in paths if path.suffix.lower() != ".html"]
    for path in paths:
        if path.suffix.lower() == ".html":
            _export_html(figure, path, title=title, state=state)
    if not drawn:
        return paths
    import matplotlib.pyplot as plt

    fig = render_matplotlib(figure)
    fit_colorbars(fig)
    place_legends(fig)
    try:
        if title:
            put_title(fig, title)
        bbox = _tight_box(fig)
        for path in drawn:
            suffix = path.suffix.lower()
            with atomic_path(path) as partial:
                fig.savefig(partial, format=suffix[1:], bbox_inches=bbox,
                            dpi=PNG_DPI if dpi is None and suffix == ".png" else dpi,
                            metadata=_metadata(suffix, state))
    finally:
        plt.close(fig)
        forget_colorbars(fig)
    return paths


def fit_colorbars(fig) -> None:
    """Make every colour bar of ``fig`` (a figure HoloViews drew) as high as its axes' box.

    HoloViews places a bar from its axes' box at the time it draws it, which in an overlay can
    be before the axes' aspect took its final box: PMD's particles' bar at p = 0.95 was 41 px
    beside a 288-px panel (151 px at p = 0.5). Its record of the bars (``ColorbarPlot.
    _colorbars``, by the ``id`` of their axes) gives each axes' bars."""
    from holoviews.plotting.mpl.element import ColorbarPlot

    bars = ColorbarPlot.__dict__.get("_colorbars")
    if not isinstance(bars, dict):
        return
    for axes in fig.axes:
        entries = bars.get(id(axes), ([], None))[0]
        if not entries or any(cax.figure is not fig for _a, cax, _s, _l in entries):
            continue
        axes.apply_aspect()
        box = axes.get_position()
        for _artist, cax, _spec, _label in entries:
            bar = cax.get_position()
            cax.set_position([bar.x0, box.y0, bar.width, box.height])


def _tight_box(fig):
    """The figure's tight bounding box (padded as ``savefig`` pads it), measured once for all
    the formats saved: ``bbox_inches="tight"`` draws the whole figure once more per file to
    measure it (a quarter of a 15-panel gallery entry's export went to those drawings)."""
    import matplotlib as mpl

    if fig.get_layout_engine() is not None:  # a layout engine lays out at save time
        return "tight"
    fig.draw_without_rendering()  # ticks and texts where the saved drawing puts them
    return fig.get_tightbbox().padded(mpl.rcParams["savefig.pad_inches"])


def _export_html(figure, path: pathlib.Path, *, title: str | None, state: str | None) -> None:
    """Plain Bokeh with inline BokehJS: a single file that works offline (saving through Panel
    would link Panel's stylesheets from a CDN)."""
    from bokeh.embed import file_html

    bokeh_backend()
    model = hv.render(figure, backend="bokeh")
    text = file_html(model, standalone_resources(), title=clip(title or path.stem, TITLE_CHARS))
    if state is not None:
        meta = f'<meta name="{stamp.KEY}" content="{html.escape(state, quote=True)}">'
        text = text.replace("<head>", "<head>\n    " + meta, 1)
    with atomic_path(path) as partial:
        partial.write_text(text, encoding="utf-8")


def _metadata(suffix: str, state: str | None) -> dict:
    """The metadata matplotlib writes into a figure: the page state where the format has a
    place for it (``views.framework.stamp``)."""
    if suffix == ".png":
        return {"Software": "Learning Dynamics Explorer", **({stamp.KEY: state} if state else {})}
    key = {".svg": "Description", ".pdf": "Keywords"}[suffix]
    return {"Creator": "Learning Dynamics Explorer", **({key: state} if state else {})}
