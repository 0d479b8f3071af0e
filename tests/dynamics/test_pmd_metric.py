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
    # paired over repeats: PMD alone keeps both modes in 8 (9) repeats against Gibbs (SGLD),
    # sqrt 8 = 2.8 standard errors
    (dict(PMD=9, Gibbs=1, SGLD=0), True),
    # 3 against none: sqrt 3 = 1.7 < 1.96, inside the noise of 10 repeats
    (dict(PMD=3, Gibbs=0, SGLD=0), None),
    (dict(PMD=10, Gibbs=8, SGLD=0), None),  # 2 discordant repeats only
    (dict(PMD=0, Gibbs=5, SGLD=0), False),  # Gibbs keeps them more, by sqrt 5 = 2.2 SE
    (dict(PMD=10, SGLD=0), None),  # Gibbs not run: not judged
])
def test_both_modes_claim_rule(kept, agrees):
    verdict = pmd.both_modes_claim(_summary(kept))
    assert isinstance(verdict, Verdict) and verdict.agrees is agrees
    assert verdict.numbers["kept"] == kept
    assert f"PMD {kept['PMD']} of 10" in verdict.measured
    assert verdict.thresholds["MODE_FLOOR"] is pmd.MODE_FLOOR


def _scores(final: dict, spread: float, repeats: int = 8) -> pmd.RepeatSummary:
    """A summary whose methods end at ``final[name]`` (TV and cross entropy alike), plus a
    per-repeat noise of sd ``spread`` of each method's own."""
    rng = np.random.default_rng(0)
    curves = {name: np.c_[np.ones(repeats), v + spread * rng.standard_normal(repeats)]
              for name, v in final.items()}
    return pmd.RepeatSummary(
        seen={}, tv=curves, ce={k: v + 1.0 for k, v in curves.items()},
        floor_tv=np.zeros(repeats), floor_ce=np.zeros(repeats),
        pmd_both_modes=np.zeros(repeats, bool), pmd_beats_local=np.zeros(repeats, bool),
        comparisons=tuple(range(repeats)))


def test_best_method_claim_is_paired_and_corrected_for_the_best_of_several():
    methods = dict(PMD=0.2, SMC=0.5, SGLD=0.6, Gibbs=0.7)
    best = pmd.best_method_claim(_scores(methods, 0.01))
    assert best.result == "reproduced", best.why
    # three others on two metrics: z(0.05 / 12) = 2.64 standard errors, not 1.96
    assert best.numbers["z"] == pytest.approx(2.638, abs=1e-3)
    worse = pmd.best_method_claim(_scores(dict(methods, SMC=0.1), 0.01))
    assert worse.result == "differs" and "SMC is better" in worse.why
    # the same order with a noise as large as the gaps: not decided
    assert pmd.best_method_claim(_scores(methods, 0.5)).result == "not decided"
    one = pmd.best_method_claim(_scores(methods, 0.01, repeats=1))
    assert one.result == "not decided" and "one repeat" in one.why


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


# --- SGD NPV, the sixth method ------------------------------------------------------------------


def test_entropy_bound_of_one_and_two_components_by_hand():
    """One component N(mu, s^2 I): q_1 = N(mu; mu, 2 s^2 I) = 1 / (4 pi s^2), so H_l =
    log(4 pi s^2), log 2 - 1 below the true entropy 1 + log(2 pi s^2). Two components at
    distance 3 with widths 0.5 and 1: worked out below with the kernel written by hand; the
    gradients against central differences."""
    from dynamics.pmd import npv

    h, g_mu, g_s = npv.entropy_bound(np.array([[0.3, -0.2]]), np.array([0.7]))
    assert h == pytest.approx(math.log(4 * math.pi * 0.49), rel=1e-12)
    assert np.all(g_mu == 0) and g_s[0] == pytest.approx(2 / 0.7, rel=1e-12)  # d/ds log(4 pi s^2)

    def kernel(d2, v):  # N(mu_k; mu_j, v I) in 2-D
        return math.exp(-d2 / (2 * v)) / (2 * math.pi * v)
    means, widths = np.array([[0.0, 0.0], [3.0, 0.0]]), np.array([0.5, 1.0])
    q1 = 0.5 * (kernel(0, 0.5) + kernel(9, 1.25))
    q2 = 0.5 * (kernel(9, 1.25) + kernel(0, 2.0))
    h, g_mu, g_s = npv.entropy_bound(means, widths)
    assert h == pytest.approx(-0.5 * (math.log(q1) + math.log(q2)), rel=1e-12)
    e = 1e-6
    for a in range(2):
        for d in range(2):
            bump = np.zeros((2, 2))
            bump[a, d] = e
            num = (npv.entropy_bound(means + bump, widths)[0]
                   - npv.entropy_bound(means - bump, widths)[0]) / (2 * e)
            assert g_mu[a, d] == pytest.approx(num, abs=1e-7)
        step = e * np.eye(2)[a]
        num = (npv.entropy_bound(means, widths + step)[0]
               - npv.entropy_bound(means, widths - step)[0]) / (2 * e)
        assert g_s[a] == pytest.approx(num, abs=1e-7)


def test_mixture_density_on_a_grid_equals_the_pointwise_sum():
    from dynamics.pmd import npv

    mix = npv.GaussianMixture(np.array([[0.0, 0.1], [0.5, -0.4]]), np.array([0.2, 0.35]), "q")
    grid = pmd.Grid(np.linspace(-1.5, 2, 36), np.linspace(-2, 1.5, 36))
    # the grid sums each kernel out to CUTOFF = 6 widths: exp(-18) of a peak of at most 4
    assert np.allclose(mix.density_on(grid), mix.density(grid.points()).reshape(grid.shape),
                       rtol=1e-9, atol=4 * math.exp(-18))
    assert mix.density_on(grid).sum() * grid.cell_area == pytest.approx(1.0, abs=1e-3)
    below = 0.5 * (0.5 * math.erfc(0.1 / (0.2 * math.sqrt(2)))
                   + 0.5 * math.erfc(-0.4 / (0.35 * math.sqrt(2))))
    assert pmd.result_mode_shares(mix) == pytest.approx((below, 1 - below))


def test_sgd_npv_finds_the_conjugate_posterior():
    """With p -> 1 the model is conjugate in theta1 (theta2 keeps its prior): the mixture's
    mean and variance along theta1 (the components' spread plus their widths) approach the
    posterior's after 800 steps (after 160 the means were still spread: variance 6 times the
    posterior's)."""
    model = pmd.MixtureModel(1.0, 1.0, 1.0, 1 - 1e-9)
    x = model.sample(40, (0.8, 0.0), seed=5)
    precision = 1 + 40
    mean, var = x.sum() / precision, 1 / precision
    fit = pmd.sgd_npv(model, x, particles=30, batch_size=10, seed=6, epochs=200)
    t1 = fit.means[:, 0]
    got_var = t1.var() + np.mean(fit.widths ** 2)
    print(f"\nmean {t1.mean():.4f} ({mean:.4f}), variance {got_var:.4f} ({var:.4f})")
    assert t1.mean() == pytest.approx(mean, abs=0.5 * math.sqrt(var))
    assert var / 2 < got_var < 2 * var  # measured 1.2 var
    theta2 = fit.means[:, 1].var() + np.mean(fit.widths ** 2)
    assert theta2 == pytest.approx(1.0, rel=0.2)  # the prior's: the data say nothing of it
    assert fit.history["seen"][-1] == 200 * 40
