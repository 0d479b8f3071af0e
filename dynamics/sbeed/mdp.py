"""Finite MDPs and their smoothed Bellman fixed points (Dai's thesis, Sec 6.3.1).

An MDP here is ``P`` (S, A, S), row-stochastic over next states, and the expected reward ``R``
(S, A). States marked ``terminal`` end an episode: their value is 0 by definition and their rows
of ``P`` are ignored (gymnasium's FrozenLake holes and goal). The smoothed Bellman operator
(eq 6.5) is

    (T_lam V)(s) = lam log sum_a exp((R(s, a) + gamma E_{s'|s,a} V(s')) / lam),

a gamma-contraction (Prop 24) whose fixed point V*_lam and the policy
pi*_lam(a | s) = exp((Q(s, a) - V*_lam(s)) / lam) satisfy the temporal consistency (6.6):
V(s) = R(s, a) + gamma E V(s') - lam log pi(a | s) for every (s, a). At lam = 0 the operator is
the ordinary Bellman optimality operator and the policy is greedy (ties shared equally).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..checks import (as_generator, check_array, check_choice, check_count, check_flag,
                       check_in_range, check_instance, check_positive)

__all__ = ["MAX_STATES", "MAX_ACTIONS", "MAX_LAM", "MDP", "garnet", "frozen_lake", "risky_choice",
           "check_mdp", "check_gamma", "check_lam", "SoftValues", "soft_max",
           "soft_value_iteration", "policy_values", "policy_entropy"]

#: Largest number of states a tabular MDP may have here (dense (S, A, S) arrays).
MAX_STATES = 2048
#: Largest number of actions.
MAX_ACTIONS = 64


@dataclass(frozen=True)
class MDP:
    """A finite MDP: ``P[s, a, s']`` (rows sum to 1), ``R[s, a]`` the expected reward, and the
    boolean ``terminal`` mask (value 0, never left; default none). ``sbeed.MDP(P, R)`` checks
    its inputs; ``next_states``/``next_probs`` are the sparse form the kernels walk (each row's
    non-zero transitions, padded with probability 0)."""

    P: np.ndarray
    R: np.ndarray
    terminal: np.ndarray = None  # type: ignore[assignment]
    name: str = "custom"

    def __post_init__(self):
        P = check_array("P", self.P, ndim=3)
        S, A, S2 = P.shape
        if S != S2 or S == 0 or A == 0:
            raise ValueError(f"P must have shape (S, A, S) with S, A >= 1, got shape {P.shape}")
        if S > MAX_STATES or A > MAX_ACTIONS:
            raise ValueError(
                f"P may have at most {MAX_STATES} states and {MAX_ACTIONS} actions, got {S} and {A}"
            )
        if np.any(P < 0):
            idx = np.unravel_index(np.argmin(P), P.shape)
            raise ValueError(f"P must have non-negative entries, got P{list(idx)} = {P[idx]!r}")
        sums = P.sum(axis=2)
        bad = np.argwhere(np.abs(sums - 1.0) > 1e-9)
        if bad.size:
            s, a = bad[0]
            raise ValueError(f"P[s, a, :] must sum to 1, P[{s}, {a}, :] sums to {sums[s, a]!r}")
        R = check_array("R", self.R, shape=(S, A))
        term = np.zeros(S, bool) if self.terminal is None else np.asarray(self.terminal, bool)
        if term.shape != (S,):
            raise ValueError(f"terminal must be a boolean vector of length {S}, got shape {term.shape}")
        if term.all():
            raise ValueError("terminal must leave at least one non-terminal state")
        object.__setattr__(self, "P", P)
        object.__setattr__(self, "R", R)
        object.__setattr__(self, "terminal", term)
        width = max(1, int((P > 0).sum(axis=2).max()))
        order = np.argsort(-P, axis=2, kind="stable")[:, :, :width]
        probs = np.take_along_axis(P, order, axis=2)
        object.__setattr__(self, "next_states", np.ascontiguousarray(order, dtype=np.int64))
        object.__setattr__(self, "next_probs", np.ascontiguousarray(probs))

    @property
    def n_states(self) -> int:
        return self.P.shape[0]

    @property
    def n_actions(self) -> int:
        return self.P.shape[1]

    @property
    def deterministic(self) -> bool:
        """True when every (s, a) of a non-terminal state has one next state."""
        live = ~self.terminal
        return bool(np.all((self.P[live] > 0).sum(axis=2) == 1))


def garnet(n_states: int, n_actions: int, branching: int, *, seed=None) -> MDP:
    """A random Garnet MDP (Archibald et al. 1995; the usual benchmark of tabular RL).

    Each (s, a) moves to ``branching`` distinct states drawn uniformly, with probabilities cut
    from [0, 1] by ``branching - 1`` uniform points; ``R(s, a)`` is uniform on [0, 1].
    ``branching = 1`` is deterministic: then the variance bias of eta = 0 vanishes.
    """
    S = check_count("n_states", n_states, low=2, high=MAX_STATES)
    A = check_count("n_actions", n_actions, low=1, high=MAX_ACTIONS)
    b = check_count("branching", branching, low=1, high=S)
    rng = as_generator(seed)
    P = np.zeros((S, A, S))
    for s in range(S):
        for a in range(A):
            nxt = rng.choice(S, size=b, replace=False)
            cuts = np.sort(rng.uniform(size=b - 1))
            P[s, a, nxt] = np.diff(np.concatenate(([0.0], cuts, [1.0])))
    R = rng.uniform(size=(S, A))
    return MDP(P, R, name=f"Garnet({S}, {A}, {b})")


def frozen_lake(map_name: str = "4x4", *, slippery: bool = True) -> MDP:
    """gymnasium's FrozenLake as an MDP, from the environment's own transition table ``env.P``.

    Holes and the goal are terminal (value 0); reaching the goal pays 1. With ``slippery`` the
    agent moves in the intended direction or either perpendicular one with probability 1/3 each.
    Actions: 0 left, 1 down, 2 right, 3 up; states are row-major grid cells.
    """
    from gymnasium.envs.toy_text.frozen_lake import MAPS, FrozenLakeEnv

    map_name = check_choice("map_name", map_name, tuple(MAPS))
    slippery = check_flag("slippery", slippery)
    env = FrozenLakeEnv(map_name=map_name, is_slippery=slippery)
    S, A = env.observation_space.n, env.action_space.n
    P = np.zeros((S, A, S))
    R = np.zeros((S, A))
    desc = np.asarray(env.desc, dtype="U1")
    terminal = np.isin(desc.ravel(), ["H", "G"])
    for s in range(S):
        for a in range(A):
            for prob, nxt, reward, _done in env.P[s][a]:
                P[s, a, nxt] += prob
                R[s, a] += prob * reward
    mdp = MDP(P, R, terminal=terminal, name=f"FrozenLake {map_name}{' slippery' if slippery else ''}")
    object.__setattr__(mdp, "grid", desc)
    return mdp


def risky_choice(*, gamma_hint: float = 0.9) -> MDP:
    """The 4-state teaching MDP of ../shared/seeds/NOTES.md (SBEED): in state 0, "safe" (action 0)
    goes to state 3 and "risky" (action 1) to state 1 or 2 with probability 1/2 each; from 1, 2
    and 3 both actions return to 0 paying +5, -3 and +1.05. The risky branch has the higher mean
    but a variance in V(s'); with gamma = 0.9 and lam = 0.1 the variance term of eta = 0
    (PCL's objective) tilts the learned policy. ``gamma_hint`` (a discount in [0, 1)) is checked
    and otherwise unused: the MDP does not depend on it.
    """
    check_in_range("gamma_hint", gamma_hint, 0.0, 1.0, high_open=True)
    P = np.zeros((4, 2, 4))
    P[0, 0, 3] = 1.0
    P[0, 1, 1] = P[0, 1, 2] = 0.5
    P[1:, :, 0] = 1.0
    R = np.zeros((4, 2))
    R[1], R[2], R[3] = 5.0, -3.0, 1.05
    return MDP(P, R, name="risky choice (4 states)")


def check_mdp(mdp) -> MDP:
    """``mdp`` when it is an ``MDP`` (build one with ``sbeed.MDP(P, R)``), else a TypeError."""
    return check_instance("mdp", mdp, MDP)


def check_gamma(gamma) -> float:
    """A discount in [0, 1)."""
    return check_in_range("gamma", gamma, 0.0, 1.0, high_open=True)


#: Largest entropy weight lam: values grow like lam log A / (1 - gamma).
MAX_LAM = 1e6


def check_lam(lam, *, allow_zero: bool = True) -> float:
    """An entropy weight lam >= 0 (> 0 unless ``allow_zero``), at most ``MAX_LAM``."""
    lam = check_positive("lam", lam, allow_zero=check_flag("allow_zero", allow_zero))
    if lam > MAX_LAM:
        raise ValueError(f"lam must be at most MAX_LAM = {MAX_LAM:g}, got {lam!r}")
    return lam


def _check_policy(name: str, policy, shape: tuple | None = None) -> np.ndarray:
    """A policy table (S, A): finite, non-negative, rows summing to 1 (within 1e-9)."""
    pi = check_array(name, policy, ndim=2, shape=shape)
    if pi.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {pi.shape}")
    if np.any(pi < 0) or np.any(np.abs(pi.sum(axis=1) - 1.0) > 1e-9):
        raise ValueError(f"{name} must have non-negative rows summing to 1, got {pi!r}")
    return pi


@dataclass(frozen=True)
class SoftValues:
    """V*_lam (S,), Q (S, A) = R + gamma P V, ``policy`` (S, A) = softmax(Q / lam) (greedy at
    lam = 0), and the number of sweeps it took."""

    V: np.ndarray
    Q: np.ndarray
    policy: np.ndarray
    sweeps: int


def soft_max(Q: np.ndarray, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise (lam log sum exp(Q / lam), softmax(Q / lam)); the hard max and a uniform choice
    among maximisers at lam = 0."""
    Q = check_array("Q", Q, ndim=2)
    if Q.size == 0:
        raise ValueError(f"Q must not be empty, got shape {Q.shape}")
    return _soft_max(Q, check_lam(lam))


def _soft_max(Q: np.ndarray, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """``soft_max`` without its checks, for callers that checked ``Q`` and ``lam`` once (value
    iteration: the checks cost more than the sweep on small MDPs)."""
    if lam == 0:
        top = Q.max(axis=1)
        best = np.isclose(Q, top[:, None], rtol=0, atol=1e-12)
        return top, best / best.sum(axis=1, keepdims=True)
    # lam log sum exp(Q / lam), shifted by the row max; written out rather than
    # scipy.special.logsumexp, whose per-call overhead (about 100 us) dominated value iteration
    # on small MDPs (1.2 s of a 1.5 s slider move on the page)
    top = Q.max(axis=1, keepdims=True)
    with np.errstate(over="ignore", under="ignore"):  # (Q - top) / lam <= 0: only underflow
        V = top[:, 0] + lam * np.log(np.exp((Q - top) / lam).sum(axis=1))
        return V, np.exp((Q - V[:, None]) / lam)


def soft_value_iteration(mdp: MDP, *, gamma: float, lam: float, tol: float = 1e-10,
                         max_sweeps: int = 1_000_000, V0=None) -> SoftValues:
    """Iterate the smoothed Bellman operator (eq 6.5) to its fixed point V*_lam (Prop 24).

    Stops when the sup-norm change is at most ``tol (1 - gamma) / gamma``, which bounds the
    distance to the fixed point by ``tol`` (contraction). ``lam = 0`` is ordinary value
    iteration. Terminal states keep V = 0. ``V0`` starts the iteration (a nearby lam's values
    save sweeps); the fixed point does not depend on it.
    """
    mdp = check_mdp(mdp)
    gamma = check_gamma(gamma)
    lam = check_lam(lam)
    tol = check_positive("tol", tol)
    max_sweeps = check_count("max_sweeps", max_sweeps)
    live = ~mdp.terminal
    V = np.zeros(mdp.n_states) if V0 is None else np.where(
        live, check_array("V0", V0, shape=(mdp.n_states,)), 0.0)
    threshold = tol * (1 - gamma) / max(gamma, 1e-300)
    for sweep in range(1, max_sweeps + 1):
        Q = mdp.R + gamma * (mdp.P @ V)
        new, _ = _soft_max(Q, lam)
        new = np.where(live, new, 0.0)
        change = np.max(np.abs(new - V))
        V = new
        if change <= threshold:
            break
    else:
        raise ValueError(f"soft value iteration did not reach tol={tol} in max_sweeps="
                         f"{max_sweeps} sweeps: allow more sweeps or a larger tol")
    Q = mdp.R + gamma * (mdp.P @ V)
    _, policy = _soft_max(Q, lam)
    return SoftValues(V=V, Q=Q, policy=policy, sweeps=sweep)


def policy_values(mdp: MDP, policy: np.ndarray, *, gamma: float, lam: float) -> np.ndarray:
    """The smoothed value of a fixed policy: V^pi = (I - gamma P_pi)^(-1) (r_pi + lam H_pi),
    the entropy bonus included, 0 on terminal states. Equals V*_lam at pi*_lam."""
    mdp = check_mdp(mdp)
    policy = _check_policy("policy", policy, (mdp.n_states, mdp.n_actions))
    gamma = check_gamma(gamma)
    lam = check_lam(lam)
    live = ~mdp.terminal
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = -np.sum(np.where(policy > 0, policy * np.log(policy), 0.0), axis=1)
    r = np.sum(policy * mdp.R, axis=1) + lam * ent
    Ppi = np.einsum("sa,sat->st", policy, mdp.P)
    Ppi[:, ~live] = 0.0
    M = np.eye(mdp.n_states) - gamma * Ppi
    V = np.zeros(mdp.n_states)
    V[live] = np.linalg.solve(M[np.ix_(live, live)], r[live])
    return V


def policy_entropy(policy: np.ndarray, weights: np.ndarray | None = None) -> float:
    """Mean entropy (nats) of the rows of a policy, weighted by ``weights`` (default uniform:
    non-negative, one per row, with a positive sum)."""
    policy = _check_policy("policy", policy)
    if weights is not None:
        weights = check_array("weights", weights, shape=(len(policy),))
        if np.any(weights < 0) or not weights.sum() > 0:
            raise ValueError(f"weights must be non-negative with a positive sum, got {weights!r}")
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = -np.sum(np.where(policy > 0, policy * np.log(policy), 0.0), axis=1)
    w = np.full(len(ent), 1 / len(ent)) if weights is None else weights / np.sum(weights)
    return float(np.dot(w, ent))
