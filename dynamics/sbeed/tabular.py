"""SBEED on a finite MDP with tabular V, a softmax policy and a tabular dual (Dai, Sec 6.3-6.4).

Parametrisation. ``V`` (S,) and policy logits ``theta`` (S, A) with pi = softmax(theta / lam),
so that lam log pi(a | s) = theta(s, a) - lam log sum_b exp(theta(s, b) / lam) and theta plays
the role of Q (at the smoothed optimum theta = Q* up to a constant per state). The dual rho is a
table on (s, a). Terminal states have V = 0 and are never updated.

Objective (eq 6.10), with delta = R(s, a) + gamma V(s') - lam log pi(a | s) and (s, a) drawn
from mu(s, a) = d(s) beta(a | s) (``state_weights`` d, ``behaviour`` beta, uniform by default):

    L_eta(V, pi; rho) = E_{s,a,s'}[(delta - V(s))^2] - eta E_{s,a,s'}[(delta - rho(s, a))^2].

The dual's maximiser is rho*(s, a) = E_{s'} delta (the remark after Algorithm 5), and then
(Prop 55, eq D.1)

    l_eta(V, pi) = L_eta(V, pi; rho*) = E_{s,a}[(E_{s'} delta - V(s))^2]
                                          + (1 - eta) gamma^2 E_{s,a} Var_{s'|s,a}[V(s')].

Derived fixed points. At eta = 1 the first term is the squared consistency error of (6.6); it is
0 exactly at (V*_lam, pi*_lam) (Prop 26), so SBEED's fixed point is the smoothed optimum. At
eta < 1 the variance term remains: the minimiser of l_eta is pulled towards V that vary little
over the next states, a bias that vanishes when every transition is deterministic (Var = 0).
``biased_fixed_point`` minimises l_eta by L-BFGS on the closed form above (an independent
route to the point the SBEED iteration must reach). The closed-form objective, its gradients
and that fixed point are in ``saddle`` (re-exported here); this module runs the iteration.

Gradients (Thm 27, with the policy's minus sign that the extracted text drops):

    grad_V     = 2 E[(delta - V(s)) (gamma e_{s'} - e_s)] - 2 eta gamma E[(delta - rho) e_{s'}]
    grad_theta = -2 E[((1 - eta) delta + eta rho - V(s)) (e_a - pi(. | s))]

(grad_theta is Thm 27's grad_pi times d log pi / d theta = (e_a - pi) / lam.) Steps are
preconditioned per state by 1 / d(s) (the gradient in the L2(d) inner product), so one step size
suits MDPs of any size; the Euclidean prox on V and theta is then a gradient step.

Multi-step (Appendix D.3.2, eq D.3): delta_k = sum_{i<k} gamma^i (R_i - lam log pi(a_i | s_i))
+ gamma^k V(s_k) over k-step segments, cut at a terminal state (V = 0 beyond it). Exact
expectations over action sequences grow as A^k, so multi-step runs on sampled segments only.
The dual rho(s_0, a_0..a_{k'-1}) is a table over the state and the first k' actions (an action
slot past a terminal state is coded A), solved exactly on the replay buffer (the mean of delta_k
per cell, Algorithm 5 line 7). k' is the largest k' <= k whose table keeps about 20 buffer
segments a cell (the "finite length of actions as input" the appendix allows): a cell with one
segment would fit its delta exactly and cancel the whole error, not only its variance. With
k' = k and eta = 1 the dual cancels the variance of delta_k given (s_0, a_0..a_{k-1}); with
k' < k the variance of the later actions' outcomes remains (eta = 1 is then biased too).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..checks import (
    as_generator,
    check_choice,
    check_count,
    check_instance,
    check_positive,
    check_progress,
    report,
)
from .mdp import MDP, check_mdp, policy_values, soft_value_iteration
from .saddle import (  # noqa: F401  (the objective's names, re-exported: their home before)
    FixedPoint, _check_common, _check_point, _exact_objective, _lam_log_pi, _soft, _weights,
    biased_fixed_point, gradients, objective, policy_of,
)

__all__ = ["MAX_K", "MAX_BUFFER", "MAX_DUAL", "SAMPLES_PER_CELL", "dual_actions", "Buffer",
           "sample_segments", "k_step_deltas", "TabularRun", "sbeed_tabular"]

#: Largest rollout length k.
MAX_K = 200
#: Largest replay buffer (segments).
MAX_BUFFER = 2_000_000
#: Largest dual table rho(s0, a_0..a_{k'-1}) (entries).
MAX_DUAL = 1 << 20
#: Buffer segments per dual cell, on average, that the choice of k' keeps (see dual_actions).
SAMPLES_PER_CELL = 20


def dual_actions(n_states: int, n_actions: int, k: int, buffer_size: int = 20_000) -> int:
    """k': how many leading actions the tabular dual of a k-step run sees (see the module doc):
    the largest k' <= k whose table of S (A + 1)^k' cells holds ``SAMPLES_PER_CELL`` buffer
    segments a cell on average (and at most ``MAX_DUAL`` cells); at least 1."""
    n_states = check_count("n_states", n_states, low=1, high=1 << 20)
    n_actions = check_count("n_actions", n_actions, low=1, high=1 << 20)
    k = check_count("k", k, low=1, high=MAX_K)
    buffer_size = check_count("buffer_size", buffer_size, low=1, high=MAX_BUFFER)
    kk = 1
    while kk < k:
        cells = n_states * (n_actions + 1) ** (kk + 1)
        if cells > MAX_DUAL or cells * SAMPLES_PER_CELL > buffer_size:
            break
        kk += 1
    return kk


# --- numba kernels -------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _exact_chunk(nxt, prob, R, live, mu, inv_d, V, theta, Vstar, gamma, lam, eta, step_v,
                 step_pi, n, err_out, obj_out):
    """n exact-gradient iterations; err_out[i] = sup|V - V*| after iteration i, obj_out[i] =
    l_eta before it."""
    S, A = R.shape
    gV = np.zeros(S)
    gth = np.zeros((S, A))
    pi = np.zeros(A)
    llp = np.zeros(A)
    for i in range(n):
        obj_out[i] = _exact_objective(nxt, prob, R, live, mu, V, theta, gamma, lam, eta, gV, gth,
                                      pi, llp)
        err = 0.0
        for s in range(S):
            if live[s]:
                V[s] -= step_v * inv_d[s] * gV[s]
                for a in range(A):
                    theta[s, a] -= step_pi * inv_d[s] * gth[s, a]
            diff = abs(V[s] - Vstar[s])
            if diff > err:
                err = diff
        err_out[i] = err


@njit(cache=True, nogil=True)
def _segment_delta(seg_s, seg_a, seg_r, seg_len, q, llp_tab, V, gamma):
    """delta_k of segment q (eq D.3) with the table lam log pi."""
    L = seg_len[q]
    delta = 0.0
    disc = 1.0
    for t in range(L):
        delta += disc * (seg_r[q, t] - llp_tab[seg_s[q, t], seg_a[q, t]])
        disc *= gamma
    return delta + disc * V[seg_s[q, L]]


@njit(cache=True, nogil=True)
def _sampled_chunk(seg_s, seg_a, seg_r, seg_len, seg_code, cell_count, batches, nxt, prob, R,
                   live, mu, V, theta, rho, Vstar, gamma, lam, eta, step_v, step_pi, j0, decay,
                   dual_every, err_out, obj_out):
    """Algorithm 5 on a fixed replay buffer of k-step segments. Every ``dual_every`` iterations
    the dual is solved (line 7): rho(s0, code) = the mean of delta_k over the buffer's segments
    in that cell, at the current V and pi. Each iteration then takes stochastic primal gradients
    (Thm 27, eq D.3) on a minibatch, averaged per state over the batch's visits (a positive
    diagonal preconditioner, so the fixed point is the exact gradient's, and steps do not grow
    with the number of states), with the step decayed as 1 / (1 + j / decay)."""
    S, A = R.shape
    n, bsize = batches.shape
    nbuf = seg_len.shape[0]
    gV = np.zeros(S)
    gth = np.zeros((S, A))
    pi = np.zeros(A)
    llp = np.zeros(A)
    pi_tab = np.zeros((S, A))
    llp_tab = np.zeros((S, A))
    cV = np.zeros(S)
    cth = np.zeros(S)
    for i in range(n):
        obj_out[i] = _exact_objective(nxt, prob, R, live, mu, V, theta, gamma, lam, eta, gV, gth,
                                      pi, llp)
        for s in range(S):
            _soft(theta, lam, s, pi, llp)
            for a in range(A):
                pi_tab[s, a] = pi[a]
                llp_tab[s, a] = llp[a]
        if eta > 0.0 and (j0 + i) % dual_every == 0:
            rho[:] = 0.0
            for q in range(nbuf):
                rho[seg_s[q, 0], seg_code[q]] += _segment_delta(seg_s, seg_a, seg_r, seg_len, q,
                                                                llp_tab, V, gamma)
            for s in range(S):
                for c in range(rho.shape[1]):
                    if cell_count[s, c] > 0:
                        rho[s, c] /= cell_count[s, c]
        gV[:] = 0.0
        gth[:] = 0.0
        cV[:] = 0.0
        cth[:] = 0.0
        for b in range(bsize):
            q = batches[i, b]
            L = seg_len[q]
            s0 = seg_s[q, 0]
            delta = _segment_delta(seg_s, seg_a, seg_r, seg_len, q, llp_tab, V, gamma)
            r0 = rho[s0, seg_code[q]]
            sk = seg_s[q, L]
            disc_k = gamma**L
            gV[s0] -= 2.0 * (delta - V[s0])
            gV[sk] += 2.0 * disc_k * ((delta - V[s0]) - eta * (delta - r0))
            cV[s0] += 1.0
            cV[sk] += 1.0
            c = 2.0 * ((1.0 - eta) * delta + eta * r0 - V[s0])
            disc = 1.0
            for t in range(L):
                s = seg_s[q, t]
                for a in range(A):
                    gth[s, a] += c * disc * pi_tab[s, a]
                gth[s, seg_a[q, t]] -= c * disc
                cth[s] += 1.0
                disc *= gamma
        zeta = 1.0 / (1.0 + (j0 + i) / decay)
        err = 0.0
        for s in range(S):
            if live[s]:
                if cV[s] > 0:
                    V[s] -= zeta * step_v * gV[s] / cV[s]
                if cth[s] > 0:
                    for a in range(A):
                        theta[s, a] -= zeta * step_pi * gth[s, a] / cth[s]
            diff = abs(V[s] - Vstar[s])
            if diff > err:
                err = diff
        err_out[i] = err


# --- sampled segments (the replay buffer) --------------------------------------------------------


@dataclass(frozen=True)
class Buffer:
    """k-step segments from the behaviour policy: states (n, k + 1), actions and rewards (n, k),
    and each segment's length (k, or fewer when it reached a terminal state, where V = 0)."""

    states: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    lengths: np.ndarray

    @property
    def size(self) -> int:
        return len(self.lengths)


def sample_segments(mdp: MDP, size: int, k: int = 1, *, behaviour=None, state_weights=None,
                    seed=None) -> Buffer:
    """``size`` segments: s_0 ~ d, a_t ~ beta(. | s_t), s_{t+1} ~ P(. | s_t, a_t), r_t = R(s_t,
    a_t) (the expected reward: the transition is the only randomness, as in eq 6.7), stopped
    after k steps or at a terminal state."""
    mdp = check_mdp(mdp)
    size = check_count("buffer_size", size, low=1, high=MAX_BUFFER)
    k = check_count("k", k, low=1, high=MAX_K)
    d, beta = _weights(mdp, behaviour, state_weights)
    rng = as_generator(seed)
    states = np.zeros((size, k + 1), np.int64)
    actions = np.zeros((size, k), np.int64)
    rewards = np.zeros((size, k))
    lengths = np.full(size, k, np.int64)
    s = rng.choice(mdp.n_states, size=size, p=d)
    states[:, 0] = s
    alive = np.ones(size, bool)
    cum_beta = np.cumsum(beta, axis=1)
    cum_P = np.cumsum(mdp.P, axis=2)
    for t in range(k):
        a = np.minimum((rng.uniform(size=size)[:, None] > cum_beta[s]).sum(axis=1), mdp.n_actions - 1)
        nxt = np.minimum((rng.uniform(size=size)[:, None] > cum_P[s, a]).sum(axis=1), mdp.n_states - 1)
        actions[:, t] = np.where(alive, a, 0)
        rewards[:, t] = np.where(alive, mdp.R[s, a], 0.0)
        nxt = np.where(alive, nxt, s)
        states[:, t + 1] = nxt
        ended = alive & mdp.terminal[nxt]
        lengths[ended] = t + 1
        alive &= ~ended
        s = nxt
    return Buffer(states=states, actions=actions, rewards=rewards, lengths=lengths)


def k_step_deltas(mdp: MDP, V, theta, buffer: Buffer, *, gamma: float, lam: float) -> np.ndarray:
    """delta_k of eq D.3 for every segment: sum_{t<L} gamma^t (r_t - lam log pi(a_t | s_t)) +
    gamma^L V(s_L), with V = 0 on terminal states. ``buffer`` comes from ``sample_segments``
    on this MDP."""
    mdp = check_mdp(mdp)
    gamma, lam, _ = _check_common(gamma, lam, 1.0)
    V, theta, _ = _check_point(mdp, V, theta)
    buffer = check_instance("buffer", buffer, Buffer)
    if buffer.states.size and (buffer.states.max() >= mdp.n_states
                               or buffer.actions.max() >= mdp.n_actions):
        raise ValueError(f"buffer holds states or actions beyond the MDP's {mdp.n_states} states "
                         f"and {mdp.n_actions} actions: sample it on this MDP")
    V = np.where(mdp.terminal, 0.0, V)
    llp = _lam_log_pi(theta, lam)
    k = buffer.actions.shape[1]
    t = np.arange(k)
    inside = t[None, :] < buffer.lengths[:, None]
    terms = (buffer.rewards - llp[buffer.states[:, :k], buffer.actions]) * gamma ** t
    end = buffer.states[np.arange(buffer.size), buffer.lengths]
    return np.where(inside, terms, 0.0).sum(axis=1) + gamma ** buffer.lengths * V[end]


# --- the public run ------------------------------------------------------------------------------


@dataclass(frozen=True)
class TabularRun:
    """One SBEED run. ``V`` (S,), ``theta`` and ``policy`` (S, A) at the end; per iteration
    (row 0 the initial point) ``v_error`` = sup_s |V_t(s) - V*_lam(s)| and ``objective`` =
    l_eta(V_t, pi_t) (single-step, exact, eq D.1); at ``checkpoints`` (iteration numbers) the
    iterates ``V_path``, ``policy_path`` and ``value`` = sum_s d(s) V^{pi_t}(s), the smoothed
    value of the current policy; ``value_star`` is the same for pi*_lam. Entries not yet
    computed (a partial result) are NaN; ``done`` counts finished iterations."""

    V: np.ndarray
    theta: np.ndarray
    policy: np.ndarray
    v_error: np.ndarray
    objective: np.ndarray
    checkpoints: np.ndarray
    V_path: np.ndarray
    policy_path: np.ndarray
    value: np.ndarray
    V_star: np.ndarray
    policy_star: np.ndarray
    value_star: float
    done: int
    eta: float
    lam: float
    k: int
    mode: str

    @property
    def history(self) -> np.ndarray:
        """The per-iteration distance sup_s |V_t(s) - V*_lam(s)| (``v_error``), row 0 initial."""
        return self.v_error


def sbeed_tabular(mdp: MDP, *, gamma: float, lam: float, eta: float, iterations: int, k: int = 1,
                  step_size: float | None = None, policy_step: float | None = None, mode: str = "auto",
                  batch_size: int = 32, buffer_size: int = 20_000, dual_every: int = 5,
                  decay: float | None = None, behaviour=None, state_weights=None, seed=None,
                  n_checkpoints: int = 100, progress=None) -> TabularRun:
    """Run SBEED (Algorithm 5 with a fixed behaviour policy, Sec 6.5's setting) on a finite MDP.

    Parameters
    ----------
    mdp : MDP
    gamma : float in [0, 1); lam : float > 0 (entropy weight); eta : float in [0, 1] (eta = 1
        cancels the variance bias, eta = 0 is PCL's surrogate).
    iterations : number of primal updates.
    k : rollout length (eq D.3); k > 1 needs ``mode="sampled"`` (chosen by "auto").
    step_size, policy_step : steps for V and for the logits theta (default 0.2; the policy's
        default is ``step_size``), preconditioned by 1 / d(s) (exact) or averaged over a state's
        visits in the batch (sampled).
    mode : "exact" (expected gradients, dual at its maximiser), "sampled" (a replay buffer of
        ``buffer_size`` k-step segments, minibatches of ``batch_size``, the tabular dual solved on
        the buffer every ``dual_every`` iterations, primal steps decayed as 1 / (1 + j / decay),
        ``decay`` = iterations / 10 by default), or "auto" (exact when k = 1).
    behaviour, state_weights : beta (S, A) and d (S,), uniform by default.
    seed : the initial V, theta (small random) and, sampled, the buffer and batches.
    progress : ``callable(fraction, message[, partial=TabularRun])``; raise
        ``dynamics.checks.Cancelled`` from it to stop.
    """
    mdp = check_mdp(mdp)
    gamma, lam, eta = _check_common(gamma, lam, eta)
    iterations = check_count("iterations", iterations)
    k = check_count("k", k, low=1, high=MAX_K)
    mode = check_choice("mode", mode, ("auto", "exact", "sampled"))
    if mode == "auto":
        mode = "exact" if k == 1 else "sampled"
    if step_size is None:
        step_size = 0.2
    step_v = check_positive("step_size", step_size)
    step_pi = step_v if policy_step is None else check_positive("policy_step", policy_step)
    if mode == "exact" and k != 1:
        raise ValueError(f"mode='exact' takes k = 1 only (multi-step runs on sampled segments), got k={k}")
    # the sampled mode's settings are checked whatever the mode (a bad value is refused even
    # where it would go unused)
    if isinstance(buffer_size, (int, np.integer)) and not isinstance(buffer_size, bool) \
            and buffer_size < 1:
        raise ValueError("buffer_size must be at least 1: the replay buffer is empty (got "
                         f"{buffer_size})")
    buffer_size = check_count("buffer_size", buffer_size, low=1, high=MAX_BUFFER)
    batch_size = check_count("batch_size", batch_size, low=1, high=100_000)
    dual_every = check_count("dual_every", dual_every, low=1, high=1_000_000)
    decay = iterations / 10 if decay is None else check_positive("decay", decay)
    n_checkpoints = check_count("n_checkpoints", n_checkpoints, low=1, high=10_000)
    progress = check_progress(progress)
    d, beta = _weights(mdp, behaviour, state_weights)
    rng = as_generator(seed)
    S, A = mdp.n_states, mdp.n_actions
    live = ~mdp.terminal
    star = soft_value_iteration(mdp, gamma=gamma, lam=lam)
    mu = d[:, None] * beta
    inv_d = np.where(live, 1.0 / np.where(live, d, 1.0), 0.0)
    V = np.where(live, 0.01 * rng.standard_normal(S), 0.0)
    theta = 0.01 * rng.standard_normal((S, A))
    buf = None
    if mode == "sampled":
        buf = sample_segments(mdp, buffer_size, k, behaviour=beta, state_weights=d, seed=rng)
        k_dual = dual_actions(S, A, k, buffer_size)
        slot = np.where(np.arange(k_dual)[None, :] < buf.lengths[:, None], buf.actions[:, :k_dual], A)
        code = (slot * (A + 1) ** np.arange(k_dual)).sum(axis=1).astype(np.int64)
        rho = np.zeros((S, (A + 1) ** k_dual))
        cell_count = np.zeros_like(rho)
        np.add.at(cell_count, (buf.states[:, 0], code), 1.0)

    v_error = np.full(iterations + 1, np.nan)
    obj = np.full(iterations + 1, np.nan)
    checkpoints = np.unique(np.linspace(0, iterations, n_checkpoints + 1).round().astype(np.int64))
    V_path = np.full((len(checkpoints), S), np.nan)
    pol_path = np.full((len(checkpoints), S, A), np.nan)
    value = np.full(len(checkpoints), np.nan)
    value_star = float(d @ star.V)
    v_error[0] = np.max(np.abs(V - star.V))

    def snapshot(done: int) -> TabularRun:
        return TabularRun(V=V.copy(), theta=theta.copy(), policy=policy_of(theta, lam),
                          v_error=v_error.copy(), objective=obj.copy(), checkpoints=checkpoints,
                          V_path=V_path.copy(), policy_path=pol_path.copy(), value=value.copy(),
                          V_star=star.V, policy_star=star.policy, value_star=value_star,
                          done=done, eta=eta, lam=lam, k=k, mode=mode)

    def record(c: int) -> None:
        pol = policy_of(theta, lam)
        V_path[c] = V
        pol_path[c] = pol
        value[c] = d @ policy_values(mdp, pol, gamma=gamma, lam=lam)

    record(0)
    # chunks between checkpoints, at most ~2,000 iterations so progress comes often
    done = 0
    for c in range(1, len(checkpoints)):
        target = checkpoints[c]
        while done < target:
            n = int(min(target - done, 2000))
            sl = slice(done + 1, done + n + 1)
            obj_chunk = np.empty(n)
            if mode == "exact":
                _exact_chunk(mdp.next_states, mdp.next_probs, mdp.R, live, mu, inv_d, V, theta,
                             star.V, gamma, lam, eta, step_v, step_pi, n, v_error[sl], obj_chunk)
            else:
                batches = rng.integers(0, buf.size, size=(n, batch_size))
                _sampled_chunk(buf.states, buf.actions, buf.rewards, buf.lengths, code, cell_count,
                               batches, mdp.next_states, mdp.next_probs, mdp.R, live, mu, V,
                               theta, rho, star.V, gamma, lam, eta, step_v, step_pi, done, decay,
                               dual_every, v_error[sl], obj_chunk)
            obj[done:done + n] = obj_chunk
            done += n
            if not (np.all(np.isfinite(V)) and np.all(np.isfinite(theta))
                    and np.max(np.abs(V)) < 1e12):
                raise ValueError(
                    f"SBEED diverged at iteration {done} (step_size={step_v}, policy_step={step_pi}): "
                    "take smaller steps"
                )
        record(c)
        if progress is not None:
            report(progress, done / iterations,
                   f"SBEED eta={eta:g}: iteration {done:,} of {iterations:,}", partial=snapshot(done))
    obj[iterations] = objective(mdp, V, theta, gamma=gamma, lam=lam, eta=eta, behaviour=beta,
                                state_weights=d)
    return snapshot(iterations)


def _warmup() -> None:
    from .mdp import risky_choice

    mdp = risky_choice()
    sbeed_tabular(mdp, gamma=0.9, lam=0.1, eta=0.5, iterations=3, n_checkpoints=1)
    sbeed_tabular(mdp, gamma=0.9, lam=0.1, eta=0.5, iterations=3, k=2, buffer_size=8,
                  batch_size=2, n_checkpoints=1)
