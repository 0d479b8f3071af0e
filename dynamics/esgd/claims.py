"""The paper claim Fig 5.2 (a) is judged by (Dai, Sec 5.6.1), and the level and the fewest runs
of the paired comparisons of this package's claims (Fig 5.2 (a), Fig 5.3): the page's run
summary and the gallery call them."""

from __future__ import annotations

import numpy as np
from scipy.stats import t as student_t

from ..checks import check_instance
from ..claims import Threshold, Verdict, paired_difference, stated
from .algorithm import INTERIOR, METHOD_NAMES
from .experiment import Comparison
from .task import PAPER_DATA, PAPER_MSE

__all__ = ["TOLERANCE", "ESGD_ALPHA", "ESGD_MIN_RUNS", "mse_claim"]

_MSE = "dynamics.esgd.claims.mse_claim"
_STATEMENT = ("Embedding-SGD reaches an average MSE of 0.0029 after 0.1M data (10 runs), "
              "significantly better than SGD with virtual samples and SGD-SAA.")
#: Embedding-SGD's mean MSE may be this many times the paper's 0.0029 and still agree.
TOLERANCE = Threshold(
    1.5, name="TOLERANCE", claim=_MSE, statement=_STATEMENT,
    rule="the mean MSE over runs below tolerance × 0.0029 by t SE: held; above by as many: "
         "fails; else not decided",
    why="the thesis gives 0.0029 without its step, features or kernel widths, which we chose: "
        "half again its value is the smallest gap that reads as another level on Fig 5.2 "
        "(a)'s log axis, and still a third of the alternatives' errors there")
#: The level of the package's paired comparisons over runs.
ESGD_ALPHA = Threshold(
    0.05, name="ESGD_ALPHA", claim=_MSE + ", dynamics.esgd.policy.policy_evaluation_claim",
    statement="Embedding-SGD is significantly (consistently) better than the alternatives",
    rule="a difference over runs decides beyond Student's t(1 − α/2, runs − 1) standard errors",
    why="the two-sided 5 % of the thesis's 'significantly'; Student's t, not the normal Z, "
        "because a few runs estimate their own spread poorly; each alternative must be beaten, "
        "so the comparisons need no correction among themselves")
#: Fewest runs on which the paired comparisons decide.
ESGD_MIN_RUNS = Threshold(
    3, name="ESGD_MIN_RUNS", claim=_MSE + ", dynamics.esgd.policy.policy_evaluation_claim",
    statement="Embedding-SGD is significantly (consistently) better than the alternatives",
    rule="fewer runs: not decided",
    why="2 runs leave 1 degree of freedom (t = 12.7 at 5 %: nothing short of a tenfold gap "
        "decides); 3 bring it to 4.3, the first usable")


def _critical(runs: int) -> float:
    """Student's t quantile of a two-sided test at ``ESGD_ALPHA`` over ``runs`` paired runs."""
    return float(student_t.ppf(1 - ESGD_ALPHA / 2, runs - 1))


def _outcome(d: float, se: float, crit: float) -> bool | None:
    return None if d == 0 or abs(d) < crit * se else bool(d > 0)


def _spread(v: np.ndarray) -> str:
    sd = float(v.std(ddof=1)) if len(v) > 1 else 0.0
    return f"{v.mean():.4f} ± {sd:.4f} [{v.min():.4f}, {v.max():.4f}]"


@stated
def mse_claim(result: Comparison) -> Verdict:
    """Dai, Sec 5.6.1 and Fig 5.2 (a): "The proposed algorithm achieves average MSE as low as
    0.0029 after visit 0.1M data, significantly better than the alternatives".

    Rule, on ``result`` (`compare_methods`, Embedding-SGD among its methods), over its runs
    (run k of every method on the same data): Embedding-SGD's mean test MSE on the whole
    interval lies below ``TOLERANCE`` times ``PAPER_MSE`` by Student's t standard errors at
    ``ESGD_ALPHA`` (above by as many fails), and for every other method the paired difference
    (its MSE minus Embedding-SGD's, run by run) is above 0 by as many (below fails). Every
    check held: reproduced; one failed: differs; otherwise not decided, as is a result of
    fewer than ``PAPER_DATA`` data a run (the claim is about 0.1M) or of fewer than
    ``ESGD_MIN_RUNS`` runs. The MSE on the interior (|x~| <= ``INTERIOR``) is reported beside
    it."""
    check_instance("result", result, Comparison)
    if "embedding" not in result.runs or not result.runs["embedding"]:
        raise ValueError("result must hold Embedding-SGD runs (method 'embedding')")
    esgd, inner = result.mse("embedding"), result.mse("embedding", interior=True)
    data = int(result.runs["embedding"][0].history["seen"][-1])
    others = [m for m in result.runs if m != "embedding"]
    runs = len(esgd)
    measured = (f"{runs} runs of {data:,} data, test MSE mean ± sd [min, max] on the whole "
                f"interval / on |x~| <= {INTERIOR:g}: "
                + "; ".join(f"{METHOD_NAMES[m]} {_spread(result.mse(m))} / "
                            f"{_spread(result.mse(m, interior=True))}" for m in result.runs))
    numbers = {m: dict(mse=float(result.mse(m).mean()),
                       mse_sd=float(result.mse(m).std(ddof=1)) if runs > 1 else 0.0,
                       mse_min=float(result.mse(m).min()), mse_max=float(result.mse(m).max()),
                       mse_interior=float(result.mse(m, interior=True).mean()),
                       mse_interior_sd=(float(result.mse(m, interior=True).std(ddof=1))
                                        if runs > 1 else 0.0))
               for m in result.runs}
    numbers.update(data=data, runs=runs, paper_mse=PAPER_MSE, constants=result.constants)
    stated_ = dict(effect=f"{TOLERANCE:g} × {PAPER_MSE} − Embedding-SGD's mean MSE; each other "
                          "method's MSE − Embedding-SGD's, paired by run",
                   rule=f"each above 0 by Student's t(1 − α/2, runs − 1) SE, α = {ESGD_ALPHA:g}, "
                        f"at least {ESGD_MIN_RUNS:g} runs of {PAPER_DATA:,} data",
                   thresholds={"TOLERANCE": TOLERANCE, "ESGD_ALPHA": ESGD_ALPHA,
                               "ESGD_MIN_RUNS": ESGD_MIN_RUNS})
    claim = "Dai, Fig 5.2 (a)"
    if data < PAPER_DATA or runs < ESGD_MIN_RUNS:
        return Verdict(claim, _STATEMENT, None, measured,
                       f"the runs saw {data:,} data, fewer than the paper's {PAPER_DATA:,}"
                       if data < PAPER_DATA else
                       f"{runs} run(s): at least {ESGD_MIN_RUNS:g} are needed", numbers,
                       power="none: too few data or runs", **stated_)
    crit = _critical(runs)
    limit = float(TOLERANCE * PAPER_MSE)
    se = float(esgd.std(ddof=1) / np.sqrt(runs))
    ok = _outcome(limit - float(esgd.mean()), se, crit)
    ratio = float(esgd.mean()) / PAPER_MSE
    text = (f"Embedding-SGD's mean MSE {esgd.mean():.4f} ± {se:.4f} is {ratio:.1f} times the "
            f"paper's {PAPER_MSE} (on |x~| <= {INTERIOR:g}: {inner.mean():.4f})")
    checks = [(ok, f"{text}, above {TOLERANCE:g} times it beyond the runs' spread",
               f"{text}, within {crit:.2f} SE of {TOLERANCE:g} times it")]
    powers = [f"MSE {crit * se:.4f}"]
    for m in others:
        d, dse = paired_difference(result.mse(m), esgd)
        numbers[m].update(difference=d, difference_se=dse)
        text = (f"{METHOD_NAMES[m]} − Embedding-SGD {d:+.4f} ± {dse:.4f} (paired over "
                f"{runs} runs)")
        checks.append((_outcome(d, dse, crit), f"{text}: {METHOD_NAMES[m]} better",
                       f"{text}, within {crit:.2f} SE"))
        powers.append(f"{METHOD_NAMES[m]} {crit * dse:.4f}")
    return Verdict.from_checks(
        claim, _STATEMENT, checks, measured=measured,
        why=(f"Embedding-SGD's mean MSE {esgd.mean():.4f} is below {TOLERANCE:g} times the "
             f"paper's {PAPER_MSE} beyond the runs' spread"
             + (", and below " + " and ".join(METHOD_NAMES[m] for m in others)
                + " paired by run" if others else "")),
        numbers=numbers, power="smallest difference decided: " + ", ".join(powers), **stated_)
