"""Herding's weight space (Chen & Welling, Sec 1.2.4, Figs 1.10-1.11): the cones in which each
state wins (Fig 1.10), the Tipi function (eq 1.10) and the box-counting dimension of the
attractor the weights trace. Conventions: see ``dynamics.herding``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dynamics._common import (
    check_array,
    check_count,
    check_features,
    check_in_range,
    check_moments,
    check_progress,
    report,
)

__all__ = ["BoxDimension", "ConeSectors", "box_dimension", "cone_labels", "cone_sectors", "tipi"]

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


# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BoxDimension:
    """Box-counting dimension: ``counts[k]`` boxes of side ``sizes[k]`` (in units of the points'
    bounding box) hold a point; ``dimension`` is the slope of log count against log(1 / size)
    over the scales flagged in ``used``."""

    dimension: float
    sizes: np.ndarray
    counts: np.ndarray
    used: np.ndarray


def box_dimension(points, *, min_boxes: int = 4, max_fill: float = 0.1,
                  levels: int = 16, progress=None) -> BoxDimension:
    """The box-counting dimension of a point set (the Fig 1.11 attractor's is between 0 and 1,
    L383): points scaled into the unit cube of their bounding box, counted in boxes of side
    2^-k for k = 0..levels-1. The fit uses the scales where at least ``min_boxes`` boxes are
    occupied (coarser ones only see the bounding box) and where the boxes outnumber the points'
    resolution: a box count above ``max_fill`` times the number of points means most points sit
    alone in their box, and the count saturates. ``progress(fraction, message)``, if given, is
    called after each scale (each costs about the same: a sort of the points' boxes).
    """
    pts = check_array("points", points, ndim=2)
    n, d = pts.shape
    if n < 10:
        raise ValueError(f"points must hold at least 10 points, got {n}")
    levels = check_count("levels", levels, low=3, high=40)
    min_boxes = check_count("min_boxes", min_boxes, low=1, high=n)
    max_fill = check_in_range("max_fill", max_fill, 0.0, 1.0, low_open=True)
    check_progress(progress)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    span = float(np.max(hi - lo))
    if span == 0:
        raise ValueError("points must not all coincide")
    unit = (pts - lo) / span
    sizes = 2.0 ** -np.arange(levels)
    counts = np.empty(levels, dtype=np.int64)
    for k, size in enumerate(sizes):
        cells = np.minimum(np.floor(unit / size), 2**k - 1).astype(np.int64)
        counts[k] = len(np.unique(cells, axis=0))
        report(progress, (k + 1) / levels, f"boxes of side 2^-{k}: {counts[k]:,} occupied")
    used = (counts >= min_boxes) & (counts <= max_fill * n)
    if used.sum() < 2:
        raise ValueError(
            f"too few scales to fit: {n} points give {used.sum()} usable scales (need 2); "
            "pass more points or a larger max_fill")
    slope = float(np.polyfit(np.log(1 / sizes[used]), np.log(counts[used]), 1)[0])
    return BoxDimension(dimension=slope, sizes=sizes, counts=counts, used=used)
