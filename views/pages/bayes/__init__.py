"""Bayesian online learning explorer (Opper, *A Bayesian Approach to Online Learning*: eqs
7.1-7.2, 8.10-8.12, 9.1-9.4, Figs 1-2).

Live: a 2-D teacher-student run whose Gaussian posterior shrinks as the examples arrive (a
timeline over the examples, played in the browser). Runs: Fig 1's 1-D toy against the
Cramer-Rao bound, with the misspecified (logistic-teacher) case against the sandwich A^-1 B A^-1 of eq 8.10; Fig 2's
learning curve of the perceptron for the full and spherical updates against batch Bayes (the
exact posterior at the same finite N, sampled, and the N -> infinity replica curve), with the
entropic error against N / (2 t).
"""

from __future__ import annotations

from dataclasses import dataclass

import holoviews as hv
import numpy as np
import param

from dynamics import bayes as ob
from dynamics.papers import OPPER
from views.framework.cache import results_cache
from views.framework import (DASHED, DOTTED, MPL_DASHED, MPL_DOTTED, Explorer, Frames, Mark, Plot,
                             Section, Timeline, axis, style)
from views.framework.text import prose
from views.framework.marks import legend_layer
from views.pages.bayes.common import FULL_COLOR, SPHERICAL_COLOR
from views.pages.bayes.runs import CurveRun, ToyEfficiencyRun

CLASS_COLORS = {1.0: "#d62728", -1.0: "#1f77b4"}
#: The knobs of the live 2-D panels (all of them; the runs have their own settings).
LIVE = ("examples", "plane_sigma", "variant", "seed")
#: Points of the ellipses drawn for the 2-D posterior (each frame of the timeline sends them).
ELLIPSE_POINTS = 72
PLANE_DIMS = (axis("theta1", "θ₁  (and input x₁)"), axis("theta2", "θ₂  (and input x₂)"))
MEAN_COLOR = "#2ca02c"
#: The timeline's line at t on the per-example panels (on their log axes, at max(t, 1)).
NOW = dict(color="gray", bokeh=DOTTED, mpl=MPL_DOTTED)


#: The posterior's marks on the plane: name -> (legend entry, style).
PLANE_STYLES = {
    "pos": ("S = +1", dict(color=CLASS_COLORS[1.0], alpha=0.5, bokeh=dict(size=4),
                           mpl=dict(s=6))),
    "neg": ("S = -1", dict(color=CLASS_COLORS[-1.0], alpha=0.5, bokeh=dict(size=4),
                           mpl=dict(s=6))),
    "e1": ("posterior 1σ and 2σ", dict(color=MEAN_COLOR, bokeh=dict(line_width=2),
                                       mpl=dict(linewidth=1.5))),
    "e2": ("", dict(color=MEAN_COLOR, bokeh=dict(line_width=1), mpl=dict(linewidth=0.8))),
    "path": ("", dict(color=MEAN_COLOR, alpha=0.6, bokeh=dict(line_width=1),
                      mpl=dict(linewidth=0.8))),
    "mean": ("mean m (its path)", dict(color=MEAN_COLOR, bokeh=dict(size=9), mpl=dict(s=40))),
}


def _plane_marks(plot) -> tuple:
    """The 2-D posterior at t on panel ``plot``: the examples seen, the mean's path, the 1σ
    and 2σ ellipses and the mean."""
    seen = [Mark(plot, "prefix", x=f"{name}_x", y=f"{name}_y", dims=PLANE_DIMS,
                 always=True, options=PLANE_STYLES[name][1]) for name in ("pos", "neg")]
    ellipses = [Mark(plot, "curve", x=f"e{r}x", y=f"e{r}y", dims=PLANE_DIMS,
                     always=True, options=PLANE_STYLES[f"e{r}"][1]) for r in (1, 2)]
    path = Mark(plot, "trail", x="m1", y="m2", dims=PLANE_DIMS, length=None, always=True,
                options=PLANE_STYLES["path"][1])
    mean = Mark(plot, "point", x="m1", y="m2", dims=PLANE_DIMS, always=True,
                options=PLANE_STYLES["mean"][1])
    return (*seen, path, *ellipses, mean)


def _plane_legend() -> list:
    """The legend of the posterior's marks."""
    return [legend_layer("curve" if name == "e1" else "points", PLANE_DIMS, label, **options)
            for name, (label, options) in PLANE_STYLES.items() if label]


@dataclass(frozen=True)
class PlanePage:
    teacher: np.ndarray
    X: np.ndarray
    y: np.ndarray
    path: ob.PosteriorPath
    eps: np.ndarray


@results_cache
def run_plane(examples: int, sigma0: float, flip: float, spherical: bool, seed: int) -> PlanePage:
    teacher, X, y = ob.teacher_data(2, examples, sigma0=sigma0, flip=flip, seed=seed)
    path = ob.adf_path(X, y, sigma0=sigma0, spherical=spherical, flip=flip)
    eps = np.array([ob.generalization_error(m, teacher) for m in path.means])
    return PlanePage(teacher, X, y, path, eps)


def _ellipse(mean: np.ndarray, cov: np.ndarray, radius: float) -> np.ndarray:
    values, vectors = np.linalg.eigh(cov)
    angle = np.linspace(0, 2 * np.pi, ELLIPSE_POINTS)
    circle = np.c_[np.cos(angle), np.sin(angle)] * (radius * np.sqrt(np.maximum(values, 0)))
    return mean + circle @ vectors.T


class BayesExplorer(Explorer):
    """Assumed-density filtering: Gaussian online Bayes for the probit perceptron."""

    slug = "bayes"
    title = "Bayesian online learning"
    summary = ("Bayes' rule made online by projecting every posterior onto a Gaussian: it "
               "reaches the Cramér-Rao bound and learns the perceptron almost like batch Bayes.")
    paper = OPPER
    figures = "Figs 1-2; eqs 7.1-7.2, 8.10-8.12, 9.1-9.4"

    # the live 2-D run
    examples = param.Integer(200, bounds=(10, 2000), step=10, label="Examples (2-D run)",
                             doc="Examples the 2-D teacher-student run learns from.")
    plane_sigma = param.Number(0.3, bounds=(0.0, 3.0), step=0.05, label="Label noise σ₀ (2-D)",
                               doc="sigma0 of the 2-D run: labels sign(θ*·x + σ₀ ξ), and the "
                                   "model's P(S|θ,x) = Φ(S θ·x/σ₀) (eq 9.1).")
    variant = param.Selector(default="full", objects=["full", "spherical"], label="Update",
                             doc="Full covariance (eqs 7.1-7.2) or spherical C = c I (eq 9.4).")
    seed = param.Integer(1, bounds=(0, 99_999), label="Seed",
                         doc="Seed of the 2-D teacher, inputs and label noise.")

    fields = ("seed",)
    widgets = {name: {"throttled": True} for name in ("examples", "plane_sigma")}
    # what the generic tests and benches need of this page (see ``Explorer``)
    example_change = {"seed": 2}
    bench_move = ("plane_sigma", [0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7])
    runs = (ToyEfficiencyRun, CurveRun)

    text = prose(__file__, "page.md")

    # --- the live 2-D run --------------------------------------------------------------------
    def _compute(self) -> PlanePage:
        return run_plane(int(self.examples), float(self.plane_sigma), 0.0,
                         self.variant == "spherical", int(self.seed))

    def example_frames(self) -> Frames:
        """The timeline: t = 0..examples; the posterior mean and its ellipses after t examples,
        max(t, 1) for the lines on log axes, and the inputs of each class (NaN where the label
        is the other one), of which the first t are drawn."""
        page = self.result()
        t = np.arange(len(page.y) + 1)
        means, covs = page.path.means, page.path.covs
        arrays = {}
        for r in (1, 2):
            ring = np.stack([_ellipse(m, C, float(r)) for m, C in zip(means, covs)])
            arrays[f"e{r}x"], arrays[f"e{r}y"] = ring[..., 0], ring[..., 1]
        fixed = {}
        for name, label in (("pos", 1.0), ("neg", -1.0)):
            mine = (page.y == label)[:, None]
            fixed[f"{name}_x"] = np.where(mine[:, 0], page.X[:, 0], np.nan)
            fixed[f"{name}_y"] = np.where(mine[:, 0], page.X[:, 1], np.nan)
        return Frames(t, {"m1": means[:, 0], "m2": means[:, 1], "T1": np.maximum(t, 1.0)},
                      arrays=arrays, fixed=fixed)

    def plane_plot(self):
        """The teacher; the posterior at t and the examples seen are the timeline's marks."""
        th = self.result().teacher
        arrow = style(hv.Segments([(0.0, 0.0, th[0], th[1])],
                                  kdims=[*PLANE_DIMS, "x1", "y1"], label="teacher θ*"),
                      color="black", bokeh=dict(line_width=3), mpl=dict(linewidth=2))
        lim = 1.1 * max(3.0, float(np.abs(th).max()) * 1.2)
        return style(hv.Overlay([*_plane_legend(), arrow]), xlim=(-lim, lim), ylim=(-lim, lim),
                     framewise=True)

    def plane_error_plot(self):
        page = self.result()
        t = np.arange(len(page.eps), dtype=float)
        dims = [axis("t", "examples seen t"), axis("eps", "generalization error ε")]
        curve = style(hv.Curve((t[1:], page.eps[1:]), *dims, label="ADF, this run"),
                      color=FULL_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))
        return style(hv.Overlay([curve]), logx=True, ylim=(0, 0.55), framewise=True, show_legend=False)

    def spread_plot(self):
        page = self.result()
        values = np.linalg.eigvalsh(page.path.covs)  # (t + 1, 2), ascending
        t = np.arange(1, len(values), dtype=float)
        dims = [axis("t", "examples seen t"), axis("var", "eigenvalue of the covariance C")]
        lines = [style(hv.Curve((t, values[1:, k]), *dims, label=label), color=color,
                       bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))
                 for k, label, color in ((1, "largest eigenvalue", SPHERICAL_COLOR),
                                         (0, "smallest eigenvalue", FULL_COLOR))]
        mid = len(t) // 2
        guide = hv.Curve((t[[0, -1]], values[mid + 1, 0] * t[mid] / t[[0, -1]]), *dims,
                         label="∝ 1/t")
        return style(hv.Overlay(lines) * style(guide, color="gray", bokeh=DASHED, mpl=MPL_DASHED),
                     logx=True, logy=True, framewise=True)

    def status(self) -> str:
        page = self.result()
        t = len(page.y)
        small, large = np.linalg.eigvalsh(page.path.covs[t])
        return (f"After all **{t}** examples: ε = **{page.eps[t]:.3f}**, posterior variances "
                f"{small:.3g} and {large:.3g} "
                f"(prior 1). Teacher θ* = ({page.teacher[0]:.2f}, {page.teacher[1]:.2f}), mean "
                f"m = ({page.path.means[t][0]:.2f}, {page.path.means[t][1]:.2f}).")

    # --- panels, layout and time axis (the methods above) ------------------------------------
    plots = (
        Plot(plane_plot, title="Posterior in 2-D (eqs 7.1-7.2)", depends=LIVE),
        Plot(plane_error_plot, title="2-D run: error ε (eq 9.3)", depends=LIVE),
        Plot(spread_plot, title="2-D run: posterior variances", depends=LIVE),
    )
    sections = (Section((plane_plot, plane_error_plot, spread_plot)),)
    timeline = Timeline(
        example_frames, unit="example", aliases={"frame": 0},
        caption=prose(__file__, "timeline.md"),
        marks=(*_plane_marks(plane_plot),
               *(Mark(p, "vline", x="T1", options=NOW)
                 for p in (plane_error_plot, spread_plot)),
               # the error and the variances end at t
               *(Mark(p, "grow", x="t", dims=("t",), keep=("∝",))
                 for p in (plane_error_plot, spread_plot))))
