"""Algorithm 1 of Steinhardt & Liang (Sec 4, with the O(T) grouping of Sec 4.2): unbiased
estimates of d log p_theta(y | x) / d theta for the stationary law p_theta of the restarted chain
(1 - eps) A_theta + eps u_theta 1^T (eqs 1, 4, 6), from a restart path of geometric length; its
edit-weighted variant; and `gradient_convergence`, the estimates against the closed form of
Prop 3.2 (``exact_gradient``) on a model small enough to enumerate.

Part of ``dynamics.doeblin``; see that package for the row-stochastic conventions. The model
family and its theta layout are in ``dynamics.doeblin.sequence``, the base chains' kernels in
``dynamics.doeblin.gibbs``; both are re-exported here, their home before the split.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from dynamics.checks import (
    as_generator,
    check_array,
    check_choice,
    check_count,
    describe,
)
from dynamics.doeblin.gibbs import (  # noqa: F401  (the kernels' old home, re-exported)
    _a_prob, _add_grad_log_a, _add_grad_log_u, _code_of, _gibbs_step, _powers, _sample_u,
    _u_prob, gibbs_path,
)
from dynamics.doeblin.sequence import (  # noqa: F401  (the model's old home, re-exported)
    MAX_CODES, MAX_ENUMERATED, MAX_TRANSITIONS, SequenceModel, _check_eps_learning, _check_seq,
    _check_theta, _offsets, exact_gradient, exact_log_likelihood, model_chains, sequence_model,
)

__all__ = [
    "SampledGradient",
    "sample_gradient",
    "GradientConvergence",
    "gradient_convergence",
]


# ============================================================== Algorithm 1


@njit(cache=True, nogil=True)
def _path_gradient(theta, V, L, x, y, in_dict, pw, eps, path, T, g, buf):
    """One outer iteration of Algorithm 1 for a given path y_0..y_{T-1} (rows of ``path``).

    Weights w_0 = eps u(y), w_t = eps A(y | y_{t-1}) (t = 1..T); the index-t term of g is
    w_t d log p(y_0, .., y_{t-1}, y_t = y), grouped as in Sec 4.2:
        g += w_0 dlog u(y) + (sum_{t>=1} w_t) dlog u(y_0)
             + sum_{s=1}^{T-1} (sum_{t>s} w_t) dlog A(y_s | y_{s-1})
             + sum_{t>=1} w_t dlog A(y | y_{t-1})
    in O(T) gradient evaluations. Returns sum_t w_t (this sample's share of Z)."""
    w0 = eps * _u_prob(theta, V, L, x, y, buf)
    _add_grad_log_u(theta, V, L, x, y, w0, g, buf)
    if T == 0:
        return w0
    w = np.empty(T + 1)
    codes = np.empty(T, dtype=np.int64)
    total = 0.0
    for t in range(1, T + 1):
        codes[t - 1] = _code_of(path[t - 1], pw)
        w[t] = eps * _a_prob(theta, V, L, x, path[t - 1], codes[t - 1], y, in_dict, pw, buf)
        total += w[t]
    if total > 0.0:
        _add_grad_log_u(theta, V, L, x, path[0], total, g, buf)
        suffix = 0.0
        for s in range(T - 1, 0, -1):
            suffix += w[s + 1]
            if suffix > 0.0:
                _add_grad_log_a(theta, V, L, x, path[s - 1], codes[s - 1], path[s], suffix, g,
                                in_dict, pw, buf)
        for t in range(1, T + 1):
            if w[t] > 0.0:
                _add_grad_log_a(theta, V, L, x, path[t - 1], codes[t - 1], y, w[t], g,
                                in_dict, pw, buf)
    return w0 + total


@njit(cache=True, nogil=True)
def _geometric(eps):
    """T ~ Geometric(eps) on {0, 1, ...}, P[T = j] = eps (1 - eps)^j, by inversion (one uniform)."""
    r = np.random.random()
    if eps >= 1.0:
        return 0
    return int(math.floor(math.log1p(-r) / math.log1p(-eps)))


@njit(cache=True, nogil=True)
def _algorithm1(theta, V, L, x, y, in_dict, pw, eps, k, g, buf):
    """Algorithm 1 (SampleGradient): k samples, g <- g / Z. Returns Z / k, an unbiased estimate
    of p_theta(y | x). Per sample the random numbers are: T, then (if T >= 1) L for y_0 ~ u,
    then 2 per Gibbs step for y_1..y_{T-1}."""
    g[:] = 0.0
    Z = 0.0
    path = np.empty((16, L), dtype=np.int64)
    for _ in range(k):
        T = _geometric(eps)
        if T >= 1:
            if path.shape[0] < T:
                path = np.empty((2 * T, L), dtype=np.int64)
            _sample_u(theta, V, L, x, path[0], buf)
            code = _code_of(path[0], pw)
            for t in range(1, T):
                path[t, :] = path[t - 1, :]
                code = _gibbs_step(theta, V, L, x, path[t], code, in_dict, pw, buf)
        Z += _path_gradient(theta, V, L, x, y, in_dict, pw, eps, path, T, g, buf)
    for j in range(g.size):
        g[j] /= Z
    return Z / k


@njit(cache=True, nogil=True)
def _edit_weighted_gradient(theta, V, L, x, y, in_dict, pw, eps, k, g, buf):
    """The Sec 5 variant of Algorithm 1: importance weight exp(-(D + 1)), D = Hamming distance
    between the sampled y_t and y, instead of A_theta(y | y_{t-1}) (the paper uses edit distance;
    for equal lengths we use Hamming). Per sample: T ~ Geometric(eps), y_0 ~ u, y_1..y_T by Gibbs;
    w_t = eps exp(-(D(y_t, y) + 1)); index t contributes w_t d log p(y_0..y_t), grouped in O(T):
        g += (sum_t w_t) dlog u(y_0) + sum_{s=1}^{T} (sum_{t>=s} w_t) dlog A(y_s | y_{s-1}).
    g / Z is the gradient of log E_{pi~}[exp(-(D(y^, y) + 1))], a smoothed log-likelihood.
    Random numbers per sample: T, L for y_0, 2 per Gibbs step. Returns Z / k."""
    g[:] = 0.0
    Z = 0.0
    path = np.empty((16, L), dtype=np.int64)
    codes = np.empty(16, dtype=np.int64)
    for _ in range(k):
        T = _geometric(eps)
        if path.shape[0] < T + 1:
            path = np.empty((2 * T + 2, L), dtype=np.int64)
            codes = np.empty(2 * T + 2, dtype=np.int64)
        _sample_u(theta, V, L, x, path[0], buf)
        codes[0] = _code_of(path[0], pw)
        for t in range(1, T + 1):
            path[t, :] = path[t - 1, :]
            codes[t] = _gibbs_step(theta, V, L, x, path[t], codes[t - 1], in_dict, pw, buf)
        w = np.empty(T + 1)
        total = 0.0
        for t in range(T + 1):
            dist = 0
            for i in range(L):
                dist += path[t, i] != y[i]
            w[t] = eps * math.exp(-(dist + 1.0))
            total += w[t]
        _add_grad_log_u(theta, V, L, x, path[0], total, g, buf)
        suffix = 0.0
        for s in range(T, 0, -1):
            suffix += w[s]
            _add_grad_log_a(theta, V, L, x, path[s - 1], codes[s - 1], path[s], suffix, g,
                            in_dict, pw, buf)
        Z += total
    for j in range(g.size):
        g[j] /= Z
    return Z / k


@njit(cache=True, nogil=True)
def _sample_gradient_kernel(theta, V, L, x, y, in_dict, eps, k, edit, seed, g):
    np.random.seed(seed)
    pw = _powers(V, L)
    buf = np.empty(V)
    if edit:
        return _edit_weighted_gradient(theta, V, L, x, y, in_dict, pw, eps, k, g, buf)
    return _algorithm1(theta, V, L, x, y, in_dict, pw, eps, k, g, buf)


@dataclass(frozen=True)
class SampledGradient:
    """Algorithm 1's estimate of d log p_theta(y | x) / d theta.

    Attributes
    ----------
    gradient : ndarray (n_params,)
        g / Z (asymptotically unbiased as samples -> infinity).
    likelihood : float
        Z / samples, an unbiased estimate of p_theta(y | x).
    samples : int
    eps : float
    """

    gradient: np.ndarray
    likelihood: float
    samples: int
    eps: float


def sample_gradient(theta, x, y, model: SequenceModel, *, eps: float, samples: int = 16,
                    weights: str = "exact", seed=None) -> SampledGradient:
    """Algorithm 1 (Sec 4): a stochastic gradient of log p_theta(y | x) in expected time O(k / eps).

    For each of k samples: T ~ Geometric(eps), y_0 ~ u_theta, y_1..y_{T-1} by A_theta (Gibbs);
    weights w_0 = eps u(y), w_t = eps A(y | y_{t-1}) (importance weights with q(t) = (1-eps)^t,
    Sec 4.1); g accumulates w_t times the gradient of log p of the path y_0..y_{t-1} completed by
    y_t = y (Lemma 4.2), grouped in O(T) as in Sec 4.2. Output g / Z. The paper's pseudocode
    shows only the first and last factor of each path; the full path term is the one Lemma 4.2
    and the O(T) grouping of Sec 4.2 refer to, and the one that is unbiased (tests check it
    against `exact_gradient`).

    Parameters
    ----------
    theta : array (n_params,)
    x, y : arrays (L,) of letters
    model : SequenceModel
    eps : float, keyword-only
        Restart probability in [1e-4, 1].
    samples : int, keyword-only
        k in [1, 1e7].
    weights : {"exact", "edit"}, keyword-only
        "exact": Algorithm 1 as above. "edit": the variant Sec 5 uses for the word task, with
        importance weight exp(-(D(y_t, y) + 1)) on the sampled y_t (D = Hamming distance)
        instead of A(y | y_{t-1}); it estimates the gradient of the smoothed objective
        log E_{y^ ~ pi~}[exp(-(D(y^, y) + 1))] rather than of log p(y | x), and then
        ``likelihood`` estimates that expectation.
    seed : int, Generator or None, keyword-only
    """
    weights = check_choice("weights", weights, ("exact", "edit"))
    theta = _check_theta(theta, model)
    x = _check_seq("x", x, model)
    y = _check_seq("y", y, model)
    eps = _check_eps_learning(eps)
    k = check_count("samples", samples, high=10_000_000)
    seed = int(as_generator(seed).integers(0, 2**32))
    g = np.empty(model.n_params)
    lik = _sample_gradient_kernel(theta, model.n_letters, model.length, x, y,
                                  model.in_dictionary, eps, k, weights == "edit", seed, g)
    return SampledGradient(gradient=g, likelihood=float(lik), samples=k, eps=eps)


@dataclass(frozen=True)
class GradientConvergence:
    """Algorithm 1 against the exact gradient as the number of samples k grows.

    Attributes
    ----------
    sample_sizes : ndarray of int64 (n_sizes,)
    errors : ndarray (n_sizes, repeats)
        ||g_k - g|| / ||g|| for independent runs.
    bias : ndarray (n_sizes,)
        ||mean over repeats of g_k - g|| / ||g||.
    likelihood_errors : ndarray (n_sizes, repeats)
        |Z/k - p| / p.
    exact : ndarray (n_params,)
        The exact gradient (finite differences of Prop 3.2's closed form).
    likelihood : float
        The exact p_theta(y | x).
    """

    sample_sizes: np.ndarray
    errors: np.ndarray
    bias: np.ndarray
    likelihood_errors: np.ndarray
    exact: np.ndarray
    likelihood: float


def gradient_convergence(theta, x, y, model: SequenceModel, *, eps: float,
                         sample_sizes=(10, 100, 1000, 10000), repeats: int = 8,
                         seed=None) -> GradientConvergence:
    """Relative error of Algorithm 1 versus the exact gradient, for growing sample sizes k."""
    theta = _check_theta(theta, model)
    x = _check_seq("x", x, model)
    y = _check_seq("y", y, model)
    eps = _check_eps_learning(eps)
    sizes = check_array("sample_sizes", sample_sizes, ndim=1, dtype=np.int64)
    if sizes.size == 0 or sizes.min() < 1 or sizes.max() > 1_000_000:
        raise ValueError(f"sample_sizes must be in [1, 1e6], got {describe(sizes)}")
    repeats = check_count("repeats", repeats, high=1000)
    if sizes.sum() * repeats / eps > 5e8:
        raise ValueError("sum(sample_sizes) * repeats / eps exceeds 5e8 Gibbs steps")
    rng = as_generator(seed)
    exact = exact_gradient(theta, x, y, model, eps=eps)
    p = math.exp(exact_log_likelihood(theta, x, y, model, eps=eps))
    norm = max(np.linalg.norm(exact), 1e-300)
    errors = np.empty((sizes.size, repeats))
    lik_err = np.empty((sizes.size, repeats))
    bias = np.empty(sizes.size)
    g = np.empty(model.n_params)
    for a, k in enumerate(sizes):
        acc = np.zeros(model.n_params)
        for r in range(repeats):
            lik = _sample_gradient_kernel(theta, model.n_letters, model.length, x, y,
                                          model.in_dictionary, eps, int(k), False,
                                          int(rng.integers(0, 2**32)), g)
            errors[a, r] = np.linalg.norm(g - exact) / norm
            lik_err[a, r] = abs(lik - p) / p
            acc += g
        bias[a] = np.linalg.norm(acc / repeats - exact) / norm
    return GradientConvergence(sample_sizes=sizes, errors=errors, bias=bias,
                               likelihood_errors=lik_err, exact=exact, likelihood=p)


def _warmup() -> None:
    """Compile every kernel of Algorithm 1 on a tiny model (production dtypes)."""
    model = sequence_model(2, 2, np.array([[0, 1]]))
    theta = np.zeros(model.n_params)
    x = np.array([0, 1], dtype=np.int64)
    y = np.array([1, 1], dtype=np.int64)
    g = np.empty(model.n_params)
    for edit in (False, True):
        _sample_gradient_kernel(theta, 2, 2, x, y, model.in_dictionary, 0.5, 2, edit, 0, g)
    gibbs_path(theta, x, model, steps=2, seed=0)
