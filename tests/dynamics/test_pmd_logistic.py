"""Bayesian logistic regression by PMD (Dai, Sec 4.6.2) and the O(1/sqrt(m)) rate (Thms 18-19):
the MALA reference on a Gaussian with a known answer, the log posterior against scikit-learn's
MAP, PMD against MALA, and the rate's fit and claim."""

from __future__ import annotations

import dataclasses

import math

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.linear_model import LogisticRegression

from dynamics import pmd


@pytest.fixture(scope="module")
def digits():
    return pmd.digits_pair(components=2, seed=0)


def test_digits_pair_splits_the_two_digits():
    data = pmd.digits_pair(components=3, seed=1)
    # load_digits holds 174 eights and 181 sixes
    assert data.train_y.size + data.test_y.size == 174 + 181
    assert data.train_x.shape[1] == 4 and np.all(data.train_x[:, -1] == 1)
    assert np.allclose(data.train_x[:, :-1].std(0), 1.0)
    assert data.train_y.sum() + data.test_y.sum() == 174
    with pytest.raises(ValueError, match="positive and negative"):
        pmd.digits_pair(3, 3)


def test_mala_samples_a_known_gaussian():
    cov = np.array([[1.0, 0.8], [0.8, 2.0]])
    prec = np.linalg.inv(cov)
    mean = np.array([1.0, -2.0])

    def log_density(w):
        d = w - mean
        return -0.5 * np.einsum("ij,jk,ik->i", d, prec, d), -d @ prec

    samples, acc = pmd.mala(log_density, np.zeros((4, 2)), steps=4000, burn_in=500, seed=0)
    flat = samples.reshape(-1, 2)
    assert np.all((acc > 0.4) & (acc < 0.75))
    assert np.allclose(flat.mean(0), mean, atol=0.15)
    assert np.allclose(np.cov(flat.T), cov, atol=0.25)
    assert np.all(pmd.split_rhat(samples) < 1.02)


def test_split_rhat_flags_chains_that_disagree():
    rng = np.random.default_rng(0)
    samples = rng.standard_normal((500, 4, 1))
    samples[:, :2] += 3.0
    assert pmd.split_rhat(samples)[0] > 1.5


def test_log_posterior_gradient_and_map_match_scikit_learn(digits):
    x, y = digits.train_x, digits.train_y
    w = np.random.default_rng(0).standard_normal((3, x.shape[1]))
    logp, grad = pmd.log_posterior(w, x, y)
    eps = 1e-6
    for j in range(x.shape[1]):
        step = np.zeros_like(w)
        step[:, j] = eps
        numeric = (pmd.log_posterior(w + step, x, y)[0] - pmd.log_posterior(w - step, x, y)[0])
        assert np.allclose(numeric / (2 * eps), grad[:, j], rtol=1e-5, atol=1e-5)
    # the N(0, I) prior is L2 regularisation with C = 1: the MAP is scikit-learn's fit
    fit = minimize(lambda v: -pmd.log_posterior(v[None], x, y)[0][0], np.zeros(x.shape[1]),
                   jac=lambda v: -pmd.log_posterior(v[None], x, y)[1][0], method="BFGS",
                   options=dict(gtol=1e-8))
    sk = LogisticRegression(C=1.0, fit_intercept=False, tol=1e-10, max_iter=10_000).fit(x, y)
    assert np.allclose(fit.x, sk.coef_[0], atol=1e-4)


def test_predictive_is_the_weighted_mean_probability(digits):
    x, y = digits.test_x[:5], np.array([1.0, 0.0, 1.0, 1.0, 0.0])
    w = np.array([[1.0, -1.0, 0.5], [0.0, 2.0, -0.5]])
    alpha = np.array([0.25, 0.75])
    prob = alpha @ (1 / (1 + np.exp(-(w @ x.T))))
    error, loglik = pmd.predictive(w, alpha, x, y)
    assert error == pytest.approx(np.mean((prob > 0.5) != (y == 1)))
    assert loglik == pytest.approx(np.mean(y * np.log(prob) + (1 - y) * np.log(1 - prob)))


def test_pmd_and_sgld_land_on_the_mala_posterior(digits):
    ref = pmd.reference_posterior(digits, steps=2000, burn_in=500, seed=0)
    assert np.all(ref.rhat < 1.02)
    run = pmd.logistic_pmd(digits, particles=300, passes=2, seed=1)
    gap = np.abs(run.weights @ run.particles - ref.mean) / ref.sd
    assert np.all(gap < 0.6)
    assert run.history["seen"][-1] == 2 * digits.train_y.size
    assert run.history["error"][-1] <= ref.test_error + 0.02
    sgld = pmd.logistic_sgld(digits, particles=300, burn_in=300, seed=2)
    assert np.all(np.abs(sgld.particles.mean(0) - ref.mean) / ref.sd < 1.5)


def test_logistic_claim_reads_the_comparison(digits):
    comparison = pmd.compare_logistic(digits, particles=200, passes=1, repeats=1,
                                      reference_steps=500, seed=0)
    verdict = pmd.logistic_claim(comparison)
    # one repeat: no spread to judge the posterior-mean gap against
    assert verdict.result == "not decided" and "one repeat" in verdict.why
    assert verdict.numbers["paper_accuracy"] == 0.988

    def gaps(*values):
        return dataclasses.replace(comparison, mean_gap=dict(comparison.mean_gap,
                                                             PMD=np.array(values)))

    # gaps of 0.18 SD (the page's PMD), 1.4 (SGLD's) and 0.5 +- noise: the three outcomes
    assert pmd.logistic_claim(gaps(0.17, 0.18, 0.19)).result == "reproduced"
    far = pmd.logistic_claim(gaps(1.3, 1.4, 1.5))
    assert far.result == "differs" and "above 0.5" in far.why
    noisy = pmd.logistic_claim(gaps(0.2, 0.5, 0.8))
    assert noisy.result == "not decided" and noisy.thresholds["MEAN_GAP_TOLERANCE"] == 0.5


def test_fit_slope_recovers_a_power_law():
    m = np.array([100, 400, 1600, 6400])
    slope, intercept = pmd.fit_slope(m, 3.0 * m ** -0.5)
    assert slope == pytest.approx(-0.5) and intercept == pytest.approx(math.log(3.0))
    with pytest.raises(ValueError, match="counts"):
        pmd.fit_slope([10, 10], [1.0, 2.0])


def test_particle_rate_errors_are_those_of_importance_sampling():
    model = pmd.MixtureModel(1.0, 1.0, math.sqrt(2.5), 0.5)
    data = model.sample(30, (1.0, -2.0), seed=0)
    result = pmd.particle_rate(model, data, counts=(100, 1600), repeats=6, spacing=0.03, seed=0)
    assert result.errors.shape == (2, 6)
    assert np.allclose(result.rms, np.sqrt((result.errors ** 2).mean(1)))
    # sixteen times the particles: about a quarter of the error (the rate), far from 1/16
    ratio = result.rms[1] / result.rms[0]
    assert 0.1 < ratio < 0.6
    # the exact posterior mean on the grid, against an independent quadrature on a finer grid
    grid = pmd.posterior_grid(model, data, spacing=0.01, max_side=1000)
    dens = pmd.grid_posterior(model, data, grid.x, grid.y)
    mean = (dens.ravel() / dens.sum()) @ grid.points()
    assert np.allclose(result.exact_mean, mean, atol=2e-3)
    verdict = pmd.rate_claim(result)
    gap = abs(result.slope + 0.5)
    assert verdict.agrees == (True if gap + 1.96 * result.slope_sd < pmd.RATE_TOLERANCE else
                              False if gap - 1.96 * result.slope_sd >= pmd.RATE_TOLERANCE
                              else None)


def _rate_result(slope, sd):
    """A RateResult of a given slope and bootstrap spread (the errors follow the slope)."""
    counts = np.array([100, 1000, 10000])
    rms = 2.0 * counts ** slope
    return pmd.RateResult(counts=counts, errors=np.repeat(rms[:, None], 4, axis=1), rms=rms,
                          ess=counts / 2.0, exact_mean=np.zeros(2), slope=slope,
                          intercept=math.log(2.0), slope_sd=sd, slopes=np.full(400, slope),
                          n_data=100, batch_size=10)


def test_rate_claim_three_outcomes():
    assert pmd.rate_claim(_rate_result(-0.52, 0.01)).result == "reproduced"
    differs = pmd.rate_claim(_rate_result(-1.0, 0.02))
    assert differs.result == "differs" and "RATE_TOLERANCE" in differs.thresholds
    # the same slope -0.45 with a wide bootstrap spread: a noisier run does not pass
    assert pmd.rate_claim(_rate_result(-0.45, 0.05)).result == "not decided"
    assert pmd.rate_claim(_rate_result(-0.45, 0.01)).result == "reproduced"


def _bilinear(grid, dens, x, y):
    """An independent bilinear interpolation of ``dens`` on ``grid`` at (x, y), 0 outside."""
    if not (grid.x[0] <= x <= grid.x[-1] and grid.y[0] <= y <= grid.y[-1]):
        return 0.0
    i = min(int(np.searchsorted(grid.x, x, side="right")) - 1, grid.x.size - 2)
    j = min(int(np.searchsorted(grid.y, y, side="right")) - 1, grid.y.size - 2)
    u = (x - grid.x[i]) / (grid.x[i + 1] - grid.x[i])
    v = (y - grid.y[j]) / (grid.y[j + 1] - grid.y[j])
    return ((1 - u) * (1 - v) * dens[j, i] + u * (1 - v) * dens[j, i + 1]
            + (1 - u) * v * dens[j + 1, i] + u * v * dens[j + 1, i + 1])


def test_average_solution_interpolates_each_repeat_onto_the_first_grid():
    model = pmd.MixtureModel(1.0, 1.0, 2.5, 0.5)
    summary = pmd.compare_repeats(model, (1.0, -2.0), 20, repeats=2, methods=("PMD",),
                                  particles=40, batch_size=5, checkpoints=2)
    grid, avg = pmd.average_densities(summary)
    first, second = summary.comparisons
    assert grid is first.grid and set(avg) == {"exact", "PMD"}
    rng = np.random.default_rng(0)
    for _ in range(20):
        j, i = rng.integers(grid.shape[0]), rng.integers(grid.shape[1])
        for name in ("exact", "PMD"):
            d1 = first.exact if name == "exact" else first.densities[name]
            d2 = second.exact if name == "exact" else second.densities[name]
            expect = 0.5 * (d1[j, i] + _bilinear(second.grid, d2, grid.x[i], grid.y[j]))
            assert avg[name][j, i] == pytest.approx(expect, rel=1e-9, abs=1e-12)
