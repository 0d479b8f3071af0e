"""The doubly stochastic gradients page's other runs: the digits 8 against 6 with the hinge or
logistic loss beside scikit-learn's full-kernel solution (Fig 3.6 (2) at this scale), and
Fig 3.5, the GP posterior mean and variance by doubly stochastic gradients against the closed
form (eq 3.9). The Fig 3.4 run is in ``curve`` beside this file."""

from __future__ import annotations

from dataclasses import dataclass

import holoviews as hv
import numpy as np
import param

from dynamics import dsg
from views.framework import DASHED, DOTTED, MPL_DASHED, MPL_DOTTED, Plot, axis, prose, style
from views.framework.runs import Run
from views.framework.text import verdict_markdown
from views.pages.dsg.common import DSG_COLOR, EXACT_COLOR, MEAN_COLOR, NORMA_COLOR, VAR_COLOR

__all__ = ["DigitsRun", "PosteriorRun", "GPResult", "DIGITS_BATCH", "DIGITS_BLOCK"]

#: The digits run's minibatch and feature block.
DIGITS_BATCH, DIGITS_BLOCK = 16, 64


class DigitsRun(Run):
    """Sec 3.6.3 at this scale: scikit-learn's eights against sixes by doubly SGD."""

    key = "digits"
    title = "Fig 3.6 (2) at this scale: 8 against 6 by kernel SVM"
    button = "Run the digits"
    text = prose(__file__, "digits.md")
    uses = ("seed",)
    aliases = {"digits_loss": "loss", "digits_steps": "steps"}
    quick = {"steps": 64}

    loss = param.Selector(default="hinge", objects=["hinge", "logistic"], label="Digits: loss",
                          doc="hinge: kernel SVM (Sec 3.6.3); logistic: kernel logistic "
                              "regression.")
    steps = param.Selector(default=4096, objects=[2**k for k in range(6, 14)],
                           label="Digits: steps",
                           doc="Steps of 16 images with blocks of 64 features.")

    def compute(self, settings: dict, progress=None) -> dsg.ClassificationRun:
        X, y, X_test, y_test = dsg.digits_pair(8, 6, seed=int(settings["seed"]))
        bandwidth = dsg.median_bandwidth(X, factor=1.0)
        nu = 1.0 / len(X)
        loss = settings["loss"]
        model = dsg.doubly_sgd(X, y, loss=loss, bandwidth=bandwidth, nu=nu,
                               steps=int(settings["steps"]), batch_size=DIGITS_BATCH,
                               block_size=DIGITS_BLOCK, seed=int(settings["seed"]),
                               X_test=X_test, y_test=y_test, progress=progress)
        return dsg.classification_run(model, X, y, X_test, y_test, loss=loss, nu=nu)

    def estimate(self, settings: dict) -> float:
        # measured: 2.3 s of CPU for 1024 steps (355 images of 64 pixels, 64 features a step)
        return 2.3 * int(settings["steps"]) / 1024 + 1.0

    def summary(self, settings: dict, result: dsg.ClassificationRun) -> str:
        return verdict_markdown(dsg.classification_claim(result))

    def digits_plot(self, result: dsg.ClassificationRun):
        dims = [axis("t", "steps t"), axis("rate", "test error rate")]
        t = result.history["step"].astype(float)
        ends = t[[0, -1]]
        floor = 0.5 / result.n_test  # a zero error drawn at half an image on the log axis
        return style(hv.Overlay([
            style(hv.Curve((t, np.maximum(result.history["rate"], floor)), *dims,
                           label=f"doubly SGD ({result.loss})"),
                  color=DSG_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5)),
            style(hv.Curve((ends, [max(result.reference_rate, floor)] * 2), *dims,
                           label="full kernel (scikit-learn)"),
                  color=NORMA_COLOR, bokeh=DASHED, mpl=MPL_DASHED),
            style(hv.Curve((ends, [dsg.PAPER_DIGITS_ERROR] * 2), *dims,
                           label="the paper (MNIST 8M)"),
                  color=EXACT_COLOR, bokeh=DOTTED, mpl=MPL_DOTTED)]),
            logx=True, logy=True, framewise=True)

    plots = (Plot(digits_plot, title="Test error against steps: 8 against 6"),)


@dataclass(frozen=True)
class GPResult:
    run: dsg.GPRun
    points: int
    tests: int
    bandwidth: float


def _against(ours: np.ndarray, exact: np.ndarray, what: str, color: str):
    """Ours against the closed form at every test point, with the diagonal."""
    lo, hi = float(min(exact.min(), ours.min())), float(max(exact.max(), ours.max()))
    pad = 0.05 * (hi - lo or 1.0)
    dims = [axis("exact", f"{what}, closed form (eq 3.9)"), axis("ours", f"{what}, doubly SGD")]
    pts = style(hv.Scatter((exact, ours), *dims, label="test points"), color=color,
                alpha=0.5, bokeh=dict(size=3), mpl=dict(s=4))
    line = style(hv.Curve(([lo - pad, hi + pad], [lo - pad, hi + pad]), *dims, label="equal"),
                 color=EXACT_COLOR, bokeh=DASHED, mpl=MPL_DASHED)
    return style(pts * line, xlim=(lo - pad, hi + pad), ylim=(lo - pad, hi + pad),
                 framewise=True)


class PosteriorRun(Run):
    """Fig 3.5: GP regression (noise variance 0.1) on the page's 2-D task, mean and variance by
    doubly stochastic gradients against the closed form."""

    key = "gp"
    title = "Fig 3.5: the Gaussian-process posterior by doubly stochastic gradients"
    button = "Run the GP regression"
    text = prose(__file__, "gp.md")
    uses = ("bandwidth_factor", "seed")
    aliases = {"gp_points": "points", "gp_tests": "tests", "gp_batch": "batch",
               "gp_block": "block", "gp_steps": "steps", "first_step": "first_step"}
    quick = {"points": 128, "tests": 16, "batch": 4, "block": 8, "steps": 8}
    widgets = {name: {"throttled": True}
               for name in ("points", "tests", "batch", "block", "steps", "first_step")}

    points = param.Integer(2048, bounds=(128, 4096), label="GP training points",
                           doc="Sec 3.6.2: 2¹¹.")
    tests = param.Integer(1024, bounds=(16, 2048), label="GP test points", doc="Sec 3.6.2: 2¹⁰.")
    batch = param.Integer(64, bounds=(4, 512), label="GP batch", doc="Sec 3.6.2: 64.")
    block = param.Integer(512, bounds=(8, 2048), label="GP feature block", doc="Sec 3.6.2: 512.")
    steps = param.Integer(256, bounds=(8, 2048), label="GP steps",
                          doc="Steps of the GP run (each sees a batch).")
    first_step = param.Number(16.0, bounds=(0.5, 64.0), step=0.5, label="GP first step γ₁",
                              doc="γ_t = θ/(t + t₀) with θ = 1/ν (θν = 1) and γ₁ = this.")

    def compute(self, settings: dict, progress=None) -> GPResult:
        n, tests = int(settings["points"]), int(settings["tests"])
        seed = int(settings["seed"])
        X, y = dsg.synthetic_2d(n, seed=seed)
        X_test, _ = dsg.synthetic_2d(tests, seed=seed + 1)
        bandwidth = dsg.median_bandwidth(X, factor=float(settings["bandwidth_factor"]))

        def stream(fraction, message, partial=None):
            if partial is None:
                progress(fraction, message)
            else:
                progress(fraction, message, partial=GPResult(partial, n, tests, bandwidth))

        run = dsg.gp_regression(X, y, X_test, noise=0.1, bandwidth=bandwidth,
                                steps=int(settings["steps"]), batch_size=int(settings["batch"]),
                                block_size=int(settings["block"]),
                                first_step=float(settings["first_step"]), seed=seed,
                                progress=stream if progress is not None else None)
        return GPResult(run, n, tests, bandwidth)

    def estimate(self, settings: dict) -> float:
        # measured: 10 s for 256 steps, 2048 + 1024 points, batch 64, block 512
        scale = (int(settings["steps"]) / 256 * int(settings["block"]) / 512
                 * (int(settings["points"]) + int(settings["tests"])) / 3072
                 * max(1.0, int(settings["tests"]) / 1024 * int(settings["batch"]) / 64))
        return 10.0 * scale + 1.0

    def summary(self, settings: dict, result: GPResult) -> str:
        h = result.run.history
        return (f"**{result.points:,} training and {result.tests:,} test points**, bandwidth "
                f"{result.bandwidth:.3f}, σ² = 0.1: after {int(h['seen'][-1]):,} points seen "
                f"the mean's squared error against eq 3.9 is **{h['mean_error'][-1]:.2e}** "
                f"(from {h['mean_error'][0]:.2e}), the variance's **{h['variance_error'][-1]:.2e}**"
                f" (from {h['variance_error'][0]:.2e}; posterior variances "
                f"{result.run.exact_variance.min():.3f} to {result.run.exact_variance.max():.3f}). "
                + verdict_markdown(dsg.posterior_claim(result.run)))

    def gp_error_plot(self, result: GPResult):
        h = result.run.history
        dims = [axis("seen", "training points visited"), axis("err", "mean squared error")]
        seen = h["seen"].astype(float)
        parts = [style(hv.Curve((seen, h["mean_error"]), *dims, label="posterior mean"),
                       color=MEAN_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5)),
                 style(hv.Curve((seen, h["variance_error"]), *dims, label="posterior variance"),
                       color=VAR_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))]
        if len(seen) > 2:
            ends = seen[[0, -1]]
            mid = len(seen) // 2
            parts.append(style(hv.Curve((ends, h["mean_error"][mid] * seen[mid] / ends), *dims,
                                        label="∝ 1/t"),
                               color="gray", bokeh=DOTTED, mpl=MPL_DOTTED))
        return style(hv.Overlay(parts), logx=True, logy=True, framewise=True)

    def gp_mean_plot(self, result: GPResult):
        return _against(result.run.mean, result.run.exact_mean, "mean", MEAN_COLOR)

    def gp_variance_plot(self, result: GPResult):
        return _against(result.run.variance, result.run.exact_variance, "variance", VAR_COLOR)

    plots = (Plot(gp_error_plot, title="Fig 3.5: error against the closed form"),
             Plot(gp_mean_plot, title="Posterior mean: ours against eq 3.9"),
             Plot(gp_variance_plot, title="Posterior variance: ours against eq 3.9"))
