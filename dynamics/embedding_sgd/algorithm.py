"""Algorithm 4 of Dai's thesis (Embedding-SGD) on random Fourier features, and plain regression
on the noisy inputs beside it (see the package's docstring)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._common import (MAX_ABS, as_generator, check_array, check_count, check_positive,
                       check_progress, report)
from .task import INPUT_NOISE, truth

__all__ = ["DIVERGED", "EmbeddingRun", "embedding_sgd"]

#: A run whose averaged fit leaves DIVERGED (1 + max |y|) on the test grid has diverged.
DIVERGED = 100.0


class _Features:
    """Random Fourier features of a Gaussian kernel with the given bandwidths per input column:
    phi(v) = sqrt(2 / D) cos(W v + c), so phi(v) . phi(v') ~ exp(-|(v - v') / bw|^2 / 2)."""

    def __init__(self, count: int, bandwidths, rng: np.random.Generator):
        bandwidths = np.asarray(bandwidths, float)
        self.W = rng.standard_normal((count, len(bandwidths))) / bandwidths
        self.c = rng.uniform(0.0, 2.0 * np.pi, count)
        self.norm = np.sqrt(2.0 / count)

    def __call__(self, V: np.ndarray) -> np.ndarray:
        return self.norm * np.cos(V @ self.W.T + self.c)


@dataclass(frozen=True)
class EmbeddingRun:
    """An Embedding-SGD run and its baseline. ``grid``/``fit``/``baseline_fit``: the averaged
    primal function and the baseline on the test grid (noiseless x), ``target`` the truth
    there; ``history``: data visited and the test MSE of both at log-spaced points."""

    grid: np.ndarray
    target: np.ndarray
    fit: np.ndarray
    baseline_fit: np.ndarray
    history: dict

    @property
    def mse(self) -> float:
        return float(np.mean((self.fit - self.target) ** 2))

    @property
    def baseline_mse(self) -> float:
        return float(np.mean((self.baseline_fit - self.target) ** 2))


def embedding_sgd(x, y, *, batch_size: int = 50, gamma: float = 10.0,
                  bandwidth_f: float = 0.05, bandwidth_u: float = 0.07,
                  dual_y_scale: float = 0.05, features_f: int = 500, features_u: int = 500,
                  virtual_noise: float = INPUT_NOISE, seed=None, checkpoints: int = 25,
                  test_points: int = 400, progress=None) -> EmbeddingRun:
    """Algorithm 4 on the data (x, y) in order (one pass, ``batch_size`` data a step), virtual
    samples z ~ N(x, ``virtual_noise``^2), and the baseline (plain SGD of f(x) ~ y on the same
    features and steps); both scored on noiseless test inputs in [-0.5, 0.5] (Sec 5.5)."""
    x_in, x = x, check_array("x", x, ndim=1, max_abs=MAX_ABS)
    if np.ndim(x_in) != 1:  # (check_array reads a scalar as one datum)
        raise ValueError(f"x must be a 1-d array of data, got the scalar {x_in!r}")
    if len(x) == 0:
        raise ValueError("x must hold at least one datum")
    y = check_array("y", y, shape=x.shape, max_abs=MAX_ABS)
    m = check_count("batch_size", batch_size, low=1, high=len(x))
    gamma = check_positive("gamma", gamma)
    bandwidth_f = check_positive("bandwidth_f", bandwidth_f)
    bandwidth_u = check_positive("bandwidth_u", bandwidth_u)
    dual_y_scale = check_positive("dual_y_scale", dual_y_scale)
    features_f = check_count("features_f", features_f, low=1, high=100_000)
    features_u = check_count("features_u", features_u, low=1, high=100_000)
    virtual_noise = check_positive("virtual_noise", virtual_noise, allow_zero=True)
    test_points = check_count("test_points", test_points, low=2, high=100_000)
    checkpoints = check_count("checkpoints", checkpoints, low=1, high=10_000)
    progress = check_progress(progress)
    rng = as_generator(seed)
    psi = _Features(features_f, [bandwidth_f], rng)
    phi = _Features(features_u, [bandwidth_u, bandwidth_u / dual_y_scale], rng)
    grid = np.linspace(-0.5, 0.5, test_points)
    target = truth(grid)
    psi_grid = psi(grid[:, None])
    w_f, w_u, w_b = np.zeros(features_f), np.zeros(features_u), np.zeros(features_f)
    avg_f, avg_b = np.zeros(features_f), np.zeros(features_f)
    steps = len(x) // m
    if steps == 0:
        raise ValueError(f"batch_size {m} is larger than the {len(x)} data")
    marks = set(np.unique(np.r_[np.geomspace(1, steps, max(2, checkpoints)).astype(int),
                                steps]).tolist())
    history = {"seen": [], "mse": [], "baseline_mse": []}
    limit = DIVERGED * (1.0 + float(np.max(np.abs(y))))
    for i in range(1, steps + 1):
        xb, yb = x[(i - 1) * m:i * m], y[(i - 1) * m:i * m]
        z = xb + virtual_noise * rng.standard_normal(m)
        psi_z = psi(z[:, None])
        phi_xy = phi(np.column_stack([xb, yb]))
        u = phi_xy @ w_u
        f = psi_z @ w_f
        step = gamma / np.sqrt(i)
        w_f -= step * (psi_z.T @ u) / m
        w_u += step * (phi_xy.T @ (f - yb - u)) / m
        avg_f += (w_f - avg_f) / i
        psi_x = psi(xb[:, None])
        w_b -= step * (psi_x.T @ (psi_x @ w_b - yb)) / m
        avg_b += (w_b - avg_b) / i
        if i in marks:
            _check_stable(psi_grid @ avg_f, psi_grid @ avg_b, limit, i * m, gamma,
                          f"bandwidth_f = {bandwidth_f:g}, bandwidth_u = {bandwidth_u:g}, "
                          f"dual_y_scale = {dual_y_scale:g}")
            history["seen"].append(i * m)
            history["mse"].append(float(np.mean((psi_grid @ avg_f - target) ** 2)))
            history["baseline_mse"].append(float(np.mean((psi_grid @ avg_b - target) ** 2)))
            report(progress, i / steps, f"{i * m:,} of {steps * m:,} data")
    return EmbeddingRun(grid, target, psi_grid @ avg_f, psi_grid @ avg_b,
                        {k: np.asarray(v) for k, v in history.items()})


def _check_stable(fit, baseline, limit, seen, gamma, bandwidths):
    """Stop a run whose averaged iterate left the data's range (or stopped being finite)."""
    for name, values in (("the Embedding-SGD fit", fit), ("the baseline's fit", baseline)):
        size = float(np.max(np.abs(values)))
        if not size <= limit:  # also NaN
            raise ValueError(
                f"embedding_sgd diverged after {seen:,} data: {name} reached {size:.3g} on the "
                f"test grid, beyond {DIVERGED:g} (1 + max |y|) = {limit:.3g}. The step "
                f"gamma = {gamma:g} (gamma_i = gamma / sqrt(i)) is too large for these kernels "
                f"({bandwidths}): use a smaller gamma or the default bandwidths (gamma = 10 "
                "is stable on the task of Sec 5.5 with them)")
