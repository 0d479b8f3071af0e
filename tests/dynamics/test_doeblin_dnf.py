"""DNF search by staged strong Doeblin chains (Steinhardt & Liang, Sec 5, Table 1)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dynamics.doeblin import dnf as dk
from dynamics import doeblin as db


def evaluate(coef, bound, X):
    atoms = np.einsum("ijk,ek->eij", coef, X) <= bound[None]
    return atoms.all(axis=2).any(axis=1), atoms.all(axis=2)


def costs(coef, bound, X, labels, big, small):
    """Full cost I(f) and the simplified (per-disjunct) cost, from scratch."""
    f, disj = evaluate(coef, bound, X)
    pos = labels.astype(bool)
    simple = big * np.sum(disj & ~pos[:, None]) + small * np.sum(~disj & pos[:, None])
    return int(np.sum(f != pos)), float(simple)


def reference_dnf_search(problem, stages, *, restart, leave, beta, beta_simple, big, small,
                         max_steps, seed):
    """Plain Python/NumPy MH with the kernel's random stream (numpy's legacy MT19937 is numba's),
    recomputing both costs from scratch at every proposal (no incremental caches)."""
    rs = np.random.RandomState(seed)
    X, labels = problem.inputs, problem.labels
    n, m, d = problem.n_disjuncts, problem.n_atoms, X.shape[1]
    c, B = problem.coef_range, problem.bound_range
    coef = np.empty((n, m, d), dtype=np.int64)
    bound = np.empty((n, m), dtype=np.int64)

    def randomize():
        for i in range(n):
            for j in range(m):
                for k in range(d):
                    coef[i, j, k] = -c + int(rs.random_sample() * (2 * c + 1))
                bound[i, j] = -B + int(rs.random_sample() * (2 * B + 1))

    randomize()
    err, simple = costs(coef, bound, X, labels, big, small)
    stage = 1 if stages == 2 else 2
    step = 0
    while err > 0 and step < max_steps:
        step += 1
        if stages == 1:
            stage = (0 if rs.random_sample() < restart else 2) if stage == 2 else 2
        elif stages == 2:
            if stage == 0:
                stage = 1
            elif stage == 1:
                stage = 2 if rs.random_sample() < leave else 1
            else:
                stage = 0 if rs.random_sample() < restart else 2
        if stage == 0:
            randomize()
            err, simple = costs(coef, bound, X, labels, big, small)
            continue
        a = min(int(rs.random_sample() * n * m), n * m - 1)
        i, j = divmod(a, m)
        row = np.append(coef[i, j], bound[i, j])
        if rs.random_sample() < 0.5:
            pos = min(int(rs.random_sample() * (d + 1)), d)
            r = c if pos < d else B
            if r > 0:
                values = [v for v in range(-r, r + 1) if v != row[pos]]
                row[pos] = values[int(rs.random_sample() * (2 * r))]
        else:
            row[:d] = [-c + int(rs.random_sample() * (2 * c + 1)) for _ in range(d)]
            row[d] = -B + int(rs.random_sample() * (2 * B + 1))
        new_coef, new_bound = coef.copy(), bound.copy()
        new_coef[i, j], new_bound[i, j] = row[:d], row[d]
        new_err, new_simple = costs(new_coef, new_bound, X, labels, big, small)
        delta = beta * (new_err - err) if stage == 2 else beta_simple * (new_simple - simple)
        if delta > 0 and not rs.random_sample() < math.exp(-delta):
            continue
        coef, bound, err, simple = new_coef, new_bound, new_err, new_simple
    return coef, bound, step, err == 0


# ---------------------------------------------------------------- problems


@pytest.mark.parametrize("level", list(db.DNF_LEVELS))
def test_generated_problems_are_consistent(level):
    settings = db.DNF_LEVELS[level]
    p = db.make_dnf_problem(**settings, seed=3)
    f, _ = evaluate(p.target_coef, p.target_bound, p.inputs)
    np.testing.assert_array_equal(f, p.labels.astype(bool))
    assert 0.25 <= p.labels.mean() <= 0.75
    assert len({tuple(x) for x in p.inputs}) == len(p.inputs)  # distinct inputs
    assert np.all(p.target_coef.any(axis=2))  # no trivial target atom
    # the target padded to the search shape has zero errors: extra atoms 0 <= 0 (true),
    # extra disjuncts contain 0 <= -1 (false)
    n, m, d = p.n_disjuncts, p.n_atoms, p.inputs.shape[1]
    coef = np.zeros((n, m, d), dtype=np.int64)
    bound = np.zeros((n, m), dtype=np.int64)
    nt, mt = p.target_bound.shape
    coef[:nt, :mt] = p.target_coef
    bound[:nt, :mt] = p.target_bound
    bound[nt:, 0] = -1
    assert db.dnf_errors(coef, bound, p) == 0
    # the number of candidate formulas in the paper's space: (3^6)^(3x3) ~ 5.8e25
    assert (3**6) ** 9 == pytest.approx(5.8e25, rel=0.01)


def test_the_papers_example_formula():
    """Sec 5's example f(x) = [x1 != 0] or [x2 = x3] over the paper's five variables: labels by
    the formula itself, half positive, the paper's four examples classified as the paper says,
    and the target padded to the 3 x 3 search shape has zero errors."""
    p = db.make_dnf_problem(**db.PAPER_EXAMPLE_LEVEL, seed=4)
    X = p.inputs
    np.testing.assert_array_equal(p.labels.astype(bool), (X[:, 0] != 0) | (X[:, 1] == X[:, 2]))
    assert p.labels.sum() == len(p.labels) // 2 and X.shape == (80, 5)
    assert len({tuple(x) for x in X}) == len(X)
    examples = np.array([[1, 2, 3, 0, 0], [1, 4, 4, 0, 0], [0, 1, 0, 0, 0], [0, 2, 2, 0, 0]])
    f, _ = evaluate(p.target_coef, p.target_bound, examples)
    np.testing.assert_array_equal(f, [True, True, False, True])
    coef = np.zeros((3, 3, 5), dtype=np.int64)
    bound = np.zeros((3, 3), dtype=np.int64)
    coef[:, :2], bound[:, :2] = p.target_coef, p.target_bound
    assert db.dnf_errors(coef, bound, p) == 0
    run = db.dnf_search(p, method="2-stage", seed=1, max_steps=200_000)
    assert run.solved and db.dnf_errors(run.coef, run.bound, p) == 0
    with pytest.raises(ValueError, match="target"):
        db.make_dnf_problem(target="fig1")
    with pytest.raises(ValueError, match="n_vars"):
        db.make_dnf_problem(target="paper", n_vars=2)
    with pytest.raises(ValueError, match="disjuncts"):
        db.make_dnf_problem(target="paper", n_vars=3, n_disjuncts=2)
    with pytest.raises(ValueError, match="balanced"):
        db.make_dnf_problem(target="paper", n_vars=3, n_disjuncts=3, value_range=1,
                            n_examples=40)


def test_problem_validation():
    with pytest.raises(ValueError, match="target shape"):
        db.make_dnf_problem(n_disjuncts=2, target_disjuncts=3)
    with pytest.raises(ValueError, match="n_examples"):
        db.make_dnf_problem(n_vars=1, value_range=1, n_examples=4)
    with pytest.raises(ValueError, match="n_vars"):
        db.make_dnf_problem(n_vars=0)
    p = db.make_dnf_problem(seed=0)
    with pytest.raises(ValueError, match="coef"):
        db.dnf_errors(np.zeros((2, 2, 9)), np.zeros((2, 2)), p)
    with pytest.raises(ValueError, match="method"):
        db.dnf_search(p, method="3-stage")
    with pytest.raises(TypeError, match="problem"):
        db.dnf_search("fig1")
    with pytest.raises(ValueError, match="restart"):
        db.dnf_search(p, restart=0.0)
    with pytest.raises(ValueError, match="leave"):
        db.dnf_search(p, leave=1.5)
    with pytest.raises(ValueError, match="beta"):
        db.dnf_search(p, beta=np.nan)
    with pytest.raises(ValueError, match="max_steps"):
        db.dnf_search(p, max_steps=0)
    with pytest.raises(ValueError, match="levels"):
        db.dnf_experiment(["fig1"])
    with pytest.raises(ValueError, match="progress"):
        db.dnf_experiment(["easy"], trials=1, progress=3)


# ---------------------------------------------------------------- kernel vs reference


@pytest.mark.parametrize("method", db.DNF_METHODS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kernel_matches_reference(method, seed):
    p = db.make_dnf_problem(n_vars=3, target_disjuncts=2, target_atoms=2, n_disjuncts=2,
                            n_atoms=3, n_examples=30, seed=seed)
    opts = dict(restart=0.01, leave=0.2, beta=2.0, beta_simple=1.5)
    stages = dk._STAGES[method]
    for max_steps in (300, 3000):
        kseed = 1000 * seed + max_steps
        coef = np.empty((2, 3, 3), dtype=np.int64)
        bound = np.empty((2, 3), dtype=np.int64)
        steps, solved = dk._dnf_search_kernel(p.inputs, p.labels, coef, bound, stages,
                                              opts["restart"], opts["leave"], opts["beta"],
                                              opts["beta_simple"], 1, 1, 1.0, 0.25, max_steps,
                                              kseed)
        ref = reference_dnf_search(p, stages, big=1.0, small=0.25, max_steps=max_steps,
                                   seed=kseed, **opts)
        np.testing.assert_array_equal(coef, ref[0])
        np.testing.assert_array_equal(bound, ref[1])
        assert (steps, solved) == (ref[2], ref[3])


def test_search_results():
    p = db.make_dnf_problem(**db.DNF_LEVELS["easy"], seed=5)
    for method in db.DNF_METHODS:
        res = db.dnf_search(p, method=method, max_steps=200_000, seed=1)
        assert res.solved and res.errors == 0 and res.method == method
        assert db.dnf_errors(res.coef, res.bound, p) == 0
        assert 0 < res.steps <= 200_000 and res.seconds > 0
        again = db.dnf_search(p, method=method, max_steps=200_000, seed=1)
        assert again.steps == res.steps
        np.testing.assert_array_equal(again.coef, res.coef)
    short = db.dnf_search(p, method="0-stage", max_steps=1, seed=2)
    assert short.steps <= 1
    assert short.solved == (short.errors == 0)


def test_experiment_table_and_progress():
    calls = []
    table = db.dnf_experiment(["easy", "medium"], trials=3, max_steps=50_000, seed=1,
                              progress=lambda f, msg: calls.append((f, msg)))
    assert table.levels == ("easy", "medium") and table.methods == db.DNF_METHODS
    assert table.steps.shape == (2, 3, 3) == table.seconds.shape == table.solved.shape
    np.testing.assert_allclose(table.mean_steps, table.steps.mean(axis=-1))
    np.testing.assert_allclose(table.se_seconds, table.seconds.std(axis=-1, ddof=1) / np.sqrt(3))
    assert np.all(table.steps[~table.solved] == 50_000)
    easy, medium = db.DNF_LEVEL_COST["easy"], db.DNF_LEVEL_COST["medium"]
    assert [f for f, _ in calls] == pytest.approx(
        [k * easy / 3 / (easy + medium) for k in (1, 2, 3)]
        + [(easy + k * medium / 3) / (easy + medium) for k in (1, 2, 3)])
    text = table.table()
    assert all(meth in text for meth in db.DNF_METHODS) and "medium" in text


def test_the_experiments_progress_weighs_each_level_by_its_cost():
    """A level's trials take its share ``DNF_LEVEL_COST`` of the fraction (measured costs: the
    hardest level is most of the time), so that a time left extrapolated from the fraction
    holds; custom levels weigh 1."""
    said = []
    db.dnf_experiment(["easy", "medium"], trials=2, max_steps=200, seed=0,
                      progress=lambda f, m: said.append((f, m)))
    easy, medium = db.DNF_LEVEL_COST["easy"], db.DNF_LEVEL_COST["medium"]
    fractions = [f for f, _ in said]
    assert fractions == pytest.approx([easy / 2 / (easy + medium), easy / (easy + medium),
                                       (easy + medium / 2) / (easy + medium), 1.0])
    assert [m for _, m in said][1] == "easy: trial 2/2"
    custom = dict(db.DNF_LEVELS["easy"])  # a copy: not the named level, weighs 1
    said.clear()
    db.dnf_experiment({"mine": custom, "hard": db.DNF_LEVELS["hard"]}, trials=1, max_steps=200,
                      seed=0, progress=lambda f, m: said.append(f))
    assert said == pytest.approx([1 / (1 + db.DNF_LEVEL_COST["hard"]), 1.0])
