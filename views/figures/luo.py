"""Luo & Sugiyama, *Bias-Variance Trade-Off in Hierarchical Probabilistic Models Using
Higher-Order Feature Interactions*: the gallery's entry (on the HBM page), judged by the claim
function the page calls."""

from __future__ import annotations

from dynamics import hbm
from views.figures.entry import Entry

# --- the HBM page ----------------------------------------------------------------------------


def _sweep(e):
    return hbm.bias_variance_claim(e.jobs["sweep"].result)


def _inference(e):
    return hbm.inference_claim(e.jobs["inference"].result)


ENTRIES = (
    Entry("luo.figs3_9", "hbm",
          "Luo & Sugiyama, Figs 3-9: total error, bias and variance of the RBM and the HBM "
          "against N and against the number of parameters",
          _sweep,
          panels=("total_plot", "bias_n_plot", "variance_plot", "bias_plot", "params_plot"),
          runs=("sweep",), knobs={"sweep.datasets": 24},
          quick={"n": 4, "sweep.datasets": 2, "sweep.n_max": 300, "sweep.hidden": [0, 2]}),
    Entry("luo.inference", "hbm",
          "Luo & Sugiyama, eq 8 and Gibbs sampling for η_B: the paper's inference (Gibbs-sampled "
          "gradients, log Z by AIS) against exact enumeration, with its cost",
          _inference,
          panels=("ais_plot", "inference_plot", "cost_plot"),
          runs=("inference",), knobs={"n": 10, "order": 3, "sample": 1000, "inference.fits": 12,
                                      "inference.iterations": 10_000},
          quick={"n": 5, "inference.fits": 3, "inference.iterations": 500,
                 "inference.chains": 50, "inference.ais_steps": 100, "inference.ais_runs": 50}),
)
