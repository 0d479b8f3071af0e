"""The Perceptron cycling page's runs (Chen & Welling Sec 1.4.3): the decision boundaries of the
voted perceptron, conditional herding (eq 1.69) and a discriminative RBM on 2-D toy data (Fig
1.16), and the three on data scikit-learn ships (Table 1.3)."""

from __future__ import annotations

from dataclasses import dataclass

import holoviews as hv
import numpy as np
import param

from dynamics.pct import conditional_herding as ch
from dynamics.pct import conditional_herding_data as cd
from views.framework import DASHED, MPL_DASHED, Plot, axis, prose, style
from views.framework.jobs import progress_part
from views.framework.runs import Run
from views.framework.text import verdict_markdown

__all__ = ["BoundariesRun", "TableRun", "Boundaries", "DATASETS", "GRID", "TEST_CASES"]

#: Side of the grid of inputs on which the decision runs' votes are drawn.
GRID = 80
#: Test cases drawn (from the same generator, another seed) for the test errors.
TEST_CASES = 2000
DATASETS = {"banana": ch.banana, "Lithuanian": ch.lithuanian}
CLASS_COLORS = {1: "#d62728", -1: "#1f77b4"}


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
    vp_wrong: np.ndarray
    ch_wrong: np.ndarray


class BoundariesRun(Run):
    """Fig 1.16: the three learners' mean votes on a grid over 2-D toy data, and their test
    errors on fresh cases."""

    key = "boundaries"
    title = "Decision boundaries: voted perceptron, conditional herding and dRBM (Fig 1.16)"
    button = "Train all three"
    text = prose(__file__, "boundaries.md")
    # ``data_seed`` was both runs' seed: both take an older link's value (``Run.aliases``)
    aliases = {"dataset": "dataset", "train_cases": "train_cases", "hidden": "hidden",
               "epochs": "epochs", "data_seed": "seed"}
    quick = {"train_cases": 20, "hidden": 2, "epochs": 10}
    fields = ("seed",)
    widgets = {name: {"throttled": True} for name in ("train_cases", "hidden", "epochs")}

    dataset = param.Selector(default="banana", objects=list(DATASETS), label="Data set",
                             doc="Two-class 2-D toy data (see dynamics.pct.conditional_herding).")
    train_cases = param.Integer(200, bounds=(20, 2000), step=10, label="Training cases",
                                doc="Training cases (both classes); the test error uses "
                                    f"{TEST_CASES} fresh cases.")
    hidden = param.Integer(20, bounds=(1, 100), label="Hidden units M",
                           doc="Hidden units of conditional herding (eq 1.69).")
    epochs = param.Integer(300, bounds=(10, 3000), step=10, label="Epochs",
                           doc="Passes over the training data, in minibatches of 100.")
    seed = param.Integer(1, bounds=(0, 99_999), label="Data seed",
                         doc="Seed of the training data (test data: this + 1) and of the "
                             "learners.")

    def compute(self, settings: dict, progress=None) -> Boundaries:
        make = DATASETS[settings["dataset"]]
        seed = int(settings["seed"])
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

        def wrong(votes):
            return np.where(votes.votes[n:] >= 0, 1, -1) != yt

        def train_error(votes):
            return float(np.mean(np.where(votes.train_votes >= 0, 1, -1) != y))

        return Boundaries(X=X, y=y, xs=xs, ys=ys, vp_grid=vp.votes[:n].reshape(GRID, GRID),
                          ch_grid=cdh.votes[:n].reshape(GRID, GRID), vp_error=test_error(vp),
                          ch_error=test_error(cdh), vp_train=train_error(vp),
                          ch_train=train_error(cdh), hidden=M,
                          drbm_grid=(2 * p_plus[:n] - 1).reshape(GRID, GRID),
                          drbm_error=float(np.mean(np.where(p_plus[n:] >= 0.5, 1, -1) != yt)),
                          drbm_train=drbm_train, vp_wrong=wrong(vp), ch_wrong=wrong(cdh))

    def estimate(self, settings: dict) -> float:
        # measured: 0.5 s for 200 cases, M = 20 and 300 epochs on the development machine
        return (0.5 * settings["train_cases"] / 200 * settings["epochs"] / 300
                * (0.3 + 0.7 * settings["hidden"] / 20))

    def summary(self, settings: dict, result: Boundaries) -> str:
        return (f"**Test error** on {TEST_CASES} fresh cases: voted perceptron "
                f"**{100 * result.vp_error:.1f} %** (training {100 * result.vp_train:.1f} %), "
                f"conditional herding with {result.hidden} hidden units "
                f"**{100 * result.ch_error:.1f} %** (training {100 * result.ch_train:.1f} %), "
                f"discriminative RBM with {result.hidden} hidden units "
                f"**{100 * result.drbm_error:.1f} %** (training {100 * result.drbm_train:.1f} %). "
                + verdict_markdown(ch.boundary_claim(result.vp_wrong, result.ch_wrong,
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

    plots = (Plot(vp_plot, title="Voted perceptron (no hidden units)"),
             Plot(ch_plot, title="Conditional herding (dRBM, eq 1.69)"),
             Plot(drbm_plot, title="Discriminative RBM (2 p(+1|x) − 1)"))


class TableRun(Run):
    """Table 1.3: the voted perceptron, dRBMs and conditional herding on real data."""

    key = "table"
    title = "Real data: voted perceptron, dRBM and conditional herding (Table 1.3)"
    button = "Train"
    text = prose(__file__, "table.md")
    aliases = {"real_data": "dataset", "real_hidden": "hidden", "real_epochs": "epochs",
               "data_seed": "seed"}
    quick = {"hidden": 10, "epochs": 5}
    fields = ("seed",)
    widgets = {name: {"throttled": True} for name in ("hidden", "epochs")}

    dataset = param.Selector(default="digits", objects=list(cd.DATASETS), label="Real data",
                             doc="Data shipped with scikit-learn: the 8 x 8 digits (10 "
                                 "classes) or the breast cancer set (2 classes).")
    hidden = param.Integer(100, bounds=(10, 500), step=10, label="Largest hidden count H",
                           doc="The dRBMs and conditional herders get H/10, H/5 and H "
                               "hidden units (the paper's 50, 100, 500 at H = 500).")
    epochs = param.Integer(100, bounds=(5, 1000), step=5, label="Herding epochs",
                           doc="Passes over the training data (minibatches of 100) of the "
                               "voted perceptron and conditional herding.")
    seed = param.Integer(1, bounds=(0, 99_999), label="Data seed",
                         doc="Seed of the training data (test data: this + 1) and of the "
                             "learners.")

    @staticmethod
    def hidden_counts(H: int) -> tuple:
        """The three hidden-unit counts of the table run: H/10, H/5 and H."""
        return (max(1, H // 10), max(1, H // 5), H)

    def compute(self, settings: dict, progress=None) -> cd.TableResult:
        epochs = int(settings["epochs"])
        return cd.table_experiment(settings["dataset"],
                                   hidden=self.hidden_counts(int(settings["hidden"])),
                                   epochs=epochs, burn_in=min(100, epochs),
                                   drbm_iter=300 if epochs >= 50 else 10,
                                   seed=int(settings["seed"]), progress=progress)

    def estimate(self, settings: dict) -> float:
        # measured on the digits: about 60 s at H = 100 and 100 epochs, mostly the dRBMs
        H, epochs = settings["hidden"], settings["epochs"]
        scale = 1.0 if settings["dataset"] == "digits" else 0.2
        return scale * (0.45 * H * (1.0 if epochs >= 50 else 0.05) + 0.02 * H * epochs / 10)

    def summary(self, settings: dict, result: cd.TableResult) -> str:
        return (f"**{result.about}.** Test error: voted perceptron "
                f"**{100 * result.vp_error:.2f} %**; "
                + "; ".join(f"M = {h}: dRBM **{100 * e:.2f} %**, conditional herding "
                            f"**{100 * c:.2f} %**" for h, e, c in
                            zip(result.hidden, result.drbm_error, result.ch_error))
                + ". " + verdict_markdown(cd.table_claim(result)))

    def extra(self, settings: dict, result: cd.TableResult) -> str:
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

    plots = (Plot(table_plot, title="Test error against hidden units"),)
