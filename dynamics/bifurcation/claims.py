"""The paper claim the bifurcation runs are judged by (Chen & Welling, Fig 1.1)."""

from __future__ import annotations

from dynamics.checks import check_instance
from dynamics.bifurcation._kernels import FEIGENBAUM_DELTA
from dynamics.bifurcation.cascade import PeriodDoublings
from dynamics.claims import Verdict

__all__ = ["feigenbaum_claim"]

#: How close the last measured ratio must come to Feigenbaum's constant (relative).
FEIGENBAUM_TOLERANCE = 0.01


def feigenbaum_claim(cascade: PeriodDoublings) -> Verdict:
    """Chen & Welling, Sec 1.2.2 and Fig 1.1: lowering the temperature moves the tempered map
    "from a standard MRF maximum likelihood learning system with a single fixed point, through
    a series of period doublings to a system on the edge of chaos".

    Rule: at least three doubling ratios were measured (four doublings) and the last one is
    within ``FEIGENBAUM_TOLERANCE`` (1 %) of Feigenbaum's delta, the universal ratio of a
    period-doubling cascade."""
    check_instance("cascade", cascade, PeriodDoublings)
    ratios = [float(r) for r in cascade.ratios]
    period = int(cascade.periods[-1]) if cascade.periods.size else 0
    last = ratios[-1] if ratios else float("nan")
    ok = len(ratios) >= 3 and abs(last / FEIGENBAUM_DELTA - 1) < FEIGENBAUM_TOLERANCE
    measured = (f"doublings to period {period}; ratios δₙ = "
                + (", ".join(f"{r:.3f}" for r in ratios) or "none"))
    why = (f"{len(ratios)} ratios, the last {last:.4f} within 1 % of Feigenbaum's "
           f"{FEIGENBAUM_DELTA:.4f}" if ok else
           f"the ratios do not settle within 1 % of Feigenbaum's {FEIGENBAUM_DELTA:.4f} "
           f"({len(ratios)} measured" + (f", the last {last:.4f})" if ratios else ")"))
    return Verdict(
        claim="Chen & Welling, Fig 1.1",
        statement="Lowering the temperature sends gradient ascent through a period-doubling "
                  "cascade into chaos at T = 0 (the edge of chaos), with Feigenbaum's universal "
                  "ratio.",
        agrees=ok, measured=measured, why=why,
        numbers=dict(doublings=int(cascade.periods.size), last_period=period,
                     ratios=ratios, feigenbaum=FEIGENBAUM_DELTA))
