"""The claims of Opper's paper that runs of ``dynamics.bayes`` judge: the online algorithm's
asymptotic efficiency on the 1-D toy (Sec 8, eq 8.10, Fig 1) and its learning curve against
batch Bayes (Sec 9, Fig 2). Part of ``dynamics.bayes``."""

from __future__ import annotations

import math

import numpy as np

from ..checks import check_array, check_instance
from ..claims import Verdict
from .adf import QUOTED_ALPHA, LearningCurve
from .toy import ToyRun
from .batch import BatchCurve

__all__ = ["EFFICIENCY_TOLERANCE", "BAYES_TOLERANCE", "efficiency_claim", "batch_bayes_claim"]


#: The efficiency ratio t J E(theta_t - theta*)^2 must be within this of 1, or within three
#: standard errors when those are wider.
EFFICIENCY_TOLERANCE = 0.05
#: How far (beyond two standard errors) the ADF curve may lie from batch Bayes at a quoted alpha.
BAYES_TOLERANCE = 0.02


def efficiency_claim(right: ToyRun, wrong: ToyRun) -> Verdict:
    """Opper, Sec 8 and Fig 1: the Bayes online algorithm "becomes asymptotically efficient"
    (eq 8.10): t J E(theta_t - theta*)^2 -> 1 on the 1-D toy; a misspecified model's error
    follows the sandwich A^-1 B A^-1 / t.

    Rule: at the last checkpoint of ``right`` (a well-specified `toy_runs`) the efficiency
    ratio t J E(theta_t - theta*)^2 is within max(3 standard errors, ``EFFICIENCY_TOLERANCE``)
    of 1. The misspecified run ``wrong`` is reported beside it, not judged."""
    check_instance("right", right, ToyRun)
    check_instance("wrong", wrong, ToyRun)
    t = float(right.t[-1])
    ratio = t * float(right.mse[-1]) / right.limit
    se = t * float(right.stderr[-1]) / right.limit
    sandwich = float(wrong.t[-1]) * float(wrong.mse[-1]) / wrong.limit
    allowed = max(3 * se, EFFICIENCY_TOLERANCE)
    ok = abs(ratio - 1) <= allowed
    return Verdict(
        claim="Opper, Fig 1",
        statement="Assumed-density filtering is asymptotically efficient: t J E(θ_t − θ*)² → 1 "
                  "(eq 8.10); a misspecified model's error follows the sandwich A⁻¹BA⁻¹/t.",
        agrees=ok,
        measured=(f"t J E(θ_t − θ*)² = {ratio:.3f} ± {se:.3f} at t = {int(t):,} "
                  f"({right.runs:,} runs); misspecified: t E(θ_t − θ_p)² / sandwich = "
                  f"{sandwich:.3f}"),
        why=(f"the efficiency ratio {ratio:.3f} ± {se:.3f} is "
             + ("within" if ok else "not within") + f" {allowed:.3f} of 1"),
        numbers=dict(efficiency=ratio, stderr=se, t=int(t), runs=int(right.runs),
                     sandwich_ratio=sandwich, allowed=allowed))


def batch_bayes_claim(curve: LearningCurve, replica, batch=None) -> Verdict:
    """Opper, Sec 9 and Fig 2: the ADF learning curve of the probit perceptron (N = 50,
    sigma_0 = 6.24) lies close to the batch Bayes error ("For comparison, we have shown the
    error for the true (batch) ...", the paper's in the thermodynamic limit).

    Rule: at every alpha of ``QUOTED_ALPHA`` that ``curve`` (`learning_curve`) reached, ADF's
    error is within two standard errors plus ``BAYES_TOLERANCE`` of ``replica`` (the
    `replica_bayes_curve` at ``curve.alpha``) and, when ``batch`` (a
    `dynamics.bayes.batch.BatchCurve` of the same N) is given, of the finite-N batch
    posterior's error (two combined standard errors). ``replica`` None (labels flipped, a noise
    the replica curve does not model) leaves the replica out; with neither, the claim is
    unjudged."""

    check_instance("curve", curve, LearningCurve)
    if batch is not None:
        check_instance("batch", batch, BatchCurve)
        if batch.N != curve.N:
            raise ValueError(f"batch must be of the curve's N = {curve.N}, got N = {batch.N}")
    quoted = [a for a in QUOTED_ALPHA if np.any(np.isclose(curve.alpha, a))]
    statement = ("The online ADF curve of the probit perceptron (N = 50, σ₀ = 6.24) lies very "
                 "close to the optimal batch Bayes curve.")
    rows, gaps = [], []
    if replica is not None:
        replica = check_array("replica", replica, shape=curve.alpha.shape)
    for a in quoted:
        k = int(np.flatnonzero(np.isclose(curve.alpha, a))[0])
        parts = []
        if replica is not None:
            parts.append(f"N → ∞ {replica[k]:.3f}")
            gaps.append(float(abs(curve.eps[k] - replica[k]) - 2 * curve.stderr[k]))
        if batch is not None and np.any(np.isclose(batch.alpha, a)):
            j = int(np.flatnonzero(np.isclose(batch.alpha, a))[0])
            parts.append(f"N = {batch.N} {batch.eps[j]:.3f} ± {batch.stderr[j]:.3f}")
            gaps.append(float(abs(curve.eps[k] - batch.eps[j])
                              - 2 * math.hypot(curve.stderr[k], batch.stderr[j])))
        rows.append(f"α {a:g}: {curve.eps[k]:.3f}" + (f" (batch Bayes {', '.join(parts)})"
                                                        if parts else ""))
    measured = f"ε of ADF, {curve.runs} runs, N = {curve.N}: " + "; ".join(rows)
    if not gaps:
        return Verdict(claim="Opper, Fig 2", statement=statement, agrees=None, measured=measured,
                       why="no batch Bayes curve for flipped labels" if replica is None and
                       batch is None else "the run reached none of the quoted α", numbers={})
    worst = max(gaps)
    ok = worst < BAYES_TOLERANCE
    against = " and ".join(
        ([] if replica is None else ["N → ∞"]) + ([] if batch is None else [f"N = {batch.N}"]))
    return Verdict(
        claim="Opper, Fig 2", statement=statement, agrees=ok, measured=measured,
        why=(f"at the quoted α ADF's distance to batch Bayes ({against}) exceeds two standard "
             f"errors by at most {worst:.3f}, " + ("under" if ok else "not under")
             + f" the {BAYES_TOLERANCE:g} allowed"),
        numbers=dict(alpha=quoted, gap_beyond_2se=gaps, tolerance=BAYES_TOLERANCE))
