"""Bias and variance of hierarchical models: higher-order Boltzmann machines (HBM) against RBMs
(Luo & Sugiyama; the log-linear model on the subset poset, eqs 4-8, Figs 3-9).

A package by subject, every public name imported here: ``model`` (the poset model, eqs 4-6, its
fits, the bias-variance decomposition and sweep, and the paper's samplers ``gibbs_eta`` and
``ais_log_z``, eq 8), ``rbm`` (the RBM on the same visible units, and the checks both share) and
``inference`` (the paper's own inference, Gibbs-sampled gradients and AIS log Z, against the
exact computation on the same datasets). See ``model``'s docstring for the equations.
"""

from __future__ import annotations

from dynamics.hbm import inference, model, rbm
from dynamics.hbm.model import (  # noqa: F401
    MAX_N,
    PAPER_N,
    PAPER_HIDDEN,
    RBM,
    AISEstimate,
    BiasVariance,
    Model,
    Sweep,
    eta_of,
    p_of_eta,
    theta_of,
    p_of_theta,
    popcount,
    order_mask,
    n_parameters,
    kl,
    random_distribution,
    project,
    empirical,
    fit_hbm,
    visible_states,
    rbm_log_p,
    fit_rbm_cd,
    fit_rbm_exact,
    rbm_parameters,
    gibbs_eta,
    ais_log_z,
    exact_log_z,
    bias_variance,
    sweep,
    bias_variance_claim,
)
from dynamics.hbm.inference import (  # noqa: F401
    AIS_TOLERANCE,
    GIBBS_TOLERANCE,
    InferenceStudy,
    inference_study,
    inference_claim,
)

__all__ = [*model.__all__, *inference.__all__]


def _warmup() -> None:
    """Compile every kernel of the package on tiny inputs with the production dtypes."""
    model._warmup()
