"""Particle mirror descent (PMD): Bayesian inference as stochastic mirror descent over densities.

Dai, *Learning over functions, distributions and dynamics via stochastic optimization*, chapter 4
(Secs 4.3.1-4.3.3, Algorithm 3; the mixture-model experiment of Sec 4.6.1, Fig 4.1).

The posterior of N data is the minimiser over densities q of
``KL(q || p) - N E_q[mean log p(x | theta)]``. Stochastic mirror descent with the entropy as the
mirror map and a minibatch gradient gives the exact prox-mapping (eq 4.3)

    q_{t+1}(theta)  proportional to  q_t(theta)^(1 - gamma_t) (p(theta) p(X_t | theta)^(N / b))^gamma_t

where ``X_t`` is the t-th minibatch of b points and ``p(X_t | theta)^(N / b)`` is the batch's
average likelihood raised to N. With ``gamma_t = 1/t`` and one pass over the data in T = N / b
batches, the product telescopes: every batch enters the last iterate with weight 1/T, so
q_{T+1} is the exact posterior. Algorithm 3 (garbled in the seed's text) approximates each
prox-mapping in one of two ways, re-derived here from eqs 4.5-4.8:

- **weighted particles** (Sec 4.3.1, "good prior"): theta_i ~ q_s once, then
  ``log alpha_i <- (1 - gamma_t) log alpha_i + gamma_t (log p(theta_i) + (N / b) log p(X_t | theta_i)
  - log q_s(theta_i))``, normalised. With q_s = p this is eq 4.6 (the prior terms cancel). The
  ``- log q_s`` term is our derivation for particles drawn from another base density q_s: the
  weights are the density ratio q_t / q_s, and the update above keeps it exact.
- **weighted kernel density estimate** (Sec 4.3.2, eqs 4.7-4.8): draw m_t particles from q_t
  (ancestor j with probability alpha_j, plus h_t N(0, I) jitter, which is sampling the KDE),
  ``log alpha_i = -gamma_t log q_t(theta_i) + gamma_t (log p(theta_i) + (N / b) log p(X_t | theta_i))``,
  normalised, and q_{t+1} = sum_i alpha_i K_h(theta - theta_i). q_1 = p is evaluated exactly.

Algorithm 3's text (L2137) recommends the KDE first and large weighted particle sets after it:
``strategy="hybrid"`` runs the KDE branch over the first ``switch`` fraction of the batches, then
draws ``particles`` particles from the KDE once and reweights them (the particle branch with q_s
the KDE). In the KDE branch m_t grows linearly to ``particles`` and h_t shrinks as m_t^(-1/4)
(Theorem 17: h = O(m^(-1/(d + 2 beta))), d = 2, beta = 1 for the Gaussian kernel). The seed
states neither the step sizes nor the m_t schedule of its experiment: these are our choices.

The default strategy is "particles": on the Sec 4.6.1 data it keeps both modes, while the KDE
and hybrid branches, with a fixed final budget of 1500 particles, mostly end in one mode (the
first step, gamma_1 = 1, weighs the prior draws by the first batch's likelihood^(N/b), and the
narrow cloud that follows cannot travel to the posterior). The measured numbers are in
docs/paper-comparisons.md.

All weights are kept in log space. Kernel sums (the m x m cost of the KDE branch) run in Numba.

A package by subject, every public name imported here:

- ``model``: ``MixtureModel`` and its presets, the exact ``grid_posterior``, ``total_variation``
  and ``cross_entropy`` on grids;
- ``kde``: ``weighted_kde`` (Numba, cell list), the median-trick bandwidth, the effective sample
  size, and the results ``Particles`` and ``GaussianFit``;
- ``mirror``: ``particle_mirror_descent``;
- ``baselines``: ``sgld``, ``one_pass_smc``, ``gibbs``, ``svi``;
- ``npv``: ``sgd_npv``, stochastic nonparametric variational inference (Fig 4.1's sixth
  method, ``EXTRA_METHODS``: too slow for the page at 1500 components), ``entropy_bound``;
- ``metric``: how Fig 4.1 scores a method: ``reference_bandwidth`` (one kernel per data set,
  chosen on exact posterior draws, in place of the paper's median trick, whose bandwidth follows
  a sample's mode split), the floor (``floor_scores``), ``estimate_on``, the mode shares;
- ``experiment``: Fig 4.1, ``compare_methods``, ``compare_repeats`` and ``metric_redraws``;
- ``logistic``: Bayesian logistic regression by PMD (Sec 4.6.2) on scikit-learn's digits 8
  against 6, ``logistic_pmd`` (the hybrid in d dimensions), ``logistic_sgld``, the MALA
  reference (``mala``, ``split_rhat``, ``reference_posterior``) and ``compare_logistic``;
- ``rate``: Theorem 18's O(1/sqrt(m)) measured, ``particle_rate`` and ``rate_claim``;
- ``claims``: Fig 4.1's claims judged on ``compare_repeats``: ``best_method_claim`` (PMD lowest
  in total variation and cross entropy) and ``both_modes_claim`` (PMD keeps both modes, Gibbs
  and SGLD one).

The model's presets (``MODEL_PRESETS``) hold both readings of Sec 4.6.1's "sigma_x = 2.5": a
variance (the first, the default) and a standard deviation.
"""

from __future__ import annotations

from dynamics.pmd import model
from dynamics.pmd.model import (  # noqa: F401
    DENSITY_FLOOR, MODEL_PRESETS, Grid, MixtureModel, cross_entropy, grid_posterior,
    total_variation,
)
from dynamics.pmd import kde
from dynamics.pmd.kde import (  # noqa: F401
    CUTOFF, GaussianFit, Particles, effective_sample_size, kde_numpy, median_bandwidth,
    weighted_kde,
)
from dynamics.pmd import mirror
from dynamics.pmd.mirror import (  # noqa: F401
    BANDWIDTH_RULES, MIN_ESS, STEP_SIZES, STRATEGIES, batch_weights, mirror_descent_iterate,
    particle_mirror_descent, step_size,
)
from dynamics.pmd import baselines
from dynamics.pmd.baselines import LIU_WEST_SHRINK, gibbs, one_pass_smc, sgld, svi  # noqa: F401
from dynamics.pmd import npv
from dynamics.pmd.npv import GaussianMixture, entropy_bound, sgd_npv  # noqa: F401
from dynamics.pmd import metric
from dynamics.pmd.metric import (  # noqa: F401
    METRIC_BANDWIDTHS, MODE_FLOOR, estimate_on, exact_samples, floor_scores, mode_shares,
    reference_bandwidth, result_mode_shares,
)
from dynamics.pmd import experiment
from dynamics.pmd.experiment import (  # noqa: F401
    EXTRA_METHODS, FLOOR_DRAWS, METHODS, GRID_SHARE, Comparison, RepeatSummary, average_densities,
    compare_methods,
    compare_repeats, metric_redraws, posterior_grid,
)

from dynamics.pmd import logistic
from dynamics.pmd.logistic import (  # noqa: F401
    LOGISTIC_METHODS, LogisticComparison, LogisticData, LogisticRun, Reference, compare_logistic,
    digits_pair, log_posterior, logistic_pmd, logistic_sgld, mala, predictive,
    reference_posterior, split_rhat,
)
from dynamics.pmd import rate
from dynamics.pmd.rate import (  # noqa: F401
    BOOTSTRAPS, RATE_TOLERANCE, RateResult, fit_slope, particle_rate, rate_claim,
)

from dynamics.pmd import claims
from dynamics.pmd.claims import (  # noqa: F401
    MEAN_GAP_TOLERANCE, BEST_ALPHA, best_method_claim, both_modes_claim,
    logistic_claim,
)

__all__ = [*model.__all__, *kde.__all__, *mirror.__all__, *baselines.__all__,
           *npv.__all__, *metric.__all__, *experiment.__all__, *logistic.__all__,
           *rate.__all__, *claims.__all__]


def _warmup() -> None:
    """Compile every kernel of the package on tiny inputs with the production dtypes."""
    model._warmup()
    kde._warmup()
    baselines._warmup()
    npv._warmup()
