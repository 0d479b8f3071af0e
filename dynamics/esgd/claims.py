"""The paper claim Fig 5.2 (a) is judged by (Dai, Sec 5.6.1): the page's run summary and the
gallery call it."""

from __future__ import annotations

import numpy as np

from ..checks import check_instance
from ..claims import Verdict
from .algorithm import INTERIOR, METHOD_NAMES
from .experiment import Comparison
from .task import PAPER_DATA, PAPER_MSE

__all__ = ["TOLERANCE", "mse_claim"]

#: Embedding-SGD's mean MSE may be this many times the paper's 0.0029 and still agree.
TOLERANCE = 1.5


def _spread(v: np.ndarray) -> str:
    sd = float(v.std(ddof=1)) if len(v) > 1 else 0.0
    return f"{v.mean():.4f} ± {sd:.4f} [{v.min():.4f}, {v.max():.4f}]"


def mse_claim(result: Comparison) -> Verdict:
    """Dai, Sec 5.6.1 and Fig 5.2 (a): "The proposed algorithm achieves average MSE as low as
    0.0029 after visit 0.1M data, significantly better than the alternatives".

    Rule, on ``result`` (`compare_methods`, Embedding-SGD among its methods): the runs saw at
    least ``PAPER_DATA`` data; Embedding-SGD's mean test MSE on the whole interval is at most
    ``TOLERANCE`` times ``PAPER_MSE``; and for every other method the runs' paired difference
    (its MSE minus Embedding-SGD's, run by run on the same data) has a mean above two standard
    errors (one run: above 0). The MSE on the interior (|x~| <= ``INTERIOR``) is reported
    beside it."""
    check_instance("result", result, Comparison)
    if "embedding" not in result.runs or not result.runs["embedding"]:
        raise ValueError("result must hold Embedding-SGD runs (method 'embedding')")
    esgd, inner = result.mse("embedding"), result.mse("embedding", interior=True)
    data = int(result.runs["embedding"][0].history["seen"][-1])
    others = [m for m in result.runs if m != "embedding"]
    measured = [f"{len(esgd)} runs of {data:,} data, test MSE mean ± sd [min, max] on the whole "
                f"interval / on |x~| <= {INTERIOR:g}: "
                + "; ".join(f"{METHOD_NAMES[m]} {_spread(result.mse(m))} / "
                            f"{_spread(result.mse(m, interior=True))}" for m in result.runs)]
    numbers = {m: dict(mse=float(result.mse(m).mean()),
                       mse_sd=float(result.mse(m).std(ddof=1)) if len(esgd) > 1 else 0.0,
                       mse_min=float(result.mse(m).min()), mse_max=float(result.mse(m).max()),
                       mse_interior=float(result.mse(m, interior=True).mean()),
                       mse_interior_sd=(float(result.mse(m, interior=True).std(ddof=1))
                                        if len(esgd) > 1 else 0.0))
               for m in result.runs}
    numbers.update(data=data, runs=len(esgd), paper_mse=PAPER_MSE, constants=result.constants)
    ratio = float(esgd.mean()) / PAPER_MSE
    checks = [(data >= PAPER_DATA, f"the runs saw {data:,} data, fewer than the paper's "
                                   f"{PAPER_DATA:,}"),
              (ratio <= TOLERANCE,
               f"Embedding-SGD's mean MSE {esgd.mean():.4f} is {ratio:.1f} times the paper's "
               f"{PAPER_MSE} (on |x~| <= {INTERIOR:g}: {inner.mean():.4f})")]
    for m in others:
        diff = result.mse(m) - esgd
        se = float(diff.std(ddof=1) / np.sqrt(len(diff))) if len(diff) > 1 else 0.0
        checks.append((diff.mean() > 2 * se,
                       f"Embedding-SGD is not clearly better than {METHOD_NAMES[m]} (mean "
                       f"difference {diff.mean():+.4f}, two standard errors {2 * se:.4f})"))
    return Verdict.from_checks(
        "Dai, Fig 5.2 (a)",
        "Embedding-SGD reaches an average MSE of 0.0029 after 0.1M data (10 runs), "
        "significantly better than SGD with virtual samples and SGD-SAA.",
        checks, measured=measured[0],
        why=(f"Embedding-SGD's mean MSE {esgd.mean():.4f} is within {TOLERANCE:g} times the "
             f"paper's {PAPER_MSE}"
             + (", clearly below " + " and ".join(METHOD_NAMES[m] for m in others)
                if others else "")),
        numbers=numbers)
