"""Embedding-SGD (Dai's thesis, chapter 5, Algorithm 4): learning when the loss holds a
conditional expectation, min_f E_{x,y} l(y, E_{z|x} f(z)), by a saddle point in two functions.

**The saddle point** (Sec 5.3, eq 5.14). With the Fenchel dual l_y(v) = max_u (u v - l*_y(u)),

    min_f max_u  E_{x,y} [ E_{z|x} f(z) u(x, y) - l*_y(u(x, y)) ],

and both expectations can now be sampled: one datum (x, y) and one z ~ p(z | x) give unbiased
stochastic gradients. For the square loss l_y(v) = (v - y)^2 / 2, l*_y(u) = u y + u^2 / 2 and
the dual's optimum is u*(x, y) = E_{z|x} f(z) - y.

**Algorithm 4** (L3019 of the thesis text), with step gamma_i = gamma / sqrt(i):

    f <- f - gamma_i u(x_i, y_i) psi(z_i, .)
    u <- u + gamma_i [f(z_i) - y_i - u(x_i, y_i)] phi((x_i, y_i), .)

and the output is the average of the iterates. We represent f and u on fixed random Fourier
features of Gaussian kernels (``features_f`` on z, ``features_u`` on (x, y)), a minibatch of
``batch_size`` data averaging the gradients, one virtual sample z ~ N(x, 0.05^2) per datum.

**The dual's kernel.** u*(x, y) = E f(z) - y is linear in y over y's whole range (about 3
units here) but varies with x on the scale of f. A Gaussian kernel on (x, y) with one
bandwidth of 0.05 must tile y's range with bumps and stalls (our prototype: MSE 0.05-0.1), so
the dual's kernel reads y scaled by ``dual_y_scale`` (default 0.05: a bandwidth of 1 in y).

**The noisy-measurement task of Sec 5.5** (L3297): x~ ~ U[-0.5, 0.5], x = x~ + 0.05 e,
y = (sin(3.5 pi x~) + cos(7.7 pi x~)) exp(-1.67 |x~|) + 3 x~^2 + 0.01 e', e, e' ~ N(0, 1); only
(x, y) is seen, the test observations are noiseless (f(x~) against the clean y). The
extraction reads "sin(3.5372)" for sin(3.5 pi x~) (the pi and x~ glyphs lost); the other
constants read cleanly. The paper reports MSE 0.0029 after 0.1M data (10 runs' average), with
its step constants and bandwidths chosen from grids it gives; ``embedding_sgd`` records ours.

**The baseline** is plain kernel regression on the noisy inputs: the same features and steps
learning f(x) ~ y directly (SGD on the squared loss), which fits E[y | x], the truth smoothed by
the input noise, not the truth.
"""

from __future__ import annotations

from . import algorithm, claims, experiment, task
from .algorithm import DIVERGED, EmbeddingRun, embedding_sgd
from .claims import mse_claim
from .experiment import SeedRuns, seed_runs
from .task import (INPUT_NOISE, MAX_POINTS, PAPER_DATA, PAPER_MSE, conditional_mean,
                   noisy_measurement, truth)

__all__ = ["INPUT_NOISE", "MAX_POINTS", "DIVERGED", "PAPER_DATA", "PAPER_MSE", "truth",
           "conditional_mean", "noisy_measurement", "EmbeddingRun", "embedding_sgd", "SeedRuns",
           "seed_runs", "mse_claim"]


def _warmup() -> None:
    """No Numba kernels here (NumPy on a batch of features a step): nothing to compile."""
