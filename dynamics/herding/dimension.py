"""The dimension of herding's attractor (Chen & Welling, Sec 1.2.4 and Fig 1.11: "Hausdorff
dimension for this example is between 0 and 1", L383), measured at the scales where it means
something: box counting with its local slope at every box size (the range of slopes, not one
number) and the correlation dimension of Grassberger & Procaccia (1983) beside it, on the weights
of a long run after a burn-in. Conventions: see ``dynamics.herding``.

Why local slopes: a fit over the coarsest boxes sees the outline of the attractor's bounding box
(the slope between sides 1/2 and 1/128 of the default page model is about 1.6), and a fit that
runs into boxes holding one point each sees the sample, not the set (the slope falls towards 0).
A dimension is read where the local slopes settle between those two ends; how far they still
wander there is the honest error bar.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dynamics.checks import (
    MAX_STEPS,
    as_generator,
    check_array,
    check_count,
    check_features,
    check_in_range,
    check_moments,
    check_positive,
    check_progress,
    check_real,
    report,
)
from dynamics.herding.samples import RandomModel, herd

__all__ = ["BoxDimension", "box_dimension", "CorrelationDimension", "correlation_dimension",
           "AttractorDimension", "attractor_dimension", "hexagon_model", "HEXAGON_MOMENTS",
           "COARSEST_SIDE"]

#: The largest box side (and correlation radius), in units of the bounding box, that a fit
#: uses by default: coarser boxes see the bounding box's outline more than the set.
COARSEST_SIDE = 2.0 ** -4
#: The target of the hexagon example (`hexagon_model`): phi_bar near the hexagon's centre.
HEXAGON_MOMENTS = (0.1 * np.sqrt(2.0), 0.1 * np.sqrt(3.0))
#: Most points `correlation_dimension` compares pairwise (its sample; the cost grows about as
#: its square at small radii).
MAX_SAMPLE = 200_000


def _unit_points(pts: np.ndarray, name: str = "points") -> np.ndarray:
    """The points scaled into the unit cube of their bounding box (its longest side 1)."""
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    span = float(np.max(hi - lo))
    if span == 0:
        raise ValueError(f"{name} must not all coincide")
    return (pts - lo) / span


def _local_slopes(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Slopes of y against x between consecutive entries."""
    return np.diff(y) / np.diff(x)


def _fit(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.polyfit(x, y, 1)[0])


# --------------------------------------------------------------------------------------------
# Box counting
# --------------------------------------------------------------------------------------------
class _LocalSlopes:
    """What a dimension measured from local slopes says of them: ``slopes[k]`` between scales
    ``k`` and ``k + 1``, ``used`` the scales a fit may use."""

    @property
    def slopes_used(self) -> np.ndarray:
        """Flags of the local slopes between two used scales."""
        return self.used[:-1] & self.used[1:]

    @property
    def slope_range(self) -> tuple[float, float]:
        """(smallest, largest) local slope between used scales."""
        s = self.slopes[self.slopes_used]
        return float(s.min()), float(s.max())


@dataclass(frozen=True)
class BoxDimension(_LocalSlopes):
    """Box-counting dimension: ``counts[k]`` boxes of side ``sizes[k] = 2^-k`` (in units of the
    points' bounding box) hold a point. ``slopes[k]`` is the local slope of log N against
    log(1 / side) between sides ``sizes[k]`` and ``sizes[k + 1]``; ``used`` flags the scales a
    fit may use (finer than ``COARSEST_SIDE``, at least ``min_boxes`` boxes, not saturated) and
    ``dimension`` is the least-squares slope over them. `slope_range` is the smallest and the
    largest local slope between used scales: where the measured dimension lies."""

    dimension: float
    sizes: np.ndarray
    counts: np.ndarray
    used: np.ndarray
    slopes: np.ndarray


def _morton(cells: np.ndarray, bits: int) -> np.ndarray:
    """Morton (Z-order) codes of integer cells (N, d) from their lowest ``bits`` bits: bit b of
    coordinate j goes to bit b d + j, so the boxes of every coarser level are runs of sorted
    codes (their prefixes)."""
    n, d = cells.shape
    code = np.zeros(n, dtype=np.int64)
    for b in range(bits):
        for j in range(d):
            code |= ((cells[:, j] >> b) & 1) << (b * d + j)
    return code


def box_dimension(points, *, min_boxes: int = 4, max_fill: float = 0.1, levels: int = 16,
                  coarsest: float = COARSEST_SIDE, progress=None) -> BoxDimension:
    """The box-counting dimension of a point set, scale by scale (Chen & Welling, Fig 1.11:
    "Hausdorff dimension for this example is between 0 and 1", L383).

    The points are scaled into the unit cube of their bounding box and counted in boxes of side
    2^-k for k = 0..levels-1: N(eps) boxes of side eps hold a point, and the dimension is the
    slope of log N(eps) against log(1 / eps) where it settles. The local slope between every two
    neighbouring scales is returned with the counts. A fit uses the scales of side at most
    ``coarsest`` (coarser boxes see the outline of the bounding box), where at least
    ``min_boxes`` boxes are occupied and where the count is at most ``max_fill`` times the number
    of points (beyond that most points sit alone in their box and the count saturates, so the
    slope falls towards 0: more points resolve finer scales).

    Parameters
    ----------
    points : array_like, shape (N, d)
        At least 10 finite points, not all equal.
    min_boxes : int
        Fewest occupied boxes at a fitted scale, >= 1.
    max_fill : float in (0, 1]
        Largest count at a fitted scale, as a fraction of N.
    levels : int in [3, 40]
        Scales 2^0 .. 2^-(levels-1).
    coarsest : float in (0, 1]
        Largest box side a fit uses (default ``COARSEST_SIDE`` = 1/16).
    progress : callable(fraction, message), optional
        Called after the sort and after each scale.

    Returns
    -------
    BoxDimension

    Notes
    -----
    The boxes are counted from one sort: the points' boxes at the finest level get Morton
    (Z-order) codes, in which the boxes of every coarser level are runs of neighbouring codes,
    so a count is the number of changes of a code prefix (levels finer than 62 / d bits per
    coordinate are counted by ``numpy.unique`` of their rows).
    """
    pts = check_array("points", points, ndim=2)
    n, d = pts.shape
    if n < 10:
        raise ValueError(f"points must hold at least 10 points, got {n}")
    if d < 1:
        raise ValueError(f"points must have at least 1 coordinate, got shape {pts.shape}")
    levels = check_count("levels", levels, low=3, high=40)
    min_boxes = check_count("min_boxes", min_boxes, low=1, high=n)
    max_fill = check_in_range("max_fill", max_fill, 0.0, 1.0, low_open=True)
    coarsest = check_in_range("coarsest", coarsest, 0.0, 1.0, low_open=True)
    check_progress(progress)
    unit = _unit_points(pts)
    top = levels - 1
    cells = np.minimum(np.floor(unit * 2.0 ** top), 2**top - 1).astype(np.int64)
    bits = min(top, 62 // d)
    codes = np.sort(_morton(cells >> (top - bits), bits))
    report(progress, 1 / (levels + 1), "sorting the points' boxes")
    sizes = 2.0 ** -np.arange(levels)
    counts = np.empty(levels, dtype=np.int64)
    for k in range(levels):
        if k <= bits:
            prefix = codes >> (d * (bits - k))
            counts[k] = 1 + int(np.count_nonzero(prefix[1:] != prefix[:-1]))
        else:
            counts[k] = len(np.unique(cells >> (top - k), axis=0))
        report(progress, (k + 2) / (levels + 1), f"boxes of side 2^-{k}: {counts[k]:,} occupied")
    used = (sizes <= coarsest) & (counts >= min_boxes) & (counts <= max_fill * n)
    if used.sum() < 2:
        raise ValueError(
            f"too few scales to fit: {n} points give {used.sum()} usable scales of side at most "
            f"{coarsest:g} (need 2); pass more points, a larger max_fill or a larger coarsest")
    x, y = np.log(1 / sizes), np.log(counts)
    return BoxDimension(dimension=_fit(x[used], y[used]), sizes=sizes, counts=counts, used=used,
                        slopes=_local_slopes(x, y))


# --------------------------------------------------------------------------------------------
# Correlation dimension (Grassberger & Procaccia)
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CorrelationDimension(_LocalSlopes):
    """Correlation dimension: ``correlation[k]`` = C(r) is the fraction of pairs of the
    ``sample`` points closer than ``radii[k]`` (units of the bounding box, decreasing by half
    octaves), ``pairs[k]`` their number; ``slopes[k]`` the local slope of log C against log r
    between ``radii[k]`` and ``radii[k + 1]``; ``dimension`` the least-squares slope over the
    ``used`` radii and `slope_range` the smallest and largest local slope between them."""

    dimension: float
    radii: np.ndarray
    correlation: np.ndarray
    pairs: np.ndarray
    used: np.ndarray
    slopes: np.ndarray
    sample: int


def correlation_dimension(points, *, sample: int = 20_000, min_pairs: int = 10_000,
                          min_neighbours: float = 100.0, levels: int = 16,
                          coarsest: float = COARSEST_SIDE, seed=0,
                          progress=None) -> CorrelationDimension:
    """The correlation dimension of a point set (Grassberger & Procaccia, *Characterization of
    strange attractors*, PRL 50, 1983): C(r), the fraction of pairs of points closer than r,
    grows as r^nu for small r, and nu is at most the box-counting dimension (Fig 1.11's
    attractor: "between 0 and 1").

    ``sample`` points drawn at random without replacement (all of them if there are fewer) are
    scaled into the unit cube of the full set's bounding box and their pairs within r counted by
    ``scipy.spatial.cKDTree.count_neighbors`` (Euclidean distance) at r = 2^-(j/2), j = 2 ..
    2 levels. Random sampling keeps pairs of points close in time (a Theiler window's concern)
    a negligible share. A fit uses the radii of at most ``coarsest`` with at least
    ``min_pairs`` pairs in the sample (fewer make the count's noise dominate the slope) and at
    which a point of the whole set has on average at least ``min_neighbours`` others within r,
    C(r) (N - 1) >= min_neighbours: a herding orbit is a low-discrepancy sequence, more evenly
    spread than random points, and its pair distances within a few times its own spacing follow
    its gaps, not the set (the local slopes there jump between 0 and 4).

    Parameters
    ----------
    points : array_like, shape (N, d)
        At least 10 finite points, not all equal.
    sample : int in [10, MAX_SAMPLE]
    min_pairs : int >= 1
    min_neighbours : float >= 0
    levels : int in [3, 40]
    coarsest : float in (0, 1]
    seed : int | numpy.random.Generator | None
        Draws the sample.
    progress : callable(fraction, message), optional

    Returns
    -------
    CorrelationDimension
    """
    from scipy.spatial import cKDTree

    pts = check_array("points", points, ndim=2)
    n, d = pts.shape
    if n < 10:
        raise ValueError(f"points must hold at least 10 points, got {n}")
    sample = check_count("sample", sample, low=10, high=MAX_SAMPLE)
    min_pairs = check_count("min_pairs", min_pairs)
    min_neighbours = check_positive("min_neighbours", min_neighbours, allow_zero=True)
    levels = check_count("levels", levels, low=3, high=40)
    coarsest = check_in_range("coarsest", coarsest, 0.0, 1.0, low_open=True)
    rng = as_generator(seed)
    check_progress(progress)
    unit = _unit_points(pts)
    m = min(sample, n)
    if m < n:
        unit = unit[rng.choice(n, size=m, replace=False)]
    radii = 2.0 ** -(np.arange(2, 2 * levels + 1) / 2)
    report(progress, 0.1, f"building a k-d tree of {m:,} points")
    tree = cKDTree(unit)
    counted = tree.count_neighbors(tree, radii[::-1])[::-1]  # ordered pairs, self-pairs included
    pairs = ((np.asarray(counted, dtype=np.int64) - m) // 2).astype(np.int64)
    report(progress, 1.0, f"pairs counted at {radii.size} radii")
    total = m * (m - 1) / 2
    correlation = pairs / total
    used = ((radii <= coarsest) & (pairs >= min_pairs)
            & (correlation * (n - 1) >= min_neighbours))
    if used.sum() < 2:
        raise ValueError(
            f"too few radii to fit: a sample of {m} of {n} points gives {used.sum()} radii of at "
            f"most {coarsest:g} with {min_pairs} pairs or more and {min_neighbours:g} "
            "neighbours a point (need 2); pass more points, a larger sample, a smaller "
            "min_pairs or min_neighbours, or a larger coarsest")
    with np.errstate(divide="ignore", invalid="ignore"):
        x, y = np.log(radii), np.log(correlation)
        slopes = _local_slopes(x, y)
    slopes = np.where(np.isfinite(slopes), slopes, np.nan)
    return CorrelationDimension(dimension=_fit(x[used], y[used]), radii=radii,
                                correlation=correlation, pairs=pairs, used=used, slopes=slopes,
                                sample=m)


# --------------------------------------------------------------------------------------------
# The attractor of a herding run
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AttractorDimension:
    """`attractor_dimension`: the ``box`` counting and the ``correlation`` dimension of the
    weights w_t of a herding run, t = burn_in + 1 .. burn_in + steps (``steps`` points), and
    whether that run kept the Tipi function l_0(w) <= 0 at every step (``cycling_holds``,
    Fig 1.2, eq 1.40)."""

    box: BoxDimension
    correlation: CorrelationDimension
    steps: int
    burn_in: int
    cycling_holds: bool


def attractor_dimension(features, moments, *, steps: int = 1_000_000, burn_in: int = 10_000,
                        w0=None, eta: float = 1.0, sample: int = 20_000, seed=0,
                        progress=None) -> AttractorDimension:
    """The dimension of the attractor herding's weights trace (Chen & Welling, Sec 1.2.4,
    Fig 1.11): herd ``burn_in + steps`` steps (eqs 1.7-1.8, `herd`), drop w_0 .. w_burn_in (the
    transient from ``w0``), and measure the remaining ``steps`` weights by `box_dimension` and
    `correlation_dimension` (its ``sample`` drawn with ``seed``), each with its local slopes.

    Parameters
    ----------
    features : array_like, shape (D, K)
    moments : array_like, shape (K,)
    steps : int >= 100
        Points measured; burn_in + steps <= MAX_STEPS.
    burn_in : int >= 0
    w0, eta : as in `herd`
    sample : int, seed
        As in `correlation_dimension`.
    progress : callable(fraction, message), optional

    Returns
    -------
    AttractorDimension
    """
    phi = check_features(features)
    phi_bar = check_moments(moments, phi.shape[1])
    steps = check_count("steps", steps, low=100, high=MAX_STEPS)
    burn_in = check_count("burn_in", burn_in, low=0, high=MAX_STEPS)
    if steps + burn_in > MAX_STEPS:
        raise ValueError(f"steps + burn_in must be at most {MAX_STEPS:,}, got {steps + burn_in:,}")
    check_real("eta", eta)
    sample = check_count("sample", sample, low=10, high=MAX_SAMPLE)
    rng = as_generator(seed)
    check_progress(progress)
    report(progress, 0.0, f"herding {burn_in + steps:,} steps")
    run = herd(phi, phi_bar, burn_in + steps, w0=w0, eta=eta)
    points = run.weights[burn_in + 1:]

    def part(lo, hi):
        return None if progress is None else (
            lambda f, message: report(progress, lo + (hi - lo) * f, message))

    try:
        box = box_dimension(points, progress=part(0.1, 0.6))
        corr = correlation_dimension(points, sample=sample, seed=rng, progress=part(0.6, 1.0))
    except ValueError as exc:  # a degenerate attractor (a cycle, a point): say whose it is
        raise ValueError(f"the attractor of these features and moments cannot be measured "
                         f"from steps = {steps:,} weights: {exc}") from exc
    return AttractorDimension(box=box, correlation=corr, steps=steps, burn_in=burn_in,
                              cycling_holds=bool(run.cycling_holds))


def hexagon_model() -> RandomModel:
    """A structured model whose attractor measures at most 1: six states with features on a
    regular hexagon, phi(x_d) = (cos(d pi / 3), sin(d pi / 3)), and the target
    phi_bar = (0.1 sqrt 2, 0.1 sqrt 3) (``HEXAGON_MOMENTS``) near its centre, with irrational
    coordinates so that the rotation-like motion never closes (Sec 1.2.4). Like Fig 1.11's
    example (whose features the paper does not give) it has D = 6 and K = 2. ``probabilities``
    is one distribution with these moments: pi_d = 1/6 + phi(x_d) . phi_bar / 3 (the hexagon's
    features satisfy sum_d phi(x_d) phi(x_d)^T = 3 I, so its mean is phi_bar)."""
    angles = np.pi / 3 * np.arange(6)
    features = np.column_stack([np.cos(angles), np.sin(angles)])
    moments = np.array(HEXAGON_MOMENTS)
    probabilities = 1 / 6 + features @ moments / 3
    return RandomModel(features=features, probabilities=probabilities, moments=moments)
