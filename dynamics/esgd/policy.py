"""Embedding-SGD for policy evaluation (Dai's thesis, Sec 5.3 eq 5.18 and Sec 5.6.2, Fig 5.3) on
a small finite MDP whose value is known exactly.

**The problem.** For a fixed policy pi, the value V^pi solves the Bellman equation
V = R_pi + gamma P_pi V. The mean square Bellman error of a value function V,

    MSBE(V) = E_s [ (E_{a, s' | s} [R(s, a) + gamma V(s') - V(s)])^2 ],

holds a conditional expectation inside the square: its stochastic gradient needs two
independent next states of one state (the "double sampling" problem). Eq 5.18 writes it as

    min_V max_u  E_{s, a, s'} [ u(s) Delta_V(s, a, s') ] - 1/2 E_s [ u(s)^2 ],
    Delta_V(s, a, s') = R(s, a) + gamma V(s') - V(s),

whose inner maximum is u*(s) = E[Delta_V | s] and whose value is MSBE(V) / 2: one transition
a step gives unbiased gradients of both sides (Algorithm 4).

**The methods** (one-sample transitions, minibatches of ``batch_size``, the step
gamma_i = eta / (eta0 + sqrt(i)) of ``step_size``, output the step-weighted average of the
iterates as Algorithm 4; linear values V(s) = theta . psi(s) on ``features`` psi):

- ``"embedding"``: Embedding-SGD with the dual u(s) = w . phi(s) on its own features phi; the
  default phi is one indicator a state (on a finite state space, the RKHS of the delta kernel:
  the dual is "nonparametric" and holds E[Delta | s] exactly). Steps:
  theta <- theta - gamma u(s) (gamma_mdp psi(s') - psi(s)); w <- w + gamma (Delta - u(s)) phi(s).
  Its fixed point is the MSBE minimiser over the linear values (``value_limits``).
- ``"gtd2"``: the same updates with phi = psi, gradient-TD2 (Sutton et al. 2009; the thesis's
  Remark in Sec 5.3 and appendix C.4): it minimises the projected Bellman error and converges
  to the TD fixed point.
- ``"rg"``: residual gradient with one sample (Baird 1995, the estimator the thesis quotes):
  theta <- theta - gamma Delta (gamma_mdp psi(s') - psi(s)); it minimises E[Delta^2] =
  MSBE + gamma_mdp^2 E Var[V(s') | s] + ..., biased when transitions are random.
- ``"td"``: TD(0), theta <- theta + gamma Delta psi(s) (reported; the thesis does not run it).

The thesis's benchmarks (navigation, cart-pole swing-up, PUMA-560) are continuous with kernel
functions; ours is a random finite MDP (Garnet, Archibald et al. 1995) where V^pi, the MSBE
and every method's limit are exact linear algebra.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..checks import (MAX_ABS, as_generator, check_array, check_choice, check_count,
                       check_in_range, check_instance, check_positive, check_progress,
                       check_stochastic_matrix, report)
from ..claims import Verdict, paired_difference, stated
from .algorithm import step_size
from .claims import ESGD_ALPHA, ESGD_MIN_RUNS, _critical, _outcome

__all__ = ["PE_METHODS", "PE_METHOD_NAMES", "FiniteMDP", "garnet", "state_features",
           "exact_value", "bellman_error", "value_limits", "PolicyRun", "policy_evaluation",
           "compare_policy_evaluation", "policy_evaluation_claim"]

#: The methods of ``policy_evaluation``.
PE_METHODS = ("embedding", "gtd2", "rg", "td")
PE_METHOD_NAMES = {"embedding": "Embedding-SGD", "gtd2": "GTD2", "rg": "RG", "td": "TD(0)"}
#: Largest state and action counts.
MAX_STATES = 2000
MAX_ACTIONS = 100


@dataclass(frozen=True)
class FiniteMDP:
    """A finite MDP with a fixed policy: ``transitions`` P[s, a, s'], ``rewards`` R[s, a] (the
    mean; a sampled reward adds N(0, ``reward_noise``^2)), ``policy`` pi[s, a], discount
    ``gamma``, and ``weights`` d[s], the law the states are sampled from (and the MSBE is
    weighted by)."""

    transitions: np.ndarray
    rewards: np.ndarray
    policy: np.ndarray
    gamma: float
    reward_noise: float
    weights: np.ndarray

    @property
    def P_pi(self) -> np.ndarray:
        """P_pi[s, s'] = sum_a pi(a | s) P(s' | s, a)."""
        return np.einsum("sa,sat->st", self.policy, self.transitions)

    @property
    def R_pi(self) -> np.ndarray:
        """R_pi[s] = sum_a pi(a | s) R(s, a)."""
        return np.einsum("sa,sa->s", self.policy, self.rewards)


def _check_mdp(mdp) -> FiniteMDP:
    return check_instance("mdp", mdp, FiniteMDP)


def garnet(states: int = 30, actions: int = 3, branching: int = 4, *, gamma: float = 0.9,
           reward_noise: float = 0.1, seed=None) -> FiniteMDP:
    """A Garnet MDP (Archibald, McKinnon & Thomas 1995): each (s, a) moves to ``branching``
    distinct states drawn at random, with probabilities from a uniform partition of [0, 1];
    mean rewards R(s, a) ~ U[0, 1]; the evaluated policy pi(. | s) ~ Dirichlet(1); states
    sampled uniformly."""
    S = check_count("states", states, low=2, high=MAX_STATES)
    A = check_count("actions", actions, low=1, high=MAX_ACTIONS)
    b = check_count("branching", branching, low=1, high=S)
    gamma = check_in_range("gamma", gamma, 0.0, 0.999)
    reward_noise = check_in_range("reward_noise", reward_noise, 0.0, 100.0)
    rng = as_generator(seed)
    P = np.zeros((S, A, S))
    for s in range(S):
        for a in range(A):
            to = rng.choice(S, size=b, replace=False)
            cuts = np.sort(rng.random(b - 1))
            P[s, a, to] = np.diff(np.r_[0.0, cuts, 1.0])
    return FiniteMDP(P, rng.random((S, A)), rng.dirichlet(np.ones(A), size=S), float(gamma),
                     float(reward_noise), np.full(S, 1.0 / S))


def state_features(states: int, dim: int, *, seed=None) -> np.ndarray:
    """Features psi (states, dim) for linear values: a constant column and dim - 1 columns
    N(0, 1 / (dim - 1)), all divided by sqrt 2 (so E ||psi(s)||^2 = 1, a step's size about the
    same in every state; the constant lets V carry its mean, about E R / (1 - gamma))."""
    S = check_count("states", states, low=1, high=MAX_STATES)
    d = check_count("dim", dim, low=1, high=MAX_STATES)
    rng = as_generator(seed)
    psi = np.column_stack([np.ones(S), rng.standard_normal((S, d - 1)) / np.sqrt(max(d - 1, 1))])
    return psi / np.sqrt(2.0) if d > 1 else psi


def exact_value(mdp: FiniteMDP) -> np.ndarray:
    """V^pi = (I - gamma P_pi)^-1 R_pi, the solution of the Bellman equation."""
    mdp = _check_mdp(mdp)
    S = len(mdp.R_pi)
    return np.linalg.solve(np.eye(S) - mdp.gamma * mdp.P_pi, mdp.R_pi)


def bellman_error(mdp: FiniteMDP, values) -> float:
    """MSBE(V) = sum_s d(s) (R_pi(s) + gamma (P_pi V)(s) - V(s))^2, exactly."""
    mdp = _check_mdp(mdp)
    V = check_array("values", values, shape=(len(mdp.weights),), max_abs=MAX_ABS)
    residual = mdp.R_pi + mdp.gamma * mdp.P_pi @ V - V
    return float(mdp.weights @ residual**2)


def _check_features(name: str, features, S: int) -> np.ndarray:
    f = check_array(name, features, ndim=2, max_abs=MAX_ABS)
    if f.shape[0] != S or f.shape[1] == 0:
        raise ValueError(f"{name} must have one row per state ({S}) and at least one column, "
                         f"got shape {f.shape}")
    return f


def value_limits(mdp: FiniteMDP, features) -> dict:
    """Where each method converges, by exact linear algebra (weights theta of V = psi theta):

    - ``"embedding"``: the MSBE minimiser, argmin_theta || D^1/2 (R_pi - (Psi - gamma P_pi
      Psi) theta) || (weighted least squares; Embedding-SGD with the indicator dual);
    - ``"gtd2"`` and ``"td"``: the TD fixed point, Psi^T D (Psi - gamma P_pi Psi) theta =
      Psi^T D R_pi;
    - ``"rg"``: the stationary point of the one-sample residual gradient,
      E[(psi - gamma psi')(psi - gamma psi')^T] theta = E[R (psi - gamma psi')] over
      s ~ d, a ~ pi, s' ~ P."""
    mdp = _check_mdp(mdp)
    S = len(mdp.weights)
    psi = _check_features("features", features, S)
    D = mdp.weights
    M = psi - mdp.gamma * mdp.P_pi @ psi
    sq = np.sqrt(D)[:, None]
    msbe = np.linalg.lstsq(sq * M, sq[:, 0] * mdp.R_pi, rcond=None)[0]
    td = np.linalg.lstsq(psi.T @ (D[:, None] * M), psi.T @ (D * mdp.R_pi), rcond=None)[0]
    # E over (s, a, s') of (psi(s) - gamma psi(s'))(...)^T and of R(s, a)(psi(s) - gamma psi(s'))
    joint = D[:, None, None] * mdp.policy[:, :, None] * mdp.transitions  # p(s, a, s')
    diff = psi[:, None, :] - mdp.gamma * psi[None, :, :]  # (s, s', d)
    p_ss = joint.sum(axis=1)
    A = np.einsum("st,sti,stj->ij", p_ss, diff, diff)
    b = np.einsum("sat,sa,sti->i", joint, mdp.rewards, diff)
    rg = np.linalg.lstsq(A, b, rcond=None)[0]
    return {"embedding": msbe, "gtd2": td, "td": td, "rg": rg}


@dataclass(frozen=True)
class PolicyRun:
    """A policy-evaluation run: the averaged weights ``theta`` (V = psi theta), and
    ``history``: ``iteration``, transitions ``seen``, the exact ``msbe`` of the averaged value
    and its squared distance to V^pi weighted by d (``value_error``) at log-spaced
    iterations."""

    method: str
    theta: np.ndarray
    history: dict


def policy_evaluation(mdp: FiniteMDP, features, *, method: str = "embedding",
                      dual_features=None, iterations: int = 2000, batch_size: int = 20,
                      eta: float = 1.0, eta0: float = 1.0, seed=None, checkpoints: int = 30,
                      progress=None) -> PolicyRun:
    """One run of ``method`` (module docstring: Embedding-SGD on the saddle point of eq 5.18,
    GTD2, residual gradient, TD(0)) on transitions sampled from ``mdp``: s ~ d, a ~ pi(. | s),
    s' ~ P(. | s, a), r = R(s, a) + noise, ``batch_size`` a step (Sec 5.6.2: 20), step
    eta / (eta0 + sqrt(i)) for both the value and the dual (Sec 5.6.2's grid: eta, eta0 in
    {0.1, 1, 10}). ``dual_features`` (Embedding-SGD only; default the indicators of the
    states)."""
    mdp = _check_mdp(mdp)
    S = len(mdp.weights)
    psi = _check_features("features", features, S)
    method = check_choice("method", method, PE_METHODS)
    if method == "embedding":
        phi = np.eye(S) if dual_features is None else _check_features("dual_features",
                                                                       dual_features, S)
    elif dual_features is not None:
        raise ValueError(f"dual_features is for method 'embedding' only, got method {method!r}")
    else:
        phi = psi
    iterations = check_count("iterations", iterations, low=1, high=10_000_000)
    m = check_count("batch_size", batch_size, low=1, high=100_000)
    eta = check_positive("eta", eta)
    eta0 = check_in_range("eta0", eta0, 0.0, 1e6)
    if eta > 1e6:
        raise ValueError(f"eta must be at most 1e6, got {eta:g}")
    checkpoints = check_count("checkpoints", checkpoints, low=1, high=10_000)
    progress = check_progress(progress)
    rng = as_generator(seed)
    V_true = exact_value(mdp)
    A = mdp.policy.shape[1]
    cum_policy = np.cumsum(mdp.policy, axis=1)
    cum_next = np.cumsum(mdp.transitions, axis=2)
    theta = np.zeros(psi.shape[1])
    w = np.zeros(phi.shape[1])
    avg = np.zeros_like(theta)
    weight_sum = 0.0
    marks = set(np.unique(np.r_[np.geomspace(1, iterations, max(2, checkpoints)).astype(int),
                                iterations]).tolist())
    history = {"iteration": [], "seen": [], "msbe": [], "value_error": []}
    every = max(1, iterations // 50)
    for i in range(1, iterations + 1):
        s = rng.choice(S, size=m, p=mdp.weights)
        a = np.minimum((cum_policy[s] < rng.random(m)[:, None]).sum(axis=1), A - 1)
        nxt = np.minimum((cum_next[s, a] < rng.random(m)[:, None]).sum(axis=1), S - 1)
        r = mdp.rewards[s, a] + mdp.reward_noise * rng.standard_normal(m)
        ps, pn = psi[s], psi[nxt]
        delta = r + mdp.gamma * pn @ theta - ps @ theta
        g = float(step_size(i, eta=eta, eta0=eta0))
        grad_dir = mdp.gamma * pn - ps  # d Delta / d theta
        if method in ("embedding", "gtd2"):
            u = phi[s] @ w
            theta = theta - g * (u @ grad_dir) / m
            w = w + g * ((delta - u) @ phi[s]) / m
        elif method == "rg":
            theta = theta - g * (delta @ grad_dir) / m
        else:
            theta = theta + g * (delta @ ps) / m
        if not np.all(np.abs(theta) < 1e8):
            raise ValueError(f"policy_evaluation diverged at iteration {i:,} ({method}): the "
                             f"step eta = {eta:g}, eta0 = {eta0:g} is too large; use a smaller "
                             "eta or a larger eta0")
        weight_sum += g
        avg += (g / weight_sum) * (theta - avg)
        if i in marks:
            V = psi @ avg
            history["iteration"].append(i)
            history["seen"].append(i * m)
            history["msbe"].append(bellman_error(mdp, V))
            history["value_error"].append(float(mdp.weights @ (V - V_true) ** 2))
        if i % every == 0 or i == iterations:
            report(progress, i / iterations, f"{PE_METHOD_NAMES[method]}: iteration {i:,}")
    return PolicyRun(method, avg.copy(), {k: np.asarray(v) for k, v in history.items()})


def compare_policy_evaluation(*, states: int = 30, actions: int = 3, branching: int = 4,
                              dim: int = 6, gamma: float = 0.9, iterations: int = 3000,
                              batch_size: int = 20, eta: float = 1.0, eta0: float = 1.0,
                              runs: int = 3, methods=PE_METHODS, seed=0,
                              progress=None) -> dict:
    """Sec 5.6.2 on Garnet MDPs: ``runs`` MDPs (and feature draws), each method run on each
    with the same constants. Returns dict(runs=[{method: PolicyRun}], mdps=[FiniteMDP],
    features=[psi], limits=[value_limits], exact=[V^pi], settings=...)."""
    runs = check_count("runs", runs, low=1, high=100)
    if isinstance(methods, str) or not isinstance(methods, (tuple, list)) or not methods \
            or not all(isinstance(k, str) and k in PE_METHODS for k in methods):
        raise ValueError(f"methods must be names from {PE_METHODS}, got {methods!r}")
    states = check_count("states", states, low=2, high=MAX_STATES)
    dim = check_count("dim", dim, low=1, high=states)
    progress = check_progress(progress)
    rng = as_generator(seed)
    out = dict(runs=[], mdps=[], features=[], limits=[], exact=[],
               settings=dict(states=states, actions=actions, branching=branching, dim=dim,
                             gamma=gamma, iterations=iterations, batch_size=batch_size,
                             eta=eta, eta0=eta0))
    total, done = runs * len(methods), 0
    for _ in range(runs):
        mdp = garnet(states, actions, branching, gamma=gamma, seed=rng)
        psi = state_features(states, dim, seed=rng)
        one = {}
        for method in methods:
            one[method] = policy_evaluation(mdp, psi, method=method, iterations=iterations,
                                            batch_size=batch_size, eta=eta, eta0=eta0,
                                            seed=rng)
            done += 1
            report(progress, done / total, f"{PE_METHOD_NAMES[method]} done ({done}/{total})")
        out["runs"].append(one)
        out["mdps"].append(mdp)
        out["features"].append(psi)
        out["limits"].append(value_limits(mdp, psi))
        out["exact"].append(exact_value(mdp))
    return out


@stated
def policy_evaluation_claim(result: dict) -> Verdict:
    """Dai, Sec 5.6.2 and Fig 5.3: "In all experiments, the proposed algorithm performs
    consistently better than the competitors" (GTD2, RG, kernel MDP) in mean square Bellman
    error.

    Rule, on ``result`` (``compare_policy_evaluation``), paired by MDP (every method on the
    same MDPs and features): for GTD2 and RG (those run), the mean over MDPs of
    log(its final MSBE / Embedding-SGD's) is above 0 by Student's t standard errors at
    ``ESGD_ALPHA`` (the log: MSBEs differ in scale from MDP to MDP). Both: reproduced; one
    below 0 by as many: differs; otherwise, or with fewer than ``ESGD_MIN_RUNS`` MDPs, not
    decided. In how many runs Embedding-SGD ends lowest, the distance to V^pi, TD(0) and each
    method's exact limit (``value_limits``: the MSBE of the point it converges to) are
    reported."""
    check_instance("result", result, dict)
    if "runs" not in result or not result["runs"] or "embedding" not in result["runs"][0]:
        raise ValueError("result must hold runs with method 'embedding' "
                         "(compare_policy_evaluation)")
    methods = list(result["runs"][0])
    runs = len(result["runs"])
    final = {m: np.array([run[m].history["msbe"][-1] for run in result["runs"]])
             for m in methods}
    value = {m: np.array([run[m].history["value_error"][-1] for run in result["runs"]])
             for m in methods}
    limit = {m: np.array([bellman_error(mdp, psi @ lim[m]) for mdp, psi, lim in
                          zip(result["mdps"], result["features"], result["limits"])])
             for m in methods}
    rivals = [m for m in methods if m in ("gtd2", "rg")]
    measured = ("final MSBE (mean over runs) " + ", ".join(
        f"{PE_METHOD_NAMES[m]} {final[m].mean():.2e} (its limit {limit[m].mean():.2e}; "
        f"d-weighted ‖V − V^π‖² {value[m].mean():.2e})" for m in methods)
        + f"; {runs} Garnet MDPs; Embedding-SGD lowest in "
        + ", ".join(f"{int(np.sum(final['embedding'] < final[m]))} of {runs} against "
                    f"{PE_METHOD_NAMES[m]}" for m in rivals))
    numbers = {**{f"{m}_msbe": float(final[m].mean()) for m in methods},
               **{f"{m}_limit": float(limit[m].mean()) for m in methods},
               **{f"{m}_value_error": float(value[m].mean()) for m in methods}}
    statement = ("Embedding-SGD performs consistently better than the competitors (GTD2, RG) "
                 "in mean square Bellman error.")
    stated_ = dict(effect="mean over MDPs of log(rival's final MSBE / Embedding-SGD's), GTD2 "
                          "and RG, paired by MDP",
                   rule=f"each above 0 by Student's t(1 − α/2, MDPs − 1) SE, α = "
                        f"{ESGD_ALPHA:g}, at least {ESGD_MIN_RUNS:g} MDPs",
                   thresholds={"ESGD_ALPHA": ESGD_ALPHA, "ESGD_MIN_RUNS": ESGD_MIN_RUNS})
    if not rivals or runs < ESGD_MIN_RUNS:
        return Verdict("Dai, Fig 5.3", statement, None, measured,
                       "neither GTD2 nor RG was run" if not rivals else
                       f"{runs} MDP(s): at least {ESGD_MIN_RUNS:g} are needed", numbers,
                       power="none: too few MDPs or no competitor", **stated_)
    crit = _critical(runs)
    checks, powers = [], []
    for m in rivals:
        d, se = paired_difference(np.log(final[m]), np.log(final["embedding"]))
        numbers[f"{m}_log_ratio"], numbers[f"{m}_log_ratio_se"] = d, se
        text = (f"log({PE_METHOD_NAMES[m]} / Embedding-SGD) {d:+.3f} ± {se:.3f} over {runs} "
                "MDPs")
        checks.append((_outcome(d, se, crit), f"{text}: {PE_METHOD_NAMES[m]} lower",
                       f"{text}, within {crit:.2f} SE"))
        powers.append(f"{PE_METHOD_NAMES[m]} {crit * se:.3f}")
    return Verdict.from_checks(
        "Dai, Fig 5.3", statement, checks, measured=measured, numbers=numbers,
        why="Embedding-SGD ends with a lower MSBE than GTD2 and RG, paired over the MDPs beyond "
            "their spread",
        power="smallest log MSBE ratio decided: " + ", ".join(powers), **stated_)
