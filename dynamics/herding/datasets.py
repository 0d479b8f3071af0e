"""The binary data sets, distributions and Boltzmann machine of Chen & Welling Sec 1.4.1: small
binary sets built from data shipped with scikit-learn, the distributions over their 2^n states
(empirical, of the count k of ones, and herding's from the data's low-order moments, eqs
1.7-1.8), and the fully visible Boltzmann machine p(s) ~ exp(b.s + sum_{i<j} W_ij s_i s_j) fit
by pseudo-likelihood (PL), exactly enumerated or Gibbs-sampled. Part of ``dynamics.herding``;
the tables built on them (Tables 1.1-1.2, Fig 1.12) are in ``dynamics.herding.data``, which
re-exports every name here.

Units are 0/1 in the data and +-1 (s = 2x - 1) in the features and the Boltzmann machine.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..checks import as_generator, check_array, check_choice, check_count, check_positive
from .samples import MAX_WEIGHT_ENTRIES, herd

__all__ = [
    "MAX_BITS", "DATASETS", "DIGIT_THRESHOLD", "MAX_SAMPLES", "MAX_HERD_STEPS", "BinaryData",
    "binary_dataset", "all_binary_states", "monomial_features", "empirical_distribution",
    "count_distribution", "herd_distribution", "BoltzmannMachine", "pseudo_likelihood",
    "fit_pseudo_likelihood", "boltzmann_distribution", "gibbs_samples",
]


#: Most bits of a data set: herding's argmax and every distribution enumerate the 2^n states.
MAX_BITS = 12
#: The data sets ``binary_dataset`` builds from data shipped with scikit-learn.
DATASETS = ("digits", "breast_cancer", "diabetes")


#: Threshold of the 8 x 8 digits' grey levels (0..16): a pixel is 1 when its level is above.
DIGIT_THRESHOLD = 7
#: Most samples or sweeps of a run (each a row of a few bytes, or a step of a kernel).
MAX_SAMPLES = 10_000_000
#: Most herding steps of a run: ``herding.herd`` keeps every step's weights (K <= 298 floats).
MAX_HERD_STEPS = 200_000


# --- data ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BinaryData:
    """A binary data set: ``data`` (N, n) of 0/1 attributes, ``labels`` (N,) of 0/1, the
    attributes' ``names`` and a ``description`` of how it was built."""

    name: str
    data: np.ndarray
    labels: np.ndarray
    names: tuple[str, ...]
    description: str


def _binarise_at_mean(X: np.ndarray) -> np.ndarray:
    return (X > X.mean(axis=0)).astype(np.int8)


def binary_dataset(name: str, *, bits: int = 10) -> BinaryData:
    """A small binary data set built from data shipped with scikit-learn (no download).

    ``"digits"``: the 8 x 8 digits of classes 3 and 5 (label: 5), grey level > 7 of 16 is a 1,
    the ``bits`` pixels whose ones-fraction is nearest 1/2; ``"breast_cancer"``: the first
    ``bits`` of the ten "mean" measurements, each 1 above its mean (the paper's Abalone recipe),
    label malignant; ``"diabetes"``: the first ``bits`` of the ten baseline variables, 1 above
    the mean, label disease progression above its mean. 1 <= bits <= 10.
    """
    name = check_choice("name", name, DATASETS)
    bits = check_count("bits", bits, low=1, high=10)
    from sklearn import datasets

    if name == "digits":
        d = datasets.load_digits()
        keep = np.isin(d.target, (3, 5))
        X = (d.data[keep] > DIGIT_THRESHOLD).astype(np.int8)
        labels = (d.target[keep] == 5).astype(np.int8)
        p = X.mean(axis=0)
        order = np.argsort(np.abs(p - 0.5), kind="stable")[:bits]
        cols = np.sort(order)
        names = tuple(f"pixel ({c // 8}, {c % 8})" for c in cols)
        text = (f"scikit-learn's 8 x 8 digits, classes 3 and 5 ({keep.sum()} images), grey "
                f"level > {DIGIT_THRESHOLD} of 16 is a 1; the {bits} pixels whose ones-fraction "
                "is nearest 1/2; label: the digit is a 5")
        return BinaryData(name, np.ascontiguousarray(X[:, cols]), labels, names, text)
    if name == "breast_cancer":
        d = datasets.load_breast_cancer()
        X = _binarise_at_mean(d.data[:, :bits])
        labels = (d.target == 0).astype(np.int8)  # 0 is malignant in scikit-learn
        text = (f"scikit-learn's breast cancer data ({len(X)} cases), its first {bits} "
                "measurements (the 'mean' ones), each 1 above its mean; label: malignant")
        return BinaryData(name, X, labels, tuple(d.feature_names[:bits]), text)
    d = datasets.load_diabetes()
    X = _binarise_at_mean(d.data[:, :bits])
    labels = (d.target > d.target.mean()).astype(np.int8)
    text = (f"scikit-learn's diabetes data ({len(X)} cases), its first {bits} baseline "
            "variables, each 1 above its mean; label: disease progression above its mean")
    return BinaryData(name, X, labels, tuple(d.feature_names[:bits]), text)


def _check_bits(name: str, value, *, high: int = MAX_BITS) -> np.ndarray:
    """Rows (N, n) of 0/1 with N >= 1 and 1 <= n <= high, as int8."""
    x = check_array(name, value, ndim=2)
    if x.shape[0] < 1 or not 1 <= x.shape[1] <= high:
        raise ValueError(f"{name} must have at least one row and 1 to {high} columns, got "
                         f"shape {x.shape}")
    if not np.all((x == 0) | (x == 1)):
        raise ValueError(f"{name} must hold 0 and 1 only")
    return x.astype(np.int8)


def all_binary_states(n: int) -> np.ndarray:
    """Every state of n 0/1 units, (2^n, n) int8; row c has unit i = bit i of c."""
    n = check_count("n", n, low=1, high=MAX_BITS)
    codes = np.arange(1 << n)
    return ((codes[:, None] >> np.arange(n)) & 1).astype(np.int8)


def _codes(x: np.ndarray) -> np.ndarray:
    return (x.astype(np.int64) << np.arange(x.shape[1])).sum(axis=1)


def monomial_features(states, order: int) -> np.ndarray:
    """The herding features of Sec 1.4.1: for 0/1 rows x and s = 2x - 1, every product
    s_i (order 1), s_i s_j (i < j, order 2) and s_i s_j s_k (i < j < k, order 3) up to
    ``order``. Their means are the data's marginals, pair and triplet probabilities in another
    basis (an invertible linear map of them), so herding H.XX / H.XXX matches exactly those."""
    x = _check_bits("states", states)
    n = x.shape[1]
    order = check_count("order", order, low=1, high=min(3, n))
    s = 2.0 * x - 1.0
    columns = [s[:, list(idx)].prod(axis=1) for k in range(1, order + 1)
               for idx in itertools.combinations(range(n), k)]
    return np.stack(columns, axis=1)


def empirical_distribution(data) -> np.ndarray:
    """The data's empirical distribution over the 2^n states (index: ``all_binary_states``)."""
    x = _check_bits("data", data)
    return np.bincount(_codes(x), minlength=1 << x.shape[1]) / len(x)


def count_distribution(distribution) -> np.ndarray:
    """P(k) = P(sum_i x_i = k), k = 0..n, of a distribution over the 2^n states (Sec 1.4.1's
    experiment I; the paper's P(k) counts k - 1 ones)."""
    p = check_array("distribution", distribution, ndim=1)
    size = p.size
    if size < 2 or size & (size - 1) or size > (1 << MAX_BITS):
        raise ValueError(f"distribution must have 2^n entries, 1 <= n <= {MAX_BITS}, got "
                         f"{size}")
    if p.min() < 0 or abs(p.sum() - 1) > 1e-9:
        raise ValueError("distribution must be non-negative and sum to 1")
    n = size.bit_length() - 1
    ones = all_binary_states(n).sum(axis=1)
    return np.bincount(ones, weights=p, minlength=n + 1)


def herd_distribution(data, order: int, steps: int) -> np.ndarray:
    """H.XX (``order`` 2) or H.XXX (``order`` 3) of Table 1.1: herding (eqs 1.7-1.8, from
    w_0 = 0, exact argmax over the 2^n states) on the data's moments of ``monomial_features``;
    returns the distribution of its ``steps`` pseudo-samples over the 2^n states. Deterministic,
    as the paper notes, and the same on every machine: the moments are multiples of 1/N (N data
    cases) and the features +-1, so the scores are exact integers (``herding.herd``'s integer
    mode) and a tie, which is common here, goes to the lowest state code."""
    x = _check_bits("data", data)
    n = x.shape[1]
    order = check_count("order", order, low=1, high=min(3, n))
    steps = check_count("steps", steps, high=MAX_HERD_STEPS)
    return np.bincount(_herd_states(x, order, steps), minlength=1 << n) / steps


def _herd_states(x: np.ndarray, order: int, steps: int) -> np.ndarray:
    """Herding's pseudo-samples (state codes) on the moments of 0/1 rows ``x``."""
    table = monomial_features(all_binary_states(x.shape[1]), order)
    if (steps + 1) * table.shape[1] > MAX_WEIGHT_ENTRIES:
        raise ValueError(f"steps is too large for {table.shape[1]} features")
    # Integer counts times +-1 monomials are exact in any order of summation, and one division
    # by N leaves moments that `herding.herd` reads as exact multiples of 1/N: its argmax then
    # runs on integer scores, and ties (common here) go to the lowest state code on any machine.
    counts = np.bincount(_codes(x), minlength=1 << x.shape[1]).astype(np.float64)
    moments = (counts @ table) / len(x)
    return herd(table, moments, steps).states


# --- the pseudo-likelihood Boltzmann machine ---------------------------------------------------


@dataclass(frozen=True)
class BoltzmannMachine:
    """A fully visible Boltzmann machine on +-1 units: p(s) proportional to
    exp(b.s + sum_{i<j} W_ij s_i s_j), ``W`` symmetric with a zero diagonal."""

    b: np.ndarray
    W: np.ndarray


def _check_machine(b, W) -> tuple[np.ndarray, np.ndarray]:
    b = check_array("b", b, ndim=1, max_abs=1e6)
    n = b.size
    if not 1 <= n <= MAX_BITS:
        raise ValueError(f"b must have 1 to {MAX_BITS} entries, got {n}")
    W = check_array("W", W, shape=(n, n), max_abs=1e6)
    if not np.allclose(W, W.T) or np.any(np.diag(W) != 0):
        raise ValueError("W must be symmetric with a zero diagonal")
    return b, W


def _unpack(theta: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    i, j = np.triu_indices(n, 1)
    W = np.zeros((n, n))
    W[i, j] = theta[n:]
    return theta[:n], W + W.T


def _pl_objective(theta, s, l2):
    """Mean negative log pseudo-likelihood (plus l2/2 |theta|^2) and its gradient."""
    N, n = s.shape
    b, W = _unpack(theta, n)
    h = b + s @ W                       # local fields, W has a zero diagonal
    m = 2.0 * s * h                     # log p(s_i | s_-i) = -log(1 + exp(-m))
    value = np.logaddexp(0.0, -m).sum() / N + 0.5 * l2 * theta @ theta
    r = -2.0 * s / (1.0 + np.exp(m))    # d/dh_i of -log sigma(2 s_i h_i)
    gb = r.sum(axis=0) / N
    G = r.T @ s / N                     # G[i, j] = mean r_i s_j
    i, j = np.triu_indices(n, 1)
    gW = G[i, j] + G[j, i]
    return value, np.concatenate([gb, gW]) + l2 * theta


def pseudo_likelihood(data, b, W) -> float:
    """The mean log pseudo-likelihood (1/N) sum_d sum_i log p(s_i | s_-i) of 0/1 ``data``
    under the machine (b, W) (Besag's; the PL of Sec 1.4.1)."""
    x = _check_bits("data", data)
    b, W = _check_machine(b, W)
    if b.size != x.shape[1]:
        raise ValueError(f"b has {b.size} entries but data has {x.shape[1]} columns")
    i, j = np.triu_indices(b.size, 1)
    theta = np.concatenate([b, W[i, j]])
    return -_pl_objective(theta, 2.0 * x - 1.0, 0.0)[0]


def fit_pseudo_likelihood(data, *, l2: float = 1e-4) -> BoltzmannMachine:
    """PL of Table 1.1-1.2: the fully connected, fully visible Boltzmann machine that maximises
    the data's mean log pseudo-likelihood minus (l2/2)|theta|^2 (L-BFGS; the small penalty keeps
    the weights finite when an attribute is a deterministic function of others)."""
    from scipy.optimize import minimize

    x = _check_bits("data", data)
    l2 = check_positive("l2", l2)
    if l2 > 1e3:
        raise ValueError(f"l2 must be at most 1e3, got {l2}")
    n = x.shape[1]
    theta0 = np.zeros(n + n * (n - 1) // 2)
    fit = minimize(_pl_objective, theta0, args=(2.0 * x - 1.0, l2), jac=True, method="L-BFGS-B",
                   options=dict(maxiter=2000, gtol=1e-9))
    b, W = _unpack(fit.x, n)
    return BoltzmannMachine(b, W)


def boltzmann_distribution(b, W) -> np.ndarray:
    """The machine's exact distribution over the 2^n states (index: ``all_binary_states``)."""
    b, W = _check_machine(b, W)
    s = 2.0 * all_binary_states(b.size) - 1.0
    logits = s @ b + 0.5 * np.einsum("di,ij,dj->d", s, W, s)
    p = np.exp(logits - logits.max())
    return p / p.sum()


@njit(cache=True, nogil=True)
def _gibbs_kernel(b, W, s, uniforms, out):
    """Systematic-scan Gibbs sweeps of the Boltzmann machine; the state after sweep t is
    out[t]. uniforms[t, i] draws unit i in sweep t."""
    T, n = uniforms.shape
    for t in range(T):
        for i in range(n):
            h = b[i]
            for j in range(n):
                h += W[i, j] * s[j]
            # p(s_i = +1 | rest) = sigma(2 h)
            s[i] = 1.0 if uniforms[t, i] < 1.0 / (1.0 + np.exp(-2.0 * h)) else -1.0
        for i in range(n):
            out[t, i] = s[i]


def gibbs_samples(b, W, sweeps: int, *, burn_in: int = 0, seed=None) -> np.ndarray:
    """Gibbs samples of the Boltzmann machine (b, W) (PL's samples, Sec 1.4.1: 200K sweeps of
    which the last 100K are kept): one 0/1 row per sweep after the first ``burn_in``, from a
    uniform random start."""
    b, W = _check_machine(b, W)
    sweeps = check_count("sweeps", sweeps, high=MAX_SAMPLES)
    burn_in = check_count("burn_in", burn_in, low=0, high=MAX_SAMPLES)
    if burn_in >= sweeps:
        raise ValueError(f"burn_in must be below sweeps ({sweeps}), got {burn_in}")
    rng = as_generator(seed)
    n = b.size
    s = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    out = np.empty((sweeps, n))
    _gibbs_kernel(b, W, s, rng.random((sweeps, n)), out)
    return ((out[burn_in:] + 1) / 2).astype(np.int8)
