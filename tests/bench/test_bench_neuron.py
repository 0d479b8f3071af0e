"""Throughput of the herded neuron kernel (eqs 1.25-1.26) against a plain Python/NumPy loop.

The issue sets no speed target for the neuron; the floor asserted here (20x) guards against a
regression to Python speed. The kernel is bound by writing its two output arrays: measured
38-77x on a loaded 2-core machine, about 51x when quiet (2026-11-22).
"""

from __future__ import annotations

import numpy as np
import pytest

from dynamics.neuron import GOLDEN_MEAN, herd_neuron
from tests.bench._timing import best_time
from tests.dynamics.test_neuron import float_neuron  # the tests' NumPy reference, written once


@pytest.mark.bench
def test_bench_herd_neuron():
    rate, w0 = GOLDEN_MEAN, 0.0
    n_engine, n_ref = 10**7, 10**5
    herd_neuron(rate, 10, w0=w0)  # compile / load from cache
    # the same run on both sides: the engine's states are the reference's
    np.testing.assert_array_equal(herd_neuron(rate, 1000, w0=w0).states,
                                  float_neuron(rate, w0, 1000)[0])
    # interleaved rounds, so both sides see the same load of a shared machine
    t_engine = t_ref = float("inf")
    for _ in range(5):
        t_engine = min(t_engine, best_time(lambda: herd_neuron(rate, n_engine, w0=w0), repeats=2))
        t_ref = min(t_ref, best_time(lambda: float_neuron(rate, w0, n_ref), repeats=2))
    engine = n_engine / t_engine
    ref = n_ref / t_ref
    ratio = engine / ref
    print(
        f"\nherd_neuron: {n_engine:.0e} steps in {t_engine * 1e3:.1f} ms = {engine:.3e} steps/s"
        f"\npython loop: {n_ref:.0e} steps in {t_ref * 1e3:.1f} ms = {ref:.3e} steps/s"
        f"\nratio: {ratio:.0f}x (floor >= 20)"
    )
    assert ratio >= 20
