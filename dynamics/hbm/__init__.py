"""Bias and variance of hierarchical models: higher-order Boltzmann machines (HBM) against RBMs
(Luo & Sugiyama; the log-linear model on the subset poset, eqs 4-8, Figs 3-9).

A package by subject, every public name imported here: ``model`` (the poset model, eqs 4-6, its
fits, and the paper's samplers ``gibbs_eta`` and ``ais_log_z``, eq 8), ``rbm`` (the RBM on the
same visible units, and the checks both share), ``experiment`` (the bias-variance decomposition,
L183-190, and its sweep over N, Figs 3-9), ``claims`` (the paper's claim on a sweep) and
``inference`` (the paper's own inference, Gibbs-sampled gradients and AIS log Z, against the
exact computation on the same datasets). See ``model``'s docstring for the equations.
"""

from __future__ import annotations

from dynamics.hbm import claims, experiment, inference, model, rbm
from dynamics.hbm.model import (  # noqa: F401
    MAX_N,
    PAPER_N,
    PAPER_HIDDEN,
    RBM,
    AISEstimate,
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
)
from dynamics.hbm.experiment import (  # noqa: F401
    BiasVariance,
    Model,
    Sweep,
    bias_variance,
    sweep,
)
from dynamics.hbm.claims import BIAS_ROUNDING, bias_variance_claim  # noqa: F401
from dynamics.hbm.inference import (  # noqa: F401
    AIS_TOLERANCE,
    AIS_SE_FACTOR,
    GIBBS_TOLERANCE,
    InferenceStudy,
    inference_study,
    inference_claim,
)

__all__ = [*model.__all__, *experiment.__all__, *claims.__all__, *inference.__all__]


def _warmup() -> None:
    """Compile every kernel of the package on tiny inputs with the production dtypes."""
    model._warmup()
