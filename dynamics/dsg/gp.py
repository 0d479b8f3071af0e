"""Doubly stochastic gradients for Gaussian-process regression (Dai et al. 2014, Sec 3.5: the
posterior mean and variance, eq 3.9) and the NORMA baseline. Part of ``dynamics.dsg``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..checks import (as_generator, check_count, check_in_range, check_progress, report)
from .algorithm import (DIVERGED, MAX_BATCH, MAX_FIRST, _block, _check_schedule, _check_seed,
                        _feature_seed, _features)
from .reference import (MAX_POINTS, MAX_SCALE, _check_data, _check_points, _check_scale,
                        _check_test, _check_test_pair, gp_closed_form, rbf_kernel)

__all__ = ["GPRun", "gp_regression", "NormaModel", "norma"]


@dataclass(frozen=True)
class GPRun:
    """Doubly stochastic GP regression: the averaged iterates' posterior ``mean`` and
    ``variance`` at the test points, the closed form's (``exact_mean``, ``exact_variance``),
    and ``history``: steps, data points seen, and the mean squared errors of mean and variance
    against the closed form at log-spaced steps."""

    mean: np.ndarray
    variance: np.ndarray
    exact_mean: np.ndarray
    exact_variance: np.ndarray
    history: dict


def gp_regression(X, y, X_test, *, noise: float = 0.1, bandwidth: float, steps: int,
                  batch_size: int = 64, block_size: int = 512, first_step: float = 1.0,
                  seed=None, checkpoints: int = 20, progress=None) -> GPRun:
    """The GP posterior mean and variance by doubly stochastic functional gradients (Sec 3.3.1).

    **Mean.** The posterior mean k*^T (K + sigma^2 I)^-1 y is kernel ridge regression with
    n nu = sigma^2: the squared-loss update of ``doubly_sgd`` with nu = sigma^2 / n.

    **Variance** (the second formulation of Sec 3.3.1, test points given beforehand). For test
    point x*_i, f_i = k(.)^T (K + sigma^2 I)^-1 k*_i is the same kernel ridge problem with
    targets y_j = k(x*_i, x_j); the variance is k(x*_i, x*_i) - f_i(x*_i) = 1 - f_i(x*_i).
    (The first formulation, the operator Sigma of eq 3.10, needs O(t^2) memory.)

    All 1 + m functions share each step's minibatch and feature block: step t adds
    a_t = -gamma_t / (b B) Phi_t^T R_t to their coefficients, Phi_t (b x B) the block's features
    at the minibatch, R_t (b x (1 + m)) the residuals f_{t-1}(x_k) - y_k. The gradient needs
    f_{t-1} only at training points and the result only at test points, so we keep the
    iterate's values there, each step adding its block's term phi_t(x)^T a_t (the block's
    kernel phi_t(x)^T Phi_t^T times the scaled residuals): the same iterate as storing every
    a_t and regenerating the features, in O(t) time and O((n + m) m) memory instead of O(t^2)
    time and O(t B m). The averaged iterate is the running mean of the iterates.

    **Steps.** gamma_t = theta / (t + t0) with theta = 1 / nu (theta nu = 1, Thm 11) and
    t0 = theta / ``first_step`` - 1, so gamma_1 = ``first_step`` and gamma_t stays near it for
    the first n / sigma^2 steps. With b points a step, a step up to about b/2 is stable when
    the minibatch points are far apart in kernel units.
    """
    X, y = _check_data(X, y, max_points=MAX_POINTS)
    X_test = _check_test(X_test, X.shape[1])
    if len(X_test) == 0:
        raise ValueError("X_test must hold at least one point")
    checkpoints = check_count("checkpoints", checkpoints, low=1, high=10_000)
    noise = check_in_range("noise", noise, 1.0 / MAX_SCALE, MAX_FIRST)
    bandwidth = _check_scale("bandwidth", bandwidth)
    steps = check_count("steps", steps, low=1, high=1_000_000)
    m = check_count("batch_size", batch_size, low=1, high=100_000)
    B = check_count("block_size", block_size, low=1, high=100_000)
    first_step = check_in_range("first_step", first_step, 1.0 / MAX_SCALE, MAX_FIRST)
    if len(X) * len(X_test) > 20_000_000:
        raise ValueError(f"{len(X)} training x {len(X_test)} test points keep "
                         f"{len(X) * len(X_test) * 8 / 1e9:.1f} GB of function values: use "
                         "fewer")
    progress = check_progress(progress)
    seed = _check_seed(seed)
    n, d = X.shape
    nu = noise / n
    theta = 1.0 / nu
    exact_mean, exact_var = gp_closed_form(X, y, X_test, noise=noise, bandwidth=bandwidth)
    rng = np.random.default_rng([seed, 3])
    inv_bw = 1.0 / bandwidth
    # Sums of the blocks' terms, each stored divided by G_s = prod_{u <= s} (1 - gamma_u nu)
    # and read times G_t: at the training points for all 1 + m functions, at the test points
    # the mean and each variance function at its own point.
    at_train = np.zeros((n, 1 + len(X_test)))
    at_test_mean = np.zeros(len(X_test))
    at_test_own = np.zeros(len(X_test))
    mean_bar = np.zeros(len(X_test))
    own_bar = np.zeros(len(X_test))
    G = 1.0
    marks = set(np.unique(np.r_[np.geomspace(1, steps, max(2, checkpoints)).astype(int),
                                steps]).tolist())
    history = {"step": [], "seen": [], "mean_error": [], "variance_error": []}
    phi_train = np.empty((n, B))
    phi_test = np.empty((len(X_test), B))
    phi_batch = np.empty((m, B))
    for t in range(1, steps + 1):
        gamma = theta / ((t - 1.0) + theta / first_step)  # theta / (t + t0), no cancellation
        idx = rng.integers(0, n, size=m)
        targets = np.column_stack([y[idx], rbf_kernel(X[idx], X_test, bandwidth)])
        residual = G * at_train[idx] - targets
        omega, b = _block(_feature_seed(seed, t), B, d, inv_bw)
        _features(X[idx], omega, b, phi_batch)
        G *= 1.0 - gamma * nu
        scaled = -gamma / (m * B * G) * residual
        _features(X, omega, b, phi_train)
        at_train += (phi_train @ phi_batch.T) @ scaled
        _features(X_test, omega, b, phi_test)
        kernel = phi_test @ phi_batch.T
        at_test_mean += kernel @ scaled[:, 0]
        at_test_own += np.einsum("ik,ki->i", kernel, scaled[:, 1:])
        mean_bar += (G * at_test_mean - mean_bar) / t
        own_bar += (G * at_test_own - own_bar) / t
        if t in marks:
            history["step"].append(t)
            history["seen"].append(t * m)
            history["mean_error"].append(float(np.mean((mean_bar - exact_mean) ** 2)))
            history["variance_error"].append(float(np.mean((1.0 - own_bar - exact_var) ** 2)))
            report(progress, t / steps, f"step {t:,} of {steps:,}",
                   partial=GPRun(mean_bar.copy(), 1.0 - own_bar, exact_mean, exact_var,
                                 {k: np.asarray(v) for k, v in history.items()}))
    if not (np.all(np.isfinite(mean_bar)) and np.all(np.isfinite(own_bar))):
        raise ValueError(f"gp_regression diverged: the averaged iterate is not finite; the first "
                         f"step first_step = {first_step:g} is too large for this data and "
                         "bandwidth: use a smaller first_step (1 is stable)")
    return GPRun(mean_bar.copy(), 1.0 - own_bar, exact_mean, exact_var,
                 {k: np.asarray(v) for k, v in history.items()})

@dataclass(frozen=True)
class NormaModel:
    """NORMA: every visited point kept with its coefficient; ``predict`` is the averaged
    iterate; ``memory`` grows with the points seen (d + 1 numbers each)."""

    points: np.ndarray
    coef_avg: np.ndarray
    bandwidth: float
    history: dict

    @property
    def memory(self) -> int:
        return int(self.points.size + self.coef_avg.size)

    def predict(self, X) -> np.ndarray:
        return rbf_kernel(_check_points("X", X), self.points, self.bandwidth) @ self.coef_avg


def norma(X, y, *, bandwidth: float, nu: float, steps: int, batch_size: int, theta: float = 1.0,
          t0: float | None = None, seed=None, X_test=None, y_test=None,
          checkpoints: int = 30, progress=None) -> NormaModel:
    """NORMA with minibatches: f_t = (1 - gamma_t nu) f_{t-1} - gamma_t (1/m) sum l'(f(x_k),
    y_k) k(x_k, .), squared loss, the same steps and averaging as ``doubly_sgd``, the kernel
    itself instead of random features (so memory grows like t).

    ``progress(fraction, message)`` is called about 50 times; step t evaluates the kernel
    against the (t - 1) m points kept, so the fraction is (t / steps)^2, the share of the
    kernel evaluations done (the time spent)."""
    X, y = _check_data(X, y)
    bandwidth = _check_scale("bandwidth", bandwidth)
    nu = check_in_range("nu", nu, 0.0, MAX_SCALE)
    steps = check_count("steps", steps, low=1, high=1_000_000)
    m = check_count("batch_size", batch_size, low=1, high=MAX_BATCH)
    if steps * m > MAX_POINTS:
        raise ValueError(f"steps * batch_size = {steps * m:,} kept points exceed {MAX_POINTS:,} "
                         "(NORMA's kernel sums grow with them): use fewer steps or smaller batches")
    theta, t0 = _check_schedule(theta, nu, t0)
    checkpoints = check_count("checkpoints", checkpoints, low=1, high=10_000)
    test = _check_test_pair(X_test, y_test, X.shape[1])
    progress = check_progress(progress)
    every = max(1, steps // 50)
    limit = DIVERGED * (1.0 + float(np.max(np.abs(y))))
    rng = as_generator(seed)
    pts = np.empty((steps * m, X.shape[1]))
    stored = np.zeros(steps * m)
    G = 1.0
    scale = np.ones(steps + 1)
    cum = np.zeros(steps + 1)
    marks = set(np.unique(np.geomspace(1, steps, max(2, checkpoints)).astype(int)).tolist())
    history = {"step": [], "seen": [], "error": [], "memory": []}
    for t in range(1, steps + 1):
        gamma = theta / (t + t0)
        idx = rng.integers(0, len(X), size=m)
        xb, yb = X[idx], y[idx]
        k_prev = (t - 1) * m
        f = (rbf_kernel(xb, pts[:k_prev], bandwidth) @ stored[:k_prev]) * G if k_prev else \
            np.zeros(m)
        if not np.max(np.abs(f)) <= limit:
            raise ValueError(
                f"norma diverged by step {t:,}: the iterate reached |f| = {np.max(np.abs(f)):.3g} "
                f"at a minibatch, beyond {DIVERGED:g} (1 + max |y|) = {limit:.3g}: the step "
                f"scale theta = {theta:g} (first step {theta / (1 + t0):.3g}) is too large; use "
                "a smaller theta or a larger t0")
        G *= 1.0 - gamma * nu
        pts[k_prev:k_prev + m] = xb
        stored[k_prev:k_prev + m] = -gamma * (f - yb) / m / G
        scale[t] = G
        cum[t] = cum[t - 1] + G
        if t in marks and test is not None:
            weights = np.repeat((cum[t] - cum[0:t]) / t, m)
            model = NormaModel(pts[:t * m], stored[:t * m] * weights, bandwidth, {})
            history["step"].append(t)
            history["seen"].append(t * m)
            history["error"].append(float(np.mean((model.predict(test[0]) - test[1]) ** 2)))
            history["memory"].append(model.memory)
        if t % every == 0 or t == steps:
            report(progress, (t / steps) ** 2, f"step {t:,} of {steps:,}")
    weights = np.repeat((cum[steps] - cum[0:steps]) / steps, m)
    return NormaModel(pts, stored * weights, bandwidth,
                      {k: np.asarray(v) for k, v in history.items()})


#: The fitted log-log slope of the error that counts as "rate O(1/t)".
