"""Throughput of the Doeblin engine's kernels against plain NumPy references (same run).

- sample_restart: exact draws from pi~ (Prop 3.2) plus the plain chain with the same budget,
  against the reference of tests/dynamics/test_doeblin.py (a Python loop with np.searchsorted
  per move, same random streams); a NumPy version vectorised across the draws is printed too.
- DNF search (Sec 5, Table 1): the MH inner loop against a NumPy loop that updates the same
  incremental caches with array operations over the examples (same random stream, checked to
  give the identical run).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from dynamics.doeblin import dnf as dk
from dynamics import doeblin as db
from tests.bench._timing import best_time
from tests.dynamics.test_doeblin import numpy_sample_restart


def vectorised_draws(P, u, eps, n, seed):
    """Exact draws vectorised across the n draws (all active draws advance together)."""
    rng = np.random.default_rng(seed)
    lengths = rng.geometric(eps, size=n) - 1
    cum_P = np.cumsum(P, axis=1)
    cum_P /= cum_P[:, -1:]
    cum_u = np.cumsum(u) / np.cumsum(u)[-1]
    y = np.searchsorted(cum_u, rng.random(n), side="right")
    for t in range(int(lengths.max())):
        active = np.flatnonzero(lengths > t)
        r = rng.random(active.size)
        y[active] = (cum_P[y[active]] <= r[:, None]).sum(axis=1)
    return y


@pytest.mark.bench
def test_bench_sample_restart():
    P = db.random_chain(50, sparsity=0.5, seed=1)
    u = np.full(50, 1 / 50)
    eps = 0.01
    n_engine, n_ref = 50_000, 500
    db.sample_restart(P, u, eps, 10, seed=0)  # compile / load from cache
    res = db.sample_restart(P, u, eps, n_engine, seed=0)
    steps_engine = 2 * res.steps  # draws and plain chain
    t_engine = best_time(lambda: db.sample_restart(P, u, eps, n_engine, seed=0), repeats=5)
    ref_steps = 2 * (int(numpy_sample_restart(P, u, eps, n_ref, 0, 100, 0)[1].sum()) + n_ref)
    t_ref = best_time(lambda: numpy_sample_restart(P, u, eps, n_ref, 0, 100, 0), repeats=3)
    t_vec = best_time(lambda: vectorised_draws(P, u, eps, n_engine, 0), repeats=3)
    engine = steps_engine / t_engine
    ref = ref_steps / t_ref
    vec = res.steps / t_vec
    ratio = engine / ref
    print(
        f"\nsample_restart: {n_engine} draws at eps = {eps} on 50 states, {steps_engine:.3g} "
        f"steps (draws + plain chain) in {t_engine * 1e3:.1f} ms = {engine:.3e} steps/s"
        f"\nnumpy loop    : {ref_steps:.3g} steps in {t_ref * 1e3:.1f} ms = {ref:.3e} steps/s"
        f"\nnumpy vectorised across draws (draws only, no plain chain, no histograms): "
        f"{res.steps:.3g} steps in {t_vec * 1e3:.1f} ms = {vec:.3e} steps/s "
        f"(engine / vectorised: {engine / vec:.1f}x)"
        f"\nratio engine / numpy loop: {ratio:.0f}x (target >= 20)"
    )
    assert ratio >= 20


def numpy_mh(problem, max_steps, beta, seed):
    """0-stage MH with incremental caches updated by NumPy array operations over the examples;
    the kernel's random stream (numpy's legacy MT19937 is numba's)."""
    rs = np.random.RandomState(seed)
    X = problem.inputs
    pos = problem.labels.astype(bool)
    n, m, d = problem.n_disjuncts, problem.n_atoms, X.shape[1]
    c, B = problem.coef_range, problem.bound_range
    coef = np.empty((n, m, d), dtype=np.int64)
    bound = np.empty((n, m), dtype=np.int64)
    for i in range(n):
        for j in range(m):
            for k in range(d):
                coef[i, j, k] = -c + int(rs.random_sample() * (2 * c + 1))
            bound[i, j] = -B + int(rs.random_sample() * (2 * B + 1))
    atoms = np.einsum("ijk,ek->eij", coef, X) <= bound[None]
    nfalse = (~atoms).sum(axis=2)
    ntrue = (nfalse == 0).sum(axis=1)
    err = int(np.sum((ntrue > 0) != pos))
    step = 0
    while err > 0 and step < max_steps:
        step += 1
        a = min(int(rs.random_sample() * n * m), n * m - 1)
        i, j = divmod(a, m)
        row = np.append(coef[i, j], bound[i, j])
        if rs.random_sample() < 0.5:
            p = min(int(rs.random_sample() * (d + 1)), d)
            r = c if p < d else B
            if r > 0:
                v = -r + int(rs.random_sample() * (2 * r))
                row[p] = v + 1 if v >= row[p] else v
        else:
            row[:d] = [-c + int(rs.random_sample() * (2 * c + 1)) for _ in range(d)]
            row[d] = -B + int(rs.random_sample() * (2 * B + 1))
        new = X @ row[:d] <= row[d]
        nf_new = nfalse[:, i] + (atoms[:, i, j] & ~new) - (~atoms[:, i, j] & new)
        nt_new = ntrue + (nf_new == 0) - (nfalse[:, i] == 0)
        new_err = int(np.sum((nt_new > 0) != pos))
        delta = beta * (new_err - err)
        if delta > 0 and not rs.random_sample() < math.exp(-delta):
            continue
        atoms[:, i, j] = new
        nfalse[:, i] = nf_new
        ntrue = nt_new
        err = new_err
        coef[i, j], bound[i, j] = row[:d], row[d]
    return coef, bound, step


@pytest.mark.bench
def test_bench_dnf_mh_inner_loop():
    # the "hard" level's examples, searched with 2 x 2 formulas, smaller than the 2 x 3 target,
    # so that MH (almost surely) runs to the cap
    problem = dataclasses.replace(db.make_dnf_problem(**db.DNF_LEVELS["hard"], seed=0),
                                  n_disjuncts=2, n_atoms=2)
    beta = 3.0
    n_engine, n_ref = 2_000_000, 5_000

    def engine_run(steps):
        coef = np.empty((2, 2, problem.inputs.shape[1]), dtype=np.int64)
        bound = np.empty((2, 2), dtype=np.int64)
        done, _ = dk._dnf_search_kernel(problem.inputs, problem.labels, coef, bound, 0, 0.0002,
                                        0.04, beta, beta, problem.coef_range,
                                        problem.bound_range, 1.0, 0.25, steps, 7)
        return coef, bound, done

    coef, bound, done = engine_run(n_ref)  # compile, and check the reference is the same run
    ref = numpy_mh(problem, n_ref, beta, 7)
    np.testing.assert_array_equal(coef, ref[0])
    np.testing.assert_array_equal(bound, ref[1])
    assert done == ref[2] == n_ref
    t_engine = best_time(lambda: engine_run(n_engine), repeats=5)
    t_ref = best_time(lambda: numpy_mh(problem, n_ref, beta, 7), repeats=3)
    engine = n_engine / t_engine
    reference = n_ref / t_ref
    ratio = engine / reference
    print(
        f"\nDNF MH ({problem.inputs.shape[0]} examples, {problem.inputs.shape[1]} variables, "
        f"2 x 2 atoms): {n_engine:.0e} steps in {t_engine * 1e3:.1f} ms = {engine:.3e} steps/s"
        f"\nnumpy loop: {n_ref:.0e} steps in {t_ref * 1e3:.1f} ms = {reference:.3e} steps/s"
        f"\nratio: {ratio:.0f}x (target >= 20)"
    )
    assert ratio >= 20
