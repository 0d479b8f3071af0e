"""The example chains of Steinhardt & Liang: the three-state chain of Fig 1 (Sec 2, "Simple
example"), random and barbell (two-cluster, slowly mixing) chains, and the restart laws u of
eq 2. Part of ``dynamics.doeblin``; see that package for the row-stochastic conventions.
"""

from __future__ import annotations

import numpy as np

from dynamics.checks import (
    MAX_STATES, as_generator, check_choice, check_count, check_flag, check_in_range,
)
from dynamics.doeblin.chains import _check_chain, stationary

__all__ = ["RESTART_LAWS", "three_state_chain", "random_chain", "barbell_chain", "restart_law"]


RESTART_LAWS = ("uniform", "point", "chain")


def three_state_chain(delta: float) -> np.ndarray:
    """The three-state chain of the paper's Fig 1 (Sec 2, "Simple example").

    Fig 1 is missing from the text; this is the chain that matches everything the text says
    (states 1, 2, 3 are indices 0, 1, 2)::

        1 -> 1: 1 - delta    1 -> 2: delta
        2 -> 1: 1/3          2 -> 3: 2/3
        3 -> 3: 1 - 2 delta  3 -> 2: 2 delta

    Its stationary law is [1, 3 delta, 1] / (2 + 3 delta) (detailed balance: pi_1 delta = pi_2 / 3
    and pi_3 2 delta = pi_2 2/3), and it is reversible. The modes 1 and 3 are left at rates
    delta and 2 delta, so it mixes in time ~ 1 / delta.

    "After a restart [from uniform u], the chain will more likely fall into state 3 than state 1
    (5/9 vs 4/9)": from state 2 the next state is 1 w.p. 1/3 and 3 w.p. 2/3 whatever delta is, so
    the probability that the chain started from u enters state 1 before state 3 is exactly
    1/3 + (1/3)(1/3) = 4/9 (and 3 before 1: 5/9) for every delta. As delta -> 0 the modes become
    absorbing and pi~_eps -> eps u + (1 - eps) [4/9, 0, 5/9] for each fixed eps; so in the regime
    delta << eps << 1 the restarted chain puts ~4/9 on state 1 instead of pi_1 ~ 1/2 (Fig 1,
    right), while for eps << delta it recovers pi (Prop 3.5).

    Parameters
    ----------
    delta : float
        In (0, 1/2] (so that 1 - 2 delta >= 0).
    """
    d = check_in_range("delta", delta, 0.0, 0.5, low_open=True)
    return np.array([
        [1.0 - d, d, 0.0],
        [1.0 / 3.0, 0.0, 2.0 / 3.0],
        [0.0, 2.0 * d, 1.0 - 2.0 * d],
    ])


def random_chain(n: int, *, sparsity: float = 0.0, reversible: bool = False,
                 seed=None) -> np.ndarray:
    """A random ergodic row-stochastic matrix on n states.

    Weights are uniform on [0, 1); a fraction ``sparsity`` of them is set to zero, except the
    self-loops and the cycle i -> i + 1 (mod n), which are kept positive so that the chain is
    irreducible and aperiodic. With ``reversible=True`` the weights (and zero pattern) are
    symmetrised, W = (W + W^T) / 2, and P = W / rowsum(W) is reversible with pi ~ rowsum(W)
    (the hypothesis of Prop 3.5).

    Parameters
    ----------
    n : int
        Number of states, in [2, MAX_STATES].
    sparsity : float, keyword-only
        Fraction of weights set to zero, in [0, 1).
    reversible : bool, keyword-only
    seed : int, Generator or None, keyword-only
    """
    n = check_count("n", n, low=2, high=MAX_STATES)
    sparsity = check_in_range("sparsity", sparsity, 0.0, 1.0, high_open=True)
    reversible = check_flag("reversible", reversible)
    rng = as_generator(seed)
    W = rng.random((n, n))
    W[rng.random((n, n)) < sparsity] = 0.0
    idx = np.arange(n)
    W[idx, idx] = np.maximum(W[idx, idx], 0.05) if sparsity > 0 else W[idx, idx] + 0.05
    nxt = (idx + 1) % n
    W[idx, nxt] = np.maximum(W[idx, nxt], 0.05)
    if reversible:
        W = 0.5 * (W + W.T)
    return W / W.sum(axis=1, keepdims=True)


def barbell_chain(cluster_size: int, *, bridge: float = 1e-3) -> np.ndarray:
    """Two dense clusters joined by one weak edge: a two-mode chain that mixes in ~ 1 / bridge.

    States 0 .. m-1 form cluster 1 and m .. 2m-1 cluster 2 (m = ``cluster_size``). Within a
    cluster every pair (and every self-loop) has weight 1; one edge joins the bridge states
    m - 1 and m, with the weight that makes the escape probability from each bridge state equal
    to ``bridge``. P = W / rowsum(W) with W symmetric, so P is reversible and
    pi ~ rowsum(W): both clusters carry mass 1/2.

    Parameters
    ----------
    cluster_size : int
        States per cluster, in [2, MAX_STATES // 2].
    bridge : float, keyword-only
        Probability of crossing from a bridge state, in (0, 1).
    """
    m = check_count("cluster_size", cluster_size, low=2, high=MAX_STATES // 2)
    b = check_in_range("bridge", bridge, 0.0, 1.0, low_open=True, high_open=True)
    W = np.zeros((2 * m, 2 * m))
    W[:m, :m] = 1.0
    W[m:, m:] = 1.0
    w = b * m / (1.0 - b)  # w / (m + w) = bridge
    W[m - 1, m] = W[m, m - 1] = w
    return W / W.sum(axis=1, keepdims=True)


def restart_law(kind: str, n: int, *, state: int = 0, chain=None) -> np.ndarray:
    """A restart law u for eq 1: "uniform", a "point" mass, or the stationary law of a "chain".

    Parameters
    ----------
    kind : {"uniform", "point", "chain"}
        "uniform": u = 1/n; "point": u = e_state; "chain": u = stationary(chain), the
        stationary law of a simpler (faster-mixing) chain, e.g. a barbell with a strong bridge
        or a tempered version of P (the paper's "simple tractable model").
    n : int
        Number of states.
    state : int, keyword-only
        The state of the point mass.
    chain : array (n, n), keyword-only
        Required for kind="chain".
    """
    kind = check_choice("kind", kind, RESTART_LAWS)
    n = check_count("n", n, high=MAX_STATES)
    # every argument is checked, also where ``kind`` leaves it unused
    state = check_count("state", state, low=0, high=n - 1)
    if chain is not None:
        C = _check_chain(chain, "chain")
        if C.shape[0] != n:
            raise ValueError(f"chain must have shape ({n}, {n}), got {C.shape}")
    if kind == "uniform":
        return np.full(n, 1.0 / n)
    if kind == "point":
        u = np.zeros(n)
        u[state] = 1.0
        return u
    if chain is None:
        raise ValueError('chain must be given for kind="chain", got None')
    return stationary(C)
