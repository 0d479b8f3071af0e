"""Weighted kernel density estimates (eq 4.7) and the results of the inference methods: weighted
particles with a Gaussian kernel, or a Gaussian.

The kernel sums are the cost to beat (the KDE branch of PMD evaluates q_t, a sum of m kernels, at
m new particles every step). ``_kde_cells`` sums in Numba over a cell list: centres are bucketed
into square cells of side ``CUTOFF`` * h, and a point sums only the centres in its own and the
eight neighbouring cells. A kernel beyond ``CUTOFF`` * h weighs exp(-CUTOFF^2 / 2) = exp(-18)
< 2e-8 of one at the centre, and centres of normalised weight below exp(-18) / m are left out of
these sums: the density is exact to an absolute 2 exp(-18) / (2 pi h^2) plus a relative 1e-6
(the near kernels are computed in single precision). A point with no centre
that near gets the exact sum over all centres in the log domain, so far points keep their true
(very negative) log density.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numba import njit, prange

from dynamics.checks import (MAX_ABS, as_generator, check_array, check_count, check_flag,
                              check_in_range, check_positive)
from dynamics.pmd.model import Grid, check_thetas

__all__ = [
    "CUTOFF",
    "weighted_kde",
    "kde_numpy",
    "median_bandwidth",
    "effective_sample_size",
    "Particles",
    "GaussianFit",
]

#: Kernels are summed out to this many bandwidths (see the module text).
CUTOFF = 6.0
#: At most this many cells along a side of the cell list (wider cells beyond it: still exact to
#: the cutoff, only slower).
_MAX_CELLS = 1024


@njit(cache=True, nogil=True)
def _lse_add(top, s, a):
    """Running log-sum-exp: the sum so far is exp(top) * s; add exp(a)."""
    if a <= top:
        return top, s + math.exp(a - top)
    if a == -np.inf:
        return top, s
    return a, s * math.exp(top - a) + 1.0


@njit(cache=True, nogil=True, parallel=True)
def _kde_cells(points, centres, log_weights, h):
    n = points.shape[0]
    out = np.empty(n)
    inv = 0.5 / (h * h)
    lognorm = -math.log(2.0 * math.pi * h * h)
    # Centres whose normalised weight is below exp(-CUTOFF^2 / 2) / m add less than the cutoff
    # error between them all: they are left out of the near sums (not of the far fallback).
    top_w = log_weights.max()
    floor = top_w - 0.5 * CUTOFF * CUTOFF - math.log(centres.shape[0])
    keep = np.nonzero(log_weights >= floor)[0]
    kept = keep.shape[0]
    kx = centres[keep, 0]
    ky = centres[keep, 1]
    x0, y0 = kx.min(), ky.min()
    x1, y1 = kx.max(), ky.max()
    side = max(CUTOFF * h, (x1 - x0) / _MAX_CELLS, (y1 - y0) / _MAX_CELLS, 1e-12)
    nx = int((x1 - x0) / side) + 1
    ny = int((y1 - y0) / side) + 1
    cell = np.empty(kept, dtype=np.int64)
    for j in range(kept):
        cell[j] = int((ky[j] - y0) / side) * nx + int((kx[j] - x0) / side)
    order = np.argsort(cell)
    counts = np.zeros(nx * ny + 1, dtype=np.int64)
    for j in range(kept):
        counts[cell[j] + 1] += 1
    starts = np.cumsum(counts)
    # The near sums in single precision (each kernel to a relative 4e-7, the sum accumulated in
    # double): single-precision exp is about 1.5 times as fast. Weights are relative to the
    # largest, in the linear domain (a centre within the cutoff contributes at least
    # exp(-CUTOFF^2 / 2) of its weight, far above float32's underflow).
    cx = kx[order].astype(np.float32)
    cy = ky[order].astype(np.float32)
    cw = np.exp(log_weights[keep][order] - top_w).astype(np.float32)
    cut2 = np.float32((CUTOFF * h) ** 2)
    inv32 = np.float32(inv)
    for i in prange(n):
        px, py = points[i, 0], points[i, 1]
        qx, qy = np.float32(px), np.float32(py)
        ix = int(math.floor((px - x0) / side))
        iy = int(math.floor((py - y0) / side))
        s = 0.0
        for gy in range(max(iy - 1, 0), min(iy + 2, ny)):
            c0 = gy * nx + max(ix - 1, 0)
            c1 = gy * nx + min(ix + 1, nx - 1)
            if c1 < c0:
                continue
            for k in range(starts[c0], starts[c1 + 1]):  # three neighbouring cells in a row
                dx = qx - cx[k]
                dy = qy - cy[k]
                d2 = dx * dx + dy * dy
                if d2 <= cut2:
                    s += cw[k] * math.exp(-d2 * inv32)
        if s > 0.0:
            out[i] = math.log(s) + top_w + lognorm
        else:  # far from every centre: the exact sum over all, in the log domain
            best, acc = -np.inf, 0.0
            for k in range(centres.shape[0]):
                dx = px - centres[k, 0]
                dy = py - centres[k, 1]
                best, acc = _lse_add(best, acc, log_weights[k] - (dx * dx + dy * dy) * inv)
            out[i] = best + math.log(acc) + lognorm if acc > 0.0 else -np.inf
    return out


def _log_weights(weights: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(weights / weights.sum())


def _check_kde(points, centres, weights, bandwidth):
    points = check_array("points", points, ndim=2, shape=(None, 2), max_abs=MAX_ABS)
    centres = check_array("centres", centres, ndim=2, shape=(None, 2), max_abs=MAX_ABS)
    if centres.shape[0] == 0:
        raise ValueError("centres must hold at least one particle")
    weights = check_array("weights", weights, shape=(centres.shape[0],))
    if np.any(weights < 0) or weights.sum() <= 0:
        raise ValueError("weights must be non-negative with a positive sum")
    # h^2 neither overflows nor underflows, and the cell list's cells (h wide) stay countable
    h = check_in_range("bandwidth", bandwidth, 1e-100, 1e100)
    spread = float(np.ptp(np.concatenate([points, centres]), axis=0).max())
    if spread / h > 1e100:
        raise ValueError(f"bandwidth {h:g} is too small for points and centres spread over "
                         f"{spread:g} (at most 1e100 bandwidths)")
    return points, centres, weights, h


def weighted_kde(points, centres, weights, bandwidth: float, *, log: bool = False) -> np.ndarray:
    """The weighted Gaussian kernel density estimate sum_j w_j N(point; centre_j, h^2 I) at each
    point (eq 4.7; the weights are normalised here). ``log=True`` returns its logarithm."""
    points, centres, weights, h = _check_kde(points, centres, weights, bandwidth)
    log = check_flag("log", log)
    out = _kde_cells(points, centres, _log_weights(weights), h)
    return out if log else np.exp(out)


def kde_numpy(points, centres, weights, bandwidth: float) -> np.ndarray:
    """The same estimate by NumPy broadcasting (an n x m array of kernels): the reference that
    the benchmark measures ``weighted_kde`` against."""
    points, centres, weights, h = _check_kde(points, centres, weights, bandwidth)
    d2 = ((points[:, None, :] - centres[None, :, :]) ** 2).sum(-1)
    return np.exp(-0.5 * d2 / h**2) @ (weights / weights.sum()) / (2 * math.pi * h * h)


def median_bandwidth(particles, fraction: float = 0.1, *, max_particles: int = 1000,
                     seed=0) -> float:
    """The median trick of Sec 4.6.1: ``fraction`` times the median pairwise distance between
    the particles (a random subset of at most ``max_particles`` of them)."""
    x = check_array("particles", particles, ndim=2, shape=(None, 2))
    fraction = check_positive("fraction", fraction)
    # pairwise distances are O(max_particles^2) memory: at most 10,000 particles (400 MB)
    max_particles = check_count("max_particles", max_particles, low=2, high=10_000)
    rng = as_generator(seed)  # checked even when every particle is used
    if x.shape[0] > max_particles:
        x = x[rng.choice(x.shape[0], max_particles, replace=False)]
    if len(x) < 2:
        return 1e-3
    return max(fraction * float(np.median(_pair_distances(x))), 1e-6)


def effective_sample_size(weights) -> float:
    """Kish's effective sample size 1 / sum w_i^2 of the normalised weights (m for equal
    weights, 1 when one particle holds all the weight). The weights are non-negative with a
    positive sum (they are normalised here)."""
    w = check_array("weights", weights, ndim=1)
    if w.size == 0 or np.any(w < 0) or not w.sum() > 0:
        raise ValueError(f"weights must be a non-empty, non-negative vector with a positive sum, "
                         f"got {w!r}")
    w = w / w.sum()
    return float(1.0 / np.sum(w * w))


@njit(cache=True, nogil=True, fastmath=True)
def _splat(centres, weights, h, x0, dx, nx, y0, dy, ny):
    """The weighted Gaussian KDE at every node of a regular grid, adding each kernel to the
    nodes within CUTOFF * h of its centre (the kernel factorises into x and y parts)."""
    out = np.zeros((ny, nx))
    inv = 0.5 / (h * h)
    norm = 1.0 / (2.0 * math.pi * h * h)
    reach = CUTOFF * h
    ex = np.empty(nx)
    for j in range(centres.shape[0]):
        w = weights[j] * norm
        if w == 0.0:
            continue
        cx, cy = centres[j, 0], centres[j, 1]
        i0 = max(0, int(math.ceil((cx - reach - x0) / dx)))
        i1 = min(nx - 1, int(math.floor((cx + reach - x0) / dx)))
        k0 = max(0, int(math.ceil((cy - reach - y0) / dy)))
        k1 = min(ny - 1, int(math.floor((cy + reach - y0) / dy)))
        for i in range(i0, i1 + 1):
            ex[i] = math.exp(-((x0 + i * dx - cx) ** 2) * inv)
        for k in range(k0, k1 + 1):
            wy = w * math.exp(-((y0 + k * dy - cy) ** 2) * inv)
            for i in range(i0, i1 + 1):
                out[k, i] += wy * ex[i]
    return out


@njit(cache=True, nogil=True)
def _pair_distances(x):
    n = x.shape[0]
    out = np.empty(n * (n - 1) // 2)
    k = 0
    for i in range(n):
        for j in range(i + 1, n):
            out[k] = math.sqrt((x[i, 0] - x[j, 0]) ** 2 + (x[i, 1] - x[j, 1]) ** 2)
            k += 1
    return out


# --- results ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Particles:
    """A method's posterior as weighted particles: ``particles`` (m, 2), ``weights`` (m,)
    summing to 1, and the ``bandwidth`` of the Gaussian kernel ``density`` puts on each.

    ``history`` holds what the run recorded as it went, one entry per checkpoint: ``seen``
    (data visited), ``ess``, ``clouds`` ((particles, weights) pairs) and method-specific
    entries (``resamplings``, ``bandwidths``)."""

    particles: np.ndarray
    weights: np.ndarray
    bandwidth: float
    method: str
    history: dict = field(default_factory=dict, repr=False, compare=False)

    def density(self, points) -> np.ndarray:
        """The weighted kernel density estimate at ``points`` (n, 2)."""
        return weighted_kde(points, self.particles, self.weights, self.bandwidth)

    def density_on(self, grid: Grid, bandwidth: float | None = None) -> np.ndarray:
        """The weighted kernel density estimate on every node of ``grid``, shape grid.shape."""
        h = self.bandwidth if bandwidth is None else check_positive("bandwidth", bandwidth)
        return _splat(self.particles, self.weights, h, grid.x[0], grid.x[1] - grid.x[0],
                      grid.x.size, grid.y[0], grid.y[1] - grid.y[0], grid.y.size)

    @property
    def ess(self) -> float:
        return effective_sample_size(self.weights)


@dataclass(frozen=True)
class GaussianFit:
    """A Gaussian posterior N(``mean``, ``cov``): SVI's family, or a moment fit to samples;
    ``particles`` and ``weights``: equally weighted draws from it, when the method made some."""

    mean: np.ndarray
    cov: np.ndarray
    method: str
    history: dict = field(default_factory=dict, repr=False, compare=False)
    particles: np.ndarray | None = field(default=None, repr=False, compare=False)
    weights: np.ndarray | None = field(default=None, repr=False, compare=False)

    def density(self, points) -> np.ndarray:
        pts = check_thetas(points) - self.mean
        inv = np.linalg.inv(self.cov)
        q = np.einsum("ni,ij,nj->n", pts, inv, pts)
        return np.exp(-0.5 * q) / (2 * math.pi * math.sqrt(np.linalg.det(self.cov)))

    def density_on(self, grid: Grid) -> np.ndarray:
        return self.density(grid.points()).reshape(grid.shape)

    @classmethod
    def of(cls, samples: Particles) -> GaussianFit:
        """The Gaussian with the weighted mean and covariance of a particle set."""
        w = samples.weights
        mean = w @ samples.particles
        d = samples.particles - mean
        cov = (d * w[:, None]).T @ d + 1e-12 * np.eye(2)
        return cls(mean, cov, samples.method + " (Gaussian fit)")


def _warmup() -> None:
    pts = np.array([[0.0, 0.0], [1.0, 0.5], [9.0, 9.0]])
    lw = np.full(3, -math.log(3))
    _kde_cells(pts, pts, lw, 0.5)
    _splat(pts, np.full(3, 1 / 3), 0.5, -1.0, 0.5, 5, -1.0, 0.5, 5)
    _pair_distances(pts)
