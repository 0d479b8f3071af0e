"""The torus page: a constant rotation in lattice coordinates, the rational contrast with q points,
the lattice of Fig 1.17 and the discrepancy curves."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import pytest

from dynamics import torus
from views.pages.torus import WEIGHT_POINTS, TorusExplorer


def _element(overlay, kind):
    return next(e for e in overlay if isinstance(e, kind))


def test_torus_cloud_is_the_whole_orbit_in_the_unit_square():
    explorer = TorusExplorer()
    cloud = explorer.torus_cloud()
    c = cloud.array(cloud.kdims)
    assert c.shape == (explorer.steps + 1, 2)
    # each point with its step: the timeline builds the orbit up to t
    np.testing.assert_array_equal(cloud.dimension_values("t"), np.arange(explorer.steps + 1))
    assert np.all((c >= 0) & (c < 1))


def test_arrows_are_the_same_rotation_vector_every_step():
    explorer = TorusExplorer(arrows=6)
    arrows = explorer.torus_plot()
    assert isinstance(arrows, hv.VectorField) and len(arrows) == 6
    rho = explorer.result().rotation
    np.testing.assert_allclose(arrows.dimension_values("angle"), np.arctan2(rho[1], rho[0]))
    np.testing.assert_allclose(arrows.dimension_values("length"), np.hypot(*rho))
    # tails at the first points of the orbit, the first one at G(w0) = G(0) = 0
    np.testing.assert_allclose(arrows.dimension_values(0), explorer.torus_cloud().array()[:6, 0])
    assert f"{rho[0]:.4f}" in arrows.get_dimension(0).label


@pytest.mark.parametrize("q", [3, 13, 40])
def test_rational_contrast_shows_q_distinct_points(q):
    explorer = TorusExplorer(q=q)
    dots = explorer.rational_plot()
    points = dots.array([0, 1])
    assert len(points) == q
    assert len(np.unique(np.round(points, 9), axis=0)) == q
    # the whole rational orbit visits only those q points
    orbit = explorer.result().rational_coords
    assert len(np.unique(np.round(orbit, 9) % 1.0, axis=0)) == q
    assert f"/{q}" in dots.get_dimension(0).label


def test_rational_discrepancy_stalls_and_irrational_keeps_falling():
    explorer = TorusExplorer()  # q = 13 < bins**2 = 64 cells: most cells stay empty
    overlay = explorer.discrepancy_plot()
    irrational, rational, guide = list(overlay)
    d_irr, d_rat = irrational.dimension_values(1), rational.dimension_values(1)
    assert np.all(d_rat >= 1 / explorer.bins**2 - 1e-12)
    assert d_irr[-1] < 0.1 * d_rat[-1]
    assert irrational.dimension_values(0)[-1] == explorer.steps + 1
    # the 1/N guide ends on the irrational curve
    assert guide.dimension_values(1)[-1] == pytest.approx(d_irr[-1])


def test_weight_plane_shows_the_lattice_of_the_features():
    explorer = TorusExplorer(steps=50_000)
    lines = explorer.weights_plot()
    cloud = explorer.weights_cloud()  # rasterized under the lines on the page
    res = explorer.result()
    assert len(cloud) == WEIGHT_POINTS + 1
    basis = torus.lattice_basis(res.features)
    kind = lines.dimension_values("kind")
    starts = np.column_stack([lines.dimension_values(0), lines.dimension_values(1)])
    ends = np.column_stack([lines.dimension_values(2), lines.dimension_values(3)])
    # lattice lines (kind 0) keep one lattice coordinate at an integer
    c0 = np.linalg.solve(basis, starts[kind == 0].T).T
    c1 = np.linalg.solve(basis, ends[kind == 0].T).T
    same = np.isclose(c0, c1, atol=1e-9)
    assert np.all(same.any(axis=1))
    fixed = np.where(same[:, 0], c0[:, 0], c0[:, 1])
    np.testing.assert_allclose(fixed, np.round(fixed), atol=1e-9)
    # the generators (kind 1) are phi(x_d) - phi(x_0), drawn from phi(x_0)
    np.testing.assert_allclose(ends[kind == 1] - starts[kind == 1], basis.T)
    # the first herding steps (kind 2) join w_0 = 0, w_1, ... in the w-plane
    np.testing.assert_allclose(starts[kind == 2], res.weights[: explorer.arrows])
    np.testing.assert_allclose(ends[kind == 2], res.weights[1 : explorer.arrows + 1])


def test_exported_torus_cloud_is_drawn():
    # eq_hist draws nothing in matplotlib when every pixel holds one point: the page uses linear
    explorer = TorusExplorer()
    panel = explorer.figure().values()[0]
    image = next(e for e in panel if isinstance(e, hv.Image))
    assert np.nanmax(image.dimension_values(2)) >= 1
    opts = hv.Store.lookup_options("matplotlib", image, "plot").kwargs
    assert opts.get("cnorm") == "linear"
