"""Learning strong Doeblin chains (Steinhardt & Liang, Sec 4, Algorithm 1); the word task (Sec 5).

Part of ``dynamics.doeblin``; see that package for the row-stochastic conventions.

The model family
----------------
Outputs are sequences y = (y_0, ..., y_{L-1}) over V letters, inputs x the same shape. Both base
chains are conditional exponential families (eq 5) over one flat parameter vector theta, with
disjoint coordinates (Assumption 4.3):

- u_theta(y | x) = prod_i softmax_c(U_emit[x_i, c] + U_pos[i, c])[y_i]: per-position features
  only, so exact sampling and log-partition functions are per position.
- A_theta(y | y', x) is the random-scan Gibbs kernel of the energy
  E(y) = sum_i (A_emit[x_i, y_i] + A_pos[i, y_i]) + sum_{i>0} B[y_{i-1}, y_i] + w_dict [y in D]
  (bigrams and an in-dictionary indicator, the global feature): pick i uniformly, resample
  y_i from exp(E) restricted to y_{-i} = y'_{-i}. As a kernel over whole sequences,
  A(y | y') = (1/L) sum_i [y_{-i} = y'_{-i}] cond_i(y_i | y'_{-i}); it is zero when y and y'
  differ in two or more places.

Layout of theta: [U_emit (V*V), U_pos (L*V), A_emit (V*V), A_pos (L*V), B (V*V), w_dict (1)].
A sequence's code is sum_i y_i V^(L-1-i); ``in_dictionary[code]`` is 1 for dictionary words.

The model p_theta(y | x) is the stationary law of (1 - eps) A_theta + eps u_theta 1^T (eqs 1, 4, 6);
`sample_gradient` estimates d log p_theta(y | x) / d theta by Algorithm 1 with the O(T) grouping of
Sec 4.2, and `exact_gradient` differentiates the closed form of Prop 3.2 by finite differences on
models small enough to enumerate.
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
    check_in_range,
    check_instance,
    check_positive,
    describe,
)

__all__ = [
    "MAX_CODES",
    "MAX_ENUMERATED",
    "MAX_TRANSITIONS",
    "SequenceModel",
    "sequence_model",
    "model_chains",
    "exact_log_likelihood",
    "exact_gradient",
    "gibbs_path",
    "SampledGradient",
    "sample_gradient",
    "GradientConvergence",
    "gradient_convergence",
]


#: Cap on V**L (the size of the in-dictionary table).
MAX_CODES = 1 << 20
#: Cap on V**L for the exact (enumerated) likelihood: dense N x N solves.
MAX_ENUMERATED = 512
#: Cap on the mean number of transitions 1 / eps of a learned chain.
MAX_TRANSITIONS = 10_000



# ============================================================== model


@dataclass(frozen=True)
class SequenceModel:
    """Feature layout of the sequence model (see the module docstring).

    Attributes
    ----------
    n_letters : int
        V, the alphabet size of x and y.
    length : int
        L, the sequence length.
    in_dictionary : ndarray of int64, shape (V**L,)
        1 for the codes of dictionary words.
    n_params : int
        Length of theta: 3 V^2 + 2 L V + 1.
    u_params : int
        theta[:u_params] controls u_theta; the rest controls A_theta (Assumption 4.3).
    """

    n_letters: int
    length: int
    in_dictionary: np.ndarray
    n_params: int
    u_params: int

    @property
    def slices(self) -> dict[str, slice]:
        """Named blocks of theta: u_emit, u_pos, a_emit, a_pos, bigram, dictionary."""
        V, L = self.n_letters, self.length
        ue, up, ae, ap, bg, dc, n = _offsets(V, L)
        return {"u_emit": slice(ue, up), "u_pos": slice(up, ae), "a_emit": slice(ae, ap),
                "a_pos": slice(ap, bg), "bigram": slice(bg, dc), "dictionary": slice(dc, n)}


@njit(cache=True, nogil=True)
def _offsets(V, L):
    ue = 0
    up = ue + V * V
    ae = up + L * V
    ap = ae + V * V
    bg = ap + L * V
    dc = bg + V * V
    return ue, up, ae, ap, bg, dc, dc + 1


def sequence_model(n_letters: int, length: int, dictionary=()) -> SequenceModel:
    """Build the model for sequences of ``length`` letters out of ``n_letters``.

    Parameters
    ----------
    n_letters : int
        V in [2, 64].
    length : int
        L in [1, 16], with V**L <= 2**20.
    dictionary : array (n_words, L) of ints in [0, V), optional
        The words whose in-dictionary feature is 1.
    """
    V = check_count("n_letters", n_letters, low=2, high=64)
    L = check_count("length", length, low=1, high=16)
    if V**L > MAX_CODES:
        raise ValueError(f"n_letters**length = {V**L} exceeds {MAX_CODES}")
    table = np.zeros(V**L, dtype=np.int64)
    if not (isinstance(dictionary, (tuple, list)) and len(dictionary) == 0):
        words = check_array("dictionary", dictionary, ndim=2, dtype=np.int64)
        if words.shape[1] != L:
            raise ValueError(f"dictionary must have {L} columns, got shape {words.shape}")
        if words.size and (words.min() < 0 or words.max() >= V):
            raise ValueError(f"dictionary letters must lie in [0, {V}), got {describe(words)}")
        table[_codes(words, V)] = 1
    n = _offsets(V, L)[-1]
    return SequenceModel(n_letters=V, length=L, in_dictionary=table, n_params=n,
                         u_params=V * V + L * V)


def _codes(Y: np.ndarray, V: int) -> np.ndarray:
    L = Y.shape[-1]
    return (Y * V ** np.arange(L - 1, -1, -1, dtype=np.int64)).sum(axis=-1)


def _check_theta(theta, model: SequenceModel) -> np.ndarray:
    model = check_instance("model", model, SequenceModel)
    return check_array("theta", theta, shape=(model.n_params,))


def _check_seq(name: str, value, model: SequenceModel, ndim: int = 1) -> np.ndarray:
    model = check_instance("model", model, SequenceModel)
    arr = check_array(name, value, ndim=ndim, dtype=np.int64)
    if arr.shape[-1] != model.length:
        raise ValueError(
            f"{name} must have length {model.length} in its last axis, got shape {arr.shape}"
        )
    if arr.size and (arr.min() < 0 or arr.max() >= model.n_letters):
        raise ValueError(f"{name} letters must lie in [0, {model.n_letters}), got {describe(arr)}")
    return arr


def _check_eps_learning(eps) -> float:
    eps = check_in_range("eps", eps, 0.0, 1.0, low_open=True)
    if 1.0 / eps > MAX_TRANSITIONS:
        raise ValueError(f"eps must be >= 1/{MAX_TRANSITIONS}, got {eps!r}")
    return eps


# ============================================================== enumerated chains (references)


def model_chains(theta, x, model: SequenceModel) -> tuple[np.ndarray, np.ndarray]:
    """u_theta(. | x) and A_theta(. | ., x) as a law and a row-stochastic matrix over all codes.

    Built from the global energy E(y) (module docstring), independently of the local-feature
    kernels, so it doubles as their reference. Only for V**L <= 512.

    Returns
    -------
    u : ndarray (N,)
    A : ndarray (N, N), ``A[code(y'), code(y)] = A_theta(y | y', x)``.
    """
    theta = _check_theta(theta, model)
    x = _check_seq("x", x, model)
    V, L = model.n_letters, model.length
    N = V**L
    if N > MAX_ENUMERATED:
        raise ValueError(f"model has {N} sequences, more than {MAX_ENUMERATED} to enumerate")
    s = model.slices
    Ue = theta[s["u_emit"]].reshape(V, V)
    Up = theta[s["u_pos"]].reshape(L, V)
    Ae = theta[s["a_emit"]].reshape(V, V)
    Ap = theta[s["a_pos"]].reshape(L, V)
    B = theta[s["bigram"]].reshape(V, V)
    wd = theta[s["dictionary"]][0]
    Y = np.stack(np.unravel_index(np.arange(N), (V,) * L), axis=1)  # row = y of code
    ulog = Ue[x][None, :, :] + Up[None, :, :]  # (1, L, V)
    ulog = ulog - np.logaddexp.reduce(ulog, axis=2, keepdims=True)
    u = np.exp(ulog[0][np.arange(L)[None, :], Y].sum(axis=1))
    E = (Ae[x[None, :], Y] + Ap[np.arange(L)[None, :], Y]).sum(axis=1)
    if L > 1:
        E = E + B[Y[:, :-1], Y[:, 1:]].sum(axis=1)
    E = E + wd * model.in_dictionary
    A = np.zeros((N, N))
    codes = np.arange(N)
    for i in range(L):
        pw = V ** (L - 1 - i)
        base = codes - Y[:, i] * pw
        cand = base[:, None] + np.arange(V)[None, :] * pw  # (N, V)
        logits = E[cand]
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        probs /= probs.sum(axis=1, keepdims=True)
        np.add.at(A, (np.repeat(codes, V), cand.ravel()), probs.ravel() / L)
    return u / u.sum(), A


def exact_log_likelihood(theta, x, y, model: SequenceModel, *, eps: float) -> float:
    """log p_theta(y | x) with p the stationary law of (1 - eps) A_theta + eps u_theta 1^T.

    By Prop 3.2 / eq 6: p = eps u^T (I - (1 - eps) A)^{-1}, one linear solve over the V**L
    enumerated sequences (row-stochastic A, see `model_chains`).
    """
    check_instance("model", model, SequenceModel)
    eps = _check_eps_learning(eps)
    y = _check_seq("y", y, model)
    u, A = model_chains(theta, x, model)
    return _exact_loglik(u, A, int(_codes(y, model.n_letters)), eps)


def _exact_loglik(u, A, code, eps):
    N = u.size
    p = np.linalg.solve(np.eye(N) - (1.0 - eps) * A.T, eps * u)
    return float(np.log(p[code]))


def exact_gradient(theta, x, y, model: SequenceModel, *, eps: float,
                   step: float = 1e-5) -> np.ndarray:
    """d log p_theta(y | x) / d theta of the closed form (Prop 3.2) by central differences.

    Each coordinate costs two enumerations and two solves of size V**L (<= 512).
    """
    theta = _check_theta(theta, model)
    eps = _check_eps_learning(eps)
    step = check_in_range("step", step, 0.0, 1.0, low_open=True)  # a finite-difference step
    y = _check_seq("y", y, model)
    code = int(_codes(y, model.n_letters))
    g = np.empty(model.n_params)
    for j in range(model.n_params):
        tp = theta.copy()
        tm = theta.copy()
        tp[j] += step
        tm[j] -= step
        g[j] = (_exact_loglik(*model_chains(tp, x, model), code, eps)
                - _exact_loglik(*model_chains(tm, x, model), code, eps)) / (2 * step)
    return g


# ============================================================== numba kernels: base chains


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
