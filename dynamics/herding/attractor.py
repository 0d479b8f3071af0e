"""Herding's weight space (Chen & Welling, Sec 1.2.4, Fig 1.10 and eq 1.10): the cones in which
each state wins (Fig 1.10) and the Tipi function (eq 1.10). The dimension of the attractor the
weights trace (Fig 1.11) is in ``dynamics.herding.dimension``. Conventions: see
``dynamics.herding``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dynamics.checks import (
    check_array,
    check_features,
    check_moments,
)

__all__ = ["ConeSectors", "cone_labels", "cone_sectors", "tipi"]

#: Points per chunk in `cone_labels` / `tipi` score tables (bounds their temporary memory).
_CHUNK_ENTRIES = 1 << 22


# --------------------------------------------------------------------------------------------
# Weight space: cones (Fig 1.10) and the Tipi function (eq 1.10)
# --------------------------------------------------------------------------------------------
def _check_points(points, K: int) -> np.ndarray:
    pts = check_array("points", points)
    if pts.ndim < 1 or pts.shape[-1] != K:
        raise ValueError(
            f"points must have shape (N, K) with K = {K} (the number of features), "
            f"got shape {pts.shape}"
        )
    return pts


def _scores_reduce(phi: np.ndarray, pts: np.ndarray):
    """argmax_d and max_d of points @ phi_d, chunked to bound memory.

    Scores are computed for the distinct feature rows only and then copied to their duplicates,
    so identical rows get bit-identical scores (whatever BLAS does with matrix edges) and an exact
    tie between duplicates always goes to the lowest index.
    """
    D, K = phi.shape
    unique_rows, inverse = np.unique(phi, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    flat = pts.reshape(-1, K)
    n = flat.shape[0]
    labels = np.empty(n, dtype=np.int64)
    best = np.empty(n, dtype=np.float64)
    chunk = max(1, _CHUNK_ENTRIES // D)
    for start in range(0, n, chunk):
        scores = (flat[start:start + chunk] @ unique_rows.T)[:, inverse]
        idx = np.argmax(scores, axis=1)  # first maximum: ties to the lowest index
        labels[start:start + chunk] = idx
        best[start:start + chunk] = np.take_along_axis(scores, idx[:, None], axis=1)[:, 0]
    return labels.reshape(pts.shape[:-1]), best.reshape(pts.shape[:-1])


def cone_labels(features, points) -> np.ndarray:
    """The state whose cone contains each weight vector: argmax_d w . phi(x_d) (eq 1.7, Fig 1.10).

    Weight space is partitioned into cones from the origin, one per state; herding translates w
    by phi_bar - phi(x) inside cone x. Ties go to the lowest index, as in `herd`, so
    ``cone_labels(features, herd(...).weights[:-1]) == herd(...).states``.

    Parameters
    ----------
    features : array_like, shape (D, K)
    points : array_like, shape (N, K) (or any (..., K))
        Weight vectors w.

    Returns
    -------
    ndarray of int64, shape (N,) (or points.shape[:-1])
    """
    phi = check_features(features)
    pts = _check_points(points, phi.shape[1])
    return _scores_reduce(phi, pts)[0]


@dataclass(frozen=True)
class ConeSectors:
    """The cones of weight space cut by the plane of (w_1, w_2), as angular sectors.

    Sector i holds the directions (cos t, sin t, 0, ..., 0) with ``start[i] <= t < stop[i]``
    (radians, counter-clockwise, ``start[0] = 0``, ``stop[-1] = 2 pi``); ``states[i]`` is the
    state whose cone contains them. Neighbouring sectors have different states, except that the
    first and the last may be one cone split at t = 0.
    """

    states: np.ndarray
    start: np.ndarray
    stop: np.ndarray


def cone_sectors(features) -> ConeSectors:
    """The cones of Fig 1.10 in the plane of the first two weight coordinates, exactly.

    A cone is the set of w where state x wins the argmax of eq 1.7. It is invariant to scaling
    w by a positive number, so in the plane w = r (cos t, sin t, 0, ..., 0) it is a union of
    sectors from the origin. Between two neighbouring states x and y the boundary is where
    (phi(x) - phi(y)) . (cos t, sin t) = 0, i.e. t = atan2(dy, dx) +- pi/2 for the difference
    (dx, dy) of their first two features. All such angles are the candidate boundaries; the
    state between two consecutive candidates is `cone_labels` at the middle angle (so ties go
    to the lowest index, as in `herd`), and equal neighbours are merged.

    Parameters
    ----------
    features : array_like, shape (D, K), K >= 2

    Returns
    -------
    ConeSectors
    """
    phi = check_features(features)
    D, K = phi.shape
    if K < 2:
        raise ValueError(f"features must have K >= 2 columns for the (w1, w2) plane, got K = {K}")
    plane = phi[:, :2]
    diff = (plane[:, None, :] - plane[None, :, :]).reshape(-1, 2)
    diff = diff[np.any(diff != 0.0, axis=1)]
    base = np.arctan2(diff[:, 1], diff[:, 0])
    cuts = np.mod(np.concatenate([base + np.pi / 2, base - np.pi / 2]), 2 * np.pi)
    cuts = np.unique(np.concatenate([[0.0, 2 * np.pi], cuts]))
    cuts = cuts[np.concatenate([[True], np.diff(cuts) > 1e-12])]  # drop rounding twins
    if cuts[-1] < 2 * np.pi:
        cuts = np.append(cuts, 2 * np.pi)
    else:
        cuts[-1] = 2 * np.pi
    middle = 0.5 * (cuts[:-1] + cuts[1:])
    directions = np.zeros((middle.size, K))
    directions[:, 0], directions[:, 1] = np.cos(middle), np.sin(middle)
    labels = cone_labels(phi, directions)
    keep = np.concatenate([[True], labels[1:] != labels[:-1]])
    start = cuts[:-1][keep]
    stop = np.append(start[1:], 2 * np.pi)
    return ConeSectors(states=labels[keep], start=start, stop=stop)


def tipi(features, moments, points) -> np.ndarray:
    """The Tipi function l0(w) = w . phi_bar - max_x w . phi(x) (eq 1.10, Fig 1.2).

    The zero-temperature log-likelihood: continuous, piecewise linear, concave, scale free
    (l0(beta w) = beta l0(w) for beta >= 0), with l0(0) = 0 and l0 <= 0 when phi_bar lies in the
    convex hull of the features. Herding is gradient ascent on it with a fixed step, and
    ``tipi(features, moments, herd(...).weights[:-1])`` equals ``herd(...).cycling``.

    Parameters
    ----------
    features : array_like, shape (D, K)
    moments : array_like, shape (K,)
    points : array_like, shape (N, K) (or any (..., K))
        Weight vectors w.

    Returns
    -------
    ndarray of float64, shape (N,) (or points.shape[:-1])
    """
    phi = check_features(features)
    phi_bar = check_moments(moments, phi.shape[1])
    pts = _check_points(points, phi.shape[1])
    _, best = _scores_reduce(phi, pts)
    return pts @ phi_bar - best
