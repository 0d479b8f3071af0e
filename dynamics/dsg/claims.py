"""The claims of Dai et al. 2014 that runs of ``dynamics.dsg`` judge: the O(1/t) rate
(Theorem 4) and the GP posterior (eq 3.9). Part of ``dynamics.dsg``."""

from __future__ import annotations

import numpy as np

from ..checks import check_array, check_count, check_instance, describe
from ..claims import Verdict
from .gp import GPRun
from .reference import loglog_slope

__all__ = ["RATE_BAND", "rate_claim", "posterior_claim"]


RATE_BAND = (-1.25, -0.75)


def _history(name: str, history, keys: tuple) -> dict:
    """A run's ``history`` (a dict of equal-length curves holding ``keys``, at least two
    checkpoints) checked."""
    check_instance(name, history, dict)
    if any(k not in history for k in keys):
        raise ValueError(f"{name} must hold the curves {keys}, got {describe(sorted(history))}")
    curves = {k: check_array(f"{name}[{k!r}]", history[k], ndim=1) for k in keys}
    if len({c.size for c in curves.values()}) != 1 or curves[keys[0]].size < 2:
        raise ValueError(f"{name} must hold curves of one length, at least 2, got "
                         f"{describe({k: c.size for k, c in curves.items()})}")
    return curves


def rate_claim(history: dict, *, steps: int, batch: int, block: int,
               norma: dict | None = None) -> Verdict:
    """Dai, Sec 3.6.1 and Fig 3.4(2): on the synthetic kernel ridge regression "our algorithm
    indeed converges in the rate of O(1/t)" (Thm 11), and "achieves comparable performance
    with NORMA, which uses full kernel, in similar time but less memory cost".

    Rule: the least-squares slope of log ||f_bar_t - f*||^2 against log t (``history``'s
    ``step`` and ``error`` of a `doubly_sgd` run of ``steps`` steps with minibatches of
    ``batch`` and blocks of ``block`` features), from step min(100, last / 4) on, lies in
    ``RATE_BAND``. The memory beside NORMA's (``norma``: its history, or None) is reported, not
    judged."""
    curves = _history("history", history, ("step", "error"))
    steps = check_count("steps", steps)
    batch = check_count("batch", batch)
    block = check_count("block", block)
    norma_error = float("nan")
    if norma is not None:
        check_instance("norma", norma, dict)
        errors = check_array("norma['error']", norma.get("error", []), ndim=1)
        norma_error = float(errors[-1]) if errors.size else norma_error
    step, error = curves["step"], curves["error"]
    late = step >= min(100, step[-1] // 4)
    slope = loglog_slope(step[late], error[late])
    ok = RATE_BAND[0] < slope < RATE_BAND[1]
    return Verdict(
        claim="Dai, Fig 3.4",
        statement="The averaged iterate converges to the optimum at rate O(1/t) (Thm 11), with "
                  "accuracy comparable to NORMA's in far less memory.",
        agrees=ok,
        measured=(f"log-log slope {slope:.2f} over steps {int(step[late][0])}-{steps} (batch "
                  f"{batch}, block {block}); ‖f̄ − f*‖² {error[-1]:.2e}; memory "
                  f"{steps * block + 1:,} numbers against NORMA's {steps * batch * 3:,} "
                  f"(NORMA's error after {min(steps, 1024)} steps: {norma_error:.2e})"),
        why=(f"the log-log slope {slope:.2f} is " + ("within" if ok else "outside")
             + f" ({RATE_BAND[0]:g}, {RATE_BAND[1]:g}), about −1"),
        numbers=dict(slope=slope, first_step=int(step[late][0]), error=float(error[-1]),
                     memory=steps * block + 1, norma_error=norma_error))


def posterior_claim(run: GPRun) -> Verdict:
    """Dai, Sec 3.6.2 and Fig 3.5: on 2^11 training and 2^10 test points "both the doubly
    stochastic algorithm and NORMA converge to the posterior" mean and variance.

    Rule: the squared errors of the averaged iterates against the closed form (eq 3.9), in
    ``run.history`` (a `gp_regression` run), fall below a tenth of their first values, the
    mean's at every checkpoint."""
    check_instance("run", run, GPRun)
    h = _history("run.history", run.history, ("seen", "mean_error", "variance_error"))
    mean = float(h["mean_error"][-1] / h["mean_error"][0])
    var = float(h["variance_error"][-1] / h["variance_error"][0])
    falling = bool(np.all(np.diff(h["mean_error"]) < 0))
    return Verdict.from_checks(
        "Dai, Fig 3.5",
        "On 2¹¹ training and 2¹⁰ test points (σ² = 0.1, batch 64, block 512) the doubly "
        "stochastic estimates converge to the posterior mean and variance.",
        ((mean < 0.1, f"the mean's error fell only to {mean:.3f} of its first"),
         (var < 0.1, f"the variance's error fell only to {var:.3f} of its first"),
         (falling, "the mean's error rose at some checkpoint")),
        measured=(f"after {int(h['seen'][-1]):,} points the squared errors against eq 3.9 fell "
                  f"to {mean:.3f} (mean: {h['mean_error'][-1]:.2e}) and {var:.3f} (variance: "
                  f"{h['variance_error'][-1]:.2e}) of their first values"
                  + (", falling throughout" if falling else "")),
        why="both errors fell more than tenfold, the mean's at every checkpoint",
        numbers=dict(mean_ratio=mean, variance_ratio=var, mean_falling=falling))

