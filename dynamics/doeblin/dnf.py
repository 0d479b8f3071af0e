"""DNF formula search by staged strong Doeblin chains (Steinhardt & Liang, Sec 5, Table 1).

Re-exported by ``dynamics.doeblin``; Table 1's experiment over many problems is in
``dynamics.doeblin.dnf_table``.

Formulas are f(x) = OR_{i<n} AND_{j<m} [a_ij . x <= b_ij] with integer coefficients
a_ij in {-c..c}^d and bounds b_ij in {-B..B} (the paper uses c = B = 1, n = m = 3). Given
examples (x, label), the search looks for an f with zero errors I(f) = #{x : f(x) != label}.

All samplers are Metropolis-Hastings with symmetric proposals that edit one atom
[a_ij . x <= b_ij]: with probability 1/2 one entry of [a_ij b_ij] gets a new value (uniform over the
other values), otherwise all entries are redrawn uniformly. They differ by their stages (Sec 3.1):

- 0-stage: MH on the full cost I(f) from a random formula, no restarts.
- 1-stage: a strong Doeblin chain: each step restarts from a uniformly random formula with
  probability ``restart`` (default 0.0002), otherwise makes an MH step on I(f).
- 2-stage: the three-stage cycle of Fig 2(b): restart (uniform formula) -> simplified stage
  (MH on the per-disjunct cost, left with probability 0.04 per step, i.e. Geometric(0.04)
  steps) -> full stage (MH on I(f), restarting with probability 0.0002 per step).

The simplified cost decomposes over disjuncts: disjunct d pays ``big`` for each negative example
it accepts (then f would accept it too) and ``small`` for each positive example it rejects
(another disjunct may still accept it). Every step is one MH proposal or one restart; a run stops
at the first step where I(f) = 0.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from dynamics.checks import (
    as_generator,
    check_array,
    check_choice,
    check_count,
    check_in_range,
    check_instance,
    check_positive,
    describe,
)

__all__ = [
    "DNF_LEVELS",
    "DNF_LEVEL_COST",
    "DNF_TARGETS",
    "PAPER_EXAMPLE_LEVEL",
    "DNF_METHODS",
    "DNFProblem",
    "dnf_errors",
    "make_dnf_problem",
    "DNFSearchResult",
    "dnf_search",
]


DNF_METHODS = ("0-stage", "1-stage", "2-stage")

#: Target formulas spelled out in the paper. "paper": Sec 5's example
#: f(x) = [x_1 != 0] or [x_2 = x_3], as three disjuncts of at most two atoms each:
#: [x_1 <= -1], [-x_1 <= -1] and [x_2 - x_3 <= 0 and x_3 - x_2 <= 0] (coefficients for the
#: first three variables; further variables get 0).
DNF_TARGETS: dict[str, tuple[tuple, tuple]] = {
    "paper": (
        (((1, 0, 0),), ((-1, 0, 0),), ((0, 1, -1), (0, -1, 1))),
        ((-1,), (-1,), (0, 0)),
    ),
}
_STAGES = {"0-stage": 0, "1-stage": 1, "2-stage": 2}

#: Problems of increasing difficulty: the target formula's shape (disjuncts x atoms), the number
#: of variables, the search shape and the number of examples.
DNF_LEVELS: dict[str, dict] = {
    "easy": dict(n_vars=3, target_disjuncts=2, target_atoms=2, n_disjuncts=3, n_atoms=3,
                 n_examples=60),
    "medium": dict(n_vars=4, target_disjuncts=2, target_atoms=3, n_disjuncts=3, n_atoms=3,
                   n_examples=100),
    "hard": dict(n_vars=5, target_disjuncts=2, target_atoms=3, n_disjuncts=3, n_atoms=3,
                 n_examples=120),
    "harder": dict(n_vars=5, target_disjuncts=3, target_atoms=3, n_disjuncts=3, n_atoms=3,
                   n_examples=150),
}
#: Relative seconds of one trial (all three methods) per level of ``DNF_LEVELS``, measured at
#: the defaults (80 trials, seed 0: 0.06, 0.43, 2.3 and 22 s per level on the development
#: machine): they weigh ``dnf_experiment``'s progress fraction, so that a time left
#: extrapolated from it holds (with equal shares the easy half of the levels took 3 % of the
#: time). Custom levels weigh as much as "harder".
DNF_LEVEL_COST = {"easy": 0.003, "medium": 0.02, "hard": 0.1, "harder": 1.0}
#: The paper's example formula (``DNF_TARGETS["paper"]``) over five variables, the paper's
#: a_ij in {-1, 0, 1}^5, half the examples positive. Not in the page's table; the figures
#: command's Table 1 study uses it.
PAPER_EXAMPLE_LEVEL = dict(target="paper", n_vars=5, n_disjuncts=3, n_atoms=3, n_examples=80)


@dataclass(frozen=True)
class DNFProblem:
    """A consistent DNF inference problem (examples labelled by a hidden target formula).

    Attributes
    ----------
    inputs : ndarray of int64 (n_examples, n_vars)
    labels : ndarray of int64 (n_examples,)
        1 = True, 0 = False.
    n_disjuncts, n_atoms : int
        Shape n x m of the formulas searched.
    coef_range, bound_range : int
        a_ij in {-coef_range..coef_range}^d, b_ij in {-bound_range..bound_range}.
    target_coef : ndarray of int64 (n_t, m_t, n_vars)
    target_bound : ndarray of int64 (n_t, m_t)
        The formula that generated the labels (so a zero-error formula exists whenever the search
        shape is at least the target's).
    """

    inputs: np.ndarray
    labels: np.ndarray
    n_disjuncts: int
    n_atoms: int
    coef_range: int
    bound_range: int
    target_coef: np.ndarray
    target_bound: np.ndarray


def _evaluate_formula(coef: np.ndarray, bound: np.ndarray, X: np.ndarray) -> np.ndarray:
    atoms = np.einsum("ijk,ek->eij", coef, X) <= bound[None, :, :]
    return atoms.all(axis=2).any(axis=1)


def dnf_errors(coef, bound, problem: DNFProblem) -> int:
    """I(f): the number of examples the formula (coef (n, m, d), bound (n, m)) gets wrong."""
    problem = _check_problem(problem)
    coef = check_array("coef", coef, ndim=3, dtype=np.int64)
    bound = check_array("bound", bound, ndim=2, dtype=np.int64)
    if coef.shape[:2] != bound.shape or coef.shape[2] != problem.inputs.shape[1]:
        raise ValueError(f"coef {coef.shape} and bound {bound.shape} do not fit the problem")
    wrong = _evaluate_formula(coef, bound, problem.inputs) != problem.labels.astype(bool)
    return int(wrong.sum())


def make_dnf_problem(*, n_vars: int = 3, n_disjuncts: int = 2, n_atoms: int = 2,
                     target_disjuncts: int | None = None, target_atoms: int | None = None,
                     n_examples: int = 40, value_range: int = 3, coef_range: int = 1,
                     bound_range: int = 1, target: str | None = None,
                     seed=None) -> DNFProblem:
    """Draw a hidden target formula and distinct examples x in {-value_range..value_range}^d.

    Target atoms have non-zero coefficient vectors; the draw is repeated until between 25% and
    75% of the examples are positive, so that neither constant formula is close to a solution.

    ``target`` names a fixed formula of `DNF_TARGETS` instead (n_vars >= 3): the examples are
    then drawn half positive and half negative among the distinct inputs.
    """
    for name, value in (("target_disjuncts", target_disjuncts), ("target_atoms", target_atoms)):
        if value is not None:  # checked even when ``target`` makes them unused
            check_count(name, value, high=16)
    if target is not None:
        target = check_choice("target", target, tuple(DNF_TARGETS))
        return _fixed_target_problem(target, n_vars=n_vars, n_disjuncts=n_disjuncts,
                                     n_atoms=n_atoms, n_examples=n_examples,
                                     value_range=value_range, coef_range=coef_range,
                                     bound_range=bound_range, seed=seed)
    d = check_count("n_vars", n_vars, high=16)
    n = check_count("n_disjuncts", n_disjuncts, high=16)
    m = check_count("n_atoms", n_atoms, high=16)
    nt = n if target_disjuncts is None else check_count("target_disjuncts", target_disjuncts,
                                                         high=16)
    mt = m if target_atoms is None else check_count("target_atoms", target_atoms, high=16)
    if nt > n or mt > m:
        raise ValueError(
            f"the target shape ({nt} x {mt}) must fit in the search shape ({n} x {m}) so that a "
            "zero-error formula exists"
        )
    R = check_count("value_range", value_range, high=100)
    c = check_count("coef_range", coef_range, high=10)
    B = check_count("bound_range", bound_range, low=0, high=100)
    n_ex = check_count("n_examples", n_examples, low=2, high=10_000)
    if n_ex > (2 * R + 1) ** d:
        raise ValueError(f"n_examples = {n_ex} exceeds the {(2 * R + 1) ** d} distinct inputs")
    rng = as_generator(seed)
    for _ in range(10_000):
        flat = rng.choice((2 * R + 1) ** d, size=n_ex, replace=False)
        X = np.stack(np.unravel_index(flat, (2 * R + 1,) * d), axis=1).astype(np.int64) - R
        coef = rng.integers(-c, c + 1, size=(nt, mt, d))
        while np.any(zero := ~coef.any(axis=2)):
            coef[zero] = rng.integers(-c, c + 1, size=(int(zero.sum()), d))
        bound = rng.integers(-B, B + 1, size=(nt, mt))
        labels = _evaluate_formula(coef, bound, X)
        if 0.25 <= labels.mean() <= 0.75:
            return DNFProblem(inputs=X, labels=labels.astype(np.int64), n_disjuncts=n,
                              n_atoms=m, coef_range=c, bound_range=B,
                              target_coef=coef.astype(np.int64),
                              target_bound=bound.astype(np.int64))
    raise ValueError("could not draw a balanced problem with these settings")  # pragma: no cover


def _fixed_target_problem(target, *, n_vars, n_disjuncts, n_atoms, n_examples, value_range,
                          coef_range, bound_range, seed) -> DNFProblem:
    if target not in DNF_TARGETS:
        raise ValueError(f"target must be one of {tuple(DNF_TARGETS)}, got {describe(target)}")
    rows, bounds = DNF_TARGETS[target]
    width = max(len(a) for atoms in rows for a in atoms)
    d = check_count("n_vars", n_vars, low=width, high=16)
    n = check_count("n_disjuncts", n_disjuncts, high=16)
    m = check_count("n_atoms", n_atoms, high=16)
    mt = max(len(atoms) for atoms in rows)
    if len(rows) > n or mt > m:
        raise ValueError(f"the {target!r} formula needs {len(rows)} disjuncts of {mt} atoms; "
                         f"the search shape is {n} x {m}")
    R = check_count("value_range", value_range, high=100)
    n_ex = check_count("n_examples", n_examples, low=2, high=10_000)
    c = check_count("coef_range", coef_range, high=10)
    B = check_count("bound_range", bound_range, low=0, high=100)
    coef = np.zeros((len(rows), mt, d), dtype=np.int64)
    bound = np.zeros(coef.shape[:2], dtype=np.int64)  # padding atoms 0 <= 0 are always true
    for i, (atoms, bs) in enumerate(zip(rows, bounds)):
        for j, (a, b) in enumerate(zip(atoms, bs)):
            coef[i, j, :len(a)] = a
            bound[i, j] = b
    rng = as_generator(seed)
    # candidates: distinct inputs in random order; the first n_ex / 2 of each class are kept
    side = 2 * R + 1
    flat = rng.choice(side ** d, size=min(side ** d, 20 * n_ex), replace=False)
    X = np.stack(np.unravel_index(flat, (side,) * d), axis=1).astype(np.int64) - R
    labels = _evaluate_formula(coef, bound, X)
    pos = np.flatnonzero(labels)[: n_ex - n_ex // 2]
    neg = np.flatnonzero(~labels)[: n_ex // 2]
    if pos.size < n_ex - n_ex // 2 or neg.size < n_ex // 2:
        raise ValueError(f"could not draw {n_ex} balanced examples of {target!r} with "
                         f"value_range {R}")
    idx = np.sort(np.concatenate([pos, neg]))
    return DNFProblem(inputs=X[idx], labels=labels[idx].astype(np.int64), n_disjuncts=n,
                      n_atoms=m, coef_range=c, bound_range=B, target_coef=coef,
                      target_bound=bound)


# ============================================================== the MH kernel


@njit(cache=True, nogil=True)
def _randomize(coef, bound, c, B):
    """Uniform formula: every entry drawn in order (disjunct, atom, coefficients then bound)."""
    n, m, d = coef.shape
    for i in range(n):
        for j in range(m):
            for k in range(d):
                coef[i, j, k] = -c + int(np.random.random() * (2 * c + 1))
            bound[i, j] = -B + int(np.random.random() * (2 * B + 1))


@njit(cache=True, nogil=True)
def _rebuild(XT, labels, coef, bound, atom, nfalse, ntrue, simp, big, small):
    """Recompute every cache from scratch; returns I(f). Caches keep the examples innermost:
    atom[i, j, e], nfalse[i, e] (false atoms of disjunct i on example e), ntrue[e]."""
    d, n_ex = XT.shape
    n, m = bound.shape
    simp[:] = 0.0
    ntrue[:] = 0
    for i in range(n):
        nfalse[i, :] = 0
        for j in range(m):
            for e in range(n_ex):
                s = 0
                for k in range(d):
                    s += coef[i, j, k] * XT[k, e]
                v = 1 if s <= bound[i, j] else 0
                atom[i, j, e] = v
                nfalse[i, e] += 1 - v
        for e in range(n_ex):
            if nfalse[i, e] == 0:
                ntrue[e] += 1
                if labels[e] == 0:
                    simp[i] += big
            elif labels[e] == 1:
                simp[i] += small
    errors = 0
    for e in range(n_ex):
        f = 1 if ntrue[e] > 0 else 0
        if f != labels[e]:
            errors += 1
    return errors


@njit(cache=True, nogil=True)
def _dnf_search_kernel(X, labels, coef, bound, stages, restart, leave, beta, beta_simple,
                       c, B, big, small, max_steps, seed):
    """Staged MH search for a zero-error DNF (module docstring). Returns (steps, solved).

    Random numbers, in order: the initial formula (n m (d + 1)); then per step: the stage
    transition (one uniform whenever the stage chain has a choice: 1-stage in the full stage,
    2-stage in the simplified and full stages), then either a new formula (restart stage) or
    the proposal (atom, kind, then entry and new value, or d + 1 new values) and, only if the
    move raises the stage's cost, one acceptance uniform."""
    np.random.seed(seed)
    n_ex, d = X.shape
    n, m = bound.shape
    XT = np.ascontiguousarray(X.T)
    atom = np.empty((n, m, n_ex), dtype=np.uint8)
    nfalse = np.empty((n, n_ex), dtype=np.int64)
    ntrue = np.empty(n_ex, dtype=np.int64)
    simp = np.empty(n)
    acc = np.empty(n_ex, dtype=np.int64)
    new_row = np.empty(d + 1, dtype=np.int64)
    _randomize(coef, bound, c, B)
    errors = _rebuild(XT, labels, coef, bound, atom, nfalse, ntrue, simp, big, small)
    stage = 1 if stages == 2 else 2  # 0 restart, 1 simplified, 2 full
    step = 0
    while errors > 0 and step < max_steps:
        step += 1
        # stage transition z' ~ C[z]
        if stages == 1:
            if stage == 2:
                if np.random.random() < restart:
                    stage = 0
            else:
                stage = 2
        elif stages == 2:
            if stage == 0:
                stage = 1
            elif stage == 1:
                if np.random.random() < leave:
                    stage = 2
            else:
                if np.random.random() < restart:
                    stage = 0
        if stage == 0:
            _randomize(coef, bound, c, B)
            errors = _rebuild(XT, labels, coef, bound, atom, nfalse, ntrue, simp, big, small)
            continue
        # proposal: edit atom (i, j)
        a = int(np.random.random() * (n * m))
        if a >= n * m:
            a = n * m - 1
        i = a // m
        j = a - i * m
        for k in range(d):
            new_row[k] = coef[i, j, k]
        new_row[d] = bound[i, j]
        if np.random.random() < 0.5:
            pos = int(np.random.random() * (d + 1))
            if pos > d:
                pos = d
            r = c if pos < d else B
            if r > 0:
                v = -r + int(np.random.random() * (2 * r))
                if v >= new_row[pos]:
                    v += 1
                new_row[pos] = v
        else:
            for k in range(d):
                new_row[k] = -c + int(np.random.random() * (2 * c + 1))
            new_row[d] = -B + int(np.random.random() * (2 * B + 1))
        # a_ij . x_e for all examples (examples innermost: vectorisable)
        acc[:] = 0
        for k in range(d):
            rk = new_row[k]
            if rk != 0:
                for e in range(n_ex):
                    acc[e] += rk * XT[k, e]
        # cost change
        b_new = new_row[d]
        d_err = 0
        d_simp = 0.0
        for e in range(n_ex):
            v = 1 if acc[e] <= b_new else 0
            if v != atom[i, j, e]:
                nf_old = nfalse[i, e]
                nf_new = nf_old - 1 if v == 1 else nf_old + 1
                if (nf_old == 0) != (nf_new == 0):
                    dis_new = 1 if nf_new == 0 else 0
                    nt_new = ntrue[e] + (1 if dis_new == 1 else -1)
                    f_old = 1 if ntrue[e] > 0 else 0
                    f_new = 1 if nt_new > 0 else 0
                    d_err += (1 if f_new != labels[e] else 0) - (1 if f_old != labels[e] else 0)
                    if labels[e] == 0:
                        d_simp += big if dis_new == 1 else -big
                    else:
                        d_simp += -small if dis_new == 1 else small
        delta = beta * d_err if stage == 2 else beta_simple * d_simp
        accept = np.random.random() < math.exp(-delta) if delta > 0 else True
        if not accept:
            continue
        for e in range(n_ex):
            v = 1 if acc[e] <= b_new else 0
            if v != atom[i, j, e]:
                atom[i, j, e] = v
                if v == 1:
                    nfalse[i, e] -= 1
                    if nfalse[i, e] == 0:
                        ntrue[e] += 1
                else:
                    if nfalse[i, e] == 0:
                        ntrue[e] -= 1
                    nfalse[i, e] += 1
        for k in range(d):
            coef[i, j, k] = new_row[k]
        bound[i, j] = new_row[d]
        errors += d_err
        simp[i] += d_simp
    return step, errors == 0


# ============================================================== public search


@dataclass(frozen=True)
class DNFSearchResult:
    """One run of `dnf_search`.

    Attributes
    ----------
    coef : ndarray of int64 (n, m, d)
    bound : ndarray of int64 (n, m)
        The last formula (a zero-error one if ``solved``).
    steps : int
        Steps taken (MH proposals plus restarts).
    seconds : float
        Wall-clock time of the search.
    solved : bool
    errors : int
        I(f) of the last formula.
    method : str
    """

    coef: np.ndarray
    bound: np.ndarray
    steps: int
    seconds: float
    solved: bool
    errors: int
    method: str


def _check_method(method) -> int:
    return _STAGES[check_choice("method", method, DNF_METHODS)]


def _check_problem(problem) -> DNFProblem:
    return check_instance("problem", problem, DNFProblem)


def dnf_search(problem: DNFProblem, *, method: str = "2-stage", max_steps: int = 1_000_000,
               beta: float = 3.0, beta_simple: float = 3.0, restart: float = 0.0002,
               leave: float = 0.04, weights: tuple[float, float] = (1.0, 0.25),
               seed=None) -> DNFSearchResult:
    """Search for a zero-error DNF formula by (staged) MH (Sec 5, Table 1; Sec 3.1, Fig 2).

    Parameters
    ----------
    problem : DNFProblem
    method : {"0-stage", "1-stage", "2-stage"}, keyword-only
    max_steps : int, keyword-only
        Give up after this many steps (in [1, 1e9]).
    beta : float, keyword-only
        Inverse temperature of MH on the full cost: a move that adds k errors is accepted with
        probability exp(-beta k).
    beta_simple : float, keyword-only
        Inverse temperature on the simplified cost.
    restart : float, keyword-only
        Restart probability per full-cost step (1-stage and 2-stage), in (0, 1].
    leave : float, keyword-only
        Probability per step of leaving the simplified stage (2-stage), in (0, 1].
    weights : (big, small), keyword-only
        Costs of a negative example accepted by a disjunct and of a positive one it rejects.
    seed : int, Generator or None, keyword-only
    """
    problem = _check_problem(problem)
    stages = _check_method(method)
    max_steps = check_count("max_steps", max_steps, high=1_000_000_000)
    beta = check_positive("beta", beta, allow_zero=True)
    beta_simple = check_positive("beta_simple", beta_simple, allow_zero=True)
    restart = check_in_range("restart", restart, 0.0, 1.0, low_open=True)
    leave = check_in_range("leave", leave, 0.0, 1.0, low_open=True)
    w = check_array("weights", weights, shape=(2,))
    if np.any(w < 0):
        raise ValueError(f"weights must be non-negative, got {describe(w)}")
    seed = int(as_generator(seed).integers(0, 2**32))
    d = problem.inputs.shape[1]
    coef = np.empty((problem.n_disjuncts, problem.n_atoms, d), dtype=np.int64)
    bound = np.empty((problem.n_disjuncts, problem.n_atoms), dtype=np.int64)
    start = time.perf_counter()
    steps, solved = _dnf_search_kernel(problem.inputs, problem.labels, coef, bound, stages,
                                       restart, leave, beta, beta_simple, problem.coef_range,
                                       problem.bound_range, float(w[0]), float(w[1]), max_steps,
                                       seed)
    seconds = time.perf_counter() - start
    return DNFSearchResult(coef=coef, bound=bound, steps=int(steps), seconds=seconds,
                           solved=bool(solved), errors=dnf_errors(coef, bound, problem),
                           method=method)


def _warmup() -> None:
    """Compile the MH kernel on a tiny problem (production dtypes)."""
    problem = make_dnf_problem(n_vars=2, n_disjuncts=1, n_atoms=1, n_examples=6, seed=0)
    for method in DNF_METHODS:
        dnf_search(problem, method=method, max_steps=10, seed=0)
