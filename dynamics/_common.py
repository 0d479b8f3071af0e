"""Shared input checks, random-generator coercion and divergences for the engines.

Every public engine function validates its inputs here, at the boundary, so that a bad value
raises a ``ValueError`` that names the parameter, the value received and what is allowed, rather
than producing silent NaNs, a numba crash or a hang deep inside a kernel.
"""

from __future__ import annotations

import functools
import inspect
import numbers

import numpy as np

__all__ = [
    "MAX_STEPS",
    "MAX_STATES",
    "MAX_FEATURES",
    "as_generator",
    "check_array",
    "check_features",
    "check_moments",
    "check_count",
    "check_positive",
    "check_in_range",
    "check_probability_vector",
    "check_stochastic_matrix",
    "kl_divergence",
    "describe",
    "Cancelled",
    "check_progress",
    "report",
]

#: Upper bound on trajectory lengths. 10**8 steps of a K = 2 trajectory is 1.6 GB of weights,
#: the most a 24 GB machine should be asked to hold for one explorer.
MAX_STEPS = 100_000_000
#: Upper bound on the number of discrete states D of a herding model.
MAX_STATES = 4096
#: Upper bound on the number of features K.
MAX_FEATURES = 1024


def describe(value) -> str:
    """A short, readable rendering of a received value for error messages."""
    if isinstance(value, np.ndarray):
        if value.size <= 6:
            return f"array {np.array2string(value, precision=4, separator=', ')}"
        return f"array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def as_generator(seed) -> np.random.Generator:
    """Coerce ``seed`` (None, an int, or a Generator) to a ``numpy.random.Generator``.

    The same int always gives the same stream; a Generator is used as is (and advanced).
    """
    if seed is None or isinstance(seed, np.random.Generator):
        return np.random.default_rng(seed)
    if isinstance(seed, (bool, np.bool_)):
        raise ValueError(f"seed must be None, a non-negative int or a numpy Generator, got {seed!r}")
    if isinstance(seed, numbers.Integral):
        if seed < 0:
            raise ValueError(f"seed must be a non-negative int, got {seed}")
        return np.random.default_rng(int(seed))
    raise ValueError(
        f"seed must be None, a non-negative int or a numpy Generator, got {describe(seed)}"
    )


def check_array(name: str, value, *, ndim: int | None = None, shape: tuple | None = None,
                dtype=np.float64, finite: bool = True) -> np.ndarray:
    """Convert ``value`` to a contiguous array of ``dtype`` and check its shape and finiteness.

    ``shape`` may contain ``None`` for "any length" in that axis.
    """
    try:
        arr = np.ascontiguousarray(value, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric array, got {describe(value)}") from exc
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-d array, got shape {arr.shape}")
    if shape is not None:
        if arr.ndim != len(shape) or any(
            want is not None and got != want for got, want in zip(arr.shape, shape)
        ):
            want_text = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"
            raise ValueError(f"{name} must have shape {want_text}, got shape {arr.shape}")
    if finite and arr.size and not np.all(np.isfinite(arr)):
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(f"{name} must be finite, got {bad} NaN or infinite entries in {describe(arr)}")
    return arr


def check_features(features, *, min_states: int = 2) -> np.ndarray:
    """Check a feature table ``phi`` of shape ``(D, K)``: row d is phi(x_d).

    Returns a C-contiguous float64 copy-or-view. D must lie in [min_states, MAX_STATES] and K in
    [1, MAX_FEATURES].
    """
    phi = check_array("features", features, ndim=2)
    D, K = phi.shape
    if not min_states <= D <= MAX_STATES:
        raise ValueError(
            f"features must have between {min_states} and {MAX_STATES} rows (states), got {D}"
        )
    if not 1 <= K <= MAX_FEATURES:
        raise ValueError(f"features must have between 1 and {MAX_FEATURES} columns, got {K}")
    return phi


def check_moments(moments, n_features: int) -> np.ndarray:
    """Check the target moments ``phi_bar``: a finite vector of length K."""
    return check_array("moments", moments, shape=(n_features,))


def check_count(name: str, value, *, low: int = 1, high: int = MAX_STEPS) -> int:
    """Check an integer count in [low, high] (bools and non-integral floats are refused)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer in [{low}, {high}], got {describe(value)}")
    value = int(value)
    if not low <= value <= high:
        raise ValueError(f"{name} must be an integer in [{low}, {high}], got {value}")
    return value


def check_positive(name: str, value, *, allow_zero: bool = False) -> float:
    """Check a finite real scalar > 0 (or >= 0 with ``allow_zero``)."""
    try:
        x = float(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a real number, got {describe(value)}") from exc
    if not np.isfinite(x) or x < 0 or (x == 0 and not allow_zero):
        allowed = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be finite and {allowed}, got {x!r}")
    return x


def check_in_range(name: str, value, low: float, high: float, *, low_open: bool = False,
                   high_open: bool = False) -> float:
    """Check a finite real scalar in the interval [low, high] (ends open when asked)."""
    try:
        x = float(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a real number, got {describe(value)}") from exc
    ok = np.isfinite(x) and (x > low if low_open else x >= low) and (x < high if high_open else x <= high)
    if not ok:
        interval = f"{'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"
        raise ValueError(f"{name} must lie in {interval}, got {x!r}")
    return x


def check_probability_vector(name: str, value, *, size: int | None = None,
                             atol: float = 1e-9) -> np.ndarray:
    """Check a probability vector: finite, non-negative, summing to 1 within ``atol``."""
    p = check_array(name, value, shape=(size,))
    if p.size == 0:
        raise ValueError(f"{name} must not be empty")
    if np.any(p < 0):
        raise ValueError(f"{name} must have non-negative entries, got minimum {p.min()!r}")
    total = float(p.sum())
    if abs(total - 1.0) > atol:
        raise ValueError(f"{name} must sum to 1, got sum {total!r}")
    return p


def check_stochastic_matrix(name: str, value, *, atol: float = 1e-9) -> np.ndarray:
    """Check a row-stochastic square matrix: P[i, j] = P(next = j | now = i), rows sum to 1."""
    P = check_array(name, value, ndim=2)
    n, m = P.shape
    if n != m or n == 0:
        raise ValueError(f"{name} must be a non-empty square matrix, got shape {P.shape}")
    if np.any(P < 0):
        i, j = np.unravel_index(np.argmin(P), P.shape)
        raise ValueError(f"{name} must have non-negative entries, got {name}[{i}, {j}] = {P[i, j]!r}")
    sums = P.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > atol)
    if bad.size:
        raise ValueError(f"{name} rows must sum to 1, row {bad[0]} sums to {sums[bad[0]]!r}")
    return P


def kl_divergence(p, q) -> float:
    """KL(p || q) = sum_i p_i log(p_i / q_i) in nats, with 0 log 0 = 0; inf where q_i = 0 < p_i."""
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    mask = p > 0
    if np.any(q[mask] <= 0):
        return float("inf")
    # log p - log q rather than log(p / q): the ratio overflows when q_i is tiny (1e-310).
    return float(np.sum(p[mask] * (np.log(p[mask]) - np.log(q[mask]))))


# --- long computations: progress and stopping early ---------------------------------------------
#
# An engine that runs for more than a second takes ``progress=callable(fraction, message)`` and
# calls it (through ``report``) at least once a second, with the fraction done in [0, 1] and a
# sentence saying what it is doing. A callable that also takes a ``partial`` keyword receives
# the result so far (an engine-specific object whose computed entries never change afterwards),
# so that a page can draw learning curves while they grow. To stop early, the callable raises
# ``Cancelled``: the engine does not catch it, so it unwinds at once and returns nothing.


class Cancelled(Exception):
    """Raised by a progress callable to stop a long computation early."""


def check_progress(progress):
    """``progress`` validated: None or a callable."""
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be callable or None, got {describe(progress)}")
    return progress


@functools.lru_cache(maxsize=64)
def _takes_partial(progress) -> bool:
    try:
        parameters = inspect.signature(progress).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "partial" or p.kind == p.VAR_KEYWORD for p in parameters)


def report(progress, fraction: float, message: str, partial=None) -> None:
    """Call ``progress(fraction, message)``, with ``partial=`` when it takes one (see above)."""
    if progress is None:
        return
    try:
        takes = _takes_partial(progress)
    except TypeError:  # unhashable callable
        takes = False
    if takes and partial is not None:
        progress(fraction, message, partial=partial)
    else:
        progress(fraction, message)
