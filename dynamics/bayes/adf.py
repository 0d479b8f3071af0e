"""Bayesian online learning by assumed-density filtering (Opper, *A Bayesian Approach to Online
Learning*, secs 6-9).

After each example the posterior is projected back onto a Gaussian N(m, C) by matching its
first two moments. With u ~ N(0, C) the update is (eqs 7.1-7.2)

    m <- m + C grad ln E_u P(y | m + u),     C <- C + C [Hess ln E_u P(y | m + u)] C.

**Probit perceptron** (eqs 9.1-9.2): P(S | theta, x) = kappa + (1 - 2 kappa) Phi(S theta.x /
sigma0), where kappa >= 0 is an optional output-flip probability (kappa = 0 is the paper's
model). Then E_u P = kappa + (1 - 2 kappa) Phi(z) with z = S m.x / s, s^2 = sigma0^2 + x^T C x,
and with g = (1 - 2 kappa) phi(z) / (kappa + (1 - 2 kappa) Phi(z)) (g = phi / Phi = r for
kappa = 0; dg/dz = -g (z + g))

    m <- m + (g S / s) C x,        C <- C - g (z + g) / s^2 (C x)(C x)^T.

g is computed in log space (``scipy.special.log_ndtr`` in NumPy; in the Numba kernels by the
continued fraction of Mills' ratio below z = -5), so |z| up to 40 and beyond are safe. The
**spherical** variant (eq 9.4) keeps C = c I: c <- c - c^2 g (z + g) ||x||^2 / (N s^2).

**The 1-D toys** of Fig 1 and eq 8.10 (the same update in one dimension) are in ``toy``.

**Teacher-student** (Fig 2): teacher theta* and inputs x with i.i.d. N(0, 1) components, labels
S = sign(theta*.x + sigma0 xi) (that is P(S | theta*, x) = Phi(S theta*.x / sigma0)), flipped
with probability kappa; the student starts from m = 0 and the true prior C = I. The
generalization error against the noise-free teacher is eps = arccos(R) / pi with R the cosine of
m and theta* (eq 9.3).

**The batch-Bayes curve** of Fig 2 (derived here: the paper shows it but prints no equations).
In the thermodynamic limit, with the field normalised per component (sigma = sigma0 / sqrt N,
the paper's 6.24 / sqrt 50 = 0.882), the replica-symmetric equations of Bayes-optimal learning
(Nishimori conditions: teacher prior and noise known) are

    q_hat = (alpha / V) E_xi[phi(u)^2 / (Phi(u) Phi(-u))],  u = sqrt(q / V) xi,  V = sigma^2 + 1 - q,
    q = q_hat / (1 + q_hat),         eps = arccos(sqrt q) / pi,

from Z_out(S; w, V) = Phi(S w / sqrt(sigma^2 + V)) and the unit Gaussian prior; solved by damped
fixed-point iteration with Gauss-Hermite quadrature over xi.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit
from scipy import special

from ..checks import (MAX_ABS, as_generator, check_array, check_budget, check_count,
                      check_flag, check_in_range, check_positive, check_progress, check_real,
                      describe, report)

__all__ = [
    "MAX_NOISE", "FIG2_N", "FIG2_SIGMA", "QUOTED_ALPHA", "Posterior",
    "PosteriorPath", "LearningCurve", "adf_update", "gaussian_update",
    "adf_perceptron", "adf_path", "teacher_data", "generalization_error", "learning_curve",
    "replica_bayes_curve", ]


#: Largest label noise (sigma0, sigma, noise) accepted: far beyond any useful value (the labels
#: are then pure noise), and small enough that its square and the updates stay finite.
MAX_NOISE = 1e6
#: The paper's Fig 2: N = 50 inputs, sigma0 = 6.24 on the field theta.x.
FIG2_N, FIG2_SIGMA = 50, 6.24
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


# --- the update ---------------------------------------------------------------------------------


def _g(z, flip: float = 0.0):
    """g(z) = (1 - 2 kappa) phi(z) / (kappa + (1 - 2 kappa) Phi(z)) in log space (NumPy)."""
    z = np.asarray(z, dtype=float)
    log_phi = -0.5 * z * z - _LOG_SQRT_2PI
    if flip == 0.0:
        return np.exp(log_phi - special.log_ndtr(z))
    a = 1.0 - 2.0 * flip
    log_den = np.logaddexp(math.log(flip), math.log(a) + special.log_ndtr(z))
    return np.exp(math.log(a) + log_phi - log_den)


def _check_flip(flip) -> float:
    return check_in_range("flip", flip, 0.0, 0.5, high_open=True)


def _check_examples(X, y, sigma0, flip):
    """Examples (rows of X) with labels of +-1, the noise and the flip probability, checked."""
    X = check_array("X", X, ndim=2, max_abs=MAX_ABS)
    y = check_array("y", y, shape=(X.shape[0],))
    if not np.all(np.abs(y) == 1):
        raise ValueError("y must hold labels -1 and +1")
    return X, y, check_in_range("sigma0", sigma0, 0.0, MAX_NOISE), _check_flip(flip)


def _fisher_ratio(u):
    """phi(u)^2 / (Phi(u) Phi(-u)), in log space: the Fisher information of a probit label per
    unit field variance (the toy's J and the replica equations' integrand)."""
    return np.exp(2 * (-0.5 * u * u - _LOG_SQRT_2PI) - special.log_ndtr(u)
                  - special.log_ndtr(-u))


def adf_update(m, C, x, y, *, sigma0: float, flip: float = 0.0):
    """One ADF step of the probit perceptron (eqs 7.1-7.2 with 9.1-9.2): the Gaussian N(m, C)
    after the example (x, y), y = +-1. ``C`` may be a matrix or a number c (the spherical
    variant, C = c I, eq 9.4). Returns (m_new, C_new) of the same kinds."""
    m = check_array("m", m, ndim=1, max_abs=MAX_ABS)
    x = check_array("x", x, shape=m.shape, max_abs=MAX_ABS)
    sigma0 = check_in_range("sigma0", sigma0, 0.0, MAX_NOISE)
    flip = _check_flip(flip)
    if check_real("y", y) not in (1.0, -1.0):
        raise ValueError(f"y must be +1 or -1, got {y!r}")
    spherical = np.isscalar(C) or (isinstance(C, np.ndarray) and C.ndim == 0)
    if spherical:
        c = check_positive("C", C)
        Cx = c * x
    else:
        C = check_array("C", C, shape=(m.size, m.size), max_abs=MAX_ABS)
        Cx = C @ x
    s2 = sigma0**2 + float(x @ Cx)
    if s2 <= 0:
        raise ValueError("sigma0^2 + x^T C x must be positive (sigma0 = 0 needs x^T C x > 0)")
    s = math.sqrt(s2)
    z = y * float(m @ x) / s
    g = float(_g(z, flip))
    m_new = m + (g * y / s) * Cx
    shrink = g * (z + g) / s2
    if spherical:
        return m_new, c - c * c * shrink * float(x @ x) / m.size
    return m_new, C - shrink * np.outer(Cx, Cx)


def gaussian_update(m, C, x, y: float, *, noise: float):
    """Eqs 7.1-7.2 for linear regression, y = theta.x + N(0, noise^2): E_u P(y | m + u) is
    N(y; m.x, s^2) with s^2 = noise^2 + x^T C x, so m <- m + C x (y - m.x) / s^2 and
    C <- C - (C x)(C x)^T / s^2: the Kalman filter (recursive least squares), where the Gaussian
    ansatz is exact."""
    m = check_array("m", m, ndim=1, max_abs=MAX_ABS)
    x = check_array("x", x, shape=m.shape, max_abs=MAX_ABS)
    C = check_array("C", C, shape=(m.size, m.size), max_abs=MAX_ABS)
    noise = check_in_range("noise", noise, 0.0, MAX_NOISE, low_open=True)
    y = check_in_range("y", y, -np.inf, np.inf)
    Cx = C @ x
    s2 = noise**2 + float(x @ Cx)
    return m + Cx * (y - float(m @ x)) / s2, C - np.outer(Cx, Cx) / s2


@dataclass(frozen=True)
class Posterior:
    """The Gaussian after the last example: ``mean`` and ``cov`` (a matrix; for the spherical
    variant c I, with ``c`` the number)."""

    mean: np.ndarray
    cov: np.ndarray
    c: float | None = None


def adf_perceptron(X, y, *, sigma0: float, m0=None, C0=None, spherical: bool = False,
                   flip: float = 0.0) -> Posterior:
    """ADF over the examples (rows of ``X``, labels ``y`` of +-1) in order, from the prior
    N(m0, C0) (default N(0, I); for ``spherical``, C0 is a number, default 1)."""
    X, y, sigma0, flip = _check_examples(X, y, sigma0, flip)
    spherical = check_flag("spherical", spherical)
    t, N = X.shape
    m = np.zeros(N) if m0 is None else check_array("m0", m0, shape=(N,), max_abs=MAX_ABS).copy()
    if spherical:
        c = 1.0 if C0 is None else check_positive("C0", C0)
        if sigma0 == 0 and c == 0:
            raise ValueError("sigma0 = 0 needs a positive prior variance")
        m, c = _run_spherical(X, y.astype(float), m, c, sigma0, flip)
        return Posterior(mean=m, cov=c * np.eye(N), c=c)
    C = np.eye(N) if C0 is None else check_array("C0", C0, shape=(N, N), max_abs=MAX_ABS).copy()
    m, C = _run_full(X, y.astype(float), m, C, sigma0, flip)
    return Posterior(mean=m, cov=C)


@dataclass(frozen=True)
class PosteriorPath:
    """N(m_t, C_t) after each of the first t examples: ``means`` (t + 1, N) and ``covs``
    (t + 1, N, N), index 0 the prior."""

    means: np.ndarray
    covs: np.ndarray


def adf_path(X, y, *, sigma0: float, spherical: bool = False, flip: float = 0.0) -> PosteriorPath:
    """ADF from the prior N(0, I) over the examples in order, keeping every posterior (for
    watching the Gaussian shrink in low dimension)."""
    X, y, sigma0, flip = _check_examples(X, y, sigma0, flip)
    spherical = check_flag("spherical", spherical)
    t, N = X.shape
    check_budget("X", (t + 1) * N * N, 10**8, "covariance entries (t + 1) N^2 to store")
    means = np.zeros((t + 1, N))
    covs = np.empty((t + 1, N, N))
    covs[0] = np.eye(N)
    m, C, c = np.zeros(N), np.eye(N), 1.0
    for k in range(t):
        if spherical:
            c = _step_spherical(m, c, X[k], float(y[k]), sigma0, flip)
            covs[k + 1] = c * np.eye(N)
        else:
            _step_full(m, C, X[k], float(y[k]), sigma0, flip)
            covs[k + 1] = C
        means[k + 1] = m
    return PosteriorPath(means=means, covs=covs)


def teacher_data(N: int, t: int, *, sigma0: float, flip: float = 0.0, seed=None):
    """A teacher theta* ~ N(0, I_N), t inputs x ~ N(0, I_N) and labels S = sign(theta*.x +
    sigma0 xi), each flipped with probability ``flip``: (teacher, X, y)."""
    N = check_count("N", N, low=1, high=2000)
    t = check_count("t", t, low=1, high=10_000_000)
    check_budget("N and t", N * t, 10**8, "input entries")
    sigma0 = check_in_range("sigma0", sigma0, 0.0, MAX_NOISE)
    flip = _check_flip(flip)
    rng = as_generator(seed)
    teacher = rng.standard_normal(N)
    X = rng.standard_normal((t, N))
    y = np.where(X @ teacher + sigma0 * rng.standard_normal(t) >= 0, 1.0, -1.0)
    y[rng.random(t) < flip] *= -1
    return teacher, X, y


def generalization_error(estimate, teacher) -> float:
    """eps = arccos(R) / pi, R the cosine between the estimate and the teacher (eq 9.3): the
    probability that the two perceptrons disagree on a Gaussian input."""
    a = check_array("estimate", estimate, ndim=1)
    b = check_array("teacher", teacher, shape=a.shape)
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if nb == 0:
        raise ValueError("teacher must not be zero")
    if na == 0:
        return 0.5
    return float(np.arccos(np.clip(a @ b / (na * nb), -1.0, 1.0)) / np.pi)


# --- Numba kernels ------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _g_nb(z, flip):
    """g(z) as ``_g``: phi / Phi by the continued fraction of Mills' ratio for z < -5, where
    Phi underflows long before phi / Phi misbehaves."""
    if z < -5.0:
        x = -z
        frac = x
        for k in range(60, 0, -1):
            frac = x + k / frac
        r = frac  # phi(z) / Phi(z) = 1 / Mills(x), and Mills(x) = 1 / (x + 1/(x + 2/(x + ...)))
        if flip == 0.0:
            return r
        # a phi / (kappa + a Phi) = a r / (kappa / Phi + a); Phi = phi / r
        log_phi = -0.5 * z * z - 0.9189385332046728
        phi = math.exp(log_phi)
        big = phi / r
        a = 1.0 - 2.0 * flip
        return a * phi / (flip + a * big)
    Phi = 0.5 * math.erfc(-z / math.sqrt(2.0))
    phi = math.exp(-0.5 * z * z - 0.9189385332046728)
    a = 1.0 - 2.0 * flip
    return a * phi / (flip + a * Phi)


@njit(cache=True, nogil=True)
def _log_ndtr_nb(z):
    """log Phi(z): erfc down to z = -5, below it log phi(z) - log(phi / Phi) (Mills' ratio)."""
    if z < -5.0:
        return -0.5 * z * z - 0.9189385332046728 - math.log(_g_nb(z, 0.0))
    return math.log(0.5 * math.erfc(-z / math.sqrt(2.0)))


@njit(cache=True, nogil=True)
def _entropic(m, C, c, spherical, teacher, sigma0, tests):
    """Mean over the rows of ``tests`` of KL(Q(.|x) || P_hat(.|x)) (eq 8.11): Q(S|x) =
    Phi(S teacher.x / sigma0), P_hat(S|x) = Phi(S m.x / s(x)) the predictive of N(m, C)."""
    total = 0.0
    for i in range(tests.shape[0]):
        x = tests[i]
        s2 = sigma0 * sigma0 + (c * (x @ x) if spherical else x @ (C @ x))
        zq = (teacher @ x) / sigma0
        zp = (m @ x) / math.sqrt(s2)
        for S in (1.0, -1.0):
            lq = _log_ndtr_nb(S * zq)
            total += math.exp(lq) * (lq - _log_ndtr_nb(S * zp))
    return total / tests.shape[0]


@njit(cache=True, nogil=True)
def _step_full(m, C, x, y, sigma0, flip):
    N = m.size
    Cx = C @ x
    s2 = sigma0 * sigma0 + x @ Cx
    s = math.sqrt(s2)
    z = y * (m @ x) / s
    g = _g_nb(z, flip)
    for i in range(N):
        m[i] += g * y / s * Cx[i]
    shrink = g * (z + g) / s2
    for i in range(N):
        for j in range(N):
            C[i, j] -= shrink * Cx[i] * Cx[j]


@njit(cache=True, nogil=True)
def _step_spherical(m, c, x, y, sigma0, flip):
    N = m.size
    xx = x @ x
    s2 = sigma0 * sigma0 + c * xx
    s = math.sqrt(s2)
    z = y * (m @ x) / s
    g = _g_nb(z, flip)
    for i in range(N):
        m[i] += g * y / s * c * x[i]
    return c - c * c * g * (z + g) * xx / (N * s2)


@njit(cache=True, nogil=True)
def _run_full(X, y, m, C, sigma0, flip):
    for t in range(X.shape[0]):
        _step_full(m, C, X[t], y[t], sigma0, flip)
    return m, C


@njit(cache=True, nogil=True)
def _run_spherical(X, y, m, c, sigma0, flip):
    for t in range(X.shape[0]):
        c = _step_spherical(m, c, X[t], y[t], sigma0, flip)
    return m, c


@njit(cache=True, nogil=True)
def _teacher_student(N, checkpoints, sigma0, flip, spherical, seed, n_tests):
    """One teacher-student run: eps (eq 9.3) and the entropic error (eq 8.11, over ``n_tests``
    fresh inputs; 0 when n_tests = 0) at each checkpoint (numbers of examples)."""
    np.random.seed(seed)
    teacher = np.random.standard_normal(N)
    m = np.zeros(N)
    C = np.eye(N) if not spherical else np.zeros((1, 1))
    c = 1.0
    eps = np.empty(checkpoints.size)
    ent = np.zeros(checkpoints.size)
    k = 0
    tnorm = math.sqrt(teacher @ teacher)
    for t in range(1, checkpoints[-1] + 1):
        x = np.random.standard_normal(N)
        field = teacher @ x + sigma0 * np.random.standard_normal()
        y = 1.0 if field >= 0 else -1.0
        if flip > 0 and np.random.random() < flip:
            y = -y
        if spherical:
            c = _step_spherical(m, c, x, y, sigma0, flip)
        else:
            _step_full(m, C, x, y, sigma0, flip)
        while k < checkpoints.size and checkpoints[k] == t:
            mn = math.sqrt(m @ m)
            cos = (m @ teacher) / (mn * tnorm) if mn > 0 else 0.0
            cos = min(1.0, max(-1.0, cos))
            eps[k] = math.acos(cos) / math.pi
            if n_tests > 0 and sigma0 > 0:
                tests = np.random.standard_normal((n_tests, N))
                ent[k] = _entropic(m, C, c, spherical, teacher, sigma0, tests)
            k += 1
    return eps, ent


@dataclass(frozen=True)
class LearningCurve:
    """eps (eq 9.3) against alpha = t / N: the mean over ``runs`` and its standard error; the
    entropic error (eq 8.11) likewise (NaN without test inputs or noise), whose
    well-specified asymptote is N / (2 t) (eq 8.12)."""

    alpha: np.ndarray
    eps: np.ndarray
    stderr: np.ndarray
    entropic: np.ndarray
    entropic_stderr: np.ndarray
    N: int
    runs: int


#: The alphas at which Fig 2's numbers are quoted (always among the checkpoints when in range).
QUOTED_ALPHA = (1.0, 2.0, 5.0, 10.0, 20.0)


def learning_curve(N: int = FIG2_N, alpha_max: float = 20.0, runs: int = 50, *,
                   sigma0: float = FIG2_SIGMA, flip: float = 0.0, spherical: bool = False,
                   points: int = 40, entropic_tests: int = 0, seed=None,
                   progress=None) -> LearningCurve:
    """Teacher-student ADF runs (Fig 2): eps at ``points`` log-spaced alpha up to
    ``alpha_max`` (and at the quoted 1, 2, 5, 10, 20), averaged over ``runs`` (teacher, inputs
    and noise drawn per run); with ``entropic_tests`` > 0 also the entropic error over that many
    fresh inputs per checkpoint."""
    N = check_count("N", N, low=1, high=2000)
    alpha_max = check_in_range("alpha_max", alpha_max, 0.0, 1e7, low_open=True)
    runs = check_count("runs", runs, high=100_000)
    sigma0 = check_in_range("sigma0", sigma0, 0.0, MAX_NOISE)
    flip = _check_flip(flip)
    spherical = check_flag("spherical", spherical)
    points = check_count("points", points, low=2, high=10_000)
    entropic_tests = check_count("entropic_tests", entropic_tests, low=0, high=100_000)
    progress = check_progress(progress)
    t_max = max(1, int(round(alpha_max * N)))
    # 1e13: the page's largest run (N = 400, alpha up to 100, 1000 runs) is 6.4e12, an hours-long
    # job it can cancel; 10**12-sized arguments are refused
    check_budget("runs, alpha_max and N", runs * t_max * N * (N if not spherical else 1), 1e13,
                 "operations")
    if t_max > 10_000_000:
        raise ValueError(f"alpha_max * N = {t_max} examples is too many (at most 10^7)")
    quoted = [int(round(a * N)) for a in QUOTED_ALPHA if 1 <= a * N <= t_max]
    checkpoints = np.unique(np.r_[np.geomspace(1, t_max, points).astype(np.int64), quoted,
                                  t_max]).astype(np.int64)
    rng = as_generator(seed)
    seeds = rng.integers(0, 2**31 - 1, size=runs)
    eps = np.empty((runs, checkpoints.size))
    ent = np.empty((runs, checkpoints.size))
    for r in range(runs):
        eps[r], ent[r] = _teacher_student(N, checkpoints, float(sigma0), float(flip),
                                          bool(spherical), int(seeds[r]), entropic_tests)
        report(progress, (r + 1) / runs, f"run {r + 1} of {runs}")

    def stderr(a):
        return a.std(axis=0, ddof=1) / math.sqrt(runs) if runs > 1 else np.zeros(a.shape[1])

    has_ent = entropic_tests > 0 and sigma0 > 0
    nan = np.full(checkpoints.size, np.nan)
    return LearningCurve(alpha=checkpoints / N, eps=eps.mean(axis=0), stderr=stderr(eps),
                         entropic=ent.mean(axis=0) if has_ent else nan,
                         entropic_stderr=stderr(ent) if has_ent else nan, N=N, runs=runs)


# --- theory -------------------------------------------------------------------------------------


def replica_bayes_curve(alpha, *, sigma: float = FIG2_SIGMA / math.sqrt(FIG2_N),
                        nodes: int = 80, tol: float = 1e-12) -> np.ndarray:
    """eps(alpha) of batch Bayes in the thermodynamic limit (RS equations, see the module
    docstring; derived here, not printed in the paper). ``sigma`` is the noise on the field
    normalised per component (sigma0 / sqrt N)."""
    alpha = np.atleast_1d(check_array("alpha", alpha))
    if alpha.ndim != 1 or np.any(alpha < 0):
        raise ValueError(f"alpha must be a number or a 1-d array of numbers >= 0, "
                         f"got {describe(alpha)}")
    sigma = check_in_range("sigma", sigma, 0.0, MAX_NOISE)
    nodes = check_count("nodes", nodes, low=2, high=1000)
    tol = check_in_range("tol", tol, 0.0, 0.1, low_open=True)
    xi, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / w.sum()
    out = np.empty(alpha.size)
    q = 0.0
    for i, a in enumerate(alpha):
        for _ in range(10_000):
            V = sigma**2 + 1.0 - q
            u = np.sqrt(q / V) * xi
            q_hat = a / V * float(w @ _fisher_ratio(u))
            new = q_hat / (1.0 + q_hat)
            if abs(new - q) < tol:
                q = new
                break
            q = 0.5 * q + 0.5 * new
        out[i] = math.acos(math.sqrt(min(max(q, 0.0), 1.0))) / math.pi
    return out


def _warmup() -> None:
    """Compile the kernels with the production dtypes."""
    cp = np.array([1, 2, 3], dtype=np.int64)
    _teacher_student(3, cp, 1.0, 0.0, False, 0, 2)
    _teacher_student(3, cp, 1.0, 0.1, True, 0, 2)
    X = np.ones((2, 2))
    yv = np.ones(2)
    _run_full(X, yv, np.zeros(2), np.eye(2), 1.0, 0.0)
    _run_spherical(X, yv, np.zeros(2), 1.0, 1.0, 0.0)
