"""Fig 1.1's claim (``dynamics.bifurcation.feigenbaum_claim``) on cascades built by hand, whose
answer is known: the three outcomes, and too few doublings not decided."""

from __future__ import annotations

import numpy as np
import pytest

from dynamics import bifurcation as bf
from dynamics.bifurcation._kernels import FEIGENBAUM_DELTA
from dynamics.bifurcation.cascade import PeriodDoublings


def _cascade(ratio, doublings: int = 6, *, half_width: float = 0.0) -> PeriodDoublings:
    """Doublings at T_1 = 1 with intervals shrinking by ``ratio`` (a number, or one per
    interval after the first); each read off a grid with a bracket of half-width
    ``half_width`` times the last interval (0: refined by bisection)."""
    ratios = np.broadcast_to(np.asarray(ratio, float), (doublings - 2,))
    intervals = 0.1 / np.r_[1.0, np.cumprod(ratios)]
    t = np.r_[1.0, 1.0 - np.cumsum(intervals)]
    h = half_width * intervals[-1]
    return PeriodDoublings(
        periods=2 ** np.arange(1, doublings + 1), temperatures=t,
        brackets=np.c_[t - h, t + h], refined=np.full(doublings, half_width == 0.0),
        intervals=intervals, ratios=intervals[:-1] / intervals[1:], t_thresh_grid=None,
        t_thresh_extrapolated=None)


def test_feigenbaum_three_outcomes():
    ok = bf.feigenbaum_claim(_cascade(FEIGENBAUM_DELTA))
    assert ok.result == "reproduced" and ok.thresholds["FEIGENBAUM_TOLERANCE"] is \
        bf.FEIGENBAUM_TOLERANCE and "±0.00%" in ok.power
    # a cascade of another kind: intervals halving (ratio 2), or 10 % off delta
    for ratio in (2.0, 0.9 * FEIGENBAUM_DELTA):
        v = bf.feigenbaum_claim(_cascade(ratio))
        assert v.result == "differs" and "more than 1%" in v.why
    # delta itself, but each doubling read off a grid whose bracket is 0.3 of the last
    # interval: the ratio could be anywhere in about [2.3, 14]
    v = bf.feigenbaum_claim(_cascade(FEIGENBAUM_DELTA, half_width=0.3))
    assert v.result == "not decided" and "not located finely enough" in v.why
    assert v.numbers["last_ratio_low"] < FEIGENBAUM_DELTA < v.numbers["last_ratio_high"]
    # the same brackets around an off ratio: far enough off that the whole range is outside
    v = bf.feigenbaum_claim(_cascade(2.0, half_width=0.01))
    assert v.result == "differs"


def test_feigenbaum_a_cascade_still_converging_is_not_decided():
    """Ratios 5.6, 5.3, 4.95, 4.74 (the last 1.5 % off delta, still moving by 0.21): what the
    ratios still move, 0.21 / (delta - 1) = 0.057, reaches inside 1 %; the same last ratio after
    ratios that have settled (moving by 0.001) differs."""
    v = bf.feigenbaum_claim(_cascade([5.6, 5.3, 4.95, 4.74]))
    assert v.result == "not decided" and "the ratios still move" in v.why
    assert v.numbers["last_ratio_low"] < 1.01 * FEIGENBAUM_DELTA < v.numbers["last_ratio_high"]
    assert bf.feigenbaum_claim(_cascade([4.8, 4.75, 4.741, 4.74])).result == "differs"
    assert bf.feigenbaum_claim(_cascade([5.6, 4.9, 4.69, 4.67])).result == "reproduced"


def test_feigenbaum_needs_three_ratios():
    v = bf.feigenbaum_claim(_cascade(FEIGENBAUM_DELTA, doublings=4))  # two ratios
    assert v.result == "not decided" and "at least 3" in v.why
    assert bf.feigenbaum_claim(_cascade(FEIGENBAUM_DELTA, doublings=5)).result == "reproduced"
    with pytest.raises(TypeError, match="cascade"):
        bf.feigenbaum_claim("cascade")
