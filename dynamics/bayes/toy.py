"""The 1-D toys of Opper's Fig 1 and eq 8.10, run by assumed-density filtering (the update of
eqs 7.1-7.2 in one dimension). Part of ``dynamics.bayes``; the general updates are in ``adf``.

**The 1-D toy of Fig 1**: P(S | theta, x) = Phi(S (x - theta) / sigma0), theta* = 0.1,
sigma0 = 0.5. The paper does not give the law of the inputs; we take x ~ U[-1, 1] (the range the
text names) and the prior N(0, 1). Its Fisher information J = E_x[phi(v)^2 / (Phi(v) Phi(-v))]
/ sigma0^2 with v = (x - theta*) / sigma0 (by Gauss-Legendre quadrature: 1.6729), and the
Cramer-Rao bound E(theta_t - theta*)^2 >= 1 / (t J) (eq 3.1), which ADF reaches (eq 8.10).

**The misspecified toy** (eq 8.10): labels from a logistic teacher P(S | x) = 1 / (1 + exp(-S (x -
theta*) / tau)), the probit model as above. ADF then converges to the pseudo-true theta_p that
solves E_Q d ln P = 0 (eq 8.3), and t E(theta_t - theta_p)^2 -> A^-1 B A^-1 (the sandwich, eq
8.10), not J^-1: A = -E_Q d^2 ln P and B = E_Q (d ln P)^2 at theta_p (eq 8.7), here by quadrature.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit
from scipy import optimize

from ..checks import (
    as_generator, check_budget, check_count, check_finite_result, check_in_range, check_positive,
)
from .adf import _fisher_ratio, _g, _g_nb

__all__ = ["TOY_THETA", "TOY_SIGMA", "ToyRun", "toy_fisher", "toy_sandwich", "toy_runs"]


#: The 1-D toy of Fig 1.
TOY_THETA, TOY_SIGMA = 0.1, 0.5


def _toy_nodes(n: int = 200):
    """Gauss-Legendre nodes and weights for E over x ~ U[-1, 1]."""
    x, w = np.polynomial.legendre.leggauss(n)
    return x, w / 2.0


def toy_fisher(theta: float = TOY_THETA, sigma0: float = TOY_SIGMA) -> float:
    """J = E_x[phi(v)^2 / (Phi(v) Phi(-v))] / sigma0^2, v = (x - theta) / sigma0, x ~ U[-1, 1]."""
    theta, sigma0 = _check_toy(theta, sigma0)
    x, w = _toy_nodes()
    return check_finite_result("toy_fisher", float(w @ _fisher_ratio((x - theta) / sigma0))
                               / sigma0**2, "sigma0 is too small for double precision")


def _check_toy(theta, sigma0) -> tuple[float, float]:
    """The toy's theta* (in [-1, 1], where the inputs are) and label noise sigma0 > 0."""
    return (check_in_range("theta", theta, -1.0, 1.0),
            check_in_range("sigma0", sigma0, 1e-6, 1e6, low_open=True))


@dataclass(frozen=True)
class ToyRun:
    """The 1-D toy: ``t`` (checkpoints), the mean squared error of theta_t around ``target``
    (theta* or the pseudo-true theta_p), its standard error, and the bound ``limit`` / t."""

    t: np.ndarray
    mse: np.ndarray
    stderr: np.ndarray
    target: float
    limit: float
    runs: int


@njit(cache=True, nogil=True)
def _toy_runs(checkpoints, runs, theta, sigma0, logistic_tau, seed):
    """Errors theta_t - theta* of the 1-D ADF at the checkpoints, one row per run. Labels from
    the probit teacher (logistic_tau = 0) or a logistic one with scale logistic_tau."""
    np.random.seed(seed)
    out = np.empty((runs, checkpoints.size))
    for r in range(runs):
        m, C = 0.0, 1.0
        k = 0
        for t in range(1, checkpoints[-1] + 1):
            x = 2.0 * np.random.random() - 1.0
            if logistic_tau > 0:
                p = 1.0 / (1.0 + math.exp(-(x - theta) / logistic_tau))
                y = 1.0 if np.random.random() < p else -1.0
            else:
                y = 1.0 if x - theta + sigma0 * np.random.standard_normal() >= 0 else -1.0
            # E_u P = Phi(y (x - m) / s): the field is x - theta, so d/dm = -d/dfield
            s2 = sigma0 * sigma0 + C
            s = math.sqrt(s2)
            z = y * (x - m) / s
            g = _g_nb(z, 0.0)
            m -= C * g * y / s
            C -= C * C * g * (z + g) / s2
            while k < checkpoints.size and checkpoints[k] == t:
                out[r, k] = m
                k += 1
    return out


def toy_sandwich(theta: float = TOY_THETA, sigma0: float = TOY_SIGMA,
                 tau: float = 0.2) -> tuple[float, float, float]:
    """The misspecified toy (logistic teacher of scale ``tau``, probit model): (theta_p, the
    sandwich A^-1 B A^-1, and 1 / J(theta_p), the model's own inverse Fisher information there,
    which a well-specified analysis would predict), by quadrature over x ~ U[-1, 1], S = +-1."""
    theta, sigma0 = _check_toy(theta, sigma0)
    tau = check_in_range("tau", tau, 1e-3, 1e3)
    x, w = _toy_nodes()
    q_plus = 1.0 / (1.0 + np.exp(-(x - theta) / tau))

    def derivatives(th):
        v = (x - th) / sigma0
        # ln P(S) = log_ndtr(S v); d/dtheta = -S g(S v) / sigma0; d2 = -g (S v + g) / sigma0^2
        g_p, g_m = _g(v), _g(-v)
        d1 = (-g_p, g_m)
        d2 = (-g_p * (v + g_p), -g_m * (-v + g_m))
        return [d / sigma0 for d in d1], [d / sigma0**2 for d in d2]

    def score(th):
        (dp, dm), _ = derivatives(th)
        return float(w @ (q_plus * dp + (1 - q_plus) * dm))

    try:
        theta_p = optimize.brentq(score, -1.0, 1.0)
    except ValueError as exc:  # no sign change: the pseudo-true theta lies outside [-1, 1]
        raise ValueError(f"no pseudo-true theta_p in [-1, 1] for theta = {theta}, sigma0 = "
                         f"{sigma0}, tau = {tau}: the model cannot fit this teacher") from exc
    (dp, dm), (hp, hm) = derivatives(theta_p)
    A = -float(w @ (q_plus * hp + (1 - q_plus) * hm))
    B = float(w @ (q_plus * dp**2 + (1 - q_plus) * dm**2))
    return theta_p, B / A**2, 1.0 / toy_fisher(theta_p, sigma0)


def toy_runs(t_max: int = 10_000, runs: int = 500, *, theta: float = TOY_THETA,
             sigma0: float = TOY_SIGMA, logistic_tau: float = 0.0, points: int = 40,
             seed=None) -> ToyRun:
    """The 1-D toy of Fig 1 over ``runs`` runs: E(theta_t - target)^2 at log-spaced t, with
    the limit of t times it: 1 / J for the probit teacher (logistic_tau = 0, target theta*,
    efficiency), or the sandwich A^-1 B A^-1 around the pseudo-true theta_p for a logistic
    teacher of scale ``logistic_tau`` (eq 8.10)."""
    t_max = check_count("t_max", t_max, low=2)
    runs = check_count("runs", runs, low=2, high=1_000_000)
    theta, sigma0 = _check_toy(theta, sigma0)
    logistic_tau = check_positive("logistic_tau", logistic_tau, allow_zero=True)
    if 0 < logistic_tau < 1e-3 or logistic_tau > 1e3:
        raise ValueError(f"logistic_tau must be 0 (probit teacher) or lie in [0.001, 1000], "
                         f"got {logistic_tau}")
    check_budget("t_max and runs", t_max * runs, 1e10, "steps")  # the page's largest: 4e9
    points = check_count("points", points, low=2, high=10_000)
    checkpoints = np.unique(np.geomspace(1, t_max, points).astype(np.int64))
    seed = int(as_generator(seed).integers(0, 2**31 - 1))
    m = _toy_runs(checkpoints, runs, float(theta), float(sigma0), float(logistic_tau), seed)
    if logistic_tau > 0:
        target, limit, _ = toy_sandwich(theta, sigma0, logistic_tau)
    else:
        target, limit = theta, 1.0 / toy_fisher(theta, sigma0)
    sq = (m - target) ** 2
    return ToyRun(t=checkpoints.astype(float), mse=sq.mean(axis=0),
                  stderr=sq.std(axis=0, ddof=1) / math.sqrt(runs), target=float(target),
                  limit=float(limit), runs=runs)


def _warmup() -> None:
    """Compile the kernel with the production dtypes."""
    _toy_runs(np.array([1, 2, 3], dtype=np.int64), 2, 0.1, 0.5, 0.0, 0)
