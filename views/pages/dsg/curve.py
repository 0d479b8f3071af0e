"""The doubly stochastic gradients page's Fig 3.4 run: the averaged iterate approaching f* at
rate 1/t, its memory against NORMA's, and (Fig 3.4 (3)) Table 3.2's Pegasos and SDCA on
explicit features; its timeline draws the averaged iterate at step t."""

from __future__ import annotations

from dataclasses import dataclass

import holoviews as hv
import numpy as np
import param

from dynamics import dsg
from views.framework import (DASHED, DOTTED, MPL_DASHED, MPL_DOTTED, Frames, Mark, Plot,
                             Timeline, axis, prose, style)
from views.framework.jobs import progress_part
from views.framework.runs import Run
from views.framework.text import verdict_markdown
from views.pages.dsg.common import (DSG_COLOR, GRID, LIVE, NORMA_COLOR, SURFACE, XY_DIMS,
                                    grid_points, make_task, surface)

__all__ = ["CurveRun", "CurveResult", "NORMA_STEPS", "BASELINE_STYLE"]

#: Colours and dashes of Table 3.2's methods (Fig 3.4 (3)): Pegasos solid, SDCA dashed.
BASELINE_STYLE = {"r-Pegasos": ("#2ca02c", "solid"), "n-Pegasos": ("#ff7f0e", "solid"),
                  "r-SDCA": ("#2ca02c", "dashed"), "n-SDCA": ("#ff7f0e", "dashed"),
                  "k-SDCA": ("#8c564b", "dashed")}
#: NORMA keeps every point it visits: its comparison run stops here (steps).
NORMA_STEPS = 1024
ERROR_DIMS = (axis("t", "steps t"), axis("err", "error"))


def _curve_marks(fit, error) -> tuple:
    """What the run's timeline draws: on panel ``fit`` the averaged iterate at step t over the
    final one (its colours scaled as the panel's: a frame holds f̄ₜ / limit, drawn on
    [-1, 1]), on panel ``error`` a line at t and a ring on the error curve."""
    return (
        Mark(fit, "image", x="fit", bounds="grid",
             dims=(*XY_DIMS, hv.Dimension("f", label="f̄ₜ(x) / its colour scale")),
             options=dict(cmap=SURFACE["cmap"], clim=(-1.0, 1.0), bokeh=dict(colorbar=False),
                          mpl=dict(colorbar=False))),
        Mark(error, "vline", x="t", options=dict(
            color="gray", bokeh=dict(line_width=1.5, **DOTTED),
            mpl=dict(linewidth=1, **MPL_DOTTED))),
        Mark(error, "point", x="t", y="error", dims=ERROR_DIMS, options=dict(
            bokeh=dict(size=12, color="white", fill_alpha=0.6, line_color=DSG_COLOR,
                       line_width=3),
            mpl=dict(s=70, color="white", edgecolors=DSG_COLOR, linewidth=2))),
        # the errors end at t
        Mark(error, "grow", x="t", dims=("t",), keep=("∝",)))


@dataclass(frozen=True)
class CurveResult:
    """The Fig 3.4 run (or its part so far): the averaged iterate on the grid, the histories
    of doubly SGD and NORMA, the memory each keeps."""

    loss: str
    target: np.ndarray
    fit: np.ndarray
    history: dict
    norma: dict | None
    block: int
    batch: int
    steps: int
    #: f̄ₜ on the grid at each step of ``history`` (rows), or None (a run still going)
    path: np.ndarray | None = None
    #: Fig 3.4 (3): Table 3.2's methods on explicit features (``dsg.compare_baselines``), or
    #: None (not asked for, or a classification loss)
    baselines: dict | None = None


def _labels(y: np.ndarray) -> np.ndarray:
    """Labels for the classification losses: the sign of y (rings of the cosine)."""
    return np.where(y > 0, 1.0, -1.0)


def _scored(loss: str, history: dict, y_test: np.ndarray, fit) -> dict:
    """The history as drawn, with (classification losses, final fit) the test error rate: the
    fraction of grid points where the sign of f̄ₜ is not the label's."""
    history = dict(history)
    if loss != "squared" and fit is not None:
        history["rate"] = float(np.mean(np.sign(fit) != y_test))
    return history


def _colour_scale(result: CurveResult) -> float:
    """The half-range of the fit panel's colours: max |f*| (squared loss), else 1."""
    return float(np.abs(result.target).max()) if result.loss == "squared" else 1.0


def _curve_seconds(settings: dict) -> tuple[float, float]:
    """Seconds of the run's doubly SGD and of its NORMA baseline (none for the hinge loss) on
    the development machine: measured 15.5 s for 2^14 steps over 2000 points and the 1600 grid
    points with blocks of 16, and 1.5 s for NORMA's 1024 steps of 16 (its step t sums over the
    (t - 1) m points kept: quadratic)."""
    per_eval = 15.5 / (2**14 * 3600 * 16)
    n = int(settings["points"]) + GRID**2
    dsg_s = per_eval * int(settings["steps"]) * (n + int(settings["batch"])) * int(
        settings["block"])
    norma = (min(int(settings["steps"]), NORMA_STEPS) ** 2 * int(settings["batch"]) ** 2
             * 5.5e-9 if settings["loss"] == "squared" else 0.0)
    return dsg_s + 0.5, norma


def _baseline_seconds(settings: dict) -> float:
    """Seconds of Fig 3.4 (3)'s baselines (measured: about 15 s of CPU for 2^14 steps of 16
    over 2000 points, r = 256; k-SDCA's n x n eigendecomposition is most of it)."""
    if not settings.get("baselines") or settings["loss"] != "squared":
        return 0.0
    n, r = int(settings["points"]), int(settings["base_features"])
    visited = int(settings["steps"]) * int(settings["batch"])
    return (2 * 4e-4 * int(settings["steps"]) + 4e-9 * visited * (2 * r + n)
            + 1e-9 * n**3 + 0.5)


class CurveRun(Run):
    """Fig 3.4: doubly SGD on the page's task (its knobs ``LIVE`` and θ), NORMA beside it, and
    optionally Table 3.2's methods (Fig 3.4 (3))."""

    key = "curve"
    title = "Fig 3.4: the averaged iterate approaches f* at rate 1/t"
    button = "Run doubly SGD"
    text = prose(__file__, "curve.md")
    uses = (*LIVE, "theta")
    aliases = {"loss": "loss", "batch": "batch", "steps": "steps", "baselines": "baselines",
               "base_features": "base_features"}
    quick = {"points": 200, "steps": 64, "baselines": True}
    widgets = {"batch": {"throttled": True}}

    loss = param.Selector(default="squared", objects=list(dsg.LOSSES), label="Loss",
                          doc="squared: kernel ridge regression; hinge (SVM) and logistic learn "
                              "the sign of y.")
    batch = param.Integer(16, bounds=(1, 1024), label="Batch m",
                          doc="Data points per step (the paper: 2¹⁰).")
    steps = param.Selector(default=2**14, objects=[2**k for k in range(6, 17)], label="Steps t",
                           doc="Steps of the run (Fig 3.4: 2¹⁴).")
    baselines = param.Boolean(False, label="Table 3.2's baselines (Fig 3.4 (3))",
                              doc="Also run Pegasos and SDCA on random Fourier, Nystrom and "
                                  "exact-kernel features over the same points (squared loss).")
    base_features = param.Selector(default=2**8, objects=[2**k for k in range(4, 11)],
                                   label="Baselines' features r",
                                   doc="Random or Nystrom features of r-/n-Pegasos and SDCA "
                                       "(the paper: 2⁸).")

    def compute(self, settings: dict, progress=None) -> CurveResult:
        task = make_task(int(settings["points"]), float(settings["bandwidth_factor"]),
                         float(settings["nu"]), int(settings["seed"]))
        loss, theta = settings["loss"], float(settings["theta"])
        nu, B, m = float(settings["nu"]), int(settings["block"]), int(settings["batch"])
        steps, seed = int(settings["steps"]), int(settings["seed"])
        grid = grid_points()
        if loss == "squared":
            y, y_test = task.y, task.target
        else:
            y, y_test = _labels(task.y), _labels(dsg.synthetic_truth(grid))
        target = task.target if loss == "squared" else y_test
        dsg_s, norma_s = _curve_seconds(settings)
        total = dsg_s + norma_s + _baseline_seconds(settings)
        share, share_n = dsg_s / total, (dsg_s + norma_s) / total  # the fraction's parts

        def stream(fraction, message, partial=None):
            if progress is None:
                return
            if partial is None:
                progress(share * fraction, message)
            else:
                progress(share * fraction, message, partial=CurveResult(
                    loss, target, partial.test_fit, _scored(loss, partial.history, y_test, None),
                    None, B, m, steps))

        options = dict(loss=loss, bandwidth=task.bandwidth, nu=nu, theta=theta, t0=theta,
                       batch_size=m, seed=seed)
        model = dsg.doubly_sgd(task.X, y, block_size=B, steps=steps, X_test=grid,
                               y_test=y_test, progress=stream, **options)
        history = _scored(loss, model.history, y_test, model.test_fit)
        norma = None
        if loss == "squared":
            n_model = dsg.norma(task.X, y, bandwidth=task.bandwidth, nu=nu, theta=theta,
                                t0=theta, batch_size=m, seed=seed,
                                steps=min(steps, NORMA_STEPS), X_test=grid, y_test=y_test,
                                progress=progress_part(progress, share, share_n, "NORMA"))
            norma = n_model.history
        baselines = None
        if loss == "squared" and settings.get("baselines"):
            baselines = dsg.compare_baselines(
                task.X, y, grid, y_test, bandwidth=task.bandwidth, nu=nu, points=steps * m,
                batch_size=m, features=int(settings["base_features"]), theta=theta, t0=theta,
                seed=seed, progress=progress_part(progress, share_n, 1.0, "baselines"))
        return CurveResult(loss, target, model.test_fit, history, norma, B, m, steps,
                           model.test_path, baselines)

    def estimate(self, settings: dict) -> float:
        return sum(_curve_seconds(settings)) + _baseline_seconds(settings)

    def summary(self, settings: dict, result: CurveResult) -> str:
        h = result.history
        if result.loss == "squared":
            verdict = dsg.rate_claim(h, steps=result.steps, batch=result.batch,
                                     block=result.block, norma=result.norma)
            norma = ""
            if result.norma is not None and len(result.norma["error"]):
                norma = (f" NORMA after its {int(result.norma['step'][-1]):,} steps: "
                         f"{result.norma['error'][-1]:.2e}, keeping "
                         f"{int(result.norma['memory'][-1]):,} numbers.")
            base = ""
            if result.baselines is not None:
                base = " " + verdict_markdown(dsg.baselines_claim(result.baselines, h,
                                                                  norma=result.norma))
            return (f"**After {result.steps:,} steps** ({result.steps * result.batch:,} points "
                    f"seen): ‖f̄ₜ − f*‖² = **{h['error'][-1]:.2e}**, log-log slope "
                    f"**{verdict.numbers['slope']:.2f}** from step "
                    f"{verdict.numbers['first_step']} (Thm 11: −1), keeping "
                    f"{result.steps * result.block + 1:,} numbers.{norma} "
                    + verdict_markdown(verdict) + base)
        return (f"**After {result.steps:,} steps:** test error rate against the sign of the "
                f"noiseless function **{h.get('rate', float('nan')):.3f}** ({result.loss} loss).")

    def fit_plot(self, result: CurveResult):
        # the colours of f* above, to compare; no hover: the timeline draws f̄ₜ at step t over
        # it, and a hover would read the final one
        if result.loss == "squared":
            return surface(result.fit, "f̄ₜ(x)", _colour_scale(result), hover=False)
        return surface(np.clip(result.fit, -1, 1), "f̄ₜ(x) (clipped to ±1)", 1.0, hover=False)

    def error_plot(self, result: CurveResult):
        h = result.history
        what = ("‖f̄ₜ − f*‖² on the grid" if result.loss == "squared"
                else "mean (f̄ₜ − label)² on the grid")
        dims = [axis("t", "steps t"), axis("err", what)]
        t = h["step"].astype(float)
        parts = [style(hv.Curve((t, h["error"]), *dims, label="doubly SGD"),
                       color=DSG_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))]
        if len(t) > 2:
            mid = len(t) // 2
            ends = t[[0, -1]]
            parts.append(style(hv.Curve((ends, h["error"][mid] * t[mid] / ends), *dims,
                                        label="∝ 1/t"),
                               color="gray", bokeh=DASHED, mpl=MPL_DASHED))
        if result.norma is not None and len(result.norma["step"]):
            parts.append(style(hv.Curve((result.norma["step"].astype(float),
                                         result.norma["error"]), *dims, label="NORMA"),
                               color=NORMA_COLOR, bokeh=dict(line_width=2),
                               mpl=dict(linewidth=1.5)))
        return style(hv.Overlay(parts), logx=True, logy=True, framewise=True)

    def memory_plot(self, result: CurveResult):
        t = np.unique(np.geomspace(1, result.steps, 40).astype(int)).astype(float)
        dims = [axis("t", "steps t"), axis("mem", "numbers kept")]
        d = 2
        parts = [style(hv.Curve((t, t * result.block + 1), *dims,
                                label=f"doubly SGD: B = {result.block} a step"),
                       color=DSG_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5)),
                 style(hv.Curve((t, t * result.batch * (d + 1)), *dims,
                                label=f"NORMA: m(d + 1) = {result.batch * (d + 1)} a step"),
                       color=NORMA_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))]
        if result.norma is not None and len(result.norma["memory"]):
            parts.append(style(hv.Scatter((result.norma["step"].astype(float),
                                           result.norma["memory"]), *dims,
                                          label="NORMA, counted in the run"),
                               color=NORMA_COLOR, bokeh=dict(size=5), mpl=dict(s=12)))
        return style(hv.Overlay(parts), logx=True, logy=True, framewise=True)

    def baselines_plot(self, result: CurveResult):
        """Fig 3.4 (3): the error against the training points visited, doubly SGD and NORMA
        with (when run) Table 3.2's methods on explicit features."""
        what = ("‖f − f*‖² on the grid" if result.loss == "squared"
                else "mean (f̄ₜ − label)² on the grid")
        dims = [axis("seen", "training points visited"), axis("err", what)]
        h = result.history
        curves = [("doubly SGD", h, DSG_COLOR, "solid")]
        if result.norma is not None and len(result.norma["step"]):
            curves.append(("NORMA", result.norma, NORMA_COLOR, "solid"))
        for name, bh in (result.baselines or {}).items():
            color, dash = BASELINE_STYLE.get(name, ("#7f7f7f", "solid"))
            curves.append((f"{name} (r = {int(bh['features'])})", bh, color, dash))
        parts = []
        for label, curve, color, dash in curves:
            if not len(curve["seen"]):
                continue
            parts.append(style(hv.Curve((np.asarray(curve["seen"], float), curve["error"]),
                                        *dims, label=label),
                               color=color, bokeh=dict(line_width=2, line_dash=dash),
                               mpl=dict(linewidth=1.5,
                                        linestyle="--" if dash == "dashed" else "-")))
        return style(hv.Overlay(parts), logx=True, logy=True, framewise=True)

    def curve_frames(self, result: CurveResult) -> Frames:
        """The run's timeline: the steps where the run recorded f̄ₜ on the grid, the error
        there, and f̄ₜ as an image (over the panel's colour scale, clipped to it as the panel
        is; rows in image order, x₂ falling); one frame, the fit shown, for a run still
        going."""
        h = result.history
        limit = _colour_scale(result)
        d = 10.0 / (GRID - 1)  # the cells are centred on the grid points, -5 .. 5
        bounds = np.array([-5 - d / 2, -5 - d / 2, 5 + d / 2, 5 + d / 2])
        if result.path is None or not len(h["step"]):
            steps = np.array([h["step"][-1] if len(h["step"]) else 0])
            errors = np.array([h["error"][-1] if len(h["error"]) else np.nan])
            path = result.fit[None, :]
        else:
            steps, errors, path = h["step"], h["error"], result.path
        images = np.clip(path / limit, -1.0, 1.0).reshape(len(path), GRID, GRID)[:, ::-1]
        return Frames(np.asarray(steps, np.int64), {"error": np.asarray(errors, float)},
                      arrays={"fit": images.astype(np.float32)}, fixed={"grid": bounds})

    timeline = Timeline(curve_frames, unit="step", marks=_curve_marks(fit_plot, error_plot),
                        caption=prose(__file__, "curve.timeline.md"))
    plots = (Plot(fit_plot, title="Averaged iterate f̄ₜ"),
             Plot(error_plot, title="Fig 3.4 (2): ‖f̄ₜ − f*‖² against t"),
             Plot(memory_plot, title="Memory: doubly SGD and NORMA"),
             Plot(baselines_plot, title="Fig 3.4 (3): Table 3.2's methods"))
