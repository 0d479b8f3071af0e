"""The exact restart sampler of Prop 3.2 (Steinhardt & Liang): draws from the restarted chain's
stationary law pi~ without burn-in, raced against the plain chain with the same budget.
Conventions: see ``dynamics.doeblin``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from dynamics.checks import as_generator, check_count
from dynamics.doeblin.builders import three_state_chain
from dynamics.doeblin.chains import (_check_chain_and_law, _check_eps, _restart_stationary,
                                     stationary)

__all__ = ["MAX_SAMPLE_TRANSITIONS", "MAX_SAMPLE_DRAWS", "RestartSample", "sample_restart"]

#: Cap on the transitions (restart draws plus the plain chain's steps) of one `sample_restart`.
MAX_SAMPLE_TRANSITIONS = 25_000_000
#: Cap on the number of exact draws of one `sample_restart` call.
MAX_SAMPLE_DRAWS = 10_000_000


# ============================================================== exact sampling (Prop 3.2)


@dataclass(frozen=True)
class RestartSample:
    """Exact draws from pi~ and a plain chain with the same budget (Prop 3.2's sampler).

    Cost is counted in *steps*: one draw from u or one transition of P is one step. Draw i costs
    ``lengths[i] + 1`` steps (one draw from u, then T_i transitions), which is exactly a stretch
    of a trajectory of P~ between restarts; the plain chain gets the same total ``steps``.

    Attributes
    ----------
    draws : ndarray of int64, shape (n,)
        The exact draws from pi~ (the state after T_i transitions from y_0 ~ u).
    lengths : ndarray of int64, shape (n,)
        T_i ~ Geometric(eps), P[T = j] = eps (1 - eps)^j, j >= 0 (the paper's footnote 1).
    path : ndarray of int64, shape (steps + 1,)
        The plain chain P from ``start``: ``path[0] == start``, then one state per step.
    checkpoints : ndarray of int64, shape (n_checkpoints,)
        Steps spent, increasing, from the completion of the first draw to ``steps``.
    completed : ndarray of int64, shape (n_checkpoints,)
        Number of exact draws completed within each checkpoint's budget (>= 1).
    restart_histograms : ndarray (n_checkpoints, n_states)
        Empirical law of the completed draws at each checkpoint.
    plain_histograms : ndarray (n_checkpoints, n_states)
        Empirical law of ``path[1 : c + 1]`` (the states visited by the plain chain) at c steps.
    restart_law : ndarray (n_states,)
        pi~ (Prop 3.2), what the draws estimate.
    stationary_law : ndarray (n_states,)
        pi, what the plain chain's visits estimate in the long run.
    restart_tv : ndarray (n_checkpoints,)
        Total variation between ``restart_histograms`` and pi~.
    restart_tv_pi : ndarray (n_checkpoints,)
        Total variation between ``restart_histograms`` and pi.
    plain_tv : ndarray (n_checkpoints,)
        Total variation between ``plain_histograms`` and pi.
    eps : float
    start : int
    steps : int
        Total steps of both samplers, sum(lengths + 1).
    """

    draws: np.ndarray
    lengths: np.ndarray
    path: np.ndarray
    checkpoints: np.ndarray
    completed: np.ndarray
    restart_histograms: np.ndarray
    plain_histograms: np.ndarray
    restart_law: np.ndarray
    stationary_law: np.ndarray
    restart_tv: np.ndarray
    restart_tv_pi: np.ndarray
    plain_tv: np.ndarray
    eps: float
    start: int
    steps: int


def _cumulative_rows(M: np.ndarray) -> np.ndarray:
    """Row-wise CDFs whose last entry is exactly 1.0 (and trailing zero-probability states too),
    so that a uniform r in [0, 1) never selects a state of probability 0."""
    cum = np.cumsum(M, axis=-1)
    cum /= cum[..., -1:]
    return np.ascontiguousarray(cum)


@njit(cache=True, nogil=True)
def _draw(cum, r):
    """Index of the first entry of the CDF ``cum`` exceeding r (np.searchsorted side='right')."""
    lo = 0
    hi = cum.size - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if cum[mid] > r:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True, nogil=True)
def _restart_draws_kernel(cum_P, cum_u, lengths, seed, checkpoints, draws, hist):
    """Exact draws (Prop 3.2): y_0 ~ u, then lengths[i] steps of P. Random numbers: for each draw,
    one uniform for y_0 then one per step. hist[c] counts the draws completed within
    checkpoints[c] steps (draw i completes after sum_{k<=i} (lengths[k] + 1) steps)."""
    np.random.seed(seed)
    n_states = cum_u.size
    counts = np.zeros(n_states, dtype=np.int64)
    spent = 0
    c = 0
    n_cp = checkpoints.size
    for i in range(lengths.size):
        y = _draw(cum_u, np.random.random())
        for _ in range(lengths[i]):
            y = _draw(cum_P[y], np.random.random())
        draws[i] = y
        spent += lengths[i] + 1
        while c < n_cp and checkpoints[c] < spent:
            hist[c, :] = counts
            c += 1
        counts[y] += 1
    while c < n_cp:
        hist[c, :] = counts
        c += 1


@njit(cache=True, nogil=True)
def _plain_chain_kernel(cum_P, start, seed, checkpoints, path, hist):
    """The plain chain: path[0] = start, path[t + 1] ~ P[path[t]], one uniform per step.
    hist[c] counts path[1 .. checkpoints[c]]."""
    np.random.seed(seed)
    counts = np.zeros(cum_P.shape[0], dtype=np.int64)
    y = start
    path[0] = y
    c = 0
    n_cp = checkpoints.size
    for t in range(1, path.size):
        y = _draw(cum_P[y], np.random.random())
        path[t] = y
        counts[y] += 1
        while c < n_cp and checkpoints[c] == t:
            hist[c, :] = counts
            c += 1


def sample_restart(P, u, eps: float, n: int, *, start: int = 0, n_checkpoints: int = 100,
                   seed=None) -> RestartSample:
    """n exact draws from pi~ (Prop 3.2), and the plain chain with the same budget for comparison.

    Prop 3.2 writes pi~ = sum_j eps (1 - eps)^j u^T P^j: a draw is "T ~ Geometric(eps), y_0 ~ u,
    then T steps of P" (Sec 2-3; Corcoran & Tweedie's exact sampler). The plain chain P runs from
    the fixed state ``start`` for the same total number of steps, sum_i (T_i + 1), so the two can
    race: the draws converge (in the number of draws) to pi~, without burn-in, at the Monte-Carlo
    rate; the plain chain's visits converge to pi, but only after the chain has mixed.

    Parameters
    ----------
    P : array (n_states, n_states)
        Row-stochastic matrix with a unique stationary law.
    u : array (n_states,)
        Restart law.
    eps : float
        Restart probability in (0, 1]; each draw costs 1 / eps steps on average.
    n : int
        Number of exact draws, in [1, 1e7]; the expected total n / eps must be at most
        ``MAX_SAMPLE_TRANSITIONS`` / 2.
    start : int, keyword-only
        Initial state of the plain chain.
    n_checkpoints : int, keyword-only
        Number of (geometrically spaced) budgets at which both histograms are recorded, in
        [1, 10000].
    seed : int, numpy Generator or None, keyword-only
        Randomness; the same seed gives the same output.

    Returns
    -------
    RestartSample
    """
    P, u = _check_chain_and_law(P, u)
    eps = _check_eps(eps)
    n = check_count("n", n, high=MAX_SAMPLE_DRAWS)
    n_states = P.shape[0]
    start = check_count("start", start, low=0, high=n_states - 1)
    n_checkpoints = check_count("n_checkpoints", n_checkpoints, high=10_000)
    if n / eps > MAX_SAMPLE_TRANSITIONS / 2:
        raise ValueError(
            f"n / eps = {n / eps:.3g} expected steps is too many (at most "
            f"{MAX_SAMPLE_TRANSITIONS // 2}); lower n or raise eps"
        )
    rng = as_generator(seed)
    pi = stationary(P)
    pi_tilde = _restart_stationary(P, u, eps)
    lengths = (rng.geometric(eps, size=n) - 1).astype(np.int64)
    steps = int(lengths.sum()) + n
    if steps > MAX_SAMPLE_TRANSITIONS:  # a rare excursion of the geometric sum: refuse, not hang
        raise ValueError(
            f"the {n} draws need {steps} steps, more than MAX_SAMPLE_TRANSITIONS = "
            f"{MAX_SAMPLE_TRANSITIONS}; lower n or raise eps"
        )
    seeds = rng.integers(0, 2**32, size=2)
    first = int(lengths[0]) + 1
    checkpoints = np.unique(
        np.round(np.geomspace(first, steps, n_checkpoints)).astype(np.int64)
    )
    cum_P = _cumulative_rows(P)
    cum_u = _cumulative_rows(u[None, :])[0]
    draws = np.empty(n, dtype=np.int64)
    rhist = np.zeros((checkpoints.size, n_states), dtype=np.int64)
    _restart_draws_kernel(cum_P, cum_u, lengths, int(seeds[0]), checkpoints, draws, rhist)
    path = np.empty(steps + 1, dtype=np.int64)
    phist = np.zeros((checkpoints.size, n_states), dtype=np.int64)
    _plain_chain_kernel(cum_P, start, int(seeds[1]), checkpoints, path, phist)
    completed = rhist.sum(axis=1)
    rlaw = rhist / completed[:, None]
    plaw = phist / checkpoints[:, None].astype(np.float64)
    return RestartSample(
        draws=draws,
        lengths=lengths,
        path=path,
        checkpoints=checkpoints,
        completed=completed,
        restart_histograms=rlaw,
        plain_histograms=plaw,
        restart_law=pi_tilde,
        stationary_law=pi,
        restart_tv=0.5 * np.abs(rlaw - pi_tilde).sum(axis=1),
        restart_tv_pi=0.5 * np.abs(rlaw - pi).sum(axis=1),
        plain_tv=0.5 * np.abs(plaw - pi).sum(axis=1),
        eps=eps,
        start=start,
        steps=steps,
    )


def _warmup() -> None:
    P = three_state_chain(0.1)
    sample_restart(P, np.full(3, 1.0 / 3.0), 0.5, 4, n_checkpoints=2, seed=0)
