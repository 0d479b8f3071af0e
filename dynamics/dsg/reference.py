"""The references of ``dsg`` (Dai's thesis, chapter 3): the RBF kernel and the exact kernel
ridge and GP solutions it is measured against, the median-distance bandwidth, the 2-D task of
Sec 3.6.1, the log-log slope of an error curve, and the input checks they share with the
doubly stochastic engines. Public names are re-exported by ``dynamics.dsg``."""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

from ..checks import MAX_ABS, as_generator, check_array, check_count, check_in_range

__all__: list[str] = []  # private module: ``dynamics.dsg`` lists and exports these names

#: Largest number of points a dense kernel matrix (``rbf_kernel``, ``kernel_ridge``, the GP's
#: closed form) is built on: 20,000 x 20,000 float64 is 3.2 GB.
MAX_POINTS = 20_000
#: Largest input dimension.
MAX_DIM = 10_000
#: Bandwidths and noise levels lie in [1 / MAX_SCALE, MAX_SCALE], data entries within MAX_ABS.
MAX_SCALE = 1e100


def _check_scale(name: str, value, *, low: float = 1.0 / MAX_SCALE) -> float:
    """A positive scale (bandwidth, noise) in [low, MAX_SCALE]: its square neither overflows nor
    underflows to 0."""
    return check_in_range(name, value, low, MAX_SCALE)


def _check_points(name: str, value) -> np.ndarray:
    """A 2-d array of points, finite, entries within MAX_ABS."""
    return check_array(name, value, ndim=2, max_abs=MAX_ABS)


def _check_test(X_test, dim: int) -> np.ndarray:
    """Test inputs: a 2-D array with ``dim`` columns."""
    X_test = _check_points("X_test", X_test)
    if X_test.shape[1] != dim:
        raise ValueError(f"X_test must have {dim} columns, got {X_test.shape[1]}")
    return X_test


def _check_data(X, y, *, max_points: int = 100_000_000):
    X = _check_points("X", X)
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"X must hold at least one data point of at least one coordinate, "
                         f"got shape {X.shape}")
    if X.shape[0] > max_points:
        raise ValueError(f"X may hold at most {max_points:,} points here, got {X.shape[0]:,}")
    if X.shape[1] > MAX_DIM:
        raise ValueError(f"X may have at most {MAX_DIM} columns, got {X.shape[1]}")
    y = check_array("y", y, shape=(X.shape[0],), max_abs=MAX_ABS)
    return X, y


def _check_test_pair(X_test, y_test, dim: int):
    """(X_test, y_test) both given (checked) or both None."""
    if X_test is None and y_test is None:
        return None
    if X_test is None or y_test is None:
        missing = "X_test" if X_test is None else "y_test"
        raise ValueError(f"X_test and y_test go together: {missing} is None")
    X_test = _check_test(X_test, dim)
    return X_test, check_array("y_test", y_test, shape=(X_test.shape[0],),
                                     max_abs=MAX_ABS)


def rbf_kernel(A, B_, bandwidth: float) -> np.ndarray:
    """The Gaussian RBF kernel matrix k(A_i, B_j) = exp(-||A_i - B_j||^2 / (2 bandwidth^2)):
    A (n, d), B_ (p, d), each with at most ``MAX_POINTS`` rows."""
    A = _check_points("A", A)
    B_ = _check_points("B_", B_)
    if A.shape[1] != B_.shape[1]:
        raise ValueError(f"A and B_ must have the same number of columns, got shapes "
                         f"{A.shape} and {B_.shape}")
    for name, arr in (("A", A), ("B_", B_)):
        if len(arr) > MAX_POINTS:
            raise ValueError(f"{name} may have at most {MAX_POINTS:,} rows, got {len(arr):,}")
    bandwidth = _check_scale("bandwidth", bandwidth)
    # scipy's squared distances: no |a|^2 + |b|^2 - 2 a.b cancellation (or inf - inf)
    with np.errstate(over="ignore", under="ignore"):
        return np.exp(-cdist(A, B_, "sqeuclidean") / (2.0 * bandwidth * bandwidth))


def kernel_ridge(X, y, *, bandwidth: float, nu: float):
    """The exact minimiser of (1/n) sum 1/2 (f(x_k) - y_k)^2 + nu/2 ||f||^2 in the RBF RKHS:
    f* = sum beta_k k(x_k, .), beta = (K + n nu I)^-1 y. Returns a predict function."""
    X, y = _check_data(X, y, max_points=MAX_POINTS)
    bandwidth = _check_scale("bandwidth", bandwidth)
    nu = _check_scale("nu", nu)
    K = rbf_kernel(X, X, bandwidth)
    beta = np.linalg.solve(K + len(X) * nu * np.eye(len(X)), y)

    def predict(Z):
        return rbf_kernel(_check_points("X", Z), X, bandwidth) @ beta

    predict.beta = beta
    return predict


def median_bandwidth(X, *, factor: float = 0.1, max_points: int = 2000, seed=0) -> float:
    """``factor`` times the median pairwise distance (on at most ``max_points`` points, drawn
    with ``seed``); at least two distinct points are needed."""
    X = _check_points("X", X)
    if X.shape[0] < 2 or X.shape[1] == 0:
        raise ValueError(f"X must hold at least two points, got shape {X.shape}")
    factor = _check_scale("factor", factor)
    max_points = check_count("max_points", max_points, low=2, high=MAX_POINTS)
    rng = as_generator(seed)
    if len(X) > max_points:
        X = X[rng.choice(len(X), max_points, replace=False)]
    sq = (X * X).sum(1)[:, None] + (X * X).sum(1)[None, :] - 2 * X @ X.T
    iu = np.triu_indices(len(X), 1)
    median = float(np.median(np.sqrt(np.maximum(sq[iu], 0.0))))
    if not 0.0 < median < np.inf:
        raise ValueError(f"X must have a positive, finite median pairwise distance, got {median!r}")
    return float(factor * median)


def synthetic_truth(X) -> np.ndarray:
    """The noiseless function of Sec 3.6.1: cos(0.5 pi ||x||) exp(-0.1 pi ||x||)."""
    X = _check_points("X", X)
    if X.shape[1] == 0:
        raise ValueError(f"X must have at least one column, got shape {X.shape}")
    r = np.linalg.norm(X, axis=1)
    return np.cos(0.5 * np.pi * r) * np.exp(-0.1 * np.pi * r)


def synthetic_2d(n: int, *, noise: float = 0.1, seed=None):
    """Sec 3.6.1: x ~ U[-5, 5]^2, y = ``synthetic_truth(x)`` + noise e."""
    n = check_count("n", n, low=1, high=10_000_000)
    noise = check_in_range("noise", noise, 0.0, MAX_SCALE)
    rng = as_generator(seed)
    X = rng.uniform(-5, 5, size=(n, 2))
    return X, synthetic_truth(X) + noise * rng.standard_normal(n)


def gp_closed_form(X, y, X_test, *, noise: float, bandwidth: float):
    """The GP posterior at ``X_test`` (eq 3.9), k the RBF kernel, noise variance sigma^2 =
    ``noise``: mean k*^T (K + sigma^2 I)^-1 y, variance k(x*, x*) - k*^T (K + sigma^2 I)^-1 k*."""
    X, y = _check_data(X, y, max_points=MAX_POINTS)
    X_test = _check_test(X_test, X.shape[1])
    noise = _check_scale("noise", noise)
    bandwidth = _check_scale("bandwidth", bandwidth)
    K = rbf_kernel(X, X, bandwidth)
    Ks = rbf_kernel(X_test, X, bandwidth)
    chol = np.linalg.cholesky(K + noise * np.eye(len(X)))
    solve = lambda b: np.linalg.solve(chol.T, np.linalg.solve(chol, b))  # noqa: E731
    mean = Ks @ solve(y)
    var = 1.0 - np.einsum("ij,ji->i", Ks, solve(Ks.T))
    return mean, var


def loglog_slope(x, y) -> float:
    """The least-squares slope of log y against log x over the points where both are > 0 (at
    least two distinct x needed)."""
    x_in, x = x, check_array("x", x, ndim=1, max_abs=MAX_ABS)
    if np.ndim(x_in) == 0:  # check_array reads a scalar as a 1-element array
        raise ValueError(f"x must be a 1-d array, got the scalar {x_in!r}")
    y = check_array("y", y, shape=x.shape, max_abs=MAX_ABS)
    keep = (x > 0) & (y > 0)
    if len(np.unique(x[keep])) < 2:
        raise ValueError(f"x and y must have at least two points with distinct x > 0 and y > 0, "
                         f"got {int(keep.sum())} positive points")
    return float(np.polyfit(np.log(x[keep]), np.log(y[keep]), 1)[0])
