"""Herding with D = K + 1 states is a constant rotation on a torus.

Chen & Welling, *Herding as a Learning System with Edge-of-Chaos Dynamics*, appendix
("Some Results on Herding in Discrete Spaces"): Prop 1.11 and eq 1.72. Take D = K + 1 states whose
feature differences phi(x_d) - phi(x_0), d = 1..K, are linearly independent. They span a lattice L
in R^K, and G: R^K -> T^K = R^K / L is the canonical projection. Since the herding update
(eq 1.8, eta = 1) adds phi_bar - phi(s_t) = (phi_bar - phi(x_0)) - (phi(s_t) - phi(x_0)) and the
second term is in L,

    G(w_t) = G(w_{t-1}) + (phi_bar - phi(x_0))          (eq 1.72)

whatever state was chosen: a constant rotation. In lattice coordinates (w = B c, B's columns the
differences) the torus is the unit cube [0, 1)^K with opposite faces glued, and the rotation
vector is B^{-1} (phi_bar - phi(x_0)) mod 1. When phi_bar = sum_d p_d phi(x_d) is in the convex
hull (p a probability vector), that vector is (p_1, ..., p_K): the target probabilities.
If its entries are rationally independent (together with 1) the orbit fills the torus;
if they are fractions with common denominator q it closes after q steps.

No numba kernel here: the work is one K x K linear solve (numpy.linalg) per call.
"""

from __future__ import annotations

import math

import numpy as np

from dynamics.checks import (
    as_generator,
    check_array,
    check_count,
    check_features,
    check_moments,
    describe,
)
from dynamics.claims import Threshold, Verdict, stated

__all__ = [
    "MAX_CONDITION",
    "MAX_CELLS",
    "MAX_PERIOD",
    "lattice_basis",
    "lattice_coordinates",
    "rotation",
    "lattice_lines",
    "torus_discrepancy",
    "torus_discrepancy_curve",
    "rational_rotation_model",
    "irrational_rotation_model",
    "EVEN_SHARE",
    "MIN_CELL_POINTS",
    "uniform_filling_claim",
]

#: Largest condition number (ratio of extreme singular values) of the lattice basis accepted as
#: "linearly independent". Beyond it, lattice coordinates lose more than ~6 of 16 digits.
MAX_CONDITION = 1e10
#: Upper bound on the number of histogram cells bins**K of ``torus_discrepancy``.
MAX_CELLS = 1 << 22
#: Upper bound on the period q of ``rational_rotation_model``.
MAX_PERIOD = 1_000_000
#: Upper bound on the number of segments returned by ``lattice_lines``.
MAX_LINES = 10_000


def lattice_basis(features) -> np.ndarray:
    """The basis of the lattice L of eq 1.72: B[:, d-1] = phi(x_d) - phi(x_0), d = 1..K.

    Parameters
    ----------
    features : array_like, shape (D, K)
        Row d is phi(x_d). Requires D = K + 1 and linearly independent differences.

    Returns
    -------
    ndarray of float64, shape (K, K)
        The COLUMNS are the lattice generators phi(x_d) - phi(x_0) (so B = (features[1:] -
        features[0]).T and a weight vector w has lattice coordinates c = B^{-1} w).

    Raises
    ------
    ValueError
        If D != K + 1, or if the differences are linearly dependent: condition number
        s_max / s_min of B (singular values) above MAX_CONDITION = 1e10, or all zero.
    """
    phi = check_features(features, min_states=2)
    D, K = phi.shape
    if D != K + 1:
        raise ValueError(
            f"features must have D = K + 1 rows for the torus of eq 1.72, got shape {phi.shape} "
            f"(D = {D} states, K = {K} features; need {K + 1} rows)"
        )
    basis = (phi[1:] - phi[0]).T.copy()
    singular = np.linalg.svd(basis, compute_uv=False)
    if singular[0] == 0.0 or singular[-1] <= singular[0] / MAX_CONDITION:
        cond = math.inf if singular[-1] == 0.0 else float(singular[0] / singular[-1])
        raise ValueError(
            "features must have linearly independent differences phi(x_d) - phi(x_0), d = 1..K; "
            f"got condition number {cond:.3g} of the lattice basis (allowed: <= {MAX_CONDITION:.0e})"
        )
    return basis


def _mod1(x: np.ndarray) -> np.ndarray:
    """x mod 1 in [0, 1): x - floor(x) rounds to 1.0 for tiny negative x; that is 0 on the circle."""
    y = x - np.floor(x)
    y[y >= 1.0] = 0.0
    return y


def lattice_coordinates(features, weights) -> np.ndarray:
    """Project weights onto the torus R^K / L in lattice coordinates (the map G of eq 1.72).

    Solves B c = w for each weight vector (B from ``lattice_basis``; an LU solve, no inverse) and
    returns c mod 1, each entry in [0, 1).

    Parameters
    ----------
    features : array_like, shape (K + 1, K)
        Row d is phi(x_d).
    weights : array_like, shape (N, K) or (K,)
        Weight vectors, e.g. ``herd(...).weights`` of shape (T + 1, K).

    Returns
    -------
    ndarray of float64, same shape as ``weights``
        Lattice coordinates modulo 1, in [0, 1).
    """
    basis = lattice_basis(features)
    K = basis.shape[0]
    w = check_array("weights", weights)
    if w.ndim not in (1, 2) or w.shape[-1] != K:
        raise ValueError(f"weights must have shape (N, {K}) or ({K},), got shape {w.shape}")
    coords = np.linalg.solve(basis, w.reshape(-1, K).T).T
    return _mod1(coords).reshape(w.shape)


def rotation(features, moments) -> np.ndarray:
    """The rotation vector of eq 1.72: phi_bar - phi(x_0) in lattice coordinates, modulo 1.

    Every herding step moves the lattice coordinates of w by this vector modulo 1. For moments
    phi_bar = sum_d p_d phi(x_d) in the convex hull it equals (p_1, ..., p_K) (mod 1). As a point
    of R^K / L it does not depend on which state is called x_0 (changing x_0 to x_j subtracts
    phi(x_j) - phi(x_0), a lattice vector, and L is the same lattice); its coordinates do,
    through a change of lattice basis.

    Parameters
    ----------
    features : array_like, shape (K + 1, K)
        Row d is phi(x_d).
    moments : array_like, shape (K,)
        The target moments phi_bar.

    Returns
    -------
    ndarray of float64, shape (K,)
        Entries in [0, 1).
    """
    basis = lattice_basis(features)
    phi = check_features(features)
    phi_bar = check_moments(moments, basis.shape[0])
    return _mod1(np.linalg.solve(basis, phi_bar - phi[0]))


def lattice_lines(features, lower, upper) -> np.ndarray:
    """Segments of the lattice L of eq 1.72 covering a box of the w-plane (K = 2; Fig. 1.17).

    The lattice lines are {i b_1 + s b_2 : s real} and {s b_1 + j b_2 : s real} for integers i, j,
    with b_d = phi(x_d) - phi(x_0) the columns of ``lattice_basis``; their cells are copies of the
    torus R^2 / L (the fundamental cell has corners 0, b_1, b_1 + b_2, b_2). Every line that meets
    the box [lower, upper] is returned as one segment spanning the box (its ends may lie outside;
    clip with the plot's axis ranges).

    Parameters
    ----------
    features : array_like, shape (3, 2)
        Row d is phi(x_d) (D = 3 states, K = 2 features).
    lower, upper : array_like, shape (2,)
        Opposite corners of the box (w1, w2), with lower < upper entrywise.

    Returns
    -------
    ndarray of float64, shape (n, 2, 2)
        ``segments[k] = [[x0, y0], [x1, y1]]``: first the lines along b_2 (i increasing), then
        those along b_1 (j increasing).

    Raises
    ------
    ValueError
        If K != 2, the box is empty, or it would hold more than MAX_LINES lines.
    """
    basis = lattice_basis(features)
    if basis.shape[0] != 2:
        raise ValueError(
            f"features must have shape (3, 2) for lattice_lines, got K = {basis.shape[0]}"
        )
    lo = check_array("lower", lower, shape=(2,))
    hi = check_array("upper", upper, shape=(2,))
    if np.any(hi <= lo):
        raise ValueError(
            f"upper must exceed lower entrywise, got lower {describe(lo)}, upper {describe(hi)}"
        )
    corners = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [lo[0], hi[1]], [hi[0], hi[1]]])
    c = np.linalg.solve(basis, corners.T)  # lattice coordinates of the corners, shape (2, 4)
    cmin, cmax = c.min(axis=1), c.max(axis=1)
    first, last = np.ceil(cmin), np.floor(cmax)
    count = float(np.sum(np.maximum(last - first + 1, 0)))
    if not np.all(np.isfinite(c)) or count > MAX_LINES:
        many = f"{count:.0f}" if np.isfinite(count) else "too many"
        raise ValueError(
            f"lower, upper: the box [{describe(lo)}, {describe(hi)}] meets {many} lattice lines "
            f"(allowed: <= {MAX_LINES})"
        )
    ends = []
    for i in np.arange(first[0], last[0] + 1):  # lines i b_1 + s b_2
        ends.append([[i, cmin[1]], [i, cmax[1]]])
    for j in np.arange(first[1], last[1] + 1):  # lines s b_1 + j b_2
        ends.append([[cmin[0], j], [cmax[0], j]])
    if not ends:
        return np.zeros((0, 2, 2))
    return np.asarray(ends, dtype=np.float64) @ basis.T


def _check_coords(coords) -> np.ndarray:
    c = check_array("coords", coords, ndim=2)
    N, K = c.shape
    if N < 1 or K < 1:
        raise ValueError(f"coords must have shape (N, K) with N, K >= 1, got shape {c.shape}")
    if np.any(c < 0.0) or np.any(c >= 1.0):
        raise ValueError(
            f"coords must lie in [0, 1) (lattice coordinates mod 1), got range "
            f"[{c.min()!r}, {c.max()!r}]"
        )
    return c


def _check_bins(bins, K: int) -> int:
    high = max(1, int(math.floor(MAX_CELLS ** (1.0 / K) + 1e-9)))
    while high ** K > MAX_CELLS:
        high -= 1
    return check_count("bins", bins, low=1, high=high)


def _cells(c: np.ndarray, bins: int) -> np.ndarray:
    idx = np.minimum((c * bins).astype(np.int64), bins - 1)
    flat = np.zeros(c.shape[0], dtype=np.int64)
    for k in range(c.shape[1]):
        flat = flat * bins + idx[:, k]
    return flat


def torus_discrepancy(coords, *, bins: int = 8) -> float:
    """How unevenly points fill the torus: the largest cell deviation of a bins**K histogram.

    With the cube [0, 1)^K cut into bins**K equal cells and n_j of the N points in cell j,

        discrepancy = max_j | n_j / N - bins**-K |,

    the sup-distance between the empirical cell probabilities and the uniform (Lebesgue) ones.
    It lies in [0, 1 - bins**-K]. For an orbit of an irrational rotation (eq 1.72 with
    rationally independent rotation vector) it tends to 0 as N grows (Weyl equidistribution);
    for a periodic orbit with q < bins**K points some cell stays empty, so it stays
    >= bins**-K.

    Parameters
    ----------
    coords : array_like, shape (N, K)
        Points in [0, 1)^K, e.g. from ``lattice_coordinates``.
    bins : int, keyword-only
        Cells per axis, >= 1, with bins**K <= MAX_CELLS.
    """
    c = _check_coords(coords)
    bins = _check_bins(bins, c.shape[1])
    cells = bins ** c.shape[1]
    counts = np.bincount(_cells(c, bins), minlength=cells)
    return float(np.abs(counts / c.shape[0] - 1.0 / cells).max())


def torus_discrepancy_curve(coords, lengths, *, bins: int = 8) -> np.ndarray:
    """``torus_discrepancy`` of the first n points for each n in ``lengths`` (one pass).

    Parameters
    ----------
    coords : array_like, shape (N, K)
        Points in [0, 1)^K in orbit order.
    lengths : array_like of int
        Strictly increasing prefix lengths in [1, N], e.g. ``np.geomspace(10, N, 30).astype(int)``
        after ``np.unique``.
    bins : int, keyword-only
        Cells per axis, as in ``torus_discrepancy``.

    Returns
    -------
    ndarray of float64, shape (len(lengths),)
    """
    c = _check_coords(coords)
    N, K = c.shape
    bins = _check_bins(bins, K)
    n = check_array("lengths", lengths, ndim=1, dtype=np.float64)
    if n.size == 0 or np.any(n != np.round(n)) or n[0] < 1 or n[-1] > N or np.any(np.diff(n) <= 0):
        raise ValueError(
            f"lengths must be strictly increasing integers in [1, {N}], got {describe(n)}"
        )
    n = n.astype(np.int64)
    cells = bins ** K
    flat = _cells(c, bins)
    counts = np.zeros(cells, dtype=np.int64)
    out = np.empty(n.size, dtype=np.float64)
    start = 0
    for i, stop in enumerate(n):
        counts += np.bincount(flat[start:stop], minlength=cells)
        start = stop
        out[i] = np.abs(counts / stop - 1.0 / cells).max()
    return out


def _triangle(rng: np.random.Generator) -> np.ndarray:
    """Three feature vectors in R^2 with a well-conditioned lattice basis (condition <= 3)."""
    for _ in range(1000):
        phi = rng.normal(size=(3, 2))
        s = np.linalg.svd((phi[1:] - phi[0]).T, compute_uv=False)
        if s[-1] > 0 and s[0] / s[-1] <= 3.0:
            return phi - phi.mean(axis=0)
    # practically unreachable (acceptance is about one half); an equilateral triangle
    angles = 2 * np.pi * np.arange(3) / 3 + rng.uniform(0, 2 * np.pi)
    return np.column_stack([np.cos(angles), np.sin(angles)])


def rational_rotation_model(q: int, *, seed=None) -> tuple[np.ndarray, np.ndarray]:
    """Features and moments (D = 3, K = 2) whose torus rotation (eq 1.72) is (a/q, b/q).

    The integers a, b >= 1 with a + b <= q - 1 and gcd(a, b, q) = 1 are drawn from ``seed``, and
    phi_bar = ((q - a - b) phi(x_0) + a phi(x_1) + b phi(x_2)) / q lies inside the triangle of
    features (target probabilities (q - a - b, a, b) / q). The torus orbit is periodic with
    period exactly q: n (a/q, b/q) is an integer vector iff q / gcd(a, b, q) = q divides n.

    With the same int ``seed``, ``irrational_rotation_model`` returns the same features, so the
    two can be shown side by side: only the moments (the rotation) differ.

    Parameters
    ----------
    q : int
        Period (denominator), in [3, MAX_PERIOD].
    seed : None, int or numpy.random.Generator, keyword-only

    Returns
    -------
    features : ndarray of float64, shape (3, 2)
    moments : ndarray of float64, shape (2,)
    """
    q = check_count("q", q, low=3, high=MAX_PERIOD)
    rng = as_generator(seed)
    phi = _triangle(rng)
    while True:
        a, b = (int(v) for v in rng.integers(1, q, size=2))
        if a + b <= q - 1 and math.gcd(math.gcd(a, b), q) == 1:
            break
    moments = ((q - a - b) * phi[0] + a * phi[1] + b * phi[2]) / q
    return phi, moments


def irrational_rotation_model(*, seed=None) -> tuple[np.ndarray, np.ndarray]:
    """Features and moments (D = 3, K = 2) with a generic ("irrational") torus rotation.

    The target probabilities p ~ Dirichlet(1, 1, 1), redrawn until min p >= 0.05 so the orbit
    is not close to a degenerate one, give phi_bar = sum_d p_d phi(x_d) and the rotation
    (p_1, p_2) (eq 1.72). A float64 rotation is rational in principle (denominator ~2**53),
    so "irrational" means: no period within any run this app can make; the orbit fills the
    torus. Same features as ``rational_rotation_model`` for the same int ``seed``.

    Returns
    -------
    features : ndarray of float64, shape (3, 2)
    moments : ndarray of float64, shape (2,)
    """
    rng = as_generator(seed)
    phi = _triangle(rng)
    while True:
        p = rng.dirichlet(np.ones(3))
        if p.min() >= 0.05:
            break
    return phi, p @ phi


_FIG117 = "dynamics.torus.uniform_filling_claim"
_FIG117_STATEMENT = ("An irrational rotation fills the torus uniformly (Prop 1.11); a rational one "
                     "visits q points.")
#: How far a cell's share of the orbit may lie from the uniform share, relative to it, for the
#: orbit to fill the torus evenly at the grid's resolution.
EVEN_SHARE = Threshold(
    0.5, name="EVEN_SHARE", claim=_FIG117, statement=_FIG117_STATEMENT,
    rule="the orbit fills evenly when its cell discrepancy times the number of cells (the "
         "largest cell's deviation from the uniform share, relative to it) is below this",
    why="halfway between a perfect filling (0) and a periodic orbit of fewer points than cells, "
        "which leaves a cell empty (relative deviation exactly 1): the two cases the "
        "proposition contrasts sit on either side of it by half a share")
#: Points per cell an orbit needs before a share further than ``EVEN_SHARE`` off counts against
#: an even filling (shorter runs: not decided).
MIN_CELL_POINTS = Threshold(
    100, name="MIN_CELL_POINTS", claim=_FIG117, statement=_FIG117_STATEMENT,
    rule="an irrational orbit still uneven after this many points per cell differs; an uneven "
         "shorter orbit is not decided (too short to judge)",
    why="independent uniform points at 100 per cell deviate by 10 % of a share per cell (1 / "
        "sqrt 100) and by about 3.4 times that at most over 64 cells (34 % < 50 %); an orbit "
        "that fills the torus equidistributes at least as fast as independent points for "
        "the generic rotations the page draws, so by then it must be even")


@stated
def uniform_filling_claim(discrepancy, rational_discrepancy, *, bins: int = 8,
                          points: int | None = None, period: int | None = None) -> Verdict:
    """Chen & Welling, Prop 1.11 and Fig 1.17: herding with D = K + 1 states is a rotation of
    the torus; an irrational rotation fills it uniformly, a rational one visits q points.

    Both orbits are deterministic: no noise enters and the rule is exact on the run. With
    ``discrepancy`` and ``rational_discrepancy`` `torus_discrepancy_curve` s on ``bins`` x
    ``bins`` cells (K = 2, Fig 1.17) ending at ``points`` points (None: not known), the
    *relative* discrepancy is the final one times the number of cells. The irrational orbit
    fills evenly when it is below ``EVEN_SHARE`` (reproduced); above it after at least
    ``MIN_CELL_POINTS`` points per cell it differs, and earlier (or with ``points`` unknown)
    the run is too short to judge: not decided. The rational orbit must stay above
    ``EVEN_SHARE`` (a cell empty or overfull); below it, with its ``period`` q given and
    fewer than the cells, it differs (q points leave a cell empty: a deviation of a whole
    share), otherwise the grid is too coarse to show its q points: not decided."""
    curves = []
    for name, value in (("discrepancy", discrepancy),
                        ("rational_discrepancy", rational_discrepancy)):
        curve = check_array(name, value, ndim=1)
        if curve.size == 0 or np.any(curve < 0) or np.any(curve > 1):
            raise ValueError(f"{name} must be a non-empty curve of discrepancies in [0, 1], "
                             f"got {describe(value)}")
        curves.append(curve)
    bins = check_count("bins", bins, low=1, high=int(math.isqrt(MAX_CELLS)))
    points = None if points is None else check_count("points", points, low=1)
    period = None if period is None else check_count("period", period, low=1)
    irrational, rational = curves
    cells = bins * bins
    irr, rat = float(irrational[-1]) * cells, float(rational[-1]) * cells
    per_cell = None if points is None else points / cells
    long_enough = per_cell is not None and per_cell >= MIN_CELL_POINTS
    size = ("" if per_cell is None else f" after {points:,} points ({per_cell:.0f} per cell)")
    checks = [
        (True if irr < EVEN_SHARE else (False if long_enough else None),
         f"the irrational orbit's largest cell is {irr:.0%} of a share off{size}, not within "
         f"{EVEN_SHARE:.0%}",
         f"the irrational orbit's largest cell is {irr:.0%} of a share off{size}: fewer than "
         f"{MIN_CELL_POINTS:g} points per cell, too short to judge"),
        (True if rat >= EVEN_SHARE else (False if period is not None and period < cells
                                         else None),
         f"the rational orbit of period {period} looks even on {cells} cells ({rat:.0%} of a "
         "share off), which its q points cannot fill",
         f"the rational orbit's largest cell is only {rat:.0%} of a share off: {cells} cells are "
         "too coarse to show its q points")]
    return Verdict.from_checks(
        "Chen & Welling, Fig 1.17", _FIG117_STATEMENT, checks,
        measured=(f"discrepancy of the irrational rotation {irrational[0]:.3f} -> "
                  f"{irrational[-1]:.5f} ({irr:.1%} of a cell's share, {cells} cells{size}); of "
                  f"the rational one {rational[-1]:.3f} at the end ({rat:.0%} of a share)"),
        why=(f"every cell holds its share of the irrational orbit within {irr:.0%} "
             f"(< {EVEN_SHARE:.0%}), while the rational orbit's largest cell is {rat:.0%} off"),
        numbers=dict(irrational=float(irrational[-1]), rational=float(rational[-1]),
                     irrational_relative=irr, rational_relative=rat, cells=cells,
                     points=points, period=period),
        effect="the final cell discrepancy of each orbit relative to a cell's share",
        rule=(f"irrational < {EVEN_SHARE:g} of a share (uneven after {MIN_CELL_POINTS:g} points "
              f"per cell: differs); rational >= {EVEN_SHARE:g} (below it with q < cells: "
              "differs); exact, deterministic orbits"),
        thresholds={"EVEN_SHARE": EVEN_SHARE, "MIN_CELL_POINTS": MIN_CELL_POINTS},
        power=("no noise: the orbits are deterministic; a run decides an uneven irrational "
               f"orbit from {MIN_CELL_POINTS:g} points per cell ({int(MIN_CELL_POINTS * cells):,}"
               " points here)"))


def _warmup() -> None:
    """No numba kernel in this module: runs each function once on tiny inputs (numpy imports)."""
    phi, m = irrational_rotation_model(seed=0)
    coords = lattice_coordinates(phi, np.zeros((2, 2)))
    rotation(phi, m)
    torus_discrepancy(coords, bins=2)
    torus_discrepancy_curve(coords, [1, 2], bins=2)

