"""SBEED's objective on a finite MDP in closed form (Dai, Sec 6.3-6.4): the saddle objective
L_eta of eq 6.10 at the dual's maximiser rho*(s, a) = E_{s'} delta, i.e. l_eta of Prop 55 (eq
D.1), its gradients (Thm 27), and ``biased_fixed_point``, the minimiser of l_eta for eta < 1 by
L-BFGS (the point the SBEED iteration must reach; at eta = 1 it is the smoothed optimum of Prop
26). Parametrisation and equations: see ``tabular``, which runs the iteration and re-exports
every name here. Part of ``dynamics.sbeed``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit
from scipy.optimize import minimize

from ..checks import MAX_ABS, check_array, check_in_range
from .mdp import MDP, check_gamma, check_lam, check_mdp, soft_value_iteration

__all__ = ["policy_of", "objective", "gradients", "FixedPoint", "biased_fixed_point"]


# --- distributions and parameters ------------------------------------------------------------


def _weights(mdp: MDP, behaviour, state_weights) -> tuple[np.ndarray, np.ndarray]:
    """(d, beta): the state weights (0 on terminal states, summing to 1) and the behaviour."""
    S, A = mdp.n_states, mdp.n_actions
    live = ~mdp.terminal
    if state_weights is None:
        d = live / live.sum()
    else:
        d = check_array("state_weights", state_weights, shape=(S,))
        if np.any(d < 0) or d[live].sum() <= 0:
            raise ValueError("state_weights must be non-negative with a positive total on live states")
        d = np.where(live, d, 0.0)
        d = d / d.sum()
        if np.any(d[live] == 0):
            raise ValueError("state_weights must be positive on every non-terminal state (mu(s) > 0)")
    if behaviour is None:
        beta = np.full((S, A), 1.0 / A)
    else:
        beta = check_array("behaviour", behaviour, shape=(S, A))
        if np.any(beta < 0) or np.any(np.abs(beta.sum(axis=1) - 1) > 1e-9):
            raise ValueError("behaviour must be a policy: non-negative rows of shape (S, A) summing to 1")
    return d, beta


def policy_of(theta: np.ndarray, lam: float) -> np.ndarray:
    """pi = softmax(theta / lam), row-wise, for finite logits theta (S, A); at lam = 0 the limit,
    greedy with ties shared equally."""
    theta = _check_theta(theta)
    lam = check_lam(lam)
    if lam == 0:
        best = theta == theta.max(axis=1, keepdims=True)
        return best / best.sum(axis=1, keepdims=True)
    with np.errstate(under="ignore", over="ignore"):
        # shift before dividing: (theta - max) / lam <= 0 never overflows, even for tiny lam
        p = np.exp((theta - theta.max(axis=1, keepdims=True)) / lam)
    return p / p.sum(axis=1, keepdims=True)


def _check_theta(theta, shape: tuple | None = None) -> np.ndarray:
    theta = check_array("theta", theta, ndim=2, shape=shape, max_abs=MAX_ABS)
    if theta.size == 0:
        raise ValueError(f"theta must not be empty, got shape {theta.shape}")
    return theta


def _check_point(mdp: MDP, V, theta, rho=None):
    """(V, theta, rho) checked against the MDP's shapes (rho may be None)."""
    S, A = mdp.n_states, mdp.n_actions
    V = check_array("V", V, shape=(S,), max_abs=MAX_ABS)
    theta = _check_theta(theta, (S, A))
    if rho is not None:
        rho = check_array("rho", rho, shape=(S, A), max_abs=MAX_ABS)
    return V, theta, rho


def _lam_log_pi(theta: np.ndarray, lam: float) -> np.ndarray:
    top = theta.max(axis=1, keepdims=True)
    with np.errstate(under="ignore", over="ignore"):
        return (theta - top) - lam * np.log(np.exp((theta - top) / lam).sum(axis=1, keepdims=True))


# --- the exact objective and its gradients (NumPy, dense P: the reference) --------------------


def objective(mdp: MDP, V, theta, *, gamma: float, lam: float, eta: float, behaviour=None,
              state_weights=None, rho=None) -> float:
    """L_eta(V, pi; rho) of eq 6.10 in exact expectation; rho = None is the dual's maximiser
    (then this is l_eta of eq D.1)."""
    mdp = check_mdp(mdp)
    gamma, lam, eta = _check_common(gamma, lam, eta)
    V, theta, rho = _check_point(mdp, V, theta, rho)
    d, beta = _weights(mdp, behaviour, state_weights)
    V = np.where(mdp.terminal, 0.0, V)
    mu = d[:, None] * beta
    PV, PV2 = mdp.P @ V, mdp.P @ (V * V)
    mean_delta = mdp.R + gamma * PV - _lam_log_pi(theta, lam)
    e = mean_delta - V[:, None]
    var = gamma**2 * (PV2 - PV**2)
    if rho is None:
        return float(np.sum(mu * (e**2 + (1 - eta) * var)))
    return float(np.sum(mu * (e**2 + var - eta * ((mean_delta - rho) ** 2 + var))))


def gradients(mdp: MDP, V, theta, *, gamma: float, lam: float, eta: float, behaviour=None,
              state_weights=None, rho=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(grad_V, grad_theta, grad_rho) of L_eta(V, pi; rho) (Thm 27 in exact expectation; rho =
    None uses the dual's maximiser, where grad_rho = 0). Not preconditioned."""
    mdp = check_mdp(mdp)
    gamma, lam, eta = _check_common(gamma, lam, eta)
    V, theta, rho = _check_point(mdp, V, theta, rho)
    d, beta = _weights(mdp, behaviour, state_weights)
    V = np.where(mdp.terminal, 0.0, V)
    mu = d[:, None] * beta
    P = mdp.P
    PV = P @ V
    mean_delta = mdp.R + gamma * PV - _lam_log_pi(theta, lam)
    if rho is None:
        rho = mean_delta
    e = mean_delta - V[:, None]
    gap = mean_delta - rho
    # d/dV(t) of mu [e^2 + (1 - eta) gamma^2 Var - eta gap^2] (E over s' done in closed form)
    weight_next = mu * (2 * gamma * e - 2 * eta * gamma * gap)
    gV = np.einsum("sa,sat->t", weight_next, P)
    gV -= 2 * np.sum(mu * e, axis=1)
    gV += 2 * (1 - eta) * gamma**2 * (
        np.einsum("sa,sat->t", mu, P) * V - np.einsum("sa,sat->t", mu * PV, P)
    )
    gV[mdp.terminal] = 0.0
    pi = policy_of(theta, lam)
    w = mu * (e - eta * gap)
    gtheta = -2 * (w - pi * w.sum(axis=1, keepdims=True))
    grho = 2 * eta * mu * gap
    return gV, gtheta, grho


@dataclass(frozen=True)
class FixedPoint:
    """The minimiser of l_eta (eq D.1) found by L-BFGS: V, theta, policy and l_eta there."""

    V: np.ndarray
    theta: np.ndarray
    policy: np.ndarray
    objective: float


def biased_fixed_point(mdp: MDP, *, gamma: float, lam: float, eta: float, behaviour=None,
                       state_weights=None) -> FixedPoint:
    """Minimise l_eta(V, pi) = E[(E delta - V)^2] + (1 - eta) gamma^2 E Var[V(s')] (eq D.1) over
    tabular V and softmax pi by L-BFGS (the best of several starts: l_eta is not convex in pi). At eta = 1 this is (V*, pi*);
    at eta < 1 on a stochastic MDP it is the biased point SBEED (and PCL, eta = 0) converges to.
    """
    mdp = check_mdp(mdp)
    gamma, lam, eta = _check_common(gamma, lam, eta)
    S, A = mdp.n_states, mdp.n_actions
    star = soft_value_iteration(mdp, gamma=gamma, lam=lam)
    d, beta = _weights(mdp, behaviour, state_weights)
    mu = d[:, None] * beta
    live = ~mdp.terminal
    gV, gth, pi, llp = np.zeros(S), np.zeros((S, A)), np.zeros(A), np.zeros(A)

    def value_and_grad(V, th):  # the numba kernel (tested against ``objective``/``gradients``)
        V = np.where(live, V, 0.0)
        f = _exact_objective(mdp.next_states, mdp.next_probs, mdp.R, live, mu, V, th, gamma,
                             lam, eta, gV, gth, pi, llp)
        return f, np.concatenate([np.where(live, gV, 0.0), gth.ravel()])

    # the objective is O(1e-3) at small scales: scale it so L-BFGS's tolerances bite
    scale = 1.0 / max(value_and_grad(np.zeros(S), np.zeros((S, A)))[0], 1e-12)

    def fun(x):
        f, g = value_and_grad(x[:S], np.ascontiguousarray(x[S:].reshape(S, A)))
        return scale * f, scale * g

    # l_eta is not convex in theta (e = c - theta + lam log sum exp(theta / lam)): start from the
    # smoothed optimum, from V = theta = 0 and from a few seeded random points; keep the lowest.
    rng = np.random.default_rng(0)
    scale_v = max(1.0, float(np.max(np.abs(star.V))))
    starts = [np.concatenate([star.V, star.Q.ravel()]), np.zeros(S + S * A)]
    starts += [scale_v * rng.standard_normal(S + S * A) for _ in range(4)]
    res = None
    for x0 in starts:
        out = minimize(fun, x0, jac=True, method="L-BFGS-B",
                       options=dict(maxiter=20000, maxcor=30, ftol=1e-16, gtol=1e-12))
        if res is None or out.fun < res.fun:
            res = out
    V, th = res.x[:S].copy(), res.x[S:].reshape(S, A).copy()
    V[mdp.terminal] = 0.0
    return FixedPoint(V=V, theta=th, policy=policy_of(th, lam), objective=res.fun / scale)


def _check_common(gamma, lam, eta):
    gamma = check_gamma(gamma)
    lam = check_lam(lam, allow_zero=False)  # at most MAX_LAM
    eta = check_in_range("eta", eta, 0.0, 1.0)
    return gamma, lam, eta


# --- numba kernels -------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _soft(theta, lam, s, out_pi, out_llp):
    """Fill pi(. | s) and lam log pi(. | s) for state s; return lam log sum exp(theta / lam)."""
    A = theta.shape[1]
    top = theta[s, 0]
    for a in range(1, A):
        if theta[s, a] > top:
            top = theta[s, a]
    total = 0.0
    for a in range(A):
        out_pi[a] = math.exp((theta[s, a] - top) / lam)
        total += out_pi[a]
    lse = top + lam * math.log(total)
    for a in range(A):
        out_pi[a] /= total
        out_llp[a] = theta[s, a] - lse
    return lse


@njit(cache=True, nogil=True, fastmath=True)
def _exact_objective(nxt, prob, R, live, mu, V, theta, gamma, lam, eta, gV, gth, pi, llp):
    """l_eta and its gradients (rho = rho*), accumulated into gV, gth (zeroed here)."""
    S, A = R.shape
    B = nxt.shape[2]
    gV[:] = 0.0
    gth[:] = 0.0
    total = 0.0
    g2 = gamma * gamma
    for s in range(S):
        if not live[s]:
            continue
        _soft(theta, lam, s, pi, llp)
        we = 0.0
        for a in range(A):
            m1 = 0.0
            m2 = 0.0
            for j in range(B):  # padded entries have p = 0 (no break: lets the loop vectorise)
                p = prob[s, a, j]
                v = V[nxt[s, a, j]]
                m1 += p * v
                m2 += p * v * v
            e = R[s, a] + gamma * m1 - llp[a] - V[s]
            var = m2 - m1 * m1
            w = mu[s, a]
            total += w * (e * e + (1.0 - eta) * g2 * var)
            gV[s] -= 2.0 * w * e
            c1 = 2.0 * w * (gamma * e - (1.0 - eta) * g2 * m1)
            c2 = 2.0 * w * (1.0 - eta) * g2
            for j in range(B):
                t = nxt[s, a, j]
                p = prob[s, a, j]
                gV[t] += p * (c1 + c2 * V[t])
            gth[s, a] -= 2.0 * w * e
            we += w * e
        for a in range(A):
            gth[s, a] += 2.0 * pi[a] * we
    return total
