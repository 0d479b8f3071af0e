"""Numba kernels of the two base chains of Steinhardt & Liang's sequence model (Sec 4, eq 5):
the per-position emission law u_theta (exact sampling and its score), the random-scan Gibbs
kernel A_theta of the energy E(y) and its score, and `gibbs_path`, a run of the restarted
chain (eqs 1-2) on them. Part of ``dynamics.doeblin``; the model and its theta layout are in
``dynamics.doeblin.sequence``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from dynamics.doeblin.sequence import SequenceModel, _check_seq, _check_theta, _offsets
from dynamics.checks import as_generator, check_count

__all__ = ["gibbs_path"]


@njit(cache=True, nogil=True)
def _powers(V, L):
    pw = np.empty(L, dtype=np.int64)
    p = 1
    for i in range(L - 1, -1, -1):
        pw[i] = p
        p *= V
    return pw


@njit(cache=True, nogil=True)
def _code_of(y, pw):
    c = 0
    for i in range(y.size):
        c += y[i] * pw[i]
    return c


@njit(cache=True, nogil=True)
def _softmax_inplace(buf, V):
    m = buf[0]
    for c in range(1, V):
        if buf[c] > m:
            m = buf[c]
    s = 0.0
    for c in range(V):
        buf[c] = math.exp(buf[c] - m)
        s += buf[c]
    for c in range(V):
        buf[c] /= s


@njit(cache=True, nogil=True)
def _u_probs(theta, V, L, x, i, buf):
    """u_theta's conditional at position i: softmax_c(U_emit[x_i, c] + U_pos[i, c])."""
    up = V * V
    for c in range(V):
        buf[c] = theta[x[i] * V + c] + theta[up + i * V + c]
    _softmax_inplace(buf, V)


@njit(cache=True, nogil=True)
def _u_prob(theta, V, L, x, y, buf):
    p = 1.0
    for i in range(L):
        _u_probs(theta, V, L, x, i, buf)
        p *= buf[y[i]]
    return p


@njit(cache=True, nogil=True)
def _add_grad_log_u(theta, V, L, x, y, coef, g, buf):
    """g += coef * d log u_theta(y | x) / d theta (features minus their expectation)."""
    up = V * V
    for i in range(L):
        _u_probs(theta, V, L, x, i, buf)
        g[x[i] * V + y[i]] += coef
        g[up + i * V + y[i]] += coef
        for c in range(V):
            g[x[i] * V + c] -= coef * buf[c]
            g[up + i * V + c] -= coef * buf[c]


@njit(cache=True, nogil=True)
def _categorical(probs, V):
    """One draw from probs[:V] by inverting the CDF with one uniform (the last letter takes
    any rounding slack)."""
    r = np.random.random()
    acc = 0.0
    for c in range(V):
        acc += probs[c]
        if r < acc:
            return c
    return V - 1


@njit(cache=True, nogil=True)
def _sample_u(theta, V, L, x, y, buf):
    for i in range(L):
        _u_probs(theta, V, L, x, i, buf)
        y[i] = _categorical(buf, V)


@njit(cache=True, nogil=True)
def _cond_probs(theta, V, L, x, y, code, i, in_dict, pw, buf):
    """Gibbs conditional of A_theta at position i given y_{-i} (y[i] itself is ignored)."""
    ue, up, ae, ap, bg, dc, n = _offsets(V, L)
    base = code - y[i] * pw[i]
    wd = theta[dc]
    for c in range(V):
        s = theta[ae + x[i] * V + c] + theta[ap + i * V + c]
        if i > 0:
            s += theta[bg + y[i - 1] * V + c]
        if i < L - 1:
            s += theta[bg + c * V + y[i + 1]]
        s += wd * in_dict[base + c * pw[i]]
        buf[c] = s
    _softmax_inplace(buf, V)


@njit(cache=True, nogil=True)
def _add_grad_log_cond(theta, V, L, x, y, code, i, target, coef, g, in_dict, pw, buf):
    """g += coef * d log cond_i(target | y_{-i}) / d theta."""
    ue, up, ae, ap, bg, dc, n = _offsets(V, L)
    _cond_probs(theta, V, L, x, y, code, i, in_dict, pw, buf)
    base = code - y[i] * pw[i]
    for c in range(V):
        w = -coef * buf[c]
        if c == target:
            w += coef
        if w == 0.0:
            continue
        g[ae + x[i] * V + c] += w
        g[ap + i * V + c] += w
        if i > 0:
            g[bg + y[i - 1] * V + c] += w
        if i < L - 1:
            g[bg + c * V + y[i + 1]] += w
        g[dc] += w * in_dict[base + c * pw[i]]


@njit(cache=True, nogil=True)
def _gibbs_step(theta, V, L, x, y, code, in_dict, pw, buf):
    """One random-scan Gibbs step of A_theta in place; returns the new code.
    Random numbers: one for the position, one for the letter."""
    i = int(np.random.random() * L)
    if i >= L:
        i = L - 1
    _cond_probs(theta, V, L, x, y, code, i, in_dict, pw, buf)
    c = _categorical(buf, V)
    code += (c - y[i]) * pw[i]
    y[i] = c
    return code


@njit(cache=True, nogil=True)
def _differences(y_from, y_to, L):
    """How many positions differ, and the last one that does (-1 when none): A_theta moves
    one position at a time, so only 0 or 1 differences have positive probability."""
    diff = -1
    n_diff = 0
    for i in range(L):
        if y_from[i] != y_to[i]:
            n_diff += 1
            diff = i
    return n_diff, diff


@njit(cache=True, nogil=True)
def _a_prob(theta, V, L, x, y_from, code_from, y_to, in_dict, pw, buf):
    """A_theta(y_to | y_from): (1/L) sum_i [y_{-i} agree] cond_i(y_to_i | y_from_{-i})."""
    n_diff, diff = _differences(y_from, y_to, L)
    if n_diff >= 2:
        return 0.0
    if n_diff == 1:
        _cond_probs(theta, V, L, x, y_from, code_from, diff, in_dict, pw, buf)
        return buf[y_to[diff]] / L
    total = 0.0
    for i in range(L):
        _cond_probs(theta, V, L, x, y_from, code_from, i, in_dict, pw, buf)
        total += buf[y_from[i]]
    return total / L


@njit(cache=True, nogil=True)
def _add_grad_log_a(theta, V, L, x, y_from, code_from, y_to, coef, g, in_dict, pw, buf):
    """g += coef * d log A_theta(y_to | y_from) / d theta (A_theta(y_to | y_from) > 0 assumed).

    One differing position i: d log cond_i. None: A is the mixture (1/L) sum_i c_i with
    c_i = cond_i(y_i | y_{-i}), whose log-derivative is sum_i (c_i / sum_j c_j) d log c_i."""
    n_diff, diff = _differences(y_from, y_to, L)
    if n_diff >= 2:
        return
    if n_diff == 1:
        _add_grad_log_cond(theta, V, L, x, y_from, code_from, diff, y_to[diff], coef, g,
                           in_dict, pw, buf)
        return
    ci = np.empty(L)
    total = 0.0
    for i in range(L):
        _cond_probs(theta, V, L, x, y_from, code_from, i, in_dict, pw, buf)
        ci[i] = buf[y_from[i]]
        total += ci[i]
    for i in range(L):
        _add_grad_log_cond(theta, V, L, x, y_from, code_from, i, y_from[i],
                           coef * ci[i] / total, g, in_dict, pw, buf)


@njit(cache=True, nogil=True)
def _gibbs_path_kernel(theta, V, L, x, start, from_u, in_dict, seed, path):
    """path[0] = start (or a draw from u if from_u), then one Gibbs step per row."""
    np.random.seed(seed)
    pw = _powers(V, L)
    buf = np.empty(V)
    y = np.empty(L, dtype=np.int64)
    if from_u:
        _sample_u(theta, V, L, x, y, buf)
    else:
        y[:] = start
    code = _code_of(y, pw)
    path[0, :] = y
    for t in range(1, path.shape[0]):
        code = _gibbs_step(theta, V, L, x, y, code, in_dict, pw, buf)
        path[t, :] = y


def gibbs_path(theta, x, model: SequenceModel, *, steps: int, start=None,
               seed=None) -> np.ndarray:
    """A path of the Gibbs kernel A_theta(. | ., x) (eq 5), from ``start`` or from y_0 ~ u_theta.

    Returns
    -------
    ndarray of int64 (steps + 1, L)
        Row 0 is the initial sequence; each later row is one random-scan Gibbs step.
    """
    theta = _check_theta(theta, model)
    x = _check_seq("x", x, model)
    steps = check_count("steps", steps, low=0, high=10_000_000)
    if start is None:
        y0 = np.zeros(model.length, dtype=np.int64)
    else:
        y0 = _check_seq("start", start, model)
    seed = int(as_generator(seed).integers(0, 2**32))
    path = np.empty((steps + 1, model.length), dtype=np.int64)
    _gibbs_path_kernel(theta, model.n_letters, model.length, x, y0, start is None,
                       model.in_dictionary, seed, path)
    return path
