"""The noisy-measurement task of Dai's thesis, Sec 5.5 (L3297): x~ ~ U[-0.5, 0.5],
x = x~ + 0.05 e, y = (sin(3.5 pi x~) + cos(7.7 pi x~)) exp(-1.67 |x~|) + 3 x~^2 + 0.01 e'."""

from __future__ import annotations

import numpy as np

from ..checks import MAX_ABS, as_generator, check_array, check_count

__all__ = ["INPUT_NOISE", "MAX_POINTS", "PAPER_DATA", "PAPER_MSE", "truth", "conditional_mean",
           "noisy_measurement"]

#: Input noise and virtual-sample noise of Sec 5.5.
INPUT_NOISE = 0.05
#: Largest number of points ``conditional_mean`` averages at (2001 quadrature nodes each).
MAX_POINTS = 1_000_000
#: The paper's result (Sec 5.5, L3310): average MSE 0.0029 after 0.1M data, over 10 runs.
PAPER_DATA, PAPER_MSE = 100_000, 0.0029


def truth(x_clean) -> np.ndarray:
    """The noiseless regression function of Sec 5.5, entrywise on a finite array ``x_clean``."""
    x = check_array("x_clean", x_clean, max_abs=MAX_ABS)
    return ((np.sin(3.5 * np.pi * x) + np.cos(7.7 * np.pi * x)) * np.exp(-1.67 * np.abs(x))
            + 3.0 * x**2)


def conditional_mean(x) -> np.ndarray:
    """E[y | x] of the task (x_clean ~ U[-0.5, 0.5] seen through N(0, 0.05^2)), by quadrature
    over x_clean: the best that plain regression on the noisy inputs can learn."""
    x = check_array("x", x, ndim=1, max_size=MAX_POINTS, max_abs=MAX_ABS)
    clean = np.linspace(-0.5, 0.5, 2001)
    target = truth(clean)
    out = np.empty(len(x))
    for lo in range(0, len(x), 4096):  # 4096 x 2001 weights at a time (65 MB)
        # weights relative to the nearest node's, so that x far outside [-0.5, 0.5] (where
        # every weight underflows) still reads the nearest end instead of 0 / 0
        d2 = ((x[lo:lo + 4096, None] - clean[None]) / INPUT_NOISE) ** 2
        w = np.exp(-0.5 * (d2 - d2.min(axis=1, keepdims=True)))
        out[lo:lo + 4096] = (w * target).sum(1) / w.sum(1)
    return out


def noisy_measurement(n: int, *, seed=None):
    """n data of Sec 5.5: (x_clean, x, y), x = x_clean + 0.05 e, y = truth + 0.01 e'."""
    n = check_count("n", n, low=1, high=100_000_000)
    rng = as_generator(seed)
    x_clean = rng.uniform(-0.5, 0.5, n)
    x = x_clean + INPUT_NOISE * rng.standard_normal(n)
    return x_clean, x, truth(x_clean) + 0.01 * rng.standard_normal(n)
