"""The Numba kernels of the word task (Steinhardt & Liang, Sec 5, Fig 4): one AdaGrad epoch for
each of its three learners (u_theta alone, by exact per-position gradients; the strong Doeblin
chain, by Algorithm 1's sampled gradients of log p_theta; the Gibbs chain A_theta, by MCMC
gradients of its energy), and the evaluation of a trained theta by the decoded test words.
Part of ``dynamics.doeblin``; the task and its training loop are in ``dynamics.doeblin.word_task``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from dynamics.doeblin.gibbs import _add_grad_log_u, _code_of, _gibbs_step, _powers, _sample_u
from dynamics.doeblin.learning import _algorithm1, _edit_weighted_gradient, _geometric
from dynamics.doeblin.sequence import _offsets, sequence_model

__all__ = []


@njit(cache=True, nogil=True)
def _adagrad(theta, G, g, eta, lo, hi):
    """AdaGrad ascent step on theta[lo:hi] (Duchi et al. 2010)."""
    for j in range(lo, hi):
        G[j] += g[j] * g[j]
        if G[j] > 0.0:
            theta[j] += eta * g[j] / math.sqrt(G[j])


@njit(cache=True, nogil=True)
def _train_u_epoch(theta, G, X, Y, order, V, L, eta):
    """One AdaGrad pass of the exact (convex) gradient of log u_theta(y | x) on the u block."""
    g = np.zeros(theta.size)
    buf = np.empty(V)
    n_u = V * V + L * V
    for n in order:
        g[:n_u] = 0.0
        _add_grad_log_u(theta, V, L, X[n], Y[n], 1.0, g, buf)
        _adagrad(theta, G, g, eta, 0, n_u)


@njit(cache=True, nogil=True)
def _train_doeblin_epoch(theta, G, X, Y, order, V, L, in_dict, eps, chains, eta, edit, seed):
    """One AdaGrad pass on all of theta with Algorithm 1's gradient (k = chains samples), or with
    its edit-distance-weighted variant (``edit``). Returns the mean log of Z / k."""
    np.random.seed(seed)
    pw = _powers(V, L)
    buf = np.empty(V)
    g = np.empty(theta.size)
    loglik = 0.0
    for n in order:
        if edit:
            lik = _edit_weighted_gradient(theta, V, L, X[n], Y[n], in_dict, pw, eps, chains, g,
                                          buf)
        else:
            lik = _algorithm1(theta, V, L, X[n], Y[n], in_dict, pw, eps, chains, g, buf)
        loglik += math.log(lik) if lik > 0.0 else -math.inf  # -inf: the caller stops the run
        _adagrad(theta, G, g, eta, 0, theta.size)
    return loglik / order.size


@njit(cache=True, nogil=True)
def _add_features_a(V, L, x, y, code, in_dict, coef, g):
    """g += coef * phi_A(x, y): the sufficient statistics of the Gibbs energy E."""
    ue, up, ae, ap, bg, dc, n = _offsets(V, L)
    for i in range(L):
        g[ae + x[i] * V + y[i]] += coef
        g[ap + i * V + y[i]] += coef
        if i > 0:
            g[bg + y[i - 1] * V + y[i]] += coef
    g[dc] += coef * in_dict[code]


@njit(cache=True, nogil=True)
def _train_gibbs_epoch(theta, G, X, Y, order, V, L, in_dict, init_u, T, chains, eta, seed):
    """One AdaGrad pass of the MCMC gradient phi_A(x, y) - E_samples phi_A(x, y^) on the A block.

    Chains start from u_theta (init_u) or from y = x (basic-Gibbs), run T Gibbs steps, and the
    second half of each chain (steps T//2 + 1 .. T) provides the samples (first half burn-in)."""
    np.random.seed(seed)
    pw = _powers(V, L)
    buf = np.empty(V)
    g = np.zeros(theta.size)
    y = np.empty(L, dtype=np.int64)
    n_u = V * V + L * V
    burn = T // 2
    n_kept = chains * (T - burn)
    for n in order:
        x = X[n]
        g[:] = 0.0
        _add_features_a(V, L, x, Y[n], _code_of(Y[n], pw), in_dict, 1.0, g)
        for _ in range(chains):
            if init_u:
                _sample_u(theta, V, L, x, y, buf)
            else:
                y[:] = x
            code = _code_of(y, pw)
            for t in range(1, T + 1):
                code = _gibbs_step(theta, V, L, x, y, code, in_dict, pw, buf)
                if t > burn:
                    _add_features_a(V, L, x, y, code, in_dict, -1.0 / n_kept, g)
        _adagrad(theta, G, g, eta, n_u, theta.size)


@njit(cache=True, nogil=True)
def _evaluate(theta, X, Y, V, L, in_dict, mode, T, eps, chains, seed):
    """Held-out (word, character) accuracy.

    mode 0 (Doeblin): each chain is one exact draw from pi~ (y_0 ~ u, Geometric(eps) Gibbs
    steps), scored at its end. mode 1 (u-Gibbs) / 2 (basic-Gibbs): chains from u / from y = x,
    T Gibbs steps, scored on the second half (steps T//2 + 1 .. T). mode 3: draws from u alone."""
    np.random.seed(seed)
    pw = _powers(V, L)
    buf = np.empty(V)
    y = np.empty(L, dtype=np.int64)
    burn = T // 2
    word = 0.0
    char = 0.0
    for n in range(X.shape[0]):
        x = X[n]
        wn = 0.0
        cn = 0.0
        scored = 0
        for _ in range(chains):
            if mode == 2:
                y[:] = x
            else:
                _sample_u(theta, V, L, x, y, buf)
            code = _code_of(y, pw)
            if mode == 0:
                steps = _geometric(eps)
            elif mode == 3:
                steps = 0
            else:
                steps = T
            for t in range(1, steps + 1):
                code = _gibbs_step(theta, V, L, x, y, code, in_dict, pw, buf)
                if (mode == 1 or mode == 2) and t > burn:
                    ok = 0
                    for i in range(L):
                        ok += y[i] == Y[n, i]
                    wn += ok == L
                    cn += ok / L
                    scored += 1
            if mode == 0 or mode == 3:
                ok = 0
                for i in range(L):
                    ok += y[i] == Y[n, i]
                wn += ok == L
                cn += ok / L
                scored += 1
        word += wn / scored
        char += cn / scored
    return word / X.shape[0], char / X.shape[0]


def _warmup() -> None:
    """Compile the training and evaluation kernels of the word task (production dtypes)."""
    model = sequence_model(2, 2, np.array([[0, 1]]))
    theta = np.zeros(model.n_params)
    X = np.array([[0, 1]], dtype=np.int64)
    order = np.zeros(1, dtype=np.int64)
    G = np.zeros(model.n_params)
    _train_u_epoch(theta, G, X, X, order, 2, 2, 0.1)
    for edit in (False, True):
        _train_doeblin_epoch(theta, G, X, X, order, 2, 2, model.in_dictionary, 0.5, 2, 0.1,
                             edit, 0)
    _train_gibbs_epoch(theta, G, X, X, order, 2, 2, model.in_dictionary, True, 2, 2, 0.1, 0)
    for mode in range(4):
        _evaluate(theta, X, X, 2, 2, model.in_dictionary, mode, 2, 0.5, 2, 0)
