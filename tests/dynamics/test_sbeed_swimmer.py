"""SBEED on Swimmer (Dai, Fig 6.1 on MuJoCo's Swimmer, issue 29 item 7): the simulator, the
episode the learner records against one written out with gymnasium, the dual's input, the
d-dimensional Gaussian policy's KL prox against finite differences and the closed-form Gaussian
KL, the k-step target of eq D.3 (a minibatch's, and the variance over the buffer the k panel
reports) against NumPy loops, the claims' rules, and the named input checks.

``mujoco`` is an optional extra of the project (``pip install -e '.[mujoco]'``, which CI
installs): without it these tests skip, saying how to enable them."""

from __future__ import annotations

import dataclasses
import math

import gymnasium
import numpy as np
import pytest

from dynamics.sbeed import claims
from dynamics.sbeed import swimmer as sw

pytest.importorskip("mujoco", reason=sw.MISSING)


def test_swimmer_runs_on_the_mujoco_wheel():
    """gymnasium's Swimmer-v5 makes, has the shapes the learner assumes, and stops at the time
    limit ``make_env`` gives it."""
    assert sw.available()
    env = sw.make_env(5)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (sw.OBS_DIM,) and env.action_space.shape == (sw.ACT_DIM,)
    assert env.unwrapped.frame_skip == 4
    for t in range(5):
        obs, r, terminated, truncated, _ = env.step(np.array([0.5, -0.5]))
        assert not terminated and truncated == (t == 4)
    env.close()


def test_an_episode_is_gymnasiums_swimmer_under_the_initial_policy_and_torque_noise():
    """One episode with no updates: the learner's return is the sum of gymnasium's rewards for
    the actions N(0, I) (the initial policy) plus N(0, noise^2) torque noise, clipped to [-1, 1],
    drawn here from the same seed in the order the docstring gives."""
    T, noise = 60, 0.3
    run = sw.sbeed_swimmer(steps=T, episode=T, updates=0, noise=noise, seed=3, features=4,
                           value_features=4)
    rng = np.random.default_rng(3)
    env = gymnasium.make("Swimmer-v5", max_episode_steps=T)
    env.reset(seed=int(rng.integers(2**31)))
    total = 0.0
    for _ in range(T):
        a = rng.standard_normal(2)
        torque = np.clip(a + noise * rng.standard_normal(2), -1, 1)
        total += env.step(torque)[1]
    assert run.returns.shape == (1,)
    assert run.returns[0] == pytest.approx(total, rel=1e-12, abs=1e-12)
    assert run.steps.tolist() == [T] and np.all(run.log_std[0] == 0.0)


def test_dual_inputs_hold_the_start_and_the_next_k_actions():
    """Row (i, t) is observations[i, t] then actions[i, t..t+k-1] clipped to [-1, 1] in time
    order, zeros past the episode's end (a loop over the definition)."""
    rng = np.random.default_rng(0)
    n, T, D, d, k = 2, 5, 3, 2, 3
    obs = rng.normal(size=(n, T + 1, D))
    acts = 2 * rng.normal(size=(n, T, d))
    got = sw.swimmer_dual_inputs(obs, acts, k=k)
    assert got.shape == (n, T, D + k * d)
    for i in range(n):
        for t in range(T):
            want = list(obs[i, t])
            for j in range(k):
                want += list(np.clip(acts[i, t + j], -1, 1)) if t + j < T else [0.0] * d
            np.testing.assert_allclose(got[i, t], want)


def _k_step_loop(rewards, log_pi, values, e, t0, k, gamma, lam):
    """eq D.3 written out: the discounted sum of the segment's entropy-regularised rewards up
    to k steps or the episode's end, plus the discounted value where it stops."""
    T = rewards.shape[1]
    total, t = 0.0, t0
    while t < T and t - t0 < k:
        total += gamma ** (t - t0) * (rewards[e, t] - lam * log_pi[e, t])
        t += 1
    return total + gamma ** (t - t0) * values[e, t]


def test_segment_batch_is_the_k_step_target_of_eq_d3():
    """``segment_batch`` (the learner's minibatch delta_k) against a loop over the definition,
    for k = 1, a k that segments near the episode's end cut short, and k = T."""
    rng = np.random.default_rng(2)
    n, T = 3, 12
    rewards, log_pi = rng.normal(size=(n, T)), rng.normal(size=(n, T))
    values = rng.normal(size=(n, T + 1))
    episodes = np.array([0, 1, 2, 2, 1, 0])
    starts = np.array([0, 5, 11, 9, 3, 7])
    for k in (1, 4, T):
        got = sw.segment_batch(rewards, log_pi, values, episodes, starts, k=k, gamma=0.9,
                               lam=0.3)
        want = [_k_step_loop(rewards, log_pi, values, e, t, k, 0.9, 0.3)
                for e, t in zip(episodes, starts)]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="starts"):
        sw.segment_batch(rewards, log_pi, values, episodes, starts + 1, k=2, gamma=0.9, lam=0.3)


def test_the_variance_of_delta_k_is_eq_d3_over_the_first_episode():
    """With no updates V = 0 and pi = N(0, I), so the run's ``delta_var`` after its one episode
    is the variance over the episode's starts of sum_{i<L} gamma^i (R - lam log N(a; 0, I)),
    written out here from the same draws (the order of the episode test above)."""
    T, noise, k, gamma, lam = 40, 0.3, 7, 0.99, 0.5
    run = sw.sbeed_swimmer(steps=T, episode=T, updates=0, noise=noise, seed=5, features=4,
                           value_features=4, k=k, gamma=gamma, lam=lam)
    rng = np.random.default_rng(5)
    env = gymnasium.make("Swimmer-v5", max_episode_steps=T)
    env.reset(seed=int(rng.integers(2**31)))
    rewards, log_pi = np.zeros((1, T)), np.zeros((1, T))
    for t in range(T):
        a = rng.standard_normal(2)
        rewards[0, t] = env.step(np.clip(a + noise * rng.standard_normal(2), -1, 1))[1]
        log_pi[0, t] = np.sum(-0.5 * a * a - 0.5 * math.log(2 * math.pi))
    deltas = [_k_step_loop(rewards, log_pi, np.zeros((1, T + 1)), 0, t, k, gamma, lam)
              for t in range(T)]
    assert run.delta_var.shape == (1,)
    assert run.delta_var[0] == pytest.approx(np.var(deltas), rel=1e-9)


def _log_pi(features, actions, w, log_std):
    z = (actions - features @ w) / np.exp(log_std)
    return (-0.5 * z * z - log_std - 0.5 * math.log(2 * math.pi)).sum(-1)


def test_the_policy_prox_is_the_natural_gradient_step_of_the_set_kl():
    """``policy_prox`` on a 2-D Gaussian: the step direction is -F^-1 g with g the finite-
    difference gradient of sum_i weights_i log pi(a_i | s_i), F the Fisher matrix (from its
    definition, E[grad log pi grad log pi^T], by Monte Carlo over the policy's own actions),
    and the mean over the rows of the closed-form KL(pi_new || pi_old) is the set KL (to second
    order: a small step)."""
    rng = np.random.default_rng(1)
    n, p, d = 400, 3, 2
    features = np.c_[rng.normal(size=(n, p - 1)), np.ones(n)]
    w = rng.normal(size=(p, d)) * 0.3
    log_std = np.array([-0.2, 0.1])
    actions = features @ w + np.exp(log_std) * rng.normal(size=(n, d))
    weights = rng.normal(size=n) / n
    kl = 1e-5
    w_new, s_new = sw.policy_prox(features, actions, weights, w, log_std, policy_kl=kl,
                                  max_std=10.0)
    # the gradient by central differences over the flattened parameters (W, log_std)
    theta = np.r_[w.ravel(), log_std]

    def objective(th):
        return weights @ _log_pi(features, actions, th[:p * d].reshape(p, d), th[p * d:])
    h = 1e-6
    g = np.array([(objective(theta + h * e) - objective(theta - h * e)) / (2 * h)
                  for e in np.eye(theta.size)])
    # the Fisher matrix of the rows' states by its definition, with many draws per row
    draws = 200
    F = np.zeros((theta.size, theta.size))
    for _ in range(draws):
        a = features @ w + np.exp(log_std) * rng.normal(size=(n, d))
        z = (a - features @ w) / np.exp(log_std)
        score = np.concatenate([(features[:, :, None] * (z / np.exp(log_std))[:, None, :])
                                .reshape(n, p * d), z * z - 1], axis=1)
        F += score.T @ score / n
    F /= draws
    step = np.r_[(w_new - w).ravel(), s_new - log_std]
    direction = -np.linalg.solve(F, g)
    cos = step @ direction / np.linalg.norm(step) / np.linalg.norm(direction)
    assert cos > 0.99
    # the closed-form KL of the two Gaussians, averaged over the rows' states
    m_old, m_new = features @ w, features @ w_new
    v_old, v_new = np.exp(2 * log_std), np.exp(2 * s_new)
    exact = np.mean(np.sum(0.5 * (v_new / v_old + (m_new - m_old) ** 2 / v_old - 1
                                  + np.log(v_old / v_new)), axis=1))
    assert exact == pytest.approx(kl, rel=0.02)
    # a zero gradient leaves the policy where it is; the cap clips log_std
    same = sw.policy_prox(features, actions, np.zeros(n), w, log_std, policy_kl=kl)
    assert np.array_equal(same[0], w) and np.array_equal(same[1], log_std)
    capped = sw.policy_prox(features, actions, weights, w, log_std, policy_kl=0.5, max_std=1.0)
    assert np.all(capped[1] <= 1e-12)


def _ablation(finals, seeds):
    panels = {"eta": {v: np.tile(np.asarray(f, float)[:, None], (1, 4))
                      for v, f in zip((0.0, 0.1, 1.0), finals)}}
    return sw.SwimmerAblation(panels=panels, steps=np.arange(1.0, 5.0) * 100, seeds=seeds,
                              seconds=0.0, env_seconds=0.0, episode=100, noise={"eta": 0.3},
                              dual={"eta": {0.0: np.full(seeds, np.nan), 0.1: np.full(seeds, 0.5),
                                            1.0: np.full(seeds, 0.6)}})


def test_swimmer_claim_names_an_inner_best_only_beyond_the_spread():
    inner = claims.swimmer_claim(_ablation(([10, 11, 12], [20, 21, 22], [9, 10, 11]), 3))
    assert inner.agrees is True and inner.numbers["eta"]["best"] == 0.1
    assert inner.numbers["eta"]["final_episodes"] == 2  # half of the 4 episodes
    tie = claims.swimmer_claim(_ablation(([10, 20, 30], [15, 25, 35], [9, 19, 29]), 3))
    assert tie.agrees is None and "no value stands out" in tie.why
    assert tie.outcome.startswith("not decided: ") and "PANEL_ALPHA" in tie.thresholds
    end = claims.swimmer_claim(_ablation(([30, 31, 32], [20, 21, 22], [9, 10, 11]), 3))
    assert end.agrees is False and "the end value 0 is best" in end.why
    few = claims.swimmer_claim(_ablation(([10, 11], [20, 21], [9, 10]), 2))
    assert few.agrees is None and "at least 3" in few.why


def _k_ablation(variances, seeds=3, raw=None):
    """A k panel whose held-out residual variances are ``variances`` (per k, per seed) and
    whose raw variances of delta_k are ``raw`` (default: k times the residual's, the growth
    a sum of k rewards gives whatever the noise does)."""
    ks = (1, 10, 20, 100)
    residual = {k: np.asarray(v, float) for k, v in zip(ks, variances)}
    return sw.SwimmerAblation(
        panels={"k": {k: np.full((seeds, 4), 10.0) for k in ks}},
        steps=np.arange(1.0, 5.0) * 100, seeds=seeds, seconds=0.0, env_seconds=0.0, episode=100,
        noise={"k": 0.3}, dual={"k": {k: np.full(seeds, 0.5) for k in ks}},
        delta_var={"k": raw or {k: k * v for k, v in residual.items()}},
        residual_var={"k": residual})


def test_k_variance_claim_reads_the_held_out_residual_paired_by_seed():
    rising = claims.k_variance_claim(_k_ablation(([1, 1.1, 0.9], [2, 2.1, 1.9], [3, 3.2, 2.8],
                                                  [9, 10, 11])))
    assert rising.agrees is True and rising.numbers["rising"]
    assert rising.numbers["difference"] == pytest.approx(9.0) and "SE" in rising.power
    # the raw variance rises k-fold, the residual falls beyond its noise: differs
    falls = claims.k_variance_claim(_k_ablation(([5, 5.1, 4.9], [4, 4.1, 3.9], [3, 3.1, 2.9],
                                                 [1, 1.1, 0.9])))
    assert falls.agrees is False and "below 0" in falls.why
    # seeds that disagree: a paired difference of (3, -1, 7) is within 1.96 SE of 0
    noisy = claims.k_variance_claim(_k_ablation(([1, 5, 2], [2, 6, 3], [3, 7, 4],
                                                 [4, 4, 9])))
    assert noisy.agrees is None and "within 1.96 standard errors" in noisy.why
    few = claims.k_variance_claim(_k_ablation(([1, 2], [2, 3], [3, 4], [9, 9]), seeds=2))
    assert few.agrees is None and "at least 3" in few.why
    # a result without the held-out residual (an older record) is not decided
    old = dataclasses.replace(_k_ablation(([1, 1, 1],) * 4), residual_var=None)
    assert claims.k_variance_claim(old).agrees is None
    with pytest.raises(ValueError, match="result"):
        claims.k_variance_claim(_ablation(([10, 11, 12], [20, 21, 22], [9, 10, 11]), 3))


def test_the_held_out_residual_is_what_a_fit_on_other_episodes_leaves():
    """A target that is a linear function of the features plus noise of variance 0.25: the
    two-fold held-out residual is near 0.25 (not the in-sample fit's smaller value), and 0
    for a noiseless target (but for the dual's ridge: under 1e-5 of its variance)."""
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(size=(6, 200, 4)), np.ones((6, 200, 1))], axis=2)
    w = np.array([1.0, -2.0, 0.5, 3.0, 0.2])
    clean = x @ w
    assert sw._held_out_residual(x, clean) < 1e-5 * np.var(clean)
    noisy = clean + 0.5 * rng.normal(size=clean.shape)
    assert sw._held_out_residual(x, noisy) == pytest.approx(0.25, rel=0.1)
    assert np.isnan(sw._held_out_residual(x[:1], clean[:1]))


def test_inputs_are_refused_by_name():
    f, a, w = np.ones((4, 3)), np.zeros((4, 2)), np.zeros((3, 2))
    with pytest.raises(ValueError, match="w_pi"):
        sw.policy_prox(f, a, np.zeros(4), np.zeros((2, 2)), np.zeros(2), policy_kl=0.1)
    with pytest.raises(ValueError, match="actions"):
        sw.policy_prox(f, np.zeros((4, 3)), np.zeros(4), w, np.zeros(2), policy_kl=0.1)
    with pytest.raises(ValueError, match="policy_kl"):
        sw.policy_prox(f, a, np.zeros(4), w, np.zeros(2), policy_kl=0.0)
    with pytest.raises(ValueError, match="observations"):
        sw.swimmer_dual_inputs(np.zeros((2, 5, 3)), np.zeros((2, 5, 2)), k=2)
    with pytest.raises(ValueError, match="steps"):
        sw.sbeed_swimmer(steps=50, episode=100)
    with pytest.raises(ValueError, match="eta"):
        sw.sbeed_swimmer(steps=100, episode=100, eta=1.5)
    with pytest.raises(ValueError, match="panels"):
        sw.swimmer_ablation(panels=("nope",))
    with pytest.raises(ValueError, match="episode"):
        sw.swimmer_ablation(panels=("k",), episode=50, steps=50)
    with pytest.raises(TypeError, match="result"):
        claims.swimmer_claim("not an ablation")
