"""The perceptron cycling theorem and the herding it licenses (Chen & Welling Sec 1.3.2 and
1.3.4, 1.4.3): page ``pct``.

A package by subject: ``generalized_herding`` (fully visible Boltzmann machines herded with exact
or local argmaxes and minibatch targets, Thm 1.7, eqs 1.38-1.40; its ``rate`` and
``rbm_features`` serve the ``rbm`` system too), ``conditional_herding`` (conditional herding and
the voted perceptron on 2-D toy data, eqs 1.56-1.62 and 1.69) and ``conditional_herding_data``
(Table 1.3's conditional herders on real data). Each module's docstring names its equations.
"""

from __future__ import annotations

from dynamics.pct import conditional_herding, conditional_herding_data, generalized_herding

__all__ = ["generalized_herding", "conditional_herding", "conditional_herding_data"]


def _warmup() -> None:
    """Compile every kernel of the package on tiny inputs with the production dtypes."""
    generalized_herding._warmup()
    conditional_herding._warmup()
    conditional_herding_data._warmup()
