"""Exact arithmetic for argmax kernels whose scores can tie exactly (shared by the ``herding``,
``ising`` and ``pct`` engines).

Herding-type kernels pick argmax_x w . phi(x). When the features phi are integers and the
moments (and the initial weights) are multiples of 1/N, the weights stay multiples of 1/N and
two states' scores can be exactly equal; floating-point scores then decide such a tie by
rounding, which depends on the order of summation (BLAS, CPU, package versions). These helpers
find the scale N that makes every score an integer, so a kernel can keep N w in int64 and break
ties by an exact rule (the lowest state index).

The rule: a double x is taken as the fraction ``Fraction(x).limit_denominator(max_denominator)``
when that fraction rounds back to x (x is the double nearest to it); a vector of doubles is
exact when every entry is, and its scale N is the least common multiple of the denominators.
Everything is computed with Python integers, so the outcome is the same on every machine.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

__all__ = ["MAX_DENOMINATOR", "INT_LIMIT", "rational_scale", "integer_table"]

#: Largest scale N (a denominator) the exact kernels use: N w and N phi_bar are integers.
MAX_DENOMINATOR = 1 << 24
#: Largest magnitude of an integer score or weight the int64 kernels allow (headroom for sums).
INT_LIMIT = 1 << 62


def rational_scale(values, *, max_denominator: int = MAX_DENOMINATOR):
    """(N, numerators) with ``values == numerators / N`` (each entry the double nearest to its
    fraction) and N <= ``max_denominator``, or None when some entry is not such a fraction.
    ``numerators`` is a list of Python ints in the order of ``values.ravel()``."""
    fractions = []
    for x in np.asarray(values, dtype=np.float64).ravel().tolist():
        if not math.isfinite(x):
            return None
        f = Fraction(x).limit_denominator(max_denominator)
        if f.numerator / f.denominator != x:  # int / int is correctly rounded in Python
            return None
        fractions.append(f)
    N = 1
    for f in fractions:
        N = N * f.denominator // math.gcd(N, f.denominator)
        if N > max_denominator:
            return None
    return N, [f.numerator * (N // f.denominator) for f in fractions]


def integer_table(values, *, limit: int = INT_LIMIT):
    """``values`` as an int64 array when every entry is an integer of magnitude < ``limit``,
    else None."""
    a = np.asarray(values, dtype=np.float64)
    if a.size and (not np.all(np.isfinite(a)) or np.abs(a).max() >= min(limit, 2.0**53)
                   or not np.array_equal(a, np.round(a))):
        return None
    return a.astype(np.int64)
