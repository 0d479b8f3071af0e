"""Ising lattice kernels (issue 13): herding a 100 x 100 lattice at >= 1,000 steps/s and
Swendsen-Wang at >= 500 sweeps/s on one core, each against a NumPy/SciPy reference of the same
algorithm timed in the same run."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from dynamics import ising
from tests.bench._timing import best_time

pytestmark = pytest.mark.bench
L = 100


def _sw_numpy(spins, beta, sweeps, rng):
    """Swendsen-Wang with SciPy's connected components (the reference)."""
    n = L * L
    idx = np.arange(n).reshape(L, L)
    p = 1 - np.exp(-2 * beta)
    for _ in range(sweeps):
        rows, cols = [], []
        for nb in (np.roll(idx, -1, 1), np.roll(idx, -1, 0)):
            same = spins.ravel() == spins.ravel()[nb.ravel()]
            bond = same & (rng.random(n) < p)
            rows.append(idx.ravel()[bond])
            cols.append(nb.ravel()[bond])
        r, c = np.concatenate(rows), np.concatenate(cols)
        graph = coo_matrix((np.ones(len(r)), (r, c)), shape=(n, n))
        count, labels = connected_components(graph, directed=False)
        spins = np.where(rng.random(count) < 0.5, -1, 1)[labels].reshape(L, L)
    return spins


def _herd_numpy(s, w, m, c, steps):
    """Herding with a checkerboard coordinate ascent in NumPy (the reference)."""
    wn, wr, wd = w
    black = (np.add.outer(np.arange(L), np.arange(L)) % 2) == 0
    for _ in range(steps):
        while True:
            changed = False
            for mask in (black, ~black):
                field = (wn + wr * np.roll(s, -1, 1) + np.roll(wr, 1, 1) * np.roll(s, 1, 1)
                         + wd * np.roll(s, -1, 0) + np.roll(wd, 1, 0) * np.roll(s, 1, 0))
                new = np.where(field > 0, 1, np.where(field < 0, -1, s))
                flip = mask & (new != s)
                if flip.any():
                    s = np.where(flip, new, s)
                    changed = True
            if not changed:
                break
        wn = wn + m - s
        wr = wr + c - s * np.roll(s, -1, 1)
        wd = wd + c - s * np.roll(s, -1, 0)
    return s


def test_bench_swendsen_wang():
    ising.swendsen_wang(8, ising.BETA_C, 2, seed=0)
    n = 1000
    ours = best_time(lambda: ising.swendsen_wang(L, ising.BETA_C, n, seed=0), repeats=3) / n
    rng = np.random.default_rng(0)
    spins = np.where(rng.random((L, L)) < 0.5, -1, 1)
    m = 30
    ref = best_time(lambda: _sw_numpy(spins, ising.BETA_C, m, rng), repeats=3) / m
    print(f"\nSwendsen-Wang, {L} x {L} at beta_c: {1 / ours:,.0f} sweeps/s (target >= 500); "
          f"SciPy connected components {1 / ref:,.0f} sweeps/s; ratio {ref / ours:.1f}x")
    assert 1 / ours >= 500


def test_bench_herding_100x100():
    sw = ising.swendsen_wang(L, ising.BETA_C, 300, burn_in=100, seed=1)
    c = float(sw.correlation.mean())
    warm = ising.herd_ising(L, (0.0, c), 500, seed=0)  # past the first, longer searches
    w = (warm.w_node, warm.w_right, warm.w_down)
    start = warm.samples[-1]
    n = 2000
    ours = best_time(lambda: ising.herd_ising(L, (0.0, c), n, w0=w, start=start), repeats=3) / n
    m = 30
    ref = best_time(lambda: _herd_numpy(start.astype(float), [x.copy() for x in w], 0.0, c, m),
                    repeats=3) / m
    run = ising.herd_ising(L, (0.0, c), n, w0=w, start=start)
    print(f"\nherding {L} x {L}: {1 / ours:,.0f} steps/s (target >= 1,000; "
          f"{run.sweeps.mean():.1f} sweeps a step); NumPy checkerboard {1 / ref:,.0f} steps/s; "
          f"ratio {ref / ours:.1f}x")
    assert 1 / ours >= 1000
