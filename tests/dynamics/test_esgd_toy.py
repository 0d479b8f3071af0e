"""Fig 5.1 of Dai's thesis: Embedding-SGD recovers a GP-drawn f* from y = E_{z|x} f*(z) + noise,
z ~ N(x, 0.3^2)."""

from __future__ import annotations

import numpy as np
import pytest

from dynamics import esgd as es


@pytest.fixture(scope="module")
def toy():
    return es.gp_toy(500, grid_points=1001, seed=0)


def test_the_measured_signal_is_the_truth_smoothed_by_z_given_x(toy):
    """E_{z|x} f*(z), which the engine takes in closed form from f*'s random features, against a
    quadrature of f* on the grid (spacing 0.005) under N(x, 0.3^2), away from the grid's ends."""
    g, f = toy.grid, toy.truth
    w = np.exp(-0.5 * ((g[:, None] - g[None]) / es.TOY_SMOOTHING) ** 2)
    smoothed = (w * f).sum(1) / w.sum(1)
    inside = np.abs(g) <= es.TOY_RANGE - 4 * es.TOY_SMOOTHING
    np.testing.assert_allclose(toy.observed[inside], smoothed[inside], atol=1e-3)
    assert toy.observed_error > 0.01  # the smoothing is visible: there is something to undo


def test_embedding_sgd_recovers_the_truth(toy):
    """Sec 5.3.3, Fig 5.1: "the interaction between primal f and dual u results in the recovery
    of the denoised signal". Measured (seed 0, 500 iterations of 20 data): f is 0.018 from f*,
    0.22 at iteration 50; the smoothed signal 0.054."""
    assert list(toy.iterations) == [0, 50, 150, 400, 500]
    verdict = es.recovery_claim(toy)
    assert verdict.agrees, verdict.why
    assert toy.errors[-1] < 0.5 * toy.observed_error
    assert toy.fits.shape == toy.duals.shape == (5, 1001)
