"""Strong Doeblin chains (Steinhardt & Liang, eqs 1-3, Props 3.1-3.5, Sec 3.1, Fig 1)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dynamics import doeblin as db
from dynamics.checks import kl_divergence

# ---------------------------------------------------------------- strategies and references


@st.composite
def chains(draw, min_n=2, max_n=6, sparse=True):
    """A random row-stochastic matrix (possibly reducible, periodic or sparse)."""
    n = draw(st.integers(min_n, max_n))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    W = rng.random((n, n))
    if sparse:
        W[rng.random((n, n)) < draw(st.floats(0.0, 0.7))] = 0.0
    empty = W.sum(axis=1) == 0
    W[empty, rng.integers(0, n, size=int(empty.sum()))] = 1.0
    return W / W.sum(axis=1, keepdims=True)


@st.composite
def ergodic_chains(draw, reversible=False, max_n=6):
    n = draw(st.integers(2, max_n))
    return db.random_chain(n, sparsity=draw(st.floats(0.0, 0.8)), reversible=reversible,
                           seed=draw(st.integers(0, 2**32 - 1)))


@st.composite
def laws(draw, n):
    w = np.array(draw(st.lists(st.floats(0.0, 1.0), min_size=n, max_size=n)))
    if w.sum() <= 1e-3:
        w = np.ones(n)
    return w / w.sum()


epsilons = st.floats(1e-4, 1.0)


def series_stationary(P, u, eps, terms=20_000):
    """Prop 3.2's series eps sum_j (1 - eps)^j u P^j, truncated (row vectors)."""
    out = np.zeros_like(u)
    v = u.copy()
    for j in range(terms):
        out += eps * (1 - eps) ** j * v
        v = v @ P
    return out


def eigvec_stationary(M):
    """Left eigenvector of M for the eigenvalue closest to 1, normalised."""
    vals, vecs = np.linalg.eig(M.T)
    v = np.real(vecs[:, np.argmin(np.abs(vals - 1))])
    return v / v.sum()


def numpy_sample_restart(P, u, eps, n, start, n_checkpoints, seed):
    """Reference for sample_restart: same random streams (Generator for the lengths and seeds,
    legacy MT19937 = numba's stream for the steps), np.searchsorted for every move."""
    rng = np.random.default_rng(seed)
    lengths = rng.geometric(eps, size=n) - 1
    seeds = rng.integers(0, 2**32, size=2)
    cum_P = np.cumsum(P, axis=1)
    cum_P /= cum_P[:, -1:]
    cum_u = np.cumsum(u) / np.cumsum(u)[-1]
    rs = np.random.RandomState(int(seeds[0]))
    draws = np.empty(n, dtype=np.int64)
    for i in range(n):
        y = int(np.searchsorted(cum_u, rs.random_sample(), side="right"))
        for _ in range(lengths[i]):
            y = int(np.searchsorted(cum_P[y], rs.random_sample(), side="right"))
        draws[i] = y
    steps = int(lengths.sum()) + n
    rs = np.random.RandomState(int(seeds[1]))
    path = np.empty(steps + 1, dtype=np.int64)
    path[0] = y = start
    for t in range(1, steps + 1):
        y = int(np.searchsorted(cum_P[y], rs.random_sample(), side="right"))
        path[t] = y
    return draws, lengths, path


# ---------------------------------------------------------------- validation


BAD_MATRICES = {
    "rows not summing to 1": np.array([[0.5, 0.4], [0.5, 0.5]]),
    "negative entry": np.array([[1.2, -0.2], [0.5, 0.5]]),
    "NaN": np.array([[np.nan, 1.0], [0.5, 0.5]]),
    "not square": np.ones((2, 3)) / 3,
}


@pytest.mark.parametrize("bad", BAD_MATRICES.values(), ids=BAD_MATRICES.keys())
def test_bad_matrices_raise(bad):
    u = np.full(2, 0.5)
    for call in (
        lambda: db.restart_chain(bad, u, 0.5),
        lambda: db.stationary(bad),
        lambda: db.restart_stationary(bad, u, 0.5),
        lambda: db.spectral_gap(bad),
        lambda: db.restart_spectrum(bad, u, 0.5),
        lambda: db.restart_sweep(bad, u, [0.5]),
        lambda: db.sample_restart(bad, u, 0.5, 10),
    ):
        with pytest.raises(ValueError, match="P"):
            call()


@pytest.mark.parametrize("eps", [0.0, -0.1, 1.0001, np.nan, np.inf, "a"])
def test_eps_outside_unit_interval_raises(eps):
    P = db.three_state_chain(0.1)
    u = np.full(3, 1 / 3)
    for fn in (db.restart_chain, db.restart_stationary, db.restart_spectrum):
        with pytest.raises(ValueError, match="eps"):
            fn(P, u, eps)
    with pytest.raises(ValueError, match="eps"):
        db.sample_restart(P, u, eps, 10)


def test_bad_laws_and_options_raise():
    P = db.three_state_chain(0.1)
    for u in ([0.5, 0.5], [0.5, 0.6, -0.1], [np.nan, 0.5, 0.5], [0.2, 0.2, 0.2]):
        with pytest.raises(ValueError, match="u"):
            db.restart_chain(P, u, 0.5)
    u = np.full(3, 1 / 3)
    with pytest.raises(ValueError, match="eps_grid"):
        db.restart_sweep(P, u, [0.5, 0.0])
    with pytest.raises(ValueError, match="eps_grid"):
        db.restart_sweep(P, u, [])
    with pytest.raises(ValueError, match="n"):
        db.sample_restart(P, u, 0.5, 0)
    with pytest.raises(ValueError, match="start"):
        db.sample_restart(P, u, 0.5, 10, start=3)
    with pytest.raises(ValueError, match="n / eps"):
        db.sample_restart(P, u, 1e-6, 100)
    with pytest.raises(ValueError, match="seed"):
        db.sample_restart(P, u, 0.5, 10, seed=-1)
    for delta in (0.0, 0.51, np.nan):
        with pytest.raises(ValueError, match="delta"):
            db.three_state_chain(delta)
    with pytest.raises(ValueError, match="n"):
        db.random_chain(1)
    with pytest.raises(ValueError, match="sparsity"):
        db.random_chain(3, sparsity=1.0)
    with pytest.raises(ValueError, match="bridge"):
        db.barbell_chain(3, bridge=0.0)
    with pytest.raises(ValueError, match="kind"):
        db.restart_law("gaussian", 3)
    with pytest.raises(ValueError, match="chain"):
        db.restart_law("chain", 3)
    with pytest.raises(ValueError, match="state"):
        db.restart_law("point", 3, state=3)


def test_stationary_refuses_several_closed_classes():
    P = np.array([[1.0, 0.0, 0.0], [0.5, 0.0, 0.5], [0.0, 0.0, 1.0]])
    with pytest.raises(ValueError, match="closed classes"):
        db.stationary(P)
    with pytest.raises(ValueError, match="closed classes"):
        db.stationary(np.eye(3))
    # ...but the restarted chain always has one law (Prop 3.2 needs no irreducibility)
    u = np.full(3, 1 / 3)
    np.testing.assert_allclose(db.restart_stationary(P, u, 0.5),
                               eigvec_stationary(db.restart_chain(P, u, 0.5)), atol=1e-12)


def test_stationary_puts_no_mass_on_transient_states():
    P = np.array([[0.0, 1.0, 0.0], [0.0, 0.3, 0.7], [0.0, 0.6, 0.4]])  # state 0 is transient
    pi = db.stationary(P)
    assert pi[0] == 0.0
    np.testing.assert_allclose(pi, [0.0, 6 / 13, 7 / 13], atol=1e-14)


# ---------------------------------------------------------------- eq 2, Prop 3.2


@given(P=chains(), data=st.data(), eps=epsilons)
def test_restart_chain_is_stochastic_mixture(P, data, eps):
    u = data.draw(laws(P.shape[0]))
    Pt = db.restart_chain(P, u, eps)
    np.testing.assert_allclose(Pt.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(Pt, (1 - eps) * P + eps * np.outer(np.ones(len(u)), u), atol=0)
    assert np.all(Pt >= eps * u[None, :] - 1e-15)  # strong Doeblin: minorised by eps u


@given(P=chains(), data=st.data(), eps=st.floats(0.01, 1.0))
def test_prop_3_2_closed_form(P, data, eps):
    u = data.draw(laws(P.shape[0]))
    closed = db.restart_stationary(P, u, eps)
    Pt = db.restart_chain(P, u, eps)
    np.testing.assert_allclose(closed, eigvec_stationary(Pt), atol=1e-9)
    np.testing.assert_allclose(closed @ Pt, closed, atol=1e-12)
    np.testing.assert_allclose(closed, db.stationary(Pt), atol=1e-10)
    np.testing.assert_allclose(closed, series_stationary(P, u, eps, terms=4000), atol=1e-10)


def test_prop_3_2_limits():
    P = db.random_chain(5, seed=3)
    u = db.restart_law("point", 5, state=2)
    np.testing.assert_allclose(db.restart_stationary(P, u, 1.0), u, atol=1e-15)  # pi~_1 = u
    np.testing.assert_allclose(db.restart_stationary(P, u, 1e-9), db.stationary(P), atol=1e-7)


@given(P=ergodic_chains(max_n=8))
def test_stationary_solves_pi_P_equals_pi(P):
    pi = db.stationary(P)
    assert np.all(pi > 0) and abs(pi.sum() - 1) < 1e-12
    np.testing.assert_allclose(pi @ P, pi, atol=1e-12)
    np.testing.assert_allclose(pi, eigvec_stationary(P), atol=1e-9)


# ---------------------------------------------------------------- Prop 3.1


@given(sparse=st.booleans(), data=st.data(), eps=epsilons)
def test_prop_3_1_eigenvalues_and_gap(sparse, data, eps):
    P = data.draw(chains(sparse=sparse))
    u = data.draw(laws(P.shape[0]))
    spec = db.restart_spectrum(P, u, eps)
    # independent check of the gap: eigenvalues of P~ straight from numpy
    moduli = np.sort(np.abs(np.linalg.eigvals(db.restart_chain(P, u, eps))))[::-1]
    assert spec.gap == pytest.approx(1 - min(1.0, moduli[1]), abs=1e-12)
    assert spec.gap >= eps - 1e-9
    assert db.spectral_gap(db.restart_chain(P, u, eps)) >= eps - 1e-9
    np.testing.assert_allclose(spec.predicted[1:], (1 - eps) * spec.chain[1:], atol=0)
    # dense random chains are diagonalisable with well separated eigenvalues; sparse ones can
    # have Jordan blocks, whose eigenvalues numpy only finds to ~(machine eps)^(1/size)
    assert spec.max_error < (1e-3 if sparse else 1e-8)


def test_prop_3_1_gap_is_exactly_eps_when_P_has_two_closed_classes():
    P = np.eye(3)  # |lambda_2(P)| = 1
    u = np.full(3, 1 / 3)
    for eps in (0.01, 0.3, 1.0):
        assert db.spectral_gap(db.restart_chain(P, u, eps)) == pytest.approx(eps, abs=1e-12)


def test_spectral_gap_of_small_chains():
    assert db.spectral_gap(np.array([[0.0, 1.0], [1.0, 0.0]])) == pytest.approx(0.0)  # periodic
    assert db.spectral_gap(np.array([[0.7, 0.3], [0.2, 0.8]])) == pytest.approx(0.5)  # 1 - 0.5
    assert db.spectral_gap(np.array([[1.0]])) == 1.0


# ---------------------------------------------------------------- Prop 3.4, Prop 3.5


@given(P=ergodic_chains(), data=st.data())
def test_prop_3_4_kl_monotone_in_eps(P, data):
    u = data.draw(laws(P.shape[0]))
    grid = np.geomspace(1e-4, 1.0, 25)
    sw = db.restart_sweep(P, u, grid)
    for kl in (sw.kl_restart_pi, sw.kl_pi_restart):
        assert np.all(np.diff(kl) >= -1e-12 * np.maximum(1.0, kl[1:]))
    assert sw.kl_monotone
    # eps = 1 is u itself; the closed form rows are the laws
    assert sw.kl_restart_pi[-1] == pytest.approx(kl_divergence(u, sw.pi), rel=1e-9, abs=1e-12)
    np.testing.assert_allclose(sw.stationary[-1], u, atol=1e-14)
    assert np.all(sw.gaps >= grid - 1e-9)  # Prop 3.1 on the grid
    np.testing.assert_allclose(sw.gaps, sw.predicted_gaps, atol=1e-7)


@given(P=ergodic_chains(reversible=True), data=st.data())
def test_prop_3_5_mahalanobis_bound_for_reversible_chains(P, data):
    u = data.draw(laws(P.shape[0]))
    grid = np.geomspace(1e-4, 1.0, 20)
    sw = db.restart_sweep(P, u, grid)
    assert sw.reversible
    pi = db.stationary(P)
    lam2 = np.sort(np.abs(np.linalg.eigvals(P)))[-2]
    # the paper's d_pi(q) = sqrt(-1 + sum q^2 / pi) equals ||q - pi|| in diag(pi)^{-1}; the
    # latter form avoids the cancellation when q is close to pi
    d_u = np.sqrt((u - pi) @ ((u - pi) / pi))
    assert d_u == pytest.approx(np.sqrt(max(0.0, -1 + np.sum(u**2 / pi))), abs=1e-7)
    for k, eps in enumerate(grid):
        pt = db.restart_stationary(P, u, eps)
        d = np.sqrt((pt - pi) @ ((pt - pi) / pi))
        assert d <= eps / (1 - lam2) * d_u * (1 + 1e-9) + 1e-13
        assert sw.mahalanobis[k] == pytest.approx(d, rel=1e-9, abs=1e-14)
    assert sw.bound_holds


def test_random_and_barbell_chains_are_as_documented():
    P = db.random_chain(30, sparsity=0.9, seed=1)
    assert np.all(np.diag(P) > 0) and np.all(P[np.arange(30), (np.arange(30) + 1) % 30] > 0)
    assert 0.75 < np.mean(P == 0) < 0.92
    assert not db.is_reversible(P)
    assert db.is_reversible(db.random_chain(10, sparsity=0.5, reversible=True, seed=2))
    B = db.barbell_chain(5, bridge=0.01)
    pi = db.stationary(B)
    assert db.is_reversible(B)
    assert pi[:5].sum() == pytest.approx(0.5) and pi[5:].sum() == pytest.approx(0.5)
    assert B[4, 5] == pytest.approx(0.01) and B[5, 4] == pytest.approx(0.01)
    assert db.spectral_gap(B) < 0.01  # one bridge crossing per ~1 / (bridge / m) steps
    np.testing.assert_allclose(db.restart_law("chain", 10, chain=db.barbell_chain(5, bridge=0.5)),
                               db.stationary(db.barbell_chain(5, bridge=0.5)))


# ---------------------------------------------------------------- Fig 1: the three-state chain


@pytest.mark.parametrize("delta", [0.5, 0.1, 1e-4, 1e-8])
def test_three_state_chain_stationary_law(delta):
    P = db.three_state_chain(delta)
    # the solve loses ~log10(1 / delta) digits: the chain is nearly decomposable
    np.testing.assert_allclose(db.stationary(P), np.array([1, 3 * delta, 1]) / (2 + 3 * delta),
                               rtol=1e-13 + 1e-15 / delta, atol=0)
    assert db.is_reversible(P)


@pytest.mark.parametrize("delta", [0.5, 0.1, 1e-4])
def test_three_state_chain_falls_into_state_3_with_probability_5_9(delta):
    # probability h(i) of entering state 1 before state 3 from i: h(1) = 1, h(3) = 0,
    # h(2) = P[2,1] + P[2,2] h(2) + 0 (first-step analysis), then average over uniform u
    P = db.three_state_chain(delta)
    h2 = P[1, 0] / (1 - P[1, 1])
    assert np.mean([1.0, h2, 0.0]) == pytest.approx(4 / 9, abs=1e-15)
    assert np.mean([0.0, 1 - h2, 1.0]) == pytest.approx(5 / 9, abs=1e-15)


def test_three_state_restart_law_in_the_limit_delta_to_zero():
    # delta -> 0 with eps fixed: pi~ -> eps u + (1 - eps) [4/9, 0, 5/9] (error O(delta / eps))
    u = np.full(3, 1 / 3)
    for eps in (0.5, 0.1, 1e-3):
        pt = db.restart_stationary(db.three_state_chain(1e-12), u, eps)
        np.testing.assert_allclose(pt, eps * u + (1 - eps) * np.array([4, 0, 5]) / 9, atol=1e-8)


def test_fig1_two_regimes():
    # delta = 1e-4 (Fig 1, right): pi_1 = 1 / (2 + 3e-4) = 0.49993 ("0.499, the true probability")
    delta = 1e-4
    P = db.three_state_chain(delta)
    u = np.full(3, 1 / 3)
    pi1 = 1 / (2 + 3 * delta)
    assert 0.499 < pi1 < 0.5
    # eps << delta: the restarts barely perturb pi (Prop 3.5 bounds the distance)
    small = db.restart_stationary(P, u, 1e-8)
    assert abs(small[0] - pi1) < 1e-4
    # delta << eps << 1: the restarted chain puts ~4/9 on state 1
    mid = db.restart_stationary(P, u, 0.01)
    assert abs(mid[0] - (0.01 / 3 + 0.99 * 4 / 9)) < 0.01
    sw = db.restart_sweep(P, u, np.geomspace(1e-8, 1, 50))
    assert np.all(np.diff(sw.stationary[:, 0]) <= 1e-12)  # state 1 loses mass as eps grows


# ---------------------------------------------------------------- exact sampler


def test_sample_restart_matches_numpy_reference():
    P = db.random_chain(6, sparsity=0.5, seed=4)
    u = db.restart_law("point", 6, state=5)
    res = db.sample_restart(P, u, 0.1, 300, start=2, n_checkpoints=20, seed=11)
    draws, lengths, path = numpy_sample_restart(P, u, 0.1, 300, 2, 20, seed=11)
    np.testing.assert_array_equal(res.lengths, lengths)
    np.testing.assert_array_equal(res.draws, draws)
    np.testing.assert_array_equal(res.path, path)
    assert res.path[0] == 2 and res.steps == int(lengths.sum()) + 300
    # histograms at every checkpoint, recomputed from the draws and the path
    done_at = np.cumsum(lengths + 1)
    for c, cp in enumerate(res.checkpoints):
        m = int(np.sum(done_at <= cp))
        assert res.completed[c] == m
        np.testing.assert_allclose(res.restart_histograms[c],
                                   np.bincount(draws[:m], minlength=6) / m)
        np.testing.assert_allclose(res.plain_histograms[c],
                                   np.bincount(path[1:cp + 1], minlength=6) / cp)
    assert res.checkpoints[0] == lengths[0] + 1 and res.checkpoints[-1] == res.steps


def test_sample_restart_same_seed_same_output():
    P = db.three_state_chain(0.05)
    u = np.full(3, 1 / 3)
    a = db.sample_restart(P, u, 0.2, 100, seed=5)
    b = db.sample_restart(P, u, 0.2, 100, seed=5)
    np.testing.assert_array_equal(a.draws, b.draws)
    np.testing.assert_array_equal(a.path, b.path)


def test_exact_sampler_goodness_of_fit():
    # chi-square of 20000 draws against Prop 3.2's law (fixed seed; 5 cells, all expected >= 5)
    P = db.random_chain(5, sparsity=0.3, seed=8)
    u = db.restart_law("point", 5, state=0)
    eps = 0.15
    res = db.sample_restart(P, u, eps, 20_000, seed=2024)
    expected = 20_000 * db.restart_stationary(P, u, eps)
    assert expected.min() > 5
    p = stats.chisquare(np.bincount(res.draws, minlength=5), expected).pvalue
    assert p > 1e-3
    # the test has power: the same draws are far from pi, the law of the plain chain
    assert stats.chisquare(np.bincount(res.draws, minlength=5),
                           20_000 * db.stationary(P)).pvalue < 1e-6
    # lengths: Geometric(eps) on {0, 1, ...}: mean (1 - eps) / eps
    sd = np.sqrt(1 - eps) / eps / np.sqrt(20_000)
    assert abs(res.lengths.mean() - (1 - eps) / eps) < 5 * sd


def test_sampling_race_on_the_barbell():
    # the plain chain started in one cluster has not crossed the bridge; the draws have no burn-in
    P = db.barbell_chain(4, bridge=1e-4)
    u = np.full(8, 1 / 8)
    res = db.sample_restart(P, u, 0.05, 2000, start=0, seed=3)
    assert res.plain_tv[-1] > 0.3  # stuck in its starting cluster
    assert res.restart_tv[-1] < 0.05  # converged to pi~
    np.testing.assert_allclose(res.restart_law, db.restart_stationary(P, u, 0.05))


# ---------------------------------------------------------------- staged chains (Sec 3.1)


def test_two_stage_chain_is_the_strong_doeblin_chain():
    # Fig 2(a): z' = 0 (restart) w.p. eps, z' = 1 (P) w.p. 1 - eps, whatever z is
    P = db.random_chain(4, seed=6)
    u = db.restart_law("point", 4, state=1)
    eps = 0.2
    C = np.array([[eps, 1 - eps], [eps, 1 - eps]])
    M = db.staged_chain(np.stack([db.restart_kernel(u), P]), C)
    np.testing.assert_allclose(M.sum(axis=1), 1.0, atol=1e-14)
    np.testing.assert_allclose(db.stage_marginal(db.stationary(M), 2),
                               db.restart_stationary(P, u, eps), atol=1e-12)
    # Thm 3.6 with a = b = 1 gives eps (Prop 3.1); the maximum over (a, b) is at least that
    assert db.staged_gap_bound(C).bound >= eps - 1e-15
    assert db.spectral_gap(M) >= eps - 1e-12


def test_staged_chain_entries():
    K = np.stack([db.restart_kernel(np.array([0.25, 0.75])), np.array([[0.0, 1.0], [1.0, 0.0]])])
    C = np.array([[0.0, 1.0], [0.5, 0.5]])
    M = db.staged_chain(K, C)
    # from (z=1, y=0): z'=0 w.p. 0.5 then y' ~ u; z'=1 w.p. 0.5 then y' = 1
    np.testing.assert_allclose(M[2 + 0], [0.5 * 0.25, 0.5 * 0.75, 0.0, 0.5])
    with pytest.raises(ValueError, match="stage_transition"):
        db.staged_chain(K, np.eye(3))
    with pytest.raises(ValueError, match="kernels"):
        db.staged_chain(np.ones((2, 2, 2)), C)


def theorem36_reference(C, zstar, horizon):
    """gamma_{a,b} / b maximised by brute force: P[tau_a = s | z_0] from the chain killed at z*."""
    best = 0.0
    for a in range(1, horizon + 1):
        law = np.linalg.matrix_power(C, a)
        gamma = 0.0
        for s in range(a, horizon + 1):
            if s > a:
                law = law @ C
            gamma += law[:, zstar].min()
            law = law.copy()
            law[:, zstar] = 0.0
            best = max(best, gamma / s)
    return best


@pytest.mark.parametrize("deltas", [[1.0, 0.3, 0.05], [0.5, 0.5], [1.0, 0.2, 0.4, 0.06]])
def test_theorem_3_6_kernel_matches_reference(deltas):
    C = db.cycle_stage_transition(deltas)
    got = db.staged_gap_bound(C, horizon=60)
    assert got.bound == pytest.approx(theorem36_reference(C, 0, 60), rel=1e-12)
    assert 1 <= got.a <= got.b <= 60 and got.gamma / got.b == pytest.approx(got.bound)


@given(k=st.integers(2, 4), n=st.integers(2, 4), seed=st.integers(0, 2**32 - 1),
       last=st.floats(0.01, 1.0), data=st.data())
def test_corollary_3_7_cycle_gap(k, n, seed, last, data):
    rng = np.random.default_rng(seed)
    first = np.array([data.draw(st.floats(0.05, 1.0)) for _ in range(k - 1)])
    deltas = np.append(first, last * first.min() / max(2, k - 1))  # satisfies the hypothesis
    C = db.cycle_stage_transition(deltas)
    kernels = [db.restart_kernel(rng.dirichlet(np.ones(n)))]
    kernels += [db.random_chain(n, sparsity=0.5, seed=rng) for _ in range(k - 1)]
    M = db.staged_chain(np.stack(kernels), C)
    gap = db.spectral_gap(M)
    assert gap >= db.cycle_gap_bound(deltas) - 1e-12
    assert db.cycle_gap_bound(deltas) == pytest.approx(deltas[-1] / 78)
    assert gap >= db.staged_gap_bound(C, horizon=min(400, int(4 / deltas.min()) + 1)).bound - 1e-9


def test_corollary_3_7_hypothesis_is_checked():
    with pytest.raises(ValueError, match="Cor 3.7"):
        db.cycle_gap_bound([1.0, 0.1, 0.06])  # needs delta_2 <= 0.1 / 2
    assert db.cycle_gap_bound([1.0, 0.1, 0.05]) == pytest.approx(0.05 / 78)
    with pytest.raises(ValueError, match="deltas"):
        db.cycle_stage_transition([1.0, 0.0])


def test_staged_sweep_matches_staged_chain_and_its_bounds():
    # Fig 2(b): restart -> simpler chain (rate eps1) -> P (rate eps2); the sweep's gaps are those
    # of staged_chain, and Thm 3.6 / Cor 3.7 (which depend on the stage chain only) bound them
    P = db.three_state_chain(1e-3)
    simple = db.three_state_chain(0.1)
    u = np.full(3, 1 / 3)
    grid = np.geomspace(0.01, 1.0, 7)
    sw = db.staged_sweep(P, simple, u, 0.2, grid)
    bd = db.staged_cycle_bounds(0.2, grid)
    np.testing.assert_array_equal(sw.eps2, grid)
    for k, eps2 in enumerate(grid):
        C = db.cycle_stage_transition([1.0, 0.2, eps2])
        M = db.staged_chain(np.stack([db.restart_kernel(u), simple, P]), C)
        assert sw.gaps[k] == pytest.approx(db.spectral_gap(M), abs=1e-12)
        np.testing.assert_allclose(sw.marginals[k], db.stage_marginal(db.stationary(M), 3),
                                   atol=1e-12)
        assert sw.doeblin_gaps[k] == pytest.approx(
            db.spectral_gap(db.restart_chain(P, u, eps2)), abs=1e-12)
        assert bd.theorem[k] == pytest.approx(db.staged_gap_bound(C).bound)
        assert sw.gaps[k] >= bd.theorem[k] - 1e-12
    assert np.all(sw.doeblin_gaps >= grid - 1e-12)  # Prop 3.1
    holds = grid <= 0.2 / 2
    np.testing.assert_allclose(bd.corollary[holds], grid[holds] / 78)
    assert np.all(np.isnan(bd.corollary[~holds]))
    assert np.all(sw.gaps[holds] >= bd.corollary[holds])


def test_staged_sweep_validates():
    P = db.three_state_chain(0.1)
    u = np.full(3, 1 / 3)
    with pytest.raises(ValueError, match="simple"):
        db.staged_sweep(P, np.eye(2), u, 0.1, [0.1])
    with pytest.raises(ValueError, match="eps2_grid"):
        db.staged_sweep(P, P, u, 0.1, [1e-4])
    with pytest.raises(ValueError, match="eps1"):
        db.staged_cycle_bounds(0.0, [0.1])
    with pytest.raises(ValueError, match="eps2_grid"):
        db.staged_cycle_bounds(0.1, np.full(201, 0.5))


def test_warmup_runs():
    db._warmup()


def test_kl_divergence_of_a_tiny_probability_is_finite():
    """KL(p || q) with q_i far below the smallest normal double: finite, no overflow warning,
    and equal to the direct sum p_i (log p_i - log q_i)."""
    import warnings

    p, q = np.array([0.5, 0.5]), np.array([1.0 - 1e-310, 1e-310])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = kl_divergence(p, q)
    expected = 0.5 * np.log(0.5 / (1.0 - 1e-310)) + 0.5 * (np.log(0.5) + 310 * np.log(10))
    assert np.isfinite(value) and value == pytest.approx(expected, rel=1e-12)


# --- issue 25: bad input refused by name ----------------------------------------------------------


def test_bad_input_is_refused_by_name_across_the_package():
    """Model arguments of another type raised AttributeError, a word list of another kind
    TypeError from deep inside, step_size = 1e12 ZeroDivisionError from log(0) in a kernel;
    eps2_grid's errors named eps_grid, atol's none at all."""
    import dynamics.doeblin as db

    model = db.sequence_model(3, 2)
    theta, x, y = np.zeros(model.n_params), np.array([0, 1]), np.array([1, 2])
    for call in (lambda: db.model_chains(theta, x, "model"),
                 lambda: db.exact_log_likelihood(theta, x, y, None, eps=0.1),
                 lambda: db.exact_gradient(theta, x, y, object(), eps=0.1),
                 lambda: db.gibbs_path(theta, x, 3, steps=2),
                 lambda: db.sample_gradient(theta, x, y, {}, eps=0.1),
                 lambda: db.gradient_convergence(theta, x, y, [], eps=0.1)):
        with pytest.raises(TypeError, match="model"):
            call()
    problem = db.make_dnf_problem(seed=0)
    with pytest.raises(TypeError, match="problem"):
        db.dnf_errors(problem.target_coef, problem.target_bound, "problem")
    assert db.dnf_errors(problem.target_coef, problem.target_bound, problem) == 0
    with pytest.raises(ValueError, match="target"):
        db.make_dnf_problem(target=np.array([1.0 + 0j]))
    with pytest.raises(ValueError, match="target_atoms"):
        db.make_dnf_problem(target=next(iter(db.DNF_TARGETS)), target_atoms=float("nan"))
    with pytest.raises(TypeError, match="levels"):
        db.dnf_experiment(5, trials=1, max_steps=10)
    with pytest.raises(TypeError, match="methods"):
        db.dnf_experiment(None, trials=1, max_steps=10, methods="2-stage")
    with pytest.raises(ValueError, match="methods"):
        db.dnf_experiment(None, trials=1, max_steps=10, methods=("3-stage",))
    for words in (None, 5, "rate"):
        with pytest.raises(TypeError, match="words"):
            db.make_word_task(n_train=5, n_test=5, words=words)
    with pytest.raises(ValueError, match="words"):
        db.make_word_task(n_train=5, n_test=5, words=("rate", "ra"))
    with pytest.raises(TypeError, match="methods"):
        db.train_word_task(transitions=2, epochs=1, seeds=1, chains=2, n_train=5, n_test=5,
                           methods=None)
    with pytest.raises(ValueError, match="step_size"):
        db.train_word_task(transitions=2, epochs=1, seeds=1, chains=2, n_train=5, n_test=5,
                           step_size=1e12)
    P, u = db.three_state_chain(0.1), np.full(3, 1 / 3)
    with pytest.raises(ValueError, match="atol"):
        db.is_reversible(P, atol="tight")
    with pytest.raises(ValueError, match="eps2_grid"):
        db.staged_cycle_bounds(0.1, np.array([np.nan]))
    with pytest.raises(TypeError, match="eps2_grid"):
        db.staged_sweep(P, P, u, 0.1, np.array([0.1 + 0j]))


def test_the_exact_sampler_moved_to_its_own_module_with_the_same_draws():
    """chains.py grew past 800 lines: the exact restart sampler is now ``doeblin.sampling``;
    the package exports it as before and the same seed gives the same draws."""
    import dynamics.doeblin as db
    from dynamics.doeblin import sampling

    assert db.sample_restart is sampling.sample_restart
    assert db.MAX_SAMPLE_DRAWS == sampling.MAX_SAMPLE_DRAWS
    P, u = db.three_state_chain(0.2), np.full(3, 1 / 3)
    a = db.sample_restart(P, u, 0.3, 500, seed=7)
    b = sampling.sample_restart(P, u, 0.3, 500, seed=7)
    np.testing.assert_array_equal(a.draws, b.draws)
    # the draws estimate pi~ (Prop 3.2): 500 draws, TV well under 0.1
    assert a.restart_tv[-1] < 0.1


def test_restart_law_checks_the_arguments_its_kind_leaves_unused():
    """state and chain were ignored unless kind asked for them: now a bad one is refused in
    every mode, and flags are booleans."""
    import dynamics.doeblin as db

    P = db.three_state_chain(0.1)
    np.testing.assert_allclose(db.restart_law("uniform", 3, state=2, chain=P), np.full(3, 1 / 3))
    with pytest.raises(ValueError, match="state"):
        db.restart_law("uniform", 3, state=7)
    with pytest.raises(ValueError, match="chain"):
        db.restart_law("point", 3, chain=np.eye(2))
    with pytest.raises(ValueError, match="kind"):
        db.restart_law(["uniform"], 3)
    with pytest.raises(TypeError, match="reversible"):
        db.random_chain(4, reversible="yes")


def test_choices_given_as_arrays_are_refused_by_name():
    """``x not in (...)`` with an array raised 'truth value ... ambiguous' (or unhashable)."""
    import dynamics.doeblin as db

    bad = np.array([1.0, 2.0])
    with pytest.raises(ValueError, match="channel"):
        db.make_word_task(n_train=5, n_test=5, channel=bad)
    with pytest.raises(ValueError, match="method"):
        db.dnf_search(db.make_dnf_problem(seed=0), method=bad, max_steps=10)
    model = db.sequence_model(3, 2)
    with pytest.raises(ValueError, match="weights"):
        db.sample_gradient(np.zeros(model.n_params), np.array([0, 1]), np.array([1, 2]), model,
                           eps=0.5, weights=bad)


def test_tiny_eps_and_ragged_dictionaries_are_refused_by_name():
    """eps = 1e-300 made I - (1 - eps) P^T exactly singular (LinAlgError); a ragged dictionary
    failed inside numpy without naming it."""
    import dynamics.doeblin as db

    P, u = db.three_state_chain(0.1), np.full(3, 1 / 3)
    with pytest.raises(ValueError, match="eps"):
        db.restart_stationary(P, u, 1e-300)
    assert np.isfinite(db.restart_stationary(P, u, db.MIN_EPS)).all()
    with pytest.raises(ValueError, match="dictionary"):
        db.sequence_model(3, 2, [[0, 1], [2]])
    assert db.sequence_model(3, 2, np.zeros((0, 2), dtype=np.int64)).in_dictionary.sum() == 0
    model = db.sequence_model(3, 2)
    with pytest.raises(ValueError, match="step"):
        db.exact_gradient(np.zeros(model.n_params), np.array([0, 1]), np.array([1, 2]), model,
                          eps=0.5, step=1e308)
