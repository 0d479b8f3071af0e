"""What the doubly stochastic gradients page and its runs share: the 2-D task of Sec 3.6.1 and
its exact solution f* (cached), the grid the surfaces are drawn on, the colours, and the
surface panel."""

from __future__ import annotations

from dataclasses import dataclass

import holoviews as hv
import numpy as np

from dynamics import dsg
from views.framework import RasterImage, axis, style
from views.framework.cache import results_cache

__all__ = ["DSG_COLOR", "NORMA_COLOR", "EXACT_COLOR", "MEAN_COLOR", "VAR_COLOR", "GRID",
           "XY_DIMS", "SURFACE", "LIVE", "Task", "grid_points", "make_task", "surface"]

DSG_COLOR, NORMA_COLOR, EXACT_COLOR, MEAN_COLOR, VAR_COLOR = (
    "#d62728", "#1f77b4", "#222222", "#d62728", "#9467bd")
#: Side of the grid the surfaces are drawn on (and the runs' error is measured on).
GRID = 40
XY_DIMS = [axis("x1", "x₁"), axis("x2", "x₂")]
SURFACE = dict(cmap="RdBu_r", colorbar=True)
#: Knobs of the task and kernel (the live panels, and the runs use them).
LIVE = ("points", "bandwidth_factor", "nu", "block", "seed")


def grid_points() -> np.ndarray:
    """The ``GRID`` x ``GRID`` points of [-5, 5]², in the images' row-major order (x₁
    fastest)."""
    g = np.linspace(-5, 5, GRID)
    return np.array([(a, b) for b in g for a in g])


@dataclass(frozen=True)
class Task:
    X: np.ndarray
    y: np.ndarray
    bandwidth: float
    target: np.ndarray  # f* on the grid


@results_cache
def make_task(points: int, factor: float, nu: float, seed: int) -> Task:
    X, y = dsg.synthetic_2d(points, seed=seed)
    bandwidth = dsg.median_bandwidth(X, factor=factor)
    target = dsg.kernel_ridge(X, y, bandwidth=bandwidth, nu=nu)(grid_points())
    return Task(X, y, bandwidth, target)


def surface(values: np.ndarray, label: str, limit: float, *, hover: bool = True):
    """A function on the grid, coloured symmetrically in [-limit, limit]; with ``hover``, its
    values read under the pointer."""
    g = np.linspace(-5, 5, GRID)
    image = RasterImage((g, g, values.reshape(GRID, GRID).astype(np.float32)),
                        kdims=XY_DIMS, vdims=[hv.Dimension("f", label=label)])
    return style(image, **SURFACE, clim=(-limit, limit),
                 bokeh=dict(tools=["hover"] if hover else []))
