"""The parts of SBEED's continuous learner (Dai, Algorithm 5 with the multi-step objective of
appendix D.3) that ``pendulum`` and ``swimmer`` share: the k-step temporal differences of eq
D.3 on replay segments (``segment_deltas``), the dual rho's exact least-squares fit (Algorithm
5, line 7: min_rho E_D[(delta_k - rho)^2], ``fit_dual``, a ridge of ``DUAL_RIDGE`` times the
mean eigenvalue), random Fourier features with the median-trick bandwidth (Sec 6.7.1: an RBF
network) and Adam. Part of ``dynamics.sbeed``; ``pendulum`` re-exports the public names.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.signal import lfilter

from ..checks import check_array, check_count, check_in_range
from .mdp import check_gamma

__all__ = ["DUAL_RIDGE", "segment_deltas", "fit_dual"]


#: The dual's least squares (``fit_dual``): ridge = DUAL_RIDGE x the mean eigenvalue of the Gram
#: matrix (a nearly unregularised fit; it keeps the solve defined when features are collinear).
DUAL_RIDGE = 1e-3


def segment_deltas(terms, values, *, k: int, gamma: float) -> np.ndarray:
    """delta_k of eq D.3 for every start t0 of every episode (n, T):
    sum_{i<L} gamma^i terms[t0 + i] + gamma^L values[t0 + L], L = min(k, T - t0) (segments are
    cut at the episode's end, a time limit, where V bootstraps). ``terms`` (n, T) holds
    R_t - lam log pi(a_t | s_t), ``values`` (n, T + 1) V(s_t)."""
    terms = check_array("terms", terms, ndim=2, max_size=10_000_000, max_abs=1e100)
    n, T = terms.shape
    if T == 0:
        raise ValueError(f"terms must hold at least one step per episode, got shape {terms.shape}")
    values = check_array("values", values, shape=(n, T + 1), max_abs=1e100)
    k = check_count("k", k, low=1, high=100_000)
    return _segment_deltas(terms, values, k, check_gamma(gamma))


def _segment_deltas(terms, values, k, gamma):
    n, T = terms.shape
    # y_t = terms_t + gamma y_{t+1} (y_T = 0): a window's discounted sum is y_t0 - gamma^L y_t0+L,
    # exact to rounding for any gamma (a forward cumulative sum would divide by gamma^t0)
    y = np.zeros((n, T + 1))
    y[:, :T] = lfilter([1.0], [1.0, -gamma], terms[:, ::-1], axis=1)[:, ::-1]
    t0 = np.arange(T)
    L = np.minimum(k, T - t0)
    g = gamma ** L
    return y[:, t0] - g * y[:, t0 + L] + g * values[:, t0 + L]


def fit_dual(features, deltas, *, ridge: float = DUAL_RIDGE) -> np.ndarray:
    """Algorithm 5, line 7, for a dual linear in ``features`` (n, p): the weights w minimising
    sum_i (deltas_i - features_i . w)^2 + ridge (tr G / p) |w|^2 with G = features' features
    (the least-squares fit of delta_k; with one-hot features of (s_0, a_0..a_{k-1}) it is the
    tabular dual, the mean of delta_k per cell, shrunk by the ridge)."""
    features = check_array("features", features, ndim=2, max_size=10_000_000, max_abs=1e100)
    n, p = features.shape
    if n == 0 or p == 0:
        raise ValueError(f"features must have at least one row and column, got {features.shape}")
    if p > 10_000:
        raise ValueError(f"features may have at most 10,000 columns, got {p}")
    deltas = check_array("deltas", deltas, shape=(n,), max_abs=1e100)
    ridge = check_in_range("ridge", ridge, 0.0, 1.0, low_open=True)
    return _solve_dual(features.T @ features, features.T @ deltas, ridge)


def _solve_dual(gram, rhs, ridge):
    return cho_solve(_dual_factor(gram, ridge), rhs)


def _dual_factor(gram, ridge):
    """The Cholesky factor of gram + ridge (tr gram / p) I (one per episode in the learner: the
    buffer, and so the Gram matrix, changes once an episode)."""
    p = len(gram)
    scale = max(float(np.trace(gram)) / p, 1e-300)
    return cho_factor(gram + ridge * scale * np.eye(p))


class _RandomFeatures:
    """phi(x) = [sqrt(2 / F) cos(x W / sigma + b), 1] with W ~ N(0, I) and sigma the median
    pairwise distance of ``reference`` points (the median trick)."""

    def __init__(self, dim: int, n: int, reference: np.ndarray, rng):
        sample = reference[rng.choice(len(reference), size=min(len(reference), 400), replace=False)]
        dist = np.sqrt(((sample[:, None, :] - sample[None, :, :]) ** 2).sum(-1))
        self.bandwidth = float(np.median(dist[np.triu_indices(len(sample), 1)]))
        self.W = rng.standard_normal((dim, n)) / self.bandwidth
        self.b = rng.uniform(0, 2 * np.pi, n)
        self.scale = math.sqrt(2.0 / n)

    def __call__(self, x):
        z = self.scale * np.cos(x @ self.W + self.b)
        return np.concatenate([z, np.ones(z.shape[:-1] + (1,))], axis=-1)


class _Adam:
    def __init__(self, n: int, lr: float):
        self.m, self.v, self.t, self.lr = np.zeros(n), np.zeros(n), 0, lr

    def step(self, w, g):
        self.t += 1
        self.m = 0.9 * self.m + 0.1 * g
        self.v = 0.999 * self.v + 0.001 * g * g
        mh = self.m / (1 - 0.9**self.t)
        vh = self.v / (1 - 0.999**self.t)
        return w - self.lr * mh / (np.sqrt(vh) + 1e-8)
