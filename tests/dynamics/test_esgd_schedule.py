"""Embedding-SGD as Sec 5.6.1 runs it: the step eta / (eta0 + sqrt(i)), the l2 regularisers of
eq C.7, the step-weighted output of Algorithm 4, the baselines, the selection on validation data
and the claim's rule."""

from __future__ import annotations

import numpy as np
import pytest

from dynamics import esgd as es


def test_step_size_against_a_hand_computation():
    """gamma_i = eta / (eta0 + sqrt(i)): 10 / (10 + 1) at i = 1, 10 / (10 + 2) at i = 4,
    10 / (10 + 10) at i = 100; eta0 = 0 is gamma / sqrt(i) (0.5 / 3 at i = 9)."""
    assert es.step_size(1, eta=10.0, eta0=10.0) == pytest.approx(10 / 11, rel=1e-15)
    np.testing.assert_allclose(es.step_size(np.array([4, 100]), eta=10.0, eta0=10.0),
                               [10 / 12, 0.5], rtol=1e-15)
    assert es.step_size(9, eta=0.5, eta0=0.0) == pytest.approx(0.5 / 3, rel=1e-15)
    for bad in (dict(i=0, eta=1.0, eta0=1.0), dict(i=1.5, eta=1.0, eta0=1.0)):
        with pytest.raises(ValueError, match="i must"):
            es.step_size(**bad)
    with pytest.raises(ValueError, match="eta0"):
        es.step_size(1, eta=1.0, eta0=-1.0)


def _features(rng, count, bandwidths):
    """Random Fourier features as the engine draws them (W, then c), in float64."""
    W = rng.standard_normal((count, len(bandwidths))) / np.asarray(bandwidths)
    c = rng.uniform(0.0, 2.0 * np.pi, count)
    return lambda V: np.sqrt(2.0 / count) * np.cos(V @ W.T + c)


def test_three_regularised_steps_and_the_weighted_output_by_hand():
    """Eq C.7 with the schedule, written out for three steps of four data (z = x: no
    virtual-sample noise): theta <- (1 - g lam_f) theta - g Psi^T u / m, eta_u <- (1 - g lam_u)
    eta_u + g Phi^T (f - y - u) / m, both gradients at the old iterates, output
    sum g_i theta_i / sum g_i (Theorem 22's average weighted by the steps)."""
    rng = np.random.default_rng(5)
    x, y = rng.uniform(-0.5, 0.5, 12), rng.normal(size=12)
    eta, eta0, lam_f, lam_u, D = 2.0, 1.0, 0.3, 0.2, 7
    run = es.fit_method(x, y, method="embedding", eta=eta, eta0=eta0, lam_f=lam_f,
                        lam_u=lam_u, bandwidth_f=0.2, bandwidth_u=0.3, dual_y_scale=0.5,
                        features_f=D, features_u=D, virtual_noise=0.0, batch_size=4, seed=9,
                        test_points=5)
    feats = np.random.default_rng(9)
    psi, phi = _features(feats, D, [0.2]), _features(feats, D, [0.3, 0.6])
    theta, dual, total, weighted = np.zeros(D), np.zeros(D), 0.0, np.zeros(D)
    for i in (1, 2, 3):
        xb, yb = x[4 * (i - 1):4 * i], y[4 * (i - 1):4 * i]
        Psi, Phi = psi(xb[:, None]), phi(np.c_[xb, yb])
        g = eta / (eta0 + np.sqrt(i))
        u, f = Phi @ dual, Psi @ theta
        theta, dual = ((1 - g * lam_f) * theta - g * Psi.T @ u / 4,
                       (1 - g * lam_u) * dual + g * Phi.T @ (f - yb - u) / 4)
        total, weighted = total + g, weighted + g * theta
    grid = np.linspace(-0.5, 0.5, 5)
    np.testing.assert_allclose(run.fit, psi(grid[:, None]) @ (weighted / total), rtol=1e-4,
                               atol=1e-6)
    # the shrinkage 1 - gamma_1 lam must stay positive: gamma_1 = 2 / 2 = 1 here
    with pytest.raises(ValueError, match="lam_f"):
        es.fit_method(x, y, eta=eta, eta0=eta0, lam_f=1.0, batch_size=4, features_f=D,
                      features_u=D)


def test_the_baselines_reduce_to_each_other():
    """With one virtual sample a datum, SGD-SAA's (mean_j f(z_j) - y) mean_j psi(z_j) is SGD with
    virtual samples' (f(z) - y) psi(z); without virtual-sample noise that is plain regression."""
    _, x, y = es.noisy_measurement(600, seed=1)
    common = dict(features_f=30, features_u=30, batch_size=20, seed=2, checkpoints=3)
    virtual = es.fit_method(x, y, method="virtual", virtual_samples=1, **common)
    saa = es.fit_method(x, y, method="saa", virtual_samples=1, **common)
    # the same sums in another order, on float32 features (eps 6e-8)
    np.testing.assert_allclose(saa.fit, virtual.fit, rtol=1e-5, atol=1e-6)
    quiet = es.fit_method(x, y, method="virtual", virtual_noise=0.0, virtual_samples=3,
                          **common)
    plain = es.fit_method(x, y, method="plain", **common)
    np.testing.assert_allclose(quiet.fit, plain.fit, rtol=1e-5, atol=1e-6)
    assert set(plain.history) == {"seen", "mse", "mse_interior"}
    inside = np.abs(plain.grid) <= es.INTERIOR
    assert plain.mse_interior == pytest.approx(
        np.mean((plain.fit[inside] - plain.target[inside]) ** 2))


def test_selection_takes_the_lowest_validation_mse_and_counts_divergence_as_inf():
    candidates = [dict(eta=10.0, eta0=10.0, bandwidth_f=0.1, bandwidth_u=0.1),
                  dict(eta=0.1, eta0=100.0, bandwidth_f=0.1, bandwidth_u=0.1),
                  dict(eta=1e6, eta0=1.0, bandwidth_f=0.1, bandwidth_u=0.1)]
    sel = es.select("embedding", data=2000, features=40, virtual_samples=1, lam=0.0,
                    candidates=candidates, seed=3)
    assert np.isinf(sel.scores[2]) and np.all(np.isfinite(sel.scores[:2]))
    assert sel.best == candidates[int(np.argmin(sel.scores))]
    # a score is the candidate's MSE on the validation inputs, trained on the selection's data
    _, x, y = es.noisy_measurement(2000, seed=503)
    run = es.fit_method(x, y, seed=505, test_inputs=es.validation_inputs(seed=504),
                        features_f=40, features_u=40, lam_f=0.0, lam_u=0.0, **candidates[0])
    assert sel.scores[0] == pytest.approx(run.mse, rel=1e-12)
    assert len(es.selection_grid("embedding")) == 3 * 3 * 4 * 4
    assert len(es.selection_grid("saa")) == 3 * 3 * 4


def test_sgd_with_virtual_samples_learns_the_truth_blurred_twice():
    """Sec 5.5.1: the virtual-sample technique minimises the upper bound E_{x,y,z} (f(z) - y)^2,
    whose minimiser is E[y | z] with z = x~ + 0.05 e + 0.05 e'': the truth blurred by an input
    noise of sd 0.05 sqrt(2), derived here by quadrature. Measured after 20,000 data: 0.0003
    from it, 0.020 from the truth blurred once (what plain regression learns), 0.17 from the
    truth."""
    def blurred(x, sd):
        clean = np.linspace(-0.5, 0.5, 4001)
        w = np.exp(-0.5 * ((x[:, None] - clean[None]) / sd) ** 2)
        return (w * es.truth(clean)).sum(1) / w.sum(1)
    _, x, y = es.noisy_measurement(20_000, seed=0)
    run = es.fit_method(x, y, method="virtual", virtual_samples=10, features_f=200, seed=1,
                        **es.SELECTED["virtual"])
    twice = np.mean((run.fit - blurred(run.grid, es.INPUT_NOISE * np.sqrt(2))) ** 2)
    once = np.mean((run.fit - blurred(run.grid, es.INPUT_NOISE)) ** 2)
    assert twice < 0.1 * once and twice < 0.01 * run.mse
