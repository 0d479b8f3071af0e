"""Doubly stochastic functional gradients explorer (Dai's thesis, chapter 3: Algorithms 1-2,
Thm 11, eqs 3.9-3.10, Table 3.2; Figs 3.4-3.6).

Live: the 2-D task of Sec 3.6.1, the exact kernel ridge solution f* that the runs converge to,
and one block of random features against the kernel they estimate. Runs: Fig 3.4 (the averaged
iterate approaching f* at rate 1/t, its memory against NORMA's; optionally Table 3.2's Pegasos
and SDCA on explicit features, Fig 3.4 (3)), the digits 8 against 6 with the hinge or logistic
loss beside scikit-learn's full-kernel solution (Fig 3.6 (2) at this scale), and Fig 3.5 (the GP
posterior mean and variance by doubly stochastic gradients against the closed form).
"""

from __future__ import annotations

import holoviews as hv
import numpy as np
import param

from dynamics import dsg
from dynamics.papers import DAI
from views.framework import DASHED, MPL_DASHED, Explorer, Plot, axis, style
from views.framework.text import prose
from views.pages.dsg.common import (DSG_COLOR, EXACT_COLOR, LIVE, NORMA_COLOR, XY_DIMS,
                                    Task, grid_points, make_task, surface)
from views.pages.dsg.curve import CurveRun
from views.pages.dsg.runs import DigitsRun, PosteriorRun


class DSGExplorer(Explorer):
    """Kernel machines learned by doubly stochastic functional gradients."""

    slug = "dsg"
    title = "Doubly stochastic functional gradients"
    summary = ("A kernel machine learned by SGD in function space, sampling a data point and a "
               "random feature at every step: the error falls like 1/t in little memory.")
    paper = DAI
    figures = ("Ch 3 (Dai et al. 2014): Algorithms 1-2, Table 3.2, Figs 3.4-3.6; Thm 11, eqs "
               "3.9-3.10")

    points = param.Integer(2000, bounds=(200, 4000), step=100, label="Training points n",
                           doc="Points of the 2-D task; f* is the exact solution on them.")
    bandwidth_factor = param.Number(0.1, bounds=(0.02, 1.0), step=0.01,
                                    label="Bandwidth / median distance",
                                    doc="The RBF bandwidth as a fraction of the median pairwise "
                                        "distance (Sec 3.6.1: 0.1, the median trick).")
    nu = param.Number(0.01, bounds=(0.001, 0.1), step=0.001, label="Regulariser ν",
                      doc="nu of the risk (1/n) Σ l + ν/2 ‖f‖² (the text's value is unreadable).")
    theta = param.Number(100.0, bounds=(1.0, 10_000.0), step=1.0, label="Step scale θ",
                         doc="γ_t = θ / (t + t₀), t₀ = θ: Thm 11 asks θν ≥ 1.")
    block = param.Integer(16, bounds=(1, 1024), label="Feature block B",
                          doc="Random features drawn per step (the paper: 2¹⁰).")
    seed = param.Integer(0, bounds=(0, 99_999), label="Seed",
                         doc="Seed of the data, the minibatches and the features.")

    fields = ("seed",)
    widgets = {name: {"throttled": True} for name in (
        "points", "bandwidth_factor", "nu", "block", "theta")}
    # what the generic tests and benches need of this page (see ``Explorer``)
    example_change = {"seed": 2}
    bench_move = ("bandwidth_factor", [0.11, 0.12, 0.13, 0.14, 0.15, 0.16, 0.17, 0.18])
    runs = (CurveRun, DigitsRun, PosteriorRun)

    text = prose(__file__, "page.md")

    # --- live --------------------------------------------------------------------------------
    def _compute(self) -> Task:
        return make_task(int(self.points), float(self.bandwidth_factor), float(self.nu),
                         int(self.seed))

    def truth_plot(self):
        task = self.result()
        image = surface(dsg.synthetic_truth(grid_points()), "noiseless function of the data", 1.0)
        pts = style(hv.Points(task.X.astype(np.float32), kdims=XY_DIMS,
                              label="training points"),
                    color="black", alpha=0.3, bokeh=dict(size=1.5), mpl=dict(s=0.8))
        return style(image * pts, show_legend=False)

    def target_plot(self):
        target = self.result().target
        return surface(target, "f*(x)", float(np.abs(target).max()))

    def features_plot(self):
        task = self.result()
        B = int(self.block)
        x = np.column_stack([np.linspace(-5, 5, 400), np.zeros(400)])
        origin = np.zeros((1, 2))
        exact = dsg.rbf_kernel(x, origin, task.bandwidth)[:, 0]
        estimates = []
        for step in range(1, 17):
            omega, b = dsg.block_features(int(self.seed), step, B, 2, task.bandwidth)
            estimates.append((2 * np.cos(x @ omega.T + b) * np.cos(b)).mean(axis=1))
        dims = [axis("x1", "x₁ (x₂ = 0)"), axis("k", "k(x, 0) and its estimate")]
        return style(
            style(hv.Curve((x[:, 0], estimates[0]), *dims, label=f"one block of {B}"),
                  color=DSG_COLOR, bokeh=dict(line_width=1.5), mpl=dict(linewidth=1.2))
            * style(hv.Curve((x[:, 0], np.mean(estimates, axis=0)), *dims,
                             label=f"16 blocks ({16 * B} features)"),
                    color=NORMA_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))
            * style(hv.Curve((x[:, 0], exact), *dims, label="RBF kernel"),
                    color=EXACT_COLOR, bokeh=DASHED, mpl=MPL_DASHED),
            ylim=(-0.6, 1.4), framewise=True)

    def status(self) -> str:
        task = self.result()
        theta_nu = float(self.theta) * float(self.nu)
        cond = "holds" if theta_nu >= 1 else "**fails**"
        return (f"Bandwidth σ = **{task.bandwidth:.3f}** ({float(self.bandwidth_factor):g} × the "
                f"median pairwise distance of the {len(task.X):,} points); f* ranges "
                f"{task.target.min():.2f} to {task.target.max():.2f}. Thm 11's θν ≥ 1 "
                f"{cond} for the run's θ = {float(self.theta):g}: θν = {theta_nu:.3g}.")

    # --- panels, layout and time axis (the methods above) ------------------------------------
    plots = (
        Plot(truth_plot, title="Fig 3.4 (1): the function and the data", depends=LIVE),
        Plot(target_plot, title="f*: exact kernel ridge solution", depends=LIVE),
        Plot(features_plot, title="One block of features against k", depends=LIVE),
    )
