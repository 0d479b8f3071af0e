"""The finite-N batch Bayes posterior of the probit perceptron (the sampler against quadrature)
and the Hebbian form of the spherical ADF update (the remark after eq 9.4)."""

from __future__ import annotations

import numpy as np
import pytest

from dynamics import bayes as ob


def test_quadrature_is_exact_on_a_gaussian_limit():
    """With a huge label noise the likelihood is flat: the posterior is the prior, mean 0; with
    one example the posterior mean has a closed form, E[theta] = x S phi(0)... checked by a 1-D
    integral along x (the posterior only tilts along x)."""
    X = np.array([[1.0, 0.0]])
    m = ob.posterior_mean_quadrature(X, np.array([1.0]), sigma0=1.0, points=401, extent=8.0)
    # E[theta_1] = E[v Phi(v)] / E[Phi(v)] over v ~ N(0, 1) = (1 / sqrt(2 (1 + 1) pi)) / (1/2)
    assert m[0] == pytest.approx(2 / np.sqrt(4 * np.pi), abs=1e-6)
    assert m[1] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("N, t, flip, points", [(2, 30, 0.0, 201), (3, 15, 0.1, 51)])
def test_gibbs_posterior_mean_against_quadrature(N, t, flip, points):
    """The data-augmentation sampler's Rao-Blackwellised mean lands on the quadrature's (MC
    error about 0.01 at 20,000 sweeps)."""
    teacher, X, y = ob.teacher_data(N, t, sigma0=0.8, flip=flip, seed=N)
    exact = ob.posterior_mean_quadrature(X, y, sigma0=0.8, flip=flip, points=points)
    sampled = ob.posterior_mean_gibbs(X, y, sigma0=0.8, flip=flip, sweeps=20_000, seed=1)
    np.testing.assert_allclose(sampled, exact, atol=0.05)
    assert np.linalg.norm(exact) > 0.5  # the data moved the posterior away from the prior's 0


def test_batch_curve_at_n_2_against_quadrature_on_the_same_data():
    """batch_bayes_finite's eps at N = 2 against eps of the quadrature's posterior mean on the
    same teachers and data sets (redrawn by teacher_data from the documented seeds)."""
    curve = ob.batch_bayes_finite(2, 5.0, 4, sigma0=0.5, points=3, sweeps=3000, seed=4)
    seeds = np.random.default_rng(4).integers(0, 2**31 - 1, size=(4, 2))
    eps = np.zeros(curve.alpha.size)
    for r in range(4):
        teacher, X, y = ob.teacher_data(2, 10, sigma0=0.5, seed=int(seeds[r, 0]))
        for k, a in enumerate(curve.alpha):
            t = int(round(a * 2))
            m = ob.posterior_mean_quadrature(X[:t], y[:t], sigma0=0.5, points=161)
            eps[k] += ob.generalization_error(m, teacher) / 4
    np.testing.assert_allclose(curve.eps, eps, atol=0.01)
    assert eps[-1] < eps[0]


def test_batch_bayes_error_is_below_adf_at_small_n_up_to_noise():
    """Bayes' posterior mean is the optimal estimator for the eps of the mean's direction only
    approximately, but at N = 3 it should not be worse than ADF's by more than noise."""
    adf = ob.learning_curve(3, 5.0, 200, sigma0=1.0, points=3, seed=0)
    batch = ob.batch_bayes_finite(3, 5.0, 200, sigma0=1.0, points=3, sweeps=60, seed=1)
    i, j = np.flatnonzero(np.isclose(adf.alpha, 5.0))[0], np.flatnonzero(
        np.isclose(batch.alpha, 5.0))[0]
    assert batch.eps[j] < adf.eps[i] + 3 * np.hypot(adf.stderr[i], batch.stderr[j])


def test_spherical_update_is_a_weighted_hebb_term():
    """Eq 9.4's remark: the spherical mean update is F y x with F = c g(z)/s > 0 (a Hebb term),
    F depends on x only through the stability y m.x and |x|; the full update moves along C x,
    not x."""
    rng = np.random.default_rng(0)
    m, x, c = rng.normal(size=5), rng.normal(size=5), 0.7
    for y in (1.0, -1.0):
        F = ob.hebb_weight(m, c, x, y, sigma0=0.5)
        m_new, _ = ob.adf_update(m, c, x, y, sigma0=0.5)
        np.testing.assert_allclose(m_new - m, F * y * x, rtol=1e-12, atol=1e-14)
        assert F > 0
    # another input with the same |x| and the same m.x: the same weight
    q, _ = np.linalg.qr(np.c_[m, rng.normal(size=(5, 4))])
    x2 = (x @ q[:, 0]) * q[:, 0] + np.linalg.norm(x - (x @ q[:, 0]) * q[:, 0]) * q[:, 1]
    assert np.linalg.norm(x2) == pytest.approx(np.linalg.norm(x))
    assert ob.hebb_weight(m, c, x2, 1.0, sigma0=0.5) == pytest.approx(
        ob.hebb_weight(m, c, x, 1.0, sigma0=0.5), rel=1e-12)
    # a misclassified example (negative stability) weighs more than a well-classified one
    assert ob.hebb_weight(m, c, x, -np.sign(m @ x), sigma0=0.5) > ob.hebb_weight(
        m, c, x, np.sign(m @ x), sigma0=0.5)
    C = np.diag([0.2, 1.0, 2.0, 0.5, 1.5])
    m_full, _ = ob.adf_update(m, C, x, 1.0, sigma0=0.5)
    step = m_full - m
    assert abs(step @ x) / (np.linalg.norm(step) * np.linalg.norm(x)) < 0.999


@pytest.mark.parametrize("call, name", [
    (lambda: ob.posterior_mean_quadrature(np.ones((2, 4)), np.ones(2), sigma0=1.0), "N"),
    (lambda: ob.posterior_mean_gibbs(np.ones((2, 2)), np.ones(2), sigma0=0.0), "sigma0"),
    (lambda: ob.batch_bayes_finite(3, 2.0, 1, sigma0=1.0), "runs"),
    (lambda: ob.hebb_weight(np.ones(2), -1.0, np.ones(2), 1.0, sigma0=1.0), "c"),
])
def test_bad_inputs_are_refused_by_name(call, name):
    with pytest.raises(ValueError, match=name):
        call()
