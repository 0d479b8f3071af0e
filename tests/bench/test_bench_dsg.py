"""Doubly stochastic gradients (issue 16): prediction at >= 10^6 feature-point evaluations per
second per core, features regenerated from their seeds, against the same sum in NumPy with the
features held in memory (timed in the same run); and the time of the prototype's Fig 3.4 run."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from dynamics import dsg
from tests.bench._timing import best_time

pytestmark = pytest.mark.bench


def test_prediction_speed():
    X, y = dsg.synthetic_2d(2000, seed=0)
    bw = dsg.median_bandwidth(X)
    model = dsg.doubly_sgd(X, y, bandwidth=bw, nu=0.01, steps=200, batch_size=16,
                           block_size=64, theta=100.0, t0=100.0, seed=0)
    model.predict(X[:10])  # compile
    evals = 200 * 64 * len(X)
    numba_s = best_time(lambda: model.predict(X), repeats=3)
    coef = model.coefficients()
    blocks = [dsg.block_features(0, s, 64, 2, bw) for s in range(1, 201)]
    omega = np.concatenate([w for w, _ in blocks])
    b = np.concatenate([c for _, c in blocks])

    def numpy_predict():
        return (math.sqrt(2) * np.cos(X @ omega.T + b)) @ coef.ravel()

    np.testing.assert_allclose(model.predict(X), numpy_predict(), rtol=1e-9, atol=1e-12)
    numpy_s = best_time(numpy_predict, repeats=3)
    rate = evals / numba_s
    print(f"\nDSG prediction: {rate / 1e6:.1f} million feature-point evaluations/s "
          f"(features regenerated), NumPy with stored features {evals / numpy_s / 1e6:.1f} "
          f"million/s (ratio {numpy_s / numba_s:.2f})")
    assert rate >= 1e6


def test_fig_3_4_run_time():
    """The prototype's run: 2000 points, batch 16, 16 features a step, 3000 steps."""
    X, y = dsg.synthetic_2d(2000, seed=0)
    bw = dsg.median_bandwidth(X)
    dsg.doubly_sgd(X, y, bandwidth=bw, nu=0.01, steps=10, batch_size=16, block_size=16,
                   theta=100.0, t0=100.0, seed=0)
    start = time.perf_counter()
    dsg.doubly_sgd(X, y, bandwidth=bw, nu=0.01, steps=3000, batch_size=16, block_size=16,
                   theta=100.0, t0=100.0, seed=0)
    seconds = time.perf_counter() - start
    print(f"\nDSG 3000 steps (batch 16, block 16, 48,000 data points seen): {seconds:.1f} s")
