"""The exact (batch) Bayes posterior of the probit perceptron at finite N, beside ADF (Opper,
Sec 9 and Fig 2: "For comparison, we have shown the error for the true (batch) Bayes
prediction ... calculated for the thermodynamic limit N -> infinity"), and the Hebbian form of
the spherical update (the remark after eq 9.4).

**The posterior.** Prior theta ~ N(0, I_N) (the teacher's law, as in the ADF runs), likelihood
P(S | theta, x) = kappa + (1 - 2 kappa) Phi(S theta.x / sigma0) (eq 9.1, kappa = 0 in the paper):
after t examples p(theta | D) is proportional to N(theta; 0, I) prod_i P(S_i | theta, x_i). Its
generalization error is that of its mean, eps = arccos(R) / pi with R the cosine of E[theta | D]
and theta* (eq 9.3, the same measure as ADF's mean), averaged over teachers and data sets.

- ``posterior_mean_quadrature``: E[theta | D] by a tensor grid over [-extent, extent]^N (N <= 3),
  the reference.
- ``posterior_mean_gibbs``: E[theta | D] by Gibbs sampling with data augmentation (Albert &
  Chib 1993: a latent field u_i ~ N(theta.x_i, sigma0^2) per label, and a flip indicator when
  kappa > 0), Rao-Blackwellised (the average of E[theta | u], not of the draws): exact MCMC,
  checked against the quadrature. Elliptical slice sampling was tried first: its posterior
  means at N = 50 were noisy enough (200 draws) to raise eps above ADF's.
- ``batch_bayes_finite``: eps of the batch posterior mean at log-spaced alpha = t / N over runs,
  the sampler's chain carried from one checkpoint's posterior to the next (warm start).

**Hebb** (the remark after eq 9.4): with C = c I the mean update of eqs 7.1 and 9.2 is
m <- m + F S x with F = c g(z) / s, z = S m.x / s, s^2 = sigma0^2 + c |x|^2: a Hebbian term S x
weighted by a positive factor that depends on the example only through its stability z (and
|x|), as in the weighted Hebbian rules of the thermodynamic-limit literature (the paper: the
same update as the locally optimal one of Biehl et al. 1995 when the model is well specified).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit
from scipy import special

from ..checks import (MAX_ABS, as_generator, check_array, check_budget, check_count,
                       check_signed_data,
                       check_in_range, check_positive, check_progress, check_real, report)
from .adf import (MAX_NOISE, QUOTED_ALPHA, _check_flip, _g, _log_ndtr_nb, _step_full,
                  generalization_error, teacher_data)

__all__ = ["MAX_QUADRATURE_N", "MIN_SAMPLER_NOISE", "BATCH_MIN_NOISE_RATIO", "BatchCurve", "posterior_mean_quadrature",
           "posterior_mean_gibbs", "batch_bayes_finite", "hebb_weight"]

#: Largest dimension the tensor-grid quadrature accepts (points^N nodes).
MAX_QUADRATURE_N = 3
#: Smallest label noise sigma0 the Gibbs sampler accepts: its latent fields have this noise, and
#: its mixing (and double precision in I + X^T X / sigma0^2) fails as sigma0 -> 0.
MIN_SAMPLER_NOISE = 1e-3


def _check_noise(sigma0, flip) -> tuple[float, float]:
    sigma0 = check_in_range("sigma0", sigma0, 0.0, MAX_NOISE)
    flip = _check_flip(flip)
    if sigma0 == 0 and flip == 0:
        raise ValueError("sigma0 must be > 0 (or flip > 0): the noise-free step likelihood has "
                         "no density the sampler can start from")
    return sigma0, flip


#: Noise to signal sigma0 / sqrt(N) from which the default 100 sweeps give eps of the posterior
#: mean to about 0.01 (checked at N = 50: at 0.88, the paper's, the batch curve lies on ADF's and
#: the replica's; at 0.28 it lies 0.01 above them; at 0.07 it needed 1,000 sweeps to come down
#: to them, the sampler's means being too noisy). Below it the pages do not draw the batch curve.
BATCH_MIN_NOISE_RATIO = 0.5


def _check_sampler_noise(sigma0, flip) -> tuple[float, float]:
    sigma0, flip = _check_noise(sigma0, flip)
    if sigma0 < MIN_SAMPLER_NOISE:
        raise ValueError(f"sigma0 must be >= {MIN_SAMPLER_NOISE:g} for the Gibbs sampler (the "
                         f"latent fields' noise), got {sigma0!r}")
    return sigma0, flip


def _log_lik_np(fields, sigma0, flip):
    """sum_i log(kappa + (1 - 2 kappa) Phi(field_i / sigma0)) over the last axis, fields = S x.theta."""
    log_phi = special.log_ndtr(fields / sigma0)
    if flip == 0:
        return log_phi.sum(axis=-1)
    return np.logaddexp(math.log(flip), math.log(1 - 2 * flip) + log_phi).sum(axis=-1)


def posterior_mean_quadrature(X, y, *, sigma0: float, flip: float = 0.0, points: int = 201,
                              extent: float = 6.0) -> np.ndarray:
    """E[theta | D] of the prior N(0, I_N) times the likelihood of eq 9.1 on the examples (rows
    of ``X``, labels ``y``), by the rectangle rule on a grid of ``points`` per axis over
    [-extent, extent]^N, N <= ``MAX_QUADRATURE_N``."""
    X, y = check_signed_data(X, y)
    sigma0, flip = _check_noise(sigma0, flip)
    N = X.shape[1]
    if N > MAX_QUADRATURE_N:
        raise ValueError(f"X has N = {N} columns: the quadrature takes N <= {MAX_QUADRATURE_N}")
    points = check_count("points", points, low=3, high=2001)
    extent = check_in_range("extent", extent, 0.5, 50.0)
    check_budget("points and X", points**N * max(X.shape[0], 1), 2e9, "likelihood terms")
    axis = np.linspace(-extent, extent, points)
    grid = np.stack(np.meshgrid(*([axis] * N), indexing="ij"), axis=-1).reshape(-1, N)
    log_w = -0.5 * (grid**2).sum(axis=1)
    for start in range(0, X.shape[0], 64):  # the likelihood in blocks of examples
        fields = (grid @ X[start:start + 64].T) * y[start:start + 64]
        log_w += _log_lik_np(fields, sigma0, flip)
    w = np.exp(log_w - log_w.max())
    return (w @ grid) / w.sum()


@njit(cache=True, nogil=True)
def _truncated_normal(a):
    """A draw of the standard normal conditioned on > a: plain rejection for a < 0.5, Robert's
    (1995) exponential proposal above (acceptance above 0.7 for every a >= 0.5)."""
    if a > 1e6:  # the excess over a is about 1 / a: below double precision's resolution of a
        return a
    if a < 0.5:
        while True:
            z = np.random.standard_normal()
            if z > a:
                return z
    lam = 0.5 * (a + math.sqrt(a * a + 4.0))
    while True:
        z = a - math.log(1.0 - np.random.random()) / lam
        if np.random.random() < math.exp(-0.5 * (z - lam) ** 2):
            return z


@njit(cache=True, nogil=True)
def _gibbs_chain(X, y, theta, t, sigma0, flip, sweeps, burn):
    """Gibbs sampling with data augmentation (Albert & Chib 1993) of N(0, I) x the likelihood
    of the first t examples, from ``theta`` (updated in place). Each example's label is
    S_i = sign(u_i) of a latent field u_i ~ N(theta.x_i, sigma0^2), flipped with probability
    kappa: sweep (1) the flip indicators given theta, P(flipped) = kappa Phi(-S f) / (kappa
    Phi(-S f) + (1 - kappa) Phi(S f)), f = theta.x / sigma0; (2) u_i given theta and its sign,
    a truncated normal; (3) theta given u, N(P^-1 X^T u / sigma0^2, P^-1) with the precision
    P = I + X^T X / sigma0^2. Returns the Rao-Blackwellised posterior mean, the average of
    E[theta | u] = P^-1 X^T u / sigma0^2 over the ``sweeps`` after ``burn``."""
    N = theta.size
    Qt, L = _precision_factor(X[:t] / sigma0)
    u = np.empty(t)
    mean = np.zeros(N)
    for sweep in range(burn + sweeps):
        for i in range(t):
            field = 0.0
            for k in range(N):
                field += X[i, k] * theta[k]
            sign = y[i]
            if flip > 0.0:
                keep = (1.0 - flip) * math.exp(_log_ndtr_nb(sign * field / sigma0))
                swap = flip * math.exp(_log_ndtr_nb(-sign * field / sigma0))
                if np.random.random() * (keep + swap) < swap:
                    sign = -sign
            # u = field + sigma0 e with sign(u) = sign: e > -sign field / sigma0, times sign
            u[i] = sign * (sign * field + sigma0 * _truncated_normal(-sign * field / sigma0))
        # E[theta | u] = P^-1 X^T u / sigma0^2 = R^-1 Q^T [u / sigma0; 0], the least-squares
        # solution of [Z; I] mu = [u / sigma0; 0] by its QR factors: X^T u is never formed
        # (with nearly dependent columns of X, its rounding is what P^-1 would magnify)
        w = np.zeros(N)
        for k in range(N):
            acc = 0.0
            for i in range(t):
                acc += Qt[k, i] * u[i]
            w[k] = acc / sigma0
        mu = _backward(L, w)  # L^T mu = R mu = w
        noise = _backward(L, np.random.standard_normal(N))  # covariance P^-1
        for k in range(N):
            theta[k] = mu[k] + noise[k]
        if sweep >= burn:
            mean += mu
    return mean / sweeps


@njit(cache=True, nogil=True)
def _precision_factor(Z):
    """The QR factorisation A = Q R of the stacked matrix A = [Z; I] (t + N, N), A^T A = P =
    I + Z^T Z: returns the first t rows of Q, transposed (N, t), and L = R^T, the lower Cholesky
    factor of P (L L^T = P, positive diagonal). Forming P and factoring it loses the I beside a
    large Z^T Z of rank < N (a column of X repeated at size 1e8 leaves P singular in doubles,
    and Cholesky fails); the QR of A does not, and the diagonal of R is at least the smallest
    singular value of A, which is >= 1."""
    t, N = Z.shape
    A = np.zeros((t + N, N))
    A[:t] = Z
    for k in range(N):
        A[t + k, k] = 1.0
    Q, R = np.linalg.qr(A)
    for k in range(N):
        if R[k, k] < 0.0:
            R[k] = -R[k]
            Q[:, k] = -Q[:, k]
    return np.ascontiguousarray(Q[:t].T), np.ascontiguousarray(R.T)


@njit(cache=True, nogil=True)
def _backward(L, b):
    n = b.size
    x = np.empty(n)
    for i in range(n - 1, -1, -1):
        acc = b[i]
        for j in range(i + 1, n):
            acc -= L[j, i] * x[j]
        x[i] = acc / L[i, i]
    return x


def posterior_mean_gibbs(X, y, *, sigma0: float, flip: float = 0.0, sweeps: int = 2000,
                         burn_in: int = 100, seed=None) -> np.ndarray:
    """E[theta | D] (prior N(0, I_N), likelihood of eq 9.1) by Gibbs sampling with data
    augmentation, Rao-Blackwellised: the mean of E[theta | u] over ``sweeps`` sweeps after
    ``burn_in``, from a draw of the prior. Needs sigma0 > 0 (the latent fields' noise)."""
    X, y = check_signed_data(X, y)
    sigma0, flip = _check_sampler_noise(sigma0, flip)
    if X.size and float(np.abs(X).max()) / sigma0 > 1e100 / math.sqrt(X.shape[0] + 1):
        raise ValueError("X / sigma0 is too large: the precision I + X^T X / sigma0^2 overflows")
    sweeps = check_count("sweeps", sweeps, high=10_000_000)
    burn_in = check_count("burn_in", burn_in, low=0, high=10_000_000)
    t, N = X.shape
    if N > 400:
        raise ValueError(f"X has N = {N} columns: at most 400")
    check_budget("sweeps, burn_in and X", (sweeps + burn_in) * (max(t, 1) + N) * N, 1e11,
                 "operations")
    rng = as_generator(seed)
    np_seed = int(rng.integers(0, 2**31 - 1))
    theta = rng.standard_normal(N)
    return _gibbs_run(np.ascontiguousarray(X), y.astype(float), theta, t, float(sigma0),
                      float(flip), sweeps, burn_in, np_seed)


@njit(cache=True, nogil=True)
def _gibbs_run(X, y, theta, t, sigma0, flip, sweeps, burn, seed):
    np.random.seed(seed)
    return _gibbs_chain(X, y, theta, t, sigma0, flip, sweeps, burn)


@njit(cache=True, nogil=True)
def _curve_run(X, y, checkpoints, sigma0, flip, sweeps, burn, seed):
    """The posterior mean after each checkpoint (numbers of examples) of one data set, the
    chain carried from one checkpoint to the next, from a draw of the prior (the posterior at
    t = 0)."""
    np.random.seed(seed)
    N = X.shape[1]
    theta = np.random.standard_normal(N)
    means = np.empty((checkpoints.size, N))
    for k in range(checkpoints.size):
        means[k] = _gibbs_chain(X, y, theta, checkpoints[k], sigma0, flip, sweeps, burn)
    return means


@dataclass(frozen=True)
class BatchCurve:
    """eps of the batch Bayes posterior mean at finite N: ``alpha`` (checkpoints / N), ``eps``
    and its standard error over ``runs`` teachers and data sets, with the sampler's settings;
    ``adf_eps`` the full-covariance ADF's eps on the same teachers and examples, in the same
    order, and ``difference``, ``difference_se`` the mean over those teachers of ADF's eps
    minus the batch posterior's and its standard error (the paired comparison)."""

    alpha: np.ndarray
    eps: np.ndarray
    stderr: np.ndarray
    N: int
    runs: int
    sweeps: int
    burn_in: int
    adf_eps: np.ndarray = None  # type: ignore[assignment]
    difference: np.ndarray = None  # type: ignore[assignment]
    difference_se: np.ndarray = None  # type: ignore[assignment]


def _adf_on(X, y, teacher, checkpoints, sigma0: float, flip: float) -> np.ndarray:
    """eps (eq 9.3) of the full-covariance ADF (eqs 7.1-7.2) run over the examples ``X``,
    ``y`` in order, at each checkpoint (a number of examples)."""
    N = X.shape[1]
    m, C = np.zeros(N), np.eye(N)
    out, k = np.empty(checkpoints.size), 0
    for t in range(1, int(checkpoints[-1]) + 1):
        _step_full(m, C, X[t - 1], float(y[t - 1]), sigma0, flip)
        while k < checkpoints.size and checkpoints[k] == t:
            out[k] = generalization_error(m, teacher)
            k += 1
    return out


def batch_bayes_finite(N: int, alpha_max: float = 20.0, runs: int = 50, *, sigma0: float,
                       flip: float = 0.0, points: int = 12, sweeps: int = 100,
                       burn_in: int = 20, seed=None, progress=None) -> BatchCurve:
    """The finite-N batch Bayes learning curve of Fig 2's teacher-student setting: for each of
    ``runs`` teachers theta* ~ N(0, I_N) with inputs x ~ N(0, I_N) and labels sign(theta*.x +
    sigma0 xi) (flipped with probability ``flip``; run r's are ``teacher_data(N, t_max,
    seed=s)`` with s = as_generator(seed).integers(0, 2**31 - 1, size=(runs, 2))[r, 0]),
    eps (eq 9.3) of the posterior mean after t
    examples at ``points`` log-spaced alpha = t / N up to ``alpha_max`` (and at the quoted 1, 2,
    5, 10, 20), the mean by ``posterior_mean_gibbs``'s sampler (``sweeps`` after ``burn_in``,
    warm-started from the previous checkpoint's state). ``progress(fraction, message)`` per
    run. On each teacher's examples the full-covariance ADF runs too, in the same order: the
    curve's ``difference`` is ADF minus batch paired by teacher."""
    N = check_count("N", N, low=1, high=400)
    alpha_max = check_in_range("alpha_max", alpha_max, 0.0, 1000.0, low_open=True)
    runs = check_count("runs", runs, low=2, high=100_000)
    sigma0, flip = _check_sampler_noise(sigma0, flip)
    points = check_count("points", points, low=2, high=200)
    sweeps = check_count("sweeps", sweeps, high=1_000_000)
    burn_in = check_count("burn_in", burn_in, low=0, high=1_000_000)
    progress = check_progress(progress)
    t_max = max(1, int(round(alpha_max * N)))
    quoted = [int(round(a * N)) for a in QUOTED_ALPHA if 1 <= a * N <= t_max]
    checkpoints = np.unique(np.r_[np.geomspace(1, t_max, points).astype(np.int64), quoted,
                                  t_max]).astype(np.int64)
    check_budget("runs, sweeps, burn_in, alpha_max and N",
                 runs * (sweeps + burn_in) * int(checkpoints.sum() + checkpoints.size * N) * N,
                 2e11, "operations")
    seeds = as_generator(seed).integers(0, 2**31 - 1, size=(runs, 2))
    eps, adf = np.empty((runs, checkpoints.size)), np.empty((runs, checkpoints.size))
    for r in range(runs):
        teacher, X, y = teacher_data(N, t_max, sigma0=sigma0, flip=flip, seed=int(seeds[r, 0]))
        means = _curve_run(X, y, checkpoints, float(sigma0), float(flip), sweeps, burn_in,
                           int(seeds[r, 1]))
        eps[r] = [generalization_error(m, teacher) for m in means]
        adf[r] = _adf_on(X, y, teacher, checkpoints, float(sigma0), float(flip))
        report(progress, (r + 1) / runs, f"batch posterior, run {r + 1} of {runs}")
    se = lambda a: a.std(axis=0, ddof=1) / math.sqrt(runs)  # noqa: E731
    return BatchCurve(alpha=checkpoints / N, eps=eps.mean(axis=0), stderr=se(eps), N=N,
                      runs=runs, sweeps=sweeps, burn_in=burn_in, adf_eps=adf.mean(axis=0),
                      difference=(adf - eps).mean(axis=0), difference_se=se(adf - eps))


def hebb_weight(m, c: float, x, y: float, *, sigma0: float, flip: float = 0.0) -> float:
    """F of the spherical ADF update written as a weighted Hebb rule (eq 9.4 and the remark
    after it): m_new = m + F y x with F = c g(z) / s, z = y m.x / s, s^2 = sigma0^2 + c |x|^2,
    g = (1 - 2 kappa) phi(z) / (kappa + (1 - 2 kappa) Phi(z)) (g = phi / Phi for kappa = 0)."""
    m = check_array("m", m, ndim=1, max_abs=MAX_ABS)
    x = check_array("x", x, shape=m.shape, max_abs=MAX_ABS)
    c = check_positive("c", c)
    sigma0 = check_in_range("sigma0", sigma0, 0.0, MAX_NOISE)
    flip = _check_flip(flip)
    if check_real("y", y) not in (1.0, -1.0):
        raise ValueError(f"y must be +1 or -1, got {y!r}")
    s2 = sigma0**2 + c * float(x @ x)
    if s2 <= 0:
        raise ValueError("sigma0^2 + c |x|^2 must be positive (sigma0 = 0 needs x != 0)")
    s = math.sqrt(s2)
    return float(c * _g(y * float(m @ x) / s, flip) / s)


def _warmup() -> None:
    """Compile the kernels with the production dtypes."""
    X = np.ones((2, 2))
    yv = np.ones(2)
    _gibbs_run(X, yv, np.zeros(2), 2, 1.0, 0.0, 2, 1, 0)
    _curve_run(X, yv, np.array([1, 2], dtype=np.int64), 1.0, 0.1, 2, 1, 0)
