"""Doubly stochastic gradients (Dai et al. 2014, Algorithms 1-2, eqs 3.4-3.9): the random
Fourier blocks regenerated from their seeds, the functional SGD step, and its training kernel.
Part of ``dynamics.dsg`` (see its docstring); every public name is imported there."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..checks import (as_generator, check_budget, check_choice, check_count, check_flag,
                      check_in_range, check_positive, check_progress, report)
from .reference import (MAX_DIM, MAX_SCALE, _check_data, _check_points, _check_scale,
                        _check_test_pair)

__all__ = ["LOSSES", "MAX_STEPS", "MAX_BLOCK", "MAX_BATCH", "block_features", "DSGModel", "Partial",
           "doubly_sgd", "data_step_scale"]

LOSSES = {"squared": 0, "hinge": 1, "logistic": 2}
#: Largest number of steps of ``doubly_sgd`` (it keeps B coefficients a step).
MAX_STEPS = 10_000_000
#: Largest feature block B and minibatch m.
MAX_BLOCK = 1_000_000
MAX_BATCH = 1_000_000
#: A run whose iterate reaches this many times (1 + max |y|) at a minibatch has diverged (a
#: stable run's values stay near the targets' range: f is a smoothing of y).
DIVERGED = 10.0
#: Largest noise variance and first step of ``gp_regression`` (theta / first_step must stay > 0).
MAX_FIRST = 1e6
_SQRT2 = math.sqrt(2.0)


# --- features -----------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _block(seed, B, d, inv_bw):
    """The block of step ``seed``: omega (B, d) ~ N(0, sigma^-2 I) and b (B,) ~ U[0, 2 pi]."""
    np.random.seed(seed)
    omega = np.empty((B, d))
    for j in range(B):
        for k in range(d):
            omega[j, k] = np.random.standard_normal() * inv_bw
    b = np.empty(B)
    for j in range(B):
        b[j] = 2.0 * math.pi * np.random.random()
    return omega, b


def block_features(seed: int, step: int, block_size: int, dim: int, bandwidth: float):
    """The random features (omega, b) of step ``step`` (1-based) of a run with ``seed``,
    regenerated from their seed exactly as training drew them: omega (block_size, dim),
    b (block_size,)."""
    if seed is None or isinstance(seed, np.random.Generator):
        raise ValueError(f"seed must be the run's integer seed (>= 0), got {seed!r}")
    seed = _check_seed(seed)
    step = check_count("step", step, low=1, high=MAX_STEPS)
    block_size = check_count("block_size", block_size, low=1, high=MAX_BLOCK)
    dim = check_count("dim", dim, low=1, high=MAX_DIM)
    check_budget("block_size * dim", block_size * dim, 100_000_000,
                 "feature entries (8 bytes each)")
    bandwidth = _check_scale("bandwidth", bandwidth)
    return _block(_feature_seed(seed, step), block_size, dim, 1.0 / bandwidth)


def _feature_seed(seed: int, step: int) -> int:
    return int((seed * 1_000_003 + 2 * step + 1) % (2**31 - 1))


@njit(cache=True, nogil=True, inline="always")
def _phase(omega, b, j, x):
    """omega_j . x + b_j: phi_{omega_j}(x) = sqrt 2 cos of it."""
    z = b[j]
    for c in range(x.shape[0]):
        z += omega[j, c] * x[c]
    return z


@njit(cache=True, nogil=True)
def _eval_blocks(X, coef, seeds, B, inv_bw, out):
    """out[k] += sum_i sum_j coef[i, j] phi_{omega_ij}(X[k]), blocks regenerated from seeds."""
    n, d = X.shape
    for i in range(coef.shape[0]):
        omega, b = _block(seeds[i], B, d, inv_bw)
        for k in range(n):
            acc = 0.0
            for j in range(B):
                acc += coef[i, j] * math.cos(_phase(omega, b, j, X[k]))
            out[k] += _SQRT2 * acc


@njit(cache=True, nogil=True)
def _add_block(Z, coef, omega, b, raw):
    """raw[k] += sum_j coef[j] phi_{omega_j}(Z[k]): one step's block added to kept values."""
    for k in range(Z.shape[0]):
        acc = 0.0
        for j in range(b.shape[0]):
            acc += coef[j] * math.cos(_phase(omega, b, j, Z[k]))
        raw[k] += _SQRT2 * acc


@njit(cache=True, nogil=True, fastmath=True)
def _features(Z, omega, b, out):
    """out[k, j] = phi_{omega_j}(Z[k]) = sqrt 2 cos(omega_j . Z[k] + b_j)."""
    for k in range(Z.shape[0]):
        for j in range(b.shape[0]):
            out[k, j] = _SQRT2 * math.cos(_phase(omega, b, j, Z[k]))


@njit(cache=True, nogil=True)
def _loss_grad(kind, f, y):
    if kind == 0:
        return f - y
    if kind == 1:
        return -y if y * f < 1.0 else 0.0
    z = y * f
    if z > 0:
        e = math.exp(-z)
        return -y * e / (1.0 + e)
    return -y / (1.0 + math.exp(z))


@dataclass(frozen=True)
class DSGModel:
    """A doubly stochastic gradient run: ``predict(X)`` evaluates the averaged iterate
    f_bar_t (``last=True``: f_t itself) after ``steps`` steps (or fewer: ``upto``), features
    regenerated from their seeds. ``history``: steps, data points seen, and (with test data)
    the mean squared error of f_bar against the test targets at log-spaced steps."""

    seed: int
    bandwidth: float
    block_size: int
    batch_size: int
    dim: int
    steps: int
    stored: np.ndarray
    scale: np.ndarray
    cum: np.ndarray
    history: dict
    #: The averaged iterate at ``X_test`` after the last step (kept during training), or None.
    test_fit: np.ndarray | None = None
    #: The averaged iterate at ``X_test`` at each step of ``history`` (rows, one per entry of
    #: ``history["step"]``; the last row is ``test_fit``), or None without test data.
    test_path: np.ndarray | None = None

    @property
    def memory(self) -> int:
        """Numbers kept: B coefficients per step (and the seed)."""
        return self.steps * self.block_size + 1

    def coefficients(self, upto: int | None = None, *, last: bool = False) -> np.ndarray:
        """The coefficients (t, B) of f_t (``last``) or of f_bar_t, t = ``upto``."""
        t = self.steps if upto is None else check_count("upto", upto, low=1, high=self.steps)
        base = self.stored[1:t + 1]
        if check_flag("last", last):
            return base * self.scale[t]
        weights = (self.cum[t] - self.cum[0:t]) / t  # sum_{s=i..t} G_s / t for i = 1..t
        return base * weights[:, None]

    def predict(self, X, *, upto: int | None = None, last: bool = False) -> np.ndarray:
        X = _check_points("X", X)
        if X.shape[1] != self.dim:
            raise ValueError(f"X must have {self.dim} columns, got {X.shape[1]}")
        coef = self.coefficients(upto, last=last)
        seeds = np.array([_feature_seed(self.seed, s) for s in range(1, len(coef) + 1)],
                         dtype=np.int64)
        out = np.zeros(len(X))
        _eval_blocks(X, coef, seeds, self.block_size, 1.0 / self.bandwidth, out)
        return out


@dataclass(frozen=True)
class Partial:
    """A run so far (for a page's growing learning curve): the history, and the averaged
    iterate at the test points."""

    history: dict
    test_fit: np.ndarray


def _check_schedule(theta, nu, t0):
    """(theta, t0) of gamma_t = theta / (t + t0), t0 = theta nu by default; every factor
    1 - gamma_t nu must stay positive."""
    theta = check_positive("theta", theta)
    t0 = theta * nu if t0 is None else check_positive("t0", t0, allow_zero=True)
    if theta * nu >= 1.0 + t0:
        raise ValueError(f"theta * nu = {theta * nu:g} must stay below 1 + t0 = {1 + t0:g}: "
                         "otherwise the first step's factor 1 - gamma nu is not positive")
    return theta, t0


def data_step_scale(X, *, bandwidth: float, batch_size: int, block_size: int,
                    loss: str = "squared", seed=0, draws: int = 5) -> float:
    """The step scale theta that ``doubly_sgd`` uses by default (``theta=None``), from the data.

    One step moves the iterate's values at its minibatch by -gamma M r, r the loss gradients,
    M = Phi Phi^T / (m B) (m x m, Phi the block's features at the m points) times the loss's
    curvature c (1 for the squared loss, 1/4 for the logistic one; 1 for the hinge). The step is
    stable while gamma c lambda_max(M) < 2 (gradient descent on a quadratic). lambda_max(M)
    depends on the data's spread in kernel units: points far apart (bandwidth small against the
    data's spread) give M close to I / m, so the step can be large; points within one bandwidth
    give M close to 1 1^T / m (lambda near 1), and the random features add their own noise, of
    order sqrt(m / B) / m. We estimate lambda_max(M) on ``draws`` minibatches and blocks drawn
    as training draws them (at most 256 points and 2048 features each, which errs on the larger,
    safe side) and return theta = 1 / (c lambda_max): with t0 = theta nu the first step
    gamma_1 = theta / (1 + theta nu) is within half the stability limit, and gamma_t = theta / t
    after it takes the largest steps Thm 11's 1/t schedule allows from that start (Thm 11 asks
    theta nu >= 1, which a small nu makes impossible to combine with a stable first step).

    On the 2-D task of Sec 3.6.1 (2,000 points, bandwidth 0.1 x the median distance, nu = 1e-6,
    2000 steps of 64 points, 64 features) this gives theta of about 12; the tests measure the
    error it reaches against theta = 1 and 100.
    """
    X = _check_points("X", X)
    if X.shape[0] == 0:
        raise ValueError("X must hold at least one data point")
    bandwidth = _check_scale("bandwidth", bandwidth)
    m = check_count("batch_size", batch_size, low=1, high=MAX_BATCH)
    B = check_count("block_size", block_size, low=1, high=MAX_BLOCK)
    loss = check_choice("loss", loss, tuple(LOSSES))
    draws = check_count("draws", draws, low=1, high=100)
    rng = as_generator(seed)
    mm, BB = min(m, 256), min(B, 2048)
    top = 0.0
    for _ in range(draws):
        idx = rng.integers(0, len(X), size=mm)
        omega = rng.standard_normal((BB, X.shape[1])) / bandwidth
        b = rng.uniform(0.0, 2.0 * np.pi, BB)
        phi = _SQRT2 * np.cos(X[idx] @ omega.T + b)
        # lambda_max(Phi Phi^T) / (m B) through the smaller of the two Gram matrices
        gram = phi @ phi.T if mm <= BB else phi.T @ phi
        top = max(top, float(np.linalg.eigvalsh(gram)[-1]) / (mm * BB))
    curvature = 0.25 if loss == "logistic" else 1.0
    return 1.0 / (curvature * max(top, 1e-12))


def _check_seed(seed) -> int:
    """The run's integer seed: given (numpy integers name the same run as Python ones), or drawn
    from a Generator or fresh entropy."""
    if seed is None or isinstance(seed, np.random.Generator):
        return int(as_generator(seed).integers(0, 2**31 - 2))
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and seed >= 0:
        return int(seed)
    raise ValueError(f"seed must be an integer >= 0, a Generator or None, got {seed!r}")


def doubly_sgd(X, y, *, loss: str = "squared", bandwidth: float, nu: float, steps: int,
               batch_size: int, block_size: int, theta: float | None = None,
               t0: float | None = None,
               seed=None, X_test=None, y_test=None, checkpoints: int = 30,
               keep_values: bool | None = None, progress=None) -> DSGModel:
    """Doubly stochastic functional gradient descent (Algorithms 1-2) on (X, y). With
    ``X_test``/``y_test`` the history records the mean squared error of the averaged iterate
    against ``y_test`` (e.g. the exact solution's values) at ``checkpoints`` log-spaced steps
    (kept at the test points step by step, see ``_train_segment``).

    ``keep_values``: keep the iterate's values at the n training points (a step then costs
    O((n + m) B) instead of O(t m B): the same iterate, for a training set held in memory);
    default: when that is cheaper over the run. Prediction anywhere else always regenerates
    the features from their seeds. ``progress`` receives the history so far (``partial``).

    ``theta=None`` (the default) chooses the step scale from the data: ``data_step_scale``
    (theta = 1 / (c lambda_max) of one step's curvature at a minibatch, so that the first step
    is within half the stability limit). A run whose iterate blows up (values beyond
    ``DIVERGED`` (1 + max |y|) at a minibatch, or not finite) raises a ``ValueError`` naming
    theta: its first steps were unstable. A given theta whose first step gamma_1 is more than
    twice the stable step 2 / (c lambda_max) of ``data_step_scale`` is refused before the run
    (it would grow the iterate over its first steps: Sec 3.6.1's task at theta = 100 ended with
    a test error 8 times that of theta=None). Sizes are capped: steps <= ``MAX_STEPS``, B <=
    ``MAX_BLOCK``, m <= ``MAX_BATCH``, steps * B <= 2 * 10**8 (the coefficients kept)."""
    X, y = _check_data(X, y)
    loss = check_choice("loss", loss, tuple(LOSSES))
    bandwidth = _check_scale("bandwidth", bandwidth)
    nu = check_in_range("nu", nu, 0.0, MAX_SCALE)
    steps = check_count("steps", steps, low=1, high=MAX_STEPS)
    m = check_count("batch_size", batch_size, low=1, high=MAX_BATCH)
    B = check_count("block_size", block_size, low=1, high=MAX_BLOCK)
    check_budget("steps * block_size", steps * B, 200_000_000, "coefficients (8 bytes each)")
    checkpoints = check_count("checkpoints", checkpoints, low=1, high=10_000)
    if keep_values is not None:
        keep_values = check_flag("keep_values", keep_values)
    if loss != "squared" and not np.all(np.abs(y) == 1):
        raise ValueError(f"y must hold labels -1 and +1 for the {loss} loss")
    progress = check_progress(progress)
    seed = _check_seed(seed)
    test = _check_test_pair(X_test, y_test, X.shape[1])
    chosen = theta is None
    scale_rng = np.random.default_rng([seed, 11])
    if chosen:
        theta = data_step_scale(X, bandwidth=bandwidth, batch_size=m, block_size=B, loss=loss,
                                seed=scale_rng)
    theta, t0 = _check_schedule(theta, nu, t0)
    first = theta / (1.0 + t0)
    # phi^2 <= 2, so c lambda_max <= 2 c: a first step below 2 / c cannot be flagged below
    if not chosen and first * (0.25 if loss == "logistic" else 1.0) > 2.0:
        stable = data_step_scale(X, bandwidth=bandwidth, batch_size=m, block_size=B, loss=loss,
                                 seed=scale_rng)  # 1 / (c lambda_max): half the stable step
        if first > 4.0 * stable:
            raise ValueError(
                f"doubly_sgd would diverge: theta = {theta:g} with t0 = {t0:g} makes the first "
                f"step gamma_1 = {first:.3g}, {first / (2 * stable):.1f} times the largest "
                f"stable step 2 / (c lambda_max) = {2 * stable:.3g} at a minibatch of this data "
                "(data_step_scale), so the iterate would oscillate and grow over its first "
                f"steps. Use theta <= {4 * stable * (1 + t0):.3g} at this t0, a larger t0, or "
                "theta=None")
    feature_seeds = np.array([_feature_seed(seed, s) for s in range(1, steps + 1)], np.int64)
    data_seeds = np.array([(seed * 7_919 + 2 * s) % (2**31 - 1) for s in range(1, steps + 1)],
                          np.int64)
    stored = np.zeros((steps + 1, B))
    scale = np.ones(steps + 1)
    cum = np.zeros(steps + 1)
    n, d = X.shape
    history = {"step": [], "seen": [], "error": []}
    path = []  # the averaged iterate at the test points at each checkpoint
    limit = DIVERGED * (1.0 + float(np.max(np.abs(y))))
    peak = np.zeros(1)
    # Train to each checkpoint (log-spaced steps), recording the averaged iterate's error on
    # the test data there; without test data, the checkpoints only report progress.
    marks = np.unique(np.r_[np.geomspace(1, steps, max(2, checkpoints)).astype(np.int64), steps])
    # Keep f at the training points when that is cheaper than regenerating every earlier block
    # at each minibatch (n B against m t B feature evaluations a step, t / 2 on average).
    keep = n < m * steps / 2 if keep_values is None else bool(keep_values)
    raw_train = np.zeros(n if keep else 0)
    X_eval = test[0] if test is not None else np.zeros((0, d))
    raw_test = np.zeros(len(X_eval))
    avg_test = np.zeros(len(X_eval))
    # progress is also reported between the log-spaced checkpoints, every ~2 % of the steps
    # (the last checkpoints are a third of the run apart: a time left extrapolated from the
    # fraction went stale between them); the segments train the same steps either way
    stops = np.union1d(marks, np.linspace(0, steps, 51).astype(np.int64)[1:])
    marks = set(marks.tolist())
    done = 0
    for mark in stops:
        mark = int(mark)
        _train_segment(X, y, LOSSES[loss], B, m, 1.0 / bandwidth, nu, theta, t0, done, mark,
                       feature_seeds, data_seeds, stored, scale, cum, keep, raw_train, X_eval,
                       raw_test, avg_test, peak)
        if not peak[0] <= limit:  # also NaN
            how = "chosen from the data" if chosen else "given"
            raise ValueError(
                f"doubly_sgd diverged by step {mark:,}: the iterate reached |f| = {peak[0]:.3g} "
                f"at a minibatch, beyond {DIVERGED:g} (1 + max |y|) = {limit:.3g}. The step "
                f"scale theta = {theta:g} ({how}; first step gamma_1 = {theta / (1 + t0):.3g}) "
                "is too large for this data and bandwidth: use a smaller theta, a larger t0, "
                "or theta=None (see data_step_scale)")
        done = mark
        if test is not None and mark in marks:
            history["step"].append(done)
            history["seen"].append(done * m)
            history["error"].append(float(np.mean((avg_test - test[1]) ** 2)))
            path.append(avg_test.copy())
        report(progress, done / steps, f"step {done:,} of {steps:,}",
               partial=Partial({k: np.asarray(v) for k, v in history.items()}, avg_test.copy())
               if test is not None else None)
    history = {k: np.asarray(v) for k, v in history.items()}
    return DSGModel(seed, bandwidth, B, m, d, steps, stored, scale, cum, history,
                    avg_test if test is not None else None,
                    np.array(path).reshape(len(path), len(X_eval)) if test is not None else None)


@njit(cache=True, nogil=True)
def _train_segment(X, y, kind, B, m, inv_bw, nu, theta, t0, start, stop, seeds, data_seeds,
                   stored, scale, cum, keep, raw_train, X_test, raw_test, avg_test, peak):
    """Steps start + 1 .. stop of the training loop: ``stored[t]`` the block's coefficients
    / G_t, ``scale[t]`` = G_t, ``cum[t]`` = sum_{s <= t} G_s (index 0: before the first step);
    the arrays hold the earlier steps.

    f_{t-1} at the minibatch is either regenerated from every earlier block (m t B feature
    evaluations at step t) or, with ``keep``, read from ``raw_train``: f_t / G_t at every
    training point, to which each step adds its block (n B evaluations a step, whatever t).
    Both give the same iterate. ``raw_test`` and ``avg_test`` keep f_t / G_t and the averaged
    iterate f_bar_t at the test points the same way (empty arrays: no test points).
    ``peak[0]`` becomes the largest |f_{t-1}| met at a minibatch (NaN once it is not finite), so
    that the caller can stop a diverging run."""
    n, d = X.shape
    xb = np.empty((m, d))
    yb = np.empty(m)
    f = np.empty(m)
    if start == 0:
        scale[0] = 1.0
        cum[0] = 0.0
    for t in range(start + 1, stop + 1):
        gamma = theta / (t + t0)
        np.random.seed(data_seeds[t - 1])
        f[:] = 0.0
        for k in range(m):
            idx = np.random.randint(0, n)
            xb[k] = X[idx]
            yb[k] = y[idx]
            if keep:
                f[k] = raw_train[idx]
        if t > 1 and not keep:
            _eval_blocks(xb, stored[1:t], seeds[:t - 1], B, inv_bw, f)
        for k in range(m):
            f[k] *= scale[t - 1]
            size = abs(f[k])
            if not size <= peak[0]:  # larger, or NaN
                peak[0] = size
        if not peak[0] < 1e300:
            return
        omega, b = _block(seeds[t - 1], B, d, inv_bw)
        g_t = scale[t - 1] * (1.0 - gamma * nu)
        for j in range(B):
            acc = 0.0
            for k in range(m):
                phi = _SQRT2 * math.cos(_phase(omega, b, j, xb[k]))
                acc += _loss_grad(kind, f[k], yb[k]) * phi
            stored[t, j] = -gamma * acc / (m * B) / g_t
        scale[t] = g_t
        cum[t] = cum[t - 1] + g_t
        if keep:
            _add_block(X, stored[t], omega, b, raw_train)
        if X_test.shape[0] > 0:
            _add_block(X_test, stored[t], omega, b, raw_test)
            for k in range(X_test.shape[0]):
                avg_test[k] += (g_t * raw_test[k] - avg_test[k]) / t


# --- Gaussian process regression (Sec 3.3.1, eqs 3.9-3.10; experiment of Sec 3.6.2) -----------
# (the closed form, ``gp_closed_form``, is in ``_dsg_reference``)


