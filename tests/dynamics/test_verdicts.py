"""The claims' shared vocabulary (``dynamics.claims``): three outcomes, the z rule, the paired
and McNemar comparisons and the equivalence test, each on numbers whose answer is known."""

from __future__ import annotations

import copy
import math

import pytest

from dynamics.claims import (DIFFERS, NOT_DECIDED, REPRODUCED, THRESHOLDS, Threshold, Verdict,
                             Z, decide, equivalence, mcnemar, paired_difference)


def test_three_outcomes_from_checks():
    def v(*checks):
        return Verdict.from_checks("c", "s", checks, measured="m", why="held")

    assert v((True, "a")).result == REPRODUCED and v((True, "a")).outcome == "reproduced"
    assert v((True, "a"), (False, "b failed")).outcome == "differs: b failed"
    # an undecided check makes the whole not decided, unless another one failed
    assert v((True, "a"), (None, "x", "c is a tie")).outcome == "not decided: c is a tie"
    assert v((None, "x", "tie"), (False, "b failed")).result == DIFFERS
    assert Verdict("c", "s", None, "m", "w").result == NOT_DECIDED


def test_the_z_rule_decides_beyond_z_standard_errors_only():
    assert decide(2.0, 1.0) is True and decide(-2.0, 1.0) is False
    assert decide(1.9, 1.0) is None and decide(0.0, 0.0) is None
    assert decide(Z * 1.0, 1.0) is True  # exactly Z standard errors decides
    assert decide(0.3, 0.1, margin=0.5) is False and decide(0.7, 0.1, margin=0.5) is True
    with pytest.raises(ValueError, match="se"):
        decide(1.0, math.nan)
    with pytest.raises(ValueError, match="se"):
        decide(1.0, -1.0)


def test_paired_difference_and_mcnemar():
    mean, se = paired_difference([3, 4, 5], [1, 1, 1])
    assert mean == 3.0 and se == pytest.approx(1 / math.sqrt(3))
    # A wrong on cases 0,1,2; B on 2,3: only A 2, only B 1
    only_a, only_b, stat = mcnemar([1, 1, 1, 0, 0], [0, 0, 1, 1, 0])
    assert (only_a, only_b) == (2, 1) and stat == pytest.approx(-1 / math.sqrt(3))
    assert mcnemar([0, 1], [0, 1])[2] == 0.0
    with pytest.raises(ValueError, match="wrong_a"):
        mcnemar([1, 0], [1])


def test_equivalence_needs_the_interval_inside_the_margin():
    assert equivalence(0.1, 0.1, 1.0) is True
    assert equivalence(3.0, 0.1, 1.0) is False
    # a noisier run does not pass more easily: it is not decided
    assert equivalence(0.1, 1.0, 1.0) is None
    with pytest.raises(ValueError, match="margin"):
        equivalence(0.0, 0.1, 0.0)


def test_a_threshold_is_registered_once_and_arithmetic_on_it_is_a_plain_float():
    assert Z in THRESHOLDS and Z.name == "Z" and Z.why
    n = len(THRESHOLDS)
    assert type(Z * 2) is float and type(copy.deepcopy(Z)) is float
    assert len(THRESHOLDS) == n
