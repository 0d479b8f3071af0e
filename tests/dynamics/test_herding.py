"""Herding (Chen & Welling, seed 000): the kernel against a NumPy loop, and the paper's properties.

Random models draw Gaussian features from a seed rather than letting hypothesis pick raw floats;
the reference follows herd's float rule (scores summed over k in order, the lowest index of the
maximum), so the states must agree exactly. Exact ties: duplicated rows here, and integer
features with moments that are multiples of 1/N in test_herding_ties.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.spatial import ConvexHull

from dynamics import herding
from dynamics.herding import (
    autocorrelation,
    cone_labels,
    cone_sectors,
    herd,
    moment_error,
    random_model,
    tipi,
    word_counts,
)


# ---------------------------------------------------------------------------------------------
# Plain NumPy references
# ---------------------------------------------------------------------------------------------
def herd_reference(features, moments, steps, w0=None, eta=1.0):
    """Eqs 1.7-1.8 step by step: argmax of the scores w.phi(x) (first maximum), then the update."""
    D, K = features.shape
    w = np.zeros(K) if w0 is None else np.array(w0, dtype=float)
    states = np.empty(steps, dtype=np.int64)
    weights = np.empty((steps + 1, K))
    cycling = np.empty(steps)
    weights[0] = w
    for t in range(steps):
        a = sum((w[k] * features[:, k] for k in range(K)), np.zeros(D))  # in k order
        s = int(np.argmax(a))
        states[t] = s
        cycling[t] = w @ (moments - features[s])
        w = w + eta * (moments - features[s])
        weights[t + 1] = w
    return states, weights, cycling


def words_reference(states, max_len):
    return np.array([len({tuple(states[i:i + T]) for i in range(len(states) - T + 1)})
                     for T in range(1, max_len + 1)])


def model_and_run_args(draw_seed, D, K, w0_scale, eta):
    model = random_model(D, K, seed=draw_seed)
    rng = np.random.default_rng(draw_seed + 1)
    w0 = None if w0_scale == 0 else w0_scale * rng.standard_normal(K)
    return model, w0, eta


models = st.tuples(
    st.integers(0, 2**31),                                   # seed
    st.integers(2, 12),                                      # D
    st.integers(1, 6),                                       # K
    st.sampled_from([0.0, 0.1, 1.0, 10.0]),                  # scale of w0 (0: w0=None)
    st.floats(1e-3, 1e3, allow_nan=False, allow_infinity=False),  # eta
)


# ---------------------------------------------------------------------------------------------
# Kernel against the reference
# ---------------------------------------------------------------------------------------------
@given(models, st.integers(1, 2500))
def test_kernel_matches_numpy_reference(model_args, steps):
    model, w0, eta = model_and_run_args(*model_args)
    res = herd(model.features, model.moments, steps, w0=w0, eta=eta)
    s_ref, w_ref, c_ref = herd_reference(model.features, model.moments, steps, w0, eta)
    assert res.states.dtype == np.int64 and res.states.shape == (steps,)
    assert res.weights.dtype == np.float64 and res.weights.shape == (steps + 1, model.features.shape[1])
    np.testing.assert_array_equal(res.states, s_ref)
    scale = np.abs(w_ref).max() + 1e-300
    np.testing.assert_allclose(res.weights, w_ref, rtol=0, atol=1e-9 * scale)
    c_scale = scale * np.abs(model.moments - model.features).max()
    np.testing.assert_allclose(res.cycling, c_ref, rtol=0, atol=1e-9 * c_scale)
    assert res.cycling_max == pytest.approx(c_ref.max(), abs=1e-9 * c_scale)
    assert res.weight_radius == pytest.approx(np.linalg.norm(w_ref, axis=1).max(), rel=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_kernel_matches_reference_over_many_score_refreshes(seed):
    # 20 blocks of SCORE_REFRESH steps: incremental-score drift must not change any state.
    model = random_model(6, 2, seed=seed)
    steps = 20 * herding.SCORE_REFRESH + 7
    res = herd(model.features, model.moments, steps, w0=[3.0, -2.0], eta=0.7)
    s_ref, w_ref, _ = herd_reference(model.features, model.moments, steps, [3.0, -2.0], 0.7)
    np.testing.assert_array_equal(res.states, s_ref)
    np.testing.assert_allclose(res.weights, w_ref, rtol=0, atol=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_incremental_scores_agree_with_exact_scores_on_long_runs(seed):
    # The kernel with refresh=1 computes w.phi(x) from w at every step; the production setting
    # advances the scores incrementally. Drift must not change a single state in 1e6 steps.
    model = random_model((3, 6, 10, 16)[seed], (2, 2, 5, 3)[seed], seed=seed)
    D, K = model.features.shape
    runs = []
    for refresh in (1, herding.SCORE_REFRESH):
        states = np.empty(1_000_000, dtype=np.int64)
        weights = np.zeros((1_000_001, K))
        cycling = np.empty(1_000_000)
        herding._herd_kernel(model.features, model.moments, 1.0, refresh, herding.CYCLING_RTOL,
                             states, weights, cycling)
        runs.append(states)
    np.testing.assert_array_equal(runs[0], runs[1])


@pytest.mark.parametrize("steps", [5, 3000])  # scores from w every step / incremental scores
def test_ties_go_to_lowest_index(steps):
    rng = np.random.default_rng(4)
    base = rng.standard_normal((4, 2))
    rows = [0, 1, 1, 2, 3, 0, 2]       # rows 2, 5, 6 duplicate lower-index rows 1, 0, 2
    features = base[rows]
    p = rng.dirichlet(np.ones(len(rows)))
    moments = p @ features
    res = herd(features, moments, steps)
    assert res.states[0] == 0          # w0 = 0: every score ties at 0
    assert not np.isin(res.states, [2, 5, 6]).any()
    s_ref, _, _ = herd_reference(features, moments, steps)
    np.testing.assert_array_equal(res.states, s_ref)
    np.testing.assert_array_equal(cone_labels(features, np.zeros((3, 2))), [0, 0, 0])
    assert not np.isin(cone_labels(features, rng.standard_normal((500, 2))), [2, 5, 6]).any()


# ---------------------------------------------------------------------------------------------
# Properties of the paper
# ---------------------------------------------------------------------------------------------
@given(models, st.integers(1, 3000))
def test_weights_satisfy_eq_1_14(model_args, steps):
    # w_T = w_0 + T eta phi_bar - eta sum_{t<=T} phi(s_t)   (eq 1.14 with learning rate eta)
    model, w0, eta = model_and_run_args(*model_args)
    res = herd(model.features, model.moments, steps, w0=w0, eta=eta)
    w_init = np.zeros(model.features.shape[1]) if w0 is None else w0
    t = np.arange(steps + 1)[:, None]
    sums = np.vstack([np.zeros_like(w_init), np.cumsum(model.features[res.states], axis=0)])
    expected = w_init + eta * (t * model.moments - sums)
    scale = np.abs(w_init).max() + eta * steps * (np.abs(model.features).max() + 1.0)
    np.testing.assert_allclose(res.weights, expected, rtol=0, atol=1e-11 * scale)


@given(models, st.integers(1, 3000))
def test_perceptron_cycling_holds_in_the_hull(model_args, steps):
    # eq 1.40: w_{t-1}.(phi_bar - phi(s_t)) <= 0 because phi_bar is a convex combination.
    model, w0, eta = model_and_run_args(*model_args)
    res = herd(model.features, model.moments, steps, w0=w0, eta=eta)
    assert res.cycling_holds
    w_prev = res.weights[:-1]
    rho_max = np.linalg.norm(model.moments - model.features, axis=1).max()
    assert np.all(res.cycling <= 1e-12 * (np.linalg.norm(w_prev, axis=1) + 1) * rho_max)
    # The recorded quantity is the Tipi function at w_{t-1} (eq 1.10 = eq 1.40).
    np.testing.assert_allclose(tipi(model.features, model.moments, w_prev), res.cycling,
                               rtol=0, atol=1e-10 * (np.abs(w_prev).max() + 1) * rho_max)
    # And it drives the norm: |w_t|^2 = |w_{t-1}|^2 + 2 eta cycling_t + eta^2 |rho(s_t)|^2.
    rho = model.moments - model.features[res.states]
    lhs = np.sum(res.weights[1:] ** 2, axis=1)
    rhs = np.sum(w_prev ** 2, axis=1) + 2 * eta * res.cycling + eta**2 * np.sum(rho**2, axis=1)
    np.testing.assert_allclose(lhs, rhs, rtol=1e-9, atol=1e-9 * (eta * rho_max) ** 2)


def test_moments_outside_hull_diverge_linearly():
    model = random_model(5, 2, seed=3)
    outside = model.features.max(axis=0) + 1.0   # beyond every row in both coordinates
    short = herd(model.features, outside, 1000)
    long = herd(model.features, outside, 4000)
    assert not long.cycling_holds and long.cycling_max > 0
    assert long.weight_radius / short.weight_radius == pytest.approx(4.0, rel=0.05)


def _inradius(features, moments):
    """Distance from phi_bar to the nearest facet of the convex hull of the features."""
    eq = ConvexHull(features).equations          # n.x + b <= 0 inside, |n| = 1
    return float(-(eq[:, :-1] @ moments + eq[:, -1]).max())


@pytest.mark.parametrize("seed", range(8))
def test_weights_stay_in_the_ball_of_prop_1_3(seed):
    # Prop 1.3 / Corollary 1.4 made explicit. With gamma the inradius of the hull around phi_bar,
    # l0(w) <= -gamma |w|, so |w_t|^2 <= |w_{t-1}|^2 - 2 eta gamma |w_{t-1}| + eta^2 rho^2: the
    # norm decreases whenever |w_{t-1}| > R0 = eta rho^2 / (2 gamma), hence for all t
    # |w_t| <= max(|w_0|, R0 + eta rho)   (rho = max_x |phi_bar - phi(x)|).
    rng = np.random.default_rng(seed)
    K = 2 + seed % 2
    D = K + 1 + seed % 5
    model = random_model(D, K, seed=seed)
    eta = 0.5 + seed
    w0 = 30.0 * rng.standard_normal(K)
    res = herd(model.features, model.moments, 200_000, w0=w0, eta=eta)
    gamma = _inradius(model.features, model.moments)
    rho = np.linalg.norm(model.moments - model.features, axis=1).max()
    bound = max(np.linalg.norm(w0), eta * rho**2 / (2 * gamma) + eta * rho)
    assert gamma > 0
    assert res.weight_radius <= bound * (1 + 1e-12)
    assert res.weight_radius == pytest.approx(np.linalg.norm(res.weights, axis=1).max())


@given(models, st.integers(16, 4000))
def test_moment_error_obeys_prop_1_2(model_args, steps):
    # eq 1.18: (1/tau)(w_tau - w_0) = eta (phi_bar - mean_tau phi(s)), so per coordinate
    # |mean_tau phi_a - phi_bar_a| = |w_{a,tau} - w_{a,0}| / (eta tau) <= 2 R_a / (eta tau).
    model, w0, eta = model_and_run_args(*model_args)
    res = herd(model.features, model.moments, steps, w0=w0, eta=eta)
    t = np.arange(1, steps + 1)
    means = np.cumsum(model.features[res.states], axis=0) / t[:, None]
    R = np.abs(res.weights).max(axis=0)
    slack = 1e-9 * (np.abs(model.features).max() + 1)
    assert np.all(np.abs(means - model.moments) <= 2 * R / (eta * t[:, None]) + slack)
    err = moment_error(model.features, res.states, model.moments, seed=0)
    np.testing.assert_allclose(err.herding, np.linalg.norm(means - model.moments, axis=1),
                               rtol=1e-9, atol=slack)
    assert np.all(err.herding <= 2 * res.weight_radius / (eta * t) + slack)
    np.testing.assert_array_equal(err.t, t)
    assert err.iid.shape == (steps,)


def test_moment_error_rates_are_one_over_t_and_one_over_sqrt_t():
    # Prop 1.2 predicts slope -1 for herding, Monte Carlo slope -1/2 for i.i.d. draws.
    # Measured on these 16 models (T = 1e5): herding slopes -1.00 +- 0.003, i.i.d. slopes
    # -0.51 +- 0.14 per model (a single random walk over 2.5 decades of t), so the i.i.d. mean over
    # 16 models has standard error ~0.035 and the tolerance 0.15 is ~4 standard errors.
    herding_slopes, iid_slopes = [], []
    for seed in range(16):
        model = random_model((4, 6, 8)[seed % 3], (2, 3)[seed % 2], seed=seed)
        res = herd(model.features, model.moments, 100_000)
        err = moment_error(model.features, res.states, model.moments,
                           probabilities=model.probabilities, seed=seed)
        herding_slopes.append(err.herding_slope)
        iid_slopes.append(err.iid_slope)
    assert np.all(np.abs(np.array(herding_slopes) + 1.0) < 0.1)
    assert abs(np.mean(herding_slopes) + 1.0) < 0.03
    assert abs(np.mean(iid_slopes) + 0.5) < 0.15


def test_moment_error_default_baseline_is_empirical_distribution():
    model = random_model(5, 2, seed=11)
    res = herd(model.features, model.moments, 20_000)
    a = moment_error(model.features, res.states, model.moments, seed=5)
    p_hat = np.bincount(res.states, minlength=5) / res.states.size
    b = moment_error(model.features, res.states, model.moments, probabilities=p_hat, seed=5)
    np.testing.assert_array_equal(a.iid, b.iid)
    np.testing.assert_array_equal(a.herding, b.herding)
    c = moment_error(model.features, res.states, model.moments, seed=6)
    assert not np.array_equal(a.iid, c.iid)            # the seed drives the i.i.d. draws


def test_moment_error_slope_is_minus_inf_when_error_vanishes():
    # phi_bar at a vertex: herding stays in that state and matches the moments exactly.
    features = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    res = herd(features, features[0], 100)
    assert np.all(res.states == 0)
    err = moment_error(features, res.states, features[0], seed=0)
    assert np.all(err.herding == 0) and err.herding_slope == -np.inf


@given(models, st.sampled_from([0.25, 2.0, 8.0]), st.floats(1e-2, 1e2), st.integers(1, 2000))
def test_learning_rate_only_rescales_weights(model_args, pow2, eta, steps):
    # Sec 1.2.3: with v_0 = w_0 / eta, w_t = eta v_t and the states are identical.
    model, w0, _ = model_and_run_args(*model_args)
    v0 = np.zeros(model.features.shape[1]) if w0 is None else w0
    unit = herd(model.features, model.moments, steps, w0=v0, eta=1.0)
    exact = herd(model.features, model.moments, steps, w0=pow2 * v0, eta=pow2)
    np.testing.assert_array_equal(exact.states, unit.states)
    np.testing.assert_array_equal(exact.weights, pow2 * unit.weights)   # powers of 2: exact
    scaled = herd(model.features, model.moments, steps, w0=eta * v0, eta=eta)
    np.testing.assert_array_equal(scaled.states, unit.states)
    np.testing.assert_allclose(scaled.weights, eta * unit.weights, rtol=0,
                               atol=1e-9 * eta * (np.abs(unit.weights).max() + 1))


def test_autocorrelation_is_negative_at_lag_one_for_herding():
    # Fig 1.4: D = 10 states, K = 7 features, T = 1e5 samples; R(0) = 1 and R(1) < 0.
    for seed in range(10):
        model = random_model(10, 7, seed=seed)
        R = autocorrelation(herd(model.features, model.moments, 100_000).states, 10)
        assert R.shape == (11,) and R[0] == 1.0
        assert R[1] < 0


@pytest.mark.parametrize("seed", range(4))
def test_autocorrelation_of_iid_samples_is_near_zero(seed):
    # For i.i.d. draws the numerator mean of I[s_tau = s_{tau+t}] is q = sum p^2 with variance
    # about [q(1-q) + 2(sum p^3 - q^2)] / T (overlapping pairs share a sample); R is that over
    # (1 - q). We allow 5 standard deviations plus the O(1/T) bias of the plug-in P-hat.
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(6))
    T = 100_000
    s = rng.choice(6, size=T, p=p)
    R = autocorrelation(s, 20)
    q, c = np.sum(p**2), np.sum(p**3)
    sd = np.sqrt((q * (1 - q) + 2 * (c - q**2)) / T) / (1 - q)
    assert R[0] == 1.0
    assert np.all(np.abs(R[1:]) < 5 * sd + 10 / T)


def test_autocorrelation_matches_eq_1_13_directly():
    s = np.array([2, 0, 2, 1, 1, 0, 2, 2, 1, 0, 5])
    T = s.size
    _, counts = np.unique(s, return_counts=True)
    q = np.sum((counts / T) ** 2)
    expected = [(np.mean([s[i] == s[i + t] for i in range(T - t)]) - q) / (1 - q)
                for t in range(0, 6)]
    np.testing.assert_allclose(autocorrelation(s, 5), expected, rtol=1e-12)


def test_autocorrelation_of_constant_sequence_is_an_error():
    with pytest.raises(ValueError, match="constant"):
        autocorrelation(np.full(50, 3), 5)


@given(st.lists(st.integers(0, 3), min_size=1, max_size=80), st.integers(1, 80))
def test_word_counts_match_brute_force(seq, max_len):
    max_len = min(max_len, len(seq))
    np.testing.assert_array_equal(word_counts(seq, max_len), words_reference(seq, max_len))


def test_word_counts_on_herding_match_brute_force():
    model = random_model(6, 2, seed=2)
    s = herd(model.features, model.moments, 3000).states
    np.testing.assert_array_equal(word_counts(s, 30), words_reference(list(s), 30))


def test_word_counts_many_symbols_match_brute_force():
    # 41 symbols: M(T-1) * M(1) exceeds the dense table, so words are relabelled by sorting.
    s = np.random.default_rng(1).integers(0, 41, 2000) * 1000 - 7
    np.testing.assert_array_equal(word_counts(s, 12), words_reference(list(s), 12))


def test_sturmian_sequence_has_t_plus_one_words():
    # Golden-mean rotation word s_n = floor((n+1) a) - floor(n a): M(T) = T + 1 (Sturmian).
    a = (np.sqrt(5.0) - 1) / 2
    n = np.arange(20_000)
    s = np.floor((n + 1) * a).astype(np.int64) - np.floor(n * a).astype(np.int64)
    np.testing.assert_array_equal(word_counts(s, 60), np.arange(2, 62))


def test_periodic_sequence_has_constant_word_count():
    # Minimal period 5: its 5 cyclic shifts are the only words of any length T >= 5.
    s = np.tile([4, 1, 1, 7, 4], 200)
    M = word_counts(s, 30)
    np.testing.assert_array_equal(M[4:], 5)
    np.testing.assert_array_equal(M, words_reference(list(s), 30))


def test_word_counts_once_all_words_are_distinct():
    # N distinct symbols: M(T) = N - T + 1; a random sequence reaches that regime too.
    np.testing.assert_array_equal(word_counts(np.arange(50), 50), 50 - np.arange(50))
    s = np.random.default_rng(0).integers(0, 3, 150)
    np.testing.assert_array_equal(word_counts(s, 150), words_reference(list(s), 150))


@given(models, st.floats(0, 1e3), st.integers(0, 2**31))
def test_tipi_properties(model_args, beta, point_seed):
    # Sec 1.2.3: l0 <= 0 (phi_bar in the hull), l0(beta w) = beta l0(w), concave, l0(0) = 0.
    model, _, _ = model_and_run_args(*model_args)
    rng = np.random.default_rng(point_seed)
    K = model.features.shape[1]
    w = 5 * rng.standard_normal((200, K))
    v = 5 * rng.standard_normal((200, K))
    l0 = tipi(model.features, model.moments, w)
    scale = 1e-10 * (np.abs(w).max() + 1) * (np.abs(model.features).max() + 1)
    assert l0.shape == (200,)
    assert np.all(l0 <= scale)
    assert tipi(model.features, model.moments, np.zeros((1, K)))[0] == 0.0
    np.testing.assert_allclose(tipi(model.features, model.moments, beta * w), beta * l0,
                               rtol=1e-9, atol=scale * (beta + 1))
    lam = rng.uniform(size=(200, 1))
    mix = tipi(model.features, model.moments, lam * w + (1 - lam) * v)
    chord = lam[:, 0] * l0 + (1 - lam[:, 0]) * tipi(model.features, model.moments, v)
    assert np.all(mix >= chord - scale)
    # Grids: any leading shape.
    grid = w[:12].reshape(3, 4, K)
    np.testing.assert_allclose(tipi(model.features, model.moments, grid), l0[:12].reshape(3, 4),
                               rtol=0, atol=scale)


@given(models, st.integers(1, 2000))
def test_cone_labels_follow_the_trajectory(model_args, steps):
    # Fig 1.10: s_t is the label of the cone that contains w_{t-1}.
    model, w0, eta = model_and_run_args(*model_args)
    res = herd(model.features, model.moments, steps, w0=w0, eta=eta)
    labels = cone_labels(model.features, res.weights[:-1])
    assert labels.dtype == np.int64
    np.testing.assert_array_equal(labels, res.states)


@given(st.integers(0, 2**31), st.integers(2, 12), st.integers(2, 6))
def test_cone_sectors_are_the_normal_fan_of_the_feature_hull(seed, D, K):
    """Fig 1.10 in the (w1, w2) plane: the sectors tile the circle, agree with cone_labels
    everywhere, and (derived independently) belong to the vertices of the convex hull of the
    features' first two coordinates, the sector of a vertex being as wide as pi minus the
    hull's interior angle there (the exterior angles of a convex polygon sum to 2 pi)."""
    phi = random_model(D, K, seed=seed).features
    sec = cone_sectors(phi)
    assert sec.start[0] == 0.0 and sec.stop[-1] == 2 * np.pi
    np.testing.assert_array_equal(sec.start[1:], sec.stop[:-1])
    assert np.all(sec.stop > sec.start)
    assert np.all(sec.states[1:] != sec.states[:-1])
    # Every direction's state is the sector's (away from the boundaries).
    t = np.random.default_rng(seed).uniform(0, 2 * np.pi, 500)
    index = np.searchsorted(sec.stop, t, side="right")
    gap = np.minimum(t - sec.start[index], sec.stop[index] - t)
    u = np.zeros((t.size, K))
    u[:, 0], u[:, 1] = np.cos(t), np.sin(t)
    ok = gap > 1e-9
    np.testing.assert_array_equal(sec.states[index][ok], cone_labels(phi, u)[ok])
    # Widths per state, with the cone split at t = 0 joined again.
    width = {}
    for state, a, b in zip(sec.states, sec.start, sec.stop):
        width[state] = width.get(state, 0.0) + (b - a)
    plane = phi[:, :2]
    if D == 2:
        assert width == pytest.approx({0: np.pi, 1: np.pi})
        return
    hull = ConvexHull(plane)
    assert set(width) == set(hull.vertices)
    ring = list(hull.vertices)  # counter-clockwise in 2D
    for i, v in enumerate(ring):
        a, b = plane[ring[i - 1]] - plane[v], plane[ring[(i + 1) % len(ring)]] - plane[v]
        interior = np.arccos(np.clip(a @ b / np.linalg.norm(a) / np.linalg.norm(b), -1, 1))
        assert width[v] == pytest.approx(np.pi - interior, abs=1e-9)


def test_cone_sectors_of_a_square_and_of_duplicates():
    # Features at the four compass points: each owns the quarter circle around it; state 0's
    # quarter straddles t = 0 and is split there.
    square = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    sec = cone_sectors(square)
    np.testing.assert_array_equal(sec.states, [0, 1, 2, 3, 0])
    np.testing.assert_allclose(sec.start / np.pi, [0, 0.25, 0.75, 1.25, 1.75])
    # A duplicated row never owns a sector (ties go to the lowest index); all rows equal in
    # the plane: state 0 owns the whole circle.
    sec = cone_sectors(np.vstack([square, square[1]]))
    assert 4 not in sec.states
    sec = cone_sectors(np.array([[1.0, 2.0, 0.0], [1.0, 2.0, 5.0]]))
    np.testing.assert_array_equal(sec.states, [0])
    with pytest.raises(ValueError, match="K >= 2"):
        cone_sectors(np.array([[1.0], [2.0]]))


def test_random_model_is_reproducible_and_consistent():
    a = random_model(7, 3, seed=42)
    b = random_model(7, 3, seed=np.random.default_rng(42))
    for name in ("features", "probabilities", "moments"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert a.features.shape == (7, 3) and a.probabilities.shape == (7,) and a.moments.shape == (3,)
    assert a.probabilities.min() >= 0 and a.probabilities.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(a.moments, a.probabilities @ a.features)
    assert not np.array_equal(random_model(7, 3, seed=43).features, a.features)


def test_warmup_runs():
    herding._warmup()


# ---------------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------------
PHI = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
BAR = np.array([0.1, 0.2])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(features=np.array([[np.nan, 0.0], [0.0, 1.0], [1.0, 1.0]])), "features"),
        (dict(features=np.array([[1.0, 2.0]])), "features"),             # D = 1
        (dict(features=np.ones(3)), "features"),
        (dict(moments=np.zeros(3)), "moments"),
        (dict(moments=np.array([np.inf, 0.0])), "moments"),
        (dict(steps=0), "steps"),
        (dict(steps=1.5), "steps"),
        (dict(steps=True), "steps"),
        (dict(steps=herding.MAX_STEPS + 1), "steps"),
        (dict(eta=0.0), "eta"),
        (dict(eta=-1.0), "eta"),
        (dict(eta=np.nan), "eta"),
        (dict(w0=np.zeros(3)), "w0"),
        (dict(w0=np.array([np.nan, 0.0])), "w0"),
        (dict(eta=1e305), "overflow"),
    ],
)
def test_herd_rejects_bad_input(kwargs, match):
    args = dict(features=PHI, moments=BAR, steps=10, w0=None, eta=1.0)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        herd(args["features"], args["moments"], args["steps"], w0=args["w0"], eta=args["eta"])


def test_herd_rejects_trajectories_too_large_to_hold():
    with pytest.raises(ValueError, match="weight entries"):
        herd(np.ones((2, 100)), np.ones(100), herding.MAX_STEPS)


def test_other_functions_reject_bad_input():
    s = herd(PHI, BAR, 100).states
    with pytest.raises(ValueError, match="states"):
        moment_error(PHI, np.append(s, 3), BAR)               # not a row of features
    with pytest.raises(ValueError, match="states"):
        moment_error(PHI, s[:10], BAR)                        # too short for the slope fit
    with pytest.raises(ValueError, match="states"):
        moment_error(PHI, s + 0.5, BAR)
    with pytest.raises(ValueError, match="probabilities"):
        moment_error(PHI, s, BAR, probabilities=[0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match="seed"):
        moment_error(PHI, s, BAR, seed=-1)
    with pytest.raises(ValueError, match="max_lag"):
        autocorrelation(s, 100)
    with pytest.raises(ValueError, match="max_lag"):
        autocorrelation(s, -1)
    with pytest.raises(ValueError, match="states"):
        autocorrelation(s.reshape(10, 10), 2)
    with pytest.raises(ValueError, match="states"):
        autocorrelation(np.array(["a", "b"]), 1)
    with pytest.raises(ValueError, match="max_len"):
        word_counts(s, 0)
    with pytest.raises(ValueError, match="max_len"):
        word_counts(s, 101)
    with pytest.raises(ValueError, match="states"):
        word_counts([], 1)
    with pytest.raises(ValueError, match="points"):
        cone_labels(PHI, np.zeros((4, 3)))
    with pytest.raises(ValueError, match="points"):
        tipi(PHI, BAR, np.array([[np.nan, 0.0]]))
    with pytest.raises(ValueError, match="moments"):
        tipi(PHI, np.zeros(3), np.zeros((4, 2)))
    with pytest.raises(ValueError, match="n_states"):
        random_model(1, 2)
    with pytest.raises(ValueError, match="n_features"):
        random_model(3, 0)


def _segment(n=100_000, seed=0):
    t = np.random.default_rng(seed).random(n)
    return np.c_[t, 0.5 * t]


def _cantor(n=100_000, seed=0):
    """Points of the middle-thirds Cantor set (ternary digits 0 and 2), dimension log 2 / log 3."""
    digits = 2 * np.random.default_rng(seed).integers(0, 2, (n, 20))
    x = (digits * 3.0 ** -np.arange(1, 21)).sum(axis=1)
    return np.c_[x, np.zeros_like(x)]


def test_box_dimension_of_known_sets():
    segment = herding.box_dimension(_segment())
    assert segment.dimension == pytest.approx(1.0, abs=0.05)
    lo, hi = segment.slope_range
    assert 0.95 < lo <= hi < 1.05  # a segment's local slopes settle at 1 at every scale
    square = herding.box_dimension(np.random.default_rng(0).random((100_000, 2)))
    assert square.dimension == pytest.approx(2.0, abs=0.05)
    cantor = herding.box_dimension(_cantor())
    assert cantor.dimension == pytest.approx(np.log(2) / np.log(3), abs=0.05)
    assert cantor.used.sum() >= 3 and np.all(np.diff(cantor.counts) >= 0)
    # the fit uses boxes of at most 1/16 of the bounding box, resolved (at most 10 % of N)
    used = cantor.sizes[cantor.used]
    assert used.max() <= herding.COARSEST_SIDE and np.all(cantor.counts[cantor.used] <= 10_000)
    with pytest.raises(ValueError, match="coincide"):
        herding.box_dimension(np.zeros((20, 2)))
    with pytest.raises(ValueError, match="at least 10"):
        herding.box_dimension(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="finite"):
        herding.box_dimension(np.full((20, 2), np.nan))
    with pytest.raises(ValueError, match="coarsest"):
        herding.box_dimension(_segment(100), coarsest=0.0)
    with pytest.raises(ValueError, match="too few scales"):
        herding.box_dimension(_segment(100), max_fill=0.01)


def test_box_counts_and_local_slopes_match_a_plain_count():
    """The one-sort Morton count against ``numpy.unique`` of the boxes at every level, in 3
    coordinates (bits from the code) and 7 (coarse levels from the code, fine ones by rows)."""
    rng = np.random.default_rng(3)
    for d, levels in ((3, 25), (7, 12)):
        points = rng.random((3000, d)) ** 3
        box = herding.box_dimension(points, levels=levels, max_fill=1.0, coarsest=1.0)
        unit = (points - points.min(axis=0)) / np.max(np.ptp(points, axis=0))
        plain = [len(np.unique(np.minimum(np.floor(unit * 2.0**k), 2**k - 1), axis=0))
                 for k in range(levels)]
        np.testing.assert_array_equal(box.counts, plain)
        np.testing.assert_allclose(box.slopes, np.diff(np.log2(box.counts)))


def test_correlation_dimension_of_known_sets():
    segment = herding.correlation_dimension(_segment(), sample=5_000, seed=1)
    assert segment.dimension == pytest.approx(1.0, abs=0.05)
    assert segment.radii[segment.used].max() <= herding.COARSEST_SIDE
    assert np.all(segment.pairs[segment.used] >= 10_000) and segment.sample == 5_000
    # C(r) counts distinct pairs closer than r, against a plain count on a small sample
    small = _segment(300, seed=2)
    corr = herding.correlation_dimension(small, min_pairs=1, coarsest=1.0)
    unit = (small - small.min(axis=0)) / np.max(np.ptp(small, axis=0))
    dist = np.linalg.norm(unit[:, None] - unit[None], axis=-1)[np.triu_indices(300, 1)]
    np.testing.assert_array_equal(corr.pairs, [(dist <= r).sum() for r in corr.radii])
    cantor = herding.correlation_dimension(_cantor(), sample=5_000, seed=1)
    assert cantor.dimension == pytest.approx(np.log(2) / np.log(3), abs=0.05)
    a = herding.correlation_dimension(_segment(), sample=2_000, seed=4)
    b = herding.correlation_dimension(_segment(), sample=2_000, seed=4)
    np.testing.assert_array_equal(a.pairs, b.pairs)  # the same seed, the same sample
    with pytest.raises(ValueError, match="sample"):
        herding.correlation_dimension(small, sample=5)
    with pytest.raises(ValueError, match="min_pairs"):
        herding.correlation_dimension(small, min_pairs=0)
    with pytest.raises(ValueError, match="too few radii"):
        herding.correlation_dimension(small)  # 300 points: 44,850 pairs, too few at r <= 1/16
    with pytest.raises(ValueError, match="coincide"):
        herding.correlation_dimension(np.ones((20, 2)))


def test_attractor_dimension_of_a_run_and_its_claim():
    """10^4 points of the hexagon example after a burn-in: the fits read the weights after it,
    and the claim reports the slope ranges; bad sizes are refused by name."""
    model = herding.hexagon_model()
    np.testing.assert_allclose(model.probabilities @ model.features, model.moments)
    assert np.all(model.probabilities > 0) and model.probabilities.sum() == pytest.approx(1)
    result = herding.attractor_dimension(model.features, model.moments, steps=10_000,
                                         burn_in=500, sample=5_000)
    run = herding.herd(model.features, model.moments, 10_500)
    direct = herding.box_dimension(run.weights[501:])
    np.testing.assert_array_equal(result.box.counts, direct.counts)
    assert result.steps == 10_000 and result.burn_in == 500 and result.cycling_holds
    verdict = herding.attractor_claim(result)
    lo, hi = result.box.slope_range
    assert f"local slopes {lo:.2f}-{hi:.2f}" in verdict.measured
    assert verdict.numbers["correlation_dimension"] == result.correlation.dimension
    top = 1 + herding.DIMENSION_SLACK
    ranges = (result.box.slope_range, result.correlation.slope_range)
    assert verdict.agrees == (True if all(0 < lo and hi <= top for lo, hi in ranges) else
                              False if any(lo > top or hi <= 0 for lo, hi in ranges) else None)
    for bad, name in ((dict(steps=10), "steps"), (dict(burn_in=-1), "burn_in"),
                      (dict(sample=10**9), "sample"),
                      (dict(steps=herding.MAX_STEPS, burn_in=10), "burn_in")):
        with pytest.raises(ValueError, match=name):
            herding.attractor_dimension(model.features, model.moments, **bad)
    with pytest.raises(TypeError, match="dimension"):
        herding.attractor_claim(direct)


def _measured(points, holds=True):
    return herding.AttractorDimension(
        box=herding.box_dimension(points), correlation=herding.correlation_dimension(
            points, sample=5_000, seed=0), steps=len(points), burn_in=0, cycling_holds=holds)


def test_attractor_claim_three_outcomes():
    """Sets of known dimension: the Cantor set (0.63) reproduces "between 0 and 1", a filled
    square (2) differs, a thin band (1 at coarse scales, 2 at fine ones: the scales disagree)
    is not decided; a run whose Tipi function went positive differs whatever its dimension."""
    cantor = herding.attractor_claim(_measured(_cantor()))
    assert cantor.result == "reproduced", cantor.why
    square = np.random.default_rng(0).random((100_000, 2))
    assert herding.attractor_claim(_measured(square)).result == "differs"
    t = np.random.default_rng(1).random((100_000, 2))
    band = herding.attractor_claim(_measured(np.c_[t[:, 0], 0.004 * t[:, 1]]))
    assert band.result == "not decided", band.measured
    broken = herding.attractor_claim(_measured(_cantor(), holds=False))
    assert broken.result == "differs" and "ℓ₀" in broken.why


def test_box_dimension_reports_progress_after_each_scale_and_the_same_result():
    points = _segment(5_000, seed=1)
    calls = []
    with_progress = herding.box_dimension(points, levels=10,
                                          progress=lambda f, m: calls.append((f, m)))
    assert [f for f, _ in calls] == pytest.approx(np.arange(1, 12) / 11)
    assert "sorting" in calls[0][1] and all("boxes of side 2^-" in m for _, m in calls[1:])
    plain = herding.box_dimension(points, levels=10)
    np.testing.assert_array_equal(with_progress.counts, plain.counts)
    with pytest.raises(ValueError, match="progress"):
        herding.box_dimension(points, progress="yes")


def _errors(slope, wobble, T=10_000):
    """A MomentError whose herding error is t^slope times a wobble exp(wobble sin(7 log t))
    (the i.i.d. one: t^-1/2 with a small wobble)."""
    t = np.arange(1, T + 1)
    shake = np.sin(7 * np.log(t))
    return herding.MomentError(t=t, herding=t ** slope * np.exp(wobble * shake),
                               iid=t ** -0.5 * np.exp(0.02 * np.cos(5 * np.log(t))),
                               herding_slope=float(slope), iid_slope=-0.5)


def test_moment_rates_claim_three_outcomes():
    lag = np.array([1.0, -0.3, 0.1])  # -0.3 against a 1.96 / sqrt(10^4) = 0.02 noise band
    fast = herding.moment_rates_claim(_errors(-1.0, 0.02), lag, lag)
    assert fast.result == "reproduced", fast.why
    assert fast.numbers["herding_slope"] == pytest.approx(-1.0, abs=0.01)
    # herding converging as T^-1/2: nearer the i.i.d. rate beyond its noise
    slow = herding.moment_rates_claim(_errors(-0.5, 0.02), lag, lag)
    assert slow.result == "differs" and "nearer T^-1/2" in slow.why
    # positive lag-1 autocorrelation beyond the band: differs too
    assert herding.moment_rates_claim(_errors(-1.0, 0.02), np.array([1.0, 0.2]),
                                      lag).result == "differs"
    # a slope at the midpoint with a wobble as large as the fit's residuals: not decided
    mid = herding.moment_rates_claim(_errors(-0.75, 0.5), lag, lag)
    effect = herding.RATE_MIDPOINT - mid.numbers["herding_slope"]
    assert mid.result == "not decided" and abs(effect) < mid.numbers["herding_slope_se"]
