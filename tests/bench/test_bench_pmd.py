"""Particle mirror descent (issue 11): the weighted KDE's m x m kernel sum against NumPy
broadcasting (target >= 20x), and a full Fig 4.1 run (every method, 1000 data, 1500 particles,
one repeat, with its metrics) in under 10 s.

The KDE is measured where PMD's KDE branch evaluates it: q_t (1500 weighted particles of a run
on the Sec 4.6.1 data) at 1500 new particles, with the bandwidth of the "prior" rule at m = 1500
(1500^(-1/4) = 0.16) and with the median-trick bandwidth of the metrics.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from dynamics import pmd
from tests.bench._timing import best_time

pytestmark = pytest.mark.bench


def _cloud():
    model, theta, n = pmd.MODEL_PRESETS["Dai, Sec 4.6.1 (Fig 4.1)"]
    x = model.sample(n, theta, seed=1)
    run = pmd.particle_mirror_descent(model, x, seed=2, strategy="hybrid")
    new = run.particles + 0.05 * np.random.default_rng(3).standard_normal(run.particles.shape)
    return model, x, run, new


def test_bench_weighted_kde_against_numpy_broadcasting():
    model, x, run, points = _cloud()
    for h in (1500 ** -0.25, run.bandwidth):
        pmd.weighted_kde(points[:10], run.particles, run.weights, h)  # compile / load
        ours = best_time(lambda: pmd.weighted_kde(points, run.particles, run.weights, h),
                         repeats=7)
        ref = best_time(lambda: pmd.kde_numpy(points, run.particles, run.weights, h), repeats=3)
        ratio = ref / ours
        print(f"\nweighted KDE, m = {len(points)} at {len(points)} points, h = {h:.3f}: "
              f"{1e3 * ours:.2f} ms, NumPy broadcasting {1e3 * ref:.1f} ms, ratio {ratio:.0f}x "
              "(target >= 20)")
        assert ratio >= 20


def test_bench_full_fig41_run():
    model, theta, n = pmd.MODEL_PRESETS["Dai, Sec 4.6.1 (Fig 4.1)"]
    x = model.sample(n, theta, seed=1)
    pmd._warmup()
    pmd.compare_methods(model, x[:50], particles=100, seed=0)  # compile every path
    start = time.perf_counter()
    comparison = pmd.compare_methods(model, x, seed=0)
    seconds = time.perf_counter() - start
    finals = ", ".join(f"{name} {comparison.final(name):.2f}" for name in comparison.curves)
    print(f"\nFig 4.1, one repeat (5 methods, 1000 data, 1500 particles, metrics on a "
          f"{comparison.grid.shape[1]} x {comparison.grid.shape[0]} grid): {seconds:.1f} s "
          f"(target < 10 s); final TV {finals}")
    assert seconds < 10
