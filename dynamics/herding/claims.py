"""The paper claims the herding runs are judged by (Chen & Welling, Prop 1.2 and Fig 1.4; Figs
1.2 and 1.10-1.11)."""

from __future__ import annotations

from dynamics._common import check_array, check_instance
from dynamics.claims import Verdict
from dynamics.herding.attractor import BoxDimension
from dynamics.herding.samples import HerdingResult, MomentError

__all__ = ["HERDING_RATE", "IID_RATE", "moment_rates_claim", "attractor_claim"]

#: The fitted log-log slopes that count as "O(1/T)" (below the first) and "O(1/sqrt T)"
#: (between the two of the second).
HERDING_RATE = -0.85
IID_RATE = (-0.65, -0.35)


def _lag1(name: str, autocorrelation) -> float:
    values = check_array(name, autocorrelation, ndim=1)
    if values.size < 2:
        raise ValueError(f"{name} must run from lag 0 to at least lag 1, got {values.size} lags")
    return float(values[1])


def moment_rates_claim(error: MomentError, autocorrelation, iid_autocorrelation) -> Verdict:
    """Chen & Welling, Sec 1.1, Prop 1.2 and Fig 1.4: Monte Carlo averages over herding's
    samples "converge as O(1/T)", against "the usual O(1/sqrt T) rate" of independent samples;
    "herding sequences thus exhibit strong negative auto-correlations".

    Rule: the fitted rate of ``error`` (`moment_error`) is below ``HERDING_RATE`` for herding and
    within ``IID_RATE`` for i.i.d. samples, and herding's ``autocorrelation`` (lags 0, 1, ...,
    `autocorrelation`) is negative at lag 1. ``iid_autocorrelation`` is reported beside it."""
    check_instance("error", error, MomentError)
    lag1 = _lag1("autocorrelation", autocorrelation)
    iid_lag1 = _lag1("iid_autocorrelation", iid_autocorrelation)
    h, i = float(error.herding_slope), float(error.iid_slope)
    return Verdict.from_checks(
        "Chen & Welling, Prop 1.2 and Fig 1.4",
        "Herding matches the moments at rate O(1/T), against O(1/√T) for i.i.d. samples, and its "
        "samples are negatively autocorrelated (Fig 1.4).",
        ((h < HERDING_RATE, f"herding's rate T^{h:.2f} is not about T^-1"),
         (IID_RATE[0] < i < IID_RATE[1], f"the i.i.d. rate T^{i:.2f} is not about T^-1/2"),
         (lag1 < 0, f"the lag-1 autocorrelation {lag1:.2f} is not negative")),
        measured=(f"fitted rates: herding T^{h:.2f}, i.i.d. T^{i:.2f}; autocorrelation at lag 1: "
                  f"herding {lag1:.2f}, i.i.d. {iid_lag1:.2f}"),
        why=(f"herding's error falls as T^{h:.2f}, the i.i.d. one as T^{i:.2f}, and herding's "
             f"lag-1 autocorrelation is {lag1:.2f}"),
        numbers=dict(herding_slope=h, iid_slope=i, lag1=lag1, iid_lag1=iid_lag1))


def attractor_claim(box: BoxDimension, run: HerdingResult) -> Verdict:
    """Chen & Welling, Secs 1.2.3-1.2.4 and Figs 1.2, 1.10-1.11: herding's weights trace an
    attractor "often found to be of fractal dimension"; for Fig 1.11's example (six states, two
    features) the "Hausdorff dimension ... is between 0 and 1", and the Tipi function l_0(w) is
    never positive along the way (Fig 1.2, the perceptron cycling condition).

    Rule: the box-counting dimension of ``box`` (`box_dimension` of a run's weights) is strictly
    between 0 and 1, and ``run`` (`herd`) kept l_0(w) <= 0 at every step. The paper's example
    gives no features, so this judges the model the run was given."""
    check_instance("box", box, BoxDimension)
    check_instance("run", run, HerdingResult)
    used = box.sizes[box.used]
    holds = bool(run.cycling_holds)
    dim = float(box.dimension)
    return Verdict.from_checks(
        "Chen & Welling, Figs 1.2, 1.10-1.11",
        "Herding's weights trace a bounded, often fractal attractor inside the cones of the "
        "states; for the example of Fig 1.11 (six states, two features) its Hausdorff dimension "
        "is between 0 and 1.",
        ((0.0 < dim < 1.0, f"the attractor measures {dim:.2f}, not between 0 and 1 (the paper's "
                           "example, whose features it does not give)"),
         (holds, "ℓ₀(w) > 0 at some step")),
        measured=(f"K = {run.weights.shape[1]}: box-counting dimension of the attractor "
                  f"{dim:.3f} (fitted over box sides {used.max():.3g}-{used.min():.3g} of the "
                  f"bounding box); ℓ₀(w) ≤ 0 held at every one of {len(run.states):,} steps: "
                  f"{holds} (Fig 1.2's Tipi)"),
        why=f"the attractor measures {dim:.2f} and ℓ₀(w) ≤ 0 held throughout",
        numbers=dict(dimension=dim, smallest_side=float(used.min()),
                     largest_side=float(used.max()), cycling_holds=holds))
