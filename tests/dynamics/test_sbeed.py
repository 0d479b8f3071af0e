"""SBEED (seed 004, chapter 6): the smoothed Bellman operator, the saddle-point gradients, the
fixed points SBEED reaches for eta = 1 and eta = 0, and the multi-step extension."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import fsolve

from dynamics import sbeed
from dynamics.checks import Cancelled
from dynamics.sbeed import tabular


def _brute_force_values(mdp, gamma):
    """Max over all deterministic policies of V^pi, solved as linear systems (lam = 0)."""
    S, A = mdp.n_states, mdp.n_actions
    best = np.full(S, -np.inf)
    for choice in itertools.product(range(A), repeat=S):
        pi = np.eye(A)[list(choice)]
        best = np.maximum(best, sbeed.policy_values(mdp, pi, gamma=gamma, lam=0.0))
    return best


def test_garnet_has_the_stated_branching_and_is_reproducible():
    g = sbeed.garnet(12, 3, 4, seed=5)
    assert g.P.shape == (12, 3, 12) and g.R.shape == (12, 3)
    assert np.all((g.P > 0).sum(axis=2) == 4)
    np.testing.assert_allclose(g.P.sum(axis=2), 1.0)
    np.testing.assert_array_equal(g.P, sbeed.garnet(12, 3, 4, seed=5).P)
    assert sbeed.garnet(12, 3, 1, seed=5).deterministic and not g.deterministic


def test_soft_value_iteration_against_brute_force_and_a_root_solve():
    mdp = sbeed.garnet(5, 2, 2, seed=3)
    gamma = 0.8
    hard = sbeed.soft_value_iteration(mdp, gamma=gamma, lam=0.0)
    np.testing.assert_allclose(hard.V, _brute_force_values(mdp, gamma), atol=1e-9)
    lam = 0.3
    soft = sbeed.soft_value_iteration(mdp, gamma=gamma, lam=lam)

    def residual(V):  # eq 6.5 written out independently
        Q = mdp.R + gamma * np.einsum("sat,t->sa", mdp.P, V)
        return V - lam * np.log(np.exp(Q / lam).sum(axis=1))

    np.testing.assert_allclose(soft.V, fsolve(residual, np.zeros(5), xtol=1e-13), atol=1e-9)
    # Prop 25: 0 <= V*_lam - V* <= lam log|A| / (1 - gamma)
    gap = soft.V - hard.V
    assert np.all(gap >= -1e-12) and np.all(gap <= lam * np.log(2) / (1 - gamma) + 1e-12)
    # Prop 26: temporal consistency for every (s, a)
    lhs = mdp.R + gamma * mdp.P @ soft.V - lam * np.log(soft.policy)
    np.testing.assert_allclose(lhs, np.repeat(soft.V[:, None], 2, axis=1), atol=1e-9)
    # the soft optimum's value is the largest smoothed value over policies
    np.testing.assert_allclose(sbeed.policy_values(mdp, soft.policy, gamma=gamma, lam=lam), soft.V,
                               atol=1e-9)
    rng = np.random.default_rng(0)
    for _ in range(20):
        pi = rng.dirichlet(np.ones(2), size=5)
        assert np.all(sbeed.policy_values(mdp, pi, gamma=gamma, lam=lam) <= soft.V + 1e-9)


def test_frozen_lake_is_gymnasiums_table():
    from gymnasium.envs.toy_text.frozen_lake import FrozenLakeEnv

    mdp = sbeed.frozen_lake()
    env = FrozenLakeEnv(map_name="4x4", is_slippery=True)
    assert mdp.n_states == 16 and mdp.n_actions == 4
    assert list(np.flatnonzero(mdp.terminal)) == [5, 7, 11, 12, 15]
    # from state 14, "right" (2) reaches the goal 15 with probability 1/3 and pays 1 then
    assert mdp.P[14, 2, 15] == pytest.approx(1 / 3) and mdp.R[14, 2] == pytest.approx(1 / 3)
    for s, a in [(0, 0), (6, 1), (14, 2)]:
        for prob, nxt, _reward, _done in env.P[s][a]:
            assert mdp.P[s, a, nxt] >= prob - 1e-12
    star = sbeed.soft_value_iteration(mdp, gamma=0.99, lam=0.0)
    assert np.all(star.V[mdp.terminal] == 0) and 0.5 < star.V[0] < 0.6


def test_saddle_point_gradients_match_finite_differences():
    mdp = sbeed.garnet(6, 3, 3, seed=1)
    rng = np.random.default_rng(2)
    V, theta, rho = rng.normal(size=6), rng.normal(size=(6, 3)), rng.normal(size=(6, 3))
    kw = dict(gamma=0.9, lam=0.4, eta=0.6)
    h = 1e-6
    for dual in (rho, None):  # a fixed dual, and the dual's maximiser (Thm 27's envelope)
        gV, gth, grho = sbeed.gradients(mdp, V, theta, rho=dual, **kw)
        for i in range(6):
            e = np.zeros(6)
            e[i] = h
            fd = (sbeed.objective(mdp, V + e, theta, rho=dual, **kw)
                  - sbeed.objective(mdp, V - e, theta, rho=dual, **kw)) / (2 * h)
            assert gV[i] == pytest.approx(fd, rel=1e-6, abs=1e-8)
        for i, a in itertools.product(range(6), range(3)):
            e = np.zeros((6, 3))
            e[i, a] = h
            fd = (sbeed.objective(mdp, V, theta + e, rho=dual, **kw)
                  - sbeed.objective(mdp, V, theta - e, rho=dual, **kw)) / (2 * h)
            assert gth[i, a] == pytest.approx(fd, rel=1e-6, abs=1e-8)
            if dual is not None:
                fd = (sbeed.objective(mdp, V, theta, rho=dual + e, **kw)
                      - sbeed.objective(mdp, V, theta, rho=dual - e, **kw)) / (2 * h)
                assert grho[i, a] == pytest.approx(fd, rel=1e-6, abs=1e-8)
    # the numba kernel computes the same objective and gradients (rho = rho*)
    d, beta = tabular._weights(mdp, None, None)
    gV2, gth2 = np.zeros(6), np.zeros((6, 3))
    obj = tabular._exact_objective(mdp.next_states, mdp.next_probs, mdp.R, ~mdp.terminal,
                                   d[:, None] * beta, V, theta, 0.9, 0.4, 0.6, gV2, gth2,
                                   np.zeros(3), np.zeros(3))
    assert obj == pytest.approx(sbeed.objective(mdp, V, theta, **kw), rel=1e-12)
    gV, gth, _ = sbeed.gradients(mdp, V, theta, **kw)
    np.testing.assert_allclose(gV2, gV, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gth2, gth, rtol=1e-10, atol=1e-12)


def test_the_dual_cancels_the_variance_term_prop_55():
    mdp = sbeed.garnet(8, 2, 4, seed=7)
    rng = np.random.default_rng(3)
    V, theta = rng.normal(size=8), rng.normal(size=(8, 2))
    kw = dict(gamma=0.95, lam=0.2)
    var = 0.95**2 * np.mean(mdp.P @ V**2 - (mdp.P @ V) ** 2)  # uniform mu
    l1 = sbeed.objective(mdp, V, theta, eta=1.0, **kw)
    l0 = sbeed.objective(mdp, V, theta, eta=0.0, **kw)
    assert l0 - l1 == pytest.approx(var, rel=1e-10)
    # and rho* maximises the saddle objective over rho
    for _ in range(5):
        rho = rng.normal(size=(8, 2)) * 3
        assert sbeed.objective(mdp, V, theta, eta=0.5, rho=rho, **kw) <= (
            sbeed.objective(mdp, V, theta, eta=0.5, **kw) + 1e-12)


def test_risky_choice_eta_one_is_the_smoothed_optimum_and_eta_zero_flips_the_choice():
    """Numbers of ../shared/seeds/NOTES.md (an independent prototype)."""
    mdp = sbeed.risky_choice()
    kw = dict(gamma=0.9, lam=0.1, iterations=20000, seed=0)
    one = sbeed.sbeed_tabular(mdp, eta=1.0, **kw)
    np.testing.assert_allclose(one.V, [5.562, 10.075, 2.075, 6.125], atol=1e-3)
    assert one.policy[0, 1] == pytest.approx(0.389, abs=1e-3)
    zero = sbeed.sbeed_tabular(mdp, eta=0.0, **kw)
    assert zero.policy[0, 1] == pytest.approx(0.887, abs=1e-3)


@pytest.mark.parametrize("branching", [3, 1])
def test_eta_zero_converges_to_the_derived_biased_fixed_point(branching):
    mdp = sbeed.garnet(25, 3, branching, seed=11)
    kw = dict(gamma=0.9, lam=0.1)
    star = sbeed.soft_value_iteration(mdp, **kw)
    one = sbeed.sbeed_tabular(mdp, eta=1.0, iterations=60000, seed=1, **kw)
    np.testing.assert_allclose(one.V, star.V, atol=1e-6)
    np.testing.assert_allclose(one.policy, star.policy, atol=1e-6)
    assert one.v_error[-1] < 1e-6 and one.v_error[0] > 1
    assert one.value[-1] == pytest.approx(one.value_star, abs=1e-6)
    fixed = sbeed.biased_fixed_point(mdp, eta=0.0, **kw)
    zero = sbeed.sbeed_tabular(mdp, eta=0.0, iterations=60000, seed=1, **kw)
    np.testing.assert_allclose(zero.V, fixed.V, atol=1e-5)
    np.testing.assert_allclose(zero.policy, fixed.policy, atol=1e-5)
    bias = np.max(np.abs(fixed.V - star.V))
    if branching == 1:  # deterministic: no variance, no bias
        assert bias < 1e-6
    else:
        assert bias > 0.1
        assert zero.value[-1] < one.value_star - 1e-3  # the biased policy is worse


def test_intermediate_eta_interpolates_the_bias():
    mdp = sbeed.garnet(20, 3, 4, seed=4)
    star = sbeed.soft_value_iteration(mdp, gamma=0.9, lam=0.1)
    bias = [np.max(np.abs(sbeed.biased_fixed_point(mdp, gamma=0.9, lam=0.1, eta=eta).V - star.V))
            for eta in (0.0, 0.5, 0.9, 1.0)]
    assert bias[0] > bias[1] > bias[2] > bias[3] and bias[3] < 1e-6


def test_k_step_deltas_reduce_to_one_step_and_keep_temporal_consistency():
    mdp = sbeed.garnet(10, 3, 3, seed=2)
    kw = dict(gamma=0.9, lam=0.2)
    star = sbeed.soft_value_iteration(mdp, **kw)
    one = sbeed.sample_segments(mdp, 50_000, 1, seed=0)
    deltas = sbeed.k_step_deltas(mdp, star.V, star.Q, one, **kw)
    s, a, nxt = one.states[:, 0], one.actions[:, 0], one.states[:, 1]
    expected = mdp.R[s, a] + 0.9 * star.V[nxt] - 0.2 * np.log(star.policy[s, a])
    np.testing.assert_allclose(deltas, expected, atol=1e-12)
    # eq D.2: at (V*, pi*) the k-step delta minus V(s0) has mean 0 for any action sequence
    for k in (1, 4, 12):
        seg = sbeed.sample_segments(mdp, 40_000, k, seed=k)
        gap = sbeed.k_step_deltas(mdp, star.V, star.Q, seg, **kw) - star.V[seg.states[:, 0]]
        assert abs(gap.mean()) < 4 * gap.std() / np.sqrt(len(gap)) + 1e-9
        wrong = sbeed.k_step_deltas(mdp, star.V + 1, star.Q, seg, **kw) - (star.V + 1)[seg.states[:, 0]]
        assert wrong.mean() == pytest.approx(-(1 - 0.9**k), abs=0.02)


def test_sampled_sbeed_removes_most_of_the_bias_that_eta_zero_keeps():
    """Algorithm 5 on a replay buffer: eta = 1 ends near V*, eta = 0 near its biased point."""
    mdp = sbeed.risky_choice()
    kw = dict(gamma=0.9, lam=0.1, iterations=20000, mode="sampled", buffer_size=5000, seed=0)
    fixed = sbeed.biased_fixed_point(mdp, gamma=0.9, lam=0.1, eta=0.0)
    star = sbeed.soft_value_iteration(mdp, gamma=0.9, lam=0.1)
    tail = slice(-4000, None)
    for k in (1, 3):
        one = sbeed.sbeed_tabular(mdp, eta=1.0, k=k, **kw)
        zero = sbeed.sbeed_tabular(mdp, eta=0.0, k=k, **kw)
        assert one.mode == "sampled" and one.k == k
        assert np.mean(one.v_error[tail]) < 0.6 < 1.2 < np.mean(zero.v_error[tail])
    zero = sbeed.sbeed_tabular(mdp, eta=0.0, k=1, **kw)
    # the single-step sampled run ends nearer the derived biased point than V*
    assert np.max(np.abs(zero.V - fixed.V)) < 0.5 * np.max(np.abs(zero.V - star.V))


def test_the_dual_sees_as_many_actions_as_the_buffer_can_fill():
    assert sbeed.dual_actions(4, 2, 3, 20_000) == 3  # 4 * 27 cells, ~185 segments each
    assert sbeed.dual_actions(100, 4, 10, 20_000) == 1  # 100 * 25 cells would hold 8 each
    assert sbeed.dual_actions(100, 4, 10, 100_000) == 2
    assert sbeed.dual_actions(10, 2, 1, 10) == 1


def test_progress_reports_partial_runs_and_cancel_stops():
    mdp = sbeed.garnet(10, 2, 2, seed=0)
    seen = []

    def progress(fraction, message, partial=None):
        seen.append((fraction, partial.done, np.isnan(partial.v_error).sum()))

    run = sbeed.sbeed_tabular(mdp, gamma=0.9, lam=0.1, eta=1.0, iterations=1000, n_checkpoints=4,
                              progress=progress)
    assert [f for f, _, _ in seen] == [0.25, 0.5, 0.75, 1.0]
    assert seen[0][1] == 250 and seen[0][2] == 750 and run.done == 1000

    def cancel(fraction, message):
        raise Cancelled

    with pytest.raises(Cancelled):
        sbeed.sbeed_tabular(mdp, gamma=0.9, lam=0.1, eta=1.0, iterations=1000, progress=cancel)


@pytest.mark.parametrize("bad, match", [
    (dict(gamma=1.0), "gamma"), (dict(gamma=-0.1), "gamma"), (dict(lam=-0.1), "lam"),
    (dict(lam=0.0), "lam"), (dict(eta=1.5), "eta"), (dict(eta=-0.1), "eta"), (dict(k=0), "k"),
    (dict(k=2, mode="exact"), "k = 1"), (dict(mode="sampled", buffer_size=0), "buffer"),
    (dict(iterations=0), "iterations"), (dict(mode="magic"), "mode"),
])
def test_bad_inputs_raise_value_error(bad, match):
    kw = dict(gamma=0.9, lam=0.1, eta=1.0, iterations=10) | bad
    with pytest.raises(ValueError, match=match):
        sbeed.sbeed_tabular(sbeed.risky_choice(), **kw)


def test_bad_mdps_raise_value_error():
    P = np.zeros((2, 1, 2))
    P[:, 0, 0] = 1.0
    with pytest.raises(ValueError, match="sum to 1"):
        sbeed.MDP(P * 0.5, np.zeros((2, 1)))
    with pytest.raises(ValueError, match="R"):
        sbeed.MDP(P, np.zeros((3, 1)))
    with pytest.raises(ValueError, match="gamma"):
        sbeed.soft_value_iteration(sbeed.MDP(P, np.zeros((2, 1))), gamma=1.2, lam=0.1)
    with pytest.raises(ValueError, match="branching"):
        sbeed.garnet(5, 2, 6, seed=0)


# --- Pendulum ------------------------------------------------------------------------------------


def test_pendulum_step_is_gymnasiums():
    import gymnasium as gym

    from dynamics.sbeed import pendulum as pend

    env = gym.make("Pendulum-v1").unwrapped
    env.reset(seed=3)
    rng = np.random.default_rng(1)
    th, dot = env.state
    for _ in range(300):
        u = rng.uniform(-3, 3)  # beyond the torque limit too: both clip
        obs, reward, *_ = env.step(np.array([u]))
        th, dot, r = pend.pendulum_step(th, dot, u)
        assert r == pytest.approx(reward, abs=1e-12)
        np.testing.assert_allclose(pend.observe(th, dot) * [1, 1, pend.MAX_SPEED], obs, atol=1e-6)
    # the noise only perturbs the velocity
    th2, dot2, _ = pend.pendulum_step(0.3, 0.5, 1.0, noise=0.5, rng=np.random.default_rng(0))
    th0, dot0, _ = pend.pendulum_step(0.3, 0.5, 1.0)
    assert dot2 != dot0 and th2 - 0.3 == pytest.approx(dot2 * pend.DT)


def test_pendulum_run_shapes_progress_and_executor_invariance():
    from concurrent.futures import ThreadPoolExecutor

    from dynamics.sbeed import pendulum as pend

    seen = []
    run = pend.sbeed_pendulum(steps=1000, k=5, updates=3, seed=0,
                              progress=lambda f, m, partial=None: seen.append((f, partial.done)))
    assert run.returns.shape == (5,) and np.all(np.isfinite(run.returns))
    assert np.all(run.returns <= 0) and np.all(run.returns > -16.3 * 200)
    assert run.V_grid.shape == (61, 61) and np.all(np.isfinite(run.V_grid))
    assert run.rollout.shape == (201, 2) and seen[-1] == (1.0, 5)
    again = pend.sbeed_pendulum(steps=1000, k=5, updates=3, seed=0)
    np.testing.assert_array_equal(run.returns, again.returns)
    with pytest.raises(Cancelled):
        pend.sbeed_pendulum(steps=2000, updates=1, seed=0,
                            progress=lambda f, m: (_ for _ in ()).throw(Cancelled()))
    said = []
    panels = ("lam", "k")
    serial = pend.ablation(steps=400, seeds=1, panels=panels,
                           progress=lambda f, m: said.append((f, m)))
    # the fraction weighs each run by its cost (k = 100 takes 5.5x the default k = 10): at the
    # end of run i it is the cost of runs 1..i over the cost of all
    ends = {}
    for f, m in said:
        ends[int(m.split()[1])] = f  # "task i of n ..."
    ks = sorted({tuple(dict(pend.ABLATION_DEFAULTS, **{n: v}).values())
                 for n in panels for v in pend.ABLATION[n]})
    cost = np.cumsum([pend.run_cost(k) for _, _, k in ks])
    assert [ends[i + 1] for i in range(len(ks))] == pytest.approx(cost / cost[-1])
    assert pend.run_cost(10) == 1.0 and pend.run_cost(100) / pend.run_cost(1) == pytest.approx(
        (pend.K_COST_OFFSET + 100) / (pend.K_COST_OFFSET + 1))
    with ThreadPoolExecutor(2) as pool:
        threaded = pend.ablation(steps=400, seeds=1, panels=panels, executor=pool)
    for name in serial.panels:
        for value in serial.panels[name]:
            np.testing.assert_array_equal(serial.panels[name][value], threaded.panels[name][value])
    assert set(serial.panels["k"]) == {1, 10, 20, 100}


@pytest.mark.parametrize("bad, match", [
    (dict(gamma=1.0), "gamma"), (dict(lam=-1.0), "lam"), (dict(eta=2.0), "eta"),
    (dict(k=0), "k"), (dict(steps=10), "steps"), (dict(noise=-0.1), "noise"),
    (dict(batch_size=0), "batch_size"),
])
def test_pendulum_bad_inputs_raise_value_error(bad, match):
    from dynamics.sbeed import pendulum as pend

    with pytest.raises(ValueError, match=match):
        pend.sbeed_pendulum(**bad)


# --- issue 25: bad input refused by name --------------------------------------------------------


def test_policy_of_at_lam_zero_is_the_greedy_limit_and_tiny_lam_does_not_overflow():
    """softmax(theta / lam) tends to the greedy policy (ties shared) as lam -> 0; it was NaN at
    lam = 0 (0 / 0) and overflowed for tiny lam."""
    theta = np.array([[1.0, 3.0, 3.0], [0.0, -1.0, -2.0]])
    greedy = np.array([[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]])
    np.testing.assert_array_equal(sbeed.policy_of(theta, 0.0), greedy)
    np.testing.assert_allclose(sbeed.policy_of(theta, 1e-300), greedy)
    np.testing.assert_allclose(sbeed.policy_of(theta, 1e-3), greedy, atol=1e-300)
    # lam log pi = theta - lam log sum exp(theta / lam): its exponential is pi
    from dynamics.sbeed.tabular import _lam_log_pi

    np.testing.assert_allclose(np.exp(_lam_log_pi(theta, 0.7) / 0.7), sbeed.policy_of(theta, 0.7))


def test_model_arguments_are_type_checked_and_arrays_shape_checked():
    mdp = sbeed.garnet(4, 2, 2, seed=0)
    V, theta = np.zeros(4), np.zeros((4, 2))
    buf = sbeed.sample_segments(mdp, 10, 2, seed=0)
    for call in (lambda: sbeed.objective("mdp", V, theta, gamma=0.9, lam=0.1, eta=1.0),
                 lambda: sbeed.gradients(None, V, theta, gamma=0.9, lam=0.1, eta=1.0),
                 lambda: sbeed.policy_values(object(), theta, gamma=0.9, lam=0.1),
                 lambda: sbeed.k_step_deltas(np.zeros((4, 2, 4)), V, theta, buf, gamma=0.9,
                                             lam=0.1),
                 lambda: sbeed.sbeed_tabular(1.0, gamma=0.9, lam=0.1, eta=1.0, iterations=2)):
        with pytest.raises(TypeError, match="mdp"):
            call()
    with pytest.raises(TypeError, match="buffer"):
        sbeed.k_step_deltas(mdp, V, theta, "buffer", gamma=0.9, lam=0.1)
    other = sbeed.sample_segments(sbeed.garnet(9, 3, 2, seed=0), 10, 2, seed=0)
    with pytest.raises(ValueError, match="buffer"):
        sbeed.k_step_deltas(mdp, V, theta, other, gamma=0.9, lam=0.1)
    for kw, name in ((dict(V=np.zeros(3)), "V"), (dict(theta=np.zeros((4, 3))), "theta"),
                     (dict(theta=np.full((4, 2), np.nan)), "theta"),
                     (dict(rho=np.zeros(4)), "rho"), (dict(lam=0.0), "lam"),
                     (dict(gamma=float("nan")), "gamma"), (dict(eta=2.0), "eta")):
        args = dict(V=V, theta=theta, gamma=0.9, lam=0.1, eta=1.0, **{"rho": None})
        args.update(kw)
        with pytest.raises(ValueError, match=name):
            sbeed.objective(mdp, **args)
    with pytest.raises(ValueError, match="policy"):
        sbeed.policy_entropy(np.array([[0.5, np.nan]]))
    with pytest.raises(ValueError, match="policy"):
        sbeed.policy_values(mdp, np.full((4, 2), 0.7), gamma=0.9, lam=0.1)
    with pytest.raises(ValueError, match="weights"):
        sbeed.policy_entropy(np.full((2, 2), 0.5), np.array([1.0]))
    with pytest.raises(ValueError, match="Q"):
        sbeed.mdp.soft_max(np.zeros(3), 0.1)
    with pytest.raises(ValueError, match="map_name"):
        sbeed.frozen_lake("5x5")
    with pytest.raises(TypeError, match="slippery"):
        sbeed.frozen_lake("4x4", slippery="no")
    with pytest.raises(ValueError, match="gamma_hint"):
        sbeed.risky_choice(gamma_hint=float("nan"))
    with pytest.raises(ValueError, match="max_sweeps"):
        sbeed.soft_value_iteration(mdp, gamma=0.99, lam=0.1, max_sweeps=2)


def test_sampled_mode_settings_are_checked_in_exact_mode_too():
    mdp = sbeed.risky_choice()
    for kw, name in ((dict(batch_size="32"), "batch_size"), (dict(buffer_size=0), "buffer_size"),
                     (dict(dual_every=float("nan")), "dual_every"),
                     (dict(decay=float("nan")), "decay"), (dict(mode="fast"), "mode")):
        with pytest.raises(ValueError, match=name):
            sbeed.sbeed_tabular(mdp, gamma=0.9, lam=0.1, eta=1.0, iterations=2,
                                **{"mode": "exact", **kw})


def test_pendulum_helpers_check_their_arrays():
    from dynamics.sbeed import pendulum as pend

    with pytest.raises(ValueError, match="theta"):
        pend.pendulum_step(np.nan, 0.0, 0.0)
    with pytest.raises(TypeError, match="u"):
        pend.pendulum_step(0.0, 0.0, np.array([1 + 0j]))
    with pytest.raises(ValueError, match="rng"):
        pend.pendulum_step(0.0, 0.0, 0.0, noise=0.1, rng="seed")
    with pytest.raises(ValueError, match="theta, thetadot"):
        pend.observe(np.zeros(3), np.zeros(2))
    with pytest.raises(ValueError, match="x"):
        pend.angle_normalize(np.array([np.inf]))
    with pytest.raises(TypeError, match="executor"):
        pend.ablation(steps=200, seeds=1, executor="pool")
    # a noisy step with rng=None draws fresh noise rather than failing
    assert np.isfinite(pend.pendulum_step(0.3, 0.5, 1.0, noise=0.5)[1])


def test_lam_is_capped_rather_than_reported_as_a_diverged_run():
    """lam = 1e12 made every value about 1e13 and the run stopped as 'diverged: take smaller
    steps', which named the wrong knob."""
    with pytest.raises(ValueError, match="lam must be at most"):
        sbeed.sbeed_tabular(sbeed.risky_choice(), gamma=0.9, lam=1e12, eta=1.0, iterations=2)


def test_pendulum_inputs_are_real_numbers_and_its_steps_bounded():
    from dynamics.sbeed import pendulum as pend

    with pytest.raises(TypeError, match="theta"):
        pend.pendulum_step(True, 0.0, 0.0)
    with pytest.raises(ValueError, match="thetadot"):
        pend.observe(0.0, np.array([1e308]))
    for name in ("value_lr", "dual_lr", "policy_kl"):
        with pytest.raises(ValueError, match=name):
            pend.sbeed_pendulum(steps=200, **{name: 1e308})
    with pytest.raises(ValueError, match="lam must be at most"):
        sbeed.soft_value_iteration(sbeed.risky_choice(), gamma=0.9, lam=1e308)
