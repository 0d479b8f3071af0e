"""Staged chains (Sec 3.1 of Steinhardt & Liang): a stage variable cycles through restart,
simpler chains and P; the spectral-gap bounds of Thm 3.6 and Cor 3.7, and the three-stage
chain of Fig 2(b). Conventions: see ``dynamics.doeblin``."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from dynamics.checks import (
    MAX_STATES,
    check_array,
    check_count,
    check_in_range,
    check_probability_vector,
    check_stochastic_matrix,
    describe,
)

from dynamics.doeblin.chains import (MAX_BOUND_HORIZON, MAX_STAGED_STATES, _check_chain,
                                      _check_chain_and_law, _check_eps_grid, spectral_gap,
                                      stationary)

__all__ = [
    "restart_kernel",
    "cycle_stage_transition",
    "staged_chain",
    "stage_marginal",
    "cycle_gap_bound",
    "StagedGapBound",
    "staged_gap_bound",
    "StagedSweep",
    "staged_sweep",
    "StagedBounds",
    "staged_cycle_bounds",
]

def restart_kernel(u) -> np.ndarray:
    """The restart stage's kernel 1 u^T: identical rows, y' ~ u whatever y is (Sec 3.1, z*)."""
    u = check_probability_vector("u", u)
    if u.size > MAX_STATES:
        raise ValueError(f"u must have at most {MAX_STATES} entries, got {u.size}")
    return np.tile(u, (u.size, 1))


def cycle_stage_transition(deltas) -> np.ndarray:
    """The stage chain C of Cor 3.7: C[i, i] = 1 - delta_i, C[i, (i + 1) mod k] = delta_i.

    With deltas = (1, eps_1, eps_2) and stage 0 a restart this is the three-stage chain of
    Fig 2(b): one draw from u, ~1/eps_1 steps of A_1, ~1/eps_2 steps of A_2; with k = 2 and
    deltas = (1, eps) it is the strong Doeblin chain of eq 1 (Fig 2(a)).

    Parameters
    ----------
    deltas : array (k,)
        Leaving probabilities in (0, 1], k in [2, 64].
    """
    d = check_array("deltas", deltas, ndim=1)
    if not 2 <= d.size <= 64:
        raise ValueError(f"deltas must have between 2 and 64 entries, got {d.size}")
    if np.any(d <= 0) or np.any(d > 1):
        raise ValueError(f"deltas must lie in (0, 1], got {describe(d)}")
    k = d.size
    C = np.diag(1.0 - d)
    C[np.arange(k), (np.arange(k) + 1) % k] += d
    return C


def staged_chain(kernels, stage_transition) -> np.ndarray:
    """The joint chain of a staged strong Doeblin chain over (stage z, state y) (Sec 3.1).

    One step from (z, y): z' ~ C[z, :], then y' ~ kernels[z'][y, :]. The joint matrix is
    M[z n + y, z' n + y'] = C[z, z'] K_{z'}[y, y']. A stage whose kernel has identical rows (see
    `restart_kernel`) is a restart stage z*; with one, M is a staged strong Doeblin chain and
    Thm 3.6 / Cor 3.7 bound its spectral gap (`staged_gap_bound`, `cycle_gap_bound`).

    Parameters
    ----------
    kernels : array (k, n, n)
        Row-stochastic kernel A_z of each stage z.
    stage_transition : array (k, k)
        Row-stochastic stage chain C.

    Returns
    -------
    ndarray (k n, k n)
        The row-stochastic joint matrix, state (z, y) at index z * n + y.
    """
    K = check_array("kernels", kernels, ndim=3)
    k, n, n2 = K.shape
    if k == 0 or n == 0 or n != n2:
        raise ValueError(f"kernels must have shape (k, n, n) with k, n >= 1, got {K.shape}")
    if k * n > MAX_STAGED_STATES:
        raise ValueError(
            f"the joint chain has k * n = {k * n} states, more than {MAX_STAGED_STATES}"
        )
    for z in range(k):
        check_stochastic_matrix(f"kernels[{z}]", K[z])
    C = check_stochastic_matrix("stage_transition", stage_transition)
    if C.shape[0] != k:
        raise ValueError(f"stage_transition must have shape ({k}, {k}), got {C.shape}")
    return np.einsum("ab,bij->aibj", C, K).reshape(k * n, k * n)


def stage_marginal(law, n_stages: int) -> np.ndarray:
    """Marginal over y of a law on the joint (z, y) states (index z * n + y): shape (n,)."""
    law = check_probability_vector("law", law)
    n_stages = check_count("n_stages", n_stages, high=MAX_STAGED_STATES)
    if law.size % n_stages:
        raise ValueError(f"law of size {law.size} is not n_stages = {n_stages} times n")
    return law.reshape(n_stages, -1).sum(axis=0)


def cycle_gap_bound(deltas) -> float:
    """Cor 3.7's lower bound delta_{k-1} / 78 on the spectral gap of a cycle of stages.

    Cor 3.7: if C is the cycle of `cycle_stage_transition` (stage 0 the restart stage, entered
    from stage k - 1 at rate delta_{k-1}) and delta_{k-1} <= min(delta_0, ..., delta_{k-2}) /
    max(2, k - 1), the joint chain has spectral gap >= delta_{k-1} / 78, whatever the kernels of
    the other stages are.

    Raises
    ------
    ValueError
        If the hypothesis on the deltas does not hold (the corollary then says nothing).
    """
    C = cycle_stage_transition(deltas)  # validates
    d = np.asarray(deltas, dtype=float)
    k = d.size
    limit = d[:-1].min() / max(2, k - 1)
    if d[-1] > limit:
        raise ValueError(
            f"Cor 3.7 needs delta_(k-1) <= min(delta_0..delta_(k-2)) / max(2, k-1) = {limit:.6g}, "
            f"got delta_(k-1) = {d[-1]:.6g}"
        )
    del C
    return float(d[-1] / 78.0)


@dataclass(frozen=True)
class StagedGapBound:
    """Thm 3.6's spectral-gap bound gamma_{a,b} / b, maximised over a <= b <= horizon.

    Attributes
    ----------
    bound : float
        max over (a, b) of gamma_{a,b} / b, a lower bound on the joint chain's spectral gap.
    a, b : int
        The maximising times.
    gamma : float
        gamma_{a,b}: M^b has strong Doeblin parameter gamma (Thm 3.6).
    horizon : int
        Largest b tried.
    """

    bound: float
    a: int
    b: int
    gamma: float
    horizon: int


@njit(cache=True, nogil=True)
def _theorem36_kernel(C, zstar, horizon):
    """max_{1 <= a <= b <= horizon} gamma_{a,b} / b (Thm 3.6).

    For each start z, the law of z_a is row z of C^a; tau_a = a if z_a = z*, else the first
    later hit. beta_{a,s} = min_z P[tau_a = s | z_0 = z] and gamma_{a,b} = sum_{s=a}^b beta_{a,s}.
    """
    k = C.shape[0]
    Q = np.eye(k)  # row z: law of z_a given z_0 = z
    Qn = np.empty((k, k))
    V = np.empty((k, k))
    Vn = np.empty((k, k))
    best = 0.0
    best_a = 1
    best_b = 1
    best_gamma = 0.0
    for a in range(1, horizon + 1):
        for i in range(k):
            for j in range(k):
                acc = 0.0
                for m in range(k):
                    acc += Q[i, m] * C[m, j]
                Qn[i, j] = acc
        Q[:, :] = Qn
        V[:, :] = Q
        gamma = 0.0
        for s in range(a, horizon + 1):
            if s > a:
                for i in range(k):
                    for j in range(k):
                        acc = 0.0
                        for m in range(k):
                            acc += V[i, m] * C[m, j]
                        Vn[i, j] = acc
                V[:, :] = Vn
            beta = 1.0
            for z in range(k):
                beta = min(beta, V[z, zstar])
                V[z, zstar] = 0.0  # paths that hit z* at s are done
            gamma += beta
            if gamma / s > best:
                best = gamma / s
                best_a = a
                best_b = s
                best_gamma = gamma
    return best, best_a, best_b, best_gamma


def staged_gap_bound(stage_transition, *, restart_stage: int = 0,
                     horizon: int | None = None) -> StagedGapBound:
    """Thm 3.6: the spectral gap of a staged strong Doeblin chain is at least gamma_{a,b} / b.

    tau_a is the first time s >= a with z_s = z* (the restart stage),
    beta_{a,s} = min_z P[tau_a = s | z_0 = z] and gamma_{a,b} = sum_{s=a}^{b} beta_{a,s}; then M^b
    has strong Doeblin parameter gamma_{a,b} and the gap of M is >= gamma_{a,b} / b. The bound
    depends only on the stage chain C; it holds when kernels[restart_stage] has identical rows.
    a = b = 1 with C of a two-stage Doeblin chain gives eps (Prop 3.1). This function maximises
    over 1 <= a <= b <= horizon (cost horizon^2 k^2).

    Parameters
    ----------
    stage_transition : array (k, k)
        Row-stochastic stage chain C.
    restart_stage : int, keyword-only
        z*, the stage whose kernel is a restart.
    horizon : int, keyword-only
        Largest b; default min(20000, ceil(4 / p)) with p the smallest positive off-diagonal
        probability of C. At most 20000 (and k^2 horizon^2 <= 4e9).
    """
    C = check_stochastic_matrix("stage_transition", stage_transition)
    k = C.shape[0]
    if k > 64:
        raise ValueError(f"stage_transition must have at most 64 stages, got {k}")
    zstar = check_count("restart_stage", restart_stage, low=0, high=k - 1)
    if horizon is None:
        off = C[~np.eye(k, dtype=bool)]
        off = off[off > 0]
        horizon = int(min(MAX_BOUND_HORIZON, math.ceil(4.0 / off.min()))) if off.size else 1
    horizon = check_count("horizon", horizon, high=MAX_BOUND_HORIZON)
    if k * k * horizon * horizon > 4e9:
        raise ValueError(f"k^2 horizon^2 = {k * k * horizon * horizon:.3g} is too costly (<= 4e9)")
    bound, a, b, gamma = _theorem36_kernel(np.ascontiguousarray(C), zstar, horizon)
    return StagedGapBound(bound=float(bound), a=int(a), b=int(b), gamma=float(gamma),
                          horizon=horizon)


@dataclass(frozen=True)
class StagedSweep:
    """The three-stage chain of Fig 2(b) over a grid of restart rates eps_2 (Sec 3.1).

    Stages: 0 = restart (y' ~ u), 1 = the simpler chain A_1, 2 = the chain P; the stage chain is
    the cycle 0 -> 1 (always), 1 -> 2 (rate eps_1), 2 -> 0 (rate eps_2), i.e.
    ``cycle_stage_transition([1, eps_1, eps_2])``.

    Attributes
    ----------
    eps2 : ndarray (n_eps,)
        The grid of restart rates eps_2, in the order given.
    eps1 : float
        Rate of leaving the simpler stage.
    gaps : ndarray (n_eps,)
        Spectral gap of the joint chain on (stage, state).
    doeblin_gaps : ndarray (n_eps,)
        Spectral gap of the two-stage chain (1 - eps_2) P + eps_2 1 u^T of eq 2 (Fig 2(a)), for
        comparison (Prop 3.1: >= eps_2).
    marginals : ndarray (n_eps, n)
        Marginal over the states y of the joint chain's stationary law (all stages).
    """

    eps2: np.ndarray
    eps1: float
    gaps: np.ndarray
    doeblin_gaps: np.ndarray
    marginals: np.ndarray


def _check_staged_grid(eps1, eps2_grid) -> tuple[float, np.ndarray]:
    eps1 = check_in_range("eps1", eps1, 1e-3, 1.0)
    grid = _check_eps_grid(eps2_grid, "eps2_grid")
    if grid.size > 200:
        raise ValueError(f"eps2_grid must have at most 200 entries, got {grid.size}")
    if grid.min() < 1e-3:
        raise ValueError(f"eps2_grid entries must be >= 1e-3, got {grid.min()!r}")
    return eps1, grid


def staged_sweep(P, simple, u, eps1: float, eps2_grid) -> StagedSweep:
    """Spectral gap of the three-stage chain of Fig 2(b) over a grid of restart rates eps_2.

    One draw from u, then ~1 / eps_1 steps of the simpler chain ``simple`` (A_1), then
    ~1 / eps_2 steps of P (A_2), and again (Sec 3.1). For each eps_2 this builds the joint chain
    (as `staged_chain` does) and takes its spectral gap and stationary marginal; the two-stage
    chain of eq 2 with eps = eps_2 is given alongside. Thm 3.6 and Cor 3.7 bound these gaps
    whatever the kernels are: see `staged_cycle_bounds`.

    Parameters
    ----------
    P : array (n, n)
        Row-stochastic chain of the last stage (A_2), with a unique stationary law.
    simple : array (n, n)
        Row-stochastic chain of the middle stage (A_1).
    u : array (n,)
        Restart law.
    eps1 : float
        Rate of leaving the middle stage, in [1e-3, 1].
    eps2_grid : array (n_eps,)
        Restart rates in [1e-3, 1], at most 200 of them; cost: one eigen-decomposition of a
        3n x 3n matrix per entry (3 n <= 2048).
    """
    P, u = _check_chain_and_law(P, u)
    A1 = _check_chain(simple, "simple")
    if A1.shape != P.shape:
        raise ValueError(f"simple must have shape {P.shape}, got {A1.shape}")
    eps1, grid = _check_staged_grid(eps1, eps2_grid)
    n = P.shape[0]
    if 3 * n > MAX_STAGED_STATES:
        raise ValueError(f"the joint chain has 3 n = {3 * n} states, more than {MAX_STAGED_STATES}")
    kernels = np.stack([np.tile(u, (n, 1)), A1, P])
    gaps = np.empty(grid.size)
    doeblin_gaps = np.empty(grid.size)
    marginals = np.empty((grid.size, n))
    for k, eps2 in enumerate(grid):
        C = cycle_stage_transition([1.0, eps1, float(eps2)])
        M = np.einsum("ab,bij->aibj", C, kernels).reshape(3 * n, 3 * n)
        gaps[k] = spectral_gap(M)
        marginals[k] = stationary(M).reshape(3, n).sum(axis=0)
        doeblin_gaps[k] = spectral_gap((1.0 - eps2) * P + eps2 * u[None, :])
    return StagedSweep(eps2=grid.copy(), eps1=eps1, gaps=gaps, doeblin_gaps=doeblin_gaps,
                       marginals=marginals)


@dataclass(frozen=True)
class StagedBounds:
    """Lower bounds on the spectral gap of the Fig 2(b) cycle of stages, over eps_2.

    Attributes
    ----------
    eps2 : ndarray (n_eps,)
    eps1 : float
    theorem : ndarray (n_eps,)
        Thm 3.6: max_{a <= b} gamma_{a,b} / b (`staged_gap_bound`, default horizon).
    corollary : ndarray (n_eps,)
        Cor 3.7: eps_2 / 78 where its hypothesis eps_2 <= min(1, eps_1) / 2 holds, NaN elsewhere
        (the corollary then says nothing).
    """

    eps2: np.ndarray
    eps1: float
    theorem: np.ndarray
    corollary: np.ndarray


def staged_cycle_bounds(eps1: float, eps2_grid) -> StagedBounds:
    """Thm 3.6 and Cor 3.7 for the stage cycle restart -> A_1 (rate eps_1) -> A_2 (rate eps_2).

    Both bounds depend only on the stage chain ``cycle_stage_transition([1, eps1, eps2])``, not
    on the kernels, so they hold for every `staged_sweep` with the same rates. Thm 3.6's cost
    grows like 1 / min(eps_1, eps_2)^2 (about 0.2 s at 1e-3).

    Parameters
    ----------
    eps1 : float
        In [1e-3, 1].
    eps2_grid : array (n_eps,)
        In [1e-3, 1], at most 200 entries.
    """
    eps1, grid = _check_staged_grid(eps1, eps2_grid)
    theorem = np.empty(grid.size)
    corollary = np.full(grid.size, np.nan)
    for k, eps2 in enumerate(grid):
        deltas = [1.0, eps1, float(eps2)]
        theorem[k] = staged_gap_bound(cycle_stage_transition(deltas)).bound
        if eps2 <= min(1.0, eps1) / 2:
            corollary[k] = cycle_gap_bound(deltas)
    return StagedBounds(eps2=grid.copy(), eps1=eps1, theorem=theorem, corollary=corollary)


# ============================================================== learning and DNF (re-exported)


def _warmup() -> None:
    _theorem36_kernel(cycle_stage_transition([1.0, 0.5]), 0, 3)
