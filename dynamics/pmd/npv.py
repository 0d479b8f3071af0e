"""Stochastic nonparametric variational inference (SGD NPV), the sixth method of Fig 4.1.

Gershman, Hoffman and Blei (2012), "Nonparametric variational inference" (the thesis's [108]):
q is an equal-weight mixture of K isotropic Gaussians,

    q(theta) = (1/K) sum_k N(theta; mu_k, s_k^2 I),

fitted by maximising a bound on the ELBO, E_q[f] + H_l(q), f = log p(theta) + log p(X | theta),
with the entropy bounded below by Jensen's inequality (their eq 5; in d = 2):

    H(q) >= H_l(q) = -(1/K) sum_k log q_k,  q_k = (1/K) sum_j N(mu_k; mu_j, (s_k^2 + s_j^2) I).

The thesis runs it stochastically ("SGD NPV", Sec 4.6 and Table 4.1) with 1500 components, the
same memory as the Monte-Carlo methods. Our choices (the thesis states none): E_{q_k}[f] is
estimated by one reparameterised draw mu_k + s_k eps per component and step, with the minibatch
likelihood raised to N / b (Gershman et al. expand f to second order at mu_k instead, which needs
its Hessian), and the K means and log-widths follow Adam with the step lr / sqrt(1 + passes),
as ``svi`` does. Every step costs K^2 kernel pairs for H_l (in Numba).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numba import njit, prange
from scipy.special import erfc

from dynamics.checks import (MAX_ABS, as_generator, check_array, check_count, check_in_range,
                              check_positive, check_progress, report)
from dynamics.pmd.kde import CUTOFF
from dynamics.pmd.mirror import check_run, minibatch_schedule
from dynamics.pmd.model import Grid, MixtureModel, check_thetas

__all__ = ["GaussianMixture", "entropy_bound", "sgd_npv"]


@dataclass(frozen=True)
class GaussianMixture:
    """An equal-weight mixture of isotropic Gaussians N(``means``[k], ``widths``[k]^2 I): SGD
    NPV's posterior. ``history``: ``seen`` (data visited) and ``mixtures`` ((means, widths)
    pairs) at log-spaced checkpoints."""

    means: np.ndarray
    widths: np.ndarray
    method: str
    history: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def particles(self) -> np.ndarray:
        """The component means (the mixture's "particles")."""
        return self.means

    @property
    def weights(self) -> np.ndarray:
        return np.full(self.means.shape[0], 1.0 / self.means.shape[0])

    def density(self, points) -> np.ndarray:
        """q at each row of ``points`` (n, 2)."""
        pts = check_thetas(points)
        d2 = ((pts[:, None, :] - self.means[None, :, :]) ** 2).sum(-1)
        v = self.widths[None, :] ** 2
        return (np.exp(-0.5 * d2 / v) / (2 * math.pi * v)).mean(1)

    def density_on(self, grid: Grid) -> np.ndarray:
        """q on every node of ``grid``, shape grid.shape (each component summed out to
        ``CUTOFF`` widths, as the KDEs are)."""
        return _splat_mixture(self.means, self.widths, grid.x[0], grid.x[1] - grid.x[0],
                              grid.x.size, grid.y[0], grid.y[1] - grid.y[0], grid.y.size)

    def mode_shares(self) -> tuple[float, float]:
        """The mass on theta2 < 0 and on theta2 > 0: Phi(-mu_k2 / s_k) averaged over k."""
        z = self.means[:, 1] / (self.widths * math.sqrt(2.0))
        below = float(np.mean(0.5 * erfc(z)))
        return below, 1.0 - below


@njit(cache=True, nogil=True, fastmath=True)
def _splat_mixture(means, widths, x0, dx, nx, y0, dy, ny):
    out = np.zeros((ny, nx))
    k_all = means.shape[0]
    ex = np.empty(nx)
    for j in range(k_all):
        h = widths[j]
        inv = 0.5 / (h * h)
        w = 1.0 / (2.0 * math.pi * h * h * k_all)
        reach = CUTOFF * h
        cx, cy = means[j, 0], means[j, 1]
        i0 = max(0, int(math.ceil((cx - reach - x0) / dx)))
        i1 = min(nx - 1, int(math.floor((cx + reach - x0) / dx)))
        r0 = max(0, int(math.ceil((cy - reach - y0) / dy)))
        r1 = min(ny - 1, int(math.floor((cy + reach - y0) / dy)))
        for i in range(i0, i1 + 1):
            ex[i] = math.exp(-((x0 + i * dx - cx) ** 2) * inv)
        for r in range(r0, r1 + 1):
            wy = w * math.exp(-((y0 + r * dy - cy) ** 2) * inv)
            for i in range(i0, i1 + 1):
                out[r, i] += wy * ex[i]
    return out


@njit(cache=True, nogil=True, parallel=True, fastmath=True)
def _entropy_terms(means, widths):
    """H_l and its gradients in the means and in the widths. With g_kj = N(mu_k; mu_j, v_kj I),
    v_kj = s_k^2 + s_j^2, and r_kj = g_kj / sum_j g_kj (each row's log-sum-exp kept stable):
    dH_l/dmu_a = (1/K) [sum_j r_aj d_aj / v_aj - sum_k r_ka d_ka / v_ka], d_kj = mu_k - mu_j,
    dH_l/ds_a = -(2 s_a / K) [sum_j r_aj c_aj + sum_k r_ka c_ka], c = |d|^2 / (2 v^2) - 1 / v.
    The K x K log-kernels are computed once and kept (8 K^2 bytes)."""
    k_all = means.shape[0]
    log_g = np.empty((k_all, k_all))
    norm = np.empty(k_all)  # log sum_j g_kj, each row's normaliser
    log_2pi = math.log(2.0 * math.pi)
    for k in prange(k_all):
        best = -np.inf
        for j in range(k_all):
            v = widths[k] ** 2 + widths[j] ** 2
            d2 = (means[k, 0] - means[j, 0]) ** 2 + (means[k, 1] - means[j, 1]) ** 2
            a = -0.5 * d2 / v - math.log(v) - log_2pi
            log_g[k, j] = a
            best = max(best, a)
        acc = 0.0
        for j in range(k_all):
            acc += math.exp(log_g[k, j] - best)
        norm[k] = best + math.log(acc)
    g_mu = np.zeros((k_all, 2))
    g_s = np.zeros(k_all)
    for a in prange(k_all):
        gx, gy, gs = 0.0, 0.0, 0.0
        for j in range(k_all):
            v = widths[a] ** 2 + widths[j] ** 2
            dx = means[a, 0] - means[j, 0]
            dy = means[a, 1] - means[j, 1]
            lg = log_g[a, j]
            # a's own row and j's row at a (g is symmetric)
            r = math.exp(lg - norm[a]) + math.exp(lg - norm[j])
            if r == 0.0:
                # a pair too far apart to count: skipped, since its |d|^2 / v^2 may overflow
                # (0 * inf is NaN). With r > 0, |d|^2 / (2 v) is below about 1,000.
                continue
            gx += r * dx / v
            gy += r * dy / v
            gs += r * ((dx * dx + dy * dy) / (2.0 * v * v) - 1.0 / v)
        g_mu[a, 0] = gx / k_all
        g_mu[a, 1] = gy / k_all
        g_s[a] = -2.0 * widths[a] * gs / k_all
    return math.log(k_all) - norm.mean(), g_mu, g_s


#: The same kernel without threads: below ``_PARALLEL_FROM`` components starting the thread pool
#: costs more than the pairs (a 30-component fit spent 5 s of CPU in 800 steps with threads).
_entropy_terms_serial = njit(cache=True, nogil=True, fastmath=True)(_entropy_terms.py_func)
_PARALLEL_FROM = 300


def _entropy(means, widths):
    kernel = _entropy_terms if means.shape[0] >= _PARALLEL_FROM else _entropy_terms_serial
    return kernel(means, widths)


#: The widths ``entropy_bound`` accepts: the kernel's v = s_k^2 + s_j^2 and v^2 stay normal
#: doubles (a width of 1e-90 made v^2 underflow to 0, and the gradient NaN). SGD NPV's widths,
#: exp of log-widths within +-100, lie inside.
MIN_WIDTH, MAX_WIDTH = 1e-50, 1e50


def _check_mixture(means, widths):
    means = check_array("means", means, ndim=2, shape=(None, 2), max_abs=MAX_ABS)
    if means.shape[0] == 0:
        raise ValueError("means must hold at least one component")
    widths = check_array("widths", widths, shape=(means.shape[0],), max_abs=MAX_WIDTH)
    if np.any(widths < MIN_WIDTH):
        raise ValueError(f"widths must be in [{MIN_WIDTH:g}, {MAX_WIDTH:g}], got minimum "
                         f"{widths.min()!r}")
    if means.shape[0] > 20_000:
        raise ValueError(f"means must hold at most 20,000 components (K^2 pairs), got "
                         f"{means.shape[0]}")
    return means, widths


def entropy_bound(means, widths) -> tuple[float, np.ndarray, np.ndarray]:
    """Gershman et al.'s lower bound H_l on the entropy of (1/K) sum_k N(mu_k, s_k^2 I) in
    2-D (their eq 5), and its gradients in the means (K, 2) and in the widths (K,), each
    width in [``MIN_WIDTH``, ``MAX_WIDTH``]."""
    means, widths = _check_mixture(means, widths)
    h, g_mu, g_s = _entropy(means, widths)
    return float(h), g_mu, g_s


def sgd_npv(model: MixtureModel, data, *, particles: int = 1500, batch_size: int = 10,
            seed=None, epochs: int = 5, learning_rate: float = 0.05, start_width: float = 0.2,
            checkpoints: int = 25, progress=None) -> GaussianMixture:
    """Stochastic nonparametric variational inference with ``particles`` components (the
    module text): each step draws theta_k = mu_k + s_k eps_k, takes the minibatch gradient
    g_k of log p(theta) + (N / b) sum_batch log p(x | theta) there, and ascends
    E_q[f] + H_l(q) scaled by K: mu_k by g_k + K dH_l/dmu_k, log s_k by s_k (g_k . eps_k +
    K dH_l/ds_k), with Adam (step ``learning_rate`` / sqrt(1 + passes so far)) over
    ``epochs`` passes. Means start at prior draws, widths at ``start_width``."""
    x, m, b = check_run(model, data, particles, batch_size)
    if m > 5000:
        raise ValueError(f"particles must be at most 5,000 for SGD NPV (its entropy bound "
                         f"costs particles^2 per step), got {m}")
    epochs = check_count("epochs", epochs, high=1000)
    lr = check_in_range("learning_rate", learning_rate, 0.0, 10.0, low_open=True)
    s0 = check_in_range("start_width", start_width, 1e-6, 100.0)
    progress = check_progress(progress)
    rng = as_generator(seed)
    n = x.size
    steps_per_epoch, total, checkpoints_at = minibatch_schedule(n, b, epochs, checkpoints)
    params = np.concatenate([model.prior_draws(m, rng), np.full((m, 1), math.log(s0))], axis=1)
    first, second = np.zeros_like(params), np.zeros_like(params)
    history = {"seen": [], "mixtures": []}
    step = 0
    for _ in range(epochs):
        order = rng.permutation(n)
        for begin in range(0, n, b):
            batch = x[order[begin:begin + b]]
            mu, s = params[:, :2], np.exp(params[:, 2])
            eps = rng.standard_normal((m, 2))
            g = model.grad_log_posterior(batch, mu + s[:, None] * eps, n / batch.size)
            _, h_mu, h_s = _entropy(np.ascontiguousarray(mu), s)
            grad = np.empty_like(params)
            grad[:, :2] = g + m * h_mu
            grad[:, 2] = s * ((g * eps).sum(1) + m * h_s)
            step += 1
            first = 0.9 * first + 0.1 * grad
            second = 0.999 * second + 0.001 * grad * grad
            rate = lr / math.sqrt(1.0 + step / steps_per_epoch)
            params = params + rate * (first / (1 - 0.9 ** step)) / (
                np.sqrt(second / (1 - 0.999 ** step)) + 1e-8)
            if not np.all(np.abs(params) < 100.0):  # also NaN
                raise ValueError(
                    f"SGD NPV diverged at step {step}: a parameter reached "
                    f"{np.max(np.abs(params)):.3g}; learning_rate = {lr:g} is too large: use "
                    "a smaller one (the default 0.05 is stable)")
            if step in checkpoints_at:
                history["seen"].append(step * b)
                history["mixtures"].append((params[:, :2].copy(), np.exp(params[:, 2])))
        report(progress, step / total, f"SGD NPV: {step} of {total} steps")
    return GaussianMixture(params[:, :2].copy(), np.exp(params[:, 2]), "SGD NPV", history)


def _warmup() -> None:
    means = np.array([[0.0, 0.0], [1.0, 0.5]])
    widths = np.array([0.5, 0.3])
    _entropy_terms(means, widths)
    _entropy_terms_serial(means, widths)
    _splat_mixture(means, widths, -1.0, 0.5, 5, -1.0, 0.5, 5)
