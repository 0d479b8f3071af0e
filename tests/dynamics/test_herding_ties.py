"""Herding's exact tie rule (`dynamics.herding.herd`'s notes): integer scores when the features are
integers and the moments and w0 / eta multiples of 1/N, else the direct float scores; ties go to
the lowest state index. Each mode against a plain NumPy reference of the same rule, on runs
where ties really occur (counted, so that no test passes without one)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dynamics import herding
from dynamics.herding import samples


def pm_monomials(n: int, order: int) -> np.ndarray:
    """All products of up to ``order`` of n +-1 units, for the 2^n states (row c: bits of c)."""
    s = 2 * ((np.arange(1 << n)[:, None] >> np.arange(n)) & 1) - 1
    cols = [s[:, list(idx)].prod(axis=1) for k in range(1, order + 1)
            for idx in itertools.combinations(range(n), k)]
    return np.stack(cols, axis=1).astype(np.int64)


def integer_reference(phi, m, N, steps, u0=None):
    """Eq 1.7-1.8 on u = N w / eta in integers: (states, u_t rows, steps whose maximum ties)."""
    u = np.zeros(phi.shape[1], np.int64) if u0 is None else np.array(u0, np.int64)
    states, us, ties = np.empty(steps, np.int64), [u.copy()], 0
    for t in range(steps):
        S = phi @ u
        ties += int(np.count_nonzero(S == S.max()) > 1)
        states[t] = np.flatnonzero(S == S.max())[0]       # the lowest index among the maxima
        u = u + m - N * phi[states[t]]
        us.append(u.copy())
    return states, np.array(us), ties


def float_reference(features, moments, steps, w0=None, eta=1.0):
    """The float rule: w in double as the kernel updates it, scores summed over k in order,
    the lowest index of the maximum; also the number of steps whose two best scores lie within
    1e-9 of each other (near ties that incremental scores could get wrong)."""
    D, K = features.shape
    delta = eta * (moments - features)
    w = np.zeros(K) if w0 is None else np.array(w0, float)
    states, near = np.empty(steps, np.int64), 0
    for t in range(steps):
        a = np.zeros(D)
        for k in range(K):
            a = a + w[k] * features[:, k]
        top = np.sort(a)[-2:]
        near += int(top[1] - top[0] <= 1e-9 * (1 + abs(top[1])))
        states[t] = int(np.argmax(a))
        w = w + delta[states[t]]
    return states, near


def test_integer_mode_breaks_ties_to_the_lowest_index():
    phi = pm_monomials(4, 2)                              # D = 16, K = 10, entries +-1
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 9, size=16)
    N = int(counts.sum())
    m = counts @ phi
    moments = m / N                                       # multiples of 1/N, one rounding each
    assert samples._integer_problem(phi.astype(float), moments, np.zeros(10), 10) is not None
    steps = 3000
    ref, us, ties = integer_reference(phi, m, N, steps)
    assert ties > 20                                      # the run meets many exact ties
    res = herding.herd(phi.astype(float), moments, steps)
    np.testing.assert_array_equal(res.states, ref)
    np.testing.assert_array_equal(res.weights[1:], us[1:] / N)
    # a different tie rule gives a different run, so the rule is what the test checks
    S = phi @ us[np.flatnonzero([np.count_nonzero(phi @ u == (phi @ u).max()) > 1
                                 for u in us[1:-1]])[0] + 1]
    assert np.count_nonzero(S == S.max()) > 1


def test_integer_mode_with_w0_and_eta():
    phi = pm_monomials(3, 3)                              # D = 8, K = 7
    counts = np.array([3, 0, 1, 4, 2, 2, 0, 1])
    N = int(counts.sum())
    m = counts @ phi
    eta = 0.5
    u0 = np.array([2, -1, 0, 3, 0, -2, 1])               # N w0 / eta
    w0 = eta * u0 / N
    assert np.array_equal(w0 / eta * N, u0)
    steps = 2000
    ref, us, ties = integer_reference(phi, m, N, steps, u0)
    assert ties > 5
    res = herding.herd(phi.astype(float), m / N, steps, w0=w0, eta=eta)
    np.testing.assert_array_equal(res.states, ref)
    np.testing.assert_array_equal(res.weights[0], w0)
    np.testing.assert_allclose(res.weights[1:], eta * us[1:] / N, rtol=0, atol=1e-15)
    # eta only scales the weights (Sec 1.2.3): the states are those of eta = 1, w0 / eta
    np.testing.assert_array_equal(herding.herd(phi.astype(float), m / N, steps,
                                               w0=u0 / N).states, ref)


def test_short_runs_use_the_same_integer_rule():
    phi = pm_monomials(4, 2)
    counts = np.arange(16) % 5
    m, N = counts @ phi, int(counts.sum())
    ref, _, ties = integer_reference(phi, m, N, 20)       # 20 <= 2 D: no incremental table
    assert ties >= 1
    np.testing.assert_array_equal(herding.herd(phi.astype(float), m / N, 20).states, ref)


def test_float_mode_matches_direct_scores_through_near_ties():
    # Features 0.1 * (+-1 monomials) are not integers: the float rule applies, and the scores
    # of states tie up to rounding again and again; the incremental scores must still give the
    # states of the direct scores, across many score refreshes.
    phi = 0.1 * pm_monomials(4, 2)
    counts = np.random.default_rng(1).integers(0, 9, size=16)
    moments = counts / counts.sum() @ phi                 # tenths of multiples of 1/N
    assert samples._integer_problem(phi, moments, np.zeros(10), 10) is None
    steps = 3 * herding.SCORE_REFRESH + 11
    ref, near = float_reference(phi, moments, steps)
    assert near > 10
    np.testing.assert_array_equal(herding.herd(phi, moments, steps).states, ref)


def test_float_mode_with_integer_features_and_irrational_moments():
    phi = pm_monomials(3, 2).astype(float)
    moments = np.full(6, np.pi / 10)                      # not a fraction of denominator <= 2^24
    assert samples._integer_problem(phi, moments, np.zeros(6), 10) is None
    steps = 2 * herding.SCORE_REFRESH + 5
    ref, near = float_reference(phi, moments, steps, w0=np.zeros(6), eta=0.3)
    assert near > 0
    np.testing.assert_array_equal(herding.herd(phi, moments, steps, eta=0.3).states, ref)


def test_integer_mode_falls_back_to_floats_beyond_int64():
    phi = pm_monomials(3, 1).astype(float)
    moments = np.array([1, 2, 3]) / 7.0
    assert samples._integer_problem(phi, moments, np.zeros(3), 10) is not None
    assert samples._integer_problem(phi, moments, np.full(3, 2.0**62 / 7), 10) is None
    big = 2.0**52 * pm_monomials(3, 1)
    assert samples._integer_problem(big, moments, np.zeros(3), 10**8) is None
