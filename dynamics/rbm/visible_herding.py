"""Herding a fully visible model of first and second order statistics (Chen & Welling Sec 1.4.1
and the caption of Fig 1.13): what the figure shows, judged by ``pair_matching_claim``.

Fig 1.13 shows pseudo-samples of herding with the features phi(s) = (s_i, s_i s_j) (i < j) on
binary data, s in {-1, +1}^n: the data's means and pairs are the herded moments, so the caption's
"data and pseudo-samples have the same first and second order statistics" is Prop 1.2's moment
matching at O(1/tau) wherever the perceptron cycling condition holds. On 64 pixels the argmax of
eq 1.7 over 2^64 states is intractable; it is found as the paper does for its large models
(Sec 1.4.1, the Ising herding of Sec 1.3.2): coordinate ascent from the previous pseudo-sample
(a unit flips when its field w_i + sum_j W_ij s_j disagrees with its sign, until none does).

Exact on every machine: the moments are multiples of 1/D (D data cases), so the kernel keeps
D w in integers; the fields and scores are exact, a unit on a zero field keeps its sign, units
are visited in order, the first step starts from the first data case, and the weights start at
0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..checks import as_generator, check_array, check_count, check_instance
from ..claims import Threshold, Verdict, stated
from .hidden_herding import pixel_pairs

__all__ = ["VisibleHerding", "herd_visible", "pair_matching_claim", "FIG113_DRAWS"]


@dataclass(frozen=True)
class VisibleHerding:
    """A run of herding the means and pairs of -1/+1 data (eqs 1.7-1.8): ``states`` (steps, n)
    the pseudo-samples, ``pct_held`` (steps,) whether the step's state scored at least the
    data's mean score (the PCT condition, eq 1.38: Prop 1.2's rate needs it), ``sweeps``
    (steps,) the coordinate-ascent sweeps each argmax took."""

    states: np.ndarray
    pct_held: np.ndarray
    sweeps: np.ndarray


@njit(cache=True, nogil=True)
def _herd_visible_kernel(data, steps, max_sweeps, states, pct, sweeps_out):
    D, n = data.shape
    x_sum = np.zeros(n, np.int64)
    xx_sum = np.zeros((n, n), np.int64)
    for d in range(D):
        for i in range(n):
            x_sum[i] += data[d, i]
            for j in range(n):
                if i != j:
                    xx_sum[i, j] += data[d, i] * data[d, j]
    b = np.zeros(n, np.int64)           # D times the weights: exact integers
    W = np.zeros((n, n), np.int64)
    s = data[0].astype(np.int64)
    field = np.zeros(n, np.int64)
    for t in range(steps):
        for i in range(n):
            f = b[i]
            for j in range(n):
                f += W[i, j] * s[j]
            field[i] = f
        sweeps = 0
        changed = True
        while changed and sweeps < max_sweeps:
            changed = False
            sweeps += 1
            for i in range(n):
                if field[i] * s[i] < 0:     # flipping raises the score by 2 |field|
                    s[i] = -s[i]
                    for j in range(n):
                        field[j] += 2 * W[j, i] * s[i]
                    changed = True
        sweeps_out[t] = sweeps
        # D * score(s) against D * the data's mean score (both times D: integers)
        score = 0
        mean_score = 0
        for i in range(n):
            score += b[i] * s[i]
            mean_score += b[i] * x_sum[i]
            for j in range(i + 1, n):
                score += W[i, j] * s[i] * s[j]
                mean_score += W[i, j] * xx_sum[i, j]
        pct[t] = score * D >= mean_score
        for i in range(n):
            states[t, i] = s[i]
            b[i] += x_sum[i] - D * s[i]
            for j in range(n):
                if i != j:
                    W[i, j] += xx_sum[i, j] - D * s[i] * s[j]


def herd_visible(data, steps: int, *, max_sweeps: int = 100) -> VisibleHerding:
    """Herding (eqs 1.7-1.8) with the features s_i and s_i s_j (i < j) on -1/+1 ``data``
    (D, n), ``steps`` pseudo-samples, each argmax by coordinate ascent from the previous state
    (at most ``max_sweeps`` sweeps over the units; see the module docstring)."""
    x = check_array("data", data, ndim=2)
    if x.shape[0] < 1 or not 2 <= x.shape[1] <= 256 or not np.all(np.abs(x) == 1):
        raise ValueError(f"data must be a non-empty (D, n) array of -1 and +1 with 2 <= n <= "
                         f"256, got shape {x.shape}")
    if x.shape[0] > 100_000:
        raise ValueError(f"data must have at most 100,000 rows, got {x.shape[0]}")
    steps = check_count("steps", steps, high=1_000_000)
    max_sweeps = check_count("max_sweeps", max_sweeps, high=100_000)
    n = x.shape[1]
    states = np.empty((steps, n), np.int8)
    pct = np.empty(steps, np.bool_)
    sweeps = np.empty(steps, np.int64)
    _herd_visible_kernel(x.astype(np.int64), steps, max_sweeps, states, pct, sweeps)
    return VisibleHerding(states=states, pct_held=pct, sweeps=sweeps)


_STATEMENT = ("Herding's pseudo-samples and the data have the same first and second order "
              "statistics (Fig 1.13, a fully visible model herding the means and pairs).")
#: Sets of independent draws from the data the pseudo-samples' errors are ranked against.
FIG113_DRAWS = Threshold(
    20, name="FIG113_DRAWS", claim="dynamics.rbm.visible_herding.pair_matching_claim",
    statement=_STATEMENT,
    rule="herding's mean |error| of the means and of the pairs below that of every one of the "
         "sets of as many independent draws (above every one: differs; else not decided)",
    why="below all of 20 sets is a one-sided 1/21 < 5 % chance for a method no better than "
        "independent draws, the Z rule's level")


@stated
def pair_matching_claim(run: VisibleHerding, data, *, seed=0) -> Verdict:
    """Chen & Welling Fig 1.13: herding's pseudo-samples and the data "have the same first and
    second order statistics", judged on a fully visible model that herds them (``herd_visible``).

    Rule: the mean |difference| between the pseudo-samples' and the data's pixel means, and
    likewise for the pairs mean s_i s_j (``pixel_pairs``), is ranked among the same errors of
    ``FIG113_DRAWS`` sets of as many cases drawn independently from the data with replacement
    (``seed``), the Monte Carlo baseline: below every set, for the means and the pairs,
    reproduces; above every set for either differs; otherwise not decided."""
    check_instance("run", run, VisibleHerding)
    X = check_array("data", data, ndim=2)
    steps, n = run.states.shape
    if X.shape[0] < 1 or X.shape[1] != n or not np.all(np.abs(X) == 1):
        raise ValueError(f"data must be a non-empty (D, {n}) array of -1 and +1 (the run's "
                         f"units), got shape {X.shape}")
    rng = as_generator(seed)
    target = X.mean(axis=0), pixel_pairs(X)
    herd = (float(np.abs(run.states.mean(axis=0) - target[0]).mean()),
            float(np.abs(pixel_pairs(run.states) - target[1]).mean()))
    iid = np.empty((int(FIG113_DRAWS), 2))
    for r in range(len(iid)):
        draws = X[rng.integers(0, len(X), size=steps)]
        iid[r] = (np.abs(draws.mean(axis=0) - target[0]).mean(),
                  np.abs(pixel_pairs(draws) - target[1]).mean())
    checks = []
    for k, what in enumerate(("means", "pairs")):
        lo, hi = float(iid[:, k].min()), float(iid[:, k].max())
        span = (f"the {what} are off by {herd[k]:.4f} on average, {len(iid)} sets of {steps} "
                f"independent draws by {lo:.4f} to {hi:.4f}")
        checks.append((True if herd[k] < lo else False if herd[k] > hi else None,
                       span, span + " (inside their range)"))
    held = float(run.pct_held.mean())
    return Verdict.from_checks(
        "Chen & Welling, Fig 1.13", _STATEMENT, checks,
        measured=(f"{steps} pseudo-samples of herding the {n} pixels' means and "
                  f"{n * (n - 1) // 2} pairs (local argmax, PCT held at {100 * held:.1f} % of "
                  f"steps): means off by {herd[0]:.4f}, pairs by {herd[1]:.4f}; {len(iid)} sets "
                  f"of independent draws: means {iid[:, 0].min():.4f}-{iid[:, 0].max():.4f}, "
                  f"pairs {iid[:, 1].min():.4f}-{iid[:, 1].max():.4f}"),
        why=(f"the means ({herd[0]:.4f}) and the pairs ({herd[1]:.4f}) are closer to the data's "
             f"than every one of {len(iid)} sets of {steps} independent draws"),
        numbers=dict(herding_means=herd[0], herding_pairs=herd[1],
                     iid_means=iid[:, 0].tolist(), iid_pairs=iid[:, 1].tolist(),
                     pct_held=held),
        effect="mean |pseudo-samples' - data's| means and pairs, against independent draws",
        rule=f"below all {len(iid)} sets of independent draws, for means and pairs",
        thresholds={"FIG113_DRAWS": FIG113_DRAWS},
        power=(f"decides a gap beyond the draws' range: pairs {iid[:, 1].min():.4f}-"
               f"{iid[:, 1].max():.4f}"))


def _warmup() -> None:
    herd_visible(np.array([[1, -1, 1], [-1, 1, 1]], np.int8), 2)
