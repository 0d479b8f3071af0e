"""Herding with hidden units (Chen & Welling Sec 1.3.3 and 1.4.2): page ``rbm``.

A package by subject: ``hidden_herding`` (an RBM's weights herded on binarised digits, eqs
1.46-1.55, Prop 1.8-1.9), ``visible_herding`` (a fully visible model herding the pixels' means
and pairs: Fig 1.13's caption) and ``herding_classify`` (herded hidden units as a classifier
of digits, Sec 1.4.2, Fig 1.14). Each module's docstring names its equations.
"""

from __future__ import annotations

from dynamics.rbm import herding_classify, hidden_herding, visible_herding

__all__ = ["hidden_herding", "herding_classify", "visible_herding"]


def _warmup() -> None:
    """Compile every kernel of the package on tiny inputs with the production dtypes."""
    hidden_herding._warmup()
    herding_classify._warmup()
    visible_herding._warmup()
