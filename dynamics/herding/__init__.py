"""Herding: a deterministic dynamical system that generates samples matching given moments.

Implements Chen & Welling, *Herding as a Learning System with Edge-of-Chaos Dynamics*
(seed paper ``000``): the herding map of eqs 1.7-1.8 for D discrete states x_0, ..., x_{D-1} with
K features, the Tipi function (eq 1.10), the perceptron-cycling quantity (eq 1.40), the moment
error of Prop 1.2, the autocorrelation of eq 1.13 and the word counts M(T) behind the topological
entropy of eqs 1.36-1.37, plus the cones of weight space (Fig 1.10).

Conventions: ``features`` is the (D, K) table whose row d is phi(x_d); ``moments`` is the target
phi_bar (K,); states are the row indices 0..D-1 of ``features``; ties in an argmax go to the
lowest index, found exactly (integer scores for integer features and moments that are multiples
of 1/N; see ``herd``'s notes).

A package by subject, every public name imported here: ``samples`` (the map, its samples and
their statistics), ``attractor`` (the cones and the Tipi function), ``dimension`` (the box-counting
and correlation dimensions of the attractor, scale by scale, and the hexagon example),
``claims`` (the paper's claims, judged on runs of these), ``studies`` (the attractor's
dimension over several models, for the gallery's report), ``datasets`` (binary data sets, their
distributions and the pseudo-likelihood Boltzmann machine) and ``data`` (herding as a learning
system on those data sets: Tables 1.1-1.2, Fig 1.12). The names of ``datasets`` and ``data``
are not imported here; ``data`` re-exports those of ``datasets``.
"""

from __future__ import annotations

from dynamics.herding import (  # noqa: F401
    attractor, claims, data, datasets, dimension, samples, studies,
)
from dynamics.herding.samples import (  # noqa: F401
    MAX_STEPS,
    SCORE_REFRESH,
    MAX_WEIGHT_ENTRIES,
    CYCLING_RTOL,
    MIN_ERROR_LENGTH,
    SLOPE_BINS,
    RandomModel,
    HerdingResult,
    MomentError,
    random_model,
    herd,
    moment_error,
    autocorrelation,
    word_counts,
    _herd_kernel,  # the kernel, tested against its NumPy reference
)
from dynamics.herding.attractor import (  # noqa: F401
    ConeSectors,
    cone_labels,
    cone_sectors,
    tipi,
)
from dynamics.herding.dimension import (  # noqa: F401
    COARSEST_SIDE,
    HEXAGON_MOMENTS,
    BoxDimension,
    box_dimension,
    CorrelationDimension,
    correlation_dimension,
    AttractorDimension,
    attractor_dimension,
    hexagon_model,
)
from dynamics.herding.claims import (  # noqa: F401
    RATE_MIDPOINT,
    DIMENSION_SLACK,
    moment_rates_claim,
    attractor_claim,
)
from dynamics.herding.studies import AttractorStudy, attractor_study  # noqa: F401

__all__ = [*samples.__all__, *attractor.__all__, *dimension.__all__, *claims.__all__,
           *studies.__all__]


def _warmup() -> None:
    """Compile (or load from cache) the package's kernels with the production dtypes."""
    samples._warmup()
    data._warmup()
