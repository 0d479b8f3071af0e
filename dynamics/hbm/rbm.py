"""The RBM of the HBM study (``dynamics.hbm`` re-exports it), and the checks of distributions
over n binary variables that both use.

The RBM with m hidden units on n visible 0/1 units:
p(v) = exp(b.v) prod_j (1 + exp(c_j + W_j.v)) / Z, exact by enumerating the 2^n visible states.
Fitted by CD-k (the paper's method) or to convergence by L-BFGS on the exact likelihood.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize

from ..checks import as_generator, check_array, check_count, check_instance, check_positive

__all__ = ["MAX_N", "MAX_HIDDEN", "MAX_DATA", "RBM", "visible_states", "rbm_log_p", "fit_rbm_cd",
           "fit_rbm_exact", "rbm_parameters"]

#: Largest n for exact enumeration.
MAX_N = 12
#: Largest number of hidden units of an RBM.
MAX_HIDDEN = 200
#: Largest number of data CD-k trains on (each is a row in memory).
MAX_DATA = 10_000_000


def _n_of(size: int, name: str = "p") -> int:
    n = int(size).bit_length() - 1
    if size < 2 or 1 << n != size:
        raise ValueError(f"{name} must have 2^n entries (a distribution over n binary variables), "
                         f"got {size}")
    if n > MAX_N:
        raise ValueError(f"{name} has 2^{n} entries: n = {n} is too large for exact enumeration "
                         f"(at most {MAX_N})")
    return n


def _check_p(p, name: str = "p") -> tuple[np.ndarray, int]:
    p = check_array(name, p, ndim=1)
    n = _n_of(p.size, name)
    if np.any(p < 0) or abs(p.sum() - 1) > 1e-8:
        raise ValueError(f"{name} must be a probability vector (non-negative, summing to 1)")
    return p, n


def _check_counts(counts, *, integers: bool = False) -> tuple[np.ndarray, int]:
    c = check_array("counts", counts, ndim=1)
    n = _n_of(c.size, "counts")
    if np.any(c < 0) or c.sum() <= 0 or (integers and np.any(c != np.round(c))):
        kind = "integers" if integers else "numbers"
        raise ValueError(f"counts must be non-negative {kind} with a positive total "
                         "(no empty data)")
    return c, n


# --- the RBM ------------------------------------------------------------------------------------


def visible_states(n: int) -> np.ndarray:
    """Every 0/1 state of n variables (1 <= n <= MAX_N), row x = bitmask x (variable i at bit
    i)."""
    n = check_count("n", n, low=1, high=MAX_N)
    return ((np.arange(1 << n)[:, None] >> np.arange(n)) & 1).astype(float)


def rbm_log_p(W, b, c, V=None) -> np.ndarray:
    """log p(v) of the RBM for every visible state (or the rows of V): the hidden units summed
    in closed form, log Z by enumerating the visible states."""
    W = check_array("W", W, ndim=2)
    n, m = W.shape
    if not 1 <= n <= MAX_N or m > MAX_HIDDEN:
        raise ValueError(f"W must have shape (n, m) with 1 <= n <= {MAX_N} visible and at most "
                         f"{MAX_HIDDEN} hidden units, got {W.shape}")
    b = check_array("b", b, shape=(n,))
    c = check_array("c", c, shape=(m,))
    states = visible_states(n)
    free = states @ b + np.logaddexp(0.0, states @ W + c).sum(axis=1)
    log_z = np.logaddexp.reduce(free)
    if V is None:
        return free - log_z
    V = check_array("V", V, shape=(None, n))
    return V @ b + np.logaddexp(0.0, V @ W + c).sum(axis=1) - log_z


@dataclass(frozen=True)
class RBM:
    W: np.ndarray
    b: np.ndarray
    c: np.ndarray

    @property
    def p(self) -> np.ndarray:
        return np.exp(rbm_log_p(self.W, self.b, self.c))


def _sigmoid(a):
    return 0.5 * (1.0 + np.tanh(0.5 * a))


def fit_rbm_cd(counts, hidden: int, *, k: int = 1, epochs: int = 100, lr: float = 0.1,
               batch: int = 100, seed=None) -> RBM:
    """CD-k (the paper's method, Sec 'RBM') on the data of ``counts``; the weights start at
    N(0, 0.01^2), the biases at 0. ``hidden`` = 0 fits the visible biases alone."""
    c_, n = _check_counts(counts, integers=True)
    m = check_count("hidden", hidden, low=0, high=MAX_HIDDEN)
    k = check_count("k", k, low=1, high=1000)
    epochs = check_count("epochs", epochs, low=1, high=1_000_000)
    lr = check_positive("lr", lr)
    batch = check_count("batch", batch, low=1)
    if c_.sum() > MAX_DATA:
        raise ValueError(f"counts must total at most {MAX_DATA:,} data, got {c_.sum():,.0f}")
    if epochs * c_.sum() * (k + 1) * (n + 1) * (m + 1) > 1e11:
        raise ValueError(f"epochs = {epochs} over {int(c_.sum()):,} data is more than 1e11 "
                         "unit updates: use fewer epochs or less data")
    rng = as_generator(seed)
    data = np.repeat(visible_states(n), c_.astype(np.int64), axis=0)
    W = 0.01 * rng.standard_normal((n, m))
    b = np.zeros(n)
    c = np.zeros(m)
    for _ in range(epochs):
        order = rng.permutation(len(data))
        for start in range(0, len(data), batch):
            v0 = data[order[start:start + batch]]
            h0 = _sigmoid(v0 @ W + c)
            v = v0
            h = h0
            for _ in range(k):
                hs = (rng.random(h.shape) < h).astype(float)
                v = (rng.random(v.shape) < _sigmoid(hs @ W.T + b)).astype(float)
                h = _sigmoid(v @ W + c)
            size = len(v0)
            W += lr * (v0.T @ h0 - v.T @ h) / size
            b += lr * (v0 - v).mean(axis=0)
            c += lr * (h0 - h).mean(axis=0)
    if not all(np.all(np.isfinite(a)) for a in (W, b, c)):
        raise ValueError(f"the CD-{k} run diverged (NaN or infinite weights): use a smaller lr")
    return RBM(W, b, c)


def fit_rbm_exact(p_target, hidden: int, *, starts: int = 3, seed=None,
                  max_iter: int = 2000, start: RBM | None = None) -> RBM:
    """The RBM closest in KL(p_target, .) (maximum likelihood on p_target), by L-BFGS on the
    exact likelihood from ``starts`` random starts (the best kept; not convex), or from the
    RBM ``start`` alone."""
    p, n = _check_p(p_target, "p_target")
    m = check_count("hidden", hidden, low=0, high=MAX_HIDDEN)
    starts = check_count("starts", starts, low=1, high=100)
    max_iter = check_count("max_iter", max_iter, low=1, high=1_000_000)
    if start is not None:
        check_instance("start", start, RBM)
        if np.shape(start.W) != (n, m) or np.shape(start.b) != (n,) or np.shape(start.c) != (m,):
            raise ValueError(f"start must be an RBM with {n} visible and {m} hidden units, got W "
                             f"of shape {np.shape(start.W)}")
    rng = as_generator(seed)
    states = visible_states(n)

    def unpack(z):
        return z[: n * m].reshape(n, m), z[n * m: n * m + n], z[n * m + n:]

    def objective(z):
        W, b, c = unpack(z)
        act = states @ W + c
        free = states @ b + np.logaddexp(0.0, act).sum(axis=1)
        log_z = np.logaddexp.reduce(free)
        model = np.exp(free - log_z)
        value = -(p @ free - log_z)
        diff = p - model  # d/dfree of the log-likelihood
        sig = _sigmoid(act)
        gW = states.T @ (diff[:, None] * sig)
        gb = states.T @ diff
        gc = diff @ sig
        return value, -np.concatenate([gW.ravel(), gb, gc])

    best = None
    inits = ([np.concatenate([np.ravel(start.W), start.b, start.c]).astype(float)]
             if start is not None else
             [np.concatenate([0.1 * rng.standard_normal(n * m), np.zeros(n + m)])
              for _ in range(starts)])
    for z0 in inits:
        res = optimize.minimize(objective, z0, jac=True, method="L-BFGS-B",
                                options=dict(maxiter=max_iter, ftol=1e-14, gtol=1e-9))
        if best is None or res.fun < best.fun:
            best = res
    return RBM(*unpack(best.x))


def rbm_parameters(n: int, hidden: int) -> int:
    """The number of parameters of an RBM with n visible and ``hidden`` hidden units."""
    n = check_count("n", n, low=1, high=MAX_N)
    hidden = check_count("hidden", hidden, low=0, high=MAX_HIDDEN)
    return n * hidden + n + hidden
