"""Embedding-SGD explorer (Dai's thesis, chapter 5: the saddle point of eq 5.14, Algorithm 4;
the noisy-measurement task of Sec 5.5, Fig 5.2 (a)).

Live: one run of Embedding-SGD and of plain regression on the noisy inputs, their fits against
the truth and their test error against the data visited. Run: Fig 5.2 (a), Embedding-SGD against
the thesis's baselines (SGD with virtual samples, SGD-SAA), each at the constants chosen on
validation data, over seeds at the paper's 0.1M data, against the paper's reported MSE; Fig 5.1's
toy; and policy evaluation (eq 5.18, Sec 5.6.2) on random MDPs with exact values, Embedding-SGD
against GTD2, residual gradient and TD(0).
"""

from __future__ import annotations

from dataclasses import dataclass

import holoviews as hv
import numpy as np
import param

from dynamics import esgd as es
from dynamics.papers import DAI
from views.framework import DASHED, MPL_DASHED, Explorer, Plot, axis, style
from views.framework.cache import results_cache
from views.framework.text import prose
from views.framework.timeline import Frames, Mark, Timeline
from views.pages.esgd.common import (BASE_COLOR, ESGD_COLOR, PAPER_MSE, SMOOTH_COLOR,
                                     TRUTH_COLOR, mse_overlay)
from views.pages.esgd.runs import GPToyRun, PolicyRun, SeedsRun

#: The knobs of the model and its steps.
MODEL = ("eta", "eta0", "lam", "bandwidth_f", "bandwidth_u", "dual_y_scale", "features")
#: Data points drawn in the data panel.
SHOWN = 1500
T_COLOR = "#111111"
MSE_DIMS = ("seen", "mse")


def _ring(color: str) -> dict:
    """A ringed dot in ``color`` at the current time, on the page and in exports."""
    return dict(bokeh=dict(size=12, color="white", fill_alpha=0.6, line_color=color,
                           line_width=3),
                mpl=dict(s=70, color="white", edgecolors=color, linewidth=2))


@dataclass(frozen=True)
class LiveRun:
    run: es.EmbeddingRun
    smoothed: np.ndarray


@results_cache
def live_run(data: int, eta: float, eta0: float, lam: float, bandwidth_f: float,
             bandwidth_u: float, dual_y_scale: float, features: int, seed: int) -> LiveRun:
    _, x, y = es.noisy_measurement(data, seed=seed)
    run = es.embedding_sgd(x, y, eta=eta, eta0=eta0, lam_f=lam, lam_u=lam,
                           bandwidth_f=bandwidth_f, bandwidth_u=bandwidth_u,
                           dual_y_scale=dual_y_scale, features_f=features,
                           features_u=features, seed=seed + 1)
    return LiveRun(run, es.conditional_mean(run.grid))


class ESGDExplorer(Explorer):
    """Learning through a conditional expectation: Embedding-SGD on noisy inputs."""

    slug = "esgd"
    title = "Embedding-SGD: regression from noisy inputs"
    summary = ("When the loss holds a conditional expectation, a saddle point in two functions "
               "makes SGD unbiased again: regression that undoes the noise on its inputs.")
    paper = DAI
    figures = ("Ch 5: Algorithm 4, Figs 5.1, 5.2 (a), 5.3; eqs 5.14 and 5.18, eq C.7, Secs "
               "5.6.1-5.6.2")

    data = param.Selector(default=20_000, objects=[2_000, 5_000, 10_000, 20_000, 50_000,
                                                   100_000],
                          label="Data visited", doc="Data of the live run, 50 a step (one pass).")
    eta = param.Number(10.0, bounds=(0.1, 20.0), step=0.1, label="Step η",
                       doc="γ_i = η / (η₀ + √i) for both functions (Sec 5.6.1; its grid: "
                           "0.1, 1, 10). η = 20 with η₀ = 0 and wide bandwidths (0.3) "
                           "diverges, which the page says in an alert.")
    eta0 = param.Number(10.0, bounds=(0.0, 100.0), step=1.0, label="Step offset η₀",
                        doc="γ_i = η / (η₀ + √i) (its grid: 1, 10, 100; 0 is γ / √i).")
    lam = param.Selector(default=1e-4, objects=[0.0, 1e-5, 1e-4, 1e-3, 1e-2],
                         label="l2 weight λ",
                         doc="The weight of ‖f‖²/2 and of ‖u‖²/2 in the saddle point (eq C.7).")
    bandwidth_f = param.Number(0.05, bounds=(0.01, 0.3), step=0.01, label="Primal bandwidth",
                               doc="Gaussian kernel of f(z) (the paper's grid: 0.05 ... 0.2).")
    bandwidth_u = param.Number(0.1, bounds=(0.01, 0.3), step=0.01, label="Dual bandwidth",
                               doc="Gaussian kernel of u(x, y), on x.")
    dual_y_scale = param.Number(0.05, bounds=(0.01, 1.0), step=0.01, label="Dual's y scale",
                                doc="u's kernel reads y times this (0.05: a bandwidth of "
                                    "about 1 in y, where u* is linear).")
    features = param.Integer(500, bounds=(20, 600), step=10, label="Random features",
                             doc="Features of each function (f on z, u on (x, y)).")
    seed = param.Integer(0, bounds=(0, 99_999), label="Seed",
                         doc="Seed of the data (and, plus one, of the features and samples).")

    fields = ("seed",)
    widgets = {name: {"throttled": True} for name in (
        "eta", "eta0", "bandwidth_f", "bandwidth_u", "dual_y_scale", "features")}
    # what the generic tests and benches need of this page (see ``Explorer``)
    example_change = {"seed": 2}
    bench_move = ("eta", [9.0, 9.5, 10.5, 11.0, 9.0, 9.5, 10.5, 11.0])
    runs = (SeedsRun, GPToyRun, PolicyRun)

    text = prose(__file__, "page.md")

    def _compute(self) -> LiveRun:
        return live_run(int(self.data), float(self.eta), float(self.eta0), float(self.lam),
                        float(self.bandwidth_f),
                        float(self.bandwidth_u), float(self.dual_y_scale), int(self.features),
                        int(self.seed))

    def seen_frames(self) -> Frames:
        """The timeline: the test MSE of both methods where the run measured it, t the data
        visited by then."""
        h = self.result().run.history
        return Frames(h["seen"], {"mse": h["mse"], "baseline": h["baseline_mse"]})

    def data_plot(self):
        _, x, y = es.noisy_measurement(SHOWN, seed=int(self.seed))
        grid = np.linspace(-0.5, 0.5, 400)
        dims = [axis("x", "input x (noisy) and x̃"), axis("y", "y")]
        return style(
            style(hv.Scatter((x, y), *dims, label="data at the noisy x"), color="#999999",
                  alpha=0.5, bokeh=dict(size=3), mpl=dict(s=3))
            * style(hv.Curve((grid, es.truth(grid)), *dims, label="truth f(x̃)"),
                    color=TRUTH_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))
            * style(hv.Curve((grid, es.conditional_mean(grid)), *dims, label="E[y | x]"),
                    color=SMOOTH_COLOR, bokeh=DASHED, mpl=MPL_DASHED),
            framewise=True)

    def fit_plot(self):
        live = self.result()
        r = live.run
        dims = [axis("x", "noiseless input x̃"), axis("y", "f(x̃)")]
        return style(
            style(hv.Curve((r.grid, r.target), *dims, label="truth"), color=TRUTH_COLOR,
                  bokeh=dict(line_width=3), mpl=dict(linewidth=2))
            * style(hv.Curve((r.grid, live.smoothed), *dims, label="E[y | x]"),
                    color=SMOOTH_COLOR, bokeh=DASHED, mpl=MPL_DASHED)
            * style(hv.Curve((r.grid, r.baseline_fit), *dims, label="plain regression"),
                    color=BASE_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))
            * style(hv.Curve((r.grid, r.fit), *dims, label="Embedding-SGD"),
                    color=ESGD_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5)),
            framewise=True)

    def mse_plot(self):
        h = self.result().run.history
        return mse_overlay(h["seen"].astype(float),
                           {"plain regression": (BASE_COLOR, h["baseline_mse"]),
                            "Embedding-SGD": (ESGD_COLOR, h["mse"])})

    def status(self) -> str:
        r = self.result().run
        return (f"After **{int(r.history['seen'][-1]):,}** data: Embedding-SGD test MSE "
                f"**{r.mse:.4f}**, plain regression on the noisy inputs **{r.baseline_mse:.4f}**"
                f" (the best it can reach, E[y|x], is "
                f"{np.mean((self.result().smoothed - r.target) ** 2):.4f} from the truth). The "
                f"paper: {PAPER_MSE} after 0.1M data, 10 runs averaged.")

    # --- panels, layout and time axis (the methods above) ------------------------------------
    # the test error first: beside the timeline's control, which moves its marks
    plots = (
        Plot(mse_plot, title="Test error against data visited"),
        Plot(fit_plot, title="Fits on noiseless inputs"),
        Plot(data_plot, title="The data: noisy inputs", depends=("seed",)),
    )
    timeline = Timeline(
        seen_frames, unit="data seen",
        caption=prose(__file__, "timeline.md"),
        marks=(Mark(mse_plot, "vline", x="t", options=dict(
                   color=T_COLOR, alpha=0.6, bokeh=dict(line_width=1.5),
                   mpl=dict(linewidth=1))),
               Mark(mse_plot, "point", x="t", y="baseline", dims=MSE_DIMS,
                    options=_ring(BASE_COLOR)),
               Mark(mse_plot, "point", x="t", y="mse", dims=MSE_DIMS,
                    options=_ring(ESGD_COLOR)),
               # the test errors end at t (the paper's point stays)
               Mark(mse_plot, "grow", x="t", dims=("seen",), keep=("paper",))))
