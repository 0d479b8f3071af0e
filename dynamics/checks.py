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
    "MAX_COUNT",
    "MAX_ABS",
    "check_array",
    "check_real",
    "check_flag",
    "check_instance",
    "check_choice",
    "check_finite_result",
    "check_executor",
    "check_budget",
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
#: Upper bound on the magnitude of features, moments and data entries: products and sums of a
#: few of them stay far from overflow.
MAX_ABS = 1e100
#: Default upper bound of ``check_count`` for any other size (samples, particles, checkpoints,
#: repetitions): 10**8 float64 entries are 0.8 GB, more than an explorer should ever allocate.
#: Functions whose cost grows faster than linearly in a count pass a smaller, documented ``high``.
MAX_COUNT = 100_000_000


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


def _refuse_non_numeric(name: str, value) -> np.ndarray:
    """``value`` as an array (no copy when it is one), refusing complex, object and text data.

    A complex array would otherwise be cast silently to its real part and an object array carried
    into a kernel; both are a ``TypeError`` naming the parameter.
    """
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged nested sequences
        raise ValueError(f"{name} must be a numeric array, got {describe(value)}") from exc
    kind = raw.dtype.kind
    if kind == "c":
        raise TypeError(f"{name} must be a real array, got complex dtype {raw.dtype}")
    if kind not in "biuf":
        raise TypeError(f"{name} must be a real numeric array, got {describe(value)} "
                        f"(dtype {raw.dtype})")
    return raw


def check_array(name: str, value, *, ndim: int | None = None, shape: tuple | None = None,
                dtype=np.float64, finite: bool = True, max_size: int | None = None,
                max_abs: float | None = None) -> np.ndarray:
    """Convert ``value`` to a contiguous array of ``dtype`` and check its shape and finiteness.

    ``shape`` may contain ``None`` for "any length" in that axis. Complex, object and string data
    raise ``TypeError``; an integer ``dtype`` refuses non-integral entries rather than truncating
    them; ``max_size`` caps the number of entries and ``max_abs`` their magnitude (1e308 is
    finite, but its square or a sum of a few is not).
    """
    raw = _refuse_non_numeric(name, value)
    if np.dtype(dtype).kind in "iu" and raw.dtype.kind == "f":
        if raw.size and not np.all(np.isfinite(raw)):
            raise ValueError(f"{name} must have finite integer entries, got {describe(raw)}")
        if raw.size and not np.all(raw == np.round(raw)):
            raise ValueError(f"{name} must have integer entries, got {describe(raw)}")
    try:
        arr = np.ascontiguousarray(raw, dtype=dtype)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"{name} must be a numeric array, got {describe(value)}") from exc
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-d array, got shape {arr.shape}")
    if shape is not None:
        if arr.ndim != len(shape) or any(
            want is not None and got != want for got, want in zip(arr.shape, shape)
        ):
            want_text = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"
            raise ValueError(f"{name} must have shape {want_text}, got shape {arr.shape}")
    if max_size is not None and arr.size > max_size:
        raise ValueError(f"{name} must have at most {max_size} entries, got {arr.size}")
    if finite and arr.size and not np.all(np.isfinite(arr)):
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(f"{name} must be finite, got {bad} NaN or infinite entries in {describe(arr)}")
    if max_abs is not None and arr.size and np.abs(arr).max() > max_abs:
        raise ValueError(f"{name} must have entries of magnitude at most {max_abs:g}, "
                         f"got {np.abs(arr).max():g}")
    return arr


def check_real(name: str, value, *, finite: bool = True) -> float:
    """A real scalar as a float: refuses bools, strings, complex numbers and other objects.

    A 0-d or one-element real array is accepted. With ``finite`` (the default) NaN and infinities
    are refused too.
    """
    if isinstance(value, (bool, np.bool_, str, bytes, complex, np.complexfloating)):
        raise ValueError(f"{name} must be a real number, got {describe(value)}")
    if isinstance(value, np.ndarray):
        if value.size != 1 or value.dtype.kind not in "iuf":
            raise ValueError(f"{name} must be a real number, got {describe(value)}")
        value = value.reshape(()).item()
    if not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {describe(value)}")
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"{name} must be a real number, got {describe(value)}") from exc
    if finite and not np.isfinite(x):
        raise ValueError(f"{name} must be finite, got {x!r}")
    return x


def check_flag(name: str, value) -> bool:
    """A flag: ``True`` or ``False`` (numpy bools too); anything else is a ``TypeError``."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {describe(value)}")


def check_instance(name: str, value, cls):
    """``value`` when it is an instance of ``cls`` (a class or a tuple of classes), else a
    ``TypeError`` naming the parameter and the expected class."""
    if isinstance(value, cls):
        return value
    classes = cls if isinstance(cls, tuple) else (cls,)
    expected = " or ".join(c.__name__ for c in classes)
    raise TypeError(f"{name} must be a {expected}, got {describe(value)} "
                    f"of type {type(value).__name__}")


def check_choice(name: str, value, choices):
    """``value`` when it is one of ``choices`` (compared by equality, strings exactly)."""
    choices = tuple(choices)
    if not isinstance(value, (str, numbers.Number)) or isinstance(value, bool) \
            or value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {describe(value)}")
    return value


def check_budget(names: str, amount: float, limit: float, unit: str) -> None:
    """Refuse a request whose total size, a product of several arguments (``amount`` ``unit``:
    steps * L * L spins, iterations * 2^n updates, ...), exceeds ``limit``, with a ``ValueError``
    naming the arguments (``names``) to reduce. Each argument alone may be within its own cap."""
    if amount > limit:
        raise ValueError(f"{names}: {amount:.3g} {unit} is more than the {limit:.3g} allowed; "
                         f"reduce {names}")


def check_executor(executor):
    """``executor`` validated for ``dynamics.sweep.sweep``: None (run in this process) or an
    object with a callable ``submit`` returning futures (a ``concurrent.futures`` executor, a
    ``dask.distributed.Client``)."""
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise TypeError(f"executor must be None or have a submit method (a concurrent.futures "
                        f"executor or a dask.distributed Client), got {describe(executor)}")
    return executor


def check_finite_result(name: str, value, hint: str):
    """Refuse a result that diverged: ``value`` (an array or a scalar) returned when every entry
    is finite, else a ``ValueError`` saying that ``name`` diverged and ``hint``, what to change
    (for example "use a smaller step size eta")."""
    arr = np.asarray(value)
    if arr.dtype.kind in "fc" and arr.size and not np.all(np.isfinite(arr)):
        bad = int(arr.size - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(f"the run diverged: {name} has {bad} NaN or infinite entries "
                         f"of {arr.size}; {hint}")
    return value


def check_features(features, *, min_states: int = 2) -> np.ndarray:
    """Check a feature table ``phi`` of shape ``(D, K)``: row d is phi(x_d).

    Returns a C-contiguous float64 copy-or-view. D must lie in [min_states, MAX_STATES] and K in
    [1, MAX_FEATURES].
    """
    phi = check_array("features", features, ndim=2, max_abs=MAX_ABS)
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
    return check_array("moments", moments, shape=(n_features,), max_abs=MAX_ABS)


def check_count(name: str, value, *, low: int = 1, high: int = MAX_COUNT) -> int:
    """Check an integer count in [low, high] (bools, strings and non-integral floats refused).

    ``high`` is the documented cap of the size (``MAX_COUNT`` unless the caller passes its own),
    so that a huge request fails at once with a ``ValueError`` instead of a ``MemoryError``, an
    ``OverflowError`` or a hang.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer in [{low}, {high}], got {describe(value)}")
    value = int(value)
    if not low <= value <= high:
        raise ValueError(f"{name} must be an integer in [{low}, {high}], got {value}")
    return value


def check_positive(name: str, value, *, allow_zero: bool = False) -> float:
    """Check a finite real scalar > 0 (or >= 0 with ``allow_zero``)."""
    x = check_real(name, value, finite=False)
    if not np.isfinite(x) or x < 0 or (x == 0 and not allow_zero):
        allowed = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be finite and {allowed}, got {x!r}")
    return x


def check_in_range(name: str, value, low: float, high: float, *, low_open: bool = False,
                   high_open: bool = False) -> float:
    """Check a finite real scalar in the interval [low, high] (ends open when asked)."""
    x = check_real(name, value, finite=False)
    ok = (np.isfinite(x) and (x > low if low_open else x >= low)
          and (x < high if high_open else x <= high))
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
    """KL(p || q) = sum_i p_i log(p_i / q_i) in nats, with 0 log 0 = 0; inf where q_i = 0 < p_i.

    ``p`` and ``q`` are finite, non-negative arrays of the same shape (any number of axes; the
    sum runs over all entries); they are not renormalised.
    """
    p = check_array("p", p)
    q = check_array("q", q)
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same shape, got p {p.shape} and q {q.shape}")
    for name, arr in (("p", p), ("q", q)):
        if arr.size and arr.min() < 0:
            raise ValueError(f"{name} must have non-negative entries, got minimum {arr.min()!r}")
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


def check_signed_data(X, y) -> tuple[np.ndarray, np.ndarray]:
    """Inputs ``X`` (cases x features, finite) and labels ``y`` in {-1, +1}, one a case (the
    perceptron-style engines: conditional herding, Opper's batch posterior)."""
    X = check_array("X", X, ndim=2, max_abs=MAX_ABS)
    y = check_array("y", y, shape=(X.shape[0],))
    if not np.all(np.abs(y) == 1):
        raise ValueError("y must hold labels -1 and +1")
    return X, y
