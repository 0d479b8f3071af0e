"""The paper claim the SBEED ablation is judged by (Dai, Sec 6.7.2 and Fig 6.1)."""

from __future__ import annotations

import numpy as np

from dynamics._common import check_instance
from dynamics.claims import Verdict
from dynamics.sbeed.pendulum import Ablation

__all__ = ["FINAL_EPISODES", "intermediate_best_claim"]

#: A run's final return: the mean of its last this many episodes.
FINAL_EPISODES = 10


def intermediate_best_claim(result: Ablation) -> Verdict:
    """Dai, Sec 6.7.2 and Fig 6.1: "there is indeed an intermediate value for lambda that gives
    the best bias/smoothness balance", for eta "we expected an intermediate value gives the
    best performance. This is verified", and "an intermediate value for k yields the best
    result".

    Rule: in each panel of ``result`` (`pendulum.ablation`), the value with the highest median
    (over seeds) final return (the mean of the last ``FINAL_EPISODES`` episodes) is neither
    the first nor the last of its grid."""
    check_instance("result", result, Ablation)
    parts, extremes, best_of = [], [], {}
    for name, values in result.panels.items():
        finals = {v: float(np.median(runs[:, -FINAL_EPISODES:].mean(axis=1)))
                  for v, runs in values.items()}
        order = list(finals)
        best = max(finals, key=finals.get)
        best_of[name] = dict(best=best, finals=finals)
        parts.append(f"{name}: best {best} (" + ", ".join(f"{v} {x:.0f}"
                                                        for v, x in finals.items()) + ")")
        if best in (order[0], order[-1]):
            extremes.append(f"{name} = {best}")
    return Verdict(
        claim="Dai, Fig 6.1",
        statement="An intermediate entropy weight λ, an intermediate dual weight η and an "
                  "intermediate rollout length k each give the best return (on Swimmer-v1).",
        agrees=not extremes,
        measured=(f"median final return over {result.seeds} seeds (last {FINAL_EPISODES} "
                  "episodes, Pendulum-v1 instead of Swimmer): " + "; ".join(parts)),
        why=("the best value of every panel lies inside its grid" if not extremes else
             "the best value is at the end of its grid for " + ", ".join(extremes)),
        numbers=best_of)
