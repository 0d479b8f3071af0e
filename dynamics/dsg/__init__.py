"""Doubly stochastic functional gradients (Dai's thesis, chapter 3, Algorithms 1-2; Dai et al.
2014): a kernel machine learned by SGD in function space where each step samples both the data
(a minibatch) and the kernel (a block of random Fourier features), the features regenerated
from their seed instead of stored.

**Model.** For the Gaussian RBF kernel k(x, x') = exp(-||x - x'||^2 / (2 sigma^2)), random
features phi_omega(x) = sqrt 2 cos(omega . x + b) with omega ~ N(0, sigma^-2 I), b ~ U[0, 2 pi]
satisfy E phi_omega(x) phi_omega(x') = k(x, x'). The iterate after t steps is

    f_t(x) = sum_{i <= t} sum_{j < B} c_ij^(t) phi_{omega_ij}(x).

**Step t** (Algorithm 1 with a minibatch of m points and a block of B features): with
gamma_t = theta / (t + t0) and the regularised risk (1/n) sum l(f(x_k), y_k) + nu/2 ||f||^2,

    alpha_tj = -gamma_t (1 / (m B)) sum_{k in batch} l'(f_{t-1}(x_k), y_k) phi_{omega_tj}(x_k)
    f_t = (1 - gamma_t nu) f_{t-1} + sum_j alpha_tj phi_{omega_tj}.

The shrinking of all older coefficients is one global factor G_t = prod_{s <= t} (1 - gamma_s
nu) (coefficient i is stored as alpha_i / G_i and read as that times G_t), not an O(t) loop.
Thm 11 needs gamma_t = theta / t with theta nu >= 1; with t0 = 0 the first factor 1 - theta nu
can be 0 (NOTES.md), so the step has an offset t0 (default theta nu, which keeps every factor
in (0, 1)). The averaged iterate f_bar_t = (1/t) sum_{s <= t} f_s is the prediction: its
coefficient i is (alpha_i / G_i) (sum_{s=i..t} G_s) / t, from running sums of G.

**Losses** l(f, y) and l'(f, y): squared 1/2 (f - y)^2 (kernel ridge regression: the minimiser
is f* = sum_k beta_k k(x_k, .) with beta = (K + n nu I)^-1 y), hinge max(0, 1 - y f) (SVM),
logistic log(1 + exp(-y f)).

**Seeds.** Step t's minibatch and feature block come from generators seeded by (seed, t): the
same seed gives the same model, and prediction regenerates each block's features from its
seed (``block_features``), in Numba; memory is the B coefficients per step plus one seed.
Training on a finite set may keep the iterate's values at its n points (``keep_values``): f at
a minibatch is then read instead of regenerated from every earlier block, and a step costs
O((n + m) B) instead of O(t m B), the same iterate. That makes Fig 3.4's 2^14 steps take
seconds with the prototype's 16-point batches and 16-feature blocks; with the paper's 2^10 and
2^10 a step needs at least (n + m) B = 3 million cosines, and 2^14 steps about 10 minutes here.

**NORMA** (Kivinen et al.), the full-kernel online method with the same steps and averaging,
keeps every visited point: its memory grows with t, and it is the baseline of Fig 3.4.

**The 2-D synthetic task of Sec 3.6.1**: x uniform in [-5, 5]^2, y = cos(0.5 pi ||x||)
exp(-0.1 pi ||x||) + 0.1 e, the RBF bandwidth 0.1 times the median pairwise distance
(``median_bandwidth``). The regulariser nu is unreadable in the extraction; we use nu = 0.01 with
theta = 100 (theta nu = 1, Thm 11's condition) and t0 = 100, as the prototype in NOTES.md
did (slope -1.00). Its target is the exact kernel ridge solution on the training set
(``kernel_ridge``), and the error ||f_bar_t - f*||^2 is the mean square over a test grid.

A package by subject, every public name imported here: ``algorithm`` (the blocks, the step and
``doubly_sgd``), ``gp`` (GP regression and NORMA), ``reference`` (the exact solutions, the
bandwidth and the 2-D task), ``baselines`` (Fig 3.4 (3)'s linear learners and the digits
classifier) and ``claims``.
"""

from __future__ import annotations

import numpy as np

from . import algorithm, baselines, claims, gp, reference  # noqa: F401
from .algorithm import (  # noqa: F401
    LOSSES, MAX_STEPS, MAX_BLOCK, MAX_BATCH, block_features, DSGModel, Partial, doubly_sgd,
    data_step_scale, _eval_blocks, _features, _loss_grad, _train_segment,
)
from .gp import GPRun, gp_regression, NormaModel, norma  # noqa: F401
from .claims import (BASELINE_FACTOR, DIGITS_TOLERANCE, POSTERIOR_FALL, RATE_BAND,  # noqa: F401
                     RATE_MIN_POINTS, baselines_claim, classification_claim, posterior_claim,
                     rate_claim)
from .reference import (  # noqa: F401
    MAX_DIM, MAX_POINTS, MAX_SCALE, gp_closed_form, kernel_ridge, loglog_slope, median_bandwidth, rbf_kernel,
    synthetic_2d, synthetic_truth,
)
from .baselines import (  # noqa: F401  (Fig 3.4 (3)'s baselines, re-exported)
    BASELINES, FeatureMap, LinearRun, PAPER_RANKING, compare_baselines,
    kernel_features, pegasos, primal_objective, sdca, _warmup as _warmup_baselines,
    PAPER_DIGITS_ERROR, ClassificationRun, classification_run,
    digits_pair, kernel_classifier_reference,
)

__all__ = [
    "LOSSES", "MAX_STEPS", "MAX_BLOCK", "MAX_BATCH", "MAX_POINTS", "MAX_DIM", "MAX_SCALE",
    "block_features", "DSGModel", "Partial", "doubly_sgd", "data_step_scale", "rbf_kernel",
    "kernel_ridge", "median_bandwidth", "synthetic_truth", "synthetic_2d", "gp_closed_form",
    "GPRun", "gp_regression", "NormaModel", "norma", "loglog_slope", "RATE_BAND",
    "RATE_MIN_POINTS", "POSTERIOR_FALL", "rate_claim", "posterior_claim", "BASELINES",
    "PAPER_RANKING", "FeatureMap", "LinearRun", "kernel_features", "pegasos", "sdca",
    "primal_objective", "compare_baselines", "baselines_claim", "BASELINE_FACTOR",
    "PAPER_DIGITS_ERROR", "DIGITS_TOLERANCE", "ClassificationRun", "digits_pair",
    "kernel_classifier_reference", "classification_run", "classification_claim",
]

def _warmup() -> None:
    """Compile the kernels with the production dtypes."""
    X = np.zeros((3, 2))
    y = np.zeros(3)
    seeds = np.array([1, 2, 3], dtype=np.int64)
    stored = np.zeros((4, 2))
    scale = np.ones(4)
    cum = np.zeros(4)
    for keep in (False, True):
        _train_segment(X, y, 0, 2, 2, 1.0, 0.01, 1.0, 0.01, 0, 3, seeds, seeds, stored, scale,
                       cum, keep, np.zeros(3), X, np.zeros(3), np.zeros(3), np.zeros(1))
    _eval_blocks(X, stored[1:], seeds, 2, 1.0, np.zeros(3))
    _loss_grad(2, 0.5, 1.0)
    _features(X, np.zeros((2, 2)), np.zeros(2), np.zeros((3, 2)))
    _warmup_baselines()
