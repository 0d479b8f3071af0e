"""The mixture model of Sec 4.6.1, its exact posterior on a grid, and distances between densities
on a grid (total variation and cross entropy, Fig 4.1 (1)-(2))."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from dynamics.checks import (MAX_ABS, as_generator, check_array, check_count, check_in_range,
                              check_instance, check_positive)

__all__ = [
    "MixtureModel",
    "MODEL_PRESETS",
    "Grid",
    "grid_posterior",
    "total_variation",
    "cross_entropy",
    "DENSITY_FLOOR",
]

_LOG_2PI = math.log(2.0 * math.pi)


@dataclass(frozen=True)
class MixtureModel:
    """The two-component mixture of Sec 4.6.1 (after Welling and Teh 2011, Sec 5.1):

        x ~ p N(theta1, sigma_x^2) + (1 - p) N(theta1 + theta2, sigma_x^2),
        theta1 ~ N(0, sigma1^2), theta2 ~ N(0, sigma2^2),

    all sigmas standard deviations. The component means are tied, so with p = 1/2 the
    likelihood of any data is unchanged by (theta1, theta2) -> (theta1 + theta2, -theta2): the
    posterior has two modes, (1, -2) and about (-1, 2) for the paper's data."""

    sigma1: float = 1.0
    sigma2: float = 1.0
    sigma_x: float = 2.5
    p: float = 0.5

    def __post_init__(self):
        for name in ("sigma1", "sigma2", "sigma_x"):
            object.__setattr__(self, name, check_positive(name, getattr(self, name)))
        object.__setattr__(self, "p", check_in_range("p", self.p, 0.0, 1.0, low_open=True,
                                                     high_open=True))

    @property
    def prior_scale(self) -> np.ndarray:
        return np.array([self.sigma1, self.sigma2])

    def sample(self, n: int, theta, *, seed=None) -> np.ndarray:
        """``n`` observations drawn with parameters ``theta`` = (theta1, theta2)."""
        n = check_count("n", n)
        theta = check_array("theta", theta, shape=(2,))
        rng = as_generator(seed)
        first = rng.random(n) < self.p
        means = np.where(first, theta[0], theta[0] + theta[1])
        return means + self.sigma_x * rng.standard_normal(n)

    def prior_draws(self, m: int, rng: np.random.Generator) -> np.ndarray:
        """``m`` draws from the prior, shape (m, 2)."""
        return rng.standard_normal((m, 2)) * self.prior_scale

    def log_prior(self, thetas) -> np.ndarray:
        """log p(theta) at each row of ``thetas`` (m, 2)."""
        thetas = check_thetas(thetas)
        return (-0.5 * (thetas[:, 0] / self.sigma1) ** 2 - 0.5 * (thetas[:, 1] / self.sigma2) ** 2
                - _LOG_2PI - math.log(self.sigma1 * self.sigma2))

    def log_likelihood(self, x, thetas) -> np.ndarray:
        """sum_n log p(x_n | theta) at each row of ``thetas`` (m, 2): shape (m,)."""
        return log_likelihood(self, check_data(x), check_thetas(thetas))

    def grad_log_posterior(self, x, thetas, scale: float = 1.0) -> np.ndarray:
        """Gradient of log p(theta) + scale * sum_n log p(x_n | theta) at each row of
        ``thetas``, shape (m, 2) (SGLD's and SVI's drift, with scale = N / b)."""
        thetas = np.ascontiguousarray(thetas, dtype=np.float64)
        grad = _grad_log_likelihood(np.ascontiguousarray(x, dtype=np.float64), thetas,
                                    self.sigma_x, self.p) * scale
        grad[:, 0] -= thetas[:, 0] / self.sigma1 ** 2
        grad[:, 1] -= thetas[:, 1] / self.sigma2 ** 2
        return grad


#: Presets: name -> (model, true theta, number of data). Welling and Teh's Sec 5.1 writes
#: variances: sigma1^2 = 10, sigma2^2 = 1, sigma_x^2 = 2. Sec 4.6.1 writes "(sigma1, sigma2) =
#: (1, 1), sigma_x = 2.5" (L2382) without saying whether these are standard deviations or, as in
#: the source it cites for the model (Welling and Teh), variances. The thesis says Gibbs and SGLD
#: stay "in one local mode in each run": with sigma_x^2 = 2.5 Gibbs does on 10 of 10 data sets,
#: with sigma_x = 2.5 it crosses between the modes on 6 of 10 (docs/paper-comparisons.md). The variance reading is the first preset (the page's default);
#: sigma1 = sigma2 = 1 reads the same either way.
MODEL_PRESETS = {
    "Dai, Sec 4.6.1 (Fig 4.1)": (MixtureModel(1.0, 1.0, math.sqrt(2.5), 0.5), (1.0, -2.0), 1000),
    "Dai, Sec 4.6.1, σₓ = 2.5 as a standard deviation": (MixtureModel(1.0, 1.0, 2.5, 0.5),
                                                         (1.0, -2.0), 1000),
    "Welling & Teh 2011, Sec 5.1": (MixtureModel(math.sqrt(10.0), 1.0, math.sqrt(2.0), 0.5),
                                    (0.0, 1.0), 100),
}


def check_thetas(thetas) -> np.ndarray:
    return check_array("thetas", thetas, ndim=2, shape=(None, 2))


def check_data(data) -> np.ndarray:
    x = check_array("data", data, ndim=1, max_abs=MAX_ABS)
    if x.size == 0:
        raise ValueError("data must hold at least one observation, got an empty array")
    return x


def log_likelihood(model: MixtureModel, x: np.ndarray, thetas: np.ndarray) -> np.ndarray:
    """``model.log_likelihood`` without the input checks (the engines' inner loops)."""
    return _log_likelihood(x, thetas, model.sigma_x, model.p)


@njit(cache=True, nogil=True, parallel=True, fastmath=True)
def _log_likelihood(x, thetas, sigma_x, p):
    m = thetas.shape[0]
    out = np.empty(m)
    c = -0.5 * math.log(2.0 * math.pi) - math.log(sigma_x)
    lp, lq = math.log(p), math.log(1.0 - p)
    inv = 0.5 / (sigma_x * sigma_x)
    for i in prange(m):
        a, b = thetas[i, 0], thetas[i, 0] + thetas[i, 1]
        total = 0.0
        for n in range(x.shape[0]):
            u = lp - (x[n] - a) ** 2 * inv
            v = lq - (x[n] - b) ** 2 * inv
            total += max(u, v) + math.log1p(math.exp(-abs(u - v)))
        out[i] = total + c * x.shape[0]
    return out


@njit(cache=True, nogil=True)
def _grad_log_likelihood(x, thetas, sigma_x, p):
    m = thetas.shape[0]
    out = np.zeros((m, 2))
    lp, lq = math.log(p), math.log(1.0 - p)
    inv = 1.0 / (sigma_x * sigma_x)
    for i in range(m):
        a, b = thetas[i, 0], thetas[i, 0] + thetas[i, 1]
        for n in range(x.shape[0]):
            u = lp - 0.5 * (x[n] - a) ** 2 * inv
            v = lq - 0.5 * (x[n] - b) ** 2 * inv
            r = 1.0 / (1.0 + math.exp(min(v - u, 700.0)))  # responsibility of component 1
            da = r * (x[n] - a) * inv
            db = (1.0 - r) * (x[n] - b) * inv
            out[i, 0] += da + db
            out[i, 1] += db
    return out


# --- grids ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Grid:
    """An evenly spaced grid over theta = (theta1, theta2): ``x`` (theta1 values), ``y``
    (theta2 values); densities on it have shape (len(y), len(x))."""

    x: np.ndarray
    y: np.ndarray

    def __post_init__(self):
        for name in ("x", "y"):
            g = check_array(f"grid_{name}", getattr(self, name), ndim=1)
            if g.size < 2:
                raise ValueError(f"grid_{name} must hold at least 2 points, got {g.size}")
            step = np.diff(g)
            if np.any(step <= 0) or not np.allclose(step, step[0], rtol=1e-6, atol=0):
                raise ValueError(f"grid_{name} must be evenly spaced and increasing")
            object.__setattr__(self, name, g)

    @classmethod
    def around(cls, lo, hi, spacing: float) -> Grid:
        """The grid from ``lo`` = (theta1, theta2) to ``hi`` with about ``spacing`` between
        points."""
        spacing = check_positive("spacing", spacing)
        nx = int(round((hi[0] - lo[0]) / spacing)) + 1
        ny = int(round((hi[1] - lo[1]) / spacing)) + 1
        return cls(np.linspace(lo[0], hi[0], max(nx, 2)), np.linspace(lo[1], hi[1], max(ny, 2)))

    @property
    def cell_area(self) -> float:
        return float((self.x[1] - self.x[0]) * (self.y[1] - self.y[0]))

    @property
    def shape(self) -> tuple[int, int]:
        return (self.y.size, self.x.size)

    def points(self) -> np.ndarray:
        """Every grid point as a row (theta1, theta2), in the density's raveled order."""
        xx, yy = np.meshgrid(self.x, self.y)
        return np.column_stack([xx.ravel(), yy.ravel()])


def grid_posterior(model: MixtureModel, data, grid_x, grid_y) -> np.ndarray:
    """The exact posterior p(theta | data) on the grid, shape (len(grid_y), len(grid_x)): the
    prior times the likelihood (a log-sum-exp over the two components per datum), normalised
    so that its sum times the cell area is 1 (the mass outside the grid is neglected)."""
    model = check_instance("model", model, MixtureModel)
    x = check_data(data)
    grid = Grid(grid_x, grid_y)
    points = grid.points()
    log_post = model.log_prior(points) + log_likelihood(model, x, points)
    log_post -= log_post.max()
    dens = np.exp(log_post)
    dens /= dens.sum() * grid.cell_area
    return dens.reshape(grid.shape)


# --- distances between densities on a grid ------------------------------------------------------


def _check_grid_densities(p, q, cell_area):
    p = check_array("p", p, max_abs=MAX_ABS)
    q = check_array("q", q, max_abs=MAX_ABS)
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same shape, got {p.shape} and {q.shape}")
    area = check_in_range("cell_area", cell_area, 0.0, MAX_ABS, low_open=True)
    for name, dens in (("p", p), ("q", q)):
        if np.any(dens < 0):
            raise ValueError(f"{name} must be a density (non-negative), got minimum {dens.min()!r}")
    return p, q, area


def total_variation(p, q, cell_area: float) -> float:
    """Total variation distance (1/2) integral |p - q| of two densities on the same grid
    (0 for equal densities, 1 for disjoint ones)."""
    p, q, area = _check_grid_densities(p, q, cell_area)
    return float(0.5 * np.abs(p - q).sum() * area)


#: Densities below this are floored in the cross entropy: a kernel estimate far from its
#: particles underflows to 0, which would make the cross entropy infinite.
DENSITY_FLOOR = 1e-300


def cross_entropy(p, q, cell_area: float) -> float:
    """Cross entropy -integral p log q of the estimate q under the exact density p (nats), on
    the same grid; q is floored at ``DENSITY_FLOOR``. Its least value is p's entropy."""
    p, q, area = _check_grid_densities(p, q, cell_area)
    return float(-(p * np.log(np.maximum(q, DENSITY_FLOOR))).sum() * area)


def _warmup() -> None:
    x = np.zeros(3)
    pts = np.zeros((2, 2))
    _log_likelihood(x, pts, 2.5, 0.5)
    _grad_log_likelihood(x, pts, 2.5, 0.5)
