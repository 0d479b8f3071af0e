"""SBEED's ablation (Dai, Fig 6.1, issue 28 item 4): the multi-step dual on the first k actions
(appendix D.3) against the tabular exact dual, the dual solved on the replay buffer (Algorithm 5,
line 7), the eta panel where the dual is exact (Prop 55), and the claim's spread rule."""

from __future__ import annotations

import numpy as np
import pytest

from dynamics import sbeed
from dynamics.sbeed import claims
from dynamics.sbeed import pendulum as pend
from dynamics.sbeed import tabular


def _exact_conditional_deltas(mdp, V, theta, *, k, gamma, lam):
    """E[delta_k | s_0, a_0..a_{k-1}] (eq D.3) for every state and action sequence, by pushing
    the state law through P with the actions fixed: an independent route to the exact dual."""
    S, A = mdp.n_states, mdp.n_actions
    llp = lam * np.log(tabular.policy_of(theta, lam))
    out = np.zeros((S,) + (A,) * k)
    for s0 in range(S):
        for seq in np.ndindex(*(A,) * k):
            law = np.eye(S)[s0]
            total = 0.0
            for t, a in enumerate(seq):
                total += gamma**t * law @ (mdp.R[:, a] - llp[:, a])
                law = law @ mdp.P[:, a, :]
            out[(s0,) + seq] = total + gamma**k * law @ V
    return out


def _one_hot_fit(codes, deltas, n_cells, ridge=1e-9):
    features = np.eye(n_cells)[codes]
    return pend.fit_dual(features, deltas, ridge=ridge)


def test_the_dual_on_k_actions_is_the_tabular_exact_dual():
    """With one-hot features of (s_0, a_0, a_1) the Pendulum learner's dual (``fit_dual``, the
    least squares of Algorithm 5 line 7) is the tabular dual (the mean of delta_k per cell, as
    ``sbeed_tabular`` solves it) and converges to E[delta_k | s_0, a_0, a_1], derived here by
    pushing the state law through P; a dual that sees a_0 only does not."""
    mdp = sbeed.garnet(4, 2, 3, seed=1)
    k, gamma, lam = 2, 0.9, 0.5
    rng = np.random.default_rng(0)
    V, theta = rng.normal(size=4), rng.normal(size=(4, 2))
    buf = sbeed.sample_segments(mdp, 40_000, k, seed=2)
    deltas = sbeed.k_step_deltas(mdp, V, theta, buf, gamma=gamma, lam=lam)
    codes = buf.states[:, 0] * 4 + buf.actions[:, 0] * 2 + buf.actions[:, 1]
    w = _one_hot_fit(codes, deltas, 16)
    counts = np.bincount(codes, minlength=16)
    means = np.bincount(codes, weights=deltas, minlength=16) / counts
    np.testing.assert_allclose(w, means, rtol=1e-6)  # the tabular dual
    exact = _exact_conditional_deltas(mdp, V, theta, k=k, gamma=gamma, lam=lam).ravel()
    spread = np.sqrt(np.bincount(codes, weights=(deltas - means[codes]) ** 2, minlength=16)
                     / counts / counts)  # standard error of each cell's mean
    assert np.all(np.abs(w - exact) < 5 * spread + 1e-9)
    # seeing a_0 only, the dual is E[delta_k | s_0, a_0], which misses the second action
    first = _one_hot_fit(buf.states[:, 0] * 2 + buf.actions[:, 0], deltas, 8)
    assert np.max(np.abs(np.repeat(first, 2) - exact) / (spread + 1e-9)) > 20


def test_segment_deltas_are_the_tabular_k_step_deltas():
    """``segment_deltas`` (the learner's delta_k for every start of an episode, cut at its end)
    against ``tabular.k_step_deltas`` on the same segments of one trajectory of a Garnet."""
    mdp = sbeed.garnet(6, 3, 2, seed=0)
    gamma, lam, T = 0.95, 0.3, 40
    rng = np.random.default_rng(1)
    V, theta = rng.normal(size=6), rng.normal(size=(6, 3))
    s = np.zeros(T + 1, int)
    a = rng.integers(0, 3, T)
    for t in range(T):
        s[t + 1] = rng.choice(6, p=mdp.P[s[t], a[t]])
    llp = lam * np.log(tabular.policy_of(theta, lam))
    for k in (1, 3, 7):
        got = pend.segment_deltas((mdp.R[s[:T], a] - llp[s[:T], a])[None], V[s][None], k=k,
                                  gamma=gamma)[0]
        idx = np.minimum(np.arange(T)[:, None] + np.arange(k + 1), T)
        lengths = np.minimum(k, T - np.arange(T))
        buffer = tabular.Buffer(states=s[idx], actions=a[np.minimum(idx[:, :k], T - 1)],
                                rewards=mdp.R[s[idx[:, :k]], a[np.minimum(idx[:, :k], T - 1)]],
                                lengths=lengths)
        want = sbeed.k_step_deltas(mdp, V, theta, buffer, gamma=gamma, lam=lam)
        np.testing.assert_allclose(got, want, atol=1e-12)


def test_dual_inputs_hold_the_first_k_actions_and_zero_past_the_end():
    obs = np.arange(5 * 3, dtype=float).reshape(1, 5, 3)
    acts = np.array([[1.0, -4.0, 0.5, 2.0]])
    x = pend.dual_inputs(obs, acts, k=3)
    assert x.shape == (1, 4, 6)
    np.testing.assert_array_equal(x[0, 0], [0, 1, 2, 0.5, -1.0, 0.25])  # clipped, / MAX_TORQUE
    np.testing.assert_array_equal(x[0, 3], [9, 10, 11, 1.0, 0.0, 0.0])


def test_the_dual_is_solved_on_the_buffer_and_adam_steps_leave_it_short():
    """Algorithm 5, line 7: with ``dual_fit="solve"`` the dual's loss on the buffer is its
    least-squares floor (up to the primal step taken after the last solve); two Adam steps
    per update, the learner before issue 28, stay well above it."""
    kw = dict(steps=1200, k=5, updates=4, features=10, value_features=40, eta=1.0, noise=1.0,
              seed=0)
    solved = pend.sbeed_pendulum(**kw)
    adam = pend.sbeed_pendulum(dual_fit="adam", dual_actions=1, **kw)
    assert np.all(solved.dual_loss >= solved.dual_floor * (1 - 1e-9))
    assert np.all(solved.dual_loss <= 1.1 * solved.dual_floor)
    assert np.mean(adam.dual_loss / adam.dual_floor) > 1.5
    assert 0 < solved.dual_explained() < 1
    with pytest.raises(ValueError, match="dual_actions"):
        pend.sbeed_pendulum(k=3, dual_actions=4)
    with pytest.raises(ValueError, match="dual_fit"):
        pend.sbeed_pendulum(dual_fit="exact")


def test_where_the_dual_is_exact_eta_one_is_unbiased_and_the_bias_falls_with_eta():
    """Prop 55 / eq D.1 on the tabular panel's Garnet: the exact-gradient fixed point's
    distance to V* falls as eta grows and is 0 at eta = 1."""
    result = sbeed.tabular_eta(etas=(0.0, 0.1, 1.0), seeds=1, iterations=10)  # sampled: a stub
    assert result.v_error.shape == result.value_loss.shape == (1, 3)
    assert np.all(np.diff(result.exact) < 0) and result.exact[-1] < 1e-6 < 0.1 < result.exact[0]


def _panel(means, seeds=5, sd=10.0):
    """Per-seed scores with exactly these means, each spread as sd * (-2, -1, 0, 1, 2)[:seeds]
    (the standard error of a mean of 5 is then sd / sqrt(2))."""
    spread = np.arange(seeds) - (seeds - 1) / 2
    return {v: m + sd * spread for v, m in means.items()}


def test_a_best_value_is_named_only_beyond_the_spread_over_seeds():
    inner = claims.panel_outcome(_panel({0: -900, 0.1: -500, 1: -800}))
    assert inner["outcome"] == "intermediate" and inner["best"] == 0.1
    end = claims.panel_outcome(_panel({0: -400, 0.1: -700, 1: -800}))
    assert end["outcome"] == "end" and end["best"] == 0
    # the same means with a spread of 300 over 5 seeds (1.96 standard errors of a difference:
    # 588 > 300): no value stands out
    tie = claims.panel_outcome(_panel({0: -900, 0.1: -500, 1: -800}, sd=300.0))
    assert tie["outcome"] == "tie"
    # one inner value: z is the plain two-sided 5 % (1.96); picking the best of three inner
    # values needs z(0.05 / 6) = 2.39: a gap between the two is intermediate with one inner
    # value and a tie (not decided) with three inner values of the same means
    sd = 300 / 2.2  # a value's SE is sd / sqrt 2, a difference's sd: the gap is 2.2 SE
    one = claims.panel_outcome(_panel({0: -800, 0.1: -500, 1: -800}, sd=sd))
    many = claims.panel_outcome(_panel({0: -800, 0.1: -500, 0.2: -500, 0.3: -500, 1: -800},
                                       sd=sd))
    assert one["z_inner"] == pytest.approx(1.959964) and one["outcome"] == "intermediate"
    assert many["z_inner"] == pytest.approx(2.393980, rel=1e-6) and many["outcome"] == "tie"
    with pytest.raises(ValueError, match="scores"):
        claims.panel_outcome({0: [1.0], 1: [2.0]})


def test_the_claim_needs_three_seeds_and_reads_every_panel():
    steps = np.arange(1.0, 21.0) * 200

    def ablation(seeds, means):
        panels = {"eta": {v: np.tile(_panel({v: m}, seeds=seeds)[v][:, None], (1, 20))
                          for v, m in means.items()}}
        return pend.Ablation(panels=panels, steps=steps, seeds=seeds, seconds=0.0,
                             noise={"eta": 1.0}, dual={"eta": {v: np.full(seeds, 0.5)
                                                              for v in means}})

    good = {0.0: -900, 0.01: -500, 1.0: -800}
    assert sbeed.intermediate_best_claim(ablation(5, good)).agrees is True
    assert sbeed.intermediate_best_claim(ablation(2, good)).agrees is None
    bad = sbeed.intermediate_best_claim(ablation(5, {0.0: -400, 0.01: -700, 1.0: -800}))
    assert bad.agrees is False and "η: the end value 0 is best" in bad.why
    assert bad.numbers["eta"]["dual_explained"][0.01] == 0.5
