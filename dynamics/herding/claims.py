"""The paper claims the herding runs are judged by (Chen & Welling, Prop 1.2 and Fig 1.4; Figs
1.2 and 1.10-1.11).
"""

from __future__ import annotations

from dynamics.checks import check_array, check_instance
from dynamics.claims import Verdict
from dynamics.herding.dimension import AttractorDimension
from dynamics.herding.samples import MomentError

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


def attractor_claim(dimension: AttractorDimension) -> Verdict:
    """Chen & Welling, Secs 1.2.3-1.2.4 and Figs 1.2, 1.10-1.11: herding's weights trace an
    attractor "often found to be of fractal dimension"; for Fig 1.11's example (six states, two
    features) the "Hausdorff dimension for this example is between 0 and 1" (L383), and the Tipi
    function l_0(w) is never positive along the way (Fig 1.2, the perceptron cycling
    condition).

    Rule: at the scales where a dimension can be read (boxes and radii of at most 1/16 of the
    bounding box, not saturated: `box_dimension`, `correlation_dimension`), the box-counting
    dimension and the correlation dimension of ``dimension`` (`attractor_dimension` of a run)
    both lie in (0, 1] (1 included: the paper's words do not say whether its ends are, and a
    set of curves measures 1), and the run kept l_0(w) <= 0 at every step. The local slopes'
    range at those scales is reported beside the fits. The paper's example gives no features,
    so this judges the model the run was given."""
    check_instance("dimension", dimension, AttractorDimension)
    box, corr = dimension.box, dimension.correlation
    d_box, d_corr = float(box.dimension), float(corr.dimension)
    (b_lo, b_hi), (c_lo, c_hi) = box.slope_range, corr.slope_range
    sides = box.sizes[box.used]
    radii = corr.radii[corr.used]
    holds = bool(dimension.cycling_holds)
    inside = [0.0 < d <= 1.0 for d in (d_box, d_corr)]
    return Verdict.from_checks(
        "Chen & Welling, Figs 1.2, 1.10-1.11",
        "Herding's weights trace a bounded, often fractal attractor inside the cones of the "
        "states; for the example of Fig 1.11 (six states, two features) its Hausdorff dimension "
        "is between 0 and 1.",
        ((inside[0], f"the box-counting dimension measures {d_box:.2f} (local slopes "
                     f"{b_lo:.2f}-{b_hi:.2f}), not between 0 and 1"),
         (inside[1], f"the correlation dimension measures {d_corr:.2f} (local slopes "
                     f"{c_lo:.2f}-{c_hi:.2f}), not between 0 and 1"),
         (holds, "ℓ₀(w) > 0 at some step")),
        measured=(f"{dimension.steps:,} weights after a burn-in of {dimension.burn_in:,} steps: "
                  f"box-counting dimension {d_box:.3f}, local slopes {b_lo:.2f}-{b_hi:.2f} over "
                  f"box sides {sides.max():.3g}-{sides.min():.3g} of the bounding box; "
                  f"correlation dimension {d_corr:.3f}, local slopes {c_lo:.2f}-{c_hi:.2f} over "
                  f"radii {radii.max():.3g}-{radii.min():.3g} ({corr.sample:,} points); "
                  f"ℓ₀(w) ≤ 0 at every step: {holds} (Fig 1.2's Tipi)"),
        why=(f"the attractor measures {d_box:.2f} by box counting and {d_corr:.2f} by "
             "correlation, and ℓ₀(w) ≤ 0 held throughout"),
        numbers=dict(dimension=d_box, box_slope_low=b_lo, box_slope_high=b_hi,
                     correlation_dimension=d_corr, correlation_slope_low=c_lo,
                     correlation_slope_high=c_hi, smallest_side=float(sides.min()),
                     largest_side=float(sides.max()), points=dimension.steps,
                     burn_in=dimension.burn_in, cycling_holds=holds))
