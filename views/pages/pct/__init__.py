"""Perceptron cycling and conditional herding explorer (Chen & Welling Sec 1.3.2-1.3.4 and
1.4.3: Thm 1.7, eqs 1.38-1.40, Sec 1.3.2 (local search and mini-batches), eqs 1.56-1.62 and
1.69, Fig 1.16).

Live panels: generalized herding of a fully visible Boltzmann machine four ways (exact argmax,
a local search, minibatches without and with replacement), showing what the perceptron cycling
theorem promises and when: ||w_t|| bounded and the moment error at O(1/tau), or not. A run
draws the decision boundaries of the voted perceptron, conditional herding and a discriminative
RBM on 2-D toy data, with their test errors; another compares the three on data scikit-learn
ships (Table 1.3).
"""

from __future__ import annotations

from dataclasses import dataclass

import holoviews as hv
import numpy as np
import param

from dynamics.pct import generalized_herding as gh
from dynamics.papers import CHEN_WELLING
from views.framework.cache import results_cache
from views.framework import (DASHED, DOTTED, MPL_DASHED, MPL_DOTTED, Explorer, Plot, axis,
                           log_spaced, style)
from views.framework.text import prose
from views.framework.timeline import Frames, Mark, Timeline
from views.pages.pct.runs import BoundariesRun, TableRun

#: The four herding variants: key -> (legend, colour).
VARIANTS = {
    "full": ("full batch, exact argmax", "#222222"),
    "local": ("full batch, local search", "#9467bd"),
    "without": ("minibatches without replacement", "#2ca02c"),
    "with": ("minibatches with replacement", "#ff7f0e"),
}
#: The variants as the legend names them: short enough for two entries a row under a plot.
LEGEND = {"full": "exact argmax", "local": "local search", "without": "minibatches, shuffled",
          "with": "minibatches, i.i.d."}
#: Points drawn per curve (log-spaced over the steps).
CURVE_POINTS = 400
#: The knobs of the live panels (all of them; the runs have their own settings).
LIVE_KNOBS = ("n_units", "cases", "steps", "batch", "sweeps", "seed")
T_COLOR = "#111111"
#: The curves that get the timeline's rings (on the weight norm's panel): the run's array drawn
#: and its axis name.
RINGED = (("weight_norm", "norm"),)


def _step_marks(panels: tuple, ringed) -> tuple:
    """The timeline's marks: a line at step t on each live panel of ``panels`` and, on each
    variant's curve of the weight norm (panel ``ringed``), a ring at its value at t. Not on
    the error panels: a ring's new data makes Bokeh measure the panel's (log) axes again at
    every frame, a line's new place does not (profiled playing in headless Chromium: 5-6 ms
    against 2 ms a panel's paint; rings on two panels played at 15-17 redraws/s, on one at
    20-28, herding at 25 beside it)."""
    marks = [Mark(plot, "vline", x="t", options=dict(
        color=T_COLOR, alpha=0.6, bokeh=dict(line_width=1.5), mpl=dict(linewidth=1)))
        for plot in panels]
    for _, name in RINGED:
        marks.extend(Mark(ringed, "point", x="t", y=f"{name}_{key}", dims=("tau", name),
                          options=dict(bokeh=dict(size=11, color="white", fill_alpha=0.6,
                                                  line_color=color, line_width=3),
                                       mpl=dict(s=60, color="white", edgecolors=color,
                                                linewidth=2)))
                     for key, (_, color) in VARIANTS.items())
    return tuple(marks)


@dataclass(frozen=True)
class PCTPage:
    data: np.ndarray
    runs: dict
    rates: dict


@results_cache
def run_page(n: int, cases: int, steps: int, batch: int, sweeps: int, seed: int) -> PCTPage:
    data = gh.boltzmann_data(n, cases, seed=seed)
    batch = min(batch, cases)
    runs = {
        "full": gh.pct_herding(data, steps, seed=seed),
        "local": gh.pct_herding(data, steps, search_sweeps=sweeps, seed=seed),
        "without": gh.pct_herding(data, steps, batch_size=batch, seed=seed),
        "with": gh.pct_herding(data, steps, batch_size=batch, replacement=True, seed=seed),
    }
    start = min(100, max(1, steps // 10))
    rates = {k: gh.rate(r.error_full, start=start) for k, r in runs.items()}
    return PCTPage(data, runs, rates)


class PCTExplorer(Explorer):
    """Generalized herding under the perceptron cycling theorem, and conditional herding."""

    slug = "pct"
    title = "Perceptron cycling"
    summary = ("When herding's guarantees hold: bounded weights and O(1/τ) moments with local "
               "search and minibatches, and conditional herding against the voted perceptron.")
    paper = CHEN_WELLING
    figures = ("Thm 1.7, Fig 1.16 and Table 1.3; eqs 1.38-1.40, Sec 1.3.2 (local search and "
               "mini-batches), eqs 1.56-1.62, 1.65-1.66 and 1.69")

    n_units = param.Integer(8, bounds=(2, 12), label="Units n",
                            doc="Binary units of the fully visible Boltzmann machine; features "
                                "x_i and x_i x_j (K = n + n(n-1)/2).")
    cases = param.Integer(100, bounds=(10, 2000), step=10, label="Data cases D",
                          doc="Data cases drawn from a random Boltzmann machine; phi_bar is "
                              "their mean feature.")
    steps = param.Integer(2000, bounds=(100, 20_000), step=100, label="Steps τ",
                          doc="Herding steps of every variant.")
    batch = param.Integer(10, bounds=(1, 200), label="Minibatch size d",
                          doc="Data cases per step of the two minibatch variants.")
    sweeps = param.Integer(1, bounds=(1, 20), label="Local search sweeps",
                           doc="Coordinate-ascent sweeps from the previous state, the "
                               "approximate argmax of the local-search variant.")
    seed = param.Integer(1, bounds=(0, 99_999), label="Seed",
                         doc="Seed of the data, the minibatches and the first states.")

    fields = ("seed",)
    widgets = {name: {"throttled": True} for name in ("n_units", "cases", "steps", "batch",
                                                      "sweeps")}
    # what the generic tests and benches need of this page (see ``Explorer``)
    example_change = {"seed": 2}
    bench_move = ("seed", list(range(101, 109)))
    runs = (BoundariesRun, TableRun)

    text = prose(__file__, "page.md")

    # --- computation -------------------------------------------------------------------------
    def _compute(self) -> PCTPage:
        return run_page(int(self.n_units), int(self.cases), int(self.steps), int(self.batch),
                        int(self.sweeps), int(self.seed))

    def knob_bounds(self) -> dict:
        return {"batch": (1, min(200, int(self.cases)), f"D = {int(self.cases)} data cases")}

    def step_frames(self) -> Frames:
        """The timeline: each variant's weight norm at step t = 1..τ."""
        page = self.result()
        return Frames(np.arange(1, int(self.steps) + 1),
                      {f"{name}_{key}": getattr(page.runs[key], values)
                       for values, name in RINGED for key in VARIANTS})

    # --- plots -------------------------------------------------------------------------------
    def _curves(self, values, dims, *, scale=None):
        page = self.result()
        idx = log_spaced(int(self.steps), CURVE_POINTS)
        tau = (idx + 1).astype(float)
        curves = []
        for key, (_, color) in VARIANTS.items():
            y = getattr(page.runs[key], values)[idx]
            if scale is not None:
                y = y * scale(tau)
            curves.append(style(hv.Curve((tau, y), *dims, label=LEGEND[key]), color=color,
                                bokeh=dict(line_width=2), mpl=dict(linewidth=1.5)))
        return hv.Overlay(curves), tau

    def norm_plot(self):
        dims = [axis("tau", "step τ"), axis("norm", "weight norm ‖w‖")]
        overlay, _ = self._curves("weight_norm", dims)
        return style(overlay, logx=True, show_legend=False, framewise=True)

    def scaled_plot(self):
        dims = [axis("tau", "step τ"), axis("scaled", "τ × ‖mean φ(s) − φ̄‖")]
        overlay, _ = self._curves("error_full", dims, scale=lambda t: t)
        return style(overlay, logx=True, logy=True, framewise=True)

    def error_plot(self):
        dims = [axis("tau", "step τ"), axis("error", "‖mean φ(s) − φ̄‖₂")]
        overlay, tau = self._curves("error_full", dims)
        page = self.result()
        ends = tau[[0, -1]]
        mid = len(tau) // 2
        idx = log_spaced(int(self.steps), CURVE_POINTS)
        full, iid = page.runs["full"].error_full[idx], page.runs["with"].error_full[idx]
        g1 = hv.Curve((ends, full[mid] * tau[mid] / ends), *dims, label="∝ 1/τ")
        g2 = hv.Curve((ends, iid[mid] * np.sqrt(tau[mid] / ends)), *dims, label="∝ 1/√τ")
        overlay = (overlay * style(g1, color="gray", bokeh=DASHED, mpl=MPL_DASHED)
                   * style(g2, color="gray", bokeh=DOTTED, mpl=MPL_DOTTED))
        return style(overlay, logx=True, logy=True, show_legend=False, framewise=True)

    def status(self) -> str:
        page = self.result()
        parts = []
        for key, (label, _) in VARIANTS.items():
            run = page.runs[key]
            held = 100 * float(run.pct_held.mean())
            parts.append(f"{label}: rate $\\tau^{{{page.rates[key]:.2f}}}$, (1.40) held in "
                         f"{held:.1f} % of steps, largest ‖w‖ {run.weight_norm.max():.3g}")
        return ("**Fitted rates** (slope of the error against τ on log-log axes, τ ≥ "
                f"{min(100, max(1, int(self.steps) // 10))}): " + "; ".join(parts) + ".")

    # --- panels, layout and time axis (the methods above) ------------------------------------
    plots = (
        Plot(norm_plot, title="‖w‖ stays bounded (Thm 1.7)",
             depends=LIVE_KNOBS),
        Plot(scaled_plot, title="τ × moment error (flat: O(1/τ))", depends=LIVE_KNOBS),
        Plot(error_plot, title="Moment error; guides 1/τ, 1/√τ", depends=LIVE_KNOBS),
    )
    timeline = Timeline(
        step_frames, unit="step",
        caption=prose(__file__, "timeline.md"),
        marks=(*_step_marks((norm_plot, scaled_plot, error_plot), norm_plot),
               # the curves end at t
               *(Mark(p, "grow", x="t", dims=("tau",), keep=("∝",))
                 for p in (norm_plot, scaled_plot, error_plot))))
