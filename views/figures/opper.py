"""Opper, *A Bayesian Approach to Online Learning*: the gallery's entries (on the Bayes page),
judged by the claim functions the page calls."""

from __future__ import annotations

from dynamics import bayes as ob
from views.figures.entry import Entry

# --- the Bayes page --------------------------------------------------------------------------


def _toy(e):
    r = e.jobs["toy"].result
    return ob.efficiency_claim(r.right, r.wrong)


def _curve(e):
    r = e.jobs["curve"].result
    return ob.batch_bayes_claim(r.full, r.replica, r.batch)


ENTRIES = (
    Entry("opper.fig1", "bayes",
          "Opper, Fig 1: efficiency of the 1-D toy, and a misspecified model",
          _toy, panels=("toy_plot", "sandwich_plot"), runs=("toy",),
          quick={"toy.runs": 200, "toy.t": 2000}),
    Entry("opper.fig2", "bayes",
          "Opper, Fig 2: the perceptron's learning curve against batch Bayes (the posterior "
          "at the same N, sampled, and N → ∞)",
          _curve, panels=("curve_plot", "entropic_plot"), runs=("curve",),
          quick={"curve.runs": 8, "curve.alpha_max": 5.0}),
)
