"""SBEED (issue 12): the tabular exact-gradient iteration on a 100-state, 4-action Garnet
(target >= 10,000 iterations/s) against the same iteration in NumPy (``sbeed.gradients``, dense
transitions), and a Pendulum run of 100,000 environment steps with learning (target < 2 min)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from dynamics import sbeed
from dynamics.sbeed import pendulum as pend
from tests.bench._timing import best_time

pytestmark = pytest.mark.bench


def _numpy_iterations(mdp, iterations, *, gamma=0.9, lam=0.1, eta=1.0, step=0.2, seed=0):
    """The exact iteration written with the NumPy reference gradients (same init and steps)."""
    rng = np.random.default_rng(seed)
    S, A = mdp.n_states, mdp.n_actions
    V = 0.01 * rng.standard_normal(S)
    theta = 0.01 * rng.standard_normal((S, A))
    inv_d = S  # uniform state weights
    for _ in range(iterations):
        gV, gth, _ = sbeed.gradients(mdp, V, theta, gamma=gamma, lam=lam, eta=eta)
        V = V - step * inv_d * gV
        theta = theta - step * inv_d * gth
    return V


@pytest.mark.parametrize("branching", [5, 100])
def test_bench_tabular_exact_iterations(branching):
    mdp = sbeed.garnet(100, 4, branching, seed=0)
    n = 20_000
    sbeed.sbeed_tabular(mdp, gamma=0.9, lam=0.1, eta=1.0, iterations=10, n_checkpoints=1)
    ours = best_time(lambda: sbeed.sbeed_tabular(mdp, gamma=0.9, lam=0.1, eta=1.0, iterations=n,
                                                 seed=0, n_checkpoints=1), repeats=3)
    m = 300
    ref = best_time(lambda: _numpy_iterations(mdp, m), repeats=3) / m * n
    run = sbeed.sbeed_tabular(mdp, gamma=0.9, lam=0.1, eta=1.0, iterations=m, seed=0,
                              n_checkpoints=1)
    np.testing.assert_allclose(run.V, _numpy_iterations(mdp, m), rtol=1e-9, atol=1e-9)
    rate = n / ours
    print(f"\nSBEED exact, Garnet(100, 4, {branching}): {rate:,.0f} iterations/s "
          f"(target >= 10,000); NumPy {n / ref:,.0f} iterations/s; ratio {ref / ours:.1f}x")
    assert rate >= 10_000


def test_bench_pendulum_100k_steps():
    pend.sbeed_pendulum(steps=400, updates=1, seed=0)
    start = time.perf_counter()
    run = pend.sbeed_pendulum(steps=100_000, seed=0)
    seconds = time.perf_counter() - start
    print(f"\nSBEED on Pendulum-v1, 100,000 steps (500 episodes, 20 updates of 256 segments "
          f"each, k = 10): {seconds:.1f} s (target < 120 s); return of the first 10 episodes "
          f"{np.mean(run.returns[:10]):.0f}, of the last 10 {np.mean(run.returns[-10:]):.0f}")
    assert seconds < 120
