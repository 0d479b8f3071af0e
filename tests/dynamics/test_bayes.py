"""Bayesian online learning by ADF (Opper, eqs 7.1-7.2, 8.10-8.12, 9.1-9.4)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats

from dynamics import bayes as ob


def _grid_moments(m, C, x, y, sigma0, flip=0.0, n=20001):
    """Brute force in 1-D: the prior N(m, C) times the likelihood on a fine grid; the mean and
    variance of the normalised product."""
    s = math.sqrt(C)
    theta = np.linspace(m - 12 * s, m + 12 * s, n)
    prior = stats.norm.pdf(theta, m, s)
    like = flip + (1 - 2 * flip) * special.ndtr(y * theta * x / sigma0)
    post = prior * like
    post /= np.trapezoid(post, theta)
    mean = np.trapezoid(theta * post, theta)
    return mean, np.trapezoid((theta - mean) ** 2 * post, theta)


@pytest.mark.parametrize("m, C, x, y, sigma0, flip", [
    (0.0, 1.0, 1.0, 1, 0.5, 0.0),
    (0.3, 2.0, -1.5, 1, 0.2, 0.0),
    (1.0, 0.5, 0.7, -1, 1.0, 0.0),
    (-2.0, 1.0, 2.0, 1, 0.3, 0.0),   # a surprising label: z far below 0
    (0.5, 1.0, 1.0, -1, 0.5, 0.1),   # output flips
])
def test_one_update_matches_the_moments_of_the_exact_posterior(m, C, x, y, sigma0, flip):
    """Eqs 7.1-7.2 are moment matching: in one dimension, one step from N(m, C) gives the mean
    and variance of prior x likelihood, integrated on a fine grid."""
    m1, C1 = ob.adf_update(np.array([m]), np.array([[C]]), np.array([x]), y, sigma0=sigma0,
                           flip=flip)
    mean, var = _grid_moments(m, C, x, y, sigma0, flip)
    assert m1[0] == pytest.approx(mean, abs=1e-7)
    assert C1[0, 0] == pytest.approx(var, abs=1e-7)


def test_multivariate_update_is_the_moment_match_along_x():
    """In N dimensions the likelihood depends on theta.x only, so the update is the 1-D moment
    match of the field h = theta.x (mean m.x, variance x^T C x) carried back through C x."""
    rng = np.random.default_rng(0)
    A = rng.standard_normal((4, 4))
    C = A @ A.T + np.eye(4)
    m, x = rng.standard_normal(4), rng.standard_normal(4)
    m1, C1 = ob.adf_update(m, C, x, -1, sigma0=0.7)
    h_mean, h_var = _grid_moments(m @ x, x @ C @ x, 1.0, -1, 0.7)
    assert m1 @ x == pytest.approx(h_mean, abs=1e-7)
    assert x @ C1 @ x == pytest.approx(h_var, abs=1e-7)
    # directions C-orthogonal to x are untouched
    v = rng.standard_normal(4)
    v -= (x @ C @ v) / (x @ C @ x) * x  # x^T C v = 0: C1 v = C v - (shrink) C x (x^T C v)
    np.testing.assert_allclose(C1 @ v, C @ v, atol=1e-10)


def test_numba_kernels_equal_the_numpy_update():
    rng = np.random.default_rng(1)
    N, t = 5, 300
    X = rng.standard_normal((t, N))
    y = np.where(rng.random(t) < 0.5, -1.0, 1.0)
    m, C = np.zeros(N), np.eye(N)
    c, ms = 1.0, np.zeros(N)
    for k in range(t):
        m, C = ob.adf_update(m, C, X[k], y[k], sigma0=0.8, flip=0.05)
        ms, c = ob.adf_update(ms, c, X[k], y[k], sigma0=0.8, flip=0.05)
    full = ob.adf_perceptron(X, y, sigma0=0.8, flip=0.05)
    sph = ob.adf_perceptron(X, y, sigma0=0.8, flip=0.05, spherical=True)
    np.testing.assert_allclose(full.mean, m, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(full.cov, C, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(sph.mean, ms, rtol=1e-9, atol=1e-12)
    assert sph.c == pytest.approx(c, rel=1e-9)
    path = ob.adf_path(X, y, sigma0=0.8, flip=0.05)
    np.testing.assert_allclose(path.means[-1], m, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("z", [-40.0, -30.0, -10.0, -5.0001, -4.9999, 0.0, 5.0, 40.0])
def test_the_ratio_is_stable_far_in_the_tails(z):
    """g = phi / Phi: log space in NumPy (log_ndtr), Mills' continued fraction in Numba;
    both finite and equal for |z| up to 40 (phi(-40) / Phi(-40) is about 40.02)."""
    exact = math.exp(-0.5 * z * z - 0.5 * math.log(2 * math.pi) - float(special.log_ndtr(z)))
    assert float(ob._g(z)) == pytest.approx(exact, rel=1e-12)
    assert ob._g_nb(z, 0.0) == pytest.approx(exact, rel=1e-10)
    assert ob._log_ndtr_nb(z) == pytest.approx(float(special.log_ndtr(z)), rel=1e-10, abs=1e-14)


def test_a_confident_wrong_prediction_does_not_blow_up():
    m, C = ob.adf_update(np.array([40.0]), np.array([[1.0]]), np.array([1.0]), -1, sigma0=1e-3)
    assert np.all(np.isfinite(m)) and np.all(np.isfinite(C)) and C[0, 0] > 0


def test_gaussian_regression_limit_is_the_kalman_filter():
    """For the linear-Gaussian model y = theta.x + noise the Gaussian update is exact (Bayes
    with a Gaussian prior is Gaussian): eqs 7.1-7.2 with ln E_u P = -(y - m.x)^2 / (2 s^2) give
    recursive least squares. Its result equals the batch posterior."""
    rng = np.random.default_rng(2)
    N, t, noise = 3, 50, 0.4
    X = rng.standard_normal((t, N))
    theta = rng.standard_normal(N)
    yv = X @ theta + noise * rng.standard_normal(t)
    m, C = np.zeros(N), np.eye(N)
    for x, y in zip(X, yv):
        m, C = ob.gaussian_update(m, C, x, y, noise=noise)
    post_cov = np.linalg.inv(np.eye(N) + X.T @ X / noise**2)
    np.testing.assert_allclose(C, post_cov, atol=1e-10)
    np.testing.assert_allclose(m, post_cov @ X.T @ yv / noise**2, atol=1e-10)


def test_toy_fisher_information_and_efficiency():
    """Fig 1: J = 1.6729 (Gauss-Legendre against scipy's adaptive quadrature), and ADF is
    efficient: t J E(theta_t - theta*)^2 -> 1 within Monte-Carlo error (4000 runs of 4000
    examples: standard error about 0.03)."""
    from scipy import integrate

    def integrand(x):
        v = (x - 0.1) / 0.5
        return stats.norm.pdf(v) ** 2 / (special.ndtr(v) * special.ndtr(-v)) / 0.25 / 2

    J = integrate.quad(integrand, -1, 1)[0]
    assert ob.toy_fisher() == pytest.approx(J, rel=1e-10)
    assert J == pytest.approx(1.6729, abs=1e-4)
    run = ob.toy_runs(4000, 4000, seed=0)
    ratio = run.t[-1] * run.mse[-1] / run.limit
    se = run.t[-1] * run.stderr[-1] / run.limit
    assert abs(ratio - 1) < 3 * se + 0.02


def test_misspecified_toy_follows_the_sandwich():
    """Eq 8.10: labels from a logistic teacher, probit model. The pseudo-true theta_p solves
    E_Q d ln P = 0; t E(theta_t - theta_p)^2 tends to A^-1 B A^-1 (0.473 at tau = 0.2), which
    differs from the model's J(theta_p)^-1 (0.598) by far more than the error bars."""
    theta_p, sandwich, inv_j = ob.toy_sandwich(tau=0.2)
    assert theta_p != pytest.approx(0.1, abs=1e-3)
    assert sandwich < 0.85 * inv_j
    run = ob.toy_runs(4000, 4000, logistic_tau=0.2, seed=1)
    assert run.target == pytest.approx(theta_p)
    scaled, se = run.t[-1] * run.mse[-1], run.t[-1] * run.stderr[-1]
    assert abs(scaled - sandwich) < 3 * se + 0.01
    assert abs(scaled - inv_j) > 3 * se


def test_replica_curve_numbers():
    """The batch-Bayes curve at sigma = 6.24 / sqrt 50 (an independent prototype: 0.321,
    0.262, 0.182, 0.131, 0.093), 0.5 at alpha = 0, decreasing, and for a noiseless teacher
    below the noisy one."""
    eps = ob.replica_bayes_curve([0.0, 1, 2, 5, 10, 20])
    np.testing.assert_allclose(eps[1:], [0.321, 0.262, 0.182, 0.131, 0.093], atol=1.5e-3)
    assert eps[0] == pytest.approx(0.5)
    assert np.all(np.diff(eps) < 0)
    assert np.all(ob.replica_bayes_curve([1, 5, 20], sigma=0.0) < eps[[1, 3, 5]])


def test_learning_curve_is_within_three_standard_errors_of_the_replica_curve():
    """Fig 2 at N = 50, 50 runs (the paper's sizes): for alpha >= 5 the ADF error lies within
    3 standard errors of batch Bayes in the thermodynamic limit (plus the finite-N gap, which
    the prototype measured below 0.005)."""
    lc = ob.learning_curve(50, 20, 50, seed=3)
    rep = ob.replica_bayes_curve(lc.alpha)
    for a in (5.0, 10.0, 20.0):
        k = int(np.flatnonzero(np.isclose(lc.alpha, a))[0])
        assert abs(lc.eps[k] - rep[k]) < 3 * lc.stderr[k] + 0.005
    assert lc.eps[-1] < lc.eps[0]


def test_entropic_error_approaches_n_over_2t():
    """Eq 8.12 for the well-specified perceptron: the entropic error times 2t / N rises to 1
    (measured 0.96 at alpha = 20 with N = 50: the asymptote is approached from below)."""
    lc = ob.learning_curve(20, 40, 40, entropic_tests=200, seed=4)
    ratio = lc.entropic * 2 * lc.alpha * lc.N / lc.N
    assert 0.85 < ratio[-1] < 1.1
    assert ratio[-1] > ratio[len(ratio) // 2]


def test_generalization_error_is_the_angle_over_pi():
    assert ob.generalization_error([1.0, 0.0], [0.0, 2.0]) == pytest.approx(0.5)
    assert ob.generalization_error([1.0, 1.0], [2.0, 2.0]) == pytest.approx(0.0, abs=1e-8)
    assert ob.generalization_error([-1.0, 0.0], [1.0, 0.0]) == pytest.approx(1.0)


@pytest.mark.parametrize("call", [
    lambda: ob.adf_update(np.zeros(2), np.eye(2), np.ones(3), 1, sigma0=1.0),
    lambda: ob.adf_update(np.zeros(2), np.eye(2), np.ones(2), 0, sigma0=1.0),
    lambda: ob.adf_update(np.zeros(2), np.eye(2), np.ones(2), 1, sigma0=-1.0),
    lambda: ob.adf_update(np.zeros(2), np.eye(2), np.array([np.nan, 1.0]), 1, sigma0=1.0),
    lambda: ob.adf_update(np.zeros(2), np.eye(2), np.ones(2), 1, sigma0=1.0, flip=0.5),
    lambda: ob.adf_perceptron(np.ones((3, 2)), [1, -1, 2], sigma0=1.0),
    lambda: ob.learning_curve(0),
    lambda: ob.learning_curve(10, alpha_max=-1),
    lambda: ob.generalization_error([1.0, 0.0], [0.0, 0.0]),
    lambda: ob.toy_runs(10, 1),
    lambda: ob.replica_bayes_curve([-1.0]),
])
def test_bad_inputs_raise_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_toy_and_replica_options_are_refused_by_name():
    """Issue 25: sigma0 = 0 divided by zero, theta out of range failed inside brentq."""
    with pytest.raises(ValueError, match="sigma0"):
        ob.toy_fisher(0.1, 0.0)
    with pytest.raises(ValueError, match="theta"):
        ob.toy_sandwich(theta=3.0)
    with pytest.raises(ValueError, match="nodes"):
        ob.replica_bayes_curve([1.0], nodes=10**12)
    with pytest.raises(ValueError, match="sigma0"):
        ob.adf_update(np.zeros(2), np.eye(2), np.ones(2), 1, sigma0=1e308)


def test_data_too_big_to_store_is_refused_before_allocating():
    with pytest.raises(ValueError, match="N and t"):
        ob.teacher_data(2000, 10**7, sigma0=0.5)  # 160 GB of inputs
