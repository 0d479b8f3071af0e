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

from dataclasses import dataclass

import holoviews as hv
import numpy as np
import param

from dynamics import dsg
from views.framework.legacy_runs import Run
from dynamics.papers import DAI
from views.framework.cache import results_cache
from views.framework.jobs import progress_part
from views.framework.timeline import Frames, Mark, Timeline
from views.framework import (DASHED, DOTTED, MPL_DASHED, MPL_DOTTED, Explorer, Plot, RasterImage,
                           axis, style)
from views.framework.text import prose, verdict_markdown

DSG_COLOR, NORMA_COLOR, EXACT_COLOR, MEAN_COLOR, VAR_COLOR = (
    "#d62728", "#1f77b4", "#222222", "#d62728", "#9467bd")
#: Colours and dashes of Table 3.2's methods (Fig 3.4 (3)): Pegasos solid, SDCA dashed.
BASELINE_STYLE = {"r-Pegasos": ("#2ca02c", "solid"), "n-Pegasos": ("#ff7f0e", "solid"),
                  "r-SDCA": ("#2ca02c", "dashed"), "n-SDCA": ("#ff7f0e", "dashed"),
                  "k-SDCA": ("#8c564b", "dashed")}
#: The digits run's minibatch and feature block.
DIGITS_BATCH, DIGITS_BLOCK = 16, 64
#: Knobs of the task and kernel (the live panels, and the runs use them).
LIVE = ("points", "bandwidth_factor", "nu", "block", "seed")
#: Side of the grid the surfaces are drawn on (and the runs' error is measured on).
GRID = 40
#: NORMA keeps every point it visits: its comparison run stops here (steps).
NORMA_STEPS = 1024
XY_DIMS = [axis("x1", "x₁"), axis("x2", "x₂")]
SURFACE = dict(cmap="RdBu_r", colorbar=True)
ERROR_DIMS = (axis("t", "steps t"), axis("err", "error"))
#: The run's timeline: the averaged iterate at step t over the final one (its colours scaled
#: as the panel's: a frame holds f̄ₜ / limit, drawn on [-1, 1]), a line at t and a ring on the
#: error curve.
CURVE_TIMELINE = Timeline(
    "curve_frames", unit="step",
    caption=prose(__file__, "curve.timeline.md"),
    marks=(Mark("fit_plot", "image", x="fit", bounds="grid",
                dims=(*XY_DIMS, hv.Dimension("f", label="f̄ₜ(x) / its colour scale")),
                options=dict(cmap=SURFACE["cmap"], clim=(-1.0, 1.0),
                             bokeh=dict(colorbar=False), mpl=dict(colorbar=False))),
           Mark("error_plot", "vline", x="t", options=dict(
               color="gray", bokeh=dict(line_width=1.5, **DOTTED),
               mpl=dict(linewidth=1, **MPL_DOTTED))),
           Mark("error_plot", "point", x="t", y="error", dims=ERROR_DIMS, options=dict(
               bokeh=dict(size=12, color="white", fill_alpha=0.6, line_color=DSG_COLOR,
                          line_width=3),
               mpl=dict(s=70, color="white", edgecolors=DSG_COLOR, linewidth=2)))))


def _grid() -> np.ndarray:
    g = np.linspace(-5, 5, GRID)
    return np.array([(a, b) for b in g for a in g])  # row-major image order: x1 fastest


@dataclass(frozen=True)
class Task:
    X: np.ndarray
    y: np.ndarray
    bandwidth: float
    target: np.ndarray  # f* on the grid


@results_cache
def make_task(points: int, factor: float, nu: float, seed: int) -> Task:
    X, y = dsg.synthetic_2d(points, seed=seed)
    bandwidth = dsg.median_bandwidth(X, factor=factor)
    target = dsg.kernel_ridge(X, y, bandwidth=bandwidth, nu=nu)(_grid())
    return Task(X, y, bandwidth, target)


@dataclass(frozen=True)
class CurveRun:
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


@dataclass(frozen=True)
class GPResult:
    run: dsg.GPRun
    points: int
    tests: int
    bandwidth: float


def _labels(y: np.ndarray) -> np.ndarray:
    """Labels for the classification losses: the sign of y (rings of the cosine)."""
    return np.where(y > 0, 1.0, -1.0)


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
    block = param.Integer(16, bounds=(1, 1024), label="Feature block B",
                          doc="Random features drawn per step (the paper: 2¹⁰).")
    seed = param.Integer(0, bounds=(0, 99_999), label="Seed",
                         doc="Seed of the data, the minibatches and the features.")
    loss = param.Selector(default="squared", objects=list(dsg.LOSSES), label="Loss",
                          doc="squared: kernel ridge regression; hinge (SVM) and logistic learn "
                              "the sign of y.")
    theta = param.Number(100.0, bounds=(1.0, 10_000.0), step=1.0, label="Step scale θ",
                         doc="γ_t = θ / (t + t₀), t₀ = θ: Thm 11 asks θν ≥ 1.")
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
    digits_loss = param.Selector(default="hinge", objects=["hinge", "logistic"],
                                 label="Digits: loss",
                                 doc="hinge: kernel SVM (Sec 3.6.3); logistic: kernel logistic "
                                     "regression.")
    digits_steps = param.Selector(default=4096, objects=[2**k for k in range(6, 14)],
                                  label="Digits: steps",
                                  doc="Steps of 16 images with blocks of 64 features.")
    gp_points = param.Integer(2048, bounds=(128, 4096), label="GP training points",
                              doc="Sec 3.6.2: 2¹¹.")
    gp_tests = param.Integer(1024, bounds=(16, 2048), label="GP test points",
                             doc="Sec 3.6.2: 2¹⁰.")
    gp_batch = param.Integer(64, bounds=(4, 512), label="GP batch", doc="Sec 3.6.2: 64.")
    gp_block = param.Integer(512, bounds=(8, 2048), label="GP feature block",
                             doc="Sec 3.6.2: 512.")
    gp_steps = param.Integer(256, bounds=(8, 2048), label="GP steps",
                             doc="Steps of the GP run (each sees a batch).")
    first_step = param.Number(16.0, bounds=(0.5, 64.0), step=0.5, label="GP first step γ₁",
                              doc="γ_t = θ/(t + t₀) with θ = 1/ν (θν = 1) and γ₁ = this.")

    fields = ("seed",)
    widgets = {name: {"throttled": True} for name in (
        "points", "bandwidth_factor", "nu", "block", "theta", "batch", "gp_points",
        "gp_tests", "gp_batch", "gp_block", "gp_steps", "first_step")}
    # what the generic tests and benches need of this page (see ``Explorer``)
    example_change = {"seed": 2}
    bench_move = ("bandwidth_factor", [0.11, 0.12, 0.13, 0.14, 0.15, 0.16, 0.17, 0.18])
    plots = (
        Plot("truth_plot", title="Fig 3.4 (1): the function and the data", depends=LIVE),
        Plot("target_plot", title="f*: exact kernel ridge solution", depends=LIVE),
        Plot("features_plot", title="One block of features against k", depends=LIVE),
    )
    runs = (
        Run("curve", quick=(("points", 200), ("steps", 64), ("baselines", True)),
            title="Fig 3.4: the averaged iterate approaches f* at rate 1/t",
            button="Run doubly SGD",
            settings=("loss", "theta", "batch", "steps", "baselines", "base_features"),
            uses=LIVE, compute="run_curve",
            plots=(Plot("fit_plot", title="Averaged iterate f̄ₜ"),
                   Plot("error_plot", title="Fig 3.4 (2): ‖f̄ₜ − f*‖² against t"),
                   Plot("memory_plot", title="Memory: doubly SGD and NORMA"),
                   Plot("baselines_plot",
                        title="Fig 3.4 (3): Table 3.2's methods")),
            timeline=CURVE_TIMELINE,
            text=prose(__file__, "curve.md"),
            estimate="curve_estimate", summary="curve_summary"),
        Run("digits", quick=(("digits_steps", 64),),
            title="Fig 3.6 (2) at this scale: 8 against 6 by kernel SVM",
            button="Run the digits", settings=("digits_loss", "digits_steps"),
            uses=("seed",), compute="run_digits",
            plots=(Plot("digits_plot", title="Test error against steps: 8 against 6"),),
            text=prose(__file__, "digits.md"),
            estimate="digits_estimate", summary="digits_summary"),
        Run("gp", quick=(("gp_points", 128), ("gp_tests", 16), ("gp_batch", 4), ("gp_block", 8), ("gp_steps", 8)),
            title="Fig 3.5: the Gaussian-process posterior by doubly stochastic gradients",
            button="Run the GP regression",
            settings=("gp_points", "gp_tests", "gp_batch", "gp_block", "gp_steps",
                      "first_step"),
            uses=("bandwidth_factor", "seed"), compute="run_gp",
            plots=(Plot("gp_error_plot", title="Fig 3.5: error against the closed form"),
                   Plot("gp_mean_plot", title="Posterior mean: ours against eq 3.9"),
                   Plot("gp_variance_plot", title="Posterior variance: ours against eq 3.9")),
            text=prose(__file__, "gp.md"),
            estimate="gp_estimate", summary="gp_summary"),
    )

    text = prose(__file__, "page.md")

    # --- live --------------------------------------------------------------------------------
    def _compute(self) -> Task:
        return make_task(int(self.points), float(self.bandwidth_factor), float(self.nu),
                         int(self.seed))

    @staticmethod
    def _surface(values: np.ndarray, label: str, limit: float, *, hover: bool = True):
        """A function on the grid, coloured symmetrically in [-limit, limit]; with ``hover``,
        its values read under the pointer."""
        g = np.linspace(-5, 5, GRID)
        image = RasterImage((g, g, values.reshape(GRID, GRID).astype(np.float32)),
                            kdims=XY_DIMS, vdims=[hv.Dimension("f", label=label)])
        return style(image, **SURFACE, clim=(-limit, limit),
                     bokeh=dict(tools=["hover"] if hover else []))

    def truth_plot(self):
        task = self.result()
        image = self._surface(dsg.synthetic_truth(_grid()), "noiseless function of the data", 1.0)
        pts = style(hv.Points(task.X.astype(np.float32), kdims=XY_DIMS,
                              label="training points"),
                    color="black", alpha=0.3, bokeh=dict(size=1.5), mpl=dict(s=0.8))
        return style(image * pts, show_legend=False)

    def target_plot(self):
        target = self.result().target
        return self._surface(target, "f*(x)", float(np.abs(target).max()))

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

    # --- run: Fig 3.4 ------------------------------------------------------------------------
    def run_curve(self, settings: dict, progress=None) -> CurveRun:
        task = make_task(int(settings["points"]), float(settings["bandwidth_factor"]),
                         float(settings["nu"]), int(settings["seed"]))
        loss, theta = settings["loss"], float(settings["theta"])
        nu, B, m = float(settings["nu"]), int(settings["block"]), int(settings["batch"])
        steps, seed = int(settings["steps"]), int(settings["seed"])
        grid = _grid()
        if loss == "squared":
            y, y_test = task.y, task.target
        else:
            y, y_test = _labels(task.y), _labels(dsg.synthetic_truth(grid))
        target = task.target if loss == "squared" else y_test
        dsg_s, norma_s = self._curve_seconds(settings)
        base_s = self._baseline_seconds(settings)
        total = dsg_s + norma_s + base_s
        share, share_n = dsg_s / total, (dsg_s + norma_s) / total  # the fraction's parts

        def stream(fraction, message, partial=None):
            if progress is None:
                return
            if partial is None:
                progress(share * fraction, message)
            else:
                progress(share * fraction, message, partial=CurveRun(
                    loss, target, partial.test_fit, self._scored(loss, partial.history, y_test,
                                                                  None),
                    None, B, m, steps))

        options = dict(loss=loss, bandwidth=task.bandwidth, nu=nu, theta=theta, t0=theta,
                       batch_size=m, seed=seed)
        model = dsg.doubly_sgd(task.X, y, block_size=B, steps=steps, X_test=grid,
                               y_test=y_test, progress=stream, **options)
        history = self._scored(loss, model.history, y_test, model.test_fit)
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
        return CurveRun(loss, target, model.test_fit, history, norma, B, m, steps,
                        model.test_path, baselines)

    @staticmethod
    def _colour_scale(result: CurveRun) -> float:
        """The half-range of the fit panel's colours: max |f*| (squared loss), else 1."""
        return float(np.abs(result.target).max()) if result.loss == "squared" else 1.0

    def curve_frames(self, result: CurveRun) -> Frames:
        """The Fig 3.4 run's timeline: the steps where the run recorded f̄ₜ on the grid, the
        error there, and f̄ₜ as an image (over the panel's colour scale, clipped to it as the
        panel is; rows in image order, x₂ falling); one frame, the fit shown, for a run still
        going."""
        h = result.history
        limit = self._colour_scale(result)
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

    @staticmethod
    def _scored(loss: str, history: dict, y_test: np.ndarray, fit) -> dict:
        """The history as drawn, with (classification losses, final fit) the test error
        rate: the fraction of grid points where the sign of f̄ₜ is not the label's."""
        history = dict(history)
        if loss != "squared" and fit is not None:
            history["rate"] = float(np.mean(np.sign(fit) != y_test))
        return history

    def _curve_seconds(self, settings: dict) -> tuple[float, float]:
        """Seconds of the run's doubly SGD and of its NORMA baseline (none for the hinge loss)
        on the development machine: measured 15.5 s for 2^14 steps over 2000 points and the
        1600 grid points with blocks of 16, and 1.5 s for NORMA's 1024 steps of 16 (its step t
        sums over the (t - 1) m points kept: quadratic)."""
        per_eval = 15.5 / (2**14 * 3600 * 16)
        n = int(settings["points"]) + GRID**2
        dsg_s = per_eval * int(settings["steps"]) * (n + int(settings["batch"])) * int(
            settings["block"])
        norma = (min(int(settings["steps"]), NORMA_STEPS) ** 2 * int(settings["batch"]) ** 2
                 * 5.5e-9 if settings["loss"] == "squared" else 0.0)
        return dsg_s + 0.5, norma

    @staticmethod
    def _baseline_seconds(settings: dict) -> float:
        """Seconds of Fig 3.4 (3)'s baselines (measured: about 15 s of CPU for 2^14 steps of
        16 over 2000 points, r = 256; k-SDCA's n x n eigendecomposition is most of it)."""
        if not settings.get("baselines") or settings["loss"] != "squared":
            return 0.0
        n, r = int(settings["points"]), int(settings["base_features"])
        visited = int(settings["steps"]) * int(settings["batch"])
        return (2 * 4e-4 * int(settings["steps"]) + 4e-9 * visited * (2 * r + n)
                + 1e-9 * n**3 + 0.5)

    def curve_estimate(self, settings: dict) -> float:
        return sum(self._curve_seconds(settings)) + self._baseline_seconds(settings)

    def curve_summary(self, settings: dict, result: CurveRun) -> str:
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

    def fit_plot(self, result: CurveRun):
        # the colours of f* above, to compare; no hover: the timeline draws f̄ₜ at step t over
        # it, and a hover would read the final one
        if result.loss == "squared":
            return self._surface(result.fit, "f̄ₜ(x)", self._colour_scale(result), hover=False)
        return self._surface(np.clip(result.fit, -1, 1), "f̄ₜ(x) (clipped to ±1)", 1.0,
                             hover=False)

    def error_plot(self, result: CurveRun):
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
        return style(hv.Overlay(parts), logx=True, logy=True,
                     framewise=True)

    def memory_plot(self, result: CurveRun):
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
        return style(hv.Overlay(parts), logx=True, logy=True,
                     framewise=True)

    def baselines_plot(self, result: CurveRun):
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

    # --- run: digits 8 against 6 (Sec 3.6.3) -----------------------------------------------
    def run_digits(self, settings: dict, progress=None) -> dsg.ClassificationRun:
        X, y, X_test, y_test = dsg.digits_pair(8, 6, seed=int(settings["seed"]))
        bandwidth = dsg.median_bandwidth(X, factor=1.0)
        nu = 1.0 / len(X)
        loss = settings["digits_loss"]
        model = dsg.doubly_sgd(X, y, loss=loss, bandwidth=bandwidth, nu=nu,
                               steps=int(settings["digits_steps"]), batch_size=DIGITS_BATCH,
                               block_size=DIGITS_BLOCK, seed=int(settings["seed"]),
                               X_test=X_test, y_test=y_test, progress=progress)
        return dsg.classification_run(model, X, y, X_test, y_test, loss=loss, nu=nu)

    def digits_estimate(self, settings: dict) -> float:
        # measured: 2.3 s of CPU for 1024 steps (355 images of 64 pixels, 64 features a step)
        return 2.3 * int(settings["digits_steps"]) / 1024 + 1.0

    def digits_summary(self, settings: dict, result: dsg.ClassificationRun) -> str:
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

    # --- run: Fig 3.5 ------------------------------------------------------------------------
    def run_gp(self, settings: dict, progress=None) -> GPResult:
        n, tests = int(settings["gp_points"]), int(settings["gp_tests"])
        seed = int(settings["seed"])
        X, y = dsg.synthetic_2d(n, seed=seed)
        X_test, _ = dsg.synthetic_2d(tests, seed=seed + 1)
        bandwidth = dsg.median_bandwidth(X, factor=float(settings["bandwidth_factor"]))

        def stream(fraction, message, partial=None):
            if progress is None:
                return
            if partial is None:
                progress(fraction, message)
            else:
                progress(fraction, message, partial=GPResult(partial, n, tests, bandwidth))

        run = dsg.gp_regression(X, y, X_test, noise=0.1, bandwidth=bandwidth,
                                steps=int(settings["gp_steps"]),
                                batch_size=int(settings["gp_batch"]),
                                block_size=int(settings["gp_block"]),
                                first_step=float(settings["first_step"]), seed=seed,
                                progress=stream if progress is not None else None)
        return GPResult(run, n, tests, bandwidth)

    def gp_estimate(self, settings: dict) -> float:
        # measured: 10 s for 256 steps, 2048 + 1024 points, batch 64, block 512
        scale = (int(settings["gp_steps"]) / 256 * int(settings["gp_block"]) / 512
                 * (int(settings["gp_points"]) + int(settings["gp_tests"])) / 3072
                 * max(1.0, int(settings["gp_tests"]) / 1024 * int(settings["gp_batch"]) / 64))
        return 10.0 * scale + 1.0

    def gp_summary(self, settings: dict, result: GPResult) -> str:
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
        return style(hv.Overlay(parts), logx=True, logy=True,
                     framewise=True)

    def _against(self, ours: np.ndarray, exact: np.ndarray, what: str, color: str):
        lo, hi = float(min(exact.min(), ours.min())), float(max(exact.max(), ours.max()))
        pad = 0.05 * (hi - lo or 1.0)
        dims = [axis("exact", f"{what}, closed form (eq 3.9)"),
                axis("ours", f"{what}, doubly SGD")]
        pts = style(hv.Scatter((exact, ours), *dims, label="test points"), color=color,
                    alpha=0.5, bokeh=dict(size=3), mpl=dict(s=4))
        line = style(hv.Curve(([lo - pad, hi + pad], [lo - pad, hi + pad]), *dims,
                              label="equal"),
                     color=EXACT_COLOR, bokeh=DASHED, mpl=MPL_DASHED)
        return style(pts * line, xlim=(lo - pad, hi + pad), ylim=(lo - pad, hi + pad),
                     framewise=True)

    def gp_mean_plot(self, result: GPResult):
        return self._against(result.run.mean, result.run.exact_mean, "mean", MEAN_COLOR)

    def gp_variance_plot(self, result: GPResult):
        return self._against(result.run.variance, result.run.exact_variance, "variance",
                             VAR_COLOR)
