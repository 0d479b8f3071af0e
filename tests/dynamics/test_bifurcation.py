"""Temperature bifurcations (Chen & Welling, seed 000, Sec 1.2.2, eqs 1.6-1.9, Fig 1.1).

The kernels against plain NumPy references, and the statements of the paper: at high T the map
converges to the maximum-likelihood fixed point (checked against an independent scipy solve of the
convex log-partition problem), as T falls the attractor doubles 1 -> 2 -> 4 -> 8 ..., and as T -> 0
the map is herding (checked against ``dynamics.herding.herd``). Numbers asserted that the paper does
not state are derived in the docstrings here: the first doubling at T_1 = eta lambda_max(Cov_p*) / 2
(Jacobian I - (eta/T) Cov at the fixed point), Lyapunov exponents equal to the log moduli of that
Jacobian's eigenvalues, and Feigenbaum's universal ratio 4.6692 for the deep doublings.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize, root
from scipy.special import logsumexp

from dynamics import bifurcation as bf
from dynamics.bifurcation import _kernels
from dynamics.bifurcation import (
    DEFAULT_SEED,
    FEIGENBAUM_DELTA,
    attractor_period,
    bifurcation,
    doubling_cascade,
    first_doubling_temperature,
    fixed_point,
    lyapunov_exponent,
    lyapunov_sweep,
    mle_parameters,
    period_doublings,
    periods,
    refine_doubling,
    tempered_trajectory,
)
from dynamics.herding import herd, random_model


# ---------------------------------------------------------------------------------------------
# Plain NumPy references (numpy_diagram is also the benchmark's reference)
# ---------------------------------------------------------------------------------------------
def numpy_trajectory(features, moments, temperature, steps, w0=None, eta=1.0):
    """Eq 1.9 times T, one step at a time with np.exp: w += eta (phi_bar - E_{p_T(w)}[phi])."""
    K = features.shape[1]
    w = np.zeros(K) if w0 is None else np.array(w0, dtype=float)
    out = [w.copy()]
    for _ in range(steps):
        s = features @ w / temperature
        p = np.exp(s - s.max())
        p /= p.sum()
        w = w + eta * (moments - p @ features)
        out.append(w.copy())
    return np.array(out)


def numpy_diagram(features, moments, temperatures, burn_in, keep, w0=None, eta=1.0):
    """The bifurcation diagram vectorised across temperatures: arrays (n_temps, K) per step."""
    temps = np.asarray(temperatures, dtype=float)
    n, K = temps.size, features.shape[1]
    w = np.zeros((n, K)) if w0 is None else np.tile(np.asarray(w0, dtype=float), (n, 1))
    out = np.empty((n, keep, K))
    inv_t = 1.0 / temps[:, None]
    for t in range(burn_in + keep):
        if t >= burn_in:
            out[:, t - burn_in] = w
            if t == burn_in + keep - 1:
                break
        s = w @ features.T
        s -= s.max(axis=1, keepdims=True)
        e = np.exp(s * inv_t)
        w += eta * (moments - (e @ features) / e.sum(axis=1, keepdims=True))
    return out


def numpy_periods(samples, tol=1e-6, max_period=64):
    out = np.zeros(samples.shape[0], dtype=np.int64)
    for i, x in enumerate(samples):
        for p in range(1, min(max_period, x.shape[0] - 1) + 1):
            if np.all(np.linalg.norm(x[p:] - x[:-p], axis=1) < tol):
                out[i] = p
                break
    return out


def numpy_jacobian(features, w, temperature, eta=1.0):
    """J(w) = I - (eta / T) Cov_{p_T(w)}(phi): the derivative of the map of eq 1.9 (times T)."""
    s = features @ w / temperature
    p = np.exp(s - s.max())
    p /= p.sum()
    c = features - p @ features
    return np.eye(features.shape[1]) - (eta / temperature) * (c * p[:, None]).T @ c


def numpy_lyapunov(features, moments, temperature, steps, burn_in, w0=None, eta=1.0):
    """Benettin's QR method with np.linalg.qr, exponents in decreasing order."""
    K = features.shape[1]
    w = numpy_trajectory(features, moments, temperature, burn_in, w0, eta)[-1]
    q = np.eye(K)
    sums = np.zeros(K)
    for _ in range(steps):
        q, r = np.linalg.qr(numpy_jacobian(features, w, temperature, eta) @ q)
        sums += np.log(np.abs(np.diag(r)))
        q = q * np.sign(np.diag(r))
        w = numpy_trajectory(features, moments, temperature, 1, w, eta)[-1]
    return np.sort(sums / steps)[::-1]


def rounding_bound(features, moments, temperature, eta, ref):
    """Largest distance ||w_t - w'_t||_2 that rounding alone can put between two float64 runs
    of eq 1.9 from the same w0 (the kernel and `numpy_trajectory`), row by row of ``ref``.

    Derivation (u = 2^-53 unit roundoff; we use eps = 2u, which covers the (1 + u)^n - 1 <= n u
    slack of the textbook bounds). One step w' = w + eta (phi_bar - sum_d p_d phi_d),
    p = softmax(s / T), s_d = phi_d . w, computed in floating point, differs from the exact
    step by a local error delta with, in the max norm, M = max |phi|, S = max_d sum_k |phi_dk w_k|:
      - the scores: a K-term dot product, then (s_d - s_max) * (1/T), is off by at most
        (K + 2) eps S / T; an exponent error a moves E_p[phi] by sum_d p_d (phi_d - E phi) a,
        at most 2 M (K + 2) eps S / T, plus 2 M eps for the exp's own relative error;
      - normalising (a D-term sum, a division) and the D-term sum p @ phi: (D + 3) eps M;
      - phi_bar - m, times eta, plus w: eps (|phi_bar| + |w'|) at most.
    Both implementations make such an error (in different orders), so their one-step
    difference is at most 2 delta_t; sqrt(K) turns the max norm into the 2-norm.
    The error delta_s made in computing row s + 1 is carried to row t by the map's derivative
    along the trajectory, J_{t-1} ... J_{s+1} with J(w) = I - (eta/T) Cov_{p_T(w)}(phi)
    (`numpy_jacobian`), so ||e_t|| <= sum_{s<t} ||J_{t-1} ... J_{s+1}||_2 2 sqrt(K) delta_s.
    That norm is the local expansion (Lyapunov growth) of this very trajectory: in the chaotic
    band it grows ~2.5x a step (seed 4, D = K = 3, T = 0.6117, eta = 2.842:
    ||J_16 ... J_1|| = 2.5e6, the runs 2.2e-9 apart after 17 steps, which a fixed 1e-9
    refused); near a stable fixed point it shrinks. The derivative is taken on the reference
    trajectory (first order in e). Measured on 5000 random examples of the strategy: the bound
    stayed below 1e-5 and the observed distance was 0.7 % of it (median), 14 % at worst, slack
    that covers the second-order term ~(eta/T^2) M^3 |e|^2; so the bound is not below the
    rounding growth, and a wrong temperature (T (1 + 1e-7)), eta or sign moves the first step
    by orders of magnitude more than the bound's 1e-13 there.
    """
    D, K = features.shape
    eps = np.finfo(np.float64).eps
    M = np.abs(features).max()
    steps = ref.shape[0] - 1
    local = np.empty(steps)
    jacobians = np.empty((steps, K, K))
    for s in range(steps):
        w, w_next = ref[s], ref[s + 1]
        S = (np.abs(features) @ np.abs(w)).max()
        local[s] = 2 * np.sqrt(K) * eps * (
            np.abs(w_next).max()
            + eta * (np.abs(moments).max() + (D + 3) * M + 2 * M * ((K + 2) * S / temperature + 1)))
        jacobians[s] = numpy_jacobian(features, w, temperature, eta)
    bound = np.zeros(steps + 1)
    carried = np.empty((0, K, K))          # carried[j] = J_{t-1} ... J_{j+1}, one per error s = j
    for t in range(1, steps + 1):
        carried = np.concatenate([jacobians[t - 1] @ carried, np.eye(K)[None]])
        bound[t] = np.sum(np.linalg.norm(carried, ord=2, axis=(1, 2)) * local[:t])
    return bound


def scipy_theta(features, moments):
    """Independent maximum-likelihood solve: argmin_theta log Z(theta) - theta . phi_bar."""
    def f(th):
        return logsumexp(features @ th) - th @ moments

    def g(th):
        p = np.exp(features @ th - logsumexp(features @ th))
        return p @ features - moments

    def h(th):
        return scipy_covariance(features, th)

    res = minimize(f, np.zeros(features.shape[1]), jac=g, method="BFGS",
                   options={"gtol": 1e-12, "maxiter": 10_000})
    # BFGS stops at ~1e-8 in the gradient when f is flat to round-off: polish by solving the
    # moment-matching equations E_theta[phi] = phi_bar themselves
    return root(g, res.x, jac=h, method="hybr", tol=1e-15).x


def scipy_covariance(features, theta):
    p = np.exp(features @ theta - logsumexp(features @ theta))
    c = features - p @ features
    return (c * p[:, None]).T @ c


seeds = st.integers(0, 2**31)


# ---------------------------------------------------------------------------------------------
# Kernels against the references
# ---------------------------------------------------------------------------------------------
def test_exp_kernel_matches_numpy_exp():
    x = np.concatenate([-np.logspace(-300, np.log10(708.0), 20_000), [0.0, -1e-320, -708.0]])
    got = np.array([_kernels._exp(v) for v in x[::50]] + [_kernels._exp(v) for v in x[-3:]])
    want = np.exp(np.concatenate([x[::50], x[-3:]]))
    assert np.max(np.abs(got - want) / want) < 4e-16
    assert _kernels._exp(0.0) == 1.0
    # below -708 the value is flushed to exp(-708), never 0 / inf / NaN
    assert _kernels._exp(-1e300) == _kernels._exp(-np.inf) == _kernels._exp(-708.0)
    assert _kernels._exp(-708.0) == pytest.approx(np.exp(-708.0), rel=1e-15)


@given(seeds, st.integers(2, 6), st.integers(1, 3), st.floats(0.1, 5.0),
       st.floats(0.1, 3.0), st.integers(1, 25))
def test_trajectory_matches_numpy_reference(seed, D, K, T, eta, steps):
    model = random_model(D, K, seed=seed)
    w0 = np.random.default_rng(seed).standard_normal(K)
    res = tempered_trajectory(model.features, model.moments, T, steps, w0=w0, eta=eta)
    ref = numpy_trajectory(model.features, model.moments, T, steps, w0, eta)
    assert res.weights.shape == (steps + 1, K) and res.weights.dtype == np.float64
    assert np.array_equal(res.weights[0], w0)
    distance = np.linalg.norm(res.weights - ref, axis=1)
    bound = rounding_bound(model.features, model.moments, T, eta, ref)
    assert np.all(distance <= bound), (distance, bound)
    assert bound[1] < 1e-11     # one step agrees to rounding: a wrong map would be seen here


def test_rounding_bound_follows_the_expansion_of_the_map():
    """The chaotic example a fixed 1e-9 refused (2.2e-9 apart after 17 steps here) is within
    its bound, which starts at rounding size and grows as the product of the Jacobians does."""
    model = random_model(3, 3, seed=4)
    w0 = np.random.default_rng(4).standard_normal(3)
    T, eta, steps = 0.61168, 2.842, 17
    res = tempered_trajectory(model.features, model.moments, T, steps, w0=w0, eta=eta)
    ref = numpy_trajectory(model.features, model.moments, T, steps, w0, eta)
    distance = np.linalg.norm(res.weights - ref, axis=1)
    bound = rounding_bound(model.features, model.moments, T, eta, ref)
    assert np.all(distance <= bound)
    growth = np.eye(3)                       # J_{16} ... J_1: carries the first step's error
    for t in range(1, steps):
        growth = numpy_jacobian(model.features, ref[t], T, eta) @ growth
    assert np.linalg.norm(growth, 2) > 1e6   # the map expands here: no fixed tolerance holds
    assert bound[1] < 1e-12 < 1e-9 < bound[-1]
    assert bound[-1] >= np.linalg.norm(growth, 2) * bound[1]


@settings(max_examples=20)
@given(seeds, st.integers(2, 5), st.integers(1, 3), st.integers(1, 150), st.integers(0, 6),
       st.integers(1, 12))
def test_diagram_kernel_matches_numpy_reference(seed, D, K, n, burn_in, keep):
    """n not a multiple of LANES exercises the padded last block."""
    model = random_model(D, K, seed=seed)
    temps = np.random.default_rng(seed).uniform(0.2, 3.0, n)
    res = bifurcation(model.features, model.moments, temps, burn_in=burn_in, keep=keep)
    ref = numpy_diagram(model.features, model.moments, temps, burn_in, keep)
    assert res.samples.shape == (n, keep, K)
    np.testing.assert_allclose(res.samples, ref, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(res.temperatures, temps)


@settings(max_examples=15)
@given(seeds, st.integers(0, 300), st.integers(1, 40))
def test_diagram_rows_are_trajectories_bit_for_bit(seed, burn_in, keep):
    """Same operations in the same order, lane by lane: a row equals the single trajectory."""
    model = random_model(4, 2, seed=seed)
    temps = np.array([1e-300, 1e-6, 0.01, 0.07, 0.2, 0.5, 3.0])
    w0 = np.array([0.3, -0.1])
    res = bifurcation(model.features, model.moments, temps, burn_in=burn_in, keep=keep, w0=w0)
    for i, T in enumerate(temps):
        traj = tempered_trajectory(model.features, model.moments, T, burn_in + keep, w0=w0)
        assert np.array_equal(res.samples[i], traj.weights[burn_in:burn_in + keep])


@settings(max_examples=20)
@given(seeds, st.integers(1, 8), st.integers(2, 40), st.integers(1, 3))
def test_periods_kernel_matches_numpy_reference(seed, n, keep, K):
    rng = np.random.default_rng(seed)
    base = rng.standard_normal((n, 6, K))
    period = rng.integers(1, 7, n)
    samples = np.stack([np.resize(base[i, :period[i]], (keep, K)) for i in range(n)])
    samples += rng.choice([0.0, 1e-9, 1e-3], size=(n, 1, 1)) * rng.standard_normal(samples.shape)
    for max_period in (1, 3, 64):
        np.testing.assert_array_equal(periods(samples, max_period=max_period),
                                      numpy_periods(samples, max_period=max_period))


@given(seeds, st.floats(0.05, 2.0), st.integers(1, 8))
def test_cycle_kernel_matches_numpy_monodromy(seed, T, q):
    model = random_model(4, 2, seed=seed)
    w = np.random.default_rng(seed).standard_normal(2)
    w_out, mono = np.empty(2), np.empty((2, 2))
    _kernels._cycle_kernel(model.features, model.moments, 1.0 / T, 1.0, w, q, w_out, mono)
    traj = numpy_trajectory(model.features, model.moments, T, q, w)
    want = np.eye(2)
    for t in range(q):
        want = numpy_jacobian(model.features, traj[t], T) @ want
    np.testing.assert_allclose(w_out, traj[-1], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mono, want, rtol=1e-8, atol=1e-10)


@settings(max_examples=20)
@given(seeds, st.integers(2, 5), st.integers(1, 3), st.floats(0.05, 3.0))
def test_lyapunov_kernel_matches_numpy_qr(seed, D, K, T):
    model = random_model(D, K, seed=seed)
    got = lyapunov_exponent(model.features, model.moments, T, 30, burn_in=5).exponents
    want = numpy_lyapunov(model.features, model.moments, T, 30, 5)
    # in chaotic cases round-off differences (exp, QR) grow like e^(35 lambda): keep those mild
    assume(want[0] < 0.5)
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9 * np.exp(35 * max(want[0], 0.0)))


# ---------------------------------------------------------------------------------------------
# High temperature: the maximum-likelihood fixed point (Sec 1.2.2)
# ---------------------------------------------------------------------------------------------
@settings(max_examples=25)
@given(seeds, st.integers(3, 6), st.floats(0.3, 2.0))
def test_high_temperature_converges_to_moment_matching_fixed_point(seed, D, eta):
    """"When T is large enough ... w/T will approach a single point which is the MLE".

    T = eta * diam^2 / 4 bounds eta/T * Cov by 1 everywhere (a projection of phi has variance
    <= range^2 / 4), so the iteration is a convergent gradient ascent; near w* it contracts by
    1 - eta c_min / T per step, hence the assumption on c_min.
    """
    model = random_model(D, 2, seed=seed)
    phi = model.features
    diam = max(np.linalg.norm(a - b) for a in phi for b in phi)
    T = eta * diam**2 / 4
    theta = scipy_theta(phi, model.moments)
    c_min = np.linalg.eigvalsh(scipy_covariance(phi, theta)).min()
    contraction = 1 - eta * c_min / T
    steps = 3000
    assume(contraction**steps * (1 + np.linalg.norm(T * theta)) < 1e-11)
    w = tempered_trajectory(phi, model.moments, T, steps, eta=eta).weights[-1]
    np.testing.assert_allclose(w, T * theta, atol=1e-8 * (1 + T * np.abs(theta).max()))
    np.testing.assert_allclose(fixed_point(phi, model.moments, T), T * theta,
                               atol=1e-7 * (1 + T * np.abs(theta).max()))
    # E_{p_T(w)}[phi] = phi_bar: moment matching (eq 1.1)
    s = phi @ w / T
    p = np.exp(s - s.max())
    np.testing.assert_allclose(p @ phi / p.sum(), model.moments, atol=1e-9)


@settings(max_examples=25)
@given(seeds, st.integers(3, 8), st.integers(1, 3))
def test_mle_parameters_match_scipy(seed, D, K):
    model = random_model(D, K, seed=seed)
    theta = mle_parameters(model.features, model.moments)
    p = np.exp(model.features @ theta - logsumexp(model.features @ theta))
    np.testing.assert_allclose(p @ model.features, model.moments, atol=1e-10)
    ref = scipy_theta(model.features, model.moments)
    np.testing.assert_allclose(model.features @ theta - logsumexp(model.features @ theta),
                               model.features @ ref - logsumexp(model.features @ ref), atol=1e-5)


@settings(max_examples=20)
@given(seeds, st.floats(0.5, 2.0))
def test_first_doubling_at_derived_temperature(seed, eta):
    """The fixed point's Jacobian I - (eta/T) C has eigenvalue 1 - eta c_max / T = -1 at
    T_1 = eta c_max / 2 (C = Cov at the MLE, from scipy): above, the attractor is one point;
    below, two points (the first split of Fig 1.1)."""
    model = random_model(4, 2, seed=seed)
    theta = scipy_theta(model.features, model.moments)
    c, v = np.linalg.eigh(scipy_covariance(model.features, theta))
    T1 = eta * c[-1] / 2
    assert first_doubling_temperature(model.features, model.moments, eta=eta) == pytest.approx(
        T1, rel=1e-6)
    point = refine_doubling(model.features, model.moments, 2, 0.8 * T1, 1.25 * T1, eta=eta)
    assert point.temperature == pytest.approx(T1, rel=1e-6)
    assert point.multiplier == pytest.approx(-1.0, abs=1e-6)
    assert point.cycle.shape == (1, 2)
    # start next to w* along the critical direction (the other one may relax very slowly)
    for factor, period in ((1.05, 1), (0.97, 2)):
        if period == 2 and c[0] < 0.05 * T1 / eta:
            continue  # the 2-cycle would still be creeping along the slow direction
        w0 = factor * T1 * theta + 1e-3 * v[:, -1]
        traj = tempered_trajectory(model.features, model.moments, factor * T1, 20000, w0=w0,
                                   eta=eta)
        assert attractor_period(traj.weights[-200:]) == period


def test_fixed_point_jacobian_is_the_covariance_formula():
    """Finite differences of the map at w*: J = I - (eta/T) Cov_{p_T(w*)}(phi)."""
    model = random_model(4, 2, seed=DEFAULT_SEED)
    T, eta = 0.5, 0.7
    w = fixed_point(model.features, model.moments, T)
    h = 1e-6
    fd = np.empty((2, 2))
    for j in range(2):
        dw = np.zeros(2)
        dw[j] = h
        plus = tempered_trajectory(model.features, model.moments, T, 1, w0=w + dw, eta=eta)
        minus = tempered_trajectory(model.features, model.moments, T, 1, w0=w - dw, eta=eta)
        fd[:, j] = (plus.weights[1] - minus.weights[1]) / (2 * h)
    np.testing.assert_allclose(fd, numpy_jacobian(model.features, w, T, eta), atol=1e-8)


# ---------------------------------------------------------------------------------------------
# The cascade (Fig 1.1 left) on the default model
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def default_cascade():
    model = random_model(4, 2, seed=DEFAULT_SEED)
    T1 = first_doubling_temperature(model.features, model.moments)
    temps = np.linspace(0.005, 1.1 * T1, 2000)
    cascade = doubling_cascade(model.features, model.moments, temps, burn_in=20000, extend=3)
    return model, T1, cascade


def test_default_model_doubles_repeatedly(default_cascade):
    """"the asymptotic oscillation period doubles from two to four, four to eight, etc"."""
    model, T1, c = default_cascade
    n = c.periods.size
    assert n >= 8
    np.testing.assert_array_equal(c.periods, 2 ** np.arange(1, n + 1))
    assert c.refined.all()
    assert np.all(np.diff(c.temperatures) < 0)
    assert c.temperatures[0] == pytest.approx(T1, rel=1e-9)
    # each grid bracket holds (or abuts within a grid step) the refined doubling
    step = (1.1 * T1 - 0.005) / 1999
    grid_part = c.brackets[:6]
    assert np.all(grid_part[:, 0] - 2 * step <= c.temperatures[:6])
    assert np.all(c.temperatures[:6] <= grid_part[:, 1] + 2 * step)
    # between consecutive doublings the attractor has the period of the cascade
    for n_, (hi, lo) in enumerate(zip(c.temperatures[:5], c.temperatures[1:6])):
        traj = tempered_trajectory(model.features, model.moments, 0.5 * (hi + lo), 60000)
        assert attractor_period(traj.weights[-300:], tol=1e-7, max_period=128) == 2 ** (n_ + 1)


def test_default_model_ratios_approach_feigenbaum(default_cascade):
    """Successive doubling intervals shrink by Feigenbaum's delta = 4.6692... (universal for
    period-doubling cascades of smooth maps; not stated in the paper)."""
    _, _, c = default_cascade
    assert c.ratios.size == c.periods.size - 2
    assert abs(c.ratios[-1] - FEIGENBAUM_DELTA) < 0.02
    # the accumulation point lies below the last doubling, within a few last intervals
    assert c.temperatures[-1] - 2 * c.intervals[-1] < c.t_thresh_extrapolated < c.temperatures[-1]
    # the grid's first persistent aperiodic reading is just below the accumulation point
    assert c.t_thresh_grid is not None
    assert c.t_thresh_grid < c.temperatures[-1]
    assert abs(c.t_thresh_grid - c.t_thresh_extrapolated) < 1e-3
    # below the accumulation point the orbit is not periodic up to 64
    model = random_model(4, 2, seed=DEFAULT_SEED)
    traj = tempered_trajectory(model.features, model.moments, c.t_thresh_extrapolated - 3e-4, 20000)
    assert attractor_period(traj.weights[-500:]) == 0


def test_lyapunov_vanishes_at_doublings_and_is_negative_between(default_cascade):
    """At a doubling a multiplier is -1, so lambda_1 -> 0; inside a periodic window lambda_1 < 0."""
    model, _, c = default_cascade
    at = lyapunov_sweep(model.features, model.moments, c.temperatures[:3], 20000, burn_in=20000)
    assert np.all(np.abs(at.largest) < 2e-3)
    mids = 0.5 * (c.temperatures[:3] + c.temperatures[1:4])
    between = lyapunov_sweep(model.features, model.moments, mids, 5000, burn_in=20000)
    assert np.all(between.largest < -0.02)
    assert np.all(np.diff(between.exponents, axis=1) <= 0)


def test_no_cascade_is_graceful():
    model = random_model(4, 2, seed=DEFAULT_SEED)
    T1 = first_doubling_temperature(model.features, model.moments)
    # a grid entirely above T_1: period 1 everywhere, nothing to report
    c = doubling_cascade(model.features, model.moments, np.linspace(1.2 * T1, 3 * T1, 50))
    assert c.periods.size == c.temperatures.size == c.intervals.size == c.ratios.size == 0
    assert c.brackets.shape == (0, 2)
    assert c.t_thresh_grid is None and c.t_thresh_extrapolated is None
    # only the first doubling inside the grid: no interval, no ratio, no extrapolation
    c = doubling_cascade(model.features, model.moments, np.linspace(0.9 * T1, 1.1 * T1, 21))
    np.testing.assert_array_equal(c.periods, [2])
    assert c.intervals.size == 0 and c.ratios.size == 0 and c.t_thresh_extrapolated is None


# ---------------------------------------------------------------------------------------------
# Period detection and the grid reading of the cascade
# ---------------------------------------------------------------------------------------------
@given(seeds, st.integers(1, 20), st.integers(1, 3), st.integers(0, 30))
def test_attractor_period_of_constructed_orbits(seed, p, K, extra):
    rng = np.random.default_rng(seed)
    points = rng.standard_normal((p, K))
    points[:, 0] += 10 * np.arange(p)  # distinct points, so the minimal period is p
    keep = p + 1 + extra
    orbit = np.resize(points, (keep, K))
    assert attractor_period(orbit) == p
    noisy = orbit + 1e-8 * rng.standard_normal(orbit.shape)
    assert attractor_period(noisy, tol=1e-6) == p
    louder = orbit + 1e-3 * rng.standard_normal(orbit.shape)
    assert attractor_period(louder, tol=1e-6) == 0
    if p > 1:
        assert attractor_period(orbit, max_period=p - 1) == 0  # period beyond max_period
    # a window as long as the period cannot show it
    assert attractor_period(orbit[:p]) == 0


@pytest.mark.parametrize("p", [1, 2, 3, 4, 8])
def test_attractor_period_small_cases(p):
    orbit = np.resize(np.arange(p, dtype=float)[:, None] * [1.0, -2.0], (100, 2))
    assert attractor_period(orbit) == p
    assert attractor_period(np.resize(orbit, (p + 1, 2))) == p


def test_attractor_period_aperiodic_is_zero():
    t = np.arange(500)
    rotation = np.stack([np.cos(t * np.sqrt(2)), np.sin(t * np.sqrt(2))], axis=1)
    assert attractor_period(rotation) == 0
    assert attractor_period(np.random.default_rng(0).standard_normal((300, 2))) == 0
    assert attractor_period(np.zeros((1, 2))) == 0  # keep = 1: no period can be tested


def test_period_doublings_on_a_synthetic_diagram():
    temps = np.linspace(1.0, 0.0, 101)[:-1]       # 1.00, 0.99, ..., 0.01 (descending)
    per = np.zeros(100, dtype=np.int64)
    per[temps > 0.6] = 1
    per[(temps <= 0.6) & (temps > 0.3)] = 2
    per[(temps <= 0.3) & (temps > 0.2)] = 4
    per[(temps <= 0.2) & (temps > 0.175)] = 8
    per[np.isclose(temps, 0.29)] = 0            # a transient zero inside the cascade
    order = np.random.default_rng(1).permutation(100)
    c = period_doublings(temps[order], per[order])
    np.testing.assert_array_equal(c.periods, [2, 4, 8])
    np.testing.assert_allclose(c.brackets, [[0.60, 0.61], [0.30, 0.31], [0.20, 0.21]], atol=1e-12)
    np.testing.assert_allclose(c.temperatures, [0.605, 0.305, 0.205])
    np.testing.assert_allclose(c.intervals, [0.3, 0.1])
    np.testing.assert_allclose(c.ratios, [3.0])
    # T_inf = T_3 - (T_2 - T_3) / (delta - 1) with the measured delta = 3
    assert c.t_thresh_extrapolated == pytest.approx(0.205 - 0.1 / 2)
    assert c.t_thresh_grid == pytest.approx(0.17)
    assert not c.refined.any()


def test_extrapolation_below_zero_temperature_is_no_estimate():
    """A last ratio near 1 (a coarse grid) extrapolates past T = 0: that is no temperature, so
    the estimate is None, not a negative number whose log is NaN."""
    temps = np.array([1.0, 0.9, 0.5, 0.45, 0.05, 0.04])
    c = period_doublings(temps, np.array([1, 2, 2, 4, 4, 8]))
    np.testing.assert_allclose(c.temperatures, [0.95, 0.475, 0.045])
    assert c.ratios[-1] == pytest.approx(0.475 / 0.43)  # 1.10: T_inf = 0.045 - 0.43 / 0.10 < 0
    assert c.t_thresh_extrapolated is None


def test_period_doublings_without_cascade():
    temps = np.linspace(1.0, 0.1, 10)
    for per in (np.ones(10), np.full(10, 3), np.zeros(10), [1, 1, 1, 3, 6, 12, 0, 0, 0, 0]):
        c = period_doublings(temps, np.asarray(per))
        assert c.periods.size == 0 and c.ratios.size == 0 and c.brackets.shape == (0, 2)
        assert c.t_thresh_grid is None and c.t_thresh_extrapolated is None


# ---------------------------------------------------------------------------------------------
# Low temperature: herding (eqs 1.7-1.8)
# ---------------------------------------------------------------------------------------------
@settings(max_examples=30)
@given(seeds, st.integers(2, 8), st.integers(1, 4), st.sampled_from([1e-9, 1e-6]))
def test_zero_temperature_limit_is_herding(seed, D, K, T):
    """As T -> 0, p_T(w) concentrates on argmax_x w.phi(x) and eq 1.9 becomes eqs 1.7-1.8.

    The two runs agree while every herding score gap stays above 50 T (the tempered step then
    differs by < D e^-50 |phi| per step); the comparison stops at the first smaller gap.
    """
    model = random_model(D, K, seed=seed)
    w0 = np.random.default_rng(seed).standard_normal(K)
    steps = 400
    h = herd(model.features, model.moments, steps, w0=w0)
    scores = h.weights[:-1] @ model.features.T
    top2 = np.sort(scores, axis=1)[:, -2:]
    small = np.flatnonzero(top2[:, 1] - top2[:, 0] < 50 * T)
    n = small[0] if small.size else steps
    tempered = tempered_trajectory(model.features, model.moments, T, steps, w0=w0)
    states = np.argmax(tempered.weights[:-1] @ model.features.T, axis=1)
    np.testing.assert_array_equal(states[:n], h.states[:n])


def test_tiny_temperatures_do_not_overflow():
    model = random_model(4, 2, seed=DEFAULT_SEED)
    w0 = np.array([0.1, 0.05])
    h = herd(model.features, model.moments, 2000, w0=w0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for T in (1e-300, 5e-324):
            res = tempered_trajectory(model.features, model.moments, T, 2000, w0=w0)
            assert np.all(np.isfinite(res.weights))
            np.testing.assert_allclose(res.weights, h.weights, atol=1e-9)
        # w0 = 0 is an exact four-way tie: tempered averages it instead of picking state 0
        res = tempered_trajectory(model.features, model.moments, 1e-300, 3)
        np.testing.assert_allclose(res.weights[1], model.moments - model.features.mean(axis=0))
        d = bifurcation(model.features, model.moments, [1e-300, 5e-324, 1.0], burn_in=10, keep=5)
        assert np.all(np.isfinite(d.samples))
        ly = lyapunov_sweep(model.features, model.moments, [1e-300, 5e-324], 500)
        assert np.all(np.isfinite(ly.exponents))


def test_herding_limit_has_zero_lyapunov_exponents():
    """Sec 1.2.6: herding's Lyapunov exponents are 0 (J -> I as T -> 0 away from ties)."""
    model = random_model(4, 2, seed=DEFAULT_SEED)
    res = lyapunov_exponent(model.features, model.moments, 1e-9, 20000, w0=np.array([0.1, 0.05]))
    assert np.all(np.abs(res.exponents) < 1e-9)


# ---------------------------------------------------------------------------------------------
# Lyapunov exponents at the fixed point
# ---------------------------------------------------------------------------------------------
@settings(max_examples=15)
@given(seeds, st.floats(1.1, 4.0))
def test_lyapunov_at_stable_fixed_point_is_log_spectral_radius(seed, factor):
    """At an attracting fixed point the orbit sits at w* and the exponents are log|eig J(w*)|,
    J(w*) = I - (eta/T) C with C the covariance at the scipy MLE; the sum is log|det J| exactly."""
    model = random_model(4, 2, seed=seed)
    C = scipy_covariance(model.features, scipy_theta(model.features, model.moments))
    c = np.linalg.eigvalsh(C)
    T = factor * c.max() / 2  # above T_1: attracting
    assume(np.abs(1 - c / T).max() < 0.995)  # converges within the burn-in
    assume(np.abs(1 - c / T).min() > 1e-3)   # not superstable (an exponent of -inf)
    expected = np.sort(np.log(np.abs(1 - c / T)))[::-1]
    res = lyapunov_exponent(model.features, model.moments, T, 20000, burn_in=20000)
    assert res.largest < 0
    assert res.largest == pytest.approx(expected[0], abs=2e-3)
    assert res.exponents.sum() == pytest.approx(expected.sum(), abs=1e-6)
    np.testing.assert_allclose(res.exponents, expected, atol=2e-3)


# ---------------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def model():
    return random_model(4, 2, seed=DEFAULT_SEED)


@pytest.mark.parametrize("T", [0.0, -1.0, np.nan, np.inf, "hot", None])
def test_bad_temperature_raises(model, T):
    with pytest.raises(ValueError, match="temperature"):
        tempered_trajectory(model.features, model.moments, T, 10)
    with pytest.raises(ValueError, match="temperature"):
        lyapunov_exponent(model.features, model.moments, T, 10)


def test_zero_temperature_points_to_herd(model):
    with pytest.raises(ValueError, match=r"dynamics\.herding\.herd for T = 0"):
        tempered_trajectory(model.features, model.moments, 0.0, 10)
    with pytest.raises(ValueError, match=r"dynamics\.herding\.herd for T = 0"):
        bifurcation(model.features, model.moments, [0.5, 0.0], burn_in=1, keep=1)


@pytest.mark.parametrize("temps", [[], [[0.1, 0.2]], [0.1, np.nan], [0.1, -0.2], [np.inf]])
def test_bad_temperatures_raise(model, temps):
    with pytest.raises(ValueError, match="temperatures"):
        bifurcation(model.features, model.moments, temps, burn_in=1, keep=1)


def test_bad_model_inputs_raise(model):
    phi, m = model.features, model.moments
    bad = [
        dict(features=phi[:1], moments=m),
        dict(features=phi[:, :, None], moments=m),
        dict(features=np.where(np.eye(4, 2) > 0, np.nan, phi), moments=m),
        dict(features=phi, moments=m[:1]),
        dict(features=phi, moments=[np.inf, 0.0]),
    ]
    for kw in bad:
        with pytest.raises(ValueError):
            tempered_trajectory(kw["features"], kw["moments"], 1.0, 5)
        with pytest.raises(ValueError):
            bifurcation(kw["features"], kw["moments"], [1.0], burn_in=1, keep=1)
    with pytest.raises(ValueError, match="w0"):
        tempered_trajectory(phi, m, 1.0, 5, w0=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="w0"):
        bifurcation(phi, m, [1.0], burn_in=1, keep=1, w0=[np.nan, 0.0])
    with pytest.raises(ValueError, match="eta"):
        tempered_trajectory(phi, m, 1.0, 5, eta=0.0)
    with pytest.raises(ValueError, match="steps"):
        tempered_trajectory(phi, m, 1.0, 0)
    # overflow is reported, not returned as inf / NaN (features beyond MAX_ABS are refused first)
    with pytest.raises(ValueError, match="overflowed"):
        tempered_trajectory(1e99 * phi, 1e99 * m, 0.1, 100, eta=1e200)
    with pytest.raises(ValueError, match="overflowed"):
        bifurcation(1e99 * phi, 1e99 * m, [0.1, 1.0], burn_in=10, keep=3, eta=1e200)
    with pytest.raises(ValueError, match="features must have entries of magnitude"):
        tempered_trajectory(1e200 * phi, m, 0.1, 100)


def test_bad_diagram_sizes_raise(model):
    phi, m = model.features, model.moments
    with pytest.raises(ValueError, match="keep"):
        bifurcation(phi, m, [1.0], burn_in=1, keep=0)
    with pytest.raises(ValueError, match="burn_in"):
        bifurcation(phi, m, [1.0], burn_in=-1, keep=1)
    with pytest.raises(ValueError, match="MAX_SAMPLE_VALUES"):
        bifurcation(phi, m, np.linspace(0.1, 1, 4096), burn_in=0, keep=10_000)
    with pytest.raises(ValueError, match="MAX_MAP_EVALUATIONS"):
        bifurcation(phi, m, np.linspace(0.1, 1, 1000), burn_in=10_000_000, keep=1)
    with pytest.raises(ValueError, match="MAX_LYAPUNOV_EVALUATIONS"):
        lyapunov_sweep(phi, m, np.linspace(0.1, 1, 1000), 1_000_000)


def test_bad_period_inputs_raise():
    with pytest.raises(ValueError, match="trajectory"):
        attractor_period(np.zeros(5))
    with pytest.raises(ValueError, match="trajectory"):
        attractor_period([[0.0, np.nan]])
    with pytest.raises(ValueError, match="tol"):
        attractor_period(np.zeros((5, 2)), tol=0.0)
    with pytest.raises(ValueError, match="max_period"):
        attractor_period(np.zeros((5, 2)), max_period=0)
    with pytest.raises(ValueError, match="samples"):
        periods(np.zeros((5, 2)))
    with pytest.raises(ValueError, match="periods"):
        period_doublings([0.3, 0.2], [1, -2])
    with pytest.raises(ValueError, match="periods"):
        period_doublings([0.3, 0.2], [1])
    with pytest.raises(ValueError, match="distinct"):
        period_doublings([0.3, 0.3], [1, 2])


def test_bad_refine_inputs_raise(model):
    phi, m = model.features, model.moments
    T1 = first_doubling_temperature(phi, m)
    with pytest.raises(ValueError, match="t_lo < t_hi"):
        refine_doubling(phi, m, 2, 1.1 * T1, 0.9 * T1)
    with pytest.raises(ValueError, match="even"):
        refine_doubling(phi, m, 3, 0.9 * T1, 1.1 * T1)
    with pytest.raises(ValueError, match="still attracting"):
        refine_doubling(phi, m, 2, 1.05 * T1, 1.1 * T1)   # no doubling in the bracket
    with pytest.raises(ValueError, match="period smaller than 2"):
        refine_doubling(phi, m, 4, 0.5 * T1, 1.1 * T1)    # above T_1 the fixed point attracts
    with pytest.raises(ValueError, match="convex hull"):
        mle_parameters(phi, 3 * phi[0])


def test_warmup_runs():
    bf._warmup()
