"""Bayesian online learning by assumed-density filtering (Opper, *A Bayesian Approach to Online
Learning*, secs 6-9), and the exact batch posterior it approximates.

A package by subject, every public name imported here: ``adf`` (the ADF updates, eqs 7.1-7.2 and
9.1-9.4, the teacher-student learning curve of Fig 2 and the replica curve of batch Bayes for
N -> infinity), ``toy`` (the 1-D toy of Fig 1 and its misspecified version, eq 8.10),
``batch`` (the batch Bayes posterior at finite N, by quadrature and by elliptical slice
sampling, and the Hebbian form of the spherical update, the remark after eq 9.4) and ``claims``
(both claims, judged on runs of these). See each module's docstring for the equations.
"""

from __future__ import annotations

from dynamics.bayes import adf, batch, claims, toy
from dynamics.bayes.adf import (  # noqa: F401
    MAX_NOISE,
    FIG2_N,
    FIG2_SIGMA,
    QUOTED_ALPHA,
    Posterior,
    PosteriorPath,
    LearningCurve,
    adf_update,
    gaussian_update,
    adf_perceptron,
    adf_path,
    teacher_data,
    generalization_error,
    learning_curve,
    replica_bayes_curve,
    _g,
    _g_nb,
    _log_ndtr_nb,
)
from dynamics.bayes.toy import (  # noqa: F401
    TOY_THETA,
    TOY_SIGMA,
    ToyRun,
    toy_fisher,
    toy_sandwich,
    toy_runs,
)
from dynamics.bayes.batch import (  # noqa: F401
    MAX_QUADRATURE_N,
    MIN_SAMPLER_NOISE,
    BATCH_MIN_NOISE_RATIO,
    BatchCurve,
    posterior_mean_quadrature,
    posterior_mean_gibbs,
    batch_bayes_finite,
    hebb_weight,
)

from dynamics.bayes.claims import (  # noqa: F401
    EFFICIENCY_TOLERANCE,
    BAYES_TOLERANCE,
    efficiency_claim,
    batch_bayes_claim,
)

__all__ = [*adf.__all__, *toy.__all__, *batch.__all__, *claims.__all__]


def _warmup() -> None:
    """Compile every kernel of the package on tiny inputs with the production dtypes."""
    adf._warmup()
    toy._warmup()
    batch._warmup()
