"""Embedding-SGD (Dai's thesis, chapter 5, Algorithm 4): learning when the loss holds a
conditional expectation, min_f E_{x,y} l(y, E_{z|x} f(z)), by a saddle point in two functions.

**The saddle point** (Sec 5.3, eq 5.14). With the Fenchel dual l_y(v) = max_u (u v - l*_y(u)),

    min_f max_u  E_{x,y} [ E_{z|x} f(z) u(x, y) - l*_y(u(x, y)) ],

and both expectations can now be sampled: one datum (x, y) and one z ~ p(z | x) give unbiased
stochastic gradients. For the square loss l_y(v) = (v - y)^2 / 2, l*_y(u) = u y + u^2 / 2 and
the dual's optimum is u*(x, y) = E_{z|x} f(z) - y.

**Algorithm 4** (L3019 of the thesis text) on the regularised saddle point of eq C.7 (appendix
C.5: l2 weights lam_f on f and lam_u on u), with Sec 5.6.1's step gamma_i = eta / (eta0 +
sqrt(i)) (``step_size``; eta0 = 0 is Theorem 22's gamma / sqrt(i)):

    f <- (1 - gamma_i lam_f) f - gamma_i u(x_i, y_i) psi(z_i, .)
    u <- (1 - gamma_i lam_u) u + gamma_i [f(z_i) - y_i - u(x_i, y_i)] phi((x_i, y_i), .)

and the output is the average of the iterates weighted by the steps (Theorem 22). We represent
f and u on fixed random Fourier features of Gaussian kernels (``features_f`` on z,
``features_u`` on (x, y)), a minibatch of ``batch_size`` data averaging the gradients, and
``virtual_samples`` draws z ~ N(x, 0.05^2) a datum averaged into E_{z|x} (1: Algorithm 4).

**The dual's kernel.** u*(x, y) = E f(z) - y is linear in y over y's whole range (about 3
units here) but varies with x on the scale of f. A Gaussian kernel on (x, y) with one
bandwidth of 0.05 must tile y's range with bumps and stalls (our prototype: MSE 0.05-0.1), so
the dual's kernel reads y scaled by ``dual_y_scale`` (default 0.05: a bandwidth of 1 in y).

**The noisy-measurement task of Sec 5.5** (``task``, L3297): x~ ~ U[-0.5, 0.5], x = x~ + 0.05 e,
y = (sin(3.5 pi x~) + cos(7.7 pi x~)) exp(-1.67 |x~|) + 3 x~^2 + 0.01 e', e, e' ~ N(0, 1); only
(x, y) is seen, the test observations are noiseless (f(x~) against the clean y). The
extraction reads "sin(3.5372)" for sin(3.5 pi x~) (the pi and x~ glyphs lost); the other
constants read cleanly. The paper reports MSE 0.0029 after 0.1M data (10 runs' average).

**The baselines** (``algorithm.fit_method``): Sec 5.6.1's SGD with virtual samples (SGD on the
upper bound E_{x,y,z} (f(z) - y)^2 / 2) and SGD-SAA (on (mean_j f(z_j) - y)^2 / 2 over the
datum's virtual samples), and plain regression of y on the noisy x, which fits E[y | x], the
truth smoothed by the input noise. ``experiment`` chooses each method's constants from the
thesis's grids on validation data (``select``) and compares the methods over runs
(``compare_methods``); ``claims`` judges Fig 5.2 (a); ``toy`` is Fig 5.1 (a GP-drawn f*);
``policy`` is Sec 5.6.2's policy evaluation (eq 5.18) on a finite MDP with its exact value.
"""

from __future__ import annotations

from . import algorithm, claims, experiment, policy, task, toy
from .algorithm import (DIVERGED, INTERIOR, METHOD_NAMES, METHODS, EmbeddingRun, MethodRun,
                        embedding_sgd, fit_method, step_size)
from .claims import ESGD_ALPHA, ESGD_MIN_RUNS, TOLERANCE, mse_claim
from .policy import (PE_METHOD_NAMES, PE_METHODS, FiniteMDP, PolicyRun, bellman_error,
                     compare_policy_evaluation, exact_value, garnet, policy_evaluation,
                     policy_evaluation_claim, state_features, value_limits)
from .experiment import (BANDWIDTHS, COMPARED, ETA0S, ETAS, LAM, SELECTED, VALIDATION,
                         VIRTUAL_SAMPLES, Comparison, SeedRuns, Selection, compare_methods,
                         seed_runs, select, selection_grid, validation_inputs)
from .task import (INPUT_NOISE, MAX_POINTS, PAPER_DATA, PAPER_MSE, conditional_mean,
                   noisy_measurement, truth)
from .toy import (RECOVERY_FACTOR, TOY_RANGE, TOY_SMOOTHING, TOY_SNAPSHOTS, ToyRun, gp_toy,
                  recovery_claim)

__all__ = ["INPUT_NOISE", "MAX_POINTS", "DIVERGED", "PAPER_DATA", "PAPER_MSE", "INTERIOR",
           "METHODS", "METHOD_NAMES", "truth", "conditional_mean", "noisy_measurement",
           "step_size", "MethodRun", "fit_method", "EmbeddingRun", "embedding_sgd", "ETAS",
           "ETA0S", "BANDWIDTHS", "VIRTUAL_SAMPLES", "VALIDATION", "LAM", "COMPARED",
           "SELECTED", "selection_grid", "validation_inputs", "Selection", "select",
           "Comparison", "compare_methods", "SeedRuns", "seed_runs", "mse_claim", "TOLERANCE",
           "ESGD_ALPHA", "ESGD_MIN_RUNS", "RECOVERY_FACTOR", "TOY_RANGE",
           "TOY_SMOOTHING", "TOY_SNAPSHOTS", "ToyRun", "gp_toy", "recovery_claim",
           "PE_METHODS", "PE_METHOD_NAMES", "FiniteMDP", "garnet", "state_features",
           "exact_value", "bellman_error", "value_limits", "PolicyRun", "policy_evaluation",
           "compare_policy_evaluation", "policy_evaluation_claim"]


def _warmup() -> None:
    """No Numba kernels here (NumPy on a batch of features a step): nothing to compile."""
