"""The sequence model of Steinhardt & Liang, Sec 4 (eqs 4-6, Assumption 4.3), its chains and its
exact likelihood (Prop 3.2, eq 3). Part of ``dynamics.doeblin``; see that package for the
row-stochastic conventions.

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

The model p_theta(y | x) is the stationary law of (1 - eps) A_theta + eps u_theta 1^T (eqs 1, 4,
6); `model_chains` builds both base chains on models small enough to enumerate, and
`exact_gradient` differentiates the closed form of Prop 3.2 by finite differences.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from dynamics.checks import check_array, check_count, check_in_range, check_instance, describe

__all__ = [
    "MAX_CODES", "MAX_ENUMERATED", "MAX_TRANSITIONS", "SequenceModel", "sequence_model",
    "model_chains", "exact_log_likelihood", "exact_gradient",
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
