"""Bias and variance of hierarchical models: higher-order Boltzmann machines (HBM) against RBMs
(Luo & Sugiyama; the log-linear model on the subset poset of Sugiyama et al.).

**The poset model** (eqs 4-6). A state of n binary variables is a bitmask x (variable i at bit
i); x <= s means x is a subset of s. A distribution p has the dual coordinates

    log p(x) = sum_{s <= x} theta(s)            theta(x) = sum_{s <= x} mu(s, x) log p(s)
    eta(x)   = sum_{s >= x} p(s)                p(x)     = sum_{s >= x} mu(x, s) eta(s)

(zeta and Moebius transforms over subsets and supersets, O(n 2^n) each, Numba).
theta(bottom) = theta(0) = log p(0) = -log Z = -psi(theta) is kept explicitly. eta(x) is the
probability that every variable of x is 1. The HBM of order k keeps theta on
B = {x : 1 <= |x| <= k} and sets it to 0 above: order 1 is independent variables, order 2 the
Boltzmann machine, order n every distribution.

**Fitting** maximises sum_s p_hat(s) log p_B(s) over theta_B, a concave problem with gradient
eta_hat - eta_B on B (L105-109: the text prints the gradient of the KL, whose sign is the
opposite; ascent on the likelihood is theta <- theta + lr (eta_hat - eta_B)). Two modes:

- ``"gradient"``: the paper's finite gradient ascent, ``iterations`` steps of lr (default 10^4
  steps of 0.1) from theta = 0, eta_B exact by enumeration. High-order theta barely move in that
  budget (their eta are about 2^-k), which acts as a regulariser.
- ``"converged"``: the maximum-likelihood fit (Newton's method with conjugate gradients on
  exact Fisher-vector products, O(n 2^n) each), with ``pseudo_count`` added to every
  outcome's count (default 0.5): without it the maximum-likelihood fit of a high order does not
  exist when the data leave outcomes at zero.

The paper's way to get eta_B at larger n, Gibbs sampling, is the fit mode ``"gibbs"`` (the
gradient steps with eta_B from persistent Gibbs chains) and ``gibbs_eta``; log Z by annealed
importance sampling (eq 8) is ``ais_log_z``: all to compare against the exact values.

**The RBM** with m hidden units on the same n visible 0/1 units:
p(v) = exp(b.v) prod_j (1 + exp(c_j + W_j.v)) / Z, exact by enumerating the 2^n visible states.
Fitted by CD-k (the paper's method; k = 1, minibatches of 100, lr 0.1, ``epochs`` passes) or to
convergence by L-BFGS on the exact likelihood (best of a few starts: it is not convex).

**The decomposition** (L183-190; computed in ``experiment``, judged in ``claims``):
E KL(P*, P_hat) = KL(P*, P*_B) [bias] + E KL(P*_B, P_hat) [variance] over datasets of size N
drawn from P*. For the HBM it holds exactly for every dataset and every P_hat in S(B)
(Pythagoras in the dually flat manifold: P*_B is the m-projection of P*, its eta equal P*'s on
B); for the RBM, P*_B is itself a fit and the residual is reported.

**What the paper leaves open, and what we chose:** n (the paper does not state it: default 8 on
the page, up to 12); CD-k's k (1), minibatch (100) and epochs (100); initialisation (theta = 0
for the HBM as the gradient form implies; RBM weights N(0, 0.01^2), biases 0); zeros of eta_hat
at small N (the pseudo-count above, and the gradient mode as the paper's own regulariser); P*
is drawn once per seed, U[0, 1] per outcome, normalised.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..checks import (as_generator, check_array, check_budget, check_choice, check_count,
                      check_in_range, check_positive, kl_divergence)
from .rbm import (  # noqa: F401  (the RBM's names, re-exported)
    MAX_N, RBM, _check_counts, _check_p, _n_of, fit_rbm_cd, fit_rbm_exact, rbm_log_p,
    rbm_parameters, visible_states,
)

__all__ = [
    "MAX_N", "PAPER_N", "PAPER_HIDDEN", "RBM", "AISEstimate", "eta_of", "p_of_eta", "theta_of",
    "p_of_theta", "popcount", "order_mask", "n_parameters", "kl", "random_distribution",
    "project", "empirical", "fit_hbm", "visible_states", "rbm_log_p", "fit_rbm_cd",
    "fit_rbm_exact", "rbm_parameters", "gibbs_eta", "ais_log_z", "exact_log_z",
]


#: The paper's sample sizes and hidden units.
PAPER_N = (10, 30, 50, 100, 300, 500, 1_000, 3_000, 5_000, 10_000, 30_000, 50_000)
PAPER_HIDDEN = (0, 5, 10, 15)


# --- transforms ---------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _transform(a, n, superset, sign):
    """In place over the subset lattice: a(x) <- sum of a over the subsets of x (``superset``
    False) or the supersets of x (True), with ``sign`` = 1; ``sign`` = -1 is the Moebius
    inverse of the same sum."""
    size = 1 << n
    for i in range(n):
        bit = 1 << i
        for x in range(size):
            if (x & bit) and not superset:
                a[x] += sign * a[x ^ bit]
            elif not (x & bit) and superset:
                a[x] += sign * a[x | bit]


@njit(cache=True, nogil=True)
def _subset_sum(a, n):
    """a(x) <- sum_{s <= x} a(s) (in place)."""
    _transform(a, n, False, 1.0)


@njit(cache=True, nogil=True)
def _subset_moebius(a, n):
    """Inverse of ``_subset_sum``."""
    _transform(a, n, False, -1.0)


@njit(cache=True, nogil=True)
def _superset_sum(a, n):
    """a(x) <- sum_{s >= x} a(s) (in place)."""
    _transform(a, n, True, 1.0)


@njit(cache=True, nogil=True)
def _superset_moebius(a, n):
    """Inverse of ``_superset_sum``."""
    _transform(a, n, True, -1.0)


def eta_of(p) -> np.ndarray:
    """eta(x) = sum_{s >= x} p(s) (eq 5)."""
    p, n = _check_p(p)
    a = p.copy()
    _superset_sum(a, n)
    return a


def p_of_eta(eta) -> np.ndarray:
    """p(x) = sum_{s >= x} mu(x, s) eta(s) (eq 5)."""
    a = check_array("eta", eta, ndim=1).copy()
    _superset_moebius(a, _n_of(a.size, "eta"))
    return a


def theta_of(p) -> np.ndarray:
    """theta(x) = sum_{s <= x} mu(s, x) log p(s) (eq 4); theta(0) = log p(0) = -log Z."""
    p, n = _check_p(p)
    if np.any(p <= 0):
        raise ValueError("theta needs every p(x) > 0")
    a = np.log(p)
    _subset_moebius(a, n)
    return a


def p_of_theta(theta) -> np.ndarray:
    """The distribution with log p(x) = sum_{0 < s <= x} theta(s) - log Z: theta(0) is
    replaced by -log Z (normalisation), the other entries are used as given."""
    a = check_array("theta", theta, ndim=1)
    return _normalised(a, _n_of(a.size, "theta"))[0]


def _normalised(theta, n):
    """(p, log Z) of log p(x) = sum_{0 < s <= x} theta(s) - log Z (theta(0) ignored)."""
    logp = theta.copy()
    logp[0] = 0.0
    _subset_sum(logp, n)
    top = logp.max()
    log_z = top + math.log(np.exp(logp - top).sum())
    return np.exp(logp - log_z), log_z


def popcount(n: int) -> np.ndarray:
    """|x| for every state x of n variables (1 <= n <= MAX_N)."""
    x = np.arange(1 << check_count("n", n, low=1, high=MAX_N))
    return ((x[:, None] >> np.arange(n)) & 1).sum(axis=1)


def order_mask(n: int, order: int) -> np.ndarray:
    """B of the order-``order`` HBM (1 <= order <= n): 1 <= |x| <= order."""
    n = check_count("n", n, low=1, high=MAX_N)
    order = check_count("order", order, low=1, high=n)
    size = popcount(n)
    return (size >= 1) & (size <= order)


def n_parameters(n: int, order: int) -> int:
    """|B| = sum_{j=1..order} C(n, j), for 1 <= order <= n <= MAX_N."""
    n = check_count("n", n, low=1, high=MAX_N)
    order = check_count("order", order, low=1, high=n)
    return int(sum(math.comb(n, j) for j in range(1, order + 1)))


def kl(p, q) -> float:
    """KL(p || q) in nats (0 log 0 = 0) of two distributions over the same 2^n outcomes; inf
    where q is 0 and p is not."""
    p, n = _check_p(p, "p")
    q, m = _check_p(q, "q")
    if m != n:
        raise ValueError(f"p and q must have the same size, got {p.size} and {q.size}")
    return kl_divergence(p, q)


def random_distribution(n: int, *, seed=None) -> np.ndarray:
    """The paper's P*: U[0, 1] for each of the 2^n outcomes, normalised."""
    n = check_count("n", n, low=1, high=MAX_N)
    u = as_generator(seed).random(1 << n)
    return u / u.sum()


# --- fitting the HBM ----------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _gradient_ascent(theta, eta_hat, mask, n, lr, iterations):
    """theta <- theta + lr (eta_hat - eta_B) on B, exact eta_B, ``iterations`` times."""
    size = 1 << n
    logp = np.empty(size)
    p = np.empty(size)
    for _ in range(iterations):
        for x in range(size):
            logp[x] = theta[x] if mask[x] else 0.0
        logp[0] = 0.0
        _subset_sum(logp, n)
        top = logp.max()
        total = 0.0
        for x in range(size):
            p[x] = math.exp(logp[x] - top)
            total += p[x]
        for x in range(size):
            p[x] /= total
        _superset_sum(p, n)
        for x in range(size):
            if mask[x]:
                theta[x] += lr * (eta_hat[x] - p[x])
    return theta


@njit(cache=True, nogil=True)
def _gradient_ascent_gibbs(theta, eta_hat, mask, n, lr, iterations, chains, seed):
    """The paper's way at scale: theta <- theta + lr (eta_hat - eta_B) with eta_B estimated
    each step from ``chains`` persistent single-site Gibbs chains (one sweep per step)."""
    np.random.seed(seed)
    size = 1 << n
    states = np.zeros(chains, dtype=np.int64)
    counts = np.empty(size)
    full = np.zeros(size)
    for _ in range(iterations):
        for x in range(size):
            full[x] = theta[x] if mask[x] else 0.0
        for c in range(chains):
            x = states[c]
            for i in range(n):
                d = _energy_delta(full, x, i, n)
                if np.random.random() < 1.0 / (1.0 + math.exp(-d)):
                    x |= 1 << i
                else:
                    x &= ~(1 << i)
            states[c] = x
        counts[:] = 0.0
        for c in range(chains):
            counts[states[c]] += 1.0 / chains
        _superset_sum(counts, n)
        for x in range(size):
            if mask[x]:
                theta[x] += lr * (eta_hat[x] - counts[x])
    return theta


def _model(theta_b, mask, n):
    theta = np.zeros(1 << n)
    theta[mask] = theta_b
    return _normalised(theta, n)[0]


def _newton(theta_b, target, mask, n, *, tol=1e-13, max_newton=60):
    """Maximise theta_B . target - psi(theta) by Newton's method, the Newton systems solved by
    conjugate gradients with exact Fisher-vector products: F v = E[phi (phi . v)] - eta (eta . v)
    where phi_B(x) . v = sum_{s in B, s <= x} v(s) is a subset sum and E[phi(s) g] a superset
    sum, O(n 2^n) each. Backtracking keeps every step an ascent step."""
    from scipy.sparse.linalg import LinearOperator, cg

    size = 1 << n
    k = theta_b.size

    def model(tb):
        full = np.zeros(size)
        full[mask] = tb
        return _normalised(full, n)

    def value(tb, log_z):
        return float(tb @ target - log_z)

    p, log_z = model(theta_b)
    f = value(theta_b, log_z)
    for _ in range(max_newton):
        eta_full = p.copy()
        _superset_sum(eta_full, n)
        eta = eta_full[mask]
        grad = target - eta
        if np.max(np.abs(grad)) < tol:
            break

        def fisher(v, p=p, eta=eta):
            full = np.zeros(size)
            full[mask] = v
            _subset_sum(full, n)
            g = p * full
            _superset_sum(g, n)
            return g[mask] - eta * (eta @ v)

        op = LinearOperator((k, k), matvec=fisher, dtype=float)
        step, _ = cg(op, grad, rtol=1e-10, atol=0.0, maxiter=10 * k)
        t = 1.0
        while t > 1e-12:
            trial = theta_b + t * step
            p_new, log_z_new = model(trial)
            f_new = value(trial, log_z_new)
            if f_new >= f - 1e-15 * abs(f):
                break
            t *= 0.5
        theta_b, p, log_z, f = trial, p_new, log_z_new, f_new
    return theta_b


def _project_eta(eta_target, mask, n, *, tol=1e-13, start=None):
    """The distribution of S(B) whose eta equals ``eta_target`` on B (maximum likelihood),
    Newton's method from theta_B = 0 or from the distribution ``start`` (in S(B))."""
    k = int(mask.sum())
    if k == 0:
        return np.full(1 << n, 1.0 / (1 << n))
    if k == (1 << n) - 1:
        return p_of_eta(eta_target)  # the full model: every distribution (if eta is valid)
    theta0 = np.zeros(k) if start is None else theta_of(start)[mask]
    theta_b = _newton(theta0, eta_target[mask], mask, n, tol=tol)
    return _model(theta_b, mask, n)


def project(p, order: int) -> np.ndarray:
    """P*_B: the distribution of order <= ``order`` whose eta matches ``p`` on B (the
    m-projection, which minimises KL(p, .) over S(B))."""
    p, n = _check_p(p)
    mask = order_mask(n, order)
    return _project_eta(eta_of(p), mask, n)


def empirical(counts) -> np.ndarray:
    """The empirical distribution of ``counts`` (2^n,)."""
    c, _ = _check_counts(counts)
    return c / c.sum()


def fit_hbm(counts, order: int, *, mode: str = "converged", pseudo_count: float = 0.5,
            iterations: int = 10_000, lr: float = 0.1, start=None, chains: int = 100,
            seed=None) -> np.ndarray:
    """The HBM of order ``order`` fitted to ``counts`` (2^n,): ``"converged"`` (maximum
    likelihood on the counts plus ``pseudo_count`` per outcome; ``start``, a distribution of the
    model, only speeds Newton's method up: the maximum is unique) or ``"gradient"`` (the
    paper's ``iterations`` steps of ``lr`` from theta = 0 on the raw counts, eta_B exact) or
    ``"gibbs"`` (the same steps with eta_B estimated from ``chains`` persistent Gibbs chains,
    the paper's approximation, to compare with the exact gradient). Returns the fitted
    distribution (2^n,)."""
    c, n = _check_counts(counts)
    mask = order_mask(n, order)
    mode = check_choice("mode", mode, ("converged", "gradient", "gibbs"))
    pc = check_in_range("pseudo_count", pseudo_count, 0.0, 1e12)
    iterations = check_count("iterations", iterations, low=0, high=10_000_000)
    lr = check_positive("lr", lr)
    chains = check_count("chains", chains, low=1, high=1_000_000)
    rng = as_generator(seed)
    if mode != "converged":
        per = (1 << n) * n if mode == "gradient" else chains * n * n
        check_budget("iterations", iterations * per, 1e10, "operations")
    if start is not None and _check_p(start, "start")[1] != n:
        raise ValueError(f"start must be a distribution over {c.size} outcomes like counts")
    if mode == "converged":
        smoothed = (c + pc) / (c.sum() + pc * c.size)
        if pc == 0 and order == n and np.any(c == 0):
            raise ValueError("the order-n fit of data with empty outcomes does not exist: "
                             "use a pseudo_count > 0 or mode='gradient'")
        return _project_eta(eta_of(smoothed), mask, n, start=start)
    if mode == "gradient":
        eta_hat = eta_of(c / c.sum())
        theta = _gradient_ascent(np.zeros(1 << n), eta_hat, mask, n, float(lr), iterations)
        return _model(theta[mask], mask, n)
    eta_hat = eta_of(c / c.sum())  # mode "gibbs"
    theta = _gradient_ascent_gibbs(np.zeros(1 << n), eta_hat, mask, n, float(lr), iterations,
                                   chains, int(rng.integers(0, 2**31 - 1)))
    return _model(theta[mask], mask, n)


# --- the paper's approximations: Gibbs for eta, AIS for log Z ------------------------------------


@njit(cache=True, nogil=True)
def _energy_delta(theta, x, i, n):
    """log p(x with bit i set) - log p(x with bit i clear): the sum of theta(s) over the subsets
    s of x | bit that contain bit i."""
    bit = 1 << i
    rest = x & ~bit
    total = 0.0
    s = rest
    while True:
        total += theta[s | bit]
        if s == 0:
            break
        s = (s - 1) & rest
    return total


@njit(cache=True, nogil=True)
def _gibbs(theta, n, sweeps, burn, beta, seed):
    np.random.seed(seed)
    x = 0
    counts = np.zeros(1 << n)
    for t in range(burn + sweeps):
        for i in range(n):
            d = beta * _energy_delta(theta, x, i, n)
            if np.random.random() < 1.0 / (1.0 + math.exp(-d)):
                x |= 1 << i
            else:
                x &= ~(1 << i)
        if t >= burn:
            counts[x] += 1
    return counts


def gibbs_eta(theta, *, sweeps: int = 20_000, burn_in: int = 500, seed=None) -> np.ndarray:
    """eta estimated from single-site Gibbs sampling of the model exp(sum_{0<s<=x} theta(s))
    (the paper's way, Sec 'Gibbs sampling for eta_B')."""
    theta = check_array("theta", theta, ndim=1)
    n = _n_of(theta.size, "theta")
    sweeps = check_count("sweeps", sweeps)
    burn_in = check_count("burn_in", burn_in, low=0)
    check_budget("sweeps and burn_in", (sweeps + burn_in) * n << (n - 1), 1e10, "operations")
    seed = int(as_generator(seed).integers(0, 2**31 - 1))
    counts = _gibbs(theta, n, sweeps, burn_in, 1.0, seed)
    a = counts / counts.sum()
    _superset_sum(a, n)
    return a


@njit(cache=True, nogil=True)
def _ais(theta, n, betas, runs, seed):
    np.random.seed(seed)
    logw = np.zeros(runs)
    for r in range(runs):
        x = 0
        for i in range(n):  # exact sample from the uniform base (beta = 0)
            if np.random.random() < 0.5:
                x |= 1 << i
        for k in range(1, betas.size):
            # log f_k(x) - log f_{k-1}(x) = (beta_k - beta_{k-1}) E(x), E(x) = log of the
            # unnormalised model
            e = 0.0
            s = x
            while True:
                if s != 0:
                    e += theta[s]
                if s == 0:
                    break
                s = (s - 1) & x
            logw[r] += (betas[k] - betas[k - 1]) * e
            for i in range(n):
                d = betas[k] * _energy_delta(theta, x, i, n)
                if np.random.random() < 1.0 / (1.0 + math.exp(-d)):
                    x |= 1 << i
                else:
                    x &= ~(1 << i)
    return logw + n * math.log(2.0)


@dataclass(frozen=True)
class AISEstimate:
    """log Z by annealed importance sampling (eq 8): the estimate, its standard error (delta
    method over the runs' weights) and the runs' log weights."""

    log_z: float
    stderr: float
    log_weights: np.ndarray


def ais_log_z(theta, *, steps: int = 1000, runs: int = 200, seed=None) -> AISEstimate:
    """log Z of exp(sum_{0<s<=x} theta(s)) from the uniform distribution (Z_0 = 2^n) through
    geometric intermediates f_0^(1-beta) f^beta with single-site Gibbs transitions."""
    theta = check_array("theta", theta, ndim=1)
    n = _n_of(theta.size, "theta")
    steps = check_count("steps", steps, low=1)
    runs = check_count("runs", runs, low=2)
    check_budget("steps and runs", steps * runs * n << (n - 1), 1e10, "operations")
    seed = int(as_generator(seed).integers(0, 2**31 - 1))
    logw = _ais(theta, n, np.linspace(0.0, 1.0, steps + 1), runs, seed)
    top = logw.max()
    w = np.exp(logw - top)
    mean = w.mean()
    stderr = float(w.std(ddof=1) / math.sqrt(runs) / mean)
    return AISEstimate(log_z=float(top + math.log(mean)), stderr=stderr, log_weights=logw)


def exact_log_z(theta) -> float:
    """log sum_x exp(sum_{0<s<=x} theta(s)) by enumeration."""
    a = check_array("theta", theta, ndim=1)
    return float(_normalised(a, _n_of(a.size, "theta"))[1])


# --- the decomposition and sweeps ---------------------------------------------------------------


def _warmup() -> None:
    """Compile the kernels with the production dtypes."""
    a = np.ones(8)
    _subset_sum(a, 3)
    _subset_moebius(a, 3)
    _superset_sum(a, 3)
    _superset_moebius(a, 3)
    mask = np.ones(8, dtype=np.bool_)
    mask[0] = False
    _gradient_ascent(np.zeros(8), np.full(8, 0.125), mask, 3, 0.1, 2)
    _gradient_ascent_gibbs(np.zeros(8), np.full(8, 0.125), mask, 3, 0.1, 2, 2, 0)
    _gibbs(np.zeros(8), 3, 2, 1, 1.0, 0)
    _ais(np.zeros(8), 3, np.linspace(0.0, 1.0, 3), 2, 0)
