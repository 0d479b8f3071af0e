"""What the Doeblin page's panels (live and its runs') share: HoloViews elements holding plain
dicts of arrays, values for a log axis, and a square box in exports."""

from __future__ import annotations

import functools

import holoviews as hv
import numpy as np

#: Elements hold plain dicts of arrays: HoloViews' default, a pandas DataFrame, costs several
#: ms per element on every redraw (conversion, cloning by .opts, range computation).
_DICT = ["dictionary"]
Curve, Scatter, Rectangles, Segments, Points, Spread, ErrorBars = (
    functools.partial(cls, datatype=_DICT) for cls in (
        hv.Curve, hv.Scatter, hv.Rectangles, hv.Segments, hv.Points, hv.Spread, hv.ErrorBars))


def square_axes(plot, element) -> None:
    """Matplotlib hook: a square box. HoloViews' default 'square' aspect is computed from the
    data range and comes out several times too narrow with a log x and a linear y axis."""
    ax = plot.handles["axis"]
    ax.set_aspect("auto")
    aspect = plot.aspect  # width / height when given as a number (e.g. the thumbnails' 1.5)
    ax.set_box_aspect(1 / aspect if isinstance(aspect, (int, float)) else 1)


def positive(values: np.ndarray, floor: float = 0.0) -> np.ndarray:
    """Values for a log axis: zeros (or values at most ``floor``) and infinities become gaps."""
    out = np.asarray(values, dtype=float).copy()
    out[~(out > floor) | ~np.isfinite(out)] = np.nan
    return out

