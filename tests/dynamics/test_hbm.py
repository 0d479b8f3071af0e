"""Higher-order Boltzmann machines on the subset poset, RBMs, and the bias-variance
decomposition (Luo & Sugiyama)."""

from __future__ import annotations

import itertools
import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from dynamics import hbm


def _subsets(x):
    """Every subset of bitmask x."""
    bits = [1 << i for i in range(x.bit_length()) if x >> i & 1]
    return [sum(c) for r in range(len(bits) + 1) for c in itertools.combinations(bits, r)]


def test_zeta_and_moebius_transforms_against_their_definitions():
    """eta(x) = sum over supersets, theta(x) = sum_{s <= x} mu(s, x) log p(s) with the
    Moebius function of the subset lattice, mu(s, x) = (-1)^{|x| - |s|} (eqs 4-5); each
    transform and its inverse round-trip."""
    n = 4
    p = hbm.random_distribution(n, seed=1)
    eta = hbm.eta_of(p)
    theta = hbm.theta_of(p)
    for x in range(1 << n):
        assert eta[x] == pytest.approx(sum(p[s] for s in range(1 << n) if s & x == x))
        expected = sum((-1) ** (bin(x).count("1") - bin(s).count("1")) * math.log(p[s])
                       for s in _subsets(x))
        assert theta[x] == pytest.approx(expected)
    np.testing.assert_allclose(hbm.p_of_eta(eta), p, atol=1e-15)
    np.testing.assert_allclose(hbm.p_of_theta(theta), p, rtol=1e-12)
    assert theta[0] == pytest.approx(math.log(p[0]))  # theta(bottom) = -log Z, kept
    assert eta[0] == pytest.approx(1.0)


def test_order_one_projection_is_the_product_of_the_marginals():
    p = hbm.random_distribution(5, seed=2)
    q = hbm.project(p, 1)
    states = hbm.visible_states(5)
    marg = states.T @ p
    product = np.prod(np.where(states == 1, marg, 1 - marg), axis=1)
    np.testing.assert_allclose(q, product, atol=1e-13)


def test_projection_matches_eta_on_b_and_is_the_kl_minimiser():
    """P*_B has P*'s eta on B (to 1e-12) and theta = 0 above the order; any other member of
    S(B) is farther from P* in KL (here: small perturbations of theta_B)."""
    n, k = 6, 3
    p = hbm.random_distribution(n, seed=3)
    q = hbm.project(p, k)
    mask = hbm.order_mask(n, k)
    np.testing.assert_allclose(hbm.eta_of(q)[mask], hbm.eta_of(p)[mask], atol=1e-12)
    theta = hbm.theta_of(q)
    assert np.max(np.abs(theta[(hbm.popcount(n) > k)])) < 1e-9
    rng = np.random.default_rng(0)
    best = hbm.kl(p, q)
    for _ in range(5):
        other = theta.copy()
        other[mask] += 0.01 * rng.standard_normal(mask.sum())
        assert hbm.kl(p, hbm.p_of_theta(other)) > best


def test_order_n_fit_reproduces_the_empirical_distribution():
    """The full model (order n) fitted without pseudo-counts to data covering every outcome
    is the empirical distribution itself: its eta and theta are the data's."""
    n = 4
    counts = np.arange(1, 17, dtype=float)
    fitted = hbm.fit_hbm(counts, n, pseudo_count=0.0)
    np.testing.assert_allclose(fitted, counts / counts.sum(), atol=1e-14)
    np.testing.assert_allclose(hbm.theta_of(fitted), hbm.theta_of(counts / counts.sum()),
                               atol=1e-10)
    with pytest.raises(ValueError, match="pseudo_count"):
        hbm.fit_hbm(np.r_[0.0, counts[1:]], n, pseudo_count=0.0)


def test_gradient_mode_follows_the_paper_and_approaches_the_converged_fit():
    """theta <- theta + lr (eta_hat - eta_B) from 0: after few steps the fit is near uniform,
    after many it approaches the maximum-likelihood fit of the same data."""
    n, k = 5, 2
    rng = np.random.default_rng(4)
    counts = rng.multinomial(2000, hbm.random_distribution(n, seed=4)).astype(float)
    ml = hbm.fit_hbm(counts, k, pseudo_count=0.0)
    few = hbm.fit_hbm(counts, k, mode="gradient", iterations=10)
    many = hbm.fit_hbm(counts, k, mode="gradient", iterations=20_000, lr=0.5)
    assert hbm.kl(ml, many) < 1e-6 < hbm.kl(ml, few)


def test_bias_plus_variance_is_the_total_for_the_hbm():
    """Pythagoras in the dually flat manifold: per dataset KL(P*, P_hat) = KL(P*, P*_B) +
    KL(P*_B, P_hat) for every P_hat in S(B), so the decomposition is exact, for converged and
    for the paper's gradient fits alike."""
    p = hbm.random_distribution(6, seed=5)
    for mode in ("converged", "gradient"):
        res = hbm.bias_variance(p, 2, 100, 6, seed=0, mode=mode)
        assert abs(res.residual) < 1e-10
        np.testing.assert_allclose(res.totals, res.bias + res.variances, atol=1e-10)
    assert res.bias == pytest.approx(hbm.kl(p, hbm.project(p, 2)))


def test_bias_falls_with_the_order_and_variance_grows_with_it():
    """More parameters: lower bias (exactly monotone: the models are nested), higher variance
    at fixed N (the paper's finding)."""
    p = hbm.random_distribution(6, seed=6)
    rows = [hbm.bias_variance(p, k, 200, 8, seed=1) for k in (1, 3, 6)]
    assert rows[0].bias > rows[1].bias > rows[2].bias == pytest.approx(0.0, abs=1e-12)
    assert rows[0].variance < rows[1].variance < rows[2].variance


def test_sweep_is_the_same_with_an_executor():
    """Seeds are derived per (N, dataset), not per worker: a thread pool gives the identical
    numbers, bit for bit."""
    p = hbm.random_distribution(5, seed=7)
    models = (hbm.Model("hbm", 1), hbm.Model("hbm", 3))
    serial = hbm.sweep(p, models, [20, 200], 4, seed=2)
    with ThreadPoolExecutor(2) as pool:
        parallel = hbm.sweep(p, models, [20, 200], 4, seed=2, executor=pool)
    for key in ("bias", "variance", "total"):
        np.testing.assert_array_equal(getattr(serial, key), getattr(parallel, key))
    assert serial.total.shape == (2, 2) and np.all(serial.variance[:, 0] > serial.variance[:, 1])


def test_sweep_visits_every_model_at_one_n_before_the_next_and_matches_each_cell_alone():
    """The sweep runs N by N (so that its progress fraction follows the time spent: models
    differ in cost by orders of magnitude, a model's fits far less across N; from the second N
    on, each model's share is the time it took at the first); each cell equals
    ``bias_variance`` of that model and N alone."""
    p = hbm.random_distribution(5, seed=7)
    models = (hbm.Model("hbm", 1), hbm.Model("hbm", 3))
    said = []
    result = hbm.sweep(p, models, [20, 200], 3, seed=2,
                       progress=lambda f, m, partial=None: said.append((f, m)))
    assert [m for _, m in said] == ["N = 20, HBM order 1", "N = 20, HBM order 3",
                                    "N = 200, HBM order 1", "N = 200, HBM order 3"]
    fractions = [f for f, _ in said]
    assert fractions[:2] == [0.25, 0.5] and fractions[3] == 1.0
    assert 0.5 < fractions[2] < 1.0
    for a, model in enumerate(models):
        for b, N in enumerate((20, 200)):
            alone = hbm.bias_variance(p, None, N, 3, seed=2, model=model)
            assert result.total[a, b] == pytest.approx(alone.total, rel=1e-12)
            assert result.bias[a, b] == pytest.approx(alone.bias, rel=1e-12)


def test_rbm_likelihood_against_a_brute_force_sum_over_hidden_states():
    rng = np.random.default_rng(8)
    n, m = 4, 3
    W, b, c = rng.standard_normal((n, m)), rng.standard_normal(n), rng.standard_normal(m)
    states = hbm.visible_states(n)
    hidden = hbm.visible_states(m)
    joint = np.exp(states @ b)[:, None] * np.exp(states @ W @ hidden.T + hidden @ c)
    brute = joint.sum(axis=1) / joint.sum()
    np.testing.assert_allclose(np.exp(hbm.rbm_log_p(W, b, c)), brute, rtol=1e-12)


def test_rbm_without_hidden_units_equals_the_order_one_hbm():
    """m = 0 is independent visible units: its best fit is the product of the marginals."""
    p = hbm.random_distribution(5, seed=9)
    rbm = hbm.fit_rbm_exact(p, 0)
    np.testing.assert_allclose(rbm.p, hbm.project(p, 1), atol=1e-7)


def test_rbm_bias_falls_with_hidden_units_and_cd_learns():
    p = hbm.random_distribution(6, seed=10)
    biases = [hbm.kl(p, hbm.fit_rbm_exact(p, m, seed=0).p) for m in (0, 2, 6)]
    assert biases[0] > biases[1] > biases[2]
    rng = np.random.default_rng(11)
    counts = rng.multinomial(3000, p).astype(float)
    cd = hbm.fit_rbm_cd(counts, 4, epochs=30, seed=0)
    uniform = np.full(p.size, 1 / p.size)
    assert hbm.kl(counts / counts.sum(), cd.p) < hbm.kl(counts / counts.sum(), uniform)


def test_gibbs_eta_and_ais_log_z_against_the_exact_values():
    """The paper's approximations: Gibbs estimates of eta within Monte-Carlo error, and the AIS
    estimate of log Z within 4 of its standard errors of the exact value."""
    n = 6
    p = hbm.project(hbm.random_distribution(n, seed=12), 2)
    theta = hbm.theta_of(p)
    eta = hbm.gibbs_eta(theta, sweeps=40_000, seed=0)
    exact = hbm.eta_of(p)
    np.testing.assert_allclose(eta, exact, atol=0.02)
    est = hbm.ais_log_z(theta, steps=300, runs=400, seed=0)
    log_z = hbm.exact_log_z(theta)
    assert log_z == pytest.approx(-theta[0])
    assert abs(est.log_z - log_z) < 4 * est.stderr + 1e-3


@pytest.mark.parametrize("call", [
    lambda: hbm.random_distribution(13),
    lambda: hbm.project(hbm.random_distribution(4, seed=0), 5),
    lambda: hbm.fit_hbm(np.zeros(16), 2),
    lambda: hbm.fit_hbm(np.ones(15), 2),
    lambda: hbm.fit_hbm(np.ones(16), 2, mode="exact"),
    lambda: hbm.bias_variance(np.ones(16) / 16, 2, 0, 3),
    lambda: hbm.eta_of(np.full(16, 0.1)),
])
def test_bad_inputs_raise_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_gibbs_fit_approaches_the_exact_gradient_fit():
    """The paper's approximation: gradient steps with eta_B from 200 persistent Gibbs chains
    land near the exact-gradient fit (KL 1.2e-4 at n = 4; the uniform start is at 0.11)."""
    p = hbm.random_distribution(4, seed=13)
    counts = np.random.default_rng(13).multinomial(5000, p).astype(float)
    exact = hbm.fit_hbm(counts, 2, mode="gradient", iterations=3000)
    gibbs = hbm.fit_hbm(counts, 2, mode="gibbs", iterations=3000, chains=200, seed=0)
    uniform = np.full(16, 1 / 16)
    assert hbm.kl(exact, gibbs) < 0.002 < 0.05 < hbm.kl(exact, uniform)  # 1.2e-4 and 0.11


def test_sizes_and_orders_are_refused_by_name_not_hung():
    """Issue 25: n_parameters(4, 10**12) summed 10**12 binomials; order 0 was accepted."""
    with pytest.raises(ValueError, match="order"):
        hbm.n_parameters(4, 10**12)
    with pytest.raises(ValueError, match="order"):
        hbm.fit_hbm(np.ones(8), 0)
    with pytest.raises(ValueError, match="order"):
        hbm.order_mask(3, 0)
    assert hbm.n_parameters(4, 2) == 4 + 6
    with pytest.raises(ValueError, match="q"):
        hbm.kl(np.full(8, 1 / 8), np.full(4, 1 / 4))  # was an IndexError
    with pytest.raises(TypeError, match="models"):
        hbm.sweep(np.full(8, 1 / 8), ["hbm"], [10], 1)


def test_an_rbm_fitted_by_cd_is_a_valid_sweep_model():
    p = hbm.random_distribution(3, seed=0)
    result = hbm.bias_variance(p, None, 20, 2, model=hbm.Model("rbm", 1, "cd"), seed=0)
    assert np.isfinite(result.total) and result.total >= 0


def _sweep(low_large, high_large, high_small, spread, bias=(0.3, 0.1), datasets=6):
    """A finished Sweep of HBM orders 1 and 2 at N = 10 and 1000 whose per-dataset variances
    are the given means plus a noise of sd ``spread`` (the same datasets for both orders)."""
    rng = np.random.default_rng(0)
    shared = rng.standard_normal(datasets)
    each = np.empty((2, 2, datasets))
    each[0, 0] = 0.2 + spread * rng.standard_normal(datasets)
    each[1, 0] = high_small + spread * rng.standard_normal(datasets)
    each[0, 1] = low_large + spread * (shared + 0.3 * rng.standard_normal(datasets))
    each[1, 1] = high_large + spread * (shared + 0.3 * rng.standard_normal(datasets))
    bias = np.repeat(np.array(bias)[:, None], 2, axis=1)
    variance = each.mean(axis=2)
    return hbm.Sweep(models=(hbm.Model("hbm", 1), hbm.Model("hbm", 2)), Ns=np.array([10, 1000]),
                     bias=bias, variance=variance, total=bias + variance,
                     residual=np.zeros((2, 2)), n=4, datasets=datasets, done=4, variances=each)


def test_bias_variance_claim_three_outcomes():
    good = hbm.bias_variance_claim(_sweep(0.005, 0.02, 0.5, 0.001))
    assert good.result == "reproduced", good.why
    assert good.thresholds["BIAS_ROUNDING"] is hbm.BIAS_ROUNDING and "paired" in good.power
    # the higher order with the smaller variance at the largest N, beyond the noise
    assert hbm.bias_variance_claim(_sweep(0.02, 0.005, 0.5, 0.001)).result == "differs"
    # the bias rising with the order: exact, differs whatever the variances
    rising = hbm.bias_variance_claim(_sweep(0.005, 0.02, 0.5, 0.001, bias=(0.1, 0.1 + 1e-6)))
    assert rising.result == "differs" and "bias rises" in rising.why
    # the same means with a noise ten times the variance gap: not decided
    assert hbm.bias_variance_claim(_sweep(0.005, 0.02, 0.5, 0.3)).result == "not decided"
    # one dataset per N: no spread to judge by
    one = hbm.bias_variance_claim(_sweep(0.005, 0.02, 0.5, 0.001, datasets=1))
    assert one.result == "not decided" and "two datasets" in one.why
