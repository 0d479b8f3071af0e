"""The doubly stochastic gradients' claims (``dynamics.dsg.claims``) on results built by hand
whose answer is known: each judged reproduced, differs and not decided."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dynamics import dsg

STEPS = np.unique(np.geomspace(1, 4096, 30).astype(int))
WOBBLE = np.where(np.arange(STEPS.size) % 2, 1.0, -1.0)  # alternating: no trend of its own


def _history(power: float, wobble: float = 0.01) -> dict:
    return {"step": STEPS, "error": STEPS ** power * np.exp(wobble * WOBBLE)}


def test_rate_three_outcomes():
    v = dsg.rate_claim(_history(-1.0), steps=4096, batch=16, block=16)
    assert v.result == "reproduced" and v.numbers["slope"] == pytest.approx(-1, abs=0.01)
    assert v.thresholds["RATE_BAND"] is dsg.RATE_BAND and "residuals" in v.power
    # the O(1/sqrt(t)) rate of plain SGD, and a rate faster than Thm 11's
    for power in (-0.5, -1.6):
        assert dsg.rate_claim(_history(power), steps=4096, batch=16, block=16).result == \
            "differs"
    # a slope near the band's edge with checkpoints scattered by a factor e: inside the noise
    v = dsg.rate_claim(_history(-0.8, wobble=1.0), steps=4096, batch=16, block=16)
    assert v.result == "not decided" and v.numbers["slope_se"] > 0.05
    short = {"step": np.array([200, 400, 800]), "error": np.array([1.0, 0.5, 0.25])}
    v = dsg.rate_claim(short, steps=800, batch=16, block=16)
    assert v.result == "not decided" and "at least 4" in v.why


def _gp_run(mean_power: float, variance_power: float, wobble: float = 0.01):
    seen = 64 * STEPS
    history = {"step": STEPS, "seen": seen,
               "mean_error": seen ** mean_power * np.exp(wobble * WOBBLE),
               "variance_error": seen ** variance_power * np.exp(wobble * WOBBLE)}
    zero = np.zeros(3)
    return dsg.GPRun(zero, zero, zero, zero, history)


def test_posterior_three_outcomes():
    v = dsg.posterior_claim(_gp_run(-1.0, -0.7))
    assert v.result == "reproduced" and v.numbers["variance_ratio"] < dsg.POSTERIOR_FALL
    # the variance's error grows again at the end: not converging
    grows = _gp_run(-1.0, -0.7)
    late = np.arange(STEPS.size) >= STEPS.size // 2
    grows.history["variance_error"][late] *= np.geomspace(1, 100, late.sum())
    v = dsg.posterior_claim(grows)
    assert v.result == "differs" and "variance" in v.why and "growing" in v.why
    # a flat tail (a floor), and a fall of under tenfold: neither converged nor diverging
    v = dsg.posterior_claim(_gp_run(-1.0, 0.0, wobble=0.3))
    assert v.result == "not decided" and "variance" in v.why
    v = dsg.posterior_claim(_gp_run(-1.0, -0.05))
    assert v.result == "not decided" and "not below 0.1" in v.why


def test_baselines_three_outcomes():
    worse = {"r-SDCA": {"error": np.array([1.0, 0.05])},
             "n-Pegasos": {"error": np.array([1.0, 0.01])}, "k-SDCA": {"error": np.array([1e-9])}}
    v = dsg.baselines_claim(worse, {"error": np.array([1.0, 1e-3])})
    assert v.result == "reproduced" and v.numbers["ranking"].startswith("k-SDCA")
    assert v.thresholds == {"BASELINE_FACTOR": dsg.BASELINE_FACTOR}
    v = dsg.baselines_claim(worse, {"error": np.array([1.0, 0.1])})  # n-Pegasos 10x below
    assert v.result == "differs" and "n-Pegasos" in v.why
    v = dsg.baselines_claim(worse, {"error": np.array([1.0, 0.008])})  # within 2x of n-Pegasos
    assert v.result == "not decided" and "n-Pegasos" in v.why and "r-SDCA" not in v.why
    v = dsg.baselines_claim({"k-SDCA": worse["k-SDCA"]}, {"error": np.array([1.0])})
    assert v.result == "not decided"


def _digits(ours: int, theirs: int, both: int = 0, n: int = 2000):
    """A classification run on ``n`` test images: ``ours`` wrong only for doubly SGD,
    ``theirs`` only for the reference, ``both`` for both."""
    wrong = np.zeros(n, bool)
    ref = np.zeros(n, bool)
    wrong[:ours] = True
    ref[ours:ours + theirs] = True
    wrong[ours + theirs:ours + theirs + both] = ref[ours + theirs:ours + theirs + both] = True
    return dsg.ClassificationRun(
        "hinge", {"step": np.array([1, 2]), "seen": np.array([16, 32]),
                  "rate": np.array([0.5, wrong.mean()])}, float(ref.mean()), "SVC", 100, n,
        2, 16, 8, wrong=wrong, reference_wrong=ref)


def test_classification_three_outcomes():
    v = dsg.classification_claim(_digits(3, 2, both=5))  # 0.05 points apart, SE about 0.1
    assert v.result == "reproduced" and v.numbers["only_ours"] == 3
    v = dsg.classification_claim(_digits(120, 2))  # 5.9 points worse
    assert v.result == "differs" and "beyond 1 point" in v.why
    v = dsg.classification_claim(_digits(4, 1, n=177))  # the audit's split: 4 against 1 of 177
    assert v.result == "not decided" and "not inside" in v.why
    unpaired = dataclasses.replace(_digits(3, 2), wrong=None)
    assert dsg.classification_claim(unpaired).result == "not decided"
