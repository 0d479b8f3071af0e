"""The claim of Luo & Sugiyama that a sweep of ``dynamics.hbm`` judges: the bias falls and the
variance rises with the model's order, and the variance falls with N (Figs 3-9, the
decomposition of L183-190). Part of ``dynamics.hbm``.
"""

from __future__ import annotations

import numpy as np

from ..checks import check_instance
from ..claims import Verdict
from .experiment import Sweep

__all__ = ["bias_variance_claim"]


def bias_variance_claim(result: Sweep) -> Verdict:
    """Luo & Sugiyama, Sec 4 and Figs 3-9: "a positive correlation between the number of model
    parameters and variance and an inverse relationship between the sample size and variance";
    with the bias falling as the order grows (exact here: the HBMs are nested, so each
    projection is closer to P*; the paper's estimates showed no clear trend in the bias), the
    best model grows with the sample size.

    Rule, on the HBM rows of ``result`` (a finished `sweep` with at least two orders and two
    sample sizes): the bias does not rise with the order, at the largest N the variance of the
    highest order is above that of the lowest, and the highest order's variance falls from the
    smallest N to the largest."""
    check_instance("result", result, Sweep)
    statement = ("More parameters lower the bias and raise the variance; the variance falls "
                 "with N, so the best model grows with the sample size.")
    rows = [i for i, m in enumerate(result.models) if m.kind == "hbm"]
    if result.done < len(result.models) * len(result.Ns) or len(rows) < 2 or len(result.Ns) < 2:
        return Verdict(claim="Luo & Sugiyama, Figs 3-9", statement=statement, agrees=None,
                       measured=f"{result.done} of {len(result.models) * len(result.Ns)} "
                                f"(model, N) cells, {len(rows)} HBM orders",
                       why="the sweep needs to finish, with two HBM orders and two sample sizes")
    bias = result.bias[rows, 0]
    var_large_n = result.variance[rows, -1]
    full = rows[-1]
    falls_with_n = bool(result.variance[full, -1] < result.variance[full, 0])
    bias_falls = bool(np.all(np.diff(bias) <= 1e-12))
    var_grows = bool(var_large_n[-1] > var_large_n[0])
    best_small = result.models[rows[int(np.argmin(result.total[rows, 0]))]].size
    best_large = result.models[rows[int(np.argmin(result.total[rows, -1]))]].size
    low, high = result.models[rows[0]].size, result.models[full].size
    return Verdict.from_checks(
        "Luo & Sugiyama, Figs 3-9", statement,
        ((bias_falls, f"the bias does not fall from order {low} to {high}"),
         (var_grows, f"at N = {int(result.Ns[-1]):,} the variance of order {high} is not above "
                     f"order {low}'s"),
         (falls_with_n, f"the variance of order {high} does not fall with N")),
        measured=(f"n = {result.n}, {result.datasets} datasets per N: HBM bias {bias[0]:.3f} "
                  f"(order {low}) to {bias[-1]:.2g} (order {high}); at N = "
                  f"{int(result.Ns[-1]):,} variance {var_large_n[0]:.2g} (order {low}) to "
                  f"{var_large_n[-1]:.2g}; lowest total error at N = {int(result.Ns[0])}: order "
                  f"{best_small}, at N = {int(result.Ns[-1]):,}: order {best_large}"),
        why=(f"the bias falls and the variance rises with the order, and the variance falls "
             f"with N (best order {best_small} at N = {int(result.Ns[0])}, {best_large} at "
             f"N = {int(result.Ns[-1]):,})"),
        numbers=dict(bias=[float(b) for b in bias], variance_at_largest_n=[
            float(v) for v in var_large_n], best_order_smallest_n=int(best_small),
            best_order_largest_n=int(best_large)))
