"""Fig 4.1's metric and claims (issue 28 item 3): a bandwidth that does not depend on a method's
own sample, its floor, the share of each mode and the mode-keeping claim."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dynamics import pmd
from dynamics.claims import Verdict

#: How far a set of exact posterior draws, scored by the metric, may fall from the metric's
#: floor (the mean over other sets). Measured: 0.011 at most over the eight sets below (floor
#: 0.099, sets 0.088-0.110); a chain stuck in one mode scores about 0.5.
FLOOR_TOLERANCE = 0.03


@pytest.fixture(scope="module")
def default_posterior():
    """The default model of the page (the variance reading, theta = (1, -2)) with 300 data (the
    page's 1000 cost 3 s more; the modes are as separate), its exact posterior on the metric's
    grid."""
    model, theta, _ = pmd.MODEL_PRESETS["Dai, Sec 4.6.1 (Fig 4.1)"]
    x = model.sample(300, theta, seed=1)
    grid = pmd.posterior_grid(model, x)
    return grid, pmd.grid_posterior(model, x, grid.x, grid.y)


def test_exact_draws_score_at_the_floor_whatever_their_mode_split(default_posterior):
    """Eight redraws of 1500 exact posterior draws, each turned into a density as a method's
    particles are (``estimate_on`` with the data set's reference bandwidth), score within
    FLOOR_TOLERANCE of the floor: the metric does not move with the draws' mode split. (The
    paper's median trick, printed beside, scored 1500 draws 0.22-0.81 on the 1000 data of the
    standard-deviation reading, where the two ridges are far apart; on these 300 data it
    happens to move little, 0.327-0.353, but sits far above the floor.)"""
    grid, exact = default_posterior
    area = grid.cell_area
    h = pmd.reference_bandwidth(exact, grid, 1500, seed=0)
    floor = pmd.floor_scores(exact, grid, 1500, h, seed=1)["tv"].mean()
    rng = np.random.default_rng(2)
    ours, median = [], []
    for _ in range(8):
        draws = pmd.exact_samples(exact, grid, 1500, rng)
        ours.append(pmd.total_variation(exact, pmd.estimate_on(draws, grid, exact,
                                                               bandwidth=h), area))
        median.append(pmd.total_variation(exact, pmd.estimate_on(draws, grid, exact), area))
    ours, median = np.array(ours), np.array(median)
    print(f"\nh {h:.4f}, floor {floor:.3f}; ours {ours.min():.3f}-{ours.max():.3f}; "
          f"median trick {median.min():.3f}-{median.max():.3f}")
    assert np.all(np.abs(ours - floor) <= FLOOR_TOLERANCE), (ours, floor)
    assert floor < 0.2  # a fine kernel: perfect samples are told from a one-mode chain (~0.5)


def test_the_reference_bandwidth_is_the_best_on_the_draws_and_scales_with_the_posterior():
    """On a Gaussian posterior N(0, s^2 I) the chosen bandwidth is the grid candidate with the
    least total variation on its own draws (recomputed here), and doubling s (and the grid)
    doubles it."""
    chosen = []
    for s in (0.5, 1.0):
        axis = np.linspace(-5 * s, 5 * s, 101)
        grid = pmd.Grid(axis, axis)
        pts = grid.points()
        exact = np.exp(-0.5 * (pts ** 2).sum(1) / s ** 2).reshape(grid.shape)
        exact /= exact.sum() * grid.cell_area
        h = pmd.reference_bandwidth(exact, grid, 400, seed=3, draws=2)
        rng = np.random.default_rng(3)
        draws = [pmd.exact_samples(exact, grid, 400, rng) for _ in range(2)]
        spacing = axis[1] - axis[0]
        candidates = spacing * 2 ** (np.arange(0, 16) / 4)
        tv = [np.mean([pmd.total_variation(exact, d.density_on(grid, c), grid.cell_area)
                       for d in draws]) for c in candidates]
        assert h == pytest.approx(candidates[int(np.argmin(tv))], rel=1e-9)
        chosen.append(h)
    assert chosen[1] == pytest.approx(2 * chosen[0], rel=1e-9)


def test_mode_shares_of_particles_and_of_a_gaussian():
    cloud = np.array([[0.0, -1.0], [0.0, -2.0], [0.0, 3.0]])
    assert pmd.mode_shares(cloud, np.array([1.0, 1.0, 2.0])) == pytest.approx((0.5, 0.5))
    fit = pmd.GaussianFit(np.array([0.0, 1.0]), np.eye(2), "SVI")
    below = 0.5 * math.erfc(1 / math.sqrt(2))  # Phi(-1)
    assert pmd.result_mode_shares(fit) == pytest.approx((below, 1 - below))
    assert below == pytest.approx(0.158655, abs=1e-6)


def _summary(kept: dict, repeats: int = 10) -> pmd.RepeatSummary:
    """A summary whose methods kept both modes in ``kept[name]`` of the repeats."""
    share = {name: np.array([0.4] * k + [0.0] * (repeats - k)) for name, k in kept.items()}
    return pmd.RepeatSummary(
        seen={}, tv={}, ce={}, floor_tv=np.zeros(repeats), floor_ce=np.zeros(repeats),
        pmd_both_modes=np.zeros(repeats, bool), pmd_beats_local=np.zeros(repeats, bool),
        comparisons=tuple(range(repeats)), smaller_share=share,
        both_modes={name: s >= pmd.MODE_FLOOR for name, s in share.items()})


@pytest.mark.parametrize("kept, agrees", [
    (dict(PMD=10, Gibbs=0, SGLD=0), True),
    (dict(PMD=9, Gibbs=1, SGLD=0), True),  # the stated tolerance, MODE_RUNS = 0.9
    (dict(PMD=8, Gibbs=0, SGLD=0), False),
    (dict(PMD=10, Gibbs=2, SGLD=0), False),
    (dict(PMD=10, Gibbs=0, SGLD=5), False),
    (dict(PMD=10, SGLD=0), None),  # Gibbs not run: not judged
])
def test_both_modes_claim_rule(kept, agrees):
    verdict = pmd.both_modes_claim(_summary(kept))
    assert isinstance(verdict, Verdict) and verdict.agrees is agrees
    assert verdict.numbers["kept"] == kept
    assert f"PMD {kept['PMD']} of 10" in verdict.measured


def test_compare_methods_scores_every_method_with_one_bandwidth():
    """The metric's bandwidth belongs to the data set: the same for every method, recorded with
    the floor's draws; "median" keeps the paper's rule (no one bandwidth)."""
    model, theta, _ = pmd.MODEL_PRESETS["Dai, Sec 4.6.1 (Fig 4.1)"]
    x = model.sample(60, theta, seed=4)
    grid = pmd.posterior_grid(model, x, spacing=0.05)
    c = pmd.compare_methods(model, x, particles=100, seed=0, checkpoints=3, grid=grid,
                            methods=("PMD", "Gibbs"))
    assert np.isfinite(c.bandwidth) and c.bandwidth >= 0.05
    assert c.floor["tv_draws"].shape == (pmd.FLOOR_DRAWS,)
    assert c.floor["tv"] == pytest.approx(c.floor["tv_draws"].mean())
    same = pmd.estimate_on(c.results["PMD"], grid, c.exact, bandwidth=c.bandwidth)
    assert np.array_equal(same, c.densities["PMD"])
    old = pmd.compare_methods(model, x, particles=100, seed=0, checkpoints=3, grid=grid,
                              methods=("PMD",), metric_bandwidth="median")
    assert math.isnan(old.bandwidth)
    with pytest.raises(ValueError, match="metric_bandwidth"):
        pmd.compare_methods(model, x, metric_bandwidth="silverman")
