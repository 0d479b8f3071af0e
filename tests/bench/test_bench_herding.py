"""Throughput of `dynamics.herding.herd` against a plain NumPy per-step loop (same run).

Target: >= 50 million steps/s for D = 6 states, K = 2 features on one core, and >= 200x the NumPy
loop. Both sides are timed end to end (allocation of the outputs included) with best_time.
"""

from __future__ import annotations

import numpy as np
import pytest

from dynamics import herding
from tests.bench._timing import best_time
from tests.dynamics.test_herding import herd_reference  # the tests' NumPy reference, written once

TARGET_STEPS_PER_S = 50e6
TARGET_RATIO = 200.0


@pytest.mark.bench
def test_bench_herd():
    model = herding.random_model(6, 2, seed=0)
    phi, phi_bar = model.features, model.moments
    herding._warmup()
    n_fast, n_slow = 10_000_000, 20_000

    # Same states on a common prefix, so both sides compute the same thing.
    ref_states = herd_reference(phi, phi_bar, n_slow)[0]
    np.testing.assert_array_equal(herding.herd(phi, phi_bar, n_slow).states, ref_states)

    herding.herd(phi, phi_bar, n_fast)  # first touch of fresh memory is slow on this VM
    t_fast = best_time(lambda: herding.herd(phi, phi_bar, n_fast), repeats=3)
    t_slow = best_time(lambda: herd_reference(phi, phi_bar, n_slow), repeats=3)
    fast = n_fast / t_fast
    slow = n_slow / t_slow
    ratio = fast / slow
    print(
        f"\nherding D=6 K=2: numba {fast / 1e6:.1f} M steps/s ({n_fast:.0e} steps, best of 3), "
        f"NumPy loop {slow / 1e3:.1f} k steps/s ({n_slow} steps), ratio {ratio:.0f}x "
        f"(targets {TARGET_STEPS_PER_S / 1e6:.0f} M steps/s, {TARGET_RATIO:.0f}x)"
    )
    assert fast >= TARGET_STEPS_PER_S
    assert ratio >= TARGET_RATIO
