"""The claim of Luo & Sugiyama that a sweep of ``dynamics.hbm`` judges: the bias falls and the
variance rises with the model's order, and the variance falls with N (Figs 3-9, the
decomposition of L183-190). Part of ``dynamics.hbm``.
"""

from __future__ import annotations

import math

import numpy as np

from ..checks import check_instance
from ..claims import Z, Threshold, Verdict, decide, paired_difference, stated
from .experiment import Sweep

__all__ = ["bias_variance_claim", "BIAS_ROUNDING"]

_STATEMENT = ("More parameters lower the bias and raise the variance; the variance falls "
              "with N, so the best model grows with the sample size.")
#: How much the bias may rise from one HBM order to the next before it counts as rising.
BIAS_ROUNDING = Threshold(
    1e-12, name="BIAS_ROUNDING", claim="dynamics.hbm.claims.bias_variance_claim",
    statement=_STATEMENT,
    rule="the bias KL(P*, P*_B) must not rise from one HBM order to the next by more than this "
         "(exact: the models are nested and P*_B is the m-projection)",
    why="the projections are exact up to float rounding (Newton's method, quadratic "
        "convergence), about 1e-15 on KLs of order 1; a real rise (a projection that is not "
        "the closest model) is of the order of the bias steps between orders, 1e-4 or more")


@stated
def bias_variance_claim(result: Sweep) -> Verdict:
    """Luo & Sugiyama, Sec 4 and Figs 3-9: "a positive correlation between the number of model
    parameters and variance and an inverse relationship between the sample size and variance";
    with the bias falling as the order grows (exact here: the HBMs are nested, so each
    projection is closer to P*; the paper's estimates showed no clear trend in the bias), the
    best model grows with the sample size.

    Rule, on the HBM rows of ``result`` (a finished `sweep` with at least two orders, two
    sample sizes and two datasets): (1) the bias does not rise with the order by more than
    ``BIAS_ROUNDING`` (exact, no noise); (2) at the largest N the highest order's variance
    minus the lowest order's, paired over the datasets (the same datasets for every model),
    is above 0 by ``Z`` standard errors; (3) the highest order's variance at the smallest N
    minus at the largest N (independent datasets: the two standard errors add in
    quadrature) is above 0 by ``Z`` SE. A check below 0 by as many (or a rising bias)
    differs; inside, not decided."""
    check_instance("result", result, Sweep)
    rows = [i for i, m in enumerate(result.models) if m.kind == "hbm"]
    stated_ = dict(
        effect="the bias step between orders; the variance's rise with the order at the "
               "largest N and its fall with N for the highest order",
        rule=f"bias non-increasing (exact, to {BIAS_ROUNDING:g}); each variance difference "
             f"above 0 by {Z} SE (paired over datasets across orders)",
        thresholds={"BIAS_ROUNDING": BIAS_ROUNDING, "Z": Z})
    if result.done < len(result.models) * len(result.Ns) or len(rows) < 2 or len(result.Ns) < 2 \
            or result.datasets < 2 or result.variances is None:
        return Verdict(claim="Luo & Sugiyama, Figs 3-9", statement=_STATEMENT, agrees=None,
                       measured=f"{result.done} of {len(result.models) * len(result.Ns)} "
                                f"(model, N) cells, {len(rows)} HBM orders, "
                                f"{result.datasets} datasets per N",
                       why="the sweep needs to finish, with two HBM orders, two sample sizes "
                           "and two datasets per N (the variance's spread)", **stated_)
    bias = result.bias[rows, 0]
    var_large_n = result.variance[rows, -1]
    low_row, full = rows[0], rows[-1]
    each = result.variances
    grows, grows_se = paired_difference(each[full, -1], each[low_row, -1])
    a, b = each[full, 0], each[full, -1]
    falls = float(a.mean() - b.mean())
    falls_se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    rise = float(np.max(np.diff(bias)))
    best_small = result.models[rows[int(np.argmin(result.total[rows, 0]))]].size
    best_large = result.models[rows[int(np.argmin(result.total[rows, -1]))]].size
    low, high = result.models[low_row].size, result.models[full].size
    n_small, n_large = int(result.Ns[0]), int(result.Ns[-1])
    g_text = (f"at N = {n_large:,} order {high}'s variance minus order {low}'s = "
              f"{grows:+.3g} ± {grows_se:.2g}")
    f_text = (f"order {high}'s variance at N = {n_small:,} minus at N = {n_large:,} = "
              f"{falls:+.3g} ± {falls_se:.2g}")
    return Verdict.from_checks(
        "Luo & Sugiyama, Figs 3-9", _STATEMENT,
        ((rise <= BIAS_ROUNDING, f"the bias rises by {rise:.2g} between orders {low}-{high}"),
         (decide(grows, grows_se), f"{g_text}: below 0 beyond its noise",
          f"{g_text}: within {Z} SE of 0"),
         (decide(falls, falls_se), f"{f_text}: the variance rises with N beyond its noise",
          f"{f_text}: within {Z} SE of 0")),
        measured=(f"n = {result.n}, {result.datasets} datasets per N: HBM bias {bias[0]:.3f} "
                  f"(order {low}) to {bias[-1]:.2g} (order {high}); at N = "
                  f"{n_large:,} variance {var_large_n[0]:.2g} (order {low}) to "
                  f"{var_large_n[-1]:.2g}; lowest total error at N = {n_small}: order "
                  f"{best_small}, at N = {n_large:,}: order {best_large}"),
        why=(f"the bias falls and the variance rises with the order, and the variance falls "
             f"with N beyond their noise (best order {best_small} at N = {n_small}, "
             f"{best_large} at N = {n_large:,})"),
        numbers=dict(bias=[float(b) for b in bias], variance_at_largest_n=[
            float(v) for v in var_large_n], best_order_smallest_n=int(best_small),
            best_order_largest_n=int(best_large), variance_rise=(grows, grows_se),
            variance_fall=(falls, falls_se)),
        power=(f"{Z} SE = {Z * grows_se:.2g} (the variance's rise with the order, paired over "
               f"{result.datasets} datasets), {Z * falls_se:.2g} (its fall with N); the bias: "
               "exact"), **stated_)
