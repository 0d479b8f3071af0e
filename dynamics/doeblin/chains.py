"""Restarted (strong Doeblin) chains: eqs 1-3 and Props 3.1-3.5 of Steinhardt & Liang; the
example chains (Fig 1) are in ``builders``, the exact restart sampler in ``sampling``.
Conventions: see ``dynamics.doeblin``."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dynamics.checks import (
    MAX_STATES,
    check_array,
    check_in_range,
    check_positive,
    check_probability_vector,
    check_stochastic_matrix,
    kl_divergence,
)

__all__ = [
    "MAX_SWEEP_COST",
    "MAX_STAGED_STATES",
    "MAX_BOUND_HORIZON",
    "MIN_EPS",
    "restart_chain",
    "stationary",
    "restart_stationary",
    "second_eigenvalue",
    "spectral_gap",
    "is_reversible",
    "mahalanobis_distance",
    "RestartSpectrum",
    "restart_spectrum",
    "RestartSweep",
    "restart_sweep",
]

#: Cap on ``len(eps_grid) * n**3`` in `restart_sweep` (one eigen-decomposition per eps).
MAX_SWEEP_COST = 1_000_000_000
#: Cap on the states of a joint staged chain (dense eigen-decomposition).
MAX_STAGED_STATES = 2048
#: Cap on the horizon b of `staged_gap_bound`.
MAX_BOUND_HORIZON = 20_000
#: Tolerance of the residual check of `stationary`.
_STATIONARY_ATOL = 1e-9


# ============================================================== checks


#: Smallest restart probability: below it I - (1 - eps) P^T is singular to working precision.
MIN_EPS = 1e-12


def _check_eps(eps, name: str = "eps") -> float:
    """The restart probability: eq 1 needs eps in (0, 1] (eps = 0 is the plain chain); here at
    least ``MIN_EPS``."""
    return check_in_range(name, eps, MIN_EPS, 1.0)


def _check_chain_and_law(P, u):
    P = check_stochastic_matrix("P", P)
    if P.shape[0] > MAX_STATES:
        raise ValueError(f"P must have at most {MAX_STATES} states, got {P.shape[0]}")
    u = check_probability_vector("u", u, size=P.shape[0])
    return P, u


def _check_chain(P, name: str = "P") -> np.ndarray:
    P = check_stochastic_matrix(name, P)
    if P.shape[0] > MAX_STATES:
        raise ValueError(f"{name} must have at most {MAX_STATES} states, got {P.shape[0]}")
    return P


# ============================================================== closed forms (Sec 2-3)


def restart_chain(P, u, eps: float) -> np.ndarray:
    """The strong Doeblin chain P~ = (1 - eps) P + eps 1 u^T (eqs 1-2).

    With probability eps the chain restarts from u (independently of the current state),
    otherwise it moves by P. This is eq 2 of Steinhardt & Liang, A~ = (1 - eps) A + eps u 1^T,
    written for row-stochastic matrices (A = P^T, see the module docstring).

    Parameters
    ----------
    P : array (n, n)
        Row-stochastic transition matrix, ``P[i, j] = P(next = j | now = i)``.
    u : array (n,)
        Restart law.
    eps : float
        Restart probability in (0, 1].

    Returns
    -------
    ndarray (n, n)
        The row-stochastic matrix P~.
    """
    P, u = _check_chain_and_law(P, u)
    eps = _check_eps(eps)
    return (1.0 - eps) * P + eps * u[None, :]


def _closed_classes(P: np.ndarray) -> list[np.ndarray]:
    """Closed communicating classes of the directed graph i -> j where P[i, j] > 0."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    n_comp, labels = connected_components(csr_matrix(P > 0), directed=True, connection="strong")
    leaves = np.zeros(n_comp, dtype=bool)
    rows, cols = np.nonzero(P > 0)
    leaves[labels[rows][labels[rows] != labels[cols]]] = True
    return [np.flatnonzero(labels == c) for c in range(n_comp) if not leaves[c]]


def stationary(P) -> np.ndarray:
    """The stationary law pi of P: pi P = pi, sum(pi) = 1, by one linear solve.

    Solves (I - P^T) pi = 0 with one (redundant) row replaced by sum(pi) = 1: the rows of
    I - P^T sum to zero, so this system is non-singular exactly when the law is unique, i.e. when
    the graph of P has a single closed class (transient states get pi = 0). No power iteration,
    so slowly mixing chains (the paper's point) are solved as accurately as fast ones.

    Parameters
    ----------
    P : array (n, n)
        Row-stochastic matrix with a unique stationary law.

    Returns
    -------
    ndarray (n,)
        pi, non-negative, summing to 1.

    Raises
    ------
    ValueError
        If P is not row-stochastic, or has more than one closed class (several stationary laws).
    """
    P = _check_chain(P)
    n = P.shape[0]
    closed = _closed_classes(P)
    if len(closed) != 1:
        raise ValueError(
            f"P must have a unique stationary law, but its graph has {len(closed)} closed classes "
            f"(first states: {[int(c[0]) for c in closed[:5]]}); make it irreducible"
        )
    M = np.eye(n) - P.T
    M[-1, :] = 1.0
    rhs = np.zeros(n)
    rhs[-1] = 1.0
    pi = np.linalg.solve(M, rhs)
    pi = np.clip(pi, 0.0, None)
    pi /= pi.sum()
    residual = np.abs(pi @ P - pi).max()
    if not np.isfinite(residual) or residual > _STATIONARY_ATOL * max(1.0, n):
        raise ValueError(
            f"P is too close to having several stationary laws to solve for one: residual "
            f"{residual:.3g} of pi P = pi"
        )
    return pi


def restart_stationary(P, u, eps: float) -> np.ndarray:
    """Stationary law of the strong Doeblin chain, in closed form (Prop 3.2, eq 3).

    pi~ = eps sum_j (1 - eps)^j u^T P^j  =  eps u^T (I - (1 - eps) P)^{-1}, obtained by solving
    (I - (1 - eps) P^T) pi~ = eps u (no matrix inverse). The matrix is non-singular for every
    eps in (0, 1] because the spectral radius of (1 - eps) P is 1 - eps < 1. Paper (columns):
    pi~ = eps (I - (1 - eps) A)^{-1} u.

    Parameters
    ----------
    P : array (n, n)
        Row-stochastic matrix (any: irreducibility is not needed).
    u : array (n,)
        Restart law.
    eps : float
        Restart probability in (0, 1]; eps = 1 gives u.

    Returns
    -------
    ndarray (n,)
        pi~_eps.
    """
    P, u = _check_chain_and_law(P, u)
    eps = _check_eps(eps)
    return _restart_stationary(P, u, eps)


def _restart_stationary(P: np.ndarray, u: np.ndarray, eps: float, name="eps") -> np.ndarray:
    n = P.shape[0]
    try:
        pi = np.linalg.solve(np.eye(n) - (1.0 - eps) * P.T, eps * u)
    except np.linalg.LinAlgError as exc:  # named as the caller's argument (``name``)
        raise ValueError(f"{name} = {eps!r} leaves I - (1 - eps) P^T singular to working "
                         "precision: use a larger eps") from exc
    pi = np.clip(pi, 0.0, None)
    return pi / pi.sum()


def _moduli_sorted(P: np.ndarray) -> np.ndarray:
    eig = np.linalg.eigvals(P)
    return eig[np.argsort(-np.abs(eig), kind="stable")]


def second_eigenvalue(P) -> float:
    """|lambda_2(P)|: the second-largest eigenvalue modulus ("in complex norm", Sec 3).

    For a stochastic matrix lambda_1 = 1; if 1 is a repeated eigenvalue (several closed classes)
    or P is periodic, |lambda_2| = 1. A 1-state chain returns 0.
    """
    P = _check_chain(P)
    if P.shape[0] == 1:
        return 0.0
    return float(min(1.0, abs(_moduli_sorted(P)[1])))


def spectral_gap(P) -> float:
    """The spectral gap 1 - |lambda_2(P)| (Sec 3; Prop 3.1 bounds it for P~ by eps).

    Parameters
    ----------
    P : array (n, n)
        Row-stochastic matrix.

    Returns
    -------
    float
        1 - |lambda_2| in [0, 1]; the mixing time is O(1 / gap) (Levin et al. 12.4).
    """
    return 1.0 - second_eigenvalue(P)


def is_reversible(P, *, pi=None, atol: float = 1e-10) -> bool:
    """Detailed balance pi_i P[i, j] = pi_j P[j, i] (the hypothesis of Prop 3.5).

    ``pi`` defaults to ``stationary(P)``; ``atol`` is absolute on the flows pi_i P[i, j].
    """
    P = _check_chain(P)
    atol = check_positive("atol", atol, allow_zero=True)
    pi = stationary(P) if pi is None else check_probability_vector("pi", pi, size=P.shape[0])
    flow = pi[:, None] * P
    return bool(np.abs(flow - flow.T).max() <= atol)


def mahalanobis_distance(pi, q) -> float:
    """d_pi(q) = ||pi - q||_{diag(pi)^{-1}} = sqrt(-1 + sum_y q(y)^2 / pi(y)) (Prop 3.5).

    Returns ``inf`` if q puts mass where pi has none.
    """
    pi = check_probability_vector("pi", pi)
    q = check_probability_vector("q", q, size=pi.size)
    return _mahalanobis(pi, q)


def _mahalanobis(pi: np.ndarray, q: np.ndarray) -> float:
    if np.any((pi <= 0) & (q > 0)):
        return float("inf")
    m = pi > 0
    # sum (q - pi)^2 / pi, which equals -1 + sum q^2 / pi but without the cancellation
    return float(math.sqrt(np.sum((q[m] - pi[m]) ** 2 / pi[m])))


@dataclass(frozen=True)
class RestartSpectrum:
    """Spectrum of P and of P~ = (1 - eps) P + eps 1 u^T (Prop 3.1).

    Attributes
    ----------
    chain : ndarray of complex128, shape (n,)
        Eigenvalues of P, by decreasing modulus; ``chain[0]`` is the eigenvalue 1.
    predicted : ndarray of complex128, shape (n,)
        [1, (1 - eps) chain[1:]]: Prop 3.1 says these are the eigenvalues of P~.
    restart : ndarray of complex128, shape (n,)
        Eigenvalues of P~, computed directly and paired one-to-one with ``predicted`` (minimum
        total distance assignment).
    max_error : float
        max |restart - predicted|.
    gap : float
        Spectral gap of P~, 1 - |lambda_2(P~)|, from the computed eigenvalues.
    gap_chain : float
        Spectral gap of P.
    eps : float
        The restart probability; Prop 3.1: gap >= eps.
    """

    chain: np.ndarray
    predicted: np.ndarray
    restart: np.ndarray
    max_error: float
    gap: float
    gap_chain: float
    eps: float


def restart_spectrum(P, u, eps: float) -> RestartSpectrum:
    """Check Prop 3.1: lambda_1(P~) = 1, lambda_k(P~) = (1 - eps) lambda_k(P) for k > 1, gap >= eps.

    Why it holds for every stochastic P (not only ergodic ones): P 1 = 1, and P~ is the rank-one
    update (1 - eps) P + (eps 1) u^T along that right eigenvector, so by Brauer's theorem the
    eigenvalue (1 - eps) of (1 - eps) P moves to (1 - eps) + eps u^T 1 = 1 and all others stay.
    Hence |lambda_2(P~)| = (1 - eps) |lambda_2(P)| <= 1 - eps. If 1 is a repeated eigenvalue of
    P, only one copy moves. Defective (non-diagonalisable) P make numerical eigenvalues
    inaccurate, which shows up in ``max_error``.

    Parameters
    ----------
    P : array (n, n)
        Row-stochastic matrix.
    u : array (n,)
        Restart law.
    eps : float
        Restart probability in (0, 1].
    """
    from scipy.optimize import linear_sum_assignment

    P, u = _check_chain_and_law(P, u)
    eps = _check_eps(eps)
    chain = _moduli_sorted(P).astype(np.complex128)
    # chain[0] has modulus 1; make sure the copy moved to 1 is the eigenvalue closest to 1
    k = int(np.argmin(np.abs(chain - 1.0)))
    chain[[0, k]] = chain[[k, 0]]
    predicted = np.concatenate([[1.0 + 0j], (1.0 - eps) * chain[1:]])
    actual = np.linalg.eigvals((1.0 - eps) * P + eps * u[None, :]).astype(np.complex128)
    rows, cols = linear_sum_assignment(np.abs(predicted[:, None] - actual[None, :]))
    restart = np.empty_like(actual)
    restart[rows] = actual[cols]
    moduli = np.sort(np.abs(actual))[::-1]
    gap = 1.0 - min(1.0, float(moduli[1])) if P.shape[0] > 1 else 1.0
    gap_chain = 1.0 - min(1.0, float(np.sort(np.abs(chain))[::-1][1])) if P.shape[0] > 1 else 1.0
    return RestartSpectrum(
        chain=chain,
        predicted=predicted,
        restart=restart,
        max_error=float(np.abs(restart - predicted).max()),
        gap=gap,
        gap_chain=gap_chain,
        eps=eps,
    )


@dataclass(frozen=True)
class RestartSweep:
    """The strong Doeblin chain over a grid of restart probabilities (Props 3.1, 3.2, 3.4, 3.5).

    Attributes
    ----------
    eps : ndarray (n_eps,)
        The grid, in the order given.
    stationary : ndarray (n_eps, n)
        pi~_eps (Prop 3.2), row k for eps[k].
    pi : ndarray (n,)
        Stationary law of P (pi~_0).
    u : ndarray (n,)
        Restart law (pi~_1).
    kl_restart_pi : ndarray (n_eps,)
        KL(pi~_eps || pi) in nats. Prop 3.4: non-decreasing in eps.
    kl_pi_restart : ndarray (n_eps,)
        KL(pi || pi~_eps) in nats. Prop 3.4: non-decreasing in eps.
    gaps : ndarray (n_eps,)
        Spectral gap 1 - |lambda_2(P~_eps)| from the eigenvalues of P~_eps. Prop 3.1: >= eps.
    predicted_gaps : ndarray (n_eps,)
        1 - (1 - eps) |lambda_2(P)| (Prop 3.1's eigenvalue relation).
    mahalanobis : ndarray (n_eps,)
        d_pi(pi~_eps) (Prop 3.5).
    mahalanobis_bound : ndarray (n_eps,)
        eps / (1 - |lambda_2(P)|) d_pi(u), Prop 3.5's bound; a theorem when ``reversible``.
        ``inf`` where |lambda_2(P)| = 1.
    lambda2 : float
        |lambda_2(P)|.
    reversible : bool
        Whether P satisfies detailed balance with respect to pi (Prop 3.5's hypothesis).
    kl_monotone : bool
        Both KL curves are non-decreasing in eps (sorted), up to 1e-12 relative.
    bound_holds : bool
        d_pi(pi~_eps) <= bound (up to 1e-9 relative) at every eps.
    """

    eps: np.ndarray
    stationary: np.ndarray
    pi: np.ndarray
    u: np.ndarray
    kl_restart_pi: np.ndarray
    kl_pi_restart: np.ndarray
    gaps: np.ndarray
    predicted_gaps: np.ndarray
    mahalanobis: np.ndarray
    mahalanobis_bound: np.ndarray
    lambda2: float
    reversible: bool
    kl_monotone: bool
    bound_holds: bool


def _check_eps_grid(eps_grid, name: str = "eps_grid") -> np.ndarray:
    grid = check_array(name, eps_grid, ndim=1)
    if grid.size == 0 or grid.size > 10_000:
        raise ValueError(f"{name} must have between 1 and 10000 entries, got {grid.size}")
    if np.any(grid <= 0) or np.any(grid > 1):
        bad = grid[(grid <= 0) | (grid > 1)][0]
        raise ValueError(f"{name} entries must lie in (0, 1], got {bad!r}")
    return grid


def restart_sweep(P, u, eps_grid) -> RestartSweep:
    """pi~_eps, both KL divergences to pi, gaps and the Mahalanobis bound over a grid of eps.

    The quantities of Prop 3.1 (gap of P~ >= eps), Prop 3.2 (closed-form pi~), Prop 3.4
    (KL(pi~_eps || pi) and KL(pi || pi~_eps) monotone in eps) and Prop 3.5 (for reversible P,
    d_pi(pi~) <= eps / (1 - lambda_2(P)) d_pi(u)), ready to plot against eps. lambda_2 is taken in
    modulus, as the paper defines it in Sec 3; the proof needs exactly that: writing
    pi~ - pi = eps sum_j (1 - eps)^j (u - pi) P^j, each P^j contracts d_pi by |lambda_2|^j.

    Parameters
    ----------
    P : array (n, n)
        Row-stochastic matrix with a unique stationary law.
    u : array (n,)
        Restart law.
    eps_grid : array (n_eps,)
        Restart probabilities in (0, 1]. The cost is one eigen-decomposition of an n x n matrix
        per entry: ``len(eps_grid) * n**3`` must stay below 1e9.
    """
    P, u = _check_chain_and_law(P, u)
    grid = _check_eps_grid(eps_grid)
    n = P.shape[0]
    if grid.size * n**3 > MAX_SWEEP_COST:
        raise ValueError(
            f"eps_grid of {grid.size} points on {n} states needs {grid.size} eigen-decompositions "
            f"of {n} x {n} matrices; keep len(eps_grid) * n**3 <= {MAX_SWEEP_COST:.0e}"
        )
    pi = stationary(P)
    lam2 = second_eigenvalue(P)
    d_u = _mahalanobis(pi, u)
    stat = np.empty((grid.size, n))
    kl_a = np.empty(grid.size)
    kl_b = np.empty(grid.size)
    gaps = np.empty(grid.size)
    maha = np.empty(grid.size)
    for k, eps in enumerate(grid):
        s = _restart_stationary(P, u, float(eps), "eps (of eps_grid)")
        stat[k] = s
        kl_a[k] = kl_divergence(s, pi)
        kl_b[k] = kl_divergence(pi, s)
        maha[k] = _mahalanobis(pi, s)
        if n == 1:
            gaps[k] = 1.0
        else:
            moduli = np.sort(np.abs(np.linalg.eigvals((1.0 - eps) * P + eps * u[None, :])))
            gaps[k] = 1.0 - min(1.0, float(moduli[-2]))
    if lam2 < 1.0 and np.isfinite(d_u):
        bound = grid / (1.0 - lam2) * d_u
    else:
        bound = np.full(grid.size, np.inf)
    order = np.argsort(grid, kind="stable")

    def monotone(values):
        # non-decreasing; KL(pi || pi~_eps) is +inf at eps = 1 when u misses part of pi's support
        v = values[order]
        lo, hi = v[:-1], v[1:]
        return bool(np.all((hi == np.inf) | (hi >= lo - 1e-12 * np.maximum(1.0, np.abs(hi)))))

    return RestartSweep(
        eps=grid.copy(),
        stationary=stat,
        pi=pi,
        u=u.copy(),
        kl_restart_pi=kl_a,
        kl_pi_restart=kl_b,
        gaps=gaps,
        predicted_gaps=1.0 - (1.0 - grid) * lam2,
        mahalanobis=maha,
        mahalanobis_bound=bound,
        lambda2=lam2,
        reversible=is_reversible(P, pi=pi),
        kl_monotone=monotone(kl_a) and monotone(kl_b),
        bound_holds=bool(np.all(maha <= bound * (1 + 1e-9) + 1e-12)),
    )


# ============================================================== staged chains (Sec 3.1)


def _warmup() -> None:
    """No Numba kernels here (the restart sampler's are in ``sampling``)."""
