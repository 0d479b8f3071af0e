"""Generalized herding and the perceptron cycling theorem (Chen & Welling Sec 1.3.2, L462):
minibatches without replacement match the full moments at O(1/tau), with replacement only at
O(1/sqrt tau); an approximate argmax keeps O(1/tau) while the PCT holds."""

from __future__ import annotations

import numpy as np
import pytest

from dynamics.pct import generalized_herding as gh

T = 6000


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    return np.where(rng.random((200, 6)) < 0.3 + 0.4 * rng.random(6), 1, -1)


def test_features_and_states():
    x = np.array([[1, -1, 1]])
    np.testing.assert_array_equal(gh.features(x), [[1, -1, 1, -1, 1, -1]])
    states = gh.all_states(3)
    assert states.shape == (8, 3) and len({tuple(s) for s in states}) == 8


def test_exact_herding_matches_the_moments_at_one_over_tau(data):
    run = gh.pct_herding(data, T, seed=1)
    assert run.pct_held.all()  # the exact argmax always satisfies the PCT condition
    assert gh.rate(run.error_full) == pytest.approx(-1.0, abs=0.1)
    scaled = np.arange(1, T + 1) * run.error_full
    assert scaled[T // 2:].max() <= 1.2 * scaled[: T // 2].max()  # tau x error stays bounded
    assert run.weight_norm.max() < 50


def test_minibatches_without_replacement_keep_one_over_tau_with_replacement_do_not(data):
    without = gh.pct_herding(data, T, batch_size=10, seed=2)
    with_ = gh.pct_herding(data, T, batch_size=10, replacement=True, seed=2)
    assert gh.rate(without.error_full) == pytest.approx(-1.0, abs=0.1)
    assert gh.rate(with_.error_full) == pytest.approx(-0.5, abs=0.15)
    # against the minibatch targets both match at O(1/tau): the PCT still applies
    for run in (without, with_):
        assert gh.rate(run.error_batch) == pytest.approx(-1.0, abs=0.1)


def test_a_local_argmax_keeps_the_rate_while_the_pct_holds(data):
    run = gh.pct_herding(data, T, search_sweeps=1, seed=3)
    assert run.pct_held.mean() > 0.95
    assert gh.rate(run.error_full) == pytest.approx(-1.0, abs=0.1)


@pytest.mark.parametrize("kwargs, match", [
    (dict(data=np.zeros((5, 3))), "data"),
    (dict(data=np.ones((5, 1))), "columns"),
    (dict(data=np.ones((5, 3)), batch_size=6), "batch_size"),
    (dict(data=np.ones((5, 3)), search_sweeps=0), "search_sweeps"),
])
def test_bad_inputs_raise_value_error(kwargs, match):
    kwargs = dict(kwargs)
    with pytest.raises(ValueError, match=match):
        gh.pct_herding(kwargs.pop("data"), 10, **kwargs)


def test_rbm_joint_argmax_against_enumerating_visible_and_hidden_units():
    rng = np.random.default_rng(4)
    nv, nh = 5, 4  # 9 units: 512 joint states
    for _ in range(20):
        W, b, c = rng.normal(size=(nv, nh)), rng.normal(size=nv), rng.normal(size=nh)
        v, z = gh.rbm_joint_argmax(W, b, c)
        joint = gh.all_states(nv + nh).astype(float)
        scores = [s[:nv] @ W @ s[nv:] + b @ s[:nv] + c @ s[nv:] for s in joint]
        assert v @ W @ z + b @ v + c @ z == pytest.approx(max(scores))


@pytest.mark.parametrize("tractable", [False, True])
def test_herding_with_hidden_units_matches_moments_at_one_over_tau(tractable):
    """Prop 1.8 (exact argmaxes) and Prop 1.9 (local search from the best data case): the PCT
    holds at every step and the error between data-side and sample-side moments is O(1/tau)."""
    rng = np.random.default_rng(0)
    X = np.where(rng.random((100, 6)) < 0.3 + 0.4 * rng.random(6), 1, -1)
    X[:50, :3], X[50:, :3] = 1, -1
    run = gh.herd_rbm(X, 4, 3000, tractable=tractable, seed=0)
    assert run.pct_held.all()
    assert gh.rate(run.error) == pytest.approx(-1.0, abs=0.1)
    # the visible means of the joint samples match the data's (phi includes v_i)
    assert np.abs(run.visible.mean(0) - X.mean(0)).max() < 2 * run.weight_norm.max() / 3000
    with pytest.raises(ValueError, match="16 visible"):
        gh.herd_rbm(np.ones((2, 17)), 2, 3)


def test_boltzmann_data_is_reproducible_and_correlated():
    """Exact draws from a random Boltzmann machine: +-1 rows, the same for the same seed, and
    (with w ~ N(0, 0.5^2)) the empirical correlations are far from those of fair coins."""
    a = gh.boltzmann_data(6, 2000, seed=3)
    assert a.shape == (2000, 6) and set(np.unique(a)) <= {-1, 1}
    np.testing.assert_array_equal(a, gh.boltzmann_data(6, 2000, seed=3))
    corr = np.abs(np.corrcoef(a.T.astype(float))[np.triu_indices(6, 1)])
    assert corr.max() > 0.2  # coins: |corr| ~ 1/sqrt(2000) = 0.02
    for bad in (dict(n=1, cases=10), dict(n=20, cases=10), dict(n=4, cases=0)):
        with pytest.raises(ValueError):
            gh.boltzmann_data(**bad)
    with pytest.raises(ValueError, match="scale"):
        gh.boltzmann_data(4, 10, scale=float("nan"))


def test_enumeration_and_shapes_are_checked_by_name():
    """Issue 25: all_states(10**12) hung; features and rbm_features raised IndexError."""
    with pytest.raises(ValueError, match="n must be an integer"):
        gh.all_states(10**12)
    with pytest.raises(ValueError, match="x must"):
        gh.features(np.ones((2, 2, 2)))  # was an IndexError on None or a scalar
    with pytest.raises(ValueError, match="v and z"):
        gh.rbm_features(np.ones((3, 2)), np.ones((2, 2)))
    with pytest.raises(TypeError, match="replacement"):
        gh.pct_herding(np.ones((2, 3)), 5, batch_size=1, replacement="yes")


def _pct_reference(X, steps, x0, sweeps=None):
    """Exact integer reference of pct_herding without minibatches: u = D w, the argmax the
    first maximum (lowest state index), a local search that keeps a spin on a zero field, the
    PCT as an integer comparison. Also counts the steps whose maximum (or some field) ties."""
    D, n = X.shape
    phi = gh.features(X).astype(np.int64)
    states = gh.all_states(n)
    table = gh.features(states).astype(np.int64)
    total = phi.sum(axis=0)
    iu, ju = np.triu_indices(n, 1)
    u, x = np.zeros(table.shape[1], np.int64), x0.astype(np.int64).copy()
    out, pct, ties = [], [], 0
    for _ in range(steps):
        if sweeps is None:
            S = table @ u
            ties += int(np.count_nonzero(S == S.max()) > 1)
            x = states[np.flatnonzero(S == S.max())[0]].astype(np.int64)
        else:
            W = np.zeros((n, n), np.int64)
            W[iu, ju] = W[ju, iu] = u[n:]
            for _ in range(sweeps):
                changed = False
                for i in range(n):
                    field = u[i] + W[i] @ x
                    ties += int(field == 0)
                    new = x[i] if field == 0 else (1 if field > 0 else -1)
                    changed |= new != x[i]
                    x[i] = new
                if not changed:
                    break
        f = gh.features(x).astype(np.int64)
        pct.append(D * (u @ f) >= u @ total)
        u += total - D * f
        out.append(x.copy())
    return np.array(out), np.array(pct), ties


@pytest.mark.parametrize("sweeps", [None, 1])
def test_ties_are_decided_exactly_against_an_integer_reference(data, sweeps):
    X = data[:37]                                        # moments: multiples of 1/37
    x0 = np.where(np.random.default_rng(4).random(6) < 0.5, -1, 1)   # pct_herding's first state
    run = gh.pct_herding(X, 1500, search_sweeps=sweeps, seed=4)
    states, pct, ties = _pct_reference(X, 1500, x0, sweeps)
    assert ties > 5                                      # the run meets exact ties
    np.testing.assert_array_equal(run.states, states)
    np.testing.assert_array_equal(run.pct_held, pct)
