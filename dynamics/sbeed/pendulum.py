"""SBEED on gymnasium's Pendulum-v1 (Dai, Sec 6.7; the ablation of Fig 6.1 on Pendulum instead of
Swimmer, which needs MuJoCo).

Environment. The dynamics of ``gymnasium.envs.classic_control.PendulumEnv.step`` (g = 10, m = l =
1, dt = 0.05, torque clipped to [-2, 2], speed to [-8, 8], cost theta^2 + 0.1 thetadot^2 +
0.001 u^2 with theta wrapped to [-pi, pi), start uniform in [-pi, pi] x [-1, 1], 200 steps an
episode), vectorised over episodes here and tested against gymnasium's own step. ``noise`` adds
N(0, noise^2) to the new angular velocity (before its clip): the stochastic transitions of the
paper's ablation.

Learner (Algorithm 5 with the multi-step objective D.3 and behaviour policy = current policy):

- policy: Gaussian, mean linear in ``features`` random Fourier features of the observation
  (cos theta, sin theta, thetadot / 8) with the median-trick bandwidth (Sec 6.7.1: an RBF
  network), a learned state-independent log standard deviation;
- V(s) and the dual rho(s_0, a_0..a_{k'-1}): linear in their own random Fourier features (of s,
  and of (s_0, a_0 / 2, ..., a_{k'-1} / 2), actions past the episode's end 0), plus a constant;
  a random-feature model instead of the paper's two 64-unit tanh layers (the issue allows
  either; this one needs neither autodiff nor Numba). The dual sees the first k' =
  ``dual_actions`` actions of each segment, k' = k by default: appendix D.3 makes the multi-step
  dual a function on S x A^k, so that eta = 1 cancels the variance of delta_k given the whole
  action sequence (Prop 55 for the k-step MDP), leaving the policy's own noise to V;
- per episode of 200 steps, ``updates`` iterations, each on a minibatch of k-step segments from
  the replay buffer (the last ``buffer_episodes`` episodes, 10,000 steps by default; all of
  them with None. Over 2 seeds of 100,000 steps, the mean return of the last 20 episodes was
  -715 and -931 with 50 episodes, -882 and -433 with 100, -971 and -1015 with 25, and -913
  with the whole history (one seed), measured with the dual on (s_0, a_0) and 2 Adam steps):
  the dual first (Algorithm 5, line 7: min_rho E_D[(delta_k - rho)^2] over the replay buffer
  D): with ``dual_fit="solve"`` (default) that least-squares problem is solved exactly on every
  segment of the buffer at the current V and pi (``fit_dual``: a ridge of ``DUAL_RIDGE`` times
  the mean eigenvalue; the Gram matrix of the buffer's dual features is kept as episodes come
  and go, so a solve costs one pass over the buffer's delta_k), with ``"adam"`` ``dual_steps``
  Adam steps on the minibatch (the version before issue 28; 2 steps left the dual far from its
  least-squares fit, see ``PendulumRun.dual_loss``); then an Adam step on
  V with Thm 27's gradient, and a KL prox on the policy: for a Gaussian with a linear mean the
  prox-mapping argmin <g, w> + KL(pi_w || pi_old) / zeta is the natural-gradient step
  -zeta F^-1 g (F the Fisher matrix); zeta is chosen so that the step's KL is ``policy_kl``
  (a trust region: the scale of g is lam times an advantage and would otherwise tie the policy's
  speed to lam);
- gamma = 0.99 (the pendulum's usual discount; the paper used 0.995 on MuJoCo tasks); rewards are
  divided by 100 inside the learner (V of order 1-20) (the returns reported are the environment's);
- segments are cut at the episode's end (200 steps, a time limit, so V(s_200) bootstraps).

The parts of the learner that ``swimmer`` shares (delta_k, the dual's fit, random features,
Adam) are in ``approximators``; ``segment_deltas``, ``fit_dual`` and ``DUAL_RIDGE`` are
re-exported here.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_solve

from ..checks import (
    as_generator,
    check_array,
    check_choice,
    check_count,
    check_executor,
    check_in_range,
    check_positive,
    check_progress,
    report,
)
from ..sweep import sweep
from .approximators import (  # noqa: F401  (segment_deltas, fit_dual: re-exported)
    DUAL_RIDGE, _Adam, _RandomFeatures, _dual_factor, _segment_deltas, fit_dual, segment_deltas,
)
from .mdp import check_gamma, check_lam

__all__ = ["EPISODE", "MAX_TORQUE", "MAX_SPEED", "DT", "G", "REWARD_SCALE", "angle_normalize",
           "pendulum_step", "observe", "dual_inputs", "PendulumRun", "sbeed_pendulum", "run_cost",
           "Ablation", "ablation"]

EPISODE = 200
MAX_TORQUE = 2.0
MAX_SPEED = 8.0
DT = 0.05
G = 10.0
REWARD_SCALE = 0.01


def angle_normalize(x):
    """theta wrapped to [-pi, pi), as gymnasium's ``angle_normalize`` (finite x, any shape)."""
    return _angle_normalize(_real_array("x", x))


def _angle_normalize(x):
    return ((x + np.pi) % (2 * np.pi)) - np.pi


def pendulum_step(theta, thetadot, u, *, noise: float = 0.0, rng=None):
    """One step of Pendulum-v1 for arrays of states: (new theta, new thetadot, reward).

    Identical to ``PendulumEnv.step`` when ``noise = 0``. ``rng`` (a seed or Generator; fresh
    when None) draws the noise."""
    theta, thetadot, u = _check_states(theta=theta, thetadot=thetadot, u=u)
    noise = check_positive("noise", noise, allow_zero=True)
    if noise > 10 * MAX_SPEED:
        raise ValueError(f"noise must be at most {10 * MAX_SPEED} (the speed is clipped to "
                         f"+-{MAX_SPEED}), got {noise!r}")
    try:
        rng = as_generator(rng)
    except ValueError as exc:
        raise ValueError(f"rng must be None, a seed or a numpy Generator, got {rng!r}") from exc
    return _pendulum_step(theta, thetadot, u, noise, rng)


def _pendulum_step(theta, thetadot, u, noise, rng):
    """``pendulum_step`` without the checks (the learner's inner loop)."""
    u = np.clip(u, -MAX_TORQUE, MAX_TORQUE)
    cost = _angle_normalize(theta) ** 2 + 0.1 * thetadot**2 + 0.001 * u**2
    newdot = thetadot + (3 * G / 2 * np.sin(theta) + 3.0 * u) * DT
    if noise > 0:
        newdot = newdot + noise * rng.standard_normal(np.shape(newdot))
    newdot = np.clip(newdot, -MAX_SPEED, MAX_SPEED)
    return theta + newdot * DT, newdot, -cost


def observe(theta, thetadot):
    """The normalised observation (cos theta, sin theta, thetadot / 8), last axis."""
    return _observe(*_check_states(theta=theta, thetadot=thetadot))


def _observe(theta, thetadot):
    theta, thetadot = np.broadcast_arrays(theta, thetadot)
    return np.stack([np.cos(theta), np.sin(theta), thetadot / MAX_SPEED], axis=-1)


def _real_array(name: str, value) -> np.ndarray:
    """A finite real array of at most 10**7 entries, scalars kept 0-d (``check_array`` makes
    them 1-d)."""
    if isinstance(value, (bool, np.bool_)) or getattr(value, "dtype", None) == np.bool_:
        raise TypeError(f"{name} must be real numbers, not booleans, got {value!r}")
    arr = check_array(name, value, max_size=10_000_000, max_abs=1e100)
    return arr.reshape(np.shape(value))


def _check_states(**arrays) -> list[np.ndarray]:
    """Finite real arrays (or scalars) of broadcastable shapes, at most 10**7 entries each."""
    checked = [_real_array(name, value) for name, value in arrays.items()]
    try:
        np.broadcast_shapes(*(a.shape for a in checked))
    except ValueError as exc:
        raise ValueError(f"{', '.join(arrays)} must have broadcastable shapes, got "
                         f"{[a.shape for a in checked]}") from exc
    return checked


def dual_inputs(observations, actions, *, k: int) -> np.ndarray:
    """The dual's input for every start t0 of every episode (eq D.3: rho is a function of s_0
    and the first k actions): (n, T, 3 + k) holding the observation at t0 (``observations``
    (n, T + 1, 3), as ``observe`` gives) and a_t0..a_t0+k-1 clipped to the torque limit and
    divided by it, 0 past the episode's end (``actions`` (n, T))."""
    actions = check_array("actions", actions, ndim=2, max_size=10_000_000, max_abs=1e100)
    n, T = actions.shape
    observations = check_array("observations", observations, shape=(n, T + 1, 3), max_abs=1e100)
    k = check_count("k", k, low=1, high=EPISODE)
    return _dual_inputs(observations, actions, k)


def _dual_inputs(observations, actions, k):
    n, T = actions.shape
    padded = np.zeros((n, T + k))
    padded[:, :T] = np.clip(actions, -MAX_TORQUE, MAX_TORQUE) / MAX_TORQUE
    idx = np.arange(T)[:, None] + np.arange(k)[None, :]
    return np.concatenate([observations[:, :T], padded[:, idx]], axis=-1)


@dataclass(frozen=True)
class PendulumRun:
    """One SBEED run on Pendulum. ``steps`` (episodes,) environment steps at each episode's end,
    ``returns`` the episode's undiscounted return (the behaviour policy's, as learning curves
    are usually drawn), ``log_std`` the policy's log standard deviation; ``angles``/``velocities``
    the axes of ``V_grid`` (learned V, environment reward units); ``rollout`` (201, 2) the angle
    and velocity of one episode of the current policy's mean from theta = pi (hanging down);
    ``seconds`` the wall time. The dual's fit after each episode's updates, on every segment of
    the replay buffer at the current V and pi (learner units): ``dual_loss`` mean (delta_k -
    rho)^2, ``dual_floor`` the same for the least-squares dual (``fit_dual``: the lowest the
    dual's features allow), ``delta_var`` the variance of delta_k (what a constant leaves).
    Partial runs have NaN where not yet computed."""

    steps: np.ndarray
    returns: np.ndarray
    log_std: np.ndarray
    angles: np.ndarray
    velocities: np.ndarray
    V_grid: np.ndarray
    rollout: np.ndarray
    rollout_return: float
    seconds: float
    done: int
    config: tuple
    dual_loss: np.ndarray = None  # type: ignore[assignment]
    dual_floor: np.ndarray = None  # type: ignore[assignment]
    delta_var: np.ndarray = None  # type: ignore[assignment]

    def dual_explained(self, last: int = 10) -> float:
        """The fraction of delta_k's variance on the buffer that the dual explains, 1 -
        dual_loss / delta_var, averaged over the ``last`` finished episodes."""
        last = check_count("last", last, low=1, high=100_000)
        ok = np.isfinite(self.dual_loss) & (self.delta_var > 0)
        if not ok.any():
            return float("nan")
        idx = np.flatnonzero(ok)[-last:]
        return float(np.mean(1 - self.dual_loss[idx] / self.delta_var[idx]))


def sbeed_pendulum(*, steps: int = 100_000, gamma: float = 0.99, lam: float = 0.01,
                   eta: float = 0.1, k: int = 10, noise: float = 0.0, features: int = 100,
                   value_features: int = 200, batch_size: int = 256, updates: int = 20,
                   value_lr: float = 0.01, dual_lr: float = 0.02, dual_steps: int = 2,
                   dual_fit: str = "solve", dual_actions: int | None = None,
                   policy_kl: float = 0.01, buffer_episodes: int | None = 50,
                   max_std: float = 2.0, seed=None,
                   progress=None) -> PendulumRun:
    """Train SBEED (Algorithm 5 with the multi-step objective, eq D.3) on Pendulum-v1 for
    ``steps`` environment steps (whole episodes of 200).

    ``lam`` the entropy weight, ``eta`` the dual's weight (eq 6.10), ``k`` the rollout length
    (eq D.3), ``noise`` the transition noise (rad/s). ``dual_actions`` (1..k, None: k) the
    leading actions of each segment the dual sees (appendix D.3: all k); ``dual_fit`` "solve"
    (line 7 solved on the whole buffer at every update) or "adam" (``dual_steps`` Adam steps of
    ``dual_lr`` on the minibatch). See the module docstring for the learner.
    ``max_std`` caps the policy's standard deviation (the learned one rises to the cap: with the
    torque clipped at 2, wide noise gives the bang-bang pushes a swing-up needs; capping it at
    0.5 or 1 made the returns worse). ``progress(fraction, message[, partial=PendulumRun])``
    once per few episodes; raise
    ``dynamics.checks.Cancelled`` from it to stop.
    """
    steps = check_count("steps", steps, low=EPISODE, high=10_000_000)
    gamma = check_gamma(gamma)
    lam = check_lam(lam)
    eta = check_in_range("eta", eta, 0.0, 1.0)
    k = check_count("k", k, low=1, high=EPISODE)
    noise = check_positive("noise", noise, allow_zero=True)
    features = check_count("features", features, low=1, high=2000)
    value_features = check_count("value_features", value_features, low=1, high=4000)
    batch_size = check_count("batch_size", batch_size, low=1, high=100_000)
    updates = check_count("updates", updates, low=0, high=10_000)
    value_lr = check_in_range("value_lr", value_lr, 0.0, 1.0, low_open=True)
    dual_lr = check_in_range("dual_lr", dual_lr, 0.0, 1.0, low_open=True)
    dual_steps = check_count("dual_steps", dual_steps, low=1, high=100)
    dual_fit = check_choice("dual_fit", dual_fit, ("solve", "adam"))
    kd = k if dual_actions is None else check_count("dual_actions", dual_actions, low=1, high=k)
    policy_kl = check_in_range("policy_kl", policy_kl, 0.0, 1.0, low_open=True)
    max_std = check_positive("max_std", max_std)
    if buffer_episodes is not None:
        buffer_episodes = check_count("buffer_episodes", buffer_episodes, low=1, high=100_000)
    progress = check_progress(progress)
    rng = as_generator(seed)
    start = time.perf_counter()

    # feature maps, bandwidths by the median trick on states spread over the state space
    ref_th = rng.uniform(-np.pi, np.pi, 2000)
    ref_dot = rng.uniform(-MAX_SPEED, MAX_SPEED, 2000)
    ref = _observe(ref_th, ref_dot)
    phi_pi = _RandomFeatures(3, features, ref, rng)
    phi_v = _RandomFeatures(3, value_features, ref, rng)
    phi_rho = _RandomFeatures(3 + kd, value_features,
                              np.c_[ref, rng.uniform(-1, 1, (2000, kd))], rng)
    w_pi = np.zeros(features + 1)
    log_std = math.log(min(1.0, max_std))
    w_v = np.zeros(value_features + 1)
    w_rho = np.zeros(value_features + 1)
    adam_v = _Adam(w_v.size, value_lr)
    adam_rho = _Adam(w_rho.size, dual_lr)

    n_episodes = steps // EPISODE
    # replay buffer: whole episodes; features of each state stored once
    obs_pi = np.zeros((n_episodes, EPISODE + 1, features + 1))
    obs_v = np.zeros((n_episodes, EPISODE + 1, value_features + 1))
    raw = np.zeros((n_episodes, EPISODE + 1, 3))
    acts = np.zeros((n_episodes, EPISODE))
    rews = np.zeros((n_episodes, EPISODE))
    # the dual's features of every segment start, for the episodes in the buffer (a ring), and
    # their Gram matrix over the buffer (added and removed as episodes enter and leave it)
    ring = n_episodes if buffer_episodes is None else min(n_episodes, buffer_episodes)
    obs_rho = np.zeros((ring, EPISODE, value_features + 1))
    gram = np.zeros((value_features + 1, value_features + 1))
    returns = np.full(n_episodes, np.nan)
    stds = np.full(n_episodes, np.nan)
    dual_loss = np.full(n_episodes, np.nan)
    dual_floor = np.full(n_episodes, np.nan)
    delta_var = np.full(n_episodes, np.nan)
    angles = np.linspace(-np.pi, np.pi, 61)
    velocities = np.linspace(-MAX_SPEED, MAX_SPEED, 61)
    grid_phi = phi_v(_observe(angles[None, :], velocities[:, None]))
    disc = gamma ** np.arange(k + 1)
    config = (steps, gamma, lam, eta, k, noise)

    def snapshot(done: int) -> PendulumRun:
        for name, w in (("V", w_v), ("the policy", w_pi)):
            if not np.all(np.abs(w) < 1e100):  # also NaN
                raise ValueError(
                    f"sbeed_pendulum diverged by episode {done}: {name}'s weights are no longer "
                    f"finite; value_lr = {value_lr:g}, dual_lr = {dual_lr:g} or policy_kl = "
                    f"{policy_kl:g} is too large (lam = {lam:g}): use smaller steps")
        roll, ret = _rollout(phi_pi, w_pi)
        return PendulumRun(
            steps=(np.arange(n_episodes) + 1.0) * EPISODE, returns=returns.copy(),
            log_std=stds.copy(), angles=angles, velocities=velocities,
            V_grid=(grid_phi @ w_v) / REWARD_SCALE, rollout=roll, rollout_return=ret,
            seconds=time.perf_counter() - start, done=done, config=config,
            dual_loss=dual_loss.copy(), dual_floor=dual_floor.copy(), delta_var=delta_var.copy())

    def buffer_deltas(first: int, last: int) -> np.ndarray:
        """delta_k (eq D.3) of every segment of episodes first..last at the current V and pi."""
        sl = slice(first, last + 1)
        z = (acts[sl] - obs_pi[sl, :EPISODE] @ w_pi) / math.exp(log_std)
        log_pi = -0.5 * z * z - log_std - 0.5 * math.log(2 * math.pi)
        return _segment_deltas(REWARD_SCALE * rews[sl] - lam * log_pi, obs_v[sl] @ w_v, k, gamma)

    def buffer_fit(first: int, last: int):
        """The dual's problem on the buffer (line 7): delta_k of its segments in ring order
        (ring, T) (0 in slots not filled yet, which then add nothing), the filled slots, and
        F' delta (no copy of the ring's features)."""
        delta = np.zeros((ring, EPISODE))
        slots = np.arange(first, last + 1) % ring
        delta[slots] = buffer_deltas(first, last)
        return delta, slots, np.tensordot(obs_rho, delta, axes=([0, 1], [0, 1]))

    last_report = time.perf_counter()
    for ep in range(n_episodes):
        # 1. one episode with the current policy (Algorithm 5, lines 3-5)
        th = rng.uniform(-np.pi, np.pi)
        dot = rng.uniform(-1.0, 1.0)
        raw[ep, 0] = _observe(th, dot)
        for t in range(EPISODE):
            f = phi_pi(raw[ep, t])
            a = f @ w_pi + math.exp(log_std) * rng.standard_normal()
            th, dot, r = _pendulum_step(th, dot, a, noise, rng)
            raw[ep, t + 1] = _observe(th, dot)
            acts[ep, t] = a
            rews[ep, t] = r
        obs_pi[ep] = phi_pi(raw[ep])
        obs_v[ep] = phi_v(raw[ep])
        returns[ep] = rews[ep].sum()
        stds[ep] = log_std
        oldest = 0 if buffer_episodes is None else max(0, ep + 1 - buffer_episodes)
        slot = ep % ring
        if ep >= ring:  # the episode leaving the buffer
            gram -= obs_rho[slot].T @ obs_rho[slot]
        obs_rho[slot] = phi_rho(_dual_inputs(raw[ep:ep + 1], acts[ep:ep + 1], kd)[0])
        gram += obs_rho[slot].T @ obs_rho[slot]
        factor = _dual_factor(gram, DUAL_RIDGE)
        # 2. primal-dual updates on the buffer (lines 6-11)
        for _ in range(updates):
            if dual_fit == "solve" and eta > 0:  # line 7, solved on the buffer
                _, _, rhs = buffer_fit(oldest, ep)
                w_rho = cho_solve(factor, rhs)
            e = rng.integers(oldest, ep + 1, batch_size)
            t0 = rng.integers(0, EPISODE, batch_size)
            length = np.minimum(k, EPISODE - t0)
            idx = t0[:, None] + np.arange(k)[None, :]
            inside = np.arange(k)[None, :] < length[:, None]
            idx = np.minimum(idx, EPISODE - 1)
            f_pi = obs_pi[e[:, None], idx]                     # (B, k, F+1)
            a = acts[e[:, None], idx]
            mean = f_pi @ w_pi
            std = math.exp(log_std)
            z = (a - mean) / std
            log_pi = -0.5 * z * z - log_std - 0.5 * math.log(2 * math.pi)
            terms = np.where(inside, disc[:k] * (REWARD_SCALE * rews[e[:, None], idx] - lam * log_pi), 0.0)
            end = t0 + length
            f_end = obs_v[e, end]
            f_start = obs_v[e, t0]
            g_end = disc[length]
            delta = terms.sum(axis=1) + g_end * (f_end @ w_v)
            v0 = f_start @ w_v
            f_rho = obs_rho[e % ring, t0]
            if dual_fit == "adam":  # line 7, approximately: a few steps on the minibatch
                for _ in range(dual_steps):
                    rho = f_rho @ w_rho
                    w_rho = adam_rho.step(w_rho, -2 * ((delta - rho) @ f_rho) / batch_size)
            rho = f_rho @ w_rho
            # Thm 27 (multi-step): V's gradient
            gv = (2 * ((delta - v0)[:, None] * (g_end[:, None] * f_end - f_start)).sum(0)
                  - 2 * eta * ((delta - rho) * g_end) @ f_end) / batch_size
            w_v = adam_v.step(w_v, gv)
            # the policy: g = E[2 c d delta / dw], d delta / dw = -lam sum_t gamma^t grad log pi
            c = 2 * ((1 - eta) * delta + eta * rho - v0)
            weight = np.where(inside, disc[:k], 0.0) * (-lam) * c[:, None]
            g_w = np.einsum("bt,bt,btf->f", weight, z / std, f_pi) / batch_size
            g_s = np.sum(weight * (z * z - 1)) / batch_size
            # KL prox: natural gradient with the step whose KL is policy_kl
            flat = f_pi[inside]
            fisher = flat.T @ flat / len(flat) / std**2 + 1e-4 * np.eye(w_pi.size)
            nat_w = np.linalg.solve(fisher, g_w)
            nat_s = g_s / 2.0
            quad = g_w @ nat_w + g_s * nat_s
            if quad > 0:
                zeta = math.sqrt(2 * policy_kl / quad)
                w_pi = w_pi - zeta * nat_w
                log_std = float(np.clip(log_std - zeta * nat_s, math.log(0.05), math.log(max_std)))
        # the dual's fit on the buffer after this episode's updates (reported, not used)
        delta, slots, rhs = buffer_fit(oldest, ep)
        best = cho_solve(factor, rhs)
        f = obs_rho[slots]
        dual_loss[ep] = np.mean((delta[slots] - f @ w_rho) ** 2)
        dual_floor[ep] = np.mean((delta[slots] - f @ best) ** 2)
        delta_var[ep] = np.var(delta[slots])
        now = time.perf_counter()
        if progress is not None and (now - last_report > 0.5 or ep == n_episodes - 1):
            last_report = now
            report(progress, (ep + 1) / n_episodes,
                   f"Pendulum: {(ep + 1) * EPISODE:,} of {n_episodes * EPISODE:,} steps, "
                   f"last return {returns[ep]:.0f}", partial=snapshot(ep + 1))
    return snapshot(n_episodes)


def _rollout(phi_pi, w_pi):
    """The policy's mean action from hanging down (theta = pi, at rest) for one episode."""
    th, dot = np.pi, 0.0
    path = np.zeros((EPISODE + 1, 2))
    path[0] = th, dot
    total = 0.0
    for t in range(EPISODE):
        a = phi_pi(_observe(th, dot)) @ w_pi
        th, dot, r = _pendulum_step(th, dot, a, 0.0, None)
        total += r
        path[t + 1] = _angle_normalize(th), dot
    return path, float(total)


def _ablation_run(lam: float, eta: float, k: int, noise: float, seed: int, steps: int,
                  progress=None) -> tuple[np.ndarray, float]:
    """One ablation run: its episode returns and the fraction of delta_k's variance its dual
    explains at the end (``PendulumRun.dual_explained``). A pure, picklable function of its
    arguments, so any executor (threads, processes, Dask) gives the same."""
    run = sbeed_pendulum(steps=steps, lam=lam, eta=eta, k=k, noise=noise, seed=seed,
                         progress=progress)
    return run.returns, run.dual_explained()


#: The transition noise of the ablation (rad/s per step) in panels (a)-(c): the noise of the
#: Pendulum page's default, under which eta has little to remove (the dual cancels the variance
#: that the transitions add, Prop 55, and at 0.2 rad/s a step it is small).
NOISE_ABLATION = 0.2
#: The noise of the stochastic eta panel ("eta_noisy"): of order 1 rad/s a step, where the
#: transitions, not the policy's own noise, dominate the variance of delta_k.
NOISE_STOCHASTIC = 1.0
#: Fig 6.1's grids: the search grids of Sec 6.7.1 (the plotted values are not printed): lam in
#: {0.001, 0.01, 0.1}, eta in {0.004, 0.01, 0.04, 0.1} with 0 (PCL's surrogate) and 1 (the
#: full cancellation, Prop 55) added, k in {1, 10, 20, 100}. Each panel varies one of lam, eta,
#: k with the others at the defaults below; "eta_noisy" is the eta panel at NOISE_STOCHASTIC.
ETA_GRID = (0.0, 0.004, 0.01, 0.04, 0.1, 1.0)
ABLATION = {
    "lam": (0.001, 0.01, 0.1),
    "eta": ETA_GRID,
    "k": (1, 10, 20, 100),
    "eta_noisy": ETA_GRID,
}
ABLATION_DEFAULTS = {"lam": 0.01, "eta": 0.1, "k": 10}
#: The parameter each panel varies.
PANEL_PARAMETER = {"lam": "lam", "eta": "eta", "k": "k", "eta_noisy": "eta"}


#: ``run_cost``'s model: a run's time grows like (K_COST_OFFSET + k): at 10,000 steps (seed 0,
#: the ablation's noise) the times for k = 1, 10, 20 and 100 stand about as 1 : 2 : 3.5 : 11
#: (docs/speed.md); lam and eta change them by under 10 %. Solving the dual on the buffer adds a
#: cost that does not grow with k (and that eta = 0 skips), so the model overweighs k = 100 a
#: little.
K_COST_OFFSET = 9.0


def run_cost(k: int) -> float:
    """Relative compute time of ``sbeed_pendulum`` with rollout length ``k`` (per step, all else
    equal): ``(K_COST_OFFSET + k) / (K_COST_OFFSET + 10)``, 1 at the default k = 10, measured
    (each step rolls out k transitions for the Bellman error besides the fixed work of the
    updates). It weighs ``ablation``'s progress, and the page's estimates use it."""
    k = check_count("k", k, low=1, high=EPISODE)
    return (K_COST_OFFSET + k) / (K_COST_OFFSET + 10)


@dataclass(frozen=True)
class Ablation:
    """Fig 6.1 on Pendulum: for each panel (``ABLATION``'s names) and value, ``returns``
    (seeds, episodes) in ``panels`` and the dual's explained fraction of delta_k's variance per
    seed in ``dual`` (NaN for eta = 0, whose dual is not fitted); ``noise`` each panel's
    transition noise; ``steps`` the x axis; ``seconds`` the total compute time."""

    panels: dict
    steps: np.ndarray
    seeds: int
    seconds: float
    noise: dict = None  # type: ignore[assignment]
    dual: dict = None  # type: ignore[assignment]


def ablation(*, steps: int = 100_000, seeds: int = 5, panels=tuple(ABLATION),
             noise: float = NOISE_ABLATION, stochastic_noise: float = NOISE_STOCHASTIC,
             executor=None, progress=None) -> Ablation:
    """Run the one-factor-at-a-time ablation of Fig 6.1 (``ABLATION`` around
    ``ABLATION_DEFAULTS``, each over ``seeds`` seeds 0..seeds-1; ``panels`` a subset of its
    names) at transition noise ``noise``, the "eta_noisy" panel at ``stochastic_noise``,
    through ``dynamics.sweep`` on ``executor`` (None: in this process, where each run reports
    its progress, so that a cancel stops it within a second). Results do not depend on the
    executor: each run's seed is its seed index."""
    steps = check_count("steps", steps, low=EPISODE, high=10_000_000)
    seeds = check_count("seeds", seeds, low=1, high=100)
    if isinstance(panels, str) or not hasattr(panels, "__iter__"):
        raise TypeError(f"panels must be a tuple of names from {tuple(ABLATION)}, got {panels!r}")
    panels = tuple(check_choice("panels", p, tuple(ABLATION)) for p in panels)
    if not panels:
        raise ValueError(f"panels must name at least one of {tuple(ABLATION)}")
    noise = check_in_range("noise", noise, 0.0, 10 * MAX_SPEED)
    stochastic_noise = check_in_range("stochastic_noise", stochastic_noise, 0.0, 10 * MAX_SPEED)
    progress = check_progress(progress)
    executor = check_executor(executor)
    noises = {name: stochastic_noise if name == "eta_noisy" else noise for name in panels}
    cells = []
    for name in panels:
        for value in ABLATION[name]:
            cfg = dict(ABLATION_DEFAULTS, **{PANEL_PARAMETER[name]: value})
            cells.append((name, value, (cfg["lam"], cfg["eta"], cfg["k"], noises[name])))
    unique = sorted({c for _, _, c in cells})
    jobs = [(c, s) for c in unique for s in range(seeds)]
    start = time.perf_counter()
    # the progress fraction weighs each run by its cost (k = 100 takes 5.5x k = 10)
    out = sweep(_ablation_run, [dict(lam=lam, eta=eta, k=k, noise=nz, seed=s, steps=steps)
                                for (lam, eta, k, nz), s in jobs],
                executor=executor, progress=progress, task_progress=True,
                weights=[run_cost(c[2]) for c, _ in jobs])
    results = dict(zip(jobs, out))
    returns, dual = {}, {}
    for name, value, cfg in cells:
        returns.setdefault(name, {})[value] = np.stack([results[(cfg, s)][0]
                                                        for s in range(seeds)])
        dual.setdefault(name, {})[value] = np.array([results[(cfg, s)][1] if cfg[1] > 0
                                                     else np.nan for s in range(seeds)])
    return Ablation(panels=returns, steps=(np.arange(steps // EPISODE) + 1.0) * EPISODE,
                    seeds=seeds, seconds=time.perf_counter() - start, noise=noises, dual=dual)
