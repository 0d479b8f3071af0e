"""The timeline's data and marks (``views.framework.timeline`` plays them): ``Frames``, the
per-frame values of a result; ``Mark``, a layer of a panel drawn at time t; the frame and byte
budget of what is sent to the browser (``strided``); and what the browser needs to redraw a mark
(``browser_spec``, ``arrays_data``).

Two kinds of per-frame data:

- ``columns``: one number per frame (a weight coordinate, a step), drawn by the marks ``point``,
  ``trail``, ``ray``, ``vline``, ``future``, ``history``, and ``prefix`` (which reads ``fixed``
  arrays);
- ``arrays``: one row per frame, of any fixed shape (a set of particles, a histogram over
  states, an image), drawn by the marks ``points``, ``curve``, ``rects`` and ``image``. The
  browser swaps the row into the mark's data source. Float rows are sent as float32, boolean
  ones (an Ising sample's spins) as bits; a row of variable length is padded with NaN (a point
  or line vertex at NaN is not drawn).

``fixed`` holds per-run constants the marks read (an image's bounds, the states' x positions,
the data a ``prefix`` mark shows the first t of).

A ``grow`` mark draws no layer: it builds the panel's own picture up in time. Every layer of
the panel holding its dimension (a curve over the steps, a cloud of weights each with its step,
a dense cloud's raster with the step each pixel was first visited) draws only the rows, or
pixels, whose value is at most the frame's (``grown``); the rest has not happened yet.
"""

from __future__ import annotations

import json
import numbers
from dataclasses import dataclass, field
from typing import Callable

import holoviews as hv
import numpy as np

from views.framework.declared import method_name
from views.framework.figure import style
from views.framework.pin import PINNED_GROUP
from views.framework.workarounds import RasterImage

__all__ = ["Frames", "Mark", "MARK_KINDS", "MAX_BYTES", "strided", "frames_bytes",
           "arrays_data", "browser_spec", "legend_layer", "grows", "grown", "FADED_ALPHA"]

#: At most this many bytes of frames are sent for one run (issue 26: 1 MB); longer runs are
#: strided and the control says so.
MAX_BYTES = 1_000_000
#: Marks drawn from per-frame numbers (``Frames.columns``) and from per-frame rows (``arrays``).
COLUMN_KINDS = ("point", "trail", "ray", "vline", "future", "history", "prefix", "grow")
ARRAY_KINDS = ("points", "curve", "rects", "image")
MARK_KINDS = COLUMN_KINDS + ARRAY_KINDS


@dataclass(frozen=True)
class Frames:
    """The time axis of one result: ``t`` the engine's time of each frame (whole numbers,
    increasing), ``columns`` per-frame values (1-D arrays, one entry per frame), ``arrays``
    per-frame rows (arrays whose first axis is the frame), ``fixed`` per-run constants;
    ``total`` the number of frames of the run before any striding, ``stride`` the steps
    between sent frames."""

    t: np.ndarray
    columns: dict
    total: int = 0
    stride: int = 1
    arrays: dict = field(default_factory=dict)
    fixed: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.t)

    def value(self, name: str, i: int | None = None):
        """The data ``name`` (a column, a fixed array, or row ``i`` of an array)."""
        if name == "t":
            return self.t
        if name in self.columns:
            return self.columns[name]
        if name in self.arrays:
            return self.arrays[name][i]
        return self.fixed[name]


@dataclass(frozen=True)
class Mark:
    """A layer of panel ``plot`` drawn at the current time: the panel's method itself (the
    model's, or the run's), written bare after its ``def`` in the class body; the mark keeps
    its name, the panel's key, in ``plot`` and the method in ``function``. ``kind`` is one of
    these words. From per-frame numbers (``Frames.columns``):

    - ``point``: the point (x, y) of frame t;
    - ``trail``: the points of the last ``length`` frames up to t (all with None), as a line;
    - ``ray``: the segment from the origin to (x, y);
    - ``vline``: a vertical line at x;
    - ``future``: a veil from x + ``offset`` to the last frame's x + ``offset`` (what has not
      happened yet at t);
    - ``history``: the points (x, y) of every frame up to t;
    - ``prefix``: the first t entries of the fixed arrays x and y, as points (the data seen by
      time t);
    - ``grow``: no layer of its own: the panel's layers that have the dimension ``dims[0]``
      draw only their rows whose value of it is at most x's at frame t (a raster that has it
      as its second value, the first step at which each pixel was visited: those pixels);
      layers whose label starts with one of ``keep`` (guides, theory) stay whole. See
      ``grown``.

    From per-frame rows (``Frames.arrays``; a name may also be a ``fixed`` array):

    - ``points``: the row's points (x, y, then ``more``: further value dimensions);
    - ``curve``: the row as a line (x, y);
    - ``rects``: rectangles (x, y, then ``more`` = (x1, y1)), bars of a histogram;
    - ``image``: the row (2-D) as an image over the ``fixed`` bounds named ``bounds``.

    ``dims`` are the element's dimensions (key dimensions, then values); ``columns`` maps a
    column of the Bokeh data source that a style option makes (``color``, ``size``) to the data
    it comes from; ``options`` style options for both backends
    (``bokeh=`` and ``mpl=`` keys for one of them), or a function returning them (options that
    hold ``hv.dim`` expressions: HoloViews imports Panel to build one, which a page's class
    body must not, so that the model imports no Panel). A mark has no legend entry: one would be
    laid out again on every frame (with the plot's axes: 10-15 ms a plot in Chromium); the
    panel draws an empty layer styled as the mark, with the label, instead. An ``always``
    mark is the picture itself (a
    sample, a histogram), drawn in exports at the default time too; the others (a marker of the
    current time) only when a time is chosen."""

    plot: str  # given as the method, kept as its name
    kind: str
    x: str
    y: str | None = None
    dims: tuple = ("x", "y")
    length: int | None = 20
    offset: float = 0.0
    options: dict | Callable[[], dict] = field(default_factory=dict)
    more: tuple = ()
    columns: dict = field(default_factory=dict)
    bounds: str | None = None
    always: bool = False
    keep: tuple = ()
    #: The panel's method, as declared.
    function: Callable = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "function", self.plot)
        object.__setattr__(self, "plot", method_name(self.plot, "Mark"))
        if self.kind not in MARK_KINDS:
            raise ValueError(f"Mark kind must be one of {MARK_KINDS}, got {self.kind!r}")

    def names(self) -> tuple:
        """The data the mark reads, in the order of its dimensions."""
        return tuple(n for n in (self.x, self.y, *self.more) if n is not None)

    def data(self, frames: Frames, i: int):
        """What the mark draws at frame ``i``: x of a ``vline``; the ends (x0, x1) of a
        ``future`` veil; the image and its bounds; else the arrays of its dimensions in order
        (xs, ys, then ``more``)."""
        if self.kind in ("vline", "grow"):
            return float(frames.value(self.x)[i])
        if self.kind == "future":
            x = frames.value(self.x)
            return float(x[i]) + self.offset, float(x[-1]) + self.offset
        if self.kind in COLUMN_KINDS:
            x, y = frames.value(self.x), frames.value(self.y)
            if self.kind == "point":
                xs, ys = x[i:i + 1], y[i:i + 1]
            elif self.kind == "prefix":
                n = int(frames.t[i])
                xs, ys = x[:n], y[:n]
            elif self.kind == "ray":
                xs, ys = np.array([0.0, x[i]]), np.array([0.0, y[i]])
            else:  # trail, history
                lo = 0 if self.length is None or self.kind == "history" else max(0, i - self.length)
                xs, ys = x[lo:i + 1], y[lo:i + 1]
            return np.asarray(xs, float), np.asarray(ys, float)
        if self.kind == "image":
            return (np.asarray(frames.value(self.x, i), np.float32),
                    tuple(frames.fixed[self.bounds]))
        return tuple(np.asarray(frames.value(n, i)) for n in self.names())

    def element(self, frames: Frames, i: int):
        """The mark at frame ``i`` as a HoloViews element (styled)."""
        options = dict(self.options() if callable(self.options) else self.options)
        bokeh, mpl = options.pop("bokeh", {}), options.pop("mpl", {})
        kdims = list(self.dims)
        data = self.data(frames, i)
        if self.kind == "vline":
            element = hv.VLine(data)
        elif self.kind == "future":
            element = hv.VSpan(*data)
        elif self.kind in ("point", "history", "prefix"):
            element = hv.Points(data, kdims=kdims[:2])
        elif self.kind in COLUMN_KINDS:  # trail, ray
            element = hv.Curve(data, kdims=kdims[:1], vdims=kdims[1:2])
        elif self.kind == "image":
            element = RasterImage(data[0], bounds=data[1], kdims=kdims[:2], vdims=kdims[2:])
        elif self.kind == "points":
            element = hv.Points(data, kdims=kdims[:2], vdims=kdims[2:])
        elif self.kind == "curve":
            element = hv.Curve(data, kdims=kdims[:1], vdims=kdims[1:])
        else:
            element = hv.Rectangles(data, kdims=kdims[:4])
        return style(element, **options, bokeh=bokeh, mpl=mpl)


def legend_layer(kind: str, dims, label: str, **options):
    """The legend entry of a mark (marks have none, see ``Mark``): a layer of one point at NaN
    (not drawn; an empty one gets no symbol in Bokeh's legend) of the element the mark draws,
    ``kind`` "points", "curve" or "rects", styled with the mark's ``options``."""
    dims = list(dims)
    if kind == "rects":
        element = hv.Rectangles([(np.nan,) * 4], kdims=dims[:4], label=label)
    elif kind == "curve":
        element = hv.Curve([(np.nan, np.nan)], kdims=dims[:1], vdims=dims[1:2], label=label)
    else:
        element = hv.Points([(np.nan, np.nan)], kdims=dims[:2], label=label)
    return style(element, **options)


def _column(dim) -> str:
    """The Bokeh data-source column of a HoloViews dimension."""
    return hv.core.util.dimension_sanitizer(hv.Dimension(dim).name)


def browser_spec(mark: Mark, name: str) -> dict:
    """What the browser needs to redraw ``mark`` (Bokeh model ``name``): its kind, and the
    data of each column of its source (``cols``), or its numbers (``x``, ``y``)."""
    spec = dict(name=name, kind=mark.kind, x=mark.x, y=mark.y, length=mark.length,
                offset=mark.offset)
    if mark.kind == "grow":
        spec.update(dim=_column(mark.dims[0]))
        return spec
    if mark.kind in COLUMN_KINDS:
        spec.update(cx=_column(mark.dims[0]),
                    cy=_column(mark.dims[1]) if len(mark.dims) > 1 else None)
        if mark.kind == "history":
            spec["length"] = None
        return spec
    if mark.kind == "rects":
        cols = dict(zip(("left", "bottom", "right", "top"), mark.names()))
    elif mark.kind == "image":
        cols = {"image": mark.x}
    else:
        cols = {_column(d): n for d, n in zip(mark.dims, mark.names())}
    spec["cols"] = {**cols, **mark.columns}
    return spec


def _sent(values: np.ndarray) -> np.ndarray:
    """A per-frame array as it is sent and drawn: float32 for floats (what the eye can see),
    booleans as they are (sent as bits), whole numbers as they are."""
    values = np.asarray(values)
    if values.dtype.kind == "f" and values.dtype != np.float32:
        return values.astype(np.float32)
    return values


def _row_bytes(values: np.ndarray) -> int:
    width = int(np.prod(values.shape[1:], dtype=np.int64))
    return -(-width // 8) if values.dtype == bool else width * values.dtype.itemsize


def frames_bytes(frames: Frames) -> int:
    """The bytes sent for ``frames``: 8 a number per frame (``t`` and each column), the rows
    (bits for booleans), the fixed arrays."""
    per_frame = 8 * (1 + len(frames.columns)) + sum(
        _row_bytes(a) for a in frames.arrays.values())
    return len(frames) * per_frame + sum(np.asarray(v).nbytes for v in frames.fixed.values())


def strided(frames: Frames, max_frames: int, max_bytes: int = MAX_BYTES) -> Frames:
    """``frames`` itself when at most ``max_frames`` long and ``max_bytes`` large (rows cast as
    sent, see ``_sent``), else every k-th frame (k the smallest that fits) and the last one."""
    arrays = {name: _sent(values) for name, values in frames.arrays.items()}
    frames = Frames(frames.t, frames.columns, arrays=arrays, fixed=frames.fixed)
    n = len(frames)
    size = frames_bytes(frames)
    fixed = sum(np.asarray(v).nbytes for v in frames.fixed.values())
    per_frame = (size - fixed) / max(n, 1)
    fit = max(2, int((max_bytes - fixed) // per_frame)) if per_frame else n
    limit = min(max_frames, fit)
    if n <= limit:
        return Frames(frames.t, frames.columns, total=n, stride=1, arrays=arrays,
                      fixed=frames.fixed)
    k = -(-(n - 1) // (limit - 1))
    keep = np.arange(0, n, k)
    if keep[-1] != n - 1:
        keep = np.append(keep, n - 1)
    if len(keep) > limit:  # the last frame added: one more step apart
        k += 1
        keep = np.arange(0, n, k)
        if keep[-1] != n - 1:
            keep = np.append(keep, n - 1)
    return Frames(frames.t[keep], {c: v[keep] for c, v in frames.columns.items()},
                  total=n, stride=k, arrays={c: v[keep] for c, v in arrays.items()},
                  fixed=frames.fixed)


def arrays_data(frames: Frames, images: set) -> dict:
    """The per-frame rows and fixed arrays as the browser gets them: one column each holding
    the flat array (a list of one, so that the source's columns have equal lengths), images
    flipped as Bokeh draws them (row 0 at the bottom), booleans packed into bits; and
    ``__meta__``, their row widths and shapes (JSON)."""
    data, meta = {}, {}
    for name, values in frames.arrays.items():
        if name in images:
            values = values[:, ::-1]
        shape = list(values.shape[1:])
        width = int(np.prod(shape, dtype=np.int64))
        bits = values.dtype == bool
        flat = values.reshape(len(values), width)
        flat = np.packbits(flat, axis=1) if bits else flat
        data[name] = [np.ascontiguousarray(flat).ravel()]
        meta[name] = dict(width=width, stride=flat.shape[1], shape=shape, bits=bool(bits))
    for name, values in frames.fixed.items():
        values = np.asarray(values, dtype=np.float64)
        data[name] = [values.ravel()]
        meta[name] = dict(fixed=True, shape=list(values.shape))
    data["__meta__"] = [json.dumps(meta)]
    return data


#: The opacity of what has not happened yet, when the timeline shows it faded.
FADED_ALPHA = 0.15


def grows(layer, mark: Mark) -> bool:
    """Whether ``layer`` (one element of a panel) builds up under the ``grow`` mark: it has
    the mark's dimension, its label does not start with one of its ``keep`` and it is not a
    pinned state's (``pin.PINNED_GROUP``)."""
    if mark.kind != "grow" or str(getattr(layer, "label", "")).startswith(tuple(mark.keep) or ("\0",)):
        return False
    if getattr(layer, "group", None) == PINNED_GROUP:
        return False  # the pinned state's whole run, drawn faded under the live one
    if isinstance(layer, hv.Image):
        return len(layer.vdims) > 1 and layer.vdims[1].name == mark.dims[0]
    try:
        return layer.get_dimension(mark.dims[0]) is not None
    except Exception:  # noqa: BLE001 - an element without dimensions: not grown
        return False


def grown(layer, mark: Mark, value: float):
    """``layer`` as it stands at time ``value`` of the ``grow`` mark's dimension: its rows
    whose value is at most ``value`` (a raster: its first value where its second, the step a
    pixel was first visited, is at most ``value``, 0 elsewhere, without the second), on the axes of the whole
    layer (its dimensions' ranges set to the whole layer's: a picture at t = 0 is drawn on
    the axes it will fill)."""
    dim = mark.dims[0]
    if isinstance(layer, hv.Image):
        levels = layer.dimension_values(2, flat=False)
        first = layer.dimension_values(3, flat=False)
        with np.errstate(invalid="ignore"):
            seen = first <= value
        levels = np.where(seen, levels, np.zeros((), levels.dtype))
        xs, ys = layer.dimension_values(0, expanded=False), layer.dimension_values(1, expanded=False)
        return layer.clone((xs, ys, levels), vdims=layer.vdims[:1])
    values = np.asarray(layer.dimension_values(dim), dtype=float)
    with np.errstate(invalid="ignore"):  # a row at NaN (a break, a legend's) is not drawn
        keep = np.flatnonzero(~(values > value))
    if len(keep) == len(values):
        return layer
    ranges = {}
    for d in layer.dimensions()[:4]:
        lo, hi = layer.range(d)
        if all(isinstance(v, numbers.Real) and np.isfinite(v) for v in (lo, hi)):
            ranges[d.name] = (lo, hi)
    return layer.iloc[keep].redim.range(**ranges)
