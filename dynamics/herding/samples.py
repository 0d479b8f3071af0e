"""Herding's map and the statistics of its samples (Chen & Welling, Sec 1.2).

The herding map of eqs 1.7-1.8 for D discrete states x_0, ..., x_{D-1} with K features and the
perceptron-cycling quantity (eq 1.40); of the states it writes, the moment error of Prop 1.2, the
autocorrelation of eq 1.13 and the word counts M(T) behind the topological entropy of eqs
1.36-1.37. Conventions: see ``dynamics.herding``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dynamics.checks import (
    MAX_FEATURES,
    MAX_STATES,
    MAX_STEPS,
    as_generator,
    check_array,
    check_count,
    check_features,
    check_moments,
    check_positive,
    check_probability_vector,
    describe,
)
from dynamics.exact import INT_LIMIT, integer_table, rational_scale
from dynamics.herding._kernels import _herd_exact_kernel, _herd_kernel

__all__ = [
    "RandomModel",
    "HerdingResult",
    "MomentError",
    "random_model",
    "herd",
    "moment_error",
    "autocorrelation",
    "word_counts",
]

#: Steps between exact recomputations of the scores w . phi(x) in the herding kernel (see `herd`).
SCORE_REFRESH = 1024
#: Cap on the entries of a weight trajectory (steps + 1) * K: 10**8 steps at K = 2, i.e. 1.6 GB.
MAX_WEIGHT_ENTRIES = 2 * (MAX_STEPS + 1)
#: Relative tolerance of ``HerdingResult.cycling_holds`` (see `herd`).
CYCLING_RTOL = 1e-9
#: Shortest state sequence `moment_error` accepts (its slope fit needs a range of log t).
MIN_ERROR_LENGTH = 16
#: Number of logarithmic bins of t in the slope fits of `moment_error`.
SLOPE_BINS = 32


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RandomModel:
    """A random discrete model: D states with Gaussian features and a Dirichlet distribution.

    Attributes
    ----------
    features : ndarray of float64, shape (D, K)
        Row d is phi(x_d), entries i.i.d. N(0, 1).
    probabilities : ndarray of float64, shape (D,)
        Target distribution pi over the states, drawn from Dirichlet(1, ..., 1) (uniform on the
        simplex).
    moments : ndarray of float64, shape (K,)
        phi_bar = sum_d pi_d phi(x_d) = ``probabilities @ features``; it lies in the convex hull of
        the feature rows, so herding's weights stay bounded (Prop 1.3, Corollary 1.4).
    """

    features: np.ndarray
    probabilities: np.ndarray
    moments: np.ndarray


@dataclass(frozen=True)
class HerdingResult:
    """A herding trajectory (eqs 1.7-1.8) and its perceptron-cycling record (eq 1.40).

    Attributes
    ----------
    states : ndarray of int64, shape (steps,)
        s_1, ..., s_T as row indices into ``features``; ``states[t - 1]`` is s_t.
    weights : ndarray of float64, shape (steps + 1, K)
        w_0, w_1, ..., w_T; row 0 is the initial ``w0``.
    cycling : ndarray of float64, shape (steps,)
        ``cycling[t - 1]`` = w_{t-1} . (phi_bar - phi(s_t)) (eq 1.40 with v = phi_bar - phi(s_t)).
        It equals the Tipi function l0(w_{t-1}) (eq 1.10) and is <= 0 whenever phi_bar lies in the
        convex hull of the feature rows.
    cycling_max : float
        Largest entry of ``cycling``.
    cycling_holds : bool
        True when every step satisfies eq 1.40 up to rounding:
        ``cycling[t-1] <= CYCLING_RTOL * ||w_{t-1}||_2 * max_x ||phi_bar - phi(x)||_2``.
    weight_radius : float
        max_t ||w_t||_2 over t = 0..T (bounded by Corollary 1.4 when phi_bar is in the hull).
    """

    states: np.ndarray
    weights: np.ndarray
    cycling: np.ndarray
    cycling_max: float
    cycling_holds: bool
    weight_radius: float


@dataclass(frozen=True)
class MomentError:
    """Moment-matching error of herding against i.i.d. sampling (Prop 1.2, eq 1.35).

    Attributes
    ----------
    t : ndarray of int64, shape (T,)
        Sample counts 1, 2, ..., T.
    herding : ndarray of float64, shape (T,)
        ||(1/t) sum_{i<=t} phi(s_i) - phi_bar||_2 for the given (herding) states; O(1/t).
    iid : ndarray of float64, shape (T,)
        The same for T i.i.d. draws from the baseline distribution; O(1/sqrt(t)).
    herding_slope, iid_slope : float
        Least-squares slopes of log(error) against log(t) over the second half of the log range,
        t in [sqrt(T), T] (see `moment_error`). The paper predicts about -1 and -1/2.
    """

    t: np.ndarray
    herding: np.ndarray
    iid: np.ndarray
    herding_slope: float
    iid_slope: float


# --------------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------------
def random_model(n_states: int, n_features: int, *, seed=None) -> RandomModel:
    """Draw a random herding model: D states, K features phi ~ N(0, 1), pi ~ Dirichlet(1).

    This is the synthetic model of Sec 1.2.2-1.2.3 (Figs 1.1, 1.4, 1.10-1.11): each state gets a
    K-dimensional Gaussian feature vector, the data distribution pi is uniform on the simplex, and
    the target moments are phi_bar = E_pi[phi(x)] (eq 1.1), which lie in the convex hull of the
    features.

    Parameters
    ----------
    n_states : int
        Number of states D, in [2, MAX_STATES].
    n_features : int
        Number of features K, in [1, MAX_FEATURES].
    seed : None, int or numpy.random.Generator
        Randomness; features are drawn first, then the probabilities.

    Returns
    -------
    RandomModel
        ``features`` (D, K), ``probabilities`` (D,), ``moments = probabilities @ features`` (K,).
    """
    D = check_count("n_states", n_states, low=2, high=MAX_STATES)
    K = check_count("n_features", n_features, low=1, high=MAX_FEATURES)
    rng = as_generator(seed)
    features = rng.standard_normal((D, K))
    probabilities = rng.dirichlet(np.ones(D))
    moments = probabilities @ features
    return RandomModel(features=features, probabilities=probabilities, moments=moments)


# --------------------------------------------------------------------------------------------
# The herding map
# --------------------------------------------------------------------------------------------
def _integer_problem(phi, phi_bar, v0, steps):
    """The integer form of a herding run (see `herd`'s notes), or None: (phi as int64,
    r = N phi_bar - N phi, u0 = N v0, N) when phi is integral, phi_bar and v0 = w0 / eta are
    multiples of 1/N and every integer of the run stays below INT_LIMIT."""
    phi_i = integer_table(phi)
    if phi_i is None:
        return None
    scaled = rational_scale(np.concatenate([phi_bar, v0]))
    if scaled is None:
        return None
    N, numerators = scaled
    K = phi.shape[1]
    m, u0 = numerators[:K], numerators[K:]
    p = int(np.abs(phi_i).max())
    r_max = max(abs(x) for x in m) + N * p
    u_max = max(abs(x) for x in u0) + steps * r_max
    if K * max(p, 1) * max(u_max, r_max) >= INT_LIMIT:
        return None
    r = np.array(m, dtype=np.int64) - N * phi_i
    return phi_i, r, np.array(u0, dtype=np.int64), N


def herd(features, moments, steps, *, w0=None, eta: float = 1.0) -> HerdingResult:
    """Run herding (eqs 1.7-1.8 of Chen & Welling) for ``steps`` steps.

    s_t = argmax_x w_{t-1} . phi(x)        (eq 1.7; ties go to the lowest row index)
    w_t = w_{t-1} + eta (phi_bar - phi(s_t))   (eq 1.8)

    and records the perceptron-cycling quantity w_{t-1} . (phi_bar - phi(s_t)) of eq 1.40, which
    is <= 0 because phi_bar is a convex combination of the rows while phi(s_t) maximizes w . phi.

    If ``moments`` lies outside the convex hull of the feature rows, nothing bounds the weights:
    they drift away linearly in t (Prop 1.1's premise fails and the running average of phi(s_t)
    does not reach phi_bar). This is allowed; ``cycling_holds`` is then False.

    Parameters
    ----------
    features : array_like, shape (D, K)
        Row d is phi(x_d); finite, 2 <= D <= MAX_STATES.
    moments : array_like, shape (K,)
        Target moments phi_bar, finite.
    steps : int
        Number of steps T, in [1, MAX_STEPS], with (T + 1) * K <= MAX_WEIGHT_ENTRIES.
    w0 : array_like, shape (K,), optional
        Initial weights; None means zeros.
    eta : float
        Learning rate > 0. By Sec 1.2.3 herding with (eta, eta * v0) gives the same states as
        (1, v0) and weights scaled by eta.

    Returns
    -------
    HerdingResult
        ``states`` (T,) int64, ``weights`` (T + 1, K) float64 with row 0 = w0, ``cycling`` (T,),
        ``cycling_max``, ``cycling_holds``, ``weight_radius``.

    Notes
    -----
    Ties in eq 1.7 are common when the features are integers and the moments multiples of 1/N
    (data moments of 0/1 or +-1 monomials, Sec 1.4.1: a few steps in a hundred tie exactly), so
    they are decided by an exact rule, the lowest row index among the maximisers, computed
    one of two ways:

    - **Integer scores** when every feature is an integer (|phi| < 2^53) and every entry x of
      ``moments`` and of ``w0 / eta`` (a double division) is a fraction p/q with
      q <= MAX_DENOMINATOR (2^24): the fraction ``Fraction(x).limit_denominator(2^24)``, taken
      when it rounds back to x. With N the least common multiple of the q's, u_t = N w_t / eta
      is an integer vector (u_t = u_{t-1} + N phi_bar - N phi(s_t)) and the kernel keeps the
      scores u_t . phi(x) in int64, so ties are found exactly and s_t is the same on every
      machine. ``weights`` holds eta * (u_t / N) in double (row 0 is ``w0`` as given). This mode
      also needs every score, weight and step of the run below 2^62 in magnitude (checked
      beforehand from T, N and max|phi|); otherwise, and in every other case:
    - **Float scores**: the weights follow eq 1.8 in double (w_t = w_{t-1} + fl(eta fl(phi_bar -
      phi(s_t)))), and s_t is the lowest index d maximising the double fl(sum_k w_{t-1,k} phi_dk)
      summed over k in order. The kernel advances the scores in O(D) per step with a table
      G[s, d] = eta (phi_bar - phi(x_s)) . phi(x_d), recomputes them from w every
      SCORE_REFRESH steps, and bounds their rounding drift; whenever the two best scores are
      within twice that bound the candidates are rescored directly, so the states are exactly
      those of the direct rule (identical feature rows, for instance, always tie and go to the
      lower index). Rounding of the moments themselves (e.g. a moment computed as ``p @ phi``
      with p = counts / N, one ulp from counts @ phi / N) can still move a tie here: pass moments
      computed as integer sums divided once by N to get the integer mode.
    """
    phi = check_features(features)
    D, K = phi.shape
    phi_bar = check_moments(moments, K)
    T = check_count("steps", steps)
    if (T + 1) * K > MAX_WEIGHT_ENTRIES:
        raise ValueError(
            f"steps * n_features is too large: (steps + 1) * K = {(T + 1) * K} weight entries, "
            f"at most {MAX_WEIGHT_ENTRIES} are allowed (steps={T}, K={K})"
        )
    eta = check_positive("eta", eta)
    if w0 is None:
        w_init = np.zeros(K)
    else:
        w_init = check_array("w0", w0, shape=(K,))
    # Overflow guard: |w_t| <= |w0| + t * eta * max|phi_bar - phi| and |g| <= K * max|w| * max|phi|.
    with np.errstate(over="ignore"):
        w_bound = float(np.abs(w_init).max() + T * eta * np.abs(phi_bar - phi).max())
        score_bound = w_bound * K * max(1.0, float(np.abs(phi).max()), float(np.abs(phi_bar).max()))
    if not np.isfinite(score_bound) or score_bound > 1e300:
        raise ValueError(
            f"eta, w0 and the feature scale are too large to run {T} steps without overflow "
            f"(eta={eta!r}, max|w0|={float(np.abs(w_init).max())!r}, max|features|="
            f"{float(np.abs(phi).max())!r})"
        )
    refresh = SCORE_REFRESH if (K > 1 and T > 2 * D) else 1
    states = np.empty(T, dtype=np.int64)
    weights = np.empty((T + 1, K), dtype=np.float64)
    weights[0] = w_init
    cycling = np.empty(T, dtype=np.float64)
    exact = _integer_problem(phi, phi_bar, w_init / eta, T)
    if exact is None:
        violations, w2_max, c_max = _herd_kernel(phi, phi_bar, eta, refresh, CYCLING_RTOL,
                                                 states, weights, cycling)
    else:
        phi_i, r, u0, N = exact
        violations, w2_max, c_max = _herd_exact_kernel(phi_i, r, u0, eta, float(N),
                                                       phi_bar - phi, refresh > 1, CYCLING_RTOL,
                                                       states, weights, cycling)
    return HerdingResult(
        states=states,
        weights=weights,
        cycling=cycling,
        cycling_max=float(c_max),
        cycling_holds=bool(violations == 0),
        weight_radius=float(np.sqrt(w2_max)),
    )


# --------------------------------------------------------------------------------------------
# Analyses of a state sequence
# --------------------------------------------------------------------------------------------
def _check_states(states, *, n_states: int | None = None, min_length: int = 1) -> np.ndarray:
    """A 1-d int64 array of state labels (integral floats are accepted), optionally in [0, D)."""
    try:
        arr = np.asarray(states)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"states must be a 1-d integer array, got {describe(states)}") from exc
    if arr.ndim != 1:
        raise ValueError(f"states must be a 1-d array, got shape {arr.shape}")
    if arr.dtype.kind == "f":
        if (not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr))
                or (arr.size and np.abs(arr).max() > 2.0**53)):
            raise ValueError(f"states must hold integers, got {describe(arr)}")
    elif arr.dtype.kind not in "iu":
        raise ValueError(f"states must be an integer array, got dtype {arr.dtype}")
    if arr.size < min_length:
        raise ValueError(f"states must have at least {min_length} entries, got {arr.size}")
    if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
        raise ValueError("states must fit in int64")
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    if n_states is not None and arr.size:
        lo, hi = int(arr.min()), int(arr.max())
        if lo < 0 or hi >= n_states:
            raise ValueError(
                f"states must be row indices of features in [0, {n_states - 1}], "
                f"got values in [{lo}, {hi}]"
            )
    return arr


def _running_error(features, moments, states) -> np.ndarray:
    """||(1/t) sum_{i<=t} phi(s_i) - phi_bar||_2 for t = 1..T.

    The sum runs over the centred features phi(s_i) - phi_bar, which stays O(max|w|) for herding
    (eq 1.14), so the cumulative sum loses no precision however long the run.
    """
    centred = np.cumsum(features[states] - moments, axis=0)
    t = np.arange(1, states.size + 1, dtype=np.float64)
    return np.sqrt(np.einsum("ij,ij->i", centred, centred)) / t


def _loglog_slope(error: np.ndarray) -> float:
    """Slope of log(error) vs log(t) over t in [sqrt(T), T], on binned RMS errors.

    The range is split into SLOPE_BINS logarithmic bins; each bin contributes the root mean square
    of the error inside it, placed at the geometric centre of the bin. Binning keeps the fit from
    being dominated by the isolated near-zero errors where the running mean crosses phi_bar.
    Bins whose errors are all exactly zero are dropped; if fewer than two bins remain (the error
    vanishes identically), the slope is -inf.
    """
    return _loglog_fit(error)[0]


def _loglog_fit(error: np.ndarray) -> tuple[float, float]:
    """``_loglog_slope``'s slope and its standard error from the fit's residuals over the bins
    (NaN with fewer than three bins)."""
    T = error.size
    edges = np.unique(np.round(np.geomspace(np.sqrt(T), T + 1, SLOPE_BINS + 1)).astype(np.int64))
    lo, hi = edges[:-1], edges[1:]  # bin [lo, hi) of t values, 1-based
    cumsq = np.concatenate(([0.0], np.cumsum(error * error)))
    rms = np.sqrt((cumsq[hi - 1] - cumsq[lo - 1]) / (hi - lo))
    centre = np.sqrt(lo * (hi - 1.0))
    keep = rms > 0
    if np.count_nonzero(keep) < 2:
        return float("-inf"), float("nan")
    x, y = np.log(centre[keep]), np.log(rms[keep])
    slope, intercept = np.polyfit(x, y, 1)
    if x.size < 3:
        return float(slope), float("nan")
    resid = y - (slope * x + intercept)
    se = np.sqrt(resid @ resid / (x.size - 2) / np.sum((x - x.mean()) ** 2))
    return float(slope), float(se)


def moment_error(features, states, moments, *, probabilities=None, seed=None) -> MomentError:
    """Moment error of a herding run against i.i.d. sampling (Prop 1.2 and eq 1.35).

    herding[t-1] = ||(1/t) sum_{i<=t} phi(s_i) - phi_bar||_2, which Prop 1.2 bounds per coordinate
    by 2 R / (eta t) when |w| <= R (O(1/t)); iid[t-1] is the same quantity for T independent
    draws, whose error decays only as O(1/sqrt(t)).

    Parameters
    ----------
    features : array_like, shape (D, K)
        Row d is phi(x_d).
    states : array_like of int, shape (T,)
        Row indices into ``features`` (e.g. ``herd(...).states``); T >= MIN_ERROR_LENGTH (16).
    moments : array_like, shape (K,)
        Target phi_bar.
    probabilities : array_like, shape (D,), optional
        Distribution of the i.i.d. baseline; it should have mean ``probabilities @ features ==
        moments`` (not enforced: the i.i.d. error levels off at the difference when it does not).
        None uses the empirical distribution of ``states``, whose mean differs from ``moments`` by
        the herding error at T, O(1/T), far below the i.i.d. error O(1/sqrt(t)) for all t <= T.
    seed : None, int or numpy.random.Generator
        Randomness of the i.i.d. draws.

    Returns
    -------
    MomentError
        ``t``, ``herding``, ``iid`` (all (T,)) and the log-log slopes ``herding_slope`` (about -1)
        and ``iid_slope`` (about -1/2), each fitted over t in [sqrt(T), T] on the RMS error in
        SLOPE_BINS logarithmic bins (-inf if the error vanishes identically there).
    """
    phi = check_features(features)
    D, K = phi.shape
    phi_bar = check_moments(moments, K)
    s = _check_states(states, n_states=D, min_length=MIN_ERROR_LENGTH)
    T = s.size
    if probabilities is None:
        p = np.bincount(s, minlength=D) / T
    else:
        p = check_probability_vector("probabilities", probabilities, size=D)
    rng = as_generator(seed)
    iid_states = rng.choice(D, size=T, p=p)
    herding_err = _running_error(phi, phi_bar, s)
    iid_err = _running_error(phi, phi_bar, iid_states)
    return MomentError(
        t=np.arange(1, T + 1, dtype=np.int64),
        herding=herding_err,
        iid=iid_err,
        herding_slope=_loglog_slope(herding_err),
        iid_slope=_loglog_slope(iid_err),
    )


def autocorrelation(states, max_lag: int) -> np.ndarray:
    """Autocorrelation R(t) of a discrete state sequence, eq 1.13 of Chen & Welling.

    R(t) = [ (1/(T-t)) sum_{tau=1}^{T-t} I[s_tau = s_{tau+t}] - sum_s P(s)^2 ] / (1 - sum_s P(s)^2)

    with P the empirical distribution of the whole sequence, so R(0) = 1 and R(t) is about 0 for
    i.i.d. samples; herding gives R(1) < 0 (Fig 1.4).

    Parameters
    ----------
    states : array_like of int, shape (T,)
        Any integer labels, T >= 2.
    max_lag : int
        Largest lag, in [0, T - 1].

    Returns
    -------
    ndarray of float64, shape (max_lag + 1,)
        R(0), ..., R(max_lag).

    Raises
    ------
    ValueError
        If the sequence visits a single state: then sum_s P(s)^2 = 1 and eq 1.13 is 0/0, so R is
        undefined (no NaN is returned). Cost O(T * max_lag), vectorised.
    """
    s = _check_states(states, min_length=2)
    T = s.size
    L = check_count("max_lag", max_lag, low=0, high=T - 1)
    _, counts = np.unique(s, return_counts=True)
    q = float(np.sum((counts / T) ** 2))
    denom = 1.0 - q
    if counts.size == 1 or denom <= 0.0:
        raise ValueError(
            f"autocorrelation is undefined for a constant sequence (states visits only state "
            f"{int(s[0])}; eq 1.13 has denominator 1 - sum P^2 = 0)"
        )
    R = np.empty(L + 1)
    R[0] = 1.0
    for lag in range(1, L + 1):
        matches = np.count_nonzero(s[:-lag] == s[lag:])
        R[lag] = (matches / (T - lag) - q) / denom
    return R


def word_counts(states, max_len: int) -> np.ndarray:
    """Number M(T) of distinct words (contiguous length-T subsequences) in ``states``, T = 1..max_len.

    M(T) is the complexity behind the topological entropy h = lim log M(T) / T (eq 1.36) and
    H(T) = log M(T) ~ K log T for herding (eq 1.37); Sturmian sequences have M(T) = T + 1.

    Words are coded exactly (no hashing): code_1 labels the symbols 0..M(1)-1, and the word of
    length T starting at i is coded by relabelling the pair (code_{T-1}[i], symbol[i+T-1]) to
    0..M(T)-1, with a dense table when M(T-1) * M(1) <= 4 N + 1024 (O(N) per length) and with
    ``numpy.unique`` otherwise (O(N log N)). Once all words of some length are distinct,
    M(T) = N - T + 1 for every longer T.

    Parameters
    ----------
    states : array_like of int, shape (N,)
        Any integer labels, N >= 1.
    max_len : int
        Longest word length, in [1, N].

    Returns
    -------
    ndarray of int64, shape (max_len,)
        ``result[T - 1]`` = M(T).
    """
    s = _check_states(states, min_length=1)
    N = s.size
    L = check_count("max_len", max_len, low=1, high=N)
    symbols, code = np.unique(s, return_inverse=True)
    n_sym = symbols.size
    code = code.astype(np.int64).ravel()
    sym = code.copy()  # symbol of each position, relabelled 0..n_sym-1
    out = np.empty(L, dtype=np.int64)
    m = int(n_sym)
    out[0] = m
    for T in range(2, L + 1):
        n_words = N - T + 1
        if m == n_words + 1:  # every word of length T-1 was distinct, so are the longer ones
            out[T - 1:] = N - np.arange(T, L + 1) + 1
            break
        # code < m <= N and sym < n_sym <= N, so the pair code (< N**2) fits in int64.
        pair = code[:n_words] * n_sym + sym[T - 1:]
        span = m * n_sym
        if span <= 4 * N + 1024:
            # Dense relabelling in O(N + span): mark the pair codes present, number them in order.
            present = np.zeros(span, dtype=np.bool_)
            present[pair] = True
            rank = np.cumsum(present, dtype=np.int64) - 1
            code = rank[pair]
            m = int(rank[-1] + 1)
        else:
            uniq, code = np.unique(pair, return_inverse=True)
            code = code.astype(np.int64).ravel()
            m = int(uniq.size)
        out[T - 1] = m
    return out


def _warmup() -> None:
    """Compile (or load from cache) the herding kernel with the production dtypes."""
    phi = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]], dtype=np.float64)
    phi_bar = np.full(2, 0.0, dtype=np.float64)
    for refresh in (1, SCORE_REFRESH):
        states = np.empty(8, dtype=np.int64)
        weights = np.zeros((9, 2), dtype=np.float64)
        cycling = np.empty(8, dtype=np.float64)
        _herd_kernel(phi, phi_bar, 1.0, refresh, CYCLING_RTOL, states, weights, cycling)
        _herd_exact_kernel(phi.astype(np.int64), -phi.astype(np.int64), np.zeros(2, np.int64),
                           1.0, 1.0, phi_bar - phi, refresh > 1, CYCLING_RTOL, states, weights,
                           cycling)
