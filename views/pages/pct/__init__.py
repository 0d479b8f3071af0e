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

from dynamics.pct import conditional_herding as ch
from dynamics.pct import conditional_herding_data as cd
from dynamics.pct import generalized_herding as gh
from views.framework.legacy_runs import Run
from dynamics.papers import CHEN_WELLING
from views.framework.cache import results_cache
from views.framework import (DASHED, DOTTED, MPL_DASHED, MPL_DOTTED, Explorer, Plot, axis,
                           log_spaced, style)
from views.framework.text import prose, verdict_markdown
from views.framework.jobs import progress_part
from views.framework.timeline import Frames, Mark, Timeline

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
#: Side of the grid of inputs on which the decision runs' votes are drawn.
GRID = 80
#: Test cases drawn (from the same generator, another seed) for the test errors.
TEST_CASES = 2000
DATASETS = {"banana": ch.banana, "Lithuanian": ch.lithuanian}
CLASS_COLORS = {1: "#d62728", -1: "#1f77b4"}
#: The knobs of the live panels (the others are the decision-boundary run's settings).
LIVE_KNOBS = ("n_units", "cases", "steps", "batch", "sweeps", "seed")
T_COLOR = "#111111"
#: The live panel whose curves get the timeline's rings: method, the run's array drawn and its
#: axis name.
RINGED = (("norm_plot", "weight_norm", "norm"),)


def _step_marks() -> tuple:
    """The timeline's marks: a line at step t on each live panel and, on each variant's curve
    of the weight norm, a ring at its value at t. Not on the error panels: a ring's new data
    makes Bokeh measure the panel's (log) axes again at every frame, a line's new place does
    not (profiled playing in headless Chromium: 5-6 ms against 2 ms a panel's paint; rings on
    two panels played at 15-17 redraws/s, on one at 20-28, herding at 25 beside it)."""
    marks = [Mark(plot, "vline", x="t", options=dict(
        color=T_COLOR, alpha=0.6, bokeh=dict(line_width=1.5), mpl=dict(linewidth=1)))
        for plot in ("norm_plot", "scaled_plot", "error_plot")]
    for plot, _, name in RINGED:
        marks.extend(Mark(plot, "point", x="t", y=f"{name}_{key}", dims=("tau", name),
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


@dataclass(frozen=True)
class Boundaries:
    """Mean votes of the voted perceptron and of conditional herding on a grid and on test
    cases; the training data."""

    X: np.ndarray
    y: np.ndarray
    xs: np.ndarray
    ys: np.ndarray
    vp_grid: np.ndarray
    ch_grid: np.ndarray
    vp_error: float
    ch_error: float
    vp_train: float
    ch_train: float
    hidden: int
    drbm_grid: np.ndarray
    drbm_error: float
    drbm_train: float


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

    dataset = param.Selector(default="banana", objects=list(DATASETS), label="Data set",
                             doc="Two-class 2-D toy data (see dynamics.pct.conditional_herding).")
    train_cases = param.Integer(200, bounds=(20, 2000), step=10, label="Training cases",
                                doc="Training cases (both classes); the test error uses "
                                    f"{TEST_CASES} fresh cases.")
    hidden = param.Integer(20, bounds=(1, 100), label="Hidden units M",
                           doc="Hidden units of conditional herding (eq 1.69).")
    epochs = param.Integer(300, bounds=(10, 3000), step=10, label="Epochs",
                           doc="Passes over the training data, in minibatches of 100.")
    data_seed = param.Integer(1, bounds=(0, 99_999), label="Data seed",
                              doc="Seed of the training data (test data: this + 1) and of the "
                                  "learners.")
    real_data = param.Selector(default="digits", objects=list(cd.DATASETS), label="Real data",
                               doc="Data shipped with scikit-learn: the 8 x 8 digits (10 "
                                   "classes) or the breast cancer set (2 classes).")
    real_hidden = param.Integer(100, bounds=(10, 500), step=10, label="Largest hidden count H",
                                doc="The dRBMs and conditional herders get H/10, H/5 and H "
                                    "hidden units (the paper's 50, 100, 500 at H = 500).")
    real_epochs = param.Integer(100, bounds=(5, 1000), step=5, label="Herding epochs",
                                doc="Passes over the training data (minibatches of 100) of the "
                                    "voted perceptron and conditional herding.")

    fields = ("seed", "data_seed")
    widgets = {name: {"throttled": True} for name in ("n_units", "cases", "steps", "batch",
                                                      "sweeps", "train_cases", "hidden",
                                                      "epochs", "real_hidden", "real_epochs")}
    # what the generic tests and benches need of this page (see ``Explorer``)
    example_change = {"seed": 2}
    bench_move = ("seed", list(range(101, 109)))
    plots = (
        Plot("norm_plot", title="‖w‖ stays bounded (Thm 1.7)",
             depends=LIVE_KNOBS),
        Plot("scaled_plot", title="τ × moment error (flat: O(1/τ))", depends=LIVE_KNOBS),
        Plot("error_plot", title="Moment error; guides 1/τ, 1/√τ", depends=LIVE_KNOBS),
    )
    timeline = Timeline(
        "step_frames", unit="step",
        caption=prose(__file__, "timeline.md"),
        marks=_step_marks())
    runs = (
        Run("boundaries", quick=(("train_cases", 20), ("hidden", 2), ("epochs", 10)),
            title="Decision boundaries: voted perceptron, conditional herding and dRBM "
            "(Fig 1.16)", button="Train all three",
            settings=("dataset", "train_cases", "hidden", "epochs", "data_seed"),
            compute="run_boundaries",
            plots=(Plot("vp_plot", title="Voted perceptron (no hidden units)"),
                   Plot("ch_plot", title="Conditional herding (dRBM, eq 1.69)"),
                   Plot("drbm_plot", title="Discriminative RBM (2 p(+1|x) − 1)")),
            text=prose(__file__, "boundaries.md"),
            estimate="boundaries_estimate", summary="boundaries_summary"),
        Run("table", quick=(("real_hidden", 10), ("real_epochs", 5)),
            title="Real data: voted perceptron, dRBM and conditional herding (Table 1.3)",
            button="Train", settings=("real_data", "real_hidden", "real_epochs", "data_seed"),
            compute="run_table",
            plots=(Plot("table_plot", title="Test error against hidden units"),),
            text=prose(__file__, "table.md"),
            estimate="table_estimate", summary="table_summary", extra="table_extra"),
    )

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
                       for _, values, name in RINGED for key in VARIANTS})

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

    # --- the decision-boundary run -----------------------------------------------------------
    def run_boundaries(self, settings: dict, progress=None) -> Boundaries:
        make = DATASETS[settings["dataset"]]
        seed = int(settings["data_seed"])
        X, y = make(int(settings["train_cases"]), seed=seed)
        Xt, yt = make(TEST_CASES, seed=seed + 1)
        lo, hi = X.min(axis=0), X.max(axis=0)
        pad = 0.15 * (hi - lo)
        xs = np.linspace(lo[0] - pad[0], hi[0] + pad[0], GRID)
        ys = np.linspace(lo[1] - pad[1], hi[1] + pad[1], GRID)
        gx, gy = np.meshgrid(xs, ys)
        inputs = np.r_[np.c_[gx.ravel(), gy.ravel()], Xt]
        epochs, M = int(settings["epochs"]), int(settings["hidden"])
        # minibatches of 100 (the engines' default), or the whole set when the slider gives
        # fewer cases (it starts at 20; a batch of 100 was refused there)
        batch = min(100, len(X))
        # The voted perceptron costs about 1/M of conditional herding: 5 % of the progress bar.
        vp = ch.voted_perceptron(X, y, inputs, epochs=epochs, batch_size=batch, seed=seed,
                                 progress=progress_part(progress, 0.0, 0.05, "voted perceptron"))
        cdh = ch.conditional_herding(X, y, inputs, hidden=M, epochs=epochs, batch_size=batch,
                                     seed=seed,
                                     progress=progress_part(progress, 0.05, 1.0,
                                                           "conditional herding"))
        drbm = cd.drbm_fit(X, (y > 0).astype(int), hidden=M, max_iter=1000, seed=seed)
        p_plus = np.exp(drbm.log_proba(inputs)[:, 1])
        drbm_train = float(np.mean(np.where(drbm.predict(X) == 1, 1, -1) != y))
        n = GRID * GRID

        def test_error(votes):
            return float(np.mean(np.where(votes.votes[n:] >= 0, 1, -1) != yt))

        def train_error(votes):
            return float(np.mean(np.where(votes.train_votes >= 0, 1, -1) != y))

        return Boundaries(X=X, y=y, xs=xs, ys=ys, vp_grid=vp.votes[:n].reshape(GRID, GRID),
                          ch_grid=cdh.votes[:n].reshape(GRID, GRID), vp_error=test_error(vp),
                          ch_error=test_error(cdh), vp_train=train_error(vp),
                          ch_train=train_error(cdh), hidden=M,
                          drbm_grid=(2 * p_plus[:n] - 1).reshape(GRID, GRID),
                          drbm_error=float(np.mean(np.where(p_plus[n:] >= 0.5, 1, -1) != yt)),
                          drbm_train=drbm_train)

    def boundaries_estimate(self, settings: dict) -> float:
        # measured: 0.5 s for 200 cases, M = 20 and 300 epochs on the development machine
        return (0.5 * settings["train_cases"] / 200 * settings["epochs"] / 300
                * (0.3 + 0.7 * settings["hidden"] / 20))

    def boundaries_summary(self, settings: dict, result: Boundaries) -> str:
        return (f"**Test error** on {TEST_CASES} fresh cases: voted perceptron "
                f"**{100 * result.vp_error:.1f} %** (training {100 * result.vp_train:.1f} %), "
                f"conditional herding with {result.hidden} hidden units "
                f"**{100 * result.ch_error:.1f} %** (training {100 * result.ch_train:.1f} %), "
                f"discriminative RBM with {result.hidden} hidden units "
                f"**{100 * result.drbm_error:.1f} %** (training {100 * result.drbm_train:.1f} %). "
                + verdict_markdown(ch.boundary_claim(result.vp_error, result.ch_error,
                                                     hidden=result.hidden)))

    def _votes(self, result: Boundaries, grid: np.ndarray, label: str = "mean vote"):
        dims = [axis("x1", "input x₁"), axis("x2", "input x₂")]
        vote = hv.Dimension("vote", label=label, range=(-1, 1))
        image = hv.Image((result.xs, result.ys, grid.astype(np.float32)), kdims=dims,
                         vdims=[vote])
        image = style(image, cmap="RdBu_r", clim=(-1.0, 1.0), colorbar=True, alpha=0.6)
        boundary = hv.operation.contours(image, levels=[0.0], filled=False)
        boundary = style(boundary, color="black", show_legend=False,
                         bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))
        points = []
        for label in (1, -1):
            pts = result.X[result.y == label]
            points.append(style(hv.Points(pts, kdims=dims, label=f"class {label:+d}"),
                                color=CLASS_COLORS[label],
                                bokeh=dict(size=5, line_color="white", line_width=0.5),
                                mpl=dict(s=10, edgecolors="white", linewidth=0.3)))
        return style(image * boundary * points[0] * points[1],
                     framewise=True)

    def vp_plot(self, result: Boundaries):
        return self._votes(result, result.vp_grid)

    def ch_plot(self, result: Boundaries):
        return self._votes(result, result.ch_grid)

    def drbm_plot(self, result: Boundaries):
        return self._votes(result, result.drbm_grid, label="2 p(+1|x) − 1")

    # --- the real-data run (Table 1.3) -------------------------------------------------------
    @staticmethod
    def hidden_counts(H: int) -> tuple:
        """The three hidden-unit counts of the table run: H/10, H/5 and H."""
        return (max(1, H // 10), max(1, H // 5), H)

    def run_table(self, settings: dict, progress=None) -> cd.TableResult:
        epochs = int(settings["real_epochs"])
        return cd.table_experiment(settings["real_data"],
                                   hidden=self.hidden_counts(int(settings["real_hidden"])),
                                   epochs=epochs, burn_in=min(100, epochs),
                                   drbm_iter=300 if epochs >= 50 else 10,
                                   seed=int(settings["data_seed"]), progress=progress)

    def table_estimate(self, settings: dict) -> float:
        # measured on the digits: about 60 s at H = 100 and 100 epochs, mostly the dRBMs
        H, epochs = settings["real_hidden"], settings["real_epochs"]
        scale = 1.0 if settings["real_data"] == "digits" else 0.2
        return scale * (0.45 * H * (1.0 if epochs >= 50 else 0.05) + 0.02 * H * epochs / 10)

    def table_summary(self, settings: dict, result: cd.TableResult) -> str:
        return (f"**{result.about}.** Test error: voted perceptron "
                f"**{100 * result.vp_error:.2f} %**; "
                + "; ".join(f"M = {h}: dRBM **{100 * e:.2f} %**, conditional herding "
                            f"**{100 * c:.2f} %**" for h, e, c in
                            zip(result.hidden, result.drbm_error, result.ch_error))
                + ". " + verdict_markdown(cd.table_claim(result)))

    def table_extra(self, settings: dict, result: cd.TableResult) -> str:
        rows = ["| data set | VP | dRBM 50 / 100 / 500 | CH 50 / 100 / 500 |",
                "| --- | --- | --- | --- |"]

        def cells(values):
            return " / ".join("-" if v is None else f"{v:.2f} %" for v in values)

        for name, (vp, drbm, herd) in cd.PAPER_TABLE.items():
            rows.append(f"| {name} (paper) | {vp:.2f} % | {cells(drbm)} | {cells(herd)} |")
        counts = " / ".join(str(h) for h in result.hidden)
        rows.append(f"| **{result.dataset} (ours; M = {counts})** | {100 * result.vp_error:.2f} % "
                    f"| {cells(100 * result.drbm_error)} | {cells(100 * result.ch_error)} |")
        return ("The paper's Table 1.3 (joint procedure) beside this run. Its data sets are "
                "larger (MNIST 60,000 training images, USPS 11,000, Pendigits 7,494) and are not "
                "shipped, so the rows differ in data as well as size.\n\n" + "\n".join(rows))

    def table_plot(self, result: cd.TableResult):
        dims = [axis("hidden", "hidden units M"), axis("error", "test error (%)")]
        hidden = np.array(result.hidden, dtype=float)
        curves = [style(hv.Curve((hidden, 100 * result.drbm_error), *dims, label="dRBM"),
                        color="#1f77b4", bokeh=dict(line_width=2), mpl=dict(linewidth=1.5)),
                  style(hv.Curve((hidden, 100 * result.ch_error), *dims,
                                 label="conditional herding"),
                        color="#d62728", bokeh=dict(line_width=2), mpl=dict(linewidth=1.5)),
                  style(hv.Curve((hidden[[0, -1]], np.full(2, 100 * result.vp_error)), *dims,
                                 label="voted perceptron"),
                        color="#222222", bokeh=DASHED, mpl=MPL_DASHED)]
        points = [style(hv.Scatter((hidden, 100 * values), *dims), color=color,
                        bokeh=dict(size=7), mpl=dict(s=20))
                  for values, color in ((result.drbm_error, "#1f77b4"),
                                        (result.ch_error, "#d62728"))]
        return style(hv.Overlay(curves + points), logx=True, framewise=True)
