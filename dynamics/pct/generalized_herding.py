"""Generalized herding licensed by the perceptron cycling theorem (Chen & Welling Sec 1.3.2,
Thm 1.7, eqs 1.38-1.40 and L462).

The model: n binary units x in {-1, +1}^n with features phi(x) = (x_i, x_i x_j for i < j), a
fully visible Boltzmann machine. Herding keeps w and steps

    s_t = argmax_x w . phi(x)       (exactly, or a local maximum: coordinate ascent from s_{t-1})
    w  <- w + phi_bar_t - phi(s_t)

where phi_bar_t is the mean feature of the data, or of a minibatch of d data cases. The PCT says
the weights stay bounded, and the moments match at O(1/tau), whenever every step satisfies
w . phi(s_t) >= w . phi_bar_t (recorded here as ``pct_held``). With minibatches the matched
target is the running mean of the minibatch means: drawn without replacement (shuffled epochs,
cut into consecutive batches) it reaches the full mean phi_bar at O(1/tau); drawn with
replacement only at O(1/sqrt tau) (L462).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..checks import (as_generator, check_array, check_budget, check_count, check_flag,
                      check_positive)
from ..exact import INT_LIMIT

__all__ = [
    "MAX_UNITS", "MAX_VISIBLE", "MAX_FEATURE_UNITS", "MAX_RUN", "PCTRun", "RBMHerding", "features",
    "all_states", "boltzmann_data", "pct_herding", "rate", "rbm_features", "rbm_joint_argmax",
    "herd_rbm",
]


#: Largest number of units (the exact argmax enumerates 2^n states).
MAX_UNITS = 14
#: Most visible units whose 2^n states are enumerated (``all_states``, the exact RBM argmax).
MAX_VISIBLE = 16
#: Most steps of a run and data cases drawn (each a row of several arrays in memory).
MAX_RUN = 10_000_000
#: Most units ``features`` and ``rbm_features`` take (n(n-1)/2 pair features).
MAX_FEATURE_UNITS = 1024


def _check_spins(name: str, value, *, high: int = MAX_FEATURE_UNITS) -> np.ndarray:
    """A row (n,) or rows (N, n) of -1 and +1 with 1 <= n <= high."""
    x = check_array(name, value)
    if x.ndim not in (1, 2) or not 1 <= x.shape[-1] <= high:
        raise ValueError(f"{name} must be a row (n,) or rows (N, n) of -1 and +1 with "
                         f"1 <= n <= {high}, got shape {x.shape}")
    if not np.all(np.abs(x) == 1):
        raise ValueError(f"{name} must hold -1 and +1 only")
    return x


def features(x) -> np.ndarray:
    """phi(x) = (x_1..x_n, x_i x_j for i < j) for rows of +-1 values: (N, n + n(n-1)/2)."""
    x = _check_spins("x", x)
    n = x.shape[-1]
    i, j = np.triu_indices(n, 1)
    return np.concatenate([x, x[..., i] * x[..., j]], axis=-1)


def all_states(n: int) -> np.ndarray:
    """Every state of n +-1 units (1 <= n <= MAX_VISIBLE), (2^n, n)."""
    n = check_count("n", n, low=1, high=MAX_VISIBLE)
    codes = np.arange(2**n)
    return (2 * ((codes[:, None] >> np.arange(n)) & 1) - 1).astype(np.int8)


@njit(cache=True, nogil=True)
def _local_search(x, b, W, sweeps):
    """Coordinate ascent on b . x + sum_{i<j} W_ij x_i x_j (W symmetric, zero diagonal) for at
    most ``sweeps`` sweeps; stops early at a local maximum."""
    n = x.shape[0]
    for _ in range(sweeps):
        changed = False
        for i in range(n):
            field = b[i]
            for j in range(n):
                field += W[i, j] * x[j]
            if field > 0.0 and x[i] < 0:
                x[i] = 1
                changed = True
            elif field < 0.0 and x[i] > 0:
                x[i] = -1
                changed = True
        if not changed:
            return


def boltzmann_data(n: int, cases: int, *, scale: float = 0.5, seed=None) -> np.ndarray:
    """``cases`` data cases (rows of -1/+1) of ``n`` units drawn exactly from a random fully
    visible Boltzmann machine P(x) ~ exp(w . phi(x)), w ~ N(0, scale^2) per feature: correlated
    data whose moments phi_bar herding then matches."""
    n = check_count("n", n, low=2, high=MAX_UNITS)
    cases = check_count("cases", cases, high=MAX_RUN)
    scale = check_positive("scale", scale, allow_zero=True)
    if scale > 100:
        raise ValueError(f"scale must be at most 100 (exp(w . phi) overflows beyond), got {scale}")
    rng = as_generator(seed)
    states = all_states(n)
    phi = features(states)
    logits = phi @ (scale * rng.standard_normal(phi.shape[1]))
    p = np.exp(logits - logits.max())
    return states[rng.choice(len(states), size=cases, p=p / p.sum())].astype(np.int8)


@dataclass(frozen=True)
class PCTRun:
    """A generalized herding run: ``states`` (steps, n); per step ``pct_held`` (w . phi(s_t) >=
    w . phi_bar_t), ``weight_norm`` ||w_t||, ``error_full`` = ||mean_{u<=t} phi(s_u) - phi_bar||
    (against the whole data) and ``error_batch`` (against the running mean of the minibatch
    targets)."""

    states: np.ndarray
    pct_held: np.ndarray
    weight_norm: np.ndarray
    error_full: np.ndarray
    error_batch: np.ndarray


def pct_herding(data, steps: int, *, batch_size: int | None = None, replacement: bool = False,
                search_sweeps: int | None = None, seed=None) -> PCTRun:
    """Herd a fully visible Boltzmann machine to the moments of ``data`` (D, n) of +-1.

    ``batch_size`` None uses every data case each step; else minibatches of d cases, with or
    without ``replacement``. ``search_sweeps`` None takes the exact argmax over all 2^n states;
    an integer runs that many coordinate-ascent sweeps from the previous state (a local,
    approximate argmax). ``seed`` draws the minibatches and the first state.

    Ties are decided exactly, the same on every machine: the targets are multiples of 1/d (d the
    batch size, D without batches) and the features +-1, so d w is kept as an integer vector
    and every score is an integer. The exact argmax takes the lowest state index (``all_states``
    order) among the maximisers; the local search keeps a unit whose field is exactly 0; the PCT
    test (``pct_held``) compares the integer scores, with no tolerance.
    """
    X = check_array("data", data, ndim=2)
    D, n = X.shape
    if not 2 <= n <= MAX_UNITS:
        raise ValueError(f"data must have between 2 and {MAX_UNITS} columns (units), got {n}")
    if D < 1 or not np.all(np.abs(X) == 1):
        raise ValueError("data must be a non-empty array of -1 and +1")
    steps = check_count("steps", steps, high=MAX_RUN)
    d = D if batch_size is None else check_count("batch_size", batch_size, low=1, high=D)
    replacement = check_flag("replacement", replacement)
    if steps * (d + (1 << n if search_sweeps is None else n * n)) > 10**10:
        raise ValueError(f"steps = {steps:,} is more than 1e10 operations with these data: "
                         "use fewer steps")
    if search_sweeps is not None:
        search_sweeps = check_count("search_sweeps", search_sweeps, low=1, high=10_000)
    rng = as_generator(seed)
    phi_data = features(X)
    phi_bar = phi_data.mean(axis=0)
    K = phi_bar.size
    iu, ju = np.triu_indices(n, 1)
    states_all = all_states(n) if search_sweeps is None else None
    phi_all = features(states_all) if states_all is not None else None
    # the minibatch stream
    if batch_size is None:
        batches = None
    elif replacement:
        batches = rng.integers(0, D, size=(steps, d))
    else:
        epochs = -(-steps * d // D)
        stream = np.concatenate([rng.permutation(D) for _ in range(epochs)])
        batches = stream[: steps * d].reshape(steps, d)
    # Exact arithmetic: u = d w is an integer vector (u <- u + sum_batch phi - d phi(s_t)), so
    # scores, local fields and the PCT test are integers and ties follow the rules above.
    phi_int = phi_data.astype(np.int64)
    phi_all_int = phi_all.astype(np.int64) if phi_all is not None else None
    big = K * 2 * steps * d * d >= INT_LIMIT   # |u . sum_batch phi| may leave int64

    def dot(a, b):
        return sum(map(operator.mul, a.tolist(), b.tolist())) if big else int(a @ b)

    u = np.zeros(K, np.int64)
    x = np.where(rng.random(n) < 0.5, -1, 1).astype(np.int8)
    out = np.empty((steps, n), np.int8)
    pct = np.empty(steps, bool)
    norm = np.empty(steps)
    sum_phi = np.zeros(K)
    sum_target = np.zeros(K)
    err_full = np.empty(steps)
    err_batch = np.empty(steps)
    W = np.zeros((n, n))
    full_sum = phi_int.sum(axis=0)
    for t in range(steps):
        bsum = full_sum if batches is None else phi_int[batches[t]].sum(axis=0)
        target = bsum / d
        if phi_all_int is not None:
            x = states_all[int(np.argmax(phi_all_int @ u))].copy()   # the first maximum
        else:
            W[iu, ju] = u[n:]      # integers below 2^53: the fields are exact in float64
            W[ju, iu] = u[n:]
            _local_search(x, u[:n].astype(np.float64), W, search_sweeps)
        f = features(x).astype(np.int64)
        pct[t] = d * dot(u, f) >= dot(u, bsum)       # w . phi(s_t) >= w . phi_bar_t, exactly
        u += bsum - d * f
        out[t] = x
        norm[t] = np.linalg.norm(u) / d
        sum_phi += f
        sum_target += target
        err_full[t] = np.linalg.norm(sum_phi / (t + 1) - phi_bar)
        err_batch[t] = np.linalg.norm((sum_phi - sum_target) / (t + 1))
    return PCTRun(states=out, pct_held=pct, weight_norm=norm, error_full=err_full,
                  error_batch=err_batch)


def rate(error: np.ndarray, *, start: int = 100) -> float:
    """Least-squares slope of log error against log tau over tau >= ``start`` (log-spaced
    points, so every decade weighs the same). ``error`` (T,) is finite and >= 0, and at least
    two of the points from ``start`` to T are positive."""
    e = check_array("error", error, ndim=1)
    if np.any(e < 0):
        raise ValueError("error must be >= 0")
    start = check_count("start", start, low=1, high=max(len(e) - 1, 1))
    if len(e) < 2:
        raise ValueError(f"error must have at least 2 entries, got {len(e)}")
    tau = np.unique(np.geomspace(start, len(e), 60).astype(int))
    keep = e[tau - 1] > 0
    if keep.sum() < 2:
        raise ValueError(f"error must have at least 2 positive entries from start = {start} on")
    return float(np.polyfit(np.log(tau[keep]), np.log(e[tau - 1][keep]), 1)[0])


# --- herding with hidden units (eqs 1.46-1.55) -------------------------------------------------


def rbm_features(v, z) -> np.ndarray:
    """phi(v, z) = (v_i z_j for all i, j; v_i; z_j) of an RBM, for rows of +-1 units (v and
    z one row each, or the same number N of rows)."""
    v = _check_spins("v", v)
    z = _check_spins("z", z)
    if v.shape[:-1] != z.shape[:-1]:
        raise ValueError(f"v and z must have the same number of rows, got shapes {v.shape} "
                         f"and {z.shape}")
    outer = (v[..., :, None] * z[..., None, :]).reshape(*v.shape[:-1], -1)
    return np.concatenate([outer, v, z], axis=-1)


def rbm_joint_argmax(W, b, c, visible_states=None) -> tuple[np.ndarray, np.ndarray]:
    """argmax over (v, z) of v^T W z + b^T v + c^T z: every visible state (2^n_visible) with
    its best hidden state z = sign(W^T v + c), whose score is b^T v + sum_j |W^T v + c|_j.
    Ties go to the first maximiser (lowest row of ``visible_states``, then z_j = +1 at a zero
    field); the scores are float sums, meant for weights with a continuous random part (as
    ``herd_rbm``'s), where exact ties have probability zero."""
    W = check_array("W", W, ndim=2)
    nv, nh = W.shape
    if nv < 1 or nh < 1:
        raise ValueError(f"W must have at least one visible and one hidden unit, got {W.shape}")
    b = check_array("b", b, shape=(nv,))
    c = check_array("c", c, shape=(nh,))
    if visible_states is None:
        if nv > MAX_VISIBLE:
            raise ValueError(f"W has {nv} visible units: at most {MAX_VISIBLE} are enumerated")
        states = all_states(nv).astype(float)
    else:
        states = _check_spins("visible_states", visible_states, high=nv)
        if states.ndim != 2 or states.shape[1] != nv:
            raise ValueError(f"visible_states must have shape (any, {nv}), got {states.shape}")
    a = states @ W + c
    k = int(np.argmax(states @ b + np.abs(a).sum(axis=1)))
    return states[k].copy(), np.where(a[k] >= 0, 1.0, -1.0)


@dataclass(frozen=True)
class RBMHerding:
    """Herding an RBM with hidden units: ``visible``/``hidden`` (steps, n) the joint samples
    s*_t; per step ``pct_held`` (eq 1.50: mean_i w . phi(x_i, z*_i) <= w . phi(s*_t) with w the
    weights before the step), and ``error`` = ||mean_t mean_i phi(x_i, z*_it) - mean_t
    phi(s*_t)|| (Prop 1.8: at most 2R / tau while the PCT holds)."""

    visible: np.ndarray
    hidden: np.ndarray
    pct_held: np.ndarray
    error: np.ndarray
    weight_norm: np.ndarray


def herd_rbm(data, hidden: int, steps: int, *, tractable: bool = False, search_sweeps: int = 10,
             init: float = 0.1, seed=None) -> RBMHerding:
    """Herding on a partially observed MRF, an RBM (eqs 1.47-1.49).

    The hidden units given visible ones decouple, so z*_i = sign(W^T x_i + c) is exact (eq 1.47).
    The joint maximum s* (eq 1.48) is exact by enumerating the 2^n_visible visible states (each
    with its best hidden state) when ``tractable`` is False. With ``tractable`` it is Prop 1.9's
    variant: coordinate ascent (alternately z given v and each v_i given the rest, at most
    ``search_sweeps`` sweeps) started from the data case with the highest w . phi(x_i, z*_i),
    which keeps the PCT by construction. Weights start N(0, init^2) (all zeros would tie every
    sign).
    """
    X = check_array("data", data, ndim=2)
    D, nv = X.shape
    nh = check_count("hidden", hidden, low=1, high=64)
    if D < 1 or not np.all(np.abs(X) == 1):
        raise ValueError("data must be a non-empty array of -1 and +1")
    tractable = check_flag("tractable", tractable)
    if not tractable and nv > MAX_VISIBLE:
        raise ValueError(f"the exact joint argmax enumerates 2^n_visible states: at most "
                         f"{MAX_VISIBLE} visible units in data, got {nv} (use tractable=True)")
    steps = check_count("steps", steps, high=MAX_RUN)
    search_sweeps = check_count("search_sweeps", search_sweeps, low=1, high=10_000)
    per_step = D * nv * nh + (search_sweeps * nv * nh if tractable else (1 << nv) * nh)
    check_budget("steps", steps * per_step, 1e10, "operations")
    init = check_positive("init", init)
    if init > 1e6:
        raise ValueError(f"init must be at most 1e6, got {init}")
    rng = as_generator(seed)
    W = init * rng.standard_normal((nv, nh))
    b = init * rng.standard_normal(nv)
    c = init * rng.standard_normal(nh)
    sign = lambda a: np.where(a >= 0, 1.0, -1.0)  # noqa: E731 - ties to +1
    visible_states = all_states(nv).astype(float) if not tractable else None
    vis, hid = np.empty((steps, nv), np.int8), np.empty((steps, nh), np.int8)
    pct = np.empty(steps, bool)
    norm = np.empty(steps)
    err = np.empty(steps)
    total = np.zeros(nv * nh + nv + nh)
    for t in range(steps):
        Zd = sign(X @ W + c)                                   # eq 1.47
        score_data = (X @ b) + np.sum((X @ W + c) * Zd, axis=1)
        if visible_states is not None:                         # eq 1.48, exact
            v, zs = rbm_joint_argmax(W, b, c, visible_states)
        else:                                                  # Prop 1.9
            k = int(np.argmax(score_data))
            v, zs = X[k].astype(float).copy(), Zd[k].copy()
            for _ in range(search_sweeps):
                changed = False
                zs = sign(v @ W + c)
                for i in range(nv):
                    field = b[i] + W[i] @ zs
                    new = 1.0 if field > 0 else (-1.0 if field < 0 else v[i])
                    if new != v[i]:
                        v[i] = new
                        changed = True
                zs_new = sign(v @ W + c)
                changed |= bool(np.any(zs_new != zs))
                zs = zs_new
                if not changed:
                    break
        score_s = v @ b + v @ W @ zs + c @ zs
        pct[t] = score_data.mean() <= score_s + 1e-9 * (1 + abs(score_s))
        positive = rbm_features(X, Zd).mean(axis=0)
        negative = rbm_features(v, zs)
        total += positive - negative
        step = positive - negative
        W += step[: nv * nh].reshape(nv, nh)
        b += step[nv * nh: nv * nh + nv]
        c += step[nv * nh + nv:]
        vis[t], hid[t] = v, zs
        norm[t] = np.sqrt((W**2).sum() + (b**2).sum() + (c**2).sum())
        err[t] = np.linalg.norm(total) / (t + 1)
    return RBMHerding(visible=vis, hidden=hid, pct_held=pct, error=err, weight_norm=norm)


def _warmup() -> None:
    x = np.ones(3, np.int8)
    _local_search(x, np.zeros(3), np.zeros((3, 3)), 1)
